"""Events in, answers out: the controllers' events handed to the ledger writer, and the PAY or
REJECT each decided hit's controller must receive.

The link loop never waits on the database: an event goes to the writer and its link ACKs it
when its batch committed.  The ledger, not the link's memory, is the source of truth for the
answers: whenever a table's link comes up (and after the live feed reconnected), PAY / REJECT is
sent again for every decided hit of a round the controller has not closed
(``Floor.awaited_decisions``); the controller applies a decision once per hit and acknowledges a
repeat.  The reads this takes run on the ``podium-io`` pool, off the link loop and the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from core.app.claims import ClaimKeeper
from core.app.jackpot_lock import JackpotLock
from core.app.links import LinkLoop
from core.app.listeners import Listeners
from core.controllers.events import Delivery, HitClaimed, Origin, Refused, SequenceGap
from core.controllers.frames import HitRejected, PayConfirmed
from core.controllers.link_manager import LinkManager
from core.tablegames.floor import Floor
from core.tablegames.ingest.batch import NotHeld
from core.tablegames.views import ControllerDecision, FloorChange, HitOutcome

log = logging.getLogger("podium.runtime")


def controller_command(d: ControllerDecision) -> PayConfirmed | HitRejected:
    """The PAY or REJECT a decided hit's controller must receive."""
    if d.outcome in ("paid", "auto_paid"):
        return PayConfirmed(d.round_no, d.seat, d.hit_ref, d.amount_cents)
    return HitRejected(d.round_no, d.seat, d.reason or "rejected by supervisor", d.hit_ref)


class Answers:
    """The link callbacks (``on_event``, ``on_status``) and the answers to the controllers."""

    def __init__(self, floor: Floor, links: LinkLoop, claims: ClaimKeeper,
                 jackpot: JackpotLock, listeners: Listeners, io: Executor) -> None:
        self.floor = floor
        self._links = links
        self._claims = claims
        self._jackpot = jackpot
        self._listeners = listeners
        self._io = io
        self._resend_tables: set[str] = set()
        self._resend_lock = threading.Lock()

    def submit_io(self, fn: Callable[..., object], *args: Any) -> None:
        """``fn(*args)`` on the ``podium-io`` pool."""
        # RuntimeError: the console is stopping; the next start sends it again
        with contextlib.suppress(RuntimeError):
            self._io.submit(fn, *args)

    # -- controller side (runs on the link thread) -------------------------------------------
    def on_event(self, origin: Origin, event: Delivery) -> object:
        """Hand the event to the ledger writer; the link awaits the result (ACK after the
        commit of its batch; a ValueError is a refusal, kept in refused_events).  On a shared
        ledger an event of a table this service does not hold (its lease ended here, or the
        fence refused it) is neither recorded nor answered: the table's link is closed, and
        the controller sends it again to the table's service."""
        claims = self._claims.claims
        if claims is not None and not claims.holds(origin.table):
            self._claims.not_held(origin.table, "its lease ended here")
            return self._unanswered(origin.table)
        fut = self.floor.writer.submit_event(origin, event)

        def refused(f: Future[bool]) -> None:
            exc = None if f.cancelled() else f.exception()
            if isinstance(exc, NotHeld):
                self._claims.not_held(origin.table, str(exc))
            elif isinstance(exc, ValueError):
                what = (type(event.event).__name__ if event.event is not None
                        else (event.kind or "event")) if isinstance(event, Refused) \
                    else type(event).__name__
                self._listeners.say(f"Table {origin.table}: refused {what} (seq {origin.seq}): "
                                    f"{exc}")
            elif exc is None and isinstance(event, SequenceGap) and f.result():
                self._listeners.say(
                    f"Table {origin.table}: events {event.first} to {event.last} of "
                    f"controller boot {origin.boot} were acknowledged before but are not "
                    "in this ledger (a ledger restored from a backup?): recorded as a gap")

        fut.add_done_callback(refused)
        if isinstance(event, HitClaimed) and origin.boot != self._boot(origin.table):
            # a HIT of an earlier boot from a controller's kept outbox, after its HELLO: the
            # restarted controller no longer holds it either
            fut.add_done_callback(
                lambda f: None if f.cancelled() or f.exception() is not None or not f.result()
                else self._close_earlier_boots(origin.table))
        return self._outcome(origin.table, fut)

    async def _outcome(self, table: str, fut: Future[Any]) -> Any:
        """The event's outcome for its link; an event refused by the fence is not answered
        (its link is being closed: ``ClaimKeeper.not_held``)."""
        try:
            return await asyncio.wrap_future(fut)
        except NotHeld:
            return await self._unanswered(table)

    async def _unanswered(self, table: str) -> Any:
        """No answer for an event of a table not held: its link (the table's now) is being
        closed by ``ClaimKeeper.not_held``.  The link's task ends as cancelled once that link
        is no longer the table's (so a cancellation its read swallowed does not leave it
        here)."""
        links = self._links.links
        link = links.links.get(table) if links is not None else None
        while links is not None and link is not None and links.links.get(table) is link:
            await asyncio.sleep(0.1)
        raise asyncio.CancelledError

    def on_status(self, table: str, online: bool, detail: str) -> None:
        state = "ONLINE" if online else "OFFLINE"
        self._listeners.say(f"Table {table} {state}{': ' + detail if detail else ''}")
        self._listeners.status_changed(table)
        claims = self._claims.claims
        if claims is not None and (table not in claims.owned or not claims.holds(table)):
            return  # given up: its link state is its next service's to write
        fut = self.floor.writer.submit_link(table, online)

        def fenced(f: Future[None]) -> None:
            if not f.cancelled() and isinstance(f.exception(), NotHeld):
                self._claims.not_held(table, str(f.exception()))

        fut.add_done_callback(fenced)
        if online:
            self._close_earlier_boots(table)
            self._jackpot.tell(table)

            def resend(f: Future[None]) -> None:
                if not f.cancelled() and f.exception() is None and not self._links.stopped:
                    with self._resend_lock:
                        first = not self._resend_tables
                        self._resend_tables.add(table)
                    if first:  # one read for every table that came up meanwhile
                        self.submit_io(self._resend_decisions)

            fut.add_done_callback(resend)

    def _boot(self, table: str) -> str | None:
        """The boot the table's controller announced on its live link (None: not linked)."""
        links = self._links.links
        link = links.links.get(table) if links is not None else None
        hello = link.hello if link is not None else None
        return hello.boot if hello is not None else None

    def _close_earlier_boots(self, table: str) -> None:
        """The table's link is up (at start, or after its controller came back): its hits
        still pending from an earlier controller boot will never be answered, and are closed
        by the system with a record saying why (``Floor.writer.submit_boot``); each podium
        shows the closed hit's line in Activity (a cancelled outcome, like a MISDEAL's)."""
        boot = self._boot(table)
        if boot is None:
            return
        fut = self.floor.writer.submit_boot(table, boot)

        def failed(f: Future[list[int]]) -> None:
            exc = None if f.cancelled() else f.exception()
            if isinstance(exc, NotHeld):
                self._claims.not_held(table, str(exc))
            elif exc is not None:
                log.warning("table %s: the hits of earlier controller boots could not be "
                            "closed now (%s); the next link-up tries again", table, exc)

        fut.add_done_callback(failed)

    # -- answers ----------------------------------------------------------------------------
    def on_change(self, change: FloorChange) -> None:
        """A commit's decided hits: their controllers answered (on the ``podium-io`` pool)."""
        linked = self._links.served()
        for outcome in change.outcomes:
            if outcome.outcome != "cancelled" and (outcome.table in linked
                                                   or not self.floor.ctx.pg):
                self.submit_io(self._answer_controller, outcome)

    def resend_all(self) -> None:
        """Decisions taken while the live feed was down, sent again to every table up."""
        with self._resend_lock:
            self._resend_tables |= {t for t, (up, _d) in self._links.status().items() if up}
        self.submit_io(self._resend_decisions)

    def _answer_controller(self, outcome: HitOutcome) -> None:
        if outcome.outcome == "cancelled":
            return  # the controller cancelled it itself (UNDO / MISDEAL)
        links = self._links.links
        if self._links.stopped or self._links.loop is None or links is None:
            log.info("table %s: hit #%d %s; no controller link now, the answer is sent when "
                     "the link comes up", outcome.table, outcome.hit_id, outcome.outcome)
            return
        if outcome.table not in links.links:
            log.info("table %s: hit #%d %s; this process does not serve the table now: its "
                     "service sends the answer", outcome.table, outcome.hit_id, outcome.outcome)
            return
        decision = self.floor.controller_decision(outcome.hit_id)
        if decision is not None:
            self._send_decision(decision, resend=False)

    def _send_decision(self, d: ControllerDecision, *, resend: bool) -> None:
        links = self._links.links
        if self._links.stopped or self._links.loop is None or links is None:
            return
        fut = self._links.run(self._queue_command(links, d, resend))
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
            self._listeners.say(f"Table {d.table}: could not queue the answer for seat "
                                f"{d.seat}: {exc}; it is sent again when the link comes back")

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
