"""Closure and forfeiture, cessation notices (issue 15, TGD-1540).

- ``bbj_cessation_notices`` (a record: append-only, chained): a notice that a fund will cease
  (``cease_once_hit``, ``transfer``, ``closure``: TGD-1540 part 1 filed on ``notice_on``, the
  planned effective date if any, the fund a transfer goes to), and the rows that follow a notice
  without changing it (``players_told``: the day the players were told; ``withdrawn``: the notice
  no longer holds), each naming its notice in ``refers_to_id``.
- ``bbj_cessations`` gets two nullable columns for a ``forfeiture`` (the poker room closed for
  good: the whole balance forfeited in favour of PAGCOR): ``seed_forfeited_cents`` (the seed in
  the main amount forfeited) and ``closed_on`` (the closure date).  NULL on the rows before, so
  their chain hashes are unchanged (a NULL column is left out of a row's hash).  A plain
  ``add_column``: no batch mode, which would recreate the table and drop its triggers on SQLite.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

TABLE = "bbj_cessation_notices"


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("fund_id", sa.String(64), sa.ForeignKey("bbj_funds.id"), nullable=False,
                  index=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("refers_to_id", sa.Integer(), sa.ForeignKey(f"{TABLE}.id"), nullable=True),
        sa.Column("notice_on", sa.Date(), nullable=True),
        sa.Column("effective_on", sa.Date(), nullable=True),
        sa.Column("players_told_on", sa.Date(), nullable=True),
        sa.Column("to_fund_id", sa.String(64), sa.ForeignKey("bbj_funds.id"), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.add_column("bbj_cessations", sa.Column("seed_forfeited_cents", sa.BigInteger(),
                                              nullable=True))
    op.add_column("bbj_cessations", sa.Column("closed_on", sa.Date(), nullable=True))
    columns = [c["name"] for c in sa.inspect(conn).get_columns(TABLE)]
    for ddl in guards.protect_ddl(dialect, TABLE, columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl((TABLE,), {}, ()):
            op.execute(ddl)


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    if conn.execute(sa.text(f"SELECT count(*) FROM {TABLE}")).scalar() or conn.execute(
            sa.text("SELECT count(*) FROM bbj_cessations WHERE kind = 'forfeiture'")).scalar():
        raise RuntimeError("revision 0020 can not be downgraded: the ledger holds cessation "
                           "notices or a forfeiture that revision 0019 can not record (restore "
                           "a backup taken before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, TABLE):
        op.execute(ddl)
    op.drop_table(TABLE)
    if dialect == "sqlite":
        # SQLite >= 3.35 drops a column in place (the table's triggers stay)
        op.execute("ALTER TABLE bbj_cessations DROP COLUMN closed_on")
        op.execute("ALTER TABLE bbj_cessations DROP COLUMN seed_forfeited_cents")
    else:
        op.drop_column("bbj_cessations", "closed_on")
        op.drop_column("bbj_cessations", "seed_forfeited_cents")
