"""Ledger work off the GUI thread: the one bridge every screen uses.

In the spirit of Anki's ``QueryOp`` / ``CollectionOp`` and Electrum's ``qt_event_listener``:

- :meth:`Bridge.query` runs a read on a worker thread and hands the result (or the error) to a
  callback on the GUI thread.  With a ``key``, queries coalesce: while one with that key runs, a
  new request only replaces the one to run when it finishes (the latest request wins; those in
  between are dropped).
- :meth:`Bridge.compute` runs a long computation that reads no ledger (counting every hand,
  a Monte Carlo of the meters) on its own threads, so it never holds up the ledger's reads.
- :meth:`Bridge.op` runs a write (pay, reject, adjust, a swipe's action) on the single ops
  thread, so decisions never interleave, and reports back on the GUI thread.
- :meth:`Bridge.listen` turns the floor's announcements (made on the committing thread) into
  calls on the GUI thread; it returns a function that removes the listener, and removes it by
  itself when its owner (below) is destroyed.

One rule for every answer (a query's, an op's, a computation's, an announcement): it is handed
to its handler only while the handler's OWNER exists.  The owner is the ``owner=`` given, else
the Qt object whose method the handler is (``self._show``: ``self``).  A widget destroyed while
its work ran (a closed dialog deleted, a tab's panel replaced) never gets the answer: the
handler is dropped, not called on a deleted C++ object; a keyed query of a destroyed owner is
not run again.  The work itself always runs once submitted (a pay is recorded whether or not
its dialog is still there).  A handler that must run whatever becomes of the widget (a frozen
amount given back as a dialog closes) is a plain function with no owner.

Typed: ``query(fn, on_done)`` checks (mypy) that ``on_done`` takes what ``fn`` returns, and
``listen(subscribe, handler)`` that ``handler`` takes what the announcer announces.

Whatever may hold a Qt object (the callables, the handlers) stays in the bridge on the GUI thread
and is let go of there: PySide deletes a widget from the thread that drops its last reference,
and a widget deleted from a worker thread deadlocks Qt (seen: a closed window's bound method
released by a worker after its answer was delivered).

The GUI thread never waits on the database: widgets paint from what these deliver.
"""

from __future__ import annotations

import itertools
import logging
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Signal

log = logging.getLogger("podium.gui.bridge")

T = TypeVar("T")  # what a query or op returns, and its handler takes
C = TypeVar("C")  # what an announcer announces, and its handler takes

# Inside the bridge the result types are erased (one dict holds every pending query); the
# public methods below tie each handler to its work's type.
Done = Callable[[Any], object]
Failed = Callable[[BaseException], object]
Unsubscribe = Callable[[], None]


def owner_of(handler: Callable[..., object], owner: QObject | None = None) -> QObject | None:
    """Whose answer it is: ``owner`` when given, else the Qt object whose bound method
    ``handler`` is (None: a plain function, an answer for nobody in particular)."""
    if owner is not None:
        return owner
    target = getattr(handler, "__self__", None)
    return target if isinstance(target, QObject) else None


def gone(owner: QObject | None) -> bool:
    """The owner's Qt object was destroyed (its answers are dropped)."""
    return owner is not None and not shiboken6.isValid(owner)


class Bridge(QObject):
    # (kind, token, payload) to the GUI thread: ("done", query/op token, (result, error, trace))
    # or ("change", listener token, the change)
    _deliver = Signal(object)

    def __init__(self, parent: QObject | None = None, *, readers: int = 2) -> None:
        super().__init__(parent)
        self._reads = ThreadPoolExecutor(readers, thread_name_prefix="podium-gui-read")
        self._ops = ThreadPoolExecutor(1, thread_name_prefix="podium-gui-op")
        self._computes = ThreadPoolExecutor(2, thread_name_prefix="podium-gui-compute")
        self._deliver.connect(self._on_deliver)
        # Everything that may hold a Qt object (the work's callable, the handlers) is kept
        # HERE, on the GUI thread, and let go of here: a worker thread never holds the last
        # reference to a widget (PySide would then delete it from that thread).
        self._pending: dict[int, tuple[Callable[[], Any], Done, Failed | None, str | None,
                                       QObject | None]] = {}
        self._handlers: dict[int, tuple[Callable[[Any], object], QObject | None]] = {}
        self._computing: set[int] = set()  # tokens of computations (not counted as busy)
        self._tokens = itertools.count(1)
        # key -> the latest request made while one with that key runs (present: running)
        self._keys: dict[str, tuple[Callable[[], Any], Done, Failed | None,
                                    QObject | None] | None] = {}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def busy(self) -> int:
        """Queries and ops submitted and not yet delivered (computations, which may take
        seconds and read no ledger, are not counted)."""
        return len(self._pending) - len(self._computing)

    @property
    def pending(self) -> int:
        """Everything submitted and not yet delivered, computations included (tests)."""
        return len(self._pending)

    # -- GUI-thread side ------------------------------------------------------------------------
    def _on_deliver(self, message: tuple[str, int, Any]) -> None:
        kind, token, payload = message
        try:
            if kind == "change":
                listener = self._handlers.get(token)
                if listener is not None and not gone(listener[1]):
                    listener[0](payload)
                return
            fn, on_done, on_error, key, owner = self._pending.pop(token)
            self._computing.discard(token)
            result, error, trace = payload
            rerun = None
            if key is not None:
                with self._lock:
                    rerun = self._keys.pop(key, None)
            if gone(owner):
                log.debug("an answer for a destroyed %s dropped", type(owner).__name__)
            elif error is None:
                on_done(result)
            elif on_error is not None:
                on_error(error)
            else:
                log.error("background work failed: %s\n%s", error, trace)
            if rerun is not None:
                self.query(*rerun[:3], key=key, owner=rerun[3])
        except Exception:
            log.exception("a result handler failed on the GUI thread")

    # -- work -------------------------------------------------------------------------------------
    def query(self, fn: Callable[[], T], on_done: Callable[[T], object],
              on_error: Failed | None = None, *, key: str | None = None,
              owner: QObject | None = None) -> None:
        """Run the read ``fn()`` off the GUI thread; ``on_done(result)`` on the GUI thread
        while its owner exists (the module's rule).  A read for an owner already destroyed
        is not run."""
        owner = owner_of(on_done, owner)
        if gone(owner):
            return
        if key is not None:
            with self._lock:
                if key in self._keys:  # run when the running one ends
                    self._keys[key] = (fn, on_done, on_error, owner)
                    return
                self._keys[key] = None
        self._submit(self._reads, fn, on_done, on_error, key, owner)

    def op(self, fn: Callable[[], T], on_done: Callable[[T], object],
           on_error: Failed | None = None, *, owner: QObject | None = None) -> None:
        """Run the write ``fn()`` on the ops thread; ``on_done(result)`` on the GUI thread
        while its owner exists (the write itself always runs)."""
        self._submit(self._ops, fn, on_done, on_error, None, owner_of(on_done, owner))

    def compute(self, fn: Callable[[], T], on_done: Callable[[T], object],
                on_error: Failed | None = None, *, owner: QObject | None = None) -> None:
        """Run the computation ``fn()`` (no ledger: counts, simulations) on a compute thread;
        ``on_done(result)`` on the GUI thread while its owner exists."""
        self._submit(self._computes, fn, on_done, on_error, None, owner_of(on_done, owner))

    def _submit(self, pool: ThreadPoolExecutor, fn: Callable[[], Any], on_done: Done,
                on_error: Failed | None, key: str | None, owner: QObject | None) -> None:
        if self._closed:
            return
        token = next(self._tokens)
        self._pending[token] = (fn, on_done, on_error, key, owner)
        if pool is self._computes:
            self._computing.add(token)
        try:
            pool.submit(self._work, token, [fn])
        except RuntimeError:  # shut down
            del self._pending[token]
            self._computing.discard(token)

    def _work(self, token: int, box: list[Callable[[], Any]]) -> None:
        """On a worker thread: run the callable and let go of it BEFORE answering."""
        f = box.pop()
        trace = ""
        try:
            result, error = f(), None
        except BaseException as exc:  # delivered to on_error on the GUI thread
            result, error = None, exc
            trace = "".join(traceback.format_exception(exc))
            exc.__traceback__ = None  # its frames may hold widgets
        del f
        if not self._closed:
            self._deliver.emit(("done", token, (result, error, trace)))

    # -- listening --------------------------------------------------------------------------------
    def listen(self, subscribe: Callable[[Callable[[C], None]], Unsubscribe],
               handler: Callable[[C], object], *, owner: QObject | None = None) -> Unsubscribe:
        """``subscribe(fn)`` registers ``fn`` with a core announcer (``Floor.add_listener``)
        and returns its remover; ``handler(change)`` then runs on the GUI thread.  The returned
        function removes both (calling it again does nothing).  Both are also removed when
        the handler's owner (the module's rule) is destroyed: a widget's listener goes with
        the widget."""
        owner = owner_of(handler, owner)
        token = next(self._tokens)
        self._handlers[token] = (handler, owner)
        deliver = self._deliver

        def announce(change: C) -> None:  # on the committing thread: holds no widget
            if not self._closed:
                deliver.emit(("change", token, change))

        remove_core = subscribe(announce)
        removed = False

        def remove(*_: object) -> None:  # holds no widget either (owner.destroyed calls it)
            nonlocal removed
            if removed:
                return
            removed = True
            remove_core()
            self._handlers.pop(token, None)

        if owner is not None:
            owner.destroyed.connect(remove)
        return remove

    @property
    def listening(self) -> int:
        """Listeners registered and not removed (tests)."""
        return len(self._handlers)

    def shutdown(self) -> None:
        """Stop taking work; wait for what runs (a pay in progress finishes)."""
        self._closed = True
        self._ops.shutdown(wait=True)
        self._reads.shutdown(wait=True, cancel_futures=True)
        # a computation holds no ledger: it is not waited for (its answer is dropped)
        self._computes.shutdown(wait=False, cancel_futures=True)

    def wait_idle(self, timeout_ms: int = 5000) -> bool:
        """Process events until no query or op is pending (tests, benchmarks)."""
        import time

        deadline = time.monotonic() + timeout_ms / 1000
        while self.busy and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.001)
        return not self.busy


_default: Bridge | None = None


def default_bridge() -> Bridge:
    """The application's bridge (made on first use, parented to the QApplication, whose
    garbage is then collected on the GUI thread only: gui/common/collector.py)."""
    global _default
    if _default is None or _default._closed:  # (a new one after the application quit)
        app = QCoreApplication.instance()
        _default = Bridge(app)
        if app is not None:
            from gui.common import collector

            collector.install(app)
            app.aboutToQuit.connect(_default.shutdown)
    return _default
