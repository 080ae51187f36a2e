"""At start: the paid win slips from before that no printer confirmed printing, offered for
printing (docs/operator.md "Win slips").  A slip whose print state is unknown (the console
stopped between sending it and recording the outcome) prints marked DUPLICATE - PRINT STATE
UNKNOWN; the others print as originals."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui.tablegames import model

STATE_WORDS = {"queued": "never tried", "failed": "failed", "unknown": "UNKNOWN (may be on paper)",
               "printing": "printing now"}
STATE_COLORS = {"failed": "#ff4d4f", "unknown": "#ffa940", "void": "#ff4d4f"}


def fill_slip_row(table: QTableWidget, row: int, s: model.SlipView, state_text: str) -> None:
    """One slip as a row of a list of slips: number, hit, table and seat, amount, paid at, and
    its print state (``state_text``) in the state's colour, its meaning as the tooltip."""
    for c, v in enumerate((str(s.slip_no), s.hit_ref, s.where, s.amount, s.paid_at,
                           state_text)):
        item = QTableWidgetItem(v)
        if c == 5:
            item.setToolTip(s.detail)
            color = STATE_COLORS.get(s.state)
            if color:
                item.setForeground(QColor(color))
        table.setItem(row, c, item)


def offer_text(slips: Sequence[model.SlipView]) -> tuple[str, str]:
    """(the question, what printing them does) for the start-up prompt."""
    n = len(slips)
    unknown = sum(1 for s in slips if s.state == "unknown")
    question = (f"{n} paid win slip{'s were' if n != 1 else ' was'} never printed. "
                "Print them now?")
    how = ("They print on the floor's printer, oldest first; each counts as printed only when "
           "the printer confirms it.")
    if unknown:
        how += (f" {unknown} of them {'were' if unknown != 1 else 'was'} being printed when the "
                "console stopped and may be on paper already: "
                f"{'they print' if unknown != 1 else 'it prints'} marked "
                "DUPLICATE - PRINT STATE UNKNOWN.")
    return question, how


class UnprintedSlipsDialog(QDialog):
    """"N paid win slips were never printed: print them now?" with the list; **Print all
    now** accepts (the caller queues them), **Later** rejects (they stay in the Win slips
    tab, and **Print all queued slips** prints them)."""

    def __init__(self, slips: Sequence[model.SlipView], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.slips = list(slips)
        self.setWindowTitle("Win slips never printed")
        self.setMinimumWidth(760)
        lay = QVBoxLayout(self)
        question, how = offer_text(self.slips)
        self.question = QLabel(question)
        self.question.setStyleSheet("font-size: 15pt; font-weight: bold;")
        self.question.setWordWrap(True)
        lay.addWidget(self.question)
        self.how = QLabel(how)
        self.how.setWordWrap(True)
        lay.addWidget(self.how)
        self.table = QTableWidget(len(self.slips), 6)
        self.table.setHorizontalHeaderLabels(("Slip", "Hit", "Table / seat", "Amount",
                                              "Paid at", "Print state"))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        for r, s in enumerate(self.slips):
            fill_slip_row(self.table, r, s, STATE_WORDS.get(s.state, s.state))
        self.table.setMinimumHeight(min(420, 60 + 30 * len(self.slips)))
        lay.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        self.later_btn = QPushButton("Later")
        self.later_btn.clicked.connect(self.reject)
        row.addWidget(self.later_btn)
        self.print_btn = QPushButton(f"Print all {len(self.slips)} now")
        self.print_btn.setObjectName("primary")
        self.print_btn.setDefault(True)
        self.print_btn.clicked.connect(self.accept)
        row.addWidget(self.print_btn)
        lay.addLayout(row)

    def slip_nos(self) -> list[int]:
        return [s.slip_no for s in self.slips]
