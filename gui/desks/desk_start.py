"""``podium console --role card``: the card swiped at start picks the desk.

The swipe prompt (gui/common/authorize.py) takes the card (and the PIN where the floor asks one at
every swipe); :func:`core.desks.desk.desk_pass` identifies it on the bridge's ops thread, reading
only.  An unknown, locked or inactive card, a wrong PIN or a role that opens no desk is refused
in the prompt, which stays open for another card.  The refusal is written to the console's log,
not to the ledger's swipe log: the desk's connection can not write (docs/operator.md "Desks").
An executive's card opens either desk: :class:`DeskChoice` asks which."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget
from sqlalchemy import Engine

from core.desks.desk import DESK_NAMES, DeskPass, desk_pass
from core.floorconfig import FloorConfig
from core.people.auth import Credential
from gui.common.authorize import SwipePrompt
from gui.common.swipe import SwipeCatcher

WHAT = ("to open a read-only desk: an accountant's or a supervisor's card opens the "
        "accountant's desk, a surveillance card the surveillance desk, an executive's either")


def card_prompt(catcher: SwipeCatcher, engine: Engine, config: FloorConfig,
                parent: QWidget | None = None) -> SwipePrompt:
    """The start prompt; after it is accepted its ``result_value`` is the :class:`DeskPass`."""

    def identify(swipe: str | Credential) -> DeskPass:
        return desk_pass(engine, config, swipe)

    prompt = SwipePrompt(catcher, "employee", WHAT, identify, parent,
                         pin=config.authorization.pin_needed(None))
    prompt.setWindowTitle("Podium desk — swipe your card")
    return prompt


class DeskChoice(QDialog):
    """Which desk an executive opens: one button per desk the card opens."""

    def __init__(self, who: DeskPass, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Podium desk — which desk?")
        self.chosen: str | None = None
        lay = QVBoxLayout(self)
        head = QLabel(f"{who.label} ({who.role}): which desk?")
        head.setObjectName("title")
        head.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(head)
        for role in who.desks:
            btn = QPushButton(DESK_NAMES.get(role, role).capitalize())
            btn.setObjectName(f"desk-{role}")
            btn.clicked.connect(lambda _=False, r=role: self._choose(r))
            lay.addWidget(btn)
        cancel = QPushButton("Cancel (Esc)")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        lay.addWidget(cancel)

    def _choose(self, role: str) -> None:
        self.chosen = role
        self.accept()


def choose_desk(who: DeskPass, parent: Any = None) -> str | None:
    """The desk ``who`` opens: theirs, or (an executive) the one they pick; None if cancelled."""
    if len(who.desks) == 1:
        return who.desks[0]
    dialog = DeskChoice(who, parent)
    dialog.exec()
    return dialog.chosen
