"""``podium employees add``, ``list`` and ``check``: the people who swipe, enrolled.

A casino enrolls its own supervisors, executives, surveillance officers and accountants here;
the console only knows the demo employees otherwise.  Only the card's keyed hash is stored
(core/people/auth.py).

Ledger records:

- ``add``: the employee row, its ``enrolled`` (or ``bootstrap``) event and an ``accepted``
  ``enroll`` row in ``swipe_log`` (the enrollment swipe, append-only evidence of who was
  enrolled when), in one transaction, approved by an executive (core/cli/employees/approval.py)
  or, for a ledger's first executive, ``--bootstrap``.  A refused enrollment (bad read, number
  or card already enrolled, no executive) writes nothing (a refused executive's swipe is
  logged).
- ``check``: one ``swipe_log`` row with action ``check`` and the outcome (accepted,
  unknown_card, inactive, bad_read); it changes nothing else.
- ``list`` reads only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.cli.employees.approval import approved, ensure_key_noted, key_or_default, need_approval
from core.cli.employees.ledger import guarded, sqlite_path
from core.cli.employees.records import (
    EmployeeError,
    EmployeeRecord,
    employee_number,
    list_employees,
    operator,
    record_of,
    utc_text,
)
from core.cli.employees.terminal import read_approval, read_swipe, say
from core.floorconfig import Authorization
from core.kernel.text import printable
from core.ledger.db import default_url
from core.ledger.models import Employee, Setting
from core.people.auth import (
    CARD_KEY_ID,
    AuthError,
    Credential,
    Gate,
    add_employee,
    default_policy,
    find_by_card,
    has_authority,
    log_swipe,
    parse_swipe,
)
from core.people.cardkey import CardKey


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

def lock_enrollment(session: Session) -> None:
    """Serialize enrollments (the UNIQUE ``card_mac`` index catches a card enrolled twice at
    once; this keeps the same-name check honest too).  SQLite already holds the write lock
    (BEGIN IMMEDIATE); PostgreSQL locks the card key's row."""
    session.execute(select(Setting).where(Setting.key == CARD_KEY_ID).with_for_update())


def namesakes(engine: Engine, name: str, role: str) -> list[EmployeeRecord]:
    """Active employees enrolled with this name (case and spaces aside) and role: enrolling
    the same person twice would let one person sign as two."""
    wanted = " ".join(name.casefold().split())
    with Session(engine) as s:
        return [record_of(e) for e in s.scalars(select(Employee).where(
            Employee.role == role, Employee.active.is_(True)).order_by(Employee.number))
            if " ".join(e.name.casefold().split()) == wanted]


def number_is_free(engine: Engine, number: str) -> None:
    """EmployeeError if ``number`` is already enrolled (checked before asking for the swipe)."""
    number = employee_number(number)
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
        need_approval(approval, f"enrolling employee {number}")
    key = key_or_default(key)
    card = parse_swipe(swipe)
    when = now or datetime.now(UTC)
    ensure_key_noted(engine, key)
    if not same_name_ok:
        twins = namesakes(engine, name, role)
        if twins:
            raise EmployeeError(
                f"employee {number}: {', '.join(t.number for t in twins)} is "
                f"already enrolled as {twins[0].name} ({role}); one person is one employee "
                "number (replace-card gives them a new card). If this is another person of "
                "the same name, enroll again with --same-name-ok")
    card_is_free(engine, key, card, f"employee {number}: this card is already enrolled to "
                                    "another employee")

    def write(s: Session, exe: Employee | None, _now: datetime) -> EmployeeRecord:
        lock_enrollment(s)
        if bootstrap:
            _bootstrap_allowed(s, number)
        elif exe is not None and _same_name(exe.name, name):
            raise AuthError(f"employee {exe.number} ({exe.name}) may not approve their own "
                            "enrollment: another executive must", "same_person", exe.id)
        emp = add_employee(s, key, number, name, role, card, now=when, operator=operator(),
                           event="bootstrap" if bootstrap else "enrolled",
                           approved_by=None if exe is None else exe.id)
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="enroll",
                  role_required=None, now=when, card_mac=emp.card_mac)
        return record_of(emp)

    try:
        if bootstrap:
            with Session(engine) as s, s.begin():
                return write(s, None, when)
        return approved(engine, approval, key=key, policy=policy, now=now,
                        action="approve_enroll", words=f"enrolling employee {number}",
                        write=write)
    except IntegrityError:  # the UNIQUE employee number, taken between check and insert
        raise EmployeeError(f"employee {number}: already enrolled") from None


def card_is_free(engine: Engine, key: CardKey, card: str, taken: str,
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


def check_card(engine: Engine, swipe: str, *, now: datetime | None = None,
               key: CardKey | None = None,
               policy: Authorization | None = None) -> EmployeeRecord:
    """Who the card in ``swipe`` belongs to; logs the swipe (action ``check``) either way.

    A bad read, an unknown, locked or inactive card is logged with that outcome (and counts
    towards the card's lockout) and then raised as :class:`AuthError` (its message never
    echoes the card)."""
    gate = Gate(engine, key_or_default(key), policy or default_policy(),
                (lambda: now) if now is not None else None)

    def write(s: Session, emp: Employee, _now: datetime) -> EmployeeRecord:
        return record_of(emp)

    return gate.run(swipe, None, "check", write)


# --- at the terminal -------------------------------------------------------------------------

def first_enrollment(args: argparse.Namespace) -> str | None:
    """``add`` on a SQLite ledger file that is not there yet: the one enrollment it can take is
    the bootstrap of the first executive.  Everything is checked, and the card read and
    parsed, before the ledger (or a card key) is made, so a refusal leaves no file.  Returns
    the swipe read (None: the ledger exists, or is not a SQLite file)."""
    file = sqlite_path(args.db or default_url(create=False))
    if file is None or file.exists():
        return None
    number, name = employee_number(args.number), str(args.name).strip()
    if not (args.bootstrap and args.role == "executive"):
        raise EmployeeError(f"ledger {printable(str(file))}: no such ledger; its first "
                            "enrollment is the first executive's: podium employees add "
                            "--bootstrap --role executive (docs/operator.md)")
    if not name:
        raise EmployeeError(f"employee {number}: --name is empty")
    swipe = read_swipe(f"Swipe the card of {number} {name} now: ")
    parse_swipe(swipe)  # a bad read is refused here, before the ledger exists
    return swipe


def run_add(args: argparse.Namespace, engine: Engine, key_of: Callable[[], CardKey],
            policy: Authorization, swipe: str | None = None) -> int:
    """Enroll; the card key is loaded (made, on a ledger without one) only once the card has
    been read and parsed, so a refused read leaves no key file."""
    number, name = str(args.number).strip(), str(args.name).strip()
    if not name:
        raise EmployeeError(f"employee {number}: --name is empty")
    guarded(args.db, lambda: number_is_free(engine, number))
    same_ok = bool(args.same_name_ok)
    twins = guarded(args.db, lambda: namesakes(engine, name, args.role))
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
    approval = None if bootstrap else read_approval()
    rec = guarded(args.db, lambda: enroll(engine, number, name, args.role, swipe, key=key,
                                          same_name_ok=same_ok, approval=approval,
                                          bootstrap=bootstrap, policy=policy))
    say(f"enrolled employee {rec.number} ({rec.name}, {rec.role}); "
        f"{authority_text(rec.role)}")
    if has_authority(rec.role, "supervisor"):
        say(f"set the PIN with: podium employees set-pin --number {rec.number}")
    return 0


def run_list(args: argparse.Namespace, engine: Engine) -> int:
    records = guarded(args.db, lambda: list_employees(engine))
    if args.json:
        print(json.dumps({"employees": [r.to_json() for r in records]}))
        return 0
    if not records:
        say("no employees enrolled")
        return 0
    rows = [("number", "name", "role", "active", "PIN", "card", "enrolled at (UTC)")]
    rows += [(printable(r.number), printable(r.name), r.role, "yes" if r.active else "NO",
              "yes" if r.pin else "no", "keyed" if r.keyed else "RE-SWIPE NEEDED",
              utc_text(r.enrolled_at)) for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def run_check(args: argparse.Namespace, engine: Engine, key: CardKey,
              policy: Authorization) -> int:
    swipe = read_swipe("Swipe the card to check: ")
    rec = guarded(args.db, lambda: check_card(engine, swipe, key=key, policy=policy))
    say(f"employee {rec.number} ({rec.name}, {rec.role}): {authority_text(rec.role)}")
    return 0
