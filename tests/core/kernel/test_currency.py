"""core.kernel.money.Currency: one currency written the way one locale writes it (Babel's CLDR
data), the one place every screen, slip, page and form takes an amount's text from.  Expected
texts are written out by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.kernel.money import (
    DOLLARS,
    PESOS,
    Currency,
    MoneyError,
    format_cents,
    format_units,
    format_units_exact,
)

NBSP = "\u00a0"


@pytest.mark.parametrize(("code", "locale", "cents", "text"), [
    ("USD", "en_US", 1_234_567, "$12,345.67"),  # today's default: unchanged
    ("PHP", "en_PH", 5_000_000, "₱50,000.00"),
    ("PHP", "fil_PH", 40, "₱0.40"),
    ("NZD", "en_NZ", 123_456, "$1,234.56"),  # New Zealand writes its own dollars "$"
    ("USD", "en_NZ", 123_456, "US$1,234.56"),  # ... and another country's with its name
    ("EUR", "de_DE", 123_456, f"1.234,56{NBSP}€"),  # after the figures, a decimal comma
    ("PHP", "en_PH", -40, "-₱0.40"),
])
def test_an_amount_is_written_the_way_the_locale_writes_its_currency(
        code: str, locale: str, cents: int, text: str) -> None:
    assert Currency(code, locale).text(cents) == text


def test_exact_amounts_keep_every_digit_and_meters_round_down_to_the_cent() -> None:
    money = Currency("PHP", "en_PH")
    # 2,500,040,450,000 units of 1/1,000,000 cent = 2,500,040.45 cents = 25,000.4045 pesos
    assert money.units_exact(2_500_040_450_000) == "₱25,000.4045"
    assert money.units(2_500_040_450_000) == "₱25,000.40"
    assert money.exact(Decimal("0.00000001")) == "₱0.00000001"
    assert DOLLARS.text(617_313) == "$6,173.13" and PESOS.code == "PHP"


def test_the_plain_figure_has_no_currency() -> None:
    """format_cents and its siblings write the figure alone (a refusal's words, a command
    line's table): an amount for a person in a currency is Currency's to write."""
    assert format_cents(1_000_360) == "10,003.60"
    assert format_cents(-40) == "-0.40" and format_cents(0) == "0.00"
    assert format_units(2_500_040_450_000) == "25,000.40"  # to the cent, rounded down
    assert format_units_exact(2_500_040_450_000) == "25,000.4045"
    assert format_units_exact(-100_000_000) == "-1.00"


def test_paper_without_the_sign_writes_the_iso_code() -> None:
    ascii_only = str.isascii
    assert Currency("PHP", "en_PH").on_paper(ascii_only).text(811_290) == "PHP 8,112.90"
    assert Currency("PHP", "en_PH").on_paper(ascii_only).text(-40) == "-PHP 0.40"
    assert Currency("EUR", "de_DE").on_paper(ascii_only).text(600) == "6,00 EUR"
    assert DOLLARS.on_paper(ascii_only) is DOLLARS  # "$" prints: unchanged
    assert Currency("PHP", "en_PH").name_in_words() == "PHILIPPINE PESOS"


@pytest.mark.parametrize(("code", "locale", "said"), [
    ("usd", "en_US", "'usd' is not an ISO 4217 currency code"),
    ("JPY", "en_US", "'JPY' has 0 decimals"),
    ("KWD", "en_US", "'KWD' has 3 decimals"),
    ("PHP", "en-PH", "'en-PH' is not a known locale"),
    ("PHP", "EN_ph", "'EN_ph': write the locale as 'en_PH'"),
])
def test_a_currency_or_locale_podium_can_not_write_is_refused(code: str, locale: str,
                                                              said: str) -> None:
    with pytest.raises(MoneyError, match=f"^{said}"):
        Currency(code, locale)
