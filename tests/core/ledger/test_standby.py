"""A ledger on a primary PostgreSQL with a standby (docs/standby.md): the multi-host URL.

The tests that take the ``pair`` fixture make a real pair of clusters of their own
(:class:`benchmarks.db_failover.StandbyPair`: a primary and a synchronous hot standby, on two
free ports and under cluster names of the test's own, so they run in parallel with anything
else); they are skipped where that can not be done (no Debian PostgreSQL tools, not root).
Each kills or asks the pair for something of its own, so each makes its own.  The others need
only the test database.
"""

from __future__ import annotations

import logging
import secrets
import socket
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from benchmarks.db_failover import SOCKET_DIR, StandbyPair, clear_stale_socket
from core.controllers.ownership import TableClaims
from core.floorconfig import load_demo_floor
from core.ledger.db import CONNECT_TIMEOUT_S, make_engine, read_only_engine, upgrade
from core.tablegames.feed import FeedListener
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from core.tablegames.views import FloorChange
from printing.escpos.slip import PAPER
from tests.conftest import PG_URL
from tests.harness import wait_for

JOIN_S = 60.0  # a bound for a connection that must not hang (each server: CONNECT_TIMEOUT_S)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port where a server takes TCP connections and never answers (a frozen primary: its
    kernel still accepts)."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        yield srv.getsockname()[1]


def _closed_port() -> int:
    """A port nothing listens on (a primary whose postmaster is gone: refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _in_thread(work: object) -> object:
    """``work()`` on a thread joined with a timeout: a connection that hangs fails the test."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["value"] = work()  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(JOIN_S)
    assert not t.is_alive(), f"the connection still hangs after {JOIN_S:g} s"
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["value"]


@pytest.mark.parametrize("make", [make_engine, read_only_engine], ids=["ledger", "desk"])
def test_every_server_of_a_postgresql_url_is_tried_for_at_most_the_connect_timeout(
        make: object) -> None:
    base = "postgresql+psycopg://podium@/podium?host=db1:5432&host=db2:5432" \
           "&target_session_attrs=read-write"
    for url, want in ((base, CONNECT_TIMEOUT_S), (base + "&connect_timeout=9", "9")):
        engine = make(url)  # type: ignore[operator]
        params = _connect_params(engine)
        assert (params["host"], params["port"]) == ("db1,db2", "5432,5432")
        assert params["target_session_attrs"] == "read-write"
        assert str(params["connect_timeout"]) == str(want)  # the URL's own is kept
        engine.dispose()


def _connect_params(engine: object) -> dict[str, object]:
    """What the engine hands psycopg.connect (the URL's query, then connect_args)."""
    seen: dict[str, object] = {}

    class Stop(Exception):
        pass

    def capture(dialect: object, conn_rec: object, cargs: object,
                cparams: dict[str, object]) -> None:
        seen.update(cparams)
        raise Stop

    event.listen(engine, "do_connect", capture)
    with pytest.raises(Stop):
        engine.connect()  # type: ignore[attr-defined]
    return seen


@pytest.mark.postgres
def test_a_server_that_never_answers_listed_first_does_not_hold_the_ledger(
        silent_server: int) -> None:
    admin = create_engine(PG_URL, poolclass=NullPool)
    schema = f"t_{secrets.token_hex(6)}"
    try:
        with admin.begin() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}: {exc.__class__.__name__}")
    live = admin.url
    url = (f"postgresql+psycopg://{live.username}@/{live.database}?host=127.0.0.1:"
           f"{silent_server}&host={live.host}:{live.port or 5432}&target_session_attrs="
           f"read-write&options=-csearch_path%3D{schema}")
    engine = make_engine(url)

    def write() -> object:
        with engine.begin() as c:
            c.execute(text("CREATE TABLE probe (n integer)"))
            c.execute(text("INSERT INTO probe VALUES (1)"))
            return c.execute(text("SELECT inet_server_port()")).scalar()

    try:
        assert _in_thread(write) == (live.port or 5432)
    finally:
        engine.dispose()
        with admin.begin() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def pair() -> Iterator[StandbyPair]:
    """A primary and its synchronous hot standby on two free ports, database ``podium``."""
    why = StandbyPair.available()
    if why:
        pytest.skip(why)
    ports = _free_ports(2)
    pair = StandbyPair(f"podium_test_{ports[0]}", (ports[0], ports[1]))
    try:
        pair.make()
        standby = create_engine(pair.single(1, "postgres"), poolclass=NullPool)

        def replayed() -> bool:  # (synchronous_commit = on: flushed there, replayed soon)
            with standby.connect() as c:
                return bool(c.execute(text(
                    "SELECT count(*) FROM pg_database WHERE datname = 'podium'")).scalar())

        wait_for(replayed, timeout=JOIN_S, what="the standby to replay CREATE DATABASE")
        standby.dispose()
        yield pair
    finally:
        pair.drop()
        for port in pair.ports:  # a killed primary's zombie leaves its socket's lock file
            clear_stale_socket(port)
        for name in (pair.primary, pair.standby):  # and pg_ctlcluster's pid file of it
            (SOCKET_DIR / f"{pair.version}-{name}.pid").unlink(missing_ok=True)


def _free_ports(n: int) -> list[int]:
    """``n`` distinct ports nothing listens on now (held open together, so not one twice)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


@pytest.mark.postgres
def test_a_read_write_url_skips_a_dead_server_and_the_standby_and_a_commit_survives_failover(
        pair: StandbyPair) -> None:
    # a server that refuses, the standby, and last the primary
    url = (f"postgresql+psycopg://postgres@/podium?host=127.0.0.1:{_closed_port()}"
           f"&host=127.0.0.1:{pair.ports[1]}&host=127.0.0.1:{pair.ports[0]}"
           "&target_session_attrs=read-write")
    engine = make_engine(url)
    try:
        _in_thread(lambda: upgrade(engine))
        with engine.begin() as c:
            assert c.execute(text("SELECT inet_server_port()")).scalar() == pair.ports[0]
            c.execute(text("CREATE TABLE probe (n integer)"))
        with engine.begin() as c:
            c.execute(text("INSERT INTO probe VALUES (7)"))
        # the commit has returned: with the standby synchronous it is on both servers, so a
        # primary killed now loses nothing
        pair.kill_primary()
        pair.promote()

        def read() -> object:
            try:
                with engine.connect() as c:
                    return c.execute(text("SELECT inet_server_port(), "
                                          "(SELECT n FROM probe)")).one()
            except DBAPIError as exc:  # a pooled connection to the dead primary: the pool is
                assert exc.connection_invalidated  # invalidated, the next one is new
            with engine.connect() as c:
                return c.execute(text("SELECT inet_server_port(), (SELECT n FROM probe)")).one()

        assert tuple(_in_thread(read)) == (pair.ports[1], 7)  # type: ignore[arg-type]
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_serve_with_no_primary_among_the_servers_names_every_one_in_one_line(
        pair: StandbyPair, capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli.dispatch import main

    dead = _closed_port()
    url = (f"postgresql+psycopg://postgres@/podium?host=127.0.0.1:{dead}&host=127.0.0.1:"
           f"{pair.ports[1]}&target_session_attrs=read-write")
    rc = main(["serve", "--floor", "demo", "--db", url])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert f"127.0.0.1:{dead} Connection refused" in lines[0]
    assert f"127.0.0.1:{pair.ports[1]} session is read-only (not the primary)" in lines[0]


def _fill_pool(engine: Engine, n: int = 3) -> None:
    """Leave ``n`` idle connections in the engine's pool (a process that has been working)."""
    conns = [engine.connect() for _ in range(n)]
    for c in conns:
        c.execute(text("SELECT 1"))
        c.close()


@pytest.mark.postgres
def test_after_a_failover_claims_and_the_feed_are_made_again_on_the_new_primary(
        pair: StandbyPair, caplog: pytest.LogCaptureFixture) -> None:
    # two processes' engines: a service's (claims) and a console's (the feed), each with idle
    # pooled connections to the primary when it dies
    service, console, other = (make_engine(pair.url()) for _ in range(3))
    try:
        upgrade(service)
        floor = Floor(service, load_demo_floor(), load_paytables(), paper=PAPER)
        floor.start(())
        table = floor.config.tables[0].id
        claims = TableClaims(floor, "svc-standby-test")
        claims.open()
        assert claims.claim([table])[0] == [table]
        watcher = Floor(console, load_demo_floor(), load_paytables(), paper=PAPER)
        resyncs: list[int] = []
        listener = FeedListener(watcher.ctx, on_resync=lambda: resyncs.append(1),
                                reconnect_delay=0.2)
        listener.start()
        assert listener.connected.is_set()
        _fill_pool(service)
        _fill_pool(console)
        caplog.set_level(logging.WARNING, logger="podium.feed")
        pair.kill_primary()
        pair.promote()  # returns once the new primary takes writes
        assert not claims.beat()  # the lock connection died with the old primary
        assert set(claims.lost()) == {table}
        # made again at the first try, not from a connection the pool kept of the old primary
        claims.open()
        assert claims.claim([table])[0] == [table]
        with service.connect() as c:
            assert c.execute(text("SELECT inet_server_port()")).scalar() == pair.ports[1]
        wait_for(lambda: resyncs, timeout=JOIN_S, what="the feed listening again")
        # every failure the feed named was the servers' state, not a dead pooled connection
        failures = [r.getMessage() for r in caplog.records
                    if "can not listen on the ledger" in r.getMessage()]
        assert all("no server of the ledger URL could be used" in m for m in failures), failures
        # and it hears the new primary: a change another process makes there
        seen: list[FloorChange] = []
        watcher.add_listener(seen.append)
        Floor(other, load_demo_floor(), load_paytables(), paper=PAPER).set_link(table, True)
        wait_for(lambda: any(table in c.tables for c in seen), timeout=JOIN_S,
                 what="the change heard from the new primary")
        listener.stop()
        claims.close()
    finally:
        for engine in (service, console, other):
            engine.dispose()
