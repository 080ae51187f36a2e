"""The reconciliation as data (:class:`Reconciliation`): every level's opening, movements by
kind (:data:`KINDS`), reversals by what they took back (:data:`REVERSAL_PARTS`), closing and
kept balance; the groups' drop against their levels' contributions; the differences found
(:mod:`core.desks.accounting.reconcile` makes it, :mod:`core.desks.accounting.sheets` lays it
out; :meth:`Reconciliation.to_json` is ``podium report reconcile --format json``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.desks.accounting.periods import Period
from core.kernel.money import UNITS_PER_CENT, decimal_text, units_decimal

KINDS: tuple[tuple[str, str], ...] = (
    ("seed", "Seed"),
    ("contribution", "Contributions"),
    ("reserve_contribution", "Reserve contributions"),
    ("award", "Awards and holds at hit"),
    ("reseed", "Reseeds"),
    ("reserve_move", "Reserve moved to the meter"),
    ("adjustment", "Adjustments"),
    ("reversal", "Reversals"),
)
"""Every meter entry kind, in the order the reconciliation lists them."""

REVERSAL_PARTS: tuple[tuple[str, str], ...] = (
    ("contributions", "contributions taken back (misdeal, undone START GAME)"),
    ("holds", "amounts held at hit given back"),
    ("awards", "awards reversed (voided slip, money returned)"),
    ("other", "other reversals"),
)


@dataclass(frozen=True)
class Flow:
    """How many entries, and what they moved in the meter and the reserve (exact units)."""

    entries: int = 0
    meter_units: int = 0
    reserve_units: int = 0

    def __add__(self, other: Flow) -> Flow:
        return Flow(self.entries + other.entries, self.meter_units + other.meter_units,
                    self.reserve_units + other.reserve_units)

    def __sub__(self, other: Flow) -> Flow:
        return Flow(self.entries - other.entries, self.meter_units - other.meter_units,
                    self.reserve_units - other.reserve_units)


@dataclass(frozen=True)
class HandAwards:
    hand: str
    source: str  # meter | tray
    count: int
    cents: int


@dataclass(frozen=True)
class LevelReconciliation:
    group_id: str
    group_name: str
    level: str
    level_id: int
    opening_meter: int  # units
    opening_reserve: int
    lines: Mapping[str, Flow]  # kind -> flow (every kind of KINDS, zero when none)
    reversal_parts: Mapping[str, Flow]  # REVERSAL_PARTS keys
    paid_from_meter: Flow  # award entries of the period whose pay was made by its end
    held_at_hit: Flow  # award entries of the period holding an amount for a pay not made by
    # the period's end (lock at hit)
    closing_meter: int  # opening + the movements
    closing_reserve: int
    kept_meter: int  # the kept balance less everything after the period
    kept_reserve: int
    awards: tuple[HandAwards, ...]  # paid in the period, by hand and source

    @property
    def awards_count(self) -> int:
        return sum(a.count for a in self.awards)

    @property
    def awards_cents(self) -> int:
        return sum(a.cents for a in self.awards)


@dataclass(frozen=True)
class GroupDrop:
    """A group's tables in the period: what was wagered, what came back, what went in."""

    group_id: str
    group_name: str
    rounds: int
    wagers: int
    wager_cents: int
    returned_wagers: int
    returned_cents: int
    contribution_units: int  # from the tables' totals
    reversal_units: int  # contributions the tables' misdeals took back (<= 0)
    level_contribution_units: int  # the same, as the group's levels received it
    level_reversal_units: int


@dataclass(frozen=True)
class Reconciliation:
    period: Period
    made_at: datetime  # UTC
    chain_head: str  # "Ledger chain head N:HASH" of the snapshot the report read
    levels: tuple[LevelReconciliation, ...]
    groups: tuple[GroupDrop, ...]
    problems: tuple[str, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())  # said, but not a difference

    @property
    def adds_up(self) -> bool:
        return not self.problems

    @property
    def verdict(self) -> str:
        if self.adds_up:
            return (f"Reconciled: every level's opening plus its movements equals its closing "
                    f"and its kept balance; {sum(lv.awards_count for lv in self.levels)} "
                    "award(s) backed by their meter entries; the tables' contributions equal "
                    "the levels'.")
        return f"DOES NOT RECONCILE: {len(self.problems)} difference(s), listed below."

    def to_json(self) -> dict[str, Any]:
        def money(units: int) -> str:
            return decimal_text(units_decimal(units))

        def flow(f: Flow) -> dict[str, Any]:
            return {"entries": f.entries, "meter": money(f.meter_units),
                    "reserve": money(f.reserve_units)}

        return {
            "period": {"label": self.period.label, "start": self.period.start.isoformat(),
                       "end": self.period.end.isoformat()},
            "made_at": self.made_at.isoformat(),
            "chain_head": self.chain_head,
            "reconciled": self.adds_up,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "levels": [{
                "group": lv.group_id, "level": lv.level,
                "opening": {"meter": money(lv.opening_meter),
                            "reserve": money(lv.opening_reserve)},
                "movements": {k: flow(lv.lines[k]) for k, _ in KINDS},
                "reversals": {k: flow(lv.reversal_parts[k]) for k, _ in REVERSAL_PARTS},
                "paid_from_meter": flow(lv.paid_from_meter),
                "held_at_hit": flow(lv.held_at_hit),
                "closing": {"meter": money(lv.closing_meter),
                            "reserve": money(lv.closing_reserve)},
                "kept_balance_at_end": {"meter": money(lv.kept_meter),
                                        "reserve": money(lv.kept_reserve)},
                "awards": [{"hand": a.hand, "source": a.source, "count": a.count,
                            "amount": money(a.cents * UNITS_PER_CENT)} for a in lv.awards],
            } for lv in self.levels],
            "groups": [{
                "group": g.group_id, "rounds": g.rounds, "wagers": g.wagers,
                "wagered": money(g.wager_cents * UNITS_PER_CENT),
                "returned_wagers": g.returned_wagers,
                "returned": money(g.returned_cents * UNITS_PER_CENT),
                "contributions": money(g.contribution_units),
                "contributions_taken_back": money(g.reversal_units),
                "levels_contributions": money(g.level_contribution_units),
                "levels_contributions_taken_back": money(g.level_reversal_units),
            } for g in self.groups],
        }
