"""What each controller must hear: PAY (with the amount) or REJECT (with the reason) for every
decided hit.  The ledger is the source of truth: these are sent again whenever a table's link
comes up, for every round the controller has not closed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, exists, or_, select
from sqlalchemy.orm import Session, aliased

from core.ledger.models import Award, Hit, HitDecision, Round
from core.ledger.models import ControllerEvent as EventRow
from core.tablegames.unit import FloorContext
from core.tablegames.views import ControllerDecision

DECIDED = ("paid", "auto_paid", "rejected")  # a controller waits for PAY / REJECT of these


def controller_decision(ctx: FloorContext, hit_id: int) -> ControllerDecision | None:
    """PAY / REJECT of a decided hit for its controller (None while pending or when the
    table cancelled the hit itself)."""
    with ctx.read() as s:
        found = _decisions(s, Hit.id == hit_id)
    return found[0] if found else None


def awaited_decisions(ctx: FloorContext, table: str | list[str]) -> list[ControllerDecision]:
    """Decided hits (paid, auto-paid, rejected) of ``table`` whose round the controller has
    not closed: no END GAME, misdeal or undo recorded for the round, and no later START
    GAME at the table (the controller waits for every hit's PAY / REJECT before END GAME,
    so a later round means it moved on).  A hit on a round that never started counts
    until the table records a later START GAME, END GAME or misdeal.  ``table``: one table id
    or several (one query for all the tables whose links came up together)."""
    later = aliased(EventRow)

    def after_hit(*types: str) -> Any:
        return exists().where(later.table_id == Hit.table_id, later.id > Hit.event_id,
                              later.type.in_(types))

    still_open = or_(
        and_(Round.state == "locked", ~after_hit("GameStarted")),
        and_(Hit.round_id.is_(None), ~after_hit("GameStarted", "GameEnded", "Misdealt")))
    tables = [table] if isinstance(table, str) else sorted(table)
    with ctx.read() as s:
        return _decisions(s, Hit.table_id.in_(tables), still_open)


def _decisions(s: Session, *where: Any) -> list[ControllerDecision]:
    rows = s.execute(
        select(Hit, EventRow.boot, EventRow.seq, Award.amount_cents)
        .join(EventRow, EventRow.id == Hit.event_id)
        .outerjoin(Round, Round.id == Hit.round_id)
        .outerjoin(Award, Award.hit_id == Hit.id)
        .where(Hit.status.in_(DECIDED), *where).order_by(Hit.id)).all()
    out: list[ControllerDecision] = []
    for hit, boot, seq, amount in rows:
        reason = ""
        if hit.status == "rejected":
            reason = s.scalar(select(HitDecision.reason).where(
                HitDecision.hit_id == hit.id, HitDecision.decision == "rejected")
                .order_by(HitDecision.id.desc()).limit(1)) or "rejected by supervisor"
        out.append(ControllerDecision(hit.id, hit.table_id, hit.round_no, hit.seat,
                                      hit.status, int(amount or 0), f"{boot}:{seq}", reason))
    return out
