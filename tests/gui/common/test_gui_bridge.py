"""gui/common/bridge.py's one rule: an answer (a query's, an op's, a computation's, an
announcement) reaches its handler only while the handler's owner exists: the ``owner=`` given,
else the widget whose method the handler is.  A widget destroyed while its work ran never gets
the answer (nothing is called on a deleted widget, nothing is logged as an error); the work
itself still runs; a keyed query waiting for a destroyed owner is not run; a live owner gets
every answer."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import shiboken6
from PySide6.QtWidgets import QWidget

from gui.common.bridge import Bridge

WAIT_S = 30


class Screen(QWidget):
    """A widget whose answers are written down in a list that outlives it."""

    def __init__(self, seen: list[Any]) -> None:
        super().__init__()
        self.seen = seen

    def got(self, result: Any) -> None:
        self.seen.append(result)

    def failed(self, exc: BaseException) -> None:
        self.seen.append(exc)


@pytest.fixture
def bridge(qapp: Any) -> Iterator[Bridge]:  # type: ignore[no-untyped-def]
    b = Bridge()
    yield b
    b.shutdown()


def _held(ran: list[str]) -> tuple[Callable[[], str], threading.Event]:
    """Work that waits until released (the widget is destroyed meanwhile)."""
    release = threading.Event()

    def work() -> str:
        assert release.wait(WAIT_S), "never released"
        ran.append("work")
        return "answer"

    return work, release


def _submit(bridge: Bridge, kind: str, work: Callable[[], str], screen: Screen,
            seen: list[Any], explicit: bool) -> None:
    on_done: Callable[[str], object]
    on_error: Callable[[BaseException], object]
    if explicit:  # closures: the owner is named
        on_done, on_error, owner = (lambda r: seen.append(r)), (lambda e: seen.append(e)), screen
    else:  # the widget's own methods: the owner is the widget
        on_done, on_error, owner = screen.got, screen.failed, None
    if kind == "query":
        bridge.query(work, on_done, on_error, owner=owner)
    elif kind == "op":
        bridge.op(work, on_done, on_error, owner=owner)
    else:
        bridge.compute(work, on_done, on_error, owner=owner)


@pytest.mark.parametrize("explicit", [False, True], ids=["method", "owner="])
@pytest.mark.parametrize("kind", ["query", "op", "compute"])
def test_an_answer_for_a_destroyed_widget_is_dropped(qtbot, bridge, kind, explicit) -> None:  # type: ignore[no-untyped-def]
    seen: list[Any] = []
    ran: list[str] = []
    screen = Screen(seen)
    work, release = _held(ran)
    _submit(bridge, kind, work, screen, seen, explicit)
    shiboken6.delete(screen)  # closed and deleted while its work runs
    release.set()
    qtbot.waitUntil(lambda: bridge.pending == 0, timeout=WAIT_S * 1000)
    assert ran == ["work"]  # the work ran (an op is a write: it is never dropped)
    assert seen == []  # the answer was not handed to the deleted widget


@pytest.mark.parametrize("explicit", [False, True], ids=["method", "owner="])
@pytest.mark.parametrize("kind", ["query", "op", "compute"])
def test_a_live_widget_gets_its_answer(qtbot, bridge, kind, explicit) -> None:  # type: ignore[no-untyped-def]
    seen: list[Any] = []
    screen = Screen(seen)
    qtbot.addWidget(screen)
    work, release = _held([])
    _submit(bridge, kind, work, screen, seen, explicit)
    release.set()
    qtbot.waitUntil(lambda: seen == ["answer"], timeout=WAIT_S * 1000)


def test_a_keyed_query_waiting_for_a_destroyed_widget_is_not_run(qtbot, bridge) -> None:  # type: ignore[no-untyped-def]
    seen: list[Any] = []
    ran: list[str] = []
    keeper = Screen(seen)  # the first asker stays
    qtbot.addWidget(keeper)
    gone = Screen(seen)
    work, release = _held(ran)
    bridge.query(work, keeper.got, key="k")
    bridge.query(lambda: ran.append("again") or "again", gone.got, key="k")  # waits its turn
    shiboken6.delete(gone)
    release.set()
    qtbot.waitUntil(lambda: bridge.pending == 0 and seen == ["answer"], timeout=WAIT_S * 1000)
    assert ran == ["work"]


class Announcer:
    """A core announcer (``Floor.add_listener``): announces on a thread of its own."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[Any], None]] = []

    def add_listener(self, fn: Callable[[Any], None]) -> Callable[[], None]:
        self.listeners.append(fn)
        return lambda: self.listeners.remove(fn)

    def announce(self, change: Any) -> None:
        t = threading.Thread(target=lambda: [fn(change) for fn in list(self.listeners)])
        t.start()
        t.join(WAIT_S)
        assert not t.is_alive()


@pytest.mark.parametrize("explicit", [False, True], ids=["method", "owner="])
def test_a_listener_goes_with_its_widget_and_a_change_already_on_its_way_is_dropped(  # type: ignore[no-untyped-def]
        qtbot, bridge, explicit) -> None:
    seen: list[Any] = []
    screen = Screen(seen)
    floor = Announcer()
    if explicit:
        bridge.listen(floor.add_listener, lambda c: seen.append(c), owner=screen)
    else:
        bridge.listen(floor.add_listener, screen.got)
    floor.announce("first")
    qtbot.waitUntil(lambda: seen == ["first"], timeout=WAIT_S * 1000)
    floor.announce("on its way")  # posted to the GUI thread, not yet delivered
    shiboken6.delete(screen)
    assert floor.listeners == [] and bridge.listening == 0  # removed with the widget
    floor.announce("after")  # announced to nobody
    sentinel: list[str] = []
    bridge.query(lambda: "flushed", sentinel.append)  # delivered after what was posted before
    qtbot.waitUntil(lambda: sentinel == ["flushed"], timeout=WAIT_S * 1000)
    assert seen == ["first"]
