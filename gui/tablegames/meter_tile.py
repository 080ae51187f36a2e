"""A progressive meter's tile: the amount large, the reserve and seed small, Jackpot Lock's
PENDING amount, and the meter's trend with its pays and adjustments marked (made when the tile
is first seen).

It shows what it is given (``model.LevelView``, the history's plot coordinates); it holds no
rule and never touches the ledger (STYLE.md).  Repaint is throttled by the main window."""

from __future__ import annotations

import time
from typing import Any
from zoneinfo import ZoneInfo

import pyqtgraph as pg
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from core.kernel.money import DOLLARS, Currency
from gui.common import theme
from gui.common.axes import LocalTimeAxis, MoneyAxis, scrolls_page
from gui.common.fit_label import FitLabel
from gui.tablegames.model import LevelView


def _label(text: str = "", name: str = "") -> QLabel:
    lab = QLabel(text)
    if name:
        lab.setObjectName(name)
    return lab


PLOT_DELAY_MS = 50
SUB_POINT_SIZE = theme.BASE_POINT_SIZE - 1  # the reserve and seed line, under the amount


class MeterTile(QFrame):
    """One meter: the amount large, the reserve and seed small, and its trend with hits marked.
    ``plotMade(key)`` says the trend plot was made (the tile was first seen): time to read
    its history."""

    plotMade = Signal(object)  # noqa: N815

    def __init__(self, key: tuple[str, str], parent: QWidget | None = None,
                 tz: ZoneInfo | None = None, money: Currency = DOLLARS) -> None:
        super().__init__(parent)
        self.key = key
        self.setObjectName("panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8)
        self.title = _label("", "muted")
        lay.addWidget(self.title)
        self.amount = _label("", "money")
        lay.addWidget(self.amount)
        # the reserve and the seed on a line of their own under the amount, the tile's whole
        # width (beside the title, a 1366x768 screen cut the reserve to "reserve $…"); a
        # narrower panel still cuts with "…" (whole in the tooltip), never a wider tile
        self.sub = FitLabel("")
        self.sub.setObjectName("muted")
        self.sub.setStyleSheet(f"font-size: {SUB_POINT_SIZE}pt;")
        lay.addWidget(self.sub)
        # Jackpot Lock: PENDING with the frozen amount, under the live meter (hidden when
        # nothing waits)
        self.pending = _label("", "pendingMeter")
        self.pending.setWordWrap(True)
        self.pending.setStyleSheet(f"color: {theme.ALERT}; font-size: 14pt; font-weight: bold;")
        self.pending.hide()
        lay.addWidget(self.pending)
        self._tz = tz or ZoneInfo("UTC")
        self._money = money  # the floor's currency, the casino's locale
        # The trend plot is made when the tile is first painted: a floor of a hundred meters
        # scrolls, and a plot nobody has seen costs nothing.
        self.plot: Any = None
        self.curve: Any = None
        self.hits: Any = None
        self._time_axis: Any = None
        self._plot_slot = QWidget()
        self._plot_slot.setMinimumHeight(90)
        self._plot_lay = QVBoxLayout(self._plot_slot)
        self._plot_lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._plot_slot, 1)
        self._hit_xs: list[float] = []
        self._hit_ys: list[float] = []
        self._adj_xs: list[float] = []
        self._adj_ys: list[float] = []
        self._drawn = True
        self._plot_pending = False
        self._xs: list[float] = []
        self._ys: list[float] = []
        self._shown_level: LevelView | None = None

    def show_level(self, lv: LevelView) -> None:
        if lv == self._shown_level:
            return
        self._shown_level = lv
        self.title.setText(f"{lv.group_name} · {lv.level}")
        money = self._money.text
        self.amount.setText(money(lv.meter_cents))
        self.sub.setText(f"reserve {money(lv.reserve_cents)} · seed {money(lv.seed_cents)}")
        if lv.frozen_hits:
            self.pending.setText(f"PENDING {money(lv.frozen_cents)} frozen for "
                                 f"{lv.frozen_hits} hit{'s' if lv.frozen_hits != 1 else ''}"
                                 " · the meter above is live")
            self.pending.setToolTip("Jackpot Lock: this amount was fixed when HIT JACKPOT "
                                    "arrived and waits for a supervisor; the linked tables "
                                    "keep playing into the live meter.")
        self.pending.setVisible(bool(lv.frozen_hits))

    @property
    def time_axis(self) -> Any:
        self._make_plot()
        return self._time_axis

    def _make_plot(self) -> None:
        if self.plot is not None:
            return
        # the casino's clock on the time axis (across a daylight-saving change too), money
        # as "$25,000.40"
        self._time_axis = LocalTimeAxis(self._tz)
        self.plot = pg.PlotWidget(background=theme.PANEL,
                                  axisItems={"bottom": self._time_axis,
                                             "left": MoneyAxis("left", self._money)})
        self.plot.setMinimumHeight(90)
        self.plot.setMenuEnabled(False)
        scrolls_page(self.plot)  # no zoom; the wheel scrolls the meters' column
        self.plot.hideButtons()
        self.plot.getPlotItem().setDownsampling(auto=True, mode="peak")
        self.plot.getPlotItem().setClipToView(True)
        axis_pen = pg.mkPen(theme.MUTED)
        for ax in ("left", "bottom"):
            self.plot.getAxis(ax).setPen(axis_pen)
            self.plot.getAxis(ax).setTextPen(axis_pen)
        # a step line: the meter holds its value until the next change (a pay is a drop at
        # its moment, not a slope from the point before); pyqtgraph's "right": each point is a
        # step's left edge ("left" drew each value from the point BEFORE it, too early)
        self.curve = self.plot.plot([], [], pen=pg.mkPen(theme.ACCENT, width=2),
                                    stepMode="right")
        self.hits = pg.ScatterPlotItem(size=11, brush=pg.mkBrush(theme.ALERT), pen=None,
                                       symbol="t")
        self.plot.addItem(self.hits)
        self.adjustments = pg.ScatterPlotItem(size=10, brush=pg.mkBrush(theme.INFO), pen=None,
                                              symbol="d")
        self.plot.addItem(self.adjustments)
        self._plot_lay.addWidget(self.plot)
        self._drawn = False
        self.redraw()
        self.plotMade.emit(self.key)

    def paintEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        if self.plot is None and not self._plot_pending:
            # once laid out and still in sight (a first layout paints tiles that then
            # scroll out of view)
            self._plot_pending = True
            QTimer.singleShot(PLOT_DELAY_MS, self._plot_if_seen)
        super().paintEvent(event)

    def _plot_if_seen(self) -> None:
        self._plot_pending = False
        if self.plot is None and self.isVisible() and not self.visibleRegion().isEmpty():
            self._make_plot()

    def show_history(self, xs: list[float], ys: list[float], hit_xs: list[float],
                     hit_ys: list[float], adj_xs: list[float] | None = None,
                     adj_ys: list[float] | None = None) -> None:
        # Plot coordinates only: the amounts shown as text come from exact cents above.
        self._xs, self._ys = list(xs), list(ys)
        self._hit_xs, self._hit_ys = list(hit_xs), list(hit_ys)
        self._adj_xs, self._adj_ys = list(adj_xs or []), list(adj_ys or [])
        self._drawn = False
        self.redraw()

    def add_point(self, x: float, y: float, *, window_s: float, max_points: int) -> None:
        """A new meter value at time ``x`` (one point per transaction; drawn by
        :meth:`redraw`); points older than ``window_s`` before it are dropped."""
        if self._xs and self._xs[-1] >= x:
            self._ys[-1] = y
        else:
            self._xs.append(x)
            self._ys.append(y)
        self._drawn = False
        cut = 0
        while cut < len(self._xs) and (self._xs[cut] < x - window_s
                                       or len(self._xs) - cut > max_points):
            cut += 1
        if cut:
            del self._xs[:cut], self._ys[:cut]

    def redraw(self) -> None:
        """Draw what changed, if the plot exists and can be seen."""
        if self._drawn or self.plot is None or self.visibleRegion().isEmpty():
            return
        self._drawn = True
        xs, ys = self._xs, self._ys
        now = time.time()
        if xs and now > xs[-1]:  # drawn to now: the meter has held its last value since
            xs, ys = [*xs, now], [*ys, ys[-1]]
        self.curve.setData(xs, ys)
        self.hits.setData(self._hit_xs, self._hit_ys)
        self.adjustments.setData(self._adj_xs, self._adj_ys)
