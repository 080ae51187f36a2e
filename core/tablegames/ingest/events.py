"""Controller events into the ledger: START GAME locks wagers and contributes to every level,
HIT JACKPOT opens a pending hit (flagged, locked at hit, or auto-paid), END GAME closes the
round, UNDO and MISDEAL reverse what the round or the hit put in (RULES.md sections 4-5).

:func:`record` handles one event inside a unit of work; it is idempotent on (table, boot, seq):
a replay changes nothing, and a refused event sent again is refused again with the reason
recorded the first time.  It keeps each (table, boot) in sequence: an event is taken only when
its seq is the next after everything the ledger holds of that boot (recorded or refused), a
later one raises :class:`~core.controllers.events.OutOfOrder` before anything is written.  A
round is found by (table, boot, round number), and an event for a round in the wrong state
(END GAME of an ended round, MISDEAL before its START GAME) is refused by name.  A refused event
(a ``ValueError``) leaves no trace but its ``refused_events`` row
(:func:`core.tablegames.ingest.refusals.record_refusal`), which the caller writes after rolling
the event's own changes back.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update

from core.controllers.events import (
    ControllerEvent,
    Delivery,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    OutOfOrder,
    Refused,
    SequenceGap,
    Undone,
)
from core.controllers.screening import event_bounds_problem
from core.kernel.cards import CardError, format_cards, parse_cards
from core.kernel.money import json_cents
from core.ledger.models import (
    Award,
    Base,
    GameTable,
    Hit,
    HitDecision,
    Level,
    MeterEntry,
    Round,
    Wager,
)
from core.tablegames import flags, slips
from core.tablegames.flags import FlagCode, HitFlag
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.pay import locks
from core.tablegames.pay.locks import cancel_hit, claimed_pay, fix_round
from core.tablegames.rules import fortune
from core.tablegames.rules.claims import ClaimError, pay_for_claim
from core.tablegames.setup import levels, settings
from core.tablegames.unit import FloorContext, LevelRef, Unit
from core.tablegames.views import FloorError, HitOutcome

log = logging.getLogger("podium.floor")

AUTO_PAID_REASON = "auto-paid (no secondary verification)"
# events whose refusals are all decided before anything is written (ledger writer: no savepoint)
LIGHT_EVENTS = (GameStarted, GameEnded, SequenceGap)
CONTRIBUTION_KINDS = ("contribution", "reserve_contribution")
SEQUENCE_GAP = "SequenceGap"  # controller_events.type of a gap the controller declared (GONE)
# the dealer's words for each event, in refusal reasons
_WHAT = {GameStarted: "START GAME", GameEnded: "END GAME", Misdealt: "MISDEAL"}


def _claim_problem(pt: Any, hand: str) -> str:
    try:
        pay_for_claim(pt, hand)
    except ClaimError as exc:
        return str(exc)
    return ""


def payload(event: ControllerEvent) -> dict[str, Any]:
    """The event as JSON (cards as text, seat keys as strings)."""
    out: dict[str, Any] = {}
    for name in event.__dataclass_fields__:
        value = getattr(event, name)
        if name == "wagers":
            value = {str(k): int(v) for k, v in value.items()}
        elif name == "cards":
            value = format_cards(value)
        out[name] = value
    return out


# The hot path's statements, built once (START GAME and END GAME are most of a floor's traffic).
_EVENTS = Base.metadata.tables["controller_events"]
_REFUSED = Base.metadata.tables["refused_events"]
_ROUNDS = Base.metadata.tables["rounds"]


def _origin_is(t: Any) -> Any:
    return (t.c.table_id == bindparam("t"), t.c.boot == bindparam("b"))


# Where an event stands in its (table, boot) sequence, in one statement of index probes:
# recorded already, refused already (with the reason), and the last seq the ledger holds of
# the boot in either table.
_POSITION = select(
    select(_EVENTS.c.id).where(*_origin_is(_EVENTS), _EVENTS.c.seq == bindparam("q"))
    .scalar_subquery().label("seen"),
    select(_REFUSED.c.reason).where(*_origin_is(_REFUSED), _REFUSED.c.seq == bindparam("q"))
    .scalar_subquery().label("refused"),
    select(func.max(_EVENTS.c.seq)).where(*_origin_is(_EVENTS)).scalar_subquery()
    .label("last_recorded"),
    select(func.max(_REFUSED.c.seq)).where(*_origin_is(_REFUSED)).scalar_subquery()
    .label("last_refused"))
_TABLES = Base.metadata.tables["tables"]
_TABLE = select(_TABLES.c.id, _TABLES.c.group_id, _TABLES.c.seats, _TABLES.c.online).where(
    _TABLES.c.id == bindparam("t"))
_INSERT_EVENT = insert(_EVENTS).returning(_EVENTS.c.id)
_INSERT_ROUND = insert(_ROUNDS).returning(_ROUNDS.c.id)
_INSERT_WAGER = insert(Base.metadata.tables["wagers"])
_ROUND_STATE = (select(_ROUNDS.c.id, _ROUNDS.c.state)
                .where(*_origin_is(_ROUNDS), _ROUNDS.c.round_no == bindparam("r"))
                .order_by(_ROUNDS.c.id.desc()).limit(1))
_END_ROUND = update(_ROUNDS).where(_ROUNDS.c.id == bindparam("rid")).values(state="ended")


def _round_problem(what: str, round_no: int, boot: str, state: str | None) -> str:
    """Why ``what`` can not apply to the round (None: no such round; it must be in play), or
    ""."""
    if state is None:
        return (f"{what} round {round_no}: round {round_no} was never started under controller "
                f"boot {boot}")
    if state != "locked":
        return f"{what} round {round_no}: round {round_no} is already {state}"
    return ""


def record(ctx: FloorContext, u: Unit, origin: Origin, event: Delivery) -> bool:
    """Record ``event`` and act on it.  False for a replay (nothing changes); FloorError (a
    ValueError) for an unconfigured table or a refused event (a refused one sent again: the
    reason it was refused with); OutOfOrder, before anything is written, for an event beyond
    the next one the ledger expects of its (table, boot)."""
    if not ctx.configured(origin.table):
        raise FloorError(f"table {origin.table}: not configured on this floor; its "
                         "controller is refused")
    s = u.s
    conn = s.connection()
    trow = conn.execute(_TABLE, {"t": origin.table}).first()
    if trow is None:
        raise FloorError(f"table {origin.table}: not in the ledger; start the floor")
    if origin.seq < 1:  # its own seq was out of bounds: refused outside the sequence (seq 0)
        raise FloorError(event.reason if isinstance(event, Refused)
                         else f"seq {origin.seq} is out of range")
    key = {"t": origin.table, "b": origin.boot, "q": origin.seq}
    pos = conn.execute(_POSITION, key).one()
    if pos.seen is not None:
        return False
    if pos.refused is not None:  # refused before: refused again, for the same reason
        raise FloorError(pos.refused)
    expected = max(pos.last_recorded or 0, pos.last_refused or 0) + 1
    first = event.first if isinstance(event, SequenceGap) else origin.seq
    if first > expected or (isinstance(event, SequenceGap) and first != expected):
        raise OutOfOrder(origin, expected)
    if first < expected:
        raise FloorError(f"event {origin.boot}:{origin.seq} is out of order: the ledger holds "
                         f"seq {expected - 1} of boot {origin.boot} already and not this one")
    if isinstance(event, Refused):
        raise FloorError(event.reason)  # kept by the caller (refusals.record_refusal)
    if isinstance(event, SequenceGap):
        _sequence_gap(u, origin, event)
        return True
    problem = event_bounds_problem(event)
    if problem:
        raise FloorError(f"{type(event).__name__}: {problem}")
    what = _WHAT.get(type(event), "UNDO")
    round_id: int | None = None
    if isinstance(event, GameStarted):
        if not trow.online:
            raise FloorError(f"table {trow.id} is OFFLINE: its progressive is locked until "
                             "the link is back")
        ctx.table_paytable(trow.id)  # a group not configured is refused before any write
        rnd = conn.execute(_ROUND_STATE, {**key, "r": event.round_no}).first()
        if rnd is not None:
            raise FloorError(f"START GAME round {event.round_no}: round {event.round_no} was "
                             f"already started under controller boot {origin.boot} (it is "
                             f"{rnd.state})")
    elif isinstance(event, GameEnded):
        rnd = conn.execute(_ROUND_STATE, {**key, "r": event.round_no}).first()
        problem = _round_problem(what, event.round_no, origin.boot,
                                 rnd.state if rnd is not None else None)
        if problem or rnd is None:
            raise FloorError(problem)
        round_id = rnd.id
    # the hot path (START GAME, END GAME: most of a floor's traffic) writes with plain
    # statements, one per table touched, not through the ORM's unit of work
    ev = conn.execute(_INSERT_EVENT, {
        "table_id": origin.table, "boot": origin.boot, "seq": origin.seq,
        "type": type(event).__name__, "payload": payload(event),
        "controller_time": origin.controller_time, "received_at": u.now}).scalar_one()
    u.tables.add(origin.table)
    u.events += 1
    if isinstance(event, GameStarted):
        _game_started(ctx, u, trow, ev, origin.boot, event)
    elif isinstance(event, HitClaimed):
        _hit_claimed(ctx, u, trow, ev, origin.boot, event)
    elif isinstance(event, GameEnded):
        conn.execute(_END_ROUND, {"rid": round_id})
    elif isinstance(event, Undone):
        _undone(ctx, u, trow, origin.boot, event)
    elif isinstance(event, Misdealt):
        rnd_row = find_round(u, trow.id, origin.boot, event.round_no)
        problem = _round_problem(what, event.round_no, origin.boot,
                                 rnd_row.state if rnd_row is not None else None)
        if problem or rnd_row is None:
            raise FloorError(problem)
        void_round(ctx, u, trow, rnd_row, "misdealt", f"misdeal round {event.round_no}")
    else:  # pragma: no cover - the union is closed
        raise FloorError(f"table {trow.id}: unknown event {type(event).__name__}")
    return True


def _sequence_gap(u: Unit, origin: Origin, gap: SequenceGap) -> None:
    """The controller declared events first..last of the boot acknowledged before and no longer
    held: one controller_events row (type SequenceGap, at seq ``last``) records the gap, and the
    sequence goes on after it."""
    u.s.connection().execute(_INSERT_EVENT, {
        "table_id": origin.table, "boot": origin.boot, "seq": gap.last, "type": SEQUENCE_GAP,
        "payload": {"first": gap.first, "last": gap.last}, "controller_time": "",
        "received_at": u.now})
    u.tables.add(origin.table)
    u.events += 1
    log.warning("table %s: events %d..%d of boot %s were acknowledged before and are not in "
                "this ledger (the controller no longer holds them): recorded as a gap",
                origin.table, gap.first, gap.last, origin.boot)


def find_round(u: Unit, table_id: str, boot: str, round_no: int) -> Round | None:
    """The round ``round_no`` that START GAME of controller boot ``boot`` opened at the table."""
    # populate_existing: END GAME updates rounds with a plain statement (ingest.record)
    return u.s.scalars(select(Round).where(Round.table_id == table_id, Round.boot == boot,
                                           Round.round_no == round_no)
                       .order_by(Round.id.desc()).limit(1)
                       .execution_options(populate_existing=True)).first()


def wager_problem(t: Any, pt: Any, seat: int, cents: int) -> str | None:
    """Why a START GAME's wager on ``seat`` is refused (stored ``refused``, contributing
    nothing), or None."""
    if not 1 <= seat <= t.seats:
        return f"seat {seat}: table {t.id} has seats 1 to {t.seats}"
    if pt.wager_cents is not None and cents != pt.wager_cents:
        return (f"seat {seat}: wager {json_cents(cents)} is not the {pt.id} wager "
                f"{json_cents(pt.wager_cents)}")
    if cents <= 0:
        return f"seat {seat}: wager {json_cents(cents)} is not positive"
    return None


def _game_started(ctx: FloorContext, u: Unit, t: Any, ev: int, boot: str,
                  e: GameStarted) -> None:
    conn = u.s.connection()
    pt = ctx.table_paytable(t.id)
    rnd = conn.execute(_INSERT_ROUND, {"table_id": t.id, "boot": boot, "round_no": e.round_no,
                                       "state": "locked", "event_id": ev,
                                       "started_at": u.now}).scalar_one()
    lvls = levels(u, t.group_id)
    conf = {name: settings(u, lv.id) for name, lv in lvls.items()}
    moves: dict[str, list[dict[str, Any]]] = {name: [] for name in lvls}
    wagers: list[dict[str, Any]] = []
    for seat, cents in sorted(e.wagers.items()):
        problem = wager_problem(t, pt, seat, cents)
        wagers.append({"round_id": rnd, "seat": seat, "amount_cents": cents,
                       "status": "refused" if problem else "locked", "problem": problem})
        if problem:
            log.warning("table %s round %s: %s", t.id, e.round_no, problem)
            continue
        reason = f"table {t.id} round {e.round_no} seat {seat}"
        for name in lvls:
            moves[name] += [balances.entry(mv.kind, mv.meter_delta, mv.reserve_delta, reason,
                                           u.now, round_id=rnd)
                            for mv in meters.contribute(conf[name], cents)]
    if wagers:
        conn.execute(_INSERT_WAGER, wagers)
    balances.add_to_levels(u, [(lv, moves[name]) for name, lv in lvls.items()])
    locked = [w["amount_cents"] for w in wagers if w["status"] == "locked"]
    u.count_table(t.id, (1, len(locked), sum(locked), 0, 0,
                         sum(int(m["meter_delta"]) + int(m["reserve_delta"])
                             for rows in moves.values() for m in rows), 0))


def _hit_claimed(ctx: FloorContext, u: Unit, t: Any, ev: int, boot: str,
                 e: HitClaimed) -> None:
    s = u.s
    g = ctx.group_cfg(t.group_id)
    pt = ctx.table_paytable(t.id)
    found: list[HitFlag] = []
    rnd = find_round(u, t.id, boot, e.round_no)
    wager: Wager | None = None
    # a claim on a round in the wrong state is recorded flagged (the table waits for the
    # supervisor's REJECT), not refused
    if rnd is None:
        found.append(HitFlag(FlagCode.ROUND_NOT_STARTED, round=e.round_no))
    elif rnd.state in ("misdealt", "undone"):
        found.append(HitFlag(FlagCode.ROUND_VOID, round=e.round_no, state=rnd.state))
    elif rnd.state == "ended":
        found.append(HitFlag(FlagCode.ROUND_ENDED, round=e.round_no))
    if rnd is not None:
        wager = s.scalars(select(Wager).where(Wager.round_id == rnd.id, Wager.seat == e.seat,
                                              Wager.status == "locked")).first()
    if wager is None:
        found.append(HitFlag(FlagCode.NO_WAGER, seat=e.seat))
    if rnd is not None:
        dup = s.scalar(select(Hit.id).where(Hit.round_id == rnd.id, Hit.seat == e.seat,
                                            Hit.status.in_(("pending", "paid", "auto_paid"))))
        if dup is not None:
            found.append(HitFlag(FlagCode.DUPLICATE_HIT, seat=e.seat, round=e.round_no))
    pay = claimed_pay(pt, e.hand)
    if e.hand not in fortune.HAND_IDS:
        found.append(HitFlag(FlagCode.NOT_A_HAND, hand=e.hand))
    elif pay is None:
        found.append(HitFlag(FlagCode.CLAIM_NOT_PAYABLE, hand=e.hand,
                             detail=_claim_problem(pt, e.hand)))
    cards_ok = False
    mismatch: HitFlag | None = None
    if e.cards:
        try:
            parse_cards([str(c) for c in e.cards], count=7)
            cards_ok = True
        except CardError as exc:
            found.append(HitFlag(FlagCode.BAD_TABLE_CARDS, detail=str(exc)))
    if cards_ok:
        got = pt.paying(e.cards)
        if got is None or got.hand != e.hand:
            made = got.hand if got is not None else fortune.classify(e.cards, pt.joker)
            mismatch = HitFlag(FlagCode.CLAIM_MISMATCH, claimed=e.hand, made=made)
            found.append(mismatch)
    hit = Hit(table_id=t.id, round_id=rnd.id if rnd else None, round_no=e.round_no,
              seat=e.seat, wager_id=wager.id if wager else None, claimed_hand=e.hand,
              cards=slips.card_text(e.cards) if cards_ok else "", flags="",
              flag_codes=flags.dumps(found), verified_cards="", status="pending",
              event_id=ev, created_at=u.now)
    s.add(hit)
    s.flush()
    u.hits.add(hit.id)
    if mismatch is not None:
        s.add(HitDecision(hit_id=hit.id, decision="mismatch_flagged", employee_id=None,
                          reason=mismatch.words(), created_at=u.now))
    if any(f.blocking for f in found) or rnd is None or pay is None:
        return
    assert wager is not None
    if g.lock_at_hit and pay.source == "meter":
        fix_round(ctx, u, g, rnd.id, hit.id)
        return
    if g.auto_paid(pay) and not found and not g.all_pays_from_meter:
        amount = pt.fixed_cents(pay, wager.amount_cents)
        award = Award(hit_id=hit.id, hand=pay.hand, source="tray", level_id=None,
                      amount_cents=amount, meter_before_cents=None, meter_after_cents=None,
                      authorized_by=None, verified_by=None, created_at=u.now)
        s.add(award)
        s.flush()
        s.add(HitDecision(hit_id=hit.id, decision="auto_paid", employee_id=None,
                          reason=AUTO_PAID_REASON, created_at=u.now))
        hit.status = "auto_paid"
        slips.make_slip(ctx, u, hit, award)
        u.outcomes.append(HitOutcome(hit.id, t.id, hit.round_no, hit.seat, "auto_paid",
                                     amount))


def _undone(ctx: FloorContext, u: Unit, t: Any, boot: str, e: Undone) -> None:
    """UNDO START GAME voids a round in play; UNDO HIT cancels the seat's (or the round's latest)
    pending hit (one rejected or cancelled meanwhile stays so: recorded, nothing to undo).
    Anything else is refused by name: an unknown round, a round no longer in play, no such
    hit, a paid hit (only a manual adjustment backs out a pay)."""
    what = "UNDO START GAME" if e.what == "START_GAME" else "UNDO HIT"
    if e.what not in ("START_GAME", "HIT"):
        raise FloorError(f"UNDO round {e.round_no}: {e.what!r} can not be undone")
    rnd = find_round(u, t.id, boot, e.round_no)
    problem = _round_problem(what, e.round_no, boot, rnd.state if rnd is not None else None)
    if problem or rnd is None:
        raise FloorError(problem)
    if e.what == "START_GAME":
        void_round(ctx, u, t, rnd, "undone", f"undo START GAME round {e.round_no}")
        return
    q = select(Hit).where(Hit.round_id == rnd.id).order_by(Hit.id.desc())
    if e.seat is not None:
        q = q.where(Hit.seat == e.seat)
    hit = u.s.scalars(q.limit(1).with_for_update()).first()
    seat = f" seat {e.seat}" if e.seat is not None else ""
    if hit is None:
        raise FloorError(f"UNDO HIT round {e.round_no}{seat}: no hit{seat} in round "
                         f"{e.round_no}")
    if hit.status in ("paid", "auto_paid"):
        raise FloorError(f"UNDO HIT round {e.round_no} seat {hit.seat}: the hit is already "
                         f"{hit.status.replace('_', '-')} (only a manual adjustment backs out a "
                         "pay)")
    if hit.status != "pending":  # rejected or cancelled meanwhile: what the dealer wants holds
        log.info("table %s round %s seat %s: undo HIT of a hit already %s; nothing to undo",
                 t.id, e.round_no, hit.seat, hit.status)
        return
    # a locked or frozen hit's round: the hits fixed on what this one left, fixed again
    cancel_hit(u, hit, "undone", "undo HIT at the table", give_back=locks.giver(ctx, t.group_id))


BOOT_ENDED = "boot_ended"  # hit_decisions.decision of a hit its restarted controller forgot


def close_earlier_boots(ctx: FloorContext, u: Unit, table: str, boot: str) -> list[int]:
    """The table's controller says HELLO as boot ``boot``: every hit still pending from an
    earlier boot will never be answered (a restarted controller forgets its open hits and
    refuses a PAY or REJECT for them, docs/protocol.md "Restart"), so each is closed by the
    system with a ``boot_ended`` decision saying why (no employee; a lock-at-hit or frozen
    amount goes back to its meter, as for any cancel).  The hits closed, by id."""
    ev = _EVENTS
    rows = u.s.execute(
        select(Hit, ev.c.boot).join(ev, ev.c.id == Hit.event_id)
        .where(Hit.table_id == table, Hit.status == "pending", ev.c.boot != boot)
        .order_by(Hit.id).with_for_update(of=Hit)).all()
    if not rows:
        return []
    group = u.s.scalar(select(GameTable.group_id).where(GameTable.id == table))
    give_back = locks.giver(ctx, group) if group is not None else None
    closed = []
    for hit, old in rows:
        cancel_hit(u, hit, BOOT_ENDED,
                   f"closed by the system when the table's controller started again (boot "
                   f"{old}, now {boot}): it no longer holds this hit and will never answer a "
                   "PAY or REJECT for it; nothing was paid", give_back=give_back)
        closed.append(hit.id)
    log.warning("table %s: %d hit(s) of an earlier controller boot closed (controller now boot "
                "%s): %s", table, len(closed), boot, ", ".join(f"H{h}" for h in closed))
    return closed


def void_round(ctx: FloorContext, u: Unit, t: Any, rnd: Round, state: str,
               reason: str) -> None:
    """A MISDEAL or an undone START GAME: the round's pending hits are cancelled (a locked
    amount goes back first), its wagers returned, and what it put into every level taken back
    from wherever that money now is (:func:`balances.reverse_contributions`); never refused.
    A second one of the same round changes nothing."""
    if rnd.state in ("misdealt", "undone"):
        return
    s = u.s
    pending = list(s.scalars(select(Hit).where(Hit.round_id == rnd.id,
                                               Hit.status == "pending").order_by(Hit.id)))
    held = [h for h in pending if h.locked_amount_cents is not None]
    if held:  # their locks back at once, and the link's later locks fixed again
        locks.giver(ctx, t.group_id)(u, held, "cancelled")
    for hit in pending:
        cancel_hit(u, hit, "cancelled", reason)
    entries = list(s.scalars(select(MeterEntry).where(
        MeterEntry.round_id == rnd.id, MeterEntry.kind.in_(CONTRIBUTION_KINDS))
        .order_by(MeterEntry.id)))
    # the levels the round paid into (its group then: the table may have moved since)
    level_by_id = {lv.id: lv for lv in levels(u, t.group_id).values()}
    missing = {e.level_id for e in entries} - set(level_by_id)
    if missing:
        level_by_id.update({lv.id: LevelRef(lv.id, lv.group_id, lv.name) for lv in s.scalars(
            select(Level).where(Level.id.in_(missing)))})
    taken = 0
    if entries:
        taken = balances.reverse_contributions(u, level_by_id, entries, reason,
                                               round_id=rnd.id)
    paid = s.scalar(select(func.count()).select_from(Hit).where(
        Hit.round_id == rnd.id, Hit.status.in_(("paid", "auto_paid"))))
    if paid:
        log.warning("table %s round %s: %s with %s paid hit(s); a paid hit is backed out "
                    "only by a manual adjustment", t.id, rnd.round_no, state, paid)
    returned = [0, 0]
    for w in s.scalars(select(Wager).where(Wager.round_id == rnd.id,
                                           Wager.status == "locked")):
        w.status = "returned"
        returned[0] += 1
        returned[1] += int(w.amount_cents)
    u.count_table(t.id, (0, 0, 0, returned[0], returned[1], 0, taken))
    rnd.state = state
