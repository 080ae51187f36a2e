"""Table claims are leases with a fencing token (issue 24, items 1 and 2).

``ledger_locks`` gains two columns that only a table's row (``table:<id>``) uses:

- ``epoch``: the fencing token.  Every claim of a table adds one; the claiming service keeps the
  epoch it got, and each of its writes for the table (events, link state, its own ownership
  records) is refused inside the same transaction unless the row still names it at that epoch
  with a lease that has not ended (core/controllers/ownership.py, ``fence``).
- ``lease_until``: when the claim ends unless its holder's heartbeat renews it (the database's
  clock).  A row whose lease has ended is free for the next claim, whatever the holder's lock
  connection says: a frozen or cut-off service loses its tables within a stated bound.

On PostgreSQL both are added to the columns ``podium_writer`` may change in place (the row
guard of revision 0023).  SQLite (one podium, no claims) gets the columns and never uses them.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

HOLDER = ("holder_pid", "holder_login", "holder_app", "holder_service", "holder_since")
LEASE = ("epoch", "lease_until")


def _guard(columns: tuple[str, ...]) -> list[str]:
    return ["DROP TRIGGER IF EXISTS podium_guard_state ON ledger_locks",
            "CREATE TRIGGER podium_guard_state BEFORE UPDATE OR DELETE ON ledger_locks "
            "FOR EACH ROW EXECUTE PROCEDURE podium_guard_state("
            f"{', '.join(repr(c) for c in columns)})"]


def upgrade() -> None:
    conn = op.get_bind()
    op.add_column("ledger_locks", sa.Column("epoch", sa.BigInteger(), nullable=False,
                                            server_default="0"))
    op.add_column("ledger_locks", sa.Column("lease_until", UTCDateTime(), nullable=True))
    if conn.dialect.name == "postgresql":
        for ddl in _guard(HOLDER + LEASE):
            op.execute(ddl)
        op.execute(f"GRANT UPDATE ({', '.join(LEASE)}) ON ledger_locks TO "
                   f"{guards.WRITER_ROLE}")


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        op.execute(f"REVOKE UPDATE ({', '.join(LEASE)}) ON ledger_locks FROM "
                   f"{guards.WRITER_ROLE}")
        for ddl in _guard(HOLDER):
            op.execute(ddl)
    if conn.dialect.name == "sqlite":
        op.execute("ALTER TABLE ledger_locks DROP COLUMN lease_until")
        op.execute("ALTER TABLE ledger_locks DROP COLUMN epoch")
    else:
        op.drop_column("ledger_locks", "lease_until")
        op.drop_column("ledger_locks", "epoch")
