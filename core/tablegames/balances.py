"""Meter entries and what is kept beside them.

Every movement of a meter is a ``meter_entries`` row (the truth, append-only).  In the same
transaction the level's ``level_balances`` row (meter, reserve, entries folded in) and its
``level_hour_totals`` row for the entry's hour and kind are brought up to date, so reading a meter
or a day's totals never sums the whole history.  :func:`check_balances` compares the kept rows
with the entries (the invariant check).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core import meters
from core.ledger.models import Level, LevelBalance, LevelHourTotal, MeterEntry
from core.money import units_floor_cents
from core.tablegames.unit import Unit
from core.tablegames.views import FloorError


def _balance(s: Session, level_id: int, *, lock: bool) -> LevelBalance:
    q = select(LevelBalance).where(LevelBalance.level_id == level_id)
    if lock:
        q = q.with_for_update()
    row = s.scalars(q).first()
    if row is None:
        raise FloorError(f"level #{level_id}: has no balance; start the floor first")
    return row


def state(s: Session, level_id: int, *, lock: bool = False) -> meters.LevelState:
    """A level's meter and reserve (exact units), as kept with its entries."""
    row = _balance(s, level_id, lock=lock)
    return meters.LevelState(int(row.meter_units), int(row.reserve_units))


def open_balance(s: Session, level_id: int, now: datetime) -> None:
    """A new level's balance row (0, 0) if it has none."""
    if s.get(LevelBalance, level_id) is None:
        s.add(LevelBalance(level_id=level_id, meter_units=0, reserve_units=0, entries=0,
                           last_entry_id=None, updated_at=now))
        s.flush()


def add_entries(u: Unit, level: Level, entries: Sequence[MeterEntry]) -> None:
    """Record ``entries`` of ``level`` and bring its balance and hourly totals up to date.
    Refuses (FloorError, nothing written) an entry that would take the meter or the reserve
    below zero."""
    entries = [e for e in entries if e.meter_delta != 0 or e.reserve_delta != 0]
    if not entries:
        return
    s = u.s
    bal = _balance(s, level.id, lock=True)
    meter = int(bal.meter_units) + sum(int(e.meter_delta) for e in entries)
    reserve = int(bal.reserve_units) + sum(int(e.reserve_delta) for e in entries)
    if meter < 0 or reserve < 0:
        raise FloorError(f"level {level.group_id}/{level.name}: this would take the "
                         f"{'meter' if meter < 0 else 'reserve'} below zero")
    for e in entries:
        e.level_id = level.id
        s.add(e)
    s.flush()
    bal.meter_units, bal.reserve_units = meter, reserve
    bal.entries = int(bal.entries) + len(entries)
    bal.last_entry_id = max(int(e.id) for e in entries)
    bal.updated_at = u.now
    totals: dict[tuple[datetime, str], list[int]] = {}
    for e in entries:
        hour = e.created_at.replace(minute=0, second=0, microsecond=0)
        acc = totals.setdefault((hour, e.kind), [0, 0, 0])
        acc[0] += 1
        acc[1] += int(e.meter_delta)
        acc[2] += int(e.reserve_delta)
    for (hour, kind), (n, m, r) in totals.items():
        _add_hour(s, level.id, hour, kind, n, m, r)
    s.flush()
    u.levels.add((level.group_id, level.name))


def _add_hour(s: Session, level_id: int, hour: datetime, kind: str, n: int, m: int,
              r: int) -> None:
    dialect = s.get_bind().dialect.name
    values: dict[str, Any] = {"level_id": level_id, "hour": hour, "kind": kind, "entries": n,
                              "meter_units": m, "reserve_units": r}
    ins: Any = (postgresql.insert(LevelHourTotal) if dialect == "postgresql"
                else sqlite.insert(LevelHourTotal))
    ins = ins.values(**values)
    stmt = ins.on_conflict_do_update(
        index_elements=["level_id", "hour", "kind"],
        set_={"entries": LevelHourTotal.entries + ins.excluded.entries,
              "meter_units": LevelHourTotal.meter_units + ins.excluded.meter_units,
              "reserve_units": LevelHourTotal.reserve_units + ins.excluded.reserve_units})
    s.execute(stmt)


def write(u: Unit, level: Level, moves: Iterable[meters.Movement], reason: str = "",
          **refs: Any) -> None:
    """The movements of ``meters`` (contribute, award ...) as entries of ``level``."""
    add_entries(u, level, [
        MeterEntry(kind=mv.kind, meter_delta=mv.meter_delta, reserve_delta=mv.reserve_delta,
                   reason=reason or mv.reverses, created_at=u.now, **refs)
        for mv in moves])


def reverse(u: Unit, level_by_id: dict[int, Level], entries: Sequence[MeterEntry], reason: str,
            **refs: Any) -> None:
    """``reversal`` entries for ``entries`` (each points at what it reverses)."""
    by_level: dict[int, list[MeterEntry]] = {}
    for e in entries:
        by_level.setdefault(e.level_id, []).append(e)
    for level_id, rows in by_level.items():
        lv = level_by_id[level_id]
        try:
            add_entries(u, lv, [
                MeterEntry(kind="reversal", meter_delta=-e.meter_delta,
                           reserve_delta=-e.reserve_delta, reverses_id=e.id,
                           reason=f"{reason} (reverses {e.kind})", created_at=u.now, **refs)
                for e in reversed(rows)])
        except FloorError:
            raise FloorError(f"level {lv.group_id}/{lv.name}: reversing would take the meter "
                             "below zero; back it out by a manual adjustment") from None


def meter_cents(s: Session, level_id: int) -> int:
    return units_floor_cents(state(s, level_id).meter_units)


def check_balances(engine: Engine) -> list[str]:
    """Every level's kept balance and hourly totals equal the sums of its entries, and its
    meter and reserve are >= 0.  Returns the problems; empty means fine."""
    problems: list[str] = []
    with Session(engine) as s, s.begin():
        for lv in s.scalars(select(Level).order_by(Level.id)):
            n, m, r = s.execute(select(func.count(MeterEntry.id),
                                       func.coalesce(func.sum(MeterEntry.meter_delta), 0),
                                       func.coalesce(func.sum(MeterEntry.reserve_delta), 0))
                                .where(MeterEntry.level_id == lv.id)).one()
            bal = s.get(LevelBalance, lv.id)
            where = f"level {lv.group_id}/{lv.name}"
            if bal is None:
                if n:
                    problems.append(f"{where}: {n} entries but no kept balance")
                continue
            if (int(bal.meter_units), int(bal.reserve_units), int(bal.entries)) != \
                    (int(m), int(r), int(n)):
                problems.append(f"{where}: kept balance meter {bal.meter_units} reserve "
                                f"{bal.reserve_units} ({bal.entries} entries) differs from its "
                                f"entries: meter {m} reserve {r} ({n} entries)")
            if m < 0 or r < 0:
                problems.append(f"{where}: meter {m} reserve {r}")
            hn, hm, hr = s.execute(select(func.coalesce(func.sum(LevelHourTotal.entries), 0),
                                          func.coalesce(func.sum(LevelHourTotal.meter_units), 0),
                                          func.coalesce(func.sum(LevelHourTotal.reserve_units),
                                                        0))
                                   .where(LevelHourTotal.level_id == lv.id)).one()
            if (int(hn), int(hm), int(hr)) != (int(n), int(m), int(r)):
                problems.append(f"{where}: hourly totals ({hn} entries, meter {hm}, reserve "
                                f"{hr}) differ from its entries")
    return problems
