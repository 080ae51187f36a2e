"""The fund's writes the poker room makes with a card (``core.pokerroom.fund``'s ``*_in``
functions, each in one transaction with its ``swipe_log`` row; ``recorded_by`` = the employee's
number and name): the daily drop-box count and its posting and the tournament fees (a
supervisor's swipe, action ``bbj_count``); notices of cessation, their withdrawal and the
forfeiture on closure (an EXECUTIVE's, action ``bbj_closure``), the players told (a
supervisor's).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from core.kernel.money import format_cents
from core.ledger.models import Employee
from core.people.who import Who
from core.pokerroom.cases.authority import EXECUTIVE, swiped
from core.pokerroom.cases.claim import utcnow
from core.pokerroom.fund import (
    Forfeiture,
    FundSettings,
    Posting,
    forfeit_on_closure_in,
    give_notice_in,
    players_told_in,
    post_day_in,
    record_count_in,
    record_tournament_fee_in,
    withdraw_notice_in,
)

log = logging.getLogger("podium.bbj_cases")

COUNT_ACTION = "bbj_count"  # the daily drop-box count and its posting (swipe_log.action)
CLOSURE_ACTION = "bbj_closure"  # notices and the forfeiture (swipe_log.action)


def record_count(engine: Engine, fund_id: str, swipe: str, *, business_date: date, table: str,
                 drop_box: str, opened_at: datetime, closed_at: datetime, dealer: str,
                 pieces: Mapping[int, int], settings: FundSettings | None = None,
                 rake_box: str = "", rake_cents: int = 0,
                 clock: Callable[[], datetime] = utcnow) -> int:
    """The console's daily drop-box count: ``core.pokerroom.fund.record_count_in`` with a
    supervisor's swipe, written in one transaction with its swipe-log row (action
    ``bbj_count``; ``recorded_by`` = the employee's number and name); the count's id."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return record_count_in(s, fund_id, business_date=business_date, table=table,
                               drop_box=drop_box, opened_at=opened_at, closed_at=closed_at,
                               dealer=dealer, pieces=pieces, by=Who.of(emp).recorded(),
                               settings=settings, rake_box=rake_box, rake_cents=rake_cents,
                               now=now)

    count_id = swiped(engine, swipe, now, write, COUNT_ACTION)
    log.info("bbj fund %s: %s table %s drop box %s counted", fund_id, business_date, table,
             drop_box)
    return count_id


def post_day(engine: Engine, fund_id: str, business_date: date, swipe: str, *,
             settings: FundSettings | None = None,
             clock: Callable[[], datetime] = utcnow) -> Posting:
    """Post the day (``core.pokerroom.fund.post_day_in``) with a supervisor's swipe, in one
    transaction with its swipe-log row; the posting (distribution and updated amounts)."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> Posting:
        return post_day_in(s, fund_id, business_date, by=Who.of(emp).recorded(),
                           settings=settings, now=now)

    posting = swiped(engine, swipe, now, write, COUNT_ACTION)
    log.info("bbj fund %s: %s posted", fund_id, business_date)
    return posting


def record_tournament_fee(engine: Engine, swipe: str, *, business_date: date, tournament: str,
                          fee_cents: int, reason: str =
                          "",
                          clock: Callable[[], datetime] = utcnow) -> int:
    """A poker tournament's fees for the day
    (``core.pokerroom.fund.record_tournament_fee_in``) with a
    supervisor's swipe, in one transaction with its swipe-log row (action ``bbj_count``)."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return record_tournament_fee_in(s, business_date=business_date, tournament=tournament,
                                        fee_cents=fee_cents, reason=reason,
                                        by=Who.of(emp).recorded(), now=now)

    row_id = swiped(engine, swipe, now, write, COUNT_ACTION)
    log.info("poker tournament %s on %s: fee %s recorded", tournament, business_date,
             format_cents(fee_cents))
    return row_id


def give_notice(engine: Engine, fund_id: str, swipe: str, kind: str, *, notice_on: date,
                reason: str, effective_on: date | None = None,
                players_told_on: date | None = None, to_fund_id: str | None = None,
                clock: Callable[[], datetime] = utcnow) -> int:
    """A notice that the fund will cease (TGD-1540 part 1; ``core.pokerroom.fund.give_notice_in``)
    with an EXECUTIVE's swipe, in one transaction with its swipe-log row (action
    ``bbj_closure``); the notice id.  From a ``cease_once_hit`` notice on, the fund's next
    approval ceases it (:func:`advance`)."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return give_notice_in(s, fund_id, kind, notice_on=notice_on, effective_on=effective_on,
                              players_told_on=players_told_on, to_fund_id=to_fund_id,
                              reason=reason, by=Who.of(emp).recorded(), now=now)

    nid = swiped(engine, swipe, now, write, CLOSURE_ACTION, EXECUTIVE,
                  "a notice of cessation of the jackpot")
    log.info("bbj fund %s: notice %d (%s) recorded", fund_id, nid, kind)
    return nid


def withdraw_notice(engine: Engine, fund_id: str, notice_id: int, swipe: str, *, reason: str,
                    clock: Callable[[], datetime] = utcnow) -> int:
    """Withdraw a notice (a ``withdrawn`` row naming it) with an EXECUTIVE's swipe."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return withdraw_notice_in(s, fund_id, notice_id, by=Who.of(emp).recorded(),
                                  reason=reason, now=now)

    rid = swiped(engine, swipe, now, write, CLOSURE_ACTION, EXECUTIVE,
                  "withdrawing a notice of cessation")
    log.info("bbj fund %s: notice %d withdrawn", fund_id, notice_id)
    return rid


def record_players_told(engine: Engine, fund_id: str, notice_id: int, swipe: str, *,
                        told_on: date, clock: Callable[[], datetime] = utcnow) -> int:
    """The day the players were told of a notice, with a supervisor's swipe."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> int:
        return players_told_in(s, fund_id, notice_id, told_on=told_on,
                               by=Who.of(emp).recorded(), now=now)

    rid = swiped(engine, swipe, now, write, CLOSURE_ACTION)
    log.info("bbj fund %s: players told of notice %d on %s", fund_id, notice_id, told_on)
    return rid


def forfeit_on_closure(engine: Engine, fund_id: str, swipe: str, *, closed_on: date,
                       reason: str, clock: Callable[[], datetime] = utcnow) -> Forfeiture:
    """The poker room closed for good: the fund's whole balance forfeited in favour of PAGCOR
    (``core.pokerroom.fund.forfeit_on_closure_in``) with an EXECUTIVE's swipe (it gives away the
    whole fund), in one transaction with its swipe-log row (action ``bbj_closure``).  A refused
    card writes only its swipe-log row; a refused forfeiture nothing else."""
    now = clock().astimezone(UTC)

    def write(s: Session, emp: Employee) -> Forfeiture:
        return forfeit_on_closure_in(s, fund_id, closed_on=closed_on, reason=reason,
                                     by=Who.of(emp).recorded(), now=now)

    done = swiped(engine, swipe, now, write, CLOSURE_ACTION, EXECUTIVE,
                   "forfeiting the jackpot fund on closure")
    log.info("bbj fund %s: forfeited to PAGCOR on closure (%s)", fund_id,
             format_cents(done.total_cents))
    return done
