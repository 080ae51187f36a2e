"""Writers' locks on a shared PostgreSQL ledger that no reader can hold (issue 23).

Up to revision 0022 the chain seal, the Bad Beat Jackpot fund and the migrations serialized on
PostgreSQL *advisory* locks.  Any login may take any advisory lock (``pg_advisory_lock`` can not
be revoked from PUBLIC by the database owner), so a login in ``podium_reader``, even READ ONLY,
could hold the chain's key and freeze every writer of the floor.

From revision 0023 a writers' lock is a ROW of ``ledger_locks`` (one per lock, in the ledger's
own schema, so two ledgers of one database never share one) locked with ``SELECT ... FOR
UPDATE``.  That needs the UPDATE privilege on the table, which ``podium_writer`` holds and
``podium_reader`` does not (its SELECT gives it ``LOCK TABLE ... IN ACCESS SHARE MODE`` at most,
which conflicts with no row lock).  The lock is held to the end of the transaction.

A writer waits for a lock at most ``lock_timeout_s`` (:func:`lock_timeout_s`: the environment
variable ``PODIUM_LOCK_TIMEOUT``, seconds, default 30), then its transaction fails with ONE
:class:`LockTimeout` line naming the session that holds the lock (backend pid, login,
application name, since when), read from ``pg_locks`` and ``pg_stat_activity``.

SQLite needs none of this: its write transactions are serialized by ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import os
from datetime import UTC
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

ENV = "PODIUM_LOCK_TIMEOUT"
DEFAULT_TIMEOUT_S = 30.0
CHAIN = "chain"  # the chain seal's lock: one line of chain rows, however many podiums write
_INSTALLED = "podium_locks_installed"


class LockTimeout(RuntimeError):
    """A writer waited longer than the bound for a lock; the message names the holder."""


def lock_timeout_s() -> float:
    """How long a writer waits for a writers' lock (``$PODIUM_LOCK_TIMEOUT`` seconds, 0.1 to
    3600; default 30).  A value that is not a number in range is refused by name."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.1 <= value <= 3600:
        raise ValueError(f"{ENV}={raw[:40]!r}: seconds from 0.1 to 3600 expected")
    return value


def installed(conn: Connection) -> bool:
    """Whether this ledger has ``ledger_locks`` (revision 0023; a ledger being migrated
    through older revisions seals under the advisory lock those revisions used)."""
    if conn.info.get(_INSTALLED):
        return True
    found = bool(conn.execute(text("SELECT to_regclass('ledger_locks') IS NOT NULL")).scalar())
    if found:
        conn.info[_INSTALLED] = True
    return found


def take(conn: Connection, name: str) -> None:
    """Hold the writers' lock ``name`` until this transaction ends (PostgreSQL).  Uncontended:
    one statement.  Held by another writer: wait at most :func:`lock_timeout_s`, then
    :class:`LockTimeout` naming the holder (the transaction is then lost)."""
    got = conn.execute(text("SELECT 1 FROM ledger_locks WHERE name = :n FOR UPDATE SKIP LOCKED"),
                       {"n": name}).first()
    if got is not None:
        return
    exists = conn.execute(text("SELECT 1 FROM ledger_locks WHERE name = :n"),
                          {"n": name}).first()
    if exists is None:
        # a lock named for the first time (a fund's): made, then taken (two writers making it
        # at once: the second waits for the first's row, then finds it)
        conn.execute(text("INSERT INTO ledger_locks (name) VALUES (:n) ON CONFLICT DO NOTHING"),
                     {"n": name})
    timeout_ms = int(lock_timeout_s() * 1000)
    conn.execute(text("SELECT set_config('lock_timeout', :t, true)"), {"t": f"{timeout_ms}ms"})
    try:
        conn.execute(text("SELECT 1 FROM ledger_locks WHERE name = :n FOR UPDATE"),
                     {"n": name})
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) != "55P03":  # lock_not_available
            raise
        raise LockTimeout(f"ledger lock {name!r}: not free after {timeout_ms / 1000:g} s "
                          f"({ENV}); {holder(conn, name)}") from None


# the session whose transaction holds one of the lock rows named (psycopg parameter style: a
# list of names): the row's xmax is the locking transaction, pg_locks its backend
HOLDER_SQL = """SELECT a.pid, a.usename, a.application_name, a.xact_start
FROM ledger_locks k JOIN pg_locks l ON l.locktype = 'transactionid' AND l.granted
 AND l.mode = 'ExclusiveLock' AND l.transactionid = k.xmax
JOIN pg_stat_activity a ON a.pid = l.pid WHERE k.name = ANY(%s) LIMIT 1"""


def holder(conn: Connection, name: str) -> str:
    """Who holds the writers' lock ``name``, in words (read on a connection of its own: the
    caller's transaction has failed)."""
    try:
        with conn.engine.connect() as other:
            row = other.execute(text(HOLDER_SQL.replace("%s", ":n")), {"n": [name]}).first()
            other.rollback()
    except Exception as exc:  # noqa: BLE001 - the holder is a courtesy; the timeout stands
        return f"its holder could not be read ({type(exc).__name__})"
    return describe(row)


def describe(row: Any) -> str:
    """A holding session in words: pid, login, application, since when."""
    if row is None:
        return "its holder has ended meanwhile"
    pid, login, app, since = row
    when = (f"{since.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" if since is not None
            else "a time this login may not see")
    return (f"held by backend pid {pid} (login {login}, application {app or '(none)'!r}, "
            f"its transaction open since {when})")
