"""Cards and the 53-card deck (52 + one joker), in the notation of CLI.md.

Ranks are ints 2..14 (Ace = 14); suits are ``"c" "d" "h" "s"``.  The joker is
rank 0 with suit ``""`` and prints as ``Jk``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

SUITS = ("c", "d", "h", "s")
RANKS = tuple(range(2, 15))
RANK_CHARS = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T",
              11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_OF = {v: k for k, v in RANK_CHARS.items()} | {"10": 10}
_SUIT_SYMBOLS = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}
JOKER_RANK = 0


class CardError(ValueError):
    """Bad card input; the message names the card and the problem."""


class Card(NamedTuple):
    rank: int  # 2..14, 0 for the joker
    suit: str  # c d h s, "" for the joker

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    def __str__(self) -> str:
        return "Jk" if self.is_joker else RANK_CHARS[self.rank] + self.suit


JOKER = Card(JOKER_RANK, "")


def parse_card(text: str) -> Card:
    """``"As"``, ``"10h"``, ``"T♠"``, ``"jk"``, ``"joker"`` -> Card.  Case-insensitive."""
    raw = text
    t = text.strip()
    if t.lower() in ("jk", "joker"):
        return JOKER
    if len(t) < 2:
        raise CardError(f"card {raw!r}: not a card (expected rank and suit, e.g. 'As', 'Td', 'Jk')")
    rank_txt, suit_txt = t[:-1].upper(), t[-1]
    suit = _SUIT_SYMBOLS.get(suit_txt, suit_txt.lower())
    if suit not in SUITS:
        raise CardError(f"card {raw!r}: unknown suit {suit_txt!r} (use c, d, h, s)")
    if rank_txt not in _RANK_OF:
        raise CardError(f"card {raw!r}: unknown rank {rank_txt!r} (use 2-9, T, J, Q, K, A)")
    return Card(_RANK_OF[rank_txt], suit)


def parse_cards(texts: Iterable[str], count: int | None = 7) -> tuple[Card, ...]:
    """Parse a hand; refuses unknown cards, duplicates and a wrong count."""
    cards: list[Card] = []
    for t in texts:
        c = parse_card(t)
        if c in cards:
            raise CardError(f"card {t!r}: duplicate card {c} (a 53-card deck has one of each)")
        cards.append(c)
    if count is not None and len(cards) != count:
        raise CardError(f"cards: expected {count} cards, got {len(cards)}")
    return tuple(cards)


def format_cards(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def full_deck(jokers: int = 1) -> list[Card]:
    """The 52 cards, then ``jokers`` jokers (Fortune Pai Gow uses 53 cards)."""
    if jokers not in (0, 1):
        raise ValueError("a deck has 0 or 1 joker")
    deck = [Card(r, s) for s in SUITS for r in RANKS]
    return deck + [JOKER] * jokers
