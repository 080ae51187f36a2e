"""Option types shared by the commands: every count or size a person types is bounded, and a
refusal names the option (argparse prints ``podium ... : argument --days: ...``, status 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from core.money import MoneyError, parse_count


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
