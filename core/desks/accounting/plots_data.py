"""The figures behind the accountant's and surveillance's plots (gui/desks/desk_plots.py), exact:
meters in exact units (1/1,000,000 of a cent), pays in cents, hits and wagers as counts,
probabilities as fractions.  Each reads one snapshot through a :class:`~core.desks.desk.Desk` for
one :class:`~core.desks.accounting.periods.Period`.

- :func:`meter_day`: a level's meter through the period (a step at every movement) with the
  meter pays marked;
- :func:`contributions_per_hour`: what the wagers put into each level, hour by hour;
- :func:`hits_against_expected`: hits paid from each level against the wagers times the exact
  chance that a wager wins a pay from it (the enumeration of ``podium rules edge``).

Whole hours come from the kept hourly totals (``level_hour_totals``, ``table_hour_totals``),
partial hours at a period's edges from the rows themselves, as ``core.tablegames.reports``'
meter report does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.desks.accounting.periods import Period
from core.desks.desk import Desk
from core.ledger.models import (
    Award,
    GameTable,
    Group,
    Hit,
    Level,
    LevelBalance,
    LevelHourTotal,
    MeterEntry,
    Round,
    TableHourTotal,
    Wager,
)

HOUR = timedelta(hours=1)
MAX_PLOT_DAYS = 31  # a plot of a month at most: every movement of a level is a point


class PlotDataError(ValueError):
    """A plot that can not be drawn (unknown group or level, a period too long)."""


@dataclass(frozen=True)
class MeterPoint:
    at: datetime  # UTC: the transaction's time
    meter_units: int  # the meter after everything recorded at that time


@dataclass(frozen=True)
class AwardMark:
    at: datetime  # UTC: when it was paid
    hit_id: int
    table: str
    seat: int
    hand: str
    amount_cents: int
    meter_before_cents: int  # the meter it was paid from (where the mark sits)


@dataclass(frozen=True)
class MeterDay:
    group: str
    level: str
    period: Period
    opening_units: int  # the meter at the period's start
    points: tuple[MeterPoint, ...]  # every change of the meter in the period, oldest first
    awards: tuple[AwardMark, ...]
    closing_units: int  # the meter at the period's end


@dataclass(frozen=True)
class HourBar:
    start: datetime  # UTC, inclusive
    end: datetime  # UTC, exclusive (the period's end for a last, partial hour)
    contribution_units: dict[str, int]  # level -> meter contributions in the hour
    reserve_units: dict[str, int]  # level -> reserve contributions in the hour

    @property
    def total_units(self) -> int:
        return sum(self.contribution_units.values()) + sum(self.reserve_units.values())


@dataclass(frozen=True)
class LevelHits:
    level: str
    observed: int  # hits claimed in the period and paid from this level
    wagers: int  # progressive wagers of the period (locked, not returned by a misdeal/undo)
    probability: Fraction  # a wager wins a pay from this level (exact)

    @property
    def expected(self) -> Fraction:
        return self.wagers * self.probability


def _check(period: Period) -> None:
    if period.end - period.start > timedelta(days=MAX_PLOT_DAYS):
        raise PlotDataError(f"plot: {period.label} is longer than {MAX_PLOT_DAYS} days; plot "
                            "a month at most")


def _ceil_hour(t: datetime) -> datetime:
    floor = t.replace(minute=0, second=0, microsecond=0)
    return floor if floor == t else floor + HOUR


def _floor_hour(t: datetime) -> datetime:
    return t.replace(minute=0, second=0, microsecond=0)


def _levels(s: Session, group: str) -> list[tuple[int, str]]:
    if s.get(Group, group) is None:
        raise PlotDataError(f"group {group!r} is not in the ledger")
    return [(int(i), n) for i, n in s.execute(select(Level.id, Level.name).where(
        Level.group_id == group).order_by(Level.id))]


def _level(s: Session, group: str, level: str) -> int:
    for lid, name in _levels(s, group):
        if name == level:
            return lid
    raise PlotDataError(f"group {group}: no level {level!r}")


def meter_day(desk: Desk, period: Period, group: str, level: str) -> MeterDay:
    """A level's meter through ``period``: the opening value, a point at every change (one per
    transaction), the pays from it marked at the meter they were paid from."""
    _check(period)
    with desk.read() as s:
        lid = _level(s, group, level)
        bal = s.get(LevelBalance, lid)
        first_hour = _ceil_hour(period.start)
        # everything since the period's start: whole hours from the totals, the first partial
        # hour from the entries; the opening is the kept balance less all of it
        since = int(s.scalar(select(func.coalesce(func.sum(LevelHourTotal.meter_units), 0))
                             .where(LevelHourTotal.level_id == lid,
                                    LevelHourTotal.hour >= first_hour)) or 0)
        since += int(s.scalar(select(func.coalesce(func.sum(MeterEntry.meter_delta), 0))
                              .where(MeterEntry.level_id == lid,
                                     MeterEntry.created_at >= period.start,
                                     MeterEntry.created_at < first_hour)) or 0)
        opening = (int(bal.meter_units) if bal is not None else 0) - since
        rows = s.execute(select(MeterEntry.created_at, MeterEntry.meter_delta)
                         .where(MeterEntry.level_id == lid, MeterEntry.meter_delta != 0,
                                MeterEntry.created_at >= period.start,
                                MeterEntry.created_at < period.end)
                         .order_by(MeterEntry.id)).all()
        awards = s.execute(select(Award.created_at, Hit.id, Hit.table_id, Hit.seat, Award.hand,
                                  Award.amount_cents, Award.meter_before_cents)
                           .join(Hit, Hit.id == Award.hit_id)
                           .where(Award.level_id == lid, Award.created_at >= period.start,
                                  Award.created_at < period.end)
                           .order_by(Award.id)).all()
    points: list[MeterPoint] = []
    meter = opening
    for at, delta in rows:
        meter += int(delta)
        if points and points[-1].at == at:
            points[-1] = MeterPoint(at, meter)
        else:
            points.append(MeterPoint(at, meter))
    marks = tuple(AwardMark(at, int(h), t, int(seat), hand, int(cents), int(before or 0))
                  for at, h, t, seat, hand, cents, before in awards)
    return MeterDay(group, level, period, opening, tuple(points), marks, meter)


def meter_days(desk: Desk, period: Period, group: str) -> list[MeterDay]:
    """Every level of ``group`` (in the floor's order) through ``period``: :func:`meter_day`
    of each."""
    with desk.read() as s:
        names = [name for _, name in _levels(s, group)]
    if not names:
        raise PlotDataError(f"group {group!r} is not in the ledger")
    return [meter_day(desk, period, group, name) for name in names]


def hours_of(period: Period) -> list[tuple[datetime, datetime]]:
    """The period in hours from its start (the last one shorter if the period ends inside
    an hour)."""
    out = []
    a = period.start
    while a < period.end:
        b = min(a + HOUR, period.end)
        out.append((a, b))
        a = b
    return out


def contributions_per_hour(desk: Desk, period: Period, group: str) -> list[HourBar]:
    """Per hour of ``period`` (from its start) and level of ``group``: the meter and reserve
    contributions recorded (as made; a misdeal's reversals are the meter report's)."""
    _check(period)
    hours = hours_of(period)
    with desk.read() as s:
        levels = _levels(s, group)
        names = dict(levels)
        ids = list(names)
        whole: dict[datetime, dict[tuple[int, str], tuple[int, int]]] = {}
        for lid, hour, kind, m, r in s.execute(
                select(LevelHourTotal.level_id, LevelHourTotal.hour, LevelHourTotal.kind,
                       LevelHourTotal.meter_units, LevelHourTotal.reserve_units)
                .where(LevelHourTotal.level_id.in_(ids),
                       LevelHourTotal.kind.in_(("contribution", "reserve_contribution")),
                       LevelHourTotal.hour >= _floor_hour(period.start),
                       LevelHourTotal.hour < period.end)):
            whole.setdefault(hour, {})[(int(lid), kind)] = (int(m), int(r))
        bars = []
        for a, b in hours:
            meter = dict.fromkeys(names.values(), 0)
            reserve = dict.fromkeys(names.values(), 0)
            if a == _floor_hour(a) and b - a == HOUR:  # a whole UTC hour: its kept totals
                for (lid, kind), (m, r) in whole.get(a, {}).items():
                    if kind == "contribution":
                        meter[names[lid]] += m
                    else:
                        reserve[names[lid]] += r
            else:  # a partial hour (or a zone whose hours are not UTC's): the entries
                for lid, kind, m, r in s.execute(
                        select(MeterEntry.level_id, MeterEntry.kind,
                               func.sum(MeterEntry.meter_delta),
                               func.sum(MeterEntry.reserve_delta))
                        .where(MeterEntry.level_id.in_(ids),
                               MeterEntry.kind.in_(("contribution", "reserve_contribution")),
                               MeterEntry.created_at >= a, MeterEntry.created_at < b)
                        .group_by(MeterEntry.level_id, MeterEntry.kind)):
                    if kind == "contribution":
                        meter[names[int(lid)]] += int(m or 0)
                    else:
                        reserve[names[int(lid)]] += int(r or 0)
            bars.append(HourBar(a, b, meter, reserve))
    return bars


def _wagers(s: Session, group: str, start: datetime, end: datetime) -> int:
    """Progressive wagers of ``group``'s tables in rounds started in [start, end), less the
    ones returned by a misdeal or an undone START GAME."""
    tables = select(GameTable.id).where(GameTable.group_id == group)
    first, last = _ceil_hour(start), _floor_hour(end)

    def rows(lo: datetime, hi: datetime) -> int:
        if lo >= hi:
            return 0
        return int(s.scalar(select(func.count()).select_from(Wager)
                            .join(Round, Round.id == Wager.round_id)
                            .where(Round.table_id.in_(tables), Wager.status == "locked",
                                   Round.started_at >= lo, Round.started_at < hi)) or 0)

    if first >= last:
        return rows(start, end)
    total = s.execute(select(func.coalesce(func.sum(TableHourTotal.wagers), 0),
                             func.coalesce(func.sum(TableHourTotal.returned_wagers), 0))
                      .where(TableHourTotal.table_id.in_(tables),
                             TableHourTotal.hour >= first, TableHourTotal.hour < last)).one()
    return int(total[0]) - int(total[1]) + rows(start, first) + rows(last, end)


def level_probabilities(paytable: Any) -> dict[str, Fraction]:
    """Per level: the exact chance that one wager wins a pay from it (the enumeration of every
    7-card hand that ``podium rules edge`` reports)."""
    from core.tablegames.rules.edge import progressive_edge
    from core.tablegames.rules.enumerate import count_hands

    edge = progressive_edge(paytable, count_hands(paytable.joker), contribution_rates={})
    return {g.level: g.hit_probability for g in edge.growth}


def hits_against_expected(desk: Desk, period: Period, group: str) -> list[LevelHits]:
    """Per level of ``group``: hits claimed in ``period`` and paid from the level, the wagers of
    the period, and the exact probability that a wager wins a pay from the level."""
    _check(period)
    with desk.read() as s:
        levels = _levels(s, group)
        g = s.get(Group, group)
        assert g is not None
        paytable_id = g.paytable_id
        wagers = _wagers(s, group, period.start, period.end)
        observed = {int(lid or 0): int(n) for lid, n in s.execute(
            select(Award.level_id, func.count()).join(Hit, Hit.id == Award.hit_id)
            .where(Award.level_id.in_([lid for lid, _ in levels]), Award.source == "meter",
                   Hit.created_at >= period.start, Hit.created_at < period.end)
            .group_by(Award.level_id))}
    paytable = desk.paytables.get(paytable_id)
    if paytable is None:
        raise PlotDataError(f"group {group}: paytable {paytable_id} is not installed here")
    chance = level_probabilities(paytable)
    return [LevelHits(name, observed.get(lid, 0), wagers, chance.get(name, Fraction(0)))
            for lid, name in levels]
