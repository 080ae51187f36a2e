"""When the ledger can not record, in words: a failed connection or transaction read as one line
(:func:`problem`: each server of a multi-host URL and why it failed), whether a failure is the
ledger's rather than the job's (:func:`ledger_problem`: a full disk, a database gone or out of
resources, read-only, a statement cut off, a writers' lock not free; then the job is done
again: :class:`LedgerUnavailable`), and the way out of a statement whose answer never comes
(:func:`break_connection`).  The engines these failures come from are core/ledger/db.py."""

from __future__ import annotations

import os
import re
import shutil
import socket
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from core.ledger import locks
from core.ledger.db import sqlite_file

# one failed server of a multi-host URL, as psycopg lists them when every one failed:
# "- host: '10.0.0.1', port: '5432', hostaddr: '10.0.0.1': connection failed: connection to
# server at "10.0.0.1", port 5432 failed: session is read-only"
_ATTEMPT = re.compile(r"^- host: '(?P<host>[^']*)', port: '(?P<port>[^']*)'.*?: connection "
                      r"failed: (?P<why>.*)$")


def problem(exc: BaseException) -> str:
    """A ledger error in one line, for a refusal or a log line: the first line of the driver's
    message; when every server of a multi-host URL failed, each server and why (the first line
    names only the last one), e.g. "no server of the ledger URL could be used: 127.0.0.1:5451
    Connection refused; 127.0.0.1:5452 session is read-only (not the primary)"."""
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    tried = []
    for line in lines:
        found = _ATTEMPT.match(line)
        if found:
            why = found["why"].rsplit(" failed: ", 1)[-1].removeprefix("FATAL:").strip()
            if why == "session is read-only":  # target_session_attrs=read-write said no
                why += " (not the primary)"
            tried.append(f"{found['host']}:{found['port']} {why}")
    if tried:
        return "no server of the ledger URL could be used: " + "; ".join(tried)
    return lines[0] if lines else type(exc).__name__


class LedgerUnavailable(RuntimeError):
    """The ledger can not record now, for a reason that is not the job's (its disk is full, its
    database is out of reach or out of resources); the message says why in one line.  Nothing
    of the job was written and nothing was refused: it is done again once the ledger records
    (a controller's event stays unacknowledged and is sent again)."""


#: SQLite result codes (``sqlite3.Error.sqlite_errorcode``, primary code in the low byte)
_SQLITE_FULL = 13


def ledger_problem(engine: Engine, exc: BaseException) -> str | None:
    """Why the ledger of ``engine`` can not record now, in one line, when ``exc`` (a failed
    transaction) says it can not: a full disk, a database gone, out of resources, read-only, a
    statement cut off, a writers' lock not free.  None: a failure of the job itself (a value
    the database refused, a fault of Podium's own)."""
    if isinstance(exc, LedgerUnavailable):
        return str(exc)
    if isinstance(exc, locks.LockTimeout):
        return str(exc)
    if isinstance(exc, PoolTimeout):
        return f"no connection to the ledger's database came free in time ({exc})"
    seen = 0
    while not isinstance(exc, DBAPIError) and seen < 3:  # e.g. a rollback that met the cause
        cause = exc.__cause__ or exc.__context__
        if cause is None:
            return None
        exc, seen = cause, seen + 1
    orig = getattr(exc, "orig", None)
    said = (str(orig or exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(orig, sqlite3.Error):
        if not isinstance(exc, OperationalError):
            return None
        free = _free_bytes(engine)
        if (getattr(orig, "sqlite_errorcode", 0) & 0xFF) == _SQLITE_FULL:
            return f"the ledger's disk is full: {free}"
        return f"the ledger's file can not be written ({said}); {free}"
    state = getattr(orig, "sqlstate", None) or ""
    if state == "53100":
        return f"the database server's disk is full: the server says: {said}"
    if state.startswith("53"):
        return f"the database server is out of resources ({state}): the server says: {said}"
    if state == "57014":
        return f"the database server cancelled a ledger statement: {said}"
    if state == "25006":
        return f"the ledger's database is read-only (a standby?): {said}"
    gone = state.startswith("08") or state in ("57P01", "57P02", "57P03") or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated)
    if gone or (not state and isinstance(exc, (OperationalError, InterfaceError,
                                                DisconnectionError))):
        return f"the ledger's database can not be reached: {said}"
    if isinstance(exc, OperationalError):  # a deadlock run again in vain, an I/O error ...
        return f"the database server did not take the batch ({state}): the server says: {said}"
    return None


def _free_bytes(engine: Engine) -> str:
    """The free space of the SQLite ledger's disk, in words."""
    path = sqlite_file(engine.url)
    folder = (path.resolve().parent if path is not None else Path.cwd())
    try:
        free = shutil.disk_usage(folder).free
    except OSError as exc:
        return f"the free space of {folder} can not be read ({exc.strerror or exc})"
    return f"{free:,} bytes free on {folder}"


def break_connection(dbapi_connection: Any) -> bool:
    """Close a PostgreSQL connection's socket under the thread that waits on it (which then
    gets an error, and the pool drops the connection): the way out of a statement whose answer
    never comes (a network that holds the bytes, a server that hangs).  False when there is
    no socket to close (SQLite, or a connection closed already)."""
    import psycopg

    fileno = getattr(dbapi_connection, "fileno", None)
    if fileno is None:
        return False
    try:
        sock = socket.socket(fileno=os.dup(fileno()))
    except (OSError, ValueError, psycopg.Error):
        return False
    with sock:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            return False
    return True
