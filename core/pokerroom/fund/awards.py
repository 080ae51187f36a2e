"""A Bad Beat Jackpot hit paid from the fund (RULES.md section 6, "Payout"; docs/bbj.md "The
fund").

* :func:`amount_for_hit`: main and reserve for a hit at a given moment; the day's collections
  count from the day's first table opening, so a hit before the day's posting is paid on the
  UPDATED amount.
* :func:`record_award`: a qualifying ``core.pokerroom.rules.bbj.Decision`` paid: award, every
  share, the ``award`` and ``reserve_move`` entries, in one transaction.  :func:`record_award_in`
  and :func:`amount_for_hit_in` do the same inside the caller's open Session (a case's approval,
  core/pokerroom/cases/, writes the award in its own transaction); ``cease=True``: the fund
  ceases with the hit (TGD-1540).
* :func:`void_award_in`: an award undone before any share was paid (a case voided).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.money import format_cents
from core.ledger.models import BbjAward, BbjAwardShare, BbjCessation, BbjEntry, BbjPosting
from core.pokerroom.fund.ledger import (
    BbjFundError,
    Funds,
    add_entry,
    aware,
    balance,
    fund_row,
    moment,
    required_text,
)
from core.pokerroom.fund.notices import active_notice_in
from core.pokerroom.rules.bbj import Decision


def amount_for_hit(engine: Engine, fund_id: str, at: datetime, *,
                   ceasing: bool = False, day: date | None = None) -> Funds:
    """Main and reserve for a hit at ``at``: every entry effective at or before ``at``.  A day's
    collection is effective from the day's first table opening, so a hit before that day's
    posting is paid on the updated amount (the day's collections included); collections of
    later days and awards of later hits are not.  ``ceasing``: the fund ceases with this hit
    (TGD-1540), so the reserve is added to the main amount (reserve 0).  ``day``: the hit's
    gaming day (the casino's, ``core.pokerroom.room.PokerRoom.gaming_day_of``): that day's
    posted collections count whatever opening time its counts give."""
    with Session(engine) as s:
        return amount_for_hit_in(s, fund_id, at, ceasing=ceasing, day=day)


def amount_for_hit_in(s: Session, fund_id: str, at: datetime, *,
                      ceasing: bool = False, day: date | None = None) -> Funds:
    """:func:`amount_for_hit` inside an open Session (the fund row locked for its
    transaction), for a caller that then records the award in the same transaction."""
    hit_at = aware(at, "hit time")
    fund_row(s, fund_id, open_=False)
    f = balance(s, fund_id, hit_at, day)
    return Funds(f.total_cents, 0) if ceasing else f


def hit_funds_read(s: Session, fund_id: str, at: datetime,
                   day: date | None = None) -> tuple[Funds, bool]:
    """Read only (no lock, for reports): the main and reserve a hit at ``at`` is paid on (as
    :func:`amount_for_hit`) and whether the hit's day is posted (the condition of
    :func:`record_award`)."""
    when = aware(at, "hit time")
    return balance(s, fund_id, when, day), _hit_day_posted(s, fund_id, when, day)


def _hit_day_posted(s: Session, fund_id: str, when: datetime, day: date | None = None) -> bool:
    """Whether the hit's day is counted and posted, so the prize includes the day's
    collections: a posting of the hit's gaming day ``day`` (the casino's, not a UTC date), or
    one whose counts cover the hit time (first table opening .. last closing)."""
    if day is not None and s.execute(select(BbjPosting.id).where(
            BbjPosting.fund_id == fund_id, BbjPosting.business_date == day)).first():
        return True
    return s.execute(select(BbjPosting.id).where(
        BbjPosting.fund_id == fund_id, BbjPosting.effective_at <= when,
        BbjPosting.last_closed_at >= when)).first() is not None


def record_award(engine: Engine, fund_id: str, decision: Decision, *, hit_at: datetime,
                 table: str, by: str, cease: bool = False, at: datetime | None = None,
                 hit_day: date | None = None) -> int:
    """Pay a qualifying decision from the fund; the award id.  The decision must have been made
    on :func:`amount_for_hit` (same ``cease``); the hit's day must be posted.  One transaction:
    the award, a row per share, the ``award`` entry (main - the shares paid: the leftover
    centavos stay) and the ``reserve_move`` entry (reserve x fraction up into main).  ``cease``:
    TGD-1540 cessation once hit, the reserve first added to main (a ``cessation_merge`` entry)
    and a ``bbj_cessations`` row; the fund takes nothing more afterwards."""
    now = moment(at)
    with Session(engine) as s, s.begin():
        return record_award_in(s, fund_id, decision, hit_at=hit_at, table=table, by=by,
                               cease=cease, now=now, hit_day=hit_day)


def record_award_in(s: Session, fund_id: str, decision: Decision, *, hit_at: datetime,
                    table: str, by: str, now: datetime, cease: bool = False,
                    case_id: int | None = None, hit_day: date | None = None) -> int:
    """:func:`record_award` inside the caller's open transaction (the caller commits, or rolls
    back everything on a refusal): a case's approval and its award are one transaction
    (core/pokerroom/cases/, which gives its ``case_id``).  The one implementation of the award;
    the award id.  ``hit_day``: the hit's gaming day (the casino's), which must be posted."""
    if not decision.qualifies:
        raise BbjFundError("award: the claim does not qualify (" +
                           ", ".join(decision.reasons) + "); nothing is paid")
    when = aware(hit_at, "hit time")
    now = aware(now, "time")
    who = required_text(by, "recorded by")
    tbl = required_text(table, "table")
    fund_row(s, fund_id)
    notice = active_notice_in(s, fund_id)
    once_hit = notice is not None and notice.kind == "cease_once_hit"
    if once_hit and not cease:
        assert notice is not None
        raise BbjFundError(f"fund {fund_id!r}: {notice.words}: this award must cease the fund "
                           "(the reserve added to the main amount won, TGD-1540)")
    if not _hit_day_posted(s, fund_id, when, hit_day):
        if hit_day is not None:
            raise BbjFundError(f"the hit's gaming day {hit_day} is not posted; count and post "
                               f"{hit_day} first (the prize includes the day's collections)")
        raise BbjFundError(f"hit at {when:%Y-%m-%d %H:%M} UTC: the day of the hit is not "
                           "posted; count and post it first (the prize includes the day's "
                           "collections)")
    later = s.execute(select(BbjAward.id).where(BbjAward.fund_id == fund_id,
                                                BbjAward.hit_at > when)).first()
    if later is not None:
        raise BbjFundError(f"hit at {when:%Y-%m-%d %H:%M} UTC: a later hit is already "
                           "recorded on this fund")
    stood = balance(s, fund_id, when, hit_day)
    base = Funds(stood.total_cents, 0) if cease else stood
    fr = decision.payout_fraction
    moved = base.reserve_cents * fr.numerator // fr.denominator
    paid = decision.paid_cents
    if (decision.award_cents != base.main_cents * fr.numerator // fr.denominator
            or decision.main_after_cents != base.main_cents - paid + moved
            or decision.reserve_after_cents != base.reserve_cents - moved):
        raise BbjFundError(f"award: the decision was not made on the fund as it stood for "
                           f"the hit (main {format_cents(base.main_cents)}, reserve "
                           f"{format_cents(base.reserve_cents)})")
    award = BbjAward(fund_id=fund_id, hit_at=when, table_name=tbl,
                     main_before_cents=base.main_cents,
                     reserve_before_cents=base.reserve_cents,
                     fraction_num=fr.numerator, fraction_den=fr.denominator,
                     award_cents=decision.award_cents, paid_cents=paid,
                     reserve_moved_cents=moved, main_after_cents=decision.main_after_cents,
                     reserve_after_cents=decision.reserve_after_cents, ceases_fund=cease,
                     case_id=case_id, recorded_by=who, created_at=now)
    s.add(award)
    s.flush()
    for sh in decision.shares:
        s.add(BbjAwardShare(award_id=award.id, seat=sh.seat, role=sh.role,
                            taxpayer=sh.taxpayer, gross_cents=sh.gross_cents,
                            tax_cents=sh.tax_cents))
    cessation_id: int | None = None
    if cease:
        c = BbjCessation(fund_id=fund_id, kind="after_hit", to_fund_id=None,
                         award_id=award.id, seed_returned_cents=0,
                         increment_cents=stood.main_cents,
                         reserve_cents=stood.reserve_cents,
                         reason="ceased once hit: the reserve is added to the main amount won"
                         + (f" ({notice.words})" if once_hit and notice is not None else ""),
                         recorded_by=who, created_at=now)
        s.add(c)
        s.flush()
        cessation_id = c.id
        add_entry(s, fund_id, "cessation_merge", stood.reserve_cents, -stood.reserve_cents,
               by=who, reason="TGD-1540: reserve added to the main amount won",
               effective_at=when, created_at=now, award_id=award.id,
               cessation_id=cessation_id)
    add_entry(s, fund_id, "award", -paid, 0, by=who,
           reason=f"bad beat at table {tbl}: award {format_cents(decision.award_cents)}, "
                  f"paid {format_cents(paid)}", effective_at=when, created_at=now,
           award_id=award.id)
    add_entry(s, fund_id, "reserve_move", moved, -moved, by=who,
           reason=f"reserve x {fr} up into main", effective_at=when, created_at=now,
           award_id=award.id)
    return award.id


def void_award_in(s: Session, fund_id: str, award_id: int, *, by: str, reason: str,
                  now: datetime) -> tuple[int, int]:
    """Undo an award that is voided before any share was paid (a case voided after its
    approval), in the caller's transaction: one ``award_void`` entry per entry of the award,
    with the opposite amounts, effective at the hit time, so main and reserve are again what
    they would be without it.  The award and its rows stay (append-only).  Refused for an award
    that ceased the fund, one already voided, or one followed by a later hit on the fund (that
    hit was paid on the amounts after this one).  The (main, reserve) given back."""
    now = aware(now, "time")
    who, why = required_text(by, "recorded by"), required_text(reason, "reason")
    fund_row(s, fund_id)
    award = s.get(BbjAward, award_id)
    if award is None or award.fund_id != fund_id:
        raise BbjFundError(f"award {award_id}: not an award of fund {fund_id!r}")
    if award.ceases_fund:
        raise BbjFundError(f"award {award_id} ceased the fund; it can not be voided")
    rows = list(s.execute(select(BbjEntry).where(BbjEntry.award_id == award_id)
                          .order_by(BbjEntry.id)).scalars())
    if any(r.kind == "award_void" for r in rows):
        raise BbjFundError(f"award {award_id}: already voided")
    later = s.execute(select(BbjAward.id).where(BbjAward.fund_id == fund_id,
                                                BbjAward.hit_at > award.hit_at)).first()
    if later is not None:
        raise BbjFundError(f"award {award_id}: a later hit (award {later.id}) was paid on the "
                           "fund after it; voiding it would change that award's amounts")
    main = reserve = 0
    for r in rows:
        add_entry(s, fund_id, "award_void", -r.main_delta_cents, -r.reserve_delta_cents, by=who,
               reason=f"award {award_id} voided ({r.kind} undone): {why}",
               effective_at=award.hit_at, created_at=now, award_id=award_id)
        main -= r.main_delta_cents
        reserve -= r.reserve_delta_cents
    return main, reserve
