"""The "Poker room" tab (docs/operator.md "Poker room"; rules docs/bbj.md, RULES.md section 6):
the Bad Beat Jackpot fund's main and reserve in large figures (refreshed at most every
FUND_REFRESH_MS; a ceased fund says so), claim entry (table, blinds, pot, seats dealt in with
names, ID checked, taxpayer class and whether the seat showed its cards; the board and the hole
cards of every seat that showed on one card picker, in seat order) with the decision and every
failed rule in words, and beside it three pages: the cases (state, next deadline skipping the
floor file's public holidays, overdue in red, the buttons that move a case on or void it; an
approval may cease the fund, TGD-1540), the daily count (per table: the jackpot drop box with
its chip pieces and the house rake box; "Record count", then "Post the day" showing the
distribution; a tournament's fees), each after a supervisor's swipe (``window.authorize``; a
large award's approval or share asks for the executive's card and PIN, said before the swipe:
``core.pokerroom.cases.step_authority``), the fund's cessation (a notice that it ceases once hit,
is transferred or the room closes, TGD-1540 part 1; the players told; withdrawing a notice; the
forfeiture of the whole balance to PAGCOR on the room's permanent closure: an executive's swipe
after a confirmation), the regulator's forms (gui/forms_panel.py), and the room's deadlines (BIR
remittance, TGD-108, the fund's bank statement, TGD-1540 part 2, the notice to players: due, days
left or LATE in red, filed with the reference and who; "Record filing" after a supervisor's
swipe).  A tie (RULES.md 6.6) shows the split and every share, or, under the refuse policy, is
named.  A case stays open for its attachments after its acknowledgment; they can be recorded
missed with a reason once their 7 days have passed, and a late filing says LATE.  Core:
core/pokerroom/cases.py (which calls core/pokerroom/fund.py in the swipe's transaction) and
core/pokerroom/calendar.py."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any, cast
from zoneinfo import ZoneInfo

from PySide6.QtCore import QDate, QDateTime, Qt, QTime, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDateTimeEdit,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.ledger.models import BbjCessation, BbjFund
from core.money import format_cents, parse_cents
from core.pokerroom import calendar as cal
from core.pokerroom import cases as bc
from core.pokerroom import fund as bf
from core.rules.bbj import TAXPAYER_CLASSES, ShownHand
from core.rules.bbj_command import fraction_text
from gui import theme
from gui.bridge import default_bridge
from gui.cards import CardPicker, SlotGroup
from gui.forms_panel import FormsPanel, FundInfo

log = logging.getLogger("podium.gui.poker_room")

FUND_REFRESH_MS = 5000
SEATS = 10
BOARD = "Board"
# seats table columns
COL_DEALT, COL_SHOWED, COL_NAME, COL_ID, COL_TAX = range(5)
NEXT_TEXT = {"verified": "Verify (deck sorted, CCTV reviewed)",
             "request_filed": "Awarding request filed (TGD-1500)",
             "attachments_filed": "Attachments filed (IDs, bank statement, CCTV)",
             "attachments_missed": "Attachments deadline missed (with the reason)",
             "approved": "Approval received",
             "share_paid": "Pay share", "acknowledged": "Acknowledgment received"}
# room deadlines table columns
DL_WHAT, DL_DUE, DL_STATUS, DL_FILED = range(4)
DL_HEADERS = ["Deadline", "Due", "Status", "Filed"]


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _show(label: QLabel, text: str, ok: bool) -> None:
    """A step's outcome under it: green when done, red when refused."""
    label.setText(text)
    label.setStyleSheet(f"color: {theme.OK if ok else theme.ALERT};")


def _seats(seats: tuple[int, ...]) -> str:
    """``seat 4``, ``seats 1 and 2``, ``seats 1, 2 and 3``."""
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def _tie_lines(d: Any) -> list[str]:
    """The tie of a place in words (RULES.md 6.6, [poker_room] tie = split)."""
    out = []
    for place, seats, tie in (("winning", d.winning_seats, d.winning_tie),
                              ("losing", d.losing_seats, d.losing_tie)):
        if len(tie) < 2:
            continue
        line = f"TIE for the {place} hand: {_seats(tie)}."
        if len(seats) > 1:
            line += f" The {place} share is split equally ({_seats(seats)}), each rounded down."
        out_of = [s for s in tie if s not in seats]
        if out_of:
            line += (f" {_seats(tuple(out_of)).capitalize()}: its own hand fails the rules, so "
                     "it takes a table share.")
        out.append(line)
    return out


def _shares_text(decision: dict[str, Any]) -> str:
    """A case's shares as decided (CLI.md JSON), a tied place named: empty when none."""
    shares = decision.get("shares", [])
    if not shares:
        return ""
    ties = []
    for place in ("winning", "losing"):
        seats = tuple(int(s["seat"]) for s in shares if s["role"] == place)
        if len(seats) > 1:
            ties.append(f"tie for the {place} hand, split: {_seats(seats)}")
    each = "; ".join(f"seat {s['seat']} {s['role']} {format_cents(parse_cents(s['gross']))}"
                     for s in shares)
    return "\nShares: " + each + "".join(f" ({t})" for t in ties)


def _qdatetime(local: datetime) -> QDateTime:
    """A naive casino-local time for a date-time field (to the minute)."""
    return QDateTime(QDate(local.year, local.month, local.day), QTime(local.hour, local.minute))


class PokerRoomScreen(QWidget):
    def __init__(self, console: Any, window: Any) -> None:
        super().__init__()
        self.console = console
        self.window_ = window
        self.tz = ZoneInfo(console.config.casino.timezone)
        self.decision: Any = None
        self.rules = console.config.poker_room.rules  # the floor file's [poker_room]
        self.fund_settings = console.config.poker_room.fund
        self.last_slip: bytes | None = None  # the share slip last sent to the printer
        self.cases: list[bc.CaseView] = []
        self.room_deadlines: list[cal.RoomDeadline] = []
        self.funds: list[FundInfo] = []
        # the clock of the deadlines and of the steps taken here (a test sets its own)
        self.now: Callable[[], datetime] = _utcnow
        self.status: bf.FundStatus | None = None  # the chosen fund as last read
        self._status_fund: str | None = None  # whose status that is
        self._asked = 0  # decisions asked for: only the latest one's answer is shown
        # the confirmation before an irreversible step (a test replaces it: no modal dialog)
        self.ask = self._ask
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)

        head = QHBoxLayout()
        head.addWidget(QLabel("Fund:"))
        self.fund_box = QComboBox()
        self.fund_box.setMinimumContentsLength(18)
        self.fund_box.currentIndexChanged.connect(self._fund_changed)
        head.addWidget(self.fund_box)
        self.main_label = QLabel("MAIN —")
        self.reserve_label = QLabel("RESERVE —")
        for lbl in (self.main_label, self.reserve_label):
            lbl.setStyleSheet(f"color: {theme.ACCENT}; font-size: 26pt; font-weight: bold;")
            head.addSpacing(20)
            head.addWidget(lbl)
        head.addSpacing(20)
        self.ceased_label = QLabel("")
        self.ceased_label.setStyleSheet(f"color: {theme.ALERT}; font-size: 16pt; "
                                        "font-weight: bold;")
        head.addWidget(self.ceased_label)
        head.addStretch(1)
        outer.addLayout(head)

        split = QSplitter()
        self.claim_scroll = self._scrolled(self._claim_panel())
        split.addWidget(self.claim_scroll)
        self.pages = QTabWidget()
        self.pages.setObjectName("pokerPages")
        self.pages.addTab(self._case_panel(), "Cases")
        self.pages.addTab(self._scrolled(self._count_panel()), "Daily count")
        self.closure_scroll = self._scrolled(self._closure_panel())
        self.pages.addTab(self.closure_scroll, "Cessation")
        self.forms = FormsPanel(console, self.tz)
        self.pages.addTab(self._scrolled(self.forms), "Forms")
        self.pages.addTab(self._deadline_panel(), "Deadlines")
        self.pages.currentChanged.connect(self._page_changed)
        split.addWidget(self.pages)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([720, 600])  # the picker needs ~660 px; the pages take the rest
        outer.addWidget(split, 1)

        # Another podium's postings and awards move the fund: read it again now and then, off
        # the GUI thread (the bridge); this tab's own steps read it at once.
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._poll_fund)
        self._timer.start(FUND_REFRESH_MS)
        self.load_funds()
        self.refresh_cases()
        self.refresh_deadlines()

    @staticmethod
    def _scrolled(w: QWidget) -> QScrollArea:
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setWidget(w)
        return area

    def _holidays(self) -> tuple[date, ...]:
        """The floor file's public holidays (not business days, RULES.md 6 deadlines)."""
        return tuple(self.console.config.casino.public_holidays)

    def _ask(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(
            self, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    # --- claim entry -------------------------------------------------------------------------

    def _claim_panel(self) -> QWidget:
        box = QGroupBox("New claim")
        lay = QVBoxLayout(box)
        form = QFormLayout()
        self.table_edit = QLineEdit()
        self.table_edit.setPlaceholderText("e.g. P1")
        self.small_blind = QLineEdit("50.00")  # for TGD-1500
        self.big_blind = QLineEdit("100.00")
        self.pot = QLineEdit()
        self.pot.setPlaceholderText("0.00")
        # the room's maximum and the table's cap at its blind level from the floor file
        self.cap = QLineEdit(format_cents(self.fund_settings.room_max_rake_cents).replace(",", ""))
        self.room_max = QLineEdit(self.cap.text())
        self.big_blind.editingFinished.connect(self._blind_changed)
        now = datetime.now(self.tz).replace(tzinfo=None, second=0, microsecond=0)
        self.hit_time = QDateTimeEdit(_qdatetime(now))  # casino local time
        self.hit_time.setDisplayFormat("yyyy-MM-dd HH:mm")
        row1 = QHBoxLayout()
        w: QWidget
        for label, w in (("Table", self.table_edit), ("Blinds", self.small_blind),
                         ("/", self.big_blind), ("Pot", self.pot)):
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

        self.seats = QTableWidget(SEATS, 5)
        self.seats.setHorizontalHeaderLabels(["Dealt in", "Showed", "Name", "ID checked",
                                              "Taxpayer"])
        self.seats.setVerticalHeaderLabels([f"Seat {i}" for i in range(1, SEATS + 1)])
        showed_head = self.seats.horizontalHeaderItem(COL_SHOWED)
        if showed_head is not None:
            showed_head.setToolTip("The seat showed its hole cards at the showdown: enter "
                                   "them on the card picker")
        self.dealt: list[QCheckBox] = []
        self.showed: list[QCheckBox] = []
        self.ids: list[QCheckBox] = []
        self.taxpayer: list[QComboBox] = []
        for r in range(SEATS):
            d, sh, i, t = QCheckBox(), QCheckBox(), QCheckBox(), QComboBox()
            t.addItems(TAXPAYER_CLASSES)
            sh.toggled.connect(self._showdown_changed)
            self.seats.setCellWidget(r, COL_DEALT, d)
            self.seats.setCellWidget(r, COL_SHOWED, sh)
            self.seats.setItem(r, COL_NAME, QTableWidgetItem(""))
            self.seats.setCellWidget(r, COL_ID, i)
            self.seats.setCellWidget(r, COL_TAX, t)
            self.dealt.append(d)
            self.showed.append(sh)
            self.ids.append(i)
            self.taxpayer.append(t)
        head = self.seats.horizontalHeader()
        for col, width in ((COL_DEALT, 88), (COL_SHOWED, 88), (COL_ID, 112), (COL_TAX, 116)):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            self.seats.setColumnWidth(col, width)  # each header in full
        head.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        self.seats.verticalHeader().setDefaultSectionSize(32)
        self.seats.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        # every seat at once: no scroll bar inside the (already scrolling) claim panel
        self.seats.setFixedHeight(self.seats.horizontalHeader().sizeHint().height()
                                  + SEATS * 32 + 4)
        lay.addWidget(self.seats)

        self.showdown_hint = QLabel("")
        self.showdown_hint.setWordWrap(True)
        lay.addWidget(self.showdown_hint)
        self.picker = CardPicker(5, joker=False, slot_size=(50, 46), slot_font_pt=16)
        self.picker.entry.setPlaceholderText("e.g. Ah Ad Tc 7s 7c  As Td  7h 7d  (Enter)")
        lay.addWidget(self.picker)
        self._showdown_changed()

        buttons = QHBoxLayout()
        self.decide_btn = QPushButton("Decide")
        self.decide_btn.clicked.connect(lambda: self.decide())
        self.open_btn = QPushButton("Open case (supervisor swipe)…")
        self.open_btn.setObjectName("primary")
        self.open_btn.clicked.connect(self.open_case)
        buttons.addWidget(self.decide_btn)
        buttons.addWidget(self.open_btn)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.result = QLabel("")
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.setMinimumHeight(120)
        self.result.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.result)
        return box

    def showing_seats(self) -> list[int]:
        """The seats ticked "Showed", in seat order."""
        return [r + 1 for r in range(SEATS) if self.showed[r].isChecked()]

    def _showdown_changed(self) -> None:
        """A seat's "Showed" changed: the picker takes the board, then 2 cards per seat that
        showed, in seat order (each seat's cards already entered stay with it)."""
        showing = self.showing_seats()
        groups = [SlotGroup(BOARD, 5)] + [SlotGroup(f"Seat {n}", 2) for n in showing]
        self.picker.set_groups(groups, slots_per_row=11)
        n = 5 + 2 * len(showing)
        if showing:
            seats = ", ".join(map(str, showing))
            text = (f"Cards ({n}): the 5 board cards, then the 2 hole cards of each seat that "
                    f"showed, in seat order: seat{'s' if len(showing) > 1 else ''} {seats}.")
        else:
            text = ("Cards: the 5 board cards; tick \"Showed\" for every seat that showed its "
                    "hole cards (at least the two highest hands).")
        self.showdown_hint.setText(text)

    def _entry(self) -> bc.ClaimEntry:
        """The claim as entered (ValueError naming the field)."""
        showing = self.showing_seats()
        not_dealt = [n for n in showing if not self.dealt[n - 1].isChecked()]
        if not_dealt:
            seats = ", ".join(map(str, not_dealt))
            if len(not_dealt) == 1:
                raise bc.BbjCaseError(f"seat {seats}: showed its cards but is not dealt in "
                                      "(tick its \"Dealt in\", or untick \"Showed\")")
            raise bc.BbjCaseError(f"seats {seats}: showed their cards but are not dealt in "
                                  "(tick their \"Dealt in\", or untick \"Showed\")")
        groups = self.picker.groups()
        missing = [f"{cap} {sum(c is not None for c in cards)} of {len(cards)}"
                   for cap, cards in groups if None in cards]
        if missing:
            raise bc.BbjCaseError("cards: pick the 5 board cards and the 2 hole cards of each "
                                  f"seat that showed (picked: {', '.join(missing)})")
        hands = {cap: [c for c in cards if c is not None] for cap, cards in groups}
        showdown = tuple(ShownHand(n, (hands[f"Seat {n}"][0], hands[f"Seat {n}"][1]))
                         for n in showing)
        dealt = tuple(r + 1 for r in range(SEATS) if self.dealt[r].isChecked())
        names = {r + 1: self.seat_name(r + 1) for r in range(SEATS)
                 if self.dealt[r].isChecked() and self.seat_name(r + 1)}
        return bc.ClaimEntry(
            table=self.table_edit.text(),
            big_blind_cents=parse_cents(self.big_blind.text(), "big blind"),
            small_blind_cents=(parse_cents(self.small_blind.text(), "small blind")
                               if self.small_blind.text().strip() else None),
            pot_cents=parse_cents(self.pot.text(), "pot"), dealt_in=dealt,
            board=tuple(hands[BOARD]), showdown=showdown,
            table_jackpot_rake_cap_cents=parse_cents(self.cap.text(), "table jackpot rake cap"),
            room_max_jackpot_rake_cents=parse_cents(self.room_max.text(), "room maximum"),
            names=names,
            id_checked=frozenset(r + 1 for r in range(SEATS)
                                 if self.dealt[r].isChecked() and self.ids[r].isChecked()),
            taxpayers={r + 1: self.taxpayer[r].currentText() for r in range(SEATS)
                       if self.dealt[r].isChecked()})

    def seat_name(self, seat: int) -> str:
        item = self.seats.item(seat - 1, COL_NAME)
        return item.text().strip() if item is not None else ""

    def _blind_changed(self) -> None:
        """The table's jackpot rake cap follows the big blind (the floor file's caps by blind
        level; the room maximum for an unlisted blind)."""
        try:
            bb = parse_cents(self.big_blind.text(), "big blind")
        except ValueError:
            return  # said when the claim is decided
        cap = self.fund_settings.rake_cap_cents(bb)
        self.cap.setText(format_cents(cap).replace(",", ""))

    def _hit_at(self) -> datetime:
        return self._local(self.hit_time)

    def _show_result(self, text: str, color: str) -> None:
        self.result.setText(text)
        self.result.setStyleSheet(f"color: {color}; font-weight: bold;")
        # on a small screen the result is below the fold: bring it into view
        QTimer.singleShot(0, lambda: self.claim_scroll.ensureWidgetVisible(self.result, 0, 0))

    def _error(self, text: str) -> None:
        self._show_result(text, theme.ALERT)

    def decide(self, then: Any = None) -> bool:
        """Decide the entered claim on the selected fund, off the GUI thread (the bridge), and
        show every rule's result; ``then()`` runs once it is shown.  False (the reason shown)
        when the entry is refused before anything is read."""
        fund = self.fund_box.currentData()
        if fund is None:
            self._error("No Bad Beat Jackpot fund: create one first (docs/bbj.md).")
            return False
        try:
            entry = self._entry()
        except ValueError as exc:
            self._error(str(exc))
            return False
        engine, hit_at, rules = self.console.engine, self._hit_at(), self.rules
        self._asked += 1
        asked = self._asked
        self.decision = None

        def shown(d: Any) -> None:
            if asked != self._asked:  # the claim was decided again since: that one shows
                return
            self._show_decision(entry, d)
            if then is not None:
                then()

        def failed(exc: BaseException) -> None:
            if asked != self._asked:
                return
            if isinstance(exc, ValueError):
                self._error(str(exc))
                return
            log.warning("could not decide the claim: %s", exc)
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            self._error(f"The ledger could not be read ({reason}): nothing was decided.")

        default_bridge().query(
            lambda: bc.decide_entry(engine, fund, entry, hit_at, rules)[1], shown, failed)
        return True

    def _show_decision(self, entry: bc.ClaimEntry, d: Any) -> None:
        self.decision = d
        if d.qualifies:
            lines = [f"QUALIFIES: {_seats(d.winning_seats)} "
                     f"({d.winning_hand.category if d.winning_hand else ''}) beat "
                     f"{_seats(d.losing_seats)} "
                     f"({d.losing_hand.category if d.losing_hand else ''}). "
                     f"Award {format_cents(d.award_cents)} "
                     f"({fraction_text(d.payout_fraction)} of main)."]
            lines += _tie_lines(d)
            for s in d.shares:
                name = entry.names.get(s.seat, "")
                idc = "" if s.seat in entry.id_checked else "  NO ID CHECKED"
                lines.append(f"  seat {s.seat} {name} ({s.role}, {s.taxpayer}): gross "
                             f"{format_cents(s.gross_cents)}, tax {format_cents(s.tax_cents)}, "
                             f"net {format_cents(s.net_cents)}{idc}")
            if d.left_in_main_cents:
                lines.append(f"  left in main (rounding): {format_cents(d.left_in_main_cents)}")
            lines.append(f"After the hit: main {format_cents(d.main_after_cents)}, reserve "
                         f"{format_cents(d.reserve_after_cents)}")
            color = theme.OK
        else:
            lines = ["DOES NOT QUALIFY:"] + [f"  {t}" for t in bc.reasons_text(d)]
            color = theme.WARN
        lines.append("Every rule (RULES.md 6):")
        lines += [f"  {'✓' if ok else '✗'} {words}" for _code, ok, words in bc.rule_results(d)]
        self._show_result("\n".join(lines), color)

    def open_case(self) -> None:
        """Decide the claim (shown), then ask for the swipe that opens its case."""
        refusal = self._ceased_refusal("no new case can be opened on it")
        if refusal:
            self._error(refusal)
            return
        fund = self.fund_box.currentData()
        try:
            entry = self._entry()
        except ValueError as exc:
            self._error(str(exc))
            return
        hit_at = self._hit_at()
        self.decide(then=lambda: self._open_decided(fund, entry, hit_at))

    def _open_decided(self, fund: str, entry: bc.ClaimEntry, hit_at: datetime) -> None:
        verdict = "qualifies" if self.decision.qualifies else "does not qualify"
        what = f"Open a Bad Beat Jackpot case for table {entry.table} ({verdict})."
        done: list[int] = []

        def do(swipe: str) -> int:
            cid = bc.open_case(self.console.engine, fund, entry, hit_at, swipe,
                               settings=self.rules)
            done.append(cid)
            return cid

        if self.window_.authorize(bc.ROLE, what, "bbj_case", do) and done:
            self.result.setText(self.result.text() + f"\nCase #{done[0]} opened.")
            self.refresh_cases()

    # --- cases -------------------------------------------------------------------------------

    def _case_panel(self) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        self.case_table = QTableWidget(0, 5)
        self.case_table.setHorizontalHeaderLabels(["#", "Table", "Hit", "State",
                                                   "Next deadline"])
        self.case_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.case_table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.case_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.case_table.verticalHeader().setVisible(False)
        head = self.case_table.horizontalHeader()
        for col in range(5):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)  # the state wraps
        self.case_table.itemSelectionChanged.connect(self._selected_changed)
        self.case_table.setMinimumHeight(120)
        lay.addWidget(self.case_table, 1)
        self.case_info = QLabel("")
        self.case_info.setWordWrap(True)
        self.case_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.case_info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.case_info_scroll = self._scrolled(self.case_info)
        self.case_info_scroll.setMinimumHeight(90)
        lay.addWidget(self.case_info_scroll, 1)
        grid = QGridLayout()
        self.next_box = QComboBox()
        self.next_box.currentIndexChanged.connect(self._next_changed)
        grid.addWidget(QLabel("Next step"), 0, 0)
        grid.addWidget(self.next_box, 0, 1)
        self.share_seat = QComboBox()
        self.share_label = QLabel("Share of seat")
        grid.addWidget(self.share_label, 1, 0)
        grid.addWidget(self.share_seat, 1, 1)
        self.deck_sorted = QCheckBox("Deck sorted")
        self.cctv = QCheckBox("CCTV reviewed")
        grid.addWidget(self.deck_sorted, 2, 0)
        grid.addWidget(self.cctv, 2, 1)
        self.cease_box = QCheckBox("The jackpot ceases with this hit\n"
                                   "(TGD-1540: reserve added to the amount won)")
        self.cease_box.setToolTip("The fund's reserve is added to the main amount won and the "
                                  "fund takes nothing more afterwards. It can not be undone.")
        grid.addWidget(self.cease_box, 3, 0, 1, 2)
        self.step_detail = QLineEdit()  # the reason attachments are missed; a filing's note
        grid.addWidget(self.step_detail, 3, 0, 1, 2)
        self.step_btn = QPushButton("Record step (supervisor swipe)…")
        self.step_btn.setObjectName("primary")
        self.step_btn.clicked.connect(self.record_step)
        grid.addWidget(self.step_btn, 4, 0, 1, 2)
        # the card the chosen step needs ([authorization]: an executive for a large award or
        # share, another person than the verifier), read off the GUI thread
        self.step_card = QLabel("")
        self.step_card.setObjectName("stepCard")
        self.step_card.setWordWrap(True)
        grid.addWidget(self.step_card, 7, 0, 1, 2)
        self.share_seat.currentIndexChanged.connect(lambda _i: self._show_step_card())
        self.cease_box.toggled.connect(lambda _on: self._show_step_card())
        self.void_reason = QLineEdit()
        self.void_reason.setPlaceholderText("reason for the void")
        grid.addWidget(self.void_reason, 5, 0)
        self.void_btn = QPushButton("Void (supervisor swipe)…")
        self.void_btn.setObjectName("danger")
        self.void_btn.clicked.connect(self.void_case)
        grid.addWidget(self.void_btn, 5, 1)
        self.reprint_seat = QComboBox()
        self.reprint_seat.setToolTip("A paid share's slip, printed again with REPRINT on it")
        grid.addWidget(self.reprint_seat, 6, 0)
        self.reprint_btn = QPushButton("Reprint share slip")
        self.reprint_btn.clicked.connect(self.reprint_slip)
        grid.addWidget(self.reprint_btn, 6, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        lay.addLayout(grid)
        self.case_msg = QLabel("")
        self.case_msg.setWordWrap(True)
        lay.addWidget(self.case_msg)
        self._next_changed()
        return box

    def _deadline_text(self, d: bc.Deadline) -> str:
        return f"{d.what} by {d.due.astimezone(self.tz):%a %d %b %H:%M}"

    def _deadline_outcome(self, d: bc.Deadline) -> str:
        """How a case deadline ended: met (LATE when it was), or recorded missed."""
        if d.met_at is not None:
            late = bc.late_text(d.due, d.met_at)
            return f" (met, {late})" if late else " (met)"
        if d.missed_at is not None:
            return f" (MISSED: {d.missed_reason})"
        return ""

    @staticmethod
    def _state_text(c: bc.CaseView) -> str:
        text = bc.STATE_TEXT[c.state] + ("" if c.qualifies else " (does not qualify)")
        if c.state == "acknowledged" and c.is_open:
            text += " — OPEN: attachments outstanding"
        return text

    def refresh_cases(self) -> None:
        """Read the cases again, off the GUI thread (the bridge), and show them."""
        engine = self.console.engine
        default_bridge().query(lambda: bc.list_cases(engine), self._show_cases,
                               lambda exc: log.warning(  # the ledger is away: keep the list
                                   "could not read the Bad Beat Jackpot cases: %s", exc),
                               key="poker-room-cases")

    def _show_cases(self, cases: list[bc.CaseView]) -> None:
        self.cases = cases
        selected = self.selected_case()
        keep = selected.case_id if selected else None
        now = self.now()
        holidays = self._holidays()
        self.case_table.blockSignals(True)
        self.case_table.setRowCount(len(self.cases))
        for r, c in enumerate(self.cases):
            nd = bc.next_deadline(c, self.tz, holidays)
            due = self._deadline_text(nd) if nd else "—"
            cells = [str(c.case_id), c.table, f"{c.hit_at.astimezone(self.tz):%d %b %H:%M}",
                     self._state_text(c), due]
            late = nd is not None and nd.due < now
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if late:
                    item.setForeground(QColor(theme.ALERT))
                    item.setToolTip("OVERDUE")
                self.case_table.setItem(r, col, item)
        self.case_table.resizeRowsToContents()
        self.case_table.clearSelection()
        for r, c in enumerate(self.cases):
            if c.case_id == keep:
                self.case_table.selectRow(r)
        self.case_table.blockSignals(False)
        self._selected_changed()

    def selected_case(self) -> bc.CaseView | None:
        rows = self.case_table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.cases):
            return None
        return self.cases[rows[0].row()]

    def _selected_changed(self) -> None:
        c = self.selected_case()
        self.forms.set_cases(self.cases, c.case_id if c else None)
        self.next_box.clear()
        self.share_seat.clear()
        self.reprint_seat.clear()
        self.cease_box.setChecked(False)
        if c is None:
            self.case_info.setText("Select a case.")
            self._show_reprint(False)
            return
        for seat in c.paid_seats:
            name = c.claim["names"].get(str(seat), "")
            self.reprint_seat.addItem(f"seat {seat} {name}".strip(), seat)
        self._show_reprint(bool(c.paid_seats))
        for st in c.next_states(self.now()):
            if st != "voided":
                self.next_box.addItem(NEXT_TEXT[st], st)
        for seat in c.unpaid_seats:
            name = c.claim["names"].get(str(seat), "")
            self.share_seat.addItem(f"seat {seat} {name}".strip(), seat)
        hist = "".join(f"\n  {bc.STATE_TEXT[e.state]}{f' seat {e.seat}' if e.seat else ''} by "
                       f"{e.employee_number} {e.at.astimezone(self.tz):%d %b %H:%M}"
                       f"{f' ({e.detail})' if e.detail else ''}" for e in c.events)
        dls = "; ".join(self._deadline_text(d) + self._deadline_outcome(d)
                        for d in bc.deadlines(c, self.tz, self._holidays()))
        status = "open" if c.is_open else "closed"
        if c.attachments_outstanding and c.state == "acknowledged":
            status += " (attachments outstanding)"
        text = (f"Case #{c.case_id} ({status}):{hist}"
                + (f"\nDeadlines: {dls}" if dls else "") + _shares_text(c.decision))
        self.case_info.setText(text)
        engine, case_id = self.console.engine, c.case_id

        def show_prints(prints: list[Any]) -> None:
            now = self.selected_case()
            if now is None or now.case_id != case_id or not prints:
                return
            slips = "; ".join(f"seat {p.seat} {'reprint ' if p.reprint else ''}"
                              f"{p.at.astimezone(self.tz):%d %b %H:%M} "
                              f"{'printed' if p.ok else 'NOT PRINTED: ' + p.error}"
                              for p in prints)
            self.case_info.setText(f"{text}\nShare slips: {slips}")

        default_bridge().query(lambda: bc.slip_prints(engine, case_id), show_prints,
                               lambda exc: log.warning(  # the ledger is away: the rest shows
                                   "could not read the share slip prints: %s", exc),
                               key="poker-room-slip-prints")

    def _next_changed(self) -> None:
        """Show only what the chosen next step needs."""
        state = self.next_box.currentData()
        self.deck_sorted.setVisible(state == "verified")
        self.cctv.setVisible(state == "verified")
        self.share_label.setVisible(state == "share_paid")
        self.share_seat.setVisible(state == "share_paid")
        self.cease_box.setVisible(state == "approved")
        if state != "approved":
            self.cease_box.setChecked(False)
        self.step_detail.setVisible(state in bc.ATTACHMENT_STATES)
        self.step_detail.setPlaceholderText(
            "why the attachments are missing (kept with the case)"
            if state == "attachments_missed" else "note (optional), e.g. what was filed")
        self._cease_follows_notice()
        self._show_step_card()

    def _step_args(self) -> tuple[bc.CaseView, str, dict[str, Any]] | None:
        c = self.selected_case()
        state = self.next_box.currentData()
        if c is None or state is None:
            return None
        kw: dict[str, Any] = {}
        if state == "share_paid":
            kw["seat"] = self.share_seat.currentData()
        if state == "approved" and self.cease_box.isChecked():
            kw["cease"] = True
        return c, state, kw

    def _show_step_card(self) -> None:
        """Say which card the chosen step needs, before anyone swipes."""
        args = self._step_args()
        if args is None:
            self.step_card.setText("")
            self.step_btn.setText("Record step (supervisor swipe)…")
            return
        c, state, kw = args
        engine, rules = self.console.engine, self.rules

        def shown(need: bc.StepAuthority) -> None:
            if self._step_args() != args:  # the choice changed since
                return
            self._show_need(need)

        default_bridge().query(
            lambda: bc.step_authority(engine, c.case_id, state, settings=rules, **kw), shown,
            lambda exc: self.step_card.setText(""), key="poker-room-step-card")

    def _card_words(self, role: str) -> str:
        pin = " + PIN" if self.window_.pin_needed(role) else ""
        return f"{role} swipe{pin}"

    def _show_need(self, need: bc.StepAuthority) -> None:
        self.step_btn.setText(f"Record step ({self._card_words(need.role)})…")
        text = f"Card needed: {need.role.upper()}"
        if self.window_.pin_needed(need.role):
            text += " + PIN"
        if need.prompt:
            text += f". {need.prompt}"
        self.step_card.setText(text)
        warn = need.role != "supervisor" or need.separate
        self.step_card.setStyleSheet(f"color: {theme.WARN if warn else theme.OK};"
                                     + (" font-weight: bold;" if warn else ""))

    def _once_hit_notice(self, fund_id: str | None = None) -> bf.Notice | None:
        """The cease-once-hit notice that holds on the chosen fund (or ``fund_id``), if any."""
        st = self.status
        fund = self.fund_box.currentData()
        if st is None or st.notice is None or st.notice.kind != "cease_once_hit" or (
                fund_id is not None and fund_id != fund):
            return None
        return st.notice

    def _cease_follows_notice(self) -> None:
        """With a cease-once-hit notice the approval MUST cease the fund: ticked, fixed."""
        c = self.selected_case() if hasattr(self, "case_table") else None
        notice = self._once_hit_notice(c.fund_id if c is not None else None)
        if notice is not None:
            self.cease_box.setText(f"The jackpot ceases with this hit: notice of "
                                   f"{notice.notice_on}\n(TGD-1540: reserve added to the "
                                   "amount won)")
            self.cease_box.setChecked(self.cease_box.isVisible())
            self.cease_box.setEnabled(False)
        else:
            self.cease_box.setText("The jackpot ceases with this hit\n"
                                   "(TGD-1540: reserve added to the amount won)")
            self.cease_box.setEnabled(True)

    def _swiped_step(self, c: bc.CaseView, state: str, what: str, **kw: Any) -> None:
        """Work out the card the step needs (off the GUI thread), then ask for it."""
        engine, rules = self.console.engine, self.rules
        seat_kw = {k: v for k, v in kw.items() if k in ("seat", "cease")}

        def ask(need: bc.StepAuthority) -> None:
            self._show_need(need)
            said, args = what, dict(kw)
            if state == "approved" and need.ceases and not kw.get("cease"):
                # a cease-once-hit notice of the case's fund (maybe not the fund shown above)
                name = self._fund_name(c.fund_id)
                if not self.ask("Cease the jackpot?",
                                f"A notice says the jackpot fund {name} ceases once hit: "
                                f"approving case #{c.case_id} CEASES it (TGD-1540). The "
                                "reserve is added to the main amount won, and nothing more "
                                "can be recorded on the fund.\n\nThis can not be undone."):
                    self._case_message("Not approved: the cessation was not confirmed.")
                    return
                args["cease"] = True
                said = (f"Case #{c.case_id}: {NEXT_TEXT[state]}, and the jackpot fund {name} "
                        "CEASES with this hit (TGD-1540; can not be undone).")
            self._authorized_step(c, state, said + (f"\n{need.prompt}" if need.prompt else ""),
                                  need.role, **args)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ValueError):
                self._case_message(str(exc))
                return
            log.warning("could not read the case: %s", exc)
            self._case_message("The ledger could not be read: nothing was recorded.")

        default_bridge().query(
            lambda: bc.step_authority(engine, c.case_id, state, settings=rules, **seat_kw),
            ask, failed)

    def _authorized_step(self, c: bc.CaseView, state: str, what: str, role: str,
                         **kw: Any) -> None:
        done: list[bc.CaseView] = []

        def do(swipe: Any) -> bc.CaseView:
            view = bc.advance(self.console.engine, c.case_id, state, swipe,
                              settings=self.rules, clock=self.now, **kw)
            done.append(view)
            return view

        if self.window_.authorize(role, what, "bbj_case", do) and done:
            ceases = kw.get("cease") or (state == "approved" and "the fund ceases" in
                                         done[0].events[-1].detail)
            ceased = " The fund has ceased (TGD-1540)." if ceases else ""
            shown = state if state in bc.ATTACHMENT_STATES else done[0].state
            late = ""
            if state == "attachments_filed" and done[0].attachments_needed:
                late = bc.late_text(done[0].attachments_due, done[0].events[-1].at)
            message = (f"Case #{c.case_id}: {bc.STATE_TEXT[shown]}"
                       f"{', ' + late if late else ''}.{ceased}")
            self._case_message(message, True)
            if state == "share_paid":
                self.print_share_slip(c.case_id, int(kw["seat"]), said=message + " ")
            if state in ("approved", "voided"):  # the award left (or came back to) the fund
                self.load_funds()
            if state in bc.ATTACHMENT_STATES:
                self.step_detail.clear()
            self.refresh_cases()
            if state == "share_paid":  # the tax withheld: the BIR remittance
                self.refresh_deadlines()

    def _show_reprint(self, on: bool) -> None:
        self.reprint_seat.setVisible(on)
        self.reprint_btn.setVisible(on)

    def print_share_slip(self, case_id: int, seat: int, *, reprint: bool = False,
                         said: str = "") -> None:
        """Read a paid share's slip off the GUI thread (the bridge) and send it to the receipt
        printer (the console's printer thread records whether it printed); the case message
        says so after ``said``."""
        from core.tablegames.slip_record import SlipError
        from printing.bbj_slip import render_share_slip, share_slip

        casino = self.console.config.casino
        engine = self.console.engine
        what = f"{'Reprint of the share' if reprint else 'Share'} slip case #{case_id} seat {seat}"

        def read() -> bytes:
            return render_share_slip(share_slip(engine, case_id, seat, casino=casino.name,
                                                timezone=casino.timezone, reprint=reprint))

        def keep(ok: bool, printer: str, problem: str) -> None:  # on the printer thread
            bc.record_slip_print(engine, case_id, seat, reprint=reprint, printer=printer, ok=ok,
                                 error=problem)

        def send(data: bytes) -> None:
            self.console.print_bytes(data, f"bbj-{case_id}-{seat}", what, keep)
            self.last_slip = data
            self._case_message(f"{said}{what} sent to the printer.", True)

        def refused(exc: BaseException) -> None:
            if isinstance(exc, SlipError):
                self._case_message(f"{said}The share slip can not be printed: {exc}")
                return
            log.warning("could not read the share slip: %s", exc)
            self._case_message(f"{said}The share slip can not be printed: the ledger could "
                               "not be read; reprint it from the case.")

        default_bridge().query(read, send, refused)

    def reprint_slip(self) -> None:
        c = self.selected_case()
        seat = self.reprint_seat.currentData()
        if c is None or seat is None:
            self._case_message("Select a case with a paid share.")
            return
        self.print_share_slip(c.case_id, int(seat), reprint=True)

    def _case_message(self, text: str, ok: bool = False) -> None:
        _show(self.case_msg, text, ok)

    def record_step(self) -> None:
        c = self.selected_case()
        state = self.next_box.currentData()
        if c is None or state is None:
            self._case_message("Select a case with a next step.")
            return
        kw: dict[str, Any] = {}
        what = f"Case #{c.case_id}: {NEXT_TEXT[state]}."
        if state == "verified":
            kw = {"deck_sorted": self.deck_sorted.isChecked(),
                  "cctv_reviewed": self.cctv.isChecked()}
            if not all(kw.values()):
                self._case_message("Verify only once the deck is sorted and the CCTV "
                                   "reviewed: tick both.")
                return
        if state in bc.ATTACHMENT_STATES:
            kw = {"detail": self.step_detail.text().strip()}
            if state == "attachments_missed":
                if not kw["detail"]:
                    self._case_message("Type why the attachments are missing: the reason is "
                                       "kept with the case.")
                    return
                what = (f"Case #{c.case_id}: the attachments' 7-day deadline is MISSED: "
                        f"{kw['detail']}.")
        if state == "share_paid":
            kw = {"seat": self.share_seat.currentData()}
            what = f"Case #{c.case_id}: {NEXT_TEXT[state]} {self.share_seat.currentText()}."
        notice = self._once_hit_notice(c.fund_id) if state == "approved" else None
        if state == "approved" and (self.cease_box.isChecked() or notice is not None):
            name = self._fund_name(c.fund_id)
            why = (f"\n\nThe notice of {notice.notice_on} says the fund ceases once hit: "
                   "this approval can not be made without ceasing it." if notice else "")
            if not self.ask("Cease the jackpot?",
                            f"Approve case #{c.case_id} and CEASE the jackpot fund {name} "
                            "with this hit (TGD-1540)?\n\nThe reserve is added to the main "
                            "amount won, and nothing more can be recorded on the fund: no "
                            "count, no posting, no new case." + why
                            + "\n\nThis can not be undone."):
                self._case_message("Not approved: the cessation was not confirmed.")
                return
            kw = {"cease": True}
            what = (f"Case #{c.case_id}: {NEXT_TEXT[state]}, and the jackpot fund {name} "
                    "CEASES with this hit (TGD-1540; can not be undone).")
        self._swiped_step(c, state, what, **kw)

    def void_case(self) -> None:
        c = self.selected_case()
        reason = self.void_reason.text().strip()
        if c is None or not reason:
            self._case_message("Select a case and type the reason for the void.")
            return
        self._swiped_step(c, "voided", f"VOID case #{c.case_id}: {reason}", detail=reason)

    # --- the room's deadlines (core/pokerroom/calendar.py) ----------------------------------

    def _deadline_panel(self) -> QWidget:
        page = QWidget()
        lay = QVBoxLayout(page)
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
        info = self._scrolled(self.deadline_info)
        info.setMinimumHeight(60)
        lay.addWidget(info, 1)
        grid = QGridLayout()
        now = datetime.now(self.tz).replace(tzinfo=None, second=0, microsecond=0)
        self.filed_at = QDateTimeEdit(_qdatetime(now))  # casino local time
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
        return page

    def _page_changed(self, index: int) -> None:
        if self.pages.tabText(index).startswith("Deadlines"):
            self.refresh_deadlines()

    def refresh_deadlines(self) -> None:
        """Read the room's deadlines again, off the GUI thread (the bridge), and show them."""
        engine, now, tz = self.console.engine, self.now(), self.tz
        holidays = self._holidays()
        settings = self.console.config.poker_room.calendar
        default_bridge().query(
            lambda: cal.room_deadlines(engine, now, tz, holidays, settings),
            self._show_deadlines, lambda exc: log.warning(  # the ledger is away: keep the list
                "could not read the poker room's deadlines: %s", exc),
            key="poker-room-deadlines")

    def _show_deadlines(self, found: list[cal.RoomDeadline]) -> None:
        """Not filed first (the oldest due on top), then the filed ones (the latest first);
        LATE in red."""
        keep = self.selected_deadline()
        keep_key = (keep.kind, keep.fund_id, keep.period_start) if keep else None
        pending = [d for d in found if d.filing is None]
        filed = sorted((d for d in found if d.filing is not None), key=lambda d: d.due,
                       reverse=True)
        self.room_deadlines = pending + filed
        t = self.deadline_table
        t.blockSignals(True)
        t.setRowCount(len(self.room_deadlines))
        for r, d in enumerate(self.room_deadlines):
            fund = f" · fund {d.fund_id}" if d.fund_id else ""
            by = f"{d.reference or '—'}\n{d.who}" if d.filing else ""
            cells = [f"{d.what} {d.period}{fund}", f"{d.due_on:%a %d %b %Y}",
                     d.status(self.tz).replace(" (LATE", "\n(LATE"), by]
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
        late = sum(1 for d in found if d.overdue)
        i = next(i for i in range(self.pages.count())
                 if self.pages.tabText(i).startswith("Deadlines"))
        self.pages.setTabText(i, f"Deadlines ({late} LATE)" if late else "Deadlines")
        self._deadline_selected()

    def selected_deadline(self) -> cal.RoomDeadline | None:
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
        fund = f" (fund {d.fund_id})" if d.fund_id else ""
        lines = [f"{cal.KIND_TEXT[d.kind]}{fund}, {d.period}: due {d.due_on:%a %d %b %Y} "
                 f"(end of day). {d.basis}."]
        for f in d.filings:
            fix = f"correction of filing {f.corrects_id}, " if f.corrects_id else ""
            late = (f", LATE by {cal.days_text(cal.late_days(f.due_at, f.filed_at))}"
                    if f.late else "")
            note = f" — {f.detail}" if f.detail else ""
            lines.append(f"Filing {f.filing_id} ({fix}filed "
                         f"{f.filed_at.astimezone(self.tz):%Y-%m-%d %H:%M}{late}): reference "
                         f"{f.reference or '—'}, recorded by {f.who} "
                         f"{f.created_at.astimezone(self.tz):%d %b %H:%M}{note}")
        self.deadline_info.setText("\n".join(lines))

    def _filing_message(self, text: str, ok: bool = False) -> None:
        _show(self.filing_msg, text, ok)

    def record_filing(self) -> None:
        """Record the selected deadline's filing after a supervisor's swipe (a refusal shows
        in the prompt; a second filing of the period is refused unless it is a correction)."""
        d = self.selected_deadline()
        if d is None:
            self._filing_message("Select a deadline first.")
            return
        filed_at = self._local(self.filed_at)
        reference, detail = self.filing_ref.text().strip(), self.filing_detail.text().strip()
        corrects = (d.filing.filing_id if d.filing is not None
                    and self.filing_correct.isChecked() else None)
        done: list[cal.Filing] = []

        def do(swipe: str) -> cal.Filing:
            f = cal.record_filing(self.console.engine, swipe, kind=d.kind,
                                  period_start=d.period_start, fund_id=d.fund_id,
                                  filed_at=filed_at, reference=reference, detail=detail,
                                  corrects=corrects, tz=self.tz, holidays=self._holidays(),
                                  settings=self.console.config.poker_room.calendar,
                                  clock=self.now)
            done.append(f)
            return f

        kind = "correction of the filing" if corrects else "filing"
        what = (f"Record the {kind} of {d.what} {d.period}"
                f"{' fund ' + d.fund_id if d.fund_id else ''}: filed "
                f"{filed_at.astimezone(self.tz):%Y-%m-%d %H:%M}, reference {reference or '—'}.")
        if self.window_.authorize(cal.ROLE, what, cal.SWIPE_ACTION, do) and done:
            f = done[0]
            late = (f", LATE by {cal.days_text(cal.late_days(f.due_at, f.filed_at))}"
                    if f.late else ", on time")
            self._filing_message(f"{d.what} {d.period}: filing {f.filing_id} recorded{late}.",
                                 True)
            for edit in (self.filing_ref, self.filing_detail):
                edit.clear()
            self.refresh_deadlines()

    # --- daily count: drop boxes and tournament fees ----------------------------------------

    def _count_panel(self) -> QWidget:
        page = QWidget()
        lay = QVBoxLayout(page)
        grid = QFormLayout()
        now = datetime.now(self.tz).replace(tzinfo=None, second=0, microsecond=0)
        self.count_date = QDateEdit(QDate(now.year, now.month, now.day))  # business date
        self.count_date.setDisplayFormat("yyyy-MM-dd")
        self.count_date.setCalendarPopup(True)
        self.count_table = QLineEdit()
        self.count_table.setPlaceholderText("e.g. P1")
        self.count_box = QLineEdit()
        self.count_box.setPlaceholderText("e.g. J-1")
        self.count_dealer = QLineEdit()
        self.count_opened = QDateTimeEdit(_qdatetime(now.replace(hour=10, minute=0)))
        self.count_closed = QDateTimeEdit(_qdatetime(now))
        for edit in (self.count_opened, self.count_closed):
            edit.setDisplayFormat("yyyy-MM-dd HH:mm")  # casino local time
        self.count_rake_box = QLineEdit()
        self.count_rake_box.setPlaceholderText("e.g. R-1")
        self.count_rake = QLineEdit()
        self.count_rake.setPlaceholderText("0.00")
        cells: tuple[tuple[str, QWidget], ...] = (
            ("Date", self.count_date), ("Table", self.count_table),
            ("Opened", self.count_opened), ("Closed", self.count_closed),
            ("Dealer", self.count_dealer), ("JP drop box", self.count_box),
            ("Rake box", self.count_rake_box), ("House rake", self.count_rake))
        for label, w in cells:
            grid.addRow(label, w)
        lay.addLayout(grid)
        lay.addWidget(QLabel("Jackpot chips: pieces of each denomination"))
        chips = QGridLayout()
        self.pieces: dict[int, QSpinBox] = {}
        for i, denom in enumerate(self.fund_settings.denominations):
            sp = QSpinBox()
            sp.setRange(0, 1_000_000)
            sp.valueChanged.connect(self._count_total_changed)
            head = QLabel(f"{denom} ×")
            head.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            chips.addWidget(head, i // 3, (i % 3) * 2)
            chips.addWidget(sp, i // 3, (i % 3) * 2 + 1)
            chips.setColumnStretch((i % 3) * 2 + 1, 1)
            self.pieces[denom] = sp
        lay.addLayout(chips)
        self.count_total = QLabel("Box total 0.00")
        self.count_total.setStyleSheet(f"color: {theme.ACCENT}; font-weight: bold;")
        lay.addWidget(self.count_total)
        buttons = QHBoxLayout()
        self.record_count_btn = QPushButton("Record count (swipe)…")
        self.record_count_btn.setToolTip("Record this table's drop boxes: a supervisor's swipe")
        self.record_count_btn.clicked.connect(self.record_count)
        self.post_day_btn = QPushButton("Post the day (swipe)…")
        self.post_day_btn.setToolTip("Post the day's jackpot rake to the fund: a supervisor's "
                                     "swipe")
        self.post_day_btn.clicked.connect(self.post_day)
        buttons.addWidget(self.record_count_btn)
        buttons.addWidget(self.post_day_btn)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.count_msg = QLabel("")
        self.count_msg.setWordWrap(True)
        self.count_msg.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.count_msg)

        fee_box = QGroupBox("Tournament fee (the date above)")
        fee = QGridLayout(fee_box)
        self.fee_tournament = QLineEdit()
        self.fee_tournament.setPlaceholderText("e.g. Friday Deepstack")
        self.fee_amount = QLineEdit()
        self.fee_amount.setPlaceholderText("0.00 (negative: a correction)")
        self.fee_reason = QLineEdit()
        self.fee_reason.setPlaceholderText("reason, for a negative correction")
        fee.addWidget(QLabel("Tournament"), 0, 0)
        fee.addWidget(self.fee_tournament, 0, 1)
        fee.addWidget(QLabel("Fee"), 1, 0)
        fee.addWidget(self.fee_amount, 1, 1)
        fee.addWidget(QLabel("Reason"), 2, 0)
        fee.addWidget(self.fee_reason, 2, 1)
        self.fee_btn = QPushButton("Record fee (swipe)…")
        self.fee_btn.setToolTip("Record the tournament's fees for the day: a supervisor's swipe")
        self.fee_btn.clicked.connect(self.record_fee)
        fee.addWidget(self.fee_btn, 3, 0, 1, 2, Qt.AlignmentFlag.AlignLeft)
        self.fee_msg = QLabel("")
        self.fee_msg.setWordWrap(True)
        fee.addWidget(self.fee_msg, 4, 0, 1, 2)
        lay.addWidget(fee_box)
        lay.addStretch(1)
        return page

    def _count_total_changed(self) -> None:
        total = sum(d * sp.value() for d, sp in self.pieces.items()) * 100
        self.count_total.setText(f"Box total {format_cents(total)}")

    def _count_message(self, text: str, ok: bool) -> None:
        _show(self.count_msg, text, ok)

    def _fee_message(self, text: str, ok: bool) -> None:
        _show(self.fee_msg, text, ok)

    def _local(self, edit: QDateTimeEdit) -> datetime:
        local = cast(datetime, edit.dateTime().toPython())
        return local.replace(tzinfo=self.tz).astimezone(UTC)

    def _business_date(self) -> date:
        return cast(date, self.count_date.date().toPython())

    def record_count(self) -> None:
        """Record one table's drop boxes after a supervisor's swipe (refusals show in the
        prompt)."""
        fund = self.fund_box.currentData()
        if fund is None:
            self._count_message("No Bad Beat Jackpot fund: create one first (docs/bbj.md).",
                                False)
            return
        refusal = self._ceased_refusal("nothing more can be counted on it")
        if refusal:
            self._count_message(refusal, False)
            return
        day, table = self._business_date(), self.count_table.text().strip()
        box = self.count_box.text().strip()
        rake_box = self.count_rake_box.text().strip()
        try:
            rake = parse_cents(self.count_rake.text().strip() or "0", "house rake")
        except ValueError as exc:
            self._count_message(str(exc), False)
            return
        pieces = {d: sp.value() for d, sp in self.pieces.items()}
        opened, closed = self._local(self.count_opened), self._local(self.count_closed)
        dealer = self.count_dealer.text()
        done: list[int] = []

        def do(swipe: str) -> int:
            cid = bc.record_count(self.console.engine, fund, swipe, business_date=day,
                                  table=table, drop_box=box, opened_at=opened,
                                  closed_at=closed, dealer=dealer, pieces=pieces,
                                  rake_box=rake_box, rake_cents=rake,
                                  settings=self.fund_settings)
            done.append(cid)
            return cid

        house = f"; house rake {format_cents(rake)} (box {rake_box or '?'})" if rake else ""
        what = (f"Record the jackpot drop box {box or '?'} of table {table or '?'} for {day}: "
                f"{self.count_total.text().lower()}{house}.")
        if self.window_.authorize(bc.ROLE, what, "bbj_count", do) and done:
            house = f", house rake {format_cents(rake)} in box {rake_box}" if rake else ""
            self._count_message(f"{day}: table {table} drop box {box} counted "
                                f"({self.count_total.text().lower()}{house}).", True)
            for sp in self.pieces.values():
                sp.setValue(0)
            self.count_box.clear()
            self.count_rake_box.clear()
            self.count_rake.clear()

    def post_day(self) -> None:
        """Post the day's counts after a supervisor's swipe and show the distribution."""
        fund = self.fund_box.currentData()
        if fund is None:
            self._count_message("No Bad Beat Jackpot fund: create one first (docs/bbj.md).",
                                False)
            return
        refusal = self._ceased_refusal("nothing more can be posted on it")
        if refusal:
            self._count_message(refusal, False)
            return
        day = self._business_date()
        done: list[bf.Posting] = []

        def do(swipe: str) -> bf.Posting:
            p = bc.post_day(self.console.engine, fund, day, swipe,
                            settings=self.fund_settings)
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

    def record_fee(self) -> None:
        """Record a poker tournament's fees for the count's date after a supervisor's swipe
        (a negative fee is a correction and needs its reason; refusals show in the prompt)."""
        day = self._business_date()
        name = self.fee_tournament.text().strip()
        reason = self.fee_reason.text().strip()
        try:
            fee = parse_cents(self.fee_amount.text().strip(), "tournament fee",
                              allow_negative=True)
        except ValueError as exc:
            self._fee_message(str(exc), False)
            return
        done: list[int] = []

        def do(swipe: str) -> int:
            rid = bc.record_tournament_fee(self.console.engine, swipe, business_date=day,
                                           tournament=name, fee_cents=fee, reason=reason)
            done.append(rid)
            return rid

        kind = "correction of the fees" if fee < 0 else "fees"
        why = f" ({reason})" if reason else ""
        what = (f"Record the {kind} of tournament {name or '?'} for {day}: "
                f"{format_cents(fee)}{why}.")
        if self.window_.authorize(bc.ROLE, what, "bbj_count", do) and done:
            self._fee_message(f"{day}: tournament {name} {kind} {format_cents(fee)} "
                              "recorded.", True)
            for edit in (self.fee_tournament, self.fee_amount, self.fee_reason):
                edit.clear()

    # --- cessation: notices and the forfeiture on closure -----------------------------------

    def _closure_panel(self) -> QWidget:
        page = QWidget()
        lay = QVBoxLayout(page)
        now = datetime.now(self.tz).date()

        def day_edit() -> QDateEdit:
            edit = QDateEdit(QDate(now.year, now.month, now.day))
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setCalendarPopup(True)
            return edit

        self.notice_status = QLabel("")
        self.notice_status.setWordWrap(True)
        self.notice_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.notice_status)

        box = QGroupBox("Notice of cessation (TGD-1540 part 1)")
        form = QFormLayout(box)
        self.notice_kind = QComboBox()
        self.notice_kind.addItem("Ceases once hit", "cease_once_hit")
        self.notice_kind.addItem("Transfer", "transfer")
        self.notice_kind.addItem("Closure of the room", "closure")
        self.notice_kind.setToolTip("Ceases once hit: the fund's next approved award ceases "
                                    "it, the reserve added to the main amount won (TGD-1540)")
        self.notice_kind.currentIndexChanged.connect(self._notice_kind_changed)
        form.addRow("Notice of", self.notice_kind)
        self.notice_date = day_edit()
        form.addRow("Part 1 filed on", self.notice_date)
        eff = QHBoxLayout()
        self.notice_has_effective = QCheckBox("planned")
        self.notice_has_effective.setToolTip("A cessation once hit has no date until the hit; "
                                             "a transfer needs its effective date")
        self.notice_effective = day_edit()
        eff.addWidget(self.notice_has_effective)
        eff.addWidget(self.notice_effective, 1)
        form.addRow("Effective on", eff)
        self.notice_to = QComboBox()
        self.notice_to.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.notice_to.setMinimumContentsLength(12)
        form.addRow("Transfer to", self.notice_to)
        self.notice_reason = QLineEdit()
        self.notice_reason.setPlaceholderText("why the jackpot ceases")
        form.addRow("Reason", self.notice_reason)
        self.notice_btn = QPushButton("Record notice (executive swipe)…")
        self.notice_btn.clicked.connect(self.give_notice)
        form.addRow(self.notice_btn)
        told = QHBoxLayout()
        self.told_date = day_edit()
        self.told_btn = QPushButton("Players told (swipe)…")
        self.told_btn.setToolTip("The day the players were told of the notice: a "
                                 "supervisor's swipe")
        self.told_btn.clicked.connect(self.record_players_told)
        told.addWidget(self.told_date, 1)
        told.addWidget(self.told_btn)
        form.addRow("Players told on", told)
        withdraw = QHBoxLayout()
        self.withdraw_reason = QLineEdit()
        self.withdraw_reason.setPlaceholderText("reason for withdrawing the notice")
        self.withdraw_btn = QPushButton("Withdraw (executive)…")
        self.withdraw_btn.setToolTip("Withdraw the notice that holds (it stays in the ledger "
                                     "with its withdrawal): an executive's swipe")
        self.withdraw_btn.clicked.connect(self.withdraw_notice)
        withdraw.addWidget(self.withdraw_reason, 1)
        withdraw.addWidget(self.withdraw_btn)
        form.addRow(withdraw)
        lay.addWidget(box)

        close = QGroupBox("Permanent closure: the fund forfeited in favour of PAGCOR")
        cform = QFormLayout(close)
        self.closed_on = day_edit()
        cform.addRow("Room closed on", self.closed_on)
        self.closure_reason = QLineEdit()
        self.closure_reason.setPlaceholderText("e.g. poker room closed for good (lease ended)")
        cform.addRow("Reason", self.closure_reason)
        self.forfeit_btn = QPushButton("Forfeit to PAGCOR (executive swipe)…")
        self.forfeit_btn.setToolTip("The whole fund (main with its seed, and reserve) is "
                                    "forfeited in favour of PAGCOR: an executive's swipe")
        self.forfeit_btn.setObjectName("danger")
        self.forfeit_btn.clicked.connect(self.forfeit)
        cform.addRow(self.forfeit_btn)
        hint = QLabel("Every counted day must be posted and every case paid or voided first. "
                      "Its report: Forms, \"Forfeiture on closure\".")
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        cform.addRow(hint)
        lay.addWidget(close)
        self.closure_msg = QLabel("")
        self.closure_msg.setWordWrap(True)
        self.closure_msg.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.closure_msg)
        lay.addStretch(1)
        self._notice_kind_changed()
        return page

    def _notice_kind_changed(self) -> None:
        transfer = self.notice_kind.currentData() == "transfer"
        self.notice_to.setEnabled(transfer)
        if transfer:
            self.notice_has_effective.setChecked(True)

    def _closure_message(self, text: str, ok: bool) -> None:
        _show(self.closure_msg, text, ok)

    def _show_closure(self) -> None:
        """The Cessation page follows the chosen fund: the notice that holds, how it ceased."""
        fund = self.fund_box.currentData()
        keep = self.notice_to.currentData()
        self.notice_to.clear()
        for f in self.funds:
            if f.fund_id != fund and not f.ceased:
                self.notice_to.addItem(f.name, f.fund_id)
        i = self.notice_to.findData(keep)
        if i >= 0:
            self.notice_to.setCurrentIndex(i)
        st = self.status
        ceased = st is not None and st.ceased_kind is not None
        notice = st.notice if st is not None else None
        for w in (self.notice_btn, self.forfeit_btn):
            w.setEnabled(fund is not None and not ceased)
        for w in (self.told_btn, self.withdraw_btn):
            w.setEnabled(notice is not None)
        if st is None:
            self.notice_status.setText("")
            return
        text, _color = self.status_text(st)
        if ceased:
            self.notice_status.setText(f"This fund has ceased: {text.lower()}. Nothing more "
                                       "can be recorded on it.")
        elif notice is not None:
            told = (f"players told on {notice.players_told_on}" if notice.players_told_on
                    else "players not told yet")
            dl = bf.notice_deadlines(notice, self._holidays())
            due = "; ".join(f"{d.what} due {d.due}{' (LATE)' if d.late else ''}"
                            for d in dl if d.what != "part2")
            self.notice_status.setText(
                f"Holds: {notice.words} ({notice.reason}); recorded by {notice.recorded_by}; "
                f"{told}." + (f" TGD-1540: {due}." if due else "")
                + (" The next approved award of this fund ceases it, with the reserve added "
                   "to the main amount won." if notice.kind == "cease_once_hit" else ""))
        else:
            self.notice_status.setText("No notice of cessation holds on this fund.")

    def give_notice(self) -> None:
        fund = self.fund_box.currentData()
        if fund is None:
            self._closure_message("No Bad Beat Jackpot fund: create one first.", False)
            return
        kind = self.notice_kind.currentData()
        notice_on = cast(date, self.notice_date.date().toPython())
        effective = (cast(date, self.notice_effective.date().toPython())
                     if self.notice_has_effective.isChecked() else None)
        to_fund = self.notice_to.currentData() if kind == "transfer" else None
        reason = self.notice_reason.text().strip()
        name = self._fund_name(fund)
        words = {"cease_once_hit": "ceases once it is next hit (its next approved award "
                                   "ceases it, the reserve added to the amount won)",
                 "transfer": f"is transferred to {self._fund_name(to_fund or '?')}",
                 "closure": "ends with the permanent closure of the poker room"}[kind]
        when = f" on {effective}" if effective else ""
        if not self.ask("Record a notice of cessation?",
                        f"Record that the jackpot fund {name} {words}{when} (TGD-1540 part 1 "
                        f"filed on {notice_on})?\n\nA notice is never changed: it can only be "
                        "withdrawn by a further record."):
            self._closure_message("No notice recorded: not confirmed.", False)
            return
        done: list[int] = []

        def do(swipe: Any) -> int:
            nid = bc.give_notice(self.console.engine, fund, swipe, kind, notice_on=notice_on,
                                 effective_on=effective, to_fund_id=to_fund, reason=reason)
            done.append(nid)
            return nid

        what = f"Notice: the jackpot fund {name} {words}{when}."
        if self.window_.authorize(bc.EXECUTIVE, what, bc.CLOSURE_ACTION, do) and done:
            self._closure_message(f"Notice {done[0]} recorded.", True)
            self.notice_reason.clear()
            self.refresh_funds()

    def _held(self) -> bf.Notice | None:
        st = self.status
        if st is None or st.notice is None:
            self._closure_message("No notice holds on this fund.", False)
            return None
        return st.notice

    def record_players_told(self) -> None:
        notice = self._held()
        if notice is None:
            return
        fund, told = notice.fund_id, cast(date, self.told_date.date().toPython())
        done: list[int] = []

        def do(swipe: Any) -> int:
            rid = bc.record_players_told(self.console.engine, fund, notice.notice_id, swipe,
                                         told_on=told)
            done.append(rid)
            return rid

        if self.window_.authorize(bc.ROLE, f"The players were told of notice "
                                  f"{notice.notice_id} on {told}.", bc.CLOSURE_ACTION, do) \
                and done:
            self._closure_message(f"Notice {notice.notice_id}: players told on {told}.", True)
            self.refresh_funds()

    def withdraw_notice(self) -> None:
        notice = self._held()
        if notice is None:
            return
        reason = self.withdraw_reason.text().strip()
        if not reason:
            self._closure_message("Type the reason for withdrawing the notice.", False)
            return
        if not self.ask("Withdraw the notice?", f"Withdraw {notice.words}?\n\nThe notice "
                        "stays in the ledger with its withdrawal."):
            self._closure_message("Not withdrawn: not confirmed.", False)
            return
        done: list[int] = []

        def do(swipe: Any) -> int:
            rid = bc.withdraw_notice(self.console.engine, notice.fund_id, notice.notice_id,
                                     swipe, reason=reason)
            done.append(rid)
            return rid

        if self.window_.authorize(bc.EXECUTIVE, f"Withdraw {notice.words}: {reason}.",
                                  bc.CLOSURE_ACTION, do) and done:
            self._closure_message(f"Notice {notice.notice_id} withdrawn.", True)
            self.withdraw_reason.clear()
            self.refresh_funds()

    def forfeit(self) -> None:
        """The room closed for good: confirm, then an executive's swipe forfeits the whole
        balance in favour of PAGCOR."""
        fund = self.fund_box.currentData()
        st = self.status
        if fund is None or st is None:
            self._closure_message("No Bad Beat Jackpot fund chosen.", False)
            return
        if st.ceased_kind is not None:
            self._closure_message(f"Fund {self._fund_name(fund)} has ceased: nothing to "
                                  "forfeit.", False)
            return
        closed = cast(date, self.closed_on.date().toPython())
        reason = self.closure_reason.text().strip()
        name = self._fund_name(fund)
        f = st.funds
        if not self.ask("Forfeit the jackpot fund to PAGCOR?",
                        f"The poker room closed for good on {closed}.\n\nForfeit the WHOLE "
                        f"jackpot fund {name} in favour of PAGCOR: main "
                        f"{format_cents(f.main_cents)} (with any seed money) and reserve "
                        f"{format_cents(f.reserve_cents)}, together "
                        f"{format_cents(f.total_cents)}?\n\nThe fund then takes nothing more "
                        "(no count, no posting, no case). This can not be undone."):
            self._closure_message("Nothing forfeited: not confirmed.", False)
            return
        done: list[bf.Forfeiture] = []

        def do(swipe: Any) -> bf.Forfeiture:
            r = bc.forfeit_on_closure(self.console.engine, fund, swipe, closed_on=closed,
                                      reason=reason)
            done.append(r)
            return r

        what = (f"FORFEIT the jackpot fund {name} to PAGCOR (room closed {closed}): "
                f"{format_cents(f.total_cents)}. Can not be undone.")
        if self.window_.authorize(bc.EXECUTIVE, what, bc.CLOSURE_ACTION, do) and done:
            r = done[0]
            self._closure_message(
                f"Fund {name} forfeited to PAGCOR: main {format_cents(r.main_cents)} (seed "
                f"{format_cents(r.seed_cents)}), reserve {format_cents(r.reserve_cents)}, "
                f"total {format_cents(r.total_cents)}. Print its report on Forms "
                "(\"Forfeiture on closure\").", True)
            self.load_funds()

    # --- funds -------------------------------------------------------------------------------

    def _fund_name(self, fund_id: str) -> str:
        return next((f.name for f in self.funds if f.fund_id == fund_id), fund_id)

    def _ceased_refusal(self, what: str) -> str:
        """The message for a step on the chosen fund once it has ceased ("" while open)."""
        fund = self.fund_box.currentData()
        info = next((f for f in self.funds if f.fund_id == fund), None)
        if info is None or not info.ceased:
            return ""
        return f"Fund {info.name} has ceased (TGD-1540): {what}."

    def load_funds(self) -> None:
        """(Re-)read the funds and which have ceased, off the GUI thread (the bridge); the
        chosen fund stays chosen."""
        engine = self.console.engine

        def read() -> list[FundInfo]:
            with Session(engine) as s:
                rows = s.execute(select(BbjFund).order_by(BbjFund.id)).scalars().all()
                ceased = set(s.execute(select(BbjCessation.fund_id)).scalars().all())
                return [FundInfo(f.id, f.name, f.id in ceased) for f in rows]

        default_bridge().query(read, self._show_funds, lambda exc: log.warning(
            "could not read the Bad Beat Jackpot funds: %s", exc), key="poker-room-funds")

    def _show_funds(self, funds: list[FundInfo]) -> None:
        self.funds = funds
        keep = self.fund_box.currentData()
        self.fund_box.blockSignals(True)
        self.fund_box.clear()
        for f in self.funds:
            self.fund_box.addItem(f.label, f.fund_id)
        i = self.fund_box.findData(keep)
        self.fund_box.setCurrentIndex(max(i, 0) if self.funds else -1)
        self.fund_box.blockSignals(False)
        self._fund_changed()

    def _fund_changed(self) -> None:
        self.forms.set_funds(self.funds, self.fund_box.currentData())
        self.refresh_funds()

    def _poll_fund(self) -> None:
        if self.isVisible():
            self.refresh_funds()
            if self.pages.tabText(self.pages.currentIndex()).startswith("Deadlines"):
                self.refresh_deadlines()  # days pass; another podium records a filing

    def refresh_funds(self) -> None:
        """Read the chosen fund's main and reserve, how it ceased or the notice that holds
        (another console may have changed them) off the GUI thread (the bridge) and show
        them."""
        fund = self.fund_box.currentData()
        info = next((f for f in self.funds if f.fund_id == fund), None)
        if fund != self._status_fund:  # another fund chosen: nothing of the last one shows
            self.status = None
            self.ceased_label.setText("CEASED (TGD-1540)" if info and info.ceased else "")
        if fund is None:
            self.status = None
            self.main_label.setText("MAIN —")
            self.reserve_label.setText("RESERVE —")
            self._show_closure()
            return
        engine = self.console.engine

        def read() -> tuple[str, bf.FundStatus]:
            return fund, bf.fund_status(engine, fund)

        default_bridge().query(read, self._show_fund, lambda exc: log.warning(
            "could not read fund %s: %s", fund, exc), key="poker-room-fund")

    def status_text(self, st: bf.FundStatus) -> tuple[str, str]:
        """The fund's status in words and its colour: how it ceased, or the notice that
        holds ("" while neither)."""
        if st.ceased_kind == "forfeiture" and st.ceased_at is not None:
            on = st.ceased_at.astimezone(self.tz).date()
            return f"FORFEITED TO PAGCOR ON {on}", theme.ALERT
        if st.ceased_kind is not None:
            return "CEASED (TGD-1540)", theme.ALERT
        n = st.notice
        if n is None:
            return "", theme.ALERT
        if n.kind == "cease_once_hit":
            return f"ceases once hit (notice of {n.notice_on})", theme.WARN
        if n.kind == "transfer":
            to = self._fund_name(n.to_fund_id or "")
            return (f"transfer to {to} on {n.effective_on} (notice of {n.notice_on})",
                    theme.WARN)
        when = f" on {n.effective_on}" if n.effective_on else ""
        return f"room closes{when} (notice of {n.notice_on})", theme.WARN

    def _show_fund(self, result: tuple[str, bf.FundStatus]) -> None:
        fund, st = result
        if fund != self.fund_box.currentData():
            return
        info = next((x for x in self.funds if x.fund_id == fund), None)
        self.status, self._status_fund = st, fund
        if info is not None and st.ceased_kind is not None and not info.ceased:
            self.load_funds()  # another console ceased it: say so, refuse its steps
            return
        text, color = self.status_text(st)
        self.ceased_label.setText(text)
        self.ceased_label.setStyleSheet(f"color: {color}; font-size: 16pt; font-weight: bold;")
        self.main_label.setText(f"MAIN {format_cents(st.funds.main_cents)}")
        self.reserve_label.setText(f"RESERVE {format_cents(st.funds.reserve_cents)}")
        self._cease_follows_notice()
        self._show_closure()
