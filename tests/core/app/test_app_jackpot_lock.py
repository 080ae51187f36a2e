"""core/app/jackpot_lock.py on its own (no ledger, no links): the Jackpot Lock state of each
level follows the newest committed level view, and the supervisor is told each change once."""

from __future__ import annotations

from typing import Any, cast

from core.app.jackpot_lock import JackpotLock
from core.app.links import LinkLoop
from core.app.listeners import Listeners
from core.floorconfig import load_demo_floor
from core.tablegames.floor import Floor
from core.tablegames.views import FloorChange, LevelView


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
