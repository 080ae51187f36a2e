"""The floor's tables as tiles: a list model of the tables' views, the delegate that paints a
tile (what it says: ``model.tile_text``), and the grid that shows them, as many to a row as fit.

They show what they are given; they hold no rule and never touch the ledger (STYLE.md).  Repaint
is throttled by the main window, not here."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QListView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from gui.common import theme
from gui.tablegames.model import TableView, TileText, tile_text


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

    def has(self, table_id: str) -> bool:
        return table_id in self._views

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
        """What the table's tile says now: its name alone while the grid has no tile for it
        yet (the console's first picture of the floor comes from a worker, after the window
        shows)."""
        if not self.model_.has(table_id):
            return TileText(name=table_id, link="", link_alert=False, game="", round="",
                            bets="", note="", note_alert=False, border_alert=False)
        return tile_text(self.model_.view(table_id))
