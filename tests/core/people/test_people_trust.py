"""Issue 23, findings 1, 6, 9 (second half) and the ``employees`` bits of 7: people records no
login can swap, privileged people changes only with an executive's card and PIN, a contribution
rate above the pre-configured one only with an executive's recorded approval, and refusals of
the ``employees`` command that echo nothing and leave nothing behind.

Every ledger test runs on SQLite and PostgreSQL (the ``engine`` fixture).  The attacker of
finding 1 runs plain SQL on the ledger (the UPDATE a login in ``podium_writer`` may run: the
state columns of ``employees``), no Podium code involved.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from core.cli.employees import contribution, pins
from core.floorconfig import Authorization, FloorConfigError, loads_floor
from core.ledger import audit
from core.ledger.db import make_engine, upgrade
from core.ledger.models import Employee, EmployeeEvent, SwipeLog
from core.people import cardkey
from core.people.auth import AuthError, Credential, Gate, add_employee
from core.tablegames.floor import Floor
from printing.escpos.slip import PAPER
from tests.core.cli.test_employees_command import db_url, run_cli
from tests.core.tablegames.test_floor import FLOOR_TOML, PAYTABLES, Clock

SUP, EXE, EXE2, NEW = ("6200000000000001", "6200000000000002", "6200000000000003",
                       "6200000000000004")
PINS = {SUP: "1357", EXE: "7531", EXE2: "8642"}
ROOT = Path(__file__).resolve().parents[3]


def swipe(card: str) -> str:
    return f";{card}=2812101?"


def approval(card: str) -> str:
    """An approver's swipe and PIN, as the command reads them from stdin."""
    return f"{swipe(card)}\n{PINS[card]}\n"


def staff(engine: Engine) -> None:
    """A supervisor S1 and executives X1, X2, each with a PIN set with their own card."""
    key = cardkey.load()
    with Session(engine) as s, s.begin():
        add_employee(s, key, "S1", "Sue Visor", "supervisor", SUP)
        add_employee(s, key, "X1", "Exe Cutive", "executive", EXE)
        add_employee(s, key, "X2", "Ex Two", "executive", EXE2)
    for number, card in (("S1", SUP), ("X1", EXE), ("X2", EXE2)):
        pins.set_pin(engine, number, swipe(card), None, PINS[card], key=key)


def gate(engine: Engine) -> Gate:
    return Gate(engine, cardkey.load(), Authorization(500_000))  # the default: executive PIN


def written(engine: Engine) -> tuple[int, ...]:
    """Rows of the people tables and the approvals (swipe_log apart: refusals are logged)."""
    with engine.connect() as conn:
        return tuple(int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() or 0)
                     for t in ("employees", "employee_events"))


def people_state(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(
            "SELECT number, role, active, card_mac, pin FROM employees ORDER BY number"))]


# --- finding 1: the swap is caught and refused --------------------------------------------------

def test_a_card_swap_by_plain_sql_is_refused_at_the_swipe_and_named_by_audit_verify(
        engine: Engine) -> None:
    staff(engine)
    g = gate(engine)
    assert g.identify(swipe(SUP)).number == "S1"
    assert audit.verify(engine).ok
    # the attacker: swap the supervisor's and the executive's card MACs (both are in the
    # ledger: no card key needed) and clear the executive's PIN, in one transaction
    with engine.begin() as conn:
        macs = dict(conn.execute(text("SELECT number, card_mac FROM employees")).all())
        conn.execute(text("UPDATE employees SET card_mac = NULL WHERE number = 'S1'"))
        conn.execute(text("UPDATE employees SET card_mac = :m, pin = NULL WHERE number = 'X1'"),
                     {"m": macs["S1"]})
        conn.execute(text("UPDATE employees SET card_mac = :m WHERE number = 'S1'"),
                     {"m": macs["X1"]})
    with Session(engine) as s:
        x1 = s.scalars(select(Employee).where(Employee.number == "X1")).one()
        x1_id, events_before = x1.id, s.scalar(select(func.count()).select_from(EmployeeEvent))
    # the supervisor's card no longer authorizes as the executive: refused, one line, logged
    with pytest.raises(AuthError) as refused:
        g.run(swipe(SUP), "supervisor", "adjust", lambda s, emp, now: emp.number)
    assert refused.value.outcome == "record_mismatch"
    assert str(refused.value).startswith("card record of employee X1 (Exe Cutive) does not "
                                         "match its ledger history")
    assert "\n" not in str(refused.value) and "see podium audit verify" in str(refused.value)
    with Session(engine) as s:
        row = s.scalars(select(SwipeLog).order_by(SwipeLog.id.desc()).limit(1)).one()
    assert (row.outcome, row.employee_id, row.action) == ("record_mismatch", x1_id, "adjust")
    # nor can the supervisor's card take the cleared PIN for itself
    with pytest.raises(AuthError, match="does not match its ledger history"):
        pins.set_pin(engine, "X1", swipe(SUP), None, "2222")
    # the executive's own card now finds the supervisor's row: refused as well
    with pytest.raises(AuthError, match="employee S1 .* does not match"):
        g.check(Credential(swipe(EXE), PINS[EXE]), "supervisor")
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(EmployeeEvent)) == events_before
    # audit verify names both employees
    report = audit.verify(engine)
    assert not report.ok
    people = [b.line() for b in report.breaks if b.check == "people"]
    assert len(people) == 2, report.breaks
    assert any("employee S1 (Sue Visor)" in line for line in people)
    assert any("employee X1 (Exe Cutive)" in line for line in people)


def test_the_upgrade_vouches_for_the_employees_it_finds(engine: Engine) -> None:
    """Revision 0022's baseline: every employee of an existing ledger gets an event with the
    digest of its row, so its card keeps working and a later swap is caught."""
    from alembic import command

    from core.ledger.db import alembic_config

    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0021")
    with engine.begin() as conn:  # an employee enrolled by revision 0021's Podium
        conn.execute(text(
            "INSERT INTO employees (number, name, role, active, card_salt, card_hash, "
            "card_iterations, created_at, card_mac) VALUES ('S9', 'Old Hand', 'supervisor', "
            ":t, :e, :e, 0, :now, :mac)"),
            {"t": True, "e": b"", "now": datetime.now(UTC).replace(tzinfo=None),
             "mac": cardkey.load().card_mac(SUP)})
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    with Session(engine) as s:
        (ev,) = s.scalars(select(EmployeeEvent))
        assert ev.event == "baseline" and ev.state_digest is not None
    assert gate(engine).identify(swipe(SUP)).number == "S9"
    assert audit.verify(engine).ok
    with engine.begin() as conn:
        conn.execute(text("UPDATE employees SET active = :f WHERE number = 'S9'"), {"f": False})
        conn.execute(text("UPDATE employees SET active = :t WHERE number = 'S9'"), {"t": True})
    assert audit.verify(engine).ok  # the same values again: nothing to report
    with engine.begin() as conn:
        conn.execute(text("UPDATE employees SET pin = 'scrypt$1$1$1$00$00'"))
    assert [b.check for b in audit.verify(engine).breaks] == ["people"]


# --- finding 6: privileged people changes need an executive -------------------------------------

@pytest.mark.parametrize(("argv", "stdin"), [
    (["add", "--number", "7001", "--name", "Mal Lory", "--role", "executive"], swipe(NEW) + "\n"),
    (["add", "--number", "7001", "--name", "Mal Lory", "--role", "supervisor"],
     swipe(NEW) + "\n"),
    (["replace-card", "--number", "X1", "--reason", "lost"], swipe(NEW) + "\n"),
    (["reset-pin", "--number", "X1", "--reason", "forgot"], ""),
    (["deactivate", "--number", "X2", "--reason", "left"], ""),
], ids=["grant-executive", "grant-supervisor", "replace-card", "reset-pin", "deactivate"])
def test_privileged_people_commands_refuse_without_an_executive(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], engine: Engine,
        argv: list[str], stdin: str) -> None:
    staff(engine)
    db = db_url(engine)
    before, state = written(engine), people_state(engine)
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", *argv, "--db", db], stdin)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "executive" in err or "end of input" in err, err
    assert written(engine) == before and people_state(engine) == state


@pytest.mark.parametrize(("argv", "stdin", "approver", "problem"), [
    (["add", "--number", "7001", "--name", "Mal Lory", "--role", "executive"], swipe(NEW), SUP,
     "it needs an executive"),
    (["reset-pin", "--number", "X1", "--reason", "forgot"], "", SUP, "it needs an executive"),
    (["reset-pin", "--number", "X1", "--reason", "forgot"], "", EXE,
     "may not approve resetting a PIN of their own"),
    (["replace-card", "--number", "X1", "--reason", "lost"], swipe(NEW), EXE,
     "may not approve a new card of their own"),
    (["deactivate", "--number", "X2", "--reason", "left"], "", EXE2, "of their own"),
    (["deactivate", "--number", "X2", "--reason", "left"], "", EXE, "wrong PIN"),
], ids=["supervisor-grants", "supervisor-resets", "own-pin", "own-card", "own-flag",
        "wrong-pin"])
def test_a_refused_approval_is_one_line_logged_and_changes_nobody(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], engine: Engine,
        argv: list[str], stdin: str, approver: str, problem: str) -> None:
    staff(engine)
    db = db_url(engine)
    before, state = written(engine), people_state(engine)
    lines = (stdin + "\n" if stdin else "") + (
        f"{swipe(approver)}\n0000\n" if problem == "wrong PIN" else approval(approver))
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", *argv, "--db", db], lines)
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert problem in err
    assert written(engine) == before and people_state(engine) == state
    with Session(engine) as s:
        row = s.scalars(select(SwipeLog).order_by(SwipeLog.id.desc()).limit(1)).one()
    assert row.outcome != "accepted" and row.action.startswith("approve_")


def test_an_approved_change_names_the_executive_and_the_new_card_works(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine) -> None:
    staff(engine)
    db = db_url(engine)
    rc, out, err = run_cli(monkeypatch, capsys, [
        "employees", "add", "--number", "7001", "--name", "Dana Reyes", "--role", "executive",
        "--db", db], swipe(NEW) + "\n" + approval(EXE))
    assert rc == 0, err
    with Session(engine) as s:
        x1, new = (s.scalars(select(Employee).where(Employee.number == n)).one()
                   for n in ("X1", "7001"))
        ev = s.scalars(select(EmployeeEvent).where(EmployeeEvent.employee_id == new.id)).one()
    assert (ev.event, ev.approved_by) == ("enrolled", x1.id) and ev.operator
    assert gate(engine).identify(swipe(NEW)).number == "7001"
    assert audit.verify(engine).ok


def test_the_first_executive_is_enrolled_by_the_bootstrap_only_while_there_is_none(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine) -> None:
    db = db_url(engine)
    boot = ["employees", "add", "--bootstrap", "--number", "X1", "--name", "Exe Cutive",
            "--role", "executive", "--db", db]
    rc, _out, err = run_cli(monkeypatch, capsys, [*boot[:-3], "supervisor", "--db", db],
                            swipe(EXE) + "\n")
    assert rc == 2 and "first executive only" in err
    rc, _out, err = run_cli(monkeypatch, capsys, boot, swipe(EXE) + "\n")
    assert rc == 0, err
    with Session(engine) as s:
        (ev,) = s.scalars(select(EmployeeEvent))
    assert (ev.event, ev.approved_by) == ("bootstrap", None)
    before = written(engine)
    rc, _out, err = run_cli(monkeypatch, capsys, [
        "employees", "add", "--bootstrap", "--number", "X2", "--name", "Ex Two", "--role",
        "executive", "--db", db], swipe(EXE2) + "\n")
    assert rc == 2 and "--bootstrap is refused: the ledger has an active executive (X1)" in err
    assert written(engine) == before


# --- finding 9, second half: a contribution above the pre-configured rate ----------------------

def _above_ceiling_floor(extra: str = "") -> str:
    """The test floor with group LINK's MAIN level pre-configured at 0.15, its rate 0.20."""
    toml = FLOOR_TOML.format(rate="0.20")
    assert 'preconfigured_rate = "0.200"' in toml
    return toml.replace('preconfigured_rate = "0.200"', 'preconfigured_rate = "0.15"', 1) \
        .replace('id = "LINK"', 'id = "LINK"' + extra, 1)


def test_a_contribution_above_the_preconfigured_rate_starts_only_with_an_executives_approval(
        engine: Engine) -> None:
    staff(engine)
    config = loads_floor(_above_ceiling_floor(), "floor.toml")
    with pytest.raises(FloorConfigError) as refused:
        Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER).start()
    msg = str(refused.value)
    assert "group LINK: level MAIN: contribution rate 0.20 is above" in msg
    assert "podium employees approve-contribution --group LINK --level MAIN --rate 0.20" in msg
    with Session(engine) as s:
        assert s.execute(text("SELECT count(*) FROM groups")).scalar() == 0  # nothing written
    approve = contribution.approve_contribution
    with pytest.raises(AuthError, match="needs an executive"):  # a supervisor can not
        approve(engine, "LINK", "MAIN", "0.20", "promotion",
                approval=Credential(swipe(SUP), PINS[SUP]))
    approve(engine, "LINK", "MAIN", "0.25", "another rate",
            approval=Credential(swipe(EXE), PINS[EXE]))
    with pytest.raises(FloorConfigError, match="refused without an executive's recorded"):
        Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER).start()  # not this rate
    done = approve(engine, "LINK", "MAIN", "0.20", "promotion",
                   approval=Credential(swipe(EXE), PINS[EXE]))
    assert done.endswith("approved by executive X1 (Exe Cutive)")
    floor = Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER)
    notes = floor.start()
    assert any("approved by executive X1 (Exe Cutive)" in n for n in notes), notes
    with Session(engine) as s:
        row = s.execute(text("SELECT group_id, level, rate_ppm, approved_by FROM "
                             "contribution_approvals ORDER BY id DESC")).first()
        x1 = s.scalars(select(Employee).where(Employee.number == "X1")).one()
    assert tuple(row) == ("LINK", "MAIN", 200_000, x1.id)
    assert audit.verify(engine).ok


def test_the_floor_file_flag_no_longer_approves_a_rate(engine: Engine) -> None:
    staff(engine)
    with pytest.raises(FloorConfigError) as refused:
        config = loads_floor(_above_ceiling_floor('\ncontribution_override = "X1"'),
                             "floor.toml")
        Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER).start()
    assert "contribution_override: is no longer read" in str(refused.value)
    assert "podium employees approve-contribution" in str(refused.value)


# --- finding 7, the employees command -----------------------------------------------------------

def test_a_card_number_typed_after_employees_check_is_not_echoed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        engine: Engine) -> None:
    rc, out, err = run_cli(monkeypatch, capsys,
                           ["employees", "check", NEW, "--db", db_url(engine)], swipe(SUP))
    assert rc == 2 and out == ""
    assert NEW not in err and err.count("\n") == 1 and "not shown" in err


def test_a_mistyped_card_key_file_is_not_made_by_a_refused_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], engine: Engine,
        tmp_path: Path) -> None:
    staff(engine)
    typo = tmp_path / "typo.key"
    rc, out, err = run_cli(monkeypatch, capsys, [
        "employees", "reset-pin", "--number", "X1", "--reason", "forgot", "--card-key",
        str(typo), "--db", db_url(engine)], approval(EXE2))
    assert rc == 2 and out == "" and err.count("\n") == 1 and "no such file" in err
    assert not typo.exists()


def test_a_refused_first_enrollment_leaves_no_ledger_nor_key(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """``add`` is the one command that makes a ledger: everything it can refuse on a ledger
    that is not there (a bad read, a role other than the bootstrap's) is refused before the
    file or a card key is made."""
    db, key = tmp_path / "new.sqlite3", tmp_path / "new.key"
    base = ["employees", "add", "--number", "1001", "--name", "Dana Reyes", "--db",
            f"sqlite:///{db}", "--card-key", str(key)]
    for argv, stdin, said in (
            ([*base, "--role", "executive", "--bootstrap"], "not a card track\n", "card track"),
            ([*base, "--role", "supervisor"], swipe(SUP), "no such ledger")):
        rc, out, err = run_cli(monkeypatch, capsys, argv, stdin)
        assert rc == 2 and out == "" and err.count("\n") == 1 and said in err, err
        assert sorted(p.name for p in tmp_path.iterdir()) == []
    rc, _out, err = run_cli(monkeypatch, capsys, [*base, "--role", "executive", "--bootstrap"],
                            swipe(EXE))
    assert rc == 0, err
    assert db.exists() and key.exists()


def test_the_fifth_refused_swipe_is_still_one_line(tmp_path: Path) -> None:
    """The card locked at the fifth refusal is said in the refusal's line; the gate's log line
    does not reach the terminal as a second one (a real process: no test logging installed)."""
    cardkey.load()  # the floor's card key is in place (a check never makes one)
    db = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    engine = make_engine(db)
    upgrade(engine)  # a ledger that exists (a check on none is refused before any swipe)
    engine.dispose()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for attempt in range(5):
        done = subprocess.run([sys.executable, "-m", "core.cli", "employees", "check", "--db", db],
                              input=swipe(NEW) + "\n", capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=120, check=False)
        assert done.returncode == 2 and "unknown card" in done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert ("LOCKED" in done.stderr) == (attempt == 4)
