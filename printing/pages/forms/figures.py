"""What every form computes and how it writes an amount: the refusal (:class:`FormError`),
rates and percentages (:func:`rate_text`, :func:`percent_of` rounded HALF UP to the centavo,
:func:`percent_text`), the amounts' writing (:func:`written_in`, :func:`peso`), the rates the
forms share (the franchise tax, PAGCOR's 25%) and the taxpayer classes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from fractions import Fraction

from core.kernel.money import PESOS, Currency, format_cents

FRANCHISE_TAX_PERCENT = 5
PAGCOR_PERCENT = 25
# PAGCOR's 25% (PAGCOR_PERCENT): TGD-1623's "PAGCOR Share (25% of Item F)" and "25% of Franchise
# Tax (25% of item E)", and TGD-108's onsite "Less: 25% of FT remitted to PAGCOR" (of E, the
# franchise tax). The guideline's own text names no other rate (docs/forms.md point 18).
TAXPAYER_NAMES = {"citizen": "Citizen", "nraetb": "NRAETB", "nranetb": "NRANETB"}


class FormError(ValueError):
    """A form can not be produced from its input (the message names the field and problem)."""


def rate_text(rate: Decimal) -> str:
    """A rate as a percentage for a label: 0.30 -> "30%", 0.325 -> "32.5%"."""
    pct = (rate * 100).normalize()
    return f"{pct:f}%"


def percent_of(cents: int, percent: int | Fraction) -> int:
    """``cents x percent / 100`` rounded half up to the centavo (cents >= 0)."""
    if cents < 0:
        raise FormError(f"percent_of: {format_cents(cents)} is negative")
    share = Fraction(cents) * Fraction(percent) / 100
    return int(share + Fraction(1, 2)) if share.denominator != 1 else int(share)


_MONEY: ContextVar[Currency] = ContextVar("form_money", default=PESOS)


@contextmanager
def written_in(money: Currency) -> Iterator[Currency]:
    """Forms built inside write their amounts in ``money`` (the funds' currency as the casino's
    locale writes it, ``FloorConfig.fund_money``): the same writing as the room's screens."""
    token = _MONEY.set(money)
    try:
        yield money
    finally:
        _MONEY.reset(token)


def peso(cents: int) -> str:
    """An amount as the forms write it (:func:`written_in`): ``₱1,234.56``."""
    return _MONEY.get().text(cents)


def form_money() -> Currency:
    """The currency the forms built now write their amounts in (:func:`written_in`)."""
    return _MONEY.get()


def check_cents(value: object, what: str) -> int:
    """``value`` as an amount in centavos: an ``int`` (not a bool), not negative."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormError(f"{what}: {value!r} must be an amount in centavos")
    if value < 0:
        raise FormError(f"{what}: {format_cents(value)} is negative")
    return value


def percent_text(fraction: Fraction) -> str:
    """A fraction as a percentage with two decimals, rounded half up: 1/3 -> "33.33%"."""
    hundredths = fraction * 10_000  # percent with two decimals, rounded half up
    n = int(hundredths + Fraction(1, 2))
    return f"{n // 100}.{n % 100:02d}%"
