"""People > Lift a card lock…: an executive lifts the lock of a card locked after too many
refused swipes (core.people.auth.Gate.lift), at the podium.

Which card: an enrolled employee's (by employee number), or the locked card itself swiped first
(a card nobody enrolled).  Then a reason, then the executive's swipe (and PIN, when the floor
asks executives for it).  The lift and who did it are kept in ``card_locks``; a refusal is in
the swipe log like any other."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)


class UnlockDialog(QDialog):
    """Which locked card, and why it may swipe again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Lift a card lock")
        self.setMinimumWidth(560)
        lay = QVBoxLayout(self)
        title = QLabel("Lift a card lock")
        title.setObjectName("title")
        lay.addWidget(title)
        note = QLabel("An executive's card (and PIN) lifts it; the lift is kept in the ledger "
                      "with the reason.")
        note.setWordWrap(True)
        lay.addWidget(note)
        self.by_number = QRadioButton("The card of employee number:")
        self.by_card = QRadioButton("A card nobody enrolled: swipe the locked card first")
        group = QButtonGroup(self)
        for b in (self.by_number, self.by_card):
            group.addButton(b)
        self.by_number.setChecked(True)
        row = QHBoxLayout()
        row.addWidget(self.by_number)
        self.number = QLineEdit()
        self.number.setPlaceholderText("e.g. 1001")
        self.number.setMaxLength(32)
        row.addWidget(self.number)
        lay.addLayout(row)
        lay.addWidget(self.by_card)
        lay.addWidget(QLabel("Reason (kept in the ledger):"))
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("e.g. tried the wrong hit; identity checked in person")
        self.reason.setMaxLength(500)
        lay.addWidget(self.reason)
        self.message = QLabel("")
        self.message.setObjectName("alert")
        self.message.setWordWrap(True)
        lay.addWidget(self.message)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.ok_btn = QPushButton("Lift — executive swipe")
        self.ok_btn.clicked.connect(self._confirm)
        for button in (cancel, self.ok_btn):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        lay.addLayout(buttons)
        self.by_card.toggled.connect(lambda on: self.number.setEnabled(not on))
        for field in (self.number, self.reason):  # a problem shown goes once it is mended
            field.textChanged.connect(lambda _t: self.message.setText(""))
        self.reason.returnPressed.connect(self._confirm)
        self.number.setFocus()

    def employee_number(self) -> str | None:
        return None if self.by_card.isChecked() else self.number.text().strip()

    def _confirm(self) -> None:
        if self.by_number.isChecked() and not self.number.text().strip():
            self.message.setText("Give the employee number, or choose to swipe the locked card.")
            return
        if not self.reason.text().strip():
            self.message.setText("Lifting a lock needs a reason.")
            return
        self.accept()


def lift_lock(window: Any, floor: Any) -> str | None:
    """Run the whole lift from ``window`` (a MainWindow: its swipe prompts); what was lifted,
    in words, or None if it was cancelled or refused."""
    dlg = UnlockDialog(window)
    try:
        if dlg.exec() != QDialog.DialogCode.Accepted:
            return None
        number, reason = dlg.employee_number(), dlg.reason.text().strip()
    finally:
        dlg.deleteLater()
    locked: list[Any] = []
    if number is None:
        def hold(raw: Any) -> object:  # nothing to check yet: the lift checks it
            locked.append(raw)
            return None

        if not window.authorize("employee", "Swipe the LOCKED card (it is not enrolled)",
                                "locked_card", hold):
            return None
    done: list[str] = []

    def lift(swipe: Any) -> object:
        done.append(floor.lift_lock(locked[-1] if locked else None, number, swipe, reason))
        return done[-1]

    whose = f"employee {number}'s card" if number else "the card just swiped"
    if not window.authorize("executive", f"Lift the lock of {whose}: {reason}", "unlock", lift):
        return None
    return done[-1] if done else None
