"""What ``podium employees`` shows of an employee, and what its families share: the refusal
(:class:`EmployeeError`), the listing's record (never the card), an employee number as typed,
the operating-system account that ran the command."""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import Employee


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
                "active": self.active, "enrolled_at": utc_text(self.enrolled_at),
                "pin": self.pin, "card": "keyed" if self.keyed else "re-swipe needed"}


def record_of(emp: Employee) -> EmployeeRecord:
    return EmployeeRecord(emp.number, emp.name, emp.role, bool(emp.active), emp.created_at,
                          emp.pin is not None, emp.card_mac is not None)


def utc_text(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def employee_number(number: str) -> str:
    """An employee number as typed, stripped; EmployeeError when empty."""
    text = str(number).strip()
    if not text:
        raise EmployeeError("employee number: empty")
    return text


def list_employees(engine: Engine) -> list[EmployeeRecord]:
    """Every enrolled employee, by employee number."""
    with Session(engine) as s:
        return [record_of(e) for e in s.scalars(select(Employee).order_by(Employee.number))]


def operator() -> str:
    """Who ran the command: the operating-system account (recorded, never trusted for pays)."""
    try:
        return getpass.getuser()
    except Exception:  # no user name available (some containers)
        return "unknown"
