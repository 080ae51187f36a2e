"""The console's controller link over real loopback TCP with mutual TLS (docs/protocol.md,
delivery guarantees; tests/pki.py makes the certificates).

The "floor" here is a recording callback that, like core.tablegames, records an event once per
(table, boot, seq) and ignores a replay; separately the raw calls show whether the link
itself passed an already acknowledged event again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.controllers.checksum import seal
from core.controllers.events import (
    ControllerEvent,
    Delivery,
    GameEnded,
    HitClaimed,
    Origin,
    OutOfOrder,
    Refused,
    SequenceGap,
)
from core.controllers.frames import (
    MAX_REASON_CHARS,
    Ack,
    CommandAck,
    CommandFrame,
    ErrorFrame,
    EventFrame,
    Frame,
    Hello,
    PayConfirmed,
    ProtocolError,
    Resend,
    Welcome,
)
from core.controllers.link import ControllerLink
from core.controllers.link_events import AckedSeqs
from core.controllers.link_manager import LinkManager, TableEndpoint, endpoints_from_floor
from core.controllers.protocol import FrameBuffer, encode_frame
from core.controllers.screening import refusal_text
from core.controllers.simulator import SimulatedTable
from core.kernel.cards import Card
from core.ledger.outages import LedgerUnavailable
from core.tablegames.rules.fortune import HAND_IDS, hands_made
from tests.pki import pki

GUARD = 30.0  # seconds before a wait gives up (a hang guard, not a timing requirement)


@dataclass(frozen=True)
class FakePay:
    hand: str


@dataclass(frozen=True)
class FakePaytable:
    """FPGPP-WA01's hands (full house or better) on core.tablegames.rules.fortune."""

    id: str = "FPGPP-WA01"
    wager_cents: int | None = 100
    pays: tuple[FakePay, ...] = tuple(FakePay(h) for h in HAND_IDS[:8])

    def paying(self, cards: Sequence[Card]) -> FakePay | None:
        made = hands_made(cards)
        return next((p for p in self.pays if p.hand in made), None)


@dataclass
class Floor:
    """Records each (table, boot, seq) once, like core.tablegames; keeps every raw call too."""

    recorded: dict[tuple[str, str, int], Delivery] = field(default_factory=dict)
    calls: list[tuple[str, str, int]] = field(default_factory=list)
    statuses: list[tuple[str, bool, str]] = field(default_factory=list)
    before_record: Callable[[Origin, Delivery], None] | None = None
    after_record: Callable[[Origin, Delivery], None] | None = None

    def on_event(self, origin: Origin, event: Delivery) -> None:
        key = (origin.table, origin.boot, origin.seq)
        self.calls.append(key)
        if self.before_record:
            self.before_record(origin, event)
        self.recorded.setdefault(key, event)  # a replay changes nothing
        if self.after_record:
            self.after_record(origin, event)

    def on_status(self, table: str, online: bool, detail: str) -> None:
        self.statuses.append((table, online, detail))


async def until(cond: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + GUARD
    while not cond():
        if loop.time() > end:
            pytest.fail(f"gave up waiting for: {what}")
        await asyncio.sleep(0.005)


def arun(coro: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(coro(), GUARD * 2))


def make_table(table_id: str = "T1", **kw: Any) -> SimulatedTable:
    opts: dict[str, Any] = {"speed": 0, "seed": 7, "mistake_rate": 0.0, "heartbeat": 0.2,
                            "tls": pki().table_context(table_id)}
    opts.update(kw)
    return SimulatedTable(table_id, FakePaytable(), **opts)


def play(table: SimulatedTable, rounds: int) -> None:
    """Play whole rounds, the console's decisions applied directly on the table."""
    for _ in range(rounds):
        table.play_round()
        for ref, hit in list(table.open_hits.items()):
            table.resolve(PayConfirmed(hit.round_no, hit.seat, ref, 600))
        if table.phase != "idle":
            table.step()


def make_link(table: SimulatedTable, floor: Floor, table_id: str | None = None,
              **kw: Any) -> ControllerLink:
    opts: dict[str, Any] = {"heartbeat": 0.2, "reconnect_delay": 0.01,
                            "max_reconnect_delay": 0.05, "paytable": "FPGPP-WA01", "decks": 1,
                            "tls": pki().console_context()}
    opts.update(kw)
    return ControllerLink(table_id or table.table_id, "127.0.0.1", table.port, floor.on_event,
                          floor.on_status, **opts)


async def running(link: ControllerLink) -> asyncio.Task[None]:
    return asyncio.create_task(link.run())


# ------------------------------------------------------------------ delivery


def test_events_are_delivered_once_in_order_and_acknowledged() -> None:
    async def main() -> None:
        table = make_table()
        await table.start()
        play(table, 6)
        floor = Floor()
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "every event recorded and acknowledged")
        play(table, 4)  # live events while connected
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "live events recorded")
        await link.close()
        await task
        await table.stop()
        seqs = [seq for (_, _, seq) in floor.calls]
        assert seqs == list(range(1, len(table.history) + 1))
        assert [floor.recorded[("T1", table.boot, f.origin.seq)] for f in table.history] == \
            [f.event for f in table.history]
        assert all(res == ("ok", "") for res in table.ack_results.values())
        assert floor.statuses[0][:2] == ("T1", True)
        assert floor.statuses[-1] == ("T1", False, "closed")

    arun(main)


def test_connection_killed_mid_stream_loses_nothing_and_delivers_nothing_twice() -> None:
    async def main() -> None:
        table = make_table(seed=11)
        await table.start()
        play(table, 8)
        backlog = len(table.history)
        assert backlog >= 16
        floor = Floor()
        kill_at = {3, 9, backlog - 1}

        def kill(origin: Origin, _event: ControllerEvent) -> None:
            if origin.seq in kill_at:  # recorded, but the ACK will be lost with the connection
                kill_at.discard(origin.seq)
                table.drop_connection()

        floor.after_record = kill
        link = make_link(table, floor)
        task = await running(link)
        # more events while the link keeps dropping
        for _ in range(5):
            await until(lambda: not table.outbox, "backlog drained")
            play(table, 2)
            table.drop_connection()
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "all events recorded after the reconnects")
        await link.close()
        await task
        await table.stop()
        everything = {("T1", table.boot, f.origin.seq) for f in table.history}
        assert set(floor.recorded) == everything  # nothing lost
        assert len(floor.calls) == len(set(floor.calls))  # the link never passed one twice
        assert table.connections >= 4
        # the events whose ACK died with the connection really were sent again
        assert table.transmissions[3] >= 2 and table.transmissions[9] >= 2
        assert all(link.acknowledged(table.boot, f.origin.seq) for f in table.history)

    arun(main)


def test_a_restarted_console_gets_the_resent_event_and_the_floor_ignores_the_replay() -> None:
    async def main() -> None:
        table = make_table(seed=3)
        await table.start()
        play(table, 2)
        last = len(table.history)
        floor = Floor()

        def kill(origin: Origin, _event: ControllerEvent) -> None:
            if origin.seq == last:
                table.drop_connection()  # the ACK of the last event is lost

        floor.after_record = kill
        link1 = make_link(table, floor)
        t1 = await running(link1)
        await until(lambda: len(floor.recorded) == last, "first console recorded everything")
        await link1.close()  # the console restarts: the link's memory is gone
        await t1
        floor.after_record = None
        resent = set(table.outbox)  # at least the last one, whose ACK was lost
        assert last in resent
        link2 = make_link(table, floor)
        t2 = await running(link2)
        await until(lambda: not table.outbox, "resent event acknowledged by the new console")
        await link2.close()
        await t2
        await table.stop()
        for seq in resent:  # the floor saw the replays ...
            assert floor.calls.count(("T1", table.boot, seq)) == 2
        assert len(floor.recorded) == last  # ... and recorded it once

    arun(main)


def test_an_event_the_floor_refuses_is_acknowledged_as_refused_and_not_resent() -> None:
    async def main() -> None:
        table = make_table(seed=5)
        table.force_hand(2, ["9c", "9d", "9h", "9s", "2c", "5d", "Kh"])
        await table.start()
        play(table, 2)
        floor = Floor()

        def refuse_hits(origin: Origin, event: ControllerEvent) -> None:
            if isinstance(event, HitClaimed):
                raise ValueError(f"round {event.round_no} seat {event.seat}: no such round")

        floor.before_record = refuse_hits
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: not table.outbox, "every event acknowledged")
        table.drop_connection()
        await until(lambda: table.connections >= 2 and link.online, "reconnected")
        await link.close()
        await task
        await table.stop()
        hits = [f.origin.seq for f in table.history if isinstance(f.event, HitClaimed)]
        assert hits
        for seq in hits:
            result, reason = table.ack_results[seq]
            assert result == "refused" and "no such round" in reason
            assert table.transmissions[seq] == 1  # dropped from the outbox: never resent
            assert ("T1", table.boot, seq) not in floor.recorded
        assert len(floor.recorded) == len(table.history) - len(hits)

    arun(main)


def test_a_refusal_goes_on_the_wire_as_one_clear_printable_bounded_line() -> None:
    # a refusal whose words quote what the controller sent (a line break, a lone surrogate,
    # an escape sequence, far too much): an ACK can not carry them as they are; the link used
    # to fail to encode it, and its task ended with the link for good
    wild = "bad\nhand \ud800\x1b[2J" + "x" * 5_000

    async def script(ctl: ScriptedController, n: int) -> None:
        ctl.send(n, EventFrame(Origin("T1", "boot1", 1), GameEnded(1)))
        ctl.send(n, EventFrame(Origin("T1", "boot1", 2), GameEnded(2)))

    async def main() -> None:
        ctl = ScriptedController(_hello(), script)
        await ctl.start()
        floor = Floor()

        def refuse_first(origin: Origin, event: Delivery) -> None:
            if origin.seq == 1:
                raise ValueError(wild)

        floor.before_record = refuse_first
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(), heartbeat=0.2)
        task = await running(link)
        await until(lambda: len([f for f in ctl.frames(0) if isinstance(f, Ack)]) == 2,
                    "both answered")
        assert link.online  # the link lives on
        await link.close()
        await task
        await ctl.stop()
        refused, ok = [f for f in ctl.frames(0) if isinstance(f, Ack)]
        assert ok == Ack("boot1", 2, "ok")
        assert (refused.seq, refused.result) == (1, "refused")
        assert refused.reason == refusal_text(wild)
        assert refused.reason.startswith("bad hand \\ud800?[2J")
        assert refused.reason.isprintable() and len(refused.reason) == MAX_REASON_CHARS

    arun(main)


def test_a_floor_failure_leaves_the_event_unacknowledged_and_it_comes_again() -> None:
    async def main() -> None:
        table = make_table(seed=9)
        await table.start()
        play(table, 3)
        floor = Floor()
        failures = [4]

        def fail_once(origin: Origin, _event: ControllerEvent) -> None:
            if origin.seq in failures:
                failures.remove(origin.seq)
                raise RuntimeError("database is locked")

        floor.before_record = fail_once
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "everything recorded after the failure")
        await link.close()
        await task
        await table.stop()
        assert floor.calls.count(("T1", table.boot, 4)) == 2
        assert table.transmissions[4] >= 2
        assert any(not online and "could not be recorded" in d for _, online, d in floor.statuses)

    arun(main)


def test_a_ledger_that_can_not_record_leaves_the_event_unacknowledged_and_the_link_up() -> None:
    """A full disk, a database gone (issue 24): no ACK, no reconnect, no status change; the
    controller sends the event again on the same connection until the ledger takes it."""
    async def main() -> None:
        table = make_table(seed=9, retransmit=0.05)
        await table.start()
        play(table, 3)
        floor = Floor()
        full = [3]  # the ledger takes seq 4 only after three tries

        def unavailable(origin: Origin, _event: ControllerEvent) -> None:
            if origin.seq == 4 and full[0]:
                full[0] -= 1
                raise LedgerUnavailable("the ledger's disk is full: 0 bytes free on /x")

        floor.before_record = unavailable
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "everything recorded once the ledger took it")
        await link.close()
        await task
        await table.stop()
        assert floor.calls.count(("T1", table.boot, 4)) == 4
        assert table.connections == 1  # never reconnected
        assert [online for _, online, _ in floor.statuses] == [True, False]  # up, then closed

    arun(main)


# ------------------------------------------------------------------ HELLO checks


@pytest.mark.parametrize(("table_kw", "link_kw", "named"), [
    # T1's certificate (so past TLS) on a controller that says it is T2
    ({"table_id": "T2", "tls": pki().table_context("T1")}, {}, "announces table 'T2'"),
    ({}, {"paytable": "FPGPP-WA02"}, "paytable 'FPGPP-WA01' differs"),
    ({"decks": 2}, {}, "2 deck(s)"),
])
def test_a_controller_that_does_not_match_the_configuration_is_refused(
        table_kw: dict[str, Any], link_kw: dict[str, Any], named: str,
        caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        table = make_table(**table_kw)
        await table.start()
        play(table, 1)
        pending = dict(table.outbox)
        floor = Floor()
        link = make_link(table, floor, table_id="T1", **link_kw)
        task = await running(link)
        await until(lambda: table.connections >= 3, "the link retried")
        await link.close()
        await task
        await table.stop()
        assert floor.calls == []
        assert table.outbox == pending  # nothing acknowledged
        assert not any(online for _, online, _ in floor.statuses)
        refusals = [d for _, _, d in floor.statuses if d.startswith("HELLO refused")]
        assert refusals and named in refusals[0]

    caplog.set_level("INFO")
    arun(main)
    logged = [r for r in caplog.records if r.name == "podium.link" and r.levelname == "ERROR"]
    assert len(logged) == 1 and named in logged[0].getMessage()  # said clearly, once
    # the controller was told why
    assert any("HELLO_REFUSED" in r.getMessage() and named in r.getMessage()
               for r in caplog.records if r.name == "podium.simulator")


# ------------------------------------------------------------------ scripted controller


class ScriptedController:
    """A raw controller (TLS with table T1's certificate): sends the HELLO, then whatever the
    test scripts."""

    def __init__(self, hello: Hello,
                 on_connect: Callable[[ScriptedController, int], Awaitable[None]]
                 | None = None) -> None:
        self.hello = hello
        self.on_connect = on_connect
        self.received: list[list[Frame | ProtocolError]] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.port = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0,
                                                 ssl=pki().table_context("T1"))
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for w in self.writers:
            w.transport.abort()
        if self.server:
            self.server.close()
            await self.server.wait_closed()

    def send(self, n: int, data: bytes | Frame) -> None:
        self.writers[n].write(data if isinstance(data, bytes) else encode_frame(data))

    def frames(self, n: int) -> list[Frame | ProtocolError]:
        return self.received[n] if n < len(self.received) else []

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        n = len(self.writers)
        self.writers.append(writer)
        self.received.append([])
        writer.write(encode_frame(self.hello))
        if self.on_connect:
            await self.on_connect(self, n)
        buf = FrameBuffer()
        try:
            while data := await reader.read(65536):
                self.received[n] += buf.feed(data)
        except OSError:
            pass


def _hello(heartbeat_ms: int = 200) -> Hello:
    return Hello("T1", "boot1", "FPGPP-WA01", 1, 6, heartbeat_ms=heartbeat_ms)


def test_heartbeat_timeout_declares_the_link_down() -> None:
    async def main() -> None:
        ctl = ScriptedController(_hello(heartbeat_ms=50))  # then silent for ever
        await ctl.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.05, reconnect_delay=5.0)
        task = await running(link)
        await until(lambda: any(not on and "no heartbeat" in d for _, on, d in floor.statuses),
                    "link declared down")
        await link.close()
        await task
        await ctl.stop()
        ups = [i for i, (_, on, _) in enumerate(floor.statuses) if on]
        downs = [i for i, (_, on, d) in enumerate(floor.statuses) if not on and "heartbeat" in d]
        assert ups and downs and ups[0] < downs[0]
        # the link's own heartbeats kept flowing while it waited
        assert any(type(f).__name__ == "Heartbeat" for f in ctl.frames(0))

    arun(main)


def test_a_live_controller_keeps_the_link_up_across_many_heartbeat_periods() -> None:
    async def main() -> None:
        table = make_table(heartbeat=0.1)
        await table.start()
        floor = Floor()
        link = make_link(table, floor, heartbeat=0.1)
        task = await running(link)
        await until(lambda: link.online, "online")
        beats_before = table.connections
        await asyncio.sleep(1.5)  # some 15 heartbeat periods without any event
        await link.close()
        await task
        await table.stop()
        assert beats_before == 1 and table.connections == 1
        assert [on for _, on, _ in floor.statuses] == [True, False]

    arun(main)


def test_a_damaged_frame_is_answered_with_error_and_a_malformed_event_is_refused_by_seq() -> None:
    bad = seal(json.dumps({"v": 1, "type": "EVENT", "table": "T1", "boot": "boot1", "seq": 1,
                           "kind": "HIT", "round": 1, "seat": 2, "hand": "FLUSH",
                           "cards": ["Zz", "2c", "3c", "4c", "5c", "6c", "7c"]}).encode())
    good = EventFrame(Origin("T1", "boot1", 2), GameEnded(1))
    damaged = bytearray(encode_frame(EventFrame(Origin("T1", "boot1", 3), GameEnded(1))))
    damaged[damaged.index(b'"round":1') + 8] = ord("7")  # round 1 -> 7 on the way

    async def script(ctl: ScriptedController, n: int) -> None:
        ctl.send(n, bad)
        ctl.send(n, b"this is not json\n")
        ctl.send(n, good)
        ctl.send(n, bytes(damaged))

    async def main() -> None:
        ctl = ScriptedController(_hello(), script)
        await ctl.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.2)
        task = await running(link)
        await until(lambda: len([f for f in ctl.frames(0) if isinstance(f, ErrorFrame)]) == 2,
                    "the ERRORs")
        await link.close()
        await task
        await ctl.stop()
        got = ctl.frames(0)
        errors = [f for f in got if isinstance(f, ErrorFrame)]
        acks = [f for f in got if isinstance(f, Ack)]
        assert [(e.code, e.seq) for e in errors] == [("BAD_FRAME", None), ("BAD_FRAME", None)]
        assert "without its checksum" in errors[0].message
        assert "checksum mismatch" in errors[1].message and "EVENT seq 3" in errors[1].message
        # the malformed event is refused by its (boot, seq), so it leaves the outbox and the
        # floor keeps it (a Refused); the damaged frame changes nothing
        assert acks[0].seq == 1 and acks[0].result == "refused"
        assert "card 'Zz'" in acks[0].reason
        assert acks[1:] == [Ack("boot1", 2, "ok")]
        assert floor.calls == [("T1", "boot1", 1), ("T1", "boot1", 2)]
        refused = floor.recorded[("T1", "boot1", 1)]
        assert isinstance(refused, Refused) and refused.kind == "HIT" and refused.event is None
        assert refused.fields["cards"][0] == "Zz"

    arun(main)


def test_events_kept_from_an_earlier_boot_are_accepted_and_another_tables_refused() -> None:
    old = EventFrame(Origin("T1", "boot0", 9), GameEnded(3))  # kept over a restart
    stray = EventFrame(Origin("T7", "boot1", 1), GameEnded(1))

    async def script(ctl: ScriptedController, n: int) -> None:
        ctl.send(n, old)
        ctl.send(n, stray)

    async def main() -> None:
        ctl = ScriptedController(_hello(), script)
        await ctl.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.2)
        task = await running(link)
        await until(lambda: len([f for f in ctl.frames(0) if isinstance(f, Ack)]) == 2,
                    "both answered")
        await link.close()
        await task
        await ctl.stop()
        assert floor.calls == [("T1", "boot0", 9), ("T1", "boot1", 1)]
        ok, refused = [f for f in ctl.frames(0) if isinstance(f, Ack)]
        assert ok == Ack("boot0", 9, "ok")
        assert (refused.boot, refused.seq, refused.result) == ("boot1", 1, "refused")
        assert "'T7'" in refused.reason
        kept = floor.recorded[("T1", "boot1", 1)]
        assert isinstance(kept, Refused) and kept.event == GameEnded(1)

    arun(main)


def test_commands_wait_while_offline_and_are_resent_until_acknowledged() -> None:
    async def script(ctl: ScriptedController, n: int) -> None:
        pass

    async def main() -> None:
        ctl = ScriptedController(_hello(), script)
        await ctl.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.2, reconnect_delay=0.01)
        pay = PayConfirmed(4, 3, "boot1:17", 7500)
        cseq = await link.send_command(pay)  # offline: queued
        assert link.pending_commands == [pay]
        task = await running(link)

        def commands(n: int) -> list[CommandFrame]:
            return [f for f in ctl.frames(n) if isinstance(f, CommandFrame)]

        await until(lambda: len(commands(0)) == 1, "command sent after WELCOME")
        ctl.writers[0].transport.abort()  # lost before the controller acknowledged it
        await until(lambda: len(commands(1)) == 1, "command resent on the new connection")
        first, again = commands(0)[0], commands(1)[0]
        assert first == again and first.cseq == cseq and first.command == pay
        ctl.send(1, CommandAck(first.console, cseq, "ok"))
        ack = await link.command_result(cseq)
        assert ack.result == "ok" and link.pending_commands == []
        await link.close()
        await task
        await ctl.stop()
        assert isinstance(ctl.frames(0)[0], Welcome)  # nothing before the WELCOME

    arun(main)


# ------------------------------------------------------------------ manager, bookkeeping


def test_link_manager_runs_one_link_per_configured_table() -> None:
    async def main() -> None:
        t1, t2 = make_table("T1", seed=1), make_table("T2", seed=2)
        for t in (t1, t2):
            await t.start()
            play(t, 2)
        floor = Floor()
        mgr = LinkManager([TableEndpoint("T1", "127.0.0.1", t1.port, "FPGPP-WA01", 1, 6),
                           TableEndpoint("T2", "127.0.0.1", t2.port, "FPGPP-WA01", 1, 6)],
                          floor.on_event, floor.on_status, heartbeat=0.2,
                          tls=pki().console_context())
        task = asyncio.create_task(mgr.run())
        await until(lambda: not t1.outbox and not t2.outbox, "both tables drained")
        assert mgr.status()["T1"][0] and mgr.status()["T2"][0]
        await mgr.close()
        await task
        for t in (t1, t2):
            await t.stop()
        assert {k[0] for k in floor.recorded} == {"T1", "T2"}
        assert len(floor.recorded) == len(t1.history) + len(t2.history)

    arun(main)


def test_endpoints_come_from_the_floor_configuration() -> None:
    floorconfig = pytest.importorskip("core.floorconfig")
    config = floorconfig.load_demo_floor()
    eps = endpoints_from_floor(config)
    assert [e.table_id for e in eps] == [t.id for t in config.tables]
    for e, t in zip(eps, config.tables, strict=True):
        assert (e.host, e.port, e.decks, e.seats) == (t.host, t.port, t.decks, t.seats)
        assert e.paytable == (t.paytable or config.group(t.group).paytable)


def test_acked_seqs_remember_every_acknowledged_seq_compactly() -> None:
    acked = AckedSeqs()
    for seq in [2, 1, 5, 3, 7]:
        acked.add(seq)
    assert [s for s in range(1, 9) if s in acked] == [1, 2, 3, 5, 7]
    assert acked.low == 3 and acked.above == {5, 7}


# ------------------------------------------------------------------ sequence and retransmission


@dataclass
class SequencedFloor(Floor):
    """Like the ledger: takes each boot's events in sequence only (OutOfOrder beyond the next
    expected), keeps a declared gap, refuses a resent refusal with its first reason."""

    last: dict[str, int] = field(default_factory=dict)
    refusals: dict[tuple[str, int], str] = field(default_factory=dict)

    def on_event(self, origin: Origin, event: Delivery) -> bool:  # type: ignore[override]
        key = (origin.table, origin.boot, origin.seq)
        self.calls.append(key)
        if key in self.recorded:
            return False
        if (origin.boot, origin.seq) in self.refusals:
            raise ValueError(self.refusals[(origin.boot, origin.seq)])
        expected = self.last.get(origin.boot, 0) + 1
        first = event.first if isinstance(event, SequenceGap) else origin.seq
        if first != expected:
            raise OutOfOrder(origin, expected)
        self.last[origin.boot] = origin.seq
        if self.before_record:
            try:
                self.before_record(origin, event)
            except ValueError as exc:
                self.refusals[(origin.boot, origin.seq)] = str(exc)
                raise
        if isinstance(event, Refused):
            self.refusals[(origin.boot, origin.seq)] = event.reason
            raise ValueError(event.reason)
        self.recorded[key] = event
        return True


def test_a_gap_is_never_taken_out_of_order_the_controller_is_asked_to_send_again() -> None:
    e1, e2, e3 = (EventFrame(Origin("T1", "boot1", n), GameEnded(n)) for n in (1, 2, 3))

    async def script(ctl: ScriptedController, n: int) -> None:
        ctl.send(n, e1)
        ctl.send(n, e3)  # e2 lost on the way
        ctl.send(n, e3)  # (and the timer sends e3 again: asked for once only)

    async def main() -> None:
        ctl = ScriptedController(_hello(), script)
        await ctl.start()
        floor = SequencedFloor()
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.2, retransmit=30)
        task = await running(link)
        await until(lambda: any(isinstance(f, Resend) for f in ctl.frames(0)), "the RESEND")
        ctl.send(0, e2)
        ctl.send(0, e3)
        await until(lambda: len([f for f in ctl.frames(0) if isinstance(f, Ack)]) == 3, "ACKs")
        await link.close()
        await task
        await ctl.stop()
        assert [f for f in ctl.frames(0) if isinstance(f, Resend)] == [Resend("boot1", 2)]
        assert [f.seq for f in ctl.frames(0) if isinstance(f, Ack)] == [1, 2, 3]
        assert [k for k in floor.recorded] == [("T1", "boot1", n) for n in (1, 2, 3)]
        assert floor.calls == [("T1", "boot1", n) for n in (1, 2, 3)]  # 3 never passed early

    arun(main)


def test_a_resent_event_gets_the_answer_it_had_refused_stays_refused() -> None:
    e1, e2 = EventFrame(Origin("T1", "b", 1), GameEnded(1)), EventFrame(Origin("T1", "b", 2),
                                                                        GameEnded(2))

    async def script(ctl: ScriptedController, n: int) -> None:
        for frame in (e1, e2, e1, e2):  # both ACKs lost: both sent again
            ctl.send(n, frame)

    async def main() -> None:
        ctl = ScriptedController(_hello(), script)
        await ctl.start()
        floor = Floor()

        def refuse_second(origin: Origin, _event: Delivery) -> None:
            if origin.seq == 2:
                raise ValueError("END GAME round 2: round 2 was never started")

        floor.before_record = refuse_second
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.2)
        task = await running(link)
        await until(lambda: len([f for f in ctl.frames(0) if isinstance(f, Ack)]) == 4, "ACKs")
        await link.close()
        await task
        await ctl.stop()
        acks = [f for f in ctl.frames(0) if isinstance(f, Ack)]
        refused = Ack("b", 2, "refused", "END GAME round 2: round 2 was never started")
        assert acks == [Ack("b", 1, "ok"), refused, Ack("b", 1, "ok"), refused]
        assert floor.calls == [("T1", "b", 1), ("T1", "b", 2)]  # answered from memory

    arun(main)


def test_a_lost_event_is_sent_again_on_the_live_connection_without_a_reconnect() -> None:
    async def main() -> None:
        table = make_table(seed=4, retransmit=0.1)
        await table.start()
        play(table, 3)
        last = len(table.history)
        lose = {3, last}  # one in the middle (a later one shows the gap), and the very last
        write = table._write

        def lossy(frame: Frame) -> None:
            if isinstance(frame, EventFrame) and frame.origin.seq in lose:
                lose.discard(frame.origin.seq)  # its first copy never arrives
                table.transmissions[frame.origin.seq] += 1
                return
            write(frame)

        table._write = lossy  # type: ignore[method-assign]
        floor = SequencedFloor()
        link = make_link(table, floor, retransmit=0.1)
        task = await running(link)
        await until(lambda: not table.outbox and len(floor.recorded) == last, "all recorded")
        await link.close()
        await task
        await table.stop()
        assert table.connections == 1  # no reconnect was needed
        assert list(floor.recorded) == [("T1", table.boot, n) for n in range(1, last + 1)]
        assert table.transmissions[3] >= 2 and table.transmissions[last] >= 2
        assert table.retransmissions >= 2

    arun(main)


def test_an_unacknowledged_command_is_sent_again_on_the_live_connection() -> None:
    async def main() -> None:
        ctl = ScriptedController(_hello())
        await ctl.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", ctl.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(),
                              heartbeat=0.2, retransmit=0.1)
        task = await running(link)
        await until(lambda: link.online, "online")
        pay = PayConfirmed(4, 3, "boot1:17", 7500)
        cseq = await link.send_command(pay)

        def sent() -> list[CommandFrame]:
            return [f for f in ctl.frames(0) if isinstance(f, CommandFrame)]

        await until(lambda: len(sent()) >= 3, "the command sent again, twice")
        ctl.send(0, CommandAck(link.console_id, cseq, "ok"))
        assert (await link.command_result(cseq)).result == "ok"
        count = len(sent())
        await asyncio.sleep(0.3)  # acknowledged: no more copies
        await link.close()
        await task
        await ctl.stop()
        assert len(ctl.writers) == 1  # on the one connection
        assert all(f == CommandFrame(link.console_id, cseq, pay) for f in sent())
        assert len(sent()) == count

    arun(main)


def test_a_lost_welcome_is_sent_again_when_the_controller_repeats_its_hello() -> None:
    async def main() -> None:
        table = make_table(retransmit=0.05)
        await table.start()
        play(table, 1)
        handle = table._handle
        dropped: list[Welcome] = []

        def deaf_once(item: object) -> None:
            if isinstance(item, Welcome) and not dropped:
                dropped.append(item)  # the first WELCOME is lost
                return
            handle(item)  # type: ignore[arg-type]

        table._handle = deaf_once  # type: ignore[method-assign]
        floor = Floor()
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: not table.outbox, "events delivered after the second WELCOME")
        await link.close()
        await task
        await table.stop()
        assert dropped and table.connections == 1

    arun(main)


def test_a_restarted_controller_delivers_the_old_boot_in_order_then_its_new_boot_from_1() -> None:
    async def main() -> None:
        table = make_table(seed=8)
        await table.start()
        play(table, 2)
        old_boot, old = table.boot, len(table.history)
        table.restart(keep_outbox=True)
        play(table, 2)
        assert table.boot != old_boot and table.history[old].origin.seq == 1
        floor = SequencedFloor()
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: table.unacknowledged == 0, "both boots delivered")
        await link.close()
        await task
        await table.stop()
        assert floor.calls == [(f.origin.table, f.origin.boot, f.origin.seq)
                               for f in table.history]
        assert table.kept == {}

    arun(main)


def test_events_acknowledged_to_another_ledger_are_declared_gone_and_kept_as_a_gap() -> None:
    async def main() -> None:
        table = make_table(seed=6)
        await table.start()
        play(table, 2)
        first = len(table.history)
        elsewhere = Floor()  # a ledger that is lost afterwards (restored from a backup)
        link1 = make_link(table, elsewhere)
        t1 = await running(link1)
        await until(lambda: not table.outbox, "acknowledged to the first ledger")
        await link1.close()
        await t1
        play(table, 1)
        floor = SequencedFloor()
        link2 = make_link(table, floor)
        t2 = await running(link2)
        await until(lambda: not table.outbox, "the new events taken after the gap")
        await link2.close()
        await t2
        await table.stop()
        gap = floor.recorded[("T1", table.boot, first)]
        assert gap == SequenceGap(1, first)
        assert table.gone_sent >= 1
        assert [k[2] for k in floor.recorded] == list(range(first, len(table.history) + 1))

    arun(main)
