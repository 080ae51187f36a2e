"""One floor, many podiums (issue 14), in one process: table claims (PostgreSQL advisory locks),
the live feed between processes (LISTEN / NOTIFY), and a floor service with a console that is a
client of it.  tests/core/app/test_multi_podium.py runs the same with real processes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, func, select, text

from core.app.console import ConsoleCore
from core.app.demo import demo_credential, swipe_of
from core.controllers.ownership import ClaimError, TableClaims
from core.controllers.services import services, table_services
from core.floorconfig import load_demo_floor
from core.ledger.db import make_engine
from core.ledger.models import OwnershipEvent
from core.tablegames import changes
from core.tablegames.feed import MAX_PAYLOAD, FeedListener, Notice, _chunks
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from core.tablegames.views import FloorChange, HitOutcome
from printing.escpos.slip import PAPER
from tests.conftest import PG_URL
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness, wait_for
from tests.ledgers import migrate

pytestmark = pytest.mark.postgres
ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]


@pytest.fixture
def pg(pg_engine_factory: object) -> Iterator[Engine]:
    eng: Engine = pg_engine_factory()  # type: ignore[operator]
    migrate(eng)
    yield eng


def _same_ledger(engine: Engine) -> Engine:
    """A second engine on the same schema: another process's view of the ledger."""
    with engine.connect() as conn:
        schema = conn.execute(text("SELECT current_schema()")).scalar()
    return make_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"})


def _floor(engine: Engine) -> Floor:
    return Floor(engine, load_demo_floor(), load_paytables(), paper=PAPER)


def test_a_second_service_is_refused_naming_the_owner_and_a_standby_takes_over(
        pg: Engine) -> None:
    a = _floor(pg)
    a.start(())
    tables = [t.id for t in a.config.tables]
    claims_a = TableClaims(a, "pit-a", "serve")
    claims_a.open()
    taken, refused = claims_a.claim(tables)
    assert sorted(taken) == sorted(tables) and refused == {}

    other = _same_ledger(pg)
    try:
        b = _floor(other)
        claims_b = TableClaims(b, "standby", "serve")
        claims_b.open()
        taken_b, refused_b = claims_b.claim(tables)
        assert taken_b == []
        assert set(refused_b) == set(tables)
        why = refused_b[tables[0]]
        assert f"served by pit-a (service #{claims_a.service_id}" in why
        # asking again is refused again, and recorded once
        assert claims_b.claim(tables)[0] == []

        shown = table_services(b)
        assert shown[tables[0]].up and shown[tables[0]].service == "pit-a"

        # pit-a dies: its lock connection goes with it, and PostgreSQL frees its tables
        claims_a._conn.close()
        wait_for(lambda: claims_b.claim(tables)[0] or claims_b.owned == set(tables),
                 what="the standby takes the tables")
        assert claims_b.owned == set(tables)
        shown = table_services(b)
        assert shown[tables[0]].service == "standby" and shown[tables[0]].up
        dead = next(s for s in services(b) if s.name == "pit-a")
        assert not dead.up  # its backend is gone

        with pg.connect() as conn:
            rows = conn.execute(select(OwnershipEvent.table_id, OwnershipEvent.event,
                                       OwnershipEvent.service_id)
                                .where(OwnershipEvent.table_id == tables[0])
                                .order_by(OwnershipEvent.id)).all()
        assert [(e, sid) for _t, e, sid in rows] == [
            ("claimed", claims_a.service_id), ("refused", claims_b.service_id),
            ("claimed", claims_b.service_id)]
        claims_b.close()
        assert claims_b.owned == set()
        stopped = [s for s in services(b, include_stopped=True) if s.name == "standby"]
        assert stopped[0].stopped_at is not None and not stopped[0].up
    finally:
        other.dispose()


def test_the_feed_carries_a_commit_to_another_process_and_not_a_rollback(pg: Engine) -> None:
    a = _floor(pg)
    a.start(())
    other = _same_ledger(pg)
    try:
        b = _floor(other)
        seen: list[FloorChange] = []
        got = threading.Event()

        def hear(change: FloorChange) -> None:
            seen.append(change)
            got.set()

        b.add_listener(hear)
        listener = FeedListener(b.ctx)
        listener.start()
        assert listener.connected.is_set()
        table = a.config.tables[0].id

        # a rolled-back transaction is never heard
        with pytest.raises(RuntimeError), changes.unit(a.ctx, "link") as u:
            from core.tablegames import setup

            setup.set_link(u, table, True)
            raise RuntimeError("rolled back")
        a.set_link(table, True)
        assert got.wait(10)
        (change,) = seen
        assert change.remote and change.origin == a.ctx.origin
        assert change.tables == {table}
        (view,) = change.table_views
        assert view.id == table and view.online
        # B's own commit is announced once, by B itself, not again by the feed
        seen.clear()
        got.clear()
        b.set_link(table, False)
        assert [c.remote for c in seen] == [False]
        assert not got.wait(1.0) or [c.remote for c in seen] == [False]
        listener.stop()
    finally:
        other.dispose()


def test_a_big_change_is_split_into_notifications_that_each_fit() -> None:
    notice = Notice("host:1:abc", "event", [f"T{i:04d}" for i in range(2000)],
                    [("WA01", "MAIN")], list(range(900)),
                    [HitOutcome(i, f"T{i:04d}", 1, 2, "auto_paid", 500) for i in range(300)],
                    list(range(100)), [], 2500, "2026-12-03T10:00:00+00:00", 1.0)
    parts = [Notice.decode(p) for p in _chunks(notice)]
    assert len(parts) > 1
    assert all(len(p.encode()) and len(_encoded(p)) <= MAX_PAYLOAD for p in parts)
    assert sorted(t for p in parts for t in p.tables) == sorted(notice.tables)
    assert sorted(h for p in parts for h in p.hits) == sorted(notice.hits)
    assert sorted(o.hit_id for p in parts for o in p.outcomes) == list(range(300))
    assert sum(p.events for p in parts) == 2500
    with pytest.raises(ValueError, match="not understood"):
        Notice.decode('{"o": "x"}')


def _encoded(n: Notice) -> bytes:
    import json

    return json.dumps(n.encode(), separators=(",", ":")).encode()


def test_a_console_without_links_pays_and_the_service_tells_the_table(pg: Engine) -> None:
    """The service owns the link; the console is a client of the ledger: it sees the hit
    through the feed, pays it as a ledger transaction, and the service carries the PAY to
    the table."""
    with FakePrinter() as printer:
        h = FloorHarness(pg, printer.port, tables=("PG-1",))
        h.console.kind = "serve"
        h.start()
        other = _same_ledger(pg)
        client = ConsoleCore(other, h.config, h.paytables, serve=(), paper=PAPER)
        changes: list[FloorChange] = []
        client.add_listener(changes.append)
        try:
            client.start()
            assert client.served_tables() == frozenset()
            sim = h.sims["PG-1"]
            h.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
            hit = wait_for(lambda: next((p for c in list(changes) for p in c.pending), None),
                           what="the hit heard by the client console")
            assert hit.table == "PG-1" and hit.seat == 3
            paid = client.floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                                    verifier=swipe_of("1001"))
            wait_for(lambda: sim.decisions, what="the PAY at the table")
            assert list(sim.decisions.values()) == ["paid"]
            # the service heard the pay too (its own screen would show the hit closed)
            assert client.floor.awaited_decisions("PG-1")[0].amount_cents == paid.amount_cents
            shown = table_services(client.floor)
            assert shown["PG-1"].up and shown["PG-1"].service == h.console.name
        finally:
            client.stop()
            other.dispose()
            h.stop()


def test_serve_refuses_sqlite_and_an_unknown_pit_naming_what_is_wrong(
        tmp_path: object, capsys: pytest.CaptureFixture[str], pg: Engine) -> None:
    from core.cli.dispatch import main

    with pg.connect() as conn:  # the test's own schema, never the shared database's public
        schema = conn.execute(text("SELECT current_schema()")).scalar()
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    rc = main(["serve", "--floor", "demo", "--db", f"sqlite:///{tmp_path}/l.sqlite3"])
    err = capsys.readouterr().err
    assert rc == 2 and "PostgreSQL" in err and "podium console serves its tables" in err
    rc = main(["serve", "--floor", "demo", "--db", url, "--pit", "Z"])
    err = capsys.readouterr().err
    assert rc == 2 and "no pit 'Z'" in err and "pits: A, B" in err
    rc = main(["serve", "--floor", "demo", "--db", url, "--tables", "PG-1,XX-9"])
    err = capsys.readouterr().err
    assert rc == 2 and "XX-9" in err and "not tables of this floor" in err
    assert "Traceback" not in err


def test_the_health_endpoint_answers_503_naming_the_problem() -> None:
    import json
    import urllib.error
    import urllib.request

    from core.cli.serve_command import _health_server

    class Core:
        state = {"writer": {"running": True, "batches": 3, "jobs": 9, "largest_batch": 4},
                 "lock_connection": True, "feed_listening": True, "tables_served": 2}

        def health(self) -> dict[str, object]:
            return dict(self.state)

    core = Core()
    server = _health_server("127.0.0.1:0", core)
    url = f"http://127.0.0.1:{server.server_address[1]}/health"
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            assert r.status == 200 and json.loads(r.read())["healthy"] is True
        core.state = {**core.state, "lock_connection": False}
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url, timeout=5)
        assert err.value.code == 503
        body = json.loads(err.value.read())
        assert body["healthy"] is False and "lock connection" in body["problem"]
    finally:
        server.shutdown()


def test_a_client_console_checks_its_floor_file_and_writes_no_configuration(
        pg: Engine) -> None:
    from dataclasses import replace

    from core.ledger.models import ParameterChange

    service = _floor(pg)
    service.start(())
    with pg.connect() as c:
        before = c.execute(select(func.count()).select_from(ParameterChange)).scalar()
    other = _same_ledger(pg)
    try:
        config = load_demo_floor()
        changed = replace(config, tables=tuple(
            replace(t, seats=5) if t.id == "PG-2" else t for t in config.tables))
        client = Floor(other, changed, load_paytables(), paper=PAPER)
        notes = client.join()
        assert any("FLOOR FILE DIFFERS" in n and "table PG-2 seats: the ledger has 6, this "
                   "file 5" in n for n in notes), notes
        # the same file: silent
        assert Floor(other, config, load_paytables(), paper=PAPER).join() == []
    finally:
        other.dispose()
    with pg.connect() as c:
        assert c.execute(select(func.count()).select_from(ParameterChange)).scalar() == before


def test_a_lock_connection_ended_by_the_server_gives_every_table_up_at_once(
        pg: Engine) -> None:
    """The server ends the service's lock session (a failover, pg_terminate_backend): its
    tables are free there at once, so the service must give up every one of them, not only
    the ones it was asking about, and ask for them again."""
    a = _floor(pg)
    a.start(())
    tables = [t.id for t in a.config.tables]
    claims = TableClaims(a, "pit-a", "serve", grace_s=0.0)
    claims.open()
    assert sorted(claims.claim(tables)[0]) == sorted(tables)
    assert claims.linkable() == set(tables)
    with pg.connect() as c:
        c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": claims.db_pid})
        c.commit()
    assert claims.beat() is False
    assert claims.owned == set() and claims.linkable() == set() and not claims.connected
    claims.open()
    taken, _refused = claims.claim(tables)
    assert sorted(taken) == sorted(tables)
    with pg.connect() as c:
        events = [e for (e,) in c.execute(select(OwnershipEvent.event)
                                          .where(OwnershipEvent.table_id == tables[0])
                                          .order_by(OwnershipEvent.id))]
    assert events == ["claimed", "lost", "claimed"]
    claims.close()


def test_a_table_taken_from_a_service_that_died_is_linked_after_the_grace(
        pg: Engine) -> None:
    """A standby that takes a table from a service that did not stop cleanly waits the grace
    before linking it (the other may still be linked until its own heartbeat fails); a table
    released cleanly is linked at once."""
    a = _floor(pg)
    a.start(())
    tables = ["PG-1", "PG-2"]
    # a long lease: the grace (never longer than what is left of the first's lease) is whole
    first = TableClaims(a, "first", "serve", lease=60)
    first.open()
    assert sorted(first.claim(tables)[0]) == tables
    assert first.linkable() == set(tables)  # never served before: no one to wait for
    first.release(["PG-2"])  # a clean hand-over of PG-2
    other = _same_ledger(pg)
    try:
        # a long lease here too: nothing renews it in this test, and a loaded machine must
        # not see PG-2's lease run out before PG-1's grace ends (only the grace is tested)
        standby = TableClaims(_floor(other), "standby", "serve", grace_s=1.5, lease=60)
        standby.open()
        before = time.monotonic()
        first._conn.close()  # the first dies holding PG-1

        def holds_both() -> bool:
            # each round may take one table (PG-2 at once, PG-1 when the server has ended the
            # first's session; until then a round may find PG-1's claim locked: asked again)
            try:
                standby.claim(tables)
            except ClaimError:
                return False
            return standby.owned == set(tables)

        wait_for(holds_both, timeout=30, what="the standby takes both tables")
        assert "PG-2" in standby.linkable()  # released cleanly: at once
        at = standby.next_link_at()  # PG-1: the grace after it was taken
        assert at is not None and at >= before + 1.5
        # PG-1 is linkable exactly when its grace has ended, never before
        assert "PG-1" not in standby.linkable() or time.monotonic() >= at
        wait_for(lambda: standby.linkable() == set(tables), timeout=30,
                 what="PG-1 linked after the grace")
        assert time.monotonic() >= at
        standby.close()
    finally:
        other.dispose()
