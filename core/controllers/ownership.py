"""Who serves which table: one floor service per table at a time (PostgreSQL).

A table's controller link is served by exactly one process (``podium serve``, or a console
running the service inside it).  Two processes linking the same controller fight: each
connection replaces the other's, and events are refused while the ledger thinks the table is
OFFLINE.  So a process may link a table only while it holds the table's **claim**: its row of
``ledger_locks`` (``table:<id>``, revision 0023), claimed in a short ``FOR UPDATE`` transaction
on a connection of its own (the *lock connection*, never returned to a pool) and naming that
connection's session (backend pid, login, application name).  The claim lasts as long as that
session: a row whose session is gone from ``pg_stat_activity`` is free for the next claim.  Only
``podium_writer`` may lock or write the row; until revision 0022 the claim was an advisory lock,
which any login, a ``podium_reader`` one included, could take and hold (issue 23):

- a second service asking for a held table is refused, and told who holds it (the
  ``table_owners`` row the holder wrote, with its ``floor_services`` row: name, host, process);
- a service that dies (killed, crashed, its machine gone) loses its lock connection, and its
  claims end with its session: at once for a killed process (the kernel closes its
  socket), within about 11 s for a machine that vanished (the lock connection asks the server
  for TCP keepalives every 5 s, 3 probes 2 s apart); a standby asking every second then gets
  the tables;
- a service that loses its lock connection (the database restarted, the network dropped)
  stops serving every table at once, before it tries to take any again.  Its own side of the
  connection notices a dead network within about 5 s (``core.ledger.db.PG_KEEPALIVES``), the
  heartbeat asks every second: it has closed its links well before the server frees the
  locks for a standby (about 11 s).  When the server ends its session at once (a failover,
  ``pg_terminate_backend``), its locks are free before it knows: so a standby that takes a
  table from a service that did not stop cleanly links it only after ``TAKEOVER_GRACE_S``
  (2 s: two heartbeats), and two services never serve one table.

Every claim, release, loss and refusal is a row of ``ownership_events`` (append-only,
chained): which process answered a table at any moment.  ``floor_services`` keeps each
service's heartbeat (written every second) so a console can tell a service that is up from one
that stopped answering.  SQLite (one podium) needs none of this: the console serves its tables.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select, text, update

from core.ledger import locks
from core.ledger.db import own_connection, problem
from core.ledger.models import FloorService, OwnershipEvent, TableOwner
from core.tablegames import setup

if TYPE_CHECKING:
    from core.tablegames.floor import Floor

log = logging.getLogger("podium.ownership")

HEARTBEAT_S = 1.0
# a table taken from a service that did not stop cleanly is linked this long after: that
# service, if it is alive and only lost its lock (its session ended on the server), notices at
# its next heartbeat (every HEARTBEAT_S) and closes its links first
TAKEOVER_GRACE_S = 2.0
STALE_AFTER = timedelta(seconds=10)  # a heartbeat older than this: the service is not answering
_LOCK_PREFIX = "table:"  # a table's row of ledger_locks: "table:T01"


class ClaimError(RuntimeError):
    """The lock connection could not be made or was lost."""


@dataclass(frozen=True)
class ServiceInfo:
    id: int
    name: str
    host: str
    pid: int
    kind: str
    started_at: datetime
    heartbeat_at: datetime
    stopped_at: datetime | None
    up: bool  # its lock connection is alive and its heartbeat is recent

    @property
    def label(self) -> str:
        return f"{self.name} ({self.host}, pid {self.pid})"


@dataclass(frozen=True)
class TableService:
    """A table's service as a console shows it."""

    table: str
    service: str  # the service's name ("" when no service ever served it)
    up: bool
    since: datetime | None
    detail: str  # in words: "served by pit-a (host1, pid 4242) since ..." / "NO SERVICE: ..."


def service_name(name: str | None, kind: str) -> str:
    return name or f"{kind}@{socket.gethostname()}"


class TableClaims:
    """This process's claims on tables (rows of ``ledger_locks`` held by a lock connection)."""

    def __init__(self, floor: Floor, name: str, kind: str = "serve", *,
                 grace_s: float = TAKEOVER_GRACE_S) -> None:
        if not floor.ctx.pg:
            raise ValueError("table claims need a PostgreSQL ledger (SQLite: one podium serves "
                             "every table)")
        self.floor = floor
        self.name = name
        self.kind = kind
        self.service_id: int | None = None
        self.owned: set[str] = set()
        self._conn: Any = None
        self._lock = threading.Lock()
        self._refused: dict[str, str] = {}  # table -> the refusal last recorded (once each)
        self._lost: set[str] = set()  # tables lost with a lock connection, to be recorded
        self._grace: dict[str, float] = {}  # table -> monotonic time its link may start
        self._closed = False
        self.db_pid: int | None = None
        self.grace_s = grace_s

    # -- the lock connection ------------------------------------------------------------------
    def open(self) -> int:
        """Make the lock connection (and, the first time, this service's row); the service id.
        ClaimError when the database does not answer."""
        with self._lock:
            if self._closed:
                raise ClaimError("the service is stopping")
            if self._conn is not None:
                assert self.service_id is not None
                return self.service_id
            try:
                # its own, never back in the pool (after a failover: not a dead one of it)
                conn = own_connection(self.floor.engine)
                with conn.cursor() as cur:
                    # a vanished machine's session (and its locks) ends in about 11 s
                    cur.execute("SET tcp_keepalives_idle = 5")
                    cur.execute("SET tcp_keepalives_interval = 2")
                    cur.execute("SET tcp_keepalives_count = 3")
                    cur.execute("SELECT set_config('application_name', %s, false)",
                                (f"podium {self.kind} {self.name}"[:63],))
                    # a claim waits for another claim's rows at most this long
                    cur.execute("SELECT set_config('lock_timeout', %s, false)",
                                (f"{int(locks.lock_timeout_s() * 1000)}ms",))
                    cur.execute("SELECT pg_backend_pid()")
                    row = cur.fetchone()
            except Exception as exc:
                raise ClaimError(f"the ledger database does not answer: "
                                 f"{_reason(exc)}") from None
            self._conn = conn
            self.db_pid = int(row[0]) if row else None
            now = self.floor.ctx.now()
            with self.floor.ctx.session() as s, s.begin():
                if self.service_id is None:
                    svc = FloorService(name=self.name, host=socket.gethostname(),
                                       pid=os.getpid(), db_pid=self.db_pid, kind=self.kind,
                                       started_at=now, heartbeat_at=now, stopped_at=None)
                    s.add(svc)
                    s.flush()
                    self.service_id = int(svc.id)
                else:
                    s.execute(update(FloorService).where(FloorService.id == self.service_id)
                              .values(db_pid=self.db_pid, heartbeat_at=now))
            log.info("service %s (#%d): lock connection is backend %s", self.name,
                     self.service_id, self.db_pid)
            return self.service_id

    def _drop_conn(self) -> None:
        """Close the lock connection (the caller holds ``_lock``).  Every table it held is
        free on the server now: each is given up here too (``lost``), whatever the reason."""
        conn, self._conn = self._conn, None
        self.db_pid = None
        self._lost |= self.owned
        self.owned = set()
        self._grace.clear()
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    @property
    def connected(self) -> bool:
        """Whether this service has a lock connection now (it may hold tables)."""
        return self._conn is not None

    def next_link_at(self) -> float | None:
        """When (time.monotonic()) the next table held but still in its grace may be linked;
        None when none waits."""
        with self._lock:
            waiting = [at for t, at in self._grace.items() if t in self.owned]
        return min(waiting) if waiting else None

    def linkable(self) -> set[str]:
        """The tables held whose links may run now: held, and past the grace after a take-over
        from a service that did not stop cleanly (it may be alive and still linked for up to
        a heartbeat: it closes its links when its own heartbeat fails)."""
        now = time.monotonic()
        with self._lock:
            return {t for t in self.owned if self._grace.get(t, 0.0) <= now}

    def beat(self) -> bool:
        """The heartbeat: the lock connection still answers (so its locks are still held) and
        the service's row says when.  False when the lock connection is gone: every table it
        held is released (``owned`` is empty; :meth:`lost` says which), and the next
        :meth:`open` makes a new one."""
        with self._lock:
            conn = self._conn
            if conn is None:
                return False
            try:
                # one round trip on the lock connection itself: it answers (its locks are
                # held) and the heartbeat is written (floor_services is not a chained record)
                with conn.cursor() as cur:
                    cur.execute("UPDATE floor_services SET heartbeat_at = %s WHERE id = %s",
                                (self.floor.ctx.now(), self.service_id))
            except Exception as exc:
                log.error("service %s: the lock connection dropped (%s): every table it "
                          "served is given up", self.name, _reason(exc))
                self._drop_conn()
                return False
        return True

    def lost(self) -> set[str]:
        """The tables given up with a lost lock connection since the last call."""
        with self._lock:
            out, self._lost = self._lost, set()
        return out

    # -- claims -------------------------------------------------------------------------------
    def claim(self, tables: Iterable[str]) -> tuple[list[str], dict[str, str]]:
        """Try to take ``tables`` (those not held already).  Returns (taken, refused: table ->
        who holds it, in words).  A taken table is set OFFLINE in the ledger (until its link
        is up) and named as this service's in ``table_owners``; a lost table taken again, or a
        refusal not recorded before, is recorded in ``ownership_events``."""
        want = sorted(set(tables) - self.owned)
        if not want:
            return [], {}
        with self._lock:
            conn = self._conn
            if conn is None:
                raise ClaimError("no lock connection")
            try:
                got = _take(conn, want, self.service_id)
            except _Busy as exc:
                raise ClaimError(str(exc)) from None
            except Exception as exc:
                self._drop_conn()
                raise ClaimError(f"the lock connection dropped: {_reason(exc)}") from None
            taken = [t for t in want if got.get(t)]
            self.owned |= set(taken)
            # linked only after the grace (``linkable``) until _record says otherwise
            for t in taken:
                self._grace[t] = time.monotonic() + self.grace_s
        others = [t for t in want if not got.get(t)]
        lost = self.lost()
        try:
            refused = self._holders(others) if others else {}
            if taken or lost or any(self._refused.get(t) != why for t, why in refused.items()):
                self._record(taken, refused, lost)
        except Exception:
            # taken, but not recorded: given back (the next round asks again), and the
            # losses recorded with the next claim
            self.release(taken, record=False)
            with self._lock:
                self._lost |= lost
            raise
        return taken, refused

    def _holders(self, tables: list[str]) -> dict[str, str]:
        with self.floor.ctx.read() as s:
            rows = s.execute(
                select(TableOwner.table_id, TableOwner.since, FloorService.name,
                       FloorService.host, FloorService.pid, FloorService.id)
                .join(FloorService, FloorService.id == TableOwner.service_id)
                .where(TableOwner.table_id.in_(tables))).all()
        named = {str(t): (since, name, host, pid, sid) for t, since, name, host, pid, sid in rows}
        out: dict[str, str] = {}
        for t in tables:
            found = named.get(t)
            if found is None or found[4] == self.service_id:
                out[t] = "held by another service that has not named itself yet"
            else:
                since, name, host, pid, sid = found
                out[t] = (f"served by {name} (service #{sid} on {host}, pid {pid}) since "
                          f"{since:%Y-%m-%d %H:%M:%S} UTC")
        return out

    def _record(self, taken: list[str], refused: dict[str, str], lost: set[str]) -> None:
        assert self.service_id is not None
        ctx = self.floor.ctx
        with ctx.unit("ownership") as u:
            s = u.s
            for t in sorted(lost):
                s.add(OwnershipEvent(table_id=t, service_id=self.service_id, event="lost",
                                     detail="the lock connection dropped; the table was given "
                                            "up at once", created_at=u.now))
            clean: set[str] = set()
            for t in taken:
                row = s.get(TableOwner, t)
                if row is None:
                    clean.add(t)  # never served: nobody to wait for
                    s.add(TableOwner(table_id=t, service_id=self.service_id, since=u.now))
                else:
                    before = s.get(FloorService, row.service_id)
                    if row.service_id == self.service_id or (
                            before is not None and before.stopped_at is not None):
                        clean.add(t)  # its last service stopped cleanly (links closed first)
                    row.service_id, row.since = self.service_id, u.now
                s.add(OwnershipEvent(table_id=t, service_id=self.service_id, event="claimed",
                                     detail=f"{self.kind} {self.name}", created_at=u.now))
                s.flush()
                setup.set_link(u, t, False)  # OFFLINE until this service's link is up
            for t, why in sorted(refused.items()):
                if self._refused.get(t) != why:
                    s.add(OwnershipEvent(table_id=t, service_id=self.service_id,
                                         event="refused", detail=why, created_at=u.now))
                    u.tables.add(t)
        for t, why in refused.items():
            self._refused[t] = why
        with self._lock:
            for t in taken:
                self._refused.pop(t, None)
                if t in clean:
                    self._grace.pop(t, None)

    def release(self, tables: Iterable[str], *, record: bool = True,
                detail: str = "released") -> None:
        """Give tables up (their links closed first by the caller)."""
        tables = sorted(set(tables) & self.owned)
        if not tables:
            return
        with self._lock:
            conn = self._conn
            self.owned -= set(tables)
            for t in tables:
                self._grace.pop(t, None)
            if conn is not None:
                try:
                    with conn.cursor() as cur:
                        cur.execute(_RELEASE, ([_LOCK_PREFIX + t for t in tables],))
                except Exception as exc:
                    log.warning("service %s: releasing %s: %s", self.name, ", ".join(tables),
                                _reason(exc))
                    self._drop_conn()
        if record and self.service_id is not None:
            try:
                with self.floor.ctx.unit("ownership") as u:
                    # nobody serves them now: the next service links them at once
                    u.s.execute(delete(TableOwner).where(
                        TableOwner.table_id.in_(tables),
                        TableOwner.service_id == self.service_id))
                    for t in tables:
                        u.s.add(OwnershipEvent(table_id=t, service_id=self.service_id,
                                               event="released", detail=detail,
                                               created_at=u.now))
                        u.tables.add(t)
            except Exception as exc:
                log.warning("service %s: the release of %s was not recorded: %s", self.name,
                            ", ".join(tables), _reason(exc))

    def close(self, detail: str = "the service stopped") -> None:
        """Release every table and mark the service stopped (a clean shutdown)."""
        with self._lock:
            self._closed = True
        self.release(list(self.owned), detail=detail)
        if self.service_id is not None:
            try:
                with self.floor.ctx.session() as s, s.begin():
                    s.execute(update(FloorService).where(FloorService.id == self.service_id)
                              .values(stopped_at=self.floor.ctx.now()))
            except Exception as exc:
                log.warning("service %s: its stop was not recorded: %s", self.name,
                            _reason(exc))
        with self._lock:
            self._drop_conn()


def services(floor: Floor, *, include_stopped: bool = False) -> list[ServiceInfo]:
    """The floor services on this ledger: up when its lock connection is alive (PostgreSQL's
    own list of sessions) and its heartbeat recent."""
    ctx = floor.ctx
    now = ctx.now()
    with ctx.read() as s:
        q = select(FloorService).order_by(FloorService.id)
        if not include_stopped:
            q = q.where(FloorService.stopped_at.is_(None))
        rows = list(s.scalars(q))
        pids = [r.db_pid for r in rows if r.db_pid is not None]
        alive: set[int] = set()
        if pids and ctx.pg:
            alive = {int(p) for p in s.execute(
                text("SELECT pid FROM pg_stat_activity WHERE pid = ANY(:p)"),
                {"p": pids}).scalars()}
    return [ServiceInfo(r.id, r.name, r.host, r.pid, r.kind, r.started_at, r.heartbeat_at,
                        r.stopped_at,
                        r.stopped_at is None and r.db_pid in alive
                        and now - r.heartbeat_at < STALE_AFTER)
            for r in rows]


def table_services(floor: Floor) -> dict[str, TableService]:
    """Per table: the service serving it and whether that service is up (for the screens)."""
    svc = {s.id: s for s in services(floor, include_stopped=True)}
    with floor.ctx.read() as s:
        owners = {str(t): (int(sid), since) for t, sid, since in s.execute(
            select(TableOwner.table_id, TableOwner.service_id, TableOwner.since)).all()}
    out: dict[str, TableService] = {}
    for t in floor.config.tables:
        found = owners.get(t.id)
        if found is None:
            out[t.id] = TableService(t.id, "", False, None,
                                     "NO SERVICE: no floor service serves this table now")
            continue
        sid, since = found
        info = svc.get(sid)
        if info is None:
            out[t.id] = TableService(t.id, f"#{sid}", False, since, "NO SERVICE")
        elif info.up:
            out[t.id] = TableService(t.id, info.name, True, since,
                                     f"served by {info.label} since {since:%H:%M:%S} UTC")
        else:
            why = ("stopped" if info.stopped_at is not None else
                   "not answering (last heartbeat "
                   f"{info.heartbeat_at:%H:%M:%S} UTC)")
            out[t.id] = TableService(t.id, info.name, False, since,
                                     f"NO SERVICE: {info.label} {why}; a standby takes the "
                                     "table within seconds, if one runs")
    return out


class _Busy(RuntimeError):
    """Another writer's transaction held a table's lock row past the lock timeout."""


# a table's lock row is free when nobody claimed it, when this lock connection did, or when the
# session that did is gone (pg_stat_activity: the same backend pid, login and application)
_FREE = """SELECT substr(k.name, 7), k.holder_pid IS NULL OR k.holder_pid = pg_backend_pid()
OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = k.holder_pid
               AND a.datname = current_database() AND a.usename = k.holder_login
               AND a.application_name IS NOT DISTINCT FROM k.holder_app)
FROM ledger_locks k WHERE k.name = ANY(%s) ORDER BY k.name"""
_HOLD = """UPDATE ledger_locks SET holder_pid = pg_backend_pid(), holder_login = session_user,
holder_app = left(current_setting('application_name'), 64), holder_service = %s,
holder_since = now() WHERE name = ANY(%s) AND holder_pid IS DISTINCT FROM pg_backend_pid()"""
_RELEASE = """UPDATE ledger_locks SET holder_pid = NULL, holder_login = NULL, holder_app = NULL,
holder_service = NULL, holder_since = NULL WHERE name = ANY(%s)
AND holder_pid = pg_backend_pid()"""


def _take(conn: Any, tables: list[str], service_id: int | None) -> dict[str, bool]:
    """Claim ``tables`` on the lock connection ``conn``: in one short transaction, each
    table's row of ``ledger_locks`` (made on first use) locked ``FOR UPDATE``, and the free
    ones named as this connection's.  A claim is a row a reader can neither lock nor write
    (revision 0023; until 0022 an advisory lock any login could hold).  It lives as long as
    the lock connection's session: when that ends, its rows are free for the next claim.
    Table -> taken.  _Busy names the session whose transaction held a row past the lock
    timeout (the lock connection stays)."""
    names = [_LOCK_PREFIX + t for t in tables]
    try:
        with conn.transaction(), conn.cursor() as cur:
            # first without a lock: a standby asking every second for tables served elsewhere
            # locks (and writes) nothing
            cur.execute(_FREE, (names,))
            seen = {str(t): bool(free) for t, free in cur.fetchall()}
            got = {t: False for t in tables}
            missing = [_LOCK_PREFIX + t for t in tables if t not in seen]
            if missing:  # a table never claimed: its row, made once
                cur.execute("INSERT INTO ledger_locks (name) SELECT unnest(%s::text[]) "
                            "ON CONFLICT DO NOTHING", (missing,))
            ask = [_LOCK_PREFIX + t for t in tables if seen.get(t, True)]
            if ask:  # then, locked, asked again: two services claiming at once take turns
                cur.execute(_FREE + " FOR UPDATE OF k", (ask,))
                got.update({str(t): bool(free) for t, free in cur.fetchall()})
                free = [_LOCK_PREFIX + t for t in tables if got.get(t)]
                if free:
                    cur.execute(_HOLD, (service_id, free))
    except Exception as exc:
        if getattr(exc, "sqlstate", None) != "55P03":  # lock_not_available
            raise
        with conn.cursor() as cur:
            cur.execute(locks.HOLDER_SQL, (names,))
            row = cur.fetchone()
        raise _Busy(f"the ledger's table locks were not free within "
                    f"{locks.lock_timeout_s():g} s ({locks.ENV}); "
                    f"{locks.describe(row)}") from None
    return got


def _reason(exc: BaseException) -> str:
    return problem(exc)  # one line; every server of a multi-host URL named
