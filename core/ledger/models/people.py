"""People in the ledger: the employees (card holders) and the history of their records, every
card swipe and its outcome, and the card locks."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.ledger.models.base import Base, UTCDateTime


class Employee(Base):
    """A card holder.  The card number is NEVER stored: only ``card_mac``, its HMAC under the
    card key kept outside the ledger (core/people/cardkey.py).  ``card_salt``/``card_hash``/
    ``card_iterations`` hold an enrolment from before revision 0015 (a salted PBKDF2 hash) until
    that card is swiped once; they are empty for a keyed card.  ``pin``: the slow hash of the
    keyed PIN (``scrypt$n$r$p$salt$hash``), or NULL."""

    __tablename__ = "employees"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    number: Mapped[str] = mapped_column(String(32), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(16))
    active: Mapped[bool] = mapped_column(Boolean)
    card_salt: Mapped[bytes] = mapped_column(LargeBinary)
    card_hash: Mapped[bytes] = mapped_column(LargeBinary)
    card_iterations: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    card_mac: Mapped[bytes | None] = mapped_column(LargeBinary(32))
    pin: Mapped[str | None] = mapped_column(String(200))

    __table_args__ = (Index("uq_employees_card_mac", "card_mac", unique=True),)


class EmployeeEvent(Base):
    """Append-only: an employee enrolled, deactivated or reactivated, a card replaced, a PIN
    set or reset; why, by which operator (the operating-system account that ran the command),
    which executive approved it, and the digest of the row's state after it."""

    __tablename__ = "employee_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    event: Mapped[str] = mapped_column(String(16))  # enrolled|bootstrap|baseline|deactivated|...
    reason: Mapped[str] = mapped_column(Text)
    operator: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # revision 0022: SHA-256 of the employee row's state columns after this event
    # (core/ledger/people.py), and the executive who approved the change (NULL: none needed,
    # e.g. a PIN set with the employee's own card, the bootstrap of the first executive)
    state_digest: Mapped[bytes | None] = mapped_column(LargeBinary(32))
    approved_by: Mapped[int | None] = mapped_column(Integer)  # employees.id (no FK: 0022)


class SwipeLog(Base):
    """Append-only: every card swipe and its outcome.  Never the track data or card number:
    ``card_mac`` (the card's keyed hash, core/people/cardkey.py) ties the swipes of one card
    together, known or not; ``reason`` is the refusal as the user read it (NULL when accepted)."""

    __tablename__ = "swipe_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    outcome: Mapped[str] = mapped_column(String(24))
    employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    hit_id: Mapped[int | None] = mapped_column(ForeignKey("hits.id"), index=True)
    action: Mapped[str] = mapped_column(String(32))
    role_required: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    card_mac: Mapped[bytes | None] = mapped_column(LargeBinary(32))
    reason: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_swipe_log_card_mac", "card_mac", "created_at"),)


class CardLock(Base):
    """Append-only: a card locked after too many refused swipes (``event`` locked), or lifted
    by an executive (``event`` lifted, ``by_employee_id``).  A card is locked while its newest
    row says so."""

    __tablename__ = "card_locks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    card_mac: Mapped[bytes] = mapped_column(LargeBinary(32), index=True)
    event: Mapped[str] = mapped_column(String(16))  # locked | lifted
    employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))  # whose card
    by_employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
