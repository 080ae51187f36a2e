"""Bad Beat Jackpot cases: a claim tracked through its states (bbj_cases) and the append-only
state rows (bbj_case_events: state, seat of a share paid, detail, who, when).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "bbj_cases",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("fund_id", sa.String(length=64), nullable=False),
        sa.Column("table_name", sa.String(length=64), nullable=False),
        sa.Column("hit_at", UTC_TIME, nullable=False),
        sa.Column("claim", sa.JSON(), nullable=False),
        sa.Column("decision", sa.JSON(), nullable=False),
        sa.Column("qualifies", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["fund_id"], ["bbj_funds.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_bbj_cases_fund_id", "bbj_cases", ["fund_id"])
    op.create_table(
        "bbj_case_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=24), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("employee_id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["bbj_cases.id"]),
        sa.ForeignKeyConstraint(["employee_id"], ["employees.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_bbj_case_events_case_id", "bbj_case_events", ["case_id"])


def downgrade() -> None:
    op.drop_index("ix_bbj_case_events_case_id", table_name="bbj_case_events")
    op.drop_table("bbj_case_events")
    op.drop_index("ix_bbj_cases_fund_id", table_name="bbj_cases")
    op.drop_table("bbj_cases")
