"""START GAME and END GAME of a whole batch in a few statements (the ledger writer's hot path).

A busy floor is mostly START GAME and END GAME.  :func:`record` takes a run of them (every
table's, in the order the writer took them) and records them as :func:`ingest.record` would one
by one, with the same refusals in the same words, but with one statement per table touched
instead of several per event:

1. **read** (three statements for the whole run): the tables, where each (table, boot)
   stands in its sequence (the last seq recorded and refused), and the rounds the events name;
   and, when some events are sent again (a seq at or below where its boot stands), one more:
   whether each was recorded or refused, and why;
2. **decide** each event in order, in memory, exactly as :func:`ingest.record` does (a replay,
   a refusal and its reason, out of order, or taken), each decision seeing the ones before it
   in the run;
3. **write**: every event row, then every round (``RETURNING`` its id), then every wager, every
   level's contribution entries (one INSERT), the ended rounds, the refusals.

An event sent again is decided as ingest.record decides it: recorded before, a replay (nothing
written); refused before, refused again for the same reason (no second row); neither, out of
order (refused and kept).  One that would be refused before its sequence is looked at (an
unconfigured table, a seq below 1) goes the one-by-one way (:func:`ingest.record`) in its turn.
Anything unexpected raises, and the writer does its batch again the one-by-one way.

A round's contribution to each level is ONE entry per movement kind (contribution, reserve
contribution), the sum over its locked wagers: contributions are exact (whole cents x rates of
at most six decimals, in units of 1/1,000,000 cent), so each seat's share is its wager row times
the level's rates in force, and nothing is lost by the sum.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import select, text, update

from core.controllers.events import GameEnded, GameStarted, Origin, OutOfOrder
from core.controllers.frames import MAX_TIME_CHARS
from core.controllers.screening import event_bounds_problem, refusal_text, storable
from core.ledger.models import Base
from core.ledger.rows import insert_rows
from core.tablegames.ingest.events import _round_problem, payload, wager_problem
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.setup import levels, settings
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import FloorError

log = logging.getLogger("podium.floor")

BULK_EVENTS = (GameStarted, GameEnded)

_EVENTS = Base.metadata.tables["controller_events"]
_REFUSED = Base.metadata.tables["refused_events"]
_ROUNDS = Base.metadata.tables["rounds"]
_TABLES = Base.metadata.tables["tables"]
_WAGERS = Base.metadata.tables["wagers"]
_CHUNK = 400  # keys per IN list


@dataclass
class Item:
    """One event of the run and what became of it: ``done`` (True recorded, False a replay) or
    ``error`` (a FloorError refusal, or OutOfOrder); ``slow``: left to :func:`ingest.record`."""

    origin: Origin
    event: GameStarted | GameEnded
    done: bool | None = None
    error: Exception | None = None
    slow: bool = False


@dataclass
class _Round:
    id: int | None  # None: started in this run (its id comes with its INSERT)
    state: str
    start: _Start | None = None


@dataclass
class _Start:
    item: Item
    table: Any
    event_index: int
    wagers: list[dict[str, Any]]
    moves: dict[int, dict[str, list[int]]]  # level id -> kind -> [meter units, reserve units]
    round_no: int


def _chunks(keys: Sequence[Any]) -> list[Sequence[Any]]:
    return [keys[i:i + _CHUNK] for i in range(0, len(keys), _CHUNK)]


def record(ctx: FloorContext, u: Unit, items: Sequence[Item],
           slow: Callable[[Item], None]) -> None:
    """Record ``items`` (START GAME / END GAME of any tables, in order) inside ``u``; each
    item's ``done`` or ``error`` says what became of it.  ``slow(item)`` records one the
    one-by-one way (:func:`ingest.record`) in its turn: it may write, so what it touched is
    read again before the next item is decided."""
    pending = list(items)
    while pending:
        run = _decide(ctx, u, pending)
        _write(ctx, u, run.taken, run.refusals, run.rounds)
        if run.slow_at is None:
            return
        item = pending[run.slow_at]
        item.slow = True
        slow(item)
        pending = pending[run.slow_at + 1:]


@dataclass
class _Run:
    taken: list[tuple[Item, Any]]
    refusals: list[tuple[Item, str]]
    rounds: dict[tuple[str, str, int], _Round]
    slow_at: int | None


# Where each (table, boot) stands and the rounds a run names: one statement each, its keys
# passed as one array (PostgreSQL) or one JSON list (SQLite), each key an index probe.
_PG_LAST = text(
    "SELECT v.t, v.b, (SELECT max(e.seq) FROM controller_events e WHERE e.table_id = v.t AND "
    "e.boot = v.b), (SELECT max(r.seq) FROM refused_events r WHERE r.table_id = v.t AND "
    "r.boot = v.b) FROM unnest(CAST(:t AS text[]), CAST(:b AS text[])) AS v(t, b)")
_SQLITE_LAST = text(
    "SELECT v.t, v.b, (SELECT max(e.seq) FROM controller_events e WHERE e.table_id = v.t AND "
    "e.boot = v.b), (SELECT max(r.seq) FROM refused_events r WHERE r.table_id = v.t AND "
    "r.boot = v.b) FROM (SELECT json_extract(value, '$[0]') AS t, json_extract(value, '$[1]') "
    "AS b FROM json_each(:k)) AS v")
_PG_ROUNDS = text(
    "SELECT r.id, r.table_id, r.boot, r.round_no, r.state FROM unnest(CAST(:t AS text[]), "
    "CAST(:b AS text[]), CAST(:r AS integer[])) AS v(t, b, n) JOIN rounds r ON "
    "r.table_id = v.t AND r.boot = v.b AND r.round_no = v.n ORDER BY r.id")
_SQLITE_ROUNDS = text(
    "SELECT r.id, r.table_id, r.boot, r.round_no, r.state FROM (SELECT json_extract(value, "
    "'$[0]') AS t, json_extract(value, '$[1]') AS b, json_extract(value, '$[2]') AS n FROM "
    "json_each(:k)) AS v JOIN rounds r ON r.table_id = v.t AND r.boot = v.b AND "
    "r.round_no = v.n ORDER BY r.id")


_PG_HELD = text(
    "SELECT v.t, v.b, v.q, (SELECT 1 FROM controller_events e WHERE e.table_id = v.t AND "
    "e.boot = v.b AND e.seq = v.q), (SELECT r.reason FROM refused_events r WHERE "
    "r.table_id = v.t AND r.boot = v.b AND r.seq = v.q) FROM unnest(CAST(:t AS text[]), "
    "CAST(:b AS text[]), CAST(:q AS bigint[])) AS v(t, b, q)")
_SQLITE_HELD = text(
    "SELECT v.t, v.b, v.q, (SELECT 1 FROM controller_events e WHERE e.table_id = v.t AND "
    "e.boot = v.b AND e.seq = v.q), (SELECT r.reason FROM refused_events r WHERE "
    "r.table_id = v.t AND r.boot = v.b AND r.seq = v.q) FROM (SELECT json_extract(value, "
    "'$[0]') AS t, json_extract(value, '$[1]') AS b, json_extract(value, '$[2]') AS q FROM "
    "json_each(:k)) AS v")


@dataclass
class _State:
    """What the ledger holds for a run: its tables, where each (table, boot) stands, the
    rounds it names, and for a seq sent again (at or below where its boot stands) whether it
    was recorded or refused (with the reason)."""

    tables: dict[str, Any]
    last: dict[tuple[str, str], int]
    rounds: dict[tuple[str, str, int], _Round]
    recorded: set[tuple[str, str, int]]
    refused: dict[tuple[str, str, int], str]


def _keys(pg: bool, keys: Sequence[tuple[Any, ...]], names: str) -> dict[str, Any]:
    if pg:
        return {name: [k[i] for k in keys] for i, name in enumerate(names)}
    return {"k": json.dumps(keys)}


def _read_state(u: Unit, items: Sequence[Item]) -> _State:
    conn = u.s.connection()
    pg = conn.dialect.name == "postgresql"
    table_ids = sorted({i.origin.table for i in items})
    tables: dict[str, Any] = {}
    for chunk in _chunks(table_ids):
        for row in conn.execute(select(_TABLES.c.id, _TABLES.c.group_id, _TABLES.c.seats,
                                       _TABLES.c.online).where(_TABLES.c.id.in_(chunk))).all():
            tables[row.id] = row
    pairs = sorted({(i.origin.table, i.origin.boot) for i in items})
    last: dict[tuple[str, str], int] = {}
    for tid, boot, top_recorded, top_refused in conn.execute(
            _PG_LAST if pg else _SQLITE_LAST, _keys(pg, pairs, "tb")).all():
        last[(str(tid), str(boot))] = max(int(top_recorded or 0), int(top_refused or 0))
    wanted = sorted({(i.origin.table, i.origin.boot, i.event.round_no) for i in items})
    rounds: dict[tuple[str, str, int], _Round] = {}
    for rid, tid, boot, rno, state in conn.execute(_PG_ROUNDS if pg else _SQLITE_ROUNDS,
                                                   _keys(pg, wanted, "tbr")).all():
        rounds[(str(tid), str(boot), int(rno))] = _Round(int(rid), str(state))
    again = sorted({(i.origin.table, i.origin.boot, i.origin.seq) for i in items
                    if 1 <= i.origin.seq <= last.get((i.origin.table, i.origin.boot), 0)})
    recorded: set[tuple[str, str, int]] = set()
    refused: dict[tuple[str, str, int], str] = {}
    if again:
        for tid, boot, seq, seen, reason in conn.execute(_PG_HELD if pg else _SQLITE_HELD,
                                                         _keys(pg, again, "tbq")).all():
            key3 = (str(tid), str(boot), int(seq))
            if seen is not None:
                recorded.add(key3)
            elif reason is not None:
                refused[key3] = str(reason)
    return _State(tables, last, rounds, recorded, refused)


def _decide(ctx: FloorContext, u: Unit, items: Sequence[Item]) -> _Run:
    """Decide ``items`` in order until one must go the one-by-one way (``slow_at``)."""
    state = _read_state(u, items)
    tables, last, rounds = state.tables, state.last, state.rounds
    run = _Run([], [], rounds, None)
    for index, item in enumerate(items):
        origin, event = item.origin, item.event
        key = (origin.table, origin.boot)
        expected = last.get(key, 0) + 1
        if origin.seq < expected:  # sent again: recorded, refused, or out of order
            if origin.seq < 1 or not ctx.configured(origin.table) or \
                    origin.table not in tables:
                run.slow_at = index  # refused before its sequence is looked at: one by one
                return run
            key3 = (origin.table, origin.boot, origin.seq)
            if key3 in state.recorded:
                item.done = False  # a replay: nothing changes
            elif key3 in state.refused:  # refused again, for the same reason (no new row)
                item.error = FloorError(state.refused[key3])
            else:
                _refuse(run, state, item, f"event {origin.boot}:{origin.seq} is out of order: "
                                          f"the ledger holds seq {expected - 1} of boot "
                                          f"{origin.boot} already and not this one")
            continue
        if not ctx.configured(origin.table):
            _refuse(run, state, item, f"table {origin.table}: not configured on this floor; "
                                     "its controller is refused")
            continue
        trow = tables.get(origin.table)
        if trow is None:
            _refuse(run, state, item, f"table {origin.table}: not in the ledger; start the floor")
            continue
        if origin.seq > expected:
            item.error = OutOfOrder(origin, expected)
            continue
        problem = event_bounds_problem(event)
        if problem:
            _refuse(run, state, item, f"{type(event).__name__}: {problem}")
            continue
        rkey = (origin.table, origin.boot, event.round_no)
        rnd = rounds.get(rkey)
        if isinstance(event, GameStarted):
            if not trow.online:
                _refuse(run, state, item, f"table {trow.id} is OFFLINE: its progressive is "
                                         "locked until the link is back")
                continue
            try:
                ctx.table_paytable(trow.id)
            except (ValueError, KeyError) as exc:
                _refuse(run, state, item, str(exc))
                continue
            if rnd is not None:
                _refuse(run, state, item, f"START GAME round {event.round_no}: round "
                                         f"{event.round_no} was already started under "
                                         f"controller boot {origin.boot} (it is {rnd.state})")
                continue
            start = _started(ctx, u, item, trow, len(run.taken))
            rounds[rkey] = _Round(None, "locked", start)
            run.taken.append((item, start))
        else:
            problem = _round_problem("END GAME", event.round_no, origin.boot,
                                     rnd.state if rnd is not None else None)
            if problem or rnd is None:
                _refuse(run, state, item, problem)
                continue
            rnd.state = "ended"
            run.taken.append((item, rnd))
        last[key] = origin.seq
        state.recorded.add((origin.table, origin.boot, origin.seq))
        item.done = True
    return run


def _refuse(run: _Run, state: _State, item: Item, reason: str) -> None:
    """A refusal kept with its row (once per (table, boot, seq): sent again in the same run,
    it is refused again for the same reason, without a second row)."""
    reason = refusal_text(reason)  # as ingest.record_refusal keeps it and the ACK says it
    item.error = FloorError(reason)
    run.refusals.append((item, reason))
    origin = item.origin
    state.refused[(origin.table, origin.boot, origin.seq)] = reason
    key = (origin.table, origin.boot)
    state.last[key] = max(state.last.get(key, 0), origin.seq)


def _started(ctx: FloorContext, u: Unit, item: Item, t: Any, index: int) -> _Start:
    """A START GAME's wagers (each checked by :func:`ingest.wager_problem`) and what its locked
    wagers put into every level of its group, summed per level and movement kind."""
    e = item.event
    assert isinstance(e, GameStarted)
    pt = ctx.table_paytable(t.id)
    lvls = levels(u, t.group_id)
    conf = {lv.id: settings(u, lv.id) for lv in lvls.values()}
    wagers: list[dict[str, Any]] = []
    moves: dict[int, dict[str, list[int]]] = {lid: {} for lid in conf}
    for seat, cents in sorted(e.wagers.items()):
        problem = wager_problem(t, pt, seat, cents)
        wagers.append({"seat": seat, "amount_cents": cents,
                       "status": "refused" if problem else "locked", "problem": problem})
        if problem:
            log.warning("table %s round %s: %s", t.id, e.round_no, problem)
            continue
        for lid, lconf in conf.items():
            for kind, dm, dr in _contribution(lconf, cents):
                acc = moves[lid].setdefault(kind, [0, 0])
                acc[0] += dm
                acc[1] += dr
    return _Start(item, t, index, wagers, moves, e.round_no)


@lru_cache(maxsize=4096)
def _contribution(conf: meters.LevelSettings, cents: int) -> tuple[tuple[str, int, int], ...]:
    """:func:`meters.contribute` of a wager (a floor's wagers are a few amounts: each worked out
    once per level setting)."""
    return tuple((mv.kind, mv.meter_delta, mv.reserve_delta)
                 for mv in meters.contribute(conf, cents))


def _write(ctx: FloorContext, u: Unit, taken: list[tuple[Item, Any]],
           refusals: list[tuple[Item, str]], rounds: dict[tuple[str, str, int], _Round]
           ) -> None:
    conn = u.s.connection()
    if taken:
        ids = {(str(r[1]), str(r[2]), int(r[3])): int(r[0]) for r in insert_rows(
            conn, _EVENTS, [
                {"table_id": it.origin.table, "boot": it.origin.boot, "seq": it.origin.seq,
                 "type": type(it.event).__name__, "payload": payload(it.event),
                 "controller_time": it.origin.controller_time, "received_at": u.now}
                for it, _ in taken], ("id", "table_id", "boot", "seq"))}
        starts = [(ids[(it.origin.table, it.origin.boot, it.origin.seq)], what)
                  for it, what in taken if isinstance(what, _Start)]
        if starts:
            made = {(str(r[1]), str(r[2]), int(r[3])): int(r[0]) for r in insert_rows(
                conn, _ROUNDS, [
                    {"table_id": st.table.id, "boot": st.item.origin.boot,
                     "round_no": st.round_no, "state": "locked", "event_id": ev,
                     "started_at": u.now} for ev, st in starts],
                ("id", "table_id", "boot", "round_no"))}
            round_ids = [made[(st.table.id, st.item.origin.boot, st.round_no)]
                         for _ev, st in starts]
            wagers: list[dict[str, Any]] = []
            by_level: dict[int, list[dict[str, Any]]] = {}
            for rid, (_ev, st) in zip(round_ids, starts, strict=True):
                rkey = (st.table.id, st.item.origin.boot, st.round_no)
                rounds[rkey].id = rid
                wagers += [{"round_id": rid, **w} for w in st.wagers]
                reason = f"table {st.table.id} round {st.round_no}"
                total = 0
                for lid, kinds in st.moves.items():
                    for kind, (dm, dr) in kinds.items():
                        if dm or dr:
                            by_level.setdefault(lid, []).append(balances.entry(
                                kind, dm, dr, reason, u.now, round_id=rid))
                            total += dm + dr
                locked = [w["amount_cents"] for w in st.wagers if w["status"] == "locked"]
                u.count_table(st.table.id, (1, len(locked), sum(locked), 0, 0, total, 0))
            insert_rows(conn, _WAGERS, wagers)
            if by_level:
                refs = {lv.id: lv for g in {st.table.group_id for _ev, st in starts}
                        for lv in levels(u, g).values()}
                balances.add_to_levels(u, [(refs[lid], rows) for lid, rows in
                                           by_level.items()])
        ended = [what.id for _it, what in taken if isinstance(what, _Round)]
        if ended:  # (a round started in this run has its id now)
            conn.execute(update(_ROUNDS).where(_ROUNDS.c.id.in_(ended)).values(state="ended"))
        for it, _what in taken:
            u.tables.add(it.origin.table)
        u.events += len(taken)
    if refusals:
        insert_rows(conn, _REFUSED, [
            {"table_id": it.origin.table, "boot": it.origin.boot, "seq": it.origin.seq,
             "type": type(it.event).__name__, "payload": payload(it.event),
             "controller_time": storable(it.origin.controller_time)[:MAX_TIME_CHARS],
             "reason": reason, "received_at": u.now} for it, reason in refusals])
        for it, reason in refusals:
            log.info("table %s: event %s:%d (%s) refused and kept: %s", it.origin.table,
                     it.origin.boot, it.origin.seq, type(it.event).__name__, reason)
