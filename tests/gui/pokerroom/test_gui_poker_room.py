"""The Poker room tab (gui/pokerroom/, gui/pokerroom/forms_panel.py): a qualifying claim entered by
hand and on the card picker shows the decision and every share; a claim that fails shows its
reasons in words; a showdown of three hands is decided on the two highest; a seat that showed
must be dealt in; opening a case after a supervisor's swipe lists it with its state and next
deadline (public holidays skipped); an approval may cease the fund; the daily count keeps the
house rake; a tournament's fee is recorded; the forms page writes a daily report PDF or shows
why it can not.  SQLite (core/pokerroom/cases/ and printing/pages/ledger_forms.py are tested on
both databases).  The swipe prompt is replaced by a direct call with a supervisor's card that, like
the prompt, keeps a refusal's message (tests/gui/common/test_gui_swipe.py covers the prompt).

Screenshots go to /tmp/poker-shots/ (or $PODIUM_SCREENSHOT_DIR: make screenshots writes
docs/screenshots/poker-room.png)."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from PySide6.QtCore import QDate, QDateTime, QEvent, Qt, QTime
from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog
from PySide6.QtWidgets import QApplication, QTabWidget
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

import core.pokerroom.cases as bc
import core.pokerroom.fund as bf
from core.app.demo import demo_credential, swipe_of
from core.kernel.cards import parse_cards
from core.ledger.models import (
    BbjAward,
    BbjCessation,
    BbjDropCount,
    Employee,
    PokerTournamentFee,
)
from core.pokerroom.rules.bbj import ShownHand
from gui.common.bridge import default_bridge
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from gui.pokerroom import PokerRoomScreen
from gui.pokerroom.claim import COL_NAME
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness

SHOTS = Path(os.environ.get("PODIUM_SCREENSHOT_DIR") or "/tmp/poker-shots")
SUPERVISOR = swipe_of("1001")  # Dana Reyes
EXECUTIVE = demo_credential("2001")  # Evelyn Cruz and her PIN (the demo floor asks it)


def settle() -> None:
    """Wait for what the tab reads off the GUI thread (the bridge) to be shown."""
    assert default_bridge().wait_idle(5000)


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
        window.show()
        screen = window.findChild(PokerRoomScreen)
        assert screen is not None
        tabs = window.findChild(QTabWidget)
        assert tabs is not None
        for i in range(tabs.count()):
            if tabs.tabText(i) == "Poker room":
                tabs.setCurrentIndex(i)
        # the smallest screen the console is used on (once the tab has hidden the meters)
        def fits() -> bool:
            window.setWindowState(Qt.WindowState.WindowNoState)  # it opens maximized
            window.resize(1366, 768)
            return window.width() == 1366 and window.height() == 768

        qtbot.waitUntil(fits)
        settle()  # the tab reads its funds and cases off the GUI thread
        yield window, screen
        window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.removeEventFilter(catcher)


class Swiper:
    """Stands in for ``window.authorize``: runs the action with the card the tab asks for (a
    supervisor's, or the executive's with her PIN); a refusal (a ValueError) is kept, as the
    swipe prompt shows it, and nothing is authorized."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.roles: list[str] = []
        self.refusals: list[str] = []

    def __call__(self, role: str, what: str, kind: str, action: Any) -> bool:
        self.prompts.append(what)
        self.roles.append(role)
        try:
            return action(EXECUTIVE if role == "executive" else SUPERVISOR) is not None
        except ValueError as exc:
            self.refusals.append(str(exc))
            return False


@pytest.fixture
def swiper(room_tab) -> Swiper:  # type: ignore[no-untyped-def]
    window, _screen = room_tab
    sw = Swiper()
    window.authorize = sw
    return sw


def _enter(qtbot: Any, screen: PokerRoomScreen, *, seats: int = 6, pot: str = "2500.00",
           showed: tuple[int, ...] = (1, 4),
           cards: str = "Ah Ad Tc 7s 7c As Td 7h 7d") -> None:
    qtbot.keyClicks(screen.claim.table_edit, "P1")
    screen.claim.pot.setText(pot)
    for r in range(seats):
        screen.claim.dealt[r].setChecked(True)
        screen.claim.ids[r].setChecked(True)
        name = screen.claim.seats.item(r, COL_NAME)
        assert name is not None
        name.setText(f"Player {r + 1}")
    for seat in showed:
        screen.claim.showed[seat - 1].setChecked(True)
    screen.claim.taxpayer[1].setCurrentText("nranetb")
    screen.claim.hit_time.setDateTime(screen.claim.hit_time.dateTime().addSecs(-600))
    # board, then seat 1 (Aces full of Tens), then seat 4 (four sevens) [, then seat 6]
    qtbot.keyClicks(screen.claim.picker.entry, cards)
    qtbot.keyClick(screen.claim.picker.entry, Qt.Key.Key_Return)
    settle()


def _save_pdf(forms: Any, path: Path) -> Path | None:
    """The Forms page's "Save PDF" with the path given: the form is filled off the GUI thread
    and written when it arrives; the path written, or None (refused)."""
    forms.save_pdf(path)
    settle()
    return cast(Path | None, forms.saved)


def _preview(forms: Any) -> Any:
    """The Forms page's print preview, built once the form is filled, not shown (None:
    refused)."""
    built: list[Any] = []
    forms.show_dialog = built.append
    forms.preview()
    settle()
    return built[0] if built else None


def _local(day: date, hh: int, mm: int = 0) -> QDateTime:
    return QDateTime(QDate(day.year, day.month, day.day), QTime(hh, mm))


def _count_and_post(engine: Engine, day: date, tz: Any) -> None:
    """Yesterday's table P1 counted 10:00-23:00 (1,440.00 of jackpot chips) and posted."""
    opened = datetime.combine(day, time(10), tz)
    bc.record_count(engine, "bbj", SUPERVISOR, business_date=day, table="P1", drop_box="J-1",
                    opened_at=opened, closed_at=opened + timedelta(hours=13), dealer="D. Cruz",
                    pieces={500: 2, 100: 3, 50: 1, 25: 2, 10: 4}, rake_box="R-1",
                    rake_cents=786_450)
    bc.post_day(engine, "bbj", day, SUPERVISOR)


# an amount written without the fund's currency ("50,000.00", not "₱50,000.00"); a share of
# main ("(1.00 of main)") is a fraction, not money
BARE_AMOUNT = re.compile(r"(?<![\d,.₱])\d{1,3}(?:,\d{3})*\.\d{2}(?!\d)(?! of main)")


def bare_amounts(text: str) -> list[str]:
    """The amounts in ``text`` written without the fund's ₱ (issue 26: "One currency per
    floor and per fund, shown the way the casino's locale writes it")."""
    return BARE_AMOUNT.findall(text)


def test_a_qualifying_claim_shows_the_decision_and_opens_a_case(qtbot, room_tab) -> None:  # type: ignore[no-untyped-def]
    window, screen = room_tab
    assert screen.fund.main_label.text() == "MAIN ₱50,000.00"
    _enter(qtbot, screen)
    assert len(screen.claim.picker.cards()) == 9
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    text = screen.claim.result.text()
    assert text.startswith("QUALIFIES: seat 4 (FOUR_OF_A_KIND) beat seat 1 (FULL_HOUSE)")
    assert "Award ₱50,000.00" in text
    assert "seat 4 Player 4 (winning, citizen): gross ₱10,000.00, tax ₱0.00" in text
    assert "seat 1 Player 1 (losing, citizen): gross ₱20,000.00, tax ₱4,000.00" in text
    assert "seat 2 Player 2 (table, nranetb): gross ₱5,000.00, tax ₱1,250.00" in text
    # every amount of the decision is the fund's pesos as fil_PH writes them (issue 26)
    assert "₱" in text and bare_amounts(text) == []

    window.authorize = lambda role, what, kind, action: action(swipe_of("1001")) is not None
    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "Case #1 opened." in screen.claim.result.text()
    assert bc.get_case(screen.console.engine, 1).claim["small_blind"] == "50.00"  # for TGD-1500
    assert screen.cases.case_table.rowCount() == 1
    assert screen.cases.case_table.item(0, 3).text() == "claimed"
    assert screen.cases.case_table.item(0, 4).text().startswith("request by")
    screen.cases.case_table.selectRow(0)
    assert screen.cases.next_box.currentData() == "verified"
    screen.cases.deck_sorted.setChecked(True)
    screen.cases.cctv.setChecked(True)
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.cases.case_table.item(0, 3).text() == "verified (deck sorted, CCTV reviewed)"
    SHOTS.mkdir(parents=True, exist_ok=True)
    screen.cases.case_table.selectRow(0)
    window.grab().save(str(SHOTS / "poker-room.png"))


def test_a_small_blind_above_the_big_blind_is_refused_by_name(qtbot, room_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen = room_tab
    _enter(qtbot, screen)
    screen.claim.small_blind.setText("150.00")
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text() == ("small blind 150.00: must be more than 0.00 and at most "
                                          "the big blind")


def test_a_claim_that_fails_shows_every_reason_in_words(qtbot, room_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen = room_tab
    _enter(qtbot, screen, seats=4, pot="1000.00")
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text().splitlines() == [
        "DOES NOT QUALIFY:",
        "  NOT_ENOUGH_PLAYERS: fewer than 5 players dealt in",
        "  POT_TOO_SMALL: the pot is under 20 big blinds",
        "Every rule (RULES.md 6):",
        "  ✗ fewer than 5 players dealt in",
        "  ✗ the pot is under 20 big blinds",
        "  ✓ two hands went to showdown",
        "  ✓ the winning hand is four of a kind or better",
        "  ✓ the losing hand is Aces full of Tens or better",
        "  ✓ both winning hole cards play",
        "  ✓ both losing hole cards play",
        "  ✓ an Ace in the hole where Aces full needs one",
        "  ✓ no void observed"]


def test_the_daily_count_is_recorded_and_the_posted_day_shows_the_updated_main(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:
    window, screen = room_tab
    window.authorize = lambda role, what, kind, action: action(swipe_of("1001")) is not None
    day = QDate(2026, 12, 1)
    screen.counts.count_date.setDate(day)
    screen.counts.count_opened.setDateTime(QDateTime(day, QTime(10, 0)))
    screen.counts.count_closed.setDateTime(QDateTime(day, QTime(22, 0)))
    qtbot.keyClicks(screen.counts.count_table, "P1")
    qtbot.keyClicks(screen.counts.count_box, "J-1")
    qtbot.keyClicks(screen.counts.count_dealer, "D. Cruz")
    for denom, n in {500: 2, 100: 3, 50: 1, 25: 2, 10: 4}.items():
        screen.counts.pieces[denom].setValue(n)
    assert screen.counts.count_total.text() == "Box total ₱1,440.00"
    qtbot.mouseClick(screen.counts.record_count_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.count_msg.text() == ("2026-12-01: table P1 drop box J-1 counted "
                                              "(box total ₱1,440.00).")
    # 1,440.00: admin fee 30% 432.00; the fund 1,008.00: main 70% 705.60, reserve 302.40
    qtbot.mouseClick(screen.counts.post_day_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.count_msg.text().splitlines() == [
        "2026-12-01 posted: jackpot rake ₱1,440.00; admin fee ₱432.00, to main ₱705.60, "
        "to reserve ₱302.40.",
        "Updated main ₱50,705.60 (was ₱50,000.00), reserve ₱302.40 (was ₱0.00)."]
    assert screen.fund.main_label.text() == "MAIN ₱50,705.60"
    assert bf.funds(screen.console.engine, "bbj") == bf.Funds(5_070_560, 30_240)


def _page(screen: PokerRoomScreen, name: str) -> None:
    for i in range(screen.pages.count()):
        if screen.pages.tabText(i) == name:
            screen.pages.setCurrentIndex(i)
            return
    raise AssertionError(f"no page {name!r}")


THREE_HANDS = "Ah Ad Tc 7s 7c  As Td  7h 7d  Th 9h"  # board; seat 1 AAATT; seat 4 7777; seat 6


def test_three_hands_at_showdown_the_two_highest_are_considered(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    window, screen = room_tab
    _enter(qtbot, screen, showed=(1, 4, 6), cards="Ah Ad Tc 7s 7c")
    # the picker asks for each showing seat's cards in seat order
    assert screen.claim.picker.count() == 11
    assert screen.claim.picker.prompt.text() == "Next: Seat 1, card 1 of 2"
    assert "seats 1, 4, 6" in screen.claim.showdown_hint.text()
    qtbot.keyClicks(screen.claim.picker.entry, THREE_HANDS)
    qtbot.keyClick(screen.claim.picker.entry, Qt.Key.Key_Return)
    settle()
    assert screen.claim.picker.prompt.text() == ("All 11 cards picked (Board, Seat 1, Seat 4, "
                                                 "Seat 6).")
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    text = screen.claim.result.text()
    # seat 6's two pair is the lowest: seat 4 wins, seat 1 is the bad beat, seat 6 shares the
    # table part (50,000.00 x 40% / 4 seats = 5,000.00 each)
    assert text.startswith("QUALIFIES: seat 4 (FOUR_OF_A_KIND) beat seat 1 (FULL_HOUSE)")
    assert "seat 6 Player 6 (table, citizen): gross ₱5,000.00, tax ₱0.00, net ₱5,000.00" in text
    assert "seat 1 Player 1 (losing, citizen): gross ₱20,000.00" in text

    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)  # let the scroll areas lay out again
    window.grab().save(str(SHOTS / "poker-room-1366x768-three-hands.png"))
    _page(screen, "Forms")
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "poker-room-1366x768-forms.png"))
    _page(screen, "Cases")

    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "Case #1 opened." in screen.claim.result.text()
    case = bc.get_case(screen.console.engine, 1)
    assert [h["seat"] for h in case.claim["showdown"]] == [1, 4, 6]
    assert case.claim["showdown"][2]["hole"] == ["Th", "9h"]
    assert (case.decision["winning_seat"], case.decision["losing_seat"]) == (4, 1)

    # the case opened, the next claim starts empty (issue 26): nothing ticked, no cards
    assert not any(b.isChecked() for b in screen.claim.dealt + screen.claim.showed
                   + screen.claim.ids)
    assert screen.claim.picker.cards() == [] and screen.claim.table_edit.text() == ""
    assert screen.claim.hit_time.follows

    # without seat 1 the two highest are seats 4 and 6: two pair is no bad beat.  The cards
    # of seats 4 and 6 stay with them on the picker.
    _enter(qtbot, screen, showed=(1, 4, 6), cards="Ah Ad Tc 7s 7c")
    qtbot.keyClicks(screen.claim.picker.entry, THREE_HANDS)
    qtbot.keyClick(screen.claim.picker.entry, Qt.Key.Key_Return)
    screen.claim.showed[0].setChecked(False)
    assert [(cap, " ".join(str(c) for c in cards if c)) for cap, cards in
            screen.claim.picker.groups()] == [("Board", "Ah Ad Tc 7s 7c"), ("Seat 4", "7h 7d"),
                                              ("Seat 6", "Th 9h")]
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text().splitlines()[:2] == [
        "DOES NOT QUALIFY:",
        "  LOSING_HAND_TOO_LOW: the losing hand is below Aces full of Tens"]
    assert ("  ✗ the losing hand is below Aces full of Tens"
            in screen.claim.result.text().splitlines())


def test_a_seat_that_showed_but_is_not_dealt_in_is_refused(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    _window, screen = room_tab
    _enter(qtbot, screen, showed=(1, 4, 8), cards=THREE_HANDS)
    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text() == ('seat 8: showed its cards but is not dealt in (tick its '
                                          '"Dealt in", or untick "Showed")')
    assert swiper.prompts == []  # no swipe asked, no case
    assert screen.cases.case_table.rowCount() == 0
    # once dealt in, the same claim decides (seat 8 takes part in the table share)
    screen.claim.dealt[7].setChecked(True)
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text().startswith("QUALIFIES: seat 4 (FOUR_OF_A_KIND) beat seat 1")
    assert "seat 8  (table, citizen): gross ₱4,000.00" in screen.claim.result.text()


def test_an_incomplete_showdown_names_the_seat_whose_cards_are_missing(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:
    _window, screen = room_tab
    _enter(qtbot, screen, showed=(1, 4), cards="Ah Ad Tc 7s 7c As Td 7h")
    assert screen.claim.picker.prompt.text() == "Next: Seat 4, card 2 of 2"
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text() == ("cards: pick the 5 board cards and the 2 hole cards of "
                                          "each seat that showed (picked: Seat 4 1 of 2)")


def test_an_approval_that_ceases_the_fund(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper, tmp_path: Path) -> None:
    window, screen = room_tab
    engine = screen.console.engine
    yesterday = datetime.now(screen.tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)  # main 50,705.60, reserve 302.40
    screen.refresh_funds()
    settle()
    _enter(qtbot, screen)
    screen.claim.hit_time.setDateTime(_local(yesterday, 20))
    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "Case #1 opened." in screen.claim.result.text()
    screen.cases.case_table.selectRow(0)
    assert not screen.cases.cease_box.isVisible()  # only offered with the approval
    bc.advance(engine, 1, "verified", SUPERVISOR, deck_sorted=True, cctv_reviewed=True)
    bc.advance(engine, 1, "request_filed", SUPERVISOR)
    screen.refresh_cases()
    settle()
    assert screen.cases.next_box.currentData() == "approved"
    assert screen.cases.cease_box.isVisible() and not screen.cases.cease_box.isChecked()
    screen.cases.cease_box.setChecked(True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "poker-room-1366x768-cease.png"))

    asked: list[str] = []

    def answer_no(title: str, text: str) -> bool:
        asked.append(text)
        return False

    screen.ask = answer_no
    n = len(swiper.prompts)
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "This can not be undone." in asked[0]
    assert screen.cases.case_msg.text() == "Not approved: the cessation was not confirmed."
    assert len(swiper.prompts) == n and bc.get_case(engine, 1).state == "request_filed"

    screen.ask = lambda title, text: True
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "CEASES with this hit" in swiper.prompts[-1]
    # 51,008.00 is above the demo floor's executive threshold: the executive's card was asked
    assert swiper.roles[-1] == "executive"
    assert ("₱51,008.00 is at or above the executive threshold ₱5,000.00: an EXECUTIVE card."
            in swiper.prompts[-1])
    assert screen.cases.case_msg.text() == "Case #1: approved. The fund has ceased (TGD-1540)."
    with Session(engine) as s:
        c = s.execute(select(BbjCessation)).scalar_one()
        award = s.execute(select(BbjAward)).scalar_one()
    # the reserve joins main: 50,705.60 + 302.40 = 51,008.00, all of it won (fraction 1)
    assert (c.fund_id, c.kind, c.award_id) == ("bbj", "after_hit", award.id)
    assert (award.main_before_cents, award.award_cents, award.ceases_fund) == \
        (5_100_800, 5_100_800, True)
    assert screen.fund.fund_box.currentText() == "Poker room BBJ (ceased)"
    assert screen.fund.ceased_label.text() == "CEASED (TGD-1540)"
    assert (screen.fund.main_label.text(), screen.fund.reserve_label.text()) == ("MAIN ₱0.00",
                                                                                 "RESERVE ₱0.00")

    # nothing more on a ceased fund: a clear message, no swipe asked
    n = len(swiper.prompts)
    _page(screen, "Daily count")
    qtbot.mouseClick(screen.counts.record_count_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.count_msg.text() == ("Fund Poker room BBJ has ceased (TGD-1540): nothing "
                                              "more can be counted on it.")
    qtbot.mouseClick(screen.counts.post_day_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.count_msg.text() == ("Fund Poker room BBJ has ceased (TGD-1540): nothing "
                                              "more can be posted on it.")
    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text() == ("Fund Poker room BBJ has ceased (TGD-1540): no new case "
                                          "can be opened on it.")
    assert len(swiper.prompts) == n
    # the forms page: TGD-1500 of the selected case, TGD-1540 of the ceased fund (no
    # destination asked)
    forms = screen.forms
    _page(screen, "Forms")
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("award"))
    assert forms.case_box.currentData() == 1
    award_pdf = _save_pdf(forms, tmp_path / "award.pdf")
    assert award_pdf is not None and award_pdf.read_bytes().startswith(b"%PDF")
    assert forms.msg.text().startswith("TGD-1500 awarding request case 1: saved to")
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("cessation"))
    assert forms.fund_labels["cessation"].text() == "Poker room BBJ (ceased)"
    assert not forms.to_fund.isEnabled()
    ceased_pdf = _save_pdf(forms, tmp_path / "cessation.pdf")
    assert ceased_pdf is not None and ceased_pdf.read_bytes().startswith(b"%PDF")
    assert forms.msg.text().startswith("TGD-1540 transfer/cessation - fund bbj: saved to")


def test_the_count_keeps_the_house_rake_and_its_box(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    window, screen = room_tab
    _page(screen, "Daily count")
    day = QDate(2026, 12, 1)
    screen.counts.count_date.setDate(day)
    screen.counts.count_opened.setDateTime(QDateTime(day, QTime(10, 0)))
    screen.counts.count_closed.setDateTime(QDateTime(day, QTime(22, 0)))
    qtbot.keyClicks(screen.counts.count_table, "P1")
    qtbot.keyClicks(screen.counts.count_box, "J-1")
    qtbot.keyClicks(screen.counts.count_dealer, "D. Cruz")
    screen.counts.pieces[500].setValue(3)
    qtbot.keyClicks(screen.counts.count_rake, "7864.50")
    # a house rake needs its rake box: the core refuses in the swipe prompt, nothing stored
    qtbot.mouseClick(screen.counts.record_count_btn, Qt.MouseButton.LeftButton)
    settle()
    assert swiper.refusals == ["table P1: a house rake needs its rake drop box number"]
    qtbot.keyClicks(screen.counts.count_rake_box, "R-1")
    qtbot.mouseClick(screen.counts.record_count_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.count_msg.text() == ("2026-12-01: table P1 drop box J-1 counted (box "
                                              "total ₱1,500.00, house rake ₱7,864.50 in box R-1).")
    with Session(screen.console.engine) as s:
        row = s.execute(select(BbjDropCount)).scalar_one()
    assert (row.total_cents, row.rake_box, row.rake_cents) == (150_000, "R-1", 786_450)
    assert row.recorded_by == "1001 Dana Reyes"
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "poker-room-1366x768-count.png"))
    # a malformed house rake is named before any swipe
    n = len(swiper.prompts)
    qtbot.keyClicks(screen.counts.count_box, "J-2")
    qtbot.keyClicks(screen.counts.count_rake, "12.345")
    qtbot.mouseClick(screen.counts.record_count_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.count_msg.text() == "house rake: '12.345' has more than two decimals"
    assert len(swiper.prompts) == n


def test_a_tournament_fee_and_its_correction_are_recorded(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    _window, screen = room_tab
    _page(screen, "Daily count")
    screen.counts.count_date.setDate(QDate(2026, 12, 1))
    qtbot.keyClicks(screen.counts.fee_tournament, "Friday Deepstack")
    qtbot.keyClicks(screen.counts.fee_amount, "12500.00")
    qtbot.mouseClick(screen.counts.fee_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.counts.fee_msg.text() == ("2026-12-01: tournament Friday Deepstack fees "
                                            "₱12,500.00 recorded.")
    # a correction needs its reason
    qtbot.keyClicks(screen.counts.fee_tournament, "Friday Deepstack")
    qtbot.keyClicks(screen.counts.fee_amount, "-500.00")
    qtbot.mouseClick(screen.counts.fee_btn, Qt.MouseButton.LeftButton)
    settle()
    assert swiper.refusals == ["tournament Friday Deepstack: a correction (negative fee) needs "
                               "its reason"]
    qtbot.keyClicks(screen.counts.fee_reason, "two entries refunded")
    qtbot.mouseClick(screen.counts.fee_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "correction of the fees -₱500.00 recorded" in screen.counts.fee_msg.text()
    with Session(screen.console.engine) as s:
        rows = s.execute(select(PokerTournamentFee).order_by(PokerTournamentFee.id)) \
            .scalars().all()
    assert [(r.business_date, r.tournament, r.fee_cents, r.reason, r.recorded_by)
            for r in rows] == [
        (date(2026, 12, 1), "Friday Deepstack", 1_250_000, "", "1001 Dana Reyes"),
        (date(2026, 12, 1), "Friday Deepstack", -50_000, "two entries refunded",
         "1001 Dana Reyes")]


def test_deadlines_skip_the_floor_files_public_holidays(room_tab) -> None:  # type: ignore[no-untyped-def]
    _window, screen = room_tab
    engine, tz = screen.console.engine, screen.tz
    hit = datetime(2026, 12, 6, 20, 0, tzinfo=tz)  # a Sunday
    c = {t: parse_cards([t], 1)[0] for t in ("Ah", "Ad", "Tc", "7s", "7c", "As", "Td", "7h",
                                             "7d")}
    entry = bc.ClaimEntry(
        table="P1", big_blind_cents=10_000, pot_cents=250_000, dealt_in=(1, 2, 3, 4, 5, 6),
        board=(c["Ah"], c["Ad"], c["Tc"], c["7s"], c["7c"]),
        showdown=(ShownHand(1, (c["As"], c["Td"])), ShownHand(4, (c["7h"], c["7d"]))),
        table_jackpot_rake_cap_cents=10_000, room_max_jackpot_rake_cents=10_000)

    def at(t: datetime) -> Any:
        return lambda: t

    cid = bc.open_case(engine, "bbj", entry, hit, SUPERVISOR, clock=at(hit + timedelta(hours=1)))
    bc.advance(engine, cid, "verified", SUPERVISOR, deck_sorted=True, cctv_reviewed=True,
               clock=at(hit + timedelta(hours=2)))
    filed = datetime(2026, 12, 7, 10, 0, tzinfo=tz)  # Monday, the day before the holiday
    bc.advance(engine, cid, "request_filed", SUPERVISOR, clock=at(filed))
    bc.advance(engine, cid, "attachments_filed", SUPERVISOR, clock=at(filed))
    casino = screen.console.config.casino
    # 3 business days from Monday 10:00: Tue, Wed, Thu; with Tuesday a holiday: Wed, Thu, Fri
    for holidays, due in (((), "approval by Thu 10 Dec 10:00"),
                          ((date(2026, 12, 8),), "approval by Fri 11 Dec 10:00")):
        screen.console.config = replace(screen.console.config,
                                        casino=replace(casino, public_holidays=holidays))
        screen.refresh_cases()
        settle()
        assert screen.cases.case_table.item(0, 4).text() == due
        screen.cases.case_table.selectRow(0)
        assert f"; {due};" not in screen.cases.case_info.text()  # the next one, not met yet
        assert due in screen.cases.case_info.text()


def test_the_forms_page_writes_a_daily_report_pdf_or_says_why_not(  # type: ignore[no-untyped-def]
        qtbot, room_tab, tmp_path: Path) -> None:
    window, screen = room_tab
    engine = screen.console.engine
    yesterday = datetime.now(screen.tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)
    forms = screen.forms
    _page(screen, "Forms")
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("daily"))
    forms.daily_date.setDate(QDate(yesterday.year, yesterday.month, yesterday.day))
    out = _save_pdf(forms, tmp_path / "daily.pdf")
    assert out == tmp_path / "daily.pdf"
    assert out.read_bytes().startswith(b"%PDF")
    assert forms.msg.text() == (f"TGD-1623 daily report {yesterday} - fund bbj: saved to "
                                f"{out}.")
    # the print preview: built, not shown; what it prints is the same form
    dlg = _preview(forms)
    assert isinstance(dlg, QPrintPreviewDialog)
    assert dlg.windowTitle() == f"Print — TGD-1623 daily report {yesterday} - fund bbj"
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(tmp_path / "preview.pdf"))
    dlg.paintRequested.emit(printer)
    del printer
    assert (tmp_path / "preview.pdf").read_bytes().startswith(b"%PDF")
    dlg.deleteLater()
    # offsite: TGD-1494
    forms.onsite_box.setCurrentIndex(1)
    assert _save_pdf(forms, tmp_path / "offsite.pdf") is not None
    assert forms.msg.text().startswith(f"TGD-1494 daily report {yesterday}")

    # a day not posted: the form's refusal in red, no file
    before = yesterday - timedelta(days=1)
    forms.daily_date.setDate(QDate(before.year, before.month, before.day))
    assert _save_pdf(forms, tmp_path / "unposted.pdf") is None
    assert forms.msg.text().startswith(f"{before}: fund 'bbj' has no posting for the day")
    assert "#ff4d4f" in forms.msg.styleSheet()
    assert not (tmp_path / "unposted.pdf").exists()
    assert _preview(forms) is None
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "poker-room-1366x768-forms-refused.png"))

    # TGD-1540 part 1 of a fund still open needs a destination fund
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("cessation"))
    assert _save_pdf(forms, tmp_path / "transfer.pdf") is None
    assert forms.msg.text() == "transfer: no other fund to transfer to; create it first"
    bf.create_fund(engine, "bbj2", "High stakes BBJ")
    screen.load_funds()
    settle()
    assert forms.to_fund.currentData() == "bbj2" and forms.to_fund.isEnabled()
    transfer = _save_pdf(forms, tmp_path / "transfer.pdf")
    assert transfer is not None and transfer.read_bytes().startswith(b"%PDF")
    assert forms.msg.text().startswith("TGD-1540 transfer/cessation part 1 - fund bbj: saved")


def test_the_forms_page_writes_a_tgd_1581_implementation_request(  # type: ignore[no-untyped-def]
        qtbot, room_tab, tmp_path: Path) -> None:
    window, screen = room_tab
    forms = screen.forms
    _page(screen, "Forms")
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("implementation"))
    assert forms.fund_labels["implementation"].text() == "Poker room BBJ"
    today = datetime.now(screen.tz).date()
    effective = today + timedelta(days=40)
    forms.impl_effective.setDate(QDate(effective.year, effective.month, effective.day))
    assert not forms.impl_filed.isEnabled()
    request = forms.request()
    assert (request.kind, request.fund_id, request.effective_on, request.filed_at) == (
        "implementation", "bbj", effective, None)
    out = _save_pdf(forms, tmp_path / "tgd-1581.pdf")
    assert out is not None and out.read_bytes().startswith(b"%PDF")
    assert forms.msg.text() == (f"TGD-1581 implementation request {effective} - fund bbj: "
                                f"saved to {out}.")
    # a filing time: casino time; one received on the implementation date is refused in red
    forms.impl_filed_known.setChecked(True)
    assert forms.impl_filed.isEnabled()
    forms.impl_filed.setDateTime(_local(effective, 9, 30))
    assert forms.request().filed_at == datetime.combine(effective, time(9, 30), screen.tz)
    assert _save_pdf(forms, tmp_path / "late.pdf") is None
    assert forms.msg.text().startswith(f"effective date {effective}: a request filed ")
    assert "#ff4d4f" in forms.msg.styleSheet()
    forms.impl_filed.setDateTime(_local(today, 14, 0))
    assert _save_pdf(forms, tmp_path / "filed.pdf") is not None
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "poker-room-1366x768-forms-implementation.png"))


def test_each_share_paid_prints_its_slip_and_a_paid_share_can_be_reprinted(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    from printing.escpos.preview import recovered_text

    _window, screen = room_tab
    engine = screen.console.engine
    heard: list[str] = []
    screen.console.add_message_listener(heard.append)
    yesterday = datetime.now(screen.tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)  # main 50,705.60, reserve 302.40
    _enter(qtbot, screen)
    screen.claim.hit_time.setDateTime(_local(yesterday, 20))
    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    for state in ("verified", "request_filed"):
        bc.advance(engine, 1, state, SUPERVISOR, deck_sorted=True, cctv_reviewed=True)
    bc.advance(engine, 1, "approved", EXECUTIVE)  # 50,705.60: above the executive threshold
    screen.refresh_cases()
    settle()
    screen.cases.case_table.selectRow(0)
    assert screen.cases.next_box.currentData() == "share_paid"
    assert not screen.cases.reprint_btn.isVisible()  # nothing paid yet
    screen.cases.share_seat.setCurrentIndex(screen.cases.share_seat.findData(4))
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.cases.case_msg.text() == ("Case #1: paying shares. Share slip case #1 seat 4 "
                                            "sent to the printer.")
    qtbot.waitUntil(lambda: any("Share slip case #1 seat 4 printed on" in m for m in heard))
    # seat 4 won 20% of 50,705.60 = 10,141.12, tax 20% (above 10,000.00) 2,028.22
    text = " ".join(recovered_text(screen.cases.last_slip or b"").split())
    assert "Player 4" in text and "NET AMOUNT PAID" in text and "PHP 8,112.90" in text
    assert "REPRINT" not in text
    assert screen.cases.reprint_btn.isVisible() and screen.cases.reprint_seat.currentData() == 4
    qtbot.mouseClick(screen.cases.reprint_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.cases.case_msg.text() == ("Reprint of the share slip case #1 seat 4 sent to the "
                                            "printer.")
    assert "REPRINT - COPY" in recovered_text(screen.cases.last_slip or b"")
    qtbot.waitUntil(lambda: any("Reprint of the share slip case #1 seat 4 printed on" in m
                                for m in heard))
    # both attempts are kept in the ledger and shown with the case
    qtbot.waitUntil(lambda: len(bc.slip_prints(engine, 1)) == 2)
    assert [(p.seat, p.reprint, p.ok) for p in bc.slip_prints(engine, 1)] == [
        (4, False, True), (4, True, True)]
    screen.refresh_cases()
    settle()
    screen.cases.case_table.selectRow(0)
    settle()  # the prints are read off the GUI thread
    assert "Share slips: seat 4 " in screen.cases.case_info.text()
    assert "seat 4 reprint " in screen.cases.case_info.text()


def test_the_floor_files_poker_room_rules_decide_the_claim(qtbot, room_tab) -> None:  # type: ignore[no-untyped-def]
    """[poker_room] of the floor file: the table's cap follows the big blind (caps by blind
    level) and the split decides the shares."""
    from decimal import Decimal

    from core.pokerroom.rules.bbj import BbjSettings, Split

    _window, screen = room_tab
    screen.fund_settings = bf.FundSettings(caps_by_big_blind=((5_000, 5_000),))
    screen.rules = BbjSettings(split=Split(Decimal("0.30"), Decimal("0.30"), Decimal("0.40")))
    screen.claim.big_blind.setText("50.00")
    screen.claim.big_blind.editingFinished.emit()
    assert screen.claim.cap.text() == "50.00"  # half the room's 100.00: the table wins 50% of main
    _enter(qtbot, screen, pot="1000.00")
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    text = screen.claim.result.text()
    # award 50% of 50,000.00 = 25,000.00: winning 30% 7,500.00, losing 30% 7,500.00
    assert "Award ₱25,000.00 (0.50 of main)" in text
    assert "seat 4 Player 4 (winning, citizen): gross ₱7,500.00" in text
    assert "seat 1 Player 1 (losing, citizen): gross ₱7,500.00" in text


def test_the_print_preview_of_a_form_opens_and_shows_its_pages(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:
    """The preview dialog holds its printer (a dialog whose QPrinter Python had deleted crashed
    the console when shown)."""
    _window, screen = room_tab
    engine = screen.console.engine
    yesterday = datetime.now(screen.tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)
    _page(screen, "Forms")
    forms = screen.forms
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("daily"))
    forms.daily_date.setDate(QDate(yesterday.year, yesterday.month, yesterday.day))
    dlg = _preview(forms)
    assert dlg is not None, forms.msg.text()
    import gc

    gc.collect()
    dlg.show()
    qtbot.waitExposed(dlg)
    qtbot.wait(200)
    assert not dlg.grab().isNull()
    dlg.close()
    dlg.deleteLater()


TIE_CARDS = "Ah Ad Tc 7s 7c  As Td  Ac Th  7h 7d"  # board; seats 1 and 2 AAATT; seat 4 7777A


def test_a_tie_for_the_bad_beat_shows_the_split_and_every_share(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    from core.pokerroom.rules.bbj import BbjSettings

    window, screen = room_tab
    engine = screen.console.engine
    yesterday = datetime.now(screen.tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)  # main 50,705.60, reserve 302.40
    screen.refresh_funds()
    settle()
    _enter(qtbot, screen, seats=7, showed=(1, 2, 4), cards=TIE_CARDS)
    screen.claim.hit_time.setDateTime(_local(yesterday, 20))
    screen.claim.cap.setText("77.77")
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    text = screen.claim.result.text()
    # award 50,705.60 x 0.7777 = 39,433.74; winning 20% 7,886.74; losing 40% 15,773.49 split
    # 7,886.74 each; table 15,773.49 / 4 = 3,943.37 each; 0.04 left in main; seat 2 NRANETB
    assert text.startswith("QUALIFIES: seat 4 (FOUR_OF_A_KIND) beat seats 1 and 2 "
                           "(FULL_HOUSE). Award ₱39,433.74 (0.7777 of main).")
    assert ("TIE for the losing hand: seats 1 and 2. The losing share is split equally "
            "(seats 1 and 2), each rounded down.") in text
    for line in ("seat 4 Player 4 (winning, citizen): gross ₱7,886.74, tax ₱0.00, net ₱7,886.74",
                 "seat 1 Player 1 (losing, citizen): gross ₱7,886.74, tax ₱0.00, net ₱7,886.74",
                 "seat 2 Player 2 (losing, nranetb): gross ₱7,886.74, tax ₱1,971.69, net "
                 "₱5,915.05",
                 *(f"seat {s} Player {s} (table, citizen): gross ₱3,943.37, tax ₱0.00, net "
                   "₱3,943.37" for s in (3, 5, 6, 7)),
                 "left in main (rounding): ₱0.04"):
        assert f"  {line}" in text.splitlines()
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "bbj-tie-split.png"))

    # the room's tie policy refuse: the tie is named, nothing decided
    screen.rules = BbjSettings(tie="refuse")
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.claim.result.text().startswith("showdown: seats 1 and 2 tie for the losing hand "
                                                 "(FULL_HOUSE); the room's tie policy is refuse")
    assert screen.claim.decision is None
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "bbj-tie-refused.png"))
    screen.rules = BbjSettings()

    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "Case #1 opened." in screen.claim.result.text()
    assert [s["role"] for s in bc.get_case(engine, 1).decision["shares"]] == [
        "winning", "losing", "losing", "table", "table", "table", "table"]
    screen.cases.case_table.selectRow(0)
    settle()
    assert ("Shares: seat 4 winning ₱7,886.74; seat 1 losing ₱7,886.74; seat 2 losing ₱7,886.74; "
            "seat 3 table ₱3,943.37; seat 5 table ₱3,943.37; seat 6 table ₱3,943.37; seat 7 table "
            "₱3,943.37 (tie for the losing hand, split: seats 1 and 2)"
            ) in screen.cases.case_info.text()


def test_the_tab_asks_for_the_executive_card_and_pin_a_large_award_needs(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, room_tab) -> None:
    from PySide6.QtWidgets import QLabel

    from gui.common.authorize import SwipePrompt
    from tests.gui.swiping import type_pin, type_swipe

    window, screen = room_tab
    engine = screen.console.engine
    yesterday = datetime.now(screen.tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)  # main 50,705.60, reserve 302.40
    hit = datetime.combine(yesterday, time(20), screen.tz)
    entry = bc.ClaimEntry(
        table="P1", big_blind_cents=10_000, pot_cents=250_000, dealt_in=(1, 2, 3, 4, 5, 6),
        board=tuple(parse_cards(["Ah", "Ad", "Tc", "7s", "7c"], None)),
        showdown=(ShownHand(1, tuple(parse_cards(["As", "Td"], 2))),  # type: ignore[arg-type]
                  ShownHand(4, tuple(parse_cards(["7h", "7d"], 2)))),  # type: ignore[arg-type]
        table_jackpot_rake_cap_cents=10_000, room_max_jackpot_rake_cents=10_000,
        names={i: f"Player {i}" for i in range(1, 7)}, id_checked=frozenset(range(1, 7)))
    cid = bc.open_case(engine, "bbj", entry, hit, SUPERVISOR)
    bc.advance(engine, cid, "verified", SUPERVISOR, deck_sorted=True, cctv_reviewed=True)
    bc.advance(engine, cid, "request_filed", SUPERVISOR)
    screen.refresh_funds()
    screen.refresh_cases()
    settle()
    screen.cases.case_table.selectRow(0)
    settle()  # the card the step needs is read off the GUI thread
    assert screen.cases.next_box.currentData() == "approved"
    # before anyone swipes, the tab says which card: the demo floor's threshold is 5,000.00
    # and its PIN policy "executive"
    assert screen.cases.step_btn.text() == "Record step (executive swipe + PIN)…"
    assert screen.cases.step_card.text() == (
        "Card needed: EXECUTIVE + PIN. ₱50,705.60 is at or above the executive threshold "
        "₱5,000.00: an EXECUTIVE card. Another person than Dana Reyes #1001 (supervisor), "
        "who verified the hand.")
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "bbj-authority-tab.png"))

    seen: dict[str, str] = {}
    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        seen["labels"] = " | ".join(w.text() for w in prompt.findChildren(QLabel))
        prompt.grab().save(str(SHOTS / "bbj-authority-prompt.png"))
        type_swipe(prompt, swipe_of("1001"))  # a supervisor: refused, nothing written
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        type_pin(prompt, "1001")
        qtbot.waitUntil(lambda: "needs an executive" in prompt.message.text(),
                        timeout=10000)
        seen["refusal"] = prompt.message.text()
        prompt.grab().save(str(SHOTS / "bbj-authority-refused.png"))
        type_swipe(prompt, swipe_of("2001"))
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        type_pin(prompt, "2001")

    with modal_steps.running():  # a failing step closes the prompt: the test ends, re-raised
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(modal_steps.failures)
                        or bc.get_case(engine, cid).state == "approved", timeout=20000)
    assert "EXECUTIVE card + PIN" in seen["labels"]
    assert "₱50,705.60 is at or above the executive threshold ₱5,000.00" in seen["labels"]
    assert seen["refusal"] == (
        "employee 1001 (Dana Reyes, supervisor) can not authorize the approval of a Bad Beat "
        "Jackpot award of ₱50,705.60 (at or above the executive threshold ₱5,000.00): it needs "
        "an executive")
    case = bc.get_case(engine, cid)
    assert case.events[-1].by.number == "2001" and case.award_id is not None


def _select_case(screen: PokerRoomScreen, case_id: int) -> None:
    table = screen.cases.case_table
    (row,) = [r for r in range(table.rowCount()) if table.item(r, 0).text() == str(case_id)]
    table.selectRow(row)


def test_a_new_case_starts_with_nothing_ticked(qtbot, room_tab, swiper) -> None:  # type: ignore[no-untyped-def]
    """Issue 26: "Case 2's Verify step already had 'Deck sorted' and 'CCTV reviewed' ticked
    from case 1: one swipe records checks nobody made."  Each case's checks start empty: after
    case 1 is verified, and when the selection moves between cases."""
    _window, screen = room_tab
    for _n in range(2):
        _enter(qtbot, screen)
        qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
        settle()
    assert screen.claim.result.text().endswith("Case #2 opened.")
    qtbot.waitUntil(lambda: screen.cases.case_table.rowCount() == 2, timeout=5000)
    cases = screen.cases
    _select_case(screen, 1)
    assert cases.next_box.currentData() == "verified"
    assert not cases.deck_sorted.isChecked() and not cases.cctv.isChecked()
    cases.deck_sorted.setChecked(True)
    cases.cctv.setChecked(True)
    qtbot.mouseClick(cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert bc.get_case(screen.console.engine, 1).state == "verified"
    _select_case(screen, 2)
    assert cases.next_box.currentData() == "verified"
    assert not cases.deck_sorted.isChecked() and not cases.cctv.isChecked()
    # ticked on case 2, then case 1 looked at: back on case 2 nothing is ticked
    cases.deck_sorted.setChecked(True)
    cases.cctv.setChecked(True)
    _select_case(screen, 1)
    _select_case(screen, 2)
    assert not cases.deck_sorted.isChecked() and not cases.cctv.isChecked()
    # refused without the checks: nothing recorded
    qtbot.mouseClick(cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "tick both" in cases.case_msg.text()
    assert bc.get_case(screen.console.engine, 2).state == "claimed"


def test_hit_at_and_closed_default_to_now_and_the_date_to_the_gaming_day(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:
    """Issue 26: '"Hit at" and the daily count's "Closed" default to when the console
    started'.  The console has run for hours: the claim's "Hit at" and the count's "Closed"
    say now, the count's date is the casino's gaming day now ([casino] gaming_day_starts,
    06:00 by default: 03:30 on 5 December in Manila is gaming day 4 December; "Opened" 10:00
    on it), and a time a person typed stays as typed."""
    _window, screen = room_tab
    manila = screen.tz
    started = screen.claim.hit_time.dateTime()
    at = datetime(2030, 12, 5, 3, 30, tzinfo=manila)  # the room's clock: hours later
    screen.ctx.now = lambda: at.astimezone(UTC)
    asked: list[datetime] = []
    decide = screen.ctx.room.decide

    def spy(fund: str, entry: Any, hit_at: datetime, rules: Any = None) -> Any:
        asked.append(hit_at)
        return decide(fund, entry, hit_at, rules)

    screen.ctx.room.decide = spy  # type: ignore[method-assign]
    _enter_keeping_time(qtbot, screen)
    qtbot.mouseClick(screen.claim.decide_btn, Qt.MouseButton.LeftButton)
    settle()
    assert asked == [at.astimezone(UTC)]
    assert screen.claim.hit_time.dateTime() != started
    assert screen.claim.hit_time.dateTime() == _local(date(2030, 12, 5), 3, 30)
    _page(screen, "Daily count")
    counts = screen.counts
    qtbot.waitUntil(lambda: counts.count_date.date() == QDate(2030, 12, 4), timeout=5000)
    assert counts.count_opened.dateTime() == _local(date(2030, 12, 4), 10, 0)  # that day's
    assert screen.ctx.local(counts.count_closed) == at.astimezone(UTC)
    assert counts.count_closed.dateTime() == _local(date(2030, 12, 5), 3, 30)
    # typed by a person: it stays
    counts.count_closed.setDateTime(_local(date(2030, 12, 4), 23, 0))
    later = at + timedelta(hours=1)
    screen.ctx.now = lambda: later.astimezone(UTC)
    assert screen.ctx.local(counts.count_closed) == datetime(2030, 12, 4, 23, tzinfo=manila)
    assert screen.ctx.local(screen.claim.hit_time) == later.astimezone(UTC)


def _enter_keeping_time(qtbot: Any, screen: PokerRoomScreen) -> None:
    """A claim entered without touching "Hit at"."""
    qtbot.keyClicks(screen.claim.table_edit, "P1")
    screen.claim.pot.setText("2500.00")
    for r in range(6):
        screen.claim.dealt[r].setChecked(True)
        screen.claim.ids[r].setChecked(True)
    for seat in (1, 4):
        screen.claim.showed[seat - 1].setChecked(True)
    qtbot.keyClicks(screen.claim.picker.entry, "Ah Ad Tc 7s 7c As Td 7h 7d")
    qtbot.keyClick(screen.claim.picker.entry, Qt.Key.Key_Return)
