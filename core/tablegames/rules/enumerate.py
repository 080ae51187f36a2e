"""Exact counts of every Fortune hand over all C(53,7) = 154,143,080 hands (RULES.md 1).

``count_hands(joker)`` answers, per joker mode, how many 7-card hands make exactly each
*set* of hand ids (the set :func:`core.tablegames.rules.fortune.hands_made` returns, as a bitmask:
bit ``i`` = ``HAND_IDS[i]``).  That set is the one statistic every paytable needs:

* the best hand (:func:`~core.tablegames.rules.fortune.classify`) is the lowest bit of the set,
  :meth:`HandCounts.best`;
* the pay of a progressive table is the best LISTED hand the cards make
  (:meth:`core.tablegames.rules.paytables.Paytable.paying`), :meth:`HandCounts.best_listed`.

No hand is dealt one by one.  The count is combinatorial and vectorised with numpy:

1. Rank part.  A hand is the joker (or not) plus ``k`` = 7 or 6 natural cards.  Every
   hand id but the flush family (FLUSH, STRAIGHT_FLUSH, ROYAL_FLUSH, RF_ROYAL_MATCH,
   SF7_NATURAL, SF7_JOKER) depends only on the rank counts (pairs, trips, quads, three
   pair, five aces, the straight).  For every rank-count vector ``c`` (each rank 0..4
   times, summing to ``k``) all prod C(4, c_r) suit assignments are first counted with
   those "rank bits" alone.
2. Flush correction.  A suit holds ``need`` = 5 cards (4 with the joker) for the flush
   family; in 7 (6) cards at most ONE suit can.  Every such hand is a flush suit (4
   ways, all alike), the set ``M`` of ranks in that suit (``need..k`` of them) and at
   most 2 more cards from the other three suits, which matter only by their ranks and
   whether they are suited to each other (the royal match): a pair of one rank comes in
   3 suit choices, two ranks suited in 3, offsuit in 6, one card in 3.  For each class
   the count moves from its rank bits to its rank bits plus its flush bits.

The rules are the ones of ``fortune._hand_bits`` restated on arrays (same thresholds,
same joker treatment); ``tests/core/tablegames/rules/test_enumerate.py`` checks the result against
brute force over ``fortune.hands_made`` on reduced decks (the enumerator takes any subset of ranks,
four suits, with or without the joker), against random full-deck samples and against
anchors derived by hand.

Results for the full deck are cached on disk (``platformdirs`` user cache dir,
``edge/``) under a key that hashes this file, ``fortune.py``, the joker mode and the
deck, so a change of either rule file recomputes them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from core.kernel.cards import RANKS
from core.tablegames.rules import fortune
from core.tablegames.rules.fortune import HAND_IDS, JOKER_MODES, NOTHING, JokerModeError

CACHE_FORMAT = 1
HAND_SIZE = 7
FULL_DECK_HANDS = comb(53, 7)  # 154,143,080

IntArray = npt.NDArray[np.int64]

_BIT = {h: 1 << i for i, h in enumerate(HAND_IDS)}
_SF7N, _RFRM, _SF7J, _FIVEA = (_BIT[h] for h in ("SF7_NATURAL", "RF_ROYAL_MATCH",
                                                 "SF7_JOKER", "FIVE_ACES"))
_RF, _SF, _QUADS, _FH = (_BIT[h] for h in ("ROYAL_FLUSH", "STRAIGHT_FLUSH",
                                           "FOUR_OF_A_KIND", "FULL_HOUSE"))
_FLUSH, _TRIPS, _STRAIGHT, _THREE_PAIR = (_BIT[h] for h in ("FLUSH", "THREE_OF_A_KIND",
                                                           "STRAIGHT", "THREE_PAIR"))
_ROYAL = 0b11111 << 10  # T J Q K A
_ACE, _QUEEN, _KING = 14, 12, 13


class DeckError(ValueError):
    """A reduced deck the enumerator refuses; the message names the problem."""


# ------------------------------------------------------------------------------------------
# The result


@dataclass(frozen=True)
class HandCounts:
    """How many hands of the deck make each set of hand ids (bitmask -> count)."""

    joker: str  # "semi" | "wild"
    ranks: tuple[int, ...]  # the deck's ranks (all 13 for the real deck), 4 suits each
    with_joker: bool  # the deck holds the joker
    made: Mapping[int, int]  # hands_made bitmask (bit i = HAND_IDS[i]) -> number of hands

    @property
    def total(self) -> int:
        return sum(self.made.values())

    @property
    def deck_size(self) -> int:
        return 4 * len(self.ranks) + (1 if self.with_joker else 0)

    def best(self) -> dict[str, int]:
        """Hands per best hand id (``classify``), every id of HAND_IDS then NOTHING."""
        out = dict.fromkeys((*HAND_IDS, NOTHING), 0)
        for bits, n in self.made.items():
            out[HAND_IDS[(bits & -bits).bit_length() - 1] if bits else NOTHING] += n
        return out

    def best_listed(self, listed: Iterable[str]) -> dict[str | None, int]:
        """Hands per best LISTED hand: for each hand id of ``listed`` the hands whose best
        hand among ``listed`` it is (what ``Paytable.paying`` decides), ``None`` for the
        hands that make none of them."""
        order = sorted(set(listed), key=HAND_IDS.index)
        out: dict[str | None, int] = dict.fromkeys([*order, None], 0)
        for bits, n in self.made.items():
            out[next((h for h in order if bits & _BIT[h]), None)] += n
        return out

    def made_sets(self) -> dict[frozenset[str], int]:
        """Hands per ``hands_made`` set."""
        return {frozenset(h for h in HAND_IDS if bits & _BIT[h]): n
                for bits, n in self.made.items()}


def hands_in_deck(deck_size: int) -> int:
    return comb(deck_size, HAND_SIZE)


# ------------------------------------------------------------------------------------------
# Counting


def count_hands(joker: str = "semi", *, ranks: Sequence[int] = RANKS, with_joker: bool = True,
                use_cache: bool = True, cache_dir: Path | None = None) -> HandCounts:
    """Exact :class:`HandCounts` of every 7-card hand of the deck, for a joker mode.

    The deck is ``ranks`` in four suits plus the joker when ``with_joker``; the real
    deck is the default.  ``use_cache`` reads / writes the on-disk cache
    (:func:`default_cache_dir` unless ``cache_dir``).
    """
    if joker not in JOKER_MODES:
        raise JokerModeError(f"joker: unknown joker mode {joker!r} (use 'semi' or 'wild')")
    wild = joker == "wild"
    deck_ranks = _check_ranks(ranks)
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    key = cache_key(joker, deck_ranks, with_joker)
    if use_cache:
        cached = _read_cache(folder, key, joker, deck_ranks, with_joker)
        if cached is not None:
            return cached
    made = _count(deck_ranks, with_joker, wild)
    result = HandCounts(joker=joker, ranks=deck_ranks, with_joker=with_joker, made=made)
    if result.total != hands_in_deck(result.deck_size) or min(made.values(), default=0) < 0:
        raise RuntimeError("hand enumerator: counts do not add up to the number of hands")
    if use_cache:
        _write_cache(folder, key, result)
    return result


def _check_ranks(ranks: Sequence[int]) -> tuple[int, ...]:
    deck = tuple(sorted(ranks))
    for r in deck:
        if isinstance(r, bool) or not isinstance(r, int) or r not in RANKS:
            raise DeckError(f"ranks: {r!r} is not a rank (2..14, Ace = 14)")
    if len(set(deck)) != len(deck):
        raise DeckError("ranks: a rank is listed twice")
    return deck


def _count(ranks: tuple[int, ...], with_joker: bool, wild: bool) -> dict[int, int]:
    parts_bits: list[IntArray] = []
    parts_weight: list[IntArray] = []
    for joker in (False, True) if with_joker else (False,):
        k = HAND_SIZE - int(joker)
        # 1. every rank-count vector, with its rank bits
        counts = _rank_vectors(len(ranks), k)
        if len(counts):
            parts_bits.append(_rank_bits(counts, ranks, joker, wild))
            parts_weight.append(_suit_assignments(counts))
        # 2. the hands with a flush suit: move them to rank bits | flush bits
        flush = _flush_classes(ranks, joker, wild)
        if flush is not None:
            counts, suit_bits, weight = flush
            base = _rank_bits(counts, ranks, joker, wild)
            parts_bits += [base, base | suit_bits]
            parts_weight += [-weight, weight]
    if not parts_bits:
        return {}
    bits = np.concatenate(parts_bits)
    weight = np.concatenate(parts_weight)
    keys, where = np.unique(bits, return_inverse=True)
    total = np.zeros(len(keys), dtype=np.int64)
    np.add.at(total, where.reshape(-1), weight)
    return {int(b): int(n) for b, n in zip(keys, total, strict=True) if n}


def _rank_vectors(n: int, k: int) -> npt.NDArray[np.int8]:
    """Every vector of ``n`` rank counts in 0..4 that sums to ``k`` (rows)."""
    rows: npt.NDArray[np.int8] = np.zeros((1, 0), dtype=np.int8)
    for _ in range(n):
        sums = rows.sum(axis=1)
        grown = []
        for c in range(5):
            fits = sums + c <= k
            grown.append(np.hstack([rows[fits],
                                    np.full((int(fits.sum()), 1), c, dtype=np.int8)]))
        rows = np.vstack(grown)
    done: npt.NDArray[np.int8] = rows[rows.sum(axis=1) == k]
    return done


_C4 = np.array([comb(4, c) for c in range(5)], dtype=np.int64)


def _suit_assignments(counts: npt.NDArray[np.int8]) -> IntArray:
    """prod C(4, c_r): the hands with these rank counts."""
    ways: IntArray = np.prod(_C4[counts], axis=1, dtype=np.int64)
    return ways


def _rank_mask_bits(ranks: tuple[int, ...]) -> IntArray:
    """The rank-mask bit(s) of each column: bit r, and bit 1 as well for the Ace."""
    return np.array([(1 << r) | (2 if r == _ACE else 0) for r in ranks], dtype=np.int64)


@cache
def _tables() -> tuple[IntArray, IntArray, IntArray]:
    """popcount, most ranks in any 5-window and in any 7-window, for all 2^15 masks."""
    masks = np.arange(1 << 15, dtype=np.int64)
    pop = np.zeros(1 << 15, dtype=np.int64)
    for b in range(15):
        pop += (masks >> b) & 1
    run5 = np.max(np.stack([pop[(masks >> low) & 0b11111] for low in range(1, 11)]), axis=0)
    run7 = np.max(np.stack([pop[(masks >> low) & 0b1111111] for low in range(1, 9)]), axis=0)
    return pop, run5, run7


def _rank_bits(counts: npt.NDArray[np.int8], ranks: tuple[int, ...], joker: bool,
               wild: bool) -> IntArray:
    """The hand ids that depend on ranks only (fortune._hand_bits, its rank half)."""
    _, run5, _ = _tables()
    need = 4 if joker else 5
    union = ((counts > 0) * _rank_mask_bits(ranks)).sum(axis=1)
    bits = np.where(run5[union] >= need, _STRAIGHT, 0).astype(np.int64)
    c = counts.astype(np.int64)
    if _ACE in ranks:
        ace = ranks.index(_ACE)
        if joker:
            bits |= np.where(c[:, ace] == 4, _FIVEA, 0)
            if not wild:
                c[:, ace] += 1  # semi-wild: the joker pairs only Aces
    # (no Ace in a reduced deck: the semi joker is a lone Ace, never a pair)
    if c.shape[1] < 3:
        c = np.hstack([c, np.zeros((len(c), 3 - c.shape[1]), dtype=np.int64)])
    top = -np.sort(-c, axis=1)
    c0, c1, c2 = top[:, 0], top[:, 1], top[:, 2]
    if joker and wild:  # the joker joins any rank
        bits |= np.where(c0 >= 3, _QUADS | _FH | _TRIPS, 0)
        bits |= np.where(c0 == 2, _TRIPS, 0)
        bits |= np.where((c0 == 2) & (c1 == 2), _FH, 0)
        bits |= np.where((c2 >= 2) | ((c1 >= 2) & (c2 >= 1)), _THREE_PAIR, 0)
        return bits
    bits |= np.where(c0 >= 4, _QUADS, 0)
    bits |= np.where(c0 >= 3, _TRIPS, 0)
    bits |= np.where((c0 >= 3) & (c1 >= 2), _FH, 0)
    bits |= np.where(c2 >= 2, _THREE_PAIR, 0)
    return bits


def _flush_classes(ranks: tuple[int, ...], joker: bool, wild: bool
                   ) -> tuple[npt.NDArray[np.int8], IntArray, IntArray] | None:
    """Every hand with a flush suit, in classes: (rank counts, flush-family bits, hands).

    A class is the flush suit's ranks ``M`` and the ranks of the (at most 2) other cards
    with whether they are suited; the weight counts the 4 flush suits and the suit
    choices of the other cards."""
    pop, run5, run7 = _tables()
    n = len(ranks)
    k = HAND_SIZE - int(joker)
    need = 4 if joker else 5
    # the other cards: (count vector, both of one suit and a K-Q, Q or K count, ways)
    eye = np.eye(n, dtype=np.int8)
    qk = [i for i, r in enumerate(ranks) if r in (_QUEEN, _KING)]
    rests: dict[int, list[tuple[npt.NDArray[np.int8], bool, int]]] = {0: [], 1: [], 2: []}
    rests[0].append((np.zeros(n, dtype=np.int8), False, 1))
    for a in range(n):
        rests[1].append((eye[a], False, 3))
        rests[2].append((2 * eye[a], False, 3))
        for b in range(a + 1, n):
            suited_kq = {ranks[a], ranks[b]} == {_QUEEN, _KING}
            rests[2].append((eye[a] + eye[b], suited_kq, 3))  # suited
            rests[2].append((eye[a] + eye[b], False, 6))  # offsuit
    col_bits = _rank_mask_bits(ranks)
    out_counts: list[npt.NDArray[np.int8]] = []
    out_bits: list[IntArray] = []
    out_weight: list[IntArray] = []
    for j in range(need, min(k, n) + 1):
        t = k - j
        if not rests.get(t):
            continue
        members = np.array(list(combinations(range(n), j)), dtype=np.int64).reshape(-1, j)
        flush_counts = np.zeros((len(members), n), dtype=np.int8)
        np.put_along_axis(flush_counts, members, 1, axis=1)
        m = (flush_counts * col_bits).sum(axis=1)
        royal = pop[m & _ROYAL]
        base = np.full(len(m), _FLUSH, dtype=np.int64)
        base |= np.where(run5[m] >= need, _SF, 0)
        base |= np.where(royal >= need, _RF, 0)
        if j == 7:
            base |= np.where(run7[m] == 7, _SF7N, 0)
        elif joker and j == 6:
            base |= np.where(run7[m] >= 6, _SF7J, 0)
        only_royal = (royal >= need) & (royal == j)  # no other card of the royal's suit
        for rest, suited_kq, ways in rests[t]:
            counts = flush_counts + rest
            bits = base.copy()
            if suited_kq:  # the royal match of a royal the cards (and joker) make
                bits |= np.where(only_royal & (royal == need), _RFRM, 0)
            if wild and joker and qk:
                # natural royal + one K or Q of another suit: the joker is its mate
                qk_count = counts[:, qk].sum(axis=1)
                bits |= np.where(only_royal & (royal > need) & (qk_count == 3), _RFRM, 0)
            out_counts.append(counts)
            out_bits.append(bits)
            out_weight.append(np.full(len(m), 4 * ways, dtype=np.int64))
    if not out_counts:
        return None
    return np.vstack(out_counts), np.concatenate(out_bits), np.concatenate(out_weight)


# ------------------------------------------------------------------------------------------
# The cache


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("podium")) / "edge"


def cache_key(joker: str, ranks: tuple[int, ...], with_joker: bool) -> str:
    """Changes when the rules (fortune.py), this enumerator, the mode or the deck change."""
    h = hashlib.sha256()
    for source in (fortune.__file__, __file__):
        h.update(Path(source).read_bytes())
    h.update(json.dumps([CACHE_FORMAT, joker, list(ranks), with_joker]).encode())
    return h.hexdigest()


def _cache_file(folder: Path, key: str) -> Path:
    return folder / f"hand-counts-{key[:32]}.json"


def _read_cache(folder: Path, key: str, joker: str, ranks: tuple[int, ...],
                with_joker: bool) -> HandCounts | None:
    try:
        doc: Any = json.loads(_cache_file(folder, key).read_text(encoding="utf-8"))
        if doc.get("key") != key:
            return None
        made = {int(b): int(n) for b, n in doc["made"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # missing or damaged: count again
    result = HandCounts(joker=joker, ranks=ranks, with_joker=with_joker, made=made)
    if result.total != hands_in_deck(result.deck_size) or any(n < 0 for n in made.values()):
        return None
    return result


def _write_cache(folder: Path, key: str, result: HandCounts) -> None:
    doc = {"key": key, "joker": result.joker, "ranks": list(result.ranks),
           "with_joker": result.with_joker,
           "made": {str(b): n for b, n in sorted(result.made.items())}}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".hand-counts-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        os.replace(tmp, _cache_file(folder, key))
    except OSError:
        pass  # a cache that can not be written only costs time


def bits_of(hands: Iterable[str]) -> int:
    """The bitmask of a set of hand ids (bit i = HAND_IDS[i])."""
    return sum(_BIT[h] for h in set(hands))


__all__ = ["FULL_DECK_HANDS", "DeckError", "HandCounts", "bits_of", "cache_key",
           "count_hands", "default_cache_dir", "hands_in_deck"]
