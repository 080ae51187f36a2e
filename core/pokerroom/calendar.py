"""The poker room's regulatory calendar: the kinds of deadline the PAGCOR guidelines name
beyond a case's own (RULES.md 6 "Deadlines and reports"; docs/bbj.md "Room deadlines"), each
kind's period and due day (:func:`period_and_due`), and the casino's gaming day.

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
  date) and any given to ``room_deadlines(..., notices=)`` (``CessationNotice``); each also
  gives ``tgd1540_part1`` (the notice to PAGCOR, 14 business days before).  The notice row says
  the operator decided; the deadline is met by the FILING recorded (PAGCOR's receiving
  number, the day the players were told), as for every other kind.

Every deadline is due at the END of its due day in the casino's time zone (``due``: the local
midnight after it, in UTC); a filing at or after that moment is late.  A due day that falls on
a weekend or holiday is not moved (our reading: the earlier date is the safe one).

The deadlines at a moment, read from the ledger: ``core.pokerroom.deadlines``; a filing
recorded (``bbj_filings``, append-only and chained): ``core.pokerroom.filings``.  This module
is the dates alone (it reads no ledger).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.pokerroom.business_days import add_business_days
from core.pokerroom.calendar_settings import CalendarSettings
from core.pokerroom.fund import PART1_BUSINESS_DAYS, PART2_BUSINESS_DAYS, PLAYERS_DAYS

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


class BbjFilingError(ValueError):
    """A filing refused; the message names the filing and the problem."""


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


def local_day(at: datetime, tz: ZoneInfo) -> date:
    """``at``'s date in the casino's time zone ``tz``."""
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
