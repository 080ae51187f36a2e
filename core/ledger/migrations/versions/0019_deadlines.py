"""The poker room's regulatory filings (issue 15 item 5): ``bbj_filings``.

- ``bbj_filings`` (a record: append-only, chained): one filing of a deadline the guidelines name
  (core/pokerroom/calendar.py, docs/bbj.md "Room deadlines"): its kind (``bir_remittance``,
  ``tgd108``, ``tgd1540_part1``, ``tgd1540_part2``, ``players_notice``, ``bank_statement``),
  the fund (NULL for the casino-wide ones), the period (first and last local date), when it was
  due and when it was filed (UTC), the reference (the BIR confirmation, PAGCOR's receiving
  number), a detail, whether it was late, the filing it corrects (NULL for a first filing), who
  recorded it (a supervisor's swipe, in the same transaction as its swipe-log row) and when.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.create_table(
        "bbj_filings",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("fund_id", sa.String(64), sa.ForeignKey("bbj_funds.id"), nullable=True),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("period_end", sa.Date(), nullable=False),
        sa.Column("due_at", UTCDateTime(), nullable=False),
        sa.Column("filed_at", UTCDateTime(), nullable=False),
        sa.Column("reference", sa.String(200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("corrects_id", sa.Integer(),
                  sa.ForeignKey("bbj_filings.id", name="fk_bbj_filings_corrects"),
                  nullable=True),
        sa.Column("employee_id", sa.Integer(), sa.ForeignKey("employees.id"), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_bbj_filings_kind_period", "bbj_filings", ["kind", "period_start"])
    columns = [c["name"] for c in sa.inspect(conn).get_columns("bbj_filings")]
    for ddl in guards.protect_ddl(dialect, "bbj_filings", columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl(("bbj_filings",), {}, ()):
            op.execute(ddl)


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    if conn.execute(sa.text("SELECT count(*) FROM bbj_filings")).scalar():
        raise RuntimeError("revision 0019 can not be downgraded: the ledger records the poker "
                           "room's regulatory filings, and the chain vouches for those rows "
                           "(restore a backup taken before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, "bbj_filings"):
        op.execute(ddl)
    op.drop_index("ix_bbj_filings_kind_period", table_name="bbj_filings")
    op.drop_table("bbj_filings")
