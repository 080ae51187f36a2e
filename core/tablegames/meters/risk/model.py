"""Meter risk, the model: what is simulated (the levels' plans, the pays that move a meter)
and what a run gives (:class:`MeterRisk`).  No I/O, no Qt; the simulation is
:mod:`core.tablegames.meters.risk.simulation` (docs/edge.md, "Meter risk").

Model.  Each round has ``seats`` progressive wagers (the table's wager, RULES.md 3); each
wager's best LISTED hand is drawn i.i.d. from the exact probabilities of
:func:`core.tablegames.rules.edge.progressive_edge` (``pay_counts`` over all C(53,7) hands).
Every wager of a round contributes to every level at that level's rates before any pay of
the round (RULES.md 4); the pays of a round are paid highest seat first, each on what the
previous pay left.  The meter arithmetic is that of :mod:`core.tablegames.meters.arithmetic`,
in exact units:

* a percentage pay takes ``meter x fraction`` rounded down to the cent; a 100% pay reseeds
  at seed + reserve (the fraction of a cent stays) and empties the reserve;
* with ``all_pays_from_meter`` every fixed pay is taken from the first level (as the floor
  does, ``core.floor``): ``meters.award_fixed``, never more than the whole cents the meter
  holds.  A pay larger than that is the meter RUNNING DRY: the rest (the shortfall) comes
  from the tray, and the meter keeps its fraction of a cent and refills from contributions
  (``on_dry="stay"``, what the console does) or restarts at seed + reserve like after a
  100% award (``on_dry="reseed"``, a casino that reseeds a dry meter at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from core.kernel.money import UNITS_PER_CENT, cents_to_units
from core.tablegames.meters.arithmetic import LevelSettings, MeterError
from core.tablegames.rules.edge import LevelGrowth, progressive_edge
from core.tablegames.rules.paytables import Paytable

if TYPE_CHECKING:
    from core.tablegames.rules.enumerate import HandCounts

I64 = npt.NDArray[np.int64]
OnDry = Literal["stay", "reseed"]
ON_DRY: tuple[str, ...] = ("stay", "reseed")
MAX_SEATS = 1000
MAX_BINS = 1000
UPC = UNITS_PER_CENT


class MeterRiskError(ValueError):
    """Bad input to the simulator; the message names the option and the problem."""


# ------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class LevelPlan:
    """One level: its settings (seed and rates, checked by ``core.tablegames.meters.arithmetic``)
    and the meter it starts at (a freshly seeded meter: the seed).  The reserve starts empty."""

    name: str
    settings: LevelSettings
    start_units: int


@dataclass(frozen=True)
class PayEvent:
    """A listed pay that touches a meter: a percentage of ``level``, or (every pay from
    the meter) a fixed amount taken from ``level``."""

    hand: str
    level: str
    hands: int  # hands (of all C(53,7)) whose best listed pay this is
    probability: Fraction  # per wager, exact
    fraction: Decimal | None  # a percentage pay
    amount_cents: int | None  # a fixed pay from the meter

    @property
    def source(self) -> Literal["meter", "fixed"]:
        return "meter" if self.fraction is not None else "fixed"


def pay_events(table: Paytable, counts: HandCounts,
               all_pays_from_meter: bool = False) -> tuple[PayEvent, ...]:
    """The pays that move a meter, with their exact per-wager probabilities (through
    ``progressive_edge``'s ``pay_counts``: the best LISTED hand, ``Paytable.paying``)."""
    edge = progressive_edge(table, counts)
    total = counts.total
    out: list[PayEvent] = []
    for pay in table.pays:
        n = edge.pay_counts[pay.hand]
        if pay.fraction is not None:
            assert pay.level is not None
            out.append(PayEvent(pay.hand, pay.level, n, Fraction(n, total), pay.fraction, None))
        elif all_pays_from_meter:
            out.append(PayEvent(pay.hand, table.levels[0], n, Fraction(n, total), None,
                                table.fixed_cents(pay)))
    return tuple(out)


def level_plans(table: Paytable, seeds_cents: Mapping[str, int],
                contribution_rates: Mapping[str, Decimal], reserve_rates: Mapping[str, Decimal],
                starts_cents: Mapping[str, int] | None = None) -> tuple[LevelPlan, ...]:
    """Plans in the table's level order; every level needs a seed (cents)."""
    plans = []
    for lv in table.levels:
        if lv not in seeds_cents:
            raise MeterRiskError(f"--seed-amount: no seed for level {lv} "
                                 f"(levels: {', '.join(table.levels)})")
        try:
            settings = LevelSettings(cents_to_units(seeds_cents[lv]),
                                     contribution_rates.get(lv, Decimal(0)),
                                     reserve_rates.get(lv, Decimal(0)))
        except MeterError as exc:
            raise MeterRiskError(f"level {lv}: {exc}") from None
        start = (starts_cents or {}).get(lv, seeds_cents[lv])
        plans.append(LevelPlan(lv, settings, cents_to_units(start)))
    total = sum((p.settings.contribution_rate + p.settings.reserve_rate for p in plans),
                Decimal(0))
    if total > 1:
        raise MeterRiskError(f"--contribution-rate/--reserve-rate: the levels together take "
                             f"{total} of every wager, more than the whole wager")
    return tuple(plans)


# ------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class PayRisk:
    event: PayEvent
    hits: int
    paid_cents: int  # total paid from the meter
    max_paid_cents: int
    dry: int  # fixed pays larger than the meter
    shortfall_cents: int  # paid from the tray instead


@dataclass(frozen=True)
class SamplePath:
    """One path's meter, exact at each vertex: ``rounds[i]`` (0 = the start) and
    ``units[i]``; two vertices per pay (after the round's contributions, after the pay).
    Linear between vertices.  ``complete`` is False when cut at MAX_VERTICES."""

    rounds: I64
    units: I64
    complete: bool


@dataclass(frozen=True)
class LevelRisk:
    plan: LevelPlan
    growth: LevelGrowth  # exact figures of progressive_edge (hit probability, rise per hit)
    samples_cents: I64  # the meter at sampled round ends, rounded down to the cent, sorted
    mean_cents: int  # of the samples, to the nearest cent
    min_units: int  # the lowest the meter stood (after a pay, or the start)
    max_units: int  # the highest (after a round's contributions, before its pays)
    percentiles_cents: dict[int, int]
    hist_edges_cents: I64  # bins [edge i, edge i+1); len = bins + 1
    hist_counts: I64
    hits: int  # percentage pays of this level
    contributed_units: int  # to the meter, every path and round (exact)
    rise_units: int  # contributed between a hit and the one before (or the start), summed
    dry_events: int
    dry_rounds: int  # (path, round) pairs with at least one dry pay
    dry_paths: int
    shortfall_cents: int
    max_shortfall_cents: int
    first_dry_round_median: int | None
    final_meter_units: I64  # per path
    final_reserve_units: I64
    sample_paths: tuple[SamplePath, ...]

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def observed_rise_per_hit(self) -> Fraction | None:
        """Dollars contributed per hit seen (contributions / hits): what the meter climbed
        per hit.  (The mean of ``rise_units`` over the hits is biased low when a path sees
        few hits: a long gap does not fit in the horizon.)"""
        return Fraction(self.contributed_units, self.hits * UPC * 100) if self.hits else None


@dataclass(frozen=True)
class MeterRisk:
    table: Paytable
    rounds: int
    paths: int
    seats: int
    all_pays_from_meter: bool
    on_dry: str
    rng_seed: int | None  # None: a replayed (hand-made) set of events
    sample_every: int  # rounds between two samples of the distribution
    levels: tuple[LevelRisk, ...]
    pays: tuple[PayRisk, ...]
    wagers: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "wagers", self.rounds * self.paths * self.seats)

    def level(self, name: str) -> LevelRisk:
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise KeyError(name)


# ------------------------------------------------------------------------------------------
# The engine
