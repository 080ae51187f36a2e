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
  (2 s: two heartbeats, and never longer than what is left of the old holder's lease), and
  two services never serve one table.

**Leases and fencing (revision 0025).**  A claim is also a *lease*: the row's ``lease_until``
(the database's clock) is renewed by the holder's heartbeat, every second, for ``lease_s()``
(``PODIUM_LEASE_S``, default 3 s).  A row whose lease has ended is free for the next claim,
whatever its holder's lock connection says: a service frozen (SIGSTOP, a VM paused) or cut off
from the database with its session still open loses its tables to a standby asking every
``claim_interval`` (1 s) within **lease + claim interval** (4 s with the defaults) of its last
renewal.  Each claim adds one to the row's ``epoch`` (the *fencing token*); the service keeps
the epoch it got and every write it makes for the table (its events, its link state, its
ownership records) begins with :meth:`TableClaims.fence`: one statement locks the tables' rows
``FOR KEY SHARE`` (a claim's ``FOR UPDATE`` waits for it: the epoch can not change under the
transaction; the holder's own renewal is not held up; a ``podium_reader`` can not take it, it
needs the UPDATE privilege) and the writes of a table whose row does not name this service at
that epoch with a lease still running are refused in that transaction, before anything is
written (``core.tablegames.ingest.batch.NotHeld``).  A service that wakes from a pause after its
tables were taken writes nothing for them.  Locally, too, a table is served only until its
lease's deadline here (the time before the renewal was sent, plus the lease): past it, the
service stops recording for the table and closes its link even if the database does not
answer, so it has stopped before the database frees the row.  A writer's transaction that is
left idle (its process paused in the middle) is ended by the server after the lease
(``idle_in_transaction_session_timeout``), and a claim skips rows locked by others (``SKIP
LOCKED``, asked again the next round), so a stuck transaction delays the takeover of its own
tables by at most the lease and holds up no other table.

Every claim, release, loss and refusal is a row of ``ownership_events`` (append-only,
chained): which process answered a table at any moment.  ``floor_services`` keeps each
service's heartbeat (written every second) so a console can tell a service that is up from one
that stopped answering.  SQLite (one podium) needs none of this: the console serves its tables.

The statements on a table's lock row and the lock connection's set-up are in
:mod:`core.controllers.lock_rows`; what the screens read of who serves which table (and the
words of a refused claim) in :mod:`core.controllers.services`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, text, update

from core.controllers import lock_rows, services
from core.controllers.lock_rows import FENCE_SQL, LOCK_PREFIX, RELEASE_SQL, RENEW_SQL
from core.ledger import locks
from core.ledger.models import FloorService, OwnershipEvent, TableOwner
from core.ledger.outages import problem
from core.tablegames import changes, setup

if TYPE_CHECKING:
    from core.tablegames.floor import Floor

log = logging.getLogger("podium.ownership")

HEARTBEAT_S = 1.0
# a table taken from a service that did not stop cleanly is linked this long after: that
# service, if it is alive and only lost its lock (its session ended on the server), notices at
# its next heartbeat (every HEARTBEAT_S) and closes its links first
TAKEOVER_GRACE_S = 2.0
LEASE_ENV = "PODIUM_LEASE_S"
DEFAULT_LEASE_S = 3.0


class ClaimError(RuntimeError):
    """The lock connection could not be made or was lost."""


def lease_s() -> float:
    """How long a claim lasts unless the heartbeat renews it (``$PODIUM_LEASE_S`` seconds,
    1.5 to 60; default 3).  Longer than two heartbeats, so one late heartbeat loses nothing.
    A value that is not a number in range is refused by name."""
    raw = os.environ.get(LEASE_ENV, "").strip()
    if not raw:
        return DEFAULT_LEASE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 1.5 <= value <= 60:
        raise ValueError(f"{LEASE_ENV}={raw[:40]!r}: seconds from 1.5 to 60 expected")
    return value


class TableClaims:
    """This process's claims on tables (rows of ``ledger_locks`` held by a lock connection)."""

    def __init__(self, floor: Floor, name: str, kind: str = "serve", *,
                 grace_s: float = TAKEOVER_GRACE_S, lease: float | None = None) -> None:
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
        self._lost: dict[str, str] = {}  # table -> why it was given up, to be recorded
        self._grace: dict[str, float] = {}  # table -> monotonic time its link may start
        # table -> the epoch of this service's claim, and the monotonic deadline of its lease
        # here (read without the lock by the writer and the link loop: a dict's get and copy
        # are atomic)
        self._epoch: dict[str, int] = {}
        self._until: dict[str, float] = {}
        self._fenced: dict[str, str] = {}  # table -> why a write was refused (drop())
        self._closed = False
        self.db_pid: int | None = None
        self.grace_s = grace_s
        self.lease_s = lease_s() if lease is None else lease

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
                conn, db_pid = lock_rows.connect(self.floor.engine,
                                                 f"podium {self.kind} {self.name}", self.lease_s)
            except Exception as exc:
                raise ClaimError(f"the ledger database does not answer: "
                                 f"{_reason(exc)}") from None
            self._conn = conn
            self.db_pid = db_pid
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
        for t in self.owned:
            self._lost.setdefault(t, "the lock connection dropped; the table was given up at "
                                     "once")
        self.owned = set()
        self._grace.clear()
        self._epoch.clear()
        self._until.clear()
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
        """The tables held whose links may run now: held, their lease running here, and past
        the grace after a take-over from a service that did not stop cleanly (it may be alive
        and still linked for up to a heartbeat: it closes its links when its own heartbeat
        fails)."""
        now = time.monotonic()
        with self._lock:
            return {t for t in self.owned
                    if self._grace.get(t, 0.0) <= now and self._until.get(t, 0.0) > now}

    def holds(self, table: str) -> bool:
        """Whether this service may serve ``table`` now by its own count: claimed, and the
        lease's deadline here not passed.  Never waits (the link loop and the writer ask)."""
        return time.monotonic() < self._until.get(table, 0.0)

    def next_lapse_at(self) -> float | None:
        """When (time.monotonic()) the first lease held here ends unless renewed."""
        return min(self._until.values(), default=None)

    def drop(self, table: str, why: str) -> None:
        """Stop serving ``table`` at once: a write for it was refused (another service holds
        it now).  The next heartbeat gives it up and records why.  Never waits."""
        self._fenced.setdefault(table, why)
        self._until.pop(table, None)

    def fence(self, conn: Connection, tables: Collection[str]) -> set[str]:
        """The fencing check at the start of a write transaction on ``conn``: of ``tables``,
        those this service may NOT write for.  A table is written for only when this service
        holds it here (:meth:`holds`) and, in the database, its row names this service at
        the epoch it claimed with a lease still running; those rows are locked ``FOR KEY
        SHARE`` to the end of the transaction (a claim waits; the renewal does not), and the
        transaction is ended by the server if it is left idle longer than the lease.  One
        statement."""
        now = time.monotonic()
        epochs = dict(self._epoch)
        until = dict(self._until)
        ask = {t: epochs[t] for t in tables if t in epochs and until.get(t, 0.0) > now}
        out = set(tables) - set(ask)
        if ask:
            names = sorted(ask)
            held = set(conn.execute(text(FENCE_SQL), {
                "names": [LOCK_PREFIX + t for t in names], "epochs": [ask[t] for t in names],
                "me": self.service_id, "idle": f"{int(self.lease_s * 1000)}ms"}).scalars())
            out |= set(ask) - held
        return out

    def beat(self) -> bool:
        """The heartbeat: the lock connection still answers (so its locks are still held),
        the service's row says when, and the lease of every table held is renewed at its
        epoch.  A table whose lease ended here before the renewal, or whose row names another
        claim now, is given up at once (:meth:`lost` says which and why).  False when the
        lock connection is gone: every table it held is released (``owned`` is empty), and
        the next :meth:`open` makes a new one."""
        with self._lock:
            conn = self._conn
            if conn is None:
                return False
            now = time.monotonic()
            for t in sorted(self.owned):
                if self._until.get(t, 0.0) <= now:
                    self._give_up(t, self._fenced.pop(
                        t, f"its lease ({self.lease_s:g} s) ended before the heartbeat "
                           "renewed it; the table was given up"))
            names = sorted(self.owned)
            sent = time.monotonic()
            try:
                # one round trip on the lock connection itself: it answers (its locks are
                # held), the heartbeat is written (floor_services is not a chained record)
                # and the leases are renewed
                with conn.cursor() as cur:
                    cur.execute(RENEW_SQL, (self.floor.ctx.now(), self.service_id, self.lease_s,
                                            [LOCK_PREFIX + t for t in names],
                                            [self._epoch[t] for t in names]))
                    renewed = {str(t) for (t,) in cur.fetchall()}
            except Exception as exc:
                log.error("service %s: the lock connection dropped (%s): every table it "
                          "served is given up", self.name, _reason(exc))
                self._drop_conn()
                return False
            for t in names:
                if t in renewed:
                    self._until[t] = sent + self.lease_s
                else:
                    self._give_up(t, "another service claimed it (this service's lease "
                                     "ended or its lock session was ended); the table was "
                                     "given up at once")
        return True

    def _give_up(self, table: str, why: str) -> None:
        """Stop serving ``table`` here (the caller holds ``_lock``); recorded as lost."""
        self.owned.discard(table)
        self._grace.pop(table, None)
        self._epoch.pop(table, None)
        self._until.pop(table, None)
        self._fenced.pop(table, None)
        self._lost.setdefault(table, why)
        log.warning("service %s: table %s: %s", self.name, table, why)

    def lost(self) -> dict[str, str]:
        """The tables given up since the last call (table -> why)."""
        with self._lock:
            out, self._lost = self._lost, {}
        return out

    # -- claims -------------------------------------------------------------------------------
    def claim(self, tables: Iterable[str]) -> tuple[list[str], dict[str, str]]:
        """Try to take ``tables`` (those not held already).  Returns (taken, refused: table ->
        who holds it, in words); a table whose row another transaction has locked now is in
        neither (asked again the next round).  A taken table is set OFFLINE in the ledger
        (until its link is up) and named as this service's in ``table_owners``; a lost table
        taken again, or a refusal not recorded before, is recorded in ``ownership_events``."""
        want = sorted(set(tables) - self.owned)
        if not want:
            return [], {}
        with self._lock:
            conn = self._conn
            if conn is None:
                raise ClaimError("no lock connection")
            sent = time.monotonic()
            try:
                got, busy = lock_rows.take(conn, want, self.service_id, self.lease_s)
            except lock_rows.Busy as exc:
                raise ClaimError(str(exc)) from None
            except Exception as exc:
                self._drop_conn()
                raise ClaimError(f"the lock connection dropped: {_reason(exc)}") from None
            taken = [t for t in want if got.get(t) is not None]
            if busy and not taken:  # one line naming the transaction that holds them
                try:
                    with conn.cursor() as cur:
                        cur.execute(locks.HOLDER_SQL, ([LOCK_PREFIX + t for t in busy],))
                        row = cur.fetchone()
                except Exception as exc:
                    self._drop_conn()
                    raise ClaimError(f"the lock connection dropped: {_reason(exc)}") from None
                raise ClaimError(f"the claims of {', '.join(sorted(busy))} are locked by "
                                 f"another transaction now (asked again the next round); "
                                 f"{locks.describe(row)}")
            self.owned |= set(taken)
            for t in taken:
                epoch, wait = got[t]
                self._epoch[t] = epoch
                self._until[t] = sent + self.lease_s
                # linked only after the grace (``linkable``) until _record says otherwise
                self._grace[t] = sent + min(self.grace_s, wait)
        others = [t for t in want if t not in got and t not in busy]
        lost = self.lost()
        try:
            refused = services.holders(self.floor, others, self.service_id) if others else {}
            if taken or lost or any(self._refused.get(t) != why for t, why in refused.items()):
                taken = self._record(taken, refused, lost)
        except Exception:
            # taken, but not recorded: given back (the next round asks again), and the
            # losses recorded with the next claim
            self.release(taken, record=False)
            with self._lock:
                for t, why in lost.items():
                    self._lost.setdefault(t, why)
            raise
        return taken, refused

    def _record(self, taken: list[str], refused: dict[str, str],
                lost: dict[str, str]) -> list[str]:
        """Record a claim round; the tables taken and recorded (a table claimed but taken by
        another service before this transaction, its service paused in between, is given up
        here and not written for)."""
        assert self.service_id is not None
        ctx = self.floor.ctx
        with changes.unit(ctx, "ownership") as u:
            s = u.s
            gone = self.fence(s.connection(), taken) if taken else set()
            if gone:
                with self._lock:
                    for t in gone:  # never recorded as claimed: no loss to record either
                        self._give_up(t, "another service claimed it before this service "
                                         "recorded its claim")
                        self._lost.pop(t, None)
                taken = [t for t in taken if t not in gone]
            for t, why in sorted(lost.items()):
                s.add(OwnershipEvent(table_id=t, service_id=self.service_id, event="lost",
                                     detail=why, created_at=u.now))
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
        return taken

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
                self._until.pop(t, None)
            epochs = [self._epoch.pop(t, -1) for t in tables]
            if conn is not None:
                try:
                    with conn.cursor() as cur:
                        cur.execute(RELEASE_SQL, ([LOCK_PREFIX + t for t in tables], epochs))
                except Exception as exc:
                    log.warning("service %s: releasing %s: %s", self.name, ", ".join(tables),
                                _reason(exc))
                    self._drop_conn()
        if record and self.service_id is not None:
            try:
                with changes.unit(self.floor.ctx, "ownership") as u:
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



def _reason(exc: BaseException) -> str:
    return problem(exc)  # one line; every server of a multi-host URL named
