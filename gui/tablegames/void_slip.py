"""Slips > Void slip…: an executive voids a win slip (core.tablegames.pay.voids, Floor.void_slip).

The dialog asks which slip (given when it is opened from a list) and shows that slip (amount,
table and seat, round, hand, when it was paid, its hit) before anyone swipes, the reason
(required: one line, at most ``MAX_REASON`` characters, printed on the win page) and whether
the paid money came back (no default: someone must say).  Then the console's swipe prompt
asks for an EXECUTIVE card (+ PIN where the floor asks it); the core checks everything again
and writes the void, and with the money back the reversal of the award's meter movements, in one
transaction.  A refusal (not an executive, already void, a meter that would go below zero, ...)
shows in red in the prompt; nothing is written but the swipe log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QRegularExpression
from PySide6.QtGui import QRegularExpressionValidator
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

from core.kernel.text import printable
from core.tablegames.pay.voids import MAX_REASON
from gui.common.bridge import default_bridge

RETURNED = "The money came back: give the award back to the meter"
NOT_RETURNED = "The money did not come back: record the void only"


def slip_summary(slip: Any) -> str:
    """Which slip, in words, before a void (a :class:`~core.tablegames.slip_record.WinSlip`):
    "Slip 000050: $6.00, Pai Gow 1 seat 3, round 2, Full house, paid 05 Dec 2026 18:40:12;
    hit H50"."""
    paid = slip.local_paid_at.strftime("%d %b %Y %H:%M:%S")
    text = (f"Slip {slip.slip_no:06d}: {slip.currency.text(slip.amount_cents)}, "
            f"{slip.table} seat {slip.seat}, round {slip.round_no}, {slip.hand}, paid {paid}; "
            f"hit {slip.hit_ref}")
    if slip.void is not None:
        text += f" (already VOID: {slip.void.reason})"
    return text


class VoidDialog(QDialog):
    """Which slip (and what it is, read when its number is given: ``describe``), why, and
    whether the money came back."""

    def __init__(self, parent: QWidget | None = None, *, slip_no: int | None = None,
                 summary: str = "", describe: Callable[[int], str] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Void a win slip")
        self.setMinimumWidth(640)
        lay = QVBoxLayout(self)
        title = QLabel("Void a win slip")
        title.setObjectName("title")
        lay.addWidget(title)
        note = QLabel("A void is kept in the ledger with who, when and why; the award stays. "
                      "The win page then shows VOID, and the slip is never printed again. "
                      "It needs an EXECUTIVE card.")
        note.setWordWrap(True)
        lay.addWidget(note)
        row = QHBoxLayout()
        row.addWidget(QLabel("Win slip no."))
        self.slip = QLineEdit("" if slip_no is None else str(slip_no))
        self.slip.setObjectName("voidSlipNo")
        self.slip.setMaxLength(9)
        self.slip.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,9}"),
                                                           self.slip))
        self.slip.setReadOnly(slip_no is not None)
        row.addWidget(self.slip)
        row.addStretch(1)
        lay.addLayout(row)
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("font-size: 13pt; font-weight: bold;")
        self.summary.setObjectName("voidSlipSummary")
        self.summary.setVisible(bool(summary))
        lay.addWidget(self.summary)
        self._describe = describe
        self._described: int | None = slip_no if summary else None  # the slip shown above
        lay.addWidget(QLabel(f"Reason (printed on the win page; at most {MAX_REASON} "
                             "characters):"))
        self.reason = QLineEdit()
        self.reason.setObjectName("voidReason")
        self.reason.setMaxLength(MAX_REASON)
        self.reason.setPlaceholderText("e.g. cards switched, seen on CCTV; player returned "
                                       "the money")
        lay.addWidget(self.reason)
        self.returned = QRadioButton(RETURNED)
        self.returned.setObjectName("moneyReturned")
        self.kept = QRadioButton(NOT_RETURNED)
        self.kept.setObjectName("moneyKept")
        group = QButtonGroup(self)
        group.setExclusive(True)
        for b in (self.returned, self.kept):
            group.addButton(b)
            lay.addWidget(b)
        self.message = QLabel("")
        self.message.setObjectName("alert")
        self.message.setStyleSheet("color: #ff4d4f; font-weight: bold;")
        self.message.setWordWrap(True)
        lay.addWidget(self.message)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.ok_btn = QPushButton("Void — executive swipe")
        self.ok_btn.setObjectName("danger")
        self.ok_btn.clicked.connect(self._confirm)
        for btn in (cancel, self.ok_btn):
            btn.setAutoDefault(False)
            buttons.addWidget(btn)
        lay.addLayout(buttons)
        for field in (self.slip, self.reason):  # a problem shown goes once it is mended
            field.textChanged.connect(lambda _t: self.message.setText(""))
        for b in (self.returned, self.kept):
            b.toggled.connect(lambda _on: self.message.setText(""))
        (self.reason if slip_no is not None else self.slip).setFocus()
        self.slip.textChanged.connect(lambda _t: self._forget())
        self.slip.editingFinished.connect(self.look_up)
        if self._described is None:
            self.look_up()

    def _forget(self) -> None:
        if self._described is not None and self._described != self.slip_no():
            self._described = None
            self.summary.setText("")
            self.summary.setVisible(False)

    def look_up(self) -> None:
        """Show the slip whose number is given (read off the GUI thread)."""
        n, describe = self.slip_no(), self._describe
        if not n or describe is None or self._described == n:
            return
        self.summary.setText(f"Reading win slip {n:06d}…")
        self.summary.setVisible(True)

        def shown(text: str) -> None:
            if self.slip_no() == n:
                self._described = n
                self.summary.setText(text)

        def failed(exc: BaseException) -> None:
            if self.slip_no() == n:
                self.summary.setText("")
                self.summary.setVisible(False)
                self.message.setText(printable(str(exc).splitlines()[0] if str(exc) else
                                               f"win slip {n}: can not be read"))

        default_bridge().query(lambda: describe(n), shown, failed, key="void-slip-summary",
                               owner=self)

    def slip_no(self) -> int | None:
        text = self.slip.text().strip()
        return int(text) if text else None

    def money_returned(self) -> bool | None:
        if self.returned.isChecked():
            return True
        return False if self.kept.isChecked() else None

    def problem(self) -> str:
        """What is missing before a card is asked for ("" when nothing)."""
        if not self.slip_no():
            return "Give the win slip number."
        if self._describe is not None and self._described != self.slip_no():
            self.look_up()
            return "Check which slip this is (shown above) before voiding it."
        why = self.reason.text().strip()
        if not why:
            return "A void needs a reason."
        if printable(why) != why:
            return "The reason must be one line of printable text."
        if self.money_returned() is None:
            return "Say whether the paid money came back."
        return ""

    def _confirm(self) -> None:
        problem = self.problem()
        if problem:
            self.message.setText(problem)
            return
        self.accept()


def void_slip(window: Any, floor: Any, *, slip_no: int | None = None, summary: str = "",
              dialog: Callable[[VoidDialog], None] | None = None) -> str | None:
    """Run the whole void from ``window`` (a MainWindow: its swipe prompt); what was done, in
    words, or None when cancelled or refused.  ``dialog``: called with the dialog before it is
    shown (tests, screenshots)."""
    dlg = VoidDialog(window, slip_no=slip_no, summary=summary,
                     describe=lambda n: slip_summary(floor.win_slip(n)))
    if dialog is not None:
        dialog(dlg)
    try:
        if dlg.exec() != QDialog.DialogCode.Accepted:
            return None
        n, reason, returned = dlg.slip_no(), dlg.reason.text().strip(), dlg.money_returned()
    finally:
        dlg.deleteLater()
    assert n is not None and returned is not None
    done: list[Any] = []

    def act(swipe: Any) -> object:
        done.append(floor.void_slip(n, reason, returned, swipe))
        return done[-1]

    money = "money returned to the meter" if returned else "money NOT returned"
    if not window.authorize("executive", f"VOID win slip {n:06d} ({money}): {reason}", "void",
                            act):
        return None
    v = done[-1]
    back = ""
    if v.returned_units:
        from core.kernel.money import format_units

        back = "; the meter changed by " + ", ".join(
            f"{level} {'-' if units < 0 else '+'}{format_units(abs(units))}"
            for level, units in v.returned_units)
    return (f"Win slip {n:06d} VOID by {v.void.by.label()}: {v.void.reason} "
            f"({'money returned' if v.void.money_returned else 'money not returned'}{back})")
