"""Card-swipe capture.

A keyboard-wedge magnetic reader "types" its track data very fast (a character every few ms)
and ends with Enter.  :class:`SwipeCatcher` is an application-wide event filter that recognises
that burst (it starts with a track sentinel ``%`` or ``;``), swallows it so it never lands in a
text field, and emits :attr:`SwipeCatcher.swiped` with the raw data.  A person who types ``%``
by hand is slower than the gap limit: the held keys are then replayed, in order, to the widget
they were meant for.  So is a fast burst that is not a well-formed track (ISO/IEC 7813 track 1
and/or track 2, each with its end sentinel, then Enter): a reject reason typed quickly, "no wager
on seat 3; dealer pressed ...", reaches its field whole.

Raw track data is never logged.  The filter is exception-safe: an exception escaping an event
filter can crash PySide6.
"""

from __future__ import annotations

import logging
import re
import time
import weakref

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

log = logging.getLogger("podium.gui.swipe")

START_SENTINELS = ("%", ";")
MAX_GAP_S = 0.060  # a wedge reader types a character every few ms; people take ~100 ms
MAX_LENGTH = 256
# Held keys with no next key for this long are given back (a person typed a sentinel).  Longer
# than MAX_GAP_S so that a GUI thread that was busy for a moment does not split a swipe.
HOLD_MS = 250
# One or both tracks, complete: track 1 "%B<number>^<name>^<data>?" (or "%E?", a failed read),
# then track 2 ";<number>=<data>?" (or ";E?").  Anything else is typing.
WELL_FORMED = re.compile(r"(?:%(?:B\d{1,19}\^[^^?%;]*\^[^?%;]*|E)\?)?"
                         r"(?:;(?:\d{1,19}=[^?%;]*|E)\?)?")


def well_formed(data: str) -> bool:
    """Whether a burst is card track data (and not fast typing that began with % or ;)."""
    return bool(data) and WELL_FORMED.fullmatch(data) is not None


class SwipeCatcher(QObject):
    swiped = Signal(str)

    def __init__(self, parent: QObject | None = None, max_gap_s: float = MAX_GAP_S) -> None:
        super().__init__(parent)
        self._max_gap = max_gap_s
        self._buffering = False
        self._text: list[str] = []
        self._held: list[tuple[weakref.ref[QWidget], int, Qt.KeyboardModifier, str]] = []
        self._last = 0.0
        self._last_stamped = False
        self._last_handled = 0.0
        self._replaying = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_gap)

    def install(self, app: QApplication) -> None:
        app.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        try:
            return self._filter(obj, event)
        except Exception:  # never let an exception escape an event filter
            log.exception("swipe filter failed; key passed through")
            return False

    def _filter(self, obj: QObject, event: QEvent) -> bool:
        etype = event.type()
        if etype == QEvent.Type.MouseButtonPress and self._buffering and not self._replaying:
            # a click right after fast typing: the held keys reach their field first
            self._replay()
            return False
        if etype not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            return False
        if self._replaying or not isinstance(obj, QWidget):
            return False
        if etype == QEvent.Type.KeyRelease:
            return self._buffering
        assert isinstance(event, QKeyEvent)
        # The gap between keys is measured by when the keys were TYPED (the window system's
        # event timestamp, ms) so that a busy GUI thread mid-swipe does not split a swipe;
        # synthetic events (tests) carry no timestamp: then by when they are handled.
        stamp = event.timestamp()
        now = stamp / 1000 if stamp else time.monotonic()
        text = event.text()
        if not self._buffering:
            if text in START_SENTINELS:
                self._buffering = True
                self._text = [text]
                self._held = [(weakref.ref(obj), event.key(), event.modifiers(), text)]
                self._mark(now, stamp)
                self._timer.start(HOLD_MS)
                return True
            return False
        if stamp and self._last_stamped:
            gap = now - self._last
        else:
            gap = time.monotonic() - self._last_handled
        if gap > self._max_gap:
            # Too slow for a reader: give the held keys back, then let this one through.
            self._replay()
            return False
        self._mark(now, stamp)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            data = "".join(self._text)
            if not well_formed(data):
                # fast typing, not a card: the keys go back to their field, then this Enter
                self._replay()
                return False
            self._reset()
            QTimer.singleShot(0, lambda: self.swiped.emit(data))
            return True
        self._text.append(text)
        self._held.append((weakref.ref(obj), event.key(), event.modifiers(), text))
        if len(self._text) > MAX_LENGTH:
            self._replay()  # longer than any card's tracks: typing (or a paste) after all
        else:
            self._timer.start(HOLD_MS)
        return True

    def _mark(self, now: float, stamp: int) -> None:
        self._last = now
        self._last_stamped = stamp > 0
        self._last_handled = time.monotonic()

    def _reset(self) -> None:
        self._timer.stop()
        self._buffering = False
        self._text = []
        self._held = []

    def _on_gap(self) -> None:
        try:
            if self._buffering:
                self._replay()
        except Exception:
            log.exception("swipe replay failed")

    def _replay(self) -> None:
        held = self._held
        self._reset()
        self._replaying = True
        try:
            for ref, key, mods, text in held:
                widget = ref()
                if widget is None or not shiboken6.isValid(widget):
                    continue  # its window closed meanwhile (the keys were meant for it only)
                for etype in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                    QApplication.sendEvent(widget, QKeyEvent(etype, key, mods, text))
        finally:
            self._replaying = False
