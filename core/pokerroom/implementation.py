"""TGD-1581, the Bad Beat Jackpot implementation request and approval form (Annex A): its
filing deadline (docs/forms.md "TGD-1581").

The guideline: the request is filed at least EIGHT business days before the implementation
(effective) date, and a request submitted after 3:00 PM counts as received on the next business
day.  Business days are Monday to Friday except the casino's public holidays (the floor file's
``[casino] public_holidays``), counted in the casino's time zone
(:mod:`core.pokerroom.business_days`).

* :func:`latest_filing`: the last moment a request is on time, 15:00 local on the business day
  eight business days before the effective date;
* :func:`received_on`: the business day a submission counts as received (after 15:00, or on a
  weekend or holiday: the next business day);
* :func:`is_timely`: received on or before the latest filing day.

Pure: no ledger, no Qt.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from core.pokerroom.business_days import add_business_days, is_business_day

FILING_BUSINESS_DAYS = 8  # the request is filed at least this many business days before
CUT_OFF = time(15, 0)  # a submission after 3:00 PM is received the next business day


class ImplementationError(ValueError):
    """A filing time the deadline can not be reckoned from (the message names it)."""


def latest_filing(effective_on: date, tz: ZoneInfo, holidays: Iterable[date] = ()) -> datetime:
    """15:00 in ``tz`` on the business day :data:`FILING_BUSINESS_DAYS` business days before
    ``effective_on`` (an effective Monday 14 Dec 2026 -> Wednesday 2 Dec 2026 15:00)."""
    day = add_business_days(effective_on, -FILING_BUSINESS_DAYS, holidays)
    return datetime.combine(day, CUT_OFF, tz)


def received_on(submitted_at: datetime, tz: ZoneInfo, holidays: Iterable[date] = ()) -> date:
    """The business day a submission at ``submitted_at`` counts as received: its own local
    date when that is a business day and the time is at or before 15:00:00; otherwise the next
    business day (Friday 16:00 -> Monday; Saturday 10:00 -> Monday)."""
    if submitted_at.tzinfo is None or submitted_at.utcoffset() is None:
        raise ImplementationError(f"filing time {submitted_at:%Y-%m-%d %H:%M}: give its time "
                                  "zone (the casino's)")
    hol = tuple(holidays)
    local = submitted_at.astimezone(tz)
    day = local.date()
    if is_business_day(day, hol) and local.replace(tzinfo=None).time() <= CUT_OFF:
        return day
    return add_business_days(day, 1, hol)


def is_timely(submitted_at: datetime, effective_on: date, tz: ZoneInfo,
              holidays: Iterable[date] = ()) -> bool:
    """Whether a submission at ``submitted_at`` is received by the latest filing day."""
    hol = tuple(holidays)
    return received_on(submitted_at, tz, hol) <= latest_filing(effective_on, tz, hol).date()


__all__ = ["CUT_OFF", "FILING_BUSINESS_DAYS", "ImplementationError", "is_timely",
           "latest_filing", "received_on"]
