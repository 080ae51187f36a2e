"""The room's deadlines (core/pokerroom/deadlines.py): BIR remittance, TGD-108, the fund's bank
statement, TGD-1540 part 2, the notice to players: due, days left or LATE in red, filed with the
reference and who; "Record filing" after a supervisor's swipe."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QDateTimeEdit,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.pokerroom import calendar as cal
from core.pokerroom import deadlines as dl
from core.pokerroom import filings
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.pokerroom.common import RoomContext, qdatetime, scrolled, show

log = logging.getLogger("podium.gui.poker_room")

# room deadlines table columns
DL_WHAT, DL_DUE, DL_STATUS, DL_FILED = range(4)
DL_HEADERS = ["Deadline", "Due", "Status", "Filed"]


class DeadlinesPanel(QWidget):
    """``late_counted(n)``: the deadlines shown, ``n`` of them overdue (the page's title)."""

    late_counted = Signal(int)

    def __init__(self, ctx: RoomContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.room_deadlines: list[dl.RoomDeadline] = []
        lay = QVBoxLayout(self)
        self.deadline_table = QTableWidget(0, len(DL_HEADERS))
        self.deadline_table.setHorizontalHeaderLabels(DL_HEADERS)
        filed_head = self.deadline_table.horizontalHeaderItem(DL_FILED)
        if filed_head is not None:
            filed_head.setToolTip("The filing's reference (the BIR confirmation, PAGCOR's "
                                  "receiving number) and who recorded it")
        self.deadline_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.deadline_table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.deadline_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.deadline_table.verticalHeader().setVisible(False)
        self.deadline_table.setWordWrap(True)
        head = self.deadline_table.horizontalHeader()
        for col in (DL_DUE, DL_STATUS):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for col in (DL_WHAT, DL_FILED):  # these wrap
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.deadline_table.itemSelectionChanged.connect(self._deadline_selected)
        self.deadline_table.setMinimumHeight(140)
        lay.addWidget(self.deadline_table, 3)
        self.deadline_info = QLabel("")
        self.deadline_info.setWordWrap(True)
        self.deadline_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.deadline_info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        info = scrolled(self.deadline_info)
        info.setMinimumHeight(60)
        lay.addWidget(info, 1)
        grid = QGridLayout()
        self.filed_at = QDateTimeEdit(qdatetime(ctx.local_now()))  # casino local time
        self.filed_at.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.filing_ref = QLineEdit()
        self.filing_ref.setPlaceholderText("BIR confirmation / PAGCOR receiving no.")
        self.filing_detail = QLineEdit()
        self.filing_detail.setPlaceholderText("note (a correction: why)")
        self.filing_correct = QCheckBox("Correction of the filing shown")
        self.filing_correct.setToolTip("A second filing of the same period replaces the one "
                                       "shown; both are kept, with why")
        grid.addWidget(QLabel("Filed at"), 0, 0)
        grid.addWidget(self.filed_at, 0, 1)
        grid.addWidget(QLabel("Reference"), 0, 2)
        grid.addWidget(self.filing_ref, 0, 3)
        grid.addWidget(QLabel("Detail"), 1, 0)
        grid.addWidget(self.filing_detail, 1, 1, 1, 3)
        grid.setColumnStretch(3, 1)
        lay.addLayout(grid)
        buttons = QHBoxLayout()
        self.filing_btn = QPushButton("Record filing (supervisor swipe)…")
        self.filing_btn.setObjectName("primary")
        self.filing_btn.setToolTip("Record that the selected deadline's report was filed: a "
                                   "supervisor's swipe")
        self.filing_btn.clicked.connect(self.record_filing)
        buttons.addWidget(self.filing_btn)
        buttons.addWidget(self.filing_correct)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.filing_msg = QLabel("")
        self.filing_msg.setWordWrap(True)
        lay.addWidget(self.filing_msg)
        self._deadline_selected()

    def refresh(self) -> None:
        """Read the room's deadlines again, off the GUI thread (the bridge), and show them."""
        room, now = self.ctx.room, self.ctx.now()
        default_bridge().query(
            lambda: room.room_deadlines(now),
            self._show_deadlines, lambda exc: log.warning(  # the ledger is away: keep the list
                "could not read the poker room's deadlines: %s", exc),
            key="poker-room-deadlines")

    def _show_deadlines(self, found: list[dl.RoomDeadline]) -> None:
        """Not filed first (the oldest due on top), then the filed ones (the latest first);
        LATE in red."""
        keep = self.selected_deadline()
        keep_key = (keep.kind, keep.fund_id, keep.period_start) if keep else None
        pending = [d for d in found if d.filing is None]
        filed = sorted((d for d in found if d.filing is not None), key=lambda d: d.due,
                       reverse=True)
        self.room_deadlines = pending + filed
        tz = self.ctx.tz
        t = self.deadline_table
        t.blockSignals(True)
        t.setRowCount(len(self.room_deadlines))
        for r, d in enumerate(self.room_deadlines):
            fund = f" · fund {d.fund_id}" if d.fund_id else ""
            by = f"{d.reference or '—'}\n{d.who}" if d.filing else ""
            cells = [f"{d.what} {d.period}{fund}", f"{d.due_on:%a %d %b %Y}",
                     d.status(tz).replace(" (LATE", "\n(LATE"), by]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(cal.KIND_TEXT[d.kind] + f": {d.basis}")
                if d.late and col in (DL_DUE, DL_STATUS):
                    item.setForeground(QColor(theme.ALERT))
                elif d.filing is not None and col == DL_STATUS:
                    item.setForeground(QColor(theme.OK))
                t.setItem(r, col, item)
        t.resizeRowsToContents()
        t.clearSelection()
        for r, d in enumerate(self.room_deadlines):
            if (d.kind, d.fund_id, d.period_start) == keep_key:
                t.selectRow(r)
        t.blockSignals(False)
        self.late_counted.emit(sum(1 for d in found if d.overdue))
        self._deadline_selected()

    def selected_deadline(self) -> dl.RoomDeadline | None:
        rows = self.deadline_table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.room_deadlines):
            return None
        return self.room_deadlines[rows[0].row()]

    def _deadline_selected(self) -> None:
        d = self.selected_deadline()
        self.filing_correct.setChecked(False)
        self.filing_correct.setVisible(d is not None and d.filing is not None)
        if d is None:
            self.deadline_info.setText("Select a deadline to record its filing.")
            return
        tz = self.ctx.tz
        fund = f" (fund {d.fund_id})" if d.fund_id else ""
        lines = [f"{cal.KIND_TEXT[d.kind]}{fund}, {d.period}: due {d.due_on:%a %d %b %Y} "
                 f"(end of day). {d.basis}."]
        if len(d.dues) > 1:  # two sources date it (TGD-108): both, the earlier counts
            lines.append("The earlier of: " + "; ".join(
                f"{day:%a %d %b %Y} ({why})" for why, day in d.dues) + ".")
        for f in d.filings:
            fix = f"correction of filing {f.corrects_id}, " if f.corrects_id else ""
            late = (f", LATE by {dl.days_text(dl.late_days(f.due_at, f.filed_at))}"
                    if f.late else "")
            note = f" — {f.detail}" if f.detail else ""
            lines.append(f"Filing {f.filing_id} ({fix}filed "
                         f"{f.filed_at.astimezone(tz):%Y-%m-%d %H:%M}{late}): reference "
                         f"{f.reference or '—'}, recorded by {f.who} "
                         f"{f.created_at.astimezone(tz):%d %b %H:%M}{note}")
        self.deadline_info.setText("\n".join(lines))

    def _filing_message(self, text: str, ok: bool = False) -> None:
        show(self.filing_msg, text, ok)

    def record_filing(self) -> None:
        """Record the selected deadline's filing after a supervisor's swipe (a refusal shows
        in the prompt; a second filing of the period is refused unless it is a correction)."""
        d = self.selected_deadline()
        if d is None:
            self._filing_message("Select a deadline first.")
            return
        filed_at = self.ctx.local(self.filed_at)
        reference, detail = self.filing_ref.text().strip(), self.filing_detail.text().strip()
        corrects = (d.filing.filing_id if d.filing is not None
                    and self.filing_correct.isChecked() else None)
        room, clock = self.ctx.room, self.ctx.now

        def write(swipe: str) -> dl.Filing:
            return room.record_filing(swipe, kind=d.kind, period_start=d.period_start,
                                      fund_id=d.fund_id, filed_at=filed_at, reference=reference,
                                      detail=detail, corrects=corrects, clock=clock)

        kind = "correction of the filing" if corrects else "filing"
        what = (f"Record the {kind} of {d.what} {d.period}"
                f"{' fund ' + d.fund_id if d.fund_id else ''}: filed "
                f"{filed_at.astimezone(self.ctx.tz):%Y-%m-%d %H:%M}, reference "
                f"{reference or '—'}.")
        f = self.ctx.swiped(filings.ROLE, what, filings.SWIPE_ACTION, write)
        if f is not None:
            late = (f", LATE by {dl.days_text(dl.late_days(f.due_at, f.filed_at))}"
                    if f.late else ", on time")
            self._filing_message(f"{d.what} {d.period}: filing {f.filing_id} recorded{late}.",
                                 True)
            for edit in (self.filing_ref, self.filing_detail):
                edit.clear()
            self.refresh()
