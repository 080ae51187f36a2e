"""Hit verification: the supervisor sees the claim, enters or confirms the seven cards, and the
rules core says what the hand is and what it pays.  A claim that differs from the evaluated hand
is flagged and blocks paying until it is corrected (recorded) or the hit is rejected with a
reason.  Paying and rejecting both need a card swipe (gui/common/authorize.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.kernel.cards import Card
from core.kernel.money import DOLLARS, Currency
from core.tablegames.flags import FlagCode
from core.tablegames.views import AmountChanged
from gui.common.bridge import default_bridge
from gui.common.cards import CardPicker, card_html, hand_label, with_hand_names
from gui.common.keys import on_ctrl_enter
from gui.tablegames.model import HitView, waiting_note

log = logging.getLogger("podium.gui.verify")


NOTE_REFRESH_MS = 1000  # the table's state under the result follows the floor's
COMMON_REASONS = ("No wager on the seat", "Wrong hand button", "Misdeal",
                  "Not a qualifying hand")


class RejectDialog(QDialog):
    """Why a hit is rejected: one of the common reasons (the hit's flags pick the likely one)
    and/or words of the supervisor's own.  The flags stay in sight; OK with no reason keeps the
    dialog open and says so."""

    def __init__(self, hit: HitView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Reject hit {hit.ref}")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel(f"<b>Reject hit {hit.ref}</b>: {hit.table}, seat {hit.seat}, round "
                             f"{hit.round_no}, claimed {hand_label(hit.hand)}"))
        if hit.flags:
            flags = QLabel("Flags: " + with_hand_names("; ".join(hit.flags)))
            flags.setObjectName("alert")
            flags.setWordWrap(True)
            lay.addWidget(flags)
        self.reasons = QListWidget()
        self.reasons.addItems(list(COMMON_REASONS))
        self.reasons.setMaximumHeight(self.reasons.sizeHintForRow(0) * len(COMMON_REASONS) + 8)
        likely = _likely_reason(hit)
        if likely is not None:
            self.reasons.setCurrentRow(COMMON_REASONS.index(likely))
        lay.addWidget(QLabel("Reason:"))
        lay.addWidget(self.reasons)
        self.details = QLineEdit()
        self.details.setPlaceholderText("Details, or a reason of your own")
        lay.addWidget(self.details)
        self.message = QLabel("")
        self.message.setObjectName("alert")
        lay.addWidget(self.message)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.ok_btn = QPushButton("Reject — swipe card")
        self.ok_btn.setObjectName("danger")
        self.ok_btn.clicked.connect(self._confirm)
        for b in (cancel, self.ok_btn):
            b.setAutoDefault(False)
        buttons.addWidget(cancel)
        buttons.addWidget(self.ok_btn)
        lay.addLayout(buttons)
        self.details.returnPressed.connect(self._confirm)
        self.details.setFocus()

    def reason(self) -> str:
        """The chosen reason and the details, as they go to the ledger ("" when none)."""
        item = self.reasons.currentItem()
        picked = item.text() if item is not None and item.isSelected() else ""
        details = self.details.text().strip()
        return f"{picked}: {details}" if picked and details else picked or details

    def _confirm(self) -> None:
        if not self.reason():
            self.message.setText("A rejection needs a reason: pick one or type it.")
            return
        self.accept()


# The common reason a flag points to, first match wins (decided on codes, never on words)
LIKELY_REASONS: tuple[tuple[frozenset[FlagCode], str], ...] = (
    (frozenset({FlagCode.NO_WAGER}), "No wager on the seat"),
    (frozenset({FlagCode.CLAIM_MISMATCH, FlagCode.NOT_A_HAND}), "Wrong hand button"),
    (frozenset({FlagCode.ROUND_VOID}), "Misdeal"),  # misdealt, or its START GAME undone
)


def _likely_reason(hit: HitView) -> str | None:
    codes = set(hit.codes)
    for flagged, reason in LIKELY_REASONS:
        if codes & flagged:
            return reason
    return None


class _FreezeState:
    """What the bridge's handlers of the dialog's freeze need once the dialog may be gone
    (plain Python: no widget)."""

    def __init__(self) -> None:
        self.running = True  # the freeze has not answered yet
        self.closed = False  # the dialog closed (its widgets may be deleted)
        self.answer: Any = None  # the FrozenAmount, once it answered


def _released(hit_id: int, result: Any) -> None:
    state = getattr(result, "state", "")
    if state == "kept":
        log.info("hit %s: its verification closed; its amount stays frozen (another award or "
                 "freeze on the level was fixed on what it left)", hit_id)
    elif state == "unfrozen":
        log.info("hit %s: verification closed without a decision; its frozen amount went back "
                 "to the meter", hit_id)


def _release_failed(hit_id: int, exc: BaseException) -> None:
    # the freeze stays (the ledger was not reachable): reopening the hit and closing it again
    # gives it back; paying pays the frozen amount
    log.warning("hit %s: its frozen amount could not be given back: %s", hit_id, exc)


class VerifyDialog(QDialog):
    """``service`` provides ``freeze(hit_id, where)``, ``unfreeze(hit_id, where)`` and
    ``evaluate(hit_id, cards)``, and the dialog asks ``authorize`` (a callable that opens the
    swipe prompt) to pay or reject.

    Jackpot Lock at verification (RULES.md 4): opening the dialog fixes the hit's meter amount
    (``Floor.freeze``, on the bridge's ops thread); PAY waits for it, so the swipe authorizes the
    frozen amount, which the linked tables' play no longer moves.  Closing the dialog without a
    pay or a rejection gives it back (``Floor.unfreeze``).  ``where`` names this podium in the
    ledger's record of both."""

    def __init__(self, hit: HitView, cards: list[Card], service: Any,
                 authorize: Callable[[str, str, str, Callable[[str], object]], bool],
                 parent: QWidget | None = None, *, where: str = "",
                 money: Currency = DOLLARS, waits: Callable[[], str] | None = None) -> None:
        super().__init__(parent)
        self.hit = hit
        # what a decision on this hit waits for before it reaches the table
        # (model.decision_waits: "has NO SERVICE", "is OFFLINE", "" linked), asked again as
        # the dialog works: said here before the swipe, as the Activity says it after
        self._waits = waits
        self.money = money  # the floor's currency, the casino's locale
        self.service = service
        self.authorize = authorize
        self.where = where
        self._freeze = _FreezeState()
        self._after_freeze = False  # the evaluation shown was asked after the freeze answered
        # shows the reject dialog, modal (a test replaces it: no nested event loop)
        self.ask_reason: Callable[[RejectDialog], bool] = \
            lambda dlg: dlg.exec() == QDialog.DialogCode.Accepted
        self.outcome = ""
        self.setWindowTitle(f"Verify hit {hit.ref} — {hit.table} seat {hit.seat}")
        self.setMinimumWidth(980)
        lay = QVBoxLayout(self)

        head = QFrame()
        head.setObjectName("panel")
        form = QFormLayout(head)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        big = "font-size: 16pt; font-weight: bold;"
        self._claim = QLabel(hand_label(hit.hand))
        self._claim.setStyleSheet(big)
        wager = money.text(hit.wager_cents) if hit.wager_cents is not None else "NO WAGER"
        for label, value in (("Table", hit.table), ("Seat", str(hit.seat)),
                             ("Round", str(hit.round_no)), ("Progressive wager", wager)):
            v = QLabel(value)
            v.setStyleSheet(big)
            form.addRow(label, v)
        form.addRow("Claimed by dealer", self._claim)
        lay.addWidget(head)

        lay.addWidget(QLabel("Cards at the seat (confirm or enter all seven):"))
        self.picker = CardPicker()
        lay.addWidget(self.picker)

        result = QFrame()
        result.setObjectName("panel")
        rl = QVBoxLayout(result)
        self.evaluated = QLabel("")
        self.evaluated.setStyleSheet("font-size: 20pt; font-weight: bold;")
        rl.addWidget(self.evaluated)
        self.amount = QLabel("")
        self.amount.setObjectName("bigmoney")
        rl.addWidget(self.amount)
        self.detail = QLabel("")
        self.detail.setObjectName("muted")
        self.detail.setWordWrap(True)
        rl.addWidget(self.detail)
        self.problems = QLabel("")
        self.problems.setObjectName("alert")
        self.problems.setWordWrap(True)
        rl.addWidget(self.problems)
        self.correct = QCheckBox("Correct the claim to the evaluated hand (recorded with my swipe)")
        keep = self.correct.sizePolicy()
        keep.setRetainSizeWhenHidden(True)  # its room stays when hidden
        self.correct.setSizePolicy(keep)
        self.correct.setVisible(False)
        self.correct.toggled.connect(self._update_buttons)
        rl.addWidget(self.correct)
        # The result keeps its size whatever it says (1 line each for the hand and the amount,
        # 2 for the detail, 3 for the problems): the deck above never moves under the pointer.
        for shown, lines in ((self.evaluated, 1), (self.amount, 1), (self.detail, 2),
                             (self.problems, 3)):
            shown.ensurePolished()
            shown.setFixedHeight(shown.fontMetrics().lineSpacing() * lines + 6)
        lay.addWidget(result)
        # under the result, above the buttons: the deck above never moves when it shows
        self.table_note = QLabel("")
        self.table_note.setObjectName("warn")
        self.table_note.setWordWrap(True)
        self.table_note.setStyleSheet("font-size: 13pt;")
        lay.addWidget(self.table_note)
        self._show_table_note()
        self._note_timer = QTimer(self)  # the table's link or service may change meanwhile
        self._note_timer.setInterval(NOTE_REFRESH_MS)
        self._note_timer.timeout.connect(self._show_table_note)
        self._note_timer.start()

        buttons = QHBoxLayout()
        self.reject_btn = QPushButton("Reject hit…  (Ctrl+R)")
        self.reject_btn.setObjectName("danger")
        self.reject_btn.clicked.connect(self._reject)
        buttons.addWidget(self.reject_btn)
        buttons.addStretch(1)
        cancel = QPushButton("Close")
        cancel.clicked.connect(self.reject)
        buttons.addWidget(cancel)
        self.pay_btn = QPushButton("PAY — swipe card  (Ctrl+Enter)")
        self.pay_btn.setObjectName("primary")
        self.pay_btn.clicked.connect(self._pay)
        buttons.addWidget(self.pay_btn)
        lay.addLayout(buttons)
        # Enter belongs to the card entry field; paying is a deliberate Ctrl+Enter or a click.
        for b in (self.reject_btn, cancel, self.pay_btn):
            b.setAutoDefault(False)
            b.setDefault(False)
        on_ctrl_enter(self, self._pay_if_ready)
        QShortcut(QKeySequence("Ctrl+R"), self).activated.connect(self._reject)
        # Reject is as many Tabs away on a flagged hit as on any other: "Correct the claim"
        # (shown only for a claim that differs) comes after it, not before
        QWidget.setTabOrder(self.reject_btn, self.correct)
        QWidget.setTabOrder(self.correct, cancel)

        self._verification: Any = None
        self.evaluating = False
        self.picker.cardsChanged.connect(lambda _c: self._evaluate())
        self.picker.set_cards(cards)
        self._start_freeze()
        self._evaluate()

    # -- Jackpot Lock at verification ---------------------------------------------------------
    @property
    def freeze_state(self) -> str | None:
        """The freeze's answer (``frozen``, ``locked_at_hit``, ``none``; ``failed``), None
        while it runs."""
        f = self._freeze
        if f.running:
            return None
        return str(getattr(f.answer, "state", "failed"))

    def _start_freeze(self) -> None:
        hit_id, where, service, state = self.hit.id, self.where, self.service, self._freeze

        def frozen(result: Any) -> None:
            state.running, state.answer = False, result
            if not state.closed:
                self._evaluate()  # the amount shown is the frozen one

        def failed(exc: BaseException) -> None:
            state.running = False
            if state.closed:
                return
            if isinstance(exc, ValueError):  # decided meanwhile: the evaluation says so too
                self.problems.setText(str(exc))
            else:
                log.warning("freezing hit %s: %s", hit_id, exc)
                self.problems.setText(f"The amount could not be frozen ({exc}); it is fixed "
                                      "when the pay is recorded.")
                self._evaluate()

        default_bridge().op(lambda: service.freeze(hit_id, where), frozen, failed, owner=self)

    def done(self, r: int) -> None:  # noqa: D401 (Qt API)
        """Closed: without a pay or a rejection, the frozen amount goes back to the meter (on
        the ops thread, after the freeze if it is still running)."""
        state = self._freeze
        if not state.closed:
            state.closed = True
            if not self.outcome and (state.running
                                     or getattr(state.answer, "state", "") == "frozen"):
                hit_id, where, service = self.hit.id, self.where, self.service
                # no owner: the amount goes back to the meter whatever becomes of the dialog
                default_bridge().op(lambda: service.unfreeze(hit_id, where),
                                    lambda result: _released(hit_id, result),
                                    lambda exc: _release_failed(hit_id, exc))
        super().done(r)

    # -- evaluation ---------------------------------------------------------------------------
    def _evaluate(self) -> None:
        """Ask the rules core (off the GUI thread) what the entered cards make and pay now;
        PAY stays disabled until the answer for exactly these cards is shown."""
        cards = self.picker.cards()
        self._verification = None
        if len(cards) != 7:
            self.evaluated.setText(f"{len(cards)} of 7 cards entered")
            self.amount.setText("")
            self.detail.setText("")
            self.problems.setText("")
            self.correct.setVisible(False)
            self._update_buttons()
            return
        self._update_buttons()
        self.evaluating = True
        hit_id = self.hit.id
        # an answer asked before the freeze answered may show an amount the freeze changed:
        # shown, but PAY waits for the one asked after (the freeze asks it)
        fresh = not self._freeze.running
        default_bridge().query(lambda: (cards, self.service.evaluate(hit_id, cards), fresh),
                               self._evaluated, self._evaluation_failed,
                               key=f"evaluate:{hit_id}")

    def _evaluation_failed(self, exc: BaseException) -> None:
        self.evaluating = False
        if isinstance(exc, ValueError):
            self.problems.setText(str(exc))
        else:
            log.warning("evaluating hit %s: %s", self.hit.id, exc)
            self.problems.setText(f"The ledger could not be read ({exc}); try again.")
        self._update_buttons()

    def _evaluated(self, result: tuple[list[Card], Any, bool]) -> None:
        self.evaluating = False
        cards, v, fresh = result
        if list(cards) != list(self.picker.cards()):
            self._evaluate()  # the cards changed meanwhile: ask again for the ones shown
            return
        self._after_freeze = fresh
        self._show(cards, v)

    def _show(self, cards: list[Card], v: Any) -> None:
        self._verification = v
        hand_html = " ".join(card_html(c) for c in cards)
        self.evaluated.setText(f"{hand_label(v.best_hand)}   {hand_html}")
        if v.pay_hand is None:
            self.amount.setText("Pays nothing")
            self.detail.setText("These cards make no hand this paytable pays.")
        else:
            self.amount.setText(self.money.text(v.amount_cents or 0))
            role = (v.required_role or "supervisor").upper()
            if v.source == "meter" and v.fraction is not None and v.meter_cents is not None:
                pct = f"{v.fraction * 100:.2f}".rstrip("0").rstrip(".")
                where = (f"{pct}% of the {v.level} meter, "
                         f"{self.money.text(v.meter_cents)} now")
                if getattr(v, "frozen", False):
                    where = (f"{pct}% of the {v.level} meter at "
                             f"{self.money.text(v.meter_cents)}, FROZEN (Jackpot Lock: the "
                             "linked tables play on)")
            elif v.source == "meter" and v.meter_cents is not None:
                where = (f"a fixed amount from the {v.level} meter (all pays from the meter), "
                         f"{self.money.text(v.meter_cents)} now")
            else:
                where = "a fixed amount from the table's tray"
            article = "an" if role[:1] in "AEIOU" else "a"
            self.detail.setText(f"Pays as {hand_label(v.pay_hand)}: {where}. "
                                f"Paying needs {article} {role} card.")
        self.problems.setText("\n".join(f"⚠ {with_hand_names(p)}" for p in v.problems))
        self.correct.setVisible(bool(v.mismatch))
        if not v.mismatch:
            self.correct.setChecked(False)
        self._update_buttons()

    def _update_buttons(self) -> None:
        v = self._verification
        # PAY waits for the freeze: the amount authorized is the one fixed
        ok = (v is not None and v.pay_hand is not None and v.payable
              and not self._freeze.running and self._after_freeze)
        if v is not None and v.mismatch and not self.correct.isChecked():
            ok = False
        self.pay_btn.setEnabled(bool(ok))

    def _show_table_note(self) -> None:
        """A table with NO SERVICE or OFFLINE: the pay or rejection is recorded now and sent
        to the table when it is back (the same words the Activity line has after it)."""
        note = waiting_note(self._waits() if self._waits is not None else "", self.hit.table,
                            "pay or rejection")
        shown = f"▲ {note}" if note else ""
        if shown != self.table_note.text():
            self.table_note.setText(shown)
        self.table_note.setVisible(bool(note))

    # -- actions ------------------------------------------------------------------------------
    def _pay_if_ready(self) -> None:
        if self.pay_btn.isEnabled():
            self._pay()

    def _pay(self) -> None:
        v = self._verification
        if v is None:
            return
        cards = self.picker.cards()
        correct = self.correct.isChecked()
        text = (f"Pay {self.money.text(v.amount_cents or 0)} — {hand_label(v.pay_hand)}, "
                f"{self.hit.table} seat {self.hit.seat}")
        # The amount authorized is the amount paid: frozen when the dialog opened, so the
        # linked tables' play does not move it; if it changed all the same (fixed again in
        # pay order, a corrected claim), the pay is refused naming the new amount and why,
        # and the next swipe confirms that one.
        expected = [v.amount_cents]
        verifier: list[Any] = []
        if getattr(v, "verifier_needed", False):
            # two people: one confirms the cards (checked now, nothing written), another pays
            def check(swipe: Any) -> object:
                self.service.check_swipe(swipe, "supervisor", "verify")
                verifier.append(swipe)
                return None

            if not self.authorize("supervisor", f"VERIFIER: you checked the cards of hit "
                                  f"{self.hit.ref}. {text}. A second person authorizes.",
                                  "verify", check):
                return

        def do(swipe: Any) -> object:
            extra = {"verifier": verifier[-1]} if verifier else {}
            try:
                return self.service.pay(self.hit.id, cards, swipe, correct_claim=correct,
                                        expected_cents=expected[0], **extra)
            except AmountChanged as exc:
                expected[0] = exc.amount_cents
                raise

        who = "AUTHORIZER (not the verifier): " if verifier else ""
        if self.authorize(v.required_role or "supervisor", who + text, "pay", do):
            self.outcome = "paid"
            self.accept()
        else:
            self._evaluate()  # show what it pays now

    def _reject(self) -> None:
        dlg = RejectDialog(self.hit, self)
        ok = self.ask_reason(dlg)
        reason = dlg.reason()
        dlg.deleteLater()
        if not ok or not reason:
            return

        def do(swipe: Any) -> object:
            return self.service.reject(self.hit.id, reason, swipe)

        # rejecting needs the authority paying would (an executive-level hit: an executive)
        role = getattr(self._verification, "reject_role", None) or "supervisor"
        if self.authorize(role, f"Reject hit {self.hit.ref}: {reason}", "reject", do):
            self.outcome = "rejected"
            self.accept()
