"""The console core: the floor, one controller link per configured table, and the slip printer,
wired together and running without any GUI.

``ConsoleCore`` owns one background thread running an asyncio loop for the controller links, the
floor's ledger writer thread (controller events committed in batches, ``core.tablegames.writer``)
and a small pool for the reads the links need (the decisions to send again).  The link loop never
waits on the database: a link hands its event to the writer and ACKs it when its batch committed.

When the floor decides a hit (paid, auto-paid, rejected), the core sends PAY
or REJECT back to the table's controller.  The ledger, not the link's memory, is the source of
truth for those answers: whenever a table's link comes up, the core sends PAY / REJECT again for
every decided hit of a round the controller has not closed (``Floor.awaited_decisions``), so a
console restart or a decision taken while the link was down loses nothing; the controller
applies a decision once per hit and acknowledges a repeat.  Win slips are printed on a printer
thread; a slip that could not print stays queued in the ledger and can be printed later.  The Qt
console, the tests and the benchmarks all drive this same object.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from core.controllers.events import Delivery, Origin, Refused, SequenceGap
from core.controllers.link import LinkManager, endpoints_from_floor
from core.controllers.ownership import (
    ClaimError,
    TableClaims,
    TableService,
    service_name,
    table_services,
)
from core.controllers.protocol import HitRejected, JackpotState, PayConfirmed
from core.controllers.tls import link_tls
from core.floorconfig import FloorConfig
from core.money import format_cents
from core.tablegames.feed import FeedListener
from core.tablegames.floor import Floor
from core.tablegames.paper import Printer
from core.tablegames.views import (
    ControllerDecision,
    FloorChange,
    HitOutcome,
    LevelView,
    SlipLine,
    SlipPrintState,
)
from core.tablegames.writer import NotHeld

log = logging.getLogger("podium.runtime")

SWITCH_INTERVAL_S = 0.0005

@dataclass(frozen=True)
class SlipRecord:
    """A win slip as the slips screen lists it."""

    slip_no: int
    hit_ref: str
    where: str
    amount_cents: int
    paid_at: datetime
    printed: str  # "yes (2)", "FAILED: ...", "UNKNOWN: ...", "printing…", "queued"
    printed_ok: bool
    state: str = ""  # printed | printing | unknown | failed | queued
    detail: str = ""  # what the state means, in a sentence (the screen's tooltip)


def _print_words(st: SlipPrintState, printing: bool) -> tuple[str, bool, str, str]:
    """(printed column, printed ok, state, detail) of a slip's print state."""
    if st.state == "printed":
        return (f"yes ({st.printed})" if st.printed > 1 else "yes"), True, "printed", (
            "printed; the printer confirmed it")
    if printing:
        return "printing…", False, "printing", "being printed now"
    if st.state == "unknown":
        return ("UNKNOWN: print started, no outcome recorded", False, "unknown",
                f"A print started on {st.open_printer} and its outcome was never recorded "
                "(the console stopped in between): it may be on paper. Its next print is "
                "marked DUPLICATE - PRINT STATE UNKNOWN.")
    if st.state == "failed":
        detail = st.last_error + (" The next print is marked DUPLICATE - PRINT STATE "
                                  "UNKNOWN: an earlier print may be on paper."
                                  if st.maybe_on_paper else "")
        return f"FAILED: {st.last_error}", False, "failed", detail
    return "queued", False, "queued", "not printed yet"


_VOID_WORDS = ("VOID", False, "void", "voided by an executive: not payable, never printed "
               "again; its win page shows who voided it, when and why")



def _jackpot_state(lv: LevelView) -> JackpotState:
    return JackpotState(lv.group, lv.level, "PENDING" if lv.frozen_hits else "CLEAR",
                        lv.frozen_cents, lv.frozen_hits)


def _names(tables: list[str], most: int = 12) -> str:
    shown = ", ".join(tables[:most])
    return shown + (f" and {len(tables) - most} more" if len(tables) > most else "")


def controller_command(d: ControllerDecision) -> PayConfirmed | HitRejected:
    """The PAY or REJECT a decided hit's controller must receive."""
    if d.outcome in ("paid", "auto_paid"):
        return PayConfirmed(d.round_no, d.seat, d.hit_ref, d.amount_cents)
    return HitRejected(d.round_no, d.seat, d.reason or "rejected by supervisor", d.hit_ref)


class ConsoleCore:
    def __init__(self, engine: Engine, config: FloorConfig, paytables: dict[str, Any], *,
                 printer: Printer | None = None, link_options: dict[str, Any] | None = None,
                 floor: Floor | None = None, serve: Iterable[str] | None = None,
                 name: str | None = None, kind: str = "console",
                 print_tables: Iterable[str] | None = None,
                 claim_interval: float = 1.0) -> None:
        """``serve``: the tables whose controller links this process serves (None: every
        table of the floor; ``()``: none, a console that is a client of the floor services).
        On PostgreSQL a table is served only while this process holds its claim
        (core/controllers/ownership.py: a second process asking is refused and stands by);
        on SQLite (one podium) every table in ``serve`` is linked at once.  ``name`` names
        the service in the ledger and to the other podiums; ``kind`` is "console" or
        "serve".  ``print_tables``: the tables whose slips made by another process (a
        service's auto-pay) this console prints (None: none; its own pays always print)."""
        self.engine = engine
        self.config = config
        self.paytables = paytables
        self.floor = floor or Floor(engine, config, paytables)
        self.printer = printer
        self._link_options = link_options or {}
        self._messages: list[Callable[[str], None]] = []
        self._status_listeners: list[Callable[[str], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._links: LinkManager | None = None
        self._links_task: asyncio.Task[None] | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self._watch_wake = asyncio.Event()
        self._removing: set[asyncio.Task[None]] = set()  # links closed for a fenced write
        self._link_tls: ssl.SSLContext | None = None
        self._ready = threading.Event()
        self._stopped = False
        self._print_queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        self._print_thread: threading.Thread | None = None
        self._printing: set[int] = set()  # slips on their way to the printer now
        self._printing_lock = threading.Lock()
        self.started_at: datetime | None = None  # when start() began (the ledger's clock)
        # reads for the links (decisions to send again), off the link loop and the writer
        self._io = ThreadPoolExecutor(2, thread_name_prefix="podium-io")
        self._resend_tables: set[str] = set()
        self._resend_lock = threading.Lock()
        # (group, level) -> (the Jackpot Lock state every table of the group is told, the
        # version of the level view it came from)
        self._jackpot: dict[tuple[str, str], tuple[JackpotState, int]] = {}
        self._jackpot_lock = threading.Lock()
        configured = [t.id for t in config.tables]
        unknown = sorted(set(serve or ()) - set(configured))
        if unknown:
            raise ValueError(f"tables to serve: {', '.join(unknown)} not on this floor")
        self.serve: frozenset[str] = frozenset(configured if serve is None else serve)
        self.kind = kind
        self.name = service_name(name, kind)
        self.print_tables: frozenset[str] = frozenset(print_tables or ())
        self.claim_interval = claim_interval
        self.pit: str | None = None  # the pit this podium stands at (the console shows it)
        self.claims: TableClaims | None = None
        self.feed: FeedListener | None = None
        self._claim_thread: threading.Thread | None = None
        self._claim_wake = threading.Event()
        self._refusals_said: dict[str, str] = {}
        self._resync_listeners: list[Callable[[], None]] = []
        self.floor.add_listener(self._on_change)

    # -- lifecycle --------------------------------------------------------------------------
    def start(self, *, links: bool = True) -> list[str]:
        """Sync the configuration into the ledger, then start the links and the printer
        thread.  Returns configuration warnings (also sent to the message listeners).  A
        ``[controller_link]`` whose certificates are missing or wrong is refused first
        (``tls.TlsError``, naming the key and the file), before anything starts."""
        self.started_at = self.floor.ctx.now()
        pg = self.floor.ctx.pg
        serving = links and bool(self.serve)
        if serving:
            self._link_tls = link_tls(self.config)
        # one podium (SQLite) resets its tables OFFLINE; on a shared ledger each table's
        # service does it when it takes the table
        warnings = (self.floor.start(None if not pg else ()) if not pg or self.serve
                    else self.floor.join())
        if pg:  # what the other processes on this ledger change, live (no polling)
            self.feed = FeedListener(self.floor.ctx, on_resync=self._resync)
            self.feed.start()
            if not self.feed.connected.is_set():
                warnings.append(f"live feed: not listening yet ({self.feed.last_error}); "
                                "the screens follow the other podiums once it is")
        for lv in self.floor.snapshot().levels:  # what each controller is told after WELCOME
            self._jackpot[(lv.group, lv.level)] = (_jackpot_state(lv), lv.version)
        # The ledger writer, the links and the GUI share one interpreter lock; every database
        # call gives it up and must win it back.  At the default 5 ms switch interval a busy
        # GUI or link thread can hold the writer up 5 ms per statement; 0.5 ms keeps the
        # writer's turn short (docs/architecture.md, "Threads").
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.floor.writer.start()
        for note in warnings:
            self._say(f"Ledger set-up: {note}")
        self._print_thread = threading.Thread(target=self._print_worker, name="podium-printer",
                                              daemon=True)
        self._print_thread.start()
        if serving:
            if self._link_tls is None:
                self._say("Controller link: PLAIN TCP (the floor file says plain-lab-only): "
                          "anyone on the network can pose as a table. Lab use only.")
                log.warning("controller link is plain TCP (plain-lab-only)")
            self._thread = threading.Thread(target=self._run_loop, name="podium-links", daemon=True)
            self._thread.start()
            self._ready.wait(10)
            if pg:  # a table is linked only while this process holds its claim
                self.claims = TableClaims(self.floor, self.name, self.kind)
                # every event and link state of a table is written only under its claim
                self.floor.writer.fence = self.claims.fence
                self._claim_once()
                self._claim_thread = threading.Thread(target=self._claim_worker,
                                                      name="podium-claims", daemon=True)
                self._claim_thread.start()
        if self.printer is not None:
            pending = self.floor.pending_slips()
            if pending:
                unknown = sum(1 for p in pending if p.state == "unknown")
                self._say(f"{len(pending)} win slip(s) from before were never printed"
                          + (f" ({unknown} with print state unknown)" if unknown else ""))
        return warnings

    def stop(self) -> None:
        """Close the links and the printer thread (a second call does nothing).  A decision
        taken after this reaches its controller from the ledger when a console starts again."""
        if self._stopped:
            return
        self._stopped = True
        self._claim_wake.set()
        if self._claim_thread is not None:
            self._claim_thread.join(10)
        if self._loop is not None and self._links is not None:
            links, task, watch = self._links, self._links_task, self._watch_task

            async def close() -> None:
                if watch is not None:  # it ends its round (a link it is closing, closed)
                    self._watch_wake.set()
                    await watch
                await asyncio.gather(*self._removing, return_exceptions=True)
                await links.close()
                if task is not None:
                    await task
                # a link closed by another round (a table given up) may still be ending
                rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                if rest:
                    await asyncio.wait(rest, timeout=2)

            fut = asyncio.run_coroutine_threadsafe(close(), self._loop)
            try:
                fut.result(10)
            except Exception as exc:  # closing anyway
                log.warning("closing the controller links: %s", exc)
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        self.floor.writer.stop()
        if self.claims is not None:  # after the last event is committed: a standby goes on
            self.claims.close()
        if self.feed is not None:
            self.feed.stop()
        self._io.shutdown(wait=True, cancel_futures=True)
        self._print_queue.put(None)
        if self._print_thread is not None:
            self._print_thread.join(10)

    def _run_loop(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        # every table is OFFLINE in the ledger since Floor.start(), until its link is up; on
        # a shared ledger a table's link starts when this process has claimed it
        self._links = LinkManager.from_floor(
            self.config, self._on_event, self._on_status,
            tables=() if self.floor.ctx.pg else self.serve, tls=self._link_tls,
            **self._link_options)
        self._links_task = loop.create_task(self._links.run())
        if self.floor.ctx.pg:
            self._watch_task = loop.create_task(self._watch_leases())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    # -- claims: the tables this process serves (PostgreSQL) --------------------------------
    async def _watch_leases(self) -> None:
        """On the link loop: a table's link is closed the moment its lease ends here (not
        renewed: the database does not answer, or this process was paused), whatever the
        claims' thread is doing; the heartbeat records the loss."""
        while not self._stopped:
            claims, links = self.claims, self._links
            delay = self.claim_interval
            if claims is not None and links is not None:
                for table in sorted(t for t in links.links if not claims.holds(t)):
                    log.warning("service %s: table %s: its lease ended here; the link is "
                                "closed", self.name, table)
                    await links.remove(table)
                at = claims.next_lapse_at()
                if at is not None:
                    delay = max(0.01, min(delay, at - time.monotonic()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._watch_wake.wait(), delay)

    def _not_held(self, table: str, why: str) -> None:
        """A write for ``table`` was refused by the fence, or its lease ended here: it is
        served no more, its link closed at once (the controller keeps what was not
        acknowledged for the table's service)."""
        claims, loop, links = self.claims, self._loop, self._links
        if claims is not None:
            claims.drop(table, why)
        if loop is None or links is None or table not in links.links:
            return

        def remove() -> None:  # on the link loop; stop() waits for it
            if self._stopped:
                return
            task = loop.create_task(links.remove(table))
            self._removing.add(task)
            task.add_done_callback(self._removing.discard)

        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(remove)

    def _claim_worker(self) -> None:
        while True:
            delay = self.claim_interval
            claims = self.claims
            at = claims.next_link_at() if claims is not None else None
            if at is not None:  # a table's grace ends sooner: link it then, not a round later
                delay = max(0.01, min(delay, at - time.monotonic()))
            if self._claim_wake.wait(delay) or self._stopped:
                return
            self._claim_once()

    def _claim_once(self) -> None:
        """One round: the lock connection alive (else every link is closed at once), then
        the tables not held yet asked for; the links follow what is held."""
        claims = self.claims
        if claims is None or self._stopped:
            return
        try:
            claims.open()
            before = set(claims.owned)
            if not claims.beat():
                self._sync_links()  # lost: closed before anything is asked again
                self._say(f"Service {self.name}: the ledger's lock connection dropped; "
                          "every table was given up and is asked for again")
                return
            given_up = sorted(before - claims.owned)
            if given_up:
                self._sync_links()
                self._say(f"Service {self.name} serves {_names(given_up)} no more: another "
                          "service claimed them, or this service's lease on them ended "
                          "before it was renewed; asked for again")
            taken, refused = claims.claim(self.serve - claims.owned)
        except ClaimError as exc:
            self._sync_links()
            if self._refusals_said.get("") != str(exc):
                self._refusals_said[""] = str(exc)
                self._say(f"Service {self.name}: can not claim tables: {exc}")
            return
        except Exception:
            log.exception("service %s: claiming tables failed", self.name)
            self._sync_links()
            return
        self._refusals_said.pop("", None)
        if taken:
            self._say(f"Service {self.name} serves {len(taken)} table(s) now: "
                      + _names(taken))
        for table, why in sorted(refused.items()):
            if self._refusals_said.get(table) != why:
                self._refusals_said[table] = why
                self._say(f"Table {table}: not served here: {why}; standing by")
        for table in taken:
            self._refusals_said.pop(table, None)
        self._sync_links()

    def _sync_links(self) -> None:
        """Links for exactly the tables this process holds (on the link loop)."""
        loop, links, claims = self._loop, self._links, self.claims
        if loop is None or links is None or claims is None:
            return
        held = claims.linkable()
        eps = {ep.table_id: ep for ep in endpoints_from_floor(self.config)}

        async def sync() -> None:
            for table in sorted(set(links.links) - held):
                await links.remove(table)
            for table in sorted(held - set(links.links)):
                links.add(eps[table])

        with contextlib.suppress(RuntimeError):  # the loop is closing
            fut = asyncio.run_coroutine_threadsafe(sync(), loop)
            try:
                fut.result(10)
            except Exception as exc:
                log.warning("service %s: links not in step with the claims: %s", self.name,
                            exc)

    def table_services(self) -> dict[str, TableService]:
        """Per table: which process serves its controller link and whether it is up (a read;
        PostgreSQL.  One podium on SQLite serves every table itself: this console)."""
        if not self.floor.ctx.pg:
            up = self._links is not None
            return {t.id: TableService(t.id, self.name, up, self.started_at,
                                       f"served by this console ({self.name})" if up else
                                       "NO SERVICE: this console links no controller")
                    for t in self.config.tables}
        return table_services(self.floor)

    def served_tables(self) -> frozenset[str]:
        """The tables whose controller links this process runs now."""
        links = self._links
        return frozenset(links.links) if links is not None else frozenset()

    def _resync(self) -> None:
        """The live feed was lost and is back: decisions taken meanwhile are sent again, and
        the screens read everything again."""
        links = self._links
        if links is not None:
            with self._resend_lock:
                self._resend_tables |= {t for t, (up, _d) in links.status().items() if up}
            self._submit_io(self._resend_decisions)
            self._submit_io(self._reread_jackpot_states)
        for fn in list(self._resync_listeners):
            try:
                fn()
            except Exception:
                log.exception("resync listener failed")

    def _reread_jackpot_states(self) -> None:
        """Every level's Jackpot Lock state from the ledger, told to the tables where it
        changed (a change heard by nobody while the feed was down)."""
        try:
            levels = self.floor.snapshot().levels
        except Exception:
            log.exception("the levels could not be read again after the feed reconnected")
            return
        self._on_change(FloorChange("resync", level_views=levels))

    def add_resync_listener(self, fn: Callable[[], None]) -> Callable[[], None]:
        """``fn()`` when changes may have been missed (the live feed reconnected): read the
        whole floor again.  Returns its remover."""
        self._resync_listeners.append(fn)

        def remove() -> None:
            if fn in self._resync_listeners:
                self._resync_listeners.remove(fn)

        return remove

    def health(self) -> dict[str, Any]:
        """What ``podium serve`` reports on its health endpoint and in its log."""
        links = self._links
        status = links.status() if links is not None else {}
        return {
            "service": self.name, "kind": self.kind,
            "service_id": self.claims.service_id if self.claims is not None else None,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "tables_wanted": len(self.serve),
            "tables_served": len(status),
            "tables_online": sum(1 for up, _d in status.values() if up),
            "offline": sorted(t for t, (up, _d) in status.items() if not up),
            "feed_listening": bool(self.feed and self.feed.connected.is_set()),
            # jobs waiting, the oldest's wait, the last commit, and why the ledger does not
            # record (core/tablegames/writer.py)
            "writer": self.floor.writer.health(),
            "lock_connection": bool(self.claims is not None and self.claims.connected),
        }

    # -- listeners --------------------------------------------------------------------------
    def add_listener(self, fn: Callable[[FloorChange], None]) -> Callable[[], None]:
        """``fn(change)`` after every commit; returns a function that removes it."""
        return self.floor.add_listener(fn)

    def link_status(self) -> dict[str, tuple[bool, str]]:
        """Per table: (online, what the link last said), e.g. why a controller was refused."""
        links = self._links
        return links.status() if links is not None else {}

    def add_status_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(table)`` whenever a table's link goes up or down (on the link thread): the
        screen follows this console's own link at once.  Returns its remover."""
        self._status_listeners.append(fn)

        def remove() -> None:
            if fn in self._status_listeners:
                self._status_listeners.remove(fn)

        return remove

    def add_message_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(text)``: plain-language messages for the supervisor (links, refusals, printer).
        Returns a function that removes the listener."""
        self._messages.append(fn)

        def remove() -> None:
            if fn in self._messages:
                self._messages.remove(fn)

        return remove

    def _say(self, text: str) -> None:
        log.info("%s", text)
        for fn in list(self._messages):
            try:
                fn(text)
            except Exception:
                log.exception("message listener failed")

    # -- controller side (runs on the link thread) -------------------------------------------
    def _on_event(self, origin: Origin, event: Delivery) -> object:
        """Hand the event to the ledger writer; the link awaits the result (ACK after the
        commit of its batch; a ValueError is a refusal, kept in refused_events).  On a shared
        ledger an event of a table this service does not hold (its lease ended here, or the
        fence refused it) is neither recorded nor answered: the table's link is closed, and
        the controller sends it again to the table's service."""
        claims = self.claims
        if claims is not None and not claims.holds(origin.table):
            self._not_held(origin.table, "its lease ended here")
            return self._unanswered(origin.table)
        fut = self.floor.writer.submit_event(origin, event)

        def refused(f: Future[bool]) -> None:
            exc = None if f.cancelled() else f.exception()
            if isinstance(exc, NotHeld):
                self._not_held(origin.table, str(exc))
            elif isinstance(exc, ValueError):
                what = (type(event.event).__name__ if event.event is not None
                        else (event.kind or "event")) if isinstance(event, Refused) \
                    else type(event).__name__
                self._say(f"Table {origin.table}: refused {what} (seq {origin.seq}): {exc}")
            elif exc is None and isinstance(event, SequenceGap) and f.result():
                self._say(f"Table {origin.table}: events {event.first} to {event.last} of "
                          f"controller boot {origin.boot} were acknowledged before but are not "
                          "in this ledger (a ledger restored from a backup?): recorded as a gap")

        fut.add_done_callback(refused)
        return self._outcome(origin.table, fut)

    async def _outcome(self, table: str, fut: Future[Any]) -> Any:
        """The event's outcome for its link; an event refused by the fence is not answered
        (its link is being closed: :meth:`_not_held`)."""
        try:
            return await asyncio.wrap_future(fut)
        except NotHeld:
            return await self._unanswered(table)

    async def _unanswered(self, table: str) -> Any:
        """No answer for an event of a table not held: its link (the table's now) is being
        closed by :meth:`_not_held`.  The link's task ends as cancelled once that link is no
        longer the table's (so a cancellation its read swallowed does not leave it here)."""
        links = self._links
        link = links.links.get(table) if links is not None else None
        while links is not None and link is not None and links.links.get(table) is link:
            await asyncio.sleep(0.1)
        raise asyncio.CancelledError

    def _on_status(self, table: str, online: bool, detail: str) -> None:
        state = "ONLINE" if online else "OFFLINE"
        self._say(f"Table {table} {state}{': ' + detail if detail else ''}")
        for fn in list(self._status_listeners):
            try:
                fn(table)
            except Exception:
                log.exception("status listener failed")
        claims = self.claims
        if claims is not None and (table not in claims.owned or not claims.holds(table)):
            return  # given up: its link state is its next service's to write
        fut = self.floor.writer.submit_link(table, online)

        def fenced(f: Future[None]) -> None:
            if not f.cancelled() and isinstance(f.exception(), NotHeld):
                self._not_held(table, str(f.exception()))

        fut.add_done_callback(fenced)
        if online:
            self._send_jackpot_states([table], self._group_states(table))
            def resend(f: Future[None]) -> None:
                if not f.cancelled() and f.exception() is None and not self._stopped:
                    with self._resend_lock:
                        first = not self._resend_tables
                        self._resend_tables.add(table)
                    if first:  # one read for every table that came up meanwhile
                        self._submit_io(self._resend_decisions)

            fut.add_done_callback(resend)

    def _submit_io(self, fn: Callable[..., object], *args: Any) -> None:
        # RuntimeError: the console is stopping; the next start sends it again
        with contextlib.suppress(RuntimeError):
            self._io.submit(fn, *args)

    def _resend_decisions(self) -> None:
        """PAY / REJECT again for every decided hit the controllers whose links came up may
        still wait for (the ledger is the truth; a repeat is harmless: the controller applies
        a decision once per hit and answers a repeat "ok")."""
        with self._resend_lock:
            tables, self._resend_tables = sorted(self._resend_tables), set()
        if not tables:
            return
        try:
            decisions = self.floor.awaited_decisions(tables)
        except Exception:  # the ledger is unreachable: the next ONLINE tries again
            log.exception("tables %s: could not read the decisions to send again",
                          ", ".join(tables))
            return
        for d in decisions:
            log.info("table %s: sending %s of hit #%d (%s, round %d seat %d) again: the round is "
                     "still open", d.table, "PAY" if d.outcome != "rejected" else "REJECT",
                     d.hit_id, d.hit_ref, d.round_no, d.seat)
            self._send_decision(d, resend=True)

    # -- Jackpot Lock: PENDING on every table of a linked group ----------------------------
    def _group_states(self, table: str) -> list[JackpotState]:
        try:
            group = self.config.table(table).group
        except KeyError:
            return []
        with self._jackpot_lock:
            return [st for (g, _lv), (st, _v) in sorted(self._jackpot.items()) if g == group]

    def _send_jackpot_states(self, tables: list[str], states: list[JackpotState]) -> None:
        loop, links = self._loop, self._links
        if self._stopped or loop is None or links is None or not states or not tables:
            return

        async def send() -> None:
            for table in tables:
                link = links.links.get(table)  # another service's table: it tells it
                if link is None:
                    continue
                for st in states:
                    await link.send_state(st)

        with contextlib.suppress(RuntimeError):  # the loop is closing
            asyncio.run_coroutine_threadsafe(send(), loop)

    def jackpot_states(self) -> dict[tuple[str, str], JackpotState]:
        """What the console tells the controllers of each level (tests, the status bar)."""
        with self._jackpot_lock:
            return {key: st for key, (st, _v) in self._jackpot.items()}

    def _on_change(self, change: FloorChange) -> None:
        changed: dict[str, list[JackpotState]] = {}
        with self._jackpot_lock:
            for lv in change.level_views:
                key = (lv.group, lv.level)
                new = _jackpot_state(lv)
                old = self._jackpot.get(key)
                if old is not None and (old[0] == new or lv.version < old[1]):
                    continue
                self._jackpot[key] = (new, lv.version)
                changed.setdefault(lv.group, []).append(new)
                # sent under the lock: two commits' states reach the link loop in order
                self._send_jackpot_states([t.id for t in self.config.tables_in(lv.group)],
                                          [new])
        for group, states in changed.items():
            for st in states:
                self._say(f"{group} {st.level}: " + (
                    f"JACKPOT PENDING {format_cents(st.amount_cents)} frozen for {st.hits} "
                    "hit(s); the linked tables keep playing" if st.state == "PENDING"
                    else "no jackpot pending"))
        linked = self.served_tables()
        for outcome in change.outcomes:
            if outcome.outcome != "cancelled" and (outcome.table in linked
                                                   or not self.floor.ctx.pg):
                self._submit_io(self._answer_controller, outcome)
        # a new slip (a pay) prints here when this process made it, or when another process
        # (a service's auto-pay) made it for a table this console prints for
        for i, slip_no in enumerate(change.slips):
            if not change.remote or (i < len(change.slip_tables)
                                     and change.slip_tables[i] in self.print_tables):
                self.print_slip(slip_no)

    def _answer_controller(self, outcome: HitOutcome) -> None:
        if outcome.outcome == "cancelled":
            return  # the controller cancelled it itself (UNDO / MISDEAL)
        if self._stopped or self._loop is None or self._links is None:
            log.info("table %s: hit #%d %s; no controller link now, the answer is sent when "
                     "the link comes up", outcome.table, outcome.hit_id, outcome.outcome)
            return
        if outcome.table not in self._links.links:
            log.info("table %s: hit #%d %s; this process does not serve the table now: its "
                     "service sends the answer", outcome.table, outcome.hit_id, outcome.outcome)
            return
        decision = self.floor.controller_decision(outcome.hit_id)
        if decision is not None:
            self._send_decision(decision, resend=False)

    def _send_decision(self, d: ControllerDecision, *, resend: bool) -> None:
        loop, links = self._loop, self._links
        if self._stopped or loop is None or links is None:
            return
        fut = asyncio.run_coroutine_threadsafe(self._queue_command(links, d, resend), loop)
        fut.add_done_callback(lambda f: self._command_sent(d, f))

    @staticmethod
    async def _queue_command(links: LinkManager, d: ControllerDecision,
                             resend: bool) -> int | None:
        """Queue the decision's command on the table's link (runs on the link loop).  A resend
        is skipped when the link still holds the same command unacknowledged."""
        command = controller_command(d)
        link = links.link(d.table)
        if resend and command in link.pending_commands:
            return None
        return await link.send_command(command)

    def _command_sent(self, d: ControllerDecision, fut: Future[int | None]) -> None:
        if fut.cancelled():
            return  # the console is stopping; the next start sends it again
        exc = fut.exception()
        if exc is not None:
            self._say(f"Table {d.table}: could not queue the answer for seat {d.seat}: {exc}; "
                      "it is sent again when the link comes back")

    # -- printing ---------------------------------------------------------------------------
    def slip_bytes(self, slip_no: int) -> bytes:
        """The slip as it is shown (the preview): its stored bytes, after the VOID banner when
        it was voided."""
        data = self.floor.slip_bytes(slip_no)
        void = self.floor.slip_void(slip_no)
        if void is None:
            return data
        from core.tablegames.slip_record import VoidMark

        return self.floor.paper.mark_void(
            data, VoidMark(void.at, void.by, void.reason, void.money_returned),
            self.config.casino.timezone)

    def _slip_records(self, lines: list[SlipLine]) -> list[SlipRecord]:
        names = {t.id: t.name for t in self.config.tables}
        with self._printing_lock:
            printing = set(self._printing)
        return [SlipRecord(ln.slip_no, f"H{ln.hit_id}", f"{names.get(ln.table, ln.table)} seat "
                           f"{ln.seat}", ln.amount_cents, ln.created_at,
                           *(_VOID_WORDS if ln.voided else
                             _print_words(ln.print_state, ln.slip_no in printing)))
                for ln in lines]

    def recent_slips(self, limit: int = 200) -> list[SlipRecord]:
        """The latest win slips with their print state (newest first)."""
        return self._slip_records(self.floor.slip_lines(limit=limit))

    def unprinted_slips(self) -> list[SlipRecord]:
        """The win slips made before this console started that no printer confirmed printing
        (never tried, failed, or print state unknown), oldest first: offered at start."""
        return self._slip_records(self.floor.slip_lines(unprinted=True, before=self.started_at))

    def print_slip(self, slip_no: int, reprint: bool = False) -> None:
        """Queue a slip for the printer thread (never blocks the caller).  Without
        ``reprint`` it is printed only if no print of it has been confirmed by then (a slip
        queued twice prints once); with ``reprint`` it prints in any case.  What the paper
        says above the slip follows the ledger (``SlipPrintState.next_marking``): REPRINT after
        a confirmed print, DUPLICATE - PRINT STATE UNKNOWN when an earlier print may be on
        paper, nothing for the first print."""
        self._print_queue.put((slip_no, reprint))

    def print_slips(self, slip_nos: list[int]) -> None:
        """Queue slips that are not printed yet (the start-up offer)."""
        for n in slip_nos:
            self.print_slip(n)

    def print_bytes(self, data: bytes, name: str, what: str,
                    on_result: Callable[[bool, str, str], None] | None = None) -> None:
        """Queue other ready paper (a Bad Beat Jackpot share slip) for the printer thread;
        ``what`` names it in the message that says whether it printed; ``on_result(ok,
        printer, problem)`` is called on the printer thread after the attempt (to keep it in
        the ledger)."""
        self._print_queue.put((data, name, what, on_result))

    def print_queued(self) -> int:
        pending = self.floor.pending_slips()
        for p in pending:
            self.print_slip(p.slip_no)
        if not pending:
            self._say("No win slip is waiting to print")
        return len(pending)

    def _print_worker(self) -> None:
        while True:
            item = self._print_queue.get()
            if item is None:
                return
            try:
                if isinstance(item[0], bytes):
                    data, name, what, on_result = item
                    self._print_bytes(data, name, what, on_result)
                else:
                    slip_no, reprint = item
                    self._print_one(slip_no, reprint)
            except Exception:
                log.exception("printing %s", item[1] if isinstance(item[0], bytes) else item[0])

    def _print_bytes(self, data: bytes, name: str, what: str,
                     on_result: Callable[[bool, str, str], None] | None) -> None:
        if self.printer is None:
            self._say(f"{what}: no printer is configured")
            if on_result is not None:
                on_result(False, "", "no printer is configured")
            return
        from core.tablegames.paper import PrinterError

        try:
            self.printer.send(data, name)
        except PrinterError as exc:
            log.warning("%s did not print on %s: %s", what, self.printer, exc)
            if on_result is not None:
                on_result(False, str(self.printer), str(exc))
            self._say(f"{what} did not print: {exc}. Print it again from the case.")
            return
        log.info("%s printed on %s", what, self.printer)
        if on_result is not None:
            on_result(True, str(self.printer), "")
        self._say(f"{what} printed on {self.printer}")

    def _print_one(self, slip_no: int, again: bool) -> None:
        """One print of a slip: its marking from the ledger, the ``started`` record committed
        before the first byte goes out, the outcome (confirmed by the printer, or failed with
        the printer's reason) after.  A crash in between leaves the print state unknown.  The
        slip reads "printing…" until its outcome is recorded."""
        if self.printer is None:
            return
        with self._printing_lock:
            self._printing.add(slip_no)
        try:
            self._print_and_record(slip_no, again)
        finally:
            with self._printing_lock:
                self._printing.discard(slip_no)

    def _print_and_record(self, slip_no: int, again: bool) -> None:
        from core.tablegames.paper import PrinterError

        assert self.printer is not None
        void = self.floor.slip_void(slip_no)
        if void is not None:  # a void slip is not payable: it never goes to the printer again
            self._say(f"Win slip {slip_no} is VOID (voided by {void.by}: {void.reason}): not "
                      "printed. Its win page shows the void.")
            return
        state = self.floor.print_state(slip_no)
        if state.printed and not again:
            log.info("win slip %d: printed already, not printed again", slip_no)
            return
        marking = state.next_marking
        data = self.floor.paper.mark_copy(self.floor.slip_bytes(slip_no), marking)
        printer = str(self.printer)
        started: list[int] = []
        start_failed: list[Exception] = []

        def record_start() -> None:
            try:
                started.append(self.floor.record_print_started(slip_no, printer, marking,
                                                               len(data)))
            except Exception as exc:
                start_failed.append(exc)
                raise

        try:
            self.printer.send(data, slip_no, before_send=record_start)
        except PrinterError as exc:
            self._record_outcome(slip_no, started, False, exc.reason, str(exc), exc.sent)
            on_paper = bool(started) and exc.sent > 0
            self._say(f"Win slip {slip_no} did not print: {exc}. It stays queued; print it "
                      f"from the Win slips tab" + (
                          " (the next print is marked DUPLICATE - PRINT STATE UNKNOWN)."
                          if on_paper else "."))
            return
        except Exception as exc:
            if start_failed:  # nothing was sent
                log.warning("win slip %d: its print start could not be recorded: %s", slip_no,
                            exc)
                self._say(f"Win slip {slip_no} was not printed: the ledger could not record "
                          f"that its print started ({exc}); nothing was sent. Print it again "
                          f"from the Win slips tab.")
                return
            log.exception("win slip %d: printing on %s failed", slip_no, printer)
            # whether bytes went out is not known: counted as if they did
            self._record_outcome(slip_no, started, False, "printer_error",
                                 f"Printer {printer}: unexpected error ({exc})",
                                 len(data) if started else 0)
            self._say(f"Win slip {slip_no} did not print: unexpected error ({exc}). It stays "
                      f"queued; print it from the Win slips tab.")
            return
        if self._record_outcome(slip_no, started, True, "", "", len(data)):
            what = {"": "", "reprint": " (marked REPRINT)",
                    "duplicate": " (marked DUPLICATE - PRINT STATE UNKNOWN)"}[marking]
            self._say(f"Win slip {slip_no} printed on {self.printer}{what}")

    def _record_outcome(self, slip_no: int, started: list[int], ok: bool, reason: str,
                        error: str, sent: int) -> bool:
        """Append the print's outcome; False (and the supervisor told) when the ledger could
        not take it."""
        try:
            if started:
                self.floor.record_print_outcome(started[0], ok, reason=reason, error=error,
                                                sent_bytes=sent)
            else:
                self.floor.record_print(slip_no, str(self.printer), ok, error, reason=reason)
        except Exception as exc:
            log.warning("win slip %d: the outcome of its print could not be recorded: %s",
                        slip_no, exc)
            if started:  # the print state stays unknown
                self._say(f"Win slip {slip_no}: the ledger could not record whether it printed "
                          f"({exc}); its print state is unknown and its next print is marked "
                          f"DUPLICATE - PRINT STATE UNKNOWN")
            else:
                self._say(f"Win slip {slip_no} did not print, and the ledger could not record "
                          f"the attempt ({exc})")
            return False
        return True
