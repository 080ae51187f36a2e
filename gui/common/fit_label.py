"""A one-line label that never widens its window: what does not fit is cut with "…" and the
whole text is the tooltip (the console's header, a meter tile's line of figures)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy


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
