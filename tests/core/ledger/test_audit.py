"""The tamper-evident ledger (core/ledger/integrity.py, core/ledger/audit.py): the database
refuses edits of records, every row is hash-chained, and ``podium audit verify`` catches a
ledger edited with raw SQL by someone who first took the guards off."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from core.cli.dispatch import main
from core.controllers.events import GameEnded, GameStarted, HitClaimed
from core.ledger import chain, guards, integrity
from core.ledger.audit import verify
from core.ledger.models import Award, Base, Employee, MeterEntry, Slip
from core.tablegames.floor import Floor
from tests.core.tablegames.test_floor import (
    EXE,
    HANDS,
    SUP,
    Table,
    counts,
    hit_ids,
    staffed_floor,
    swipe,
)

Exec = Callable[[str], Any]


@pytest.fixture(name="played")
def played_fixture(engine: Engine) -> Floor:
    return played(engine)


def played(engine: Engine) -> Floor:
    """A ledger with contributions, a meter award paid with its slip, and a rejected hit."""
    floor = staffed_floor(engine)
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100, 3: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    hit = max(hit_ids(engine))
    floor.pay(hit, HANDS["RF_ROYAL_MATCH"].split(), swipe(EXE))
    t1.send(GameEnded(1))
    t1.send(GameStarted(2, {4: 100, 5: 100}))
    t1.send(HitClaimed(2, 4, "RF_ROYAL_MATCH"))
    other = max(hit_ids(engine))
    floor.reject(other, "no wager on the seat", swipe(SUP))
    return floor


def _chained_rows(engine: Engine) -> int:
    c = counts(engine)  # also asserts one chain row per chained row, nothing unsealed
    return sum(c[name] for name in chain.CHAINED)


def test_a_ledger_podium_wrote_verifies_with_every_row_chained(played: Floor,
                                                               engine: Engine) -> None:
    report = verify(engine)
    assert report.ok, [b.line() for b in report.breaks]
    assert report.covered == _chained_rows(engine) > 20
    assert report.rows < report.covered  # one batch link per transaction
    with engine.connect() as conn:
        n, digest = integrity.chain_head(conn)
        assert (report.head_n, report.head_hash) == (n, digest.hex())
    assert verify(engine, [(report.head_n, report.head_hash)]).ok


@contextmanager
def attacker(engine: Engine, role: str | None = None) -> Iterator[Exec]:
    """A person with the database's own tools (the sqlite3 shell, psql as the owner, or as
    ``role``), outside Podium: no chain hook, autocommit."""
    if engine.dialect.name == "sqlite":
        conn = sqlite3.connect(str(engine.url.database), isolation_level=None)
        try:
            yield conn.execute
        finally:
            conn.close()
        return
    raw = engine.raw_connection()
    try:
        raw.driver_connection.autocommit = True  # type: ignore[union-attr]
        cur = raw.cursor()
        if role is not None:
            cur.execute(f"SET ROLE {role}")
        yield cur.execute
    finally:
        raw.close()


def unguard(engine: Engine, run: Exec, *tables: str) -> None:
    for t in tables:
        if engine.dialect.name == "sqlite":
            for ddl in guards.unprotect_ddl("sqlite", t):
                run(ddl)
        else:
            run(f"ALTER TABLE {t} DISABLE TRIGGER USER")


@pytest.mark.parametrize("statement", [
    "UPDATE awards SET amount_cents = amount_cents * 10",
    "DELETE FROM meter_entries WHERE kind = 'award'",
    "UPDATE swipe_log SET employee_id = NULL",
    "DELETE FROM swipe_log",
    "UPDATE hits SET claimed_hand = 'FLUSH'",
    "DELETE FROM hits WHERE status = 'rejected'",
    "UPDATE slips SET slip_no = slip_no + 1",
    "UPDATE ledger_chain SET row_hash = prev_hash",
    "DELETE FROM ledger_chain",
])
def test_the_database_refuses_to_edit_a_record(played: Floor, engine: Engine,
                                                statement: str) -> None:
    before = counts(engine)
    with pytest.raises(DBAPIError, match="append-only|refused|only .* may change"), \
            engine.begin() as conn:
        conn.execute(text(statement))
    assert counts(engine) == before
    assert verify(engine).ok


def test_state_columns_change_in_place_and_nothing_else(played: Floor, engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE tables SET online = :f"), {"f": False})
    with pytest.raises(DBAPIError, match="only .* may change"), engine.begin() as conn:
        conn.execute(text("UPDATE tables SET created_at = created_at, id = 'X9' "
                          "WHERE id = 'T2'"))


def test_postgresql_truncate_and_the_writer_role(played: Floor, engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("TRUNCATE and roles are PostgreSQL's")
    with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
        conn.execute(text("TRUNCATE meter_entries CASCADE"))
    with engine.connect() as conn:  # the role holds no UPDATE / DELETE on a record at all
        conn.execute(text(f"SET ROLE {guards.WRITER_ROLE}"))
        with pytest.raises(DBAPIError, match="permission denied"):
            conn.execute(text("DELETE FROM swipe_log"))
        conn.rollback()
        conn.execute(text(f"SET ROLE {guards.WRITER_ROLE}"))
        with pytest.raises(DBAPIError, match="permission denied"):
            conn.execute(text("UPDATE hits SET claimed_hand = 'FLUSH'"))
        conn.rollback()
        conn.execute(text(f"SET ROLE {guards.WRITER_ROLE}"))
        conn.execute(text("UPDATE hits SET status = status"))  # a state column: granted
        conn.rollback()


def _first_id(engine: Engine, q: Any) -> int:
    with Session(engine) as s:
        return int(s.scalar(q))


EDITS: dict[str, tuple[tuple[str, ...], Callable[[Engine], str], str]] = {
    # name: (tables unguarded, the statement, what the first break names)
    "award x10": (("awards",), lambda e: "UPDATE awards SET amount_cents = amount_cents * 10",
                  "awards row 1 was changed"),
    "contribution +1,000.00": (
        ("meter_entries",),
        lambda e: "UPDATE meter_entries SET meter_delta = meter_delta + 100000000000 WHERE id = "
                  f"{_first_id(e, select(func.min(MeterEntry.id)).where(MeterEntry.kind == 'contribution'))}",  # noqa: E501
        "meter_entries row"),
    "award entry deleted": (("meter_entries",),
                            lambda e: "DELETE FROM meter_entries WHERE kind = 'award'",
                            "was deleted"),
    "payer rewritten": (
        ("awards",),
        lambda e: "UPDATE awards SET authorized_by = "
                  f"{_first_id(e, select(Employee.id).where(Employee.role == 'accountant'))}",
        "awards row 1 was changed"),
    "swipe log deleted": (("swipe_log",), lambda e: "DELETE FROM swipe_log",
                          "swipe_log row 1 was deleted"),
    "slip bytes edited": (("slips",), lambda e: "UPDATE slips SET escpos = escpos || escpos",
                          "slips row 1 was changed"),
    "chain row edited": (("ledger_chain",),
                         lambda e: "UPDATE ledger_chain SET row_hash = prev_hash WHERE n = 5",
                         "chain row's hash is wrong"),
    "batch link's hashes edited": (
        ("ledger_chain",),
        lambda e: "UPDATE ledger_chain SET hashes = " + (
            "CAST(substr(hashes, 33) || substr(hashes, 1, 32) AS BLOB)"
            if e.dialect.name == "sqlite" else
            "substring(hashes from 33) || substring(hashes from 1 for 32)")
        + " WHERE n = (SELECT max(n) FROM ledger_chain WHERE length(hashes) > 32)",
        "its members or their hashes were edited"),
    "batch link's members edited": (
        ("ledger_chain",),
        lambda e: "UPDATE ledger_chain SET members = replace(members, '[[1,', '[[2,') "
                  "WHERE members LIKE '%[[1,%'",
        "its members or their hashes were edited"),
    "forged contribution": (
        ("meter_entries",),
        lambda e: "INSERT INTO meter_entries (level_id, kind, meter_delta, reserve_delta, "
                  "reason, created_at) SELECT level_id, kind, meter_delta, reserve_delta, "
                  "reason, created_at FROM meter_entries WHERE kind = 'contribution' LIMIT 1",
        "is not in the chain"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_ledger_edited_with_raw_sql_is_caught(played: Floor, engine: Engine, edit: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    tables, statement, named = EDITS[edit]
    with attacker(engine) as run:
        unguard(engine, run, *tables)
        run(statement(engine))
    report = verify(engine)
    assert not report.ok
    first = report.first()
    assert first is not None and named in first.line(), [b.line() for b in report.breaks]
    assert any(b.check == "guards" for b in report.breaks)  # the guards taken off are named
    if engine.dialect.name == "sqlite":  # the command line says it and exits 1
        assert main(["audit", "verify", "--db", str(engine.url)]) == 1
        out = capsys.readouterr().out
        assert "LEDGER BROKEN" in out and named in out


def test_a_rewritten_chain_passes_alone_but_not_against_a_head_kept_outside(
        played: Floor, engine: Engine) -> None:
    before = verify(engine)
    kept = (before.head_n, before.head_hash)  # printed on the last win page
    with Session(engine) as s:
        award_id = s.scalar(select(Award.id))
    with attacker(engine) as run:
        unguard(engine, run, "awards", "ledger_chain")
        run(f"UPDATE awards SET amount_cents = amount_cents * 10 WHERE id = {award_id}")
        run("DELETE FROM ledger_chain")
    with engine.begin() as conn:  # the forger re-chains every row with Podium's own code
        items = []
        for name in chain.CHAINED:
            table = Base.metadata.tables[name]
            items += [(name, str(k)) for k in conn.execute(select(table.c.id)
                                                            .order_by(table.c.id)).scalars()]
        integrity.append(conn, items)
        # ... and every state row's whole content (revision 0024)
        integrity.append_batch(conn, (), states=[(t, k) for t, k in items if t in chain.STATE])
    with attacker(engine) as run:  # ... and puts the triggers back
        if engine.dialect.name == "sqlite":
            for name in ("awards", "ledger_chain"):
                for ddl in guards.protect_ddl(
                        "sqlite", name, [c.name for c in Base.metadata.tables[name].columns],
                        None, chained=name != "ledger_chain"):
                    run(ddl)
        else:
            run("ALTER TABLE awards ENABLE TRIGGER USER")
            run("ALTER TABLE ledger_chain ENABLE TRIGGER USER")
    alone = verify(engine)
    assert [b.line() for b in alone.breaks if b.check != "slips"] == []
    against = verify(engine, [kept])
    assert not against.ok
    assert any("not the head kept outside" in b.line() for b in against.breaks)


def test_audit_verify_on_the_command_line(played: Floor, engine: Engine,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("the test schema of PostgreSQL is not reachable by URL alone")
    url = str(engine.url)
    assert main(["audit", "verify", "--db", url]) == 0
    out = capsys.readouterr().out
    report = verify(engine)
    assert f"chain head: row {report.head_n:,} hash {report.head_hash}" in out
    assert "ledger verified" in out
    assert main(["audit", "verify", "--db", url, "--head", f"{report.head_n}:{'0' * 64}"]) == 1
    assert main(["audit", "verify", "--db", url, "--head", "12:xyz"]) == 2
    assert "expected ROW:HASH" in capsys.readouterr().err


def test_slips_made_by_podium_show_their_award(played: Floor, engine: Engine) -> None:
    with Session(engine) as s:
        slip = s.scalars(select(Slip)).one()
        award = s.get(Award, slip.award_id)
    assert award is not None and award.amount_cents > 0
    assert verify(engine).ok


def test_the_win_page_carries_the_chain_head_an_auditor_can_check(played: Floor,
                                                                  engine: Engine) -> None:
    from gui.tablegames.winpage_dialog import winpage_for

    _slip, html = winpage_for(played, 1)
    found = re.search(r"Ledger chain head (\d+):([0-9a-f]{64})", html)
    assert found is not None
    kept = (int(found[1]), found[2])
    with engine.connect() as conn:
        n, digest = integrity.chain_head(conn)
        assert kept == (n, digest.hex())
    assert verify(engine, [kept]).ok


def test_podium_runs_as_the_writer_role_which_can_not_edit_a_record(engine: Engine) -> None:
    """A podium that logs in as a member of ``podium_writer`` (docs/ledger.md) does its whole
    work (start, events, pays with slips, rejections, a poker room fund) and still can not
    change or delete what it wrote, even with the triggers disabled."""
    if engine.dialect.name != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    from core.ledger.db import make_engine
    from tests.conftest import PG_URL
    from tests.core.pokerroom import test_bbj_fund as tbf

    with engine.connect() as conn:
        schema = conn.execute(text("SELECT current_schema()")).scalar()
    writer = make_engine(PG_URL, connect_args={
        "options": f"-csearch_path={schema} -crole={guards.WRITER_ROLE}"})
    try:
        with writer.connect() as conn:
            assert conn.execute(text("SELECT current_user")).scalar() == guards.WRITER_ROLE
        played(writer)  # the fixture's body, as the writer
        tbf.funded(writer)
        assert verify(engine).ok
        for statement in ("UPDATE awards SET amount_cents = 1", "DELETE FROM bbj_entries",
                          "UPDATE hits SET claimed_hand = 'FLUSH'", "TRUNCATE swipe_log",
                          "ALTER TABLE awards DISABLE TRIGGER USER"):
            with pytest.raises(DBAPIError, match="permission denied|must be owner"), \
                    writer.begin() as conn:
                conn.execute(text(statement))
    finally:
        writer.dispose()


def test_a_console_starting_on_a_ledger_with_a_guard_taken_off_says_so(played: Floor,
                                                                        engine: Engine) -> None:
    assert not [n for n in played.start() if "GUARD" in n]
    with attacker(engine) as run:
        unguard(engine, run, "awards")
    notes = [n for n in played.start() if "LEDGER GUARD MISSING" in n]
    assert notes and all("awards" in n and "podium audit verify" in n for n in notes)
