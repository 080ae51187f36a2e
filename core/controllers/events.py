"""What a table controller reports, as the core sees it after decoding a frame.

The controller link (``core.controllers.link``) decodes protocol frames into these events and
hands each, with its :class:`Origin`, to the floor (``core.tablegames``), which records it
in the ledger in one transaction and only then lets the link acknowledge it.  The
simulator (``core.controllers.simulator``) produces the same events on its side of the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.rules.cards import Card


@dataclass(frozen=True)
class Origin:
    """Where and when an event came from; (table, boot, seq) identifies it uniquely.

    ``boot`` changes when the controller restarts (its sequence numbers restart at 1);
    a replayed event has the same triple and changes nothing.
    """

    table: str
    boot: str
    seq: int
    controller_time: str = ""  # ISO-8601 UTC as the controller stamped it


@dataclass(frozen=True)
class GameStarted:
    """START GAME (Nexus) / LOCK OUT (Aquarius): bets locked; only lit sensors count."""

    round_no: int
    wagers: dict[int, int]  # seat -> progressive wager in cents (only seats whose sensor was lit)


@dataclass(frozen=True)
class HitClaimed:
    """HIT JACKPOT: the dealer selected seat and hand button and calls a supervisor."""

    round_no: int
    seat: int
    hand: str  # the hand button the dealer pressed (a hand id of RULES.md section 1)
    cards: tuple[Card, ...] = field(default=())  # cards as seen by the table (may be empty)


@dataclass(frozen=True)
class GameEnded:
    """END GAME: reset for the next hand."""

    round_no: int


@dataclass(frozen=True)
class Undone:
    """UNDO: cancels the controller's previous function (``what``: "START_GAME" or "HIT")."""

    round_no: int
    what: str
    seat: int | None = None  # for an undone HIT


@dataclass(frozen=True)
class Misdealt:
    """MISDEAL: kills the round; locked wagers are returned, their contributions reversed."""

    round_no: int


ControllerEvent = GameStarted | HitClaimed | GameEnded | Undone | Misdealt
