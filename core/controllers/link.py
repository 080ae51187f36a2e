"""The console's side of the controller protocol (docs/protocol.md): one asyncio
:class:`ControllerLink` per configured table, run together by :class:`LinkManager`.

A link connects to its controller, checks the HELLO against the floor configuration,
passes each event to ``on_event(origin, event)`` (the console hands it to the ledger
writer and returns an awaitable that completes when its batch committed) and acknowledges it
only after that.  The link's loop never waits on the database: while one table's event waits
for its commit, every other link reads, answers and sends heartbeats.  It reconnects with
backoff after a drop, declares the table offline when the controller falls silent for
three heartbeats, and keeps the console's commands (PAY, REJECT) queued, sending them again
every retransmit interval, until the controller acknowledges them.

Events are taken in sequence per (table, boot): only the next expected seq is passed on; a
later one makes the link ask the controller to send again from the expected one (RESEND), an
earlier one is answered with the ACK it had (refused stays refused, for the same reason; after
a console restart the ledger answers).  An event the link refuses itself (malformed but
identifiable, a seat the table lacks, another table's id) goes to the floor as a
:class:`~core.controllers.events.Refused` so that it is recorded before the ``ACK refused``.
Over TLS (``tls``, :mod:`core.controllers.tls`) it accepts a controller only with a
certificate from the casino CA naming the configured table; plain TCP only when given no
context, which the console does only for a floor file that says
``transport = "plain-lab-only"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from core.controllers import tls as link_tls
from core.controllers.events import (
    Delivery,
    GameStarted,
    HitClaimed,
    Origin,
    OutOfOrder,
    Refused,
    SequenceGap,
    Undone,
)
from core.controllers.frames import (
    DEFAULT_HEARTBEAT_MS,
    DEFAULT_RETRANSMIT_MS,
    TIMEOUT_HEARTBEATS,
    Ack,
    Command,
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
from core.controllers.screening import refusal_text
from core.ledger.db import LedgerUnavailable

log = logging.getLogger("podium.link")

OnEvent = Callable[[Origin, Delivery], object]
OnStatus = Callable[[str, bool, str], object]


class LinkError(ValueError):
    """A link could not be configured (bad table id, port ...)."""


class _SessionEnd(Exception):
    """Ends one connection; the message is the status detail shown to the supervisor.

    ``refusal`` (a fault when empty: reconnect with the ordinary backoff) is the detail shown
    instead once this connection counts as refused (the longest delay, logged once): when the
    same refusal ended ``after`` connections in a row.  ``answered``: the controller took the
    TCP connection (the handshake failed on the way): it is up, so the next try comes after the
    first delay again, not a doubled one (a damaged path costs a second, not half a minute)."""

    def __init__(self, detail: str, *, refusal: str = "", after: int = 1,
                 answered: bool = False) -> None:
        super().__init__(detail)
        self.refusal = refusal
        self.after = after
        self.answered = answered


CLOSED_BY_CONTROLLER = "connection closed by the controller"
# How many handshakes in a row must fail alike before a certificate problem seen in the handshake
# is a refusal (core.controllers.tls.HandshakeFault: one damaged byte can look like one).
REFUSAL_REPEATS = 3


class AckedSeqs:
    """Sequence numbers already acknowledged for one boot: a low-water mark (every seq
    up to it) plus the ones above it, so memory stays small on a long run."""

    def __init__(self) -> None:
        self.low = 0
        self.above: set[int] = set()

    def __contains__(self, seq: int) -> bool:
        return seq <= self.low or seq in self.above

    def add(self, seq: int) -> None:
        if seq in self:
            return
        self.above.add(seq)
        while self.low + 1 in self.above:
            self.low += 1
            self.above.remove(self.low)


class _BootSeq:
    """The link's memory of one controller boot's event sequence (this console run).  The
    ledger is the authority; this spares it the events already answered."""

    def __init__(self) -> None:
        self.expected: int | None = None  # the next seq the floor takes (None: ask the floor)
        self.decided = AckedSeqs()  # answered ACK ok or refused in this run
        self.refused: dict[int, str] = {}  # seq -> the reason it was refused with
        self.poison: set[int] = set()  # out-of-bounds seqs refused (answered ERROR)
        self.asked: tuple[int, float] | None = None  # the last RESEND: (seq, loop time)


@dataclass
class _Pending:
    cseq: int
    command: Command
    done: asyncio.Future[CommandAck]
    sent_at: float = float("-inf")  # loop time it last went on the wire


class ControllerLink:
    """The console's connection to one table controller.

    ``paytable`` / ``decks`` / ``seats`` are the floor configuration's values for the
    table; a HELLO announcing another table id, paytable or deck count is refused (the
    link stays down and retries at the longest delay).  ``heartbeat``, ``retransmit`` (how long
    an unacknowledged command waits before it is sent again on the live connection) and the
    delays are in seconds.

    ``tls`` is the console's context (``tls.console_context``): the controller must complete
    the handshake with a certificate from the casino CA whose CN is ``table_id``, or it is
    refused like a wrong HELLO.  ``None`` (it must be said) is plain TCP, for a lab only.
    """

    def __init__(self, table_id: str, host: str, port: int, on_event: OnEvent,
                 on_status: OnStatus, *, tls: ssl.SSLContext | None,
                 paytable: str | None = None, decks: int | None = None,
                 seats: int | None = None, heartbeat: float = DEFAULT_HEARTBEAT_MS / 1000,
                 reconnect_delay: float = 1.0, max_reconnect_delay: float = 30.0,
                 connect_timeout: float = 5.0, console_id: str | None = None,
                 retransmit: float = DEFAULT_RETRANSMIT_MS / 1000) -> None:
        if not table_id:
            raise LinkError("table id: must not be empty")
        if not 0 < port < 65536:
            raise LinkError(f"table {table_id}: port {port} is not a TCP port (1..65535)")
        if heartbeat <= 0 or reconnect_delay <= 0 or retransmit <= 0:
            raise LinkError(f"table {table_id}: heartbeat, retransmit interval and reconnect "
                            "delay must be positive")
        self.table_id = table_id
        self.host = host
        self.port = port
        self.tls = tls
        self.on_event = on_event
        self.on_status = on_status
        self.paytable = paytable
        self.decks = decks
        self.seats = seats
        self.heartbeat = heartbeat
        self.retransmit = retransmit
        self.reconnect_delay = reconnect_delay
        self.max_reconnect_delay = max(max_reconnect_delay, reconnect_delay)
        self.connect_timeout = connect_timeout
        self.console_id = console_id or secrets.token_hex(6)
        self.hello: Hello | None = None
        self.online = False
        self.detail = "not started"
        self._seqs: dict[str, _BootSeq] = {}
        self._pending: dict[int, _Pending] = {}
        self._next_cseq = 1
        self._writer: asyncio.StreamWriter | None = None
        self._main: asyncio.Task[None] | None = None
        self._closing = False
        self._last_refusal = ""
        self._refusals_in_a_row: tuple[str, int] = ("", 0)  # (refusal, connections it ended)

    # ---------------------------------------------------------------- public API

    async def run(self) -> None:
        """Connect, keep connected and reconnect until :meth:`close`."""
        if self._main is not None:
            raise RuntimeError(f"link {self.table_id}: already running")
        self._main = asyncio.create_task(self._loop(), name=f"link-{self.table_id}")
        try:
            await self._main
        except asyncio.CancelledError:
            if not self._closing:
                raise

    async def close(self) -> None:
        self._closing = True
        self._drop_writer()
        if self._main is not None and not self._main.done():
            self._main.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._main
        for p in self._pending.values():
            if not p.done.done():
                p.done.cancel()
        self._set_status(False, "closed")

    async def send_command(self, command: Command) -> int:
        """Queue ``command`` for the controller (sent now if online, resent after every
        reconnect until acknowledged).  Returns its command sequence number."""
        cseq = self._next_cseq
        self._next_cseq += 1
        loop = asyncio.get_running_loop()
        p = self._pending[cseq] = _Pending(cseq, command, loop.create_future())
        if self.online:
            await self._send_command(p)
        return cseq

    async def send_state(self, state: JackpotState) -> None:
        """Tell the controller a level's Jackpot Lock state now, if the link is up (not queued:
        the console sends every level's state again after the next WELCOME)."""
        if self.online:
            await self._send(state)

    async def command_result(self, cseq: int) -> CommandAck:
        """Wait until the controller acknowledged command ``cseq``."""
        p = self._pending.get(cseq)
        if p is None:
            raise LinkError(f"table {self.table_id}: no queued command {cseq}")
        return await asyncio.shield(p.done)

    @property
    def pending_commands(self) -> list[Command]:
        return [p.command for _, p in sorted(self._pending.items())]

    def acknowledged(self, boot: str, seq: int) -> bool:
        """Whether this link has acknowledged event ``(boot, seq)`` (this console run)."""
        return boot in self._seqs and seq in self._seqs[boot].decided

    # ---------------------------------------------------------------- internals

    def _set_status(self, online: bool, detail: str) -> None:
        changed = online != self.online or detail != self.detail
        self.online = online
        self.detail = detail
        if changed:
            try:
                self.on_status(self.table_id, online, detail)
            except Exception:
                log.exception("table %s: status listener failed", self.table_id)

    def _drop_writer(self, *, graceful: bool = False) -> None:
        w, self._writer = self._writer, None
        if w is not None:
            if graceful:
                w.close()  # what was written (an ERROR, an ACK) still goes out
            else:
                w.transport.abort()

    async def _sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the controller; over TLS only to the configured table's controller.
        Otherwise :class:`_SessionEnd` naming the cause."""
        where = f"{self.host}:{self.port}"
        try:
            async with asyncio.timeout(self.connect_timeout):
                reader, writer = await asyncio.open_connection(self.host, self.port,
                                                               ssl=self.tls)
        except TimeoutError:
            raise _SessionEnd(f"can not connect to {where}: timed out after "
                              f"{self.connect_timeout:g} s" + (" (connecting or in the TLS "
                                                               "handshake)" if self.tls else "")
                              ) from None
        except ssl.SSLError as exc:
            raise self._handshake_end(exc) from None
        except OSError as exc:
            if self.tls is not None and isinstance(exc, ConnectionError) and \
                    not isinstance(exc, ConnectionRefusedError):
                raise self._handshake_end(exc) from None  # reset or closed in the handshake
            raise _SessionEnd(f"can not connect to {where}: "
                              f"{exc.strerror or str(exc) or type(exc).__name__}") from None
        if self.tls is None:
            return reader, writer
        problem = link_tls.controller_problem(writer.get_extra_info("ssl_object"),
                                              self.table_id, f"controller at {where}")
        if problem:  # the handshake completed: this certificate is what the controller has
            writer.transport.abort()
            raise _SessionEnd(f"TLS refused: {problem}", refusal=f"TLS refused: {problem}")
        return reader, writer

    def _handshake_end(self, exc: OSError) -> _SessionEnd:
        """How a failed TLS handshake (or the first read after it) ends the connection."""
        fault = link_tls.handshake_fault(exc)
        where = f"{self.host}:{self.port}"
        return _SessionEnd(f"can not connect to {where}: TLS handshake failed: {fault.words}",
                           refusal=f"TLS refused: controller at {where}: {fault.words}"
                           if fault.certificate else "", after=REFUSAL_REPEATS,
                           answered=True)

    def _refused(self, detail: str) -> None:
        """Log a refusal once (it comes again at every retry until someone fixes it)."""
        if detail != self._last_refusal:
            log.error("table %s: %s", self.table_id, detail)
            self._last_refusal = detail

    def _judge(self, end: _SessionEnd) -> tuple[str, bool]:
        """The status detail of a connection's end, and whether it is a refusal (logged once)."""
        if not end.refusal:
            self._refusals_in_a_row = ("", 0)
            return str(end), False
        last, count = self._refusals_in_a_row
        count = count + 1 if end.refusal == last else 1
        self._refusals_in_a_row = (end.refusal, count)
        if count < end.after:
            return str(end), False
        self._refused(end.refusal)
        return end.refusal, True

    async def _loop(self) -> None:
        delay = self.reconnect_delay
        while not self._closing:
            end = await self._connection()
            if self.online:
                log.warning("table %s: link down: %s", self.table_id, end)
                delay = self.reconnect_delay  # it was up: retry soon
            detail, refused = self._judge(end)
            self._set_status(False, detail)
            if refused:
                delay = self.max_reconnect_delay
            elif end.answered:  # the controller is up; the path damaged the handshake
                delay = self.reconnect_delay
            await self._sleep(delay)
            delay = min(delay * 2, self.max_reconnect_delay)

    async def _connection(self) -> _SessionEnd:
        """One connection to the controller, from connecting to its end: how it ended."""
        try:
            reader, writer = await self._connect()
        except _SessionEnd as end:
            return end
        self._writer = writer
        try:
            await self._session(reader, writer)
            return _SessionEnd("connection closed")
        except _SessionEnd as end:
            if str(end) == CLOSED_BY_CONTROLLER and self.tls is not None and not self.online:
                # TLS 1.3: a controller refusing this console's certificate closes the
                # connection after the handshake, before any HELLO (or a damaged handshake)
                where = f"{self.host}:{self.port}"
                return _SessionEnd(
                    f"can not connect to {where}: the controller closed the connection before "
                    "its HELLO", after=REFUSAL_REPEATS, answered=True,
                    refusal=f"TLS refused: controller at {where} closed the connection before "
                            "its HELLO: it does not accept this console's certificate (not a "
                            "console's, or not from its CA)?")
            return end
        except ssl.SSLError as exc:
            if not self.online:  # TLS 1.3: an alert about this console's certificate comes
                return self._handshake_end(exc)  # after the handshake, at the first read
            return _SessionEnd(f"connection lost: TLS: {link_tls.record_fault(exc)}")
        except (OSError, asyncio.IncompleteReadError) as exc:
            why = (exc.strerror if isinstance(exc, OSError) else "") or str(exc)
            return _SessionEnd(f"connection lost: {why or type(exc).__name__}")
        finally:
            self._drop_writer(graceful=True)

    async def _send(self, frame: Frame) -> None:
        w = self._writer
        if w is None or w.is_closing():
            return  # the frame's owner resends after the reconnect when it matters
        try:
            data = encode_frame(frame)
        except (ProtocolError, UnicodeError) as exc:  # never the end of the link's task
            log.error("table %s: a %s frame could not be encoded and is not sent: %s",
                      self.table_id, type(frame).__name__, exc)
            return
        w.write(data)
        try:
            await w.drain()
        except (OSError, RuntimeError):
            self._drop_writer()

    async def _read_items(self, reader: asyncio.StreamReader, buf: FrameBuffer,
                          timeout: float) -> list[Frame | ProtocolError]:
        try:
            data = await asyncio.wait_for(reader.read(65_536), timeout)
        except TimeoutError:
            raise _SessionEnd(f"no heartbeat from the controller for {timeout:g} s") from None
        if not data:
            raise _SessionEnd(CLOSED_BY_CONTROLLER)
        return buf.feed(data)

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        buf = FrameBuffer()
        my_timeout = TIMEOUT_HEARTBEATS * self.heartbeat
        items: list[Frame | ProtocolError] = []
        while not items:
            items = await self._read_items(reader, buf, my_timeout)
        first, rest = items[0], items[1:]
        if not isinstance(first, Hello):
            what = str(first) if isinstance(first, ProtocolError) else type(first).__name__
            await self._send(ErrorFrame("UNEXPECTED",
                                        refusal_text(f"expected HELLO first, got {what}")))
            raise _SessionEnd(f"controller did not start with HELLO ({what})")
        problem = self._check_hello(first)
        if problem:
            await self._send(ErrorFrame("HELLO_REFUSED", refusal_text(problem)))
            raise _SessionEnd(f"HELLO refused: {problem}", refusal=f"HELLO refused: {problem}")
        self._last_refusal = ""
        self.hello = first
        await self._send(Welcome(self.console_id, round(self.heartbeat * 1000)))
        self._set_status(True, f"{first.model} boot {first.boot}, paytable {first.paytable}")
        log.info("table %s: online (%s boot %s)", self.table_id, first.model, first.boot)
        for p in sorted(self._pending.values(), key=lambda p: p.cseq):
            await self._send_command(p)
        beat = asyncio.create_task(self._heartbeats(), name=f"heartbeat-{self.table_id}")
        peer_timeout = TIMEOUT_HEARTBEATS * first.heartbeat_ms / 1000
        try:
            while True:
                for item in rest:
                    await self._handle(item, first)
                rest = await self._read_items(reader, buf, peer_timeout)
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    def _check_hello(self, hello: Hello) -> str:
        if hello.table != self.table_id:
            return (f"controller at {self.host}:{self.port} announces table {hello.table!r}, "
                    f"the floor configures {self.table_id!r} there")
        if self.paytable is not None and hello.paytable != self.paytable:
            return (f"table {self.table_id}: controller paytable {hello.paytable!r} differs from "
                    f"the configured {self.paytable!r}")
        if self.decks is not None and hello.decks != self.decks:
            return (f"table {self.table_id}: controller deals {hello.decks} deck(s), the "
                    f"configuration says {self.decks}")
        return ""

    async def _heartbeats(self) -> None:
        """The session's timers: a heartbeat every ``heartbeat`` seconds, and the commands
        still unacknowledged sent again every ``retransmit`` seconds."""
        resend = asyncio.create_task(self._retransmit_commands(),
                                     name=f"retransmit-{self.table_id}")
        try:
            while True:
                await asyncio.sleep(self.heartbeat)
                await self._send(Heartbeat(utc_now_iso()))
        finally:
            resend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await resend

    async def _retransmit_commands(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.retransmit / 4)
            now = loop.time()
            for p in sorted(self._pending.values(), key=lambda p: p.cseq):
                if now - p.sent_at >= self.retransmit and p.cseq in self._pending:
                    log.info("table %s: command %d not acknowledged after %g s: sent again",
                             self.table_id, p.cseq, self.retransmit)
                    await self._send_command(p)

    async def _send_command(self, p: _Pending) -> None:
        p.sent_at = asyncio.get_running_loop().time()
        await self._send(CommandFrame(self.console_id, p.cseq, p.command))

    async def _handle(self, item: Frame | ProtocolError, hello: Hello) -> None:
        if isinstance(item, ProtocolError):
            if item.event is not None:
                await self._handle_malformed_event(item, hello)
            else:
                log.warning("table %s: malformed frame refused: %s", self.table_id, item)
                await self._send(ErrorFrame("BAD_FRAME", refusal_text(str(item)), item.seq))
        elif isinstance(item, EventFrame):
            await self._handle_event(item, hello)
        elif isinstance(item, CommandAck):
            self._handle_command_ack(item)
        elif isinstance(item, Heartbeat):
            pass
        elif isinstance(item, Gone):
            await self._handle_gone(item)
        elif isinstance(item, Hello):
            if item != hello:
                await self._send(ErrorFrame("UNEXPECTED", "another HELLO on a live connection"))
                raise _SessionEnd(f"controller sent another HELLO (boot {item.boot})")
            # our WELCOME was lost or damaged: the controller waits for it
            await self._send(Welcome(self.console_id, round(self.heartbeat * 1000)))
        elif isinstance(item, ErrorFrame):
            log.warning("table %s: controller reports %s: %s%s", self.table_id, item.code,
                        item.message, f" (seq {item.seq})" if item.seq else "")
        else:
            msg = f"a controller does not send {type(item).__name__} frames here"
            log.warning("table %s: %s", self.table_id, msg)
            await self._send(ErrorFrame("UNEXPECTED", msg))

    def _content_problem(self, frame: EventFrame, hello: Hello) -> str:
        """A well-formed event that can never be right for this table (refused for good)."""
        ev = frame.event
        seats: list[int] = []
        if isinstance(ev, GameStarted):
            seats = list(ev.wagers)
        elif isinstance(ev, HitClaimed) or (isinstance(ev, Undone) and ev.seat is not None):
            seats = [ev.seat] if ev.seat is not None else []
        limit = self.seats if self.seats is not None else hello.seats
        bad = [s for s in seats if s > limit]
        if bad:
            return f"seat {bad[0]} does not exist at table {self.table_id} ({limit} seats)"
        return ""

    async def _handle_event(self, frame: EventFrame, hello: Hello) -> None:
        o = frame.origin
        # An earlier boot is fine: a controller that kept its outbox over a restart resends
        # those events under their original (boot, seq).
        if o.table != self.table_id:
            # this controller's sequence: refused (and kept) under this connection's table
            msg = (f"EVENT seq {o.seq}: from table {o.table!r}, this connection is table "
                   f"{self.table_id!r}")
            await self._deliver(Origin(self.table_id, o.boot, o.seq, o.controller_time),
                                Refused(msg, frame.event))
            return
        problem = self._content_problem(frame, hello)
        await self._deliver(o, Refused(problem, frame.event) if problem else frame.event)

    async def _handle_malformed_event(self, exc: ProtocolError, hello: Hello) -> None:
        """An EVENT whose checksum held and whose identity is readable but whose content is
        not: refused by that identity and kept, so that it can not jam the table."""
        m = exc.event
        assert m is not None
        log.warning("table %s: malformed event %s:%s refused: %s", self.table_id, m.boot,
                    m.seq, exc)
        refusal = Refused(f"malformed event: {exc}", None, m.kind, m.fields)
        time = m.fields.get("time")
        ctime = time if isinstance(time, str) and len(time) <= 40 and time.isprintable() else ""
        if m.seq_in_bounds:
            await self._deliver(Origin(self.table_id, m.boot, m.seq, ctime), refusal)
            return
        # its seq can not be acknowledged (an ACK carries a seq within bounds): kept once per
        # boot under seq 0 and answered ERROR; the events after it go on
        st = self._seqs.setdefault(m.boot, _BootSeq())
        if m.seq not in st.poison:
            try:
                result = self.on_event(Origin(self.table_id, m.boot, 0, ctime), refusal)
                if inspect.isawaitable(result):
                    await result
            except ValueError:
                pass  # refused, as it must be: kept in refused_events
            except Exception as err:
                log.exception("table %s: malformed event %s could not be recorded",
                              self.table_id, m.boot)
                raise _SessionEnd(f"a malformed event could not be recorded "
                                  f"({type(err).__name__}); reconnecting") from err
            st.poison.add(m.seq)
        await self._send(ErrorFrame("BAD_FRAME", refusal_text(f"{exc} (refused and kept)"),
                                    None))

    async def _deliver(self, origin: Origin, item: Delivery) -> None:
        """In sequence: pass the event on (the floor records or refuses it) and ACK the
        outcome; a seq beyond the next expected asks for a RESEND; one already answered in this
        run gets the same answer again."""
        st = self._seqs.setdefault(origin.boot, _BootSeq())
        seq = origin.seq
        if st.expected is not None:
            if seq > st.expected:
                await self._ask_resend(origin.boot, st)
                return
            if seq < st.expected and seq in st.decided:  # its ACK was lost: the same answer
                before = st.refused.get(seq)
                # DEBUG: a slow ledger makes every table resend, and a floor service logs for
                # months (journald): one line per repeat would flood it
                log.debug("table %s: event %s:%d answered already (%s), acknowledged again",
                         self.table_id, origin.boot, seq, "ok" if before is None else "refused")
                await self._send(Ack(origin.boot, seq, "ok" if before is None else "refused",
                                     before or ""))
                return
        # the next expected, or one the ledger must answer (below it, or a boot this run has
        # not seen yet)
        replay = False
        reason: str | None = None
        try:
            result = self.on_event(origin, item)
            if inspect.isawaitable(result):
                # the ledger writer commits it with others (group commit); this link
                # waits for its own event only, every other table reads on
                result = await result
        except OutOfOrder as exc:
            st.expected = exc.expected
            await self._ask_resend(origin.boot, st)
            return
        except ValueError as exc:
            # what the floor kept (refused_events.reason) and the controller hears: one clear
            # line, printable and bounded, whatever text the refusal quoted
            reason = refusal_text(str(exc) or type(exc).__name__)
        except LedgerUnavailable:
            # the ledger can not record now (a full disk, a database gone): the writer says so
            # once; the event stays unacknowledged in the controller, which sends it again
            # (retransmit) on this connection, and is recorded once the ledger can again
            return
        except Exception as exc:
            log.exception("table %s: event %s:%d could not be recorded", self.table_id,
                          origin.boot, seq)
            raise _SessionEnd(f"event {seq} could not be recorded ({type(exc).__name__}); "
                              "reconnecting so the controller resends it") from exc
        else:
            replay = result is False
            if isinstance(item, Refused) and not replay:
                # recorded as refused (False: it had been accepted)
                reason = refusal_text(item.reason)
        st.decided.add(seq)
        if st.expected is not None:
            st.expected = max(st.expected, seq + 1)
        elif reason is None and not replay:
            # a new event taken: it was the ledger's next (a replay, or a refusal that may be
            # one, says nothing of where the boot's sequence stands)
            st.expected = seq + 1
        if reason is not None:
            st.refused[seq] = reason
            log.warning("table %s: event %s:%d refused: %s", self.table_id, origin.boot, seq,
                        reason)
            await self._send(Ack(origin.boot, seq, "refused", reason))
        else:
            if replay:
                log.debug("table %s: event %s:%d already recorded, acknowledged again",
                         self.table_id, origin.boot, seq)
            await self._send(Ack(origin.boot, seq, "ok"))

    async def _ask_resend(self, boot: str, st: _BootSeq) -> None:
        """RESEND from the expected seq, once per retransmit interval (the events behind a gap
        all ask for the same thing)."""
        assert st.expected is not None
        now = asyncio.get_running_loop().time()
        if st.asked is not None and st.asked[0] == st.expected and \
                now - st.asked[1] < self.retransmit:
            return
        st.asked = (st.expected, now)
        log.info("table %s: boot %s: seq %d expected next, asking the controller to send again "
                 "from there", self.table_id, boot, st.expected)
        await self._send(Resend(boot, st.expected))

    async def _handle_gone(self, gone: Gone) -> None:
        """The controller no longer holds events seq..next-1 (acknowledged before, not in this
        ledger): the floor records the gap and the sequence goes on after it."""
        st = self._seqs.get(gone.boot)
        if st is None or st.expected != gone.seq:
            log.info("table %s: GONE %s %d..%d does not answer a RESEND of this link; ignored",
                     self.table_id, gone.boot, gone.seq, gone.next_seq - 1)
            return
        origin = Origin(self.table_id, gone.boot, gone.next_seq - 1)
        try:
            result = self.on_event(origin, SequenceGap(gone.seq, gone.next_seq - 1))
            if inspect.isawaitable(result):
                await result
        except OutOfOrder as exc:
            st.expected, st.asked = exc.expected, None
            await self._ask_resend(gone.boot, st)
            return
        except ValueError as exc:
            log.error("table %s: the gap %s %d..%d could not be recorded: %s", self.table_id,
                      gone.boot, gone.seq, gone.next_seq - 1, exc)
            return
        except Exception as exc:
            log.exception("table %s: the gap %s %d..%d could not be recorded", self.table_id,
                          gone.boot, gone.seq, gone.next_seq - 1)
            raise _SessionEnd(f"a sequence gap could not be recorded ({type(exc).__name__}); "
                              "reconnecting") from exc
        st.expected, st.asked = gone.next_seq, None
        log.warning("table %s: events %d..%d of boot %s were acknowledged before and are not "
                    "in this ledger; recorded as a gap", self.table_id, gone.seq,
                    gone.next_seq - 1, gone.boot)

    def _handle_command_ack(self, ack: CommandAck) -> None:
        if ack.console != self.console_id:
            log.warning("table %s: CMD_ACK for another console (%s)", self.table_id, ack.console)
            return
        p = self._pending.pop(ack.cseq, None)
        if p is None:
            return  # a repeat of an acknowledgement we already had
        if ack.result == "refused":
            log.warning("table %s: controller refused command %d (%s): %s", self.table_id,
                        ack.cseq, type(p.command).__name__, ack.reason)
        if not p.done.done():
            p.done.set_result(ack)


@dataclass(frozen=True)
class TableEndpoint:
    """What a link needs to know about one configured table."""

    table_id: str
    host: str
    port: int
    paytable: str | None = None
    decks: int | None = None
    seats: int | None = None


def endpoints_from_floor(config: Any) -> list[TableEndpoint]:
    """The endpoints of a ``core.floorconfig.FloorConfig`` (table paytable, else its group's)."""
    out = []
    for t in config.tables:
        paytable = t.paytable or config.group(t.group).paytable
        out.append(TableEndpoint(t.id, t.host, t.port, paytable, t.decks, t.seats))
    return out


class LinkManager:
    """One :class:`ControllerLink` per table it serves, run together.  Tables can be added and
    removed while it runs (a floor service takes a table over from a dead one, or loses its
    claim on it: ``core/controllers/ownership.py``)."""

    def __init__(self, endpoints: Iterable[TableEndpoint], on_event: OnEvent,
                 on_status: OnStatus, **link_options: Any) -> None:
        self.links: dict[str, ControllerLink] = {}
        self._on_event = on_event
        self._on_status = on_status
        self._options = link_options
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._running = False
        self._closing = False
        self._closed: asyncio.Event | None = None
        for ep in endpoints:
            if ep.table_id in self.links:
                raise LinkError(f"table {ep.table_id}: configured twice")
            self.links[ep.table_id] = self._make(ep)

    def _make(self, ep: TableEndpoint) -> ControllerLink:
        return ControllerLink(ep.table_id, ep.host, ep.port, self._on_event, self._on_status,
                              paytable=ep.paytable, decks=ep.decks, seats=ep.seats,
                              **self._options)

    @classmethod
    def from_floor(cls, config: Any, on_event: OnEvent, on_status: OnStatus,
                   tables: Iterable[str] | None = None, **link_options: Any) -> LinkManager:
        """The links of a floor (``tables``: only these); ``tls`` (in ``link_options``) is the
        context of its ``[controller_link]`` (``core.controllers.tls.link_tls``)."""
        wanted = None if tables is None else set(tables)
        return cls([ep for ep in endpoints_from_floor(config)
                    if wanted is None or ep.table_id in wanted], on_event, on_status,
                   **link_options)

    def _start(self, link: ControllerLink) -> None:
        self._tasks[link.table_id] = asyncio.get_running_loop().create_task(
            link.run(), name=f"run-{link.table_id}")

    async def run(self) -> None:
        """Run every link (and those added later) until :meth:`close`."""
        if self._closing:
            return
        self._closed = asyncio.Event()
        self._running = True
        for link in list(self.links.values()):
            self._start(link)
        await self._closed.wait()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    def add(self, ep: TableEndpoint) -> ControllerLink:
        """Serve one more table (on the link loop); its link starts at once when running."""
        if ep.table_id in self.links:
            return self.links[ep.table_id]
        if self._closing:
            raise LinkError(f"table {ep.table_id}: the links are closing")
        link = self.links[ep.table_id] = self._make(ep)
        if self._running:
            self._start(link)
        return link

    async def remove(self, table_id: str) -> None:
        """Stop serving a table: its link is closed (the controller keeps its events for
        whoever serves it next)."""
        link = self.links.pop(table_id, None)
        task = self._tasks.pop(table_id, None)
        if link is not None:
            await link.close()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def close(self) -> None:
        self._closing = True
        await asyncio.gather(*(link.close() for link in self.links.values()))
        if self._closed is not None:
            self._closed.set()

    def link(self, table_id: str) -> ControllerLink:
        try:
            return self.links[table_id]
        except KeyError:
            raise LinkError(f"table {table_id!r}: no link configured") from None

    async def send_command(self, table_id: str, command: Command) -> int:
        return await self.link(table_id).send_command(command)

    def status(self) -> dict[str, tuple[bool, str]]:
        # a copy first: other threads ask while the link loop adds and removes links
        return {tid: (link.online, link.detail) for tid, link in list(self.links.items())}
