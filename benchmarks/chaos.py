"""Chaos: simulated tables played through a proxy that damages the protocol, against a real
console and ledger, then the ledger compared with what the tables did (docs/protocol.md, "Chaos").

Each table (``SimulatedTable``, stepped as fast as the console takes its events: a table deals on
while fewer than ``--in-flight`` of its events wait for their ACK, so that a wait measures the
protocol and the console, not a queue the run itself built up; with dealer mistakes, misdeals
and stacked jackpot rounds so that PAY, REJECT, UNDO and MISDEAL all happen)
is reached through its own ``core.controllers.chaos.ChaosProxy``, which drops, duplicates,
reorders, corrupts (flips a byte), truncates frames and cuts the connection, both ways.  The
console is ``ConsoleCore`` as ``podium console`` runs it (links, ledger writer), on a fresh
SQLite ledger or a fresh schema of a PostgreSQL database (``--db``); a thread stands in for the
supervisors (a flagged hit is rejected, a payable one paid with an Executive swipe).  When every
table has played ``--events`` events, the run waits until every event is acknowledged, then
prints:

- events, frames relayed, faults injected by kind, reconnects, retransmissions, GONE answers;
- lost: events a table generated that the ledger holds neither recorded nor refused;
- duplicated: a (table, boot, round) recorded twice, or an event both recorded and refused;
- accepted corrupt: ledger rows that are not, byte for byte, an event a table generated;
- refused: events the ledger refused (none is expected: the tables play by the rules);
- PAYs: each applied once by its table, for the amount of the ledger's award;
- longest stall per table: the longest an event waited from its emission to its ACK, beside
  the retransmit timer plus the longest reconnect backoff, and the median and 99th percentile of
  that wait over all events.

Unless ``--no-baseline``, the same run is made first without any fault, on a ledger of its own,
so that the stalls the faults cause can be told from the console's own latency on the machine.

``--chunk-faults RATE`` damages the raw TCP stream instead of the frames: each chunk the proxy
reads is dropped (RATE / 2) or has one byte flipped (RATE / 2), whatever it holds (under TLS: the
handshake's records and the encrypted frames).  The links then run with the console's own
heartbeat and backoff (``ControllerLink``'s defaults: reconnect after 1 s doubling to 30 s,
connect timeout 5 s), and the report adds how long the tables were OFFLINE: the intervals from
a link going down (after it first came up) to its next ONLINE, their table-seconds, the longest,
how many ended in a refusal, and the commonest causes.  ``--tls`` runs the links over mutual TLS
(certificates of a CA made for the run), ``--plain-and-tls`` runs both one after the other.

    .venv/bin/python benchmarks/chaos.py [--tables 8] [--events 500] [--seed 1]
        [--retransmit 0.2] [--db postgresql+psycopg://postgres@127.0.0.1:5432/test]
    .venv/bin/python benchmarks/chaos.py --chunk-faults 0.04 --plain-and-tls --no-baseline
        [--tables 12] [--events 400] [--step-interval 0.1]

``tests/core/controllers/test_chaos.py`` runs :func:`run_chaos` with fewer events on both databases.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import logging
import re
import secrets
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, create_engine, func, select, text  # noqa: E402

from core.app.console import ConsoleCore  # noqa: E402
from core.app.demo import SimulatorThread, enroll_demo_employees, swipe_of  # noqa: E402
from core.controllers import certs, tls  # noqa: E402
from core.controllers.chaos import FAULT_KINDS, ChaosProxy, FaultRates  # noqa: E402
from core.controllers.frames import Command, PayConfirmed  # noqa: E402
from core.controllers.link import ControllerLink  # noqa: E402
from core.controllers.simulator import SimulatedTable  # noqa: E402
from core.floorconfig import loads_floor  # noqa: E402
from core.ledger.balance_checks import check_balances  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.ledger.models import Award, Hit, RefusedEvent, Round  # noqa: E402
from core.ledger.models import ControllerEvent as EventRow  # noqa: E402
from core.tablegames.ingest.events import payload  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402
from core.tablegames.views import AmountChanged, FloorError  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402

EXECUTIVE = swipe_of("2001")
# what a console's links run with (--chunk-faults: the timers and backoff the TLS handshakes meet)
LINK_DEFAULTS = {name: p.default for name, p in inspect.signature(ControllerLink).parameters.items()
                 if name in ("heartbeat", "retransmit", "reconnect_delay", "max_reconnect_delay")}
DEFAULT_RATES = FaultRates(drop=0.02, duplicate=0.02, reorder=0.02, corrupt=0.02,
                           truncate=0.01, disconnect=0.002)


@dataclass
class ChaosReport:
    tables: int
    events: int
    seconds: float
    finished: bool  # every event acknowledged before the guard ran out
    frames: int
    faults: dict[str, int]
    reconnects: int
    retransmissions: int
    gone: int
    lost: list[tuple[str, str, int]]
    duplicated: list[str]
    corrupt_accepted: list[str]
    refused: list[str]
    pays: int
    pay_problems: list[str]
    longest_stall: dict[str, float]
    waits: list[float]  # every event's wait from emission to ACK, sorted
    retransmit: float
    max_backoff: float
    balance_problems: list[str] = field(default_factory=list)
    transport: str = "plain TCP"
    # (table, seconds, the detail it went down with, whether that was a refusal) of each OFFLINE
    # interval after the table first came ONLINE; None: not measured
    offline: list[tuple[str, float, str, bool]] | None = None

    def lines(self) -> list[str]:
        faults = ", ".join(f"{k} {self.faults.get(k, 0)}" for k in FAULT_KINDS)
        worst = max(self.longest_stall.values(), default=0.0)
        out = [
            f"tables {self.tables}, events {self.events} in {self.seconds:.1f} s "
            f"({self.events / max(self.seconds, 1e-9):.0f}/s), finished: {self.finished}",
            f"frames relayed {self.frames}; faults injected: {faults} "
            f"(total {sum(self.faults.values())})",
            f"reconnects {self.reconnects}, events retransmitted {self.retransmissions}, "
            f"GONE {self.gone}",
            f"lost {len(self.lost)}, duplicated {len(self.duplicated)}, accepted corrupt "
            f"{len(self.corrupt_accepted)}, refused {len(self.refused)}",
            f"PAYs applied {self.pays}, PAY problems {len(self.pay_problems)}, meter balance "
            f"problems {len(self.balance_problems)}",
            f"longest stall per table (event emitted -> ACK), retransmit timer "
            f"{self.retransmit:g} s + longest reconnect backoff {self.max_backoff:g} s = "
            f"{self.retransmit + self.max_backoff:g} s:",
        ]
        out += [f"  {t}: {s:.2f} s" for t, s in sorted(self.longest_stall.items())]
        out.append(f"  worst {worst:.2f} s; every event: median {_quantile(self.waits, 0.5):.3f} "
                   f"s, p99 {_quantile(self.waits, 0.99):.3f} s")
        if self.offline is not None:
            out += self.offline_lines()
        for name, items in (("LOST", self.lost), ("DUPLICATED", self.duplicated),
                            ("CORRUPT", self.corrupt_accepted), ("REFUSED", self.refused),
                            ("PAY", self.pay_problems), ("BALANCE", self.balance_problems)):
            out += [f"  {name}: {item}" for item in items[:10]]
        return out


    def offline_lines(self) -> list[str]:
        offline = self.offline or []
        seconds = sorted(d for _, d, _, _ in offline)
        causes = Counter(_cause(detail) for _, _, detail, _ in offline)
        out = [f"OFFLINE ({self.transport}): {len(offline)} intervals, "
               f"{sum(seconds):.1f} table-seconds of {self.tables * self.seconds:.0f}, longest "
               f"{max(seconds, default=0.0):.1f} s, median {_quantile(seconds, 0.5):.1f} s, "
               f"p90 {_quantile(seconds, 0.9):.1f} s; ended in a refusal: "
               f"{sum(1 for *_, refused in offline if refused)}"]
        out += [f"  {n} x {cause}" for cause, n in causes.most_common(6)]
        return out


def _cause(detail: str) -> str:
    """A status detail without its address (one cause for every table)."""
    return re.sub(r"127\.0\.0\.1:\d+", "HOST:PORT", detail)


def _quantile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


class _Tables:
    """The simulated tables, each behind its chaos proxy, played on the simulator thread's loop
    until each has emitted ``target`` events."""

    def __init__(self, sims: list[SimulatedTable], rates: FaultRates, seed: int, target: int,
                 step_interval: float, in_flight: int, chunks: bool = False) -> None:
        self.sims = sims
        self.rates = rates
        self.chunks = chunks
        self.seed = seed
        self.target = target
        self.step_interval = step_interval
        self.in_flight = in_flight
        self.proxies: dict[str, ChaosProxy] = {}
        self.played = 0
        self._players: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        for sim in self.sims:
            await sim.start()
            proxy = ChaosProxy("127.0.0.1", sim.port, self.rates,
                               seed=f"{self.seed}/{sim.table_id}", chunks=self.chunks)
            await proxy.start()
            self.proxies[sim.table_id] = proxy

    def play(self) -> None:
        """Start dealing (on the loop)."""
        self._players = [asyncio.get_running_loop().create_task(self._play(sim))
                         for sim in self.sims]

    async def _play(self, sim: SimulatedTable) -> None:
        while len(sim.history) < self.target:
            if sim.unacknowledged >= self.in_flight:
                await asyncio.sleep(self.step_interval)
                continue
            dealt = sim.step()  # [] while the table waits for the console's PAY / REJECT
            await asyncio.sleep(self.step_interval if dealt else self.step_interval * 5)
        self.played += 1

    async def stop(self) -> None:
        for task in self._players:
            task.cancel()
        for task in self._players:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for proxy in self.proxies.values():
            await proxy.stop()
        for sim in self.sims:
            await sim.stop()


def _floor_toml(ports: dict[str, int], console: tls.TlsFiles | None = None) -> str:
    # plain TCP unless told: the proxy damages the protocol's own frames (under TLS every damaged
    # byte is a connection the TLS layer drops, which the disconnects cover)
    link = ('[controller_link]\ntransport = "plain-lab-only"\n' if console is None else
            f'[controller_link]\nca = "{console.ca}"\ncert = "{console.cert}"\n'
            f'key = "{console.key}"\n')
    lines = ['[casino]\nname = "Chaos Casino"\ntimezone = "Asia/Manila"\n',
             '[authorization]\nexecutive_threshold = "5000.00"\npin = "none"\n'
             'separate_verifier_at = "1000000000.00"\n',
             link,
             '[[groups]]\nid = "LINK"\npaytable = "FPGPP-WA01"\n',
             '[groups.levels.MAIN]\nseed = "10000.00"\ncontribution_rate = "0.20"\n'
             'reserve_rate = "0.02"\npreconfigured_rate = "0.20"\n'
             'preconfigured_seed = "10000.00"\n']
    for tid, port in ports.items():
        lines.append(f'[[tables]]\nid = "{tid}"\ngroup = "LINK"\nhost = "127.0.0.1"\n'
                     f"port = {port}\n")
    return "\n".join(lines)


def _decide(console: ConsoleCore, h: Any) -> None:
    """The supervisors: reject a flagged hit (a dealer's mistake, which the table may undo
    meanwhile), pay a payable one."""
    floor = console.floor
    try:
        if h.flags or len(h.cards) != 7:
            floor.reject(h.hit_id, "chaos: flagged or no cards", EXECUTIVE)
            return
        v = floor.evaluate(h.hit_id, list(h.cards))
        if v.pay_hand is None or not v.payable:
            if any("first" in p for p in v.problems):
                return  # another seat of the round is paid first
            floor.reject(h.hit_id, "chaos: pays nothing", EXECUTIVE)
            return
        floor.pay(h.hit_id, list(h.cards), EXECUTIVE, expected_cents=v.amount_cents)
    except (AmountChanged, FloorError):
        return  # decided meanwhile, or the meter moved: seen again at the next look


def run_chaos(engine: Engine, *, tables: int = 4, events: int = 150, seed: int = 1,
              rates: FaultRates = DEFAULT_RATES, retransmit: float = 0.2,
              heartbeat: float = 0.5, reconnect_delay: float = 0.05,
              max_reconnect_delay: float = 0.2, step_interval: float = 0.002,
              in_flight: int = 8, guard: float = 300.0, certs_folder: Path | None = None,
              chunks: bool = False) -> ChaosReport:
    """Play ``tables`` tables of ``events`` events each through chaos proxies into the ledger
    of ``engine`` (migrated), wait (at most ``guard`` seconds) until every event is
    acknowledged, and compare.  ``certs_folder`` (a ``podium certs`` folder with the tables'
    certificates): the links run over TLS.  ``chunks``: the faults hit raw chunks, not frames."""
    paytable = load_paytables()["FPGPP-WA01"]
    ids = [f"C{i}" for i in range(1, tables + 1)]
    sims = [SimulatedTable(tid, paytable, port=0, seed=seed * 1000 + i, speed=0,
                           mistake_rate=0.05, jackpot_rate=0.05, heartbeat=heartbeat,
                           retransmit=retransmit,
                           tls=None if certs_folder is None else
                           tls.controller_context(certs.table_files(certs_folder, tid)))
            for i, tid in enumerate(ids, 1)]
    applied: list[tuple[str, str, int]] = []  # (table, hit_ref, cents) of each PAY applied
    for sim in sims:
        resolve = sim.resolve

        def recording(command: Command, sim: SimulatedTable = sim,
                      resolve: Any = resolve) -> tuple[str, str]:
            fresh = command.hit_ref not in sim.decisions
            result: tuple[str, str] = resolve(command)
            if result[0] == "ok" and fresh and isinstance(command, PayConfirmed):
                applied.append((sim.table_id, command.hit_ref, command.amount_cents))
            return result

        sim.resolve = recording  # type: ignore[method-assign]
    floor_tables = _Tables(sims, rates, seed, events, step_interval, in_flight, chunks)
    thread = SimulatorThread(floor_tables)
    thread.start()
    config = loads_floor(_floor_toml({t: p.port for t, p in floor_tables.proxies.items()},
                                     None if certs_folder is None else
                                     certs.console_files(certs_folder)), "chaos.toml")
    enroll_demo_employees(engine)
    console = ConsoleCore(engine, config, load_paytables(), link_options={
        "heartbeat": heartbeat, "reconnect_delay": reconnect_delay,
        "max_reconnect_delay": max_reconnect_delay, "retransmit": retransmit}, paper=PAPER)
    statuses: list[tuple[float, str, bool, str]] = []  # (time, table, online, detail)

    def status(table: str) -> None:
        online, detail = console.link_status()[table]
        statuses.append((time.monotonic(), table, online, detail))

    console.add_status_listener(status)
    started = time.monotonic()
    finished = False
    try:
        console.start()
        thread.call(floor_tables.play)

        def settled() -> bool:
            return bool(floor_tables.played == tables
                        and all(s.unacknowledged == 0 for s in sims))

        deadline = started + guard
        while time.monotonic() < deadline:
            for h in console.floor.snapshot().pending:
                _decide(console, h)
            if thread.call(settled):
                finished = True
                break
            time.sleep(0.02)
    finally:
        ended = time.monotonic()
        seconds = ended - started
        console.stop()
        history = thread.call(lambda: [f for s in sims for f in s.history])
        thread.stop()
    with engine.connect() as c:
        rows = list(c.execute(select(EventRow.table_id, EventRow.boot, EventRow.seq,
                                     EventRow.type, EventRow.payload)))
        refused_rows = list(c.execute(select(RefusedEvent.table_id, RefusedEvent.boot,
                                             RefusedEvent.seq, RefusedEvent.type,
                                             RefusedEvent.reason)))
        rounds_twice = list(c.execute(
            select(Round.table_id, Round.boot, Round.round_no, func.count())
            .group_by(Round.table_id, Round.boot, Round.round_no).having(func.count() > 1)))
        awards = {(t, f"{b}:{q}"): cents for cents, t, b, q in c.execute(
            select(Award.amount_cents, EventRow.table_id, EventRow.boot, EventRow.seq)
            .join(Hit, Hit.id == Award.hit_id).join(EventRow, EventRow.id == Hit.event_id))}
    sent = {(f.origin.table, f.origin.boot, f.origin.seq):
            (type(f.event).__name__, payload(f.event)) for f in history}
    recorded = {(t, b, q): (kind, body) for t, b, q, kind, body in rows}
    refused = {(t, b, q): (kind, reason) for t, b, q, kind, reason in refused_rows}
    lost = sorted(k for k in sent if k not in recorded and k not in refused)
    duplicated = [f"round {t}/{b}/{r} recorded {n} times" for t, b, r, n in rounds_twice]
    duplicated += [f"{k} both recorded and refused" for k in sorted(set(recorded) & set(refused))]
    corrupt = [f"{k}: {v}" for k, v in sorted(recorded.items()) if sent.get(k) != v]
    corrupt += [f"refused {k} ({v[0]}), not an event a table sent" for k, v in
                sorted(refused.items()) if k not in sent or sent[k][0] != v[0]]
    pay_problems = [f"{t} {ref}: PAY applied for {cents}, the ledger's award is "
                    f"{awards.get((t, ref))}" for t, ref, cents in applied
                    if awards.get((t, ref)) != cents]
    twice = [k for k, n in Counter((t, ref) for t, ref, _ in applied).items() if n > 1]
    pay_problems += [f"{k} PAY applied twice" for k in twice]
    waits = {sim.table_id: [sim.acked_at[k] - sim.emitted_at[k] for k in sim.acked_at
                            if k in sim.emitted_at] for sim in sims}
    stalls = {t: max(w, default=0.0) for t, w in waits.items()}
    faults: Counter[str] = Counter()
    frames = 0
    for proxy in floor_tables.proxies.values():
        faults.update(proxy.faults)
        frames += sum(proxy.frames.values())
    return ChaosReport(
        tables=tables, events=len(sent), seconds=seconds, finished=finished, frames=frames,
        faults=dict(faults), reconnects=sum(s.connections for s in sims) - tables,
        retransmissions=sum(s.retransmissions for s in sims),
        gone=sum(s.gone_sent for s in sims), lost=lost, duplicated=duplicated,
        corrupt_accepted=corrupt,
        refused=[f"{k}: {kind}: {reason}" for k, (kind, reason) in sorted(refused.items())],
        pays=len(applied), pay_problems=pay_problems, longest_stall=stalls,
        waits=sorted(w for ws in waits.values() for w in ws), retransmit=retransmit,
        max_backoff=max_reconnect_delay,
        balance_problems=[str(p) for p in check_balances(engine)],
        transport="plain TCP" if certs_folder is None else "mutual TLS",
        offline=_offline_intervals(statuses, ended))


def _offline_intervals(statuses: list[tuple[float, str, bool, str]], ended: float,
                       ) -> list[tuple[str, float, str, bool]]:
    """Each table's OFFLINE intervals after it first came ONLINE, until ``ended``: (table,
    seconds, the detail it went down with, whether a refusal came before it was back)."""
    out = []
    down: dict[str, tuple[float, str, bool]] = {}  # table -> (since, first detail, refused)
    seen: set[str] = set()
    for at, table, online, detail in statuses:
        if at > ended:
            break
        if online:
            seen.add(table)
            if table in down:
                since, first, refused = down.pop(table)
                out.append((table, at - since, first, refused))
        elif table in seen:
            since, first, refused = down.get(table, (at, detail, False))
            down[table] = (since, first, refused or detail.startswith(("TLS refused",
                                                                        "HELLO refused")))
    out += [(table, ended - since, first, refused)
            for table, (since, first, refused) in down.items()]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--events", type=int, default=500, help="events per table (default 500)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--retransmit", type=float, default=0.2,
                    help="retransmit interval in seconds, both sides (default 0.2)")
    ap.add_argument("--in-flight", type=int, default=8,
                    help="a table deals on while fewer of its events wait for an ACK (default 8)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the run without faults made first for comparison")
    ap.add_argument("--db", default=None,
                    help="a PostgreSQL URL (a fresh schema is made and dropped); default: a "
                         "fresh SQLite file")
    ap.add_argument("--chunk-faults", type=float, default=None, metavar="RATE",
                    help="damage raw TCP chunks instead of frames: RATE/2 dropped, RATE/2 with a "
                         "byte flipped; the links keep the console's own timers")
    ap.add_argument("--tls", action="store_true", help="the links over mutual TLS")
    ap.add_argument("--plain-and-tls", action="store_true",
                    help="run plain TCP, then mutual TLS")
    ap.add_argument("--step-interval", type=float, default=0.002,
                    help="seconds between a table's steps (default 0.002: as fast as it can)")
    ap.add_argument("--guard", type=float, default=300.0,
                    help="seconds a run may take before it is reported unfinished (default 300)")
    args = ap.parse_args(argv)
    # the faults make every side log what it refused: only errors are worth a line here
    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    where = "PostgreSQL" if args.db else "SQLite"
    options: dict[str, Any] = {"retransmit": args.retransmit}
    rates = DEFAULT_RATES
    if args.chunk_faults is not None:
        rates = FaultRates(drop=args.chunk_faults / 2, corrupt=args.chunk_faults / 2)
        options = {**LINK_DEFAULTS, "chunks": True}
    ok = True
    for secure in ([False, True] if args.plain_and_tls else [args.tls]):
        runs = [("without faults", FaultRates())] if not args.no_baseline else []
        runs.append(("chaos", rates))
        for name, run_rates in runs:
            report = _run_on_fresh_ledger(args.db, secure, tables=args.tables,
                                          events=args.events, seed=args.seed, rates=run_rates,
                                          in_flight=args.in_flight, guard=args.guard,
                                          step_interval=args.step_interval, **options)
            print(f"{name} on {where}, {report.transport}, seed {args.seed}")
            for line in report.lines():
                print(line)
            print()
            ok = ok and (report.finished and not report.lost and not report.duplicated
                         and not report.corrupt_accepted and not report.pay_problems)
    return 0 if ok else 1


def _run_on_fresh_ledger(db: str | None, secure: bool, **options: Any) -> ChaosReport:
    with tempfile.TemporaryDirectory() as tmp:
        if secure:  # a CA of the run's own, a certificate for each table and the console
            folder = Path(tmp) / "pki"
            certs.init(folder, [f"C{i}" for i in range(1, options["tables"] + 1)],
                       organization="Chaos Casino")
            options["certs_folder"] = folder
        schema = None
        if db:
            schema = f"chaos_{secrets.token_hex(4)}"
            admin = create_engine(db)
            with admin.begin() as c:
                c.execute(text(f'CREATE SCHEMA "{schema}"'))
            engine = make_engine(db, connect_args={"options": f"-csearch_path={schema}"})
        else:
            engine = make_engine(f"sqlite:///{Path(tmp) / 'chaos.sqlite3'}")
        try:
            upgrade(engine)
            return run_chaos(engine, **options)
        finally:
            engine.dispose()
            if schema is not None:
                with admin.begin() as c:
                    c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
                admin.dispose()


if __name__ == "__main__":
    sys.exit(main())
