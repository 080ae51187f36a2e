"""The fund header of the poker room: the chosen fund, its main and reserve in large figures
and how it ceased or the notice that holds, read off the GUI thread (the bridge)."""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from core.pokerroom import fund as bf
from core.pokerroom.room import RoomFund
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.pokerroom.common import RoomContext

log = logging.getLogger("podium.gui.poker_room")


class FundHeader(QWidget):
    """``fund_changed``: another fund chosen (or the list read again); ``status_changed``:
    the chosen fund's status (``ctx.status``) shown anew."""

    fund_changed = Signal()
    status_changed = Signal()

    def __init__(self, ctx: RoomContext) -> None:
        super().__init__()
        self.ctx = ctx
        self._status_fund: str | None = None  # whose status ctx.status is
        head = QHBoxLayout(self)
        head.setContentsMargins(0, 0, 0, 0)
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

    def current(self) -> str | None:
        data = self.fund_box.currentData()
        return str(data) if data is not None else None

    def load_funds(self) -> None:
        """(Re-)read the funds and which have ceased, off the GUI thread (the bridge); the
        chosen fund stays chosen."""
        room = self.ctx.room
        default_bridge().query(
            room.funds, self._show_funds, lambda exc: log.warning(
                "could not read the Bad Beat Jackpot funds: %s", exc), key="poker-room-funds")

    def _show_funds(self, funds: list[RoomFund]) -> None:
        self.ctx.funds = funds
        keep = self.fund_box.currentData()
        self.fund_box.blockSignals(True)
        self.fund_box.clear()
        for f in funds:
            self.fund_box.addItem(f.label, f.fund_id)
        i = self.fund_box.findData(keep)
        self.fund_box.setCurrentIndex(max(i, 0) if funds else -1)
        self.fund_box.blockSignals(False)
        self._fund_changed()

    def _fund_changed(self) -> None:
        self.ctx.fund = self.current()
        self.fund_changed.emit()
        self.refresh()

    def refresh(self) -> None:
        """Read the chosen fund's main and reserve, how it ceased or the notice that holds
        (another console may have changed them) off the GUI thread (the bridge) and show
        them."""
        fund = self.current()
        self.ctx.fund = fund
        info = next((f for f in self.ctx.funds if f.fund_id == fund), None)
        if fund != self._status_fund:  # another fund chosen: nothing of the last one shows
            self.ctx.status = None
            self.ceased_label.setText("CEASED (TGD-1540)" if info and info.ceased else "")
        if fund is None:
            self.ctx.status = None
            self.main_label.setText("MAIN —")
            self.reserve_label.setText("RESERVE —")
            self.status_changed.emit()
            return
        room = self.ctx.room

        def read() -> tuple[str, bf.FundStatus]:
            return fund, room.fund_status(fund)

        default_bridge().query(read, self._show_fund, lambda exc: log.warning(
            "could not read fund %s: %s", fund, exc), key="poker-room-fund")

    def _show_fund(self, result: tuple[str, bf.FundStatus]) -> None:
        fund, st = result
        if fund != self.current():
            return
        info = next((x for x in self.ctx.funds if x.fund_id == fund), None)
        self.ctx.status, self._status_fund = st, fund
        if info is not None and st.ceased_kind is not None and not info.ceased:
            self.load_funds()  # another console ceased it: say so, refuse its steps
            return
        text, color = self.ctx.status_text(st)
        self.ceased_label.setText(text)
        self.ceased_label.setStyleSheet(f"color: {color}; font-size: 16pt; font-weight: bold;")
        money = self.ctx.money.text  # the funds' currency, the casino's locale
        self.main_label.setText(f"MAIN {money(st.funds.main_cents)}")
        self.reserve_label.setText(f"RESERVE {money(st.funds.reserve_cents)}")
        self.status_changed.emit()
