"""The whole path of a table-game jackpot over real loopback TCP:

simulated controller -> console core -> HIT -> verify -> swipe -> paid -> meter reseeded ->
PAY back to the controller -> win slip bytes received by a fake ESC/POS printer.

Runs on SQLite and on PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import Engine, func, select

from core.auth import AuthError
from core.demo import swipe_of
from core.ledger.models import Award, Slip, SwipeLog
from core.tablegames.balances import check_balances as check_meter_invariant
from printing.preview import recovered_text
from tests.fake_printer import STATUS_OK, STATUS_PAPER_OUT, FakePrinter, closed_port
from tests.harness import FloorHarness, wait_for

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]  # natural 7-card straight flush 8..A


def _count(engine: Engine, model: type) -> int:
    with engine.connect() as c:
        return int(c.scalar(select(func.count()).select_from(model)) or 0)


def test_jackpot_from_controller_to_printed_slip(engine: Engine) -> None:
    with FakePrinter() as printer, FloorHarness(engine, printer.port) as floor:
        floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
        hit = wait_for(lambda: floor.pending(), what="the hit in the queue")[0]
        assert (hit.table, hit.seat, hit.claimed_hand, hit.wager_cents) == ("PG-1", 3,
                                                                           "SF7_NATURAL", 100)
        level = {(lv.group, lv.level): lv for lv in floor.console.floor.snapshot().levels}
        # three $1 wagers: +0.60 to the meter (20%) and +0.06 to the reserve (2%)
        assert level[("WA01", "MAIN")].meter_cents == 1_000_060
        assert level[("WA01", "MAIN")].reserve_units == 6 * 1_000_000

        v = floor.console.floor.evaluate(hit.hit_id, ROYAL_SF7)
        assert (v.best_hand, v.pay_hand, v.source, v.amount_cents) == (
            "SF7_NATURAL", "SF7_NATURAL", "meter", 1_000_060)
        assert v.required_role == "executive" and not v.mismatch

        # a Supervisor card is not enough for a 100% meter pay: refused, logged, nothing paid
        with pytest.raises(AuthError, match="(?i)executive"):
            floor.console.floor.pay(hit.hit_id, ROYAL_SF7, swipe_of("1001"))
        assert _count(engine, Award) == 0
        assert _count(engine, SwipeLog) == 1

        paid = floor.console.floor.pay(hit.hit_id, ROYAL_SF7, swipe_of("2001"))
        assert paid.amount_cents == 1_000_060
        assert paid.meter_before_cents == 1_000_060
        assert paid.meter_after_cents == 1_000_006  # reseeded at seed + reserve
        level = {(lv.group, lv.level): lv for lv in floor.console.floor.snapshot().levels}
        assert level[("WA01", "MAIN")].meter_cents == 1_000_006
        assert level[("WA01", "MAIN")].reserve_units == 0
        assert floor.pending() == []

        # the controller is told, and the slip reaches the printer
        sim = floor.sims["PG-1"]
        wait_for(lambda: "paid" in sim.decisions.values(), what="PAY at the controller")
        printer.wait_for_bytes(200, timeout=10)
        text = recovered_text(wait_for(lambda: printer.received, what="slip bytes"))
        assert f"WIN SLIP No. {paid.slip_no:06d}" in text
        assert "10,000.60" in text
        assert "Evelyn Cruz" in text
        with engine.connect() as c:
            stored = c.scalar(select(Slip.escpos).where(Slip.slip_no == paid.slip_no))
        assert bytes(stored) in bytes(printer.received)
        # printed once: recording the print must not print it again
        time.sleep(0.5)
        assert bytes(printer.received).count(b"WIN SLIP No.") == 1
        assert floor.console.recent_slips()[0].printed == "yes"
        assert check_meter_invariant(engine) == []


def test_slip_that_cannot_print_stays_queued_and_prints_later(engine: Engine) -> None:
    port = closed_port()
    with FloorHarness(engine, port) as floor:
        floor.deal_hit("PG-1", seat=2, cards=ROYAL_SF7, wagers=[2])
        hit = wait_for(lambda: floor.pending(), what="the hit")[0]
        paid = floor.console.floor.pay(hit.hit_id, ROYAL_SF7, swipe_of("2001"))
        wait_for(lambda: any("did not print" in m for m in floor.messages),
                 what="the printer failure message")
        assert [s.slip_no for s in floor.console.floor.pending_slips()] == [paid.slip_no]
        assert _count(engine, Award) == 1  # the payment is not lost
        # the printer comes back on the same port
        with FakePrinter(port=port) as printer:
            assert floor.console.print_queued() == 1
            printer.wait_for_bytes(200, timeout=10)
            wait_for(lambda: floor.console.floor.pending_slips() == [], what="slip printed")


def test_a_slip_sent_to_a_printer_out_of_paper_stays_queued_until_paper_is_loaded(
        engine: Engine) -> None:
    """The printer answers its status before each slip: out of paper, nothing is sent, the
    supervisor is told why and the slip stays queued; once paper is loaded it prints."""
    with FakePrinter(status=STATUS_PAPER_OUT) as printer, \
            FloorHarness(engine, printer.port) as floor:
        floor.deal_hit("PG-1", seat=2, cards=ROYAL_SF7, wagers=[2])
        hit = wait_for(lambda: floor.pending(), what="the hit")[0]
        paid = floor.console.floor.pay(hit.hit_id, ROYAL_SF7, swipe_of("2001"))
        wait_for(lambda: any("out of paper" in m for m in floor.messages),
                 what="the out-of-paper message")
        assert printer.received == b"" and printer.status_queries >= 1
        assert [s.slip_no for s in floor.console.floor.pending_slips()] == [paid.slip_no]
        assert floor.console.recent_slips()[0].printed.startswith("FAILED")
        assert "out of paper" in floor.console.recent_slips()[0].printed
        printer.status = dict(STATUS_OK)  # paper loaded
        assert floor.console.print_queued() == 1
        printer.wait_for_bytes(200, timeout=10)
        wait_for(lambda: floor.console.floor.pending_slips() == [], what="slip printed")
