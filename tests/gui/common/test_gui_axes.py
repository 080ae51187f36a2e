"""Plot axes (gui/common/axes.py): money reads as money with the casino's symbol, time as the
casino's clock, whatever the computer's own time zone."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from core.kernel.money import DOLLARS, Currency
from gui.common.axes import LocalTimeAxis, MoneyAxis, local_clock, local_ticks, money_tick

PESOS = Currency("PHP", "en_PH")
MANILA = ZoneInfo("Asia/Manila")  # UTC+8
NEW_YORK = ZoneInfo("America/New_York")  # UTC-5 in winter, -4 in summer
KOLKATA = ZoneInfo("Asia/Kolkata")  # UTC+5:30


def test_money_ticks_have_the_symbol_separators_and_two_decimals() -> None:
    assert money_tick(25000.4) == "$25,000.40"
    assert money_tick(24999.6) == "$24,999.60"
    assert money_tick(1234567.005, PESOS) == "₱1,234,567.01"  # rounded to the cent, half up
    assert money_tick(0.0) == "$0.00"
    assert money_tick(-12.5) == "-$12.50"
    assert money_tick(float("nan")) == "" and money_tick(float("inf")) == ""


def test_the_money_axis_labels_every_tick_as_money(qapp) -> None:  # type: ignore[no-untyped-def]
    axis = MoneyAxis("left", PESOS)
    assert axis.tickStrings([25000.4, 25000.6], 1, 0.2) == ["₱25,000.40", "₱25,000.60"]
    assert axis.tickStrings([10_000.0, 20_000.0], 1, 10_000) == ["₱10,000.00", "₱20,000.00"]


def test_time_ticks_read_as_the_casino_clock() -> None:
    t = datetime(2026, 12, 3, 9, 30, tzinfo=UTC).timestamp()
    assert local_clock(t, MANILA) == "17:30"
    assert local_clock(t, NEW_YORK) == "04:30"
    assert local_clock(t, KOLKATA) == "15:00"
    assert local_clock(t, ZoneInfo("UTC")) == "09:30"
    assert local_clock(t, MANILA, 86400) == "Dec 03"
    summer = datetime(2026, 7, 3, 9, 30, tzinfo=UTC).timestamp()
    assert local_clock(summer, NEW_YORK) == "05:30"  # daylight-saving time


def test_time_ticks_fall_on_round_local_times() -> None:
    lo = datetime(2026, 12, 3, 9, 10, tzinfo=UTC).timestamp()
    hi = datetime(2026, 12, 3, 12, 10, tzinfo=UTC).timestamp()
    assert [local_clock(t, KOLKATA) for t in local_ticks(lo, hi, 3600, KOLKATA)] == [
        "15:00", "16:00", "17:00"]
    assert [local_clock(t, MANILA) for t in local_ticks(lo, hi, 3600, MANILA)] == [
        "18:00", "19:00", "20:00"]
    assert [local_clock(t, MANILA) for t in local_ticks(lo, lo + 3600, 1800, MANILA)] == [
        "17:30", "18:00"]


def test_hour_ticks_stay_on_the_hour_across_a_daylight_saving_change() -> None:
    # New York, 2026-11-01: 02:00 EDT falls back to 01:00 EST
    lo = datetime(2026, 11, 1, 3, 30, tzinfo=UTC).timestamp()  # 23:30 EDT on Oct 31
    hi = datetime(2026, 11, 1, 9, 30, tzinfo=UTC).timestamp()  # 04:30 EST
    labels = [local_clock(t, NEW_YORK) for t in local_ticks(lo, hi, 3600, NEW_YORK)]
    assert labels == ["00:00", "01:00", "01:00", "02:00", "03:00", "04:00"]
    days = local_ticks(lo - 3 * 86400, hi + 3 * 86400, 86400, NEW_YORK)
    assert [local_clock(t, NEW_YORK, 86400) for t in days] == [
        "Oct 29", "Oct 30", "Oct 31", "Nov 01", "Nov 02", "Nov 03", "Nov 04"]
    assert all(datetime.fromtimestamp(t, NEW_YORK).hour == 0 for t in days)


def test_the_time_axis_chooses_a_step_that_leaves_room_for_its_labels(qapp) -> None:  # type: ignore[no-untyped-def]
    axis = LocalTimeAxis(MANILA)
    lo = datetime(2026, 12, 2, 22, 0, tzinfo=UTC).timestamp()  # 06:00 local
    ((step, ticks),) = axis.tickValues(lo, lo + 86400, 800)  # a gaming day on 800 px
    assert step == 7200 and len(ticks) == 13
    assert axis.tickStrings(ticks[:3], 1, step) == ["06:00", "08:00", "10:00"]


def _wheel(widget, down: bool = True):  # type: ignore[no-untyped-def]
    """One notch of the mouse wheel at the middle of ``widget``."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    at = QPointF(widget.width() / 2, widget.height() / 2)
    ev = QWheelEvent(at, QPointF(widget.mapToGlobal(at.toPoint())), QPoint(0, 0),
                     QPoint(0, -120 if down else 120), Qt.MouseButton.NoButton,
                     Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, ev)


def _risk_result(edges: list[float]):  # type: ignore[no-untyped-def]
    """A meter-risk result as the panel reads it (one level, MAIN)."""
    from types import SimpleNamespace

    level = SimpleNamespace(name="MAIN", dry_paths=0, dry_events=0, shortfall_cents=0, hits=3)
    risk = SimpleNamespace(levels=[level], paths=10, all_pays_from_meter=False)
    labels = dict.fromkeys(("mean", "p5", "p50", "p95", "min", "max"), "1.00")
    plots = {"MAIN": SimpleNamespace(bin_edges=edges, bin_counts=[1.0, 5.0, 2.0],
                                     labels=labels)}
    return risk, plots


def test_the_wheel_over_a_chart_scrolls_the_page_and_never_zooms(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Issue 26: "the mouse wheel zooms charts instead of scrolling the page, and the
    meter-risk chart stays empty after a zoom"."""
    from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

    from gui.tablegames.meter_risk_panel import MeterRiskPanel

    page = QWidget()
    lay = QVBoxLayout(page)
    panel = MeterRiskPanel()
    lay.addWidget(panel)
    spacer = QWidget()
    spacer.setMinimumHeight(2000)  # a page taller than its window
    lay.addWidget(spacer)
    area = QScrollArea()
    area.setWidget(page)
    area.setWidgetResizable(True)
    qtbot.addWidget(area)
    area.resize(800, 600)
    area.show()
    qtbot.waitExposed(area)
    panel.set_levels(["MAIN"])
    panel.show_result(*_risk_result([0.0, 100.0, 200.0, 300.0]), DOLLARS)
    view = panel.plot.getViewBox()
    before = view.viewRange()
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    _wheel(panel.plot.viewport())
    qtbot.waitUntil(lambda: bar.value() > 0, timeout=2000)
    assert view.viewRange() == before  # the chart did not zoom
    _wheel(panel.plot.viewport(), down=False)
    qtbot.waitUntil(lambda: bar.value() == 0, timeout=2000)

    # a view left elsewhere (as a zoom leaves it): a new run shows its whole curve
    view.setRange(xRange=(5_000.0, 6_000.0), yRange=(50.0, 60.0), padding=0)
    panel.show_result(*_risk_result([1_000.0, 1_100.0, 1_200.0, 1_300.0]), DOLLARS)
    view.updateAutoRange()
    (x0, x1), (y0, y1) = view.viewRange()
    assert x0 <= 1_000.0 and x1 >= 1_300.0 and y0 <= 1.0 and y1 >= 5.0
