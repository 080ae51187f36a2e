"""``podium rules classify`` and ``podium rules paytables`` (CLI.md), run through
``core.cli.dispatch`` as a user would."""

from __future__ import annotations

import json
from typing import Any

import pytest

import core.cli.dispatch as cli_main
from core.cli import main

MINE = ("classify", "paytables")


@pytest.fixture(autouse=True)
def only_rules_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build the parser with this module's commands only, so a subcommand another module
    owns (imported eagerly by core.cli) can not break these tests."""
    monkeypatch.setattr(cli_main, "COMMANDS_RULES",
                        {k: v for k, v in cli_main.COMMANDS_RULES.items() if k in MINE})
    monkeypatch.setattr(cli_main, "COMMANDS_TOP", {})


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)  # exactly one JSON document


def run_bad(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line, never a traceback
    assert "Traceback" not in err
    return lines[0]


# ------------------------------------------------------------------------------------------
# classify

def test_classify_json_names_the_hand_and_canonical_cards(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "rules", "classify", "jk", "ac", "AD", "A♥", "As", "10c", "3d")
    assert doc == {"hand": "FIVE_ACES", "cards": ["Jk", "Ac", "Ad", "Ah", "As", "Tc", "3d"]}


def test_classify_default_joker_mode_is_semi(capsys: pytest.CaptureFixture[str]) -> None:
    hand = ["Jk", "Kc", "Kd", "2h", "5s", "8c", "9d"]
    assert run_json(capsys, "rules", "classify", *hand)["hand"] == "NOTHING"
    assert run_json(capsys, "rules", "classify", "--joker", "semi", *hand)["hand"] == "NOTHING"
    assert run_json(capsys, "rules", "classify", "--joker", "wild",
                    *hand)["hand"] == "THREE_OF_A_KIND"


def test_classify_joker_option_after_the_cards(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "rules", "classify", "As", "Ks", "Qs", "Js", "Ts", "Kh", "Jk",
                   "--joker", "wild")
    assert doc["hand"] == "RF_ROYAL_MATCH"


def test_classify_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "classify", "8s", "9s", "Ts", "Js", "Qs", "Ks", "As")
    assert (code, err) == (0, "")
    assert "SF7_NATURAL" in out
    assert "8s 9s Ts Js Qs Ks As" in out
    assert "ROYAL_FLUSH" in out  # the other hands the cards make
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


@pytest.mark.parametrize(("argv", "named"), [
    (["As", "Ks", "Qs", "Js", "Ts", "Kh"], "expected 7 cards, got 6"),
    (["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh", "2c"], "expected 7 cards, got 8"),
    ([], "expected 7 cards, got 0"),
    (["As", "Ks", "Qs", "Js", "Ts", "Kh", "as"], "duplicate card As"),
    (["As", "Ks", "Qs", "Js", "Ts", "Kh", "Jk", "joker"], "duplicate"),
    (["As", "Ks", "Qs", "Js", "Ts", "Kh", "Xs"], "unknown rank"),
    (["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qx"], "unknown suit"),
    (["As", "Ks", "Qs", "Js", "Ts", "Kh", "Q"], "not a card"),
])
def test_classify_bad_cards_exit_2_naming_the_problem(
        capsys: pytest.CaptureFixture[str], argv: list[str], named: str) -> None:
    line = run_bad(capsys, "rules", "classify", *argv, "--json")
    assert line.startswith("podium rules classify: ")
    assert named in line


def test_classify_unknown_joker_mode_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["rules", "classify", "--joker", "bug", "As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--joker" in err and "bug" in err


# ------------------------------------------------------------------------------------------
# paytables

def test_paytables_json_lists_every_table_once(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "rules", "paytables")
    ids = [t["id"] for t in doc]
    assert ids == ["PT1", "PT2", "PT3", "PT4", "PT6", "PT7", "FPGPP-ML2", "FPGPP-WA01",
                   "FPGPP-WA02", "FPGPP-WA03", "FPGPP-WA04", "FPGPP-WA07", "FPGPP-WA08"]
    for t in doc:
        assert set(t) >= {"id", "kind", "joker", "wager", "name", "levels", "pays",
                          "three_pair", "envy", "aliases"}
        assert t["kind"] in ("bonus", "progressive")
        assert t["joker"] in ("semi", "wild")


def test_paytables_json_bonus_table(capsys: pytest.CaptureFixture[str]) -> None:
    pt1 = next(t for t in run_json(capsys, "rules", "paytables") if t["id"] == "PT1")
    assert pt1["wager"] is None and pt1["three_pair"] == "push" and pt1["levels"] == []
    assert pt1["pays"][0] == {"hand": "SF7_NATURAL", "odds": 5000}
    assert pt1["pays"][-1] == {"hand": "STRAIGHT", "odds": 2}
    assert pt1["envy"]["SF7_NATURAL"] == "1000.00"
    assert pt1["envy"]["FOUR_OF_A_KIND"] == "5.00"
    assert "FULL_HOUSE" not in pt1["envy"]


def test_paytables_json_progressive_tables(capsys: pytest.CaptureFixture[str]) -> None:
    doc = {t["id"]: t for t in run_json(capsys, "rules", "paytables")}
    wa01 = doc["FPGPP-WA01"]
    assert (wa01["wager"], wa01["levels"], wa01["envy"], wa01["three_pair"]) == (
        "1.00", ["MAIN"], None, None)
    rf_match = next(p for p in wa01["pays"] if p["hand"] == "RF_ROYAL_MATCH")
    assert (rf_match["level"], rf_match["percent"], rf_match["source"]) == ("MAIN", "50.00",
                                                                           "meter")
    five = next(p for p in wa01["pays"] if p["hand"] == "FIVE_ACES")
    assert (five["amount"], five["source"], five["secondary_verification"],
            five["authorization"]) == ("2500.00", "tray", True, "supervisor")
    ml2 = doc["FPGPP-ML2"]
    assert ml2["levels"] == ["MEGA", "MAJOR", "MINOR"]
    assert ml2["aliases"] == ["FUPGPP-ML02"]
    sf = next(p for p in ml2["pays"] if p["hand"] == "STRAIGHT_FLUSH")
    assert sf["for_one"] == 100
    assert doc["FPGPP-WA03"]["joker"] == "wild"
    assert doc["FPGPP-WA03"]["aliases"] == ["FUPGPP-01"]


def test_paytables_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "paytables")
    assert (code, err) == (0, "")
    assert "PT1" in out and "FPGPP-ML2" in out and "FUPGPP-ML02" in out
    assert "5000 to 1" in out
    assert "100% of MEGA" in out
    assert "100 for 1 (100.00)" in out


def test_paytables_broken_resource_exits_2(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import core.cli.rules_commands as commands
    from core.tablegames.rules.paytables import PaytableError

    def broken() -> None:
        raise PaytableError("paytables/PT1.toml: pays[0].odds: 'x' must be a whole number")

    monkeypatch.setattr(commands, "load_paytables", broken)
    line = run_bad(capsys, "rules", "paytables", "--json")
    assert "PT1.toml" in line and "pays[0].odds" in line
