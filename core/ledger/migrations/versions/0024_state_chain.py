"""State rows chained whole; the card key's fingerprint as a record (issue 23, finding 5).

Up to revision 0023 the chain vouched only for the columns of a state row (``rounds``,
``wagers``, ``hits``, ``tables``, ``groups``, ``employees``) that never change: a round moved
back from ended to locked, or a hit's verified cards rewritten, left ``podium audit verify``
saying "ledger verified".  From 0024:

- ``ledger_chain`` has two more columns, ``states`` (the state rows a link chains whole, in the
  form of ``members``) and ``state_hashes`` (their full-content hashes,
  :func:`integrity.state_hash`); a link with them hashes all four parts
  (:func:`integrity.batch_hash`).  A state row is chained whole when it is inserted and after
  every UPDATE: an AFTER UPDATE trigger on each state table journals it as ``table~``
  (:func:`integrity.state_journal_trigger`).
- Every state row that exists at the upgrade is chained whole here, as it is now (links of at
  most 20,000 rows): the state check vouches for state from this revision on.
- ``settings.card_key_id`` is recorded in ``parameter_changes`` (scope ``ledger``, subject
  ``cards``, name ``card_key_id``) as it is at the upgrade; from now on Podium writes that
  record when it notes the key, and ``podium audit verify`` compares the setting with the
  latest record.

Revision ID: 0024
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from core.ledger import integrity

revision = "0024"
down_revision = "0021"
branch_labels = None
depends_on = None

CHUNK = 20_000  # state rows per link written by the upgrade


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.add_column("ledger_chain", sa.Column("states", sa.Text(), nullable=True))
    op.add_column("ledger_chain", sa.Column("state_hashes", sa.LargeBinary(), nullable=True))
    if dialect == "postgresql":
        for ddl in integrity.pg_state_functions_ddl():
            op.execute(ddl)
    for table in integrity.STATE:
        op.execute(integrity.state_journal_trigger(dialect, table))
    _record_card_key(conn)
    integrity.seal(conn)  # the record above, before the state links
    for table in integrity.STATE:
        _chain_whole(conn, table)


def _record_card_key(conn: sa.Connection) -> None:
    from core.auth import CARD_KEY_ID, record_card_key, recorded_card_key

    value = conn.execute(sa.text("SELECT value FROM settings WHERE key = :k"),
                         {"k": CARD_KEY_ID}).scalar()
    if value is not None and recorded_card_key(conn) != value:
        record_card_key(conn, "", str(value), datetime.now(UTC),
                        "revision 0024: the key in use at the upgrade")


def _chain_whole(conn: sa.Connection, table: str) -> None:
    t = sa.table(table, sa.column("id"))
    last: object = None
    while True:
        q = sa.select(t.c.id).order_by(t.c.id).limit(CHUNK)
        if last is not None:
            q = q.where(t.c.id > last)
        keys = list(conn.execute(q).scalars())
        if not keys:
            return
        integrity.append_batch(conn, (), [(table, str(k)) for k in keys])
        last = keys[-1]


def downgrade() -> None:
    conn = op.get_bind()
    if conn.execute(sa.text("SELECT count(*) FROM ledger_chain WHERE states IS NOT NULL")
                    ).scalar():
        raise RuntimeError("revision 0024 can not be downgraded: the chain holds links with "
                           "state rows that revision 0021 can not verify (restore a backup "
                           "taken before the upgrade)")
    for table in integrity.STATE:
        if conn.dialect.name == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {integrity.STATE_JOURNAL_PG} ON {table}")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS podium_{table}_journal_state")
    if conn.dialect.name == "sqlite":
        op.execute("ALTER TABLE ledger_chain DROP COLUMN state_hashes")
        op.execute("ALTER TABLE ledger_chain DROP COLUMN states")
    else:
        op.drop_column("ledger_chain", "state_hashes")
        op.drop_column("ledger_chain", "states")
