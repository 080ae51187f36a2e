"""Jackpot Lock at verification (RULES.md 4, core/tablegames/pay/freeze.py): a meter pay's amount is
fixed when its verification opens, so a linked meter that keeps moving while the supervisor types
the PIN never refuses the pay; a verification closed without a decision gives the amount back;
several freezes are fixed in pay order; a refusal names its real cause first.  On SQLite and
PostgreSQL.

Expected amounts are worked out here with integers from RULES.md 4 (a share rounds DOWN to the
cent, the rest stays), not with core.tablegames.meters.arithmetic.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.controllers.events import GameStarted, HitClaimed, Misdealt, Undone
from core.ledger.audit import verify
from core.ledger.balance_checks import check_balances
from core.ledger.models import Hit, HitDecision, MeterEntry
from core.people.auth import AuthError
from core.tablegames.floor import Floor
from core.tablegames.views import AmountChanged
from printing.escpos.slip import PAPER
from tests.core.tablegames.test_floor import (
    EXE,
    HANDS,
    SUP,
    UNITS,
    Table,
    hit_ids,
    meter_units,
    swipe,
)
from tests.core.tablegames.test_floor import floor as floor  # noqa: F401  (the fixture)

RF = HANDS["RF_ROYAL_MATCH"].split()  # 50% of the meter
SEED_CENTS = 1_000_000  # 10,000.00
WAGER_TO_METER = 20 * UNITS  # 0.20 of a 1.00 wager


def _decisions(engine: Engine, hit: int) -> list[str]:
    with Session(engine) as s:
        return list(s.scalars(select(HitDecision.decision).where(HitDecision.hit_id == hit)
                              .order_by(HitDecision.id)))


def _level(floor: Floor, group: str = "LINK") -> object:
    return next(lv for lv in floor.snapshot().levels if lv.group == group)


def _play(table: Table, rounds: range, seats: int = 4) -> None:
    """``table`` deals ``rounds``: every seat wagers 1.00 (0.20 to the meter each)."""
    for n in rounds:
        table.send(GameStarted(n, {s: 100 for s in range(1, seats + 1)}))


def _half(units: int) -> int:
    return units // 2 // UNITS  # 50% of the meter, rounded down to the cent


def test_a_pay_goes_through_on_the_first_swipe_while_the_linked_meter_keeps_moving(
        floor: Floor, engine: Engine) -> None:
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {3: 100}))
    t1.send(HitClaimed(1, 3, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    m, r = meter_units(engine)
    opened = floor.freeze(hit, "podium A")  # the supervisor opens the verification
    assert opened.state == "frozen" and opened.amount_cents == _half(m) == 500_010
    assert opened.level == "MAIN" and opened.meter_before_cents == m // UNITS
    shown = floor.evaluate(hit, RF)
    assert shown.amount_cents == opened.amount_cents and shown.required_role == "executive"
    # frozen: PENDING with the amount on every table of the link; the live meter holds the rest
    lv = _level(floor)
    assert (lv.frozen_cents, lv.frozen_hits) == (500_010, 1)  # type: ignore[attr-defined]
    assert meter_units(engine) == (m - 500_010 * UNITS, r)
    # while the PIN is typed, T2 deals 5 rounds of 4 wagers: the meter moves every round
    _play(t2, range(1, 6))
    assert meter_units(engine)[0] == m - 500_010 * UNITS + 20 * WAGER_TO_METER
    assert floor.evaluate(hit, RF).amount_cents == 500_010  # still the frozen amount
    paid = floor.pay(hit, RF, swipe(EXE), expected_cents=shown.amount_cents)  # first swipe
    assert paid.amount_cents == 500_010
    assert (paid.meter_before_cents, paid.meter_after_cents) == (m // UNITS, m // UNITS - 500_010)
    # the pay wrote no new movement: the freeze's entries are the award's
    assert meter_units(engine) == (m - 500_010 * UNITS + 20 * WAGER_TO_METER,
                                   r + 20 * 2 * UNITS)
    assert _decisions(engine, hit) == ["frozen", "verified", "paid"]
    with Session(engine) as s:
        frozen = s.scalars(select(HitDecision).where(HitDecision.decision == "frozen")).one()
        assert "podium A" in frozen.reason and "5000.10" in frozen.reason
    lv = _level(floor)
    assert (lv.frozen_cents, lv.frozen_hits) == (0, 0)  # type: ignore[attr-defined]
    assert check_balances(engine) == []
    assert verify(engine).ok


def test_an_abandoned_verification_gives_the_frozen_amount_back_to_the_meter(
        floor: Floor, engine: Engine) -> None:
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {3: 100}))
    t1.send(HitClaimed(1, 3, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    m, r = meter_units(engine)
    assert floor.freeze(hit).amount_cents == _half(m)
    _play(t2, range(1, 3))  # 8 wagers while the dialog is open
    closed = floor.unfreeze(hit, "podium A")  # closed without pay or reject
    assert closed.state == "unfrozen" and closed.amount_cents == _half(m)
    # the meter has it all back, with what T2 added meanwhile
    assert meter_units(engine) == (m + 8 * WAGER_TO_METER, r + 8 * 2 * UNITS)
    lv = _level(floor)
    assert (lv.frozen_cents, lv.frozen_hits) == (0, 0)  # type: ignore[attr-defined]
    with Session(engine) as s:
        h = s.get(Hit, hit)
        assert h is not None and h.status == "pending" and h.locked_amount_cents is None
        held = list(s.scalars(select(MeterEntry).where(MeterEntry.hit_id == hit,
                                                       MeterEntry.kind != "reversal")))
        back = list(s.scalars(select(MeterEntry).where(MeterEntry.hit_id == hit,
                                                       MeterEntry.kind == "reversal")))
        reason = s.scalars(select(HitDecision.reason).where(
            HitDecision.decision == "unfrozen")).one()
    assert sorted(e.reverses_id for e in back) == sorted(e.id for e in held)
    assert sum(e.meter_delta for e in held + back) == 0
    assert "verification closed without a decision at podium A" in reason
    assert _decisions(engine, hit) == ["frozen", "unfrozen"]
    assert floor.unfreeze(hit).state == "none"  # closing again changes nothing
    # reopened: frozen again on the meter as it stands now
    again = floor.freeze(hit)
    assert again.amount_cents == _half(m + 8 * WAGER_TO_METER)
    assert floor.pay(hit, RF, swipe(EXE), expected_cents=again.amount_cents).amount_cents \
        == again.amount_cents
    assert _decisions(engine, hit) == ["frozen", "unfrozen", "frozen", "verified", "paid"]
    assert check_balances(engine) == []
    assert verify(engine).ok


def test_a_verification_left_open_keeps_its_freeze_until_reopened(floor: Floor,
                                                                  engine: Engine) -> None:
    """The console died with the dialog open: nothing releases the freeze; the next opening
    finds it (the same amount, nothing written) and its close gives it back."""
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {3: 100}))
    t1.send(HitClaimed(1, 3, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    first = floor.freeze(hit)
    _play(Table(floor, "T2"), range(1, 2))
    reopened = floor.freeze(hit)  # another console, after the crash
    assert (reopened.state, reopened.amount_cents) == ("frozen", first.amount_cents)
    assert _decisions(engine, hit) == ["frozen"]  # nothing new
    assert floor.unfreeze(hit).state == "unfrozen"


def test_two_hits_of_a_round_are_frozen_in_pay_order_whichever_is_opened_first(
        floor: Floor, engine: Engine) -> None:
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {2: 100, 6: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    h2, h6 = hit_ids(engine)
    m, _r = meter_units(engine)
    # seat 2 opened first: seat 6 (the dealer's right) is paid first, so it is fixed first
    two = floor.freeze(h2)
    six = _half(m)
    assert two.amount_cents == _half(m - six * UNITS)
    with Session(engine) as s:
        s6 = s.get(Hit, h6)
        assert s6 is not None and s6.locked_amount_cents == six
    assert floor.freeze(h6).amount_cents == six  # already frozen: the same amount
    _play(t2, range(1, 4))  # the link plays on
    # the amounts are fixed in pay order: seat 2 may be paid first, at its frozen amount
    assert floor.pay(h2, RF, swipe(EXE), expected_cents=two.amount_cents).amount_cents \
        == two.amount_cents
    assert floor.pay(h6, RF, swipe(EXE), expected_cents=six).amount_cents == six
    assert check_balances(engine) == []


def test_a_later_hit_paid_first_fixes_a_frozen_hit_again_and_its_pay_says_why(
        floor: Floor, engine: Engine) -> None:
    """Seat 2 is frozen; then seat 6 of the same round hits (paid first): opening seat 6 gives
    seat 2's freeze back and fixes both in pay order, recorded; a swipe at seat 2's old amount
    is refused naming the re-fix, not a moving meter."""
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {2: 100, 6: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    (h2,) = hit_ids(engine)
    m, _r = meter_units(engine)
    old = floor.freeze(h2).amount_cents
    assert old == _half(m)
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    _, h6 = hit_ids(engine)
    _play(t2, range(1, 3))  # 8 wagers: the live meter is m - old + 8 x 0.20
    six = floor.freeze(h6).amount_cents
    assert six == _half(m + 8 * WAGER_TO_METER)  # seat 2's half back, then seat 6's share
    new = floor.evaluate(h2, RF).amount_cents
    assert new == _half(m + 8 * WAGER_TO_METER - six * UNITS)
    assert _decisions(engine, h2) == ["frozen", "unfrozen", "frozen"]
    with pytest.raises(AmountChanged, match="fixed again in pay order") as refused:
        floor.pay(h2, RF, swipe(EXE), expected_cents=old)
    assert refused.value.amount_cents == new
    assert floor.pay(h2, RF, swipe(EXE), expected_cents=new).amount_cents == new
    # seat 6's freeze can not be given back while seat 2's amount stands on what it left
    assert floor.pay(h6, RF, swipe(EXE), expected_cents=six).amount_cents == six
    assert check_balances(engine) == []
    assert verify(engine).ok


def test_freezes_of_two_tables_on_one_link_are_fixed_each_on_what_the_other_left(
        floor: Floor, engine: Engine) -> None:
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {1: 100}))
    t2.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    t2.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    h1, h2 = hit_ids(engine)
    m, _r = meter_units(engine)
    a = floor.freeze(h2).amount_cents  # T2's opened first: it is first in line
    b = floor.freeze(h1).amount_cents
    assert (a, b) == (_half(m), _half(m - _half(m) * UNITS))
    lv = _level(floor)
    assert (lv.frozen_cents, lv.frozen_hits) == (a + b, 2)  # type: ignore[attr-defined]
    # the first one closed: T1's stands on what it left, so it stays frozen (kept)
    assert floor.unfreeze(h2).state == "kept"
    assert floor.unfreeze(h1).state == "unfrozen"
    assert floor.unfreeze(h2).state == "unfrozen"
    assert meter_units(engine)[0] == m
    assert check_balances(engine) == []


def test_a_supervisor_card_on_an_executive_pay_is_refused_for_its_role(floor: Floor,
                                                                      engine: Engine) -> None:
    """The refusal names the real cause first: the card's authority, not the meter (a hit
    never frozen, whose meter moved, used to be told "the meter moved")."""
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {3: 100}))
    t1.send(HitClaimed(1, 3, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    seen = floor.evaluate(hit, RF).amount_cents
    assert seen is not None and seen >= 500_000  # executive-level
    _play(t2, range(1, 2))
    with pytest.raises(AuthError, match="needs an executive"):
        floor.pay(hit, RF, swipe(SUP), expected_cents=seen)
    frozen = floor.freeze(hit).amount_cents
    _play(t2, range(2, 3))
    with pytest.raises(AuthError, match="needs an executive"):
        floor.pay(hit, RF, swipe(SUP), expected_cents=frozen)
    with pytest.raises(AuthError, match="needs an executive"):  # and for a stale amount too
        floor.pay(hit, RF, swipe(SUP), expected_cents=seen)
    with Session(engine) as s:
        h = s.get(Hit, hit)
        assert h is not None and h.status == "pending"
    assert floor.pay(hit, RF, swipe(EXE), expected_cents=frozen).amount_cents == frozen


def test_a_rejected_frozen_hit_gives_back_and_fixes_its_rounds_later_freezes_again(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {2: 100, 6: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    h2, h6 = hit_ids(engine)
    m, _r = meter_units(engine)
    floor.freeze(h2)  # both, seat 6 first
    floor.reject(h6, "surveillance: seat 6 had no royal match", swipe(EXE))
    # seat 2 is now the round's only hit: half of the whole meter
    assert floor.evaluate(h2, RF).amount_cents == _half(m)
    assert _decisions(engine, h2)[-2:] == ["unfrozen", "frozen"]
    assert floor.pay(h2, RF, swipe(EXE), expected_cents=_half(m)).amount_cents == _half(m)
    assert meter_units(engine)[0] == m - _half(m) * UNITS
    assert check_balances(engine) == []


def test_an_undone_frozen_hit_gives_back_and_fixes_its_rounds_later_freezes_again(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {2: 100, 6: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    h2, h6 = hit_ids(engine)
    m, _r = meter_units(engine)
    floor.freeze(h2)  # both, seat 6 first (it is paid first)
    t1.send(Undone(1, "HIT", 6))  # the dealer takes seat 6's claim back at the table
    # seat 2 is now the round's only hit: half of the whole meter, fixed again
    assert floor.evaluate(h2, RF).amount_cents == _half(m)
    assert _decisions(engine, h2)[-2:] == ["unfrozen", "frozen"]
    assert floor.pay(h2, RF, swipe(EXE), expected_cents=_half(m)).amount_cents == _half(m)
    assert meter_units(engine)[0] == m - _half(m) * UNITS
    assert check_balances(engine) == []
    assert verify(engine).ok


def test_a_misdeal_cancels_a_frozen_hit_and_gives_its_amount_back(floor: Floor,
                                                                 engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {3: 100}))
    t1.send(HitClaimed(1, 3, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    m, _r = meter_units(engine)
    floor.freeze(hit)
    t1.send(Misdealt(1))
    assert meter_units(engine)[0] == m - WAGER_TO_METER  # the freeze and the wager back
    assert floor.unfreeze(hit).state == "cancelled"  # the dialog closes on a decided hit
    assert check_balances(engine) == []


def test_nothing_is_frozen_for_a_tray_pay_or_a_lock_at_hit_group(floor: Floor,
                                                                engine: Engine) -> None:
    t1, l1 = Table(floor, "T1"), Table(floor, "L1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "FOUR_OF_A_KIND"))  # a fixed pay from the tray
    l1.send(GameStarted(1, {1: 100}))
    l1.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))  # locked at the hit
    tray, locked = hit_ids(engine)
    before = meter_units(engine)
    assert floor.freeze(tray).state == "none"
    assert floor.unfreeze(tray).state == "none"
    at_hit = floor.freeze(locked)
    assert at_hit.state == "locked_at_hit" and at_hit.amount_cents is not None
    assert floor.unfreeze(locked).state == "locked_at_hit"  # holds until decided
    assert meter_units(engine) == before
    assert _decisions(engine, tray) == [] and _decisions(engine, locked) == []


def test_a_day_with_freezes_and_releases_reconciles(engine: Engine) -> None:
    from datetime import date

    from core.desks.accounting import periods, reconcile
    from core.desks.desk import Desk
    from tests import accounting_ledger as L

    L.build(engine)
    clock = L.SetClock(L.at(3, 1))
    f = Floor(engine, L.config(), L.PAYTABLES, clock=clock, paper=PAPER)
    for t in ("T1", "T2"):
        f.set_link(t, True)
    from core.controllers.events import Origin

    f.handle(Origin("T1", "boot9", 1), GameStarted(1, {1: 100}))
    f.handle(Origin("T1", "boot9", 2), HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    with engine.connect() as conn:
        hit = int(conn.exec_driver_sql("SELECT max(id) FROM hits").scalar_one())
    f.freeze(hit)
    f.handle(Origin("T2", "boot9", 1), GameStarted(1, {1: 100, 2: 100}))
    clock.now = L.at(3, 2)
    f.unfreeze(hit)
    shown = f.freeze(hit).amount_cents
    f.handle(Origin("T2", "boot9", 2), GameStarted(2, {1: 100}))
    clock.now = L.at(3, 3)
    assert f.pay(hit, L.RF.split(), L.swipe(L.EXE), expected_cents=shown).amount_cents == shown
    desk = Desk("accountant", engine, L.config(), L.PAYTABLES)
    rec = reconcile.reconcile(desk, periods.gaming_day(desk.config.casino, date(2025, 6, 3)))
    assert rec.adds_up, rec.problems
    assert verify(engine).ok


def test_a_void_of_a_frozen_pay_gives_the_meter_back_exactly_what_the_freeze_took(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {3: 100}))
    t1.send(HitClaimed(1, 3, "SF7_NATURAL"))  # 100%: award, reseed and reserve move at freeze
    (hit,) = hit_ids(engine)
    m, r = meter_units(engine)
    floor.freeze(hit)
    floor.unfreeze(hit)  # given back once
    shown = floor.freeze(hit).amount_cents
    paid = floor.pay(hit, HANDS["SF7_NATURAL"].split(), swipe(EXE), expected_cents=shown)
    floor.void_slip(paid.slip_no, "surveillance: cards switched", True, swipe(EXE))
    assert meter_units(engine) == (m, r)
    assert check_balances(engine) == []
    assert verify(engine).ok
