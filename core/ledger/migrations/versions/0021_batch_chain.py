"""One chain link per sealed transaction (issue 22).

Up to revision 0020 every chained row had its own ``ledger_chain`` row (about 150 bytes with
its indexes, more than the row it vouches for).  From 0021 a transaction's seal writes ONE chain
row for every row the transaction inserted: ``tbl`` is ``*`` (:data:`chain.BATCH`),
``row_key`` the chain position, and two new columns say what it covers:

- ``members``: the rows, as ``table:ids;table:ids`` (ids as ranges, ``101-600,602``), in the
  order their hashes follow;
- ``hashes``: the 32-byte content hash of each member (:func:`chain.row_hash`, as before),
  one after the other.

``row_hash`` is SHA-256 over ``podium-batch|``, ``members`` and ``hashes``
(:func:`chain.batch_hash`) and the link is made exactly as before
(:func:`chain.link_hash`), so ``podium audit verify`` proves a row by recomputing its
content hash, finding it at its place in its batch's ``hashes``, and the batch's ``row_hash``
and link from those.  Chain rows written before stay as they are (their new columns NULL) and
verify as before.

On PostgreSQL the journal trigger of every chained table becomes a statement trigger with a
transition table (``podium_journal_rows()``): one INSERT into ``ledger_journal`` per INSERT
statement instead of a trigger call per row.  A plain ``add_column`` (no batch mode, which would
recreate the table and drop its triggers on SQLite).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import chain, guards

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ledger_chain", sa.Column("members", sa.Text(), nullable=True))
    op.add_column("ledger_chain", sa.Column("hashes", sa.LargeBinary(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        for ddl in guards.pg_functions_ddl():
            op.execute(ddl)
        for table in _existing(chain.CHAINED):
            op.execute(f"DROP TRIGGER IF EXISTS podium_journal ON {table}")
            op.execute(guards.pg_journal_trigger(table))


def downgrade() -> None:
    conn = op.get_bind()
    if conn.execute(sa.text("SELECT count(*) FROM ledger_chain WHERE members IS NOT NULL")
                    ).scalar():
        raise RuntimeError("revision 0021 can not be downgraded: the chain holds batch links "
                           "that revision 0020 can not verify (restore a backup taken before "
                           "the upgrade)")
    if conn.dialect.name == "postgresql":
        for table in _existing(chain.CHAINED):
            op.execute(f"DROP TRIGGER IF EXISTS podium_journal ON {table}")
            op.execute(f"CREATE TRIGGER podium_journal AFTER INSERT ON {table} "
                       "FOR EACH ROW EXECUTE PROCEDURE podium_journal()")
    if conn.dialect.name == "sqlite":
        op.execute("ALTER TABLE ledger_chain DROP COLUMN hashes")
        op.execute("ALTER TABLE ledger_chain DROP COLUMN members")
    else:
        op.drop_column("ledger_chain", "hashes")
        op.drop_column("ledger_chain", "members")


def _existing(tables: tuple[str, ...]) -> list[str]:
    """The chained tables this revision knows (a later revision's new table, in
    ``chain.CHAINED`` today, gets its journal trigger from that revision)."""
    have = set(sa.inspect(op.get_bind()).get_table_names())
    return [t for t in tables if t in have]
