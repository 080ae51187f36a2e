"""Closure and forfeiture, cessation notices (issue 15; RULES.md 6 TGD-1540; docs/bbj.md "The
fund", "Cases"): the poker room closes for good and the whole balance is forfeited in favour of
PAGCOR (an executive's swipe); a "cease once hit" notice makes the fund's next approval cease
it with the reserve pooled into the main amount won; TGD-1540's part 1 dates come from the
notice; the forfeiture report.  SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

import core.pokerroom.fund as bf
from core.app.demo import demo_credential, enroll_demo_employees, swipe_of
from core.kernel.cards import Card, parse_cards
from core.ledger.db import make_engine
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCessation,
    BbjCessationNotice,
    BbjEntry,
    SwipeLog,
)
from core.people.auth import AuthError
from core.pokerroom import cases as bc
from core.pokerroom.rules.bbj import ShownHand, decide
from printing.pages import closure_form, forms_command, ledger_forms
from tests.core.pokerroom.test_bbj_cases import floor_policy
from tests.ledgers import migrate

MANILA = ZoneInfo("Asia/Manila")
SUP = swipe_of("1001")
EXEC = demo_credential("2001")
DAY1 = date(2026, 12, 1)  # a Tuesday
HIT = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)  # 22:00 in Manila
LATER = HIT + timedelta(days=1)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split(), count=None)


def entry(*, cap_cents: int = 10_000) -> bc.ClaimEntry:
    """Aces full of Tens (seat 1, losing) beaten by four sevens (seat 4, winning), 6 seats."""
    a, b = cards("As Td"), cards("7h 7d")
    return bc.ClaimEntry(
        table="P1", big_blind_cents=10_000, pot_cents=250_000, dealt_in=(1, 2, 3, 4, 5, 6),
        board=cards("Ah Ad Tc 7s 7c"),
        showdown=(ShownHand(1, (a[0], a[1])), ShownHand(4, (b[0], b[1]))),
        table_jackpot_rake_cap_cents=cap_cents, room_max_jackpot_rake_cents=10_000,
        names={i: f"Player {i}" for i in range(1, 7)}, id_checked=frozenset(range(1, 7)))


def at(when: datetime) -> object:
    return lambda: when


def fill(engine: Engine) -> Engine:
    """Fund bbj seeded 50,000.00 and day 1 posted: 1,440.00 of jackpot rake -> admin fee
    432.00, main 705.60, reserve 302.40: main 50,705.60 (seed 50,000.00), reserve 302.40."""
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=HIT - timedelta(days=2))
    bf.create_fund(engine, "bbj2", "New hall BBJ", at=HIT - timedelta(days=2))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed",
            at=HIT - timedelta(days=2))
    bf.record_count(engine, "bbj", business_date=DAY1, table="P1", drop_box="J-1",
                    opened_at=datetime(2026, 12, 1, 10, tzinfo=UTC),
                    closed_at=datetime(2026, 12, 1, 22, tzinfo=UTC), dealer="D. Cruz",
                    pieces={500: 2, 100: 3, 50: 1, 25: 2, 10: 4}, by="cage")
    bf.post_day(engine, "bbj", DAY1, by="cage", at=datetime(2026, 12, 2, 6, tzinfo=UTC))
    return engine


@pytest.fixture
def room(engine: Engine) -> Engine:
    # a floor whose executive threshold is above every award here: a supervisor approves them
    # (authority by size is tests/core/pokerroom/test_bbj_cases.py's); the notices and the
    # forfeiture still need an executive whatever the amount
    floor_policy(engine, executive_threshold_cents=100_000_000,
                 separate_verifier_cents=100_000_000)
    return fill(engine)


def rows(engine: Engine) -> tuple[int, int, int, list[str]]:
    """(entries, cessations, notices, swipe-log outcomes of bbj_closure)."""
    with Session(engine) as s:
        def n(model: type) -> int:
            return int(s.execute(select(func.count()).select_from(model)).scalar_one())
        outcomes = list(s.execute(select(SwipeLog.outcome).where(
            SwipeLog.action == "bbj_closure").order_by(SwipeLog.id)).scalars())
        return n(BbjEntry), n(BbjCessation), n(BbjCessationNotice), outcomes


def sums(engine: Engine, fund: str = "bbj") -> tuple[int, int]:
    with Session(engine) as s:
        es = list(s.execute(select(BbjEntry).where(BbjEntry.fund_id == fund)).scalars())
    return sum(e.main_delta_cents for e in es), sum(e.reserve_delta_cents for e in es)


def forfeit(engine: Engine, swipe: object = EXEC, closed_on: date = DAY1) -> bf.Forfeiture:
    return bc.forfeit_on_closure(engine, "bbj", swipe,  # type: ignore[arg-type]
                                 closed_on=closed_on, reason="poker room closed for good",
                                 clock=at(LATER))  # type: ignore[arg-type]


def filed_case(engine: Engine, cap_cents: int = 10_000) -> int:
    clock = at(HIT + timedelta(minutes=10))
    cid = bc.open_case(engine, "bbj", entry(cap_cents=cap_cents), HIT, SUP,
                       clock=clock)  # type: ignore[arg-type]
    bc.advance(engine, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
               clock=clock)  # type: ignore[arg-type]
    bc.advance(engine, cid, "request_filed", SUP, clock=clock)  # type: ignore[arg-type]
    return cid


# --- forfeiture on permanent closure ----------------------------------------------------


def test_on_permanent_closure_the_whole_balance_is_forfeited_in_favour_of_pagcor(
        room: Engine) -> None:
    before = bf.funds(room, "bbj")
    assert before == bf.Funds(5_070_560, 30_240)
    done = forfeit(room)
    # main 50,705.60 of which seed 50,000.00 (no hit since it), reserve 302.40: 51,008.00
    assert (done.main_cents, done.seed_cents, done.reserve_cents, done.total_cents) == (
        5_070_560, 5_000_000, 30_240, 5_100_800)
    assert done.total_cents == before.total_cents  # the forfeited amount = the balance before
    assert bf.funds(room, "bbj") == bf.Funds(0, 0) and sums(room) == (0, 0)
    with Session(room) as s:
        c = s.execute(select(BbjCessation)).scalar_one()
        e = s.execute(select(BbjEntry).where(BbjEntry.kind == "forfeiture")).scalar_one()
    assert (c.kind, c.closed_on, c.seed_forfeited_cents, c.increment_cents, c.reserve_cents,
            c.seed_returned_cents, c.to_fund_id, c.award_id) == (
        "forfeiture", DAY1, 5_000_000, 70_560, 30_240, 0, None, None)
    assert c.recorded_by == "2001 Evelyn Cruz" and c.reason == "poker room closed for good"
    assert (e.main_delta_cents, e.reserve_delta_cents, e.cessation_id) == (-5_070_560, -30_240,
                                                                           c.id)
    assert rows(room)[3] == ["accepted"]
    status = bf.fund_status(room, "bbj")
    assert (status.ceased_kind, status.closed_on, status.notice) == ("forfeiture", DAY1, None)


def test_after_a_forfeiture_nothing_more_is_counted_posted_or_claimed(room: Engine) -> None:
    forfeit(room)
    day2 = date(2026, 12, 2)
    with pytest.raises(bf.BbjFundError, match=r"fund 'bbj' has ceased \(forfeited to PAGCOR"):
        bc.record_count(room, "bbj", SUP, business_date=day2, table="P1", drop_box="J-1",
                        opened_at=datetime(2026, 12, 2, 10, tzinfo=UTC),
                        closed_at=datetime(2026, 12, 2, 22, tzinfo=UTC), dealer="D",
                        pieces={100: 1}, clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match="has ceased"):
        bc.post_day(room, "bbj", day2, SUP, clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bc.BbjCaseError, match="has ceased"):
        bc.open_case(room, "bbj", entry(), HIT, SUP, clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match="has ceased"):
        forfeit(room)
    with pytest.raises(bf.BbjFundError, match="has ceased"):
        bc.give_notice(room, "bbj", EXEC, "closure", notice_on=DAY1, reason="x",  # type: ignore[arg-type]
                       clock=at(LATER))  # type: ignore[arg-type]


def test_a_forfeiture_is_refused_while_a_case_is_open_and_nothing_is_written(
        room: Engine) -> None:
    cid = filed_case(room)
    before = rows(room)
    with pytest.raises(bf.BbjFundError,
                       match=rf"case {cid} \(table P1, hit 2026-12-01 14:00 UTC, "
                             r"request_filed\) is open; pay or void it first"):
        forfeit(room)
    after = rows(room)
    assert after[:3] == before[:3] and after[3] == [*before[3], "refused"]
    # approved but a share not paid yet: still open
    bc.advance(room, cid, "approved", SUP, clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match=rf"case {cid} .*approved\) is open"):
        forfeit(room)
    for seat in (4, 1, 2, 3, 5):
        bc.advance(room, cid, "share_paid", SUP, seat=seat, clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match=r"share_paid\) is open"):
        forfeit(room)
    bc.advance(room, cid, "share_paid", SUP, seat=6, clock=at(LATER))  # type: ignore[arg-type]
    # every share paid: the case no longer holds the fund; the rest is forfeited
    left = bf.funds(room, "bbj")
    done = forfeit(room)
    assert done.total_cents == left.total_cents and bf.funds(room, "bbj") == bf.Funds(0, 0)
    assert done.seed_cents == 0  # the hit reset the jackpot: no seed outstanding


def test_a_voided_case_does_not_stop_a_forfeiture(room: Engine) -> None:
    cid = filed_case(room)
    bc.void(room, cid, "fouled deck", SUP, clock=at(LATER))  # type: ignore[arg-type]
    assert forfeit(room).total_cents == 5_100_800


def test_a_supervisors_card_can_not_forfeit_the_fund_only_its_refusal_is_logged(
        room: Engine) -> None:
    before = rows(room)
    with pytest.raises(AuthError, match="needs an executive"):
        forfeit(room, SUP)
    after = rows(room)
    assert after[:3] == before[:3] and after[3] == ["insufficient_authority"]
    assert bf.funds(room, "bbj") == bf.Funds(5_070_560, 30_240)


def test_a_forfeiture_is_refused_on_a_counted_day_not_posted(room: Engine) -> None:
    bf.record_count(room, "bbj", business_date=date(2026, 12, 2), table="P1", drop_box="J-1",
                    opened_at=datetime(2026, 12, 2, 10, tzinfo=UTC),
                    closed_at=datetime(2026, 12, 2, 12, tzinfo=UTC), dealer="D",
                    pieces={100: 1}, by="cage")
    before = rows(room)
    with pytest.raises(bf.BbjFundError, match="2026-12-02 is counted but not posted for "
                                              "fund 'bbj'; post it first"):
        forfeit(room, closed_on=date(2026, 12, 2))
    assert rows(room)[:3] == before[:3]


def test_a_closure_date_before_a_counted_day_or_in_the_future_is_refused(room: Engine) -> None:
    with pytest.raises(bf.BbjFundError, match="drop boxes counted for 2026-12-01, after it"):
        forfeit(room, closed_on=date(2026, 11, 30))
    with pytest.raises(bf.BbjFundError, match="closure date 2026-12-09: in the future"):
        forfeit(room, closed_on=date(2026, 12, 9))
    assert rows(room)[1] == 0


def test_a_fund_holding_nothing_is_closed_all_the_same(room: Engine) -> None:
    done = bc.forfeit_on_closure(room, "bbj2", EXEC, closed_on=DAY1, reason="closed",
                                 clock=at(LATER))  # type: ignore[arg-type]
    assert done.total_cents == 0 and bf.funds(room, "bbj2") == bf.Funds(0, 0)
    with Session(room) as s:
        assert s.execute(select(func.count()).select_from(BbjEntry).where(
            BbjEntry.fund_id == "bbj2")).scalar_one() == 0
    assert bf.fund_status(room, "bbj2").ceased_kind == "forfeiture"


# --- the cease-once-hit notice ----------------------------------------------------------


def test_after_a_cease_once_hit_notice_the_next_approval_ceases_with_the_reserve_pooled(
        room: Engine) -> None:
    cid = filed_case(room, cap_cents=5_000)  # a table capped at 50.00 of 100.00: 1/2
    nid = bc.give_notice(room, "bbj", EXEC, "cease_once_hit", notice_on=DAY1,  # type: ignore[arg-type]
                         reason="the room moves to tournaments only",
                         clock=at(HIT + timedelta(minutes=20)))  # type: ignore[arg-type]
    assert bf.fund_status(room, "bbj").notice.notice_id == nid  # type: ignore[union-attr]
    # approved WITHOUT asking to cease: the notice makes it cease.  Main for the hit:
    # 50,705.60 + reserve 302.40 = 51,008.00 (reserve 0); award 1/2 = 25,504.00: winning 20%
    # 5,100.80, losing 40% 10,201.60, table 40% 10,201.60 / 4 = 2,550.40 each; nothing moves
    # up (reserve 0); main after 51,008.00 - 25,504.00 = 25,504.00 stays in the ceased fund.
    case = bc.advance(room, cid, "approved", SUP, clock=at(LATER))  # type: ignore[arg-type]
    assert case.events[-1].detail == (
        f"award 1; the fund ceases with this hit (notice {nid} of 2026-12-01: ceases once "
        "hit; reserve added to main): 25,504.00 on main 51,008.00; main after 25,504.00, "
        "reserve after 0.00")
    assert bf.funds(room, "bbj") == bf.Funds(2_550_400, 0) and sums(room) == (2_550_400, 0)
    with Session(room) as s:
        award = s.execute(select(BbjAward)).scalar_one()
        shares = dict(s.execute(select(BbjAwardShare.seat, BbjAwardShare.gross_cents)).all())
        c = s.execute(select(BbjCessation)).scalar_one()
        merge = s.execute(select(BbjEntry).where(BbjEntry.kind == "cessation_merge")) \
            .scalar_one()
    assert (award.main_before_cents, award.reserve_before_cents, award.award_cents,
            award.ceases_fund) == (5_100_800, 0, 2_550_400, True)
    assert shares == {4: 510_080, 1: 1_020_160, 2: 255_040, 3: 255_040, 5: 255_040,
                      6: 255_040}
    assert (merge.main_delta_cents, merge.reserve_delta_cents) == (30_240, -30_240)
    assert c.kind == "after_hit" and f"notice {nid} of 2026-12-01" in c.reason


def test_with_a_notice_an_award_that_does_not_cease_is_refused(room: Engine) -> None:
    nid = bc.give_notice(room, "bbj", EXEC, "cease_once_hit", notice_on=DAY1, reason="r",  # type: ignore[arg-type]
                         clock=at(LATER))  # type: ignore[arg-type]
    f = bf.amount_for_hit(room, "bbj", HIT)
    before = rows(room)
    with pytest.raises(bf.BbjFundError, match=rf"notice {nid} of 2026-12-01: ceases once hit: "
                                              "this award must cease the fund"):
        bf.record_award(room, "bbj", decide(entry().claim(f.main_cents, f.reserve_cents)),
                        hit_at=HIT, table="P1", by="cage")
    assert rows(room)[:3] == before[:3]


def test_a_withdrawn_notice_no_longer_ceases_the_fund_and_stays_in_the_ledger(
        room: Engine) -> None:
    cid = filed_case(room)
    nid = bc.give_notice(room, "bbj", EXEC, "cease_once_hit", notice_on=DAY1, reason="r",  # type: ignore[arg-type]
                         clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match=rf"notice {nid} .* holds; withdraw it first"):
        bc.give_notice(room, "bbj", EXEC, "closure", notice_on=DAY1, reason="r",  # type: ignore[arg-type]
                       clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(AuthError, match="needs an executive"):
        bc.withdraw_notice(room, "bbj", nid, SUP, reason="changed our mind",
                           clock=at(LATER))  # type: ignore[arg-type]
    bc.withdraw_notice(room, "bbj", nid, EXEC, reason="changed our mind",
                       clock=at(LATER))  # type: ignore[arg-type]
    with pytest.raises(bf.BbjFundError, match=f"notice {nid}: withdrawn on 2026-12-02"):
        bc.withdraw_notice(room, "bbj", nid, EXEC, reason="again",
                           clock=at(LATER))  # type: ignore[arg-type]
    (n,) = bf.notices(room, "bbj")
    assert (n.kind, n.active, n.withdrawn_reason) == ("cease_once_hit", False,
                                                      "changed our mind")
    case = bc.advance(room, cid, "approved", SUP, clock=at(LATER))  # type: ignore[arg-type]
    assert "ceases" not in case.events[-1].detail
    assert bf.fund_status(room, "bbj").ceased_kind is None
    with Session(room) as s:  # the notice and its withdrawal: two rows, nothing changed
        kinds = s.execute(select(BbjCessationNotice.kind, BbjCessationNotice.refers_to_id)
                          .order_by(BbjCessationNotice.id)).all()
    assert [tuple(k) for k in kinds] == [("cease_once_hit", None), ("withdrawn", nid)]


def test_a_notice_refuses_bad_dates_and_a_transfer_without_its_fund(room: Engine) -> None:
    def give(kind: str, **kw: object) -> int:
        return bc.give_notice(room, "bbj", EXEC, kind, reason="r",  # type: ignore[arg-type]
                              clock=at(LATER), **kw)  # type: ignore[arg-type]

    with pytest.raises(bf.BbjFundError, match="transfer notice: the fund it goes to is missing"):
        give("transfer", notice_on=DAY1, effective_on=date(2026, 12, 28))
    with pytest.raises(bf.BbjFundError, match="planned effective date is missing"):
        give("transfer", notice_on=DAY1, to_fund_id="bbj2")
    with pytest.raises(bf.BbjFundError, match="notice date 2026-12-01: after the effective "
                                              "date 2026-11-30"):
        give("closure", notice_on=DAY1, effective_on=date(2026, 11, 30))
    with pytest.raises(bf.BbjFundError, match="notice date 2027-01-05: in the future"):
        give("closure", notice_on=date(2027, 1, 5))
    with pytest.raises(bf.BbjFundError, match="'hold' is not one of"):
        give("hold", notice_on=DAY1)
    assert rows(room)[2] == 0


def test_notice_deadlines_count_business_days_back_from_the_effective_date() -> None:
    n = bf.Notice(1, "bbj", "transfer", date(2026, 12, 1), date(2026, 12, 28),
                  date(2026, 12, 23), "bbj2", "r", "x", HIT)
    # 14 business days before Monday 28 Dec 2026: 8 Dec; 7 days before: 21 Dec; 2 after: 30 Dec
    assert [(d.what, d.due, d.met_on, d.late) for d in bf.notice_deadlines(n)] == [
        ("part1", date(2026, 12, 8), date(2026, 12, 1), False),
        ("players", date(2026, 12, 21), date(2026, 12, 23), True),
        ("part2", date(2026, 12, 30), None, False)]
    # 24 and 25 December holidays: two more business days back, to 4 December
    due = bf.notice_deadlines(n, (date(2026, 12, 24), date(2026, 12, 25)))[0].due
    assert due == date(2026, 12, 4)
    once = bf.Notice(2, "bbj", "cease_once_hit", date(2026, 12, 1), None, None, None, "r",
                     "x", HIT)
    assert bf.notice_deadlines(once) == []  # the date of the hit is not known


# --- TGD-1540 from the ledger: part 1's dates from the notice ---------------------------


def tgd1540(engine: Engine, fund: str = "bbj") -> str:
    return ledger_forms.render(engine, ledger_forms.FormRequest("cessation", fund_id=fund),
                               casino="Casino", operator="Operator", tz=MANILA).html


def test_the_tgd_1540_of_a_transfer_prints_the_notice_and_players_told_dates(
        room: Engine) -> None:
    nid = bc.give_notice(room, "bbj", EXEC, "transfer", notice_on=DAY1,  # type: ignore[arg-type]
                         effective_on=date(2026, 12, 28), to_fund_id="bbj2",
                         reason="the room moves to the new hall",
                         clock=at(LATER))  # type: ignore[arg-type]
    # part 1 of the planned transfer, before it happens: everything from the notice
    html = tgd1540(room)
    assert "01 December 2026 (latest 08 December 2026: on time)" in html
    assert "____________________ (latest 21 December 2026)" in html  # players not told yet
    assert "New hall BBJ (bbj2)" in html and "the room moves to the new hall" in html
    bc.record_players_told(room, "bbj", nid, SUP, told_on=date(2026, 12, 15),
                           clock=at(datetime(2026, 12, 15, 2, tzinfo=UTC)))  # type: ignore[arg-type]
    bf.cease_by_transfer(room, "bbj", "bbj2", by="2001 Evelyn Cruz", reason="moved",
                         at=datetime(2026, 12, 28, 3, tzinfo=UTC))
    html = tgd1540(room)
    assert "01 December 2026 (latest 08 December 2026: on time)" in html
    assert "15 December 2026 (latest 21 December 2026: on time)" in html
    assert "LATE" not in html


def test_the_tgd_1540_of_a_cessation_once_hit_prints_late_notice_dates(room: Engine) -> None:
    cid = filed_case(room)
    nid = bc.give_notice(room, "bbj", EXEC, "cease_once_hit", notice_on=date(2026, 11, 20),  # type: ignore[arg-type]
                         reason="r", clock=at(HIT + timedelta(minutes=20)))  # type: ignore[arg-type]
    bc.record_players_told(room, "bbj", nid, SUP, told_on=date(2026, 11, 25),
                           clock=at(HIT + timedelta(minutes=30)))  # type: ignore[arg-type]
    bc.advance(room, cid, "approved", SUP, clock=at(LATER))  # type: ignore[arg-type]
    html = tgd1540(room)
    # the hit on 1 Dec (Manila): part 1 due 14 business days before, 11 Nov; players 24 Nov
    assert "20 November 2026 (latest 11 November 2026: LATE)" in html
    assert "25 November 2026 (latest 24 November 2026: LATE)" in html


def test_the_tgd_1540_of_a_forfeited_fund_points_to_the_forfeiture_report(
        room: Engine) -> None:
    forfeit(room)
    with pytest.raises(ledger_forms.FormError, match="podium forms forfeiture --fund bbj"):
        tgd1540(room)


# --- the forfeiture report --------------------------------------------------------------


def test_the_forfeiture_report_shows_every_amount_from_the_ledger(room: Engine) -> None:
    nid = bc.give_notice(room, "bbj", EXEC, "closure", notice_on=DAY1, reason="lease ends",  # type: ignore[arg-type]
                         clock=at(HIT))  # type: ignore[arg-type]
    bc.record_players_told(room, "bbj", nid, SUP, told_on=DAY1,
                           clock=at(HIT))  # type: ignore[arg-type]
    with pytest.raises(ledger_forms.FormError, match="'bbj' is not forfeited"):
        closure_form.forfeiture_report(room, "bbj", casino="C", operator="O", tz=MANILA)
    forfeit(room)
    r = closure_form.forfeiture_report(room, "bbj", casino="C", operator="O", tz=MANILA)
    assert (r.main_cents, r.seed_cents, r.increment_cents, r.reserve_cents, r.total_cents) == (
        5_070_560, 5_000_000, 70_560, 30_240, 5_100_800)
    assert (r.closed_on, r.recorded_by, r.notice_on, r.players_told_on) == (
        DAY1, "2001 Evelyn Cruz", DAY1, DAY1)
    assert r.last_posting == closure_form.LastPosting(DAY1, 144_000, 5_070_560, 30_240)
    form = ledger_forms.render(room, ledger_forms.FormRequest("forfeiture", fund_id="bbj"),
                               casino="C", operator="O", tz=MANILA)
    assert form.filename == "BBJ-forfeiture_bbj"
    for text in ("₱50,705.60", "₱50,000.00", "₱705.60",
                 "₱302.40", "₱51,008.00", "Amount to remit to PAGCOR",
                 "01 December 2026", "poker room closed for good", "2001 Evelyn Cruz"):
        assert text in form.html, text


def test_podium_forms_forfeiture_writes_a_pdf(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    engine = make_engine(url)
    migrate(engine)
    fill(engine)
    forfeit(engine)
    engine.dispose()
    pdf = tmp_path / "forfeiture.pdf"
    code = forms_command.main(["forfeiture", "--fund", "bbj", "--db", url, "--pdf", str(pdf)])
    out, err = capsys.readouterr()
    assert (code, out, err) == (0, f"{pdf}\n", "")
    assert pdf.read_bytes().startswith(b"%PDF")
    code = forms_command.main(["forfeiture", "--fund", "bbj2", "--db", url, "--pdf", str(pdf)])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("podium forms: fund 'bbj2' is not forfeited")


def test_notices_and_the_forfeiture_are_chained_and_can_not_be_changed(room: Engine) -> None:
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from core.ledger.audit import verify

    nid = bc.give_notice(room, "bbj", EXEC, "closure", notice_on=DAY1, reason="lease ends",  # type: ignore[arg-type]
                         clock=at(HIT))  # type: ignore[arg-type]
    forfeit(room)
    report = verify(room)
    assert report.ok, [b.line() for b in report.breaks]
    for sql in (f"UPDATE bbj_cessation_notices SET notice_on = NULL WHERE id = {nid}",
                f"DELETE FROM bbj_cessation_notices WHERE id = {nid}",
                "UPDATE bbj_cessations SET closed_on = NULL"):
        with pytest.raises(DBAPIError), room.begin() as conn:
            conn.execute(text(sql))
