"""A real floor for end-to-end tests: simulated controllers on loopback TCP with mutual TLS
(stepped by the test), the console core connected to them, a ledger, and a fake ESC/POS printer
on a loopback port.  Nothing is mocked between the controller and the printer."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from sqlalchemy import Engine

from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread, enroll_demo_employees
from core.controllers.sim_floor import Simulator
from core.controllers.simulator import SimulatedTable
from core.floorconfig import FloorConfig, NetworkPrinterConfig, load_demo_floor
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.printers import NetworkPrinter
from printing.escpos.slip import PAPER
from tests.pki import pki


def held_writer(floor: Floor) -> threading.Event:
    """Hold the writer inside a job of its own (released by setting the event returned): what
    is submitted meanwhile waits and joins one batch."""
    gate, entered = threading.Event(), threading.Event()

    def hold(u: object) -> bool:
        entered.set()
        return gate.wait(10)

    floor.writer.submit(hold)
    assert entered.wait(10)
    return gate


def record_applied(sims: dict[str, SimulatedTable]) -> list[tuple[str, str, str, int]]:
    """What each simulated table applied, once per hit: (table, hit_ref, command, cents) for
    every command it answered "ok" (a PAY or REJECT resent after a crash is counted once).
    The list fills as the tables resolve commands."""
    applied: list[tuple[str, str, str, int]] = []
    for tid, sim in sims.items():
        resolve = sim.resolve

        def recording(command, tid=tid, resolve=resolve):  # type: ignore[no-untyped-def]
            result = resolve(command)
            if result[0] == "ok" and getattr(command, "hit_ref", "") not in \
                    {r for t, r, *_ in applied if t == tid}:
                applied.append((tid, command.hit_ref, type(command).__name__,
                                getattr(command, "amount_cents", 0)))
            return result

        sim.resolve = recording  # type: ignore[method-assign]
    return applied


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class FloorHarness:
    def __init__(self, engine: Engine, printer_port: int,
                 tables: Iterable[str] = ("PG-1", "PG-4"), seed: int = 1, *,
                 lock_at_hit: bool = False) -> None:
        self.engine = engine
        self.paytables = load_paytables()
        base = load_demo_floor()
        chosen = [t for t in base.tables if t.id in set(tables)]
        self.sims = {
            t.id: SimulatedTable(t.id, self.paytables[t.paytable or base.group(t.group).paytable],
                                 tls=pki().table_context(t.id), port=0, seats=t.seats,
                                 seed=seed, speed=0, mistake_rate=0.0, heartbeat=0.5)
            for t in chosen
        }
        self.sim_thread = SimulatorThread(Simulator(self.sims.values()))
        self.sim_thread.start()
        ports = {tid: sim.port for tid, sim in self.sims.items()}
        self.config: FloorConfig = replace(
            base,
            tables=tuple(replace(t, port=ports[t.id]) for t in chosen),
            groups=tuple(replace(g, lock_at_hit=lock_at_hit or g.lock_at_hit)
                         for g in base.groups if any(t.group == g.id for t in chosen)),
            printer=NetworkPrinterConfig("127.0.0.1", printer_port, timeout=2.0),
            controller_link=pki().link_config(),
        )
        enroll_demo_employees(engine)
        self.console = ConsoleCore(
            engine, self.config, self.paytables,
            printer=NetworkPrinter("127.0.0.1", printer_port, timeout=2.0),
            link_options={"heartbeat": 0.5, "reconnect_delay": 0.1, "max_reconnect_delay": 0.5},
            paper=PAPER,
        )
        self.messages: list[str] = []
        self.console.add_message_listener(self.messages.append)

    def start(self) -> FloorHarness:
        self.console.start()
        wait_for(lambda: all(t.online for t in self.console.floor.snapshot().tables),
                 what="every table online")
        return self

    def stop(self) -> None:
        self.console.stop()
        self.sim_thread.stop()

    def __enter__(self) -> FloorHarness:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- driving the simulated dealers ------------------------------------------------------
    def on_sim(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.sim_thread.call(fn, *args)

    def deal_hit(self, table: str, seat: int, cards: list[str], wagers: Iterable[int]) -> None:
        """Next round at ``table``: lit sensors at ``wagers``, ``cards`` dealt to ``seat``;
        START GAME, then the deal (the simulated dealer presses HIT JACKPOT for paying hands)."""
        sim = self.sims[table]
        self.on_sim(sim.force_wagers, list(wagers))
        self.on_sim(sim.force_hand, seat, cards)
        self.on_sim(sim.step)  # START GAME
        self.on_sim(sim.step)  # deal; HIT JACKPOT for every paying hand

    def pending(self) -> list[Any]:
        return list(self.console.floor.snapshot().pending)
