"""``podium employees add|list|deactivate|reactivate|check``: enroll the people who swipe.

A casino enrolls its own supervisors, executives, surveillance officers and accountants here;
the console only knows the demo employees otherwise.  The card is never typed on the command
line (it would land in the shell history): ``add`` and ``check`` read ONE line of track data
from stdin, as a keyboard-wedge reader types it, without echo when stdin is a terminal and
plainly from a pipe (scripted enrollment).  Only the salted hash of the card number is stored
(core/auth.py); track data and card numbers are never printed, logged or put in a message.

Ledger records:

- ``add``: the employee row and an ``accepted`` ``enroll`` row in ``swipe_log`` (the enrollment
  swipe, append-only evidence of who was enrolled when), in one transaction.  A refused
  enrollment (bad read, number or card already enrolled) writes nothing.
- ``check``: one ``swipe_log`` row with action ``check`` and the outcome (accepted,
  unknown_card, inactive, bad_read); it changes nothing else.
- ``deactivate`` / ``reactivate``: the ``employees.active`` flag, which is the one column
  Podium updates in place.  There is no append-only home for that change yet (docs/ledger.md):
  it needs an ``employee_events`` table.

--db defaults to the ledger the console uses (:func:`core.ledger.db.default_url`); the schema is
brought up to date first, as the console does.  Bad input raises a ``ValueError`` subclass
(:class:`EmployeeError`, :class:`core.auth.AuthError`) that ``core.cli.dispatch`` turns into one
line on stderr and exit status 2; so does a ledger that cannot be opened (its URL shown without the
password).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO, TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from core import cardkey
from core.auth import (
    CARD_KEY_ID,
    AuthError,
    Credential,
    Gate,
    add_employee,
    check_pin_text,
    default_policy,
    find_by_card,
    has_authority,
    log_swipe,
    note_key,
    parse_swipe,
    pin_hash,
    set_card,
)
from core.cardkey import CardKey, CardKeyError
from core.floorconfig import Authorization, FloorConfigError, load_floor
from core.ledger.db import default_url, make_engine, upgrade
from core.ledger.models import ROLES, Employee, EmployeeEvent, Setting
from core.text import printable

SUBCOMMANDS: dict[str, str] = {
    "add": "enroll an employee and the card they swipe (read from stdin, never echoed)",
    "list": "list the enrolled employees (never card data)",
    "deactivate": "stop an employee's card from authorizing anything",
    "reactivate": "let a deactivated employee's card authorize again",
    "check": "swipe a card: who it is and what they may authorize (logged as a check)",
    "replace-card": "give an employee a new card (a lost or broken one): the old card stops "
                    "authorizing at once",
    "set-pin": "set an employee's PIN (swipe their card, then type the new PIN twice)",
    "reset-pin": "clear a forgotten PIN (the employee then sets a new one with set-pin)",
    "unlock": "lift the lock of a card locked after too many refused swipes (an executive's "
              "card and PIN)",
}

T = TypeVar("T")


class EmployeeError(ValueError):
    """An employee command the ledger refuses; the message names the employee and the problem."""


@dataclass(frozen=True)
class EmployeeRecord:
    """What the command line shows of an employee (never the card)."""

    number: str
    name: str
    role: str
    active: bool
    enrolled_at: datetime
    pin: bool = False  # a PIN is set
    keyed: bool = True  # the card is kept as its keyed hash (False: swipe it once to re-keep it)

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "name": self.name, "role": self.role,
                "active": self.active, "enrolled_at": _utc_text(self.enrolled_at),
                "pin": self.pin, "card": "keyed" if self.keyed else "re-swipe needed"}


def _record(emp: Employee) -> EmployeeRecord:
    return EmployeeRecord(emp.number, emp.name, emp.role, bool(emp.active), emp.created_at,
                          emp.pin is not None, emp.card_mac is not None)


def _utc_text(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def authority_text(role: str) -> str:
    """What a card of ``role`` may authorize at the podium (core/auth.py, core/floor.py)."""
    if has_authority(role, "executive"):
        return ("may authorize every pay (supervisor and executive level), reject a hit, and "
                "sign a manual meter adjustment as the executive or as the second card")
    if has_authority(role, "supervisor"):
        return ("may authorize pays that need a supervisor (not those that need an executive), "
                "reject a hit, and be the second card of a manual meter adjustment")
    return "may not authorize anything (no pays, rejections or adjustments)"


# --- the ledger operations (usable from a script or a test) ------------------------------------

def _number(number: str) -> str:
    text = str(number).strip()
    if not text:
        raise EmployeeError("employee number: empty")
    return text


def _lock_enrollment(session: Session) -> None:
    """Serialize enrollments (the UNIQUE ``card_mac`` index catches a card enrolled twice at
    once; this keeps the same-name check honest too).  SQLite already holds the write lock
    (BEGIN IMMEDIATE); PostgreSQL locks the card key's row."""
    session.execute(select(Setting).where(Setting.key == CARD_KEY_ID).with_for_update())


def _ensure_key_noted(engine: Engine, key: CardKey) -> None:
    """Record the card key's fingerprint (core/auth.py) in its own transaction, so that the
    enrollment transaction can lock its row; AuthError for another key than the ledger's."""
    try:
        with Session(engine) as s, s.begin():
            note_key(s, key)
    except IntegrityError:  # another podium noted it at the same moment: check theirs
        with Session(engine) as s, s.begin():
            note_key(s, key)


def _key(key: CardKey | None) -> CardKey:
    return key if key is not None else cardkey.load()


def namesakes(engine: Engine, name: str, role: str) -> list[EmployeeRecord]:
    """Active employees enrolled with this name (case and spaces aside) and role: enrolling
    the same person twice would let one person sign as two."""
    wanted = " ".join(name.casefold().split())
    with Session(engine) as s:
        return [_record(e) for e in s.scalars(select(Employee).where(
            Employee.role == role, Employee.active.is_(True)).order_by(Employee.number))
            if " ".join(e.name.casefold().split()) == wanted]


def number_is_free(engine: Engine, number: str) -> None:
    """EmployeeError if ``number`` is already enrolled (checked before asking for the swipe)."""
    number = _number(number)
    with Session(engine) as s:
        if s.scalar(select(Employee.id).where(Employee.number == number)) is not None:
            raise EmployeeError(f"employee {number}: already enrolled")


def enroll(engine: Engine, number: str, name: str, role: str, swipe: str,
           *, now: datetime | None = None, key: CardKey | None = None,
           same_name_ok: bool = False) -> EmployeeRecord:
    """Enroll an employee with the card in ``swipe`` (track data), in one transaction with an
    ``accepted`` ``enroll`` swipe_log row.  AuthError/EmployeeError for a bad role, name,
    number, read, a number or card already enrolled, or (unless ``same_name_ok``) an active
    employee of the same name and role; nothing is written then."""
    key = _key(key)
    card = parse_swipe(swipe)
    when = now or datetime.now(UTC)
    _ensure_key_noted(engine, key)
    if not same_name_ok:
        twins = namesakes(engine, name, role)
        if twins:
            raise EmployeeError(
                f"employee {str(number).strip()}: {', '.join(t.number for t in twins)} is "
                f"already enrolled as {twins[0].name} ({role}); one person is one employee "
                "number (replace-card gives them a new card). If this is another person of "
                "the same name, enroll again with --same-name-ok")
    try:
        with Session(engine) as s, s.begin():
            _lock_enrollment(s)
            emp = add_employee(s, key, number, name, role, card, now=when)
            log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="enroll",
                      role_required=None, now=when, card_mac=emp.card_mac)
            s.add(EmployeeEvent(employee_id=emp.id, event="enrolled", reason="",
                                operator=_operator(), created_at=when))
            return _record(emp)
    except IntegrityError:  # the UNIQUE employee number, taken between check and insert
        raise EmployeeError(f"employee {str(number).strip()}: already enrolled") from None


def list_employees(engine: Engine) -> list[EmployeeRecord]:
    """Every enrolled employee, by employee number."""
    with Session(engine) as s:
        return [_record(e) for e in s.scalars(select(Employee).order_by(Employee.number))]


def _operator() -> str:
    """Who ran the command: the operating-system account (recorded, never trusted for pays)."""
    try:
        return getpass.getuser()
    except Exception:  # no user name available (some containers)
        return "unknown"


def set_active(engine: Engine, number: str, active: bool, reason: str = "",
               *, now: datetime | None = None) -> EmployeeRecord:
    """Deactivate (``active`` False) or reactivate an employee, with an ``employee_events`` row
    (why, which operator) in the same transaction; EmployeeError for an unknown number, an
    employee already in that state, or no reason.  Identify/authorize only accept active cards."""
    number = _number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    with Session(engine) as s, s.begin():
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        if bool(emp.active) == active:
            state = "active" if active else "inactive"
            raise EmployeeError(f"employee {number} ({emp.name}): already {state}")
        emp.active = active
        s.add(EmployeeEvent(employee_id=emp.id, event="reactivated" if active else "deactivated",
                            reason=reason, operator=_operator(),
                            created_at=now or datetime.now(UTC)))
        s.flush()
        return _record(emp)


def replace_card(engine: Engine, number: str, swipe: str, reason: str,
                 *, now: datetime | None = None, key: CardKey | None = None) -> EmployeeRecord:
    """Give employee ``number`` the card in ``swipe`` instead of their current one (lost,
    broken), keeping the employee number, name, role and history.  One transaction: the new
    salted hash, a ``card_replaced`` ``employee_events`` row (why, which operator) and an
    ``accepted`` swipe-log row (action ``replace_card``).  From then the old card is unknown.
    EmployeeError / AuthError for no reason, a bad read, an unknown number, or a card already
    enrolled (to anyone, this employee included); nothing is written then."""
    number = _number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    key = _key(key)
    card = parse_swipe(swipe)
    when = now or datetime.now(UTC)
    _ensure_key_noted(engine, key)
    with Session(engine) as s, s.begin():
        _lock_enrollment(s)
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        owner = find_by_card(s, key, card)
        if owner is not None:
            whose = "already this employee's card" if owner.id == emp.id \
                else "already enrolled to another employee"
            raise EmployeeError(f"employee {number}: this card is {whose}; use a new card")
        set_card(s, key, emp, card)
        s.add(EmployeeEvent(employee_id=emp.id, event="card_replaced", reason=reason,
                            operator=_operator(), created_at=when))
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="replace_card",
                  role_required=None, now=when, card_mac=emp.card_mac)
        s.flush()
        return _record(emp)


def check_card(engine: Engine, swipe: str, *, now: datetime | None = None,
               key: CardKey | None = None,
               policy: Authorization | None = None) -> EmployeeRecord:
    """Who the card in ``swipe`` belongs to; logs the swipe (action ``check``) either way.

    A bad read, an unknown, locked or inactive card is logged with that outcome (and counts
    towards the card's lockout) and then raised as :class:`AuthError` (its message never
    echoes the card)."""
    gate = Gate(engine, _key(key), policy or default_policy(),
                (lambda: now) if now is not None else None)

    def write(s: Session, emp: Employee, _now: datetime) -> EmployeeRecord:
        return _record(emp)

    return gate.run(swipe, None, "check", write)


def set_pin(engine: Engine, number: str, swipe: str, old_pin: str | None, new_pin: str,
            *, key: CardKey | None = None, now: datetime | None = None,
            policy: Authorization | None = None) -> EmployeeRecord:
    """Set employee ``number``'s PIN: their own card (``swipe``) and, if they have a PIN, the
    old one.  One transaction: the slow hash of the keyed PIN, a ``pin_set`` employee event and
    the swipe-log row.  A wrong card or old PIN is logged and counts towards the lockout."""
    number = _number(number)
    check_pin_text(new_pin, f"employee {number}")
    key = _key(key)
    gate = Gate(engine, key, policy or default_policy(),
                (lambda: now) if now is not None else None)  # the floor's lockout counts
    credential = Credential(swipe, old_pin) if old_pin else swipe

    def write(s: Session, emp: Employee, when: datetime) -> EmployeeRecord:
        if emp.number != number:
            raise AuthError(f"set-pin: this is the card of employee {emp.number}, not "
                            f"{number}", "same_person", emp.id, emp.card_mac)
        if emp.pin is not None and not old_pin:
            raise AuthError(f"employee {number}: type the current PIN first (forgotten: "
                            "podium employees reset-pin)", "pin_missing", emp.id, emp.card_mac)
        emp.pin = pin_hash(key, emp.id, new_pin)
        s.add(EmployeeEvent(employee_id=emp.id, event="pin_set", reason="", operator=_operator(),
                            created_at=when))
        s.flush()
        return _record(emp)

    return gate.run(credential, None, "set_pin", write, words="setting a PIN")


def reset_pin(engine: Engine, number: str, reason: str,
              *, now: datetime | None = None) -> EmployeeRecord:
    """Clear a forgotten PIN (an operator's step, like deactivate: who ran it and why are kept
    in ``employee_events``); the employee sets a new one with set-pin."""
    number = _number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    with Session(engine) as s, s.begin():
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        if emp.pin is None:
            raise EmployeeError(f"employee {number} ({emp.name}): has no PIN to reset")
        emp.pin = None
        s.add(EmployeeEvent(employee_id=emp.id, event="pin_reset", reason=reason,
                            operator=_operator(), created_at=now or datetime.now(UTC)))
        s.flush()
        return _record(emp)


# --- reading the swipe ---------------------------------------------------------------------

def read_swipe(prompt: str, stdin: TextIO | None = None) -> str:
    """One line of track data from stdin: without echo on a terminal, plain from a pipe.

    AuthError (bad_read) when nothing arrives (end of input)."""
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        raise AuthError("card read: no input to read the swipe from", "bad_read")
    try:
        if stream.isatty():
            line = getpass.getpass(prompt, stream=sys.stderr)
        else:
            line = stream.readline()
            if not line:
                raise AuthError("card read: nothing was read (end of input); "
                                "swipe the card again", "bad_read")
    except EOFError:
        raise AuthError("card read: nothing was read (end of input); swipe the card again",
                        "bad_read") from None
    return line


# --- the command ----------------------------------------------------------------------------

class _RefuseCardNumber(argparse.Action):
    """``--card-number`` is refused with a reason, and without echoing the number (argparse's
    own "unrecognized arguments" line would repeat it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error("--card-number is not offered: a card number typed on a command line lands "
                     "in the shell history; swipe the card when asked (or pipe the track data "
                     "to stdin)")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    sub = parser.add_subparsers(dest="employees_command", required=True,
                                parser_class=type(parser), metavar="COMMAND")
    for cmd, helptext in SUBCOMMANDS.items():
        p = sub.add_parser(cmd, help=helptext, description=helptext)
        if cmd in ("add", "deactivate", "reactivate", "replace-card", "set-pin", "reset-pin"):
            p.add_argument("--number", required=True, help="employee number")
        if cmd in ("deactivate", "reactivate", "replace-card", "reset-pin", "unlock"):
            p.add_argument("--reason", required=True,
                           help='why (kept in the ledger), e.g. "left the company"')
        if cmd == "unlock":
            which = p.add_mutually_exclusive_group(required=True)
            which.add_argument("--number", help="the employee whose card is locked")
            which.add_argument("--card", action="store_true",
                               help="swipe the locked card itself (e.g. an unknown card)")
        if cmd == "add":
            p.add_argument("--name", required=True, help='full name, e.g. "Dana Reyes"')
            p.add_argument("--role", required=True, choices=ROLES,
                           help="supervisor or executive (may authorize pays); surveillance or "
                                "accountant (may not)")
            p.add_argument("--same-name-ok", action="store_true",
                           help="enroll although an active employee of the same name and role "
                                "exists (another person of the same name)")
        if cmd in ("add", "check", "replace-card"):
            p.add_argument("--card-number", nargs="?", action=_RefuseCardNumber,
                           help=argparse.SUPPRESS)
        if cmd == "list":
            p.add_argument("--json", action="store_true", help="print one JSON document")
        p.add_argument("--db", default=None,
                       help="ledger URL (default: the console's SQLite ledger in the user data "
                            "folder); e.g. postgresql+psycopg://user@host/podium")
        if cmd != "list":
            p.add_argument("--floor", default=None, metavar="FILE",
                           help="the floor file whose [authorization] settings (card key, PIN, "
                                "lockout) apply (default: the safe defaults)")
            p.add_argument("--card-key", default=None, metavar="FILE",
                           help="the card key file (default: the floor file's, else "
                                "$PODIUM_CARD_KEY, else card.key in the configuration folder)")


def _say(text: str) -> None:
    """One line for the operator's terminal: names as stored, never a terminal command."""
    print(printable(text))


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(the --db value)"


def _open(url: str | None) -> Engine:
    url = url or default_url()
    if url.strip() in ("sqlite://", "sqlite:///:memory:") or url.strip().startswith(
            ("sqlite:///:memory:?", "sqlite://?")):
        raise EmployeeError("--db: an in-memory SQLite ledger keeps nothing once the command "
                            "ends; give the ledger's URL (e.g. sqlite:///ledger.sqlite3)")
    try:
        engine = make_engine(url)
    except ArgumentError:
        raise EmployeeError("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                            "postgresql+psycopg://user@host/podium)") from None
    except ValueError as exc:
        raise EmployeeError(str(exc).replace(url, _safe_url(url))) from None
    except ImportError as exc:
        raise EmployeeError(f"--db: no driver for {_safe_url(url)}: {exc}") from None
    try:
        upgrade(engine)
    except Exception as exc:  # noqa: BLE001 - any failure to reach or migrate the ledger
        engine.dispose()
        raise EmployeeError(_ledger_problem(url, exc)) from None
    return engine


def _ledger_problem(url: str, exc: BaseException) -> str:
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"ledger {_safe_url(url)}: can not be opened: {exc.__class__.__name__}: {first}"


@contextmanager
def _ledger(url: str | None) -> Iterator[Engine]:
    engine = _open(url)
    try:
        yield engine
    finally:
        engine.dispose()


def _guarded(url: str | None, step: Callable[[], T]) -> T:
    """Run one ledger step; a database failure becomes one line naming the ledger."""
    try:
        return step()
    except SQLAlchemyError as exc:
        raise EmployeeError(_ledger_problem(url or default_url(), exc)) from None


def _policy_and_key(args: argparse.Namespace) -> tuple[Authorization, CardKey]:
    """The [authorization] settings and card key for this command (CardKeyError and
    FloorConfigError are one line each)."""
    policy = default_policy()
    path = getattr(args, "card_key", None)
    floor = getattr(args, "floor", None)
    try:
        if floor:
            policy = load_floor(floor).authorization
            path = path or policy.card_key or None
        return policy, cardkey.load(path)
    except (CardKeyError, FloorConfigError) as exc:
        raise EmployeeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    command = str(args.employees_command)
    args._command = f"employees {command}"  # error lines say "podium employees add: ..."
    if command == "list":
        with _ledger(args.db) as engine:
            return _list(args, engine)
    policy, key = _policy_and_key(args)
    with _ledger(args.db) as engine:
        if command == "add":
            return _add(args, engine, key)
        if command in ("deactivate", "reactivate"):
            rec = _guarded(args.db,
                           lambda: set_active(engine, args.number, command == "reactivate",
                                              args.reason))
            state = "active again" if rec.active else "deactivated: the card authorizes nothing"
            _say(f"employee {rec.number} ({rec.name}, {rec.role}): {state}")
            return 0
        if command == "check":
            swipe = read_swipe("Swipe the card to check: ")
            rec = _guarded(args.db, lambda: check_card(engine, swipe, key=key, policy=policy))
            _say(f"employee {rec.number} ({rec.name}, {rec.role}): "
                 f"{authority_text(rec.role)}")
            return 0
        if command == "replace-card":
            return _replace(args, engine, key)
        if command == "set-pin":
            return _set_pin(args, engine, key, policy)
        if command == "reset-pin":
            rec = _guarded(args.db, lambda: reset_pin(engine, args.number, args.reason))
            _say(f"employee {rec.number} ({rec.name}): PIN cleared; they set a new one with "
                 "podium employees set-pin")
            return 0
        if command == "unlock":
            return _unlock(args, engine, key, policy)
    raise EmployeeError(f"employees: unknown command {command!r}")


def _add(args: argparse.Namespace, engine: Engine, key: CardKey) -> int:
    number, name = str(args.number).strip(), str(args.name).strip()
    if not name:
        raise EmployeeError(f"employee {number}: --name is empty")
    _guarded(args.db, lambda: number_is_free(engine, number))
    same_ok = bool(args.same_name_ok)
    twins = _guarded(args.db, lambda: namesakes(engine, name, args.role))
    if twins and not same_ok and sys.stdin is not None and sys.stdin.isatty():
        answer = input(f"{', '.join(printable(t.number) for t in twins)} is already enrolled "
                       f"as {printable(twins[0].name)} ({args.role}). One person is one "
                       "employee number. Is this ANOTHER person of the same name? [y/N] ")
        same_ok = answer.strip().lower() in ("y", "yes")
    swipe = read_swipe(f"Swipe the card of {number} {name} now: ")
    rec = _guarded(args.db, lambda: enroll(engine, number, name, args.role, swipe, key=key,
                                           same_name_ok=same_ok))
    _say(f"enrolled employee {rec.number} ({rec.name}, {rec.role}); "
         f"{authority_text(rec.role)}")
    if has_authority(rec.role, "supervisor"):
        _say(f"set the PIN with: podium employees set-pin --number {rec.number}")
    return 0
def _list(args: argparse.Namespace, engine: Engine) -> int:
    records = _guarded(args.db, lambda: list_employees(engine))
    if args.json:
        print(json.dumps({"employees": [r.to_json() for r in records]}))
        return 0
    if not records:
        _say("no employees enrolled")
        return 0
    rows = [("number", "name", "role", "active", "PIN", "card", "enrolled at (UTC)")]
    rows += [(printable(r.number), printable(r.name), r.role, "yes" if r.active else "NO",
              "yes" if r.pin else "no", "keyed" if r.keyed else "RE-SWIPE NEEDED",
              _utc_text(r.enrolled_at)) for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _replace(args: argparse.Namespace, engine: Engine, key: CardKey) -> int:
    number = str(args.number).strip()
    reason = str(args.reason).strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    who = _guarded(args.db, lambda: [r for r in list_employees(engine) if r.number == number])
    if not who:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    swipe = read_swipe(f"Swipe the NEW card of {number} {who[0].name} now: ")
    rec = _guarded(args.db, lambda: replace_card(engine, number, swipe, reason, key=key))
    state = "" if rec.active else " (the employee is deactivated: reactivate to use it)"
    _say(f"employee {rec.number} ({rec.name}, {rec.role}): new card enrolled; the old card "
          f"authorizes nothing from now{state}")
    return 0


def read_pin(prompt: str, stdin: TextIO | None = None) -> str:
    """One PIN: without echo on a terminal, one line from a pipe (never echoed or logged)."""
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        raise EmployeeError("PIN: no input to read it from")
    if stream.isatty():
        return getpass.getpass(prompt, stream=sys.stderr).strip()
    line = stream.readline()
    if not line:
        raise EmployeeError("PIN: nothing was read (end of input)")
    return line.strip()


def _set_pin(args: argparse.Namespace, engine: Engine, key: CardKey,
             policy: Authorization) -> int:
    number = _number(args.number)
    who = _guarded(args.db, lambda: [r for r in list_employees(engine) if r.number == number])
    if not who:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    swipe = read_swipe(f"Swipe the card of {number} {who[0].name} now: ")
    old = read_pin("Current PIN: ") if who[0].pin else None
    new = read_pin("New PIN (4 to 12 digits): ")
    check_pin_text(new, f"employee {number}")
    if read_pin("New PIN again: ") != new:
        raise EmployeeError(f"employee {number}: the two new PINs differ; nothing was changed")
    rec = _guarded(args.db, lambda: set_pin(engine, number, swipe, old, new, key=key,
                                            policy=policy))
    _say(f"employee {rec.number} ({rec.name}): PIN set")
    return 0


def _unlock(args: argparse.Namespace, engine: Engine, key: CardKey,
            policy: Authorization) -> int:
    locked = read_swipe("Swipe the LOCKED card now: ") if args.card else None
    swipe = read_swipe("Executive: swipe your card now: ")
    pin = read_pin("Executive PIN: ") if policy.pin_needed("executive") else None
    credential = Credential(swipe, pin) if pin else swipe
    gate = Gate(engine, key, policy)
    done = _guarded(args.db, lambda: gate.lift(locked, args.number, credential, args.reason))
    _say(done)
    return 0
