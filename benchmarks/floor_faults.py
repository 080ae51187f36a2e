"""Fault probes of a shared floor (issue 24): each fault of the issue made again, black box, and
counted.  One probe per run::

    PYTHONPATH=. .venv/bin/python benchmarks/floor_faults.py PROBE [--tables 12] [options]

Every probe plays simulated tables (``benchmarks/floor_sim.py``, a process of their own, every
frame recorded) against the real product through its public interfaces only: ``podium serve``
processes (their command line, ``/health``, the systemd notify socket, their log), or
``ConsoleCore`` in this process where the product is a console (SQLite), and the ledger's own
tables.  A supervisor thread (``floor_scale.Supervisors`` on a client console) pays or rejects
every hit, so that PAYs happen and no table waits for a decision.  At the end of each probe the
simulator's record is compared with the ledger:

- lost: events a table had ACKed "ok" that the ledger does not hold;
- duplicated: a (table, boot, seq) or a (table, boot, round) recorded more than once;
- wrong money: a PAY a table applied whose amount is not the ledger's award for that hit (or
  with no award), or a PAY applied twice;
- never ACKed: events still waiting in the tables when the simulator stopped.

The probes (a small table of figures each; nothing is asserted):

``stale``  A PostgreSQL cluster of the probe's own (``pg_createcluster``, port ``--pg-port``,
    dropped at the end) logging every statement with its transaction (csvlog).  An owner and a
    standby ``podium serve``; ``--cycles`` times: SIGSTOP the owner, end its lock session on the
    server (``pg_terminate_backend`` of its ``floor_services.db_pid``), wait until the standby
    serves every table, SIGCONT the stale one, let it run ``--awake`` seconds, and wait until it
    serves no table (a standby again; one that stopped on its own is started again as the
    standby).  Counted: START GAMEs and END GAMEs the ledger refused, hits flagged
    ROUND_NOT_STARTED, and the stale service's committed writes to table data (anything but
    its claims, heartbeat and ownership records: ``floor_services``, ``table_owners``,
    ``ownership_events``, ``ledger_locks``, and the chain's ``ledger_journal`` and
    ``ledger_chain``) from the moment its lock session ended to the end of its cycle, with the
    ``tables`` updates (online flips) and ``controller_events`` inserts among them, and its
    statements that failed.  Recovery: lock session ended -> every table online under the standby.
``frozen`` The owner SIGSTOPped for ``--freeze`` seconds, its lock session left alone.  Per
    table: the standby's take-over (the ledger names it the owner and the table online) and
    the table served again (the first ACK of an event it sent after the stop), both from the
    SIGSTOP; table-seconds unserved, and of those the ledger said ONLINE (polled every 0.25 s).
``heldconn`` One ``podium serve`` whose every database connection passes a TCP proxy of the
    probe's; the proxy stops passing bytes for ``--hold`` seconds (the connections stay open).
    The service runs with ``--health``, ``NOTIFY_SOCKET`` (a datagram socket the probe reads)
    and ``WATCHDOG_USEC``.  Counted during the hold: ``/health`` answers (healthy, unhealthy,
    none within 2 s) and the time to the first that is not healthy, ``WATCHDOG=1`` pings and
    the longest gap between them against the watchdog period, the health lines of the log
    (``--health-every 5``), events ACKed; after it: time to the first ACK, lost events.
``fulldisk`` An SQLite ledger on a small tmpfs (mounted here; root) under ``ConsoleCore``
    serving the tables; after ``--before`` seconds of play the filesystem is filled for
    ``--full`` seconds, then the filler is removed.  Counted during the fault: controller
    reconnects, tracebacks in the log (by logger), Activity messages (and the most common
    ones), whether any message or log line names a full disk; after it: time to the first ACK,
    lost events.
``tls``    The controller links through a TCP proxy that damages ``--damage`` of the chunks it
    relays (raw bytes, not frames: half flip a byte, half are dropped), both ways: once plain
    TCP, once mutual TLS, ``--seconds`` each, ``ConsoleCore`` on SQLite serving the tables.
    Counted from its link-status listener: OFFLINE intervals, table-seconds OFFLINE, the
    longest interval; the link messages by kind.
``printer`` A file printer whose folder is a tmpfs with 4,096 bytes left; a win slip printed
    by ``ConsoleCore``, the printer's job padded to ``--job-bytes`` with line feeds (a 1 KB slip
    fits in one page and is written whole or not at all): the bytes the ledger was told were
    sent against the bytes in the file; then space is freed and the slip printed again: the
    marking the ledger gives it and whether the paper says DUPLICATE.

Run a probe at a time (each takes a few minutes on 2 cores; the mounts and the cluster need
root; docs/operator.md, "Fault probes").  A probe that finds the product improved (a stale
service that stops on its own, a standby that takes a frozen owner's tables, health that turns
unhealthy) reports it in the same figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import logging
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _p in (str(ROOT), str(ROOT / "benchmarks")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import floor_scale  # noqa: E402
import floor_sim  # noqa: E402
from sqlalchemy import Engine, text  # noqa: E402

from core import floorconfig  # noqa: E402
from core.app.console import ConsoleCore  # noqa: E402
from core.app.demo import enroll_demo_employees  # noqa: E402
from core.controllers import certs  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402
from printing.escpos.printers import FilePrinter  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402

PG_VERSION = "15"
#: writes a service makes for itself, not for a table (its claims, heartbeat, ownership
#: records), and the chain's bookkeeping that any chained write brings along
SERVICE_TABLES = frozenset({"floor_services", "table_owners", "ownership_events", "ledger_locks",
                            "ledger_journal", "ledger_chain"})


# ------------------------------------------------------------------------------ small helpers

def wait_for(cond: Callable[[], Any], timeout: float, step: float = 0.1) -> Any:
    """Poll ``cond`` until it returns something true (returned) or ``timeout`` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        if time.monotonic() >= deadline:
            return None
        time.sleep(step)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def secs(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"p50 {pct(values, 0.5):.2f} s, max {max(values):.2f} s (n={len(values)})"


def table(title: str, rows: list[tuple[str, Any]]) -> None:
    print(f"== {title} (load {os.getloadavg()[0]:.2f}) ==")
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    print(flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def tmpfs(size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (mount -o size=), unmounted at the end."""
    where = Path(tempfile.mkdtemp(prefix="faults-tmpfs-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                   check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        with contextlib.suppress(OSError):
            where.rmdir()


def fill(folder: Path, leave: int = 0) -> Path:
    """Fill the filesystem of ``folder`` with one file, then give ``leave`` bytes back."""
    filler = folder / "filler.bin"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for size in (1 << 20, 4096):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    if leave:
        os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


# ------------------------------------------------------------------------------ PostgreSQL

class Cluster:
    """A PostgreSQL cluster of the probe's own on ``port`` (trust on 127.0.0.1), logging every
    statement with its transaction id to csvlog when ``log_statements``; dropped by
    :meth:`drop`."""

    def __init__(self, port: int, *, log_statements: bool = False) -> None:
        self.name = f"faults{port}"
        self.port = port
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        subprocess.run(["pg_dropcluster", "--stop", PG_VERSION, self.name],
                       capture_output=True, check=False)  # a cluster a killed probe left
        subprocess.run(["pg_createcluster", PG_VERSION, self.name, "-p", str(port)],
                       capture_output=True, check=True)
        etc = Path(f"/etc/postgresql/{PG_VERSION}/{self.name}")
        (etc / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
        # the probes never crash the server: its durability would only cost time here
        conf = ["listen_addresses = '127.0.0.1'", "max_connections = 200",
                "fsync = off", "synchronous_commit = off"]
        if log_statements:
            conf += ["logging_collector = on", "log_destination = 'csvlog'",
                     "log_min_duration_statement = 0", "log_rotation_size = 0",
                     "log_timezone = 'UTC'"]
        (etc / "conf.d" / "faults.conf").write_text("\n".join(conf) + "\n")
        self.data = Path(f"/var/lib/postgresql/{PG_VERSION}/{self.name}")
        subprocess.run(["pg_ctlcluster", PG_VERSION, self.name, "start"], check=True)

    def csv_logs(self) -> list[Path]:
        return sorted((self.data / "log").glob("*.csv"))

    def drop(self) -> None:
        subprocess.run(["pg_dropcluster", "--stop", PG_VERSION, self.name],
                       capture_output=True, check=False)


_DML = re.compile(r"^duration: [\d.]+ ms\s+(?:statement|execute [^:]*): \s*"
                  r"(?:INSERT INTO|UPDATE|DELETE FROM)\s+\"?(\w+)\"?", re.S)


@dataclass(frozen=True)
class Logged:
    """A statement the cluster logged: a completed INSERT / UPDATE / DELETE (``table`` its
    target, ``xid`` its transaction) or an ERROR (``table`` empty)."""

    at: float
    app: str
    xid: int
    table: str
    error: str = ""


def logged(cluster: Cluster) -> list[Logged]:
    """The writes and errors the cluster logged (csvlog, PostgreSQL 15's columns: 0 time,
    10 transaction id, 11 severity, 13 message, 22 application name)."""
    out: list[Logged] = []
    for path in cluster.csv_logs():
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            for row in csv.reader(f):
                if len(row) < 23:
                    continue
                at = datetime.strptime(row[0].rsplit(" ", 1)[0], "%Y-%m-%d %H:%M:%S.%f")
                when = at.replace(tzinfo=UTC).timestamp()
                if row[11] == "ERROR":
                    out.append(Logged(when, row[22], 0, "", row[13]))
                    continue
                m = _DML.match(row[13])
                if m is not None and row[10].isdigit() and row[10] != "0":
                    out.append(Logged(when, row[22], int(row[10]), m.group(1)))
    return out


def committed(engine: Engine, xids: set[int]) -> set[int]:
    """The transactions of ``xids`` that committed (a fresh cluster: epoch 0)."""
    done: set[int] = set()
    with engine.connect() as c:
        for x in xids:
            status = c.execute(text("SELECT pg_xact_status(CAST(:x AS xid8))"),
                               {"x": str(x)}).scalar()
            if status == "committed":
                done.add(x)
    return done


# ------------------------------------------------------------------------------ the processes

class Sim:
    """``floor_sim.py`` on a floor file, playing until :meth:`stop` (or ``seconds``)."""

    def __init__(self, floor_file: Path, tmp: Path, *, seconds: float = 100_000,
                 drain: float = 5, speed: float = 10.0) -> None:
        self.record_file = tmp / "record.json"
        self.log = open(tmp / "sim.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "benchmarks" / "floor_sim.py"), "--floor",
             str(floor_file), "--speed", str(speed), "--seconds", str(seconds), "--drain",
             str(drain), "--seed", "1", "--record", str(self.record_file), "--stagger"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        assert self.proc.stdout is not None
        if not self.proc.stdout.readline().startswith("SIM READY"):
            raise SystemExit(f"the simulator did not start (see {tmp / 'sim.log'})")

    def stop(self, timeout: float = 120) -> dict[str, Any]:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout)
        self.log.close()
        return dict(json.loads(self.record_file.read_text()))


class Service:
    """A ``podium serve`` process (its log lines kept with the time each was read)."""

    def __init__(self, floor_file: Path, url: str, name: str, tmp: Path, *,
                 health: int | None = None, env: dict[str, str] | None = None,
                 extra: list[str] | None = None) -> None:
        self.name = name
        self.health_port = health
        cmd = [sys.executable, "-m", "core.cli.dispatch", "serve", "--floor", str(floor_file),
               "--db", url, "--name", name, "--log-format", "plain", "--log-level", "INFO"]
        if health is not None:
            cmd += ["--health", f"127.0.0.1:{health}"]
        self.proc = subprocess.Popen(
            cmd + (extra or []), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env={**os.environ, "PYTHONPATH": str(ROOT), "PGAPPNAME": f"probe {name}",
                            **(env or {})})
        self.lines: list[tuple[float, str]] = []
        self.log = tmp / f"{name}.log"
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"podium serve {name} did not start:\n"
                                 + "".join(t for _, t in self.lines[-20:]))
            self.lines.append((time.time(), line))
            if line.startswith("READY"):
                break
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        with self.log.open("a") as out:
            for line in self.proc.stdout:
                self.lines.append((time.time(), line))
                out.write(line)
                out.flush()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def health(self, timeout: float = 2.0) -> tuple[str, dict[str, Any]]:
        """("healthy" | "unhealthy" | "no answer", the document)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.health_port}/health",
                                        timeout=timeout) as r:
                return "healthy", dict(json.loads(r.read()))
        except urllib.error.HTTPError as exc:
            return "unhealthy", dict(json.loads(exc.read() or b"{}"))
        except (OSError, ValueError) as exc:
            return "no answer", {"error": str(exc)}

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class Deciders:
    """A client console (``ConsoleCore(serve=())``, PostgreSQL) or the serving console itself
    (SQLite), with floor_scale's supervisors paying or rejecting every pending hit."""

    def __init__(self, console: ConsoleCore) -> None:
        self.console = console
        self.sup = floor_scale.Supervisors(console, pin_seconds=0.2)

    def start(self) -> None:
        self.sup.start()

    def stop(self) -> None:
        self.sup.stop_flag.set()
        self.sup.join(30)


# ------------------------------------------------------------------------------ the comparison

def ledger_figures(engine: Engine, record: dict[str, Any]) -> dict[str, Any]:
    """The simulator's record against the ledger (both databases)."""
    with engine.connect() as c:
        rows = list(c.execute(text("SELECT table_id, boot, seq FROM controller_events")))
        rounds_twice = int(c.execute(text(
            "SELECT count(*) FROM (SELECT 1 FROM rounds GROUP BY table_id, boot, round_no "
            "HAVING count(*) > 1) AS x")).scalar() or 0)
        refused = list(c.execute(text("SELECT type, reason FROM refused_events")))
        flags = [str(f) for (f,) in c.execute(text("SELECT flag_codes FROM hits"))]
        awards = {(str(t), f"{b}:{q}"): int(cents) for cents, t, b, q in c.execute(text(
            "SELECT a.amount_cents, e.table_id, e.boot, e.seq FROM awards a "
            "JOIN hits h ON h.id = a.hit_id JOIN controller_events e ON e.id = h.event_id"))}
    recorded = Counter((str(t), str(b), int(q)) for t, b, q in rows)
    acked = {(tid, tab["boot"], ev["seq"]) for tid, tab in record["tables"].items()
             for ev in tab["events"] if ev.get("ack_result") == "ok"}
    applied = [(tid, c["hit_ref"], int(c["amount_cents"]))
               for tid, tab in record["tables"].items() for c in tab["commands"]
               if c["command"] == "PAY" and c["applied"]]
    wrong = sum(1 for t, ref, cents in applied if awards.get((t, ref)) != cents)
    twice = sum(n - 1 for n in Counter((t, ref) for t, ref, _ in applied).values() if n > 1)
    start_refused = [r for r in refused if r[0] == "GameStarted"]
    return {
        "events": sum(len(t["events"]) for t in record["tables"].values()),
        "lost": len(acked - set(recorded)),
        "duplicated": sum(n - 1 for n in recorded.values() if n > 1) + rounds_twice,
        "pays": len(applied), "wrong_money": wrong + twice,
        "never_acked": floor_sim.lost(record),
        "refused": len(refused),
        "start_refused": len(start_refused),
        "start_refused_offline": sum(1 for r in start_refused if "OFFLINE" in str(r[1])),
        "end_refused": sum(1 for r in refused if r[0] == "GameEnded"),
        "refused_reasons": Counter(re.sub(r"\b[A-Z]\d+\b|\d+", "#", str(r[1]))[:90]
                                   for r in refused).most_common(3),
        "round_not_started": sum(1 for f in flags if "ROUND_NOT_STARTED" in f),
    }


def outcome_rows(f: dict[str, Any]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [
        ("events the tables sent", f["events"]),
        ("lost (ACKed ok, not in the ledger)", f["lost"]),
        ("duplicated", f["duplicated"]),
        ("PAYs applied / with a wrong amount or twice", f"{f['pays']} / {f['wrong_money']}"),
        ("never ACKed when the tables stopped", f["never_acked"]),
        ("refused by the ledger (all)", f["refused"]),
    ]
    rows += [(f"  refused: {why}", n) for why, n in f["refused_reasons"]]
    return rows


def acks_after(record: dict[str, Any], since: float) -> dict[str, float]:
    """Per table: the first ACK of an event first sent at or after ``since`` (time.time())."""
    out: dict[str, float] = {}
    for tid, tab in record["tables"].items():
        times = [e["acked_at"] for e in tab["events"]
                 if e["acked_at"] is not None and e["sent_at"] >= since]
        if times:
            out[tid] = min(times)
    return out


# ------------------------------------------------------------------------------ a PG floor

class PgFloor:
    """Simulated tables with TLS, a migrated ledger on ``url`` and a client console deciding
    every hit; services are started by the probe."""

    def __init__(self, args: argparse.Namespace, url: str, tag: str) -> None:
        self.args = args
        self.url = url
        self.tmp = Path(tempfile.mkdtemp(prefix=f"faults-{tag}-"))
        pki = self.tmp / "pki"
        certs.init(pki, floor_sim.table_ids(args.tables), organization="Podium Fault Probe")
        self.floor_file = self.tmp / "floor.toml"
        floor_sim.write_floor(self.floor_file, args.tables, args.base_port, certs=pki)
        self.config = floorconfig.load_floor(self.floor_file)
        self.engine = make_engine(url)
        upgrade(self.engine)
        enroll_demo_employees(self.engine)
        self.sim = Sim(self.floor_file, self.tmp)
        self.client = ConsoleCore(make_engine(url, pool_size=4), self.config, load_paytables(),
                                  serve=(), name="probe-console", paper=PAPER)
        self.client.start()
        self.deciders = Deciders(self.client)
        self.deciders.start()
        self.services: list[Service] = []

    def serve(self, name: str, **kw: Any) -> Service:
        svc = Service(self.floor_file, kw.pop("url", self.url), name, self.tmp, **kw)
        self.services.append(svc)
        return svc

    def owners(self) -> dict[str, tuple[str, bool]]:
        """table -> (its owner's name, online)."""
        with self.engine.connect() as c:
            return {str(t): (str(n or ""), bool(on)) for t, n, on in c.execute(text(
                "SELECT t.id, s.name, t.online FROM tables t "
                "LEFT JOIN table_owners o ON o.table_id = t.id "
                "LEFT JOIN floor_services s ON s.id = o.service_id"))}

    def served_by(self, name: str) -> set[str]:
        return {t for t, (n, on) in self.owners().items() if n == name and on}

    def lock_session(self, name: str) -> int | None:
        with self.engine.connect() as c:
            pid = c.execute(text(
                "SELECT db_pid FROM floor_services WHERE name = :n AND stopped_at IS NULL "
                "ORDER BY id DESC LIMIT 1"), {"n": name}).scalar()
        return int(pid) if pid is not None else None

    def finish(self) -> dict[str, Any]:
        """Stop the tables (the record), the deciders, the services; compare."""
        record = self.sim.stop()
        self.deciders.stop()
        self.client.stop()
        self.client.engine.dispose()
        for svc in self.services:
            svc.stop()
        figures = ledger_figures(self.engine, record)
        figures["record"] = record
        return figures

    def close(self) -> None:
        if self.sim.proc.poll() is None:
            self.sim.proc.kill()
        for svc in self.services:
            svc.stop()
        self.engine.dispose()


@contextlib.contextmanager
def pg_probe(args: argparse.Namespace, tag: str, *, log_statements: bool = False
             ) -> Iterator[tuple[Cluster, PgFloor]]:
    """A cluster of the probe's own with a :class:`PgFloor` on it; both gone at the end
    (unless ``--keep``)."""
    cluster = Cluster(args.pg_port, log_statements=log_statements)
    floor: PgFloor | None = None
    try:
        floor = PgFloor(args, cluster.url, tag)
        yield cluster, floor
    finally:
        if floor is not None:
            floor.close()
        if not args.keep:
            cluster.drop()
            if floor is not None:
                shutil.rmtree(floor.tmp, ignore_errors=True)


def everything_served(floor: PgFloor, name: str, timeout: float) -> float | None:
    """Seconds until every table is online under ``name``; None after ``timeout``."""
    t0 = time.monotonic()
    if wait_for(lambda: len(floor.served_by(name)) == floor.args.tables, timeout, 0.05):
        return time.monotonic() - t0
    return None


def probe_stale(args: argparse.Namespace) -> None:
    with pg_probe(args, "stale", log_statements=True) as (cluster, floor):
        owner, standby = "svc-1", "svc-2"
        svcs = {owner: floor.serve(owner, health=free_port())}
        if everything_served(floor, owner, 120) is None:
            raise SystemExit(f"{owner} did not bring every table online")
        svcs[standby] = floor.serve(standby, health=free_port())
        time.sleep(args.settle)
        windows: list[tuple[str, float, float]] = []  # the stale service, lock ended, cycle end
        recovery: list[float] = []
        left_out = restarted = kept_tables = 0
        for _ in range(args.cycles):
            everything_served(floor, owner, 60)
            stale = svcs[owner]
            pid = floor.lock_session(owner)
            os.kill(stale.pid, signal.SIGSTOP)
            with floor.engine.begin() as c:
                c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
            ended = time.time()
            took = everything_served(floor, standby, 60)
            if took is None:
                left_out += args.tables - len(floor.served_by(standby))
            else:
                recovery.append(time.time() - ended)
            os.kill(stale.pid, signal.SIGCONT)
            time.sleep(args.awake)

            def standby_again(stale: Service = stale) -> str | None:
                if stale.proc.poll() is not None:
                    return "stopped"
                state, doc = stale.health()
                return "standby" if doc.get("tables_served") == 0 else None

            got = wait_for(standby_again, 30, 0.2)
            if got == "stopped":  # it stopped on its own: it stands by again, started anew
                restarted += 1
                svcs[owner] = floor.serve(owner, health=free_port())
            elif got is None:
                kept_tables += 1
            windows.append((owner, ended, time.time()))
            owner, standby = standby, owner
            time.sleep(args.settle)
        f = floor.finish()
        by_stale = [w for w in logged(cluster)
                    if any(n in w.app and a <= w.at <= b for n, a, b in windows)]
        writes = [w for w in by_stale if w.table and w.table not in SERVICE_TABLES]
        errors = [w.error for w in by_stale if w.error]
        done = committed(floor.engine, {w.xid for w in writes})
        kept = [w for w in writes if w.xid in done]
    by_table = Counter(w.table for w in kept)
    table(f"stale: {args.tables} tables, {args.cycles} cycles (SIGSTOP the owner, end its lock "
          f"session, SIGCONT it after the take-over, {args.awake:g} s awake)", [
        ("cycles the standby took every table within 60 s", f"{len(recovery)} of {args.cycles}"),
        ("lock session ended -> every table online under the standby", secs(recovery)),
        ("tables not online under the standby after 60 s (summed over cycles)", left_out),
        ("stale service stopped on its own (started again as standby)", restarted),
        ("stale service still serving tables 30 s after SIGCONT", kept_tables),
        ("START GAMEs refused (of them OFFLINE)",
         f"{f['start_refused']} ({f['start_refused_offline']})"),
        ("END GAMEs refused", f["end_refused"]),
        ("hits flagged ROUND_NOT_STARTED", f["round_not_started"]),
        ("stale service's table writes committed after its lock ended: statements "
         "(transactions)", f"{len(kept)} ({len({w.xid for w in kept})})"),
        ("  of them UPDATE tables (online flips)", by_table.get("tables", 0)),
        ("  of them INSERT controller_events", by_table.get("controller_events", 0)),
        ("  by table", ", ".join(f"{t} {n}" for t, n in by_table.most_common()) or "-"),
        ("stale service's table writes not committed (rolled back)", len(writes) - len(kept)),
        ("stale service's statements that failed (ERROR)", len(errors)),
        ("  most common", kinds(errors, 2)),
        *outcome_rows(f)])


# ------------------------------------------------------------------------------ frozen

def probe_frozen(args: argparse.Namespace) -> None:
    with pg_probe(args, "frozen") as (_cluster, floor):
        owner, standby = "svc-1", "svc-2"
        svc = floor.serve(owner, health=free_port())
        if everything_served(floor, owner, 120) is None:
            raise SystemExit(f"{owner} did not bring every table online")
        floor.serve(standby, health=free_port())
        time.sleep(args.settle)
        polls: list[tuple[float, dict[str, tuple[str, bool]]]] = []
        os.kill(svc.pid, signal.SIGSTOP)
        stopped = time.time()
        until = stopped + args.freeze + args.after
        while time.time() < until:
            if svc.proc.poll() is None and time.time() >= stopped + args.freeze:
                os.kill(svc.pid, signal.SIGCONT)
            polls.append((time.time(), floor.owners()))
            time.sleep(0.25)
        os.kill(svc.pid, signal.SIGCONT)
        end = time.time()
        f = floor.finish()
    tables = floor_sim.table_ids(args.tables)
    takeover: dict[str, float] = {}
    for at, owners in polls:
        for t, (name, online) in owners.items():
            if name == standby and online:
                takeover.setdefault(t, at - stopped)
    served_at = acks_after(f["record"], stopped)
    served = {t: served_at.get(t, end) - stopped for t in tables}
    said_online = 0.0
    for (at, owners), (nxt, _) in zip(polls, polls[1:], strict=False):
        for t in tables:
            limit = stopped + served[t]
            if at < limit and owners.get(t, ("", False))[1]:
                said_online += min(nxt, limit) - at
    table(f"frozen: {args.tables} tables, the owner SIGSTOPped {args.freeze:g} s (lock session "
          f"left alone), a standby running", [
        ("tables the standby took during the freeze",
         f"{sum(1 for v in takeover.values() if v <= args.freeze)} of {args.tables}"),
        ("SIGSTOP -> standby owns the table, ONLINE", secs(list(takeover.values()))),
        ("SIGSTOP -> table served again (first ACK of a new event)", secs(list(served.values()))),
        ("table-seconds unserved", f"{sum(served.values()):.1f}"),
        ("  of them the ledger said ONLINE", f"{said_online:.1f}"),
        *outcome_rows(f)])


# ------------------------------------------------------------------------------ heldconn

class _Relay:
    """A loopback TCP relay on its own thread and asyncio loop: ``targets`` maps a port to
    listen on (0: a free one) to the port its connections go to; :attr:`ports` says, per
    target, where the relay listens.  ``chunk`` may change or drop each chunk read (either
    way); :meth:`hold` stops passing bytes, the connections left open."""

    def __init__(self, targets: dict[int, int], chunk: Callable[[bytes], bytes | None] | None
                 = None) -> None:
        self.targets = targets  # listening port -> target port (0: any free port, one target)
        self.chunk = chunk or (lambda b: b)
        self.loop = asyncio.new_event_loop()
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.ports: dict[int, int] = {}  # target port -> the port listened on
        self._servers: list[asyncio.Server] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                        name="probe-relay")
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)

    async def _start(self) -> None:
        for listen, target in self.targets.items():
            async def client(r: asyncio.StreamReader, w: asyncio.StreamWriter,
                             target: int = target) -> None:
                await self._client(r, w, target)
            server = await asyncio.start_server(client, "127.0.0.1", listen)
            self.ports[target] = int(server.sockets[0].getsockname()[1])
            self._servers.append(server)

    async def _client(self, c_r: asyncio.StreamReader, c_w: asyncio.StreamWriter,
                      target: int) -> None:
        try:
            u_r, u_w = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            c_w.transport.abort()
            return
        self._writers |= {c_w, u_w}
        pipes = [asyncio.ensure_future(self._pipe(c_r, u_w)),
                 asyncio.ensure_future(self._pipe(u_r, c_w))]
        await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        for p in pipes:
            p.cancel()
        for w in (c_w, u_w):
            w.transport.abort()
            self._writers.discard(w)

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        while True:
            await self.flowing.wait()
            try:
                data = await r.read(65536)
            except OSError:
                return
            if not data:
                return
            await self.flowing.wait()
            out = self.chunk(data)
            if out:
                w.write(out)
                try:
                    await w.drain()
                except OSError:
                    return

    def hold(self, held: bool) -> None:
        self.loop.call_soon_threadsafe(self.flowing.clear if held else self.flowing.set)

    def close(self) -> None:
        async def stop() -> None:
            for s in self._servers:
                s.close()
            for w in list(self._writers):
                w.transport.abort()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)


class NotifySocket:
    """A systemd notify socket: every datagram kept with its arrival time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.got: list[tuple[float, str]] = []
        threading.Thread(target=self._read, daemon=True, name="probe-notify").start()

    def _read(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                self.got.append((time.time(), self.sock.recv(4096).decode(errors="replace")))


def probe_heldconn(args: argparse.Namespace) -> None:
    with pg_probe(args, "heldconn") as (_cluster, floor):
        relay = _Relay({0: args.pg_port})
        notify = NotifySocket(floor.tmp / "notify.sock")
        url = f"postgresql+psycopg://postgres@127.0.0.1:{relay.ports[args.pg_port]}/postgres"
        try:
            svc = floor.serve("svc-held", url=url, health=free_port(),
                              env={"NOTIFY_SOCKET": str(notify.path),
                                   "WATCHDOG_USEC": str(int(args.watchdog * 1e6))},
                              extra=["--health-every", "5"])
            if everything_served(floor, "svc-held", 120) is None:
                raise SystemExit("the service did not bring every table online")
            time.sleep(args.settle)
            answers: list[tuple[float, str]] = []
            held = time.time()
            relay.hold(True)
            while time.time() < held + args.hold:
                answers.append((time.time(), svc.health()[0]))
                time.sleep(0.5)
            relay.hold(False)
            released = time.time()
            time.sleep(args.after)
            f = floor.finish()
        finally:
            relay.close()
    during = [s for _, s in answers]
    first_bad = next((t - held for t, s in answers if s != "healthy"), None)
    pings = [t for t, m in notify.got if "WATCHDOG=1" in m]
    around = [held] + [t for t in pings if held < t < released] + [released]
    gaps = [b - a for a, b in zip(around, around[1:], strict=False)]
    lines = [ln for t, ln in svc.lines if held <= t <= released and "health:" in ln]
    statuses = [m for t, m in notify.got if held <= t <= released and "STATUS=" in m]
    record = f["record"]
    acked_held = sum(1 for tab in record["tables"].values() for e in tab["events"]
                     if e["acked_at"] is not None and held + 1 <= e["acked_at"] <= released)
    after = [t - released for t in acks_after(record, released).values()]
    table(f"heldconn: {args.tables} tables, the service's database connections pass no byte for "
          f"{args.hold:g} s (WATCHDOG_USEC {args.watchdog:g} s)", [
        ("/health answers during the hold: healthy / unhealthy / none in 2 s",
         f"{during.count('healthy')} / {during.count('unhealthy')} / "
         f"{during.count('no answer')}"),
        ("hold -> first /health that is not healthy",
         "never" if first_bad is None else f"{first_bad:.1f} s"),
        ("WATCHDOG=1 pings during the hold", len([t for t in pings if held < t < released])),
        ("longest time without a ping in the hold (systemd kills at WATCHDOG_USEC)",
         f"{max(gaps):.1f} s: " + ("would be killed" if max(gaps) > args.watchdog
                                   else "fed, not killed")),
        ("STATUS= notes during the hold: with a PROBLEM / all",
         f"{sum(1 for m in statuses if 'PROBLEM' in m)} / {len(statuses)}"),
        ("health log lines during the hold: healthy / PROBLEM",
         f"{sum(1 for ln in lines if 'PROBLEM' not in ln and 'ERROR' not in ln)} / "
         f"{sum(1 for ln in lines if 'PROBLEM' in ln or 'ERROR' in ln)}"),
        ("events ACKed during the hold", acked_held),
        ("release -> first ACK of a new event, per table", secs(after)),
        *outcome_rows(f)])


# ------------------------------------------------------------------------------ in-process

class Watch:
    """A ConsoleCore's messages, link status changes and this process's warning log records,
    each with its time."""

    def __init__(self, console: ConsoleCore) -> None:
        self.console = console
        self.messages: list[tuple[float, str]] = []
        self.links: list[tuple[float, str, bool]] = []
        self.records: list[tuple[float, logging.LogRecord]] = []
        console.add_message_listener(lambda m: self.messages.append((time.time(), m)))
        console.add_status_listener(self._status)
        watch = self

        class Keep(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                watch.records.append((time.time(), record))

        self.handler = Keep(logging.WARNING)
        logging.getLogger().addHandler(self.handler)

    def _status(self, tid: str) -> None:
        up = self.console.link_status().get(tid, (False, ""))[0]
        self.links.append((time.time(), tid, up))

    def close(self) -> None:
        logging.getLogger().removeHandler(self.handler)

    def offline(self, since: float, until: float) -> list[float]:
        """The OFFLINE intervals (seconds) that began in [since, until) (cut at ``until``)."""
        down: dict[str, float] = {}
        out: list[float] = []
        for at, tid, up in self.links:
            if at >= until:
                break
            if not up and tid not in down and at >= since:
                down[tid] = at
            elif up and tid in down:
                out.append(at - down.pop(tid))
        return out + [until - at for at in down.values()]


def kinds(texts: list[str], most: int = 4) -> str:
    shapes = Counter(re.sub(r"\b[A-Z]\d{2,}\b|\d[\d,.]*", "#",
                            re.sub(r"\b[0-9a-f]{6,}\b", "#", t))[:110] for t in texts)
    return "; ".join(f"{n} x \"{s}\"" for s, n in shapes.most_common(most)) or "-"


def all_online(console: ConsoleCore, n: int) -> bool:
    return sum(1 for up, _ in console.link_status().values() if up) == n


def probe_fulldisk(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="faults-fulldisk-"))
    with tmpfs(args.tmpfs) as disk:
        floor_file = tmp / "floor.toml"
        floor_sim.write_floor(floor_file, args.tables, args.base_port, certs=None)
        config = floorconfig.load_floor(floor_file)
        engine = make_engine(f"sqlite:///{disk / 'ledger.sqlite3'}")
        upgrade(engine)
        enroll_demo_employees(engine)
        play = args.before + args.full + args.after
        sim = Sim(floor_file, tmp, seconds=play + 10, drain=15)
        console = ConsoleCore(engine, config, load_paytables(), paper=PAPER)
        watch = Watch(console)
        deciders = Deciders(console)
        try:
            console.start()
            deciders.start()
            wait_for(lambda: all_online(console, args.tables), 60)
            time.sleep(args.before)
            full = time.time()
            filler = fill(disk)
            time.sleep(args.full)
            filler.unlink()
            freed = time.time()
            sim.proc.wait(play + 10 + 15 + 120)
            record = sim.stop()
        finally:
            deciders.stop()
            console.stop()
            watch.close()
        f = ledger_figures(engine, record)
        engine.dispose()
    shutil.rmtree(tmp, ignore_errors=True)
    window = (full, freed + 1)
    reconnects = sum(1 for tab in record["tables"].values() for t in tab["connected_at"]
                     if window[0] <= t <= window[1])
    tracebacks = Counter(r.name for t, r in watch.records
                         if window[0] <= t <= window[1] and r.exc_info)
    said = [m for t, m in watch.messages if window[0] <= t <= window[1]]
    logged = [r.getMessage() for t, r in watch.records if window[0] <= t <= window[1]]
    disk_full = re.compile(r"disk\b.*\bfull|no space left", re.I)
    named = [m for m in said + logged if disk_full.search(m)]
    after = [t - freed for t in acks_after(record, freed).values()]
    table(f"fulldisk: {args.tables} tables, SQLite ledger on a {args.tmpfs} tmpfs filled for "
          f"{args.full:g} s", [
        ("controller reconnects during the fault", reconnects),
        ("OFFLINE intervals during the fault", len(watch.offline(*window))),
        ("tracebacks in the log (by logger)",
         f"{sum(tracebacks.values())} ({', '.join(f'{k} {n}' for k, n in tracebacks.items())})"),
        ("Activity messages during the fault", len(said)),
        ("  most common", kinds(said)),
        ("warning/error log lines during the fault", len(logged)),
        ("messages or log lines naming a full disk", len(named)),
        ("  first", named[0][:150] if named else "-"),
        ("space back -> first ACK of a new event, per table", secs(after)),
        *outcome_rows(f)])


class Damage:
    """A chunk damager for :class:`_Relay`: once :attr:`on`, of every chunk ``rate`` / 2 get
    one byte flipped and ``rate`` / 2 are dropped; :attr:`counts` counts chunks and faults."""

    def __init__(self, rate: float, seed: int) -> None:
        self.rate = rate
        self.rng = random.Random(seed)
        self.on = False
        self.counts: Counter[str] = Counter()

    def __call__(self, data: bytes) -> bytes | None:
        if not self.on:
            return data
        self.counts["chunks"] += 1
        r = self.rng.random()
        if r < self.rate / 2:
            self.counts["flipped"] += 1
            b = bytearray(data)
            b[self.rng.randrange(len(b))] ^= self.rng.randint(1, 255)
            return bytes(b)
        if r < self.rate:
            self.counts["dropped"] += 1
            return None
        return data


def probe_tls(args: argparse.Namespace) -> None:
    for mode in ("plain", "tls"):
        tmp = Path(tempfile.mkdtemp(prefix=f"faults-tls-{mode}-"))
        pki = None
        if mode == "tls":
            pki = tmp / "pki"
            certs.init(pki, floor_sim.table_ids(args.tables), organization="Podium Fault Probe")
        sim_floor, console_floor = tmp / "sim.toml", tmp / "console.toml"
        floor_sim.write_floor(sim_floor, args.tables, args.base_port, certs=pki)
        sim = Sim(sim_floor, tmp)
        damage = Damage(args.damage, args.seed)
        relay = _Relay({args.base_port + 500 + i: args.base_port + i
                        for i in range(args.tables)}, damage)
        floor_sim.write_floor(console_floor, args.tables, args.base_port + 500, certs=pki)
        engine = make_engine(f"sqlite:///{tmp / 'ledger.sqlite3'}")
        upgrade(engine)
        enroll_demo_employees(engine)
        console = ConsoleCore(engine, floorconfig.load_floor(console_floor), load_paytables(),
                              paper=PAPER)
        watch = Watch(console)
        deciders = Deciders(console)
        try:
            console.start()
            deciders.start()
            wait_for(partial(all_online, console, args.tables), 60)
            began = time.time()
            damage.on = True
            time.sleep(args.seconds)
            ended = time.time()
        finally:
            record = sim.stop()
            deciders.stop()
            console.stop()
            watch.close()
            relay.close()
        f = ledger_figures(engine, record)
        engine.dispose()
        shutil.rmtree(tmp, ignore_errors=True)
        intervals = watch.offline(began, ended)
        said = [m for t, m in watch.messages if began <= t <= ended]
        table(f"tls: {args.tables} tables, {mode}, {args.damage:.0%} of TCP chunks damaged, "
              f"{args.seconds:g} s", [
            ("chunks relayed / flipped / dropped",
             " / ".join(str(damage.counts[k]) for k in ("chunks", "flipped", "dropped"))),
            ("OFFLINE intervals", len(intervals)),
            ("table-seconds OFFLINE", f"{sum(intervals):.1f}"),
            ("longest interval", f"{max(intervals, default=0.0):.1f} s"),
            ("link messages", len(said)),
            ("  taken for a certificate refusal (TLS refused / does not accept)",
             sum(1 for m in said if "TLS refused" in m or "does not accept" in m)),
            ("  most common", kinds(said, 6)),
            *outcome_rows(f)])


class PaddedPrinter(FilePrinter):
    """A file printer whose every job is at least ``job`` bytes: the slip, then line feeds (a
    slip with a logo is that big).  A plain slip (about 1 KB) fits in one page of the page
    cache and is written whole or not at all; a write is cut short only at a page boundary."""

    def __init__(self, directory: Path, job: int) -> None:
        super().__init__(directory)
        self.job = job

    def send(self, data: bytes, name: int | str | None = None, *,
             before_send: Callable[[], None] | None = None) -> Path:
        return super().send(data + b"\n" * max(0, self.job - len(data)), name,
                            before_send=before_send)


def probe_printer(args: argparse.Namespace) -> None:
    from tests.paid_slips import PAYTABLES, make_slips, slip_floor

    tmp = Path(tempfile.mkdtemp(prefix="faults-printer-"))
    with tmpfs("1m") as disk:
        engine = make_engine(f"sqlite:///{tmp / 'ledger.sqlite3'}")
        upgrade(engine)
        config = slip_floor()
        (slip_no,) = make_slips(engine, config, 1)
        folder = disk / "slips"
        folder.mkdir()
        printer = PaddedPrinter(folder, args.job_bytes)
        console = ConsoleCore(engine, config, PAYTABLES, printer=printer, paper=PAPER)
        messages: list[str] = []
        console.add_message_listener(messages.append)
        console.start(links=False)

        def said() -> str | None:
            return next((m for m in messages if f"slip {slip_no}" in m), None)

        try:
            slip = len(console.slip_bytes(slip_no))
            filler = fill(disk, leave=4096)
            console.print_slip(slip_no)
            first = wait_for(said, 30) or "-"
            with engine.connect() as c:
                reported = c.execute(text(
                    "SELECT sent_bytes FROM slip_print_attempts WHERE state = 'failed' "
                    "ORDER BY id DESC LIMIT 1")).scalar()
            in_files = sum(p.stat().st_size for p in folder.glob("slip-*.bin"))
            marking = console.floor.print_state(slip_no).next_marking
            filler.unlink()
            before = set(folder.glob("slip-*.bin"))
            messages.clear()
            console.print_slip(slip_no)
            wait_for(said, 30)
            second = sorted(set(folder.glob("slip-*.bin")) - before)
            says = bool(second) and b"DUPLICATE" in second[0].read_bytes()
        finally:
            console.stop()
            engine.dispose()
    shutil.rmtree(tmp, ignore_errors=True)
    table("printer: a file printer on a full tmpfs (4,096 bytes left)", [
        ("the slip's bytes / the printer's job", f"{slip} / {max(slip, args.job_bytes)}"),
        ("bytes sent, as the ledger was told",
         "no failed print recorded" if reported is None else reported),
        ("bytes in the printer's folder", in_files),
        ("message", first[:160]),
        ("next print's marking (ledger)", repr(marking)),
        ("next print, space back: its paper says DUPLICATE",
         "yes" if says else "no" if second else "nothing printed")])


PROBES: dict[str, Callable[[argparse.Namespace], None]] = {
    "stale": probe_stale, "frozen": probe_frozen, "heldconn": probe_heldconn,
    "fulldisk": probe_fulldisk, "tls": probe_tls, "printer": probe_printer}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("probe", choices=sorted(PROBES))
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--cycles", type=int, default=13, help="stale: cycles (default 13)")
    ap.add_argument("--awake", type=float, default=3.0,
                    help="stale: seconds the stale service runs before it must stand by")
    ap.add_argument("--freeze", type=float, default=20.0, help="frozen: seconds of SIGSTOP")
    ap.add_argument("--hold", type=float, default=30.0, help="heldconn: seconds held")
    ap.add_argument("--watchdog", type=float, default=4.0,
                    help="heldconn: WATCHDOG_USEC in seconds (default 4)")
    ap.add_argument("--before", type=float, default=10.0, help="fulldisk: seconds of play first")
    ap.add_argument("--full", type=float, default=60.0, help="fulldisk: seconds full")
    ap.add_argument("--after", type=float, default=10.0,
                    help="seconds of play after the fault (frozen, heldconn, fulldisk)")
    ap.add_argument("--tmpfs", default="64m", help="fulldisk: the tmpfs size (default 64m)")
    ap.add_argument("--damage", type=float, default=0.04, help="tls: chunks damaged (0.04)")
    ap.add_argument("--seconds", type=float, default=60.0, help="tls: seconds per transport")
    ap.add_argument("--settle", type=float, default=3.0,
                    help="seconds of play before a fault (and between stale cycles)")
    ap.add_argument("--pg-port", type=int, default=5461,
                    help="port of the probe's own PostgreSQL cluster (default 5461)")
    ap.add_argument("--base-port", type=int, default=24610,
                    help="the simulated tables' first port (default 24610; tls: its proxies "
                         "listen from 500 above)")
    ap.add_argument("--job-bytes", type=int, default=9000,
                    help="printer: the printer's job, the slip padded with line feeds "
                         "(default 9000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true",
                    help="keep the cluster and the run's folder (to read the logs)")
    args = ap.parse_args(argv)
    # warnings reach the probes' counters (Watch), not the terminal
    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger().addHandler(logging.NullHandler())
    PROBES[args.probe](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
