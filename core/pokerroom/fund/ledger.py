"""The Bad Beat Jackpot fund's MOVEMENTS in the ledger (RULES.md section 6; docs/bbj.md "The
fund"): the fund row, its entries (``bbj_entries``) and what they sum to.

A fund's main and reserve are ALWAYS the sums of its ``bbj_entries`` (centavos, :func:`balance`);
every write is one transaction holding the fund row (:func:`fund_row`: ``SELECT ... FOR UPDATE``
on PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` serializes writers).  Nothing is updated in place.

* :func:`create_fund`, :func:`funds` (main and reserve now), :func:`open_fund` (the row locked
  for the caller's transaction, refused once the fund has ceased).
* :func:`seed`: operator seed money into main (reported: :func:`seed_infusions`;
  :func:`seed_outstanding_cents`, the seed still in the jackpot).
* The helpers every other module of the fund writes with: :func:`fund_row`, :func:`balance`,
  :func:`add_entry`, and the checks of a time, a date and a text given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import Engine, func, or_, select
from sqlalchemy.orm import Session

from core.ledger.db import lock_record
from core.ledger.models import BbjAward, BbjCessation, BbjEntry, BbjFund, BbjPosting

ENTRY_KINDS: tuple[str, ...] = ("seed", "collection", "award", "reserve_move", "cessation_merge",
                                "seed_return", "transfer_out", "transfer_in", "award_void",
                                "forfeiture")
CESSATION_KINDS: tuple[str, ...] = ("transfer", "after_hit", "forfeiture")


class BbjFundError(ValueError):
    """A fund operation refused; the message names the thing and the problem."""


@dataclass(frozen=True)
class Funds:
    main_cents: int
    reserve_cents: int

    @property
    def total_cents(self) -> int:
        return self.main_cents + self.reserve_cents


def moment(at: datetime | None) -> datetime:
    """``at`` in UTC (refused unless timezone-aware), or now when None."""
    if at is None:
        return datetime.now(UTC)
    return aware(at, "time")


def aware(at: datetime, what: str) -> datetime:
    """``at`` in UTC; BbjFundError naming ``what`` unless a timezone-aware datetime."""
    if not isinstance(at, datetime) or at.tzinfo is None:
        raise BbjFundError(f"{what}: {at!r} must be a timezone-aware datetime")
    return at.astimezone(UTC)


def required_text(value: str, what: str) -> str:
    """``value`` stripped; BbjFundError naming ``what`` when empty."""
    if not isinstance(value, str) or not value.strip():
        raise BbjFundError(f"{what}: must not be empty")
    return value.strip()


def fund_row(s: Session, fund_id: str, *, open_: bool = True) -> BbjFund:
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
    return fund_row(s, fund_id)


def balance(s: Session, fund_id: str, at: datetime | None = None,
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


def add_entry(s: Session, fund_id: str, kind: str, main: int, reserve: int, *, by: str,
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
    fid = required_text(fund_id, "fund id")
    with Session(engine) as s, s.begin():
        if s.get(BbjFund, fid) is not None:
            raise BbjFundError(f"fund {fid!r} already exists")
        s.add(BbjFund(id=fid, name=required_text(name, "fund name"), created_at=moment(at)))


def funds(engine: Engine, fund_id: str) -> Funds:
    """Main and reserve now: the sums of every entry of the fund."""
    with Session(engine) as s:
        fund_row(s, fund_id, open_=False)
        return balance(s, fund_id)


def seed(engine: Engine, fund_id: str, amount_cents: int, *, by: str, reason: str,
         at: datetime | None = None) -> int:
    """Operator seed money into MAIN (reported by :func:`seed_infusions`); the entry id."""
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise BbjFundError(f"seed: {amount_cents!r} must be a positive amount in centavos")
    now = moment(at)
    with Session(engine) as s, s.begin():
        fund_row(s, fund_id)
        e = add_entry(s, fund_id, "seed", amount_cents, 0, by=required_text(by, "recorded by"),
                   reason=required_text(reason, "reason"), effective_at=now, created_at=now)
        s.flush()
        return e.id


def seed_infusions(engine: Engine, fund_id: str) -> list[tuple[datetime, int, str, str]]:
    """Every seed infusion: (time, centavos, by, reason), oldest first."""
    with Session(engine) as s:
        rows = s.execute(select(BbjEntry).where(BbjEntry.fund_id == fund_id,
                                                BbjEntry.kind == "seed")
                         .order_by(BbjEntry.id)).scalars()
        return [(e.effective_at, e.main_delta_cents, e.recorded_by, e.reason) for e in rows]


def seed_outstanding_cents(engine: Engine, fund_id: str) -> int:
    """The operator's seed still in the jackpot: the seed infusions since the last hit (a hit
    resets the jackpot), never more than main."""
    with Session(engine) as s:
        fund_row(s, fund_id, open_=False)
        return seed_in_main(s, fund_id)


def seed_in_main(s: Session, fund_id: str) -> int:
    last_hit = s.execute(select(func.max(BbjAward.hit_at))
                         .where(BbjAward.fund_id == fund_id)).scalar()
    q = select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0)).where(
        BbjEntry.fund_id == fund_id, BbjEntry.kind == "seed")
    if last_hit is not None:
        q = q.where(BbjEntry.effective_at > last_hit)
    seeded = int(s.execute(q).scalar_one())
    return max(0, min(seeded, balance(s, fund_id).main_cents))


def latest_day(now: datetime) -> date:
    """The latest calendar date anywhere at ``now`` (UTC+14): a date given as "today" or
    earlier may not be after it, whatever the casino's time zone."""
    return (now + timedelta(hours=14)).date()


def date_of(value: object, what: str) -> date:
    """``value`` as a date (not a datetime); BbjFundError naming ``what`` otherwise."""
    if not isinstance(value, date) or isinstance(value, datetime):
        raise BbjFundError(f"{what}: {value!r} must be a date")
    return value
