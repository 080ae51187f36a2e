"""A Bad Beat Jackpot case as it is read (RULES.md section 6, "Deadlines and reports";
docs/bbj.md "Cases"): its append-only state rows (:class:`Event`), where it stands
(:class:`CaseView`: the state, the seats paid, the next states allowed, open or closed) and its
deadlines.

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
``voided`` ends a case from any state before the first share is paid.  A voided case needs no
attachments (no award is paid on it, so nothing supports one; it has no deadline and is not
open), yet they can still be filed for the record once its request was filed.  A claim that does
not qualify can only be voided.

Deadlines (:func:`deadlines`), from the hit time: TGD-1500 within 24 hours of the hit, and
with it the updated TGD-1494/1623 up to the hit's day (``daily_report``, met by the same
``request_filed`` step); attachments within 7 calendar days of the hit; approval within 3
business days of filing; payout (every share) within 3 business days of approval;
acknowledgment within 24 hours after the payout.  Business days skip Saturdays, Sundays and
the ``holidays`` given, counted in the casino's time zone, keeping the time of day.
:func:`overdue` lists every deadline passed and not met.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import BbjAward, BbjCase, BbjCaseEvent, Employee
from core.people.who import Who
from core.pokerroom import business_days
from core.pokerroom.cases.claim import BbjCaseError

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


def case_view(s: Session, row: BbjCase) -> CaseView:
    evs = s.execute(select(BbjCaseEvent, Employee).join(
        Employee, Employee.id == BbjCaseEvent.employee_id).where(
        BbjCaseEvent.case_id == row.id).order_by(BbjCaseEvent.id)).all()
    events = tuple(Event(e.state, e.seat, e.detail, Who.of(emp), e.created_at)
                   for e, emp in evs)
    return CaseView(row.id, row.fund_id, row.table_name, row.hit_at, row.qualifies,
                    dict(row.claim), dict(row.decision), events, award_id_of(s, row))


def award_id_of(s: Session, row: BbjCase) -> int | None:
    """The fund's award approved in this case (``bbj_awards.case_id``)."""
    return s.execute(select(BbjAward.id).where(BbjAward.case_id == row.id)).scalar()


def get_case(engine: Engine, case_id: int) -> CaseView:
    with Session(engine) as s:
        row = s.get(BbjCase, case_id)
        if row is None:
            raise BbjCaseError(f"case {case_id}: no such case")
        return case_view(s, row)


def list_cases(engine: Engine) -> list[CaseView]:
    """Every case, newest first."""
    with Session(engine) as s:
        rows = s.execute(select(BbjCase).order_by(BbjCase.id.desc())).scalars().all()
        return [case_view(s, r) for r in rows]


def overdue(engine: Engine, now: datetime, tz: ZoneInfo,
            holidays: Iterable[date] = ()) -> list[tuple[CaseView, Deadline]]:
    """Every deadline passed at ``now``, not met and not recorded missed, oldest due first."""
    out = [(c, d) for c in list_cases(engine) for d in deadlines(c, tz, holidays)
           if d.pending and d.due < now]
    return sorted(out, key=lambda cd: cd[1].due)
