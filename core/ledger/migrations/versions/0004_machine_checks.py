"""Machine checks: an append-only record of every gaming-machine win checked at the console
(who, when, game, screen, options, claimed and evaluated credits, verdict, the wins as JSON).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "machine_checks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game", sa.String(length=500), nullable=False),
        sa.Column("game_name", sa.String(length=200), nullable=False),
        sa.Column("screen", sa.Text(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("claimed_credits", sa.BigInteger(), nullable=False),
        sa.Column("evaluated_credits", sa.BigInteger(), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("wins", sa.JSON(), nullable=False),
        sa.Column("employee_id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["employee_id"], ["employees.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_machine_checks_employee_id", "machine_checks", ["employee_id"])


def downgrade() -> None:
    op.drop_index("ix_machine_checks_employee_id", table_name="machine_checks")
    op.drop_table("machine_checks")
