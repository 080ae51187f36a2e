"""The liability at a moment: every level's meter and reserve, and the amounts held at hit for
pays not made by then (``podium report liability``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam

from core.desks.accounting.periods import Period
from core.desks.accounting.reading import (
    BALANCES,
    LEVELS,
    SUM_BEFORE,
    chain_head_text,
    check_whole_hours,
    sql_at,
)
from core.desks.desk import Desk
from core.kernel.money import decimal_text, units_decimal


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
_UNPAID_AT = sql_at(
    "SELECT h.id FROM hits h WHERE h.created_at < :at AND NOT EXISTS ("
    "SELECT 1 FROM awards a WHERE a.hit_id = h.id AND a.created_at < :at)", "at")
_HELD_OF = sql_at(
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
            bal = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(SUM_BEFORE, {"at": when})}
        else:
            bal = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(BALANCES)}
        held = held_at(conn, when)
        out = [LevelLiability(gid, name, *bal.get(lid, (0, 0)), held.get(lid, 0))
               for lid, gid, name, _g in conn.execute(LEVELS)]
    return Liability(when, head, tuple(out))
