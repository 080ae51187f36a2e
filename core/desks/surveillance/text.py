"""The text surveillance writes from a timeline's data, for a report or the panel: times to the
millisecond in the casino's zone, exact amounts, flag codes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from core.desks.surveillance.flags import Flag
from core.kernel.money import format_cents, json_cents

UNITS_PER_CENT = 1_000_000


def ms_text(at: datetime) -> str:
    """``2026-12-02 14:03:05.123 +08:00``: a local time to the millisecond with its offset."""
    off = at.strftime("%z")
    return f"{at:%Y-%m-%d %H:%M:%S}.{at.microsecond // 1000:03d} {off[:3]}:{off[3:]}"


def iso_ms(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds")


def units_shown(units: int) -> str:
    """Exact units for people: ``-1,234.56``, or the exact decimal with its fraction of a
    cent."""
    if units % UNITS_PER_CENT == 0:
        return format_cents(units // UNITS_PER_CENT)
    return units_text(units)


def units_text(units: int) -> str:
    """Exact units (1/1,000,000 cent) as a decimal amount: ``-1234.56``, or with the fraction
    of a cent when there is one (``0.00123456``)."""
    if units % UNITS_PER_CENT == 0:
        return json_cents(units // UNITS_PER_CENT)
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), 100 * UNITS_PER_CENT)
    return f"{sign}{whole}.{frac:08d}".rstrip("0")


def flag_codes(flags: Sequence[Flag]) -> str:
    return ", ".join(str(f.code) for f in flags)
