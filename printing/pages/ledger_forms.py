"""The regulator's poker-room forms filled from the ledger (docs/forms.md "From the ledger").

Each function reads the ledger (read only: one ``Session``; on PostgreSQL a READ ONLY,
REPEATABLE READ transaction, so every figure of a form comes from one snapshot) and returns the
:mod:`printing.pages.forms` dataclass; :func:`render` gives the HTML of one :class:`FormRequest`.

* :func:`daily_report`: TGD-1623 (onsite, with the remittance) / TGD-1494 (offsite) of one
  fund's gaming day, from its drop-box counts and its POSTING (previous, distribution and updated
  amounts exactly as posted);
* :func:`awarding_request`: TGD-1500 of an approved case, every money figure from the fund's
  award row and its share rows (``bbj_awards.case_id``);
* :func:`quarterly_tax`: TGD-108, the month's rake, admin fees and tournament fees of every fund
  and every jackpot share paid in the quarter;
* :func:`transfer_cessation`: TGD-1540 of a ceased fund (parts 1 and 2 from its
  ``bbj_cessations`` row, part 1's dates from the notice that held), or part 1 of a planned
  transfer (or cessation once hit) of a fund still open; its linked tables
  (:func:`linked_tables`) from the fund's drop counts;
* :func:`implementation_request`: TGD-1581 (Annex A), the floor file's ``[poker_room]`` rules
  and the fund as the ledger has it, for a requested implementation date;
* ``forfeiture``: the report of a fund forfeited to PAGCOR on closure
  (:func:`printing.pages.closure_form.forfeiture_report`).

A form that can not be produced is a :class:`printing.pages.forms.FormError` whose message tells the
accountant what to do ("2026-11-30: fund 'bbj' has no posting for the day; count and post it
first").  Nothing here writes to the ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time
from fractions import Fraction
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.floorconfig import PokerRoomConfig
from core.kernel.money import Currency
from core.ledger import integrity
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCase,
    BbjCaseEvent,
    BbjCessation,
    BbjDropCount,
    BbjEntry,
    BbjFund,
    BbjPosting,
    PokerTournamentFee,
)
from core.pokerroom.calendar import gaming_day_of
from core.pokerroom.cases import ClaimEntry, entry_from_json
from core.pokerroom.fund import (
    FundSettings,
    Notice,
    active_notice_in,
    funds,
    hit_funds_read,
    jackpot_rake_cents,
    notice_at_cessation,
    posting_settings,
    seed_outstanding_cents,
)
from core.pokerroom.rules.bbj import BbjSettings, decide
from core.pokerroom.rules.holdem import evaluate
from printing.pages import forms
from printing.pages.forms import (
    AwardingRequest,
    DailyReport,
    FormError,
    ImplementationRequest,
    JackpotPayment,
    LinkedTable,
    MonthFees,
    QuarterlyTax,
    Sharer,
    TableDay,
    TransferCessation,
    awarding_request_html,
    daily_report_html,
    fund_split,
    implementation_request_html,
    peso,
    quarterly_tax_html,
    rate_text,
    transfer_cessation_html,
    written_in,
)

FORM_KINDS: tuple[str, ...] = ("daily", "award", "quarterly", "cessation", "implementation",
                              "forfeiture")
SMALL_BLIND_NOTE = ("small blind: not recorded with the claim; half the big blind (rounded "
                    "down) is printed")


@dataclass(frozen=True)
class FormRequest:
    """Which form to produce: ``kind`` and the fields that kind needs."""

    kind: str  # "daily" | "award" | "quarterly" | "cessation" | "implementation" | "forfeiture"
    fund_id: str | None = None  # daily, cessation, implementation, forfeiture
    business_date: date | None = None  # daily
    # daily: True TGD-1623 (with remittance), False TGD-1494; quarterly: the PAGCOR sharing
    onsite: bool = True
    case_id: int | None = None  # award
    year: int | None = None  # quarterly
    quarter: int | None = None  # quarterly, 1..4
    to_fund_id: str | None = None  # cessation part 1 of a planned transfer
    effective_on: date | None = None  # cessation part 1 / implementation: effective date
    filed_at: datetime | None = None  # implementation: when the request is (was) submitted


@dataclass(frozen=True)
class RenderedForm:
    title: str  # e.g. "TGD-1623 daily report 2026-11-30 - fund bbj"
    filename: str  # a safe file stem, e.g. "TGD-1623_bbj_2026-11-30"
    html: str


# --------------------------------------------------------------------------------------
# Reading


def _reading(engine: Engine) -> Session:
    """A read-only session; on PostgreSQL one READ ONLY snapshot for the whole form (SQLite's
    transaction is a snapshot already)."""
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="REPEATABLE READ",
                                          postgresql_readonly=True)
    return Session(engine)


def _fund(s: Session, fund_id: str) -> BbjFund:
    fund = s.get(BbjFund, fund_id)
    if fund is None:
        raise FormError(f"fund {fund_id!r} does not exist")
    return fund


def _local(at: datetime, tz: ZoneInfo) -> datetime:
    return at.astimezone(tz)


def _utc_start(day: date, tz: ZoneInfo) -> datetime:
    """The casino-local midnight starting ``day``, in UTC."""
    return datetime.combine(day, time(), tz).astimezone(UTC)


def _cessation(s: Session, fund_id: str) -> BbjCessation | None:
    return s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
        .scalar_one_or_none()


def _reference(case_id: int | None, award_id: int) -> str:
    return f"case {case_id} / award {award_id}" if case_id is not None else f"award {award_id}"


# --------------------------------------------------------------------------------------
# TGD-1494 / TGD-1623


def daily_report(engine: Engine, fund_id: str, business_date: date, *, onsite: bool,
                 casino: str, operator: str, tz: ZoneInfo,
                 settings: FundSettings | None = None) -> DailyReport:
    """The day's report of one fund: its counts (times in ``tz``), its posting's previous,
    distribution and updated amounts at the rates it was posted at, the seed infused on that
    (casino-local) date, and onsite the day's tournament fees (TGD-1623 C).  ``settings``: the
    floor file's ``[poker_room]`` (its chips; RULES.md's by default)."""
    with _reading(engine) as s:
        fund = _fund(s, fund_id)
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
            .scalars() if _local(e.effective_at, tz).date() == business_date]
        # A seed recorded before the posting is inside the posting's previous amount: the form
        # shows it on its own line, so that previous + seed + collection = the posted amount.
        in_posting = sum(e.main_delta_cents for e in seeds
                         if e.created_at <= posting.created_at)
        notes = tuple(
            f"seed money of {peso(e.main_delta_cents)} recorded at "
            f"{_local(e.created_at, tz):%H:%M}, after this day's posting, is not in these "
            "amounts: it is in the next posting's previous amount"
            for e in seeds if e.created_at > posting.created_at)
        fee = 0
        if onsite:
            fee = int(s.execute(select(func.coalesce(func.sum(PokerTournamentFee.fee_cents), 0))
                                .where(PokerTournamentFee.business_date == business_date))
                      .scalar_one())
        tables = tuple(
            TableDay(c.table_name, _local(c.opened_at, tz).time(),
                     _local(c.closed_at, tz).time(), c.dealer, c.rake_box, c.drop_box,
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


# --------------------------------------------------------------------------------------
# TGD-1500


def awarding_request(engine: Engine, case_id: int, *, casino: str, operator: str,
                     tz: ZoneInfo, rules: BbjSettings | None = None,
                     day_starts: time | None = None) -> AwardingRequest:
    """TGD-1500 of an approved case: the hand from the stored claim, every money figure from
    the fund's award (``bbj_awards.case_id``) and its share rows (a tie: every tied seat of a
    place with its hand); the hit time in ``tz``.  Before approval the claim is decided on
    ``rules`` (the floor's ``[poker_room]``, as the case was opened and will be approved), and
    the hit's gaming day (``day_starts``: ``[casino] gaming_day_starts``) must be posted, as the
    approval asks."""
    with _reading(engine) as s:
        case = s.get(BbjCase, case_id)
        if case is None:
            raise FormError(f"case {case_id}: no such case")
        void = s.execute(select(BbjCaseEvent.detail).where(
            BbjCaseEvent.case_id == case_id, BbjCaseEvent.state == "voided")).first()
        if void is not None:
            raise FormError(f"case {case_id} is voided ({void.detail}): there is no award to "
                            "request")
        award = s.execute(select(BbjAward).where(BbjAward.case_id == case_id)) \
            .scalar_one_or_none()
        if award is None:
            return _request_before_approval(s, case, casino=casino, operator=operator, tz=tz,
                                            rules=rules, day_starts=day_starts)
        shares = list(s.execute(select(BbjAwardShare).where(
            BbjAwardShare.award_id == award.id).order_by(BbjAwardShare.id)).scalars())
        entry = entry_from_json(case.claim)
        holes = {h.seat: h.hole for h in entry.showdown}
        sharers = []
        for sh in shares:
            name = entry.names.get(sh.seat, "").strip()
            if not name:
                raise FormError(f"case {case_id}: seat {sh.seat} shares the jackpot and has no "
                                "name in the claim (the name on the player's government ID)")
            sharers.append(Sharer(seat=sh.seat, role=sh.role, taxpayer=sh.taxpayer,
                                  gross_cents=sh.gross_cents, tax_cents=sh.tax_cents,
                                  name=name))
        if sum(sh.gross_cents for sh in shares) != award.paid_cents:
            raise FormError(f"case {case_id}: award {award.id}'s shares do not add up to its "
                            f"paid amount {peso(award.paid_cents)}")
        seats = {role: [sh.seat for sh in shares if sh.role == role]
                 for role in ("winning", "losing")}
        if not all(seats.values()) or not set(seats["winning"] + seats["losing"]) <= set(holes):
            raise FormError(f"case {case_id}: award {award.id} has no winning and losing "
                            "share from the claim's showdown")

        def hand(seat: int) -> tuple[tuple[str, str], str]:
            a, b = holes[seat]
            return (str(a), str(b)), evaluate([*entry.board, a, b]).category

        places = {role: tuple((seat, *hand(seat)) for seat in seats[role])
                  for role in ("winning", "losing")}
        (_w, w_hole, w_hand), (_l, l_hole, l_hand) = places["winning"][0], places["losing"][0]
        ceased: tuple[str, ...] = ()
        if award.ceases_fund:
            c = _cessation(s, award.fund_id)
            merged = peso(c.reserve_cents) if c is not None else "the reserve"
            ceased = (f"the fund ceases with this hit (TGD-1540): its reserve ({merged}) was "
                      "added to the main jackpot",)
        bb = entry.big_blind_cents
        rake = _hand_rake(case_id, entry)
        paid_on = {int(ev.seat): _local(ev.created_at, tz).date() for ev in s.execute(
            select(BbjCaseEvent).where(BbjCaseEvent.case_id == case_id,
                                       BbjCaseEvent.state == "share_paid")).scalars()
            if ev.seat is not None}
        return AwardingRequest(
            casino=casino, operator=operator, hit_at=_local(award.hit_at, tz),
            table=award.table_name, small_blind_cents=_small_blind(entry), big_blind_cents=bb,
            pot_cents=entry.pot_cents, jackpot_rake_cents=rake,
            main_cents=award.main_before_cents, reserve_cents=award.reserve_before_cents,
            payout_fraction=Fraction(award.fraction_num, award.fraction_den),
            award_cents=award.award_cents, board=tuple(str(c) for c in entry.board),
            winning_seat=seats["winning"][0], winning_hole=w_hole, winning_hand=w_hand,
            losing_seat=seats["losing"][0], losing_hole=l_hole, losing_hand=l_hand,
            winning_hands=places["winning"] if len(seats["winning"]) > 1 else (),
            losing_hands=places["losing"] if len(seats["losing"]) > 1 else (),
            sharers=tuple(sharers), main_after_cents=award.main_after_cents,
            reserve_after_cents=award.reserve_after_cents,
            reference=_reference(case_id, award.id), notes=(*_blind_note(entry), *ceased),
            paid_on=paid_on, not_seated=entry.not_seated)


def _small_blind(entry: ClaimEntry) -> int:
    """The small blind entered with the claim; half the big blind (rounded down) for a claim
    entered without it (then the form says so: :func:`_blind_note`)."""
    if entry.small_blind_cents is not None:
        return entry.small_blind_cents
    return entry.big_blind_cents // 2


def _blind_note(entry: ClaimEntry) -> tuple[str, ...]:
    return () if entry.small_blind_cents is not None else (SMALL_BLIND_NOTE,)


def _hand_rake(case_id: int, entry: ClaimEntry) -> int:
    """The hand's jackpot rake: 10% of the pot at the claim's table cap for its blind level,
    under the room's maximum (a bad beat is decided on a full board: the flop was dealt)."""
    bb = entry.big_blind_cents
    try:
        caps = FundSettings(room_max_rake_cents=entry.room_max_jackpot_rake_cents,
                            caps_by_big_blind=((bb, entry.table_jackpot_rake_cap_cents),))
        return jackpot_rake_cents(entry.pot_cents, flop_dealt=True, big_blind_cents=bb,
                                  settings=caps)
    except ValueError as exc:
        raise FormError(f"case {case_id}: the claim's jackpot rake caps: {exc}") from None


def _request_before_approval(s: Session, case: BbjCase, *, casino: str, operator: str,
                             tz: ZoneInfo, rules: BbjSettings | None,
                             day_starts: time | None = None) -> AwardingRequest:
    """TGD-1500 filed before the approval (it is due within 24 hours of the hit; the award is
    written in the fund only at approval): the stored claim decided on the fund as it stands
    for the hit, exactly as the approval will decide it, so the hit's day must be posted (the
    prize includes the day's collections, RULES.md 6)."""
    if not case.qualifies:
        raise FormError(f"case {case.id} does not qualify: there is no award to request")
    day = gaming_day_of(case.hit_at, tz, day_starts) if day_starts is not None else None
    main_reserve, posted = hit_funds_read(s, case.fund_id, case.hit_at, day)
    if not posted:
        raise FormError(f"case {case.id}: the hit's day is not counted and posted yet; the "
                        "request states the prize with the day's collections (RULES.md 6): "
                        "count and post the day first")
    entry = entry_from_json(case.claim)
    claim = entry.claim(main_reserve.main_cents, main_reserve.reserve_cents)
    try:
        decision = decide(claim, rules)
    except ValueError as exc:  # e.g. a tie under the refuse policy
        raise FormError(f"case {case.id}: {exc}") from None
    stored = [int(sh["seat"]) for sh in case.decision.get("shares", [])]
    if not decision.qualifies or [sh.seat for sh in decision.shares] != stored:
        raise FormError(f"case {case.id}: the claim decided again does not pay the same seats "
                        "as when the case was opened")
    req = forms.awarding_request(decision, claim, entry.names, casino=casino, operator=operator,
                           table=case.table_name, hit_at=_local(case.hit_at, tz),
                           small_blind_cents=_small_blind(entry),
                           jackpot_rake_cents=_hand_rake(case.id, entry))
    return replace(req, reference=f"case {case.id} (before approval)", notes=(
        *_blind_note(entry),
        "Prepared before approval on the fund as posted for the hit; the award is written in "
        "the fund when the request is approved, with these figures."))


# --------------------------------------------------------------------------------------
# TGD-108


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
    with _reading(engine) as s:
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
            BbjCaseEvent.created_at >= _utc_start(first, tz),
            BbjCaseEvent.created_at < _utc_start(end, tz)).order_by(BbjCaseEvent.id)).all()
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
                paid_on=_local(ev.created_at, tz).date(),
                reference=f"{_reference(case.id, award_id)} seat {ev.seat}",
                payee=name or f"seat {ev.seat} (no name in the claim)",
                taxpayer=row.taxpayer, gross_cents=row.gross_cents, tax_cents=row.tax_cents))
    return QuarterlyTax(casino, operator, year, quarter,
                        tuple(MonthFees(m, rake[m.month], fees[m.month], tournaments[m.month])
                              for m in months),
                        tuple(payments), onsite=onsite)


# --------------------------------------------------------------------------------------
# TGD-1540


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
    with _reading(engine) as s:
        fund = _fund(s, fund_id)
        jackpot = f"{fund.name} ({fund.id})"
        c = _cessation(s, fund_id)
        if c is not None:
            done = _local(c.created_at, tz).date()
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
                dest = _fund(s, c.to_fund_id)
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
            hit_on = _local(award.hit_at, tz).date()
            n = notice_at_cessation(s, fund_id, "cease_once_hit", c.created_at)
            return TransferCessation(
                casino, operator, jackpot, "cease", *_notice_dates(n, hit_on),
                seed_cents=c.seed_returned_cents, main_cents=main,
                reserve_cents=c.reserve_cents, completed_on=done, reason=c.reason,
                holidays=hol, hit_on=hit_on, amount_won_cents=award.award_cents,
                award_reference=_reference(award.case_id, award.id))
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
            dest = _fund(s, to_fund_id)
            if _cessation(s, to_fund_id) is not None:
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
    with _reading(engine) as s:
        _fund(s, fund_id)
        rows = s.execute(select(
            BbjDropCount.table_name, func.min(BbjDropCount.business_date),
            func.max(BbjDropCount.business_date),
            func.count(func.distinct(BbjDropCount.business_date)),
            func.sum(BbjDropCount.total_cents)).where(BbjDropCount.fund_id == fund_id)
            .group_by(BbjDropCount.table_name).order_by(BbjDropCount.table_name)).all()
    return tuple(LinkedTable(str(t), first, last, int(days), int(cents))
                 for t, first, last, days, cents in rows)


# --------------------------------------------------------------------------------------
# TGD-1581


def implementation_request(engine: Engine, fund_id: str, effective_on: date, *, casino: str,
                           operator: str, tz: ZoneInfo, holidays: Iterable[date] = (),
                           poker_room: PokerRoomConfig | None = None,
                           filed_at: datetime | None = None) -> ImplementationRequest:
    """TGD-1581 of a fund still open for ``effective_on``: the rules and the fund's settings
    from the floor file's ``[poker_room]`` (``poker_room``; RULES.md's defaults when None), the
    fund from the ledger (its name and id, the seed infused so far, the days posted, main and
    reserve now).  ``filed_at`` (aware) prints the filing as timely or LATE; one received on
    or after ``effective_on`` is refused."""
    room = poker_room or PokerRoomConfig()
    if filed_at is not None and (filed_at.tzinfo is None or filed_at.utcoffset() is None):
        raise FormError(f"filing time {filed_at:%Y-%m-%d %H:%M}: give its time zone")
    with _reading(engine) as s:
        fund = _fund(s, fund_id)
        c = _cessation(s, fund_id)
        if c is not None:
            raise FormError(f"fund {fund_id!r} ceased on {_local(c.created_at, tz).date()} "
                            f"({c.kind}): there is nothing to implement; a new jackpot needs a "
                            "new fund")
        seed = int(s.execute(select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0))
                             .where(BbjEntry.fund_id == fund_id, BbjEntry.kind == "seed"))
                   .scalar_one())
        main, reserve = (int(v) for v in s.execute(select(
            func.coalesce(func.sum(BbjEntry.main_delta_cents), 0),
            func.coalesce(func.sum(BbjEntry.reserve_delta_cents), 0))
            .where(BbjEntry.fund_id == fund_id)).one())
        postings, first = s.execute(select(func.count(BbjPosting.id),
                                           func.min(BbjPosting.business_date))
                                    .where(BbjPosting.fund_id == fund_id)).one()
        return ImplementationRequest(
            casino, operator, f"{fund.name} ({fund.id})", effective_on, tz, room.rules,
            room.fund, seed_cents=seed, main_cents=main, reserve_cents=reserve,
            postings=int(postings), first_posted=first, filed_at=filed_at,
            holidays=tuple(sorted(set(holidays))), room_location=room.room_location)


# --------------------------------------------------------------------------------------
# One request -> HTML


def safe_stem(text: str) -> str:
    """A file stem of letters, digits, ``.``, ``_`` and ``-`` only."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "form"


def render(engine: Engine, request: FormRequest, *, casino: str, operator: str, tz: ZoneInfo,
           holidays: Iterable[date] = (), fund_settings: FundSettings | None = None,
           rules: BbjSettings | None = None,
           poker_room: PokerRoomConfig | None = None,
           money: Currency | None = None,
           day_starts: time | None = None) -> RenderedForm:
    """The form ``request`` asks for, filled from the ledger, as HTML with its title and a
    safe file stem, its amounts written in ``money`` (``FloorConfig.fund_money``; default the
    poker room's currency as ``en_US`` writes it).  ``poker_room`` is the floor file's
    ``[poker_room]`` (the room's location on every form, TGD-1581's rules; its ``fund`` unless
    ``fund_settings`` is given, its ``rules`` (the tie policy of an award decided before
    approval) unless ``rules`` is given).  A missing field of the request is a FormError naming
    it."""
    room = poker_room or PokerRoomConfig()
    with written_in(money or Currency(room.currency, "en_US")):
        return _render(engine, request, casino=casino, operator=operator, tz=tz,
                       holidays=holidays, fund_settings=fund_settings, rules=rules,
                       poker_room=poker_room, day_starts=day_starts)


def _render(engine: Engine, request: FormRequest, *, casino: str, operator: str, tz: ZoneInfo,
            holidays: Iterable[date], fund_settings: FundSettings | None,
            rules: BbjSettings | None, poker_room: PokerRoomConfig | None,
            day_starts: time | None) -> RenderedForm:
    kind = request.kind
    room = poker_room or PokerRoomConfig()
    if fund_settings is None and poker_room is not None:
        fund_settings = poker_room.fund
    if rules is None and poker_room is not None:
        rules = poker_room.rules
    location = room.room_location

    def need(name: str, kind_of: type | tuple[type, ...]) -> object:
        value = getattr(request, name)
        if value is None:
            raise FormError(f"{kind} form: {name} is missing")
        if isinstance(value, bool) or not isinstance(value, kind_of) or (
                kind_of is date and isinstance(value, datetime)):
            raise FormError(f"{kind} form: {name} {value!r} is not a "
                            f"{getattr(kind_of, '__name__', 'value')}")
        return value

    if kind == "daily":
        fund_id, day = str(need("fund_id", str)), need("business_date", date)
        assert isinstance(day, date)
        report = replace(daily_report(engine, fund_id, day, onsite=request.onsite,
                                      casino=casino, settings=fund_settings,
                                      operator=operator, tz=tz), room_location=location)
        return RenderedForm(f"{report.form} daily report {day} - fund {fund_id}",
                            safe_stem(f"{report.form}_{fund_id}_{day}"),
                            daily_report_html(report))
    if kind == "award":
        case_id = need("case_id", int)
        assert isinstance(case_id, int)
        req = replace(awarding_request(engine, case_id, casino=casino, operator=operator,
                                       tz=tz, rules=rules, day_starts=day_starts),
                      room_location=location)
        return RenderedForm(f"TGD-1500 awarding request case {case_id}",
                            safe_stem(f"TGD-1500_case-{case_id}"), awarding_request_html(req))
    if kind == "quarterly":
        year, quarter = need("year", int), need("quarter", int)
        assert isinstance(year, int) and isinstance(quarter, int)
        q = replace(quarterly_tax(engine, year, quarter, casino=casino, operator=operator,
                                  tz=tz, onsite=request.onsite), room_location=location)
        where = "onsite" if q.onsite else "offsite"
        return RenderedForm(f"TGD-108 quarterly tax Q{quarter} {year} ({where})",
                            safe_stem(f"TGD-108_{year}-Q{quarter}"), quarterly_tax_html(q))
    if kind == "cessation":
        fund_id = str(need("fund_id", str))
        t = transfer_cessation(engine, fund_id, casino=casino, operator=operator, tz=tz,
                               holidays=holidays, to_fund_id=request.to_fund_id,
                               effective_on=request.effective_on)
        t = replace(t, room_location=location, linked_tables=linked_tables(engine, fund_id))
        part = "" if t.completed_on else " part 1"
        return RenderedForm(f"TGD-1540 transfer/cessation{part} - fund {fund_id}",
                            safe_stem(f"TGD-1540_{fund_id}" + ("" if t.completed_on
                                                               else "_part1")),
                            transfer_cessation_html(t))
    if kind == "implementation":
        fund_id = str(need("fund_id", str))
        effective = need("effective_on", date)
        assert isinstance(effective, date)
        filed = request.filed_at
        if filed is not None and not isinstance(filed, datetime):
            raise FormError(f"implementation form: filed_at {filed!r} is not a datetime")
        r = implementation_request(engine, fund_id, effective, casino=casino,
                                   operator=operator, tz=tz, holidays=holidays,
                                   poker_room=replace(room, fund=fund_settings or room.fund),
                                   filed_at=filed)
        return RenderedForm(f"TGD-1581 implementation request {effective} - fund {fund_id}",
                            safe_stem(f"TGD-1581_{fund_id}_{effective}"),
                            implementation_request_html(r))
    if kind == "forfeiture":
        from printing.pages.closure_form import forfeiture_html, forfeiture_report

        fund_id = str(need("fund_id", str))
        f = forfeiture_report(engine, fund_id, casino=casino, operator=operator, tz=tz)
        return RenderedForm(f"Forfeiture on closure - fund {fund_id}",
                            safe_stem(f"BBJ-forfeiture_{fund_id}"), forfeiture_html(f))
    raise FormError(f"form kind {kind!r} is not one of {', '.join(FORM_KINDS)}")


__all__ = ["FORM_KINDS", "FormRequest", "RenderedForm", "awarding_request", "daily_report",
           "implementation_request", "linked_tables", "quarterly_tax", "render", "safe_stem",
           "transfer_cessation"]
