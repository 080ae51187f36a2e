"""Every attempt to print a Bad Beat Jackpot share slip (bbj_slip_prints: case, seat, reprint,
printer, printed or the printer's problem, when), as the win slips' print attempts are kept.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bbj_slip_prints",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("reprint", sa.Boolean(), nullable=False),
        sa.Column("printer", sa.String(length=200), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["bbj_cases.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_bbj_slip_prints_case_id", "bbj_slip_prints", ["case_id"])


def downgrade() -> None:
    op.drop_index("ix_bbj_slip_prints_case_id", table_name="bbj_slip_prints")
    op.drop_table("bbj_slip_prints")
