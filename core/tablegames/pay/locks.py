"""Jackpot Lock (RULES.md 4): a pending meter hit's amount fixed on the meter before the pay,
by entries that name the hit (no award yet) and the hit's ``locked_*`` columns; given back by
reversal entries.

Two moments use it: at the hit (a group with ``lock_at_hit``: :func:`fix_round`, from the
ledger's ingest of HIT JACKPOT) and at verification (the freeze, ``core.tablegames.pay.freeze``).
Both go one way: the pending locks of a level form a chain, each fixed on what the one before
left.  :func:`fix_in_pay_order` makes a round's hits hold amounts in pay order, giving back
(newest first) and fixing again every lock of the level fixed after the first one that must
move, other tables' included; :func:`give_back` (through :func:`giver`: a rejection, an UNDO
HIT, a misdeal, a claim corrected at the pay) gives locks back and fixes again the ones fixed
on what they left.  So the amounts always equal a sequential pay order, and every amount shown
and changed is recorded (``refixed`` at the hit; ``unfrozen`` / ``frozen`` at verification)
and changes the level's PENDING.  A lock under an award already paid stays where it is.
A pending hit rejected or cancelled (:func:`cancel_hit`) gives its lock back here too.
Below the workflows that lock (ingest, assess, freeze, decide): it calls none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.orm import aliased

from core.kernel.money import json_cents, units_floor_cents
from core.ledger.models import Award, Hit, HitDecision, Level, MeterEntry
from core.tablegames import flags
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.rules import fortune
from core.tablegames.rules.claims import ClaimError, pay_for_claim
from core.tablegames.setup import levels, settings
from core.tablegames.unit import FloorContext, LevelRef, Unit
from core.tablegames.views import HitOutcome

FROZEN = "frozen"
UNFROZEN = "unfrozen"
REFIXED = "refixed"  # a lock-at-hit amount fixed again (it was shown: a record says so)


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


def round_hits(ctx: FloorContext, u: Unit, round_id: int) -> dict[int, tuple[Hit, Any]]:
    """seat -> (hit, pay): the round's pending hits with a meter pay, locked (id order)."""
    hits = u.s.scalars(select(Hit).where(Hit.round_id == round_id, Hit.status == "pending")
                       .order_by(Hit.id).with_for_update()
                       .execution_options(populate_existing=True))
    return {h.seat: (h, pay) for h in hits
            if (pay := lockable_pay(ctx.table_paytable(h.table_id), h)) is not None}


# --- one way to fix amounts: a level's pending locks, in the order they were fixed -----------

Held = tuple[Hit, list[MeterEntry]]  # a pending hit and the live entries of its lock


def _held(u: Unit, level_id: int) -> list[Held]:
    """The level's pending hits that hold an amount, in the order their amounts were fixed
    (each on what the one before left), with their live entries (rows locked, id order)."""
    hits = u.s.scalars(select(Hit).where(Hit.status == "pending",
                                         Hit.locked_level_id == level_id)
                       .order_by(Hit.id).with_for_update()
                       .execution_options(populate_existing=True))
    held = [(h, live_lock_entries(u, h.id)) for h in hits]
    return sorted(((h, e) for h, e in held if e), key=lambda he: he[1][0].id)


def _paid_above(u: Unit, level_id: int, held: Sequence[Held]) -> int:
    """The newest entry of an award paid on the level since its oldest pending lock (0: none).
    A pending lock under it stays as it is: the paid amount was fixed on what it left."""
    if not held:
        return 0
    since = min(e[0].created_at for _h, e in held)
    paid = list(u.s.scalars(select(Award.hit_id).where(Award.level_id == level_id,
                                                       Award.created_at >= since)))
    if not paid:
        return 0
    back = aliased(MeterEntry)
    return int(u.s.scalar(select(func.max(MeterEntry.id)).where(
        MeterEntry.hit_id.in_(paid), MeterEntry.level_id == level_id,
        MeterEntry.kind == "award",
        ~exists().where(back.hit_id == MeterEntry.hit_id, back.reverses_id == MeterEntry.id)))
        or 0)


def _level_name(ctx: FloorContext, g: Any, pay: Any) -> str:
    return str(pay.level or ctx.paytable(g.id).levels[0])


def _redo(ctx: FloorContext, u: Unit, g: Any, release: Sequence[Held],
          fix: Sequence[tuple[Hit, Any]], why: str, given_back: str,
          quiet: frozenset[int] = frozenset()) -> None:
    """Give back the locks of ``release`` (newest first, so each reversal finds the meter as
    that lock left it), then fix ``fix`` in the order given, each on what the previous left.
    Every amount shown before and fixed again is recorded: at verification an ``unfrozen``
    and a ``frozen`` decision, at the hit a ``refixed`` decision naming the old and the new
    amount (``quiet``: hits whose own decision the caller records, e.g. a rejection).  The
    level's PENDING changes with them (the link's tables are told)."""
    was: dict[int, int] = {}
    for h, entries in sorted(release, key=lambda he: he[1][-1].id, reverse=True):
        amount = int(h.locked_amount_cents or 0)
        release_lock(u, h, given_back, entries)
        u.hits.add(h.id)
        u.tables.add(h.table_id)
        if h.id in quiet:
            continue
        was[h.id] = amount
        if not g.lock_at_hit:
            u.s.add(HitDecision(hit_id=h.id, decision=UNFROZEN, employee_id=None,
                                reason=f"{given_back}: {json_cents(amount)} back to the meter",
                                created_at=u.now))
    lvls = levels(u, g.id)
    for h, pay in fix:
        lv = lvls[_level_name(ctx, g, pay)]
        before = balances.current(u, lv.id)
        cents, moves = meters.award(before, settings(u, lv.id), pay.fraction)
        reason = (f"locked at hit #{h.id} (seat {h.seat})" if g.lock_at_hit
                  else f"frozen for hit #{h.id} (seat {h.seat}): {why}")
        balances.write(u, lv, moves, reason=reason, hit_id=h.id, round_id=h.round_id)
        h.locked_level_id = lv.id
        h.locked_amount_cents = cents
        h.locked_meter_before_cents = units_floor_cents(before.meter_units)
        h.locked_meter_after_cents = balances.meter_cents(u, lv.id)
        fixed = (f"{json_cents(cents)} of the {lv.name} meter "
                 f"({json_cents(h.locked_meter_before_cents)} before)")
        if not g.lock_at_hit:
            u.s.add(HitDecision(hit_id=h.id, decision=FROZEN, employee_id=None,
                                reason=f"{why}: {fixed}", created_at=u.now))
        elif h.id in was:
            u.s.add(HitDecision(hit_id=h.id, decision=REFIXED, employee_id=None,
                                reason=f"{why}: {fixed}, was {json_cents(was[h.id])}",
                                created_at=u.now))
        u.hits.add(h.id)
        u.tables.add(h.table_id)


def fix_in_pay_order(ctx: FloorContext, u: Unit, g: Any, wanted: Sequence[tuple[Hit, Any]],
                     why: str, given_back: str) -> None:
    """Make every hit of ``wanted`` (one round's, in pay order) hold an amount, so that the
    amounts of the whole link always equal a sequential pay order (RULES.md 4): a hit that
    holds none is fixed after the ones paid before it; when one paid after it already holds
    an amount, that lock and every lock of the level fixed after it (other tables' too, on
    what it left) are given back, newest first, and fixed again: the round's in pay order,
    then the others in the order they were fixed.  A lock under an award already paid stays
    (the paid amount was fixed on what it left): a new hit is then fixed after the pay."""
    by_level: dict[str, list[tuple[Hit, Any]]] = {}
    for h, pay in wanted:
        by_level.setdefault(_level_name(ctx, g, pay), []).append((h, pay))
    lvls = levels(u, g.id)
    for name, mine in by_level.items():
        lv = lvls[name]
        held = _held(u, lv.id)  # hit rows before the level's balance, as a pay locks them
        first = {h.id: e[0].id for h, e in held}
        fresh = [i for i, (h, _) in enumerate(mine) if h.id not in first]
        if not fresh:
            continue
        late = [first[h.id] for h, _ in mine[fresh[0] + 1:] if h.id in first]
        if late:  # only locks above the newest paid award can move
            floor = _paid_above(u, lv.id, held)
            late = [i for i in late if i > floor]
        release = [(h, e) for h, e in held if late and e[0].id >= min(late)]
        again = {h.id for h, _ in release}
        ours = {h.id for h, _ in mine}
        fix = [(h, pay) for h, pay in mine if h.id not in first or h.id in again]
        fix += [(h, pay) for h, _ in release if h.id not in ours
                if (pay := lockable_pay(ctx.table_paytable(h.table_id), h)) is not None]
        _redo(ctx, u, g, release, fix, why, given_back)


def give_back(ctx: FloorContext, u: Unit, g: Any, gone: Sequence[Hit], why: str,
              given_back: str) -> None:
    """The locks of ``gone`` (hits rejected, cancelled, or a claim corrected at the pay) go
    back to the meter, and every lock of the level fixed after them on what they left is given
    back and fixed again in the same order (newest first back, oldest first fixed), so that
    the amounts still equal a sequential pay order.  A lock under an award paid since stays."""
    ids = frozenset(h.id for h in gone)
    for level_id in sorted({h.locked_level_id for h in gone if h.locked_level_id is not None}):
        held = _held(u, level_id)
        mine = [(h, e) for h, e in held if h.id in ids]
        if not mine:
            continue
        low = max(min(e[0].id for _h, e in mine), _paid_above(u, level_id, held))
        others = [(h, e) for h, e in held if h.id not in ids and e[0].id > low]
        fix = [(h, pay) for h, _ in others
               if (pay := lockable_pay(ctx.table_paytable(h.table_id), h)) is not None]
        _redo(ctx, u, g, mine + others, fix, why, given_back, quiet=ids)
    for h in gone:  # a lock with no live entries: only its columns to empty
        if h.locked_amount_cents is not None:
            release_lock(u, h, given_back)


def fix_round(ctx: FloorContext, u: Unit, g: Any, round_id: int, cause: int) -> None:
    """Lock at hit (RULES.md 4): the amounts of a round's pending meter hits are fixed in PAY
    order (from the dealer's right unless the group says otherwise), each on what the previous
    one left, whatever order the dealer pressed HIT JACKPOT in (:func:`fix_in_pay_order`)."""
    lockable = round_hits(ctx, u, round_id)
    order = meters.payment_order(list(lockable), g.pay_order)
    fix_in_pay_order(ctx, u, g, [lockable[seat] for seat in order],
                     f"re-fixed in pay order after hit #{cause}",
                     f"re-fixed in pay order after hit #{cause}")


def giver(ctx: FloorContext, group_id: str) -> Callable[[Unit, Sequence[Hit], str], None]:
    """For :func:`cancel_hit` and the round's void: how the group's locks go back when hits
    are rejected or cancelled (:func:`give_back`)."""
    g = ctx.group_cfg(group_id)

    def back(u: Unit, gone: Sequence[Hit], what: str) -> None:
        first = min(gone, key=lambda h: h.id)
        give_back(ctx, u, g, gone, f"re-fixed in pay order after hit #{first.id} {what}",
                  f"hit #{first.id} (seat {first.seat}) {what}")

    return back


def cancel_hit(u: Unit, hit: Hit, decision: str, reason: str,
               employee_id: int | None = None,
               give_back: Callable[[Unit, Sequence[Hit], str], None] | None = None) -> None:
    """A pending hit rejected or cancelled; a locked (or frozen) amount goes back by
    reversals: by ``give_back`` (:func:`giver`), which also fixes again every lock of the
    level fixed on what it left, or else alone (its round's void gave the locks back).  For
    the ledger's ingest (UNDO HIT, a round's void, an earlier controller boot) and the pay
    workflow's reject (``decide``)."""
    s = u.s
    if give_back is not None and hit.locked_amount_cents is not None:
        give_back(u, [hit], decision)
    else:
        release_lock(u, hit, f"hit #{hit.id} {decision}")
    s.add(HitDecision(hit_id=hit.id, decision=decision, employee_id=employee_id,
                      reason=reason, created_at=u.now))
    hit.status = "rejected" if decision == "rejected" else "cancelled"
    u.hits.add(hit.id)
    u.tables.add(hit.table_id)
    u.outcomes.append(HitOutcome(hit.id, hit.table_id, hit.round_no, hit.seat, hit.status))
