"""Meter entries and what is kept beside them.

Every movement of a meter is a ``meter_entries`` row (the truth, append-only).  In the same
transaction the level's ``level_balances`` row (meter, reserve, entries folded in, the latest
entry) and its ``level_hour_totals`` rows (per UTC hour and kind) are brought up to date, so
reading a meter or a day's totals never sums the history.

A unit of work collects its movements (:func:`add_entries`) and folds them into the kept rows
once, when it ends (:func:`flush`: one relative ``UPDATE`` per level, one upsert per hour and
kind), so a batch of hundreds of controller events writes each level's balance once.  A step
that reads a meter (an award, a reversal) sees the kept balance plus every movement of the unit
so far (:func:`current`); on PostgreSQL that read locks the balance row (``FOR UPDATE``) until
the commit.  ``core.ledger.balance_checks`` compares the kept rows with the entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, func, select, text, update
from sqlalchemy.orm import Session

from core.kernel.money import UNITS_PER_CENT, units_floor_cents
from core.ledger.models import (
    Base,
    Level,
    LevelBalance,
    MeterEntry,
    UTCDateTime,
)
from core.ledger.rows import insert_rows, upsert_rows
from core.tablegames.meters import arithmetic as meters
from core.tablegames.unit import LevelRef, Unit
from core.tablegames.views import FloorError

_UPSERT_HOUR = text(
    "INSERT INTO level_hour_totals (level_id, hour, kind, entries, meter_units, reserve_units) "
    "VALUES (:level_id, :hour, :kind, :entries, :meter_units, :reserve_units) "
    "ON CONFLICT (level_id, hour, kind) DO UPDATE SET "
    "entries = level_hour_totals.entries + excluded.entries, "
    "meter_units = level_hour_totals.meter_units + excluded.meter_units, "
    "reserve_units = level_hour_totals.reserve_units + excluded.reserve_units"
).bindparams(bindparam("hour", type_=UTCDateTime()))


_BAL = Base.metadata.tables["level_balances"]
# the level's newest entry this statement can see, or the one the row already names when that
# is newer: a transaction whose entry came first but whose fold waited for another writer's
# lock (PostgreSQL re-reads the row, not the statement's snapshot) never names an older entry
_SEEN_LAST = (select(func.max(MeterEntry.id))
              .where(MeterEntry.level_id == bindparam("lid")).scalar_subquery())
_FOLD = (update(_BAL).where(_BAL.c.level_id == bindparam("lid")).values(
    meter_units=_BAL.c.meter_units + bindparam("dm"),
    reserve_units=_BAL.c.reserve_units + bindparam("dr"),
    entries=_BAL.c.entries + bindparam("n"),
    last_entry_id=case((func.coalesce(_BAL.c.last_entry_id, 0) > _SEEN_LAST,
                        _BAL.c.last_entry_id), else_=_SEEN_LAST),
    updated_at=bindparam("now", type_=UTCDateTime())))


def state(s: Session, level_id: int) -> meters.LevelState:
    """A level's meter and reserve (exact units) as kept (a read; no unit of work)."""
    row = s.get(LevelBalance, level_id)
    if row is None:
        raise FloorError(f"level #{level_id}: has no balance; start the floor first")
    return meters.LevelState(int(row.meter_units), int(row.reserve_units))


def current(u: Unit, level_id: int, *, lock: bool = True) -> meters.LevelState:
    """A level's meter and reserve now, inside ``u``: the kept balance (locked on PostgreSQL
    when ``lock``) plus every movement the transaction made so far."""
    root = u.root
    if level_id not in root.read_balances:
        q = select(LevelBalance.meter_units, LevelBalance.reserve_units).where(
            LevelBalance.level_id == level_id)
        if lock:
            q = q.with_for_update()
        row = u.s.execute(q).first()
        if row is None:
            raise FloorError(f"level #{level_id}: has no balance; start the floor first")
        root.read_balances[level_id] = (int(row[0]), int(row[1]))
    meter, reserve = root.read_balances[level_id]
    node: Unit | None = u
    while node is not None:
        d = node.deltas.get(level_id)
        if d is not None:
            meter += d[0]
            reserve += d[1]
        node = node.parent
    return meters.LevelState(meter, reserve)


def open_balance(s: Session, level_id: int, now: datetime) -> None:
    """A new level's balance row (0, 0) if it has none."""
    if s.get(LevelBalance, level_id) is None:
        s.add(LevelBalance(level_id=level_id, meter_units=0, reserve_units=0, entries=0,
                           last_entry_id=None, updated_at=now))
        s.flush()


_ENTRY_COLUMNS = ("kind", "meter_delta", "reserve_delta", "round_id", "hit_id", "award_id",
                  "reverses_id", "employee_id", "second_employee_id", "reason", "created_at")
_ENTRIES = Base.metadata.tables["meter_entries"]


def entry(kind: str, meter_delta: int, reserve_delta: int, reason: str, created_at: datetime,
          **refs: Any) -> dict[str, Any]:
    """One meter entry as a row (``refs``: round_id, hit_id, award_id, reverses_id,
    employee_id, second_employee_id)."""
    row = dict.fromkeys(_ENTRY_COLUMNS)
    row.update(kind=kind, meter_delta=meter_delta, reserve_delta=reserve_delta, reason=reason,
               created_at=created_at, **refs)
    return row


def add_entries(u: Unit, level: LevelRef | Level,
                entries: Sequence[MeterEntry | dict[str, Any]], *, keep_zero: bool = False
                ) -> None:
    """Record ``entries`` of ``level`` (rows made by :func:`entry`, or MeterEntry objects; one
    INSERT for all of them); the kept balance follows when the unit ends.  Refuses (FloorError,
    nothing written) movements that would take the meter or the reserve below zero.  An entry
    that moves nothing is dropped, unless ``keep_zero`` (a record that says why)."""
    add_to_levels(u, [(level, entries)], keep_zero=keep_zero)


def add_to_levels(u: Unit, items: Sequence[tuple[LevelRef | Level,
                                                  Sequence[MeterEntry | dict[str, Any]]]],
                  *, keep_zero: bool = False) -> None:
    """:func:`add_entries` for several levels at once (one INSERT for all their entries);
    every level is checked before anything is written."""
    planned: list[tuple[LevelRef | Level, list[dict[str, Any]], int, int]] = []
    for level, entries in items:
        rows = [e if isinstance(e, dict) else {c: getattr(e, c) for c in _ENTRY_COLUMNS}
                for e in entries]
        if not keep_zero:
            rows = [r for r in rows if r["meter_delta"] != 0 or r["reserve_delta"] != 0]
        if not rows:
            continue
        dm = sum(int(r["meter_delta"]) for r in rows)
        dr = sum(int(r["reserve_delta"]) for r in rows)
        if any(r["meter_delta"] < 0 or r["reserve_delta"] < 0 for r in rows):
            now = current(u, level.id)
            if now.meter_units + dm < 0 or now.reserve_units + dr < 0:
                below = "meter" if now.meter_units + dm < 0 else "reserve"
                raise FloorError(f"level {level.group_id}/{level.name}: this would take the "
                                 f"{below} below zero")
        planned.append((level, rows, dm, dr))
    if not planned:
        return
    every: list[dict[str, Any]] = []
    for level, rows, dm, dr in planned:
        for r in rows:
            r["level_id"] = level.id
            key = (level.id, r["created_at"].replace(minute=0, second=0, microsecond=0),
                   r["kind"])
            h = u.hours.get(key)
            if h is None:
                h = u.hours[key] = [0, 0, 0]
            h[0] += 1
            h[1] += int(r["meter_delta"])
            h[2] += int(r["reserve_delta"])
        every += rows
        acc = u.deltas.setdefault(level.id, [0, 0, 0])
        acc[0] += dm
        acc[1] += dr
        acc[2] += len(rows)
        u.levels.add((level.group_id, level.name))
    for r in every:  # one INSERT: every row with every column
        for c in _ENTRY_COLUMNS:
            r.setdefault(c, None)
    insert_rows(u.s.connection(), _ENTRIES, every)


_TABLE_HOURS = Base.metadata.tables["table_hour_totals"]
_TABLE_HOUR_SUMS = ("rounds", "wagers", "wager_cents", "returned_wagers", "returned_cents",
                    "contribution_units", "reversal_units")


def flush(u: Unit) -> None:
    """Fold the unit's movements into the kept balances and hourly totals (once, at its end)."""
    if u.parent is not None:
        raise RuntimeError("balances.flush: only the root unit of a transaction is flushed")
    if u.table_hours:
        upsert_rows(u.s.connection(), _TABLE_HOURS, [
            {"table_id": t, "hour": hour, **dict(zip(_TABLE_HOUR_SUMS, values, strict=True))}
            for (t, hour), values in sorted(u.table_hours.items())],
            ("table_id", "hour"), _TABLE_HOUR_SUMS)
        u.table_hours.clear()
    if not u.deltas:
        return
    conn = u.s.connection()
    conn.execute(_FOLD, [{"lid": lid, "dm": dm, "dr": dr, "n": n, "now": u.now}
                         for lid, (dm, dr, n) in sorted(u.deltas.items())])
    for lid, (dm, dr, _n) in u.deltas.items():
        if lid in u.read_balances:
            m, r = u.read_balances[lid]
            u.read_balances[lid] = (m + dm, r + dr)
    conn.execute(_UPSERT_HOUR, [
        {"level_id": lid, "hour": hour, "kind": kind, "entries": n, "meter_units": m,
         "reserve_units": r} for (lid, hour, kind), (n, m, r) in sorted(u.hours.items())])
    u.deltas.clear()
    u.hours.clear()


def write(u: Unit, level: LevelRef | Level, moves: Iterable[meters.Movement], reason: str = "",
          **refs: Any) -> None:
    """The movements of ``meters`` (contribute, award ...) as entries of ``level``."""
    add_entries(u, level, [
        MeterEntry(kind=mv.kind, meter_delta=mv.meter_delta, reserve_delta=mv.reserve_delta,
                   reason=reason or mv.reverses, created_at=u.now, **refs)
        for mv in moves])


def reverse(u: Unit, level_by_id: dict[int, LevelRef], entries: Sequence[MeterEntry],
            reason: str, **refs: Any) -> None:
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


def reverse_contributions(u: Unit, level_by_id: dict[int, LevelRef],
                          entries: Sequence[MeterEntry], reason: str, **refs: Any) -> int:
    """Take back a round's contributions (a misdeal) from wherever the money now is, never
    below zero, each as a ``reversal`` entry pointing at what it reverses:

    - a meter contribution from the meter (awards since may have paid part of it out);
    - a reserve contribution from the reserve, and what the reserve no longer holds from the
      meter (a 100% award's reseed moved the reserve there).

    What neither holds any more was paid out to a winner: the entry says how much, and takes
    only what is there (an entry of 0.00 when nothing is).  Never refused.  Returns the units
    taken back (meter and reserve, <= 0)."""
    taken = 0
    by_level: dict[int, list[MeterEntry]] = {}
    for e in entries:
        by_level.setdefault(e.level_id, []).append(e)
    for level_id, rows in by_level.items():
        lv = level_by_id[level_id]
        now = current(u, level_id)
        meter, reserve = now.meter_units, now.reserve_units
        out: list[dict[str, Any]] = []
        for e in reversed(rows):
            want_m, want_r = int(e.meter_delta), int(e.reserve_delta)
            take_r = min(want_r, reserve)
            take_m = min(want_m + (want_r - take_r), meter)
            meter -= take_m
            reserve -= take_r
            short = want_m + want_r - take_m - take_r
            words = f"{reason} (reverses {e.kind})"
            if take_r < want_r and take_m > want_m:
                words += "; the reserve's part from the meter, where a reseed moved it"
            if short:
                words += (f"; {format_exact(short)} of it already paid out in an award, not "
                          "taken back")
            out.append(entry("reversal", -take_m, -take_r, words, u.now, reverses_id=e.id,
                             **refs))
        add_entries(u, lv, out, keep_zero=True)
        taken += sum(int(r["meter_delta"]) + int(r["reserve_delta"]) for r in out)
    return taken


def format_exact(units: int) -> str:
    """Exact units as money with every digit kept ("0.18", "0.004500")."""
    from decimal import Decimal

    value = Decimal(units) / Decimal(UNITS_PER_CENT * 100)
    text = f"{value:.8f}".rstrip("0")
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac.ljust(2, '0')}"


def meter_cents(u: Unit, level_id: int) -> int:
    return units_floor_cents(current(u, level_id).meter_units)
