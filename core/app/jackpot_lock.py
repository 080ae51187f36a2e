"""Jackpot Lock: PENDING on every table of a linked group.

Every level's state (``JACKPOT_STATE``, docs/protocol.md) is kept from the committed level views
and told to each linked table of its group: after a commit that changed it, to a table whose
link comes up, and again from the ledger after the live feed reconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterable

from core.app.links import LinkLoop
from core.app.listeners import Listeners
from core.controllers.frames import JackpotState
from core.floorconfig import FloorConfig
from core.kernel.money import format_cents
from core.tablegames.floor import Floor
from core.tablegames.views import FloorChange, LevelView

log = logging.getLogger("podium.runtime")


def jackpot_state(lv: LevelView) -> JackpotState:
    return JackpotState(lv.group, lv.level, "PENDING" if lv.frozen_hits else "CLEAR",
                        lv.frozen_cents, lv.frozen_hits)


class JackpotLock:
    """The Jackpot Lock state of each level, and the tables told."""

    def __init__(self, floor: Floor, config: FloorConfig, links: LinkLoop,
                 listeners: Listeners) -> None:
        self.floor = floor
        self.config = config
        self._links = links
        self._listeners = listeners
        # (group, level) -> (the Jackpot Lock state every table of the group is told, the
        # version of the level view it came from)
        self._states: dict[tuple[str, str], tuple[JackpotState, int]] = {}
        self._lock = threading.Lock()
        self._sending: set[asyncio.Task[None]] = set()  # on the link loop: states being sent

    def load(self, levels: Iterable[LevelView]) -> None:
        """What each controller is told after WELCOME (at start)."""
        for lv in levels:
            self._states[(lv.group, lv.level)] = (jackpot_state(lv), lv.version)

    def group_states(self, table: str) -> list[JackpotState]:
        """What ``table`` is told after its WELCOME: every level of its group."""
        with self._lock:
            return self._group_states(table)

    def _group_states(self, table: str) -> list[JackpotState]:
        try:
            group = self.config.table(table).group
        except KeyError:
            return []
        return [st for (g, _lv), (st, _v) in sorted(self._states.items()) if g == group]

    def tell(self, table: str) -> None:
        """Its group's states to a table whose link came up (after its WELCOME), read and
        handed to the link loop under the lock: a commit's newer state reaches the loop before
        or after these, never between the read and the send."""
        with self._lock:
            self.send([table], self._group_states(table))

    def send(self, tables: list[str], states: list[JackpotState]) -> None:
        """Tell ``tables`` (those linked here) ``states``, from any thread, without waiting:
        posted to the link loop (``call_soon_threadsafe``, first in first out), where each
        table gets a task per state.  A task writes its frame before its first wait (the
        drain), so each table hears the states in the order they were posted, and a table whose
        connection is slow to take them holds back no other table of the group."""
        loop, links = self._links.loop, self._links.links
        if self._links.stopped or loop is None or links is None or not states or not tables:
            return

        def post() -> None:  # on the link loop
            if self._links.stopped:
                return
            for table in tables:
                link = links.links.get(table)  # another service's table: it tells it
                if link is None:
                    continue
                for st in states:
                    task = loop.create_task(link.send_state(st))
                    self._sending.add(task)  # the loop keeps only a weak reference
                    task.add_done_callback(self._sending.discard)

        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(post)

    def states(self) -> dict[tuple[str, str], JackpotState]:
        """What the console tells the controllers of each level (tests, the status bar)."""
        with self._lock:
            return {key: st for key, (st, _v) in self._states.items()}

    def on_change(self, change: FloorChange) -> None:
        """The levels a commit changed: their new state told to their group's tables (sent
        under the lock: two commits' states reach the link loop in order), and said."""
        changed: dict[str, list[JackpotState]] = {}
        with self._lock:
            for lv in change.level_views:
                key = (lv.group, lv.level)
                new = jackpot_state(lv)
                old = self._states.get(key)
                if old is not None and (old[0] == new or lv.version < old[1]):
                    continue
                self._states[key] = (new, lv.version)
                changed.setdefault(lv.group, []).append(new)
                # sent under the lock: two commits' states reach the link loop in order
                self.send([t.id for t in self.config.tables_in(lv.group)], [new])
        for group, states in changed.items():
            for st in states:
                self._listeners.say(f"{group} {st.level}: " + (
                    f"JACKPOT PENDING {format_cents(st.amount_cents)} frozen for {st.hits} "
                    "hit(s); the linked tables keep playing" if st.state == "PENDING"
                    else "no jackpot pending"))

    def reread(self) -> None:
        """Every level's Jackpot Lock state from the ledger, told to the tables where it
        changed (a change heard by nobody while the feed was down)."""
        try:
            levels = self.floor.snapshot().levels
        except Exception:
            log.exception("the levels could not be read again after the feed reconnected")
            return
        self.on_change(FloorChange("resync", level_views=levels))
