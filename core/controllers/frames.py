"""The frames of the table-controller wire protocol, version 1 (docs/protocol.md): what each
side says, as frozen dataclasses, and the bounds of every number on the wire.

Pure data: :mod:`core.controllers.protocol` turns these frames into bytes and back,
:mod:`core.controllers.screening` says what of an event the ledger can keep.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from core.controllers.events import ControllerEvent, Origin

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 65_536
MODEL_NEXUS = "Nexus Command"
MAX_ID_CHARS = 64
MAX_TEXT_CHARS = 1_000
MAX_TIME_CHARS = 40  # an EVENT's "time": the ledger keeps it in a column of 40 characters
MAX_HAND_CHARS = 32  # a HIT's hand, as the ledger keeps it (an event that did not come decoded)
MAX_REASON_CHARS = 500  # a refusal's reason, as kept and as sent in an ACK (refusal_text)
DEFAULT_HEARTBEAT_MS = 5_000
DEFAULT_RETRANSMIT_MS = 2_000  # unacknowledged events / commands are sent again after this
TIMEOUT_HEARTBEATS = 3  # a peer silent for 3 heartbeats is declared down

# Bounds of every number on the wire (docs/protocol.md, "Bounds"): a value outside is a
# malformed frame.  Sequence numbers stay below 2**53 (exact in every JSON reader), rounds
# below 2**31; money is bounded so that a meter in exact units (1/1,000,000 cent) stays far
# inside a 64-bit integer.
MAX_SEQ = 2**53 - 1  # seq, cseq
MAX_ROUND = 2**31 - 1
MAX_SEAT = 99
MAX_SEATS = 99  # HELLO.seats
MAX_DECKS = 16
MAX_HEARTBEAT_MS = 3_600_000
MAX_WAGER_CENTS = 100_000_000  # 1,000,000.00: one progressive wager
MAX_AMOUNT_CENTS = 1_000_000_000_000  # 10,000,000,000.00: a PAY or a frozen JACKPOT_STATE amount
MAX_HITS = 10_000  # JACKPOT_STATE.hits
BOUNDS: dict[str, tuple[int, int]] = {
    "seq": (1, MAX_SEQ), "cseq": (1, MAX_SEQ), "round": (1, MAX_ROUND), "seat": (1, MAX_SEAT),
    "seats": (1, MAX_SEATS), "decks": (1, MAX_DECKS), "heartbeat_ms": (1, MAX_HEARTBEAT_MS),
    "wager": (1, MAX_WAGER_CENTS), "amount": (0, MAX_AMOUNT_CENTS), "hits": (0, MAX_HITS),
}


UNDO_WHATS = ("START_GAME", "HIT")
ERROR_CODES = ("BAD_FRAME", "UNSUPPORTED_VERSION", "HELLO_REFUSED", "UNEXPECTED")

AckResult = Literal["ok", "refused"]


@dataclass(frozen=True)
class MalformedEvent:
    """An EVENT frame whose checksum held and whose ``table``, ``boot`` and ``seq`` could be read,
    but whose content is malformed or out of bounds.  The console refuses it by that identity
    (``ACK refused``; ``ERROR`` when ``seq`` itself is out of bounds) and keeps it in
    ``refused_events``, so it can not jam the table.  ``seq`` is the integer as sent (it may be
    out of bounds); ``fields`` the frame's members (integers beyond 2**53 as strings)."""

    table: str
    boot: str
    seq: int
    kind: str
    fields: dict[str, Any]

    @property
    def seq_in_bounds(self) -> bool:
        return 1 <= self.seq <= MAX_SEQ


class ProtocolError(ValueError):
    """A malformed frame; the message names what is wrong.  ``seq`` is the event's
    sequence number when it could be read (so the ERROR answer can name it); ``event`` the
    event's identity when its checksum held and table, boot and seq could be read."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq
        self.event: MalformedEvent | None = None


# --------------------------------------------------------------------------- commands

@dataclass(frozen=True)
class PayConfirmed:
    """PAY: the supervisor verified and paid the hit ``hit_ref`` (``"<boot>:<seq>"``)."""

    round_no: int
    seat: int
    hit_ref: str
    amount_cents: int


@dataclass(frozen=True)
class HitRejected:
    """REJECT: the hit was refused (wrong hand button, no wager, ...)."""

    round_no: int
    seat: int
    reason: str
    hit_ref: str = ""


Command = PayConfirmed | HitRejected


def utc_now_iso() -> str:
    """A controller timestamp: ISO-8601 UTC (informational; order comes from seq)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def hit_ref(origin: Origin) -> str:
    """The reference a PAY/REJECT uses for the HIT event that ``origin`` identifies."""
    return f"{origin.boot}:{origin.seq}"


# --------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class Hello:
    table: str
    boot: str
    paytable: str
    decks: int
    seats: int
    model: str = MODEL_NEXUS
    heartbeat_ms: int = DEFAULT_HEARTBEAT_MS
    software: str = ""


@dataclass(frozen=True)
class Welcome:
    console: str
    heartbeat_ms: int = DEFAULT_HEARTBEAT_MS


@dataclass(frozen=True)
class EventFrame:
    origin: Origin
    event: ControllerEvent


@dataclass(frozen=True)
class Ack:
    boot: str
    seq: int
    result: AckResult = "ok"
    reason: str = ""


@dataclass(frozen=True)
class CommandFrame:
    console: str
    cseq: int
    command: Command


@dataclass(frozen=True)
class CommandAck:
    console: str
    cseq: int
    result: AckResult = "ok"
    reason: str = ""


@dataclass(frozen=True)
class Heartbeat:
    time: str = ""


@dataclass(frozen=True)
class ErrorFrame:
    code: str
    message: str
    seq: int | None = None


@dataclass(frozen=True)
class Resend:
    """Console -> controller: the next event the console takes of ``boot`` is ``seq`` (it got a
    later one, or a damaged one): send the held events of that boot again from ``seq`` on."""

    boot: str
    seq: int


@dataclass(frozen=True)
class Gone:
    """Controller -> console, the answer to a RESEND it can not serve: events ``seq`` to
    ``next_seq - 1`` of ``boot`` were acknowledged before (to a console) and are no longer
    held; the first it holds or will send is ``next_seq``."""

    boot: str
    seq: int
    next_seq: int


@dataclass(frozen=True)
class JackpotState:
    """Console -> every controller of a linked group: a level's Jackpot Lock state (DEQ's
    PENDING).  ``PENDING`` while lock-at-hit amounts of the level wait for a supervisor (the
    frozen total and how many hits); ``CLEAR`` once none waits.  Not acknowledged: the latest
    one is the state, and the console sends it again after every WELCOME."""

    group: str
    level: str
    state: Literal["PENDING", "CLEAR"]
    amount_cents: int = 0
    hits: int = 0


Frame = (Hello | Welcome | EventFrame | Ack | CommandFrame | CommandAck | Heartbeat | ErrorFrame
         | JackpotState | Resend | Gone)

