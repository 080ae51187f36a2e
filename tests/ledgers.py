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
    url = engine.url.set(drivername="postgresql", query={})
    return url.render_as_string(hide_password=False)


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
