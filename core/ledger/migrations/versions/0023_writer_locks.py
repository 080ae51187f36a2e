"""Locks no reader can hold, and a journal foreign rows can not break (issue 23).

- ``ledger_locks`` (operational state): one row per writers' lock of this ledger (schema):
  ``chain`` (the seal: one line of chain rows however many podiums commit at once), ``table:<id>``
  (who serves a table: ``holder_*`` name the lock connection of the service that claimed it)
  and ``<record table>:<key>`` (``core.ledger.db.lock_record``, e.g. a Bad Beat Jackpot fund).
  A writer takes a lock with ``SELECT ... FOR UPDATE`` on its row, which needs the UPDATE
  privilege: ``podium_writer`` has it (on the ``holder_*`` columns, the only ones that may
  change), ``podium_reader`` has nothing on the table.  Until 0022 these were PostgreSQL
  advisory locks, which any login, the reader included, may take (core/ledger/locks.py).
- ``ledger_journal_incidents`` (a record: append-only, not chained): journal rows the seal could
  not account for (a table that is not chained, a key that is no row), set aside instead of
  failing the transaction; ``podium audit verify`` reports them.
- ``ledger_journal`` is guarded: on PostgreSQL a row may be inserted only by a journal trigger
  (``pg_trigger_depth()``), for the inserting transaction itself, naming a table that has a
  journal trigger; never updated; deleted only by its own transaction (the seal).  The writer
  role loses UPDATE on it.  On SQLite an INSERT into the journal calls ``podium_journal()``,
  which only Podium's connections define (the ``sqlite3`` shell can not).

Revision ID: 0023
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

HOLDER = ("holder_pid", "holder_login", "holder_app", "holder_service", "holder_since")

_PG_JOURNAL_GUARD = """CREATE OR REPLACE FUNCTION podium_journal_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RAISE EXCEPTION 'ledger_journal: UPDATE refused' USING ERRCODE = 'P0001';
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF OLD.tx IS DISTINCT FROM txid_current() THEN
      RAISE EXCEPTION 'ledger_journal: only the transaction that noted a row removes it'
        USING ERRCODE = 'P0001';
    END IF;
    RETURN OLD;
  END IF;
  IF pg_trigger_depth() < 2 OR NEW.tx IS DISTINCT FROM txid_current() OR NOT EXISTS (
      SELECT 1 FROM pg_trigger t WHERE t.tgname = 'podium_journal'
      AND t.tgrelid = to_regclass(quote_ident(NEW.tbl))) THEN
    RAISE EXCEPTION 'ledger_journal: only a ledger table''s journal trigger notes rows'
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$"""


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.create_table(
        "ledger_locks",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("holder_pid", sa.Integer(), nullable=True),
        sa.Column("holder_login", sa.String(64), nullable=True),
        sa.Column("holder_app", sa.String(64), nullable=True),
        sa.Column("holder_service", sa.Integer(), nullable=True),
        sa.Column("holder_since", UTCDateTime(), nullable=True),
    )
    op.execute("INSERT INTO ledger_locks (name) VALUES ('chain')")
    op.create_table(
        "ledger_journal_incidents",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tbl", sa.String(64), nullable=False),
        sa.Column("row_key", sa.String(200), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=True),
        sa.Column("noted_at", UTCDateTime(), nullable=False),
    )
    incidents = [c["name"] for c in sa.inspect(conn).get_columns("ledger_journal_incidents")]
    for ddl in guards.protect_ddl(dialect, "ledger_journal_incidents", incidents, None,
                                     chained=False):
        op.execute(ddl)
    if dialect == "postgresql":
        writer, reader = guards.WRITER_ROLE, guards.READER_ROLE
        op.execute("CREATE TRIGGER podium_guard_state BEFORE UPDATE OR DELETE ON ledger_locks "
                   "FOR EACH ROW EXECUTE PROCEDURE podium_guard_state("
                   f"{', '.join(repr(c) for c in HOLDER)})")
        op.execute("CREATE TRIGGER podium_no_truncate BEFORE TRUNCATE ON ledger_locks "
                   "FOR EACH STATEMENT EXECUTE PROCEDURE podium_refuse()")
        op.execute(_PG_JOURNAL_GUARD)
        op.execute("CREATE TRIGGER podium_journal_guard BEFORE INSERT OR UPDATE OR DELETE ON "
                   "ledger_journal FOR EACH ROW EXECUTE PROCEDURE podium_journal_guard()")
        for ddl in guards.pg_grants_ddl(("ledger_journal_incidents",), {}, ()):
            op.execute(ddl)
        op.execute(f"REVOKE ALL ON ledger_locks FROM {writer}, {reader}")
        op.execute(f"GRANT SELECT, INSERT ON ledger_locks TO {writer}")
        op.execute(f"GRANT UPDATE ({', '.join(HOLDER)}) ON ledger_locks TO {writer}")
        op.execute(f"REVOKE UPDATE, TRUNCATE ON ledger_journal FROM {writer}")
    else:
        # the sqlite3 shell has no podium_journal(): its INSERT into the journal is refused
        op.execute("CREATE TRIGGER podium_ledger_journal_guard BEFORE INSERT ON ledger_journal "
                   "BEGIN SELECT podium_journal(); END")


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    if conn.execute(sa.text("SELECT count(*) FROM ledger_journal_incidents")).scalar():
        raise RuntimeError("revision 0023 can not be downgraded: the ledger holds journal "
                           "incidents that revision 0021 can not keep (restore a backup taken "
                           "before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, "ledger_journal_incidents"):
        op.execute(ddl)
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS podium_journal_guard ON ledger_journal")
        op.execute("DROP FUNCTION IF EXISTS podium_journal_guard()")
        op.execute(f"GRANT UPDATE ON ledger_journal TO {guards.WRITER_ROLE}")
    else:
        op.execute("DROP TRIGGER IF EXISTS podium_ledger_journal_guard")
    op.drop_table("ledger_journal_incidents")
    op.drop_table("ledger_locks")
