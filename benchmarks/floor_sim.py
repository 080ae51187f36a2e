"""The simulator side of the floor-scale benchmark: many simulated tables, every frame recorded.

Run as a subprocess by the benchmark::

    .venv/bin/python benchmarks/floor_sim.py --floor FILE --speed 10 --seconds S --drain D \
        --seed N --record OUT.json [--mistake-rate 0.02] [--jackpot-rate 0.0] [--stagger]
        [--hold]

It loads the floor (:func:`write_floor` makes one), builds its tables with
``core.controllers.sim_floor.build_simulator`` and serves them all on one asyncio loop (uvloop
if it is installed), over TLS with the certificates beside the floor's ``controller_link.ca``,
or plain TCP where the floor says ``plain-lab-only``.  Once every table listens it prints
``SIM READY <n> tables`` (flushed).  (With ``--hold`` the tables then wait, connected but
dealing nothing, until the process gets SIGUSR1.)  For ``--seconds`` the tables play; then no
table starts a new round, but a table finishes the round it is in (it still takes PAY/REJECT
and sends END GAME), and all keep serving for ``--drain`` more seconds so that outstanding
events can be acknowledged.  Then the record is written to ``--record`` (atomically) and the
process exits 0.  SIGTERM or SIGINT ends it early: the record is written the same way, with
``"end": "SIGTERM"`` (or ``"SIGINT"``).

Record format (JSON; wall times are ``time.time()`` seconds, money is int cents)::

    {
      "version": 1,
      "floor": "path/to/floor.toml", "seed": 1, "speed": 10.0, "seconds": 60.0,
      "drain": 15.0, "mistake_rate": 0.02, "jackpot_rate": 0.0, "stagger": false,
      "started_at": t,              # before the servers were started
      "ready_at": t,                # every server listens (SIM READY printed)
      "play_at": t,                 # play began: ready_at, or SIGUSR1 with --hold
      "no_new_rounds_at": t | null, # --seconds elapsed (null: ended by a signal first)
      "ended_at": t, "end": "completed" | "SIGTERM" | "SIGINT",
      "process": {"cpu_user_s": 1.2, "cpu_system_s": 0.3, "max_rss_kb": 81234,
                  "loop_lag_max_s": 0.004, "loop_lag_mean_s": 0.0006},
      "tables": {
        "T001": {
          "boot": "a1b2c3d4e5f6", "group": "L001", "paytable": "FPGPP-WA01", "port": 20000,
          "start_delay": 0.0,            # seconds before its first round (--stagger)
          "connections": 1,              # console connections accepted
          "connected_at": [t, ...],      # when each was accepted
          "rounds": 12,                  # rounds started (the last round_no)
          "phase": "idle",               # at the end: idle | started | waiting
          "open_hits": 0, "unacked": 0,  # at the end
          "events": [                    # every event frame, by seq
            {"seq": 1, "type": "GameStarted",      # GameStarted|HitClaimed|GameEnded|Undone|
                                                   # Misdealt
             "payload": {"round_no": 1, "wagers": {"2": 100, "5": 100}},
             # HitClaimed: {"round_no", "seat", "hand", "cards": ["Ah", ...]}
             # Undone: {"round_no", "what": "START_GAME"|"HIT", "seat": int|null}
             # GameEnded, Misdealt: {"round_no"}
             "emitted_at": t,
             "sent_at": t,          # first written to the wire; the emit time if the table
                                    # was not connected when it emitted the event
             "acked_at": t | null,  # first ACK received (null: never acknowledged)
             "ack_result": "ok" | "refused" | null, "ack_reason": "",
             "transmissions": 1}    # times written to the wire (0: never)
          ],
          "commands": [             # every PAY/REJECT the console sent, in order
            {"at": t, "command": "PAY" | "REJECT", "hit_ref": "<boot>:<seq>",
             "round_no": 1, "seat": 5, "decision": "paid" | "rejected",
             "amount_cents": 123400,        # 0 for a REJECT
             "result": "ok" | "refused", "reason": "",
             "applied": true}       # this command decided the hit (false: refused, or a
                                    # repeat of a decision already taken)
          ]
        }
      }
    }

The analysis functions (:func:`ack_latencies`, :func:`lost`, :func:`retransmitted`,
:func:`reconnects`, :func:`expected_contributions`, :func:`paid_cents`) are pure: they read
a record (and the floor configuration) and never touch a database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import floorconfig
from core.controllers.events import (  # noqa: E402
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Undone,
)
from core.controllers.frames import (  # noqa: E402
    Ack,
    Command,
    EventFrame,
    Frame,
    PayConfirmed,
    ProtocolError,
)
from core.controllers.sim_floor import build_simulator  # noqa: E402
from core.controllers.simulator import PHASE_SECONDS, SimulatedTable  # noqa: E402
from core.floorconfig import FloorConfig  # noqa: E402
from core.kernel.money import cents_to_units  # noqa: E402
from core.tablegames.meters import arithmetic as meters  # noqa: E402

RECORD_VERSION = 1
WA01 = "FPGPP-WA01"
ML2 = "FPGPP-ML2"
LAG_INTERVAL = 0.05  # seconds between event-loop lag samples

log = logging.getLogger("podium.floor_sim")


# --------------------------------------------------------------------------- the floor file

_LEVELS: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    # paytable -> (level, seed, contribution_rate, reserve_rate); ML2 as in the demo floor
    WA01: (("MAIN", "10000.00", "0.20", "0.02"),),
    ML2: (("MEGA", "25000.00", "0.06", "0.01"),
          ("MAJOR", "2500.00", "0.05", "0.01"),
          ("MINOR", "500.00", "0.10", "0.01")),
}


def write_floor(path: str | os.PathLike[str], tables: int, base_port: int,
                tables_per_group: int = 10, *, certs: str | os.PathLike[str] | None) -> None:
    """Write a floor TOML: tables T001..TNNN on 127.0.0.1 ports ``base_port``.., linked in
    groups L001.. of ``tables_per_group`` tables; groups alternate FPGPP-WA01 (MAIN) and
    FPGPP-ML2 (MEGA/MAJOR/MINOR).  The controller link is TLS with the certificates of the
    folder ``certs`` (``podium certs init`` layout, :func:`table_ids` of the floor), or plain
    TCP (``plain-lab-only``) when ``certs`` is None."""
    if tables < 1:
        raise ValueError(f"tables: {tables} must be at least 1")
    if tables_per_group < 1:
        raise ValueError(f"tables_per_group: {tables_per_group} must be at least 1")
    if base_port < 1 or base_port + tables - 1 > 65535:
        raise ValueError(f"base_port: {base_port}..{base_port + tables - 1} are not all TCP "
                         "ports")
    n_groups = -(-tables // tables_per_group)
    gwidth = max(3, len(str(n_groups)))
    lines = [
        f"# A generated floor of {tables} simulated tables (benchmarks/floor_sim.py).",
        "",
        "[casino]",
        'name = "Podium Floor Benchmark"',
        'timezone = "Asia/Manila"',
        'currency_symbol = "$"',
        "",
        "[authorization]",
        'executive_threshold = "5000.00"',
        'pin = "none"  # the simulated executive swipes without a PIN',
        'separate_verifier_at = "1000000000.00"',
        "",
        "[printer]",
        'kind = "file"',
        'directory = ""',
        "",
        "[controller_link]",
    ]
    if certs is None:
        lines.append('transport = "plain-lab-only"')
    else:
        folder = Path(certs).resolve()
        lines += [f'ca = "{folder / "ca.pem"}"', f'cert = "{folder / "consoles/console.pem"}"',
                  f'key = "{folder / "consoles/console.key"}"']
    group_ids: list[str] = []
    for g in range(n_groups):
        gid = f"L{g + 1:0{gwidth}d}"
        group_ids.append(gid)
        paytable = WA01 if g % 2 == 0 else ML2
        lines += [
            "",
            "[[groups]]",
            f'id = "{gid}"',
            f'name = "Link {gid}"',
            f'paytable = "{paytable}"',
            "decks = 1",
            "lock_at_hit = false",
            'pay_order = "right_first"',
            "all_pays_from_meter = false",
        ]
        for level, seed, rate, reserve in _LEVELS[paytable]:
            lines += [
                "",
                f"[groups.levels.{level}]",
                f'seed = "{seed}"',
                f'contribution_rate = "{rate}"',
                f'reserve_rate = "{reserve}"',
                f'preconfigured_rate = "{rate}"',
                f'preconfigured_seed = "{seed}"',
            ]
    for i, tid in enumerate(table_ids(tables)):
        lines += [
            "",
            "[[tables]]",
            f'id = "{tid}"',
            f'name = "Table {i + 1}"',
            f'group = "{group_ids[i // tables_per_group]}"',
            'host = "127.0.0.1"',
            f"port = {base_port + i}",
            "seats = 6",
            "decks = 1",
        ]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def table_ids(tables: int) -> list[str]:
    """The table ids of a floor of :func:`write_floor`: T001..TNNN."""
    width = max(3, len(str(tables)))
    return [f"T{i + 1:0{width}d}" for i in range(tables)]


# --------------------------------------------------------------------------- instrumentation

@dataclass(slots=True)
class EventRecord:
    seq: int
    type: str
    payload: dict[str, Any]
    emitted_at: float
    sent_at: float
    acked_at: float | None = None
    ack_result: str | None = None
    ack_reason: str = ""

    def as_json(self, transmissions: int) -> dict[str, Any]:
        return {"seq": self.seq, "type": self.type, "payload": self.payload,
                "emitted_at": self.emitted_at, "sent_at": self.sent_at,
                "acked_at": self.acked_at, "ack_result": self.ack_result,
                "ack_reason": self.ack_reason, "transmissions": transmissions}


def event_payload(event: ControllerEvent) -> dict[str, Any]:
    """What the record keeps of an event (JSON-ready: seats as string keys of ``wagers``)."""
    if isinstance(event, GameStarted):
        return {"round_no": event.round_no,
                "wagers": {str(s): c for s, c in sorted(event.wagers.items())}}
    if isinstance(event, HitClaimed):
        return {"round_no": event.round_no, "seat": event.seat, "hand": event.hand,
                "cards": [str(c) for c in event.cards]}
    if isinstance(event, Undone):
        return {"round_no": event.round_no, "what": event.what, "seat": event.seat}
    if isinstance(event, GameEnded | Misdealt):
        return {"round_no": event.round_no}
    raise TypeError(f"not a controller event: {event!r}")


class RecordingTable(SimulatedTable):
    """A :class:`SimulatedTable` that records its event frames, their ACKs, the console's
    connections and its PAY/REJECT commands; and that can be told to start no new round.

    ``build_simulator`` makes plain tables: :meth:`adopt` turns one into a recording table
    (before it is started)."""

    rec_events: dict[int, EventRecord]
    rec_commands: list[dict[str, Any]]
    rec_connected_at: list[float]
    no_new_rounds: bool
    frozen: bool  # the record is written: the game does not move on (its events would be
    # missing from the record)
    start_delay: float  # seconds before the first round (--stagger)
    _rec_written_at: float | None

    @classmethod
    def adopt(cls, table: SimulatedTable) -> RecordingTable:
        if table._server is not None:
            raise ValueError(f"table {table.table_id}: adopt it before it is started")
        table.__class__ = cls
        recording = cast(RecordingTable, table)
        recording.rec_events = {}
        recording.rec_commands = []
        recording.rec_connected_at = []
        recording.no_new_rounds = False
        recording.frozen = False
        recording.start_delay = 0.0
        recording._rec_written_at = None
        return recording

    # The game: no new round once told so; the round in progress plays to its END GAME.
    def step(self) -> list[EventFrame]:
        if self.frozen or (self.no_new_rounds and self.phase == "idle"):
            return []
        return super().step()

    async def _pace(self) -> None:
        if self.start_delay > 0:
            await asyncio.sleep(self.start_delay)
        await super()._pace()

    def _emit(self, event: ControllerEvent) -> EventFrame:
        now = time.time()
        connected = self.connected
        self._rec_written_at = None
        frame = super()._emit(event)  # writes it at once when connected
        written = self._rec_written_at if connected else None
        self.rec_events[frame.origin.seq] = EventRecord(
            frame.origin.seq, type(event).__name__, event_payload(event), now,
            written if written is not None else now)
        return frame

    def _write(self, frame: Frame) -> None:
        if not isinstance(frame, EventFrame):
            super()._write(frame)
            return
        seq = frame.origin.seq
        before = self.transmissions[seq]
        now = time.time()
        super()._write(frame)
        if self.transmissions[seq] > before and seq not in self.rec_events:
            self._rec_written_at = now  # the first write, from inside _emit

    def _handle(self, item: Frame | ProtocolError) -> None:
        now = time.time()
        super()._handle(item)
        if isinstance(item, Ack) and item.boot == self.boot:
            rec = self.rec_events.get(item.seq)
            result = self.ack_results.get(item.seq)
            if rec is not None and rec.acked_at is None and result is not None:
                rec.acked_at = now
                rec.ack_result, rec.ack_reason = result

    def resolve(self, command: Command) -> tuple[str, str]:
        decided = len(self.decisions)
        result, reason = super().resolve(command)
        applied = result == "ok" and len(self.decisions) > decided
        ref = next(reversed(self.decisions)) if applied else command.hit_ref
        pay = isinstance(command, PayConfirmed)
        self.rec_commands.append({
            "at": time.time(), "command": "PAY" if pay else "REJECT", "hit_ref": ref,
            "round_no": command.round_no, "seat": command.seat,
            "decision": "paid" if pay else "rejected",
            "amount_cents": command.amount_cents if isinstance(command, PayConfirmed) else 0,
            "result": result, "reason": reason, "applied": applied})
        return result, reason

    async def _on_client(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> None:
        self.rec_connected_at.append(time.time())
        try:
            await super()._on_client(reader, writer)
        except asyncio.CancelledError:
            # stop() cancels the handler after closing the server; Python 3.11's
            # start_server would log a cancelled handler as an "Exception in callback".
            if self._server is not None:
                raise

    def record(self, config: FloorConfig) -> dict[str, Any]:
        group = config.group_of(self.table_id)
        return {
            "boot": self.boot, "group": group.id, "paytable": self.paytable_id,
            "port": self.port, "start_delay": self.start_delay,
            "connections": self.connections,
            "connected_at": list(self.rec_connected_at), "rounds": self.round_no,
            "phase": self.phase, "open_hits": len(self.open_hits), "unacked": len(self.outbox),
            "events": [self.rec_events[s].as_json(self.transmissions[s])
                       for s in sorted(self.rec_events)],
            "commands": list(self.rec_commands),
        }


# --------------------------------------------------------------------------- running

@dataclass
class LoopLag:
    """How late the event loop wakes a sleeper (the simulator's own saturation)."""

    samples: int = 0
    total: float = 0.0
    worst: float = 0.0

    async def watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(LAG_INTERVAL)
            lag = max(0.0, loop.time() - t - LAG_INTERVAL)
            self.samples += 1
            self.total += lag
            self.worst = max(self.worst, lag)


@dataclass
class Run:
    args: argparse.Namespace
    config: FloorConfig
    tables: list[RecordingTable] = field(default_factory=list)
    started_at: float = 0.0
    ready_at: float | None = None
    play_at: float | None = None
    no_new_rounds_at: float | None = None
    end: str = "completed"
    lag: LoopLag = field(default_factory=LoopLag)

    def record(self) -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        a = self.args
        return {
            "version": RECORD_VERSION, "floor": str(a.floor), "seed": a.seed,
            "speed": a.speed, "seconds": a.seconds, "drain": a.drain,
            "mistake_rate": a.mistake_rate, "jackpot_rate": a.jackpot_rate,
            "stagger": a.stagger,
            "started_at": self.started_at, "ready_at": self.ready_at,
            "play_at": self.play_at,
            "no_new_rounds_at": self.no_new_rounds_at, "ended_at": time.time(),
            "end": self.end,
            "process": {"cpu_user_s": usage.ru_utime, "cpu_system_s": usage.ru_stime,
                        "max_rss_kb": usage.ru_maxrss, "loop_lag_max_s": self.lag.worst,
                        "loop_lag_mean_s": (self.lag.total / self.lag.samples
                                            if self.lag.samples else 0.0)},
            "tables": {t.table_id: t.record(self.config) for t in self.tables},
        }

    def write_record(self) -> None:
        out = Path(self.args.record)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(self.record(), separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, out)


async def _serve(run: Run) -> int:
    args = run.args
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_signal(sig: signal.Signals) -> None:
        if not stop.is_set():
            run.end = sig.name
            stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    go = asyncio.Event()
    loop.add_signal_handler(signal.SIGUSR1, go.set)

    async def until_stopped(seconds: float) -> bool:
        """Wait ``seconds``; True if a signal came first."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)
        return stop.is_set()

    sim = build_simulator(floor=run.config, speed=args.speed, seed=args.seed,
                          mistake_rate=args.mistake_rate, jackpot_rate=args.jackpot_rate,
                          heartbeat=args.heartbeat)
    run.tables = [RecordingTable.adopt(t) for t in sim.tables.values()]
    for t in run.tables:
        t.no_new_rounds = args.hold
    if args.stagger:
        cycle = sum(PHASE_SECONDS.values()) / args.speed
        for t in run.tables:
            t.start_delay = random.Random(f"{args.seed}/{t.table_id}/stagger").uniform(0, cycle)
    watcher = asyncio.create_task(run.lag.watch(), name="loop-lag")
    run.started_at = time.time()
    try:
        try:
            await sim.start()
        except OSError as exc:
            print(f"floor_sim: can not listen: {exc}", file=sys.stderr, flush=True)
            return 2
        run.ready_at = time.time()
        print(f"SIM READY {len(run.tables)} tables", flush=True)
        if args.hold:  # the tables listen, but deal no round before SIGUSR1
            waits = [asyncio.create_task(stop.wait()), asyncio.create_task(go.wait())]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for w in waits:
                w.cancel()
            for t in run.tables:
                t.no_new_rounds = False
        run.play_at = time.time()
        if not stop.is_set() and not await until_stopped(args.seconds):
            run.no_new_rounds_at = time.time()
            for t in run.tables:
                t.no_new_rounds = True
            await until_stopped(args.drain)
        for t in run.tables:  # a round still in play when the record is written stays as it is
            t.frozen = True
        run.write_record()
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        try:
            await asyncio.wait_for(sim.stop(), 30)
        except TimeoutError:
            log.warning("the tables did not all stop within 30 s")
    return 0


def _raise_fd_limit(needed: int) -> None:
    """One listening socket and one console connection per table, plus some spare."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        if target < needed:
            log.warning("open files limit %d is below the %d this floor needs", target, needed)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--floor", required=True, help="floor configuration TOML")
    ap.add_argument("--speed", type=float, default=10.0, help="table pace (1 = a round a minute)")
    ap.add_argument("--seconds", type=float, required=True,
                    help="seconds of play; then no table starts a new round")
    ap.add_argument("--drain", type=float, default=10.0,
                    help="seconds to keep serving after --seconds (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--record", required=True, help="where to write the JSON record")
    ap.add_argument("--mistake-rate", type=float, default=0.02)
    ap.add_argument("--jackpot-rate", type=float, default=0.0)
    ap.add_argument("--stagger", action="store_true",
                    help="delay each table's first round by a random part of one round (from "
                         "the seed) so the tables do not play in lockstep; without it every "
                         "table starts, deals and ends its rounds at the same moments")
    ap.add_argument("--hold", action="store_true",
                    help="listen, but deal no round before SIGUSR1; --seconds of play count "
                         "from then (the record's play_at)")
    ap.add_argument("--heartbeat", type=float, default=5.0, help="seconds (default 5)")
    ap.add_argument("--log-level", default="WARNING",
                    help="simulator log level on stderr (default WARNING; INFO logs every "
                         "event)")
    args = ap.parse_args(argv)
    if args.speed <= 0:
        ap.error(f"--speed: {args.speed} must be more than 0")
    if args.seconds < 0 or args.drain < 0:
        ap.error("--seconds and --drain must not be negative")
    if args.heartbeat <= 0:
        ap.error(f"--heartbeat: {args.heartbeat} must be more than 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    config = floorconfig.load_floor(args.floor)
    _raise_fd_limit(2 * len(config.tables) + 64)
    run = Run(args, config)
    try:
        import uvloop
    except ImportError:
        uvloop = None
    if uvloop is None:
        return asyncio.run(_serve(run))
    return cast(int, uvloop.run(_serve(run)))


# --------------------------------------------------------------------------- analysis

def _events(record: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for table_id, table in record["tables"].items():
        for event in table["events"]:
            yield table_id, event


def ack_latencies(record: Mapping[str, Any]) -> list[float]:
    """Seconds from each event's first send to its first ACK (events that got an ACK)."""
    return [e["acked_at"] - e["sent_at"] for _, e in _events(record)
            if e["acked_at"] is not None]


def lost(record: Mapping[str, Any]) -> int:
    """Events never acknowledged."""
    return sum(1 for _, e in _events(record) if e["acked_at"] is None)


def retransmitted(record: Mapping[str, Any]) -> int:
    """Events put on the wire more than once."""
    return sum(1 for _, e in _events(record) if e["transmissions"] > 1)


def reconnects(record: Mapping[str, Any]) -> int:
    """Console connections beyond each table's first."""
    return sum(max(0, t["connections"] - 1) for t in record["tables"].values())


def paid_cents(record: Mapping[str, Any]) -> int:
    """The PAY amounts the tables applied (a repeated or refused PAY counts nothing)."""
    return sum(int(c["amount_cents"]) for t in record["tables"].values()
               for c in t["commands"] if c["command"] == "PAY" and c["applied"])


def _level_settings(level: floorconfig.LevelConfig) -> meters.LevelSettings:
    # core/tablegames/setup.py keeps rates as ppm and builds Decimal(ppm) / 1_000_000: the
    # same value.
    return meters.LevelSettings(cents_to_units(level.seed_cents), level.contribution_rate,
                                level.reserve_rate)


def expected_contributions(record: Mapping[str, Any], config: FloorConfig,
                           paytables: Mapping[str, Any] | None = None,
                           ) -> dict[tuple[str, str], tuple[int, int]]:
    """Per (group id, level name): (meter, reserve) contributions in exact units that the
    ledger must hold for the rounds the console acknowledged "ok".

    Per table, the events ACKed "ok" are replayed in the order they were acknowledged (the
    order the console recorded them): a GameStarted opens its round with its acceptable
    wagers (a seat of the table, the paytable's wager); a MISDEAL or UNDO START_GAME of a
    round open at that point voids it.  Every wager of a round left open contributes to each
    level of its group exactly as ``core.tablegames.meters.arithmetic.contribute`` computes.
    ``paytables`` defaults to ``core.tablegames.rules.paytables.load_paytables()``.
    """
    if paytables is None:
        from core.tablegames.rules.paytables import load_paytables
        paytables = load_paytables()
    out = {(g.id, lv.name): (0, 0) for g in config.groups for lv in g.levels}
    wagers: Counter[tuple[str, int]] = Counter()  # (group, cents) -> wagers that count
    for table_id, table in record["tables"].items():
        tcfg = config.table(table_id)
        group = config.group(tcfg.group)
        wager_cents = paytables[tcfg.paytable or group.paytable].wager_cents
        acked = sorted((e for e in table["events"] if e["ack_result"] == "ok"),
                       key=lambda e: (e["acked_at"], e["seq"]))
        rounds: dict[int, list[int]] = {}
        for e in acked:
            p = e["payload"]
            if e["type"] == "GameStarted":
                rounds[p["round_no"]] = [
                    cents for seat, cents in p["wagers"].items()
                    if 1 <= int(seat) <= tcfg.seats and cents > 0
                    and (wager_cents is None or cents == wager_cents)]
            elif e["type"] == "Misdealt" or (e["type"] == "Undone"
                                             and p["what"] == "START_GAME"):
                rounds.pop(p["round_no"], None)
        for amounts in rounds.values():
            wagers.update((group.id, cents) for cents in amounts)
    for (gid, cents), count in sorted(wagers.items()):
        for lv in config.group(gid).levels:
            moves = meters.contribute(_level_settings(lv), cents)
            meter, reserve = out[(gid, lv.name)]
            out[(gid, lv.name)] = (meter + count * sum(m.meter_delta for m in moves),
                                   reserve + count * sum(m.reserve_delta for m in moves))
    return out


if __name__ == "__main__":
    sys.exit(main())
