"""The table progressives' reconciliation for a gaming day, a shift, a month or any whole-hour
range.

Per level (RULES.md 4): opening meter and reserve, every movement of the period by kind
(seed, contributions, reserve contributions, awards and holds, reseeds, reserve moved to the
meter, adjustments, reversals split by what they took back), closing.  The figures come from
``level_hour_totals`` (kept in the same transaction as every meter entry), so a month costs a
few thousand rows whatever the rounds; the report then checks them against what it can read
independently, and names every difference:

1. closing = opening + the movements (exact units), and equals the level's kept balance less
   everything after the period;
2. every award paid in the period is backed by the meter entries that took it (a share of the
   meter exactly; a fixed pay "from the meter" never more than its amount);
3. what the tables' wagers put in (``table_hour_totals``) equals the contributions the group's
   levels received, and what misdeals took back equals the levels' contribution reversals.

Periods start and end on whole hours of UTC, which the hourly totals are kept in
(:func:`core.desks.accounting.reading.check_whole_hours`); the floor file refuses a gaming
day or shift start that is not.

The records: :mod:`core.desks.accounting.reconciliation`; checks 2 and 3:
:mod:`core.desks.accounting.meter_checks`; the liability at a moment:
:mod:`core.desks.accounting.liability`.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from sqlalchemy.orm import Session

from core.desks.accounting.meter_checks import award_backing, group_drops
from core.desks.accounting.periods import Period
from core.desks.accounting.reading import (
    BALANCES,
    LEVELS,
    SUM_BEFORE,
    chain_head_text,
    check_whole_hours,
    sql_at,
)
from core.desks.accounting.reconciliation import (
    KINDS,
    REVERSAL_PARTS,
    Flow,
    GroupDrop,
    HandAwards,
    LevelReconciliation,
    Reconciliation,
)
from core.desks.desk import Desk
from core.kernel.money import Currency, format_units_exact

_SUM_FROM = sql_at("SELECT level_id, coalesce(sum(meter_units), 0), "
                   "coalesce(sum(reserve_units), 0) FROM level_hour_totals WHERE hour >= :at "
                   "GROUP BY level_id", "at")
_BY_KIND = sql_at(
    "SELECT level_id, kind, sum(entries), sum(meter_units), sum(reserve_units) "
    "FROM level_hour_totals WHERE hour >= :start AND hour < :end "
    "GROUP BY level_id, kind", "start", "end")
# the entries of hits (awards, holds, reseeds, their reversals), found hit by hit through
# ix_meter_entries_hit_id (a hit is made before any entry that points at it).  CROSS JOIN
# keeps SQLite's planner to that order: left to itself it walks every entry of the ledger
# by (level, time); PostgreSQL plans it from its statistics either way.
_HIT_ENTRIES = sql_at(
    "SELECT e.level_id, e.kind, CASE WHEN e.award_id IS NOT NULL THEN 1 WHEN EXISTS ("
    "SELECT 1 FROM awards a WHERE a.hit_id = h.id AND a.created_at < :end) THEN 2 ELSE 0 END, "
    "coalesce(o.kind, ''), CASE WHEN o.award_id IS NULL THEN 0 ELSE 1 END, count(*), "
    "sum(e.meter_delta), sum(e.reserve_delta) "
    "FROM hits h CROSS JOIN meter_entries e "
    "LEFT JOIN meter_entries o ON o.id = e.reverses_id "
    "WHERE e.hit_id = h.id AND h.created_at < :end AND e.created_at >= :start "
    "AND e.created_at < :end GROUP BY 1, 2, 3, 4, 5", "start", "end")
_AWARDS = sql_at(
    "SELECT a.level_id, a.source, a.hand, count(*), sum(a.amount_cents) FROM awards a "
    "WHERE a.created_at >= :start AND a.created_at < :end GROUP BY 1, 2, 3", "start", "end")


def reconcile(desk: Desk, period: Period, *, now: datetime | None = None) -> Reconciliation:
    """The reconciliation of every level for ``period`` (whole UTC hours), read in one
    snapshot."""
    check_whole_hours(period)
    made = (now or datetime.now(UTC)).astimezone(UTC)
    money = desk.config.money  # the floor's currency, the casino's locale
    with desk.read() as s:
        head = chain_head_text(s)
        notes: list[str] = []
        rows = reconcile_in(s, period, money, notes)
    levels, groups, problems = rows
    return Reconciliation(period, made, head, tuple(levels), tuple(groups), tuple(problems),
                          tuple(notes))


def reconcile_in(s: Session, period: Period, money: Currency | None = None,
                 notes: list[str] | None = None
                 ) -> tuple[list[LevelReconciliation], list[GroupDrop], list[str]]:
    """The levels, the groups and the problems (``notes`` gets what is worth saying but is not
    a difference; ``money`` writes their amounts, None: the figures alone)."""
    exact = money.units_exact if money is not None else format_units_exact
    if notes is None:
        notes = []
    start, end = period.start, period.end
    conn = s.connection()
    level_rows = conn.execute(LEVELS).all()
    opening = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(SUM_BEFORE, {"at": start})}
    after = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(_SUM_FROM, {"at": end})}
    kept = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(BALANCES)}
    by_kind: dict[int, dict[str, Flow]] = defaultdict(dict)
    for lid, kind, n, m, r in conn.execute(_BY_KIND, {"start": start, "end": end}):
        by_kind[lid][kind] = Flow(int(n), int(m), int(r))
    paid: dict[int, Flow] = defaultdict(Flow)
    held: dict[int, Flow] = defaultdict(Flow)
    rev: dict[int, dict[str, Flow]] = defaultdict(lambda: defaultdict(Flow))
    for lid, kind, has_award, o_kind, o_award, n, m, r in conn.execute(
            _HIT_ENTRIES, {"start": start, "end": end}):
        f = Flow(int(n), int(m), int(r))
        if kind == "award":
            # 1: the award's own entries; 2: held at hit, its pay made by the period's end;
            # 0: held at hit for a pay not made by then
            if has_award:
                paid[lid] += f
            else:
                held[lid] += f
        elif kind == "reversal":
            # a void's reversal names the award (core/tablegames/pay/voids.py), also when it
            # gives back a lock-at-hit pay's entries, which name only the hit
            part = ("awards" if has_award == 1
                    else "holds" if o_kind in ("award", "reseed", "reserve_move")
                    and not o_award
                    else "awards" if o_kind in ("award", "reseed", "reserve_move") and o_award
                    else "contributions" if o_kind in ("contribution", "reserve_contribution")
                    else "other")
            rev[lid][part] += f
    awards: dict[int | None, list[HandAwards]] = defaultdict(list)
    for lid, source, hand, n, cents in conn.execute(_AWARDS, {"start": start, "end": end}):
        awards[lid].append(HandAwards(str(hand), str(source), int(n), int(cents)))
    problems: list[str] = []
    levels: list[LevelReconciliation] = []
    names: dict[int, str] = {}
    for lid, gid, name, gname in level_rows:
        where = f"level {gid}/{name}"
        names[lid] = where
        lines = {k: by_kind[lid].get(k, Flow()) for k, _ in KINDS}
        unknown = sorted(set(by_kind[lid]) - set(lines))
        for k in unknown:  # a kind this report does not know still counts, and is named
            problems.append(f"{where}: entries of an unknown kind {k!r}")
        moved_m = sum(f.meter_units for f in by_kind[lid].values())
        moved_r = sum(f.reserve_units for f in by_kind[lid].values())
        o_m, o_r = opening.get(lid, (0, 0))
        c_m, c_r = o_m + moved_m, o_r + moved_r
        b_m, b_r = kept.get(lid, (0, 0))
        a_m, a_r = after.get(lid, (0, 0))
        k_m, k_r = b_m - a_m, b_r - a_r
        if (c_m, c_r) != (k_m, k_r):
            problems.append(
                f"{where}: closing by the movements (meter {exact(c_m)}, "
                f"reserve {exact(c_r)}) differs from the kept balance less "
                f"what came after (meter {exact(k_m)}, reserve "
                f"{exact(k_r)}): difference meter "
                f"{exact(c_m - k_m)}, reserve "
                f"{exact(c_r - k_r)}")
        if c_m < 0 or c_r < 0:
            problems.append(f"{where}: closes below zero (meter {exact(c_m)}, "
                            f"reserve {exact(c_r)})")
        parts = {k: rev[lid].get(k, Flow()) for k, _ in REVERSAL_PARTS}
        known = parts["holds"] + parts["awards"] + parts["contributions"] + parts["other"]
        # reversals of a round's contributions carry no hit: the rest of the kind's total
        parts["contributions"] = parts["contributions"] + (lines["reversal"] - known)
        levels.append(LevelReconciliation(
            gid, gname, name, lid, o_m, o_r, lines, parts, paid.get(lid, Flow()),
            held.get(lid, Flow()), c_m, c_r, k_m, k_r,
            tuple(sorted(awards.get(lid, []), key=lambda a: (-a.cents, a.hand)))))
    # 2. every award paid in the period is backed by its meter entries
    problems += award_backing(conn, start, end, names, exact)
    # 3. the tables' contributions against the levels'
    groups, group_problems = group_drops(conn, levels, start, end, exact, notes)
    problems += group_problems
    return levels, groups, problems
