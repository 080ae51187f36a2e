"""One floor, many podiums (issue 14): the floor services and who serves each table.

- ``floor_services`` (operational state, not a record): one row per run of a process that
  serves controller links (``podium serve``, or a console that runs the service inside it):
  its name, host, process id, the PostgreSQL backend that holds its table locks, when it
  started, its heartbeat (every second) and when it stopped.  Consoles read it to show whether
  a table's service is up.
- ``table_owners`` (operational state): the service serving each table now.  Who may serve a
  table is decided by a PostgreSQL advisory lock held by that service's lock connection
  (``core/controllers/ownership.py``); this row names the holder for the others.
- ``ownership_events`` (a record: append-only, chained): every table claimed, released, lost
  (the lock connection dropped) or refused (held by another service, named), with the service
  and the time: which process answered a table at any moment.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.ledger import guards
from core.ledger.models import UTCDateTime

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    op.create_table(
        "floor_services",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("db_pid", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("heartbeat_at", UTCDateTime(), nullable=False),
        sa.Column("stopped_at", UTCDateTime(), nullable=True),
    )
    op.create_table(
        "table_owners",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("service_id", sa.Integer(), sa.ForeignKey("floor_services.id"),
                  nullable=False),
        sa.Column("since", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "ownership_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False,
                  index=True),
        sa.Column("service_id", sa.Integer(), sa.ForeignKey("floor_services.id"),
                  nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    columns = [c["name"] for c in sa.inspect(conn).get_columns("ownership_events")]
    for ddl in guards.protect_ddl(dialect, "ownership_events", columns, None):
        op.execute(ddl)
    if dialect == "postgresql":
        for ddl in guards.pg_grants_ddl(("ownership_events",), {},
                                           ("floor_services", "table_owners")):
            op.execute(ddl)


def downgrade() -> None:
    conn = op.get_bind()
    dialect = conn.dialect.name
    if conn.execute(sa.text("SELECT count(*) FROM ownership_events")).scalar():
        raise RuntimeError("revision 0018 can not be downgraded: the ledger records which "
                           "service served each table, and the chain vouches for those rows "
                           "(restore a backup taken before the upgrade)")
    for ddl in guards.unprotect_ddl(dialect, "ownership_events"):
        op.execute(ddl)
    op.drop_table("ownership_events")
    op.drop_table("table_owners")
    op.drop_table("floor_services")
