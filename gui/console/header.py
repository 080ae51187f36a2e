"""The header over every tab: the casino (and pit), the links' count, the hits waiting, the clock.

Its labels never widen the window: each takes the width the layout gives it and elides what does
not fit (the whole text is the tooltip); the clock and the hits waiting keep their width."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget


class FitLabel(QLabel):
    """A one-line label whose text (plain or rich) never asks for more width than it is given:
    what does not fit is cut with "…" and the whole text is its tooltip."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802  (Qt's name)
        self._full = text
        self._fit()

    def sizeHint(self) -> QSize:  # noqa: N802  (Qt's name): the whole text, when there is room
        m = self.contentsMargins()
        return QSize(self.fontMetrics().horizontalAdvance(self._plain()) + m.left() + m.right()
                     + 4, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802  (Qt's name): never widens the window
        return QSize(40, super().minimumSizeHint().height())

    def full_text(self) -> str:
        return self._full

    def _plain(self) -> str:
        if "<" not in self._full:  # plain text
            return self._full
        doc = QTextDocument()
        doc.setHtml(self._full)
        return doc.toPlainText()

    def _fit(self) -> None:
        plain = self._plain()
        width = max(0, self.contentsRect().width())
        fits = self.fontMetrics().horizontalAdvance(plain) <= width
        self.setToolTip("" if fits else plain)
        if fits or not width:
            super().setText(self._full)
        else:
            super().setText(self.fontMetrics().elidedText(
                plain, Qt.TextElideMode.ElideRight, width))

    def resizeEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()

    def text(self) -> str:
        return self._full


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
