"""People records the ledger vouches for; executives' approvals (issue 23, findings 1, 6, 9).

- ``employee_events`` gets two nullable columns: ``state_digest`` (SHA-256 of the employee
  row's state columns after the event: core/ledger/people.py) and ``approved_by`` (the executive
  who approved the change).  NULL on the rows before, so their chain hashes are unchanged (a
  NULL column is left out of a row's hash).  A plain ``add_column``: no batch mode, which would
  recreate the table and drop its triggers on SQLite.
- A ``baseline`` event for every employee, carrying the digest of the row as it stands now: the
  ledger vouches for each employee's card, PIN and active flag from this migration on (a change
  made outside Podium before it can not be told apart from Podium's own).
- ``contribution_approvals`` (a record: append-only, chained): an executive's approval of a
  contribution rate above the pre-configured rate (RULES.md 4), which the floor file's
  ``contribution_override`` used to name as free text.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime
from core.ledger.people import STATE_COLUMNS, state_digest

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

TABLE = "contribution_approvals"


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.add_column("employee_events", sa.Column("state_digest", sa.LargeBinary(32),
                                               nullable=True))
    # an employee id, without a foreign key: SQLite can add a column with one but never drop it
    op.add_column("employee_events", sa.Column("approved_by", sa.Integer(), nullable=True))
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("group_id", sa.String(64), nullable=False, index=True),
        sa.Column("level", sa.String(64), nullable=False),
        sa.Column("rate_ppm", sa.Integer(), nullable=False),
        sa.Column("approved_by", sa.Integer(), sa.ForeignKey("employees.id"), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("operator", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    columns = [c["name"] for c in sa.inspect(conn).get_columns(TABLE)]
    for ddl in guards.protect_ddl(dialect, TABLE, columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl((TABLE,), {}, ()):
            op.execute(ddl)
    _baseline(conn)


def _baseline(conn: sa.Connection) -> None:
    """One ``baseline`` event per employee with the digest of its row as it stands."""
    employees = sa.table("employees", sa.column("id"), *(sa.column(c) for c in STATE_COLUMNS))
    events = sa.table("employee_events", sa.column("employee_id"), sa.column("event"),
                      sa.column("reason"), sa.column("operator"),
                      sa.column("created_at", UTCDateTime()), sa.column("state_digest"))
    now = datetime.now(UTC)
    rows = [{"employee_id": int(r["id"]), "event": "baseline",
             "reason": "revision 0022: the ledger vouches for this card, PIN and active flag "
                       "from here on", "operator": "podium upgrade", "created_at": now,
             "state_digest": state_digest(int(r["id"]), {c: r[c] for c in STATE_COLUMNS})}
            for r in conn.execute(sa.select(employees).order_by(employees.c.id)).mappings()]
    if rows:
        conn.execute(events.insert(), rows)


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    if conn.execute(sa.text(f"SELECT count(*) FROM {TABLE}")).scalar() or conn.execute(
            sa.text("SELECT count(*) FROM employee_events WHERE state_digest IS NOT NULL")
    ).scalar():
        raise RuntimeError("revision 0022 can not be downgraded: the ledger holds people "
                           "events with their digests (chained records) or executives' "
                           "approvals that revision 0021 can not keep (restore a backup taken "
                           "before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, TABLE):
        op.execute(ddl)
    op.drop_table(TABLE)
    if dialect == "sqlite":
        op.execute("ALTER TABLE employee_events DROP COLUMN approved_by")
        op.execute("ALTER TABLE employee_events DROP COLUMN state_digest")
    else:
        op.drop_column("employee_events", "approved_by")
        op.drop_column("employee_events", "state_digest")
