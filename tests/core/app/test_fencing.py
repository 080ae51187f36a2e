"""Fencing and leases on a shared floor (issue 24, items 1 and 2): a service's claim on a table
is a lease its heartbeat renews, and every write it makes for the table carries its claim's
epoch, checked by the database inside the write's transaction.  A service that was paused while
its tables were taken writes nothing for them when it wakes; a frozen service loses its tables
to a standby when its lease ends, whatever its lock connection says."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from sqlalchemy import Connection, Engine, event, func, select, text

from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread
from core.controllers.events import GameEnded, GameStarted, Origin
from core.controllers.ownership import ClaimError, TableClaims
from core.controllers.sim_floor import Simulator
from core.controllers.simulator import SimulatedTable
from core.floorconfig import FloorConfig, load_demo_floor
from core.ledger import guards
from core.ledger.balance_checks import check_balances
from core.ledger.models import ControllerEvent, OwnershipEvent, RefusedEvent
from core.tablegames.floor import Floor
from core.tablegames.ingest.batch import NotHeld
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.core.app.test_floor_service import _same_ledger
from tests.core.ledger.test_audit import attacker
from tests.harness import held_writer, wait_for
from tests.ledgers import migrate
from tests.pki import pki

pytestmark = pytest.mark.postgres
TABLES = ("PG-1", "PG-4")


@pytest.fixture
def pg(pg_engine_factory: object) -> Iterator[Engine]:
    eng: Engine = pg_engine_factory()  # type: ignore[operator]
    migrate(eng)
    yield eng


def _floor(engine: Engine) -> Floor:
    return Floor(engine, load_demo_floor(), load_paytables(), paper=PAPER)


def _terminate(engine: Engine, pid: int | None) -> None:
    """The server ends a session (a failover, an operator's pg_terminate_backend)."""
    with engine.connect() as c:
        c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        c.commit()


def _counts(engine: Engine) -> tuple[int, int, bool]:
    """(controller events, refused events, PG-1 online) as the ledger holds them."""
    with engine.connect() as c:
        return (int(c.scalar(select(func.count()).select_from(ControllerEvent)) or 0),
                int(c.scalar(select(func.count()).select_from(RefusedEvent)) or 0),
                bool(c.scalar(text("SELECT online FROM tables WHERE id = 'PG-1'"))))


def test_a_write_with_a_stale_epoch_or_an_ended_lease_is_refused_in_its_transaction(
        pg: Engine) -> None:
    a = _floor(pg)
    a.start(())
    a.writer.start()
    claims_a = TableClaims(a, "pit-a", lease=60)  # its own belief: held for a minute
    claims_a.open()
    assert claims_a.claim(["PG-1"])[0] == ["PG-1"]
    a.writer.fence = claims_a.fence
    a.writer.submit_link("PG-1", True).result(10)
    assert a.writer.submit_event(Origin("PG-1", "boot-a", 1),
                                 GameStarted(1, {1: 100})).result(10) is True
    assert _counts(pg) == (1, 0, True)

    other = _same_ledger(pg)
    try:
        b = _floor(other)
        b.writer.start()
        claims_b = TableClaims(b, "standby", grace_s=0.0, lease=60)
        claims_b.open()
        # pit-a's lock session is ended on the server; pit-a does not know (no heartbeat yet)
        _terminate(pg, claims_a.db_pid)
        wait_for(lambda: claims_b.claim(["PG-1"])[0] == ["PG-1"], what="the standby takes PG-1")
        b.writer.fence = claims_b.fence
        assert _counts(pg) == (1, 0, False)  # OFFLINE until the standby's link is up
        assert claims_a.holds("PG-1")  # pit-a still believes it serves the table ...
        # ... but the database refuses its writes: neither its event nor its link state lands
        with pytest.raises(NotHeld, match="table PG-1: not held by this service"):
            a.writer.submit_event(Origin("PG-1", "boot-a", 2), GameEnded(1)).result(10)
        with pytest.raises(NotHeld):
            a.writer.submit_link("PG-1", True).result(10)
        assert _counts(pg) == (1, 0, False)  # nothing written, no refusal kept

        # the standby holds it at the new epoch: its writes go in
        b.writer.submit_link("PG-1", True).result(10)
        assert b.writer.submit_event(Origin("PG-1", "boot-a", 2), GameEnded(1)).result(10)
        assert _counts(pg) == (2, 0, True)

        # the lease in the database ends (not renewed), whatever the standby believes: refused
        with pg.begin() as c:
            c.execute(text("UPDATE ledger_locks SET lease_until = clock_timestamp() - "
                           "interval '1 second' WHERE name = 'table:PG-1'"))
        assert claims_b.holds("PG-1")
        with pytest.raises(NotHeld):
            b.writer.submit_event(Origin("PG-1", "boot-a", 3),
                                  GameStarted(2, {1: 100})).result(10)
        assert _counts(pg) == (2, 0, True)

        # renewed by its heartbeat: held again.  A write's transaction holds the claim's row
        # (FOR KEY SHARE): the holder's renewal goes through, a claim skips the row (asked
        # again the next round) and can not take the table under the write
        assert claims_b.beat() and claims_b.owned == {"PG-1"}
        third = _same_ledger(pg)
        try:
            claims_c = TableClaims(_floor(third), "third", lease=60)
            claims_c.open()
            with other.connect() as conn, conn.begin():
                assert claims_b.fence(conn, ["PG-1"]) == set()
                assert claims_b.beat() and claims_b.owned == {"PG-1"}
                with pg.begin() as c:  # its lease ends while the write is under way
                    c.execute(text("UPDATE ledger_locks SET lease_until = clock_timestamp() "
                                   "- interval '1 second' WHERE name = 'table:PG-1'"))
                with pytest.raises(ClaimError, match="PG-1 are locked by another transaction"):
                    claims_c.claim(["PG-1"])
            assert claims_c.claim(["PG-1"])[0] == ["PG-1"]  # after the write committed
            claims_c.close()
        finally:
            third.dispose()
        b.writer.stop()
        claims_b.close()
    finally:
        other.dispose()
    a.writer.stop()


def test_the_fence_and_the_lease_take_the_writer_role_and_no_reader_can(pg: Engine) -> None:
    """The fence's row lock and the lease's renewal need the UPDATE privilege on the claim's
    columns: ``podium_writer`` has it, a ``podium_reader`` login can neither hold a table's
    claim row nor move its lease or epoch."""
    a = _floor(pg)
    a.start(())
    claims = TableClaims(a, "pit-a")
    claims.open()
    assert claims.claim(["PG-1"])[0] == ["PG-1"]
    fence = ("SELECT epoch FROM ledger_locks WHERE name = 'table:PG-1' "
             "AND lease_until > clock_timestamp() FOR KEY SHARE")
    with attacker(pg, guards.WRITER_ROLE) as run:
        run("BEGIN")
        run(fence)
        run("UPDATE ledger_locks SET lease_until = clock_timestamp() + interval '3 seconds', "
            "epoch = epoch + 1 WHERE name = 'table:PG-2'")
        run("ROLLBACK")
    for sql in (fence, "UPDATE ledger_locks SET lease_until = NULL",
                "UPDATE ledger_locks SET epoch = epoch + 1"):
        with attacker(pg, guards.READER_ROLE) as run, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            run(sql)
    claims.close()


# ------------------------------------------------------------------ services on a playing floor
def _playing_floor() -> tuple[dict[str, SimulatedTable], SimulatorThread, FloorConfig]:
    paytables = load_paytables()
    base = load_demo_floor()
    chosen = [t for t in base.tables if t.id in TABLES]
    sims = {t.id: SimulatedTable(t.id, paytables[t.paytable or base.group(t.group).paytable],
                                 tls=pki().table_context(t.id), port=0, seats=t.seats,
                                 seed=i, speed=200, mistake_rate=0.0, heartbeat=0.5)
            for i, t in enumerate(chosen)}
    thread = SimulatorThread(Simulator(sims.values()))
    thread.start()
    config = replace(base, tables=tuple(replace(t, port=sims[t.id].port) for t in chosen),
                     groups=tuple(g for g in base.groups if any(t.group == g.id
                                                                 for t in chosen)),
                     controller_link=pki().link_config())
    return sims, thread, config


def _service(engine: Engine, config: FloorConfig, name: str) -> ConsoleCore:
    return ConsoleCore(engine, config, load_paytables(), name=name, kind="serve",
                       claim_interval=0.5,
                       link_options={"heartbeat": 0.5, "reconnect_delay": 0.1,
                                     "max_reconnect_delay": 0.5}, paper=PAPER)


_WRITE = re.compile(r"^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.IGNORECASE)


class Commits:
    """What one service's engine commits for a table while ``watch`` is set: the statements
    of each committed transaction that write events, refusals, link state or ownership (its
    own records that it lost a table, or was refused one, excepted)."""

    TABLES = {"controller_events", "refused_events", "tables", "table_owners",
              "ownership_events", "rounds", "wagers", "hits"}

    def __init__(self, engine: Engine) -> None:
        self.watch = False
        self.rows: list[str] = []
        self._open: dict[int, list[str]] = {}
        self._guard = threading.Lock()
        event.listen(engine, "before_cursor_execute", self._execute)
        event.listen(engine, "commit", self._commit)
        event.listen(engine, "rollback", self._rollback)

    def _execute(self, conn: Connection, _cursor: Any, statement: str, parameters: Any,
                 _context: Any, _many: bool) -> None:
        found = _WRITE.match(statement)
        if not self.watch or found is None or found.group(1).lower() not in self.TABLES:
            return
        said = repr(parameters)
        if found.group(1).lower() == "ownership_events" and not (
                "'claimed'" in said or "'released'" in said):
            return  # "lost", "refused": the service's own words about itself
        with self._guard:
            self._open.setdefault(id(conn), []).append(f"{statement[:80]} {said[:200]}")

    def _commit(self, conn: Connection) -> None:
        with self._guard:
            self.rows += self._open.pop(id(conn), [])

    def _rollback(self, conn: Connection) -> None:
        with self._guard:
            self._open.pop(id(conn), None)


class Pause:
    """A service stopped as SIGSTOP would stop it, in the parts that decide what it writes:
    its claims' heartbeat and its link loop (every controller link) are held until
    :meth:`resume_links` / :meth:`resume_heartbeat`."""

    def __init__(self, core: ConsoleCore) -> None:
        self.core = core
        self.heartbeat = threading.Event()
        self.links = threading.Event()
        self._held = threading.Event()
        self._loop_held = threading.Event()
        claims = core.claims
        assert claims is not None
        beat = claims.beat

        def held_beat() -> bool:
            if not self.heartbeat.is_set():
                self._held.set()
                assert self.heartbeat.wait(60)
            return beat()

        claims.beat = held_beat  # type: ignore[method-assign]
        self.heartbeat.set()
        self.links.set()

    def stop(self) -> None:
        """Hold the heartbeat and the link loop; returns when both are held."""
        self.heartbeat.clear()
        self._held.clear()
        assert self._held.wait(10)
        self.links.clear()
        self._loop_held.clear()

        def hold() -> None:
            self._loop_held.set()
            assert self.links.wait(60)

        assert self.core.link_loop.loop is not None
        self.core.link_loop.loop.call_soon_threadsafe(hold)
        assert self._loop_held.wait(10)

    def resume_links(self) -> None:
        self.links.set()

    def resume_heartbeat(self) -> None:
        self.heartbeat.set()


def _serves(engine: Engine, core: ConsoleCore) -> bool:
    """Every table held by ``core``, linked by it, and ONLINE in the ledger."""
    claims = core.claims
    with engine.connect() as c:
        online = set(c.scalars(text("SELECT id FROM tables WHERE online")))
    return (claims is not None and claims.owned == set(TABLES)
            and all(core.link_status().get(t, (False, ""))[0] for t in TABLES)
            and online >= set(TABLES))


def _events(engine: Engine) -> int:
    with engine.connect() as c:
        return int(c.scalar(select(func.count()).select_from(ControllerEvent)) or 0)


@pytest.mark.slow
def test_a_paused_service_whose_lock_session_ended_writes_nothing_when_it_wakes(
        pg: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three times: the serving service is paused, its lock session ended on the server, the
    standby takes the tables (after the grace) and serves them, the paused one wakes (its
    links first, as they may).  The woken service writes nothing for the tables (no event,
    no link state, no claim), no START GAME is refused, no acknowledged event is lost."""
    monkeypatch.setenv("PODIUM_LEASE_S", "2")
    sims, thread, config = _playing_floor()
    engines = {"svc-a": pg, "svc-b": _same_ledger(pg)}
    cores = {name: _service(eng, config, name) for name, eng in engines.items()}
    commits = {name: Commits(eng) for name, eng in engines.items()}
    try:
        cores["svc-a"].start()
        wait_for(lambda: _serves(pg, cores["svc-a"]), timeout=20, what="svc-a serves")
        cores["svc-b"].start()
        pauses = {name: Pause(core) for name, core in cores.items()}
        owner, standby = "svc-a", "svc-b"
        for _cycle in range(3):
            played = _events(pg)
            wait_for(lambda played=played: _events(pg) > played + 10, timeout=20,
                     what="the tables play")
            claims = cores[owner].claims
            assert claims is not None
            pauses[owner].stop()
            _terminate(pg, claims.db_pid)
            wait_for(lambda standby=standby: _serves(pg, cores[standby]), timeout=20,
                     what=f"{standby} takes and serves the tables")
            commits[owner].watch = True  # the tables are another's: nothing more from it
            pauses[owner].resume_links()
            stale = cores[owner]
            # its links run again (they may reconnect and take the controller back for a
            # moment) before its heartbeat learns anything
            wait_for(lambda stale=stale: not stale.served_tables() or all(
                up for up, _d in stale.link_status().values()), timeout=20,
                what="the woken service's links act")
            pauses[owner].resume_heartbeat()
            played = _events(pg)
            wait_for(lambda played=played: _events(pg) > played + 20, timeout=20,
                     what=f"the tables play on under {standby}")
            wait_for(lambda standby=standby: _serves(pg, cores[standby]), timeout=20,
                     what=f"{standby} still serves")
            commits[owner].watch = False
            owner, standby = standby, owner
        for sim in sims.values():
            thread.call(_stop_dealing, sim)
        wait_for(lambda: all(not s.outbox for s in sims.values()), timeout=60,
                 what="every event acknowledged")
    finally:
        for core in cores.values():
            core.stop()
        thread.stop()
        engines["svc-b"].dispose()

    assert commits["svc-a"].rows == [] and commits["svc-b"].rows == []
    with pg.connect() as c:
        refused = list(c.execute(select(RefusedEvent.table_id, RefusedEvent.type,
                                        RefusedEvent.reason)))
        recorded = {(t, b, q) for t, b, q in c.execute(
            select(ControllerEvent.table_id, ControllerEvent.boot, ControllerEvent.seq))}
        gaps = c.scalar(select(func.count()).select_from(ControllerEvent)
                        .where(ControllerEvent.type == "SequenceGap"))
        claimed = list(c.execute(select(OwnershipEvent.table_id, OwnershipEvent.event)
                                 .where(OwnershipEvent.event == "claimed")))
    assert refused == []  # no START GAME (or any event) refused: the stale OFFLINE never landed
    assert gaps == 0  # nothing called missing that another service recorded
    acked = {(tid, sim.boot, seq) for tid, sim in sims.items()
             for seq, (result, _r) in sim.ack_results.items() if result == "ok"}
    assert acked and acked <= recorded
    assert len(claimed) == 4 * len(TABLES)  # the first claim, then one per cycle
    assert check_balances(pg) == []


def _stop_dealing(sim: SimulatedTable) -> None:
    if sim._pacer is not None:
        sim._pacer.cancel()
        sim._pacer = None


@pytest.mark.slow
def test_a_frozen_service_loses_its_tables_when_its_lease_ends(
        pg: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The serving service's heartbeat stops (a frozen process, a network cut) while its lock
    session stays open: it closes its own links when its lease ends here, and the standby
    takes the tables once the lease has ended in the database, while the owner is still
    frozen; woken, the owner writes nothing for them."""
    monkeypatch.setenv("PODIUM_LEASE_S", "2")
    sims, thread, config = _playing_floor()
    engines = {"svc-a": pg, "svc-b": _same_ledger(pg)}
    cores = {name: _service(eng, config, name) for name, eng in engines.items()}
    commits = Commits(pg)
    try:
        cores["svc-a"].start()
        wait_for(lambda: _serves(pg, cores["svc-a"]), timeout=20, what="svc-a serves")
        cores["svc-b"].start()
        pause = Pause(cores["svc-a"])
        claims_a = cores["svc-a"].claims
        assert claims_a is not None
        played = _events(pg)
        wait_for(lambda: _events(pg) > played + 10, timeout=20, what="the tables play")
        pause.heartbeat.clear()
        pause._held.clear()
        assert pause._held.wait(10)  # its heartbeat is held from here on
        with pg.connect() as c:
            leases: dict[str, Any] = dict(c.execute(text(
                "SELECT substr(name, 7), lease_until FROM ledger_locks "
                "WHERE name LIKE 'table:%' AND holder_service = :s"),
                {"s": claims_a.service_id}).all())
        assert set(leases) == set(TABLES)
        # its own links close when the lease ends here (it is not renewed)
        wait_for(lambda: not cores["svc-a"].served_tables(), timeout=20,
                 what="svc-a closes its links")
        wait_for(lambda: _serves(pg, cores["svc-b"]), timeout=20,
                 what="the standby takes and serves the tables")
        assert not pause.heartbeat.is_set()  # svc-a is still frozen
        commits.watch = True
        claims_b = cores["svc-b"].claims
        assert claims_b is not None
        with pg.connect() as c:
            taken = dict(c.execute(
                select(OwnershipEvent.table_id, func.min(OwnershipEvent.created_at))
                .where(OwnershipEvent.event == "claimed",
                       OwnershipEvent.service_id == claims_b.service_id)
                .group_by(OwnershipEvent.table_id)).all())
            alive = c.scalar(text("SELECT count(*) FROM pg_stat_activity WHERE pid = :p"),
                             {"p": claims_a.db_pid})
        assert alive == 1  # its lock session never ended
        for t in TABLES:
            assert taken[t] >= leases[t]  # taken only after svc-a's lease ended
        pause.resume_heartbeat()
        wait_for(lambda: claims_a.owned == set(), timeout=20, what="svc-a gives the tables up")
        played = _events(pg)
        wait_for(lambda: _events(pg) > played + 10, timeout=20,
                 what="the tables play on under the standby")
        assert _serves(pg, cores["svc-b"])
    finally:
        for core in cores.values():
            core.stop()
        thread.stop()
        engines["svc-b"].dispose()
    assert commits.rows == []
    with pg.connect() as c:
        lost = list(c.execute(select(OwnershipEvent.table_id, OwnershipEvent.detail)
                              .where(OwnershipEvent.event == "lost")))
        refused = list(c.execute(select(RefusedEvent.table_id, RefusedEvent.type,
                                        RefusedEvent.seq, RefusedEvent.reason)))
    assert sorted(t for t, _d in lost) == sorted(TABLES)
    assert all("lease" in d for _t, d in lost)
    assert refused == []


def test_an_event_a_batch_failed_on_is_not_refused_for_a_table_no_longer_held(
        pg: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch the database refused is committed again in halves, down to the event it failed
    on, whose refusal is then kept alone: if the table was taken meanwhile, that refusal is
    fenced too (not kept; NotHeld), and the other tables' events are recorded."""
    from core.tablegames.ingest import refusals

    monkeypatch.setattr(refusals, "screened", lambda origin, event: event)
    floor = _floor(pg)
    floor.start()
    for t in TABLES:
        floor.set_link(t, True)
    floor.writer.start()
    asked: list[str] = []

    def fence(conn: Connection, tables: Any) -> set[str]:
        # PG-4 is held until its event's batch failed and the event is to be refused alone
        # (the writer's keep()): taken by another service in between
        asked.append(sys._getframe(1).f_code.co_name)
        return {"PG-4"} & set(tables) if asked[-1] == "keep" else set()

    floor.writer.fence = fence
    gate = held_writer(floor)
    good = floor.writer.submit_event(Origin("PG-1", "b", 1), GameStarted(1, {1: 100}))
    bad = floor.writer.submit_event(Origin("PG-4", "b", 1, "\ud800"), GameStarted(1, {1: 100}))
    gate.set()
    assert good.result(10) is True
    with pytest.raises(NotHeld):
        bad.result(10)
    assert "keep" in asked and floor.writer.stats.refused_alone == 0
    with pg.connect() as c:
        assert c.scalar(select(func.count()).select_from(RefusedEvent)) == 0
        assert c.scalar(select(func.count()).select_from(ControllerEvent)) == 1
    floor.writer.stop()
