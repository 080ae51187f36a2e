"""Floor widgets: table tiles, meter tiles with trend plots, the hit queue.

They show what they are given and emit what the user asks for; they hold no rule and never touch
the ledger (STYLE.md).  Repaint is throttled by the main window, not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.money import format_cents
from gui import theme
from gui.cards import hand_label, with_hand_names


@dataclass(frozen=True)
class TableView:
    id: str
    name: str
    group: str
    paytable: str
    online: bool
    round_no: int | None
    round_state: str
    pending_hits: int
    detail: str = ""


@dataclass(frozen=True)
class LevelView:
    group: str
    group_name: str
    level: str
    meter_cents: int
    reserve_cents: int
    seed_cents: int


@dataclass(frozen=True)
class HitView:
    id: int
    ref: str
    table: str
    seat: int
    round_no: int
    hand: str
    wager_cents: int | None
    flags: tuple[str, ...]
    received_at: datetime | None
    state: str = "pending"


def _label(text: str = "", name: str = "", align: Qt.AlignmentFlag | None = None) -> QLabel:
    lab = QLabel(text)
    if name:
        lab.setObjectName(name)
    if align is not None:
        lab.setAlignment(align)
    return lab


class TableTile(QFrame):
    def __init__(self, table_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table_id = table_id
        self.setObjectName("panel")
        self.setMinimumSize(230, 128)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8)
        top = QHBoxLayout()
        self.name = _label("", "title")
        self.link = _label("", "ok", Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        top.addWidget(self.name)
        top.addStretch(1)
        top.addWidget(self.link)
        lay.addLayout(top)
        self.game = _label("", "muted")
        lay.addWidget(self.game)
        self.round = _label("")
        lay.addWidget(self.round)
        self.pending = _label("")
        self.pending.setWordWrap(True)
        lay.addWidget(self.pending)
        self._shown: TableView | None = None
        self._border = ""

    def show_table(self, t: TableView) -> None:
        if t == self._shown:
            return  # nothing changed: no relayout, no restyle
        self._shown = t
        self.name.setText(t.name)
        self.game.setText(f"{t.paytable} · {t.group}")
        if t.online:
            self.link.setText("● ONLINE")
            self.link.setObjectName("ok")
        else:
            self.link.setText("● OFFLINE")
            self.link.setObjectName("alert")
        self.link.setStyle(self.link.style())
        rnd = f"Round {t.round_no}" if t.round_no else "No round yet"
        state = t.round_state.replace("_", " ").lower()
        self.round.setText(f"{rnd} · {state}" if t.online else "Progressive LOCKED (link down)")
        if t.pending_hits:
            plural = "S" if t.pending_hits > 1 else ""
            self.pending.setText(f"▲ {t.pending_hits} HIT{plural} WAITING")
            self.pending.setObjectName("alert")
            border = theme.ALERT
        else:
            self.pending.setText(t.detail)
            self.pending.setToolTip(t.detail)
            self.pending.setObjectName("muted" if t.online else "alert")
            border = theme.ALERT if not t.online else "#2f3640"
        self.pending.setStyle(self.pending.style())
        if border != self._border:  # a style sheet is re-parsed: only when the colour changes
            self._border = border
            self.setStyleSheet(
                f"QFrame#panel {{ border: 2px solid {border}; border-radius: 8px; "
                f"background: {theme.PANEL}; }}"
            )


class MeterTile(QFrame):
    """One meter: the amount large, the reserve and seed small, and its trend with hits marked."""

    def __init__(self, key: tuple[str, str], parent: QWidget | None = None,
                 tz: ZoneInfo | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.setObjectName("panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8)
        head = QHBoxLayout()
        self.title = _label("", "muted")
        head.addWidget(self.title)
        head.addStretch(1)
        self.sub = _label("", "muted", Qt.AlignmentFlag.AlignRight)
        head.addWidget(self.sub)
        lay.addLayout(head)
        self.amount = _label("", "money")
        lay.addWidget(self.amount)
        # the time axis in the casino's local time (pyqtgraph's offset: seconds WEST of UTC)
        offset = (tz or ZoneInfo("UTC")).utcoffset(datetime.now()) or timedelta(0)
        self.time_axis = pg.DateAxisItem(orientation="bottom",
                                         utcOffset=-int(offset.total_seconds()))
        self.plot = pg.PlotWidget(background=theme.PANEL, axisItems={"bottom": self.time_axis})
        self.plot.setMinimumHeight(90)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.getPlotItem().setDownsampling(auto=True, mode="peak")
        self.plot.getPlotItem().setClipToView(True)
        axis_pen = pg.mkPen(theme.MUTED)
        for ax in ("left", "bottom"):
            self.plot.getAxis(ax).setPen(axis_pen)
            self.plot.getAxis(ax).setTextPen(axis_pen)
        self.curve = self.plot.plot([], [], pen=pg.mkPen(theme.ACCENT, width=2))
        self.hits = pg.ScatterPlotItem(size=11, brush=pg.mkBrush(theme.ALERT), pen=None, symbol="t")
        self.plot.addItem(self.hits)
        lay.addWidget(self.plot, 1)
        self._xs: list[float] = []
        self._ys: list[float] = []
        self._shown_level: LevelView | None = None

    def show_level(self, lv: LevelView) -> None:
        if lv == self._shown_level:
            return
        self._shown_level = lv
        self.title.setText(f"{lv.group_name} · {lv.level}")
        self.amount.setText(format_cents(lv.meter_cents, "$"))
        self.sub.setText(f"reserve {format_cents(lv.reserve_cents, '$')} · seed "
                         f"{format_cents(lv.seed_cents, '$')}")

    def show_history(self, xs: list[float], ys: list[float], hit_xs: list[float],
                     hit_ys: list[float]) -> None:
        # Plot coordinates only: the amounts shown as text come from exact cents above.
        self._xs, self._ys = list(xs), list(ys)
        self.curve.setData(self._xs, self._ys)
        self.hits.setData(hit_xs, hit_ys)

    def add_point(self, x: float, y: float, *, window_s: float, max_points: int) -> None:
        """A new meter value at time ``x`` (one point per transaction; drawn by
        :meth:`redraw`); points older than ``window_s`` before it are dropped."""
        if self._xs and self._xs[-1] >= x:
            self._ys[-1] = y
        else:
            self._xs.append(x)
            self._ys.append(y)
        cut = 0
        while cut < len(self._xs) and (self._xs[cut] < x - window_s
                                       or len(self._xs) - cut > max_points):
            cut += 1
        if cut:
            del self._xs[:cut], self._ys[:cut]

    def redraw(self) -> None:
        self.curve.setData(self._xs, self._ys)


HIT_COLUMNS = ("Hit", "Table", "Seat", "Round", "Claimed hand", "Wager", "Waiting", "Flags")


class HitQueue(QTableWidget):
    """Pending hits, oldest first; flagged ones in red.  Double-click or Enter opens
    verification."""

    openHit = Signal(int)  # noqa: N815

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(HIT_COLUMNS), parent)
        self.setHorizontalHeaderLabels(HIT_COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        hdr = self.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hdr.setStretchLastSection(True)
        self.cellDoubleClicked.connect(lambda row, _col: self._open(row))
        self._ids: list[int] = []

    def keyPressEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self._open(self.currentRow())
            return
        super().keyPressEvent(event)

    def _open(self, row: int) -> None:
        if 0 <= row < len(self._ids):
            self.openHit.emit(self._ids[row])

    def hit_ids(self) -> list[int]:
        return list(self._ids)

    def show_hits(self, hits: list[HitView], now: datetime) -> None:
        selected = self._ids[self.currentRow()] if 0 <= self.currentRow() < len(self._ids) else None
        self.setRowCount(len(hits))
        self._ids = [h.id for h in hits]
        for r, h in enumerate(hits):
            waited = ""
            if h.received_at is not None:
                secs = max(0, int((now - h.received_at).total_seconds()))
                waited = f"{secs // 60}:{secs % 60:02d}"
            wager = format_cents(h.wager_cents, "$") if h.wager_cents is not None else "NONE"
            values = (h.ref, h.table, str(h.seat), str(h.round_no), hand_label(h.hand), wager,
                      waited, with_hand_names("; ".join(h.flags)))
            for c, v in enumerate(values):
                item = QTableWidgetItem(v)
                if h.flags:
                    item.setForeground(QColor(theme.ALERT))
                elif c == 4:
                    item.setForeground(QColor(theme.ACCENT))
                self.setItem(r, c, item)
        if selected in self._ids:
            self.selectRow(self._ids.index(selected))
        elif hits and self.currentRow() < 0:
            self.selectRow(0)


class TableGrid(QScrollArea):
    """Every table as a tile, in as many columns as fit; scrolls for a large pit (only what is
    visible is painted, and a tile whose table did not change is not touched)."""

    TILE_WIDTH = 240

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        inner = QWidget()
        self._grid = QGridLayout(inner)
        self._grid.setSpacing(10)
        self._grid.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setWidget(inner)
        self._tiles: dict[str, TableTile] = {}
        self._order: list[str] = []
        self._columns = 3

    def _fit_columns(self) -> int:
        width = self.viewport().width() if self.isVisible() else 3 * (self.TILE_WIDTH + 10)
        return max(1, width // (self.TILE_WIDTH + 10))

    def show_tables(self, tables: list[TableView]) -> None:
        for t in tables:
            tile = self._tiles.get(t.id)
            if tile is None:
                tile = TableTile(t.id)
                self._tiles[t.id] = tile
                self._order.append(t.id)
                i = len(self._order) - 1
                self._grid.addWidget(tile, i // self._columns, i % self._columns)
            tile.show_table(t)

    def resizeEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        super().resizeEvent(event)
        columns = self._fit_columns()
        if columns != self._columns and self._order:
            self._columns = columns
            for i, tid in enumerate(self._order):
                self._grid.addWidget(self._tiles[tid], i // columns, i % columns)
        else:
            self._columns = columns

    def tile(self, table_id: str) -> TableTile:
        return self._tiles[table_id]
