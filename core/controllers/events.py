"""What a table controller reports, as the core sees it after decoding a frame.

The controller link (``core.controllers.link``) decodes protocol frames into these events and
hands each, with its :class:`Origin`, to the floor (``core.tablegames``), which records it
in the ledger in one transaction and only then lets the link acknowledge it.  The
simulator (``core.controllers.simulator``) produces the same events on its side of the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.kernel.cards import Card


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


# ------------------------------------------------------------------ what else a link hands over

@dataclass(frozen=True)
class Refused:
    """An event the link refuses itself (a malformed or out-of-bounds EVENT whose identity was
    readable, a seat the table does not have, another table's id), handed to the floor so that
    the refusal is recorded (``refused_events``) before the link answers ``ACK refused``.
    ``event`` is the decoded event when there is one; ``kind`` and ``fields`` are the frame's
    (the event's kind on the wire and its members) when it could not be decoded."""

    reason: str
    event: ControllerEvent | None = None
    kind: str = ""
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SequenceGap:
    """The controller said (GONE) that events ``first`` to ``last`` of the origin's boot were
    acknowledged before and are no longer held (a ledger restored from a backup, or another
    ledger took them): the floor records the gap and takes the sequence on after ``last``."""

    first: int
    last: int


Delivery = ControllerEvent | Refused | SequenceGap


class OutOfOrder(Exception):
    """Not a refusal: the event's seq is beyond the next one the ledger expects of its (table,
    boot).  Nothing was written; the link asks the controller to send again from ``expected``.
    (Not a ValueError, so no caller takes it for a refusal.)"""

    def __init__(self, origin: Origin, expected: int) -> None:
        super().__init__(f"table {origin.table}: event {origin.boot}:{origin.seq} is out of "
                         f"order; the next expected is seq {expected}")
        self.expected = expected
