"""A manual meter adjustment (RULES.md 4 and 5): an executive's card and a second, different
person's (supervisor or executive), with a reason; the meter never goes below zero."""

from __future__ import annotations

from core.auth import AuthError, authorize, log_swipe
from core.ledger.models import MeterEntry
from core.money import cents_to_units, json_cents, units_floor_cents
from core.tablegames import balances
from core.tablegames.setup import levels
from core.tablegames.unit import FloorContext, retrying
from core.tablegames.views import FloorError


def adjust(ctx: FloorContext, group: str, level: str, meter_delta_cents: int, reason: str,
           swipe: str, second_swipe: str) -> int:
    """Returns the meter after the adjustment (exact units)."""
    return retrying(lambda: _adjust(ctx, group, level, meter_delta_cents, reason, swipe,
                                    second_swipe))


def _adjust(ctx: FloorContext, group: str, level: str, meter_delta_cents: int, reason: str,
            swipe: str, second_swipe: str) -> int:
    reason = (reason or "").strip()
    if not reason:
        raise FloorError(f"adjustment of {group}/{level}: give a reason")
    if isinstance(meter_delta_cents, bool) or not isinstance(meter_delta_cents, int) \
            or meter_delta_cents == 0:
        raise FloorError(f"adjustment of {group}/{level}: the amount must be a non-zero "
                         "number of cents")
    ctx.group_cfg(group)
    refusal: AuthError | None = None
    first_ok: int | None = None
    with ctx.unit("adjust") as u:
        lv = levels(u, group).get(level)
        if lv is None:
            raise FloorError(f"group {group}: no level {level}")
        try:
            emp = authorize(u.s, swipe, "executive", "adjust")
            first_ok = emp.id
            second = authorize(u.s, second_swipe, "supervisor", "adjust")
        except AuthError as exc:
            refusal = exc
        if refusal is None and second.id == emp.id:
            refusal = AuthError(f"adjustment of {group}/{level}: the second card must be "
                                f"another person (both swipes are employee {emp.number})",
                                "same_person", emp.id)
        if refusal is None:
            state = balances.current(u, lv.id)
            delta = cents_to_units(meter_delta_cents)
            if state.meter_units + delta < 0:
                raise FloorError(f"adjustment of {group}/{level}: the meter holds "
                                 f"{json_cents(units_floor_cents(state.meter_units))}; taking "
                                 f"{json_cents(-meter_delta_cents)} would make it negative")
            for e in (emp, second):
                log_swipe(u.s, "accepted", employee_id=e.id, hit_id=None, action="adjust",
                          role_required="executive" if e is emp else "supervisor", now=u.now)
            balances.add_entries(u, lv, [MeterEntry(
                kind="adjustment", meter_delta=delta, reserve_delta=0, employee_id=emp.id,
                second_employee_id=second.id, reason=reason, created_at=u.now)])
            after = balances.current(u, lv.id).meter_units
    if refusal is not None:
        with ctx.session() as s, s.begin():
            now = ctx.now()
            if first_ok is not None:
                log_swipe(s, "accepted", employee_id=first_ok, hit_id=None, action="adjust",
                          role_required="executive", now=now)
            log_swipe(s, refusal.outcome, employee_id=refusal.employee_id, hit_id=None,
                      action="adjust",
                      role_required="executive" if first_ok is None else "supervisor", now=now)
        raise refusal
    return after
