"""A loopback TCP proxy that damages the controller protocol on purpose (docs/protocol.md,
"Chaos"): between a console link and one table controller it drops, duplicates, reorders,
corrupts (flips a byte), truncates frames and cuts the connection, at given rates, in both
directions.  ``tests/core/controllers/test_chaos.py`` and ``benchmarks/chaos.py`` run whole floors
through it to show that no event is lost, none is recorded twice and no damaged frame is taken.

The proxy knows nothing of the frames but their newlines: a fault hits one line.  With
``chunks=True`` it does not look for newlines at all: a fault hits one chunk as read from the
socket, the raw TCP stream (under TLS, the records of the handshake and the encrypted frames).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import Counter
from dataclasses import dataclass, fields

log = logging.getLogger("podium.chaos")

FAULT_KINDS = ("drop", "duplicate", "reorder", "corrupt", "truncate", "disconnect")


@dataclass(frozen=True)
class FaultRates:
    """Per frame, the chance of each fault (at most one fault hits a frame)."""

    drop: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0  # held back and sent after the next frame
    corrupt: float = 0.0  # one byte (not a frame's newline) XORed with a random non-zero value
    truncate: float = 0.0  # cut short (a frame: a newline put after the cut)
    disconnect: float = 0.0  # both connections cut before the frame goes out

    def __post_init__(self) -> None:
        rates = [getattr(self, f.name) for f in fields(self)]
        if any(not 0 <= r <= 1 for r in rates) or sum(rates) > 1:
            raise ValueError(f"fault rates must be between 0 and 1 and add up to at most 1: "
                             f"{rates}")


class _Connection:
    def __init__(self, console: asyncio.StreamWriter, controller: asyncio.StreamWriter) -> None:
        self.writers = (console, controller)
        self.closed = False

    def close(self) -> None:
        self.closed = True
        for w in self.writers:
            w.transport.abort()


class ChaosProxy:
    """Listens on ``host:port`` (0: a free port, then :attr:`port`); every connection a console
    makes is relayed to ``target_host:target_port`` with faults at ``rates``, drawn from a
    random generator seeded with ``seed``, per frame (a line) or, with ``chunks``, per chunk read
    from the socket.  :attr:`faults` counts the faults by kind, :attr:`frames` the frames (or
    chunks) relayed by direction (``to_controller``, ``to_console``)."""

    def __init__(self, target_host: str, target_port: int, rates: FaultRates, *,
                 seed: int | str = 0, host: str = "127.0.0.1", port: int = 0,
                 chunks: bool = False) -> None:
        self.target = (target_host, target_port)
        self.rates = rates
        self.chunks = chunks
        self.host = host
        self.port = port
        self.rng = random.Random(seed)
        self.faults: Counter[str] = Counter()
        self.frames: Counter[str] = Counter()
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._open: set[_Connection] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for conn in list(self._open):
            conn.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _client(self, c_reader: asyncio.StreamReader,
                      c_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            u_reader, u_writer = await asyncio.open_connection(*self.target)
        except OSError as exc:
            log.info("chaos proxy :%d: controller unreachable: %s", self.port, exc)
            c_writer.transport.abort()
            if task is not None:
                self._tasks.discard(task)
            return
        self.connections += 1
        conn = _Connection(c_writer, u_writer)
        self._open.add(conn)
        pipes = [asyncio.create_task(self._pipe(c_reader, u_writer, "to_controller", conn)),
                 asyncio.create_task(self._pipe(u_reader, c_writer, "to_console", conn))]
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            conn.close()
            self._open.discard(conn)
            for p in pipes:
                p.cancel()
            for p in pipes:
                with contextlib.suppress(asyncio.CancelledError, OSError):
                    await p
            if task is not None:
                self._tasks.discard(task)

    def _fault(self) -> str:
        r = self.rng.random()
        for kind in FAULT_KINDS:
            rate: float = getattr(self.rates, kind)
            if r < rate:
                return kind
            r -= rate
        return ""

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    direction: str, conn: _Connection) -> None:
        buf = b""
        held: bytes | None = None
        while not conn.closed:
            try:
                data = await reader.read(65_536)
            except OSError:
                return
            if not data:
                return
            if self.chunks:
                units = [data]
            else:
                *lines, buf = (buf + data).split(b"\n")
                units = [line + b"\n" for line in lines]
            for frame in units:
                self.frames[direction] += 1
                end = len(frame) if self.chunks else len(frame) - 1  # a frame keeps its newline
                kind = self._fault()
                out: list[bytes] = []
                if kind:
                    self.faults[kind] += 1
                if kind == "drop":
                    pass
                elif kind == "duplicate":
                    out = [frame, frame]
                elif kind == "reorder" and held is None:
                    held = frame
                elif kind == "corrupt" and end > 0:
                    damaged = bytearray(frame)
                    damaged[self.rng.randrange(end)] ^= self.rng.randint(1, 255)
                    out = [bytes(damaged)]
                elif kind == "truncate" and end > 1:
                    out = [frame[:self.rng.randrange(1, end)] + (b"" if self.chunks else b"\n")]
                elif kind == "disconnect":
                    conn.close()
                    return
                else:
                    out = [frame]
                if out and held is not None:
                    out.append(held)  # the held frame goes out after the next one
                    held = None
                for chunk in out:
                    writer.write(chunk)
            try:
                await writer.drain()
            except (OSError, RuntimeError):
                return
