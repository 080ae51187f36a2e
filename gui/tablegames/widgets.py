"""Floor widgets: table tiles, meter tiles with trend plots, the hit queue.

They show what they are given and emit what the user asks for; they hold no rule and never touch
the ledger (STYLE.md).  Repaint is throttled by the main window, not here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pyqtgraph as pg
from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.kernel.money import DOLLARS, Currency
from core.tablegames.flags import FlagCode
from gui.common import theme
from gui.common.axes import LocalTimeAxis, MoneyAxis, scrolls_page
from gui.common.cards import hand_label, with_hand_names
from gui.common.fit_label import FitLabel
from gui.common.selection import reselect, selected_key


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
    wager_seats: tuple[int, ...] = ()  # locked progressive wagers of the current round
    pit: str = ""  # the pit it stands in ("" none named)
    # who serves its controller link (a shared PostgreSQL ledger; "" on one podium, SQLite,
    # where this console serves every table and the tile says nothing of it)
    service: str = ""
    service_up: bool = True
    service_detail: str = ""  # in words (the tooltip): "served by ... since" / "NO SERVICE: ..."


@dataclass(frozen=True)
class LevelView:
    group: str
    group_name: str
    level: str
    meter_cents: int
    reserve_cents: int
    seed_cents: int
    frozen_cents: int = 0  # Jackpot Lock: the amounts fixed for hits still waiting
    frozen_hits: int = 0


@dataclass(frozen=True)
class HitView:
    id: int
    ref: str
    table: str
    seat: int
    round_no: int
    hand: str
    wager_cents: int | None
    flags: tuple[str, ...]  # their words, as shown
    received_at: datetime | None
    state: str = "pending"
    codes: tuple[FlagCode, ...] = ()  # the flags as codes: what the screen decides on



def _label(text: str = "", name: str = "", align: Qt.AlignmentFlag | None = None) -> QLabel:
    lab = QLabel(text)
    if name:
        lab.setObjectName(name)
    if align is not None:
        lab.setAlignment(align)
    return lab


@dataclass(frozen=True)
class TileText:
    """What a table's tile says, line by line (painted by :class:`TileDelegate`)."""

    name: str
    link: str
    link_alert: bool
    game: str
    round: str
    bets: str
    note: str
    note_alert: bool
    border_alert: bool
    service: str = ""  # who serves the table ("" on one podium: nothing to say)
    service_alert: bool = False
    tooltip_detail: str = ""  # the service in words, for the tooltip


def tile_text(t: TableView) -> TileText:
    """A table's tile in words.  A table whose floor service is down (or that none serves)
    says NO SERVICE whatever the ledger's ``online`` flag says: a killed service never wrote
    its tables OFFLINE, and nobody answers their controllers."""
    rnd = f"Round {t.round_no}" if t.round_no else "No round yet"
    state = t.round_state.replace("_", " ").lower()
    no_service = bool(t.service_detail) and not t.service_up
    online = t.online and not no_service
    if t.pending_hits:
        plural = "S" if t.pending_hits > 1 else ""
        note, note_alert = f"▲ {t.pending_hits} HIT{plural} WAITING", True
    elif no_service:
        note, note_alert = "", True
    else:
        note, note_alert = t.detail, not online
    if no_service:  # nobody records the round's bets now
        bets = ""
    elif t.wager_seats:
        bets = "Bets: seat " + " ".join(str(seat) for seat in t.wager_seats)
    else:
        bets = "No progressive bets" if t.round_state == "locked" else ""
    if no_service:
        link = "● NO SERVICE"
        service = (f"{t.service} is down" if t.service and not t.service.startswith("#")
                   else "no floor service serves it")
        round_ = "Progressive LOCKED"  # nobody links its controller
    else:
        link = "● ONLINE" if online else "● OFFLINE"
        service = f"served by {t.service}" if t.service else ""
        round_ = f"{rnd} · {state}" if online else "Progressive LOCKED (link down)"
    return TileText(
        name=t.name, link=link, link_alert=not online,
        game=f"{t.paytable} · {t.group}",
        round=round_,
        bets=bets,
        note=note, note_alert=note_alert,
        border_alert=bool(t.pending_hits) or not online,
        service=service, service_alert=no_service, tooltip_detail=t.service_detail)


class TableListModel(QAbstractListModel):
    """The floor's tables, one row each, in floor order; a row changes only when its table's
    view does (so a floor of hundreds repaints a handful of tiles per change)."""

    ViewRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._views: dict[str, TableView] = {}

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._ids)

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._ids):
            return None
        view = self._views[self._ids[index.row()]]
        if role == self.ViewRole:
            return view
        if role == Qt.ItemDataRole.DisplayRole:
            return view.name
        if role == Qt.ItemDataRole.ToolTipRole:
            text = tile_text(view)
            return "\n".join(x for x in (text.name, text.link, text.game, text.round, text.note,
                                          text.tooltip_detail) if x)
        return None

    def update(self, views: list[TableView]) -> None:
        new = [v for v in views if v.id not in self._rows]
        if new:
            first = len(self._ids)
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            for v in new:
                self._rows[v.id] = len(self._ids)
                self._ids.append(v.id)
                self._views[v.id] = v
            self.endInsertRows()
        for v in views:
            if self._views.get(v.id) != v:
                self._views[v.id] = v
                idx = self.index(self._rows[v.id])
                self.dataChanged.emit(idx, idx)

    def view(self, table_id: str) -> TableView:
        return self._views[table_id]

    def view_at(self, row: int) -> TableView:
        return self._views[self._ids[row]]


class TileDelegate(QStyledItemDelegate):
    """Paints a table's tile: name and link state, paytable and link group, round, a hit
    waiting or why the link is down; a red border when the table needs the supervisor."""

    SIZE = QSize(240, 146)
    # lines beyond SIZE: on a shared ledger, the line naming the table's service
    # (TableGrid.show_services); a tile short of room leaves out its paytable line, then its
    # bets
    extra_lines = 0

    def sizeHint(self, option: QStyleOptionViewItem,  # noqa: N802
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        if not self.extra_lines:
            return self.SIZE
        line = QFontMetrics(option.font).height() + 2
        return QSize(self.SIZE.width(), self.SIZE.height() + self.extra_lines * line)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        view = index.data(TableListModel.ViewRole)
        rect = option.rect
        if view is None or rect.width() < 40 or rect.height() < 40:
            return  # (a tile hidden by the pit filter: the icon view still asks it to paint)
        t = tile_text(view)
        painter.save()
        r = option.rect.adjusted(2, 2, -2, -2)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(theme.ALERT if t.border_alert else "#2f3640"), 2))
        painter.setBrush(QColor(theme.PANEL))
        painter.drawRoundedRect(r, 8, 8)
        inner = r.adjusted(12, 8, -12, -8)
        base = QFont(option.font)
        big = QFont(base)
        big.setPointSizeF(base.pointSizeF() * 1.35)
        big.setBold(True)
        bold = QFont(base)
        bold.setBold(True)
        line = QFontMetrics(base).height() + 2
        top = inner.top()
        painter.setFont(big)
        painter.setPen(QColor(theme.TEXT))
        head = QFontMetrics(big).height()
        painter.drawText(QRect(inner.left(), top, inner.width(), head),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, t.name)
        y = top + head + 2
        beside = (QFontMetrics(big).horizontalAdvance(t.name) + 2
                  + QFontMetrics(bold).horizontalAdvance(t.link) <= inner.width())
        link_color = theme.ALERT if t.link_alert else theme.OK
        if beside:  # the link state beside the name
            painter.setFont(bold)
            painter.setPen(QColor(link_color))
            painter.drawText(QRect(inner.left(), top, inner.width(), head),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             t.link)
        # (what, text, font, colour), top to bottom
        rows: list[tuple[str, str, QFont, str]] = []
        if not beside:  # a long name or a long state (NO SERVICE): a line of its own
            rows.append(("link", t.link, bold, link_color))
        rows.append(("game", t.game, base, theme.MUTED))
        if t.service:  # a shared ledger: which floor service answers its controller
            rows.append(("service", t.service, bold if t.service_alert else base,
                         theme.ALERT if t.service_alert else theme.MUTED))
        rows.append(("round", t.round, base, theme.TEXT))
        if t.bets:  # which seats' sensors were lit at START GAME
            rows.append(("bets", t.bets, base, theme.ACCENT))
        if t.note:
            rows.append(("note", t.note, bold if t.note_alert else base,
                         theme.ALERT if t.note_alert else theme.MUTED))
        room = max(0, (inner.bottom() - y + 2) // line)
        for spare in ("game", "bets"):  # too many lines: these say the least
            if len(rows) > room:
                rows = [row for row in rows if row[0] != spare]
        for _what, text, font, color in rows[:room]:
            painter.setFont(font)
            painter.setPen(QColor(color))
            painter.drawText(QRect(inner.left(), y, inner.width(), line),
                             Qt.AlignmentFlag.AlignLeft,
                             QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight,
                                                           inner.width()))
            y += line
        painter.restore()


PLOT_DELAY_MS = 50


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
        head = QHBoxLayout()
        self.title = _label("", "muted")
        head.addWidget(self.title)
        head.addStretch(1)
        # a narrow meters panel: the figures cut with "…" (whole in the tooltip), never a
        # wider tile
        self.sub = FitLabel("")
        self.sub.setObjectName("muted")
        self.sub.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        head.addWidget(self.sub, 1)
        lay.addLayout(head)
        self.amount = _label("", "money")
        lay.addWidget(self.amount)
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
        # long flags are cut with "…" in the last column (whole in the tooltip): the queue
        # never scrolls sideways
        hdr.setSectionResizeMode(len(HIT_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cellDoubleClicked.connect(lambda row, _col: self._open(row))
        self._ids: list[int] = []
        self._since: dict[int, datetime | None] = {}
        self._alerted: set[int] = set()  # hits already sounded for
        self.alert_after_s: float = 300.0
        self.money: Currency = DOLLARS  # the floor's currency (the main window sets it)

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

    WAIT_COLUMN = 6

    def show_hits(self, hits: list[HitView], now: datetime) -> None:
        """The queue again: the hit selected stays selected wherever it moved; when it is gone
        (or none was), the first hit is selected, never the one that moved into its row."""
        selected = selected_key(self, self._ids)
        self.setRowCount(len(hits))
        self._ids = [h.id for h in hits]
        self._since = {h.id: h.received_at for h in hits}
        for r, h in enumerate(hits):
            wager = self.money.text(h.wager_cents) if h.wager_cents is not None else "NONE"
            values = (h.ref, h.table, str(h.seat), str(h.round_no), hand_label(h.hand), wager,
                      "", with_hand_names("; ".join(h.flags)))
            for c, v in enumerate(values):
                item = QTableWidgetItem(v)
                if h.flags:
                    item.setForeground(QColor(theme.ALERT))
                elif c == 4:
                    item.setForeground(QColor(theme.ACCENT))
                if c == len(values) - 1 and v:
                    item.setToolTip(v)  # the flags whole
                self.setItem(r, c, item)
        reselect(self, self._ids, selected if selected in self._ids else
                 (self._ids[0] if self._ids else None))
        self.tick(now)

    def tick(self, now: datetime, alert_after_s: float | None = None) -> list[int]:
        """Bring every row's Waiting time to ``now`` (the console calls this every second);
        a hit waiting ``alert_after_s`` or longer turns its time white on red.  Returns the
        hits that crossed that line since the last tick (the console sounds once for them)."""
        if alert_after_s is not None:
            self.alert_after_s = alert_after_s
        crossed: list[int] = []
        for r, hid in enumerate(self._ids):
            since = self._since.get(hid)
            item = self.item(r, self.WAIT_COLUMN)
            if since is None or item is None:
                continue
            secs = max(0, int((now - since).total_seconds()))
            late = secs >= self.alert_after_s
            item.setText(f"{'⚠ ' if late else ''}{secs // 60}:{secs % 60:02d}")
            if late:
                item.setBackground(QColor(theme.ALERT))
                item.setForeground(QColor("#ffffff"))
                item.setToolTip(f"waiting {secs // 60} min: past the "
                                f"{int(self.alert_after_s // 60)} min of the floor file")
                if hid not in self._alerted:
                    self._alerted.add(hid)
                    crossed.append(hid)
        self._alerted &= set(self._ids)
        return crossed


class TableGrid(QListView):
    """Every table as a tile, as many to a row as fit, scrolling for a large pit.  A model and a
    delegate (not a widget per table): only visible tiles are painted, and only tables whose view
    changed are repainted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_ = TableListModel(self)
        self.setModel(self.model_)
        self.delegate = TileDelegate(self)
        self.setItemDelegate(self.delegate)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setUniformItemSizes(True)
        self.setSpacing(5)
        self.setWrapping(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._pit: str | None = None
        self.model_.rowsInserted.connect(lambda _parent, first, last: self._filter(first, last))

    def show_tables(self, tables: list[TableView]) -> None:
        self.model_.update(tables)

    def show_services(self) -> None:
        """Tiles a line taller, for the line that names the table's floor service (a shared
        ledger)."""
        self.delegate.extra_lines = 1
        self.scheduleDelayedItemsLayout()

    def show_pit(self, pit: str | None) -> None:
        """Only the tiles of ``pit``'s tables (None: every table)."""
        self._pit = pit
        self._filter(0, self.model_.rowCount() - 1)
        self.doItemsLayout()

    def _filter(self, first: int, last: int) -> None:
        for row in range(first, last + 1):
            view = self.model_.view_at(row)
            self.setRowHidden(row, self._pit is not None and view.pit != self._pit)

    def shown(self) -> list[str]:
        """The tables whose tiles the grid shows (in floor order)."""
        return [self.model_.view_at(r).id for r in range(self.model_.rowCount())
                if not self.isRowHidden(r)]

    def tile(self, table_id: str) -> TileText:
        """What the table's tile says now."""
        return tile_text(self.model_.view(table_id))
