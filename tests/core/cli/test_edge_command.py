"""``podium rules edge`` (CLI.md; RULES.md sections 2 and 3; docs/edge.md), run through
``core.cli.dispatch`` as a user would, and its arithmetic checked against brute force over a
reduced deck (every hand dealt and paid by ``classify`` / ``Paytable.paying``)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

import core.cli.dispatch as cli_main
from core.cli import main
from core.kernel.cards import JOKER, SUITS, Card
from core.tablegames.rules.edge import bonus_edge, progressive_edge
from core.tablegames.rules.enumerate import FULL_DECK_HANDS, count_hands, default_cache_dir
from core.tablegames.rules.fortune import HAND_IDS, NOTHING, classify
from core.tablegames.rules.paytables import Paytable, load_paytables

TABLES = load_paytables()
CLI_KEYS = {"paytable", "joker", "total_hands", "counts", "return", "house_edge", "others",
            "house_edge_with_envy"}


@pytest.fixture(autouse=True)
def only_edge_command(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                      ) -> None:
    """Only this command in the parser (another module's can not break these tests), and
    a private result cache shared by the tests of this file."""
    monkeypatch.setattr(cli_main, "COMMANDS_RULES",
                        {k: v for k, v in cli_main.COMMANDS_RULES.items() if k == "edge"})
    monkeypatch.setattr(cli_main, "COMMANDS_TOP", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["rules", "edge", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def edge(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def F(text: str) -> Fraction:  # noqa: N802 - reads like a constructor
    return Fraction(Decimal(text))


def close(text: str, exact: Fraction) -> bool:
    """A printed fraction (12 significant digits) equals the exact value."""
    return abs(F(text) - exact) <= abs(exact) * Fraction(1, 10**11)


# ------------------------------------------------------------------------------------------
# Bonus tables


def test_bonus_json_has_the_cli_keys_and_exact_counts(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    doc = edge(capsys, "PT1")
    assert set(doc) >= CLI_KEYS
    assert doc["paytable"] == "PT1" and doc["joker"] == "semi" and doc["others"] == 5
    assert doc["total_hands"] == FULL_DECK_HANDS
    assert list(doc["counts"]) == [*HAND_IDS, NOTHING]
    assert sum(doc["counts"].values()) == FULL_DECK_HANDS
    assert doc["counts"]["SF7_NATURAL"] == 32
    for key in ("return", "house_edge", "house_edge_with_envy"):
        digits = doc[key].lstrip("0.").replace(".", "")
        assert len(digits) >= 6, (key, doc[key])


def test_bonus_return_pays_odds_plus_the_wager_and_three_pair_as_the_table_says(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = edge(capsys, "PT1")
    counts = doc["counts"]
    # RULES.md 2, Paytable 1: 5000 ... 2 to 1 for SF7_NATURAL ... STRAIGHT; three pair push
    odds = dict(zip(HAND_IDS[:11], (5000, 1000, 750, 250, 100, 50, 20, 5, 4, 3, 2),
                    strict=True))
    returned = sum(counts[h] * (o + 1) for h, o in odds.items()) + counts["THREE_PAIR"]
    exact = Fraction(returned, FULL_DECK_HANDS)
    assert close(doc["return"], exact)
    assert close(doc["house_edge"], 1 - exact)


def test_three_pair_push_returns_the_wager_and_loses_does_not() -> None:
    pt1 = TABLES["PT1"]
    losing = dataclasses.replace(pt1, three_pair="loses")
    counts = count_hands("semi")
    push, lose = bonus_edge(pt1, counts), bonus_edge(losing, counts)
    assert push.ret - lose.ret == Fraction(counts.best()["THREE_PAIR"], FULL_DECK_HANDS)


def test_unlisted_hand_pays_nothing_on_a_bonus_table() -> None:
    pt1 = TABLES["PT1"]
    no_flush = dataclasses.replace(pt1, pays=tuple(p for p in pt1.pays if p.hand != "FLUSH"))
    counts = count_hands("semi")
    drop = bonus_edge(pt1, counts).ret - bonus_edge(no_flush, counts).ret
    assert drop == Fraction(counts.best()["FLUSH"] * (4 + 1), FULL_DECK_HANDS)


def test_envy_is_paid_per_other_players_qualifying_hand_per_5_dollar_wager(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = edge(capsys, "PT2", "--others", "3")
    counts = doc["counts"]
    # RULES.md 2, Paytable 2 envy: 5000, 1000, 500, 250, 50, 20, 5 dollars per $5 wager;
    # each other hand is 7 random cards of the same 53 (linearity of expectation)
    envy = dict(zip(HAND_IDS[:7], (5000, 1000, 500, 250, 50, 20, 5), strict=True))
    per_other = Fraction(sum(counts[h] * d for h, d in envy.items()), FULL_DECK_HANDS) / 5
    assert close(doc["envy_return_per_other"], per_other)
    assert close(doc["house_edge_with_envy"], F(doc["house_edge"]) - 3 * per_other)


def test_no_other_players_means_no_envy(capsys: pytest.CaptureFixture[str]) -> None:
    doc = edge(capsys, "PT4", "--others", "0")
    assert doc["house_edge_with_envy"] == doc["house_edge"]


def test_envy_grows_linearly_with_the_other_players() -> None:
    counts = count_hands("semi")
    edges = [bonus_edge(TABLES["PT6"], counts, others=n).house_edge_with_envy
             for n in range(6)]
    steps = {a - b for a, b in itertools.pairwise(edges)}
    assert len(steps) == 1 and steps.pop() > 0


def test_default_others_is_the_five_a_pai_gow_table_seats_besides_the_player(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert edge(capsys, "PT3") == edge(capsys, "PT3", "--others", "5")


def test_fixed_envy_on_a_bigger_wager_is_a_smaller_share_proportional_is_not(
        capsys: pytest.CaptureFixture[str]) -> None:
    five = edge(capsys, "PT7")
    ten = edge(capsys, "PT7", "--wager", "10.00")
    scaled = edge(capsys, "PT7", "--wager", "10.00", "--envy-scale", "proportional")
    assert five["house_edge"] == ten["house_edge"]
    assert close(ten["envy_return_per_other"], F(five["envy_return_per_other"]) / 2)
    assert scaled["house_edge_with_envy"] == five["house_edge_with_envy"]


def test_bonus_return_equals_brute_force_over_a_reduced_deck() -> None:
    ranks = (9, 10, 11, 12, 13, 14)
    deck = [Card(r, s) for s in SUITS for r in ranks] + [JOKER]
    counts = count_hands("semi", ranks=ranks, use_cache=False)
    for table in (TABLES["PT1"], TABLES["PT2"]):
        returned = envy = hands = 0
        for hand in itertools.combinations(deck, 7):
            best = classify(hand, "semi")
            pay = table.pay_for(best)
            hands += 1
            if pay is not None:
                returned += (pay.odds or 0) + 1
                envy += pay.envy_cents or 0
            elif best == "THREE_PAIR" and table.three_pair == "push":
                returned += 1
        result = bonus_edge(table, counts, others=2)
        assert result.ret == Fraction(returned, hands)
        assert result.house_edge_with_envy == 1 - Fraction(returned, hands) \
            - 2 * Fraction(envy, hands * 500)


# ------------------------------------------------------------------------------------------
# Progressive tables


def _brute_progressive(table: Paytable, ranks: tuple[int, ...],
                       meters: dict[str, int]) -> Fraction:
    deck = [Card(r, s) for s in SUITS for r in ranks] + [JOKER]
    assert table.wager_cents is not None
    paid = hands = 0
    for hand in itertools.combinations(deck, 7):
        hands += 1
        pay = table.paying(hand)
        if pay is None:
            continue
        if pay.fraction is not None:
            assert pay.level is not None
            num, den = pay.fraction.as_integer_ratio()
            paid += meters[pay.level] * num // den  # rounded down to the cent
        else:
            paid += table.fixed_cents(pay)
    return Fraction(paid, hands * table.wager_cents)


@pytest.mark.parametrize("pid", ["FPGPP-WA01", "FPGPP-WA07", "FPGPP-ML2", "FPGPP-WA03"])
def test_progressive_return_equals_brute_force_paying_the_best_listed_hand(pid: str) -> None:
    table = TABLES[pid]
    ranks = (9, 10, 11, 12, 13, 14)  # royals, royal matches, 7-card SF with joker, 5 aces
    meters = dict(zip(table.levels, (1_234_567, 345_679, 50_001), strict=False))
    counts = count_hands(table.joker, ranks=ranks, use_cache=False)
    result = progressive_edge(table, counts, meters=[meters])
    assert result.points[0].ret == _brute_progressive(table, ranks, meters)


def test_unlisted_hand_pays_as_the_best_listed_hand_it_also_makes(
        capsys: pytest.CaptureFixture[str]) -> None:
    # FPGPP-ML2 lists no royal match: it pays the MINOR as a royal flush (RULES.md 3)
    doc = edge(capsys, "FPGPP-ML2")
    counts, paid = doc["counts"], doc["pay_counts"]
    assert "RF_ROYAL_MATCH" not in paid
    assert paid["ROYAL_FLUSH"] == counts["ROYAL_FLUSH"] + counts["RF_ROYAL_MATCH"]
    assert sum(paid.values()) == FULL_DECK_HANDS
    # FPGPP-WA07: 7-card straight flushes 8..A (natural or with joker) pay as royals
    wa07 = edge(capsys, "FPGPP-WA07")["pay_counts"]
    # natural 8..A: 1 per suit.  With joker, 6 suited cards make a royal (the joker
    # completing it) when at least 4 of T J Q K A are among them: any 6 of 8..A (7 sets),
    # and 7-9-T-J-Q-K, 7-8-T-J-Q-K (8-9-T-J-Q-K is one of the 7 already)
    sf7_royal = 4 * 1 + 4 * (7 + 2)
    assert wa07["ROYAL_FLUSH"] == counts["ROYAL_FLUSH"] + counts["RF_ROYAL_MATCH"] + sf7_royal


def test_progressive_return_at_a_meter_rounds_each_share_down_to_the_cent(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = edge(capsys, "FPGPP-WA01", "--meter", "10000.01")
    paid = doc["pay_counts"]
    # 100% -> 10000.01, 50% -> 5000.00 (not 5000.005), 25% -> 2500.00; fixed from the tray
    cents = (paid["SF7_NATURAL"] * 1_000_001 + paid["RF_ROYAL_MATCH"] * 500_000
             + paid["SF7_JOKER"] * 250_000 + paid["FIVE_ACES"] * 250_000
             + paid["ROYAL_FLUSH"] * 20_000 + paid["STRAIGHT_FLUSH"] * 10_000
             + paid["FOUR_OF_A_KIND"] * 7_500 + paid["FULL_HOUSE"] * 600)
    exact = Fraction(cents, FULL_DECK_HANDS * 100)
    assert doc["meters"][0]["meter"] == {"MAIN": "10000.01"}
    assert close(doc["return"], exact)
    assert close(doc["house_edge"], 1 - exact)
    assert doc["house_edge_with_envy"] is None  # no envy on a progressive


def test_break_even_meter_is_the_smallest_meter_returning_the_wager(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = edge(capsys, "FPGPP-WA03")
    be = doc["break_even_meter"]
    cents = int(Decimal(be) * 100)
    at = edge(capsys, "FPGPP-WA03", "--meter", be,
              "--meter", f"{(cents - 1) // 100}.{(cents - 1) % 100:02d}")
    assert F(at["meters"][0]["return"]) >= 1 > F(at["meters"][1]["return"])
    assert doc["return"] is None  # no meter asked: no single return


def test_several_meter_levels_by_name_or_in_level_order(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    named = edge(capsys, "FPGPP-ML2", "--meter", "MINOR=1000,MEGA=25000,MAJOR=5000")
    ordered = edge(capsys, "FPGPP-ML2", "--meter", "25000,5000,1000")
    assert named == ordered
    assert named["meters"][0]["meter"] == {"MEGA": "25000.00", "MAJOR": "5000.00",
                                           "MINOR": "1000.00"}
    assert named["break_even_meter"] is None  # three meters: no single break-even
    # 100% pays, whole-dollar meters: no rounding, the return is linear in the meters
    per = {lv: F(v) for lv, v in named["return_per_meter"].items()}
    expected = F(named["return_fixed"]) + 25000 * per["MEGA"] + 5000 * per["MAJOR"] \
        + 1000 * per["MINOR"]
    assert abs(F(named["return"]) - expected) < Fraction(1, 10**9)


def test_meter_growth_per_wager_at_the_contribution_and_reserve_rates(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = edge(capsys, "FPGPP-WA02", "--contribution-rate", "0.155", "--reserve-rate", "0.02")
    g = doc["growth"]["MAIN"]
    assert g["growth_per_wager"] == "0.775"  # 15.5% of the $5 wager
    assert g["reserve_per_wager"] == "0.10"
    paid = doc["pay_counts"]
    p = Fraction(paid["SF7_NATURAL"] + paid["RF_ROYAL_MATCH"] + paid["SF7_JOKER"],
                 FULL_DECK_HANDS)
    assert close(g["hit_probability"], p)
    rise = Fraction(775, 1000) / p
    assert Decimal(g["rise_per_hit"]) == round(Decimal(rise.numerator) / rise.denominator, 2)
    ml2 = edge(capsys, "FPGPP-ML2", "--contribution-rate", "MEGA=0.10,MINOR=0.02")
    assert {lv: x["contribution_rate"] for lv, x in ml2["growth"].items()} == \
        {"MEGA": "0.10", "MAJOR": "0.00", "MINOR": "0.02"}


def test_face_up_alias_gives_the_same_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert edge(capsys, "FUPGPP-01") == edge(capsys, "FPGPP-WA03")


# ------------------------------------------------------------------------------------------
# Text output, cache, bad input


def test_table_output_names_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "PT1")
    assert (code, err) == (0, "")
    assert "house edge" in out and "with envy" in out and "154,143,080" in out
    code, out, err = run(capsys, "FPGPP-WA01", "--meter", "10000", "--contribution-rate", "0.2")
    assert (code, err) == (0, "")
    assert "break-even meter" in out and "MAIN 10000.00" in out


def test_second_run_reads_the_cached_counts(capsys: pytest.CaptureFixture[str]) -> None:
    edge(capsys, "PT1")
    assert list(default_cache_dir().glob("hand-counts-*.json"))


@pytest.mark.parametrize(("argv", "message"), [
    (["PT9"], "paytable: unknown paytable 'PT9'"),
    (["PT1", "--others", "6"], "--others: 6 must be 0 to 5"),
    (["PT1", "--others", "two"], "--others: 'two' is not a whole number"),
    (["PT1", "--meter", "10000"], "--meter: PT1 is a bonus paytable"),
    (["PT1", "--wager", "4.00"], "--wager: 4.00 is below the 5.00 Fortune wager"),
    (["PT1", "--wager", "5.001"], "--wager: '5.001' has more than two decimals"),
    (["FPGPP-WA01", "--meter", "lots"], "--meter MAIN: 'lots' is not a number"),
    (["FPGPP-WA01", "--meter", "-5"], "--meter MAIN: '-5' is negative"),
    (["FPGPP-WA01", "--wager", "10.00"], "--wager/--envy-scale: FPGPP-WA01 is a progressive"),
    (["FPGPP-ML2", "--meter", "25000,5000"], "--meter: '25000,5000' gives 2 value(s)"),
    (["FPGPP-ML2", "--meter", "MEGA=1,MAJOR=2"], "--meter: 'MEGA=1,MAJOR=2' has no value "
                                                 "for level MINOR"),
    (["FPGPP-ML2", "--meter", "MEGA=1,MAJOR=2,MINI=3"], "--meter: unknown level 'MINI'"),
    (["FPGPP-WA01", "--contribution-rate", "1.5"], "--contribution-rate: '1.5' must be "
                                                   "between 0 and 1"),
])
def test_bad_input_exits_2_with_one_line_naming_it(capsys: pytest.CaptureFixture[str],
                                                   argv: list[str], message: str) -> None:
    line = refused(capsys, *argv)
    assert message in line, line
    assert line.startswith("podium rules edge: ")
