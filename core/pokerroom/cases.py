"""Bad Beat Jackpot claims as tracked CASES (RULES.md section 6, "Deadlines and reports"; the
console's Poker room tab, docs/operator.md "Poker room"; docs/bbj.md "Cases").

A case is opened from a claim as the floor entered it (:class:`ClaimEntry`: table, blinds, pot,
seats dealt in, board, showdown hole cards, names, ID checked per seat, taxpayer classes); the
decision is ``core.pokerroom.rules.bbj.decide`` on the fund's
:func:`core.pokerroom.fund.amount_for_hit` for the
hit time.  The claim and the decision are stored with the case (``bbj_cases``); its history is
append-only state rows (``bbj_case_events``), each with who (a supervisor's swipe; an
executive's for a large award or share, :class:`StepAuthority`) and when, written in ONE
transaction with its ``swipe_log`` row.  A refused card writes only its swipe-log row.

States, in order (none can be skipped)::

    claimed -> verified (deck sorted, CCTV reviewed) -> request_filed (TGD-1500)
            -> approved -> share_paid (one row per share, seat by seat) -> acknowledged

``attachments_filed`` (IDs, bank statement, CCTV) is recorded once, any time after the request
is filed, also after the acknowledgment and after the deadline was recorded missed (RULES.md 6:
closing a case never makes a later filing impossible); one filed after its 7-day deadline is
LATE (:attr:`Deadline.late`, and its row's detail says "LATE by N days").
``attachments_missed`` (once, with the reason) records that the 7-day deadline passed without
them: the deadline then shows missed with the reason instead of overdue; refused before the
deadline and once they are filed.  A case is OPEN (:attr:`CaseView.is_open`) until it is
acknowledged AND its attachments are filed or recorded missed (or it is voided).
``voided`` (with the reason and who decided) ends a case from any state before the
first share is paid; voiding an approved case gives the award back to the fund in the same
transaction (``core.pokerroom.fund.void_award_in``).  A voided case needs no attachments (no
award is paid on it, so nothing supports one; it has no deadline and is not open), yet they can
still be filed for the record once its request was filed.  A claim that does not qualify can
only be voided.

Deadlines (:func:`deadlines`), from the hit time: TGD-1500 within 24 hours of the hit, and
with it the updated TGD-1494/1623 up to the hit's day (``daily_report``, met by the same
``request_filed`` step); attachments within 7 calendar days of the hit; approval within 3
business days of filing; payout (every share) within 3 business days of approval;
acknowledgment within 24 hours after the payout.  Business days skip Saturdays, Sundays and
the ``holidays`` given, counted in the casino's time zone, keeping the time of day.
:func:`overdue` lists every deadline passed and not met.

Approval pays the fund: the ``approved`` step re-decides the stored claim on the fund as it
stands for the hit now (the hit's day must be posted, so the day's collections count) and writes
the award (``core.pokerroom.fund.record_award_in``: the award, its shares, the ``award`` and
``reserve_move`` entries) in the SAME transaction as the state row and its swipe.  Each later
``share_paid`` row names that award's share (gross, tax, net).  docs/bbj.md "Cases".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.floorconfig import Authorization
from core.kernel.cards import Card, format_cards, parse_cards
from core.kernel.money import format_cents, json_cents, parse_cents
from core.ledger.db import lock_record
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCase,
    BbjCaseEvent,
    BbjSlipPrint,
    Employee,
)
from core.people.auth import AuthError, Gate, Swipe, Swiper, gate_for, required_role, same_person
from core.people.who import Who
from core.pokerroom import business_days
from core.pokerroom.fund import (
    BbjFundError,
    Forfeiture,
    Funds,
    FundSettings,
    Notice,
    Posting,
    active_notice_in,
    amount_for_hit,
    amount_for_hit_in,
    forfeit_on_closure_in,
    give_notice_in,
    hit_funds_read,
    open_fund,
    players_told_in,
    post_day_in,
    record_award_in,
    record_count_in,
    record_tournament_fee_in,
    void_award_in,
    withdraw_notice_in,
)
from core.pokerroom.rules.bbj import BbjSettings, Claim, Decision, ShownHand, decide, decision_json

log = logging.getLogger("podium.bbj_cases")
T = TypeVar("T")
#: The casino's gaming day of a moment (``core.pokerroom.room.PokerRoom.gaming_day_of``).
DayOf = Callable[[datetime], date]

SWIPE_ACTION = "bbj_case"
COUNT_ACTION = "bbj_count"  # the daily drop-box count and its posting (swipe_log.action)
ROLE = "supervisor"  # a step's card, unless the award or the share is large (StepAuthority)
EXECUTIVE = "executive"  # a notice of cessation, its withdrawal, the forfeiture on closure
CLOSURE_ACTION = "bbj_closure"  # notices and the forfeiture (swipe_log.action)
CHAIN: tuple[str, ...] = ("claimed", "verified", "request_filed", "approved", "share_paid",
                          "acknowledged")
ATTACHMENT_STATES: tuple[str, ...] = ("attachments_filed", "attachments_missed")
STATES: tuple[str, ...] = (*CHAIN, *ATTACHMENT_STATES, "voided")
ATTACHMENTS_DAYS = 7  # RULES.md 6: the TGD-1500 attachments within 7 calendar days of the hit
STATE_TEXT: dict[str, str] = {
    "claimed": "claimed", "verified": "verified (deck sorted, CCTV reviewed)",
    "request_filed": "awarding request filed (TGD-1500)", "approved": "approved",
    "share_paid": "paying shares", "acknowledged": "acknowledgment received",
    "attachments_filed": "attachments filed",
    "attachments_missed": "attachments deadline missed", "voided": "voided",
}
REASON_TEXT: dict[str, str] = {
    "NOT_ENOUGH_PLAYERS": "fewer than 5 players dealt in",
    "POT_TOO_SMALL": "the pot is under 20 big blinds",
    "NO_SHOWDOWN": "fewer than two hands went to showdown",
    "WINNING_HAND_TOO_LOW": "the winning hand is below four of a kind",
    "LOSING_HAND_TOO_LOW": "the losing hand is below Aces full of Tens",
    "WINNING_HOLE_CARDS_DO_NOT_PLAY": "both winning hole cards do not play",
    "LOSING_HOLE_CARDS_DO_NOT_PLAY": "both losing hole cards do not play",
    "NO_ACE_IN_HOLE": "Aces full without an Ace in the hole",
    "VOIDED": "a void was observed (discussion, one player to a hand, deck, cards, "
              "unverifiable)",
}


class BbjCaseError(ValueError):
    """A case step refused; the message names the case and the problem."""


def _day(day_of: DayOf | None, at: datetime) -> date | None:
    """The gaming day of ``at`` (None: not known, the counts' hours decide)."""
    return day_of(at) if day_of is not None else None


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ClaimEntry:
    """A claim as the floor enters it (money in centavos; seats 1 or more)."""

    table: str
    big_blind_cents: int
    pot_cents: int
    dealt_in: tuple[int, ...]
    board: tuple[Card, ...]
    showdown: tuple[ShownHand, ...]
    table_jackpot_rake_cap_cents: int
    room_max_jackpot_rake_cents: int
    names: Mapping[int, str] = field(default_factory=dict)
    id_checked: frozenset[int] = frozenset()
    taxpayers: Mapping[int, str] = field(default_factory=dict)
    voids: tuple[str, ...] = ()
    small_blind_cents: int | None = None  # for TGD-1500; None: not recorded
    not_seated: tuple[int, ...] = ()  # dealt in, not seated at the start: no table share

    def __post_init__(self) -> None:
        if not isinstance(self.table, str) or not self.table.strip():
            raise BbjCaseError("table: must not be empty")
        sb = self.small_blind_cents
        if sb is not None and (isinstance(sb, bool) or not isinstance(sb, int) or sb <= 0
                               or sb > self.big_blind_cents):
            shown = format_cents(sb) if isinstance(sb, int) else repr(sb)
            raise BbjCaseError(f"small blind {shown}: must be more than 0.00 and at most the "
                               "big blind")
        for seat in (*self.names, *self.id_checked):
            if seat not in self.dealt_in:
                raise BbjCaseError(f"seat {seat}: a name or ID check for a seat not dealt in")

    def claim(self, main_cents: int, reserve_cents: int) -> Claim:
        """The claim for ``core.pokerroom.rules.bbj.decide`` (BbjError on bad cards or amounts)."""
        return Claim(big_blind_cents=self.big_blind_cents, pot_cents=self.pot_cents,
                     dealt_in=self.dealt_in, board=self.board, showdown=self.showdown,
                     table_jackpot_rake_cap_cents=self.table_jackpot_rake_cap_cents,
                     room_max_jackpot_rake_cents=self.room_max_jackpot_rake_cents,
                     main_jackpot_cents=main_cents, reserve_jackpot_cents=reserve_cents,
                     taxpayers=dict(self.taxpayers), voids=self.voids,
                     not_seated=self.not_seated)

    def to_json(self, main_cents: int, reserve_cents: int) -> dict[str, Any]:
        """The claim as stored with the case (the CLI.md case-file keys, plus table, names and
        id_checked)."""
        return {
            "table": self.table.strip(), "big_blind": json_cents(self.big_blind_cents),
            "pot": json_cents(self.pot_cents), "dealt_in": list(self.dealt_in),
            "board": format_cards(self.board),
            "showdown": [{"seat": h.seat, "hole": format_cards(h.hole)} for h in self.showdown],
            "names": {str(k): v for k, v in sorted(self.names.items())},
            "id_checked": sorted(self.id_checked),
            "taxpayers": {str(k): v for k, v in sorted(self.taxpayers.items())},
            "voids": list(self.voids),
            "table_jackpot_rake_cap": json_cents(self.table_jackpot_rake_cap_cents),
            "room_max_jackpot_rake": json_cents(self.room_max_jackpot_rake_cents),
            "main_jackpot": json_cents(main_cents), "reserve_jackpot": json_cents(reserve_cents),
            **({"small_blind": json_cents(self.small_blind_cents)}
               if self.small_blind_cents is not None else {}),
            **({"not_seated": sorted(self.not_seated)} if self.not_seated else {}),
        }


def entry_from_json(data: Mapping[str, Any]) -> ClaimEntry:
    """A stored claim back as a :class:`ClaimEntry` (for display)."""
    return ClaimEntry(
        table=data["table"], big_blind_cents=parse_cents(data["big_blind"]),
        pot_cents=parse_cents(data["pot"]), dealt_in=tuple(data["dealt_in"]),
        board=parse_cards(data["board"], None),
        showdown=tuple(ShownHand(h["seat"], tuple(parse_cards(h["hole"], 2)))  # type: ignore[arg-type]
                       for h in data["showdown"]),
        table_jackpot_rake_cap_cents=parse_cents(data["table_jackpot_rake_cap"]),
        room_max_jackpot_rake_cents=parse_cents(data["room_max_jackpot_rake"]),
        names={int(k): v for k, v in data["names"].items()},
        id_checked=frozenset(data["id_checked"]),
        taxpayers={int(k): v for k, v in data["taxpayers"].items()},
        voids=tuple(data["voids"]),
        small_blind_cents=parse_cents(data["small_blind"]) if "small_blind" in data else None,
        not_seated=tuple(data.get("not_seated", ())))


def decide_entry(engine: Engine, fund_id: str, entry: ClaimEntry, hit_at: datetime,
                 settings: BbjSettings | None = None,
                 day_of: DayOf | None = None) -> tuple[Claim, Decision]:
    """Decide the claim on the fund as it stood for the hit (BbjError, BbjFundError);
    ``day_of``: the casino's gaming day of a moment (the hit's day's posted collections
    count)."""
    f = amount_for_hit(engine, fund_id, hit_at, day=_day(day_of, hit_at))
    claim = entry.claim(f.main_cents, f.reserve_cents)
    return claim, decide(claim, settings)


RULE_PASSED_TEXT: dict[str, str] = {
    "NOT_ENOUGH_PLAYERS": "at least 5 players dealt in",
    "POT_TOO_SMALL": "the pot is at least 20 big blinds",
    "NO_SHOWDOWN": "two hands went to showdown",
    "WINNING_HAND_TOO_LOW": "the winning hand is four of a kind or better",
    "LOSING_HAND_TOO_LOW": "the losing hand is Aces full of Tens or better",
    "WINNING_HOLE_CARDS_DO_NOT_PLAY": "both winning hole cards play",
    "LOSING_HOLE_CARDS_DO_NOT_PLAY": "both losing hole cards play",
    "NO_ACE_IN_HOLE": "an Ace in the hole where Aces full needs one",
    "VOIDED": "no void observed",
}


def rule_results(decision: Decision) -> list[tuple[str, bool, str]]:
    """Every qualification rule of RULES.md 6 in CLI.md order: (code, passed, words)."""
    return [(code, code not in decision.reasons,
             REASON_TEXT[code] if code in decision.reasons else RULE_PASSED_TEXT[code])
            for code in RULE_PASSED_TEXT]


def reasons_text(decision: Decision) -> list[str]:
    """Every failed rule in words (``CODE: words``); empty when the claim qualifies."""
    return [f"{r}: {REASON_TEXT.get(r, r)}" for r in decision.reasons]


@dataclass(frozen=True)
class Event:
    state: str
    seat: int | None
    detail: str
    by: Who
    at: datetime


@dataclass(frozen=True)
class Deadline:
    what: str  # request | daily_report | attachments | approval | payout | acknowledgment
    due: datetime  # UTC
    met_at: datetime | None
    missed_at: datetime | None = None  # recorded missed (attachments only), with the reason
    missed_reason: str = ""

    @property
    def late(self) -> bool:
        """Met after it was due."""
        return self.met_at is not None and self.met_at > self.due

    @property
    def pending(self) -> bool:
        """Neither met nor recorded missed: it can be overdue."""
        return self.met_at is None and self.missed_at is None


def late_days(due: datetime, at: datetime) -> int:
    """Whole days (started) from ``due`` to ``at``: 1 minute late is 1 day late; 0 if on
    time."""
    if at <= due:
        return 0
    return -(-(at - due) // timedelta(days=1))


def late_text(due: datetime, at: datetime) -> str:
    """``LATE by N day(s)`` ("" when on time)."""
    n = late_days(due, at)
    return f"LATE by {n} day{'s' if n != 1 else ''}" if n else ""


@dataclass(frozen=True)
class CaseView:
    case_id: int
    fund_id: str
    table: str
    hit_at: datetime
    qualifies: bool
    claim: dict[str, Any]
    decision: dict[str, Any]
    events: tuple[Event, ...]
    award_id: int | None = None  # the fund's award, written with the approval

    @property
    def state(self) -> str:
        """The latest state of the chain (or ``voided``); attachments do not change it."""
        for e in reversed(self.events):
            if e.state not in ATTACHMENT_STATES:
                return e.state
        return "claimed"

    def event(self, state: str) -> Event | None:
        """The (first) row of ``state`` (None: not yet)."""
        return next((e for e in self.events if e.state == state), None)

    @property
    def attachments_due(self) -> datetime:
        """The 7-day deadline of the attachments (UTC)."""
        return self.hit_at + timedelta(days=ATTACHMENTS_DAYS)

    @property
    def attachments_needed(self) -> bool:
        """Whether the case needs its attachments (a qualifying case not voided)."""
        return self.qualifies and self.state != "voided"

    @property
    def attachments_outstanding(self) -> bool:
        """Needed, and neither filed nor recorded missed."""
        return (self.attachments_needed and self.at("attachments_filed") is None
                and self.at("attachments_missed") is None)

    @property
    def is_open(self) -> bool:
        """RULES.md 6: open until acknowledged AND the attachments filed or recorded missed;
        a voided case is closed (a claim that does not qualify stays open until voided)."""
        st = self.state
        if st == "voided":
            return False
        return st != "acknowledged" or self.attachments_outstanding

    def attachments_missed_refusal(self, now: datetime) -> str:
        """Why the attachments can not be recorded missed at ``now`` ("" when they can)."""
        if not self.attachments_needed:
            what = "voided case" if self.qualifies else "claim that does not qualify"
            return f"case {self.case_id}: a {what} needs no attachments"
        if self.at("attachments_filed") is not None:
            return f"case {self.case_id}: the attachments are filed"
        if self.at("attachments_missed") is not None:
            return f"case {self.case_id}: the attachments are already recorded missed"
        if now <= self.attachments_due:
            return (f"case {self.case_id}: the attachments are due "
                    f"{self.attachments_due:%Y-%m-%d %H:%M} UTC (7 days after the hit); "
                    "they can be recorded missed only once that has passed")
        return ""

    def at(self, state: str) -> datetime | None:
        """When the case first entered ``state`` (None: not yet)."""
        return next((e.at for e in self.events if e.state == state), None)

    @property
    def share_seats(self) -> tuple[int, ...]:
        return tuple(int(s["seat"]) for s in self.decision["shares"])

    @property
    def paid_seats(self) -> tuple[int, ...]:
        return tuple(e.seat for e in self.events if e.state == "share_paid" and e.seat)

    @property
    def unpaid_seats(self) -> tuple[int, ...]:
        paid = set(self.paid_seats)
        return tuple(s for s in self.share_seats if s not in paid)

    @property
    def paid_out_at(self) -> datetime | None:
        """When the last share was paid (None until every share is)."""
        if self.unpaid_seats or not self.paid_seats:
            return None
        return max(e.at for e in self.events if e.state == "share_paid")

    def next_states(self, now: datetime | None = None) -> tuple[str, ...]:
        """The states this case may move to now (voided included when allowed);
        ``attachments_missed`` only when ``now`` is given and past the attachments'
        deadline."""
        st = self.state
        can_file = (self.at("request_filed") is not None
                    and self.at("attachments_filed") is None)
        missed = now is not None and not self.attachments_missed_refusal(now)
        if st in ("voided", "acknowledged"):
            # closing a case never makes a later filing impossible (RULES.md 6)
            return (*(("attachments_filed",) if can_file else ()),
                    *(("attachments_missed",) if missed else ()))
        out: list[str] = []
        if not self.qualifies:
            return ("voided",)
        if st == "claimed":
            out.append("verified")
        elif st == "verified":
            out.append("request_filed")
        elif st == "request_filed":
            out.append("approved")
        elif st in ("approved", "share_paid"):
            out.append("share_paid" if self.unpaid_seats else "acknowledged")
        if can_file:
            out.append("attachments_filed")
        if missed:
            out.append("attachments_missed")
        if not self.paid_seats:
            out.append("voided")
        return tuple(out)


def add_business_days(at: datetime, days: int, tz: ZoneInfo,
                      holidays: Iterable[date] = ()) -> datetime:
    """``at`` plus ``days`` business days (not Saturday, Sunday or a holiday, in ``tz``), at the
    same local time of day; UTC."""
    local = at.astimezone(tz)
    d = business_days.add_business_days(local.date(), max(days, 0), holidays)
    return datetime.combine(d, local.timetz().replace(tzinfo=None), tz).astimezone(UTC)


def deadlines(case: CaseView, tz: ZoneInfo, holidays: Iterable[date] = ()) -> list[Deadline]:
    """The RULES.md 6 deadlines known so far (a later one appears once its start is known).
    A claim that does not qualify, and a voided case, have none."""
    if not case.qualifies or case.state == "voided":
        return []
    hol = tuple(holidays)
    missed = case.event("attachments_missed")
    filed = case.at("request_filed")
    out = [Deadline("request", case.hit_at + timedelta(hours=24), filed),
           # the guideline IV.E.ii: "Updated TGD-1494 (for offsite) or TGD-1623 (for onsite) up
           # to the day the jackpot was hit", within the same 24 hours; submitted with the
           # request (the request_filed step records both, docs/bbj.md "Cases")
           Deadline("daily_report", case.hit_at + timedelta(hours=24), filed),
           Deadline("attachments", case.attachments_due, case.at("attachments_filed"),
                    missed.at if missed else None, missed.detail if missed else "")]
    filed = case.at("request_filed")
    if filed is not None:
        out.append(Deadline("approval", add_business_days(filed, 3, tz, hol),
                            case.at("approved")))
    approved = case.at("approved")
    if approved is not None:
        out.append(Deadline("payout", add_business_days(approved, 3, tz, hol),
                            case.paid_out_at))
    paid = case.paid_out_at
    if paid is not None:
        out.append(Deadline("acknowledgment", paid + timedelta(hours=24),
                            case.at("acknowledged")))
    return out


def next_deadline(case: CaseView, tz: ZoneInfo, holidays: Iterable[date] = ()) \
        -> Deadline | None:
    """The earliest deadline neither met nor recorded missed (None: nothing pending)."""
    pending = [d for d in deadlines(case, tz, holidays) if d.pending]
    return min(pending, key=lambda d: d.due) if pending else None


def _view(s: Session, row: BbjCase) -> CaseView:
    evs = s.execute(select(BbjCaseEvent, Employee).join(
        Employee, Employee.id == BbjCaseEvent.employee_id).where(
        BbjCaseEvent.case_id == row.id).order_by(BbjCaseEvent.id)).all()
    events = tuple(Event(e.state, e.seat, e.detail, Who.of(emp), e.created_at)
                   for e, emp in evs)
    return CaseView(row.id, row.fund_id, row.table_name, row.hit_at, row.qualifies,
                    dict(row.claim), dict(row.decision), events, _award_id(s, row))


def _award_id(s: Session, row: BbjCase) -> int | None:
    """The fund's award approved in this case (``bbj_awards.case_id``)."""
    return s.execute(select(BbjAward.id).where(BbjAward.case_id == row.id)).scalar()


def get_case(engine: Engine, case_id: int) -> CaseView:
    with Session(engine) as s:
        row = s.get(BbjCase, case_id)
        if row is None:
            raise BbjCaseError(f"case {case_id}: no such case")
        return _view(s, row)


def list_cases(engine: Engine) -> list[CaseView]:
    """Every case, newest first."""
    with Session(engine) as s:
        rows = s.execute(select(BbjCase).order_by(BbjCase.id.desc())).scalars().all()
        return [_view(s, r) for r in rows]


def overdue(engine: Engine, now: datetime, tz: ZoneInfo,
            holidays: Iterable[date] = ()) -> list[tuple[CaseView, Deadline]]:
    """Every deadline passed at ``now``, not met and not recorded missed, oldest due first."""
    out = [(c, d) for c in list_cases(engine) for d in deadlines(c, tz, holidays)
           if d.pending and d.due < now]
    return sorted(out, key=lambda cd: cd[1].due)


@dataclass(frozen=True)
class StepAuthority:
    """Whose card a case step needs (``[authorization]``, as the table progressives' pays):
    ``approved`` an executive when the award (decided again at approval) is at or above
    ``executive_threshold``, and another person than the one who recorded ``verified`` when it
    is at or above ``separate_verifier_at``; ``share_paid`` an executive when the share's gross
    is at or above the threshold; every other step a supervisor."""

    step: str  # the state the step records
    role: str  # supervisor | executive
    amount_cents: int | None  # the award (approved) or the share's gross (share_paid)
    threshold_cents: int  # the floor's executive threshold
    separate: bool = False  # approved at or above separate_verifier_at
    verified_by: Who | None = None  # who recorded verified (separate only)
    ceases: bool = False  # approved: the fund ceases with it (asked, or a cease-once-hit notice)

    @property
    def words(self) -> str:
        """The step as a refusal names it: with the amount and the threshold when they made it
        an executive's."""
        if self.amount_cents is None or self.role != "executive":
            return "a Bad Beat Jackpot step"
        what = ("the approval of a Bad Beat Jackpot award" if self.step == "approved"
                else "the payment of a Bad Beat Jackpot share")
        return (f"{what} of {format_cents(self.amount_cents)} (at or above the executive "
                f"threshold {format_cents(self.threshold_cents)})")

    @property
    def prompt(self) -> str:
        """What the swipe prompt adds about the card it asks for (empty: a supervisor's)."""
        text = ""
        if self.role == "executive" and self.amount_cents is not None:
            text = (f"{format_cents(self.amount_cents)} is at or above the executive threshold "
                    f"{format_cents(self.threshold_cents)}: an EXECUTIVE card.")
        if self.separate and self.verified_by:
            text += (" " if text else "") + (f"Another person than "
                                             f"{self.verified_by.label()}, who "
                                             "verified the hand.")
        return text


def _approval_authority(policy: Authorization, award_cents: int,
                        verified_by: Who | None, ceases: bool = False) -> StepAuthority:
    role = required_role("supervisor", award_cents, policy.executive_threshold_cents)
    separate = award_cents >= policy.separate_verifier_cents
    return StepAuthority("approved", role, award_cents, policy.executive_threshold_cents,
                         separate, verified_by if separate else None, ceases)


def _share_authority(policy: Authorization, gross_cents: int | None) -> StepAuthority:
    if gross_cents is None:  # no such share: the step refuses it by name
        return StepAuthority("share_paid", ROLE, None, policy.executive_threshold_cents)
    return StepAuthority("share_paid", required_role("supervisor", gross_cents,
                                                     policy.executive_threshold_cents),
                         gross_cents, policy.executive_threshold_cents)


def _verified_by(s: Session, case_id: int) -> Employee | None:
    """Who recorded the case's ``verified`` step."""
    return s.execute(select(Employee).join(BbjCaseEvent, BbjCaseEvent.employee_id == Employee.id)
                     .where(BbjCaseEvent.case_id == case_id, BbjCaseEvent.state == "verified")
                     .order_by(BbjCaseEvent.id)).scalars().first()


def _who(emp: Employee | None) -> Who | None:
    return None if emp is None else Who.of(emp)


def _decide_again(row: BbjCase, funds: Funds, settings: BbjSettings | None) -> Decision:
    return decide(entry_from_json(row.claim).claim(funds.main_cents, funds.reserve_cents),
                  settings)


def step_authority(engine: Engine, case_id: int, state: str, *, seat: int | None = None,
                   settings: BbjSettings | None = None, cease: bool = False,
                   day_of: DayOf | None = None) -> StepAuthority:
    """Read only: the card ``state`` needs now (the console asks for it before the swipe; the
    step checks it again in its transaction, on the amounts as they are then)."""
    policy = gate_for(engine).policy
    with Session(engine) as s:
        row = s.get(BbjCase, case_id)
        if row is None:
            raise BbjCaseError(f"case {case_id}: no such case")
        if state == "approved":
            stood, _posted = hit_funds_read(s, row.fund_id, row.hit_at,
                                            _day(day_of, row.hit_at))
            held = active_notice_in(s, row.fund_id)
            cease = cease or (held is not None and held.kind == "cease_once_hit")
            funds = Funds(stood.total_cents, 0) if cease else stood
            decision = _decide_again(row, funds, settings)
            return _approval_authority(policy, decision.award_cents,
                                       _who(_verified_by(s, case_id)), cease)
        if state == "share_paid":
            award_id = _award_id(s, row)
            gross = s.execute(select(BbjAwardShare.gross_cents).where(
                BbjAwardShare.award_id == award_id, BbjAwardShare.seat == seat)).scalar()
            return _share_authority(policy, gross)
    return StepAuthority(state, ROLE, None, policy.executive_threshold_cents)


def _swiped(engine: Engine, swipe: Swipe, now: datetime,
            write: Callable[[Session, Employee], T], action: str = SWIPE_ACTION,
            role: str = ROLE, words: str = "a Bad Beat Jackpot step") -> T:
    """Authorize a supervisor's card (``role``) and ``write`` in one transaction with the
    swipe-log row (``core.people.auth.Gate.run``); a refusal at any step writes only its swipe-log
    row (who, why) and is re-raised."""
    return gate_for(engine).run(swipe, role, action, lambda s, emp, _now: write(s, emp),
                                words=words)


def open_case(engine: Engine, fund_id: str, entry: ClaimEntry, hit_at: datetime, swipe: str,
              *, settings: BbjSettings | None = None,
              clock: Callable[[], datetime] = _utcnow, day_of: DayOf | None = None) -> int:
    """Decide the claim and open its case (state ``claimed``, with who); the case id.  Bad input
    raises before anything is written."""
    if hit_at.tzinfo is None:
        raise BbjCaseError("hit time: must be timezone-aware")
    claim, decision = decide_entry(engine, fund_id, entry, hit_at, settings, day_of)
    now = clock().astimezone(UTC)
    if hit_at.astimezone(UTC) > now:
        raise BbjCaseError(f"hit time {hit_at:%Y-%m-%d %H:%M}: in the future")
    stored = entry.to_json(claim.main_jackpot_cents, claim.reserve_jackpot_cents)

    def write(s: Session, emp: Employee) -> int:
        try:
            open_fund(s, fund_id)  # locked; a ceased fund takes no new claim
        except BbjFundError as exc:
            raise BbjCaseError(str(exc)) from None
        row = BbjCase(fund_id=fund_id, table_name=entry.table.strip(),
                      hit_at=hit_at.astimezone(UTC), claim=stored,
                      decision=decision_json(decision), qualifies=decision.qualifies,
                      created_at=now)
        s.add(row)
        s.flush()
        s.add(BbjCaseEvent(case_id=row.id, state="claimed", seat=None,
                           detail="qualifies" if decision.qualifies
                           else "does not qualify: " + ", ".join(decision.reasons),
                           employee_id=emp.id, created_at=now))
        return row.id

    case_id = _swiped(engine, swipe, now, write)
    log.info("bbj case %d opened at table %s (%s)", case_id, entry.table,
             "qualifies" if decision.qualifies else "does not qualify")
    return case_id


def advance(engine: Engine, case_id: int, state: str, swipe: Swipe, *, seat: int | None = None,
            detail: str = "", deck_sorted: bool = False, cctv_reviewed: bool = False,
            settings: BbjSettings | None = None, cease: bool = False,
            clock: Callable[[], datetime] = _utcnow, day_of: DayOf | None = None) -> CaseView:
    """Move the case to ``state`` (one of :meth:`CaseView.next_states`) with the card the step
    needs (:class:`StepAuthority`: a supervisor's, an executive's with the PIN the floor asks
    for a large award or share, another person than the verifier for an award at or above
    ``separate_verifier_at``); the case afterwards.  A refused card writes only its swipe-log
    row, with the role the step needed.  ``verified`` needs ``deck_sorted`` and ``cctv_reviewed``;
    ``share_paid`` a ``seat`` with a share, not yet paid, whose ID was checked (RULES.md 6.10);
    ``voided`` a reason in ``detail``.  ``approved`` writes the fund's award in the same
    transaction: the claim decided again on :func:`core.pokerroom.fund.amount_for_hit_in` for the
    hit
    (``settings`` as when the case was opened), refused (nothing written) while the hit's day
    (``day_of``: the casino's gaming day of a moment; without it, the counts' hours) is not
    posted.  ``cease`` (``approved`` only): the fund ceases with this hit (TGD-1540,
    RULES.md 6): the reserve is added to the main amount won and the fund takes nothing
    more."""
    if state not in STATES:
        raise BbjCaseError(f"case {case_id}: {state!r} is not a state ({', '.join(STATES)})")
    if cease and state != "approved":
        raise BbjCaseError(f"case {case_id}: a fund ceases only with an approval")
    now = clock().astimezone(UTC)
    gate = gate_for(engine)
    needed: list[StepAuthority] = []  # the transaction's, once it has worked it out

    def role_now() -> str:  # for a card refused before the transaction: the log's role
        try:
            return step_authority(engine, case_id, state, seat=seat, settings=settings,
                                  cease=cease, day_of=day_of).role
        except ValueError:
            return ROLE

    who = gate.identified(swipe, hit_id=None, action=SWIPE_ACTION, role=role_now)
    try:
        with Session(engine, expire_on_commit=False) as s, s.begin():
            _step(s, gate, who, case_id, state, seat, detail, deck_sorted, cctv_reviewed,
                  settings, cease, now, needed, day_of)
    except ValueError as exc:
        role = needed[0].role if needed else role_now()
        raise gate.refused(exc, hit_id=None, action=SWIPE_ACTION, role=role, who=who) from None
    log.info("bbj case %d: %s%s", case_id, state, f" seat {seat}" if seat else "")
    return get_case(engine, case_id)


def _step(s: Session, gate: Gate, who: Swiper, case_id: int, state: str, seat: int | None,
          detail: str, deck_sorted: bool, cctv_reviewed: bool, settings: BbjSettings | None,
          cease: bool, now: datetime, needed: list[StepAuthority],
          day_of: DayOf | None = None) -> None:
    """One step of :func:`advance` in its transaction: the case locked, the card's authority
    for the step (:class:`StepAuthority`) checked, the accepted swipe and the state row
    written.  A ValueError anywhere: nothing of it is written."""
    lock_record(s, "bbj_cases", case_id)
    row = s.execute(select(BbjCase).where(BbjCase.id == case_id)).scalar_one_or_none()
    if row is None:
        raise BbjCaseError(f"case {case_id}: no such case")
    view = _view(s, row)
    if state == "attachments_missed":
        refusal = view.attachments_missed_refusal(now)
        if refusal:
            raise BbjCaseError(refusal)
        if not detail.strip():
            raise BbjCaseError(f"case {case_id}: recording the attachments missed needs "
                               "the reason")
    allowed = view.next_states(now)
    if state not in allowed:
        may = ", ".join(allowed) or "nothing (the case is closed)"
        raise BbjCaseError(f"case {case_id}: can not go from {view.state} to {state} "
                           f"(next: {may})")
    policy = gate.policy
    decided: tuple[Funds, Decision] | None = None
    verifier: Employee | None = None
    notice: Notice | None = None
    if state == "approved":
        _not_awarded_yet(s, row)
        try:
            open_fund(s, row.fund_id)  # locked: a notice withdrawn meanwhile waits for us
        except BbjFundError as exc:
            raise BbjCaseError(f"case {case_id}: {exc}") from None
        held = active_notice_in(s, row.fund_id)
        if held is not None and held.kind == "cease_once_hit":  # this approval ceases the fund
            notice, cease = held, True
        funds = amount_for_hit_in(s, row.fund_id, row.hit_at, ceasing=cease,
                                  day=_day(day_of, row.hit_at))
        decided = (funds, _decide_again(row, funds, settings))
        verifier = _verified_by(s, case_id)
        need = _approval_authority(policy, decided[1].award_cents, _who(verifier))
    elif state == "share_paid":
        gross = s.execute(select(BbjAwardShare.gross_cents).where(
            BbjAwardShare.award_id == view.award_id, BbjAwardShare.seat == seat)).scalar()
        need = _share_authority(policy, gross)
    else:
        need = StepAuthority(state, ROLE, None, policy.executive_threshold_cents)
    needed.append(need)
    emp = gate.authority(s, who, need.role, SWIPE_ACTION, need.words)
    if need.separate and verifier is not None and same_person(verifier, emp):
        assert need.amount_cents is not None
        raise AuthError(f"case {case_id}: an award of {format_cents(need.amount_cents)} (at or "
                        f"above {format_cents(policy.separate_verifier_cents)}) is approved "
                        f"by another person than the one who verified it: employee "
                        f"{verifier.number} ({verifier.name}) verified this hand",
                        "same_person",
                        emp.id, who.card_mac)
    gate.accepted(s, emp, who, hit_id=None, action=SWIPE_ACTION, role=need.role,
                  now=gate.now())
    text = detail.strip()
    at_seat: int | None = None
    if state == "verified":
        if not (deck_sorted and cctv_reviewed):
            raise BbjCaseError(f"case {case_id}: verify only once the deck is sorted and "
                               "the CCTV reviewed (RULES.md 6.9)")
        text = text or "deck sorted, CCTV reviewed"
    elif state == "attachments_filed" and view.attachments_needed:
        late = late_text(view.attachments_due, now)
        text = "; ".join(t for t in (late, text) if t)
    elif state == "approved":
        assert decided is not None
        text = (_award(s, row, view, emp, now, decided, cease, notice,
                       _day(day_of, row.hit_at))
                + (f"; {text}" if text else ""))
    elif state == "share_paid":
        if seat not in view.unpaid_seats:
            raise BbjCaseError(f"case {case_id}: seat {seat} has no unpaid share (unpaid: "
                               f"{', '.join(map(str, view.unpaid_seats)) or 'none'})")
        if seat not in view.claim["id_checked"]:
            raise BbjCaseError(f"case {case_id}: seat {seat}: no valid government ID "
                               "checked; a share is paid only on ID (RULES.md 6.10)")
        at_seat = seat
        share = s.execute(select(BbjAwardShare).where(
            BbjAwardShare.award_id == view.award_id, BbjAwardShare.seat == seat)) \
            .scalar_one_or_none()
        if share is None:
            raise BbjCaseError(f"case {case_id}: seat {seat} has no share in the fund's "
                               "award")
        paid = (f"award {view.award_id}: gross {format_cents(share.gross_cents)}, tax "
                f"{format_cents(share.tax_cents)}, net "
                f"{format_cents(share.gross_cents - share.tax_cents)}")
        text = paid + (f"; {text}" if text else "")
    elif state == "voided":
        if not text:
            raise BbjCaseError(f"case {case_id}: a void needs the reason")
        if view.award_id is not None:  # approved, nothing paid yet: the fund gets it back
            main, reserve = void_award_in(s, row.fund_id, view.award_id,
                                          by=Who.of(emp).recorded(), reason=text,
                                          now=now)
            text += (f"; award {view.award_id} undone: main {format_cents(main)}, reserve "
                     f"{format_cents(reserve)} back in the fund")
    s.add(BbjCaseEvent(case_id=case_id, state=state, seat=at_seat, detail=text,
                       employee_id=emp.id, created_at=now))


def _not_awarded_yet(s: Session, row: BbjCase) -> None:
    """Refuse a second award for one hit (fund, hit time, table), by a case or directly."""
    same_hit = s.execute(select(BbjAward.id, BbjAward.case_id).where(
        BbjAward.fund_id == row.fund_id, BbjAward.hit_at == row.hit_at,
        BbjAward.table_name == row.table_name)).first()
    if same_hit is not None:
        by_case = f" in case {same_hit.case_id}" if same_hit.case_id is not None else ""
        raise BbjCaseError(f"case {row.id}: the hit at table {row.table_name} is already "
                           f"awarded (award {same_hit.id}{by_case})")


def _award(s: Session, row: BbjCase, view: CaseView, emp: Employee, now: datetime,
           decided: tuple[Funds, Decision], cease: bool,
           notice: Notice | None = None, hit_day: date | None = None) -> str:
    """Write the fund's award for an approved case in the caller's transaction (the claim
    decided again on the fund for the hit); the approval row's detail (award id, amount, the
    fund after).  ``notice``: the cease-once-hit notice that made this approval cease the fund
    (None: ``cease`` as asked)."""
    funds, decision = decided
    if [sh.seat for sh in decision.shares] != list(view.share_seats):
        raise BbjCaseError(f"case {row.id}: the claim decided again does not pay the same "
                           "seats (other settings than when the case was opened?)")
    award_id = record_award_in(s, row.fund_id, decision, hit_at=row.hit_at,
                               table=row.table_name, by=Who.of(emp).recorded(), now=now,
                               cease=cease, case_id=row.id, hit_day=hit_day)
    ceased = "; the fund ceases with this hit (reserve added to main)" if cease else ""
    if notice is not None:
        ceased = (f"; the fund ceases with this hit ({notice.words}; reserve added to "
                  "main)")
    return (f"award {award_id}{ceased}: {format_cents(decision.award_cents)} on main "
            f"{format_cents(funds.main_cents)}; main after "
            f"{format_cents(decision.main_after_cents)}, reserve after "
            f"{format_cents(decision.reserve_after_cents)}")


def void(engine: Engine, case_id: int, reason: str, swipe: str, *,
         clock: Callable[[], datetime] = _utcnow) -> CaseView:
    """Void the case with the reason (kept, with who decided)."""
    return advance(engine, case_id, "voided", swipe, detail=reason, clock=clock)


def record_count(engine: Engine, fund_id: str, swipe: str, *, business_date: date, table: str,
                 drop_box: str, opened_at: datetime, closed_at: datetime, dealer: str,
                 pieces: Mapping[int, int], settings: FundSettings | None = None,
                 rake_box: str = "", rake_cents: int = 0,
                 clock: Callable[[], datetime] = _utcnow) -> int:
    """The console's daily drop-box count: ``core.pokerroom.fund.record_count_in`` with a
    supervisor's swipe, written in one transaction with its swipe-log row (action
    ``bbj_count``; ``recorded_by`` = the employee's number and name); the count's id."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return record_count_in(s, fund_id, business_date=business_date, table=table,
                               drop_box=drop_box, opened_at=opened_at, closed_at=closed_at,
                               dealer=dealer, pieces=pieces, by=Who.of(emp).recorded(),
                               settings=settings, rake_box=rake_box, rake_cents=rake_cents,
                               now=now)

    count_id = _swiped(engine, swipe, now, write, COUNT_ACTION)
    log.info("bbj fund %s: %s table %s drop box %s counted", fund_id, business_date, table,
             drop_box)
    return count_id


def post_day(engine: Engine, fund_id: str, business_date: date, swipe: str, *,
             settings: FundSettings | None = None,
             clock: Callable[[], datetime] = _utcnow) -> Posting:
    """Post the day (``core.pokerroom.fund.post_day_in``) with a supervisor's swipe, in one
    transaction with its swipe-log row; the posting (distribution and updated amounts)."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> Posting:
        return post_day_in(s, fund_id, business_date, by=Who.of(emp).recorded(),
                           settings=settings, now=now)

    posting = _swiped(engine, swipe, now, write, COUNT_ACTION)
    log.info("bbj fund %s: %s posted", fund_id, business_date)
    return posting


@dataclass(frozen=True)
class SlipPrint:
    seat: int
    reprint: bool
    printer: str
    ok: bool
    error: str
    at: datetime


def record_slip_print(engine: Engine, case_id: int, seat: int, *, reprint: bool, printer: str,
                      ok: bool, error: str = "", now: datetime | None = None) -> None:
    """Keep one attempt to print a share slip (the printer thread reports it)."""
    with Session(engine) as s, s.begin():
        s.add(BbjSlipPrint(case_id=case_id, seat=seat, reprint=reprint, printer=printer[:200],
                           ok=ok, error=error, created_at=(now or _utcnow()).astimezone(UTC)))


def slip_prints(engine: Engine, case_id: int) -> list[SlipPrint]:
    """Every share slip print attempt of the case, oldest first."""
    with Session(engine) as s:
        rows = s.execute(select(BbjSlipPrint).where(BbjSlipPrint.case_id == case_id)
                         .order_by(BbjSlipPrint.id)).scalars().all()
        return [SlipPrint(r.seat, r.reprint, r.printer, r.ok, r.error, r.created_at)
                for r in rows]


def record_tournament_fee(engine: Engine, swipe: str, *, business_date: date, tournament: str,
                          fee_cents: int, reason: str =
                          "",
                          clock: Callable[[], datetime] = _utcnow) -> int:
    """A poker tournament's fees for the day
    (``core.pokerroom.fund.record_tournament_fee_in``) with a
    supervisor's swipe, in one transaction with its swipe-log row (action ``bbj_count``)."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return record_tournament_fee_in(s, business_date=business_date, tournament=tournament,
                                        fee_cents=fee_cents, reason=reason,
                                        by=Who.of(emp).recorded(), now=now)

    row_id = _swiped(engine, swipe, now, write, COUNT_ACTION)
    log.info("poker tournament %s on %s: fee %s recorded", tournament, business_date,
             format_cents(fee_cents))
    return row_id


def give_notice(engine: Engine, fund_id: str, swipe: str, kind: str, *, notice_on: date,
                reason: str, effective_on: date | None = None,
                players_told_on: date | None = None, to_fund_id: str | None = None,
                clock: Callable[[], datetime] = _utcnow) -> int:
    """A notice that the fund will cease (TGD-1540 part 1; ``core.pokerroom.fund.give_notice_in``)
    with an EXECUTIVE's swipe, in one transaction with its swipe-log row (action
    ``bbj_closure``); the notice id.  From a ``cease_once_hit`` notice on, the fund's next
    approval ceases it (:func:`advance`)."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return give_notice_in(s, fund_id, kind, notice_on=notice_on, effective_on=effective_on,
                              players_told_on=players_told_on, to_fund_id=to_fund_id,
                              reason=reason, by=Who.of(emp).recorded(), now=now)

    nid = _swiped(engine, swipe, now, write, CLOSURE_ACTION, EXECUTIVE,
                  "a notice of cessation of the jackpot")
    log.info("bbj fund %s: notice %d (%s) recorded", fund_id, nid, kind)
    return nid


def withdraw_notice(engine: Engine, fund_id: str, notice_id: int, swipe: str, *, reason: str,
                    clock: Callable[[], datetime] = _utcnow) -> int:
    """Withdraw a notice (a ``withdrawn`` row naming it) with an EXECUTIVE's swipe."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return withdraw_notice_in(s, fund_id, notice_id, by=Who.of(emp).recorded(),
                                  reason=reason, now=now)

    rid = _swiped(engine, swipe, now, write, CLOSURE_ACTION, EXECUTIVE,
                  "withdrawing a notice of cessation")
    log.info("bbj fund %s: notice %d withdrawn", fund_id, notice_id)
    return rid


def record_players_told(engine: Engine, fund_id: str, notice_id: int, swipe: str, *,
                        told_on: date, clock: Callable[[], datetime] = _utcnow) -> int:
    """The day the players were told of a notice, with a supervisor's swipe."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return players_told_in(s, fund_id, notice_id, told_on=told_on,
                               by=Who.of(emp).recorded(), now=now)

    rid = _swiped(engine, swipe, now, write, CLOSURE_ACTION)
    log.info("bbj fund %s: players told of notice %d on %s", fund_id, notice_id, told_on)
    return rid


def forfeit_on_closure(engine: Engine, fund_id: str, swipe: str, *, closed_on: date,
                       reason: str, clock: Callable[[], datetime] = _utcnow) -> Forfeiture:
    """The poker room closed for good: the fund's whole balance forfeited in favour of PAGCOR
    (``core.pokerroom.fund.forfeit_on_closure_in``) with an EXECUTIVE's swipe (it gives away the
    whole fund), in one transaction with its swipe-log row (action ``bbj_closure``).  A refused
    card writes only its swipe-log row; a refused forfeiture nothing else."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> Forfeiture:
        return forfeit_on_closure_in(s, fund_id, closed_on=closed_on, reason=reason,
                                     by=Who.of(emp).recorded(), now=now)

    done = _swiped(engine, swipe, now, write, CLOSURE_ACTION, EXECUTIVE,
                   "forfeiting the jackpot fund on closure")
    log.info("bbj fund %s: forfeited to PAGCOR on closure (%s)", fund_id,
             format_cents(done.total_cents))
    return done


__all__ = ["add_business_days", "advance", "ATTACHMENT_STATES", "BbjCaseError", "CaseView",
           "ClaimEntry", "Deadline", "deadlines", "decide_entry", "entry_from_json", "Event",
           "forfeit_on_closure", "get_case", "give_notice", "late_days", "late_text",
           "list_cases", "next_deadline", "open_case", "overdue", "post_day", "reasons_text",
           "record_count", "record_players_told", "record_slip_print", "record_tournament_fee",
           "rule_results", "slip_prints", "void", "withdraw_notice"]
