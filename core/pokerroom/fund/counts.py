"""The Bad Beat Jackpot fund's DAILY COUNT and its posting (RULES.md section 6, "Funding";
docs/bbj.md "The fund").

* :func:`jackpot_rake_cents`: the jackpot rake of one hand (10% of the pot, capped, "no flop, no
  drop").  Computing only: the money that matters is the daily count.
* :func:`record_count`: one drop box counted (date, table, box, opened/closed, dealer, chip pieces
  per denomination) -> ``bbj_drop_counts``.
* :func:`post_day`: the day's jackpot rake -> 30% admin fee to the operator, 70% to the fund split
  70% main / 30% reserve (:func:`distribute`: no centavo created or lost) -> a ``bbj_postings``
  row (previous, the day's collection, updated) and its ``collection`` entry.
* :func:`record_tournament_fee_in`: the house's tournament fees of a day (not fund money).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.kernel.money import CENTS_PER_MAJOR, format_cents
from core.ledger.models import BbjDropCount, BbjPosting, PokerTournamentFee
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

DENOMINATIONS: tuple[int, ...] = (500, 100, 50, 25, 10)  # jackpot drop-box chips, pesos


def _floor(cents: int, rate: Decimal) -> int:
    num, den = rate.as_integer_ratio()
    return cents * num // den


@dataclass(frozen=True)
class FundSettings:
    """What RULES.md section 6 "Funding" leaves to the operator, with the RULES.md defaults."""

    rake_rate: Decimal = Decimal("0.10")  # of each eligible pot
    room_max_rake_cents: int = 10_000  # 100 pesos per hand
    # Lower caps by blind level: (big blind in centavos, cap in centavos); an unlisted big blind
    # takes the room maximum.
    caps_by_big_blind: tuple[tuple[int, int], ...] = ()
    admin_fee_rate: Decimal = Decimal("0.30")  # of the day's jackpot rake, to the operator
    main_rate: Decimal = Decimal("0.70")  # of what goes to the fund; the reserve gets the rest
    denominations: tuple[int, ...] = DENOMINATIONS  # chip values in pesos

    def __post_init__(self) -> None:
        for name in ("rake_rate", "admin_fee_rate", "main_rate"):
            rate = getattr(self, name)
            if not isinstance(rate, Decimal) or not rate.is_finite() or not 0 <= rate <= 1:
                raise BbjFundError(f"{name}: {rate!r} must be a Decimal between 0 and 1")
        if self.room_max_rake_cents <= 0:
            raise BbjFundError("room_max_rake_cents: must be more than 0.00")
        blinds: set[int] = set()
        for big_blind, cap in self.caps_by_big_blind:
            if big_blind <= 0 or big_blind in blinds:
                raise BbjFundError(f"caps_by_big_blind: big blind {big_blind} is not positive "
                                   "or listed twice")
            if not 0 < cap <= self.room_max_rake_cents:
                room = format_cents(self.room_max_rake_cents)
                raise BbjFundError(f"caps_by_big_blind: the cap {format_cents(cap)} for big blind "
                                   f"{format_cents(big_blind)} must be more than 0.00 and at "
                                   f"most the room maximum {room}")
            blinds.add(big_blind)
        if not self.denominations or any(d <= 0 for d in self.denominations) \
                or len(set(self.denominations)) != len(self.denominations):
            raise BbjFundError("denominations: must be distinct positive peso values")

    def rake_cap_cents(self, big_blind_cents: int) -> int:
        """The jackpot rake cap per hand at this blind level (the table's cap for payouts)."""
        return dict(self.caps_by_big_blind).get(big_blind_cents, self.room_max_rake_cents)


def jackpot_rake_cents(pot_cents: int, *, flop_dealt: bool, big_blind_cents: int,
                       settings: FundSettings | None = None) -> int:
    """One hand's jackpot rake: ``rake_rate`` of the pot rounded DOWN to the centavo, at most the
    blind level's cap; 0 when no flop was dealt ("no flop, no drop").  Taken once per hand."""
    s = settings or FundSettings()
    if pot_cents < 0:
        raise BbjFundError(f"pot: {format_cents(pot_cents)} is negative")
    if not flop_dealt:
        return 0
    return min(_floor(pot_cents, s.rake_rate), s.rake_cap_cents(big_blind_cents))


@dataclass(frozen=True)
class Distribution:
    """A day's jackpot rake split.  Rounding: the admin fee and the main part round DOWN, the
    reserve takes the rest, so fee + main + reserve == collection exactly."""

    collection_cents: int
    admin_fee_cents: int
    to_main_cents: int
    to_reserve_cents: int


def distribute(collection_cents: int, settings: FundSettings | None = None) -> Distribution:
    s = settings or FundSettings()
    if collection_cents < 0:
        raise BbjFundError(f"collection: {format_cents(collection_cents)} is negative")
    fee = _floor(collection_cents, s.admin_fee_rate)
    to_fund = collection_cents - fee
    to_main = _floor(to_fund, s.main_rate)
    return Distribution(collection_cents, fee, to_main, to_fund - to_main)


@dataclass(frozen=True)
class Posting:
    posting_id: int
    business_date: date
    previous: Funds
    distribution: Distribution
    updated: Funds


def posting_settings(posting: BbjPosting, base: FundSettings | None = None) -> FundSettings:
    """The rates a posting was made at (``base`` with them; a posting from before ledger
    revision 0008 has none recorded: it was made at the RULES.md defaults)."""
    st = base or FundSettings()
    return replace(st, admin_fee_rate=Decimal(posting.admin_fee_rate or "0.30"),
                   main_rate=Decimal(posting.main_rate or "0.70"))


def record_count(engine: Engine, fund_id: str, *, business_date: date, table: str,
                 drop_box: str, opened_at: datetime, closed_at: datetime, dealer: str,
                 pieces: Mapping[int, int], by: str, settings: FundSettings | None = None,
                 rake_box: str = "", rake_cents: int = 0, at: datetime | None = None) -> int:
    """One jackpot drop box counted: chip ``pieces`` per denomination (pesos); the row id.
    ``rake_box`` / ``rake_cents``: the same table's house rake drop box and its amount, counted
    with it (the daily report's rake; not fund money).  A date already posted is closed: a
    late count is refused."""
    now = moment(at)
    with Session(engine) as s, s.begin():
        return record_count_in(s, fund_id, business_date=business_date, table=table,
                               drop_box=drop_box, opened_at=opened_at, closed_at=closed_at,
                               dealer=dealer, pieces=pieces, by=by, settings=settings,
                               rake_box=rake_box, rake_cents=rake_cents, now=now)


def record_count_in(s: Session, fund_id: str, *, business_date: date, table: str,
                    drop_box: str, opened_at: datetime, closed_at: datetime, dealer: str,
                    pieces: Mapping[int, int], by: str, now: datetime,
                    settings: FundSettings | None = None, rake_box: str = "",
                    rake_cents: int = 0) -> int:
    """:func:`record_count` inside the caller's open transaction (with a supervisor's swipe:
    ``core.pokerroom.cases.record_count``)."""
    st = settings or FundSettings()
    if not isinstance(business_date, date) or isinstance(business_date, datetime):
        raise BbjFundError(f"business date: {business_date!r} must be a date")
    opened, closed = aware(opened_at, "opened"), aware(closed_at, "closed")
    if closed < opened:
        raise BbjFundError(f"table {table}: closed {closed:%H:%M} before it opened "
                           f"{opened:%H:%M}")
    total = 0
    clean: dict[str, int] = {}
    for denom, count in pieces.items():
        if denom not in st.denominations:
            raise BbjFundError(f"pieces: {denom!r} is not a chip denomination (use "
                               f"{', '.join(str(d) for d in st.denominations)})")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise BbjFundError(f"pieces of {denom}: {count!r} must be a whole number, 0 or more")
        clean[str(denom)] = count
        total += denom * CENTS_PER_MAJOR * count
    tbl, box = required_text(table, "table"), required_text(drop_box, "drop box")
    if isinstance(rake_cents, bool) or not isinstance(rake_cents, int) or rake_cents < 0:
        raise BbjFundError(f"table {tbl}: house rake {rake_cents!r} must be whole centavos, "
                           "0 or more")
    if not isinstance(rake_box, str):
        raise BbjFundError(f"table {tbl}: rake drop box {rake_box!r} must be text")
    if rake_cents and not rake_box.strip():
        raise BbjFundError(f"table {tbl}: a house rake needs its rake drop box number")
    now = aware(now, "time")
    fund_row(s, fund_id)
    if s.execute(select(BbjPosting.id).where(BbjPosting.fund_id == fund_id,
                                             BbjPosting.business_date == business_date)) \
            .first() is not None:
        raise BbjFundError(f"{business_date}: the day is already posted; a late count "
                           "can not change it")
    if s.execute(select(BbjDropCount.id).where(
            BbjDropCount.fund_id == fund_id, BbjDropCount.business_date == business_date,
            BbjDropCount.table_name == tbl, BbjDropCount.drop_box == box)).first():
        raise BbjFundError(f"{business_date}: table {tbl} drop box {box} is already counted")
    row = BbjDropCount(fund_id=fund_id, business_date=business_date, table_name=tbl,
                       drop_box=box, opened_at=opened, closed_at=closed,
                       dealer=required_text(dealer, "dealer"), pieces=clean, total_cents=total,
                       rake_box=rake_box.strip(), rake_cents=rake_cents,
                       recorded_by=required_text(by, "recorded by"), created_at=now)
    s.add(row)
    s.flush()
    return row.id


def post_day(engine: Engine, fund_id: str, business_date: date, *, by: str,
             settings: FundSettings | None = None, at: datetime | None = None) -> Posting:
    """Post the updated jackpot after the day's count: the posting row (previous, the day's
    collection, admin fee, main and reserve parts, updated) and its ``collection`` entry, in one
    transaction.  The collection is effective from the day's first table opening."""
    now = moment(at)
    with Session(engine) as s, s.begin():
        return post_day_in(s, fund_id, business_date, by=by, settings=settings, now=now)


def post_day_in(s: Session, fund_id: str, business_date: date, *, by: str, now: datetime,
                settings: FundSettings | None = None) -> Posting:
    """:func:`post_day` inside the caller's open transaction (with a supervisor's swipe:
    ``core.pokerroom.cases.post_day``)."""
    st = settings or FundSettings()
    now = aware(now, "time")
    who = required_text(by, "recorded by")
    fund_row(s, fund_id)
    counts = list(s.execute(select(BbjDropCount).where(
        BbjDropCount.fund_id == fund_id,
        BbjDropCount.business_date == business_date)).scalars())
    if not counts:
        raise BbjFundError(f"{business_date}: no drop box counted for fund {fund_id!r}")
    posted = s.execute(select(func.max(BbjPosting.business_date))
                       .where(BbjPosting.fund_id == fund_id)).scalar()
    if posted is not None and posted >= business_date:
        raise BbjFundError(f"{business_date}: fund {fund_id!r} is already posted up to "
                           f"{posted}")
    previous = balance(s, fund_id)
    d = distribute(sum(c.total_cents for c in counts), st)
    updated = Funds(previous.main_cents + d.to_main_cents,
                    previous.reserve_cents + d.to_reserve_cents)
    effective = min(c.opened_at for c in counts)
    p = BbjPosting(fund_id=fund_id, business_date=business_date,
                   previous_main_cents=previous.main_cents,
                   previous_reserve_cents=previous.reserve_cents,
                   collection_cents=d.collection_cents, admin_fee_cents=d.admin_fee_cents,
                   to_main_cents=d.to_main_cents, to_reserve_cents=d.to_reserve_cents,
                   main_cents=updated.main_cents, reserve_cents=updated.reserve_cents,
                   effective_at=effective,
                   last_closed_at=max(c.closed_at for c in counts),
                   admin_fee_rate=str(st.admin_fee_rate), main_rate=str(st.main_rate),
                   recorded_by=who, created_at=now)
    s.add(p)
    s.flush()
    add_entry(s, fund_id, "collection", d.to_main_cents, d.to_reserve_cents, by=who,
           reason=f"jackpot rake of {business_date}: {format_cents(d.collection_cents)}, "
                  f"admin fee {format_cents(d.admin_fee_cents)}",
           effective_at=effective, created_at=now, posting_id=p.id)
    return Posting(p.id, business_date, previous, d, updated)


def record_tournament_fee_in(s: Session, *, business_date: date, tournament: str,
                             fee_cents: int, by: str, now: datetime, reason: str = "") -> int:
    """The house's entry fees kept from one poker tournament on a gaming day (TGD-1623 C,
    TGD-108), in the caller's transaction; the row id.  Not fund money.  A correction is a
    negative fee with its reason (nothing is changed in place); the day's fees may not go
    below 0."""
    if not isinstance(business_date, date) or isinstance(business_date, datetime):
        raise BbjFundError(f"business date: {business_date!r} must be a date")
    name = required_text(tournament, "tournament")
    if isinstance(fee_cents, bool) or not isinstance(fee_cents, int) or fee_cents == 0:
        raise BbjFundError(f"tournament {name}: fee {fee_cents!r} must be whole centavos, "
                           "not 0")
    why = reason.strip() if isinstance(reason, str) else ""
    if fee_cents < 0:
        if not why:
            raise BbjFundError(f"tournament {name}: a correction (negative fee) needs its "
                               "reason")
        day = s.execute(select(func.coalesce(func.sum(PokerTournamentFee.fee_cents), 0))
                        .where(PokerTournamentFee.business_date == business_date)).scalar_one()
        if int(day) + fee_cents < 0:
            raise BbjFundError(f"tournament {name}: a correction of "
                               f"{format_cents(-fee_cents)} is more than the "
                               f"{format_cents(int(day))} recorded on {business_date}")
    row = PokerTournamentFee(business_date=business_date, tournament=name, fee_cents=fee_cents,
                             reason=why, recorded_by=required_text(by, "recorded by"),
                             created_at=aware(now, "time"))
    s.add(row)
    s.flush()
    return row.id
