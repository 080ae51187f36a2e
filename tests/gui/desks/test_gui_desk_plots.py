"""The desks' plots (gui/desks/desk_plots.py) show the exact figures of
core/desks/accounting/plots_data.py
for a period; with PODIUM_SCREENSHOT_DIR set, a busy gaming day is drawn into screenshots."""

from __future__ import annotations

import os
from datetime import date
from fractions import Fraction
from pathlib import Path

from sqlalchemy import Engine

from core.desks.accounting.periods import gaming_day
from gui.desks.desk_plots import (
    ContributionsPlot,
    HitsExpectedPlot,
    MeterDayPlot,
    fraction_text,
    one_in,
)
from tests.core.tablegames.test_floor import PAYTABLES
from tests.day_ledger import build_busy_day, build_day
from tests.desk_helpers import read_only_desk


def _desk(engine: Engine):  # type: ignore[no-untyped-def]
    floor = build_day(engine)
    return read_only_desk(engine, floor.config, PAYTABLES, role="accountant")


def _shown(qtbot, widget) -> None:  # type: ignore[no-untyped-def]
    qtbot.addWidget(widget)
    widget.resize(900, 520)
    widget.show()
    widget.refresh()
    qtbot.waitUntil(lambda: widget.data is not None or bool(widget.error), timeout=30_000)
    assert not widget.error


def test_the_meter_plot_steps_through_the_day_and_marks_the_pay(qtbot, sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    desk = _desk(sqlite_engine)
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    w = MeterDayPlot(desk, day, "LINK")
    _shown(qtbot, w)
    xs, ys = w.curves["MAIN"].getData()
    assert xs[0] == day.start.timestamp() and xs[-1] == day.end.timestamp()
    assert [round(y, 2) for y in ys] == [10000.40, 10001.00, 10001.20, 10000.12, 10000.92,
                                         10001.12, 10001.12]
    mx, my = w.marks["MAIN"].getData()
    assert list(my) == [10001.20]
    # the line holds each value until the next change: the pay is a drop at its moment
    from tests.gui.tablegames.test_gui_meter_tile import value_at

    assert value_at(w.curves["MAIN"], mx[0] - 1) == 10001.20
    assert round(value_at(w.curves["MAIN"], mx[0]), 2) == 10000.12
    assert round(value_at(w.curves["MAIN"], day.start.timestamp() + 60), 2) == 10000.40
    assert "2025-06-01" in w.title.text()
    assert "opened $10,000.40, closed $10,001.12; 1 pay $10,001.20" in w.figures.text()


def test_the_contributions_plot_has_a_bar_per_hour(qtbot, sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    desk = _desk(sqlite_engine)
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    w = ContributionsPlot(desk, day, "LINK")
    _shown(qtbot, w)
    opts = w.bars["MAIN"].opts
    assert len(opts["height"]) == 24
    assert [round(h, 2) for h in opts["height"] if h] == [0.66, 0.22, 0.88, 0.22]
    assert "To the meters $1.80, to the reserves $0.18" in w.figures.text()
    assert "busiest hour 09:00" in w.figures.text()  # 01:00 UTC in Manila


def test_the_hits_plot_sets_hits_against_the_expected_number(qtbot, sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    desk = _desk(sqlite_engine)
    day = gaming_day(desk.config.casino, date(2025, 6, 1))
    w = HitsExpectedPlot(desk, day, "LINK")
    _shown(qtbot, w)
    (main,) = w.data
    assert list(w.observed.opts["height"]) == [1]
    assert w.expected.opts["height"][0] == float(main.expected)
    assert "9 progressive wagers" in w.figures.text()
    assert f"MAIN</b>: 1 hit paid, expected {fraction_text(main.expected)}" in w.figures.text()


def test_a_plot_of_an_unknown_group_says_so(qtbot, sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    desk = _desk(sqlite_engine)
    w = ContributionsPlot(desk, gaming_day(desk.config.casino, date(2025, 6, 1)), "NOPE")
    qtbot.addWidget(w)
    w.refresh()
    qtbot.waitUntil(lambda: bool(w.error), timeout=30_000)
    assert "group 'NOPE' is not in the ledger" in w.figures.text()
    assert "Traceback" not in w.figures.text()


def test_exact_figures_read_as_decimals() -> None:
    assert fraction_text(Fraction(9, 4)) == "2.25"
    assert fraction_text(Fraction(27, 100_000)) == "0.00027"
    assert one_in(Fraction(1, 3_000_000)) == "1 in 3,000,000"
    assert one_in(Fraction(0)) == "never"


def test_screenshots_of_a_busy_day(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    shots = os.environ.get("PODIUM_SCREENSHOT_DIR")
    if not shots:
        return
    from core.ledger.db import make_engine
    from tests.ledgers import migrate

    engine = make_engine(f"sqlite:///{tmp_path / 'busy.sqlite3'}")
    migrate(engine)
    config, day_ = build_busy_day(engine)
    desk = read_only_desk(engine, config, PAYTABLES, role="accountant")
    day = gaming_day(config.casino, day_)
    for cls, name, group in ((MeterDayPlot, "plot-meter-day.png", "ML2"),
                             (ContributionsPlot, "plot-contributions-hour.png", "ML2"),
                             (HitsExpectedPlot, "plot-hits-expected.png", "ML2")):
        w = cls(desk, day, group)
        qtbot.addWidget(w)
        w.resize(1100, 900 if cls is MeterDayPlot else 620)
        w.show()
        w.refresh()
        qtbot.waitUntil(lambda w=w: w.data is not None or bool(w.error), timeout=60_000)
        assert not w.error
        qtbot.wait(100)
        Path(shots).mkdir(parents=True, exist_ok=True)
        w.grab().save(str(Path(shots) / name))


def test_the_desks_plots_tab_shows_the_chosen_day_and_shift(qtbot, sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QDate

    from gui.desks.desk_plots import DeskPlots

    desk = _desk(sqlite_engine)
    tab = DeskPlots(desk)
    qtbot.addWidget(tab)
    tab.resize(1000, 700)
    tab.day_edit.setDate(QDate(2025, 6, 1))
    tab.group_box.setCurrentIndex(tab.group_box.findData("LINK"))
    tab.show()
    tab.refresh()
    meter, contributions, hits = tab.plots
    qtbot.waitUntil(lambda: meter.data is not None and contributions.data is not None
                    and hits.data is not None, timeout=30_000)
    assert meter.data[0].closing_units == 1_000_112 * 1_000_000
    assert len(contributions.data) == 24 and hits.data[0].wagers == 9
    assert tab.pages.count() == 3 and "Gaming day 2025-06-01" in meter.title.text()
    # the Day shift (06:00-14:00 local = 22:00-06:00 UTC): rounds 2, 3 and the hit
    tab.shift_box.setCurrentIndex(tab.shift_box.findData("Day"))
    tab.refresh()
    qtbot.waitUntil(lambda: "Day shift" in meter.title.text() and meter.data[0].period.label
                    .startswith("Day shift"), timeout=30_000)
    qtbot.waitUntil(lambda: hits.data[0].wagers == 8, timeout=30_000)  # 3 + 1 + 4
    if os.environ.get("PODIUM_SCREENSHOT_DIR"):
        tab.pages.setCurrentIndex(0)
        qtbot.wait(100)
        tab.grab().save(str(Path(os.environ["PODIUM_SCREENSHOT_DIR"]) / "desk-plots-tab.png"))
