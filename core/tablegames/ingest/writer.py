"""The ledger writer: controller events committed in batches (group commit).

The controllers' links never touch the database: each event is handed to the one writer thread
(:meth:`LedgerWriter.submit_event`), which takes every event waiting, records them in ONE
transaction (one fsync) with a savepoint each, commits, and only then resolves each event's future
(the link ACKs it then).  Each event stays idempotent on (table, boot, seq) and is refused on its
own: a refused event's savepoint is rolled back and its ``refused_events`` row written in the same
batch; the others commit.  An event out of its (table, boot) sequence (``OutOfOrder``, raised
before it writes anything) is neither recorded nor refused: its future carries the exception.
Every event is screened before it joins a batch (``refusals.screened``): one the ledger could not
keep as it is (text with a lone surrogate or a NUL, a member of the wrong type or beyond its
bound) is refused alone, by name.  If a batch fails anyway because the database (or its driver)
refused something in it, the batch is split in halves and each committed again, down to single
jobs: what can be recorded is, and an event that can not is refused alone with its
``refused_events`` row ("the ledger could not store this event (<class>)"; the driver's message
goes to the log, never to the controller).

If the batch fails because the ledger can not record now (``outages.ledger_problem``: its disk is
full, its database is gone, out of resources or read-only, a writers' lock is not free), every
job of it fails with :class:`~core.ledger.outages.LedgerUnavailable` naming the problem: the link
leaves the event unacknowledged and stays up, its controller sends it again.  The writer says so
ONCE (a log line, and to its state listeners: the console's Activity), answers every job at once
with the same error for :data:`PROBE_S`, then tries the next batch; the first batch that commits
ends it, with one line saying the ledger records again.  A batch that fails for a reason of
Podium's own fails its events the same way but with the error itself (logged with its
traceback), and their links reconnect.

Stalls: the writer knows how long its oldest unanswered job has waited and when it last
committed (:meth:`LedgerWriter.health`, the floor service's health); a job waiting longer than
:data:`STALL_S` is said once, like a problem.  On PostgreSQL a watchdog thread closes the
socket of a transaction that has had no answer for the statement timeout plus
:data:`BREAK_GRACE_S` (a network that holds the bytes, a server that hangs: the server's own
``statement_timeout`` never hears of it), so the batch fails, its connection is dropped from
the pool and the next batch connects again.

On a shared ledger the writer has a *fence* (``LedgerWriter.fence``, set by the console core from
its table claims, core/controllers/ownership.py): the first statement of every transaction that
holds an event or a link state checks that this service still holds the tables of those jobs
at its claim's epoch, with its lease running, and locks their claim rows until the commit.  The
jobs of a table not held are not run: nothing is written for them, no refusal is kept, and
their futures carry :class:`NotHeld` (the event is not acknowledged; its controller sends it
again to the table's service).  The other jobs of the batch commit.

Link state changes (ONLINE / OFFLINE) go through the same writer.  After each commit one
FloorChange announces the batch.

This module is the writer's thread: the queue, the batches, what a failed batch becomes (a
pause, halves, an event refused alone), the watchdog.  What a batch writes in its one
transaction (the fence, the link states, the jobs in their savepoints) is ``batch``.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import (
    DBAPIError,
    DisconnectionError,
    InterfaceError,
    OperationalError,
    StatementError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from core.controllers.events import Delivery, Origin
from core.ledger.db import statement_timeout_s
from core.ledger.outages import LedgerUnavailable, break_connection, ledger_problem
from core.tablegames.ingest import bulk, refusals
from core.tablegames.ingest import events as ingest
from core.tablegames.ingest.batch import Fence, Job, NotHeld, Retry, transaction
from core.tablegames.unit import FloorContext, Unit, retrying, transient
from core.tablegames.views import FloorChange, FloorError

log = logging.getLogger("podium.writer")

MAX_BATCH = 1000
PROBE_S = 1.0  # while the ledger can not record, a batch is tried this often
STALL_S = 10.0  # a job waiting longer for its commit: the writer is stalled (health)
BREAK_GRACE_S = 5.0  # past the statement timeout, a transaction with no answer is closed
UNSTORABLE = "the ledger could not store this event"  # the refusal of an event a batch failed on


def split_on(exc: BaseException) -> bool:
    """Whether a batch that failed with ``exc`` is split and committed again in halves: the
    database or its driver refused something the batch wrote (a value, a constraint, text the
    driver could not encode), not a connection that is gone, not a deadlock or serialization
    failure (run again whole, ``unit.retrying``), not a failure of Podium's own."""
    if isinstance(exc, UnicodeError):  # the driver could not encode a value
        return True
    if isinstance(exc, (OperationalError, InterfaceError, DisconnectionError, PoolTimeout)):
        return False  # the database is gone (or unreachable): the links reconnect
    if isinstance(exc, DBAPIError):
        return not exc.connection_invalidated and not transient(exc)
    return isinstance(exc, StatementError)  # a value its column's type could not take


@dataclass
class WriterStats:
    batches: int = 0
    jobs: int = 0
    largest: int = 0
    busy_s: float = 0.0
    retried: int = 0  # batches done again with a savepoint for every job
    split: int = 0  # failed batches committed again in halves
    refused_alone: int = 0  # events a batch failed on, refused alone (UNSTORABLE)


class LedgerWriter:
    """One thread that commits queued floor jobs in batches."""

    def __init__(self, ctx: FloorContext, *, max_batch: int = MAX_BATCH) -> None:
        self.ctx = ctx
        self.max_batch = max_batch
        self.stats = WriterStats()
        self._queue: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._lock = threading.Lock()  # a job is queued before the stop mark, or refused
        self.fence: Fence | None = None  # a shared ledger's table claims (module docstring)
        # table -> the link state (ONLINE / OFFLINE) asked for and not committed yet: written
        # first by the next transaction that commits, whatever became of the job that asked
        self._links_due: dict[str, bool] = {}
        self._links_written: dict[str, bool] = {}  # what the transaction being committed wrote
        self.stall_s = STALL_S
        self.probe_s = PROBE_S
        timeout = statement_timeout_s() if ctx.pg else 0.0
        # a transaction with no answer this long is closed (PostgreSQL; None: never)
        self.break_s: float | None = timeout + BREAK_GRACE_S if timeout else None
        self._problem: str | None = None  # why the ledger can not record now
        self._down_since: float | None = None  # (monotonic) since when: a problem or a stall
        self._next_try = 0.0  # (monotonic) jobs fail at once until then
        self._started: float | None = None  # (monotonic) the batch being committed began
        self._oldest: float | None = None  # (monotonic) its oldest job was submitted
        self._size = 0  # its jobs
        self._last_commit: datetime | None = None
        self._conn: Any = None  # the writer's database connection while it holds one
        self._broken = False  # the watchdog closed the connection of the batch in progress
        self._stall_said = False
        self._listeners: list[Callable[[str], None]] = []
        self._watch_stop = threading.Event()
        self._watchdog: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="podium-ledger-writer",
                                            daemon=True)
            if self.break_s is not None:  # which connection the writer holds, to close it
                event.listen(self.ctx.engine, "checkout", self._checked_out)
                event.listen(self.ctx.engine, "checkin", self._checked_in)
            self._thread.start()
            self._watchdog = threading.Thread(target=self._watch, name="podium-ledger-watchdog",
                                              daemon=True)
            self._watchdog.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Commit what is queued, then stop (a second call does nothing)."""
        with self._lock:
            if self._thread is None or self._stopping:
                return
            self._stopping = True
            self._queue.put(None)
        self._thread.join(timeout)
        self._watch_stop.set()
        if self._watchdog is not None:
            self._watchdog.join(timeout)
        if self.break_s is not None:
            event.remove(self.ctx.engine, "checkout", self._checked_out)
            event.remove(self.ctx.engine, "checkin", self._checked_in)

    def add_state_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(text)`` (on a writer thread) when the ledger stops recording (a problem, or a
        job waiting longer than :attr:`stall_s`) and when it records again: one line each.
        Returns its remover."""
        self._listeners.append(fn)

        def remove() -> None:
            if fn in self._listeners:
                self._listeners.remove(fn)

        return remove

    def health(self) -> dict[str, Any]:
        """The writer's figures for the floor service's health: jobs waiting, how long the
        oldest has waited, the last commit, and ``problem`` (empty when it records): why the
        ledger can not record, or that a job has waited longer than :attr:`stall_s`.
        ``stuck``: the latter (the writer waits in a call that does not return); a ledger that
        can not record (a full disk) is not stuck: the writer tries it again every
        :attr:`probe_s` and records by itself when it can."""
        now = time.monotonic()
        started, oldest = self._started, self._oldest
        waited = now - oldest if started is not None and oldest is not None else None
        waiting = self._queue.qsize() + (self._size if started is not None else 0)
        last = self._last_commit
        problem = ""
        since = self._down_since
        stuck = self._problem is None and waited is not None and waited > self.stall_s
        if self._problem is not None:
            problem = (f"the ledger has recorded nothing for {now - (since or now):.0f} s: "
                       f"{self._problem}")
        elif stuck:
            problem = (f"the ledger writer is stuck: a job has waited {waited:.0f} s for its "
                       f"commit ({waiting} waiting); " + (
                           f"the last commit was at {last:%H:%M:%S} UTC" if last is not None
                           else "nothing committed since the start"))
        return {"running": self.running, "batches": self.stats.batches,
                "jobs": self.stats.jobs, "largest_batch": self.stats.largest,
                "waiting": waiting,
                "oldest_wait_s": round(waited, 1) if waited is not None else None,
                "last_commit": last.isoformat(timespec="seconds") if last else None,
                "problem": problem, "stuck": stuck}

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stopping

    # -- jobs ---------------------------------------------------------------------------------
    def submit_event(self, origin: Origin, event: Delivery) -> Future[bool]:
        """Record a controller event; the future gives False for a replay, or raises the
        ValueError that refused it (kept in ``refused_events``), or OutOfOrder (nothing
        written: the link asks the controller to send again from the expected seq)."""
        event = refusals.screened(origin, event)  # text no ledger stores, a bad type: refused

        def refuse(u: Unit, reason: str) -> None:
            refusals.record_refusal(u, origin, event, reason)

        item = bulk.Item(origin, event) if isinstance(event, bulk.BULK_EVENTS) else None
        return self._submit(lambda u: ingest.record(self.ctx, u, origin, event), refuse,
                            light=isinstance(event, ingest.LIGHT_EVENTS),
                            what=f"table {origin.table} event {origin.boot}:{origin.seq}",
                            item=item, table=origin.table)

    def submit_link(self, table: str, online: bool) -> Future[None]:
        """Record the table's link state; NotHeld when the fence refuses it.  The state is
        kept until a transaction commits it (in every transaction: a link up before the
        batch's events, a link down after them, batch.transaction): a job that failed (the
        ledger could not record for a while) does not leave the ledger saying OFFLINE under a
        link that is up, which would refuse the table's START GAMEs."""
        with self._lock:
            self._links_due[table] = online
        return self._submit(lambda u: u.tables.add(table), light=True, table=table)

    def submit_boot(self, table: str, boot: str) -> Future[list[int]]:
        """The table's controller is up as boot ``boot``: its hits still pending from an earlier
        boot are closed by the system (:func:`ingest.close_earlier_boots`); the future gives
        their ids.  NotHeld when the fence refuses it (the table is another service's)."""
        return self._submit(lambda u: ingest.close_earlier_boots(self.ctx, u, table, boot),
                            what=f"table {table}: hits of earlier boots", table=table)

    def submit(self, run: Callable[[Unit], Any]) -> Future[Any]:
        """Any floor write, committed with the next batch (its own savepoint)."""
        return self._submit(run)

    def _submit(self, run: Callable[[Unit], Any],
                refuse: Callable[[Unit, str], None] | None = None, *,
                light: bool = False, what: str = "",
                item: bulk.Item | None = None, table: str | None = None) -> Future[Any]:
        fut: Future[Any] = Future()
        with self._lock:
            if self._thread is None or self._stopping:
                fut.set_exception(RuntimeError("the ledger writer is not running"))
                return fut
            problem = self._problem
            if problem is not None and time.monotonic() < self._next_try:
                fut.set_exception(LedgerUnavailable(problem))  # tried again after the pause
                return fut
            self._queue.put(Job(run, fut, refuse, light, what, item, table))
        return fut

    # -- the thread -----------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            first = self._queue.get()
            batch: list[Job] = []
            stop = first is None
            if first is not None:
                batch.append(first)
            while len(batch) < self.max_batch:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    continue
                batch.append(nxt)
            problem = self._problem
            if batch and problem is not None and time.monotonic() < self._next_try:
                self._fail(batch, LedgerUnavailable(problem))
            elif batch:
                self._commit(batch)
            if stop:
                return

    @staticmethod
    def _fail(batch: list[Job], exc: BaseException) -> None:
        for job in batch:
            if not job.future.done():
                job.future.set_exception(exc)

    def _commit(self, batch: list[Job]) -> None:
        self._started, self._oldest, self._size = time.monotonic(), batch[0].queued, len(batch)
        self._broken = False
        try:
            self._commit_batch(batch)
        finally:
            self._started = self._oldest = None

    def _commit_batch(self, batch: list[Job]) -> None:
        started = time.perf_counter()
        ctx = self.ctx
        results: list[tuple[bool, Any]] = []
        def attempt() -> tuple[Unit, FloorChange]:
            results.clear()
            try:
                return transaction(ctx, batch, results, savepoints=False,
                                   due_links=self._due_links, fence=self.fence)
            except Retry:
                results.clear()
                self.stats.retried += 1
                return transaction(ctx, batch, results, savepoints=True,
                                   due_links=self._due_links, fence=self.fence)

        try:
            # a deadlock or serialization failure (PostgreSQL) rolled the batch back: again
            u, change = retrying(attempt)
        except Exception as exc:  # the batch did not commit: nothing of it is recorded
            problem = self._problem_of(exc)
            if problem is not None:  # not the jobs' fault: they wait (their events unACKed)
                self._fail(batch, LedgerUnavailable(self._unavailable(problem)))
                return
            if split_on(exc):  # the database refused something in it: find what, keep the rest
                self._split(batch, exc)
                return
            log.exception("ledger writer: a batch of %d job(s) could not be committed",
                          len(batch))
            self._fail(batch, exc)
            return
        self._last_commit = datetime.now(UTC)
        with self._lock:  # committed: no longer due, unless asked for again meanwhile
            for table, online in self._links_written.items():
                if self._links_due.get(table) == online:
                    del self._links_due[table]
        if self._problem is not None or self._stall_said:
            self._recovered()
        self.stats.batches += 1
        self.stats.jobs += len(batch)
        self.stats.largest = max(self.stats.largest, len(batch))
        self.stats.busy_s += time.perf_counter() - started
        for job, (ok, value) in zip(batch, results, strict=True):
            if job.future.done():  # its waiter gave up (a closing link cancels it): recorded
                continue
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)
        if change.touched:
            ctx.announce(change)

    def _split(self, batch: list[Job], exc: Exception) -> None:
        """A batch the database refused: its halves committed again (each split again if it
        fails too), down to the one job that fails alone."""
        if len(batch) > 1:
            log.warning("ledger writer: a batch of %d job(s) could not be committed (%s: %s); "
                        "committing it again in halves", len(batch), type(exc).__name__, exc)
            self.stats.split += 1
            half = len(batch) // 2
            self._commit(batch[:half])
            self._commit(batch[half:])
            return
        job = batch[0]
        cause = type(getattr(exc, "orig", None) or exc).__name__
        if job.refuse is None:  # not an event: whoever submitted it hears why
            log.warning("ledger writer: a job could not be committed (%s): %s", cause, exc)
            if not job.future.done():
                job.future.set_exception(exc)
            return
        # the driver's words stay here (they may quote the bad text); the controller hears
        # a clear line
        reason = f"{UNSTORABLE} ({cause})"
        log.warning("ledger writer: %s could not be stored and is refused alone: %s",
                    job.what or "an event", exc)
        refuse, fence = job.refuse, self.fence

        def keep() -> None:
            with self.ctx.session() as s, s.begin():
                if fence is not None and job.table is not None and \
                        fence(s.connection(), {job.table}):
                    raise NotHeld(job.table)  # a table not held: no refusal either
                refuse(Unit(s, self.ctx.now(), self.ctx.cache), reason)

        try:
            retrying(keep)
        except NotHeld as held:
            if not job.future.done():
                job.future.set_exception(held)
            return
        except Exception as again:  # not even its refusal: not acknowledged, it comes again
            problem = self._problem_of(again)
            if problem is not None:
                self._fail(batch, LedgerUnavailable(self._unavailable(problem)))
                return
            log.exception("ledger writer: the refusal of %s could not be recorded either",
                          job.what or "an event")
            self._fail(batch, exc)
            return
        self.stats.refused_alone += 1
        if not job.future.done():
            job.future.set_exception(FloorError(reason))

    # -- the ledger can not record: said once, tried again every PROBE_S ------------------------
    def _problem_of(self, exc: BaseException) -> str | None:
        if self._broken:
            return (f"the database server did not answer for {self.break_s:g} s (statement "
                    "timeout and grace): the connection was closed and is made again")
        return ledger_problem(self.ctx.engine, exc)

    def _unavailable(self, problem: str) -> str:
        """The ledger can not record: jobs fail at once for ``probe_s``; said when it starts."""
        self._next_try = time.monotonic() + self.probe_s
        first = self._problem is None
        self._problem = problem  # the latest words (the free space, the server's message)
        if first:
            if self._down_since is None:
                self._down_since = time.monotonic()
            log.error("ledger writer: the ledger can not record: %s; the controllers keep "
                      "their events, tried again every %g s", problem, self.probe_s)
            self._tell(f"The ledger stopped recording: {problem}. The tables' events wait in "
                       "their controllers and are recorded when it can again.")
        return problem

    def _recovered(self) -> None:
        since = self._down_since
        lasted = time.monotonic() - since if since is not None else 0.0
        problem = self._problem
        self._problem, self._down_since, self._stall_said = None, None, False
        log.warning("ledger writer: the ledger records again, after %.0f s%s", lasted,
                    f" ({problem})" if problem else "")
        self._tell(f"The ledger records again (it recorded nothing for {lasted:.0f} s).")

    def _tell(self, text: str) -> None:
        for fn in list(self._listeners):
            try:
                fn(text)
            except Exception:
                log.exception("ledger writer: a state listener failed")

    # -- the watchdog: stalls said, a transaction with no answer closed ------------------------
    def _checked_out(self, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if threading.current_thread() is self._thread:
            self._conn = dbapi_connection

    def _checked_in(self, dbapi_connection: Any, _record: Any) -> None:
        if dbapi_connection is self._conn:
            self._conn = None

    def _watch(self) -> None:
        bound = min(self.stall_s, self.break_s or self.stall_s)
        while not self._watch_stop.wait(min(1.0, bound / 4)):
            started, oldest = self._started, self._oldest
            if started is None or oldest is None:
                continue
            now = time.monotonic()
            if now - oldest > self.stall_s and not self._stall_said and self._problem is None:
                self._stall_said = True
                if self._down_since is None:
                    self._down_since = oldest
                last = self._last_commit
                log.error("ledger writer: a job has waited %.0f s for its commit; the last "
                          "commit was at %s", now - oldest,
                          f"{last:%H:%M:%S} UTC" if last is not None else "none yet")
                self._tell(f"The ledger has recorded nothing for {now - oldest:.0f} s: a "
                           "batch waits for the database's answer. The tables' events wait.")
            conn = self._conn
            if (self.break_s is not None and now - started > self.break_s and conn is not None
                    and not self._broken):
                self._broken = True
                log.error("ledger writer: no answer from the database server for %.0f s: "
                          "closing the connection", now - started)
                break_connection(conn)

    def _due_links(self) -> dict[str, bool]:
        """The link states asked for and not committed yet, as the transaction being
        committed writes them (no longer due once it commits, unless asked for again)."""
        with self._lock:
            due = dict(self._links_due)
        self._links_written = due
        return due
