"""Whose card a Bad Beat Jackpot step needs (:class:`StepAuthority`, ``[authorization]`` as
the table progressives' pays: an executive for a large award or share, another person than the
verifier for an award at or above ``separate_verifier_at``), asked before the swipe
(:func:`step_authority`, read only) and checked again in the step's transaction; and the one way
a write is done with a card (:func:`swiped`: the card and the write in one transaction with its
``swipe_log`` row; a refused card writes only that row).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.floorconfig import Authorization
from core.kernel.money import PESOS, Currency
from core.ledger.models import BbjAwardShare, BbjCase, BbjCaseEvent, Employee
from core.people.auth import Swipe, gate_for, required_role
from core.people.who import Who
from core.pokerroom.cases.claim import BbjCaseError, DayOf, entry_from_json, gaming_day
from core.pokerroom.cases.view import award_id_of
from core.pokerroom.fund import Funds, active_notice_in, hit_funds_read
from core.pokerroom.rules.bbj import BbjSettings, Decision, decide

T = TypeVar("T")
SWIPE_ACTION = "bbj_case"
ROLE = "supervisor"  # a step's card, unless the award or the share is large (StepAuthority)
EXECUTIVE = "executive"  # a notice of cessation, its withdrawal, the forfeiture on closure


@dataclass(frozen=True)
class StepAuthority:
    """Whose card a case step needs (``[authorization]``, as the table progressives' pays):
    ``approved`` an executive when the award (decided again at approval) is at or above
    ``executive_threshold``, and another person than the one who recorded ``verified`` when it
    is at or above ``separate_verifier_at``; ``share_paid`` an executive when the share's gross
    is at or above the threshold; every other step a supervisor.  Its amounts are written in
    ``money``, the fund's currency (``[poker_room] currency``, ``FloorConfig.fund_money``), as
    the screens write them: in the prompt before the swipe and in a refusal."""

    step: str  # the state the step records
    role: str  # supervisor | executive
    amount_cents: int | None  # the award (approved) or the share's gross (share_paid)
    threshold_cents: int  # the floor's executive threshold
    separate: bool = False  # approved at or above separate_verifier_at
    verified_by: Who | None = None  # who recorded verified (separate only)
    ceases: bool = False  # approved: the fund ceases with it (asked, or a cease-once-hit notice)
    money: Currency = PESOS  # the fund's currency: how the amounts are written

    @property
    def words(self) -> str:
        """The step as a refusal names it: with the amount and the threshold when they made it
        an executive's."""
        if self.amount_cents is None or self.role != "executive":
            return "a Bad Beat Jackpot step"
        what = ("the approval of a Bad Beat Jackpot award" if self.step == "approved"
                else "the payment of a Bad Beat Jackpot share")
        money = self.money.text
        return (f"{what} of {money(self.amount_cents)} (at or above the executive "
                f"threshold {money(self.threshold_cents)})")

    @property
    def prompt(self) -> str:
        """What the swipe prompt adds about the card it asks for (empty: a supervisor's)."""
        text = ""
        if self.role == "executive" and self.amount_cents is not None:
            money = self.money.text
            text = (f"{money(self.amount_cents)} is at or above the executive threshold "
                    f"{money(self.threshold_cents)}: an EXECUTIVE card.")
        if self.separate and self.verified_by:
            text += (" " if text else "") + (f"Another person than "
                                             f"{self.verified_by.label()}, who "
                                             "verified the hand.")
        return text


def approval_authority(policy: Authorization, award_cents: int, verified_by: Who | None,
                       ceases: bool = False, money: Currency = PESOS) -> StepAuthority:
    """Whose card approving an award of ``award_cents`` needs."""
    role = required_role("supervisor", award_cents, policy.executive_threshold_cents)
    separate = award_cents >= policy.separate_verifier_cents
    return StepAuthority("approved", role, award_cents, policy.executive_threshold_cents,
                         separate, verified_by if separate else None, ceases, money)


def share_authority(policy: Authorization, gross_cents: int | None,
                    money: Currency = PESOS) -> StepAuthority:
    """Whose card paying a share of ``gross_cents`` needs (None: no such share)."""
    if gross_cents is None:  # no such share: the step refuses it by name
        return StepAuthority("share_paid", ROLE, None, policy.executive_threshold_cents,
                             money=money)
    return StepAuthority("share_paid", required_role("supervisor", gross_cents,
                                                     policy.executive_threshold_cents),
                         gross_cents, policy.executive_threshold_cents, money=money)


def verifier_of(s: Session, case_id: int) -> Employee | None:
    """Who recorded the case's ``verified`` step."""
    return s.execute(select(Employee).join(BbjCaseEvent, BbjCaseEvent.employee_id == Employee.id)
                     .where(BbjCaseEvent.case_id == case_id, BbjCaseEvent.state == "verified")
                     .order_by(BbjCaseEvent.id)).scalars().first()


def who_or_none(emp: Employee | None) -> Who | None:
    return None if emp is None else Who.of(emp)


def decide_again(row: BbjCase, funds: Funds, settings: BbjSettings | None) -> Decision:
    return decide(entry_from_json(row.claim).claim(funds.main_cents, funds.reserve_cents),
                  settings)


def step_authority(engine: Engine, case_id: int, state: str, *, seat: int | None = None,
                   settings: BbjSettings | None = None, cease: bool = False,
                   day_of: DayOf | None = None, money: Currency = PESOS) -> StepAuthority:
    """Read only: the card ``state`` needs now (the console asks for it before the swipe; the
    step checks it again in its transaction, on the amounts as they are then); its amounts
    written in ``money``, the fund's currency."""
    policy = gate_for(engine).policy
    with Session(engine) as s:
        row = s.get(BbjCase, case_id)
        if row is None:
            raise BbjCaseError(f"case {case_id}: no such case")
        if state == "approved":
            stood, _posted = hit_funds_read(s, row.fund_id, row.hit_at,
                                            gaming_day(day_of, row.hit_at))
            held = active_notice_in(s, row.fund_id)
            cease = cease or (held is not None and held.kind == "cease_once_hit")
            funds = Funds(stood.total_cents, 0) if cease else stood
            decision = decide_again(row, funds, settings)
            return approval_authority(policy, decision.award_cents,
                                      who_or_none(verifier_of(s, case_id)), cease, money)
        if state == "share_paid":
            award_id = award_id_of(s, row)
            gross = s.execute(select(BbjAwardShare.gross_cents).where(
                BbjAwardShare.award_id == award_id, BbjAwardShare.seat == seat)).scalar()
            return share_authority(policy, gross, money)
    return StepAuthority(state, ROLE, None, policy.executive_threshold_cents, money=money)


def swiped(engine: Engine, swipe: Swipe, now: datetime,
           write: Callable[[Session, Employee], T], action: str = SWIPE_ACTION,
           role: str = ROLE, words: str = "a Bad Beat Jackpot step") -> T:
    """Authorize a supervisor's card (``role``) and ``write`` in one transaction with the
    swipe-log row (``core.people.auth.Gate.run``); a refusal at any step writes only its swipe-log
    row (who, why) and is re-raised."""
    return gate_for(engine).run(swipe, role, action, lambda s, emp, _now: write(s, emp),
                                words=words)
