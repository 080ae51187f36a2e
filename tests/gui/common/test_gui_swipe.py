"""The application-wide swipe catcher: a reader's burst never lands in a text field."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from gui.common.swipe import SwipeCatcher

TRACKS = "%B6011000990139424^REYES/DANA^2812101?;6011000990139424=2812101?"


def _catcher(qapp):  # type: ignore[no-untyped-def]
    catcher = SwipeCatcher()
    catcher.install(qapp)
    return catcher


def test_fast_swipe_is_captured_and_never_reaches_the_focused_field(qtbot, qapp):  # type: ignore[no-untyped-def]
    catcher = _catcher(qapp)
    try:
        field = QLineEdit()
        qtbot.addWidget(field)
        field.show()
        field.setFocus()
        with qtbot.waitSignal(catcher.swiped, timeout=2000) as blocker:
            qtbot.keyClicks(field, TRACKS, delay=1)
            qtbot.keyClick(field, Qt.Key.Key_Return)
        assert blocker.args == [TRACKS]
        assert field.text() == ""
    finally:
        qapp.removeEventFilter(catcher)


def test_slow_typing_of_a_sentinel_reaches_the_field_in_order(qtbot, qapp):  # type: ignore[no-untyped-def]
    catcher = _catcher(qapp)
    try:
        field = QLineEdit()
        qtbot.addWidget(field)
        field.show()
        field.setFocus()
        received: list[str] = []
        catcher.swiped.connect(received.append)
        qtbot.keyClicks(field, "50% off;", delay=120)
        qtbot.wait(200)
        assert field.text() == "50% off;"
        assert received == []
    finally:
        qapp.removeEventFilter(catcher)


def test_a_busy_gui_thread_mid_swipe_does_not_split_the_swipe(qtbot, qapp):  # type: ignore[no-untyped-def]
    """Gaps are measured by when the reader typed the keys (event timestamps), not by when a
    busy GUI thread got round to them."""
    import time

    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    catcher = _catcher(qapp)
    try:
        field = QLineEdit()
        qtbot.addWidget(field)
        field.show()
        received: list[str] = []
        catcher.swiped.connect(received.append)
        data = ";6011000990139424=2812101?"
        stamp = 1_000_000
        for i, ch in enumerate(data + "\r"):
            key = Qt.Key.Key_Return if ch == "\r" else Qt.Key.Key_unknown
            ev = QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier,
                           "" if ch == "\r" else ch)
            ev.setTimestamp(stamp + 4 * i)  # typed every 4 ms by the reader
            QApplication.sendEvent(field, ev)
            if i == 3:
                time.sleep(0.15)  # the GUI thread was busy for 150 ms
        qtbot.waitUntil(lambda: received == [data], timeout=10000)
        assert field.text() == ""
    finally:
        qapp.removeEventFilter(catcher)


@pytest.mark.allow_logged_errors
def test_a_ledger_failure_during_a_swiped_action_is_shown_in_the_prompt_not_raised(qtbot, qapp):  # type: ignore[no-untyped-def]
    from sqlalchemy.exc import OperationalError

    from gui.common.authorize import SwipePrompt

    catcher = _catcher(qapp)
    try:
        def action(_raw: str) -> object:
            raise OperationalError("INSERT ...", {}, Exception("server closed the connection"))

        prompt = SwipePrompt(catcher, "supervisor", "Pay $100.00", action)
        qtbot.addWidget(prompt)
        prompt.show()
        catcher.swiped.emit(";6011000990139424=2812101?")
        qtbot.waitUntil(lambda: "could not record" in prompt.message.text(), timeout=10000)
        assert "server closed the connection" in prompt.message.text()
        assert prompt.isVisible()  # still waiting: nothing was paid
    finally:
        qapp.removeEventFilter(catcher)


@pytest.fixture
def caught_field(qtbot, qapp):  # type: ignore[no-untyped-def]
    """A shown text field under an installed swipe catcher, and the swipes it caught."""
    catcher = _catcher(qapp)
    field = QLineEdit()
    qtbot.addWidget(field)
    field.show()
    received: list[str] = []
    catcher.swiped.connect(received.append)
    yield field, received
    qapp.removeEventFilter(catcher)


@pytest.mark.parametrize("typed", [
    "no wager on seat 3; dealer pressed the wrong button",
    "100% sure: seat 6",
    "%B6011^not a whole track",
    ";6011000990139424=2812101",  # a track 2 without its end sentinel
])
def test_fast_typing_that_is_not_a_card_track_reaches_its_field_whole(qtbot, caught_field,  # type: ignore[no-untyped-def]
                                                                      typed: str) -> None:
    """A supervisor typing a reason at reader speed: whatever is not a well-formed track goes
    back to the field it was typed in, untouched, and the Enter after it too."""
    from tests.gui.swiping import type_swipe

    field, received = caught_field
    entered: list[str] = []
    field.returnPressed.connect(lambda: entered.append(field.text()))
    type_swipe(field, typed)  # every key 4 ms after the last, then Enter
    qtbot.wait(300)  # past the hold time
    assert field.text() == typed
    assert entered == [typed]
    assert received == []


def test_a_real_swipe_at_reader_speed_is_still_caught(qtbot, caught_field) -> None:  # type: ignore[no-untyped-def]
    from tests.gui.swiping import type_swipe

    field, received = caught_field
    track = "%B6011000990139424^REYES/DANA^2912101?;6011000990139424=2912101?"
    type_swipe(field, track)
    qtbot.waitUntil(lambda: received == [track], timeout=10000)
    assert field.text() == ""


def test_a_click_right_after_fast_typing_gives_the_held_keys_back_first(  # type: ignore[no-untyped-def]
        qtbot, caught_field) -> None:
    field, _received = caught_field
    qtbot.keyClicks(field, "seat 3; dealer")  # fast, no Enter, no pause
    assert field.text() == "seat 3"  # ';' onwards is held (it might be a card)
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    assert field.text() == "seat 3; dealer"


def test_keys_held_for_a_field_whose_window_closed_meanwhile_are_dropped_quietly(  # type: ignore[no-untyped-def]
        qtbot, qapp) -> None:
    """A reason typed fast with a ';' in it, and the dialog closed before the catcher gave the
    held keys back: the keys go nowhere (the field is gone), and nothing fails (the suite
    fails on any logged error, as the filter's "swipe filter failed" was)."""
    import shiboken6
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    catcher = _catcher(qapp)
    try:
        field = QLineEdit()
        field.show()
        field.setFocus()
        qtbot.keyClicks(field, "pay; identity")  # held from ';' on
        field.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assert not shiboken6.isValid(field)
        other = QLineEdit()
        qtbot.addWidget(other)
        other.show()
        other.setFocus()
        qtbot.wait(400)  # past the hold: the held keys are given back (to no one)
        qtbot.keyClicks(other, "ok", delay=120)
        assert other.text() == "ok"
    finally:
        qapp.removeEventFilter(catcher)
