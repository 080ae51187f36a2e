"""The accountant's and surveillance's desks: read-only work on the ledger (issue 13).

A :class:`Desk` is what every report, search, timeline, plot and display reads through: the
ledger opened read-only (SQLite: a read-only connection; PostgreSQL: the ``podium_reader``
role, READ ONLY transactions), the floor configuration, the paytables and the casino's time
zone.  Nothing reached through a desk can write; the database refuses it as well.

Qt-free: the CLI (``podium report ...``), the console's read-only tabs and the signage display
all use it.

Opening one (:func:`open_ledger`, :func:`open_desk`): the ledger is opened read-only
(:func:`core.ledger.db.read_only_engine`), never migrated; a ledger at another revision than
this Podium's, a PostgreSQL login that is not a member of ``podium_reader``, or a missing
``podium_reader`` role is refused with a :class:`DeskError` naming what to do.  Who may open
which desk with a card (``podium console --role card``): :data:`DESK_ACCESS`, checked by
:func:`desk_pass`, which identifies the card without writing anything (docs/operator.md
"Desks").
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from core.floorconfig import FloorConfig
from core.ledger import guards, integrity
from core.ledger.db import alembic_config, read_only_engine, sqlite_file
from core.ledger.models import Employee
from core.people import cardkey
from core.people.auth import AuthError, Gate, Swipe
from core.people.cardkey import CardKey
from core.people.who import Who

DESK_ROLES: tuple[str, ...] = ("accountant", "surveillance")

#: The desks an employee's card opens (``podium console --role card``), by the card's role.
#: Accountants and surveillance open their own; a supervisor the accountant's (the shift's
#: figures and win pages, never surveillance's review of the floor's pays); an executive
#: either (the start dialog asks which).  A role not listed opens none.
DESK_ACCESS: dict[str, tuple[str, ...]] = {
    "accountant": ("accountant",),
    "surveillance": ("surveillance",),
    "supervisor": ("accountant",),
    "executive": ("accountant", "surveillance"),
}

DESK_NAMES: dict[str, str] = {"accountant": "accountant's desk",
                              "surveillance": "surveillance desk"}


class DeskError(ValueError):
    """A desk that can not be opened; the message names what is wrong and what to do."""


class LedgerUnreachable(DeskError):
    """The ledger's database did not answer (or refused the login): a room display waits for
    it, a report stops (its first line says why)."""


@dataclass(frozen=True)
class Desk:
    """A read-only view of one floor's ledger for one role."""

    role: str  # "accountant" | "surveillance" | "supervisor" (a supervisor's console reads too)
    engine: Engine  # opened read-only for a desk role
    config: FloorConfig
    paytables: dict[str, Any] = field(default_factory=dict)
    employee: str = ""  # who opened the desk ("Ana Cruz #E1002"), for page footers; "" if none

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.config.casino.timezone)

    @property
    def pg(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    def local(self, at: datetime) -> datetime:
        """A ledger time (UTC) in the casino's time zone."""
        return at.astimezone(self.tz)

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """One read-only snapshot for a whole report: every figure comes from the same moment
        (SQLite: one deferred transaction on a WAL snapshot; PostgreSQL: REPEATABLE READ, READ
        ONLY)."""
        with Session(self.engine, expire_on_commit=False) as s, s.begin():
            if self.pg:
                s.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            yield s


# ------------------------------------------------------------------------- opening a desk

def _where(url: str) -> str:
    path = sqlite_file(url) if make_url(url).get_backend_name() == "sqlite" else None
    return str(path) if path is not None else make_url(url).render_as_string(hide_password=True)


def _first_line(exc: BaseException) -> str:
    return (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]


def _pg_probe(url: str, connect_args: dict[str, Any] | None,
              role: str) -> tuple[str, bool, bool, str | None]:
    """As the login role itself: its name, whether ``role`` exists, whether the login is a
    member of it (a superuser is a member of every role), and the ledger's revision if the
    login may read it (None otherwise)."""
    probe = create_engine(make_url(url).set(drivername="postgresql+psycopg"),
                          connect_args=dict(connect_args or {}), poolclass=NullPool)
    try:
        with probe.connect() as conn:
            login = str(conn.execute(text("SELECT session_user")).scalar())
            oid = conn.execute(text("SELECT oid FROM pg_roles WHERE rolname = :r"),
                               {"r": role}).scalar()
            member = oid is not None and bool(conn.execute(
                text("SELECT pg_has_role(session_user, :oid, 'MEMBER')"), {"oid": oid}).scalar())
            readable = conn.execute(text(
                "SELECT to_regclass('alembic_version') IS NOT NULL AND has_table_privilege("
                "'alembic_version', 'SELECT')")).scalar()
            revision = None
            if readable:
                revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            conn.rollback()
    finally:
        probe.dispose()
    return login, oid is not None, member, None if revision is None else str(revision)


def _role_problem(role: str, login: str, exists: bool, member: bool) -> None:
    if not exists:
        raise DeskError(f"PostgreSQL role {role} does not exist on this server; a desk reads "
                        f"the ledger only as {role}. The ledger's revision 0016 makes it: "
                        "start a supervisor's console (podium console) on this ledger once, "
                        "then open the desk")
    if not member:
        raise DeskError(f"login role {login} is not a member of {role}, the read-only role a "
                        f"desk works as: as the database owner run  GRANT {role} TO {login};  "
                        "then open the desk again")


def check_reader_role(url: str, *, connect_args: dict[str, Any] | None = None,
                      role: str = guards.READER_ROLE) -> None:
    """PostgreSQL: the role ``role`` exists and the login role is a member of it (a superuser
    is a member of every role); DeskError naming the GRANT to run otherwise."""
    login, exists, member, _revision = _pg_probe(url, connect_args, role)
    _role_problem(role, login, exists, member)


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def _judge_revision(current: str | None, where: str) -> None:
    from alembic.script import ScriptDirectory

    head = head_revision()
    if current == head:
        return
    known = {s.revision for s in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if current in known:
        raise DeskError(f"ledger {where} is at revision {current}; this Podium reads revision "
                        f"{head}. A desk never upgrades a ledger: start a supervisor's console "
                        "(podium console) on it once, then open the desk")
    raise DeskError(f"ledger {where} is at revision {current}, which this Podium does not know "
                    "(a newer Podium wrote it): open the desk with that Podium")


def _check_revision(engine: Engine, where: str) -> None:
    """The ledger's revision as the desk reads it (on PostgreSQL as ``podium_reader``)."""
    try:
        if not inspect(engine).has_table("alembic_version"):
            if engine.dialect.name == "postgresql":
                raise DeskError(f"ledger {where}: {guards.READER_ROLE} sees no Podium "
                                "ledger there (no schema revision): check --db; a ledger from "
                                "before revision 0016, whose migration grants "
                                f"{guards.READER_ROLE} its tables, is upgraded by starting "
                                "a supervisor's console (podium console) on it once")
            raise DeskError(f"{where} is not a Podium ledger (it has no schema revision)")
        with engine.connect() as conn:
            current = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            conn.rollback()
    except DBAPIError as exc:
        raise DeskError(f"ledger {where}: can not be read: {_first_line(exc)}") from None
    _judge_revision(None if current is None else str(current), where)


def open_ledger(url: str, *, connect_args: dict[str, Any] | None = None) -> Engine:
    """The ledger at ``url`` opened read-only for a desk, after checking that it can be: an
    existing SQLite file, or on PostgreSQL the ``podium_reader`` role and the login's
    membership; the ledger's revision must be this Podium's head.  DeskError names the
    problem in one line, a malformed URL or a database that does not answer included."""
    try:
        where = _where(url)
        backend = make_url(url).get_backend_name()
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise DeskError("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                        "postgresql+psycopg://user@host/podium)") from None
    try:
        return _open_ledger(url, where, backend, connect_args)
    except DBAPIError as exc:  # unreachable, refused, a wrong password: its first line
        raise LedgerUnreachable(f"ledger {where}: can not be read: {_first_line(exc)}") \
            from None
    except ImportError as exc:  # a database whose driver is not installed
        raise DeskError(f"ledger {where}: no driver for it: {exc}") from None


def _open_ledger(url: str, where: str, backend: str,
                 connect_args: dict[str, Any] | None) -> Engine:
    if backend == "sqlite":
        path = sqlite_file(url)
        if path is None:
            raise DeskError("a desk reads a ledger file: an in-memory SQLite database has none")
        try:
            found = path.is_file()
        except (OSError, ValueError):  # a name too long for the system, a NUL in it
            found = False
        if not found:
            raise DeskError(f"no ledger at {path}: a desk opens a ledger a supervisor's console "
                            "made (check --db)")
    elif backend == "postgresql":
        login, exists, member, revision = _pg_probe(url, connect_args, guards.READER_ROLE)
        if revision is not None:  # the login may read it: a wrong revision is named first
            _judge_revision(revision, where)
        _role_problem(guards.READER_ROLE, login, exists, member)
    engine = read_only_engine(url, connect_args=connect_args)
    try:
        _check_revision(engine, where)
    except BaseException:
        engine.dispose()
        raise
    return engine


def open_desk(role: str, config: FloorConfig, url: str, paytables: dict[str, Any] | None = None,
              employee: str = "", *, connect_args: dict[str, Any] | None = None) -> Desk:
    """A desk for ``role`` (one of :data:`DESK_ROLES`) on the ledger at ``url``, opened
    read-only (:func:`open_ledger`)."""
    if role not in DESK_ROLES:
        raise DeskError(f"desk role {role!r}: expected one of {', '.join(DESK_ROLES)}")
    engine = open_ledger(url, connect_args=connect_args)
    return Desk(role, engine, config, dict(paytables or {}), employee)


def chain_head_text(desk: Desk) -> str:
    """The ledger's chain head as win pages and reports print it ("Ledger chain head N:HASH"),
    read now (page footers of the desks' reports cite it)."""
    with desk.read() as s:
        n, digest = integrity.chain_head(s.connection())
    return integrity.head_text(n, digest)


# ------------------------------------------------------------------- a card at the desk

@dataclass(frozen=True)
class DeskPass:
    """An employee identified by a card at a desk's start, and the desks the card opens."""

    who: Who
    desks: tuple[str, ...]

    @property
    def label(self) -> str:
        """Who, as the desk's header and page footers show it: "Ana Cruz #1002"."""
        return self.who.short()

    @property
    def role(self) -> str:
        return self.who.role


class _DeskGate(Gate):
    """The gate of a desk: identifies a card and writes nothing.  A card enrolled before the
    card key would be re-kept (a write): it is refused with what to do instead."""

    def _rekey(self, employee_id: int, mac: bytes) -> Employee | None:
        raise AuthError("this card was enrolled before the card key and is re-kept the first "
                        "time it is swiped where Podium writes: swipe it once with podium "
                        "employees check (or at a supervisor's console), then open the desk",
                        "refused", employee_id, mac)


def desk_pass(engine: Engine, config: FloorConfig, swipe: Swipe, *,
              key: CardKey | None = None) -> DeskPass:
    """Who swiped (and, where the floor asks a PIN at every swipe, typed their PIN), and the
    desks their card opens (:data:`DESK_ACCESS`).  Reads only: a refusal (unknown, locked or
    inactive card, wrong PIN, a role with no desk) raises AuthError or DeskError and is NOT
    written to the swipe log, which a desk can not write (the console's log has it)."""
    if key is None:
        key = cardkey.load(config.authorization.card_key or None, create=False)
    gate = _DeskGate(engine, key, config.authorization)
    emp = gate.check(swipe, None, "desk")
    desks = DESK_ACCESS.get(emp.role, ())
    if not desks:
        raise DeskError(f"employee {emp.number} ({emp.name}, {emp.role}) opens no desk: "
                        "desks open for accountants, surveillance, supervisors and executives")
    return DeskPass(Who.of(emp), desks)
