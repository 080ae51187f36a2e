"""The ledger's kept balances checked against their truth: every level's ``level_balances`` and
``level_hour_totals``, and every table's ``table_hour_totals``, recomputed from the entries,
rounds and wagers they sum (``core.tablegames.meters.balances`` keeps them as the floor
writes).  The audit (``core.ledger.audit``) and the tests run these; each returns its problems,
empty when fine."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from core.ledger.models import Level, LevelBalance, LevelHourTotal, MeterEntry


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
