"""Ledger work off the GUI thread: the one bridge every screen uses.

In the spirit of Anki's ``QueryOp`` / ``CollectionOp`` and Electrum's ``qt_event_listener``:

- :meth:`Bridge.query` runs a read on a worker thread and hands the result (or the error) to a
  callback on the GUI thread.  With a ``key``, queries coalesce: while one with that key runs, a
  new request only marks it to run once more when it finishes (the latest state wins).
- :meth:`Bridge.op` runs a write (pay, reject, adjust, a swipe's action) on the single ops
  thread, so decisions never interleave, and reports back on the GUI thread.
- :meth:`Bridge.listen` turns the floor's announcements (made on the committing thread) into
  calls on the GUI thread; it returns a function that removes the listener.

The GUI thread never waits on the database: widgets paint from what these deliver.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

log = logging.getLogger("podium.gui.bridge")

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


class Bridge(QObject):
    _deliver = Signal(object)  # a zero-argument callable to run on the GUI thread

    def __init__(self, parent: QObject | None = None, *, readers: int = 2) -> None:
        super().__init__(parent)
        self._reads = ThreadPoolExecutor(readers, thread_name_prefix="podium-gui-read")
        self._ops = ThreadPoolExecutor(1, thread_name_prefix="podium-gui-op")
        self._deliver.connect(self._run_here)
        self._keys: dict[str, bool] = {}  # key -> rerun wanted (present: running)
        self._lock = threading.Lock()
        self._closed = False
        self._busy = 0

    # -- GUI-thread side ------------------------------------------------------------------------
    def _run_here(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:
            log.exception("a result handler failed on the GUI thread")

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the GUI thread (from any thread)."""
        if not self._closed:
            self._deliver.emit(fn)

    @property
    def busy(self) -> int:
        """Queries and ops submitted and not yet delivered."""
        return self._busy

    # -- work -------------------------------------------------------------------------------------
    def query(self, fn: Callable[[], Any], on_done: Done, on_error: Failed | None = None, *,
              key: str | None = None) -> None:
        """Run the read ``fn()`` off the GUI thread; ``on_done(result)`` on the GUI thread."""
        if key is not None:
            with self._lock:
                if key in self._keys:
                    self._keys[key] = True  # run once more when the running one finishes
                    return
                self._keys[key] = False
        self._submit(self._reads, fn, on_done, on_error, key)

    def op(self, fn: Callable[[], Any], on_done: Done, on_error: Failed | None = None) -> None:
        """Run the write ``fn()`` on the ops thread; ``on_done(result)`` on the GUI thread."""
        self._submit(self._ops, fn, on_done, on_error, None)

    def _submit(self, pool: ThreadPoolExecutor, fn: Callable[[], Any], on_done: Done,
                on_error: Failed | None, key: str | None) -> None:
        if self._closed:
            return
        self._busy += 1

        def work() -> None:
            try:
                result = fn()
            except BaseException as exc:  # delivered to on_error on the GUI thread
                error: BaseException | None = exc
                result = None
            else:
                error = None

            def back() -> None:
                self._busy -= 1
                rerun = False
                if key is not None:
                    with self._lock:
                        rerun = self._keys.pop(key, False)
                if error is None:
                    on_done(result)
                elif on_error is not None:
                    on_error(error)
                else:
                    log.error("background work failed: %s", error, exc_info=error)
                if rerun:
                    self.query(fn, on_done, on_error, key=key)

            self.call_soon(back)

        try:
            pool.submit(work)
        except RuntimeError:  # shut down
            self._busy -= 1

    # -- listening --------------------------------------------------------------------------------
    def listen(self, subscribe: Callable[[Callable[[Any], None]], Callable[[], None]],
               handler: Callable[[Any], None]) -> Callable[[], None]:
        """``subscribe(fn)`` registers ``fn`` with a core announcer (``Floor.add_listener``)
        and returns its remover; ``handler(change)`` then runs on the GUI thread."""
        return subscribe(lambda change: self.call_soon(lambda: handler(change)))

    def shutdown(self) -> None:
        """Stop taking work; wait for what runs (a pay in progress finishes)."""
        self._closed = True
        self._ops.shutdown(wait=True)
        self._reads.shutdown(wait=True, cancel_futures=True)

    def wait_idle(self, timeout_ms: int = 5000) -> bool:
        """Process events until nothing is pending (tests, benchmarks)."""
        import time

        deadline = time.monotonic() + timeout_ms / 1000
        while self._busy and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.001)
        return self._busy == 0


_default: Bridge | None = None


def default_bridge() -> Bridge:
    """The application's bridge (made on first use, parented to the QApplication)."""
    global _default
    if _default is None or _default._closed:  # (a new one after the application quit)
        app = QCoreApplication.instance()
        _default = Bridge(app)
        if app is not None:
            app.aboutToQuit.connect(_default.shutdown)
    return _default
