"""The swipe prompt: "Swipe a SUPERVISOR card to pay $1,234.00".

It waits for the application-wide :class:`gui.swipe.SwipeCatcher` to report a swipe, hands the
raw data to the core action (which checks the card and its authority, and records the swipe),
and shows a refusal in red while staying open for another swipe."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.swipe import SwipeCatcher

log = logging.getLogger("podium.gui.authorize")


class SwipePrompt(QDialog):
    def __init__(self, catcher: SwipeCatcher, role: str, what: str,
                 action: Callable[[str], object], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Card swipe required")
        self.setMinimumWidth(640)
        self.result_value: object = None
        self._action = action
        lay = QVBoxLayout(self)
        icon = QLabel("▮▮▮  SWIPE CARD  ▮▮▮")
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        icon.setStyleSheet("font-size: 26pt; font-weight: bold; color: #4ea8f2;")
        lay.addWidget(icon)
        need = QLabel(f"{role.upper()} card or higher")
        need.setObjectName("title")
        need.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(need)
        w = QLabel(what)
        w.setWordWrap(True)
        w.setAlignment(Qt.AlignmentFlag.AlignCenter)
        w.setStyleSheet("font-size: 15pt;")
        lay.addWidget(w)
        self.message = QLabel("Waiting for a card…")
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("font-size: 14pt;")
        lay.addWidget(self.message)
        cancel = QPushButton("Cancel (Esc)")
        cancel.clicked.connect(self.reject)
        lay.addWidget(cancel)
        catcher.swiped.connect(self._on_swipe)
        self._catcher = catcher

    def done(self, r: int) -> None:  # noqa: D401 (Qt API)
        with contextlib.suppress(RuntimeError, TypeError):
            self._catcher.swiped.disconnect(self._on_swipe)
        super().done(r)

    def _on_swipe(self, raw: str) -> None:
        self.message.setText("Checking card…")
        try:
            self.result_value = self._action(raw)
        except ValueError as exc:  # AuthError, FloorError, CardError: the message is for the user
            log.warning("swipe refused: %s", exc)
            self.message.setText(str(exc))
            self.message.setStyleSheet("font-size: 14pt; color: #ff4d4f; font-weight: bold;")
            return
        self.accept()
