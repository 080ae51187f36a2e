"""People records the ledger vouches for: an employee's card, PIN and active flag.

``employees.card_mac``, ``pin``, ``active`` (and an old enrolment's ``card_salt``/``card_hash``/
``card_iterations``) are state columns (core/ledger/integrity.py ``STATE``): they change in place,
so the hash chain cannot vouch for them, and a login that may UPDATE them could swap two
employees' cards.  So every change of them (and the enrolment) writes an ``employee_events`` row
(append-only, chained) carrying ``state_digest``: SHA-256 over a canonical encoding of the
employee id and the row's NEW values of those columns (:func:`state_digest`).  The row's current
values must match its latest event's digest: ``podium audit verify`` reports a row that does not
as a break naming the employee, and the card gate (core/people/auth.py) refuses its card.

Revision 0022 recorded a ``baseline`` event for every employee of an existing ledger: for those,
the ledger vouches from the migration on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from core.ledger.models import Employee, EmployeeEvent

#: The employee columns the digest covers: chain.STATE["employees"], fixed here (a digest
#: written once must verify forever, whatever columns become state later).
STATE_COLUMNS: tuple[str, ...] = ("active", "card_hash", "card_iterations", "card_mac",
                                  "card_salt", "pin")
_DOMAIN = "podium-employee-state-v1"
_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode


def _canonical(column: str, value: Any) -> Any:
    """One column's value, the same whichever database and driver read it."""
    if value is None:
        return None
    if column == "active":
        return bool(value)
    if column == "card_iterations":
        return int(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return str(value)


def state_digest(employee_id: int, values: Mapping[str, Any]) -> bytes:
    """SHA-256 over the employee id and the state columns of ``values`` (by name)."""
    body = _encode([_DOMAIN, int(employee_id),
                    {c: _canonical(c, values.get(c)) for c in STATE_COLUMNS}])
    return hashlib.sha256(body.encode("ascii")).digest()


def digest_of(emp: Employee) -> bytes:
    """The digest of ``emp``'s state columns as they stand in this session."""
    return state_digest(emp.id, {c: getattr(emp, c) for c in STATE_COLUMNS})


def record_event(session: Session, emp: Employee, event: str, *, operator: str,
                 when: datetime, reason: str = "",
                 approved_by: int | None = None) -> EmployeeEvent:
    """Append the ``employee_events`` row of a change of ``emp`` (already made on the object):
    what, why, which operator, which executive approved it, and the digest of the row's new
    state.  Every change of a card, PIN or active flag goes through here."""
    if emp.id is None:
        session.flush()  # the new employee's id is part of the digest
    row = EmployeeEvent(employee_id=emp.id, event=event, reason=reason, operator=operator,
                        created_at=when, state_digest=digest_of(emp), approved_by=approved_by)
    session.add(row)
    session.flush()
    return row


def latest_digest(session: Session, employee_id: int) -> bytes | None:
    """The digest of the employee's latest event (None: no event vouches for the row)."""
    value = session.scalar(select(EmployeeEvent.state_digest)
                           .where(EmployeeEvent.employee_id == employee_id)
                           .order_by(EmployeeEvent.id.desc()).limit(1))
    return None if value is None else bytes(value)


def vouched(session: Session, emp: Employee) -> bool:
    """Whether ``emp``'s row is what its latest event says it became."""
    return latest_digest(session, emp.id) == digest_of(emp)


def mismatch_text(number: str, name: str) -> str:
    """The refusal of a card whose employee row does not match its history (one line)."""
    return (f"card record of employee {number} ({name}) does not match its ledger history "
            "(its card, PIN or active flag was changed outside Podium); the card is refused: "
            "see podium audit verify")


@dataclass(frozen=True)
class Mismatch:
    """An employee row that its latest event does not vouch for."""

    employee_id: int
    number: str
    name: str
    event_id: int | None  # the latest event (None: there is none)


def mismatches(conn: Connection) -> list[Mismatch]:
    """Every employee whose row differs from its latest event's digest, by employee id (two
    queries: every employee, every employee's latest event)."""
    emp = Employee.__table__
    ev = EmployeeEvent.__table__
    latest: dict[int, tuple[int, bytes | None]] = {}
    for event_id, employee_id, digest in conn.execute(
            select(ev.c.id, ev.c.employee_id, ev.c.state_digest).order_by(ev.c.id)):
        latest[int(employee_id)] = (int(event_id), None if digest is None else bytes(digest))
    out: list[Mismatch] = []
    cols = [emp.c[c] for c in STATE_COLUMNS]
    for row in conn.execute(select(emp.c.id, emp.c.number, emp.c.name, *cols)
                            .order_by(emp.c.id)).mappings():
        event_id, digest = latest.get(int(row["id"]), (None, None))
        if digest != state_digest(int(row["id"]), {c: row[c] for c in STATE_COLUMNS}):
            out.append(Mismatch(int(row["id"]), str(row["number"]), str(row["name"]), event_id))
    return out
