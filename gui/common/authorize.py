"""The swipe prompt: "Swipe a SUPERVISOR card to pay $1,234.00".

It waits for the application-wide :class:`gui.common.swipe.SwipeCatcher` to report a swipe, hands
the raw data to the core action (which checks the card and its authority, and records the swipe) on
the bridge's ops thread (the GUI never waits on the ledger), and shows a refusal in red while
staying open for another swipe.  While an action runs the prompt can not be cancelled: a pay in
progress finishes and is reported.

When the floor asks for a PIN (``[authorization] pin``), the swipe is held and a PIN field
takes the keys: the action gets :class:`core.people.auth.Credential` (track and PIN) on Enter.  The
PIN is never shown, logged or kept after the action."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import ClassVar

from PySide6.QtCore import QRegularExpression, Qt
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from core.people.auth import Credential
from gui.common.bridge import default_bridge
from gui.common.swipe import SwipeCatcher

log = logging.getLogger("podium.gui.authorize")


NEEDS = {"supervisor": "SUPERVISOR card or higher", "executive": "EXECUTIVE card",
         "employee": "ANY EMPLOYEE card"}


class SwipePrompt(QDialog):
    # The embedded demo floor has no card reader: it may offer a field to paste a demo swipe
    # string (masked; a paste types no keys, so the reader capture never sees it).  Never on a
    # real floor: there a card is swiped, not typed.
    demo_entry: ClassVar[bool] = False

    def __init__(self, catcher: SwipeCatcher, role: str, what: str,
                 action: Callable[[str | Credential], object], parent: QWidget | None = None,
                 *, pin: bool = False) -> None:
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
        need = QLabel(NEEDS.get(role, f"{role.upper()} card"))
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
        if self.demo_entry:
            hint = QLabel("DEMO ONLY (no card reader): paste a demo swipe string from the README "
                          "here and press Enter")
            hint.setObjectName("muted")
            hint.setWordWrap(True)
            lay.addWidget(hint)
            self.demo_field = QLineEdit()
            self.demo_field.setObjectName("demoSwipe")
            self.demo_field.setEchoMode(QLineEdit.EchoMode.Password)
            self.demo_field.returnPressed.connect(self._demo_swipe)
            lay.addWidget(self.demo_field)
        self.pin_needed = pin
        self._held: str | None = None  # the swipe waiting for its PIN
        self.pin_field = QLineEdit()
        self.pin_field.setObjectName("pin")
        self.pin_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin_field.setMaxLength(12)
        self.pin_field.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,12}"),
                                                                self.pin_field))
        self.pin_field.setPlaceholderText("PIN, then Enter")
        self.pin_field.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pin_field.setStyleSheet("font-size: 22pt;")
        self.pin_field.returnPressed.connect(self._pin_entered)
        self.pin_field.setVisible(False)
        lay.addWidget(self.pin_field)
        if pin:
            need.setText(f"{need.text()} + PIN")
        cancel = QPushButton("Cancel (Esc)")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        lay.addWidget(cancel)
        self.cancel_btn = cancel
        self.busy = False
        catcher.swiped.connect(self._on_swipe)
        self._catcher = catcher

    def done(self, r: int) -> None:  # noqa: D401 (Qt API)
        if self.busy and r != QDialog.DialogCode.Accepted:
            return  # an action is being recorded: wait for its outcome
        with contextlib.suppress(RuntimeError, TypeError):
            self._catcher.swiped.disconnect(self._on_swipe)
        super().done(r)

    def _demo_swipe(self) -> None:
        raw = self.demo_field.text().strip()
        self.demo_field.clear()
        if raw:
            self._on_swipe(raw)

    def _on_swipe(self, raw: str) -> None:
        if self.busy:
            return  # one card at a time: the first swipe's action is being recorded
        if self.pin_needed:
            self._held = raw  # a new swipe replaces a held one
            self.pin_field.clear()
            self.pin_field.setVisible(True)
            self.pin_field.setFocus()
            self.message.setText("Card read. Type your PIN and press Enter.")
            self.message.setStyleSheet("font-size: 14pt;")
            self.adjustSize()  # grow with the field instead of squeezing the text above it
            return
        self._run(raw)

    def _pin_entered(self) -> None:
        if self.busy or self._held is None:
            return
        pin = self.pin_field.text()
        if not pin:
            return
        raw, self._held = self._held, None
        self.pin_field.clear()
        self.pin_field.setVisible(False)
        self._run(Credential(raw, pin))

    def _run(self, swipe: str | Credential) -> None:
        self.busy = True
        self.cancel_btn.setEnabled(False)
        self.message.setText("Checking card…")
        self.message.setStyleSheet("font-size: 14pt;")
        default_bridge().op(lambda: self._action(swipe), self._succeeded, self._failed)

    def _succeeded(self, value: object) -> None:
        self.busy = False
        self.cancel_btn.setEnabled(True)
        self.result_value = value
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self.busy = False
        self.cancel_btn.setEnabled(True)
        if isinstance(exc, ValueError):  # AuthError, FloorError, CardError: for the user
            log.warning("swipe refused: %s", exc)
            self._refused(str(exc))
            return
        # the ledger failed (e.g. the database went away): rolled back
        log.error("recording the swiped action failed: %s", exc, exc_info=exc)
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        self._refused(f"The ledger could not record this ({reason}). Nothing was changed; "
                      "swipe again when the ledger is back.")

    def _refused(self, text: str) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("font-size: 14pt; color: #ff4d4f; font-weight: bold;")
