"""The paid win slips that never printed, offered at start, and the Win slips tab showing a
print whose state is unknown (the console stopped between sending a slip and recording the
outcome).  A real console on a SQLite ledger, a fake ESC/POS printer on a loopback port.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set (docs/screenshots/
startup-unprinted-slips.png and main-window-slips-unknown.png were made so)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from sqlalchemy import Engine, select

from core.app.console import ConsoleCore
from core.ledger.models import Slip
from core.tablegames.floor import Floor
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from printing.escpos.preview import recovered_text
from printing.escpos.printers import NetworkPrinter
from printing.escpos.slip import DUPLICATE_BANNER, PAPER
from tests.fake_printer import FakePrinter
from tests.paid_slips import PAYTABLES, console, make_slips, slip_floor

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


def _stored(engine: Engine) -> dict[int, bytes]:
    with engine.connect() as c:
        return {no: bytes(b) for no, b in c.execute(select(Slip.slip_no, Slip.escpos))}


@pytest.fixture
def restarted(qapp, sqlite_engine: Engine) -> Iterator[tuple[Engine, list[int], FakePrinter,  # type: ignore[no-untyped-def]
                                                                ConsoleCore, SwipeCatcher]]:
    """Five slips paid before this start: two never tried, one refused by the printer (cover
    open, nothing sent), one printed, one whose print started and has no outcome (the console
    died); then a console starts with a working printer."""
    config = slip_floor()
    nos = make_slips(sqlite_engine, config, 5)
    before = Floor(sqlite_engine, config, PAYTABLES, paper=PAPER)
    before.record_print(nos[1], "10.0.0.50:9100", False,
                        "Printer 10.0.0.50:9100: cover open; nothing was sent", reason="cover_open")
    before.record_print(nos[2], "10.0.0.50:9100", True)
    before.record_print_started(nos[3], "10.0.0.50:9100", "", 900)
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as fp:
        c = console(sqlite_engine, config, NetworkPrinter("127.0.0.1", fp.port, timeout=5))
        try:
            yield sqlite_engine, nos, fp, c, catcher
        finally:
            c.stop()
    qapp.removeEventFilter(catcher)


def _window(qtbot: Any, c: ConsoleCore, catcher: SwipeCatcher) -> MainWindow:
    window = MainWindow(c, catcher)
    qtbot.addWidget(window)
    window.show()
    return window


def test_the_slips_never_printed_are_offered_at_start_and_printed_on_confirmation(  # type: ignore[no-untyped-def]
        qtbot, restarted) -> None:
    engine, nos, fp, c, catcher = restarted
    window = _window(qtbot, c, catcher)
    qtbot.waitUntil(lambda: window.unprinted_dialog is not None
                    and window.unprinted_dialog.isVisible(), timeout=5000)
    dlg = window.unprinted_dialog
    assert dlg is not None
    assert dlg.question.text() == "4 paid win slips were never printed. Print them now?"
    assert "1 of them was being printed when the console stopped" in dlg.how.text()
    assert "DUPLICATE - PRINT STATE UNKNOWN" in dlg.how.text()
    assert dlg.slip_nos() == [nos[0], nos[1], nos[3], nos[4]]  # oldest first, not the printed
    states = [dlg.table.item(r, 5).text() for r in range(dlg.table.rowCount())]
    assert states == ["never tried", "failed", "UNKNOWN (may be on paper)", "never tried"]
    assert "cover open" in dlg.table.item(1, 5).toolTip()
    assert fp.received == b""  # nothing prints before the supervisor says so
    shot(dlg, "startup-unprinted-slips")

    qtbot.mouseClick(dlg.print_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: c.floor.pending_slips() == [], timeout=15000)
    assert window.unprinted_dialog is None
    stored = _stored(engine)
    jobs = {no: job for job in fp.jobs for no in nos
            if f"WIN SLIP No. {no:06d}" in recovered_text(job)}
    assert sorted(jobs) == [nos[0], nos[1], nos[3], nos[4]] and len(fp.jobs) == 4
    # the slip whose state was unknown says so on the paper; the others are originals
    assert recovered_text(jobs[nos[3]]).lstrip().startswith(DUPLICATE_BANNER.strip())
    assert jobs[nos[3]].endswith(stored[nos[3]])
    for no in (nos[0], nos[1], nos[4]):
        assert jobs[no] == stored[no]
    said = "Win slips never printed: 4 of 4 printed here"
    qtbot.waitUntil(lambda: any(said in window.log_list.item(i).text()
                                for i in range(window.log_list.count())), timeout=10000)


def test_later_prints_nothing_and_the_win_slips_tab_shows_the_unknown_state(  # type: ignore[no-untyped-def]
        qtbot, restarted) -> None:
    engine, nos, fp, c, catcher = restarted
    window = _window(qtbot, c, catcher)
    qtbot.waitUntil(lambda: window.unprinted_dialog is not None
                    and window.unprinted_dialog.isVisible(), timeout=5000)
    dlg = window.unprinted_dialog
    assert dlg is not None
    qtbot.mouseClick(dlg.later_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.unprinted_dialog is None, timeout=10000)
    window.tabs.setCurrentWidget(window.slips_tab)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 5, timeout=5000)
    printed = {int(window.slips.item(r, 0).text()): window.slips.item(r, 5)
               for r in range(window.slips.rowCount())}
    unknown = printed[nos[3]]
    assert unknown.text() == "UNKNOWN: print started, no outcome recorded"
    assert "DUPLICATE - PRINT STATE UNKNOWN" in unknown.toolTip()
    assert printed[nos[2]].text() == "yes"
    assert printed[nos[1]].text().startswith("FAILED: Printer 10.0.0.50:9100: cover open")
    assert window.slips_note.isVisible() and "1 slip with print state UNKNOWN" in \
        window.slips_note.text()
    window.setWindowState(Qt.WindowState.WindowNoState)  # it opens maximized
    window.resize(1280, 560)
    shot(window, "main-window-slips-unknown")
    assert fp.received == b"" and len(c.floor.pending_slips()) == 4
    # Print all queued: the unknown one is marked, never a second unmarked original
    qtbot.mouseClick(window.retry_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: c.floor.pending_slips() == [], timeout=15000)
    (dup,) = [j for j in fp.jobs if f"WIN SLIP No. {nos[3]:06d}" in recovered_text(j)]
    assert recovered_text(dup).lstrip().startswith(DUPLICATE_BANNER.strip())
    qtbot.waitUntil(lambda: not window.slips_note.isVisible(), timeout=5000)


def test_nothing_is_offered_when_every_slip_printed(qtbot, qapp, sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    config = slip_floor()
    (n,) = make_slips(sqlite_engine, config, 1)
    Floor(sqlite_engine, config, PAYTABLES, paper=PAPER).record_print(n, "p", True)
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as fp:
        c = console(sqlite_engine, config, NetworkPrinter("127.0.0.1", fp.port, timeout=5))
        try:
            window = _window(qtbot, c, catcher)
            assert window.bridge.wait_idle(5000)  # the start-up read delivered, too
            assert c.unprinted_slips() == [] and window.unprinted_dialog is None
        finally:
            c.stop()
    qapp.removeEventFilter(catcher)
