"""A manual meter adjustment (RULES.md 4 and 5): an executive's card and a second, different
person's (a supervisor; an executive at or above ``[authorization]
adjustment_second_executive_at``), with a reason; the meter never goes below zero."""

from __future__ import annotations

from core.kernel.money import cents_to_units, json_cents, units_floor_cents
from core.ledger.models import MeterEntry
from core.people.auth import AuthError, Swipe, Swiper, same_person
from core.tablegames import changes
from core.tablegames.meters import balances
from core.tablegames.setup import levels
from core.tablegames.unit import FloorContext, retrying
from core.tablegames.views import FloorError

# the largest adjustment the ledger takes at all (the amount fields' own bound: 12 integer
# digits); the floor's second-executive limit is far below it
MAX_ADJUSTMENT_CENTS = 100_000_000_000_00


def adjust(ctx: FloorContext, group: str, level: str, meter_delta_cents: int, reason: str,
           swipe: Swipe, second_swipe: Swipe) -> int:
    """Returns the meter after the adjustment (exact units).  ``swipe``: an executive (with
    the PIN the floor asks for); ``second_swipe``: another person, a supervisor, or an executive
    when the adjustment is ``[authorization] adjustment_second_executive_at`` or more either
    way.  Every refusal is logged in swipe_log with who and why."""
    gate = ctx.gate
    policy = ctx.config.authorization
    first = gate.identified(swipe, hit_id=None, action="adjust", role="executive")
    big = (isinstance(meter_delta_cents, int) and not isinstance(meter_delta_cents, bool)
           and abs(meter_delta_cents) >= policy.adjustment_second_executive_cents)
    second_role = "executive" if big else "supervisor"
    second = gate.identified(second_swipe, hit_id=None, action="adjust", role=second_role)
    try:
        reason = (reason or "").strip()
        if not reason:
            raise FloorError(f"adjustment of {group}/{level}: give a reason")
        if isinstance(meter_delta_cents, bool) or not isinstance(meter_delta_cents, int) \
                or meter_delta_cents == 0:
            raise FloorError(f"adjustment of {group}/{level}: the amount must be a non-zero "
                             "number of cents")
        if abs(meter_delta_cents) > MAX_ADJUSTMENT_CENTS:
            raise FloorError(f"adjustment of {group}/{level}: at most "
                             f"{json_cents(MAX_ADJUSTMENT_CENTS)} either way")
        ctx.group_cfg(group)
        return retrying(lambda: _adjust(ctx, group, level, meter_delta_cents, reason, first,
                                        second, second_role))
    except ValueError as exc:
        # a refusal of the second card (its authority, the same person) names its role
        second_refused = isinstance(exc, AuthError) and exc.card_mac == second.card_mac
        raise gate.refused(exc, hit_id=None, action="adjust",
                           role=second_role if second_refused else "executive",
                           who=first) from None


def _adjust(ctx: FloorContext, group: str, level: str, meter_delta_cents: int, reason: str,
            first: Swiper, second_who: Swiper, second_role: str) -> int:
    gate = ctx.gate
    with changes.unit(ctx, "adjust") as u:
        lv = levels(u, group).get(level)
        if lv is None:
            raise FloorError(f"group {group}: no level {level}")
        emp = gate.authority(u.s, first, "executive", "adjust")
        second = gate.authority(u.s, second_who, second_role, "adjust")
        if same_person(emp, second):
            same = (f"both swipes are employee {emp.number}" if emp.id == second.id else
                    f"employees {emp.number} and {second.number} are both {emp.name}")
            raise AuthError(f"adjustment of {group}/{level}: the second card must be another "
                            f"person ({same})", "same_person", second.id, second_who.card_mac)
        state = balances.current(u, lv.id)
        delta = cents_to_units(meter_delta_cents)
        if state.meter_units + delta < 0:
            raise FloorError(f"adjustment of {group}/{level}: the meter holds "
                             f"{json_cents(units_floor_cents(state.meter_units))}; taking "
                             f"{json_cents(-meter_delta_cents)} would make it negative")
        gate.accepted(u.s, emp, first, hit_id=None, action="adjust", role="executive",
                      now=u.now)
        gate.accepted(u.s, second, second_who, hit_id=None, action="adjust", role=second_role,
                      now=u.now)
        balances.add_entries(u, lv, [MeterEntry(
            kind="adjustment", meter_delta=delta, reserve_delta=0, employee_id=emp.id,
            second_employee_id=second.id, reason=reason, created_at=u.now)])
        return balances.current(u, lv.id).meter_units
