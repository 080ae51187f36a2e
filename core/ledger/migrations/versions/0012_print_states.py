"""Print states: a win slip's print attempt is recorded as events in slip_print_attempts, a
``started`` row committed before the first byte goes to the printer and an outcome row
(``printed`` / ``failed``) pointing at it (``started_id``, UNIQUE: one outcome per start), so a
print interrupted by a crash is seen as "print state unknown".  Also what the paper said
(``marking``: "" original, ``reprint``, ``duplicate``), the failure's ``reason`` code, the job's
size and how many of its bytes went out.  Existing rows keep ``state`` NULL (one row per
attempt, ``ok`` its outcome); nothing is rewritten.

Columns are added in place (ALTER TABLE ... ADD COLUMN), never by batch mode: batch mode
recreates the table on SQLite.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

TABLE = "slip_print_attempts"


def upgrade() -> None:
    op.add_column(TABLE, sa.Column("state", sa.String(length=16), nullable=True))
    if op.get_bind().dialect.name == "sqlite":
        # SQLite takes a REFERENCES clause on a new column whose default is NULL
        op.execute(sa.text(f"ALTER TABLE {TABLE} ADD COLUMN started_id INTEGER "
                           f"REFERENCES {TABLE} (id)"))
    else:
        op.add_column(TABLE, sa.Column("started_id", sa.Integer(), nullable=True))
        op.create_foreign_key(f"{TABLE}_started_id_fkey", TABLE, TABLE, ["started_id"], ["id"])
    op.add_column(TABLE, sa.Column("marking", sa.String(length=16), nullable=True))
    op.add_column(TABLE, sa.Column("reason", sa.String(length=32), nullable=True))
    op.add_column(TABLE, sa.Column("job_bytes", sa.Integer(), nullable=True))
    op.add_column(TABLE, sa.Column("sent_bytes", sa.Integer(), nullable=True))
    op.create_index(f"ix_{TABLE}_started_id", TABLE, ["started_id"], unique=True)


def downgrade() -> None:
    op.drop_index(f"ix_{TABLE}_started_id", table_name=TABLE)
    names = ("sent_bytes", "job_bytes", "reason", "marking", "started_id", "state")
    if op.get_bind().dialect.name == "sqlite":
        # a column in a foreign key can not be dropped in place on SQLite
        with op.batch_alter_table(TABLE) as batch:
            for name in names:
                batch.drop_column(name)
        return
    op.drop_constraint(f"{TABLE}_started_id_fkey", TABLE, type_="foreignkey")
    for name in names:
        op.drop_column(TABLE, name)
