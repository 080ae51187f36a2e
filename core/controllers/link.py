"""The console's side of the controller protocol (docs/protocol.md): one asyncio
:class:`ControllerLink` per configured table (run together by
:class:`core.controllers.link_manager.LinkManager`).

A link connects to its controller, checks the HELLO against the floor configuration,
passes each event to ``on_event(origin, event)`` (the console hands it to the ledger
writer and returns an awaitable that completes when its batch committed) and acknowledges it
only after that.  The link's loop never waits on the database: while one table's event waits
for its commit, every other link reads, answers and sends heartbeats.  It reconnects with
backoff after a drop, declares the table offline when the controller falls silent for
three heartbeats, and keeps the console's commands (PAY, REJECT) queued, sending them again
every retransmit interval, until the controller acknowledges them.

This module is the connection: connecting, the HELLO / WELCOME handshake, heartbeats, each
frame to its part, and the reconnect.  Its parts: the events, taken in sequence per (table,
boot) and acknowledged (:mod:`core.controllers.link_events`); the commands, queued until
acknowledged (:mod:`core.controllers.link_commands`); how a connection ends and which ends are
refusals (:mod:`core.controllers.link_ends`).  Over TLS (``tls``, :mod:`core.controllers.tls`)
it accepts a controller only with a certificate from the casino CA naming the configured table;
plain TCP only when given no context, which the console does only for a floor file that says
``transport = "plain-lab-only"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import ssl
from collections.abc import Callable

from core.controllers import tls as link_tls
from core.controllers.frames import (
    DEFAULT_HEARTBEAT_MS,
    DEFAULT_RETRANSMIT_MS,
    TIMEOUT_HEARTBEATS,
    Command,
    CommandAck,
    ErrorFrame,
    EventFrame,
    Frame,
    Gone,
    Heartbeat,
    Hello,
    JackpotState,
    ProtocolError,
    Welcome,
    utc_now_iso,
)
from core.controllers.link_commands import CommandQueue
from core.controllers.link_ends import (
    CLOSED_BY_CONTROLLER,
    REFUSAL_REPEATS,
    Refusals,
    SessionEnd,
    handshake_end,
)
from core.controllers.link_events import Deliveries, OnEvent
from core.controllers.protocol import FrameBuffer, encode_frame
from core.controllers.screening import refusal_text

log = logging.getLogger("podium.link")

OnStatus = Callable[[str, bool, str], object]


class LinkError(ValueError):
    """A link could not be configured (bad table id, port ...)."""


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
        self._writer: asyncio.StreamWriter | None = None
        self._main: asyncio.Task[None] | None = None
        self._closing = False
        self._events = Deliveries(table_id, on_event, self._send, seats=seats,
                                  retransmit=retransmit)
        self._commands = CommandQueue(table_id, self.console_id, retransmit, self._send)
        self._refusals = Refusals(table_id)

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
        self._commands.cancel()
        self._set_status(False, "closed")

    async def send_command(self, command: Command) -> int:
        """Queue ``command`` for the controller (sent now if online, resent after every
        reconnect until acknowledged).  Returns its command sequence number."""
        return await self._commands.add(command, online=self.online)

    async def send_state(self, state: JackpotState) -> None:
        """Tell the controller a level's Jackpot Lock state now, if the link is up (not queued:
        the console sends every level's state again after the next WELCOME).  The frame is
        written before the first wait (for the connection to take it): states sent in a given
        order reach the wire in that order (``core.app.jackpot_lock``)."""
        if self.online:
            await self._send(state)

    async def command_result(self, cseq: int) -> CommandAck:
        """Wait until the controller acknowledged command ``cseq``."""
        done = self._commands.waiter(cseq)
        if done is None:
            raise LinkError(f"table {self.table_id}: no queued command {cseq}")
        return await asyncio.shield(done)

    @property
    def pending_commands(self) -> list[Command]:
        return self._commands.commands

    def acknowledged(self, boot: str, seq: int) -> bool:
        """Whether this link has acknowledged event ``(boot, seq)`` (this console run)."""
        return self._events.acknowledged(boot, seq)

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
        Otherwise :class:`SessionEnd` naming the cause."""
        where = f"{self.host}:{self.port}"
        try:
            async with asyncio.timeout(self.connect_timeout):
                reader, writer = await asyncio.open_connection(self.host, self.port,
                                                               ssl=self.tls)
        except TimeoutError:
            raise SessionEnd(f"can not connect to {where}: timed out after "
                             f"{self.connect_timeout:g} s" + (" (connecting or in the TLS "
                                                              "handshake)" if self.tls else "")
                             ) from None
        except ssl.SSLError as exc:
            raise self._handshake_end(exc) from None
        except OSError as exc:
            if self.tls is not None and isinstance(exc, ConnectionError) and \
                    not isinstance(exc, ConnectionRefusedError):
                raise self._handshake_end(exc) from None  # reset or closed in the handshake
            raise SessionEnd(f"can not connect to {where}: "
                             f"{exc.strerror or str(exc) or type(exc).__name__}") from None
        if self.tls is None:
            return reader, writer
        problem = link_tls.controller_problem(writer.get_extra_info("ssl_object"),
                                              self.table_id, f"controller at {where}")
        if problem:  # the handshake completed: this certificate is what the controller has
            writer.transport.abort()
            raise SessionEnd(f"TLS refused: {problem}", refusal=f"TLS refused: {problem}")
        return reader, writer

    def _handshake_end(self, exc: OSError) -> SessionEnd:
        """How a failed TLS handshake (or the first read after it) ends the connection."""
        return handshake_end(exc, f"{self.host}:{self.port}")

    async def _loop(self) -> None:
        delay = self.reconnect_delay
        while not self._closing:
            end = await self._connection()
            if self.online:
                log.warning("table %s: link down: %s", self.table_id, end)
                delay = self.reconnect_delay  # it was up: retry soon
            detail, refused = self._refusals.judge(end)
            self._set_status(False, detail)
            if refused:
                delay = self.max_reconnect_delay
            elif end.answered:  # the controller is up; the path damaged the handshake
                delay = self.reconnect_delay
            await self._sleep(delay)
            delay = min(delay * 2, self.max_reconnect_delay)

    async def _connection(self) -> SessionEnd:
        """One connection to the controller, from connecting to its end: how it ended."""
        try:
            reader, writer = await self._connect()
        except SessionEnd as end:
            return end
        self._writer = writer
        try:
            await self._session(reader, writer)
            return SessionEnd("connection closed")
        except SessionEnd as end:
            if str(end) == CLOSED_BY_CONTROLLER and self.tls is not None and not self.online:
                # TLS 1.3: a controller refusing this console's certificate closes the
                # connection after the handshake, before any HELLO (or a damaged handshake)
                where = f"{self.host}:{self.port}"
                return SessionEnd(
                    f"can not connect to {where}: the controller closed the connection before "
                    "its HELLO", after=REFUSAL_REPEATS, answered=True,
                    refusal=f"TLS refused: controller at {where} closed the connection before "
                            "its HELLO: it does not accept this console's certificate (not a "
                            "console's, or not from its CA)?")
            return end
        except ssl.SSLError as exc:
            if not self.online:  # TLS 1.3: an alert about this console's certificate comes
                return self._handshake_end(exc)  # after the handshake, at the first read
            return SessionEnd(f"connection lost: TLS: {link_tls.record_fault(exc)}")
        except (OSError, asyncio.IncompleteReadError) as exc:
            why = (exc.strerror if isinstance(exc, OSError) else "") or str(exc)
            return SessionEnd(f"connection lost: {why or type(exc).__name__}")
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
            raise SessionEnd(f"no heartbeat from the controller for {timeout:g} s") from None
        if not data:
            raise SessionEnd(CLOSED_BY_CONTROLLER)
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
            raise SessionEnd(f"controller did not start with HELLO ({what})")
        problem = self._check_hello(first)
        if problem:
            await self._send(ErrorFrame("HELLO_REFUSED", refusal_text(problem)))
            raise SessionEnd(f"HELLO refused: {problem}", refusal=f"HELLO refused: {problem}")
        self._refusals.accepted()
        self.hello = first
        await self._send(Welcome(self.console_id, round(self.heartbeat * 1000)))
        self._set_status(True, f"{first.model} boot {first.boot}, paytable {first.paytable}")
        log.info("table %s: online (%s boot %s)", self.table_id, first.model, first.boot)
        await self._commands.send_all()
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
        resend = asyncio.create_task(self._commands.retransmit_loop(),
                                     name=f"retransmit-{self.table_id}")
        try:
            while True:
                await asyncio.sleep(self.heartbeat)
                await self._send(Heartbeat(utc_now_iso()))
        finally:
            resend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await resend

    async def _handle(self, item: Frame | ProtocolError, hello: Hello) -> None:
        if isinstance(item, ProtocolError):
            if item.event is not None:
                await self._events.malformed(item)
            else:
                log.warning("table %s: malformed frame refused: %s", self.table_id, item)
                await self._send(ErrorFrame("BAD_FRAME", refusal_text(str(item)), item.seq))
        elif isinstance(item, EventFrame):
            await self._events.event(item, hello)
        elif isinstance(item, CommandAck):
            self._commands.acknowledged(item)
        elif isinstance(item, Heartbeat):
            pass
        elif isinstance(item, Gone):
            await self._events.gone(item)
        elif isinstance(item, Hello):
            if item != hello:
                await self._send(ErrorFrame("UNEXPECTED", "another HELLO on a live connection"))
                raise SessionEnd(f"controller sent another HELLO (boot {item.boot})")
            # our WELCOME was lost or damaged: the controller waits for it
            await self._send(Welcome(self.console_id, round(self.heartbeat * 1000)))
        elif isinstance(item, ErrorFrame):
            log.warning("table %s: controller reports %s: %s%s", self.table_id, item.code,
                        item.message, f" (seq {item.seq})" if item.seq else "")
        else:
            msg = f"a controller does not send {type(item).__name__} frames here"
            log.warning("table %s: %s", self.table_id, msg)
            await self._send(ErrorFrame("UNEXPECTED", msg))
