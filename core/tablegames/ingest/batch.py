"""A batch's transaction: the jobs the ledger writer (``writer``) took from its queue, recorded
in ONE transaction.

First the fence (a shared ledger: the tables this service holds at its claim's epoch, their
claim rows locked to the commit; the jobs of a table not held are not run, their result is
:class:`NotHeld`), then the link states asked for and not committed yet, then the win slips'
sequence lock when a job may make a slip, then every job in order: a run of START GAME /
END GAME together (``bulk``), every other job in its savepoint (a light job without one: it
refuses, if at all, before it writes anything; should it fail anyway, :class:`Retry` asks
the writer to do the batch again with a savepoint for every job).  A refused event's row is
written in its place (``Job.refuse``).  Each job's ``(ok, value)`` is appended to
``results``, in the batch's order; the writer resolves the futures after the commit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from core.controllers.events import OutOfOrder
from core.tablegames import changes, setup, slips
from core.tablegames.ingest import bulk
from core.tablegames.ingest import events as ingest
from core.tablegames.ingest.refusals import record_refusal
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import FloorChange, FloorError

log = logging.getLogger("podium.writer")

# the fence: (the transaction's connection, the tables of its events and link states) -> the
# tables this process may NOT write for
Fence = Callable[[Connection, Collection[str]], set[str]]


@dataclass
class Job:
    """One job of the writer's queue: what it runs in the batch's transaction, and the future
    its result goes to."""

    run: Callable[[Unit], Any]
    future: Future[Any]
    refuse: Callable[[Unit, str], None] | None = None  # keeps a refusal (events only)
    # a light job refuses (if at all) before it writes anything, so it needs no savepoint of
    # its own; should one fail anyway, the batch is done again with a savepoint for each job
    light: bool = False
    what: str = ""  # the event, for the log
    # a START GAME / END GAME: recorded with the others of its batch
    # (core/tablegames/ingest/bulk.py)
    item: bulk.Item | None = None
    table: str | None = None  # the table it writes for (an event, a link state): fenced
    queued: float = field(default_factory=time.monotonic)  # when it was submitted


class NotHeld(RuntimeError):
    """A write for a table this service does not hold (any more): refused by the fence
    before anything was written."""

    def __init__(self, table: str) -> None:
        super().__init__(f"table {table}: not held by this service (another service claimed "
                         "it, or this service's lease on it ended); nothing was written")
        self.table = table


class Retry(Exception):
    """A light job failed: do the batch again with a savepoint for every job."""


def transaction(ctx: FloorContext, batch: list[Job], results: list[tuple[bool, Any]], *,
                savepoints: bool, due_links: Callable[[], dict[str, bool]],
                fence: Fence | None) -> tuple[Unit, FloorChange]:
    """Record ``batch`` in one transaction (committed on return); ``due_links()`` gives the
    link states (table -> online) to write, ``fence`` the tables not held.  A link that came
    up is written first (the events it carried follow it); a link that went down last: the
    batch's events of that table came over the link before it went down (a START GAME read
    just before a link closed, or a service stopped, is recorded, not refused as OFFLINE)."""
    with ctx.session() as s, s.begin():
        u = Unit(s, ctx.now(), ctx.cache)
        due = due_links()
        tables = {job.table for job in batch if job.table is not None} | set(due)
        # first: the tables this service holds at its epoch (their claims locked to the
        # commit); the jobs of the others are not run
        unheld = fence(s.connection(), tables) if fence is not None and tables else set()
        # then the links that came up, of the states asked for and not committed yet (a
        # table not held: its next service writes its state)
        _links(u, {t: online for t, online in due.items() if online}, unheld)
        if any(not job.light for job in batch):  # a hit may make a slip: its lock first
            slips.lock_sequence(ctx, u)
        run: list[Job] = []  # START GAME / END GAME waiting to go in together
        for job in batch:
            if job.table in unheld:
                _bulk(ctx, u, run, results)
                results.append((False, NotHeld(job.table or "")))
                continue
            if job.item is not None and not savepoints:
                run.append(job)
                continue
            _bulk(ctx, u, run, results)
            results.append(_one(u, job, savepoint=savepoints or not job.light))
        _bulk(ctx, u, run, results)
        # last, the links that went down (after the events they carried)
        _links(u, {t: online for t, online in due.items() if not online}, unheld)
        return u, changes.change_of(ctx, u, "event")


def _links(u: Unit, states: dict[str, bool], unheld: set[str]) -> None:
    for table, online in sorted(states.items()):
        if table in unheld:
            continue
        try:
            setup.set_link(u, table, online)
        except FloorError as exc:  # a table not on this floor: nothing was written
            log.error("ledger writer: a link state is not recorded: %s", exc)


def _bulk(ctx: FloorContext, u: Unit, run: list[Job],
          results: list[tuple[bool, Any]]) -> None:
    """Record a run of START GAME / END GAME together (their refusals, like any light
    event's, come before they write anything); an unexpected failure does the batch again
    one job at a time, each in its savepoint."""
    if not run:
        return
    items = [job.item for job in run if job.item is not None]
    for it in items:
        it.done, it.error, it.slow = None, None, False

    def one_by_one(it: bulk.Item) -> None:
        try:
            it.done = ingest.record(ctx, u, it.origin, it.event)
        except OutOfOrder as exc:
            it.error = exc
        except UnicodeError:  # the driver could not encode a value: not a refusal
            raise
        except ValueError as exc:  # refused before anything was written
            it.error = exc
            record_refusal(u, it.origin, it.event, str(exc) or type(exc).__name__)

    try:
        bulk.record(ctx, u, items, one_by_one)
    except Exception as exc:
        raise Retry from exc
    for it in items:
        results.append((False, it.error) if it.error is not None else (True, it.done))
    run.clear()


def _one(u: Unit, job: Job, *, savepoint: bool) -> tuple[bool, Any]:
    child = u.child()
    s = u.s
    if not savepoint:
        try:
            value = job.run(child)
        except OutOfOrder as exc:  # raised before the job wrote anything
            return False, exc
        except Exception as exc:
            raise Retry from exc
        u.merge(child)
        return True, value
    try:
        with s.begin_nested():
            value = job.run(child)
    except OutOfOrder as exc:
        return False, exc
    except UnicodeError:  # the driver could not encode a value: not a refusal by the floor
        raise
    except ValueError as exc:
        reason = str(exc) or type(exc).__name__
        if job.refuse is not None:
            with s.begin_nested():
                job.refuse(u, reason)
        return False, exc
    except IntegrityError as exc:
        # another writer (a second podium) stored the same (table, boot, seq) first
        return False, exc
    u.merge(child)
    return True, value
