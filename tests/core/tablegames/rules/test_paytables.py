"""Fortune paytables (RULES.md sections 2 and 3): the shipped data, paying, validation.

The expected numbers below are transcribed a second time from RULES.md, so a typo in
either the TOML files or this transcription shows up as a difference.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from core.kernel.cards import parse_cards
from core.tablegames.rules.fortune import HAND_IDS
from core.tablegames.rules.paytables import (
    Paytable,
    PaytableError,
    distinct_paytables,
    load_paytable_file,
    load_paytables,
)

BONUS_HANDS = HAND_IDS[:11]  # SF7_NATURAL .. STRAIGHT (three pair is push / loses)
ENVY_HANDS = HAND_IDS[:7]  # SF7_NATURAL .. FOUR_OF_A_KIND

RULES_BONUS = {  # RULES.md section 2: pays (to 1), three pair, envy ($ per $5 wager)
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

# RULES.md section 3: hand -> ("%", level, percent) | ("$", dollars) | ("for1", n)
_SF7 = ("SF7_NATURAL", "SF7_JOKER")
RULES_PROGRESSIVE: dict[str, tuple[int, str, dict[str, tuple[str, ...] | tuple[str, int]]]] = {
    "FPGPP-WA01": (100, "semi", {
        "SF7_NATURAL": ("%", "MAIN", "100"), "RF_ROYAL_MATCH": ("%", "MAIN", "50"),
        "SF7_JOKER": ("%", "MAIN", "25"), "FIVE_ACES": ("$", 2500), "ROYAL_FLUSH": ("$", 200),
        "STRAIGHT_FLUSH": ("$", 100), "FOUR_OF_A_KIND": ("$", 75), "FULL_HOUSE": ("$", 6)}),
    "FPGPP-WA02": (500, "semi", {
        "SF7_NATURAL": ("%", "MAIN", "100"), "RF_ROYAL_MATCH": ("%", "MAIN", "50"),
        "SF7_JOKER": ("%", "MAIN", "25"), "FIVE_ACES": ("$", 12500),
        "ROYAL_FLUSH": ("$", 1000), "STRAIGHT_FLUSH": ("$", 500),
        "FOUR_OF_A_KIND": ("$", 375), "FULL_HOUSE": ("$", 30)}),
    "FPGPP-WA03": (100, "wild", {
        **{h: ("%", "MAIN", "100") for h in _SF7}, "FIVE_ACES": ("%", "MAIN", "10"),
        "ROYAL_FLUSH": ("$", 500), "STRAIGHT_FLUSH": ("$", 100),
        "FOUR_OF_A_KIND": ("$", 75), "FULL_HOUSE": ("$", 4)}),
    "FPGPP-WA04": (500, "wild", {
        **{h: ("%", "MAIN", "100") for h in _SF7}, "FIVE_ACES": ("%", "MAIN", "10"),
        "ROYAL_FLUSH": ("$", 2500), "STRAIGHT_FLUSH": ("$", 500),
        "FOUR_OF_A_KIND": ("$", 375), "FULL_HOUSE": ("$", 20)}),
    "FPGPP-WA07": (100, "semi", {
        "FIVE_ACES": ("%", "MAIN", "100"), "ROYAL_FLUSH": ("$", 500),
        "STRAIGHT_FLUSH": ("$", 100), "FOUR_OF_A_KIND": ("$", 75), "FULL_HOUSE": ("$", 5)}),
    "FPGPP-WA08": (500, "semi", {
        "FIVE_ACES": ("%", "MAIN", "100"), "ROYAL_FLUSH": ("$", 2500),
        "STRAIGHT_FLUSH": ("$", 500), "FOUR_OF_A_KIND": ("$", 375), "FULL_HOUSE": ("$", 25)}),
    "FPGPP-ML2": (100, "semi", {
        **{h: ("%", "MEGA", "100") for h in _SF7}, "FIVE_ACES": ("%", "MAJOR", "100"),
        "ROYAL_FLUSH": ("%", "MINOR", "100"), "STRAIGHT_FLUSH": ("for1", 100),
        "FOUR_OF_A_KIND": ("for1", 75), "FULL_HOUSE": ("for1", 4)}),
}
FACE_UP = {"FUPGPP-01": "FPGPP-WA03", "FUPGPP-03": "FPGPP-WA04",
           "FUPGPP-07": "FPGPP-WA07", "FUPGPP-ML02": "FPGPP-ML2"}


@pytest.fixture(scope="module")
def tables() -> dict[str, Paytable]:
    return load_paytables()


def cards(text: str):  # type: ignore[no-untyped-def]
    return parse_cards(text.split())


# ------------------------------------------------------------------------------------------
# The shipped data matches RULES.md

def test_every_paytable_of_rules_sections_2_and_3_loads(tables: dict[str, Paytable]) -> None:
    ids = {t.id for t in distinct_paytables(tables)}
    assert ids == set(RULES_BONUS) | set(RULES_PROGRESSIVE)
    assert set(tables) == ids | set(FACE_UP)


@pytest.mark.parametrize("pid", sorted(RULES_BONUS))
def test_bonus_paytable_pays_to_1_with_envy_per_5_dollars(
        tables: dict[str, Paytable], pid: str) -> None:
    odds, three_pair, envy = RULES_BONUS[pid]
    t = tables[pid]
    assert (t.kind, t.joker, t.wager_cents, t.levels) == ("bonus", "semi", None, ())
    assert t.three_pair == three_pair
    assert [p.hand for p in t.pays] == list(BONUS_HANDS)
    assert [p.odds for p in t.pays] == odds
    assert [p.envy_cents for p in t.pays] == [e * 100 for e in envy] + [None] * 4
    assert all(p.source == "tray" for p in t.pays)
    assert t.pay_for("THREE_PAIR") is None


@pytest.mark.parametrize("pid", sorted(RULES_PROGRESSIVE))
def test_progressive_paytable_pays_for_1(tables: dict[str, Paytable], pid: str) -> None:
    wager, joker, pays = RULES_PROGRESSIVE[pid]
    t = tables[pid]
    assert (t.kind, t.joker, t.wager_cents, t.three_pair) == ("progressive", joker, wager, None)
    assert [p.hand for p in t.pays] == sorted(pays, key=HAND_IDS.index)
    for p in t.pays:
        want = pays[p.hand]
        if want[0] == "%":
            assert (p.source, p.level, p.fraction) == ("meter", want[1],
                                                       Decimal(str(want[2])) / 100)
            assert p.amount_cents is None and p.for_one is None
        elif want[0] == "$":
            assert (p.source, p.amount_cents, p.level) == ("tray", int(want[1]) * 100, None)
        else:
            assert (p.source, p.for_one, p.level) == ("tray", want[1], None)
        assert p.odds is None and p.envy_cents is None
    assert set(t.levels) == {p.level for p in t.pays if p.level}


@pytest.mark.parametrize("pid", sorted(RULES_PROGRESSIVE))
def test_progressive_verification_and_authorization_defaults(
        tables: dict[str, Paytable], pid: str) -> None:
    # The seed: a progressive winner waits for a floor supervisor's verification, but for the
    # lowest fixed pay (the full house); an executive swipe for a 100% meter pay, a supervisor
    # otherwise.
    t = tables[pid]
    for p in t.pays:
        if p.source == "meter":
            assert p.secondary_verification
            assert p.authorization == ("executive" if p.fraction == 1 else "supervisor")
        else:
            assert p.secondary_verification == (p.hand != "FULL_HOUSE")
            assert p.authorization == "supervisor"


def test_a_pay_that_does_not_say_waits_for_verification_but_the_lowest_fixed_one() -> None:
    from core.tablegames.rules.paytables import parse_paytable

    t = parse_paytable({
        "id": "X", "kind": "progressive", "name": "x", "joker": "semi", "wager": "1.00",
        "levels": ["MAIN"],
        "pays": [{"hand": "SF7_NATURAL", "level": "MAIN", "fraction": "1.00",
                  "authorization": "executive"},
                 {"hand": "FOUR_OF_A_KIND", "amount": "75.00", "authorization": "supervisor"},
                 {"hand": "FULL_HOUSE", "amount": "6.00", "authorization": "supervisor"},
                 {"hand": "STRAIGHT_FLUSH", "amount": "100.00", "authorization": "supervisor",
                  "secondary_verification": False}]}, "x.toml")
    verify = {p.hand: p.secondary_verification for p in t.pays}
    assert verify == {"SF7_NATURAL": True, "STRAIGHT_FLUSH": False, "FOUR_OF_A_KIND": True,
                      "FULL_HOUSE": False}


def test_face_up_equivalents_load_as_the_same_table(tables: dict[str, Paytable]) -> None:
    for alias, pid in FACE_UP.items():
        assert tables[alias] is tables[pid]
        assert alias in tables[pid].equivalents


def test_distinct_paytables_lists_each_table_once_bonus_first(
        tables: dict[str, Paytable]) -> None:
    listed = distinct_paytables(tables)
    assert len(listed) == len({t.id for t in listed}) == 13
    assert [t.kind for t in listed] == ["bonus"] * 6 + ["progressive"] * 7


# ------------------------------------------------------------------------------------------
# paying(): the best LISTED hand the cards make (RULES.md section 3)

def test_wa07_7_card_straight_flush_8_to_ace_pays_as_royal_flush(
        tables: dict[str, Paytable]) -> None:
    pay = tables["FPGPP-WA07"].paying(cards("8s 9s Ts Js Qs Ks As"))
    assert pay is not None and pay.hand == "ROYAL_FLUSH" and pay.amount_cents == 500_00


def test_wa07_low_7_card_straight_flush_pays_as_straight_flush(
        tables: dict[str, Paytable]) -> None:
    pay = tables["FPGPP-WA07"].paying(cards("2h 3h 4h 5h 6h 7h 8h"))
    assert pay is not None and pay.hand == "STRAIGHT_FLUSH"


def test_wa07_joker_sf7_to_king_pays_royal_flush_with_joker_as_ace(
        tables: dict[str, Paytable]) -> None:
    pay = tables["FPGPP-WA07"].paying(cards("Jk 8d 9d Td Jd Qd Kd"))
    assert pay is not None and pay.hand == "ROYAL_FLUSH"


def test_ml2_royal_flush_with_royal_match_pays_the_minor(tables: dict[str, Paytable]) -> None:
    pay = tables["FPGPP-ML2"].paying(cards("As Ks Qs Js Ts Kh Qh"))
    assert pay is not None and (pay.hand, pay.level, pay.fraction) == ("ROYAL_FLUSH", "MINOR", 1)


def test_ml2_joker_7_card_straight_flush_pays_the_mega(tables: dict[str, Paytable]) -> None:
    pay = tables["FPGPP-ML2"].paying(cards("Jk 2c 3c 4c 5c 7c 8c"))
    assert pay is not None and (pay.hand, pay.level) == ("SF7_JOKER", "MEGA")


def test_wa03_wild_joker_four_kings_pays_four_of_a_kind(tables: dict[str, Paytable]) -> None:
    # fully wild: KKK + joker is quads; the same cards in a semi table are only trips
    assert tables["FPGPP-WA03"].paying(cards("Jk Kc Kd Kh 2s 5d 9h")).hand == "FOUR_OF_A_KIND"
    assert tables["FPGPP-WA01"].paying(cards("Jk Kc Kd Kh 2s 5d 9h")) is None


def test_progressive_does_not_pay_below_full_house(tables: dict[str, Paytable]) -> None:
    assert tables["FPGPP-WA01"].paying(cards("2h 5h 7h 9h Jh 3c Kd")) is None  # flush


def test_bonus_three_pair_is_not_a_pay(tables: dict[str, Paytable]) -> None:
    assert tables["PT1"].paying(cards("2c 2d 5h 5s 9c 9d Kh")) is None
    assert tables["PT1"].paying(cards("2c 4d 6h 8s Tc Qd Kh")) is None


def test_bonus_full_house_with_three_pairs_pays_full_house(tables: dict[str, Paytable]) -> None:
    pay = tables["PT2"].paying(cards("Kc Kd Kh 2s 2c 5d 5h"))
    assert pay is not None and (pay.hand, pay.odds) == ("FULL_HOUSE", 5)


def test_fixed_cents_amount_for_one_and_odds(tables: dict[str, Paytable]) -> None:
    ml2, wa01, pt1 = tables["FPGPP-ML2"], tables["FPGPP-WA01"], tables["PT1"]
    sf = ml2.pay_for("STRAIGHT_FLUSH")
    assert sf is not None
    assert ml2.fixed_cents(sf, 100) == 100_00  # 100 for 1 on a $1 wager
    assert ml2.fixed_cents(sf) == 100_00  # the table's own wager
    assert ml2.fixed_cents(sf, 500) == 500_00
    five = wa01.pay_for("FIVE_ACES")
    assert five is not None and wa01.fixed_cents(five, 100) == 2500_00
    flush = pt1.pay_for("FLUSH")
    assert flush is not None and pt1.fixed_cents(flush, 25_00) == 100_00  # 4 to 1 on $25
    sf7 = wa01.pay_for("SF7_NATURAL")
    assert sf7 is not None
    with pytest.raises(PaytableError, match="meter MAIN"):
        wa01.fixed_cents(sf7, 100)
    with pytest.raises(PaytableError, match="wager"):
        pt1.fixed_cents(flush)


# ------------------------------------------------------------------------------------------
# Validation: every problem names the file, the key and the problem

GOOD_PROGRESSIVE = '''
id = "TEST-P"
kind = "progressive"
name = "test progressive"
joker = "semi"
wager = "1.00"
levels = ["MEGA", "MINOR"]
pays = [
  { hand = "SF7_NATURAL", level = "MEGA", fraction = "1.00", secondary_verification = true, authorization = "executive" },
  { hand = "ROYAL_FLUSH", level = "MINOR", fraction = "0.5", secondary_verification = true, authorization = "supervisor" },
  { hand = "FULL_HOUSE", amount = "5.00", secondary_verification = false, authorization = "supervisor" },
]
'''  # noqa: E501
GOOD_BONUS = '''
id = "TEST-B"
kind = "bonus"
name = "test bonus"
joker = "semi"
three_pair = "push"
pays = [
  { hand = "FOUR_OF_A_KIND", odds = 20, envy = "5.00" },
  { hand = "STRAIGHT", odds = 2 },
]
'''


def write(tmp_path: Path, text: str, name: str = "table.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_good_test_files_load(tmp_path: Path) -> None:
    p = load_paytable_file(write(tmp_path, GOOD_PROGRESSIVE))
    assert p.levels == ("MEGA", "MINOR")
    assert p.pay_for("ROYAL_FLUSH").fraction == Decimal("0.5")  # type: ignore[union-attr]
    b = load_paytable_file(write(tmp_path, GOOD_BONUS))
    assert b.pay_for("FOUR_OF_A_KIND").envy_cents == 500  # type: ignore[union-attr]


def test_pays_are_ordered_best_first_whatever_the_file_order(tmp_path: Path) -> None:
    text = GOOD_BONUS.replace('''  { hand = "FOUR_OF_A_KIND", odds = 20, envy = "5.00" },
  { hand = "STRAIGHT", odds = 2 },''', '''  { hand = "STRAIGHT", odds = 2 },
  { hand = "FOUR_OF_A_KIND", odds = 20, envy = "5.00" },''')
    b = load_paytable_file(write(tmp_path, text))
    assert [p.hand for p in b.pays] == ["FOUR_OF_A_KIND", "STRAIGHT"]


BAD = [
    # (base, old, new, key named, problem)
    ("P", '"FULL_HOUSE"', '"FULL_HOUZE"', "pays[2].hand", "unknown hand id"),
    ("P", 'joker = "semi"', 'joker = "semi"\ncolour = "red"', "colour", "unknown key"),
    ("P", 'amount = "5.00",', 'amount = "5.00", seat = 3,', "seat", "unknown key"),
    ("P", 'name = "test progressive"\n', "", "name", "missing key"),
    ("P", 'wager = "1.00"\n', "", "wager", "missing key"),
    ("P", ", authorization = \"supervisor\" },", " },", "authorization", "missing key"),
    ("P", 'amount = "5.00",', "", "odds/fraction/amount/for_one", "got none"),
    ("P", 'amount = "5.00",', 'amount = "5.00", for_one = 5,',
     "odds/fraction/amount/for_one", "amount and for_one"),
    ("P", 'fraction = "0.5"', 'fraction = "0"', "fraction", "above 0 and at most 1"),
    ("P", 'fraction = "0.5"', 'fraction = "1.5"', "fraction", "above 0 and at most 1"),
    ("P", 'fraction = "0.5"', "fraction = 0.5", "fraction", "decimal string"),
    ("P", 'level = "MINOR"', 'level = "MAJOR"', "level", "not declared"),
    ("P", 'level = "MINOR", fraction = "0.5"', 'amount = "100.00"', "levels",
     "no pay uses level 'MINOR'"),
    ("P", 'amount = "5.00"', 'amount = "5.001"', "amount", "more than two decimals"),
    ("P", 'amount = "5.00"', 'amount = "five"', "amount", "not a number"),
    ("P", 'amount = "5.00"', "amount = 5.0", "amount", "money string"),
    ("P", 'wager = "1.00"', 'wager = "-1.00"', "wager", "negative"),
    ("P", 'joker = "semi"', 'joker = "bug"', "joker", "not one of semi, wild"),
    ("P", 'kind = "progressive"', 'kind = "side"', "kind", "not one of bonus, progressive"),
    ("P", '"FULL_HOUSE"', '"ROYAL_FLUSH"', "pays[2].hand", "duplicate hand ROYAL_FLUSH"),
    ("P", 'authorization = "supervisor" },\n]', 'authorization = "pit boss" },\n]',
     "authorization", "not one of supervisor, executive"),
    ("P", 'secondary_verification = false', 'secondary_verification = "no"',
     "secondary_verification", "true or false"),
    ("P", 'amount = "5.00",', 'odds = 5,', "odds", "progressive table pays"),
    ("B", ', envy = "5.00"', "", "pays", "needs envy"),
    ("B", 'odds = 2 }', 'odds = 2, envy = "1.00" }', "envy", "four of a kind or better"),
    ("B", 'three_pair = "push"\n', "", "three_pair", "missing key"),
    ("B", 'three_pair = "push"', 'three_pair = "wins"', "three_pair", "not one of push"),
    ("B", "odds = 2 }", 'amount = "2.00" }', "amount", "bonus table pays odds"),
    ("B", "odds = 2 }", "odds = 0 }", "odds", "above 0"),
    ("B", 'name = "test bonus"', 'name = "test bonus"\nwager = "5.00"', "wager", "unknown key"),
]


@pytest.mark.parametrize(("base", "old", "new", "key", "problem"), BAD)
def test_malformed_paytable_is_refused_naming_file_key_and_problem(
        tmp_path: Path, base: str, old: str, new: str, key: str, problem: str) -> None:
    good = GOOD_PROGRESSIVE if base == "P" else GOOD_BONUS
    assert old in good
    path = write(tmp_path, good.replace(old, new, 1))
    with pytest.raises(PaytableError) as err:
        load_paytable_file(path)
    message = str(err.value)
    assert str(path) in message
    assert key in message
    assert problem in message


def test_file_that_is_not_toml_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "id = PT1 this is not toml\n[[[")
    with pytest.raises(PaytableError, match="not a valid TOML file") as err:
        load_paytable_file(path)
    assert str(path) in str(err.value)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PaytableError, match="can not be read"):
        load_paytable_file(tmp_path / "absent.toml")


def test_duplicate_id_or_alias_across_files_is_refused(tmp_path: Path) -> None:
    write(tmp_path, GOOD_PROGRESSIVE, "a.toml")
    write(tmp_path, GOOD_PROGRESSIVE.replace('id = "TEST-P"', 'id = "OTHER"\n'
                                             'equivalents = ["TEST-P"]'), "b.toml")
    with pytest.raises(PaytableError, match="'TEST-P' is already defined by") as err:
        load_paytables(tmp_path)
    assert "b.toml" in str(err.value)


def test_a_folder_of_casino_tables_loads(tmp_path: Path) -> None:
    write(tmp_path, GOOD_PROGRESSIVE, "a.toml")
    write(tmp_path, GOOD_BONUS, "b.toml")
    write(tmp_path, "not a paytable", "readme.txt")
    assert sorted(load_paytables(tmp_path)) == ["TEST-B", "TEST-P"]
