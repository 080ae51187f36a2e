"""People controls (issue 12): cards identified by a keyed hash, PINs, card lockout, and every
refusal's reason.

- ``employees.card_mac``: HMAC-SHA256 of the card number under the card key kept outside the
  ledger (core/people/cardkey.py), UNIQUE: a card is found by one indexed lookup.  Enrolments made
  before this revision keep their salted PBKDF2 hash until the card is swiped once (then the
  hash is erased and ``card_mac`` written: migration by re-swipe, README "Card key").
- ``employees.pin``: the slow hash of the keyed PIN, or NULL.
- ``swipe_log.card_mac`` (which card, known or not; indexed with the time, for the lockout
  count) and ``swipe_log.reason`` (the refusal as the user read it).
- ``card_locks``: append-only, chained: a card locked after too many refusals, or lifted.

The two new employees columns are state columns (they change when a card is replaced or a PIN
set): the employees guard is rebuilt with them.  Plain ``add_column`` (no batch mode: on SQLite
a batch alter recreates the table and would drop its triggers).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

EMPLOYEES_STATE = frozenset({"active", "card_salt", "card_hash", "card_iterations", "card_mac",
                             "pin"})
EMPLOYEES_STATE_0014 = frozenset({"active", "card_salt", "card_hash", "card_iterations"})


def _guard_employees(state: frozenset[str]) -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    for ddl in guards.unprotect_ddl(dialect, "employees"):
        op.execute(ddl)
    columns = [c["name"] for c in sa.inspect(conn).get_columns("employees")]
    for ddl in guards.protect_ddl(dialect, "employees", columns, state):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl((), {"employees": state}, ()):
            op.execute(ddl)


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.add_column("employees", sa.Column("card_mac", sa.LargeBinary(32), nullable=True))
    op.add_column("employees", sa.Column("pin", sa.String(200), nullable=True))
    op.create_index("uq_employees_card_mac", "employees", ["card_mac"], unique=True)
    op.add_column("swipe_log", sa.Column("card_mac", sa.LargeBinary(32), nullable=True))
    op.add_column("swipe_log", sa.Column("reason", sa.Text(), nullable=True))
    op.create_index("ix_swipe_log_card_mac", "swipe_log", ["card_mac", "created_at"])
    op.create_table(
        "card_locks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("card_mac", sa.LargeBinary(32), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("employee_id", sa.Integer(), sa.ForeignKey("employees.id"), nullable=True),
        sa.Column("by_employee_id", sa.Integer(), sa.ForeignKey("employees.id"),
                  nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_card_locks_card_mac", "card_locks", ["card_mac"])
    columns = [c["name"] for c in sa.inspect(conn).get_columns("card_locks")]
    for ddl in guards.protect_ddl(dialect, "card_locks", columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl(("card_locks",), {}, ()):
            op.execute(ddl)
    _guard_employees(EMPLOYEES_STATE)


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    # Refused once the ledger holds what 0014 can not read: keyed cards (their old hashes are
    # gone: the cards would stop working), locks, or swipe rows with the new columns (dropping
    # a column changes those rows' chained content: audit verify would fail).
    used = conn.execute(sa.text(
        "SELECT (SELECT count(*) FROM employees WHERE card_mac IS NOT NULL OR pin IS NOT NULL)"
        " + (SELECT count(*) FROM card_locks)"
        " + (SELECT count(*) FROM swipe_log WHERE card_mac IS NOT NULL OR reason IS NOT NULL)"
    )).scalar()
    if used:
        raise RuntimeError("revision 0015 can not be downgraded: the ledger holds keyed cards, "
                           "PINs, card locks or swipe rows of 0015 that revision 0014 can not "
                           "read or would change (restore a backup taken before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, "card_locks"):
        op.execute(ddl)
    op.drop_index("ix_card_locks_card_mac", table_name="card_locks")
    op.drop_table("card_locks")
    op.drop_index("ix_swipe_log_card_mac", table_name="swipe_log")
    op.drop_column("swipe_log", "reason")
    op.drop_column("swipe_log", "card_mac")
    op.drop_index("uq_employees_card_mac", table_name="employees")
    op.drop_column("employees", "pin")
    op.drop_column("employees", "card_mac")
    _guard_employees(EMPLOYEES_STATE_0014)
