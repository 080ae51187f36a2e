"""The poker room's regulatory deadlines at a moment (RULES.md 6 "Deadlines and reports";
docs/bbj.md "Room deadlines"), read from the ledger in one snapshot: each kind of
``core.pokerroom.calendar`` for every period that has something to report, with its due day and
the filings recorded for it (:func:`room_deadlines`, :func:`overdue`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, and_, select
from sqlalchemy.orm import Session

from core.kernel.money import format_cents
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCaseEvent,
    BbjCessation,
    BbjDropCount,
    BbjFiling,
    BbjFund,
    BbjPosting,
    Employee,
    PokerTournamentFee,
)
from core.people.who import Who
from core.pokerroom.calendar import (
    KINDS,
    NOTICE_KINDS,
    BbjFilingError,
    end_of_day,
    local_day,
    next_month,
    period_and_due,
    quarter_end,
    quarter_start,
    quarter_text,
    tgd108_dues,
)
from core.pokerroom.calendar_settings import CalendarSettings
from core.pokerroom.fund import Notice, active_notice_in, notice_at_cessation


@dataclass(frozen=True)
class Filing:
    """One ``bbj_filings`` row, with who recorded it."""

    filing_id: int
    kind: str
    fund_id: str | None
    period_start: date
    period_end: date
    due_at: datetime
    filed_at: datetime
    reference: str
    detail: str
    late: bool
    corrects_id: int | None
    by: Who
    created_at: datetime

    @property
    def who(self) -> str:
        return self.by.recorded()

    def to_json(self) -> dict[str, object]:
        return {"id": self.filing_id, "filed_at": self.filed_at.isoformat(),
                "reference": self.reference, "detail": self.detail, "late": self.late,
                "late_days": late_days(self.due_at, self.filed_at),
                "corrects": self.corrects_id, "who": self.who,
                "recorded_at": self.created_at.isoformat()}


def late_days(due: datetime, at: datetime) -> int:
    """Whole days (started) from ``due`` to ``at``; 0 when not after it."""
    if at < due:
        return 0
    return max(1, -(-(at - due) // timedelta(days=1)))


@dataclass(frozen=True)
class RoomDeadline:
    """One deadline of the room at ``now`` (:func:`room_deadlines`)."""

    kind: str
    fund_id: str | None
    period_start: date
    period_end: date
    due_on: date  # the casino-local due day
    due: datetime  # UTC: the end of the due day; filed at or after it is late
    basis: str  # what there is to report, in words
    filings: tuple[Filing, ...]  # oldest first; the last one counts (a correction)
    now: datetime
    # where two sources give a due day (TGD-108: the form's and the guideline's), each with
    # why; ``due_on`` is the earlier
    dues: tuple[tuple[str, date], ...] = ()

    @property
    def what(self) -> str:
        return KINDS[self.kind]

    @property
    def period(self) -> str:
        if self.kind == "bir_remittance":
            return f"{self.period_start:%Y-%m}"
        if self.kind in ("tgd108", "bank_statement"):
            return quarter_text(self.period_start)
        return f"ceases {self.period_start.isoformat()}" if self.kind in NOTICE_KINDS \
            else f"ceased {self.period_start.isoformat()}"

    @property
    def filing(self) -> Filing | None:
        return self.filings[-1] if self.filings else None

    @property
    def met_at(self) -> datetime | None:
        return self.filing.filed_at if self.filing else None

    @property
    def reference(self) -> str:
        return self.filing.reference if self.filing else ""

    @property
    def who(self) -> str:
        return self.filing.who if self.filing else ""

    @property
    def overdue(self) -> bool:
        """Not filed and past due at ``now``."""
        return self.filing is None and self.now >= self.due

    @property
    def late(self) -> bool:
        """Filed late, or not filed and past due."""
        return self.filing.late if self.filing else self.overdue

    @property
    def late_days(self) -> int:
        return late_days(self.due, self.met_at or self.now)

    def days_left(self, tz: ZoneInfo) -> int:
        """Days from the casino's date at ``now`` to the due day (0: due today)."""
        return (self.due_on - local_day(self.now, tz)).days

    def status(self, tz: ZoneInfo) -> str:
        """``filed 2026-12-11 (LATE by 1 day)``, ``LATE by 3 days``, ``due today``,
        ``5 days left``."""
        f = self.filing
        if f is not None:
            when = local_day(f.filed_at, tz).isoformat()
            late = f" (LATE by {days_text(self.late_days)})" if f.late else ""
            return f"filed {when}{late}"
        if self.overdue:
            return f"LATE by {days_text(self.late_days)}"
        left = self.days_left(tz)
        return "due today" if left == 0 else f"{days_text(left)} left"

    def to_json(self, tz: ZoneInfo) -> dict[str, object]:
        f = self.filing
        return {"kind": self.kind, "what": self.what, "fund": self.fund_id,
                "period": self.period, "period_start": self.period_start.isoformat(),
                "period_end": self.period_end.isoformat(), "due_on": self.due_on.isoformat(),
                "due": self.due.isoformat(), "basis": self.basis,
                "status": self.status(tz), "late": self.late, "late_days": self.late_days,
                "days_left": None if f else self.days_left(tz),
                "met_at": f.filed_at.isoformat() if f else None,
                "reference": self.reference, "who": self.who,
                "dues": [{"due_on": day.isoformat(), "by": why} for why, day in self.dues],
                "filings": [x.to_json() for x in self.filings]}


def days_text(n: int) -> str:
    """``1 day``, ``3 days``."""
    return f"{n} day{'s' if n != 1 else ''}"


@dataclass(frozen=True)
class CessationNotice:
    """The hook for planned cessations (the TGD-1540 notice data): a fund that will cease on
    ``effective_on`` (its local date), optionally by transfer to ``to_fund_id``.  Each gives
    the notice to players (7 calendar days before) and TGD-1540 part 1 (14 business days
    before)."""

    fund_id: str
    effective_on: date
    to_fund_id: str | None = None


def _reading(engine: Engine) -> Session:
    """One read-only snapshot (PostgreSQL REPEATABLE READ; SQLite's transaction is one)."""
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="REPEATABLE READ",
                                          postgresql_readonly=True)
    return Session(engine)


def filing_key(kind: str, fund_id: str | None, period_start: date) -> tuple[str, str | None,
                                                                      date | None]:
    """A filing's period: part 2 once per fund (a fund ceases once); part 1 and the players'
    notice per planned effective date (a withdrawn notice's filing does not answer the next
    notice); the others per period."""
    return (kind, fund_id, None if kind == "tgd1540_part2" else period_start)


CESSATION_NOTICE = {"transfer": "transfer", "after_hit": "cease_once_hit",
                    "forfeiture": "closure"}  # bbj_cessations.kind -> the notice's kind


def _held_at_cessation(s: Session, c: BbjCessation) -> Notice | None:
    """The notice that held when the fund ceased (TGD-1540 part 1's), if any."""
    kind = CESSATION_NOTICE.get(c.kind)
    return notice_at_cessation(s, c.fund_id, kind, c.created_at) if kind else None


def planned_days(s: Session, fund_id: str, c: BbjCessation | None,
                  tz: ZoneInfo) -> set[date]:
    """The effective dates a fund's part 1 and notice to players can be filed for: the notice
    that holds (a fund still open) or held when it ceased, and the day a transfer was
    recorded."""
    days: set[date] = set()
    notice = active_notice_in(s, fund_id) if c is None else _held_at_cessation(s, c)
    if notice is not None and notice.effective_on is not None:
        days.add(notice.effective_on)
    if c is not None and c.kind == "transfer":
        days.add(local_day(c.created_at, tz))
    return days


def _filings(s: Session) -> dict[tuple[str, str | None, date | None], list[Filing]]:
    rows = s.execute(select(BbjFiling, Employee).join(
        Employee, Employee.id == BbjFiling.employee_id).order_by(BbjFiling.id)).all()
    out: dict[tuple[str, str | None, date | None], list[Filing]] = {}
    for f, emp in rows:
        out.setdefault(filing_key(f.kind, f.fund_id, f.period_start), []).append(Filing(
            f.id, f.kind, f.fund_id, f.period_start, f.period_end, f.due_at, f.filed_at,
            f.reference, f.detail, f.late, f.corrects_id, Who.of(emp), f.created_at))
    return out


def _paid(s: Session) -> list[tuple[datetime, int]]:
    """Every share paid: when (the ``share_paid`` row) and the tax withheld from it."""
    return [(at, int(cents)) for at, cents in s.execute(
        select(BbjCaseEvent.created_at, BbjAwardShare.tax_cents).join(
            BbjAward, BbjAward.case_id == BbjCaseEvent.case_id).join(
            BbjAwardShare, and_(BbjAwardShare.award_id == BbjAward.id,
                                BbjAwardShare.seat == BbjCaseEvent.seat)).where(
            BbjCaseEvent.state == "share_paid")).all()]


def withheld_months(s: Session, tz: ZoneInfo) -> set[date]:
    """The first day of every local month in which final tax was withheld on a share."""
    return {local_day(at, tz).replace(day=1) for at, cents in _paid(s) if cents > 0}


def _quarters(first: date, last: date) -> list[date]:
    out, q = [], quarter_start(first)
    while q <= last:
        out.append(q)
        q = next_month(quarter_end(q))
    return out


def _counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def room_deadlines(engine: Engine, now: datetime, tz: ZoneInfo,
                   holidays: Iterable[date] = (), settings: CalendarSettings | None = None,
                   notices: Iterable[CessationNotice] = ()) -> list[RoomDeadline]:
    """Every regulatory deadline of the room at ``now`` (the kinds: ``core.pokerroom.calendar``),
    oldest due first; with each its filings.  A filing of a period the ledger gives nothing for
    is listed too."""
    cfg = settings or CalendarSettings()
    hol = tuple(holidays)
    now = now.astimezone(UTC)
    today = local_day(now, tz)
    found: dict[tuple[str, str | None, date | None], tuple[str, str | None, date, str]] = {}

    def add(kind: str, fund_id: str | None, start: date, basis: str) -> None:
        found[filing_key(kind, fund_id, start)] = (kind, fund_id, start, basis)

    with _reading(engine) as s:
        filings = _filings(s)
        # BIR: the tax withheld on the shares paid, by the local month of the payment
        paid = _paid(s)
        tax: dict[date, list[int]] = {}  # the months tax was withheld in
        for at, cents in paid:
            if cents > 0:
                acc = tax.setdefault(local_day(at, tz).replace(day=1), [0, 0])
                acc[0] += int(cents)
                acc[1] += 1
        for month, (cents, n) in tax.items():
            add("bir_remittance", None, month, f"final tax withheld {format_cents(cents)} on "
                f"{_counted(n, 'share', 'shares')} paid")
        # TGD-108: the quarters with anything it reports
        activity: dict[date, dict[str, int]] = {}

        def note(day: date, what: str) -> None:
            q = activity.setdefault(quarter_start(day), {})
            q[what] = q.get(what, 0) + 1

        for (day,) in s.execute(select(BbjDropCount.business_date).distinct()):
            note(day, "count")
        for (day,) in s.execute(select(BbjPosting.business_date).distinct()):
            note(day, "posting")
        for (day,) in s.execute(select(PokerTournamentFee.business_date)):
            note(day, "fee")
        for (at,) in s.execute(select(BbjAward.hit_at)):
            note(local_day(at, tz), "hit")
        for at, _cents in paid:
            note(local_day(at, tz), "share")
        words = (("count", "day counted", "days counted"), ("fee", "tournament fee",
                                                             "tournament fees"),
                 ("hit", "jackpot hit", "jackpot hits"), ("share", "share paid",
                                                          "shares paid"))
        for q, seen in activity.items():
            if q > today:
                continue
            basis = ", ".join(_counted(seen[k], one, many) for k, one, many in words if k in seen)
            add("tgd108", None, q, basis or "postings")
        # the funds: the bank statement of every quarter each was open in; their cessations
        ceased_notices: list[CessationNotice] = []  # the notice that held when each ceased
        ceased = {c.fund_id: c for c in s.execute(select(BbjCessation)).scalars()}
        funds = list(s.execute(select(BbjFund).order_by(BbjFund.id)).scalars())
        for fund in funds:
            c = ceased.get(fund.id)
            last = local_day(c.created_at, tz) if c is not None else today
            for q in _quarters(local_day(fund.created_at, tz), min(last, today)):
                add("bank_statement", fund.id, q, f"fund {fund.name} open in "
                    f"{quarter_text(q)}")
            if c is not None:
                day = local_day(c.created_at, tz)
                how = (f"ceased by transfer to fund {c.to_fund_id}" if c.kind == "transfer"
                       else "forfeited to PAGCOR on closure" if c.kind == "forfeiture"
                       else "ceased once hit")
                held = _held_at_cessation(s, c)
                if held is not None and held.effective_on is not None:
                    ceased_notices.append(CessationNotice(fund.id, held.effective_on,
                                                          held.to_fund_id))
                add("tgd1540_part2", fund.id, day, f"fund {fund.name} {how}")
                if c.kind == "transfer" and not (held and held.effective_on):
                    # no planned date known: the effective date is the day it was recorded
                    add("players_notice", fund.id, day, f"fund {fund.name} {how}")
        known = {f.id for f in funds}
        # the ledger's own notices (``bbj_cessation_notices``): a planned cessation of a fund
        # still open, not withdrawn, with its effective date
        recorded = [CessationNotice(held.fund_id, held.effective_on, held.to_fund_id)
                    for fund_id in sorted(known - set(ceased))
                    if (held := active_notice_in(s, fund_id)) is not None
                    and held.effective_on is not None]
    for notice in (*recorded, *ceased_notices, *notices):
        if notice.fund_id not in known:
            raise BbjFilingError(f"cessation notice: fund {notice.fund_id!r} does not exist")
        to = f" by transfer to fund {notice.to_fund_id}" if notice.to_fund_id else ""
        basis = f"fund {notice.fund_id} to cease on {notice.effective_on}{to}"
        add("players_notice", notice.fund_id, notice.effective_on, basis)
        add("tgd1540_part1", notice.fund_id, notice.effective_on, basis)
    for key, rows in filings.items():  # filed for a period the ledger gives nothing for
        if key not in found:
            f = rows[-1]
            found[key] = (f.kind, f.fund_id, f.period_start, "filed")
    out = []
    for key, (kind, fund_id, start, basis) in found.items():
        end, due_on = period_and_due(kind, start, cfg, hol, withheld=tax)
        rows = filings.get(key, [])
        dues = tuple(tgd108_dues(start, cfg, tax)) if kind == "tgd108" else ()
        out.append(RoomDeadline(kind, fund_id, start, end, due_on, end_of_day(due_on, tz),
                                basis, tuple(rows), now, dues))
    return sorted(out, key=lambda d: (d.due, list(KINDS).index(d.kind), d.fund_id or ""))


def overdue(engine: Engine, now: datetime, tz: ZoneInfo, holidays: Iterable[date] = (),
            settings: CalendarSettings | None = None,
            notices: Iterable[CessationNotice] = ()) -> list[RoomDeadline]:
    """The room's deadlines past due at ``now`` and not filed, oldest first."""
    return [d for d in room_deadlines(engine, now, tz, holidays, settings, notices)
            if d.overdue]
