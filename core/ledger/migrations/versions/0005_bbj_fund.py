"""The Bad Beat Jackpot fund (core/bbj_fund.py): funds, daily drop-box counts, postings, awards
and their shares, cessations, and the append-only entries whose sums are main and reserve.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def _cents(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.BigInteger(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "bbj_funds",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "bbj_drop_counts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("fund_id", sa.String(length=64), nullable=False),
        sa.Column("business_date", sa.Date(), nullable=False),
        sa.Column("table_name", sa.String(length=64), nullable=False),
        sa.Column("drop_box", sa.String(length=32), nullable=False),
        sa.Column("opened_at", UTC_TIME, nullable=False),
        sa.Column("closed_at", UTC_TIME, nullable=False),
        sa.Column("dealer", sa.String(length=200), nullable=False),
        sa.Column("pieces", sa.JSON(), nullable=False),
        _cents("total_cents"),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["fund_id"], ["bbj_funds.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("fund_id", "business_date", "table_name", "drop_box",
                            name="uq_bbj_drop_counts_box"),
    )
    op.create_index("ix_bbj_drop_counts_fund_id", "bbj_drop_counts", ["fund_id"])
    op.create_table(
        "bbj_postings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("fund_id", sa.String(length=64), nullable=False),
        sa.Column("business_date", sa.Date(), nullable=False),
        _cents("previous_main_cents"),
        _cents("previous_reserve_cents"),
        _cents("collection_cents"),
        _cents("admin_fee_cents"),
        _cents("to_main_cents"),
        _cents("to_reserve_cents"),
        _cents("main_cents"),
        _cents("reserve_cents"),
        sa.Column("effective_at", UTC_TIME, nullable=False),
        sa.Column("last_closed_at", UTC_TIME, nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["fund_id"], ["bbj_funds.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("fund_id", "business_date", name="uq_bbj_postings_day"),
    )
    op.create_index("ix_bbj_postings_fund_id", "bbj_postings", ["fund_id"])
    op.create_table(
        "bbj_awards",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("fund_id", sa.String(length=64), nullable=False),
        sa.Column("hit_at", UTC_TIME, nullable=False),
        sa.Column("table_name", sa.String(length=64), nullable=False),
        _cents("main_before_cents"),
        _cents("reserve_before_cents"),
        _cents("fraction_num"),
        _cents("fraction_den"),
        _cents("award_cents"),
        _cents("paid_cents"),
        _cents("reserve_moved_cents"),
        _cents("main_after_cents"),
        _cents("reserve_after_cents"),
        sa.Column("ceases_fund", sa.Boolean(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["fund_id"], ["bbj_funds.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_bbj_awards_fund_id", "bbj_awards", ["fund_id"])
    op.create_table(
        "bbj_award_shares",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("award_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("taxpayer", sa.String(length=16), nullable=False),
        _cents("gross_cents"),
        _cents("tax_cents"),
        sa.ForeignKeyConstraint(["award_id"], ["bbj_awards.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("award_id", "seat", name="uq_bbj_award_shares_seat"),
    )
    op.create_table(
        "bbj_cessations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("fund_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("to_fund_id", sa.String(length=64), nullable=True),
        sa.Column("award_id", sa.Integer(), nullable=True),
        _cents("seed_returned_cents"),
        _cents("increment_cents"),
        _cents("reserve_cents"),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["fund_id"], ["bbj_funds.id"]),
        sa.ForeignKeyConstraint(["to_fund_id"], ["bbj_funds.id"]),
        sa.ForeignKeyConstraint(["award_id"], ["bbj_awards.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("fund_id"),
    )
    op.create_table(
        "bbj_entries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("fund_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        _cents("main_delta_cents"),
        _cents("reserve_delta_cents"),
        sa.Column("posting_id", sa.Integer(), nullable=True),
        sa.Column("award_id", sa.Integer(), nullable=True),
        sa.Column("cessation_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("effective_at", UTC_TIME, nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["fund_id"], ["bbj_funds.id"]),
        sa.ForeignKeyConstraint(["posting_id"], ["bbj_postings.id"]),
        sa.ForeignKeyConstraint(["award_id"], ["bbj_awards.id"]),
        sa.ForeignKeyConstraint(["cessation_id"], ["bbj_cessations.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_bbj_entries_fund_id", "bbj_entries", ["fund_id"])


def downgrade() -> None:
    op.drop_index("ix_bbj_entries_fund_id", table_name="bbj_entries")
    op.drop_table("bbj_entries")
    op.drop_table("bbj_cessations")
    op.drop_table("bbj_award_shares")
    op.drop_index("ix_bbj_awards_fund_id", table_name="bbj_awards")
    op.drop_table("bbj_awards")
    op.drop_index("ix_bbj_postings_fund_id", table_name="bbj_postings")
    op.drop_table("bbj_postings")
    op.drop_index("ix_bbj_drop_counts_fund_id", table_name="bbj_drop_counts")
    op.drop_table("bbj_drop_counts")
    op.drop_table("bbj_funds")
