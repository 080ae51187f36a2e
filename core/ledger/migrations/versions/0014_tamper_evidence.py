"""A tamper-evident ledger: the database refuses UPDATE / DELETE on the records (triggers on
SQLite and PostgreSQL; on PostgreSQL also TRUNCATE, and the role ``podium_writer`` holds no such
privilege), and every row of the records and state tables is hash-chained in ``ledger_chain``
(core/ledger/integrity.py).  Rows already in the ledger are chained here, table by table.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards, integrity

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# The tables as of this revision (a later revision that adds a table or a state column guards
# it itself: 0015 adds card_locks and the employees' card_mac and pin).
APPEND_ONLY: tuple[str, ...] = (
    "levels", "level_settings", "parameter_changes", "employee_events", "controller_events",
    "refused_events", "hit_decisions", "awards", "meter_entries", "swipe_log", "slips",
    "slip_print_attempts", "machine_checks", "bbj_funds", "bbj_drop_counts",
    "poker_tournament_fees", "bbj_postings", "bbj_awards", "bbj_award_shares", "bbj_cessations",
    "bbj_entries", "bbj_cases", "bbj_case_events", "bbj_slip_prints",
)
STATE: dict[str, frozenset[str]] = {
    "groups": frozenset({"name", "paytable_id", "lock_at_hit", "payment_order"}),
    "tables": frozenset({"name", "group_id", "seats", "online"}),
    "employees": frozenset({"active", "card_salt", "card_hash", "card_iterations"}),
    "rounds": frozenset({"state"}),
    "wagers": frozenset({"status"}),
    "hits": frozenset({"status", "verified_cards", "locked_level_id", "locked_amount_cents",
                       "locked_meter_before_cents", "locked_meter_after_cents"}),
}
DERIVED = ("settings", "level_balances", "level_hour_totals", "ledger_journal")


def upgrade() -> None:
    op.create_table(
        "ledger_chain",
        sa.Column("n", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("tbl", sa.String(64), nullable=False),
        sa.Column("row_key", sa.String(200), nullable=False),
        sa.Column("row_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("prev_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
        sa.UniqueConstraint("tbl", "row_key", name="uq_ledger_chain_row"),
    )
    op.create_table(
        "ledger_journal",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tbl", sa.String(64), nullable=False),
        sa.Column("row_key", sa.String(200), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_ledger_journal_tx", "ledger_journal", ["tx"])
    conn = op.get_bind()
    dialect = conn.dialect.name
    # the rows already here, chained before the guards so the migration may read them freely
    for name in APPEND_ONLY + tuple(STATE):
        keys = [str(k) for k in conn.execute(sa.text(f"SELECT id FROM {name} ORDER BY id"))
                .scalars()]
        for start in range(0, len(keys), 5000):
            integrity.append(conn, [(name, k) for k in keys[start:start + 5000]])
    if dialect == "postgresql":
        for ddl in guards.pg_functions_ddl():
            op.execute(ddl)
    inspector = sa.inspect(conn)
    for name in APPEND_ONLY + tuple(STATE) + ("ledger_chain",):
        columns = [c["name"] for c in inspector.get_columns(name)]
        for ddl in guards.protect_ddl(dialect, name, columns, STATE.get(name),
                                         chained=name != "ledger_chain"):
            op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl(APPEND_ONLY + ("ledger_chain",), STATE, DERIVED):
            op.execute(ddl)


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    for name in APPEND_ONLY + tuple(STATE) + ("ledger_chain",):
        for ddl in guards.unprotect_ddl(dialect, name):
            op.execute(ddl)
    if dialect == "postgresql":
        for fn in ("podium_refuse", "podium_guard_state", "podium_journal"):
            op.execute(f"DROP FUNCTION IF EXISTS {fn}()")
    op.drop_index("ix_ledger_journal_tx", table_name="ledger_journal")
    op.drop_table("ledger_journal")
    op.drop_table("ledger_chain")
