"""The embedded demo floor: demo employees, its test certificates and an in-process simulator
on its own thread.

The demo card numbers are published in the README so a new user can pay a jackpot from the
keyboard; they exist only in a demo ledger.  Likewise the demo's CA is a test CA made on this
computer the first time the demo runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import Employee
from core.ledger.people import record_event
from core.people.auth import Credential, add_employee, gate_for, pin_hash
from core.people.cardkey import CardKey

log = logging.getLogger("podium.demo")

# (employee no, name, role, card number, swipe string as a wedge reader types it)
DEMO_EMPLOYEES: tuple[tuple[str, str, str, str, str], ...] = (
    ("1001", "Dana Reyes", "supervisor", "6011000990139424",
     "%B6011000990139424^REYES/DANA^2812101?;6011000990139424=2812101?"),
    ("1002", "Marco Santos", "supervisor", "6011000990131111", ";6011000990131111=2812101?"),
    ("2001", "Evelyn Cruz", "executive", "6011000990132222",
     "%B6011000990132222^CRUZ/EVELYN^2812101?;6011000990132222=2812101?"),
    ("3001", "Sam Lee", "surveillance", "6011000990133333", ";6011000990133333=2812101?"),
)


def swipe_of(number: str) -> str:
    """The demo swipe string of employee ``number``."""
    for no, _name, _role, _card, swipe in DEMO_EMPLOYEES:
        if no == number:
            return swipe
    raise KeyError(number)


# DEMO ONLY: each demo employee's PIN is their employee number (README, "The demo floor")
def demo_pin(number: str) -> str:
    return number


def demo_credential(number: str) -> Credential:
    """Demo employee ``number``'s swipe followed by their demo PIN."""
    return Credential(swipe_of(number), demo_pin(number))


def enroll_demo_employees(engine: Engine, key: CardKey | None = None) -> int:
    """Enroll the demo employees that are not enrolled yet (with their demo PINs); returns how
    many were added.  A demo ledger from before PINs gets its demo employees' PINs here (each
    with a ``pin_set`` event).  ``key``: the card key (default: the one the ledger's gate
    uses)."""
    key = key if key is not None else gate_for(engine).key
    added = 0
    with Session(engine) as s, s.begin():
        known = {e.number: e for e in s.scalars(select(Employee))}
        for no, name, role, card, _swipe in DEMO_EMPLOYEES:
            old = known.get(no)
            if old is not None and old.pin is None:
                old.pin = pin_hash(key, old.id, demo_pin(no))
                record_event(s, old, "pin_set", reason="demo employee's PIN",
                             operator="podium demo", when=datetime.now(UTC))
            if old is None:
                emp = add_employee(s, key, no, name, role, card, operator="podium demo",
                                   reason="demo employee")
                emp.pin = pin_hash(key, emp.id, demo_pin(no))
                record_event(s, emp, "pin_set", reason="demo employee's PIN",
                             operator="podium demo", when=emp.created_at)
                added += 1
    return added


DEMO_BBJ_FUND = ("bbj", "Poker room BBJ", 5_000_000)  # id, name, opening seed in centavos


def open_demo_bbj_fund(engine: Engine) -> bool:
    """The demo's Bad Beat Jackpot fund with its opening seed, if the ledger has none yet."""
    from core.ledger.models import BbjFund
    from core.pokerroom import fund as bbj_fund

    fid, name, seed_cents = DEMO_BBJ_FUND
    with Session(engine) as s:
        if s.get(BbjFund, fid) is not None:
            return False
    bbj_fund.create_fund(engine, fid, name)
    bbj_fund.seed(engine, fid, seed_cents, by="podium demo", reason="demo opening seed")
    return True


DEMO_CERT_DAYS = 3650  # a demo left alone for years still starts


def ensure_demo_certs(config: Any) -> Path:
    """Make the demo floor's test CA, console certificate and table certificates where its
    ``[controller_link]`` points (the user data folder's ``demo-certs/``) unless they are there
    already; returns that folder.  So ``make run`` runs over TLS with no step by hand.  Two demos
    starting at once: each makes a set aside and renames it into place; the second keeps the
    first's."""
    from core.controllers import certs

    folder = Path(config.controller_link.ca).parent
    tables = [t.id for t in config.tables]
    if not (folder / certs.CA_CERT).exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        aside = folder.with_name(f"{folder.name}.new-{os.getpid()}")
        shutil.rmtree(aside, ignore_errors=True)
        certs.init(aside, tables, organization=config.casino.name, days=DEMO_CERT_DAYS,
                   ca_days=DEMO_CERT_DAYS)
        try:
            aside.rename(folder)
            log.info("demo: made a test CA and certificates in %s", folder)
        except OSError:  # another demo was quicker
            shutil.rmtree(aside, ignore_errors=True)
    missing = [t for t in tables if not Path(certs.table_files(folder, t).cert).exists()]
    if missing:  # a table added to the demo floor since
        certs.issue(folder, tables=missing, days=DEMO_CERT_DAYS)
    return folder


class SimulatorThread:
    """Runs a :class:`core.controllers.sim_floor.Simulator` on an asyncio loop in a daemon
    thread."""

    def __init__(self, simulator: Any) -> None:
        self.simulator = simulator
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="podium-simulator", daemon=True)
        self._started = threading.Event()
        self._error: BaseException | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self.simulator.start())
        except BaseException as exc:  # e.g. a port already taken
            self._error = exc
            self._started.set()
            return
        self._started.set()
        self._loop.run_forever()

    def start(self) -> None:
        self._thread.start()
        self._started.wait(10)
        if self._error is not None:
            raise self._error

    def call(self, fn: Any, *args: Any) -> Any:
        """Run ``fn(*args)`` on the simulator's loop and wait for the result."""
        async def _do() -> Any:
            return fn(*args)
        return asyncio.run_coroutine_threadsafe(_do(), self._loop).result(10)

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        fut = asyncio.run_coroutine_threadsafe(self.simulator.stop(), self._loop)
        try:
            fut.result(10)
        except Exception as exc:
            log.warning("stopping the simulator: %s", exc)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
