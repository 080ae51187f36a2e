"""On-screen preview of a win slip, rendered from the very ESC/POS bytes sent to the printer."""

from __future__ import annotations

import io

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget


def slip_pixmap(data: bytes) -> QPixmap:
    from printing.escpos.preview import render

    image = render(data, scale=1)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    pix = QPixmap()
    pix.loadFromData(buf.getvalue(), "PNG")
    return pix


class SlipPreview(QDialog):
    def __init__(self, data: bytes, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        lay = QVBoxLayout(self)
        area = QScrollArea()
        label = QLabel()
        label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        label.setStyleSheet("background: #ffffff;")
        label.setPixmap(slip_pixmap(data))
        area.setWidget(label)
        area.setWidgetResizable(True)
        area.setMinimumSize(640, 760)
        lay.addWidget(area, 1)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        lay.addWidget(close)
