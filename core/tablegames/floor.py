"""The floor: the facade every caller uses (the console, the controllers' link, the tests).

Each method is one workflow of its own module over one unit of work (``core.tablegames.unit``);
writes run in ONE transaction (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: the hit and level rows
locked ``FOR UPDATE``), reads never take the write lock.  After each commit, listeners get a
:class:`~core.tablegames.views.FloorChange` with the new state of what changed.  Controller
events normally reach the ledger through :attr:`Floor.writer` (group commit,
``core.tablegames.ingest.writer``); :meth:`Floor.handle` records one event in a transaction of
its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Engine

from core.controllers.events import Delivery, Origin
from core.floorconfig import FloorConfig
from core.kernel.cards import Card
from core.ledger import integrity
from core.people.auth import Swipe
from core.people.cardkey import CardKey
from core.tablegames import changes, queries, reports, setup, slips
from core.tablegames.ingest import events as ingest
from core.tablegames.ingest import refusals, replies
from core.tablegames.ingest.writer import LedgerWriter
from core.tablegames.meters import arithmetic as meters
from core.tablegames.paper import SlipPaper
from core.tablegames.pay import adjust as adjusting
from core.tablegames.pay import assess, decide, voids
from core.tablegames.pay import freeze as freezing
from core.tablegames.slip_record import WinSlip
from core.tablegames.unit import FloorContext, Unit, utcnow
from core.tablegames.views import (
    ControllerDecision,
    FloorChange,
    FloorSnapshot,
    FrozenAmount,
    HitMarker,
    HitRecord,
    PaidHit,
    PendingSlip,
    SlipLine,
    SlipPrintState,
    SlipVoidView,
    Verification,
    VoidedSlip,
)

_T = TypeVar("_T")


class Floor:
    """The floor: decides and records.  Thread-safe."""

    def __init__(self, engine: Engine, config: FloorConfig, paytables: dict[str, Any],
                 clock: Callable[[], datetime] = utcnow, *,
                 paper: SlipPaper,
                 card_key: CardKey | None = None) -> None:
        """``paper``: how win slips become printer bytes (printing's ``EscposPaper``, given by
        the app wiring: ``printing.escpos.slip.PAPER``)."""
        self.ctx = FloorContext(engine, config, paytables, clock, paper=paper, card_key=card_key)
        self.engine = engine
        self.config = config
        self.paytables = paytables
        self.writer = LedgerWriter(self.ctx)

    @property
    def paper(self) -> SlipPaper:
        """How this floor's win slips become printer bytes (as given)."""
        return self.ctx.paper

    # -- listeners ------------------------------------------------------------------------------
    def add_listener(self, fn: Callable[[FloorChange], None]) -> Callable[[], None]:
        """``fn(change)`` after every commit; returns a function that removes it again."""
        return self.ctx.add_listener(fn)

    # -- set-up and links -------------------------------------------------------------------------
    def start(self, offline: Iterable[str] | None = None) -> list[str]:
        """Sync the floor file into the ledger (setup.start); ``offline``: the tables this
        process serves, set OFFLINE until their links are up (None: every table)."""
        with changes.unit(self.ctx, "start") as u:
            return setup.start(self.ctx, u, offline)

    def join(self) -> list[str]:
        """A console that is a client of the floor services (a shared ledger) checks its floor
        file against the ledger and writes nothing (setup.check); on a ledger nobody has set
        up yet it sets it up (as :meth:`start`, every table OFFLINE)."""
        with changes.unit(self.ctx, "join") as u:
            notes = setup.check(self.ctx, u)
            if notes is None:
                return setup.start(self.ctx, u, ())
            return notes

    def set_link(self, table: str, online: bool) -> None:
        with changes.unit(self.ctx, "link") as u:
            setup.set_link(u, table, online)

    # -- controller events ----------------------------------------------------------------------
    def handle(self, origin: Origin, event: Delivery) -> bool:
        """Record one controller event in a transaction of its own.  False for a replay;
        FloorError for a refused event, which is kept in ``refused_events`` (sent again: the
        same reason); OutOfOrder (nothing written) for an event beyond the next expected seq
        of its (table, boot).  An event the ledger could not keep as it is (text with a lone
        surrogate, a member of the wrong type) is refused by name (``refusals.screened``)."""
        event = refusals.screened(origin, event)
        try:
            with changes.unit(self.ctx, "event") as u:
                return ingest.record(self.ctx, u, origin, event)
        except ValueError as exc:
            with changes.unit(self.ctx, "refused") as u:
                refusals.record_refusal(u, origin, event, str(exc) or type(exc).__name__)
            raise

    # -- verification and decisions ---------------------------------------------------------------
    def evaluate(self, hit_id: int, cards: Sequence[str] | Sequence[Card]) -> Verification:
        return assess.evaluate(self.ctx, hit_id, cards)

    def freeze(self, hit_id: int, where: str = "") -> FrozenAmount:
        """A supervisor opens the hit's verification: its meter amount is fixed now (Jackpot
        Lock at verification, core/tablegames/pay/freeze.py); ``where``: the podium, recorded."""
        return freezing.freeze(self.ctx, hit_id, where)

    def unfreeze(self, hit_id: int, where: str = "") -> FrozenAmount:
        """The hit's verification closed without a decision: its frozen amount goes back to
        the meter (unless a later hit of its round was fixed on what it left)."""
        return freezing.unfreeze(self.ctx, hit_id, where)

    def pay(self, hit_id: int, cards: Sequence[str] | Sequence[Card], swipe: Swipe,
            correct_claim: bool = False, expected_cents: int | None = None,
            verifier: Swipe | None = None) -> PaidHit:
        return decide.pay(self.ctx, hit_id, cards, swipe, correct_claim, expected_cents,
                          verifier)

    def reject(self, hit_id: int, reason: str, swipe: Swipe) -> None:
        decide.reject(self.ctx, hit_id, reason, swipe)

    def check_swipe(self, swipe: Swipe, needed: str, action: str) -> tuple[str, str, str]:
        return decide.check_swipe(self.ctx, swipe, needed, action)

    def lift_lock(self, locked_card: Swipe | None, employee_number: str | None, swipe: Swipe,
                  reason: str) -> str:
        """An executive lifts a card's lock (core.people.auth.Gate.lift); what was lifted, in
        words."""
        return self.ctx.gate.lift(locked_card, employee_number, swipe, reason)

    def adjust(self, group: str, level: str, meter_delta_cents: int, reason: str, swipe: Swipe,
               second_swipe: Swipe) -> int:
        """A manual adjustment by two people; returns the meter after it (exact units)."""
        return adjusting.adjust(self.ctx, group, level, meter_delta_cents, reason, swipe,
                                second_swipe)

    def void_slip(self, slip_no: int, reason: str, money_returned: bool,
                  swipe: Swipe) -> VoidedSlip:
        """Void a win slip on an executive's swipe, with a reason; when the paid money came
        back, the award's meter movements are reversed in the same transaction
        (core/tablegames/pay/voids.py)."""
        return voids.void_slip(self.ctx, slip_no, reason, money_returned, swipe)

    # -- reading ----------------------------------------------------------------------------------
    def meter(self, group: str, level: str) -> meters.LevelState:
        return queries.meter(self.ctx, group, level)

    def snapshot(self) -> FloorSnapshot:
        return queries.snapshot(self.ctx)

    def meter_history(self, group: str, level: str, since: datetime | None = None,
                      limit: int | None = None) -> list[tuple[datetime, int]]:
        return reports.meter_history(self.ctx, group, level, since, limit)

    def hit_markers(self, group: str, level: str, since: datetime | None = None,
                    limit: int | None = None) -> list[HitMarker]:
        return reports.hit_markers(self.ctx, group, level, since, limit)

    def activity(self, limit: int = 300) -> list[reports.ActivityRecord]:
        return reports.activity(self.ctx, limit)

    def decision_lines(self, hit_ids: list[int]) -> list[reports.ActivityRecord]:
        return reports.decision_lines(self.ctx, hit_ids)

    def adjustment_markers(self, group: str, level: str,
                           since: datetime | None = None) -> list[tuple[datetime, int]]:
        return reports.adjustment_markers(self.ctx, group, level, since)

    def recent_hits(self, group: str, level: str, limit: int = 25) -> list[HitMarker]:
        return reports.recent_hits(self.ctx, group, level, limit)

    def meter_report(self, group: str, level: str, start: datetime,
                     end: datetime) -> reports.MeterReport:
        return reports.meter_report(self.ctx, group, level, start, end)

    def hit_record(self, hit_id: int) -> HitRecord:
        return reports.hit_record(self.ctx, hit_id)

    # -- controllers' answers ---------------------------------------------------------------------
    def controller_decision(self, hit_id: int) -> ControllerDecision | None:
        return replies.controller_decision(self.ctx, hit_id)

    def awaited_decisions(self, table: str | list[str]) -> list[ControllerDecision]:
        return replies.awaited_decisions(self.ctx, table)

    # -- slips ------------------------------------------------------------------------------------
    def pending_slips(self) -> list[PendingSlip]:
        return slips.pending_slips(self.ctx)

    def slip_bytes(self, slip_no: int) -> bytes:
        return slips.slip_bytes(self.ctx, slip_no)

    def chain_head_text(self) -> str:
        """The ledger's chain head now, as printed on win pages (docs/ledger.md)."""
        with self.ctx.read() as s:
            return integrity.head_text(*integrity.chain_head(s.connection()))

    def win_slip(self, slip_no: int) -> WinSlip:
        return slips.win_slip(self.ctx, slip_no)

    def slip_void(self, slip_no: int) -> SlipVoidView | None:
        """The void of a win slip, or None when it is not void."""
        with self.ctx.read() as s:
            return slips.slip_void(s, slip_no)

    def print_state(self, slip_no: int) -> SlipPrintState:
        return slips.print_state(self.ctx, slip_no)

    def slip_lines(self, *, limit: int | None = None, unprinted: bool = False,
                   before: datetime | None = None) -> list[SlipLine]:
        return slips.slip_lines(self.ctx, limit=limit, unprinted=unprinted, before=before)

    def _write_print(self, run: Callable[[Unit], _T]) -> _T:
        """A print record, committed before this returns (through the ledger writer when it
        runs: it is committed with the next batch of controller events instead of taking the
        lock on its own)."""
        if self.writer.running:
            result: _T = self.writer.submit(run).result()
            return result
        with changes.unit(self.ctx, "print") as u:
            return run(u)

    def record_print(self, slip_no: int, printer: str, ok: bool, error: str = "", *,
                     reason: str = "") -> None:
        """A print attempt in one row (refused before any byte went out, or printed with no
        start recorded)."""
        self._write_print(lambda u: slips.record_print(u, slip_no, printer, ok, error,
                                                       reason=reason))

    def record_print_started(self, slip_no: int, printer: str, marking: str,
                             job_bytes: int, expect: int | None = None) -> int:
        """Record (durably: committed when this returns) that a print of the slip starts;
        the id its outcome points at.  ``expect``: claim the print (``slips.SlipTaken`` when
        another print of it was started since its latest attempt ``expect``)."""
        return self._write_print(lambda u: slips.record_print_started(
            u, slip_no, printer, marking, job_bytes, expect))

    def record_print_outcome(self, started_id: int, ok: bool, *, reason: str = "",
                             error: str = "", sent_bytes: int = 0) -> None:
        self._write_print(lambda u: slips.record_print_outcome(
            u, started_id, ok, reason=reason, error=error, sent_bytes=sent_bytes))
