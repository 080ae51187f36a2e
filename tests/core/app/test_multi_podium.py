"""One floor, many podiums, with real processes (issue 14): ``podium serve`` in a process of its
own serves every table's controller link; two consoles (clients of the ledger, no links of
their own) hear the floor through PostgreSQL LISTEN / NOTIFY and pay the hits of their pits;
the service is killed (SIGKILL) in the middle of play and a standby ``podium serve`` takes the
tables over.  Nothing acknowledged is lost, nothing is paid twice, every PAY reaches its table
once, and each console hears every decision the other took."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select, text

from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread, enroll_demo_employees, swipe_of
from core.controllers.sim_floor import Simulator
from core.controllers.simulator import SimulatedTable
from core.floorconfig import load_floor
from core.ledger.balance_checks import check_balances
from core.ledger.db import make_engine
from core.ledger.models import Award, Hit, OwnershipEvent, Slip
from core.ledger.models import ControllerEvent as EventRow
from core.tablegames.rules.paytables import load_paytables
from core.tablegames.views import FloorChange
from printing.escpos.slip import PAPER
from tests.conftest import PG_URL
from tests.floors import floor_toml, table
from tests.harness import record_applied, wait_for
from tests.ledgers import migrate
from tests.pki import pki

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parents[3]
PITS = {"A": ("C1", "C2"), "B": ("C3", "C4")}


def _floor_file(path: Path, ports: dict[str, int]) -> None:
    path.write_text(floor_toml("Two Pits", adjustment_second_executive_at=None,
                               link=pki().link_config(),
                               tables=[table(tid, ports[tid], pit=pit)
                                       for pit, tables in PITS.items() for tid in tables]))


def _serve(floor: Path, url: str, name: str, log: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.dispatch", "serve", "--floor", str(floor), "--db",
         url, "--name", name, "--log-format", "plain", "--claim-interval", "0.5"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("READY"):
            threading.Thread(target=_drain, args=(proc, log), daemon=True).start()
            return proc
    raise AssertionError(f"podium serve did not start:\n{''.join(lines)[-3000:]}")


def _drain(proc: subprocess.Popen[str], log: Path) -> None:
    assert proc.stdout is not None
    with log.open("a") as out:
        for line in proc.stdout:
            out.write(line)


class Supervisor:
    """A console of one pit: a client ConsoleCore on its own engine, and a supervisor who
    pays (Executive card) or rejects every pending hit of the pit."""

    def __init__(self, url: str, schema: str, config: Any, pit: str) -> None:
        self.engine = make_engine(url, connect_args={"options": f"-csearch_path={schema}"})
        self.pit = pit
        self.tables = set(PITS[pit])
        self.core = ConsoleCore(self.engine, config, load_paytables(), serve=(),
                                name=f"console-{pit}", print_tables=self.tables, paper=PAPER)
        self.heard: dict[int, float] = {}  # hit id -> when this console heard it decided
        self.heard_remote: dict[int, float] = {}
        self.decided: dict[int, float] = {}  # hit id -> when this console's decision committed
        self.core.add_listener(self._hear)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.errors: list[str] = []

    def _hear(self, change: FloorChange) -> None:
        now = time.monotonic()
        for o in change.outcomes:
            self.heard.setdefault(o.hit_id, now)
            if change.remote:
                self.heard_remote.setdefault(o.hit_id, now)

    def start(self) -> None:
        self.core.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.core.stop()
        self.engine.dispose()

    def _run(self) -> None:
        floor = self.core.floor
        executive = swipe_of("2001")
        while not self._stop.wait(0.05):
            for h in floor.snapshot().pending:
                if h.table not in self.tables:
                    continue
                try:
                    if h.blocking or len(h.cards) != 7:
                        floor.reject(h.hit_id, "test: flagged", executive)
                    else:
                        v = floor.evaluate(h.hit_id, list(h.cards))
                        if v.pay_hand is None or not v.payable:
                            if any("first" in p for p in v.problems):
                                continue
                            floor.reject(h.hit_id, "test: pays nothing", executive)
                        else:
                            floor.pay(h.hit_id, list(h.cards), executive,
                                      correct_claim=v.mismatch, expected_cents=v.amount_cents)
                    self.decided[h.hit_id] = time.monotonic()
                except ValueError:
                    continue  # decided meanwhile, or the amount moved
                except Exception as exc:  # the ledger said no this time: seen again
                    self.errors.append(str(exc))


@pytest.mark.slow
def test_one_service_two_consoles_a_killed_service_and_a_standby(
        pg_engine_factory: Any, tmp_path: Path) -> None:
    engine: Engine = pg_engine_factory()
    migrate(engine)
    enroll_demo_employees(engine)
    with engine.connect() as c:
        schema = str(c.execute(text("SELECT current_schema()")).scalar())
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    paytable = load_paytables()["FPGPP-WA01"]
    sims = {tid: SimulatedTable(tid, paytable, tls=pki().table_context(tid), port=0,
                                seed=i, speed=40, mistake_rate=0.05, jackpot_rate=0.3,
                                heartbeat=0.5)
            for i, tid in enumerate(t for ts in PITS.values() for t in ts)}
    applied = record_applied(sims)  # (table, hit_ref, command, cents)
    thread = SimulatorThread(Simulator(sims.values()))
    thread.start()
    floor_file = tmp_path / "floor.toml"
    _floor_file(floor_file, {tid: sim.port for tid, sim in sims.items()})
    config = load_floor(str(floor_file))
    log = tmp_path / "serve.log"
    procs: list[subprocess.Popen[str]] = []
    consoles: list[Supervisor] = []
    try:
        procs.append(_serve(floor_file, url, "svc-1", log))
        wait_for(lambda: _online(engine) == 4, timeout=30, what="every table online")
        consoles = [Supervisor(PG_URL, schema, config, pit) for pit in PITS]
        for c in consoles:
            c.start()
        def acked() -> int:  # events the tables had acknowledged (read on their thread)
            return int(thread.call(lambda: sum(len(s.ack_results) for s in sims.values())))

        # play until both consoles have decided hits and the tables have played half of what
        # the test asks for (no fixed sleep: the exact conditions)
        wait_for(lambda: all(c.decided for c in consoles) and acked() > 20, timeout=60,
                 what="both consoles decided a hit served by svc-1, 20 events acknowledged")
        procs[0].send_signal(signal.SIGKILL)  # the service dies in the middle of play
        procs[0].wait(10)
        killed = time.monotonic()
        # the consoles pay on meanwhile (the ledger takes the decisions) while the standby starts
        procs.append(_serve(floor_file, url, "standby", log))
        wait_for(lambda: _owned_by(engine, "standby") == 4, timeout=30,
                 what="the standby serves every table")
        taken_over = _events_by_table(engine)
        wait_for(lambda: all(n > taken_over.get(t, 0)
                             for t, n in _events_by_table(engine).items()) and
                 len(_events_by_table(engine)) == len(sims) and acked() > 40, timeout=60,
                 what="every table played on under the standby, 40 events acknowledged")
        for sim in sims.values():  # stop dealing; the last rounds decided and acknowledged
            thread.call(_stop_dealing, sim)
        try:
            wait_for(lambda: all(not s.outbox and not s.open_hits for s in sims.values()),
                     timeout=120, what="every event acknowledged and every hit decided")
        except AssertionError:
            raise AssertionError(f"serve log ends:\n{log.read_text()[-3000:]}") from None
        with engine.connect() as c:
            decided = set(c.scalars(select(Hit.id).where(Hit.status != "pending")))
        # every console heard every decision (the other console's and the service's too)
        for con in consoles:
            wait_for(lambda con=con: decided <= set(con.heard), timeout=30,
                     what=f"console {con.pit} heard every decision")
        assert killed
    finally:
        for con in consoles:
            con.stop()
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
        thread.stop()

    assert all(p.returncode in (0, -signal.SIGKILL) for p in procs)
    with engine.connect() as c:
        recorded = {(t, b, q) for t, b, q in c.execute(
            select(EventRow.table_id, EventRow.boot, EventRow.seq))}
        awards = list(c.execute(select(Award.hit_id, Award.amount_cents, EventRow.table_id,
                                       EventRow.boot, EventRow.seq)
                                .join(Hit, Hit.id == Award.hit_id)
                                .join(EventRow, EventRow.id == Hit.event_id)))
        slip_nos = sorted(c.scalars(select(Slip.slip_no)))
        hits_paid = c.scalar(select(func.count()).select_from(Hit).where(
            Hit.status.in_(("paid", "auto_paid"))))
        claims = list(c.execute(select(OwnershipEvent.table_id, OwnershipEvent.event)
                                .order_by(OwnershipEvent.id)))
    acked_ok = {(tid, sim.boot, seq) for tid, sim in sims.items()
                for seq, (result, _r) in sim.ack_results.items() if result == "ok"}
    assert sum(len(s.ack_results) for s in sims.values()) > 40  # the tables did play
    assert acked_ok - recorded == set()  # no acknowledged event lost
    assert len(awards) == hits_paid == len({a[0] for a in awards})  # one award per hit
    assert slip_nos == list(range(1, len(slip_nos) + 1))  # gapless
    pays = [(t, ref, cents) for t, ref, kind, cents in applied if kind == "PayConfirmed"]
    assert len(pays) == len({(t, ref) for t, ref, _ in pays})  # each table applied a PAY once
    ledger_pays = {(t, f"{b}:{q}"): cents for _h, cents, t, b, q in awards}
    assert {(t, ref): cents for t, ref, cents in pays} == ledger_pays  # every pay reached it
    # both consoles paid, and each heard the other's decisions through the ledger's feed
    a, b = consoles
    assert a.decided and b.decided
    assert set(b.decided) <= set(a.heard_remote) and set(a.decided) <= set(b.heard_remote)
    # the tables were served by svc-1, then by the standby, and never by two at once
    for tid in sims:
        events = [e for t, e in claims if t == tid]
        assert events[0] == "claimed" and events.count("claimed") == 2, events
        assert events[-1] == "released"  # the standby stopped cleanly (SIGTERM)
    assert check_balances(engine) == []


def _stop_dealing(sim: SimulatedTable) -> None:
    """The dealer deals no further round (the table still answers PAY / REJECT)."""
    if sim._pacer is not None:
        sim._pacer.cancel()
        sim._pacer = None


def _online(engine: Engine) -> int:
    with engine.connect() as c:
        return int(c.execute(text("SELECT count(*) FROM tables WHERE online")).scalar() or 0)


def _events_by_table(engine: Engine) -> dict[str, int]:
    with engine.connect() as c:
        return {str(t): int(n) for t, n in c.execute(
            select(EventRow.table_id, func.count()).group_by(EventRow.table_id))}


def _owned_by(engine: Engine, name: str) -> int:
    with engine.connect() as c:
        return int(c.execute(text(
            "SELECT count(*) FROM table_owners o JOIN floor_services s ON s.id = o.service_id "
            "WHERE s.name = :n"), {"n": name}).scalar() or 0)
