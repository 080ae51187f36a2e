"""The poker room's regulatory calendar: the deadlines the PAGCOR guidelines name beyond a
case's own (RULES.md 6 "Deadlines and reports"; docs/bbj.md "Room deadlines"), computed from the
ledger, and their filings (``bbj_filings``, append-only and chained).

Kinds (:data:`KINDS`), each only for a period that has something to report:

- ``bir_remittance``: the final tax withheld on jackpot shares, remitted to the BIR by
  ``bir_remittance_day`` (default the 10th) of the month after the month it was withheld; a
  month in which a share with tax was paid (the ``share_paid`` row's local date; tax is
  withheld when the share is paid).
- ``tgd108``: the TGD-108 quarterly tax compliance report, by the EARLIER of the form's own
  date ("not later than the end of month following the close of the quarter reported") and,
  when final tax was withheld in the quarter, the guideline's (IV.K.ii: "within seven (7) days
  after BIR's prescribed filing/ remittance schedule of final income taxes withheld"): 7 days
  after the BIR due day of the first month of the quarter with tax withheld
  (:func:`tgd108_dues`; both are shown); a quarter with a drop count, a posting, a tournament
  fee, a hit or a share paid.
- ``bank_statement``: the quarterly bank statement of a fund's account, due on
  ``bank_statement_due`` (default the guideline's "2nd Monday of month 1": "January to March --
  for submission on 2nd Monday of April, and so on"); each quarter the fund was open in (from
  its creation to its cessation, up to now).
- ``tgd1540_part2``: TGD-1540 part 2, within 2 business days after a cessation
  (``bbj_cessations``), skipping weekends and the floor file's public holidays.
- ``players_notice``: players told 7 calendar days before a cessation's effective date.  From the
  ledger only for a cessation by transfer (its effective date is the day it was recorded); a
  cessation once hit has no date known ahead.  Planned cessations are the ledger's notices
  (``bbj_cessation_notices``: the notice that holds on a fund still open, with its effective
  date) and any given to ``room_deadlines(..., notices=)`` (:class:`CessationNotice`); each also
  gives ``tgd1540_part1`` (the notice to PAGCOR, 14 business days before).  The notice row says
  the operator decided; the deadline is met by the FILING recorded here (PAGCOR's receiving
  number, the day the players were told), as for every other kind.

Every deadline is due at the END of its due day in the casino's time zone (``due``: the local
midnight after it, in UTC); a filing at or after that moment is late.  A due day that falls on
a weekend or holiday is not moved (our reading: the earlier date is the safe one).

A filing (:func:`record_filing`) needs a supervisor's swipe and is written in one transaction
with its swipe-log row.  A second filing of the same kind and period (a cessation's kinds: of
the same fund) is refused naming the first; a CORRECTION names the filing it corrects
(``corrects=``) and its reason (``detail``): both rows stay, the correction is the one that
counts, and its own filing time decides whether it was late.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, and_, select
from sqlalchemy.orm import Session

from core.kernel.money import format_cents
from core.kernel.text import printable
from core.ledger.db import lock_record
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
from core.people.auth import gate_for
from core.people.who import Who
from core.pokerroom.business_days import add_business_days
from core.pokerroom.calendar_settings import CalendarSettings
from core.pokerroom.fund import (
    PART1_BUSINESS_DAYS,
    PART2_BUSINESS_DAYS,
    PLAYERS_DAYS,
    Notice,
    active_notice_in,
    notice_at_cessation,
)

log = logging.getLogger("podium.bbj_calendar")

KINDS: dict[str, str] = {
    "bir_remittance": "BIR remittance",
    "tgd108": "TGD-108 quarterly tax",
    "bank_statement": "Bank statement",
    "tgd1540_part1": "TGD-1540 part 1",
    "tgd1540_part2": "TGD-1540 part 2",
    "players_notice": "Notice to players",
}
"""Each kind's name on the screen."""
KIND_TEXT: dict[str, str] = {
    "bir_remittance": "BIR remittance of the final tax withheld on jackpot shares",
    "tgd108": "TGD-108 quarterly tax compliance report",
    "bank_statement": "quarterly bank statement of the fund's account",
    "tgd1540_part1": "TGD-1540 part 1 (notice of the cessation, 14 business days before)",
    "tgd1540_part2": "TGD-1540 part 2 (within 2 business days after the cessation)",
    "players_notice": "notice to players (7 days before the cessation)",
}
FUND_KINDS = frozenset({"bank_statement", "tgd1540_part1", "tgd1540_part2", "players_notice"})
CESSATION_KINDS = frozenset({"tgd1540_part1", "tgd1540_part2", "players_notice"})
"""Once per fund (a fund ceases once): matched by kind and fund, whatever the period."""
NOTICE_KINDS = frozenset({"tgd1540_part1", "players_notice"})  # filed BEFORE the period
REFERENCE_OPTIONAL = frozenset({"players_notice"})  # a notice posted in the room has no number
SWIPE_ACTION = "bbj_filing"
ROLE = "supervisor"
REFERENCE_MAX = 200
DETAIL_MAX = 2000


class BbjFilingError(ValueError):
    """A filing refused; the message names the filing and the problem."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


# --- dates --------------------------------------------------------------------------------


def month_end(day: date) -> date:
    """The last day of ``day``'s month."""
    first_next = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return first_next - timedelta(days=1)


def quarter_start(day: date) -> date:
    return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)


def quarter_end(day: date) -> date:
    start = quarter_start(day)
    return month_end(date(start.year, start.month + 2, 1))


def next_month(day: date) -> date:
    """The first day of the month after ``day``'s."""
    return month_end(day) + timedelta(days=1)


def quarter_text(start: date) -> str:
    return f"Q{(start.month - 1) // 3 + 1} {start.year}"


def end_of_day(day: date, tz: ZoneInfo) -> datetime:
    """The casino's midnight after ``day``, in UTC: the moment ``day`` ends."""
    return datetime.combine(day + timedelta(days=1), time(), tz).astimezone(UTC)


def gaming_day_of(at: datetime, tz: ZoneInfo, starts: time) -> date:
    """The casino's gaming day of ``at``: the date of the gaming day that began at ``starts``
    local time at or before it (``[casino] gaming_day_starts``; 06:00: 03:00 on the 5th is
    gaming day the 4th).  A person sees and enters this day, never a UTC date."""
    local = at.astimezone(tz)
    day = local.date()
    begins = datetime.combine(day, starts).replace(tzinfo=tz, fold=0)
    return day if local >= begins else day - timedelta(days=1)


def _local_day(at: datetime, tz: ZoneInfo) -> date:
    return at.astimezone(tz).date()


TGD108_DAYS_AFTER_BIR = 7
"""The guideline IV.K.ii: TGD-108 "within seven (7) days after BIR's prescribed filing/
remittance schedule of final income taxes withheld with attached BIR Form 0619-F"."""
TGD108_FORM_DUE = "TGD-108: the end of the month after the quarter"
TGD108_GUIDELINE_DUE = "guideline IV.K.ii: 7 days after the BIR remittance"


def bir_due(month: date, settings: CalendarSettings) -> date:
    """The BIR's due day for the final tax withheld in ``month``'s month: ``bir_remittance_day``
    of the next month (the guideline IV.H and BIR Form 0619-F: the 10th)."""
    return next_month(month).replace(day=settings.bir_remittance_day)


def tgd108_dues(period_start: date, settings: CalendarSettings,
                withheld: Iterable[date] = ()) -> list[tuple[str, date]]:
    """TGD-108's two due days for the quarter starting ``period_start`` (docs/bbj.md "Room
    deadlines"): the form's own (the end of the month after the quarter) and, when final tax
    was withheld in the quarter (``withheld``: days in the months it was withheld), the
    guideline's: 7 days after the BIR's due day of the first such month.  The deadline is the
    earlier."""
    end = quarter_end(period_start)
    out = [(TGD108_FORM_DUE, month_end(end + timedelta(days=1)))]
    months = sorted({d.replace(day=1) for d in withheld if period_start <= d <= end})
    if months:
        out.append((TGD108_GUIDELINE_DUE, bir_due(months[0], settings)
                    + timedelta(days=TGD108_DAYS_AFTER_BIR)))
    return out


def period_and_due(kind: str, period_start: date, settings: CalendarSettings,
                   holidays: Iterable[date] = (),
                   withheld: Iterable[date] = ()) -> tuple[date, date]:
    """The period's last day and the due day of ``kind`` for the period starting
    ``period_start`` (a month's first day, a quarter's first day, a cessation's date);
    BbjFilingError when the start does not begin such a period.  ``withheld``: the days final
    tax was withheld on jackpot shares (TGD-108's guideline due day, :func:`tgd108_dues`)."""
    if kind not in KINDS:
        raise BbjFilingError(f"{kind!r}: not a filing ({', '.join(KINDS)})")
    if kind == "bir_remittance":
        if period_start.day != 1:
            raise BbjFilingError(f"BIR remittance: the period {period_start} must be the "
                                 "first day of a month")
        return month_end(period_start), bir_due(period_start, settings)
    if kind in ("tgd108", "bank_statement"):
        if period_start != quarter_start(period_start) or period_start.day != 1:
            raise BbjFilingError(f"{KINDS[kind]}: the period {period_start} must be the first "
                                 "day of a quarter (1 January, 1 April, 1 July, 1 October)")
        end = quarter_end(period_start)
        if kind == "bank_statement":
            return end, settings.bank_statement_due.due(end)
        return end, min(day for _why, day in tgd108_dues(period_start, settings, withheld))
    if kind == "tgd1540_part2":
        return period_start, add_business_days(period_start, PART2_BUSINESS_DAYS, holidays)
    if kind == "tgd1540_part1":
        return period_start, add_business_days(period_start, -PART1_BUSINESS_DAYS, holidays)
    return period_start, period_start - timedelta(days=PLAYERS_DAYS)


# --- what the screen and the report show ---------------------------------------------------


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
        return (self.due_on - _local_day(self.now, tz)).days

    def status(self, tz: ZoneInfo) -> str:
        """``filed 2026-12-11 (LATE by 1 day)``, ``LATE by 3 days``, ``due today``,
        ``5 days left``."""
        f = self.filing
        if f is not None:
            when = _local_day(f.filed_at, tz).isoformat()
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


# --- reading --------------------------------------------------------------------------------


def _reading(engine: Engine) -> Session:
    """One read-only snapshot (PostgreSQL REPEATABLE READ; SQLite's transaction is one)."""
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="REPEATABLE READ",
                                          postgresql_readonly=True)
    return Session(engine)


def _key(kind: str, fund_id: str | None, period_start: date) -> tuple[str, str | None,
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


def _planned_days(s: Session, fund_id: str, c: BbjCessation | None,
                  tz: ZoneInfo) -> set[date]:
    """The effective dates a fund's part 1 and notice to players can be filed for: the notice
    that holds (a fund still open) or held when it ceased, and the day a transfer was
    recorded."""
    days: set[date] = set()
    notice = active_notice_in(s, fund_id) if c is None else _held_at_cessation(s, c)
    if notice is not None and notice.effective_on is not None:
        days.add(notice.effective_on)
    if c is not None and c.kind == "transfer":
        days.add(_local_day(c.created_at, tz))
    return days


def _filings(s: Session) -> dict[tuple[str, str | None, date | None], list[Filing]]:
    rows = s.execute(select(BbjFiling, Employee).join(
        Employee, Employee.id == BbjFiling.employee_id).order_by(BbjFiling.id)).all()
    out: dict[tuple[str, str | None, date | None], list[Filing]] = {}
    for f, emp in rows:
        out.setdefault(_key(f.kind, f.fund_id, f.period_start), []).append(Filing(
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


def _withheld(s: Session, tz: ZoneInfo) -> set[date]:
    """The first day of every local month in which final tax was withheld on a share."""
    return {_local_day(at, tz).replace(day=1) for at, cents in _paid(s) if cents > 0}


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
    """Every regulatory deadline of the room at ``now`` (module docstring), oldest due first;
    with each its filings.  A filing of a period the ledger gives nothing for is listed too."""
    cfg = settings or CalendarSettings()
    hol = tuple(holidays)
    now = now.astimezone(UTC)
    today = _local_day(now, tz)
    found: dict[tuple[str, str | None, date | None], tuple[str, str | None, date, str]] = {}

    def add(kind: str, fund_id: str | None, start: date, basis: str) -> None:
        found[_key(kind, fund_id, start)] = (kind, fund_id, start, basis)

    with _reading(engine) as s:
        filings = _filings(s)
        # BIR: the tax withheld on the shares paid, by the local month of the payment
        paid = _paid(s)
        tax: dict[date, list[int]] = {}  # the months tax was withheld in
        for at, cents in paid:
            if cents > 0:
                acc = tax.setdefault(_local_day(at, tz).replace(day=1), [0, 0])
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
            note(_local_day(at, tz), "hit")
        for at, _cents in paid:
            note(_local_day(at, tz), "share")
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
            last = _local_day(c.created_at, tz) if c is not None else today
            for q in _quarters(_local_day(fund.created_at, tz), min(last, today)):
                add("bank_statement", fund.id, q, f"fund {fund.name} open in "
                    f"{quarter_text(q)}")
            if c is not None:
                day = _local_day(c.created_at, tz)
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


# --- recording a filing ------------------------------------------------------------------


def _text(value: str, what: str, limit: int, *, required: bool) -> str:
    if not isinstance(value, str):
        raise BbjFilingError(f"{what}: must be text")
    text = value.strip()
    if required and not text:
        raise BbjFilingError(f"{what}: must not be empty")
    if len(text) > limit:
        raise BbjFilingError(f"{what}: {len(text):,} characters; at most {limit:,}")
    if any(printable(line) != line for line in text.split("\n")):
        raise BbjFilingError(f"{what}: has characters that can not be printed")
    return text


def record_filing(engine: Engine, swipe: str, *, kind: str, period_start: date,
                  filed_at: datetime, reference: str, tz: ZoneInfo, fund_id: str | None = None,
                  detail: str = "", corrects: int | None = None,
                  holidays: Iterable[date] = (), settings: CalendarSettings | None = None,
                  clock: Callable[[], datetime] = _utcnow) -> Filing:
    """Record a filing of ``kind`` for the period starting ``period_start`` (for a cessation's
    kinds: the cessation's local date) with a supervisor's swipe, in one transaction with its
    swipe-log row (action ``bbj_filing``); the filing.  Late when ``filed_at`` is at or after
    the end of the due day.  A second filing of the same kind and period is refused naming the
    first, unless it is a correction (``corrects`` = the filing it replaces, the latest one,
    and ``detail`` = why).  A refusal writes only the swipe-log row."""
    cfg = settings or CalendarSettings()
    hol = tuple(holidays)
    now = clock().astimezone(UTC)
    if kind not in KINDS:
        raise BbjFilingError(f"{kind!r}: not a filing ({', '.join(KINDS)})")
    name = KINDS[kind]
    if kind in FUND_KINDS and not fund_id:
        raise BbjFilingError(f"{name}: name the fund")
    if kind not in FUND_KINDS and fund_id:
        raise BbjFilingError(f"{name}: is the casino's, not a fund's (fund {fund_id!r} given)")
    end, due_on = period_and_due(kind, period_start, cfg, hol)
    due_first = end_of_day(due_on, tz)  # TGD-108: the form's; the guideline's is read below
    if filed_at.tzinfo is None:
        raise BbjFilingError(f"{name}: the filing time must be timezone-aware")
    filed = filed_at.astimezone(UTC)
    if filed > now:
        raise BbjFilingError(f"{name}: filed {filed_at.astimezone(tz):%Y-%m-%d %H:%M} is in "
                             "the future")
    started = datetime.combine(period_start, time(), tz).astimezone(UTC)
    if kind not in NOTICE_KINDS and filed < started:
        raise BbjFilingError(f"{name}: filed {filed_at.astimezone(tz):%Y-%m-%d %H:%M}, before "
                             f"its period begins ({period_start})")
    ref = _text(reference, f"{name}: the reference", REFERENCE_MAX,
                required=kind not in REFERENCE_OPTIONAL)
    why = _text(detail, f"{name}: the detail", DETAIL_MAX, required=False)
    if corrects is not None and not why:
        raise BbjFilingError(f"{name}: a correction needs its reason (the detail)")
    key = _key(kind, fund_id, period_start)
    label = f"{name} {fund_id + ' ' if fund_id else ''}{period_start}"

    def write(s: Session, emp: Employee) -> Filing:
        lock_record(s, "bbj_filings", f"{kind}:{fund_id}:{key[2]}")
        due = end_of_day(period_and_due(kind, period_start, cfg, hol,
                                        withheld=_withheld(s, tz))[1], tz) \
            if kind == "tgd108" else due_first
        if fund_id is not None:
            if s.get(BbjFund, fund_id) is None:
                raise BbjFilingError(f"{label}: fund {fund_id!r} does not exist")
            c = s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
                .scalar_one_or_none()
            if kind in NOTICE_KINDS and period_start not in _planned_days(s, fund_id, c, tz):
                planned = ", ".join(map(str, sorted(_planned_days(s, fund_id, c, tz))))
                raise BbjFilingError(f"{label}: fund {fund_id!r} has no planned cessation on "
                                     f"{period_start} (planned: {planned or 'none'})")
            if kind == "tgd1540_part2":
                if c is None:
                    raise BbjFilingError(f"{label}: fund {fund_id!r} has not ceased")
                ceased_on = _local_day(c.created_at, tz)
                if ceased_on != period_start:
                    raise BbjFilingError(f"{label}: fund {fund_id!r} ceased on {ceased_on}")
        q = select(BbjFiling, Employee).join(Employee, Employee.id == BbjFiling.employee_id) \
            .where(BbjFiling.kind == kind).order_by(BbjFiling.id)
        q = q.where(BbjFiling.fund_id == fund_id) if fund_id is not None \
            else q.where(BbjFiling.fund_id.is_(None))
        if key[2] is not None:
            q = q.where(BbjFiling.period_start == period_start)
        before = s.execute(q).all()
        if before and corrects is None:
            first, who = before[0]
            latest = before[-1][0]
            more = (f"; its latest correction is filing {latest.id}" if latest.id != first.id
                    else "")
            raise BbjFilingError(
                f"{label}: already filed (filing {first.id}, filed "
                f"{first.filed_at.astimezone(tz):%Y-%m-%d %H:%M}, reference "
                f"{first.reference or '-'}, by {who.number} {who.name}){more}; a correction "
                f"names the filing it corrects and why")
        if corrects is not None:
            last = before[-1][0] if before else None
            if last is None or last.id != corrects:
                now_latest = f"filing {last.id}" if last else "nothing is filed yet"
                raise BbjFilingError(f"{label}: a correction corrects the latest filing of "
                                     f"the period ({now_latest}), not filing {corrects}")
        row = BbjFiling(kind=kind, fund_id=fund_id, period_start=period_start, period_end=end,
                        due_at=due, filed_at=filed, reference=ref, detail=why,
                        late=filed >= due, corrects_id=corrects, employee_id=emp.id,
                        created_at=now)
        s.add(row)
        s.flush()
        return Filing(row.id, kind, fund_id, period_start, end, due, filed, ref, why,
                      row.late, corrects, Who.of(emp), now)

    filing = gate_for(engine).run(swipe, ROLE, SWIPE_ACTION,
                                  lambda s, emp, _now: write(s, emp), words="a poker room filing")
    log.info("poker room filing %d: %s%s", filing.filing_id, label,
             " (LATE)" if filing.late else "")
    return filing


__all__ = ["CESSATION_KINDS", "KINDS", "KIND_TEXT", "BbjFilingError", "CalendarSettings",
           "CessationNotice", "Filing", "RoomDeadline", "days_text", "end_of_day", "late_days",
           "month_end", "overdue",
           "period_and_due", "quarter_end", "quarter_start", "record_filing",
           "room_deadlines", "tgd108_dues"]
