"""Jackpot Lock at verification (RULES.md 4): a meter pay's amount is fixed when a supervisor
opens its verification, so the swipe authorizes exactly the amount shown however the linked
tables play meanwhile.

The freeze is the lock-at-hit mechanism (``core.tablegames.pay.locks``), written at
another moment: the award's movements are taken off the meter by entries that name the hit (no
award yet), the hit's ``locked_*`` columns hold the amount, so every table of the link shows it
PENDING (``LevelView.frozen_cents``) while the live meter grows for the next award; the pay
writes no new movement and the award takes exactly the frozen amount.  A verification closed
without a decision gives it back (reversal entries pointing at the freeze's), unless another
award or freeze on the level was fixed on what it left (then it stays frozen until the hit is
decided: every amount stays one of a sequential pay order).  Each freeze and release is a
``hit_decisions`` row (``frozen`` / ``unfrozen``).

Several hits of one round are fixed in pay order (from the dealer's right unless the group says
otherwise), each on what the previous one left: opening a hit freezes it and every pending meter
hit of its round paid before it; a hit paid before one already frozen (it came later) gives
back that freeze and every freeze of the link fixed after it (other tables' too: they were fixed
on what it left), newest first, and fixes them again after it (``locks.fix_in_pay_order``), so
the amounts always equal a sequential pay order.  Hits of other rounds are fixed on what the
freezes before them left.

A verification left open when its console dies keeps its freeze: the amount stays PENDING for
the player until the hit is paid, rejected, cancelled (misdeal, UNDO), or its verification is
opened again and closed without a decision.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import exists, select
from sqlalchemy.orm import aliased

from core.kernel.money import json_cents
from core.ledger.models import GameTable, Hit, HitDecision, MeterEntry
from core.tablegames import changes
from core.tablegames.meters import arithmetic as meters
from core.tablegames.pay.assess import load_hit
from core.tablegames.pay.locks import (
    FROZEN,
    UNFROZEN,
    fix_in_pay_order,
    live_lock_entries,
    release_lock,
    round_hits,
)
from core.tablegames.setup import levels
from core.tablegames.unit import FloorContext, Unit, retrying
from core.tablegames.views import FloorError, FrozenAmount


def _view(u: Unit, hit: Hit, state: str) -> FrozenAmount:
    level = None
    if hit.locked_level_id is not None:
        level = next((lv.name for lv in levels(u, _group_of(u, hit)).values()
                      if lv.id == hit.locked_level_id), None)
    return FrozenAmount(hit.id, state, hit.locked_amount_cents, level,
                        hit.locked_meter_before_cents)


def _group_of(u: Unit, hit: Hit) -> str:
    t = u.s.get(GameTable, hit.table_id)
    if t is None:
        raise FloorError(f"hit #{hit.id}: table {hit.table_id} is not in the ledger")
    return t.group_id


def freeze(ctx: FloorContext, hit_id: int, where: str = "") -> FrozenAmount:
    """A supervisor opens the verification of ``hit_id``: fix its amount now (one transaction).

    ``state`` of the answer: ``frozen`` (fixed now, or by an earlier verification: closing
    this one without a decision gives it back), ``locked_at_hit`` (the group fixes amounts at
    HIT JACKPOT: nothing to do, nothing to give back), ``none`` (not a meter pay, or a hit
    that can only be rejected: nothing is frozen).  A hit no longer pending is refused
    (FloorError).  ``where``: the podium, for the record."""
    return retrying(lambda: _freeze(ctx, hit_id, where))


def _freeze(ctx: FloorContext, hit_id: int, where: str) -> FrozenAmount:
    with changes.unit(ctx, "freeze") as u:
        hit = load_hit(u, hit_id, lock=False)
        g = ctx.group_cfg(_group_of(u, hit))
        if hit.round_id is None:
            _still_pending(hit)
            return _view(u, hit, "none")
        # the round's hits locked in id order (as every writer of them does), this one with them
        lockable = round_hits(ctx, u, hit.round_id)
        u.s.refresh(hit)
        _still_pending(hit)
        if g.lock_at_hit:
            return _view(u, hit, "locked_at_hit" if hit.locked_amount_cents is not None
                         else "none")
        if hit.seat not in lockable or lockable[hit.seat][0].id != hit.id:
            return _view(u, hit, "none")
        order = meters.payment_order(list(lockable), g.pay_order)
        # this hit and every hit paid before it in the round must hold an amount; the first
        # that does not is fixed now, and every hit after it (its freeze given back) again
        upto = order[: order.index(hit.seat) + 1]
        fresh = [s for s in upto if lockable[s][0].locked_amount_cents is None]
        if not fresh:
            return _view(u, hit, FROZEN)
        start = order.index(fresh[0])
        redo = [lockable[s] for s in order[start:]
                if s in upto or lockable[s][0].locked_amount_cents is not None]
        first = lockable[fresh[0]][0]
        opened = f"verification of hit #{hit.id} opened" + (f" at {where}" if where else "")
        why = opened if first.id == hit.id and len(redo) == 1 else (
            f"{opened}; fixed in pay order (round {hit.round_no}: seat "
            f"{', then seat '.join(str(h.seat) for h, _ in redo)})")
        wanted = [lockable[s] for s in order
                  if s in upto or lockable[s][0].locked_amount_cents is not None]
        fix_in_pay_order(ctx, u, g, wanted, why, f"re-fixed in pay order: seat {first.seat} "
                         f"(hit #{first.id}) is paid first")
        return _view(u, hit, FROZEN)


def _still_pending(hit: Hit) -> None:
    if hit.status != "pending":
        raise FloorError(f"hit #{hit.id} (table {hit.table_id} seat {hit.seat}): already "
                         f"{hit.status.replace('_', '-')}")


def unfreeze(ctx: FloorContext, hit_id: int, where: str = "") -> FrozenAmount:
    """A verification closed without a decision: give the hit's frozen amount back to the
    meter by reversal entries and an ``unfrozen`` decision (one transaction).

    Nothing changes (``state`` says why) for a hit decided meanwhile (``paid``, ...), a hit
    not frozen (``none``), a lock-at-hit group (``locked_at_hit``: its amount holds until the
    hit is decided), or a freeze another award or freeze on the level was fixed on (``kept``:
    a hit paid after it in its round's pay order, or a hit of another table verified
    meanwhile, took its share of what this one left; it stays frozen until the hit is paid,
    rejected or cancelled, or until that other freeze is given back first)."""
    try:
        return retrying(lambda: _unfreeze(ctx, hit_id, where))
    except _Kept as kept:
        return kept.view


class _Kept(Exception):
    def __init__(self, view: FrozenAmount) -> None:
        super().__init__(view.state)
        self.view = view


def _unfreeze(ctx: FloorContext, hit_id: int, where: str) -> FrozenAmount:
    with changes.unit(ctx, "unfreeze") as u:
        hit = load_hit(u, hit_id, lock=False)
        if hit.status != "pending" or hit.round_id is None:
            return FrozenAmount(hit.id, hit.status if hit.status != "pending" else "none",
                                None, None, None)
        g = ctx.group_cfg(_group_of(u, hit))
        round_hits(ctx, u, hit.round_id)  # locked in id order, as every writer of them does
        u.s.refresh(hit)
        if hit.status != "pending":
            return FrozenAmount(hit.id, hit.status, None, None, None)
        if hit.locked_amount_cents is None:
            return _view(u, hit, "none")
        if g.lock_at_hit:
            return _view(u, hit, "locked_at_hit")
        entries = live_lock_entries(u, hit.id)
        if entries and _stood_on(u, hit, entries):
            return _view(u, hit, "kept")
        view = _view(u, hit, UNFROZEN)
        amount = int(hit.locked_amount_cents)
        closed = "verification closed without a decision" + (f" at {where}" if where else "")
        try:
            release_lock(u, hit, f"hit #{hit.id} {closed}", entries)
        except FloorError:
            # a later freeze on the level took what giving this back needs (a reseed to
            # reverse): the amount stays frozen until the hit is decided
            raise _Kept(_view(u, hit, "kept")) from None
        u.s.add(HitDecision(hit_id=hit.id, decision=UNFROZEN, employee_id=None,
                            reason=f"{closed}: {json_cents(amount)} back to the meter",
                            created_at=u.now))
        u.hits.add(hit.id)
        u.tables.add(hit.table_id)
        return view


def _stood_on(u: Unit, hit: Hit, entries: Sequence[MeterEntry]) -> bool:
    """Whether another award or freeze on the level was fixed on what this freeze left (an
    ``award`` entry of another hit after it, not given back): then giving this one back would
    leave that amount equal to no sequential pay order, so it stays frozen until decided."""
    later = aliased(MeterEntry)
    back = aliased(MeterEntry)
    first = min(entries, key=lambda e: e.id)
    return u.s.scalar(select(later.id).where(
        later.level_id == first.level_id, later.created_at >= first.created_at,
        later.id > max(e.id for e in entries), later.kind == "award",
        later.hit_id.is_not(None), later.hit_id != hit.id,
        ~exists().where(back.hit_id == later.hit_id, back.reverses_id == later.id))
        .limit(1)) is not None
