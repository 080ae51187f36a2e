"""What every ledger table shares: the declarative ``Base`` (its metadata holds every table
once the package is imported), the UTC-aware time column, and the values of the string
"enum" columns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase
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
