"""The console's links together: one :class:`~core.controllers.link.ControllerLink` per table
served, made from the floor configuration's tables (:class:`TableEndpoint`), run on one asyncio
loop (``podium-links``, ``core.app.links``), added and removed while they run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.controllers.frames import Command
from core.controllers.link import ControllerLink, LinkError, OnStatus
from core.controllers.link_events import OnEvent


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

