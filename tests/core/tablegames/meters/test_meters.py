"""RULES.md section 4: progressive meter arithmetic (core/tablegames/meters/arithmetic.py)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.kernel.money import UNITS_PER_CENT, cents_to_units
from core.tablegames.meters.arithmetic import (
    LevelSettings,
    LevelState,
    MeterError,
    Movement,
    adjustment,
    apply,
    award,
    award_fixed,
    contribute,
    payment_order,
    reverse,
)

# Rates as the rules allow them: 0..1 with at most six decimals.
rates = st.integers(min_value=0, max_value=1_000_000).map(lambda n: Decimal(n).scaleb(-6))
fractions = st.integers(min_value=1, max_value=1_000_000).map(lambda n: Decimal(n).scaleb(-6))
units = st.integers(min_value=0, max_value=10**17)
wagers = st.integers(min_value=1, max_value=100_000)


def settings(seed_cents: int = 1_000_000, c: str = "0.20", r: str = "0.02") -> LevelSettings:
    return LevelSettings(cents_to_units(seed_cents), Decimal(c), Decimal(r))


# --- contributions: exact, nothing lost to rounding -------------------------------------------

@given(wager=wagers, c=rates, r=rates)
def test_contribution_is_wager_times_rate_exactly(wager: int, c: Decimal, r: Decimal) -> None:
    if c + r > 1:
        return
    moves = contribute(LevelSettings(0, c, r), wager)
    meter = sum(m.meter_delta for m in moves)
    reserve = sum(m.reserve_delta for m in moves)
    # Fraction arithmetic in cents, independent of the unit scale.
    assert Fraction(meter, UNITS_PER_CENT) == wager * Fraction(c)
    assert Fraction(reserve, UNITS_PER_CENT) == wager * Fraction(r)
    assert [m.kind for m in moves] == ["contribution", "reserve_contribution"]


def test_contribution_keeps_the_fraction_of_a_cent() -> None:
    # 1.00 x 0.123457 = 12.3457 cents: the meter keeps the 0.3457 cent, not 12 cents.
    s = LevelSettings(0, Decimal("0.123457"), Decimal(0))
    state = LevelState(0, 0)
    for _ in range(1000):
        state = apply(state, contribute(s, 100))
    assert state.meter_units == 12_345_700 * 1000  # 1000 x 12.3457 cents, exactly
    assert state.meter_units // UNITS_PER_CENT == 12_345  # shown: 123.45


def test_contribution_refuses_a_non_positive_wager() -> None:
    with pytest.raises(MeterError, match="wager"):
        contribute(settings(), 0)
    with pytest.raises(MeterError, match="wager"):
        contribute(settings(), -100)


@pytest.mark.parametrize(
    ("c", "r", "field"),
    [("0.1234567", "0", "contribution_rate"), ("-0.01", "0", "contribution_rate"),
     ("1.5", "0", "contribution_rate"), ("0.2", "0.0000001", "reserve_rate"),
     ("0.9", "0.2", "contribution_rate \\+ reserve_rate")],
)
def test_settings_refuse_malformed_rates(c: str, r: str, field: str) -> None:
    with pytest.raises(MeterError, match=field):
        LevelSettings(0, Decimal(c), Decimal(r))


def test_settings_refuse_negative_seed_and_state_refuses_negative_meter() -> None:
    with pytest.raises(MeterError, match="seed"):
        LevelSettings(-1, Decimal("0.2"), Decimal(0))
    with pytest.raises(MeterError, match="meter"):
        LevelState(-1, 0)
    with pytest.raises(MeterError, match="reserve"):
        LevelState(0, -1)


# --- awards ----------------------------------------------------------------------------------

@given(meter=units, reserve=units, frac=fractions)
def test_percentage_award_pays_floor_to_cent_and_leaves_the_rest(
    meter: int, reserve: int, frac: Decimal
) -> None:
    if frac == 1:
        return
    state = LevelState(meter, reserve)
    paid, moves = award(state, settings(), frac)
    exact_cents = Fraction(meter, UNITS_PER_CENT) * Fraction(frac)
    assert paid == int(exact_cents)  # floor for a non-negative amount
    after = apply(state, moves)
    assert after.meter_units == meter - paid * UNITS_PER_CENT
    assert after.meter_units >= 0
    assert after.reserve_units == reserve  # a percentage award leaves the reserve alone
    assert [m.kind for m in moves] == ["award"]


@given(meter=units, reserve=units, seed_cents=st.integers(min_value=0, max_value=10**9))
def test_full_award_pays_whole_cents_and_reseeds_with_reserve_and_leftover(
    meter: int, reserve: int, seed_cents: int
) -> None:
    state = LevelState(meter, reserve)
    s = settings(seed_cents)
    paid, moves = award(state, s, Decimal(1))
    assert paid == meter // UNITS_PER_CENT
    after = apply(state, moves)
    leftover = meter - paid * UNITS_PER_CENT
    assert 0 <= leftover < UNITS_PER_CENT
    assert after.meter_units == s.seed_units + reserve + leftover
    assert after.reserve_units == 0
    assert [m.kind for m in moves] == ["award", "reseed", "reserve_move"]
    # Nothing appears or disappears: before + seed == after + paid.
    assert meter + reserve + s.seed_units == (
        after.meter_units + after.reserve_units + paid * UNITS_PER_CENT
    )


def test_cli_worked_example_two_hits_in_one_round() -> None:
    # CLI.md: meter 12,345.67 + three $1 wagers at 20% -> 12,346.27; reserve 250.06.
    s = settings(1_000_000, "0.20", "0.02")
    state = LevelState(cents_to_units(1_234_567), cents_to_units(25_000))
    for _ in range(3):
        state = apply(state, contribute(s, 100))
    assert state == LevelState(cents_to_units(1_234_627), cents_to_units(25_006))
    first, second = payment_order([2, 6])
    assert (first, second) == (6, 2)
    paid6, moves = award(state, s, Decimal("0.5"))
    state = apply(state, moves)
    paid2, moves = award(state, s, Decimal(1))
    state = apply(state, moves)
    assert (paid6, paid2) == (617_313, 617_314)
    assert state == LevelState(cents_to_units(1_025_006), 0)


def test_second_percentage_hit_uses_what_the_reseed_left() -> None:
    # 100% first, then 50%: the 50% is of seed + reserve + leftover, not of the old meter.
    s = settings(100_000, "0.2", "0.01")  # seed 1,000.00
    state = LevelState(cents_to_units(500_000) + 400_000, cents_to_units(3_000))  # 5000.004
    paid, moves = award(state, s, Decimal(1))
    state = apply(state, moves)
    assert paid == 500_000
    assert state.meter_units == cents_to_units(103_000) + 400_000  # 1030.00 + 0.4 cent
    paid, _ = award(state, s, Decimal("0.5"))
    assert paid == 51_500  # 515.002 cents -> 515.00


def test_award_refuses_fraction_outside_zero_to_one() -> None:
    for bad in ("0", "1.01", "-0.5", "0.0000001"):
        with pytest.raises(MeterError, match="award fraction"):
            award(LevelState(100, 0), settings(), Decimal(bad))


def test_award_on_an_empty_meter_pays_nothing_and_never_goes_negative() -> None:
    state = LevelState(999_999, 0)  # less than a cent
    paid, moves = award(state, settings(0), Decimal("0.25"))
    assert paid == 0
    assert apply(state, moves).meter_units == 999_999


@given(meter=units, amount=st.integers(min_value=0, max_value=10**12))
def test_fixed_award_from_meter_never_takes_the_meter_below_zero(meter: int, amount: int) -> None:
    state = LevelState(meter, 0)
    paid, moves = award_fixed(state, amount)
    assert paid == min(amount, meter // UNITS_PER_CENT)
    assert apply(state, moves).meter_units == meter - paid * UNITS_PER_CENT


# --- reversal, adjustment, ledger sums ---------------------------------------------------------

@given(meter=units, reserve=units, wager=wagers, frac=fractions)
def test_reversal_restores_the_state_exactly(
    meter: int, reserve: int, wager: int, frac: Decimal
) -> None:
    s = settings(123_456)
    state = LevelState(meter, reserve)
    moves = contribute(s, wager)
    mid = apply(state, moves)
    _, award_moves = award(mid, s, frac)
    moves += award_moves
    after = apply(state, moves)
    undo = reverse(moves)
    assert all(m.kind == "reversal" for m in undo)
    assert [m.reverses for m in undo] == [m.kind for m in reversed(moves)]
    assert apply(after, undo) == state


def test_sum_of_movements_equals_the_meter() -> None:
    s = settings(1_000_000, "0.2", "0.02")
    ledger: list[Movement] = [Movement("reseed", s.seed_units, 0)]
    state = apply(LevelState(0, 0), ledger)
    for round_no in range(50):
        moves = contribute(s, 100)
        state = apply(state, moves)
        ledger += moves
        if round_no in (10, 30):
            _, moves = award(state, s, Decimal("0.25") if round_no == 10 else Decimal(1))
            state = apply(state, moves)
            ledger += moves
    assert sum(m.meter_delta for m in ledger) == state.meter_units
    assert sum(m.reserve_delta for m in ledger) == state.reserve_units


def test_adjustment_is_a_signed_movement_and_cannot_take_the_meter_negative() -> None:
    m = adjustment(-cents_to_units(500), cents_to_units(500))
    assert (m.kind, m.meter_delta, m.reserve_delta) == ("adjustment", -500_000_000, 500_000_000)
    assert apply(LevelState(cents_to_units(600), 0), [m]) == LevelState(
        cents_to_units(100), cents_to_units(500)
    )
    with pytest.raises(MeterError, match="meter"):
        apply(LevelState(cents_to_units(400), 0), [m])
    with pytest.raises(MeterError, match="adjustment"):
        adjustment(0, 0)


def test_movement_refuses_unknown_kind() -> None:
    with pytest.raises(MeterError, match="kind"):
        Movement("bonus", 1, 0)  # type: ignore[arg-type]


# --- payment order ---------------------------------------------------------------------------

@given(st.sets(st.integers(min_value=1, max_value=9)))
def test_payment_order_pays_dealer_right_first_by_default(seats: set[int]) -> None:
    order = payment_order(list(seats))
    assert order == sorted(seats, reverse=True)
    assert payment_order(list(seats), "left_first") == sorted(seats)


def test_payment_order_refuses_unknown_order_and_duplicate_seats() -> None:
    with pytest.raises(MeterError, match="pay order"):
        payment_order([1, 2], "clockwise")
    with pytest.raises(MeterError, match="seat 3"):
        payment_order([3, 3])
    with pytest.raises(MeterError, match="seat"):
        payment_order([0])
