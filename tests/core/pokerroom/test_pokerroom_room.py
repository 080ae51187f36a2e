"""The poker room's facade (core/pokerroom/room.py): every read and command of the Poker room
tab through one typed object, on both databases; the floor file is read as it is now; the
screen's panels (gui/pokerroom/) import neither SQLAlchemy nor the ledger's models."""

from __future__ import annotations

import ast
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

import core.pokerroom.fund as bf
from core.app.demo import demo_credential
from core.kernel.money import PESOS, Currency
from core.people.auth import AuthError
from core.pokerroom.calendar_settings import CalendarSettings
from core.pokerroom.room import PokerRoom, RoomFund
from core.pokerroom.rules.bbj import BbjSettings
from tests.core.pokerroom.test_bbj_cases import DAY1, HIT, SUP, entry, floor_policy, post_day1
from tests.core.pokerroom.test_bbj_cases import room as room_ledger  # noqa: F401 - a fixture

MANILA = ZoneInfo("Asia/Manila")
EXEC = demo_credential("2001")  # Evelyn Cruz with her PIN


def floor(holidays: tuple[date, ...] = (), calendar: CalendarSettings | None = None,
          money: Currency = PESOS) -> Any:
    """What the facade reads of a floor file: the casino, its [poker_room] and the funds'
    currency (``FloorConfig.fund_money``)."""
    return SimpleNamespace(
        casino=SimpleNamespace(timezone="Asia/Manila", public_holidays=holidays,
                               gaming_day_starts=time(6)),
        poker_room=SimpleNamespace(calendar=calendar or CalendarSettings()), fund_money=money)


@pytest.fixture
def room(room_ledger: Engine) -> PokerRoom:  # noqa: F811 - the fixture imported above
    config = floor()
    return PokerRoom(room_ledger, lambda: config)


def test_the_room_lists_its_funds_in_id_order_with_those_that_ceased(room: PokerRoom) -> None:
    bf.create_fund(room.engine, "hall", "Hall BBJ", at=HIT - timedelta(days=2))
    assert room.funds() == [RoomFund("bbj", "Poker room BBJ", False),
                            RoomFund("hall", "Hall BBJ", False)]
    done = room.forfeit_on_closure("hall", EXEC, closed_on=DAY1, reason="hall closed")
    assert done.total_cents == 0
    assert room.funds()[1] == RoomFund("hall", "Hall BBJ", True)
    assert room.fund_status("hall").ceased_kind == "forfeiture"
    st = room.fund_status("bbj")
    assert (st.funds, st.ceased_kind, st.notice) == (bf.Funds(5_000_000, 0), None, None)


def test_a_claim_is_decided_without_a_write_then_its_case_is_opened_and_moved_on(
        room: PokerRoom) -> None:
    post_day1(room.engine)
    d = room.decide("bbj", entry(), HIT, BbjSettings())
    assert d.qualifies and d.winning_seats == (4,) and d.losing_seats == (1,)
    assert room.cases() == []  # deciding writes nothing
    cid = room.open_case("bbj", entry(), HIT, SUP)
    (case,) = room.cases()
    assert (case.case_id, case.state, case.fund_id) == (cid, "claimed", "bbj")
    need = room.step_authority(cid, "verified")
    assert need.role == "supervisor"
    clock = HIT + timedelta(hours=1)
    view = room.advance(cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
                        clock=lambda: clock)
    assert view.state == "verified" and view.events[-1].at == clock
    assert room.slip_prints(cid) == []
    room.record_slip_print(cid, 4, reprint=False, printer="fake", ok=False, error="no paper")
    (p,) = room.slip_prints(cid)
    assert (p.seat, p.reprint, p.ok, p.error) == (4, False, False, "no paper")


def test_counts_postings_fees_and_notices_go_through_the_room(room: PokerRoom) -> None:
    count_id = room.record_count(
        "bbj", SUP, business_date=DAY1, table="P1", drop_box="J-1",
        opened_at=datetime(2026, 12, 1, 10, tzinfo=UTC),
        closed_at=datetime(2026, 12, 1, 22, tzinfo=UTC), dealer="D. Cruz",
        pieces={500: 2, 100: 3, 50: 1, 25: 2, 10: 4})
    assert count_id > 0
    posting = room.post_day("bbj", DAY1, SUP)
    assert posting.updated == bf.Funds(5_070_560, 30_240) == room.fund_status("bbj").funds
    fee = room.record_tournament_fee(SUP, business_date=DAY1, tournament="Friday Deepstack",
                                     fee_cents=1_250_000)
    assert fee > 0
    nid = room.give_notice("bbj", EXEC, "cease_once_hit", notice_on=DAY1,
                           reason="tournaments only")
    notice = room.fund_status("bbj").notice
    assert notice is not None and (notice.notice_id, notice.kind) == (nid, "cease_once_hit")
    room.record_players_told("bbj", nid, SUP, told_on=DAY1)
    told = room.fund_status("bbj").notice
    assert told is not None and told.players_told_on == DAY1
    room.withdraw_notice("bbj", nid, EXEC, reason="plans changed")
    assert room.fund_status("bbj").notice is None


def test_the_room_deadlines_and_a_filing(room: PokerRoom) -> None:
    room.record_tournament_fee(SUP, business_date=DAY1, tournament="Friday Deepstack",
                               fee_cents=1_250_000)
    now = datetime(2027, 2, 2, 9, tzinfo=MANILA)
    found = room.room_deadlines(now)
    tgd = next(d for d in found if d.kind == "tgd108" and d.period_start == date(2026, 10, 1))
    assert tgd.filing is None and tgd.overdue
    f = room.record_filing(SUP, kind="tgd108", period_start=date(2026, 10, 1), fund_id=None,
                           filed_at=datetime(2027, 2, 1, 15, 30, tzinfo=MANILA),
                           reference="PAGCOR-RCV-2027-0142", detail="", corrects=None,
                           clock=lambda: now)
    assert f.late and f.reference == "PAGCOR-RCV-2027-0142"
    again = next(d for d in room.room_deadlines(now)
                 if d.kind == "tgd108" and d.period_start == date(2026, 10, 1))
    assert again.filing is not None and again.filing.filing_id == f.filing_id


def test_the_room_reads_the_floor_file_as_it_is_now(room_ledger: Engine) -> None:  # noqa: F811
    config = [floor()]
    room = PokerRoom(room_ledger, lambda: config[-1])
    assert (room.tz, room.holidays) == (MANILA, ())
    # the floor file reloaded with a holiday and the BIR remittance on the 15th
    later = CalendarSettings(bir_remittance_day=15)
    config.append(floor((date(2026, 12, 8),), later))
    assert (room.holidays, room.calendar) == ((date(2026, 12, 8),), later)


def test_the_poker_room_panels_import_no_sql_and_no_ledger_model() -> None:
    """Every ledger read and write of the tab goes through the facade."""
    root = Path(__file__).resolve().parents[3] / "gui" / "pokerroom"
    found = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}: {n}" for n in names
                      if n.split(".")[0] == "sqlalchemy" or n.startswith("core.ledger")]
    assert len(list(root.glob("*.py"))) >= 7
    assert found == []


def test_the_hits_gaming_day_posted_is_the_casinos_day_not_a_utc_one(room: PokerRoom) -> None:
    """Issue 26: "after the day was posted, approval was still refused 'the day of the hit is
    not posted' (a UTC day against a local one)".  RULES.md 6: "The posted jackpot is updated
    after each daily count; if the jackpot is hit before that day's amount is posted, the
    prize is the updated amount (the day's collections included)."

    A hit at 07:00 Manila on 2 December (23:00 UTC on 1 December; the gaming day begins at
    06:00, so it is gaming day 2 December) before the first table's count says it opened
    (10:00); gaming day 2 December counted and posted afterwards.  By hand: 1,440.00 of
    jackpot rake -> admin fee 30% 432.00, the fund 1,008.00: main 70% 705.60, reserve 302.40;
    the prize is main 50,000.00 + 705.60 = 50,705.60, all of it won (payout 100% of main)."""
    day2 = date(2026, 12, 2)
    hit = datetime(2026, 12, 2, 7, 0, tzinfo=MANILA)
    assert hit.astimezone(UTC).date() == date(2026, 12, 1)  # a UTC date is another day
    assert room.gaming_day_of(hit) == day2
    assert room.gaming_day_of(datetime(2026, 12, 3, 5, 59, tzinfo=MANILA)) == day2
    assert room.gaming_day_of(datetime(2026, 12, 3, 6, 0, tzinfo=MANILA)) == date(2026, 12, 3)
    clock = hit + timedelta(minutes=10)
    cid = room.open_case("bbj", entry(), hit, SUP)
    room.advance(cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
                 clock=lambda: clock)
    room.advance(cid, "request_filed", SUP, clock=lambda: clock)
    room.record_count("bbj", SUP, business_date=day2, table="P1", drop_box="J-1",
                      opened_at=datetime(2026, 12, 2, 10, tzinfo=MANILA),
                      closed_at=datetime(2026, 12, 2, 22, tzinfo=MANILA), dealer="D. Cruz",
                      pieces={500: 2, 100: 3, 50: 1, 25: 2, 10: 4})
    room.post_day("bbj", day2, SUP)
    d = room.decide("bbj", entry(), hit)
    assert d.award_cents == 5_070_560
    later = clock + timedelta(days=1)
    view = room.advance(cid, "approved", SUP, clock=lambda: later)
    assert view.state == "approved"
    assert "50,705.60 on main 50,705.60" in view.events[-1].detail


def test_the_card_a_large_award_needs_is_said_in_the_funds_currency(room: PokerRoom) -> None:
    """Issue 25: the "Card needed" words and the refusal of a supervisor's card are made in
    core and wrote bare figures ("50,705.60 is at or above the executive threshold 5,000.00");
    they write the fund's currency (``[poker_room] currency``, ``FloorConfig.fund_money``), as
    the screens do.  A floor whose funds are written "PHP 1,234.56" (the code for the sign) so
    that the currency is the floor's, not a default: the award 50,705.60 (the fund for the hit,
    all of main) at or above the demo floor's threshold 5,000.00."""
    floor_policy(room.engine, executive_threshold_cents=500_000,
                 separate_verifier_cents=100_000_000)
    config = floor(money=Currency("PHP", "en_PH", iso=True))
    room = PokerRoom(room.engine, lambda: config)
    post_day1(room.engine)
    clock = HIT + timedelta(minutes=10)
    cid = room.open_case("bbj", entry(), HIT, SUP)
    room.advance(cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
                 clock=lambda: clock)
    room.advance(cid, "request_filed", SUP, clock=lambda: clock)
    need = room.step_authority(cid, "approved")
    assert (need.role, need.amount_cents) == ("executive", 5_070_560)
    assert need.prompt == ("PHP 50,705.60 is at or above the executive threshold PHP 5,000.00: "
                           "an EXECUTIVE card.")
    with pytest.raises(AuthError) as refused:
        room.advance(cid, "approved", SUP, clock=lambda: clock)
    assert str(refused.value) == (
        "employee 1001 (Dana Reyes, supervisor) can not authorize the approval of a Bad Beat "
        "Jackpot award of PHP 50,705.60 (at or above the executive threshold PHP 5,000.00): "
        "it needs an executive")
    assert room.advance(cid, "approved", EXEC, clock=lambda: clock).state == "approved"


def test_an_unposted_gaming_day_is_named_in_the_refusal(room: PokerRoom) -> None:
    """The refusal names the casino's gaming day of the hit (not a UTC time): 07:00 Manila on
    2 December is gaming day 2026-12-02; only 1 December is posted."""
    post_day1(room.engine)
    hit = datetime(2026, 12, 2, 7, 0, tzinfo=MANILA)
    clock = hit + timedelta(minutes=10)
    cid = room.open_case("bbj", entry(), hit, SUP)
    room.advance(cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
                 clock=lambda: clock)
    room.advance(cid, "request_filed", SUP, clock=lambda: clock)
    with pytest.raises(ValueError, match=r"the hit's gaming day 2026-12-02 is not posted"):
        room.advance(cid, "approved", SUP, clock=lambda: clock + timedelta(days=1))
