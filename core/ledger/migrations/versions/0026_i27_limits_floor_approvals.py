"""Who approved a floor change (issue 27 point 7): ``floor_approvals``.

A change of a floor parameter that decides a pay or a contribution takes effect only once an
executive approved it (core/tablegames/floor_approval.py): a record, append-only and chained
like ``contribution_approvals`` (revision 0022), naming who (the employee, with their number,
name and role as they stood), when, how (``podium floor approve`` or the console), the accepted
swipe, the changes with their old and new values, and the floor file's SHA-256.

Revision ID: 0026_i27_limits
Revises: 0025
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0026_i27_limits"
down_revision = "0025"
branch_labels = None
depends_on = None

TABLE = "floor_approvals"


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("approved_by", sa.Integer(), sa.ForeignKey("employees.id"), nullable=False),
        sa.Column("employee_number", sa.String(32), nullable=False),
        sa.Column("employee_name", sa.String(200), nullable=False),
        sa.Column("employee_role", sa.String(16), nullable=False),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("swipe_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("values_sha256", sa.String(64), nullable=False, index=True),
        sa.Column("base_change_id", sa.Integer(), nullable=False),
        sa.Column("changes", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("operator", sa.String(200), nullable=False),
    )
    columns = [c["name"] for c in sa.inspect(conn).get_columns(TABLE)]
    for ddl in guards.protect_ddl(dialect, TABLE, columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl((TABLE,), {}, ()):
            op.execute(ddl)


def downgrade() -> None:
    conn = op.get_bind()
    if conn.execute(sa.text(f"SELECT count(*) FROM {TABLE}")).scalar():
        raise RuntimeError("revision 0026 can not be downgraded: the ledger holds executives' "
                           "approvals of floor changes (chained records) that revision 0025 "
                           "can not keep (restore a backup taken before the upgrade)")
    for ddl in guards.unprotect_ddl(conn.dialect.name, TABLE):
        op.execute(ddl)
    op.drop_table(TABLE)
