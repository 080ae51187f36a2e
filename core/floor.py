"""Compatibility: the floor now lives in ``core.tablegames`` (one module per workflow)."""

from __future__ import annotations

from sqlalchemy import Engine

from core.money import UNITS_PER_CENT
from core.tablegames.balances import check_balances
from core.tablegames.floor import Floor
from core.tablegames.ingest import AUTO_PAID_REASON
from core.tablegames.views import (
    AmountChanged,
    ControllerDecision,
    DecisionRecord,
    FloorChange,
    FloorError,
    FloorSnapshot,
    HitMarker,
    HitOutcome,
    HitRecord,
    LevelView,
    PaidHit,
    PendingHitView,
    PendingSlip,
    TableView,
    Verification,
)


def check_meter_invariant(engine: Engine) -> list[str]:
    """Every level's meter and reserve are >= 0 and the kept balances equal the entries."""
    return check_balances(engine)


__all__ = [
    "AUTO_PAID_REASON", "AmountChanged", "ControllerDecision", "DecisionRecord", "Floor",
    "FloorChange", "FloorError", "FloorSnapshot", "HitMarker", "HitOutcome", "HitRecord",
    "LevelView", "PaidHit", "PendingHitView", "PendingSlip", "TableView", "UNITS_PER_CENT",
    "Verification", "check_meter_invariant",
]
