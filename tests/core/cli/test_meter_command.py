"""`podium rules meter SCENARIO.json` (CLI.md; RULES.md sections 3 and 4)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main
from core.cli.meter_command import parse_scenario, replay
from core.kernel.money import UNITS_PER_CENT
from core.tablegames.rules.paytables import load_paytables

CLI_EXAMPLE: dict[str, Any] = {
    "paytable": "FPGPP-WA01",
    "levels": {"MAIN": {"seed": "10000.00", "meter": "12345.67", "reserve": "250.00",
                        "contribution_rate": "0.20", "reserve_rate": "0.02"}},
    "rounds": [
        {"wagers": {"1": "1.00", "2": "1.00", "6": "1.00"},
         "hits": {"2": "SF7_NATURAL", "6": "RF_ROYAL_MATCH"}},
    ],
}

ML2_LEVELS: dict[str, Any] = {
    "MEGA": {"seed": "25000.00", "meter": "30000.00", "reserve": "100.00",
             "contribution_rate": "0.06", "reserve_rate": "0.01"},
    "MAJOR": {"seed": "2500.00", "meter": "3000.00", "reserve": "50.00",
              "contribution_rate": "0.05", "reserve_rate": "0.01"},
    "MINOR": {"seed": "500.00", "meter": "600.00", "reserve": "10.00",
              "contribution_rate": "0.10", "reserve_rate": "0.01"},
}


def run_meter(tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: object,
              *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "scenario.json"
    path.write_text(scenario if isinstance(scenario, str) else json.dumps(scenario))
    code = main(["rules", "meter", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: object) -> Any:
    code, out, err = run_meter(tmp_path, capsys, scenario, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: object) -> str:
    code, out, err = run_meter(tmp_path, capsys, scenario, "--json")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("podium rules meter: ")
    return lines[0]


# --- the CLI.md worked example ----------------------------------------------------------------

def test_cli_worked_example_is_reproduced_exactly(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(tmp_path, capsys, CLI_EXAMPLE)
    assert doc == {"rounds": [{
        "payouts": [
            {"seat": 6, "hand": "RF_ROYAL_MATCH", "amount": "6173.13", "source": "meter",
             "level": "MAIN"},
            {"seat": 2, "hand": "SF7_NATURAL", "amount": "6173.14", "source": "meter",
             "level": "MAIN"},
        ],
        "levels": {"MAIN": {"meter": "10250.06", "reserve": "0.00"}},
    }]}


def test_readable_table_without_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_meter(tmp_path, capsys, CLI_EXAMPLE)
    assert (code, err) == (0, "")
    assert "6,173.13" in out and "6,173.14" in out and "10,250.06" in out
    assert out.index("RF_ROYAL_MATCH") < out.index("SF7_NATURAL")  # paid order
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


# --- arithmetic through the command -----------------------------------------------------------

def test_fraction_of_a_cent_is_kept_between_rounds(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # 0.5% of $1 is half a cent: shown 10000.00 after one round, 10000.01 after two.
    scenario = {"paytable": "FPGPP-WA01",
                "levels": {"MAIN": {"seed": "10000.00", "meter": "10000.00", "reserve": "0.00",
                                    "contribution_rate": "0.005", "reserve_rate": "0.000001"}},
                "rounds": [{"wagers": {"3": "1.00"}}, {"wagers": {"4": "1.00"}, "hits": {}}]}
    doc = run_json(tmp_path, capsys, scenario)
    shown = [r["levels"]["MAIN"] for r in doc["rounds"]]
    assert shown == [{"meter": "10000.00", "reserve": "0.00"},
                     {"meter": "10000.01", "reserve": "0.00"}]


def test_fixed_pays_come_from_the_tray_and_leave_the_meter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # RULES.md section 3: FPGPP-WA01 FIVE_ACES $2,500, FULL_HOUSE $6.
    scenario = {**CLI_EXAMPLE, "rounds": [
        {"wagers": {"1": "1.00", "3": "1.00"}, "hits": {"1": "FULL_HOUSE", "3": "FIVE_ACES"}}]}
    doc = run_json(tmp_path, capsys, scenario)
    rnd = doc["rounds"][0]
    assert rnd["payouts"] == [
        {"seat": 3, "hand": "FIVE_ACES", "amount": "2500.00", "source": "tray", "level": None},
        {"seat": 1, "hand": "FULL_HOUSE", "amount": "6.00", "source": "tray", "level": None},
    ]
    # 12345.67 + 2 x 0.20; reserve 250.00 + 2 x 0.02.
    assert rnd["levels"] == {"MAIN": {"meter": "12346.07", "reserve": "250.04"}}


def test_two_percentage_hits_each_take_what_the_previous_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = {"paytable": "FPGPP-WA01",
                "levels": {"MAIN": {"seed": "10000.00", "meter": "1000.00", "reserve": "0.00",
                                    "contribution_rate": "0.20", "reserve_rate": "0"}},
                "rounds": [{"wagers": {"1": "1.00", "3": "1.00"},
                            "hits": {"1": "RF_ROYAL_MATCH", "3": "RF_ROYAL_MATCH"}}]}
    rnd = run_json(tmp_path, capsys, scenario)["rounds"][0]
    # 1000.40: seat 3 (dealer's right) 50% = 500.20; seat 1 50% of 500.20 = 250.10.
    assert [(p["seat"], p["amount"]) for p in rnd["payouts"]] == [(3, "500.20"), (1, "250.10")]
    assert rnd["levels"]["MAIN"]["meter"] == "250.10"


def test_ml2_hits_pay_their_own_level_and_the_tray(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    scenario = {"paytable": "FPGPP-ML2", "levels": ML2_LEVELS, "rounds": [
        {"wagers": {"1": "1.00", "4": "1.00", "5": "1.00"},
         "hits": {"5": "SF7_JOKER", "4": "ROYAL_FLUSH", "1": "STRAIGHT_FLUSH"}}]}
    rnd = run_json(tmp_path, capsys, scenario)["rounds"][0]
    assert rnd["payouts"] == [
        {"seat": 5, "hand": "SF7_JOKER", "amount": "30000.18", "source": "meter", "level": "MEGA"},
        {"seat": 4, "hand": "ROYAL_FLUSH", "amount": "600.30", "source": "meter",
         "level": "MINOR"},
        # 100 for 1 on a $1 wager.
        {"seat": 1, "hand": "STRAIGHT_FLUSH", "amount": "100.00", "source": "tray",
         "level": None},
    ]
    assert rnd["levels"] == {
        "MEGA": {"meter": "25100.03", "reserve": "0.00"},   # seed + reserve 100.00 + 0.03
        "MAJOR": {"meter": "3000.15", "reserve": "50.03"},  # untouched but for contributions
        "MINOR": {"meter": "510.03", "reserve": "0.00"},
    }


# --- refusals ---------------------------------------------------------------------------------

def with_round(**rnd: Any) -> dict[str, Any]:
    return {**CLI_EXAMPLE, "rounds": [{"wagers": {"1": "1.00"}}, rnd]}


@pytest.mark.parametrize(
    ("scenario", "fragments"),
    [
        (with_round(wagers={"1": "1.00"}, hits={"2": "SF7_NATURAL"}),
         ("round 2, seat 2", "without a", "wager")),
        (with_round(wagers={"2": "1.00"}, hits={"2": "FLUSH"}),
         ("round 2, seat 2", "'FLUSH'", "not paid", "FPGPP-WA01")),
        (with_round(wagers={"2": "1.00"}, hits={"2": "PAIR_OF_KINGS"}),
         ("round 2, seat 2", "PAIR_OF_KINGS")),
        ({**CLI_EXAMPLE, "paytable": "FPGPP-XX"}, ("paytable", "'FPGPP-XX'")),
        ({**CLI_EXAMPLE, "paytable": "PT1"}, ("paytable", "PT1", "bonus")),
        ({**CLI_EXAMPLE, "levels": {**CLI_EXAMPLE["levels"], "MEGA": {}}},
         ("levels.MEGA", "unknown level")),
        ({**CLI_EXAMPLE, "paytable": "FPGPP-ML2"}, ("levels.MAIN", "unknown level")),
        ({**CLI_EXAMPLE, "levels": {"MAIN": {**CLI_EXAMPLE["levels"]["MAIN"],
                                             "meter": "12.345"}}},
         ("levels.MAIN.meter", "two decimals")),
        ({**CLI_EXAMPLE, "levels": {"MAIN": {**CLI_EXAMPLE["levels"]["MAIN"],
                                             "seed": "lots"}}},
         ("levels.MAIN.seed", "not a number")),
        ({**CLI_EXAMPLE, "levels": {"MAIN": {**CLI_EXAMPLE["levels"]["MAIN"],
                                             "contribution_rate": "0.1234567"}}},
         ("levels.MAIN.contribution_rate", "decimals")),
        ({**CLI_EXAMPLE, "levels": {"MAIN": {**CLI_EXAMPLE["levels"]["MAIN"],
                                             "reserve_rate": "1.5"}}},
         ("levels.MAIN.reserve_rate",)),
        ({**CLI_EXAMPLE, "levels": {"MAIN": {"seed": "1.00", "meter": "1.00", "reserve": "0",
                                             "contribution_rate": "0.2"}}},
         ("levels.MAIN", "'reserve_rate'", "missing")),
        ({"paytable": "FPGPP-WA01", "levels": CLI_EXAMPLE["levels"]}, ("scenario", "'rounds'")),
        ({**CLI_EXAMPLE, "round": []}, ("scenario", "unknown key 'round'")),
        (with_round(wagers={"1": "-1.00"}), ("round 2 wagers, seat 1", "negative")),
        (with_round(wagers={"1": "0.00"}), ("round 2 wagers, seat 1", "more than 0.00")),
        (with_round(wagers={"seat1": "1.00"}), ("round 2 wagers", "'seat1'")),
        (with_round(wagers={"1": 1.555}), ("round 2 wagers, seat 1", "not the JSON number 1.555")),
        (with_round(wagers={"1": "1.555"}), ("round 2 wagers, seat 1", "two decimals")),
        (with_round(hits={"1": "SF7_NATURAL"}), ("round 2", "'wagers'", "missing")),
        ({**CLI_EXAMPLE, "rounds": {"1": {}}}, ("rounds", "array")),
        ([1, 2], ("scenario", "object")),
        ("{\"paytable\": ", ("not valid JSON", "line 1")),
        ('{"paytable": "FPGPP-WA01", "paytable": "FPGPP-WA01"}', ("'paytable'", "twice")),
    ],
)
def test_bad_scenarios_are_refused_with_one_line_naming_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: object,
    fragments: tuple[str, ...]
) -> None:
    line = refusal(tmp_path, capsys, scenario)
    for f in fragments:
        assert f in line, line


def test_missing_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rules", "meter", str(tmp_path / "nope.json")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "nope.json" in err and "no such file" in err


# --- conservation over random scenarios -------------------------------------------------------

rounds_strategy = st.lists(
    st.fixed_dictionaries({
        "wagers": st.dictionaries(st.sampled_from("123456"), st.sampled_from(["1.00", "5.00"]),
                                  min_size=1),
        "hits": st.dictionaries(st.sampled_from("123456"),
                                st.sampled_from(["SF7_NATURAL", "RF_ROYAL_MATCH", "SF7_JOKER",
                                                 "FIVE_ACES", "FULL_HOUSE"])),
    }),
    max_size=8,
)


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=60)
@given(rounds=rounds_strategy,
       rate=st.integers(min_value=0, max_value=900_000).map(lambda n: Decimal(n).scaleb(-6)),
       meter=st.integers(min_value=0, max_value=10**8))
def test_nothing_is_created_or_lost(rounds: list[dict[str, Any]], rate: Decimal,
                                    meter: int) -> None:
    # Keep only hits on seats that wagered (the others are refused, tested above).
    for r in rounds:
        r["hits"] = {s: h for s, h in r["hits"].items() if s in r["wagers"]}
    data = {"paytable": "FPGPP-WA01",
            "levels": {"MAIN": {"seed": "10000.00", "meter": f"{meter // 100}.{meter % 100:02d}",
                                "reserve": "0.00", "contribution_rate": str(rate),
                                "reserve_rate": "0.01"}},
            "rounds": rounds}
    scenario = parse_scenario(data, load_paytables())
    results = replay(scenario)
    start = scenario.start["MAIN"]
    total_in = start.meter_units + start.reserve_units
    for rnd, res in zip(scenario.rounds, results, strict=True):
        wagered = sum(rnd.wagers.values())
        total_in += wagered * UNITS_PER_CENT * (rate + Decimal("0.01"))  # contributions
        full = sum(1 for h in rnd.hits.values() if h == "SF7_NATURAL")
        total_in += full * 10_000_00 * UNITS_PER_CENT  # reseeds
        paid = sum(p.amount_cents for p in res.payouts if p.source == "meter")
        total_in -= paid * UNITS_PER_CENT
        end = res.levels["MAIN"]
        assert end.meter_units >= 0
        assert end.meter_units + end.reserve_units == total_in
        if full:  # the reseed emptied the reserve, after this round's contributions
            assert end.reserve_units == 0


def test_unlisted_hand_whose_pay_depends_on_the_cards_is_refused_naming_both_pays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # RULES.md 3: on FPGPP-WA07 a 7-card straight flush pays as a royal flush from 8 to Ace, and
    # as a straight flush otherwise: without the cards the hit can not be priced.
    scenario = {"paytable": "FPGPP-WA07",
                "levels": {"MAIN": {"seed": "10000.00", "meter": "10000.00", "reserve": "0.00",
                                    "contribution_rate": "0.20", "reserve_rate": "0.02"}},
                "rounds": [{"wagers": {"3": "1.00"}, "hits": {"3": "SF7_NATURAL"}}]}
    message = refusal(tmp_path, capsys, scenario)
    assert "round 1, seat 3" in message
    assert "ROYAL_FLUSH or STRAIGHT_FLUSH depending on the cards" in message


def test_unlisted_hand_that_always_makes_a_listed_one_pays_as_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # RULES.md 3: a royal flush with a royal match is always a royal flush: $500 on FPGPP-WA07
    scenario = {"paytable": "FPGPP-WA07",
                "levels": {"MAIN": {"seed": "10000.00", "meter": "10000.00", "reserve": "0.00",
                                    "contribution_rate": "0.20", "reserve_rate": "0.02"}},
                "rounds": [{"wagers": {"3": "1.00"}, "hits": {"3": "RF_ROYAL_MATCH"}}]}
    (payout,) = run_json(tmp_path, capsys, scenario)["rounds"][0]["payouts"]
    assert (payout["amount"], payout["source"]) == ("500.00", "tray")
