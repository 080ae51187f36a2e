"""Independent review of the rules against RULES.md sections 1-4 and CLI.md.

Every expected value here was worked out by hand from RULES.md / CLI.md (not from the code).
A failing test names a disagreement between the code and the rule book.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.kernel.cards import parse_cards
from core.tablegames.meters.arithmetic import payment_order
from core.tablegames.rules.fortune import HAND_IDS, classify
from core.tablegames.rules.paytables import load_paytables

PT = load_paytables()


def c(text: str) -> Any:
    return parse_cards(text.split())


# --- RULES.md 1: hand order "best first" (the table of section 1) -----------------------------

def test_hand_order_is_the_rules_table_order() -> None:
    # RULES.md 1, table "Hands, best first": SF7_NATURAL ... STRAIGHT, THREE_PAIR
    assert HAND_IDS == ("SF7_NATURAL", "RF_ROYAL_MATCH", "SF7_JOKER", "FIVE_ACES",
                        "ROYAL_FLUSH", "STRAIGHT_FLUSH", "FOUR_OF_A_KIND", "FULL_HOUSE",
                        "FLUSH", "THREE_OF_A_KIND", "STRAIGHT", "THREE_PAIR")


# --- RULES.md 1: the classifier, both joker modes ---------------------------------------------

CLASSIFY_CASES = [
    # (cards, semi, wild)   worked by hand from RULES.md section 1
    ("Ah 2h 3h 4h 5h 6h 7h", "SF7_NATURAL", "SF7_NATURAL"),  # lowest natural 7-card SF
    ("8s 9s Ts Js Qs Ks As", "SF7_NATURAL", "SF7_NATURAL"),  # highest
    ("As Ks Qs Js Ts Kh Qh", "RF_ROYAL_MATCH", "RF_ROYAL_MATCH"),
    ("As Ks Qs Ts Jk Kh Qh", "RF_ROYAL_MATCH", "RF_ROYAL_MATCH"),  # joker completes the royal
    ("As Ks Qs Js Ts Kh Qd", "ROYAL_FLUSH", "ROYAL_FLUSH"),  # K-Q not suited: no match
    ("As Ks Qs Js Ts Kh Jk", "ROYAL_FLUSH", "RF_ROYAL_MATCH"),  # semi joker is no Q of hearts
    ("2h 3h 4h 5h 6h 7h Jk", "SF7_JOKER", "SF7_JOKER"),  # joker at an end (8h or Ah)
    ("2h 3h 4h 5h 6h 8h Jk", "SF7_JOKER", "SF7_JOKER"),  # joker fills the gap
    ("9h Th Jh Qh Kh Ah Jk", "SF7_JOKER", "SF7_JOKER"),  # 8h by joker beats the royal
    ("As Ad Ac Ah Jk 2c 7d", "FIVE_ACES", "FIVE_ACES"),
    ("Ks Kd Kc Kh Jk 2c 7d", "FOUR_OF_A_KIND", "FOUR_OF_A_KIND"),  # no five kings
    ("As Ks Qs Js Jk 2c 7d", "ROYAL_FLUSH", "ROYAL_FLUSH"),
    ("9d Td Jd Qd Kd 2c 2s", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),
    ("Ac 2c 3c 4c 5c 9h 9d", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # A-2-3-4-5 lowest SF
    ("2c 3c 4c 5c Jk Kd Ks", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # joker as Ac or 6c
    ("As Ad Ac Jk 2c 7d 9h", "FOUR_OF_A_KIND", "FOUR_OF_A_KIND"),  # joker as 4th Ace
    ("Ks Kd Kc Jk 2c 7d 9h", "THREE_OF_A_KIND", "FOUR_OF_A_KIND"),  # semi: never a 4th King
    ("Ks Kd Qc Qh Jk 2c 7d", "NOTHING", "FULL_HOUSE"),  # semi: no KKK/QQQ; 2 pair pays nothing
    ("As Ad Jk Kc Kh 7s 2d", "FULL_HOUSE", "FULL_HOUSE"),  # AAA KK with the joker
    ("Ks Kd Kc 7h 7d 2c 9s", "FULL_HOUSE", "FULL_HOUSE"),
    ("2s 5s 9s Js Jk Kd 3c", "FLUSH", "FLUSH"),  # 4 spades + joker
    ("5c 5d 5h 6s 7c 8d 9h", "THREE_OF_A_KIND", "THREE_OF_A_KIND"),  # trips rank above straight
    ("9c Td Jh Qs Jk 2c 3d", "STRAIGHT", "STRAIGHT"),
    ("Ac 2d 3h 4s Jk 9c Kd", "STRAIGHT", "STRAIGHT"),  # joker as the 5 of A-2-3-4-5
    ("Kc Qd Jh Ts Jk 2c 4d", "STRAIGHT", "STRAIGHT"),  # joker as the Ace
    ("2c 2d 5h 5s 9c 9d Kh", "THREE_PAIR", "THREE_PAIR"),
    ("2c 2d 5h 5s Ac Jk Kh", "THREE_PAIR", "FULL_HOUSE"),  # semi: joker pairs the Ace
    ("2c 2d 5h 5s Kc Jk 8h", "NOTHING", "FULL_HOUSE"),  # semi: the joker never pairs a K
    ("2s 5d 9c Jh Kd 3c 7h", "NOTHING", "NOTHING"),
]


@pytest.mark.parametrize(("text", "semi", "wild"), CLASSIFY_CASES)
def test_fortune_best_hand_both_joker_modes_rules_1(text: str, semi: str, wild: str) -> None:
    # RULES.md 1: semi-wild joker = Ace or completes straight/flush/SF; wild = any card
    assert classify(c(text), "semi") == semi
    assert classify(c(text), "wild") == wild


def test_semi_wild_joker_makes_pairs_only_of_aces_rules_1() -> None:
    # RULES.md 1: "It never makes a pair, trips or quads of any rank but Aces."
    assert classify(c("Qc Qd Qh Jk 2s 6d 9c"), "semi") == "THREE_OF_A_KIND"
    assert classify(c("Ac Ad Ah Jk 2s 6d 9c"), "semi") == "FOUR_OF_A_KIND"


# --- RULES.md 2: the bonus paytables, every number ---------------------------------------------

BONUS = {  # RULES.md 2, rows in the order of the section-1 table, then three pair; envy $ per $5
    "PT1": ([5000, 1000, 750, 250, 100, 50, 20, 5, 4, 3, 2], "push",
            [1000, 250, 100, 50, 25, 10, 5]),
    "PT2": ([8000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2], "loses",
            [5000, 1000, 500, 250, 50, 20, 5]),
    "PT3": ([5000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2], "loses",
            [3000, 1000, 500, 250, 50, 20, 5]),
    "PT4": ([2500, 1000, 750, 250, 125, 50, 25, 5, 4, 3, 2], "loses",
            [1000, 750, 250, 100, 50, 20, 5]),
    "PT6": ([5000, 1000, 500, 300, 110, 45, 25, 5, 4, 3, 2], "loses",
            [2500, 500, 250, 150, 55, 25, 6]),
    "PT7": ([5000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2], "loses",
            [2500, 500, 250, 150, 55, 25, 6]),
}


@pytest.mark.parametrize("pid", sorted(BONUS))
def test_bonus_paytable_numbers_rules_2(pid: str) -> None:
    odds, three_pair, envy = BONUS[pid]
    t = PT[pid]
    assert (t.kind, t.joker, t.three_pair) == ("bonus", "semi", three_pair)
    assert [(p.hand, p.odds) for p in t.pays] == list(zip(HAND_IDS[:11], odds, strict=True))
    assert [p.envy_cents for p in t.pays] == [e * 100 for e in envy] + [None] * 4


def test_no_paytable_5_rules_2() -> None:
    assert "PT5" not in PT


# --- RULES.md 3: the progressive paytables, every number ---------------------------------------

def _prog(t: Any) -> list[tuple[str, str | None, str | None, int | None, int | None]]:
    return [(p.hand, p.level, None if p.fraction is None else f"{p.fraction:.2f}",
             p.amount_cents, p.for_one) for p in t.pays]


M = "MAIN"
PROGRESSIVE = {  # RULES.md 3 (cents); "7-card straight flush" = SF7_NATURAL and SF7_JOKER
    "FPGPP-WA01": (100, "semi", [("SF7_NATURAL", M, "1.00", None, None),
                                 ("RF_ROYAL_MATCH", M, "0.50", None, None),
                                 ("SF7_JOKER", M, "0.25", None, None),
                                 ("FIVE_ACES", None, None, 250_000, None),
                                 ("ROYAL_FLUSH", None, None, 20_000, None),
                                 ("STRAIGHT_FLUSH", None, None, 10_000, None),
                                 ("FOUR_OF_A_KIND", None, None, 7_500, None),
                                 ("FULL_HOUSE", None, None, 600, None)]),
    "FPGPP-WA02": (500, "semi", [("SF7_NATURAL", M, "1.00", None, None),
                                 ("RF_ROYAL_MATCH", M, "0.50", None, None),
                                 ("SF7_JOKER", M, "0.25", None, None),
                                 ("FIVE_ACES", None, None, 1_250_000, None),
                                 ("ROYAL_FLUSH", None, None, 100_000, None),
                                 ("STRAIGHT_FLUSH", None, None, 50_000, None),
                                 ("FOUR_OF_A_KIND", None, None, 37_500, None),
                                 ("FULL_HOUSE", None, None, 3_000, None)]),
    "FPGPP-WA03": (100, "wild", [("SF7_NATURAL", M, "1.00", None, None),
                                 ("SF7_JOKER", M, "1.00", None, None),
                                 ("FIVE_ACES", M, "0.10", None, None),
                                 ("ROYAL_FLUSH", None, None, 50_000, None),
                                 ("STRAIGHT_FLUSH", None, None, 10_000, None),
                                 ("FOUR_OF_A_KIND", None, None, 7_500, None),
                                 ("FULL_HOUSE", None, None, 400, None)]),
    "FPGPP-WA04": (500, "wild", [("SF7_NATURAL", M, "1.00", None, None),
                                 ("SF7_JOKER", M, "1.00", None, None),
                                 ("FIVE_ACES", M, "0.10", None, None),
                                 ("ROYAL_FLUSH", None, None, 250_000, None),
                                 ("STRAIGHT_FLUSH", None, None, 50_000, None),
                                 ("FOUR_OF_A_KIND", None, None, 37_500, None),
                                 ("FULL_HOUSE", None, None, 2_000, None)]),
    "FPGPP-WA07": (100, "semi", [("FIVE_ACES", M, "1.00", None, None),
                                 ("ROYAL_FLUSH", None, None, 50_000, None),
                                 ("STRAIGHT_FLUSH", None, None, 10_000, None),
                                 ("FOUR_OF_A_KIND", None, None, 7_500, None),
                                 ("FULL_HOUSE", None, None, 500, None)]),
    "FPGPP-WA08": (500, "semi", [("FIVE_ACES", M, "1.00", None, None),
                                 ("ROYAL_FLUSH", None, None, 250_000, None),
                                 ("STRAIGHT_FLUSH", None, None, 50_000, None),
                                 ("FOUR_OF_A_KIND", None, None, 37_500, None),
                                 ("FULL_HOUSE", None, None, 2_500, None)]),
    "FPGPP-ML2": (100, "semi", [("SF7_NATURAL", "MEGA", "1.00", None, None),
                                ("SF7_JOKER", "MEGA", "1.00", None, None),
                                ("FIVE_ACES", "MAJOR", "1.00", None, None),
                                ("ROYAL_FLUSH", "MINOR", "1.00", None, None),
                                ("STRAIGHT_FLUSH", None, None, None, 100),
                                ("FOUR_OF_A_KIND", None, None, None, 75),
                                ("FULL_HOUSE", None, None, None, 4)]),
}


@pytest.mark.parametrize("pid", sorted(PROGRESSIVE))
def test_progressive_paytable_numbers_rules_3(pid: str) -> None:
    wager, joker, pays = PROGRESSIVE[pid]
    t = PT[pid]
    assert (t.kind, t.wager_cents, t.joker) == ("progressive", wager, joker)
    assert _prog(t) == pays


@pytest.mark.parametrize(("alias", "pid"), [("FUPGPP-01", "FPGPP-WA03"),
                                            ("FUPGPP-03", "FPGPP-WA04"),
                                            ("FUPGPP-07", "FPGPP-WA07"),
                                            ("FUPGPP-ML02", "FPGPP-ML2")])
def test_face_up_equivalents_rules_3(alias: str, pid: str) -> None:
    assert PT[alias] is PT[pid]


# --- RULES.md 3: an unlisted hand pays as the best LISTED hand the cards also make -------------

@pytest.mark.parametrize(("pid", "cards", "hand"), [
    ("FPGPP-WA07", "8s 9s Ts Js Qs Ks As", "ROYAL_FLUSH"),  # the RULES.md 3 example
    ("FPGPP-ML2", "As Ks Qs Js Ts Kh Qh", "ROYAL_FLUSH"),  # royal + royal match -> MINOR
    ("FPGPP-WA07", "Ah 2h 3h 4h 5h 6h 7h", "STRAIGHT_FLUSH"),  # 7-card SF below 8..A
    ("FPGPP-WA07", "9h Th Jh Qh Kh 8h Jk", "ROYAL_FLUSH"),  # SF7 with joker (joker = Ah)
    ("FPGPP-WA03", "As Ks Qs Js Ts Kh Qh", "ROYAL_FLUSH"),  # wild table lists no royal match
    ("FPGPP-WA03", "2h 3h 4h 5h 6h 8h Jk", "SF7_JOKER"),
    ("FPGPP-ML2", "2h 3h 4h 5h 6h 8h Jk", "SF7_JOKER"),
    ("FPGPP-WA01", "As Ks Qs Js Ts Kh Qh", "RF_ROYAL_MATCH"),
    ("FPGPP-WA01", "Ks Kd Kc 7h 7d 2c 9s", "FULL_HOUSE"),
    ("FPGPP-WA01", "5c 5d 5h 6s 7c 8d 9h", None),  # trips: not paid by WA01
])
def test_unlisted_hand_pays_as_best_listed_hand_rules_3(pid: str, cards: str,
                                                        hand: str | None) -> None:
    pay = PT[pid].paying(c(cards))
    assert (pay.hand if pay else None) == hand


def test_ml2_royal_match_pays_the_minor_rules_3() -> None:
    pay = PT["FPGPP-ML2"].paying(c("As Ks Qs Js Ts Kh Qh"))
    assert pay is not None and (pay.level, pay.fraction) == ("MINOR", 1)


# --- RULES.md 4 + CLI.md: podium rules meter ----------------------------------------------------

def run_meter(tmp_path: Path, capsys: pytest.CaptureFixture[str],
              scenario: object) -> tuple[int, Any, str]:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(scenario), encoding="utf-8")
    rc = main(["rules", "meter", str(f), "--json"])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 else None), err


def test_cli_md_worked_example_meter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # CLI.md: 12,345.67 + 0.60; seat 6 takes floor(50% x 12,346.27) = 6,173.13, seat 2 the
    # rest 6,173.14, meter restarts at 10,000.00 + 250.06.
    rc, doc, _ = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-WA01",
        "levels": {"MAIN": {"seed": "10000.00", "meter": "12345.67", "reserve": "250.00",
                            "contribution_rate": "0.20", "reserve_rate": "0.02"}},
        "rounds": [{"wagers": {"1": "1.00", "2": "1.00", "6": "1.00"},
                    "hits": {"2": "SF7_NATURAL", "6": "RF_ROYAL_MATCH"}}]})
    assert rc == 0
    assert doc == {"rounds": [{"payouts": [
        {"seat": 6, "hand": "RF_ROYAL_MATCH", "amount": "6173.13", "source": "meter",
         "level": "MAIN"},
        {"seat": 2, "hand": "SF7_NATURAL", "amount": "6173.14", "source": "meter",
         "level": "MAIN"}],
        "levels": {"MAIN": {"meter": "10250.06", "reserve": "0.00"}}}]}


def test_full_award_reseeds_at_seed_plus_reserve_plus_leftover_fraction_rules_3_4(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Round 1: meter 1000.01 + 1.00 x 0.123456 = 1000.133456; reserve 0.001.
    #   SF7_NATURAL 100% pays 1000.13; meter = 1000.00 + 0.001 + 0.003456 = 1000.004456.
    # Round 2: + 0.123456 -> 1000.127912, reserve 0.001; SF7_JOKER 25% = 250.031978 -> 250.03;
    #   meter 750.097912 -> shown 750.09; reserve shown 0.00.
    rc, doc, _ = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-WA01",
        "levels": {"MAIN": {"seed": "1000.00", "meter": "1000.01", "reserve": "0.00",
                            "contribution_rate": "0.123456", "reserve_rate": "0.001"}},
        "rounds": [{"wagers": {"3": "1.00"}, "hits": {"3": "SF7_NATURAL"}},
                   {"wagers": {"3": "1.00"}, "hits": {"3": "SF7_JOKER"}}]})
    assert rc == 0
    r1, r2 = doc["rounds"]
    assert r1["payouts"][0]["amount"] == "1000.13"
    assert r1["levels"]["MAIN"] == {"meter": "1000.00", "reserve": "0.00"}
    assert r2["payouts"][0]["amount"] == "250.03"
    assert r2["levels"]["MAIN"] == {"meter": "750.09", "reserve": "0.00"}


def test_each_percentage_pay_on_what_the_previous_left_rules_4(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # meter 999.40 + 3 x 0.20 = 1000.00; seat 5 (rightmost) RF+match 50% = 500.00,
    # seat 3 SF7 joker 25% of 500.00 = 125.00, seat 1 five aces $2,500 from the tray.
    rc, doc, _ = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-WA01",
        "levels": {"MAIN": {"seed": "500.00", "meter": "999.40", "reserve": "0.00",
                            "contribution_rate": "0.20", "reserve_rate": "0.00"}},
        "rounds": [{"wagers": {"1": "1.00", "3": "1.00", "5": "1.00"},
                    "hits": {"1": "FIVE_ACES", "3": "SF7_JOKER", "5": "RF_ROYAL_MATCH"}}]})
    assert rc == 0
    (r,) = doc["rounds"]
    assert [(p["seat"], p["amount"], p["source"]) for p in r["payouts"]] == [
        (5, "500.00", "meter"), (3, "125.00", "meter"), (1, "2500.00", "tray")]
    assert r["levels"]["MAIN"]["meter"] == "375.00"


ML2_LEVELS = {
    "MEGA": {"seed": "20000.00", "meter": "30000.00", "reserve": "10.00",
             "contribution_rate": "0.10", "reserve_rate": "0.01"},
    "MAJOR": {"seed": "2000.00", "meter": "3000.00", "reserve": "5.00",
              "contribution_rate": "0.05", "reserve_rate": "0.01"},
    "MINOR": {"seed": "500.00", "meter": "600.00", "reserve": "1.00",
              "contribution_rate": "0.05", "reserve_rate": "0.01"},
}


def test_ml2_levels_every_wager_contributes_to_every_level_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # two $1 wagers: MEGA +0.20 (reserve +0.02), MAJOR +0.10 (+0.02), MINOR +0.10 (+0.02).
    # seat 4 five aces: MAJOR 3000.10 paid, MAJOR restarts 2000.00 + 5.02 = 2005.02.
    # seat 2 straight flush 100 for 1 = $100 from the tray.
    rc, doc, _ = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-ML2", "levels": ML2_LEVELS,
        "rounds": [{"wagers": {"2": "1.00", "4": "1.00"},
                    "hits": {"2": "STRAIGHT_FLUSH", "4": "FIVE_ACES"}}]})
    assert rc == 0
    (r,) = doc["rounds"]
    assert [(p["seat"], p["amount"], p["source"], p["level"]) for p in r["payouts"]] == [
        (4, "3000.10", "meter", "MAJOR"), (2, "100.00", "tray", None)]
    assert r["levels"] == {"MEGA": {"meter": "30000.20", "reserve": "10.02"},
                           "MAJOR": {"meter": "2005.02", "reserve": "0.00"},
                           "MINOR": {"meter": "600.10", "reserve": "1.02"}}


def test_ml2_royal_flush_with_royal_match_hit_pays_the_minor_rules_3(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # RULES.md 3: "in FPGPP-ML2 a royal flush with a royal match pays the MINOR".
    # One $1 wager: MINOR 600.00 + 0.05 = 600.05 paid; MINOR restarts 500.00 + 1.01 = 501.01.
    rc, doc, err = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-ML2", "levels": ML2_LEVELS,
        "rounds": [{"wagers": {"1": "1.00"}, "hits": {"1": "RF_ROYAL_MATCH"}}]})
    assert rc == 0, err
    (r,) = doc["rounds"]
    assert [(p["amount"], p["source"], p["level"]) for p in r["payouts"]] == [
        ("600.05", "meter", "MINOR")]
    assert r["levels"]["MINOR"] == {"meter": "501.01", "reserve": "0.00"}


def test_wa07_royal_match_hit_pays_as_royal_flush_rules_3(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # RULES.md 3: an unlisted hand pays as the best listed hand the cards make; every
    # royal flush + royal match is a royal flush -> WA07 $500 from the tray.
    rc, doc, err = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-WA07",
        "levels": {"MAIN": {"seed": "10000.00", "meter": "10000.00", "reserve": "0.00",
                            "contribution_rate": "0.20", "reserve_rate": "0.00"}},
        "rounds": [{"wagers": {"1": "1.00"}, "hits": {"1": "RF_ROYAL_MATCH"}}]})
    assert rc == 0, err
    assert [(p["amount"], p["source"]) for p in doc["rounds"][0]["payouts"]] == [
        ("500.00", "tray")]


def test_hit_without_wager_is_refused_cli(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run_meter(tmp_path, capsys, {
        "paytable": "FPGPP-WA01",
        "levels": {"MAIN": {"seed": "10000.00", "meter": "10000.00", "reserve": "0.00",
                            "contribution_rate": "0.20", "reserve_rate": "0.00"}},
        "rounds": [{"wagers": {"1": "1.00"}, "hits": {"2": "FULL_HOUSE"}}]})
    assert rc == 2 and "round 1" in err and "seat 2" in err and err.count("\n") == 1


def test_pay_order_from_the_dealers_right_rules_4() -> None:
    # RULES.md 4: highest-numbered seat first by default
    assert payment_order([1, 7, 3]) == [7, 3, 1]
