"""``[casino]``: the casino's name, time zone, gaming day and shifts."""

from __future__ import annotations

import zoneinfo
from datetime import date, datetime, time
from typing import Any

from core.floorconfig.schema import Setting, _Section, declare, section, setting, shown, the
from core.kernel.money import Currency, currency_problem, locale_problem

MAX_HOLIDAYS = 1_000


def _zone_problem(tz: str) -> str:
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"{shown(tz)} is not a known time zone (e.g. 'Asia/Manila')"
    return ""


def _clock_time(value: Any, what: str) -> time:
    """A local clock time "HH:MM" (a TOML time is taken as it is, to the minute)."""
    if isinstance(value, time):
        if value.second or value.microsecond:
            raise ValueError(f"{what}: {value} must be a whole minute, HH:MM")
        return value.replace(tzinfo=None)
    if isinstance(value, str):
        text_ = value.strip()
        try:
            hh, mm = text_.split(":")
            if len(hh) != 2 or len(mm) != 2 or not (hh + mm).isdigit():
                raise ValueError
            return time(int(hh), int(mm))
        except ValueError:
            pass
    raise ValueError(f"{what}: {shown(value)} is not a clock time HH:MM such as \"06:00\"")


def _shifts(value: Any, what: str) -> tuple[tuple[str, time], ...] | None:
    """Shifts in order through the gaming day: [["Day", "06:00"], ["Swing", "14:00"], ...]
    (None: not given)."""
    if value is None:
        return None
    if not isinstance(value, list) or not 1 <= len(value) <= 6:
        raise ValueError(f"{what}: must be a list of 1 to 6 [name, \"HH:MM\"] pairs, e.g. "
                         "[[\"Day\", \"06:00\"], [\"Swing\", \"14:00\"]]")
    out: list[tuple[str, time]] = []
    for i, item in enumerate(value, 1):
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str) \
                or not 1 <= len(item[0].strip()) <= 32 or not item[0].strip().isprintable():
            raise ValueError(f"{what}: shift {i} must be [name, \"HH:MM\"] with a name of 1 "
                             "to 32 printable characters")
        name = item[0].strip()
        if any(n.casefold() == name.casefold() for n, _ in out):
            raise ValueError(f"{what}: shift {name!r} is listed twice")
        out.append((name, _clock_time(item[1], f"{what}: shift {name}")))
    starts = [t for _, t in out]
    first = starts[0]
    offsets = [((t.hour * 60 + t.minute) - (first.hour * 60 + first.minute)) % 1440
               for t in starts]
    if offsets != sorted(offsets) or len(set(offsets)) != len(offsets):
        raise ValueError(f"{what}: shifts must start in order through the day, each at its "
                         "own time")
    return tuple(out)


def _holidays(value: Any, what: str) -> tuple[date, ...]:
    """A list of ISO dates ("2026-12-25"), each once; a TOML date is taken as it is."""
    if not isinstance(value, list):
        raise ValueError(f"{what}: must be a list of dates such as \"2026-12-25\"")
    if len(value) > MAX_HOLIDAYS:
        raise ValueError(f"{what}: {len(value)} dates; at most {MAX_HOLIDAYS}")
    out: list[date] = []
    for item in value:
        if isinstance(item, date) and not isinstance(item, datetime):
            day = item
        elif isinstance(item, str):
            try:
                day = date.fromisoformat(item.strip())
            except ValueError:
                raise ValueError(f"{what}: {shown(item)} is not a date YYYY-MM-DD") from None
        else:
            raise ValueError(f"{what}: {shown(item)} is not a date YYYY-MM-DD")
        if day in out:
            raise ValueError(f"{what}: {day} is listed twice")
        out.append(day)
    return tuple(sorted(out))


def _plus_hours(t: time, hours: int) -> time:
    return time((t.hour + hours) % 24, t.minute)


def _plus_minutes(t: time, minutes: int) -> str:
    total = (t.hour * 60 + t.minute + minutes) % 1440
    return f"{total // 60:02d}:{total % 60:02d}"


def default_shifts(day_starts: time) -> tuple[tuple[str, time], ...]:
    """The shifts when the file names none: Day, Swing and Grave, 8 hours each from the start
    of the gaming day."""
    return (("Day", day_starts), ("Swing", _plus_hours(day_starts, 8)),
            ("Grave", _plus_hours(day_starts, 16)))


_DAY_STARTS = time(6, 0)


@section("casino")
class Casino:
    name: str = setting(
        kind="text",
        doc="the casino's name, on screens, slips and reports")
    timezone: str = setting(
        kind="text",
        doc=("an IANA zone, e.g. \"Asia/Manila\"; slips and screens show local time, the ledger "
             "keeps UTC"),
        check=_zone_problem, rule="a known IANA zone")
    currency: str = setting(
        kind="text",
        doc=("the table floor's currency, an ISO 4217 code (\"USD\", \"PHP\", \"NZD\"): every "
             "amount on the floor's screens, slips and win pages is in it"),
        default="USD", check=currency_problem, rule="an ISO 4217 code with two decimals")
    locale: str = setting(
        kind="text",
        doc=("the casino's locale (\"en_US\", \"en_PH\", \"fil_PH\", \"en_NZ\"): how amounts are "
             "written (sign, grouping), on screens, paper and forms alike"),
        default="en_US", check=locale_problem, rule="a locale Babel knows")
    operator: str = setting(
        kind="text",
        doc="the licensee named on the regulator's forms (\"\": the casino's name)",
        default="", empty_ok=True)
    public_holidays: tuple[date, ...] = setting(
        kind="value",
        doc=("days that are not business days besides Saturdays and Sundays (RULES.md 6 "
             "deadlines), e.g. [\"2026-12-25\"]"),
        default=(), parse=_holidays,
        form="list of dates", rule=f"at most {MAX_HOLIDAYS}, each once")
    hit_alert_minutes: int = setting(
        kind="integer",
        doc="a hit waiting this long turns red in the queue and sounds once (internal controls)",
        default=5, lo=1, hi=240, unit="minutes")
    gaming_day_starts: time = setting(
        kind="value",
        doc=("the local time the gaming day begins (a day's reconciliation runs from it to the "
             "next day's); on a whole hour of UTC"),
        default=_DAY_STARTS, parse=_clock_time, form="clock time (text)", unit="HH:MM")
    shifts: tuple[tuple[str, time], ...] = setting(
        kind="value",
        doc=("[name, \"HH:MM\"] pairs in order through the gaming day, the first at "
             "gaming_day_starts; each on a whole hour of UTC"),
        default=default_shifts(_DAY_STARTS), parse=_shifts,
        form="list of [name, time]", rule="1 to 6, in order",
        shown_default='[["Day", start], ["Swing", start + 8 h], ' '["Grave", start + 16 h]]')

    @property
    def operator_name(self) -> str:
        return self.operator or self.name

    @property
    def money(self) -> Currency:
        """The table floor's amounts as the casino writes them (``$12,345.67``)."""
        return Currency(self.currency, self.locale)


# An old floor file's ``currency_symbol`` (before currency and locale): read only to refuse a
# sign that is not the currency's own, on one line saying what to write instead.
CURRENCY_SYMBOL = declare("casino", Setting(
    "text", "no longer read (currency and locale write every amount): accepted only as the "
    "currency's own sign", "", key="currency_symbol", empty_ok=True,
    shown_default="obsolete"))["currency_symbol"]


def _off_the_utc_hour(tz: str, t: time) -> str:
    """"" when local ``t`` is a whole hour of UTC on every day of the year in ``tz``, else
    "N minutes past a whole hour of UTC"."""
    zone = zoneinfo.ZoneInfo(tz)
    year = datetime.now().year
    for month in range(1, 13):
        for day in (1, 15):
            local = datetime(year, month, day, t.hour, t.minute, tzinfo=zone)
            minutes = int(local.utcoffset().total_seconds() // 60)  # type: ignore[union-attr]
            past = (t.hour * 60 + t.minute - minutes) % 60
            if past:
                return f"{past} minutes past a whole hour of UTC"
    return ""


def parse_casino(sec: _Section) -> Casino:
    got = sec.read_all(Casino, skip=("shifts",))
    symbol = sec.read(CURRENCY_SYMBOL)
    money = Currency(got["currency"], got["locale"])
    if symbol and symbol != money.symbol:
        raise sec.error("currency_symbol", f"{shown(symbol)} is no longer read: amounts are "
                        f"written in `currency` ({money.code}) the way `locale` "
                        f"({money.locale}) writes it, {money.text(123456)}; set currency (an "
                        "ISO 4217 code, e.g. \"PHP\") and locale (e.g. \"en_PH\") and remove "
                        "this line")
    tz: str = got["timezone"]
    day_starts: time = got["gaming_day_starts"]
    shifts = sec.read(the(Casino, "shifts"), default=None)  # None: made from the day's start
    if shifts is None:
        shifts = default_shifts(day_starts)
    elif shifts[0][1] != day_starts:
        raise sec.error("shifts", f"the first shift starts at {shifts[0][1]:%H:%M}, but the "
                        f"gaming day at {day_starts:%H:%M}; the first shift begins the day")
    for key, what, t in [("gaming_day_starts", "the gaming day", day_starts)] + [
            ("shifts", f"shift {n}", t) for n, t in shifts]:
        off = _off_the_utc_hour(tz, t)
        if off:
            raise sec.error(key, f"{what} starts at {t:%H:%M}, which in {tz} is {off}; the "
                            "ledger keeps its totals by whole hours of UTC, so a gaming day "
                            "and its shifts start on a whole hour of UTC (e.g. "
                            f"{_plus_minutes(t, -int(off.split()[0]))})")
    sec.done()
    return Casino(**got, shifts=shifts)
