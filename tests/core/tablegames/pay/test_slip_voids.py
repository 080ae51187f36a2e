"""Voiding a win slip (core/tablegames/pay/voids.py, Floor.void_slip) on SQLite and PostgreSQL:
the void row, the reversal of the award's meter movements when the money came back, the audit
check that they negate each other, and every refusal changing nothing but the swipe log."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.controllers.events import GameEnded, GameStarted, HitClaimed
from core.ledger import integrity
from core.ledger.audit import verify
from core.ledger.models import Award, MeterEntry, SlipVoid, SwipeLog
from core.people.auth import AuthError
from core.tablegames import changes
from core.tablegames.floor import Floor
from core.tablegames.meters import balances
from core.tablegames.pay.voids import MAX_REASON
from core.tablegames.unit import LevelRef
from core.tablegames.views import FloorError
from tests.core.tablegames.test_floor import (
    ACC,
    EXE,
    EXE2,
    HANDS,
    SUP,
    UNITS,
    Table,
    counts,
    hit_ids,
    meter_units,
    swipe,
)
from tests.core.tablegames.test_floor import floor as floor  # noqa: F401 - the fixture

UNKNOWN = "5000000000000099"


def pay(floor: Floor, engine: Engine, table: str, round_no: int, seat: int, hand: str) -> int:
    """Start a round at ``table`` with a wager on ``seat``, claim ``hand`` there and pay it on
    the executive's card; the slip number."""
    t = Table(floor, table, boot=f"boot-{table}-{round_no}")
    t.send(GameStarted(round_no, {seat: 100}))
    t.send(HitClaimed(round_no, seat, hand))
    paid = floor.pay(max(hit_ids(engine)), HANDS[hand].split(), swipe(EXE))
    t.send(GameEnded(round_no))
    assert paid.slip_no is not None
    return int(paid.slip_no)


def entries_of_hit(engine: Engine, hit_id: int) -> list[MeterEntry]:
    with Session(engine) as s:
        return list(s.scalars(select(MeterEntry).where(MeterEntry.hit_id == hit_id)
                              .order_by(MeterEntry.id)))


def chain_head(engine: Engine) -> tuple[int, bytes]:
    with engine.connect() as conn:
        return integrity.chain_head(conn)


def chained_tables_since(engine: Engine, n: int) -> list[str]:
    with engine.connect() as conn:
        return [t for t, _key in integrity.chained_since(conn, n)]


def test_void_with_money_returned_gives_a_100_percent_award_back_to_the_meter(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 3: 100}))
    t1.send(HitClaimed(1, 3, "SF7_NATURAL"))
    (hit,) = hit_ids(engine)
    m0, r0 = meter_units(engine)  # what the meter held when the hit was paid
    assert r0 > 0  # a reserve for the 100% award to move
    slip = int(floor.pay(hit, HANDS["SF7_NATURAL"].split(), swipe(EXE)).slip_no or 0)
    moved = entries_of_hit(engine, hit)
    assert sorted(e.kind for e in moved) == ["award", "reseed", "reserve_move"]
    assert meter_units(engine) != (m0, r0)
    voided = floor.void_slip(slip, "player's cards were switched (surveillance)", True,
                             swipe(EXE))
    assert voided.void.money_returned and voided.reversals == 3
    with Session(engine) as s:
        (row,) = s.scalars(select(SlipVoid))
        assert (row.reason, row.money_returned) == (
            "player's cards were switched (surveillance)", True)
        award = s.scalars(select(Award)).one()  # the award stays
    reversals = [e for e in entries_of_hit(engine, hit) if e.kind == "reversal"]
    assert len(reversals) == 3
    by_target = {e.reverses_id: e for e in reversals}
    for e in moved:
        r = by_target[e.id]
        assert (r.level_id, r.meter_delta, r.reserve_delta, r.award_id) == (
            e.level_id, -e.meter_delta, -e.reserve_delta, award.id)
    # the meter and the reserve are back where they stood when the hit was paid, to the unit
    assert meter_units(engine) == (m0, r0)
    state = floor.meter("LINK", "MAIN")  # the kept balance follows
    assert (state.meter_units, state.reserve_units) == (m0, r0)
    report = verify(engine)
    assert report.ok, [b.line() for b in report.breaks]
    assert floor.slip_void(slip) is not None and floor.win_slip(slip).void is not None


def test_two_podiums_voiding_one_slip_at_once_void_it_once(floor: Floor,
                                                          engine: Engine) -> None:
    import threading

    slip = pay(floor, engine, "T1", 1, 2, "RF_ROYAL_MATCH")
    m_paid, r_paid = meter_units(engine)
    with Session(engine) as s:
        amount = s.scalars(select(Award)).one().amount_cents
    results: list[object] = []
    barrier = threading.Barrier(2, timeout=30)  # a broken barrier fails, never hangs

    def podium(card: str) -> None:
        barrier.wait()
        try:
            results.append(floor.void_slip(slip, f"void by {card}", True, swipe(card)))
        except FloorError as exc:
            results.append(exc)

    threads = [threading.Thread(target=podium, args=(c,)) for c in (EXE, EXE2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
        assert not th.is_alive(), "a podium's decision did not return within 60 s"
    errors = [r for r in results if isinstance(r, FloorError)]
    assert len(results) == 2 and len(errors) == 1 and "already void" in str(errors[0])
    assert counts(engine)["slip_voids"] == 1
    assert meter_units(engine) == (m_paid + amount * UNITS, r_paid)  # given back once
    assert verify(engine).ok


def test_void_of_a_partial_award_puts_exactly_the_amount_back(floor: Floor,
                                                             engine: Engine) -> None:
    slip = pay(floor, engine, "T1", 1, 2, "RF_ROYAL_MATCH")  # 50% of the meter
    m_paid, r_paid = meter_units(engine)
    with Session(engine) as s:
        amount = s.scalars(select(Award)).one().amount_cents
    floor.void_slip(slip, "dealer misread the hand", True, swipe(EXE))
    assert meter_units(engine) == (m_paid + amount * UNITS, r_paid)
    assert verify(engine).ok


def test_void_of_a_lock_at_hit_pay_reverses_the_lock_entries(floor: Floor,
                                                            engine: Engine) -> None:
    l1 = Table(floor, "L1")
    l1.send(GameStarted(1, {1: 100}))
    m0, r0 = meter_units(engine, "LOCK")
    l1.send(HitClaimed(1, 1, "SF7_NATURAL"))
    (hit,) = hit_ids(engine)
    paid = floor.pay(hit, HANDS["SF7_NATURAL"].split(), swipe(EXE))
    floor.void_slip(int(paid.slip_no or 0), "claim was false", True, swipe(EXE))
    assert meter_units(engine, "LOCK") == (m0, r0)  # everything the lock moved came back
    report = verify(engine)
    assert report.ok, [b.line() for b in report.breaks]


def test_void_without_money_returned_writes_no_reversal(floor: Floor, engine: Engine) -> None:
    slip = pay(floor, engine, "T1", 1, 3, "SF7_NATURAL")
    m, r = meter_units(engine)
    before = counts(engine)
    floor.void_slip(slip, "slip torn; the player kept the money", False, swipe(EXE))
    after = counts(engine)
    assert after["meter_entries"] == before["meter_entries"]
    assert after["slip_voids"] == before["slip_voids"] + 1
    assert after["swipe_log"] == before["swipe_log"] + 1
    assert meter_units(engine) == (m, r)
    with Session(engine) as s:
        row = s.scalars(select(SwipeLog).order_by(SwipeLog.id.desc())).first()
    assert row is not None and (row.action, row.outcome, row.role_required) == (
        "void", "accepted", "executive")
    assert verify(engine).ok
    # Activity, read back after a restart, names the void
    (line,) = [a for a in floor.activity() if a.kind == "void"]
    assert line.text == (f"Win slip {slip} VOID by Exe Cutive #X1 (executive) (money not "
                         "returned): slip torn; the player kept the money")


def test_a_void_slip_is_not_printed_again_nor_pending(floor: Floor, engine: Engine) -> None:
    slip = pay(floor, engine, "T1", 1, 3, "SF7_NATURAL")
    assert slip in {p.slip_no for p in floor.pending_slips()}
    floor.void_slip(slip, "paid twice by mistake", True, swipe(EXE))
    assert slip not in {p.slip_no for p in floor.pending_slips()}
    assert slip not in {ln.slip_no for ln in floor.slip_lines(unprinted=True)}
    (line,) = [ln for ln in floor.slip_lines(limit=10) if ln.slip_no == slip]
    assert line.voided


def _refused(floor: Floor, engine: Engine, call: Any, exc: type[Exception], words: str) -> None:
    """``call`` is refused naming the problem; nothing is written but one swipe-log row (the
    refusal, chained after the head: every row before stays as it was)."""
    before = counts(engine)
    n, head = chain_head(engine)
    with pytest.raises(exc, match=words):
        call()
    after = counts(engine)
    assert after.pop("swipe_log") == before.pop("swipe_log") + 1
    assert after == before
    assert chained_tables_since(engine, n) == ["swipe_log"]
    with engine.connect() as conn:
        assert bytes(conn.exec_driver_sql(
            f"SELECT hash FROM ledger_chain WHERE n = {n}").scalar_one()) == head


@pytest.mark.parametrize(("case", "words"), [
    ("unknown slip", "win slip 99: no such slip"),
    ("no reason", "give the reason"),
    ("blank reason", "give the reason"),
    ("control character", "one line of printable text"),
    ("too long", f"at most {MAX_REASON}"),
    ("supervisor", "may not authorize voiding a win slip: it needs an executive|can not "
                   "authorize voiding a win slip: it needs an executive"),
    ("accountant", "authorize voiding a win slip: it needs an executive"),
    ("unknown card", "not enrolled"),
])
def test_each_refusal_names_the_problem_and_changes_nothing(floor: Floor, engine: Engine,
                                                           case: str, words: str) -> None:
    slip = pay(floor, engine, "T1", 1, 3, "SF7_NATURAL")
    m = meter_units(engine)
    exc: type[Exception] = FloorError
    reason, card, no = "a good reason", EXE, slip
    if case == "unknown slip":
        no = 99
    elif case == "no reason":
        reason = ""
    elif case == "blank reason":
        reason = "   "
    elif case == "control character":
        reason = "void\x1bp0 the drawer"
    elif case == "too long":
        reason = "x" * (MAX_REASON + 1)
    elif case in ("supervisor", "accountant", "unknown card"):
        card = {"supervisor": SUP, "accountant": ACC, "unknown card": UNKNOWN}[case]
        exc = AuthError
    _refused(floor, engine, lambda: floor.void_slip(no, reason, True, swipe(card)), exc,
             words)
    assert meter_units(engine) == m
    assert floor.slip_void(slip) is None


def test_an_already_void_slip_is_refused(floor: Floor, engine: Engine) -> None:
    slip = pay(floor, engine, "T1", 1, 3, "SF7_NATURAL")
    floor.void_slip(slip, "first void", False, swipe(EXE))
    _refused(floor, engine, lambda: floor.void_slip(slip, "second void", True, swipe(EXE)),
             FloorError, f"win slip {slip}: already void .* by Exe Cutive #X1 "
                         r"\(executive\): first void")


def test_a_reversal_that_would_take_the_meter_below_zero_is_refused(floor: Floor,
                                                                   engine: Engine) -> None:
    # the meter taken down to 1,000.00 before a 100% award: the award pays ~1,000.60 and the
    # reseed puts 10,000.00 back; then the meter is taken down to almost nothing: giving the
    # award back would take the reseed (10,000.00) off a meter holding ~0.06
    floor.adjust("LINK", "MAIN", -900_000, "test: a low meter", swipe(EXE), swipe(SUP))
    slip = pay(floor, engine, "T1", 1, 3, "SF7_NATURAL")
    held = floor.meter("LINK", "MAIN").meter_units
    floor.adjust("LINK", "MAIN", -(held // UNITS), "test: meter emptied", swipe(EXE),
                 swipe(SUP))
    _refused(floor, engine, lambda: floor.void_slip(slip, "cards switched", True, swipe(EXE)),
             FloorError, "would take the LINK/MAIN meter below zero .* manual adjustment")
    # without the money back it is taken
    floor.void_slip(slip, "cards switched", False, swipe(EXE))
    assert verify(engine).ok


def test_audit_verify_names_a_void_whose_reversal_is_not_the_award_s(floor: Floor,
                                                                    engine: Engine) -> None:
    slip = pay(floor, engine, "T1", 1, 2, "RF_ROYAL_MATCH")
    floor.void_slip(slip, "dealer misread the hand", False, swipe(EXE))
    assert verify(engine).ok
    # Podium's own code (so the chain is whole) writes a reversal naming the award although
    # the void said no money came back, one cent off the award
    with Session(engine) as s:
        award = s.scalars(select(Award)).one()
        (mv,) = [e for e in s.scalars(select(MeterEntry).where(MeterEntry.award_id == award.id))]
        lv = LevelRef(mv.level_id, "LINK", "MAIN")
    with changes.unit(floor.ctx, "test") as u:
        balances.add_entries(u, lv, [balances.entry(
            "reversal", -mv.meter_delta - UNITS, 0, "forged", u.now, reverses_id=mv.id,
            award_id=award.id, hit_id=award.hit_id)])
    report = verify(engine)
    assert not report.ok
    assert [b.check for b in report.breaks] == ["voids"]
    assert f"win slip {slip}: voided without the money back" in report.breaks[0].message


def test_the_console_never_prints_a_void_slip_and_its_preview_says_void(
        engine: Engine, tmp_path: Any) -> None:
    from core.app.demo import enroll_demo_employees, swipe_of
    from printing.escpos.preview import recovered_text
    from printing.escpos.printers import FilePrinter
    from tests.harness import wait_for
    from tests.paid_slips import console, make_slips, slip_floor

    config = slip_floor()
    slip, other = make_slips(engine, config, 2)
    enroll_demo_employees(engine)
    folder = tmp_path / "paper"
    folder.mkdir()
    c = console(engine, config, FilePrinter(folder))
    said: list[str] = []
    c.add_message_listener(said.append)
    try:
        c.floor.void_slip(slip, "paid on the wrong seat", True, swipe_of("2001"))
        before = counts(engine)
        c.print_slip(slip, reprint=True)
        c.print_slip(other)  # queued after it: the void one was passed by
        wait_for(lambda: any(f"slip {other}" in m and "printed" in m for m in said),
                 what="the other slip printed")
        assert len(list(folder.iterdir())) == 1  # the other slip's paper only
        assert any(f"Win slip {slip} is VOID (voided by Evelyn Cruz #2001 (executive): paid "
                   "on the wrong seat): not printed" in m for m in said), said
        after = counts(engine)
        # no print attempt of the void slip: only the other slip's start and outcome
        assert after["slip_print_attempts"] == before["slip_print_attempts"] + 2
        text = recovered_text(c.slip_bytes(slip))
        assert text.lstrip().startswith("VOID") and "paid on the wrong seat" in text
        assert "VOID" not in recovered_text(c.slip_bytes(other))
    finally:
        c.stop()


@pytest.mark.parametrize("lock_at_hit", [False, True], ids=["pay", "lock-at-hit pay"])
def test_the_day_s_reconciliation_shows_the_award_and_its_void_s_reversal(
        floor: Floor, engine: Engine, lock_at_hit: bool) -> None:
    from datetime import date

    from core.desks.accounting import periods, reconcile
    from core.desks.accounting.reconciliation import Flow
    from core.desks.desk import Desk
    from tests.core.tablegames.test_floor import PAYTABLES

    table, group = ("L1", "LOCK") if lock_at_hit else ("T1", "LINK")
    slip = pay(floor, engine, table, 1, 1, "SF7_NATURAL")  # 100%: award, reseed, reserve move
    (hit,) = hit_ids(engine)
    moved = entries_of_hit(engine, hit)
    floor.void_slip(slip, "cards switched", True, swipe(EXE))
    desk = Desk("accountant", engine, floor.config, PAYTABLES)
    # the test clock is 2025-06-01 12:00 UTC: 20:00 in Manila, gaming day 2025-06-01
    rec = reconcile.reconcile(desk, periods.gaming_day(floor.config.casino, date(2025, 6, 1)))
    assert rec.adds_up, rec.problems  # every award still backed by the entries that paid it
    (lv,) = [lv for lv in rec.levels if lv.group_id == group]
    back = Flow(len(moved), -sum(e.meter_delta for e in moved),
                -sum(e.reserve_delta for e in moved))
    assert lv.reversal_parts["awards"] == back  # shown as an award reversed, not a hold
    assert lv.reversal_parts["holds"] == Flow()
    assert lv.lines["award"].entries == 1  # the award stays on the record beside it
