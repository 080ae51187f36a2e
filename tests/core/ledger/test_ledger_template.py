"""The ledger copied from the session's template (tests/ledgers.py) is the ledger Alembic makes:
same tables, columns, indexes, constraints, triggers, functions, row security, grants, default
privileges and rows (alembic_version among them), on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from core.app.demo import enroll_demo_employees
from core.ledger.db import make_engine, upgrade
from tests.ledgers import catalog, migrate, pg_ledger


def _rows(conn: Any, tables: list[str]) -> dict[str, list[Any]]:
    return {t: sorted(map(repr, conn.execute(text(f'SELECT * FROM "{t}"')).all()))
            for t in tables}


def _fingerprint(engine: Engine) -> dict[str, Any]:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            master = conn.execute(text("SELECT type, name, tbl_name, sql FROM sqlite_master "
                                       "ORDER BY type, name")).all()
            tables = [r.name for r in master if r.type == "table"]
            return {"master": master, "rows": _rows(conn, tables),
                    "user_version": conn.exec_driver_sql("PRAGMA user_version").scalar()}
        schema = conn.execute(text("SELECT current_schema()")).scalar_one()
        found: dict[str, Any] = dict(catalog(conn, schema))
        found["sequence_values"] = conn.execute(text(
            "SELECT sequencename, last_value FROM pg_sequences "
            "WHERE schemaname = current_schema() ORDER BY 1")).all()
        tables = [r[0] for r in conn.execute(text(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")).all()]
        found["rows"] = _rows(conn, tables)
        return found


def test_a_ledger_copied_from_the_template_is_the_migrated_ledger(
        request: pytest.FixtureRequest, tmp_path: Path, bare_engine: Engine) -> None:
    make_other: Callable[[], Engine]
    if bare_engine.dialect.name == "sqlite":
        def make_other() -> Engine:
            return make_engine(f"sqlite:///{tmp_path / 'migrated.sqlite3'}")
    else:
        make_other = request.getfixturevalue("pg_engine_factory")
    migrated = make_other()
    upgrade(migrated)
    migrate(bare_engine)
    expected, copied = _fingerprint(migrated), _fingerprint(bare_engine)
    migrated.dispose()
    assert copied["rows"]["alembic_version"] == expected["rows"]["alembic_version"]
    assert copied == expected


def test_the_copy_is_at_the_head_so_upgrade_has_nothing_to_do(engine: Engine) -> None:
    upgrade(engine)  # (returns at once on PostgreSQL; no migration runs twice on SQLite)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == \
            "0026_i27_limits"


def _schema(engine: Engine) -> str:
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT current_schema()")).scalar_one())


@pytest.mark.postgres
def test_a_schema_used_again_by_the_next_test_is_a_new_ledger(pg_url: str) -> None:
    """A test's PostgreSQL schema, emptied and used again by the next test of the process, is a
    new ledger: no row of the last test, every sequence back at its start, the template's rows
    (the chain's lock, alembic_version) back."""
    with pg_ledger(pg_url) as new:
        first, expected = _schema(new), _fingerprint(new)
        assert enroll_demo_employees(new) > 0  # rows, sequences, the chain and its lock row
        with new.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM ledger_chain")).scalar_one() > 0
    with pg_ledger(pg_url) as again:
        assert _schema(again) == first
        assert _fingerprint(again) == expected
        assert enroll_demo_employees(again) > 0  # (the chain starts again from its genesis)


@pytest.mark.postgres
@pytest.mark.parametrize("change", [
    "GRANT SELECT ON employees TO PUBLIC",
    "ALTER TABLE employees DISABLE TRIGGER USER",
    "ALTER TABLE employees ADD COLUMN extra integer",
    "CREATE INDEX extra ON employees (name)",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO PUBLIC",
    "CREATE OR REPLACE FUNCTION podium_guard_state() RETURNS trigger LANGUAGE plpgsql "
    "AS $$ BEGIN RETURN NEW; END $$",
])
def test_a_schema_whose_catalog_a_test_changed_is_dropped_not_used_again(
        pg_url: str, change: str) -> None:
    with pg_ledger(pg_url) as changed:
        schema = _schema(changed)
        with changed.begin() as conn:
            conn.execute(text(change.format(schema=f'"{schema}"')))
    with pg_ledger(pg_url) as other:
        assert _schema(other) != schema
        with other.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM pg_namespace WHERE nspname = :s"),
                                {"s": schema}).scalar_one() == 0
