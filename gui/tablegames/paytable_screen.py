"""The paytable screen (administrators): every installed paytable, its hands with their exact
counts and probabilities, its return and house edge, and for a progressive group of the floor
the live return at the current meters with the configuration warnings of RULES.md section 4.

Every figure comes from ``core.tablegames.rules.edge`` (exact ``Fraction`` arithmetic over the
exact counts of ``core.tablegames.rules.enumerate.count_hands``) and is shown with its formatting
(``percent_text``, ``fraction_text``): the screen holds no rule and writes nothing.

Threads (everything through the bridge, gui/common/bridge.py): the count of a joker mode can take
longer than half a second the first time (empty disk cache), so it always runs on a compute
thread (``Bridge.compute``) and its result comes back on the GUI thread.  A busy indicator
shows only when the count is still running after ``BUSY_AFTER_MS``.  The floor's
announcements reach the screen through ``Bridge.listen`` (removed with the screen) and only
mark the meters stale; a one-second timer then reads them off the GUI thread
(``Bridge.query``), so the live return follows the meters at most once a second however fast
they move, and the GUI thread never reads the ledger.

Meter risk: the panel at the bottom runs ``core.tablegames.meters.risk`` (a Monte Carlo of the
meters) on a worker thread when asked, and plots the distribution of each meter and the chance
of running dry; without that module it says that it is not available.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.floorconfig import FloorConfigError, GroupConfig, validate
from core.kernel.money import DOLLARS, Currency, units_floor_cents
from core.tablegames.rules.edge import (
    MAX_OTHERS,
    bonus_edge,
    fraction_text,
    percent_text,
    progressive_edge,
)
from core.tablegames.rules.enumerate import HandCounts, count_hands
from core.tablegames.rules.fortune import HAND_IDS, NOTHING
from core.tablegames.rules.paytables import Pay, Paytable, distinct_paytables
from gui.common import theme
from gui.common.axes import scrolls_page
from gui.common.bridge import default_bridge
from gui.common.cards import hand_label

log = logging.getLogger("podium.gui.paytables")

BUSY_AFTER_MS = 500  # a computation still running after this shows the busy indicator
LIVE_REFRESH_MS = 1000  # the live return follows the meters at most once a second
HAND_COLUMNS = ("Hand", "Pays", "Hands", "Probability", "1 in", "Return")
ENVY_COLUMNS = ("Other players", "Return with envy", "House edge with envy")
PRECONFIGURED_NOTE = ("Contribution ceiling (RULES.md 4): this paytable file states no "
                      "preconfigured contribution rate (preconfigured_contribution_rate), so a "
                      "higher rate can not be checked; the configured rate is shown as it is.")

CountFn = Callable[[str], HandCounts]
LiveMeters = dict[str, dict[str, int]]  # group -> level -> meter cents (rounded down, as shown)


# ------------------------------------------------------------------------------------------
# Small pieces


def _label(text: str = "", name: str = "", *, wrap: bool = False) -> QLabel:
    lab = QLabel(text)
    if name:
        lab.setObjectName(name)
    lab.setWordWrap(wrap)
    return lab


class FitLabel(QLabel):
    """A big bold number that shrinks its font (down to ``SMALLEST_PT``) rather than push the
    screen wider than the window: the tab may be narrow beside the meters."""

    BIGGEST_PT = 26
    SMALLEST_PT = 12

    def __init__(self, text: str, color: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self._color = color
        self._pt = 0
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(120)
        self._fit()

    def setText(self, text: str) -> None:  # noqa: N802  (Qt's name)
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def point_size(self) -> int:
        return self._pt

    def _fit(self) -> None:
        lines = self.text().splitlines() or [""]
        room = max(self.width(), self.minimumWidth()) - 4
        font = QFont(self.font())
        font.setBold(True)
        pt = self.BIGGEST_PT
        while pt > self.SMALLEST_PT:
            font.setPointSize(pt)
            metrics = QFontMetrics(font)
            if max(metrics.horizontalAdvance(line) for line in lines) <= room:
                break
            pt -= 1
        if pt != self._pt:
            self._pt = pt
            self.setStyleSheet(f"color: {self._color}; font-size: {pt}pt; font-weight: bold;")


class Figure(QFrame):
    """One big number with its caption above it, readable from a step away."""

    def __init__(self, caption: str, color: str = theme.TEXT,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 8, 14, 10)
        self.caption = _label(caption, "muted", wrap=True)
        lay.addWidget(self.caption)
        self.value = FitLabel("—", color)
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.value)

    def set(self, value: str, caption: str | None = None) -> None:
        self.value.setText(value)
        if caption is not None:
            self.caption.setText(caption)


class FigureTable(QTableWidget):
    """A read-only table sized to its rows (the screen scrolls, not the table)."""

    def __init__(self, columns: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(0, len(columns), parent)
        self.setHorizontalHeaderLabels(list(columns))
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setStyleSheet("QTableWidget { font-size: 11pt; }")
        hdr = self.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hdr.setStretchLastSection(True)
        # nothing is elided: a narrow window scrolls the table sideways instead
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.horizontalScrollBar().rangeChanged.connect(lambda *_: self._fit_height())

    def fill(self, rows: Sequence[Sequence[str]], bold_last: bool = False) -> None:
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if bold_last and r == len(rows) - 1:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.setItem(r, c, item)
        self.resizeRowsToContents()
        self._fit_height()

    def _fit_height(self) -> None:
        height = self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth()
        height += sum(self.rowHeight(r) for r in range(self.rowCount()))
        bar = self.horizontalScrollBar()
        if bar.maximum() > 0:  # too narrow: room for the scroll bar below the last row
            height += bar.sizeHint().height()
        self.setFixedHeight(height)

    def cell(self, row: int, col: int) -> str:
        item = self.item(row, col)
        return item.text() if item is not None else ""


def _one_in(n: int, total: int) -> str:
    if n == 0:
        return "never"
    return f"{Fraction(total, n).__round__():,}"


def _probability(n: int, total: int) -> str:
    return fraction_text(Fraction(n, total), 6)


def _pay_text(table: Paytable, pay: Pay, money: Currency) -> str:
    if pay.odds is not None:
        envy = f" · envy {money.text(pay.envy_cents)}" if pay.envy_cents else ""
        return f"{pay.odds} to 1{envy}"
    if pay.fraction is not None:
        return f"{fraction_text(Fraction(pay.fraction) * 100, 8)}% of {pay.level}"
    return money.text(table.fixed_cents(pay))


# ------------------------------------------------------------------------------------------
# The live panel of one progressive group


class LivePanel(QGroupBox):
    """A progressive group of the floor: its meters, the return at them, its settings and the
    warnings RULES.md section 4 asks for."""

    def __init__(self, group: GroupConfig, parent: QWidget | None = None) -> None:
        super().__init__(f"LIVE  ·  {group.name} ({group.id})", parent)
        self.group = group
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.meters = Figure("Meter", theme.ACCENT)
        self.ret = Figure("Return at the meter")
        self.edge = Figure("House edge at the meter")
        for f in (self.meters, self.ret, self.edge):
            row.addWidget(f)
        lay.addLayout(row)
        self.settings = _label("", wrap=True)
        self.settings.setStyleSheet("font-size: 13pt;")
        lay.addWidget(self.settings)
        self.warnings = _label("", "warn", wrap=True)
        self.warnings.setStyleSheet(f"color: {theme.WARN}; font-size: 14pt; font-weight: bold;")
        lay.addWidget(self.warnings)
        self.note = _label(PRECONFIGURED_NOTE, "muted", wrap=True)
        lay.addWidget(self.note)

    def warning_lines(self) -> list[str]:
        text = self.warnings.text()
        return [line[2:] for line in text.splitlines() if line.startswith("▲ ")]



# ------------------------------------------------------------------------------------------
# Meter risk (core.tablegames.meters.risk): a Monte Carlo of the meters, run on a worker thread

RISK_ROUNDS = 50_000  # rounds per path (one wager per round)
RISK_PATHS = 100  # independent meters
RISK_SEED = 1  # the same run gives the same picture


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
        self.status = _label("", "muted", wrap=True)
        row.addWidget(self.status, 1)
        lay.addLayout(row)
        self.dry = _label("", wrap=True)
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
        self.figures = _label("", wrap=True)
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


# ------------------------------------------------------------------------------------------
# The screen


class PaytableScreen(QWidget):
    """Paytables, their exact return and house edge, and the live return of each progressive
    group.  ``console`` exposes ``paytables``, ``config`` and ``floor`` (a ConsoleCore or a
    stand-in); ``count`` replaces ``count_hands`` (tests inject a slow one)."""

    def __init__(self, console: Any, parent: QWidget | None = None, *,
                 count: CountFn | None = None, meter_risk: Any = "auto") -> None:
        super().__init__(parent)
        self.console = console
        self._count: CountFn = count if count is not None else count_hands
        self._counts: dict[str, HandCounts] = {}
        self._counting: set[str] = set()
        self.bridge = default_bridge()
        self._meters_dirty = False  # a meter moved since the meters were last read
        self._live: LiveMeters | None = None  # the meters as last read (None: not yet/failed)
        self._live_read = False  # a read of the meters has answered (or failed)
        # the floor's currency as the casino's locale writes it (and its sign, for figures
        # written by the meter-risk and edge arithmetic)
        self._money: Currency = getattr(console.config, "money", DOLLARS)
        self._symbol = self._money.symbol
        self.tables = distinct_paytables(console.paytables)
        self.current: Paytable | None = None
        self.live_panels: dict[str, LivePanel] = {}
        self._risk = _find_meter_risk() if meter_risk == "auto" else meter_risk

        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(split)

        self.list = QListWidget()
        self.list.setObjectName("paytableList")
        self.list.setMinimumWidth(200)
        self.list.setMaximumWidth(260)
        self.list.setStyleSheet("QListWidget { font-size: 14pt; } "
                                "QListWidget::item { padding: 6px; }")
        for t in self.tables:
            groups = self._groups_of(t)
            where = ("\non the floor: " + ", ".join(g.name for g in groups)) if groups else ""
            kind = "bonus" if t.kind == "bonus" else "progressive"
            item = QListWidgetItem(f"{t.id}\n{kind} · {t.joker} joker{where}")
            item.setData(Qt.ItemDataRole.UserRole, t.id)
            item.setToolTip(t.name)
            self.list.addItem(item)
        self.list.currentRowChanged.connect(self._on_row)
        split.addWidget(self.list)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        self._body = QVBoxLayout(body)
        self._body.setSpacing(10)
        scroll.setWidget(body)
        split.addWidget(scroll)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([250, 1200])

        self.title = _label("", "title", wrap=True)
        self._body.addWidget(self.title)
        self.subtitle = _label("", "muted", wrap=True)
        self._body.addWidget(self.subtitle)

        busy_row = QHBoxLayout()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # busy, no percentage
        self.busy.setTextVisible(False)
        self.busy.setMaximumWidth(260)
        self.busy_label = _label("Counting every hand of the deck…", "warn", wrap=True)
        busy_row.addWidget(self.busy)
        busy_row.addWidget(self.busy_label, 1)
        self._body.addLayout(busy_row)
        self.busy.hide()
        self.busy_label.hide()
        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.timeout.connect(self._show_busy)

        self.error = _label("", "alert", wrap=True)
        self.error.hide()
        self._body.addWidget(self.error)

        figs = QHBoxLayout()
        self.fig_return = Figure("Return", theme.OK)
        self.fig_edge = Figure("House edge", theme.ACCENT)
        self.fig_third = Figure("")
        for f in (self.fig_return, self.fig_edge, self.fig_third):
            figs.addWidget(f)
        self._body.addLayout(figs)

        self.hands = FigureTable(HAND_COLUMNS)
        self._body.addWidget(self.hands)
        self.hands_note = _label("", "muted", wrap=True)
        self._body.addWidget(self.hands_note)

        self.envy_box = QGroupBox("Envy")
        eb = QVBoxLayout(self.envy_box)
        self.envy_note = _label("", "muted", wrap=True)
        eb.addWidget(self.envy_note)
        self.envy = FigureTable(ENVY_COLUMNS)
        eb.addWidget(self.envy)
        self._body.addWidget(self.envy_box)

        self.live_box = QWidget()
        self._live_layout = QVBoxLayout(self.live_box)
        self._live_layout.setContentsMargins(0, 0, 0, 0)
        self._body.addWidget(self.live_box)

        self.risk_box = QGroupBox("Meter risk")
        self._risk_layout = QVBoxLayout(self.risk_box)
        self.risk_status = _label("", "muted", wrap=True)
        self._risk_layout.addWidget(self.risk_status)
        self._body.addWidget(self.risk_box)
        self._body.addStretch(1)
        self._init_risk()

        # removed when the screen is destroyed (the bridge's owner)
        self.bridge.listen(console.floor.add_listener, self._on_floor_change, owner=self)
        self._read_meters()
        self._live_timer = QTimer(self)
        self._live_timer.timeout.connect(self._tick)
        self._live_timer.start(LIVE_REFRESH_MS)

        if self.tables:
            self.list.setCurrentRow(0)
        self.list.setFocus()  # arrows move through the paytables

    # -- selection ---------------------------------------------------------------------------
    def select(self, table_id: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == table_id:
                self.list.setCurrentRow(row)
                return
        raise KeyError(table_id)

    def _groups_of(self, table: Paytable) -> list[GroupConfig]:
        out = []
        for g in self.console.config.groups:
            pt = self.console.paytables.get(g.paytable)
            if pt is not None and pt.id == table.id:
                out.append(g)
        return out

    def _on_row(self, row: int) -> None:
        if not 0 <= row < len(self.tables):
            return
        table = self.tables[row]
        self.current = table
        self.title.setText(f"{table.id}  ·  {table.name}")
        if table.kind == "bonus":
            self.subtitle.setText(f"Bonus paytable, pays \"to 1\" (the wager is returned on a "
                                  f"win) · {table.joker} joker · three pair "
                                  f"{table.three_pair}")
        else:
            assert table.wager_cents is not None
            self.subtitle.setText(f"Progressive paytable, pays \"for 1\" · "
                                  f"{self._money.text(table.wager_cents)} wager · "
                                  f"{table.joker} joker · levels {', '.join(table.levels)}")
        self.error.hide()
        self.risk_box.setVisible(table.kind == "progressive")
        counts = self._counts.get(table.joker)
        if counts is None:
            self._clear_figures()
            self._start_count(table.joker)
            return
        self._render(table, counts)

    def _clear_figures(self) -> None:
        for f in (self.fig_return, self.fig_edge, self.fig_third):
            f.set("…")
        self.hands.fill([])
        self.hands_note.setText("")
        self.envy_box.hide()
        self._set_live_panels([])

    # -- counting on a worker thread -----------------------------------------------------------
    def _start_count(self, joker: str) -> None:
        if joker in self._counting:
            return
        self._counting.add(joker)
        if not self._busy_timer.isActive():
            self._busy_timer.start(BUSY_AFTER_MS)
        count = self._count
        self.bridge.compute(lambda: count(joker), lambda counts: self._on_counts(joker, counts),
                            lambda exc: self._on_counts(joker, exc))

    def is_busy(self) -> bool:
        """The busy indicator is showing (a computation runs for more than half a second)."""
        return not self.busy.isHidden()

    def _show_busy(self) -> None:
        if self._counting:
            modes = " and ".join(sorted(self._counting))
            self.busy_label.setText(f"Counting every hand of the deck ({modes} joker)…")
            self.busy.show()
            self.busy_label.show()

    def _on_counts(self, joker: str, result: HandCounts | BaseException) -> None:
        if not shiboken6.isValid(self):  # closed and deleted while it counted
            return
        self._counting.discard(joker)
        if not self._counting:
            self._busy_timer.stop()
            self.busy.hide()
            self.busy_label.hide()
        if isinstance(result, HandCounts):
            self._counts[joker] = result
        else:
            log.error("counting the %s joker hands failed: %s", joker, result)
            if self.current is not None and self.current.joker == joker:
                self.error.setText(f"The hand counts ({joker} joker) could not be computed: "
                                   f"{result}")
                self.error.show()
            return
        if self.current is not None and self.current.joker == joker:
            self._render(self.current, result)

    # -- rendering ---------------------------------------------------------------------------
    def _render(self, table: Paytable, counts: HandCounts) -> None:
        if table.kind == "bonus":
            self._render_bonus(table, counts)
        else:
            self._render_progressive(table, counts)
        self._show_risk_for(table)

    def _render_bonus(self, table: Paytable, counts: HandCounts) -> None:
        e = bonus_edge(table, counts, others=MAX_OTHERS)
        total = counts.total
        self.fig_return.set(percent_text(e.ret), "Return (no envy)")
        self.fig_edge.set(percent_text(e.house_edge), "House edge")
        self.fig_third.show()
        self.fig_third.set(percent_text(e.house_edge_with_envy),
                           f"House edge with envy, {MAX_OTHERS} others")
        rows: list[list[str]] = []
        for hand in (*HAND_IDS, NOTHING):
            n = e.best[hand]
            pay = table.pay_for(hand)
            if pay is not None:
                pays = _pay_text(table, pay, self._money)
                returned = Fraction(n * ((pay.odds or 0) + 1), total)
            elif hand == "THREE_PAIR" and table.three_pair == "push":
                pays, returned = "push", Fraction(n, total)
            else:
                pays, returned = "loses", Fraction(0)
            rows.append([hand_label(hand), pays, f"{n:,}", _probability(n, total),
                         _one_in(n, total), percent_text(returned) if returned else "—"])
        rows.append(["Total", "", f"{total:,}", "1", "", percent_text(e.ret)])
        self.hands.fill(rows, bold_last=True)
        self.hands_note.setText(
            "Every one of the C(53,7) = 154,143,080 hands, counted exactly, by best hand. "
            "Return = probability × (odds + 1); the house edge is 1 − return.")
        envy_rows = []
        for others in range(MAX_OTHERS + 1):
            w = bonus_edge(table, counts, others=others)
            envy_rows.append([str(others), percent_text(w.return_with_envy),
                              percent_text(w.house_edge_with_envy)])
        self.envy.fill(envy_rows)
        self.envy_note.setText(
            f"RULES.md 2: each OTHER player's four of a kind or better pays the envy amount. "
            f"Envy returns {percent_text(e.envy_per_other)} of the $5 Fortune wager per other "
            "player (fixed envy amounts).")
        self.envy_box.show()
        self._set_live_panels([])

    def _render_progressive(self, table: Paytable, counts: HandCounts) -> None:
        e = progressive_edge(table, counts)
        assert table.wager_cents is not None
        wager, total = table.wager_cents, counts.total
        self.fig_return.set(percent_text(e.return_fixed), "Return of the fixed pays")
        per = "\n".join(f"{lv} {percent_text(v * 1000)}" if len(e.per_meter) > 1
                        else percent_text(v * 1000) for lv, v in e.per_meter.items())
        self.fig_edge.set(per, f"Return per {self._money.text(100_000)} of meter"
                          + (f" ({table.levels[0]})" if len(table.levels) == 1 else ""))
        if e.break_even_cents is not None:
            self.fig_third.set(self._money.text(e.break_even_cents),
                               "Break-even meter (return 100%)")
        else:  # several levels: the break-even is a plane, not a point
            self.fig_third.set("—", "Break-even meter")
        self.fig_third.setVisible(e.break_even_cents is not None)
        groups = self._groups_of(table)
        if groups and not self._live_read:  # the meters are being read: drawn when they are
            self._clear_figures()
            self._read_meters()
            return
        if groups and self._meters_dirty:  # moved while another table was shown: read again
            self._meters_dirty = False
            self._read_meters()
        live = self._live if groups else None
        meters = ({name: live.get(groups[0].id, {}).get(name, 0) for name in groups[0].level_names}
                  if groups and live is not None else None)
        rows: list[list[str]] = []
        for pay in table.pays:
            n = e.pay_counts[pay.hand]
            if pay.fraction is None:
                returned: str = percent_text(Fraction(n * table.fixed_cents(pay), total * wager))
            elif meters is not None:
                assert pay.level is not None
                num, den = pay.fraction.as_integer_ratio()
                paid = meters[pay.level] * num // den  # rounded down, as it is paid
                returned = percent_text(Fraction(n * paid, total * wager))
            else:
                per_k = Fraction(n, total) * Fraction(pay.fraction) * 100 / wager * 1000
                returned = f"{percent_text(per_k)} per $1,000"
            rows.append([hand_label(pay.hand), _pay_text(table, pay, self._money), f"{n:,}",
                         _probability(n, total), _one_in(n, total), returned])
        none = e.pay_counts[None]
        rows.append(["No pay", "loses the wager", f"{none:,}", _probability(none, total),
                     _one_in(none, total), "—"])
        rows.append(["Total", "", f"{total:,}", "1", "", ""])
        self.hands.fill(rows, bold_last=True)
        basis = (f"at the live meter of {groups[0].name}" if meters is not None
                 else "per $1,000 of meter (no group of this floor uses the table)")
        self.hands_note.setText(
            "Hands counted exactly by the best hand the table LISTS (a hand it does not list "
            "pays as the best listed hand the same cards make). Return per unit wagered; "
            f"percentage pays {basis}, rounded down to the cent as they are paid.")
        self.envy_box.hide()
        self._set_live_panels(groups)
        if live is not None:
            self._refresh_live(table, counts, live)

    # -- live return -------------------------------------------------------------------------
    def _set_live_panels(self, groups: Sequence[GroupConfig]) -> None:
        if [g.id for g in groups] == list(self.live_panels):
            return
        for panel in self.live_panels.values():
            self._live_layout.removeWidget(panel)
            panel.deleteLater()
        self.live_panels = {}
        for g in groups:
            panel = LivePanel(g)
            self._live_layout.addWidget(panel)
            self.live_panels[g.id] = panel

    def _on_floor_change(self, change: Any) -> None:
        """A committed change (on the GUI thread, from the bridge): only note that a meter
        moved."""
        if getattr(change, "levels", None):
            self._meters_dirty = True

    def _tick(self) -> None:
        if not self._meters_dirty or not self.live_panels:
            return
        self._meters_dirty = False
        self._read_meters()

    def _read_meters(self) -> None:
        """Read the meters off the GUI thread; the answer redraws the live return."""
        floor = self.console.floor
        self.bridge.query(lambda: _meters_of(floor), self._meters_read, self._meters_failed,
                          key=f"paytable-meters:{id(self)}")

    def _meters_read(self, live: LiveMeters) -> None:
        if not shiboken6.isValid(self):  # closed and deleted while the read ran
            return
        self._live, self._live_read = live, True
        self._redraw_progressive()

    def _meters_failed(self, exc: BaseException) -> None:
        """The ledger could not be read: said on screen; the last figures stay."""
        if not shiboken6.isValid(self):
            return
        log.warning("paytable screen: reading the meters failed: %s", exc)
        self.error.setText(f"The meters could not be read: {exc}")
        self.error.show()
        if not self._live_read:  # never read: draw what needs no meter
            self._live_read = True
            self._redraw_progressive()

    def _redraw_progressive(self) -> None:
        table = self.current
        counts = self._counts.get(table.joker) if table is not None else None
        if table is not None and counts is not None and table.kind == "progressive":
            # the per-hand returns of the meter pays depend on the meter: redraw them too
            self._render_progressive(table, counts)

    def _refresh_live(self, table: Paytable, counts: HandCounts,
                      live: dict[str, dict[str, int]]) -> None:
        for gid, panel in self.live_panels.items():
            g = panel.group
            got = live.get(gid, {})
            meters = {name: got.get(name, 0) for name in g.level_names}
            e = progressive_edge(
                table, counts, meters=[meters],
                contribution_rates={lv.name: lv.contribution_rate for lv in g.levels},
                reserve_rates={lv.name: lv.reserve_rate for lv in g.levels})
            point = e.points[0]
            if len(meters) == 1:
                panel.meters.set(self._money.text(next(iter(meters.values()))),
                                 f"Meter {g.level_names[0]}")
            else:
                panel.meters.set("\n".join(f"{lv} {self._money.text(c)}"
                                           for lv, c in meters.items()), "Meters")
            panel.ret.set(percent_text(point.ret))
            panel.edge.set(percent_text(point.house_edge))
            lines = []
            for lv, growth in zip(g.levels, e.growth, strict=True):
                lines.append(
                    f"{lv.name}: seed {self._money.text(lv.seed_cents)} · "
                    f"contribution {_rate(lv.contribution_rate)} · reserve "
                    f"{_rate(lv.reserve_rate)} · hit 1 in "
                    f"{round(growth.wagers_per_hit):,} wagers · rises about "
                    f"{self._symbol}{_money(growth.rise_per_hit)} between hits")
            pays = "every pay from the meter" if g.all_pays_from_meter else \
                "only percentage pays from the meter"
            lines.append(f"{pays}; {'lock at hit' if g.lock_at_hit else 'fixed at pay'}")
            panel.settings.setText("\n".join(lines))
            warnings = self._warnings(g)
            panel.warnings.setText("\n".join(f"▲ {w}" for w in warnings))
            panel.warnings.setVisible(bool(warnings))
            ceiling = table.preconfigured_contribution_rate
            if ceiling is None:
                panel.note.setText(PRECONFIGURED_NOTE)
            else:
                panel.note.setText(f"Contribution ceiling (RULES.md 4): {table.id} is "
                                   f"preconfigured at {_rate(ceiling)}; a higher rate needs an "
                                   "executive's recorded approval (podium employees "
                                   "approve-contribution).")
            panel.note.setVisible(not g.all_pays_from_meter)

    def _warnings(self, group: GroupConfig) -> list[str]:
        """RULES.md 4 warnings of one group: those the floor configuration gives
        (``core.floorconfig.validate``), for this group alone."""
        config = self.console.config
        try:
            found = validate(replace(config, groups=(group,)), self.console.paytables)
        except FloorConfigError as exc:  # the console would not have started; show it
            return [str(exc)]
        prefix = f"{config.source}: group {group.id}: "
        return [w[len(prefix):] if w.startswith(prefix) else w for w in found]

    # -- meter risk --------------------------------------------------------------------------
    def _init_risk(self) -> None:
        self.risk_panel: MeterRiskPanel | None = None
        self._risk_running = False
        if self._risk is None:
            self.risk_status.setText(
                "PLACEHOLDER: the meter risk simulator (core/tablegames/meters/risk.py) is not "
                "installed in this build, so the distribution of the meter and the chance of "
                "running dry can not be shown yet.")
            self.risk_status.setObjectName("warn")
            return
        self.risk_box.setTitle("")
        self.risk_box.setFlat(True)
        self.risk_status.hide()
        self.risk_panel = MeterRiskPanel()
        self.risk_panel.run_requested.connect(self.run_meter_risk)
        self._risk_layout.addWidget(self.risk_panel)

    def _risk_setup(self, table: Paytable) -> tuple[GroupConfig | None, str]:
        groups = self._groups_of(table)
        if not groups:
            return None, (f"No group of this floor uses {table.id}: there is no seed or "
                          "rate to simulate.")
        g = groups[0]
        return g, (f"{g.name}: {RISK_PATHS} meters × {RISK_ROUNDS:,} rounds of one "
                   f"{self._money.text(table.wager_cents or 0)} wager, from the live "
                   f"meter, with the group's seed and rates"
                   f"{', every pay from the meter' if g.all_pays_from_meter else ''}; "
                   f"a Monte Carlo (random draws from the exact probabilities), seed "
                   f"{RISK_SEED}.")

    def _show_risk_for(self, table: Paytable) -> None:
        self.risk_box.setVisible(table.kind == "progressive")
        panel = self.risk_panel
        if panel is None or table.kind != "progressive":
            return
        panel.set_levels(table.levels)
        group, text = self._risk_setup(table)
        if not self._risk_running:
            panel.status.setText(text)
            panel.run_btn.setEnabled(group is not None)

    def run_meter_risk(self) -> None:
        """Simulate the selected table's first floor group on a worker thread."""
        table, panel = self.current, self.risk_panel
        if table is None or panel is None or self._risk_running:
            return
        counts = self._counts.get(table.joker)
        group, _ = self._risk_setup(table)
        if counts is None or group is None:
            return
        live = self._live or {}  # as last read (at most a second behind the floor)
        starts = {lv: c for lv, c in live.get(group.id, {}).items() if lv in table.levels}
        risk = self._risk
        try:
            plans = risk.level_plans(
                table, {lv.name: lv.seed_cents for lv in group.levels},
                {lv.name: lv.contribution_rate for lv in group.levels},
                {lv.name: lv.reserve_rate for lv in group.levels}, starts_cents=starts)
        except ValueError as exc:
            panel.status.setText(f"Can not simulate: {exc}")
            return
        self._risk_running = True
        panel.run_btn.setEnabled(False)
        panel.status.setText(f"Simulating {group.name}…")
        # the busy bar is the timer's context: if it is gone, the timer is cancelled with it
        QTimer.singleShot(BUSY_AFTER_MS, panel.busy,
                          lambda: panel.busy.setVisible(self._risk_running))
        apfm = group.all_pays_from_meter
        rounds, paths = RISK_ROUNDS, RISK_PATHS

        def work() -> tuple[Any, Any]:
            sim = risk.simulate(table, counts, plans, rounds=rounds, paths=paths,
                                all_pays_from_meter=apfm, rng_seed=RISK_SEED)
            return sim, risk.plot_data(sim)

        self.bridge.compute(work, lambda result: self._on_risk(table.id, result),
                            lambda exc: self._on_risk(table.id, exc))

    def _on_risk(self, table_id: str, result: tuple[Any, Any] | BaseException) -> None:
        if not shiboken6.isValid(self):  # closed and deleted while it simulated
            return
        self._risk_running = False
        panel = self.risk_panel
        if panel is None:
            return
        panel.busy.hide()
        panel.run_btn.setEnabled(True)
        if not isinstance(result, tuple):
            log.warning("meter risk simulation of %s failed: %s", table_id, result)
            panel.status.setText(f"The simulation failed: {result}")
            return
        if self.current is None or self.current.id != table_id:
            return  # another table is selected now
        sim, plots = result
        panel.show_result(sim, plots, self._money)
        panel.status.setText(f"{table_id}: {sim.paths} meters × {sim.rounds:,} rounds "
                             f"({sim.wagers:,} wagers), simulated.")


def _meters_of(floor: Any) -> LiveMeters:
    """On a worker thread: every level's meter, group -> level -> cents (rounded down)."""
    out: LiveMeters = {}
    for lv in floor.snapshot().levels:
        out.setdefault(lv.group, {})[lv.level] = units_floor_cents(lv.meter_units)
    return out


def _rate(rate: Any) -> str:
    return f"{fraction_text(Fraction(rate) * 100, 8)}%"


def _money(value: Fraction) -> str:
    cents = value * 100 + Fraction(1, 2)
    whole, frac = divmod(cents.numerator // cents.denominator, 100)
    return f"{whole:,}.{frac:02d}"


def _find_meter_risk() -> Any:
    """``core.tablegames.meters.risk`` when it is installed, else None (the panel says so)."""
    try:
        return importlib.import_module("core.tablegames.meters.risk")
    except ImportError:
        return None


__all__ = ["BUSY_AFTER_MS", "LIVE_REFRESH_MS", "Figure", "FigureTable", "LivePanel",
           "MeterRiskPanel", "PaytableScreen"]
