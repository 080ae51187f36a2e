"""Issue 27 point 7: who approves a floor change.  "A change of anything that decides a pay or a
contribution should take effect only once an executive has approved it (swipe and PIN at the
console that starts with it, or a `podium` command an executive runs before a service starts),
recorded with who and when." (docs/operator.md "Approving a floor change")"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from core.app.console import ConsoleCore
from core.cli.employees import pins
from core.floorconfig import FloorConfigError, load_floor, loads_floor
from core.ledger import audit
from core.ledger.models import (
    Employee,
    FloorApproval,
    LevelSetting,
    ParameterChange,
    SwipeLog,
)
from core.people import cardkey
from core.people.auth import AuthError, Credential, add_employee
from core.tablegames import floor_approval
from core.tablegames.floor import Floor
from printing.escpos.slip import PAPER
from tests.core.cli.test_employees_command import db_url, run_cli
from tests.core.people.test_people_trust import EXE, PINS, SUP, approval, staff, swipe
from tests.core.tablegames.test_floor import FLOOR_TOML, PAYTABLES, Clock

SURV, ACCT = "6200000000000007", "6200000000000008"
RATE_LINE = 'contribution_rate = "0.20"\npreconfigured_rate = "0.200"\nreserve_rate = "0.02"\n' \
            '[[groups]]\nid = "LOCK"'


def _floor_file(tmp_path: Path, text_: str) -> Path:
    path = tmp_path / "floor.toml"
    path.write_text(text_, encoding="utf-8")
    return path


def _lower_rate(toml: str) -> str:
    """Group LINK's MAIN level at 0.15 (and its pre-configured rate with it)."""
    assert RATE_LINE in toml
    return toml.replace(RATE_LINE, RATE_LINE.replace('"0.20"', '"0.15"')
                        .replace('"0.200"', '"0.150"'), 1)


def _start(engine: Engine, path: Path) -> list[str]:
    return Floor(engine, load_floor(path), PAYTABLES, clock=Clock(), paper=PAPER).start()


def _counts(engine: Engine) -> tuple[int, int, int]:
    with Session(engine) as s:
        return tuple(int(s.scalar(select(func.count()).select_from(m)) or 0)  # type: ignore
                     for m in (ParameterChange, LevelSetting, FloorApproval))


def _desk_staff(engine: Engine) -> None:
    """A surveillance officer V1 and an accountant A1, each with a PIN of their own."""
    key = cardkey.load()
    with Session(engine) as s, s.begin():
        add_employee(s, key, "V1", "Sur Veil", "surveillance", SURV)
        add_employee(s, key, "A1", "Acc Ount", "accountant", ACCT)
    for number, card in (("V1", SURV), ("A1", ACCT)):
        pins.set_pin(engine, number, swipe(card), None, "2468", key=key)


def test_a_changed_rate_starts_only_once_an_executive_approved_it_with_who_and_when(
        engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The first start is the baseline; a changed contribution rate is refused until an
    executive approves it with `podium floor approve` (card and PIN), recorded with who
    (employee number, name, role), when, the old and new values and the file's hash."""
    staff(engine)
    first = FLOOR_TOML.format(rate="0.20")
    path = _floor_file(tmp_path, first)
    _start(engine, path)  # the commissioning: no approval asked
    second = _lower_rate(first)
    path.write_text(second, encoding="utf-8")
    before = _counts(engine)
    with pytest.raises(FloorConfigError) as refused:
        _start(engine, path)
    msg = str(refused.value)
    assert "\n" not in msg
    assert "level LINK/MAIN contribution_rate: 0.20 -> 0.15" in msg
    assert f"podium floor approve --floor {path}" in msg
    assert _counts(engine) == before  # nothing written: the floor did not start on them

    rc, out, err = run_cli(monkeypatch, capsys, ["floor", "changes", "--floor", str(path),
                                                 "--db", db_url(engine)])
    assert rc == 0 and "level LINK/MAIN contribution_rate: 0.20 -> 0.15" in out, err
    rc, out, err = run_cli(monkeypatch, capsys, [
        "floor", "approve", "--floor", str(path), "--db", db_url(engine), "--reason",
        "promotion"], approval(EXE))
    assert rc == 0, err
    assert "approved by executive X1 (Exe Cutive)" in out
    with Session(engine) as s:
        row = s.scalars(select(FloorApproval)).one()
        swiped = s.get(SwipeLog, row.swipe_id)
    assert (row.employee_number, row.employee_name, row.employee_role, row.via, row.reason) \
        == ("X1", "Exe Cutive", "executive", "command", "promotion")
    assert row.file_sha256 == hashlib.sha256(second.encode()).hexdigest()
    assert {"scope": "level", "subject": "LINK/MAIN", "name": "contribution_rate",
            "old": "0.20", "new": "0.15"} in json.loads(row.changes)
    assert swiped is not None and (swiped.outcome, swiped.action) == ("accepted",
                                                                      "approve_floor")
    assert row.created_at is not None

    notes = _start(engine, path)
    assert any("floor change approved" in n and "executive X1 (Exe Cutive)" in n
               for n in notes), notes
    with Session(engine) as s:
        rates = [r.contribution_rate_ppm for r in s.scalars(
            select(LevelSetting).order_by(LevelSetting.id))]
    assert 150_000 in rates  # the approved rate is in force
    assert _start(engine, path) is not None  # the same file again: nothing to approve

    path.write_text(first, encoding="utf-8")  # back to 0.20: a change like any other
    with pytest.raises(FloorConfigError, match="contribution_rate: 0.15 -> 0.20"):
        _start(engine, path)
    path.write_text(second, encoding="utf-8")  # the file the approval named: in force already
    _start(engine, path)
    assert audit.verify(engine).ok


def test_an_old_approval_does_not_approve_the_same_values_again(engine: Engine,
                                                                 tmp_path: Path) -> None:
    """An approval is of one change from the ledger's values of that moment: 0.20 -> 0.15
    approved and started, then 0.15 -> 0.20 approved and started; going to 0.15 again needs a
    new approval (the first one is not replayed)."""
    staff(engine)
    first = FLOOR_TOML.format(rate="0.20")
    second = _lower_rate(first)
    path = _floor_file(tmp_path, first)
    _start(engine, path)
    key = cardkey.load()
    for text_ in (second, first):
        path.write_text(text_, encoding="utf-8")
        floor_approval.approve(engine, key, load_floor(path),
                               Credential(swipe(EXE), PINS[EXE]), via="command")
        _start(engine, path)
    path.write_text(second, encoding="utf-8")
    with pytest.raises(FloorConfigError, match="not approved by an executive"):
        _start(engine, path)


@pytest.mark.parametrize(("card", "role"), [(SUP, "supervisor"), (SURV, "surveillance"),
                                            (ACCT, "accountant")])
def test_only_an_executive_may_approve(engine: Engine, tmp_path: Path, card: str,
                                       role: str) -> None:
    """A supervisor (who writes pays) and the desks (who read) are refused; nothing is
    recorded but the refused swipe."""
    staff(engine)
    _desk_staff(engine)
    path = _floor_file(tmp_path, FLOOR_TOML.format(rate="0.20"))
    _start(engine, path)
    path.write_text(_lower_rate(FLOOR_TOML.format(rate="0.20")), encoding="utf-8")
    with pytest.raises(AuthError, match="executive"):
        floor_approval.approve(engine, cardkey.load(), load_floor(path),
                               Credential(swipe(card), PINS.get(card, "2468")), via="command")
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(FloorApproval)) == 0
        refused = s.scalars(select(SwipeLog).where(SwipeLog.action == "approve_floor")).all()
    assert refused and all(r.outcome != "accepted" for r in refused)
    with pytest.raises(FloorConfigError, match="not approved"):
        _start(engine, path)


def test_a_file_saying_no_pin_does_not_approve_itself_with_a_swipe_alone(
        engine: Engine, tmp_path: Path) -> None:
    """The approval asks the executive's PIN whatever the file being approved says (this
    test floor says ``pin = "none"``)."""
    staff(engine)
    base = FLOOR_TOML.format(rate="0.20")
    assert 'pin = "none"' in base
    path = _floor_file(tmp_path, base)
    _start(engine, path)
    path.write_text(_lower_rate(base), encoding="utf-8")
    with pytest.raises(AuthError, match="PIN"):
        floor_approval.approve(engine, cardkey.load(), load_floor(path),
                               Credential(swipe(EXE), ""), via="command")
    with pytest.raises(FloorConfigError, match="not approved"):
        _start(engine, path)
    path.write_text(base.replace('pin = "none"', 'pin = "every_swipe"'), encoding="utf-8")
    with pytest.raises(FloorConfigError, match="authorization floor pin: none -> every_swipe"):
        _start(engine, path)  # the people controls decide who may authorize a pay


def test_a_change_that_decides_no_pay_needs_no_approval(engine: Engine, tmp_path: Path) -> None:
    """A table's name or port is recorded, not approved."""
    base = FLOOR_TOML.format(rate="0.20")
    path = _floor_file(tmp_path, base)
    _start(engine, path)
    assert "port = 17304" in base
    path.write_text(base.replace("port = 17304", "port = 17314"), encoding="utf-8")
    notes = _start(engine, path)
    assert any("table L2 port 17304 -> 17314" in n for n in notes), notes


def test_a_poker_room_rule_change_needs_an_approval(engine: Engine, tmp_path: Path) -> None:
    """The poker room's rules decide a share: six players instead of five is a change."""
    base = FLOOR_TOML.format(rate="0.20")
    path = _floor_file(tmp_path, base)
    _start(engine, path)
    path.write_text(base + "\n[poker_room]\nmin_players = 6\n", encoding="utf-8")
    with pytest.raises(FloorConfigError, match="poker_room room min_players: 5 -> 6"):
        _start(engine, path)


def test_the_console_asks_for_the_swipe_and_pin_when_it_starts_on_a_change(
        engine: Engine, tmp_path: Path) -> None:
    """At the console that starts with it: the changes are shown, the executive swipes and
    types the PIN, the approval is recorded as the console's; no swipe: it does not start."""
    staff(engine)
    first = FLOOR_TOML.format(rate="0.20")
    path = _floor_file(tmp_path, first)
    _start(engine, path)
    path.write_text(_lower_rate(first), encoding="utf-8")
    config = load_floor(path)
    shown: list[floor_approval.Pending] = []

    def declined(p: floor_approval.Pending, record: floor_approval.Record) -> bool:
        shown.append(p)
        with pytest.raises(AuthError):  # a supervisor's card: refused, shown, asked again
            record(Credential(swipe(SUP), PINS[SUP]))
        return False

    def approved(p: floor_approval.Pending, record: floor_approval.Record) -> bool:
        assert "approved by executive X1" in record(Credential(swipe(EXE), PINS[EXE]))
        return True

    console = ConsoleCore(engine, config, PAYTABLES, paper=PAPER)
    try:
        with pytest.raises(FloorConfigError, match="not approved by an executive"):
            console.start(links=False, approve=declined)
    finally:
        console.stop()
    assert [c.name for c in shown[0].changes] == ["contribution_rate", "preconfigured_rate"]
    console = ConsoleCore(engine, config, PAYTABLES, paper=PAPER)
    try:
        notes = console.start(links=False, approve=approved)
    finally:
        console.stop()
    assert any("via console" in n for n in notes), notes
    with engine.connect() as conn:
        assert conn.execute(text("SELECT via, employee_number FROM floor_approvals")
                            ).one() == ("console", "X1")


def test_loads_floor_is_still_free_of_the_ledger() -> None:
    """The floor file is read without a ledger: the gate is the start's."""
    assert loads_floor(FLOOR_TOML.format(rate="0.20"), "x.toml").source == "x.toml"


def test_an_approval_row_written_without_an_executives_swipe_does_not_start_the_floor(
        engine: Engine, tmp_path: Path) -> None:
    """Thinking like an attacker who can write rows as the application does: an approval
    naming executive X1 but carrying another swipe (X1's own PIN setting, or a supervisor's) is
    not taken; nor is one naming a supervisor.  The start asks for X1's accepted swipe to
    approve_floor."""
    staff(engine)
    first = FLOOR_TOML.format(rate="0.20")
    path = _floor_file(tmp_path, first)
    _start(engine, path)
    path.write_text(_lower_rate(first), encoding="utf-8")
    config = load_floor(path)
    p = floor_approval.pending_for(engine, config)
    with Session(engine) as s, s.begin():
        ids = {e.number: e.id for e in s.scalars(select(Employee))}
        x1_swipe = s.scalar(select(SwipeLog.id).where(SwipeLog.employee_id == ids["X1"]))
        s1_swipe = s.scalar(select(SwipeLog.id).where(SwipeLog.employee_id == ids["S1"]))
        for who, role, swipe_id in (("X1", "executive", x1_swipe), ("X1", "executive", s1_swipe),
                                    ("S1", "executive", s1_swipe)):
            assert swipe_id is not None
            s.add(FloorApproval(
                created_at=datetime.now(UTC), approved_by=ids[who], employee_number=who,
                employee_name="forged", employee_role=role, via="command", swipe_id=swipe_id,
                source=config.source, file_sha256=config.sha256, values_sha256=p.values_sha256,
                base_change_id=p.base_change_id, changes="[]", reason="", operator="x"))
    with pytest.raises(FloorConfigError, match="not approved by an executive"):
        _start(engine, path)


def test_a_desk_login_can_not_write_an_approval(engine: Engine) -> None:
    """PostgreSQL: the desks' role (podium_reader) holds SELECT only on floor_approvals; the
    floor's writer may insert one but never change or delete it (append-only)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("database roles: PostgreSQL")
    import psycopg

    from core.ledger import guards
    from tests.core.ledger.test_audit import attacker

    row = ("INSERT INTO floor_approvals (created_at, approved_by, employee_number, "
           "employee_name, employee_role, via, swipe_id, source, file_sha256, values_sha256, "
           "base_change_id, changes, reason, operator) VALUES (now(), 1, 'X', 'X', "
           "'executive', 'command', 1, 'f', 'h', 'v', 0, '[]', '', 'x')")
    with attacker(engine, guards.READER_ROLE) as run, \
            pytest.raises(psycopg.errors.InsufficientPrivilege):
        run(row)
    for sql in ("UPDATE floor_approvals SET employee_number = 'Y'",
                "DELETE FROM floor_approvals"):
        with attacker(engine, guards.WRITER_ROLE) as run, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            run(sql)
