"""Issue 26 point 5: a console (or floor service) that starts while its tables' controllers
have restarted does not keep their dead hits in the queue for ever.  A restarted controller
forgets its open hits (docs/protocol.md "Restart"): a PAY or REJECT for one is refused by the
table.  At the table's link-up each hit still pending from an earlier boot is closed by the
system with a ``boot_ended`` decision that says why, and the Activity read back from the ledger
shows it.  Simulated controllers, the console core and a ledger (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, select

from core.app.console import ConsoleCore
from core.ledger.models import Hit, HitDecision
from printing.escpos.slip import PAPER
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness, wait_for

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]  # waits for a supervisor


@pytest.fixture
def harness(engine: Engine) -> Iterator[FloorHarness]:
    with FakePrinter() as printer:
        h = FloorHarness(engine, printer.port, tables=("PG-1",)).start()
        try:
            yield h
        finally:
            h.stop()


def _decisions(engine: Engine, hit_id: int) -> list[tuple[str, int | None, str]]:
    with engine.connect() as c:
        return [(d, e, r) for d, e, r in c.execute(
            select(HitDecision.decision, HitDecision.employee_id, HitDecision.reason)
            .where(HitDecision.hit_id == hit_id).order_by(HitDecision.id))]


def test_hits_of_a_controller_boot_gone_are_closed_with_a_record_at_start(
        harness: FloorHarness, engine: Engine) -> None:
    sim = harness.sims["PG-1"]
    harness.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
    (hit,) = wait_for(harness.pending, what="the hit in the queue")
    old_boot = sim.boot
    harness.console.stop()  # the podium goes down ...
    harness.on_sim(lambda: sim.restart(keep_outbox=False))  # ... and its controller restarts
    assert sim.boot != old_boot and sim.open_hits == {}

    console = ConsoleCore(harness.engine, harness.config, harness.paytables,
                          link_options={"heartbeat": 0.5, "reconnect_delay": 0.1,
                                        "max_reconnect_delay": 0.5}, paper=PAPER)
    console.start()
    try:
        wait_for(lambda: console.floor.snapshot().pending == (), what="the dead hit closed")
        with engine.connect() as c:
            assert c.scalar(select(Hit.status).where(Hit.id == hit.hit_id)) == "cancelled"
        ((decision, employee, reason),) = _decisions(engine, hit.hit_id)
        assert (decision, employee) == ("boot_ended", None)  # the system, no person
        assert f"boot {old_boot}, now {sim.boot}" in reason
        assert "will never answer" in reason and "nothing was paid" in reason
        line = next(r.text for r in console.floor.activity() if f"H{hit.hit_id} " in r.text)
        assert line.startswith(f"Hit H{hit.hit_id} (PG-1 seat 3, round 1) closed (its "
                               "controller restarted) by the system: closed by the system")
        assert [r.text for r in console.floor.decision_lines([hit.hit_id])] == [line]
        # nothing was sent to the table for it: it never knew this hit
        assert sim.decisions == {}
        # the new boot's hits are not touched: a hit now waits as usual
        harness.deal_hit("PG-1", seat=5, cards=ROYAL_SF7, wagers=[5])
        (fresh,) = wait_for(lambda: console.floor.snapshot().pending, what="the new hit")
        assert fresh.hit_id != hit.hit_id and _decisions(engine, fresh.hit_id) == []
    finally:
        console.stop()


def test_a_link_up_of_the_same_boot_closes_nothing(harness: FloorHarness,
                                                   engine: Engine) -> None:
    sim = harness.sims["PG-1"]
    harness.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[3])
    (hit,) = wait_for(harness.pending, what="the hit in the queue")
    before = sim.connections
    harness.on_sim(sim.drop_connection)  # a pulled cable: the same boot comes back
    wait_for(lambda: sim.connections > before and sim.connected, what="the reconnect")
    wait_for(lambda: all(t.online for t in harness.console.floor.snapshot().tables),
             what="the table online again")
    harness.console.floor.writer.submit(lambda u: None).result(timeout=10)  # a commit after
    assert [h.hit_id for h in harness.pending()] == [hit.hit_id]
    assert _decisions(engine, hit.hit_id) == []
