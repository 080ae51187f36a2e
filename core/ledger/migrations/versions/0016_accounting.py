"""The accountant's and surveillance's desks (issue 13).

- ``table_hour_totals`` (derived, like ``level_hour_totals``): per table and UTC hour, rounds
  started, wagers locked and returned (count and cents), contributions and their reversals
  (exact units), kept in the same transaction as what they sum.  Rows for a ledger's earlier
  rounds are made here from the rounds, wagers and meter entries.
- ``slip_voids`` (a record: append-only, chained): a slip voided by an executive, the reason,
  and whether the paid money came back.
- On PostgreSQL the role ``podium_reader`` (NOLOGIN): SELECT on every table, now and later
  (default privileges), nothing else.  An accountant's or surveillance's login role is a
  member of it (``CREATE ROLE acct1 LOGIN PASSWORD '...' IN ROLE podium_reader``); their
  console also switches to it on every connection, so it can not write even by mistake.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

READER = "podium_reader"


def _hour(dialect: str, column: str) -> str:
    if dialect == "postgresql":
        return f"date_trunc('hour', {column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"
    # SQLite keeps naive UTC text as SQLAlchemy writes it: "YYYY-MM-DD HH:MM:SS.ffffff"
    return f"strftime('%Y-%m-%d %H:00:00.000000', {column})"


def _backfill(conn: sa.Connection, dialect: str) -> None:
    """table_hour_totals for the rounds already in the ledger."""
    h_round = _hour(dialect, "r.started_at")
    h_entry = _hour(dialect, "e.created_at")
    rows: dict[tuple[str, object], list[int]] = {}

    def add(table_id: str, hour: object, col: int, value: int) -> None:
        acc = rows.setdefault((table_id, hour), [0] * 7)
        acc[col] += int(value or 0)

    for t, h, n in conn.execute(sa.text(
            f"SELECT r.table_id, {h_round}, count(*) FROM rounds r GROUP BY 1, 2")):
        add(t, h, 0, n)
    # every wager that was locked at START GAME, returned since or not
    for t, h, n, c in conn.execute(sa.text(
            f"SELECT r.table_id, {h_round}, count(*), sum(w.amount_cents) FROM wagers w "
            "JOIN rounds r ON r.id = w.round_id WHERE w.status IN ('locked', 'returned') "
            "GROUP BY 1, 2")):
        add(t, h, 1, n)
        add(t, h, 2, c)
    for t, h, u in conn.execute(sa.text(
            f"SELECT r.table_id, {h_entry}, sum(e.meter_delta + e.reserve_delta) "
            "FROM meter_entries e JOIN rounds r ON r.id = e.round_id "
            "WHERE e.kind IN ('contribution', 'reserve_contribution') GROUP BY 1, 2")):
        add(t, h, 5, u)
    for t, h, u in conn.execute(sa.text(
            f"SELECT r.table_id, {h_entry}, sum(e.meter_delta + e.reserve_delta) "
            "FROM meter_entries e JOIN rounds r ON r.id = e.round_id "
            "JOIN meter_entries o ON o.id = e.reverses_id "
            "WHERE e.kind = 'reversal' AND o.kind IN ('contribution', 'reserve_contribution') "
            "GROUP BY 1, 2")):
        add(t, h, 6, u)
    # a returned wager counts in the hour its round's contributions were taken back (its
    # round's start when it had none)
    for t, h, n, c in conn.execute(sa.text(
            f"SELECT r.table_id, coalesce((SELECT {_hour(dialect, 'min(e.created_at)')} "
            "FROM meter_entries e WHERE e.round_id = r.id AND e.kind = 'reversal'), "
            f"{h_round}), count(*), sum(w.amount_cents) FROM wagers w "
            "JOIN rounds r ON r.id = w.round_id WHERE w.status = 'returned' GROUP BY 1, 2")):
        add(t, h, 3, n)
        add(t, h, 4, c)
    if not rows:
        return
    conn.execute(sa.text(
        "INSERT INTO table_hour_totals (table_id, hour, rounds, wagers, wager_cents, "
        "returned_wagers, returned_cents, contribution_units, reversal_units) VALUES "
        f"(:t, {'CAST(:h AS timestamptz)' if dialect == 'postgresql' else ':h'}, :a, :b, :c, "
        ":d, :e, :f, :g)"),
        [{"t": t, "h": str(h) if dialect == "sqlite" else h, "a": v[0], "b": v[1], "c": v[2],
          "d": v[3], "e": v[4], "f": v[5], "g": v[6]} for (t, h), v in sorted(
              rows.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))])


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.create_table(
        "table_hour_totals",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("hour", UTCDateTime(), primary_key=True),
        sa.Column("rounds", sa.BigInteger(), nullable=False),
        sa.Column("wagers", sa.BigInteger(), nullable=False),
        sa.Column("wager_cents", sa.BigInteger(), nullable=False),
        sa.Column("returned_wagers", sa.BigInteger(), nullable=False),
        sa.Column("returned_cents", sa.BigInteger(), nullable=False),
        sa.Column("contribution_units", sa.BigInteger(), nullable=False),
        sa.Column("reversal_units", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "slip_voids",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("slip_id", sa.Integer(), sa.ForeignKey("slips.id"), nullable=False,
                  unique=True),
        sa.Column("employee_id", sa.Integer(), sa.ForeignKey("employees.id"), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("money_returned", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    _backfill(conn, dialect)
    columns = [c["name"] for c in sa.inspect(conn).get_columns("slip_voids")]
    for ddl in guards.protect_ddl(dialect, "slip_voids", columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl(("slip_voids",), {}, ("table_hour_totals",)):
            op.execute(ddl)
        for ddl in reader_grants_ddl():
            op.execute(ddl)


def reader_grants_ddl() -> list[str]:
    """podium_reader: SELECT on every table of the schema, now and for tables made later."""
    return [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{READER}') THEN "
        f"CREATE ROLE {READER} NOLOGIN; END IF; END $$",
        f"DO $$ BEGIN EXECUTE format('GRANT USAGE ON SCHEMA %I TO {READER}', "
        "current_schema()); END $$",
        f"DO $$ BEGIN EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO {READER}', "
        "current_schema()); END $$",
        f"DO $$ BEGIN EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON "
        f"TABLES TO {READER}', current_schema()); END $$",
    ]


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    if conn.execute(sa.text("SELECT count(*) FROM slip_voids")).scalar():
        raise RuntimeError("revision 0016 can not be downgraded: the ledger holds voided "
                           "slips that revision 0015 can not record (restore a backup taken "
                           "before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, "slip_voids"):
        op.execute(ddl)
    op.drop_table("slip_voids")
    op.drop_table("table_hour_totals")
    if dialect == "postgresql":
        op.execute(f"DO $$ BEGIN EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE "
                   f"SELECT ON TABLES FROM {READER}', current_schema()); END $$")
