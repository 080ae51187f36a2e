"""The Poker room tab's deadlines (gui/pokerroom/deadlines.py; core/pokerroom/calendar.py and
cases.py are tested on both databases): the room's deadlines listed with their due day, days
left or LATE in red, and once filed the reference and who; a filing recorded after a
supervisor's swipe and a second one refused naming the first; a case acknowledged without its
attachments stays open, they are recorded missed with a reason, then filed late ("LATE by N
days").  SQLite.

Screenshots: docs/screenshots/bbj-deadlines.png and bbj-attachments.png when
$PODIUM_SCREENSHOT_DIR is docs/screenshots (else /tmp/poker-shots/)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from PySide6.QtCore import QDate, QDateTime, Qt, QTime
from PySide6.QtGui import QColor
from sqlalchemy import select
from sqlalchemy.orm import Session

import core.pokerroom.cases as bc
import core.pokerroom.fund as bf
from core.app.demo import demo_credential
from core.ledger.models import BbjFiling
from gui.common import theme
from tests.core.pokerroom.test_bbj_cases import entry
from tests.gui.pokerroom import test_gui_poker_room as poker
from tests.gui.pokerroom.test_gui_poker_room import (
    SHOTS,
    SUPERVISOR,
    _count_and_post,
    _page,
    settle,
)

room_tab = poker.room_tab  # the tab on a fresh ledger and its swipes (fixtures)
swiper = poker.swiper


def _rows(screen: Any) -> list[list[str]]:
    t = screen.deadlines.deadline_table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def _row(screen: Any, deadline: str) -> int:
    """The row whose first cell reads ``deadline`` (what, period and fund)."""
    return next(r for r, row in enumerate(_rows(screen)) if row[0] == deadline)


TGD = "TGD-108 quarterly tax Q4 2026"


def test_the_tab_lists_the_room_deadlines_and_records_a_filing(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    window, screen = room_tab
    engine, tz = screen.console.engine, screen.tz
    # fund "old" opened in November 2026; a tournament's fee on 20 November: TGD-108 Q4 2026
    bf.create_fund(engine, "old", "Old hall BBJ", at=datetime(2026, 11, 18, tzinfo=UTC))
    bc.record_tournament_fee(engine, SUPERVISOR, business_date=date(2026, 11, 20),
                             tournament="Friday Deepstack", fee_cents=1_250_000,
                             clock=lambda: datetime(2026, 11, 21, tzinfo=UTC))
    screen.now = lambda: datetime(2027, 2, 2, 9, 0, tzinfo=tz).astimezone(UTC)
    _page(screen, "Deadlines")
    screen.refresh_deadlines()
    settle()
    rows = _rows(screen)
    tgd = _row(screen, TGD)
    assert rows[tgd][1:] == ["Sun 31 Jan 2027", "LATE by 2 days", ""]
    # the bank statement: the 2nd Monday of the month after the quarter (the guideline:
    # "January to March -- for submission on 2nd Monday of April, and so on")
    bank = _row(screen, "Bank statement Q4 2026 · fund old")
    assert rows[bank][1:] == ["Mon 11 Jan 2027", "LATE by 22 days", ""]
    nxt = _row(screen, "Bank statement Q1 2027 · fund old")
    assert rows[nxt][1:] == ["Mon 12 Apr 2027", "69 days left", ""]
    t = screen.deadlines.deadline_table
    assert t.item(tgd, 2).foreground().color() == QColor(theme.ALERT)
    assert t.item(tgd, 1).foreground().color() == QColor(theme.ALERT)
    assert t.item(nxt, 2).foreground().color() != QColor(theme.ALERT)
    assert rows.index(rows[tgd]) < rows.index(rows[nxt])  # the oldest due first
    assert screen.pages.tabText(screen.pages.currentIndex()).startswith("Deadlines (")

    # the TGD-108 filed yesterday with PAGCOR's receiving number
    t.selectRow(tgd)
    assert "TGD-108 quarterly tax compliance report, Q4 2026: due Sun 31 Jan 2027" in \
        screen.deadlines.deadline_info.text()
    screen.deadlines.filed_at.setDateTime(QDateTime(QDate(2027, 2, 1), QTime(15, 30)))
    qtbot.keyClicks(screen.deadlines.filing_ref, "PAGCOR-RCV-2027-0142")
    qtbot.mouseClick(screen.deadlines.filing_btn, Qt.MouseButton.LeftButton)
    settle()
    assert swiper.prompts[-1] == ("Record the filing of TGD-108 quarterly tax Q4 2026: filed "
                                  "2027-02-01 15:30, reference PAGCOR-RCV-2027-0142.")
    assert screen.deadlines.filing_msg.text() == ("TGD-108 quarterly tax Q4 2026: filing 1 "
                                                  "recorded, LATE by 1 day.")
    tgd = _row(screen, TGD)
    assert _rows(screen)[tgd][1:] == ["Sun 31 Jan 2027", "filed 2027-02-01\n(LATE by 1 day)",
                                      "PAGCOR-RCV-2027-0142\n1001 Dana Reyes"]
    assert tgd == len(_rows(screen)) - 1  # filed: below the ones still to file
    assert screen.deadlines.deadline_table.item(tgd, 2).foreground().color() == QColor(theme.ALERT)
    with Session(engine) as s:
        f = s.execute(select(BbjFiling)).scalar_one()
    assert (f.kind, f.fund_id, f.period_start, f.late) == ("tgd108", None, date(2026, 10, 1),
                                                           True)
    # a second filing of the same quarter is refused, naming the first
    screen.deadlines.deadline_table.selectRow(_row(screen, TGD))
    assert screen.deadlines.filing_correct.isVisible()
    qtbot.keyClicks(screen.deadlines.filing_ref, "PAGCOR-RCV-2027-0143")
    qtbot.mouseClick(screen.deadlines.filing_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "already filed (filing 1, filed 2027-02-01 15:30, reference PAGCOR-RCV-2027-0142" \
        in swiper.refusals[-1]
    screen.deadlines.deadline_table.selectRow(_row(screen, "Bank statement Q1 2027 · fund old"))
    screen.deadlines.filing_ref.clear()
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    screen.deadlines.deadline_table.scrollToBottom()  # the filed one too
    window.grab().save(str(SHOTS / "bbj-deadlines.png"))


def test_an_acknowledged_case_stays_open_for_its_attachments_and_takes_them_late(  # type: ignore[no-untyped-def]
        qtbot, room_tab, swiper) -> None:
    window, screen = room_tab
    engine, tz = screen.console.engine, screen.tz
    yesterday = datetime.now(tz).date() - timedelta(days=1)
    _count_and_post(engine, yesterday, tz)
    hit = datetime.combine(yesterday, time(20), tz).astimezone(UTC)

    def at(t: datetime) -> Any:
        return lambda: t

    cid = bc.open_case(engine, "bbj", entry(), hit, SUPERVISOR, clock=at(hit))
    bc.advance(engine, cid, "verified", SUPERVISOR, deck_sorted=True, cctv_reviewed=True,
               clock=at(hit + timedelta(minutes=30)))
    bc.advance(engine, cid, "request_filed", SUPERVISOR, clock=at(hit + timedelta(hours=2)))
    # the demo floor's executive threshold is 5,000.00: the award and its larger shares take
    # the executive's card and PIN (authority by size)
    executive = demo_credential("2001")
    case = bc.advance(engine, cid, "approved", executive, clock=at(hit + timedelta(days=1)))
    for n, seat in enumerate(case.share_seats):
        bc.advance(engine, cid, "share_paid", executive, seat=seat,
                   clock=at(hit + timedelta(days=1, minutes=5 + n)))
    bc.advance(engine, cid, "acknowledged", SUPERVISOR, clock=at(hit + timedelta(days=2)))
    screen.now = at(hit + timedelta(days=8))  # a day past the attachments' 7 days
    _page(screen, "Cases")
    screen.refresh_cases()
    settle()
    assert screen.cases.case_table.item(0, 3).text() == ("acknowledgment received — OPEN: "
                                                         "attachments outstanding")
    assert screen.cases.case_table.item(0, 4).text().startswith("attachments by")
    assert screen.cases.case_table.item(0, 4).foreground().color() == QColor(theme.ALERT)
    screen.cases.case_table.selectRow(0)
    assert [screen.cases.next_box.itemData(i) for i in range(screen.cases.next_box.count())] == [
        "attachments_filed", "attachments_missed"]
    # recorded missed: the reason is needed
    screen.cases.next_box.setCurrentIndex(screen.cases.next_box.findData("attachments_missed"))
    assert screen.cases.step_detail.isVisible()
    n = len(swiper.prompts)
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    assert screen.cases.case_msg.text().startswith("Type why the attachments are missing")
    assert len(swiper.prompts) == n
    qtbot.keyClicks(screen.cases.step_detail, "CCTV export pending with surveillance")
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.cases.case_msg.text() == f"Case #{cid}: attachments deadline missed."
    assert screen.cases.case_table.item(0, 3).text() == "acknowledgment received"
    assert screen.cases.case_table.item(0, 4).text() == "—"
    # ... and filed two days later all the same: LATE by 3 days
    screen.now = at(hit + timedelta(days=10))
    screen.refresh_cases()
    settle()
    screen.cases.case_table.selectRow(0)
    assert [screen.cases.next_box.itemData(i) for i in range(screen.cases.next_box.count())] == [
        "attachments_filed"]
    qtbot.keyClicks(screen.cases.step_detail, "IDs, bank statement and CCTV")
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert screen.cases.case_msg.text() == f"Case #{cid}: attachments filed, LATE by 3 days."
    screen.cases.case_table.selectRow(0)
    info = screen.cases.case_info.text()
    assert info.startswith(f"Case #{cid} (closed):\n  claimed by 1001 ")
    assert "attachments deadline missed by 1001" in info
    assert "(CCTV export pending with surveillance)" in info
    assert "(LATE by 3 days; IDs, bank statement and CCTV)" in info
    assert "(met, LATE by 3 days)" in info
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    bar = screen.cases.case_info_scroll.verticalScrollBar()
    bar.setValue(bar.maximum())  # the newest rows and the deadlines
    window.grab().save(str(SHOTS / "bbj-attachments.png"))
