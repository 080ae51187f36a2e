"""Qt tests: offscreen, one QApplication for the session (pytest-qt), Qt warnings fail the test
(``qt_log_level_fail = WARNING`` in pyproject.toml), and so does any ERROR logged by Podium."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.gui.modal import ModalSteps
from tests.ledgers import sqlite_ledger

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


class _FailOnError(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def fail_on_logged_error(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    handler = _FailOnError()
    logger = logging.getLogger("podium")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    if handler.records and not request.node.get_closest_marker("allow_logged_errors"):
        msgs = "; ".join(r.getMessage() for r in handler.records)
        pytest.fail(f"unexpected error logged: {msgs}")


@pytest.fixture(autouse=True, scope="session")
def themed(qapp):  # type: ignore[no-untyped-def]
    from gui.common import theme

    theme.apply(qapp)
    return qapp


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    """A fresh SQLite ledger file for a console under test (a copy of the session's template)."""
    eng = sqlite_ledger(tmp_path / "ledger.sqlite3")
    yield eng
    eng.dispose()


@pytest.fixture(autouse=True)
def _no_widget_outlives_its_test(qapp):  # type: ignore[no-untyped-def]
    """What a test left (closed windows in reference cycles, widgets waiting for deleteLater)
    is destroyed before the next test, on the GUI thread: automatic garbage collection is off
    in the console (gui/common/collector.py), and a window left from one test must not take part in
    the next."""
    yield
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    # What is still alive now (the modules, the application, caches) is moved out of every later
    # collection's sight: a full collection walks only what the next test makes, not the whole
    # heap of the run (seconds a test, late in a worker's run, otherwise).
    gc.freeze()


@pytest.fixture
def modal_steps() -> Iterator[ModalSteps]:
    """Steps run from timers while a modal dialog blocks the test (tests/gui/modal.py): a
    failing step closes the dialogs and fails the test instead of hanging it."""
    steps = ModalSteps()
    yield steps
    steps.check()


@pytest.fixture(autouse=True)
def _window_settings_apart(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The windows' remembered geometry (QSettings, gui/common/window_geometry.py) goes to a
    folder of the test's own, never the user's settings, and starts empty."""
    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path_factory.mktemp("settings")))


@pytest.fixture
def console_window(qtbot, qapp, engine: Engine):  # type: ignore[no-untyped-def]
    """(window, floor): the console's main window shown on a real floor (FloorHarness: simulated
    controllers, the ledger writer, a fake printer) over the ``engine`` fixture's ledger, SQLite
    and PostgreSQL.  A test module may define its own ``console_window`` instead."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from gui.common.swipe import SwipeCatcher
    from gui.main_window import MainWindow
    from tests.fake_printer import FakePrinter
    from tests.harness import FloorHarness

    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as printer, FloorHarness(engine, printer.port) as floor:
        window = MainWindow(floor.console, catcher)
        window.show()
        yield window, floor
        window.close()
    # the window's timers read the ledger: delete it before the ledger goes (the engine
    # fixture drops a PostgreSQL schema), after the floor stopped calling its listener
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.removeEventFilter(catcher)
