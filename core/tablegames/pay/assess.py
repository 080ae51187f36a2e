"""What a hit's seven cards make and pay now, and every problem in the way (reads only).

The same assessment serves the supervisor's preview (:func:`evaluate`) and the pay, which runs it
again inside its own transaction with the rows locked."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from core.floorconfig import GroupConfig
from core.kernel.cards import Card, parse_cards
from core.kernel.money import units_floor_cents
from core.ledger.models import GameTable, Hit, Wager
from core.people.auth import required_role
from core.tablegames import flags
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.pay.locks import claimed_pay
from core.tablegames.rules import fortune
from core.tablegames.rules.claims import possible_pays
from core.tablegames.setup import levels, settings
from core.tablegames.slips import cards_of
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import FloorError, Verification


@dataclass
class Assessment:
    table: GameTable
    group: GroupConfig
    paytable: Any
    best: str
    pay: Any  # the paytable pay these cards earn (None: nothing)
    problems: list[str]
    mismatch: bool
    amount: int | None
    level: str | None
    source: str | None
    role: str | None
    wager: Wager | None
    first_seat: int | None
    meter_before: int | None
    locked_same: bool

    @property
    def blocking(self) -> list[str]:
        """Problems that even a claim correction can not clear."""
        return [p for p in self.problems if not p.startswith(("claimed ", "note: "))]


def parse(cards: Sequence[str] | Sequence[Card]) -> tuple[Card, ...]:
    return parse_cards([c if isinstance(c, str) else str(c) for c in cards], count=7)


def load_hit(u: Unit, hit_id: int, *, lock: bool) -> Hit:
    q = select(Hit).where(Hit.id == hit_id)
    if lock:
        q = q.with_for_update()
    hit = u.s.scalars(q).first()
    if hit is None:
        raise FloorError(f"hit #{hit_id}: no such hit")
    return hit


def blocking_flags(hit: Hit) -> list[str]:
    """Why a hit can only be rejected (no wager, no round, a void round, a second hit)."""
    problems: list[str] = []
    if hit.wager_id is None:
        problems.append(f"no wager on seat {hit.seat}")
    problems += [f.words() for f in flags.loads(hit.flag_codes) if f.blocking]
    return list(dict.fromkeys(problems))


def _order_block(u: Unit, hit: Hit, g: GroupConfig) -> tuple[list[Hit], int | None]:
    """Pending payable hits of the same round paid before this one whose amount is not fixed
    yet, and the seat that must be paid first (None if this hit is next).  A hit frozen at
    verification (core/tablegames/pay/freeze.py) has taken its share off the meter already: it
    neither blocks nor counts."""
    if hit.round_id is None or g.lock_at_hit:
        return [], None
    others = [h for h in u.s.scalars(select(Hit).where(
        Hit.round_id == hit.round_id, Hit.status == "pending", Hit.id != hit.id))
        if not blocking_flags(h) and h.locked_amount_cents is None]
    if not others:
        return [], None
    order = meters.payment_order([h.seat for h in others] + [hit.seat], g.pay_order)
    by_seat = {h.seat: h for h in others}
    before = [by_seat[seat] for seat in order[: order.index(hit.seat)]]
    return before, (before[0].seat if before else None)


def assess(ctx: FloorContext, u: Unit, hit: Hit, cards: tuple[Card, ...], *,
           lock: bool) -> Assessment:
    """Everything evaluate and pay need; reads only (locks rows when ``lock``)."""
    s = u.s
    t = s.get(GameTable, hit.table_id)
    assert t is not None
    g = ctx.group_cfg(t.group_id)
    pt = ctx.table_paytable(t.id)  # the table's own wager and fixed pays (a linked equivalent)
    best = fortune.classify(cards, pt.joker)
    pay = pt.paying(cards)
    problems = blocking_flags(hit)
    cp = claimed_pay(pt, hit.claimed_hand)
    # the claim is right when it names the cards' best hand or the hand they are paid as
    mismatch = pay is None or hit.claimed_hand not in (pay.hand, best)
    if mismatch:
        made = pay.hand if pay is not None else best
        problems.append(f"claimed {hit.claimed_hand}, cards make {made}")
    if pay is None:
        problems.append(f"{pt.id} pays nothing for these cards ({best})")
    if hit.cards and cards_of(hit.cards) and set(cards_of(hit.cards)) != set(cards):
        problems.append("note: the cards entered differ from the cards the table sent")
    if hit.status != "pending":
        problems.append(f"hit #{hit.id} is already {hit.status.replace('_', '-')}")
    before, first_seat = _order_block(u, hit, g)
    if first_seat is not None:
        problems.append(f"pay seat {first_seat} first (round {hit.round_no} is paid "
                        f"{'highest' if g.pay_order == 'right_first' else 'lowest'} "
                        "seat first)")
    wager = s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
    amount: int | None = None
    level_name: str | None = None
    source: str | None = None
    meter_before: int | None = None
    locked_same = (hit.locked_amount_cents is not None and pay is not None
                   and cp is not None and pay == cp)
    if pay is not None and wager is not None:
        source = pay.source
        lvls = levels(u, g.id)
        if pay.source == "meter":
            level_name = pay.level or pt.levels[0]
            if locked_same:
                amount = hit.locked_amount_cents
                meter_before = hit.locked_meter_before_cents
            else:
                lv = lvls[level_name]
                state = balances.current(u, lv.id, lock=lock)
                conf = settings(u, lv.id)
                for h in before:  # earlier pays of this round take their share first
                    hp = claimed_pay(pt, h.claimed_hand)
                    if hp is not None and hp.source == "meter" and \
                            (hp.level or pt.levels[0]) == level_name:
                        _, mv = meters.award(state, conf, hp.fraction)
                        state = meters.apply(state, mv)
                meter_before = units_floor_cents(state.meter_units)
                amount, _ = meters.award(state, conf, pay.fraction)
        else:
            amount = pt.fixed_cents(pay, wager.amount_cents)
            if g.all_pays_from_meter:  # a fixed award paid from the meter
                level_name, source = pt.levels[0], "meter"
                meter_before = units_floor_cents(balances.current(
                    u, lvls[level_name].id, lock=lock).meter_units)
    role = None
    if pay is not None and amount is not None:
        role = required_role(pay.authorization, amount,
                             ctx.config.authorization.executive_threshold_cents)
    return Assessment(t, g, pt, best, pay, problems, mismatch, amount, level_name, source, role,
                      wager, first_seat, meter_before, locked_same)


def claim_role(ctx: FloorContext, u: Unit, hit: Hit, *, lock: bool = True) -> str:
    """The authority paying ``hit`` would need, as far as is known without the supervisor's
    cards: rejecting it needs the same.  The pays considered are those of the cards the table
    sent (if any) and every pay the claimed hand could be; a lock-at-hit amount is the amount.
    ``executive`` if any of them needs one."""
    t = u.s.get(GameTable, hit.table_id)
    assert t is not None
    if hit.wager_id is None:
        return "supervisor"  # no wager on the seat: nothing could ever be paid
    # other flags (a void round, a second hit) block the pay too, but the claim may still be
    # a large one: rejecting it takes the authority its pay would
    g = ctx.group_cfg(t.group_id)
    pt = ctx.table_paytable(t.id)
    threshold = ctx.config.authorization.executive_threshold_cents
    pays = list(possible_pays(pt, hit.claimed_hand))
    if hit.cards:
        with contextlib.suppress(ValueError):
            made = pt.paying(parse_cards([str(c) for c in cards_of(hit.cards)]))
            if made is not None:
                pays.append(made)
    wager = u.s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
    role = "supervisor"
    for pay in pays:
        if hit.locked_amount_cents is not None:
            amount = int(hit.locked_amount_cents)
        elif pay.source == "meter":
            lv = levels(u, g.id)[pay.level or pt.levels[0]]
            amount, _ = meters.award(balances.current(u, lv.id, lock=lock), settings(u, lv.id),
                                     pay.fraction or Decimal(0))
        else:
            amount = pt.fixed_cents(pay, wager.amount_cents) if wager is not None else 0
        if required_role(pay.authorization, amount, threshold) == "executive":
            role = "executive"
    return role


def evaluate(ctx: FloorContext, hit_id: int,
             cards: Sequence[str] | Sequence[Card]) -> Verification:
    """Preview: what these cards make, what they pay now, and every problem (no change)."""
    parsed = parse(cards)
    with ctx.read() as s:
        u = Unit(s, ctx.now(), ctx.cache)
        hit = load_hit(u, hit_id, lock=False)
        a = assess(ctx, u, hit, parsed, lock=False)
        reject_role = claim_role(ctx, u, hit, lock=False)
    pay = a.pay
    separate = ctx.config.authorization.separate_verifier_cents
    return Verification(
        hit_id=hit.id, table=hit.table_id, round_no=hit.round_no, seat=hit.seat,
        cards=parsed, best_hand=a.best, claimed_hand=hit.claimed_hand,
        pay_hand=pay.hand if pay is not None else None, source=a.source,
        level=a.level, amount_cents=a.amount, mismatch=a.mismatch,
        problems=tuple(a.problems), required_role=a.role, payable=not a.blocking,
        fraction=pay.fraction if pay is not None and pay.source == "meter" else None,
        meter_cents=a.meter_before,
        verifier_needed=a.amount is not None and a.amount >= separate,
        reject_role=reject_role, frozen=a.locked_same)
