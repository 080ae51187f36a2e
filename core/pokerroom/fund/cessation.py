"""A Bad Beat Jackpot fund CEASES (TGD-1540; docs/bbj.md "The fund"): by transfer to another
fund (:func:`cease_by_transfer`), or forfeited in favour of PAGCOR when the poker room closes for
good (:func:`forfeit_on_closure`: the whole balance, main with its seed and reserve).  A fund
that ceased once hit is ``core.pokerroom.fund.awards.record_award(..., cease=True)``.
:func:`fund_status`: a fund's amounts, how it ceased, or the notice that holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.kernel.money import format_cents
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCase,
    BbjCaseEvent,
    BbjCessation,
    BbjDropCount,
    BbjPosting,
)
from core.pokerroom.fund.ledger import (
    BbjFundError,
    Funds,
    add_entry,
    aware,
    balance,
    date_of,
    fund_row,
    latest_day,
    moment,
    required_text,
    seed_in_main,
)
from core.pokerroom.fund.notices import Notice, active_notice_in


def cease_by_transfer(engine: Engine, fund_id: str, to_fund_id: str, *, by: str, reason: str,
                      at: datetime | None = None) -> int:
    """TGD-1540 cessation by transfer; the cessation id.  The seed goes back to the operator if
    the jackpot has not been reset (a ``seed_return`` entry), the increment (main - seed) goes
    to the other fund's main and the reserve to its reserve (``transfer_out`` here,
    ``transfer_in`` there); the source ends at 0 / 0.  Every counted day must be posted."""
    if fund_id == to_fund_id:
        raise BbjFundError("transfer: a fund can not be transferred to itself")
    now = moment(at)
    who, why = required_text(by, "recorded by"), required_text(reason, "reason")
    with Session(engine) as s, s.begin():
        fund_row(s, fund_id)
        fund_row(s, to_fund_id)
        posted = select(BbjPosting.business_date).where(BbjPosting.fund_id == fund_id)
        pending = s.execute(select(BbjDropCount.business_date).where(
            BbjDropCount.fund_id == fund_id,
            BbjDropCount.business_date.not_in(posted))).first()
        if pending is not None:
            raise BbjFundError(f"transfer: {pending[0]} is counted but not posted; post it "
                               "first")
        now_funds = balance(s, fund_id)
        seed_back = seed_in_main(s, fund_id)
        increment = now_funds.main_cents - seed_back
        c = BbjCessation(fund_id=fund_id, kind="transfer", to_fund_id=to_fund_id, award_id=None,
                         seed_returned_cents=seed_back, increment_cents=increment,
                         reserve_cents=now_funds.reserve_cents, reason=why, recorded_by=who,
                         created_at=now)
        s.add(c)
        s.flush()
        if seed_back:
            add_entry(s, fund_id, "seed_return", -seed_back, 0, by=who,
                   reason="seed back to the operator (jackpot not reset)", effective_at=now,
                   created_at=now, cessation_id=c.id)
        add_entry(s, fund_id, "transfer_out", -increment, -now_funds.reserve_cents, by=who,
               reason=f"increment and reserve to fund {to_fund_id}", effective_at=now,
               created_at=now, cessation_id=c.id)
        add_entry(s, to_fund_id, "transfer_in", increment, now_funds.reserve_cents, by=who,
               reason=f"increment and reserve from fund {fund_id}", effective_at=now,
               created_at=now, cessation_id=c.id)
        return c.id


def open_cases_in(s: Session, fund_id: str) -> list[tuple[int, str]]:
    """The fund's cases still open: not voided and not every share paid (a claim that does not
    qualify is open until voided); (case id, words), oldest first."""
    out = []
    for case in s.execute(select(BbjCase).where(BbjCase.fund_id == fund_id)
                          .order_by(BbjCase.id)).scalars():
        states = [e.state for e in s.execute(select(BbjCaseEvent).where(
            BbjCaseEvent.case_id == case.id).order_by(BbjCaseEvent.id)).scalars()]
        if "voided" in states:
            continue
        award = s.execute(select(BbjAward.id).where(BbjAward.case_id == case.id)).scalar()
        shares = 0 if award is None else int(s.execute(
            select(func.count()).select_from(BbjAwardShare)
            .where(BbjAwardShare.award_id == award)).scalar_one())
        if award is not None and states.count("share_paid") >= shares:
            continue
        state = next((st for st in reversed(states)
                      if st not in ("attachments_filed", "attachments_missed")), "claimed")
        out.append((case.id, f"case {case.id} (table {case.table_name}, hit "
                             f"{case.hit_at:%Y-%m-%d %H:%M} UTC, {state})"))
    return out


def _unposted_day(s: Session, fund_id: str) -> date | None:
    posted = select(BbjPosting.business_date).where(BbjPosting.fund_id == fund_id)
    row = s.execute(select(BbjDropCount.business_date).where(
        BbjDropCount.fund_id == fund_id, BbjDropCount.business_date.not_in(posted))
        .order_by(BbjDropCount.business_date)).first()
    return None if row is None else row[0]


@dataclass(frozen=True)
class Forfeiture:
    """What a forfeiture took: main (of which seed, the rest increment) and reserve."""

    cessation_id: int
    main_cents: int
    seed_cents: int
    reserve_cents: int

    @property
    def total_cents(self) -> int:
        return self.main_cents + self.reserve_cents


def forfeit_on_closure(engine: Engine, fund_id: str, *, closed_on: date, by: str, reason: str,
                       at: datetime | None = None) -> Forfeiture:
    """The poker room closed for good: the fund's whole balance is forfeited in favour of
    PAGCOR (:func:`forfeit_on_closure_in`, in its own transaction)."""
    now = moment(at)
    with Session(engine) as s, s.begin():
        return forfeit_on_closure_in(s, fund_id, closed_on=closed_on, by=by, reason=reason,
                                     now=now)


def forfeit_on_closure_in(s: Session, fund_id: str, *, closed_on: date, by: str, reason: str,
                          now: datetime) -> Forfeiture:
    """In the caller's transaction (with an executive's swipe:
    ``core.pokerroom.cases.forfeit_on_closure``): a ``forfeiture`` entry taking main (the seed
    in it included) and reserve to 0 and a ``bbj_cessations`` row of kind ``forfeiture`` with
    the amounts, the closure date, the reason and who.  Refused on a ceased fund, with a day
    counted and not posted, with a case still open (named), with a day counted after the
    closure date or a closure date in the future.  A fund holding nothing is closed all the
    same (a cessation row of 0.00, no entry): it takes nothing more."""
    now = aware(now, "time")
    who, why = required_text(by, "recorded by"), required_text(reason, "reason")
    closed = date_of(closed_on, "closure date")
    if closed > latest_day(now):
        raise BbjFundError(f"closure date {closed}: in the future (forfeit once the poker room "
                           "has closed)")
    fund_row(s, fund_id)
    pending = _unposted_day(s, fund_id)
    if pending is not None:
        raise BbjFundError(f"forfeiture: {pending} is counted but not posted for fund "
                           f"{fund_id!r}; post it first")
    last = s.execute(select(func.max(BbjDropCount.business_date))
                     .where(BbjDropCount.fund_id == fund_id)).scalar()
    if last is not None and last > closed:
        raise BbjFundError(f"closure date {closed}: fund {fund_id!r} has drop boxes counted "
                           f"for {last}, after it")
    still = open_cases_in(s, fund_id)
    if still:
        raise BbjFundError(f"forfeiture: {still[0][1]} is open; pay or void it first"
                           + (f" ({len(still) - 1} more open)" if len(still) > 1 else ""))
    bal = balance(s, fund_id)
    if bal.main_cents < 0 or bal.reserve_cents < 0:  # pragma: no cover - a ledger bug
        raise BbjFundError(f"fund {fund_id!r}: main {format_cents(bal.main_cents)}, reserve "
                           f"{format_cents(bal.reserve_cents)}: a negative balance")
    seed = seed_in_main(s, fund_id)
    c = BbjCessation(fund_id=fund_id, kind="forfeiture", to_fund_id=None, award_id=None,
                     seed_returned_cents=0, increment_cents=bal.main_cents - seed,
                     reserve_cents=bal.reserve_cents, seed_forfeited_cents=seed,
                     closed_on=closed, reason=why, recorded_by=who, created_at=now)
    s.add(c)
    s.flush()
    if bal.total_cents:
        add_entry(s, fund_id, "forfeiture", -bal.main_cents, -bal.reserve_cents, by=who,
               reason=f"poker room closed on {closed}: main {format_cents(bal.main_cents)} "
                      f"(seed {format_cents(seed)}) and reserve "
                      f"{format_cents(bal.reserve_cents)} forfeited in favour of PAGCOR",
               effective_at=now, created_at=now, cessation_id=c.id)
    return Forfeiture(c.id, bal.main_cents, seed, bal.reserve_cents)


@dataclass(frozen=True)
class FundStatus:
    """A fund as the console shows it: its amounts, how it ceased, the notice that holds."""

    funds: Funds
    ceased_kind: str | None  # transfer | after_hit | forfeiture
    ceased_at: datetime | None
    closed_on: date | None  # forfeiture: the closure date
    notice: Notice | None  # the notice that holds (an open fund)


def fund_status(engine: Engine, fund_id: str) -> FundStatus:
    with Session(engine) as s:
        fund_row(s, fund_id, open_=False)
        c = s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
            .scalar_one_or_none()
        return FundStatus(balance(s, fund_id), c.kind if c else None,
                          c.created_at if c else None, c.closed_on if c else None,
                          None if c else active_notice_in(s, fund_id))
