"""Progressive meter arithmetic (RULES.md section 4).  Pure: no I/O, no clock, no database.

A *level* (``MAIN``; or ``MEGA``/``MAJOR``/``MINOR`` on a multi-level link) has a meter and a
reserve, both held in exact units (``core.kernel.money``: 1 unit = 1/1,000,000 cent) so that a
contribution of ``wager x rate`` is exact and nothing is lost to rounding.

Every change is a :class:`Movement`; the floor records each one as a ledger entry, and
``apply`` folds them into a :class:`LevelState`.  The sum of the movements is the meter.

* ``contribute``: a locked wager adds ``wager x contribution_rate`` to the meter and
  ``wager x reserve_rate`` to the reserve, exactly.
* ``award``: a percentage award pays ``meter x fraction`` rounded down to the cent and leaves
  the rest; a 100% award pays the meter rounded down to the cent, the fraction of a cent stays,
  and the meter restarts at seed + reserve + that fraction with the reserve at 0
  (movements ``award``, ``reseed``, ``reserve_move``).
* ``award_fixed``: a fixed pay taken from the meter ("all pays from meter"), never more than
  the meter holds.
* ``reverse``: negates movements (a misdeal, an undone START GAME, a rejected locked hit).
* ``payment_order``: several hits in one round, highest seat (dealer's right) first by default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from core.kernel.money import (
    RATE_DECIMALS,
    UNITS_PER_CENT,
    MoneyError,
    cents_to_units,
    decimal_places,
)

MovementKind = Literal[
    "contribution",
    "reserve_contribution",
    "award",
    "reseed",
    "reserve_move",
    "adjustment",
    "reversal",
]
MOVEMENT_KINDS: tuple[str, ...] = (
    "contribution",
    "reserve_contribution",
    "award",
    "reseed",
    "reserve_move",
    "adjustment",
    "reversal",
)

PayOrder = Literal["right_first", "left_first"]
PAY_ORDERS: tuple[str, ...] = ("right_first", "left_first")

_FULL = Decimal(1)


class MeterError(MoneyError):
    """A meter operation that the rules refuse; the message names the item and the problem."""


def _check_rate(value: Decimal, what: str, *, allow_zero: bool = True) -> None:
    if not isinstance(value, Decimal) or not value.is_finite():
        raise MeterError(f"{what}: {value!r} must be a finite Decimal")
    if value < 0 or value > 1 or (value == 0 and not allow_zero):
        limits = "between 0 and 1" if allow_zero else "above 0 and at most 1"
        raise MeterError(f"{what}: {value} must be {limits}")
    if decimal_places(value) > RATE_DECIMALS:  # not a scaling: a tiny rate underflows to 0
        raise MeterError(f"{what}: {value} has more than {RATE_DECIMALS} decimals")


def _mul_exact(units: int, rate: Decimal, what: str) -> int:
    num, den = rate.as_integer_ratio()
    product, rest = divmod(units * num, den)
    if rest:  # cannot happen for whole cents and <= 6-decimal rates; guard the promise
        raise MeterError(f"{what}: {units} units x {rate} is not exact")
    return product


@dataclass(frozen=True)
class LevelSettings:
    """How one level of a link is configured: seed and the two rates."""

    seed_units: int
    contribution_rate: Decimal
    reserve_rate: Decimal

    def __post_init__(self) -> None:
        if isinstance(self.seed_units, bool) or not isinstance(self.seed_units, int):
            raise MeterError(f"seed: {self.seed_units!r} must be an int of exact units")
        if self.seed_units < 0:
            raise MeterError(f"seed: {self.seed_units} is negative")
        _check_rate(self.contribution_rate, "contribution_rate")
        _check_rate(self.reserve_rate, "reserve_rate")
        if self.contribution_rate + self.reserve_rate > 1:
            raise MeterError(
                f"contribution_rate + reserve_rate: {self.contribution_rate} + "
                f"{self.reserve_rate} is more than the whole wager"
            )


@dataclass(frozen=True)
class LevelState:
    """What a level holds now, in exact units.  Neither can be negative."""

    meter_units: int
    reserve_units: int

    def __post_init__(self) -> None:
        for what, value in (("meter", self.meter_units), ("reserve", self.reserve_units)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise MeterError(f"{what}: {value!r} must be an int of exact units")
            if value < 0:
                raise MeterError(f"{what}: {value} units; a {what} never goes below zero")


@dataclass(frozen=True)
class Movement:
    """One change of a level: what kind and by how much (exact units, signed).

    ``reverses`` is set on a ``reversal`` to the kind it undoes (for the ledger's reader).
    """

    kind: MovementKind
    meter_delta: int
    reserve_delta: int
    reverses: str = ""

    def __post_init__(self) -> None:
        if self.kind not in MOVEMENT_KINDS:
            raise MeterError(f"movement kind: {self.kind!r} is not one of {MOVEMENT_KINDS}")


def contribute(settings: LevelSettings, wager_cents: int) -> list[Movement]:
    """A locked wager's share to the meter and to the reserve, exactly (no rounding)."""
    if isinstance(wager_cents, bool) or not isinstance(wager_cents, int):
        raise MeterError(f"wager: {wager_cents!r} must be an int of cents")
    if wager_cents <= 0:
        raise MeterError(f"wager: {wager_cents} cents; a wager must be positive")
    units = cents_to_units(wager_cents)
    return [
        Movement("contribution", _mul_exact(units, settings.contribution_rate, "contribution"), 0),
        Movement("reserve_contribution", 0, _mul_exact(units, settings.reserve_rate, "reserve")),
    ]


def award(
    state: LevelState, settings: LevelSettings, fraction: Decimal
) -> tuple[int, list[Movement]]:
    """Pay ``fraction`` of the meter: ``(cents paid, movements)``.

    Below 100%: floor-to-cent of ``meter x fraction``, the rest stays.  At 100%: the meter
    rounded down to the cent; the meter restarts at seed + reserve + the leftover fraction of
    a cent, and the reserve goes to 0.
    """
    _check_rate(fraction, "award fraction", allow_zero=False)
    num, den = fraction.as_integer_ratio()
    paid_cents = (state.meter_units * num) // (den * UNITS_PER_CENT)
    moves = [Movement("award", -cents_to_units(paid_cents), 0)]
    if fraction == _FULL:
        moves.append(Movement("reseed", settings.seed_units, 0))
        moves.append(Movement("reserve_move", state.reserve_units, -state.reserve_units))
    return paid_cents, moves


def award_fixed(state: LevelState, amount_cents: int) -> tuple[int, list[Movement]]:
    """A fixed pay taken from the meter (a group configured "all pays from meter").

    Returns the cents taken from the meter: the amount, or the whole cents the meter holds if
    it holds less (the meter never goes below zero; the caller pays any shortfall from the
    tray).  No reseed: the meter keeps the rest.
    """
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents < 0:
        raise MeterError(f"fixed award: {amount_cents!r} must be a non-negative int of cents")
    paid = min(amount_cents, state.meter_units // UNITS_PER_CENT)
    return paid, [Movement("award", -cents_to_units(paid), 0)]


def apply(state: LevelState, movements: Iterable[Movement]) -> LevelState:
    """Fold movements into a state; refuses a result with a negative meter or reserve."""
    meter = state.meter_units
    reserve = state.reserve_units
    for m in movements:
        meter += m.meter_delta
        reserve += m.reserve_delta
    if meter < 0:
        raise MeterError(f"meter: the movements would take it to {meter} units, below zero")
    if reserve < 0:
        raise MeterError(f"reserve: the movements would take it to {reserve} units, below zero")
    return LevelState(meter, reserve)


def reverse(movements: Sequence[Movement]) -> list[Movement]:
    """Reversal entries that undo ``movements`` (last first), each negated."""
    return [
        Movement("reversal", -m.meter_delta, -m.reserve_delta, reverses=m.kind)
        for m in reversed(movements)
    ]


def adjustment(meter_delta: int, reserve_delta: int = 0) -> Movement:
    """A manual adjustment (who, why and the second person are the ledger's to record)."""
    for what, value in (("meter_delta", meter_delta), ("reserve_delta", reserve_delta)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise MeterError(f"adjustment {what}: {value!r} must be an int of exact units")
    if meter_delta == 0 and reserve_delta == 0:
        raise MeterError("adjustment: both deltas are zero; nothing to adjust")
    return Movement("adjustment", meter_delta, reserve_delta)


def payment_order(seats: Iterable[int], order: str = "right_first") -> list[int]:
    """The seats with a hit, in the order they are paid.

    Seats are numbered from 1 at the dealer's far left; ``right_first`` (the default) pays the
    highest seat first, ``left_first`` the lowest (a casino's internal controls may say so).
    """
    if order not in PAY_ORDERS:
        raise MeterError(f"pay order: {order!r} is not one of {', '.join(PAY_ORDERS)}")
    seen: set[int] = set()
    for s in seats:
        if isinstance(s, bool) or not isinstance(s, int) or s < 1:
            raise MeterError(f"seat: {s!r} is not a seat number (1 or more)")
        if s in seen:
            raise MeterError(f"seat {s}: listed twice; a seat has one hit per round")
        seen.add(s)
    return sorted(seen, reverse=(order == "right_first"))
