"""A refused event: screened before it joins a batch or a transaction (:func:`screened`: what
the ledger could not keep as it is becomes a :class:`~core.controllers.events.Refused` of it),
and its ``refused_events`` row, its only trace once the controller drops it
(:func:`record_refusal`, written by the caller after rolling the event's own changes back).
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from sqlalchemy import select

from core.controllers.events import Delivery, Origin, Refused, SequenceGap
from core.controllers.frames import MAX_TIME_CHARS
from core.controllers.screening import event_problem, refusal_text, storable
from core.ledger.models import RefusedEvent
from core.tablegames.ingest.events import SEQUENCE_GAP, payload
from core.tablegames.unit import Unit

log = logging.getLogger("podium.floor")


def _refused_payload(event: Delivery) -> tuple[str, dict[str, Any]]:
    if isinstance(event, Refused):
        if event.event is not None:
            return type(event.event).__name__, payload(event.event)
        return (_KIND_TYPES.get(event.kind, event.kind or "EVENT")[:32], dict(event.fields))
    if isinstance(event, SequenceGap):
        return SEQUENCE_GAP, {"first": event.first, "last": event.last}
    return type(event).__name__, payload(event)


_KIND_TYPES = {"GAME_STARTED": "GameStarted", "HIT": "HitClaimed", "GAME_ENDED": "GameEnded",
               "UNDO": "Undone", "MISDEAL": "Misdealt"}


def record_refusal(u: Unit, origin: Origin, event: Delivery, reason: str) -> bool:
    """Keep a refused event (its only trace once the controller drops it), once per (table,
    boot, seq).  True if a row was added."""
    s = u.s
    if s.scalar(select(RefusedEvent.id).where(
            RefusedEvent.table_id == origin.table, RefusedEvent.boot == origin.boot,
            RefusedEvent.seq == origin.seq)) is not None:
        return False
    # the row is the refused event's only trace: whatever was wrong with its text, the row's
    # own text is storable (escapes for what no ledger stores, the reason as the ACK says it)
    try:
        kind, body = _refused_payload(event)
        body = _storable_text(json.loads(json.dumps(body, default=repr)))
    except (TypeError, ValueError, AttributeError, RecursionError):  # not even JSON: its repr
        inner = event.event if isinstance(event, Refused) and event.event is not None else event
        kind, body = type(inner).__name__, {"unreadable": storable(repr(inner)[:1000])}
    ctime = origin.controller_time if isinstance(origin.controller_time, str) else ""
    s.add(RefusedEvent(table_id=origin.table, boot=origin.boot, seq=origin.seq,
                       type=storable(kind)[:32], payload=body,
                       controller_time=storable(ctime)[:MAX_TIME_CHARS],
                       reason=refusal_text(reason), received_at=u.now))
    s.flush()
    log.info("table %s: event %s:%d (%s) refused and kept: %s", origin.table, origin.boot,
             origin.seq, kind, refusal_text(reason))
    return True


def _storable_text(v: Any) -> Any:
    """A JSON value with every text (keys too) storable (``screening.storable``: escapes) and
    NaN or an infinity as text (no ledger's JSON takes them)."""
    if isinstance(v, dict):
        return {storable(str(k)): _storable_text(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_storable_text(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return storable(v) if isinstance(v, str) else v


def screened(origin: Origin, event: Delivery) -> Delivery:
    """``event``, or a :class:`Refused` of it when the ledger could not keep it as it is (text no
    ledger stores, a member of the wrong type or beyond its bound: ``screening.event_problem``).
    Asked before an event joins a batch (the ledger writer) or a transaction (Floor.handle), so
    that such an event is refused alone, by name, with its ``refused_events`` row."""
    if isinstance(event, (Refused, SequenceGap)):
        return event
    problem = event_problem(origin, event)
    if not problem:
        return event
    return Refused(f"malformed event: {problem}", event)
