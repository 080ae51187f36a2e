"""``podium employees ...`` (core/cli/employees_command.py and core/cli/employees/), through
``core.cli.dispatch``.

Every ledger test runs on SQLite and PostgreSQL: the command gets the ``engine`` fixture's
database as ``--db`` (on PostgreSQL with the test schema in the URL's ``options``), and the
test reads back what the command wrote through the fixture's engine.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from core.cli import main
from core.cli.employees import terminal
from core.floorconfig import Authorization
from core.ledger.models import Employee, EmployeeEvent, SwipeLog
from core.people import cardkey
from core.people.auth import AuthError, Credential, Gate

CARD_A = "6011000990147001"
CARD_B = "6011000990147002"
CARD_C = "6011000990147003"
SWIPE_A = f"%B{CARD_A}^REYES/ANA^2812101?;{CARD_A}=2812101?"
SWIPE_B = f";{CARD_B}=2812101?"
SWIPE_C = f"%B{CARD_C}^LEE/SAM^2812101?"
UNKNOWN_SWIPE = ";6011000990147999=2812101?"
# the executive who approves the people changes of these tests (enrolled by the bootstrap)
CHIEF, CHIEF_NAME, CHIEF_PIN = "9000", "Chief Approver", "8642"
CARD_X = "6011000990147900"
SWIPE_X = f";{CARD_X}=2812101?"
APPROVAL = f"{SWIPE_X}\n{CHIEF_PIN}\n"  # the executive's swipe and PIN, as stdin gives them


def authorize(s: Session, swipe: str, needed: str, action: str = "pay") -> Any:
    """Who the card is and whether it has ``needed`` authority (no PIN asked: the PIN is
    tested in tests/core/people/test_people.py), read on the session's ledger with the test run's
    key."""
    engine = s.get_bind()
    assert isinstance(engine, Engine)
    gate = Gate(engine, cardkey.load(), Authorization(500_000, pin="none"))
    return gate.check(swipe, needed, action)


@pytest.fixture
def db(engine: Engine) -> str:
    return db_url(engine)


def db_url(engine: Engine) -> str:
    """The ``--db`` URL of a test's ledger (PostgreSQL: its schema kept in the URL)."""
    url = engine.url
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
        url = url.update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse refusals
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


_chiefs: set[str] = set()


@pytest.fixture(autouse=True)
def _no_chief_yet() -> None:
    """Every test's ledger is new, though its URL may be an earlier test's (tests/ledgers.py
    uses a PostgreSQL schema again once emptied): its chief is enrolled afresh."""
    _chiefs.clear()


def chief(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str) -> None:
    """The approving executive of ledger ``db``: the bootstrap, then their PIN (once)."""
    if db in _chiefs:
        return
    rc, _out, err = run_cli(monkeypatch, capsys, [
        "employees", "add", "--bootstrap", "--number", CHIEF, "--name", CHIEF_NAME, "--role",
        "executive", "--db", db], SWIPE_X + "\n")
    assert rc == 0, err
    rc, _out, err = run_cli(monkeypatch, capsys, [
        "employees", "set-pin", "--number", CHIEF, "--db", db],
        f"{SWIPE_X}\n{CHIEF_PIN}\n{CHIEF_PIN}\n")
    assert rc == 0, err
    _chiefs.add(db)


def enroll(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str,
           number: str, name: str, role: str, swipe: str) -> tuple[int, str, str]:
    """``employees add``, approved by the chief executive (enrolled first if need be)."""
    chief(monkeypatch, capsys, db)
    return run_cli(monkeypatch, capsys, ["employees", "add", "--number", number, "--name", name,
                                         "--role", role, "--db", db], swipe + "\n" + APPROVAL)


def employee_id(engine: Engine, number: str) -> int:
    with Session(engine) as s:
        found = s.scalar(select(Employee.id).where(Employee.number == number))
    assert found is not None
    return found


def counts(engine: Engine) -> tuple[int, int, int]:
    with Session(engine) as s:
        return (s.scalar(select(func.count()).select_from(Employee)) or 0,
                s.scalar(select(func.count()).select_from(SwipeLog)) or 0,
                s.scalar(select(func.count()).select_from(EmployeeEvent)) or 0)


def swipe_rows(engine: Engine) -> list[tuple[str, str, int | None]]:
    with Session(engine) as s:
        return [(r.action, r.outcome, r.employee_id)
                for r in s.scalars(select(SwipeLog).order_by(SwipeLog.id))]


def stored_text(engine: Engine) -> str:
    """Every value of every employees and swipe_log row, as text."""
    with engine.connect() as conn:
        rows = [*conn.execute(text("SELECT * FROM employees")),
                *conn.execute(text("SELECT * FROM swipe_log"))]
    return " ".join(repr(tuple(r)) for r in rows)


def assert_no_card_data(*texts: str) -> None:
    for t in texts:
        for secret in (CARD_A, CARD_B, CARD_C, "REYES/ANA", "2812101"):
            assert secret not in t


# --- add -------------------------------------------------------------------------------------

def test_enrollment_stores_only_the_keyed_hash_and_never_echoes_the_card(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    rc, out, err = enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)
    assert rc == 0, err
    assert "5001" in out and "Ana Reyes" in out and "supervisor" in out
    with Session(engine) as s:
        emp = s.scalars(select(Employee).where(Employee.number == "5001")).one()
        assert (emp.number, emp.name, emp.role, emp.active) == ("5001", "Ana Reyes",
                                                                "supervisor", True)
        assert emp.card_mac == cardkey.load().card_mac(CARD_A)  # the key is outside the ledger
        assert emp.card_salt == b"" and emp.card_hash == b""  # no salted hash beside it
    assert_no_card_data(out, err, stored_text(engine))
    # the stored bytes are not the card either
    assert emp.card_mac is not None and CARD_A.encode() not in emp.card_mac


def test_enrolled_card_authorizes_the_pays_of_its_role(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    assert enroll(monkeypatch, capsys, db, "7001", "Sam Lee", "surveillance", SWIPE_C)[0] == 0
    with Session(engine) as s:
        assert authorize(s, SWIPE_A, "supervisor").number == "5001"
        assert authorize(s, SWIPE_B, "executive").number == "6001"
        with pytest.raises(AuthError) as exc:
            authorize(s, SWIPE_A, "executive")
        assert exc.value.outcome == "insufficient_authority"
        with pytest.raises(AuthError) as exc:
            authorize(s, SWIPE_C, "supervisor")
        assert exc.value.outcome == "insufficient_authority"


def test_enrollment_is_recorded_in_the_swipe_log_in_the_same_transaction(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    emp_id, chief_id = employee_id(engine, "5001"), employee_id(engine, CHIEF)
    # the executive's approving swipe and the enrollment swipe, in one transaction
    assert swipe_rows(engine)[-2:] == [("approve_enroll", "accepted", chief_id),
                                       ("enroll", "accepted", emp_id)]
    with Session(engine) as s:
        event = s.scalars(select(EmployeeEvent).where(EmployeeEvent.employee_id == emp_id)).one()
    assert (event.event, event.approved_by) == ("enrolled", chief_id)


@pytest.mark.parametrize(("argv", "stdin", "problem"), [
    (["--number", "5001", "--name", "Other", "--role", "executive"], SWIPE_B,
     "5001: already enrolled"),
    (["--number", "5002", "--name", "Other", "--role", "executive"], SWIPE_A,
     "card is already enrolled"),
    (["--number", "5002", "--name", "Other", "--role", "executive"], "%E?;E?",
     "could not read the card"),
    (["--number", "5002", "--name", "Other", "--role", "executive"], "hello",
     "not a card track"),
    (["--number", "5002", "--name", "Other", "--role", "executive"],
     f"%B{CARD_B}^X/Y^2812?;{CARD_C}=2812?", "different card numbers"),
    (["--number", "5002", "--name", "Other", "--role", "executive"], "", "end of input"),
    (["--number", "5002", "--name", "  ", "--role", "executive"], SWIPE_B, "name is empty"),
    (["--number", "5002", "--name", "Other", "--role", "boss"], SWIPE_B, "--role"),
    (["--number", "5002", "--name", "Other", "--role", "executive",
      "--card-number", CARD_B], "", "--card-number is not offered"),
], ids=["duplicate-number", "card-already-enrolled", "failed-read", "not-a-track",
        "tracks-disagree", "no-input", "empty-name", "bad-role", "no-card-number-option"])
def test_refused_enrollment_exits_2_with_one_line_and_writes_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str, argv: list[str], stdin: str, problem: str) -> None:
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    before = counts(engine)
    line = stdin + "\n" + APPROVAL if stdin else ""
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "add", *argv, "--db", db], line)
    assert rc == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("podium employees add")
    assert problem in err
    assert "Traceback" not in err
    assert_no_card_data(err)
    assert counts(engine) == before


def test_swipe_is_read_without_echo_on_a_terminal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    chief(monkeypatch, capsys, db)
    prompts: list[str] = []
    typed = iter([SWIPE_A, SWIPE_X, CHIEF_PIN])

    def no_echo(prompt: str = "", stream: Any = None) -> str:
        prompts.append(prompt)
        return next(typed)

    monkeypatch.setattr("sys.stdin", Terminal("this must not be read\n"))
    monkeypatch.setattr(terminal.getpass, "getpass", no_echo)
    rc = main(["employees", "add", "--number", "5001", "--name", "Ana Reyes",
               "--role", "supervisor", "--db", db])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert len(prompts) == 3 and "Swipe" in prompts[0]
    assert "Executive" in prompts[1] and "PIN" in prompts[2]
    assert_no_card_data(out, err, *prompts)
    with Session(engine) as s:
        assert authorize(s, SWIPE_A, "supervisor").number == "5001"


# --- list ------------------------------------------------------------------------------------

def test_list_shows_who_is_enrolled_and_never_card_data(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    assert run_cli(monkeypatch, capsys, ["employees", "deactivate", "--number", "6001",
                                         "--reason", "left", "--db", db], APPROVAL)[0] == 0
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "list", "--db", db, "--json"])
    assert rc == 0, err
    doc = json.loads(out)
    assert [(e["number"], e["name"], e["role"], e["active"]) for e in doc["employees"]] == [
        ("5001", "Ana Reyes", "supervisor", True), ("6001", "Bo Tan", "executive", False),
        (CHIEF, CHIEF_NAME, "executive", True)]
    for e in doc["employees"]:
        assert set(e) == {"number", "name", "role", "active", "enrolled_at", "pin", "card"}
        assert (e["pin"], e["card"]) == (e["number"] == CHIEF, "keyed")
        assert e["enrolled_at"].endswith("Z")
    rc, table, err = run_cli(monkeypatch, capsys, ["employees", "list", "--db", db])
    assert rc == 0, err
    lines = table.splitlines()
    assert len(lines) == 4 and "enrolled at" in lines[0]
    assert lines[1].split()[:4] == ["5001", "Ana", "Reyes", "supervisor"]
    assert "NO" in lines[2].split()
    assert_no_card_data(out, table)


# --- deactivate / reactivate -------------------------------------------------------------------

def test_deactivated_employee_can_not_authorize_until_reactivated(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "deactivate", "--number", "6001",
                                                 "--reason", "card lost", "--db", db], APPROVAL)
    assert rc == 0, err
    assert "deactivated" in out
    with Session(engine) as s:
        with pytest.raises(AuthError) as exc:
            authorize(s, SWIPE_B, "supervisor")
        assert exc.value.outcome == "inactive"
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "reactivate", "--number", "6001",
                                                 "--reason", "card found", "--db", db], APPROVAL)
    assert rc == 0, err
    chief_id = employee_id(engine, CHIEF)
    with Session(engine) as s:
        assert authorize(s, SWIPE_B, "executive").number == "6001"
        # the history is kept, append-only: enrolled, deactivated, reactivated, with reasons
        # and the executive who approved each
        events = [(e.event, e.reason, e.approved_by) for e in
                  s.scalars(select(EmployeeEvent).where(
                      EmployeeEvent.employee_id == employee_id(engine, "6001"))
                      .order_by(EmployeeEvent.id))]
    assert events == [("enrolled", "", chief_id), ("deactivated", "card lost", chief_id),
                      ("reactivated", "card found", chief_id)]


def test_deactivate_without_a_reason_is_refused_and_changes_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    before = counts(engine)
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "deactivate", "--number", "6001",
                                                 "--reason", "  ", "--db", db], APPROVAL)
    assert rc == 2 and "reason" in err
    assert counts(engine) == before


@pytest.mark.parametrize(("command", "number", "problem"), [
    ("deactivate", "9999", "9999: not enrolled"),
    ("reactivate", "9999", "9999: not enrolled"),
    ("reactivate", "6001", "already active"),
])
def test_deactivate_or_reactivate_of_unknown_or_unchanged_employee_exits_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str, command: str, number: str, problem: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", command, "--number", number,
                                                 "--reason", "test", "--db", db], APPROVAL)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and problem in err


# --- check -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("role", "says"), [
    ("supervisor", "may authorize pays that need a supervisor (not those that need an executive)"),
    ("executive", "may authorize every pay"),
    ("surveillance", "may not authorize anything"),
    ("accountant", "may not authorize anything"),
])
def test_check_says_who_it_is_and_what_they_may_authorize_and_logs_the_swipe(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str, role: str, says: str) -> None:
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", role, SWIPE_A)[0] == 0
    before = counts(engine)
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "check", "--db", db],
                           SWIPE_A + "\r\n")
    assert rc == 0, err
    assert out.startswith(f"employee 5001 (Ana Reyes, {role}): ")
    assert says in out
    assert_no_card_data(out, err)
    emp_id = employee_id(engine, "5001")
    assert swipe_rows(engine)[-1] == ("check", "accepted", emp_id)
    assert counts(engine) == (before[0], before[1] + 1, before[2])


@pytest.mark.parametrize(("swipe", "outcome", "problem"), [
    (UNKNOWN_SWIPE, "unknown_card", "not enrolled"),
    (SWIPE_B, "inactive", "6001 (Bo Tan): the employee is not active"),
    (";E?", "bad_read", "could not read the card"),
    ("", "bad_read", "end of input"),
])
def test_refused_check_is_logged_with_its_outcome_and_exits_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str, swipe: str, outcome: str, problem: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    assert run_cli(monkeypatch, capsys, ["employees", "deactivate", "--number", "6001",
                                         "--reason", "left", "--db", db], APPROVAL)[0] == 0
    before = counts(engine)
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "check", "--db", db],
                           swipe + "\n" if swipe else "")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and problem in err
    assert_no_card_data(err)
    if swipe:  # a swipe arrived: it is evidence
        emp_id = employee_id(engine, "6001")
        assert swipe_rows(engine)[-1] == (
            "check", outcome, emp_id if outcome == "inactive" else None)
        assert counts(engine) == (before[0], before[1] + 1, before[2])
    else:  # nothing was swiped: nothing to log
        assert counts(engine) == before


# --- the ledger ------------------------------------------------------------------------------

def test_db_defaults_to_the_ledger_the_console_uses(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setattr("platformdirs.user_data_dir", lambda *a, **k: str(tmp_path / "data"))
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "add", "--number", "5001",
                                                 "--name", "Ana Reyes", "--role", "executive",
                                                 "--bootstrap"], SWIPE_A + "\n")
    assert rc == 0, err
    from core.ledger.db import default_url, make_engine

    assert default_url() == f"sqlite:///{tmp_path / 'data' / 'ledger.sqlite3'}"
    engine = make_engine(default_url())
    try:
        with Session(engine) as s:
            assert s.scalar(select(Employee.number)) == "5001"
    finally:
        engine.dispose()


@pytest.mark.parametrize("url", [
    "postgresql+psycopg://clerk:s3cret-pw@127.0.0.1:1/podium",
    "postgresql+asyncpg://clerk:s3cret-pw@127.0.0.1/podium",
    "oracle://clerk:s3cret-pw@127.0.0.1/podium",
    "not a url",
])
def test_unusable_ledger_is_one_line_without_the_password(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str) -> None:
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "list", "--db", url])
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("podium employees list: ")
    assert "s3cret-pw" not in err and "Traceback" not in err


# --- replace-card ------------------------------------------------------------------------------

def test_a_lost_card_is_replaced_under_the_same_number_and_stops_authorizing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "replace-card", "--number", "6001",
                                                 "--reason", "card lost", "--db", db],
                           SWIPE_C + "\n" + APPROVAL)
    assert rc == 0, err
    assert "6001 (Bo Tan, executive): new card enrolled" in out
    assert_no_card_data(out, err, stored_text(engine))
    with Session(engine) as s:
        assert authorize(s, SWIPE_C, "executive").number == "6001"
        with pytest.raises(AuthError) as exc:
            authorize(s, SWIPE_B, "supervisor")
        assert exc.value.outcome == "unknown_card"
        emp = s.scalar(select(Employee).where(Employee.number == "6001"))
        assert emp is not None
        events = [(e.event, e.reason, e.approved_by) for e in
                  s.scalars(select(EmployeeEvent).where(EmployeeEvent.employee_id == emp.id)
                            .order_by(EmployeeEvent.id))]
    chief_id = employee_id(engine, CHIEF)
    assert events == [("enrolled", "", chief_id), ("card_replaced", "card lost", chief_id)]
    assert swipe_rows(engine)[-1] == ("replace_card", "accepted", emp.id)


@pytest.mark.parametrize(("argv_tail", "swipe", "message"), [
    (["--number", "6001", "--reason", " "], SWIPE_C, "give a --reason"),
    (["--number", "7777", "--reason", "lost"], SWIPE_C, "7777: not enrolled"),
    (["--number", "6001", "--reason", "lost"], SWIPE_B, "already this employee's card"),
    (["--number", "6001", "--reason", "lost"], SWIPE_A, "already enrolled to another employee"),
    (["--number", "6001", "--reason", "lost"], "%E?", "card read"),
])
def test_a_refused_card_replacement_exits_2_and_changes_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], engine: Engine,
        db: str, argv_tail: list[str], swipe: str, message: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    assert enroll(monkeypatch, capsys, db, "6002", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    before = counts(engine)
    rc, out, err = run_cli(monkeypatch, capsys,
                           ["employees", "replace-card", *argv_tail, "--db", db],
                           swipe + "\n" + APPROVAL)
    assert rc == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    assert counts(engine) == before
    assert_no_card_data(err)
    with Session(engine) as s:
        assert authorize(s, SWIPE_B, "executive").number == "6001"


# --- PINs, locks, one person one number (issue 12) ---------------------------------------------

def test_set_pin_needs_the_employees_own_card_and_the_pin_twice_and_keeps_only_a_keyed_hash(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    base = ["employees", "set-pin", "--number", "6001", "--db", db]
    rc, _out, err = run_cli(monkeypatch, capsys, base, f"{SWIPE_B}\n4826\n4827\n")
    assert (rc, "differ" in err) == (2, True)
    rc, _out, err = run_cli(monkeypatch, capsys, base, f"{SWIPE_B}\n12\n12\n")
    assert (rc, "4 to 12 digits" in err) == (2, True)
    rc, _out, err = run_cli(monkeypatch, capsys, base, f"{SWIPE_A}\n4826\n4826\n")
    assert rc == 2 and "card of employee 5001, not 6001" in err  # someone else's card
    rc, out, err = run_cli(monkeypatch, capsys, base, f"{SWIPE_B}\n4826\n4826\n")
    assert rc == 0 and "PIN set" in out, err
    with Session(engine) as s:
        emp = s.scalars(select(Employee).where(Employee.number == "6001")).one()
        assert emp.pin is not None and emp.pin.startswith("scrypt$") and "4826" not in emp.pin
        events = [e.event for e in s.scalars(select(EmployeeEvent)
                                             .where(EmployeeEvent.employee_id == emp.id))]
    assert events == ["enrolled", "pin_set"]
    gate = Gate(engine, cardkey.load(), Authorization(500_000))  # the default: executive PIN
    assert gate.check(Credential(SWIPE_B, "4826"), "executive", "adjust").number == "6001"
    with pytest.raises(AuthError, match="needs the PIN"):
        gate.check(SWIPE_B, "executive", "adjust")
    # a second set-pin asks the current PIN first; a forgotten one is reset by an operator
    rc, _out, err = run_cli(monkeypatch, capsys, base, f"{SWIPE_B}\n0000\n1111\n1111\n")
    assert rc == 2 and "wrong PIN" in err
    assert run_cli(monkeypatch, capsys, ["employees", "reset-pin", "--number", "6001",
                                         "--reason", "forgot it", "--db", db], APPROVAL)[0] == 0
    rc, out, err = run_cli(monkeypatch, capsys, base, f"{SWIPE_B}\n1111\n1111\n")
    assert rc == 0, err
    assert "4826" not in out + err and "1111" not in out + err
    rc, out, _err = run_cli(monkeypatch, capsys, ["employees", "list", "--db", db, "--json"])
    pins = {e["number"]: e["pin"] for e in json.loads(out)["employees"]}
    assert pins == {"5001": False, "6001": True, CHIEF: True}


def test_an_executive_lifts_a_locked_card_with_the_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "6001", "Bo Tan", "executive", SWIPE_B)[0] == 0
    assert run_cli(monkeypatch, capsys, ["employees", "set-pin", "--number", "6001", "--db",
                                         db], f"{SWIPE_B}\n4826\n4826\n")[0] == 0
    for attempt in range(5):  # an unknown card tried five times is locked
        rc, _out, err = run_cli(monkeypatch, capsys, ["employees", "check", "--db", db],
                                UNKNOWN_SWIPE + "\n")
        assert rc == 2 and "unknown card" in err
        assert ("LOCKED" in err) == (attempt == 4)
    rc, _out, err = run_cli(monkeypatch, capsys, ["employees", "check", "--db", db],
                            UNKNOWN_SWIPE + "\n")
    assert rc == 2 and "card locked" in err
    unlock = ["employees", "unlock", "--card", "--reason", "a visitor's card", "--db", db]
    rc, _out, err = run_cli(monkeypatch, capsys, unlock, f"{UNKNOWN_SWIPE}\n{SWIPE_B}\n0000\n")
    assert rc == 2 and "wrong PIN" in err
    rc, out, err = run_cli(monkeypatch, capsys, unlock, f"{UNKNOWN_SWIPE}\n{SWIPE_B}\n4826\n")
    assert rc == 0 and "lock lifted by employee 6001" in out, err
    rc, _out, err = run_cli(monkeypatch, capsys, ["employees", "check", "--db", db],
                            UNKNOWN_SWIPE + "\n")
    assert rc == 2 and "unknown card" in err and "locked" not in err


def test_enrolling_the_same_name_and_role_twice_needs_a_confirmation(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine, db: str) -> None:
    assert enroll(monkeypatch, capsys, db, "5001", "Ana Reyes", "supervisor", SWIPE_A)[0] == 0
    before = counts(engine)
    rc, _out, err = enroll(monkeypatch, capsys, db, "5002", " ana  REYES", "supervisor", SWIPE_B)
    assert rc == 2 and "one person is one employee number" in err and "--same-name-ok" in err
    assert counts(engine) == before
    rc, _out, err = run_cli(monkeypatch, capsys, [
        "employees", "add", "--number", "5002", "--name", "Ana Reyes", "--role", "supervisor",
        "--same-name-ok", "--db", db], SWIPE_B + "\n" + APPROVAL)
    assert rc == 0, err


def test_an_in_memory_ledger_is_refused_it_would_keep_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(monkeypatch, capsys, [
        "employees", "add", "--number", "1", "--name", "A", "--role", "supervisor", "--db",
        "sqlite://"], SWIPE_A + "\n")
    assert rc == 2 and "keeps nothing" in err and "enrolled" not in out
    assert len(err.strip().splitlines()) == 1
