"""Jackpot Lock (RULES.md 4): a pending meter hit's amount fixed on the meter before the pay,
by entries that name the hit (no award yet) and the hit's ``locked_*`` columns; given back by
reversal entries; several hits of one round fixed in PAY order, each on what the previous left.

Two moments use it: at the hit (a group with ``lock_at_hit``: :func:`fix_round`, from the
ledger's ingest of HIT JACKPOT) and at verification (the freeze, ``core.tablegames.freeze``:
:func:`refix_frozen`).  When a locked or frozen hit is rejected or cancelled, :func:`refixer`
fixes the round's other hits again.  Below the workflows that lock (ingest, assess, freeze,
decide): it calls none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import select

from core.kernel.money import json_cents, units_floor_cents
from core.ledger.models import Hit, HitDecision, Level, MeterEntry
from core.tablegames import balances, flags, meters
from core.tablegames.rules import fortune
from core.tablegames.rules.claims import ClaimError, pay_for_claim
from core.tablegames.setup import levels, settings
from core.tablegames.unit import FloorContext, LevelRef, Unit

FROZEN = "frozen"
UNFROZEN = "unfrozen"


def claimed_pay(pt: Any, hand: str) -> Any:
    """The pay of a claimed hand button (a hand the table does not list pays as the best
    listed hand it always makes, RULES.md 3); None when it pays nothing or needs the cards."""
    if hand not in fortune.HAND_IDS:
        return None
    try:
        return pay_for_claim(pt, hand)
    except ClaimError:
        return None


def lockable_pay(pt: Any, hit: Hit) -> Any:
    """The meter pay a pending hit's claim would lock at the hit or freeze at its verification
    (None: nothing to lock: a tray pay, a claim that pays nothing or needs the cards, a flagged
    hit, no wager)."""
    if hit.status != "pending" or hit.wager_id is None or hit.round_id is None:
        return None
    if any(f.blocking for f in flags.loads(hit.flag_codes)):
        return None
    pay = claimed_pay(pt, hit.claimed_hand)
    return pay if pay is not None and pay.source == "meter" else None


def live_lock_entries(u: Unit, hit_id: int) -> list[MeterEntry]:
    """The entries that hold a hit's lock-at-hit amount (not yet reversed), oldest first."""
    reversed_ids = select(MeterEntry.reverses_id).where(MeterEntry.hit_id == hit_id,
                                                        MeterEntry.kind == "reversal",
                                                        MeterEntry.reverses_id.is_not(None))
    return list(u.s.scalars(select(MeterEntry).where(
        MeterEntry.hit_id == hit_id, MeterEntry.kind != "reversal",
        MeterEntry.award_id.is_(None), MeterEntry.id.not_in(reversed_ids))
        .order_by(MeterEntry.id)))


def release_lock(u: Unit, hit: Hit, reason: str,
                 entries: list[MeterEntry] | None = None) -> None:
    """Give a hit's lock-at-hit amount back to the meter by reversal entries (``entries``: its
    :func:`live_lock_entries`, when the caller has them already)."""
    if entries is None:
        entries = live_lock_entries(u, hit.id)
    if entries:
        lv_ids = {e.level_id for e in entries}
        level_by_id = {lv.id: LevelRef(lv.id, lv.group_id, lv.name) for lv in u.s.scalars(
            select(Level).where(Level.id.in_(lv_ids)))}
        balances.reverse(u, level_by_id, entries, reason, hit_id=hit.id)
    hit.locked_level_id = None
    hit.locked_amount_cents = None
    hit.locked_meter_before_cents = None
    hit.locked_meter_after_cents = None


def fix_round(ctx: FloorContext, u: Unit, g: Any, round_id: int, cause: int) -> None:
    """Lock at hit (RULES.md 4): fix the amounts of a round's pending meter hits in PAY order
    (from the dealer's right unless the group says otherwise), each on what the previous one
    left, whatever order the dealer pressed HIT JACKPOT in.  A round with one hit locks it; when
    another hit of the round arrives (or one is rejected), the round's locks are given back
    (newest first) and fixed again in pay order, so the ledger shows both.  Paid hits keep
    their amounts; hits of other rounds are not touched."""
    hits = list(u.s.scalars(select(Hit).where(Hit.round_id == round_id,
                                              Hit.status == "pending")
                            .order_by(Hit.id).with_for_update()))
    lockable = {h.seat: (h, pay) for h in hits
                if (pay := lockable_pay(ctx.table_paytable(h.table_id), h)) is not None}
    if not lockable:
        return
    locked = [h for h, _ in lockable.values() if h.locked_amount_cents is not None]
    order = meters.payment_order(list(lockable), g.pay_order)
    fresh = [lockable[seat][0] for seat in order if lockable[seat][0].locked_amount_cents is None]
    if not locked and len(fresh) == 1:
        pass  # the round's only hit: nothing to give back
    else:
        # newest lock first, so every reversal finds the meter as that lock left it
        entries = {h.id: live_lock_entries(u, h.id) for h in locked}
        for h in sorted(locked, key=lambda h: max((e.id for e in entries[h.id]), default=0),
                        reverse=True):
            release_lock(u, h, f"re-fixed in pay order after hit #{cause}", entries[h.id])
            u.hits.add(h.id)
    lvls = levels(u, g.id)
    for seat in order:
        h, pay = lockable[seat]
        lv = lvls[pay.level or ctx.paytable(g.id).levels[0]]
        before = balances.current(u, lv.id)
        cents, moves = meters.award(before, settings(u, lv.id), pay.fraction)
        balances.write(u, lv, moves, reason=f"locked at hit #{h.id} (seat {h.seat})",
                       hit_id=h.id, round_id=round_id)
        h.locked_level_id = lv.id
        h.locked_amount_cents = cents
        h.locked_meter_before_cents = units_floor_cents(before.meter_units)
        h.locked_meter_after_cents = balances.meter_cents(u, lv.id)
        u.hits.add(h.id)


def round_hits(ctx: FloorContext, u: Unit, round_id: int) -> dict[int, tuple[Hit, Any]]:
    """seat -> (hit, pay): the round's pending hits with a meter pay, locked (id order)."""
    hits = u.s.scalars(select(Hit).where(Hit.round_id == round_id, Hit.status == "pending")
                       .order_by(Hit.id).with_for_update()
                       .execution_options(populate_existing=True))
    return {h.seat: (h, pay) for h in hits
            if (pay := lockable_pay(ctx.table_paytable(h.table_id), h)) is not None}


def refix_frozen(ctx: FloorContext, u: Unit, g: Any, hits: Sequence[tuple[Hit, Any]], why: str,
                 given_back: str) -> None:
    """Give back the freezes among ``hits`` (newest first, so each reversal finds the meter as
    that freeze left it), then fix every one of them, in the order given, each on what the
    previous left."""
    held = [h for h, _ in hits if h.locked_amount_cents is not None]
    entries = {h.id: live_lock_entries(u, h.id) for h in held}
    for h in sorted(held, key=lambda h: max((e.id for e in entries[h.id]), default=0),
                    reverse=True):
        amount = int(h.locked_amount_cents or 0)
        release_lock(u, h, given_back, entries[h.id])
        u.s.add(HitDecision(hit_id=h.id, decision=UNFROZEN, employee_id=None,
                            reason=f"{given_back}: {json_cents(amount)} back to the meter",
                            created_at=u.now))
    lvls = levels(u, g.id)
    for h, pay in hits:
        lv = lvls[pay.level or ctx.paytable(g.id).levels[0]]
        before = balances.current(u, lv.id)
        cents, moves = meters.award(before, settings(u, lv.id), pay.fraction)
        balances.write(u, lv, moves, reason=f"frozen for hit #{h.id} (seat {h.seat}): {why}",
                       hit_id=h.id, round_id=h.round_id)
        h.locked_level_id = lv.id
        h.locked_amount_cents = cents
        h.locked_meter_before_cents = units_floor_cents(before.meter_units)
        h.locked_meter_after_cents = balances.meter_cents(u, lv.id)
        u.s.add(HitDecision(hit_id=h.id, decision=FROZEN, employee_id=None,
                            reason=f"{why}: {json_cents(cents)} of the {lv.name} meter "
                                   f"({json_cents(h.locked_meter_before_cents)} before)",
                            created_at=u.now))
        u.hits.add(h.id)
        u.tables.add(h.table_id)


def refixer(ctx: FloorContext, group_id: str) -> Callable[[Unit, int, int], None]:
    """For :func:`core.tablegames.ingest.cancel_hit`: how the group fixes a round's other hits
    again when a locked or frozen hit is rejected or cancelled.  At the hit (``lock_at_hit``):
    the round's locks, all fixed again in pay order (:func:`fix_round`).  At verification: the
    frozen hits of its round paid after it (fixed on what it left) are given back and fixed
    again in pay order."""
    g = ctx.group_cfg(group_id)
    if g.lock_at_hit:
        return lambda u, round_id, hit_id: fix_round(ctx, u, g, round_id, hit_id)

    def refix(u: Unit, round_id: int, hit_id: int) -> None:
        gone = u.s.get(Hit, hit_id)
        lockable = round_hits(ctx, u, round_id)
        if gone is None or not lockable:
            return
        order = meters.payment_order([*lockable, gone.seat] if gone.seat not in lockable
                                     else list(lockable), g.pay_order)
        redo = [lockable[s] for s in order[order.index(gone.seat) + 1:]
                if s in lockable and lockable[s][0].locked_amount_cents is not None]
        if redo:
            refix_frozen(ctx, u, g, redo, f"re-fixed in pay order after hit #{hit_id} "
                         f"{gone.status}", f"hit #{hit_id} (seat {gone.seat}) {gone.status}")

    return refix
