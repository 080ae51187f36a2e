"""The ledger writer alone, chain and guards on, against the database's own rate.

For each database this makes a fresh ledger (head revision) and a floor of ``--tables`` tables
(``floor_sim.write_floor``: links of 10, WA01 and ML2 alternating), brings every table online and
then, ``--rounds`` times, submits every table's START GAME (1 to 6 wagers of $1 on random seats)
at once to the ledger writer (as the links do when a whole pit deals), waits for every
acknowledgement, then every table's END GAME.

Prints per run: events, wall seconds, events/s, p50/p99 of submit -> committed per event, ledger
rows written and per event, chain rows, bytes of database added per round (SQLite: the pages in
use; PostgreSQL: the schema's relations), and with ``--verify`` how long
``podium audit verify`` takes.  Then the database's own rate measured the same way: the same
number of rows, of the same width, written as batched INSERTs (one statement per wave, one
commit per wave) into a plain table with no triggers, no chain, no indexes but its key; the
writer's rows/s against it is the ratio the closing note states.

    .venv/bin/python benchmarks/ledger_chain.py [--tables 500] [--rounds 10]
        [--db postgresql+psycopg://postgres@127.0.0.1:5432/test] [--no-sqlite] [--verify]
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_sim  # noqa: E402
from sqlalchemy import Engine, create_engine, text  # noqa: E402

from core.controllers.events import GameEnded, GameStarted, Origin  # noqa: E402
from core.floorconfig import load_floor  # noqa: E402
from core.ledger import chain  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.tablegames.floor import Floor  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402


def _engine(kind: str, folder: Path, pg_url: str | None) -> tuple[Engine, Any]:
    if kind == "sqlite":
        path = folder / f"ledger-{secrets.token_hex(4)}.sqlite3"
        return make_engine(f"sqlite:///{path}"), path
    assert pg_url is not None
    schema = f"bench_{secrets.token_hex(5)}"
    admin = create_engine(pg_url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    return make_engine(pg_url, connect_args={"options": f"-csearch_path={schema}"}), schema


def _drop(kind: str, where: Any, pg_url: str | None) -> None:
    if kind == "postgresql":
        admin = create_engine(str(pg_url))
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{where}" CASCADE'))
        admin.dispose()


def run_one(kind: str, revision: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    engine, where = _engine(kind, folder, args.db)
    try:
        upgrade(engine, revision)
        floor_file = folder / f"floor-{args.tables}.toml"
        floor_sim.write_floor(floor_file, args.tables, 20000, certs=None)  # no links here
        config = load_floor(floor_file)
        floor = Floor(engine, config, dict(load_paytables()), paper=PAPER)
        floor.start()
        ids = [t.id for t in config.tables]
        for t in ids:
            floor.set_link(t, True)
        with engine.connect() as conn:
            rows_before = _rows(conn)
            size_before = _size(kind, conn, where)
        floor.writer.start()
        rng = random.Random(7)
        seq = dict.fromkeys(ids, 0)
        latencies: list[float] = []
        events = 0
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        pg0 = _pg_cpu() if kind == "postgresql" else {}
        for rnd in range(1, args.rounds + 1):
            for phase in ("start", "end"):
                wave = []
                for t in ids:
                    seq[t] += 1
                    event = (GameStarted(rnd, dict.fromkeys(rng.sample(range(1, 7),
                                                                        rng.randint(1, 6)), 100))
                             if phase == "start" else GameEnded(rnd))
                    wave.append((time.perf_counter(),
                                 floor.writer.submit_event(Origin(t, "bench", seq[t]), event)))
                for started, fut in wave:
                    fut.result(timeout=300)
                    latencies.append(time.perf_counter() - started)
                events += len(wave)
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        pg_cpu = _pg_spent(pg0, _pg_cpu()) if kind == "postgresql" else 0.0
        floor.writer.stop()
        with engine.connect() as conn:
            rows_after = _rows(conn)
            chain = int(conn.execute(text("SELECT count(*) FROM ledger_chain")).scalar() or 0)
            size = _size(kind, conn, where)
        latencies.sort()
        verify_s = ""
        if args.verify:
            from core.ledger.audit import verify

            v0 = time.perf_counter()
            report = verify(engine)
            verify_s = f"{time.perf_counter() - v0:.1f} s ({'ok' if report.ok else 'BROKEN'})"
        rounds = args.rounds * len(ids)
        written = rows_after - rows_before
        return {"db": kind, "events": events, "wall_s": round(wall, 2),
                "events_per_s": round(events / wall),
                "p50_ms": round(statistics.median(latencies) * 1000, 1),
                "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 1),
                "ledger_rows": written, "rows_per_event": round(written / events, 2),
                "rows_per_s": round(written / wall), "chain_rows": chain,
                "cpu_ms_per_event": round(cpu * 1000 / events, 3),
                "pg_cpu_ms_per_event": round(pg_cpu * 1000 / events, 3) if pg_cpu else "",
                "bytes_per_round": round((size - size_before) / rounds),
                "audit_verify": verify_s}
    finally:
        engine.dispose()
        _drop(kind, where, args.db)


def _pg_cpu() -> dict[int, float]:
    """CPU seconds used so far by each PostgreSQL process of this machine (from /proc)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            head, rest = stat.read_text().rsplit(")", 1)
            if "(postgres" not in head:
                continue
            parts = rest.split()
            out[int(stat.parent.name)] = (int(parts[11]) + int(parts[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return out


def _pg_spent(before: dict[int, float], after: dict[int, float]) -> float:
    """What the server processes alive at both readings spent between them (a backend that
    ended meanwhile is left out; one that began counts from 0)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def _size(kind: str, conn: Any, where: Any) -> int:
    """Bytes of the whole database (SQLite: after a checkpoint) or the schema (PostgreSQL)."""
    if kind == "sqlite":  # the pages in use, as this connection sees them (WAL included)
        pages = int(conn.exec_driver_sql("PRAGMA page_count").scalar() or 0)
        free = int(conn.exec_driver_sql("PRAGMA freelist_count").scalar() or 0)
        return (pages - free) * int(conn.exec_driver_sql("PRAGMA page_size").scalar() or 0)
    return int(conn.execute(text(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = :s "
        "AND c.relkind IN ('r', 'm')"), {"s": where}).scalar() or 0)


def raw_rate(kind: str, args: argparse.Namespace, folder: Path, rows_per_event: float
             ) -> dict[str, Any]:
    """The database's own rate, measured as the writer is: a wave of every table's events
    (``rows_per_event`` rows each, ~60 bytes of columns like a ledger row) as ONE batched
    INSERT and one commit, ``2 x rounds`` waves."""
    engine, where = _engine(kind, folder, args.db)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE raw_rows (id INTEGER PRIMARY KEY, table_id "
                              "VARCHAR(64), kind VARCHAR(32), delta BIGINT, reason TEXT, "
                              "at TIMESTAMP)"))
        per_wave = round(args.tables * rows_per_event)
        stmt = text("INSERT INTO raw_rows (id, table_id, kind, delta, reason, at) "
                    "VALUES (:id, :t, :k, :d, :r, :at)")
        from datetime import UTC, datetime

        now = datetime.now(UTC).replace(tzinfo=None)
        n = 0
        t0 = time.perf_counter()
        for _wave in range(2 * args.rounds):
            rows = []
            for _ in range(per_wave):
                n += 1
                rows.append({"id": n, "t": f"T{n % args.tables:03d}", "k": "contribution",
                             "d": 150000, "r": f"table T{n % 500} round {n}", "at": now})
            with engine.begin() as conn:
                conn.execute(stmt, rows)
        wall = time.perf_counter() - t0
        return {"db": kind, "raw_rows": n, "raw_wall_s": round(wall, 2),
                "raw_rows_per_s": round(n / wall)}
    finally:
        engine.dispose()
        _drop(kind, where, args.db)


def _rows(conn: Any) -> int:
    return sum(int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() or 0)
               for t in chain.CHAINED)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--runs", type=int, default=2, help="runs of the writer per database")
    p.add_argument("--db", default=None, help="a PostgreSQL URL: also run there")
    p.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    p.add_argument("--verify", action="store_true",
                   help="also time podium audit verify on each ledger")
    args = p.parse_args()
    kinds = ([] if args.no_sqlite else ["sqlite"]) + (["postgresql"] if args.db else [])
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            best: dict[str, Any] = {}
            for _ in range(args.runs):
                r = run_one(kind, "head", args, Path(tmp))
                print("  ".join(f"{k}={v}" for k, v in r.items()), flush=True)
                if not best or r["rows_per_s"] > best["rows_per_s"]:
                    best = r
            raw = raw_rate(kind, args, Path(tmp), float(best["rows_per_event"]))
            print("  ".join(f"{k}={v}" for k, v in raw.items()) +
                  f"  writer/raw={best['rows_per_s'] / raw['raw_rows_per_s']:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
