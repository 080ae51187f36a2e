"""The console core (core/app/) over real loopback TCP: the ledger, not the link's memory,
is the source of truth for the PAY / REJECT a controller waits for.

Simulated controllers (core/controllers/simulator.py, stepped by the test), the console core,
a ledger (SQLite and PostgreSQL) and a fake ESC/POS printer; nothing mocked in between."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, select

from core.app.console import ConsoleCore
from core.app.demo import demo_credential, swipe_of
from core.controllers.events import GameStarted, HitClaimed, Origin
from core.controllers.frames import Command, HitRejected, PayConfirmed
from core.controllers.simulator import SimulatedTable
from core.kernel.cards import parse_cards
from core.ledger.models import Round
from printing.escpos.slip import PAPER
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness, wait_for

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]  # natural 7-card straight flush 8..A
FULL_HOUSE = ["Kh", "Kd", "Kc", "4h", "4d", "2c", "9h"]  # $6, no secondary verification


def _record_commands(sim: SimulatedTable) -> list[tuple[Command, tuple[str, str]]]:
    """Every PAY / REJECT the simulated controller applies, with its answer."""
    seen: list[tuple[Command, tuple[str, str]]] = []
    resolve = sim.resolve

    def recording(command: Command) -> tuple[str, str]:
        result = resolve(command)
        seen.append((command, result))
        return result

    sim.resolve = recording  # type: ignore[method-assign]
    return seen


def _round_state(engine: Engine, table: str, round_no: int) -> str | None:
    with engine.connect() as c:
        return c.scalar(select(Round.state).where(Round.table_id == table,
                                                  Round.round_no == round_no))


@pytest.fixture
def harness(engine: Engine) -> Iterator[FloorHarness]:
    with FakePrinter() as printer:
        h = FloorHarness(engine, printer.port, tables=("PG-1",)).start()
        try:
            yield h
        finally:
            h.stop()


def _second_console(h: FloorHarness) -> ConsoleCore:
    """A new console process on the same ledger (nothing of the first one's memory)."""
    return ConsoleCore(h.engine, h.config, h.paytables,
                       link_options={"heartbeat": 0.5, "reconnect_delay": 0.1,
                                     "max_reconnect_delay": 0.5}, paper=PAPER)


@pytest.mark.parametrize("decision", ["pay", "reject"])
def test_decision_taken_while_the_console_was_down_reaches_the_table_after_restart(
        harness: FloorHarness, engine: Engine, decision: str) -> None:
    sim = harness.sims["PG-1"]
    applied = _record_commands(sim)
    harness.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
    hit = wait_for(harness.pending, what="the hit in the queue")[0]
    # The console goes away before it could tell the table: the decision is in the ledger
    # only (it could not even be queued on a link).
    harness.console.stop()
    floor = harness.console.floor
    if decision == "pay":
        paid = floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                         verifier=swipe_of("1001"))
    else:
        floor.reject(hit.hit_id, "cards shuffled before verification", demo_credential("2001"))
    assert sim.decisions == {} and len(sim.open_hits) == 1  # the table still waits

    console = _second_console(harness)
    messages: list[str] = []
    console.add_message_listener(messages.append)
    console.start()
    try:
        wait_for(lambda: sim.decisions, what="the decision at the table")
        ((command, answer),) = applied
        assert answer == ("ok", "")
        if decision == "pay":
            assert isinstance(command, PayConfirmed)
            assert (command.round_no, command.seat, command.amount_cents) == (
                1, 3, paid.amount_cents)
            assert list(sim.decisions.values()) == ["paid"]
        else:
            assert isinstance(command, HitRejected)
            assert command.reason == "cards shuffled before verification"
            assert list(sim.decisions.values()) == ["rejected"]
        assert command.hit_ref == next(iter(sim.decisions))
        # the table plays on: END GAME, then the next round, both recorded by the new console
        assert sim.open_hits == {}
        assert [type(f.event).__name__ for f in harness.on_sim(sim.step)] == ["GameEnded"]
        assert sim.phase == "idle"
        wait_for(lambda: _round_state(engine, "PG-1", 1) == "ended", what="round 1 ended")
        assert console.floor.awaited_decisions("PG-1") == []
        harness.on_sim(sim.step)  # START GAME round 2
        wait_for(lambda: _round_state(engine, "PG-1", 2) == "locked", what="round 2 started")
        assert not any("could not" in m or "refused" in m for m in messages)
    finally:
        console.stop()


def test_link_drop_resends_decisions_of_the_open_round_quietly(
        harness: FloorHarness, engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    sim = harness.sims["PG-1"]
    applied = _record_commands(sim)
    harness.on_sim(sim.force_wagers, [3, 5])
    harness.on_sim(sim.force_hand, 3, FULL_HOUSE)  # auto-paid at once
    harness.on_sim(sim.force_hand, 5, ROYAL_SF7)  # waits for a supervisor
    harness.on_sim(sim.step)  # START GAME
    harness.on_sim(sim.step)  # HIT JACKPOT seat 3 and seat 5
    wait_for(lambda: "paid" in sim.decisions.values(), what="the auto-pay at the table")
    (auto_ref,) = sim.decisions
    assert len(sim.open_hits) == 1  # seat 5 still open: the round goes on

    caplog.clear()
    with caplog.at_level(logging.INFO):
        before = sim.connections
        harness.on_sim(sim.drop_connection)  # a pulled cable; the link comes back by itself
        wait_for(lambda: sim.connections > before and sim.connected, what="the reconnect")
        wait_for(lambda: len(applied) >= 2, what="the PAY sent again")
    repeats = [(c, r) for c, r in applied if c.hit_ref == auto_ref]
    assert len(repeats) == 2 and all(r == ("ok", "") for _, r in repeats)
    assert repeats[0][0] == repeats[1][0]  # the same PAY, applied once
    assert sim.decisions == {auto_ref: "paid"}
    assert any("sending PAY" in r.getMessage() and "again" in r.getMessage()
               for r in caplog.records if r.name == "podium.runtime")
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING
            and (r.name == "podium.runtime" or "command" in r.getMessage())]
    assert loud == []
    assert not any("answer" in m for m in harness.messages)

    # the supervisor pays seat 5: the PAY goes out, the table ends the round
    seat5 = wait_for(harness.pending, what="seat 5 in the queue")[0]
    harness.console.floor.pay(seat5.hit_id, ROYAL_SF7, demo_credential("2001"),
                              verifier=swipe_of("1001"))
    wait_for(lambda: len(sim.decisions) == 2, what="the second PAY")
    assert [type(f.event).__name__ for f in harness.on_sim(sim.step)] == ["GameEnded"]
    wait_for(lambda: _round_state(engine, "PG-1", 1) == "ended", what="round 1 ended")


def test_auto_paid_hit_reaches_a_restarted_console_table(harness: FloorHarness,
                                                          engine: Engine) -> None:
    """The console stops right after the auto-pay was recorded, before the PAY got out."""
    sim = harness.sims["PG-1"]
    harness.console.stop()
    floor = harness.console.floor
    # the table's HIT reaches a console that records it but is stopped (no link to answer on)
    floor.set_link("PG-1", True)
    boot = sim.boot
    frames: list[Any] = []
    harness.on_sim(sim.force_wagers, [2])
    harness.on_sim(sim.force_hand, 2, FULL_HOUSE)
    frames += harness.on_sim(sim.step)  # START GAME (not delivered: no console connected)
    frames += harness.on_sim(sim.step)  # HIT JACKPOT seat 2
    for f in frames:  # as if the first console had recorded them and died before answering
        assert f.origin.boot == boot
        floor.handle(Origin(f.origin.table, f.origin.boot, f.origin.seq), f.event)
    assert isinstance(frames[0].event, GameStarted) and isinstance(frames[1].event, HitClaimed)
    assert frames[1].event.cards == tuple(parse_cards(FULL_HOUSE))
    (d,) = floor.awaited_decisions("PG-1")
    assert d.outcome == "auto_paid"

    console = _second_console(harness)
    console.start()
    try:
        wait_for(lambda: sim.decisions.get(d.hit_ref) == "paid", what="the PAY at the table")
        wait_for(lambda: sim.outbox == {}, what="the replayed events acknowledged")
        assert len(console.floor.snapshot().pending) == 0
        harness.on_sim(sim.step)  # END GAME
        wait_for(lambda: _round_state(engine, "PG-1", 1) == "ended", what="round 1 ended")
    finally:
        console.stop()
