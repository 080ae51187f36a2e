"""People controls (issue 12): the card key, PINs, lockout, separation of duties and the log of
every refusal, on the test floor with the safe defaults of ``[authorization]``
(core/floorconfig/, core/people/auth.py)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, select, text
from sqlalchemy.orm import Session

from core.controllers.events import GameStarted, HitClaimed
from core.floorconfig import loads_floor
from core.ledger.db import reader
from core.ledger.models import (
    Award,
    CardLock,
    Employee,
    EmployeeEvent,
    MeterEntry,
    Setting,
    SwipeLog,
)
from core.ledger.people import record_event
from core.people import cardkey
from core.people.auth import (
    PBKDF2_ITERATIONS,
    AuthError,
    Credential,
    add_employee,
    legacy_card_hash,
    pin_hash,
)
from core.people.cardkey import CardKeyError
from core.tablegames.floor import Floor
from core.tablegames.views import FloorError
from printing.escpos.slip import PAPER
from tests.core.tablegames.test_floor import (
    FLOOR_TOML,
    HANDS,
    PAYTABLES,
    Clock,
    Table,
    counts,
    hit_ids,
    swipe,
)

SUP, SUP2, EXE, EXE2, ACC = ("6100000000000001", "6100000000000002", "6100000000000003",
                             "6100000000000004", "6100000000000005")
PINS = {SUP: "1357", SUP2: "2468", EXE: "7531", EXE2: "8642"}
# the floor's own defaults: the test floor's relaxations taken out
DEFAULTS_TOML = "\n".join(line for line in FLOOR_TOML.splitlines()
                          if not line.startswith(("pin =", "separate_verifier_at",
                                                  "adjustment_second_executive_at", "# one")))


def with_pin(card: str, pin: str | None = None) -> Credential:
    return Credential(swipe(card), PINS[card] if pin is None else pin)


def people_floor(engine: Engine, extra: str = "") -> Floor:
    toml = DEFAULTS_TOML.replace('executive_threshold = "5000.00"',
                                 'executive_threshold = "5000.00"\n' + extra)
    config = loads_floor(toml.format(rate="0.20"), "people.toml")
    f = Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER)
    f.start()
    for t in ("T1", "T2"):
        f.set_link(t, True)
    key = cardkey.load()
    with Session(engine) as s, s.begin():
        for card, number, name, role in ((SUP, "S1", "Sue Visor", "supervisor"),
                                         (SUP2, "S2", "Sam Second", "supervisor"),
                                         (EXE, "X1", "Exe Cutive", "executive"),
                                         (EXE2, "X2", "Ex Two", "executive"),
                                         (ACC, "A1", "Acc Ountant", "accountant")):
            emp = add_employee(s, key, number, name, role, card)
            if card in PINS:
                s.flush()
                emp.pin = pin_hash(key, emp.id, PINS[card])
                record_event(s, emp, "pin_set", operator="test", when=emp.created_at)
    return f


@pytest.fixture
def floor(engine: Engine) -> Floor:
    return people_floor(engine)


def hit(floor: Floor, engine: Engine, hand: str, seat: int = 2) -> int:
    """A new round on T1 with a wager on ``seat`` and a hit claimed there."""
    tables: dict[str, Table] = floor.__dict__.setdefault("_test_tables", {})
    t = tables.setdefault("T1", Table(floor, "T1"))
    round_no = t.seq // 2 + 1
    t.send(GameStarted(round_no, {seat: 100}))
    t.send(HitClaimed(round_no, seat, hand))
    return hit_ids(engine)[-1]


def last_swipes(engine: Engine, n: int) -> list[SwipeLog]:
    with Session(engine) as s:
        rows = list(s.scalars(select(SwipeLog).order_by(SwipeLog.id.desc()).limit(n)))
    return list(reversed(rows))


# --- the card key --------------------------------------------------------------------------

def test_the_card_key_is_made_once_owner_only_and_a_shared_or_damaged_one_is_refused(
        tmp_path: Path) -> None:
    path = tmp_path / "conf" / "card.key"
    key = cardkey.load(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert cardkey.load(path).card_mac("1234") == key.card_mac("1234")  # made once, kept
    assert "secret" not in repr(key) and key.secret.hex() not in repr(key)
    os.chmod(path, 0o644)
    with pytest.raises(CardKeyError, match=r"others may read.*chmod 600"):
        cardkey.load(path)
    os.chmod(path, 0o600)
    path.write_text("not hex\n")
    with pytest.raises(CardKeyError, match="not a card key"):
        cardkey.load(path)
    with pytest.raises(CardKeyError, match="no such file"):
        cardkey.load(tmp_path / "missing.key", create=False)


def test_a_stolen_ledger_alone_reveals_no_card(engine: Engine, floor: Floor) -> None:
    """What a copy of the ledger holds for a card is its HMAC under a key that is not in the
    ledger: trying every card number with the twelve first digits known (what took 11 s
    against the salted PBKDF2 of before) finds nothing without the key, and the card with
    it."""
    with Session(engine) as s:
        kept = {e.card_mac for e in s.scalars(select(Employee))}
        settings = {r.key: r.value for r in s.scalars(select(Setting))}
    assert None not in kept
    assert "install_salt" not in settings  # no salt beside the hashes any more
    assert settings["card_key_id"] == cardkey.load().key_id()  # a fingerprint, not the key
    assert cardkey.load().secret.hex() not in str(settings)
    prefix = SUP[:12]
    guesses = [f"{prefix}{n:04d}" for n in range(10_000)]
    for guess_key in (cardkey.ephemeral(), cardkey.CardKey(hashlib.sha256(b"").digest())):
        assert not any(guess_key.card_mac(g) in kept for g in guesses)
    assert sum(cardkey.load().card_mac(g) in kept for g in guesses) >= 1  # the key does it


def test_identifying_a_card_is_one_indexed_lookup_whatever_the_number_of_employees(
        engine: Engine, floor: Floor) -> None:
    statements: list[str] = []

    def note(conn: object, cursor: object, statement: str, *args: object) -> None:
        if "employees" in statement:
            statements.append(statement)

    read = reader(engine)

    def reads(card: str) -> int:
        statements.clear()
        event.listen(read, "before_cursor_execute", note)
        try:
            with contextlib.suppress(AuthError):
                floor.ctx.gate.identify(swipe(card))
        finally:
            event.remove(read, "before_cursor_execute", note)
        return len(statements)

    few_known, few_unknown = reads(SUP), reads("6199999999999999")
    key = cardkey.load()
    with Session(engine) as s, s.begin():
        for i in range(300):
            add_employee(s, key, f"E{i}", f"Person {i}", "supervisor", f"62{i:014d}")
    assert (reads(SUP), reads("6199999999999999")) == (few_known, few_unknown)
    with Session(engine) as s:
        plan = " ".join(str(r) for r in s.execute(text(
            "EXPLAIN QUERY PLAN SELECT id FROM employees WHERE card_mac = x'00'"
            if engine.dialect.name == "sqlite" else
            "EXPLAIN SELECT id FROM employees WHERE card_mac = '\\x00'::bytea")))
    assert "uq_employees_card_mac" in plan or "Index" in plan


def test_a_swipe_is_identified_while_another_podium_holds_the_write_lock(
        engine: Engine, floor: Floor) -> None:
    """Identification reads (and checks the PIN) outside the ledger's write lock: it does not
    wait for a long write transaction."""
    if engine.dialect.name != "sqlite":
        pytest.skip("the SQLite write lock (one writer); PostgreSQL readers never wait")
    holder = engine.connect()
    tx = holder.begin()  # the ledger engine begins with BEGIN IMMEDIATE: the write lock
    try:
        done: list[object] = []
        th = threading.Thread(target=lambda: done.append(
            floor.ctx.gate.identify(with_pin(EXE))))
        th.start()
        th.join(10)
        assert done and getattr(done[0], "number", None) == "X1" and done[0].pin_checked
    finally:
        tx.rollback()
        holder.close()


def test_an_enrolment_from_before_the_key_is_rekept_on_its_first_swipe(
        engine: Engine, floor: Floor) -> None:
    """Migration by re-swipe: a PBKDF2 enrolment (revision 0014) is found the slow way once,
    then kept as its HMAC with its old hash erased and an employee event saying so."""
    install = bytes(range(16))
    salt = bytes(range(16, 32))
    with Session(engine) as s, s.begin():
        s.add(Setting(key="install_salt", value=install.hex()))
        old = Employee(number="OLD1", name="Old Timer", role="supervisor", active=True,
                       card_salt=salt, card_hash=legacy_card_hash("6300000000000001", salt,
                                                                  install, PBKDF2_ITERATIONS),
                       card_iterations=PBKDF2_ITERATIONS, created_at=floor.ctx.now())
        s.add(old)
        # what revision 0022 writes for every employee of an existing ledger
        record_event(s, old, "baseline", operator="podium upgrade", when=floor.ctx.now())
    who = floor.ctx.gate.identify(swipe("6300000000000001"))
    assert who.number == "OLD1"
    with Session(engine) as s:
        emp = s.scalars(select(Employee).where(Employee.number == "OLD1")).one()
        assert emp.card_mac == cardkey.load().card_mac("6300000000000001")
        assert (emp.card_hash, emp.card_salt, emp.card_iterations) == (b"", b"", 0)
        events = [e.event for e in s.scalars(select(EmployeeEvent)
                                             .where(EmployeeEvent.employee_id == emp.id))]
    assert events == ["baseline", "card_rekeyed"]
    assert floor.ctx.gate.identify(swipe("6300000000000001")).number == "OLD1"


# --- PIN -----------------------------------------------------------------------------------

def test_an_executive_pay_needs_the_pin_after_the_swipe(engine: Engine, floor: Floor) -> None:
    h = hit(floor, engine, "RF_ROYAL_MATCH")  # 50% of 10,000: executive, one person
    cards = HANDS["RF_ROYAL_MATCH"].split()
    before = counts(engine)
    with pytest.raises(AuthError, match="needs the PIN") as no_pin:
        floor.pay(h, cards, swipe(EXE))
    assert no_pin.value.outcome == "pin_missing"
    with pytest.raises(AuthError, match="wrong PIN") as wrong:
        floor.pay(h, cards, with_pin(EXE, "0000"))
    assert wrong.value.outcome == "wrong_pin" and "0000" not in str(wrong.value)
    after = counts(engine)
    assert after.pop("swipe_log") == before.pop("swipe_log") + 2 and after == before
    logged = last_swipes(engine, 2)
    assert [(r.outcome, r.action, r.role_required) for r in logged] == [
        ("pin_missing", "pay", "executive"), ("wrong_pin", "pay", "executive")]
    assert all(r.employee_id is not None and r.reason and r.card_mac for r in logged)
    paid = floor.pay(h, cards, with_pin(EXE))
    assert paid.authorized_by == "X1"
    # a supervisor-level pay asks no PIN by default
    h2 = hit(floor, engine, "FIVE_ACES", seat=3)
    assert floor.pay(h2, HANDS["FIVE_ACES"].split(), swipe(SUP)).authorized_by == "S1"


def test_every_swipe_asks_the_pin_when_the_floor_says_so(engine: Engine) -> None:
    floor = people_floor(engine, 'pin = "every_swipe"')
    h = hit(floor, engine, "FIVE_ACES")
    with pytest.raises(AuthError, match="needs the PIN"):
        floor.pay(h, HANDS["FIVE_ACES"].split(), swipe(SUP))
    assert floor.pay(h, HANDS["FIVE_ACES"].split(), with_pin(SUP)).authorized_by == "S1"


# --- lockout -------------------------------------------------------------------------------

def test_a_card_is_locked_after_five_refusals_until_an_executive_lifts_it(
        engine: Engine, floor: Floor) -> None:
    h = hit(floor, engine, "RF_ROYAL_MATCH")
    cards = HANDS["RF_ROYAL_MATCH"].split()
    for attempt in range(1, 6):  # a supervisor trying an executive pay, five times
        with pytest.raises(AuthError) as exc:
            floor.pay(h, cards, swipe(SUP))
        assert exc.value.outcome == "insufficient_authority"
        assert ("LOCKED" in str(exc.value)) == (attempt == 5)
    # now even what the card may do is refused, and logged
    h2 = hit(floor, engine, "FIVE_ACES", seat=3)
    with pytest.raises(AuthError, match="card locked") as locked:
        floor.pay(h2, HANDS["FIVE_ACES"].split(), swipe(SUP))
    assert locked.value.outcome == "locked"
    assert last_swipes(engine, 1)[0].outcome == "locked"
    # a supervisor can not lift it; an executive (with the PIN) can, and the card works again
    with pytest.raises(AuthError, match="needs an executive"):
        floor.lift_lock(None, "S1", swipe(SUP2), "called the floor manager")
    with pytest.raises(ValueError, match="give a reason"):
        floor.lift_lock(None, "S1", with_pin(EXE), "")
    assert "lock lifted by employee X1" in floor.lift_lock(None, "S1", with_pin(EXE),
                                                            "tried the wrong hit")
    with pytest.raises(ValueError, match="is not locked"):
        floor.lift_lock(None, "S1", with_pin(EXE), "again")
    assert floor.pay(h2, HANDS["FIVE_ACES"].split(), swipe(SUP)).authorized_by == "S1"
    with Session(engine) as s:
        events = [(r.event, r.by_employee_id is not None)
                  for r in s.scalars(select(CardLock).order_by(CardLock.id))]
    assert events == [("locked", False), ("lifted", True)]


def test_an_unknown_card_is_locked_too_and_refusals_outside_the_window_do_not_count(
        engine: Engine, floor: Floor) -> None:
    clock = floor.ctx.clock
    assert isinstance(clock, Clock)
    stranger = swipe("6999999999999999")
    for _ in range(4):
        with pytest.raises(AuthError, match="unknown card"):
            floor.check_swipe(stranger, "supervisor", "adjust")
    clock.now += timedelta(minutes=11)  # the four are older than lockout_minutes now
    for _ in range(4):
        with pytest.raises(AuthError, match="unknown card") as exc:
            floor.check_swipe(stranger, "supervisor", "adjust")
        assert "LOCKED" not in str(exc.value)
    with pytest.raises(AuthError, match="LOCKED"):
        floor.check_swipe(stranger, "supervisor", "adjust")
    with pytest.raises(AuthError, match="card locked"):
        floor.check_swipe(stranger, "supervisor", "adjust")
    assert "the card: lock lifted" in floor.lift_lock(stranger, None, with_pin(EXE2), "lost card")


# --- separation of duties ------------------------------------------------------------------

def test_a_large_pay_is_verified_by_one_person_and_authorized_by_another(
        engine: Engine, floor: Floor) -> None:
    h = hit(floor, engine, "SF7_NATURAL")  # 100% of 10,000.20: at the separation amount
    cards = HANDS["SF7_NATURAL"].split()
    v = floor.evaluate(h, cards)
    assert v.verifier_needed and v.required_role == "executive"
    before = counts(engine)
    with pytest.raises(FloorError, match="verified by one person and authorized by another"):
        floor.pay(h, cards, with_pin(EXE))
    with pytest.raises(AuthError, match="two people") as same:
        floor.pay(h, cards, with_pin(EXE), verifier=swipe(EXE))
    assert same.value.outcome == "same_person"
    after = counts(engine)
    assert after.pop("swipe_log") == before.pop("swipe_log") + 2 and after == before
    paid = floor.pay(h, cards, with_pin(EXE), verifier=swipe(SUP))
    with Session(engine) as s:
        award = s.scalars(select(Award)).one()
        verifier = s.get(Employee, award.verified_by)
        authorizer = s.get(Employee, award.authorized_by)
        assert (verifier.number, authorizer.number) == ("S1", "X1")
    assert paid.authorized_by == "X1"
    logged = last_swipes(engine, 2)
    assert [(r.outcome, r.action) for r in logged] == [("accepted", "verify"),
                                                       ("accepted", "pay")]


def test_rejecting_needs_the_authority_paying_would(engine: Engine, floor: Floor) -> None:
    h = hit(floor, engine, "RF_ROYAL_MATCH")
    assert floor.evaluate(h, HANDS["RF_ROYAL_MATCH"].split()).reject_role == "executive"
    with pytest.raises(AuthError, match="can not authorize a rejection: it needs an executive"):
        floor.reject(h, "looks wrong", swipe(SUP))
    with pytest.raises(FloorError, match="give a reason"):
        floor.reject(h, "  ", with_pin(EXE))
    floor.reject(h, "cards switched", with_pin(EXE))
    logged = last_swipes(engine, 3)
    assert [(r.outcome, r.role_required) for r in logged] == [
        ("insufficient_authority", "executive"), ("refused", "executive"),
        ("accepted", "executive")]
    assert "give a reason" in (logged[1].reason or "") and logged[1].employee_id is not None
    h2 = hit(floor, engine, "FIVE_ACES", seat=3)
    floor.reject(h2, "no such hand", swipe(SUP))  # a supervisor-level hit


def test_a_large_adjustment_needs_a_second_executive_and_two_people(
        engine: Engine, floor: Floor) -> None:
    with pytest.raises(AuthError, match="needs an executive"):
        floor.adjust("LINK", "MAIN", 1_000_000, "count correction", with_pin(EXE), swipe(SUP))
    floor.adjust("LINK", "MAIN", 999_999, "count correction", with_pin(EXE), swipe(SUP))
    floor.adjust("LINK", "MAIN", -1_000_000, "count correction", with_pin(EXE),
                 with_pin(EXE2))
    with pytest.raises(FloorError, match="at most"):
        floor.adjust("LINK", "MAIN", 10**15, "typo", with_pin(EXE), with_pin(EXE2))
    with Session(engine) as s:
        rows = list(s.scalars(select(MeterEntry).where(MeterEntry.kind == "adjustment")))
    assert len(rows) == 2
    assert last_swipes(engine, 1)[0].outcome == "refused"


def test_one_person_enrolled_twice_does_not_sign_as_two(engine: Engine, floor: Floor) -> None:
    key = cardkey.load()
    with Session(engine) as s, s.begin():
        add_employee(s, key, "X9", "  exe   CUTIVE ", "supervisor", "6100000000000099")
    with pytest.raises(AuthError, match="both Exe Cutive") as same:
        floor.adjust("LINK", "MAIN", 100, "fix", with_pin(EXE), swipe("6100000000000099"))
    assert same.value.outcome == "same_person"


def test_refusals_decided_after_the_swipe_are_logged_with_who_and_why(
        engine: Engine, floor: Floor) -> None:
    h = hit(floor, engine, "FIVE_ACES")
    floor.pay(h, HANDS["FIVE_ACES"].split(), swipe(SUP))
    with pytest.raises(FloorError, match="already paid"):
        floor.pay(h, HANDS["FIVE_ACES"].split(), swipe(SUP2))
    with pytest.raises(FloorError, match="negative"):
        floor.adjust("LINK", "MAIN", -5_000_000, "too much", with_pin(EXE), with_pin(EXE2))
    with pytest.raises(FloorError, match="give a reason"):
        floor.adjust("LINK", "MAIN", 100, "", with_pin(EXE), swipe(SUP))
    logged = last_swipes(engine, 3)
    with Session(engine) as s:
        who = [s.get(Employee, r.employee_id).number for r in logged]  # type: ignore[union-attr]
    assert [(r.outcome, r.action) for r in logged] == [("refused", "pay"),
                                                       ("refused", "adjust"),
                                                       ("refused", "adjust")]
    assert who == ["S2", "X1", "X1"]
    assert "already paid" in (logged[0].reason or "")
    assert "negative" in (logged[1].reason or "")
    assert "give a reason" in (logged[2].reason or "")


# --- the floor file's [authorization] --------------------------------------------------------

def test_the_people_controls_are_floor_settings_with_safe_defaults(tmp_path: Path) -> None:
    config = loads_floor(DEFAULTS_TOML.format(rate="0.20"), "people.toml")
    a = config.authorization
    assert (a.pin, a.lockout_failures, a.lockout_minutes, a.separate_verifier_cents,
            a.adjustment_second_executive_cents, a.card_key) == (
        "executive", 5, 10, 1_000_000, 1_000_000, "")
    assert a.pin_needed("executive") and not a.pin_needed("supervisor")
    toml = DEFAULTS_TOML.replace('executive_threshold = "5000.00"',
                                 'executive_threshold = "5000.00"\ncard_key = "keys/card.key"\n'
                                 'pin = "every_swipe"\nlockout_failures = 3\n'
                                 'separate_verifier_at = "2,500.00"')
    b = loads_floor(toml.format(rate="0.20"), "people.toml", tmp_path).authorization
    assert (b.card_key, b.pin, b.lockout_failures, b.separate_verifier_cents) == (
        str(tmp_path / "keys" / "card.key"), "every_swipe", 3, 250_000)
    assert b.pin_needed("supervisor") and b.pin_needed(None)
    for bad, words in (('pin = "sometimes"', "must be one of"),
                       ("lockout_failures = 0", "between 1 and 1000"),
                       ('separate_verifier_at = "1e30"', "separate_verifier_at"),
                       ('adjustment_second_executive_at = "0"', "more than 0.00"),
                       ("lockout_minutes = true", "whole number")):
        with pytest.raises(ValueError, match=words):
            loads_floor(DEFAULTS_TOML.replace('executive_threshold = "5000.00"',
                                              f'executive_threshold = "5000.00"\n{bad}')
                        .format(rate="0.20"), "people.toml")


def test_a_refused_lift_and_a_refused_verifier_are_logged_with_who_and_what(
        engine: Engine, floor: Floor) -> None:
    with pytest.raises(ValueError, match="give a reason"):
        floor.lift_lock(None, "S1", with_pin(EXE), "  ")
    with pytest.raises(ValueError, match="is not locked"):
        floor.lift_lock(None, "S1", with_pin(EXE), "just in case")
    logged = last_swipes(engine, 2)
    assert [(r.outcome, r.action) for r in logged] == [("refused", "unlock")] * 2
    with Session(engine) as s:
        assert {s.get(Employee, r.employee_id).number for r in logged} == {"X1"}  # type: ignore[union-attr]
    h = hit(floor, engine, "SF7_NATURAL")
    with pytest.raises(AuthError, match="may not authorize the verification"):
        floor.pay(h, HANDS["SF7_NATURAL"].split(), with_pin(EXE), verifier=swipe(ACC))
    (row,) = last_swipes(engine, 1)
    assert (row.outcome, row.action, row.role_required) == (
        "insufficient_authority", "verify", "supervisor")


def test_the_upgrade_to_0015_is_not_undone_once_cards_are_keyed(engine: Engine,
                                                                floor: Floor) -> None:
    from alembic import command

    from core.ledger.db import alembic_config

    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        # since revision 0024 (state rows chained whole), 0022 (people events) and 0021 (batch
        # links) the chain refuses first (0025, the claims' leases, goes down before it);
        # 0015's own refusal is reached from 0015
        with pytest.raises(RuntimeError, match="revision 0024 can not be downgraded"):
            command.downgrade(cfg, "0014")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0024"
