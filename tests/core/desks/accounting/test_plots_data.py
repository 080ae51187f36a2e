"""The figures of the desks' plots (core/desks/accounting/plots_data.py), to the unit and the count,
on SQLite and PostgreSQL, from the known gaming day of tests/day_ledger.py."""

from __future__ import annotations

from datetime import date, timedelta
from fractions import Fraction

import pytest
from sqlalchemy import Engine

from core.desks.accounting.periods import gaming_day, gaming_days, parse_period
from core.desks.accounting.plots_data import (
    PlotDataError,
    contributions_per_hour,
    hits_against_expected,
    meter_day,
    meter_days,
)
from core.kernel.money import UNITS_PER_CENT
from core.tablegames.rules.enumerate import count_hands
from tests.core.tablegames.test_floor import PAYTABLES
from tests.day_ledger import at, build_day
from tests.desk_helpers import read_only_desk

U = UNITS_PER_CENT


@pytest.fixture
def desk(engine: Engine):  # type: ignore[no-untyped-def]
    floor = build_day(engine)
    return read_only_desk(engine, floor.config, PAYTABLES, role="accountant")


def test_meter_over_the_gaming_day_steps_at_every_change_and_marks_the_pay(desk) -> None:  # type: ignore[no-untyped-def]
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    assert (day.start, day.end) == (at(31, 22, 0), at(1, 22, 0))
    m = meter_day(desk, day, "LINK", "MAIN")
    assert m.opening_units == 1_000_040 * U
    assert [p.meter_units // U for p in m.points] == [1_000_100, 1_000_120, 1_000_012,
                                                       1_000_092, 1_000_112]
    assert [p.at.replace(second=0, microsecond=0) for p in m.points] == [
        at(31, 22, 10), at(31, 23, 5), at(31, 23, 20), at(1, 1, 30), at(1, 21, 50)]
    assert m.closing_units == 1_000_112 * U
    (award,) = m.awards
    assert (award.table, award.seat, award.hand, award.amount_cents,
            award.meter_before_cents) == ("T2", 1, "SF7_NATURAL", 1_000_120, 1_000_120)
    assert award.at.replace(second=0, microsecond=0) == at(31, 23, 20)


def test_meter_over_part_of_an_hour_opens_where_the_meter_stood(desk) -> None:  # type: ignore[no-untyped-def]
    p = parse_period(desk.config.casino, start="2025-06-01 06:30", end="2025-06-01 08:00")
    assert p.start == at(31, 22, 30)
    m = meter_day(desk, p, "LINK", "MAIN")
    assert m.opening_units == 1_000_100 * U
    assert [x.meter_units // U for x in m.points] == [1_000_120, 1_000_012]
    assert m.closing_units == 1_000_012 * U


def test_contributions_per_hour_of_the_gaming_day(desk) -> None:  # type: ignore[no-untyped-def]
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    bars = contributions_per_hour(desk, day, "LINK")
    assert len(bars) == 24 and bars[0].start == day.start and bars[-1].end == day.end
    got = {b.start: (b.contribution_units["MAIN"], b.reserve_units["MAIN"]) for b in bars
           if b.total_units}
    # 20% and 2% of $1 per wager: 3, 1, 4 and 1 wagers
    assert got == {at(31, 22, 0): (60 * U, 6 * U), at(31, 23, 0): (20 * U, 2 * U),
                   at(1, 1, 0): (80 * U, 8 * U), at(1, 21, 0): (20 * U, 2 * U)}


def test_contributions_of_partial_hours_come_from_the_entries(desk) -> None:  # type: ignore[no-untyped-def]
    p = parse_period(desk.config.casino, start="2025-06-01 06:30", end="2025-06-01 08:00")
    bars = contributions_per_hour(desk, p, "LINK")
    assert [(b.start, b.end) for b in bars] == [(at(31, 22, 30), at(31, 23, 30)),
                                                (at(31, 23, 30), at(1, 0, 0))]
    assert [b.contribution_units["MAIN"] for b in bars] == [20 * U, 0]


def _chance_of_main() -> Fraction:
    """Independently of plots_data: the hands whose best listed pay is a MAIN pay, over all
    7-card hands of the 53-card deck."""
    table = PAYTABLES["FPGPP-WA01"]
    counts = count_hands(table.joker)
    best = counts.best_listed(p.hand for p in table.pays)
    main = sum(best[p.hand] for p in table.pays if p.level == "MAIN")
    return Fraction(main, counts.total)


def test_hits_against_the_exact_expected_rate(desk) -> None:  # type: ignore[no-untyped-def]
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    (main,) = hits_against_expected(desk, day, "LINK")
    assert (main.level, main.observed, main.wagers) == ("MAIN", 1, 9)
    assert main.probability == _chance_of_main()
    assert main.expected == 9 * _chance_of_main()
    two = gaming_days(desk.config.casino, date(2025, 5, 31), date(2025, 6, 1))
    assert hits_against_expected(desk, two, "LINK")[0].wagers == 11  # round 1 too
    part = parse_period(desk.config.casino, start="2025-06-01 06:30", end="2025-06-01 08:00")
    assert hits_against_expected(desk, part, "LINK")[0].wagers == 1


def test_a_plot_of_an_unknown_group_or_level_or_too_long_is_named(desk) -> None:  # type: ignore[no-untyped-def]
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    with pytest.raises(PlotDataError, match="group 'NOPE' is not in the ledger"):
        contributions_per_hour(desk, day, "NOPE")
    with pytest.raises(PlotDataError, match="group LINK: no level 'MEGA'"):
        meter_day(desk, day, "LINK", "MEGA")
    long = gaming_days(desk.config.casino, date(2025, 6, 1), date(2025, 6, 1) + timedelta(40))
    with pytest.raises(PlotDataError, match="longer than 31 days"):
        meter_day(desk, long, "LINK", "MAIN")


def test_the_meters_of_a_group_are_every_level_in_the_floor_order(desk) -> None:  # type: ignore[no-untyped-def]
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    days = meter_days(desk, day, "LINK")
    assert [m.level for m in days] == [lv.name for lv in desk.config.group("LINK").levels]
    assert days[0] == meter_day(desk, day, "LINK", days[0].level)
    with pytest.raises(PlotDataError, match="group 'NOPE' is not in the ledger"):
        meter_days(desk, day, "NOPE")
