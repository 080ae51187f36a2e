"""Alembic environment: uses the connection handed over by core.ledger.db.upgrade, or
``-x url=...`` when run from the alembic command line."""

from __future__ import annotations

from alembic import context

from core.ledger.db import make_engine
from core.ledger.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("alembic: pass the ledger with -x url=sqlite:///... or postgresql+psycopg://...")
    engine = make_engine(url)
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("alembic: offline (SQL script) mode is not supported for the ledger")
run_migrations_online()
