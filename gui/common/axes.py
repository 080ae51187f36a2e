"""Plot axes people read: money as money, time as the casino's clock.

- :class:`MoneyAxis`: "$25,000.40": the floor's currency as the casino's locale writes it
  (``core.kernel.money.Currency``), thousands separators and two decimals (a tick is a plot
  coordinate, a float; its label is rounded to the cent with Decimal, so 25000.4 reads
  $25,000.40, never 25000.4 or $25,000.39).
- :class:`LocalTimeAxis`: UNIX times as clock times in the casino's time zone ("17:30"), ticks
  on round local minutes or hours whatever the computer's own zone (pyqtgraph's DateAxisItem
  knows only the computer's zone or one fixed offset, which is wrong across a daylight-saving
  change), and dates ("Jun 02") when the ticks are days apart.
- :func:`scrolls_page`: a chart inside a scrolling page never zooms or pans; the mouse wheel
  over it scrolls the page (issue 26).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from core.kernel.money import DOLLARS, Currency

CENT = Decimal("0.01")
# tick steps (seconds) a time axis chooses from: the first that leaves room for every label
TIME_STEPS = (60, 120, 300, 600, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600,
              86400, 2 * 86400, 7 * 86400)
DAY = 86400


def money_tick(value: float, money: Currency = DOLLARS) -> str:
    """A money axis label for a plot coordinate in major units (dollars): ``$25,000.40``."""
    try:
        cents = int((Decimal(repr(value)) / CENT).quantize(Decimal(1), ROUND_HALF_UP))
    except (InvalidOperation, ValueError):  # inf / nan: no label rather than a wrong one
        return ""
    return money.text(cents)


def local_clock(timestamp: float, tz: ZoneInfo, step: float = 3600) -> str:
    """A time axis label: the casino's clock time ("17:30") of a UNIX time, or its date
    ("Jun 02") when ticks are a day or more apart."""
    try:
        local = datetime.fromtimestamp(timestamp, UTC).astimezone(tz)
    except (OverflowError, OSError, ValueError):
        return ""
    return f"{local:%b %d}" if step >= DAY else f"{local:%H:%M}"


def local_ticks(lo: float, hi: float, step: int, tz: ZoneInfo) -> list[float]:
    """UNIX times in [lo, hi] on round local times: multiples of ``step`` counted from local
    midnight (a step of a day or more: local midnights)."""
    if not (hi > lo) or hi - lo > 400 * DAY:
        return []
    start = datetime.fromtimestamp(lo, UTC).astimezone(tz)
    midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
    out: list[float] = []
    if step >= DAY:
        days = step // DAY
        d = midnight
        while d.timestamp() <= hi and len(out) < 1000:
            if d.timestamp() >= lo:
                out.append(d.timestamp())
            # the next local midnight (23 or 25 hours away across a daylight-saving change)
            d = (d + timedelta(days=days, hours=3)).replace(hour=0, minute=0, second=0,
                                                            microsecond=0)
        return out
    into = (start - midnight).total_seconds()
    first = midnight + timedelta(seconds=(into // step) * step)
    t = first.astimezone(UTC).timestamp()
    while t <= hi and len(out) < 1000:
        if t >= lo:
            out.append(t)
        t += step
    return out


class MoneyAxis(pg.AxisItem):  # type: ignore[misc]  # (pyqtgraph has no types)
    """A money axis: every label ``$25,000.40``, in the floor's currency as its locale writes
    it."""

    def __init__(self, orientation: str = "left", money: Currency = DOLLARS,
                 **kwargs: Any) -> None:
        super().__init__(orientation, **kwargs)
        self.money = money
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [money_tick(v * scale, self.money) for v in values]

    def label_room(self) -> float:
        """The pixels a label needs along the axis: a line's height and a half on a vertical
        axis (a short trend in a meter tile), the widest label and a gap on a horizontal one."""
        metrics = QFontMetricsF(self.style.get("tickFont") or QFont())
        if self.orientation in ("left", "right"):
            return metrics.height() * 1.5
        return metrics.horizontalAdvance(money_tick(88_888_888.88, self.symbol)) + 12

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:  # noqa: N802, N803
        """pyqtgraph's levels of ticks, keeping only those whose labels do not overlap (a
        short plot: the major ticks only, or every second of them...)."""
        levels: list[Any] = super().tickValues(minVal, maxVal, size)
        if not (maxVal > minVal) or size <= 0 or not levels:
            return levels
        room = self.label_room()
        per_px = size / (maxVal - minVal)
        kept = [(spacing, values) for spacing, values in levels if spacing * per_px >= room]
        if kept:
            return kept
        spacing, values = levels[0]
        every = max(1, math.ceil(room / max(spacing * per_px, 1e-9)))
        return [(spacing * every, list(values)[::every])]


class LocalTimeAxis(pg.AxisItem):  # type: ignore[misc]  # (pyqtgraph has no types)
    """A time axis in the casino's local time (UNIX seconds as plot coordinates)."""

    def __init__(self, tz: ZoneInfo, orientation: str = "bottom", **kwargs: Any) -> None:
        super().__init__(orientation, **kwargs)
        self.tz = tz
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:  # noqa: N802, N803
        if not (maxVal > minVal) or size <= 0:
            return []
        label_px = 60.0  # "00:00" with room around it
        fit = max(1.0, size / label_px)
        step = next((s for s in TIME_STEPS if (maxVal - minVal) / s <= fit), TIME_STEPS[-1])
        return [(float(step), local_ticks(minVal, maxVal, step, self.tz))]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [local_clock(v, self.tz, spacing) for v in values]


class _WheelToPage(QObject):
    """The wheel over a chart goes to the page around it (the nearest scrolling ancestor)."""

    def __init__(self, plot: QWidget) -> None:
        super().__init__(plot)
        self._plot = plot

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() != QEvent.Type.Wheel:
            return False
        area = page_of(self._plot)
        if area is not None:
            bar = area.verticalScrollBar()
            if bar.maximum() == bar.minimum():
                bar = area.horizontalScrollBar()
            QApplication.sendEvent(bar, event)
        return True  # never a zoom


def page_of(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scrolling ancestor of ``widget`` (not the chart's own view)."""
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w, QAbstractScrollArea):
            return w
        w = w.parentWidget()
    return None


def scrolls_page(plot: Any) -> None:
    """``plot`` (a pyqtgraph PlotWidget) neither zooms nor pans with the mouse, and the wheel
    over it (its plot area and its axes) scrolls the page it is on."""
    plot.setMouseEnabled(x=False, y=False)
    plot.viewport().installEventFilter(_WheelToPage(plot))
