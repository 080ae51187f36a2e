"""The Bad Beat Jackpot share slip (printing/escpos/bbj_slip.py): one slip per share paid, built
from the ledger (name from the claim, figures from the fund's award share, who and when from the
``share_paid`` row), and sent by the console's printer thread to a real ESC/POS socket.
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine

import core.pokerroom.fund as bf
from core.pokerroom import cases as bc
from core.tablegames.slip_record import SlipError
from printing.escpos.bbj_slip import render_share_slip, share_slip
from printing.escpos.preview import recovered_text
from tests.core.pokerroom.test_bbj_cases import HIT, SUP, Clock, _filed, post_day1
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness, wait_for


@pytest.fixture
def paid(engine: Engine) -> Iterator[tuple[Engine, int]]:
    """A case approved at cap 50.00 of 100.00 (award 25,352.80 on main 50,705.60) with seat 1
    (losing, citizen: 10,141.12, tax 2,028.22) and seat 2 (table, NRANETB: 2,535.28, tax
    633.82) paid."""
    # a floor whose executive threshold is above these awards: supervisors take every step
    # (the authority by size is tested in tests/core/pokerroom/test_bbj_cases.py)
    from core.app.demo import enroll_demo_employees
    from core.floorconfig import Authorization
    from core.people import cardkey
    from core.people.auth import Gate, register_gate

    register_gate(Gate(engine, cardkey.load(), Authorization(100_000_000,
                                                             separate_verifier_cents=100_000_000)))
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=HIT - timedelta(days=2))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed",
            at=HIT - timedelta(days=2))
    clock = Clock(HIT + timedelta(minutes=10))
    cid = _filed(engine, clock, cap_cents=5_000)
    post_day1(engine)
    bc.advance(engine, cid, "approved", SUP, clock=clock.step(days=1))
    bc.advance(engine, cid, "share_paid", SUP, seat=1, clock=clock.step(minutes=5))
    bc.advance(engine, cid, "share_paid", SUP, seat=2, clock=clock.step(minutes=5))
    yield engine, cid


def test_a_paid_share_gives_its_slip_from_the_ledger(paid: tuple[Engine, int]) -> None:
    engine, cid = paid
    slip = share_slip(engine, cid, 1, casino="Podium Demo Casino", timezone="Asia/Manila")
    assert (slip.name, slip.role, slip.taxpayer, slip.hole) == ("Player 1", "losing", "citizen",
                                                                 ("As", "Td"))
    assert (slip.gross_cents, slip.tax_cents, slip.net_cents) == (1_014_112, 202_822, 811_290)
    assert slip.paid_by.number == "1001" and slip.fund == "Poker room BBJ"
    text = " ".join(recovered_text(render_share_slip(slip)).split())  # lines joined
    for expected in ("BAD BEAT JACKPOT SHARE", "Player 1", "Losing hand (bad beat)",
                     "PHP 10,141.12", "PHP 2,028.22", "NET AMOUNT PAID", "PHP 8,112.90",
                     "EIGHT THOUSAND ONE HUNDRED TWELVE AND 90/100 PHILIPPINE PESOS",
                     f"BBJ-C{cid}-A1-S1", "2026-12-02 22:15"):  # paid at 14:15 UTC, Manila
        assert expected in text, expected
    nranetb = share_slip(engine, cid, 2, casino="C", timezone="Asia/Manila")
    assert (nranetb.gross_cents, nranetb.tax_cents, nranetb.hole) == (253_528, 63_382, ())
    assert "NRANETB" in recovered_text(render_share_slip(nranetb))


def test_the_same_share_gives_the_same_bytes_and_a_reprint_says_so(
        paid: tuple[Engine, int]) -> None:
    engine, cid = paid
    first = render_share_slip(share_slip(engine, cid, 1, casino="C", timezone="Asia/Manila"))
    again = render_share_slip(share_slip(engine, cid, 1, casino="C", timezone="Asia/Manila"))
    copy = render_share_slip(share_slip(engine, cid, 1, casino="C", timezone="Asia/Manila",
                                        reprint=True))
    assert first == again and copy != first
    assert "REPRINT - COPY - NOT AN ORIGINAL" in recovered_text(copy)
    assert "REPRINT" not in recovered_text(first)


def test_an_unpaid_share_or_an_unknown_case_has_no_slip(paid: tuple[Engine, int]) -> None:
    engine, cid = paid
    with pytest.raises(SlipError, match=f"case {cid}: seat 4 has no paid share"):
        share_slip(engine, cid, 4, casino="C", timezone="Asia/Manila")
    with pytest.raises(SlipError, match="case 999: no such case"):
        share_slip(engine, 999, 1, casino="C", timezone="Asia/Manila")


def test_the_console_prints_a_share_slip_on_the_receipt_printer(
        paid: tuple[Engine, int]) -> None:
    engine, cid = paid
    data = render_share_slip(share_slip(engine, cid, 1, casino="C", timezone="Asia/Manila"))
    with FakePrinter() as printer:
        h = FloorHarness(engine, printer.port, tables=("PG-1",)).start()
        try:
            h.console.print_bytes(data, f"bbj-{cid}-1", f"Share slip case {cid} seat 1",
                                  lambda ok, p, err: bc.record_slip_print(
                                      engine, cid, 1, reprint=False, printer=p, ok=ok,
                                      error=err))
            assert printer.wait_for_job() == data
            wait_for(lambda: any("seat 1 printed on" in m for m in h.messages),
                     what="the printed message")
        finally:
            h.stop()
    # a printer that is off: the supervisor is told, nothing raises
    h = FloorHarness(engine, 1, tables=("PG-1",)).start()
    try:
        h.console.print_bytes(data, f"bbj-{cid}-1", f"Share slip case {cid} seat 1",
                              lambda ok, p, err: bc.record_slip_print(
                                  engine, cid, 1, reprint=True, printer=p, ok=ok, error=err))
        wait_for(lambda: any("seat 1 did not print" in m for m in h.messages),
                 what="the failure message")
    finally:
        h.stop()
    # both attempts are in the ledger, the failed one with the printer's problem
    prints = bc.slip_prints(engine, cid)
    assert [(p.seat, p.reprint, p.ok) for p in prints] == [(1, False, True), (1, True, False)]
    assert "does not answer" in prints[1].error and prints[1].printer == "127.0.0.1:1"


def test_the_demo_share_slip_renders_with_its_net_and_no_name_is_refused() -> None:
    from dataclasses import replace

    from printing.escpos.bbj_slip import demo_share_slip

    text = " ".join(recovered_text(render_share_slip(demo_share_slip())).split())
    assert "Juan Dela Cruz" in text and "PHP 8,112.90" in text  # 10,141.12 - 2,028.22
    with pytest.raises(SlipError, match="seat 1: no name"):
        render_share_slip(replace(demo_share_slip(), name=""))
