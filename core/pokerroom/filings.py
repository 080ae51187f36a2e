"""A filing of a poker room deadline recorded (``bbj_filings``, append-only and chained;
docs/bbj.md "Room deadlines").

A filing (:func:`record_filing`) needs a supervisor's swipe and is written in one transaction
with its swipe-log row.  A second filing of the same kind and period (a cessation's kinds: of
the same fund) is refused naming the first; a CORRECTION names the filing it corrects
(``corrects=``) and its reason (``detail``): both rows stay, the correction is the one that
counts, and its own filing time decides whether it was late.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.text import printable
from core.ledger.db import lock_record
from core.ledger.models import BbjCessation, BbjFiling, BbjFund, Employee
from core.people.auth import gate_for
from core.people.who import Who
from core.pokerroom.calendar import (
    FUND_KINDS,
    KINDS,
    NOTICE_KINDS,
    BbjFilingError,
    end_of_day,
    local_day,
    period_and_due,
)
from core.pokerroom.calendar_settings import CalendarSettings
from core.pokerroom.deadlines import Filing, filing_key, planned_days, withheld_months

log = logging.getLogger("podium.bbj_calendar")

REFERENCE_OPTIONAL = frozenset({"players_notice"})  # a notice posted in the room has no number
SWIPE_ACTION = "bbj_filing"
ROLE = "supervisor"
REFERENCE_MAX = 200
DETAIL_MAX = 2000


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _text(value: str, what: str, limit: int, *, required: bool) -> str:
    if not isinstance(value, str):
        raise BbjFilingError(f"{what}: must be text")
    text = value.strip()
    if required and not text:
        raise BbjFilingError(f"{what}: must not be empty")
    if len(text) > limit:
        raise BbjFilingError(f"{what}: {len(text):,} characters; at most {limit:,}")
    if any(printable(line) != line for line in text.split("\n")):
        raise BbjFilingError(f"{what}: has characters that can not be printed")
    return text


def record_filing(engine: Engine, swipe: str, *, kind: str, period_start: date,
                  filed_at: datetime, reference: str, tz: ZoneInfo, fund_id: str | None = None,
                  detail: str = "", corrects: int | None = None,
                  holidays: Iterable[date] = (), settings: CalendarSettings | None = None,
                  clock: Callable[[], datetime] = _utcnow) -> Filing:
    """Record a filing of ``kind`` for the period starting ``period_start`` (for a cessation's
    kinds: the cessation's local date) with a supervisor's swipe, in one transaction with its
    swipe-log row (action ``bbj_filing``); the filing.  Late when ``filed_at`` is at or after
    the end of the due day.  A second filing of the same kind and period is refused naming the
    first, unless it is a correction (``corrects`` = the filing it replaces, the latest one,
    and ``detail`` = why).  A refusal writes only the swipe-log row."""
    cfg = settings or CalendarSettings()
    hol = tuple(holidays)
    now = clock().astimezone(UTC)
    if kind not in KINDS:
        raise BbjFilingError(f"{kind!r}: not a filing ({', '.join(KINDS)})")
    name = KINDS[kind]
    if kind in FUND_KINDS and not fund_id:
        raise BbjFilingError(f"{name}: name the fund")
    if kind not in FUND_KINDS and fund_id:
        raise BbjFilingError(f"{name}: is the casino's, not a fund's (fund {fund_id!r} given)")
    end, due_on = period_and_due(kind, period_start, cfg, hol)
    due_first = end_of_day(due_on, tz)  # TGD-108: the form's; the guideline's is read below
    if filed_at.tzinfo is None:
        raise BbjFilingError(f"{name}: the filing time must be timezone-aware")
    filed = filed_at.astimezone(UTC)
    if filed > now:
        raise BbjFilingError(f"{name}: filed {filed_at.astimezone(tz):%Y-%m-%d %H:%M} is in "
                             "the future")
    started = datetime.combine(period_start, time(), tz).astimezone(UTC)
    if kind not in NOTICE_KINDS and filed < started:
        raise BbjFilingError(f"{name}: filed {filed_at.astimezone(tz):%Y-%m-%d %H:%M}, before "
                             f"its period begins ({period_start})")
    ref = _text(reference, f"{name}: the reference", REFERENCE_MAX,
                required=kind not in REFERENCE_OPTIONAL)
    why = _text(detail, f"{name}: the detail", DETAIL_MAX, required=False)
    if corrects is not None and not why:
        raise BbjFilingError(f"{name}: a correction needs its reason (the detail)")
    key = filing_key(kind, fund_id, period_start)
    label = f"{name} {fund_id + ' ' if fund_id else ''}{period_start}"

    def write(s: Session, emp: Employee) -> Filing:
        lock_record(s, "bbj_filings", f"{kind}:{fund_id}:{key[2]}")
        due = end_of_day(period_and_due(kind, period_start, cfg, hol,
                                        withheld=withheld_months(s, tz))[1], tz) \
            if kind == "tgd108" else due_first
        if fund_id is not None:
            if s.get(BbjFund, fund_id) is None:
                raise BbjFilingError(f"{label}: fund {fund_id!r} does not exist")
            c = s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
                .scalar_one_or_none()
            if kind in NOTICE_KINDS and period_start not in planned_days(s, fund_id, c, tz):
                planned = ", ".join(map(str, sorted(planned_days(s, fund_id, c, tz))))
                raise BbjFilingError(f"{label}: fund {fund_id!r} has no planned cessation on "
                                     f"{period_start} (planned: {planned or 'none'})")
            if kind == "tgd1540_part2":
                if c is None:
                    raise BbjFilingError(f"{label}: fund {fund_id!r} has not ceased")
                ceased_on = local_day(c.created_at, tz)
                if ceased_on != period_start:
                    raise BbjFilingError(f"{label}: fund {fund_id!r} ceased on {ceased_on}")
        q = select(BbjFiling, Employee).join(Employee, Employee.id == BbjFiling.employee_id) \
            .where(BbjFiling.kind == kind).order_by(BbjFiling.id)
        q = q.where(BbjFiling.fund_id == fund_id) if fund_id is not None \
            else q.where(BbjFiling.fund_id.is_(None))
        if key[2] is not None:
            q = q.where(BbjFiling.period_start == period_start)
        before = s.execute(q).all()
        if before and corrects is None:
            first, who = before[0]
            latest = before[-1][0]
            more = (f"; its latest correction is filing {latest.id}" if latest.id != first.id
                    else "")
            raise BbjFilingError(
                f"{label}: already filed (filing {first.id}, filed "
                f"{first.filed_at.astimezone(tz):%Y-%m-%d %H:%M}, reference "
                f"{first.reference or '-'}, by {who.number} {who.name}){more}; a correction "
                f"names the filing it corrects and why")
        if corrects is not None:
            last = before[-1][0] if before else None
            if last is None or last.id != corrects:
                now_latest = f"filing {last.id}" if last else "nothing is filed yet"
                raise BbjFilingError(f"{label}: a correction corrects the latest filing of "
                                     f"the period ({now_latest}), not filing {corrects}")
        row = BbjFiling(kind=kind, fund_id=fund_id, period_start=period_start, period_end=end,
                        due_at=due, filed_at=filed, reference=ref, detail=why,
                        late=filed >= due, corrects_id=corrects, employee_id=emp.id,
                        created_at=now)
        s.add(row)
        s.flush()
        return Filing(row.id, kind, fund_id, period_start, end, due, filed, ref, why,
                      row.late, corrects, Who.of(emp), now)

    filing = gate_for(engine).run(swipe, ROLE, SWIPE_ACTION,
                                  lambda s, emp, _now: write(s, emp), words="a poker room filing")
    log.info("poker room filing %d: %s%s", filing.filing_id, label,
             " (LATE)" if filing.late else "")
    return filing
