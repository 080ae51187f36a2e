"""An executive approves every people change (issue 23): every enrollment, card replacement,
PIN reset, deactivation and reactivation, and a contribution rate above the pre-configured one.
Their swipe and PIN, read after the subject's swipe, are checked by the card gate (an active
executive whose own record matches its history, the right PIN, not the person changed) in the
change's own write transaction, and the executive is named in the record (``approved_by``).
The first executive of a ledger without an active one is enrolled with ``add --bootstrap``
(core/cli/employees/enrollment.py).

Also the card key a change is made with, and its fingerprint noted in the ledger."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.cli.employees.records import EmployeeError
from core.floorconfig import Authorization
from core.ledger.models import Employee
from core.people import cardkey
from core.people.auth import AuthError, Credential, Gate, default_policy, note_key, same_person
from core.people.cardkey import CardKey

T = TypeVar("T")


def need_approval(approval: Credential | None, words: str) -> Credential:
    """The executive's swipe and PIN, or EmployeeError (checked before anything is read from
    the ledger or written)."""
    if approval is None or not str(approval.track or "").strip():
        raise EmployeeError(f"{words}: needs an executive's card swipe and PIN (none given); "
                            "nothing was changed")
    if not approval.pin:
        raise EmployeeError(f"{words}: needs the executive's PIN after the swipe; nothing was "
                            "changed")
    return approval


def approved(engine: Engine, approval: Credential | None, *, key: CardKey,
             policy: Authorization | None, now: datetime | None, action: str, words: str,
             write: Callable[[Session, Employee, datetime], T]) -> T:
    """``write(session, executive, now)`` in ONE write transaction with the executive's
    accepted swipe, once the card gate has checked the swipe and PIN: an active executive,
    whose row matches its ledger history, with the right PIN.  A refused approval is logged
    in ``swipe_log`` (and counts towards the card's lockout) and raised; nothing else is
    written then."""
    credential = need_approval(approval, words)
    gate = Gate(engine, key, policy or default_policy(),
                (lambda: now) if now is not None else None)
    return gate.run(credential, "executive", action, write, words=words)


def not_self(exe: Employee, emp: Employee, what: str) -> None:
    if same_person(exe, emp):
        raise AuthError(f"employee {exe.number} ({exe.name}) may not approve {what} of their "
                        "own: another executive must", "same_person", exe.id)


def key_or_default(key: CardKey | None, *, create: bool = True) -> CardKey:
    """``key``, or the default card key (made first only if ``create``: a key is made for a
    new ledger's first enrollment, never by a command that only reads one)."""
    return key if key is not None else cardkey.load(create=create)


def ensure_key_noted(engine: Engine, key: CardKey) -> None:
    """Record the card key's fingerprint (core/people/auth.py) in its own transaction, so that the
    enrollment transaction can lock its row; AuthError for another key than the ledger's."""
    try:
        with Session(engine) as s, s.begin():
            note_key(s, key)
    except IntegrityError:  # another podium noted it at the same moment: check theirs
        with Session(engine) as s, s.begin():
            note_key(s, key)
