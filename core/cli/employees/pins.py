"""``podium employees set-pin`` and ``reset-pin``: an employee's PIN, typed after their swipe.

Ledger records: ``employees.pin`` (the slow hash of the keyed PIN) changed in place, with an
``employee_events`` row carrying the row's new digest (core/ledger/people.py): ``pin_set`` on
the employee's own card and old PIN; ``pin_reset`` approved by an executive
(core/cli/employees/approval.py), after which the employee sets a new one."""

from __future__ import annotations

import argparse
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.cli.employees.approval import approved, key_or_default, need_approval, not_self
from core.cli.employees.ledger import guarded
from core.cli.employees.records import (
    EmployeeError,
    EmployeeRecord,
    employee_number,
    list_employees,
    operator,
    record_of,
)
from core.cli.employees.terminal import read_approval, read_pin, read_swipe, say
from core.floorconfig import Authorization
from core.ledger.models import Employee
from core.ledger.people import record_event
from core.people.auth import AuthError, Credential, Gate, check_pin_text, default_policy, pin_hash
from core.people.cardkey import CardKey


def set_pin(engine: Engine, number: str, swipe: str, old_pin: str | None, new_pin: str,
            *, key: CardKey | None = None, now: datetime | None = None,
            policy: Authorization | None = None) -> EmployeeRecord:
    """Set employee ``number``'s PIN: their own card (``swipe``) and, if they have a PIN, the
    old one.  One transaction: the slow hash of the keyed PIN, a ``pin_set`` employee event and
    the swipe-log row.  A wrong card or old PIN is logged and counts towards the lockout."""
    number = employee_number(number)
    check_pin_text(new_pin, f"employee {number}")
    key = key_or_default(key)
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
        record_event(s, emp, "pin_set", operator=operator(), when=when)
        return record_of(emp)

    return gate.run(credential, None, "set_pin", write, words="setting a PIN")


def reset_pin(engine: Engine, number: str, reason: str,
              *, approval: Credential | None = None, now: datetime | None = None,
              key: CardKey | None = None,
              policy: Authorization | None = None) -> EmployeeRecord:
    """Clear a forgotten PIN, approved by an executive's swipe and PIN (``approval``; not the
    employee's own): who ran it, who approved it and why are kept in ``employee_events``; the
    employee sets a new one with set-pin."""
    number = employee_number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    need_approval(approval, f"resetting the PIN of employee {number}")

    def write(s: Session, exe: Employee, when: datetime) -> EmployeeRecord:
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        if emp.pin is None:
            raise EmployeeError(f"employee {number} ({emp.name}): has no PIN to reset")
        not_self(exe, emp, "resetting a PIN")
        emp.pin = None
        record_event(s, emp, "pin_reset", reason=reason, operator=operator(), when=when,
                     approved_by=exe.id)
        return record_of(emp)

    return approved(engine, approval, key=key_or_default(key, create=False), policy=policy,
                    now=now, action="approve_reset_pin",
                    words=f"resetting the PIN of employee {number}", write=write)


# --- at the terminal -------------------------------------------------------------------------

def run_set_pin(args: argparse.Namespace, engine: Engine, key: CardKey,
                policy: Authorization) -> int:
    number = employee_number(args.number)
    who = guarded(args.db, lambda: [r for r in list_employees(engine) if r.number == number])
    if not who:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    swipe = read_swipe(f"Swipe the card of {number} {who[0].name} now: ")
    old = read_pin("Current PIN: ") if who[0].pin else None
    new = read_pin("New PIN (4 to 12 digits): ")
    check_pin_text(new, f"employee {number}")
    if read_pin("New PIN again: ") != new:
        raise EmployeeError(f"employee {number}: the two new PINs differ; nothing was changed")
    rec = guarded(args.db, lambda: set_pin(engine, number, swipe, old, new, key=key,
                                           policy=policy))
    say(f"employee {rec.number} ({rec.name}): PIN set")
    return 0


def run_reset_pin(args: argparse.Namespace, engine: Engine, key: CardKey,
                  policy: Authorization) -> int:
    approval = read_approval()
    rec = guarded(args.db, lambda: reset_pin(engine, args.number, args.reason,
                                             approval=approval, key=key, policy=policy))
    say(f"employee {rec.number} ({rec.name}): PIN cleared; they set a new one with "
        "podium employees set-pin")
    return 0
