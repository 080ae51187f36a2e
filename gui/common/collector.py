"""Python's garbage collector runs on the GUI thread only.

The console reads the ledger on worker threads (gui/common/bridge.py).  Left to itself, Python's
cyclic garbage collector runs on whichever thread happens to allocate when a generation fills up,
and a cycle that holds a Qt widget (a closed dialog and a lambda that refers to it) is then
destroyed on a worker thread: Qt's object mutexes deadlock the console (seen: a reader thread
collecting an old print preview while the GUI thread built a tab).  As Anki does
(``aqt.main.GarbageCollector``), the automatic collector is turned off and a timer on the GUI thread
collects instead.

The timer keeps the pauses short, because every collection holds the interpreter lock and so
stops the ledger writer and the links too (measured at 500 tables: collecting once a second
tripled the writer's tail):

- every ``INTERVAL_MS`` the young generation is collected once it is over its threshold (a few
  thousand objects: well under a millisecond), the middle one as Python would;
- the oldest generation only every ``FULL_EVERY_S`` seconds;
- once the console has started (``FREEZE_AFTER_MS``), what is alive then (configuration, models,
  widgets) is frozen out of every later collection (``gc.freeze``), so a full collection walks only
  what the floor made since.

Reference counting still frees everything that is not in a cycle, at once and on any thread.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 100
FULL_EVERY_S = 60.0
FREEZE_AFTER_MS = 15_000


class GuiThreadCollector(QObject):
    """Turns automatic collection off and collects from a GUI-thread timer instead."""

    def __init__(self, parent: QObject, *, freeze: bool = False) -> None:
        super().__init__(parent)
        gc.collect()
        gc.disable()
        self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(INTERVAL_MS)
        if freeze:  # the console (gui/app.py); not a test session, where windows come and go
            QTimer.singleShot(FREEZE_AFTER_MS, self.freeze)
        parent.destroyed.connect(lambda *_: gc.enable())

    @staticmethod
    def freeze() -> None:
        """Collect, then move everything alive now out of the collector's sight for good."""
        gc.collect()
        gc.freeze()

    def check(self) -> None:
        """Collect what is due (on the GUI thread)."""
        counts = gc.get_count()
        thresholds = gc.get_threshold()
        now = time.monotonic()
        if counts[2] > thresholds[2] and now - self._last_full >= FULL_EVERY_S:
            self._last_full = now
            gc.collect(2)
        elif counts[1] > thresholds[1]:
            gc.collect(1)
        elif counts[0] > thresholds[0]:
            gc.collect(0)


_installed: GuiThreadCollector | None = None


def install(app: QObject, *, freeze: bool = False) -> GuiThreadCollector:
    """Install the collector on the application (once; the same one after).  ``freeze``: the
    console's own process freezes what is alive once it has started."""
    global _installed
    if _installed is None:
        _installed = GuiThreadCollector(app, freeze=freeze)
    return _installed


def installed() -> GuiThreadCollector | None:
    return _installed
