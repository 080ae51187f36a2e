"""Texas Hold'em hand values (core/pokerroom/rules/holdem.py, the eval7 wrapper; RULES.md section
6).

The wrapper is cross-checked against a small reference evaluator written here, plainly from the
rules of poker, on random hands of 5, 6 and 7 cards (a full deck and narrow decks, so that
quads, full houses, flushes and straight flushes come up often).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest

from core.kernel.cards import JOKER, RANKS, SUITS, Card, CardError, parse_cards
from core.pokerroom.rules.holdem import (
    HAND_NAMES,
    HoldemError,
    evaluate,
    hole_cards_play,
    is_aces_full,
)

# --- the reference evaluator -----------------------------------------------------------------

RefKey = tuple[int, tuple[int, ...]]  # (category 0 = HIGH_CARD .. 9 = ROYAL_FLUSH, tie-break)


def ref_five(cards: Sequence[Card]) -> RefKey:
    ranks = sorted((c.rank for c in cards), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_high = 0
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight_high = distinct[0]
    elif distinct == [14, 5, 4, 3, 2]:  # the wheel: the Ace plays low
        straight_high = 5
    groups = sorted(((n, r) for r, n in Counter(ranks).items()), reverse=True)
    shape = [n for n, _ in groups]
    by_group = tuple(r for _, r in groups)
    if straight_high and flush:
        return (9 if straight_high == 14 else 8, (straight_high,))
    if shape == [4, 1]:
        return 7, by_group
    if shape == [3, 2]:
        return 6, by_group
    if flush:
        return 5, tuple(ranks)
    if straight_high:
        return 4, (straight_high,)
    if shape == [3, 1, 1]:
        return 3, by_group
    if shape == [2, 2, 1]:
        return 2, by_group
    if shape == [2, 1, 1, 1]:
        return 1, by_group
    return 0, tuple(ranks)


def ref_best(cards: Sequence[Card]) -> RefKey:
    return max(ref_five(five) for five in combinations(cards, 5))


def ref_name(key: RefKey) -> str:
    return HAND_NAMES[len(HAND_NAMES) - 1 - key[0]]


def random_hands(rng: random.Random, count: int) -> list[tuple[Card, ...]]:
    """Hands of 5-7 cards from the full deck and from narrow decks (few ranks or suits)."""
    full = [Card(r, s) for s in SUITS for r in RANKS]
    hands: list[tuple[Card, ...]] = []
    for i in range(count):
        size = 5 + i % 3
        if i % 3 == 0:
            deck = full
        elif i % 3 == 1:  # few ranks: pairs, trips, full houses, quads
            ranks = rng.sample(RANKS, 4)
            deck = [c for c in full if c.rank in ranks]
        else:  # few suits and a run of ranks: flushes, straights, straight flushes
            low = rng.choice(range(2, 11))
            run = [14, 2, 3, 4, 5, 6, 7] if low == 2 and rng.random() < 0.5 else \
                list(range(low, min(low + 6, 15)))
            suits = rng.sample(SUITS, 2)
            deck = [c for c in full if c.rank in run and c.suit in suits]
        hands.append(tuple(rng.sample(deck, size)))
    return hands


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split(), count=None)


# --- the wrapper against the reference -------------------------------------------------------

def test_wrapper_names_every_hand_as_the_reference_does_on_random_hands() -> None:
    rng = random.Random(20240611)
    seen: set[str] = set()
    for hand in random_hands(rng, 6000):
        got = evaluate(hand)
        assert got.category == ref_name(ref_best(hand)), hand
        seen.add(got.category)
    assert seen == set(HAND_NAMES)  # every category was exercised


def test_wrapper_orders_hands_as_the_reference_does_across_5_6_and_7_cards() -> None:
    """Equal reference keys give equal values and a better key a higher value, whatever the
    number of cards: the hole-card rule compares a 7-card value with a 6-card one."""
    rng = random.Random(7)
    hands = random_hands(rng, 4000)
    keyed = sorted(((ref_best(h), evaluate(h).value, h) for h in hands), key=lambda t: t[0])
    for (k1, v1, h1), (k2, v2, h2) in zip(keyed, keyed[1:], strict=False):
        if k1 == k2:
            assert v1 == v2, (h1, h2)
        else:
            assert v1 < v2, (h1, h2)


def test_value_of_seven_cards_is_the_best_of_its_five_card_hands() -> None:
    rng = random.Random(11)
    for hand in random_hands(rng, 600):
        if len(hand) == 7:
            assert evaluate(hand).value == max(evaluate(f).value for f in combinations(hand, 5))


@pytest.mark.parametrize(("text", "name"), [
    ("As Ks Qs Js Ts 2h 3d", "ROYAL_FLUSH"),
    ("Ah Kh Qh Jh Th", "ROYAL_FLUSH"),
    ("5s 4s 3s 2s As Kd", "STRAIGHT_FLUSH"),
    ("9h 8h 7h 6h 5h Ah Kh", "STRAIGHT_FLUSH"),
    ("7c 7d 7h 7s Ad", "FOUR_OF_A_KIND"),
    ("Ah Ad Ac Ts Td Kc Kh", "FULL_HOUSE"),
    ("2h 9h Jh Qh 4h 4d 4c", "FLUSH"),
    ("As 2d 3c 4h 5s 9d", "STRAIGHT"),
    ("Tc Jd Qh Ks As 2c 2d", "STRAIGHT"),
    ("8c 8d 8h Ks 2d 4c 6h", "THREE_OF_A_KIND"),
    ("8c 8d 9h 9s 2d 2c 6h", "TWO_PAIR"),
    ("Kc Kd 9h 7s 2d", "ONE_PAIR"),
    ("Ac Jd 9h 7s 2d 4c 3h", "HIGH_CARD"),
])
def test_category_names_of_cli_md(text: str, name: str) -> None:
    assert evaluate(cards(text)).category == name


def test_suits_never_break_a_tie() -> None:
    assert evaluate(cards("As Ks Qs Js Ts")).value == evaluate(cards("Ad Kd Qd Jd Td")).value
    assert evaluate(cards("Ah Ad Ac Ts Td")).value == evaluate(cards("As Ad Ac Th Tc")).value


def test_aces_full_is_aaa22_to_aaakk_only() -> None:
    assert is_aces_full(evaluate(cards("Ah Ad Ac 2s 2d")))
    assert is_aces_full(evaluate(cards("Ah Ad Ac Ks Kd")))
    assert not is_aces_full(evaluate(cards("Kh Kd Kc As Ad")))
    assert not is_aces_full(evaluate(cards("Ah Ad Ac As 2d")))


# --- no joker, no duplicate, 5 to 7 cards ----------------------------------------------------

def test_holdem_refuses_the_joker() -> None:
    with pytest.raises(HoldemError, match="joker"):
        evaluate((*cards("As Ks Qs Js"), JOKER))


def test_holdem_refuses_a_duplicate_card() -> None:
    with pytest.raises(HoldemError, match="duplicate card As"):
        evaluate((*cards("As Ks Qs Js"), Card(14, "s")))


@pytest.mark.parametrize("text", ["As Ks Qs Js", "As Ks Qs Js Ts 9s 8s 7s"])
def test_holdem_needs_5_to_7_cards(text: str) -> None:
    with pytest.raises(HoldemError, match="expected 5 to 7 cards"):
        evaluate(cards(text))


def test_holdem_errors_are_card_errors() -> None:
    assert issubclass(HoldemError, CardError)
    assert issubclass(HoldemError, ValueError)


# --- a hole card plays (RULES.md 6, points 3 and 4) ------------------------------------------

def test_hole_cards_play_both_with_a_pocket_pair_making_quads() -> None:
    assert hole_cards_play(cards("Ah Ad Tc 7s 7c"), cards("7h 7d")) == (True, True)


def test_hole_card_kicker_that_only_ties_the_board_does_not_play() -> None:
    # 7777 with the board's Q as kicker either way: the Qd adds nothing
    assert hole_cards_play(cards("7h 7d 7s Qc 3d"), cards("7c Qd")) == (True, False)
    # a K kicker beats the board's Q: it plays
    assert hole_cards_play(cards("7h 7d 7s Qc 3d"), cards("7c Kd")) == (True, True)


def test_hole_cards_do_not_play_when_the_board_plays() -> None:
    assert hole_cards_play(cards("As Ks Qs Js Ts"), cards("2c 3d")) == (False, False)


def test_hole_card_plays_when_it_is_strictly_better_than_the_other_six() -> None:
    # the 4h would only make the same 9-high straight flush the 9h already makes
    assert hole_cards_play(cards("5h 6h 7h 8h 2c"), cards("9h 4h")) == (True, False)


def test_hole_cards_play_checks_its_cards() -> None:
    with pytest.raises(HoldemError, match="board"):
        hole_cards_play(cards("5h 6h 7h 8h"), cards("9h 4h"))
    with pytest.raises(HoldemError, match="hole cards"):
        hole_cards_play(cards("5h 6h 7h 8h 2c"), cards("9h"))
    with pytest.raises(HoldemError, match="duplicate card 8h"):
        hole_cards_play(cards("5h 6h 7h 8h 2c"), cards("9h 8h"))
