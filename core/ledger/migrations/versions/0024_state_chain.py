"""State rows chained whole; the card key's fingerprint as a record (issue 23, finding 5).

Up to revision 0023 the chain vouched only for the columns of a state row (``rounds``,
``wagers``, ``hits``, ``tables``, ``groups``, ``employees``) that never change: a round moved
back from ended to locked, or a hit's verified cards rewritten, left ``podium audit verify``
saying "ledger verified".  From 0024:

- ``ledger_chain`` has two more columns, ``states`` (the state rows a link chains whole, in the
  form of ``members``) and ``state_hashes`` (their full-content hashes,
  :func:`chain.state_hash`); a link with them hashes all four parts
  (:func:`chain.batch_hash`).  A state row is chained whole when it is inserted and after
  every UPDATE: an AFTER UPDATE trigger on each state table journals it as ``table~``
  (:func:`guards.state_journal_trigger`).
- Every state row that exists at the upgrade is chained whole here, as it is now (links of at
  most 20,000 rows): the state check vouches for state from this revision on.
- On PostgreSQL the journal's guard (revision 0023) lets in the ``table~`` rows of the state
  tables' UPDATE journal trigger as it lets in the insert journal's rows.
- ``settings.card_key_id`` is recorded in ``parameter_changes`` (scope ``ledger``, subject
  ``cards``, name ``card_key_id``) as it is at the upgrade; from now on Podium writes that
  record when it notes the key, and ``podium audit verify`` compares the setting with the
  latest record.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-05
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from core.ledger import chain, guards, integrity, locks

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

CHUNK = 20_000  # state rows per link written by the upgrade

# revision 0023's guard, and a ``table~`` row from a state table's UPDATE journal trigger
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
      SELECT 1 FROM pg_trigger t WHERE (t.tgname = 'podium_journal'
        AND t.tgrelid = to_regclass(quote_ident(NEW.tbl)))
      OR (right(NEW.tbl, 1) = '~' AND t.tgname = 'podium_journal_state'
        AND t.tgrelid = to_regclass(quote_ident(left(NEW.tbl, -1))))) THEN
    RAISE EXCEPTION 'ledger_journal: only a ledger table''s journal trigger notes rows'
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$"""


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.add_column("ledger_chain", sa.Column("states", sa.Text(), nullable=True))
    op.add_column("ledger_chain", sa.Column("state_hashes", sa.LargeBinary(), nullable=True))
    if dialect == "postgresql":
        for ddl in guards.pg_state_functions_ddl():
            op.execute(ddl)
        op.execute(_PG_JOURNAL_GUARD)
    for table in chain.STATE:
        op.execute(guards.state_journal_trigger(dialect, table))
    _record_card_key(conn)
    integrity.seal(conn)  # the record above, before the state links
    if dialect == "postgresql":
        locks.take(conn, locks.CHAIN)  # the links below follow the head: no seal between
    for table in chain.STATE:
        _chain_whole(conn, table)


def _record_card_key(conn: sa.Connection) -> None:
    from core.people.auth import CARD_KEY_ID, record_card_key, recorded_card_key

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
        integrity.append_batch(conn, (), states=[(table, str(k)) for k in keys])
        last = keys[-1]


def downgrade() -> None:
    conn = op.get_bind()
    if conn.execute(sa.text("SELECT count(*) FROM ledger_chain WHERE states IS NOT NULL")
                    ).scalar():
        raise RuntimeError("revision 0024 can not be downgraded: the chain holds links with "
                           "state rows that revision 0021 can not verify (restore a backup "
                           "taken before the upgrade)")
    for table in chain.STATE:
        if conn.dialect.name == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {guards.STATE_JOURNAL_PG} ON {table}")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS podium_{table}_journal_state")
    if conn.dialect.name == "sqlite":
        op.execute("ALTER TABLE ledger_chain DROP COLUMN state_hashes")
        op.execute("ALTER TABLE ledger_chain DROP COLUMN states")
    else:
        op.drop_column("ledger_chain", "state_hashes")
        op.drop_column("ledger_chain", "states")
