"""Issue 27 point 7 at the console: a console that starts on a floor file changing what decides
pays shows the changes and asks for an executive's swipe and PIN; a refusal is shown and the
prompt waits for another swipe; Cancel: the console does not start (gui/app.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from core.people.auth import AuthError, Credential
from core.tablegames.floor_approval import Change, Pending
from gui.app import approve_floor_change
from gui.common.authorize import SwipePrompt
from gui.common.swipe import SwipeCatcher
from tests.gui.swiping import type_pin, type_swipe

SUP, EXE = ";6200000000000001=2812101?", ";6200000000000002=2812101?"
PENDING = Pending((Change("level", "WA01/MAIN", "contribution_rate", "0.20", "0.15"),),
                  "v" * 64, 7, "floor.toml", "f" * 64)


@pytest.fixture
def catcher(qapp) -> Iterator[SwipeCatcher]:  # type: ignore[no-untyped-def]
    c = SwipeCatcher()
    c.install(qapp)
    yield c
    qapp.removeEventFilter(c)


def test_the_console_shows_the_changes_and_takes_an_executives_swipe_and_pin(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, catcher: SwipeCatcher) -> None:
    handed: list[Credential] = []
    seen: dict[str, str] = {}

    def record(credential: Credential) -> str:
        handed.append(credential)
        if credential.track.strip() == SUP:
            raise AuthError("employee S1 (Sue Visor): needs an executive", "not_allowed")
        return "1 change(s) approved by executive X1 (Exe Cutive)"

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        seen["text"] = " ".join(w.text() for w in prompt.findChildren(QLabel))
        type_swipe(prompt, SUP)
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        type_pin(prompt, "1357")
        qtbot.waitUntil(lambda: "needs an executive" in prompt.message.text(), timeout=10000)
        seen["refused"] = prompt.message.text()
        type_swipe(prompt, EXE)
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        type_pin(prompt, "7531")

    with modal_steps.running():
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        assert approve_floor_change(catcher, PENDING, record) is True
    assert "level WA01/MAIN contribution_rate: 0.20 -> 0.15" in seen["text"]
    assert "EXECUTIVE card + PIN" in seen["text"]
    assert "needs an executive" in seen["refused"]
    assert [(c.track.strip(), c.pin) for c in handed] == [(SUP, "1357"), (EXE, "7531")]


def test_cancelled_nobody_approved(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, catcher: SwipeCatcher) -> None:
    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        prompt.cancel_btn.click()

    with modal_steps.running():
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        assert approve_floor_change(catcher, PENDING, lambda c: "never") is False
