"""What the tamper-evident ledger costs: the floor's ledger writer recording controller events
with and without the hash chain and guards (revision 0014 against 0013), same code, same
events, on SQLite and (``--db``) PostgreSQL.

For each database and each revision this makes a fresh ledger and a floor of ``--tables``
tables (``floor_sim.write_floor``: links of 10, WA01 and ML2 alternating), brings every table
online and then, ``--rounds`` times, submits every table's START GAME (1 to 6 wagers of $1 on
random seats) at once to the ledger writer (as the links do when a whole pit deals), waits for
every acknowledgement, then every table's END GAME.  A 0013 ledger has no journal, so the seal
is skipped: that run is the ledger as it was before the chain.

Prints per run: events, wall seconds, events/s, p50/p99 of submit -> committed per event, ledger
rows written, chain rows, for SQLite the file size (database + WAL), and with ``--verify`` how
long ``podium audit verify`` takes on the chained ledger.

    .venv/bin/python benchmarks/ledger_chain.py [--tables 500] [--rounds 10]
        [--db postgresql+psycopg://postgres@127.0.0.1:5432/test] [--verify]
"""

from __future__ import annotations

import argparse
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
from core.ledger import integrity  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.rules.paytables import load_paytables  # noqa: E402
from core.tablegames.floor import Floor  # noqa: E402


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
        floor = Floor(engine, config, dict(load_paytables()))
        floor.start()
        ids = [t.id for t in config.tables]
        for t in ids:
            floor.set_link(t, True)
        with engine.connect() as conn:
            rows_before = _rows(conn)
        floor.writer.start()
        rng = random.Random(7)
        seq = dict.fromkeys(ids, 0)
        latencies: list[float] = []
        events = 0
        t0 = time.perf_counter()
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
        floor.writer.stop()
        with engine.connect() as conn:
            rows_after = _rows(conn)
            chain = conn.execute(text("SELECT count(*) FROM ledger_chain")).scalar() \
                if revision != "0013" else 0
        size = ""
        if kind == "sqlite":
            wal = Path(str(where) + "-wal")
            total = Path(where).stat().st_size + (wal.stat().st_size if wal.exists() else 0)
            size = f"{total / 1e6:.1f} MB"
        latencies.sort()
        verify_s = ""
        if revision != "0013" and args.verify:
            from core.ledger.audit import verify

            v0 = time.perf_counter()
            report = verify(engine)
            verify_s = f"{time.perf_counter() - v0:.1f} s ({'ok' if report.ok else 'BROKEN'})"
        return {"db": kind, "revision": "0014 chain" if revision != "0013" else "0013 no chain",
                "events": events, "wall_s": round(wall, 2), "events_per_s": round(events / wall),
                "p50_ms": round(statistics.median(latencies) * 1000, 1),
                "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 1),
                "ledger_rows": rows_after - rows_before, "chain_rows": chain, "size": size,
                "audit_verify": verify_s}
    finally:
        engine.dispose()
        _drop(kind, where, args.db)


def _rows(conn: Any) -> int:
    return sum(int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() or 0)
               for t in integrity.CHAINED)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--db", default=None, help="a PostgreSQL URL: also run there")
    p.add_argument("--verify", action="store_true",
                   help="also time podium audit verify on each chained ledger")
    args = p.parse_args()
    kinds = ["sqlite"] + (["postgresql"] if args.db else [])
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            for revision in ("0013", "head", "0013", "head"):  # twice each, interleaved
                r = run_one(kind, revision, args, Path(tmp))
                print("  ".join(f"{k}={v}" for k, v in r.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
