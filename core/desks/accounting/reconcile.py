"""The table progressives' reconciliation for a gaming day, a shift, a month or any whole-hour
range, and the liability at a moment.

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
(:func:`check_whole_hours`); the floor file refuses a gaming day or shift start that is not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.orm import Session

from core.desks.accounting.periods import Period, PeriodError
from core.desks.desk import Desk
from core.kernel.money import (
    UNITS_PER_CENT,
    Currency,
    decimal_text,
    format_units_exact,
    units_decimal,
)
from core.kernel.text import hit_ref
from core.ledger import integrity
from core.ledger.models import UTCDateTime

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


def check_whole_hours(period: Period) -> None:
    """Refuse a period that does not start and end on a whole hour of UTC."""
    for what, at in (("starts", period.start), ("ends", period.end)):
        u = at.astimezone(UTC)
        if u.minute or u.second or u.microsecond:
            raise PeriodError(
                f"period: {period.label} {what} at {u:%H:%M} UTC; the ledger keeps its totals "
                "by whole hours of UTC, so a report starts and ends on one (set the gaming "
                "day and shifts to start on a whole UTC hour in the casino's time zone)")


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


# --- reading --------------------------------------------------------------------------------

_T = UTCDateTime()


def _q(sql: str, *times: str) -> Any:
    return text(sql).bindparams(*(bindparam(t, type_=_T) for t in times))


_LEVELS = text("SELECT l.id, l.group_id, l.name, g.name FROM levels l JOIN groups g "
               "ON g.id = l.group_id ORDER BY l.group_id, l.id")
_SUM_BEFORE = _q("SELECT level_id, coalesce(sum(meter_units), 0), "
                 "coalesce(sum(reserve_units), 0) FROM level_hour_totals WHERE hour < :at "
                 "GROUP BY level_id", "at")
_SUM_FROM = _q("SELECT level_id, coalesce(sum(meter_units), 0), "
               "coalesce(sum(reserve_units), 0) FROM level_hour_totals WHERE hour >= :at "
               "GROUP BY level_id", "at")
_BY_KIND = _q("SELECT level_id, kind, sum(entries), sum(meter_units), sum(reserve_units) "
              "FROM level_hour_totals WHERE hour >= :start AND hour < :end "
              "GROUP BY level_id, kind", "start", "end")
_BALANCES = text("SELECT level_id, meter_units, reserve_units FROM level_balances")
# the entries of hits (awards, holds, reseeds, their reversals), found hit by hit through
# ix_meter_entries_hit_id (a hit is made before any entry that points at it).  CROSS JOIN
# keeps SQLite's planner to that order: left to itself it walks every entry of the ledger
# by (level, time); PostgreSQL plans it from its statistics either way.
_HIT_ENTRIES = _q(
    "SELECT e.level_id, e.kind, CASE WHEN e.award_id IS NOT NULL THEN 1 WHEN EXISTS ("
    "SELECT 1 FROM awards a WHERE a.hit_id = h.id AND a.created_at < :end) THEN 2 ELSE 0 END, "
    "coalesce(o.kind, ''), CASE WHEN o.award_id IS NULL THEN 0 ELSE 1 END, count(*), "
    "sum(e.meter_delta), sum(e.reserve_delta) "
    "FROM hits h CROSS JOIN meter_entries e "
    "LEFT JOIN meter_entries o ON o.id = e.reverses_id "
    "WHERE e.hit_id = h.id AND h.created_at < :end AND e.created_at >= :start "
    "AND e.created_at < :end GROUP BY 1, 2, 3, 4, 5", "start", "end")
_AWARDS = _q("SELECT a.level_id, a.source, a.hand, count(*), sum(a.amount_cents) FROM awards a "
             "WHERE a.created_at >= :start AND a.created_at < :end GROUP BY 1, 2, 3",
             "start", "end")
# per award paid in the period: what its hit's entries took from the meter (award entries
# less the holds given back; a void's reversal is not counted: the award was paid)
_BACKING = _q(
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
_SUMS = ("coalesce(sum(th.rounds), 0), coalesce(sum(th.wagers), 0), "
         "coalesce(sum(th.wager_cents), 0), coalesce(sum(th.returned_wagers), 0), "
         "coalesce(sum(th.returned_cents), 0), coalesce(sum(th.contribution_units), 0), "
         "coalesce(sum(th.reversal_units), 0)")
_TABLES = _q(
    f"SELECT th.table_id, t.group_id, {_SUMS} FROM table_hour_totals th "
    "JOIN tables t ON t.id = th.table_id WHERE th.hour >= :start AND th.hour < :end "
    "GROUP BY th.table_id, t.group_id", "start", "end")
_TABLE_HOURS = _q(
    f"SELECT th.table_id, th.hour, {_SUMS} FROM table_hour_totals th "
    "WHERE th.table_id IN :ids AND th.hour >= :start AND th.hour < :end "
    "GROUP BY th.table_id, th.hour", "start", "end").bindparams(
        bindparam("ids", expanding=True))
# a table's group as each floor start recorded it (a table may move to another link)
_TABLE_MOVES = text("SELECT subject, at, old_value, new_value FROM parameter_changes "
                    "WHERE scope = 'table' AND name = 'group' ORDER BY at, id")
_SLIP_OF = text("SELECT hit_id, slip_no FROM slips WHERE hit_id IN :ids").bindparams(
    bindparam("ids", expanding=True))


def utc(value: Any) -> datetime:
    """A time read by a plain SQL statement as an aware UTC datetime (SQLite gives the text
    SQLAlchemy stored, naive UTC; PostgreSQL an aware datetime)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise TypeError(f"not a time: {value!r}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def chain_head_text(s: Session) -> str:
    n, digest = integrity.chain_head(s.connection())
    return integrity.head_text(n, digest)


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
    level_rows = conn.execute(_LEVELS).all()
    opening = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(_SUM_BEFORE, {"at": start})}
    after = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(_SUM_FROM, {"at": end})}
    kept = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(_BALANCES)}
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
    # 3. the tables' contributions against the levels'
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
    return levels, groups, problems


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


# --- the liability at a moment ----------------------------------------------------------------

@dataclass(frozen=True)
class LevelLiability:
    group_id: str
    level: str
    meter_units: int
    reserve_units: int
    held_units: int  # amounts held at hit for pending pays (owed, out of the meter already)

    @property
    def total_units(self) -> int:
        return self.meter_units + self.reserve_units + self.held_units


@dataclass(frozen=True)
class Liability:
    at: datetime  # UTC
    chain_head: str
    levels: tuple[LevelLiability, ...]

    @property
    def total_units(self) -> int:
        return sum(lv.total_units for lv in self.levels)

    def to_json(self) -> dict[str, Any]:
        def money(units: int) -> str:
            return decimal_text(units_decimal(units))

        return {"at": self.at.isoformat(), "chain_head": self.chain_head,
                "total": money(self.total_units),
                "levels": [{"group": lv.group_id, "level": lv.level,
                            "meter": money(lv.meter_units), "reserve": money(lv.reserve_units),
                            "held_at_hit": money(lv.held_units),
                            "total": money(lv.total_units)} for lv in self.levels]}


# held at a moment: the hold entries (award entries without an award) and their releases
# written before it, of the hits not paid by then.  Two steps, so that no database plans a walk
# of every meter entry: the hits without an award by then (a scan of hits: pending ones, and
# rejected or cancelled ones, whose holds net to nothing), then their entries by hit.
_UNPAID_AT = _q(
    "SELECT h.id FROM hits h WHERE h.created_at < :at AND NOT EXISTS ("
    "SELECT 1 FROM awards a WHERE a.hit_id = h.id AND a.created_at < :at)", "at")
_HELD_OF = _q(
    "SELECT e.level_id, coalesce(sum(e.meter_delta), 0) FROM meter_entries e "
    "LEFT JOIN meter_entries o ON o.id = e.reverses_id "
    "WHERE e.hit_id IN :ids AND e.created_at < :at AND ("
    "(e.kind = 'award' AND e.award_id IS NULL) OR "
    "(e.kind = 'reversal' AND o.kind = 'award' AND o.award_id IS NULL)) "
    "GROUP BY e.level_id", "at").bindparams(bindparam("ids", expanding=True))


def held_at(conn: Any, at: datetime) -> dict[int, int]:
    """level id -> units held at hit for pays not made by ``at`` (>= 0)."""
    ids = [int(r[0]) for r in conn.execute(_UNPAID_AT, {"at": at})]
    held: dict[int, int] = defaultdict(int)
    for i in range(0, len(ids), 1000):
        for lid, units in conn.execute(_HELD_OF, {"ids": ids[i:i + 1000], "at": at}):
            held[int(lid)] -= int(units)
    return dict(held)


def liability(desk: Desk, at: datetime | None = None) -> Liability:
    """Every level's meter and reserve, and the amounts held at hit for pending pays, at
    ``at`` (a whole UTC hour; None: now, from the kept balances)."""
    with desk.read() as s:
        conn = s.connection()
        head = chain_head_text(s)
        when = at.astimezone(UTC) if at is not None else datetime.now(UTC)
        if at is not None:
            check_whole_hours(Period(when, when + timedelta(hours=1), "the moment"))
            bal = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(_SUM_BEFORE, {"at": when})}
        else:
            bal = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(_BALANCES)}
        held = held_at(conn, when)
        out = [LevelLiability(gid, name, *bal.get(lid, (0, 0)), held.get(lid, 0))
               for lid, gid, name, _g in conn.execute(_LEVELS)]
    return Liability(when, head, tuple(out))

