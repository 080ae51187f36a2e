"""Initial ledger: every table of docs/ledger.md.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# Times are UTC (timezone-aware on PostgreSQL; SQLite stores them naive, core.ledger.models
# converts them back to UTC on read).
UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "employees",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("number", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("card_salt", sa.LargeBinary(), nullable=False),
        sa.Column("card_hash", sa.LargeBinary(), nullable=False),
        sa.Column("card_iterations", sa.Integer(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("number"),
    )
    op.create_table(
        "groups",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("paytable_id", sa.String(length=64), nullable=False),
        sa.Column("lock_at_hit", sa.Boolean(), nullable=False),
        sa.Column("payment_order", sa.String(length=32), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "levels",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("group_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["groups.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("group_id", "name", name="uq_levels_group_name"),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("group_id", sa.String(length=64), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("online", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["groups.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "controller_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("boot", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("controller_time", sa.String(length=40), nullable=False),
        sa.Column("received_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id", "boot", "seq", name="uq_controller_events_origin"),
    )
    op.create_table(
        "level_settings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("level_id", sa.Integer(), nullable=False),
        sa.Column("seed_units", sa.BigInteger(), nullable=False),
        sa.Column("contribution_rate_ppm", sa.Integer(), nullable=False),
        sa.Column("reserve_rate_ppm", sa.Integer(), nullable=False),
        sa.Column("effective_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["level_id"],
            ["levels.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_level_settings_level_id"), "level_settings", ["level_id"], unique=False
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("round_no", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("started_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["controller_events.id"],
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_rounds_table_id"), "rounds", ["table_id"], unique=False)
    op.create_table(
        "wagers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("amount_cents", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["rounds.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("round_id", "seat", name="uq_wagers_round_seat"),
    )
    op.create_table(
        "hits",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("round_no", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("wager_id", sa.Integer(), nullable=True),
        sa.Column("claimed_hand", sa.String(length=32), nullable=False),
        sa.Column("cards", sa.String(length=64), nullable=False),
        sa.Column("flags", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("locked_level_id", sa.Integer(), nullable=True),
        sa.Column("locked_amount_cents", sa.BigInteger(), nullable=True),
        sa.Column("locked_meter_before_cents", sa.BigInteger(), nullable=True),
        sa.Column("locked_meter_after_cents", sa.BigInteger(), nullable=True),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["controller_events.id"],
        ),
        sa.ForeignKeyConstraint(
            ["locked_level_id"],
            ["levels.id"],
        ),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["rounds.id"],
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
        ),
        sa.ForeignKeyConstraint(
            ["wager_id"],
            ["wagers.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_hits_status"), "hits", ["status"], unique=False)
    op.create_index(op.f("ix_hits_table_id"), "hits", ["table_id"], unique=False)
    op.create_table(
        "awards",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("hit_id", sa.Integer(), nullable=False),
        sa.Column("hand", sa.String(length=32), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("level_id", sa.Integer(), nullable=True),
        sa.Column("amount_cents", sa.BigInteger(), nullable=False),
        sa.Column("meter_before_cents", sa.BigInteger(), nullable=True),
        sa.Column("meter_after_cents", sa.BigInteger(), nullable=True),
        sa.Column("authorized_by", sa.Integer(), nullable=True),
        sa.Column("verified_by", sa.Integer(), nullable=True),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["authorized_by"],
            ["employees.id"],
        ),
        sa.ForeignKeyConstraint(
            ["hit_id"],
            ["hits.id"],
        ),
        sa.ForeignKeyConstraint(
            ["level_id"],
            ["levels.id"],
        ),
        sa.ForeignKeyConstraint(
            ["verified_by"],
            ["employees.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("hit_id"),
    )
    op.create_table(
        "hit_decisions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("hit_id", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=24), nullable=False),
        sa.Column("employee_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["employee_id"],
            ["employees.id"],
        ),
        sa.ForeignKeyConstraint(
            ["hit_id"],
            ["hits.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_hit_decisions_hit_id"), "hit_decisions", ["hit_id"], unique=False)
    op.create_table(
        "swipe_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("outcome", sa.String(length=24), nullable=False),
        sa.Column("employee_id", sa.Integer(), nullable=True),
        sa.Column("hit_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("role_required", sa.String(length=16), nullable=True),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["employee_id"],
            ["employees.id"],
        ),
        sa.ForeignKeyConstraint(
            ["hit_id"],
            ["hits.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "meter_entries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("level_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("meter_delta", sa.BigInteger(), nullable=False),
        sa.Column("reserve_delta", sa.BigInteger(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("hit_id", sa.Integer(), nullable=True),
        sa.Column("award_id", sa.Integer(), nullable=True),
        sa.Column("reverses_id", sa.Integer(), nullable=True),
        sa.Column("employee_id", sa.Integer(), nullable=True),
        sa.Column("second_employee_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["award_id"],
            ["awards.id"],
        ),
        sa.ForeignKeyConstraint(
            ["employee_id"],
            ["employees.id"],
        ),
        sa.ForeignKeyConstraint(
            ["hit_id"],
            ["hits.id"],
        ),
        sa.ForeignKeyConstraint(
            ["level_id"],
            ["levels.id"],
        ),
        sa.ForeignKeyConstraint(
            ["reverses_id"],
            ["meter_entries.id"],
        ),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["rounds.id"],
        ),
        sa.ForeignKeyConstraint(
            ["second_employee_id"],
            ["employees.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_meter_entries_level_id"), "meter_entries", ["level_id"], unique=False)
    op.create_table(
        "slips",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("slip_no", sa.Integer(), nullable=False),
        sa.Column("hit_id", sa.Integer(), nullable=False),
        sa.Column("award_id", sa.Integer(), nullable=False),
        sa.Column("escpos", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["award_id"],
            ["awards.id"],
        ),
        sa.ForeignKeyConstraint(
            ["hit_id"],
            ["hits.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("slip_no"),
    )
    op.create_table(
        "slip_print_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("slip_id", sa.Integer(), nullable=False),
        sa.Column("printer", sa.String(length=200), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["slip_id"],
            ["slips.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_slip_print_attempts_slip_id"), "slip_print_attempts", ["slip_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_slip_print_attempts_slip_id"), table_name="slip_print_attempts")
    op.drop_table("slip_print_attempts")
    op.drop_table("slips")
    op.drop_index(op.f("ix_meter_entries_level_id"), table_name="meter_entries")
    op.drop_table("meter_entries")
    op.drop_table("swipe_log")
    op.drop_index(op.f("ix_hit_decisions_hit_id"), table_name="hit_decisions")
    op.drop_table("hit_decisions")
    op.drop_table("awards")
    op.drop_index(op.f("ix_hits_table_id"), table_name="hits")
    op.drop_index(op.f("ix_hits_status"), table_name="hits")
    op.drop_table("hits")
    op.drop_table("wagers")
    op.drop_index(op.f("ix_rounds_table_id"), table_name="rounds")
    op.drop_table("rounds")
    op.drop_index(op.f("ix_level_settings_level_id"), table_name="level_settings")
    op.drop_table("level_settings")
    op.drop_table("controller_events")
    op.drop_table("tables")
    op.drop_table("levels")
    op.drop_table("settings")
    op.drop_table("groups")
    op.drop_table("employees")
