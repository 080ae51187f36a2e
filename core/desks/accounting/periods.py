"""Gaming days and shifts in the casino's time zone, as UTC ranges of the ledger.

A gaming day named by its date begins at ``[casino] gaming_day_starts`` local time on that date
and ends when the next one begins (23, 24 or 25 hours across a daylight-saving change); a shift
runs from its start to the next shift's (the last to the next gaming day's start).  Every
range is half-open, ``start <= t < end``, in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.floorconfig import Casino


class PeriodError(ValueError):
    """A period that can not be reported; the message names what is wrong."""


#: The dates a period may name: a gaming day's end or a time zone's offset must still be a
#: date Python can hold (9999-12-31 plus a day is not), and the ledger holds nothing older.
FIRST_DAY = date(1900, 1, 1)
LAST_DAY = date(9998, 12, 31)


def _within(day: date, what: str, text: str) -> date:
    if not FIRST_DAY <= day <= LAST_DAY:
        raise PeriodError(f"{what}: {text!r} is outside the dates a report covers "
                          f"({FIRST_DAY} to {LAST_DAY})")
    return day


@dataclass(frozen=True)
class Period:
    """A half-open UTC range with the name people read ("Gaming day 2026-12-02", ...)."""

    start: datetime  # UTC, inclusive
    end: datetime  # UTC, exclusive
    label: str

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.end.tzinfo is None:
            raise PeriodError("period: times must be timezone-aware")
        if self.end <= self.start:
            raise PeriodError(f"period: ends ({self.end:%Y-%m-%d %H:%M}) before it starts "
                              f"({self.start:%Y-%m-%d %H:%M})")

    def contains(self, at: datetime) -> bool:
        return self.start <= at < self.end


def _local(day: date, at: time, tz: ZoneInfo) -> datetime:
    """``day`` at local ``at`` as UTC: a repeated time is its first occurrence, and a time
    skipped by a daylight-saving change is read with the offset before the change, which is
    the first moment after the gap (fold 0 does both, PEP 495)."""
    return datetime.combine(day, at).replace(tzinfo=tz, fold=0).astimezone(UTC)


def gaming_day(casino: Casino, day: date) -> Period:
    tz = ZoneInfo(casino.timezone)
    start = _local(day, casino.gaming_day_starts, tz)
    end = _local(day + timedelta(days=1), casino.gaming_day_starts, tz)
    return Period(start, end, f"Gaming day {day.isoformat()}")


def gaming_days(casino: Casino, first: date, last: date) -> Period:
    """From the start of gaming day ``first`` to the end of gaming day ``last``."""
    if last < first:
        raise PeriodError(f"period: {last} is before {first}")
    if (last - first).days > 400:
        raise PeriodError(f"period: {first} to {last} is more than 400 days; report a year "
                          "at most at a time")
    a, b = gaming_day(casino, first), gaming_day(casino, last)
    label = a.label if first == last else f"Gaming days {first.isoformat()} to {last.isoformat()}"
    return Period(a.start, b.end, label)


def month(casino: Casino, year: int, month_no: int) -> Period:
    if not 1 <= month_no <= 12:
        raise PeriodError(f"month: {month_no} is not 1 to 12")
    first = date(year, month_no, 1)
    nxt = date(year + (month_no == 12), month_no % 12 + 1, 1)
    p = gaming_days(casino, first, nxt - timedelta(days=1))
    return Period(p.start, p.end, f"Month {year:04d}-{month_no:02d} (gaming days)")


def shift(casino: Casino, day: date, name: str) -> Period:
    """Shift ``name`` (case-insensitive) of gaming day ``day``."""
    tz = ZoneInfo(casino.timezone)
    names = [n for n, _ in casino.shifts]
    found = [i for i, n in enumerate(names) if n.casefold() == name.strip().casefold()]
    if not found:
        raise PeriodError(f"shift: {name!r} is not one of {', '.join(names)}")
    i = found[0]
    starts = [t for _, t in casino.shifts]
    first = starts[0]

    def at(k: int) -> datetime:
        if k == len(starts):
            return gaming_day(casino, day).end
        t = starts[k]
        d = day + timedelta(days=1) if (t.hour, t.minute) < (first.hour, first.minute) else day
        return _local(d, t, tz)

    return Period(at(i), at(i + 1), f"{names[i]} shift, gaming day {day.isoformat()}")


def gaming_day_of(casino: Casino, at: datetime) -> date:
    """The gaming day a moment belongs to."""
    tz = ZoneInfo(casino.timezone)
    d = at.astimezone(tz).date()
    for day in (d + timedelta(days=1), d, d - timedelta(days=1)):
        if gaming_day(casino, day).start <= at:
            return day
    return d - timedelta(days=2)


def parse_period(casino: Casino, *, day: str | None = None, days: tuple[str, str] | None = None,
                 month_text: str | None = None, shift_name: str | None = None,
                 start: str | None = None, end: str | None = None) -> Period:
    """A period from command-line words: ``--day 2026-12-02 [--shift Swing]``,
    ``--from 2026-12-01 --to 2026-12-07`` (gaming days), ``--month 2026-11``, or
    ``--start "2026-12-02 06:00" --end "2026-12-02 18:00"`` (local times)."""
    tz = ZoneInfo(casino.timezone)

    def d(text: str, what: str) -> date:
        try:
            found = date.fromisoformat(text.strip())
        except ValueError:
            raise PeriodError(f"{what}: {text!r} is not a date YYYY-MM-DD") from None
        return _within(found, what, text)

    def local(text: str, what: str) -> datetime:
        try:
            naive = datetime.fromisoformat(text.strip())
        except ValueError:
            raise PeriodError(f"{what}: {text!r} is not a local time YYYY-MM-DD HH:MM") from None
        _within(naive.date(), what, text)
        if naive.tzinfo is not None:
            return naive.astimezone(UTC)
        return _local(naive.date(), naive.time(), tz)

    given = [x is not None for x in (day, days, month_text, start or end)]
    if sum(given) != 1:
        raise PeriodError("period: give exactly one of a day, a range of days, a month, or a "
                          "start and end")
    if shift_name is not None and day is None:
        raise PeriodError("shift: needs the gaming day it belongs to (--day)")
    if day is not None:
        dd = d(day, "day")
        return shift(casino, dd, shift_name) if shift_name else gaming_day(casino, dd)
    if days is not None:
        return gaming_days(casino, d(days[0], "from"), d(days[1], "to"))
    if month_text is not None:
        try:
            y, m = (int(x) for x in month_text.strip().split("-"))
        except ValueError:
            raise PeriodError(f"month: {month_text!r} is not a month YYYY-MM") from None
        if not FIRST_DAY.year <= y <= LAST_DAY.year:
            raise PeriodError(f"month: {month_text!r} is outside the dates a report covers "
                              f"({FIRST_DAY} to {LAST_DAY})")
        return month(casino, y, m)
    if not start or not end:
        raise PeriodError("period: a start needs an end and an end a start")
    a, b = local(start, "start"), local(end, "end")
    return Period(a, b, f"{a.astimezone(tz):%Y-%m-%d %H:%M} to {b.astimezone(tz):%Y-%m-%d %H:%M}")
