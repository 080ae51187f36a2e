"""Card-swipe authorization: keyboard-wedge track data, employees, PINs, authority, lockout.

A magnetic card reader types ISO/IEC 7813 track data, upper case:
track 1 ``%B<number>^<NAME>^<YYMM>...?``, track 2 ``;<number>=<YYMM>...?``; a track that failed
to read arrives as ``%E?`` / ``;E?``.  :func:`parse_swipe` returns the card number and forgets the
rest.  Track data, card numbers and PINs are never logged, stored or echoed in a message.

**Cards.**  A card is kept as its HMAC under the card key (``employees.card_mac``,
core/people/cardkey.py); the key lives outside the ledger, so a copy of the ledger alone reveals no
card,
and identifying a swipe is one indexed lookup, the same for every card.  An enrolment from before
the key (a salted PBKDF2 hash) is found the slow way once, then re-kept as its HMAC (migration by
re-swipe).

**The gate** (:class:`Gate`): every authorizing swipe goes through it in two steps.
:meth:`Gate.identify` reads the card, checks its lock and its PIN (a slow hash) in a read-only
session, outside the ledger's write lock; :meth:`Gate.authority` then checks, inside the write
transaction, that the employee is still active, has the authority and typed the PIN the floor
asks for.  :meth:`Gate.refused` logs every refusal, at any step, with who (if the card is known),
which card (its HMAC), what (action, hit, role required) and why (the message the user read), and
locks a card after ``lockout_failures`` refusals within ``lockout_minutes`` until an executive
lifts it.

**A record no login can swap.** The card, PIN and active flag of an employee change in place; a
card whose employee row is not what its latest ``employee_events`` row's digest says is refused
by :meth:`Gate.identify` and :meth:`Gate.authority` (``record_mismatch``: changed outside Podium,
core/ledger/people.py).  Podium's own changes go through :func:`core.ledger.people.record_event`.

Authority: ``supervisor`` < ``executive``; ``surveillance`` and ``accountant`` may not authorize
pays.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeVar

from sqlalchemy import Connection, Engine, func, insert, select
from sqlalchemy.orm import Session

from core.floorconfig import Authorization
from core.ledger.db import lock_record, reader
from core.ledger.models import (
    ROLES,
    CardLock,
    Employee,
    ParameterChange,
    Setting,
    SwipeLog,
)
from core.ledger.people import mismatch_text, record_event, vouched
from core.people import cardkey
from core.people.cardkey import CardKey
from core.people.who import Who

log = logging.getLogger("podium.auth")
T = TypeVar("T")

Role = Literal["supervisor", "executive", "surveillance", "accountant"]
SwipeOutcome = Literal["accepted", "unknown_card", "insufficient_authority", "bad_read", "inactive",
                       "same_person", "wrong_pin", "pin_missing", "locked", "wrong_key",
                       "record_mismatch", "refused"]
#: Refusals that count towards a card's lockout (the card's holder, or whoever holds the card,
#: tried something the card may not do).
COUNTED: frozenset[str] = frozenset({"unknown_card", "insufficient_authority", "inactive",
                                     "wrong_pin", "same_person"})

#: Authority to authorize pays, lowest first.  Roles not listed have none.
PAY_AUTHORITY: dict[str, int] = {"supervisor": 1, "executive": 2}
PBKDF2_ITERATIONS = 20_000  # enrolments from before the card key (revision 0015)
INSTALL_SALT_KEY = "install_salt"
CARD_KEY_ID = "card_key_id"  # the fingerprint of the key this ledger's cards were kept with
PIN_DIGITS = re.compile(r"\d{4,12}", re.ASCII)
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # about 16 MB and some tens of ms per check

_TRACK1 = re.compile(r"%B(\d{4,19})\^[^^?]*\^[^?]*\?", re.ASCII)
_TRACK2 = re.compile(r";(\d{4,19})=[^?]*\?", re.ASCII)
MAX_SWIPE = 256  # track 1 (79) + track 2 (40) with room; a reader types nothing longer
_TRACK1_FAILED = "%E?"
_TRACK2_FAILED = ";E?"
_NUMBER = re.compile(r"\d{4,19}", re.ASCII)  # ASCII digits: a reader types nothing else


class AuthError(ValueError):
    """A refused swipe; the message says what is wrong without echoing the track data."""

    def __init__(self, message: str, outcome: SwipeOutcome = "bad_read",
                 employee_id: int | None = None, card_mac: bytes | None = None) -> None:
        super().__init__(message)
        self.outcome: SwipeOutcome = outcome
        self.employee_id = employee_id
        self.card_mac = card_mac


@dataclass(frozen=True)
class Credential:
    """What a person gave at a swipe prompt: the track data and, when asked, the PIN typed
    after it.  Neither appears in a repr."""

    track: str = field(repr=False)
    pin: str | None = field(default=None, repr=False)


Swipe = str | Credential


def _split(swipe: Swipe) -> tuple[str, str | None]:
    if isinstance(swipe, Credential):
        return swipe.track, swipe.pin
    return swipe, None


@dataclass(frozen=True)
class Swiper:
    """A card identified by :meth:`Gate.identify` (never the card number): an authenticated
    swipe, not yet a record; :attr:`who` is the person it names, as records keep them."""

    employee_id: int
    number: str
    name: str
    role: str
    card_mac: bytes = field(repr=False)
    pin_checked: bool  # a PIN was typed and is this employee's

    @property
    def who(self) -> Who:
        return Who.of(self)


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
    if len(text) > MAX_SWIPE:
        raise AuthError("card read: far longer than any card track (the reader sends at most "
                        "two tracks); swipe the card again", "bad_read")
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


# --- the card and the PIN as the ledger keeps them -------------------------------------------

def _install_salt(session: Session) -> bytes | None:
    """The installation salt of enrolments from before the card key (None on a newer ledger)."""
    row = session.get(Setting, INSTALL_SALT_KEY)
    return None if row is None else bytes.fromhex(row.value)


def legacy_card_hash(card_number: str, salt: bytes, install_salt: bytes,
                     iterations: int) -> bytes:
    """The salted PBKDF2 hash an enrolment from before revision 0015 keeps."""
    return hashlib.pbkdf2_hmac("sha256", card_number.encode("ascii"), install_salt + salt,
                               iterations)


def note_key(session: Session, key: CardKey) -> None:
    """Record which key this ledger's cards are kept with (its fingerprint), or refuse a key
    that is not that one (AuthError ``wrong_key``).  The setting is a copy: the record is a
    ``parameter_changes`` row (:func:`record_card_key`), which ``podium audit verify``
    compares it with."""
    row = session.get(Setting, CARD_KEY_ID)
    if row is None:
        session.add(Setting(key=CARD_KEY_ID, value=key.key_id()))
        session.flush()
        record_card_key(session.connection(), "", key.key_id(), datetime.now(UTC),
                        f"card key {key.where()}")
    elif row.value != key.key_id():
        raise key_mismatch(key, row.value)


CARD_KEY_RECORD = ("ledger", "cards", CARD_KEY_ID)
"""``parameter_changes`` (scope, subject, name) of the card key's fingerprint."""


def record_card_key(conn: Connection, old: str, new: str, at: datetime, source: str) -> None:
    """The card key's fingerprint as a record (append-only, chained): the only way
    ``settings.card_key_id`` may change (revision 0024)."""
    scope, subject, name = CARD_KEY_RECORD
    conn.execute(insert(ParameterChange).values(
        at=at, scope=scope, subject=subject, name=name, old_value=old, new_value=new,
        effective="at once", source=source[:500], file_sha256=""))


def recorded_card_key(conn: Connection) -> str | None:
    """The card key fingerprint the ledger's records last name (None: never recorded)."""
    scope, subject, name = CARD_KEY_RECORD
    return conn.execute(select(ParameterChange.new_value).where(
        ParameterChange.scope == scope, ParameterChange.subject == subject,
        ParameterChange.name == name).order_by(ParameterChange.id.desc()).limit(1)).scalar()


def key_mismatch(key: CardKey, ledger_id: str) -> AuthError:
    return AuthError(f"card key {key.where()} (fingerprint {key.key_id()}) is not the key this "
                     f"ledger's cards were enrolled with (fingerprint {ledger_id}): copy the "
                     "floor's card key file to this podium (docs/operator.md, Card key)",
                     "wrong_key")


def add_employee(session: Session, key: CardKey, number: str, name: str, role: str,
                 card_number: str, *, active: bool = True,
                 now: datetime | None = None, operator: str = "podium",
                 event: str = "enrolled", reason: str = "",
                 approved_by: int | None = None) -> Employee:
    """Enroll an employee and the card they swipe (only its HMAC is kept), with the
    ``employee_events`` row that vouches for the new row (``event``, ``operator``, the approving
    executive; core/ledger/people.py).

    Raises :class:`AuthError` for a bad role, an empty name or number, a card number that is
    not 4-19 digits, a duplicate employee number or a card already enrolled to someone else.
    """
    number = str(number).strip()
    name = str(name).strip()
    if not number:
        raise AuthError("employee number: empty", "bad_read")
    if len(number) > 32:
        raise AuthError("employee number: at most 32 characters", "bad_read")
    if not name:
        raise AuthError(f"employee {number}: name is empty", "bad_read")
    if len(name) > 200:
        raise AuthError(f"employee {number}: the name is longer than 200 characters",
                        "bad_read")
    if role not in ROLES:
        raise AuthError(f"employee {number}: role {role!r} is not one of {', '.join(ROLES)}",
                        "bad_read")
    if not _NUMBER.fullmatch(card_number or ""):
        raise AuthError(f"employee {number}: the card number must be 4 to 19 digits", "bad_read")
    if session.scalar(select(Employee.id).where(Employee.number == number)) is not None:
        raise AuthError(f"employee {number}: already enrolled", "bad_read")
    note_key(session, key)
    if find_by_card(session, key, card_number) is not None:
        raise AuthError(f"employee {number}: this card is already enrolled to another employee",
                        "bad_read")
    emp = Employee(number=number, name=name, role=role, active=active,
                   created_at=now or datetime.now(UTC), card_salt=b"", card_hash=b"",
                   card_iterations=0)
    set_card(session, key, emp, card_number)
    session.add(emp)
    session.flush()
    record_event(session, emp, event, operator=operator, when=emp.created_at, reason=reason,
                 approved_by=approved_by)
    return emp


def set_card(session: Session, key: CardKey, emp: Employee, card_number: str) -> None:
    """Keep ``card_number`` as ``emp``'s card: its HMAC under the card key (the number itself
    is never kept; an old PBKDF2 hash is erased).  The caller has checked it is nobody's."""
    if not _NUMBER.fullmatch(card_number or ""):
        raise AuthError(f"employee {emp.number}: the card number must be 4 to 19 digits",
                        "bad_read")
    emp.card_mac = key.card_mac(card_number)
    emp.card_salt = b""
    emp.card_hash = b""
    emp.card_iterations = 0


def find_by_card(session: Session, key: CardKey, card_number: str) -> Employee | None:
    """The employee, active or not, whose card this is (None: nobody's): one indexed lookup,
    then (only while enrolments from before the card key remain) their slow hashes."""
    mac = key.card_mac(card_number)
    emp = session.scalar(select(Employee).where(Employee.card_mac == mac))
    return emp if emp is not None else _find_legacy(session, card_number)


def _find_legacy(session: Session, card_number: str) -> Employee | None:
    install = _install_salt(session)
    if install is None:
        return None
    for emp in session.scalars(select(Employee).where(Employee.card_mac.is_(None))
                               .order_by(Employee.id)):
        digest = legacy_card_hash(card_number, emp.card_salt, install, emp.card_iterations)
        if hmac.compare_digest(digest, emp.card_hash):
            return emp
    return None


def pin_hash(key: CardKey, employee_id: int, pin: str) -> str:
    """The slow hash of the keyed PIN, as ``employees.pin`` keeps it."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(key.pin_input(employee_id, pin), salt=salt, n=SCRYPT_N, r=SCRYPT_R,
                            p=SCRYPT_P, maxmem=64 * 1024 * 1024, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def pin_matches(key: CardKey, employee_id: int, pin: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(key.pin_input(employee_id, pin), salt=bytes.fromhex(salt),
                             n=int(n), r=int(r), p=int(p), maxmem=64 * 1024 * 1024, dklen=32)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, bytes.fromhex(digest))


def check_pin_text(pin: str, who: str) -> str:
    if not isinstance(pin, str) or not PIN_DIGITS.fullmatch(pin):
        raise AuthError(f"{who}: a PIN is 4 to 12 digits", "bad_read")
    return pin


def same_person(a: Employee | Swiper, b: Employee | Swiper) -> bool:
    """One person: the same employee, or two enrolments with the same name (case and spaces
    aside): two cards of one person do not make two signatures."""
    a_id = a.employee_id if isinstance(a, Swiper) else a.id
    b_id = b.employee_id if isinstance(b, Swiper) else b.id
    return a_id == b_id or _name_key(a.name) == _name_key(b.name)


def _name_key(name: str) -> str:
    return " ".join(name.casefold().split())


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
              now: datetime, card_mac: bytes | None = None, reason: str | None = None) -> None:
    session.add(SwipeLog(outcome=outcome, employee_id=employee_id, hit_id=hit_id, action=action,
                         role_required=role_required, created_at=now, card_mac=card_mac,
                         reason=reason))
    session.flush()


# what the swipe authorizes, in the refusal's words (the action names of swipe_log)
ACTION_WORDS = {"pay": "this pay", "reject": "a rejection", "adjust": "a meter adjustment",
                "bbj_case": "a Bad Beat Jackpot step", "machine_check": "a machine check",
                "verify": "the verification of this hit", "unlock": "lifting a card lock",
                "check": "a card check", "void": "voiding a win slip"}


def _article(role: str) -> str:
    return "an" if role[:1] in "aeiou" else "a"


# --- the gate ------------------------------------------------------------------------------

class Gate:
    """Every authorizing swipe of one ledger: identify (outside the write lock), authority
    (inside it), and the swipe log of every outcome (see the module's docstring)."""

    def __init__(self, engine: Engine, key: CardKey, policy: Authorization,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.engine = engine
        self.key = key
        self.policy = policy
        self._clock = clock

    def now(self) -> datetime:
        now = self._clock() if self._clock is not None else datetime.now(UTC)
        return now.astimezone(UTC)

    # -- step 1: who is it (read-only, no write lock) -----------------------------------------
    def identify(self, swipe: Swipe) -> Swiper:
        """Parse the track, find the card (one indexed lookup), refuse a locked card, and check
        the PIN if one was typed.  AuthError (not logged: :meth:`refused` does that)."""
        track, pin = _split(swipe)
        number = parse_swipe(track)
        mac = self.key.card_mac(number)
        with Session(reader(self.engine), expire_on_commit=False) as s, s.begin():
            locked = self._lock_row(s, mac)
            # an enrolment from before the card key is found by its slow hash, here in the
            # read session (never under the write lock), only while such rows remain
            emp = find_by_card(s, self.key, number)
            ledger_key = s.get(Setting, CARD_KEY_ID)
            ledger_key_id = None if ledger_key is None else ledger_key.value
            swapped = emp is not None and not vouched(s, emp)
        if locked is not None:
            who = "" if locked.employee_id is None else " (an enrolled employee's card)"
            raise AuthError(f"card locked{who} since {_clock_text(locked.created_at)}: "
                            f"{locked.reason}. An executive must lift the lock "
                            "(podium employees unlock)", "locked", locked.employee_id, mac)
        if emp is not None and swapped:  # its card, PIN or active flag edited outside Podium
            raise AuthError(mismatch_text(emp.number, emp.name), "record_mismatch", emp.id, mac)
        if emp is not None and emp.card_mac is None:  # found by its old hash
            emp = self._rekey(emp.id, mac)
        if emp is None:
            if ledger_key_id is not None and ledger_key_id != self.key.key_id():
                exc = key_mismatch(self.key, ledger_key_id)
                exc.card_mac = mac
                raise exc
            raise AuthError("card: not enrolled (unknown card)", "unknown_card", None, mac)
        if not emp.active:
            raise AuthError(f"card of employee {emp.number} ({emp.name}): the employee is not "
                            "active", "inactive", emp.id, mac)
        checked = False
        if pin is not None:
            if emp.pin is None or not PIN_DIGITS.fullmatch(pin) or \
                    not pin_matches(self.key, emp.id, pin, emp.pin):
                raise AuthError(f"employee {emp.number} ({emp.name}): wrong PIN", "wrong_pin",
                                emp.id, mac)
            checked = True
        return Swiper(emp.id, emp.number, emp.name, emp.role, mac, checked)

    def identified(self, swipe: Swipe, *, hit_id: int | None, action: str,
                   role: str | None | Callable[[], str | None]) -> Swiper:
        """:meth:`identify`, with a refused card logged by :meth:`refused` and raised.
        ``role``: the authority the action needs, as the log records it (a function: worked
        out only when the card is refused)."""
        try:
            return self.identify(swipe)
        except AuthError as exc:
            needed = role() if callable(role) else role
            raise self.refused(exc, hit_id=hit_id, action=action, role=needed) from None

    def _lock_row(self, s: Session, mac: bytes) -> CardLock | None:
        row = s.scalar(select(CardLock).where(CardLock.card_mac == mac)
                       .order_by(CardLock.id.desc()).limit(1))
        return row if row is not None and row.event == "locked" else None

    def _rekey(self, employee_id: int, mac: bytes) -> Employee | None:
        """Keep an enrolment from before the card key, found by its slow hash (outside the
        write lock), as its HMAC from now on: its old hash erased, an ``employee_events`` row
        written.  A short write transaction; if another podium re-kept it first, its row is
        read back by the HMAC."""
        with Session(self.engine, expire_on_commit=False) as s, s.begin():
            emp = s.get(Employee, employee_id)
            if emp is None or emp.card_mac is not None:
                return s.scalar(select(Employee).where(Employee.card_mac == mac))
            if not vouched(s, emp):  # edited since it was identified
                return None
            note_key(s, self.key)
            emp.card_mac = mac
            emp.card_salt, emp.card_hash, emp.card_iterations = b"", b"", 0
            record_event(s, emp, "card_rekeyed", operator="podium", when=self.now(),
                         reason="card swiped once after the card key came in: kept as its "
                                "keyed hash from now on")
            log.info("employee %s: card re-kept under the card key", emp.number)
            return emp

    # -- step 2: may they (inside the write transaction) -----------------------------------
    def authority(self, s: Session, who: Swiper, needed: str | None, action: str,
                  words: str | None = None) -> Employee:
        """The employee, still active, with ``needed`` authority (None: any active role) and
        the PIN the floor asks for; AuthError otherwise.  ``words``: the action as a refusal
        names it (default: from :data:`ACTION_WORDS`)."""
        emp = s.get(Employee, who.employee_id)
        if emp is not None and not vouched(s, emp):  # edited since it was identified
            raise AuthError(mismatch_text(emp.number, emp.name), "record_mismatch", emp.id,
                            who.card_mac)
        if emp is None or not emp.active:
            raise AuthError(f"card of employee {who.number} ({who.name}): the employee is not "
                            "active", "inactive", who.employee_id, who.card_mac)
        if self._lock_row(s, who.card_mac) is not None:  # locked since it was identified
            raise AuthError(f"card of employee {who.number} ({who.name}): card locked; an "
                            "executive must lift the lock", "locked", who.employee_id,
                            who.card_mac)
        words = words or ACTION_WORDS.get(action, action)
        if needed is not None and not has_authority(emp.role, needed):
            verb = "may not" if emp.role not in PAY_AUTHORITY else "can not"
            raise AuthError(f"employee {emp.number} ({emp.name}, {emp.role}) {verb} authorize "
                            f"{words}: it needs {_article(needed)} {needed}",
                            "insufficient_authority", emp.id, who.card_mac)
        if self.policy.pin_needed(needed) and not who.pin_checked:
            if emp.pin is None:
                raise AuthError(f"employee {emp.number} ({emp.name}) has no PIN, and {words} "
                                "needs the PIN after the swipe: set one with podium employees "
                                "set-pin", "pin_missing", emp.id, who.card_mac)
            raise AuthError(f"employee {emp.number} ({emp.name}): {words} needs the PIN after "
                            "the swipe", "pin_missing", emp.id, who.card_mac)
        return emp

    def check(self, swipe: Swipe, needed: str | None = None, action: str = "check") -> Employee:
        """Identify and check a card in a read-only session (nothing logged, nothing written):
        the employee, or AuthError."""
        who = self.identify(swipe)
        with Session(reader(self.engine), expire_on_commit=False) as s, s.begin():
            return self.authority(s, who, needed, action)

    def accepted(self, s: Session, emp: Employee, who: Swiper, *, hit_id: int | None,
                 action: str, role: str | None, now: datetime) -> None:
        log_swipe(s, "accepted", employee_id=emp.id, hit_id=hit_id, action=action,
                  role_required=role, now=now, card_mac=who.card_mac)

    # -- every refusal --------------------------------------------------------------------
    def refused(self, exc: BaseException, *, hit_id: int | None, action: str,
                role: str | None, who: Swiper | None = None) -> BaseException:
        """Log a refusal (a refused card, or any refusal after the swipe: ``refused`` with the
        floor's message) in a transaction of its own; lock the card when it has had too many.
        Returns the exception to raise (a lock is added to its message)."""
        outcome: str = exc.outcome if isinstance(exc, AuthError) else "refused"
        mac = exc.card_mac if isinstance(exc, AuthError) else None
        employee = exc.employee_id if isinstance(exc, AuthError) else None
        if who is not None:
            mac = mac or who.card_mac
            employee = employee if employee is not None else who.employee_id
        now = self.now()
        locked = None
        with Session(self.engine) as s, s.begin():
            log_swipe(s, outcome, employee_id=employee, hit_id=hit_id,  # type: ignore[arg-type]
                      action=action, role_required=role, now=now, card_mac=mac,
                      reason=str(exc)[:2000])
            if mac is not None and outcome in COUNTED:
                lock_record(s, "card", mac.hex())  # two podiums counting one card: in turn
                locked = self._count(s, mac, employee, now)
        log.info("swipe refused (%s) for %s on hit %s", outcome, action, hit_id)
        if locked is not None and isinstance(exc, AuthError):
            return AuthError(f"{exc} — {locked}", exc.outcome, exc.employee_id, exc.card_mac)
        return exc

    def _count(self, s: Session, mac: bytes, employee: int | None,
               now: datetime) -> str | None:
        """Lock the card if it has had ``lockout_failures`` counted refusals within
        ``lockout_minutes`` since its lock was last lifted; the words of the lock, or None."""
        p = self.policy
        since = now - timedelta(minutes=p.lockout_minutes)
        lifted = s.scalar(select(func.max(CardLock.created_at))
                          .where(CardLock.card_mac == mac, CardLock.event == "lifted"))
        if lifted is not None and lifted > since:
            since = lifted
        failures = s.scalar(select(func.count()).select_from(SwipeLog).where(
            SwipeLog.card_mac == mac, SwipeLog.outcome.in_(sorted(COUNTED)),
            SwipeLog.created_at >= since)) or 0
        if failures < p.lockout_failures or self._lock_row(s, mac) is not None:
            return None
        reason = (f"{failures} refused swipes within {p.lockout_minutes} minutes "
                  f"(the limit is {p.lockout_failures})")
        s.add(CardLock(card_mac=mac, event="locked", employee_id=employee, by_employee_id=None,
                       reason=reason, created_at=now))
        s.flush()
        log.warning("card locked after %d refused swipes (employee %s)", failures, employee)
        return f"the card is now LOCKED ({reason}); an executive must lift the lock"

    # -- one swiped action ----------------------------------------------------------------
    def run(self, swipe: Swipe, needed: str | None, action: str,
            write: Callable[[Session, Employee, datetime], T], *,
            hit_id: int | None = None, words: str | None = None) -> T:
        """Identify the card, then in ONE write transaction check its authority, log the
        accepted swipe and ``write(session, employee, now)``.  Any refusal (the card, or a
        ValueError from ``write``) is logged by :meth:`refused` and raised; nothing else is
        written then."""
        who = self.identified(swipe, hit_id=hit_id, action=action, role=needed)
        try:
            with Session(self.engine, expire_on_commit=False) as s, s.begin():
                now = self.now()
                emp = self.authority(s, who, needed, action, words)
                self.accepted(s, emp, who, hit_id=hit_id, action=action, role=needed, now=now)
                return write(s, emp, now)
        except ValueError as exc:
            raise self.refused(exc, hit_id=hit_id, action=action, role=needed,
                               who=who) from None

    def lift(self, locked_card: Swipe | None, employee_number: str | None, swipe: Swipe,
             reason: str) -> str:
        """An executive (``swipe``, with the PIN the floor asks for) lifts the lock of a card:
        the card swiped (``locked_card``) or employee ``employee_number``'s card.  Returns what
        was lifted, in words.  Any refusal (not an executive, no reason, a bad read of the
        locked card, an unknown employee, a card not locked) is logged with the executive who
        tried."""

        def write(s: Session, emp: Employee, now: datetime) -> str:
            why = (reason or "").strip()
            if not why:
                raise ValueError("unlock: give a reason (it is kept in the ledger)")
            if locked_card is not None:
                mac, whose = self.key.card_mac(parse_swipe(_split(locked_card)[0])), "the card"
            else:
                owner = s.scalar(select(Employee).where(Employee.number == employee_number))
                if owner is None or owner.card_mac is None:
                    raise ValueError(f"employee {employee_number}: not enrolled (or their card "
                                     "was never swiped since the card key came in)")
                mac = owner.card_mac
                whose = f"the card of employee {owner.number} ({owner.name})"
            row = self._lock_row(s, mac)
            if row is None:
                raise ValueError(f"unlock: {whose} is not locked")
            s.add(CardLock(card_mac=mac, event="lifted", employee_id=row.employee_id,
                           by_employee_id=emp.id, reason=why, created_at=now))
            s.flush()
            return f"{whose}: lock lifted by employee {emp.number} ({emp.name})"

        return self.run(swipe, "executive", "unlock", write)


def _clock_text(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


# --- the gate of a ledger ------------------------------------------------------------------

_gates: weakref.WeakKeyDictionary[Engine, Gate] = weakref.WeakKeyDictionary()
_gates_lock = threading.Lock()


def register_gate(gate: Gate) -> None:
    """Make ``gate`` the one its engine's other workflows use (the floor registers its own, so
    the poker room and machine checks on the same ledger use the floor's key and policy)."""
    with _gates_lock:
        _gates[gate.engine] = gate


def gate_for(engine: Engine) -> Gate:
    """The gate registered for ``engine``, else one with the default card key and policy."""
    with _gates_lock:
        found = _gates.get(engine)
        if found is None:
            found = Gate(engine, cardkey.load(), default_policy())
            _gates[engine] = found
        return found


def default_policy() -> Authorization:
    """The safe defaults of ``[authorization]`` (core/floorconfig/) for a ledger with no
    floor file at hand (the command line)."""
    return Authorization(executive_threshold_cents=500_000)
