"""The cases page: every Bad Beat Jackpot case with its state and next deadline (public
holidays skipped, overdue in red), the step that moves the selected case on or voids it after
the card it needs (said before the swipe: ``core.pokerroom.cases.step_authority``; an approval
may cease the fund, TGD-1540), and each paid share's slip, printed and reprinted."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.pokerroom import cases as bc
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.pokerroom.common import RoomContext, scrolled, shares_text, show

log = logging.getLogger("podium.gui.poker_room")

NEXT_TEXT = {"verified": "Verify (deck sorted, CCTV reviewed)",
             "request_filed": "Awarding request filed (TGD-1500)",
             "attachments_filed": "Attachments filed (IDs, bank statement, CCTV)",
             "attachments_missed": "Attachments deadline missed (with the reason)",
             "approved": "Approval received",
             "share_paid": "Pay share", "acknowledged": "Acknowledgment received"}

StepArgs = tuple[bc.CaseView, str, dict[str, Any]]


def state_text(c: bc.CaseView) -> str:
    text = bc.STATE_TEXT[c.state] + ("" if c.qualifies else " (does not qualify)")
    if c.state == "acknowledged" and c.is_open:
        text += " — OPEN: attachments outstanding"
    return text


class CasesPanel(QWidget):
    """``case_chosen(cases, case_id | None)``: the list or the selection changed (the forms
    follow); ``fund_moved``: an award left (or came back to) a fund; ``tax_withheld``: a share
    was paid (the BIR remittance)."""

    case_chosen = Signal(object, object)
    fund_moved = Signal()
    tax_withheld = Signal()

    def __init__(self, ctx: RoomContext, console: Any) -> None:
        super().__init__()
        self.ctx = ctx
        self.console = console  # the casino's name and the receipt printer's spool
        self.cases: list[bc.CaseView] = []
        self._shown_case: int | None = None  # the case the step fields were filled for
        self.last_slip: bytes | None = None  # the share slip last sent to the printer
        lay = QVBoxLayout(self)
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
        self.case_info_scroll = scrolled(self.case_info)
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

    def _deadline_text(self, d: bc.Deadline) -> str:
        return f"{d.what} by {d.due.astimezone(self.ctx.tz):%a %d %b %H:%M}"

    @staticmethod
    def _deadline_outcome(d: bc.Deadline) -> str:
        """How a case deadline ended: met (LATE when it was), or recorded missed."""
        if d.met_at is not None:
            late = bc.late_text(d.due, d.met_at)
            return f" (met, {late})" if late else " (met)"
        if d.missed_at is not None:
            return f" (MISSED: {d.missed_reason})"
        return ""

    def refresh(self) -> None:
        """Read the cases again, off the GUI thread (the bridge), and show them."""
        room = self.ctx.room
        default_bridge().query(room.cases, self._show_cases,
                               lambda exc: log.warning(  # the ledger is away: keep the list
                                   "could not read the Bad Beat Jackpot cases: %s", exc),
                               key="poker-room-cases")

    def _show_cases(self, cases: list[bc.CaseView]) -> None:
        self.cases = cases
        selected = self.selected_case()
        keep = selected.case_id if selected else None
        now = self.ctx.now()
        tz, holidays = self.ctx.tz, self.ctx.holidays
        self.case_table.blockSignals(True)
        self.case_table.setRowCount(len(self.cases))
        for r, c in enumerate(self.cases):
            nd = bc.next_deadline(c, tz, holidays)
            due = self._deadline_text(nd) if nd else "—"
            cells = [str(c.case_id), c.table, f"{c.hit_at.astimezone(tz):%d %b %H:%M}",
                     state_text(c), due]
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
        if (c.case_id if c else None) != self._shown_case:  # another case: its checks unmade
            self._shown_case = c.case_id if c else None
            self.clear_step()
        self.case_chosen.emit(self.cases, c.case_id if c else None)
        self.next_box.clear()
        self.share_seat.clear()
        self.reprint_seat.clear()
        self.cease_box.setChecked(False)
        if c is None:
            self.case_info.setText("Select a case.")
            self._show_reprint(False)
            return
        tz = self.ctx.tz
        for seat in c.paid_seats:
            name = c.claim["names"].get(str(seat), "")
            self.reprint_seat.addItem(f"seat {seat} {name}".strip(), seat)
        self._show_reprint(bool(c.paid_seats))
        for st in c.next_states(self.ctx.now()):
            if st != "voided":
                self.next_box.addItem(NEXT_TEXT[st], st)
        for seat in c.unpaid_seats:
            name = c.claim["names"].get(str(seat), "")
            self.share_seat.addItem(f"seat {seat} {name}".strip(), seat)
        hist = "".join(f"\n  {bc.STATE_TEXT[e.state]}{f' seat {e.seat}' if e.seat else ''} by "
                       f"{e.by.number} {e.at.astimezone(tz):%d %b %H:%M}"
                       f"{f' ({e.detail})' if e.detail else ''}" for e in c.events)
        dls = "; ".join(self._deadline_text(d) + self._deadline_outcome(d)
                        for d in bc.deadlines(c, tz, self.ctx.holidays))
        status = "open" if c.is_open else "closed"
        if c.attachments_outstanding and c.state == "acknowledged":
            status += " (attachments outstanding)"
        text = (f"Case #{c.case_id} ({status}):{hist}"
                + (f"\nDeadlines: {dls}" if dls else "") + shares_text(c.decision, self.ctx.money))
        self.case_info.setText(text)
        room, case_id = self.ctx.room, c.case_id

        def show_prints(prints: list[bc.SlipPrint]) -> None:
            now = self.selected_case()
            if now is None or now.case_id != case_id or not prints:
                return
            slips = "; ".join(f"seat {p.seat} {'reprint ' if p.reprint else ''}"
                              f"{p.at.astimezone(tz):%d %b %H:%M} "
                              f"{'printed' if p.ok else 'NOT PRINTED: ' + p.error}"
                              for p in prints)
            self.case_info.setText(f"{text}\nShare slips: {slips}")

        default_bridge().query(lambda: room.slip_prints(case_id), show_prints,
                               lambda exc: log.warning(  # the ledger is away: the rest shows
                                   "could not read the share slip prints: %s", exc),
                               key="poker-room-slip-prints", owner=self)

    def clear_step(self) -> None:
        """The step's checks and words empty (issue 26: a case's Verify never starts with
        another case's "Deck sorted" and "CCTV reviewed" ticked; one swipe records only checks
        made for this case)."""
        for box in (self.deck_sorted, self.cctv):
            box.setChecked(False)
        self.step_detail.clear()
        self.void_reason.clear()

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
        self.cease_follows_notice()
        self._show_step_card()

    def _step_args(self) -> StepArgs | None:
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
        room, rules = self.ctx.room, self.ctx.rules

        def shown(need: bc.StepAuthority) -> None:
            if self._step_args() != args:  # the choice changed since
                return
            self._show_need(need)

        default_bridge().query(
            lambda: room.step_authority(c.case_id, state, rules=rules, **kw), shown,
            lambda exc: self.step_card.setText(""), key="poker-room-step-card", owner=self)

    def _card_words(self, role: str) -> str:
        pin = " + PIN" if self.ctx.window.pin_needed(role) else ""
        return f"{role} swipe{pin}"

    def _show_need(self, need: bc.StepAuthority) -> None:
        self.step_btn.setText(f"Record step ({self._card_words(need.role)})…")
        text = f"Card needed: {need.role.upper()}"
        if self.ctx.window.pin_needed(need.role):
            text += " + PIN"
        if need.prompt:
            text += f". {need.prompt}"
        self.step_card.setText(text)
        warn = need.role != "supervisor" or need.separate
        self.step_card.setStyleSheet(f"color: {theme.WARN if warn else theme.OK};"
                                     + (" font-weight: bold;" if warn else ""))

    def cease_follows_notice(self) -> None:
        """With a cease-once-hit notice the approval MUST cease the fund: ticked, fixed."""
        c = self.selected_case()
        notice = self.ctx.once_hit_notice(c.fund_id if c is not None else None)
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
        room, rules = self.ctx.room, self.ctx.rules
        seat_kw = {k: v for k, v in kw.items() if k in ("seat", "cease")}

        def ask(need: bc.StepAuthority) -> None:
            self._show_need(need)
            said, args = what, dict(kw)
            if state == "approved" and need.ceases and not kw.get("cease"):
                # a cease-once-hit notice of the case's fund (maybe not the fund shown above)
                name = self.ctx.fund_name(c.fund_id)
                ceasing = self._cease_confirmed(
                    c, name, f"A notice says the jackpot fund {name} ceases once hit: "
                    f"approving case #{c.case_id} CEASES it (TGD-1540). The reserve is added "
                    "to the main amount won, and nothing more can be recorded on the fund."
                    "\n\nThis can not be undone.")
                if ceasing is None:
                    return
                args["cease"] = True
                said = ceasing
            self._authorized_step(c, state, said + (f"\n{need.prompt}" if need.prompt else ""),
                                  need.role, **args)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ValueError):
                self.message(str(exc))
                return
            log.warning("could not read the case: %s", exc)
            self.message("The ledger could not be read: nothing was recorded.")

        default_bridge().query(
            lambda: room.step_authority(c.case_id, state, rules=rules, **seat_kw), ask, failed,
            owner=self)

    def _cease_confirmed(self, c: bc.CaseView, name: str, question: str) -> str | None:
        """Ask before an approval ceases fund ``name``: what the swipe prompt then says, or
        None (said on screen) when the supervisor did not confirm."""
        if not self.ctx.ask("Cease the jackpot?", question):
            self.message("Not approved: the cessation was not confirmed.")
            return None
        return (f"Case #{c.case_id}: {NEXT_TEXT['approved']}, and the jackpot fund {name} "
                "CEASES with this hit (TGD-1540; can not be undone).")

    def _authorized_step(self, c: bc.CaseView, state: str, what: str, role: str,
                         **kw: Any) -> None:
        room, rules, clock = self.ctx.room, self.ctx.rules, self.ctx.now

        def write(swipe: Any) -> bc.CaseView:
            return room.advance(c.case_id, state, swipe, rules=rules, clock=clock, **kw)

        view = self.ctx.swiped(role, what, bc.SWIPE_ACTION, write)
        if view is not None:
            ceases = kw.get("cease") or (state == "approved" and "the fund ceases" in
                                         view.events[-1].detail)
            ceased = " The fund has ceased (TGD-1540)." if ceases else ""
            shown = state if state in bc.ATTACHMENT_STATES else view.state
            late = ""
            if state == "attachments_filed" and view.attachments_needed:
                late = bc.late_text(view.attachments_due, view.events[-1].at)
            message = (f"Case #{c.case_id}: {bc.STATE_TEXT[shown]}"
                       f"{', ' + late if late else ''}.{ceased}")
            self.message(message, True)
            self.clear_step()  # recorded: the next step's checks start empty
            if state == "share_paid":
                self.print_share_slip(c.case_id, int(kw["seat"]), said=message + " ")
            if state in ("approved", "voided"):  # the award left (or came back to) the fund
                self.fund_moved.emit()
            self.refresh()
            if state == "share_paid":  # the tax withheld: the BIR remittance
                self.tax_withheld.emit()

    def _show_reprint(self, on: bool) -> None:
        self.reprint_seat.setVisible(on)
        self.reprint_btn.setVisible(on)

    def print_share_slip(self, case_id: int, seat: int, *, reprint: bool = False,
                         said: str = "") -> None:
        """Read a paid share's slip off the GUI thread (the bridge) and send it to the receipt
        printer (the console's printer thread records whether it printed); the case message
        says so after ``said``."""
        from core.tablegames.slip_record import SlipError
        from printing.escpos.bbj_slip import render_share_slip, share_slip

        casino, money = self.console.config.casino, self.console.config.fund_money
        room = self.ctx.room
        what = f"{'Reprint of the share' if reprint else 'Share'} slip case #{case_id} seat {seat}"

        def read() -> bytes:
            return render_share_slip(share_slip(room.engine, case_id, seat, casino=casino.name,
                                                timezone=casino.timezone, reprint=reprint,
                                                currency=money))

        def keep(ok: bool, printer: str, problem: str) -> None:  # on the printer thread
            room.record_slip_print(case_id, seat, reprint=reprint, printer=printer, ok=ok,
                                   error=problem)

        def send(data: bytes) -> None:
            self.console.print_bytes(data, f"bbj-{case_id}-{seat}", what, keep)
            self.last_slip = data
            self.message(f"{said}{what} sent to the printer.", True)

        def refused(exc: BaseException) -> None:
            if isinstance(exc, SlipError):
                self.message(f"{said}The share slip can not be printed: {exc}")
                return
            log.warning("could not read the share slip: %s", exc)
            self.message(f"{said}The share slip can not be printed: the ledger could "
                         "not be read; reprint it from the case.")

        # no owner: the slip is sent to the printer even if the tab is gone by then
        default_bridge().query(read, send, refused)

    def reprint_slip(self) -> None:
        c = self.selected_case()
        seat = self.reprint_seat.currentData()
        if c is None or seat is None:
            self.message("Select a case with a paid share.")
            return
        self.print_share_slip(c.case_id, int(seat), reprint=True)

    def message(self, text: str, ok: bool = False) -> None:
        show(self.case_msg, text, ok)

    def record_step(self) -> None:
        c = self.selected_case()
        state = self.next_box.currentData()
        if c is None or state is None:
            self.message("Select a case with a next step.")
            return
        kw: dict[str, Any] = {}
        what = f"Case #{c.case_id}: {NEXT_TEXT[state]}."
        if state == "verified":
            kw = {"deck_sorted": self.deck_sorted.isChecked(),
                  "cctv_reviewed": self.cctv.isChecked()}
            if not all(kw.values()):
                self.message("Verify only once the deck is sorted and the CCTV reviewed: "
                             "tick both.")
                return
        if state in bc.ATTACHMENT_STATES:
            kw = {"detail": self.step_detail.text().strip()}
            if state == "attachments_missed":
                if not kw["detail"]:
                    self.message("Type why the attachments are missing: the reason is kept "
                                 "with the case.")
                    return
                what = (f"Case #{c.case_id}: the attachments' 7-day deadline is MISSED: "
                        f"{kw['detail']}.")
        if state == "share_paid":
            kw = {"seat": self.share_seat.currentData()}
            what = f"Case #{c.case_id}: {NEXT_TEXT[state]} {self.share_seat.currentText()}."
        notice = self.ctx.once_hit_notice(c.fund_id) if state == "approved" else None
        if state == "approved" and (self.cease_box.isChecked() or notice is not None):
            name = self.ctx.fund_name(c.fund_id)
            why = (f"\n\nThe notice of {notice.notice_on} says the fund ceases once hit: "
                   "this approval can not be made without ceasing it." if notice else "")
            ceasing = self._cease_confirmed(
                c, name, f"Approve case #{c.case_id} and CEASE the jackpot fund {name} with "
                "this hit (TGD-1540)?\n\nThe reserve is added to the main amount won, and "
                "nothing more can be recorded on the fund: no count, no posting, no new case."
                + why + "\n\nThis can not be undone.")
            if ceasing is None:
                return
            kw = {"cease": True}
            what = ceasing
        self._swiped_step(c, state, what, **kw)

    def void_case(self) -> None:
        c = self.selected_case()
        reason = self.void_reason.text().strip()
        if c is None or not reason:
            self.message("Select a case and type the reason for the void.")
            return
        self._swiped_step(c, "voided", f"VOID case #{c.case_id}: {reason}", detail=reason)
