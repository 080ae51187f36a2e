"""Win pages for any win slip: search, preview, print, save as PDF.

:class:`WinPageSearch` is a read-only panel on a :class:`core.desks.desk.Desk` (the accountant's,
surveillance's, or the supervisor's console): search fields (dates as gaming days or local
calendar dates, table, amount exact or from/to, employee number or name, slip number), the
slips found (newest first, a page at a time: **Older…** shows the next page), the win page of
the selected slip as it prints (a void slip's with its VOID mark), **Print…** (Qt's print
dialog) and **Save PDF…**.  Every read runs off the GUI thread (the bridge); the panel
writes nothing.  The supervisor's console adds **Void slip…** (``on_void``: the console's
own, swiped action)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate, QRegularExpression, Qt
from PySide6.QtGui import QColor, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.desks.accounting.slip_search import SlipPage, SlipRow, SlipSearch, WinPages, date_range
from core.desks.desk import Desk
from core.kernel.money import parse_cents
from core.tablegames.slip_record import WinSlip
from gui.common.bridge import default_bridge

log = logging.getLogger("podium.gui.winpages")

COLUMNS = ("Slip", "State", "Paid at (local)", "Table", "Seat", "Hand", "Level", "Amount",
           "Authorized by", "Verified by")
STATE_COLUMN = 1
PAGE = 100


class WinPageSearch(QWidget):
    """Search win slips and show, print or save their win pages (reads only)."""

    def __init__(self, desk: Desk, parent: QWidget | None = None, *,
                 on_void: Callable[[SlipRow], None] | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        self.pages = WinPages(desk)
        self.bridge = default_bridge()
        self._on_void = on_void
        self.rows: list[SlipRow] = []
        self._query: SlipSearch | None = None
        self._next_before: int | None = None
        self._shown: tuple[int, WinSlip, str] | None = None  # slip no, record, html
        # how Print… and Save PDF… ask (a test replaces them: no modal dialog)
        self.ask_printer: Callable[[], Any | None] = self._ask_printer
        self.ask_pdf_path: Callable[[str], Path | None] = self._ask_pdf_path
        self.last_pdf: Path | None = None

        outer = QVBoxLayout(self)
        title = QLabel("Win pages")
        title.setObjectName("title")
        outer.addWidget(title)
        outer.addLayout(self._fields())
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setObjectName("alert")
        outer.addWidget(self.message)
        split = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("results")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selected)
        lay.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.count = QLabel("")
        self.count.setObjectName("muted")
        row.addWidget(self.count, 1)
        self.older_btn = QPushButton("Older…")
        self.older_btn.setToolTip(f"The next {PAGE} slips found, numbered below the last shown")
        self.older_btn.setEnabled(False)
        self.older_btn.clicked.connect(self.older)
        row.addWidget(self.older_btn)
        lay.addLayout(row)
        split.addWidget(left)
        right = QWidget()
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        self.preview = QTextBrowser()
        self.preview.setObjectName("winpagePreview")
        # the page as it prints: black on white, whatever the console's theme
        self.preview.setStyleSheet("QTextBrowser { background: #ffffff; color: #000000; }")
        rlay.addWidget(self.preview, 1)
        buttons = QHBoxLayout()
        self.print_btn = QPushButton("Print…")
        self.print_btn.clicked.connect(self.print_page)
        self.pdf_btn = QPushButton("Save PDF…")
        self.pdf_btn.clicked.connect(self.save_pdf)
        buttons.addWidget(self.print_btn)
        buttons.addWidget(self.pdf_btn)
        self.void_btn: QPushButton | None = None
        if on_void is not None:
            self.void_btn = QPushButton("Void slip…")
            self.void_btn.setObjectName("danger")
            self.void_btn.setToolTip("An executive voids the selected slip (swipe and reason)")
            self.void_btn.clicked.connect(self._void_selected)
            buttons.addWidget(self.void_btn)
        buttons.addStretch(1)
        rlay.addLayout(buttons)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([1000, 520])  # the list's columns whole; the page beside it
        outer.addWidget(split, 1)
        self._enable_page_buttons()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        """The first time the panel is shown it lists the latest slips (or those its fields
        already ask for)."""
        super().showEvent(event)
        if self._query is None:
            self.search()

    # -- the fields ---------------------------------------------------------------------------
    def _fields(self) -> QGridLayout:
        grid = QGridLayout()
        today = QDate.currentDate()
        self.use_dates = QCheckBox("Dates")
        self.use_dates.setToolTip("Only slips paid on these days (unticked: any day)")
        self.day_kind = QComboBox()
        self.day_kind.addItem("Gaming days", True)
        self.day_kind.addItem("Calendar dates (local)", False)
        self.first_day = QDateEdit(today)
        self.last_day = QDateEdit(today)
        for d in (self.first_day, self.last_day):
            d.setCalendarPopup(True)
            d.setDisplayFormat("yyyy-MM-dd")
        self.use_dates.toggled.connect(self._dates_enabled)
        self._dates_enabled(False)
        grid.addWidget(self.use_dates, 0, 0)
        grid.addWidget(self.day_kind, 0, 1)
        grid.addWidget(self.first_day, 0, 2)
        grid.addWidget(QLabel("to"), 0, 3)
        grid.addWidget(self.last_day, 0, 4)
        grid.addWidget(QLabel("Table"), 0, 5)
        self.table_box = QComboBox()
        self.table_box.addItem("Any table", None)
        for t in self.desk.config.tables:
            self.table_box.addItem(f"{t.id}  {t.name}" if t.name and t.name != t.id else t.id,
                                   t.id)
        grid.addWidget(self.table_box, 0, 6)
        grid.addWidget(QLabel("Amount"), 1, 0)
        self.amount_min = QLineEdit()
        self.amount_min.setPlaceholderText("exact, or from")
        self.amount_max = QLineEdit()
        self.amount_max.setPlaceholderText("to")
        for f in (self.amount_min, self.amount_max):
            f.setMaxLength(20)
            f.setToolTip("One amount: exactly that. Both: from - to (inclusive). Only 'to': up "
                         "to that amount.")
        grid.addWidget(self.amount_min, 1, 1, 1, 2)
        grid.addWidget(QLabel("to"), 1, 3)
        grid.addWidget(self.amount_max, 1, 4)
        grid.addWidget(QLabel("Employee"), 1, 5)
        self.employee = QLineEdit()
        self.employee.setObjectName("employee")
        self.employee.setPlaceholderText("number, or part of a name")
        self.employee.setToolTip("Who authorized or verified the pay")
        self.employee.setMaxLength(100)
        grid.addWidget(self.employee, 1, 6)
        grid.addWidget(QLabel("Slip no."), 0, 7)
        self.slip_no = QLineEdit()
        self.slip_no.setObjectName("slipNo")
        self.slip_no.setMaxLength(9)
        self.slip_no.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,9}"),
                                                              self.slip_no))
        grid.addWidget(self.slip_no, 0, 8)
        self.search_btn = QPushButton("Search")
        self.search_btn.setDefault(True)
        self.search_btn.clicked.connect(self.search)
        grid.addWidget(self.search_btn, 1, 7, 1, 2)
        for f in (self.amount_min, self.amount_max, self.employee, self.slip_no):
            f.returnPressed.connect(self.search)
        grid.setColumnStretch(6, 1)
        return grid

    def _dates_enabled(self, on: bool) -> None:
        for w in (self.day_kind, self.first_day, self.last_day):
            w.setEnabled(on)

    def set_dates(self, first: date, last: date, *, gaming: bool = True) -> None:
        self.use_dates.setChecked(True)
        self.day_kind.setCurrentIndex(0 if gaming else 1)
        self.first_day.setDate(QDate(first.year, first.month, first.day))
        self.last_day.setDate(QDate(last.year, last.month, last.day))

    def query(self) -> SlipSearch:
        """The search the fields ask for (ValueError naming the field that is wrong)."""
        start = end = None
        if self.use_dates.isChecked():
            first, last = self.first_day.date().toPython(), self.last_day.date().toPython()
            assert isinstance(first, date) and isinstance(last, date)
            period = date_range(self.desk.config.casino, first, last,
                                gaming=bool(self.day_kind.currentData()))
            start, end = period.start, period.end
        low_text, high_text = self.amount_min.text().strip(), self.amount_max.text().strip()
        low = parse_cents(low_text.lstrip("$"), "amount") if low_text else None
        high = parse_cents(high_text.lstrip("$"), "amount 'to'") if high_text else None
        if low is not None and high is None:
            high = low  # one amount: exactly that
        slip_text = self.slip_no.text().strip()
        return SlipSearch(start=start, end=end, table=self.table_box.currentData(),
                          amount_min_cents=low, amount_max_cents=high,
                          employee=self.employee.text().strip() or None,
                          slip_no=int(slip_text) if slip_text else None, limit=PAGE)

    # -- searching ------------------------------------------------------------------------------
    def search(self) -> None:
        """Search with the fields as they are (off the GUI thread); the first page shows."""
        try:
            q = self.query()
        except ValueError as exc:
            self._problem(str(exc))
            return
        self._query = q
        self._run(q, append=False)

    def older(self) -> None:
        if self._query is None or self._next_before is None:
            return
        from dataclasses import replace

        self._run(replace(self._query, before_slip_no=self._next_before), append=True)

    def _run(self, q: SlipSearch, *, append: bool) -> None:
        self.message.setText("")
        self.count.setText("Searching…")
        self.bridge.query(lambda: self.pages.search(q),
                          lambda page: self._found(page, append),
                          lambda exc: self._failed("The search", exc), key="winpage-search",
                          owner=self)

    def _found(self, page: SlipPage, append: bool) -> None:
        if not append:
            self.rows = []
            self.table.setRowCount(0)
        first = len(self.rows)
        self.rows += page.rows
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(page.rows, first):
            self._fill(i, r)
        self._next_before = page.next_before
        self.older_btn.setEnabled(page.more)
        n = len(self.rows)
        self.count.setText("No win slip matches." if not n else
                            f"{n} win slip{'s' if n != 1 else ''} shown, newest first"
                            + ("; Older… shows more" if page.more else ""))
        if not append and self.rows:
            self.table.selectRow(0)
            # row 0 may have been selected already (the search before): no selection change
            # then, so the win page is read here for the new row 0
            self._selected()
        elif not self.rows:
            self._show_page(None)

    def _fill(self, i: int, r: SlipRow) -> None:
        money = self.desk.config.money.text(r.amount_cents)
        values = (f"{r.slip_no:06d}", r.state,
                  r.local[:16], r.table_id, str(r.seat), r.hand.replace("_", " "),
                  r.level or "tray", money, r.authorized_by, r.verified_by)
        for c, v in enumerate(values):
            item = QTableWidgetItem(v)
            if c in (0, 4, 7):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
            if c == 3 and r.table_name != r.table_id:
                item.setToolTip(r.table_name)
            if c == 2:
                item.setToolTip(f"{r.local} ({r.paid_at:%Y-%m-%d %H:%M:%S} UTC)")
            if r.voided and c == STATE_COLUMN:
                item.setForeground(QColor("#ff4d4f"))
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.table.setItem(i, c, item)

    def selected(self) -> SlipRow | None:
        i = self.table.currentRow()
        return self.rows[i] if 0 <= i < len(self.rows) else None

    def _selected(self) -> None:
        r = self.selected()
        self._enable_page_buttons()
        if r is None:
            self._show_page(None)
            return
        n = r.slip_no
        from gui.tablegames.winpage_dialog import winpage_for

        self.bridge.query(lambda: (n, *winpage_for(self.pages, n)), self._page_read,
                          lambda exc: self._failed(f"The win page of slip {n}", exc),
                          key="winpage-preview")

    def _page_read(self, page: tuple[int, WinSlip, str]) -> None:
        r = self.selected()
        if r is None or r.slip_no != page[0]:
            return  # another slip was selected meanwhile: its page follows
        self._show_page(page)

    def _show_page(self, page: tuple[int, WinSlip, str] | None) -> None:
        from printing.pages.winpage import document

        self._shown = page
        if page is None:
            self.preview.clear()
        else:
            doc = document(page[2])
            doc.setParent(self.preview)
            self.preview.setDocument(doc)
        self._enable_page_buttons()

    def _enable_page_buttons(self) -> None:
        shown = self._shown is not None
        self.print_btn.setEnabled(shown)
        self.pdf_btn.setEnabled(shown)
        if self.void_btn is not None:
            r = self.selected()
            self.void_btn.setEnabled(r is not None and not r.voided)

    def shown_slip(self) -> int | None:
        """The slip whose win page the preview shows (None: none yet)."""
        return None if self._shown is None else self._shown[0]

    # -- paper ----------------------------------------------------------------------------------
    def _ask_printer(self) -> Any | None:
        from PySide6.QtGui import QPageSize
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
        dlg = QPrintDialog(printer, self)
        dlg.setWindowTitle("Print win page")
        ok = dlg.exec() == QDialog.DialogCode.Accepted
        dlg.deleteLater()
        return printer if ok else None

    def print_page(self) -> None:
        """Print… : the shown win page through Qt's print dialog."""
        if self._shown is None:
            return
        n, slip, html = self._shown
        printer = self.ask_printer()
        if printer is None:
            return
        from gui.tablegames.winpage_dialog import print_html

        printer.setDocName(f"Win page {n:06d} {slip.hit_ref}")
        try:
            print_html(html, printer)
        except Exception as exc:  # a printer gone away: say so, keep going
            log.warning("win page of slip %s not printed: %s", n, exc)
            self._problem(f"The win page of slip {n} was not printed: {exc}")
            return
        self._say(f"Win page of slip {n:06d} sent to the printer")

    def _ask_pdf_path(self, name: str) -> Path | None:
        from gui.tablegames.winpage_dialog import default_folder

        folder = default_folder()
        folder.mkdir(parents=True, exist_ok=True)
        path, _ = QFileDialog.getSaveFileName(self, "Save win page as PDF", str(folder / name),
                                              "PDF (*.pdf)")
        return Path(path) if path else None

    def save_pdf(self) -> None:
        """Save PDF… : the shown win page as a PDF where the user says."""
        if self._shown is None:
            return
        n, slip, html = self._shown
        path = self.ask_pdf_path(f"win-page-{n:06d}.pdf")
        if path is None:
            return
        from gui.tablegames.winpage_dialog import PAGE_SIZE
        from printing.pages.winpage import write_pdf

        try:
            out = write_pdf(html, path, page_size=PAGE_SIZE,
                            title=f"Win page {n:06d} {slip.hit_ref}")
        except Exception as exc:  # a folder not writable, a full disk: say so
            log.warning("win page of slip %s not saved: %s", n, exc)
            self._problem(f"The win page of slip {n} was not saved: {exc}")
            return
        self.last_pdf = out
        self._say(f"Win page of slip {n:06d} saved to {out}")

    # -- the console's void ------------------------------------------------------------------
    def _void_selected(self) -> None:
        r = self.selected()
        if r is not None and self._on_void is not None and not r.voided:
            self._on_void(r)

    def refresh(self) -> None:
        """Search again with the last search (after a void: the row says VOID) and keep the
        selected slip selected."""
        keep = self.selected()
        if self._query is None:
            return

        def found(page: SlipPage) -> None:
            self._found(page, False)
            if keep is not None:
                for i, r in enumerate(self.rows):
                    if r.slip_no == keep.slip_no:
                        self.table.selectRow(i)
                        break

        q = self._query
        self.bridge.query(lambda: self.pages.search(q), found,
                          lambda exc: self._failed("The search", exc), key="winpage-search",
                          owner=self)

    # -- messages -------------------------------------------------------------------------------
    def _problem(self, text: str) -> None:
        self.message.setObjectName("alert")
        self.message.setStyleSheet("color: #ff4d4f; font-weight: bold;")
        self.message.setText(text)

    def _say(self, text: str) -> None:
        self.message.setStyleSheet("color: #3ecf8e;")
        self.message.setText(text)

    def _failed(self, what: str, exc: BaseException) -> None:
        self.count.setText("")
        if isinstance(exc, ValueError):
            self._problem(f"{what}: {exc}")
            return
        log.warning("%s failed: %s", what, exc)
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[:1]
        self._problem(f"{what} could not be read from the ledger "
                      f"({reason[0] if reason else type(exc).__name__}); try again.")


class WinPageSearchDialog(QDialog):
    """The search panel in a window of its own (the supervisor's console: Slips > Win pages)."""

    def __init__(self, desk: Desk, parent: QWidget | None = None, *,
                 on_void: Callable[[SlipRow], None] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Win pages — search any win slip")
        self.resize(1500, 860)
        lay = QVBoxLayout(self)
        self.panel = WinPageSearch(desk, self, on_void=on_void)
        lay.addWidget(self.panel)
        close = QPushButton("Close")
        close.setAutoDefault(False)
        close.clicked.connect(self.accept)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(close)
        lay.addLayout(row)
