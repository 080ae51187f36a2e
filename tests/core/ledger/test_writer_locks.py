"""Locks no reader can hold, and a seal foreign journal rows can not break (issue 23,
findings 2 and 3; docs/ledger.md "Writers' locks" and "Journal incidents")."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from core.controllers.ownership import TableClaims
from core.ledger import guards, integrity
from core.ledger.audit import verify
from core.ledger.db import make_engine, upgrade
from tests.conftest import PG_URL
from tests.core.ledger.test_audit import played


def _schema(engine: Engine) -> str:
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT current_schema()")).scalar())


def _as(engine: Engine, role: str, *extra: str) -> Engine:
    """An engine on ``engine``'s schema working as ``role`` (what a login in it may do)."""
    options = " ".join((f"-csearch_path={_schema(engine)}", f"-crole={role}", *extra))
    return make_engine(PG_URL, connect_args={"options": options})


_SWIPE = ("INSERT INTO swipe_log (outcome, action, created_at) "
          "VALUES ('refused', 'test', CURRENT_TIMESTAMP)")

# every lock a Podium writer takes or took, as a reader would try to hold it
_ADVISORY = (
    f"SELECT pg_advisory_lock({integrity.CHAIN_LOCK_KEY})",  # the seal's key until 0022
    "SELECT pg_advisory_lock(hashtext('podium-table:' || current_schema()), hashtext(t)) "
    "FROM unnest(ARRAY['T1', 'T2', 'L1', 'L2']) t",  # every table's claim until 0022
    "SELECT pg_advisory_lock(hashtext('podium-migrate:' || current_schema()))",
    "SELECT pg_advisory_lock(hashtext('bbj_funds:' || f)) FROM unnest(ARRAY['1', 'bbj']) f",
)
_ROW_LOCKS = (
    "SELECT * FROM ledger_locks FOR UPDATE",
    "SELECT * FROM ledger_locks FOR NO KEY UPDATE",
    "SELECT * FROM ledger_locks FOR SHARE",
    "SELECT * FROM ledger_locks FOR KEY SHARE",
    "LOCK TABLE ledger_locks IN ACCESS SHARE MODE",
    "LOCK TABLE ledger_locks IN ROW SHARE MODE",
    "LOCK TABLE ledger_locks IN EXCLUSIVE MODE",
    "LOCK TABLE ledger_locks IN ACCESS EXCLUSIVE MODE",
    "UPDATE ledger_locks SET holder_pid = 1",
)


@contextlib.contextmanager
def _reader_holding_everything(engine: Engine) -> Iterator[list[str]]:
    """A podium_reader session (READ ONLY, then READ WRITE) holding every lock it can get;
    yields what it could not take, with why."""
    reader = create_engine(PG_URL, connect_args={"options": (
        f"-csearch_path={_schema(engine)} -crole={guards.READER_ROLE} "
        "-cdefault_transaction_read_only=on")})
    held = reader.connect()
    refused: list[str] = []
    try:
        held.execute(text("COMMIT"))  # the advisory locks are the session's
        for sql in _ADVISORY:
            held.execute(text(sql)).all()
        held.execute(text("COMMIT"))
        held.execute(text("BEGIN READ WRITE"))
        for sql in _ROW_LOCKS:
            held.execute(text("SAVEPOINT try"))
            try:
                held.execute(text(sql))
            except DBAPIError as exc:
                refused.append(f"{sql}: {str(exc.orig).splitlines()[0]}")
                held.execute(text("ROLLBACK TO SAVEPOINT try"))
        yield refused  # still in its transaction: every lock it got is held
    finally:
        held.close()
        reader.dispose()


def test_a_reader_holding_every_lock_it_can_take_stops_no_writer(engine: Engine) -> None:
    """Finding 2: a podium_reader login takes every advisory key Podium used (the seal's, every
    table's claim, the migration's, the fund's) and tries every row and table lock on the
    writers' lock table; a writer then seals transactions, records a fund, claims every table
    and starts up (upgrade), none of it waiting for the reader."""
    if engine.dialect.name != "postgresql":
        pytest.skip("roles and locks are PostgreSQL's")
    from tests.core.pokerroom import test_bbj_fund as tbf

    # the writer gives up after 5 s where it would wait (main: forever)
    writer = _as(engine, guards.WRITER_ROLE, "-clock_timeout=5s")
    try:
        with _reader_holding_everything(engine) as refused:
            upgrade(writer)  # a podium starting: the ledger is at head, nothing to wait for
            floor = played(writer)  # START GAME, hits, pays, slips: every commit sealed
            tbf.funded(writer)  # the fund's record lock
            claims = TableClaims(floor, "pit-w", "serve")
            try:
                claims.open()
                taken, refused_tables = claims.claim([t.id for t in floor.config.tables])
                assert refused_tables == {}
                assert sorted(taken) == sorted(t.id for t in floor.config.tables)
            finally:
                claims.close()
            # and it could take none of the writers' row locks, nor lock their table
            assert [r.split(":")[0] for r in refused] == list(_ROW_LOCKS)
            assert all("permission denied" in r for r in refused), refused
        assert verify(engine).ok
    finally:
        writer.dispose()


def test_a_writer_waiting_for_the_chain_gives_up_naming_the_holder(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock a writer may legitimately hold (the seal's): a second writer waits at most
    PODIUM_LOCK_TIMEOUT, then fails with one line naming the holding session (pid, login,
    application), not a hang; once the holder is done it commits."""
    if engine.dialect.name != "postgresql":
        pytest.skip("locks are PostgreSQL's")
    from core.ledger.locks import LockTimeout

    monkeypatch.setenv("PODIUM_LOCK_TIMEOUT", "0.5")
    holder = _as(engine, guards.WRITER_ROLE, "-capplication_name=pit-b-console")
    writer = _as(engine, guards.WRITER_ROLE)
    try:
        with holder.connect() as hold:
            hold.execute(text("SELECT 1 FROM ledger_locks WHERE name = 'chain' FOR UPDATE"))
            pid = hold.execute(text("SELECT pg_backend_pid()")).scalar()
            with pytest.raises(LockTimeout) as caught, writer.begin() as conn:
                conn.execute(text(_SWIPE))  # a chained row: its commit is sealed
            line = str(caught.value)
            assert "\n" not in line
            assert f"backend pid {pid}" in line and "pit-b-console" in line
            assert "PODIUM_LOCK_TIMEOUT" in line
            hold.rollback()
        played(writer)
        assert verify(engine).ok
    finally:
        holder.dispose()
        writer.dispose()


def test_a_second_service_waiting_for_a_table_lock_row_is_told_who_holds_it(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("table claims are PostgreSQL's")
    from core.controllers.ownership import ClaimError

    floor = played(engine)
    table = floor.config.tables[0].id
    monkeypatch.setenv("PODIUM_LOCK_TIMEOUT", "0.5")
    holder = _as(engine, guards.WRITER_ROLE, "-capplication_name=stuck-writer")
    try:
        with holder.connect() as hold:
            hold.execute(text("INSERT INTO ledger_locks (name) VALUES (:n) ON CONFLICT DO "
                              "NOTHING"), {"n": f"table:{table}"})
            hold.commit()  # the table's lock row exists (it was claimed once) ...
            hold.execute(text("SELECT 1 FROM ledger_locks WHERE name = :n FOR UPDATE"),
                         {"n": f"table:{table}"})
            # ... and a writer's transaction holds it
            claims = TableClaims(floor, "pit-a", "serve")
            try:
                claims.open()
                with pytest.raises(ClaimError, match="stuck-writer"):
                    claims.claim([table])
                assert claims.connected  # the lock connection stays
                hold.rollback()
                assert claims.claim([table])[0] == [table]
            finally:
                claims.close()
    finally:
        holder.dispose()


# ------------------------------------------------------------------ finding 3: the journal

_FOREIGN = (("no_such_table", "1"), ("awards", "999999999"), ("awards", "1..99999999999"),
            ("awards", "x'; DROP TABLE awards; --"))


def test_a_writer_can_not_plant_journal_rows_for_other_transactions(engine: Engine) -> None:
    """Finding 3 on PostgreSQL: a writer login inserting journal rows (an unknown table, a key
    that is no row, another transaction's xid) is refused; it can not edit or remove another
    transaction's; the floor goes on sealing."""
    if engine.dialect.name != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    played(engine)
    writer = _as(engine, guards.WRITER_ROLE)
    try:
        with writer.connect() as conn:
            tx = conn.execute(text("SELECT txid_current()")).scalar()
            conn.rollback()
        for tbl, key in _FOREIGN:
            for xid in (f"{tx} + 3", "txid_current()"):
                with pytest.raises(DBAPIError, match="only a ledger table's journal trigger"), \
                        writer.begin() as conn:
                    conn.execute(text(f"INSERT INTO ledger_journal (tbl, row_key, tx) "
                                      f"VALUES (:t, :k, {xid})"), {"t": tbl, "k": key})
        with pytest.raises(DBAPIError, match="permission denied"), writer.begin() as conn:
            conn.execute(text("UPDATE ledger_journal SET tx = tx + 1"))
        with writer.begin() as conn:
            conn.execute(text(_SWIPE))  # sealed
        assert verify(engine).ok
    finally:
        writer.dispose()


def test_foreign_journal_rows_are_set_aside_and_audit_names_them(engine: Engine) -> None:
    """Finding 3, both databases: journal rows no Podium trigger wrote (3,000 of an unknown
    table, a key that is no row, a run of ten billion keys, a key that is no key) never stop a
    writer's commit: the seal sets them aside as incidents and ``audit verify`` names them.
    On PostgreSQL they are planted as the database owner (the writer is refused, above), on
    SQLite with a raw connection that defines podium_journal() itself (the sqlite3 shell,
    which can not, is refused)."""
    played(engine)
    pg = engine.dialect.name == "postgresql"
    planted = [("no_such_table", str(i)) for i in range(3000)] + list(_FOREIGN[1:])
    if pg:
        # planted by the database owner (its guard off) for a writer's transaction under way
        with engine.connect() as victim:
            tx = victim.execute(text("SELECT txid_current()")).scalar()
            with engine.begin() as owner:
                owner.execute(text("ALTER TABLE ledger_journal DISABLE TRIGGER USER"))
                owner.execute(text("INSERT INTO ledger_journal (tbl, row_key, tx) VALUES "
                                   "(:t, :k, :x)"), [{"t": t, "k": k, "x": tx}
                                                      for t, k in planted])
                owner.execute(text("ALTER TABLE ledger_journal ENABLE TRIGGER USER"))
            victim.execute(text(_SWIPE))
            victim.commit()  # sealed: its own row chained, the planted ones set aside
    else:
        path = engine.url.database
        assert path is not None
        raw = sqlite3.connect(path)
        try:
            raw.create_function("podium_journal", 0, lambda: 1)
            raw.executemany("INSERT INTO ledger_journal (tbl, row_key) VALUES (?, ?)", planted)
            raw.commit()
        finally:
            raw.close()
    with engine.begin() as conn:  # the floor goes on: its next transaction commits, sealed
        conn.execute(text(_SWIPE))
    with engine.connect() as conn:
        aside = conn.execute(text("SELECT count(*) FROM ledger_journal_incidents")).scalar()
        left = conn.execute(text("SELECT count(*) FROM ledger_journal")).scalar()
    assert aside == len(planted) and left == 0
    report = verify(engine)
    incidents = [b.line() for b in report.breaks if b.check == "incidents"]
    assert incidents and "no_such_table" in incidents[0]
    assert any("more journal incident" in line for line in incidents)
    assert [b for b in report.breaks if b.check != "incidents"] == []
    if not pg:  # the sqlite3 shell has no podium_journal(): it can not plant one
        shell = sqlite3.connect(engine.url.database or "")
        try:
            with pytest.raises(sqlite3.OperationalError, match="no such function"):
                shell.execute("INSERT INTO ledger_journal (tbl, row_key) VALUES ('x', '1')")
        finally:
            shell.close()


def test_two_writers_folding_into_one_level_keep_its_last_entry(engine: Engine) -> None:
    """Two transactions add entries to one level (a service's contributions, a console's pay):
    A inserts its entry first, B locks the balance, inserts a later entry and folds; A's fold
    waits for B's lock and runs after B commits.  The kept balance still names the level's
    last entry (B's), whatever A's statement could see when it began: the audit's balance
    check finds nothing (it named "last 37" against 38 in a two-podium run)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("row locks between writers are PostgreSQL's")
    import threading
    from datetime import UTC, datetime

    from core.ledger.balance_checks import check_balances
    from core.tablegames.meters import balances

    played(engine)
    with engine.connect() as c:
        lid = int(c.execute(text("SELECT level_id FROM meter_entries LIMIT 1")).scalar_one())
    now = datetime.now(UTC)

    def add(conn: object) -> None:
        row = balances.entry("contribution", 1, 0, "test", now)
        conn.execute(balances._ENTRIES.insert(), [{**row, "level_id": lid}])  # type: ignore[attr-defined]

    def fold(conn: object) -> None:  # as balances.flush: the balance, then the hour's totals
        conn.execute(balances._FOLD, [{"lid": lid, "dm": 1, "dr": 0, "n": 1, "now": now}])  # type: ignore[attr-defined]
        conn.execute(balances._UPSERT_HOUR, [{  # type: ignore[attr-defined]
            "level_id": lid, "hour": now.replace(minute=0, second=0, microsecond=0),
            "kind": "contribution", "entries": 1, "meter_units": 1, "reserve_units": 0}])

    a, b = engine.connect(), engine.connect()
    try:
        ta = a.begin()
        add(a)  # A's entry: the earlier id
        pid_a = a.execute(text("SELECT pg_backend_pid()")).scalar_one()
        tb = b.begin()
        b.execute(text("SELECT 1 FROM level_balances WHERE level_id = :l FOR UPDATE"), {"l": lid})
        add(b)  # B's entry: the later id
        fold(b)
        failures: list[BaseException] = []

        def fold_a() -> None:
            try:
                fold(a)
                ta.commit()
            except BaseException as exc:  # re-raised by the test below
                failures.append(exc)

        thread = threading.Thread(target=fold_a)
        thread.start()
        with engine.connect() as watch:  # A's fold waits for B's row lock
            waiting = text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :p")
            for _ in range(500):
                if watch.execute(waiting, {"p": pid_a}).scalar() == "Lock":
                    break
                watch.rollback()
                threading.Event().wait(0.02)
            else:
                raise AssertionError("A's fold never waited for B's lock")
        tb.commit()
        thread.join(30)
        assert not thread.is_alive()
        assert not failures, failures
    finally:
        a.close()
        b.close()
    assert check_balances(engine) == []
