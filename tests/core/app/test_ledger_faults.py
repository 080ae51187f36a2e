"""A ledger that can not record (issue 24, items 3 and 5), with the real console (``ConsoleCore``:
links, ledger writer), simulated tables on loopback TCP and a real ledger:

- a PostgreSQL connection held open that passes no bytes (a proxy between the service and the
  server stops relaying): the service's health turns unhealthy naming the problem, the writer's
  watchdog closes the silent connection (the writer is not stuck for ever), and once bytes pass
  again the ledger records again and health is good; every event is recorded once;
- an SQLite ledger on a real filesystem that fills up (a small tmpfs): one message names the
  full disk and the free bytes, the links stay up, the events wait unacknowledged in the
  controllers (no ACK, no reconnect), and when space returns every event is recorded, none
  lost, none twice, with one message saying the ledger records again;
- the same on PostgreSQL whose tables are on a full disk (a cluster of the test's own, its
  tablespace a small tmpfs): one message quotes the server ("could not extend file ...").
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from benchmarks.chaos import _floor_toml, _Tables
from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread
from core.cli.serve_command import health_document
from core.controllers.chaos import FaultRates
from core.controllers.simulator import SimulatedTable
from core.floorconfig import loads_floor
from core.ledger import db
from core.ledger.db import make_engine, upgrade
from core.ledger.models import ControllerEvent as EventRow
from core.ledger.models import RefusedEvent
from core.ledger.outages import ledger_problem
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.conftest import PG_URL
from tests.harness import wait_for
from tests.ledgers import migrate

GUARD = 90.0  # seconds before a wait gives up (a hang guard, not a timing requirement)
LINK = {"heartbeat": 0.5, "reconnect_delay": 0.05, "max_reconnect_delay": 0.2,
        "retransmit": 0.2}


class Floor:
    """Simulated tables (no wagers: START GAME and END GAME, nothing to decide) dealing on
    while fewer than ``in_flight`` of their events wait for an ACK, until each has dealt
    ``events``; and the console on ``engine``."""

    def __init__(self, engine: Engine, tables: int, events: int, **console: Any) -> None:
        paytable = load_paytables()["FPGPP-WA01"]
        self.sims = [SimulatedTable(f"C{i}", paytable, port=0, seed=i, speed=0,
                                    mistake_rate=0.0, bet_probability=0.0, heartbeat=0.5,
                                    retransmit=0.2, tls=None) for i in range(1, tables + 1)]
        self.tables = _Tables(self.sims, FaultRates(), 1, events, 0.005, 4)
        self.thread = SimulatorThread(self.tables)
        self.thread.start()
        config = loads_floor(_floor_toml({t: p.port for t, p in self.tables.proxies.items()}),
                             "faults.toml")
        self.console = ConsoleCore(engine, config, load_paytables(), link_options=LINK,
                                   **console)
        self.messages: list[str] = []  # the supervisor's Activity lines
        self.console.add_message_listener(self.messages.append)
        self.console.floor.writer.add_state_listener(self.messages.append)

    def start(self) -> None:
        self.console.start()
        self.thread.call(self.tables.play)

    def stop(self) -> None:
        self.console.stop()
        self.history = self.on_sims(lambda sims: [(f.origin.table, f.origin.boot, f.origin.seq)
                                                  for s in sims for f in s.history])
        self.thread.stop()

    def on_sims(self, fn: Callable[[list[SimulatedTable]], Any]) -> Any:
        return self.thread.call(lambda: fn(self.sims))

    def acked(self) -> int:
        return int(self.on_sims(lambda sims: sum(len(s.acked_at) for s in sims)))

    def sent_again_unacknowledged(self, times: int = 10) -> None:
        """Wait until every table has sent its waiting events ``times`` times more, and check
        that none of them was acknowledged meanwhile."""
        acked = self.acked()

        def resends() -> list[int]:
            return list(self.on_sims(lambda sims: [s.retransmissions for s in sims]))

        before = resends()
        wait_for(lambda: all(n >= b + times for n, b in zip(resends(), before, strict=True)),
                 GUARD, "the waiting events sent again")
        assert self.acked() == acked

    def done(self) -> bool:
        return bool(self.on_sims(lambda sims: self.tables.played == len(sims)
                                 and all(s.unacknowledged == 0 for s in sims)))

    def says(self, words: str) -> list[str]:
        return [m for m in self.messages if words in m]

    def check_ledger(self, engine: Engine) -> None:
        """Every event a table sent is recorded, once; none refused (after :meth:`stop`)."""
        with engine.connect() as c:
            rows = list(c.execute(select(EventRow.table_id, EventRow.boot, EventRow.seq)))
            refused = list(c.execute(select(RefusedEvent.table_id, RefusedEvent.seq)))
        assert sorted(rows) == sorted(self.history)  # none lost, none twice
        assert refused == []


# ------------------------------------------------------------------ a connection held silent


class HoldingProxy:
    """A TCP proxy to ``target`` on a thread of its own that relays bytes until :meth:`hold`:
    then it reads what comes (the sender's TCP is acknowledged) and passes nothing, on the open
    connections and on new ones, until :meth:`release`."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.flowing = asyncio.Event()
        self.writers: set[asyncio.StreamWriter] = set()
        self.server = self._call(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port: int = self.server.sockets[0].getsockname()[1]
        self.loop.call_soon_threadsafe(self.flowing.set)

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(GUARD)

    def hold(self) -> None:
        self.loop.call_soon_threadsafe(self.flowing.clear)

    def release(self) -> None:
        self.loop.call_soon_threadsafe(self.flowing.set)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        await self.flowing.wait()
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self.writers.add(up_writer)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                             return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65_536):
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()

    def stop(self) -> None:
        async def close() -> None:
            self.server.close()
            for w in list(self.writers):
                w.transport.abort()
            await self.server.wait_closed()

        self._call(close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(GUARD)


@pytest.fixture
def held(pg_engine_factory: Callable[[], Engine], monkeypatch: pytest.MonkeyPatch
         ) -> Iterator[tuple[Engine, HoldingProxy]]:
    """A migrated ledger on a fresh schema, and an engine on it through a HoldingProxy with a
    statement timeout of 1 s (the writer closes a silent connection 5 s later by default) and a
    connect timeout of 2 s."""
    direct = pg_engine_factory()
    migrate(direct)
    with direct.connect() as c:
        schema = c.execute(text("SELECT current_schema()")).scalar_one()
    url = make_url(PG_URL)
    proxy = HoldingProxy((url.host or "127.0.0.1", url.port or 5432))
    monkeypatch.setenv(db.STATEMENT_TIMEOUT_ENV, "1")
    engine = make_engine(url.set(host="127.0.0.1", port=proxy.port)
                         .render_as_string(hide_password=False),
                         connect_args={"options": f"-csearch_path={schema}",
                                       "connect_timeout": 2})
    try:
        yield engine, proxy
    finally:
        proxy.release()
        engine.dispose()
        proxy.stop()


@pytest.mark.postgres
def test_a_database_connection_held_silent_turns_health_unhealthy_and_the_writer_recovers(
        held: tuple[Engine, HoldingProxy], caplog: pytest.LogCaptureFixture) -> None:
    engine, proxy = held
    caplog.set_level(logging.INFO)
    floor = Floor(engine, tables=2, events=80, serve=None, name="held-service", kind="serve",
                  claim_interval=0.2, paper=PAPER)
    writer = floor.console.floor.writer
    writer.stall_s = 1.0  # a job waiting 1 s for its commit: unhealthy
    assert writer.break_s == 1.0 + 5.0  # statement timeout + grace
    # the same watchdog with a shorter grace for the test (2 s, still past the 1 s stall
    # bound): the connection is closed 3 s into the silence, not 6 s
    writer.break_s = 1.0 + 2.0
    floor.start()
    try:
        def health() -> tuple[int, dict[str, Any]]:
            import json

            status, body = health_document(floor.console.health())
            return status, json.loads(body)

        wait_for(lambda: health()[0] == 200 and floor.acked() >= 10, GUARD,
                 "a healthy service recording events")
        proxy.hold()
        # the writer's batch waits for an answer that does not come: health says so
        status, body = wait_for(lambda: (h := health())[0] == 503 and h, GUARD, "unhealthy")
        assert body["healthy"] is False
        assert body["problem"].startswith(("the ledger writer is stuck: a job has waited",
                                           "the ledger has recorded nothing"))
        assert body["writer"]["last_commit"] is not None
        # ... and the watchdog closes the silent connection: the writer is not stuck for ever
        wait_for(lambda: floor.says("did not answer"), GUARD, "the silent connection closed")
        assert "the ledger has recorded nothing" in health()[1]["problem"]
        assert all(up for up, _ in floor.console.link_status().values())
        proxy.release()
        wait_for(lambda: health()[0] == 200 and floor.done(), GUARD,
                 "healthy again, every event acknowledged")
    finally:
        proxy.release()  # (a service stops through its lock connection)
        floor.stop()
    floor.check_ledger(engine)
    assert len(floor.says("The ledger records again")) == 1
    assert not floor.says("could not be recorded")
    assert not [r for r in caplog.records if r.exc_info and r.name == "podium.writer"]


# ------------------------------------------------------------------ a full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs mounted for the test (root only)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"can not mount a tmpfs: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Fill the filesystem of ``folder`` to the last byte; returns the filler file."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (1 << 16, 4096, 512, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    return filler


def test_a_full_disk_is_one_message_links_stay_up_and_every_event_is_recorded_after(
        small_disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    engine = make_engine(f"sqlite:///{small_disk / 'ledger.sqlite3'}")
    upgrade(engine)
    floor = Floor(engine, tables=2, events=300, paper=PAPER)
    floor.start()
    try:
        wait_for(lambda: floor.acked() >= 10, GUARD, "events recorded")
        # the ledger in its file, the write-ahead log emptied: the next commit needs space
        with contextlib.closing(sqlite3.connect(small_disk / "ledger.sqlite3", timeout=30,
                                                isolation_level=None)) as c:
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        filler = fill(small_disk)
        wait_for(lambda: floor.says("disk is full"), GUARD, "the full disk said")
        connections = floor.on_sims(lambda sims: [s.connections for s in sims])
        # every table sends its waiting events again several times: none is acknowledged, no
        # link goes down, no controller is reconnected
        floor.sent_again_unacknowledged()
        assert floor.on_sims(lambda sims: [s.unacknowledged > 0 for s in sims]) == [True, True]
        assert floor.on_sims(lambda sims: [s.connections for s in sims]) == connections
        assert all(up for up, _ in floor.console.link_status().values())
        problem = floor.console.floor.writer.health()["problem"]
        assert "the ledger's disk is full: " in problem and " bytes free on " in problem
        filler.unlink()
        wait_for(floor.done, GUARD, "every event acknowledged after space returned")
    finally:
        floor.stop()
        engine.dispose()
    floor.check_ledger(engine)
    full = floor.says("disk is full")
    assert len(full) == 1, full
    assert full[0].startswith("The ledger stopped recording: the ledger's disk is full: 0 bytes "
                              f"free on {small_disk}. ")
    assert len(floor.says("The ledger records again")) == 1
    # no link went down before the console stopped (closing them is "OFFLINE: closed")
    assert [m for m in floor.says("OFFLINE") if not m.endswith(": closed")] == []
    assert not floor.says("could not be recorded")
    writer_lines = [r for r in caplog.records if r.name == "podium.writer"]
    assert not [r for r in writer_lines if r.exc_info]  # no traceback per batch
    # one line when it stopped, one when it resumed
    assert [("can not record" in r.getMessage(), "records again" in r.getMessage())
            for r in writer_lines] == [(True, False), (False, True)]


# ------------------------------------------------------------------ the words


@pytest.mark.parametrize(("error", "words"), [
    (psycopg.errors.DiskFull('could not extend file "base/16384/2619": No space left on device'),
     "the database server's disk is full: the server says: could not extend file"),
    (psycopg.errors.TooManyConnections("sorry, too many clients already"),
     "the database server is out of resources (53300): the server says: sorry, too many"),
    (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
     "the database server cancelled a ledger statement: canceling statement due to"),
    (psycopg.OperationalError("connection refused"),
     "the ledger's database can not be reached: connection refused"),
])
def test_a_ledger_that_can_not_record_is_named_in_words(error: Exception, words: str) -> None:
    engine = make_engine("postgresql+psycopg://u@127.0.0.1:1/x")
    exc = OperationalError("COMMIT", {}, error)
    problem = ledger_problem(engine, exc)
    assert problem is not None and problem.startswith(words), problem


@pytest.mark.parametrize("value", ["soon", "-1", "0.01", "1e9", "nan"])
def test_a_bad_statement_timeout_is_refused_by_name(value: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(db.STATEMENT_TIMEOUT_ENV, value)
    with pytest.raises(ValueError, match=f"^{db.STATEMENT_TIMEOUT_ENV}="):
        make_engine("postgresql+psycopg://u@127.0.0.1:1/x")


@pytest.mark.postgres
def test_every_ledger_statement_has_the_statement_timeout(
        pg_engine_factory: Callable[[], Engine], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(db.STATEMENT_TIMEOUT_ENV, "2.5")
    engine = pg_engine_factory()
    with engine.connect() as c:
        assert c.execute(text("SHOW statement_timeout")).scalar_one() == "2500ms"
        with pytest.raises(OperationalError) as err:
            c.execute(text("SELECT pg_sleep(10)"))
    assert ledger_problem(engine, err.value) == (
        "the database server cancelled a ledger statement: canceling statement due to "
        "statement timeout")
    with engine.connect() as c:
        schema = c.execute(text("SELECT current_schema()")).scalar_one()
    # options given in the URL are kept beside it (a serve --db URL with a search path)
    by_url = make_engine(f"{PG_URL}?options=-csearch_path%3D{schema}")
    try:
        with by_url.connect() as c:
            assert c.execute(text("SELECT current_schema()")).scalar_one() == schema
            assert c.execute(text("SHOW statement_timeout")).scalar_one() == "2500ms"
    finally:
        by_url.dispose()


@pytest.fixture
def pg_small_disk() -> Iterator[tuple[str, Path]]:
    """A PostgreSQL cluster of the test's own (root, ``pg_createcluster``) whose tablespace
    ``small`` is a 16 MB tmpfs (its write-ahead log stays on the main disk: a full disk there
    would stop the server, not refuse a write): (URL that makes every table there, folder)."""
    if os.geteuid() != 0 or shutil.which("pg_createcluster") is None:
        pytest.skip("a PostgreSQL cluster of the test's own needs root and pg_createcluster")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    version = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True,
                             check=True).stdout.split()[0]
    name = f"podiumfull{port}"
    folder = Path(tempfile.mkdtemp(prefix="podium-pg-disk-"))  # (the server's account
    # reaches it: pytest's own temporary folders are the test account's alone)
    subprocess.run(["pg_createcluster", version, name, "-p", str(port), "--",
                    "--auth=trust", "--wal-segsize=1"], capture_output=True, check=True)
    try:
        subprocess.run(["pg_ctlcluster", version, name, "start"], capture_output=True,
                       check=True)
        pw = pwd.getpwnam("postgres")
        subprocess.run(["mount", "-t", "tmpfs", "-o",
                        f"size=16m,mode=0700,uid={pw.pw_uid},gid={pw.pw_gid}", "tmpfs",
                        str(folder)], capture_output=True, check=True)
        try:
            admin = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
            with psycopg.connect(make_url(admin).set(drivername="postgresql")
                                 .render_as_string(hide_password=False), autocommit=True) as c:
                c.execute(f"CREATE TABLESPACE small LOCATION '{folder}'")
            yield admin, folder
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
    finally:
        subprocess.run(["pg_dropcluster", "--stop", version, name], check=False)
        with contextlib.suppress(OSError):
            folder.rmdir()


@pytest.mark.postgres
def test_a_full_disk_of_the_database_server_is_one_message_and_every_event_is_recorded_after(
        pg_small_disk: tuple[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    url, folder = pg_small_disk
    caplog.set_level(logging.INFO)
    engine = make_engine(url, connect_args={"options": "-c default_tablespace=small"})
    upgrade(engine)
    floor = Floor(engine, tables=2, events=300, serve=None, name="full-service", kind="serve",
                  claim_interval=0.2, paper=PAPER)
    floor.start()
    try:
        wait_for(lambda: floor.acked() >= 10, GUARD, "events recorded")
        filler = fill(folder)
        wait_for(lambda: floor.says("disk is full"), GUARD, "the full disk said")
        floor.sent_again_unacknowledged()
        assert all(up for up, _ in floor.console.link_status().values())
        filler.unlink()
        wait_for(floor.done, GUARD, "every event acknowledged after space returned")
    finally:
        floor.stop()
        engine.dispose()
    floor.check_ledger(engine)
    full = floor.says("disk is full")
    assert len(full) == 1, full
    assert full[0].startswith("The ledger stopped recording: the database server's disk is "
                              "full: the server says: could not extend file")
    assert len(floor.says("The ledger records again")) == 1
    assert [m for m in floor.says("OFFLINE") if not m.endswith(": closed")] == []
