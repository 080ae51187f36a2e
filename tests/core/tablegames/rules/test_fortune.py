"""Fortune Pai Gow Poker hands (RULES.md section 1), both joker modes.

The fast classifier in core/tablegames/rules/fortune.py never enumerates joker values; the
reference evaluator below does, on purpose slowly and literally: it replaces the joker
with every card its mode allows and checks every 5-card subset of the 7 natural cards.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.kernel.cards import JOKER, RANKS, SUITS, Card, CardError, full_deck, parse_cards
from core.tablegames.rules.fortune import (
    HAND_IDS,
    NOTHING,
    JokerModeError,
    classify,
    classify_parsed,
    hand_rank,
    hands_made,
)

DECK = full_deck()
NATURAL_DECK = full_deck(jokers=0)
ROYAL_RANKS = {10, 11, 12, 13, 14}
STRAIGHT_TYPES = {"STRAIGHT", "FLUSH", "STRAIGHT_FLUSH", "ROYAL_FLUSH", "SF7_NATURAL"}


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


# ----------------------------------------------------------------------------------------
# Reference evaluator (no joker; duplicates allowed so a joker can be a fifth Ace)

def _is_straight(ranks: Sequence[int]) -> bool:
    s = set(ranks)
    return len(s) == 5 and (max(s) - min(s) == 4 or s == {14, 2, 3, 4, 5})


def _is_7_run(ranks: Sequence[int]) -> bool:
    s = set(ranks)
    if len(s) != 7:
        return False
    if max(s) - min(s) == 6:
        return True
    return s == {14, 2, 3, 4, 5, 6, 7}


def _royal_match_suit(seven: Sequence[Card]) -> str | None:
    """Suit of the royal flush when 5 cards are a royal flush and the other two a suited
    K-Q of another suit."""
    for idx in itertools.combinations(range(7), 5):
        five = [seven[i] for i in idx]
        rest = [seven[i] for i in range(7) if i not in idx]
        royal = len({c.suit for c in five}) == 1 and {c.rank for c in five} == ROYAL_RANKS
        match = ({c.rank for c in rest} == {12, 13} and rest[0].suit == rest[1].suit
                 and rest[0].suit != five[0].suit)
        if royal and match:
            return five[0].suit
    return None


def ref_natural(seven: Sequence[Card]) -> set[str]:
    made: set[str] = set()
    for five in itertools.combinations(seven, 5):
        ranks = [c.rank for c in five]
        flush = len({c.suit for c in five}) == 1
        straight = _is_straight(ranks)
        if flush:
            made.add("FLUSH")
        if straight:
            made.add("STRAIGHT")
        if flush and straight:
            made.add("STRAIGHT_FLUSH")
            if set(ranks) == ROYAL_RANKS:
                made.add("ROYAL_FLUSH")
        shape = sorted(Counter(ranks).values())
        if shape[-1] >= 4:
            made.add("FOUR_OF_A_KIND")
        if shape == [2, 3]:
            made.add("FULL_HOUSE")
        if shape[-1] >= 3:
            made.add("THREE_OF_A_KIND")
    counts = Counter(c.rank for c in seven)
    if sum(1 for v in counts.values() if v >= 2) >= 3:
        made.add("THREE_PAIR")
    if len({c.suit for c in seven}) == 1 and _is_7_run([c.rank for c in seven]):
        made.add("SF7_NATURAL")
    if _royal_match_suit(seven) is not None:
        made.add("RF_ROYAL_MATCH")
    if counts[14] >= 5:
        made.add("FIVE_ACES")
    return made


def _with_joker_named(made: set[str]) -> set[str]:
    return {"SF7_JOKER" if h == "SF7_NATURAL" else h for h in made}


def ref_hands(seven: Sequence[Card], mode: str) -> set[str]:
    if JOKER not in seven:
        return ref_natural(seven)
    naturals = [c for c in seven if c != JOKER]
    made: set[str] = set()
    if mode == "wild":
        for sub in NATURAL_DECK:  # any rank and suit (a duplicate only matters for 5 Aces)
            made |= _with_joker_named(ref_natural([*naturals, sub]))
        return made
    # semi-wild: as an Ace (any suit, a fifth Ace included), everything counts ...
    for suit in SUITS:
        made |= _with_joker_named(ref_natural([*naturals, Card(14, suit)]))
    # ... as any other card only to complete a straight, a flush or a straight flush.
    for sub in NATURAL_DECK:
        seven_sub = [*naturals, sub]
        found = ref_natural(seven_sub)
        made |= _with_joker_named(found & STRAIGHT_TYPES)
        if "RF_ROYAL_MATCH" in found and _royal_match_suit(seven_sub) == sub.suit:
            made.add("RF_ROYAL_MATCH")  # the joker completed the royal flush, not the match
    return made


def ref_best(made: set[str]) -> str:
    return min(made, key=HAND_IDS.index) if made else NOTHING


# ----------------------------------------------------------------------------------------
# Every hand id, both modes: (cards, best in semi, best in wild)

CASES = [
    # SF7_NATURAL
    ("8s 9s Ts Js Qs Ks As", "SF7_NATURAL", "SF7_NATURAL"),
    ("As 2s 3s 4s 5s 6s 7s", "SF7_NATURAL", "SF7_NATURAL"),
    ("As 2s 3s 4s 5s 6s 8s", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),
    ("Ks As 2s 3s 4s 5s 6s", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # no wrap-around
    # RF_ROYAL_MATCH
    ("As Ks Qs Js Ts Kh Qh", "RF_ROYAL_MATCH", "RF_ROYAL_MATCH"),
    ("Jk Ks Qs Js Ts Kh Qh", "RF_ROYAL_MATCH", "RF_ROYAL_MATCH"),  # joker completes royal
    ("As Ks Qs Jk Ts Kd Qd", "RF_ROYAL_MATCH", "RF_ROYAL_MATCH"),
    ("As Ks Qs Js Ts Kh Qd", "ROYAL_FLUSH", "ROYAL_FLUSH"),  # K-Q not suited
    ("As Ks Qs Js Ts Kh Jh", "ROYAL_FLUSH", "ROYAL_FLUSH"),  # K-J is no royal match
    ("As Ks Qs Js Ts Kh Jk", "ROYAL_FLUSH", "RF_ROYAL_MATCH"),  # only wild makes the match
    ("Jk Ks Qs Js 9s Kh Qh", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # K-Q-J-T(joker)-9
    # SF7_JOKER
    ("Jk 3h 4h 5h 6h 7h 8h", "SF7_JOKER", "SF7_JOKER"),  # joker at an end
    ("Jk 2h 3h 5h 6h 7h 8h", "SF7_JOKER", "SF7_JOKER"),  # joker fills the gap
    ("Jk Ah 2h 3h 4h 5h 6h", "SF7_JOKER", "SF7_JOKER"),  # A-7 with the joker as the 7
    ("Jk 9h Th Jh Qh Kh Ah", "SF7_JOKER", "SF7_JOKER"),  # 8..A
    ("Jk 2h 3h 4h 5h 8h 9h", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # gap two wide
    ("Jk 3h 4h 5h 6h 7h 8d", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # only 5 suited
    # FIVE_ACES
    ("Jk Ac Ad Ah As 2c 3d", "FIVE_ACES", "FIVE_ACES"),
    ("Jk Kc Kd Kh Ks 2c 3d", "FOUR_OF_A_KIND", "FOUR_OF_A_KIND"),  # no five kings
    ("Ac Ad Ah As Kc Kd 2h", "FOUR_OF_A_KIND", "FOUR_OF_A_KIND"),
    # ROYAL_FLUSH
    ("As Ks Qs Js Ts 2c 3d", "ROYAL_FLUSH", "ROYAL_FLUSH"),
    ("Jk Ks Qs Js Ts 2c 3d", "ROYAL_FLUSH", "ROYAL_FLUSH"),  # joker as the Ace
    ("Jk As Ks Qs Ts 2c 3d", "ROYAL_FLUSH", "ROYAL_FLUSH"),  # joker as the Jack
    ("As Ks Qs Js 9s 2c 3d", "FLUSH", "FLUSH"),
    # STRAIGHT_FLUSH
    ("9h Th Jh Qh Kh 2c 3d", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),
    ("Ah 2h 3h 4h 5h 9c Kd", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # A-2-3-4-5
    ("Jk 2h 3h 5h 6h 9c Kd", "STRAIGHT_FLUSH", "STRAIGHT_FLUSH"),  # joker fills 4h
    ("Qh Kh Ah 2h 3h 9c 5d", "FLUSH", "FLUSH"),  # no wrap-around
    # FOUR_OF_A_KIND
    ("Kc Kd Kh Ks 2c 5d 9h", "FOUR_OF_A_KIND", "FOUR_OF_A_KIND"),
    ("Jk Ac Ad Ah 2c 5d 9h", "FOUR_OF_A_KIND", "FOUR_OF_A_KIND"),  # joker as the 4th Ace
    ("Jk Kc Kd Kh 2c 5d 9h", "THREE_OF_A_KIND", "FOUR_OF_A_KIND"),
    # FULL_HOUSE
    ("Kc Kd Kh 2s 2c 5d 9h", "FULL_HOUSE", "FULL_HOUSE"),
    ("Jk Ac Ad Kc Kd 5h 9s", "FULL_HOUSE", "FULL_HOUSE"),  # AAA KK
    ("Jk Kc Kd Qc Qd 5h 9s", NOTHING, "FULL_HOUSE"),  # semi: two pair and an Ace
    ("Jk Kc Kd Kh 5c 6h 9s", "THREE_OF_A_KIND", "FOUR_OF_A_KIND"),
    ("Jk Ac Kc Kd Qc Qd 9s", "THREE_PAIR", "FULL_HOUSE"),  # semi: AA KK QQ
    # FLUSH
    ("2h 5h 7h 9h Jh 3c Kd", "FLUSH", "FLUSH"),
    ("Jk 2h 5h 7h 9h 3c Kd", "FLUSH", "FLUSH"),  # joker completes the flush
    ("Jk 2h 5h 7h 3c Kd 9s", NOTHING, NOTHING),
    # THREE_OF_A_KIND
    ("7c 7d 7h 2s 9c Jd Kh", "THREE_OF_A_KIND", "THREE_OF_A_KIND"),
    ("Jk Ac Ad 2s 9c Jd 5h", "THREE_OF_A_KIND", "THREE_OF_A_KIND"),
    ("Jk 7c 7d 2s 9c Jd Kh", NOTHING, "THREE_OF_A_KIND"),  # joker + pair of 7s
    # STRAIGHT
    ("5c 6d 7h 8s 9c Jd Kh", "STRAIGHT", "STRAIGHT"),
    ("Ac 2d 3h 4s 5c 9d Jh", "STRAIGHT", "STRAIGHT"),
    ("Jk 5c 6d 7h 9c Jd Kh", "STRAIGHT", "STRAIGHT"),  # joker as the 8
    ("Jk Kc Qd Jh Tc 4d 2h", "STRAIGHT", "STRAIGHT"),  # joker as the Ace
    ("Qc Kd Ah 2s 3c 8d 9h", NOTHING, NOTHING),  # Q-K-A-2-3 is no straight
    # THREE_PAIR
    ("2c 2d 5h 5s 9c 9d Kh", "THREE_PAIR", "THREE_PAIR"),
    ("Jk Ac 2d 2h 5s 5c 9d", "THREE_PAIR", "FULL_HOUSE"),  # semi: joker pairs the Ace
    ("Jk Kc 2d 2h 5s 9c 8d", NOTHING, "THREE_OF_A_KIND"),
    ("Jk Kc 2d 2h 5s 5c 9d", NOTHING, "FULL_HOUSE"),
    ("2c 2d 5h 5s 9c Jd Kh", NOTHING, NOTHING),  # two pair
    ("2c 4d 6h 8s Tc Qd Kh", NOTHING, NOTHING),
]


@pytest.mark.parametrize(("hand", "semi", "wild"), CASES)
def test_every_hand_id_in_both_joker_modes(hand: str, semi: str, wild: str) -> None:
    seven = cards(hand)
    assert classify(seven) == semi
    assert classify(seven, "semi") == semi
    assert classify(seven, "wild") == wild
    # and the literal reference agrees on every case
    assert ref_best(ref_hands(seven, "semi")) == semi
    assert ref_best(ref_hands(seven, "wild")) == wild


def test_cases_cover_every_hand_id_in_both_modes() -> None:
    for column in (1, 2):
        assert {case[column] for case in CASES} >= set(HAND_IDS) | {NOTHING}


def test_hands_made_of_a_7_card_straight_flush_8_to_ace() -> None:
    assert hands_made(cards("8s 9s Ts Js Qs Ks As")) == {
        "SF7_NATURAL", "ROYAL_FLUSH", "STRAIGHT_FLUSH", "FLUSH", "STRAIGHT"}


def test_hands_made_of_sf7_joker_includes_royal_flush_with_joker_as_ace() -> None:
    made = hands_made(cards("Jk 8s 9s Ts Js Qs Ks"))
    assert {"SF7_JOKER", "ROYAL_FLUSH", "STRAIGHT_FLUSH"} <= made
    assert "SF7_NATURAL" not in made


def test_hands_made_of_royal_match_includes_royal_flush() -> None:
    assert "ROYAL_FLUSH" in hands_made(cards("As Ks Qs Js Ts Kh Qh"))


def test_five_aces_also_makes_four_of_a_kind_but_not_full_house() -> None:
    made = hands_made(cards("Jk Ac Ad Ah As 2c 3d"))
    assert made == {"FIVE_ACES", "FOUR_OF_A_KIND", "THREE_OF_A_KIND"}


def test_nothing_makes_no_hand() -> None:
    assert hands_made(cards("2c 4d 6h 8s Tc Qd Kh")) == frozenset()


def test_semi_wild_joker_alone_is_a_single_ace() -> None:
    # The joker is an Ace: with no natural Ace it pairs nothing.
    assert classify(cards("Jk 2c 2d 7h 7s 9c Jd")) == NOTHING
    assert "THREE_PAIR" in hands_made(cards("Jk Ac 2d 2h 7s 7c 9d"))


def test_count_of_natural_7_card_straight_flushes_is_32() -> None:
    # 8 windows (A-7 .. 8-A) per suit.
    found = 0
    for suit in SUITS:
        for ranks in itertools.combinations(RANKS, 7):
            if classify([Card(r, suit) for r in ranks]) == "SF7_NATURAL":
                found += 1
    assert found == 32


def test_count_of_joker_7_card_straight_flushes_is_49_per_suit() -> None:
    # 8 windows x 7 six-card subsets, minus the 7 sets of six consecutive ranks that two
    # neighbouring windows share.
    for mode in ("semi", "wild"):
        found = sum(classify([JOKER, *(Card(r, "d") for r in ranks)], mode) == "SF7_JOKER"
                    for ranks in itertools.combinations(RANKS, 6))
        assert found == 8 * 7 - 7


# ----------------------------------------------------------------------------------------
# Brute-force cross-check against the reference

def _check_against_reference(seven: Sequence[Card]) -> None:
    for mode in ("semi", "wild"):
        expected = ref_hands(seven, mode)
        assert hands_made(seven, mode) == expected, (mode, [str(c) for c in seven])
        assert classify(seven, mode) == ref_best(expected)


@pytest.mark.parametrize(("ranks", "suits"), [
    ((9, 10, 11, 12, 13, 14), "sh"),  # royals, royal matches, broadway
    ((14, 2, 3, 4, 5, 6, 7), "cd"),  # wheels, A-7 windows
    ((12, 13, 14), "cdhs"),  # quads, five aces, full houses, three pair
])
def test_exhaustive_small_decks_against_reference(ranks: tuple[int, ...], suits: str) -> None:
    deck = [Card(r, s) for r in ranks for s in suits] + [JOKER]
    hands = list(itertools.combinations(deck, 7))
    rng = random.Random(7)
    if len(hands) > 400:
        hands = rng.sample(hands, 400)
    for seven in hands:
        _check_against_reference(seven)


def _biased_hand(data: st.DataObject) -> list[Card]:
    """Seven cards drawn from a small sub-deck so that rare hands come up often."""
    n_suits = data.draw(st.integers(1, 4))
    suits = data.draw(st.permutations(SUITS))[:n_suits]
    low = data.draw(st.integers(2, 14))
    width = data.draw(st.integers(3, 13))
    ranks = [2 + (low - 2 + i) % 13 for i in range(width)]
    deck = [Card(r, s) for r in ranks for s in suits]
    with_joker = data.draw(st.booleans())
    need = 6 if with_joker else 7
    extra = [c for c in NATURAL_DECK if c not in deck]
    while len(deck) < need:
        deck.append(extra.pop(data.draw(st.integers(0, len(extra) - 1))))
    picked = data.draw(st.lists(st.sampled_from(deck), min_size=need, max_size=need,
                                unique=True))
    return [*picked, JOKER] if with_joker else picked


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_biased_random_hands_against_reference(data: st.DataObject) -> None:
    _check_against_reference(_biased_hand(data))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True))
def test_uniform_random_hands_against_reference(seven: list[Card]) -> None:
    _check_against_reference(seven)


# ----------------------------------------------------------------------------------------
# classify_parsed: the batch's hot path gives classify's answer for cards parse_cards made

@pytest.mark.parametrize(("hand", "semi", "wild"), CASES)
def test_classify_parsed_is_classify_on_every_case(hand: str, semi: str, wild: str) -> None:
    seven = cards(hand)
    assert (classify_parsed(seven, False), classify_parsed(seven, True)) == (semi, wild)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_classify_parsed_is_classify_on_random_hands(data: st.DataObject) -> None:
    seven = parse_cards([str(c) for c in _biased_hand(data)])
    for mode in ("semi", "wild"):
        assert classify_parsed(seven, mode == "wild") == classify(seven, mode)


def test_classify_parsed_is_classify_on_a_seeded_sample() -> None:
    rng = random.Random(22)
    for _ in range(20_000):
        seven = rng.sample(DECK, 7)
        for mode in ("semi", "wild"):
            assert classify_parsed(seven, mode == "wild") == classify(seven, mode)


# ----------------------------------------------------------------------------------------
# Symmetries

@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True),
       st.permutations(SUITS), st.randoms(use_true_random=False))
def test_card_order_and_suit_permutation_never_change_the_result(
        seven: list[Card], perm: list[str], rnd: random.Random) -> None:
    rename = dict(zip(SUITS, perm, strict=True))
    renamed = [c if c == JOKER else Card(c.rank, rename[c.suit]) for c in seven]
    rnd.shuffle(renamed)
    for mode in ("semi", "wild"):
        assert classify(renamed, mode) == classify(seven, mode)
        assert hands_made(renamed, mode) == hands_made(seven, mode)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True))
def test_wild_is_never_worse_than_semi(seven: list[Card]) -> None:
    assert hand_rank(classify(seven, "wild")) <= hand_rank(classify(seven, "semi"))
    assert hands_made(seven, "semi") <= hands_made(seven, "wild")


# ----------------------------------------------------------------------------------------
# Input validation

@pytest.mark.parametrize("text", [
    "As Ks Qs Js Ts Kh",  # 6 cards
    "As Ks Qs Js Ts Kh Qh 2c",  # 8 cards
])
def test_wrong_card_count_is_refused(text: str) -> None:
    seven = parse_cards(text.split(), count=None)
    with pytest.raises(CardError, match="expected 7 cards"):
        classify(seven)


def test_duplicate_card_is_refused() -> None:
    with pytest.raises(CardError, match="duplicate"):
        classify([Card(14, "s"), Card(14, "s"), *cards("2c 3c 4c 5c 6c 7c 8c")[:5]])
    with pytest.raises(CardError, match="duplicate"):
        hands_made([JOKER, JOKER, *cards("2c 3c 4c 5c 6c 7c 8c")[:5]])


def test_not_a_card_is_refused() -> None:
    with pytest.raises(CardError, match="not a card"):
        classify([Card(15, "s"), *cards("2c 3c 4c 5c 6c 7c 8c")[:6]])
    with pytest.raises(CardError, match="not a card"):
        classify([Card(5, "x"), *cards("2c 3c 4c 5c 6c 7c 8c")[:6]])
    with pytest.raises(CardError, match="not a card"):
        classify(["As", *cards("2c 3c 4c 5c 6c 7c 8c")[:6]])  # type: ignore[list-item]


def test_unknown_joker_mode_is_refused() -> None:
    with pytest.raises(JokerModeError, match="joker"):
        classify(cards("2c 4d 6h 8s Tc Qd Kh"), "bug")


def test_hand_rank_orders_hand_ids_best_first() -> None:
    assert [hand_rank(h) for h in HAND_IDS] == list(range(len(HAND_IDS)))
    assert hand_rank(NOTHING) == len(HAND_IDS)
    with pytest.raises(ValueError, match="unknown hand"):
        hand_rank("PAIR")
