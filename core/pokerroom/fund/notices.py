"""Notices that a Bad Beat Jackpot fund will cease (TGD-1540 part 1; docs/bbj.md "The
fund"): :func:`give_notice_in`, :func:`players_told_in`, :func:`withdraw_notice_in`,
:func:`notices`, :func:`notice_deadlines`.  While a ``cease_once_hit`` notice holds, the fund's
next award MUST cease it (``core.pokerroom.fund.awards.record_award_in``).  A notice is never
changed: what follows it (the players told, its withdrawal) is a further row naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import BbjCessationNotice
from core.pokerroom.business_days import add_business_days
from core.pokerroom.fund.ledger import (
    BbjFundError,
    aware,
    date_of,
    fund_row,
    latest_day,
    required_text,
)

NOTICE_KINDS: tuple[str, ...] = ("cease_once_hit", "transfer", "closure")
NOTICE_FOLLOW_UPS: tuple[str, ...] = ("players_told", "withdrawn")
NOTICE_TEXT: dict[str, str] = {"cease_once_hit": "ceases once hit", "transfer": "transfer",
                               "closure": "closure of the poker room"}
PART1_BUSINESS_DAYS = 14  # TGD-1540: notice (part 1) 14 business days before
PLAYERS_DAYS = 7  # players told 7 (calendar) days ahead
PART2_BUSINESS_DAYS = 2  # part 2 within 2 business days after


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
        fund_row(s, fund_id, open_=False)
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
    now = aware(now, "time")
    if kind not in NOTICE_KINDS:
        raise BbjFundError(f"notice: {kind!r} is not one of {', '.join(NOTICE_KINDS)}")
    who, why = required_text(by, "recorded by"), required_text(reason, "reason")
    filed = date_of(notice_on, "notice date")
    latest = latest_day(now)
    if filed > latest:
        raise BbjFundError(f"notice date {filed}: in the future (part 1 is recorded once filed)")
    eff = None if effective_on is None else date_of(effective_on, "effective date")
    told = None if players_told_on is None else date_of(players_told_on, "players told on")
    if told is not None and told > latest:
        raise BbjFundError(f"players told on {told}: in the future (record it once they are "
                           "told)")
    fund_row(s, fund_id)
    if kind == "transfer":
        if not to_fund_id:
            raise BbjFundError("transfer notice: the fund it goes to is missing")
        if to_fund_id == fund_id:
            raise BbjFundError("transfer notice: a fund can not be transferred to itself")
        fund_row(s, to_fund_id)
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
    fund_row(s, fund_id)
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
    now = aware(now, "time")
    who = required_text(by, "recorded by")
    told = date_of(told_on, "players told on")
    if told > latest_day(now):
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
    now = aware(now, "time")
    who, why = required_text(by, "recorded by"), required_text(reason, "reason")
    _held_notice(s, fund_id, notice_id)
    row = BbjCessationNotice(fund_id=fund_id, kind="withdrawn", refers_to_id=notice_id,
                             reason=why, recorded_by=who, created_at=now)
    s.add(row)
    s.flush()
    return row.id
