"""The machine-win check tab (docs/operator.md "Checking a machine win"; rules docs/slots.md):
the screen typed or entered on the grid by keyboard and mouse, every win explained and marked
on the grid, a MATCH / MISMATCH verdict, errors shown in red changing nothing, and "Record
check" recording who checked (any employee, surveillance too) after a card swipe; a refused
card writes nothing but the swipe log.  SQLite (the core function is tested on both databases
in tests/core/machines/test_machine_checks.py).  Cards are swiped as real key events at reader
speed.

The screenshot goes to $PODIUM_SCREENSHOT_DIR when it is set (make screenshots)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.app.demo import swipe_of
from core.ledger.models import Employee, MachineCheck, SwipeLog
from gui.common.authorize import SwipePrompt
from gui.common.swipe import SwipeCatcher
from gui.machines.machine_check import MachineCheckScreen
from gui.main_window import MainWindow
from tests.fake_printer import FakePrinter
from tests.gui.swiping import type_swipe
from tests.harness import FloorHarness

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")
SCREEN = "R X R N E / G Y X B N / F F E F N"  # docs/slots.md: 90 + 40 + 15 = 145 credits
SURVEILLANCE = "3001"
UNKNOWN_CARD = ";6011000990139999=2812101?"


@pytest.fixture
def check_tab(qtbot, qapp, sqlite_engine: Engine):  # type: ignore[no-untyped-def]
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port) as floor:
        window = MainWindow(floor.console, catcher)
        window.resize(1700, 1000)
        window.show()
        screen = window.findChild(MachineCheckScreen)
        assert screen is not None
        tabs = window.findChild(QTabWidget)
        assert tabs is not None
        for i in range(tabs.count()):
            if tabs.tabText(i) == "Machine check":
                tabs.setCurrentIndex(i)
        screen.game_box.setCurrentText("four-winds")
        yield window, screen, sqlite_engine
        window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.removeEventFilter(catcher)


def _enter_screen(qtbot, screen: MachineCheckScreen, text: str) -> None:  # type: ignore[no-untyped-def]
    screen.screen_edit.clear()
    qtbot.keyClicks(screen.screen_edit, text)
    qtbot.keyClick(screen.screen_edit, Qt.Key.Key_Return)


def _claim(qtbot, screen: MachineCheckScreen, credits: str) -> None:  # type: ignore[no-untyped-def]
    screen.claim.clear()
    qtbot.keyClicks(screen.claim, credits)


def _rows(screen: MachineCheckScreen) -> list[list[str]]:
    t = screen.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def _type_swipe(qtbot, widget: QWidget, swipe: str) -> None:  # type: ignore[no-untyped-def]
    type_swipe(widget, swipe)  # at reader speed, by the events' own clock


def test_verdict_matches_a_correct_claim_and_explains_every_credit(qtbot, check_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen, _engine = check_tab
    _enter_screen(qtbot, screen, SCREEN)
    assert screen.error.text() == ""
    assert screen.outcome is not None and screen.outcome.total == 145
    rows = _rows(screen)
    assert [r[1:8] for r in rows] == [
        ["line 1", "G", "3", "1 Y, 1 X", "15", "x6", "90"],
        ["line 2", "R", "3", "1 X", "20", "x2", "40"],
        ["scatter", "F", "3", "—", "3", "x1", "15"]]
    assert "Y x3, X x2 = x6" in rows[0][8] and rows[0][8].endswith("= 90")
    # the grid marks the paying cells: line 1 is the middle row (G Y X), line 2 the top (R X R)
    marks = screen.grid.marks
    assert {(1, 0), (0, 0), (0, 2)} <= marks.pattern
    assert {(1, 1), (1, 2), (0, 1)} <= marks.substitute
    assert marks.scatter == {(2, 0), (2, 1), (2, 3)}
    assert [(label, count) for _cells, count, _c, label in marks.lines] == [("L1", 3), ("L2", 3)]
    _claim(qtbot, screen, "145")
    assert screen.verdict.text() == "MATCH"
    assert screen.record_btn.isEnabled()
    # one win selected: only its cells are marked
    screen.table.selectRow(1)
    assert [label for *_x, label in screen.grid.marks.lines] == ["L2"]
    assert screen.grid.marks.scatter == set()


def test_verdict_is_mismatch_for_a_wrong_claim(qtbot, check_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen, _engine = check_tab
    _enter_screen(qtbot, screen, SCREEN)
    _claim(qtbot, screen, "150")
    assert screen.verdict.text() == "MISMATCH"
    assert "claimed 150, evaluated 145" in screen.verdict_detail.text()
    _claim(qtbot, screen, "12.5")
    assert "claimed amount" in screen.claim_error.text()
    assert not screen.record_btn.isEnabled()


def test_grid_by_keyboard_and_mouse_and_bad_input_changes_nothing(qtbot, check_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen, _engine = check_tab
    _enter_screen(qtbot, screen, SCREEN)
    grid = screen.grid
    grid.setFocus()
    grid.cell = (0, 0)
    qtbot.keyClick(grid, Qt.Key.Key_Right)
    assert grid.cell == (0, 1)
    qtbot.keyClick(grid, "r")  # a symbol's id sets the cell (any case) and moves right
    assert grid.symbols()[0][:3] == ("R", "R", "R") and grid.cell == (0, 2)
    assert screen.screen_edit.text().startswith("R R R N E /")
    assert screen.outcome is not None and screen.outcome.line_wins[1].multiplier == 1
    qtbot.keyClick(grid, "z")  # no such symbol: red message, nothing changes
    assert "'z' is not a symbol of Four Winds" in screen.error.text()
    assert grid.symbols()[0][2] == "R" and screen.outcome is not None  # the verdict stands
    # mouse: a click cycles the cell to the next symbol of the game (R G B N E X Y F)
    centre = grid.cell_rect(2, 4).center()
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=QPoint(int(centre.x()), int(centre.y())))
    assert grid.symbols()[2][4] == "E" and grid.cell == (2, 4)  # N -> E
    qtbot.mouseClick(grid, Qt.MouseButton.RightButton, pos=QPoint(int(centre.x()), int(centre.y())))
    assert grid.symbols()[2][4] == "N"
    assert screen.error.text() == ""
    before = grid.symbols()
    _enter_screen(qtbot, screen, "R X R N / G Y X B N / F F E F N")  # a row too short
    assert "row 1 has 4 symbol(s)" in screen.error.text()
    assert grid.symbols() == before
    assert screen.verdict.text() == "—" and not screen.record_btn.isEnabled()
    _enter_screen(qtbot, screen, "R X R N Q / G Y X B N / F F E F N")
    assert "unknown symbol 'Q'" in screen.error.text() and grid.symbols() == before
    # Enter on the grid evaluates again; the error is gone
    grid.setFocus()
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    assert screen.error.text() == "" and screen.outcome is not None


def test_free_game_with_held_reels_pays_no_initial_pattern_again(qtbot, check_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen, _engine = check_tab
    _enter_screen(qtbot, screen, SCREEN)
    screen.free_game.setChecked(True)
    for cb in screen.held[:3]:
        cb.setChecked(True)
    qtbot.keyClicks(screen.initial, "1:G:3")
    qtbot.keyClick(screen.initial, Qt.Key.Key_Return)
    assert screen.outcome is not None
    # line 2 40 x2 = 80, flowers 15 x2 = 30, retrigger prize 5 x 5 x 2 = 50
    assert screen.outcome.total == 160
    texts = [r[8] for r in _rows(screen)]
    assert any("not paid again" in t for t in texts)
    assert any("retrigger prize" in t for t in texts)


def test_record_check_asks_any_card_and_records_who_checked(qtbot, modal_steps, check_tab) -> None:  # type: ignore[no-untyped-def]
    window, screen, engine = check_tab
    _enter_screen(qtbot, screen, SCREEN)
    _claim(qtbot, screen, "150")
    seen: dict[str, Any] = {}

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        _type_swipe(qtbot, prompt, UNKNOWN_CARD)
        qtbot.waitUntil(lambda: "not enrolled" in prompt.message.text(), timeout=10000)
        seen["refusal"] = prompt.message.text()
        with Session(engine) as s:
            seen["checks_after_refusal"] = len(list(s.scalars(select(MachineCheck))))
            seen["swipes_after_refusal"] = [(w.outcome, w.action)
                                            for w in s.scalars(select(SwipeLog))]
        _type_swipe(qtbot, prompt, swipe_of(SURVEILLANCE))

    with modal_steps.running():
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        qtbot.mouseClick(screen.record_btn, Qt.MouseButton.LeftButton)

    assert seen["checks_after_refusal"] == 0
    assert seen["swipes_after_refusal"] == [("unknown_card", "machine_check")]
    assert "6011" not in seen["refusal"]
    assert screen.last is not None and screen.last.by.number == SURVEILLANCE
    assert "MISMATCH, checked by Sam Lee #3001 (surveillance)" in screen.status.text()
    with Session(engine) as s:
        [row] = s.scalars(select(MachineCheck))
        who = s.get(Employee, row.employee_id)
        swipes = [(w.outcome, w.action) for w in s.scalars(select(SwipeLog).order_by(SwipeLog.id))]
    assert who is not None and who.number == SURVEILLANCE
    assert (row.screen, row.claimed_credits, row.evaluated_credits, row.verdict) == (
        SCREEN, 150, 145, "mismatch")
    assert row.wins["total"] == 145 and len(row.wins["line_wins"]) == 2
    assert swipes == [("unknown_card", "machine_check"), ("accepted", "machine_check")]
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        screen.resize(1300, 900)
        QApplication.processEvents()
        screen.grab().save(str(Path(SHOTS) / "machine-check.png"))
    assert window.isVisible()


def test_a_check_is_stamped_by_the_floor_clock(qtbot, modal_steps, check_tab, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The floor's clock (a demo's, a test's) stamps a machine check as it stamps everything
    else on the floor: not the wall clock."""
    from datetime import UTC, datetime

    window, screen, engine = check_tab
    ctx = window.console.floor.ctx
    wall = ctx.clock
    monkeypatch.setattr(ctx, "clock", lambda: wall() + timedelta(days=400))
    _enter_screen(qtbot, screen, SCREEN)
    _claim(qtbot, screen, "145")

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        _type_swipe(qtbot, prompt, swipe_of(SURVEILLANCE))

    with modal_steps.running():
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        qtbot.mouseClick(screen.record_btn, Qt.MouseButton.LeftButton)
    assert screen.last is not None
    assert screen.last.checked_at > datetime.now(UTC) + timedelta(days=399)
    with Session(engine) as s:
        [row] = s.scalars(select(MachineCheck))
    at = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    assert at > datetime.now(UTC) + timedelta(days=399)
