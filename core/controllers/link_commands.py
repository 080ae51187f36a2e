"""The console's commands to one table (PAY, REJECT: docs/protocol.md, "Commands"), queued
until the controller acknowledges them: sent now when the link is up, all again after every
WELCOME, and each again every retransmit interval on the live connection.  The queue is memory
only: the ledger is the source of truth, and the console sends its decisions again from it when
a link comes up (``core.app.answers``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from core.controllers.frames import Command, CommandAck, CommandFrame, Frame

log = logging.getLogger("podium.link")


@dataclass
class _Pending:
    cseq: int
    command: Command
    done: asyncio.Future[CommandAck]
    sent_at: float = float("-inf")  # loop time it last went on the wire


class CommandQueue:
    """One link's commands not yet acknowledged, by command sequence number (``cseq``).

    ``send`` puts a frame on the link's connection (nothing when it is down); ``retransmit``
    is in seconds.  Runs on the link's loop."""

    def __init__(self, table_id: str, console_id: str, retransmit: float,
                 send: Callable[[Frame], Awaitable[None]]) -> None:
        self.table_id = table_id
        self.console_id = console_id
        self.retransmit = retransmit
        self._send = send
        self._pending: dict[int, _Pending] = {}
        self._next_cseq = 1

    @property
    def commands(self) -> list[Command]:
        """The commands waiting for their acknowledgement, in cseq order."""
        return [p.command for _, p in sorted(self._pending.items())]

    async def add(self, command: Command, *, online: bool) -> int:
        """Queue ``command`` (sent now when ``online``); its command sequence number."""
        cseq = self._next_cseq
        self._next_cseq += 1
        loop = asyncio.get_running_loop()
        p = self._pending[cseq] = _Pending(cseq, command, loop.create_future())
        if online:
            await self._send_command(p)
        return cseq

    def waiter(self, cseq: int) -> asyncio.Future[CommandAck] | None:
        """The future of command ``cseq``'s acknowledgement (None: no such command queued)."""
        p = self._pending.get(cseq)
        return None if p is None else p.done

    async def send_all(self) -> None:
        """Every command waiting, in cseq order (a WELCOME was sent: a new connection)."""
        for p in sorted(self._pending.values(), key=lambda p: p.cseq):
            await self._send_command(p)

    async def retransmit_loop(self) -> None:
        """Until cancelled: each command not acknowledged ``retransmit`` seconds after it last
        went out is sent again."""
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

    def acknowledged(self, ack: CommandAck) -> None:
        """The controller's CMD_ACK: the command leaves the queue and its waiters hear it."""
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

    def cancel(self) -> None:
        """The link is closing: every waiter is cancelled (the commands stay queued)."""
        for p in self._pending.values():
            if not p.done.done():
                p.done.cancel()
