"""The console's picture of the floor (gui/tablegames/model.py FloorState) kept from the core's
announcements, and the bridge that runs ledger work off the GUI thread (gui/common/bridge.py)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from PySide6.QtCore import QCoreApplication, QThread

from core.tablegames.views import (
    FloorChange,
    FloorSnapshot,
    LevelView,
    PendingHitView,
    TableView,
)
from gui.common.bridge import Bridge
from gui.tablegames.model import FloorState

NOW = datetime(2026, 12, 3, 4, 0, tzinfo=UTC)


def table(tid: str, round_no: int, state: str, online: bool = True) -> TableView:
    return TableView(tid, tid, "LINK", "FPGPP-WA01", online, round_no, state, 0)


def level(meter: int, version: int) -> LevelView:
    return LevelView("LINK", "MAIN", meter, 0, version)


def hit(hit_id: int) -> PendingHitView:
    return PendingHitView(hit_id, "T1", 3, 1, 100, "STRAIGHT_FLUSH", (), (), NOW, 0.0, None)


def snapshot(*, tables: tuple[TableView, ...] = (), levels: tuple[LevelView, ...] = (),
             pending: tuple[PendingHitView, ...] = ()) -> FloorSnapshot:
    return FloorSnapshot(NOW, tables, levels, pending)


def test_changes_before_the_first_read_are_kept_and_applied_after_it() -> None:
    state = FloorState()
    early = FloorChange("event", table_views=(table("T1", 2, "locked"),),
                        level_views=(level(1_500, 9),), pending=(hit(7),))
    assert state.apply(early).tables == set()  # not loaded yet: kept for later
    dirty = state.load(snapshot(tables=(table("T1", 1, "ended"),), levels=(level(1_000, 5),)))
    assert dirty.everything
    assert state.tables["T1"].round_no == 2  # the change came after what the read saw
    assert state.levels[("LINK", "MAIN")].meter_units == 1_500
    assert set(state.pending) == {7}


def test_an_older_level_view_never_replaces_a_newer_one() -> None:
    state = FloorState()
    state.load(snapshot(levels=(level(1_000, 5),)))
    assert state.apply(FloorChange("event", level_views=(level(2_000, 8),))).levels
    stale = state.apply(FloorChange("event", level_views=(level(1_200, 6),)))
    assert stale.levels == set() and state.levels[("LINK", "MAIN")].meter_units == 2_000
    # a full read taken before the newer change does not undo it either
    state.load(snapshot(levels=(level(1_000, 5),)))
    assert state.levels[("LINK", "MAIN")].meter_units == 2_000


def test_a_decided_hit_never_comes_back_to_the_queue() -> None:
    state = FloorState()
    state.load(snapshot())
    state.apply(FloorChange("event", pending=(hit(4),)))
    assert set(state.pending) == {4}
    assert state.apply(FloorChange("pay", closed=frozenset({4}))).hits
    assert state.pending == {}
    state.apply(FloorChange("event", pending=(hit(4),)))  # a late, older announcement
    state.load(snapshot(pending=(hit(4),)))  # a read taken before the pay
    assert state.pending == {}


def test_a_query_runs_off_the_gui_thread_and_answers_on_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    bridge = Bridge()
    seen: dict[str, object] = {}

    def work() -> int:
        seen["worker"] = QThread.currentThread() is QCoreApplication.instance().thread()
        return 42

    def done(value: int) -> None:
        seen["value"] = value
        seen["gui"] = QThread.currentThread() is QCoreApplication.instance().thread()

    bridge.query(work, done)
    qtbot.waitUntil(lambda: "value" in seen, timeout=10000)
    assert seen == {"worker": False, "value": 42, "gui": True}
    bridge.shutdown()


def test_queries_with_one_key_coalesce_to_one_more_run(qtbot) -> None:  # type: ignore[no-untyped-def]
    bridge = Bridge()
    gate = threading.Event()
    runs: list[int] = []
    answers: list[int] = []

    def work() -> int:
        gate.wait(2)
        runs.append(1)
        return len(runs)

    for _ in range(5):  # one runs, the other four ask for one more run
        bridge.query(work, answers.append, key="snapshot")
    gate.set()
    qtbot.waitUntil(lambda: bridge.busy == 0 and len(answers) == 2, timeout=10000)
    assert len(runs) == 2 and answers == [1, 2]
    bridge.shutdown()


def test_of_coalesced_queries_the_latest_request_is_the_one_run_next(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A selection changed three times while a read runs: the read run next is the third
    one's (the case now selected), not the first one's again."""
    bridge = Bridge()
    gate = threading.Event()
    shown: list[str] = []

    def read(case: str) -> str:
        gate.wait(2)
        return case

    for case in ("case 1", "case 2", "case 3"):
        bridge.query(lambda case=case: read(case), shown.append, key="slip-prints")
    gate.set()
    qtbot.waitUntil(lambda: bridge.busy == 0 and len(shown) == 2, timeout=10000)
    assert shown == ["case 1", "case 3"]
    bridge.shutdown()


def test_a_failed_op_reaches_its_error_handler_and_a_removed_listener_hears_nothing(
        qtbot) -> None:  # type: ignore[no-untyped-def]
    bridge = Bridge()
    errors: list[BaseException] = []

    def fails() -> None:
        raise ValueError("hit #3: already paid")

    bridge.op(fails, lambda _v: None, errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=10000)
    assert str(errors[0]) == "hit #3: already paid"

    listeners: list[object] = []

    def subscribe(fn):  # type: ignore[no-untyped-def]
        listeners.append(fn)
        return lambda: listeners.remove(fn)

    heard: list[object] = []
    remove = bridge.listen(subscribe, heard.append)
    threading.Thread(target=lambda: listeners[0]("change 1")).start()
    qtbot.waitUntil(lambda: heard == ["change 1"], timeout=10000)
    remove()
    assert listeners == []
    bridge.shutdown()


def test_a_computation_runs_on_its_own_threads_beside_a_blocked_read(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A long count never holds up the ledger's reads, nor they it."""
    bridge = Bridge(readers=1)
    gate = threading.Event()
    seen: list[str] = []
    names: list[str] = []

    def count() -> str:
        names.append(threading.current_thread().name)
        return "counted"

    bridge.query(lambda: gate.wait(10), lambda _ok: seen.append("read"))  # the only reader
    bridge.compute(count, seen.append)
    qtbot.waitUntil(lambda: seen == ["counted"], timeout=10000)
    assert names[0].startswith("podium-gui-compute")
    gate.set()
    qtbot.waitUntil(lambda: seen == ["counted", "read"], timeout=10000)
    bridge.shutdown()


def test_a_running_computation_is_not_counted_as_busy(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Waiting for the ledger's reads (a test, a screenshot) never waits for a count."""
    bridge = Bridge()
    gate = threading.Event()
    got: list[bool] = []
    bridge.compute(lambda: gate.wait(10), got.append)
    assert bridge.busy == 0 and bridge.wait_idle(100)
    gate.set()
    qtbot.waitUntil(lambda: got == [True], timeout=10000)
    bridge.shutdown()


def test_a_listener_goes_with_its_owner_widget(qtbot) -> None:  # type: ignore[no-untyped-def]
    import shiboken6
    from PySide6.QtWidgets import QWidget

    bridge = Bridge()
    listeners: list[object] = []

    def subscribe(fn):  # type: ignore[no-untyped-def]
        listeners.append(fn)
        return lambda: listeners.remove(fn)

    owner = QWidget()
    remove = bridge.listen(subscribe, lambda _change: None, owner=owner)
    assert len(listeners) == 1 and bridge.listening == 1
    shiboken6.delete(owner)
    assert listeners == [] and bridge.listening == 0
    remove()  # once removed, removing again does nothing
    assert listeners == []
    bridge.shutdown()


def test_a_tile_follows_this_consoles_own_link_at_once() -> None:
    """Another podium on the shared ledger wrote OFFLINE (or the writer has not yet written
    ONLINE): the tile shows what this console's own link says, and why it is down."""
    from types import SimpleNamespace

    from core.floorconfig import load_demo_floor
    from gui.tablegames.model import table_view

    console = SimpleNamespace(config=load_demo_floor())
    ledger_says_offline = TableView("PG-1", "Pai Gow 1", "WA01", "FPGPP-WA01", False, 4,
                                    "locked", 0)
    up = table_view(console, ledger_says_offline, {"PG-1": (True, "Nexus boot b1")})
    assert up.online is True and up.detail == ""
    ledger_says_online = TableView("PG-1", "Pai Gow 1", "WA01", "FPGPP-WA01", True, 4,
                                   "locked", 0)
    down = table_view(console, ledger_says_online, {"PG-1": (False, "connection refused")})
    assert down.online is False and down.detail == "connection refused"
    # no link at all (a tool without links): the ledger's flag
    assert table_view(console, ledger_says_online, {}).online is True
