"""The tables this process serves on a shared ledger (PostgreSQL).

A table is linked only while this process holds its claim (core/controllers/ownership.py): the
``podium-claims`` thread renews the claims and asks for the tables not held yet every
``claim_interval``, and keeps the links in step with what is held; on the link loop a table's
link is closed the moment its lease ends here, whatever that thread is doing.  A write the fence
refuses (``NotHeld``) closes the table's link at once (``ClaimKeeper.not_held``).  On SQLite (one
podium) there are no claims: every table in ``serve`` is linked at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from dataclasses import dataclass

from core.app.links import LinkLoop
from core.app.listeners import Listeners
from core.controllers.link_manager import endpoints_from_floor
from core.controllers.ownership import ClaimError, TableClaims
from core.floorconfig import FloorConfig
from core.tablegames.floor import Floor

log = logging.getLogger("podium.runtime")


@dataclass
class Service:
    """This process to the ledger and the other podiums: its ``name`` and ``kind`` ("console"
    or "serve"), the tables it ``serve``s, and how often it renews its claims (read every
    round)."""

    name: str
    kind: str
    serve: frozenset[str]
    claim_interval: float


def names(tables: list[str], most: int = 12) -> str:
    shown = ", ".join(tables[:most])
    return shown + (f" and {len(tables) - most} more" if len(tables) > most else "")


class ClaimKeeper:
    """The claims of the tables in ``service.serve`` and the links that follow them."""

    def __init__(self, floor: Floor, config: FloorConfig, service: Service, links: LinkLoop,
                 listeners: Listeners) -> None:
        self.floor = floor
        self.config = config
        self.service = service
        self._links = links
        self._listeners = listeners
        self.claims: TableClaims | None = None
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._watch_wake = asyncio.Event()
        self._refusals_said: dict[str, str] = {}

    def start(self) -> None:
        """Claim the tables (the link loop runs) and start the ``podium-claims`` thread."""
        self.claims = TableClaims(self.floor, self.service.name, self.service.kind)
        # every event and link state of a table is written only under its claim
        self.floor.writer.fence = self.claims.fence
        self.claim_once()
        self._thread = threading.Thread(target=self._worker, name="podium-claims", daemon=True)
        self._thread.start()

    def stop_worker(self) -> None:
        """End the ``podium-claims`` thread (the links are closed after it)."""
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)

    def wake_watch(self) -> None:
        """End the lease watch's wait (the links are closing)."""
        self._watch_wake.set()

    def close(self) -> None:
        """Give the claims up (after the last event is committed: a standby goes on)."""
        if self.claims is not None:
            self.claims.close()

    async def watch_leases(self) -> None:
        """On the link loop: a table's link is closed the moment its lease ends here (not
        renewed: the database does not answer, or this process was paused), whatever the
        claims' thread is doing; the heartbeat records the loss."""
        while not self._links.stopped:
            claims, links = self.claims, self._links.links
            delay = self.service.claim_interval
            if claims is not None and links is not None:
                for table in sorted(t for t in links.links if not claims.holds(t)):
                    log.warning("service %s: table %s: its lease ended here; the link is "
                                "closed", self.service.name, table)
                    await links.remove(table)
                at = claims.next_lapse_at()
                if at is not None:
                    delay = max(0.01, min(delay, at - time.monotonic()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._watch_wake.wait(), delay)

    def not_held(self, table: str, why: str) -> None:
        """A write for ``table`` was refused by the fence, or its lease ended here: it is
        served no more, its link closed at once (the controller keeps what was not
        acknowledged for the table's service)."""
        if self.claims is not None:
            self.claims.drop(table, why)
        self._links.remove_soon(table)

    def _worker(self) -> None:
        while True:
            delay = self.service.claim_interval
            claims = self.claims
            at = claims.next_link_at() if claims is not None else None
            if at is not None:  # a table's grace ends sooner: link it then, not a round later
                delay = max(0.01, min(delay, at - time.monotonic()))
            if self._wake.wait(delay) or self._links.stopped:
                return
            self.claim_once()

    def claim_once(self) -> None:
        """One round: the lock connection alive (else every link is closed at once), then
        the tables not held yet asked for; the links follow what is held."""
        claims, name, say = self.claims, self.service.name, self._listeners.say
        if claims is None or self._links.stopped:
            return
        try:
            claims.open()
            before = set(claims.owned)
            if not claims.beat():
                self.sync_links()  # lost: closed before anything is asked again
                say(f"Service {name}: the ledger's lock connection dropped; "
                    "every table was given up and is asked for again")
                return
            given_up = sorted(before - claims.owned)
            if given_up:
                self.sync_links()
                say(f"Service {name} serves {names(given_up)} no more: another "
                    "service claimed them, or this service's lease on them ended "
                    "before it was renewed; asked for again")
            taken, refused = claims.claim(self.service.serve - claims.owned)
        except ClaimError as exc:
            self.sync_links()
            if self._refusals_said.get("") != str(exc):
                self._refusals_said[""] = str(exc)
                say(f"Service {name}: can not claim tables: {exc}")
            return
        except Exception:
            log.exception("service %s: claiming tables failed", name)
            self.sync_links()
            return
        self._refusals_said.pop("", None)
        if taken:
            say(f"Service {name} serves {len(taken)} table(s) now: " + names(taken))
        for table, why in sorted(refused.items()):
            if self._refusals_said.get(table) != why:
                self._refusals_said[table] = why
                say(f"Table {table}: not served here: {why}; standing by")
        for table in taken:
            self._refusals_said.pop(table, None)
        self.sync_links()

    def sync_links(self) -> None:
        """Links for exactly the tables this process holds (on the link loop)."""
        links, claims = self._links.links, self.claims
        if self._links.loop is None or links is None or claims is None:
            return
        held = claims.linkable()
        eps = {ep.table_id: ep for ep in endpoints_from_floor(self.config)}

        async def sync() -> None:
            for table in sorted(set(links.links) - held):
                await links.remove(table)
            for table in sorted(held - set(links.links)):
                links.add(eps[table])

        with contextlib.suppress(RuntimeError):  # the loop is closing
            fut = self._links.run(sync())
            try:
                fut.result(10)
            except Exception as exc:
                log.warning("service %s: links not in step with the claims: %s",
                            self.service.name, exc)
