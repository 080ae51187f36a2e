"""A Bad Beat Jackpot case's STEPS (docs/bbj.md "Cases"): opened from a claim
(:func:`open_case`, state ``claimed``), moved on (:func:`advance`) or voided (:func:`void`).
Each step is a state row (``bbj_case_events``) with who (a supervisor's swipe; an executive's for
a large award or share, ``core.pokerroom.cases.authority.StepAuthority``) and when, written in
ONE transaction with its ``swipe_log`` row.  A refused card writes only its swipe-log row.

Approval pays the fund: the ``approved`` step re-decides the stored claim on the fund as it
stands for the hit now (the hit's day must be posted, so the day's collections count) and writes
the award (``core.pokerroom.fund.record_award_in``: the award, its shares, the ``award`` and
``reserve_move`` entries) in the SAME transaction as the state row and its swipe.  Each later
``share_paid`` row names that award's share (gross, tax, net).  ``voided`` (with the reason and
who decided) on an approved case gives the award back to the fund in the same transaction
(``core.pokerroom.fund.void_award_in``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.money import PESOS, Currency, format_cents
from core.ledger.db import lock_record
from core.ledger.models import BbjAward, BbjAwardShare, BbjCase, BbjCaseEvent, Employee
from core.people.auth import AuthError, Gate, Swipe, Swiper, gate_for, same_person
from core.people.who import Who
from core.pokerroom.cases.authority import (
    ROLE,
    SWIPE_ACTION,
    StepAuthority,
    approval_authority,
    decide_again,
    share_authority,
    step_authority,
    swiped,
    verifier_of,
    who_or_none,
)
from core.pokerroom.cases.claim import (
    BbjCaseError,
    ClaimEntry,
    DayOf,
    decide_entry,
    gaming_day,
    utcnow,
)
from core.pokerroom.cases.view import STATES, CaseView, case_view, get_case, late_text
from core.pokerroom.fund import (
    BbjFundError,
    Funds,
    Notice,
    active_notice_in,
    amount_for_hit_in,
    open_fund,
    record_award_in,
    void_award_in,
)
from core.pokerroom.rules.bbj import BbjSettings, Decision, decision_json

log = logging.getLogger("podium.bbj_cases")


def open_case(engine: Engine, fund_id: str, entry: ClaimEntry, hit_at: datetime, swipe: str,
              *, settings: BbjSettings | None = None,
              clock: Callable[[], datetime] = utcnow, day_of: DayOf | None = None) -> int:
    """Decide the claim and open its case (state ``claimed``, with who); the case id.  Bad input
    raises before anything is written."""
    if hit_at.tzinfo is None:
        raise BbjCaseError("hit time: must be timezone-aware")
    claim, decision = decide_entry(engine, fund_id, entry, hit_at, settings, day_of)
    now = clock().astimezone(UTC)
    if hit_at.astimezone(UTC) > now:
        raise BbjCaseError(f"hit time {hit_at:%Y-%m-%d %H:%M}: in the future")
    stored = entry.to_json(claim.main_jackpot_cents, claim.reserve_jackpot_cents)

    def write(s: Session, emp: Employee) -> int:
        try:
            open_fund(s, fund_id)  # locked; a ceased fund takes no new claim
        except BbjFundError as exc:
            raise BbjCaseError(str(exc)) from None
        row = BbjCase(fund_id=fund_id, table_name=entry.table.strip(),
                      hit_at=hit_at.astimezone(UTC), claim=stored,
                      decision=decision_json(decision), qualifies=decision.qualifies,
                      created_at=now)
        s.add(row)
        s.flush()
        s.add(BbjCaseEvent(case_id=row.id, state="claimed", seat=None,
                           detail="qualifies" if decision.qualifies
                           else "does not qualify: " + ", ".join(decision.reasons),
                           employee_id=emp.id, created_at=now))
        return row.id

    case_id = swiped(engine, swipe, now, write)
    log.info("bbj case %d opened at table %s (%s)", case_id, entry.table,
             "qualifies" if decision.qualifies else "does not qualify")
    return case_id


def advance(engine: Engine, case_id: int, state: str, swipe: Swipe, *, seat: int | None = None,
            detail: str = "", deck_sorted: bool = False, cctv_reviewed: bool = False,
            settings: BbjSettings | None = None, cease: bool = False,
            clock: Callable[[], datetime] = utcnow, day_of: DayOf | None = None,
            money: Currency = PESOS) -> CaseView:
    """Move the case to ``state`` (one of :meth:`CaseView.next_states`) with the card the step
    needs (:class:`StepAuthority`: a supervisor's, an executive's with the PIN the floor asks
    for a large award or share, another person than the verifier for an award at or above
    ``separate_verifier_at``); the case afterwards.  A refused card writes only its swipe-log
    row, with the role the step needed.  ``verified`` needs ``deck_sorted`` and ``cctv_reviewed``;
    ``share_paid`` a ``seat`` with a share, not yet paid, whose ID was checked (RULES.md 6.10);
    ``voided`` a reason in ``detail``.  ``approved`` writes the fund's award in the same
    transaction: the claim decided again on :func:`core.pokerroom.fund.amount_for_hit_in` for the
    hit
    (``settings`` as when the case was opened), refused (nothing written) while the hit's day
    (``day_of``: the casino's gaming day of a moment; without it, the counts' hours) is not
    posted.  ``cease`` (``approved`` only): the fund ceases with this hit (TGD-1540,
    RULES.md 6): the reserve is added to the main amount won and the fund takes nothing
    more.  ``money``: the fund's currency, in which a refused card's amounts are written."""
    if state not in STATES:
        raise BbjCaseError(f"case {case_id}: {state!r} is not a state ({', '.join(STATES)})")
    if cease and state != "approved":
        raise BbjCaseError(f"case {case_id}: a fund ceases only with an approval")
    now = clock().astimezone(UTC)
    gate = gate_for(engine)
    needed: list[StepAuthority] = []  # the transaction's, once it has worked it out

    def role_now() -> str:  # for a card refused before the transaction: the log's role
        try:
            return step_authority(engine, case_id, state, seat=seat, settings=settings,
                                  cease=cease, day_of=day_of, money=money).role
        except ValueError:
            return ROLE

    who = gate.identified(swipe, hit_id=None, action=SWIPE_ACTION, role=role_now)
    try:
        with Session(engine, expire_on_commit=False) as s, s.begin():
            _step(s, gate, who, case_id, state, seat, detail, deck_sorted, cctv_reviewed,
                  settings, cease, now, needed, day_of, money)
    except ValueError as exc:
        role = needed[0].role if needed else role_now()
        raise gate.refused(exc, hit_id=None, action=SWIPE_ACTION, role=role, who=who) from None
    log.info("bbj case %d: %s%s", case_id, state, f" seat {seat}" if seat else "")
    return get_case(engine, case_id)


def _step(s: Session, gate: Gate, who: Swiper, case_id: int, state: str, seat: int | None,
          detail: str, deck_sorted: bool, cctv_reviewed: bool, settings: BbjSettings | None,
          cease: bool, now: datetime, needed: list[StepAuthority],
          day_of: DayOf | None = None, money: Currency = PESOS) -> None:
    """One step of :func:`advance` in its transaction: the case locked, the card's authority
    for the step (:class:`StepAuthority`) checked, the accepted swipe and the state row
    written.  A ValueError anywhere: nothing of it is written."""
    lock_record(s, "bbj_cases", case_id)
    row = s.execute(select(BbjCase).where(BbjCase.id == case_id)).scalar_one_or_none()
    if row is None:
        raise BbjCaseError(f"case {case_id}: no such case")
    view = case_view(s, row)
    if state == "attachments_missed":
        refusal = view.attachments_missed_refusal(now)
        if refusal:
            raise BbjCaseError(refusal)
        if not detail.strip():
            raise BbjCaseError(f"case {case_id}: recording the attachments missed needs "
                               "the reason")
    allowed = view.next_states(now)
    if state not in allowed:
        may = ", ".join(allowed) or "nothing (the case is closed)"
        raise BbjCaseError(f"case {case_id}: can not go from {view.state} to {state} "
                           f"(next: {may})")
    policy = gate.policy
    decided: tuple[Funds, Decision] | None = None
    verifier: Employee | None = None
    notice: Notice | None = None
    if state == "approved":
        _not_awarded_yet(s, row)
        try:
            open_fund(s, row.fund_id)  # locked: a notice withdrawn meanwhile waits for us
        except BbjFundError as exc:
            raise BbjCaseError(f"case {case_id}: {exc}") from None
        held = active_notice_in(s, row.fund_id)
        if held is not None and held.kind == "cease_once_hit":  # this approval ceases the fund
            notice, cease = held, True
        funds = amount_for_hit_in(s, row.fund_id, row.hit_at, ceasing=cease,
                                  day=gaming_day(day_of, row.hit_at))
        decided = (funds, decide_again(row, funds, settings))
        verifier = verifier_of(s, case_id)
        need = approval_authority(policy, decided[1].award_cents, who_or_none(verifier),
                                  money=money)
    elif state == "share_paid":
        gross = s.execute(select(BbjAwardShare.gross_cents).where(
            BbjAwardShare.award_id == view.award_id, BbjAwardShare.seat == seat)).scalar()
        need = share_authority(policy, gross, money)
    else:
        need = StepAuthority(state, ROLE, None, policy.executive_threshold_cents, money=money)
    needed.append(need)
    emp = gate.authority(s, who, need.role, SWIPE_ACTION, need.words)
    if need.separate and verifier is not None and same_person(verifier, emp):
        assert need.amount_cents is not None
        raise AuthError(f"case {case_id}: an award of {money.text(need.amount_cents)} (at or "
                        f"above {money.text(policy.separate_verifier_cents)}) is approved "
                        f"by another person than the one who verified it: employee "
                        f"{verifier.number} ({verifier.name}) verified this hand",
                        "same_person",
                        emp.id, who.card_mac)
    gate.accepted(s, emp, who, hit_id=None, action=SWIPE_ACTION, role=need.role,
                  now=gate.now())
    text = detail.strip()
    at_seat: int | None = None
    if state == "verified":
        if not (deck_sorted and cctv_reviewed):
            raise BbjCaseError(f"case {case_id}: verify only once the deck is sorted and "
                               "the CCTV reviewed (RULES.md 6.9)")
        text = text or "deck sorted, CCTV reviewed"
    elif state == "attachments_filed" and view.attachments_needed:
        late = late_text(view.attachments_due, now)
        text = "; ".join(t for t in (late, text) if t)
    elif state == "approved":
        assert decided is not None
        text = (_award(s, row, view, emp, now, decided, cease, notice,
                       gaming_day(day_of, row.hit_at))
                + (f"; {text}" if text else ""))
    elif state == "share_paid":
        if seat not in view.unpaid_seats:
            raise BbjCaseError(f"case {case_id}: seat {seat} has no unpaid share (unpaid: "
                               f"{', '.join(map(str, view.unpaid_seats)) or 'none'})")
        if seat not in view.claim["id_checked"]:
            raise BbjCaseError(f"case {case_id}: seat {seat}: no valid government ID "
                               "checked; a share is paid only on ID (RULES.md 6.10)")
        at_seat = seat
        share = s.execute(select(BbjAwardShare).where(
            BbjAwardShare.award_id == view.award_id, BbjAwardShare.seat == seat)) \
            .scalar_one_or_none()
        if share is None:
            raise BbjCaseError(f"case {case_id}: seat {seat} has no share in the fund's "
                               "award")
        paid = (f"award {view.award_id}: gross {format_cents(share.gross_cents)}, tax "
                f"{format_cents(share.tax_cents)}, net "
                f"{format_cents(share.gross_cents - share.tax_cents)}")
        text = paid + (f"; {text}" if text else "")
    elif state == "voided":
        if not text:
            raise BbjCaseError(f"case {case_id}: a void needs the reason")
        if view.award_id is not None:  # approved, nothing paid yet: the fund gets it back
            main, reserve = void_award_in(s, row.fund_id, view.award_id,
                                          by=Who.of(emp).recorded(), reason=text,
                                          now=now)
            text += (f"; award {view.award_id} undone: main {format_cents(main)}, reserve "
                     f"{format_cents(reserve)} back in the fund")
    s.add(BbjCaseEvent(case_id=case_id, state=state, seat=at_seat, detail=text,
                       employee_id=emp.id, created_at=now))


def _not_awarded_yet(s: Session, row: BbjCase) -> None:
    """Refuse a second award for one hit (fund, hit time, table), by a case or directly."""
    same_hit = s.execute(select(BbjAward.id, BbjAward.case_id).where(
        BbjAward.fund_id == row.fund_id, BbjAward.hit_at == row.hit_at,
        BbjAward.table_name == row.table_name)).first()
    if same_hit is not None:
        by_case = f" in case {same_hit.case_id}" if same_hit.case_id is not None else ""
        raise BbjCaseError(f"case {row.id}: the hit at table {row.table_name} is already "
                           f"awarded (award {same_hit.id}{by_case})")


def _award(s: Session, row: BbjCase, view: CaseView, emp: Employee, now: datetime,
           decided: tuple[Funds, Decision], cease: bool,
           notice: Notice | None = None, hit_day: date | None = None) -> str:
    """Write the fund's award for an approved case in the caller's transaction (the claim
    decided again on the fund for the hit); the approval row's detail (award id, amount, the
    fund after).  ``notice``: the cease-once-hit notice that made this approval cease the fund
    (None: ``cease`` as asked)."""
    funds, decision = decided
    if [sh.seat for sh in decision.shares] != list(view.share_seats):
        raise BbjCaseError(f"case {row.id}: the claim decided again does not pay the same "
                           "seats (other settings than when the case was opened?)")
    award_id = record_award_in(s, row.fund_id, decision, hit_at=row.hit_at,
                               table=row.table_name, by=Who.of(emp).recorded(), now=now,
                               cease=cease, case_id=row.id, hit_day=hit_day)
    ceased = "; the fund ceases with this hit (reserve added to main)" if cease else ""
    if notice is not None:
        ceased = (f"; the fund ceases with this hit ({notice.words}; reserve added to "
                  "main)")
    return (f"award {award_id}{ceased}: {format_cents(decision.award_cents)} on main "
            f"{format_cents(funds.main_cents)}; main after "
            f"{format_cents(decision.main_after_cents)}, reserve after "
            f"{format_cents(decision.reserve_after_cents)}")


def void(engine: Engine, case_id: int, reason: str, swipe: str, *,
         clock: Callable[[], datetime] = utcnow) -> CaseView:
    """Void the case with the reason (kept, with who decided)."""
    return advance(engine, case_id, "voided", swipe, detail=reason, clock=clock)
