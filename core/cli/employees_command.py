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

from core.auth import (
    INSTALL_SALT_KEY,
    AuthError,
    SwipeOutcome,
    _install_salt,
    add_employee,
    find_by_card,
    has_authority,
    identify,
    log_swipe,
    parse_swipe,
    set_card,
)
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

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "name": self.name, "role": self.role,
                "active": self.active, "enrolled_at": _utc_text(self.enrolled_at)}


def _record(emp: Employee) -> EmployeeRecord:
    return EmployeeRecord(emp.number, emp.name, emp.role, bool(emp.active), emp.created_at)


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
    """Serialize enrollments: two podiums enrolling the same card at once would both find it
    free (card hashes are salted per employee, so no UNIQUE index can catch it).  SQLite already
    holds the write lock (BEGIN IMMEDIATE); PostgreSQL locks the install salt row."""
    session.execute(select(Setting).where(Setting.key == INSTALL_SALT_KEY).with_for_update())


def _ensure_install_salt(engine: Engine) -> None:
    """Make the installation salt (core/auth.py) in its own transaction, so that the enrollment
    transaction can lock its row."""
    try:
        with Session(engine) as s, s.begin():
            _install_salt(s)
    except IntegrityError:  # another podium made it at the same moment: use theirs
        pass


def number_is_free(engine: Engine, number: str) -> None:
    """EmployeeError if ``number`` is already enrolled (checked before asking for the swipe)."""
    number = _number(number)
    with Session(engine) as s:
        if s.scalar(select(Employee.id).where(Employee.number == number)) is not None:
            raise EmployeeError(f"employee {number}: already enrolled")


def enroll(engine: Engine, number: str, name: str, role: str, swipe: str,
           *, now: datetime | None = None) -> EmployeeRecord:
    """Enroll an employee with the card in ``swipe`` (track data), in one transaction with an
    ``accepted`` ``enroll`` swipe_log row.  AuthError/EmployeeError for a bad role, name,
    number, read, a number or card already enrolled; nothing is written then."""
    card = parse_swipe(swipe)
    when = now or datetime.now(UTC)
    _ensure_install_salt(engine)
    try:
        with Session(engine) as s, s.begin():
            _lock_enrollment(s)
            emp = add_employee(s, number, name, role, card, now=when)
            log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="enroll",
                      role_required=None, now=when)
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
                 *, now: datetime | None = None) -> EmployeeRecord:
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
    card = parse_swipe(swipe)
    when = now or datetime.now(UTC)
    _ensure_install_salt(engine)
    with Session(engine) as s, s.begin():
        _lock_enrollment(s)
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        owner = find_by_card(s, card)
        if owner is not None:
            whose = "already this employee's card" if owner.id == emp.id \
                else "already enrolled to another employee"
            raise EmployeeError(f"employee {number}: this card is {whose}; use a new card")
        set_card(s, emp, card)
        s.add(EmployeeEvent(employee_id=emp.id, event="card_replaced", reason=reason,
                            operator=_operator(), created_at=when))
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="replace_card",
                  role_required=None, now=when)
        s.flush()
        return _record(emp)


def check_card(engine: Engine, swipe: str, *, now: datetime | None = None) -> EmployeeRecord:
    """Who the card in ``swipe`` belongs to; logs the swipe (action ``check``) either way.

    A bad read, an unknown card or an inactive employee is logged with that outcome and then
    raised as :class:`AuthError` (its message never echoes the card)."""
    when = now or datetime.now(UTC)
    try:
        card = parse_swipe(swipe)
    except AuthError as exc:
        _log_check(engine, exc.outcome, None, when)
        raise
    refusal: AuthError | None = None
    with Session(engine) as s, s.begin():
        try:
            emp = identify(s, card)
        except AuthError as exc:
            refusal = exc
            log_swipe(s, exc.outcome, employee_id=exc.employee_id, hit_id=None, action="check",
                      role_required=None, now=when)
        else:
            log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="check",
                      role_required=None, now=when)
            record = _record(emp)
    if refusal is not None:
        raise refusal
    return record


def _log_check(engine: Engine, outcome: SwipeOutcome, employee_id: int | None,
               when: datetime) -> None:
    with Session(engine) as s, s.begin():
        log_swipe(s, outcome, employee_id=employee_id, hit_id=None, action="check",
                  role_required=None, now=when)


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
        if cmd in ("add", "deactivate", "reactivate", "replace-card"):
            p.add_argument("--number", required=True, help="employee number")
        if cmd in ("deactivate", "reactivate", "replace-card"):
            p.add_argument("--reason", required=True,
                           help='why (kept in the ledger), e.g. "left the company"')
        if cmd == "add":
            p.add_argument("--name", required=True, help='full name, e.g. "Dana Reyes"')
            p.add_argument("--role", required=True, choices=ROLES,
                           help="supervisor or executive (may authorize pays); surveillance or "
                                "accountant (may not)")
        if cmd in ("add", "check", "replace-card"):
            p.add_argument("--card-number", nargs="?", action=_RefuseCardNumber,
                           help=argparse.SUPPRESS)
        if cmd == "list":
            p.add_argument("--json", action="store_true", help="print one JSON document")
        p.add_argument("--db", default=None,
                       help="ledger URL (default: the console's SQLite ledger in the user data "
                            "folder); e.g. postgresql+psycopg://user@host/podium")


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


def run(args: argparse.Namespace) -> int:
    command = str(args.employees_command)
    args._command = f"employees {command}"  # error lines say "podium employees add: ..."
    with _ledger(args.db) as engine:
        if command == "add":
            return _add(args, engine)
        if command == "list":
            return _list(args, engine)
        if command in ("deactivate", "reactivate"):
            rec = _guarded(args.db,
                           lambda: set_active(engine, args.number, command == "reactivate",
                                              args.reason))
            state = "active again" if rec.active else "deactivated: the card authorizes nothing"
            _say(f"employee {rec.number} ({rec.name}, {rec.role}): {state}")
            return 0
        if command == "check":
            return _check(args, engine)
        if command == "replace-card":
            return _replace(args, engine)
    raise EmployeeError(f"employees: unknown command {command!r}")


def _add(args: argparse.Namespace, engine: Engine) -> int:
    number, name = str(args.number).strip(), str(args.name).strip()
    if not name:
        raise EmployeeError(f"employee {number}: --name is empty")
    _guarded(args.db, lambda: number_is_free(engine, number))
    swipe = read_swipe(f"Swipe the card of {number} {name} now: ")
    rec = _guarded(args.db, lambda: enroll(engine, number, name, args.role, swipe))
    _say(f"enrolled employee {rec.number} ({rec.name}, {rec.role}); "
          f"{authority_text(rec.role)}")
    return 0


def _list(args: argparse.Namespace, engine: Engine) -> int:
    records = _guarded(args.db, lambda: list_employees(engine))
    if args.json:
        print(json.dumps({"employees": [r.to_json() for r in records]}))
        return 0
    if not records:
        _say("no employees enrolled")
        return 0
    rows = [("number", "name", "role", "active", "enrolled at (UTC)")]
    rows += [(printable(r.number), printable(r.name), r.role, "yes" if r.active else "NO",
              _utc_text(r.enrolled_at)) for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _replace(args: argparse.Namespace, engine: Engine) -> int:
    number = str(args.number).strip()
    reason = str(args.reason).strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    who = _guarded(args.db, lambda: [r for r in list_employees(engine) if r.number == number])
    if not who:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    swipe = read_swipe(f"Swipe the NEW card of {number} {who[0].name} now: ")
    rec = _guarded(args.db, lambda: replace_card(engine, number, swipe, reason))
    state = "" if rec.active else " (the employee is deactivated: reactivate to use it)"
    _say(f"employee {rec.number} ({rec.name}, {rec.role}): new card enrolled; the old card "
          f"authorizes nothing from now{state}")
    return 0


def _check(args: argparse.Namespace, engine: Engine) -> int:
    swipe = read_swipe("Swipe the card to check: ")
    rec = _guarded(args.db, lambda: check_card(engine, swipe))
    _say(f"employee {rec.number} ({rec.name}, {rec.role}): {authority_text(rec.role)}")
    return 0

