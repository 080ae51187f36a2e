"""A fixed award on an "all pays from meter" link is a pay from the meter, and says so on every
record (issue 27 point 5): the award's source and level, the ``paid`` decision's words, the
verification preview, the win slip (level, meter before and after).  On SQLite and PostgreSQL.

WSGC's recommendations (source 000): "When using a pay table in which all payouts are deducted
from the meter, we recommend utilizing the system to configure meter contribution rates anywhere
between 0-100%"; RULES.md 3: every fixed amount "is paid from the table's tray and does not touch
the meter (unless the group is configured "all pays from meter", section 4)".  Figures are worked
out here by hand: a 1.00 wager at 70% adds 0.70 to the 10,000.00 seed; FOUR_OF_A_KIND pays 75.00
on FPGPP-WA01.
"""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.controllers.events import GameStarted, HitClaimed
from core.floorconfig import loads_floor
from core.ledger.balance_checks import check_balances
from core.ledger.models import Award, HitDecision, Level
from core.people import cardkey
from core.people.auth import add_employee
from core.tablegames.floor import Floor
from printing.escpos.slip import PAPER
from tests.core.tablegames.test_floor import (
    EXE,
    HANDS,
    PAYTABLES,
    SUP,
    UNITS,
    Clock,
    Table,
    hit_ids,
    meter_units,
    swipe,
)
from tests.floors import Group, floor_toml, table
from tests.floors import Level as MeterLevel

FOUR = HANDS["FOUR_OF_A_KIND"].split()


def _floor(engine: Engine) -> Floor:
    toml = floor_toml(groups=[Group("APFM", all_pays_from_meter=True, levels={
        "MAIN": MeterLevel(contribution_rate="0.70", preconfigured_rate="0.70")})],
        tables=[table("A1", 17391, "APFM")])
    f = Floor(engine, loads_floor(toml, "test.toml"), PAYTABLES, clock=Clock(), paper=PAPER)
    f.start()
    f.set_link("A1", True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "S1", "Sue Visor", "supervisor", SUP)
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
    return f


def _paid_reason(engine: Engine, hit: int) -> str:
    with Session(engine) as s:
        return s.scalars(select(HitDecision.reason).where(
            HitDecision.hit_id == hit, HitDecision.decision == "paid")).one()


def test_a_fixed_award_from_the_meter_is_labelled_a_meter_pay_everywhere(
        engine: Engine) -> None:
    floor = _floor(engine)
    a1 = Table(floor, "A1")
    a1.send(GameStarted(1, {3: 100}))
    a1.send(HitClaimed(1, 3, "FOUR_OF_A_KIND"))
    (hit,) = hit_ids(engine)
    # 10,000.00 seed + 70% of the 1.00 wager = 10,000.70; the four of a kind takes 75.00
    assert meter_units(engine, "APFM")[0] == 1_000_070 * UNITS
    shown = floor.evaluate(hit, FOUR)
    assert (shown.amount_cents, shown.source, shown.level, shown.meter_cents) == (
        7_500, "meter", "MAIN", 1_000_070)
    paid = floor.pay(hit, FOUR, swipe(SUP), expected_cents=7_500)
    assert (paid.amount_cents, paid.source, paid.level) == (7_500, "meter", "MAIN")
    assert (paid.meter_before_cents, paid.meter_after_cents) == (1_000_070, 992_570)
    assert meter_units(engine, "APFM")[0] == 992_570 * UNITS
    with Session(engine) as s:
        award = s.scalars(select(Award)).one()
        level = s.get(Level, award.level_id)
        assert award.source == "meter" and level is not None and level.name == "MAIN"
        assert (award.meter_before_cents, award.meter_after_cents) == (1_000_070, 992_570)
    assert _paid_reason(engine, hit).startswith("75.00 from the meter")
    slip = floor.win_slip(paid.slip_no)
    assert (slip.source, slip.level) == ("meter", "MAIN")
    assert (slip.meter_before_cents, slip.meter_after_cents) == (1_000_070, 992_570)
    assert any("Fixed award paid from the MAIN meter" in n for n in slip.notes), slip.notes
    assert check_balances(engine) == []


def test_a_fixed_award_larger_than_the_meter_says_what_the_tray_paid(engine: Engine) -> None:
    """meters.award_fixed: "the meter never goes below zero; the caller pays any shortfall
    from the tray": a meter of 50.00 gives 50.00 of a 75.00 award, the tray 25.00."""
    floor = _floor(engine)
    a1 = Table(floor, "A1")
    a1.send(GameStarted(1, {3: 100}))
    floor.adjust("APFM", "MAIN", 5_000 - 1_000_070, "bring the meter to 50.00", swipe(EXE),
                 swipe(SUP))
    a1.send(HitClaimed(1, 3, "FOUR_OF_A_KIND"))
    (hit,) = hit_ids(engine)
    paid = floor.pay(hit, FOUR, swipe(SUP), expected_cents=7_500)
    assert (paid.amount_cents, paid.meter_before_cents, paid.meter_after_cents) == (
        7_500, 5_000, 0)
    assert _paid_reason(engine, hit).startswith(
        "75.00: 50.00 from the meter and 25.00 from the tray")
    slip = floor.win_slip(paid.slip_no)
    assert slip.source == "meter" and any("25.00 from the table tray" in n
                                          for n in slip.notes), slip.notes
    assert check_balances(engine) == []


def test_the_reconciliation_takes_a_short_meters_fixed_award_as_backed(engine: Engine) -> None:
    """The award's entries took 50.00 of its 75.00: all the meter held before it (the tray
    paid 25.00), so the award is backed and the day adds up."""
    from datetime import date

    from core.desks.accounting import periods, reconcile
    from core.desks.desk import Desk

    floor = _floor(engine)
    a1 = Table(floor, "A1")
    a1.send(GameStarted(1, {3: 100}))
    floor.adjust("APFM", "MAIN", 5_000 - 1_000_070, "bring the meter to 50.00", swipe(EXE),
                 swipe(SUP))
    a1.send(HitClaimed(1, 3, "FOUR_OF_A_KIND"))
    (hit,) = hit_ids(engine)
    floor.pay(hit, FOUR, swipe(SUP), expected_cents=7_500)
    desk = Desk("accountant", engine, floor.config, PAYTABLES)
    rec = reconcile.reconcile(desk, periods.gaming_day(desk.config.casino, date(2025, 6, 1)))
    assert rec.adds_up, rec.problems
