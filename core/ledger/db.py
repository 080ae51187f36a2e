"""Engines for the ledger (SQLite on one podium, PostgreSQL for several) and migrations.

SQLite: WAL + ``synchronous=FULL`` (durable across power loss), ``foreign_keys=ON``, and
SQLAlchemy's "Serializable isolation / Savepoints / Transactional DDL" recipe: the driver's own
transaction handling is switched off (``isolation_level=None``) and every SQLAlchemy transaction
starts with ``BEGIN IMMEDIATE``, so a writer takes the database lock up front and two consoles
(threads) never interleave a read-then-write.

Reads never take the write lock: :func:`reader` gives an engine for read-only work (on SQLite a
sibling engine whose transactions are plain deferred ``BEGIN`` on ``query_only`` connections, so
they read a WAL snapshot while a writer commits; on PostgreSQL the same engine, whose plain reads
take no lock).

PostgreSQL: ``postgresql+psycopg://`` (psycopg 3); the floor locks rows with SELECT ... FOR UPDATE.
A URL may name several servers, a primary and its standbys, with ``target_session_attrs`` (libpq's
multi-host form, which SQLAlchemy passes on: ``postgresql+psycopg://podium@/podium?host=db1:5432&
host=db2:5432&target_session_attrs=read-write``): every new connection goes to the one that takes
writes, each server tried for at most :data:`CONNECT_TIMEOUT_S` (docs/standby.md).

The accountant's and surveillance's desks open the ledger with :func:`read_only_engine`: an engine
the database itself refuses to let write (SQLite: the file opened read-only; PostgreSQL: the
``podium_reader`` role, read-only transactions).

Every engine made here seals its transactions into the ledger's hash chain just before they
commit (:func:`core.ledger.integrity.install`).

A failure met on these engines is read in core/ledger/outages.py (:func:`problem`,
:func:`ledger_problem`, :class:`LedgerUnavailable`).
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import platformdirs
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from core.ledger import guards, integrity, locks

APP_NAME = "podium"
_HERE = Path(__file__).resolve().parent
MIGRATIONS = _HERE / "migrations"


#: A ledger file Podium creates: the owner (the account that runs Podium) alone reads and
#: writes it, whatever the umask; SQLite gives its -wal and -shm files the same mode.
LEDGER_FILE_MODE = 0o600


def default_url(*, create: bool = True) -> str:
    """The SQLite ledger in the user's data folder.  ``create``: make the folder if missing
    (mode 0700: only its owner lists the ledger); a read-only command passes False and so
    creates nothing (an absent ledger is then refused by name)."""
    folder = Path(platformdirs.user_data_dir(APP_NAME))
    if create:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'ledger.sqlite3'}"


DEMO_LEDGER = "demo.sqlite"  # the embedded demo floor's ledger (podium demo, make run)


def floor_url(floor: str, *, create: bool = True) -> str:
    """The ledger a command uses when no ``--db`` is given, for the floor file ``floor``: the
    embedded demo floor (``"demo"``) keeps its ledger in ``demo.sqlite`` in the user data
    folder (the one ``make run`` / ``podium demo`` made), any other floor in
    :func:`default_url`'s ``ledger.sqlite3``."""
    url = default_url(create=create)
    return url.replace("ledger.sqlite3", DEMO_LEDGER) if floor == "demo" else url


def _private_ledger_file(path: Path) -> None:
    """Create the SQLite ledger file ``path`` with :data:`LEDGER_FILE_MODE` if it does not
    exist yet, before SQLite does (it would create it 0644 under the usual umask, readable
    by every local account).  An existing file keeps its mode: a casino may have chosen 0640
    with a group (docs/operator.md "File permissions")."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, LEDGER_FILE_MODE)
    except FileExistsError:
        return
    except OSError:  # no such folder, no permission ...: SQLite names the problem itself
        return
    try:
        os.fchmod(fd, LEDGER_FILE_MODE)  # the umask may have taken more bits than ours
    finally:
        os.close(fd)


PG_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 2, "keepalives_interval": 1,
                 "keepalives_count": 3, "tcp_user_timeout": 5000}
STATEMENT_TIMEOUT_ENV = "PODIUM_STATEMENT_TIMEOUT"
DEFAULT_STATEMENT_TIMEOUT_S = 60.0


def statement_timeout_s() -> float:
    """How long one ledger statement may run on PostgreSQL (``$PODIUM_STATEMENT_TIMEOUT``
    seconds, 0.1 to 86400, or 0 for no bound; default 60, above ``PODIUM_LOCK_TIMEOUT``'s 30 so
    that a writer waiting for a lock hears the lock's own timeout, naming its holder).  The
    server cancels a statement that runs longer (``statement_timeout``); the ledger writer
    closes a connection on which no answer came a few seconds after it
    (core/tablegames/ingest/writer.py).  A value that is not a number in range is refused by
    name."""
    raw = os.environ.get(STATEMENT_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_STATEMENT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value != 0 and not 0.1 <= value <= 86_400:
        raise ValueError(f"{STATEMENT_TIMEOUT_ENV}={raw[:40]!r}: seconds from 0.1 to 86400 "
                         "expected (0: no bound)")
    return value

#: Seconds a connection attempt waits for each server of the URL.  Without it a server that
#: takes the TCP connection but never answers (a frozen or half-dead primary) holds the
#: attempt for good, and a multi-host URL never reaches the next server (docs/standby.md).
CONNECT_TIMEOUT_S = 5


def _pg_connect_args(parsed: URL, given: dict[str, Any]) -> dict[str, Any]:
    """The connection options of a PostgreSQL ledger engine: ``given``, then the URL's own,
    then :data:`CONNECT_TIMEOUT_S` (SQLAlchemy lets ``connect_args`` override the URL's)."""
    args = dict(given)
    if "connect_timeout" not in parsed.query:
        args.setdefault("connect_timeout", CONNECT_TIMEOUT_S)
    return args


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url`` with the durability and locking settings of this module."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        _sqlite_options(parsed)
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args.setdefault("timeout", 30)
        connect_args.setdefault("check_same_thread", False)
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        path = sqlite_file(parsed)
        if path is not None and "mode=ro" not in url:  # (a read-only open creates nothing)
            _create_private(engine, path)
        _sqlite_recipe(engine)
        integrity.install(engine)
        return engine
    if backend == "postgresql":
        if parsed.get_driver_name() not in ("psycopg", ""):
            raise ValueError(f"ledger url: use postgresql+psycopg:// (psycopg 3), not {url!r}")
        if parsed.get_driver_name() == "":
            url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
        # a dead network is noticed in about 5 s on every connection (TCP keepalives, and
        # data unacknowledged for 5 s): a floor service whose lock connection died gives its
        # tables up before the server frees their locks for a standby (about 11 s: see
        # core/controllers/ownership.py); a connection that is made but never answered is
        # given up after CONNECT_TIMEOUT_S (each server of the URL), a statement after the
        # statement timeout
        connect_args = _pg_connect_args(parsed, {**PG_KEEPALIVES,
                                                 **kwargs.pop("connect_args", {})})
        timeout_ms = round(statement_timeout_s() * 1000)
        if timeout_ms:  # after the options given (here, else in the URL: ?options=...)
            given = connect_args.get("options", parsed.query.get("options", ""))
            options = " ".join(given) if isinstance(given, tuple) else str(given)
            connect_args["options"] = f"{options} -c statement_timeout={timeout_ms}".strip()
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        integrity.install(engine)
        return engine
    raise ValueError(f"ledger url: unsupported database {backend!r} (use sqlite or postgresql)")


def own_connection(engine: Engine) -> Any:
    """A psycopg connection of its own on ``engine``'s PostgreSQL ledger, never back in the
    pool, in autocommit: the feed's listener, a service's lock connection.  Taken from the pool
    and tried with one statement through SQLAlchemy first: a pooled connection to a server that
    has gone (a failover, a restart) is noticed there, SQLAlchemy drops it and every pooled one
    as old, and a new connection is made at once (without the try, each such connection would
    cost the caller a failed attempt, one a second)."""
    conn = engine.connect()
    try:
        conn.exec_driver_sql("SELECT 1")
        conn.rollback()
    except DBAPIError as exc:
        conn.close()
        if not exc.connection_invalidated:
            raise
        conn = engine.connect()  # the pooled ones as old were dropped: this one is new
    driver = conn.connection.driver_connection
    conn.detach()  # its own: never back in the pool
    assert driver is not None
    driver.autocommit = True
    return driver


#: What pysqlite takes from a plain sqlite:/// URL's query (SQLite's own URI options, such as
#: mode=ro, need uri=true).
_PYSQLITE_OPTIONS = frozenset({"timeout", "isolation_level", "detect_types",
                               "check_same_thread", "cached_statements", "uri"})


def _sqlite_options(parsed: URL) -> None:
    """Refuse options SQLAlchemy would ignore with only a warning (two lines on a terminal,
    and a ``?mode=ro`` ignored opens the ledger for writing)."""
    if "uri" in parsed.query:
        return
    ignored = sorted(k for k in parsed.query if k not in _PYSQLITE_OPTIONS)
    if ignored:
        raise ValueError(f"ledger url: SQLite option(s) {', '.join(ignored)} need uri=true "
                         "in the URL (e.g. sqlite:///file:ledger.sqlite3?mode=ro&uri=true)")


def _create_private(engine: Engine, path: Path) -> None:
    """The ledger file is made private when SQLite would first create it (at the first
    connection, not when the engine is made: a command that refuses before connecting
    leaves no file)."""

    @event.listens_for(engine, "do_connect")
    def _before_connect(dialect: Any, conn_rec: Any, cargs: Any, cparams: Any) -> None:
        _private_ledger_file(path)


def _sqlite_recipe(engine: Engine, *, read_only: bool = False, set_wal: bool = True) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Stop pysqlite from emitting its own BEGIN (and COMMIT before DDL).
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        try:
            if set_wal:  # (a file opened read-only keeps the journal mode it has: WAL)
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA foreign_keys=ON")
            if read_only:
                cur.execute("PRAGMA query_only=ON")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # a reader's deferred BEGIN reads one WAL snapshot and never waits for a writer
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def sqlite_file(url: str | URL) -> Path | None:
    """The database file of a SQLite ledger URL (plain or ``file:`` URI form); None for an
    in-memory database."""
    parsed = make_url(url)
    database = parsed.database or ""
    if database.startswith("file:"):
        database = unquote(database[5:].split("?", 1)[0])
    if database in ("", ":memory:"):
        return None
    return Path(database)


def read_only_engine(url: str, *, connect_args: dict[str, Any] | None = None,
                     role: str = guards.READER_ROLE, **engine_args: Any) -> Engine:
    """An engine on the ledger at ``url`` that the database refuses to let write: the desks'
    (core/desks/desk.py).  It neither migrates nor checks anything:
    :func:`core.desks.desk.open_ledger` does that first.

    SQLite: the file opened read-only (``file:...?mode=ro`` URI): any INSERT, UPDATE, DELETE
    or DDL fails with "attempt to write a readonly database"; its connections are also
    ``query_only`` and begin plain deferred transactions, so a desk reads a WAL snapshot beside
    a live console and never waits for its write lock.  PostgreSQL: every connection runs ``SET
    ROLE`` ``role`` (SELECT only; the login role must be a member) and ``SET SESSION
    CHARACTERISTICS AS TRANSACTION READ ONLY``: a write fails as a read-only transaction, and
    with the transaction made READ WRITE, for want of the privilege.

    The hash chain's commit hook is installed as on every ledger engine: it seals only a
    transaction that inserted chained rows, which these connections can not do, so committing
    a read writes nothing.  ``engine_args`` go to ``create_engine`` (a room display's pool
    settings: core/desks/signage.py)."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = sqlite_file(parsed)
        if path is None:
            raise ValueError("ledger url: an in-memory SQLite database has no ledger to read")
        query = {k: v for k, v in parsed.query.items() if k not in ("mode", "uri")}
        query.update({"mode": "ro", "uri": "true"})
        ro = URL.create("sqlite", database="file:" + quote(str(path.resolve())), query=query)
        args = dict(connect_args or {})
        args.setdefault("timeout", 30)
        args.setdefault("check_same_thread", False)
        engine = create_engine(ro, connect_args=args, **engine_args)
        _sqlite_recipe(engine, read_only=True, set_wal=False)
        integrity.install(engine)
        return engine
    if backend == "postgresql":
        if not role.replace("_", "").isalnum():
            raise ValueError(f"reader role {role!r}: not a plain role name")
        if parsed.get_driver_name() not in ("psycopg", ""):
            raise ValueError(f"ledger url: use postgresql+psycopg:// (psycopg 3), not {url!r}")
        engine = create_engine(parsed.set(drivername="postgresql+psycopg"),
                               connect_args=_pg_connect_args(parsed, connect_args or {}),
                               **engine_args)

        @event.listens_for(engine, "connect")
        def _as_reader(dbapi_connection: Any, connection_record: Any) -> None:
            autocommit = dbapi_connection.autocommit
            dbapi_connection.autocommit = True
            try:
                with dbapi_connection.cursor() as cur:
                    cur.execute(f"SET ROLE {role}")
                    cur.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            finally:
                dbapi_connection.autocommit = autocommit

        integrity.install(engine)
        return engine
    raise ValueError(f"ledger url: unsupported database {backend!r} (use sqlite or postgresql)")


_readers: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()
_readers_lock = threading.Lock()


def reader(engine: Engine) -> Engine:
    """The engine for read-only work on ``engine``'s ledger (one per engine, made on first use).

    SQLite: a sibling engine on the same file whose transactions start with a deferred ``BEGIN``
    on ``PRAGMA query_only`` connections: a reader sees the last committed state (WAL snapshot),
    never takes the write lock and can not write by mistake.  PostgreSQL: ``engine`` itself
    (plain reads take no row locks)."""
    if engine.dialect.name != "sqlite":
        return engine
    with _readers_lock:
        found = _readers.get(engine)
        if found is not None:
            return found
        url = engine.url.render_as_string(hide_password=False)
        if url in ("sqlite://", "sqlite:///:memory:"):
            return engine  # a private in-memory database has no second connection to read
        eng = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        _sqlite_recipe(eng, read_only=True)
        _readers[engine] = eng
        # disposing the ledger's engine closes its reader's connections too (each holds the
        # file, its -wal and -shm open: a test suite ran out of file descriptors)
        event.listen(engine, "engine_disposed", lambda _conn: eng.dispose())
        return eng


def lock_record(session: Session, table: str, key: object) -> None:
    """Serialize writers on one record (e.g. a Bad Beat Jackpot fund) until the transaction
    ends.  Records are append-only, and PostgreSQL's ``SELECT ... FOR UPDATE`` needs an UPDATE
    privilege the application's role does not hold on them: the record's row of
    ``ledger_locks`` instead (revision 0023, core/ledger/locks.py: a lock no reader can hold;
    before, an advisory lock any login could).  SQLite's write transactions are serialized
    already (``BEGIN IMMEDIATE``)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    conn = session.connection()
    if locks.installed(conn):
        name = f"{table}:{key}"
        if len(name) > 200:  # ledger_locks.name: a long key by its digest
            name = f"{table}:sha256:{hashlib.sha256(name.encode()).hexdigest()}"
        locks.take(conn, name)
    else:  # a ledger being migrated through older revisions
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": f"{table}:{key}"})


def alembic_config() -> Config:
    """Programmatic Alembic configuration; the migrations ship inside this package."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the ledger schema up to ``revision`` (one transaction)."""
    cfg = alembic_config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            if revision == "head" and _at_head(conn, cfg):
                # nothing to do: no lock either (any login, a reader's too, may hold the
                # migration's advisory key: it must not stop a podium from starting)
                return
            # several podiums and services start at once on one ledger: one migrates, the
            # others wait for it (at most the lock timeout) and then find the schema up to date
            conn.execute(text("SELECT set_config('lock_timeout', :t, true)"),
                         {"t": f"{int(locks.lock_timeout_s() * 1000)}ms"})
            # a migration may rewrite a big table: not bound by the statement timeout
            conn.execute(text("SELECT set_config('statement_timeout', '0', true)"))
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtext('podium-migrate:' || "
                              "current_schema()))"))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def _at_head(conn: Connection, cfg: Config) -> bool:
    """Whether the ledger is at the newest revision this Podium knows (read, no lock)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    if not conn.execute(text("SELECT to_regclass('alembic_version') IS NOT NULL")).scalar():
        return False
    current = MigrationContext.configure(conn).get_current_heads()
    return set(current) == set(ScriptDirectory.from_config(cfg).get_heads())
