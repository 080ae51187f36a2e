"""The rows a hit's flags and timeline are made from, read from the ledger in a few statements
of one read-only snapshot (never per hit): its award, decisions, swipes, slips, print attempts,
voids, meter entries, the manual adjustments of its level near it, the people named, and the
table's hit rate (:mod:`core.desks.surveillance.hit_rates`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Select, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from core.desks.desk import Desk
from core.desks.surveillance.flags import HitRate
from core.desks.surveillance.hit_rates import HitRates
from core.floorconfig import SurveillanceConfig
from core.ledger.models import (
    Award,
    Employee,
    GameTable,
    Hit,
    HitDecision,
    Level,
    LevelHourTotal,
    MeterEntry,
    Slip,
    SlipPrintAttempt,
    SlipVoid,
    SwipeLog,
)
from core.people.who import Who
from core.tablegames.rules.claims import ClaimError, pay_for_claim

_CHUNK = 500  # ids per IN (...) list


def _chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    for i in range(0, len(ids), _CHUNK):
        yield list(ids[i:i + _CHUNK])


def _rows(s: Session, make: Any, ids: Iterable[int]) -> list[Any]:
    """``make(chunk)`` -> a select, run for every chunk of ``ids``."""
    out: list[Any] = []
    for chunk in _chunks(sorted(set(ids))):
        q: Select[Any] = make(chunk)
        out += list(s.scalars(q))
    return out


R = TypeVar("R")


def _grouped(s: Session, model: type[R], key: InstrumentedAttribute[Any],
             order: InstrumentedAttribute[Any], ids: Iterable[int]) -> dict[int, list[R]]:
    """The rows of ``model`` whose ``key`` is one of ``ids``, in ``order``, by their key (a row
    whose key is NULL is left out)."""
    found: dict[int, list[R]] = defaultdict(list)
    for row in _rows(s, lambda c: select(model).where(key.in_(c)).order_by(order), ids):
        k = getattr(row, key.key)
        if k is not None:
            found[k].append(row)
    return found


class HitRows:
    """Everything the flags of ``hits`` need, read in a few statements of one snapshot."""

    def __init__(self, desk: Desk, s: Session, hits: Sequence[Hit], now: datetime) -> None:
        self.desk, self.s, self.now = desk, s, now
        self.settings: SurveillanceConfig = desk.config.surveillance
        self.hits = list(hits)
        ids = [h.id for h in hits]
        self.awards = {a.hit_id: a for a in _rows(
            s, lambda c: select(Award).where(Award.hit_id.in_(c)), ids)}
        self.decisions = _grouped(s, HitDecision, HitDecision.hit_id, HitDecision.id, ids)
        self.swipes = _grouped(s, SwipeLog, SwipeLog.hit_id, SwipeLog.id, ids)
        self.slips = _grouped(s, Slip, Slip.hit_id, Slip.slip_no, ids)
        slip_ids = [sl.id for v in self.slips.values() for sl in v]
        self.prints = _grouped(s, SlipPrintAttempt, SlipPrintAttempt.slip_id,
                               SlipPrintAttempt.id, slip_ids)
        self.voids = _grouped(s, SlipVoid, SlipVoid.slip_id, SlipVoid.id, slip_ids)
        self.entries = _grouped(s, MeterEntry, MeterEntry.hit_id, MeterEntry.id, ids)
        self.levels = {lv.id: lv for lv in s.scalars(select(Level))}
        self.level_ids = {(lv.group_id, lv.name): lv.id for lv in self.levels.values()}
        self.groups = {t.id: t.group_id for t in s.scalars(select(GameTable))}
        self.adjustments = self._load_adjustments()
        people = {d.employee_id for v in self.decisions.values() for d in v}
        people |= {w.employee_id for v in self.swipes.values() for w in v}
        people |= {x for a in self.awards.values() for x in (a.authorized_by, a.verified_by)}
        people |= {v.employee_id for vs in self.voids.values() for v in vs}
        people |= {x for m in self.adjustments for x in (m.employee_id, m.second_employee_id)}
        people |= {m.employee_id for v in self.entries.values() for m in v}
        self.people = {e.id: Who.of(e) for e in _rows(
            s, lambda c: select(Employee).where(Employee.id.in_(c)),
            [i for i in people if i is not None])}
        self.rates = HitRates(desk, s, self.hits)

    def _load_adjustments(self) -> list[MeterEntry]:
        """The manual adjustments within the window of any hit: the hours that hold one are
        found in ``level_hour_totals`` (adjustments are rare), and only those hours' entries
        are read (the level-and-time index), never the contributions around them."""
        if not self.hits:
            return []
        w = timedelta(minutes=self.settings.adjustment_window_minutes)
        lo = min(h.created_at for h in self.hits) - w
        hi = max(h.created_at for h in self.hits) + w
        hours = list(self.s.execute(
            select(LevelHourTotal.level_id, LevelHourTotal.hour).where(
                LevelHourTotal.kind == "adjustment",
                LevelHourTotal.hour >= lo.replace(minute=0, second=0, microsecond=0),
                LevelHourTotal.hour <= hi).order_by(LevelHourTotal.hour)))
        found: dict[int, MeterEntry] = {}
        for level_id, hour in hours:
            for m in self.s.scalars(select(MeterEntry).where(
                    MeterEntry.level_id == level_id, MeterEntry.created_at >= hour,
                    MeterEntry.created_at < hour + timedelta(hours=1),
                    MeterEntry.kind == "adjustment")):
                if lo <= m.created_at <= hi:
                    found[m.id] = m
        return [found[k] for k in sorted(found)]

    # -- a table's paytable -----------------------------------------------------------------
    def paytable(self, table_id: str) -> Any:
        try:
            t = self.desk.config.table(table_id)
            g = self.desk.config.group(t.group)
        except KeyError:
            return None
        return self.desk.paytables.get(t.paytable or g.paytable)

    def who(self, employee_id: int | None) -> Who | None:
        return self.people.get(employee_id) if employee_id is not None else None

    def rate(self, hit: Hit, hand: str) -> HitRate | None:
        """The table's hits of ``hand`` against its exact rate (:mod:`.hit_rates`)."""
        return self.rates.rate(hit, hand, self.paytable(hit.table_id))

    # -- one hit ----------------------------------------------------------------------------
    def level_of(self, hit: Hit, award: Award | None) -> tuple[str | None, int | None]:
        """The level the hit pays (or would pay) from: (name, level id)."""
        if award is not None and award.level_id is not None:
            lv = self.levels.get(award.level_id)
            return (lv.name if lv else None), award.level_id
        if hit.locked_level_id is not None:
            lv = self.levels.get(hit.locked_level_id)
            return (lv.name if lv else None), hit.locked_level_id
        pt = self.paytable(hit.table_id)
        group = self.groups.get(hit.table_id)
        if pt is None or group is None or award is not None:
            return None, None
        try:
            pay = pay_for_claim(pt, hit.claimed_hand)
        except ClaimError:
            return None, None
        name = pay.level or pt.levels[0] if pay.source == "meter" else None
        if name is None:
            try:
                if self.desk.config.group(group).all_pays_from_meter:
                    name = pt.levels[0]
            except KeyError:
                return None, None
        if name is None:
            return None, None
        return name, self.level_ids.get((group, name))


def read_at(now: datetime | None) -> datetime:
    """When the rows are read (UTC): ``now``, else the clock's."""
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None:
        raise ValueError("surveillance: 'now' must be timezone-aware")
    return now.astimezone(UTC)
