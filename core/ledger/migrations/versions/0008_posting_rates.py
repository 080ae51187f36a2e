"""The rates each Bad Beat Jackpot posting was made at (bbj_postings.admin_fee_rate, main_rate:
the floor file's [poker_room], as decimal text), so that a daily report always shows the split
the posting made.  Postings from before stay NULL: they were made at the RULES.md defaults.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bbj_postings") as batch:
        batch.add_column(sa.Column("admin_fee_rate", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("main_rate", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bbj_postings") as batch:
        batch.drop_column("main_rate")
        batch.drop_column("admin_fee_rate")
