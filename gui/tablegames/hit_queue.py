"""The hit queue: the hits waiting, oldest first, flagged ones in red, each with how long it
has waited (white on red past the floor file's limit).  Double-click or Enter opens a hit's
verification.

It shows what it is given (``model.HitView``); it holds no rule and never touches the ledger
(STYLE.md)."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from core.kernel.money import DOLLARS, Currency
from gui.common import theme
from gui.common.cards import hand_label, with_hand_names
from gui.common.selection import reselect, selected_key
from gui.tablegames.model import HitView

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
