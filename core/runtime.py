"""The console core: the floor, one controller link per configured table, and the slip printer,
wired together and running without any GUI.

``ConsoleCore`` owns one background thread running an asyncio loop for the controller links.
Controller events are recorded by the floor on that thread (one transaction each) before the link
acknowledges them.  When the floor decides a hit (paid, auto-paid, rejected), the core sends PAY
or REJECT back to the table's controller.  Win slips are printed on a printer thread; a slip that
could not print stays queued in the ledger and can be printed later.  The Qt console, the tests
and the benchmarks all drive this same object.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, select

from core.events import ControllerEvent, Origin
from core.floor import Floor, FloorChange, HitOutcome
from core.floorconfig import FloorConfig
from core.ledger.models import Award, Hit, Slip, SlipPrintAttempt
from core.ledger.models import ControllerEvent as EventRow
from core.link import LinkManager
from core.protocol import HitRejected, PayConfirmed

log = logging.getLogger("podium.runtime")

@dataclass(frozen=True)
class SlipRecord:
    """A win slip as the slips screen lists it."""

    slip_no: int
    hit_ref: str
    where: str
    amount_cents: int
    paid_at: datetime
    printed: str  # "yes (2)", "FAILED: ...", "queued"
    printed_ok: bool


Printer = Any  # printing.printers.NetworkPrinter | FilePrinter: .send(data, name) and str()


class ConsoleCore:
    def __init__(self, engine: Engine, config: FloorConfig, paytables: dict[str, Any], *,
                 printer: Printer | None = None, link_options: dict[str, Any] | None = None,
                 floor: Floor | None = None) -> None:
        self.engine = engine
        self.config = config
        self.paytables = paytables
        self.floor = floor or Floor(engine, config, paytables)
        self.printer = printer
        self._link_options = link_options or {}
        self._messages: list[Callable[[str], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._links: LinkManager | None = None
        self._ready = threading.Event()
        self._print_queue: queue.Queue[tuple[int, bool] | None] = queue.Queue()
        self._print_thread: threading.Thread | None = None
        self.floor.add_listener(self._on_change)

    # -- lifecycle --------------------------------------------------------------------------
    def start(self, *, links: bool = True) -> list[str]:
        """Sync the configuration into the ledger, then start the links and the printer
        thread.  Returns configuration warnings (also sent to the message listeners)."""
        warnings = self.floor.start()
        for note in warnings:
            self._say(f"Ledger set-up: {note}")
        self._print_thread = threading.Thread(target=self._print_worker, name="podium-printer",
                                              daemon=True)
        self._print_thread.start()
        if links:
            self._thread = threading.Thread(target=self._run_loop, name="podium-links", daemon=True)
            self._thread.start()
            self._ready.wait(10)
        if self.printer is not None:
            pending = self.floor.pending_slips()
            if pending:
                self._say(f"{len(pending)} win slip(s) from before are still waiting to print")
        return warnings

    def stop(self) -> None:
        if self._loop is not None and self._links is not None:
            fut = asyncio.run_coroutine_threadsafe(self._links.close(), self._loop)
            try:
                fut.result(10)
            except Exception as exc:  # closing anyway
                log.warning("closing the controller links: %s", exc)
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        self._print_queue.put(None)
        if self._print_thread is not None:
            self._print_thread.join(10)

    def _run_loop(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._links = LinkManager.from_floor(self.config, self._on_event, self._on_status,
                                             **self._link_options)
        for table_id in self._links.links:
            self.floor.set_link(table_id, False)
        loop.create_task(self._links.run())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    # -- listeners --------------------------------------------------------------------------
    def add_listener(self, fn: Callable[[FloorChange], None]) -> None:
        self.floor.add_listener(fn)

    def link_status(self) -> dict[str, tuple[bool, str]]:
        """Per table: (online, what the link last said), e.g. why a controller was refused."""
        links = self._links
        return links.status() if links is not None else {}

    def add_message_listener(self, fn: Callable[[str], None]) -> None:
        """``fn(text)``: plain-language messages for the supervisor (links, refusals, printer)."""
        self._messages.append(fn)

    def _say(self, text: str) -> None:
        log.info("%s", text)
        for fn in list(self._messages):
            try:
                fn(text)
            except Exception:
                log.exception("message listener failed")

    # -- controller side (runs on the link thread) -------------------------------------------
    def _on_event(self, origin: Origin, event: ControllerEvent) -> object:
        try:
            return self.floor.handle(origin, event)
        except ValueError as exc:
            self._say(f"Table {origin.table}: refused {type(event).__name__}: {exc}")
            raise

    def _on_status(self, table: str, online: bool, detail: str) -> None:
        self.floor.set_link(table, online)
        state = "ONLINE" if online else "OFFLINE"
        self._say(f"Table {table} {state}{': ' + detail if detail else ''}")

    def _on_change(self, change: FloorChange) -> None:
        for outcome in change.outcomes:
            self._answer_controller(outcome)
        if change.action != "print":  # a new slip (a pay); not the record of a print attempt
            for slip_no in change.slips:
                self.print_slip(slip_no)

    def _answer_controller(self, outcome: HitOutcome) -> None:
        if outcome.outcome == "cancelled" or self._loop is None or self._links is None:
            return  # the controller cancelled it itself (UNDO / MISDEAL)
        ref = self._hit_ref(outcome.hit_id)
        command: PayConfirmed | HitRejected
        if outcome.outcome in ("paid", "auto_paid"):
            command = PayConfirmed(outcome.round_no, outcome.seat, ref, outcome.amount_cents)
        else:
            command = HitRejected(outcome.round_no, outcome.seat, "rejected by supervisor", ref)
        links = self._links
        fut = asyncio.run_coroutine_threadsafe(links.send_command(outcome.table, command),
                                               self._loop)
        fut.add_done_callback(lambda f: self._command_sent(outcome, f))

    def _command_sent(self, outcome: HitOutcome, fut: Future[int]) -> None:
        exc = fut.exception()
        if exc is not None:
            self._say(f"Table {outcome.table}: could not queue the answer for seat "
                      f"{outcome.seat}: {exc}")

    def _hit_ref(self, hit_id: int) -> str:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(EventRow.boot, EventRow.seq).join(Hit, Hit.event_id == EventRow.id)
                .where(Hit.id == hit_id)).first()
        return f"{row[0]}:{row[1]}" if row else ""

    # -- printing ---------------------------------------------------------------------------
    def slip_bytes(self, slip_no: int) -> bytes:
        return self.floor.slip_bytes(slip_no)

    def recent_slips(self, limit: int = 200) -> list[SlipRecord]:
        """The latest win slips with their print state (newest first)."""
        ok_count = (select(func.count()).where(SlipPrintAttempt.slip_id == Slip.id,
                                               SlipPrintAttempt.ok.is_(True))
                    .correlate(Slip).scalar_subquery())
        last_error = (select(SlipPrintAttempt.error).where(SlipPrintAttempt.slip_id == Slip.id)
                      .order_by(SlipPrintAttempt.id.desc()).limit(1)
                      .correlate(Slip).scalar_subquery())
        names = {t.id: t.name for t in self.config.tables}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Slip.slip_no, Slip.hit_id, Hit.table_id, Hit.seat, Award.amount_cents,
                       Slip.created_at, ok_count, last_error)
                .join(Hit, Hit.id == Slip.hit_id).join(Award, Award.id == Slip.award_id)
                .order_by(Slip.slip_no.desc()).limit(limit)).all()
        out = []
        for no, hit_id, table, seat, amount, at, oks, err in rows:
            if oks:
                printed, ok = (f"yes ({oks})" if oks > 1 else "yes"), True
            elif err:
                printed, ok = f"FAILED: {err}", False
            else:
                printed, ok = "queued", False
            out.append(SlipRecord(no, f"H{hit_id}", f"{names.get(table, table)} seat {seat}",
                                  amount, at, printed, ok))
        return out

    def print_slip(self, slip_no: int, reprint: bool = False) -> None:
        """Queue a slip for the printer thread (never blocks the caller)."""
        self._print_queue.put((slip_no, reprint))

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
            slip_no, reprint = item
            try:
                self._print_one(slip_no, reprint)
            except Exception:
                log.exception("printing slip %s", slip_no)

    def _print_one(self, slip_no: int, reprint: bool) -> None:
        if self.printer is None:
            return
        from printing.printers import PrinterError
        from printing.slip import reprint_banner

        data = self.floor.slip_bytes(slip_no)
        if reprint:
            data = reprint_banner() + data
        try:
            self.printer.send(data, slip_no)
        except PrinterError as exc:
            self.floor.record_print(slip_no, str(self.printer), False, str(exc))
            self._say(f"Win slip {slip_no} did not print: {exc}. It stays queued; "
                      f"print it from the Win slips tab.")
            return
        self.floor.record_print(slip_no, str(self.printer), True)
        self._say(f"Win slip {slip_no} {'re' if reprint else ''}printed on {self.printer}")
