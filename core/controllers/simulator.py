"""Simulated Nexus Command table controllers speaking the Podium protocol: a table's network
side (docs/protocol.md, "The simulator").

A :class:`SimulatedTable` is a TCP server that plays its game (the rounds, the dealer's
buttons: :class:`core.controllers.sim_game.TableGame`) and speaks for it: each
event numbered in its boot, sent, held until the console acknowledges it and sent again on the
retransmit timer or a RESEND; the console's PAY and REJECT applied once.  A test or the demo
builds one (or several: :mod:`core.controllers.sim_floor`), starts it on its asyncio loop and,
with ``speed=0``, advances it one controller action at a time with
:meth:`~core.controllers.sim_game.TableGame.step`, deterministically from its seed.

Each table serves TLS with its own certificate from the casino CA (a folder made by ``podium
certs``, ``--certs``) and talks only to a console presenting a console's certificate from that
CA (:mod:`core.controllers.tls`); plain TCP only when told (``--plain-lab-only``, or a floor
file whose ``[controller_link]`` says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import ssl
import time
from collections import Counter
from typing import Any

from core.controllers import tls as link_tls
from core.controllers.events import ControllerEvent, Origin
from core.controllers.frames import (
    DEFAULT_HEARTBEAT_MS,
    DEFAULT_RETRANSMIT_MS,
    TIMEOUT_HEARTBEATS,
    Ack,
    CommandAck,
    CommandFrame,
    ErrorFrame,
    EventFrame,
    Frame,
    Gone,
    Heartbeat,
    Hello,
    JackpotState,
    ProtocolError,
    Resend,
    Welcome,
    utc_now_iso,
)
from core.controllers.protocol import FrameBuffer, encode_frame
from core.controllers.sim_game import (
    BET_PROBABILITY,
    PaytableLike,
    SimulatorError,
    TableGame,
    describe,
)

log = logging.getLogger("podium.simulator")

SOFTWARE = "podium-sim 0.1"
# Seconds each phase takes at speed 1 (about one round a minute, like a real table).
PHASE_SECONDS = {"idle": 15.0, "started": 35.0, "waiting": 10.0}
# The timer sends again at most this many of a boot's oldest unacknowledged events at a time: a
# large backlog is not sent whole every interval while the console works through it (a RESEND
# brings everything from the seq the console expects).
RETRANSMIT_WINDOW = 64


class SimulatedTable(TableGame):
    """One simulated Nexus Command controller (a TCP server once :meth:`start`-ed).

    ``tls`` is its server context (``tls.controller_context``: the table's certificate, a
    console's required); ``None`` (it must be said) serves plain TCP, for a lab only."""

    def __init__(self, table_id: str, paytable: PaytableLike, *, tls: ssl.SSLContext | None,
                 port: int = 0,
                 host: str = "127.0.0.1", seats: int = 6, decks: int = 1,
                 seed: int | str | None = 0, speed: float = 1.0, mistake_rate: float = 0.02,
                 jackpot_rate: float = 0.0, boot: str | None = None,
                 heartbeat: float = DEFAULT_HEARTBEAT_MS / 1000,
                 bet_probability: float = BET_PROBABILITY,
                 paytable_id: str | None = None,
                 retransmit: float = DEFAULT_RETRANSMIT_MS / 1000) -> None:
        super().__init__(table_id, paytable, seats=seats, seed=seed, mistake_rate=mistake_rate,
                         jackpot_rate=jackpot_rate, bet_probability=bet_probability)
        if not 0 <= port < 65536:
            raise SimulatorError(f"table {table_id}: port {port} is not a TCP port")
        if speed < 0:
            raise SimulatorError(f"table {table_id}: speed {speed} must not be negative")
        if retransmit <= 0:
            raise SimulatorError(f"table {table_id}: retransmit interval {retransmit} must be "
                                 "positive")
        self.paytable_id = paytable_id or paytable.id  # as configured (may be an equivalent)
        self.host = host
        self.port = port
        self.tls = tls
        self.decks = decks
        self.speed = speed
        self.heartbeat = heartbeat
        self.retransmit = retransmit
        self.boot = boot or secrets.token_hex(6)
        # level -> the console's last JACKPOT_STATE for this table's link (what the table's
        # display shows: PENDING with the frozen amount while a linked hit waits)
        self.jackpot: dict[str, JackpotState] = {}
        self.history: list[EventFrame] = []  # every event of every boot, in order
        self.outbox: dict[int, EventFrame] = {}  # seq -> event of this boot not yet acknowledged
        # earlier boots' events not yet acknowledged (kept over restart(keep_outbox=True)); they
        # go out before this boot's, each boot in seq order
        self.kept: dict[str, dict[int, EventFrame]] = {}
        self.ack_results: dict[int, tuple[str, str]] = {}  # this boot's seq -> (result, reason)
        self.transmissions: Counter[int] = Counter()  # seq -> times put on the wire
        # (boot, seq) -> time.monotonic() when emitted / when its first ACK arrived (figures)
        self.emitted_at: dict[tuple[str, int], float] = {}
        self.acked_at: dict[tuple[str, int], float] = {}
        self.retransmissions = 0  # events sent again on the timer or for a RESEND
        self.gone_sent = 0
        self.connections = 0  # console connections accepted so far
        self._next_seq = 1
        self._sent_at: dict[tuple[str, int], float] = {}  # monotonic time it last went out
        self._hello: Hello | None = None  # the HELLO of the current connection (sent again
        self._hello_at = 0.0  # every retransmit interval until the WELCOME arrives)
        self._commands: dict[tuple[str, int], CommandAck] = {}
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._ready = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pacer: asyncio.Task[None] | None = None
        self._resolved: asyncio.Event | None = None  # created on the loop in start()

    # ------------------------------------------------------------ what the table shows

    def jackpot_line(self, level: str) -> str:
        """What the table's display says of a linked level (the simulator's log and status)."""
        st = self.jackpot.get(level)
        if st is None or st.state == "CLEAR":
            return f"{level}: live"
        return (f"{level}: JACKPOT PENDING {st.amount_cents // 100:,}.{st.amount_cents % 100:02d}"
                f" frozen for {st.hits} hit(s) on the link; this table keeps playing")

    @property
    def connected(self) -> bool:
        return self._writer is not None and self._ready

    @property
    def unacknowledged(self) -> int:
        """Events of every boot still waiting for their ACK."""
        return len(self.outbox) + sum(len(box) for box in self.kept.values())

    def restart(self, *, keep_outbox: bool = True) -> None:
        """The controller restarts: a new boot, sequence numbers from 1 again, rounds numbered
        from 1 again, the game idle and its open hits forgotten.  With ``keep_outbox`` the
        unacknowledged events of the old boot stay and are still sent, under their own (boot,
        seq), before the new boot's."""
        self.drop_connection()
        if keep_outbox and self.outbox:
            self.kept[self.boot] = self.outbox
        self.outbox = {}
        self.ack_results = {}
        self.transmissions = Counter()
        self.boot = secrets.token_hex(6)
        self._next_seq = 1
        self._new_game()
        log.info("table %s: restarted as boot %s (%d event(s) of earlier boots kept)",
                 self.table_id, self.boot, sum(len(b) for b in self.kept.values()))

    def _boxes(self) -> list[tuple[str, dict[int, EventFrame]]]:
        """Every boot's unacknowledged events, earlier boots first."""
        return [*self.kept.items(), (self.boot, self.outbox)]

    def drop_connection(self) -> None:
        """Cut the console's connection at once (as a pulled cable would)."""
        w, self._writer, self._ready = self._writer, None, False
        if w is not None:
            w.transport.abort()

    # ------------------------------------------------------------ the game's events

    def _emit(self, event: ControllerEvent) -> EventFrame:
        frame = EventFrame(Origin(self.table_id, self.boot, self._next_seq, utc_now_iso()), event)
        self._next_seq += 1
        self.history.append(frame)
        self.outbox[frame.origin.seq] = frame
        self.emitted_at[(self.boot, frame.origin.seq)] = time.monotonic()
        log.info("table %s #%d: %s", self.table_id, frame.origin.seq, describe(event))
        if self.connected:
            self._write(frame)
        return frame

    def _on_resolved(self) -> None:
        if self._resolved is not None:
            self._resolved.set()

    # ------------------------------------------------------------ network

    async def start(self) -> None:
        """Listen on host:port (port 0: any free port, then ``self.port``) and, when
        ``speed > 0``, start playing rounds."""
        self._resolved = asyncio.Event()
        self._server = await asyncio.start_server(self._on_client, self.host, self.port,
                                                  ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("table %s: Nexus Command simulator on %s:%d, %s (paytable %s, boot %s)",
                 self.table_id, self.host, self.port,
                 "TLS" if self.tls else "PLAIN TCP (lab only)", self.paytable_id, self.boot)
        if self.speed > 0:
            self._pacer = asyncio.create_task(self._pace(), name=f"sim-{self.table_id}")

    async def stop(self) -> None:
        if self._pacer is not None:
            self._pacer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pacer
            self._pacer = None
        self.drop_connection()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _pace(self) -> None:
        while True:
            phase = self.phase
            await asyncio.sleep(PHASE_SECONDS[phase] / self.speed)
            if self.phase == "waiting" and self.open_hits and self._resolved is not None:
                self._resolved.clear()
                await self._resolved.wait()
                continue
            try:
                self.step()
            except Exception:  # a simulator bug must not silently stop the table
                log.exception("table %s: simulator step failed", self.table_id)
                raise

    def _write(self, frame: Frame) -> None:
        w = self._writer
        if w is not None and not w.is_closing():
            w.write(encode_frame(frame))
            now = time.monotonic()
            if isinstance(frame, EventFrame):
                o = frame.origin
                if o.boot == self.boot:
                    self.transmissions[o.seq] += 1
                self._sent_at[(o.boot, o.seq)] = now
            elif isinstance(frame, Hello):
                self._hello, self._hello_at = frame, now

    async def _retransmits(self, writer: asyncio.StreamWriter) -> None:
        """Every event not acknowledged ``retransmit`` seconds after it last went out is sent
        again on the live connection (oldest first, at most :data:`RETRANSMIT_WINDOW` of each
        boot at a time); before the WELCOME, the HELLO is."""
        while self._writer is writer:
            await asyncio.sleep(self.retransmit / 4)
            if self._writer is not writer:
                return
            now = time.monotonic()
            if not self._ready:
                if self._hello is not None and now - self._hello_at >= self.retransmit:
                    self._write(self._hello)
                continue
            for boot, box in self._boxes():
                for seq in sorted(box)[:RETRANSMIT_WINDOW]:
                    if now - self._sent_at.get((boot, seq), float("-inf")) >= self.retransmit:
                        self.retransmissions += 1
                        self._write(box[seq])

    def _resend_from(self, item: Resend) -> None:
        """The console takes ``item.seq`` of ``item.boot`` next: everything held of that boot
        from there, again; a GONE first if the seqs before the first held one were
        acknowledged already (to a console whose ledger does not have them)."""
        box = self.outbox if item.boot == self.boot else self.kept.get(item.boot, {})
        held = sorted(s for s in box if s >= item.seq)
        first = held[0] if held else (self._next_seq if item.boot == self.boot else None)
        if first is None:
            log.warning("table %s: RESEND of boot %s, which this controller holds nothing of",
                        self.table_id, item.boot)
            return
        if first > item.seq:
            log.warning("table %s: the console asks for %s from seq %d; %d..%d were "
                        "acknowledged before: GONE", self.table_id, item.boot, item.seq,
                        item.seq, first - 1)
            self.gone_sent += 1
            self._write(Gone(item.boot, item.seq, first))
        for seq in held:
            self.retransmissions += 1
            self._write(box[seq])

    def _console_refused(self, writer: asyncio.StreamWriter) -> bool:
        """Over TLS, a client that is not a console (a controller's certificate, say) is refused
        before anything: it does not replace the console's connection, it sees no HELLO.  (A
        client without a certificate from the CA never gets here: the handshake fails.)"""
        if self.tls is None:
            return False
        problem = link_tls.console_problem(writer.get_extra_info("ssl_object"))
        if problem:
            log.error("table %s: connection from %s refused: %s", self.table_id,
                      writer.get_extra_info("peername"), problem)
            writer.transport.abort()
        return bool(problem)

    async def _on_client(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> None:
        if self._console_refused(writer):
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self.connections += 1
        if self._writer is not None:
            log.info("table %s: a new console connection replaces the old one", self.table_id)
            self.drop_connection()
        self._writer, self._ready = writer, False
        peer_timeout = TIMEOUT_HEARTBEATS * self.heartbeat
        beat = asyncio.create_task(self._heartbeats(writer))
        try:
            self._write(Hello(self.table_id, self.boot, self.paytable_id, self.decks, self.seats,
                              heartbeat_ms=round(self.heartbeat * 1000), software=SOFTWARE))
            buf = FrameBuffer()
            while self._writer is writer:
                try:
                    data = await asyncio.wait_for(reader.read(65_536), peer_timeout)
                except TimeoutError:
                    log.warning("table %s: console silent for %g s, link down", self.table_id,
                                peer_timeout)
                    break
                if not data:
                    break
                for item in buf.feed(data):
                    if self._writer is not writer:
                        break
                    if isinstance(item, Welcome):
                        peer_timeout = TIMEOUT_HEARTBEATS * item.heartbeat_ms / 1000
                    self._handle(item)
        except (OSError, asyncio.IncompleteReadError) as exc:
            log.info("table %s: connection lost: %s", self.table_id, exc)
        finally:
            beat.cancel()
            if self._writer is writer:
                self._writer, self._ready = None, False
            writer.transport.abort()
            if task is not None:
                self._tasks.discard(task)

    async def _heartbeats(self, writer: asyncio.StreamWriter) -> None:
        """The connection's timers: a heartbeat every ``heartbeat`` seconds, retransmission
        every ``retransmit``."""
        resend = asyncio.create_task(self._retransmits(writer))
        try:
            while self._writer is writer:
                await asyncio.sleep(self.heartbeat)
                if self._writer is writer:
                    self._write(Heartbeat(utc_now_iso()))
        finally:
            resend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await resend

    def _handle(self, item: Frame | ProtocolError) -> None:
        if isinstance(item, ProtocolError):
            log.warning("table %s: malformed frame from the console: %s", self.table_id, item)
            self._write(ErrorFrame("BAD_FRAME", str(item)))
        elif isinstance(item, Welcome):
            self._ready = True
            log.info("table %s: console %s connected; resending %d unacknowledged event(s)",
                     self.table_id, item.console, self.unacknowledged)
            for _boot, box in self._boxes():
                for seq in sorted(box):
                    self._write(box[seq])
        elif isinstance(item, Heartbeat):
            pass
        elif isinstance(item, ErrorFrame):
            level = logging.ERROR if item.code == "HELLO_REFUSED" else logging.WARNING
            log.log(level, "table %s: console reports %s: %s", self.table_id, item.code,
                    item.message)
        elif not self._ready:
            self._write(ErrorFrame("UNEXPECTED", f"{type(item).__name__} before WELCOME"))
        elif isinstance(item, Ack):
            box = self.outbox if item.boot == self.boot else self.kept.get(item.boot, {})
            if box.pop(item.seq, None) is not None:
                self.acked_at[(item.boot, item.seq)] = time.monotonic()
                self._sent_at.pop((item.boot, item.seq), None)
                if item.boot == self.boot:
                    self.ack_results[item.seq] = (item.result, item.reason)
                elif not box:
                    del self.kept[item.boot]
                if item.result == "refused":
                    log.warning("table %s: console refused event %s:%d: %s", self.table_id,
                                item.boot, item.seq, item.reason)
        elif isinstance(item, Resend):
            self._resend_from(item)
        elif isinstance(item, JackpotState):
            was = self.jackpot.get(item.level)
            self.jackpot[item.level] = item
            if was is None or (was.state, was.amount_cents, was.hits) != \
                    (item.state, item.amount_cents, item.hits):
                log.info("table %s: %s", self.table_id, self.jackpot_line(item.level))
        elif isinstance(item, CommandFrame):
            key = (item.console, item.cseq)
            ack = self._commands.get(key)
            if ack is None:
                result, reason = self.resolve(item.command)
                ack = CommandAck(item.console, item.cseq, "ok" if result == "ok" else "refused",
                                 reason)
                self._commands[key] = ack
            self._write(ack)
        else:
            self._write(ErrorFrame("UNEXPECTED",
                                   f"a console does not send {type(item).__name__} frames"))

