"""The paytable screen (administrators): every installed paytable, its hands with their exact
counts and probabilities, its return and house edge, and for a progressive group of the floor
the live return at the current meters with the configuration warnings of RULES.md section 4.

Every figure comes from ``core.tablegames.rules.edge`` (exact ``Fraction`` arithmetic over the
exact counts of ``core.tablegames.rules.enumerate.count_hands``), written by paytable_text.py:
the screen holds no rule and writes nothing.  Its parts: paytable_figures.py (a figure, a
table of figures), paytable_live.py (a group's live panel), meter_risk_panel.py (the meter
risk simulation and its chart).

Threads (everything through the bridge, gui/common/bridge.py): the count of a joker mode can take
longer than half a second the first time (empty disk cache), so it always runs on a compute
thread (``Bridge.compute``) and its result comes back on the GUI thread.  A busy indicator
shows only when the count is still running after ``BUSY_AFTER_MS``.  The floor's
announcements reach the screen through ``Bridge.listen`` (removed with the screen) and only
mark the meters stale; a one-second timer then reads them off the GUI thread
(``Bridge.query``), so the live return follows the meters at most once a second however fast
they move, and the GUI thread never reads the ledger.  Every answer is given to the screen
only while it exists (the bridge's ``owner``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.floorconfig import GroupConfig
from core.kernel.money import DOLLARS, Currency
from core.tablegames.rules.edge import MAX_OTHERS, bonus_edge, percent_text, progressive_edge
from core.tablegames.rules.enumerate import HandCounts, count_hands
from core.tablegames.rules.paytables import Paytable, distinct_paytables
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.tablegames.meter_risk_panel import MeterRiskBox, find_meter_risk
from gui.tablegames.paytable_figures import BUSY_AFTER_MS, Figure, FigureTable, label
from gui.tablegames.paytable_live import LivePanel, group_warnings
from gui.tablegames.paytable_text import (
    ENVY_COLUMNS,
    HAND_COLUMNS,
    LiveMeters,
    bonus_rows,
    envy_rows,
    meters_of,
    progressive_rows,
)

log = logging.getLogger("podium.gui.paytables")

LIVE_REFRESH_MS = 1000  # the live return follows the meters at most once a second

CountFn = Callable[[str], HandCounts]


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
        # the floor's currency as the casino's locale writes it
        self._money: Currency = getattr(console.config, "money", DOLLARS)
        self.tables = distinct_paytables(console.paytables)
        self.current: Paytable | None = None
        self.live_panels: dict[str, LivePanel] = {}
        risk = find_meter_risk() if meter_risk == "auto" else meter_risk

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

        self.title = label("", "title", wrap=True)
        self._body.addWidget(self.title)
        self.subtitle = label("", "muted", wrap=True)
        self._body.addWidget(self.subtitle)

        busy_row = QHBoxLayout()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # busy, no percentage
        self.busy.setTextVisible(False)
        self.busy.setMaximumWidth(260)
        self.busy_label = label("Counting every hand of the deck…", "warn", wrap=True)
        busy_row.addWidget(self.busy)
        busy_row.addWidget(self.busy_label, 1)
        self._body.addLayout(busy_row)
        self.busy.hide()
        self.busy_label.hide()
        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.timeout.connect(self._show_busy)

        self.error = label("", "alert", wrap=True)
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
        self.hands_note = label("", "muted", wrap=True)
        self._body.addWidget(self.hands_note)

        self.envy_box = QGroupBox("Envy")
        eb = QVBoxLayout(self.envy_box)
        self.envy_note = label("", "muted", wrap=True)
        eb.addWidget(self.envy_note)
        self.envy = FigureTable(ENVY_COLUMNS)
        eb.addWidget(self.envy)
        self._body.addWidget(self.envy_box)

        self.live_box = QWidget()
        self._live_layout = QVBoxLayout(self.live_box)
        self._live_layout.setContentsMargins(0, 0, 0, 0)
        self._body.addWidget(self.live_box)

        self.risk_box = MeterRiskBox(risk, self._money, lambda: self.current)
        self.risk_panel = self.risk_box.panel
        if self.risk_panel is not None:
            self.risk_panel.run_requested.connect(self.run_meter_risk)
        self._body.addWidget(self.risk_box)
        self._body.addStretch(1)

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
                            lambda exc: self._on_counts(joker, exc), owner=self)

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
        groups = self._groups_of(table)
        self.risk_box.show_for(table, groups[0] if groups else None)

    def _render_bonus(self, table: Paytable, counts: HandCounts) -> None:
        e = bonus_edge(table, counts, others=MAX_OTHERS)
        self.fig_return.set(percent_text(e.ret), "Return (no envy)")
        self.fig_edge.set(percent_text(e.house_edge), "House edge")
        self.fig_third.show()
        self.fig_third.set(percent_text(e.house_edge_with_envy),
                           f"House edge with envy, {MAX_OTHERS} others")
        self.hands.fill(bonus_rows(table, counts, self._money), bold_last=True)
        self.hands_note.setText(
            "Every one of the C(53,7) = 154,143,080 hands, counted exactly, by best hand. "
            "Return = probability × (odds + 1); the house edge is 1 − return.")
        self.envy.fill(envy_rows(table, counts))
        self.envy_note.setText(
            f"RULES.md 2: each OTHER player's four of a kind or better pays the envy amount. "
            f"Envy returns {percent_text(e.envy_per_other)} of the $5 Fortune wager per other "
            "player (fixed envy amounts).")
        self.envy_box.show()
        self._set_live_panels([])

    def _render_progressive(self, table: Paytable, counts: HandCounts) -> None:
        e = progressive_edge(table, counts)
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
        rows = progressive_rows(table, counts, e.pay_counts, meters, self._money)
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
        self.bridge.query(lambda: meters_of(floor), self._meters_read, self._meters_failed,
                          key=f"paytable-meters:{id(self)}", owner=self)

    def _meters_read(self, live: LiveMeters) -> None:
        self._live, self._live_read = live, True
        self._redraw_progressive()

    def _meters_failed(self, exc: BaseException) -> None:
        """The ledger could not be read: said on screen; the last figures stay."""
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

    def _refresh_live(self, table: Paytable, counts: HandCounts, live: LiveMeters) -> None:
        config, paytables = self.console.config, self.console.paytables
        for panel in self.live_panels.values():
            panel.show_meters(table, counts, live, self._money,
                              group_warnings(config, paytables, panel.group))

    # -- meter risk --------------------------------------------------------------------------
    def run_meter_risk(self) -> None:
        """Simulate the selected table's first floor group on a compute thread."""
        table = self.current
        if table is None:
            return
        counts = self._counts.get(table.joker)
        groups = self._groups_of(table)
        if counts is None or not groups:
            return
        # the meters as last read (at most a second behind the floor)
        self.risk_box.run(table, counts, groups[0], self._live or {})


__all__ = ["BUSY_AFTER_MS", "LIVE_REFRESH_MS", "PaytableScreen"]
