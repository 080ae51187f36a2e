"""The "Poker room" tab (docs/operator.md "Poker room"; rules docs/bbj.md, RULES.md section 6):
the Bad Beat Jackpot fund's main and reserve in large figures (refreshed at most every
FUND_REFRESH_MS), claim entry (table, blinds, pot, seats dealt in with names, ID checked and
taxpayer class, the board and the two showdown hands on one card picker) with the decision and
every failed rule in words, the case list (state, next deadline, overdue in red) with the
buttons that move a case on or void it, and the daily drop-box count (per table: box, opened /
closed, dealer, chip pieces per denomination; "Record count", then "Post the day" showing the
distribution), each after a supervisor's swipe (``window.authorize``).  Core:
core/bbj_cases.py (which calls core/bbj_fund.py in the swipe's transaction)."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from typing import Any, cast
from zoneinfo import ZoneInfo

from PySide6.QtCore import QDate, QDateTime, Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDateTimeEdit,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from sqlalchemy import select
from sqlalchemy.orm import Session

from core import bbj_cases as bc
from core import bbj_fund as bf
from core.ledger.models import BbjFund
from core.money import format_cents, parse_cents
from core.rules.bbj import TAXPAYER_CLASSES, ShownHand
from core.rules.bbj_command import fraction_text
from gui import theme
from gui.cards import CardPicker

log = logging.getLogger("podium.gui.poker_room")

FUND_REFRESH_MS = 5000
SEATS = 10
NEXT_TEXT = {"verified": "Verify (deck sorted, CCTV reviewed)",
             "request_filed": "Awarding request filed (TGD-1500)",
             "attachments_filed": "Attachments filed", "approved": "Approval received",
             "share_paid": "Pay share", "acknowledged": "Acknowledgment received"}


class PokerRoomScreen(QWidget):
    def __init__(self, console: Any, window: Any) -> None:
        super().__init__()
        self.console = console
        self.window_ = window
        self.tz = ZoneInfo(console.config.casino.timezone)
        self.decision: Any = None
        self.cases: list[bc.CaseView] = []
        outer = QVBoxLayout(self)

        head = QHBoxLayout()
        head.addWidget(QLabel("Fund:"))
        self.fund_box = QComboBox()
        self.fund_box.currentIndexChanged.connect(self.refresh_funds)
        head.addWidget(self.fund_box)
        self.main_label = QLabel("MAIN —")
        self.reserve_label = QLabel("RESERVE —")
        for lbl in (self.main_label, self.reserve_label):
            lbl.setStyleSheet(f"color: {theme.ACCENT}; font-size: 30pt; font-weight: bold;")
            head.addSpacing(24)
            head.addWidget(lbl)
        head.addStretch(1)
        outer.addLayout(head)

        split = QSplitter()
        claim_scroll = QScrollArea()
        claim_scroll.setWidgetResizable(True)
        claim_scroll.setWidget(self._claim_panel())
        split.addWidget(claim_scroll)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self._case_panel())
        count_scroll = QScrollArea()
        count_scroll.setWidgetResizable(True)
        count_scroll.setWidget(self._count_panel())
        right.addWidget(count_scroll)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        outer.addWidget(split, 1)

        self._timer = QTimer(self)
        self._timer.timeout.connect(self.refresh_funds)
        self._timer.start(FUND_REFRESH_MS)
        self.load_funds()
        self.refresh_cases()

    # --- claim entry -------------------------------------------------------------------------

    def _claim_panel(self) -> QWidget:
        box = QGroupBox("New claim")
        lay = QVBoxLayout(box)
        form = QFormLayout()
        self.table_edit = QLineEdit()
        self.table_edit.setPlaceholderText("e.g. P1")
        self.big_blind = QLineEdit("100.00")
        self.pot = QLineEdit()
        self.cap = QLineEdit("100.00")
        self.room_max = QLineEdit("100.00")
        now = datetime.now(self.tz).replace(tzinfo=None, second=0, microsecond=0)
        self.hit_time = QDateTimeEdit(QDateTime(now))  # casino local time
        self.hit_time.setDisplayFormat("yyyy-MM-dd HH:mm")
        row1 = QHBoxLayout()
        for label, w in (("Table", self.table_edit), ("Big blind", self.big_blind),
                         ("Pot", self.pot)):
            row1.addWidget(QLabel(label))
            row1.addWidget(w)
        form.addRow(row1)
        row2 = QHBoxLayout()
        for label, w in (("Table JP rake cap", self.cap), ("Room max", self.room_max),
                         ("Hit at", self.hit_time)):
            row2.addWidget(QLabel(label))
            row2.addWidget(w)
        form.addRow(row2)
        lay.addLayout(form)

        self.seats = QTableWidget(SEATS, 4)
        self.seats.setHorizontalHeaderLabels(["Dealt in", "Name", "ID checked", "Taxpayer"])
        self.seats.setVerticalHeaderLabels([f"Seat {i}" for i in range(1, SEATS + 1)])
        self.dealt: list[QCheckBox] = []
        self.ids: list[QCheckBox] = []
        self.taxpayer: list[QComboBox] = []
        for r in range(SEATS):
            d, i, t = QCheckBox(), QCheckBox(), QComboBox()
            t.addItems(TAXPAYER_CLASSES)
            self.seats.setCellWidget(r, 0, d)
            self.seats.setItem(r, 1, QTableWidgetItem(""))
            self.seats.setCellWidget(r, 2, i)
            self.seats.setCellWidget(r, 3, t)
            self.dealt.append(d)
            self.ids.append(i)
            self.taxpayer.append(t)
        self.seats.setColumnWidth(1, 200)
        self.seats.setColumnWidth(2, 130)  # "ID checked" in full
        self.seats.setColumnWidth(3, 130)
        self.seats.setMinimumHeight(200)
        lay.addWidget(self.seats)

        hands = QHBoxLayout()
        hands.addWidget(QLabel("Cards: board (5), then the hole cards of seat"))
        self.seat_a = QSpinBox()
        self.seat_b = QSpinBox()
        for sp in (self.seat_a, self.seat_b):
            sp.setRange(1, SEATS)
        hands.addWidget(self.seat_a)
        hands.addWidget(QLabel("(2), then of seat"))
        hands.addWidget(self.seat_b)
        hands.addWidget(QLabel("(2)"))
        hands.addStretch(1)
        lay.addLayout(hands)
        self.picker = CardPicker(9)
        lay.addWidget(self.picker)

        buttons = QHBoxLayout()
        self.decide_btn = QPushButton("Decide")
        self.decide_btn.clicked.connect(self.decide)
        self.open_btn = QPushButton("Open case (supervisor swipe)…")
        self.open_btn.setObjectName("primary")
        self.open_btn.clicked.connect(self.open_case)
        buttons.addWidget(self.decide_btn)
        buttons.addWidget(self.open_btn)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.result = QLabel("")
        self.result.setWordWrap(True)
        self.result.setMinimumHeight(170)
        lay.addWidget(self.result)
        return box

    def _entry(self) -> bc.ClaimEntry:
        """The claim as entered (ValueError naming the field)."""
        cards = self.picker.cards()
        if len(cards) != 9:
            raise bc.BbjCaseError(f"cards: pick the 5 board cards and both hands' 2 hole cards "
                                  f"(9 cards; {len(cards)} picked)")
        dealt = tuple(r + 1 for r in range(SEATS) if self.dealt[r].isChecked())
        names = {r + 1: (self.seats.item(r, 1).text().strip())
                 for r in range(SEATS) if self.dealt[r].isChecked()
                 and self.seats.item(r, 1).text().strip()}
        return bc.ClaimEntry(
            table=self.table_edit.text(),
            big_blind_cents=parse_cents(self.big_blind.text(), "big blind"),
            pot_cents=parse_cents(self.pot.text(), "pot"), dealt_in=dealt,
            board=tuple(cards[:5]),
            showdown=(ShownHand(self.seat_a.value(), (cards[5], cards[6])),
                      ShownHand(self.seat_b.value(), (cards[7], cards[8]))),
            table_jackpot_rake_cap_cents=parse_cents(self.cap.text(), "table jackpot rake cap"),
            room_max_jackpot_rake_cents=parse_cents(self.room_max.text(), "room maximum"),
            names=names,
            id_checked=frozenset(r + 1 for r in range(SEATS)
                                 if self.dealt[r].isChecked() and self.ids[r].isChecked()),
            taxpayers={r + 1: self.taxpayer[r].currentText() for r in range(SEATS)
                       if self.dealt[r].isChecked()})

    def _hit_at(self) -> datetime:
        local = self.hit_time.dateTime().toPython()
        return local.replace(tzinfo=self.tz).astimezone(UTC)

    def _error(self, text: str) -> None:
        self.result.setText(text)
        self.result.setStyleSheet(f"color: {theme.ALERT}; font-weight: bold;")

    def decide(self) -> bool:
        """Decide the entered claim on the selected fund and show every rule's result."""
        fund = self.fund_box.currentData()
        if fund is None:
            self._error("No Bad Beat Jackpot fund: create one first (docs/bbj.md).")
            return False
        try:
            entry = self._entry()
            _claim, d = bc.decide_entry(self.console.engine, fund, entry, self._hit_at())
        except ValueError as exc:
            self._error(str(exc))
            return False
        self.decision = d
        if d.qualifies:
            lines = [f"QUALIFIES: seat {d.winning_seat} "
                     f"({d.winning_hand.category if d.winning_hand else ''}) beat seat "
                     f"{d.losing_seat} ({d.losing_hand.category if d.losing_hand else ''}). "
                     f"Award {format_cents(d.award_cents)} "
                     f"({fraction_text(d.payout_fraction)} of main)."]
            for s in d.shares:
                name = entry.names.get(s.seat, "")
                idc = "" if s.seat in entry.id_checked else "  NO ID CHECKED"
                lines.append(f"  seat {s.seat} {name} ({s.role}, {s.taxpayer}): gross "
                             f"{format_cents(s.gross_cents)}, tax {format_cents(s.tax_cents)}, "
                             f"net {format_cents(s.net_cents)}{idc}")
            lines.append(f"After the hit: main {format_cents(d.main_after_cents)}, reserve "
                         f"{format_cents(d.reserve_after_cents)}")
            self.result.setStyleSheet(f"color: {theme.OK}; font-weight: bold;")
        else:
            lines = ["DOES NOT QUALIFY:"] + [f"  {t}" for t in bc.reasons_text(d)]
            self.result.setStyleSheet(f"color: {theme.WARN}; font-weight: bold;")
        self.result.setText("\n".join(lines))
        return True

    def open_case(self) -> None:
        if not self.decide():
            return
        fund = self.fund_box.currentData()
        entry, hit_at = self._entry(), self._hit_at()
        verdict = "qualifies" if self.decision.qualifies else "does not qualify"
        what = f"Open a Bad Beat Jackpot case for table {entry.table} ({verdict})."
        done: list[int] = []

        def do(swipe: str) -> int:
            cid = bc.open_case(self.console.engine, fund, entry, hit_at, swipe)
            done.append(cid)
            return cid

        if self.window_.authorize(bc.ROLE, what, "bbj_case", do) and done:
            self.result.setText(self.result.text() + f"\nCase #{done[0]} opened.")
            self.refresh_cases()

    # --- cases -------------------------------------------------------------------------------

    def _case_panel(self) -> QWidget:
        box = QGroupBox("Cases")
        lay = QVBoxLayout(box)
        self.case_table = QTableWidget(0, 5)
        self.case_table.setHorizontalHeaderLabels(["#", "Table", "Hit", "State",
                                                   "Next deadline"])
        self.case_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.case_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.case_table.itemSelectionChanged.connect(self._selected_changed)
        lay.addWidget(self.case_table, 1)
        self.case_info = QLabel("")
        self.case_info.setWordWrap(True)
        self.case_info.setMinimumHeight(90)
        lay.addWidget(self.case_info)
        grid = QGridLayout()
        self.next_box = QComboBox()
        grid.addWidget(QLabel("Next step"), 0, 0)
        grid.addWidget(self.next_box, 0, 1)
        self.share_seat = QComboBox()
        grid.addWidget(QLabel("Share of seat"), 1, 0)
        grid.addWidget(self.share_seat, 1, 1)
        self.deck_sorted = QCheckBox("Deck sorted")
        self.cctv = QCheckBox("CCTV reviewed")
        grid.addWidget(self.deck_sorted, 2, 0)
        grid.addWidget(self.cctv, 2, 1)
        self.step_btn = QPushButton("Record step (supervisor swipe)…")
        self.step_btn.clicked.connect(self.record_step)
        grid.addWidget(self.step_btn, 3, 0, 1, 2)
        self.void_reason = QLineEdit()
        self.void_reason.setPlaceholderText("reason for the void")
        grid.addWidget(self.void_reason, 4, 0)
        self.void_btn = QPushButton("Void (supervisor swipe)…")
        self.void_btn.clicked.connect(self.void_case)
        grid.addWidget(self.void_btn, 4, 1)
        lay.addLayout(grid)
        self.case_msg = QLabel("")
        self.case_msg.setWordWrap(True)
        lay.addWidget(self.case_msg)
        return box

    def refresh_cases(self) -> None:
        try:
            self.cases = bc.list_cases(self.console.engine)
        except Exception:  # the ledger is away: keep the last list
            log.warning("could not read the Bad Beat Jackpot cases", exc_info=True)
            return
        now = datetime.now(UTC)
        self.case_table.setRowCount(len(self.cases))
        for r, c in enumerate(self.cases):
            nd = bc.next_deadline(c, self.tz)
            due = (f"{nd.what} by {nd.due.astimezone(self.tz):%d %b %H:%M}" if nd else "—")
            cells = [str(c.case_id), c.table, f"{c.hit_at.astimezone(self.tz):%d %b %H:%M}",
                     bc.STATE_TEXT[c.state] + ("" if c.qualifies else " (does not qualify)"),
                     due]
            late = nd is not None and nd.due < now
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if late:
                    item.setForeground(QColor(theme.ALERT))
                    item.setToolTip("OVERDUE")
                self.case_table.setItem(r, col, item)
        self.case_table.resizeColumnsToContents()
        self._selected_changed()

    def selected_case(self) -> bc.CaseView | None:
        rows = self.case_table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.cases):
            return None
        return self.cases[rows[0].row()]

    def _selected_changed(self) -> None:
        c = self.selected_case()
        self.next_box.clear()
        self.share_seat.clear()
        if c is None:
            self.case_info.setText("Select a case.")
            return
        for st in c.next_states():
            if st != "voided":
                self.next_box.addItem(NEXT_TEXT[st], st)
        for seat in c.unpaid_seats:
            name = c.claim["names"].get(str(seat), "")
            self.share_seat.addItem(f"seat {seat} {name}".strip(), seat)
        hist = "; ".join(f"{bc.STATE_TEXT[e.state]}{f' seat {e.seat}' if e.seat else ''} by "
                         f"{e.employee_number} {e.at.astimezone(self.tz):%d %b %H:%M}"
                         f"{f' ({e.detail})' if e.detail else ''}" for e in c.events)
        self.case_info.setText(f"Case #{c.case_id}: {hist}")

    def _swiped_step(self, c: bc.CaseView, state: str, what: str, **kw: Any) -> None:
        done: list[bc.CaseView] = []

        def do(swipe: str) -> bc.CaseView:
            view = bc.advance(self.console.engine, c.case_id, state, swipe, **kw)
            done.append(view)
            return view

        if self.window_.authorize(bc.ROLE, what, "bbj_case", do) and done:
            self.case_msg.setText(f"Case #{c.case_id}: {bc.STATE_TEXT[done[0].state]}.")
            self.case_msg.setStyleSheet(f"color: {theme.OK};")
            self.refresh_cases()

    def record_step(self) -> None:
        c = self.selected_case()
        state = self.next_box.currentData()
        if c is None or state is None:
            self.case_msg.setText("Select a case with a next step.")
            return
        kw: dict[str, Any] = {}
        if state == "verified":
            kw = {"deck_sorted": self.deck_sorted.isChecked(),
                  "cctv_reviewed": self.cctv.isChecked()}
            if not all(kw.values()):
                self.case_msg.setText("Verify only once the deck is sorted and the CCTV "
                                      "reviewed: tick both.")
                self.case_msg.setStyleSheet(f"color: {theme.ALERT};")
                return
        if state == "share_paid":
            kw = {"seat": self.share_seat.currentData()}
        seat_text = " " + self.share_seat.currentText() if state == "share_paid" else ""
        self._swiped_step(c, state, f"Case #{c.case_id}: {NEXT_TEXT[state]}{seat_text}.", **kw)

    def void_case(self) -> None:
        c = self.selected_case()
        reason = self.void_reason.text().strip()
        if c is None or not reason:
            self.case_msg.setText("Select a case and type the reason for the void.")
            self.case_msg.setStyleSheet(f"color: {theme.ALERT};")
            return
        self._swiped_step(c, "voided", f"VOID case #{c.case_id}: {reason}", detail=reason)

    # --- daily drop-box count ---------------------------------------------------------------

    def _count_panel(self) -> QWidget:
        box = QGroupBox("Daily drop-box count")
        lay = QVBoxLayout(box)
        grid = QGridLayout()
        now = datetime.now(self.tz).replace(tzinfo=None, second=0, microsecond=0)
        self.count_date = QDateEdit(QDate(now.year, now.month, now.day))  # business date
        self.count_date.setDisplayFormat("yyyy-MM-dd")
        self.count_date.setCalendarPopup(True)
        self.count_table = QLineEdit()
        self.count_table.setPlaceholderText("e.g. P1")
        self.count_box = QLineEdit()
        self.count_box.setPlaceholderText("e.g. J-1")
        self.count_dealer = QLineEdit()
        self.count_opened = QDateTimeEdit(QDateTime(now.replace(hour=10, minute=0)))
        self.count_closed = QDateTimeEdit(QDateTime(now))
        for edit in (self.count_opened, self.count_closed):
            edit.setDisplayFormat("yyyy-MM-dd HH:mm")  # casino local time
        cells: tuple[tuple[str, QWidget], ...] = (
            ("Date", self.count_date), ("Table", self.count_table),
            ("Drop box", self.count_box), ("Dealer", self.count_dealer),
            ("Opened", self.count_opened), ("Closed", self.count_closed))
        for i, (label, w) in enumerate(cells):
            grid.addWidget(QLabel(label), i // 2, (i % 2) * 2)
            grid.addWidget(w, i // 2, (i % 2) * 2 + 1)
        lay.addLayout(grid)
        chips = QHBoxLayout()
        chips.addWidget(QLabel("Pieces:"))
        self.pieces: dict[int, QSpinBox] = {}
        for denom in bf.FundSettings().denominations:
            sp = QSpinBox()
            sp.setRange(0, 1_000_000)
            sp.valueChanged.connect(self._count_total_changed)
            chips.addWidget(QLabel(f"{denom}"))
            chips.addWidget(sp)
            self.pieces[denom] = sp
        chips.addStretch(1)
        lay.addLayout(chips)
        self.count_total = QLabel("Box total 0.00")
        lay.addWidget(self.count_total)
        buttons = QHBoxLayout()
        self.record_count_btn = QPushButton("Record count (supervisor swipe)…")
        self.record_count_btn.clicked.connect(self.record_count)
        self.post_day_btn = QPushButton("Post the day (supervisor swipe)…")
        self.post_day_btn.clicked.connect(self.post_day)
        buttons.addWidget(self.record_count_btn)
        buttons.addWidget(self.post_day_btn)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.count_msg = QLabel("")
        self.count_msg.setWordWrap(True)
        self.count_msg.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.count_msg)
        lay.addStretch(1)
        return box

    def _count_total_changed(self) -> None:
        total = sum(d * sp.value() for d, sp in self.pieces.items()) * 100
        self.count_total.setText(f"Box total {format_cents(total)}")

    def _count_message(self, text: str, ok: bool) -> None:
        self.count_msg.setText(text)
        self.count_msg.setStyleSheet(f"color: {theme.OK if ok else theme.ALERT};")

    def _local(self, edit: QDateTimeEdit) -> datetime:
        local = cast(datetime, edit.dateTime().toPython())
        return local.replace(tzinfo=self.tz).astimezone(UTC)

    def _business_date(self) -> date:
        return cast(date, self.count_date.date().toPython())

    def record_count(self) -> None:
        """Record one table's drop box after a supervisor's swipe (refusals show in the
        prompt)."""
        fund = self.fund_box.currentData()
        if fund is None:
            self._count_message("No Bad Beat Jackpot fund: create one first (docs/bbj.md).",
                                False)
            return
        day, table = self._business_date(), self.count_table.text().strip()
        box = self.count_box.text().strip()
        pieces = {d: sp.value() for d, sp in self.pieces.items()}
        opened, closed = self._local(self.count_opened), self._local(self.count_closed)
        dealer = self.count_dealer.text()
        done: list[int] = []

        def do(swipe: str) -> int:
            cid = bc.record_count(self.console.engine, fund, swipe, business_date=day,
                                  table=table, drop_box=box, opened_at=opened,
                                  closed_at=closed, dealer=dealer, pieces=pieces)
            done.append(cid)
            return cid

        what = (f"Record the jackpot drop box {box or '?'} of table {table or '?'} for {day}: "
                f"{self.count_total.text().lower()}.")
        if self.window_.authorize(bc.ROLE, what, "bbj_count", do) and done:
            self._count_message(f"{day}: table {table} drop box {box} counted "
                                f"({self.count_total.text().lower()}).", True)
            for sp in self.pieces.values():
                sp.setValue(0)
            self.count_box.clear()

    def post_day(self) -> None:
        """Post the day's counts after a supervisor's swipe and show the distribution."""
        fund = self.fund_box.currentData()
        if fund is None:
            self._count_message("No Bad Beat Jackpot fund: create one first (docs/bbj.md).",
                                False)
            return
        day = self._business_date()
        done: list[bf.Posting] = []

        def do(swipe: str) -> bf.Posting:
            p = bc.post_day(self.console.engine, fund, day, swipe)
            done.append(p)
            return p

        if self.window_.authorize(bc.ROLE, f"Post the jackpot rake of {day}.", "bbj_count",
                                  do) and done:
            p = done[0]
            d = p.distribution
            self._count_message(
                f"{day} posted: jackpot rake {format_cents(d.collection_cents)}; admin fee "
                f"{format_cents(d.admin_fee_cents)}, to main {format_cents(d.to_main_cents)}, "
                f"to reserve {format_cents(d.to_reserve_cents)}.\n"
                f"Updated main {format_cents(p.updated.main_cents)} (was "
                f"{format_cents(p.previous.main_cents)}), reserve "
                f"{format_cents(p.updated.reserve_cents)} (was "
                f"{format_cents(p.previous.reserve_cents)}).", True)
            self.refresh_funds()

    # --- funds -------------------------------------------------------------------------------

    def load_funds(self) -> None:
        with Session(self.console.engine) as s:
            rows = s.execute(select(BbjFund).order_by(BbjFund.id)).scalars().all()
            funds = [(f.id, f.name) for f in rows]
        self.fund_box.clear()
        for fid, name in funds:
            self.fund_box.addItem(name, fid)
        self.refresh_funds()

    def refresh_funds(self) -> None:
        fund = self.fund_box.currentData()
        if fund is None:
            self.main_label.setText("MAIN —")
            self.reserve_label.setText("RESERVE —")
            return
        try:
            f = bf.funds(self.console.engine, fund)
        except Exception:  # the ledger is away: keep the last figures
            log.warning("could not read fund %s", fund, exc_info=True)
            return
        self.main_label.setText(f"MAIN {format_cents(f.main_cents)}")
        self.reserve_label.setText(f"RESERVE {format_cents(f.reserve_cents)}")
