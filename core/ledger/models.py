"""The ledger tables (SQLAlchemy 2 declarative).  The migrations (0001 initial, 0002
refused_events, 0003 employee_events, 0004 machine_checks, 0005 the bbj_* tables, 0006 bbj_cases and
bbj_case_events, ..., 0013 rounds.boot) create exactly these; a test compares Alembic
autogenerate against this module.

Append-only tables (never UPDATEd or DELETEd by Podium): level_settings, meter_entries,
controller_events, refused_events, hit_decisions, awards, swipe_log, slips, slip_print_attempts,
employee_events, machine_checks, bbj_drop_counts, bbj_postings, bbj_entries, bbj_awards,
bbj_award_shares, bbj_cessations, bbj_cases, bbj_case_events.
A meter's value is the SUM of its meter_entries; ``level_balances`` keeps that sum (updated in the
same transaction as every entry, revision 0010) so a read costs the same at any ledger age, and the
invariant check compares the two.

Money: ``*_cents`` columns are cents; ``*_delta`` / ``*_units`` columns are exact units
(1/1,000,000 cent, core.kernel.money).  Rates are stored as integer millionths (``*_ppm``) so they
stay exact on every database.  Times are UTC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Values of the string "enum" columns (kept as plain strings: adding one needs no migration).
ROLES = ("supervisor", "executive", "surveillance", "accountant")
SWIPE_OUTCOMES = ("accepted", "unknown_card", "insufficient_authority", "bad_read", "inactive")
DECISIONS = ("verified", "mismatch_flagged", "claim_corrected", "rejected", "paid", "auto_paid",
             "undone", "cancelled", "boot_ended")
ENTRY_KINDS = ("seed", "contribution", "reserve_contribution", "award", "reseed", "reserve_move",
               "adjustment", "reversal")


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite stores it naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("ledger time: a naive datetime (times must be UTC-aware)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class Setting(Base):
    """Installation settings, e.g. ``install_salt`` (hex) mixed into every card hash."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Group(Base):
    """A progressive group: one meter per level, shared by its linked tables."""

    __tablename__ = "groups"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    paytable_id: Mapped[str] = mapped_column(String(64))
    lock_at_hit: Mapped[bool] = mapped_column(Boolean)
    payment_order: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Level(Base):
    """One meter (MAIN, or MEGA / MAJOR / MINOR) of a group; its settings are in level_settings."""

    __tablename__ = "levels"
    __table_args__ = (UniqueConstraint("group_id", "name", name="uq_levels_group_name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    group_id: Mapped[str] = mapped_column(ForeignKey("groups.id"))
    name: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LevelSetting(Base):
    """Append-only history of a level's seed and rates; the newest row is in force."""

    __tablename__ = "level_settings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    level_id: Mapped[int] = mapped_column(ForeignKey("levels.id"), index=True)
    seed_units: Mapped[int] = mapped_column(BigInteger)
    contribution_rate_ppm: Mapped[int] = mapped_column(Integer)
    reserve_rate_ppm: Mapped[int] = mapped_column(Integer)
    effective_at: Mapped[datetime] = mapped_column(UTCDateTime)


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


class GameTable(Base):
    """A configured table; ``online`` is the controller link state (OFFLINE locks it)."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    group_id: Mapped[str] = mapped_column(ForeignKey("groups.id"))
    seats: Mapped[int] = mapped_column(Integer)
    online: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


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


class ControllerEvent(Base):
    """Every controller event as received; (table, boot, seq) stored once."""

    __tablename__ = "controller_events"
    __table_args__ = (
        UniqueConstraint("table_id", "boot", "seq", name="uq_controller_events_origin"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"))
    boot: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(BigInteger)
    type: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    controller_time: Mapped[str] = mapped_column(String(40))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RefusedEvent(Base):
    """Append-only: a controller event the floor refused (it is acknowledged ``refused`` and the
    controller drops it, so this row is its only trace).  ``table_id`` is the table id as the
    controller sent it (no foreign key: an unconfigured table is refused too); one row per
    (table, boot, seq), however often the controller sends it again."""

    __tablename__ = "refused_events"
    __table_args__ = (
        UniqueConstraint("table_id", "boot", "seq", name="uq_refused_events_origin"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(64))
    boot: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(BigInteger)
    type: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    controller_time: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LevelBalance(Base):
    """A level's meter and reserve (exact units) as the sum of its meter_entries, kept in the same
    transaction as every entry (``entries`` folded in, the latest ``last_entry_id``).  The
    entries are the truth; ``core.ledger.balance_checks.check_balances`` compares the two."""

    __tablename__ = "level_balances"
    level_id: Mapped[int] = mapped_column(ForeignKey("levels.id"), primary_key=True,
                                          autoincrement=False)
    meter_units: Mapped[int] = mapped_column(BigInteger)
    reserve_units: Mapped[int] = mapped_column(BigInteger)
    entries: Mapped[int] = mapped_column(BigInteger)
    last_entry_id: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LevelHourTotal(Base):
    """Per level, UTC hour and entry kind: how many meter_entries and their meter and reserve
    sums, kept in the same transaction as every entry (a day's report adds up <= 24 rows a
    kind; the entries stay the truth and the invariant check compares the two)."""

    __tablename__ = "level_hour_totals"
    level_id: Mapped[int] = mapped_column(ForeignKey("levels.id"), primary_key=True,
                                          autoincrement=False)
    hour: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24), primary_key=True)
    entries: Mapped[int] = mapped_column(BigInteger)
    meter_units: Mapped[int] = mapped_column(BigInteger)
    reserve_units: Mapped[int] = mapped_column(BigInteger)


class TableHourTotal(Base):
    """Per table and UTC hour: rounds started, wagers locked (count and cents), wagers returned
    by a misdeal or an undone START GAME, and what the table's wagers put into every level of
    its group (contributions, and the reversals of contributions), kept in the same
    transaction as the rounds and entries they sum (revision 0016): drop against contributions
    per table costs the same for a month of 10 million rounds as for a day.  The rounds, wagers
    and entries stay the truth; ``core.ledger.balance_checks.check_table_totals`` compares."""

    __tablename__ = "table_hour_totals"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    hour: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    rounds: Mapped[int] = mapped_column(BigInteger)
    wagers: Mapped[int] = mapped_column(BigInteger)
    wager_cents: Mapped[int] = mapped_column(BigInteger)
    returned_wagers: Mapped[int] = mapped_column(BigInteger)
    returned_cents: Mapped[int] = mapped_column(BigInteger)
    contribution_units: Mapped[int] = mapped_column(BigInteger)
    reversal_units: Mapped[int] = mapped_column(BigInteger)


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


class Round(Base):
    """A game round; ``state``: locked, ended, misdealt, undone.  A round is found by (table,
    boot, round_no): ``boot`` is the controller boot whose START GAME opened it (revision 0013;
    filled from the START GAME event for older rows), so a restarted controller that numbers its
    rounds from 1 again never reaches an earlier boot's round."""

    __tablename__ = "rounds"
    __table_args__ = (Index("ix_rounds_table_boot_round", "table_id", "boot", "round_no"),
                      Index("ix_rounds_table_latest", "table_id", "id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    boot: Mapped[str | None] = mapped_column(String(64))
    round_no: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[str] = mapped_column(String(16))
    event_id: Mapped[int] = mapped_column(ForeignKey("controller_events.id"))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Wager(Base):
    """A progressive wager at lock time; ``status`` locked or refused (with ``problem``)."""

    __tablename__ = "wagers"
    __table_args__ = (UniqueConstraint("round_id", "seat", name="uq_wagers_round_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    seat: Mapped[int] = mapped_column(Integer)
    amount_cents: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    problem: Mapped[str | None] = mapped_column(Text)


class Hit(Base):
    """A HIT JACKPOT claim.  ``status`` (pending, paid, auto_paid, rejected, cancelled) mirrors the
    latest hit_decision; the decisions are the audit record.  ``flags``: problems found at claim
    time as codes (``flag_codes``, JSON text, core/tablegames/flags.py); ``flags`` holds the
    sentences of hits recorded before revision 0010 (new hits leave it empty).
    ``verified_cards``: the seven cards the supervisor verified for the pay.  ``locked_*``:
    lock-at-hit amount."""

    __tablename__ = "hits"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), index=True)
    round_no: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(Integer)
    wager_id: Mapped[int | None] = mapped_column(ForeignKey("wagers.id"))
    claimed_hand: Mapped[str] = mapped_column(String(32))
    cards: Mapped[str] = mapped_column(String(64))
    flags: Mapped[str] = mapped_column(Text)
    flag_codes: Mapped[str] = mapped_column(Text, server_default="[]")
    verified_cards: Mapped[str] = mapped_column(String(64), server_default="")
    status: Mapped[str] = mapped_column(String(16), index=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("controller_events.id"))
    locked_level_id: Mapped[int | None] = mapped_column(ForeignKey("levels.id"))
    locked_amount_cents: Mapped[int | None] = mapped_column(BigInteger)
    locked_meter_before_cents: Mapped[int | None] = mapped_column(BigInteger)
    locked_meter_after_cents: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class HitDecision(Base):
    """Append-only: every decision on a hit, by whom (if a person), when and why."""

    __tablename__ = "hit_decisions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hits.id"), index=True)
    decision: Mapped[str] = mapped_column(String(24))
    employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Award(Base):
    """Append-only: what was paid for a hit (one award per hit)."""

    __tablename__ = "awards"
    __table_args__ = (Index("ix_awards_level_id", "level_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hits.id"), unique=True)
    hand: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(8))  # meter | tray
    level_id: Mapped[int | None] = mapped_column(ForeignKey("levels.id"))
    amount_cents: Mapped[int] = mapped_column(BigInteger)
    meter_before_cents: Mapped[int | None] = mapped_column(BigInteger)
    meter_after_cents: Mapped[int | None] = mapped_column(BigInteger)
    authorized_by: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    verified_by: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class MeterEntry(Base):
    """Append-only: one movement of a meter and/or its reserve (exact units)."""

    __tablename__ = "meter_entries"
    __table_args__ = (Index("ix_meter_entries_level_time", "level_id", "created_at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    level_id: Mapped[int] = mapped_column(ForeignKey("levels.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    meter_delta: Mapped[int] = mapped_column(BigInteger)
    reserve_delta: Mapped[int] = mapped_column(BigInteger)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), index=True)
    hit_id: Mapped[int | None] = mapped_column(ForeignKey("hits.id"), index=True)
    award_id: Mapped[int | None] = mapped_column(ForeignKey("awards.id"))
    reverses_id: Mapped[int | None] = mapped_column(ForeignKey("meter_entries.id"))
    employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    second_employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


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


class Slip(Base):
    """Append-only: a win slip with its sequential number and the exact ESC/POS bytes."""

    __tablename__ = "slips"
    __table_args__ = (Index("ix_slips_created_at", "created_at"),)  # 0017: search by date
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slip_no: Mapped[int] = mapped_column(Integer, unique=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hits.id"), index=True)
    award_id: Mapped[int] = mapped_column(ForeignKey("awards.id"))
    escpos: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SlipVoid(Base):
    """Append-only (revision 0016): a slip voided by an executive, with the reason.  The award
    stays; ``money_returned`` says the paid money came back, and then the award's movements
    are reversed by ``reversal`` meter entries written in the same transaction."""

    __tablename__ = "slip_voids"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slip_id: Mapped[int] = mapped_column(ForeignKey("slips.id"), unique=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    money_returned: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SlipPrintAttempt(Base):
    """Append-only: every attempt to print a slip, as events (revision 0012, docs/ledger.md
    "Print attempts"): a ``started`` row committed before the first byte goes to the printer
    (``marking``: what the paper says, ``job_bytes``), then an outcome row, ``printed`` (the
    printer confirmed it) or ``failed`` (``reason`` code, ``error`` words, ``sent_bytes``),
    pointing at it (``started_id``, one outcome per start).  A print refused before any byte
    went out is a single ``failed`` row.  ``ok`` is true on a confirmed print only.  Rows from
    before 0012 have no ``state``: one row per attempt, ``ok`` its outcome."""

    __tablename__ = "slip_print_attempts"
    __table_args__ = (Index("ix_slip_print_attempts_started_id", "started_id", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slip_id: Mapped[int] = mapped_column(ForeignKey("slips.id"), index=True)
    printer: Mapped[str] = mapped_column(String(200))
    ok: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    state: Mapped[str | None] = mapped_column(String(16))  # started | printed | failed
    started_id: Mapped[int | None] = mapped_column(ForeignKey("slip_print_attempts.id"))
    marking: Mapped[str | None] = mapped_column(String(16))  # "" | reprint | duplicate
    reason: Mapped[str | None] = mapped_column(String(32))
    job_bytes: Mapped[int | None] = mapped_column(Integer)
    sent_bytes: Mapped[int | None] = mapped_column(Integer)


class MachineCheck(Base):
    """Append-only: a gaming-machine win checked at the console (docs/slots.md): who checked,
    when, the game, the screen as entered, the options, the amount claimed, the total the
    evaluator gives, the verdict and the evaluator's wins (``core.cli.slot_command``
    ``outcome_json``).  Amounts are machine credits (ints); a check authorizes no pay."""

    __tablename__ = "machine_checks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(500))  # the game file (games/x.toml or a path)
    game_name: Mapped[str] = mapped_column(String(200))
    screen: Mapped[str] = mapped_column(Text)  # rows from the top, "A K Q / K K A / ..."
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    claimed_credits: Mapped[int] = mapped_column(BigInteger)
    evaluated_credits: Mapped[int] = mapped_column(BigInteger)
    verdict: Mapped[str] = mapped_column(String(16))  # match | mismatch
    wins: Mapped[dict[str, Any]] = mapped_column(JSON)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjFund(Base):
    """A poker room's Bad Beat Jackpot fund (core/pokerroom/fund/, docs/bbj.md "The fund").
    Holds no amount: its main and reserve are the sums of its bbj_entries."""

    __tablename__ = "bbj_funds"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjDropCount(Base):
    """Append-only: one jackpot drop box counted (business date, poker table, box number, when
    the table opened and closed, dealer, chip pieces per denomination in pesos as JSON
    ``{"500": 3, ...}``, the total in centavos).  Posted by the fund's posting for its date."""

    __tablename__ = "bbj_drop_counts"
    __table_args__ = (UniqueConstraint("fund_id", "business_date", "table_name", "drop_box",
                                       name="uq_bbj_drop_counts_box"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    business_date: Mapped[date] = mapped_column(Date)
    table_name: Mapped[str] = mapped_column(String(64))
    drop_box: Mapped[str] = mapped_column(String(32))
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    dealer: Mapped[str] = mapped_column(String(200))
    pieces: Mapped[dict[str, Any]] = mapped_column(JSON)
    total_cents: Mapped[int] = mapped_column(BigInteger)
    # the same table's house rake drop box, counted with it (TGD-1494/1623 "rake")
    rake_box: Mapped[str] = mapped_column(String(32), server_default="")
    rake_cents: Mapped[int] = mapped_column(BigInteger, server_default="0")
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class PokerTournamentFee(Base):
    """Append-only: the entry fees the house kept from one poker tournament on a gaming day
    (TGD-1623 C "tournament fee", TGD-108); a correction is a further row (negative fee) with
    its reason."""

    __tablename__ = "poker_tournament_fees"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    business_date: Mapped[date] = mapped_column(Date, index=True)
    tournament: Mapped[str] = mapped_column(String(200))
    fee_cents: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjPosting(Base):
    """Append-only: the updated jackpot posted after a day's count (one per fund and date): the
    previous main/reserve, the day's collection, the admin fee, the shares to main and reserve,
    the updated main/reserve, and from when the day's collection counts for a hit
    (``effective_at``: the earliest opening of the day's tables)."""

    __tablename__ = "bbj_postings"
    __table_args__ = (UniqueConstraint("fund_id", "business_date",
                                       name="uq_bbj_postings_day"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    business_date: Mapped[date] = mapped_column(Date)
    previous_main_cents: Mapped[int] = mapped_column(BigInteger)
    previous_reserve_cents: Mapped[int] = mapped_column(BigInteger)
    collection_cents: Mapped[int] = mapped_column(BigInteger)
    admin_fee_cents: Mapped[int] = mapped_column(BigInteger)
    to_main_cents: Mapped[int] = mapped_column(BigInteger)
    to_reserve_cents: Mapped[int] = mapped_column(BigInteger)
    main_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_cents: Mapped[int] = mapped_column(BigInteger)
    effective_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_closed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # the rates it was posted at ([poker_room]; decimal text); NULL before revision 0008: the
    # RULES.md defaults 0.30 / 0.70
    admin_fee_rate: Mapped[str | None] = mapped_column(String(16))
    main_rate: Mapped[str | None] = mapped_column(String(16))
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjAward(Base):
    """Append-only: a Bad Beat Jackpot hit paid from a fund (the TGD-1500 figures): when it hit,
    the table, main/reserve the decision was made on, the payout fraction (exact numerator /
    denominator), the award, what was paid, the reserve moved up, main/reserve after."""

    __tablename__ = "bbj_awards"
    __table_args__ = (UniqueConstraint("case_id", name="uq_bbj_awards_case"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    # the tracked case this award was approved in (core/pokerroom/cases/); None: recorded
    # directly
    case_id: Mapped[int | None] = mapped_column(
        ForeignKey("bbj_cases.id", name="fk_bbj_awards_case"))
    hit_at: Mapped[datetime] = mapped_column(UTCDateTime)
    table_name: Mapped[str] = mapped_column(String(64))
    main_before_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_before_cents: Mapped[int] = mapped_column(BigInteger)
    fraction_num: Mapped[int] = mapped_column(BigInteger)
    fraction_den: Mapped[int] = mapped_column(BigInteger)
    award_cents: Mapped[int] = mapped_column(BigInteger)
    paid_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_moved_cents: Mapped[int] = mapped_column(BigInteger)
    main_after_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_after_cents: Mapped[int] = mapped_column(BigInteger)
    ceases_fund: Mapped[bool] = mapped_column(Boolean)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjAwardShare(Base):
    """Append-only: one sharer of an award: seat, role (winning, losing, table), taxpayer class,
    gross share, withholding tax (net = gross - tax)."""

    __tablename__ = "bbj_award_shares"
    __table_args__ = (UniqueConstraint("award_id", "seat", name="uq_bbj_award_shares_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    award_id: Mapped[int] = mapped_column(ForeignKey("bbj_awards.id"))
    seat: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    taxpayer: Mapped[str] = mapped_column(String(16))
    gross_cents: Mapped[int] = mapped_column(BigInteger)
    tax_cents: Mapped[int] = mapped_column(BigInteger)


class BbjCessation(Base):
    """Append-only: a fund ceased (TGD-1540), once: ``transfer`` (increment + reserve to another
    fund, the seed back to the operator if the jackpot was not reset), ``after_hit``, or
    ``forfeiture`` (the poker room closed for good: main and reserve forfeited in favour of
    PAGCOR; ``increment_cents`` + ``seed_forfeited_cents`` = the main forfeited, ``closed_on``
    the closure date; both NULL for the other kinds)."""

    __tablename__ = "bbj_cessations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # transfer | after_hit | forfeiture
    to_fund_id: Mapped[str | None] = mapped_column(ForeignKey("bbj_funds.id"))
    award_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_awards.id"))
    seed_returned_cents: Mapped[int] = mapped_column(BigInteger)
    increment_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_cents: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    seed_forfeited_cents: Mapped[int | None] = mapped_column(BigInteger)  # forfeiture only
    closed_on: Mapped[date | None] = mapped_column(Date)  # forfeiture: the closure date


class BbjCessationNotice(Base):
    """Append-only: a notice that a fund will cease (TGD-1540 part 1: ``cease_once_hit``,
    ``transfer``, ``closure``), and the rows that follow a notice without changing it
    (``players_told``: the day the players were told; ``withdrawn``), which name it in
    ``refers_to_id`` (core/pokerroom/fund/notices.py)."""

    __tablename__ = "bbj_cessation_notices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    refers_to_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_cessation_notices.id"))
    notice_on: Mapped[date | None] = mapped_column(Date)  # part 1 filed (a notice row)
    effective_on: Mapped[date | None] = mapped_column(Date)  # planned, if any
    players_told_on: Mapped[date | None] = mapped_column(Date)
    to_fund_id: Mapped[str | None] = mapped_column(ForeignKey("bbj_funds.id"))  # transfer
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjEntry(Base):
    """Append-only: one movement of a fund's main and/or reserve, in centavos.  ``kind``: seed,
    collection, award, reserve_move, cessation_merge, seed_return, transfer_out, transfer_in,
    award_void, forfeiture.
    ``effective_at``: from when it counts for a hit (core.pokerroom.fund.amount_for_hit)."""

    __tablename__ = "bbj_entries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    main_delta_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_delta_cents: Mapped[int] = mapped_column(BigInteger)
    posting_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_postings.id"))
    award_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_awards.id"))
    cessation_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_cessations.id"))
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    effective_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjCase(Base):
    """Append-only: a Bad Beat Jackpot claim opened as a tracked case (core/pokerroom/cases/): the
    fund, the table, when the hand was hit, the claim as entered (JSON: blinds, pot, seats dealt
    in, board, showdown hole cards, names, ID checked per seat, taxpayer classes, voids, the
    jackpot rake caps, main/reserve for the hit) and the decision made on it (JSON, the CLI.md
    ``decision_json``).  Its state is its latest ``bbj_case_events`` row."""

    __tablename__ = "bbj_cases"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    table_name: Mapped[str] = mapped_column(String(64))
    hit_at: Mapped[datetime] = mapped_column(UTCDateTime)
    claim: Mapped[dict[str, Any]] = mapped_column(JSON)
    decision: Mapped[dict[str, Any]] = mapped_column(JSON)
    qualifies: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjCaseEvent(Base):
    """Append-only: one state a case entered (claimed, verified, request_filed,
    attachments_filed, approved, share_paid, acknowledged, voided), who decided (the swiped
    employee) and when; ``seat`` for a share paid; ``detail`` the reason of a void or a note."""

    __tablename__ = "bbj_case_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("bbj_cases.id"), index=True)
    state: Mapped[str] = mapped_column(String(24))
    seat: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjSlipPrint(Base):
    """Append-only: one attempt to print a Bad Beat Jackpot share slip
    (printing/escpos/bbj_slip.py): the case and seat, whether it was a reprint, the printer, and
    whether it printed (with the printer's problem when it did not)."""

    __tablename__ = "bbj_slip_prints"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("bbj_cases.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    reprint: Mapped[bool] = mapped_column(Boolean)
    printer: Mapped[str] = mapped_column(String(200))
    ok: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjFiling(Base):
    """Append-only: one filing of a poker-room deadline the guidelines name
    (core/pokerroom/filings.py): ``kind`` (bir_remittance, tgd108, tgd1540_part1,
    tgd1540_part2, players_notice, bank_statement), the fund (None: casino-wide), the period
    (first and last casino-local date), when it was due and filed, the reference (the BIR
    confirmation, PAGCOR's receiving number), a detail, whether it was late, the filing it
    corrects (None: a first filing), who recorded it (a supervisor's swipe) and when."""

    __tablename__ = "bbj_filings"
    __table_args__ = (Index("ix_bbj_filings_kind_period", "kind", "period_start"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    fund_id: Mapped[str | None] = mapped_column(ForeignKey("bbj_funds.id"))
    period_start: Mapped[date] = mapped_column(Date)
    period_end: Mapped[date] = mapped_column(Date)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    filed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    reference: Mapped[str] = mapped_column(String(200))
    detail: Mapped[str] = mapped_column(Text)
    late: Mapped[bool] = mapped_column(Boolean)
    corrects_id: Mapped[int | None] = mapped_column(
        ForeignKey("bbj_filings.id", name="fk_bbj_filings_corrects"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
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
