"""The print spool: win slips (and other ready paper) sent to the printer on the
``podium-printer`` thread, never on the caller's.

A slip's print is recorded in the ledger around the bytes: its ``started`` record committed
before the first byte goes out, its outcome (confirmed by the printer, or failed with the
printer's reason) after; a crash in between leaves its print state unknown, and its next print is
marked DUPLICATE - PRINT STATE UNKNOWN.  A slip that could not print stays queued in the ledger
and can be printed later.  The slips screen lists the slips with their print state in words
(``SlipRecord``).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.app.listeners import Listeners
from core.floorconfig import FloorConfig
from core.kernel.text import hit_ref
from core.tablegames.floor import Floor
from core.tablegames.paper import Printer, PrinterError
from core.tablegames.slip_record import VoidMark
from core.tablegames.slips import SlipTaken
from core.tablegames.views import FloorChange, SlipLine, SlipPrintState

log = logging.getLogger("podium.runtime")

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


def _nos(nos: list[int]) -> str:
    return ", ".join(f"{n:06d}" for n in nos)


def batch_words(asked: int, done: dict[str, list[int]], elsewhere: list[str],
                printer: str) -> str:
    """The one line that says what printing ``asked`` slips from before did: ``done``
    outcome -> slip numbers (printed, elsewhere, failed, void, none), ``elsewhere`` why each
    of those was not printed here."""
    printed = done.get("printed", [])
    parts = [f"Win slips never printed: {len(printed)} of {asked} printed here"
             + (f" on {printer} ({_nos(printed)})" if printed else "")]
    other = done.get("elsewhere", [])
    if other:
        parts.append(f"{len(other)} not printed again here, printed or being printed at "
                     f"another podium ({'; '.join(elsewhere)})")
    failed = done.get("failed", [])
    if failed:
        parts.append(f"{len(failed)} did not print ({_nos(failed)}): they stay queued in Win "
                     "slips")
    void = done.get("void", [])
    if void:
        parts.append(f"{len(void)} VOID, not printed ({_nos(void)})")
    none = done.get("none", [])
    if none:
        parts.append(f"{len(none)} not printed: no printer is configured")
    return "; ".join(parts)


class PrintSpool:
    """The ``podium-printer`` thread and its queue of slip numbers and ready bytes."""

    def __init__(self, floor: Floor, config: FloorConfig, printer: Printer | None,
                 listeners: Listeners, print_tables: Iterable[str] | None = None) -> None:
        """``print_tables``: the tables whose slips made by another process (a service's
        auto-pay) are printed here (None: none; this process's own pays always print)."""
        self.floor = floor
        self.config = config
        self.printer = printer
        self.print_tables: frozenset[str] = frozenset(print_tables or ())
        self._say = listeners.say
        self._queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._printing: set[int] = set()  # slips on their way to the printer now
        self._printing_lock = threading.Lock()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._worker, name="podium-printer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """The thread ends after what is queued before this."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(10)

    def tell_pending(self) -> None:
        """Say how many slips from before were never printed (at start, with a printer)."""
        if self.printer is None:
            return
        pending = [ln.print_state for ln in self.floor.slip_lines(unprinted=True)
                   if self.mine(ln.table)]
        if pending:
            unknown = sum(1 for p in pending if p.state == "unknown")
            self._say(f"{len(pending)} win slip(s) from before were never printed"
                      + (f" ({unknown} with print state unknown)" if unknown else ""))

    def on_change(self, change: FloorChange) -> None:
        """A new slip (a pay) prints here when this process made it, or when another process
        (a service's auto-pay) made it for a table this console prints for."""
        for i, slip_no in enumerate(change.slips):
            if not change.remote or (i < len(change.slip_tables)
                                     and change.slip_tables[i] in self.print_tables):
                self.print_slip(slip_no)

    # -- what the screens show --------------------------------------------------------------
    def slip_bytes(self, slip_no: int) -> bytes:
        """The slip as it is shown (the preview): its stored bytes, after the VOID banner when
        it was voided."""
        data = self.floor.slip_bytes(slip_no)
        void = self.floor.slip_void(slip_no)
        if void is None:
            return data
        return self.floor.paper.mark_void(
            data, VoidMark(void.at, void.by, void.reason, void.money_returned),
            self.config.casino.timezone)

    def _slip_records(self, lines: list[SlipLine]) -> list[SlipRecord]:
        names = {t.id: t.name for t in self.config.tables}
        with self._printing_lock:
            printing = set(self._printing)
        return [SlipRecord(ln.slip_no, hit_ref(ln.hit_id), f"{names.get(ln.table, ln.table)} seat "
                           f"{ln.seat}", ln.amount_cents, ln.created_at,
                           *(_VOID_WORDS if ln.voided else
                             _print_words(ln.print_state, ln.slip_no in printing)))
                for ln in lines]

    def recent_slips(self, limit: int = 200) -> list[SlipRecord]:
        """The latest win slips with their print state (newest first)."""
        return self._slip_records(self.floor.slip_lines(limit=limit))

    def mine(self, table: str) -> bool:
        """Whether this podium prints ``table``'s slips from before: a podium of a pit
        (``print_tables``) only its pit's; one with no pit (or one podium alone) every
        table's."""
        return not self.print_tables or table in self.print_tables

    def unprinted_slips(self, before: datetime | None) -> list[SlipRecord]:
        """The win slips made before ``before`` that no printer confirmed printing (never
        tried, failed, or print state unknown), oldest first: those of this podium's tables
        (:meth:`mine`; another pit's are its podium's to print)."""
        return self._slip_records([ln for ln in self.floor.slip_lines(unprinted=True,
                                                                        before=before)
                                   if self.mine(ln.table)])

    # -- the queue --------------------------------------------------------------------------
    def print_slip(self, slip_no: int, reprint: bool = False) -> None:
        """Queue a slip for the printer thread (never blocks the caller).  Without
        ``reprint`` it is printed only if no print of it has been confirmed by then (a slip
        queued twice prints once); with ``reprint`` it prints in any case.  What the paper
        says above the slip follows the ledger (``SlipPrintState.next_marking``): REPRINT after
        a confirmed print, DUPLICATE - PRINT STATE UNKNOWN when an earlier print may be on
        paper, nothing for the first print."""
        self._queue.put((slip_no, reprint))

    def print_slips(self, slip_nos: list[int]) -> None:
        """Print slips that are not printed yet (the start-up offer, "Print all queued
        slips"), in order on the printer thread; then ONE line says what was done: how many
        printed here, which were printed (or being printed) at another podium meanwhile and
        so not again here, which did not print."""
        if slip_nos:
            self._queue.put(("batch", list(slip_nos)))

    def print_bytes(self, data: bytes, name: str, what: str,
                    on_result: Callable[[bool, str, str], None] | None = None) -> None:
        """Queue other ready paper (a Bad Beat Jackpot share slip) for the printer thread;
        ``what`` names it in the message that says whether it printed; ``on_result(ok,
        printer, problem)`` is called on the printer thread after the attempt (to keep it in
        the ledger)."""
        self._queue.put((data, name, what, on_result))

    def print_queued(self) -> int:
        """Print every slip of this podium's tables still waiting (:meth:`mine`); how many."""
        pending = [ln.slip_no for ln in self.floor.slip_lines(unprinted=True)
                   if self.mine(ln.table)]
        if not pending:
            self._say("No win slip is waiting to print")
        self.print_slips(pending)
        return len(pending)

    def _worker(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if isinstance(item[0], bytes):
                    data, name, what, on_result = item
                    self._print_bytes(data, name, what, on_result)
                elif item[0] == "batch":
                    self._print_batch(item[1])
                else:
                    slip_no, reprint = item
                    self._print_one(slip_no, reprint)
            except Exception:
                log.exception("printing %s", item[1] if isinstance(item[0], bytes) else item[0])

    def _print_batch(self, slip_nos: list[int]) -> None:
        """Slips from before, one after the other, then one line saying what was done."""
        done: dict[str, list[int]] = {}
        elsewhere: list[str] = []
        for n in slip_nos:
            try:
                outcome, words = self._print_one(n, False)
            except Exception:
                log.exception("printing win slip %d", n)
                outcome, words = "failed", ""
            done.setdefault(outcome, []).append(n)
            if outcome == "elsewhere":
                elsewhere.append(words)
        self._say(batch_words(len(slip_nos), done, elsewhere, str(self.printer)))

    def _print_bytes(self, data: bytes, name: str, what: str,
                     on_result: Callable[[bool, str, str], None] | None) -> None:
        if self.printer is None:
            self._say(f"{what}: no printer is configured")
            if on_result is not None:
                on_result(False, "", "no printer is configured")
            return
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

    def _print_one(self, slip_no: int, again: bool) -> tuple[str, str]:
        """One print of a slip: its marking from the ledger, the ``started`` record committed
        before the first byte goes out, the outcome (confirmed by the printer, or failed with
        the printer's reason) after.  A crash in between leaves the print state unknown.  The
        slip reads "printing…" until its outcome is recorded.  What became of it: (printed |
        failed | void | elsewhere | none, words)."""
        if self.printer is None:
            return "none", ""
        with self._printing_lock:
            self._printing.add(slip_no)
        try:
            for _try in range(3):  # a print tried meanwhile elsewhere that failed: again
                outcome = self._print_and_record(slip_no, again)
                if outcome != ("retry", ""):
                    return outcome
            return "elsewhere", f"win slip {slip_no}: its print state keeps changing"
        finally:
            with self._printing_lock:
                self._printing.discard(slip_no)

    def _print_and_record(self, slip_no: int, again: bool) -> tuple[str, str]:
        assert self.printer is not None
        void = self.floor.slip_void(slip_no)
        if void is not None:  # a void slip is not payable: it never goes to the printer again
            self._say(f"Win slip {slip_no} is VOID (voided by {void.by.label()}: "
                      f"{void.reason}): not printed. Its win page shows the void.")
            return "void", ""
        state = self.floor.print_state(slip_no)
        if state.printed and not again:
            log.info("win slip %d: printed already, not printed again", slip_no)
            return "elsewhere", f"win slip {slip_no}: printed already on {state.printed_on}"
        marking = state.next_marking
        data = self.floor.paper.mark_copy(self.floor.slip_bytes(slip_no), marking)
        printer = str(self.printer)
        started: list[int] = []
        start_failed: list[Exception] = []

        def record_start() -> None:
            try:
                # a first print (not one asked again) is claimed: no other podium printed or
                # began printing it since its state was read here
                started.append(self.floor.record_print_started(
                    slip_no, printer, marking, len(data),
                    expect=None if again else state.last_attempt))
            except Exception as exc:
                start_failed.append(exc)
                raise

        try:
            self.printer.send(data, slip_no, before_send=record_start)
        except SlipTaken as taken:  # nothing was sent
            now = taken.state
            if not now.printed and now.open_since is None:
                return "retry", ""  # another podium's try failed: try again, as it is now
            log.info("%s: not printed here", taken)
            return "elsewhere", str(taken)
        except PrinterError as exc:
            self._record_outcome(slip_no, started, False, exc.reason, str(exc), exc.sent)
            on_paper = bool(started) and exc.sent > 0
            self._say(f"Win slip {slip_no} did not print: {exc}. It stays queued; print it "
                      f"from the Win slips tab" + (
                          " (the next print is marked DUPLICATE - PRINT STATE UNKNOWN)."
                          if on_paper else "."))
            return "failed", ""
        except Exception as exc:
            if start_failed:  # nothing was sent
                log.warning("win slip %d: its print start could not be recorded: %s", slip_no,
                            exc)
                self._say(f"Win slip {slip_no} was not printed: the ledger could not record "
                          f"that its print started ({exc}); nothing was sent. Print it again "
                          f"from the Win slips tab.")
                return "failed", ""
            log.exception("win slip %d: printing on %s failed", slip_no, printer)
            # whether bytes went out is not known: counted as if they did
            self._record_outcome(slip_no, started, False, "printer_error",
                                 f"Printer {printer}: unexpected error ({exc})",
                                 len(data) if started else 0)
            self._say(f"Win slip {slip_no} did not print: unexpected error ({exc}). It stays "
                      f"queued; print it from the Win slips tab.")
            return "failed", ""
        if self._record_outcome(slip_no, started, True, "", "", len(data)):
            what = {"": "", "reprint": " (marked REPRINT)",
                    "duplicate": " (marked DUPLICATE - PRINT STATE UNKNOWN)"}[marking]
            self._say(f"Win slip {slip_no} printed on {self.printer}{what}")
        return "printed", ""

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
