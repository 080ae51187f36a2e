"""Decisions on a hit: pay (cards verified, the swipe's authority, the award, its meter entries
and the slip in ONE transaction) and reject.  The card is identified before the transaction
(``core.people.auth.Gate``: no slow work under the write lock).  A refusal changes nothing; it is
written only to the swipe log (who, what, why), in a transaction of its own."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from core.kernel.cards import Card
from core.kernel.money import json_cents, units_floor_cents
from core.ledger.models import Award, Employee, GameTable, Hit, HitDecision
from core.people.auth import AuthError, Swipe, Swiper, same_person
from core.tablegames import changes, slips
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.pay.assess import Assessment, assess, claim_role, load_hit, parse
from core.tablegames.pay.locks import UNFROZEN, cancel_hit, give_back, giver
from core.tablegames.setup import levels, settings
from core.tablegames.unit import FloorContext, Unit, retrying
from core.tablegames.views import AmountChanged, FloorError, HitOutcome, PaidHit

log = logging.getLogger("podium.floor")


def _role_now(ctx: FloorContext, needed: Callable[[Unit], str | None]) -> str | None:
    """The authority an action on a hit needs as the ledger stands (read-only; None if it can
    not be told now): what a refused card's swipe-log row records as required."""
    try:
        with ctx.read() as s:
            return needed(Unit(s, ctx.now(), ctx.cache))
    except ValueError:
        return None


def pay(ctx: FloorContext, hit_id: int, cards: Sequence[str] | Sequence[Card], swipe: Swipe,
        correct_claim: bool = False, expected_cents: int | None = None,
        verifier: Swipe | None = None) -> PaidHit:
    """Verify the 7 cards, check the swipe's authority, and pay in ONE transaction.

    ``expected_cents``: the amount the supervisor saw and authorized.  A hit frozen when its
    verification opened (core/tablegames/pay/freeze.py) pays exactly its frozen amount however the
    meter moved since; if the hit now pays another amount (its freeze fixed again in pay order,
    a corrected claim, or a hit never frozen whose meter moved), nothing is paid and
    :class:`AmountChanged` names the new amount and why.  The card's authority is checked
    first: a card without it is refused for that, before anything else.  ``verifier``: the
    card of whoever verified the cards, when that is not the authorizer; a pay at or above
    ``[authorization] separate_verifier_at`` needs it, from another person.  Every refusal
    after the swipe is logged in swipe_log with who and why."""
    parsed = parse(cards)

    def needed_now() -> str | None:  # only for a refusal's log row, before the transaction
        return _role_now(ctx, lambda u: assess(ctx, u, load_hit(u, hit_id, lock=False), parsed,
                                               lock=False).role)

    gate = ctx.gate
    who = gate.identified(swipe, hit_id=hit_id, action="pay", role=needed_now)
    checker = (None if verifier is None else
               gate.identified(verifier, hit_id=hit_id, action="verify", role="supervisor"))
    role: list[str | None] = [None]  # the assessment's, once the transaction has made it
    try:
        return retrying(lambda: _pay(ctx, hit_id, parsed, who, checker, correct_claim,
                                     expected_cents, role))
    except ValueError as exc:
        # the verifier's card refused (its authority, the same person as the authorizer)
        verifier_refused = (checker is not None and isinstance(exc, AuthError)
                            and exc.card_mac == checker.card_mac and exc.outcome != "same_person")
        raise gate.refused(exc, hit_id=hit_id, action="verify" if verifier_refused else "pay",
                           role="supervisor" if verifier_refused else role[0] or needed_now(),
                           who=who) from None


def _pay(ctx: FloorContext, hit_id: int, parsed: tuple[Card, ...], who: Swiper,
         checker: Swiper | None, correct_claim: bool, expected_cents: int | None,
         role: list[str | None]) -> PaidHit:
    gate = ctx.gate
    with changes.unit(ctx, "pay") as u:
        slips.lock_sequence(ctx, u)  # before the hit and the meter (a fixed order of locks)
        hit = load_hit(u, hit_id, lock=True)
        where = f"hit #{hit.id} (table {hit.table_id} seat {hit.seat})"
        if hit.status != "pending":
            raise FloorError(f"{where}: already {hit.status.replace('_', '-')}")
        a = assess(ctx, u, hit, parsed, lock=True)
        role[0] = a.role
        # the card's authority first: a refusal names its real cause (a supervisor's card on
        # an executive pay is told so, whatever else stands in the way).  No role: nothing
        # is payable (no wager, pays nothing), which the next check says.
        emp = gate.authority(u.s, who, a.role, "pay") if a.role is not None else None
        if a.blocking:
            extra = "; it can only be rejected" if hit.wager_id is None else ""
            raise FloorError(f"{where}: {'; '.join(a.blocking)}{extra}")
        if a.mismatch and not correct_claim:
            raise FloorError(f"{where}: {a.problems[0]}; correct the claim to pay "
                             f"{a.pay.hand}, or reject the hit")
        if expected_cents is not None and a.amount is not None and a.amount != expected_cents:
            raise AmountChanged(f"{where}: {_why_changed(hit, a)}; it now pays "
                                f"{json_cents(a.amount)}, not the {json_cents(expected_cents)} "
                                "authorized. Confirm the new amount and swipe again.", a.amount)
        assert emp is not None
        verifier = emp
        if checker is not None:
            verifier = gate.authority(u.s, checker, "supervisor", "verify")
        if a.amount is not None and a.amount >= ctx.config.authorization.separate_verifier_cents:
            limit = json_cents(ctx.config.authorization.separate_verifier_cents)
            if checker is None:
                raise FloorError(f"{where}: a pay of {limit} or more is verified by one person "
                                 "and authorized by another: swipe the verifier's card, then "
                                 "the authorizer's")
            if same_person(verifier, emp):
                raise AuthError(f"{where}: the verifier and the authorizer must be two people "
                                f"(employee {verifier.number} {verifier.name} and employee "
                                f"{emp.number} {emp.name})", "same_person", emp.id,
                                who.card_mac)
        if checker is not None:
            gate.accepted(u.s, verifier, checker, hit_id=hit.id, action="verify",
                          role="supervisor", now=u.now)
        gate.accepted(u.s, emp, who, hit_id=hit.id, action="pay", role=a.role, now=u.now)
        return _do_pay(ctx, u, hit, a, parsed, emp, verifier)


def _why_changed(hit: Hit, a: Assessment) -> str:
    """Why a hit pays another amount than the one shown (a frozen amount never follows the
    meter: only a re-fix in pay order or a corrected claim changes it)."""
    if a.locked_same:
        return (f"its frozen amount was fixed again in pay order (another hit of round "
                f"{hit.round_no} is paid before it, or a hit of the link fixed before it was "
                "fixed again or decided)")
    if hit.locked_amount_cents is not None:
        return (f"the claim is corrected to {a.pay.hand}: the amount frozen for "
                f"{hit.claimed_hand} goes back, and {a.pay.hand} pays from the meter as it "
                "stands")
    if a.source == "meter":
        return ("the meter moved: the amount was not frozen (open the hit's verification to "
                "freeze it)")
    return "the amount changed"


def _meter_around(state: meters.LevelState, moves: Sequence[meters.Movement]) -> tuple[int, int]:
    """The meter in whole cents before and after ``moves`` (what the slip shows)."""
    return (units_floor_cents(state.meter_units),
            units_floor_cents(state.meter_units + sum(m.meter_delta for m in moves)))


def _do_pay(ctx: FloorContext, u: Unit, hit: Hit, a: Assessment, cards: tuple[Card, ...],
            emp: Employee, verifier: Employee) -> PaidHit:
    s, now = u.s, u.now
    g, pt, pay = a.group, a.paytable, a.pay
    wager = a.wager
    assert wager is not None
    corrected = bool(a.mismatch)
    if corrected:
        s.add(HitDecision(hit_id=hit.id, decision="claim_corrected", employee_id=verifier.id,
                          reason=f"claimed {hit.claimed_hand}, cards make {pay.hand}",
                          created_at=now))
    s.add(HitDecision(hit_id=hit.id, decision="verified", employee_id=verifier.id,
                      reason=f"cards {slips.card_text(cards)} make {pay.hand}", created_at=now))
    hit.verified_cards = slips.card_text(cards)
    lvls = levels(u, g.id)
    if hit.locked_amount_cents is not None and not a.locked_same:
        # The locked amount was for another hand: give it back, pay the corrected hand now.
        given = json_cents(int(hit.locked_amount_cents))
        # the locks fixed on what it left are given back and fixed again (one way: locks.py)
        give_back(ctx, u, g, [hit], f"re-fixed in pay order after hit #{hit.id} claim "
                  "corrected", f"hit #{hit.id} claim corrected")
        if not g.lock_at_hit:
            s.add(HitDecision(hit_id=hit.id, decision=UNFROZEN, employee_id=verifier.id,
                              reason=f"claim corrected to {pay.hand}: {given} frozen for "
                                     f"{hit.claimed_hand} back to the meter", created_at=now))
    # The award is written once, with its final figures (awards are append-only), then the
    # meter entries that point at it.
    source, level_id, before, after = "tray", None, None, None
    taken: int | None = None  # a fixed award's cents from the meter ("all pays from meter")
    level_name = a.level
    taking: tuple[Any, list[meters.Movement], str] | None = None
    if pay.source == "meter":
        lv = lvls[level_name or pt.levels[0]]
        source, level_id = "meter", lv.id
        if a.locked_same:
            amount = int(hit.locked_amount_cents or 0)
            before, after = hit.locked_meter_before_cents, hit.locked_meter_after_cents
            u.levels.add((g.id, lv.name))  # no entry now, but its PENDING state ends
        else:
            state = balances.current(u, lv.id)
            amount, moves = meters.award(state, settings(u, lv.id), pay.fraction)
            before, after = _meter_around(state, moves)
            taking = (lv, list(moves), f"award hit #{hit.id}")
    else:
        amount = pt.fixed_cents(pay, wager.amount_cents)
        if g.all_pays_from_meter:
            # "all pays from meter": the fixed award is a meter pay (its level, the meter
            # before and after on the award and the slip); a shortfall comes from the tray
            lv = lvls[pt.levels[0]]
            state = balances.current(u, lv.id)
            taken, moves = meters.award_fixed(state, amount)
            source, level_id = "meter", lv.id
            before, after = _meter_around(state, moves)
            taking = (lv, list(moves), f"fixed award hit #{hit.id} ({json_cents(taken)} of "
                                       f"{json_cents(amount)} from the meter)")
            level_name = lv.name
    award = Award(hit_id=hit.id, hand=pay.hand, source=source, level_id=level_id,
                  amount_cents=amount, meter_before_cents=before, meter_after_cents=after,
                  authorized_by=emp.id, verified_by=verifier.id, created_at=now)
    s.add(award)
    s.flush()
    if taking is not None:
        lv, moves, reason = taking
        balances.write(u, lv, moves, reason=reason, hit_id=hit.id, award_id=award.id,
                       employee_id=emp.id)
    s.add(HitDecision(hit_id=hit.id, decision="paid", employee_id=emp.id,
                      reason=paid_words(amount, award.source, taken),
                      created_at=now))
    hit.status = "paid"
    s.flush()
    slip_no = slips.make_slip(ctx, u, hit, award)
    u.hits.add(hit.id)
    u.tables.add(hit.table_id)
    u.outcomes.append(HitOutcome(hit.id, hit.table_id, hit.round_no, hit.seat, "paid", amount))
    meter = award.source == "meter"
    return PaidHit(hit.id, hit.table_id, hit.round_no, hit.seat, pay.hand, amount,
                   award.source, level_name if meter else None, before if meter else None,
                   after if meter else None, emp.number, slip_no, corrected)


def paid_words(amount: int, source: str, fixed_taken: int | None) -> str:
    """What a ``paid`` decision says: where the money came from.  ``fixed_taken``: for a
    fixed award, the cents the meter gave ("all pays from meter"; the tray pays the rest)."""
    if source != "meter":
        return f"{json_cents(amount)} from the tray"
    if fixed_taken is None:
        return f"{json_cents(amount)} from the meter"
    if fixed_taken >= amount:
        return f"{json_cents(amount)} from the meter (a fixed award: all pays from the meter)"
    return (f"{json_cents(amount)}: {json_cents(fixed_taken)} from the meter and "
            f"{json_cents(amount - fixed_taken)} from the tray (a fixed award: all pays from "
            "the meter, which held less)")


def reject(ctx: FloorContext, hit_id: int, reason: str, swipe: Swipe) -> None:
    """Reject a pending hit; it needs the authority that paying it would (a supervisor, or an
    executive for an executive-level hit).  A lock-at-hit amount goes back to the meter by
    reversal entries.  Every refusal after the swipe is logged with who and why."""
    def needed_now() -> str | None:  # only for a refusal's log row, before the transaction
        return _role_now(ctx, lambda u: claim_role(ctx, u, load_hit(u, hit_id, lock=False),
                                                   lock=False))

    who = ctx.gate.identified(swipe, hit_id=hit_id, action="reject", role=needed_now)
    role: list[str | None] = [None]  # claim_role's, once the transaction has worked it out
    try:
        reason = (reason or "").strip()
        if not reason:
            raise FloorError(f"hit #{hit_id}: give a reason to reject it")
        retrying(lambda: _reject(ctx, hit_id, reason, who, role))
    except ValueError as exc:
        raise ctx.gate.refused(exc, hit_id=hit_id, action="reject",
                               role=role[0] or needed_now(), who=who) from None


def _reject(ctx: FloorContext, hit_id: int, reason: str, who: Swiper,
            role: list[str | None]) -> None:
    with changes.unit(ctx, "reject") as u:
        hit = load_hit(u, hit_id, lock=True)
        if hit.status != "pending":
            raise FloorError(f"hit #{hit.id} (table {hit.table_id} seat {hit.seat}): "
                             f"already {hit.status.replace('_', '-')}")
        needed = claim_role(ctx, u, hit)
        role[0] = needed
        emp = ctx.gate.authority(u.s, who, needed, "reject")
        ctx.gate.accepted(u.s, emp, who, hit_id=hit.id, action="reject", role=needed,
                          now=u.now)
        table = u.s.get(GameTable, hit.table_id)
        cancel_hit(u, hit, "rejected", reason, employee_id=emp.id,
                   give_back=giver(ctx, table.group_id) if table is not None else None)


def check_swipe(ctx: FloorContext, swipe: Swipe, needed: str,
                action: str) -> tuple[str, str, str]:
    """Check one card for ``needed`` authority before an action that takes several swipes
    (the first card of a manual adjustment): (number, name, role) if it may; a refusal is
    logged in swipe_log and raised as AuthError.  An accepted check writes nothing."""
    who = ctx.gate.identified(swipe, hit_id=None, action=action, role=needed)
    try:
        with ctx.read() as s:
            emp = ctx.gate.authority(s, who, needed, action)
            return emp.number, emp.name, emp.role
    except AuthError as exc:
        raise ctx.gate.refused(exc, hit_id=None, action=action, role=needed,
                               who=who) from None
