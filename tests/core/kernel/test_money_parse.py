"""One strict reading of money and numbers (core/kernel/money.py ``parse_decimal``), shared by the
command line, floor files, paytables and the console's dialogs: ``1234.50`` or ``1,234.50``,
nothing that could be misread, every refusal a ``MoneyError`` naming the field."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cli.dispatch import main
from core.kernel.money import MoneyError, parse_cents, parse_decimal, parse_rate


@pytest.mark.parametrize(("text", "cents"), [
    ("1234.50", 123_450), ("1,234.50", 123_450), ("1,234,567", 123_456_700), ("0.20", 20),
    ("-250.00", -25_000), ("+5", 500), (" 7 ", 700), (12, 1_200), (Decimal("3.5"), 350),
])
def test_the_ways_people_write_money_are_read(text: object, cents: int) -> None:
    assert parse_cents(text, "amount", allow_negative=True) == cents  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [
    "1,50",  # a decimal comma, or a misplaced grouping: never 150.00
    "12,34,567", "1,2345", ",5", "1e4", "1E4", "1e999999999", "1_000", "１２", "١٢", "-0",
    "-0.00", ".5", "5.", "", " ", "NaN", "Infinity", "0x10", "1 000", "--5", "5-",
    "9" * 41, "1" + "0" * 15, 10**30, Decimal("1E+999999999"), Decimal("NaN"), 1.5, True,
])
def test_anything_that_could_be_misread_is_refused_naming_the_field(text: object) -> None:
    with pytest.raises(MoneyError, match="^seed: "):
        parse_decimal(text, "seed")  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_any_text_is_read_or_refused_by_name_never_a_traceback(text: str) -> None:
    try:
        value = parse_decimal(text, "amount")
    except MoneyError as exc:
        assert str(exc).startswith("amount: ")
        return
    assert value.is_finite() and abs(value) < Decimal(10) ** 15
    assert text.strip().lstrip("+-").replace(",", "").replace(".", "").isascii()


@pytest.mark.parametrize("bad", ["1e999999999", "1,50", "１２"])
def test_the_command_line_refuses_bad_money_with_one_line_and_status_2(
        bad: str, capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    case = {"paytable": "FPGPP-WA01",
            "levels": {"MAIN": {"seed": bad, "meter": "12345.67", "reserve": "250.00",
                                "contribution_rate": "0.20", "reserve_rate": "0.02"}},
            "rounds": [{"wagers": {"1": "1.00"}, "hits": {}}]}
    path = f"{tmp_path}/case.json"
    with open(path, "w") as f:
        json.dump(case, f)
    rc = main(["rules", "meter", path])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "seed" in err and repr(bad) in err


def test_a_rate_is_strict_too() -> None:
    assert parse_rate("0.123456", "rate") == Decimal("0.123456")
    for bad in ("0,20", "2e-1", "1.0000001"):
        with pytest.raises(MoneyError, match="^rate: "):
            parse_rate(bad, "rate")


@pytest.mark.parametrize("tiny", ["1e-999999999", "1E-1000000", "0.2000001e-999999"])
def test_a_value_too_small_for_its_decimals_is_refused_not_rounded_to_zero(tiny: str) -> None:
    """Scaling 1E-999999999 by 10**6 underflows to an exact 0 in the decimal context: the old
    check took it for a six-decimal rate, and a meter replay then spent hours multiplying by
    10**999999999 (the full test suite hung in tests/core/cli/test_fuzz_cli.py)."""
    value = Decimal(tiny)
    with pytest.raises(MoneyError, match="^rate: .* more than 6 decimals"):
        parse_rate(value, "rate")
    with pytest.raises(MoneyError, match="^amount: .* more than two decimals"):
        parse_cents(value, "amount")


def test_a_zero_or_trailing_zeros_are_not_decimals() -> None:
    assert parse_rate(Decimal("0E-999999999"), "rate") == 0
    assert parse_rate(Decimal("0.250000000000"), "rate") == Decimal("0.25")
    assert parse_cents(Decimal("12.5000000"), "amount") == 1250
    assert parse_cents(Decimal("1.5E+3"), "amount") == 150_000


def test_the_meter_refuses_a_tiny_rate_given_past_the_parser() -> None:
    from core.tablegames.meters.arithmetic import LevelSettings, MeterError

    with pytest.raises(MeterError, match="more than 6 decimals"):
        LevelSettings(seed_units=100, contribution_rate=Decimal("1E-999999999"),
                      reserve_rate=Decimal("0"))
