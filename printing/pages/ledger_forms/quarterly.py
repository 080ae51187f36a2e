"""TGD-108 from the ledger: the month's rake, admin fees and tournament fees of every fund and
every jackpot share paid in the quarter."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select

from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCase,
    BbjCaseEvent,
    BbjDropCount,
    BbjPosting,
    PokerTournamentFee,
)
from printing.pages.forms import FormError, JackpotPayment, MonthFees, QuarterlyTax
from printing.pages.ledger_forms.reading import case_reference, local_time, reading, utc_start


def _quarter(year: object, quarter: object) -> tuple[int, int]:
    if isinstance(quarter, bool) or not isinstance(quarter, int) or quarter not in (1, 2, 3, 4):
        raise FormError(f"Q{quarter} {year}: the quarter must be 1, 2, 3 or 4")
    if isinstance(year, bool) or not isinstance(year, int) or not 2000 <= year <= 9998:
        raise FormError(f"Q{quarter} {year}: the year must be a year such as 2026")
    return year, quarter


def quarterly_tax(engine: Engine, year: int, quarter: int, *, casino: str, operator: str,
                  tz: ZoneInfo, onsite: bool = True) -> QuarterlyTax:
    """TGD-108: per month (business dates) the rake and the jackpot admin fees of every fund's
    counts and postings and the tournament fees; every jackpot share paid in the quarter (the
    ``share_paid`` rows, dated in ``tz``) with its award share; ``onsite`` chooses PAGCOR's
    sharing (40% onsite, 25% offsite: the "less 25%" line)."""
    year, quarter = _quarter(year, quarter)
    months = [date(year, 3 * quarter - 2 + k, 1) for k in range(3)]
    first = months[0]
    end = date(year + 1, 1, 1) if quarter == 4 else date(year, 3 * quarter + 1, 1)
    period = f"Q{quarter} {year}"
    with reading(engine) as s:
        posted = select(BbjPosting.id).where(
            BbjPosting.fund_id == BbjDropCount.fund_id,
            BbjPosting.business_date == BbjDropCount.business_date).exists()
        pending = s.execute(select(BbjDropCount.fund_id, BbjDropCount.business_date).where(
            BbjDropCount.business_date >= first, BbjDropCount.business_date < end, ~posted)
            .order_by(BbjDropCount.business_date, BbjDropCount.fund_id)).first()
        if pending is not None:
            raise FormError(f"{period}: fund {pending.fund_id!r} has {pending.business_date} "
                            "counted but not posted (its jackpot admin fee is not known yet); "
                            "post it first")

        def by_month(rows: Iterable[tuple[date, int]]) -> dict[int, int]:
            out = {m.month: 0 for m in months}
            for day, cents in rows:
                out[day.month] += int(cents)
            return out

        rake = by_month(s.execute(select(BbjDropCount.business_date, BbjDropCount.rake_cents)
                                  .where(BbjDropCount.business_date >= first,
                                         BbjDropCount.business_date < end)))
        fees = by_month(s.execute(select(BbjPosting.business_date, BbjPosting.admin_fee_cents)
                                  .where(BbjPosting.business_date >= first,
                                         BbjPosting.business_date < end)))
        tournaments = by_month(s.execute(
            select(PokerTournamentFee.business_date, PokerTournamentFee.fee_cents)
            .where(PokerTournamentFee.business_date >= first,
                   PokerTournamentFee.business_date < end)))
        paid = s.execute(select(BbjCaseEvent, BbjCase).join(
            BbjCase, BbjCase.id == BbjCaseEvent.case_id).where(
            BbjCaseEvent.state == "share_paid",
            BbjCaseEvent.created_at >= utc_start(first, tz),
            BbjCaseEvent.created_at < utc_start(end, tz)).order_by(BbjCaseEvent.id)).all()
        payments = []
        for ev, case in paid:
            share = s.execute(select(BbjAwardShare, BbjAward.id).join(
                BbjAward, BbjAward.id == BbjAwardShare.award_id).where(
                BbjAward.case_id == case.id, BbjAwardShare.seat == ev.seat)).first()
            if share is None:
                raise FormError(f"{period}: case {case.id} seat {ev.seat} was paid but the "
                                "fund's award has no share for that seat")
            row, award_id = share
            name = str(case.claim.get("names", {}).get(str(ev.seat), "")).strip()
            payments.append(JackpotPayment(
                paid_on=local_time(ev.created_at, tz).date(),
                reference=f"{case_reference(case.id, award_id)} seat {ev.seat}",
                payee=name or f"seat {ev.seat} (no name in the claim)",
                taxpayer=row.taxpayer, gross_cents=row.gross_cents, tax_cents=row.tax_cents))
    return QuarterlyTax(casino, operator, year, quarter,
                        tuple(MonthFees(m, rake[m.month], fees[m.month], tournaments[m.month])
                              for m in months),
                        tuple(payments), onsite=onsite)
