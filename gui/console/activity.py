"""The Activity tab: this session's messages on top, the ledger's record below, a filter."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListWidget, QVBoxLayout, QWidget


class ActivityTab(QWidget):
    """This session's messages on top, and below them what the ledger holds (decisions with
    who, adjustments, refused cards, prints, parameter changes), read back at start so a
    restart does not empty it; a filter narrows both."""

    def __init__(self) -> None:
        super().__init__()
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Filter:"))
        self.activity_filter = QLineEdit()
        self.activity_filter.setPlaceholderText("words to look for: a table, a hit (H12), a "
                                                "name, paid, rejected, adjusted, refused…")
        self.activity_filter.setClearButtonEnabled(True)
        self.activity_filter.textChanged.connect(self.filter)
        row.addWidget(self.activity_filter, 1)
        lay.addLayout(row)
        self.log_list = QListWidget()
        # a long line is cut with "…" (its whole text is the tooltip), never a wider list
        self.log_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.log_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        lay.addWidget(self.log_list, 1)

    def filter(self, *_: Any) -> None:
        words = self.activity_filter.text().lower().split()
        for i in range(self.log_list.count()):
            item = self.log_list.item(i)
            text = item.text().lower()
            item.setHidden(bool(words) and not all(word in text for word in words))

    def show_ledger(self, records: list[Any], tz: ZoneInfo) -> None:
        for r in records:  # newest first, below this session's own lines
            line = f"{r.at.astimezone(tz):%d %b %H:%M:%S}  {r.text}"
            self.log_list.addItem(line)
            self.log_list.item(self.log_list.count() - 1).setToolTip(line)
        self.filter()

    def add(self, stamp: str, text: str) -> None:
        """A line of this session on top (hidden when the filter does not match it)."""
        self.log_list.insertItem(0, f"{stamp}  {text}")
        self.log_list.item(0).setToolTip(f"{stamp}  {text}")
        words = self.activity_filter.text().lower().split()
        if words and not all(word in text.lower() for word in words):
            self.log_list.item(0).setHidden(True)
