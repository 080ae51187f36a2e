"""The floor workflows: controller events, hit verification, pays, rejects, adjustments.

Each public method is one step of the floor and runs in ONE database transaction of its own
(SQLite: ``BEGIN IMMEDIATE`` serializes writers; PostgreSQL: the hit and level rows are locked with
``SELECT ... FOR UPDATE``, so a second console waits and then sees the hit already paid).  After a
commit, listeners get a :class:`FloorChange` naming what changed.

Rules (RULES.md sections 3-5) come from ``core.rules`` and ``core.meters``; money moves only as
ledger entries (``core.ledger.models.MeterEntry``): a meter is the sum of its entries.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, and_, exists, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from core import meters
from core.auth import AuthError, authorize, log_swipe, required_role
from core.events import (
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    Undone,
)
from core.floorconfig import FloorConfig, GroupConfig
from core.ledger.models import (
    Award,
    Employee,
    GameTable,
    Group,
    Hit,
    HitDecision,
    Level,
    LevelSetting,
    MeterEntry,
    RefusedEvent,
    Round,
    Setting,
    Slip,
    SlipPrintAttempt,
    SwipeLog,
    Wager,
)
from core.ledger.models import (
    ControllerEvent as EventRow,
)
from core.money import UNITS_PER_CENT, cents_to_units, json_cents, units_floor_cents
from core.rules import fortune
from core.rules.cards import Card, CardError, format_cards, parse_card, parse_cards
from core.rules.claims import ClaimError, pay_for_claim

if TYPE_CHECKING:
    from printing.slip import WinSlip

log = logging.getLogger("podium.floor")

PPM = 1_000_000
SLIP_SEQUENCE_KEY = "slip_sequence"
AUTO_PAID_REASON = "auto-paid (no secondary verification)"
_CONTRIBUTION_KINDS = ("contribution", "reserve_contribution")
_DECIDED = ("paid", "auto_paid", "rejected")  # a controller waits for PAY / REJECT of these


class FloorError(ValueError):
    """A floor action refused; the message is what a supervisor reads (table, seat, card)."""


# --- what the floor hands out ----------------------------------------------------------------


@dataclass(frozen=True)
class HitOutcome:
    """A decided hit, for the link (PAY / REJECT back to the controller) and the GUI."""

    hit_id: int
    table: str
    round_no: int
    seat: int
    outcome: str  # paid | auto_paid | rejected | cancelled
    amount_cents: int = 0


@dataclass(frozen=True)
class ControllerDecision:
    """A decided hit as its controller must hear it: PAY (``paid`` / ``auto_paid``, with the
    amount) or REJECT (with the recorded reason) for the HIT event ``hit_ref``."""

    hit_id: int
    table: str
    round_no: int
    seat: int
    outcome: str  # paid | auto_paid | rejected
    amount_cents: int
    hit_ref: str  # "<boot>:<seq>" of the HIT event
    reason: str


@dataclass(frozen=True)
class FloorChange:
    """What one committed transaction changed."""

    action: str
    tables: frozenset[str] = frozenset()
    levels: frozenset[tuple[str, str]] = frozenset()  # (group, level)
    hits: frozenset[int] = frozenset()
    outcomes: tuple[HitOutcome, ...] = ()
    slips: tuple[int, ...] = ()


@dataclass(frozen=True)
class Verification:
    """A preview of a hit's pay for the cards the supervisor entered (changes nothing)."""

    hit_id: int
    table: str
    round_no: int
    seat: int
    cards: tuple[Card, ...]
    best_hand: str  # fortune.classify of the cards
    claimed_hand: str
    pay_hand: str | None  # the paytable pay these cards earn (None: nothing)
    source: str | None  # meter | tray
    level: str | None
    amount_cents: int | None
    mismatch: bool
    problems: tuple[str, ...]
    required_role: str | None
    payable: bool  # no blocking problem (a mismatch is payable with correct_claim)
    fraction: Decimal | None = None  # a meter pay's share (1 = 100%)
    meter_cents: int | None = None  # the meter the share is taken from (after earlier seats)


@dataclass(frozen=True)
class PaidHit:
    hit_id: int
    table: str
    round_no: int
    seat: int
    hand: str
    amount_cents: int
    source: str
    level: str | None
    meter_before_cents: int | None
    meter_after_cents: int | None
    authorized_by: str  # employee number
    slip_no: int
    claim_corrected: bool


@dataclass(frozen=True)
class TableView:
    id: str
    name: str
    group: str
    paytable: str
    online: bool
    round_no: int | None
    round_state: str | None
    pending_hits: int


@dataclass(frozen=True)
class LevelView:
    group: str
    level: str
    meter_units: int
    reserve_units: int

    @property
    def meter_cents(self) -> int:
        return units_floor_cents(self.meter_units)


@dataclass(frozen=True)
class PendingHitView:
    hit_id: int
    table: str
    seat: int
    round_no: int
    wager_cents: int | None
    claimed_hand: str
    cards: tuple[str, ...]
    flags: tuple[str, ...]
    created_at: datetime
    age_seconds: float
    locked_amount_cents: int | None


@dataclass(frozen=True)
class FloorSnapshot:
    taken_at: datetime
    tables: tuple[TableView, ...]
    levels: tuple[LevelView, ...]
    pending: tuple[PendingHitView, ...]


@dataclass(frozen=True)
class PendingSlip:
    slip_no: int
    hit_id: int
    escpos: bytes
    created_at: datetime
    failed_attempts: int


@dataclass(frozen=True)
class HitMarker:
    at: datetime
    hit_id: int
    table: str
    seat: int
    hand: str
    amount_cents: int


@dataclass(frozen=True)
class DecisionRecord:
    """One row of a hit's audit trail: a decision, or a card swipe made for the hit."""

    at: datetime
    what: str  # a hit_decisions decision (verified, paid, ...) or "swipe <outcome>"
    employee_no: str | None  # None: the controller or the system
    employee_name: str
    employee_role: str
    reason: str

    @property
    def who(self) -> str:
        if self.employee_no is None:
            return "system"
        return f"{self.employee_name} #{self.employee_no} ({self.employee_role})"


@dataclass(frozen=True)
class HitRecord:
    """What the ledger holds about one hit, for the accounting win page and audits."""

    hit_id: int
    table: str
    seat: int
    round_no: int
    status: str
    claimed_hand: str  # the hand button the dealer pressed (a hand id)
    table_cards: tuple[str, ...]  # the cards the table sent (may be empty)
    verified_cards: tuple[str, ...]  # the cards the supervisor confirmed (may be empty)
    evaluated_hand: str | None  # what the paid-on cards make (a hand id; None: no cards)
    paid_hand: str | None  # the hand the award pays
    amount_cents: int | None
    wager_cents: int | None
    flags: tuple[str, ...]
    controller_ref: str  # "<boot>:<seq>" of the HIT JACKPOT event
    claimed_at: datetime
    decisions: tuple[DecisionRecord, ...]  # decisions and swipes, oldest first
    slip_nos: tuple[int, ...]


@dataclass
class _Acc:
    """What a transaction touched (becomes the FloorChange)."""

    tables: set[str] = field(default_factory=set)
    levels: set[tuple[str, str]] = field(default_factory=set)
    hits: set[int] = field(default_factory=set)
    outcomes: list[HitOutcome] = field(default_factory=list)
    slips: list[int] = field(default_factory=list)

    def change(self, action: str) -> FloorChange:
        return FloorChange(action, frozenset(self.tables), frozenset(self.levels),
                           frozenset(self.hits), tuple(self.outcomes), tuple(self.slips))


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _claimed_pay(pt: Any, hand: str) -> Any:
    """The pay of a claimed hand button (a hand the table does not list pays as the best
    listed hand it always makes, RULES.md 3); None when it pays nothing or needs the cards."""
    if hand not in fortune.HAND_IDS:
        return None
    try:
        return pay_for_claim(pt, hand)
    except ClaimError:
        return None


def _claim_problem(pt: Any, hand: str) -> str:
    try:
        pay_for_claim(pt, hand)
    except ClaimError as exc:
        return str(exc)
    return ""


def _table_label(name: str, table_id: str) -> str:
    """"Pai Gow 1 (PG-1)" on slips: the name people use and the id the ledger uses."""
    return f"{name} ({table_id})" if name and name != table_id else table_id


def _hand_name(hand_id: str) -> str:
    """The hand as people read it on a slip: "Royal flush plus royal match"."""
    name = fortune.HAND_NAMES.get(hand_id, hand_id.replace("_", " ").lower())
    return name[:1].upper() + name[1:]


def _card_text(cards: Sequence[Card]) -> str:
    return " ".join(format_cards(cards))


def _cards_of(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split()) if text else ()


def _verified_reason(cards: Sequence[Card], hand: str) -> str:
    """The reason of a ``verified`` decision; it is the ledger's record of the cards paid on."""
    return f"cards {_card_text(cards)} make {hand}"


def _verified_cards(reason: str) -> tuple[Card, ...] | None:
    """The cards in a ``verified`` decision's reason (None if it does not name seven cards)."""
    head, sep, _hand = reason.partition(" make ")
    if not sep or not head.startswith("cards "):
        return None
    try:
        cards = _cards_of(head.removeprefix("cards "))
    except CardError:
        return None
    return cards if len(cards) == 7 else None


def _flags_of(hit: Hit) -> tuple[str, ...]:
    return tuple(f for f in hit.flags.split("\n") if f)


def _money(cents: int) -> str:
    return json_cents(cents)


class Floor:
    """The floor: decides and records.  Synchronous and thread-safe."""

    def __init__(self, engine: Engine, config: FloorConfig, paytables: dict[str, Any],
                 clock: Callable[[], datetime] = _utcnow,
                 render_slip: Callable[[Any], bytes] | None = None) -> None:
        self.engine = engine
        self.config = config
        self.paytables = paytables
        self.clock = clock
        self._render = render_slip
        self._listeners: list[Callable[[FloorChange], None]] = []
        self._lock = threading.Lock()
        self._pg = engine.dialect.name == "postgresql"
        for g in config.groups:
            if g.paytable not in paytables:
                raise FloorError(f"group {g.id}: paytable {g.paytable} is not installed")

    # --- plumbing ----------------------------------------------------------------------------

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def _now(self) -> datetime:
        now = self.clock()
        if now.tzinfo is None:
            raise FloorError("clock: the floor clock must give UTC-aware times")
        return now.astimezone(UTC)

    def add_listener(self, fn: Callable[[FloorChange], None]) -> None:
        """``fn(change)`` after every commit (on the calling thread)."""
        with self._lock:
            self._listeners.append(fn)

    def _notify(self, change: FloorChange) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(change)
            except Exception:  # a broken listener must not undo a committed pay
                log.exception("floor listener %r failed", fn)

    def _group_cfg(self, group_id: str) -> GroupConfig:
        try:
            return self.config.group(group_id)
        except KeyError:
            raise FloorError(f"group {group_id}: not configured on this floor") from None

    def _paytable(self, group_id: str) -> Any:
        return self.paytables[self._group_cfg(group_id).paytable]

    def _levels(self, s: Session, group_id: str, *, lock: bool) -> dict[str, Level]:
        q = select(Level).where(Level.group_id == group_id).order_by(Level.id)
        if lock:
            q = q.with_for_update()
        return {lv.name: lv for lv in s.scalars(q)}

    @staticmethod
    def _settings(s: Session, level_id: int) -> meters.LevelSettings:
        row = s.scalars(select(LevelSetting).where(LevelSetting.level_id == level_id)
                        .order_by(LevelSetting.id.desc()).limit(1)).first()
        if row is None:
            raise FloorError(f"level #{level_id}: has no settings; start the floor first")
        return meters.LevelSettings(row.seed_units, Decimal(row.contribution_rate_ppm) / PPM,
                                    Decimal(row.reserve_rate_ppm) / PPM)

    @staticmethod
    def _state(s: Session, level_id: int) -> meters.LevelState:
        m, r = s.execute(select(func.coalesce(func.sum(MeterEntry.meter_delta), 0),
                                func.coalesce(func.sum(MeterEntry.reserve_delta), 0))
                         .where(MeterEntry.level_id == level_id)).one()
        return meters.LevelState(int(m), int(r))

    def _write(self, s: Session, level: Level, moves: Iterable[meters.Movement], now: datetime,
               acc: _Acc, reason: str = "", **refs: Any) -> None:
        moves = list(moves)
        if any(mv.meter_delta < 0 or mv.reserve_delta < 0 for mv in moves):
            meters.apply(self._state(s, level.id), moves)  # refuses a negative meter
        for mv in moves:
            if mv.meter_delta == 0 and mv.reserve_delta == 0:
                continue
            s.add(MeterEntry(level_id=level.id, kind=mv.kind, meter_delta=mv.meter_delta,
                             reserve_delta=mv.reserve_delta, reason=reason or mv.reverses,
                             created_at=now, **refs))
        s.flush()
        acc.levels.add((level.group_id, level.name))

    def _reverse_entries(self, s: Session, level_by_id: dict[int, Level],
                         entries: Sequence[MeterEntry], now: datetime, acc: _Acc, reason: str,
                         **refs: Any) -> None:
        by_level: dict[int, list[MeterEntry]] = {}
        for e in entries:
            by_level.setdefault(e.level_id, []).append(e)
        for level_id, rows in by_level.items():
            state = self._state(s, level_id)
            delta_m = -sum(e.meter_delta for e in rows)
            delta_r = -sum(e.reserve_delta for e in rows)
            if state.meter_units + delta_m < 0 or state.reserve_units + delta_r < 0:
                lv = level_by_id[level_id]
                raise FloorError(f"level {lv.group_id}/{lv.name}: reversing would take the meter "
                                 "below zero; back it out by a manual adjustment")
            for e in reversed(rows):
                s.add(MeterEntry(level_id=level_id, kind="reversal", meter_delta=-e.meter_delta,
                                 reserve_delta=-e.reserve_delta, reverses_id=e.id,
                                 reason=f"{reason} (reverses {e.kind})", created_at=now, **refs))
            lv = level_by_id[level_id]
            acc.levels.add((lv.group_id, lv.name))
        s.flush()

    def _commit(self, action: str, fn: Callable[[Session, _Acc], Any]) -> Any:
        acc = _Acc()
        with self._session() as s, s.begin():
            result = fn(s, acc)
        self._notify(acc.change(action))
        return result

    # --- start: configuration into the ledger ------------------------------------------------

    def start(self) -> list[str]:
        """Sync the floor configuration into the ledger; returns what it did (for the log).

        New levels are seeded (a ``seed`` entry); a changed seed or rate appends a
        ``level_settings`` row (history is never updated).  Every table starts OFFLINE until
        its link reports it online.
        """
        notes: list[str] = []

        def run(s: Session, acc: _Acc) -> None:
            now = self._now()
            if s.get(Setting, SLIP_SEQUENCE_KEY) is None:
                s.add(Setting(key=SLIP_SEQUENCE_KEY, value="slip numbers: max(slips.slip_no)+1"))
            for g in self.config.groups:
                row = s.get(Group, g.id)
                if row is None:
                    row = Group(id=g.id, created_at=now)
                    s.add(row)
                    notes.append(f"group {g.id}: created")
                row.name, row.paytable_id = g.name, g.paytable
                row.lock_at_hit, row.payment_order = g.lock_at_hit, g.pay_order
                s.flush()
                levels = self._levels(s, g.id, lock=True)
                for lc in g.levels:
                    lv = levels.get(lc.name)
                    if lv is None:
                        lv = Level(group_id=g.id, name=lc.name, created_at=now)
                        s.add(lv)
                        s.flush()
                    want = (cents_to_units(lc.seed_cents), int(lc.contribution_rate * PPM),
                            int(lc.reserve_rate * PPM))
                    cur = s.scalars(select(LevelSetting).where(LevelSetting.level_id == lv.id)
                                    .order_by(LevelSetting.id.desc()).limit(1)).first()
                    if cur is None or (cur.seed_units, cur.contribution_rate_ppm,
                                       cur.reserve_rate_ppm) != want:
                        s.add(LevelSetting(level_id=lv.id, seed_units=want[0],
                                           contribution_rate_ppm=want[1],
                                           reserve_rate_ppm=want[2], effective_at=now))
                        notes.append(f"level {g.id}/{lc.name}: settings recorded")
                    has_entries = s.scalar(select(func.count()).select_from(MeterEntry)
                                           .where(MeterEntry.level_id == lv.id))
                    if not has_entries:
                        s.add(MeterEntry(level_id=lv.id, kind="seed", meter_delta=want[0],
                                         reserve_delta=0, reason="first-time seeding",
                                         created_at=now))
                        notes.append(f"level {g.id}/{lc.name}: seeded at "
                                     f"{_money(lc.seed_cents)}")
                    acc.levels.add((g.id, lc.name))
            for t in self.config.tables:
                trow = s.get(GameTable, t.id)
                if trow is None:
                    trow = GameTable(id=t.id, created_at=now)
                    s.add(trow)
                    notes.append(f"table {t.id}: created")
                trow.name, trow.group_id, trow.seats, trow.online = t.name, t.group, t.seats, False
                acc.tables.add(t.id)
            s.flush()

        self._commit("start", run)
        return notes

    def set_link(self, table: str, online: bool) -> None:
        """The controller link of ``table`` came up (online) or dropped (OFFLINE)."""

        def run(s: Session, acc: _Acc) -> None:
            row = s.get(GameTable, table)
            if row is None:
                raise FloorError(f"table {table}: not configured on this floor")
            row.online = online
            acc.tables.add(table)

        self._commit("link", run)

    # --- controller events -------------------------------------------------------------------

    def handle(self, origin: Origin, event: ControllerEvent) -> bool:
        """Record a controller event and act on it, in one transaction.

        Returns False for a replay (the same table, boot and seq were stored before): nothing
        changes.  Raises FloorError (a ValueError) for an unconfigured table or a refused
        event: the event's transaction is rolled back, and the refusal is written to
        ``refused_events`` in a transaction of its own (once per table, boot and seq), because
        the link acknowledges it ``refused`` and the controller then drops it.
        """
        try:
            return self._handle(origin, event)
        except ValueError as exc:
            self._record_refusal(origin, event, str(exc) or type(exc).__name__)
            raise

    def _record_refusal(self, origin: Origin, event: ControllerEvent, reason: str) -> None:
        """Keep a refused event (its only trace once the controller drops it)."""
        same = (RefusedEvent.table_id == origin.table, RefusedEvent.boot == origin.boot,
                RefusedEvent.seq == origin.seq)
        try:
            with self._session() as s, s.begin():
                if s.scalar(select(RefusedEvent.id).where(*same)) is not None:
                    return  # refused before (the controller sent it again): kept once
                s.add(RefusedEvent(table_id=origin.table, boot=origin.boot, seq=origin.seq,
                                   type=type(event).__name__, payload=_payload(event),
                                   controller_time=origin.controller_time, reason=reason,
                                   received_at=self._now()))
        except IntegrityError:
            with self._session() as s:  # another thread kept the same refusal first
                if s.scalar(select(RefusedEvent.id).where(*same)) is not None:
                    return
            raise
        log.info("table %s: event %s:%d (%s) refused and kept: %s", origin.table, origin.boot,
                 origin.seq, type(event).__name__, reason)

    def _handle(self, origin: Origin, event: ControllerEvent) -> bool:
        try:
            self.config.table(origin.table)
        except KeyError:
            raise FloorError(f"table {origin.table}: not configured on this floor; its "
                             "controller is refused") from None
        acc = _Acc()
        try:
            with self._session() as s, s.begin():
                trow = s.get(GameTable, origin.table)
                if trow is None:
                    raise FloorError(f"table {origin.table}: not in the ledger; start the floor")
                seen = s.scalar(select(EventRow.id).where(
                    EventRow.table_id == origin.table, EventRow.boot == origin.boot,
                    EventRow.seq == origin.seq))
                if seen is not None:
                    return False
                now = self._now()
                ev = EventRow(table_id=origin.table, boot=origin.boot, seq=origin.seq,
                              type=type(event).__name__, payload=_payload(event),
                              controller_time=origin.controller_time, received_at=now)
                s.add(ev)
                s.flush()
                acc.tables.add(origin.table)
                self._dispatch(s, trow, ev, event, now, acc)
        except IntegrityError:
            # Another thread stored the same (table, boot, seq) first: a replay.
            with self._session() as s:
                seen = s.scalar(select(EventRow.id).where(
                    EventRow.table_id == origin.table, EventRow.boot == origin.boot,
                    EventRow.seq == origin.seq))
            if seen is not None:
                return False
            raise
        self._notify(acc.change("event"))
        return True

    def _dispatch(self, s: Session, t: GameTable, ev: EventRow, event: ControllerEvent,
                  now: datetime, acc: _Acc) -> None:
        if isinstance(event, GameStarted):
            self._game_started(s, t, ev, event, now, acc)
        elif isinstance(event, HitClaimed):
            self._hit_claimed(s, t, ev, event, now, acc)
        elif isinstance(event, GameEnded):
            rnd = self._round(s, t.id, event.round_no)
            if rnd is not None and rnd.state == "locked":
                rnd.state = "ended"
        elif isinstance(event, Undone):
            self._undone(s, t, event, now, acc)
        elif isinstance(event, Misdealt):
            rnd = self._round(s, t.id, event.round_no)
            if rnd is None:
                log.warning("table %s: misdeal of unknown round %s", t.id, event.round_no)
                return
            self._void_round(s, t, rnd, "misdealt", f"misdeal round {event.round_no}", now, acc)
        else:  # pragma: no cover - the union is closed
            raise FloorError(f"table {t.id}: unknown event {type(event).__name__}")

    @staticmethod
    def _round(s: Session, table_id: str, round_no: int) -> Round | None:
        return s.scalars(select(Round).where(Round.table_id == table_id,
                                             Round.round_no == round_no)
                         .order_by(Round.id.desc()).limit(1)).first()

    def _game_started(self, s: Session, t: GameTable, ev: EventRow, e: GameStarted,
                      now: datetime, acc: _Acc) -> None:
        if not t.online:
            raise FloorError(f"table {t.id} is OFFLINE: its progressive is locked until the "
                             "link is back")
        pt = self._paytable(t.group_id)
        rnd = Round(table_id=t.id, round_no=e.round_no, state="locked", event_id=ev.id,
                    started_at=now)
        s.add(rnd)
        s.flush()
        levels = self._levels(s, t.group_id, lock=True)
        settings = {name: self._settings(s, lv.id) for name, lv in levels.items()}
        for seat, cents in sorted(e.wagers.items()):
            problem = None
            if not 1 <= seat <= t.seats:
                problem = f"seat {seat}: table {t.id} has seats 1 to {t.seats}"
            elif pt.wager_cents is not None and cents != pt.wager_cents:
                problem = (f"seat {seat}: wager {_money(cents)} is not the {pt.id} wager "
                           f"{_money(pt.wager_cents)}")
            elif cents <= 0:
                problem = f"seat {seat}: wager {_money(cents)} is not positive"
            w = Wager(round_id=rnd.id, seat=seat, amount_cents=cents,
                      status="refused" if problem else "locked", problem=problem)
            s.add(w)
            s.flush()
            if problem:
                log.warning("table %s round %s: %s", t.id, e.round_no, problem)
                continue
            for name, lv in levels.items():
                self._write(s, lv, meters.contribute(settings[name], cents), now, acc,
                            reason=f"table {t.id} round {e.round_no} seat {seat}",
                            round_id=rnd.id)

    def _hit_claimed(self, s: Session, t: GameTable, ev: EventRow, e: HitClaimed,
                     now: datetime, acc: _Acc) -> None:
        g = self._group_cfg(t.group_id)
        pt = self.paytables[g.paytable]
        flags: list[str] = []
        blocking = False
        rnd = self._round(s, t.id, e.round_no)
        wager: Wager | None = None
        if rnd is None:
            flags.append(f"round {e.round_no} was never started (no START GAME)")
        elif rnd.state in ("misdealt", "undone"):
            flags.append(f"round {e.round_no} was {rnd.state}")
        if rnd is not None:
            wager = s.scalars(select(Wager).where(Wager.round_id == rnd.id,
                                                  Wager.seat == e.seat,
                                                  Wager.status == "locked")).first()
        if wager is None:
            flags.append(f"no wager on seat {e.seat}")
            blocking = True
        if rnd is not None:
            dup = s.scalar(select(Hit.id).where(Hit.round_id == rnd.id, Hit.seat == e.seat,
                                                Hit.status.in_(("pending", "paid", "auto_paid"))))
            if dup is not None:
                flags.append(f"seat {e.seat} already has a hit in round {e.round_no}")
                blocking = True
        pay = _claimed_pay(pt, e.hand)
        if e.hand not in fortune.HAND_IDS:
            flags.append(f"hand button {e.hand!r} is not a Fortune hand")
        elif pay is None:
            flags.append(_claim_problem(pt, e.hand))
        cards_ok = False
        mismatch_note = ""
        if e.cards:
            try:
                parse_cards([str(c) for c in e.cards], count=7)
                cards_ok = True
            except CardError as exc:
                flags.append(f"cards from the table: {exc}")
        if cards_ok:
            got = pt.paying(e.cards)
            if got is None or got.hand != e.hand:
                made = got.hand if got is not None else fortune.classify(e.cards, pt.joker)
                mismatch_note = f"claimed {e.hand}, cards make {made}"
                flags.append(mismatch_note)
        hit = Hit(table_id=t.id, round_id=rnd.id if rnd else None, round_no=e.round_no,
                  seat=e.seat, wager_id=wager.id if wager else None, claimed_hand=e.hand,
                  cards=_card_text(e.cards) if cards_ok else "", flags="\n".join(flags),
                  status="pending", event_id=ev.id, created_at=now)
        s.add(hit)
        s.flush()
        acc.hits.add(hit.id)
        if mismatch_note:
            s.add(HitDecision(hit_id=hit.id, decision="mismatch_flagged", employee_id=None,
                              reason=mismatch_note, created_at=now))
        if blocking or rnd is None or rnd.state in ("misdealt", "undone") or pay is None:
            return
        assert wager is not None
        if g.lock_at_hit and pay.source == "meter":
            levels = self._levels(s, g.id, lock=True)
            lv = levels[pay.level or pt.levels[0]]
            state = self._state(s, lv.id)
            cents, moves = meters.award(state, self._settings(s, lv.id), pay.fraction)
            self._write(s, lv, moves, now, acc, reason=f"locked at hit #{hit.id}",
                        hit_id=hit.id, round_id=rnd.id)
            hit.locked_level_id = lv.id
            hit.locked_amount_cents = cents
            hit.locked_meter_before_cents = units_floor_cents(state.meter_units)
            hit.locked_meter_after_cents = units_floor_cents(self._state(s, lv.id).meter_units)
            return
        if (not pay.secondary_verification and pay.source == "tray" and not flags
                and not g.all_pays_from_meter):
            amount = pt.fixed_cents(pay, wager.amount_cents)
            award = Award(hit_id=hit.id, hand=pay.hand, source="tray", level_id=None,
                          amount_cents=amount, meter_before_cents=None, meter_after_cents=None,
                          authorized_by=None, verified_by=None, created_at=now)
            s.add(award)
            s.flush()
            s.add(HitDecision(hit_id=hit.id, decision="auto_paid", employee_id=None,
                              reason=AUTO_PAID_REASON, created_at=now))
            hit.status = "auto_paid"
            slip_no = self._make_slip(s, hit, award, now)
            acc.slips.append(slip_no)
            acc.outcomes.append(HitOutcome(hit.id, t.id, hit.round_no, hit.seat, "auto_paid",
                                           amount))

    def _undone(self, s: Session, t: GameTable, e: Undone, now: datetime, acc: _Acc) -> None:
        rnd = self._round(s, t.id, e.round_no)
        if rnd is None:
            log.warning("table %s: undo %s of unknown round %s", t.id, e.what, e.round_no)
            return
        if e.what == "START_GAME":
            self._void_round(s, t, rnd, "undone", f"undo START GAME round {e.round_no}", now, acc)
            return
        if e.what != "HIT":
            log.warning("table %s: undo of %r ignored", t.id, e.what)
            return
        q = select(Hit).where(Hit.round_id == rnd.id).order_by(Hit.id.desc())
        if e.seat is not None:
            q = q.where(Hit.seat == e.seat)
        hit = s.scalars(q.limit(1).with_for_update()).first()
        if hit is None:
            log.warning("table %s round %s: undo HIT with no hit", t.id, e.round_no)
            return
        if hit.status != "pending":
            log.warning("table %s round %s seat %s: undo HIT ignored, the hit is %s (only a "
                        "manual adjustment backs out a pay)", t.id, e.round_no, hit.seat,
                        hit.status)
            return
        self._cancel_hit(s, hit, "undone", "undo HIT at the table", now, acc)

    def _cancel_hit(self, s: Session, hit: Hit, decision: str, reason: str, now: datetime,
                    acc: _Acc, employee_id: int | None = None) -> None:
        locked = list(s.scalars(select(MeterEntry).where(
            MeterEntry.hit_id == hit.id, MeterEntry.kind != "reversal",
            MeterEntry.award_id.is_(None)).order_by(MeterEntry.id)))
        if locked:
            lv_ids = {e.level_id for e in locked}
            level_by_id = {lv.id: lv for lv in s.scalars(select(Level).where(
                Level.id.in_(lv_ids)).with_for_update())}
            self._reverse_entries(s, level_by_id, locked, now, acc,
                                  f"hit #{hit.id} {decision}", hit_id=hit.id)
        s.add(HitDecision(hit_id=hit.id, decision=decision, employee_id=employee_id,
                          reason=reason, created_at=now))
        hit.status = "rejected" if decision == "rejected" else "cancelled"
        acc.hits.add(hit.id)
        acc.outcomes.append(HitOutcome(hit.id, hit.table_id, hit.round_no, hit.seat,
                                       hit.status))

    def _void_round(self, s: Session, t: GameTable, rnd: Round, state: str, reason: str,
                    now: datetime, acc: _Acc) -> None:
        if rnd.state in ("misdealt", "undone"):
            return
        levels = self._levels(s, t.group_id, lock=True)
        level_by_id = {lv.id: lv for lv in levels.values()}
        entries = list(s.scalars(select(MeterEntry).where(
            MeterEntry.round_id == rnd.id, MeterEntry.kind.in_(_CONTRIBUTION_KINDS))
            .order_by(MeterEntry.id)))
        if entries:
            self._reverse_entries(s, level_by_id, entries, now, acc, reason, round_id=rnd.id)
        for hit in s.scalars(select(Hit).where(Hit.round_id == rnd.id,
                                               Hit.status == "pending").order_by(Hit.id)):
            self._cancel_hit(s, hit, "cancelled", reason, now, acc)
        paid = s.scalar(select(func.count()).select_from(Hit).where(
            Hit.round_id == rnd.id, Hit.status.in_(("paid", "auto_paid"))))
        if paid:
            log.warning("table %s round %s: %s with %s paid hit(s); a paid hit is backed out "
                        "only by a manual adjustment", t.id, rnd.round_no, state, paid)
        for w in s.scalars(select(Wager).where(Wager.round_id == rnd.id,
                                               Wager.status == "locked")):
            w.status = "returned"
        rnd.state = state

    # --- verification and pay ----------------------------------------------------------------

    def _cards(self, cards: Sequence[str] | Sequence[Card]) -> tuple[Card, ...]:
        texts = [c if isinstance(c, str) else str(c) for c in cards]
        return parse_cards(texts, count=7)

    def _load_hit(self, s: Session, hit_id: int, *, lock: bool) -> Hit:
        q = select(Hit).where(Hit.id == hit_id)
        if lock:
            q = q.with_for_update()
        hit = s.scalars(q).first()
        if hit is None:
            raise FloorError(f"hit #{hit_id}: no such hit")
        return hit

    def _blocking(self, s: Session, hit: Hit) -> list[str]:
        problems: list[str] = []
        flags = _flags_of(hit)
        if hit.wager_id is None:
            problems.append(f"no wager on seat {hit.seat}")
        problems += [f for f in flags if "already has a hit" in f or "was never started" in f
                     or f.endswith(("was misdealt", "was undone"))]
        return list(dict.fromkeys(problems))

    def _order_block(self, s: Session, hit: Hit, g: GroupConfig) -> tuple[list[Hit], int | None]:
        """Pending payable hits of the same round paid before this one, and the seat that must
        be paid first (None if this hit is next)."""
        if hit.round_id is None or g.lock_at_hit:
            return [], None
        others = [h for h in s.scalars(select(Hit).where(
            Hit.round_id == hit.round_id, Hit.status == "pending", Hit.id != hit.id))
            if not self._blocking(s, h)]
        if not others:
            return [], None
        order = meters.payment_order([h.seat for h in others] + [hit.seat], g.pay_order)
        by_seat = {h.seat: h for h in others}
        before = [by_seat[seat] for seat in order[: order.index(hit.seat)]]
        return before, (before[0].seat if before else None)

    def _assess(self, s: Session, hit: Hit, cards: tuple[Card, ...], *,
                lock: bool) -> dict[str, Any]:
        """Everything evaluate and pay need; reads only (locks rows when ``lock``)."""
        t = s.get(GameTable, hit.table_id)
        assert t is not None
        g = self._group_cfg(t.group_id)
        pt = self.paytables[g.paytable]
        best = fortune.classify(cards, pt.joker)
        pay = pt.paying(cards)
        problems = self._blocking(s, hit)
        claimed_pay = _claimed_pay(pt, hit.claimed_hand)
        # the claim is right when it names the cards' best hand or the hand they are paid as
        mismatch = pay is None or hit.claimed_hand not in (pay.hand, best)
        if mismatch:
            made = pay.hand if pay is not None else best
            problems.append(f"claimed {hit.claimed_hand}, cards make {made}")
        if pay is None:
            problems.append(f"{pt.id} pays nothing for these cards ({best})")
        if hit.cards and _cards_of(hit.cards) and set(_cards_of(hit.cards)) != set(cards):
            problems.append("note: the cards entered differ from the cards the table sent")
        if hit.status != "pending":
            problems.append(f"hit #{hit.id} is already {hit.status.replace('_', '-')}")
        before, first_seat = self._order_block(s, hit, g)
        if first_seat is not None:
            problems.append(f"pay seat {first_seat} first (round {hit.round_no} is paid "
                            f"{'highest' if g.pay_order == 'right_first' else 'lowest'} "
                            "seat first)")
        wager = s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
        amount: int | None = None
        level_name: str | None = None
        source: str | None = None
        meter_before: int | None = None
        locked_same = (hit.locked_amount_cents is not None and pay is not None
                       and claimed_pay is not None and pay == claimed_pay)
        if pay is not None and wager is not None:
            source = pay.source
            levels = self._levels(s, g.id, lock=lock)
            if pay.source == "meter":
                level_name = pay.level or pt.levels[0]
                if locked_same:
                    amount = hit.locked_amount_cents
                else:
                    lv = levels[level_name]
                    state = self._state(s, lv.id)
                    settings = self._settings(s, lv.id)
                    for h in before:  # earlier pays of this round take their share first
                        hp = _claimed_pay(pt, h.claimed_hand)
                        if hp is not None and hp.source == "meter" and \
                                (hp.level or pt.levels[0]) == level_name:
                            _, mv = meters.award(state, settings, hp.fraction)
                            state = meters.apply(state, mv)
                    meter_before = units_floor_cents(state.meter_units)
                    amount, _ = meters.award(state, settings, pay.fraction)
            else:
                amount = pt.fixed_cents(pay, wager.amount_cents)
                if g.all_pays_from_meter:
                    level_name = pt.levels[0]
        role = None
        if pay is not None and amount is not None:
            role = required_role(pay.authorization, amount,
                                 self.config.authorization.executive_threshold_cents)
        return {"t": t, "g": g, "pt": pt, "best": best, "pay": pay, "problems": problems,
                "mismatch": mismatch, "amount": amount, "level": level_name, "source": source,
                "role": role, "wager": wager, "first_seat": first_seat,
                "meter_before": meter_before,
                "locked_same": locked_same}

    def evaluate(self, hit_id: int, cards: Sequence[str] | Sequence[Card]) -> Verification:
        """Preview: what these cards make, what they pay now, and every problem (no change)."""
        parsed = self._cards(cards)
        with self._session() as s, s.begin():
            hit = self._load_hit(s, hit_id, lock=False)
            a = self._assess(s, hit, parsed, lock=False)
        pay = a["pay"]
        blocking = self._blocking_problems(a)
        return Verification(
            hit_id=hit.id, table=hit.table_id, round_no=hit.round_no, seat=hit.seat,
            cards=parsed, best_hand=a["best"], claimed_hand=hit.claimed_hand,
            pay_hand=pay.hand if pay is not None else None, source=a["source"],
            level=a["level"], amount_cents=a["amount"], mismatch=a["mismatch"],
            problems=tuple(a["problems"]), required_role=a["role"], payable=not blocking,
            fraction=pay.fraction if pay is not None and pay.source == "meter" else None,
            meter_cents=a["meter_before"])

    @staticmethod
    def _blocking_problems(a: dict[str, Any]) -> list[str]:
        """Problems that even a claim correction can not clear."""
        return [p for p in a["problems"] if not p.startswith(("claimed ", "note: "))]

    def pay(self, hit_id: int, cards: Sequence[str] | Sequence[Card], swipe: str,
            correct_claim: bool = False) -> PaidHit:
        """Verify the 7 cards, check the swipe's authority, and pay in ONE transaction:
        decisions, award, meter movements, slip.  A refusal changes nothing (a refused swipe
        is only written to the swipe log)."""
        parsed = self._cards(cards)
        acc = _Acc()
        refusal: AuthError | None = None
        refusal_role: str | None = None
        with self._session() as s, s.begin():
            hit = self._load_hit(s, hit_id, lock=True)
            where = f"hit #{hit.id} (table {hit.table_id} seat {hit.seat})"
            if hit.status != "pending":
                raise FloorError(f"{where}: already {hit.status.replace('_', '-')}")
            a = self._assess(s, hit, parsed, lock=True)
            blocking = self._blocking_problems(a)
            if blocking:
                extra = "; it can only be rejected" if hit.wager_id is None else ""
                raise FloorError(f"{where}: {'; '.join(blocking)}{extra}")
            if a["mismatch"] and not correct_claim:
                raise FloorError(f"{where}: {a['problems'][0]}; correct the claim to pay "
                                 f"{a['pay'].hand}, or reject the hit")
            try:
                emp = authorize(s, swipe, a["role"])
            except AuthError as exc:
                refusal, refusal_role = exc, a["role"]
            if refusal is None:
                paid = self._do_pay(s, hit, a, parsed, emp, acc)
        if refusal is not None:
            self._log_refusal(refusal, hit_id, "pay", refusal_role)
            raise refusal
        self._notify(acc.change("pay"))
        return paid

    def _log_refusal(self, exc: AuthError, hit_id: int | None, action: str,
                     role: str | None) -> None:
        with self._session() as s, s.begin():
            log_swipe(s, exc.outcome, employee_id=exc.employee_id, hit_id=hit_id,
                      action=action, role_required=role, now=self._now())
        log.info("swipe refused (%s) for %s on hit %s", exc.outcome, action, hit_id)

    def _do_pay(self, s: Session, hit: Hit, a: dict[str, Any], cards: tuple[Card, ...],
                emp: Employee, acc: _Acc) -> PaidHit:
        now = self._now()
        g: GroupConfig = a["g"]
        pt = a["pt"]
        pay = a["pay"]
        wager: Wager = a["wager"]
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=hit.id, action="pay",
                  role_required=a["role"], now=now)
        corrected = bool(a["mismatch"])
        if corrected:
            s.add(HitDecision(hit_id=hit.id, decision="claim_corrected", employee_id=emp.id,
                              reason=f"claimed {hit.claimed_hand}, cards make {pay.hand}",
                              created_at=now))
        s.add(HitDecision(hit_id=hit.id, decision="verified", employee_id=emp.id,
                          reason=_verified_reason(cards, pay.hand), created_at=now))
        if not hit.cards:
            hit.cards = _card_text(cards)
        levels = self._levels(s, g.id, lock=True)
        if hit.locked_amount_cents is not None and not a["locked_same"]:
            # The locked amount was for another hand: give it back, pay the corrected hand now.
            self._cancel_locked(s, hit, levels, now, acc)
        award = Award(hit_id=hit.id, hand=pay.hand, source="tray", level_id=None,
                      amount_cents=0, authorized_by=emp.id, verified_by=emp.id, created_at=now)
        s.add(award)
        s.flush()
        before = after = None
        level_name: str | None = a["level"]
        if pay.source == "meter":
            lv = levels[level_name or pt.levels[0]]
            award.source, award.level_id = "meter", lv.id
            if a["locked_same"]:
                amount = int(hit.locked_amount_cents or 0)
                before, after = hit.locked_meter_before_cents, hit.locked_meter_after_cents
            else:
                state = self._state(s, lv.id)
                amount, moves = meters.award(state, self._settings(s, lv.id), pay.fraction)
                before = units_floor_cents(state.meter_units)
                self._write(s, lv, moves, now, acc, reason=f"award hit #{hit.id}",
                            hit_id=hit.id, award_id=award.id, employee_id=emp.id)
                after = units_floor_cents(self._state(s, lv.id).meter_units)
        else:
            amount = pt.fixed_cents(pay, wager.amount_cents)
            if g.all_pays_from_meter:
                lv = levels[pt.levels[0]]
                state = self._state(s, lv.id)
                taken, moves = meters.award_fixed(state, amount)
                award.level_id = lv.id
                before = units_floor_cents(state.meter_units)
                self._write(s, lv, moves, now, acc, reason=f"fixed award hit #{hit.id} "
                            f"({_money(taken)} of {_money(amount)} from the meter)",
                            hit_id=hit.id, award_id=award.id, employee_id=emp.id)
                after = units_floor_cents(self._state(s, lv.id).meter_units)
                level_name = lv.name
        award.amount_cents = amount
        award.meter_before_cents, award.meter_after_cents = before, after
        s.add(HitDecision(hit_id=hit.id, decision="paid", employee_id=emp.id,
                          reason=f"{_money(amount)} from the {award.source}", created_at=now))
        hit.status = "paid"
        s.flush()
        slip_no = self._make_slip(s, hit, award, now)
        acc.hits.add(hit.id)
        acc.tables.add(hit.table_id)
        acc.slips.append(slip_no)
        acc.outcomes.append(HitOutcome(hit.id, hit.table_id, hit.round_no, hit.seat, "paid",
                                       amount))
        return PaidHit(hit.id, hit.table_id, hit.round_no, hit.seat, pay.hand, amount,
                       award.source, level_name if award.source == "meter" else None,
                       before if award.source == "meter" else None,
                       after if award.source == "meter" else None, emp.number, slip_no,
                       corrected)

    def _cancel_locked(self, s: Session, hit: Hit, levels: dict[str, Level], now: datetime,
                       acc: _Acc) -> None:
        locked = list(s.scalars(select(MeterEntry).where(
            MeterEntry.hit_id == hit.id, MeterEntry.kind != "reversal",
            MeterEntry.award_id.is_(None)).order_by(MeterEntry.id)))
        self._reverse_entries(s, {lv.id: lv for lv in levels.values()}, locked, now, acc,
                              f"hit #{hit.id} claim corrected", hit_id=hit.id)
        hit.locked_amount_cents = None

    def _make_slip(self, s: Session, hit: Hit, award: Award, now: datetime) -> int:
        if self._pg:
            s.scalars(select(Setting).where(Setting.key == SLIP_SEQUENCE_KEY)
                      .with_for_update()).first()
        slip_no = int(s.scalar(select(func.coalesce(func.max(Slip.slip_no), 0))) or 0) + 1
        from printing.slip import render_slip

        render = self._render or render_slip
        data = bytes(render(self._slip_record(s, slip_no, hit, award, now)))
        s.add(Slip(slip_no=slip_no, hit_id=hit.id, award_id=award.id, escpos=data,
                   created_at=now))
        s.flush()
        return slip_no

    def _slip_record(self, s: Session, slip_no: int, hit: Hit, award: Award,
                     paid_at: datetime) -> WinSlip:
        """The win slip of a paid hit, from its ledger rows only (the award, its level, the
        employees on it, the cards of the latest ``verified`` decision or else the table's).
        The slip printed at pay time and :meth:`win_slip` later are both built here."""
        from printing.slip import Signer, WinSlip

        def signer(employee_id: int | None) -> Signer | None:
            emp = s.get(Employee, employee_id) if employee_id is not None else None
            return Signer(emp.name, emp.number, emp.role) if emp is not None else None

        authorized = signer(award.authorized_by)
        level = None
        if award.source == "meter" and award.level_id is not None:
            lv = s.get(Level, award.level_id)
            level = lv.name if lv is not None else None
        table = s.get(GameTable, hit.table_id)
        group = s.get(Group, table.group_id) if table is not None else None
        return WinSlip(
            casino=self.config.casino.name, slip_no=slip_no, hit_ref=f"H{hit.id}",
            table=_table_label(table.name if table is not None else "", hit.table_id),
            seat=hit.seat, round_no=hit.round_no,
            paytable=group.paytable_id if group is not None else "",
            hand=_hand_name(award.hand), hand_id=award.hand,
            cards=tuple(format_cards(self._shown_cards(s, hit))),
            amount_cents=award.amount_cents,
            source="meter" if award.source == "meter" else "tray",
            level=level, meter_before_cents=award.meter_before_cents if level else None,
            meter_after_cents=award.meter_after_cents if level else None,
            authorized_by=authorized or Signer("Auto-paid (no secondary verification)", "AUTO",
                                               "system"),
            verified_by=signer(award.verified_by),
            paid_at=paid_at, timezone=self.config.casino.timezone,
            currency=self.config.casino.currency_symbol,
        )

    @staticmethod
    def _shown_cards(s: Session, hit: Hit) -> tuple[Card, ...]:
        """The cards a pay was made on: those the supervisor verified (the latest ``verified``
        decision), else the cards the table sent."""
        reason = s.scalar(select(HitDecision.reason).where(
            HitDecision.hit_id == hit.id, HitDecision.decision == "verified")
            .order_by(HitDecision.id.desc()).limit(1))
        verified = _verified_cards(reason) if reason else None
        return verified if verified is not None else _cards_of(hit.cards)

    def reject(self, hit_id: int, reason: str, swipe: str) -> None:
        """Reject a pending hit (a supervisor's card); a lock-at-hit amount goes back to the
        meter by reversal entries."""
        reason = (reason or "").strip()
        if not reason:
            raise FloorError(f"hit #{hit_id}: give a reason to reject it")
        acc = _Acc()
        refusal: AuthError | None = None
        with self._session() as s, s.begin():
            hit = self._load_hit(s, hit_id, lock=True)
            if hit.status != "pending":
                raise FloorError(f"hit #{hit.id} (table {hit.table_id} seat {hit.seat}): "
                                 f"already {hit.status.replace('_', '-')}")
            try:
                emp = authorize(s, swipe, "supervisor")
            except AuthError as exc:
                refusal = exc
            if refusal is None:
                now = self._now()
                log_swipe(s, "accepted", employee_id=emp.id, hit_id=hit.id, action="reject",
                          role_required="supervisor", now=now)
                self._cancel_hit(s, hit, "rejected", reason, now, acc, employee_id=emp.id)
                acc.tables.add(hit.table_id)
        if refusal is not None:
            self._log_refusal(refusal, hit_id, "reject", "supervisor")
            raise refusal
        self._notify(acc.change("reject"))

    def check_swipe(self, swipe: str, needed: str, action: str) -> tuple[str, str, str]:
        """Check one card for ``needed`` authority before an action that takes several swipes
        (the first card of a manual adjustment): (number, name, role) if it may; a refusal is
        logged in swipe_log and raised as AuthError.  An accepted check writes nothing: the
        action logs its swipes when it is recorded."""
        refusal: AuthError | None = None
        with self._session() as s, s.begin():
            try:
                emp = authorize(s, swipe, needed)
            except AuthError as exc:
                refusal = exc
            else:
                return emp.number, emp.name, emp.role
        now = self._now()
        with self._session() as s, s.begin():
            log_swipe(s, refusal.outcome, employee_id=refusal.employee_id, hit_id=None,
                      action=action, role_required=needed, now=now)
        raise refusal

    def adjust(self, group: str, level: str, meter_delta_cents: int, reason: str, swipe: str,
               second_swipe: str) -> None:
        """A manual meter adjustment: an executive's card and a second, different person's
        (supervisor or executive), with a reason.  The meter never goes below zero."""
        reason = (reason or "").strip()
        if not reason:
            raise FloorError(f"adjustment of {group}/{level}: give a reason")
        if isinstance(meter_delta_cents, bool) or not isinstance(meter_delta_cents, int) \
                or meter_delta_cents == 0:
            raise FloorError(f"adjustment of {group}/{level}: the amount must be a non-zero "
                             "number of cents")
        self._group_cfg(group)
        acc = _Acc()
        refusal: AuthError | None = None
        first_ok: int | None = None
        with self._session() as s, s.begin():
            levels = self._levels(s, group, lock=True)
            lv = levels.get(level)
            if lv is None:
                raise FloorError(f"group {group}: no level {level}")
            try:
                emp = authorize(s, swipe, "executive")
                first_ok = emp.id
                second = authorize(s, second_swipe, "supervisor")
            except AuthError as exc:
                refusal = exc
            if refusal is None and second.id == emp.id:
                refusal = AuthError(f"adjustment of {group}/{level}: the second card must be "
                                    f"another person (both swipes are employee {emp.number})",
                                    "same_person", emp.id)
            if refusal is None:
                now = self._now()
                state = self._state(s, lv.id)
                delta = cents_to_units(meter_delta_cents)
                if state.meter_units + delta < 0:
                    raise FloorError(f"adjustment of {group}/{level}: the meter holds "
                                     f"{_money(units_floor_cents(state.meter_units))}; taking "
                                     f"{_money(-meter_delta_cents)} would make it negative")
                for e in (emp, second):
                    log_swipe(s, "accepted", employee_id=e.id, hit_id=None, action="adjust",
                              role_required="executive" if e is emp else "supervisor", now=now)
                s.add(MeterEntry(level_id=lv.id, kind="adjustment", meter_delta=delta,
                                 reserve_delta=0, employee_id=emp.id,
                                 second_employee_id=second.id, reason=reason, created_at=now))
                acc.levels.add((group, level))
        if refusal is not None:
            now = self._now()
            with self._session() as s, s.begin():
                if first_ok is not None:
                    log_swipe(s, "accepted", employee_id=first_ok, hit_id=None,
                              action="adjust", role_required="executive", now=now)
                log_swipe(s, refusal.outcome, employee_id=refusal.employee_id, hit_id=None,
                          action="adjust",
                          role_required="executive" if first_ok is None else "supervisor",
                          now=now)
            raise refusal
        self._notify(acc.change("adjust"))

    # --- reading -----------------------------------------------------------------------------

    def meter(self, group: str, level: str) -> meters.LevelState:
        """A level's meter and reserve: the sum of its ledger entries."""
        with self._session() as s, s.begin():
            lv = self._levels(s, group, lock=False).get(level)
            if lv is None:
                raise FloorError(f"group {group}: no level {level}")
            return self._state(s, lv.id)

    def snapshot(self) -> FloorSnapshot:
        now = self._now()
        with self._session() as s, s.begin():
            tables: list[TableView] = []
            for t in s.scalars(select(GameTable).order_by(GameTable.id)):
                rnd = s.scalars(select(Round).where(Round.table_id == t.id)
                                .order_by(Round.id.desc()).limit(1)).first()
                pending = s.scalar(select(func.count()).select_from(Hit).where(
                    Hit.table_id == t.id, Hit.status == "pending")) or 0
                grp = s.get(Group, t.group_id)
                tables.append(TableView(t.id, t.name, t.group_id,
                                        grp.paytable_id if grp else "", t.online,
                                        rnd.round_no if rnd else None,
                                        rnd.state if rnd else None, int(pending)))
            levels = [LevelView(lv.group_id, lv.name, *self._state_tuple(s, lv.id))
                      for lv in s.scalars(select(Level).order_by(Level.group_id, Level.id))]
            pend: list[PendingHitView] = []
            for h in s.scalars(select(Hit).where(Hit.status == "pending").order_by(Hit.id)):
                w = s.get(Wager, h.wager_id) if h.wager_id is not None else None
                pend.append(PendingHitView(
                    h.id, h.table_id, h.seat, h.round_no, w.amount_cents if w else None,
                    h.claimed_hand, tuple(h.cards.split()) if h.cards else (), _flags_of(h),
                    h.created_at, (now - h.created_at).total_seconds(),
                    h.locked_amount_cents))
        return FloorSnapshot(now, tuple(tables), tuple(levels), tuple(pend))

    def _state_tuple(self, s: Session, level_id: int) -> tuple[int, int]:
        st = self._state(s, level_id)
        return st.meter_units, st.reserve_units

    def _level_id(self, s: Session, group: str, level: str) -> int:
        lv = self._levels(s, group, lock=False).get(level)
        if lv is None:
            raise FloorError(f"group {group}: no level {level}")
        return lv.id

    @staticmethod
    def _window(what: str, since: datetime | None, limit: int | None) -> None:
        if since is not None and since.tzinfo is None:
            raise FloorError(f"{what}: 'since' must be a UTC-aware time, not a naive one")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 1):
            raise FloorError(f"{what}: limit {limit!r} must be a whole number of at least 1")

    def meter_history(self, group: str, level: str, since: datetime | None = None,
                      limit: int | None = None) -> list[tuple[datetime, int]]:
        """The meter after each entry, oldest first: (time, exact units).

        ``since``: only entries made at or after that time; ``limit``: only the most recent
        ``limit`` of them.  Each value is still the true meter after that entry: the sum of
        every earlier entry is added up by the database (one statement), not fetched."""
        self._window(f"meter history of {group}/{level}", since, limit)
        with self._session() as s, s.begin():
            level_id = self._level_id(s, group, level)
            q = (select(MeterEntry.id, MeterEntry.created_at, MeterEntry.meter_delta)
                 .where(MeterEntry.level_id == level_id))
            if since is not None:
                q = q.where(MeterEntry.created_at >= since)
            if limit is not None:
                q = q.order_by(MeterEntry.id.desc()).limit(limit)
            window = q.cte("window")
            before = (select(func.coalesce(func.sum(MeterEntry.meter_delta), 0))
                      .where(MeterEntry.level_id == level_id,
                             MeterEntry.id < select(func.min(window.c.id)).scalar_subquery())
                      .scalar_subquery())
            rows = s.execute(select(window.c.created_at, window.c.meter_delta, before)
                             .order_by(window.c.id)).all()
        out: list[tuple[datetime, int]] = []
        total = int(rows[0][2]) if rows else 0
        for at, delta, _ in rows:
            total += int(delta)
            out.append((at, total))
        return out

    def hit_markers(self, group: str, level: str, since: datetime | None = None,
                    limit: int | None = None) -> list[HitMarker]:
        """Meter pays of a level (for markers on the meter history), oldest first; ``since``
        and ``limit`` as for :meth:`meter_history` (awards at or after ``since``, the most
        recent ``limit``)."""
        self._window(f"hit markers of {group}/{level}", since, limit)
        with self._session() as s, s.begin():
            level_id = self._level_id(s, group, level)
            q = (select(Award, Hit).join(Hit, Award.hit_id == Hit.id)
                 .where(Award.level_id == level_id))
            if since is not None:
                q = q.where(Award.created_at >= since)
            rows = s.execute(q.order_by(Award.id.desc()).limit(limit)).all()
            return [HitMarker(a.created_at, h.id, h.table_id, h.seat, a.hand, a.amount_cents)
                    for a, h in reversed(rows)]

    # --- decisions the controllers must hear ---------------------------------------------------

    def controller_decision(self, hit_id: int) -> ControllerDecision | None:
        """PAY / REJECT of a decided hit for its controller (None while pending or when the
        table cancelled the hit itself)."""
        with self._session() as s, s.begin():
            found = self._decisions(s, Hit.id == hit_id)
        return found[0] if found else None

    def awaited_decisions(self, table: str) -> list[ControllerDecision]:
        """Decided hits (paid, auto-paid, rejected) of ``table`` whose round the controller has
        not closed: no END GAME, misdeal or undo recorded for the round, and no later START
        GAME at the table (the controller waits for every hit's PAY / REJECT before END GAME,
        so a later round means it moved on).  A hit on a round that never started counts
        until the table records a later START GAME, END GAME or misdeal.  The ledger is the
        source of truth: these are sent again whenever the table's link comes up."""
        later = aliased(EventRow)

        def after_hit(*types: str) -> Any:
            return exists().where(later.table_id == Hit.table_id, later.id > Hit.event_id,
                                  later.type.in_(types))

        still_open = or_(
            and_(Round.state == "locked", ~after_hit("GameStarted")),
            and_(Hit.round_id.is_(None), ~after_hit("GameStarted", "GameEnded", "Misdealt")))
        with self._session() as s, s.begin():
            return self._decisions(s, Hit.table_id == table, still_open)

    def _decisions(self, s: Session, *where: Any) -> list[ControllerDecision]:
        rows = s.execute(
            select(Hit, EventRow.boot, EventRow.seq, Award.amount_cents)
            .join(EventRow, EventRow.id == Hit.event_id)
            .outerjoin(Round, Round.id == Hit.round_id)
            .outerjoin(Award, Award.hit_id == Hit.id)
            .where(Hit.status.in_(_DECIDED), *where).order_by(Hit.id)).all()
        out: list[ControllerDecision] = []
        for hit, boot, seq, amount in rows:
            reason = ""
            if hit.status == "rejected":
                reason = s.scalar(select(HitDecision.reason).where(
                    HitDecision.hit_id == hit.id, HitDecision.decision == "rejected")
                    .order_by(HitDecision.id.desc()).limit(1)) or "rejected by supervisor"
            out.append(ControllerDecision(hit.id, hit.table_id, hit.round_no, hit.seat,
                                          hit.status, int(amount or 0), f"{boot}:{seq}",
                                          reason))
        return out

    def pending_slips(self) -> list[PendingSlip]:
        """Slips not yet printed successfully, oldest first."""
        with self._session() as s, s.begin():
            ok_ids = select(SlipPrintAttempt.slip_id).where(SlipPrintAttempt.ok.is_(True))
            out: list[PendingSlip] = []
            for slip in s.scalars(select(Slip).where(Slip.id.not_in(ok_ids))
                                  .order_by(Slip.slip_no)):
                failed = s.scalar(select(func.count()).select_from(SlipPrintAttempt)
                                  .where(SlipPrintAttempt.slip_id == slip.id)) or 0
                out.append(PendingSlip(slip.slip_no, slip.hit_id, bytes(slip.escpos),
                                       slip.created_at, int(failed)))
        return out

    def slip_bytes(self, slip_no: int) -> bytes:
        """The stored ESC/POS bytes of a slip (reprint exactly what was printed)."""
        with self._session() as s, s.begin():
            data = s.scalar(select(Slip.escpos).where(Slip.slip_no == slip_no))
        if data is None:
            raise FloorError(f"slip {slip_no}: no such slip")
        return bytes(data)

    def win_slip(self, slip_no: int) -> WinSlip:
        """The record of a win slip rebuilt from the ledger: the same :class:`WinSlip` the
        printed bytes were rendered from (one builder for both, ``_slip_record``)."""
        with self._session() as s, s.begin():
            slip = s.scalars(select(Slip).where(Slip.slip_no == slip_no)).first()
            if slip is None:
                raise FloorError(f"slip {slip_no}: no such slip")
            hit = s.get(Hit, slip.hit_id)
            award = s.get(Award, slip.award_id)
            if hit is None or award is None:
                raise FloorError(f"slip {slip_no}: its hit or award is missing from the ledger")
            return self._slip_record(s, slip.slip_no, hit, award, slip.created_at)

    def hit_record(self, hit_id: int) -> HitRecord:
        """A hit's claim, cards, evaluation, award, decisions and swipes (who, when, why)."""
        with self._session() as s, s.begin():
            hit = s.get(Hit, hit_id)
            if hit is None:
                raise FloorError(f"hit #{hit_id}: no such hit")
            award = s.scalars(select(Award).where(Award.hit_id == hit.id)).first()
            ev = s.get(EventRow, hit.event_id)
            wager = s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
            reason = s.scalar(select(HitDecision.reason).where(
                HitDecision.hit_id == hit.id, HitDecision.decision == "verified")
                .order_by(HitDecision.id.desc()).limit(1))
            verified = (_verified_cards(reason) if reason else None) or ()
            paid_on = verified or _cards_of(hit.cards)
            evaluated: str | None = None
            t = s.get(GameTable, hit.table_id)
            if paid_on and t is not None:
                try:
                    evaluated = fortune.classify(paid_on, self._paytable(t.group_id).joker)
                except (CardError, FloorError):
                    evaluated = None
            people = {e.id: e for e in s.scalars(select(Employee))}

            def row(at: datetime, what: str, employee_id: int | None,
                    why: str) -> DecisionRecord:
                e = people.get(employee_id) if employee_id is not None else None
                if e is None:
                    return DecisionRecord(at, what, None, "", "", why)
                return DecisionRecord(at, what, e.number, e.name, e.role, why)

            trail = [(d.created_at, 0, d.id, row(d.created_at, d.decision, d.employee_id,
                                                 d.reason))
                     for d in s.scalars(select(HitDecision).where(HitDecision.hit_id == hit.id))]
            trail += [(w.created_at, 1, w.id,
                       row(w.created_at, f"swipe {w.outcome.replace('_', ' ')}", w.employee_id,
                           f"{w.action}, needs {w.role_required or 'any role'}"))
                      for w in s.scalars(select(SwipeLog).where(SwipeLog.hit_id == hit.id))]
            # a swipe comes before the decisions it made (same transaction, same time)
            trail.sort(key=lambda r: (r[0], -r[1], r[2]))
            slips = tuple(s.scalars(select(Slip.slip_no).where(Slip.hit_id == hit.id)
                                    .order_by(Slip.slip_no)))
            return HitRecord(
                hit.id, hit.table_id, hit.seat, hit.round_no, hit.status, hit.claimed_hand,
                tuple(format_cards(_cards_of(hit.cards))), tuple(format_cards(verified)),
                evaluated, award.hand if award else None,
                award.amount_cents if award else None, wager.amount_cents if wager else None,
                _flags_of(hit), f"{ev.boot}:{ev.seq}" if ev else "", hit.created_at,
                tuple(r[3] for r in trail), slips)

    def record_print(self, slip_no: int, printer: str, ok: bool, error: str = "") -> None:
        def run(s: Session, acc: _Acc) -> None:
            slip = s.scalars(select(Slip).where(Slip.slip_no == slip_no)).first()
            if slip is None:
                raise FloorError(f"slip {slip_no}: no such slip")
            s.add(SlipPrintAttempt(slip_id=slip.id, printer=printer, ok=ok,
                                   error="" if ok else (error or "failed"),
                                   created_at=self._now()))
            acc.slips.append(slip_no)

        self._commit("print", run)


def _payload(event: ControllerEvent) -> dict[str, Any]:
    """The event as JSON (cards as text, seat keys as strings)."""
    out: dict[str, Any] = {}
    for name in event.__dataclass_fields__:
        value = getattr(event, name)
        if name == "wagers":
            value = {str(k): int(v) for k, v in value.items()}
        elif name == "cards":
            value = format_cards(value)
        out[name] = value
    return out


def check_meter_invariant(engine: Engine) -> list[str]:
    """Every level's meter and reserve are >= 0 (a meter IS the sum of its entries, so this is
    the one thing that can go wrong).  Returns problems; empty means fine."""
    problems: list[str] = []
    with Session(engine) as s, s.begin():
        for lv in s.scalars(select(Level)):
            st_m, st_r = s.execute(select(func.coalesce(func.sum(MeterEntry.meter_delta), 0),
                                          func.coalesce(func.sum(MeterEntry.reserve_delta), 0))
                                   .where(MeterEntry.level_id == lv.id)).one()
            if st_m < 0 or st_r < 0:
                problems.append(f"level {lv.group_id}/{lv.name}: meter {st_m} reserve {st_r}")
    return problems


__all__ = [
    "AUTO_PAID_REASON", "ControllerDecision", "DecisionRecord", "Floor", "FloorChange",
    "FloorError", "FloorSnapshot", "HitMarker", "HitOutcome", "HitRecord", "LevelView",
    "PaidHit", "PendingHitView", "PendingSlip", "TableView", "UNITS_PER_CENT", "Verification",
    "check_meter_invariant",
]
