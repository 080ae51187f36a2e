"""The controller protocol under faults (issue 11), on SQLite and PostgreSQL, with the real
console (``ConsoleCore``: links, ledger writer) and a real ledger:

- chaos: simulated tables reached through proxies that drop, duplicate, reorder, corrupt,
  truncate frames and cut connections (``core.controllers.chaos``); afterwards every event a
  table generated is in the ledger exactly once and byte for byte as the table sent it, no
  round is recorded twice, every PAY was applied once for the ledger's amount, and every table
  got all its events through (the run ends only when nothing is left unacknowledged);
- forged events: events that are well formed but out of bounds (seq, round, wager of 2**63), a
  seat the table lacks, another table's id, a damaged frame: each is refused by name and kept in
  ``refused_events`` once, the events behind it are recorded, and sent again (even to a
  restarted console) each gets the answer it had.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, select

from benchmarks.chaos import run_chaos
from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread
from core.controllers.chaos import FAULT_KINDS, FaultRates
from core.controllers.checksum import seal
from core.controllers.events import GameEnded, GameStarted, HitClaimed, Origin
from core.controllers.frames import (
    Ack,
    CommandAck,
    CommandFrame,
    ErrorFrame,
    EventFrame,
    Frame,
    Hello,
    ProtocolError,
    Resend,
    Welcome,
)
from core.controllers.protocol import FrameBuffer, encode_frame
from core.floorconfig import loads_floor
from core.ledger.models import ControllerEvent as EventRow
from core.ledger.models import RefusedEvent, Round
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.floors import floor_toml, table

GUARD = 120.0  # seconds before a wait gives up (a hang guard, not a timing requirement)
# per frame, both ways: over the ~1,000 frames of a run every kind happens many times
RATES = FaultRates(drop=0.03, duplicate=0.03, reorder=0.03, corrupt=0.03, truncate=0.02,
                   disconnect=0.02)


def test_chaos_loses_no_event_records_none_twice_and_takes_no_damaged_frame(
        engine: Engine) -> None:
    report = run_chaos(engine, tables=3, events=120, seed=11, rates=RATES, guard=GUARD)
    print("\n".join(report.lines()))
    assert report.finished  # every table got every event through (nothing left unacknowledged)
    assert report.events == 3 * 120
    assert all(report.faults.get(kind, 0) > 0 for kind in FAULT_KINDS), report.faults
    assert report.reconnects > 0 and report.retransmissions > 0
    assert report.lost == []
    assert report.duplicated == []
    assert report.corrupt_accepted == []
    assert report.refused == []  # the tables play by the rules: nothing to refuse
    assert report.pays > 0 and report.pay_problems == []
    assert report.balance_problems == []


# ------------------------------------------------------------------ forged events


BOOT = "f0rged"


def _event(seq: int, **fields: Any) -> bytes:
    return seal(json.dumps({"v": 1, "type": "EVENT", "table": "F1", "boot": BOOT, "seq": seq,
                            **fields}).encode())


def _frame(seq: int, event: Any, table: str = "F1") -> bytes:
    return encode_frame(EventFrame(Origin(table, BOOT, seq), event))


def _damaged(frame: bytes) -> bytes:
    bad = bytearray(frame)
    bad[bad.index(b'"round":1') + 8] = ord("7")
    return bytes(bad)


FIRST = [
    _frame(1, GameStarted(1, {1: 100})),
    _event(2, kind="GAME_ENDED", round=2**63),  # a poison round
    _event(3, kind="GAME_STARTED", round=2, wagers={"2": 2**63}),  # a poison wager
    _event(2**63, kind="GAME_ENDED", round=1),  # a poison seq: no ACK can name it
    _frame(4, HitClaimed(1, 9, "FULL_HOUSE")),  # seat 9 at a 6-seat table
    _frame(5, GameEnded(1), table="ZZ"),  # another table's id
    _damaged(_frame(6, GameEnded(1))),  # damaged on the way (round 1 -> 7) ...
    _frame(6, GameEnded(1)),  # ... and the good copy
    _frame(7, GameStarted(2, {1: 100})),
    _frame(9, GameEnded(2)),  # 8 lost on the way: the console asks for it again
]
AGAIN = [_frame(1, GameStarted(1, {1: 100})), FIRST[1], FIRST[4], FIRST[5]]


class Forger:
    """A raw controller: HELLO, then the scripted frames after each WELCOME (FIRST on the
    first connection, AGAIN on the next); serves a RESEND of seq 8 and acknowledges commands."""

    def __init__(self) -> None:
        self.port = 0
        self.received: list[list[Frame | ProtocolError]] = []
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for w in self._writers:
            w.transport.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        n = len(self.received)
        self.received.append([])
        self._writers.append(writer)
        writer.write(encode_frame(Hello("F1", BOOT, "FPGPP-WA01", 1, 6, heartbeat_ms=60_000)))
        buf = FrameBuffer()
        with contextlib.suppress(OSError):
            while data := await reader.read(65_536):
                for item in buf.feed(data):
                    self.received[n].append(item)
                    if isinstance(item, Welcome):
                        for line in (FIRST if n == 0 else AGAIN):
                            writer.write(line)
                    elif isinstance(item, Resend) and item.seq == 8:
                        writer.write(_frame(8, GameStarted(3, {2: 100})) + FIRST[-1])
                    elif isinstance(item, CommandFrame):
                        writer.write(encode_frame(CommandAck(item.console, item.cseq)))

    def answers(self, n: int) -> list[Frame | ProtocolError]:
        return [f for f in self.received[n] if isinstance(f, (Ack, ErrorFrame, Resend))] \
            if n < len(self.received) else []


def _wait(cond: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + GUARD
    while not cond():
        assert time.monotonic() < end, f"gave up waiting for: {what}"
        time.sleep(0.02)


def _console(engine: Engine, port: int) -> ConsoleCore:
    # the forger speaks the protocol's frames itself: plain TCP (a forger with a table's
    # certificate is what the TLS tests refuse or accept)
    config = loads_floor(floor_toml("Forgery", adjustment_second_executive_at=None,
                                    link="plain-lab-only", tables=[table("F1", port)]),
                         "forged.toml")
    return ConsoleCore(engine, config, load_paytables(), link_options={
        "heartbeat": 0.5, "reconnect_delay": 0.05, "max_reconnect_delay": 0.2,
        "retransmit": 0.2}, paper=PAPER)


def test_forged_events_are_refused_kept_once_and_the_events_behind_them_recorded(
        engine: Engine) -> None:
    forger = Forger()
    thread = SimulatorThread(forger)
    thread.start()
    try:
        console = _console(engine, forger.port)
        console.start()
        try:
            _wait(lambda: len([f for f in forger.answers(0) if isinstance(f, Ack)]) == 9,
                  "every event of the first connection answered")
        finally:
            console.stop()
        first = forger.answers(0)
        # a console restart: the ledger alone remembers what was refused, and why
        console = _console(engine, forger.port)
        console.start()
        try:
            _wait(lambda: len([f for f in forger.answers(1) if isinstance(f, Ack)]) == 4,
                  "the resent events answered by the restarted console")
        finally:
            console.stop()
        again = forger.answers(1)
    finally:
        thread.stop()
    acks = {f.seq: f for f in first if isinstance(f, Ack)}
    assert {seq: a.result for seq, a in acks.items()} == {
        1: "ok", 2: "refused", 3: "refused", 4: "refused", 5: "refused", 6: "ok", 7: "ok",
        8: "ok", 9: "ok"} and len(acks) == 9
    assert "GAME_ENDED.round: 9223372036854775808 is out of range" in acks[2].reason
    assert "GAME_STARTED.wagers.2: 9223372036854775808 is out of range" in acks[3].reason
    assert "seat 9 does not exist at table F1" in acks[4].reason
    assert "from table 'ZZ'" in acks[5].reason
    errors = [f for f in first if isinstance(f, ErrorFrame)]
    assert len(errors) == 2 and all(e.code == "BAD_FRAME" for e in errors)
    assert any("EVENT.seq: 9223372036854775808 is out of range" in e.message for e in errors)
    assert any("checksum mismatch" in e.message for e in errors)
    assert [f for f in first if isinstance(f, Resend)] == [Resend(BOOT, 8)]
    # sent again to the restarted console: the same answers, word for word
    assert [f for f in again if isinstance(f, Ack)] == [Ack(BOOT, 1, "ok"), acks[2], acks[4],
                                                      acks[5]]
    with engine.connect() as c:
        recorded = [(r.seq, r.type, r.payload) for r in c.execute(
            select(EventRow.seq, EventRow.type, EventRow.payload).order_by(EventRow.seq))]
        refused = [(r.table_id, r.seq, r.type, r.reason) for r in c.execute(
            select(RefusedEvent.table_id, RefusedEvent.seq, RefusedEvent.type,
                   RefusedEvent.reason).order_by(RefusedEvent.id))]
        rounds = [(r.boot, r.round_no, r.state) for r in c.execute(
            select(Round.boot, Round.round_no, Round.state).order_by(Round.id))]
    assert [(seq, kind) for seq, kind, _ in recorded] == [
        (1, "GameStarted"), (6, "GameEnded"), (7, "GameStarted"), (8, "GameStarted"),
        (9, "GameEnded")]
    assert recorded[1][2] == {"round_no": 1}  # the good copy, not the damaged one (round 7)
    assert [(t, seq, kind) for t, seq, kind, _ in refused] == [
        ("F1", 2, "GameEnded"), ("F1", 3, "GameStarted"), ("F1", 0, "GameEnded"),
        ("F1", 4, "HitClaimed"), ("F1", 5, "GameEnded")]  # once each, restart or not
    assert [reason for *_, reason in refused][:2] == [acks[2].reason, acks[3].reason]
    assert rounds == [(BOOT, 1, "ended"), (BOOT, 2, "ended"), (BOOT, 3, "locked")]
