"""The header over every tab: the casino (and pit), the links' count, the hits waiting, the clock.

Its labels never widen the window: each takes the width the layout gives it and elides what does
not fit (the whole text is the tooltip); the clock keeps its width and never moves."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from gui.common.fit_label import FitLabel


class Header(QWidget):
    """The casino's name, the tables online, the hits waiting and the clock, in one row."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.setObjectName("header")
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        self.title = FitLabel(title)
        self.title.setObjectName("title")
        bar.addWidget(self.title)
        bar.addSpacing(24)
        self.links = FitLabel("")
        self.links.setStyleSheet("font-size: 14pt;")
        bar.addWidget(self.links, 1)
        self.pending_label = FitLabel("")
        self.pending_label.setStyleSheet("font-size: 18pt; font-weight: bold;")
        self.pending_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bar.addWidget(self.pending_label, 1)
        bar.addSpacing(24)
        self.clock = QLabel("")
        self.clock.setObjectName("clock")
        self.clock.setStyleSheet("font-size: 18pt; font-weight: bold;")
        # the clock keeps the width of its longest text: it never moves nor is cut
        self.clock.ensurePolished()
        self.clock.setMinimumWidth(self.clock.fontMetrics().horizontalAdvance(
            "Wed 30 Sep  00:00:00") + 8)
        self.clock.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.clock)
