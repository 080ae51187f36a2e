"""The floor's live feed between processes: PostgreSQL LISTEN / NOTIFY.

Every transaction of the floor that changed something (a batch of controller events, a pay, a
reject, an adjustment, a void, a print attempt, a table claimed by a service) sends, inside that
transaction, a notification on the ledger's channel naming what it touched: tables, levels,
hits, the hits decided (outcomes), new slips and print attempts, and which process made it.
PostgreSQL delivers a notification only when its transaction commits, and never one of a
transaction that rolled back, so a listener never hears of a change it can not read.

:class:`FeedListener` is the other end: a thread with a connection of its own that LISTENs
(blocked in the socket; no polling), and for each notification from another process reads
the new state of what it names from the ledger and announces it to this process's listeners
as a :class:`~core.tablegames.views.FloorChange` (``origin`` names the process that made
it), exactly as a change made here is announced.  The floor service hears the consoles'
decisions this way and carries them to the tables; a console hears everything the services
and the other consoles did.

The channel is per ledger (database and schema): ``podium:<schema>``.  A payload is at most
7,000 bytes (PostgreSQL takes 8,000): a bigger change goes as several notifications of the
same transaction, delivered together, in order.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from core.ledger.models import Hit, Slip
from core.tablegames.views import FloorChange, HitOutcome

if TYPE_CHECKING:
    from core.tablegames.unit import FloorContext

log = logging.getLogger("podium.feed")

MAX_PAYLOAD = 7000
CHANNEL_PREFIX = "podium:"


def channel_of(conn: Any) -> str:
    """The ledger's channel: ``podium:`` and the schema it lives in (a connection's
    ``current_schema()``; a SQLAlchemy connection or session, or a psycopg connection)."""
    if hasattr(conn, "execute") and not hasattr(conn, "cursor"):
        schema = conn.execute(text("SELECT current_schema()")).scalar()
    else:
        with conn.cursor() as cur:
            cur.execute("SELECT current_schema()")
            row = cur.fetchone()
            schema = row[0] if row else None
    return CHANNEL_PREFIX + str(schema or "public")


@dataclass
class Notice:
    """One notification: what a committed transaction touched, and who made it."""

    origin: str
    action: str
    tables: list[str] = field(default_factory=list)
    levels: list[tuple[str, str]] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    outcomes: list[HitOutcome] = field(default_factory=list)
    slips: list[int] = field(default_factory=list)
    prints: list[int] = field(default_factory=list)
    events: int = 0
    at: str = ""
    sent: float = 0.0  # the sender's wall clock when it was sent (time.time(); latency)

    def encode(self) -> dict[str, Any]:
        return {"o": self.origin, "a": self.action, "t": self.tables,
                "l": [list(k) for k in self.levels], "h": self.hits,
                "x": [[o.hit_id, o.table, o.round_no, o.seat, o.outcome, o.amount_cents]
                      for o in self.outcomes],
                "s": self.slips, "p": self.prints, "e": self.events, "at": self.at,
                "w": round(self.sent, 6)}

    @classmethod
    def decode(cls, payload: str) -> Notice:
        """A notification's payload; ValueError for one that is not ours or is damaged."""
        try:
            d = json.loads(payload)
            return cls(str(d["o"]), str(d["a"]), [str(t) for t in d["t"]],
                       [(str(g), str(lv)) for g, lv in d["l"]], [int(h) for h in d["h"]],
                       [HitOutcome(int(h), str(t), int(r), int(s), str(o), int(a))
                        for h, t, r, s, o, a in d["x"]],
                       [int(n) for n in d["s"]], [int(n) for n in d["p"]], int(d["e"]),
                       str(d.get("at", "")), float(d.get("w", 0.0)))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"floor notification not understood: {exc}") from None


def _chunks(notice: Notice) -> Iterator[str]:
    """The notice as payloads of at most MAX_PAYLOAD bytes: split into notices of fewer ids
    when it is bigger (each part is a change of its own to a listener)."""
    body = json.dumps(notice.encode(), separators=(",", ":"))
    if len(body.encode()) <= MAX_PAYLOAD:
        yield body
        return
    lists = ("tables", "levels", "hits", "outcomes", "slips", "prints")
    sizes = [len(getattr(notice, name)) for name in lists]
    if max(sizes) <= 1:
        raise ValueError("a floor notification can not be made small enough")
    # halve the longest list; the rest goes with the first half
    longest = lists[sizes.index(max(sizes))]
    items = getattr(notice, longest)
    mid = len(items) // 2
    first = Notice(**{**notice.__dict__, longest: items[:mid]})
    second = Notice(notice.origin, notice.action, sent=notice.sent, at=notice.at,
                    **{longest: items[mid:]})
    yield from _chunks(first)
    yield from _chunks(second)


def publish(s: Session, ctx: FloorContext, change: FloorChange) -> None:
    """Send ``change`` on the ledger's channel, inside the transaction that made it (delivered
    at its commit).  PostgreSQL only."""
    channel = ctx.feed_channel(s)
    notice = Notice(ctx.origin, change.action, sorted(change.tables), sorted(change.levels),
                    sorted(change.hits), list(change.outcomes), list(change.slips),
                    list(change.prints), change.events,
                    change.at.isoformat() if change.at else "", time.time())
    for payload in _chunks(notice):
        s.execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": payload})


def read_change(ctx: FloorContext, notices: Iterable[Notice]) -> FloorChange:
    """One FloorChange for notices from other processes: what they name, as it is now in the
    ledger (read after their commit, so at least as new as they are)."""
    from core.tablegames.queries import touched_views
    from core.tablegames.unit import Unit

    notices = list(notices)
    tables: set[str] = set()
    levels: set[tuple[str, str]] = set()
    hits: set[int] = set()
    outcomes: list[HitOutcome] = []
    slips: list[int] = []
    prints: list[int] = []
    events = 0
    for n in notices:
        tables.update(n.tables)
        levels.update(n.levels)
        hits.update(n.hits)
        outcomes += n.outcomes
        slips += n.slips
        prints += n.prints
        events += n.events
    now = ctx.now()
    slip_tables: tuple[str, ...] = ()
    with ctx.read() as s:
        u = Unit(s, now)
        u.tables, u.levels, u.hits = tables, levels, hits
        tviews, lviews, pending, closed = touched_views(ctx, u)
        if slips:
            where = dict(s.execute(select(Slip.slip_no, Hit.table_id)
                                   .join(Hit, Hit.id == Slip.hit_id)
                                   .where(Slip.slip_no.in_(slips))).all())
            slip_tables = tuple(str(where.get(n, "")) for n in slips)
    made = [datetime.fromisoformat(n.at) for n in notices if n.at]
    at = max(made) if made else now  # when the last of them was made (its entries' time)
    origin = ", ".join(sorted({n.origin for n in notices}))
    action = notices[-1].action if len(notices) == 1 else "remote"
    return FloorChange(action, frozenset(tables), frozenset(levels), frozenset(hits),
                       tuple(outcomes), tuple(slips), 0, tviews, lviews, pending, closed,
                       events, at, tuple(prints), origin=origin, slip_tables=slip_tables,
                       sent=min((n.sent for n in notices), default=0.0))


class FeedListener:
    """A thread that LISTENs on the ledger's channel and announces what other processes
    changed (``ctx.announce``).  ``on_resync()`` is called after the connection was lost and
    made again (notifications may have been missed meanwhile: read everything again)."""

    def __init__(self, ctx: FloorContext, *, on_resync: Callable[[], None] | None = None,
                 reconnect_delay: float = 1.0) -> None:
        self.ctx = ctx
        self.on_resync = on_resync
        self.reconnect_delay = reconnect_delay
        self.received = 0  # notifications from other processes
        self.connected = threading.Event()
        self.last_error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._late = False  # start() gave up waiting: the first connection resyncs too
        self._late_lock = threading.Lock()

    def start(self, timeout: float = 10.0) -> None:
        """Start listening; returns once LISTEN is in force (every commit after this is
        heard), or after ``timeout`` seconds when the database does not answer."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="podium-feed", daemon=True)
            self._thread.start()
        if not self.connected.wait(timeout):
            with self._late_lock:
                if not self.connected.is_set():
                    self._late = True

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def _connect(self) -> Any:
        engine: Engine = self.ctx.engine
        raw = engine.raw_connection()
        conn = raw.driver_connection
        raw.detach()  # a connection of its own: never back in the pool
        assert conn is not None
        conn.autocommit = True
        channel = channel_of(conn)
        with conn.cursor() as cur:
            cur.execute(f"LISTEN {_quote(channel)}")
        return conn

    def _run(self) -> None:
        first = True
        while not self._stop.is_set():
            try:
                conn = self._connect()
            except Exception as exc:
                self.last_error = str(getattr(exc, "orig", None) or exc).strip()
                log.warning("floor feed: can not listen on the ledger: %s", self.last_error)
                self._stop.wait(self.reconnect_delay)
                continue
            with self._late_lock:
                self.connected.set()
                late = self._late
            if not first or late:
                log.info("floor feed: listening again; everything is read again")
                if self.on_resync is not None:
                    try:
                        self.on_resync()
                    except Exception:
                        log.exception("floor feed: resync failed")
            first = False
            try:
                self._listen(conn)
            except Exception as exc:
                self.last_error = str(exc).strip()
                if not self._stop.is_set():
                    log.warning("floor feed: the ledger connection dropped: %s", exc)
            finally:
                self.connected.clear()
                with contextlib.suppress(Exception):
                    conn.close()
            self._stop.wait(self.reconnect_delay)

    def _listen(self, conn: Any) -> None:
        own = self.ctx.origin
        while not self._stop.is_set():
            # wait (in the socket) for the next packet of notifications; every one a
            # generator yields is taken (one left unread in its packet would be lost)
            batch = self._decoded(conn.notifies(timeout=0.5, stop_after=1), own)
            if not batch:
                continue
            # and what else is waiting now: one read for all of it
            batch += self._decoded(conn.notifies(timeout=0.0), own)
            self.received += len(batch)
            try:
                change = read_change(self.ctx, batch)
            except Exception:
                log.exception("floor feed: could not read what %d notification(s) changed",
                              len(batch))
                if self.on_resync is not None:
                    self.on_resync()
                continue
            self.ctx.announce(change)

    @staticmethod
    def _decoded(notifies: Iterable[Any], own: str) -> list[Notice]:
        out: list[Notice] = []
        for n in notifies:
            try:
                notice = Notice.decode(n.payload)
            except ValueError as exc:
                log.warning("floor feed: %s", exc)
                continue
            if notice.origin != own:  # this process's own: announced when it committed
                out.append(notice)
        return out


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


