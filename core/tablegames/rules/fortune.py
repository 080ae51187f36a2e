"""Fortune Pai Gow Poker: the best hand of 7 cards (RULES.md section 1).

The bonus and progressive wagers are decided by the best hand that can be made from
all 7 cards of a 53-card deck (52 + one joker).  Two joker modes exist:

* ``"semi"`` (the bug, the default): the joker counts as an Ace, or as any card
  needed to complete a straight, a flush or a straight flush.  It never pairs any
  rank but Aces (joker + one Ace = a pair of Aces; joker + KK is NOT trips).
* ``"wild"``: the joker is any rank and suit.  There is no five-of-a-kind id except
  ``FIVE_ACES``: four Kings + joker is still ``FOUR_OF_A_KIND``.

``hands_made`` answers "which hand ids do these 7 cards make?", each id judged on its
own (the joker may take a different value for each).  A 7-card straight flush 8..A
therefore also makes ROYAL_FLUSH, STRAIGHT_FLUSH, FLUSH and STRAIGHT; a paytable pays a
hand it does not list as the best listed hand the same cards make.  ``classify`` is the
best of them.  Containment is literal: four of a kind also makes THREE_OF_A_KIND, a full
house with a second pair also makes THREE_PAIR (three different ranks with a pair each).

In wild mode ``RF_ROYAL_MATCH`` follows "the joker is any card": it may complete the
royal flush or the suited K-Q; in semi mode only the royal flush (the match is neither a
straight nor a flush).

Implementation: rank counts and per-suit rank bitmasks (bit ``r`` for rank ``r``, and
bit 1 as well for an Ace so A-2-3-4-5 and A-2-...-7 are runs); the joker is never
enumerated.  ``tests/core/tablegames/rules/test_fortune.py`` cross-checks against a brute-force
evaluator that does try every joker value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from core.kernel.cards import SUITS, Card, CardError

HAND_IDS: tuple[str, ...] = (
    "SF7_NATURAL",
    "RF_ROYAL_MATCH",
    "SF7_JOKER",
    "FIVE_ACES",
    "ROYAL_FLUSH",
    "STRAIGHT_FLUSH",
    "FOUR_OF_A_KIND",
    "FULL_HOUSE",
    "FLUSH",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "THREE_PAIR",
)
NOTHING = "NOTHING"

HAND_NAMES: dict[str, str] = {
    "SF7_NATURAL": "7-card straight flush, natural",
    "RF_ROYAL_MATCH": "royal flush plus royal match",
    "SF7_JOKER": "7-card straight flush with joker",
    "FIVE_ACES": "five aces",
    "ROYAL_FLUSH": "royal flush",
    "STRAIGHT_FLUSH": "straight flush",
    "FOUR_OF_A_KIND": "four of a kind",
    "FULL_HOUSE": "full house",
    "FLUSH": "flush",
    "THREE_OF_A_KIND": "three of a kind",
    "STRAIGHT": "straight",
    "THREE_PAIR": "three pair",
    NOTHING: "no qualifying hand",
}

JokerMode = Literal["semi", "wild"]
JOKER_MODES: tuple[str, ...] = ("semi", "wild")


class JokerModeError(ValueError):
    """An unknown joker mode; the message names it."""


def hand_rank(hand: str) -> int:
    """Position of ``hand`` in :data:`HAND_IDS` (0 = best); ``NOTHING`` ranks last."""
    if hand == NOTHING:
        return len(HAND_IDS)
    try:
        return _INDEX[hand]
    except KeyError:
        raise ValueError(f"hand {hand!r}: unknown hand id") from None


_INDEX = {h: i for i, h in enumerate(HAND_IDS)}
(_SF7N, _RFRM, _SF7J, _FIVEA, _RF, _SF, _QUADS, _FH, _FLUSH, _TRIPS, _STRAIGHT,
 _THREE_PAIR) = (1 << i for i in range(len(HAND_IDS)))

_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
_ROYAL = 0b11111 << 10  # T J Q K A
_KQ = (1 << 13) | (1 << 12)
_MASKS = 1 << 15  # bits 1..14 (bit 1 = Ace low)

# Lazily filled lookup tables: the most ranks of ``mask`` inside any window of 5 (7)
# consecutive ranks, Ace low (bit 1) to Ace high (bit 14).
_RUN5: list[int] = [-1] * _MASKS
_RUN7: list[int] = [-1] * _MASKS


def _run(mask: int, width: int) -> int:
    full = (1 << width) - 1
    return max(((mask >> low) & full).bit_count() for low in range(1, 16 - width))


def _run5(mask: int) -> int:
    v = _RUN5[mask]
    if v < 0:
        v = _RUN5[mask] = _run(mask, 5)
    return v


def _run7(mask: int) -> int:
    v = _RUN7[mask]
    if v < 0:
        v = _RUN7[mask] = _run(mask, 7)
    return v


_SETS: dict[int, frozenset[str]] = {}


def _check_mode(joker: str) -> bool:
    """True for wild; refuses an unknown mode."""
    if joker == "semi":
        return False
    if joker == "wild":
        return True
    raise JokerModeError(f"joker: unknown joker mode {joker!r} (use 'semi' or 'wild')")


def _hand_bits(cards: Iterable[Card], wild: bool) -> int:
    """Bit ``i`` set when the cards make ``HAND_IDS[i]``.  Validates the cards."""
    counts = [0] * 15
    smask = [0, 0, 0, 0]
    scount = [0, 0, 0, 0]
    joker = False
    seen = 0
    n = 0
    for c in cards:
        n += 1
        try:
            rank, suit = c
        except (TypeError, ValueError):
            raise CardError(f"card {c!r}: not a card") from None
        if rank == 0 and suit == "":
            if joker:
                raise CardError("card Jk: duplicate card Jk (a 53-card deck has one joker)")
            joker = True
            continue
        si = _SUIT_INDEX.get(suit, -1) if isinstance(suit, str) else -1
        if si < 0 or not isinstance(rank, int) or not 2 <= rank <= 14:
            raise CardError(f"card {c!r}: not a card")
        bit = 1 << (si * 16 + rank)
        if seen & bit:
            raise CardError(f"card {c}: duplicate card {c} (a 53-card deck has one of each)")
        seen |= bit
        counts[rank] += 1
        smask[si] |= ((1 << rank) | 2) if rank == 14 else (1 << rank)
        scount[si] += 1
    if n != 7:
        raise CardError(f"cards: expected 7 cards, got {n}")
    return _made_bits(counts, smask, scount, joker, wild)


def _made_bits(counts: list[int], smask: list[int], scount: list[int], joker: bool,
               wild: bool) -> int:
    """Bit ``i`` set when the cards make ``HAND_IDS[i]``, from their rank counts (index 2..14),
    per-suit rank masks and per-suit counts (suits in :data:`SUITS` order), the joker apart.
    May change ``counts``."""
    bits = 0
    need = 4 if joker else 5  # suited cards for a flush / ranks for a 5-card run
    for si in range(4):
        k = scount[si]
        if k < need:
            continue
        m = smask[si]
        bits |= _FLUSH
        if _run5(m) >= need:
            bits |= _SF
        royal = (m & _ROYAL).bit_count()
        if royal >= need:
            bits |= _RF
            # The other two cards: a suited K-Q of another suit.  Semi-wild: the joker
            # may only complete the royal; wild: it may also be the K or the Q.
            if royal == k:  # no other card of the royal's suit
                if royal == need:
                    if any(scount[t] == 2 and smask[t] & _KQ == _KQ for t in range(4)):
                        bits |= _RFRM
                elif wild and counts[12] + counts[13] == 3:
                    # natural royal + one K or Q of another suit (the counts include the
                    # royal's own K and Q): the joker is its mate
                    bits |= _RFRM
        if k == 7 and _run7(m) == 7:
            bits |= _SF7N
        elif joker and k == 6 and _run7(m) >= 6:
            bits |= _SF7J
    allmask = smask[0] | smask[1] | smask[2] | smask[3]
    if _run5(allmask) >= need:
        bits |= _STRAIGHT

    if joker and counts[14] == 4:
        bits |= _FIVEA
    if joker and not wild:
        counts[14] += 1  # semi-wild: the joker pairs only Aces
    cs = sorted(counts, reverse=True)
    c0, c1, c2 = cs[0], cs[1], cs[2]
    if joker and wild:
        # The joker joins any rank (a fifth card of a rank is never needed but for Aces).
        if c0 >= 3:
            bits |= _QUADS | _FH | _TRIPS  # trips + joker; joker pairs another card
        elif c0 == 2:
            bits |= _TRIPS
            if c1 == 2:
                bits |= _FH
        if c2 >= 2 or (c1 >= 2 and c2 >= 1):
            bits |= _THREE_PAIR
        return bits
    if c0 >= 4:
        bits |= _QUADS
    if c0 >= 3:
        bits |= _TRIPS
        if c1 >= 2:
            bits |= _FH
    if c2 >= 2:
        bits |= _THREE_PAIR
    return bits


def classify(cards: Iterable[Card], joker: JokerMode | str = "semi") -> str:
    """The best Fortune hand id of exactly 7 distinct cards, or :data:`NOTHING`.

    Raises :class:`CardError` for a wrong count, a duplicate or a non-card, and
    :class:`JokerModeError` for an unknown mode.
    """
    bits = _hand_bits(cards, _check_mode(joker))
    if not bits:
        return NOTHING
    return HAND_IDS[(bits & -bits).bit_length() - 1]


# Each of the 52 cards as (suit index, rank, its bits in its suit's mask): a card parse_cards
# made is looked up, not checked again (classify_parsed).
_PARTS: dict[Card, tuple[int, int, int]] = {
    Card(rank, suit): (si, rank, ((1 << rank) | 2) if rank == 14 else (1 << rank))
    for si, suit in enumerate(SUITS) for rank in range(2, 15)}


def classify_parsed(cards: Sequence[Card], wild: bool) -> str:
    """:func:`classify` of seven distinct cards as :func:`core.kernel.cards.parse_cards` returns
    them (``wild``: the joker mode is ``"wild"``), without checking them again: the hot path of
    ``podium rules classify --batch``.  The same answer as ``classify``
    (tests/core/tablegames/rules/test_fortune.py); anything else than such cards is the caller's
    error (a wrong answer)."""
    counts = [0] * 15
    smask = [0, 0, 0, 0]
    scount = [0, 0, 0, 0]
    joker = False
    parts = _PARTS.get
    for c in cards:
        part = parts(c)
        if part is None:  # the joker
            joker = True
            continue
        si, rank, bit = part
        counts[rank] += 1
        smask[si] |= bit
        scount[si] += 1
    bits = _made_bits(counts, smask, scount, joker, wild)
    if not bits:
        return NOTHING
    return HAND_IDS[(bits & -bits).bit_length() - 1]


def hands_made(cards: Iterable[Card], joker: JokerMode | str = "semi") -> frozenset[str]:
    """Every hand id the 7 cards make (each judged on its own; see the module text)."""
    bits = _hand_bits(cards, _check_mode(joker))
    made = _SETS.get(bits)
    if made is None:
        made = _SETS[bits] = frozenset(h for i, h in enumerate(HAND_IDS) if bits >> i & 1)
    return made
