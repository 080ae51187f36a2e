"""`podium rules bbj CASE.json` (CLI.md; RULES.md section 6): the JSON contract and bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import core.cli.dispatch as cli_main
from core.cli import main
from core.pokerroom.rules.bbj import fraction_text


@pytest.fixture(autouse=True)
def only_bbj_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build the parser with this command only, so a subcommand another module owns
    (imported eagerly by core.cli) can not break these tests."""
    monkeypatch.setattr(cli_main, "COMMANDS_RULES",
                        {k: v for k, v in cli_main.COMMANDS_RULES.items() if k == "bbj"})
    monkeypatch.setattr(cli_main, "COMMANDS_TOP", {})


def test_bbj_is_a_rules_command() -> None:
    assert cli_main.COMMANDS_RULES["bbj"][0] == "core.cli.bbj_command"

# The input of CLI.md "podium rules bbj", as printed there.
CLI_EXAMPLE: dict[str, Any] = {
    "big_blind": "100.00",
    "pot": "2500.00",
    "dealt_in": [1, 2, 3, 4, 5, 6, 7],
    "board": ["Ah", "Ad", "Tc", "7s", "2h"],
    "showdown": [{"seat": 1, "hole": ["As", "Td"]}, {"seat": 4, "hole": ["7h", "7d"]}],
    "taxpayers": {"4": "nranetb"},
    "voids": [],
    "table_jackpot_rake_cap": "100.00",
    "room_max_jackpot_rake": "100.00",
    "main_jackpot": "1000000.00",
    "reserve_jackpot": "300000.00",
    "split": {"winning": "0.20", "losing": "0.40", "table": "0.40"},
}


def qualifying_example() -> dict[str, Any]:
    """CLI.md's example with the board's 2h a 7c: seat 4's 7h 7d make four sevens (the
    output CLI.md shows), seat 1 keeps Aces full of Tens with an Ace in the hole."""
    case = copy.deepcopy(CLI_EXAMPLE)
    case["board"] = ["Ah", "Ad", "Tc", "7s", "7c"]
    return case


def run_bbj(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: object,
            *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "case.json"
    path.write_text(case if isinstance(case, str) else json.dumps(case))
    code = main(["rules", "bbj", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: object) -> Any:
    code, out, err = run_bbj(tmp_path, capsys, case, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: object) -> str:
    code, out, err = run_bbj(tmp_path, capsys, case, "--json")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("podium rules bbj: ")
    return lines[0]


# --- the worked example ---------------------------------------------------------------------

def test_cli_worked_example_figures_worked_out_by_hand(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # Board Ah Ad Tc 7s 7c. Seat 4 (7h 7d): 7777 A. Seat 1 (As Td): AAATT, the best of its
    # AAATT / AAA77; an Ace in the hole; without the Td it would be AAA77, without the As
    # AATT7: both hole cards play; without 7h or 7d seat 4 has 777AA: both play.
    # 7 dealt in >= 5; pot 2,500.00 >= 20 x 100.00. Cap 100 of 100: the whole main.
    # Award 1,000,000.00: winning 20% = 200,000.00, NRANETB tax 25% = 50,000.00;
    # losing 40% = 400,000.00, citizen, above 10,000.00: 20% = 80,000.00;
    # table 40% = 400,000.00 / 5 (seats 2, 3, 5, 6, 7) = 80,000.00 each, tax 16,000.00.
    # The whole reserve 300,000.00 moves to main: main 1,000,000.00 - 1,000,000.00 + 300,000.00.
    got = run_json(tmp_path, capsys, qualifying_example())
    table = [{"seat": s, "role": "table", "gross": "80000.00", "tax": "16000.00",
              "net": "64000.00"} for s in (2, 3, 5, 6, 7)]
    assert got == {
        "qualifies": True,
        "reasons": [],
        "winning_seat": 4, "winning_hand": "FOUR_OF_A_KIND",
        "losing_seat": 1, "losing_hand": "FULL_HOUSE",
        "payout_fraction": "1.00",
        "award": "1000000.00",
        "shares": [
            {"seat": 4, "role": "winning", "gross": "200000.00", "tax": "50000.00",
             "net": "150000.00"},
            {"seat": 1, "role": "losing", "gross": "400000.00", "tax": "80000.00",
             "net": "320000.00"},
            *table,
        ],
        "main_after": "300000.00",
        "reserve_after": "0.00",
    }
    assert list(got) == ["qualifies", "reasons", "winning_seat", "winning_hand", "losing_seat",
                         "losing_hand", "payout_fraction", "award", "shares", "main_after",
                         "reserve_after"]


def test_cli_example_as_printed_does_not_qualify(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # With the 2h on the board seat 4 has only 777AA (three sevens): seat 1's AAATT wins the
    # pot; neither hand is four of a kind, and 777AA is below Aces full of Tens.
    got = run_json(tmp_path, capsys, CLI_EXAMPLE)
    assert got == {
        "qualifies": False,
        "reasons": ["WINNING_HAND_TOO_LOW", "LOSING_HAND_TOO_LOW"],
        "winning_seat": 1, "winning_hand": "FULL_HOUSE",
        "losing_seat": 4, "losing_hand": "FULL_HOUSE",
        "payout_fraction": "0.00",
        "award": "0.00",
        "shares": [],
        "main_after": "1000000.00",
        "reserve_after": "300000.00",
    }


def test_split_taxpayers_and_voids_are_optional(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    case = qualifying_example()
    for key in ("split", "taxpayers", "voids"):
        del case[key]
    got = run_json(tmp_path, capsys, case)
    assert got["shares"][0] == {"seat": 4, "role": "winning", "gross": "200000.00",
                                "tax": "40000.00", "net": "160000.00"}  # now a citizen


def test_every_reason_listed_when_it_does_not_qualify(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    case = qualifying_example()
    case.update(dealt_in=[1, 2, 3, 4], pot="1999.99", voids=["hand_discussed", "fouled_deck"])
    got = run_json(tmp_path, capsys, case)
    assert got["reasons"] == ["NOT_ENOUGH_PLAYERS", "POT_TOO_SMALL", "VOIDED"]
    assert (got["award"], got["shares"]) == ("0.00", [])
    assert (got["main_after"], got["reserve_after"]) == ("1000000.00", "300000.00")


def test_partial_cap_fraction_and_reserve(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    case = qualifying_example()
    case["table_jackpot_rake_cap"] = "25.00"
    got = run_json(tmp_path, capsys, case)
    # 25% of 1,000,000.00 = 250,000.00 paid; 25% of the reserve (75,000.00) moves up
    assert (got["payout_fraction"], got["award"]) == ("0.25", "250000.00")
    assert (got["main_after"], got["reserve_after"]) == ("825000.00", "225000.00")


def test_readable_output_without_json(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_bbj(tmp_path, capsys, qualifying_example())
    assert (code, err) == (0, "")
    assert "QUALIFIES" in out
    assert "seat 4  FOUR_OF_A_KIND" in out
    assert "200,000.00" in out and "nranetb" in out


@pytest.mark.parametrize(("num", "den", "text"), [
    (1, 1, "1.00"), (1, 4, "0.25"), (3333, 10000, "0.3333"), (1, 3, "0.333333"),
    (2, 3, "0.666667"), (0, 1, "0.00"),
])
def test_fraction_text(num: int, den: int, text: str) -> None:
    from fractions import Fraction

    assert fraction_text(Fraction(num, den)) == text


# --- bad input: exit 2, one line naming the field -------------------------------------------

def _with(**changes: Any) -> dict[str, Any]:
    case = qualifying_example()
    case.update(changes)
    return case


def _without(key: str) -> dict[str, Any]:
    case = qualifying_example()
    del case[key]
    return case


BAD_CASES: list[tuple[str, object, str]] = [
    ("unknown card", _with(board=["Ah", "Ad", "Tc", "7s", "Xx"]), "board: card 'Xx'"),
    ("joker", _with(board=["Ah", "Ad", "Tc", "7s", "Jk"]), "board: card Jk"),
    ("duplicate on the board", _with(board=["Ah", "Ad", "Tc", "7s", "Ah"]),
     "board: duplicate card Ah"),
    ("hole card on the board",
     _with(showdown=[{"seat": 1, "hole": ["Ah", "Td"]}, {"seat": 4, "hole": ["7h", "7d"]}]),
     "showdown seat 1 hole: card Ah is also on the board"),
    ("hole card in two hands",
     _with(showdown=[{"seat": 1, "hole": ["As", "7h"]}, {"seat": 4, "hole": ["7h", "7d"]}]),
     "showdown seat 4 hole: card 7h is also in seat 1's hole cards"),
    ("board of 4", _with(board=["Ah", "Ad", "Tc", "7s"]), "board: expected 5 cards, got 4"),
    ("three hole cards",
     _with(showdown=[{"seat": 1, "hole": ["As", "Td", "2c"]}, {"seat": 4, "hole": ["7h", "7d"]}]),
     "showdown seat 1 hole: expected 2 cards, got 3"),
    ("showdown seat not dealt in",
     _with(showdown=[{"seat": 9, "hole": ["As", "Td"]}, {"seat": 4, "hole": ["7h", "7d"]}]),
     "showdown: seat 9 was not dealt in"),
    ("seat shown twice",
     _with(showdown=[{"seat": 4, "hole": ["As", "Td"]}, {"seat": 4, "hole": ["7h", "7d"]}]),
     "showdown: seat 4 is shown twice"),
    ("seat dealt in twice", _with(dealt_in=[1, 2, 2, 4, 5]), "dealt_in: seat 2 is listed twice"),
    ("seat not a number", _with(dealt_in=[1, "2", 3, 4, 5]), "dealt_in: \"2\" is not a seat"),
    ("unknown taxpayer class", _with(taxpayers={"4": "tourist"}),
     "taxpayers: seat 4: unknown taxpayer class 'tourist'"),
    ("taxpayer seat not dealt in", _with(taxpayers={"9": "citizen"}),
     "taxpayers: seat 9 was not dealt in"),
    ("unknown void code", _with(voids=["dealer_sneezed"]),
     "voids: unknown void reason 'dealer_sneezed'"),
    ("malformed money", _with(pot="25OO.00"), "pot: '25OO.00' is not a number"),
    ("money with 3 decimals", _with(main_jackpot="1000000.005"),
     "main_jackpot: '1000000.005' has more than two decimals"),
    ("negative money", _with(reserve_jackpot="-1.00"), "reserve_jackpot: '-1.00' is negative"),
    ("money as an object", _with(big_blind={"amount": 100}), "big_blind: must be an amount"),
    ("cap above room maximum", _with(table_jackpot_rake_cap="150.00"),
     "table_jackpot_rake_cap: 150.00 is above the room maximum 100.00"),
    ("zero room maximum", _with(room_max_jackpot_rake="0.00", table_jackpot_rake_cap="0.00"),
     "must be more than 0.00"),
    ("malformed fraction", _with(split={"winning": "0.2x", "losing": "0.40", "table": "0.40"}),
     "split.winning: '0.2x' is not a number"),
    ("fraction above 1", _with(split={"winning": "1.20", "losing": "0.40", "table": "0.40"}),
     "split.winning: '1.20' must be between 0 and 1"),
    ("split not adding to 1",
     _with(split={"winning": "0.20", "losing": "0.40", "table": "0.30"}),
     "split: winning + losing + table must add up to 1, not 0.9"),
    ("split missing a part", _with(split={"winning": "0.20", "losing": "0.80"}),
     "split: missing key 'table'"),
    ("missing key", _without("pot"), "case: missing key 'pot'"),
    ("unknown key", _with(spilt={}), "case: unknown key 'spilt'"),
    ("not an object", [1, 2], "case: must be a JSON object"),
    ("not JSON", "{\"pot\": ", "not valid JSON"),
    ("hole not an array", _with(showdown=[{"seat": 1, "hole": "As Td"}]),
     "showdown seat 1 hole: must be a JSON array"),
]


@pytest.mark.parametrize(("case", "message"), [(c, m) for _, c, m in BAD_CASES],
                         ids=[name for name, _, _ in BAD_CASES])
def test_bad_input_exits_2_with_one_line_naming_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: object, message: str) -> None:
    line = refusal(tmp_path, capsys, case)
    assert message in line


# Seats 1 (As Td) and 2 (Ac Th) both make AAATT on Ah Ad Tc 7s 7c, seat 4 (7h 7d) 7777A.
TIE_SHOWDOWN = [{"seat": 1, "hole": ["As", "Td"]}, {"seat": 2, "hole": ["Ac", "Th"]},
                {"seat": 4, "hole": ["7h", "7d"]}]


def test_a_tie_for_the_bad_beat_hand_is_split_by_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # RULES.md 6.6, tie = split. Main 100,000.01, cap 100 of 100: award 100,000.01.
    # winning 20%: 20,000.002 -> 20,000.00 to seat 4 (NRANETB: 25% = 5,000.00);
    # losing 40%: 40,000.004 -> 40,000.00, / 2 -> 20,000.00 each to seats 1 and 2 (20%:
    # 4,000.00); table 40%: 40,000.004 / 4 (seats 3, 5, 6, 7) = 10,000.001 -> 10,000.00 each,
    # not above 10,000.00: no tax.  Paid 100,000.00, 0.01 left in main; reserve 300,000.00 up.
    got = run_json(tmp_path, capsys, _with(showdown=TIE_SHOWDOWN, main_jackpot="100000.01"))
    assert (got["qualifies"], got["winning_seat"], got["losing_seat"]) == (True, 4, 1)
    assert [(s["seat"], s["role"], s["gross"], s["tax"]) for s in got["shares"]] == [
        (4, "winning", "20000.00", "5000.00"), (1, "losing", "20000.00", "4000.00"),
        (2, "losing", "20000.00", "4000.00"), (3, "table", "10000.00", "0.00"),
        (5, "table", "10000.00", "0.00"), (6, "table", "10000.00", "0.00"),
        (7, "table", "10000.00", "0.00")]
    assert (got["award"], got["main_after"], got["reserve_after"]) == (
        "100000.01", "300000.01", "0.00")
    assert list(got) == ["qualifies", "reasons", "winning_seat", "winning_hand", "losing_seat",
                         "losing_hand", "payout_fraction", "award", "shares", "main_after",
                         "reserve_after"]  # a tie adds no key to CLI.md's output
    case = _with(showdown=TIE_SHOWDOWN, tie="split", main_jackpot="100000.01")
    assert run_json(tmp_path, capsys, case) == got
    code, out, err = run_bbj(tmp_path, capsys, case)
    assert (code, err) == (0, "")
    assert "losing   seats 1 and 2 (tie, split)  FULL_HOUSE" in out
    assert "left in main (rounding) 0.01" in out


def test_a_tie_under_the_refuse_policy_exits_2_naming_both_seats(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refusal(tmp_path, capsys, _with(showdown=TIE_SHOWDOWN, tie="refuse"))
    assert "showdown: seats 1 and 2 tie for the losing hand (FULL_HOUSE)" in line
    assert "tie policy is refuse" in line
    # no tie: refuse changes nothing
    assert run_json(tmp_path, capsys, _with(tie="refuse")) == run_json(
        tmp_path, capsys, qualifying_example())


@pytest.mark.parametrize("value", ["Split", "toss", "", 1, None, ["split"]])
def test_a_tie_policy_other_than_split_or_refuse_is_refused_by_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], value: object) -> None:
    line = refusal(tmp_path, capsys, _with(tie=value))
    assert "tie: " in line and 'is not a tie policy (use "split" or "refuse")' in line


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rules", "bbj", str(tmp_path / "nope.json"), "--json"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "no such file" in err and len(err.strip().splitlines()) == 1
