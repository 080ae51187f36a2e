"""The table-controller wire protocol, version 1 (docs/protocol.md): frames to bytes and back.

One JSON object per line, UTF-8, at most :data:`MAX_FRAME_BYTES` bytes, ending in its checksum
(:mod:`core.controllers.checksum`).  This module is pure (no sockets): :func:`encode_frame` /
:func:`decode_frame` turn the frames (:mod:`core.controllers.frames`) into bytes and back,
:class:`FrameBuffer` splits a byte stream into lines.  Decoding raises nothing but
:class:`ProtocolError`, whose message names the frame, the field and the problem; every number
has a bound (:data:`BOUNDS`).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Literal

from core.controllers.checksum import CHECKSUM_FIELD, seal, unseal
from core.controllers.events import (
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    Undone,
)
from core.controllers.frames import (
    BOUNDS,
    MAX_FRAME_BYTES,
    MAX_ID_CHARS,
    MAX_SEAT,
    MAX_SEQ,
    MAX_TEXT_CHARS,
    MAX_TIME_CHARS,
    PROTOCOL_VERSION,
    UNDO_WHATS,
    Ack,
    AckResult,
    Command,
    CommandAck,
    CommandFrame,
    ErrorFrame,
    EventFrame,
    Frame,
    Gone,
    Heartbeat,
    Hello,
    HitRejected,
    JackpotState,
    MalformedEvent,
    PayConfirmed,
    ProtocolError,
    Resend,
    Welcome,
)
from core.controllers.screening import storable_json, unstorable
from core.kernel.cards import CardError, format_cards, parse_cards
from core.tablegames.rules.fortune import HAND_IDS  # RULES.md section 1: the hand buttons

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
    raw = unseal(raw)
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
