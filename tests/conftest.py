"""Database fixtures: every ledger test runs on SQLite (a temporary file) AND PostgreSQL.

PostgreSQL: ``PODIUM_TEST_PG_URL`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``);
each test gets a fresh schema ``t_<random>`` (search_path set through the connection options),
dropped afterwards.  An unreachable server skips those tests, unless ``PODIUM_REQUIRE_POSTGRES=1``
(CI), then they fail.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text

from core.ledger.db import make_engine, upgrade
from core.tablegames.paper import use_paper
from printing.slip import PAPER

# the app wiring of every test process: a Floor built without paper= renders ESC/POS slips
use_paper(PAPER)

PG_URL = os.environ.get("PODIUM_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _require_postgres() -> bool:
    return os.environ.get("PODIUM_REQUIRE_POSTGRES", "") == "1"


def _pg_admin_engine() -> Engine:
    admin = create_engine(PG_URL, connect_args={"connect_timeout": 3})
    try:
        with admin.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001 - any connection failure means "no server"
        admin.dispose()
        msg = f"PostgreSQL not reachable at {PG_URL}: {exc.__class__.__name__}"
        if _require_postgres():
            pytest.fail(msg + " (PODIUM_REQUIRE_POSTGRES=1)")
        pytest.skip(msg)
    return admin


@pytest.fixture
def pg_engine_factory() -> Iterator[object]:
    """Yields a function returning a bare engine on a fresh schema (no tables)."""
    admin = _pg_admin_engine()
    schemas: list[str] = []
    engines: list[Engine] = []

    def factory() -> Engine:
        schema = f"t_{secrets.token_hex(6)}"
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        schemas.append(schema)
        eng = make_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"})
        engines.append(eng)
        return eng

    yield factory
    for eng in engines:
        eng.dispose()
    with admin.begin() as conn:
        for schema in schemas:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()


def _bare_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Engine:
    if request.param == "sqlite":
        return make_engine(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    factory = request.getfixturevalue("pg_engine_factory")
    eng: Engine = factory()
    return eng


_BACKENDS = [pytest.param("sqlite", id="sqlite"),
             pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=_BACKENDS)
def bare_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on an EMPTY database (no migrations run)."""
    eng = _bare_engine(request, tmp_path)
    yield eng
    eng.dispose()


@pytest.fixture(params=_BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on a migrated, empty ledger."""
    eng = _bare_engine(request, tmp_path)
    upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def backend(engine: Engine) -> str:
    return engine.dialect.name


@pytest.fixture(autouse=True)
def _collect_on_the_main_thread() -> Iterator[None]:
    """Once a GUI test has installed gui/collector.py (automatic collection off, so no Qt
    object is collected on a worker thread), collect here too, on the main thread, between
    tests that run no Qt event loop."""
    yield
    import gc

    if not gc.isenabled():
        from gui.collector import installed

        collector = installed()
        if collector is not None:
            collector.check()


@pytest.fixture(autouse=True, scope="session")
def _card_key_of_the_test_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test (and every console or command a test starts) uses one card key made for the
    run (core/cardkey.py), never the user's configuration folder."""
    old = os.environ.get("PODIUM_CARD_KEY")
    os.environ["PODIUM_CARD_KEY"] = str(tmp_path_factory.mktemp("cardkey") / "card.key")
    yield
    if old is None:
        os.environ.pop("PODIUM_CARD_KEY", None)
    else:
        os.environ["PODIUM_CARD_KEY"] = old
