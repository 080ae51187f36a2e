"""The hits to look at: the hits of a period with their flags, for the list view and ``podium
report flags``; every hit's rows read in a few statements, not per hit."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from core.desks.accounting.periods import Period
from core.desks.desk import Desk
from core.desks.surveillance.hit_flags import hit_line
from core.desks.surveillance.hit_rows import HitRows, read_at
from core.desks.surveillance.records import HitLine
from core.ledger.models import Hit
from core.tablegames.views import FloorError

STATUSES = ("pending", "paid", "auto_paid", "rejected", "cancelled")


def hits_to_look_at(desk: Desk, period: Period, *, table: str | None = None,
                    status: str | None = None, flagged_only: bool = False,
                    now: datetime | None = None, limit: int = 10_000) -> list[HitLine]:
    """The hits recorded in ``period`` (oldest first), optionally of one table or status, with
    their flags; ``flagged_only``: only those with a flag.  More than ``limit`` hits is
    refused (FloorError: narrow the period or choose a table)."""
    at = read_at(now)
    if status is not None and status not in STATUSES:
        raise FloorError(f"status: {status!r} is not one of {', '.join(STATUSES)}")
    with desk.read() as s:
        q = select(Hit).where(Hit.created_at >= period.start, Hit.created_at < period.end)
        if table:
            q = q.where(Hit.table_id == table)
        if status:
            q = q.where(Hit.status == status)
        hits = list(s.scalars(q.order_by(Hit.created_at, Hit.id).limit(limit + 1)))
        if len(hits) > limit:
            raise FloorError(f"{period.label}: more than {limit:,} hits; choose fewer days, a "
                             "shift or a table")
        rows = HitRows(desk, s, hits, at)
        lines = [hit_line(rows, h)[0] for h in hits]
    return [ln for ln in lines if ln.flags or not flagged_only]
