"""Jackpot Lock done right (issue 10): every floor decision pays what the rules say, on every
path, on SQLite and PostgreSQL.

Expected amounts are computed here with integers and Decimal straight from RULES.md sections 3-4
(not with core.tablegames.meters.arithmetic): a share rounds DOWN to the cent and the rest
stays; a 100% award restarts the meter at seed + reserve + the leftover fraction of a cent;
several hits in one round are paid from the dealer's right (highest seat first), each on what
the previous left.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.controllers.events import GameEnded, GameStarted, HitClaimed, Misdealt, Undone
from core.ledger.balance_checks import check_balances
from core.ledger.models import (
    Award,
    Hit,
    HitDecision,
    MeterEntry,
    RefusedEvent,
    Round,
    Slip,
    Wager,
)
from core.tablegames.floor import Floor
from core.tablegames.views import FloorError
from printing.escpos.slip import PAPER
from tests.core.tablegames.test_floor import (
    EXE,
    HANDS,
    SUP,
    UNITS,
    Table,
    cards,
    hit_ids,
    meter_units,
)
from tests.core.tablegames.test_floor import floor as floor  # noqa: F401  (the fixture)
from tests.floors import Group, Level, floor_toml, table

SEED = 1_000_000 * UNITS  # 10,000.00


def _set_meter(floor: Floor, engine: Engine, group: str, cents: int) -> None:
    """Bring a level's meter to exactly ``cents`` (whole cents) by a manual adjustment."""
    m, _r = meter_units(engine, group)
    assert m % UNITS == 0
    floor.adjust(group, "MAIN", cents - m // UNITS, "bring to the test's meter", swipe_of(EXE),
                 swipe_of(SUP))
    assert meter_units(engine, group)[0] == cents * UNITS


def swipe_of(card: str) -> str:
    return f"%B{card}^TEST/CARD^2912101?;{card}=2912101?"


def _awards(engine: Engine) -> dict[int, int]:
    """seat -> cents awarded."""
    with Session(engine) as s:
        return {h.seat: a.amount_cents for a, h in s.execute(
            select(Award, Hit).join(Hit, Hit.id == Award.hit_id))}


# --- 1. lock at hit: the round's hits are fixed in pay order, not in arrival order ---------


def test_lock_at_hit_fixes_a_rounds_hits_in_seat_order_whatever_order_they_came_in(
        floor: Floor, engine: Engine) -> None:
    l1 = Table(floor, "L1")
    l1.send(GameStarted(1, {2: 100, 6: 100}))
    _set_meter(floor, engine, "LOCK", 1_000_060)  # 10,000.60
    m, r = meter_units(engine, "LOCK")
    l1.send(HitClaimed(1, 2, "SF7_NATURAL"))  # 100%, pressed first
    l1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))  # 50%, pressed second
    h2, h6 = hit_ids(engine)
    # seat 6 (dealer's right) first: 50% of 10,000.60 = 5,000.30; seat 2 takes the rest
    six = (m // 2) // UNITS
    two = (m - six * UNITS) // UNITS
    assert (six, two) == (500_030, 500_030)
    assert floor.evaluate(h2, HANDS["SF7_NATURAL"].split()).amount_cents == two
    assert floor.evaluate(h6, HANDS["RF_ROYAL_MATCH"].split()).amount_cents == six
    # either may be paid first: the amounts were fixed at the hits, in seat order
    assert floor.pay(h2, HANDS["SF7_NATURAL"].split(), swipe_of(EXE)).amount_cents == two
    assert floor.pay(h6, HANDS["RF_ROYAL_MATCH"].split(), swipe_of(EXE)).amount_cents == six
    assert _awards(engine) == {2: two, 6: six}
    left = m - (six + two) * UNITS
    assert meter_units(engine, "LOCK") == (SEED + r + left, 0)
    assert check_balances(engine) == []


def test_a_rejected_hit_gives_its_share_back_and_the_rest_of_the_round_is_fixed_again(
        floor: Floor, engine: Engine) -> None:
    l1 = Table(floor, "L1")
    l1.send(GameStarted(1, {2: 100, 6: 100}))
    _set_meter(floor, engine, "LOCK", 1_000_000)
    m, r = meter_units(engine, "LOCK")
    l1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    l1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    h6, h2 = hit_ids(engine)
    assert floor.evaluate(h2, HANDS["RF_ROYAL_MATCH"].split()).amount_cents == 250_000
    # its locked 5,000.00 is executive-level: rejecting it needs an executive too
    floor.reject(h6, "surveillance: seat 6 had no royal match", swipe_of(EXE))
    # seat 2 is now the round's only hit: half of the whole meter
    assert floor.evaluate(h2, HANDS["RF_ROYAL_MATCH"].split()).amount_cents == 500_000
    assert floor.pay(h2, HANDS["RF_ROYAL_MATCH"].split(), swipe_of(EXE)).amount_cents == 500_000
    assert meter_units(engine, "LOCK") == (m - 500_000 * UNITS, r)
    assert check_balances(engine) == []


def test_a_hit_of_a_later_round_does_not_move_an_earlier_rounds_fixed_amount(
        floor: Floor, engine: Engine) -> None:
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {1: 100}))
    l2.send(GameStarted(1, {1: 100}))
    _set_meter(floor, engine, "LOCK", 2_000_000)
    l1.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))  # 10,000.00 fixed
    l2.send(HitClaimed(1, 1, "RF_ROYAL_MATCH"))  # on what L1's hit left: 5,000.00
    h1, h2 = hit_ids(engine)
    assert floor.pay(h2, HANDS["RF_ROYAL_MATCH"].split(), swipe_of(EXE)).amount_cents == 500_000
    assert floor.pay(h1, HANDS["RF_ROYAL_MATCH"].split(), swipe_of(EXE)).amount_cents == 1_000_000


# --- 2. a misdeal or an undone START GAME is never refused ---------------------------------


@pytest.mark.parametrize("how", ["misdeal", "undo"])
def test_a_round_is_reversed_even_after_a_full_award_emptied_the_reserve(
        floor: Floor, engine: Engine, how: str) -> None:
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {1: 100, 2: 100, 3: 100}))  # 3 x (0.20 meter + 0.02 reserve)
    l2.send(GameStarted(1, {4: 100}))
    l2.send(HitClaimed(1, 4, "SF7_NATURAL"))  # 100%: reseeded, the reserve moved to 0
    m, r = meter_units(engine, "LOCK")
    assert r == 0
    assert l1.send(Misdealt(1) if how == "misdeal" else Undone(1, "START_GAME"))
    with Session(engine) as s:
        rnd = s.scalars(select(Round).where(Round.table_id == "L1")).one()
        assert rnd.state == ("misdealt" if how == "misdeal" else "undone")
        assert {w.status for w in s.scalars(select(Wager).where(Wager.round_id == rnd.id))} \
            == {"returned"}
        reversals = list(s.scalars(select(MeterEntry).where(
            MeterEntry.round_id == rnd.id, MeterEntry.kind == "reversal")))
    # the round's 0.66 comes back out of the link: 0.06 of it from the meter, where the
    # reserve went at the reseed (the reserve holds nothing)
    assert meter_units(engine, "LOCK") == (m - 66 * UNITS, 0)
    assert sum(e.meter_delta + e.reserve_delta for e in reversals) == -66 * UNITS
    assert all(e.reverses_id is not None and e.reason for e in reversals)
    assert check_balances(engine) == []
    # a second misdeal of the same round is refused (it is no longer in play): nothing twice
    with pytest.raises(FloorError, match=f"round 1 is already {rnd.state}"):
        l1.send(Misdealt(1))
    assert meter_units(engine, "LOCK") == (m - 66 * UNITS, 0)


def test_a_misdeal_takes_back_only_what_the_link_still_holds(floor: Floor,
                                                               engine: Engine) -> None:
    """A meter can not go below zero: what was already paid out is named, not taken."""
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {1: 100}))
    l2.send(GameStarted(1, {2: 100}))
    _set_meter(floor, engine, "LOCK", 100)  # 1.00 on the meter
    m, r = meter_units(engine, "LOCK")
    l2.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))  # locks 0.50
    floor.adjust("LOCK", "MAIN", -50, "bring the meter to zero", swipe_of(EXE), swipe_of(SUP))
    assert meter_units(engine, "LOCK")[0] == 0
    assert l1.send(Misdealt(1))
    left_m, left_r = meter_units(engine, "LOCK")
    assert left_m >= 0 and left_r >= 0
    assert (left_m, left_r) == (0, max(0, r - 2 * UNITS))
    with Session(engine) as s:
        notes = [e.reason for e in s.scalars(select(MeterEntry).where(
            MeterEntry.kind == "reversal"))]
    assert any("already paid out" in n for n in notes), notes
    assert check_balances(engine) == []


def test_the_bad_input_of_a_round_has_one_outcome_and_loses_no_money(floor: Floor,
                                                                     engine: Engine) -> None:
    t1 = Table(floor, "T1")
    start = meter_units(engine)
    with pytest.raises(FloorError, match="round 9 was never started"):
        t1.send(Misdealt(9))  # a round that never started: refused and kept, nothing reversed
    assert meter_units(engine) == start
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "FULL_HOUSE", cards("FULL_HOUSE")))  # auto-paid
    with pytest.raises(FloorError, match="already auto-paid"):
        t1.send(Undone(1, "HIT", seat=1))  # UNDO of a paid hit: refused, the pay stands
    with Session(engine) as s:
        assert s.scalars(select(Hit)).one().status == "auto_paid"
        assert [r.type for r in s.scalars(select(RefusedEvent).order_by(RefusedEvent.id))] == [
            "Misdealt", "Undone"]
    t1.send(GameStarted(2, {2: 100}))
    t1.send(HitClaimed(2, 2, "RF_ROYAL_MATCH"))
    t1.send(GameEnded(2))  # END GAME with a hit waiting: the hit still waits
    with Session(engine) as s:
        assert s.scalars(select(Hit).where(Hit.round_no == 2)).one().status == "pending"
        events = {d.decision for d in s.scalars(select(HitDecision))}
    assert "auto_paid" in events
    assert check_balances(engine) == []


# --- 3. a share that rounds to nothing pays 0.00, with a slip that says so ----------------


def test_a_share_that_rounds_down_to_nothing_pays_zero_with_a_slip_that_says_so(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {6: 100}))
    _set_meter(floor, engine, "LINK", 1)  # 0.01 on the meter: 50% of it is half a cent
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    v = floor.evaluate(hit, HANDS["RF_ROYAL_MATCH"].split())
    assert v.amount_cents == 0 and v.payable
    paid = floor.pay(hit, HANDS["RF_ROYAL_MATCH"].split(), swipe_of(EXE))
    assert paid.amount_cents == 0
    assert meter_units(engine)[0] == UNITS  # the cent stays in the meter
    with Session(engine) as s:
        slip = s.scalars(select(Slip)).one()
    from printing.escpos.preview import recovered_text

    text = " ".join(recovered_text(slip.escpos).split())
    assert "0.00" in text and "rounds down to nothing" in text
    assert check_balances(engine) == []


# --- 4. secondary verification: only the lowest fixed pay is auto-paid by default ---------


def test_four_of_a_kind_waits_for_a_supervisor_and_the_full_house_is_auto_paid(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    t1.send(HitClaimed(1, 1, "FOUR_OF_A_KIND", cards("FOUR_OF_A_KIND")))
    t1.send(HitClaimed(1, 2, "FULL_HOUSE", cards("FULL_HOUSE")))
    with Session(engine) as s:
        status = {h.seat: h.status for h in s.scalars(select(Hit))}
    assert status == {1: "pending", 2: "auto_paid"}
    four = hit_ids(engine)[0]
    paid = floor.pay(four, HANDS["FOUR_OF_A_KIND"].split(), swipe_of(SUP))
    assert paid.amount_cents == 7_500 and paid.authorized_by == "S1"
    with Session(engine) as s:
        slips = {sl.hit_id: sl for sl in s.scalars(select(Slip))}
    from printing.escpos.preview import recovered_text

    verified = " ".join(recovered_text(slips[four].escpos).split())
    assert "Verified Sue Visor" in verified and "No. S1, supervisor" in verified
    auto = " ".join(recovered_text(slips[hit_ids(engine)[1]].escpos).split())
    assert "NO SECONDARY VERIFICATION" in auto.upper()


def test_the_floor_file_may_auto_pay_other_fixed_pays_but_never_a_meter_pay(
        engine: Engine) -> None:
    from core.floorconfig import FloorConfigError, loads_floor, validate
    from tests.core.tablegames.test_floor import FLOOR_TOML, PAYTABLES, Clock

    text = FLOOR_TOML.format(rate="0.20").replace(
        'id = "LINK"\npaytable = "FPGPP-WA01"\n',
        'id = "LINK"\npaytable = "FPGPP-WA01"\n'
        'auto_pay_hands = ["FULL_HOUSE", "FOUR_OF_A_KIND"]\n')
    config = loads_floor(text, "test.toml")
    validate(config, PAYTABLES)
    f = Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER)
    f.start()
    f.set_link("T1", True)
    t1 = Table(f, "T1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "FOUR_OF_A_KIND", cards("FOUR_OF_A_KIND")))
    with Session(engine) as s:
        assert s.scalars(select(Hit)).one().status == "auto_paid"
    bad = loads_floor(text.replace('"FOUR_OF_A_KIND"]', '"RF_ROYAL_MATCH"]'), "test.toml")
    with pytest.raises(FloorConfigError, match="RF_ROYAL_MATCH is not a fixed pay of "
                       "FPGPP-WA01.*a meter pay always waits"):
        validate(bad, PAYTABLES)


# --- 6. Fortune and Face Up tables, $1 and $5, on one meter -----------------------------------

LINKED_FLOOR = floor_toml(
    groups=[Group("WA03", "FPGPP-WA03",
                  levels={"MAIN": Level(preconfigured_seed="10000", preconfigured_rate="0.200")})],
    tables=[table("F1", 17401, "WA03"), table("U5", 17402, "WA03", paytable="FUPGPP-03")])


def test_a_five_dollar_face_up_table_shares_the_one_dollar_fortune_meter(engine: Engine) -> None:
    from core.floorconfig import loads_floor, validate
    from core.people import cardkey
    from core.people.auth import add_employee
    from tests.core.tablegames.test_floor import PAYTABLES, Clock

    config = loads_floor(LINKED_FLOOR, "linked.toml")
    validate(config, PAYTABLES)
    f = Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER)
    f.start()
    for t in ("F1", "U5"):
        f.set_link(t, True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "S1", "Sue Visor", "supervisor", SUP)
    f1, u5 = Table(f, "F1"), Table(f, "U5")
    f1.send(GameStarted(1, {1: 100}))
    u5.send(GameStarted(1, {1: 500, 2: 100}))  # $5 is the U5 wager; $1 there is refused
    with Session(engine) as s:
        wagers = {(w.round_id, w.seat): w.status for w in s.scalars(select(Wager))}
    assert sorted(wagers.values()) == ["locked", "locked", "refused"]
    m, r = meter_units(engine, "WA03")
    assert (m, r) == (SEED + (20 + 100) * UNITS, (2 + 10) * UNITS)  # both feed one meter
    u5.send(HitClaimed(1, 1, "FOUR_OF_A_KIND", cards("FOUR_OF_A_KIND")))
    (hit,) = hit_ids(engine)
    assert f.pay(hit, HANDS["FOUR_OF_A_KIND"].split(), swipe_of(SUP)).amount_cents == 37_500
    with Session(engine) as s:
        slip = s.scalars(select(Slip)).one()
    from printing.escpos.preview import recovered_text

    assert "FUPGPP-03" in recovered_text(slip.escpos)


# --- 8. parameter changes are records ---------------------------------------------------------


def test_every_parameter_change_between_two_starts_is_a_ledger_record(engine: Engine) -> None:
    import hashlib

    from core.floorconfig import loads_floor
    from core.ledger.models import ParameterChange
    from tests.approvals import approve_floor
    from tests.core.tablegames.test_floor import FLOOR_TOML, PAYTABLES, Clock

    def start(text: str) -> list[str]:
        return Floor(engine, loads_floor(text, "casino.toml"), PAYTABLES, clock=Clock(),
                     paper=PAPER).start()

    def rows() -> list[ParameterChange]:
        with Session(engine) as s:
            return list(s.scalars(select(ParameterChange).order_by(ParameterChange.id)))

    first = FLOOR_TOML.format(rate="0.20")
    notes = start(first)
    recorded = rows()
    assert recorded and all(r.old_value == "" for r in recorded)
    assert any(n.startswith(f"parameters recorded: {len(recorded)} from casino.toml")
               for n in notes)
    assert not any("parameter" in n for n in start(first))
    assert len(rows()) == len(recorded)  # the same file again: nothing new

    second = first.replace('contribution_rate = "0.20"\npreconfigured_rate = "0.200"\n'
                           'reserve_rate = "0.02"\n[[groups]]\nid = "LOCK"',
                           'contribution_rate = "0.15"\npreconfigured_rate = "0.200"\n'
                           'reserve_rate = "0.02"\n[[groups]]\nid = "LOCK"', 1)
    second = second.replace('seed = "10000.00"', 'seed = "12000.00"', 1)
    assert second != first
    approve_floor(engine, loads_floor(second, "casino.toml"))  # they decide what tables pay
    notes = start(second)
    new = [r for r in rows()[len(recorded):]  # the approver's card key noted apart
           if r.scope != "ledger"]
    assert {(r.subject, r.name, r.old_value, r.new_value) for r in new} == {
        ("LINK/MAIN", "contribution_rate", "0.20", "0.15"),
        ("LINK/MAIN", "seed", "10000.00", "12000.00")}
    sha = hashlib.sha256(second.encode()).hexdigest()
    assert all(r.file_sha256 == sha and r.source == "casino.toml" for r in new)
    seed_row = next(r for r in new if r.name == "seed")
    assert "next reseed" in seed_row.effective
    assert sum("parameter change: level LINK/MAIN" in n for n in notes) == 2
