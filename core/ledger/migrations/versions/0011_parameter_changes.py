"""Parameter changes are records: every change of a group's, level's or table's parameters in
the floor file between two starts is written at start (``parameter_changes``: old value, new
value, when, the file and its SHA-256, when it takes effect).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "parameter_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(140), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("old_value", sa.Text(), nullable=False),
        sa.Column("new_value", sa.Text(), nullable=False),
        sa.Column("effective", sa.String(64), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
    )
    op.create_index("ix_parameter_changes_at", "parameter_changes", ["at"])


def downgrade() -> None:
    op.drop_index("ix_parameter_changes_at", table_name="parameter_changes")
    op.drop_table("parameter_changes")
