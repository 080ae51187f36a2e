"""core/app/jackpot_lock.py on its own (no ledger, no controllers): the Jackpot Lock state of
each level follows the newest committed level view, the supervisor is told each change once, and
each linked table of the group hears the states in order, none held back by another."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from core.app.jackpot_lock import JackpotLock
from core.app.links import LinkLoop
from core.app.listeners import Listeners
from core.controllers.frames import JackpotState
from core.controllers.link import ControllerLink
from core.floorconfig import load_demo_floor
from core.tablegames.floor import Floor
from core.tablegames.views import FloorChange, LevelView
from tests.harness import wait_for


def _lock() -> tuple[JackpotLock, list[str]]:
    config = load_demo_floor()
    told = Listeners()
    said: list[str] = []
    told.add_message_listener(said.append)
    floor = cast(Floor, cast(Any, None))  # read only by reread(), not used here
    return JackpotLock(floor, config, LinkLoop(config, {}), told), said


def _level(version: int, frozen_cents: int = 0, frozen_hits: int = 0) -> LevelView:
    return LevelView("WA01", "MAIN", 1_000_000, 0, version, frozen_cents, frozen_hits)


def test_a_frozen_hit_makes_the_level_pending_and_its_release_clears_it() -> None:
    lock, said = _lock()
    lock.load([_level(1)])
    lock.on_change(FloorChange("freeze", level_views=(_level(2, 12_345, 1),)))
    st = lock.states()[("WA01", "MAIN")]
    assert (st.state, st.amount_cents, st.hits) == ("PENDING", 12_345, 1)
    lock.on_change(FloorChange("release", level_views=(_level(3),)))
    assert lock.states()[("WA01", "MAIN")].state == "CLEAR"
    assert said == ["WA01 MAIN: JACKPOT PENDING 123.45 frozen for 1 hit(s); the linked tables "
                    "keep playing", "WA01 MAIN: no jackpot pending"]


def test_an_older_level_view_arriving_late_changes_nothing() -> None:
    lock, said = _lock()
    lock.load([_level(5, 100, 1)])
    lock.on_change(FloorChange("late", level_views=(_level(4),)))
    assert lock.states()[("WA01", "MAIN")].state == "PENDING"
    assert said == []


def test_the_same_state_again_is_not_said_again() -> None:
    lock, said = _lock()
    lock.load([_level(1)])
    lock.on_change(FloorChange("meter", level_views=(_level(2),)))
    assert said == []


def test_a_table_is_told_the_states_of_its_own_group_only() -> None:
    lock, _said = _lock()
    lock.load([_level(1), LevelView("ML2", "MAIN", 0, 0, 1)])
    assert [st.group for st in lock.group_states("PG-1")] == ["WA01"]
    assert [st.group for st in lock.group_states("PG-4")] == ["ML2"]
    assert lock.group_states("NOT-A-TABLE") == []


class _Link:
    """A table's link as the Jackpot Lock uses it: ``send_state`` puts the frame on the wire
    (recorded here) before it waits for the connection to take it; ``held`` is a connection
    that does not take it (a controller that stopped reading) until it is set."""

    def __init__(self, held: asyncio.Event | None = None) -> None:
        self.told: list[JackpotState] = []
        self.held = held

    async def send_state(self, state: JackpotState) -> None:
        self.told.append(state)
        if self.held is not None:
            await self.held.wait()

    async def close(self) -> None:
        pass


def test_a_table_slow_to_take_its_frames_holds_back_no_other_table_of_the_group() -> None:
    config = load_demo_floor()
    links = LinkLoop(config, {})
    links.start(lambda *_: None, lambda *_: None, tables=frozenset(), tls=None)
    held = asyncio.Event()
    try:
        assert links.links is not None and links.loop is not None
        # PG-1 comes first in its group: its connection takes nothing
        slow, other = _Link(held), _Link()
        links.links.links.update({"PG-1": cast(ControllerLink, slow),
                                  "PG-2": cast(ControllerLink, other)})
        lock = JackpotLock(cast(Floor, cast(Any, None)), config, links, Listeners())
        lock.load([_level(1)])
        lock.on_change(FloorChange("freeze", level_views=(_level(2, 12_345, 1),)))
        lock.on_change(FloorChange("release", level_views=(_level(3),)))
        wait_for(lambda: len(other.told) == 2, what="PG-2 told both states")
        assert [(st.state, st.amount_cents) for st in other.told] == [("PENDING", 12_345),
                                                                       ("CLEAR", 0)]
        # the slow table's frames were written in the same order, each before its wait
        wait_for(lambda: len(slow.told) == 2, what="PG-1's frames written")
        assert [st.state for st in slow.told] == ["PENDING", "CLEAR"]
    finally:
        links.stopped = True
        if links.loop is not None:
            links.loop.call_soon_threadsafe(held.set)
        links.close(lambda: None)
        assert links.thread is not None and not links.thread.is_alive()
