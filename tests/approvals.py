"""A floor change approved the way an executive approves it (docs/operator.md "Approving a floor
change"), for the tests that restart a floor on a changed file: an executive of the tests' own
(``XA``, card and PIN below) is enrolled once per ledger, then swipes and types the PIN through
the card gate (core/tablegames/floor_approval.py)."""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.floorconfig import FloorConfig
from core.ledger.models import Employee
from core.people import cardkey
from core.people.auth import Credential, add_employee

APPROVER = ("XA", "Floor Approver", "6299000000000009", "9753")  # number, name, card, PIN


def approve_floor(engine: Engine, config: FloorConfig, reason: str = "test") -> str:
    """Record an executive's approval of ``config``'s changes against the ledger."""
    from core.cli.employees import pins
    from core.tablegames import floor_approval

    number, name, card, pin = APPROVER
    swipe = f";{card}=2812101?"
    key = cardkey.load(config.authorization.card_key or None)
    with Session(engine) as s:
        known = s.scalar(select(Employee.id).where(Employee.number == number)) is not None
    if not known:
        with Session(engine) as s, s.begin():
            add_employee(s, key, number, name, "executive", card)
        pins.set_pin(engine, number, swipe, None, pin, key=key)
    return floor_approval.approve(engine, key, config, Credential(swipe, pin), via="command",
                                  reason=reason)
