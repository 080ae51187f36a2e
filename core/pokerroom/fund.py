"""The poker room's Bad Beat Jackpot FUND in the ledger (RULES.md section 6, "Funding" and
"Payout"; TGD-1540 for cessation).  docs/bbj.md "The fund" explains the choices.

* :func:`jackpot_rake_cents`: the jackpot rake of one hand (10% of the pot, capped, "no flop, no
  drop").  Computing only: the money that matters is the daily count.
* :func:`record_count`: one drop box counted (date, table, box, opened/closed, dealer, chip pieces
  per denomination) -> ``bbj_drop_counts``.
* :func:`post_day`: the day's jackpot rake -> 30% admin fee to the operator, 70% to the fund split
  70% main / 30% reserve (:func:`distribute`: no centavo created or lost) -> a ``bbj_postings``
  row (previous, the day's collection, updated) and its ``collection`` entry.
* :func:`seed`: operator seed money (recorded and reported: :func:`seed_infusions`).
* :func:`amount_for_hit`: main and reserve for a hit at a given moment; the day's collections
  count from the day's first table opening, so a hit before the day's posting is paid on the
  UPDATED amount.
* :func:`record_award`: a qualifying ``core.pokerroom.rules.bbj.Decision`` paid: award, every
share, the
  ``award`` and ``reserve_move`` entries, in one transaction.  :func:`record_award_in` and
  :func:`amount_for_hit_in` do the same inside the caller's open Session (a case's approval,
  core/pokerroom/cases.py, writes the award in its own transaction).
* :func:`cease_by_transfer` and ``record_award(..., cease=True)``: TGD-1540.
* :func:`forfeit_on_closure`: the poker room closes for good; the whole balance (main, its seed
  included, and reserve) is forfeited in favour of PAGCOR.
* Cessation notices (:func:`give_notice_in`, :func:`players_told_in`,
  :func:`withdraw_notice_in`, :func:`notices`, :func:`notice_deadlines`): TGD-1540 part 1;
  while a ``cease_once_hit`` notice holds, the fund's next award MUST cease it.

A fund's main and reserve are ALWAYS the sums of its ``bbj_entries`` (centavos); every write is
one transaction holding the fund row (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` serializes writers).  Nothing is updated in place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from sqlalchemy import Engine, func, or_, select
from sqlalchemy.orm import Session

from core.kernel.money import CENTS_PER_MAJOR, format_cents
from core.ledger.db import lock_record
from core.ledger.models import (
    BbjAward,
    BbjAwardShare,
    BbjCase,
    BbjCaseEvent,
    BbjCessation,
    BbjCessationNotice,
    BbjDropCount,
    BbjEntry,
    BbjFund,
    BbjPosting,
    PokerTournamentFee,
)
from core.pokerroom.business_days import add_business_days
from core.pokerroom.rules.bbj import Decision

DENOMINATIONS: tuple[int, ...] = (500, 100, 50, 25, 10)  # jackpot drop-box chips, pesos
ENTRY_KINDS: tuple[str, ...] = ("seed", "collection", "award", "reserve_move", "cessation_merge",
                                "seed_return", "transfer_out", "transfer_in", "award_void",
                                "forfeiture")
CESSATION_KINDS: tuple[str, ...] = ("transfer", "after_hit", "forfeiture")
NOTICE_KINDS: tuple[str, ...] = ("cease_once_hit", "transfer", "closure")
NOTICE_FOLLOW_UPS: tuple[str, ...] = ("players_told", "withdrawn")
NOTICE_TEXT: dict[str, str] = {"cease_once_hit": "ceases once hit", "transfer": "transfer",
                               "closure": "closure of the poker room"}
PART1_BUSINESS_DAYS = 14  # TGD-1540: notice (part 1) 14 business days before
PLAYERS_DAYS = 7  # players told 7 (calendar) days ahead
PART2_BUSINESS_DAYS = 2  # part 2 within 2 business days after


class BbjFundError(ValueError):
    """A fund operation refused; the message names the thing and the problem."""


def _fraction(rate: Decimal) -> Fraction:
    return Fraction(*rate.as_integer_ratio())


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
class Funds:
    main_cents: int
    reserve_cents: int

    @property
    def total_cents(self) -> int:
        return self.main_cents + self.reserve_cents


@dataclass(frozen=True)
class Posting:
    posting_id: int
    business_date: date
    previous: Funds
    distribution: Distribution
    updated: Funds


def _now(at: datetime | None) -> datetime:
    if at is None:
        return datetime.now(UTC)
    return _aware(at, "time")


def _aware(at: datetime, what: str) -> datetime:
    if not isinstance(at, datetime) or at.tzinfo is None:
        raise BbjFundError(f"{what}: {at!r} must be a timezone-aware datetime")
    return at.astimezone(UTC)


def _text(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BbjFundError(f"{what}: must not be empty")
    return value.strip()


def _fund(s: Session, fund_id: str, *, open_: bool = True) -> BbjFund:
    """The fund row, locked for the transaction; ``open_``: refuse a ceased fund."""
    lock_record(s, "bbj_funds", fund_id)
    fund = s.execute(select(BbjFund).where(BbjFund.id == fund_id)).scalar_one_or_none()
    if fund is None:
        raise BbjFundError(f"fund {fund_id!r} does not exist")
    if open_:
        c = s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
            .scalar_one_or_none()
        if c is not None:
            raise BbjFundError(f"fund {fund_id!r} has ceased ({_ceased_words(c)}, TGD-1540): "
                               "nothing more can be recorded on it")
    return fund


def _ceased_words(c: BbjCessation) -> str:
    """How a fund ceased, in words (for a refusal)."""
    if c.kind == "forfeiture":
        return f"forfeited to PAGCOR on {c.created_at:%Y-%m-%d}, the poker room closed " \
               f"on {c.closed_on}"
    if c.kind == "transfer":
        return f"transferred to fund {c.to_fund_id!r} on {c.created_at:%Y-%m-%d}"
    return f"ceased once hit, award {c.award_id}"


def open_fund(s: Session, fund_id: str) -> BbjFund:
    """The fund row locked for the caller's transaction; BbjFundError for an unknown fund or
    one that has ceased (TGD-1540: it takes nothing more)."""
    return _fund(s, fund_id)


def _sums(s: Session, fund_id: str, at: datetime | None = None,
          day: date | None = None) -> Funds:
    """Main and reserve: every entry (``at``: effective at or before it; ``day``, the gaming
    day of a hit at ``at``: also the collections posted for that day or before, RULES.md 6:
    a hit before its day is posted is paid on the updated amount)."""
    q = select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0),
               func.coalesce(func.sum(BbjEntry.reserve_delta_cents), 0)) \
        .where(BbjEntry.fund_id == fund_id)
    if at is not None and day is not None:
        posted = select(BbjPosting.id).where(BbjPosting.fund_id == fund_id,
                                             BbjPosting.business_date <= day)
        q = q.where(or_(BbjEntry.effective_at <= at, BbjEntry.posting_id.in_(posted)))
    elif at is not None:
        q = q.where(BbjEntry.effective_at <= at)
    main, reserve = s.execute(q).one()
    return Funds(int(main), int(reserve))


def _entry(s: Session, fund_id: str, kind: str, main: int, reserve: int, *, by: str,
           reason: str, effective_at: datetime, created_at: datetime,
           posting_id: int | None = None, award_id: int | None = None,
           cessation_id: int | None = None) -> BbjEntry:
    assert kind in ENTRY_KINDS
    e = BbjEntry(fund_id=fund_id, kind=kind, main_delta_cents=main, reserve_delta_cents=reserve,
                 posting_id=posting_id, award_id=award_id, cessation_id=cessation_id,
                 reason=reason, recorded_by=by, effective_at=effective_at,
                 created_at=created_at)
    s.add(e)
    return e


def create_fund(engine: Engine, fund_id: str, name: str, *, at: datetime | None = None) -> None:
    fid = _text(fund_id, "fund id")
    with Session(engine) as s, s.begin():
        if s.get(BbjFund, fid) is not None:
            raise BbjFundError(f"fund {fid!r} already exists")
        s.add(BbjFund(id=fid, name=_text(name, "fund name"), created_at=_now(at)))


def funds(engine: Engine, fund_id: str) -> Funds:
    """Main and reserve now: the sums of every entry of the fund."""
    with Session(engine) as s:
        _fund(s, fund_id, open_=False)
        return _sums(s, fund_id)


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
    hit_at = _aware(at, "hit time")
    _fund(s, fund_id, open_=False)
    f = _sums(s, fund_id, hit_at, day)
    return Funds(f.total_cents, 0) if ceasing else f


def posting_settings(posting: BbjPosting, base: FundSettings | None = None) -> FundSettings:
    """The rates a posting was made at (``base`` with them; a posting from before ledger
    revision 0008 has none recorded: it was made at the RULES.md defaults)."""
    st = base or FundSettings()
    return replace(st, admin_fee_rate=Decimal(posting.admin_fee_rate or "0.30"),
                   main_rate=Decimal(posting.main_rate or "0.70"))


def hit_funds_read(s: Session, fund_id: str, at: datetime,
                   day: date | None = None) -> tuple[Funds, bool]:
    """Read only (no lock, for reports): the main and reserve a hit at ``at`` is paid on (as
    :func:`amount_for_hit`) and whether the hit's day is posted (the condition of
    :func:`record_award`)."""
    when = _aware(at, "hit time")
    return _sums(s, fund_id, when, day), _hit_day_posted(s, fund_id, when, day)


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


def seed(engine: Engine, fund_id: str, amount_cents: int, *, by: str, reason: str,
         at: datetime | None = None) -> int:
    """Operator seed money into MAIN (reported by :func:`seed_infusions`); the entry id."""
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise BbjFundError(f"seed: {amount_cents!r} must be a positive amount in centavos")
    now = _now(at)
    with Session(engine) as s, s.begin():
        _fund(s, fund_id)
        e = _entry(s, fund_id, "seed", amount_cents, 0, by=_text(by, "recorded by"),
                   reason=_text(reason, "reason"), effective_at=now, created_at=now)
        s.flush()
        return e.id


def seed_infusions(engine: Engine, fund_id: str) -> list[tuple[datetime, int, str, str]]:
    """Every seed infusion: (time, centavos, by, reason), oldest first."""
    with Session(engine) as s:
        rows = s.execute(select(BbjEntry).where(BbjEntry.fund_id == fund_id,
                                                BbjEntry.kind == "seed")
                         .order_by(BbjEntry.id)).scalars()
        return [(e.effective_at, e.main_delta_cents, e.recorded_by, e.reason) for e in rows]


def record_count(engine: Engine, fund_id: str, *, business_date: date, table: str,
                 drop_box: str, opened_at: datetime, closed_at: datetime, dealer: str,
                 pieces: Mapping[int, int], by: str, settings: FundSettings | None = None,
                 rake_box: str = "", rake_cents: int = 0, at: datetime | None = None) -> int:
    """One jackpot drop box counted: chip ``pieces`` per denomination (pesos); the row id.
    ``rake_box`` / ``rake_cents``: the same table's house rake drop box and its amount, counted
    with it (the daily report's rake; not fund money).  A date already posted is closed: a
    late count is refused."""
    now = _now(at)
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
    opened, closed = _aware(opened_at, "opened"), _aware(closed_at, "closed")
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
    tbl, box = _text(table, "table"), _text(drop_box, "drop box")
    if isinstance(rake_cents, bool) or not isinstance(rake_cents, int) or rake_cents < 0:
        raise BbjFundError(f"table {tbl}: house rake {rake_cents!r} must be whole centavos, "
                           "0 or more")
    if not isinstance(rake_box, str):
        raise BbjFundError(f"table {tbl}: rake drop box {rake_box!r} must be text")
    if rake_cents and not rake_box.strip():
        raise BbjFundError(f"table {tbl}: a house rake needs its rake drop box number")
    now = _aware(now, "time")
    _fund(s, fund_id)
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
                       dealer=_text(dealer, "dealer"), pieces=clean, total_cents=total,
                       rake_box=rake_box.strip(), rake_cents=rake_cents,
                       recorded_by=_text(by, "recorded by"), created_at=now)
    s.add(row)
    s.flush()
    return row.id


def post_day(engine: Engine, fund_id: str, business_date: date, *, by: str,
             settings: FundSettings | None = None, at: datetime | None = None) -> Posting:
    """Post the updated jackpot after the day's count: the posting row (previous, the day's
    collection, admin fee, main and reserve parts, updated) and its ``collection`` entry, in one
    transaction.  The collection is effective from the day's first table opening."""
    now = _now(at)
    with Session(engine) as s, s.begin():
        return post_day_in(s, fund_id, business_date, by=by, settings=settings, now=now)


def post_day_in(s: Session, fund_id: str, business_date: date, *, by: str, now: datetime,
                settings: FundSettings | None = None) -> Posting:
    """:func:`post_day` inside the caller's open transaction (with a supervisor's swipe:
    ``core.pokerroom.cases.post_day``)."""
    st = settings or FundSettings()
    now = _aware(now, "time")
    who = _text(by, "recorded by")
    _fund(s, fund_id)
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
    previous = _sums(s, fund_id)
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
    _entry(s, fund_id, "collection", d.to_main_cents, d.to_reserve_cents, by=who,
           reason=f"jackpot rake of {business_date}: {format_cents(d.collection_cents)}, "
                  f"admin fee {format_cents(d.admin_fee_cents)}",
           effective_at=effective, created_at=now, posting_id=p.id)
    return Posting(p.id, business_date, previous, d, updated)


def record_award(engine: Engine, fund_id: str, decision: Decision, *, hit_at: datetime,
                 table: str, by: str, cease: bool = False, at: datetime | None = None,
                 hit_day: date | None = None) -> int:
    """Pay a qualifying decision from the fund; the award id.  The decision must have been made
    on :func:`amount_for_hit` (same ``cease``); the hit's day must be posted.  One transaction:
    the award, a row per share, the ``award`` entry (main - the shares paid: the leftover
    centavos stay) and the ``reserve_move`` entry (reserve x fraction up into main).  ``cease``:
    TGD-1540 cessation once hit, the reserve first added to main (a ``cessation_merge`` entry)
    and a ``bbj_cessations`` row; the fund takes nothing more afterwards."""
    now = _now(at)
    with Session(engine) as s, s.begin():
        return record_award_in(s, fund_id, decision, hit_at=hit_at, table=table, by=by,
                               cease=cease, now=now, hit_day=hit_day)


def record_award_in(s: Session, fund_id: str, decision: Decision, *, hit_at: datetime,
                    table: str, by: str, now: datetime, cease: bool = False,
                    case_id: int | None = None, hit_day: date | None = None) -> int:
    """:func:`record_award` inside the caller's open transaction (the caller commits, or rolls
    back everything on a refusal): a case's approval and its award are one transaction
    (core/pokerroom/cases.py, which gives its ``case_id``).  The one implementation of the award;
    the award id.  ``hit_day``: the hit's gaming day (the casino's), which must be posted."""
    if not decision.qualifies:
        raise BbjFundError("award: the claim does not qualify (" +
                           ", ".join(decision.reasons) + "); nothing is paid")
    when = _aware(hit_at, "hit time")
    now = _aware(now, "time")
    who = _text(by, "recorded by")
    tbl = _text(table, "table")
    _fund(s, fund_id)
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
    stood = _sums(s, fund_id, when, hit_day)
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
        _entry(s, fund_id, "cessation_merge", stood.reserve_cents, -stood.reserve_cents,
               by=who, reason="TGD-1540: reserve added to the main amount won",
               effective_at=when, created_at=now, award_id=award.id,
               cessation_id=cessation_id)
    _entry(s, fund_id, "award", -paid, 0, by=who,
           reason=f"bad beat at table {tbl}: award {format_cents(decision.award_cents)}, "
                  f"paid {format_cents(paid)}", effective_at=when, created_at=now,
           award_id=award.id)
    _entry(s, fund_id, "reserve_move", moved, -moved, by=who,
           reason=f"reserve x {fr} up into main", effective_at=when, created_at=now,
           award_id=award.id)
    return award.id


def record_tournament_fee_in(s: Session, *, business_date: date, tournament: str,
                             fee_cents: int, by: str, now: datetime, reason: str = "") -> int:
    """The house's entry fees kept from one poker tournament on a gaming day (TGD-1623 C,
    TGD-108), in the caller's transaction; the row id.  Not fund money.  A correction is a
    negative fee with its reason (nothing is changed in place); the day's fees may not go
    below 0."""
    if not isinstance(business_date, date) or isinstance(business_date, datetime):
        raise BbjFundError(f"business date: {business_date!r} must be a date")
    name = _text(tournament, "tournament")
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
                             reason=why, recorded_by=_text(by, "recorded by"),
                             created_at=_aware(now, "time"))
    s.add(row)
    s.flush()
    return row.id


def void_award_in(s: Session, fund_id: str, award_id: int, *, by: str, reason: str,
                  now: datetime) -> tuple[int, int]:
    """Undo an award that is voided before any share was paid (a case voided after its
    approval), in the caller's transaction: one ``award_void`` entry per entry of the award,
    with the opposite amounts, effective at the hit time, so main and reserve are again what
    they would be without it.  The award and its rows stay (append-only).  Refused for an award
    that ceased the fund, one already voided, or one followed by a later hit on the fund (that
    hit was paid on the amounts after this one).  The (main, reserve) given back."""
    now = _aware(now, "time")
    who, why = _text(by, "recorded by"), _text(reason, "reason")
    _fund(s, fund_id)
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
        _entry(s, fund_id, "award_void", -r.main_delta_cents, -r.reserve_delta_cents, by=who,
               reason=f"award {award_id} voided ({r.kind} undone): {why}",
               effective_at=award.hit_at, created_at=now, award_id=award_id)
        main -= r.main_delta_cents
        reserve -= r.reserve_delta_cents
    return main, reserve


def seed_outstanding_cents(engine: Engine, fund_id: str) -> int:
    """The operator's seed still in the jackpot: the seed infusions since the last hit (a hit
    resets the jackpot), never more than main."""
    with Session(engine) as s:
        _fund(s, fund_id, open_=False)
        return _seed_outstanding(s, fund_id)


def _seed_outstanding(s: Session, fund_id: str) -> int:
    last_hit = s.execute(select(func.max(BbjAward.hit_at))
                         .where(BbjAward.fund_id == fund_id)).scalar()
    q = select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0)).where(
        BbjEntry.fund_id == fund_id, BbjEntry.kind == "seed")
    if last_hit is not None:
        q = q.where(BbjEntry.effective_at > last_hit)
    seeded = int(s.execute(q).scalar_one())
    return max(0, min(seeded, _sums(s, fund_id).main_cents))


def cease_by_transfer(engine: Engine, fund_id: str, to_fund_id: str, *, by: str, reason: str,
                      at: datetime | None = None) -> int:
    """TGD-1540 cessation by transfer; the cessation id.  The seed goes back to the operator if
    the jackpot has not been reset (a ``seed_return`` entry), the increment (main - seed) goes
    to the other fund's main and the reserve to its reserve (``transfer_out`` here,
    ``transfer_in`` there); the source ends at 0 / 0.  Every counted day must be posted."""
    if fund_id == to_fund_id:
        raise BbjFundError("transfer: a fund can not be transferred to itself")
    now = _now(at)
    who, why = _text(by, "recorded by"), _text(reason, "reason")
    with Session(engine) as s, s.begin():
        _fund(s, fund_id)
        _fund(s, to_fund_id)
        posted = select(BbjPosting.business_date).where(BbjPosting.fund_id == fund_id)
        pending = s.execute(select(BbjDropCount.business_date).where(
            BbjDropCount.fund_id == fund_id,
            BbjDropCount.business_date.not_in(posted))).first()
        if pending is not None:
            raise BbjFundError(f"transfer: {pending[0]} is counted but not posted; post it "
                               "first")
        now_funds = _sums(s, fund_id)
        seed_back = _seed_outstanding(s, fund_id)
        increment = now_funds.main_cents - seed_back
        c = BbjCessation(fund_id=fund_id, kind="transfer", to_fund_id=to_fund_id, award_id=None,
                         seed_returned_cents=seed_back, increment_cents=increment,
                         reserve_cents=now_funds.reserve_cents, reason=why, recorded_by=who,
                         created_at=now)
        s.add(c)
        s.flush()
        if seed_back:
            _entry(s, fund_id, "seed_return", -seed_back, 0, by=who,
                   reason="seed back to the operator (jackpot not reset)", effective_at=now,
                   created_at=now, cessation_id=c.id)
        _entry(s, fund_id, "transfer_out", -increment, -now_funds.reserve_cents, by=who,
               reason=f"increment and reserve to fund {to_fund_id}", effective_at=now,
               created_at=now, cessation_id=c.id)
        _entry(s, to_fund_id, "transfer_in", increment, now_funds.reserve_cents, by=who,
               reason=f"increment and reserve from fund {fund_id}", effective_at=now,
               created_at=now, cessation_id=c.id)
        return c.id


# --------------------------------------------------------------------------------------
# Cessation notices (TGD-1540 part 1)


@dataclass(frozen=True)
class Notice:
    """A notice that a fund will cease, with what followed it (``bbj_cessation_notices``)."""

    notice_id: int
    fund_id: str
    kind: str  # cease_once_hit | transfer | closure
    notice_on: date  # TGD-1540 part 1 filed
    effective_on: date | None  # planned; None: not known (a cessation once hit)
    players_told_on: date | None  # from the notice or its ``players_told`` row
    to_fund_id: str | None
    reason: str
    recorded_by: str
    created_at: datetime
    withdrawn_at: datetime | None = None
    withdrawn_by: str = ""
    withdrawn_reason: str = ""

    @property
    def active(self) -> bool:
        return self.withdrawn_at is None

    @property
    def words(self) -> str:
        """e.g. "notice 3 of 2026-12-01: ceases once hit"."""
        what = NOTICE_TEXT[self.kind]
        if self.kind == "transfer" and self.to_fund_id:
            what += f" to fund {self.to_fund_id!r}"
        when = f" on {self.effective_on}" if self.effective_on else ""
        return f"notice {self.notice_id} of {self.notice_on}: {what}{when}"


@dataclass(frozen=True)
class NoticeDeadline:
    """One TGD-1540 deadline of a planned cessation: ``part1`` (the notice, 14 business days
    before the effective date), ``players`` (told 7 calendar days before), ``part2`` (within 2
    business days after).  ``met_on``: the day it was met (None: not yet / not known)."""

    what: str
    due: date
    met_on: date | None

    @property
    def late(self) -> bool:
        return self.met_on is not None and self.met_on > self.due


def notice_deadlines(notice: Notice, holidays: Iterable[date] = ()) -> list[NoticeDeadline]:
    """TGD-1540's deadlines of a notice with a planned effective date (pure): part 1 due 14
    business days before it (met on the notice date), the players' notice 7 calendar days
    before (met when the players were told), part 2 due 2 business days after (met when the
    fund ceased: not known here, None).  A notice without an effective date (a cessation once
    hit: the date of the hit is not known), or withdrawn, has none."""
    if notice.effective_on is None or not notice.active:
        return []
    hol = tuple(holidays)
    eff = notice.effective_on
    return [NoticeDeadline("part1", add_business_days(eff, -PART1_BUSINESS_DAYS, hol),
                           notice.notice_on),
            NoticeDeadline("players", eff - timedelta(days=PLAYERS_DAYS),
                           notice.players_told_on),
            NoticeDeadline("part2", add_business_days(eff, PART2_BUSINESS_DAYS, hol), None)]


def _latest_day(now: datetime) -> date:
    """The latest calendar date anywhere at ``now`` (UTC+14): a date given as "today" or
    earlier may not be after it, whatever the casino's time zone."""
    return (now + timedelta(hours=14)).date()


def _day(value: object, what: str) -> date:
    if not isinstance(value, date) or isinstance(value, datetime):
        raise BbjFundError(f"{what}: {value!r} must be a date")
    return value


def notices_in(s: Session, fund_id: str) -> list[Notice]:
    """Every notice of the fund with what followed it, oldest first (read only)."""
    rows = list(s.execute(select(BbjCessationNotice).where(
        BbjCessationNotice.fund_id == fund_id).order_by(BbjCessationNotice.id)).scalars())
    follow: dict[int, list[BbjCessationNotice]] = {}
    for r in rows:
        if r.refers_to_id is not None:
            follow.setdefault(r.refers_to_id, []).append(r)
    out = []
    for r in rows:
        if r.kind not in NOTICE_KINDS:
            continue
        assert r.notice_on is not None
        told = r.players_told_on
        gone: BbjCessationNotice | None = None
        for f in follow.get(r.id, []):
            if f.kind == "players_told" and told is None:
                told = f.players_told_on
            elif f.kind == "withdrawn" and gone is None:
                gone = f
        out.append(Notice(r.id, r.fund_id, r.kind, r.notice_on, r.effective_on, told,
                          r.to_fund_id, r.reason, r.recorded_by, r.created_at,
                          gone.created_at if gone else None,
                          gone.recorded_by if gone else "", gone.reason if gone else ""))
    return out


def notices(engine: Engine, fund_id: str) -> list[Notice]:
    """Every notice of the fund (withdrawn ones included), oldest first."""
    with Session(engine) as s:
        _fund(s, fund_id, open_=False)
        return notices_in(s, fund_id)


def active_notice_in(s: Session, fund_id: str) -> Notice | None:
    """The notice that holds now (not withdrawn; at most one), or None."""
    return next((n for n in reversed(notices_in(s, fund_id)) if n.active), None)


def notice_at_cessation(s: Session, fund_id: str, kind: str, at: datetime) -> Notice | None:
    """The notice of ``kind`` that held when the fund ceased at ``at`` (recorded before it and
    not withdrawn before it), for TGD-1540's part 1 dates."""
    held = [n for n in notices_in(s, fund_id) if n.kind == kind and n.created_at <= at
            and (n.withdrawn_at is None or n.withdrawn_at > at)]
    return held[-1] if held else None


def give_notice_in(s: Session, fund_id: str, kind: str, *, notice_on: date, by: str,
                   reason: str, now: datetime, effective_on: date | None = None,
                   players_told_on: date | None = None, to_fund_id: str | None = None) -> int:
    """Record a notice that the fund will cease (TGD-1540 part 1 filed on ``notice_on``), in
    the caller's transaction; the notice id.  ``cease_once_hit``: from now on the fund's next
    award MUST cease it (:func:`record_award_in` refuses one that does not); ``transfer`` needs
    the fund it goes to and the effective date; ``closure``: the poker room is to close (the
    balance forfeited, :func:`forfeit_on_closure_in`).  Refused on a ceased fund, while another
    notice holds (withdraw it first), or with a date after the effective date."""
    now = _aware(now, "time")
    if kind not in NOTICE_KINDS:
        raise BbjFundError(f"notice: {kind!r} is not one of {', '.join(NOTICE_KINDS)}")
    who, why = _text(by, "recorded by"), _text(reason, "reason")
    filed = _day(notice_on, "notice date")
    latest = _latest_day(now)
    if filed > latest:
        raise BbjFundError(f"notice date {filed}: in the future (part 1 is recorded once filed)")
    eff = None if effective_on is None else _day(effective_on, "effective date")
    told = None if players_told_on is None else _day(players_told_on, "players told on")
    if told is not None and told > latest:
        raise BbjFundError(f"players told on {told}: in the future (record it once they are "
                           "told)")
    _fund(s, fund_id)
    if kind == "transfer":
        if not to_fund_id:
            raise BbjFundError("transfer notice: the fund it goes to is missing")
        if to_fund_id == fund_id:
            raise BbjFundError("transfer notice: a fund can not be transferred to itself")
        _fund(s, to_fund_id)
        if eff is None:
            raise BbjFundError("transfer notice: the planned effective date is missing")
    elif to_fund_id:
        raise BbjFundError(f"{NOTICE_TEXT[kind]} notice: only a transfer goes to another fund")
    for d, what in ((filed, "notice date"), (told, "players told on")):
        if eff is not None and d is not None and d > eff:
            raise BbjFundError(f"{what} {d}: after the effective date {eff}")
    held = active_notice_in(s, fund_id)
    if held is not None:
        raise BbjFundError(f"fund {fund_id!r}: {held.words} holds; withdraw it first")
    row = BbjCessationNotice(fund_id=fund_id, kind=kind, refers_to_id=None, notice_on=filed,
                             effective_on=eff, players_told_on=told, to_fund_id=to_fund_id,
                             reason=why, recorded_by=who, created_at=now)
    s.add(row)
    s.flush()
    return row.id


def _held_notice(s: Session, fund_id: str, notice_id: int) -> Notice:
    _fund(s, fund_id)
    n = next((n for n in notices_in(s, fund_id) if n.notice_id == notice_id), None)
    if n is None:
        raise BbjFundError(f"notice {notice_id}: not a notice of fund {fund_id!r}")
    if not n.active:
        raise BbjFundError(f"notice {notice_id}: withdrawn on {n.withdrawn_at:%Y-%m-%d}")
    return n


def players_told_in(s: Session, fund_id: str, notice_id: int, *, told_on: date, by: str,
                    now: datetime) -> int:
    """The day the players were told of the notice (a ``players_told`` row naming it; the
    notice itself is never changed); the row id.  Once per notice."""
    now = _aware(now, "time")
    who = _text(by, "recorded by")
    told = _day(told_on, "players told on")
    if told > _latest_day(now):
        raise BbjFundError(f"players told on {told}: in the future (record it once they are "
                           "told)")
    n = _held_notice(s, fund_id, notice_id)
    if n.players_told_on is not None:
        raise BbjFundError(f"notice {notice_id}: the players were told on {n.players_told_on} "
                           "already")
    if told < n.notice_on:
        raise BbjFundError(f"players told on {told}: before the notice date {n.notice_on}")
    row = BbjCessationNotice(fund_id=fund_id, kind="players_told", refers_to_id=notice_id,
                             players_told_on=told, reason="players told", recorded_by=who,
                             created_at=now)
    s.add(row)
    s.flush()
    return row.id


def withdraw_notice_in(s: Session, fund_id: str, notice_id: int, *, by: str, reason: str,
                       now: datetime) -> int:
    """Withdraw a notice that holds (a ``withdrawn`` row naming it, with the reason; the
    notice itself stays); the row id.  A ceased fund's notices are history: refused."""
    now = _aware(now, "time")
    who, why = _text(by, "recorded by"), _text(reason, "reason")
    _held_notice(s, fund_id, notice_id)
    row = BbjCessationNotice(fund_id=fund_id, kind="withdrawn", refers_to_id=notice_id,
                             reason=why, recorded_by=who, created_at=now)
    s.add(row)
    s.flush()
    return row.id


# --------------------------------------------------------------------------------------
# Forfeiture on permanent closure


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
    now = _now(at)
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
    now = _aware(now, "time")
    who, why = _text(by, "recorded by"), _text(reason, "reason")
    closed = _day(closed_on, "closure date")
    if closed > _latest_day(now):
        raise BbjFundError(f"closure date {closed}: in the future (forfeit once the poker room "
                           "has closed)")
    _fund(s, fund_id)
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
    bal = _sums(s, fund_id)
    if bal.main_cents < 0 or bal.reserve_cents < 0:  # pragma: no cover - a ledger bug
        raise BbjFundError(f"fund {fund_id!r}: main {format_cents(bal.main_cents)}, reserve "
                           f"{format_cents(bal.reserve_cents)}: a negative balance")
    seed = _seed_outstanding(s, fund_id)
    c = BbjCessation(fund_id=fund_id, kind="forfeiture", to_fund_id=None, award_id=None,
                     seed_returned_cents=0, increment_cents=bal.main_cents - seed,
                     reserve_cents=bal.reserve_cents, seed_forfeited_cents=seed,
                     closed_on=closed, reason=why, recorded_by=who, created_at=now)
    s.add(c)
    s.flush()
    if bal.total_cents:
        _entry(s, fund_id, "forfeiture", -bal.main_cents, -bal.reserve_cents, by=who,
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
        _fund(s, fund_id, open_=False)
        c = s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
            .scalar_one_or_none()
        return FundStatus(_sums(s, fund_id), c.kind if c else None,
                          c.created_at if c else None, c.closed_on if c else None,
                          None if c else active_notice_in(s, fund_id))
