"""Texas Hold'em hand values (the poker room's Bad Beat Jackpot, RULES.md section 6).

A thin wrapper over the ``eval7`` evaluator (docs/bbj.md says why that one): the best
five-card hand of 5 to 7 :class:`~core.kernel.cards.Card` as a :class:`HoldemHand`, whose
``value`` orders hands exactly as poker does (higher is better, equal is a tie: suits never
count) and whose ``category`` is one of :data:`HAND_NAMES`.  Hold'em has no joker: a joker,
a duplicate card or a wrong count is refused with a :class:`HoldemError`.

Only eval7's documented surface is used (``Card``, ``evaluate``, ``handtype``); the category
boundaries that matter to the jackpot (a royal flush, Aces full) are found by evaluating
reference hands, not by reading eval7's bit layout.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from core.kernel.cards import RANKS, SUITS, Card, CardError, parse_cards

with warnings.catch_warnings():
    # eval7 0.1.11 builds its (unused here) range parser with pyparsing names that
    # pyparsing 3.3 deprecates; the warnings say nothing about hand values.
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

# The hold'em hand names of CLI.md, best first.
HAND_NAMES: tuple[str, ...] = (
    "ROYAL_FLUSH", "STRAIGHT_FLUSH", "FOUR_OF_A_KIND", "FULL_HOUSE", "FLUSH", "STRAIGHT",
    "THREE_OF_A_KIND", "TWO_PAIR", "ONE_PAIR", "HIGH_CARD",
)

_CATEGORY_OF_HANDTYPE = {
    "Straight Flush": "STRAIGHT_FLUSH", "Quads": "FOUR_OF_A_KIND", "Full House": "FULL_HOUSE",
    "Flush": "FLUSH", "Straight": "STRAIGHT", "Trips": "THREE_OF_A_KIND",
    "Two Pair": "TWO_PAIR", "Pair": "ONE_PAIR", "High Card": "HIGH_CARD",
}


class HoldemError(CardError):
    """Cards that are not a hold'em hand (a joker, a duplicate, a wrong count)."""


class HoldemHand(NamedTuple):
    """A player's best five-card hand: ``value`` compares (higher wins), ``category`` names it."""

    value: int
    category: str

    def beats(self, other: HoldemHand) -> bool:
        return self.value > other.value

    @property
    def category_rank(self) -> int:
        """0 for HIGH_CARD ... 9 for ROYAL_FLUSH."""
        return len(HAND_NAMES) - 1 - HAND_NAMES.index(self.category)


_EVAL7_CARD: dict[Card, eval7.Card] = {
    Card(r, s): eval7.Card(str(Card(r, s))) for s in SUITS for r in RANKS
}


def _value(cards: Iterable[Card]) -> int:
    """eval7's value of the best five of the cards; the cards are already checked."""
    return int(eval7.evaluate([_EVAL7_CARD[c] for c in cards]))


def _reference_value(text: str) -> int:
    return _value(parse_cards(text.split(), count=5))


ROYAL_FLUSH_VALUE = _reference_value("As Ks Qs Js Ts")
LOWEST_FOUR_OF_A_KIND_VALUE = _reference_value("2s 2h 2d 2c 3s")
ACES_FULL_OF_TWOS_VALUE = _reference_value("As Ah Ad 2c 2s")
ACES_FULL_OF_TENS_VALUE = _reference_value("As Ah Ad Tc Ts")
HIGHEST_FULL_HOUSE_VALUE = _reference_value("As Ah Ad Kc Ks")


def category_of(value: int) -> str:
    """The CLI.md name of an evaluated value."""
    if value == ROYAL_FLUSH_VALUE:
        return "ROYAL_FLUSH"
    return _CATEGORY_OF_HANDTYPE[str(eval7.handtype(value))]


def check_cards(cards: Sequence[Card], *, minimum: int = 5, maximum: int = 7,
                what: str = "cards") -> None:
    """Refuse a joker, a duplicate card or a count outside ``minimum..maximum``."""
    seen: set[Card] = set()
    for c in cards:
        if c.is_joker:
            raise HoldemError(f"{what}: card Jk: Texas Hold'em is dealt without a joker")
        if c not in _EVAL7_CARD:
            raise HoldemError(f"{what}: {c!r} is not a card")
        if c in seen:
            raise HoldemError(f"{what}: duplicate card {c}")
        seen.add(c)
    if not minimum <= len(cards) <= maximum:
        want = str(minimum) if minimum == maximum else f"{minimum} to {maximum}"
        raise HoldemError(f"{what}: expected {want} cards, got {len(cards)}")


def evaluate(cards: Sequence[Card]) -> HoldemHand:
    """The best five-card hand of 5, 6 or 7 cards."""
    check_cards(cards)
    value = _value(cards)
    return HoldemHand(value, category_of(value))


def is_aces_full(hand: HoldemHand) -> bool:
    """Aces full of anything (AAA22 ... AAAKK)."""
    return ACES_FULL_OF_TWOS_VALUE <= hand.value <= HIGHEST_FULL_HOUSE_VALUE


def hole_cards_play(board: Sequence[Card], hole: Sequence[Card]) -> tuple[bool, bool]:
    """Whether each of the two hole cards plays (RULES.md section 6, point 3).

    A hole card plays when the best value of all seven cards is strictly better than the
    best value of the other six (the board plus the other hole card).  A kicker that only
    ties a board card therefore does not play (point 4).
    """
    check_cards(board, minimum=5, maximum=5, what="board")
    check_cards(hole, minimum=2, maximum=2, what="hole cards")
    check_cards([*board, *hole], minimum=7, maximum=7, what="board and hole cards")
    best = _value([*board, *hole])
    first, second = hole
    return best > _value([*board, second]), best > _value([*board, first])
