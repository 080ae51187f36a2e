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

Any login of the database may notify on the channel (a ``podium_reader`` one too), so a notice
is a hint, never a fact: what it names is read back from the ledger, every payload is parsed
strictly and bounded (:meth:`Notice.decode`), it must carry a MAC under a key derived from the
floor's card key (:func:`feed_key`, :func:`sign`: the one secret every podium and service of a
floor shares), a replay is refused, and a notice dropped costs one log line a minute
(:class:`DropLog`), never a traceback or a resync (issue 23).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from core.ledger.db import own_connection
from core.ledger.models import Hit, Slip
from core.ledger.outages import problem
from core.people.cardkey import CardKey
from core.tablegames.queries import touched_views
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import FloorChange, HitOutcome

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
    tag: str = ""  # its MAC, as received (a replay carries the same)

    def encode(self) -> dict[str, Any]:
        return {"o": self.origin, "a": self.action, "t": self.tables,
                "l": [list(k) for k in self.levels], "h": self.hits,
                "x": [[o.hit_id, o.table, o.round_no, o.seat, o.outcome, o.amount_cents]
                      for o in self.outcomes],
                "s": self.slips, "p": self.prints, "e": self.events, "at": self.at,
                "w": round(self.sent, 6)}

    @classmethod
    def decode(cls, payload: str, key: bytes | None = None) -> Notice:
        """A notification's payload, parsed strictly and bounded (any login may ``pg_notify``
        on the channel: issue 23): a JSON object of exactly these keys, lists of at most
        MAX_ITEMS, ids within the ledger's 32-bit columns, names of at most 64 printable
        characters, ``at`` an ISO time with its UTC offset.  ValueError, in one short line,
        for anything else.  With ``key`` (:func:`feed_key`), the payload must carry its MAC
        under it (:func:`sign`), and the notice keeps it (``tag``)."""
        if not isinstance(payload, str) or len(payload) > MAX_PAYLOAD + len(_TAG_TAIL) + 40:
            raise ValueError("floor notification not understood: longer than "
                             f"{MAX_PAYLOAD} characters")
        tag = ""
        if key is not None:
            payload, tag = _verified(payload, key)
        try:
            d = json.loads(payload)
        except ValueError:
            raise ValueError("floor notification not understood: not JSON") from None
        if not isinstance(d, dict) or not _REQUIRED <= d.keys() <= _KEYS:
            raise ValueError("floor notification not understood: not a floor notice")
        return cls(_name(d["o"], "o", 200), _name(d["a"], "a"),
                   [_name(t, "t") for t in _items(d["t"], "t")],
                   [_level(lv) for lv in _items(d["l"], "l")],
                   [_int(h, "h") for h in _items(d["h"], "h")],
                   [_outcome(x) for x in _items(d["x"], "x")],
                   [_int(n, "s") for n in _items(d["s"], "s")],
                   [_int(n, "p") for n in _items(d["p"], "p")],
                   _int(d["e"], "e"), _at(d.get("at", "")), _sent(d.get("w", 0.0)), tag)


def feed_key(card_key: CardKey) -> bytes:
    """The key notices are signed with: derived from the floor's card key, the one secret
    every podium and floor service of a floor already shares (core/people/cardkey.py), so a login
    of the ledger alone (the reader's) can not make a notice a listener takes."""
    return hmac.new(card_key.secret, b"podium floor feed notice", hashlib.sha256).digest()


_TAG_HEX = 32  # 128 bits of HMAC-SHA256
_TAG_HEAD = ',"k":"'
_TAG_TAIL = _TAG_HEAD + "0" * _TAG_HEX + '"}'


def sign(body: str, key: bytes) -> str:
    """The JSON object ``body`` with its MAC as a last key ``k``."""
    tag = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()[:_TAG_HEX]
    return f"{body[:-1]}{_TAG_HEAD}{tag}\"}}"


def _verified(payload: str, key: bytes) -> tuple[str, str]:
    """The signed body of ``payload`` and its tag; ValueError when it carries no MAC or not
    the one of ``key``."""
    head, tail = payload[:-len(_TAG_TAIL)], payload[-len(_TAG_TAIL):]
    tag = tail[len(_TAG_HEAD):-2]
    if len(payload) <= len(_TAG_TAIL) or not tail.startswith(_TAG_HEAD) or \
            not tail.endswith('"}'):
        raise ValueError("floor notification not understood: it carries no MAC")
    body = head + "}"
    good = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()[:_TAG_HEX]
    if not hmac.compare_digest(tag, good):
        raise ValueError("floor notification not understood: its MAC is not the floor's "
                         "(another card key, or forged)")
    return body, tag


MAX_ITEMS = 4000  # ids or names in one list (a payload of 7,000 bytes holds fewer)
MAX_ID = 2**31 - 1  # hits, rounds, slips, print attempts: 32-bit columns
MAX_CENTS = 2**63 - 1
_KEYS = frozenset({"o", "a", "t", "l", "h", "x", "s", "p", "e", "at", "w"})
_REQUIRED = frozenset({"o", "a", "t", "l", "h", "x", "s", "p", "e"})
_OUTCOMES = frozenset({"paid", "auto_paid", "rejected", "cancelled"})


def _bad(key: str, what: str) -> ValueError:
    return ValueError(f"floor notification not understood: {key!r} {what}")


def _items(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(key, "is not a list")
    if len(value) > MAX_ITEMS:
        raise _bad(key, f"has more than {MAX_ITEMS} items")
    return value


def _int(value: Any, key: str, top: int = MAX_ID) -> int:
    if type(value) is not int or not 0 <= value <= top:
        raise _bad(key, f"holds a value that is not a whole number from 0 to {top}")
    return value


def _name(value: Any, key: str, most: int = 64) -> str:
    if not isinstance(value, str) or not value or len(value) > most or not value.isprintable():
        raise _bad(key, f"holds a value that is not a name of 1 to {most} printable characters")
    return value


def _level(value: Any) -> tuple[str, str]:
    if not isinstance(value, list) or len(value) != 2:
        raise _bad("l", "holds an item that is not [group, level]")
    return _name(value[0], "l"), _name(value[1], "l")


def _outcome(value: Any) -> HitOutcome:
    if not isinstance(value, list) or len(value) != 6 or value[4] not in _OUTCOMES:
        raise _bad("x", "holds an item that is not a decided hit")
    h, t, r, seat, o, a = value
    return HitOutcome(_int(h, "x"), _name(t, "x"), _int(r, "x"), _int(seat, "x"), str(o),
                      _int(a, "x", MAX_CENTS))


def _at(value: Any) -> str:
    if value == "":
        return ""
    if not isinstance(value, str) or len(value) > 40:
        raise _bad("at", "is not a time")
    try:
        made = datetime.fromisoformat(value)
    except ValueError:
        raise _bad("at", "is not a time") from None
    if made.tzinfo is None or made.utcoffset() is None:
        raise _bad("at", "has no UTC offset")
    return value


def _sent(value: Any) -> float:
    if type(value) not in (int, float) or not 0 <= value < 1e11:
        raise _bad("w", "is not a wall-clock time")
    return float(value)


class DropLog:
    """One log line per ``window_s`` for notifications dropped as not understood, however many
    arrive (anyone may send them: a flood must not flood the log): the first of a window is
    named, the next line counts the others."""

    def __init__(self, window_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.window_s = window_s
        self.clock = clock
        self.dropped = 0  # since this listener started
        self._quiet_until = float("-inf")
        self._unsaid = 0

    def drop(self, reason: str) -> None:
        self.dropped += 1
        now = self.clock()
        if now < self._quiet_until:
            self._unsaid += 1
            return
        more = f" ({self._unsaid} more dropped since the last line)" if self._unsaid else ""
        log.warning("floor feed: a notification was dropped: %s%s; further ones are counted "
                    "for %g s", reason[:200], more, self.window_s)
        self._unsaid = 0
        self._quiet_until = now + self.window_s


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
    if ctx.channel is None:
        ctx.channel = channel_of(s)
    channel = ctx.channel
    notice = Notice(ctx.origin, change.action, sorted(change.tables), sorted(change.levels),
                    sorted(change.hits), list(change.outcomes), list(change.slips),
                    list(change.prints), change.events,
                    change.at.isoformat() if change.at else "", time.time())
    key = feed_key(ctx.gate.key)
    for payload in _chunks(notice):
        s.execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": sign(payload, key)})


def read_change(ctx: FloorContext, notices: Iterable[Notice]) -> FloorChange:
    """One FloorChange for notices from other processes: what they name, as it is now in the
    ledger (read after their commit, so at least as new as they are)."""
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
        self.drops = DropLog()  # notifications not understood: one log line a minute
        self._key = feed_key(ctx.gate.key)
        self._seen: dict[str, float] = {}  # tags heard within REPLAY_WINDOW_S: a replay

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
        conn = own_connection(engine)  # (after a failover: not a dead one of the pool's)
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
                # asked again every reconnect_delay until the ledger answers (a failover takes
                # its seconds): a line when the reason is new, not one a second
                said, self.last_error = self.last_error, problem(exc)
                (log.debug if self.last_error == said else log.warning)(
                    "floor feed: can not listen on the ledger: %s", self.last_error)
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
                self.last_error = problem(exc)
                if not self._stop.is_set():
                    log.warning("floor feed: the ledger connection dropped: %s",
                                self.last_error)
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
            except Exception as exc:
                if isinstance(exc, DBAPIError):  # the ledger went away meanwhile: one line
                    log.warning("floor feed: could not read what %d notification(s) changed: "
                                "%s", len(batch), problem(exc))
                else:
                    log.exception("floor feed: could not read what %d notification(s) "
                                  "changed", len(batch))
                if self.on_resync is not None:
                    self.on_resync()
                continue
            self.ctx.announce(change)

    def _decoded(self, notifies: Iterable[Any], own: str) -> list[Notice]:
        out: list[Notice] = []
        for n in notifies:
            try:
                notice = Notice.decode(n.payload, self._key)
                self._fresh(notice)
            except ValueError as exc:
                self.drops.drop(str(exc))
                continue
            if notice.origin != own:  # this process's own: announced when it committed
                out.append(notice)
        return out


    def _fresh(self, notice: Notice) -> None:
        """Refuse a replayed notice: one sent more than REPLAY_WINDOW_S from now by this
        machine's clock, or heard already (its tag) within that window."""
        now = time.time()
        if abs(now - notice.sent) > REPLAY_WINDOW_S:
            raise ValueError("floor notification not understood: sent "
                             f"{now - notice.sent:+.0f} s from now (a replay, or a clock "
                             "off by minutes)")
        if notice.tag in self._seen:
            raise ValueError("floor notification not understood: heard already (a replay)")
        if len(self._seen) >= 100_000 or (self._seen and next(iter(self._seen.values()))
                                          < now - 2 * REPLAY_WINDOW_S):
            self._seen = {t: at for t, at in self._seen.items()
                          if at >= now - 2 * REPLAY_WINDOW_S}
        self._seen[notice.tag] = now


REPLAY_WINDOW_S = 300.0  # a notice's send time may differ this much from the listener's clock


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


