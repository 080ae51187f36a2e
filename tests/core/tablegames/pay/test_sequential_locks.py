"""Amounts fixed before the pay always equal a sequential pay order (issue 27 point 6), at the hit
and at verification, on SQLite and PostgreSQL.

RULES.md 4 ("LOCK AT VERIFICATION"): "several frozen hits of one link are fixed in the order of
this section (seat order within a round, each on what the previous left), so the amounts always
equal some sequential pay order; an amount shown to a table never changes without a new PENDING
and a record."  WSGC (source 000): "In the event more than one progressive meter pay hits during
the same round, the dealer will first pay the player farthest on the right and then move
counter-clockwise to pay other players."

The issue's case: meter 10,000.60; table 1 seat 2 hits a royal match (50%) and is fixed at
5,000.30; table 2 seat 1 hits one and is fixed at 2,500.15 (on what table 1 left); then table 1
seat 6 hits one.  Main re-fixed only table 1's round: seat 6 3,750.22 and seat 2 1,875.11 while
table 2 kept 2,500.15, which no sequential pay order gives.  Worked out by hand, the order is
table 1's round first (it was fixed first), seat 6 before seat 2, then table 2:
    seat 6: 50% of 10,000.60 = 5,000.30, leaving 5,000.30
    seat 2: 50% of  5,000.30 = 2,500.15, leaving 2,500.15
    table 2: 50% of 2,500.15 = 1,250.075, rounded down 1,250.07, leaving 1,250.08
Every amount that changes is recorded (a ``refixed`` decision at the hit; ``unfrozen`` and
``frozen`` at verification) and the level's PENDING changes with it.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.controllers.events import GameStarted, HitClaimed, Misdealt
from core.ledger.audit import verify
from core.ledger.balance_checks import check_balances
from core.ledger.models import Hit, HitDecision
from core.tablegames.floor import Floor
from tests.core.tablegames.test_floor import EXE, HANDS, SUP, UNITS, Table, meter_units, swipe
from tests.core.tablegames.test_floor import floor as floor  # noqa: F401  (the fixture)

RF = HANDS["RF_ROYAL_MATCH"].split()  # 50% of the meter
METER = 1_000_060  # 10,000.60
SIX, TWO, OTHER = 500_030, 250_015, 125_007  # worked out in the module's docstring


def _bring_meter(floor: Floor, engine: Engine, group: str, cents: int) -> None:
    m, _r = meter_units(engine, group)
    if m != cents * UNITS:
        floor.adjust(group, "MAIN", cents - m // UNITS, "the test's meter", swipe(EXE),
                     swipe(SUP))
    assert meter_units(engine, group)[0] == cents * UNITS


def _hit(engine: Engine, table: str, seat: int) -> Hit:
    with Session(engine) as s:
        return s.scalars(select(Hit).where(Hit.table_id == table, Hit.seat == seat)).one()


def _amounts(engine: Engine, *where: tuple[str, int]) -> list[int | None]:
    return [_hit(engine, t, seat).locked_amount_cents for t, seat in where]


def _decisions(engine: Engine, hit_id: int) -> list[tuple[str, str]]:
    with Session(engine) as s:
        return [(d.decision, d.reason) for d in s.scalars(
            select(HitDecision).where(HitDecision.hit_id == hit_id).order_by(HitDecision.id))]


def _pending(floor: Floor, group: str) -> tuple[int, int]:
    lv = next(lv for lv in floor.snapshot().levels if lv.group == group)
    return lv.frozen_cents, lv.frozen_hits


def test_lock_at_hit_a_later_seat_of_an_earlier_round_refixes_the_link_in_pay_order(
        floor: Floor, engine: Engine) -> None:
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {2: 100, 6: 100}))
    l2.send(GameStarted(1, {1: 100}))
    _bring_meter(floor, engine, "LOCK", METER)
    l1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    l2.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    assert _amounts(engine, ("L1", 2), ("L2", 1)) == [500_030, 250_015]  # as the issue says
    assert _pending(floor, "LOCK") == (750_045, 2)
    l1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    assert _amounts(engine, ("L1", 6), ("L1", 2), ("L2", 1)) == [SIX, TWO, OTHER]
    # a new PENDING for the link, and a record for every amount shown before and changed
    assert _pending(floor, "LOCK") == (SIX + TWO + OTHER, 3)
    two, other, six = (_hit(engine, "L1", 2).id, _hit(engine, "L2", 1).id,
                       _hit(engine, "L1", 6).id)
    assert [d for d, _ in _decisions(engine, two)] == ["refixed"]
    assert "2500.15" in _decisions(engine, two)[0][1] and "was 5000.30" in \
        _decisions(engine, two)[0][1]
    assert [d for d, _ in _decisions(engine, other)] == ["refixed"]
    assert "1250.07" in _decisions(engine, other)[0][1] and "was 2500.15" in \
        _decisions(engine, other)[0][1]
    assert _decisions(engine, six) == []  # shown for the first time
    for hit, cents in ((six, SIX), (two, TWO), (other, OTHER)):
        assert floor.pay(hit, RF, swipe(EXE), expected_cents=cents).amount_cents == cents
    assert meter_units(engine, "LOCK")[0] == (METER - SIX - TWO - OTHER) * UNITS == 125_008 * UNITS
    assert check_balances(engine) == []
    assert verify(engine).ok


def test_at_verification_the_same_hits_are_fixed_in_the_same_sequential_order(
        floor: Floor, engine: Engine) -> None:
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {2: 100, 6: 100}))
    t2.send(GameStarted(1, {1: 100}))
    _bring_meter(floor, engine, "LINK", METER)
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    two = _hit(engine, "T1", 2).id
    assert floor.freeze(two).amount_cents == 500_030
    t2.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    other = _hit(engine, "T2", 1).id
    assert floor.freeze(other).amount_cents == 250_015
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    six = _hit(engine, "T1", 6).id
    assert floor.freeze(six).amount_cents == SIX
    assert _amounts(engine, ("T1", 6), ("T1", 2), ("T2", 1)) == [SIX, TWO, OTHER]
    assert _pending(floor, "LINK") == (SIX + TWO + OTHER, 3)
    assert [d for d, _ in _decisions(engine, other)] == ["frozen", "unfrozen", "frozen"]
    assert "1250.07" in _decisions(engine, other)[-1][1]
    for hit, cents in ((six, SIX), (two, TWO), (other, OTHER)):
        assert floor.pay(hit, RF, swipe(EXE), expected_cents=cents).amount_cents == cents
    assert check_balances(engine) == []


@pytest.mark.parametrize("how", ["reject", "misdeal"])
def test_a_lock_given_back_refixes_the_other_tables_locks_fixed_on_what_it_left(
        floor: Floor, engine: Engine, how: str) -> None:
    """Table 2's 2,500.15 was half of what table 1's 5,000.30 left.  With table 1's hit gone,
    table 2's hit is the link's only one: 50% of 10,000.60 = 5,000.30."""
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {2: 100}))
    l2.send(GameStarted(1, {1: 100}))
    _bring_meter(floor, engine, "LOCK", METER)
    l1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    l2.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    gone, other = _hit(engine, "L1", 2).id, _hit(engine, "L2", 1).id
    if how == "reject":
        floor.reject(gone, "surveillance: no royal match", swipe(EXE))
    else:
        assert l1.send(Misdealt(1))
    assert _amounts(engine, ("L2", 1)) == [500_030]
    assert [d for d, _ in _decisions(engine, other)] == ["refixed"]
    assert "was 2500.15" in _decisions(engine, other)[0][1]
    assert _pending(floor, "LOCK") == (500_030, 1)
    assert floor.pay(other, RF, swipe(EXE), expected_cents=500_030).amount_cents == 500_030
    assert check_balances(engine) == []


def test_an_amount_already_paid_is_never_moved_a_later_seat_is_fixed_after_it(
        floor: Floor, engine: Engine) -> None:
    """Table 2 was paid 2,500.15 on what table 1 seat 2's 5,000.30 left: seat 2 can no longer
    be fixed again, so seat 6 is fixed after the pay: 50% of 2,500.15 = 1,250.07 (the order
    seat 2, table 2, seat 6 is sequential)."""
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {2: 100, 6: 100}))
    l2.send(GameStarted(1, {1: 100}))
    _bring_meter(floor, engine, "LOCK", METER)
    l1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    l2.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    other = _hit(engine, "L2", 1).id
    assert floor.pay(other, RF, swipe(EXE), expected_cents=250_015).amount_cents == 250_015
    l1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    assert _amounts(engine, ("L1", 2), ("L1", 6)) == [500_030, 125_007]
    assert _decisions(engine, _hit(engine, "L1", 2).id) == []
    assert check_balances(engine) == []
