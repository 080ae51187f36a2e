"""A migrated ledger in milliseconds: the schema is migrated with Alembic ONCE per test process
(per pytest-xdist worker), into a template, and every test that needs an empty ledger at the
head revision gets a copy of it.

- SQLite: a template file, migrated once; a ledger is filled from it with SQLite's online
  backup API (the target engine made by ``make_engine`` keeps its private file, WAL and pragmas).
- PostgreSQL: a template schema, migrated once and dumped with ``pg_dump --schema``
  (tables, sequences, functions, triggers, row security, grants to podium_reader/podium_writer,
  default privileges, alembic_version); a ledger schema is filled by running that script with
  the template's name replaced by the target schema's, in one transaction.

``migrate(engine)`` stands in for ``upgrade(engine)`` on an EMPTY ledger wherever a test does
not test the migration itself (tests/core/ledger/test_ledger_template.py checks the copy is the
migration).
"""

from __future__ import annotations

import atexit
import os
import re
import secrets
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import psycopg
from sqlalchemy import Engine, create_engine, make_url, text

from core.ledger.db import make_engine, sqlite_file, upgrade

_lock = threading.Lock()
_sqlite_template: Path | None = None
# conninfo -> (template schema name, dump script); None: no pg_dump that can dump this server
# (not installed, older than the server): each ledger is then migrated with Alembic
_pg_scripts: dict[str, tuple[str, str] | None] = {}


def _conninfo(engine: Engine) -> str:
    """A libpq URL for ``engine``'s server and database (no driver, no options)."""
    return libpq_url(engine.url.render_as_string(hide_password=False))


def libpq_url(url: str) -> str:
    """A libpq URL for the server and database of the SQLAlchemy ``url``."""
    return make_url(url).set(drivername="postgresql", query={}).render_as_string(
        hide_password=False)


def sqlite_template() -> Path:
    """The migrated SQLite template file of this process (made at the first call)."""
    global _sqlite_template
    with _lock:
        if _sqlite_template is None:
            folder = Path(tempfile.mkdtemp(prefix="podium-ledger-template-"))
            atexit.register(shutil.rmtree, folder, True)
            path = folder / "template.sqlite3"
            eng = make_engine(f"sqlite:///{path}")
            upgrade(eng)
            eng.dispose()  # (the last connection closed checkpoints the WAL into the file)
            _sqlite_template = path
        return _sqlite_template


def _pg_template(conninfo: str) -> tuple[str, str] | None:
    """(template schema name, pg_dump script of it) for the server ``conninfo`` (made once)."""
    with _lock:
        if conninfo not in _pg_scripts:
            schema = f"t_template_{os.getpid()}_{secrets.token_hex(4)}"
            admin = create_engine(make_url(conninfo).set(drivername="postgresql+psycopg"))
            try:
                with admin.begin() as conn:
                    conn.execute(text(f'CREATE SCHEMA "{schema}"'))
                eng = make_engine(make_url(conninfo).set(drivername="postgresql+psycopg")
                                  .render_as_string(hide_password=False),
                                  connect_args={"options": f"-csearch_path={schema}"})
                try:
                    upgrade(eng)
                finally:
                    eng.dispose()
                try:
                    dump: str | None = subprocess.run(
                        ["pg_dump", "--dbname", conninfo, "--schema", schema, "--no-owner",
                         "--inserts", "--no-comments"],
                        check=True, capture_output=True, text=True, timeout=120).stdout
                except (OSError, subprocess.SubprocessError):
                    dump = None
            finally:
                with admin.begin() as conn:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
                admin.dispose()
            _pg_scripts[conninfo] = None if dump is None else (schema, _restorable(dump, schema))
        return _pg_scripts[conninfo]


def _restorable(dump: str, schema: str) -> str:
    """The dump as one script for psycopg: no psql meta-commands (``\\restrict``), no
    CREATE SCHEMA (the target schema exists), no session-wide settings left behind."""
    lines = []
    for line in dump.splitlines():
        if line.startswith("\\"):
            continue
        lines.append(line)
    script = "\n".join(lines)
    script = re.sub(rf'^CREATE SCHEMA "?{schema}"?;$', "", script, flags=re.MULTILINE)
    return script


def migrate(engine: Engine) -> None:
    """Bring the EMPTY ledger of ``engine`` to the head revision by copying the template."""
    if engine.dialect.name == "sqlite":
        _copy_sqlite(engine)
    elif engine.dialect.name == "postgresql":
        _copy_pg(engine)
    else:  # pragma: no cover - only the two backends exist
        upgrade(engine)


def _copy_sqlite(engine: Engine) -> None:
    path = sqlite_file(engine.url)
    if path is None:  # an in-memory database: migrate it
        upgrade(engine)
        return
    source = sqlite3.connect(sqlite_template())
    try:
        with engine.connect() as conn:
            target = conn.connection.driver_connection
            assert target is not None
            source.backup(target)
    finally:
        source.close()


def _copy_pg(engine: Engine) -> None:
    conninfo = _conninfo(engine)
    found = _pg_template(conninfo)
    if found is None:
        upgrade(engine)
        return
    template, script = found
    with engine.connect() as conn:
        schema = conn.execute(text("SELECT current_schema()")).scalar_one()
    script = script.replace(template, schema)
    with psycopg.connect(conninfo, autocommit=False) as raw:
        raw.execute(script)  # (no parameters: the whole script in one round trip)
        raw.commit()


def sqlite_ledger(path: Path) -> Engine:
    """An engine on a new, migrated SQLite ledger file at ``path`` (a copy of the template)."""
    eng = make_engine(f"sqlite:///{path}")
    migrate(eng)
    return eng


# -- PostgreSQL ledger copies off the test's path ----------------------------------------------

#: how long the ``engine`` fixture waits for its ready copy (the replay takes a fraction of a
#: second; a server that takes longer is broken, and the test fails saying so)
COPY_WAIT_S = 120.0
#: how long a finished schema's DROP waits for a lock (a connection the test left open); past
#: it the drop is tried again when the session ends
DROP_LOCK_WAIT_MS = 5_000
#: how long the end of the session waits for the copier (its last drops included)
CLOSE_WAIT_S = 120.0


class PgCopies:
    """ONE migrated ledger schema made ahead of the ``engine`` fixture of this process, and the
    schemas of finished tests dropped, by a thread of its own with a connection of its own:
    the same replay of the template's dump as :func:`migrate` (``CREATE SCHEMA`` and the script
    in one transaction), off the test's path.

    ``take()`` hands out the ready schema (waiting for it at most ``COPY_WAIT_S``) and the thread
    makes the next; ``give_back(schema)`` queues a finished test's schema, dropped after the next
    copy is ready (a copy first: the next test waits for it, nobody waits for a drop).  A drop
    that waits more than ``DROP_LOCK_WAIT_MS`` for a lock is tried again by ``close()``, which
    stops the thread at the end of the session and drops what is left (the ready copy too).
    A worker killed outright (kill -9, the hard exit of tests/conftest.py) leaves its schemas
    (the test's, the ready copy, drops not yet made) in the test database, as a killed worker
    always left its test's schema: every test makes and reads only schemas of its own, named
    at random, so nothing sees them."""

    def __init__(self, conninfo: str, template: str, script: str) -> None:
        self._conninfo = conninfo
        self._template = template
        self._script = script
        self._cond = threading.Condition()
        self._ready: str | None = None
        self._error: BaseException | None = None
        self._finished: list[str] = []  # given back, to drop (in that order)
        self._stuck: list[str] = []  # a drop that waited too long for a lock: again at close
        self._left: list[str] = []  # what the thread drops as it stops
        self._stopping = False
        self.undropped: list[str] = []  # what close() could not drop (said on stderr)
        self._owner = os.getpid()
        self._thread = threading.Thread(target=self._run, name="ledger-copies", daemon=True)
        self._thread.start()

    # -- the test's side (the main thread) --

    def take(self, timeout: float = COPY_WAIT_S) -> str:
        """The name of a new schema holding an empty ledger at the head revision (the test's
        own: it hands it back with ``give_back``)."""
        with self._cond:
            if not self._cond.wait_for(
                    lambda: self._ready is not None or self._error is not None, timeout):
                raise TimeoutError(f"no PostgreSQL ledger copy within {timeout:g} s "
                                   f"(tests/ledgers.py PgCopies, thread alive: "
                                   f"{self._thread.is_alive()})")
            if self._ready is None:
                error, self._error = self._error, None
                self._cond.notify_all()  # (the thread tries again)
                assert error is not None
                raise error
            schema, self._ready = self._ready, None
            self._cond.notify_all()
            return schema

    def give_back(self, schema: str) -> None:
        """``schema``'s test is over (its engines disposed): drop it in the background."""
        with self._cond:
            self._finished.append(schema)
            self._cond.notify_all()

    def close(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Stop the thread once it has dropped every schema it made or was given back (the
        ready copy included); what it could not drop is said on stderr."""
        if os.getpid() != self._owner:  # (a forked child: the schemas are its parent's)
            return
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)
        with self._cond:
            undropped = [*self.undropped, *self._left]
            if self._thread.is_alive():
                undropped += [s for s in (self._ready, *self._finished, *self._stuck) if s]
        if undropped:
            sys.stderr.write(f"tests/ledgers.py: PostgreSQL schemas not dropped "
                             f"(copier alive: {self._thread.is_alive()}): "
                             f"{', '.join(undropped)}\n")

    # -- the thread's side --

    def _connect(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self._conninfo, autocommit=False, connect_timeout=10,
                               application_name="podium-tests-ledger-copies")

    def _make(self, conn: psycopg.Connection[tuple[object, ...]]) -> str:
        schema = f"t_{secrets.token_hex(6)}"
        conn.execute(f'CREATE SCHEMA "{schema}";\n'
                     + self._script.replace(self._template, schema))
        conn.commit()
        return schema

    @staticmethod
    def _drop(conn: psycopg.Connection[tuple[object, ...]], schema: str, lock_ms: int) -> None:
        # (the dump's SETs left lock_timeout at 0 on this connection: a limit for this drop)
        conn.execute(f"SET LOCAL lock_timeout = {lock_ms}")
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        conn.commit()

    def _work(self) -> str | None:
        """Wait for something to do: "" (stop), a schema to drop, or None (make a copy)."""
        with self._cond:
            self._cond.wait_for(lambda: self._stopping or bool(self._finished)
                                or (self._ready is None and self._error is None))
            if self._stopping:
                return ""
            if self._ready is None and self._error is None:
                return None  # (a copy first: a test may be waiting for it)
            return self._finished.pop(0)

    def _run(self) -> None:
        conn: psycopg.Connection[tuple[object, ...]] | None = None

        def connected() -> psycopg.Connection[tuple[object, ...]]:
            nonlocal conn
            if conn is None or conn.closed:
                conn = self._connect()
            return conn

        def disconnect() -> None:  # (an aborted or broken one: a new one next time)
            if conn is not None:
                conn.close()

        try:
            while (todo := self._work()) != "":
                try:
                    if todo is None:
                        schema = self._make(connected())
                        with self._cond:
                            self._ready = schema
                            self._cond.notify_all()
                    else:
                        self._drop(connected(), todo, DROP_LOCK_WAIT_MS)
                except Exception as exc:  # noqa: BLE001 - handed to the test that waits
                    disconnect()
                    with self._cond:
                        if todo is None:
                            self._error = exc
                        else:
                            self._stuck.append(todo)
                        self._cond.notify_all()
            with self._cond:
                self._left = [s for s in (self._ready, *self._finished, *self._stuck) if s]
                self._ready, self._finished, self._stuck = None, [], []
            while self._left:  # the end of the session: the leftovers, each drop bounded
                schema = self._left[0]
                try:
                    self._drop(connected(), schema, round(CLOSE_WAIT_S * 1000 / 4))
                except Exception:  # noqa: BLE001 - said by close()
                    disconnect()
                    with self._cond:
                        self.undropped.append(schema)
                with self._cond:
                    self._left.pop(0)
        finally:
            disconnect()


_copies: dict[str, PgCopies | None] = {}


def pg_copies(server: str) -> PgCopies | None:
    """This process's copier for ``server`` (a libpq URL), started at the first call once the
    template is made; None when there is no dump to replay (each ledger is then migrated with
    Alembic, :func:`migrate`)."""
    if server not in _copies:
        found = _pg_template(server)
        _copies[server] = None if found is None else PgCopies(server, *found)
        if len(_copies) == 1:
            atexit.register(close_pg_copies)  # (tests/conftest.py closes them before)
    return _copies[server]


def has_pg_copies(server: str) -> bool:
    """Whether :func:`pg_copies` was called for ``server`` already."""
    return server in _copies


def close_pg_copies() -> None:
    """Stop every copier of this process (the end of the session)."""
    for copies in _copies.values():
        if copies is not None:
            copies.close()
    _copies.clear()
