"""Win pages searched by date (issue 13): an index on ``slips.created_at``.

Without it a search by date reads every slip row, and on SQLite a slip's stored ESC/POS bytes
lie between its number and its time, so the whole ledger's slip bytes would be read to find a
day's slips.  The index finds a date range's slips directly; the search reads no slip bytes.
(A plain ``create_index``: no batch mode, which would recreate the table and drop its
triggers on SQLite.)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_slips_created_at", "slips", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_slips_created_at", table_name="slips")
