"""The paytable screen's pieces: a big figure with its caption (its number shrinks rather than
widen the screen) and a read-only table of figures sized to its rows.  They show the text they
are given (paytable_text.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui.common import theme

BUSY_AFTER_MS = 500  # a computation still running after this shows the busy indicator


def label(text: str = "", name: str = "", *, wrap: bool = False) -> QLabel:
    lab = QLabel(text)
    if name:
        lab.setObjectName(name)
    lab.setWordWrap(wrap)
    return lab


class ShrinkingLabel(QLabel):
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
        self.caption = label(caption, "muted", wrap=True)
        lay.addWidget(self.caption)
        self.value = ShrinkingLabel("—", color)
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
