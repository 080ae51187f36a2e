"""Database fixtures: every ledger test runs on SQLite (a temporary file) AND PostgreSQL.

PostgreSQL: ``PODIUM_TEST_PG_URL`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``);
each test gets a schema ``t_<random>`` of its own (search_path set through the connection
options): an ``engine`` test a new ledger in one of its process's schemas, emptied after the
last test that used it (tests/ledgers.py), a bare engine a new schema dropped afterwards.  An
unreachable server skips those tests, unless ``PODIUM_REQUIRE_POSTGRES=1`` (CI), then they
fail.
"""

from __future__ import annotations

import faulthandler
import fcntl
import os
import secrets
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from sqlalchemy import Engine, create_engine, text

from core.ledger.db import make_engine
from core.people import auth
from tests.ledgers import close_pg_ledgers, conninfo_of, migrate, pg_ledger

PG_URL = os.environ.get("PODIUM_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

# -- a hang names itself ---------------------------------------------------------------------
# Every test (setup, call and teardown) has TEST_TIMEOUT_S (``@pytest.mark.timeout(s)`` for one
# test, PODIUM_TEST_TIMEOUT for the run): past it, a watchdog thread signals the main thread
# (SIGUSR2) and the test FAILS there with its stack, naming itself; a test that still runs
# HARD_EXIT_AFTER_S later (stuck where no Python runs) has every thread's stack dumped and the
# process ends (under pytest-xdist: "worker crashed while running <test>").
TEST_TIMEOUT_S = float(os.environ.get("PODIUM_TEST_TIMEOUT", "300"))
HARD_EXIT_AFTER_S = 60.0


class TestTimeout(Exception):
    """A test ran past its timeout (raised in the main thread by the watchdog's signal)."""

    __test__ = False  # (not a test class)


def _timeout_of(item: pytest.Item) -> float:
    marker = item.get_closest_marker("timeout")
    return float(marker.args[0]) if marker is not None and marker.args else TEST_TIMEOUT_S


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    timeout = _timeout_of(item)
    if timeout <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    main = threading.main_thread().ident
    assert main is not None
    state = {"fired": False}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if state["fired"]:
            raise TestTimeout(f"{item.nodeid} still running after {timeout:g} s "
                              f"(PODIUM_TEST_TIMEOUT / @pytest.mark.timeout)")

    def fire() -> None:
        state["fired"] = True
        signal.pthread_kill(main, signal.SIGUSR2)

    def hard_exit() -> None:
        sys.stderr.write(f"\n{item.nodeid}: still running {HARD_EXIT_AFTER_S:g} s after its "
                         f"timeout ({timeout:g} s); every thread's stack:\n")
        faulthandler.dump_traceback(all_threads=True)
        sys.stderr.flush()
        os._exit(70)

    previous = signal.signal(signal.SIGUSR2, on_signal)
    soft = threading.Timer(timeout, fire)
    hard = threading.Timer(timeout + HARD_EXIT_AFTER_S, hard_exit)
    for t in (soft, hard):
        t.daemon = True
        t.name = f"test-timeout-{t is hard and 'exit' or 'fail'}"
        t.start()
    try:
        yield
    finally:
        soft.cancel()
        hard.cancel()
        signal.signal(signal.SIGUSR2, previous)


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
    """An engine on a migrated, empty ledger: a copy of the session's template, migrated once
    per test process; on PostgreSQL a schema of the process emptied for this test when the
    last test left its catalog as the template made it (tests/ledgers.py)."""
    if request.param == "sqlite":
        eng = _bare_engine(request, tmp_path)
        migrate(eng)
        yield eng
        eng.dispose()
        return
    _pg_reachable()
    with pg_ledger(PG_URL) as eng:
        yield eng


_pg_seen = False


def _pg_reachable() -> None:
    """Skip (or, in CI, fail) the test if the server is not there; asked once per process."""
    global _pg_seen
    if not _pg_seen:
        _pg_admin_engine().dispose()
        _pg_seen = True


#: the catalogs a run's schemas leave dead rows in (made and dropped: the template, the bare
#: and migration tests' schemas, a pooled schema a test changed)
_CATALOGS = ("pg_attribute", "pg_class", "pg_depend", "pg_type", "pg_constraint", "pg_index",
             "pg_trigger", "pg_proc", "pg_namespace", "pg_attrdef", "pg_policy", "pg_init_privs",
             "pg_shdepend", "pg_sequence", "pg_default_acl", "pg_rewrite", "pg_description",
             "pg_statistic")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run leaves the test server's catalogs as it found them: it vacuums the catalogs its
    schemas left dead rows in (once, in the controller; 2.6 s for three runs' dead rows).  A
    server with autovacuum off (this machine's) otherwise grows them run after run, and every
    later run makes and drops its schemas through a longer catalog (2 GB of ``pg_attribute``
    after a day's runs here)."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller does it
        return
    import psycopg

    try:
        with psycopg.connect(conninfo_of(PG_URL), autocommit=True, connect_timeout=3) as conn:
            conn.execute("SET client_min_messages = error")  # (not a superuser: skipped)
            conn.execute("VACUUM " + ", ".join(f"pg_catalog.{c}" for c in _CATALOGS))
    except psycopg.Error:
        pass  # no server, or no right to: nothing to leave as it was


@pytest.fixture
def pg_url() -> str:
    """The test server's URL, once it answers (else the test skips, or fails in CI)."""
    _pg_reachable()
    return PG_URL


@pytest.fixture(autouse=True, scope="session")
def _pg_ledgers_dropped_at_the_end() -> Iterator[None]:
    yield
    close_pg_ledgers()


@pytest.fixture
def backend(engine: Engine) -> str:
    return engine.dialect.name


@pytest.fixture(autouse=True)
def _collect_on_the_main_thread() -> Iterator[None]:
    """Once a GUI test has installed gui/common/collector.py (automatic collection off, so no Qt
    object is collected on a worker thread), collect here too, on the main thread, between
    tests that run no Qt event loop."""
    yield
    import gc

    if not gc.isenabled():
        from gui.common.collector import installed

        collector = installed()
        if collector is not None:
            collector.check()


#: core/people/auth.py's scrypt cost, kept before the run lowers it (``production_pin_cost``)
PRODUCTION_SCRYPT_N = auth.SCRYPT_N
TEST_SCRYPT_N = 2**4


@pytest.fixture(autouse=True, scope="session")
def _pins_hashed_cheaply_in_this_process() -> Iterator[None]:
    """A PIN is hashed with scrypt at N=2**14 (core/people/auth.py: about 16 MB and tens of ms a
    hash, by design).  The suite hashes thousands of PINs (every enrolment and every check), so in
    the test processes they are hashed at N=2**4: the same function, format, salt and checks, at a
    cost that proves nothing.  A hash records its N, so a PIN is always checked at the N it was
    hashed with; a command a test runs in a subprocess hashes at the production N.
    ``tests/core/people/test_pin_cost.py`` checks the production cost (``production_pin_cost``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(auth, "SCRYPT_N", TEST_SCRYPT_N)
        yield


@pytest.fixture
def production_pin_cost(monkeypatch: pytest.MonkeyPatch) -> int:
    """PINs hashed at the production scrypt cost for this test; returns that N."""
    monkeypatch.setattr(auth, "SCRYPT_N", PRODUCTION_SCRYPT_N)
    return PRODUCTION_SCRYPT_N


@pytest.fixture(autouse=True, scope="session")
def _argparse_looks_up_no_translation() -> Iterator[None]:
    """argparse passes each of its messages through ``gettext`` as it builds a parser: about a
    hundred lookups of a translation file for the ``podium`` parser, 12-17 ms of one command's
    start.  The test processes build that parser thousands of times (commands run in process:
    tests/cli_fuzz.py, the command tests).  Where no translation exists (``gettext.find``, the
    same lookup, finds none: the messages are argparse's own), they skip the lookup; the
    messages are the same."""
    import argparse
    import gettext

    if gettext.find("messages") is not None:
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(argparse, "_", str)
        yield


@pytest.fixture(autouse=True, scope="session")
def _card_key_of_the_test_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test (and every console or command a test starts) uses one card key made for the
    run (core/people/cardkey.py), never the user's configuration folder."""
    old = os.environ.get("PODIUM_CARD_KEY")
    os.environ["PODIUM_CARD_KEY"] = str(tmp_path_factory.mktemp("cardkey") / "card.key")
    yield
    if old is None:
        os.environ.pop("PODIUM_CARD_KEY", None)
    else:
        os.environ["PODIUM_CARD_KEY"] = old


@pytest.fixture(autouse=True)
def _one_at_a_time_on_this_machine(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests marked ``xdist_group(name)`` (something of the whole machine: a fixed port, a
    fixed path) run one at a time on this machine: an exclusive lock on a file named after the
    group, held for the test, whichever xdist worker (or other run) asks for it first.  (With
    pytest 9 the loadgroup scheduler of pytest-xdist 3.8 does not keep a group on one worker.)"""
    marker = request.node.get_closest_marker("xdist_group")
    if marker is None:
        yield
        return
    name = str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))
    path = Path(tempfile.gettempdir()) / f"podium-tests-{os.getuid()}-{name}.lock"
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (bounded by the test's timeout)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
