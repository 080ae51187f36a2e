"""Read-only views of the floor as it is now: none takes the write lock (``FloorContext.read``),
and none sums a meter's history (balances and hourly totals are kept beside the entries).

- :func:`snapshot`: every table, level and pending hit in three statements;
- :func:`touched_views`: the new state of what one unit of work touched (for its FloorChange);
- :func:`meter`: a level's kept balance.

Views over time (a level's trend, Activity, a period's report, a hit's record) are
``core.tablegames.reports``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from core.ledger.models import (
    GameTable,
    Group,
    Hit,
    Level,
    LevelBalance,
    Round,
    Wager,
)
from core.tablegames import flags
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import (
    FloorError,
    FloorSnapshot,
    LevelView,
    PendingHitView,
    TableView,
)

_LATEST_ROUND = (select(Round.id).where(Round.table_id == GameTable.id)
                 .order_by(Round.id.desc()).limit(1).correlate(GameTable).scalar_subquery())
_TABLES = (select(GameTable.id, GameTable.name, GameTable.group_id, Group.paytable_id,
                  GameTable.online, Round.round_no, Round.state, Round.id)
           .join(Group, Group.id == GameTable.group_id)
           .outerjoin(Round, Round.id == _LATEST_ROUND).order_by(GameTable.id))
_TABLES_IN = _TABLES.where(GameTable.id.in_(bindparam("ids", expanding=True)))
_PENDING = (select(Hit.id, Hit.table_id, Hit.seat, Hit.round_no, Wager.amount_cents,
                   Hit.claimed_hand, Hit.cards, Hit.flag_codes, Hit.flags, Hit.created_at,
                   Hit.locked_amount_cents, Hit.wager_id)
            .outerjoin(Wager, Wager.id == Hit.wager_id)
            .where(Hit.status == "pending").order_by(Hit.id))
_PENDING_OF_TABLES = _PENDING.where(Hit.table_id.in_(bindparam("ids", expanding=True)))
_PENDING_IN = _PENDING.where(Hit.id.in_(bindparam("ids", expanding=True)))
_LEVELS = (select(Level.group_id, Level.name, LevelBalance.meter_units,
                  LevelBalance.reserve_units, LevelBalance.last_entry_id, Level.id)
           .join(LevelBalance, LevelBalance.level_id == Level.id)
           .order_by(Level.group_id, Level.id))
_LEVELS_IN = _LEVELS.where(Level.group_id.in_(bindparam("ids", expanding=True)))


def _tables(s: Session, ids: list[str] | None = None) -> list[tuple[Any, ...]]:
    conn = s.connection()
    if ids is None:
        return list(conn.execute(_TABLES).all())
    return list(conn.execute(_TABLES_IN, {"ids": ids}).all())


def _pending(s: Session, now: datetime, stmt: Any = _PENDING,
             params: dict[str, Any] | None = None) -> list[PendingHitView]:
    out = []
    for (hid, table, seat, round_no, wager, claimed, cards, codes, legacy, created, locked,
         wager_id) in s.connection().execute(stmt, params or {}).all():
        fl = flags.loads(codes)
        out.append(PendingHitView(
            hid, table, seat, round_no, wager, claimed, tuple(cards.split()) if cards else (),
            flags.shown(fl, legacy), created, (now - created).total_seconds(), locked,
            wager_id is None or any(f.blocking for f in fl), flags.codes_of(fl, legacy)))
    return out


# the amounts lock at hit froze for hits still pending, per level (few rows: pending hits)
_FROZEN = (select(Hit.locked_level_id, func.coalesce(func.sum(Hit.locked_amount_cents), 0),
                  func.count())
           .where(Hit.status == "pending", Hit.locked_level_id.is_not(None))
           .group_by(Hit.locked_level_id))


def _levels(s: Session, groups: list[str] | None = None) -> list[LevelView]:
    conn = s.connection()
    rows = (conn.execute(_LEVELS) if groups is None
            else conn.execute(_LEVELS_IN, {"ids": groups}))
    frozen = {lid: (int(c or 0), int(n)) for lid, c, n in conn.execute(_FROZEN)}
    return [LevelView(g, n, int(m), int(r), int(v or 0), *frozen.get(lid, (0, 0)))
            for g, n, m, r, v, lid in rows]


_LOCKED_SEATS = (select(Wager.round_id, Wager.seat)
                 .where(Wager.round_id.in_(bindparam("ids", expanding=True)),
                        Wager.status == "locked").order_by(Wager.round_id, Wager.seat))


def _table_views(s: Session, rows: list[tuple[Any, ...]],
                 pending: list[PendingHitView]) -> list[TableView]:
    count: dict[str, int] = {}
    for p in pending:
        count[p.table] = count.get(p.table, 0) + 1
    locked = [rid for *_, state, rid in rows if state == "locked" and rid is not None]
    seats: dict[int, list[int]] = {}
    if locked:
        for rid, seat in s.connection().execute(_LOCKED_SEATS, {"ids": locked}):
            seats.setdefault(rid, []).append(seat)
    return [TableView(tid, name, group, paytable, bool(online), rno, state, count.get(tid, 0),
                      tuple(seats.get(rid, ())) if state == "locked" else ())
            for tid, name, group, paytable, online, rno, state, rid in rows]


def snapshot(ctx: FloorContext) -> FloorSnapshot:
    now = ctx.now()
    with ctx.read() as s:
        rows = _tables(s)
        pending = _pending(s, now)
        levels = _levels(s)
        tables = _table_views(s, rows, pending)
    return FloorSnapshot(now, tuple(tables), tuple(levels), tuple(pending))


def touched_views(ctx: FloorContext, u: Unit) -> tuple[tuple[TableView, ...],
                                                        tuple[LevelView, ...],
                                                        tuple[PendingHitView, ...],
                                                        frozenset[int]]:
    """The state, inside ``u``'s transaction, of every table, level and hit it touched."""
    s = u.s
    s.flush()
    tables: list[TableView] = []
    if u.tables:
        ids = sorted(u.tables)
        rows = _tables(s, ids)
        pend = _pending(s, u.now, _PENDING_OF_TABLES, {"ids": ids})
        tables = _table_views(s, rows, pend)
    levels: list[LevelView] = []
    if u.levels:
        groups = sorted({g for g, _ in u.levels})
        levels = [lv for lv in _levels(s, groups) if (lv.group, lv.level) in u.levels]
    pending: list[PendingHitView] = []
    closed: set[int] = set()
    if u.hits:
        pending = _pending(s, u.now, _PENDING_IN, {"ids": sorted(u.hits)})
        closed = set(u.hits) - {p.hit_id for p in pending}
    return tuple(tables), tuple(levels), tuple(pending), frozenset(closed)


def level_id(s: Session, group: str, level: str) -> int:
    found = s.scalar(select(Level.id).where(Level.group_id == group, Level.name == level))
    if found is None:
        raise FloorError(f"group {group}: no level {level}")
    return int(found)


def meter(ctx: FloorContext, group: str, level: str) -> meters.LevelState:
    """A level's meter and reserve (the sum of its entries, as kept beside them)."""
    with ctx.read() as s:
        return balances.state(s, level_id(s, group, level))
