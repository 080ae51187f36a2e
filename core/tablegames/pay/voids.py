"""Voiding a win slip: an executive's swipe (with the PIN the floor asks for) and a reason.

A void is a record, never an edit: ONE transaction writes the ``slip_voids`` row and, when the
paid money came back, ``reversal`` meter entries that negate exactly the meter movements of the
award (the ``award`` entry, and for a 100% award its ``reseed`` and ``reserve_move``), each
pointing at what it reverses and at the award; the meter gets the money back.  The award, the
slip and its bytes stay as they were, and the hit stays paid: reports show the award and its
reversal.  A tray pay moved no meter: its void with money returned writes no entry (the cash
goes back to the tray).

Refused, naming the problem, with nothing written but the refused swipe's log row: an unknown
slip, a slip already void, a card that is not an executive's (or unknown, or without its PIN),
no reason or a reason that is not one line of printable text or is longer than
:data:`MAX_REASON`, and a reversal that would take a meter or its reserve below zero (then void
it without money returned and correct the meter by a manual adjustment).
"""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from core.kernel.money import json_cents, units_floor_cents
from core.kernel.text import printable
from core.ledger.models import Award, Hit, Level, MeterEntry, Slip, SlipVoid
from core.people.auth import Swipe, Swiper
from core.tablegames import changes
from core.tablegames.meters import balances
from core.tablegames.slips import void_view
from core.tablegames.unit import FloorContext, LevelRef, retrying
from core.tablegames.views import FloorError, VoidedSlip

MAX_REASON = 300  # characters: a reason is a sentence, printed on the win page and the slip


def check_reason(slip_no: int, reason: object) -> str:
    """The reason as it is kept (stripped), or FloorError naming what is wrong with it."""
    why = reason.strip() if isinstance(reason, str) else ""
    if not why:
        raise FloorError(f"win slip {slip_no}: give the reason for the void (it is printed on "
                         "the win page)")
    if printable(why) != why:
        raise FloorError(f"win slip {slip_no}: the reason must be one line of printable text "
                         "(no line breaks or control characters)")
    if len(why) > MAX_REASON:
        raise FloorError(f"win slip {slip_no}: the reason has {len(why)} characters; at most "
                         f"{MAX_REASON}")
    return why


def award_movements(s: Session, hit_id: int, award_id: int) -> list[MeterEntry]:
    """The meter entries the award moved, oldest first: the hit's own entries other than
    reversals (a pay's point at the award; a lock-at-hit pay's were written at HIT JACKPOT
    and point at the hit), less those a reversal of the hit's lock took back (a lock given
    back and fixed again, or given back before a corrected claim was paid)."""
    lock_returns = select(MeterEntry.reverses_id).where(
        MeterEntry.hit_id == hit_id, MeterEntry.kind == "reversal",
        MeterEntry.reverses_id.is_not(None), MeterEntry.award_id.is_(None))
    return list(s.scalars(select(MeterEntry).where(
        or_(MeterEntry.hit_id == hit_id, MeterEntry.award_id == award_id),
        MeterEntry.kind != "reversal", MeterEntry.id.not_in(lock_returns))
        .order_by(MeterEntry.id)))


def void_reversals(s: Session, award_id: int) -> list[MeterEntry]:
    """The reversal entries a void of the award wrote (the only reversals that name an
    award)."""
    return list(s.scalars(select(MeterEntry).where(MeterEntry.award_id == award_id,
                                                   MeterEntry.kind == "reversal")
                          .order_by(MeterEntry.id)))


def _hit_of(ctx: FloorContext, slip_no: object) -> int | None:
    """The hit of a slip, for the swipe log (None: no such slip)."""
    if isinstance(slip_no, bool) or not isinstance(slip_no, int):
        return None
    with ctx.read() as s:
        hit_id = s.scalar(select(Slip.hit_id).where(Slip.slip_no == slip_no))
    return None if hit_id is None else int(hit_id)


def void_slip(ctx: FloorContext, slip_no: int, reason: str, money_returned: bool,
              swipe: Swipe) -> VoidedSlip:
    """Void win slip ``slip_no`` on an executive's ``swipe`` (see the module's docstring).
    Every refusal after the swipe is logged in swipe_log with who and why."""
    gate = ctx.gate
    hit_id = _hit_of(ctx, slip_no)
    who = gate.identified(swipe, hit_id=hit_id, action="void", role="executive")
    try:
        if isinstance(slip_no, bool) or not isinstance(slip_no, int) or slip_no < 1:
            raise FloorError(f"win slip {slip_no!r}: not a slip number")
        why = check_reason(slip_no, reason)
        if not isinstance(money_returned, bool):
            raise FloorError(f"win slip {slip_no}: say whether the paid money came back")
        return retrying(lambda: _void(ctx, slip_no, why, money_returned, who))
    except ValueError as exc:
        raise gate.refused(exc, hit_id=hit_id, action="void", role="executive",
                           who=who) from None


def _void(ctx: FloorContext, slip_no: int, reason: str, money_returned: bool,
          who: Swiper) -> VoidedSlip:
    gate = ctx.gate
    with changes.unit(ctx, "void") as u:
        s = u.s
        found = s.execute(select(Slip.id, Slip.hit_id, Slip.award_id)  # never the slip's bytes
                          .where(Slip.slip_no == slip_no)).first()
        if found is None:
            raise FloorError(f"win slip {slip_no}: no such slip")
        slip_id, hit_id, award_id = int(found[0]), int(found[1]), int(found[2])
        # the hit row locked (PostgreSQL): a second podium voiding the same slip waits, then
        # finds it void
        hit = s.scalars(select(Hit).where(Hit.id == hit_id).with_for_update()).first()
        award = s.get(Award, award_id)
        if hit is None or award is None:
            raise FloorError(f"win slip {slip_no}: its hit or award is missing from the ledger")
        done = s.scalars(select(SlipVoid).where(SlipVoid.slip_id == slip_id)).first()
        if done is not None:
            v = void_view(s, slip_no, done)
            raise FloorError(f"win slip {slip_no}: already void (voided "
                             f"{v.at:%Y-%m-%d %H:%M} UTC by {v.by.label()}: {v.reason})")
        emp = gate.authority(s, who, "executive", "void")
        returned: list[tuple[str, int]] = []
        moves = award_movements(s, hit.id, award.id) if money_returned else []
        if moves:
            by_level: dict[int, list[MeterEntry]] = {}
            for e in moves:
                by_level.setdefault(e.level_id, []).append(e)
            level_by_id = {lv.id: LevelRef(lv.id, lv.group_id, lv.name) for lv in s.scalars(
                select(Level).where(Level.id.in_(list(by_level))))}
            for level_id, rows in sorted(by_level.items()):
                lv = level_by_id[level_id]
                back_m = -sum(int(e.meter_delta) for e in rows)
                back_r = -sum(int(e.reserve_delta) for e in rows)
                now = balances.current(u, level_id)
                if now.meter_units + back_m < 0 or now.reserve_units + back_r < 0:
                    what, held, change = (("meter", now.meter_units, back_m)
                                          if now.meter_units + back_m < 0 else
                                          ("reserve", now.reserve_units, back_r))
                    raise FloorError(
                        f"win slip {slip_no}: giving the award back would take the "
                        f"{lv.group_id}/{lv.name} {what} below zero (it holds "
                        f"{json_cents(units_floor_cents(held))}; reversing the award's "
                        f"movements takes {json_cents(units_floor_cents(-change))} off it). "
                        "Void the slip without money returned and correct the meter by a "
                        "manual adjustment (Meters > Adjust meter…)")
                returned.append((f"{lv.group_id}/{lv.name}", back_m))
            balances.reverse(u, level_by_id, moves, f"void of win slip {slip_no}",
                             hit_id=hit.id, award_id=award.id, employee_id=emp.id)
        row = SlipVoid(slip_id=slip_id, employee_id=emp.id, reason=reason,
                       money_returned=money_returned, created_at=u.now)
        s.add(row)
        gate.accepted(s, emp, who, hit_id=hit.id, action="void", role="executive", now=u.now)
        s.flush()
        u.prints.append(slip_no)  # the slip lists read again
        return VoidedSlip(void_view(s, slip_no, row), hit.id, int(award.amount_cents),
                          len([e for e in moves if e.meter_delta or e.reserve_delta]),
                          tuple(returned))
