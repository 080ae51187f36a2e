"""A report cell as text, the same on the screen, on paper and on the command line: money with
every digit kept and thousands separated ("$25,000.4045"), counts with separators."""

from __future__ import annotations

from decimal import Decimal

from core.desks.accounting.sheets import Cell
from core.kernel.money import decimal_text


def money_text(value: Decimal, symbol: str = "") -> str:
    """Every digit kept, thousands separated: "$25,000.4045", "-$0.40"."""
    text = decimal_text(abs(value))
    whole, _, frac = text.partition(".")
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{int(whole):,}.{frac.ljust(2, '0')}"


def cell_text(value: Cell, money: bool, symbol: str = "") -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return money_text(value, symbol if money else "")
    if isinstance(value, int):
        return f"{value:,}" if not money else money_text(Decimal(value), symbol)
    return str(value)
