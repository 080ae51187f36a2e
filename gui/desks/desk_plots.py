"""The accountant's and surveillance's plots, each a widget made from a
:class:`~core.desks.desk.Desk`,
a :class:`~core.desks.accounting.periods.Period` and a progressive group:

- :class:`MeterDayPlot`: each level's meter through the period as a step line, every pay from
  it marked with its amount;
- :class:`ContributionsPlot`: what the wagers put into the group's meters and reserves, hour by
  hour (bars in the casino's local time, one colour per level);
- :class:`HitsExpectedPlot`: hits paid from each level against the expected number (the
  period's wagers x the exact chance a wager wins a pay from the level).

The figures come from core/desks/accounting/plots_data.py, read off the GUI thread
(:meth:`refresh`); curves are made once and given new data.  A plot's coordinates are floats;
every amount and count written as text comes from the exact figures.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.desks.accounting import plots_data
from core.desks.accounting.periods import Period, gaming_day, gaming_day_of, shift
from core.desks.desk import Desk
from core.kernel.money import UNITS_PER_MAJOR, Currency
from gui.common import theme
from gui.common.axes import LocalTimeAxis, MoneyAxis, scrolls_page

log = logging.getLogger("podium.gui.desk_plots")

LEVEL_COLORS = (theme.ACCENT, theme.INFO, theme.OK, theme.WARN, "#c084fc")


def _dollars(units: int) -> float:
    return units / UNITS_PER_MAJOR  # a plot coordinate only


def fraction_text(value: Fraction, places: int = 2) -> str:
    """An exact fraction as a decimal for people ("0.38", "0.0003" for a small one)."""
    d = Decimal(value.numerator) / Decimal(value.denominator)
    if d and abs(d) < Decimal("0.01"):
        return f"{d:.{1 - d.adjusted()}f}"  # two significant digits: 0.00027
    return f"{d:,.{places}f}"


def one_in(p: Fraction) -> str:
    return f"1 in {Decimal(p.denominator) / Decimal(p.numerator):,.0f}" if p else "never"


def _plot(tz: Any, money: Currency | None, *, time_axis: bool = True) -> Any:
    axes: dict[str, Any] = {}
    if time_axis:
        axes["bottom"] = LocalTimeAxis(tz)
    if money is not None:
        axes["left"] = MoneyAxis("left", money)
    w = pg.PlotWidget(background=theme.PANEL, axisItems=axes)
    w.setMenuEnabled(False)
    scrolls_page(w)  # no zoom; the wheel scrolls the page
    w.hideButtons()
    pen = pg.mkPen(theme.MUTED)
    for ax in ("left", "bottom"):
        w.getAxis(ax).setPen(pen)
        w.getAxis(ax).setTextPen(pen)
    w.setMinimumHeight(160)
    return w


class _DeskPlot(QWidget):
    """A title, the plot area and a line of exact figures; :meth:`refresh` reads again."""

    def __init__(self, desk: Desk, period: Period, group: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.desk, self.period, self.group = desk, period, group
        self.money = desk.config.money  # the floor's currency, the casino's locale
        self.data: Any = None  # the latest figures shown (None until the first read answers)
        self.error = ""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        self.title = QLabel("")
        self.title.setObjectName("title")
        self.title.setWordWrap(True)
        lay.addWidget(self.title)
        self.body = QVBoxLayout()
        lay.addLayout(self.body, 1)
        self.figures = QLabel("")
        self.figures.setWordWrap(True)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.figures)
        self._set_title()

    def _name(self) -> str:
        try:
            return self.desk.config.group(self.group).name
        except KeyError:
            return self.group

    def _set_title(self) -> None:
        self.title.setText(f"{self._name()} · {self.what} · {self.period.label}")

    what = ""

    def set_period(self, period: Period) -> None:
        self.period = period
        self._set_title()
        self.refresh()

    def refresh(self) -> None:
        from gui.common.bridge import default_bridge

        desk, period, group = self.desk, self.period, self.group
        reader = type(self).read_figures
        default_bridge().query(lambda: reader(desk, period, group), self._answered,
                               self._failed, key=f"desk-plot:{id(self)}")

    @staticmethod
    def read_figures(desk: Desk, period: Period, group: str) -> Any:
        raise NotImplementedError

    def _answered(self, data: Any) -> None:
        self.data, self.error = data, ""
        self.show_data(data)

    def _failed(self, exc: BaseException) -> None:
        from core.desks.signage import reason_of

        self.error = reason_of(exc) if not isinstance(exc, ValueError) else str(exc)
        log.warning("plot %s: %s", self.what, self.error)
        self.figures.setText(f'<span style="color:{theme.ALERT}">Could not read the ledger: '
                             f"{self.error}</span>")

    def show_data(self, data: Any) -> None:
        raise NotImplementedError


class MeterDayPlot(_DeskPlot):
    """Each level's meter through the period, a step at every change, pays marked."""

    what = "meter through the period, pays marked"

    def __init__(self, desk: Desk, period: Period, group: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(desk, period, group, parent)
        self.plots: dict[str, Any] = {}
        self.curves: dict[str, Any] = {}
        self.marks: dict[str, Any] = {}
        self.labels: dict[str, list[Any]] = {}

    @staticmethod
    def read_figures(desk: Desk, period: Period, group: str) -> list[plots_data.MeterDay]:
        return plots_data.meter_days(desk, period, group)

    def _level_plot(self, level: str, i: int) -> None:
        w = _plot(self.desk.tz, self.money)
        w.setTitle(level, color=theme.MUTED)
        color = LEVEL_COLORS[i % len(LEVEL_COLORS)]
        self.curves[level] = w.plot([], [], pen=pg.mkPen(color, width=2), stepMode="right")
        self.marks[level] = pg.ScatterPlotItem(size=12, brush=pg.mkBrush(theme.ALERT), pen=None,
                                               symbol="t")
        w.addItem(self.marks[level])
        self.labels[level] = []
        self.plots[level] = w
        self.body.addWidget(w, 1)

    def show_data(self, data: list[plots_data.MeterDay]) -> None:
        start, end = self.period.start.timestamp(), self.period.end.timestamp()
        lines = []
        for i, day in enumerate(data):
            if day.level not in self.plots:
                self._level_plot(day.level, i)
            xs = [start] + [p.at.timestamp() for p in day.points] + [end]
            ys = [day.opening_units] + [p.meter_units for p in day.points] + [day.closing_units]
            self.curves[day.level].setData(xs, [_dollars(y) for y in ys])
            self.marks[day.level].setData([a.at.timestamp() for a in day.awards],
                                          [a.meter_before_cents / 100 for a in day.awards])
            w = self.plots[day.level]
            for item in self.labels[day.level]:
                w.removeItem(item)
            self.labels[day.level] = []
            for a in day.awards:
                # a pay in the period's later half is labelled to its left: the label stays
                # inside the plot
                late = a.at.timestamp() > (start + end) / 2
                text = pg.TextItem(f"{self.money.text(a.amount_cents)} {a.table} "
                                   f"seat {a.seat}", color=theme.ALERT,
                                   anchor=(1 if late else 0, 1))
                text.setPos(a.at.timestamp(), a.meter_before_cents / 100)
                w.addItem(text)
                self.labels[day.level].append(text)
            w.setXRange(start, end, padding=0.01)
            paid = sum(a.amount_cents for a in day.awards)
            lines.append(f"<b>{day.level}</b>: opened "
                         f"{self.money.units(day.opening_units)}, closed "
                         f"{self.money.units(day.closing_units)}; "
                         f"{len(day.awards)} pay{'s' if len(day.awards) != 1 else ''} "
                         f"{self.money.text(paid)}")
        self.figures.setText("<br>".join(lines))


class ContributionsPlot(_DeskPlot):
    """Contributions to the meters and reserves per hour, stacked by level."""

    what = "contributions per hour"

    def __init__(self, desk: Desk, period: Period, group: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(desk, period, group, parent)
        self.plot = _plot(desk.tz, self.money)
        self.plot.addLegend(offset=(-10, 10), labelTextColor=theme.TEXT,
                            brush=pg.mkBrush(theme.PANEL_2))
        self.body.addWidget(self.plot, 1)
        self.bars: dict[str, Any] = {}

    @staticmethod
    def read_figures(desk: Desk, period: Period, group: str) -> list[plots_data.HourBar]:
        return plots_data.contributions_per_hour(desk, period, group)

    def show_data(self, data: list[plots_data.HourBar]) -> None:
        if not data:
            return
        levels = list(data[0].contribution_units)
        xs = [(b.start.timestamp() + b.end.timestamp()) / 2 for b in data]
        widths = [(b.end - b.start).total_seconds() * 0.8 for b in data]
        base = [0.0] * len(data)
        for i, level in enumerate(levels):
            heights = [_dollars(b.contribution_units[level] + b.reserve_units[level])
                       for b in data]
            color = LEVEL_COLORS[i % len(LEVEL_COLORS)]
            if level not in self.bars:
                self.bars[level] = pg.BarGraphItem(x=xs, height=heights, width=widths, y0=base,
                                                   brush=pg.mkBrush(color), pen=None,
                                                   name=level)
                self.plot.addItem(self.bars[level])
            else:
                self.bars[level].setOpts(x=xs, height=heights, width=widths, y0=base)
            base = [b + h for b, h in zip(base, heights, strict=True)]
        self.plot.setXRange(self.period.start.timestamp(), self.period.end.timestamp(),
                            padding=0.01)
        self.plot.setYRange(0, max(base + [0.01]) * 1.3, padding=0)  # room for the legend
        meter = sum(sum(b.contribution_units.values()) for b in data)
        reserve = sum(sum(b.reserve_units.values()) for b in data)
        busiest = max(data, key=lambda b: b.total_units)
        at = busiest.start.astimezone(self.desk.tz)
        self.figures.setText(
            f"To the meters {self.money.units(meter)}, to the reserves "
            f"{self.money.units(reserve)} (exact: {meter:,} and {reserve:,} units of "
            f"1/1,000,000 cent); busiest hour {at:%H:%M} with "
            f"{self.money.units(busiest.total_units)}")


class HitsExpectedPlot(_DeskPlot):
    """Hits paid from each level against the expected number for the period's wagers."""

    what = "hits per level against the expected number"

    def __init__(self, desk: Desk, period: Period, group: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(desk, period, group, parent)
        self.plot = _plot(desk.tz, None, time_axis=False)
        self.plot.setLabel("left", "hits")
        self.plot.addLegend(offset=(-10, 10), labelTextColor=theme.TEXT,
                            brush=pg.mkBrush(theme.PANEL_2))
        self.body.addWidget(self.plot, 1)
        self.observed = pg.BarGraphItem(x=[], height=[], width=0.35,
                                        brush=pg.mkBrush(theme.ACCENT), pen=None,
                                        name="hits paid")
        self.expected = pg.BarGraphItem(x=[], height=[], width=0.35, brush=None,
                                        pen=pg.mkPen(theme.INFO, width=2),
                                        name="expected (wagers x exact chance)")
        self.plot.addItem(self.observed)
        self.plot.addItem(self.expected)

    @staticmethod
    def read_figures(desk: Desk, period: Period, group: str) -> list[plots_data.LevelHits]:
        return plots_data.hits_against_expected(desk, period, group)

    def show_data(self, data: list[plots_data.LevelHits]) -> None:
        xs = list(range(len(data)))
        self.observed.setOpts(x=[x - 0.2 for x in xs], height=[h.observed for h in data])
        self.expected.setOpts(x=[x + 0.2 for x in xs],
                              height=[float(h.expected) for h in data])
        self.plot.getAxis("bottom").setTicks([[(x, h.level) for x, h in zip(xs, data,
                                                                             strict=True)]])
        top = max([1.0] + [max(float(h.expected), float(h.observed)) for h in data])
        self.plot.setXRange(-0.7, len(data) - 0.3, padding=0)
        self.plot.setYRange(0, top * 1.3, padding=0)
        wagers = data[0].wagers if data else 0
        lines = [f"{wagers:,} progressive wager{'s' if wagers != 1 else ''} in the period"]
        for h in data:
            lines.append(f"<b>{h.level}</b>: {h.observed} hit{'s' if h.observed != 1 else ''} "
                         f"paid, expected {fraction_text(h.expected)} ({one_in(h.probability)} "
                         "wagers)")
        self.figures.setText("<br>".join(lines))


class DeskPlots(QWidget):
    """The desks' "Plots" tab (gui/desks/desk_window.py DESK_TABS): a link group, a gaming day (and
    a shift of it, or the whole day), and the three plots of that period, each on its own page.
    Nothing is read until a page is shown or **Show** is pressed."""

    def __init__(self, desk: Desk, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        casino = desk.config.casino
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Link"))
        self.group_box = QComboBox()
        for g in desk.config.groups:
            self.group_box.addItem(f"{g.name} ({g.id})", g.id)
        row.addWidget(self.group_box)
        row.addWidget(QLabel("Gaming day"))
        self.day_edit = QDateEdit()
        self.day_edit.setCalendarPopup(True)
        self.day_edit.setDisplayFormat("yyyy-MM-dd")
        today = gaming_day_of(casino, datetime.now(UTC))
        self.day_edit.setDate(QDate(today.year, today.month, today.day))
        row.addWidget(self.day_edit)
        self.shift_box = QComboBox()
        self.shift_box.addItem("Whole day", "")
        for name, start in casino.shifts:
            self.shift_box.addItem(f"{name} shift (from {start:%H:%M})", name)
        row.addWidget(self.shift_box)
        self.show_btn = QPushButton("Show")
        self.show_btn.setObjectName("primary")
        self.show_btn.clicked.connect(self.refresh)
        row.addWidget(self.show_btn)
        row.addStretch(1)
        lay.addLayout(row)
        self.problem = QLabel("")
        self.problem.setObjectName("alert")
        self.problem.setWordWrap(True)
        lay.addWidget(self.problem)
        self.pages = QTabWidget()
        lay.addWidget(self.pages, 1)
        self.plots: list[_DeskPlot] = []
        self._built_for: str | None = None
        self.group_box.currentIndexChanged.connect(lambda _i: self.refresh())

    def period(self) -> Period:
        """The period chosen (PeriodError names a problem)."""
        d = self.day_edit.date()
        day = date(d.year(), d.month(), d.day())
        name = self.shift_box.currentData()
        casino = self.desk.config.casino
        return shift(casino, day, name) if name else gaming_day(casino, day)

    def _build(self, group: str, period: Period) -> None:
        for w in self.plots:
            w.deleteLater()
        self.pages.clear()
        self.plots = [MeterDayPlot(self.desk, period, group),
                      ContributionsPlot(self.desk, period, group),
                      HitsExpectedPlot(self.desk, period, group)]
        for w, title in zip(self.plots, ("Meter", "Contributions per hour",
                                         "Hits against expected"), strict=True):
            self.pages.addTab(w, title)
        self._built_for = group

    def refresh(self) -> None:
        """Read the chosen group's plots for the chosen period again."""
        group = self.group_box.currentData()
        if group is None:
            self.problem.setText("The floor file has no link group to plot.")
            return
        try:
            period = self.period()
        except ValueError as exc:
            self.problem.setText(str(exc))
            return
        self.problem.setText("")
        if self._built_for != group:
            self._build(group, period)
        for w in self.plots:
            w.period = period
            w._set_title()
            w.refresh()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        if self._built_for is None:
            self.refresh()  # the first time the tab is shown
        super().showEvent(event)
