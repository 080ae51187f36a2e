"""The table-games screens' tests: the console's main window on a real floor (FloorHarness:
simulated controllers, the ledger writer, a fake printer) over the ``engine`` fixture's ledger,
SQLite and PostgreSQL.  A test module may define its own ``console_window`` instead."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication
from sqlalchemy import Engine

from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness


@pytest.fixture
def console_window(qtbot, qapp, engine: Engine):  # type: ignore[no-untyped-def]
    """(window, floor): the main window shown, the floor it shows playing."""
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
