"""Manual meter adjustment (RULES.md 4 and 5): an executive and a second, different person
(supervisor or executive) change a progressive meter by a signed amount, with a reason.

The dialog shows the meter now and after the change; nothing is written until both cards are
swiped.  ``Floor.adjust`` decides and records (one ``adjustment`` ledger entry with both people
and the reason, every swipe in the swipe log); this module holds no rule of its own."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.kernel.money import Currency, cents_to_units, parse_cents, units_floor_cents
from core.tablegames.views import FloorError
from gui.common import theme
from gui.common.authorize import SwipePrompt
from gui.common.bridge import default_bridge
from gui.common.keys import on_ctrl_enter
from gui.common.swipe import SwipeCatcher

log = logging.getLogger("podium.gui.adjust")

REFRESH_MS = 1000  # the meter keeps moving while the dialog is open (contributions)
FIRST_CARD = "EXECUTIVE card"
SECOND_CARD = "SECOND PERSON: supervisor or executive card"
SECOND_EXECUTIVE = "SECOND PERSON: another EXECUTIVE card (a large adjustment)"

# (heading, what, action, role) -> True when the action succeeded on a swipe (the swipe is the
# track data, or core.people.auth.Credential when the PIN was asked)
SwipeFn = Callable[..., bool]


class AdjustSwipePrompt(SwipePrompt):
    """The swipe prompt with the adjustment's own heading ("EXECUTIVE card", "SECOND PERSON:
    supervisor or executive card") instead of "<ROLE> card or higher"."""

    def __init__(self, catcher: SwipeCatcher, heading: str, what: str,
                 action: Callable[[Any], object], parent: QWidget | None = None,
                 *, pin: bool = False) -> None:
        super().__init__(catcher, "executive", what, action, parent, pin=pin)
        self.setWindowTitle("Card swipe required — meter adjustment")
        self.setMinimumWidth(860)
        title = self.findChild(QLabel, "title")
        if title is not None:
            title.setText(f"{heading} + PIN" if pin else heading)
            title.setWordWrap(True)
        # grow with a refusal message instead of squeezing the text above it (this slot
        # runs after the prompt's own, which sets the message)
        catcher.swiped.connect(self._fit)

    def _fit(self, _raw: str) -> None:
        if self.isVisible():
            self.adjustSize()

    def done(self, r: int) -> None:  # noqa: D401 (Qt API)
        with contextlib.suppress(RuntimeError, TypeError):
            self._catcher.swiped.disconnect(self._fit)
        super().done(r)


@dataclass(frozen=True)
class Plan:
    """A checked adjustment, before the swipes."""

    group: str
    group_name: str
    level: str
    delta_cents: int
    reason: str
    before_cents: int
    after_cents: int


class AdjustDialog(QDialog):
    """Choose the meter, enter the signed amount and the reason, see the result, then swipe.

    ``floor`` provides ``meter(group, level)`` and ``adjust(...)``; ``swipe(heading, what,
    action)`` opens a swipe prompt and returns True once ``action(raw)`` succeeded."""

    def __init__(self, floor: Any, config: Any, swipe: SwipeFn,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.floor = floor
        self.config = config
        self.swipe = swipe
        self.money: Currency = config.money  # the floor's currency, the casino's locale
        self.symbol: str = self.money.symbol  # typed before an amount: taken off
        self.outcome = ""
        self._meter_units: int | None = None
        self._shown_key: Any = None
        self.setWindowTitle("Adjust meter — manual adjustment")
        self.setMinimumWidth(760)
        lay = QVBoxLayout(self)

        head = QLabel("MANUAL METER ADJUSTMENT")
        head.setObjectName("title")
        lay.addWidget(head)
        note = QLabel("Needs an EXECUTIVE card and a SECOND PERSON's card (supervisor or "
                      "executive). Recorded in the ledger with both names and the reason.")
        note.setObjectName("muted")
        note.setWordWrap(True)
        lay.addWidget(note)

        pick = QFrame()
        pick.setObjectName("panel")
        pl = QFormLayout(pick)
        pl.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.group_box = QComboBox()
        for g in config.groups:
            self.group_box.addItem(f"{g.name}  ({g.id})", g.id)
        self.level_box = QComboBox()
        pl.addRow("Progressive group", self.group_box)
        pl.addRow("Meter level", self.level_box)
        self.current = QLabel("")
        self.current.setObjectName("bigmoney")
        pl.addRow("Meter now", self.current)
        lay.addWidget(pick)

        entry = QFrame()
        entry.setObjectName("panel")
        el = QFormLayout(entry)
        el.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.amount = QLineEdit()
        self.amount.setPlaceholderText("signed amount, e.g. -250.00 to take off, 1000 to add")
        self.amount.setStyleSheet("font-size: 18pt; font-weight: bold;")
        el.addRow("Change (+/−)", self.amount)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("why (required), e.g. backs out win slip 12 paid in error")
        el.addRow("Reason", self.reason)
        lay.addWidget(entry)

        result = QFrame()
        result.setObjectName("panel")
        rl = QVBoxLayout(result)
        caption = QLabel("METER AFTER THE ADJUSTMENT")
        caption.setObjectName("muted")
        rl.addWidget(caption)
        self.after = QLabel("—")
        self.after.setObjectName("bigmoney")
        rl.addWidget(self.after)
        self.change = QLabel("")
        self.change.setStyleSheet("font-size: 15pt;")
        rl.addWidget(self.change)
        self.problem = QLabel("")
        self.problem.setObjectName("alert")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("font-size: 13pt;")
        rl.addWidget(self.problem)
        lay.addWidget(result)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons.addWidget(close)
        self.confirm_btn = QPushButton("Adjust — swipe two cards  (Ctrl+Enter)")
        self.confirm_btn.setObjectName("primary")
        self.confirm_btn.clicked.connect(self.confirm)
        buttons.addWidget(self.confirm_btn)
        lay.addLayout(buttons)
        # Enter belongs to the fields (and to the card reader); adjusting is deliberate.
        for b in (close, self.confirm_btn):
            b.setAutoDefault(False)
            b.setDefault(False)
        on_ctrl_enter(self, self._confirm_if_ready)

        self.group_box.currentIndexChanged.connect(self._group_changed)
        self.level_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.amount.textChanged.connect(lambda _t: self._update_preview())
        self.reason.textChanged.connect(lambda _t: self._update_preview())
        self._timer = QTimer(self)  # runs while the dialog is shown
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self._group_changed()
        self.amount.setFocus()

    # -- choosing and previewing --------------------------------------------------------------
    def select(self, group: str, level: str) -> None:
        """Choose a meter (by ids); used by tests and by callers that know the meter."""
        gi = self.group_box.findData(group)
        if gi < 0:
            raise FloorError(f"group {group}: not on this floor")
        self.group_box.setCurrentIndex(gi)
        li = self.level_box.findData(level)
        if li < 0:
            raise FloorError(f"group {group}: no level {level}")
        self.level_box.setCurrentIndex(li)

    def _group(self) -> Any:
        gid = self.group_box.currentData()
        return next((g for g in self.config.groups if g.id == gid), None)

    def _group_changed(self) -> None:
        g = self._group()
        self.level_box.blockSignals(True)
        self.level_box.clear()
        for name in (g.level_names if g is not None else ()):
            self.level_box.addItem(name, name)
        self.level_box.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        """Read the chosen meter again (off the GUI thread) and redo the preview."""
        g, level = self._group(), self.level_box.currentData()
        if g is None or not level:
            self._show_meter((None, None, None))
            return
        key = (g.id, level)
        floor = self.floor
        default_bridge().query(lambda: (key, floor.meter(*key).meter_units, None),
                               self._show_meter,
                               lambda exc: self._show_meter((key, None, exc)),
                               key="adjust-meter")

    def meter_shown(self) -> bool:
        """The chosen meter has been read and is shown (it is read off the GUI thread)."""
        return self._meter_units is not None and self._shown_key == self._chosen_key()

    def _chosen_key(self) -> tuple[str | None, Any]:
        g = self._group()
        return (g.id if g is not None else None), self.level_box.currentData()

    def _show_meter(self, result: tuple[Any, int | None, BaseException | None]) -> None:
        key, units, exc = result
        if key is not None and key != self._chosen_key():
            self.refresh()  # another meter was chosen meanwhile
            return
        self._shown_key = key
        self._meter_units = units
        if isinstance(exc, ValueError):
            self.problem.setText(str(exc))
        elif exc is not None:  # the ledger may be briefly unreachable
            log.warning("could not read the meter %s: %s", key, exc)
            self.problem.setText(f"Could not read the meter: {exc}")
        self.current.setText("—" if self._meter_units is None
                             else self.money.text(units_floor_cents(self._meter_units)))
        self._update_preview()

    def _delta_cents(self) -> int | None:
        """The signed amount in cents; raises MoneyError/FloorError with a message to show."""
        text = self.amount.text().strip()
        if not text:
            return None
        if self.symbol:
            text = text.replace(self.symbol, "")
        delta = parse_cents(text.replace("−", "-"), "adjustment amount", allow_negative=True)
        if delta == 0:
            raise FloorError("adjustment amount: must not be zero")
        return delta

    def plan(self) -> Plan:
        """The adjustment as entered, checked; a FloorError/MoneyError says what is missing."""
        g, level = self._group(), self.level_box.currentData()
        if g is None or not level:
            raise FloorError("adjustment: choose a progressive group and a meter level")
        delta = self._delta_cents()
        if delta is None:
            raise FloorError("adjustment amount: enter the signed change, e.g. -250.00 or 1000")
        if self._meter_units is None:
            raise FloorError(f"meter {g.name} {level}: could not be read")
        after_units = self._meter_units + cents_to_units(delta)
        if after_units < 0:
            raise FloorError(f"adjustment of {g.name} {level}: the meter holds "
                             f"{self.money.text(units_floor_cents(self._meter_units))};"
                             f" taking {self.money.text(-delta)} would make it "
                             "negative")
        reason = self.reason.text().strip()
        if not reason:
            raise FloorError("adjustment reason: required (who asked for it and why)")
        return Plan(g.id, g.name, level, delta, reason,
                    units_floor_cents(self._meter_units), units_floor_cents(after_units))

    def _signed(self, cents: int) -> str:
        return ("+" if cents > 0 else "") + self.money.text(cents)

    def _update_preview(self) -> None:
        try:
            p = self.plan()
        except ValueError as exc:
            self.confirm_btn.setEnabled(False)
            self.problem.setText(str(exc))
            try:  # still show the result of a valid amount while the reason is missing
                delta = self._delta_cents()
            except ValueError:
                delta = None
            if delta is not None and self._meter_units is not None \
                    and self._meter_units + cents_to_units(delta) >= 0:
                self.after.setText(self.money.text(units_floor_cents(
                    self._meter_units + cents_to_units(delta))))
                self.change.setText(f"change {self._signed(delta)}")
            else:
                self.after.setText("—")
                self.change.setText("")
            return
        self.problem.setText("")
        self.after.setText(self.money.text(p.after_cents))
        color = theme.ALERT if p.delta_cents < 0 else theme.OK
        self.change.setText(f'<span style="color:{color}; font-weight:bold;">'
                            f"{'TAKES OFF' if p.delta_cents < 0 else 'ADDS'} "
                            f"{self.money.text(abs(p.delta_cents))}</span>"
                            f"  (change {self._signed(p.delta_cents)} from "
                            f"{self.money.text(p.before_cents)})")
        self.confirm_btn.setEnabled(True)

    # -- the swipes ---------------------------------------------------------------------------
    def _confirm_if_ready(self) -> None:
        if self.confirm_btn.isEnabled():
            self.confirm()

    def confirm(self) -> None:
        """Executive card first, then a second, different person's; then record."""
        self.refresh()
        try:
            p = self.plan()
        except ValueError as exc:
            self.problem.setText(str(exc))
            return
        what = (f"Adjust {p.group_name} {p.level} by {self._signed(p.delta_cents)}\n"
                f"{self.money.text(p.before_cents)}  →  "
                f"{self.money.text(p.after_cents)}\nReason: {p.reason}")
        first: list[Any] = []

        def check_executive(raw: Any) -> object:
            _check_first_card(self.floor, p, raw)
            first.append(raw)
            return None

        if not self.swipe(FIRST_CARD, what, check_executive, "executive"):
            self.problem.setText("Adjustment not made: the executive card was not swiped.")
            return

        after: list[int] = []

        def record(raw: Any) -> object:
            after.append(self.floor.adjust(p.group, p.level, p.delta_cents, p.reason,
                                           first[-1], raw))
            return after[-1]

        limit = getattr(getattr(self.config, "authorization", None),
                        "adjustment_second_executive_cents", None)
        big = limit is not None and abs(p.delta_cents) >= limit
        if not self.swipe(SECOND_EXECUTIVE if big else SECOND_CARD,
                          f"{what}\nThe executive's card is read; now a second, different "
                          "person.", record, "executive" if big else "supervisor"):
            self.problem.setText("Adjustment not made: the second person's card was not "
                                 "swiped. Nothing was recorded.")
            return
        now = after[-1] if after else (self._meter_units or 0) + cents_to_units(p.delta_cents)
        self.outcome = (f"Meter {p.group_name} {p.level} adjusted by {self._signed(p.delta_cents)}"
                        f", now {self.money.text(units_floor_cents(now))} — "
                        f"{p.reason}")
        self.accept()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt API)
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 (Qt API)
        self._timer.stop()
        super().hideEvent(event)


def _check_first_card(floor: Any, p: Plan, raw: Any) -> None:
    """The first card must be an executive's: checked (and a refusal logged) by the core."""
    floor.check_swipe(raw, "executive", "adjust")
