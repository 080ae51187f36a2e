"""Test steps run inside a modal dialog's event loop, that FAIL instead of hanging.

A modal dialog (``dlg.exec()``, a swipe prompt) blocks the test until it closes; what the test
does meanwhile runs from timers.  An assertion or ``qtbot.waitUntil`` failing in such a step
would leave the dialog open, and the test hung in its loop.  Here a step that raises closes
every modal dialog (and keeps closing any that opens after), the failure is recorded, and it
is re-raised when the blocking call returns; a watchdog does the same when the dialogs are
still open ``timeout`` seconds later::

    def test_...(qtbot, modal_steps):
        def in_dialog() -> None:
            dlg = QApplication.activeModalWidget()
            assert ...
            modal_steps.on_dialog(SwipePrompt, in_prompt)  # the next step, once it is on top
            dlg.pay_btn.click()  # opens the prompt (modal)

        with modal_steps.running():
            modal_steps.on_dialog(VerifyDialog, in_dialog)
            window.open_selected_hit()  # blocks until the dialog closes
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QWidget

DEFAULT_TIMEOUT_S = 60.0


def close_modals() -> int:
    """Close every modal dialog open now (the innermost first); how many were closed."""
    closed = 0
    while (w := QApplication.activeModalWidget()) is not None and closed < 50:
        if isinstance(w, QDialog):
            w.reject()
        else:
            w.close()
        if QApplication.activeModalWidget() is w:  # would not close: hide it
            w.hide()
        closed += 1
    return closed


class ModalSteps:
    """Steps of one test run from timers while a modal dialog blocks it (see the module)."""

    def __init__(self) -> None:
        self.failures: list[BaseException] = []
        self._closer: QTimer | None = None
        self._watchdog: QTimer | None = None

    # -- steps ---------------------------------------------------------------------------------
    def step(self, fn: Callable[..., Any], *args: Any) -> Callable[[], None]:
        """``fn(*args)`` wrapped: a failure is recorded and closes every modal dialog."""
        def run() -> None:
            if self.failures:  # failed already: the dialogs are being closed, nothing more runs
                return
            try:
                fn(*args)
            except BaseException as exc:  # noqa: BLE001 - re-raised by check()
                self.fail(exc)
        return run

    def later(self, ms: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` as a step after ``ms`` milliseconds (QTimer.singleShot)."""
        QTimer.singleShot(ms, self.step(fn, *args))

    def when(self, ready: Callable[[], Any], fn: Callable[..., Any], *args: Any,
             timeout: float = 10.0, what: str = "", poll_ms: int = 20) -> None:
        """Run ``fn(*args)`` as a step once ``ready()`` is true (polled from a timer, never
        waited for: a step runs inside a dialog's event loop, which returns only when the step
        does); a failure after ``timeout`` seconds."""
        self.once(ready, lambda _it: fn(*args), what, timeout=timeout, poll_ms=poll_ms)

    def on_dialog(self, kind: type[QWidget], fn: Callable[..., Any], *args: Any,
                  timeout: float = 10.0) -> None:
        """Run ``fn(*args)`` as a step once a ``kind`` dialog is the modal dialog on top (it
        may open a moment after the click that asks for it: a worker answers first)."""
        def ready() -> bool:
            w = QApplication.activeModalWidget()
            return isinstance(w, kind) and w.isVisible()

        self.when(ready, fn, *args, timeout=timeout, what=f"a {kind.__name__} dialog")

    def once(self, check: Callable[[], Any], then: Callable[[Any], Any], what: str = "", *,
             timeout: float = 10.0, poll_ms: int = 20) -> None:
        """Poll ``check()`` from a timer until it gives something, then ``then(it)`` as a
        step; a failure after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout

        def poll() -> None:
            it = check()
            if it:
                then(it)
            elif time.monotonic() > deadline:
                active = QApplication.activeModalWidget()
                raise AssertionError(f"timed out after {timeout}s waiting for "
                                     f"{what or 'the condition'} (active dialog: {active!r})")
            else:
                self.later(poll_ms, poll)

        self.later(poll_ms, poll)

    # -- failing ---------------------------------------------------------------------------------
    def fail(self, exc: BaseException) -> None:
        """Record ``exc`` and close every modal dialog, now and while the test is blocked."""
        self.failures.append(exc)
        close_modals()
        if self._closer is None:
            self._closer = QTimer()
            self._closer.setInterval(50)
            self._closer.timeout.connect(close_modals)
            self._closer.start()

    def check(self) -> None:
        """Re-raise the first failure of a step (the others chained in its notes)."""
        self._stop_timers()
        if self.failures:
            first = self.failures[0]
            for other in self.failures[1:]:
                first.add_note(f"then: {other!r}")
            self.failures = []
            raise first

    @contextmanager
    def running(self, timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[ModalSteps]:
        """Around the call that blocks in a modal dialog: a watchdog closes the dialogs (and
        fails the test) after ``timeout`` seconds; a step's failure is re-raised at the end."""
        watchdog = QTimer()
        watchdog.setSingleShot(True)
        watchdog.timeout.connect(lambda: self.fail(TimeoutError(
            f"a modal dialog was still open after {timeout}s (active: "
            f"{QApplication.activeModalWidget()!r}): closed by the test's watchdog")))
        watchdog.start(int(timeout * 1000))
        self._watchdog = watchdog
        try:
            yield self
        finally:
            watchdog.stop()
            self._watchdog = None
        self.check()

    def _stop_timers(self) -> None:
        if self._closer is not None:
            self._closer.stop()
            self._closer.deleteLater()
            self._closer = None
        if self._watchdog is not None:
            self._watchdog.stop()


def active_modal() -> QWidget | None:
    """The modal dialog on top now (None when none is open)."""
    return QApplication.activeModalWidget()
