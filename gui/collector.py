"""Python's garbage collector runs on the GUI thread only.

The console reads the ledger on worker threads (gui/bridge.py).  Left to itself, Python's cyclic
garbage collector runs on whichever thread happens to allocate when a generation fills up, and a
cycle that holds a Qt widget (a closed dialog and a lambda that refers to it) is then destroyed on
a worker thread: Qt's object mutexes deadlock the console (seen: a reader thread collecting an old
print preview while the GUI thread built a tab).  As Anki does (``aqt.main.GarbageCollector``), the
automatic collector is turned off and a timer on the GUI thread collects each generation once it
is over its threshold.  Reference counting still frees everything that is not in a cycle, at once
and on any thread.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000


class GuiThreadCollector(QObject):
    """Turns automatic collection off and collects from a GUI-thread timer instead."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        gc.collect()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(INTERVAL_MS)
        parent.destroyed.connect(lambda *_: gc.enable())

    @staticmethod
    def check() -> None:
        """Collect the oldest generation that is over its threshold (on the GUI thread)."""
        counts = gc.get_count()
        thresholds = gc.get_threshold()
        for generation in (2, 1, 0):
            if counts[generation] > thresholds[generation]:
                gc.collect(generation)
                return


_installed: GuiThreadCollector | None = None


def install(app: QObject) -> GuiThreadCollector:
    """Install the collector on the application (once; the same one after)."""
    global _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
    return _installed
