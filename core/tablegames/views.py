"""The records the floor hands out (frozen dataclasses): to the console, the controllers' link,
the printer and the tests.  Nothing here touches the database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from core.kernel.cards import Card
from core.kernel.money import units_floor_cents
from core.people.who import Who
from core.tablegames.flags import FlagCode


class FloorError(ValueError):
    """A floor action refused; the message is what a supervisor reads (table, seat, card)."""


class AmountChanged(FloorError):
    """The amount a supervisor authorized is no longer what the hit pays (a linked table moved
    the meter): nothing was paid; ``amount_cents`` is the amount it pays now."""

    def __init__(self, message: str, amount_cents: int) -> None:
        super().__init__(message)
        self.amount_cents = amount_cents


@dataclass(frozen=True)
class FrozenAmount:
    """A hit's Jackpot Lock as a verification sees it (core/tablegames/pay/freeze.py).

    ``state``: ``frozen`` (the amount is fixed at verification: a verification closed without a
    decision gives it back), ``unfrozen`` (given back now), ``kept`` (still frozen: a hit paid
    after it in its round is fixed on what it left), ``locked_at_hit`` (the group fixes
    amounts at HIT JACKPOT), ``none`` (nothing frozen: not a meter pay, or a hit that can only
    be rejected), or the hit's status when it was decided meanwhile.  The amount, level and
    meter before it are the freeze's (before a release: what was given back)."""

    hit_id: int
    state: str
    amount_cents: int | None = None
    level: str | None = None
    meter_before_cents: int | None = None


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
    """What one committed transaction (or one batch of controller events) changed, with the new
    state of everything it touched, so a screen can repaint without reading the ledger.

    ``seq`` numbers the announcements of one :class:`~core.tablegames.floor.Floor` (1, 2, ...).
    ``table_views`` / ``level_views``: the touched tables and levels as they are now;
    ``pending``: touched hits still waiting; ``closed``: touched hits no longer waiting."""

    action: str
    tables: frozenset[str] = frozenset()
    levels: frozenset[tuple[str, str]] = frozenset()  # (group, level)
    hits: frozenset[int] = frozenset()
    outcomes: tuple[HitOutcome, ...] = ()
    slips: tuple[int, ...] = ()  # new win slips (each is printed)
    seq: int = 0
    table_views: tuple[TableView, ...] = ()
    level_views: tuple[LevelView, ...] = ()
    pending: tuple[PendingHitView, ...] = ()
    closed: frozenset[int] = frozenset()
    events: int = 0  # controller events recorded (a batch counts each)
    at: datetime | None = None  # when the transaction was made (its entries' time)
    prints: tuple[int, ...] = ()  # slips whose print attempt was recorded
    # "" when this process made it; else the process that did (core/tablegames/feed.py:
    # heard through the ledger's notifications), e.g. "serve pit-a@host1 #12"
    origin: str = ""
    slip_tables: tuple[str, ...] = ()  # a remote change: the table of each of ``slips``
    sent: float = 0.0  # a remote change: when its first notification was sent (time.time())

    @property
    def remote(self) -> bool:
        return bool(self.origin)

    @property
    def touched(self) -> bool:
        return bool(self.tables or self.levels or self.hits or self.outcomes or self.slips
                    or self.prints or self.events)


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
    # the pay is verified by one person and authorized by another ([authorization]
    # separate_verifier_at)
    verifier_needed: bool = False
    reject_role: str = "supervisor"  # rejecting needs the authority paying would
    # the amount is the one fixed at the hit or at verification (Jackpot Lock): the meter
    # moving does not change it; ``meter_cents`` is then the meter it was fixed on
    frozen: bool = False


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
    # the seats whose progressive wager is locked in the current round (START GAME lit them;
    # what a "no wager on seat N" flag is checked against); () when no round is locked
    wager_seats: tuple[int, ...] = ()


@dataclass(frozen=True)
class LevelView:
    group: str
    level: str
    meter_units: int
    reserve_units: int
    version: int = 0  # the id of the latest entry folded in (a newer view has a larger one)
    # Jackpot Lock (at hit, or at verification): the amounts fixed for hits still waiting on
    # this level, frozen while the live meter keeps growing; 0 / 0 when nothing is pending
    frozen_cents: int = 0
    frozen_hits: int = 0

    @property
    def meter_cents(self) -> int:
        return units_floor_cents(self.meter_units)

    @property
    def pending(self) -> bool:
        return self.frozen_hits > 0


@dataclass(frozen=True)
class PendingHitView:
    hit_id: int
    table: str
    seat: int
    round_no: int
    wager_cents: int | None
    claimed_hand: str
    cards: tuple[str, ...]
    flags: tuple[str, ...]  # the words of its flags (made from the codes, for the screen)
    created_at: datetime
    age_seconds: float
    locked_amount_cents: int | None
    blocking: bool = False  # a flag that means it can only be rejected
    codes: tuple[FlagCode, ...] = ()  # its flags as codes (what a screen decides on)


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
    state: str = "queued"  # as SlipPrintState.state: queued | failed | unknown


PRINT_MARKINGS = ("", "reprint", "duplicate")  # what the paper says above the slip


@dataclass(frozen=True)
class SlipPrintState:
    """A slip's print state, folded from its print attempts (docs/ledger.md "Print attempts").

    ``printed``: confirmed prints; ``open_since``: when the latest print that has no outcome
    started (a crash between sending and recording: nobody knows whether it printed);
    ``maybe_on_paper``: some attempt may have put (part of) the slip on paper without a
    confirmation (a start without outcome, a failure after bytes went out, a failure from
    before revision 0012, which did not say)."""

    slip_no: int
    printed: int = 0
    failed: int = 0
    open_since: datetime | None = None
    open_printer: str = ""
    maybe_on_paper: bool = False
    last_error: str = ""
    last_reason: str = ""
    last_attempt: int = 0  # the id of its latest print attempt (0: never tried)
    printed_on: str = ""  # the printer of its latest confirmed print

    @property
    def state(self) -> str:
        """printed | unknown | failed | queued."""
        if self.printed:
            return "printed"
        if self.open_since is not None:
            return "unknown"
        return "failed" if self.failed else "queued"

    @property
    def next_marking(self) -> str:
        """What the next print says above the slip: ``reprint`` after a confirmed print,
        ``duplicate`` when an earlier print may be on paper, "" (an original) otherwise."""
        if self.printed:
            return "reprint"
        return "duplicate" if self.maybe_on_paper else ""


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
    by: Who | None  # None: the controller or the system
    reason: str

    @property
    def who(self) -> str:
        return "system" if self.by is None else self.by.label()


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


@dataclass(frozen=True)
class SlipLine:
    """A win slip as lists show it: its hit, table and seat, amount, when, its print state."""

    slip_no: int
    hit_id: int
    table: str
    seat: int
    amount_cents: int
    created_at: datetime
    print_state: SlipPrintState
    voided: bool = False  # a void slip (slip_voids): not payable, never printed again


@dataclass(frozen=True)
class SlipVoidView:
    """A voided win slip as papers and screens show it: when (UTC), by whom, why, and whether
    the paid money came back (then the award's meter movements were reversed)."""

    slip_no: int
    at: datetime
    by: Who
    reason: str
    money_returned: bool


@dataclass(frozen=True)
class VoidedSlip:
    """What :meth:`Floor.void_slip` recorded: the void, the award it voids, and the meter
    movements written back (``returned_units``: per level "GROUP/LEVEL", exact units the meter
    got back; empty when no money came back or the pay moved no meter)."""

    void: SlipVoidView
    hit_id: int
    amount_cents: int
    reversals: int
    returned_units: tuple[tuple[str, int], ...] = ()
