"""The slip register, hits by level (the last 25 of each, NY 5320.8 style) and drop against
contributions per table, for a period.  Reads only, one snapshot each; the slip's ESC/POS
bytes are never read here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, text

from core.desks.accounting.periods import Period
from core.desks.accounting.reading import (
    TABLE_SUMS,
    chain_head_text,
    check_whole_hours,
    sql_at,
    utc,
)
from core.desks.desk import Desk
from core.kernel.money import (
    UNITS_PER_CENT,
    decimal_text,
    json_cents,
    units_decimal,
)

LAST_HITS = 25


def _who(number: str | None, name: str | None) -> str:
    return f"{name} #{number}" if number else ""


# --- the slip register ------------------------------------------------------------------------

@dataclass(frozen=True)
class SlipLine:
    slip_no: int
    at: datetime  # UTC
    table: str
    seat: int
    round_no: int
    hand: str
    level: str  # "WA01/MAIN", or "" for a tray pay
    source: str  # meter | tray
    cents: int
    authorized_by: str
    verified_by: str
    printed: int  # successful prints, the original included
    reprints: int  # of them, marked REPRINT or DUPLICATE
    failed: int
    void_at: datetime | None = None
    void_by: str = ""
    void_reason: str = ""
    money_returned: bool = False

    @property
    def state(self) -> str:
        if self.void_at is not None:
            return "void, money returned" if self.money_returned else "void"
        if self.printed == 0:
            return "paid, not printed" if self.failed == 0 else "paid, print failed"
        return "paid" if self.reprints == 0 else f"paid, reprinted {self.reprints}x"


@dataclass(frozen=True)
class SlipRegister:
    period: Period
    chain_head: str
    lines: tuple[SlipLine, ...]
    previous_slip: int | None  # the last slip number before the period
    gaps: tuple[str, ...]

    @property
    def paid_cents(self) -> int:
        return sum(x.cents for x in self.lines if x.void_at is None)

    @property
    def void_cents(self) -> int:
        return sum(x.cents for x in self.lines if x.void_at is not None)


_SLIPS = sql_at(
    "SELECT s.id, s.slip_no, s.created_at, h.table_id, h.seat, h.round_no, a.hand, "
    "coalesce(l.group_id || '/' || l.name, ''), a.source, a.amount_cents, "
    "ea.number, ea.name, ev.number, ev.name, v.created_at, evd.number, evd.name, v.reason, "
    "v.money_returned "
    "FROM slips s JOIN awards a ON a.id = s.award_id JOIN hits h ON h.id = s.hit_id "
    "LEFT JOIN levels l ON l.id = a.level_id "
    "LEFT JOIN employees ea ON ea.id = a.authorized_by "
    "LEFT JOIN employees ev ON ev.id = a.verified_by "
    "LEFT JOIN slip_voids v ON v.slip_id = s.id "
    "LEFT JOIN employees evd ON evd.id = v.employee_id "
    "WHERE s.created_at >= :start AND s.created_at < :end ORDER BY s.slip_no",
    "start", "end")
_PRINTS = text(
    "SELECT slip_id, "
    "sum(CASE WHEN coalesce(state, CASE WHEN ok THEN 'printed' ELSE 'failed' END) = 'printed' "
    "THEN 1 ELSE 0 END), "
    "sum(CASE WHEN coalesce(state, CASE WHEN ok THEN 'printed' ELSE 'failed' END) = 'printed' "
    "AND coalesce(marking, '') <> '' THEN 1 ELSE 0 END), "
    "sum(CASE WHEN coalesce(state, CASE WHEN ok THEN 'printed' ELSE 'failed' END) = 'failed' "
    "THEN 1 ELSE 0 END) "
    "FROM slip_print_attempts WHERE slip_id IN :ids GROUP BY slip_id"
).bindparams(bindparam("ids", expanding=True))
_BEFORE = sql_at("SELECT max(slip_no) FROM slips WHERE created_at < :start", "start")


def slip_register(desk: Desk, period: Period) -> SlipRegister:
    with desk.read() as s:
        conn = s.connection()
        head = chain_head_text(s)
        rows = conn.execute(_SLIPS, {"start": period.start, "end": period.end}).all()
        prints: dict[int, tuple[int, int, int]] = {}
        ids = [r[0] for r in rows]
        for i in range(0, len(ids), 500):
            for sid, ok, re, bad in conn.execute(_PRINTS, {"ids": ids[i:i + 500]}):
                prints[sid] = (int(ok or 0), int(re or 0), int(bad or 0))
        before = conn.execute(_BEFORE, {"start": period.start}).scalar()
    lines = tuple(SlipLine(
        int(r[1]), utc(r[2]), str(r[3]), int(r[4]), int(r[5]), str(r[6]), str(r[7]), str(r[8]),
        int(r[9]), _who(r[10], r[11]), _who(r[12], r[13]), *prints.get(r[0], (0, 0, 0)),
        void_at=utc(r[14]) if r[14] is not None else None, void_by=_who(r[15], r[16]),
        void_reason=r[17] or "",
        money_returned=bool(r[18])) for r in rows)
    gaps: list[str] = []
    expect = (int(before) + 1) if before is not None else (lines[0].slip_no if lines else None)
    for line in lines:
        if expect is not None and line.slip_no != expect:
            missing = (f"slip {expect}" if line.slip_no == expect + 1
                       else f"slips {expect} to {line.slip_no - 1}")
            gaps.append(f"{missing} missing before slip {line.slip_no}" if line.slip_no > expect
                        else f"slip {line.slip_no} out of order")
        expect = line.slip_no + 1
    return SlipRegister(period, head, lines, int(before) if before is not None else None,
                        tuple(gaps))


def register_json(reg: SlipRegister, desk: Desk) -> dict[str, Any]:
    return {
        "period": {"label": reg.period.label, "start": reg.period.start.isoformat(),
                   "end": reg.period.end.isoformat()},
        "chain_head": reg.chain_head, "previous_slip": reg.previous_slip,
        "gaps": list(reg.gaps), "paid": json_cents(reg.paid_cents),
        "void": json_cents(reg.void_cents),
        "slips": [{
            "slip_no": x.slip_no, "at": desk.local(x.at).isoformat(timespec="milliseconds"),
            "table": x.table, "seat": x.seat, "round": x.round_no, "hand": x.hand,
            "level": x.level, "source": x.source, "amount": json_cents(x.cents),
            "state": x.state, "authorized_by": x.authorized_by, "verified_by": x.verified_by,
            "printed": x.printed, "reprints": x.reprints, "failed_prints": x.failed,
            "void_at": desk.local(x.void_at).isoformat(timespec="milliseconds")
            if x.void_at else None,
            "void_by": x.void_by, "void_reason": x.void_reason,
            "money_returned": x.money_returned,
        } for x in reg.lines],
    }


# --- hits by level ----------------------------------------------------------------------------

@dataclass(frozen=True)
class HitLine:
    at: datetime
    table: str
    seat: int
    hand: str
    cents: int
    slip_no: int | None
    authorized_by: str
    void: bool


@dataclass(frozen=True)
class LevelHits:
    group_id: str
    level: str  # a level's name, or "TRAY" for the group's fixed pays paid from the tray
    hits: int  # paid in the period
    cents: int
    last: tuple[HitLine, ...]  # the last 25 up to the period's end, newest first


@dataclass(frozen=True)
class HitsByLevel:
    period: Period
    chain_head: str
    levels: tuple[LevelHits, ...]


_LEVEL_COUNTS = sql_at(
    "SELECT coalesce(l.group_id, t.group_id), coalesce(l.name, 'TRAY'), count(*), "
    "sum(a.amount_cents) FROM awards a JOIN hits h ON h.id = a.hit_id "
    "JOIN tables t ON t.id = h.table_id LEFT JOIN levels l ON l.id = a.level_id "
    "WHERE a.created_at >= :start AND a.created_at < :end GROUP BY 1, 2", "start", "end")
_LAST_OF_LEVEL = sql_at(
    "SELECT a.created_at, h.table_id, h.seat, a.hand, a.amount_cents, s.slip_no, e.number, "
    "e.name, v.id FROM awards a JOIN hits h ON h.id = a.hit_id "
    "LEFT JOIN slips s ON s.award_id = a.id LEFT JOIN slip_voids v ON v.slip_id = s.id "
    "LEFT JOIN employees e ON e.id = a.authorized_by "
    "WHERE a.level_id = :lid AND a.created_at < :end ORDER BY a.id DESC LIMIT 25", "end")
_LAST_TRAY = sql_at(
    "SELECT a.created_at, h.table_id, h.seat, a.hand, a.amount_cents, s.slip_no, e.number, "
    "e.name, v.id FROM awards a JOIN hits h ON h.id = a.hit_id "
    "JOIN tables t ON t.id = h.table_id "
    "LEFT JOIN slips s ON s.award_id = a.id LEFT JOIN slip_voids v ON v.slip_id = s.id "
    "LEFT JOIN employees e ON e.id = a.authorized_by "
    "WHERE a.level_id IS NULL AND t.group_id = :gid AND a.created_at < :end "
    "ORDER BY a.id DESC LIMIT 25", "end")


def hits_by_level(desk: Desk, period: Period) -> HitsByLevel:
    out: list[LevelHits] = []
    with desk.read() as s:
        conn = s.connection()
        head = chain_head_text(s)
        counts = {(r[0], r[1]): (int(r[2]), int(r[3])) for r in conn.execute(
            _LEVEL_COUNTS, {"start": period.start, "end": period.end})}
        levels = conn.execute(text("SELECT id, group_id, name FROM levels "
                                   "ORDER BY group_id, id")).all()
        keys: list[tuple[str, str, Any]] = [(g, n, lid) for lid, g, n in levels]
        keys += [(g, "TRAY", None) for g, n in counts if n == "TRAY"]
        order = {k: i for i, k in enumerate(keys)}
        keys.sort(key=lambda k: (k[0], k[1] == "TRAY", order[k]))
        for gid, name, lid in keys:
            q = _LAST_OF_LEVEL if lid is not None else _LAST_TRAY
            rows = conn.execute(q, {"lid": lid, "gid": gid, "end": period.end}).all()
            n, cents = counts.get((gid, name), (0, 0))
            out.append(LevelHits(gid, name, n, cents, tuple(HitLine(
                utc(r[0]), str(r[1]), int(r[2]), str(r[3]), int(r[4]),
                int(r[5]) if r[5] is not None else None, _who(r[6], r[7]), r[8] is not None)
                for r in rows)))
    return HitsByLevel(period, head, tuple(out))


# --- drop against contributions per table -------------------------------------------------------

@dataclass(frozen=True)
class TableDrop:
    table: str
    group_id: str
    rounds: int
    wagers: int
    wager_cents: int
    returned_wagers: int
    returned_cents: int
    contribution_units: int
    reversal_units: int
    configured_rate: Decimal  # the group's levels' contribution + reserve rates now

    @property
    def drop_cents(self) -> int:
        return self.wager_cents - self.returned_cents

    @property
    def net_contribution_units(self) -> int:
        return self.contribution_units + self.reversal_units

    @property
    def rate(self) -> Decimal | None:
        """What the table's drop put into the meters, as a fraction of the drop (exact)."""
        if self.drop_cents == 0:
            return None
        return Decimal(self.net_contribution_units) / Decimal(self.drop_cents * UNITS_PER_CENT)


@dataclass(frozen=True)
class DropReport:
    period: Period
    chain_head: str
    tables: tuple[TableDrop, ...]


_TABLE_DROP = sql_at(
    f"SELECT t.id, t.group_id, {TABLE_SUMS} FROM tables t "
    "LEFT JOIN table_hour_totals th ON th.table_id = t.id AND th.hour >= :start "
    "AND th.hour < :end GROUP BY t.id, t.group_id ORDER BY t.group_id, t.id", "start", "end")
_RATES = text(
    "SELECT l.group_id, ls.contribution_rate_ppm + ls.reserve_rate_ppm FROM level_settings ls "
    "JOIN levels l ON l.id = ls.level_id WHERE ls.id = (SELECT max(x.id) FROM level_settings x "
    "WHERE x.level_id = ls.level_id)")


def drop_by_table(desk: Desk, period: Period) -> DropReport:
    check_whole_hours(period)
    with desk.read() as s:
        conn = s.connection()
        head = chain_head_text(s)
        rates: dict[str, int] = {}
        for gid, ppm in conn.execute(_RATES):
            rates[gid] = rates.get(gid, 0) + int(ppm)
        rows = conn.execute(_TABLE_DROP, {"start": period.start, "end": period.end}).all()
    return DropReport(period, head, tuple(TableDrop(
        str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]),
        int(r[7]), int(r[8]), Decimal(rates.get(r[1], 0)) / Decimal(1_000_000))
        for r in rows))


def drop_json(rep: DropReport) -> dict[str, Any]:
    return {
        "period": {"label": rep.period.label, "start": rep.period.start.isoformat(),
                   "end": rep.period.end.isoformat()},
        "chain_head": rep.chain_head,
        "tables": [{
            "table": t.table, "group": t.group_id, "rounds": t.rounds, "wagers": t.wagers,
            "wagered": json_cents(t.wager_cents), "returned_wagers": t.returned_wagers,
            "returned": json_cents(t.returned_cents), "drop": json_cents(t.drop_cents),
            "contributions": decimal_text(units_decimal(t.contribution_units)),
            "taken_back": decimal_text(units_decimal(t.reversal_units)),
            "net_contributions": decimal_text(units_decimal(t.net_contribution_units)),
            "rate": None if t.rate is None else f"{t.rate.quantize(Decimal('0.000001')):f}",
            "configured_rate": f"{t.configured_rate:f}",
        } for t in rep.tables],
    }


def hits_json(rep: HitsByLevel, desk: Desk) -> dict[str, Any]:
    return {
        "period": {"label": rep.period.label, "start": rep.period.start.isoformat(),
                   "end": rep.period.end.isoformat()},
        "chain_head": rep.chain_head,
        "levels": [{
            "group": lv.group_id, "level": lv.level, "hits": lv.hits,
            "amount": json_cents(lv.cents),
            "last": [{"at": desk.local(h.at).isoformat(timespec="milliseconds"),
                      "table": h.table, "seat": h.seat, "hand": h.hand,
                      "amount": json_cents(h.cents), "slip_no": h.slip_no,
                      "authorized_by": h.authorized_by, "void": h.void} for h in lv.last],
        } for lv in rep.levels],
    }

