"""A card swipe as a keyboard-wedge reader types it: every character a few ms after the last by
the window system's clock (the key events' timestamps), which is what the swipe catcher
(gui/common/swipe.py) measures.  ``qtbot.keyClicks`` sends events without a timestamp, so the
catcher then falls back to when the GUI thread handled them, and a loaded test machine (a
collection, another process) split such "swipes" into typing."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

READER_GAP_MS = 4
_last = [0]  # the last timestamp sent (ms): every swipe comes after the one before


def type_swipe(widget: QWidget, swipe: str) -> None:
    """Send ``swipe`` and Enter to ``widget`` at reader speed (through the application's event
    filters, as real key events go)."""
    stamp = max(_last[0], int(time.monotonic() * 1000))
    for ch in swipe + "\r":
        stamp += READER_GAP_MS
        enter = ch == "\r"
        key = Qt.Key.Key_Return if enter else Qt.Key.Key_unknown
        for etype in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            ev = QKeyEvent(etype, key, Qt.KeyboardModifier.NoModifier, "" if enter else ch)
            ev.setTimestamp(stamp)
            QApplication.sendEvent(widget, ev)
    _last[0] = stamp + READER_GAP_MS


def type_pin(widget: QWidget, pin: str) -> None:
    """Type ``pin`` and Enter into the swipe prompt's PIN field, as a person does (digits are
    not a track: the swipe catcher lets them through)."""
    field = widget.findChild(QWidget, "pin")
    assert field is not None and field.isVisible(), "the prompt is not asking for a PIN"
    for ch in pin + "\r":
        enter = ch == "\r"
        key = Qt.Key.Key_Return if enter else Qt.Key.Key_unknown
        for etype in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(field, QKeyEvent(etype, key, Qt.KeyboardModifier.NoModifier,
                                                    "" if enter else ch))
