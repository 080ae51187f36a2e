"""``podium employees deactivate`` / ``reactivate``, ``replace-card`` and ``unlock``: what an
employee's card may do.

Ledger records: ``deactivate`` / ``reactivate`` and ``replace-card`` change the state columns
of ``employees`` (active, card) in place, each with an ``employee_events`` row carrying the
row's new digest (core/ledger/people.py), so that a change made outside Podium is refused at the
swipe and reported by ``podium audit verify``; each is approved by an executive
(core/cli/employees/approval.py).  ``unlock``: a ``card_locks`` row ``lifted`` by the executive
who swiped (the card gate's :meth:`core.people.auth.Gate.lift`)."""

from __future__ import annotations

import argparse
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.cli.employees.approval import (
    approved,
    ensure_key_noted,
    key_or_default,
    need_approval,
    not_self,
)
from core.cli.employees.enrollment import card_is_free, lock_enrollment
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
from core.people.auth import Credential, Gate, find_by_card, log_swipe, parse_swipe, set_card
from core.people.cardkey import CardKey


def set_active(engine: Engine, number: str, active: bool, reason: str = "",
               *, approval: Credential | None = None, now: datetime | None = None,
               key: CardKey | None = None,
               policy: Authorization | None = None) -> EmployeeRecord:
    """Deactivate (``active`` False) or reactivate an employee, approved by an executive's
    swipe and PIN (``approval``), with an ``employee_events`` row (why, which operator, which
    executive, the row's new digest) in the same transaction; EmployeeError for no approval,
    an unknown number, an employee already in that state, or no reason.  Identify/authorize
    only accept active cards."""
    number = employee_number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    verb = "reactivating" if active else "deactivating"
    need_approval(approval, f"{verb} employee {number}")

    def write(s: Session, exe: Employee, when: datetime) -> EmployeeRecord:
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        if bool(emp.active) == active:
            state = "active" if active else "inactive"
            raise EmployeeError(f"employee {number} ({emp.name}): already {state}")
        not_self(exe, emp, f"{verb} a card")
        emp.active = active
        record_event(s, emp, "reactivated" if active else "deactivated", reason=reason,
                     operator=operator(), when=when, approved_by=exe.id)
        return record_of(emp)

    return approved(engine, approval, key=key_or_default(key, create=False), policy=policy,
                    now=now, action="approve_reactivate" if active else "approve_deactivate",
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
    number = employee_number(number)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    need_approval(approval, f"replacing the card of employee {number}")
    key = key_or_default(key, create=False)
    card = parse_swipe(swipe)
    ensure_key_noted(engine, key)
    with Session(engine) as s:
        emp_id = s.scalar(select(Employee.id).where(Employee.number == number))
    if emp_id is None:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    card_is_free(engine, key, card, f"employee {number}: this card is already enrolled to "
                                    "another employee; use a new card",
                 (emp_id, f"employee {number}: this card is already this employee's card; "
                          "use a new card"))

    def write(s: Session, exe: Employee, when: datetime) -> EmployeeRecord:
        lock_enrollment(s)
        emp = s.scalar(select(Employee).where(Employee.number == number).with_for_update())
        if emp is None:
            raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
        not_self(exe, emp, "a new card")
        owner = find_by_card(s, key, card)
        if owner is not None:
            whose = "already this employee's card" if owner.id == emp.id \
                else "already enrolled to another employee"
            raise EmployeeError(f"employee {number}: this card is {whose}; use a new card")
        set_card(s, key, emp, card)
        record_event(s, emp, "card_replaced", reason=reason, operator=operator(), when=when,
                     approved_by=exe.id)
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=None, action="replace_card",
                  role_required=None, now=when, card_mac=emp.card_mac)
        return record_of(emp)

    return approved(engine, approval, key=key, policy=policy, now=now,
                    action="approve_replace_card",
                    words=f"replacing the card of employee {number}", write=write)


# --- at the terminal -------------------------------------------------------------------------

def run_active(args: argparse.Namespace, engine: Engine, key: CardKey,
               policy: Authorization) -> int:
    """``deactivate`` and ``reactivate``."""
    approval = read_approval()
    rec = guarded(args.db, lambda: set_active(engine, args.number,
                                              args.employees_command == "reactivate",
                                              args.reason, approval=approval, key=key,
                                              policy=policy))
    state = "active again" if rec.active else "deactivated: the card authorizes nothing"
    say(f"employee {rec.number} ({rec.name}, {rec.role}): {state}")
    return 0


def run_replace_card(args: argparse.Namespace, engine: Engine, key: CardKey,
                     policy: Authorization) -> int:
    number = str(args.number).strip()
    reason = str(args.reason).strip()
    if not reason:
        raise EmployeeError(f"employee {number}: give a --reason (it is kept in the ledger)")
    who = guarded(args.db, lambda: [r for r in list_employees(engine) if r.number == number])
    if not who:
        raise EmployeeError(f"employee {number}: not enrolled (unknown employee number)")
    swipe = read_swipe(f"Swipe the NEW card of {number} {who[0].name} now: ")
    approval = read_approval()
    rec = guarded(args.db, lambda: replace_card(engine, number, swipe, reason, key=key,
                                                approval=approval, policy=policy))
    state = "" if rec.active else " (the employee is deactivated: reactivate to use it)"
    say(f"employee {rec.number} ({rec.name}, {rec.role}): new card enrolled; the old card "
        f"authorizes nothing from now{state}")
    return 0


def run_unlock(args: argparse.Namespace, engine: Engine, key: CardKey,
               policy: Authorization) -> int:
    locked = read_swipe("Swipe the LOCKED card now: ") if args.card else None
    swipe = read_swipe("Executive: swipe your card now: ")
    pin = read_pin("Executive PIN: ") if policy.pin_needed("executive") else None
    credential = Credential(swipe, pin) if pin else swipe
    gate = Gate(engine, key, policy)
    done = guarded(args.db, lambda: gate.lift(locked, args.number, credential, args.reason))
    say(done)
    return 0
