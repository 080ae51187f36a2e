"""TGD-1623 (onsite, with the remittance) / TGD-1494 (offsite) of one fund's gaming day from the
ledger: its drop-box counts and its POSTING (previous, distribution and updated amounts exactly
as posted)."""

from __future__ import annotations

from datetime import date
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func, select

from core.ledger import integrity
from core.ledger.models import BbjDropCount, BbjEntry, BbjPosting, PokerTournamentFee
from core.pokerroom.fund import FundSettings, posting_settings
from printing.pages.forms import DailyReport, FormError, TableDay, fund_split, peso, rate_text
from printing.pages.ledger_forms.reading import fund_row, local_time, reading


def daily_report(engine: Engine, fund_id: str, business_date: date, *, onsite: bool,
                 casino: str, operator: str, tz: ZoneInfo,
                 settings: FundSettings | None = None) -> DailyReport:
    """The day's report of one fund: its counts (times in ``tz``), its posting's previous,
    distribution and updated amounts at the rates it was posted at, the seed infused on that
    (casino-local) date, and onsite the day's tournament fees (TGD-1623 C).  ``settings``: the
    floor file's ``[poker_room]`` (its chips; RULES.md's by default)."""
    with reading(engine) as s:
        fund = fund_row(s, fund_id)
        posting = s.execute(select(BbjPosting).where(
            BbjPosting.fund_id == fund_id, BbjPosting.business_date == business_date)) \
            .scalar_one_or_none()
        if posting is None:
            raise FormError(f"{business_date}: fund {fund_id!r} has no posting for the day; "
                            "count and post it first")
        st = posting_settings(posting, settings)  # the rates the day was posted at
        counts = list(s.execute(select(BbjDropCount).where(
            BbjDropCount.fund_id == fund_id, BbjDropCount.business_date == business_date)
            .order_by(BbjDropCount.opened_at, BbjDropCount.table_name, BbjDropCount.id))
            .scalars())
        counted = sum(c.total_cents for c in counts)
        if counted != posting.collection_cents:
            raise FormError(f"{business_date}: fund {fund_id!r}: the counts add up to "
                            f"{peso(counted)}, not the posted collection "
                            f"{peso(posting.collection_cents)}")
        split = fund_split(posting.collection_cents, st)
        if (split.admin_fee, split.to_main, split.to_reserve) != (
                posting.admin_fee_cents, posting.to_main_cents, posting.to_reserve_cents):
            raise FormError(
                f"{business_date}: fund {fund_id!r} was posted with admin fee "
                f"{peso(posting.admin_fee_cents)}, main {peso(posting.to_main_cents)}, reserve "
                f"{peso(posting.to_reserve_cents)}: not its admin fee "
                f"{rate_text(st.admin_fee_rate)} / main {rate_text(st.main_rate)} of "
                f"{peso(posting.collection_cents)}; the form can not show other figures than "
                "the ledger")
        seeds = [e for e in s.execute(select(BbjEntry).where(
            BbjEntry.fund_id == fund_id, BbjEntry.kind == "seed").order_by(BbjEntry.id))
            .scalars() if local_time(e.effective_at, tz).date() == business_date]
        # A seed recorded before the posting is inside the posting's previous amount: the form
        # shows it on its own line, so that previous + seed + collection = the posted amount.
        in_posting = sum(e.main_delta_cents for e in seeds
                         if e.created_at <= posting.created_at)
        notes = tuple(
            f"seed money of {peso(e.main_delta_cents)} recorded at "
            f"{local_time(e.created_at, tz):%H:%M}, after this day's posting, is not in these "
            "amounts: it is in the next posting's previous amount"
            for e in seeds if e.created_at > posting.created_at)
        fee = 0
        if onsite:
            fee = int(s.execute(select(func.coalesce(func.sum(PokerTournamentFee.fee_cents), 0))
                                .where(PokerTournamentFee.business_date == business_date))
                      .scalar_one())
        tables = tuple(
            TableDay(c.table_name, local_time(c.opened_at, tz).time(),
                     local_time(c.closed_at, tz).time(), c.dealer, c.rake_box, c.drop_box,
                     c.rake_cents, c.total_cents,
                     {int(k): int(v) for k, v in c.pieces.items()}, st.denominations)
            for c in counts)
        report = DailyReport(
            "TGD-1623" if onsite else "TGD-1494", casino, operator, business_date, tables,
            previous_main_cents=posting.previous_main_cents - in_posting,
            previous_reserve_cents=posting.previous_reserve_cents, seed_cents=in_posting,
            tournament_fee_cents=fee, notes=notes, jackpot=f"{fund.name} ({fund.id})",
            settings=st, chain=integrity.head_text(*integrity.chain_head(s.connection())))
        if (report.updated_main_cents, report.updated_reserve_cents) != (
                posting.main_cents, posting.reserve_cents):  # pragma: no cover - a ledger bug
            raise FormError(f"{business_date}: fund {fund_id!r}: the form's updated amounts "
                            "differ from the posting's")
        return report
