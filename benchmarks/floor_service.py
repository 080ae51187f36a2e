"""Floor scale through the floor service (issue 14): ``podium serve`` processes and two client
consoles on one PostgreSQL ledger, hundreds of simulated tables.

For each configuration (``--services 1 2``, default both) this

1. makes a fresh schema of the database (``--db``, default the local ``test``), migrates it and
   enrolls the demo employees; writes a floor of ``--tables`` tables (``floor_sim.write_floor``:
   links of 10 tables, WA01 and ML2 alternating) whose first half stands in pit A and second
   half in pit B (``pit = "..."`` on each table), with a test CA and one certificate per table
   made for the run (mutual TLS, as floor_scale);
2. starts the simulated controllers in a process of their own (``benchmarks/floor_sim.py``:
   real TCP, every frame recorded with its wall time), then the floor service:

   - ``--services 1``: ONE ``podium serve`` serving every table;
   - ``--services 2``: two ``podium serve``, ``--pit A`` and ``--pit B``;

   then two client consoles (``ConsoleCore(serve=())``: no links, an engine of their own, the
   ledger's live feed), each in a process of its own (this script with ``--console-worker``),
   each with floor_scale's supervisors deciding every pending hit of its pit (a flagged hit
   rejected; the others' verification opened, which freezes a meter pay's amount, and a
   payable one paid with an Executive swipe at the amount shown, ``--pin-seconds`` later for a
   meter pay, swiped again at the amount a refusal names; one that pays nothing rejected;
   the decision is the console's, the PAY/REJECT goes to the table from whichever service
   holds it, heard through the feed; the summary counts "amount moved" refusals and pays that
   needed more than one swipe: both must be 0).  The tables listen but deal nothing
   (``floor_sim --hold``) until every table is online and both consoles listen: then both
   consoles' supervisors start and the tables play for ``--seconds`` (the services' and the
   consoles' start-up is not in the figures);
3. after ``--seconds`` of play and ``--drain`` seconds for the last rounds (floor_sim's), stops
   the consoles, then the services (SIGTERM), compares the simulator's record, the consoles'
   records and the ledger, prints one block of figures, and drops the schema.

Figures per run:

- events/s recorded by the ledger (first to last event received), events refused;
- controller event -> ACK p50/p95/p99 (floor_sim.ack_latencies: first send to first ACK), all
  and after the first 10 s of play (every table's first round starting, staggered);
- each service's CPU: utime + stime from /proc/<pid>/stat read when it said READY and just
  before it is stopped (seconds, and % of one core over that wall time), with its ledger
  writer's batches (its /health);
- hit decided -> PAY/REJECT applied at the table: from the deciding console's commit (its
  listener's announcement of its own decision, else when pay/reject returned) to the
  simulator's record of the command that decided the hit (``applied``); p50/p95/p99, PAYs and
  REJECTs together and PAYs alone; and for the hits the service pays itself as it records
  them (auto-pay), the claim's send -> the PAY applied;
- events never acknowledged, events acknowledged ok but not in the ledger, duplicated
  (ledger rows for the same table, boot and seq), meter drift (per level: the ledger's
  contributions net of reversals against floor_sim.expected_contributions, as floor_scale
  computes it; and again counting the events the ledger committed whose ACK had not reached
  the table when the simulator stopped: an overloaded service leaves many, and the first
  figure then shows them as drift), PAY amounts the tables applied against the ledger's
  awards (and the awards whose PAY never reached the table), check_balances.  A decision the
  table could not apply is told apart: the table withdrew the claim (UNDO HIT) as the console
  decided it, or the console decided after the tables had stopped;
- notify latency console -> console: for every decision a console committed, the time until
  the OTHER console's feed listener announced a remote FloorChange whose ``outcomes`` hold
  that hit (both ends time.time() on this machine), p50/p95/p99 and how many of the decisions
  were heard;
- notify latency service -> console: every remote FloorChange a console heard from a service
  alone, ``time.time()`` at the listener minus ``change.sent`` (the service's time.time() when
  it published; the earliest notification of the batch the listener read at once).

The ledger, the simulator and the consoles all time with time.time() on one machine: the
latencies across processes need no clock correction.  Nothing is asserted.  Note the load
average beside the figures (a 2-core machine runs the simulator, the services, two consoles and
PostgreSQL at once).

    .venv/bin/python benchmarks/floor_service.py [--tables 500] [--services 1 2]
        [--seconds 60] [--drain 15] [--speed 10]
        [--db postgresql+psycopg://postgres@127.0.0.1:5432/test] [--keep-logs]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_scale  # noqa: E402
import floor_sim  # noqa: E402
from floor_scale import drop_schema, ledger_contributions, pct  # noqa: E402
from sqlalchemy import create_engine, func, select, text  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from core import floorconfig  # noqa: E402
from core.controllers import certs  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.ledger.models import Award, Hit, RefusedEvent  # noqa: E402
from core.ledger.models import ControllerEvent as EventRow  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402

DEFAULT_DB = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PITS = ("A", "B")
WARMUP_S = floor_scale.WARMUP_S
TICK = os.sysconf("SC_CLK_TCK")


def fmt(values: list[float], what: str = "") -> str:
    if not values:
        return "n/a"
    ms = [v * 1000 for v in values]
    return (f"p50 {pct(ms, .50):.0f} ms, p95 {pct(ms, .95):.0f} ms, p99 {pct(ms, .99):.0f} ms, "
            f"max {max(ms):.0f} ms ({len(ms)}{' ' + what if what else ''})")


def proc_cpu(pid: int) -> float:
    """utime + stime of a process (seconds), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def schema_url(db: str, schema: str) -> str:
    return f"{db}{'&' if '?' in db else '?'}options=-csearch_path%3D{schema}"


def write_pit_floor(path: Path, tables: int, base_port: int, pki: Path) -> dict[str, set[str]]:
    """floor_sim's floor, the first half of the tables in pit A and the rest in pit B."""
    floor_sim.write_floor(path, tables, base_port, certs=pki)
    ids = floor_sim.table_ids(tables)
    pits = {t: PITS[0] if i < tables // 2 else PITS[1] for i, t in enumerate(ids)}
    body = re.sub(r'^id = "(T\d+)"$', lambda m: f'{m.group(0)}\npit = "{pits[m.group(1)]}"',
                  path.read_text(), flags=re.M)
    path.write_text(body)
    return {p: {t for t, q in pits.items() if q == p} for p in PITS}


# ------------------------------------------------------------------------------ subprocesses

class Child:
    """A subprocess that says a READY line on stdout; the rest of its output goes to a log."""

    def __init__(self, cmd: list[str], log: Path, ready: str, timeout: float = 120) -> None:
        self.log = log
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert self.proc.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            if line.startswith(ready):
                self.ready_line = line.strip()
                self.ready_at = time.time()
                self.cpu_at_ready = proc_cpu(self.proc.pid)
                log.write_text("".join(seen))
                threading.Thread(target=self._drain, daemon=True).start()
                return
        self.proc.kill()
        raise SystemExit(f"{cmd[:4]} did not start:\n{''.join(seen)[-3000:]}")

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        with self.log.open("a") as out:
            for line in self.proc.stdout:
                out.write(line)
                out.flush()

    def stop(self, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


def start_service(floor_file: Path, url: str, name: str, pit: str | None, health: int,
                  log: Path) -> Child:
    cmd = [sys.executable, "-m", "core.cli.dispatch", "serve", "--floor", str(floor_file),
           "--db", url, "--name", name, "--log-format", "plain", "--health",
           f"127.0.0.1:{health}", "--health-every", "20"] + (["--pit", pit] if pit else [])
    return Child(cmd, log, "READY")


def get_health(port: int) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
            return dict(json.loads(r.read()))
    except urllib.error.HTTPError as exc:
        return dict(json.loads(exc.read()))
    except Exception as exc:  # noqa: BLE001 - a figure, not a failure
        return {"error": str(exc)}


# ------------------------------------------------------------------------------ a console

def console_worker(args: argparse.Namespace) -> int:
    """A client console of one pit (``--console-worker PIT``): ConsoleCore(serve=()) on an
    engine of its own, floor_scale's supervisors for the pit's hits, and a listener that
    records what the feed brings.  Runs until SIGTERM; then writes its record (--out)."""
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stdout,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from core.app.console import ConsoleCore
    from core.tablegames.views import FloorChange

    pit = args.console_worker
    config = floorconfig.load_floor(args.floor)
    tables = {t.id for t in config.tables_of_pit(pit)}
    engine = make_engine(args.url, pool_size=10)
    core = ConsoleCore(engine, config, load_paytables(), serve=(), name=f"console-{pit}",
                       paper=PAPER)
    local: dict[int, float] = {}  # hit id -> this console announced its own decision
    heard_remote: dict[int, float] = {}  # hit id -> first remote change naming its outcome
    changes: list[tuple[str, float, float]] = []  # remote: (origin, sent, heard)

    def hear(change: FloorChange) -> None:
        now = time.time()
        if not change.remote:
            for o in change.outcomes:
                local.setdefault(o.hit_id, now)
            return
        changes.append((change.origin, change.sent, now))
        for o in change.outcomes:
            heard_remote.setdefault(o.hit_id, now)

    core.add_listener(hear)

    class PitSupervisors(floor_scale.Supervisors):
        decided: dict[int, float]

        def decide(self, h: Any) -> None:
            if h.table not in tables:
                return
            before = self.paid + self.rejected
            super().decide(h)
            if self.paid + self.rejected > before:
                self.decided[h.hit_id] = time.time()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    core.start()
    # the supervisors start after GO on stdin
    sup = PitSupervisors(core, args.pin_seconds)
    sup.decided = {}
    print(f"CONSOLE READY {pit} {core.floor.ctx.origin}", flush=True)
    sys.stdin.readline()  # GO: both consoles listen before either decides
    cpu0, wall0 = proc_cpu(os.getpid()), time.time()
    sup.start()
    stop.wait()
    sup.stop_flag.set()
    sup.join(10)
    # both consoles are told to stop at once: each stops deciding, then listens 2 s more,
    # so that the other's last decisions are heard, not cut off by the stop
    time.sleep(2.0)
    cpu, wall = proc_cpu(os.getpid()) - cpu0, time.time() - wall0
    received = core.feed.received if core.feed is not None else 0
    core.stop()
    engine.dispose()
    # the decision's commit: when this console announced it (its listener, right after the
    # commit), else when pay/reject returned
    committed = {h: min(t, local.get(h, t)) for h, t in sup.decided.items()}
    Path(args.out).write_text(json.dumps({
        "pit": pit, "origin": core.floor.ctx.origin, "decided": committed,
        "heard_remote": heard_remote, "changes": changes, "notifications": received,
        "paid": sup.paid, "rejected": sup.rejected, "amount_changed": sup.changed_amounts,
        "multi_swipe": sup.multi_swipe,
        "errors": sup.errors[:5], "error_count": len(sup.errors), "cpu_s": cpu,
        "wall_s": wall}))
    return 0


# ------------------------------------------------------------------------------ one run

def wait_online(engine: Any, n: int, timeout: float) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        with engine.connect() as c:
            if int(c.execute(text("SELECT count(*) FROM tables WHERE online")).scalar() or 0) >= n:
                return time.monotonic() - t0
        time.sleep(0.25)
    return float("nan")


def run_once(n_services: int, args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"floorsvc{n_services}-"))
    floor_file = tmp / "floor.toml"
    pki = tmp / "pki"
    certs.init(pki, floor_sim.table_ids(args.tables), organization="Podium Floor Benchmark")
    pit_tables = write_pit_floor(floor_file, args.tables, args.base_port, pki)
    config = floorconfig.load_floor(floor_file)
    paytables = load_paytables()

    schema = f"bench_{secrets.token_hex(4)}"
    admin = create_engine(args.db)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    args.schema_made = schema  # dropped by main() should the run fail
    url = schema_url(args.db, schema)
    engine = make_engine(url)
    upgrade(engine)
    from core.app.demo import enroll_demo_employees

    enroll_demo_employees(engine)
    load_start = os.getloadavg()

    record_file = tmp / "record.json"
    sim = Child([sys.executable, str(ROOT / "benchmarks" / "floor_sim.py"), "--floor",
                 str(floor_file), "--speed", str(args.speed), "--seconds", str(args.seconds),
                 "--drain", str(args.drain), "--seed", str(args.seed),
                 "--jackpot-rate", str(args.jackpot_rate), "--record",
                 str(record_file), "--stagger", "--hold"], tmp / "sim.log", "SIM READY")
    services: list[tuple[str, Child, int]] = []
    consoles: list[Child] = []
    try:
        plan = [("svc-floor", None)] if n_services == 1 else [(f"svc-{p}", p) for p in PITS]
        for i, (name, pit) in enumerate(plan):
            port = args.health_port + i
            services.append((name, start_service(floor_file, url, name, pit, port,
                                                 tmp / f"{name}.log"), port))
        online_s = wait_online(engine, args.tables, 120)
        for pit in PITS:
            consoles.append(Child([sys.executable, str(Path(__file__).resolve()),
                                   "--console-worker", pit, "--url", url, "--floor",
                                   str(floor_file), "--out", str(tmp / f"console-{pit}.json"),
                                   "--pin-seconds", str(args.pin_seconds)],
                                  tmp / f"console-{pit}.log", "CONSOLE READY"))
        for c in consoles:
            assert c.proc.stdin is not None
            c.proc.stdin.write("GO\n")
            c.proc.stdin.flush()
        sim.proc.send_signal(signal.SIGUSR1)  # the tables deal from now: --seconds of play
        sim.proc.wait(args.seconds + args.drain + 120)
        time.sleep(1.0)  # the last notifications reach the consoles
    finally:
        for c in consoles:
            c.stop()
        svc_cpu = {}
        health = {}
        for name, svc, port in services:
            health[name] = get_health(port)
            if svc.proc.poll() is None:
                svc_cpu[name] = (proc_cpu(svc.proc.pid) - svc.cpu_at_ready,
                                 time.time() - svc.ready_at)
        rcs = {name: svc.stop() for name, svc, _port in services}
        if sim.proc.poll() is None:
            sim.stop()
    load_end = os.getloadavg()
    record = json.loads(record_file.read_text())
    workers = [json.loads((tmp / f"console-{p}.json").read_text()) for p in PITS]

    # -- the ledger --------------------------------------------------------------------------
    with Session(engine) as s:
        recorded = s.scalar(select(func.count()).select_from(EventRow)) or 0
        refused = s.scalar(select(func.count()).select_from(RefusedEvent)) or 0
        dup = s.execute(select(EventRow.table_id, EventRow.boot, EventRow.seq)
                        .group_by(EventRow.table_id, EventRow.boot, EventRow.seq)
                        .having(func.count() > 1)).all()
        in_ledger = {(t, b, q) for t, b, q in s.execute(
            select(EventRow.table_id, EventRow.boot, EventRow.seq))}
        awards = int(s.scalar(select(func.coalesce(func.sum(Award.amount_cents), 0))) or 0)
        first = s.scalar(select(func.min(EventRow.received_at)))
        last = s.scalar(select(func.max(EventRow.received_at)))
        award_of = {h: c for h, c in s.execute(select(Award.hit_id, Award.amount_cents))}
        hit_ref = {hid: (t, f"{b}:{q}") for hid, t, b, q in s.execute(
            select(Hit.id, EventRow.table_id, EventRow.boot, EventRow.seq)
            .join(EventRow, EventRow.id == Hit.event_id))}
        statuses = dict(s.execute(select(Hit.status, func.count()).group_by(Hit.status)).all())
        auto_paid = set(s.scalars(select(Hit.id).where(Hit.status == "auto_paid")))
    acked_ok = {(tid, tab["boot"], e["seq"]) for tid, tab in record["tables"].items()
                for e in tab["events"] if e["ack_result"] == "ok"}
    expected = floor_sim.expected_contributions(record, config, paytables)
    got = ledger_contributions(engine)
    drift = {k: (got.get(k, (0, 0))[0] - v[0], got.get(k, (0, 0))[1] - v[1])
             for k, v in expected.items() if got.get(k, (0, 0)) != v}
    # the same against every event the ledger holds, acknowledged or not (an event committed
    # whose ACK the table had not had when the simulator stopped counts there)
    # (such an event is in the ledger after every one the table had ACKed: it is replayed
    # last, in seq order)
    held = json.loads(json.dumps(record))
    for tid, tab in held["tables"].items():
        for e in tab["events"]:
            if e["ack_result"] is None and (tid, tab["boot"], e["seq"]) in in_ledger:
                e["ack_result"], e["acked_at"] = "ok", record["ended_at"]
    expected_held = floor_sim.expected_contributions(held, config, paytables)
    drift_held = {k: (got.get(k, (0, 0))[0] - v[0], got.get(k, (0, 0))[1] - v[1])
                  for k, v in expected_held.items() if got.get(k, (0, 0)) != v}
    unacked_in_ledger = sum(1 for tid, tab in record["tables"].items() for e in tab["events"]
                            if e["ack_result"] is None
                            and (tid, tab["boot"], e["seq"]) in in_ledger)
    from core.ledger.balance_checks import check_balances

    invariant = check_balances(engine)
    engine.dispose()

    # -- latencies ---------------------------------------------------------------------------
    warm_from = record["play_at"] + WARMUP_S
    ack_all = floor_sim.ack_latencies(record)
    ack_warm = [e["acked_at"] - e["sent_at"] for tab in record["tables"].values()
                for e in tab["events"] if e["acked_at"] is not None and e["sent_at"] >= warm_from]
    applied_at: dict[tuple[str, str], tuple[str, float]] = {}
    for tid, tab in record["tables"].items():
        for c in tab["commands"]:
            if c["applied"]:
                applied_at.setdefault((tid, c["hit_ref"]), (c["command"], c["at"]))
    to_table: list[float] = []
    to_table_pay: list[float] = []
    not_applied = withdrawn = after_end = 0
    not_applied_detail: list[str] = []
    for w in workers:
        for hid, t in w["decided"].items():
            ref = hit_ref.get(int(hid), ("", ""))
            got_cmd = applied_at.get(ref)
            if got_cmd is None:
                tab = record["tables"].get(ref[0], {})
                seq = int(ref[1].split(":")[1]) if ":" in ref[1] else -1
                ev = next((e for e in tab.get("events", []) if e["seq"] == seq), None)
                undone = ev is not None and any(
                    e["type"] == "Undone" and e["seq"] > seq
                    and e["payload"].get("what") == "HIT"
                    and e["payload"].get("round_no") == ev["payload"].get("round_no")
                    and e["payload"].get("seat") == ev["payload"].get("seat")
                    for e in tab.get("events", []))
                if undone:  # the table withdrew the claim as the console decided it
                    withdrawn += 1
                elif t >= record["ended_at"]:  # the tables had stopped (the end of the run)
                    after_end += 1
                else:
                    not_applied += 1
                    cmds = [c for c in tab.get("commands", []) if ev is not None
                            and c["round_no"] == ev["payload"].get("round_no")]
                    not_applied_detail.append(
                        f"hit #{hid} {ref} decided {record['ended_at'] - t:.1f} s before the "
                        f"simulator stopped (console {w['pit']}): commands at the "
                        f"table {cmds}; table at the end {tab.get('phase')}, "
                        f"{tab.get('open_hits')} open")
                continue
            to_table.append(got_cmd[1] - t)
            if got_cmd[0] == "PAY":
                to_table_pay.append(got_cmd[1] - t)
    # a hit the service pays itself when it records the claim: claim sent -> PAY applied
    sent_at = {(tid, f"{tab['boot']}:{e['seq']}"): e["sent_at"]
               for tid, tab in record["tables"].items() for e in tab["events"]}
    auto_pay: list[float] = []
    for hid in auto_paid:
        auto_ref = hit_ref.get(hid)
        if auto_ref is not None and auto_ref in applied_at and auto_ref in sent_at:
            auto_pay.append(applied_at[auto_ref][1] - sent_at[auto_ref])
    pays_applied = {k for k, (cmd, _at) in applied_at.items() if cmd == "PAY"}
    unpaid = [cents for hid, cents in award_of.items() if hit_ref.get(hid) not in pays_applied]
    origins = {w["origin"] for w in workers}
    c2c: list[float] = []
    c2c_unheard = 0
    svc2c: list[float] = []
    for w in workers:
        other = next(o for o in workers if o is not w)
        for hid, t in w["decided"].items():
            heard = other["heard_remote"].get(hid)
            if heard is None:
                c2c_unheard += 1
            else:
                c2c.append(heard - t)
        for origin, sent, heard in w["changes"]:
            if sent and not any(o in origin for o in origins):
                svc2c.append(heard - sent)
    span = (last - first).total_seconds() if first and last and last > first else 1.0
    problems = scan_logs(tmp)
    if args.keep_logs:
        logs = {"folder": str(tmp)}
    else:
        logs = {}
        shutil.rmtree(tmp, ignore_errors=True)
    if args.keep_logs:
        logs["schema"] = schema
    else:
        drop_schema(args.db, schema)
    return {
        "services": n_services, "tables": args.tables, "pits": {p: len(t) for p, t in
                                                                pit_tables.items()},
        "online_s": online_s, "events": recorded, "refused": refused,
        "events_per_s": recorded / span, "ack": ack_all, "ack_warm": ack_warm,
        "svc_cpu": svc_cpu, "health": health, "rcs": rcs,
        "to_table": to_table, "to_table_pay": to_table_pay, "auto_pay": auto_pay,
        "not_applied": not_applied, "withdrawn": withdrawn, "after_end": after_end,
        "not_applied_detail": not_applied_detail,
        "lost": floor_sim.lost(record), "reconnects": floor_sim.reconnects(record),
        "retransmitted": floor_sim.retransmitted(record), "duplicated": len(dup),
        "acked_not_in_ledger": len(acked_ok - in_ledger), "drift": drift,
        "drift_held": drift_held, "unacked_in_ledger": unacked_in_ledger,
        "unpaid": unpaid,
        "levels": len(expected), "paid_applied_cents": floor_sim.paid_cents(record),
        "awards_cents": awards, "statuses": statuses, "invariant": invariant,
        "c2c": c2c, "c2c_unheard": c2c_unheard, "svc2c": svc2c,
        "consoles": [{k: w[k] for k in ("pit", "paid", "rejected", "amount_changed",
                                        "multi_swipe", "error_count", "errors", "cpu_s", "wall_s",
                                        "notifications")} for w in workers],
        "sim_cpu": record["process"], "load": (load_start, load_end),
        "service_log_problems": problems, **logs,
    }


def scan_logs(folder: Path) -> list[str]:
    out = []
    for log in sorted(folder.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if re.search(r"ERROR|Traceback|CRITICAL", line):
                out.append(f"{log.name}: {line[:200]}")
    return out


def report(r: dict[str, Any]) -> None:
    la0, la1 = r["load"]
    print(f"\n== {r['tables']} tables (pit A {r['pits']['A']}, pit B {r['pits']['B']}), "
          f"{r['services']} podium serve, 2 client consoles, PostgreSQL ==")
    print(f"load average at start {la0[0]:.2f} {la0[1]:.2f} {la0[2]:.2f}, at end "
          f"{la1[0]:.2f} {la1[1]:.2f} {la1[2]:.2f}; every table online "
          f"{r['online_s']:.1f} s after the services started")
    print(f"events recorded {r['events']} ({r['events_per_s']:.1f}/s), refused {r['refused']}")
    print(f"event -> ACK:   {fmt(r['ack'], 'events')}")
    print(f"  after {WARMUP_S:.0f} s: {fmt(r['ack_warm'], 'events')}")
    for name, (cpu, wall) in r["svc_cpu"].items():
        w = r["health"].get(name, {}).get("writer", {})
        print(f"service {name}: CPU {cpu:.1f} s in {wall:.0f} s ({100 * cpu / wall:.0f}% of a "
              f"core); writer {w.get('batches', '?')} batches, {w.get('jobs', '?')} jobs, "
              f"largest {w.get('largest_batch', '?')}; served "
              f"{r['health'].get(name, {}).get('tables_served', '?')} tables; exit "
              f"{r['rcs'].get(name)}")
    never = (f"; {r['withdrawn']} withdrawn by the table (UNDO HIT) as they were decided"
             if r["withdrawn"] else "")
    never += f"; {r['not_applied']} decided but never applied" if r["not_applied"] else ""
    never += (f"; {r['after_end']} decided after the simulator stopped" if r["after_end"]
              else "")
    print(f"decided -> applied at the table (PAY/REJECT): {fmt(r['to_table'], 'hits')}{never}")
    for line in r["not_applied_detail"][:3]:
        print(f"  never applied: {line}")
    print(f"decided -> PAY applied at the table:          {fmt(r['to_table_pay'], 'pays')}")
    print(f"auto-paid by the service: claim sent -> PAY applied: {fmt(r['auto_pay'], 'pays')}")
    print(f"notify console -> other console: {fmt(r['c2c'], 'decisions heard')}, "
          f"{r['c2c_unheard']} not heard")
    print(f"notify service -> console (change.sent): {fmt(r['svc2c'], 'changes')}")
    for c in r["consoles"]:
        print(f"console {c['pit']}: paid {c['paid']}, rejected {c['rejected']}, amount moved "
              f"{c['amount_changed']} (must be 0), pays that needed more than one swipe "
              f"{c['multi_swipe']} (must be 0), errors {c['error_count']}, "
              f"{c['notifications']} notifications heard, CPU {c['cpu_s']:.1f} s "
              f"({100 * c['cpu_s'] / max(1e-9, c['wall_s']):.0f}%)"
              + (f"; first errors {c['errors']}" if c["errors"] else ""))
    print(f"reconnects {r['reconnects']}, events never acked {r['lost']}, retransmitted "
          f"{r['retransmitted']}, duplicated {r['duplicated']}, acked ok but not in the ledger "
          f"{r['acked_not_in_ledger']}")
    def drift_words(d: dict[tuple[str, str], tuple[int, int]]) -> str:
        if not d:
            return "0 on every level"
        worst = sorted(d.items(), key=lambda kv: -abs(kv[1][0]))[:3]
        return (f"{len(d)} level(s) off, e.g. " + "; ".join(
            f"{g}/{lv}: meter {m:+d} reserve {rr:+d} units" for (g, lv), (m, rr) in worst))

    print(f"meter drift ({r['levels']} levels) against the events the tables had ACKed ok: "
          f"{drift_words(r['drift'])}")
    print(f"  against every event the ledger holds ({r['unacked_in_ledger']} of them committed "
          f"but not ACKed when the simulator stopped): {drift_words(r['drift_held'])}")
    unpaid = r["unpaid"]
    print(f"hits by status {r['statuses']}; PAY applied by tables "
          f"{r['paid_applied_cents'] / 100:,.2f} vs ledger awards {r['awards_cents'] / 100:,.2f}"
          f" ({len(unpaid)} award(s), {sum(unpaid) / 100:,.2f}, whose PAY the table never "
          "applied)")
    sim_cpu = r["sim_cpu"]["cpu_user_s"] + r["sim_cpu"]["cpu_system_s"]
    print(f"invariant: {'ok' if not r['invariant'] else r['invariant']}; simulator CPU "
          f"{sim_cpu:.1f} s, loop lag max {r['sim_cpu']['loop_lag_max_s'] * 1000:.0f} ms")
    if r["service_log_problems"]:
        print(f"log lines with ERROR/Traceback ({len(r['service_log_problems'])}), first:")
        for line in r["service_log_problems"][:8]:
            print(f"  {line}")
    if r.get("folder"):
        print(f"logs kept in {r['folder']}, the ledger in schema {r['schema']} (drop it after)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--services", type=int, nargs="+", choices=(1, 2), default=[1, 2])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--drain", type=float, default=15.0)
    ap.add_argument("--speed", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jackpot-rate", type=float, default=0.0,
                    help="share of rounds dealt a stacked paying hand (floor_sim): more pays")
    ap.add_argument("--pin-seconds", type=float, default=1.0,
                    help="a meter pay's verification is open this long before the swipe")
    ap.add_argument("--base-port", type=int, default=21000)
    ap.add_argument("--health-port", type=int, default=28700)
    ap.add_argument("--db", default=DEFAULT_DB, help="PostgreSQL URL (a fresh schema per run)")
    ap.add_argument("--keep-logs", action="store_true",
                    help="keep the run's folder (service, console and simulator logs) and its "
                         "schema (the ledger)")
    # the console processes (internal)
    ap.add_argument("--console-worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--url", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--floor", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.console_worker:
        sys.exit(console_worker(args))
    for n in args.services:
        args.schema_made = None
        try:
            r = run_once(n, args)
        except BaseException:
            if args.schema_made and not args.keep_logs:
                drop_schema(args.db, args.schema_made)
            raise
        report(r)


if __name__ == "__main__":
    main()
