"""The Poker room tab (gui/poker_room.py): a qualifying claim entered by hand and on the card
picker shows the decision and every share; a claim that fails shows its reasons in words;
opening a case after a supervisor's swipe lists it with its state and next deadline.  SQLite
(core/bbj_cases.py is tested on both databases).  The swipe prompt is replaced by a direct
call with a supervisor's card (tests/gui/test_gui_swipe.py covers the prompt).

The screenshot goes to docs/screenshots/poker-room.png (or $PODIUM_SCREENSHOT_DIR)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDate, QDateTime, QEvent, Qt, QTime
from PySide6.QtWidgets import QApplication, QTabWidget
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

import core.bbj_fund as bf
from core.demo import swipe_of
from core.ledger.db import make_engine, upgrade
from core.ledger.models import Employee
from gui.main_window import MainWindow
from gui.poker_room import PokerRoomScreen
from gui.swipe import SwipeCatcher
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness

SHOTS = Path(os.environ.get("PODIUM_SCREENSHOT_DIR") or
             Path(__file__).resolve().parents[2] / "docs" / "screenshots")


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def room_tab(qtbot, qapp, sqlite_engine: Engine):  # type: ignore[no-untyped-def]
    start = datetime.now(UTC) - timedelta(days=3)
    bf.create_fund(sqlite_engine, "bbj", "Poker room BBJ", at=start)
    bf.seed(sqlite_engine, "bbj", 5_000_000, by="operator", reason="opening seed", at=start)
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port) as floor:
        with Session(sqlite_engine) as s:
            assert s.scalar(select(Employee).where(Employee.number == "1001")) is not None
        window = MainWindow(floor.console, catcher)
        window.resize(1700, 1000)
        window.show()
        screen = window.findChild(PokerRoomScreen)
        assert screen is not None
        tabs = window.findChild(QTabWidget)
        assert tabs is not None
        for i in range(tabs.count()):
            if tabs.tabText(i) == "Poker room":
                tabs.setCurrentIndex(i)
        yield window, screen
        window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.removeEventFilter(catcher)


def _enter(qtbot: Any, screen: PokerRoomScreen, *, seats: int = 6, pot: str = "2500.00") -> None:
    qtbot.keyClicks(screen.table_edit, "P1")
    screen.pot.setText(pot)
    for r in range(seats):
        screen.dealt[r].setChecked(True)
        screen.ids[r].setChecked(True)
        screen.seats.item(r, 1).setText(f"Player {r + 1}")
    screen.taxpayer[1].setCurrentText("nranetb")
    screen.hit_time.setDateTime(screen.hit_time.dateTime().addSecs(-600))
    screen.seat_a.setValue(1)
    screen.seat_b.setValue(4)
    # board, then seat 1 (Aces full of Tens), then seat 4 (four sevens)
    qtbot.keyClicks(screen.picker.entry, "Ah Ad Tc 7s 7c As Td 7h 7d")
    qtbot.keyClick(screen.picker.entry, Qt.Key.Key_Return)


def test_a_qualifying_claim_shows_the_decision_and_opens_a_case(qtbot, room_tab) -> None:  # type: ignore[no-untyped-def]
    window, screen = room_tab
    assert screen.main_label.text() == "MAIN 50,000.00"
    _enter(qtbot, screen)
    assert len(screen.picker.cards()) == 9
    qtbot.mouseClick(screen.decide_btn, Qt.MouseButton.LeftButton)
    text = screen.result.text()
    assert text.startswith("QUALIFIES: seat 4 (FOUR_OF_A_KIND) beat seat 1 (FULL_HOUSE)")
    assert "Award 50,000.00" in text
    assert "seat 4 Player 4 (winning, citizen): gross 10,000.00, tax 0.00" in text
    assert "seat 1 Player 1 (losing, citizen): gross 20,000.00, tax 4,000.00" in text
    assert "seat 2 Player 2 (table, nranetb): gross 5,000.00, tax 1,250.00" in text

    window.authorize = lambda role, what, kind, action: action(swipe_of("1001")) is not None
    qtbot.mouseClick(screen.open_btn, Qt.MouseButton.LeftButton)
    assert "Case #1 opened." in screen.result.text()
    assert screen.case_table.rowCount() == 1
    assert screen.case_table.item(0, 3).text() == "claimed"
    assert screen.case_table.item(0, 4).text().startswith("request by")
    screen.case_table.selectRow(0)
    assert screen.next_box.currentData() == "verified"
    screen.deck_sorted.setChecked(True)
    screen.cctv.setChecked(True)
    qtbot.mouseClick(screen.step_btn, Qt.MouseButton.LeftButton)
    assert screen.case_table.item(0, 3).text() == "verified (deck sorted, CCTV reviewed)"
    SHOTS.mkdir(parents=True, exist_ok=True)
    screen.case_table.selectRow(0)
    window.grab().save(str(SHOTS / "poker-room.png"))


def test_a_claim_that_fails_shows_every_reason_in_words(qtbot, room_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen = room_tab
    _enter(qtbot, screen, seats=4, pot="1000.00")
    qtbot.mouseClick(screen.decide_btn, Qt.MouseButton.LeftButton)
    assert screen.result.text().splitlines() == [
        "DOES NOT QUALIFY:",
        "  NOT_ENOUGH_PLAYERS: fewer than 5 players dealt in",
        "  POT_TOO_SMALL: the pot is under 20 big blinds"]


def test_the_daily_count_is_recorded_and_the_posted_day_shows_the_updated_main(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:
    window, screen = room_tab
    window.authorize = lambda role, what, kind, action: action(swipe_of("1001")) is not None
    day = QDate(2026, 12, 1)
    screen.count_date.setDate(day)
    screen.count_opened.setDateTime(QDateTime(day, QTime(10, 0)))
    screen.count_closed.setDateTime(QDateTime(day, QTime(22, 0)))
    qtbot.keyClicks(screen.count_table, "P1")
    qtbot.keyClicks(screen.count_box, "J-1")
    qtbot.keyClicks(screen.count_dealer, "D. Cruz")
    for denom, n in {500: 2, 100: 3, 50: 1, 25: 2, 10: 4}.items():
        screen.pieces[denom].setValue(n)
    assert screen.count_total.text() == "Box total 1,440.00"
    qtbot.mouseClick(screen.record_count_btn, Qt.MouseButton.LeftButton)
    assert screen.count_msg.text() == ("2026-12-01: table P1 drop box J-1 counted "
                                       "(box total 1,440.00).")
    # 1,440.00: admin fee 30% 432.00; the fund 1,008.00: main 70% 705.60, reserve 302.40
    qtbot.mouseClick(screen.post_day_btn, Qt.MouseButton.LeftButton)
    assert screen.count_msg.text().splitlines() == [
        "2026-12-01 posted: jackpot rake 1,440.00; admin fee 432.00, to main 705.60, "
        "to reserve 302.40.",
        "Updated main 50,705.60 (was 50,000.00), reserve 302.40 (was 0.00)."]
    assert screen.main_label.text() == "MAIN 50,705.60"
    assert bf.funds(screen.console.engine, "bbj") == bf.Funds(5_070_560, 30_240)
