"""TGD-1540 from the ledger: a ceased fund (parts 1 and 2 from its ``bbj_cessations`` row,
part 1's dates from the notice that held), or part 1 of a planned transfer (or cessation once
hit) of a fund still open; its linked tables (:func:`linked_tables`) from the fund's drop
counts."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.ledger.models import BbjAward, BbjDropCount
from core.pokerroom.fund import (
    Notice,
    active_notice_in,
    funds,
    notice_at_cessation,
    seed_outstanding_cents,
)
from printing.pages.forms import FormError, LinkedTable, TransferCessation
from printing.pages.ledger_forms.reading import (
    case_reference,
    cessation_row,
    fund_row,
    local_time,
    reading,
)


def _hit(s: Session, fund_id: str, before: datetime | None = None) -> bool:
    """Whether the fund was ever hit (before ``before``).  With no seed outstanding, a hit is
    the ledger's "reset" (docs/bbj.md "The fund": the seed since the last hit, at most main)."""
    q = select(BbjAward.id).where(BbjAward.fund_id == fund_id)
    if before is not None:
        q = q.where(BbjAward.created_at < before)
    return s.execute(q.limit(1)).first() is not None


def transfer_cessation(engine: Engine, fund_id: str, *, casino: str, operator: str,
                       tz: ZoneInfo, holidays: Iterable[date] = (),
                       to_fund_id: str | None = None, effective_on: date | None = None,
                       today: date | None = None) -> TransferCessation:
    """TGD-1540.  A ceased fund: parts 1 and 2 from its cessation row, the figures exactly
    what the ledger moved (the seed returned, the increment, the reserve); part 1's notice
    date and players-told date from the notice that held when it ceased (``transfer`` /
    ``cease_once_hit``, ``bbj_cessation_notices``), blank without one.  A fund still open:
    part 1 of a planned transfer to ``to_fund_id`` on ``effective_on`` (both default to the
    transfer notice that holds, whose dates it prints; without a notice it is dated ``today``,
    default the casino's date now), or of a cessation once hit on the cease-once-hit notice's
    planned effective date, with the fund as it stands now and its outstanding seed.  A fund
    forfeited on closure has the forfeiture report instead."""
    hol = tuple(sorted(set(holidays)))
    with reading(engine) as s:
        fund = fund_row(s, fund_id)
        jackpot = f"{fund.name} ({fund.id})"
        c = cessation_row(s, fund_id)
        if c is not None:
            done = local_time(c.created_at, tz).date()
            if to_fund_id is not None or effective_on is not None:
                raise FormError(f"fund {fund_id!r} ceased on {done} ({c.kind}): its TGD-1540 "
                                "comes from the ledger; a planned transfer (to fund, "
                                "effective date) is only for a fund still open")
            if c.kind == "forfeiture":
                raise FormError(f"fund {fund_id!r} was forfeited to PAGCOR on {done} (the "
                                "poker room closed): its report is the forfeiture report "
                                f"(podium forms forfeiture --fund {fund_id})")
            main = c.seed_returned_cents + c.increment_cents
            if c.kind == "transfer":
                assert c.to_fund_id is not None
                dest = fund_row(s, c.to_fund_id)
                n = notice_at_cessation(s, fund_id, "transfer", c.created_at)
                return TransferCessation(
                    casino, operator, jackpot, "transfer", *_notice_dates(n, done),
                    seed_cents=c.seed_returned_cents, main_cents=main,
                    reserve_cents=c.reserve_cents, destination=f"{dest.name} ({dest.id})",
                    jackpot_reset=(c.seed_returned_cents == 0
                                   and _hit(s, fund_id, c.created_at)),
                    completed_on=done, reason=c.reason, holidays=hol)
            award = s.get(BbjAward, c.award_id)
            if award is None:
                raise FormError(f"fund {fund_id!r} ceased once hit, but its award "
                                f"{c.award_id} is not in the ledger")
            hit_on = local_time(award.hit_at, tz).date()
            n = notice_at_cessation(s, fund_id, "cease_once_hit", c.created_at)
            return TransferCessation(
                casino, operator, jackpot, "cease", *_notice_dates(n, hit_on),
                seed_cents=c.seed_returned_cents, main_cents=main,
                reserve_cents=c.reserve_cents, completed_on=done, reason=c.reason,
                holidays=hol, hit_on=hit_on, amount_won_cents=award.award_cents,
                award_reference=case_reference(award.case_id, award.id))
        held = active_notice_in(s, fund_id)
        once_hit = (held is not None and held.kind == "cease_once_hit" and to_fund_id is None
                    and effective_on is None)
        if held is not None and held.kind == "transfer":
            to_fund_id = to_fund_id or held.to_fund_id
            effective_on = effective_on or held.effective_on
        elif once_hit:
            assert held is not None
            if held.effective_on is None:
                raise FormError(f"fund {fund_id!r}: {held.words} has no planned effective "
                                "date; part 1 of a cessation once hit prints one (the form "
                                "of a fund that ceased with its hit comes from the ledger)")
            effective_on = held.effective_on
        if not once_hit:
            if to_fund_id is None:
                raise FormError(f"fund {fund_id!r} has not ceased: part 1 (the notice) of a "
                                "planned transfer needs the fund it goes to (to fund)")
            if effective_on is None:
                raise FormError(f"fund {fund_id!r} has not ceased: part 1 (the notice) of a "
                                "planned transfer needs its effective date")
            if to_fund_id == fund_id:
                raise FormError(f"fund {fund_id!r}: a fund can not be transferred to itself")
            dest = fund_row(s, to_fund_id)
            if cessation_row(s, to_fund_id) is not None:
                raise FormError(f"fund {to_fund_id!r} has ceased: it can not take a transfer")
            destination = f"{dest.name} ({dest.id})"
        hit = _hit(s, fund_id)
    # the notice's own dates only for the cessation it announces
    use = held if held is not None and (once_hit or (
        held.kind == "transfer" and held.to_fund_id == to_fund_id
        and held.effective_on == effective_on)) else None
    reason = use.reason if use is not None else ""
    assert effective_on is not None
    notice_on, players = (use.notice_on, use.players_told_on) if use is not None else (
        today if today is not None else datetime.now(tz).date(), None)
    # The fund now and its seed outstanding: the ledger's own functions (their own read, once
    # this session has ended: SQLite allows one transaction at a time).
    now = funds(engine, fund_id)
    seed = seed_outstanding_cents(engine, fund_id)
    if once_hit:
        return TransferCessation(
            casino, operator, jackpot, "cease", notice_on, effective_on, players,
            seed_cents=seed, main_cents=now.main_cents, reserve_cents=now.reserve_cents,
            reason=reason, holidays=hol)
    return TransferCessation(
        casino, operator, jackpot, "transfer", notice_on, effective_on, players,
        seed_cents=seed, main_cents=now.main_cents, reserve_cents=now.reserve_cents,
        destination=destination, jackpot_reset=seed == 0 and hit, reason=reason, holidays=hol)


def _notice_dates(n: Notice | None, effective: date) -> tuple[date | None, date, date | None]:
    """(notice date, effective date, players told on) of a ceased fund's part 1: from the
    notice that held (blank without one)."""
    if n is None:
        return None, effective, None
    # a notice dated after the cessation's effective date can not be printed as its notice
    notice_on = n.notice_on if n.notice_on <= effective else None
    return notice_on, effective, n.players_told_on


def linked_tables(engine: Engine, fund_id: str) -> tuple[LinkedTable, ...]:
    """The tables whose jackpot drop boxes feed the fund: every table of the fund's drop counts
    (``bbj_drop_counts``), with its first and last gaming day counted, the days and the
    jackpot rake counted.  The floor file does not list poker tables, so a table never counted
    is not known here (the form prints a blank then)."""
    with reading(engine) as s:
        fund_row(s, fund_id)
        rows = s.execute(select(
            BbjDropCount.table_name, func.min(BbjDropCount.business_date),
            func.max(BbjDropCount.business_date),
            func.count(func.distinct(BbjDropCount.business_date)),
            func.sum(BbjDropCount.total_cents)).where(BbjDropCount.fund_id == fund_id)
            .group_by(BbjDropCount.table_name).order_by(BbjDropCount.table_name)).all()
    return tuple(LinkedTable(str(t), first, last, int(days), int(cents))
                 for t, first, last, days, cents in rows)
