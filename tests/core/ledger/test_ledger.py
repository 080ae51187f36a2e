"""The ledger schema, engines and migrations (core/ledger/)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, select, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from core.ledger.db import alembic_config, default_url, make_engine, upgrade
from core.ledger.models import Base, ControllerEvent, GameTable, Group, RefusedEvent, Setting

BBJ_TABLES = ("bbj_funds", "bbj_drop_counts", "bbj_postings", "bbj_entries", "bbj_awards",
              "bbj_award_shares", "bbj_cessations")


def test_migrations_match_the_models_exactly(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_migration_creates_every_table_and_downgrades_to_nothing(bare_engine: Engine) -> None:
    upgrade(bare_engine)
    names = set(inspect(bare_engine).get_table_names())
    assert set(Base.metadata.tables) <= names
    cfg = alembic_config()
    with bare_engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert set(inspect(bare_engine).get_table_names()) <= {"alembic_version"}


def test_upgrade_twice_is_harmless(engine: Engine) -> None:
    upgrade(engine)
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head == "0026_i27_limits"
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head


def test_sqlite_engine_is_durable_wal_full_sync_foreign_keys(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 'l.db'}")
    with eng.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    eng.dispose()


def test_sqlite_write_transaction_takes_the_lock_at_begin(tmp_path: Path) -> None:
    """BEGIN IMMEDIATE: while one transaction is open, a second can not even begin."""
    url = f"sqlite:///{tmp_path / 'l.db'}"
    first = make_engine(url)
    upgrade(first)
    second = make_engine(url, connect_args={"timeout": 0})
    with first.begin() as conn:
        conn.execute(text("SELECT 1"))  # nothing written yet, but the lock is held
        with pytest.raises(OperationalError, match="locked"), second.begin() as c2:
            c2.execute(text("SELECT 1"))
    with second.begin() as c2:  # free again
        c2.execute(text("SELECT 1"))
    first.dispose()
    second.dispose()


def test_sqlite_transaction_rolls_back_ddl_and_data(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 'l.db'}")
    with pytest.raises(RuntimeError), eng.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE scratch (x INTEGER)")
        raise RuntimeError("abort")
    assert "scratch" not in inspect(eng).get_table_names()
    eng.dispose()


def test_sqlite_foreign_keys_are_enforced(engine: Engine) -> None:
    now = datetime.now(UTC)
    with pytest.raises(IntegrityError), Session(engine) as s, s.begin():
        s.add(GameTable(id="T1", name="T1", group_id="NOPE", seats=6, online=False,
                        created_at=now))


def test_controller_event_origin_is_stored_once(engine: Engine) -> None:
    now = datetime.now(UTC)
    with Session(engine) as s, s.begin():
        s.add(Group(id="G", name="G", paytable_id="X", lock_at_hit=False,
                    payment_order="right_first", created_at=now))
        s.flush()
        s.add(GameTable(id="T1", name="T1", group_id="G", seats=6, online=True, created_at=now))
        s.flush()
        s.add(ControllerEvent(table_id="T1", boot="b1", seq=1, type="GameEnded",
                              payload={"round_no": 1}, controller_time="", received_at=now))
    with pytest.raises(IntegrityError), Session(engine) as s, s.begin():
        s.add(ControllerEvent(table_id="T1", boot="b1", seq=1, type="GameEnded",
                              payload={"round_no": 2}, controller_time="", received_at=now))
    with Session(engine) as s:
        rows = list(s.scalars(select(ControllerEvent)))
        assert [(r.seq, r.payload) for r in rows] == [(1, {"round_no": 1})]
        assert rows[0].received_at.tzinfo is not None
        assert rows[0].received_at == now.replace(microsecond=now.microsecond)


def test_naive_times_are_refused(engine: Engine) -> None:
    with pytest.raises(Exception, match="naive"), Session(engine) as s, s.begin():
        s.add(Group(id="G", name="G", paytable_id="X", lock_at_hit=False,
                    payment_order="right_first", created_at=datetime(2025, 1, 1)))
        s.flush()


def test_default_url_is_sqlite_in_the_user_data_folder(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(tmp_path / name))
    url = default_url()
    assert url == f"sqlite:///{tmp_path / 'podium' / 'ledger.sqlite3'}"
    assert (tmp_path / "podium").is_dir()


def test_make_engine_refuses_other_databases() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        make_engine("mysql://x@localhost/db")
    with pytest.raises(ValueError, match="psycopg"):
        make_engine("postgresql+psycopg2://x@localhost/db")


def test_settings_table_holds_text_values(engine: Engine) -> None:
    with Session(engine) as s, s.begin():
        s.add(Setting(key="k", value="v"))
    with Session(engine) as s:
        assert s.get(Setting, "k") is not None


def test_a_0001_ledger_upgrades_to_the_head_keeping_its_rows(bare_engine: Engine) -> None:
    """A ledger at 0001 upgrades: 0002 adds refused_events, 0003 employee_events, 0004
    machine_checks, 0005 the bbj_* tables, 0006 bbj_cases and bbj_case_events."""
    upgrade(bare_engine, "0001")
    assert "refused_events" not in inspect(bare_engine).get_table_names()
    with Session(bare_engine) as s, s.begin():
        s.add(Setting(key="install_salt", value="ab"))
    upgrade(bare_engine)
    assert {"refused_events", "employee_events", "machine_checks", *BBJ_TABLES,
            "bbj_cases", "bbj_case_events"} <= set(
        inspect(bare_engine).get_table_names())
    with Session(bare_engine) as s:
        assert s.get(Setting, "install_salt").value == "ab"  # type: ignore[union-attr]
    with bare_engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    cfg = alembic_config()
    with bare_engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
    names = set(inspect(bare_engine).get_table_names())
    assert "refused_events" not in names and "controller_events" in names
    assert "employee_events" not in names and "machine_checks" not in names
    assert not names & set(BBJ_TABLES)


def test_refused_event_origin_is_stored_once(engine: Engine) -> None:
    now = datetime.now(UTC)
    row = {"table_id": "T-unknown", "boot": "b1", "seq": 5, "type": "GameStarted",
           "payload": {"round_no": 1, "wagers": {"1": 100}}, "controller_time": "",
           "reason": "table T-unknown: not configured", "received_at": now}
    with Session(engine) as s, s.begin():  # no foreign key: an unconfigured table is kept too
        s.add(RefusedEvent(**row))
    with pytest.raises(IntegrityError), Session(engine) as s, s.begin():
        s.add(RefusedEvent(**(row | {"reason": "again"})))
    with Session(engine) as s:
        (kept,) = s.scalars(select(RefusedEvent))
        assert (kept.reason, kept.payload) == (row["reason"], row["payload"])
        assert kept.received_at.tzinfo is not None


def test_0007_links_awards_already_approved_from_a_case(bare_engine: Engine) -> None:
    """An award written by a case's approval before 0007 gets that case as its case_id; an
    award recorded directly (no approved case for its hit) keeps None; existing drop counts
    read 0 house rake."""
    upgrade(bare_engine, "0006")
    hit = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
    other = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)
    with bare_engine.begin() as c:
        c.execute(text("INSERT INTO employees (id, number, name, role, active, card_salt, "
                       "card_hash, card_iterations, created_at) VALUES (1, 'S1', 'Sup', "
                       "'supervisor', :t, :b, :b, 1, :at)"), {"t": True, "b": b"x", "at": hit})
        c.execute(text("INSERT INTO bbj_funds (id, name, created_at) VALUES ('F', 'F', :at)"),
                  {"at": hit})
        for case_id, state in ((1, "claimed"), (2, "approved")):
            c.execute(text("INSERT INTO bbj_cases (id, fund_id, table_name, hit_at, claim, "
                           "decision, qualifies, created_at) VALUES (:id, 'F', 'P1', :hit, "
                           "'{}', '{}', :t, :hit)"), {"id": case_id, "hit": hit, "t": True})
            c.execute(text("INSERT INTO bbj_case_events (case_id, state, seat, detail, "
                           "employee_id, created_at) VALUES (:id, :st, NULL, '', 1, :hit)"),
                      {"id": case_id, "st": state, "hit": hit})
        for award_id, at in ((1, hit), (2, other)):
            c.execute(text(
                "INSERT INTO bbj_awards (id, fund_id, hit_at, table_name, main_before_cents, "
                "reserve_before_cents, fraction_num, fraction_den, award_cents, paid_cents, "
                "reserve_moved_cents, main_after_cents, reserve_after_cents, ceases_fund, "
                "recorded_by, created_at) VALUES (:id, 'F', :at, 'P1', 1, 1, 1, 1, 1, 1, 1, 1, "
                "1, :f, 'x', :at)"), {"id": award_id, "at": at, "f": False})
        c.execute(text("INSERT INTO bbj_drop_counts (fund_id, business_date, table_name, "
                       "drop_box, opened_at, closed_at, dealer, pieces, total_cents, "
                       "recorded_by, created_at) VALUES ('F', '2026-11-30', 'P1', 'J1', :at, "
                       ":at, 'D', '{}', 0, 'x', :at)"), {"at": hit})
    upgrade(bare_engine)
    with bare_engine.connect() as c:
        links = dict(c.execute(text("SELECT id, case_id FROM bbj_awards")).all())
        counts = c.execute(text("SELECT rake_box, rake_cents FROM bbj_drop_counts")).all()
    assert links == {1: 2, 2: None}
    assert [tuple(r) for r in counts] == [("", 0)]


def test_0013_gives_every_recorded_round_the_boot_of_its_start_game(bare_engine: Engine) -> None:
    """Rounds are found by (table, boot, round) from 0013: the rounds already recorded get the
    boot of the START GAME event that opened them, and a downgrade takes the column away."""
    upgrade(bare_engine, "0011")
    at = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    with bare_engine.begin() as c:
        c.execute(text("INSERT INTO groups (id, name, paytable_id, lock_at_hit, payment_order, "
                       "created_at) VALUES ('G', 'G', 'P', :f, 'right_first', :at)"),
                  {"f": False, "at": at})
        c.execute(text("INSERT INTO tables (id, name, group_id, seats, online, created_at) "
                       "VALUES ('T1', 'T1', 'G', 6, :f, :at)"), {"f": False, "at": at})
        for n, boot in ((1, "boot-a"), (2, "boot-b")):
            c.execute(text("INSERT INTO controller_events (id, table_id, boot, seq, type, "
                           "payload, controller_time, received_at) VALUES (:n, 'T1', :b, 1, "
                           "'GameStarted', '{}', '', :at)"), {"n": n, "b": boot, "at": at})
            c.execute(text("INSERT INTO rounds (id, table_id, round_no, state, event_id, "
                           "started_at) VALUES (:n, 'T1', 1, 'ended', :n, :at)"),
                      {"n": n, "at": at})
    upgrade(bare_engine, "0021")  # from 0024 the rounds are chained whole: no way back
    with bare_engine.connect() as c:
        assert list(c.execute(text("SELECT boot, round_no FROM rounds ORDER BY id"))) == [
            ("boot-a", 1), ("boot-b", 1)]
    assert "ix_rounds_table_boot_round" in {
        ix["name"] for ix in inspect(bare_engine).get_indexes("rounds")}
    cfg = alembic_config()
    with bare_engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0011")
    columns = {col["name"] for col in inspect(bare_engine).get_columns("rounds")}
    assert "boot" not in columns and "round_no" in columns
