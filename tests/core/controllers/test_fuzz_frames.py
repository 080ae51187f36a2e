"""Property tests of the controller protocol's frames (issue 12;
tests/core/controllers/test_protocol.py has the random-bytes and structured-garbage properties of
the decoder):

- a valid frame with one field mutated (wrong type, out of bounds, huge integers, deep nesting,
  long strings, control characters, missing, extra, checksum spoilt) decodes, or is refused with
  a ProtocolError naming that field; an EVENT refused with a readable identity carries a payload
  the ledger can store;
- end to end over real TCP, with the console (links, ledger writer) and a ledger on SQLite and
  PostgreSQL: a controller sending mutated and garbage frames gets every one refused (ACK refused
  or ERROR), each refusal recorded as the link records them (a refused_events row for an event
  with a readable identity, a podium.link warning for a frame without one), and nothing is
  written to the money tables.

``COUNTS`` tallies the outcomes (``benchmarks/fuzz_wire_counts.py`` prints them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select

from core.app.demo import SimulatorThread
from core.controllers.checksum import seal
from core.controllers.events import GameEnded, GameStarted, HitClaimed, Origin, Undone
from core.controllers.frames import Ack, ErrorFrame, EventFrame, Hello, ProtocolError, Resend
from core.controllers.protocol import FrameBuffer, decode_frame, encode_frame, frame_to_dict
from core.ledger.models import Base, RefusedEvent
from tests.core.controllers.test_chaos import _console
from tests.core.controllers.test_protocol import frames

COUNTS: Counter[str] = Counter()

# --- one field mutated --------------------------------------------------------------------------

bad_values = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=False), st.just(1e400),
    st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([0, -1, 2**31, 2**53, 2**63,
                                                                       10**30, 10**400]),
    st.text(max_size=20), st.text(min_size=1, max_size=3).map(lambda s: s * 700),
    st.sampled_from(["", " ", "\x00", "A\x00B", "a b", "\u200b", "T1\n", "1", "9" * 30,
                     "FULL_HOUSE", "PG-1", "e" * 70]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                         max_size=3),
    st.integers(1, 3000).map(lambda n: json.loads("[" * n + "]" * n) if n < 900 else "deep"),
)

# the field a problem with another field is reported under (they are checked together)
_COUPLED = {"state": ("hits",), "seq": ("next",), "hits": ("state",)}


def _dump(obj: dict[str, Any]) -> bytes:
    """JSON as a controller might write it: ``inf`` as 1e400, deep nesting as written."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("Infinity", "1e400").replace('"deep"', "[" * 5000 + "]" * 5000)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def mutated_frames(draw: st.DrawFn) -> tuple[bytes, str, str]:
    """(line, how, field): a valid frame's line with one thing changed."""
    obj = frame_to_dict(draw(frames))
    keys = sorted(obj)
    how = draw(st.sampled_from(["value", "value", "value", "missing", "extra", "checksum",
                                "nested"]))
    field = draw(st.sampled_from(keys))
    if how == "value":
        obj[field] = draw(bad_values)
    elif how == "missing":
        del obj[field]
    elif how == "extra":
        field = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in obj))
        obj[field] = draw(bad_values)
    elif how == "nested" and isinstance(obj.get("wagers"), dict) and obj["wagers"]:
        seat = draw(st.sampled_from(sorted(obj["wagers"])))
        field = "wagers"
        if draw(st.booleans()):
            obj["wagers"][seat] = draw(bad_values)
        else:
            obj["wagers"][draw(st.text(max_size=4))] = obj["wagers"].pop(seat)
    elif how == "nested":
        how, field = "value", "cards"
        obj["cards"] = draw(st.one_of(bad_values, st.lists(st.text(max_size=3), max_size=8)))
    line = seal(_dump(obj))
    if how == "checksum":
        body = bytearray(line)
        i = draw(st.integers(0, len(body) - 2))
        body[i] ^= draw(st.integers(1, 255))
        line = bytes(body)
    return line, how, field


def _storable(v: Any) -> bool:
    """What a JSON column on every backend stores: finite numbers within 2**53, no NUL.
    (Walked without recursion: a frame nests lists as deep as JSON decodes, and the stack
    left under a test differs from runner to runner, pytest-xdist's worker among them.)"""
    todo = [v]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, float):
            if not math.isfinite(x):
                return False
        elif isinstance(x, int) and not isinstance(x, bool):
            if not -(2**53) < x < 2**53:
                return False
        elif isinstance(x, str):
            if "\x00" in x:
                return False
        elif not (x is None or isinstance(x, bool)):
            return False
    return True


def classify(line: bytes, how: str, field: str) -> str:
    """Decode one mutated line; asserts the properties, returns the outcome's name."""
    try:
        frame = decode_frame(line)
    except ProtocolError as exc:
        msg = str(exc)
        assert msg and "\n" not in msg
        if how == "checksum":
            assert "checksum" in msg or "exceeds" in msg, msg
        elif how == "missing":
            assert f"missing field {field!r}" in msg or field in ("v", "type", "sum") \
                or any(f in msg for f in _COUPLED.get(field, ())), msg
        elif "exceeds" not in msg and "bad JSON" not in msg:
            named = (field in msg or any(f in msg for f in _COUPLED.get(field, ()))
                     or (field == "v" and "version" in msg)
                     or (field == "type" and "frame type" in msg)
                     or (field == "kind" and "event kind" in msg))
            assert named, (field, msg)
        if exc.event is not None:  # refused by its identity, and kept: it must be storable
            assert _storable(exc.event.fields), exc.event.fields
            assert exc.event.kind == "" or exc.event.kind.isprintable()
            return f"refused, identity kept ({how})"
        return f"refused ({how})"
    # accepted: a frame the console can send back on as it is
    assert encode_frame(frame)
    return f"decoded ({how})"


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_frames())
def test_a_frame_with_one_field_mutated_decodes_or_is_refused_naming_the_field(
        case: tuple[bytes, str, str]) -> None:
    COUNTS[f"decoder: {classify(*case)}"] += 1


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=10))
def test_any_json_value_as_a_frame_is_refused_by_name(value: Any) -> None:
    try:
        body = json.dumps(value, separators=(",", ":")).encode()
        line = seal(body) if body.endswith(b"}") and len(body) >= 3 else body + b"\n"
    except ValueError:
        return
    with pytest.raises(ProtocolError) as info:
        decode_frame(line)
    assert str(info.value)
    COUNTS["decoder: arbitrary JSON refused"] += 1


def test_non_finite_numbers_and_nul_characters_of_a_refused_event_are_kept_as_text() -> None:
    """Regression (found by the property above): an EVENT refused by its identity kept 1e400 as
    float('inf') and NUL characters as they came, which a PostgreSQL JSON or text column
    refuses; the refusal could not be recorded and the event came again for ever."""
    raw = (b'{"v":1,"type":"EVENT","table":"F1","boot":"b","seq":1,"kind":"GAME_ENDED\\u0000",'
           b'"round":1e400,"x\\u0000":["\\u0000",-1e400]}')
    with pytest.raises(ProtocolError) as info:
        decode_frame(seal(raw))
    m = info.value.event
    assert m is not None and m.kind == ""
    assert m.fields["round"] == "inf" and m.fields["x\\u0000"] == ["\\u0000", "-inf"]
    assert m.fields["kind"] == "GAME_ENDED\\u0000"
    assert _storable(m.fields)


# --- end to end: a controller that sends garbage ------------------------------------------------

TABLE = "F1"
MONEY = ("controller_events", "rounds", "wagers", "hits", "awards", "meter_entries",
         "hit_decisions", "slips", "swipe_log")


class Garbler:
    """A raw plain-TCP controller for table F1 (the console's floor says plain-lab-only): HELLO,
    then whatever the test writes; it collects the console's answers."""

    def __init__(self) -> None:
        self.port = 0
        self.answers: list[Any] = []
        self.connections = 0
        self._writer: asyncio.StreamWriter | None = None
        self._server: asyncio.Server | None = None
        self._lock = threading.Lock()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._writer is not None:
            self._writer.transport.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writer = writer
        writer.write(encode_frame(Hello(TABLE, "hello-boot", "FPGPP-WA01", 1, 6,
                                        heartbeat_ms=60_000)))
        buf = FrameBuffer()
        with contextlib.suppress(OSError):
            while data := await reader.read(65_536):
                with self._lock:
                    self.answers += [f for f in buf.feed(data)
                                     if isinstance(f, (Ack, ErrorFrame, Resend))]

    def write(self, data: bytes) -> None:  # on the controller's loop (SimulatorThread.call)
        assert self._writer is not None
        self._writer.write(data)


def _rows(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {name: conn.execute(select(func.count()).select_from(t)).scalar_one()
                for name, t in Base.metadata.tables.items() if name in MONEY}


@pytest.fixture
def garbled(engine: Engine, caplog: pytest.LogCaptureFixture) -> Iterator[Any]:
    caplog.set_level(logging.INFO, logger="podium")
    ctl = Garbler()
    thread = SimulatorThread(ctl)
    thread.start()
    console = _console(engine, ctl.port)
    console.start()
    try:
        deadline = time.monotonic() + 30
        while not any(t.online for t in console.floor.snapshot().tables):
            assert time.monotonic() < deadline, "the table never came online"
            time.sleep(0.02)
        yield ctl, thread, engine, caplog
    finally:
        console.stop()
        thread.stop()


_BOOTS = iter(range(1, 10**9))


@st.composite
def garbage_lines(draw: st.DrawFn) -> bytes:
    """One line the console must refuse: a mutated EVENT under a boot of its own (so sequence
    never asks for a RESEND), an event the link refuses (a seat the table lacks, another
    table), or garbage; never a frame the console would take."""
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "link", "bytes", "json"]))
    boot = f"fz{next(_BOOTS)}"
    if kind == "link":
        event = draw(st.sampled_from([HitClaimed(1, 9, "FULL_HOUSE"), Undone(1, "HIT", 7),
                                      GameStarted(1, {8: 100})]))
        table = draw(st.sampled_from([TABLE, "ZZ"]))
        if table == TABLE and isinstance(event, GameEnded):  # pragma: no cover - not drawn
            table = "ZZ"
        return encode_frame(EventFrame(Origin(table, boot, 1), event))
    if kind == "bytes":
        data = draw(st.binary(min_size=1, max_size=200)).replace(b"\n", b" ")
        return data + b"\n"
    if kind == "json":
        return seal(_dump(draw(st.dictionaries(st.text(max_size=6), bad_values, min_size=1,
                                               max_size=5))))
    obj = {"v": 1, "type": "EVENT", "table": TABLE, "boot": boot, "seq": 1,
           "kind": "GAME_STARTED", "round": 1, "wagers": {"1": 100}}
    field = draw(st.sampled_from(sorted(obj)))
    if draw(st.booleans()) or field in ("table", "boot"):
        obj[field] = draw(bad_values)
    else:
        del obj[field]
    if field not in ("table", "boot", "seq") and draw(st.booleans()):
        obj["extra"] = draw(bad_values)
    return seal(_dump(obj))


def _refused_anyway(line: bytes) -> bool:
    """The lines this property sends: the decoder refuses them, or the link does (another
    table's id, a seat beyond the table's 6)."""
    try:
        frame = decode_frame(line)
    except ProtocolError:
        return True
    if not isinstance(frame, EventFrame):
        return False
    ev = frame.event
    return frame.origin.table != TABLE or any(s > 6 for s in getattr(ev, "wagers", {})) or \
        (getattr(ev, "seat", None) or 0) > 6


@settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(st.lists(garbage_lines().filter(_refused_anyway), min_size=1, max_size=8))
@example([seal(b'{"v":1,"type":"EVENT","table":"F1","boot":"inf1","seq":1,"kind":"GAME_ENDED",'
               b'"round":1e400}'),
          seal(b'{"v":1,"type":"EVENT","table":"F1","boot":"nul1","seq":1,'
               b'"kind":"GAME_ENDED\\u0000","round":1,"time":"\\u0000"}')])
def test_a_controller_sending_garbage_gets_each_frame_refused_and_recorded_and_no_money_moves(
        garbled: Any, lines: list[bytes]) -> None:
    ctl, thread, engine, caplog = garbled
    items = FrameBuffer().feed(b"".join(lines))
    assert all(isinstance(i, (ProtocolError, EventFrame)) for i in items)
    before = _rows(engine)
    with ctl._lock:
        start = len(ctl.answers)
    thread.call(ctl.write, b"".join(lines))
    deadline = time.monotonic() + 10
    while True:
        with ctl._lock:
            answers = ctl.answers[start:]
        if len(answers) >= len(items):
            break
        assert time.monotonic() < deadline, (len(answers), len(items), items, answers)
        time.sleep(0.01)
    assert ctl.connections == 1, "garbage must not cost the connection"
    assert _rows(engine) == before, "a refused frame moved money"
    warnings = [r.getMessage() for r in caplog.records if r.name == "podium.link"]
    with engine.connect() as conn:
        kept = {(r.boot, r.seq) for r in conn.execute(
            select(RefusedEvent.boot, RefusedEvent.seq).where(RefusedEvent.table_id == TABLE))}
    for a in answers:
        if isinstance(a, Ack):
            assert a.result == "refused" and (a.boot, a.seq) in kept, a
            COUNTS["end to end: ACK refused, refused_events row"] += 1
        elif isinstance(a, ErrorFrame):
            assert a.code == "BAD_FRAME"
            said = a.message.removesuffix(" (refused and kept)")
            assert any(said in w for w in warnings), (a, warnings[-5:])
            COUNTS["end to end: ERROR BAD_FRAME, logged"
                   + (", refused_events row (seq 0)" if said != a.message else "")] += 1
        else:
            COUNTS["end to end: RESEND (a seq ahead of its boot)"] += 1
    COUNTS["end to end: lines sent"] += len(lines)
