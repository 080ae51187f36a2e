"""What the regulator's forms need from the ledger: the award's case (bbj_awards.case_id, a
foreign key; awards already approved from a case are linked by fund, hit time and table), the
house rake drop box counted with each jackpot drop box (bbj_drop_counts.rake_box, rake_cents)
and the poker tournament fees (poker_tournament_fees).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("bbj_awards") as batch:
        batch.add_column(sa.Column("case_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_bbj_awards_case", "bbj_cases", ["case_id"], ["id"])
        batch.create_unique_constraint("uq_bbj_awards_case", ["case_id"])
    # the awards approved from a case before this revision: the case of the same hit that
    # reached "approved" (at most one: a second approval of a hit was always refused)
    op.execute(sa.text(
        "UPDATE bbj_awards SET case_id = (SELECT MIN(c.id) FROM bbj_cases c "
        "WHERE c.fund_id = bbj_awards.fund_id AND c.hit_at = bbj_awards.hit_at "
        "AND c.table_name = bbj_awards.table_name AND EXISTS (SELECT 1 FROM bbj_case_events e "
        "WHERE e.case_id = c.id AND e.state = 'approved'))"))
    with op.batch_alter_table("bbj_drop_counts") as batch:
        batch.add_column(sa.Column("rake_box", sa.String(length=32), nullable=False,
                                   server_default=""))
        batch.add_column(sa.Column("rake_cents", sa.BigInteger(), nullable=False,
                                   server_default="0"))
    op.create_table(
        "poker_tournament_fees",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("business_date", sa.Date(), nullable=False),
        sa.Column("tournament", sa.String(length=200), nullable=False),
        sa.Column("fee_cents", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_poker_tournament_fees_business_date", "poker_tournament_fees",
                    ["business_date"])


def downgrade() -> None:
    op.drop_index("ix_poker_tournament_fees_business_date", table_name="poker_tournament_fees")
    op.drop_table("poker_tournament_fees")
    with op.batch_alter_table("bbj_drop_counts") as batch:
        batch.drop_column("rake_cents")
        batch.drop_column("rake_box")
    with op.batch_alter_table("bbj_awards") as batch:
        batch.drop_constraint("uq_bbj_awards_case", type_="unique")
        batch.drop_constraint("fk_bbj_awards_case", type_="foreignkey")
        batch.drop_column("case_id")
