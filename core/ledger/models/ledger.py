"""The ledger's own tables: installation settings, the floor file's parameter history and the
executives' approvals of it, the floor services and the tables they serve, and what keeps the
ledger honest: the hash chain, its journal and incidents, and the writers' locks."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.ledger.models.base import Base, UTCDateTime


class Setting(Base):
    """Installation settings, e.g. ``install_salt`` (hex) mixed into every card hash."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class ParameterChange(Base):
    """A change of the floor file between two starts, found and written at start (append-only):
    which group, level or table, which parameter, its old and new value, when, and the file it
    came from with its SHA-256.  ``effective`` says when the change takes effect ("at once", or
    "at the next reseed" for a seed: the meter restarts at the new seed after its next 100%
    award).  The first start of a floor records every value as new (old = "")."""

    __tablename__ = "parameter_changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    scope: Mapped[str] = mapped_column(String(16))  # group | level | table
    subject: Mapped[str] = mapped_column(String(140))  # "WA01", "WA01/MAIN", "PG-1"
    name: Mapped[str] = mapped_column(String(64))
    old_value: Mapped[str] = mapped_column(Text)
    new_value: Mapped[str] = mapped_column(Text)
    effective: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(Text)
    file_sha256: Mapped[str] = mapped_column(String(64))


class ContributionApproval(Base):
    """Append-only (revision 0022): an executive's recorded approval of a contribution rate
    above the paytable's pre-configured rate (RULES.md 4) for one level of one group: who
    (``approved_by``, swipe and PIN), when, which rate (parts per million), and the operating
    system account that ran the command.  A floor whose level's rate is above the pre-configured
    one starts only while an approval of exactly that rate exists (core/tablegames/setup.py)."""

    __tablename__ = "contribution_approvals"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    group_id: Mapped[str] = mapped_column(String(64), index=True)
    level: Mapped[str] = mapped_column(String(64))
    rate_ppm: Mapped[int] = mapped_column(Integer)
    approved_by: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    operator: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class FloorApproval(Base):
    """Append-only (revision 0026): an executive's approval of a change of the floor file's
    parameters that decide a pay or a contribution (core/tablegames/floor_approval.py): who
    (``approved_by``, and the employee's number, name and role as they stood), when, by which
    way (``via``: "command", ``podium floor approve``; or "console", a swipe and PIN at the
    console that starts with it), the accepted swipe (``swipe_id``), the changes approved (JSON:
    scope, subject, name, old and new value), the file and its SHA-256, the digest of every
    deciding parameter of that file (``values_sha256``) and the newest deciding
    ``parameter_changes`` row it was approved against (``base_change_id``; 0: none).  A floor
    starts on changed deciding parameters only while an approval of exactly those values, from
    exactly that base, exists."""

    __tablename__ = "floor_approvals"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    approved_by: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    employee_number: Mapped[str] = mapped_column(String(32))
    employee_name: Mapped[str] = mapped_column(String(200))
    employee_role: Mapped[str] = mapped_column(String(16))
    via: Mapped[str] = mapped_column(String(16))
    swipe_id: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(Text)
    file_sha256: Mapped[str] = mapped_column(String(64))
    values_sha256: Mapped[str] = mapped_column(String(64), index=True)
    base_change_id: Mapped[int] = mapped_column(Integer)
    changes: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    operator: Mapped[str] = mapped_column(String(200))


class FloorService(Base):
    """Operational state, not a record: one run of a process serving controller links
    (``podium serve``, or a console with the service inside: ``kind`` serve | console), its
    host and process, the PostgreSQL backend holding its table locks (``db_pid``), its
    heartbeat (every second while it runs) and when it stopped (NULL: running, or died)."""

    __tablename__ = "floor_services"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200))
    host: Mapped[str] = mapped_column(String(200))
    pid: Mapped[int] = mapped_column(Integer)
    db_pid: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime)
    stopped_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class TableOwner(Base):
    """Operational state: the service that serves a table now (its claim, a row of
    ``ledger_locks``, decides; this row names it for the others).  The history is
    ``ownership_events``."""

    __tablename__ = "table_owners"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    service_id: Mapped[int] = mapped_column(ForeignKey("floor_services.id"))
    since: Mapped[datetime] = mapped_column(UTCDateTime)


class OwnershipEvent(Base):
    """Append-only: a table claimed, released, lost (the lock connection dropped) or refused
    (another service holds it: ``detail`` names it) by a floor service (revision 0018)."""

    __tablename__ = "ownership_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    service_id: Mapped[int] = mapped_column(ForeignKey("floor_services.id"))
    event: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LedgerChain(Base):
    """Append-only: the hash chain over every row of the ledger's append-only and state tables
    (core/ledger/integrity.py, docs/ledger.md "Tamper evidence"), one row per ledger row in
    commit order: the row it vouches for (table and key), the SHA-256 of that row's content,
    the previous chain row's hash and its own (32 bytes each).  The newest ``hash`` is the
    chain head.  From revision 0021 one row per sealed transaction (``tbl`` ``*``): ``members``
    names the rows, ``hashes`` holds their content hashes, ``row_hash`` covers both."""

    __tablename__ = "ledger_chain"
    __table_args__ = (UniqueConstraint("tbl", "row_key", name="uq_ledger_chain_row"),)
    n: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    tbl: Mapped[str] = mapped_column(String(64))
    row_key: Mapped[str] = mapped_column(String(200))
    row_hash: Mapped[bytes] = mapped_column(LargeBinary(32))
    prev_hash: Mapped[bytes] = mapped_column(LargeBinary(32))
    hash: Mapped[bytes] = mapped_column(LargeBinary(32))
    # revision 0021: a batch link (tbl "*") covers every row its transaction inserted
    members: Mapped[str | None] = mapped_column(Text)
    hashes: Mapped[bytes | None] = mapped_column(LargeBinary)
    # revision 0024: the state rows the link chains whole (every column), and their hashes
    states: Mapped[str | None] = mapped_column(Text)
    state_hashes: Mapped[bytes | None] = mapped_column(LargeBinary)


class LedgerJournal(Base):
    """Work table, not a record: the rows a transaction inserted into chained tables (and, as
    ``table~``, the state rows it updated: revision 0024), noted by a trigger and chained
    (then removed) when it commits.  ``tx``: the PostgreSQL transaction
    id (NULL on SQLite, one writer at a time).  A row left here was inserted outside Podium."""

    __tablename__ = "ledger_journal"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tbl: Mapped[str] = mapped_column(String(64))
    row_key: Mapped[str] = mapped_column(String(200))
    tx: Mapped[int | None] = mapped_column(BigInteger, index=True)


class LedgerLock(Base):
    """Operational state (revision 0023): one row per writers' lock of this ledger, taken with
    ``SELECT ... FOR UPDATE`` (the UPDATE privilege: ``podium_writer`` has it, ``podium_reader``
    not; core/ledger/locks.py).  ``chain``: the seal; ``table:<id>``: who serves a table (the
    ``holder_*`` columns name the claiming service's lock connection, core/controllers/
    ownership.py); ``<table>:<key>``: a record's writers (``core.ledger.db.lock_record``).
    A table's row is a lease with a fencing token (revision 0025): ``epoch`` counts its claims,
    ``lease_until`` is when the claim ends unless the holder's heartbeat renews it."""

    __tablename__ = "ledger_locks"
    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    holder_pid: Mapped[int | None] = mapped_column(Integer)
    holder_login: Mapped[str | None] = mapped_column(String(64))
    holder_app: Mapped[str | None] = mapped_column(String(64))
    holder_service: Mapped[int | None] = mapped_column(Integer)
    holder_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    epoch: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)


class LedgerJournalIncident(Base):
    """A record (revision 0023; append-only, not chained): a journal row the seal could not
    account for (a table that is not chained, a key that is no row), set aside instead of
    failing the floor's transaction; ``podium audit verify`` reports every one."""

    __tablename__ = "ledger_journal_incidents"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tbl: Mapped[str] = mapped_column(String(64))
    row_key: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(String(200))
    tx: Mapped[int | None] = mapped_column(BigInteger)
    noted_at: Mapped[datetime] = mapped_column(UTCDateTime)
