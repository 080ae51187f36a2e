"""Who is told what: plain-language messages for the supervisor, a table's link going up or
down, and "read everything again" (the live feed reconnected).  Every listener is removable."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

log = logging.getLogger("podium.runtime")

F = TypeVar("F")


def _remover(listeners: list[F], fn: F) -> Callable[[], None]:
    def remove() -> None:
        if fn in listeners:
            listeners.remove(fn)

    return remove


class Listeners:
    """The console's listeners; each ``add_*`` returns a function that removes the listener."""

    def __init__(self) -> None:
        self._messages: list[Callable[[str], None]] = []
        self._status: list[Callable[[str], None]] = []
        self._resync: list[Callable[[], None]] = []

    def add_message_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(text)``: plain-language messages (links, refusals, printer)."""
        self._messages.append(fn)
        return _remover(self._messages, fn)

    def add_status_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(table)`` whenever a table's link goes up or down (on the link thread)."""
        self._status.append(fn)
        return _remover(self._status, fn)

    def add_resync_listener(self, fn: Callable[[], None]) -> Callable[[], None]:
        """``fn()`` when changes may have been missed (the live feed reconnected)."""
        self._resync.append(fn)
        return _remover(self._resync, fn)

    def say(self, text: str) -> None:
        """A message for the supervisor: logged, then told to every message listener."""
        log.info("%s", text)
        for fn in list(self._messages):
            try:
                fn(text)
            except Exception:
                log.exception("message listener failed")

    def status_changed(self, table: str) -> None:
        for fn in list(self._status):
            try:
                fn(table)
            except Exception:
                log.exception("status listener failed")

    def resync(self) -> None:
        for fn in list(self._resync):
            try:
                fn()
            except Exception:
                log.exception("resync listener failed")
