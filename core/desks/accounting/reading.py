"""What the accounting reports read with: plain SQL over the ledger's hourly totals, whose
periods start and end on whole hours of UTC (:func:`check_whole_hours`; the floor file refuses
a gaming day or shift start that is not), its times as aware UTC datetimes (:func:`utc`), and
the chain head of the snapshot a report read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.orm import Session

from core.desks.accounting.periods import Period, PeriodError
from core.ledger import integrity
from core.ledger.models import UTCDateTime


def check_whole_hours(period: Period) -> None:
    """Refuse a period that does not start and end on a whole hour of UTC."""
    for what, at in (("starts", period.start), ("ends", period.end)):
        u = at.astimezone(UTC)
        if u.minute or u.second or u.microsecond:
            raise PeriodError(
                f"period: {period.label} {what} at {u:%H:%M} UTC; the ledger keeps its totals "
                "by whole hours of UTC, so a report starts and ends on one (set the gaming "
                "day and shifts to start on a whole UTC hour in the casino's time zone)")


_T = UTCDateTime()


def sql_at(sql: str, *times: str) -> Any:
    """A plain SQL statement whose ``times`` parameters are UTC times."""
    return text(sql).bindparams(*(bindparam(t, type_=_T) for t in times))


LEVELS = text("SELECT l.id, l.group_id, l.name, g.name FROM levels l JOIN groups g "
               "ON g.id = l.group_id ORDER BY l.group_id, l.id")
SUM_BEFORE = sql_at("SELECT level_id, coalesce(sum(meter_units), 0), "
                    "coalesce(sum(reserve_units), 0) FROM level_hour_totals WHERE hour < :at "
                    "GROUP BY level_id", "at")
BALANCES = text("SELECT level_id, meter_units, reserve_units FROM level_balances")
# a table's hourly totals summed (table_hour_totals th)
TABLE_SUMS = ("coalesce(sum(th.rounds), 0), coalesce(sum(th.wagers), 0), "
              "coalesce(sum(th.wager_cents), 0), coalesce(sum(th.returned_wagers), 0), "
              "coalesce(sum(th.returned_cents), 0), coalesce(sum(th.contribution_units), 0), "
              "coalesce(sum(th.reversal_units), 0)")


def utc(value: Any) -> datetime:
    """A time read by a plain SQL statement as an aware UTC datetime (SQLite gives the text
    SQLAlchemy stored, naive UTC; PostgreSQL an aware datetime)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise TypeError(f"not a time: {value!r}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def chain_head_text(s: Session) -> str:
    n, digest = integrity.chain_head(s.connection())
    return integrity.head_text(n, digest)
