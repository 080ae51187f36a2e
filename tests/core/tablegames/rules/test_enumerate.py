"""The exact Fortune hand counts (core/tablegames/rules/enumerate.py; RULES.md section 1).

The enumerator never deals a hand; these tests check it against things that do:
brute force over ``fortune.hands_made`` on reduced decks (every hand, both joker modes),
random full-deck hands from the classifier, and anchors derived here by counting.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.tablegames.rules.enumerate as enumerate_mod
from core.kernel.cards import JOKER, RANKS, SUITS, Card, full_deck
from core.tablegames.rules.enumerate import (
    FULL_DECK_HANDS,
    DeckError,
    HandCounts,
    cache_key,
    count_hands,
)
from core.tablegames.rules.fortune import HAND_IDS, NOTHING, JokerModeError, classify, hands_made

MODES = ("semi", "wild")


@pytest.fixture(scope="module")
def full() -> dict[str, HandCounts]:
    return {mode: count_hands(mode, use_cache=False) for mode in MODES}


def brute_force(ranks: tuple[int, ...], with_joker: bool, mode: str) -> Counter[frozenset[str]]:
    deck = [Card(r, s) for s in SUITS for r in ranks] + ([JOKER] if with_joker else [])
    return Counter(hands_made(h, mode) for h in itertools.combinations(deck, 7))


# ------------------------------------------------------------------------------------------
# Totals


@pytest.mark.parametrize("mode", MODES)
def test_counts_add_up_to_every_7_card_hand_of_53_cards(full: dict[str, HandCounts],
                                                        mode: str) -> None:
    counts = full[mode]
    assert FULL_DECK_HANDS == math.comb(53, 7) == 154_143_080
    assert counts.total == FULL_DECK_HANDS
    best = counts.best()
    assert list(best) == [*HAND_IDS, NOTHING]
    assert sum(best.values()) == FULL_DECK_HANDS
    assert all(n >= 0 for n in best.values())
    assert sum(counts.best_listed(["FULL_HOUSE", "FIVE_ACES"]).values()) == FULL_DECK_HANDS


def test_hands_without_the_joker_count_the_same_in_both_modes() -> None:
    # the joker modes differ only in what the joker does
    semi = count_hands("semi", with_joker=False, use_cache=False)
    wild = count_hands("wild", with_joker=False, use_cache=False)
    assert semi.made == wild.made
    assert semi.total == math.comb(52, 7)


# ------------------------------------------------------------------------------------------
# Brute force on reduced decks: exactly the same count of every hands_made set


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("ranks", "with_joker"), [
    ((10, 11, 12, 13, 14), True),  # royals, royal match, five aces
    ((2, 3, 4, 5, 14), True),  # the wheel, the joker as an Ace next to low cards
    ((9, 10, 11, 12, 13, 14), False),  # natural deck: quads, royal flush with match
    ((2, 3, 4, 5, 6), True),  # no Ace in the deck: the semi joker pairs nothing
])
def test_enumerator_matches_brute_force_over_a_reduced_deck(
        ranks: tuple[int, ...], with_joker: bool, mode: str) -> None:
    counts = count_hands(mode, ranks=ranks, with_joker=with_joker, use_cache=False)
    assert counts.made_sets() == dict(brute_force(ranks, with_joker, mode))
    assert counts.total == math.comb(4 * len(ranks) + with_joker, 7)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ranks", [
    (8, 9, 10, 11, 12, 13, 14),  # 7-card straight flush 8-A (also a royal), with joker
    (2, 3, 4, 5, 6, 7, 14),  # 7-card straight flush A-7, Ace low
    (9, 10, 11, 12, 13, 14),
])
def test_enumerator_matches_brute_force_over_seven_card_straight_flush_decks(
        ranks: tuple[int, ...], mode: str) -> None:
    counts = count_hands(mode, ranks=ranks, use_cache=False)
    assert counts.made_sets() == dict(brute_force(ranks, True, mode))


@settings(max_examples=30, deadline=None)
@given(ranks=st.sets(st.sampled_from(RANKS), min_size=2, max_size=4),
       with_joker=st.booleans(), mode=st.sampled_from(MODES))
def test_enumerator_matches_brute_force_for_any_small_set_of_ranks(
        ranks: set[int], with_joker: bool, mode: str) -> None:
    deck = tuple(sorted(ranks))
    counts = count_hands(mode, ranks=deck, with_joker=with_joker, use_cache=False)
    assert counts.made_sets() == dict(brute_force(deck, with_joker, mode))


# ------------------------------------------------------------------------------------------
# Random full-deck hands: frequencies consistent with the exact probabilities


@pytest.mark.parametrize("mode", MODES)
def test_random_hands_classify_with_the_exact_frequencies(full: dict[str, HandCounts],
                                                          mode: str) -> None:
    rng = random.Random(20240607)
    deck = full_deck()
    n = 60_000
    seen_best: Counter[str] = Counter()
    seen_sets: Counter[frozenset[str]] = Counter()
    for _ in range(n):
        hand = rng.sample(deck, 7)
        seen_best[classify(hand, mode)] += 1
        seen_sets[hands_made(hand, mode)] += 1
    exact_sets = full[mode].made_sets()
    assert set(seen_sets) <= set(exact_sets)  # every hand seen is one the count knows
    for observed, exact in ((seen_best, full[mode].best()), (seen_sets, exact_sets)):
        for key, count in exact.items():
            p = count / FULL_DECK_HANDS
            sigma = math.sqrt(n * p * (1 - p))
            assert abs(observed[key] - n * p) <= 6 * sigma + 2, (key, observed[key], n * p)


# ------------------------------------------------------------------------------------------
# Invariance: the enumerator's classes assume suits are interchangeable and order is moot


@settings(max_examples=200, deadline=None)
@given(hand=st.lists(st.sampled_from(full_deck()), min_size=7, max_size=7, unique=True),
       suits=st.permutations(SUITS), order=st.randoms(use_true_random=False),
       mode=st.sampled_from(MODES))
def test_swapping_suits_or_reordering_cards_never_changes_the_hand(
        full: dict[str, HandCounts], hand: list[Card], suits: list[str],
        order: random.Random, mode: str) -> None:
    relabel = dict(zip(SUITS, suits, strict=True))
    swapped = [c if c == JOKER else Card(c.rank, relabel[c.suit]) for c in hand]
    order.shuffle(swapped)
    assert hands_made(swapped, mode) == hands_made(hand, mode)
    assert classify(swapped, mode) == classify(hand, mode)
    assert full[mode].made_sets()[hands_made(hand, mode)] > 0


def test_a_reduced_deck_counts_the_same_whichever_ranks_play_the_same_part() -> None:
    # 2-3-4 and 9-T-J are both three ranks without an Ace, straight or royal: only
    # pairs, trips, quads and flushes (no 5-card run) can occur, the same way in each
    for mode in MODES:
        a = count_hands(mode, ranks=(2, 3, 4), use_cache=False)
        b = count_hands(mode, ranks=(9, 10, 11), use_cache=False)
        assert a.made == b.made


# ------------------------------------------------------------------------------------------
# Anchors derived by counting


@pytest.mark.parametrize("mode", MODES)
def test_anchor_natural_seven_card_straight_flushes(full: dict[str, HandCounts],
                                                    mode: str) -> None:
    windows = len(range(1, 9))  # A-7 (Ace low) ... 8-A: lowest rank 1..8
    assert full[mode].best()["SF7_NATURAL"] == windows * 4 == 32


@pytest.mark.parametrize("mode", MODES)
def test_anchor_five_aces_is_four_aces_the_joker_and_any_two(full: dict[str, HandCounts],
                                                             mode: str) -> None:
    # nothing better fits: SF7_JOKER needs 6 suited cards, a royal match 5 royal cards of
    # one suit plus a suited K-Q, and four Aces are of four suits
    assert full[mode].best()["FIVE_ACES"] == math.comb(48, 2) == 1128


@pytest.mark.parametrize("mode", MODES)
def test_anchor_seven_card_straight_flushes_with_joker(full: dict[str, HandCounts],
                                                       mode: str) -> None:
    # 6 suited ranks inside one of the 8 seven-rank windows; a 6-rank run inside two
    # windows (2-7 ... 8-K) must be counted once
    per_window = math.comb(7, 6)
    runs_in_two_windows = len(range(2, 9))
    per_suit = 8 * per_window - runs_in_two_windows
    assert full[mode].best()["SF7_JOKER"] == 4 * per_suit == 196


def test_anchor_royal_flush_with_royal_match(full: dict[str, HandCounts]) -> None:
    natural = 4 * 3  # royal suit, match suit
    joker_in_royal = 4 * 5 * 3  # royal suit, the royal card the joker replaces, match suit
    assert full["semi"].best()["RF_ROYAL_MATCH"] == natural + joker_in_royal == 72
    # wild: the joker may also be the K or the Q of the match
    joker_in_match = 4 * 3 * 2  # royal suit, match suit, the K or the Q present
    assert full["wild"].best()["RF_ROYAL_MATCH"] == 72 + joker_in_match == 96


def test_anchor_wild_three_pair_is_natural_only(full: dict[str, HandCounts]) -> None:
    # with a wild joker any pair is trips, so three pair is best only without the joker:
    # ranks 2-2-2-1 (no straight with 4 ranks, no flush: each pair has two suits)
    pair_ranks = math.comb(13, 3)
    single_rank = 10
    suits = math.comb(4, 2) ** 3 * 4
    assert full["wild"].best()["THREE_PAIR"] == pair_ranks * single_rank * suits == 2_471_040


# ------------------------------------------------------------------------------------------
# The cache


def test_cached_result_is_read_back_without_counting_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = count_hands("wild", ranks=(10, 11, 12, 13, 14), cache_dir=tmp_path)
    assert list(tmp_path.glob("hand-counts-*.json"))

    def boom(*_: object) -> dict[int, int]:
        raise AssertionError("counted again")

    monkeypatch.setattr(enumerate_mod, "_count", boom)
    again = count_hands("wild", ranks=(10, 11, 12, 13, 14), cache_dir=tmp_path)
    assert again == first
    with pytest.raises(AssertionError):
        count_hands("semi", ranks=(10, 11, 12, 13, 14), cache_dir=tmp_path)  # other mode


def test_damaged_cache_is_recounted(tmp_path: Path) -> None:
    first = count_hands("semi", ranks=(2, 3, 4, 5, 14), cache_dir=tmp_path)
    (cache_file,) = tmp_path.glob("hand-counts-*.json")
    cache_file.write_text(cache_file.read_text().replace(": ", ": 1"))  # wrong totals
    assert count_hands("semi", ranks=(2, 3, 4, 5, 14), cache_dir=tmp_path) == first
    cache_file.write_text("{not json")
    assert count_hands("semi", ranks=(2, 3, 4, 5, 14), cache_dir=tmp_path) == first


def test_cache_key_changes_with_the_rules_the_mode_and_the_deck(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = cache_key("semi", RANKS, True)
    assert key == cache_key("semi", RANKS, True)
    assert key != cache_key("wild", RANKS, True)
    assert key != cache_key("semi", RANKS[1:], True)
    assert key != cache_key("semi", RANKS, False)
    edited = tmp_path / "fortune.py"
    edited.write_bytes(Path(enumerate_mod.fortune.__file__).read_bytes() + b"\n# rule change\n")
    monkeypatch.setattr(enumerate_mod.fortune, "__file__", str(edited))
    assert cache_key("semi", RANKS, True) != key


def test_bad_deck_or_mode_is_refused_naming_it() -> None:
    with pytest.raises(DeckError, match="ranks: 15 is not a rank"):
        count_hands("semi", ranks=(2, 15), use_cache=False)
    with pytest.raises(DeckError, match="ranks: a rank is listed twice"):
        count_hands("semi", ranks=(2, 2, 3), use_cache=False)
    with pytest.raises(JokerModeError, match="joker: unknown joker mode 'half'"):
        count_hands("half", use_cache=False)
