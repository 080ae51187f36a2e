"""``podium employees add|list|deactivate|reactivate|check``: enroll the people who swipe.

A casino enrolls its own supervisors, executives, surveillance officers and accountants here;
the console only knows the demo employees otherwise.  The card is never typed on the command
line (it would land in the shell history): ``add`` and ``check`` read ONE line of track data
from stdin, as a keyboard-wedge reader types it, without echo when stdin is a terminal and
plainly from a pipe (scripted enrollment).  Only the salted hash of the card number is stored
(core/people/auth.py); track data and card numbers are never printed, logged or put in a message.

Ledger records:

- ``add``: the employee row, its ``enrolled`` (or ``bootstrap``) event and an ``accepted``
  ``enroll`` row in ``swipe_log`` (the enrollment swipe, append-only evidence of who was
  enrolled when), in one transaction.  A refused enrollment (bad read, number or card already
  enrolled, no executive) writes nothing (a refused executive's swipe is logged).
- ``check``: one ``swipe_log`` row with action ``check`` and the outcome (accepted,
  unknown_card, inactive, bad_read); it changes nothing else.
- ``deactivate`` / ``reactivate``, ``replace-card``, ``reset-pin``, ``set-pin``: the state
  columns of ``employees`` (active, card, PIN) changed in place, each with an ``employee_events``
  row carrying the row's new digest (core/ledger/people.py), so that a change made outside
  Podium is refused at the swipe and reported by ``podium audit verify``.
- **An executive approves** every enrollment, card replacement, PIN reset, deactivation and
  reactivation, and a contribution rate above the pre-configured one
  (``approve-contribution``): their swipe and PIN, read after the subject's swipe, checked by
  the card gate (an active executive whose own record matches its history, the right PIN, not
  the person changed), named in the record (``approved_by``).  The first executive of a ledger
  without an active one is enrolled with ``add --bootstrap``.

--db defaults to the ledger the console uses (:func:`core.ledger.db.default_url`); the schema is
brought up to date first, as the console does.  Bad input raises a ``ValueError`` subclass
(:class:`EmployeeError`, :class:`core.people.auth.AuthError`) that ``core.cli.dispatch`` turns into
one line on stderr and exit status 2; so does a ledger that cannot be opened (its URL shown
without the password).
"""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO, TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from core.floorconfig import Authorization, FloorConfigError, load_floor
from core.kernel.text import printable
from core.ledger.db import default_url, make_engine, sqlite_file, upgrade
from core.ledger.models import ROLES, ContributionApproval, Employee, Setting
from core.ledger.people import record_event
from core.people import cardkey
from core.people.auth import (
    CARD_KEY_ID,
    PIN_DIGITS,
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
    same_person,
    set_card,
)
from core.people.cardkey import CardKey, CardKeyError
from core.people.who import Who

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
    "approve-contribution": "an executive approves a contribution rate above the paytable's "
                            "pre-configured rate for one level of a group (RULES.md 4)",
}

#: The commands an executive approves with their card and PIN (read after the subject's swipe).
APPROVED = ("add", "deactivate", "reactivate", "replace-card", "reset-pin",
            "approve-contribution")

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
    """What a card of ``role`` may authorize at the podium (core/people/auth.py, core/floor.py)."""
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
    """Record the card key's fingerprint (core/people/auth.py) in its own transaction, so that the
    enrollment transaction can lock its row; AuthError for another key than the ledger's."""
    try:
        with Session(engine) as s, s.begin():
            note_key(s, key)
    except IntegrityError:  # another podium noted it at the same moment: check theirs
        with Session(engine) as s, s.begin():
            note_key(s, key)


def _key(key: CardKey | None, *, create: bool = True) -> CardKey:
    """``key``, or the default card key (made first only if ``create``: a key is made for a
    new ledger's first enrollment, never by a command that only reads one)."""
    return key if key is not None else cardkey.load(create=create)


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
           *, approval: Credential | None = None, bootstrap: bool = False,
           now: datetime | None = None, key: CardKey | None = None,
           same_name_ok: bool = False, policy: Authorization | None = None) -> EmployeeRecord:
    """Enroll an employee with the card in ``swipe`` (track data), in one transaction with an
    ``accepted`` ``enroll`` swipe_log row and the ``enrolled`` employee event naming the
    executive who approved it (``approval``: their swipe and PIN, checked by the card gate).
    ``bootstrap``: the first executive of a ledger that has no active executive, enrolled
    without one (recorded as a ``bootstrap`` event).  AuthError/EmployeeError for no approval,
    a refused approval, a bad role, name, number, read, a number or card already enrolled, or
    (unless ``same_name_ok``) an active employee of the same name and role; nothing is written
    then (a refused executive's swipe is logged, as every refused swipe is)."""
    number = str(number).strip()
    if bootstrap and role != "executive":
        raise EmployeeError(f"employee {number}: --bootstrap enrolls the first executive only "
                            "(--role executive)")
    if not bootstrap:
        _need_approval(approval, f"enrolling employee {number}")
    key = _key(key)
    card = parse_swipe(swipe)
    when = now or datetime.now(UTC)
    _ensure_key_noted(engine, key)
    if not same_name_ok:
        twins = namesakes(engine, name, role)
        if twins:
            raise EmployeeError(
                f"employee {number}: {', '.join(t.number for t in twins)} is "
                f"already enrolled as {twins[0].name} ({role}); one person is one employee "
                "number (replace-card gives them a new card). If this is another person of "
                "the same name, enroll again with --same-name-ok")
    _card_is_free(engine, key, card, f"employee {number}: this card is already enrolled to "
                                      "another employee")

    def write(s: Session, exe: Employee | None, _now: datetime) -> EmployeeRecord:
        _lock_enrollment(s)
        if bootstrap:
            _bootstrap_allowed(s, number)
        elif exe is not None and _same_name(exe.name, name):
            raise AuthError(f"employee {exe.number} ({exe.name}) may not approve their own "
                            "enrollment: another executive must", "same_person", exe.id)
        emp = add_employee(s, key, number, name, role, card, now=when, operator=_operator(),
                           event="bootstrap" if bootstrap else "enrolled",
                           approved_by=None if exe is None else exe.id)
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="enroll",
                  role_required=None, now=when, card_mac=emp.card_mac)
        return _record(emp)

    try:
        if bootstrap:
            with Session(engine) as s, s.begin():
                return write(s, None, when)
        return _approved(engine, approval, key=key, policy=policy, now=now,
                         action="approve_enroll", words=f"enrolling employee {number}",
                         write=write)
    except IntegrityError:  # the UNIQUE employee number, taken between check and insert
        raise EmployeeError(f"employee {number}: already enrolled") from None


def _card_is_free(engine: Engine, key: CardKey, card: str, taken: str,
                  mine: tuple[int, str] | None = None) -> None:
    """EmployeeError ``taken`` if the card is enrolled (checked before the executive's swipe,
    and again in the write transaction); ``mine``: (employee id, message) for a card that is
    already that employee's."""
    with Session(engine) as s:
        owner = find_by_card(s, key, card)
    if owner is not None:
        raise EmployeeError(mine[1] if mine is not None and owner.id == mine[0] else taken)


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def _bootstrap_allowed(s: Session, number: str) -> None:
    """EmployeeError unless the ledger has no active executive (the bootstrap's one case)."""
    exe = s.scalar(select(Employee).where(Employee.role == "executive",
                                          Employee.active.is_(True))
                   .order_by(Employee.number).limit(1))
    if exe is not None:
        raise EmployeeError(f"employee {number}: --bootstrap is refused: the ledger has an "
                            f"active executive ({exe.number}); enroll with an executive's "
                            "card and PIN instead (without --bootstrap)")


# --- an executive's approval (issue 23: privileged people changes) ---------------------------

def _need_approval(approval: Credential | None, words: str) -> Credential:
    """The executive's swipe and PIN, or EmployeeError (checked before anything is read from
    the ledger or written)."""
    if approval is None or not str(approval.track or "").strip():
        raise EmployeeError(f"{words}: needs an executive's card swipe and PIN (none given); "
                            "nothing was changed")
    if not approval.pin:
        raise EmployeeError(f"{words}: needs the executive's PIN after the swipe; nothing was "
                            "changed")
    return approval


def _approved(engine: Engine, approval: Credential | None, *, key: CardKey,
              policy: Authorization | None, now: datetime | None, action: str, words: str,
              write: Callable[[Session, Employee, datetime], T]) -> T:
    """``write(session, executive, now)`` in ONE write transaction with the executive's
    accepted swipe, once the card gate has checked the swipe and PIN: an active executive,
    whose row matches its ledger history, with the right PIN.  A refused approval is logged
    in ``swipe_log`` (and counts towards the card's lockout) and raised; nothing else is
    written then."""
    credential = _need_approval(approval, words)
    gate = Gate(engine, key, policy or default_policy(),
                (lambda: now) if now is not None else None)
    return gate.run(credential, "executive", action, write, words=words)


def _not_self(exe: Employee, emp: Employee, what: str) -> None:
    if same_person(exe, emp):
        raise AuthError(f"employee {exe.number} ({exe.name}) may not approve {what} of their "
                        "own: another executive must", "same_person", exe.id)


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
               *, approval: Credential | None = None, now: datetime | None = None,
               key: CardKey | None = None,
               policy: Authorization | None = None) -> EmployeeRecord:
    """Deactivate (``active`` False) or reactivate an employee, approved by an executive's
    swipe and PIN (``approval``), with an ``employee_events`` row (why, which operator, which
    executive, the row's new digest) in the same transaction; EmployeeError for no approval,
    an unknown number, an employee already in that state, or no reason.  Identify/authorize
    only accept active cards."""
    number = _number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    verb = "reactivating" if active else "deactivating"
    _need_approval(approval, f"{verb} employee {number}")

    def write(s: Session, exe: Employee, when: datetime) -> EmployeeRecord:
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        if bool(emp.active) == active:
            state = "active" if active else "inactive"
            raise EmployeeError(f"employee {number} ({emp.name}): already {state}")
        _not_self(exe, emp, f"{verb} a card")
        emp.active = active
        record_event(s, emp, "reactivated" if active else "deactivated", reason=reason,
                     operator=_operator(), when=when, approved_by=exe.id)
        return _record(emp)

    return _approved(engine, approval, key=_key(key, create=False), policy=policy, now=now,
                     action="approve_reactivate" if active else "approve_deactivate",
                     words=f"{verb} employee {number}", write=write)


def replace_card(engine: Engine, number: str, swipe: str, reason: str,
                 *, approval: Credential | None = None, now: datetime | None = None,
                 key: CardKey | None = None,
                 policy: Authorization | None = None) -> EmployeeRecord:
    """Give employee ``number`` the card in ``swipe`` instead of their current one (lost,
    broken), keeping the employee number, name, role and history, approved by an executive's
    swipe and PIN (``approval``; not the employee's own).  One transaction: the new keyed hash,
    a ``card_replaced`` ``employee_events`` row (why, which operator, which executive, the new
    digest) and the ``accepted`` swipe-log rows (the executive's, and the new card's, action
    ``replace_card``).  From then the old card is unknown.  EmployeeError / AuthError for no
    approval, no reason, a bad read, an unknown number, or a card already enrolled (to anyone,
    this employee included); nothing is written then."""
    number = _number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    _need_approval(approval, f"replacing the card of employee {number}")
    key = _key(key, create=False)
    card = parse_swipe(swipe)
    _ensure_key_noted(engine, key)
    with Session(engine) as s:
        emp_id = s.scalar(select(Employee.id).where(Employee.number == number))
    if emp_id is None:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    _card_is_free(engine, key, card, f"employee {number}: this card is already enrolled to "
                                     "another employee; use a new card",
                  (emp_id, f"employee {number}: this card is already this employee's card; "
                           "use a new card"))

    def write(s: Session, exe: Employee, when: datetime) -> EmployeeRecord:
        _lock_enrollment(s)
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        _not_self(exe, emp, "a new card")
        owner = find_by_card(s, key, card)
        if owner is not None:
            whose = "already this employee's card" if owner.id == emp.id \
                else "already enrolled to another employee"
            raise EmployeeError(f"employee {number}: this card is {whose}; use a new card")
        set_card(s, key, emp, card)
        record_event(s, emp, "card_replaced", reason=reason, operator=_operator(), when=when,
                     approved_by=exe.id)
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="replace_card",
                  role_required=None, now=when, card_mac=emp.card_mac)
        return _record(emp)

    return _approved(engine, approval, key=key, policy=policy, now=now,
                     action="approve_replace_card",
                     words=f"replacing the card of employee {number}", write=write)


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
        record_event(s, emp, "pin_set", operator=_operator(), when=when)
        return _record(emp)

    return gate.run(credential, None, "set_pin", write, words="setting a PIN")


def reset_pin(engine: Engine, number: str, reason: str,
              *, approval: Credential | None = None, now: datetime | None = None,
              key: CardKey | None = None,
              policy: Authorization | None = None) -> EmployeeRecord:
    """Clear a forgotten PIN, approved by an executive's swipe and PIN (``approval``; not the
    employee's own): who ran it, who approved it and why are kept in ``employee_events``; the
    employee sets a new one with set-pin."""
    number = _number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    _need_approval(approval, f"resetting the PIN of employee {number}")

    def write(s: Session, exe: Employee, when: datetime) -> EmployeeRecord:
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        if emp.pin is None:
            raise EmployeeError(f"employee {number} ({emp.name}): has no PIN to reset")
        _not_self(exe, emp, "resetting a PIN")
        emp.pin = None
        record_event(s, emp, "pin_reset", reason=reason, operator=_operator(), when=when,
                     approved_by=exe.id)
        return _record(emp)

    return _approved(engine, approval, key=_key(key, create=False), policy=policy, now=now,
                     action="approve_reset_pin",
                     words=f"resetting the PIN of employee {number}", write=write)


def approve_contribution(engine: Engine, group: str, level: str, rate: str, reason: str,
                         *, approval: Credential | None = None, now: datetime | None = None,
                         key: CardKey | None = None,
                         policy: Authorization | None = None) -> str:
    """Record an executive's approval (swipe and PIN) of contribution rate ``rate`` (a
    fraction of the wager, e.g. ``0.25``) for level ``level`` of group ``group``: RULES.md 4,
    a rate above the paytable's pre-configured one lowers the house advantage.  The floor
    starts with such a rate only while an approval of exactly that rate exists
    (core/tablegames/setup.py).  Returns what was recorded, in words."""
    from core.floorconfig import ident_problem

    group, level = str(group).strip(), str(level).strip()
    for what, value in (("--group", group), ("--level", level)):
        problem = ident_problem(value)
        if problem:
            raise EmployeeError(f"{what}: {problem}")
    ppm = _rate_ppm(rate)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError("approve-contribution: give a --reason (it is kept in the ledger)")
    words = f"a contribution rate of {rate.strip()} for group {group} level {level}"
    _need_approval(approval, f"approving {words}")

    def write(s: Session, exe: Employee, when: datetime) -> str:
        s.add(ContributionApproval(group_id=group, level=level, rate_ppm=ppm,
                                   approved_by=exe.id, reason=reason, operator=_operator(),
                                   created_at=when))
        s.flush()
        return f"{words}: approved by {Who.of(exe).by_role()}"

    return _approved(engine, approval, key=_key(key, create=False), policy=policy, now=now,
                     action="approve_contribution", words=f"approving {words}", write=write)


def _rate_ppm(rate: str) -> int:
    """A rate as the ledger keeps it (parts per million, exact), or EmployeeError."""
    from decimal import Decimal, InvalidOperation

    text = str(rate).strip()
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or not 0 < value <= 1 or (value * 1_000_000) % 1:
        raise EmployeeError(f"--rate: {printable(text)[:40]!r} is not a contribution rate "
                            "(a fraction above 0 and at most 1, at most 6 decimals, e.g. 0.25)")
    return int(value * 1_000_000)


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

class _RefuseStray(argparse.Action):
    """Words after the command that it does not take are refused WITHOUT repeating them
    (argparse's "unrecognized arguments" line would: ``employees check 6011...`` would print
    the card number)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values:
            parser.error(f"{len(values)} unexpected argument(s), not shown (one could be a "
                         "card number): a card is swiped when asked (or piped to stdin), never "
                         "typed on the command line")


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
        if cmd in ("deactivate", "reactivate", "replace-card", "reset-pin", "unlock",
                   "approve-contribution"):
            p.add_argument("--reason", required=True,
                           help='why (kept in the ledger), e.g. "left the company"')
        if cmd == "approve-contribution":
            p.add_argument("--group", required=True, help="the group's id in the floor file")
            p.add_argument("--level", required=True, help="the level's name, e.g. MAIN")
            p.add_argument("--rate", required=True,
                           help="the contribution rate approved, as in the floor file, e.g. "
                                "0.25")
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
            p.add_argument("--bootstrap", action="store_true",
                           help="enroll the FIRST executive of a ledger that has no active "
                                "executive, without an executive's approval (recorded as the "
                                "bootstrap); every other enrollment needs an executive's card "
                                "and PIN")
        if cmd in ("add", "check", "replace-card"):
            p.add_argument("--card-number", nargs="?", action=_RefuseCardNumber,
                           help=argparse.SUPPRESS)
        if cmd == "list":
            p.add_argument("--json", action="store_true", help="print one JSON document")
        p.add_argument("stray", nargs="*", action=_RefuseStray, help=argparse.SUPPRESS)
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


def _open(url: str | None, *, create: bool = False) -> Engine:
    """The ledger, brought up to date.  Only ``add`` (``create``) may make a new SQLite ledger:
    any other command on a ledger that is not there is refused and leaves no file."""
    url = url or default_url(create=create)
    file = _sqlite_path(url)
    if not create and file is not None and not file.exists():
        raise EmployeeError(f"ledger {_safe_url(url)}: no such ledger (the first enrollment "
                            "makes it: podium employees add --bootstrap, docs/operator.md)")
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


def _sqlite_path(url: str) -> Path | None:
    """The file of a SQLite ledger URL (None: another database, in memory, or not a URL: the
    engine names that problem)."""
    try:
        return sqlite_file(url) if url.strip().startswith("sqlite") else None
    except (ArgumentError, ValueError):
        return None


def _ledger_problem(url: str, exc: BaseException) -> str:
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"ledger {_safe_url(url)}: can not be opened: {first}"


@contextmanager
def _ledger(url: str | None, *, create: bool = False) -> Iterator[Engine]:
    engine = _open(url, create=create)
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


def _policy(args: argparse.Namespace) -> Authorization:
    """The [authorization] settings for this command (a floor file's problem is one line)."""
    floor = getattr(args, "floor", None)
    if not floor:
        return default_policy()
    try:
        return load_floor(floor).authorization
    except FloorConfigError as exc:
        raise EmployeeError(str(exc)) from None


def _card_key(args: argparse.Namespace, policy: Authorization, engine: Engine) -> CardKey:
    """The card key for this command.  It is made (at its default place or ``--card-key``)
    only by the enrollment on a ledger that has no key yet: a command refused for a wrong or
    mistyped key file leaves no file behind."""
    path = getattr(args, "card_key", None) or policy.card_key or None
    create = False
    if args.employees_command == "add":
        with Session(engine) as s:
            create = _guarded(args.db, lambda: s.get(Setting, CARD_KEY_ID)) is None
    try:
        return cardkey.load(path, create=create)
    except CardKeyError as exc:
        raise EmployeeError(str(exc)) from None


def _read_approval() -> Credential:
    """The approving executive's swipe and PIN, after the subject's swipe (stdin: one line
    each, no echo on a terminal)."""
    swipe = read_swipe("Executive: swipe your card to approve: ")
    pin = read_pin("Executive PIN: ")
    if not PIN_DIGITS.fullmatch(pin):
        raise AuthError("executive's PIN: a PIN is 4 to 12 digits; nothing was changed",
                        "bad_read")
    return Credential(swipe, pin)


@contextmanager
def _quiet_logs() -> Iterator[None]:
    """The command's refusals are its one line on stderr: the card gate's log lines (a card
    locked after its fifth refusal) stay out of the terminal when no logging is configured
    (Python's last-resort handler would print them as a second line)."""
    logger = logging.getLogger("podium")
    quiet = logging.NullHandler()
    logger.addHandler(quiet)
    try:
        yield
    finally:
        logger.removeHandler(quiet)


def run(args: argparse.Namespace) -> int:
    command = str(args.employees_command)
    args._command = f"employees {command}"  # error lines say "podium employees add: ..."
    if command == "list":
        with _ledger(args.db) as engine:
            return _list(args, engine)
    policy = _policy(args)
    first = _first_enrollment(args) if command == "add" else None
    with _quiet_logs(), _ledger(args.db, create=command == "add") as engine:
        if command == "add":
            return _add(args, engine, lambda: _card_key(args, policy, engine), policy, first)
        key = _card_key(args, policy, engine)
        if command in ("deactivate", "reactivate"):
            approval = _read_approval()
            rec = _guarded(args.db,
                           lambda: set_active(engine, args.number, command == "reactivate",
                                              args.reason, approval=approval, key=key,
                                              policy=policy))
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
            return _replace(args, engine, key, policy)
        if command == "set-pin":
            return _set_pin(args, engine, key, policy)
        if command == "reset-pin":
            approval = _read_approval()
            rec = _guarded(args.db, lambda: reset_pin(engine, args.number, args.reason,
                                                      approval=approval, key=key,
                                                      policy=policy))
            _say(f"employee {rec.number} ({rec.name}): PIN cleared; they set a new one with "
                 "podium employees set-pin")
            return 0
        if command == "unlock":
            return _unlock(args, engine, key, policy)
        if command == "approve-contribution":
            approval = _read_approval()
            _say(_guarded(args.db, lambda: approve_contribution(
                engine, args.group, args.level, args.rate, args.reason, approval=approval,
                key=key, policy=policy)))
            return 0
    raise EmployeeError(f"employees: unknown command {command!r}")


def _first_enrollment(args: argparse.Namespace) -> str | None:
    """``add`` on a SQLite ledger file that is not there yet: the one enrollment it can take is
    the bootstrap of the first executive.  Everything is checked, and the card read and
    parsed, before the ledger (or a card key) is made, so a refusal leaves no file.  Returns
    the swipe read (None: the ledger exists, or is not a SQLite file)."""
    file = _sqlite_path(args.db or default_url(create=False))
    if file is None or file.exists():
        return None
    number, name = _number(args.number), str(args.name).strip()
    if not (args.bootstrap and args.role == "executive"):
        raise EmployeeError(f"ledger {printable(str(file))}: no such ledger; its first "
                            "enrollment is the first executive's: podium employees add "
                            "--bootstrap --role executive (docs/operator.md)")
    if not name:
        raise EmployeeError(f"employee {number}: --name is empty")
    swipe = read_swipe(f"Swipe the card of {number} {name} now: ")
    parse_swipe(swipe)  # a bad read is refused here, before the ledger exists
    return swipe


def _add(args: argparse.Namespace, engine: Engine, key_of: Callable[[], CardKey],
         policy: Authorization, swipe: str | None = None) -> int:
    """Enroll; the card key is loaded (made, on a ledger without one) only once the card has
    been read and parsed, so a refused read leaves no key file."""
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
    bootstrap = bool(args.bootstrap)
    if swipe is None:
        swipe = read_swipe(f"Swipe the card of {number} {name} now: ")
        parse_swipe(swipe)
    key = key_of()
    approval = None if bootstrap else _read_approval()
    rec = _guarded(args.db, lambda: enroll(engine, number, name, args.role, swipe, key=key,
                                           same_name_ok=same_ok, approval=approval,
                                           bootstrap=bootstrap, policy=policy))
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


def _replace(args: argparse.Namespace, engine: Engine, key: CardKey,
             policy: Authorization) -> int:
    number = str(args.number).strip()
    reason = str(args.reason).strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    who = _guarded(args.db, lambda: [r for r in list_employees(engine) if r.number == number])
    if not who:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    swipe = read_swipe(f"Swipe the NEW card of {number} {who[0].name} now: ")
    approval = _read_approval()
    rec = _guarded(args.db, lambda: replace_card(engine, number, swipe, reason, key=key,
                                                 approval=approval, policy=policy))
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
