"""The accountant's reports on screen (docs/operator.md "The accountant's desk"): the
reconciliation of the table progressives, the liability, the slip register, hits by level and
drop against contributions, for a gaming day, a shift, a month or a range of gaming days.

The report is read on a worker thread (the bridge) through the desk's read-only engine and
shown as the sheets its exports and printed page are made from (core/desks/accounting/sheets.py), so
the screen, the PDF, the CSV and the XLSX always show the same figures.  Print preview and PDF
use Qt's print support; CSV and XLSX are written by the csv module and openpyxl."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from pathlib import Path

from PySide6.QtCore import QDate, QDateTime, Qt, QTime
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QDateTimeEdit,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.desks.accounting import liability, periods, reconcile, register, sheets
from core.desks.accounting.cells import cell_text
from core.desks.accounting.reading import check_whole_hours
from core.desks.accounting.sheets import Report
from core.desks.desk import Desk
from gui.common.bridge import default_bridge
from printing.pages.accounting_page import report_html

log = logging.getLogger("podium.gui.accounting")

REPORTS: tuple[tuple[str, str], ...] = (
    ("reconcile", "Progressive reconciliation"),
    ("liability", "Liability at a moment"),
    ("slips", "Slip register"),
    ("hits", "Hits by level (last 25)"),
    ("drop", "Drop and contributions by table"),
)
PERIODS: tuple[tuple[str, str], ...] = (
    ("day", "Gaming day"), ("shift", "Shift"), ("month", "Month"), ("range", "Gaming days"))


def make_report(desk: Desk, name: str, period: periods.Period | None,
                at: datetime | None = None) -> Report:
    """The report ``name`` as sheets (runs on a worker thread: reads only)."""
    if name == "liability":
        return sheets.liability_report(desk, liability.liability(desk, at))
    assert period is not None
    if name == "reconcile":
        return sheets.reconciliation_report(desk, reconcile.reconcile(desk, period))
    if name == "slips":
        return sheets.register_report(desk, register.slip_register(desk, period))
    if name == "hits":
        return sheets.hits_report(desk, register.hits_by_level(desk, period))
    if name == "drop":
        return sheets.drop_report(desk, register.drop_by_table(desk, period))
    raise ValueError(f"report: {name!r} is not one of {', '.join(n for n, _ in REPORTS)}")


class ReconciliationPanel(QWidget):
    """Choose a report and a period, read it, look at it, print it, export it."""

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.report: Report | None = None
        self.running = False
        casino = desk.config.casino
        today = periods.gaming_day_of(casino, datetime.now(UTC))
        lay = QVBoxLayout(self)

        row = QHBoxLayout()
        self.which = QComboBox()
        self.which.setObjectName("report")
        for key, title in REPORTS:
            self.which.addItem(title, key)
        row.addWidget(QLabel("Report"))
        row.addWidget(self.which)
        self.kind = QComboBox()
        self.kind.setObjectName("period")
        for key, title in PERIODS:
            self.kind.addItem(title, key)
        row.addWidget(self.kind)
        self.day = QDateEdit(QDate(today.year, today.month, today.day))
        self.day.setObjectName("day")
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("yyyy-MM-dd")
        row.addWidget(self.day)
        self.shift = QComboBox()
        self.shift.setObjectName("shift")
        for name, start in casino.shifts:
            self.shift.addItem(f"{name} (from {start:%H:%M})", name)
        row.addWidget(self.shift)
        self.to = QDateEdit(QDate(today.year, today.month, today.day))
        self.to.setObjectName("to")
        self.to.setCalendarPopup(True)
        self.to.setDisplayFormat("yyyy-MM-dd")
        self.to_label = QLabel("to")
        row.addWidget(self.to_label)
        row.addWidget(self.to)
        local_now = datetime.now(UTC).astimezone(desk.tz).replace(minute=0, second=0,
                                                                 microsecond=0)
        self.at = QDateTimeEdit(QDateTime(QDate(local_now.year, local_now.month, local_now.day),
                                          QTime(local_now.hour, 0)))
        self.at.setObjectName("at")
        self.at.setDisplayFormat("yyyy-MM-dd HH:00")
        self.at.setCalendarPopup(True)
        self.now_box = QComboBox()
        self.now_box.setObjectName("when")
        self.now_box.addItem("now", "now")
        self.now_box.addItem("at", "at")
        row.addWidget(self.now_box)
        row.addWidget(self.at)
        self.run_btn = QPushButton("Show")
        self.run_btn.setObjectName("primary")
        self.run_btn.setDefault(True)
        self.run_btn.clicked.connect(self.run)
        row.addWidget(self.run_btn)
        row.addStretch(1)
        lay.addLayout(row)

        self.verdict = QLabel("Choose a report and a period, then Show.")
        self.verdict.setObjectName("muted")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.verdict)
        self.meta = QLabel("")
        self.meta.setObjectName("muted")
        self.meta.setWordWrap(True)
        self.meta.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.meta)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("sheets")
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        lay.addWidget(self.tabs, 1)

        out = QHBoxLayout()
        self.preview_btn = QPushButton("Print preview…")
        self.preview_btn.clicked.connect(self.print_preview)
        self.pdf_btn = QPushButton("Save PDF…")
        self.pdf_btn.clicked.connect(lambda: self._ask_save("pdf"))
        self.csv_btn = QPushButton("Export CSV…")
        self.csv_btn.clicked.connect(lambda: self._ask_save("csv"))
        self.xlsx_btn = QPushButton("Export XLSX…")
        self.xlsx_btn.clicked.connect(lambda: self._ask_save("xlsx"))
        for b in (self.preview_btn, self.pdf_btn, self.csv_btn, self.xlsx_btn):
            b.setEnabled(False)
            out.addWidget(b)
        out.addStretch(1)
        lay.addLayout(out)
        self.which.currentIndexChanged.connect(self._shape)
        self.kind.currentIndexChanged.connect(self._shape)
        self.now_box.currentIndexChanged.connect(self._shape)
        self._shape()

    # -- the choice -------------------------------------------------------------------------
    def _shape(self) -> None:
        liability = self.which.currentData() == "liability"
        kind = self.kind.currentData()
        self.kind.setVisible(not liability)
        self.day.setVisible(not liability)
        self.day.setDisplayFormat("yyyy-MM" if kind == "month" else "yyyy-MM-dd")
        self.shift.setVisible(not liability and kind == "shift")
        self.to.setVisible(not liability and kind == "range")
        self.to_label.setVisible(not liability and kind == "range")
        self.now_box.setVisible(liability)
        self.at.setVisible(liability and self.now_box.currentData() == "at")

    def period(self) -> periods.Period:
        casino = self.desk.config.casino
        d = self.day.date()
        first = date(d.year(), d.month(), d.day())
        kind = self.kind.currentData()
        if kind == "shift":
            return periods.shift(casino, first, str(self.shift.currentData()))
        if kind == "month":
            return periods.month(casino, first.year, first.month)
        if kind == "range":
            t = self.to.date()
            return periods.gaming_days(casino, first, date(t.year(), t.month(), t.day()))
        return periods.gaming_day(casino, first)

    def moment(self) -> datetime | None:
        if self.now_box.currentData() == "now":
            return None
        q = self.at.dateTime()
        local = datetime(q.date().year(), q.date().month(), q.date().day(), q.time().hour(),
                         tzinfo=self.desk.tz)
        return local.astimezone(UTC)

    # -- reading ----------------------------------------------------------------------------
    def run(self) -> None:
        if self.running:
            return
        name = str(self.which.currentData())
        try:
            period = None if name == "liability" else self.period()
            at = self.moment() if name == "liability" else None
            if period is not None and name != "slips":
                check_whole_hours(period)
        except ValueError as exc:
            self._problem(str(exc))
            return
        self.running = True
        self.run_btn.setEnabled(False)
        self.verdict.setObjectName("muted")
        self.verdict.setText("Reading the ledger…")
        self._restyle(self.verdict)
        desk = self.desk
        default_bridge().query(lambda: make_report(desk, name, period, at), self.show_report,
                               self._failed)

    def _failed(self, exc: BaseException) -> None:
        self.running = False
        self.run_btn.setEnabled(True)
        if isinstance(exc, ValueError):
            self._problem(str(exc))
        else:
            log.error("report failed: %s", exc)
            self._problem(f"The ledger could not be read: {exc.__class__.__name__}: "
                          f"{(str(exc).splitlines() or [''])[0]}")

    def _problem(self, text: str) -> None:
        self.verdict.setObjectName("alert")
        self.verdict.setText(text)
        self._restyle(self.verdict)

    @staticmethod
    def _restyle(w: QWidget) -> None:
        w.style().unpolish(w)
        w.style().polish(w)

    def show_report(self, report: Report) -> None:
        self.running = False
        self.run_btn.setEnabled(True)
        self.report = report
        notes = report.notes
        self.verdict.setObjectName("alert" if report.alarm else "ok")
        self.verdict.setText("\n".join(notes) if notes else report.name)
        self._restyle(self.verdict)
        self.meta.setText("   ".join(f"{k}: {v}" for k, v in report.meta(self.desk)))
        while self.tabs.count():
            w = self.tabs.widget(0)
            self.tabs.removeTab(0)
            if w is not None:
                w.deleteLater()
        money = self.desk.config.money  # the floor's currency, the casino's locale
        for sheet in report.sheets:
            table = QTableWidget(len(sheet.rows), len(sheet.header))
            table.setObjectName(f"sheet-{sheet.title}")
            table.setHorizontalHeaderLabels(list(sheet.header))
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.verticalHeader().setVisible(False)
            table.setAlternatingRowColors(True)
            for r, row in enumerate(sheet.rows):
                for c, value in enumerate(row):
                    item = QTableWidgetItem(cell_text(value, c in sheet.money, money))
                    if c in sheet.money or isinstance(value, int):
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                              | Qt.AlignmentFlag.AlignVCenter)
                    if r in sheet.strong:
                        f = item.font()
                        f.setBold(True)
                        item.setFont(f)
                    table.setItem(r, c, item)
            table.resizeColumnsToContents()
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
            table.horizontalHeader().setStretchLastSection(False)
            self.tabs.addTab(table, sheet.title)
        self.tabs.tabBar().adjustSize()
        for b in (self.preview_btn, self.pdf_btn, self.csv_btn, self.xlsx_btn):
            b.setEnabled(True)

    # -- out --------------------------------------------------------------------------------
    def _ask_save(self, fmt: str) -> None:
        if self.report is None:
            return
        stem = self.report.name.lower().replace(" ", "-")
        path, _ = QFileDialog.getSaveFileName(self, f"Save {fmt.upper()}",
                                              str(Path.home() / f"{stem}.{fmt}"),
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            self.save(fmt, Path(path))

    def save(self, fmt: str, path: Path) -> Path | None:
        """Write the report shown as ``fmt`` (pdf, csv: the sheet shown, xlsx: every sheet)."""
        if self.report is None:
            return None
        try:
            if fmt == "pdf":
                from printing.pages.accounting_page import write_pdf

                return write_pdf(self.report, self.desk, path)
            if fmt == "csv":
                return sheets.write_csv(self.report, path, max(0, self.tabs.currentIndex()))
            return sheets.write_xlsx(self.report, self.desk, path)
        except (OSError, ValueError) as exc:
            QMessageBox.warning(self, "Not saved", f"{path}: {exc}")
            return None

    def print_preview(self) -> None:
        if self.report is None:
            return
        from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog

        from printing.pages.winpage import print_on

        html = report_html(self.report, self.desk)
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintPreviewDialog(printer, self)
        dialog.setWindowTitle(f"Print: {self.report.name}")
        dialog.paintRequested.connect(lambda p: print_on(html, p))
        dialog.exec()

