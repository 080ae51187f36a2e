"""The ledger copied from the session's template (tests/ledgers.py) is the ledger Alembic makes:
same tables, columns, indexes, constraints, triggers, functions, row security, grants, default
privileges and rows (alembic_version among them), on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from core.ledger.db import make_engine, upgrade
from tests.ledgers import migrate

_PG_CATALOG = {
    "columns": """SELECT table_name, column_name, data_type, column_default, is_nullable,
                  ordinal_position FROM information_schema.columns
                  WHERE table_schema = current_schema() ORDER BY 1, 2""",
    "constraints": """SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
                      FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace
                      ORDER BY 1, 2""",
    "indexes": """SELECT tablename, indexname, indexdef FROM pg_indexes
                  WHERE schemaname = current_schema() ORDER BY 1, 2""",
    "triggers": """SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid), t.tgenabled
                   FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                   WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
                   ORDER BY 1, 2""",
    "functions": """SELECT p.proname, pg_get_functiondef(p.oid), p.proacl::text FROM pg_proc p
                    WHERE p.pronamespace = current_schema()::regnamespace ORDER BY 1""",
    "relations": """SELECT relname, relkind, relrowsecurity, relforcerowsecurity, relacl::text
                    FROM pg_class WHERE relnamespace = current_schema()::regnamespace
                    ORDER BY 1""",
    "policies": """SELECT tablename, policyname, permissive, roles::text, cmd, qual, with_check
                   FROM pg_policies WHERE schemaname = current_schema() ORDER BY 1, 2""",
    "schema_acl": """SELECT nspacl::text FROM pg_namespace
                     WHERE oid = current_schema()::regnamespace""",
    "default_acl": """SELECT defaclrole::regrole::text, defaclobjtype, defaclacl::text
                      FROM pg_default_acl WHERE defaclnamespace = current_schema()::regnamespace
                      ORDER BY 1, 2""",
    "sequences": """SELECT sequencename, last_value, increment_by FROM pg_sequences
                    WHERE schemaname = current_schema() ORDER BY 1""",
}


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
        found: dict[str, Any] = {
            name: [tuple(str(v).replace(schema, "<schema>") for v in row)
                   for row in conn.execute(text(sql)).all()]
            for name, sql in _PG_CATALOG.items()}
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
