"""The application-wide swipe catcher: a reader's burst never lands in a text field."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from gui.swipe import SwipeCatcher

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
