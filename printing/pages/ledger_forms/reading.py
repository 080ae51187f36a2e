"""How every form reads the ledger: one read-only session (on PostgreSQL one READ ONLY,
REPEATABLE READ snapshot, so every figure of a form comes from one snapshot), the fund's and
its cessation's rows, casino-local times, and an award's reference."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import BbjCessation, BbjFund
from printing.pages.forms import FormError


def reading(engine: Engine) -> Session:
    """A read-only session; on PostgreSQL one READ ONLY snapshot for the whole form (SQLite's
    transaction is a snapshot already)."""
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="REPEATABLE READ",
                                          postgresql_readonly=True)
    return Session(engine)


def fund_row(s: Session, fund_id: str) -> BbjFund:
    """The fund's row; a FormError when there is no such fund."""
    fund = s.get(BbjFund, fund_id)
    if fund is None:
        raise FormError(f"fund {fund_id!r} does not exist")
    return fund


def local_time(at: datetime, tz: ZoneInfo) -> datetime:
    """A ledger time (UTC) in the casino's time zone."""
    return at.astimezone(tz)


def utc_start(day: date, tz: ZoneInfo) -> datetime:
    """The casino-local midnight starting ``day``, in UTC."""
    return datetime.combine(day, time(), tz).astimezone(UTC)


def cessation_row(s: Session, fund_id: str) -> BbjCessation | None:
    """The fund's cessation row (None while the fund is open)."""
    return s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
        .scalar_one_or_none()


def case_reference(case_id: int | None, award_id: int) -> str:
    """An award's reference on the forms: "case 3 / award 1" (or "award 1")."""
    return f"case {case_id} / award {award_id}" if case_id is not None else f"award {award_id}"
