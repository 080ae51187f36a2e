"""Crash safety with the ledger writer's group commit: the console process is killed (SIGKILL)
at random moments while simulated tables play, and started again, many times.  Then no event a
controller had acknowledged is missing from the ledger, nothing was paid twice (one award per
hit, each PAY applied once by its table and for the amount the ledger holds), slip numbers have
no gap, and the kept meter balances equal the entries.  And a console killed while a slip is on
its way to the printer leaves that slip "print state unknown": its next print says DUPLICATE.
SQLite and PostgreSQL."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from core.app.demo import SimulatorThread
from core.controllers.sim_floor import Simulator
from core.controllers.simulator import SimulatedTable
from core.floorconfig import load_floor
from core.ledger.balance_checks import check_balances
from core.ledger.models import Award, Hit, Slip
from core.ledger.models import ControllerEvent as EventRow
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.preview import recovered_text
from printing.escpos.printers import NetworkPrinter
from printing.escpos.slip import DUPLICATE_BANNER, PAPER
from tests.fake_printer import FakePrinter
from tests.floors import floor_toml, table
from tests.harness import record_applied, wait_for
from tests.paid_slips import PAYTABLES, console, make_slips, write_floor
from tests.pki import pki

ROOT = Path(__file__).resolve().parents[3]
TABLES = 6
KILLS = 4  # per case: the two cases together kill the console 8 times, each in its own ledger
PLAYED = 25  # acknowledgements per case, at the least: the two together over 50


def _floor(path: Path, ports: dict[str, int]) -> None:
    path.write_text(floor_toml("Crash Casino", adjustment_second_executive_at=None,
                               link=pki().link_config(),
                               tables=[table(tid, port) for tid, port in ports.items()]))


def _events(engine: Engine) -> int:
    with engine.connect() as c:
        return int(c.scalar(select(func.count()).select_from(EventRow)) or 0)


def _url_schema(engine: Engine) -> tuple[str, str]:
    url = engine.url.render_as_string(hide_password=False)
    schema = "-"
    if engine.dialect.name == "postgresql":
        with engine.connect() as c:
            schema = str(c.exec_driver_sql("SELECT current_schema()").scalar())
    return url, schema


def _start(floor: Path, engine: Engine, slips: Path) -> subprocess.Popen[str]:
    url, schema = _url_schema(engine)
    proc = subprocess.Popen([sys.executable, "-m", "tests.crash_console", str(floor), url,
                             schema, str(slips)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=(slips.parent / "console.log").open("a"), text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "CONSOLE UP"
    return proc


# the moment of each kill after the console said it is up, in seconds: the two cases share
# out the window 0.3 s .. 1.5 s (so each runs on its own xdist worker, at half the length)
WINDOWS = {"early": (9, 0.3, 0.9), "late": (10, 0.9, 1.5)}


@pytest.mark.slow
@pytest.mark.parametrize("window", list(WINDOWS))
def test_kill_9_at_any_moment_loses_no_acknowledged_event_and_pays_nothing_twice(
        engine: Engine, tmp_path: Path, window: str) -> None:
    seed, soonest, latest = WINDOWS[window]
    rng = random.Random(seed)
    paytable = load_paytables()["FPGPP-WA01"]
    sims = {f"C{i}": SimulatedTable(f"C{i}", paytable, tls=pki().table_context(f"C{i}"),
                                    port=0, seed=i, speed=40,
                                    mistake_rate=0.05, jackpot_rate=0.3, heartbeat=0.5)
            for i in range(1, TABLES + 1)}
    applied = record_applied(sims)  # (table, hit_ref, command, cents)
    thread = SimulatorThread(Simulator(sims.values()))
    thread.start()
    floor = tmp_path / "floor.toml"
    _floor(floor, {tid: sim.port for tid, sim in sims.items()})
    slips = tmp_path / "slips"
    proc: subprocess.Popen[str] | None = None
    try:
        for _ in range(KILLS):
            proc = _start(floor, engine, slips)
            time.sleep(rng.uniform(soonest, latest))  # the random moment of the kill
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        proc = _start(floor, engine, slips)
        # the last console records play of its own before the dealing stops (no fixed sleep),
        # and the tables have played enough for the check below to mean something (how much
        # they played during the kills depends on the machine's load)
        started = _events(engine)
        wait_for(lambda: _events(engine) > started
                 and sum(len(s.ack_results) for s in sims.values()) > PLAYED, timeout=120,
                 what=f"an event recorded by the last console, and over {PLAYED} acknowledged")
        for sim in sims.values():  # stop dealing; let the last rounds be decided and acked
            thread.call(setattr, sim, "speed", 0)
        try:
            wait_for(lambda: all(not s.outbox and not s.open_hits for s in sims.values()),
                     timeout=120, what="every event acknowledged and every hit decided")
        except AssertionError:
            log = (tmp_path / "console.log").read_text(errors="replace")
            raise AssertionError(f"console alive: {proc.poll() is None}; its stderr ends:\n"
                                 f"{log[-3000:]}") from None
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)
        thread.stop()
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
    acked_ok = {(tid, sim.boot, seq) for tid, sim in sims.items()
                for seq, (result, _r) in sim.ack_results.items() if result == "ok"}
    assert sum(len(s.ack_results) for s in sims.values()) > PLAYED  # the tables did play
    assert acked_ok - recorded == set()  # no acknowledged event lost
    assert len(awards) == hits_paid == len({a[0] for a in awards})  # one award per hit
    assert slip_nos == list(range(1, len(slip_nos) + 1))  # gapless
    pays = [(t, ref, cents) for t, ref, kind, cents in applied if kind == "PayConfirmed"]
    assert len(pays) == len({(t, ref) for t, ref, _ in pays})  # each table applied a PAY once
    ledger_pays = {(t, f"{b}:{q}"): cents for _h, cents, t, b, q in awards}
    assert {(t, ref): cents for t, ref, cents in pays}.items() <= ledger_pays.items()
    assert check_balances(engine) == []


def test_print_killed_between_sending_and_recording_leaves_the_state_unknown_and_the_next_print_says_duplicate(  # noqa: E501
        engine: Engine, tmp_path: Path) -> None:
    """A console sends a slip to a printer that takes it and has not confirmed it yet, and is
    killed (SIGKILL) then: the ledger holds the print's start and no outcome.  After a restart
    the slip's print state is unknown and it prints marked DUPLICATE - PRINT STATE UNKNOWN,
    with the stored original below the banner."""
    floor_file = write_floor(tmp_path / "floor.toml")
    config = load_floor(floor_file)
    (n,) = make_slips(engine, config, 1)
    with engine.connect() as c:
        stored = bytes(c.scalar(select(Slip.escpos).where(Slip.slip_no == n)))
    url, schema = _url_schema(engine)
    with FakePrinter(confirm=False) as hung:
        proc = subprocess.Popen([sys.executable, "-m", "tests.crash_print_console",
                                 str(floor_file), url, schema, str(hung.port)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "CONSOLE UP"
            # every byte of the slip reached the printer: its start was committed before
            assert hung.wait_for_bytes(len(stored), timeout=30) == stored
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    state = Floor(engine, config, PAYTABLES, paper=PAPER).print_state(n)
    assert (state.state, state.next_marking) == ("unknown", "duplicate")
    with FakePrinter() as fp:
        c = console(engine, config, NetworkPrinter("127.0.0.1", fp.port, timeout=5))
        try:
            assert [r.state for r in c.unprinted_slips()] == ["unknown"]
            assert c.print_queued() == 1
            wait_for(lambda: c.floor.print_state(n).printed == 1, what="the slip printed")
        finally:
            c.stop()
    job = fp.wait_for_job()
    assert recovered_text(job).lstrip().startswith(DUPLICATE_BANNER.strip())
    assert job.endswith(stored) and job != stored
