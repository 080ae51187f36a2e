"""A report cell as text, the same on the screen, on paper and on the command line: money with
every digit kept and thousands separated ("$25,000.4045", in the floor's currency as the
casino's locale writes it), counts with separators."""

from __future__ import annotations

from decimal import Decimal

from core.desks.accounting.sheets import Cell
from core.kernel.money import Currency, decimal_text


def money_text(value: Decimal, money: Currency | None = None) -> str:
    """Every digit kept, thousands separated: "$25,000.4045", "-$0.40" (``money``: the floor's
    currency; None: the figures alone, "25,000.4045")."""
    if money is not None:
        return money.exact(value)
    text = decimal_text(abs(value))
    whole, _, frac = text.partition(".")
    sign = "-" if value < 0 else ""
    return f"{sign}{int(whole):,}.{frac.ljust(2, '0')}"


def cell_text(value: Cell, money: bool, currency: Currency | None = None) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return money_text(value, currency if money else None)
    if isinstance(value, int):
        return f"{value:,}" if not money else money_text(Decimal(value), currency)
    return str(value)
