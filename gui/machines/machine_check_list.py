"""The surveillance desk's Machine checks tab: every machine-win check recorded at a podium
(docs/operator.md "Checking a machine win") for a range of gaming days, newest first, with the
screen, the claim, what the evaluator found, the verdict and who checked; the selected check's
wins below.  Read-only: it lists, it records nothing (a check is recorded where it is made)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.desks.accounting import periods
from core.desks.desk import Desk
from core.machines.checks import CheckLine, checks_in
from gui.common.bridge import default_bridge

COLUMNS = ("Time", "Game", "Screen", "Claimed", "Evaluated", "Verdict", "Checked by")


class MachineCheckList(QWidget):
    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.lines: list[CheckLine] = []
        self.loading = False
        today = periods.gaming_day_of(desk.config.casino, datetime.now(UTC))
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Gaming days"))
        self.first = QDateEdit(QDate(today.year, today.month, today.day))
        self.last = QDateEdit(QDate(today.year, today.month, today.day))
        for w, name in ((self.first, "first"), (self.last, "last")):
            w.setObjectName(name)
            w.setCalendarPopup(True)
            w.setDisplayFormat("yyyy-MM-dd")
        row.addWidget(self.first)
        row.addWidget(QLabel("to"))
        row.addWidget(self.last)
        self.mismatches = QCheckBox("mismatches only")
        self.mismatches.setObjectName("mismatches")
        row.addWidget(self.mismatches)
        self.show_btn = QPushButton("Show")
        self.show_btn.setObjectName("primary")
        self.show_btn.clicked.connect(self.refresh)
        row.addWidget(self.show_btn)
        row.addStretch(1)
        lay.addLayout(row)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        lay.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("checks")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.itemSelectionChanged.connect(self._selected)
        split.addWidget(self.table)
        self.detail = QPlainTextEdit()
        self.detail.setObjectName("detail")
        self.detail.setReadOnly(True)
        split.addWidget(self.detail)
        split.setSizes([500, 200])
        lay.addWidget(split, 1)
        self.refresh()

    def refresh(self) -> None:
        if self.loading:
            return
        f, t = self.first.date(), self.last.date()
        try:
            p = periods.gaming_days(self.desk.config.casino, date(f.year(), f.month(), f.day()),
                                    date(t.year(), t.month(), t.day()))
        except ValueError as exc:
            self.status.setObjectName("alert")
            self.status.setText(str(exc))
            return
        self.loading = True
        self.status.setObjectName("muted")
        self.status.setText("Reading the ledger…")
        desk, only = self.desk, self.mismatches.isChecked()
        default_bridge().query(lambda: checks_in(desk, p.start, p.end, mismatches_only=only),
                               self._show, self._failed)

    def _failed(self, exc: BaseException) -> None:
        self.loading = False
        self.status.setObjectName("alert")
        self.status.setText(f"The ledger could not be read: {exc}")

    def _show(self, lines: list[CheckLine]) -> None:
        self.loading = False
        self.lines = lines
        bad = sum(1 for c in lines if c.verdict == "mismatch")
        self.status.setText(f"{len(lines)} check(s), {bad} mismatch(es)")
        self.table.setRowCount(len(lines))
        for r, c in enumerate(lines):
            local = self.desk.local(c.at)
            values = (f"{local:%Y-%m-%d %H:%M:%S}", c.game_name, c.screen, f"{c.claimed:,}",
                      f"{c.evaluated:,}", c.verdict.upper(), c.by.label())
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                if col in (3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if c.verdict == "mismatch" and col == 5:
                    item.setForeground(Qt.GlobalColor.red)
                self.table.setItem(r, col, item)
        self.table.resizeColumnsToContents()
        if lines:
            self.table.selectRow(0)
            # row 0 may have been selected already (the day shown before): no selection
            # change then, so the detail is filled here, from the new lines
            self._selected()
        else:
            self.detail.setPlainText("")

    def _selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.lines):
            return
        c = self.lines[rows[0].row()]
        self.detail.setPlainText(
            f"Check #{c.check_id}: {c.game_name}, screen {c.screen}\n"
            f"options {json.dumps(c.options, sort_keys=True)}\n"
            f"claimed {c.claimed:,} credits, evaluated {c.evaluated:,}: {c.verdict.upper()}\n"
            f"checked by {c.by.label()}\n\nwins:\n{json.dumps(c.wins, indent=2, sort_keys=True)}")
