"""Card-swipe authorization: keyboard-wedge track data, employees, authority.

A magnetic card reader types ISO/IEC 7813 track data, upper case:
track 1 ``%B<number>^<NAME>^<YYMM>...?``, track 2 ``;<number>=<YYMM>...?``; a track that failed
to read arrives as ``%E?`` / ``;E?``.  :func:`parse_swipe` returns the card number and forgets the
rest.  Track data and card numbers are never logged, stored or echoed in a message: an employee's
card is kept only as a per-employee-salted PBKDF2-HMAC-SHA256 hash (plus an installation salt kept
in the ledger's ``settings``).

Authority: ``supervisor`` < ``executive``; ``surveillance`` and ``accountant`` may not authorize
pays.  Every swipe is logged in ``swipe_log`` (outcome, employee if known, hit, role required).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.ledger.models import ROLES, Employee, Setting, SwipeLog

Role = Literal["supervisor", "executive", "surveillance", "accountant"]
SwipeOutcome = Literal["accepted", "unknown_card", "insufficient_authority", "bad_read", "inactive",
                       "same_person"]

#: Authority to authorize pays, lowest first.  Roles not listed have none.
PAY_AUTHORITY: dict[str, int] = {"supervisor": 1, "executive": 2}
PBKDF2_ITERATIONS = 20_000
INSTALL_SALT_KEY = "install_salt"

_TRACK1 = re.compile(r"%B(\d{1,19})\^[^^?]*\^[^?]*\?", re.ASCII)
_TRACK2 = re.compile(r";(\d{1,19})=[^?]*\?", re.ASCII)
_TRACK1_FAILED = "%E?"
_TRACK2_FAILED = ";E?"
_NUMBER = re.compile(r"\d{4,19}", re.ASCII)  # ASCII digits: a reader types nothing else


class AuthError(ValueError):
    """A refused swipe; the message says what is wrong without echoing the track data."""

    def __init__(self, message: str, outcome: SwipeOutcome = "bad_read",
                 employee_id: int | None = None) -> None:
        super().__init__(message)
        self.outcome: SwipeOutcome = outcome
        self.employee_id = employee_id


@dataclass(frozen=True)
class Identity:
    """Who swiped (never the card)."""

    employee_id: int
    number: str
    name: str
    role: str


def parse_swipe(raw: str) -> str:
    """The card number in keyboard-wedge track data (track 1, track 2, or both).

    A track that failed to read (``%E?``, ``;E?``) is ignored if the other track read; if no
    track read, or the two tracks carry different numbers, :class:`AuthError` (bad_read).
    """
    if not isinstance(raw, str):
        raise AuthError("card read: no track data", "bad_read")
    text = raw.strip()
    if not text:
        raise AuthError("card read: nothing was read; swipe the card again", "bad_read")
    numbers: list[str] = []
    failed = 0
    rest = text
    for pattern, failed_marker in ((_TRACK1, _TRACK1_FAILED), (_TRACK2, _TRACK2_FAILED)):
        m = pattern.search(rest)
        if m:
            numbers.append(m.group(1))
            rest = rest[: m.start()] + rest[m.end():]
        elif failed_marker in rest:
            failed += 1
            rest = rest.replace(failed_marker, "", 1)
    if rest.strip():
        raise AuthError("card read: the reader sent data that is not a card track; "
                        "swipe the card again", "bad_read")
    if not numbers:
        if failed:
            raise AuthError("card read: the reader could not read the card (failed read); "
                            "swipe the card again", "bad_read")
        raise AuthError("card read: not a card track; swipe the card again", "bad_read")
    if len(numbers) == 2 and numbers[0] != numbers[1]:
        raise AuthError("card read: track 1 and track 2 carry different card numbers; "
                        "swipe the card again", "bad_read")
    return numbers[0]


def _install_salt(session: Session) -> bytes:
    row = session.get(Setting, INSTALL_SALT_KEY)
    if row is None:
        row = Setting(key=INSTALL_SALT_KEY, value=secrets.token_hex(16))
        session.add(row)
        session.flush()
    return bytes.fromhex(row.value)


def card_hash(card_number: str, salt: bytes, install_salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", card_number.encode("ascii"), install_salt + salt,
                               iterations)


def add_employee(session: Session, number: str, name: str, role: str, card_number: str,
                 *, active: bool = True, now: datetime | None = None) -> Employee:
    """Enroll an employee and the card they swipe (only its salted hash is kept).

    Raises :class:`AuthError` for a bad role, an empty name or number, a card number that is
    not 4-19 digits, a duplicate employee number or a card already enrolled to someone else.
    """
    number = str(number).strip()
    name = str(name).strip()
    if not number:
        raise AuthError("employee number: empty", "bad_read")
    if not name:
        raise AuthError(f"employee {number}: name is empty", "bad_read")
    if role not in ROLES:
        raise AuthError(f"employee {number}: role {role!r} is not one of {', '.join(ROLES)}",
                        "bad_read")
    if not _NUMBER.fullmatch(card_number or ""):
        raise AuthError(f"employee {number}: the card number must be 4 to 19 digits", "bad_read")
    if session.scalar(select(Employee.id).where(Employee.number == number)) is not None:
        raise AuthError(f"employee {number}: already enrolled", "bad_read")
    if _find_by_card(session, card_number, active_only=False) is not None:
        raise AuthError(f"employee {number}: this card is already enrolled to another employee",
                        "bad_read")
    emp = Employee(number=number, name=name, role=role, active=active,
                   created_at=now or datetime.now(UTC))
    set_card(session, emp, card_number)
    session.add(emp)
    session.flush()
    return emp


def set_card(session: Session, emp: Employee, card_number: str) -> None:
    """Store ``card_number`` as ``emp``'s card: a new per-employee salt and its PBKDF2 hash
    (the number itself is never kept).  The caller has checked the card is nobody's."""
    if not _NUMBER.fullmatch(card_number or ""):
        raise AuthError(f"employee {emp.number}: the card number must be 4 to 19 digits",
                        "bad_read")
    salt = secrets.token_bytes(16)
    emp.card_salt = salt
    emp.card_hash = card_hash(card_number, salt, _install_salt(session), PBKDF2_ITERATIONS)
    emp.card_iterations = PBKDF2_ITERATIONS


def find_by_card(session: Session, card_number: str) -> Employee | None:
    """The employee, active or not, whose card this is (None: nobody's)."""
    return _find_by_card(session, card_number, active_only=False)


def _find_by_card(session: Session, card_number: str, *, active_only: bool) -> Employee | None:
    install = _install_salt(session)
    query = select(Employee).order_by(Employee.id)
    if active_only:
        query = query.where(Employee.active.is_(True))
    for emp in session.scalars(query):
        digest = card_hash(card_number, emp.card_salt, install, emp.card_iterations)
        if hmac.compare_digest(digest, emp.card_hash):
            return emp
    return None


def identify(session: Session, card_number: str) -> Employee:
    """The employee whose card this is; AuthError ``unknown_card`` or ``inactive``."""
    emp = _find_by_card(session, card_number, active_only=True)
    if emp is not None:
        return emp
    inactive = _find_by_card(session, card_number, active_only=False)
    if inactive is not None:
        raise AuthError(f"card of employee {inactive.number} ({inactive.name}): the employee is "
                        "not active", "inactive", inactive.id)
    raise AuthError("card: not enrolled (unknown card)", "unknown_card")


def required_role(pay_authorization: str, amount_cents: int,
                  executive_threshold_cents: int | None) -> str:
    """``executive`` when the paytable says so or the amount reaches the threshold, else
    ``supervisor``.  ``pay_authorization`` is ``Pay.authorization`` (or a Pay itself)."""
    auth = getattr(pay_authorization, "authorization", pay_authorization)
    if auth not in PAY_AUTHORITY:
        raise AuthError(f"pay authorization: {auth!r} is not supervisor or executive", "bad_read")
    if executive_threshold_cents is not None and amount_cents >= executive_threshold_cents:
        return "executive"
    return str(auth)


def has_authority(role: str, needed: str) -> bool:
    have = PAY_AUTHORITY.get(role, 0)
    return have > 0 and have >= PAY_AUTHORITY[needed]


def log_swipe(session: Session, outcome: SwipeOutcome, *, employee_id: int | None,
              hit_id: int | None, action: str, role_required: str | None,
              now: datetime) -> None:
    session.add(SwipeLog(outcome=outcome, employee_id=employee_id, hit_id=hit_id, action=action,
                         role_required=role_required, created_at=now))
    session.flush()


# what the swipe authorizes, in the refusal's words (the action names of swipe_log)
ACTION_WORDS = {"pay": "this pay", "reject": "a rejection", "adjust": "a meter adjustment",
                "bbj_case": "a Bad Beat Jackpot step", "machine_check": "a machine check"}


def authorize(session: Session, raw_swipe: str, needed: str | None,
              action: str = "pay") -> Employee:
    """Parse and identify a swipe and check its authority (``needed`` None: any active role)
    for ``action`` (a swipe_log action: its words are in the refusal).

    Does NOT log: the caller logs the outcome (accepted, or ``AuthError.outcome``) in its own
    transaction so that a refusal changes nothing but the swipe log.
    """
    number = parse_swipe(raw_swipe)
    emp = identify(session, number)
    if needed is not None and not has_authority(emp.role, needed):
        words = ACTION_WORDS.get(action, action)
        article = "an" if needed[:1] in "aeiou" else "a"
        what = (f"may not authorize {words}: it needs {article} {needed}"
                if emp.role not in PAY_AUTHORITY
                else f"can not authorize {words}: it needs {article} {needed}")
        raise AuthError(f"employee {emp.number} ({emp.name}, {emp.role}) {what}",
                        "insufficient_authority", emp.id)
    return emp
