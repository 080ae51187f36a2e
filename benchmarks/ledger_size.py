"""Ledger size: console start, the floor snapshot, the last 25 hits of a level and one gaming
day's meter report on a ledger of millions of rounds (default 10,000,000 on a 500-table floor).

    .venv/bin/python benchmarks/ledger_size.py [--rounds 10000000] [--tables 500]
        [--db postgresql+psycopg://postgres@127.0.0.1:5432/test [--schema NAME] [--keep-schema]]
        [--keep ledger.sqlite3] [--no-fk-checks] [--repeat 5] [--explain] [--build-only]

Targets (reported, never asserted): console start <= 2 s; snapshot, last 25 hits and a day's
meter report <= 100 ms each.

How the ledger is built
-----------------------
1. The floor: ``floor_sim.write_floor`` (tables in links of 10, FPGPP-WA01 with one level MAIN
   and FPGPP-ML2 with MEGA/MAJOR/MINOR alternating), ``upgrade(engine)`` (every migration), then
   ``Floor(...).start()`` with its clock at the start of the period: the groups, levels, level
   settings, seed entries, balances and tables exactly as the console makes them.  One
   executive is enrolled with ``core.people.auth.add_employee`` (he verifies and authorizes meter
   pays).
2. The rounds, written straight into the project's tables (``Model.__table__``) in id order.
   SQLite: each table's INSERT is compiled once from its ``Table`` and run as a SQLAlchemy
   Core executemany (``Connection.exec_driver_sql``) of rows bound as the columns' own types
   bind them (``UTCDateTime`` and ``JSON`` bind processors, each time once per round instead of
   once per row); the builder's own connection runs with ``PRAGMA synchronous=OFF`` and a
   256 MB page cache, and keeps WAL (an interrupted build loses at most its open transaction)
   and the foreign key checks.  PostgreSQL: psycopg ``COPY`` on the raw connection of the same
   SQLAlchemy transaction (the foreign key triggers make half its time: ``--no-fk-checks``).
   Round ``i`` (0-based) is round ``i // tables + 1`` of table ``i % tables`` at
   ``begin + i * span / rounds`` (the span ends when the ledger was first built; by default
   about 600,000 rounds a gaming day, so 10 M rounds are ~17 days, and never less than 3 days
   so that the measured gaming day is inside it).  A round is what
   ``core.tablegames.ingest.events`` records: a GameStarted ``controller_events`` row (payload as
   ``ingest.payload`` makes it), the ``rounds`` row (state ended), 1-3 ``wagers`` of 100 cents
   (locked), per level of its group ONE ``contribution`` and one
   ``reserve_contribution`` entry for the round (issue 22), the sum of what ``meters.contribute``
   (core.tablegames.meters.arithmetic) gives for that level's settings as read back from
   ``level_settings``, then a GameEnded event.  One round in 40 has a hit (a HitClaimed event,
   a ``hits`` row with the 7 cards and ``flag_codes`` "[]"): 9 in 10 of them an auto-paid tray
   pay (FULL_HOUSE or FOUR_OF_A_KIND at the paytable's amount: 600 / 7,500 cents on WA01,
   400 / 7,500 on ML2; status auto_paid, an ``auto_paid`` decision, a tray ``awards`` row),
   1 in 10 (1 round in 400) a meter pay of one of the paytable's meter hands (status paid,
   ``verified`` and ``paid`` decisions, a meter ``awards`` row with its level, and the
   ``award`` / ``reseed`` / ``reserve_move`` entries ``meters.award`` gives on the level's
   meter at that point, so the meter stays >= 0).  Slips, print attempts and swipes are not
   written.  Every id is assigned here, increasing, and times never go back as ids go up.
3. Exact integer arithmetic per level runs beside the generator: every ``chunk`` of rounds
   (default 100,000) is one transaction that also sets each level's ``level_balances`` row
   (meter, reserve, entries, last entry id) and adds the chunk's ``level_hour_totals`` (per
   level, UTC hour and kind; an upsert, as ``core.tablegames.meters.balances`` does), so the
   kept rows equal the entries after every commit.  The generator is deterministic per chunk
   (its own random seed), the plan is kept in ``settings`` (key ``benchmark.ledger_size``) and
   the state is read back from the ledger, so an interrupted build resumes where it stopped
   (``--keep``, or ``--schema`` on PostgreSQL).  Memory stays bounded: rows are generated and
   inserted in batches of 10,000 rounds.  PostgreSQL: the id sequences are moved past the ids
   used and the tables are ``VACUUM ANALYZE``d (as autovacuum would have by then); SQLite gets
   no ``ANALYZE`` (Podium never runs it).
4. Checks: ``check_balances`` (it sums every entry: only up to 200,000 rounds) and, always, the
   measured meter report against sums taken straight from ``meter_entries``.

What is measured (``--repeat`` runs each after a first, cold one printed on its own)
-----------------------------------------------------------------------------------
(a) console start: a new engine, ``ConsoleCore(...).start(links=False)`` (``Floor.start`` on a
    ledger already at head) and the first ``floor.snapshot()``; then ``console.stop()`` (not
    timed).  Python start-up, imports and the Qt window are not included (benchmarks/startup.py).
(b) ``floor.snapshot()``; (c) ``floor.recent_hits(group, level, 25)`` for the level with the
    most meter pays; (d) ``floor.meter_report`` of that level for the gaming day that starts at
    06:00 (casino time zone) the day before yesterday (relative to the end of the ledger), 24 h,
    and for a 14:30-22:30 shift of that day.  Each with the number of SQL statements it ran.
Then the ledger's size on disk (SQLite: the file, and per table/index when the ``dbstat``
table exists; PostgreSQL: ``pg_total_relation_size`` per table) and its row counts.
``--explain``: the plan of every distinct SELECT that (a)-(d) ran (SQLite: EXPLAIN QUERY PLAN;
PostgreSQL: EXPLAIN (ANALYZE, BUFFERS)).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import resource
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from datetime import time as dtime
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar, cast
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_sim  # noqa: E402
from sqlalchemy import (  # noqa: E402
    Connection,
    Engine,
    Table,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql as pg_dialect  # noqa: E402
from sqlalchemy.dialects import sqlite as sqlite_dialect  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from core.app.console import ConsoleCore  # noqa: E402
from core.floorconfig import FloorConfig, load_floor  # noqa: E402
from core.kernel.cards import format_cards, parse_cards  # noqa: E402
from core.kernel.money import json_cents, units_floor_cents  # noqa: E402
from core.ledger.balance_checks import check_balances  # noqa: E402
from core.ledger.db import make_engine, reader, upgrade  # noqa: E402
from core.ledger.models import (  # noqa: E402
    Award,
    Base,
    ControllerEvent,
    Employee,
    Hit,
    HitDecision,
    Level,
    LevelBalance,
    LevelHourTotal,
    LevelSetting,
    MeterEntry,
    Round,
    Setting,
    TableHourTotal,
    Wager,
)
from core.people import cardkey  # noqa: E402
from core.people.auth import add_employee  # noqa: E402
from core.tablegames.floor import Floor  # noqa: E402
from core.tablegames.ingest.events import AUTO_PAID_REASON  # noqa: E402
from core.tablegames.meters.arithmetic import LevelSettings, LevelState, award, contribute  # noqa: E402
from core.tablegames.rules.paytables import Paytable, load_paytables  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402

T = TypeVar("T")


def _table(model: type[Any]) -> Table:
    return cast(Table, model.__table__)


PLAN_KEY = "benchmark.ledger_size"
PLAN_VERSION = 1
ROUNDS_PER_DAY = 600_000  # a busy 500-table floor's gaming day
MIN_DAYS = 3.0  # the measured gaming day (the day before yesterday) must be inside the ledger
WAGER_CENTS = 100
SEATS = 6
HIT_ONE_IN = 40  # a round with a hit
METER_ONE_IN = 10  # of the hits, one in this many is a meter pay (1 round in 400)
BATCH = 10_000  # rounds generated and inserted at once (bounds memory)
EXECUTIVE = ("BENCH-1", "Ledger Size Executive", "executive", "5000000000000002")
TARGETS = {"console start": 2.0, "snapshot": 0.1, "last 25 hits": 0.1,
           "gaming-day report": 0.1, "shift report": 0.1}

# Seven cards that make each hand (checked against the paytables before the build).
CARDS = {
    "FULL_HOUSE": "Ah Ad Ac Kh Ks 2c 7d",
    "FOUR_OF_A_KIND": "As Ad Ac Ah 2c 3h 5d",
    "SF7_NATURAL": "2h 3h 4h 5h 6h 7h 8h",
    "SF7_JOKER": "2h 3h 4h Jk 6h 7h 8h",
    "RF_ROYAL_MATCH": "Ts Js Qs Ks As Kh Qh",
    "FIVE_ACES": "As Ad Ac Ah Jk 2c 3h",
    "ROYAL_FLUSH": "Ts Js Qs Ks As 2c 3h",
}
# How often each pay comes up (relative, within tray pays / within meter pays of a paytable).
TRAY_WEIGHTS = {"FULL_HOUSE": 9, "FOUR_OF_A_KIND": 1}
METER_WEIGHTS = {"SF7_NATURAL": 1, "SF7_JOKER": 2, "RF_ROYAL_MATCH": 4, "FIVE_ACES": 7,
                 "ROYAL_FLUSH": 30}

# The columns written, per table, in the order the generator makes its tuples.
EVENT_COLS = ("id", "table_id", "boot", "seq", "type", "payload", "controller_time",
              "received_at")
ROUND_COLS = ("id", "table_id", "boot", "round_no", "state", "event_id", "started_at")
WAGER_COLS = ("id", "round_id", "seat", "amount_cents", "status", "problem")
HIT_COLS = ("id", "table_id", "round_id", "round_no", "seat", "wager_id", "claimed_hand",
            "cards", "flags", "flag_codes", "verified_cards", "status", "event_id",
            "locked_level_id", "locked_amount_cents", "locked_meter_before_cents",
            "locked_meter_after_cents", "created_at")
AWARD_COLS = ("id", "hit_id", "hand", "source", "level_id", "amount_cents",
              "meter_before_cents", "meter_after_cents", "authorized_by", "verified_by",
              "created_at")
DECISION_COLS = ("id", "hit_id", "decision", "employee_id", "reason", "created_at")
ENTRY_COLS = ("id", "level_id", "kind", "meter_delta", "reserve_delta", "round_id", "hit_id",
              "award_id", "reverses_id", "employee_id", "second_employee_id", "reason",
              "created_at")
# insert order (foreign keys)
WRITTEN: tuple[tuple[Table, tuple[str, ...]], ...] = (
    (_table(ControllerEvent), EVENT_COLS),
    (_table(Round), ROUND_COLS),
    (_table(Wager), WAGER_COLS),
    (_table(Hit), HIT_COLS),
    (_table(Award), AWARD_COLS),
    (_table(HitDecision), DECISION_COLS),
    (_table(MeterEntry), ENTRY_COLS),
)
COUNTED = ("controller_events", "rounds", "wagers", "hits", "hit_decisions", "awards",
           "meter_entries", "level_hour_totals", "level_balances", "levels", "tables")


def _check_columns() -> None:
    for table, cols in WRITTEN:
        if tuple(table.c.keys()) != cols:
            raise SystemExit(f"ledger_size: {table.name} has columns {table.c.keys()}, the "
                             f"generator writes {cols}: update the generator")


# --------------------------------------------------------------------------- the database

@dataclass
class Target:
    """Where the ledger is: its URL, engine options and how to clean up."""

    url: str
    engine_kwargs: dict[str, Any]
    sqlite_path: Path | None = None
    schema: str | None = None
    cleanup: list[Callable[[], None]] = field(default_factory=list)

    @property
    def is_sqlite(self) -> bool:
        return self.sqlite_path is not None

    def engine(self) -> Engine:
        return make_engine(self.url, **self.engine_kwargs)


def open_target(args: argparse.Namespace, tmp: Path) -> Target:
    if args.db is None or make_url(args.db).get_backend_name() == "sqlite":
        if args.db is not None:
            path = Path(make_url(args.db).database or "")
            if not path.name:
                raise SystemExit("ledger_size: give the SQLite ledger a file (not :memory:)")
        else:
            path = Path(args.keep) if args.keep else tmp / "ledger.sqlite3"
        path = path.resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        return Target(f"sqlite:///{path}", {}, sqlite_path=path)
    if args.keep:
        raise SystemExit("ledger_size: --keep is for a SQLite ledger; on PostgreSQL use "
                         "--schema NAME (kept) or --keep-schema")
    url = args.db
    schema = args.schema or f"ledger_size_{secrets.token_hex(4)}"
    admin = create_engine(make_engine(url).url, connect_args={"connect_timeout": 5})
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    target = Target(url, {"connect_args": {"options": f"-csearch_path={schema}"}},
                    schema=schema)
    if args.schema or args.keep_schema:
        print(f"PostgreSQL schema {schema} (kept)")
        admin.dispose()
    else:
        print(f"PostgreSQL schema {schema} (dropped at the end; --keep-schema keeps it)")

        def drop() -> None:
            with admin.begin() as c:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()

        target.cleanup.append(drop)
    return target


# --------------------------------------------------------------------------- the plan

@dataclass(frozen=True)
class Plan:
    """What is built (kept in ``settings`` so an interrupted build resumes the same)."""

    rounds: int
    tables: int
    begin: datetime
    end: datetime
    seed: int
    chunk: int

    def to_json(self) -> str:
        return json.dumps({"version": PLAN_VERSION, "rounds": self.rounds,
                           "tables": self.tables, "begin": self.begin.isoformat(),
                           "end": self.end.isoformat(), "seed": self.seed,
                           "chunk": self.chunk})

    @staticmethod
    def from_json(value: str) -> Plan:
        d = json.loads(value)
        if d.get("version") != PLAN_VERSION:
            raise SystemExit(f"ledger_size: a ledger built by another version ({d})")
        return Plan(int(d["rounds"]), int(d["tables"]), datetime.fromisoformat(d["begin"]),
                    datetime.fromisoformat(d["end"]), int(d["seed"]), int(d["chunk"]))

    @property
    def span_us(self) -> int:
        return (self.end - self.begin) // timedelta(microseconds=1)

    def time_of(self, i: int) -> datetime:
        return self.begin + timedelta(microseconds=i * self.span_us // self.rounds)


def load_plan(engine: Engine) -> Plan | None:
    with engine.connect() as conn:
        value = conn.scalar(select(Setting.value).where(Setting.key == PLAN_KEY))
    return Plan.from_json(value) if value else None


def rounds_done(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.coalesce(func.max(Round.id), 0))) or 0)


# --------------------------------------------------------------------------- the generator

@dataclass
class LevelInfo:
    id: int
    group_id: str
    name: str
    settings: LevelSettings
    contribution: tuple[tuple[str, int, int], ...]  # what one wager puts in (kind, dm, dr)
    # exact state as kept: meter, reserve, entries, last entry id
    meter: int = 0
    reserve: int = 0
    entries: int = 0
    last_entry_id: int | None = None


@dataclass(frozen=True)
class TableInfo:
    id: str
    boot: str
    group_id: str
    levels: tuple[LevelInfo, ...]
    tray: tuple[tuple[str, int], ...]  # (hand, cents), weighted
    meter: tuple[tuple[str, Decimal, LevelInfo], ...]  # (hand, fraction, level), weighted


@dataclass
class Batch:
    rows: dict[str, list[tuple[Any, ...]]] = field(
        default_factory=lambda: {t.name: [] for t, _ in WRITTEN})

    def count(self) -> int:
        return sum(len(v) for v in self.rows.values())


def _weighted(items: Sequence[tuple[T, int]]) -> tuple[T, ...]:
    return tuple(x for x, w in items for _ in range(w))


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _hour(t: datetime) -> datetime:
    return t.replace(minute=0, second=0, microsecond=0)


class Builder:
    """Writes the plan's rounds, chunk after chunk, resuming after the last committed one."""

    def __init__(self, target: Target, plan: Plan, config: FloorConfig,
                 paytables: dict[str, Paytable], fk_checks: bool = True) -> None:
        self.target = target
        self.plan = plan
        self.engine = target.engine()
        self.conn: Connection = self.engine.connect()
        self.pg = not target.is_sqlite
        dialect = self.conn.dialect
        # values are bound as the columns' own types bind them (on SQLite: UTC text and JSON
        # text), each time once per round instead of once per row
        self.bind_time: Callable[[datetime], Any] = lambda t: t
        self.bind_json: Callable[[dict[str, Any]], Any] = lambda d: json.dumps(
            d, separators=(",", ":"))
        self.sql: dict[str, str] = {}
        # (table, UTC hour) -> table_hour_totals values, folded in at each chunk's end
        self.table_hours: dict[tuple[str, datetime], list[int]] = {}
        if target.is_sqlite:
            raw = self.conn.connection.driver_connection
            assert raw is not None
            raw.execute("PRAGMA synchronous=OFF")
            # the bulk rows are not hash-chained (revision 0014): the journal trigger asks
            # podium_journal() and this connection answers "no" (the chain's cost at ingest
            # is benchmarks/ledger_chain.py's; audit verify names these rows as unchained)
            raw.create_function("podium_journal", 0, lambda: 0)
            raw.execute("PRAGMA cache_size=-262144")
            if not fk_checks:
                raw.execute("PRAGMA foreign_keys=OFF")
            ev = _table(ControllerEvent)
            time_proc = ev.c.received_at.type.dialect_impl(dialect).bind_processor(dialect)
            json_proc = ev.c.payload.type.dialect_impl(dialect).bind_processor(dialect)
            assert time_proc is not None and json_proc is not None
            self.bind_time, self.bind_json = time_proc, json_proc
            for table, cols in WRITTEN:
                compiled = insert(table).compile(dialect=dialect, column_keys=list(cols))
                if tuple(compiled.positiontup or ()) != cols:
                    raise SystemExit(f"ledger_size: {table.name}: the INSERT binds "
                                     f"{compiled.positiontup}, the generator makes {cols}")
                self.sql[table.name] = str(compiled)
        else:  # every trigger off: foreign keys and the chain's journal (needs a superuser)
            self.conn.exec_driver_sql("SET session_replication_role = replica")
        self._load(config, paytables)
        self.conn.commit()  # the reads above began a transaction; each chunk is its own
        self.rows_written = 0
        self.spent = dict.fromkeys(("generate", "insert", "kept rows", "commit"), 0.0)

    def close(self) -> None:
        self.conn.close()
        self.engine.dispose()

    # -- the ledger's state ----------------------------------------------------------------------
    def _load(self, config: FloorConfig, paytables: dict[str, Paytable]) -> None:
        c = self.conn
        ppm = Decimal(1_000_000)
        newest = {lid: (seed, rate, reserve) for lid, seed, rate, reserve in c.execute(
            select(LevelSetting.level_id, LevelSetting.seed_units,
                   LevelSetting.contribution_rate_ppm, LevelSetting.reserve_rate_ppm)
            .order_by(LevelSetting.id))}
        self.levels: dict[int, LevelInfo] = {}
        by_group: dict[str, list[LevelInfo]] = {}
        for lid, gid, name in c.execute(select(Level.id, Level.group_id, Level.name)
                                        .order_by(Level.id)):
            seed, rate, reserve = newest[lid]
            st = LevelSettings(int(seed), Decimal(rate) / ppm, Decimal(reserve) / ppm)
            moves = contribute(st, WAGER_CENTS)
            info = LevelInfo(lid, gid, name, st, tuple(
                (m.kind, m.meter_delta, m.reserve_delta) for m in moves
                if m.meter_delta or m.reserve_delta))
            self.levels[lid] = info
            by_group.setdefault(gid, []).append(info)
        for lid, m, r, n, last in c.execute(select(
                LevelBalance.level_id, LevelBalance.meter_units, LevelBalance.reserve_units,
                LevelBalance.entries, LevelBalance.last_entry_id)):
            lv = self.levels[lid]
            lv.meter, lv.reserve, lv.entries, lv.last_entry_id = int(m), int(r), int(n), last
        self.employee = int(c.scalar(select(Employee.id).where(
            Employee.number == EXECUTIVE[0])) or 0)
        self.tables: list[TableInfo] = []
        for t in config.tables:
            g = config.group(t.group)
            pt = paytables[g.paytable]
            lvls = {lv.name: lv for lv in by_group[g.id]}
            tray: list[tuple[tuple[str, int], int]] = []
            meter: list[tuple[tuple[str, Decimal, LevelInfo], int]] = []
            for pay in pt.pays:
                if pay.hand not in CARDS:
                    continue
                got = pt.paying(parse_cards(CARDS[pay.hand].split()))
                if got is None or got.hand != pay.hand:
                    raise SystemExit(f"ledger_size: the cards for {pay.hand} make "
                                     f"{got.hand if got else 'nothing'} on {pt.id}")
                if pay.source == "meter" and pay.hand in METER_WEIGHTS:
                    assert pay.fraction is not None
                    lv = lvls[pay.level or pt.levels[0]]
                    meter.append(((pay.hand, pay.fraction, lv), METER_WEIGHTS[pay.hand]))
                elif pay.source == "tray" and pay.hand in TRAY_WEIGHTS:
                    tray.append(((pay.hand, pt.fixed_cents(pay, WAGER_CENTS)),
                                 TRAY_WEIGHTS[pay.hand]))
            boot = hashlib.sha256(f"ledger_size/{t.id}".encode()).hexdigest()[:12]
            self.tables.append(TableInfo(t.id, boot, g.id, tuple(by_group[g.id]),
                                         _weighted(tray), _weighted(meter)))
        if len(self.tables) != self.plan.tables:
            raise SystemExit(f"ledger_size: the ledger was planned for {self.plan.tables} "
                             f"tables, the floor has {len(self.tables)}")
        # the next ids (everything is assigned here) and each table's last event number
        self.next: dict[str, int] = {}
        for table, _cols in WRITTEN:
            self.next[table.name] = int(c.scalar(select(func.coalesce(func.max(table.c.id),
                                                                      0))) or 0) + 1
        ev = _table(ControllerEvent)
        self.seq = {t.id: int(c.scalar(select(func.coalesce(func.max(ev.c.seq), 0)).where(
            ev.c.table_id == t.id, ev.c.boot == t.boot)) or 0) for t in self.tables}
        seat_sets: list[list[tuple[int, ...]]] = [[], [], [], []]
        for mask in range(1, 1 << SEATS):
            seats = tuple(s + 1 for s in range(SEATS) if mask >> s & 1)
            if len(seats) <= 3:
                seat_sets[len(seats)].append(seats)
        self.seat_sets = seat_sets

    # -- generating --------------------------------------------------------------------------
    def _generate(self, rng: random.Random, first: int, last: int, batch: Batch,
                  hours: dict[tuple[int, datetime, str], list[int]]) -> None:
        """Rounds ``first`` .. ``last - 1`` (0-based) into ``batch``; hour totals into
        ``hours``; the levels' exact state follows."""
        plan, nxt = self.plan, self.next
        events, rounds = batch.rows["controller_events"], batch.rows["rounds"]
        wagers, entries = batch.rows["wagers"], batch.rows["meter_entries"]
        n_tables = len(self.tables)
        step = plan.span_us // plan.rounds
        hit_at = timedelta(microseconds=step // 2)
        end_at = timedelta(microseconds=step * 9 // 10)
        emp = self.employee
        rand = rng.random
        bind_time, bind_json = self.bind_time, self.bind_json
        for i in range(first, last):
            t = self.tables[i % n_tables]
            round_no = i // n_tables + 1
            t0 = plan.time_of(i)
            b0 = bind_time(t0)
            h0 = _hour(t0)
            rid = i + 1
            if rid != nxt["rounds"]:
                raise RuntimeError(f"round {rid}: the ledger's next round id is "
                                   f"{nxt['rounds']}")
            nxt["rounds"] += 1
            k = 1 + int(rand() * 3)
            options = self.seat_sets[k]
            seats = options[int(rand() * len(options))]
            # START GAME
            ev = nxt["controller_events"]
            nxt["controller_events"] += 1
            self.seq[t.id] += 1
            events.append((ev, t.id, t.boot, self.seq[t.id], "GameStarted",
                           bind_json({"round_no": round_no,
                                      "wagers": {str(s): WAGER_CENTS for s in seats}}),
                           _stamp(t0), b0))
            rounds.append((rid, t.id, t.boot, round_no, "ended", ev, b0))
            wager_ids: dict[int, int] = {}
            for s in seats:
                wid = nxt["wagers"]
                nxt["wagers"] += 1
                wager_ids[s] = wid
                wagers.append((wid, rid, s, WAGER_CENTS, "locked", None))
            for lv in t.levels:  # ingest: per level one entry per kind, the round's sum
                n = 0
                reason = f"table {t.id} round {round_no}"
                for kind, dm, dr in lv.contribution:
                    dm, dr = dm * len(seats), dr * len(seats)
                    if not (dm or dr):
                        continue
                    eid = nxt["meter_entries"]
                    nxt["meter_entries"] += 1
                    entries.append((eid, lv.id, kind, dm, dr, rid, None, None, None, None,
                                    None, reason, b0))
                    lv.meter += dm
                    lv.reserve += dr
                    n += 1
                    acc = hours.get((lv.id, h0, kind))
                    if acc is None:
                        acc = hours[(lv.id, h0, kind)] = [0, 0, 0]
                    acc[0] += 1
                    acc[1] += dm
                    acc[2] += dr
                if n:
                    lv.entries += n
                    lv.last_entry_id = nxt["meter_entries"] - 1
            # table_hour_totals (revision 0016), as ingest keeps them
            tacc = self.table_hours.get((t.id, h0))
            if tacc is None:
                tacc = self.table_hours[(t.id, h0)] = [0] * 7
            tacc[0] += 1
            tacc[1] += len(seats)
            tacc[2] += WAGER_CENTS * len(seats)
            tacc[5] += len(seats) * sum(dm + dr for lv in t.levels
                                        for _k, dm, dr in lv.contribution)
            # HIT JACKPOT, paid
            if rand() * HIT_ONE_IN < 1:
                self._hit(rng, t, rid, round_no, seats, wager_ids, t0 + hit_at, emp, batch,
                          hours)
            # END GAME
            ev = nxt["controller_events"]
            nxt["controller_events"] += 1
            self.seq[t.id] += 1
            te = t0 + end_at
            events.append((ev, t.id, t.boot, self.seq[t.id], "GameEnded",
                           bind_json({"round_no": round_no}), _stamp(te), bind_time(te)))

    def _hit(self, rng: random.Random, t: TableInfo, rid: int, round_no: int,
             seats: tuple[int, ...], wager_ids: dict[int, int], at: datetime, emp: int,
             batch: Batch, hours: dict[tuple[int, datetime, str], list[int]]) -> None:
        nxt = self.next
        seat = seats[int(rng.random() * len(seats))]
        meter_pay = rng.random() * METER_ONE_IN < 1 and bool(t.meter)
        if meter_pay:
            hand, fraction, lv = t.meter[int(rng.random() * len(t.meter))]
        else:
            hand, cents = t.tray[int(rng.random() * len(t.tray))]
        cards = CARDS[hand]
        b = self.bind_time(at)
        ev = nxt["controller_events"]
        nxt["controller_events"] += 1
        self.seq[t.id] += 1
        batch.rows["controller_events"].append((
            ev, t.id, t.boot, self.seq[t.id], "HitClaimed",
            self.bind_json({"round_no": round_no, "seat": seat, "hand": hand,
                            "cards": format_cards(parse_cards(cards.split()))}),
            _stamp(at), b))
        hid = nxt["hits"]
        nxt["hits"] += 1
        aid = nxt["awards"]
        nxt["awards"] += 1
        decisions = batch.rows["hit_decisions"]
        if not meter_pay:
            batch.rows["hits"].append((hid, t.id, rid, round_no, seat, wager_ids[seat], hand,
                                       cards, "", "[]", "", "auto_paid", ev, None, None, None,
                                       None, b))
            batch.rows["awards"].append((aid, hid, hand, "tray", None, cents, None, None, None,
                                         None, b))
            decisions.append((nxt["hit_decisions"], hid, "auto_paid", None, AUTO_PAID_REASON,
                              b))
            nxt["hit_decisions"] += 1
            return
        before = LevelState(lv.meter, lv.reserve)
        paid, moves = award(before, lv.settings, fraction)
        batch.rows["hits"].append((hid, t.id, rid, round_no, seat, wager_ids[seat], hand,
                                   cards, "", "[]", cards, "paid", ev, None, None, None, None,
                                   b))
        decisions.append((nxt["hit_decisions"], hid, "verified", emp,
                          f"cards {cards} make {hand}", b))
        decisions.append((nxt["hit_decisions"] + 1, hid, "paid", emp,
                          f"{json_cents(paid)} from the meter", b))
        nxt["hit_decisions"] += 2
        h = _hour(at)
        for mv in moves:
            if not (mv.meter_delta or mv.reserve_delta):
                continue  # core.tablegames.meters.balances writes no empty movement
            eid = nxt["meter_entries"]
            nxt["meter_entries"] += 1
            batch.rows["meter_entries"].append((
                eid, lv.id, mv.kind, mv.meter_delta, mv.reserve_delta, None, hid, aid, None,
                emp, None, f"award hit #{hid}", b))
            lv.meter += mv.meter_delta
            lv.reserve += mv.reserve_delta
            lv.entries += 1
            lv.last_entry_id = eid
            acc = hours.setdefault((lv.id, h, mv.kind), [0, 0, 0])
            acc[0] += 1
            acc[1] += mv.meter_delta
            acc[2] += mv.reserve_delta
        if lv.meter < 0 or lv.reserve < 0:
            raise RuntimeError(f"level {lv.group_id}/{lv.name}: below zero after hit #{hid}")
        batch.rows["awards"].append((aid, hid, hand, "meter", lv.id, paid,
                                     units_floor_cents(before.meter_units),
                                     units_floor_cents(lv.meter), emp, emp, b))

    # -- writing -----------------------------------------------------------------------------
    def _insert(self, batch: Batch) -> None:
        for table, cols in WRITTEN:
            rows = batch.rows[table.name]
            if not rows:
                continue
            if self.pg:
                self._copy(table.name, cols, rows)
            else:  # Core executemany of the table's INSERT (compiled once)
                self.conn.exec_driver_sql(self.sql[table.name], rows)
            self.rows_written += len(rows)

    def _copy(self, name: str, cols: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        raw = self.conn.connection.driver_connection
        assert raw is not None
        with raw.cursor() as cur, cur.copy(
                f"COPY {name} ({', '.join(cols)}) FROM STDIN") as cp:
            for r in rows:
                cp.write_row(r)

    def _keep(self, hours: dict[tuple[int, datetime, str], list[int]], now: datetime) -> None:
        """The kept rows for what the chunk wrote: balances set, hourly totals added."""
        hst = _table(LevelHourTotal)
        ins = (pg_dialect.insert(hst) if self.pg else sqlite_dialect.insert(hst))
        upsert = ins.on_conflict_do_update(
            index_elements=[hst.c.level_id, hst.c.hour, hst.c.kind],
            set_={"entries": hst.c.entries + ins.excluded.entries,
                  "meter_units": hst.c.meter_units + ins.excluded.meter_units,
                  "reserve_units": hst.c.reserve_units + ins.excluded.reserve_units})
        if hours:
            self.conn.execute(upsert, [
                {"level_id": lid, "hour": h, "kind": kind, "entries": n, "meter_units": m,
                 "reserve_units": r} for (lid, h, kind), (n, m, r) in sorted(hours.items())])
        if self.table_hours:
            tht = _table(TableHourTotal)
            tins = (pg_dialect.insert(tht) if self.pg else sqlite_dialect.insert(tht))
            cols = ("rounds", "wagers", "wager_cents", "returned_wagers", "returned_cents",
                    "contribution_units", "reversal_units")
            tup = tins.on_conflict_do_update(
                index_elements=[tht.c.table_id, tht.c.hour],
                set_={c: tht.c[c] + tins.excluded[c] for c in cols})
            self.conn.execute(tup, [{"table_id": tid, "hour": h, **dict(zip(cols, v,
                                                                            strict=True))}
                                    for (tid, h), v in sorted(self.table_hours.items())])
            self.table_hours.clear()
        bal = _table(LevelBalance)
        self.conn.execute(
            update(bal).where(bal.c.level_id == bindparam("b_level")).values(
                meter_units=bindparam("b_meter"), reserve_units=bindparam("b_reserve"),
                entries=bindparam("b_entries"), last_entry_id=bindparam("b_last"),
                updated_at=bindparam("b_now", type_=bal.c.updated_at.type)),
            [{"b_level": lv.id, "b_meter": lv.meter, "b_reserve": lv.reserve,
              "b_entries": lv.entries, "b_last": lv.last_entry_id, "b_now": now}
             for lv in self.levels.values()])

    def build(self, done: int) -> None:
        plan = self.plan
        if done % plan.chunk and done != plan.rounds:
            raise SystemExit(f"ledger_size: {done} rounds is not a whole number of chunks of "
                             f"{plan.chunk}; can not resume this ledger")
        total = plan.rounds - done
        print(f"building {total:,} rounds ({done:,} already there) in chunks of "
              f"{plan.chunk:,}: {plan.begin:%Y-%m-%d %H:%M} .. {plan.end:%Y-%m-%d %H:%M} UTC",
              flush=True)
        t_start = time.perf_counter()
        made = 0
        for chunk_no in range(done // plan.chunk, -(-plan.rounds // plan.chunk)):
            first = chunk_no * plan.chunk
            last = min(plan.rounds, first + plan.chunk)
            rng = random.Random(f"ledger_size/{plan.seed}/{chunk_no}")
            hours: dict[tuple[int, datetime, str], list[int]] = {}
            t_chunk = time.perf_counter()
            rows_before = self.rows_written
            with self.conn.begin():
                for lo in range(first, last, BATCH):
                    batch = Batch()
                    t0 = time.perf_counter()
                    self._generate(rng, lo, min(last, lo + BATCH), batch, hours)
                    t1 = time.perf_counter()
                    self._insert(batch)
                    self.spent["generate"] += t1 - t0
                    self.spent["insert"] += time.perf_counter() - t1
                t0 = time.perf_counter()
                self._keep(hours, plan.time_of(last - 1))
                self.spent["kept rows"] += time.perf_counter() - t0
                t0 = time.perf_counter()
            self.spent["commit"] += time.perf_counter() - t0
            made += last - first
            now = time.perf_counter()
            rate = (self.rows_written - rows_before) / (now - t_chunk)
            spent = now - t_start
            eta = spent / made * (total - made)
            print(f"  {last:>12,} / {plan.rounds:,} rounds  {self.rows_written:>12,} rows  "
                  f"{rate:>9,.0f} rows/s (chunk)  {self.rows_written / spent:>9,.0f} rows/s "
                  f"(build)  {spent:7.1f} s  eta {eta:7.1f} s", flush=True)
        spent = time.perf_counter() - t_start
        if made:
            print(f"built {made:,} rounds, {self.rows_written:,} rows in {spent:.1f} s: "
                  f"{made / spent:,.0f} rounds/s, {self.rows_written / spent:,.0f} rows/s, "
                  f"{self.rows_written / made:.2f} rows a round")
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print("  of which " + ", ".join(f"{k} {v:.1f} s" for k, v in self.spent.items())
                  + f"; peak memory (max RSS) {rss:,.0f} MiB")
            per_round = spent / made
            print(f"  at this speed 10,000,000 rounds take ~{per_round * 1e7 / 60:.0f} min "
                  "(the speed falls as the indexes outgrow the cache; see the chunk rates)")
        self.finish()

    def finish(self) -> None:
        t0 = time.perf_counter()
        if self.pg:
            with self.conn.begin():
                for table, _cols in WRITTEN:
                    self.conn.execute(text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table.name}), false)"))
            raw = self.conn.connection.driver_connection
            assert raw is not None
            self.conn.commit()
            raw.autocommit = True
            try:
                for table in Base.metadata.sorted_tables:
                    raw.execute(f"VACUUM ANALYZE {table.name}")
            finally:
                raw.autocommit = False
            print(f"  sequences set, VACUUM ANALYZE: {time.perf_counter() - t0:.1f} s")


def prepare(target: Target, args: argparse.Namespace, config: FloorConfig,
            paytables: dict[str, Paytable]) -> Plan:
    """Migrations, the plan, the floor set-up and the executive; returns the plan."""
    engine = target.engine()
    try:
        t0 = time.perf_counter()
        upgrade(engine)
        print(f"migrations at head: {time.perf_counter() - t0:.2f} s")
        plan = load_plan(engine)
        if plan is None:
            end = datetime.now(UTC).replace(microsecond=0)
            days = args.days if args.days is not None else max(
                MIN_DAYS, args.rounds / args.rounds_per_day)
            plan = Plan(args.rounds, args.tables, end - timedelta(days=days), end, args.seed,
                        args.chunk)
            with engine.begin() as conn:
                conn.execute(insert(_table(Setting)).values(key=PLAN_KEY, value=plan.to_json()))
        elif (plan.rounds, plan.tables) != (args.rounds, args.tables):
            raise SystemExit(f"ledger_size: this ledger holds (or is being built with) "
                             f"{plan.rounds:,} rounds on {plan.tables} tables, not "
                             f"{args.rounds:,} on {args.tables}: use another ledger")
        # the floor as the console sets it up, at the start of the period
        set_up = plan.begin - timedelta(minutes=1)
        Floor(engine, config, paytables, clock=lambda: set_up, paper=PAPER).start()
        with Session(engine) as s, s.begin():
            if s.scalar(select(Employee.id).where(Employee.number == EXECUTIVE[0])) is None:
                add_employee(s, cardkey.load(), *EXECUTIVE, now=set_up)
        return plan
    finally:
        reader(engine).dispose()
        engine.dispose()


# --------------------------------------------------------------------------- measuring

@dataclass
class Statements:
    """Counts (and with ``keep``, records) the SQL statements run on the engines watched."""

    count: int = 0
    keep: bool = False
    seen: list[tuple[str, Any]] = field(default_factory=list)

    def watch(self, engine: Engine) -> None:
        event.listen(engine, "before_cursor_execute", self._on)

    def _on(self, conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
            executemany: bool) -> None:
        self.count += 1
        if self.keep and not executemany:
            self.seen.append((statement, parameters))

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[tuple[str, Any]]]:
        self.seen, self.keep = [], True
        try:
            yield self.seen
        finally:
            self.keep = False


@dataclass
class Timing:
    name: str
    cold: float
    warm: list[float]
    statements: int
    note: str = ""

    def line(self) -> str:
        med = statistics.median(self.warm)
        target = TARGETS.get(self.name)
        verdict = ""
        if target is not None:
            verdict = f"  target <= {target * 1000:.0f} ms: " + (
                "met" if med <= target else "MISSED")
        return (f"  {self.name:<18} cold {self.cold * 1000:9.1f} ms   median "
                f"{med * 1000:9.1f} ms (min {min(self.warm) * 1000:.1f}, max "
                f"{max(self.warm) * 1000:.1f}, {len(self.warm)} runs)   "
                f"{self.statements} statements{verdict}{self.note}")


def measure(name: str, fn: Callable[[], T], repeat: int,
            stmts: Statements) -> tuple[Timing, T]:
    before = stmts.count
    t0 = time.perf_counter()
    result = fn()
    cold = time.perf_counter() - t0
    statements = stmts.count - before
    warm = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        warm.append(time.perf_counter() - t0)
    return Timing(name, cold, warm, statements), result


def console_start(target: Target, config: FloorConfig, paytables: dict[str, Any],
                  repeat: int) -> Timing:
    """A new engine, ConsoleCore.start(links=False) and its first snapshot; stop untimed."""
    times: list[float] = []
    parts: list[tuple[float, float]] = []
    statements: list[int] = []
    tables = 0
    for _ in range(repeat + 1):
        engine = target.engine()
        stmts = Statements()
        stmts.watch(engine)
        stmts.watch(reader(engine))
        t0 = time.perf_counter()
        console = ConsoleCore(engine, config, paytables, paper=PAPER)
        console.start(links=False)
        t1 = time.perf_counter()
        snap = console.floor.snapshot()
        t2 = time.perf_counter()
        console.stop()
        reader(engine).dispose()
        engine.dispose()
        tables = len(snap.tables)
        times.append(t2 - t0)
        parts.append((t1 - t0, t2 - t1))
        statements.append(stmts.count)
    med_start = statistics.median(p[0] for p in parts[1:])
    med_snap = statistics.median(p[1] for p in parts[1:])
    return Timing("console start", times[0], times[1:], statements[0],
                  f"\n      (start {med_start * 1000:.1f} ms + first snapshot "
                  f"{med_snap * 1000:.1f} ms, median; cold start {parts[0][0] * 1000:.1f} + "
                  f"{parts[0][1] * 1000:.1f} ms; {tables} tables in the snapshot)")


def busiest_level(engine: Engine) -> tuple[str, str, int]:
    with engine.connect() as conn:
        row = conn.execute(
            select(Level.group_id, Level.name, func.count(Award.id).label("n"))
            .join(Award, Award.level_id == Level.id).group_by(Level.id, Level.group_id,
                                                              Level.name)
            .order_by(text("n DESC"), Level.id).limit(1)).first()
        if row is None:
            first = conn.execute(select(Level.group_id, Level.name).order_by(Level.id)
                                 .limit(1)).one()
            return str(first[0]), str(first[1]), 0
    return str(row[0]), str(row[1]), int(row[2])


def gaming_day(end: datetime, tz: ZoneInfo) -> tuple[datetime, datetime, datetime, datetime]:
    """The gaming day (06:00 local) that starts the day before yesterday, and its
    14:30-22:30 shift, in UTC."""
    day = end.astimezone(tz).date() - timedelta(days=2)
    start = datetime.combine(day, dtime(6, 0), tz).astimezone(UTC)
    shift = datetime.combine(day, dtime(14, 30), tz).astimezone(UTC)
    return start, start + timedelta(hours=24), shift, shift + timedelta(hours=8)


def report_from_entries(engine: Engine, group: str, level: str, start: datetime,
                        end: datetime) -> tuple[int, int, dict[str, tuple[int, int, int]]]:
    """Opening meter/reserve and movements per kind, summed straight from the entries."""
    me = _table(MeterEntry)
    with Session(engine) as s:
        lid = s.scalar(select(Level.id).where(Level.group_id == group, Level.name == level))
        om, orr = s.execute(select(func.coalesce(func.sum(me.c.meter_delta), 0),
                                   func.coalesce(func.sum(me.c.reserve_delta), 0))
                            .where(me.c.level_id == lid, me.c.created_at < start)).one()
        by_kind = {str(k): (int(n), int(m), int(r)) for k, n, m, r in s.execute(
            select(me.c.kind, func.count(), func.sum(me.c.meter_delta),
                   func.sum(me.c.reserve_delta))
            .where(me.c.level_id == lid, me.c.created_at >= start, me.c.created_at < end)
            .group_by(me.c.kind))}
    return int(om), int(orr), by_kind


def explain(engine: Engine, what: str, seen: list[tuple[str, Any]]) -> None:
    print(f"\n-- plans of {what} ({len(seen)} statements)")
    done: set[str] = set()
    with engine.connect() as conn:
        for statement, params in seen:
            if statement in done or not statement.lstrip().upper().startswith("SELECT"):
                continue
            done.add(statement)
            print("\n" + " ".join(statement.split()))
            if engine.dialect.name == "sqlite":
                rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params).all()
                for r in rows:
                    print(f"    {r[-1]}")
            else:
                rows = conn.exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS) " + statement,
                                            params).all()
                for r in rows:
                    print(f"    {r[0]}")
            conn.rollback()


def sizes(target: Target, engine: Engine) -> None:
    print("\nledger size on disk:")
    per: list[tuple[str, int]] = []
    with engine.connect() as conn:
        if target.sqlite_path is not None:
            path = target.sqlite_path
            size = path.stat().st_size
            wal = Path(f"{path}-wal")
            wal_size = wal.stat().st_size if wal.exists() else 0
            print(f"  ledger file size {size / 2**20:,.1f} MiB ({size:,} bytes; WAL "
                  f"{wal_size / 2**20:,.1f} MiB)  {path}")
            try:
                per = [(str(n), int(b)) for n, b in conn.exec_driver_sql(
                    "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")]
            except Exception:  # noqa: BLE001 - dbstat is an optional SQLite module
                per = []
        else:
            per = [(str(n), int(b)) for n, b in conn.execute(text(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = :s "
                "AND c.relkind = 'r' ORDER BY 2 DESC"), {"s": target.schema})]
            total = sum(b for _, b in per)
            print(f"  pg_total_relation_size, all tables of schema {target.schema}: "
                  f"{total / 2**20:,.1f} MiB ({total:,} bytes)")
    for name, b in per[:16]:
        if b >= 2**16:
            print(f"    {name:<40} {b / 2**20:10,.1f} MiB")


def counts(engine: Engine) -> dict[str, int]:
    out = {}
    with engine.connect() as conn:
        for name in COUNTED:
            out[name] = int(conn.scalar(text(f"SELECT COUNT(*) FROM {name}")) or 0)
    return out


def run_measurements(target: Target, plan: Plan, config: FloorConfig,
                     paytables: dict[str, Paytable], args: argparse.Namespace) -> None:
    repeat = args.repeat
    print(f"\nmeasuring ({repeat} runs after a cold one; the median of those {repeat}):")
    start_t = console_start(target, config, paytables, repeat)
    print(start_t.line(), flush=True)
    engine = target.engine()
    try:
        stmts = Statements()
        stmts.watch(engine)
        stmts.watch(reader(engine))
        floor = Floor(engine, config, paytables, paper=PAPER)
        group, level, n_awards = busiest_level(engine)
        tz = ZoneInfo(config.casino.timezone)
        day_start, day_end, shift_start, shift_end = gaming_day(plan.end, tz)
        ops: list[tuple[str, Callable[[], Any]]] = [
            ("snapshot", floor.snapshot),
            ("last 25 hits", lambda: floor.recent_hits(group, level, 25)),
            ("gaming-day report", lambda: floor.meter_report(group, level, day_start,
                                                             day_end)),
            ("shift report", lambda: floor.meter_report(group, level, shift_start,
                                                        shift_end)),
        ]
        results: dict[str, Any] = {}
        for name, fn in ops:
            timing, results[name] = measure(name, fn, repeat, stmts)
            print(timing.line(), flush=True)
        snap = results["snapshot"]
        print(f"\n  snapshot: {len(snap.tables)} tables, {len(snap.levels)} levels, "
              f"{len(snap.pending)} pending hits")
        hits = results["last 25 hits"]
        print(f"  last 25 hits of {group}/{level} ({n_awards:,} meter pays on it): "
              f"{len(hits)} hits, newest {hits[0].at if hits else '-'}")
        local = f"{day_start.astimezone(tz):%Y-%m-%d %H:%M} {config.casino.timezone}"
        for name, (lo, hi) in (("gaming-day report", (day_start, day_end)),
                               ("shift report", (shift_start, shift_end))):
            rep = results[name]
            om, orr, by_kind = report_from_entries(engine, group, level, lo, hi)
            same = (om, orr, by_kind) == (rep.opening_meter_units, rep.opening_reserve_units,
                                          rep.by_kind)
            moves = sum(v[0] for v in rep.by_kind.values())
            print(f"  {name} {group}/{level} {lo.astimezone(tz):%Y-%m-%d %H:%M} - "
                  f"{hi.astimezone(tz):%Y-%m-%d %H:%M} local ({lo:%Y-%m-%d %H:%M} - "
                  f"{hi:%Y-%m-%d %H:%M} UTC): "
                  f"{moves:,} entries, opening {json_cents(units_floor_cents(om))} closing "
                  f"{json_cents(units_floor_cents(rep.closing_meter_units))}; adds_up "
                  f"{rep.adds_up}; equals the sums of the entries: {same}")
        if day_start < plan.begin:
            print(f"  NOTE: the ledger starts {plan.begin:%Y-%m-%d %H:%M} UTC, after the gaming "
                  f"day of {local}")
        if args.explain:
            with stmts.recording() as seen:
                started = target.engine()
                stmts.watch(started)
                stmts.watch(reader(started))
                console = ConsoleCore(started, config, paytables, paper=PAPER)
                console.start(links=False)
                console.stop()
                reader(started).dispose()
                started.dispose()
            explain(engine, "console start", list(seen))
            for name, fn in ops:
                with stmts.recording() as seen:
                    fn()
                explain(engine, name, list(seen))
        sizes(target, engine)
        t0 = time.perf_counter()
        rows = counts(engine)
        print(f"\nrow counts ({time.perf_counter() - t0:.1f} s to count):")
        for name, n in rows.items():
            print(f"  {name:<20} {n:>14,}")
    finally:
        reader(engine).dispose()
        engine.dispose()


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10_000_000, help="rounds (default 10 M)")
    ap.add_argument("--tables", type=int, default=500, help="tables (default 500)")
    ap.add_argument("--db", help="ledger URL (default: a SQLite file in a temporary folder); "
                                 "postgresql+psycopg://...: a fresh schema, dropped at the end")
    ap.add_argument("--keep", metavar="PATH",
                    help="SQLite: build into (and keep) this file; if it holds the rounds "
                         "already, the build is skipped; an interrupted build resumes")
    ap.add_argument("--schema", help="PostgreSQL: use (and keep) this schema; like --keep")
    ap.add_argument("--keep-schema", action="store_true",
                    help="PostgreSQL: do not drop the fresh schema at the end")
    ap.add_argument("--days", type=float,
                    help=f"days the rounds span, ending now (default: rounds / "
                         f"--rounds-per-day, at least {MIN_DAYS:g})")
    ap.add_argument("--rounds-per-day", type=int, default=ROUNDS_PER_DAY,
                    help=f"(default {ROUNDS_PER_DAY:,}: a busy 500-table floor)")
    ap.add_argument("--chunk", type=int, default=100_000,
                    help="rounds per transaction (default 100,000)")
    ap.add_argument("--no-fk-checks", action="store_true",
                    help="build without foreign key checks (SQLite: PRAGMA foreign_keys=OFF; "
                         "PostgreSQL: session_replication_role=replica, needs a superuser): "
                         "~2x faster on PostgreSQL, no gain on SQLite")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs after the cold one")
    ap.add_argument("--explain", action="store_true",
                    help="print the plan of every statement measured")
    ap.add_argument("--build-only", action="store_true", help="build, check, measure nothing")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.tables < 1 or args.chunk < 1 or args.repeat < 1:
        ap.error("--rounds, --tables, --chunk and --repeat must be at least 1")
    if args.days is not None and args.days <= 0:
        ap.error("--days must be more than 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    _check_columns()
    with tempfile.TemporaryDirectory(prefix="ledger_size-") as tmp_name:
        tmp = Path(tmp_name)
        floor_file = tmp / "floor.toml"
        floor_sim.write_floor(floor_file, args.tables, 20000, certs=None)  # no link is started
        config = load_floor(floor_file)
        paytables = load_paytables()
        target = open_target(args, tmp)
        try:
            plan = prepare(target, args, config, paytables)
            engine = target.engine()
            done = rounds_done(engine)
            engine.dispose()
            print(f"ledger {target.sqlite_path or target.schema}: {done:,} of {plan.rounds:,} "
                  f"rounds, {plan.tables} tables, {plan.begin:%Y-%m-%d %H:%M} .. "
                  f"{plan.end:%Y-%m-%d %H:%M} UTC")
            if done < plan.rounds:
                builder = Builder(target, plan, config, paytables, not args.no_fk_checks)
                try:
                    builder.build(done)
                except KeyboardInterrupt:
                    print("\ninterrupted: the chunks committed so far stay; run the same "
                          "command again (with --keep / --schema) to resume", file=sys.stderr)
                    return 130
                finally:
                    builder.close()
            else:
                print("the ledger holds every round: no build")
            if plan.rounds <= 200_000:
                engine = target.engine()
                t0 = time.perf_counter()
                problems = check_balances(engine)
                engine.dispose()
                print(f"check_balances: {'fine' if not problems else problems[:5]} "
                      f"({time.perf_counter() - t0:.1f} s)")
            else:
                print("check_balances: skipped (more than 200,000 rounds: it sums every entry)")
            if not args.build_only:
                run_measurements(target, plan, config, paytables, args)
        finally:
            for fn in target.cleanup:
                fn()
    return 0


if __name__ == "__main__":
    sys.exit(main())
