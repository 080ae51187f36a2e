"""Business days of the poker room's deadlines (RULES.md section 6): Monday to Friday, not one
of the casino's public holidays (the floor file's ``[casino] public_holidays``).

The one place the counting is written: the case deadlines (:mod:`core.pokerroom.cases`), the
TGD-1540 notice (:mod:`printing.pages.forms`) and the TGD-1581 filing deadline
(:mod:`core.pokerroom.implementation`) all step through :func:`add_business_days`."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta


def is_business_day(day: date, holidays: Iterable[date] = ()) -> bool:
    """Monday to Friday and not one of ``holidays``."""
    return day.weekday() < 5 and day not in set(holidays)


def add_business_days(start: date, days: int, holidays: Iterable[date] = ()) -> date:
    """``start`` moved by ``days`` business days (negative: back; 0: ``start`` itself).
    ``start`` need not be a business day: one business day after a Saturday is the Monday."""
    off = set(holidays)
    step = 1 if days >= 0 else -1
    d, left = start, abs(days)
    while left:
        d += timedelta(days=step)
        if d.weekday() < 5 and d not in off:
            left -= 1
    return d


__all__ = ["add_business_days", "is_business_day"]
