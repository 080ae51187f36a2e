"""How long identifying a swipe takes with few and with many employees (issue 12).

For each employee count (default 10 and 10,000) a fresh ledger is enrolled (keyed card hashes,
core/people/auth.py), then ``Gate.identify`` is timed for a known card, an unknown card and a known
card with its PIN (the scrypt check), and ``Gate.check`` (identify and authority) for a known
card.  Identification runs in a read-only session: the script also measures how long a write
transaction (what the ledger writer does for a START GAME) waits while swipes are identified
in a loop on another thread.  ``--legacy N`` times the old way once for comparison: N
enrolments from before the card key (salted PBKDF2, 20,000 iterations) and an unknown card,
which had to try every one of them.

    .venv/bin/python benchmarks/swipe_identify.py [--employees 10 10000] [--swipes 200]
        [--db postgresql+psycopg://postgres@127.0.0.1:5432/test] [--legacy 300]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, insert, select, text
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.floorconfig import Authorization  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.ledger.models import Employee, EmployeeEvent, Setting  # noqa: E402
from core.ledger.people import digest_of  # noqa: E402
from core.people import cardkey  # noqa: E402
from core.people.auth import (  # noqa: E402
    PBKDF2_ITERATIONS,
    AuthError,
    Credential,
    Gate,
    legacy_card_hash,
    note_key,
    pin_hash,
)


def swipe(card: str) -> str:
    return f";{card}=2912101?"


def card_of(i: int) -> str:
    return f"60{i:014d}"


def fresh_engine(db: str | None, tmp: Path, tag: str) -> Engine:
    if db is None:
        engine = make_engine(f"sqlite:///{tmp / f'{tag}.sqlite3'}")
    else:
        schema = f"bench_swipe_{tag}"
        admin = make_engine(db)
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        admin.dispose()
        engine = make_engine(db, connect_args={"options": f"-csearch_path={schema}"})
    upgrade(engine)
    return engine


def enroll(engine: Engine, key: cardkey.CardKey, n: int) -> None:
    now = datetime.now(UTC)
    with Session(engine) as s, s.begin():
        note_key(s, key)
        rows = [{"number": f"E{i:06d}", "name": f"Person {i}", "role": "executive",
                 "active": True, "card_salt": b"", "card_hash": b"", "card_iterations": 0,
                 "card_mac": key.card_mac(card_of(i)), "created_at": now} for i in range(n)]
        for start in range(0, n, 2000):
            s.execute(insert(Employee), rows[start:start + 2000])
        emp = s.query(Employee).filter(Employee.number == "E000000").one()
        emp.pin = pin_hash(key, emp.id, "4321")
        s.flush()
        # each row vouched for by its enrolment event, as core.people.auth.add_employee writes it
        events = [{"employee_id": e.id, "event": "enrolled", "reason": "", "operator": "bench",
                   "created_at": now, "state_digest": digest_of(e)}
                  for e in s.scalars(select(Employee))]
        for start in range(0, n, 2000):
            s.execute(insert(EmployeeEvent), events[start:start + 2000])


def timed(fn: object, count: int) -> list[float]:
    out = []
    for _ in range(count):
        t0 = time.perf_counter()
        with contextlib.suppress(AuthError):
            fn()  # type: ignore[operator]
        out.append((time.perf_counter() - t0) * 1000)
    return out


def summary(ms: list[float]) -> str:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):7.2f} ms  p99 {p99:7.2f} ms  max {ms[-1]:7.2f} ms"


def writer_wait(engine: Engine, gate: Gate, seconds: float,
                swiping: bool = True) -> list[float]:
    """Write transactions (BEGIN .. COMMIT of one settings row) timed while another thread
    identifies unknown swipes without pause (``swiping``; else alone, the baseline): how long
    the ledger writer waits for them."""
    stop = threading.Event()

    def swiper() -> None:
        while not stop.is_set():
            with contextlib.suppress(AuthError):
                gate.identify(swipe("6999999999999999"))

    th = threading.Thread(target=swiper if swiping else stop.wait)
    th.start()
    waits = []
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        t0 = time.perf_counter()
        with Session(engine) as s, s.begin():
            s.merge(Setting(key="bench_writer", value=str(i)))
        waits.append((time.perf_counter() - t0) * 1000)
        i += 1
        time.sleep(0.005)
    stop.set()
    th.join()
    return waits


def legacy(engine: Engine, n: int) -> float:
    """Seconds an unknown card took to refuse with ``n`` PBKDF2 enrolments (the old way)."""
    install = b"\x01" * 16
    now = datetime.now(UTC)
    with Session(engine) as s, s.begin():
        s.add(Setting(key="install_salt", value=install.hex()))
        for i in range(n):
            salt = i.to_bytes(16, "big")
            s.add(Employee(number=f"L{i:06d}", name=f"Legacy {i}", role="supervisor",
                           active=True, card_salt=salt,
                           card_hash=legacy_card_hash(card_of(500_000 + i), salt, install,
                                                      PBKDF2_ITERATIONS),
                           card_iterations=PBKDF2_ITERATIONS, created_at=now))
    gate = Gate(engine, cardkey.ephemeral(), Authorization(500_000))
    t0 = time.perf_counter()
    with contextlib.suppress(AuthError):
        gate.identify(swipe("6888888888888888"))
    return time.perf_counter() - t0


def measure(engine: Engine, key: cardkey.CardKey, n: int, setup: float,
            args: argparse.Namespace) -> None:
    gate = Gate(engine, key, Authorization(500_000))
    known = timed(lambda: gate.identify(swipe(card_of(n - 1))), args.swipes)
    unknown = timed(lambda: gate.identify(swipe("6999999999999999")), args.swipes)
    with_pin = timed(lambda: gate.identify(Credential(swipe(card_of(0)), "4321")),
                     max(10, args.swipes // 10))
    check = timed(lambda: gate.check(swipe(card_of(n // 2)), "executive", "adjust"),
                  args.swipes)
    alone = writer_wait(engine, gate, args.writer_seconds, swiping=False)
    waits = writer_wait(engine, gate, args.writer_seconds)
    print(f"{n:>6} employees ({engine.dialect.name}; enrolled in {setup:.1f} s)")
    print(f"   identify, known card      {summary(known)}")
    print(f"   identify, unknown card    {summary(unknown)}")
    print(f"   identify + PIN (scrypt)   {summary(with_pin)}")
    print(f"   check (identify+authority, no PIN) {summary(check)}")
    print(f"   a write transaction alone:                        {summary(alone)}")
    print(f"   ... while unknown swipes are identified without pause: {summary(waits)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--employees", type=int, nargs="+", default=[10, 10_000])
    ap.add_argument("--swipes", type=int, default=200)
    ap.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite files)")
    ap.add_argument("--legacy", type=int, default=0)
    ap.add_argument("--writer-seconds", type=float, default=5.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.employees:
            engine = fresh_engine(args.db, Path(tmp), f"n{n}")
            key = cardkey.ephemeral()
            t0 = time.perf_counter()
            enroll(engine, key, n)
            setup = time.perf_counter() - t0
            measure(engine, key, n, setup, args)
            engine.dispose()
        if args.legacy:
            engine = fresh_engine(args.db, Path(tmp), "legacy")
            seconds = legacy(engine, args.legacy)
            print(f"legacy: an unknown card against {args.legacy} PBKDF2 enrolments from before "
                  f"the card key: {seconds:.2f} s")
            engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
