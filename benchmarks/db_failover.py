"""A database failover: the primary PostgreSQL killed under a playing floor, its standby promoted.

    .venv/bin/python benchmarks/db_failover.py [--tables 120] [--services 2] [--speed 10]
        [--play 20] [--promote-after 0] [--after 20] [--ports 5451 5452] [--version 15]

Run as root (or the postgres account) on a machine with the Debian PostgreSQL tools
(``pg_createcluster``).  It makes two clusters of its own (never the main one): the primary
``podium_bench_primary`` on the first port, and ``podium_bench_standby`` on the second, a
``pg_basebackup`` of the primary streaming from it (``primary_conninfo``, ``standby.signal``)
and named in the primary's ``synchronous_standby_names``, so a commit returns only once the
standby has flushed it (``synchronous_commit = on``).  On the primary, database ``podium``
migrated; then the simulated tables (``benchmarks/floor_sim.py``, a process of their own, mutual
TLS with a test CA made for the run), ``--services`` ``podium serve`` processes, each serving
its share of the tables, and a console in this process (serving none) whose supervisors pay or
reject every hit as it comes (``benchmarks/floor_scale.py``), all with the multi-host URL::

    postgresql+psycopg://postgres@/podium?host=127.0.0.1:P1&host=127.0.0.1:P2
        &target_session_attrs=read-write

Once every table is ONLINE and has played ``--play`` seconds, the primary's postmaster is killed
with SIGKILL (its backends follow), ``--promote-after`` seconds later the standby is promoted
(``pg_ctlcluster ... promote``: what an operator or a tool such as Patroni does; Podium never
promotes), and the floor plays ``--after`` seconds more.  Then the simulator writes its record
and everything stops; both clusters are dropped (also when the run fails).

Printed, from the SIGKILL (wall clock, one machine):
  - promoted: ``pg_ctlcluster promote`` returned;
  - first recorded: the first controller event added to the new primary after the promotion
    (polled every 50 ms, so up to 50 ms late);
  - claimed again: per table, its service's ``claimed`` row in the new primary;
  - linked again: per table, the simulator accepted its service's new connection;
  - recording again: per table, its first event added to the new primary (p50 / max; a table
    with none within 120 s is counted as not back; a table that had nothing to send waits
    for its next event, so this includes the game's own pace);
and, over the whole run: events the tables had acknowledged ``ok`` that are not in the new
primary (lost: the goal is 0), events sent more than once (resent), and ``podium audit verify``
on the new primary.  Nothing is asserted.

:class:`StandbyPair` (the two clusters) serves ``tests/core/ledger/test_standby.py`` too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_sim  # noqa: E402
from failover import serve  # noqa: E402
from floor_scale import Supervisors  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.exc import DBAPIError  # noqa: E402
from sqlalchemy.pool import NullPool  # noqa: E402

from core.controllers import certs  # noqa: E402
from core.ledger.outages import problem  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402

SOCKET_DIR = Path("/var/run/postgresql")


def clear_stale_socket(port: int) -> None:
    """Remove the socket lock file a SIGKILLed postmaster left for ``port`` when no server
    answers there: where nothing reaps the dead postmaster (a container's PID 1), its zombie
    keeps the PID in the lock file "alive", and the next cluster on the port would refuse to
    start ("lock file ... already exists")."""
    lock = SOCKET_DIR / f".s.PGSQL.{port}.lock"
    if not lock.exists():
        return
    alive = subprocess.run(["pg_isready", "-q", "-h", str(SOCKET_DIR), "-p", str(port)],
                           capture_output=True)
    if alive.returncode == 0:
        return  # a server answers: not ours to remove
    for stale in (lock, SOCKET_DIR / f".s.PGSQL.{port}"):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()


class StandbyPair:
    """Two PostgreSQL clusters of this machine's Debian tools: a primary on ``ports[0]`` and a
    synchronous streaming standby of it on ``ports[1]`` (hot: it answers read-only sessions).
    :meth:`make` builds and starts both; :meth:`drop` stops and removes both, whatever state
    they are in.  Needs root (the clusters are the postgres account's) or the postgres
    account itself."""

    def __init__(self, prefix: str = "podium_bench", ports: tuple[int, int] = (5451, 5452),
                 version: str = "15") -> None:
        self.version = version
        self.primary, self.standby = f"{prefix}_primary", f"{prefix}_standby"
        self.ports = ports
        self._frozen: list[int] = []

    @staticmethod
    def available() -> str:
        """Why a pair can not be made here ("" when it can)."""
        if shutil.which("pg_createcluster") is None:
            return "no pg_createcluster (the Debian PostgreSQL tools)"
        if os.geteuid() != 0:
            import pwd

            if pwd.getpwuid(os.geteuid()).pw_name != "postgres":
                return "making PostgreSQL clusters needs root or the postgres account"
        return ""

    def url(self, database: str = "podium", *, order: tuple[int, ...] = (0, 1),
            attrs: str = "read-write") -> str:
        """The multi-host URL of the pair (hosts in ``order``: 0 the primary, 1 the standby)."""
        hosts = "&".join(f"host=127.0.0.1:{self.ports[i]}" for i in order)
        tail = f"&target_session_attrs={attrs}" if attrs else ""
        return f"postgresql+psycopg://postgres@/{database}?{hosts}{tail}"

    def single(self, which: int, database: str = "podium") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.ports[which]}/{database}"

    def data_dir(self, name: str) -> Path:
        out = subprocess.run(["pg_conftool", "-s", self.version, name, "show",
                              "data_directory"], check=True, capture_output=True, text=True)
        return Path(out.stdout.strip().strip("'"))

    def _as_postgres(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:3])}: {(done.stderr or done.stdout).strip()}")

    def _create(self, name: str, port: int, settings: dict[str, str]) -> None:
        self._run(["pg_createcluster", self.version, name, "-p", str(port), "--",
                   "--auth=trust"])
        for key, value in settings.items():
            self._run(["pg_conftool", self.version, name, "set", key, value])

    def make(self, *, synchronous: bool = True, database: str = "podium") -> None:
        """Create and start the primary, then the standby (a base backup of it, streaming),
        then ``database`` on the primary (replicated to the standby)."""
        for name in (self.primary, self.standby):
            if Path(f"/etc/postgresql/{self.version}/{name}").exists():
                raise RuntimeError(f"cluster {self.version}/{name} exists already (drop it: "
                                   f"pg_dropcluster --stop {self.version} {name})")
        for port in self.ports:
            clear_stale_socket(port)
        # in the primary's postgresql.conf, not ALTER SYSTEM: postgresql.auto.conf would go to
        # the standby with the base backup, and once promoted it would wait for a standby of
        # its own that does not exist
        primary = {"synchronous_commit": "on",
                   "synchronous_standby_names": self.standby if synchronous else ""}
        self._create(self.primary, self.ports[0], primary)
        self._run(["pg_ctlcluster", self.version, self.primary, "start"])
        self._create(self.standby, self.ports[1], {
                                                   "hot_standby": "on"})
        data = self.data_dir(self.standby)
        shutil.rmtree(data)
        data.mkdir(mode=0o700)
        if os.geteuid() == 0:
            shutil.chown(data, "postgres", "postgres")
        # -R: primary_conninfo (naming this standby as synchronous_standby_names does) and
        # standby.signal
        self._run(self._as_postgres([
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.ports[0]), "-U", "postgres",
            "-D", str(data), "-R", "-X", "stream", "-c", "fast",
            "-d", f"application_name={self.standby}"]))
        self._run(["pg_ctlcluster", self.version, self.standby, "start"])
        if synchronous:
            self.wait_sync()
        admin = create_engine(self.single(0, "postgres"), poolclass=NullPool,
                              isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{database}"'))
        admin.dispose()

    def wait_sync(self, timeout: float = 30.0) -> None:
        """Until the primary reports the standby streaming as its synchronous standby."""
        engine = create_engine(self.single(0, "postgres"), poolclass=NullPool)
        deadline = time.monotonic() + timeout
        try:
            while True:
                with engine.connect() as c:
                    state = c.execute(text(
                        "SELECT sync_state FROM pg_stat_replication WHERE application_name "
                        "= :n AND state = 'streaming'"), {"n": self.standby}).scalar()
                if state == "sync":
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the standby is not streaming synchronously after "
                                       f"{timeout:g} s (state {state!r})")
                time.sleep(0.1)
        finally:
            engine.dispose()

    def kill_primary(self) -> float:
        """SIGKILL the primary's postmaster (its backends end when they notice); the wall time
        of the kill."""
        pid = int((self.data_dir(self.primary) / "postmaster.pid").read_text().split()[0])
        at = time.time()
        os.kill(pid, signal.SIGKILL)
        return at

    def freeze_primary(self) -> float:
        """SIGSTOP the primary's postmaster and every process of it (a machine that hangs: its
        kernel still takes connections and acknowledges what is sent); the wall time."""
        pid = int((self.data_dir(self.primary) / "postmaster.pid").read_text().split()[0])
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
        self._frozen = [pid, *(int(p) for p in children.stdout.split())]
        at = time.time()
        for p in self._frozen:
            os.kill(p, signal.SIGSTOP)
        return at

    def promote(self) -> None:
        """Promote the standby (``pg_ctlcluster promote`` waits until it accepts writes)."""
        self._run(["pg_ctlcluster", self.version, self.standby, "promote"])

    def drop(self) -> None:
        for pid in self._frozen:  # a frozen primary is killed, not stopped
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for name in (self.standby, self.primary):
            if Path(f"/etc/postgresql/{self.version}/{name}").exists():
                subprocess.run(["pg_dropcluster", "--stop", self.version, name],
                               capture_output=True)


class LedgerSupervisors(Supervisors):
    """The floor benchmark's supervisors, who try a hit again at their next round when the
    ledger is away (a decision is one transaction: nothing of it was written)."""

    def decide(self, h: Any) -> None:
        try:
            super().decide(h)
        except DBAPIError as exc:
            self.errors.append(f"hit {h.hit_id}: {problem(exc)}")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def _newest(url: str) -> dict[str, int]:
    """Per table, the id of its newest controller event in the ledger at ``url``."""
    engine = create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": 2})
    try:
        with engine.connect() as c:
            return {str(t): int(n) for t, n in c.execute(text(
                "SELECT table_id, max(id) FROM controller_events GROUP BY table_id"))}
    finally:
        engine.dispose()


def _online(url: str) -> set[str]:
    engine = create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": 2})
    try:
        with engine.connect() as c:
            return {str(t) for t in c.execute(text("SELECT id FROM tables WHERE online"))
                    .scalars()}
    finally:
        engine.dispose()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from core import floorconfig
    from core.app.console import ConsoleCore
    from core.app.demo import enroll_demo_employees
    from core.ledger.db import make_engine, upgrade
    from core.tablegames.rules.paytables import load_paytables
    from printing.escpos.printers import printer_from_config

    pair = StandbyPair(ports=tuple(args.ports), version=args.version)
    tmp = Path(tempfile.mkdtemp(prefix="db-failover-"))
    ids = floor_sim.table_ids(args.tables)
    # the floor's card key (signs the feed's notices, enrolls the supervisors): the run's own
    os.environ["PODIUM_CARD_KEY"] = str(tmp / "card.key")
    procs: list[subprocess.Popen[str]] = []
    sim: subprocess.Popen[str] | None = None
    sim_log = open(tmp / "sim.log", "w")  # noqa: SIM115 - closed below
    try:
        pair.make()
        url = pair.url()
        engine = make_engine(url)
        upgrade(engine)
        enroll_demo_employees(engine)
        engine.dispose()
        pki = tmp / "pki"
        certs.init(pki, ids, organization="Podium DB Failover Benchmark")
        floor_file = tmp / "floor.toml"
        floor_sim.write_floor(floor_file, args.tables, args.base_port, certs=pki)
        record_file = tmp / "record.json"
        sim = subprocess.Popen(
            [sys.executable, str(ROOT / "benchmarks" / "floor_sim.py"), "--floor",
             str(floor_file), "--speed", str(args.speed), "--seconds", "100000", "--drain", "5",
             "--seed", "1", "--record", str(record_file), "--stagger"],
            stdout=subprocess.PIPE, stderr=sim_log, text=True)
        assert sim.stdout is not None
        if not sim.stdout.readline().startswith("SIM READY"):
            raise SystemExit(f"the simulator did not start (see {tmp / 'sim.log'})")
        log = tmp / "serve.log"
        share = -(-args.tables // args.services)
        for i in range(args.services):
            procs.append(serve(floor_file, url, f"svc-{i + 1}", log, "--tables",
                               ",".join(ids[i * share:(i + 1) * share])))
        # a console on the same URL, its supervisors paying or rejecting every hit (a table
        # waits for the decision of its hit before it plays on)
        console = ConsoleCore(make_engine(url), floorconfig.load_floor(floor_file),
                              dict(load_paytables()), serve=(), name="bench-console",
                              printer=printer_from_config("file", directory=str(tmp / "slips")),
                              paper=PAPER)
        messages = (tmp / "console.log").open("a")
        console.add_message_listener(lambda m: print(f"{time.time():.3f} {m}", file=messages,
                                                     flush=True))
        console.start()
        supervisors = LedgerSupervisors(console, pin_seconds=0.0)
        supervisors.start()
        deadline = time.monotonic() + 120
        while len(_online(url)) < args.tables:
            if time.monotonic() > deadline:
                raise SystemExit(f"the tables did not all come ONLINE (see {log})")
            time.sleep(0.1)
        time.sleep(args.play)
        load = os.getloadavg()[0]
        killed_at = pair.freeze_primary() if args.fault == "freeze" else pair.kill_primary()
        time.sleep(args.promote_after)
        pair.promote()
        promoted_at = time.time()
        new_primary = pair.single(1)
        # what the new primary holds at the promotion (everything committed before the kill);
        # a table records again when a row of its own is added after it
        before = _newest(new_primary)
        first: dict[str, float] = {}
        deadline = time.monotonic() + 120
        while len(first) < args.tables and time.monotonic() < deadline:
            now = time.time()
            for t, newest in _newest(new_primary).items():
                if newest > before.get(t, 0):
                    first.setdefault(t, now - killed_at)
            time.sleep(0.05)
        time.sleep(args.after)
        sim.send_signal(signal.SIGTERM)
        sim.wait(60)
        supervisors.stop_flag.set()
        supervisors.join(30)
        console.stop()
        console.engine.dispose()
        messages.close()
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:  # (stuck on a connection to a frozen primary)
                p.kill()
        record = json.loads(record_file.read_text())
        engine = create_engine(new_primary, poolclass=NullPool)
        with engine.connect() as c:
            recorded = {(str(t), str(b), int(q)) for t, b, q in c.execute(
                text("SELECT table_id, boot, seq FROM controller_events"))}
            # the ledger's clock: the services' (this machine's)
            claimed: dict[str, float] = {}
            for t, at in c.execute(text(
                    "SELECT table_id, created_at FROM ownership_events WHERE event = "
                    "'claimed' ORDER BY created_at")):
                if at.timestamp() >= killed_at:
                    claimed.setdefault(str(t), at.timestamp() - killed_at)
        engine.dispose()
        linked = {tid: min(at for at in tab["connected_at"] if at >= killed_at) - killed_at
                  for tid, tab in record["tables"].items()
                  if any(at >= killed_at for at in tab["connected_at"])}
        audit = subprocess.run(
            [sys.executable, "-m", "core.cli.dispatch", "audit", "verify", "--db",
             new_primary], cwd=ROOT, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        acked = {(tid, tab["boot"], ev["seq"]) for tid, tab in record["tables"].items()
                 for ev in tab["events"] if ev.get("ack_result") == "ok"}
        resent = sum(1 for tab in record["tables"].values() for ev in tab["events"]
                     if ev["transmissions"] > 1)
        return {"tables": args.tables, "load": load, "promoted": promoted_at - killed_at,
                "first": first, "claimed": claimed, "linked": linked, "acked": len(acked),
                "lost": len(acked - recorded),
                "resent": resent, "paid": supervisors.paid, "rejected": supervisors.rejected,
                "decide_errors": supervisors.errors,
                "events": len(recorded), "audit": audit.returncode,
                "audit_line": (audit.stdout or audit.stderr).strip().splitlines()[-1:],
                "tmp": str(tmp)}
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        if sim is not None and sim.poll() is None:
            sim.kill()
        sim_log.close()
        pair.drop()


def fmt(values: list[float]) -> str:
    if not values:
        return "n/a"
    return (f"p50 {pct(values, 0.5) * 1000:7.0f} ms   max {max(values) * 1000:7.0f} ms   "
            f"(n={len(values)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=120)
    ap.add_argument("--services", type=int, default=2,
                    help="podium serve processes, each serving its share of the tables")
    ap.add_argument("--speed", type=float, default=10.0, help="table pace (1 = a round a minute)")
    ap.add_argument("--play", type=float, default=20.0,
                    help="seconds of play between every table ONLINE and the kill")
    ap.add_argument("--promote-after", type=float, default=0.0,
                    help="seconds between the kill and the promotion (an operator's or "
                         "Patroni's reaction; default 0)")
    ap.add_argument("--after", type=float, default=20.0,
                    help="seconds of play after every table is ONLINE on the new primary")
    ap.add_argument("--fault", choices=("kill", "freeze"), default="kill",
                    help="kill: SIGKILL the primary's postmaster; freeze: SIGSTOP all of the "
                         "primary's processes (a hung machine)")
    ap.add_argument("--ports", type=int, nargs=2, default=[5451, 5452])
    ap.add_argument("--version", default="15", help="PostgreSQL major version of the clusters")
    ap.add_argument("--base-port", type=int, default=23000,
                    help="the first simulated table's port")
    args = ap.parse_args()
    why = StandbyPair.available()
    if why:
        raise SystemExit(f"db_failover: {why}")
    r = run(args)
    first = list(r["first"].values())
    print(f"== {r['tables']} tables, {args.services} services, speed {args.speed:g}, primary "
          f"{'frozen' if args.fault == 'freeze' else 'killed'}, promoted "
          f"{args.promote_after:g} s after (load {r['load']:.2f}) ==")
    print(f"  kill -> standby promoted          {r['promoted'] * 1000:7.0f} ms")
    print("  kill -> first event recorded      "
          + (f"{min(first) * 1000:7.0f} ms" if first else "never"))
    print(f"  kill -> table claimed again       {fmt(list(r['claimed'].values()))}")
    print(f"  kill -> controller linked again   {fmt(list(r['linked'].values()))}")
    print(f"  kill -> table recording again     {fmt(first)}")
    print(f"  tables not recording again within 120 s: {r['tables'] - len(first)}")
    print(f"  events acknowledged {r['acked']}, in the new primary {r['events']}; "
          f"acknowledged but lost: {r['lost']}; resent: {r['resent']}")
    print(f"  hits decided by the console's supervisors: {r['paid']} paid, {r['rejected']} "
          f"rejected; {len(r['decide_errors'])} attempt(s) failed (tried again)"
          + (f" (first: {r['decide_errors'][0].splitlines()[0][:160]})"
             if r["decide_errors"] else ""))
    print(f"  audit verify on the new primary: exit {r['audit']} "
          f"{' '.join(r['audit_line'])}")
    print(f"  (logs: {r['tmp']})", flush=True)


if __name__ == "__main__":
    main()
