"""``podium audit verify`` covers state (issue 23, finding 5): a state row's whole content is
chained at its insert and after every UPDATE through Podium, the card key's fingerprint is a
record, the hourly totals are recomputed hour by hour, and SQLite's ``quick_check`` runs.

Every edit here is made as an attacker with the writer's login would make it: on PostgreSQL a
plain connection in the ``podium_writer`` role (which may UPDATE state columns and derived
tables, and empty the journal); on SQLite the ``sqlite3`` module, outside Podium."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from core.controllers.events import GameEnded, GameStarted, HitClaimed, Misdealt, Origin, Undone
from core.ledger import chain, guards
from core.ledger.audit import verify
from core.ledger.audit_report import Report
from core.ledger.models import Hit, Round
from core.people.auth import CARD_KEY_ID, recorded_card_key
from core.tablegames.floor import Floor
from tests import accounting_ledger
from tests.core.ledger.test_audit import Exec, attacker, played
from tests.core.tablegames.test_floor import EXE, HANDS, Table, hit_ids, staffed_floor, swipe


def writer_login(engine: Engine) -> AbstractContextManager[Exec]:
    """A plain connection with the writer's rights, autocommit, no chain hook: PostgreSQL in
    the ``podium_writer`` role; SQLite through the ``sqlite3`` module (whoever can write the
    file)."""
    return attacker(engine, guards.WRITER_ROLE)


def state_update(engine: Engine, run: Exec, table: str, statement: str) -> None:
    """UPDATE a state table as the attacker can: on SQLite the UPDATE journal's trigger calls
    a function only Podium has, so it is dropped first; on PostgreSQL the writer empties the
    journal in the same transaction (revision 0023 lets only the noting transaction remove a
    journal row: the attacker hides its UPDATE from the journal check as best it can)."""
    if engine.dialect.name == "sqlite":
        with pytest.raises(sqlite3.OperationalError, match="podium_journal"):
            run(statement)  # the bare tool can no longer UPDATE a state table
        run(f"DROP TRIGGER podium_{table}_journal_state")
        run(statement)
    else:
        run(f"BEGIN; {statement}; DELETE FROM ledger_journal; COMMIT")


def lines(report: Report, check: str) -> list[str]:
    return [b.line() for b in report.breaks if b.check == check]


@pytest.fixture(name="ledger")
def ledger_fixture(engine: Engine) -> Floor:
    return played(engine)


def test_a_round_moved_back_from_ended_to_locked_is_caught(ledger: Floor,
                                                           engine: Engine) -> None:
    with Session(engine) as s:
        rnd = s.scalars(select(Round).where(Round.state == "ended")).one()
    with writer_login(engine) as run:
        state_update(engine, run, "rounds",
                     f"UPDATE rounds SET state = 'locked' WHERE id = {rnd.id}")
    report = verify(engine)
    assert not report.ok
    assert f"states: round {rnd.id} of table T1 (round no 1): state is locked, the ledger " \
           "last recorded ended" in " | ".join(lines(report, "states")), report.breaks


def test_a_hits_verified_cards_rewritten_are_caught(ledger: Floor, engine: Engine) -> None:
    with Session(engine) as s:
        hit = s.scalars(select(Hit).where(Hit.status == "paid")).one()
    assert hit.verified_cards
    with writer_login(engine) as run:
        state_update(engine, run, "hits",
                     "UPDATE hits SET verified_cards = 'AS KS QS JS TS 2C 3D' "
                     f"WHERE id = {hit.id}")
    report = verify(engine)
    found = lines(report, "states")
    assert len(found) == 1, report.breaks
    # the old cards are nowhere else to be found back: the break names the hit, its state
    # columns and what they hold now
    assert found[0].startswith(f"states: hit #{hit.id} of table T1: its state (")
    assert "verified_cards) is not what the ledger last recorded: changed outside Podium (now " \
           "status paid, verified_cards 'AS KS QS JS TS 2C 3D')" in found[0]


def test_the_card_key_id_changes_only_through_a_record(ledger: Floor, engine: Engine) -> None:
    with engine.connect() as conn:
        key_id = conn.execute(text("SELECT value FROM settings WHERE key = :k"),
                              {"k": CARD_KEY_ID}).scalar()
        assert key_id is not None and recorded_card_key(conn) == key_id  # noted: recorded
    with writer_login(engine) as run:
        run(f"UPDATE settings SET value = '{'0' * 16}' WHERE key = '{CARD_KEY_ID}'")
    report = verify(engine)
    assert lines(report, "settings") == [
        f"settings: settings.{CARD_KEY_ID} is {'0' * 16}, the ledger last recorded {key_id} "
        "(changed outside Podium: every swipe is refused as the wrong key)"]


@pytest.mark.parametrize("totals", ["table_hour_totals", "level_hour_totals"])
def test_an_hourly_total_moved_to_another_hour_with_the_same_sums_is_caught(
        ledger: Floor, engine: Engine, totals: str) -> None:
    later = ("datetime(hour, '+1 hour')" if engine.dialect.name == "sqlite"
             else "hour + interval '1 hour'")
    with writer_login(engine) as run:
        run(f"UPDATE {totals} SET hour = {later}")
    report = verify(engine)
    assert lines(report, "meters") == []  # every sum is the same ...
    found = lines(report, "hours")  # ... but not hour by hour
    assert found and all("hourly totals of" in line for line in found), report.breaks
    where = "table T1" if totals == "table_hour_totals" else "level LINK/MAIN"
    assert any(line.startswith(f"hours: {where}:") for line in found), found


def test_sqlite_quick_check_runs_and_a_failing_one_is_a_break(ledger: Floor,
                                                              engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("PRAGMA quick_check is SQLite's")
    path = str(engine.url.database)
    engine.dispose()
    conn = sqlite3.connect(path, isolation_level=None)
    create = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'settings'").fetchone()[0]
    loose = create.replace("value TEXT NOT NULL", "value TEXT")
    assert loose != create
    conn.execute("PRAGMA writable_schema = ON")  # the file's own schema edited ...
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'settings'", (loose,))
    conn.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO settings (key, value) VALUES ('x', NULL)")
    conn.execute("PRAGMA writable_schema = ON")  # ... and put back: only the file shows it
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'settings'", (create,))
    conn.close()
    report = verify(engine)
    assert lines(report, "integrity") == ["integrity: SQLite quick_check: NULL value in "
                                          "settings.value"]


def test_a_busy_day_verifies(engine: Engine) -> None:
    """Rounds over many hours, pays by card, an automatic pay, a misdeal, an adjustment and a
    lock at hit (tests/accounting_ledger.py)."""
    accounting_ledger.build(engine)
    report = verify(engine)
    assert report.ok, [b.line() for b in report.breaks]
    assert report.tables["rounds"] > 5


def test_freezes_an_undo_a_misdeal_and_the_writers_batches_verify(engine: Engine) -> None:
    floor = staffed_floor(engine)
    rf = HANDS["RF_ROYAL_MATCH"].split()
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    t1.send(GameStarted(1, {2: 100, 6: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    h2, _h6 = hit_ids(engine)
    floor.freeze(h2)
    t1.send(Undone(1, "HIT", 6))  # the dealer takes seat 6's claim back
    floor.pay(h2, rf, swipe(EXE))
    t1.send(GameEnded(1))
    t2.send(GameStarted(1, {3: 100}))
    t2.send(HitClaimed(1, 3, "RF_ROYAL_MATCH"))
    floor.freeze(max(hit_ids(engine)))
    t2.send(Misdealt(1))  # the frozen hit cancelled, its amount and the wager given back
    floor.writer.start()
    try:
        for n in range(2, 6):  # rounds through the writer: its bulk path ends them in bulk
            for table in (t1, t2):
                for event in (GameStarted(n, {1: 100, 4: 100}), GameEnded(n)):
                    table.seq += 1
                    floor.writer.submit_event(Origin(table.table, table.boot, table.seq),
                                              event).result(timeout=30)
    finally:
        floor.writer.stop()
    report = verify(engine)
    assert report.ok, [b.line() for b in report.breaks]
    with Session(engine) as s:
        assert set(s.scalars(select(Round.state))) >= {"ended", "misdealt"}


def test_state_from_before_the_upgrade_is_vouched_for_from_the_upgrade_on(
        bare_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    import core.people.auth
    from core.ledger.db import upgrade

    upgrade(bare_engine, "0023")  # before 0024 (the models need 0022)
    with monkeypatch.context() as m:  # Podium before 0024 wrote no card key record
        m.setattr(core.people.auth, "record_card_key", lambda *_a, **_k: None)
        played(bare_engine)  # written at 0023: no state chained whole
    with bare_engine.connect() as conn:
        assert recorded_card_key(conn) is None
    upgrade(bare_engine)  # 0024 chains every state row as it is, and records the key id
    report = verify(bare_engine)
    assert report.ok, [b.line() for b in report.breaks]
    with bare_engine.connect() as conn:
        assert recorded_card_key(conn) == conn.execute(text(
            "SELECT value FROM settings WHERE key = :k"), {"k": CARD_KEY_ID}).scalar()
        assert conn.execute(text("SELECT count(*) FROM ledger_chain WHERE states IS NOT NULL")
                            ).scalar() >= len(chain.STATE)
    with Session(bare_engine) as s:
        rnd = s.scalars(select(Round).where(Round.state == "ended")).one()
    with writer_login(bare_engine) as run:
        state_update(bare_engine, run, "rounds",
                     f"UPDATE rounds SET state = 'misdealt' WHERE id = {rnd.id}")
    assert any("state is misdealt, the ledger last recorded ended" in line
               for line in lines(verify(bare_engine), "states"))
