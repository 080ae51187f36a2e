"""The reconciliation's checks against what it can read apart from the hourly totals of the
levels (:mod:`core.desks.accounting.reconcile` makes the levels' lines and check 1):

2. every award paid in the period is backed by the meter entries that took it (a share of the
   meter exactly; a fixed pay "from the meter" never more than its amount);
3. what the tables' wagers put in (``table_hour_totals``, each table with the group it was in
   at each hour) equals the contributions the group's levels received, and what misdeals took
   back equals the levels' contribution reversals.

Each difference is named in words (``exact`` writes the amounts)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, text

from core.desks.accounting.reading import TABLE_SUMS, sql_at, utc
from core.desks.accounting.reconciliation import GroupDrop, LevelReconciliation
from core.kernel.money import UNITS_PER_CENT
from core.kernel.text import hit_ref

# per award paid in the period: what its hit's entries took from the meter (award entries
# less the holds given back; a void's reversal is not counted: the award was paid)
_BACKING = sql_at(
    "SELECT a.id, a.hit_id, a.source, a.level_id, a.amount_cents, a.meter_before_cents, "
    "coalesce(sum(CASE WHEN e.kind = 'award' THEN e.meter_delta "
    "WHEN e.kind = 'reversal' AND o.kind = 'award' AND o.award_id IS NULL "
    "AND e.award_id IS NULL THEN e.meter_delta ELSE 0 END), 0) "
    "FROM awards a LEFT JOIN meter_entries e ON e.hit_id = a.hit_id "
    "LEFT JOIN meter_entries o ON o.id = e.reverses_id "
    "WHERE a.created_at >= :start AND a.created_at < :end AND a.level_id IS NOT NULL "
    "GROUP BY a.id, a.hit_id, a.source, a.level_id, a.amount_cents, a.meter_before_cents "
    "ORDER BY a.id",
    "start", "end")
_TABLES = sql_at(
    f"SELECT th.table_id, t.group_id, {TABLE_SUMS} FROM table_hour_totals th "
    "JOIN tables t ON t.id = th.table_id WHERE th.hour >= :start AND th.hour < :end "
    "GROUP BY th.table_id, t.group_id", "start", "end")
_TABLE_HOURS = sql_at(
    f"SELECT th.table_id, th.hour, {TABLE_SUMS} FROM table_hour_totals th "
    "WHERE th.table_id IN :ids AND th.hour >= :start AND th.hour < :end "
    "GROUP BY th.table_id, th.hour", "start", "end").bindparams(
        bindparam("ids", expanding=True))
# a table's group as each floor start recorded it (a table may move to another link)
_TABLE_MOVES = text("SELECT subject, at, old_value, new_value FROM parameter_changes "
                    "WHERE scope = 'table' AND name = 'group' ORDER BY at, id")
_SLIP_OF = text("SELECT hit_id, slip_no FROM slips WHERE hit_id IN :ids").bindparams(
    bindparam("ids", expanding=True))


def award_backing(conn: Any, start: datetime, end: datetime, names: Mapping[int, str],
                  exact: Callable[[int], str]) -> list[str]:
    """Check 2: every award paid in ``[start, end)`` from a level (``names``: level id -> its
    words) against what its hit's entries took from the meter; a difference named with the
    award's slip."""
    problems: list[str] = []
    short: list[tuple[int, int, str]] = []
    for aid, hit_id, source, lid, cents, before, took in conn.execute(
            _BACKING, {"start": start, "end": end}):
        want = int(cents) * UNITS_PER_CENT
        took = -int(took)
        # a meter pay takes its amount; a fixed award paid from the meter ("all pays from
        # meter") no more than the meter held before it (the tray paid the rest)
        had = want if before is None else min(want, int(before) * UNITS_PER_CENT)
        if source == "meter" and took not in (want, had):
            short.append((int(hit_id), int(aid), f"{names.get(lid, lid)}: award #{aid} "
                          f"(hit {hit_ref(hit_id)}) of {exact(want)} took "
                          f"{exact(took)} from the meter"))
        elif source != "meter" and not 0 <= took <= want:
            short.append((int(hit_id), int(aid), f"{names.get(lid, lid)}: fixed award #{aid} "
                          f"(hit {hit_ref(hit_id)}) of {exact(want)} took "
                          f"{exact(took)} from the meter"))
    if short:
        slip_of: dict[int, int] = {int(h): int(n) for h, n in conn.execute(
            _SLIP_OF, {"ids": [h for h, _, _ in short]})}
        for hit_id, _aid, words in short:
            slip = slip_of.get(hit_id)
            problems.append(words + (f" (slip {slip})" if slip is not None else ""))
    return problems


def group_drops(conn: Any, levels: Sequence[LevelReconciliation], start: datetime,
                end: datetime, exact: Callable[[int], str], notes: list[str]
                ) -> tuple[list[GroupDrop], list[str]]:
    """Check 3: every group's tables in ``[start, end)`` against what its ``levels`` received
    and gave back; the groups and the differences (a difference that only a table moved
    between links makes, the floor's totals agreeing, goes to ``notes``)."""
    problems: list[str] = []
    groups: list[GroupDrop] = []
    level_in: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    group_names: dict[str, str] = {}
    for lv in levels:
        acc = level_in[lv.group_id]
        acc[0] += lv.lines["contribution"].meter_units + \
            lv.lines["reserve_contribution"].reserve_units
        rc = lv.reversal_parts["contributions"]
        acc[1] += rc.meter_units + rc.reserve_units
        group_names[lv.group_id] = lv.group_name
    table_rows, moved = tables_by_group(conn, start, end)
    group_words: list[str] = []
    for gid in sorted(set(level_in) | set(table_rows)):
        r = table_rows.get(gid, [0] * 7)
        li = level_in.get(gid, [0, 0])
        g = GroupDrop(gid, group_names.get(gid, gid), r[0], r[1], r[2], r[3], r[4], r[5],
                      r[6], li[0], li[1])
        groups.append(g)
        if g.contribution_units != g.level_contribution_units:
            group_words.append(
                f"group {gid}: the tables' wagers put in "
                f"{exact(g.contribution_units)}, its levels received "
                f"{exact(g.level_contribution_units)}: difference "
                f"{exact(g.contribution_units - g.level_contribution_units)}")
        if g.reversal_units != g.level_reversal_units:
            group_words.append(
                f"group {gid}: misdeals at its tables took back "
                f"{exact(-g.reversal_units)}, its levels gave back "
                f"{exact(-g.level_reversal_units)}: difference "
                f"{exact(g.level_reversal_units - g.reversal_units)}")
    floor_even = (sum(g.contribution_units - g.level_contribution_units for g in groups) == 0
                  and sum(g.reversal_units - g.level_reversal_units for g in groups) == 0)
    if group_words and moved and floor_even:
        # a round a table opened in one link and a misdeal of it after a floor start moved
        # the table to another: the floor's totals agree, the links' split is the move's
        notes.extend(f"{w} (table(s) {', '.join(sorted(moved))} moved between links; the "
                     "floor's tables and levels agree)" for w in group_words)
    else:
        problems.extend(group_words)
    return groups, problems


def tables_by_group(conn: Any, start: datetime, end: datetime
                    ) -> tuple[dict[str, list[int]], set[str]]:
    """The tables' hourly totals of ``[start, end)`` summed by the group each table was in at
    each hour (``parameter_changes``: a table moved to another link counts with the old one
    before the floor start that moved it, with the new one after; within that start's own hour
    with the new one)."""
    moves: dict[str, list[tuple[datetime, str]]] = {}
    for subject, at, old, new in conn.execute(_TABLE_MOVES):
        moves.setdefault(str(subject), []).append((utc(at), str(new or old or "")))
    moved = {t for t, ch in moves.items() if len({g for _, g in ch if g}) > 1}
    out: dict[str, list[int]] = defaultdict(lambda: [0] * 7)

    def add(group: str, values: Iterable[Any]) -> None:
        acc = out[group]
        for i, v in enumerate(values):
            acc[i] += int(v)

    for row in conn.execute(_TABLES, {"start": start, "end": end}):
        if str(row[0]) not in moved:
            add(str(row[1]), row[2:])
    if moved:
        for row in conn.execute(_TABLE_HOURS, {"ids": sorted(moved), "start": start,
                                               "end": end}):
            hour_end = utc(row[1]) + timedelta(hours=1)
            history = moves[str(row[0])]
            group = next((g for at, g in reversed(history) if at < hour_end and g),
                         history[0][1])
            add(group, row[2:])
    return dict(out), moved
