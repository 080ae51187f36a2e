"""A read-only Desk on a test ledger (SQLite file or the test's PostgreSQL schema), opened the
way a room display opens it (core.desks.signage.display_engine)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, text

from core.desks.desk import Desk
from core.desks.signage import display_engine
from core.floorconfig import FloorConfig


def read_only_engine(engine: Engine) -> Engine:
    url = engine.url.render_as_string(hide_password=False)
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
        return display_engine(url, connect_args={"options": f"-csearch_path={schema}"})
    return display_engine(url)


def read_only_desk(engine: Engine, config: FloorConfig, paytables: dict[str, Any],
                   role: str = "surveillance") -> Desk:
    return Desk(role, read_only_engine(engine), config, paytables)
