"""Meter risk on the paytable screen: ``core.tablegames.meters.risk`` (a Monte Carlo of the
meters) run on a compute thread when asked, the distribution of each meter plotted and the
chance of running dry said; without that module the box says that it is not available.

The chart's curves are created once per table and only get ``setData``; the wheel over the
chart scrolls the screen, never zooms (gui/common/axes.py ``scrolls_page``)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.floorconfig import GroupConfig
from core.kernel.money import Currency
from core.tablegames.rules.edge import percent_text
from core.tablegames.rules.enumerate import HandCounts
from core.tablegames.rules.paytables import Paytable
from gui.common import theme
from gui.common.axes import scrolls_page
from gui.common.bridge import default_bridge
from gui.tablegames.paytable_figures import BUSY_AFTER_MS, label
from gui.tablegames.paytable_text import LiveMeters

log = logging.getLogger("podium.gui.paytables")

RISK_ROUNDS = 50_000  # rounds per path (one wager per round)
RISK_PATHS = 100  # independent meters
RISK_SEED = 1  # the same run gives the same picture
PLACEHOLDER = ("PLACEHOLDER: the meter risk simulator (core/tablegames/meters/risk/) is not "
               "installed in this build, so the distribution of the meter and the chance of "
               "running dry can not be shown yet.")


def find_meter_risk() -> Any:
    """``core.tablegames.meters.risk`` when it is installed, else None (the box says so)."""
    try:
        return importlib.import_module("core.tablegames.meters.risk")
    except ImportError:
        return None


def risk_setup(table: Paytable, group: GroupConfig | None, money: Currency) -> str:
    """What a run simulates for ``table`` on ``group`` (its first floor group; None: none
    uses it, nothing to simulate)."""
    if group is None:
        return (f"No group of this floor uses {table.id}: there is no seed or rate to "
                "simulate.")
    return (f"{group.name}: {RISK_PATHS} meters × {RISK_ROUNDS:,} rounds of one "
            f"{money.text(table.wager_cents or 0)} wager, from the live "
            f"meter, with the group's seed and rates"
            f"{', every pay from the meter' if group.all_pays_from_meter else ''}; "
            f"a Monte Carlo (random draws from the exact probabilities), seed "
            f"{RISK_SEED}.")


class MeterRiskPanel(QGroupBox):
    """The distribution of each meter after RISK_ROUNDS rounds from its live value, and the
    chance of running dry, for one progressive group.  The simulation runs on a worker thread
    when asked (it takes seconds); the curves are created once per table and only get
    ``setData``."""

    run_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Meter risk (simulation)", parent)
        import pyqtgraph as pg

        self._pg = pg
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.run_btn = QPushButton("Simulate the meter")
        self.run_btn.clicked.connect(self.run_requested.emit)
        row.addWidget(self.run_btn)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setMaximumWidth(200)
        self.busy.hide()
        row.addWidget(self.busy)
        self.status = label("", "muted", wrap=True)
        row.addWidget(self.status, 1)
        lay.addLayout(row)
        self.dry = label("", wrap=True)
        self.dry.setStyleSheet("font-size: 16pt; font-weight: bold;")
        lay.addWidget(self.dry)
        self.plot = pg.PlotWidget(background=theme.PANEL)
        self.plot.setMinimumHeight(240)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        scrolls_page(self.plot)  # the wheel scrolls the screen, never zooms the chart
        axis_pen = pg.mkPen(theme.MUTED)
        for ax in ("left", "bottom"):
            self.plot.getAxis(ax).setPen(axis_pen)
            self.plot.getAxis(ax).setTextPen(axis_pen)
        self.plot.setLabel("bottom", "meter ($)")
        self.plot.setLabel("left", "samples")
        self.plot.addLegend(offset=(-10, 10))
        lay.addWidget(self.plot)
        self.figures = label("", wrap=True)
        self.figures.setStyleSheet("font-size: 13pt;")
        lay.addWidget(self.figures)
        self.curves: dict[str, Any] = {}
        self.levels: tuple[str, ...] = ()

    def set_levels(self, levels: Sequence[str]) -> None:
        """Curves for these levels (created once per table)."""
        if tuple(levels) == self.levels:
            return
        for curve in self.curves.values():
            self.plot.removeItem(curve)
        self.curves = {}
        colors = (theme.ACCENT, theme.INFO, theme.OK)
        for i, lv in enumerate(levels):
            self.curves[lv] = self.plot.plot(
                [0.0, 1.0], [0.0], stepMode="center", name=lv,
                pen=self._pg.mkPen(colors[i % len(colors)], width=2))
        self.levels = tuple(levels)
        self.dry.setText("")
        self.figures.setText("")

    def show_result(self, risk: Any, plots: Any, money: Currency) -> None:
        symbol = money.symbol
        lines, dry = [], []
        for lv in risk.levels:
            plot = plots[lv.name]
            # plot coordinates only; every amount shown as text is exact (the labels)
            self.curves[lv.name].setData(plot.bin_edges, plot.bin_counts, stepMode="center")
            lab = plot.labels
            lines.append(f"{lv.name}: mean {symbol}{lab['mean']} · 5% below {symbol}{lab['p5']}"
                         f" · median {symbol}{lab['p50']} · 95% below {symbol}{lab['p95']} · "
                         f"lowest {symbol}{lab['min']} · highest {symbol}{lab['max']} · "
                         f"{lv.hits:,} hits")
            per_path = Fraction(lv.dry_paths, risk.paths)
            dry.append(f"{lv.name}: ran dry on {percent_text(per_path)} of the meters "
                       f"({lv.dry_paths:,} of {risk.paths:,}), {lv.dry_events:,} times; "
                       f"shortfall {money.text(lv.shortfall_cents)}")
        self.figures.setText("\n".join(lines))
        self.plot.enableAutoRange()  # the whole of every curve, whatever was shown before
        if risk.all_pays_from_meter:
            self.dry.setText("Chance of running dry over the horizon — " + "; ".join(dry))
            worst = max((lv.dry_paths for lv in risk.levels), default=0)
            self.dry.setStyleSheet(f"font-size: 16pt; font-weight: bold; color: "
                                   f"{theme.ALERT if worst else theme.OK};")
        else:
            self.dry.setText("Only percentage pays come from the meter: it can not run dry "
                             "(fixed pays come from the tray).")
            self.dry.setStyleSheet(f"font-size: 16pt; font-weight: bold; color: {theme.OK};")


class MeterRiskBox(QGroupBox):
    """The screen's meter-risk box: the panel when ``risk`` (the meter_risk module) is there,
    else the placeholder; runs a simulation on a compute thread when asked and shows it if its
    table is still the one selected (``current()``: the table selected)."""

    def __init__(self, risk: Any, money: Currency, current: Callable[[], Paytable | None],
                 parent: QWidget | None = None) -> None:
        super().__init__("Meter risk", parent)
        self._risk = risk
        self._money = money
        self._current = current
        self.running = False
        lay = QVBoxLayout(self)
        self.status = label("", "muted", wrap=True)
        lay.addWidget(self.status)
        self.panel: MeterRiskPanel | None = None
        if risk is None:
            self.status.setText(PLACEHOLDER)
            self.status.setObjectName("warn")
            return
        self.setTitle("")
        self.setFlat(True)
        self.status.hide()
        self.panel = MeterRiskPanel()
        lay.addWidget(self.panel)

    def show_for(self, table: Paytable, group: GroupConfig | None) -> None:
        """``table`` is shown (``group``: its first floor group)."""
        self.setVisible(table.kind == "progressive")
        panel = self.panel
        if panel is None or table.kind != "progressive":
            return
        panel.set_levels(table.levels)
        if not self.running:
            panel.status.setText(risk_setup(table, group, self._money))
            panel.run_btn.setEnabled(group is not None)

    def run(self, table: Paytable, counts: HandCounts, group: GroupConfig,
            live: LiveMeters) -> None:
        """Simulate ``group``'s meters on ``table`` from the meters ``live`` (as last read)."""
        panel, risk = self.panel, self._risk
        if panel is None or self.running:
            return
        starts = {lv: c for lv, c in live.get(group.id, {}).items() if lv in table.levels}
        try:
            plans = risk.level_plans(
                table, {lv.name: lv.seed_cents for lv in group.levels},
                {lv.name: lv.contribution_rate for lv in group.levels},
                {lv.name: lv.reserve_rate for lv in group.levels}, starts_cents=starts)
        except ValueError as exc:
            panel.status.setText(f"Can not simulate: {exc}")
            return
        self.running = True
        panel.run_btn.setEnabled(False)
        panel.status.setText(f"Simulating {group.name}…")
        # the busy bar is the timer's context: if it is gone, the timer is cancelled with it
        QTimer.singleShot(BUSY_AFTER_MS, panel.busy,
                          lambda: panel.busy.setVisible(self.running))
        apfm = group.all_pays_from_meter
        rounds, paths = RISK_ROUNDS, RISK_PATHS

        def work() -> tuple[Any, Any]:
            sim = risk.simulate(table, counts, plans, rounds=rounds, paths=paths,
                                all_pays_from_meter=apfm, rng_seed=RISK_SEED)
            return sim, risk.plot_data(sim)

        default_bridge().compute(work, lambda result: self._done(table.id, result),
                                 lambda exc: self._done(table.id, exc), owner=self)

    def _done(self, table_id: str, result: tuple[Any, Any] | BaseException) -> None:
        self.running = False
        panel = self.panel
        if panel is None:
            return
        panel.busy.hide()
        panel.run_btn.setEnabled(True)
        if not isinstance(result, tuple):
            log.warning("meter risk simulation of %s failed: %s", table_id, result)
            panel.status.setText(f"The simulation failed: {result}")
            return
        current = self._current()
        if current is None or current.id != table_id:
            return  # another table is selected now
        sim, plots = result
        panel.show_result(sim, plots, self._money)
        panel.status.setText(f"{table_id}: {sim.paths} meters × {sim.rounds:,} rounds "
                             f"({sim.wagers:,} wagers), simulated.")
