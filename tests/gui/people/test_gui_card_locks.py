"""People > Lift a card lock…: a supervisor's card locked after five refused swipes is lifted
at the podium by an executive's card and PIN (real key events), and swipes again.  Screenshots
go to $PODIUM_SCREENSHOT_DIR when it is set."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.app.demo import swipe_of
from core.ledger.models import CardLock
from core.people.auth import AuthError
from gui.common.authorize import SwipePrompt
from gui.people.card_locks import UnlockDialog
from tests.gui.swiping import type_pin, type_swipe
from tests.gui.tablegames.test_gui_adjust import shot

SUPERVISOR, EXECUTIVE = "1002", "2001"


def test_an_executive_lifts_a_locked_card_from_the_console(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window, engine: Engine) -> None:  # noqa: F811 (the fixture)
    window, floor = console_window
    core = floor.console.floor
    for _ in range(5):  # a supervisor trying what only an executive may
        with pytest.raises(AuthError):
            core.check_swipe(swipe_of(SUPERVISOR), "executive", "adjust")
    with pytest.raises(AuthError, match="card locked"):
        core.check_swipe(swipe_of(SUPERVISOR), "supervisor", "adjust")
    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, UnlockDialog)
        dlg._confirm()  # no number yet: stays open, says so
        seen["no_number"] = dlg.message.text()
        qtbot.keyClicks(dlg.number, SUPERVISOR)
        qtbot.keyClicks(dlg.reason, "tried an executive pay; identity checked in person")
        # typed in one burst, ';' (a track sentinel) and all: the swipe catcher holds the keys
        # after it until the burst proves not to be a card, then gives them to the field
        qtbot.waitUntil(lambda: dlg.reason.text().endswith("in person"), timeout=10000)
        shot(dlg, "unlock-dialog")
        modal_steps.on_dialog(SwipePrompt, in_prompt)  # once the prompt is on top
        dlg._confirm()

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        seen["prompt"] = " ".join(w.text() for w in prompt.findChildren(QLabel))
        type_swipe(prompt, swipe_of(EXECUTIVE))
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        shot(prompt, "swipe-prompt-pin")
        type_pin(prompt, EXECUTIVE)

    with modal_steps.running():
        modal_steps.on_dialog(UnlockDialog, in_dialog)
        window.unlock_action.trigger()
    assert "employee number" in str(seen["no_number"])
    assert "EXECUTIVE card + PIN" in str(seen["prompt"])
    assert "lock lifted by employee 2001" in window.log_list.item(0).text()
    assert core.check_swipe(swipe_of(SUPERVISOR), "supervisor", "adjust")[0] == SUPERVISOR
    with Session(engine) as s:
        rows = [(r.event, r.reason) for r in s.scalars(select(CardLock).order_by(CardLock.id))]
    assert [e for e, _ in rows] == ["locked", "lifted"]
    assert rows[1][1] == "tried an executive pay; identity checked in person"
