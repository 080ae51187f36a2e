"""The accountant's and surveillance's desks open the ledger read-only (core/desks/desk.py,
core/ledger/db.py ``read_only_engine``): the database itself refuses every write, on SQLite (the
file opened read-only) and on PostgreSQL (the ``podium_reader`` role, read-only transactions);
a desk never migrates a ledger; a card at the desk's start is identified without writing."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from core.desks.desk import (
    DESK_ACCESS,
    Desk,
    DeskError,
    chain_head_text,
    check_reader_role,
    desk_pass,
    open_desk,
    open_ledger,
)
from core.ledger import guards, integrity
from core.ledger.db import make_engine, upgrade
from core.ledger.models import Employee, Setting
from core.people import cardkey
from core.people.auth import AuthError, add_employee
from core.tablegames.floor import Floor
from tests.conftest import PG_URL
from tests.core.ledger.test_audit import played
from tests.core.tablegames.test_floor import ACC, EXE, GONE, SUP, counts, swipe

SURV = "5000000000000077"
UNKNOWN = "5000000000000999"
# what the database says when a desk tries to write
REFUSED = "attempt to write a readonly database|read-only transaction|permission denied"


def desk_url(engine: Engine) -> tuple[str, dict[str, Any]]:
    """The URL and connection arguments a desk uses to open ``engine``'s ledger (on PostgreSQL
    the test's own schema)."""
    if engine.dialect.name == "sqlite":
        return engine.url.render_as_string(hide_password=False), {}
    with engine.connect() as conn:
        schema = conn.execute(text("SELECT current_schema()")).scalar()
    return PG_URL, {"options": f"-csearch_path={schema}"}


def open_test_desk(engine: Engine, floor: Floor, role: str = "accountant") -> Desk:
    url, args = desk_url(engine)
    return open_desk(role, floor.config, url, {}, "Acc Ountant #A1", connect_args=args)


def chain(engine: Engine) -> tuple[int, bytes]:
    with engine.connect() as conn:
        return integrity.chain_head(conn)


@pytest.fixture(name="floor")
def floor_fixture(engine: Engine) -> Floor:
    floor = played(engine)  # contributions, a paid hit with its slip, a rejected hit
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "V1", "Sur Veillance", "surveillance", SURV)
    return floor


WRITES = (
    "INSERT INTO settings (key, value) VALUES ('desk', 'was here')",  # a derived table
    "UPDATE level_balances SET meter_units = meter_units + 1",
    "UPDATE hits SET status = status",  # a state column the writer role may change
    "INSERT INTO employee_events (employee_id, event, reason, operator, created_at) "
    "VALUES (1, 'deactivated', 'desk', 'desk', CURRENT_TIMESTAMP)",  # a chained record
    "DELETE FROM ledger_journal",
)


def test_a_desk_can_write_nothing_through_its_engine_or_a_session(engine: Engine,
                                                                  floor: Floor) -> None:
    before, head = counts(engine), chain(engine)
    desk = open_test_desk(engine, floor)
    try:
        for statement in WRITES:
            with pytest.raises(DBAPIError, match=REFUSED), desk.engine.begin() as conn:
                conn.execute(text(statement))
        with pytest.raises(DBAPIError, match=REFUSED), Session(desk.engine) as s, s.begin():
            s.add(Setting(key="desk", value="was here"))
        with pytest.raises(DBAPIError, match=REFUSED), Session(desk.engine) as s, s.begin():
            emp = s.get(Employee, 1)
            assert emp is not None
            emp.active = not emp.active
        with pytest.raises(DBAPIError, match=REFUSED), desk.read() as s:
            s.execute(text(WRITES[0]))
        # and reading works: one snapshot, the chain head the audit prints
        assert chain_head_text(desk) == integrity.head_text(*head)
    finally:
        desk.engine.dispose()
    assert counts(engine) == before
    assert chain(engine) == head


def test_committing_a_read_on_a_desk_seals_and_writes_nothing(engine: Engine,
                                                              floor: Floor) -> None:
    """The hash chain's commit hook is on the desk's engine too; a read has nothing to seal."""
    before, head = counts(engine), chain(engine)
    desk = open_test_desk(engine, floor)
    try:
        for _ in range(2):
            with desk.engine.begin() as conn:  # commits
                assert conn.execute(text("SELECT count(*) FROM awards")).scalar() == 1
            with Session(desk.engine) as s, s.begin():
                assert s.get(Employee, 1) is not None
        # a write refused mid-transaction, the transaction then committed anyway
        with desk.engine.connect() as conn:
            with pytest.raises(DBAPIError, match=REFUSED):
                conn.execute(text(WRITES[3]))
            conn.rollback()
            conn.execute(text("SELECT 1"))
            conn.commit()
    finally:
        desk.engine.dispose()
    assert counts(engine) == before
    assert chain(engine) == head


def test_postgresql_the_desk_works_as_podium_reader_which_holds_no_write_privilege(
        engine: Engine, floor: Floor) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    before = counts(engine)
    desk = open_test_desk(engine, floor)
    try:
        with desk.engine.connect() as conn:
            assert conn.execute(text("SELECT current_user")).scalar() == guards.READER_ROLE
            assert conn.execute(text("SHOW default_transaction_read_only")).scalar() == "on"
            conn.rollback()
            # even with the transaction made READ WRITE, the role may not write
            for statement in WRITES[:4]:
                conn.execute(text("SET TRANSACTION READ WRITE"))
                with pytest.raises(DBAPIError, match="permission denied"):
                    conn.execute(text(statement))
                conn.rollback()
    finally:
        desk.engine.dispose()
    assert counts(engine) == before


def test_sqlite_a_desk_reads_a_snapshot_beside_a_live_writer(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    writer = make_engine(url)
    upgrade(writer)
    writer.dispose()  # no connection left: the WAL and its index are gone
    desk_engine = open_ledger(url)
    writer = make_engine(url)
    try:
        with desk_engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM settings")).scalar() == 0
            conn.rollback()
        with writer.begin() as w:  # BEGIN IMMEDIATE: the write lock held ...
            w.execute(text("INSERT INTO settings (key, value) VALUES ('a', '1')"))
            with desk_engine.connect() as conn:  # ... the desk reads on, without waiting
                assert conn.execute(text("SELECT count(*) FROM settings")).scalar() == 0
                conn.rollback()
        with desk_engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM settings")).scalar() == 1
            conn.rollback()
        with pytest.raises(DBAPIError, match="attempt to write a readonly database"), \
                desk_engine.begin() as conn:
            conn.execute(text("INSERT INTO settings (key, value) VALUES ('b', '2')"))
    finally:
        desk_engine.dispose()
        writer.dispose()


def test_a_desk_never_upgrades_a_ledger_at_another_revision(bare_engine: Engine,
                                                            tmp_path: Any) -> None:
    from alembic.script import ScriptDirectory

    from core.ledger.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    upgrade(bare_engine, "0015")
    url, args = desk_url(bare_engine)
    if bare_engine.dialect.name == "postgresql":  # the superuser of the tests reads any table
        with pytest.raises(DeskError, match=f"revision 0015; this Podium reads revision {head}. "
                                            "A desk never upgrades"):
            open_ledger(url, connect_args=args)
    else:
        with pytest.raises(DeskError, match=f"revision 0015; this Podium reads revision {head}"):
            open_ledger(url, connect_args=args)
    with bare_engine.connect() as conn:  # nothing was migrated
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0015"
    upgrade(bare_engine)
    with bare_engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0099'"))
    with pytest.raises(DeskError, match="revision 0099, which this Podium does not know"):
        open_ledger(url, connect_args=args)


def test_a_desk_opens_no_missing_or_empty_ledger(bare_engine: Engine, tmp_path: Any) -> None:
    with pytest.raises(DeskError, match="no ledger at .*nothing-here.sqlite3"):
        open_ledger(f"sqlite:///{tmp_path / 'nothing-here.sqlite3'}")
    assert not (tmp_path / "nothing-here.sqlite3").exists()
    if bare_engine.dialect.name == "sqlite":
        with bare_engine.connect() as conn:  # the file exists, with no schema
            conn.execute(text("SELECT 1"))
    url, args = desk_url(bare_engine)
    if bare_engine.dialect.name == "sqlite":
        with pytest.raises(DeskError, match="is not a Podium ledger"):
            open_ledger(url, connect_args=args)
    with pytest.raises(DeskError, match="desk role 'cashier'"):
        open_desk("cashier", None, url)  # type: ignore[arg-type]


@pytest.mark.postgres
def test_postgresql_a_login_outside_podium_reader_is_told_which_grant_to_run(
        engine: Engine, floor: Floor) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    url, args = desk_url(engine)
    login = f"podium_t_{secrets.token_hex(4)}"
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE ROLE {login} LOGIN"))
    try:
        as_login = url.replace("postgres@", f"{login}@")
        with pytest.raises(DeskError, match=f"login role {login} is not a member of "
                                            f"podium_reader.*GRANT podium_reader TO {login};"):
            open_ledger(as_login, connect_args=args)
        with admin.begin() as conn:
            conn.execute(text(f"GRANT {guards.READER_ROLE} TO {login}"))
        desk = open_desk("surveillance", floor.config, as_login, connect_args=args)
        try:
            with desk.read() as s:
                assert s.execute(text("SELECT session_user")).scalar() == login
                assert s.execute(text("SELECT count(*) FROM awards")).scalar() == 1
            with pytest.raises(DBAPIError, match=REFUSED), desk.engine.begin() as conn:
                conn.execute(text(WRITES[0]))
        finally:
            desk.engine.dispose()
        with pytest.raises(DeskError, match="role podium_no_such_reader does not exist"):
            check_reader_role(url, connect_args=args, role="podium_no_such_reader")
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP ROLE {login}"))
        admin.dispose()


def test_a_card_at_the_desk_opens_the_desks_of_its_role_and_writes_nothing(
        engine: Engine, floor: Floor) -> None:
    desk = open_test_desk(engine, floor)
    before = counts(engine)
    try:
        config = floor.config
        assert desk_pass(desk.engine, config, swipe(ACC)).desks == ("accountant",)
        assert desk_pass(desk.engine, config, swipe(SURV)).desks == ("surveillance",)
        assert desk_pass(desk.engine, config, swipe(SUP)).desks == ("accountant",)
        exe = desk_pass(desk.engine, config, swipe(EXE))
        assert exe.desks == ("accountant", "surveillance")
        assert exe.label == "Exe Cutive #X1"
        with pytest.raises(AuthError, match="not enrolled"):
            desk_pass(desk.engine, config, swipe(UNKNOWN))
        with pytest.raises(AuthError, match="not active"):
            desk_pass(desk.engine, config, swipe(GONE))
        with pytest.raises(AuthError):
            desk_pass(desk.engine, config, "%E?;E?")
    finally:
        desk.engine.dispose()
    assert counts(engine) == before  # not even a swipe-log row: a desk can not write one
    assert set(DESK_ACCESS) == {"accountant", "surveillance", "supervisor", "executive"}


def test_a_card_whose_role_opens_no_desk_is_refused(engine: Engine, floor: Floor,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(DESK_ACCESS, "supervisor")
    desk = open_test_desk(engine, floor)
    try:
        with pytest.raises(DeskError, match=r"employee S1 \(Sue Visor, supervisor\) opens no "
                                            "desk"):
            desk_pass(desk.engine, floor.config, swipe(SUP))
    finally:
        desk.engine.dispose()
