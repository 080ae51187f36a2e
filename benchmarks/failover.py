"""Failover: how long a table is unserved when its floor service is killed and a standby runs.

    .venv/bin/python benchmarks/failover.py [--tables 50 500] [--kills 3]
        [--db postgresql+psycopg://postgres@127.0.0.1:5432/test] [--claim-interval 1.0]
        [--freeze SECONDS]

For each table count, on a fresh schema of the PostgreSQL database: the simulated tables
(``benchmarks/floor_sim.py``, a process of their own, mutual TLS with a test CA made for the
run, playing at ``--speed``), and two ``podium serve`` processes on the whole floor, each with
its own name.  The first to start serves every table; the second stands by.  Then ``--kills``
times: the serving one is killed with SIGKILL (as a crash or an OOM kill would), the other takes
every table over, and a new standby is started in the dead one's place.

With ``--freeze SECONDS`` the serving one is not killed but frozen (SIGSTOP, as a VM or GC
pause would stop it) with its lock session left open, for that long; the standby takes the
tables when the frozen one's lease ends (``PODIUM_LEASE_S``, default 3 s: the bound is the lease
plus the claim interval from its last heartbeat); then it is woken (SIGCONT) and stands by for
the next round.  The refusals the ledger kept meanwhile (a stale service's OFFLINE refusing the
new owner's START GAME) are counted too.  ``--terminate`` also ends the frozen one's lock
session on the server (``pg_terminate_backend``, as a failover or an operator would): the
standby takes the tables after its grace, and the frozen one, woken, must write nothing for
them (the refusals and sequence gaps counted say whether it did).

Per kill and table, from the moment of the SIGKILL (wall clock):
  - claimed: the standby's ``claimed`` row in ``ownership_events`` (its advisory lock taken);
  - connected: the simulator accepted the standby's connection (the record's ``connected_at``);
  - online: the ledger says the table is ONLINE again under the standby (polled every 20 ms,
    so up to 20 ms late).
Printed: p50 / p95 / max over every (kill, table), and the events the tables sent meanwhile
that were lost (acknowledged but not in the ledger: 0 expected) at the end.  Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_sim  # noqa: E402
from floor_scale import drop_schema  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402

from core.controllers import certs  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def serve(floor: Path, url: str, name: str, log: Path, *options: str
          ) -> subprocess.Popen[str]:
    """A ``podium serve`` named ``name`` with ``options`` (more of its command line); returns
    once it printed READY.  Its output goes to ``log``, each line after its name."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.dispatch", "serve", "--floor", str(floor), "--db", url,
         "--name", name, "--log-format", "plain", "--log-level", "WARNING", *options],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"podium serve {name} did not start (see {log})")
        if line.startswith("READY"):
            break
    out = log.open("a")

    def drain() -> None:
        assert proc.stdout is not None
        for ln in proc.stdout:
            out.write(f"{name}: {ln}")
            out.flush()
        out.close()

    threading.Thread(target=drain, daemon=True).start()
    return proc


def owner_counts(engine: Any) -> dict[str, int]:
    with engine.connect() as c:
        return {str(n): int(k) for n, k in c.execute(text(
            "SELECT s.name, count(*) FROM table_owners o JOIN floor_services s "
            "ON s.id = o.service_id GROUP BY s.name"))}


def run_once(tables: int, args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"failover{tables}-"))
    pki = tmp / "pki"
    certs.init(pki, floor_sim.table_ids(tables), organization="Podium Failover Benchmark")
    floor_file = tmp / "floor.toml"
    floor_sim.write_floor(floor_file, tables, args.base_port, certs=pki)
    record_file = tmp / "record.json"
    sim_log = open(tmp / "sim.log", "w")  # noqa: SIM115 - closed below
    sim = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "floor_sim.py"), "--floor", str(floor_file),
         "--speed", str(args.speed), "--seconds", "100000", "--drain", "5", "--seed", "1",
         "--record", str(record_file), "--stagger"],
        stdout=subprocess.PIPE, stderr=sim_log, text=True)
    assert sim.stdout is not None
    if not sim.stdout.readline().startswith("SIM READY"):
        raise SystemExit(f"the simulator did not start (see {tmp / 'sim.log'})")
    schema = f"bench_{os.urandom(4).hex()}"
    admin = create_engine(args.db)
    with admin.begin() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    url = f"{args.db}?options=-csearch_path%3D{schema}"
    engine = make_engine(args.db, connect_args={"options": f"-csearch_path={schema}"})
    upgrade(engine)
    log = tmp / "serve.log"
    names = iter(f"svc-{i}" for i in range(1, 100))
    serving = (next(names), None)
    procs: dict[str, subprocess.Popen[str]] = {}
    try:
        first = serving[0]
        procs[first] = serve(floor_file, url, first, log, "--claim-interval",
                             str(args.claim_interval))
        t0 = time.monotonic()
        while owner_counts(engine).get(first, 0) < tables or _online(engine) < tables:
            time.sleep(0.05)
            if time.monotonic() - t0 > 120:
                raise SystemExit("the first service did not bring every table online")
        standby = next(names)
        procs[standby] = serve(floor_file, url, standby, log, "--claim-interval",
                                   str(args.claim_interval))
        time.sleep(args.settle)
        kills: list[dict[str, Any]] = []
        rng = random.Random(args.seed)
        for _ in range(args.kills):
            # the kill lands anywhere in the standby's claim interval, as a crash would
            time.sleep(rng.uniform(0, args.claim_interval))
            victim = first
            killed_at = time.time()
            if args.freeze:
                procs[victim].send_signal(signal.SIGSTOP)
                if args.terminate:
                    with engine.begin() as c:
                        c.execute(text(
                            "SELECT pg_terminate_backend(db_pid) FROM floor_services "
                            "WHERE name = :n AND stopped_at IS NULL"), {"n": victim})
            else:
                procs[victim].send_signal(signal.SIGKILL)
                procs[victim].wait(10)
            online_at: dict[str, float] = {}
            # a frozen service is woken when its freeze ends, whoever serves the tables then
            deadline = time.monotonic() + (args.freeze or 120)
            while len(online_at) < tables and time.monotonic() < deadline:
                now = time.time()
                with engine.connect() as c:
                    for tid in c.execute(text(
                            "SELECT t.id FROM tables t JOIN table_owners o ON o.table_id = t.id "
                            "JOIN floor_services s ON s.id = o.service_id "
                            "WHERE t.online AND s.name = :n"), {"n": standby}).scalars():
                        online_at.setdefault(str(tid), now)
                time.sleep(0.02)
            with engine.connect() as c:
                claimed = {str(t): at.timestamp() for t, at in c.execute(text(
                    "SELECT e.table_id, e.created_at FROM ownership_events e "
                    "JOIN floor_services s ON s.id = e.service_id "
                    "WHERE s.name = :n AND e.event = 'claimed' ORDER BY e.id"), {"n": standby})}
            claimed = {t: at for t, at in claimed.items() if at >= killed_at}
            kills.append({"killed_at": killed_at, "standby": standby,
                          "claimed": {t: at - killed_at for t, at in claimed.items()},
                          "online": {t: at - killed_at for t, at in online_at.items()}})
            if args.freeze:  # woken after the freeze: it stands by for the next round
                time.sleep(max(0.0, killed_at + args.freeze - time.time()))
                procs[victim].send_signal(signal.SIGCONT)
                first, standby = standby, victim
            else:  # the standby serves now; a new standby takes the dead one's place
                first, standby = standby, next(names)
                procs[standby] = serve(floor_file, url, standby, log, "--claim-interval",
                                   str(args.claim_interval))
            time.sleep(args.settle)
        sim.send_signal(signal.SIGTERM)
        sim.wait(60)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
        if sim.poll() is None:
            sim.kill()
        sim_log.close()
    record = json.loads(record_file.read_text())
    with engine.connect() as c:
        recorded = {(t, b, q) for t, b, q in c.execute(text(
            "SELECT table_id, boot, seq FROM controller_events"))}
        refused = dict(c.execute(text(
            "SELECT type, count(*) FROM refused_events GROUP BY type")).all())
        gaps = c.execute(text("SELECT count(*) FROM controller_events "
                              "WHERE type = 'SequenceGap'")).scalar()
    engine.dispose()
    drop_schema(args.db, schema)
    acked = {(tid, tab["boot"], ev["seq"]) for tid, tab in record["tables"].items()
             for ev in tab["events"] if ev.get("ack_result") == "ok"}
    connected: list[float] = []
    for k in kills:
        for _tid, tab in record["tables"].items():
            after = [t - k["killed_at"] for t in tab.get("connected_at", [])
                     if t >= k["killed_at"]]
            if after:
                connected.append(min(after))
    return {"tables": tables, "kills": kills, "connected": connected,
            "lost": len(acked - recorded), "refused": refused, "gaps": gaps, "tmp": str(tmp)}


def _online(engine: Any) -> int:
    with engine.connect() as c:
        return int(c.execute(text("SELECT count(*) FROM tables WHERE online")).scalar() or 0)


def fmt(values: list[float]) -> str:
    if not values:
        return "n/a"
    return (f"p50 {pct(values, 0.5) * 1000:7.0f} ms   p95 {pct(values, 0.95) * 1000:7.0f} ms   "
            f"max {max(values) * 1000:7.0f} ms   (n={len(values)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[50, 500])
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--db", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    ap.add_argument("--speed", type=float, default=10.0)
    ap.add_argument("--claim-interval", type=float, default=1.0)
    ap.add_argument("--settle", type=float, default=5.0,
                    help="seconds of play between a takeover and the next kill")
    ap.add_argument("--base-port", type=int, default=21000)
    ap.add_argument("--seed", type=int, default=7, help="when in the claim interval to kill")
    ap.add_argument("--freeze", type=float, default=0.0, metavar="SECONDS",
                    help="freeze the serving service (SIGSTOP) this long instead of killing it")
    ap.add_argument("--terminate", action="store_true",
                    help="with --freeze: also end the frozen service's lock session")
    args = ap.parse_args()
    for n in args.tables:
        r = run_once(n, args)
        claimed = [v for k in r["kills"] for v in k["claimed"].values()]
        online = [v for k in r["kills"] for v in k["online"].values()]
        unserved = sum(n - len(k["online"]) for k in r["kills"])
        what = (f"freezes of {args.freeze:g} s" + (" (lock session ended)" if args.terminate
                                                    else "") if args.freeze else "kills")
        print(f"== {n} tables, {len(r['kills'])} {what} (claim interval "
              f"{args.claim_interval:g} s; load {os.getloadavg()[0]:.2f}) ==")
        print(f"  kill -> standby claimed   {fmt(claimed)}")
        print(f"  kill -> controller reconnected {fmt(r['connected'])}")
        print(f"  kill -> ONLINE in ledger  {fmt(online)}")
        print(f"  tables not back within {args.freeze or 120:g} s: {unserved}; "
              f"acknowledged events lost: "
              f"{r['lost']}; events refused: {sum(r['refused'].values())} "
              f"{r['refused'] or ''}; sequence gaps recorded: {r['gaps']}")
        print("  median per kill (online): "
              + ", ".join(f"{statistics.median(k['online'].values()) * 1000:.0f} ms"
                          for k in r["kills"] if k["online"]), flush=True)


if __name__ == "__main__":
    main()
