"""The controller links' asyncio loop, on its own thread (``podium-links``).

The loop runs the ``LinkManager`` of the tables this process serves (every configured table in
``serve`` on SQLite; on a shared ledger only the tables it holds, added and removed by
``claims.ClaimKeeper``).  The loop never waits on the database: a link hands its event to the
ledger writer and ACKs it when its batch committed (``answers.Answers``).  Other threads reach
the loop only through ``run`` and ``remove_soon``; once ``stopped`` is set nothing more is sent
or linked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from core.controllers.link import OnStatus
from core.controllers.link_events import OnEvent
from core.controllers.link_manager import LinkManager
from core.floorconfig import FloorConfig

log = logging.getLogger("podium.runtime")

T = TypeVar("T")


class LinkLoop:
    """The ``podium-links`` thread, its event loop and the links on it."""

    def __init__(self, config: FloorConfig, link_options: dict[str, Any]) -> None:
        self.config = config
        self._options = link_options
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.links: LinkManager | None = None
        self._links_task: asyncio.Task[None] | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self._ready = threading.Event()
        self._removing: set[asyncio.Task[None]] = set()  # links closed for a fenced write
        self.stopped = False  # the console is stopping: nothing more is sent or linked

    def start(self, on_event: OnEvent, on_status: OnStatus, *, tables: frozenset[str],
              tls: ssl.SSLContext | None,
              watch: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Start the thread with links for ``tables`` (more are added later on a shared
        ledger) and, when given, ``watch()`` as a task beside them; returns once the loop
        runs (or after 10 s)."""
        self.thread = threading.Thread(target=self._run, args=(on_event, on_status, tables,
                                                               tls, watch),
                                       name="podium-links", daemon=True)
        self.thread.start()
        self._ready.wait(10)

    def _run(self, on_event: OnEvent, on_status: OnStatus, tables: frozenset[str],
             tls: ssl.SSLContext | None,
             watch: Callable[[], Coroutine[Any, Any, None]] | None) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        asyncio.set_event_loop(loop)
        # every table is OFFLINE in the ledger since Floor.start(), until its link is up; on
        # a shared ledger a table's link starts when this process has claimed it
        self.links = LinkManager.from_floor(self.config, on_event, on_status, tables=tables,
                                            tls=tls, **self._options)
        self._links_task = loop.create_task(self.links.run())
        if watch is not None:
            self._watch_task = loop.create_task(watch())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    def close(self, wake_watch: Callable[[], None]) -> None:
        """Close the links (the watch task first: ``wake_watch()`` ends its round) and end
        the thread."""
        if self.loop is not None and self.links is not None:
            links, task, watch = self.links, self._links_task, self._watch_task

            async def close() -> None:
                if watch is not None:  # it ends its round (a link it is closing, closed)
                    wake_watch()
                    await watch
                await asyncio.gather(*self._removing, return_exceptions=True)
                await links.close()
                if task is not None:
                    await task
                # a link closed by another round (a table given up) may still be ending
                rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                if rest:
                    await asyncio.wait(rest, timeout=2)

            fut = asyncio.run_coroutine_threadsafe(close(), self.loop)
            try:
                fut.result(10)
            except Exception as exc:  # closing anyway
                log.warning("closing the controller links: %s", exc)
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self.thread is not None:
            self.thread.join(10)

    def run(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Run ``coro`` on the link loop (``RuntimeError`` when the loop is closing)."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def remove_soon(self, table: str) -> None:
        """Close ``table``'s link at once, from any thread (``close`` waits for it)."""
        loop, links = self.loop, self.links
        if loop is None or links is None or table not in links.links:
            return

        def remove() -> None:  # on the link loop; close() waits for it
            if self.stopped:
                return
            task = loop.create_task(links.remove(table))
            self._removing.add(task)
            task.add_done_callback(self._removing.discard)

        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(remove)

    def status(self) -> dict[str, tuple[bool, str]]:
        """Per table: (online, what the link last said)."""
        links = self.links
        return links.status() if links is not None else {}

    def served(self) -> frozenset[str]:
        """The tables whose links run now."""
        links = self.links
        return frozenset(links.links) if links is not None else frozenset()
