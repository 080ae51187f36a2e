"""The floor in the ledger: progressive groups, their levels (meters) and the levels' settings,
the tables, the controller events received and refused, the rounds and their wagers, the
meter entries, and the kept balances and hourly totals of the entries and rounds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.ledger.models.base import Base, UTCDateTime


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


class GameTable(Base):
    """A configured table; ``online`` is the controller link state (OFFLINE locks it)."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    group_id: Mapped[str] = mapped_column(ForeignKey("groups.id"))
    seats: Mapped[int] = mapped_column(Integer)
    online: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


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
