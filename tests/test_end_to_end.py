"""The whole path of a table-game jackpot over real loopback TCP:

simulated controller -> console core -> HIT -> verify -> swipe -> paid -> meter reseeded ->
PAY back to the controller -> win slip bytes received by a fake ESC/POS printer.

Runs on SQLite and on PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from core.app.demo import demo_credential, swipe_of
from core.ledger.balance_checks import check_balances as check_meter_invariant
from core.ledger.models import Award, RefusedEvent, Slip, SwipeLog
from core.people.auth import AuthError
from printing.escpos.preview import recovered_text
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

        paid = floor.console.floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                                       verifier=swipe_of("1001"))
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
        wait_for(lambda: floor.console.recent_slips()[0].printed == "yes",
                 what="the print recorded")
        assert bytes(printer.received).count(b"WIN SLIP No.") == 1
        assert check_meter_invariant(engine) == []


def test_slip_that_cannot_print_stays_queued_and_prints_later(engine: Engine) -> None:
    port = closed_port()
    with FloorHarness(engine, port) as floor:
        floor.deal_hit("PG-1", seat=2, cards=ROYAL_SF7, wagers=[2])
        hit = wait_for(lambda: floor.pending(), what="the hit")[0]
        paid = floor.console.floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                                       verifier=swipe_of("1001"))
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
        paid = floor.console.floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                                       verifier=swipe_of("1001"))
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


SF7_HEARTS = ["8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah"]  # 100% of the meter
ROYAL_MATCH = ["As", "Ks", "Qs", "Js", "Ts", "Kd", "Qd"]  # 50%


def test_lock_at_hit_over_tcp_two_hits_paid_in_seat_order_and_a_misdeal_after_a_full_award(
        engine: Engine) -> None:
    """RULES.md 4 on a lock-at-hit link, over real TCP: the dealer presses HIT JACKPOT for seat 2
    (100%) before seat 6 (50%), yet seat 6, on the dealer's right, takes its half first and
    seat 2 the rest; then a table misdeals a round after a 100% hit elsewhere on the link
    emptied the reserve: the misdeal is accepted (ACKed), and the round's contributions come
    back out of the meter."""
    with FakePrinter() as printer, FloorHarness(engine, printer.port, tables=("PG-1", "PG-2"),
                                                lock_at_hit=True) as floor:
        pg1, pg2 = floor.sims["PG-1"], floor.sims["PG-2"]
        floor.on_sim(pg1.force_wagers, [2, 6])
        floor.on_sim(pg1.force_hand, 2, SF7_HEARTS)
        floor.on_sim(pg1.force_hand, 6, ROYAL_MATCH)
        floor.on_sim(pg1.step)  # START GAME: 2 x $1 -> +0.40 meter, +0.04 reserve
        floor.on_sim(pg1.step)  # deal: HIT JACKPOT seat 2, then seat 6
        hits = wait_for(lambda: len(floor.pending()) == 2 and floor.pending(),
                        what="both hits in the queue")
        by_seat = {h.seat: h for h in hits}
        meter = 1_000_040  # seed 10,000.00 + 0.40
        six = meter // 2
        two = meter - six
        assert floor.console.floor.evaluate(by_seat[2].hit_id, SF7_HEARTS).amount_cents == two
        paid2 = floor.console.floor.pay(by_seat[2].hit_id, SF7_HEARTS, demo_credential("2001"),
                                        verifier=swipe_of("1001"))
        paid6 = floor.console.floor.pay(by_seat[6].hit_id, ROYAL_MATCH, demo_credential("2001"),
                                        verifier=swipe_of("1001"))
        assert (paid6.amount_cents, paid2.amount_cents) == (six, two)
        wait_for(lambda: sorted(pg1.decisions.values()) == ["paid", "paid"],
                 what="both PAYs at the controller")
        floor.on_sim(pg1.step)  # END GAME

        floor.on_sim(pg2.force_wagers, [1, 2, 3])
        floor.on_sim(pg2.step)  # PG-2 START GAME: +0.60 meter, +0.06 reserve
        floor.on_sim(pg1.force_wagers, [4])
        floor.on_sim(pg1.force_hand, 4, SF7_HEARTS)
        floor.on_sim(pg1.step)
        floor.on_sim(pg1.step)  # PG-1 HIT 100%: locked at once, the reserve moves to 0
        wait_for(lambda: floor.pending(), what="the 100% hit")

        def level() -> Any:
            return {(lv.group, lv.level): lv
                    for lv in floor.console.floor.snapshot().levels}[("WA01", "MAIN")]

        assert level().reserve_units == 0
        before = level().meter_units
        floor.on_sim(pg2.press_misdeal)
        wait_for(lambda: not pg2.outbox, what="the MISDEAL acknowledged")
        assert level().meter_units == before - 66 * 1_000_000
        assert level().reserve_units == 0
        assert check_meter_invariant(engine) == []
        assert _count(engine, RefusedEvent) == 0


def test_jackpot_lock_pending_reaches_every_linked_table_and_clears_after_the_pay(
        engine: Engine) -> None:
    """DEQ's Jackpot Lock over TCP: a lock-at-hit hit on PG-1 freezes its amount; every table of
    the link is told PENDING with the frozen amount (JACKPOT_STATE, docs/protocol.md) and keeps
    playing into the live meter; a table that reconnects is told again; the pay clears it."""
    with FakePrinter() as printer, FloorHarness(engine, printer.port, tables=("PG-1", "PG-2"),
                                                lock_at_hit=True) as floor:
        pg1, pg2 = floor.sims["PG-1"], floor.sims["PG-2"]
        floor.deal_hit("PG-1", seat=3, cards=SF7_HEARTS, wagers=[3])  # +0.20 -> 10,000.20
        hit = wait_for(lambda: floor.pending(), what="the hit")[0]
        for sim in (pg1, pg2):
            wait_for(lambda sim=sim: sim.jackpot.get("MAIN") is not None
                     and sim.jackpot["MAIN"].state == "PENDING", what="PENDING at the table")
            st = sim.jackpot["MAIN"]
            assert (st.group, st.amount_cents, st.hits) == ("WA01", 1_000_020, 1)
        assert "JACKPOT PENDING 10,000.20" in pg2.jackpot_line("MAIN")
        # the other table keeps playing: its wagers grow the live meter, not the frozen amount
        floor.on_sim(pg2.force_wagers, [1, 2])
        floor.on_sim(pg2.step)
        wait_for(lambda: not pg2.outbox, what="PG-2's START GAME acknowledged")
        level = {(lv.group, lv.level): lv
                 for lv in floor.console.floor.snapshot().levels}[("WA01", "MAIN")]
        assert (level.frozen_cents, level.frozen_hits) == (1_000_020, 1)
        assert level.meter_cents == 1_000_000 + 2 + 40  # seed + reserve 0.02, + PG-2's 0.40
        # a table that reconnects is told the state again
        floor.on_sim(pg2.drop_connection)
        floor.on_sim(lambda: pg2.jackpot.clear())
        wait_for(lambda: pg2.jackpot.get("MAIN") is not None, what="the state after reconnect")
        assert pg2.jackpot["MAIN"].amount_cents == 1_000_020
        paid = floor.console.floor.pay(hit.hit_id, SF7_HEARTS, demo_credential("2001"),
                                       verifier=swipe_of("1001"))
        assert paid.amount_cents == 1_000_020
        for sim in (pg1, pg2):
            wait_for(lambda sim=sim: sim.jackpot["MAIN"].state == "CLEAR",
                     what="CLEAR at the table")
        assert floor.console.jackpot_states()[("WA01", "MAIN")].state == "CLEAR"
