"""Isolation of a bad event (issue 22), on SQLite and PostgreSQL, over real links: two raw
controllers (plain TCP, a lab link, speaking the protocol's frames themselves) into a real
console (``ConsoleCore``: links, ledger writer) and a real ledger.

An EVENT whose ``time`` is a lone surrogate (``"\\ud800"`` in the JSON, which decodes but has no
UTF-8 form) used to reach the ledger writer and fail its whole batch: every table of the batch
was answered ``ACK refused`` with the driver's codec message and nothing reached
``refused_events``.  Now it is refused alone, by name, with its row, and the other table's event
that waited in the same batch is recorded and acknowledged ``ok``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable

from sqlalchemy import Engine, select

from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread
from core.controllers.checksum import seal
from core.controllers.events import GameEnded, GameStarted, Origin
from core.controllers.frames import (
    MAX_REASON_CHARS,
    Ack,
    EventFrame,
    Frame,
    Hello,
    ProtocolError,
    Welcome,
)
from core.controllers.protocol import FrameBuffer, encode_frame
from core.floorconfig import loads_floor
from core.ledger.audit import verify
from core.ledger.models import ControllerEvent as EventRow
from core.ledger.models import RefusedEvent, Round
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.floors import floor_toml
from tests.floors import table as floor_table

GUARD = 60.0  # seconds before a wait gives up (a hang guard, not a timing requirement)
BOOT = "b00t"
TABLES = ("P1", "P2")


class RawControllers:
    """One raw controller per table on loopback TCP: each sends its HELLO and, once it has the
    WELCOME, whatever the test hands it (:meth:`send`, on the loop); it keeps what it hears."""

    def __init__(self) -> None:
        self.ports: dict[str, int] = {}
        self.heard: dict[str, list[Frame | ProtocolError]] = {t: [] for t in TABLES}
        self._servers: list[asyncio.Server] = []
        self._writers: dict[str, asyncio.StreamWriter] = {}

    async def start(self) -> None:
        for table in TABLES:
            server = await asyncio.start_server(
                lambda r, w, table=table: self._client(table, r, w), "127.0.0.1", 0)
            self._servers.append(server)
            self.ports[table] = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for w in self._writers.values():
            w.transport.abort()
        for server in self._servers:
            server.close()
            await server.wait_closed()

    def send(self, table: str, *lines: bytes) -> None:
        for line in lines:
            self._writers[table].write(line)

    def welcomed(self, table: str) -> bool:
        return any(isinstance(f, Welcome) for f in self.heard[table])

    def acks(self, table: str) -> list[Ack]:
        return [f for f in self.heard[table] if isinstance(f, Ack)]

    async def _client(self, table: str, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        self._writers[table] = writer
        writer.write(encode_frame(Hello(table, BOOT, "FPGPP-WA01", 1, 6, heartbeat_ms=60_000)))
        buf = FrameBuffer()
        with contextlib.suppress(OSError):
            while data := await reader.read(65_536):
                self.heard[table] += buf.feed(data)


def _frame(table: str, seq: int, event: object) -> bytes:
    return encode_frame(EventFrame(Origin(table, BOOT, seq), event))  # type: ignore[arg-type]


def _poison(table: str, seq: int) -> bytes:
    """END GAME round 1 stamped with a lone surrogate: json.dumps writes it as the escape
    ``\\ud800``, which every JSON reader decodes to a str no UTF-8 encoder takes."""
    body = json.dumps({"v": 1, "type": "EVENT", "table": table, "boot": BOOT, "seq": seq,
                       "time": "\ud800", "kind": "GAME_ENDED", "round": 1})
    assert "\\ud800" in body
    return seal(body.encode())


def _wait(cond: Callable[[], object], what: str) -> None:
    end = time.monotonic() + GUARD
    while not cond():
        assert time.monotonic() < end, f"gave up waiting for: {what}"
        time.sleep(0.01)


def _console(engine: Engine, ports: dict[str, int]) -> ConsoleCore:
    config = loads_floor(floor_toml("Poison", adjustment_second_executive_at=None,
                                    link="plain-lab-only",
                                    tables=[floor_table(t, ports[t]) for t in TABLES]),
                         "poison.toml")
    return ConsoleCore(engine, config, load_paytables(), link_options={
        "heartbeat": 0.5, "reconnect_delay": 0.05, "max_reconnect_delay": 0.2,
        "retransmit": 0.2}, paper=PAPER)


def test_a_poison_event_is_refused_alone_and_the_other_tables_event_in_its_batch_recorded(
        engine: Engine) -> None:
    ctl = RawControllers()
    thread = SimulatorThread(ctl)
    thread.start()
    console = _console(engine, ctl.ports)
    console.start()
    writer = console.floor.writer
    try:
        _wait(lambda: all(ctl.welcomed(t) for t in TABLES), "both controllers welcomed")
        for t in TABLES:
            thread.call(ctl.send, t, _frame(t, 1, GameStarted(1, {1: 100})))
        _wait(lambda: all(len(ctl.acks(t)) == 1 for t in TABLES), "both rounds started")

        # hold the writer, so that P1's poison and P2's good event wait in ONE batch (as the
        # lab saw it: two tables, one batch)
        gate, entered = threading.Event(), threading.Event()
        writer.submit(lambda u: (entered.set(), gate.wait(GUARD)))
        assert entered.wait(GUARD)
        thread.call(ctl.send, "P1", _poison("P1", 2), _frame("P1", 3, GameEnded(1)))
        thread.call(ctl.send, "P2", _frame("P2", 2, GameEnded(1)))
        # each link hands on one event at a time: P1's poison and P2's END GAME
        _wait(lambda: writer._queue.qsize() >= 2, "both events waiting for the writer")
        largest = writer.stats.largest
        gate.set()
        _wait(lambda: len(ctl.acks("P1")) == 3 and len(ctl.acks("P2")) == 2,
              "every event answered")
        assert writer.stats.largest >= max(largest, 2)  # they were committed together
    finally:
        console.stop()
        thread.stop()

    p1, p2 = ctl.acks("P1"), ctl.acks("P2")
    assert p2 == [Ack(BOOT, 1, "ok"), Ack(BOOT, 2, "ok")]
    assert [(a.seq, a.result) for a in p1] == [(1, "ok"), (2, "refused"), (3, "ok")]
    reason = p1[1].reason
    # one clear line naming the field; no codec or driver words
    assert reason == ("malformed event: EVENT.time: contains a lone surrogate (U+D800 at "
                      "character 1): not text a ledger can store")
    assert reason.isprintable() and len(reason) <= MAX_REASON_CHARS
    assert "codec" not in reason
    with engine.connect() as c:
        recorded = sorted((r.table_id, r.seq, r.type) for r in c.execute(
            select(EventRow.table_id, EventRow.seq, EventRow.type)))
        refused = c.execute(select(RefusedEvent)).all()
        rounds = sorted((r.table_id, r.round_no, r.state) for r in c.execute(
            select(Round.table_id, Round.round_no, Round.state)))
    assert recorded == [("P1", 1, "GameStarted"), ("P1", 3, "GameEnded"),
                        ("P2", 1, "GameStarted"), ("P2", 2, "GameEnded")]
    (row,) = refused
    assert (row.table_id, row.boot, row.seq, row.type) == ("P1", BOOT, 2, "GameEnded")
    assert row.reason == reason
    # what was sent, its text stored as the escape the JSON had
    assert row.payload == {"type": "EVENT", "table": "P1", "boot": BOOT, "seq": 2,
                           "time": "\\ud800", "kind": "GAME_ENDED", "round": 1}
    assert row.controller_time == "\\ud800"  # the link keeps a time it could read
    assert rounds == [("P1", 1, "ended"), ("P2", 1, "ended")]
    assert verify(engine).ok
