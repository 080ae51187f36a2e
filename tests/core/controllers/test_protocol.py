"""The controller wire protocol (docs/protocol.md): framing, checksums, bounds, round trips,
malformed frames."""

from __future__ import annotations

import contextlib
import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.controllers.checksum import frame_checksum, seal
from core.controllers.events import GameEnded, GameStarted, HitClaimed, Misdealt, Origin, Undone
from core.controllers.frames import (
    BOUNDS,
    MAX_AMOUNT_CENTS,
    MAX_FRAME_BYTES,
    MAX_REASON_CHARS,
    MAX_ROUND,
    MAX_SEQ,
    MAX_WAGER_CENTS,
    Ack,
    CommandAck,
    CommandFrame,
    ErrorFrame,
    EventFrame,
    Gone,
    Heartbeat,
    Hello,
    HitRejected,
    JackpotState,
    PayConfirmed,
    ProtocolError,
    Resend,
    Welcome,
    hit_ref,
)
from core.controllers.protocol import FrameBuffer, decode_frame, encode_frame
from core.controllers.screening import (
    event_bounds_problem,
    event_problem,
    refusal_text,
    storable,
    unstorable,
)
from core.kernel.cards import full_deck, parse_cards
from core.tablegames.rules.fortune import HAND_IDS

# ------------------------------------------------------------------ strategies

ids = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FFF,
                                     whitelist_categories=("L", "N", "P", "S")),
              min_size=1, max_size=20)
seats = st.integers(1, 99)
rounds = st.integers(1, MAX_ROUND)
cents = st.integers(1, MAX_WAGER_CENTS)
hands7 = st.lists(st.sampled_from(full_deck()), min_size=7, max_size=7, unique=True).map(tuple)

events = st.one_of(
    st.builds(GameStarted, round_no=rounds, wagers=st.dictionaries(seats, cents, max_size=7)),
    st.builds(HitClaimed, round_no=rounds, seat=seats, hand=st.sampled_from(HAND_IDS),
              cards=st.one_of(st.just(()), hands7)),
    st.builds(GameEnded, round_no=rounds),
    st.builds(Undone, round_no=rounds, what=st.just("START_GAME"), seat=st.none()),
    st.builds(Undone, round_no=rounds, what=st.just("HIT"), seat=st.one_of(st.none(), seats)),
    st.builds(Misdealt, round_no=rounds),
)
origins = st.builds(Origin, table=ids, boot=ids, seq=st.integers(1, MAX_SEQ),
                    controller_time=st.sampled_from(["", "2025-06-01T12:00:00Z"]))
commands = st.one_of(
    st.builds(PayConfirmed, round_no=rounds, seat=seats, hit_ref=ids,
              amount_cents=st.integers(0, MAX_AMOUNT_CENTS)),
    st.builds(HitRejected, round_no=rounds, seat=seats,
              reason=st.text(min_size=1, max_size=50).filter(
                  lambda s: s.strip() != "" and all(
                      unicodedata.category(c) not in ("Cc", "Cs") for c in s)),
              hit_ref=st.one_of(st.just(""), ids)),
)
frames = st.one_of(
    st.builds(Hello, table=ids, boot=ids, paytable=ids, decks=st.integers(1, 16),
              seats=st.integers(1, 99), model=st.just("Nexus Command"),
              heartbeat_ms=st.integers(1, 3_600_000), software=st.just("sim 1")),
    st.builds(Welcome, console=ids, heartbeat_ms=st.integers(1, 3_600_000)),
    st.builds(EventFrame, origin=origins, event=events),
    st.builds(Ack, boot=ids, seq=st.integers(1, 2**40), result=st.sampled_from(["ok", "refused"]),
              reason=st.sampled_from(["", "no such round"])),
    st.builds(CommandFrame, console=ids, cseq=st.integers(1, 2**40), command=commands),
    st.builds(CommandAck, console=ids, cseq=st.integers(1, 2**40),
              result=st.sampled_from(["ok", "refused"]), reason=st.just("")),
    st.builds(Heartbeat, time=st.sampled_from(["", "2025-06-01T12:00:00Z"])),
    st.builds(ErrorFrame, code=st.sampled_from(["BAD_FRAME", "HELLO_REFUSED"]),
              message=st.just("frame.v: bad"), seq=st.one_of(st.none(), st.integers(1, 99))),
    st.builds(JackpotState, group=ids, level=st.sampled_from(["MAIN", "MEGA"]),
              state=st.just("PENDING"), amount_cents=st.integers(0, MAX_AMOUNT_CENTS),
              hits=st.integers(1, 9)),
    st.builds(JackpotState, group=ids, level=st.just("MAIN"), state=st.just("CLEAR")),
    st.builds(Resend, boot=ids, seq=st.integers(1, MAX_SEQ)),
    st.builds(lambda boot, seq, n: Gone(boot, seq, min(seq + n, MAX_SEQ)), ids,
              st.integers(1, MAX_SEQ - 1), st.integers(1, 10**6)),
)


def _event_line(**override: object) -> bytes:
    base: dict[str, object] = {"v": 1, "type": "EVENT", "table": "T1", "boot": "b1", "seq": 7,
                               "kind": "HIT", "round": 3, "seat": 2, "hand": "FLUSH",
                               "cards": ["2c", "5c", "9c", "Jc", "Kc", "3d", "4h"]}
    for key, value in override.items():
        if value is _DROP:
            base.pop(key)
        else:
            base[key] = value
    return seal(json.dumps(base).encode())


def _line(obj: dict[str, object]) -> bytes:
    """A frame as a sender writes it (its checksum added), whatever it holds."""
    return seal(json.dumps(obj).encode())


_DROP = object()

# ------------------------------------------------------------------ round trips


@given(frames)
@settings(max_examples=400)
def test_every_frame_survives_an_encode_decode_round_trip(frame: object) -> None:
    data = encode_frame(frame)  # type: ignore[arg-type]
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert decode_frame(data) == frame


@given(st.lists(frames, min_size=1, max_size=8), st.data())
def test_frames_split_anywhere_across_reads_come_out_whole_and_in_order(
        sent: list[object], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(f) for f in sent)  # type: ignore[arg-type]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    buf = FrameBuffer()
    got: list[object] = []
    prev = 0
    for cut in [*cuts, len(stream)]:
        got += buf.feed(stream[prev:cut])
        prev = cut
    assert got == sent


def test_money_travels_as_integer_cents() -> None:
    frame = EventFrame(Origin("T1", "b", 1), GameStarted(1, {1: 100, 6: 500}))
    wire = json.loads(encode_frame(frame))
    assert wire["wagers"] == {"1": 100, "6": 500}
    pay = CommandFrame("c", 1, PayConfirmed(1, 3, "b:1", 250_000))
    assert json.loads(encode_frame(pay))["amount"] == 250_000


def test_cards_are_written_canonically_and_any_cli_spelling_is_accepted() -> None:
    line = _event_line(cards=["10h", "a♠", "JOKER", "kd", "2C", "3c", "4c"])
    frame = decode_frame(line)
    assert isinstance(frame, EventFrame) and isinstance(frame.event, HitClaimed)
    assert frame.event.cards == parse_cards(["Th", "As", "Jk", "Kd", "2c", "3c", "4c"])
    assert json.loads(encode_frame(frame))["cards"] == ["Th", "As", "Jk", "Kd", "2c", "3c", "4c"]


def test_hit_ref_names_the_hit_event_by_boot_and_seq() -> None:
    assert hit_ref(Origin("T1", "9f2c", 17)) == "9f2c:17"


def test_hand_ids_are_those_of_the_rules_core() -> None:
    fortune = pytest.importorskip("core.tablegames.rules.fortune")
    assert tuple(fortune.HAND_IDS) == HAND_IDS


# ------------------------------------------------------------------ malformed frames


@pytest.mark.parametrize(("line", "named"), [
    (seal(b"{\"v\":1,\"type\":\"EVENT\",}"), "bad JSON"),
    (b"[1,2]\n", "without its checksum"),
    (seal(b"{\"v\":1,\"type\":\"\xff\xfe\"}"), "not UTF-8"),
    (_line({"type": "HEARTBEAT"}), "frame.v"),
    (_line({"v": 2, "type": "HEARTBEAT"}), "unsupported protocol version 2"),
    (_line({"v": True, "type": "HEARTBEAT"}), "frame.v"),
    (_line({"v": 1, "type": "DANCE"}), "unknown frame type 'DANCE'"),
    (_event_line(kind="JUMP"), "unknown event kind 'JUMP'"),
    (_event_line(seq=_DROP), "missing field 'seq'"),
    (_event_line(seat=_DROP), "missing field 'seat'"),
    (_event_line(seat="2"), "HIT.seat: expected an integer"),
    (_event_line(seat=True), "HIT.seat: expected an integer"),
    (_event_line(seat=0), "HIT.seat: 0 is out of range"),
    (_event_line(round=1.0), "HIT.round: expected an integer"),
    (_event_line(hand="BIG_WIN"), "HIT.hand: 'BIG_WIN' is not one of"),
    (_event_line(cards=["Zz", "2c", "3c", "4c", "5c", "6c", "7c"]), "card 'Zz'"),
    (_event_line(cards=["2c", "2c", "3c", "4c", "5c", "6c", "7c"]), "duplicate"),
    (_event_line(cards=["2c", "3c"]), "expected 0 or 7 cards"),
    (_event_line(table=""), "EVENT.table: must not be empty"),
    (_event_line(table="T 1"), "EVENT.table: 'T 1' is not an identifier"),
    (_event_line(boot="b\u0085"), "EVENT.boot"),
    (_event_line(kind="GAME_STARTED", wagers={"1": 1.5}), "GAME_STARTED.wagers.1"),
    (_event_line(kind="GAME_STARTED", wagers={"1": "1.00"}), "expected an integer"),
    (_event_line(kind="GAME_STARTED", wagers={"x": 100}), "seat 'x'"),
    (_event_line(kind="GAME_STARTED", wagers=[100]), "GAME_STARTED.wagers"),
    (_line({"v": 1, "type": "ACK", "boot": "b", "seq": 1, "result": "maybe"}), "ACK.result"),
    (_line({"v": 1, "type": "COMMAND", "console": "c", "cseq": 1, "command": "PAY", "round": 1,
            "seat": 1, "hit_ref": "b:1", "amount": "75.00"}), "PAY.amount"),
    (seal(b"{\"v\":1,\"type\":\"HEARTBEAT\",\"time\":NaN}"), "NaN"),
    (_line({"v": 1, "type": "JACKPOT_STATE", "group": "WA01", "level": "MAIN",
            "state": "PENDING", "amount": 100, "hits": 0}), "JACKPOT_STATE.hits"),
    (_line({"v": 1, "type": "JACKPOT_STATE", "group": "WA01", "level": "MAIN",
            "state": "FROZEN", "amount": 100, "hits": 1}), "JACKPOT_STATE.state"),
    (_line({"v": 1, "type": "JACKPOT_STATE", "group": "WA01", "level": "MAIN",
            "state": "PENDING", "amount": -5, "hits": 1}), "JACKPOT_STATE.amount"),
    (_line({"v": 1, "type": "GONE", "boot": "b", "seq": 5, "next": 5}), "GONE.next"),
    (_line({"v": 1, "type": "RESEND", "boot": "b", "seq": 0}), "RESEND.seq"),
    (b"\n", "empty frame"),
])
def test_malformed_frames_raise_protocol_error_naming_the_problem(line: bytes, named: str) -> None:
    with pytest.raises(ProtocolError, match=named.replace("(", r"\(").replace(".", r"\.")):
        decode_frame(line)


def test_a_malformed_event_still_reports_its_seq_for_the_error_answer() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_frame(_event_line(hand="BIG_WIN", seq=41))
    assert info.value.seq == 41


def test_oversize_frame_is_refused_and_the_stream_resyncs_at_the_next_line() -> None:
    buf = FrameBuffer()
    good = encode_frame(Heartbeat())
    huge = b"{\"v\":1,\"type\":\"HEARTBEAT\",\"pad\":\"" + b"x" * MAX_FRAME_BYTES + b"\"}\n"
    out: list[object] = []
    for i in range(0, len(huge), 4096):  # arrives in pieces
        out += buf.feed(huge[i:i + 4096])
    out += buf.feed(good)
    assert len(out) == 2
    assert isinstance(out[0], ProtocolError) and "exceeds" in str(out[0])
    assert out[1] == Heartbeat()
    with pytest.raises(ProtocolError, match="exceeds"):
        decode_frame(huge)


def test_unknown_extra_fields_are_ignored_within_a_version() -> None:
    frame = decode_frame(_event_line(colour="blue"))
    assert isinstance(frame, EventFrame) and frame.origin.seq == 7


def test_a_sender_can_not_put_a_malformed_frame_on_the_wire() -> None:
    with pytest.raises(ProtocolError, match="HIT.hand"):
        encode_frame(EventFrame(Origin("T1", "b", 1), HitClaimed(1, 2, "BIG_WIN")))


@given(st.binary(max_size=300))
@settings(max_examples=500)
def test_random_bytes_never_raise_anything_but_protocol_error(data: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        decode_frame(data)
    buf = FrameBuffer(max_bytes=64)
    for item in buf.feed(data + b"\n"):
        assert isinstance(item, (ProtocolError, *_FRAME_TYPES))


_FRAME_TYPES = (Hello, Welcome, EventFrame, Ack, CommandFrame, CommandAck, Heartbeat, ErrorFrame,
                JackpotState, Resend, Gone)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                   max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(["v", "type", "table", "boot", "seq", "kind", "round", "seat",
                               "hand", "cards", "wagers", "what", "console", "cseq", "command",
                               "hit_ref", "amount", "reason", "result", "decks", "seats",
                               "paytable", "model", "heartbeat_ms", "code", "message", "time",
                               "next", "group", "level", "state", "hits"])


@given(st.fixed_dictionaries({"v": st.sampled_from([1, 1, 1, 2, "1", None])}),
       st.sampled_from(["HELLO", "WELCOME", "EVENT", "ACK", "COMMAND", "CMD_ACK", "HEARTBEAT",
                        "ERROR", "JACKPOT_STATE", "RESEND", "GONE", "NOPE"]),
       st.dictionaries(field_names, json_values, max_size=12))
@settings(max_examples=800)
def test_structured_garbage_never_raises_anything_but_protocol_error(
        head: dict[str, object], kind: str, body: dict[str, object]) -> None:
    obj = {**body, **head, "type": kind}
    try:
        line = seal(json.dumps(obj).encode())  # past the checksum, into the fields
    except ValueError:
        return
    with contextlib.suppress(ProtocolError):
        decode_frame(line)


def test_absurd_nesting_is_a_protocol_error_not_a_crash() -> None:
    with pytest.raises(ProtocolError):
        decode_frame(b"[" * 30_000 + b"]" * 30_000)
    with pytest.raises(ProtocolError):
        decode_frame(b"{\"v\":1,\"type\":\"EVENT\",\"seq\":" + b"9" * 5000 + b"}")
    with pytest.raises(ProtocolError):
        decode_frame(seal(b"{\"v\":1,\"type\":\"EVENT\",\"seq\":" + b"9" * 5000 + b"}"))


# ------------------------------------------------------------------ checksum (issue 11)


def test_every_frame_ends_with_the_checksum_of_its_bytes_without_it() -> None:
    data = encode_frame(EventFrame(Origin("T1", "b", 4), GameEnded(2)))
    body, tail = data[:-27], data[-27:]
    assert tail.startswith(b',"sum":"') and tail.endswith(b'"}\n')
    assert tail[8:24].decode() == frame_checksum(body + b"}")
    assert seal(body + b"}") == data


@given(frames, st.data())
@settings(max_examples=400)
def test_a_damaged_frame_is_refused_whole_never_read_as_another(frame: object,
                                                                data: st.DataObject) -> None:
    sent = encode_frame(frame)  # type: ignore[arg-type]
    damaged = bytearray(sent)
    where = data.draw(st.integers(0, len(sent) - 1))
    damaged[where] ^= data.draw(st.integers(1, 255))  # any bit pattern of one byte flipped
    cut = data.draw(st.integers(1, len(sent) - 2))
    for line in (bytes(damaged), sent[:cut] + b"\n"):
        try:
            got = decode_frame(line)
        except ProtocolError as exc:  # refused by its checksum, before any field is read
            assert "checksum" in str(exc) and exc.event is None and exc.seq is None
            continue
        assert got == frame  # only a newline turned into a carriage return: the same frame


def test_a_damaged_frame_names_what_it_seems_to_be_and_is_not_trusted() -> None:
    sent = bytearray(encode_frame(EventFrame(Origin("T1", "b", 17), GameStarted(3, {1: 100}))))
    sent[sent.index(b'"round":3') + 8] = ord("4")
    with pytest.raises(ProtocolError, match="checksum mismatch.*EVENT seq 17 as read") as info:
        decode_frame(bytes(sent))
    assert info.value.seq is None and info.value.event is None
    with pytest.raises(ProtocolError, match="without its checksum"):
        decode_frame(b'{"v":1,"type":"HEARTBEAT"}\n')  # a sender from before the checksum


# ------------------------------------------------------------------ bounds (issue 11)


def _command(**override: object) -> dict[str, object]:
    return {"v": 1, "type": "COMMAND", "console": "c", "cseq": 1, "command": "PAY", "round": 1,
            "seat": 1, "hit_ref": "b:1", "amount": 100, **override}


@pytest.mark.parametrize(("line", "named"), [
    (_event_line(seq=MAX_SEQ + 1), "EVENT.seq: 9007199254740992 is out of range"),
    (_event_line(seq=2**63), "EVENT.seq"),
    (_event_line(round=MAX_ROUND + 1), "HIT.round: 2147483648 is out of range"),
    (_event_line(round=2**63), "HIT.round"),
    (_event_line(seat=100), "HIT.seat: 100 is out of range"),
    (_event_line(kind="GAME_STARTED", wagers={"1": MAX_WAGER_CENTS + 1}),
     "GAME_STARTED.wagers.1: 100000001 is out of range"),
    (_event_line(kind="GAME_STARTED", wagers={"1": 2**63}), "GAME_STARTED.wagers.1"),
    (_event_line(kind="GAME_STARTED", wagers={"1": 0}), "GAME_STARTED.wagers.1: 0 is out"),
    (_line(_command(amount=MAX_AMOUNT_CENTS + 1)), "PAY.amount: 1000000000001 is out of range"),
    (_line(_command(cseq=MAX_SEQ + 1)), "COMMAND.cseq"),
    (_line({"v": 1, "type": "ACK", "boot": "b", "seq": 2**63, "result": "ok"}), "ACK.seq"),
    (_line({"v": 1, "type": "WELCOME", "console": "c", "heartbeat_ms": 3_600_001}),
     "WELCOME.heartbeat_ms"),
    (_line({"v": 1, "type": "HELLO", "table": "T1", "boot": "b", "paytable": "P", "decks": 17,
            "seats": 6, "model": "m", "heartbeat_ms": 5000}), "HELLO.decks"),
    (_line({"v": 1, "type": "HELLO", "table": "T1", "boot": "b", "paytable": "P", "decks": 1,
            "seats": 100, "model": "m", "heartbeat_ms": 5000}), "HELLO.seats"),
    (_line({"v": 1, "type": "JACKPOT_STATE", "group": "G", "level": "MAIN", "state": "PENDING",
            "amount": 100, "hits": 10_001}), "JACKPOT_STATE.hits"),
])
def test_every_number_has_a_bound_and_a_frame_beyond_it_is_refused_by_name(line: bytes,
                                                                            named: str) -> None:
    with pytest.raises(ProtocolError, match=named.replace(".", r"\.")):
        decode_frame(line)


def test_the_bounds_table_covers_every_number_on_the_wire() -> None:
    assert set(BOUNDS) == {"seq", "cseq", "round", "seat", "seats", "decks", "heartbeat_ms",
                           "wager", "amount", "hits"}
    assert BOUNDS["seq"][1] < 2**53 and BOUNDS["round"][1] < 2**31
    # a meter in exact units (1/1,000,000 cent) of the largest amount fits a 64-bit integer
    assert BOUNDS["amount"][1] * 1_000_000 * 9 < 2**63


def test_a_malformed_event_whose_identity_is_readable_carries_it_for_the_refusal() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_frame(_event_line(seq=41, round=2**63))
    m = info.value.event
    assert m is not None and (m.table, m.boot, m.seq, m.kind) == ("T1", "b1", 41, "HIT")
    assert m.seq_in_bounds and m.fields["round"] == str(2**63)  # stored as text
    assert "sum" not in m.fields
    with pytest.raises(ProtocolError) as info:
        decode_frame(_event_line(seq=2**63))
    m = info.value.event
    assert m is not None and m.seq == 2**63 and not m.seq_in_bounds
    with pytest.raises(ProtocolError) as info:  # no readable identity: nothing to refuse by
        decode_frame(_event_line(boot=""))
    assert info.value.event is None


def test_events_built_in_code_are_checked_against_the_same_bounds() -> None:
    assert event_bounds_problem(GameStarted(1, {1: 100})) == ""
    assert "round 2147483648" in event_bounds_problem(GameEnded(MAX_ROUND + 1))
    assert "seat 1 wager" in event_bounds_problem(GameStarted(1, {1: 2**63}))
    assert "seat 100" in event_bounds_problem(HitClaimed(1, 100, "FLUSH"))
    assert event_bounds_problem(Misdealt(2**31)) != ""
    assert event_bounds_problem(Undone(1, "HIT", 2)) == ""


# ------------------------------------------------------------ text no ledger stores (issue 22)


def _storable_everywhere(v: object) -> bool:
    """Every text in ``v`` (keys too) encodes as UTF-8 and holds no NUL: any ledger stores it."""
    if isinstance(v, dict):
        return all(_storable_everywhere(k) and _storable_everywhere(x) for k, x in v.items())
    if isinstance(v, list):
        return all(_storable_everywhere(x) for x in v)
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return "\x00" not in v
    return True


@pytest.mark.parametrize(("override", "named"), [
    ({"time": "\ud800"}, "EVENT.time: contains a lone surrogate (U+D800 at character 1)"),
    ({"time": "2025\udfff"}, "EVENT.time: contains a lone surrogate (U+DFFF at character 5)"),
    ({"time": "x\x00"}, "EVENT.time: contains control characters"),
    ({"time": "2025-06-01T12:00:00.000000000000000000000Z"}, "EVENT.time: longer than 40"),
    ({"hand": "FLU\ud800SH"}, "HIT.hand: contains a lone surrogate"),
    ({"kind": "HIT\udc00"}, "EVENT.kind: contains a lone surrogate"),
    ({"cards": ["\ud800", "5c", "9c", "Jc", "Kc", "3d", "4h"]}, "HIT.cards: card '\\ud800'"),
    ({"kind": "UNDO", "what": "\ud800"}, "UNDO.what: contains a lone surrogate"),
    ({"kind": "GAME_STARTED", "wagers": {"\ud800": 100}}, "GAME_STARTED.wagers: seat '\\ud800'"),
])
def test_an_event_with_text_no_ledger_stores_is_refused_by_name_and_kept_storable(
        override: dict[str, object], named: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_frame(_event_line(**override))
    message = str(info.value)
    assert named in message
    assert message.isprintable() and _storable_everywhere(message)
    m = info.value.event
    assert m is not None and (m.table, m.boot, m.seq) == ("T1", "b1", 7)  # refused by identity
    assert _storable_everywhere(m.fields)  # what the refused_events row keeps
    for key, value in override.items():
        if isinstance(value, str) and not value.isprintable():
            assert m.fields[key] == value.encode("utf-8", "backslashreplace").decode() \
                .replace("\x00", "\\u0000")  # the escape the JSON had


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=50))
def test_any_text_in_an_event_decodes_to_storable_text_or_a_storable_refusal(text: str) -> None:
    for field in ("time", "hand", "kind"):
        try:
            frame = decode_frame(_event_line(**{field: text}))
        except ProtocolError as exc:
            assert _storable_everywhere(str(exc))
            if exc.event is not None:
                assert _storable_everywhere(exc.event.fields)
            continue
        assert isinstance(frame, EventFrame)
        assert event_problem(frame.origin, frame.event) == ""  # the writer's screen agrees
        assert _storable_everywhere([frame.origin.controller_time,
                                     getattr(frame.event, "hand", "")])


def test_storable_escapes_what_no_ledger_stores_and_nothing_else() -> None:
    assert storable("2025-06-01T12:00:00Z") == "2025-06-01T12:00:00Z"
    assert storable("\ud800x\x00") == "\\ud800x\\u0000"
    assert storable("naïve ★ 😀") == "naïve ★ 😀"
    assert unstorable("ok") == "" and "NUL" in unstorable("a\x00") and \
        "surrogate" in unstorable("\udfff")


def test_a_refusal_reason_is_one_printable_bounded_line_and_stays_the_same() -> None:
    raw = "bad\nline \ud800\x00 \x1b[2J" + "x" * 2_000
    text = refusal_text(raw)
    assert text.isprintable() and len(text) == MAX_REASON_CHARS and text.endswith("...")
    assert text.startswith("bad line \\ud800\\u0000 ?[2J")
    assert refusal_text(text) == text  # kept and sent again after a restart: the same words
    assert refusal_text("seat 9 does not exist") == "seat 9 does not exist"
    # it goes on the wire in an ACK
    assert decode_frame(encode_frame(Ack("b", 1, "refused", text))) == Ack("b", 1, "refused", text)


def test_events_built_in_code_are_screened_for_types_text_and_bounds() -> None:
    o = Origin("T1", "b1", 1, "2025-06-01T12:00:00Z")
    assert event_problem(o, GameStarted(1, {1: 100})) == ""
    seven = parse_cards(["2c", "5c", "9c", "Jc", "Kc", "3d", "4h"])
    assert event_problem(o, HitClaimed(1, 2, "FLUSH", seven)) == ""
    assert event_problem(o, Undone(1, "HIT", 2)) == ""
    assert "time: contains a lone surrogate" in event_problem(
        Origin("T1", "b1", 1, "\ud800"), GameEnded(1))
    assert "time: longer than 40" in event_problem(Origin("T1", "b1", 1, "x" * 41), GameEnded(1))
    assert "table: contains a NUL" in event_problem(Origin("T\x00", "b1", 1), GameEnded(1))
    assert "HitClaimed.hand: contains a lone surrogate" in event_problem(
        o, HitClaimed(1, 2, "\udc80"))
    assert "HitClaimed.hand: longer than 32" in event_problem(o, HitClaimed(1, 2, "F" * 33))
    assert "Undone.what: contains control characters" in event_problem(o, Undone(1, "HI\x07T"))
    assert "GameEnded.round_no: expected an integer, got str" in event_problem(
        o, GameEnded("1"))  # type: ignore[arg-type]
    assert "expected an integer, got bool" in event_problem(o, GameEnded(True))
    assert "GameStarted.wagers[1]: expected an integer, got float" in event_problem(
        o, GameStarted(1, {1: 1.5}))  # type: ignore[dict-item]
    assert "round 2147483648 is out of range" in event_problem(o, Misdealt(MAX_ROUND + 1))
