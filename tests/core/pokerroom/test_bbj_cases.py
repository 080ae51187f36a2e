"""Bad Beat Jackpot cases (core/pokerroom/cases/, RULES.md 6 "Deadlines and reports"): the state
machine (no state skipped, every step with who and when), the deadlines (business days skip
weekends) and overdue detection, a voided case kept with its reason.  SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

import core.pokerroom.fund as bf
from core.app.demo import demo_credential, enroll_demo_employees, swipe_of
from core.floorconfig import Authorization
from core.kernel.cards import Card, parse_cards
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCaseEvent,
    BbjCessation,
    BbjDropCount,
    BbjEntry,
    BbjPosting,
    PokerTournamentFee,
    SwipeLog,
)
from core.people import cardkey
from core.people.auth import AuthError, Gate, register_gate
from core.pokerroom import cases as bc
from core.pokerroom.rules.bbj import BbjError, BbjSettings, ShownHand, decide

MANILA = ZoneInfo("Asia/Manila")
SUP, SUP2, SURVEILLANCE = swipe_of("1001"), swipe_of("1002"), swipe_of("3001")
EXEC = swipe_of("2001")  # Evelyn Cruz, the demo's executive (demo PIN 2001)
DAY1 = date(2026, 12, 1)  # a Tuesday
HIT = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split(), count=None)


def entry(*, seats: int = 6, pot_cents: int = 250_000, cap_cents: int = 10_000) -> bc.ClaimEntry:
    """Aces full of Tens (seat 1, losing) beaten by four sevens (seat 4, winning)."""
    a, b = cards("As Td"), cards("7h 7d")
    return bc.ClaimEntry(
        table="P1", big_blind_cents=10_000, pot_cents=pot_cents,
        dealt_in=tuple(range(1, seats + 1)), board=cards("Ah Ad Tc 7s 7c"),
        showdown=(ShownHand(1, (a[0], a[1])), ShownHand(4, (b[0], b[1]))),
        table_jackpot_rake_cap_cents=cap_cents, room_max_jackpot_rake_cents=10_000,
        names={i: f"Player {i}" for i in range(1, seats + 1)},
        id_checked=frozenset(range(1, seats + 1)), taxpayers={2: "nranetb"})


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def step(self, **kw: float) -> Clock:
        self.at += timedelta(**kw)
        return self


def floor_policy(engine: Engine, **kw: object) -> Authorization:
    """Register the gate a floor file with these ``[authorization]`` keys gives the ledger."""
    policy = Authorization(**kw)  # type: ignore[arg-type]
    register_gate(Gate(engine, cardkey.load(), policy))
    return policy


@pytest.fixture
def room(engine: Engine) -> Engine:
    # A floor whose executive threshold (and separate-verifier amount) is 1,000,000.00: every
    # award and share of these tests is below it, so a supervisor's card takes every step
    # ("Authority by size" below registers the demo floor's 5,000.00).
    floor_policy(engine, executive_threshold_cents=100_000_000,
                 separate_verifier_cents=100_000_000)
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=HIT - timedelta(days=2))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed",
            at=HIT - timedelta(days=2))
    return engine


def post_day1(engine: Engine) -> None:
    """Day 1 counted (table P1 10:00-22:00 UTC, so the 14:00 hit is covered) and posted:
    2 x 500 + 3 x 100 + 1 x 50 + 2 x 25 + 4 x 10 = 1,440.00 of jackpot rake -> admin fee 432.00,
    main 705.60, reserve 302.40; the fund for the hit: main 50,705.60, reserve 302.40."""
    bf.record_count(engine, "bbj", business_date=DAY1, table="P1", drop_box="J-1",
                    opened_at=datetime(2026, 12, 1, 10, tzinfo=UTC),
                    closed_at=datetime(2026, 12, 1, 22, tzinfo=UTC), dealer="D. Cruz",
                    pieces={500: 2, 100: 3, 50: 1, 25: 2, 10: 4}, by="cage")
    bf.post_day(engine, "bbj", DAY1, by="cage", at=datetime(2026, 12, 2, 6, tzinfo=UTC))


def opened(engine: Engine, clock: Callable[[], datetime], **kw: int) -> int:
    return bc.open_case(engine, "bbj", entry(**kw), HIT, SUP, clock=clock)


def test_a_qualifying_claim_opens_a_case_with_the_decision_on_the_fund_for_the_hit(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    case = bc.get_case(room, opened(room, clock))
    assert case.qualifies and case.state == "claimed"
    assert case.claim["main_jackpot"] == "50000.00"
    assert case.decision["award"] == "50000.00"
    assert case.share_seats == (4, 1, 2, 3, 5, 6)
    assert case.claim["names"]["4"] == "Player 4" and case.claim["id_checked"] == [1, 2, 3, 4, 5, 6]
    (ev,) = case.events
    assert (ev.state, ev.by.number, ev.at) == ("claimed", "1001", clock.at)


def test_a_case_can_not_skip_a_state(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock)
    for skipped in ("request_filed", "approved", "share_paid", "acknowledged",
                    "attachments_filed"):
        with pytest.raises(bc.BbjCaseError, match="can not go from claimed"):
            bc.advance(room, cid, skipped, SUP, seat=4, clock=clock)
    with pytest.raises(bc.BbjCaseError, match="deck is sorted and the CCTV reviewed"):
        bc.advance(room, cid, "verified", SUP, deck_sorted=True, clock=clock)
    assert bc.get_case(room, cid).state == "claimed"
    with Session(room) as s:
        assert s.execute(select(func.count()).select_from(BbjCaseEvent)).scalar() == 1


def test_every_transition_is_recorded_with_who_and_when_through_to_acknowledgment(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock)
    post_day1(room)
    bc.advance(room, cid, "verified", SUP2, deck_sorted=True, cctv_reviewed=True,
               clock=clock.step(minutes=30))
    bc.advance(room, cid, "request_filed", SUP, clock=clock.step(hours=3))
    bc.advance(room, cid, "attachments_filed", SUP, clock=clock.step(days=1))
    bc.advance(room, cid, "approved", SUP, clock=clock.step(days=1))
    with pytest.raises(bc.BbjCaseError, match="can not go from approved to acknowledged"):
        bc.advance(room, cid, "acknowledged", SUP, clock=clock)
    for seat in (4, 1, 2, 3, 5, 6):
        case = bc.advance(room, cid, "share_paid", SUP, seat=seat, clock=clock.step(minutes=5))
    with pytest.raises(bc.BbjCaseError, match="can not go"):
        bc.advance(room, cid, "voided", SUP, detail="late", clock=clock)
    case = bc.advance(room, cid, "acknowledged", SUP2, clock=clock.step(hours=2))
    assert case.state == "acknowledged" and case.next_states() == ()
    assert [e.state for e in case.events] == [
        "claimed", "verified", "request_filed", "attachments_filed", "approved",
        *["share_paid"] * 6, "acknowledged"]
    assert [e.seat for e in case.events if e.state == "share_paid"] == [4, 1, 2, 3, 5, 6]
    assert case.events[1].by.number == "1002"
    assert case.events[1].detail == "deck sorted, CCTV reviewed"
    assert case.events[-1].at == clock.at
    assert all(d.met_at is not None for d in bc.deadlines(case, MANILA))
    with Session(room) as s:  # each step its own accepted swipe
        assert s.execute(select(func.count()).select_from(SwipeLog).where(
            SwipeLog.action == "bbj_case", SwipeLog.outcome == "accepted")).scalar() == 12


def test_a_share_is_paid_once_and_only_on_a_checked_id(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    e = entry()
    e = bc.ClaimEntry(**{**e.__dict__, "id_checked": frozenset({1, 4})})
    cid = bc.open_case(room, "bbj", e, HIT, SUP, clock=clock)
    post_day1(room)
    bc.advance(room, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    bc.advance(room, cid, "request_filed", SUP, clock=clock)
    bc.advance(room, cid, "approved", SUP, clock=clock)
    bc.advance(room, cid, "share_paid", SUP, seat=4, clock=clock)
    with pytest.raises(bc.BbjCaseError, match="seat 4 has no unpaid share"):
        bc.advance(room, cid, "share_paid", SUP, seat=4, clock=clock)
    with pytest.raises(bc.BbjCaseError, match="seat 2: no valid government ID"):
        bc.advance(room, cid, "share_paid", SUP, seat=2, clock=clock)


def test_a_step_needs_a_supervisor_card_and_a_refusal_writes_only_the_swipe_log(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock)
    with pytest.raises(AuthError):
        bc.advance(room, cid, "verified", SURVEILLANCE, deck_sorted=True, cctv_reviewed=True,
                   clock=clock)
    assert bc.get_case(room, cid).state == "claimed"
    with Session(room) as s:
        assert s.execute(select(SwipeLog.outcome).where(SwipeLog.action == "bbj_case")
                         .order_by(SwipeLog.id.desc())).scalars().first() \
            == "insufficient_authority"


def test_a_voided_case_is_kept_with_the_reason_and_who_decided(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock)
    bc.advance(room, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    with pytest.raises(bc.BbjCaseError, match="needs the reason"):
        bc.void(room, cid, "  ", SUP, clock=clock)
    case = bc.void(room, cid, "CCTV shows switched cards at seat 4", SUP2,
                   clock=clock.step(hours=1))
    assert case.state == "voided" and case.next_states() == ()
    last = bc.get_case(room, cid).events[-1]
    assert (last.state, last.detail, last.by.number, last.at) == (
        "voided", "CCTV shows switched cards at seat 4", "1002", clock.at)
    assert [c.case_id for c in bc.list_cases(room)] == [cid]
    assert bc.deadlines(case, MANILA) == []
    assert bc.overdue(room, HIT + timedelta(days=30), MANILA) == []


def test_a_claim_that_does_not_qualify_is_kept_and_can_only_be_voided(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock, seats=4, pot_cents=100_000)
    case = bc.get_case(room, cid)
    assert not case.qualifies
    assert case.decision["reasons"] == ["NOT_ENOUGH_PLAYERS", "POT_TOO_SMALL"]
    assert case.next_states() == ("voided",)
    with pytest.raises(bc.BbjCaseError, match="can not go from claimed to verified"):
        bc.advance(room, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
                   clock=clock)


def test_business_days_skip_the_weekend_and_holidays() -> None:
    friday = datetime(2026, 12, 4, 16, 30, tzinfo=MANILA)
    assert bc.add_business_days(friday, 3, MANILA) == datetime(2026, 12, 9, 16, 30,
                                                               tzinfo=MANILA)
    saturday = datetime(2026, 12, 5, 9, 0, tzinfo=MANILA)
    assert bc.add_business_days(saturday, 3, MANILA) == datetime(2026, 12, 9, 9, 0,
                                                                 tzinfo=MANILA)
    tuesday = datetime(2026, 12, 1, 9, 0, tzinfo=MANILA)
    assert bc.add_business_days(tuesday, 3, MANILA) == datetime(2026, 12, 4, 9, 0,
                                                                tzinfo=MANILA)
    assert bc.add_business_days(tuesday, 3, MANILA, [date(2026, 12, 3)]) == datetime(
        2026, 12, 7, 9, 0, tzinfo=MANILA)
    # the business day is the casino's: Friday 20:00 UTC is already Saturday in Manila
    late_friday_utc = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)
    assert bc.add_business_days(late_friday_utc, 1, MANILA) == datetime(
        2026, 12, 7, 4, 0, tzinfo=MANILA)


def test_deadlines_follow_rules_section_6_and_overdue_ones_are_listed(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock)
    case = bc.get_case(room, cid)
    due = {d.what: d.due for d in bc.deadlines(case, MANILA)}
    # the guideline IV.E: "within twenty-four (24) hours: i. TGD-1500 ... ii. Updated TGD-1494
    # (for offsite) or TGD-1623 (for onsite) up to the day the jackpot was hit"
    assert due == {"request": HIT + timedelta(hours=24),
                   "daily_report": HIT + timedelta(hours=24),
                   "attachments": HIT + timedelta(days=7)}
    assert bc.overdue(room, HIT + timedelta(hours=23), MANILA) == []
    late = bc.overdue(room, HIT + timedelta(hours=25), MANILA)
    assert [(c.case_id, d.what) for c, d in late] == [(cid, "request"), (cid, "daily_report")]

    bc.advance(room, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    filed_at = datetime(2026, 12, 4, 16, 0, tzinfo=MANILA)  # a Friday, late (after 24 h)
    clock.at = filed_at.astimezone(UTC)
    case = bc.advance(room, cid, "request_filed", SUP, clock=clock)
    due = {d.what: d for d in bc.deadlines(case, MANILA)}
    assert due["request"].met_at == clock.at == due["daily_report"].met_at
    assert due["approval"].due == datetime(2026, 12, 9, 16, 0, tzinfo=MANILA)  # Wednesday
    assert bc.next_deadline(case, MANILA) == due["attachments"]  # due Tuesday 8th
    wednesday_evening = datetime(2026, 12, 9, 17, 0, tzinfo=MANILA)
    assert {d.what for _, d in bc.overdue(room, wednesday_evening, MANILA)} == {
        "attachments", "approval"}

    clock.at = datetime(2026, 12, 9, 10, 0, tzinfo=MANILA).astimezone(UTC)
    post_day1(room)
    case = bc.advance(room, cid, "approved", SUP, clock=clock)
    payout = next(d for d in bc.deadlines(case, MANILA) if d.what == "payout")
    assert payout.due == datetime(2026, 12, 14, 10, 0, tzinfo=MANILA)  # Mon, past the weekend
    for seat in case.share_seats:
        case = bc.advance(room, cid, "share_paid", SUP, seat=seat, clock=clock.step(minutes=1))
    ack = next(d for d in bc.deadlines(case, MANILA) if d.what == "acknowledgment")
    assert ack.due == clock.at + timedelta(hours=24) and ack.met_at is None
    assert [d.what for _, d in bc.overdue(room, clock.at + timedelta(hours=25), MANILA)] == [
        "attachments", "acknowledgment"]


def _filed(room: Engine, clock: Clock, **kw: int) -> int:
    cid = bc.open_case(room, "bbj", entry(**kw), HIT, SUP, clock=clock)
    bc.advance(room, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    bc.advance(room, cid, "request_filed", SUP, clock=clock)
    return cid


def _fund_rows(engine: Engine) -> tuple[int, int, int, int]:
    """(entries, awards, main, reserve) with main/reserve the sums of the fund's rows."""
    with Session(engine) as s:
        rows = list(s.execute(select(BbjEntry).where(BbjEntry.fund_id == "bbj")).scalars())
        awards = s.execute(select(func.count()).select_from(BbjAward)).scalar_one()
    return (len(rows), awards, sum(r.main_delta_cents for r in rows),
            sum(r.reserve_delta_cents for r in rows))


def test_approving_a_qualifying_case_writes_the_award_in_the_fund_as_decided(
        room: Engine) -> None:
    # the case is opened during play (the day not yet posted: decided on 50,000.00) ...
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock, cap_cents=5_000)
    assert bc.get_case(room, cid).claim["main_jackpot"] == "50000.00"
    # ... approved after the day's posting: paid on main 50,705.60, reserve 302.40.
    post_day1(room)
    # cap 50.00 of 100.00: fraction 1/2; award 25,352.80: winning 20% 5,070.56, losing 40%
    # 10,141.12, table 40% 10,141.12 / 4 seats = 2,535.28 each; nothing left over.
    # reserve moved 302.40 / 2 = 151.20; main after 50,705.60 - 25,352.80 + 151.20 = 25,504.00
    case = bc.advance(room, cid, "approved", SUP, clock=clock.step(days=1))
    assert bf.funds(room, "bbj") == bf.Funds(2_550_400, 15_120)
    _n, awards, main, reserve = _fund_rows(room)
    assert (awards, main, reserve) == (1, 2_550_400, 15_120)  # the fund = the sum of its rows
    assert case.award_id is not None and case.state == "approved"
    assert case.events[-1].detail == ("award 1: 25,352.80 on main 50,705.60; main after "
                                      "25,504.00, reserve after 151.20")
    with Session(room) as s:
        award = s.get(BbjAward, case.award_id)
        assert award is not None
        assert (award.award_cents, award.paid_cents, award.reserve_moved_cents) == (
            2_535_280, 2_535_280, 15_120)
        assert award.recorded_by == "1001 " + case.events[-1].by.name
        kinds = s.execute(select(BbjEntry.kind, BbjEntry.main_delta_cents,
                                 BbjEntry.reserve_delta_cents)
                          .where(BbjEntry.award_id == award.id).order_by(BbjEntry.id)).all()
        assert [tuple(k) for k in kinds] == [("award", -2_535_280, 0),
                                            ("reserve_move", 15_120, -15_120)]
    # a share paid later refers to the award's share: seat 1 (losing, citizen) 10,141.12,
    # 20% of the whole share (above 10,000.00) = 2,028.22
    case = bc.advance(room, cid, "share_paid", SUP, seat=1, clock=clock.step(minutes=5))
    assert case.events[-1].detail == "award 1: gross 10,141.12, tax 2,028.22, net 8,112.90"
    assert bf.funds(room, "bbj") == bf.Funds(2_550_400, 15_120)  # paying moves no fund money


def test_a_refused_swipe_or_an_unposted_day_at_approval_changes_nothing(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    before = _fund_rows(room)
    with pytest.raises(bf.BbjFundError, match="the day of the hit is not posted"):
        bc.advance(room, cid, "approved", SUP, clock=clock)
    assert _fund_rows(room) == before and bc.get_case(room, cid).state == "request_filed"
    post_day1(room)
    before = _fund_rows(room)
    with pytest.raises(AuthError):
        bc.advance(room, cid, "approved", SURVEILLANCE, clock=clock)
    assert _fund_rows(room) == before
    case = bc.get_case(room, cid)
    assert case.state == "request_filed" and case.award_id is None
    assert before[2:] == (bf.funds(room, "bbj").main_cents, bf.funds(room, "bbj").reserve_cents)


def test_a_second_case_for_the_same_hit_is_not_awarded_twice(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    first, second = _filed(room, clock), _filed(room, clock)
    post_day1(room)
    bc.advance(room, first, "approved", SUP, clock=clock)
    before = _fund_rows(room)
    with pytest.raises(bc.BbjCaseError, match="already awarded"):
        bc.advance(room, second, "approved", SUP, clock=clock)
    assert _fund_rows(room) == before


def test_the_console_count_and_posting_need_a_supervisor_and_log_the_swipe(room: Engine) -> None:
    clock = Clock(datetime(2026, 12, 2, 5, tzinfo=UTC))
    kw = {"business_date": DAY1, "table": "P1", "drop_box": "J-1",
          "opened_at": datetime(2026, 12, 1, 10, tzinfo=UTC),
          "closed_at": datetime(2026, 12, 1, 22, tzinfo=UTC), "dealer": "D. Cruz",
          "pieces": {500: 2, 100: 3, 50: 1, 25: 2, 10: 4}}
    with pytest.raises(AuthError):
        bc.record_count(room, "bbj", SURVEILLANCE, clock=clock, **kw)  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match="no drop box counted"):
        bc.post_day(room, "bbj", DAY1, SUP, clock=clock)
    bc.record_count(room, "bbj", SUP, clock=clock, **kw)  # type: ignore[arg-type]
    posting = bc.post_day(room, "bbj", DAY1, SUP2, clock=clock.step(hours=1))
    # 1,440.00 -> admin fee 432.00, main 705.60, reserve 302.40
    d = posting.distribution
    assert (d.collection_cents, d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents) == (
        144_000, 43_200, 70_560, 30_240)
    assert posting.updated == bf.Funds(5_070_560, 30_240) == bf.funds(room, "bbj")
    with Session(room) as s:
        outcomes = s.execute(select(SwipeLog.outcome).where(SwipeLog.action == "bbj_count")
                             .order_by(SwipeLog.id)).scalars().all()
        by = s.execute(select(BbjPosting.recorded_by)).scalar_one()
    # the posting refused for want of a count wrote nothing but its refusal (who and why)
    assert outcomes == ["insufficient_authority", "refused", "accepted", "accepted"]
    assert by.startswith("1002 ")


def test_the_award_names_its_case_and_a_direct_award_blocks_a_case_for_the_same_hit(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    post_day1(room)
    case = bc.advance(room, cid, "approved", SUP, clock=clock.step(days=1))
    with Session(room) as s:
        award = s.get(BbjAward, case.award_id)
        assert award is not None and award.case_id == cid
    # an award recorded without a case (the fund's own call) has no case, and a case opened
    # afterwards for that same hit can not be awarded again
    other = datetime(2026, 12, 1, 16, 0, tzinfo=UTC)
    funds = bf.amount_for_hit(room, "bbj", other)
    e = entry()
    bf.record_award(room, "bbj", decide(e.claim(funds.main_cents, funds.reserve_cents)),
                    hit_at=other, table="P1", by="cage")
    late = bc.open_case(room, "bbj", e, other, SUP, clock=clock)
    bc.advance(room, late, "verified", SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    bc.advance(room, late, "request_filed", SUP, clock=clock)
    before = _fund_rows(room)
    with pytest.raises(bc.BbjCaseError, match=r"already awarded \(award 2\)$"):
        bc.advance(room, late, "approved", SUP, clock=clock)
    assert _fund_rows(room) == before and bc.get_case(room, late).award_id is None
    assert bc.get_case(room, cid).award_id == 1


def test_an_approval_can_cease_the_fund_adding_the_reserve_to_the_amount_won(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    post_day1(room)
    with pytest.raises(bc.BbjCaseError, match="ceases only with an approval"):
        bc.advance(room, cid, "attachments_filed", SUP, cease=True, clock=clock)
    # the fund for the hit: main 50,705.60 + reserve 302.40 = 51,008.00 won at 100%:
    # winning 20% 10,201.60, losing 40% 20,403.20, table 40% 20,403.20 / 4 = 5,100.80 each
    case = bc.advance(room, cid, "approved", SUP, cease=True, clock=clock.step(days=1))
    assert "the fund ceases with this hit" in case.events[-1].detail
    assert bf.funds(room, "bbj") == bf.Funds(0, 0)
    with Session(room) as s:
        award = s.get(BbjAward, case.award_id)
        assert award is not None
        assert (award.main_before_cents, award.reserve_before_cents, award.award_cents,
                award.ceases_fund, award.case_id) == (5_100_800, 0, 5_100_800, True, cid)
        shares = dict(s.execute(select(BbjAwardShare.seat, BbjAwardShare.gross_cents)
                                .where(BbjAwardShare.award_id == award.id)).all())
        ceased = s.execute(select(BbjCessation)).scalar_one()
    assert shares == {4: 1_020_160, 1: 2_040_320, 2: 510_080, 3: 510_080, 5: 510_080,
                      6: 510_080}
    assert (ceased.kind, ceased.award_id, ceased.reserve_cents) == ("after_hit", award.id,
                                                                    30_240)
    with pytest.raises(bf.BbjFundError, match="ceased"):
        bc.record_count(room, "bbj", SUP, business_date=date(2026, 12, 2), table="P1",
                        drop_box="J-1", opened_at=datetime(2026, 12, 2, 10, tzinfo=UTC),
                        closed_at=datetime(2026, 12, 2, 22, tzinfo=UTC), dealer="D",
                        pieces={100: 1}, clock=clock)
    with pytest.raises(bc.BbjCaseError, match="has ceased"):
        bc.open_case(room, "bbj", entry(), HIT + timedelta(hours=1), SUP, clock=clock)


def test_the_count_keeps_the_tables_house_rake_box(room: Engine) -> None:
    clock = Clock(datetime(2026, 12, 2, 5, tzinfo=UTC))
    kw = {"business_date": DAY1, "table": "P1", "drop_box": "J-1",
          "opened_at": datetime(2026, 12, 1, 10, tzinfo=UTC),
          "closed_at": datetime(2026, 12, 1, 22, tzinfo=UTC), "dealer": "D. Cruz",
          "pieces": {500: 2}}
    for bad, message in (({"rake_cents": -1, "rake_box": "R-1"}, "house rake -1"),
                         ({"rake_cents": 500_000}, "needs its rake drop box number")):
        with pytest.raises(bf.BbjFundError, match=message):
            bc.record_count(room, "bbj", SUP, clock=clock, **kw, **bad)  # type: ignore[arg-type]
    bc.record_count(room, "bbj", SUP, clock=clock, rake_box=" R-1 ", rake_cents=1_234_550,
                    **kw)  # type: ignore[arg-type]
    bc.record_count(room, "bbj", SUP, clock=clock, **{**kw, "table": "P2"})  # type: ignore[arg-type]
    with Session(room) as s:
        rows = s.execute(select(BbjDropCount.table_name, BbjDropCount.rake_box,
                                BbjDropCount.rake_cents, BbjDropCount.total_cents)
                         .order_by(BbjDropCount.table_name)).all()
    assert [tuple(r) for r in rows] == [("P1", "R-1", 1_234_550, 100_000),
                                        ("P2", "", 0, 100_000)]


def test_tournament_fees_are_recorded_with_a_swipe_and_corrected_by_a_further_row(
        room: Engine) -> None:
    clock = Clock(datetime(2026, 12, 2, 5, tzinfo=UTC))
    with pytest.raises(AuthError):
        bc.record_tournament_fee(room, SURVEILLANCE, business_date=DAY1,
                                 tournament="Friday Freezeout", fee_cents=1_250_000, clock=clock)
    for kw, message in (({"fee_cents": 0}, "not 0"), ({"tournament": " "}, "tournament"),
                        ({"fee_cents": -100}, "needs its reason")):
        args = {"business_date": DAY1, "tournament": "Friday Freezeout",
                "fee_cents": 1_250_000, **kw}
        with pytest.raises(bf.BbjFundError, match=message):
            bc.record_tournament_fee(room, SUP, clock=clock, **args)  # type: ignore[arg-type]
    bc.record_tournament_fee(room, SUP, business_date=DAY1, tournament="Friday Freezeout",
                             fee_cents=1_250_000, clock=clock)
    with pytest.raises(bf.BbjFundError, match="more than the 12,500.00 recorded"):
        bc.record_tournament_fee(room, SUP, business_date=DAY1, tournament="Friday Freezeout",
                                 fee_cents=-1_250_001, reason="typo", clock=clock)
    bc.record_tournament_fee(room, SUP, business_date=DAY1, tournament="Friday Freezeout",
                             fee_cents=-50_000, reason="two entries refunded", clock=clock)
    with Session(room) as s:
        rows = s.execute(select(PokerTournamentFee.fee_cents, PokerTournamentFee.reason,
                                PokerTournamentFee.recorded_by)
                         .order_by(PokerTournamentFee.id)).all()
        outcomes = s.execute(select(SwipeLog.outcome).where(SwipeLog.action == "bbj_count")
                             .order_by(SwipeLog.id)).scalars().all()
    assert [(r[0], r[1]) for r in rows] == [(1_250_000, ""), (-50_000, "two entries refunded")]
    assert all(r[2].startswith("1001 ") for r in rows)
    assert outcomes[0] == "insufficient_authority" and outcomes.count("accepted") == 2


def test_voiding_an_approved_case_gives_the_award_back_to_the_fund(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock, cap_cents=5_000)
    post_day1(room)
    before = bf.funds(room, "bbj")
    assert before == bf.Funds(5_070_560, 30_240)
    bc.advance(room, cid, "approved", SUP, clock=clock.step(days=1))
    assert bf.funds(room, "bbj") == bf.Funds(2_550_400, 15_120)
    case = bc.void(room, cid, "CCTV shows the hands were discussed", SUP2,
                   clock=clock.step(hours=2))
    assert case.state == "voided" and case.events[-1].by.number == "1002"
    # paid 25,352.80 out of main, moved 151.20 up from the reserve: main gets 25,201.60 back
    assert case.events[-1].detail == ("CCTV shows the hands were discussed; award 1 undone: "
                                      "main 25,201.60, reserve 151.20 back in the fund")
    # main and reserve are what they were before the approval; the award rows stay
    assert bf.funds(room, "bbj") == before
    assert bf.amount_for_hit(room, "bbj", HIT) == before
    with Session(room) as s:
        voids = s.execute(select(BbjEntry.main_delta_cents, BbjEntry.reserve_delta_cents)
                          .where(BbjEntry.kind == "award_void").order_by(BbjEntry.id)).all()
        assert s.execute(select(func.count()).select_from(BbjAward)).scalar_one() == 1
    assert [tuple(v) for v in voids] == [(2_535_280, 0), (-15_120, 15_120)]
    with pytest.raises(bc.BbjCaseError, match="can not go from voided"):
        bc.advance(room, cid, "share_paid", SUP, seat=1, clock=clock)


def test_an_approved_case_followed_by_a_later_hit_or_ceasing_the_fund_can_not_be_voided(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    first = _filed(room, clock, cap_cents=5_000)
    post_day1(room)
    bc.advance(room, first, "approved", SUP, clock=clock.step(days=1))
    later = datetime(2026, 12, 1, 16, 0, tzinfo=UTC)
    funds = bf.amount_for_hit(room, "bbj", later)
    bf.record_award(room, "bbj", decide(entry().claim(funds.main_cents, funds.reserve_cents)),
                    hit_at=later, table="P2", by="cage")
    before = _fund_rows(room)
    with pytest.raises(bf.BbjFundError, match="a later hit \\(award 2\\)"):
        bc.void(room, first, "late review", SUP, clock=clock)
    assert _fund_rows(room) == before and bc.get_case(room, first).state == "approved"


def test_a_case_that_ceased_the_fund_can_not_be_voided(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    post_day1(room)
    bc.advance(room, cid, "approved", SUP, cease=True, clock=clock.step(days=1))
    with pytest.raises(bf.BbjFundError, match="ceased"):
        bc.void(room, cid, "late review", SUP, clock=clock)
    assert bc.get_case(room, cid).state == "approved"


def test_every_rule_is_reported_passed_or_failed_in_cli_md_order() -> None:
    from core.pokerroom.rules.bbj import REASONS

    good = decide(entry().claim(5_000_000, 0))
    assert [(c, ok) for c, ok, _w in bc.rule_results(good)] == [(c, True) for c in REASONS]
    four = decide(entry(seats=4, pot_cents=10_000).claim(5_000_000, 0))
    results = {c: (ok, words) for c, ok, words in bc.rule_results(four)}
    assert results["NOT_ENOUGH_PLAYERS"] == (False, "fewer than 5 players dealt in")
    assert results["POT_TOO_SMALL"] == (False, "the pot is under 20 big blinds")
    assert results["WINNING_HAND_TOO_LOW"] == (True, "the winning hand is four of a kind or "
                                                     "better")


# --- ties (RULES.md 6.6, [poker_room] tie) --------------------------------------------------

def tie_entry() -> bc.ClaimEntry:
    """Seats 1 (As Td) and 2 (Ac Th) both make AAATT on Ah Ad Tc 7s 7c and tie for the bad
    beat; seat 4 (7h 7d) wins with 7777A; 7 seats dealt in, cap 77.77 of 100.00."""
    shown = {1: "As Td", 2: "Ac Th", 4: "7h 7d"}
    return replace(entry(seats=7, cap_cents=7_777), showdown=tuple(
        ShownHand(seat, (cards(h)[0], cards(h)[1])) for seat, h in shown.items()))


def test_an_approved_tie_case_pays_each_tied_seat_and_the_fund_is_the_sum_of_its_rows(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(room, "bbj", tie_entry(), HIT, SUP, clock=clock)
    assert bc.get_case(room, cid).share_seats == (4, 1, 2, 3, 5, 6, 7)
    bc.advance(room, cid, "verified", SUP2, deck_sorted=True, cctv_reviewed=True, clock=clock)
    bc.advance(room, cid, "request_filed", SUP, clock=clock)
    post_day1(room)
    # main 50,705.60 x 0.7777 = 39,433.74512 -> award 39,433.74
    #   winning 20%: 7,886.748 -> 7,886.74 to seat 4
    #   losing 40%: 15,773.496 -> 15,773.49, / 2 = 7,886.745 -> 7,886.74 each to seats 1, 2
    #   table 40%: 15,773.496 / 4 = 3,943.374 -> 3,943.37 each to seats 3, 5, 6, 7
    #   paid 3 x 7,886.74 + 4 x 3,943.37 = 39,433.70: 0.04 stays in main
    # seat 2 is NRANETB: 25% of 7,886.74 = 1,971.685 -> 1,971.69; the others are citizens at
    # or below 10,000.00: no tax.  Reserve moved 302.40 x 0.7777 = 235.17648 -> 235.17.
    # main after 50,705.60 - 39,433.70 + 235.17 = 11,507.07; reserve after 67.23.
    case = bc.advance(room, cid, "approved", SUP, clock=clock.step(days=1))
    assert bf.funds(room, "bbj") == bf.Funds(1_150_707, 6_723)
    _n, awards, main, reserve = _fund_rows(room)
    assert (awards, main, reserve) == (1, 1_150_707, 6_723)
    with Session(room) as s:
        award = s.get(BbjAward, case.award_id)
        assert award is not None
        assert (award.award_cents, award.paid_cents) == (3_943_374, 3_943_370)
        rows = s.execute(select(BbjAwardShare.seat, BbjAwardShare.role,
                                BbjAwardShare.gross_cents, BbjAwardShare.tax_cents)
                         .where(BbjAwardShare.award_id == award.id)
                         .order_by(BbjAwardShare.id)).all()
    assert [tuple(r) for r in rows] == [
        (4, "winning", 788_674, 0), (1, "losing", 788_674, 0), (2, "losing", 788_674, 197_169),
        (3, "table", 394_337, 0), (5, "table", 394_337, 0), (6, "table", 394_337, 0),
        (7, "table", 394_337, 0)]
    case = bc.advance(room, cid, "share_paid", SUP, seat=2, clock=clock.step(minutes=5))
    assert case.events[-1].detail == "award 1: gross 7,886.74, tax 1,971.69, net 5,915.05"


def test_a_tie_under_the_refuse_policy_opens_no_case(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    with pytest.raises(BbjError, match="seats 1 and 2 tie for the losing hand"):
        bc.open_case(room, "bbj", tie_entry(), HIT, SUP, settings=BbjSettings(tie="refuse"),
                     clock=clock)
    assert bc.list_cases(room) == []
    with Session(room) as s:
        assert s.execute(select(func.count()).select_from(SwipeLog)).scalar() == 0


# --- authority by size ([authorization], as the table progressives' pays) --------------------

def _swipes(engine: Engine) -> list[tuple[str, str | None]]:
    with Session(engine) as s:
        return [tuple(r) for r in s.execute(  # type: ignore[misc]
            select(SwipeLog.outcome, SwipeLog.role_required)
            .where(SwipeLog.action == "bbj_case").order_by(SwipeLog.id)).all()]
# --- RULES.md 6: "A case stays open for its attachments (IDs, bank statement, CCTV) until they
# are filed or the 7-day deadline is recorded as missed with a reason; closing a case never makes
# a later filing impossible (a late filing is recorded as late)."

def _acknowledged_without_attachments(room: Engine, clock: Clock) -> int:
    cid = _filed(room, clock)
    post_day1(room)
    case = bc.advance(room, cid, "approved", SUP, clock=clock.step(hours=20))
    for seat in case.share_seats:
        bc.advance(room, cid, "share_paid", SUP, seat=seat, clock=clock.step(minutes=5))
    bc.advance(room, cid, "acknowledged", SUP2, clock=clock.step(hours=2))
    return cid


def _events(engine: Engine) -> int:
    with Session(engine) as s:
        return s.execute(select(func.count()).select_from(BbjCaseEvent)).scalar_one()


def test_a_supervisor_is_refused_a_large_award_and_only_the_swipe_is_written(
        room: Engine) -> None:
    floor_policy(room, executive_threshold_cents=500_000)  # the demo floor's 5,000.00
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    post_day1(room)
    need = bc.step_authority(room, cid, "approved")
    assert (need.role, need.amount_cents, need.threshold_cents) == ("executive", 5_070_560,
                                                                    500_000)
    # written in the fund's currency (``money``; here the default, pesos), as the screens do
    assert need.prompt.startswith("₱50,705.60 is at or above the executive threshold "
                                  "₱5,000.00")
    before, events, swipes = _fund_rows(room), _events(room), _swipes(room)
    with pytest.raises(AuthError, match=r"employee 1001 \(Dana Reyes, supervisor\) can not "
                       r"authorize the approval of a Bad Beat Jackpot award of ₱50,705.60 "
                       r"\(at or above the executive threshold ₱5,000.00\): it needs an "
                       r"executive"):
        bc.advance(room, cid, "approved", SUP, clock=clock)
    assert (_fund_rows(room), _events(room)) == (before, events)
    assert _swipes(room) == [*swipes, ("insufficient_authority", "executive")]
    assert bc.get_case(room, cid).award_id is None


def test_an_executive_approves_a_large_award_with_the_pin_the_floor_asks(room: Engine) -> None:
    floor_policy(room, executive_threshold_cents=500_000)  # pin = "executive" (the default)
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    post_day1(room)
    before, events = _fund_rows(room), _events(room)
    with pytest.raises(AuthError, match="needs the PIN after the swipe"):
        bc.advance(room, cid, "approved", EXEC, clock=clock)
    assert (_fund_rows(room), _events(room)) == (before, events)
    assert _swipes(room)[-1] == ("pin_missing", "executive")
    case = bc.advance(room, cid, "approved", demo_credential("2001"), clock=clock)
    assert case.state == "approved" and case.events[-1].by.number == "2001"
    assert _swipes(room)[-1] == ("accepted", "executive")
    assert bf.funds(room, "bbj") == bf.Funds(30_240, 0)  # 50,705.60 paid; 302.40 moved up
    # a share of 10,141.12 (seat 4, winning) is an executive's too; with pin = "none" the
    # executive's swipe alone does
    with pytest.raises(AuthError, match="the payment of a Bad Beat Jackpot share of "
                                        "₱10,141.12"):
        bc.advance(room, cid, "share_paid", SUP, seat=4, clock=clock)
    assert _swipes(room)[-1] == ("insufficient_authority", "executive")
    floor_policy(room, executive_threshold_cents=500_000, pin="none")
    case = bc.advance(room, cid, "share_paid", EXEC, seat=4, clock=clock)
    assert case.paid_seats == (4,)


def test_the_verifier_may_not_approve_an_award_at_or_above_separate_verifier_at(
        room: Engine) -> None:
    floor_policy(room, executive_threshold_cents=500_000, separate_verifier_cents=1_000_000)
    clock = Clock(HIT + timedelta(minutes=10))
    cid = opened(room, clock)
    bc.advance(room, cid, "verified", EXEC, deck_sorted=True, cctv_reviewed=True, clock=clock)
    bc.advance(room, cid, "request_filed", SUP, clock=clock)
    post_day1(room)
    assert "Another person than Evelyn Cruz #2001 (executive)" in \
        bc.step_authority(room, cid, "approved").prompt
    before, events, swipes = _fund_rows(room), _events(room), _swipes(room)
    with pytest.raises(AuthError, match=r"an award of ₱50,705.60 \(at or above ₱10,000.00\) is "
                       r"approved by another person than the one who verified it: employee "
                       r"2001 \(Evelyn Cruz\)") as refused:
        bc.advance(room, cid, "approved", demo_credential("2001"), clock=clock)
    assert refused.value.outcome == "same_person"
    assert (_fund_rows(room), _events(room)) == (before, events)
    assert _swipes(room) == [*swipes, ("same_person", "executive")]
    # below separate_verifier_at the verifier may approve: 50,705.60 < 100,000.00
    floor_policy(room, executive_threshold_cents=500_000, separate_verifier_cents=10_000_000)
    assert bc.advance(room, cid, "approved", demo_credential("2001"),
                      clock=clock).state == "approved"


def test_a_small_award_and_its_shares_need_only_a_supervisor(room: Engine) -> None:
    floor_policy(room, executive_threshold_cents=500_000)
    clock = Clock(HIT + timedelta(minutes=10))
    # cap 5.00 of 100.00: award 50,705.60 x 0.05 = 2,535.28, below 5,000.00 (and below
    # separate_verifier_at: the one supervisor verifies and approves)
    cid = _filed(room, clock, cap_cents=500)
    post_day1(room)
    assert bc.step_authority(room, cid, "approved").role == "supervisor"
    case = bc.advance(room, cid, "approved", SUP, clock=clock)
    for seat in case.share_seats:
        case = bc.advance(room, cid, "share_paid", SUP, seat=seat, clock=clock)
    assert case.unpaid_seats == () and {r for _o, r in _swipes(room)} == {"supervisor"}
def test_an_acknowledged_case_without_attachments_stays_open_and_takes_them_late(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _acknowledged_without_attachments(room, clock)
    case = bc.get_case(room, cid)
    assert case.state == "acknowledged" and case.is_open and case.attachments_outstanding
    assert case.next_states() == ("attachments_filed",)
    due = HIT + timedelta(days=7)  # 8 December 14:00 UTC
    ten_days = HIT + timedelta(days=10)
    assert [(c.case_id, d.what) for c, d in bc.overdue(room, ten_days, MANILA)] == [
        (cid, "attachments")]
    # filed 2 days and 1 hour after the deadline: LATE by 3 (started) days
    clock.at = due + timedelta(days=2, hours=1)
    case = bc.advance(room, cid, "attachments_filed", SUP, detail="CCTV from the vendor",
                      clock=clock)
    last = case.events[-1]
    assert (last.state, last.detail, last.at) == (
        "attachments_filed", "LATE by 3 days; CCTV from the vendor", clock.at)
    att = next(d for d in bc.deadlines(case, MANILA) if d.what == "attachments")
    assert att.met_at == clock.at and att.late and not att.pending
    assert not case.is_open and case.state == "acknowledged" and case.next_states() == ()
    assert bc.overdue(room, ten_days, MANILA) == []


def test_attachments_recorded_missed_with_a_reason_are_not_overdue_and_can_still_be_filed(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _acknowledged_without_attachments(room, clock)
    clock.at = HIT + timedelta(days=7, minutes=1)
    assert "attachments_missed" in bc.get_case(room, cid).next_states(clock.at)
    case = bc.advance(room, cid, "attachments_missed", SUP2,
                      detail="bank statement not issued yet by the bank", clock=clock)
    att = next(d for d in bc.deadlines(case, MANILA) if d.what == "attachments")
    assert (att.met_at, att.missed_at, att.missed_reason) == (
        None, clock.at, "bank statement not issued yet by the bank")
    assert not att.pending and not case.is_open and case.state == "acknowledged"
    assert bc.overdue(room, HIT + timedelta(days=30), MANILA) == []
    assert bc.next_deadline(case, MANILA) is None
    with pytest.raises(bc.BbjCaseError, match="already recorded missed"):
        bc.advance(room, cid, "attachments_missed", SUP, detail="again", clock=clock)
    # the filing is still possible afterwards, and recorded as late (12 days and a minute)
    clock.at = HIT + timedelta(days=19, minutes=2)
    assert case.next_states(clock.at) == ("attachments_filed",)
    case = bc.advance(room, cid, "attachments_filed", SUP, clock=clock)
    assert case.events[-1].detail == "LATE by 13 days"
    att = next(d for d in bc.deadlines(case, MANILA) if d.what == "attachments")
    assert att.met_at == clock.at and att.late and att.missed_at is not None
    assert [e.state for e in case.events][-2:] == ["attachments_missed", "attachments_filed"]


def test_attachments_can_not_be_recorded_missed_before_the_deadline_nor_without_a_reason(
        room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    before = _events(room)
    clock.at = HIT + timedelta(days=7)  # the deadline itself: not passed yet
    assert "attachments_missed" not in bc.get_case(room, cid).next_states(clock.at)
    with pytest.raises(bc.BbjCaseError, match=r"case \d+: the attachments are due 2026-12-08 "
                       r"14:00 UTC .* only once that has passed"):
        bc.advance(room, cid, "attachments_missed", SUP, detail="no CCTV", clock=clock)
    clock.at += timedelta(minutes=1)
    with pytest.raises(bc.BbjCaseError, match="attachments missed needs the reason"):
        bc.advance(room, cid, "attachments_missed", SUP, detail="  ", clock=clock)
    assert _events(room) == before  # nothing written (only the refused swipes' log rows)
    with Session(room) as s:
        assert s.execute(select(SwipeLog.outcome).where(SwipeLog.action == "bbj_case")
                         .order_by(SwipeLog.id.desc()).limit(2)).scalars().all() == [
            "refused", "refused"]
    case = bc.get_case(room, cid)
    assert case.is_open and bc.overdue(room, clock.at, MANILA)[-1][1].what == "attachments"
    # filed on time: not late, no LATE in the row
    on_time = bc.get_case(room, _filed(room, Clock(HIT + timedelta(minutes=20))))
    case = bc.advance(room, on_time.case_id, "attachments_filed", SUP,
                      clock=Clock(HIT + timedelta(days=6)))
    att = next(d for d in bc.deadlines(case, MANILA) if d.what == "attachments")
    assert case.events[-1].detail == "" and not att.late
    with pytest.raises(bc.BbjCaseError, match="the attachments are filed"):
        bc.advance(room, on_time.case_id, "attachments_missed", SUP, detail="x",
                   clock=Clock(HIT + timedelta(days=8)))


def test_a_voided_case_needs_no_attachments_but_may_still_file_them(room: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(room, clock)
    case = bc.void(room, cid, "fouled deck found at the sort", SUP, clock=clock.step(hours=1))
    assert not case.is_open and not case.attachments_needed
    assert bc.deadlines(case, MANILA) == []
    assert case.next_states(HIT + timedelta(days=9)) == ("attachments_filed",)
    with pytest.raises(bc.BbjCaseError, match="a voided case needs no attachments"):
        bc.advance(room, cid, "attachments_missed", SUP, detail="x",
                   clock=Clock(HIT + timedelta(days=9)))
    case = bc.advance(room, cid, "attachments_filed", SUP, clock=Clock(HIT + timedelta(days=9)))
    assert case.state == "voided" and case.events[-1].detail == ""  # nothing was due: not late
