"""Rounds are found by (table, controller boot, round number): ``rounds.boot`` is the boot whose
START GAME opened the round, filled for the rounds already recorded from their START GAME event
(``controller_events.boot``).  The index on (table, round) becomes one on (table, boot, round).

Plain ``add_column`` / ``create_index`` (no batch mode: on SQLite a batch alter recreates the
table and would drop any trigger on it); the column stays nullable for that reason, every new
round has its boot.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rounds", sa.Column("boot", sa.String(64), nullable=True))
    op.execute("UPDATE rounds SET boot = (SELECT e.boot FROM controller_events e "
               "WHERE e.id = rounds.event_id)")
    op.drop_index("ix_rounds_table_round", table_name="rounds")
    op.create_index("ix_rounds_table_boot_round", "rounds", ["table_id", "boot", "round_no"])


def downgrade() -> None:
    op.drop_index("ix_rounds_table_boot_round", table_name="rounds")
    op.create_index("ix_rounds_table_round", "rounds", ["table_id", "round_no"])
    op.drop_column("rounds", "boot")
