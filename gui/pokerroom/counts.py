"""The daily count: per table the jackpot drop box with its chip pieces and the house rake
box ("Record count"), then "Post the day" showing the distribution; a tournament's fees.  Each
after a supervisor's swipe."""

from __future__ import annotations

from datetime import date, datetime, time

from PySide6.QtCore import QDate, QDateTime, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDateTimeEdit,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.kernel.money import parse_cents
from core.pokerroom import cases as bc
from core.pokerroom import fund as bf
from gui.common import theme
from gui.pokerroom.common import (
    NO_FUND,
    NowField,
    RoomContext,
    day_edit,
    day_of,
    qdatetime,
    show,
)


class CountPanel(QWidget):
    """``posted``: a day was posted to the fund (its amounts read again)."""

    posted = Signal()

    def __init__(self, ctx: RoomContext) -> None:
        super().__init__()
        self.ctx = ctx
        lay = QVBoxLayout(self)
        grid = QFormLayout()
        self.count_date = day_edit(ctx.gaming_day())  # the casino's gaming day, now
        self.day_follows = True  # until a person picks a date
        self._setting_day = False
        self.count_date.dateChanged.connect(self._day_set)
        self.count_table = QLineEdit()
        self.count_table.setPlaceholderText("e.g. P1")
        self.count_box = QLineEdit()
        self.count_box.setPlaceholderText("e.g. J-1")
        self.count_dealer = QLineEdit()
        # 10:00 on the gaming day's date (an opening hour to correct), until a person sets it
        self.count_opened = QDateTimeEdit(self._opening(ctx.gaming_day()))
        self.count_opened.setDisplayFormat("yyyy-MM-dd HH:mm")  # casino local time
        self.opened_follows = True
        self.count_opened.dateTimeChanged.connect(self._opened_set)
        self.count_closed = NowField(ctx.local_now)  # now, until a person sets it
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
        for i, denom in enumerate(ctx.fund_settings.denominations):
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

    @staticmethod
    def _opening(day: date) -> QDateTime:
        return qdatetime(datetime.combine(day, time(10)))

    def _day_set(self, _day: object) -> None:
        if not self._setting_day:
            self.day_follows = False

    def _opened_set(self, _at: object) -> None:
        if not self._setting_day:
            self.opened_follows = False

    def catch_up(self) -> None:
        """The date shows the casino's gaming day now (not the console start's) until a person
        picks one."""
        if not self.day_follows:
            return
        day = self.ctx.gaming_day()
        self._setting_day = True
        try:
            self.count_date.setDate(QDate(day.year, day.month, day.day))
            if self.opened_follows:
                self.count_opened.setDateTime(self._opening(day))
        finally:
            self._setting_day = False

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.catch_up()
        super().showEvent(event)

    def _count_total_changed(self) -> None:
        total = sum(d * sp.value() for d, sp in self.pieces.items()) * 100
        self.count_total.setText(f"Box total {self.ctx.money.text(total)}")

    def _count_message(self, text: str, ok: bool) -> None:
        show(self.count_msg, text, ok)

    def _fee_message(self, text: str, ok: bool) -> None:
        show(self.fee_msg, text, ok)

    def record_count(self) -> None:
        """Record one table's drop boxes after a supervisor's swipe (refusals show in the
        prompt)."""
        fund = self.ctx.fund
        if fund is None:
            self._count_message(NO_FUND, False)
            return
        refusal = self.ctx.ceased_refusal("nothing more can be counted on it")
        if refusal:
            self._count_message(refusal, False)
            return
        day, table = day_of(self.count_date), self.count_table.text().strip()
        box = self.count_box.text().strip()
        rake_box = self.count_rake_box.text().strip()
        try:
            rake = parse_cents(self.count_rake.text().strip() or "0", "house rake")
        except ValueError as exc:
            self._count_message(str(exc), False)
            return
        pieces = {d: sp.value() for d, sp in self.pieces.items()}
        opened, closed = self.ctx.local(self.count_opened), self.ctx.local(self.count_closed)
        dealer = self.count_dealer.text()
        room, settings = self.ctx.room, self.ctx.fund_settings

        def write(swipe: str) -> int:
            return room.record_count(fund, swipe, business_date=day, table=table,
                                     drop_box=box, opened_at=opened, closed_at=closed,
                                     dealer=dealer, pieces=pieces, rake_box=rake_box,
                                     rake_cents=rake, settings=settings)

        money = self.ctx.money.text  # the fund's currency, the casino's locale
        house = f"; house rake {money(rake)} (box {rake_box or '?'})" if rake else ""
        what = (f"Record the jackpot drop box {box or '?'} of table {table or '?'} for {day}: "
                f"{self.count_total.text().lower()}{house}.")
        if self.ctx.swiped(bc.ROLE, what, bc.COUNT_ACTION, write) is not None:
            house = f", house rake {money(rake)} in box {rake_box}" if rake else ""
            self._count_message(f"{day}: table {table} drop box {box} counted "
                                f"({self.count_total.text().lower()}{house}).", True)
            for sp in self.pieces.values():
                sp.setValue(0)
            self.count_box.clear()
            self.count_rake_box.clear()
            self.count_rake.clear()

    def post_day(self) -> None:
        """Post the day's counts after a supervisor's swipe and show the distribution."""
        fund = self.ctx.fund
        if fund is None:
            self._count_message(NO_FUND, False)
            return
        refusal = self.ctx.ceased_refusal("nothing more can be posted on it")
        if refusal:
            self._count_message(refusal, False)
            return
        day = day_of(self.count_date)
        room, settings = self.ctx.room, self.ctx.fund_settings

        def write(swipe: str) -> bf.Posting:
            return room.post_day(fund, day, swipe, settings=settings)

        p = self.ctx.swiped(bc.ROLE, f"Post the jackpot rake of {day}.", bc.COUNT_ACTION, write)
        if p is not None:
            d = p.distribution
            money = self.ctx.money.text  # the fund's currency, the casino's locale
            self._count_message(
                f"{day} posted: jackpot rake {money(d.collection_cents)}; admin fee "
                f"{money(d.admin_fee_cents)}, to main {money(d.to_main_cents)}, "
                f"to reserve {money(d.to_reserve_cents)}.\n"
                f"Updated main {money(p.updated.main_cents)} (was "
                f"{money(p.previous.main_cents)}), reserve "
                f"{money(p.updated.reserve_cents)} (was "
                f"{money(p.previous.reserve_cents)}).", True)
            self.posted.emit()

    def record_fee(self) -> None:
        """Record a poker tournament's fees for the count's date after a supervisor's swipe
        (a negative fee is a correction and needs its reason; refusals show in the prompt)."""
        day = day_of(self.count_date)
        name = self.fee_tournament.text().strip()
        reason = self.fee_reason.text().strip()
        try:
            fee = parse_cents(self.fee_amount.text().strip(), "tournament fee",
                              allow_negative=True)
        except ValueError as exc:
            self._fee_message(str(exc), False)
            return
        room = self.ctx.room

        def write(swipe: str) -> int:
            return room.record_tournament_fee(swipe, business_date=day, tournament=name,
                                              fee_cents=fee, reason=reason)

        kind = "correction of the fees" if fee < 0 else "fees"
        why = f" ({reason})" if reason else ""
        money = self.ctx.money.text  # the fund's currency, the casino's locale
        what = (f"Record the {kind} of tournament {name or '?'} for {day}: "
                f"{money(fee)}{why}.")
        if self.ctx.swiped(bc.ROLE, what, bc.COUNT_ACTION, write) is not None:
            self._fee_message(f"{day}: tournament {name} {kind} {money(fee)} "
                              "recorded.", True)
            for edit in (self.fee_tournament, self.fee_amount, self.fee_reason):
                edit.clear()
