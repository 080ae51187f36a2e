"""Problems found when a dealer claims a hit, as codes (the ledger keeps codes; words are made
only for screens and paper).  A *blocking* flag means the hit can only be rejected."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from enum import StrEnum


class FlagCode(StrEnum):
    ROUND_NOT_STARTED = "ROUND_NOT_STARTED"  # no START GAME recorded for the round
    ROUND_VOID = "ROUND_VOID"  # the round was misdealt or its START GAME undone
    ROUND_ENDED = "ROUND_ENDED"  # END GAME of the round was recorded before the claim
    NO_WAGER = "NO_WAGER"  # no locked progressive wager on the seat
    DUPLICATE_HIT = "DUPLICATE_HIT"  # the seat already has a hit in the round
    NOT_A_HAND = "NOT_A_HAND"  # the hand button is no Fortune hand id
    CLAIM_NOT_PAYABLE = "CLAIM_NOT_PAYABLE"  # the claimed hand pays nothing without the cards
    BAD_TABLE_CARDS = "BAD_TABLE_CARDS"  # the cards the table sent are not 7 valid cards
    CLAIM_MISMATCH = "CLAIM_MISMATCH"  # the table's cards make another paying hand
    NOTE = "NOTE"  # a sentence recorded before codes existed (revision 0010)


BLOCKING = frozenset({FlagCode.ROUND_NOT_STARTED, FlagCode.ROUND_VOID, FlagCode.ROUND_ENDED,
                      FlagCode.NO_WAGER, FlagCode.DUPLICATE_HIT})


@dataclass(frozen=True)
class HitFlag:
    code: FlagCode
    round: int | None = None
    seat: int | None = None
    hand: str = ""
    state: str = ""  # misdealt | undone (ROUND_VOID)
    claimed: str = ""
    made: str = ""
    detail: str = ""  # the rules core's own words (CLAIM_NOT_PAYABLE, BAD_TABLE_CARDS, NOTE)

    @property
    def blocking(self) -> bool:
        return self.code in BLOCKING

    def words(self) -> str:
        c = self.code
        if c is FlagCode.ROUND_NOT_STARTED:
            return f"round {self.round} was never started (no START GAME)"
        if c is FlagCode.ROUND_VOID:
            return f"round {self.round} was {self.state}"
        if c is FlagCode.ROUND_ENDED:
            return f"round {self.round} had already ended (END GAME)"
        if c is FlagCode.NO_WAGER:
            return f"no wager on seat {self.seat}"
        if c is FlagCode.DUPLICATE_HIT:
            return f"seat {self.seat} already has a hit in round {self.round}"
        if c is FlagCode.NOT_A_HAND:
            return f"hand button {self.hand!r} is not a Fortune hand"
        if c is FlagCode.BAD_TABLE_CARDS:
            return f"cards from the table: {self.detail}"
        if c is FlagCode.CLAIM_MISMATCH:
            return f"claimed {self.claimed}, cards make {self.made}"
        return self.detail

    def to_json(self) -> dict[str, object]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


def dumps(flags: tuple[HitFlag, ...] | list[HitFlag]) -> str:
    return json.dumps([f.to_json() for f in flags], separators=(",", ":"))


def loads(text: str) -> tuple[HitFlag, ...]:
    out = []
    for item in json.loads(text or "[]"):
        data = dict(item)
        code = FlagCode(data.pop("code"))
        out.append(HitFlag(code, **data))
    return tuple(out)


def words(flags: tuple[HitFlag, ...]) -> tuple[str, ...]:
    return tuple(f.words() for f in flags)


def _legacy_lines(legacy: str) -> tuple[str, ...]:
    return tuple(f for f in (legacy or "").split("\n") if f)


def codes_of(found: tuple[HitFlag, ...], legacy: str = "") -> tuple[FlagCode, ...]:
    """A hit's flags (``found``: :func:`loads` of its codes) as codes, beside :func:`shown`
    (a sentence kept from before codes existed is a NOTE)."""
    if found:
        return tuple(f.code for f in found)
    return (FlagCode.NOTE,) * len(_legacy_lines(legacy))


def shown(found: tuple[HitFlag, ...], legacy: str = "") -> tuple[str, ...]:
    """The words of a hit's flags (``found``: :func:`loads` of its codes): its codes, or for a
    hit recorded before codes existed (revision 0010) the sentences it kept."""
    return words(found) or _legacy_lines(legacy)
