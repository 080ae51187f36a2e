"""Every attempt to print a Bad Beat Jackpot share slip, kept with its case
(``bbj_slip_prints``; the console's printer thread reports each)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import BbjSlipPrint
from core.pokerroom.cases.claim import utcnow


@dataclass(frozen=True)
class SlipPrint:
    seat: int
    reprint: bool
    printer: str
    ok: bool
    error: str
    at: datetime


def record_slip_print(engine: Engine, case_id: int, seat: int, *, reprint: bool, printer: str,
                      ok: bool, error: str = "", now: datetime | None = None) -> None:
    """Keep one attempt to print a share slip (the printer thread reports it)."""
    with Session(engine) as s, s.begin():
        s.add(BbjSlipPrint(case_id=case_id, seat=seat, reprint=reprint, printer=printer[:200],
                           ok=ok, error=error, created_at=(now or utcnow()).astimezone(UTC)))


def slip_prints(engine: Engine, case_id: int) -> list[SlipPrint]:
    """Every share slip print attempt of the case, oldest first."""
    with Session(engine) as s:
        rows = s.execute(select(BbjSlipPrint).where(BbjSlipPrint.case_id == case_id)
                         .order_by(BbjSlipPrint.id)).scalars().all()
        return [SlipPrint(r.seat, r.reprint, r.printer, r.ok, r.error, r.created_at)
                for r in rows]
