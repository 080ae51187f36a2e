"""The database's own guards of the ledger (docs/ledger.md "Tamper evidence"), as the SQL the
migrations run: the triggers that refuse UPDATE, DELETE and TRUNCATE on a record and a change
of a state row's fixed columns, the journal triggers that note every row inserted (and every
state row updated, revision 0024) for the seal (core/ledger/integrity.py), and the grants of the
application's roles (``podium_writer`` holds no UPDATE / DELETE / TRUNCATE on a record,
``podium_reader`` only reads).  Which table is which kind is core/ledger/chain.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.ledger.chain import STATE_MARK

WRITER_ROLE = "podium_writer"
READER_ROLE = "podium_reader"  # accountants' and surveillance's consoles: SELECT only

_PG_FUNCTIONS = (
    """CREATE OR REPLACE FUNCTION podium_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger table % is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'P0001';
END $$""",
    """CREATE OR REPLACE FUNCTION podium_guard_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger table %: DELETE refused', TG_TABLE_NAME USING ERRCODE = 'P0001';
  END IF;
  IF (to_jsonb(NEW) - TG_ARGV) IS DISTINCT FROM (to_jsonb(OLD) - TG_ARGV) THEN
    RAISE EXCEPTION 'ledger table %: only % may change in place', TG_TABLE_NAME,
      array_to_string(TG_ARGV, ', ') USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$""",
    """CREATE OR REPLACE FUNCTION podium_journal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx) VALUES (TG_TABLE_NAME, NEW.id::text,
                                                        txid_current());
  RETURN NULL;
END $$""",
    # revision 0021: one journal statement per INSERT statement (a transition table), not a
    # trigger call per row
    """CREATE OR REPLACE FUNCTION podium_journal_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME, r.id::text, txid_current() FROM podium_new r;
  RETURN NULL;
END $$""",
    # ... and for a table with integer keys, one journal row per run of keys ("101..600")
    """CREATE OR REPLACE FUNCTION podium_journal_runs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME, CASE WHEN min(id) = max(id) THEN min(id)::text
                               ELSE min(id)::text || '..' || max(id)::text END, txid_current()
    FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM podium_new) r
    GROUP BY run;
  RETURN NULL;
END $$""",
)


def pg_journal_trigger(table: str) -> str:
    """The journal trigger of a chained table on PostgreSQL: one statement per INSERT
    statement notes every row it inserted, a table with integer keys as runs of keys
    (``101..600``: one journal row for a whole batch's rows), others key by key (revision
    0021; before, a trigger call and a journal row per row)."""
    from core.ledger.models import Base

    numeric = Base.metadata.tables[table].c.id.type.python_type is int
    function = "podium_journal_runs" if numeric else "podium_journal_rows"
    return (f"CREATE TRIGGER podium_journal AFTER INSERT ON {table} REFERENCING NEW TABLE AS "
            f"podium_new FOR EACH STATEMENT EXECUTE PROCEDURE {function}()")


_PG_STATE_FUNCTIONS = (
    # revision 0024: a state row UPDATEd is journaled as "table~", runs of integer keys as above
    """CREATE OR REPLACE FUNCTION podium_journal_state_rows() RETURNS trigger LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME || '~', r.id::text, txid_current() FROM podium_new r;
  RETURN NULL;
END $$""",
    """CREATE OR REPLACE FUNCTION podium_journal_state_runs() RETURNS trigger LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME || '~', CASE WHEN min(id) = max(id) THEN min(id)::text
                               ELSE min(id)::text || '..' || max(id)::text END, txid_current()
    FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM podium_new) r
    GROUP BY run;
  RETURN NULL;
END $$""",
)


def pg_state_functions_ddl() -> tuple[str, ...]:
    return _PG_STATE_FUNCTIONS


STATE_JOURNAL_PG = "podium_journal_state"


def state_journal_trigger(dialect: str, table: str) -> str:
    """The trigger that journals every UPDATE of a state table (revision 0024), so the seal
    chains the row's new content: on PostgreSQL one statement per UPDATE statement (a
    transition table), on SQLite a row trigger through ``podium_journal()`` (the bare
    ``sqlite3`` tool has no such function: its UPDATE is refused)."""
    from core.ledger.models import Base

    if dialect == "postgresql":
        numeric = Base.metadata.tables[table].c.id.type.python_type is int
        function = "podium_journal_state_runs" if numeric else "podium_journal_state_rows"
        return (f"CREATE TRIGGER {STATE_JOURNAL_PG} AFTER UPDATE ON {table} REFERENCING NEW "
                f"TABLE AS podium_new FOR EACH STATEMENT EXECUTE PROCEDURE {function}()")
    return (f"CREATE TRIGGER podium_{table}_journal_state AFTER UPDATE ON {table} BEGIN "
            f"INSERT INTO ledger_journal (tbl, row_key) SELECT '{table}{STATE_MARK}', "
            "CAST(NEW.id AS TEXT) WHERE podium_journal() = 1; END")


def _quote_list(names: Iterable[str]) -> str:
    return ", ".join(f"'{n}'" for n in sorted(names))


def protect_ddl(dialect: str, table: str, columns: Sequence[str],
                mutable: Iterable[str] | None, *, chained: bool = True,
                state_journal: bool = False) -> list[str]:
    """The statements that guard ``table``: no UPDATE / DELETE (``mutable`` None), or no DELETE
    and UPDATE of ``mutable`` columns only; and, if ``chained``, the journal trigger (and, if
    ``state_journal``, the UPDATE journal of a state table: a migration from revision 0024 on
    that re-guards a state table passes it).  ``columns``: the table's columns (SQLite's
    guard names the ones that must not change)."""
    out: list[str] = []
    if state_journal and mutable is not None:
        out.append(state_journal_trigger(dialect, table))
    if dialect == "postgresql":
        if mutable is None:
            out.append(f"CREATE TRIGGER podium_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE PROCEDURE podium_refuse()")
        else:
            out.append(f"CREATE TRIGGER podium_guard_state BEFORE UPDATE OR DELETE ON {table} "
                       f"FOR EACH ROW EXECUTE PROCEDURE podium_guard_state("
                       f"{_quote_list(mutable)})")
        out.append(f"CREATE TRIGGER podium_no_truncate BEFORE TRUNCATE ON {table} "
                   "FOR EACH STATEMENT EXECUTE PROCEDURE podium_refuse()")
        if chained:
            out.append(pg_journal_trigger(table))
        return out
    if mutable is None:
        out.append(f"CREATE TRIGGER podium_{table}_no_update BEFORE UPDATE ON {table} BEGIN "
                   f"SELECT RAISE(ABORT, 'ledger table {table} is append-only: UPDATE "
                   "refused'); END")
    else:
        fixed = [c for c in columns if c not in set(mutable)]
        changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in fixed)
        allowed = ", ".join(sorted(mutable))
        out.append(f"CREATE TRIGGER podium_{table}_no_update BEFORE UPDATE ON {table} "
                   f"WHEN {changed} BEGIN SELECT RAISE(ABORT, 'ledger table {table}: only "
                   f"{allowed} may change in place'); END")
    out.append(f"CREATE TRIGGER podium_{table}_no_delete BEFORE DELETE ON {table} BEGIN "
               f"SELECT RAISE(ABORT, 'ledger table {table}: DELETE refused'); END")
    if chained:
        out.append(f"CREATE TRIGGER podium_{table}_journal AFTER INSERT ON {table} BEGIN "
                   f"INSERT INTO ledger_journal (tbl, row_key) SELECT '{table}', "
                   "CAST(NEW.id AS TEXT) WHERE podium_journal() = 1; END")
    return out


def unprotect_ddl(dialect: str, table: str) -> list[str]:
    if dialect == "postgresql":
        return [f"DROP TRIGGER IF EXISTS {name} ON {table}" for name in (
            "podium_append_only", "podium_guard_state", "podium_no_truncate", "podium_journal",
            STATE_JOURNAL_PG)]
    return [f"DROP TRIGGER IF EXISTS podium_{table}_{what}"
            for what in ("no_update", "no_delete", "journal", "journal_state")]


def pg_functions_ddl() -> tuple[str, ...]:
    return _PG_FUNCTIONS


def pg_grants_ddl(append_only: Iterable[str], state: Mapping[str, Iterable[str]],
                  derived: Iterable[str]) -> list[str]:
    """The application's role: it may read everything, insert records, change state columns
    and derived tables; it holds no UPDATE / DELETE / TRUNCATE on a record."""
    role = WRITER_ROLE
    out = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN "
        f"CREATE ROLE {role} NOLOGIN; END IF; END $$",
        f"DO $$ BEGIN EXECUTE format('GRANT USAGE ON SCHEMA %I TO {role}', current_schema()); "
        "END $$",
        f"DO $$ BEGIN EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO "
        f"{role}', current_schema()); END $$",
    ]
    for t in append_only:
        out.append(f"REVOKE ALL ON {t} FROM {role}")
        out.append(f"GRANT SELECT, INSERT ON {t} TO {role}")
    for t, cols in state.items():
        out.append(f"REVOKE ALL ON {t} FROM {role}")
        out.append(f"GRANT SELECT, INSERT ON {t} TO {role}")
        out.append(f"GRANT UPDATE ({', '.join(sorted(cols))}) ON {t} TO {role}")
    for t in derived:
        out.append(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {t} TO {role}")
    out.append(f"GRANT SELECT ON alembic_version TO {role}")  # the console checks the revision
    return out
