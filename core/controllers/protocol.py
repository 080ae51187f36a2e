"""The table-controller wire protocol, version 1 (docs/protocol.md).

One JSON object per line, UTF-8, at most :data:`MAX_FRAME_BYTES` bytes, ending in its checksum
(``,"sum":"<16 hex digits>"}``: the first 64 bits of the SHA-256 of the frame's bytes without
that member, :func:`seal`).  This module is pure (no sockets): :func:`encode_frame` /
:func:`decode_frame` turn the frame dataclasses into bytes and back, :class:`FrameBuffer` splits
a byte stream into lines.  Decoding raises nothing but :class:`ProtocolError`, whose message
names the frame, the field and the problem; every number has a bound (:data:`BOUNDS`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from core.controllers.events import (
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    Undone,
)
from core.kernel.cards import Card, CardError, format_cards, parse_cards
from core.kernel.text import printable
from core.tablegames.rules.fortune import HAND_IDS  # RULES.md section 1: the hand buttons

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

# The checksum member that ends every frame: ,"sum":"<16 lowercase hex digits>"}
CHECKSUM_FIELD = "sum"
CHECKSUM_DIGITS = 16  # the first 64 bits of the SHA-256
_SUM_HEAD = b',"' + CHECKSUM_FIELD.encode() + b'":"'
_SUM_TAIL_LEN = len(_SUM_HEAD) + CHECKSUM_DIGITS + 2  # + '"}'
_HEX = frozenset(b"0123456789abcdef")
_PEEK_TYPE = re.compile(rb'"type"\s*:\s*"([A-Z_]{1,20})"')
_PEEK_SEQ = re.compile(rb'"seq"\s*:\s*(\d{1,20})')

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


# --------------------------------------------------------------------------- encoding

def _event_fields(event: ControllerEvent) -> dict[str, Any]:
    if isinstance(event, GameStarted):
        return {"kind": "GAME_STARTED", "round": event.round_no,
                "wagers": {str(seat): cents for seat, cents in sorted(event.wagers.items())}}
    if isinstance(event, HitClaimed):
        d: dict[str, Any] = {"kind": "HIT", "round": event.round_no, "seat": event.seat,
                             "hand": event.hand}
        if event.cards:
            d["cards"] = format_cards(event.cards)
        return d
    if isinstance(event, GameEnded):
        return {"kind": "GAME_ENDED", "round": event.round_no}
    if isinstance(event, Undone):
        d = {"kind": "UNDO", "round": event.round_no, "what": event.what}
        if event.seat is not None:
            d["seat"] = event.seat
        return d
    if isinstance(event, Misdealt):
        return {"kind": "MISDEAL", "round": event.round_no}
    raise TypeError(f"not a controller event: {event!r}")


def frame_to_dict(frame: Frame) -> dict[str, Any]:
    d: dict[str, Any] = {"v": PROTOCOL_VERSION}
    if isinstance(frame, Hello):
        d |= {"type": "HELLO", "table": frame.table, "boot": frame.boot, "model": frame.model,
              "paytable": frame.paytable, "decks": frame.decks, "seats": frame.seats,
              "heartbeat_ms": frame.heartbeat_ms}
        if frame.software:
            d["software"] = frame.software
    elif isinstance(frame, Welcome):
        d |= {"type": "WELCOME", "console": frame.console, "heartbeat_ms": frame.heartbeat_ms}
    elif isinstance(frame, EventFrame):
        o = frame.origin
        d |= {"type": "EVENT", "table": o.table, "boot": o.boot, "seq": o.seq}
        if o.controller_time:
            d["time"] = o.controller_time
        d |= _event_fields(frame.event)
    elif isinstance(frame, Ack):
        d |= {"type": "ACK", "boot": frame.boot, "seq": frame.seq, "result": frame.result,
              "reason": frame.reason}
    elif isinstance(frame, CommandFrame):
        d |= {"type": "COMMAND", "console": frame.console, "cseq": frame.cseq}
        c = frame.command
        if isinstance(c, PayConfirmed):
            d |= {"command": "PAY", "round": c.round_no, "seat": c.seat, "hit_ref": c.hit_ref,
                  "amount": c.amount_cents}
        else:
            d |= {"command": "REJECT", "round": c.round_no, "seat": c.seat,
                  "hit_ref": c.hit_ref, "reason": c.reason}
    elif isinstance(frame, CommandAck):
        d |= {"type": "CMD_ACK", "console": frame.console, "cseq": frame.cseq,
              "result": frame.result, "reason": frame.reason}
    elif isinstance(frame, Heartbeat):
        d["type"] = "HEARTBEAT"
        if frame.time:
            d["time"] = frame.time
    elif isinstance(frame, ErrorFrame):
        d |= {"type": "ERROR", "code": frame.code, "message": frame.message}
        if frame.seq is not None:
            d["seq"] = frame.seq
    elif isinstance(frame, JackpotState):
        d |= {"type": "JACKPOT_STATE", "group": frame.group, "level": frame.level,
              "state": frame.state, "amount": frame.amount_cents, "hits": frame.hits}
    elif isinstance(frame, Resend):
        d |= {"type": "RESEND", "boot": frame.boot, "seq": frame.seq}
    elif isinstance(frame, Gone):
        d |= {"type": "GONE", "boot": frame.boot, "seq": frame.seq, "next": frame.next_seq}
    else:  # pragma: no cover - exhaustive
        raise TypeError(f"not a frame: {frame!r}")
    return d


def frame_checksum(body: bytes) -> str:
    """The checksum of a frame's bytes without its checksum member: the first 64 bits of their
    SHA-256, as 16 lowercase hex digits."""
    return hashlib.sha256(body).hexdigest()[:CHECKSUM_DIGITS]


def seal(body: bytes) -> bytes:
    """``body`` (one JSON object, its last byte the closing brace, newline optional) with its
    checksum member added last and the newline: the frame as it goes on the wire."""
    body = body.rstrip(b"\r\n")
    if not body.endswith(b"}") or len(body) < 3:
        raise ValueError("seal: not a JSON object with members")
    return (body[:-1] + _SUM_HEAD + frame_checksum(body).encode("ascii") + b'"}\n')


def _unseal(raw: bytes) -> bytes:
    """The frame's bytes without the checksum member, or ProtocolError if it is missing or
    does not match (the frame was damaged: nothing of it can be trusted)."""
    tail = raw[-_SUM_TAIL_LEN:]
    digits = tail[len(_SUM_HEAD):-2]
    if (len(raw) <= _SUM_TAIL_LEN or not tail.startswith(_SUM_HEAD) or not tail.endswith(b'"}')
            or not set(digits) <= _HEX):
        raise ProtocolError(f"frame without its checksum ({_peek(raw)}; a frame ends with "
                            f',"{CHECKSUM_FIELD}":"<{CHECKSUM_DIGITS} hex digits>"}})')
    body = raw[:-_SUM_TAIL_LEN] + b"}"
    if frame_checksum(body) != digits.decode("ascii"):
        raise ProtocolError(f"checksum mismatch: the frame was damaged on the way ({_peek(raw)})")
    return body


def _peek(raw: bytes) -> str:
    """What a damaged frame seems to be, for the message only (never trusted)."""
    kind = _PEEK_TYPE.search(raw)
    seq = _PEEK_SEQ.search(raw)
    what = kind.group(1).decode("ascii") if kind else "frame of unknown type"
    if seq:
        what += f" seq {seq.group(1).decode('ascii')} as read"
    return f"{what}, {len(raw)} bytes"


def encode_frame(frame: Frame) -> bytes:
    """The frame as one line of UTF-8 JSON with its checksum, newline included.

    Raises :class:`ProtocolError` if the frame would not decode (a sender must never put
    a malformed frame on the wire) or is larger than :data:`MAX_FRAME_BYTES`.
    """
    data = seal(json.dumps(frame_to_dict(frame), ensure_ascii=False,
                           separators=(",", ":")).encode("utf-8"))
    decode_frame(data)  # raises ProtocolError naming the problem
    return data


# --------------------------------------------------------------------------- decoding

class _Fields:
    """Typed access to a frame's fields; every failure names ``where.field``."""

    def __init__(self, obj: dict[str, Any], where: str, seq: int | None = None) -> None:
        self.obj = obj
        self.where = where
        self.seq = seq

    def error(self, name: str, problem: str) -> ProtocolError:
        return ProtocolError(f"{self.where}.{name}: {problem}", self.seq)

    def get(self, name: str) -> Any:
        if name not in self.obj:
            raise ProtocolError(f"{self.where}: missing field {name!r}", self.seq)
        return self.obj[name]

    def has(self, name: str) -> bool:
        return name in self.obj and self.obj[name] is not None

    def integer(self, name: str, lo: int, hi: int) -> int:
        v = self.get(name)
        if type(v) is not int:  # bool is an int subclass: refuse it too
            raise self.error(name, f"expected an integer, got {_show(v)}")
        if not lo <= v <= hi:
            raise self.error(name, f"{_show(v)} is out of range ({lo}..{hi})")
        return v

    def bounded(self, name: str, bound: str | None = None) -> int:
        """An integer within :data:`BOUNDS` ``[bound or name]``."""
        lo, hi = BOUNDS[bound or name]
        return self.integer(name, lo, hi)

    def text(self, name: str, *, nonempty: bool = True, limit: int = MAX_TEXT_CHARS) -> str:
        v = self.get(name)
        if not isinstance(v, str):
            raise self.error(name, f"expected a string, got {_show(v)}")
        if nonempty and not v.strip():
            raise self.error(name, "must not be empty")
        if len(v) > limit:
            raise self.error(name, f"longer than {limit} characters")
        if any(unicodedata.category(ch) == "Cc" for ch in v):
            raise self.error(name, "contains control characters")
        problem = unstorable(v)
        if problem:
            raise self.error(name, problem)
        return v

    def ident(self, name: str) -> str:
        """An identifier (table, boot, console, paytable): printable, no spaces."""
        v = self.text(name, limit=MAX_ID_CHARS)
        if not v.isprintable() or any(ch.isspace() for ch in v):
            raise self.error(name, f"{v!r} is not an identifier (printable, no spaces)")
        return v

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        v = self.text(name)
        if v not in choices:
            raise self.error(name, f"{v!r} is not one of {', '.join(choices)}")
        return v

    def opt_str(self, name: str, limit: int = MAX_TEXT_CHARS) -> str:
        return self.text(name, nonempty=False, limit=limit) if self.has(name) else ""


def unstorable(text: str) -> str:
    """Why ``text`` can not be stored as it is ("" when it can): a ledger keeps text as UTF-8, and
    a lone surrogate (``"\\ud800"`` in JSON) has no UTF-8 form; PostgreSQL's text refuses NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"contains a lone surrogate (U+{ord(text[exc.start]):04X} at character "
                f"{exc.start + 1}): not text a ledger can store")
    if "\x00" in text:
        return f"contains a NUL character (at character {text.index(chr(0)) + 1})"
    return ""


def storable(text: str) -> str:
    """``text`` as a ledger can store it: a lone surrogate as the text ``\\ud800``, a NUL as
    ``\\u0000`` (what the JSON said), everything else as it is."""
    if not unstorable(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\u0000")


def refusal_text(reason: str) -> str:
    """A refusal's reason as it is kept (``refused_events.reason``) and sent (``ACK refused``):
    storable, printable on one line (:func:`core.kernel.text.printable`), at most
    :data:`MAX_REASON_CHARS` characters.  The same text again gives the same text."""
    text = printable(storable(reason))
    if len(text) > MAX_REASON_CHARS:
        text = text[:MAX_REASON_CHARS - 3] + "..."
    return text


def _show(v: Any) -> str:
    text = json.dumps(v) if not isinstance(v, (dict, list)) else type(v).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _reject_constant(name: str) -> Any:
    raise ProtocolError(f"bad JSON: {name} is not allowed")


def _loads(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ProtocolError:
        raise
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"bad JSON: {exc.msg} at column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # huge ints, absurd nesting
        raise ProtocolError(f"bad JSON: {type(exc).__name__}") from None


def decode_frame(line: bytes | str) -> Frame:
    """One received line (with or without its newline) -> a frame, or ProtocolError.  The
    checksum is checked first: a damaged frame is refused whole, whatever it seems to say."""
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)
    if len(raw) > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {len(raw)} bytes exceeds {MAX_FRAME_BYTES}")
    raw = raw.rstrip(b"\r\n")
    if not raw.strip():
        raise ProtocolError("empty frame")
    raw = _unseal(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"frame is not UTF-8 (byte {exc.start})") from None
    obj = _loads(text)
    if not isinstance(obj, dict):
        raise ProtocolError(f"frame is not a JSON object (got {type(obj).__name__})")
    top = _Fields(obj, "frame")
    version = obj.get("v")
    if type(version) is not int:
        raise ProtocolError("frame.v: missing or not an integer protocol version")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(f"unsupported protocol version {version} (this side speaks "
                            f"{PROTOCOL_VERSION})")
    kind = top.text("type", limit=MAX_ID_CHARS)
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise ProtocolError(f"unknown frame type {kind!r}")
    return decoder(obj)


def _dec_hello(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "HELLO")
    return Hello(table=f.ident("table"), boot=f.ident("boot"), paytable=f.ident("paytable"),
                 decks=f.bounded("decks"), seats=f.bounded("seats"),
                 model=f.text("model", limit=MAX_ID_CHARS),
                 heartbeat_ms=f.bounded("heartbeat_ms"),
                 software=f.opt_str("software", MAX_ID_CHARS))


def _dec_welcome(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "WELCOME")
    return Welcome(console=f.ident("console"), heartbeat_ms=f.bounded("heartbeat_ms"))


def storable_json(v: Any) -> Any:
    """A decoded JSON value as every ledger's JSON column stores it: integers beyond 2**53 and
    numbers beyond a float (1e400: ``inf``) as strings, text through :func:`storable` (a NUL
    character as the text ``\\u0000``, a lone surrogate as ``\\ud800``)."""
    if isinstance(v, dict):
        return {storable_json(str(k)): storable_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [storable_json(x) for x in v]
    if type(v) is int and not -(2**53) < v < 2**53:
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, str):
        return storable(v)
    return v


def _dec_event(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "EVENT")
    table, boot = f.ident("table"), f.ident("boot")
    raw_seq = f.get("seq")
    if type(raw_seq) is not int:
        raise f.error("seq", f"expected an integer, got {_show(raw_seq)}")
    try:
        return _dec_event_content(f, table, boot)
    except ProtocolError as exc:
        # the checksum held and the event's identity is readable: the console refuses it by
        # that identity and keeps it, instead of leaving it in the controller's outbox for ever
        kind = obj.get("kind")
        exc.event = MalformedEvent(
            table, boot, raw_seq,
            kind if isinstance(kind, str) and kind.isprintable() and len(kind) <= MAX_ID_CHARS
            else "",
            storable_json({k: v for k, v in obj.items() if k not in ("v", CHECKSUM_FIELD)}))
        raise


def _dec_event_content(f: _Fields, table: str, boot: str) -> Frame:
    obj = f.obj
    seq = f.bounded("seq")
    f.seq = seq
    origin = Origin(table=table, boot=boot, seq=seq,
                    controller_time=f.opt_str("time", MAX_TIME_CHARS))
    kind = f.text("kind", limit=MAX_ID_CHARS)
    e = _Fields(obj, kind, seq)
    event: ControllerEvent
    if kind == "GAME_STARTED":
        raw = e.get("wagers")
        if not isinstance(raw, dict):
            raise e.error("wagers", f"expected an object seat -> cents, got {_show(raw)}")
        wagers: dict[int, int] = {}
        for key in raw:
            if not (key.isascii() and key.isdigit()) or len(key) > 2 or key.startswith("0"):
                raise e.error("wagers", f"seat {key!r} is not a seat number 1..{MAX_SEAT}")
            w = _Fields(raw, f"{kind}.wagers", seq)
            wagers[int(key)] = w.bounded(key, "wager")
        event = GameStarted(round_no=e.bounded("round"), wagers=wagers)
    elif kind == "HIT":
        cards: tuple[Any, ...] = ()
        if e.has("cards"):
            raw = e.get("cards")
            if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
                raise e.error("cards", f"expected a list of card strings, got {_show(raw)}")
            if len(raw) not in (0, 7):
                raise e.error("cards", f"expected 0 or 7 cards, got {len(raw)}")
            try:
                cards = parse_cards(raw, count=None)
            except CardError as exc:
                raise e.error("cards", str(exc)) from None
        event = HitClaimed(round_no=e.bounded("round"), seat=e.bounded("seat"),
                           hand=e.choice("hand", HAND_IDS), cards=cards)
    elif kind == "GAME_ENDED":
        event = GameEnded(round_no=e.bounded("round"))
    elif kind == "UNDO":
        event = Undone(round_no=e.bounded("round"), what=e.choice("what", UNDO_WHATS),
                       seat=e.bounded("seat") if e.has("seat") else None)
    elif kind == "MISDEAL":
        event = Misdealt(round_no=e.bounded("round"))
    else:
        raise ProtocolError(f"EVENT.kind: unknown event kind {kind!r}", seq)
    return EventFrame(origin=origin, event=event)


def _dec_ack(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "ACK")
    result: AckResult = "ok" if f.choice("result", ("ok", "refused")) == "ok" else "refused"
    return Ack(boot=f.ident("boot"), seq=f.bounded("seq"), result=result,
               reason=f.opt_str("reason"))


def _dec_command(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "COMMAND")
    console, cseq = f.ident("console"), f.bounded("cseq")
    name = f.choice("command", ("PAY", "REJECT"))
    c = _Fields(obj, name)
    command: Command
    if name == "PAY":
        command = PayConfirmed(round_no=c.bounded("round"), seat=c.bounded("seat"),
                               hit_ref=c.text("hit_ref", limit=2 * MAX_ID_CHARS),
                               amount_cents=c.bounded("amount"))
    else:
        command = HitRejected(round_no=c.bounded("round"), seat=c.bounded("seat"),
                              reason=c.text("reason"),
                              hit_ref=c.opt_str("hit_ref", 2 * MAX_ID_CHARS))
    return CommandFrame(console=console, cseq=cseq, command=command)


def _dec_cmd_ack(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "CMD_ACK")
    result: AckResult = "ok" if f.choice("result", ("ok", "refused")) == "ok" else "refused"
    return CommandAck(console=f.ident("console"), cseq=f.bounded("cseq"), result=result,
                      reason=f.opt_str("reason"))


def _dec_heartbeat(obj: dict[str, Any]) -> Frame:
    return Heartbeat(time=_Fields(obj, "HEARTBEAT").opt_str("time", MAX_ID_CHARS))


def _dec_error(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "ERROR")
    return ErrorFrame(code=f.text("code", limit=MAX_ID_CHARS), message=f.text("message",
                      nonempty=False), seq=f.bounded("seq") if f.has("seq") else None)


def _dec_jackpot_state(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "JACKPOT_STATE")
    state: Literal["PENDING", "CLEAR"] = (
        "PENDING" if f.choice("state", ("PENDING", "CLEAR")) == "PENDING" else "CLEAR")
    amount, hits = f.bounded("amount"), f.bounded("hits")
    if (state == "PENDING") != (hits > 0):
        raise f.error("hits", f"{hits} with state {state} (PENDING has hits, CLEAR none)")
    return JackpotState(group=f.ident("group"), level=f.ident("level"), state=state,
                        amount_cents=amount, hits=hits)


def _dec_resend(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "RESEND")
    return Resend(boot=f.ident("boot"), seq=f.bounded("seq"))


def _dec_gone(obj: dict[str, Any]) -> Frame:
    f = _Fields(obj, "GONE")
    boot, seq = f.ident("boot"), f.bounded("seq")
    return Gone(boot=boot, seq=seq, next_seq=f.integer("next", seq + 1, MAX_SEQ))


_DECODERS = {
    "HELLO": _dec_hello, "WELCOME": _dec_welcome, "EVENT": _dec_event, "ACK": _dec_ack,
    "COMMAND": _dec_command, "CMD_ACK": _dec_cmd_ack, "HEARTBEAT": _dec_heartbeat,
    "ERROR": _dec_error, "JACKPOT_STATE": _dec_jackpot_state, "RESEND": _dec_resend,
    "GONE": _dec_gone,
}


# --------------------------------------------------------------------------- stream

class FrameBuffer:
    """Splits received bytes into frames.

    ``feed(data)`` returns, in order, every complete line decoded as a frame or the
    :class:`ProtocolError` it raised (returned, not raised, so the caller can answer
    ERROR and carry on).  A line longer than :data:`MAX_FRAME_BYTES` is discarded up to
    its newline and reported once.
    """

    def __init__(self, max_bytes: int = MAX_FRAME_BYTES) -> None:
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._discarding = 0  # bytes of an oversize line dropped so far (0: not discarding)

    def feed(self, data: bytes) -> list[Frame | ProtocolError]:
        out: list[Frame | ProtocolError] = []
        self._buf += data
        while True:
            nl = self._buf.find(b"\n")
            if self._discarding:
                if nl < 0:
                    self._discarding += len(self._buf)
                    self._buf.clear()
                    return out
                size = self._discarding + nl + 1
                del self._buf[: nl + 1]
                self._discarding = 0
                out.append(ProtocolError(f"frame of {size} bytes exceeds {self.max_bytes}"))
                continue
            if nl < 0:
                if len(self._buf) > self.max_bytes:
                    self._discarding = len(self._buf)
                    self._buf.clear()
                return out
            line = bytes(self._buf[: nl + 1])
            del self._buf[: nl + 1]
            if len(line) > self.max_bytes:
                out.append(ProtocolError(f"frame of {len(line)} bytes exceeds {self.max_bytes}"))
                continue
            if not line.strip():
                continue  # tolerate blank keep-alive lines
            try:
                out.append(decode_frame(line))
            except ProtocolError as exc:
                out.append(exc)


def event_bounds_problem(event: ControllerEvent) -> str:
    """What in an event is outside the protocol's bounds ("" when nothing): the floor checks
    events that did not come through :func:`decode_frame` (a script, a test) the same way."""
    def out(what: str, v: int, bound: str) -> str:
        lo, hi = BOUNDS[bound]
        return "" if lo <= v <= hi else f"{what} {v} is out of range ({lo}..{hi})"

    problems = [out("round", event.round_no, "round")]
    if isinstance(event, GameStarted):
        problems += [out("wager seat", seat, "seat") for seat in event.wagers]
        problems += [out(f"seat {seat} wager", cents, "wager")
                     for seat, cents in event.wagers.items()]
    elif isinstance(event, (HitClaimed, Undone)) and event.seat is not None:
        problems.append(out("seat", event.seat, "seat"))
    return next((p for p in problems if p), "")


def event_problem(origin: Origin, event: ControllerEvent) -> str:
    """What in an event (with its origin) the ledger could not keep as it is ("" when nothing):
    a member of the wrong type, a number beyond its bound, text too long for its column, or text
    no ledger stores (a lone surrogate, a NUL, a control character).  The decoder refuses all of
    these on the wire; the ledger writer asks this of every event before it joins a batch, so
    that one an in-process caller made (a script, a test) is refused alone, by name."""
    def text(what: str, v: Any, limit: int, *, empty: bool = False) -> str:
        if not isinstance(v, str):
            return f"{what}: expected text, got {type(v).__name__}"
        if not v and not empty:
            return f"{what}: must not be empty"
        if len(v) > limit:
            return f"{what}: longer than {limit} characters"
        problem = unstorable(v)
        if problem:
            return f"{what}: {problem}"
        if any(unicodedata.category(ch) == "Cc" for ch in v):  # as the decoder
            return f"{what}: contains control characters"
        return ""

    def integer(what: str, v: Any) -> str:
        return "" if type(v) is int else f"{what}: expected an integer, got {type(v).__name__}"

    problems = [text("table", origin.table, MAX_ID_CHARS), text("boot", origin.boot, MAX_ID_CHARS),
                integer("seq", origin.seq),
                text("time", origin.controller_time, MAX_TIME_CHARS, empty=True)]
    if not isinstance(event, (GameStarted, HitClaimed, GameEnded, Undone, Misdealt)):
        problems.append(f"not a controller event ({type(event).__name__})")
        return next(p for p in problems if p)
    where = type(event).__name__
    problems.append(integer(f"{where}.round_no", event.round_no))
    if isinstance(event, GameStarted):
        if not isinstance(event.wagers, dict):
            problems.append(f"{where}.wagers: expected seat -> cents, got "
                            f"{type(event.wagers).__name__}")
        else:
            problems += [integer(f"{where}.wagers seat", seat) for seat in event.wagers]
            problems += [integer(f"{where}.wagers[{seat!r}]", cents)
                         for seat, cents in event.wagers.items()]
    elif isinstance(event, HitClaimed):
        problems += [integer(f"{where}.seat", event.seat),
                     text(f"{where}.hand", event.hand, MAX_HAND_CHARS)]
        if not isinstance(event.cards, tuple) or not all(isinstance(c, Card)
                                                         for c in event.cards):
            problems.append(f"{where}.cards: expected cards")
    elif isinstance(event, Undone):
        problems.append(text(f"{where}.what", event.what, MAX_ID_CHARS))
        if event.seat is not None:
            problems.append(integer(f"{where}.seat", event.seat))
    problem = next((p for p in problems if p), "")
    if problem:
        return problem
    bounds = event_bounds_problem(event)
    return f"{where}: {bounds}" if bounds else ""
