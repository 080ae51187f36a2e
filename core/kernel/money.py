"""Exact money.

Inside Podium every amount is an ``int`` in one of two fixed units:

* **cents** (``int``): what is paid, printed and shown;
* **exact units** (``int``): 1/1,000,000 of a cent, what a meter and its
  ledger entries hold, so a contribution of ``wager x rate`` is exact for any
  rate with at most six decimals (RULES.md section 4: keep the fraction of a
  cent).

``Decimal`` is used only at the edges (parsing, JSON, display).  Never float.

Money is written for people in ONE place, :class:`Currency`: a currency (ISO 4217, e.g.
``PHP``) written the way a locale writes it (``en_PH``: ``₱1,234.56``), by Babel's CLDR data.
Screens, slips, win pages and forms all take their amounts' text from it, so one figure reads
the same everywhere; paper whose printer cannot print the currency's sign (no ESC/POS code page
has ``₱``) writes the ISO code in its place (:meth:`Currency.on_paper`: ``PHP 1,234.56``).
:func:`format_cents` (and :func:`format_units`, :func:`format_units_exact`) write the plain
figure alone, ``10,003.60``, never a currency: where no currency is at hand or meant (a
refusal's words, a log line, a command line's table, an edit field).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal

UNITS_PER_CENT = 1_000_000
CENTS_PER_MAJOR = 100
UNITS_PER_MAJOR = UNITS_PER_CENT * CENTS_PER_MAJOR
RATE_DECIMALS = 6


class MoneyError(ValueError):
    """A malformed amount or rate; the message names the problem."""


# ASCII digits only; grouping commas only between groups of three before the point.
_NUMBER = re.compile(r"[+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?", re.ASCII)
MAX_TEXT = 40  # characters of a number as typed
MAX_DIGITS = 15  # digits before the point: no amount or count of Podium's comes near it
MAX_MAGNITUDE = Decimal(10) ** MAX_DIGITS


def parse_decimal(text: str | int | Decimal, what: str = "amount") -> Decimal:
    """One strict reading of a number as a person or a file writes it: ``1234.50`` or
    ``1,234.50``, an optional sign.  Refused, naming ``what``: floats, a comma anywhere but
    between groups of three (``1,50`` is not 150.00 nor 1.50), exponents (``1e4``), ``_``,
    digits of other scripts, ``-0``, a bare point, more than :data:`MAX_TEXT` characters, and a
    magnitude of :data:`MAX_MAGNITUDE` or more."""
    if isinstance(text, (bool, float)):
        raise MoneyError(f"{what}: {text!r} must be a decimal string, not a float")
    if isinstance(text, Decimal):
        if not text.is_finite():
            raise MoneyError(f"{what}: {text!r} is not a finite number")
        value = text
    elif isinstance(text, int):
        value = Decimal(text)
    else:
        raw = str(text).strip()
        if len(raw) > MAX_TEXT:
            raise MoneyError(f"{what}: {raw[:MAX_TEXT]!r}... is longer than {MAX_TEXT} "
                             "characters")
        if not _NUMBER.fullmatch(raw):
            raise MoneyError(f"{what}: {raw!r} is not a number written as 1234.50 or "
                             "1,234.50")
        value = Decimal(raw.replace(",", ""))
        if value == 0 and raw.startswith("-"):
            raise MoneyError(f"{what}: {raw!r} is a negative zero")
    if value and value.adjusted() >= MAX_DIGITS:  # no arithmetic: 1E+999999999 overflows it
        raise MoneyError(f"{what}: {text!r} is too large (at most {MAX_MAGNITUDE - 1:,})")
    return value


_COUNT = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+", re.ASCII)


def parse_count(text: str | int, what: str, *, low: int = 1, high: int) -> int:
    """A whole number as a person types it on a command line or a file gives it: ASCII digits,
    optionally grouped by commas in threes (``100,000``), between ``low`` and ``high``.
    Refused, naming ``what``: a sign, a point, ``_``, an exponent, digits of other scripts,
    more than :data:`MAX_TEXT` characters, and anything out of range (so a count can never
    ask for unbounded work or memory)."""
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise MoneyError(f"{what}: {text!r} is not a whole number")
    if isinstance(text, int):
        value = text
    else:
        raw = text.strip()
        if len(raw) > MAX_TEXT:
            raise MoneyError(f"{what}: {raw[:MAX_TEXT]!r}... is longer than {MAX_TEXT} "
                             "characters")
        if not _COUNT.fullmatch(raw):
            raise MoneyError(f"{what}: {raw!r} is not a whole number")
        value = int(raw.replace(",", ""))
    if not low <= value <= high:
        shown = f"{value:,}" if abs(value) < 10**MAX_TEXT else "a number that large"
        raise MoneyError(f"{what}: {shown} is out of range ({low:,} to {high:,})")
    return value


def parse_cents(text: str | int | Decimal, what: str = "amount", *,
                allow_negative: bool = False) -> int:
    """Parse ``"1250.00"`` into cents (125000).  More than two decimals is an error."""
    value = parse_decimal(text, what)
    if value < 0 and not allow_negative:
        raise MoneyError(f"{what}: {text!r} is negative")
    if decimal_places(value) > 2:
        raise MoneyError(f"{what}: {text!r} has more than two decimals")
    return int(value.scaleb(2))  # exact: at most two decimals, at most MAX_DIGITS digits


def parse_rate(text: str | int | Decimal, what: str = "rate") -> Decimal:
    """A rate or fraction in [0, 1] with at most six decimals (``"0.20"``)."""
    value = parse_decimal(text, what)
    if value < 0 or value > 1:
        raise MoneyError(f"{what}: {text!r} must be between 0 and 1")
    if decimal_places(value) > RATE_DECIMALS:
        raise MoneyError(f"{what}: {text!r} has more than {RATE_DECIMALS} decimals")
    return value


def decimal_places(value: Decimal) -> int:
    """How many decimals a finite ``value`` has once its trailing zeros are dropped
    (``"0.2500"`` -> 2, ``"1E+3"`` -> 0, ``"1E-999999999"`` -> 999999999), read from its digits
    and exponent with no arithmetic: scaling a tiny value by a power of ten underflows to an
    exact 0 in the decimal context, which would let it pass for a whole number."""
    _sign, digits, exp = value.as_tuple()
    if not isinstance(exp, int):
        raise MoneyError(f"{value!r} is not a finite number")
    end = len(digits)
    while end > 0 and digits[end - 1] == 0 and exp < 0:
        end -= 1
        exp += 1
    if end == 0:  # a zero, however it is written
        return 0
    return max(0, -exp)


def cents_to_units(cents: int) -> int:
    return cents * UNITS_PER_CENT


def units_floor_cents(units: int) -> int:
    """Whole cents in an exact amount, rounded down (toward zero for >= 0)."""
    if units < 0:
        raise MoneyError("a meter amount can not be negative")
    return units // UNITS_PER_CENT


def share_units(units: int, rate: Decimal) -> int:
    """``units x rate`` exactly; rates have at most six decimals so the result is whole
    when ``units`` is a whole number of cents.  Otherwise rounded down."""
    num, den = rate.as_integer_ratio()
    return (units * num) // den


def share_cents_floor(units: int, rate: Decimal) -> int:
    """``units x rate`` rounded DOWN to the cent, in cents (an award, a split share)."""
    num, den = rate.as_integer_ratio()
    return (units * num) // (den * UNITS_PER_CENT)


def tax_cents(gross_cents: int, rate: Decimal) -> int:
    """Withholding tax: ``gross x rate`` rounded to the nearest cent, half up."""
    return int((Decimal(gross_cents) * rate).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def cents_to_decimal(cents: int) -> Decimal:
    return (Decimal(cents) / CENTS_PER_MAJOR).quantize(Decimal("0.01"))


def format_cents(cents: int) -> str:
    """The plain figure, no currency: ``"10,003.60"``, ``"-0.40"``: for a refusal's or a log's
    words, a command line's table, an edit field.  An amount written for a person in the
    floor's (or a fund's) currency is :meth:`Currency.text`."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), CENTS_PER_MAJOR)
    return f"{sign}{whole:,}.{frac:02d}"


def json_cents(cents: int) -> str:
    """Money in JSON: a decimal string with two decimals."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), CENTS_PER_MAJOR)
    return f"{sign}{whole}.{frac:02d}"


def json_units_floor(units: int) -> str:
    """A meter amount in JSON: to the cent, rounded down."""
    return json_cents(units_floor_cents(units))


def format_units(units: int) -> str:
    """A meter amount's plain figure, to the cent rounded down (:meth:`Currency.units` with
    the currency)."""
    return format_cents(units_floor_cents(units))


def units_decimal(units: int) -> Decimal:
    """Exact units as money (a Decimal of the major unit, every digit kept, at least two
    decimals): 2_500_040_450_000 units -> Decimal("25000.4045")."""
    value = Decimal(units).scaleb(-8)  # 1 unit = 1/1,000,000 cent = 1e-8 of the major unit
    if value == value.quantize(Decimal("0.01")):
        return value.quantize(Decimal("0.01"))
    return Decimal(f"{value:f}".rstrip("0"))


def decimal_text(value: Decimal) -> str:
    """A money Decimal as plain text for JSON and CSV ("0.00000001", never "1E-8")."""
    return f"{value:f}"


def format_units_exact(units: int) -> str:
    """The plain figure ``"25,000.40"``, or every digit of a fraction of a cent
    (``"25,000.4045"``): the accountant's figures add up to the unit
    (:meth:`Currency.units_exact` with the currency)."""
    value = units_decimal(units)
    sign = "-" if value < 0 else ""
    text = f"{abs(value):,f}"
    whole, _, frac = text.partition(".")
    return f"{sign}{whole}.{frac.ljust(2, '0')}"


# --- one currency, written the way one locale writes it (Babel) --------------------------------

_CODE = re.compile(r"[A-Z]{3}", re.ASCII)


@functools.lru_cache(maxsize=64)
def currency_problem(code: str) -> str:
    """"" when ``code`` is an ISO 4217 currency Podium can keep in cents (two decimals), else
    what is wrong with it, in words."""
    from babel.numbers import get_currency_precision, list_currencies

    if not isinstance(code, str) or not _CODE.fullmatch(code):
        return f"{code!r} is not an ISO 4217 currency code (three capital letters, e.g. 'PHP')"
    if code not in list_currencies():
        return f"{code!r} is not an ISO 4217 currency code (e.g. 'USD', 'PHP', 'NZD')"
    digits = get_currency_precision(code)
    if digits != 2:
        return (f"{code!r} has {digits} decimals; Podium keeps amounts in hundredths of the "
                "currency (a currency with two decimals)")
    return ""


@functools.lru_cache(maxsize=64)
def locale_problem(tag: str) -> str:
    """"" when ``tag`` is a locale Babel knows, written as it writes it (``en_PH``), else what
    is wrong with it."""
    from babel import Locale, UnknownLocaleError

    example = "e.g. 'en_US', 'en_PH', 'fil_PH', 'en_NZ'"
    if not isinstance(tag, str) or not tag.strip():
        return f"{tag!r} is not a locale ({example})"
    try:
        known = str(Locale.parse(tag))
    except (UnknownLocaleError, ValueError, TypeError):
        return f"{tag!r} is not a known locale ({example})"
    if known != tag:
        return f"{tag!r}: write the locale as {known!r}"
    return ""


@dataclass(frozen=True)
class Currency:
    """Amounts in ``code`` (ISO 4217) written the way ``locale`` writes them, through Babel's
    ``format_currency`` with a ``Decimal``: ``Currency("PHP", "en_PH").text(123456)`` ->
    ``"₱1,234.56"``.  With ``iso`` the currency's code stands where its sign would
    (``"PHP 1,234.56"``): paper that cannot print the sign (:meth:`on_paper`).  Build it with
    checked values (the floor file's reader refuses a bad code or locale with the key named)."""

    code: str = "USD"
    locale: str = "en_US"
    iso: bool = False

    def __post_init__(self) -> None:
        problem = currency_problem(self.code) or locale_problem(self.locale)
        if problem:
            raise MoneyError(problem)

    @property
    def symbol(self) -> str:
        """The currency's sign as the locale writes it (``₱``, ``$``, ``NZ$``), or its code."""
        return self.code if self.iso else self.symbol_of_locale()

    def _write(self, value: Decimal, *, exact: bool = False) -> str:
        from babel.numbers import format_currency

        text = str(format_currency(value, self.code, locale=self.locale,
                                   decimal_quantization=not exact))
        if self.iso:
            sign = self.symbol_of_locale()
            if sign != self.code:
                text = text.replace(sign, self.code)
            # the code is letters: set it apart from the figures ("PHP 1,234.56")
            text = re.sub(rf"{self.code}(?=[0-9])", f"{self.code} ", text)
            text = re.sub(rf"(?<=[0-9]){self.code}", f" {self.code}", text)
            text = text.replace("\u00a0", " ")
        return text

    def symbol_of_locale(self) -> str:
        """The currency's sign as the locale writes it, whatever ``iso`` says."""
        from babel.numbers import get_currency_symbol

        return str(get_currency_symbol(self.code, locale=self.locale))

    def text(self, cents: int) -> str:
        """An amount in cents, with the currency: ``"$12,345.67"``, ``"-₱0.40"``."""
        return self._write(cents_to_decimal(cents))

    def units(self, units: int) -> str:
        """A meter amount in exact units, to the cent rounded down."""
        return self.text(units_floor_cents(units))

    def units_exact(self, units: int) -> str:
        """A meter amount with every digit of a fraction of a cent (``"$25,000.4045"``): the
        accountant's figures add up to the unit."""
        return self.exact(units_decimal(units))

    def exact(self, value: Decimal) -> str:
        """An amount of the major unit with every digit kept, at least two decimals
        (``Decimal("25000.4045")`` -> ``"$25,000.4045"``)."""
        return self._write(value, exact=True)

    def name_in_words(self) -> str:
        """The currency's name for an amount in words, as the locale says it in the plural
        (``"PHILIPPINE PESOS"``, ``"US DOLLARS"``)."""
        from babel.numbers import get_currency_name

        return str(get_currency_name(self.code, count=2, locale=self.locale)).upper()

    def on_paper(self, can_print: Callable[[str], bool]) -> Currency:
        """This currency as paper writes it: the same, or with its ISO code in place of a sign
        the paper cannot print (``can_print``: whether a text prints as it is)."""
        if self.iso or can_print(self.symbol):
            return self
        return replace(self, iso=True)


DOLLARS = Currency("USD", "en_US")  # the table floor's default: today's "$12,345.67"
PESOS_CODE = "PHP"  # the poker room's funds' default currency (PAGCOR's forms)
PESOS = Currency(PESOS_CODE, "en_US")  # pesos where no floor file says how to write them
