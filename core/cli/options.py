"""Option types shared by the commands: every count or size a person types is bounded, and a
refusal names the option (argparse prints ``podium ... : argument --days: ...``, status 2)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from core.kernel.money import MoneyError, parse_count


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high`` (digits, optionally
    grouped by commas in threes), else the one-line refusal argparse gives the option."""

    def convert(text: str) -> int:
        try:
            return parse_count(text, "value", low=low, high=high)
        except MoneyError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("value: ")) from None

    convert.__name__ = f"whole number {low:,} to {high:,}"
    return convert


def seconds(low: float, high: float, *, zero: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a number of seconds from ``low`` to ``high`` (``zero``: 0 too,
    meaning "never"); NaN, infinities and numbers of a thousand digits are refused."""

    def convert(text: str) -> float:
        try:
            value = float(text) if len(text) <= 32 else math.nan
        except ValueError:
            value = math.nan
        if (zero and value == 0) or (math.isfinite(value) and low <= value <= high):
            return value
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a number of seconds from {low:g} to {high:g}"
            + (" (or 0)" if zero else ""))

    convert.__name__ = "seconds"
    return convert
