"""The fund's cessation: a notice that it ceases once hit, is transferred or the room closes
(TGD-1540 part 1), the players told, withdrawing a notice, and the forfeiture of the whole
balance to PAGCOR on the room's permanent closure (an executive's swipe after a
confirmation)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.pokerroom import cases as bc
from core.pokerroom import fund as bf
from gui.pokerroom.common import RoomContext, day_edit, day_of, show


class ClosurePanel(QWidget):
    """``notice_changed``: a notice recorded, told or withdrawn (the fund's status read again);
    ``forfeited``: the fund forfeited (the funds read again)."""

    notice_changed = Signal()
    forfeited = Signal()

    def __init__(self, ctx: RoomContext) -> None:
        super().__init__()
        self.ctx = ctx
        lay = QVBoxLayout(self)
        today = ctx.local_now().date()

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
        self.notice_date = day_edit(today)
        form.addRow("Part 1 filed on", self.notice_date)
        eff = QHBoxLayout()
        self.notice_has_effective = QCheckBox("planned")
        self.notice_has_effective.setToolTip("A cessation once hit has no date until the hit; "
                                             "a transfer needs its effective date")
        self.notice_effective = day_edit(today)
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
        self.told_date = day_edit(today)
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
        self.closed_on = day_edit(today)
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

    def _notice_kind_changed(self) -> None:
        transfer = self.notice_kind.currentData() == "transfer"
        self.notice_to.setEnabled(transfer)
        if transfer:
            self.notice_has_effective.setChecked(True)

    def _message(self, text: str, ok: bool) -> None:
        show(self.closure_msg, text, ok)

    def show_status(self) -> None:
        """The page follows the chosen fund: the notice that holds, how it ceased."""
        fund = self.ctx.fund
        keep = self.notice_to.currentData()
        self.notice_to.clear()
        for f in self.ctx.funds:
            if f.fund_id != fund and not f.ceased:
                self.notice_to.addItem(f.name, f.fund_id)
        i = self.notice_to.findData(keep)
        if i >= 0:
            self.notice_to.setCurrentIndex(i)
        st = self.ctx.status
        ceased = st is not None and st.ceased_kind is not None
        notice = st.notice if st is not None else None
        for w in (self.notice_btn, self.forfeit_btn):
            w.setEnabled(fund is not None and not ceased)
        for w in (self.told_btn, self.withdraw_btn):
            w.setEnabled(notice is not None)
        if st is None:
            self.notice_status.setText("")
            return
        text, _color = self.ctx.status_text(st)
        if ceased:
            self.notice_status.setText(f"This fund has ceased: {text.lower()}. Nothing more "
                                       "can be recorded on it.")
        elif notice is not None:
            told = (f"players told on {notice.players_told_on}" if notice.players_told_on
                    else "players not told yet")
            dl = bf.notice_deadlines(notice, self.ctx.holidays)
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
        fund = self.ctx.fund
        if fund is None:
            self._message("No Bad Beat Jackpot fund: create one first.", False)
            return
        kind = str(self.notice_kind.currentData())
        notice_on = day_of(self.notice_date)
        effective = (day_of(self.notice_effective)
                     if self.notice_has_effective.isChecked() else None)
        to_fund = self.notice_to.currentData() if kind == "transfer" else None
        reason = self.notice_reason.text().strip()
        name = self.ctx.fund_name(fund)
        words = {"cease_once_hit": "ceases once it is next hit (its next approved award "
                                   "ceases it, the reserve added to the amount won)",
                 "transfer": f"is transferred to {self.ctx.fund_name(to_fund or '?')}",
                 "closure": "ends with the permanent closure of the poker room"}[kind]
        when = f" on {effective}" if effective else ""
        if not self.ctx.ask("Record a notice of cessation?",
                            f"Record that the jackpot fund {name} {words}{when} (TGD-1540 part "
                            f"1 filed on {notice_on})?\n\nA notice is never changed: it can "
                            "only be withdrawn by a further record."):
            self._message("No notice recorded: not confirmed.", False)
            return
        room = self.ctx.room

        def write(swipe: Any) -> int:
            return room.give_notice(fund, swipe, kind, notice_on=notice_on,
                                    effective_on=effective, to_fund_id=to_fund, reason=reason)

        what = f"Notice: the jackpot fund {name} {words}{when}."
        nid = self.ctx.swiped(bc.EXECUTIVE, what, bc.CLOSURE_ACTION, write)
        if nid is not None:
            self._message(f"Notice {nid} recorded.", True)
            self.notice_reason.clear()
            self.notice_changed.emit()

    def _held(self) -> bf.Notice | None:
        st = self.ctx.status
        if st is None or st.notice is None:
            self._message("No notice holds on this fund.", False)
            return None
        return st.notice

    def record_players_told(self) -> None:
        notice = self._held()
        if notice is None:
            return
        fund, told = notice.fund_id, day_of(self.told_date)
        room = self.ctx.room

        def write(swipe: Any) -> int:
            return room.record_players_told(fund, notice.notice_id, swipe, told_on=told)

        what = f"The players were told of notice {notice.notice_id} on {told}."
        if self.ctx.swiped(bc.ROLE, what, bc.CLOSURE_ACTION, write) is not None:
            self._message(f"Notice {notice.notice_id}: players told on {told}.", True)
            self.notice_changed.emit()

    def withdraw_notice(self) -> None:
        notice = self._held()
        if notice is None:
            return
        reason = self.withdraw_reason.text().strip()
        if not reason:
            self._message("Type the reason for withdrawing the notice.", False)
            return
        if not self.ctx.ask("Withdraw the notice?", f"Withdraw {notice.words}?\n\nThe notice "
                            "stays in the ledger with its withdrawal."):
            self._message("Not withdrawn: not confirmed.", False)
            return
        room = self.ctx.room

        def write(swipe: Any) -> int:
            return room.withdraw_notice(notice.fund_id, notice.notice_id, swipe, reason=reason)

        what = f"Withdraw {notice.words}: {reason}."
        if self.ctx.swiped(bc.EXECUTIVE, what, bc.CLOSURE_ACTION, write) is not None:
            self._message(f"Notice {notice.notice_id} withdrawn.", True)
            self.withdraw_reason.clear()
            self.notice_changed.emit()

    def forfeit(self) -> None:
        """The room closed for good: confirm, then an executive's swipe forfeits the whole
        balance in favour of PAGCOR."""
        fund = self.ctx.fund
        st = self.ctx.status
        if fund is None or st is None:
            self._message("No Bad Beat Jackpot fund chosen.", False)
            return
        name = self.ctx.fund_name(fund)
        if st.ceased_kind is not None:
            self._message(f"Fund {name} has ceased: nothing to forfeit.", False)
            return
        closed = day_of(self.closed_on)
        reason = self.closure_reason.text().strip()
        f = st.funds
        money = self.ctx.money.text  # the fund's currency, the casino's locale
        if not self.ctx.ask("Forfeit the jackpot fund to PAGCOR?",
                            f"The poker room closed for good on {closed}.\n\nForfeit the WHOLE "
                            f"jackpot fund {name} in favour of PAGCOR: main "
                            f"{money(f.main_cents)} (with any seed money) and reserve "
                            f"{money(f.reserve_cents)}, together "
                            f"{money(f.total_cents)}?\n\nThe fund then takes nothing "
                            "more (no count, no posting, no case). This can not be undone."):
            self._message("Nothing forfeited: not confirmed.", False)
            return
        room = self.ctx.room
        what = (f"FORFEIT the jackpot fund {name} to PAGCOR (room closed {closed}): "
                f"{money(f.total_cents)}. Can not be undone.")

        def write(swipe: Any) -> bf.Forfeiture:
            return room.forfeit_on_closure(fund, swipe, closed_on=closed, reason=reason)

        r = self.ctx.swiped(bc.EXECUTIVE, what, bc.CLOSURE_ACTION, write)
        if r is not None:
            self._message(
                f"Fund {name} forfeited to PAGCOR: main {money(r.main_cents)} (seed "
                f"{money(r.seed_cents)}), reserve {money(r.reserve_cents)}, "
                f"total {money(r.total_cents)}. Print its report on Forms "
                "(\"Forfeiture on closure\").", True)
            self.forfeited.emit()
