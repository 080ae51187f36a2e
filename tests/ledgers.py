"""A migrated ledger in milliseconds: the schema is migrated with Alembic ONCE per test process
(per pytest-xdist worker), into a template, and every test that needs an empty ledger at the
head revision gets a copy of it.

- SQLite: a template file, migrated once; a ledger is filled from it with SQLite's online
  backup API (the target engine made by ``make_engine`` keeps its private file, WAL and pragmas).
- PostgreSQL: a template schema, migrated once and dumped with ``pg_dump --schema``
  (tables, sequences, functions, triggers, row security, grants to podium_reader/podium_writer,
  default privileges, alembic_version); a ledger schema is filled by running that script with
  the template's name replaced by the target schema's, in one transaction.  A test's ledger
  schema is then used again, emptied, by the next test of the process (``pg_ledger``): at the
  end of a test its catalog is compared with the template's (``catalog``) and, if it is the
  same, its rows are deleted and the template's rows and sequence values put back, in one
  transaction; a schema whose catalog a test changed (a grant, a trigger disabled, a column) is
  dropped instead.  Making and dropping a schema of ~50 tables cost about 0.3 s of the server's
  time per test; emptying one costs a few milliseconds, and no longer bloats the catalog.

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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import URL, Engine, create_engine, make_url, text

from core.ledger.db import make_engine, sqlite_file, upgrade

_lock = threading.Lock()
_sqlite_template: Path | None = None
# conninfo -> (template schema name, dump script); None: no pg_dump that can dump this server
# (not installed, older than the server): each ledger is then migrated with Alembic
_pg_scripts: dict[str, tuple[str, str] | None] = {}


def _conninfo(engine: Engine) -> str:
    """A libpq URL for ``engine``'s server and database (no driver, no options)."""
    return conninfo_of(engine.url)


def conninfo_of(url: str | URL) -> str:
    """A libpq URL for the server and database of the SQLAlchemy URL ``url``."""
    found = make_url(url).set(drivername="postgresql", query={})
    return found.render_as_string(hide_password=False)


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


# -- a PostgreSQL ledger per test, its schema used again when the test left its catalog alone --

#: the catalog of one schema, each query reading it through ``current_schema()`` (so run on a
#: connection whose search_path is that schema); what tests/core/ledger/test_ledger_template.py
#: compares, and what must be as the template made it for a schema to be used again
CATALOG = {
    "columns": """SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                  pg_get_expr(d.adbin, d.adrelid), a.attnotnull, a.attnum, a.attacl::text
                  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                  WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0
                  AND NOT a.attisdropped ORDER BY 1, 2""",
    "constraints": """SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid),
                      c.convalidated
                      FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace
                      ORDER BY 1, 2""",
    "indexes": """SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_class c
                  WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'i'
                  ORDER BY 1""",
    "triggers": """SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid), t.tgenabled
                   FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                   WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
                   ORDER BY 1, 2""",
    "functions": """SELECT p.proname, pg_get_functiondef(p.oid), p.proacl::text,
                    p.proowner::regrole::text FROM pg_proc p
                    WHERE p.pronamespace = current_schema()::regnamespace ORDER BY 1""",
    "relations": """SELECT relname, relkind, relrowsecurity, relforcerowsecurity, relacl::text,
                    relowner::regrole::text, relpersistence, reloptions::text,
                    CASE WHEN relkind IN ('v', 'm') THEN pg_get_viewdef(oid) END
                    FROM pg_class WHERE relnamespace = current_schema()::regnamespace
                    ORDER BY 1""",
    "policies": """SELECT c.relname, p.polname, p.polpermissive, p.polroles::regrole[]::text,
                   p.polcmd, pg_get_expr(p.polqual, p.polrelid),
                   pg_get_expr(p.polwithcheck, p.polrelid)
                   FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
                   WHERE c.relnamespace = current_schema()::regnamespace ORDER BY 1, 2""",
    "types": """SELECT t.typname, t.typtype, (SELECT string_agg(e.enumlabel, ','
                ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)
                FROM pg_type t WHERE t.typnamespace = current_schema()::regnamespace
                ORDER BY 1""",
    "schema_acl": """SELECT nspacl::text, nspowner::regrole::text FROM pg_namespace
                     WHERE oid = current_schema()::regnamespace""",
    "default_acl": """SELECT defaclrole::regrole::text, defaclobjtype, defaclacl::text
                      FROM pg_default_acl WHERE defaclnamespace = current_schema()::regnamespace
                      ORDER BY 1, 2""",
    "sequences": """SELECT c.relname, s.seqtypid::regtype::text, s.seqincrement, s.seqmin,
                    s.seqmax, s.seqcycle FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
                    WHERE c.relnamespace = current_schema()::regnamespace ORDER BY 1""",
}


def catalog(cursor: Any, schema: str) -> dict[str, list[tuple[str, ...]]]:
    """The catalog of ``schema`` (:data:`CATALOG`), its name written ``<schema>``; ``cursor``
    (psycopg or SQLAlchemy) runs on a connection whose search_path is ``schema``."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for name, sql in CATALOG.items():
        rows = cursor.execute(text(sql) if hasattr(cursor, "dialect") else sql).fetchall()
        found[name] = [tuple(str(v).replace(schema, "<schema>") for v in row) for row in rows]
    return found


#: one query: a digest of :data:`CATALOG` for the schema of the search_path, computed by the
#: server (what decides whether a schema is used again: about 20 ms, against 50 for the rows)
CATALOG_DIGEST = "SELECT " + ", ".join(
    f"(SELECT md5(coalesce(string_agg(replace(t::text, current_schema(), '<schema>'), "
    f"E'\\n'), '')) FROM ({sql}) t)" for sql in CATALOG.values())


@dataclass
class _Pool:
    """This process's ledger schemas on one server: the template's catalog, the script that
    empties a schema, and the schemas free to be used again."""

    conninfo: str
    template: str
    script: str
    empty: str  # the rows and sequence values of a new ledger (from the dump), "{schema}"'d
    tables: list[str] = field(default_factory=list)
    expected: tuple[str, ...] | None = None
    free: list[str] = field(default_factory=list)
    uses: dict[str, int] = field(default_factory=dict)
    admin: psycopg.Connection[Any] | None = None

    def connection(self) -> psycopg.Connection[Any]:
        if self.admin is None or self.admin.closed:
            self.admin = psycopg.connect(self.conninfo, autocommit=False)
        return self.admin

    def make(self) -> str:
        """A new schema filled from the template (its catalog kept, the first time)."""
        schema = f"t_{secrets.token_hex(6)}"
        conn = self.connection()
        try:
            conn.execute(f'CREATE SCHEMA "{schema}";\n' + self.script.replace(self.template,
                                                                                schema))
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        if self.expected is None:
            conn.execute(f'SET search_path = "{schema}"')
            self.expected = tuple(conn.execute(CATALOG_DIGEST).fetchone() or ())
            self.tables = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "ORDER BY 1").fetchall()]
            conn.execute("RESET search_path")
            conn.commit()
        self.uses[schema] = 0
        return schema

    def give_back(self, schema: str) -> None:
        """Empty ``schema`` for the next test, or drop it if its catalog is not the template's
        (or it can not be emptied: still locked by a connection the test left open)."""
        conn = self.connection()
        try:
            conn.execute("SET lock_timeout = '5s'")
            conn.execute(f'SET search_path = "{schema}"')
            same = tuple(conn.execute(CATALOG_DIGEST).fetchone() or ()) == self.expected
            conn.execute("RESET search_path")
            if same:
                self.uses[schema] += 1
                # rows deleted, not truncated (a truncation gives every table and index a new
                # file: ~0.1 s); every 25th use truncated, so deleted rows do not pile up
                if self.uses[schema] % 25:
                    empty = "".join(f'DELETE FROM "{schema}"."{t}";\n' for t in self.tables)
                else:
                    empty = ("TRUNCATE " + ", ".join(f'"{schema}"."{t}"' for t in self.tables)
                             + ";\n")
                # (replica: no trigger fires, the ledger's append-only guards among them)
                conn.execute("SET LOCAL session_replication_role = replica;\n" + empty
                             + self.empty.replace("{schema}", schema))
                conn.commit()
                self.free.append(schema)
                return
            conn.rollback()
        except psycopg.Error:
            conn.rollback()
        self.drop(schema)

    def drop(self, schema: str) -> None:
        conn = self.connection()
        conn.execute("RESET lock_timeout")
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        conn.commit()
        self.uses.pop(schema, None)

    def close(self) -> None:
        while self.free:
            self.drop(self.free.pop())
        if self.admin is not None:
            self.admin.close()
            self.admin = None


_pools: dict[str, _Pool] = {}


def _pool(conninfo: str) -> _Pool | None:
    found = _pg_template(conninfo)
    if found is None:
        return None
    with _lock:
        if conninfo not in _pools:
            template, script = found
            rows = [line for line in script.splitlines()
                    if line.startswith(("INSERT INTO ", "SELECT pg_catalog.setval("))]
            lines = script.count("\nINSERT INTO ") + script.count("\nSELECT pg_catalog.setval(")
            assert len(rows) == lines, "a row of the template's dump is not one line"
            empty = "\n".join(rows).replace(template, "{schema}") + "\n"
            _pools[conninfo] = _Pool(conninfo, template, script, empty)
        return _pools[conninfo]


@contextmanager
def pg_ledger(url: str) -> Iterator[Engine]:
    """An engine on an empty PostgreSQL ledger at the head revision, in a schema of its own for
    the ``with``; afterwards the schema is emptied for the next, or dropped (see the module)."""
    conninfo = conninfo_of(url)
    pool = _pool(conninfo)
    if pool is None:  # no pg_dump: a schema migrated with Alembic, dropped afterwards
        schema = f"t_{secrets.token_hex(6)}"
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        eng = make_engine(url, connect_args={"options": f"-csearch_path={schema}"})
        try:
            upgrade(eng)
            yield eng
        finally:
            eng.dispose()
            with psycopg.connect(conninfo, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        return
    schema = pool.free.pop() if pool.free else pool.make()
    eng = make_engine(url, connect_args={"options": f"-csearch_path={schema}"})
    try:
        yield eng
    finally:
        eng.dispose()
        pool.give_back(schema)


def close_pg_ledgers() -> None:
    """Drop this process's free ledger schemas (at the end of the session)."""
    for pool in _pools.values():
        pool.close()
    _pools.clear()


def sqlite_ledger(path: Path) -> Engine:
    """An engine on a new, migrated SQLite ledger file at ``path`` (a copy of the template)."""
    eng = make_engine(f"sqlite:///{path}")
    migrate(eng)
    return eng
