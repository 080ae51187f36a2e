"""A paytable's exact return and house edge (``podium rules edge``: core/cli/edge_command.py).

The hand counts are exact (:func:`core.tablegames.rules.enumerate.count_hands`, every one of the
C(53,7) hands); everything here is exact rational arithmetic (``fractions.Fraction``)
turned into decimal strings only for printing.  The meaning of every figure, the envy
interpretation and the meter arithmetic are in ``docs/edge.md``.

Bonus table ("to 1", RULES.md 2), per unit wagered, by the best hand (``classify``):
a listed hand returns odds + 1, three pair returns 1 when it pushes, anything else 0.
``house_edge = 1 - return``.  Envy: each of the N other players' hands is a uniformly
random 7 of the same 53 cards, so (linearity of expectation) the envy expected per hand
is N x sum P(hand) x envy(hand); ``house_edge_with_envy`` subtracts it per unit of the
Fortune wager the envy amounts are quoted for ($5 by default).

Progressive table ("for 1", RULES.md 3), per unit wagered, by the best LISTED hand
(``Paytable.paying``): a fixed pay returns its amount / wager; a meter pay returns its
share of the meter, rounded down to the cent as it is paid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import TYPE_CHECKING

from core.kernel.money import json_cents
from core.tablegames.rules.paytables import ENVY_WAGER_CENTS, Paytable

if TYPE_CHECKING:
    from core.tablegames.rules.enumerate import HandCounts

MAX_METER_POINTS = 100  # --meter values in one run
MAX_OTHERS = 5  # the most other players a pai gow table seats (RULES.md 2)
ENVY_SCALES = ("fixed", "proportional")
NO_PAY = "NONE"  # pay_counts key of the hands a progressive table does not pay
SIGNIFICANT = 12  # digits of every fraction printed


class EdgeError(ValueError):
    """Bad input to ``podium rules edge``; the message names the option and the problem."""


# ------------------------------------------------------------------------------------------
# Bonus tables


@dataclass(frozen=True)
class BonusEdge:
    table: Paytable
    counts: HandCounts
    best: dict[str, int]  # best hand id -> hands
    ret: Fraction  # returned per unit wagered, no envy
    envy_per_other: Fraction  # expected envy won per other player, per unit of the wager
    others: int
    wager_cents: int
    envy_scale: str

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.ret

    @property
    def return_with_envy(self) -> Fraction:
        return self.ret + self.others * self.envy_per_other

    @property
    def house_edge_with_envy(self) -> Fraction:
        return 1 - self.return_with_envy


def bonus_edge(table: Paytable, counts: HandCounts, *, others: int = MAX_OTHERS,
               wager_cents: int = ENVY_WAGER_CENTS, envy_scale: str = "fixed") -> BonusEdge:
    """Return and house edge of a bonus table, without and with envy (docs/edge.md)."""
    if table.kind != "bonus":
        raise EdgeError(f"paytable: {table.id} is a {table.kind} paytable, not a bonus one")
    check_others(others)
    if envy_scale not in ENVY_SCALES:
        raise EdgeError(f"--envy-scale: {envy_scale!r} is not one of {', '.join(ENVY_SCALES)}")
    if wager_cents <= 0:
        raise EdgeError(f"--wager: {json_cents(wager_cents)} must be above 0")
    if envy_scale == "fixed" and wager_cents < ENVY_WAGER_CENTS:
        raise EdgeError(f"--wager: {json_cents(wager_cents)} is below the "
                        f"{json_cents(ENVY_WAGER_CENTS)} Fortune wager that qualifies for envy")
    best = counts.best()
    total = counts.total
    returned = 0  # in "hands x units": sum of count x (odds + 1)
    for pay in table.pays:
        returned += best[pay.hand] * ((pay.odds or 0) + 1)
    if table.three_pair == "push":
        returned += best["THREE_PAIR"]
    envy_cents = sum(best[p.hand] * (p.envy_cents or 0) for p in table.pays)
    # envy amounts are per $5 wager: fixed for any qualifying wager, or scaled with it
    scale = Fraction(1) if envy_scale == "fixed" else Fraction(wager_cents, ENVY_WAGER_CENTS)
    envy_per_other = Fraction(envy_cents, total) * scale / wager_cents
    return BonusEdge(table=table, counts=counts, best=best, ret=Fraction(returned, total),
                     envy_per_other=envy_per_other, others=others, wager_cents=wager_cents,
                     envy_scale=envy_scale)


def check_others(others: int) -> None:
    if not 0 <= others <= MAX_OTHERS:
        raise EdgeError(f"--others: {others} must be 0 to {MAX_OTHERS} (other players at "
                        "the table)")


# ------------------------------------------------------------------------------------------
# Progressive tables


@dataclass(frozen=True)
class MeterPoint:
    meters_cents: dict[str, int]  # level -> meter value
    ret: Fraction

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.ret


@dataclass(frozen=True)
class LevelGrowth:
    level: str
    contribution_rate: Decimal
    reserve_rate: Decimal
    hit_probability: Fraction  # a wager wins a pay from this level
    wager_cents: int

    @property
    def growth_per_wager(self) -> Decimal:
        """Dollars every wager adds to the meter (exact)."""
        return self.contribution_rate * self.wager_cents / 100

    @property
    def reserve_per_wager(self) -> Decimal:
        return self.reserve_rate * self.wager_cents / 100

    @property
    def wagers_per_hit(self) -> Fraction:
        return 1 / self.hit_probability

    @property
    def rise_per_hit(self) -> Fraction:
        """Expected dollars the meter climbs from one hit of this level to the next."""
        return Fraction(self.growth_per_wager) * self.wagers_per_hit


@dataclass(frozen=True)
class ProgressiveEdge:
    table: Paytable
    counts: HandCounts
    best: dict[str, int]
    pay_counts: dict[str | None, int]  # best listed hand -> hands (None: no pay)
    return_fixed: Fraction  # fixed pays, per unit wagered
    per_meter: dict[str, Fraction]  # level -> return per dollar of meter (unrounded)
    points: tuple[MeterPoint, ...]
    break_even_cents: int | None  # single-level tables: smallest meter returning >= 100%
    growth: tuple[LevelGrowth, ...]
    others: int


def progressive_edge(table: Paytable, counts: HandCounts, *,
                     meters: Sequence[Mapping[str, int]] = (),
                     contribution_rates: Mapping[str, Decimal] | None = None,
                     reserve_rates: Mapping[str, Decimal] | None = None,
                     others: int = MAX_OTHERS) -> ProgressiveEdge:
    """Return of a progressive table at meter values (cents per level) and the rest of
    docs/edge.md.  ``meters``: one mapping level -> cents per point asked for."""
    if table.kind != "progressive" or table.wager_cents is None:
        raise EdgeError(f"paytable: {table.id} is a {table.kind} paytable, not a progressive one")
    check_others(others)
    wager = table.wager_cents
    total = counts.total
    pay_counts = counts.best_listed(p.hand for p in table.pays)
    fixed = 0  # hands x cents
    per_meter: dict[str, Fraction] = dict.fromkeys(table.levels, Fraction(0))
    for pay in table.pays:
        n = pay_counts[pay.hand]
        if pay.fraction is None:
            fixed += n * table.fixed_cents(pay)
        else:
            assert pay.level is not None
            per_meter[pay.level] += Fraction(n, total) * Fraction(pay.fraction) * 100 / wager
    return_fixed = Fraction(fixed, total * wager)

    def return_at(values: Mapping[str, int]) -> Fraction:
        paid = fixed
        for pay in table.pays:
            if pay.fraction is not None:
                assert pay.level is not None
                num, den = pay.fraction.as_integer_ratio()
                paid += pay_counts[pay.hand] * (values[pay.level] * num // den)  # rounded down
        return Fraction(paid, total * wager)

    for point in meters:
        if set(point) != set(table.levels):
            raise EdgeError(f"--meter: {table.id} needs a value for each level "
                            f"({', '.join(table.levels)})")
    points = tuple(MeterPoint(dict(p), return_at(p)) for p in meters)

    break_even: int | None = None
    if len(table.levels) == 1:
        (level,) = table.levels
        if return_fixed >= 1:
            break_even = 0
        else:
            # continuous solution, then up cent by cent past the rounding of each pay
            slope = per_meter[level] / 100  # per cent of meter
            cents = max(0, _ceil((1 - return_fixed) / slope))
            while return_at({level: cents}) < 1:
                cents += 1
            break_even = cents

    growth: list[LevelGrowth] = []
    if contribution_rates is not None or reserve_rates is not None:
        for level in table.levels:
            hits = sum(pay_counts[p.hand] for p in table.pays if p.level == level)
            growth.append(LevelGrowth(
                level=level,
                contribution_rate=(contribution_rates or {}).get(level, Decimal(0)),
                reserve_rate=(reserve_rates or {}).get(level, Decimal(0)),
                hit_probability=Fraction(hits, total), wager_cents=wager))
    return ProgressiveEdge(table=table, counts=counts, best=counts.best(),
                           pay_counts=pay_counts, return_fixed=return_fixed,
                           per_meter=per_meter, points=points, break_even_cents=break_even,
                           growth=tuple(growth), others=others)


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


# ------------------------------------------------------------------------------------------
# Text


def fraction_text(value: Fraction, digits: int = SIGNIFICANT) -> str:
    """A decimal string with ``digits`` significant digits, never in exponent form."""
    if value == 0:
        return "0"
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_HALF_EVEN
        d = Decimal(value.numerator) / Decimal(value.denominator)
    return format(d, "f")


def percent_text(value: Fraction) -> str:
    return f"{fraction_text(value * 100, 8)}%"


def money_text(value: Fraction | Decimal) -> str:
    """Dollars to the cent (an expected amount: to the nearest cent)."""
    cents = Fraction(value) * 100 + Fraction(1, 2)  # to the nearest cent, half up
    return json_cents(cents.numerator // cents.denominator)


def decimal_text(value: Decimal) -> str:
    """An exact decimal with at least two decimals (``"0.20"``, ``"0.155"``)."""
    two = value.quantize(Decimal("0.01"))
    return str(two) if two == value else format(value.normalize(), "f")
