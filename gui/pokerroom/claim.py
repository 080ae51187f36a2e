"""Claim entry (docs/operator.md "Poker room"): the table, blinds, pot, seats dealt in with
names, ID checked, taxpayer class and whether the seat showed its cards; the board and the hole
cards of every seat that showed on one card picker, in seat order; the decision with every
failed rule in words (a tie shows the split and every share, or is named under the refuse
policy); "Open case" after a supervisor's swipe."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.kernel.money import format_cents, parse_cents
from core.pokerroom import cases as bc
from core.pokerroom.rules.bbj import TAXPAYER_CLASSES, Decision, ShownHand, fraction_text
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.common.cards import CardPicker, SlotGroup
from gui.pokerroom.common import NowField, RoomContext, seats_text, tie_lines

log = logging.getLogger("podium.gui.poker_room")

SEATS = 10
BOARD = "Board"
# seats table columns
COL_DEALT, COL_SHOWED, COL_NAME, COL_ID, COL_TAX = range(5)


class ClaimPanel(QGroupBox):
    """``case_opened``: a case was opened here (the case list reads again)."""

    case_opened = Signal()

    def __init__(self, ctx: RoomContext) -> None:
        super().__init__("New claim")
        self.ctx = ctx
        self.decision: Decision | None = None
        self.scroll_area: QScrollArea | None = None  # the scroll area the screen puts this in
        self._asked = 0  # decisions asked for: only the latest one's answer is shown
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.table_edit = QLineEdit()
        self.table_edit.setPlaceholderText("e.g. P1")
        self.small_blind = QLineEdit("50.00")  # for TGD-1500
        self.big_blind = QLineEdit("100.00")
        self.pot = QLineEdit()
        self.pot.setPlaceholderText("0.00")
        # the room's maximum and the table's cap at its blind level from the floor file
        self.cap = QLineEdit(format_cents(ctx.fund_settings.room_max_rake_cents)
                             .replace(",", ""))
        self.room_max = QLineEdit(self.cap.text())
        self.big_blind.editingFinished.connect(self._blind_changed)
        self.hit_time = NowField(ctx.local_now)  # casino local time: now until set
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

    def entry(self) -> bc.ClaimEntry:
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
        cap = self.ctx.fund_settings.rake_cap_cents(bb)
        self.cap.setText(format_cents(cap).replace(",", ""))

    def _hit_at(self) -> datetime:
        return self.ctx.local(self.hit_time)

    def _show_result(self, text: str, color: str) -> None:
        self.result.setText(text)
        self.result.setStyleSheet(f"color: {color}; font-weight: bold;")
        # on a small screen the result is below the fold: bring it into view
        scroll = self.scroll_area
        if scroll is not None:
            QTimer.singleShot(0, lambda: scroll.ensureWidgetVisible(self.result, 0, 0))

    def error(self, text: str) -> None:
        self._show_result(text, theme.ALERT)

    def decide(self, then: Callable[[], None] | None = None) -> bool:
        """Decide the entered claim on the selected fund, off the GUI thread (the bridge), and
        show every rule's result; ``then()`` runs once it is shown.  False (the reason shown)
        when the entry is refused before anything is read."""
        fund = self.ctx.fund
        if fund is None:
            self.error("No Bad Beat Jackpot fund: create one first (docs/bbj.md).")
            return False
        try:
            entry = self.entry()
        except ValueError as exc:
            self.error(str(exc))
            return False
        room, hit_at, rules = self.ctx.room, self._hit_at(), self.ctx.rules
        self._asked += 1
        asked = self._asked
        self.decision = None

        def shown(d: Decision) -> None:
            if asked != self._asked:  # the claim was decided again since: that one shows
                return
            self._show_decision(entry, d)
            if then is not None:
                then()

        def failed(exc: BaseException) -> None:
            if asked != self._asked:
                return
            if isinstance(exc, ValueError):
                self.error(str(exc))
                return
            log.warning("could not decide the claim: %s", exc)
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            self.error(f"The ledger could not be read ({reason}): nothing was decided.")

        default_bridge().query(lambda: room.decide(fund, entry, hit_at, rules), shown, failed,
                               owner=self)
        return True

    def _show_decision(self, entry: bc.ClaimEntry, d: Decision) -> None:
        self.decision = d
        money = self.ctx.money.text  # the fund's currency, the casino's locale
        if d.qualifies:
            lines = [f"QUALIFIES: {seats_text(d.winning_seats)} "
                     f"({d.winning_hand.category if d.winning_hand else ''}) beat "
                     f"{seats_text(d.losing_seats)} "
                     f"({d.losing_hand.category if d.losing_hand else ''}). "
                     f"Award {money(d.award_cents)} "
                     f"({fraction_text(d.payout_fraction)} of main)."]
            lines += tie_lines(d)
            for s in d.shares:
                name = entry.names.get(s.seat, "")
                idc = "" if s.seat in entry.id_checked else "  NO ID CHECKED"
                lines.append(f"  seat {s.seat} {name} ({s.role}, {s.taxpayer}): gross "
                             f"{money(s.gross_cents)}, tax {money(s.tax_cents)}, "
                             f"net {money(s.net_cents)}{idc}")
            if d.left_in_main_cents:
                lines.append(f"  left in main (rounding): {money(d.left_in_main_cents)}")
            lines.append(f"After the hit: main {money(d.main_after_cents)}, reserve "
                         f"{money(d.reserve_after_cents)}")
            color = theme.OK
        else:
            lines = ["DOES NOT QUALIFY:"] + [f"  {t}" for t in bc.reasons_text(d)]
            color = theme.WARN
        lines.append("Every rule (RULES.md 6):")
        lines += [f"  {'✓' if ok else '✗'} {words}" for _code, ok, words in bc.rule_results(d)]
        self._show_result("\n".join(lines), color)

    def open_case(self) -> None:
        """Decide the claim (shown), then ask for the swipe that opens its case."""
        refusal = self.ctx.ceased_refusal("no new case can be opened on it")
        if refusal:
            self.error(refusal)
            return
        fund = self.ctx.fund
        try:
            entry = self.entry()
        except ValueError as exc:
            self.error(str(exc))
            return
        if fund is None:
            self.decide()  # says there is no fund
            return
        hit_at = self._hit_at()
        self.decide(then=lambda: self._open_decided(fund, entry, hit_at))

    def _open_decided(self, fund: str, entry: bc.ClaimEntry, hit_at: datetime) -> None:
        decision = self.decision
        verdict = "qualifies" if decision is not None and decision.qualifies else \
            "does not qualify"
        what = f"Open a Bad Beat Jackpot case for table {entry.table} ({verdict})."
        room, rules = self.ctx.room, self.ctx.rules

        def write(swipe: str) -> int:
            return room.open_case(fund, entry, hit_at, swipe, rules=rules)

        cid = self.ctx.swiped(bc.ROLE, what, bc.SWIPE_ACTION, write)
        if cid is not None:
            self.clear()
            self.result.setText(self.result.text() + f"\nCase #{cid} opened.")
            self.case_opened.emit()

    def clear(self) -> None:
        """A new claim: the table, pot, seats (dealt in, showed, names, ID checked, taxpayer)
        and cards empty, "Hit at" following now again; the blinds and caps stay (the room's
        usual ones).  The decision shown stays until the next one."""
        self.table_edit.clear()
        self.pot.clear()
        for r in range(SEATS):
            for box in (self.dealt[r], self.showed[r], self.ids[r]):
                box.setChecked(False)
            self.taxpayer[r].setCurrentIndex(0)
            name = self.seats.item(r, COL_NAME)
            if name is not None:
                name.setText("")
        self.picker.clear()
        self.hit_time.to_now()
        self.decision = None
