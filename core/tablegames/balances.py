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
the commit.  :func:`check_balances` compares the kept rows with the entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from core.ledger.models import (
    Base,
    Level,
    LevelBalance,
    LevelHourTotal,
    MeterEntry,
    UTCDateTime,
)
from core.ledger.rows import insert_rows, upsert_rows
from core.money import UNITS_PER_CENT, units_floor_cents
from core.tablegames import meters
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
_FOLD = (update(_BAL).where(_BAL.c.level_id == bindparam("lid")).values(
    meter_units=_BAL.c.meter_units + bindparam("dm"),
    reserve_units=_BAL.c.reserve_units + bindparam("dr"),
    entries=_BAL.c.entries + bindparam("n"),
    last_entry_id=select(func.max(MeterEntry.id))
    .where(MeterEntry.level_id == bindparam("lid")).scalar_subquery(),
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


def check_balances(engine: Engine) -> list[str]:
    """Every level's kept balance and hourly totals equal the sums of its entries, and its
    meter and reserve are >= 0.  Returns the problems; empty means fine."""
    problems: list[str] = []
    with Session(engine) as s, s.begin():
        for lv in s.scalars(select(Level).order_by(Level.id)):
            n, m, r, last = s.execute(select(
                func.count(MeterEntry.id), func.coalesce(func.sum(MeterEntry.meter_delta), 0),
                func.coalesce(func.sum(MeterEntry.reserve_delta), 0), func.max(MeterEntry.id))
                .where(MeterEntry.level_id == lv.id)).one()
            bal = s.get(LevelBalance, lv.id)
            where = f"level {lv.group_id}/{lv.name}"
            if bal is None:
                if n:
                    problems.append(f"{where}: {n} entries but no kept balance")
                continue
            if (int(bal.meter_units), int(bal.reserve_units), int(bal.entries)) != \
                    (int(m), int(r), int(n)) or (bal.last_entry_id or None) != last:
                problems.append(f"{where}: kept balance meter {bal.meter_units} reserve "
                                f"{bal.reserve_units} ({bal.entries} entries, last "
                                f"{bal.last_entry_id}) differs from its entries: meter {m} "
                                f"reserve {r} ({n} entries, last {last})")
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


_TABLE_TRUTH = (
    ("rounds", "SELECT r.table_id, count(*) FROM rounds r GROUP BY r.table_id"),
    ("wagers locked", "SELECT r.table_id, count(*) FROM wagers w JOIN rounds r "
     "ON r.id = w.round_id WHERE w.status IN ('locked', 'returned') GROUP BY r.table_id"),
    ("cents wagered", "SELECT r.table_id, sum(w.amount_cents) FROM wagers w JOIN rounds r "
     "ON r.id = w.round_id WHERE w.status IN ('locked', 'returned') GROUP BY r.table_id"),
    ("wagers returned", "SELECT r.table_id, count(*) FROM wagers w JOIN rounds r "
     "ON r.id = w.round_id WHERE w.status = 'returned' GROUP BY r.table_id"),
    ("cents returned", "SELECT r.table_id, sum(w.amount_cents) FROM wagers w JOIN rounds r "
     "ON r.id = w.round_id WHERE w.status = 'returned' GROUP BY r.table_id"),
    ("contribution units", "SELECT r.table_id, sum(e.meter_delta + e.reserve_delta) FROM "
     "meter_entries e JOIN rounds r ON r.id = e.round_id WHERE e.kind IN ('contribution', "
     "'reserve_contribution') GROUP BY r.table_id"),
    ("units taken back", "SELECT r.table_id, sum(e.meter_delta + e.reserve_delta) FROM "
     "meter_entries e JOIN rounds r ON r.id = e.round_id JOIN meter_entries o "
     "ON o.id = e.reverses_id WHERE e.kind = 'reversal' AND o.kind IN ('contribution', "
     "'reserve_contribution') GROUP BY r.table_id"),
)
_TABLE_KEPT = text(
    "SELECT table_id, sum(rounds), sum(wagers), sum(wager_cents), sum(returned_wagers), "
    "sum(returned_cents), sum(contribution_units), sum(reversal_units) "
    "FROM table_hour_totals GROUP BY table_id")


def check_table_totals(engine: Engine) -> list[str]:
    """Every table's kept ``table_hour_totals`` (revision 0016) add up to its rounds, wagers
    and contribution entries.  Returns the problems; empty means fine.  Reads every round."""
    problems: list[str] = []
    with Session(engine) as s, s.begin():
        conn = s.connection()
        kept = {r[0]: [int(x or 0) for x in r[1:]] for r in conn.execute(_TABLE_KEPT)}
        truth: dict[str, list[int]] = {}
        for i, (_what, sql) in enumerate(_TABLE_TRUTH):
            for tid, value in conn.execute(text(sql)):
                truth.setdefault(tid, [0] * len(_TABLE_TRUTH))[i] = int(value or 0)
    for tid in sorted(set(kept) | set(truth)):
        k = kept.get(tid, [0] * len(_TABLE_TRUTH))
        t = truth.get(tid, [0] * len(_TABLE_TRUTH))
        for (what, _sql), a, b in zip(_TABLE_TRUTH, k, t, strict=True):
            if a != b:
                problems.append(f"table {tid}: kept hourly totals say {a} {what}, its rounds "
                                f"and entries {b}")
    return problems


def _hour_sql(column: str, dialect: str) -> str:
    """SQL for the UTC hour of a ledger time column as ``YYYY-MM-DD HH`` text."""
    if dialect == "postgresql":
        return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24')"
    return f"substr({column}, 1, 13)"  # SQLite keeps UTC as naive ISO text


def _hour_key(value: Any) -> str:
    """A kept total's hour (a datetime, or SQLite's text) as ``YYYY-MM-DD HH``."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return str(value.strftime("%Y-%m-%d %H"))
    return str(value)[:13]


_HOUR_SUMS = ("rounds", "wagers", "wager_cents", "contribution_units", "reversal_units")


def check_hours(engine: Engine) -> list[str]:
    """Every hourly total recomputed from what it sums, hour by hour (a total moved to
    another hour keeps every sum, so :func:`check_balances` and :func:`check_table_totals`
    alone do not see it):

    - ``level_hour_totals``: per level, UTC hour of the entry and kind, the entries' count
      and their meter and reserve sums;
    - ``table_hour_totals``: per table and UTC hour, the rounds started and their wagers
      locked (in the round's hour), what they put into the levels (in the hour of the
      contribution entries: the same hour, as revision 0016 filled older rounds in) and the
      contributions taken back (in the hour of their reversal entries).  Wagers returned
      carry no time of their own: :func:`check_table_totals` checks them per table.

    Returns the problems; empty means fine."""
    with engine.connect() as conn:
        d = conn.dialect.name
        problems = _level_hours(conn, d)
        problems += _table_hours(conn, d)
        conn.rollback()
    return problems


def _level_hours(conn: Any, d: str) -> list[str]:
    kept: dict[tuple[int, str, str], tuple[int, int, int]] = {}
    for lid, hour, kind, n, m, r in conn.execute(text(
            "SELECT level_id, hour, kind, entries, meter_units, reserve_units "
            "FROM level_hour_totals")):
        key = (int(lid), _hour_key(hour), str(kind))
        old = kept.get(key, (0, 0, 0))  # SQLite text of two spellings of one hour: add up
        kept[key] = (old[0] + int(n), old[1] + int(m), old[2] + int(r))
    truth = {(int(lid), str(hour), str(kind)): (int(n), int(m), int(r))
             for lid, hour, kind, n, m, r in conn.execute(text(
                 f"SELECT level_id, {_hour_sql('created_at', d)} AS h, kind, count(*), "
                 "coalesce(sum(meter_delta), 0), coalesce(sum(reserve_delta), 0) "
                 "FROM meter_entries GROUP BY level_id, h, kind"))}
    names = {int(i): f"{g}/{n}" for i, g, n in conn.execute(text(
        "SELECT id, group_id, name FROM levels"))}
    out = []
    for key in sorted(set(kept) | set(truth)):
        k, t = kept.get(key, (0, 0, 0)), truth.get(key, (0, 0, 0))
        if k != t:
            lid, hour, kind = key
            out.append(f"level {names.get(lid, lid)}: hourly totals of {hour}:00 UTC, {kind}: "
                       f"kept {k[0]} entries, meter {k[1]}, reserve {k[2]}; its entries of "
                       f"that hour {t[0]}, meter {t[1]}, reserve {t[2]}")
    return out


def _table_hours(conn: Any, d: str) -> list[str]:
    kept: dict[tuple[str, str], list[int]] = {}
    for row in conn.execute(text(
            "SELECT table_id, hour, rounds, wagers, wager_cents, contribution_units, "
            "reversal_units FROM table_hour_totals")):
        acc = kept.setdefault((str(row[0]), _hour_key(row[1])), [0] * len(_HOUR_SUMS))
        for i, v in enumerate(row[2:]):
            acc[i] += int(v or 0)
    truth: dict[tuple[str, str], list[int]] = {}
    hour = _hour_sql("r.started_at", d)
    for i, sql in enumerate((
            f"SELECT r.table_id, {hour} AS h, count(*) FROM rounds r GROUP BY r.table_id, h",
            f"SELECT r.table_id, {hour} AS h, count(*) FROM wagers w JOIN rounds r "
            "ON r.id = w.round_id WHERE w.status IN ('locked', 'returned') "
            "GROUP BY r.table_id, h",
            f"SELECT r.table_id, {hour} AS h, sum(w.amount_cents) FROM wagers w JOIN rounds r "
            "ON r.id = w.round_id WHERE w.status IN ('locked', 'returned') "
            "GROUP BY r.table_id, h",
            f"SELECT r.table_id, {_hour_sql('e.created_at', d)} AS h, "
            "sum(e.meter_delta + e.reserve_delta) FROM meter_entries e JOIN rounds r "
            "ON r.id = e.round_id WHERE e.kind IN ('contribution', 'reserve_contribution') "
            "GROUP BY r.table_id, h",
            f"SELECT r.table_id, {_hour_sql('e.created_at', d)} AS h, "
            "sum(e.meter_delta + e.reserve_delta) FROM meter_entries e JOIN rounds r "
            "ON r.id = e.round_id JOIN meter_entries o ON o.id = e.reverses_id "
            "WHERE e.kind = 'reversal' AND o.kind IN ('contribution', 'reserve_contribution') "
            "GROUP BY r.table_id, h")):
        for tid, h, value in conn.execute(text(sql)):
            truth.setdefault((str(tid), str(h)), [0] * len(_HOUR_SUMS))[i] = int(value or 0)
    out = []
    zero = [0] * len(_HOUR_SUMS)
    for key in sorted(set(kept) | set(truth)):
        k, t = kept.get(key, zero), truth.get(key, zero)
        diff = [f"{what} {a} (its records {b})"
                for what, a, b in zip(_HOUR_SUMS, k, t, strict=True) if a != b]
        if diff:
            out.append(f"table {key[0]}: kept hourly totals of {key[1]}:00 UTC say "
                       f"{', '.join(diff)}")
    return out
