"""The Win slips tab: the recent slips with their print state, and what can be done with one."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from gui.common.selection import reselect, selected_key
from gui.tablegames import model
from gui.tablegames.unprinted_slips import fill_slip_row


class SlipsTab(QWidget):
    """The slips table (newest first), a note when a print state is unknown, and the buttons
    (print again, preview, win pages, print the queued ones)."""

    def __init__(self, *, on_print: Callable[[], None], on_preview: Callable[[], None],
                 on_find: Callable[[], None], on_retry: Callable[[], None]) -> None:
        super().__init__()
        lay = QVBoxLayout(self)
        self.slips = QTableWidget(0, 6)
        self.slips.setHorizontalHeaderLabels(("Slip", "Hit", "Table / seat", "Amount", "Paid at",
                                              "Printed"))
        self.slips.verticalHeader().setVisible(False)
        self.slips.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.slips.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.slips.horizontalHeader()
        # the columns share the width (the print state, last, the most); a cell that does not
        # fit is cut with "…" and its tooltip is the whole text: never a horizontal scroll bar
        for c, weight in enumerate((80, 70, 200, 140, 170)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(c, weight)
        header.setMinimumSectionSize(60)
        header.setStretchLastSection(True)  # the print state says the most
        self.slips.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.slips.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.slips_note = QLabel("")
        self.slips_note.setWordWrap(True)
        self.slips_note.setStyleSheet("color: #ffa940; font-weight: bold;")
        self.slips_note.setVisible(False)
        lay.addWidget(self.slips_note)
        lay.addWidget(self.slips, 1)
        row = QHBoxLayout()
        self.print_btn = QPushButton("Print selected slip again")
        self.print_btn.clicked.connect(on_print)
        row.addWidget(self.print_btn)
        self.preview_btn = QPushButton("Preview selected slip")
        self.preview_btn.clicked.connect(on_preview)
        row.addWidget(self.preview_btn)
        self.find_btn = QPushButton("Win pages…")
        self.find_btn.setToolTip("Search any win slip (by date, table, amount, employee, "
                                 "number) for its win page; void a slip there")
        self.find_btn.clicked.connect(on_find)
        row.addWidget(self.find_btn)
        self.retry_btn = QPushButton("Print all queued slips")
        self.retry_btn.clicked.connect(on_retry)
        row.addWidget(self.retry_btn)
        row.addStretch(1)
        lay.addLayout(row)
        self.slip_nos: list[int] = []

    def show_slips(self, slips: list[model.SlipView]) -> None:
        """The slips again (newest first): the slip selected stays selected wherever a new
        slip moved it (issue 26: Preview and Print act on the slip picked, never on the one
        that moved into its row)."""
        keep = self.selected_slip()
        self.slips.setRowCount(len(slips))
        self.slip_nos = [s.slip_no for s in slips]
        for r, s in enumerate(slips):
            fill_slip_row(self.slips, r, s, s.printed)
            for c in range(5):  # a cell cut short shows it whole (the state's: its meaning)
                item = self.slips.item(r, c)
                if item is not None:
                    item.setToolTip(item.text())
        reselect(self.slips, self.slip_nos, keep)
        unknown = sum(1 for s in slips if s.state == "unknown")
        self.slips_note.setText(
            f"⚠ {unknown} slip{'s' if unknown != 1 else ''} with print state UNKNOWN: a print "
            "started and its outcome was never recorded; the next print is marked DUPLICATE - "
            "PRINT STATE UNKNOWN" if unknown else "")
        self.slips_note.setVisible(bool(unknown))

    def selected_slip(self) -> int | None:
        """The slip of the selected row (None: no slip selected)."""
        n = selected_key(self.slips, self.slip_nos)
        return n if isinstance(n, int) else None
