"""Engines for the ledger (SQLite on one podium, PostgreSQL for several) and migrations.

SQLite: WAL + ``synchronous=FULL`` (durable across power loss), ``foreign_keys=ON``, and
SQLAlchemy's "Serializable isolation / Savepoints / Transactional DDL" recipe: the driver's own
transaction handling is switched off (``isolation_level=None``) and every SQLAlchemy transaction
starts with ``BEGIN IMMEDIATE``, so a writer takes the database lock up front and two consoles
(threads) never interleave a read-then-write.

PostgreSQL: ``postgresql+psycopg://`` (psycopg 3); the floor locks rows with SELECT ... FOR UPDATE.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import platformdirs
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

APP_NAME = "podium"
_HERE = Path(__file__).resolve().parent
MIGRATIONS = _HERE / "migrations"


def default_url() -> str:
    """The SQLite ledger in the user's data folder (created if missing)."""
    folder = Path(platformdirs.user_data_dir(APP_NAME))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'ledger.sqlite3'}"


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url`` with the durability and locking settings of this module."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args.setdefault("timeout", 30)
        connect_args.setdefault("check_same_thread", False)
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        _sqlite_recipe(engine)
        return engine
    if backend == "postgresql":
        if parsed.get_driver_name() not in ("psycopg", ""):
            raise ValueError(f"ledger url: use postgresql+psycopg:// (psycopg 3), not {url!r}")
        if parsed.get_driver_name() == "":
            url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
        return create_engine(url, **kwargs)
    raise ValueError(f"ledger url: unsupported database {backend!r} (use sqlite or postgresql)")


def _sqlite_recipe(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Stop pysqlite from emitting its own BEGIN (and COMMIT before DDL).
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA foreign_keys=ON")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def alembic_config() -> Config:
    """Programmatic Alembic configuration; the migrations ship inside this package."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the ledger schema up to ``revision`` (one transaction)."""
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
