"""One unit of work: a database transaction that accumulates what it changed and, after the
commit, announces it once (a :class:`~core.tablegames.views.FloorChange` carrying the new state of
every table, level and hit it touched).

Every workflow module takes a :class:`Unit` (``u.s`` is its session, ``u.now`` its time) and
marks what it touches (``u.tables``, ``u.levels``, ``u.hits``, ``u.outcomes``, ``u.slips``).
:class:`FloorContext` holds what every workflow needs (engines, configuration, paytables, clock)
and the listeners, and opens read sessions (never the write lock); a write transaction is opened
by ``core.tablegames.changes.unit``, which announces its change after the commit.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from core.floorconfig import FloorConfig, GroupConfig
from core.ledger.db import reader
from core.people import cardkey
from core.people.auth import Gate, register_gate
from core.people.cardkey import CardKey
from core.tablegames.paper import SlipPaper
from core.tablegames.views import FloorChange, FloorError, HitOutcome

log = logging.getLogger("podium.floor")
T = TypeVar("T")


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class LevelRef:
    """A level as the workflows need it (cached: levels are configuration)."""

    id: int
    group_id: str
    name: str


@dataclass
class LevelCache:
    """Levels per group and their settings in force, read once (``setup.start`` clears it)."""

    levels: dict[str, dict[str, LevelRef]] = field(default_factory=dict)
    settings: dict[int, Any] = field(default_factory=dict)

    def clear(self) -> None:
        self.levels.clear()
        self.settings.clear()


TRANSIENT_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock detected, serialization failure


def transient(exc: BaseException) -> bool:
    """A PostgreSQL deadlock or serialization failure: the transaction was rolled back and may
    simply be run again."""
    orig = getattr(exc, "orig", None)
    return getattr(orig, "sqlstate", None) in TRANSIENT_SQLSTATES


def retrying(fn: Callable[[], T], attempts: int = 3) -> T:
    """Run the whole transaction ``fn`` again after a transient failure (at most ``attempts``
    times in all); anything else, and the last failure, goes to the caller."""
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except DBAPIError as exc:
            if attempt == attempts or not transient(exc):
                raise
            log.warning("transaction rolled back (%s); running it again", exc.orig)
    raise AssertionError("unreachable")


@dataclass
class Unit:
    """What one transaction touched (becomes its FloorChange), and the meter movements it made
    that are not yet folded into the kept balances (``core.tablegames.meters.balances``)."""

    s: Session
    now: datetime
    cache: LevelCache = field(default_factory=LevelCache)
    parent: Unit | None = None
    tables: set[str] = field(default_factory=set)
    levels: set[tuple[str, str]] = field(default_factory=set)
    hits: set[int] = field(default_factory=set)
    outcomes: list[HitOutcome] = field(default_factory=list)
    slips: list[int] = field(default_factory=list)  # new slips (to print)
    prints: list[int] = field(default_factory=list)  # slips whose print attempt was recorded
    events: int = 0
    # level id -> [meter units, reserve units, entries]
    deltas: dict[int, list[int]] = field(default_factory=dict)
    # (level id, UTC hour, kind) -> [entries, meter units, reserve units]
    hours: dict[tuple[int, datetime, str], list[int]] = field(default_factory=dict)
    # (table id, UTC hour) -> [rounds, wagers, wager cents, returned wagers, returned cents,
    #                         contribution units, reversal units] (table_hour_totals)
    table_hours: dict[tuple[str, datetime], list[int]] = field(default_factory=dict)
    # level id -> (meter units, reserve units) as read from level_balances (root unit only)
    read_balances: dict[int, tuple[int, int]] = field(default_factory=dict)
    slips_locked: bool = False  # the slip sequence is locked (root unit only; PostgreSQL)

    @property
    def root(self) -> Unit:
        return self if self.parent is None else self.parent.root

    def child(self) -> Unit:
        """A unit for one step inside this transaction (a savepoint): merged on success."""
        return Unit(self.s, self.now, self.cache, self)

    def merge(self, other: Unit) -> None:
        self.tables |= other.tables
        self.levels |= other.levels
        self.hits |= other.hits
        self.outcomes += other.outcomes
        self.slips += other.slips
        self.prints += other.prints
        self.events += other.events
        for lid, (m, r, n) in other.deltas.items():
            acc = self.deltas.setdefault(lid, [0, 0, 0])
            acc[0] += m
            acc[1] += r
            acc[2] += n
        for key, (n, m, r) in other.hours.items():
            acc = self.hours.setdefault(key, [0, 0, 0])
            acc[0] += n
            acc[1] += m
            acc[2] += r
        for tkey, values in other.table_hours.items():
            self.count_table(tkey[0], values, hour=tkey[1])

    def count_table(self, table_id: str, values: Sequence[int], *,
                    hour: datetime | None = None) -> None:
        """Add to the table's totals of this hour (``table_hour_totals``: rounds, wagers,
        wager cents, returned wagers, returned cents, contribution units, reversal units)."""
        at = hour or self.now.replace(minute=0, second=0, microsecond=0)
        acc = self.table_hours.setdefault((table_id, at), [0] * 7)
        for i, v in enumerate(values):
            acc[i] += int(v)


class FloorContext:
    """Engines, configuration, paytables, clock, slip paper and listeners of one floor."""

    def __init__(self, engine: Engine, config: FloorConfig, paytables: dict[str, Any],
                 clock: Callable[[], datetime] = utcnow, *,
                 paper: SlipPaper,
                 card_key: CardKey | None = None) -> None:
        self.engine = engine
        self.read_engine = reader(engine)
        self.config = config
        self.paytables = paytables
        self.clock = clock
        self._paper = paper
        self.pg = engine.dialect.name == "postgresql"
        self.cache = LevelCache()
        self._listeners: list[Callable[[FloorChange], None]] = []
        self._lock = threading.Lock()
        self._seq = 0
        for g in config.groups:
            if g.paytable not in paytables:
                raise FloorError(f"group {g.id}: paytable {g.paytable} is not installed")
        # table -> the paytable it plays (its own, else its group's): looked up per event,
        # so not by walking the floor's tables each time
        groups = {g.id: g.paytable for g in config.groups}
        self._table_paytables = {t.id: t.paytable or groups.get(t.group, "")
                                 for t in config.tables}
        # every swipe of this floor: its card key (the floor file's, else the default one) and
        # its people controls; the poker room and machine checks on this ledger use it too
        key = card_key if card_key is not None else cardkey.load(
            config.authorization.card_key or None)
        self.gate = Gate(engine, key, config.authorization, self.now)
        register_gate(self.gate)
        # who this process is on the ledger's live feed (core/tablegames/feed.py)
        self.origin = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        # the ledger's notification channel, read once by core.tablegames.feed
        self.channel: str | None = None

    @property
    def paper(self) -> SlipPaper:
        """The slip paper given to this floor (the app wiring's: ``paper=``)."""
        return self._paper

    # -- time, configuration ------------------------------------------------------------------
    def now(self) -> datetime:
        now = self.clock()
        if now.tzinfo is None:
            raise FloorError("clock: the floor clock must give UTC-aware times")
        return now.astimezone(UTC)

    def group_cfg(self, group_id: str) -> GroupConfig:
        try:
            return self.config.group(group_id)
        except KeyError:
            raise FloorError(f"group {group_id}: not configured on this floor") from None

    def paytable(self, group_id: str) -> Any:
        return self.paytables[self.group_cfg(group_id).paytable]

    def configured(self, table_id: str) -> bool:
        """Whether the floor file configures ``table_id`` (a dictionary look-up: the ingest
        path asks for every event)."""
        return table_id in self._table_paytables

    def table_paytable(self, table_id: str) -> Any:
        """The paytable a table plays: its own (a linked equivalent, RULES.md 3), else its
        group's.  Its wager and fixed pays are the table's; the meter pays are the group's."""
        return self.paytables[self._table_paytables[table_id]]

    # -- sessions -------------------------------------------------------------------------------
    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only transaction that never takes the write lock (core.ledger.db.reader) and
        sees one snapshot of the ledger throughout (SQLite: WAL; PostgreSQL: REPEATABLE READ,
        READ ONLY), so a report's figures all come from the same moment."""
        with Session(self.read_engine, expire_on_commit=False) as s, s.begin():
            if self.pg:
                s.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            yield s

    # -- listeners ------------------------------------------------------------------------------
    def add_listener(self, fn: Callable[[FloorChange], None]) -> Callable[[], None]:
        """``fn(change)`` after every commit (on the committing thread).  Returns a function
        that removes the listener again."""
        with self._lock:
            self._listeners.append(fn)

        def remove() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._listeners.remove(fn)

        return remove

    def announce(self, change: FloorChange) -> None:
        with self._lock:
            self._seq += 1
            change = replace(change, seq=self._seq)
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(change)
            except Exception:  # a broken listener must not undo a committed pay
                log.exception("floor listener %r failed", fn)
