"""What a room display (signage) shows, read from the ledger through a
:class:`~core.desks.desk.Desk`.

A progressive group's sign is each level's live meter (whole cents, rounded down as the console
shows it) and whether a hit waits on the level: ``pending`` (a hit claimed on a hand that pays
from this level, not yet paid or rejected: the meter still holds the amount it will pay) or
``locked`` (Jackpot Lock: the amount was fixed when HIT JACKPOT arrived; the meter shown is
the live one the linked tables keep playing into).  A poker room's sign is its Bad Beat
Jackpot (the fund's main amount, as the console's Poker room tab shows it).

:class:`SignPoller` makes one read per call and remembers since when the ledger has not
answered: a display shows :class:`Unreachable` (with that time), never the last amount it read.
Qt-free: ``gui/desks/signage.py`` is the window.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from core.desks.desk import Desk
from core.kernel.money import units_floor_cents
from core.ledger.db import read_only_engine
from core.ledger.models import (
    BbjCessation,
    BbjEntry,
    BbjFund,
    GameTable,
    Group,
    Hit,
    Level,
    LevelBalance,
)

log = logging.getLogger("podium.signage")

CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_MS = 5000

LIVE, PENDING, LOCKED = "live", "pending", "locked"


class SignageError(ValueError):
    """A sign that can not be shown (unknown group or fund); the message names it."""


@dataclass(frozen=True)
class LevelSign:
    level: str
    meter_cents: int
    state: str = LIVE  # live | pending | locked
    hits: int = 0  # hits waiting on the level
    locked_cents: int = 0  # Jackpot Lock: the amounts fixed for them


@dataclass(frozen=True)
class GroupSign:
    group: str
    name: str
    levels: tuple[LevelSign, ...]
    read_at: datetime  # UTC


@dataclass(frozen=True)
class FundSign:
    fund: str
    name: str
    main_cents: int
    reserve_cents: int
    ceased: bool
    read_at: datetime  # UTC


@dataclass(frozen=True)
class Unreachable:
    since: datetime  # UTC: the first read that failed (or the last that answered)
    reason: str


Sign = GroupSign | FundSign


def read_group(desk: Desk, group_id: str, now: datetime | None = None) -> GroupSign:
    """A group's levels, their meters and what waits on each, in one snapshot."""
    with desk.read() as s:
        group = s.get(Group, group_id)
        if group is None:
            known = ", ".join(s.scalars(select(Group.id).order_by(Group.id))) or "none"
            raise SignageError(f"group {group_id!r} is not in the ledger (groups: {known})")
        rows = s.execute(select(Level.id, Level.name, LevelBalance.meter_units)
                         .join(LevelBalance, LevelBalance.level_id == Level.id)
                         .where(Level.group_id == group_id).order_by(Level.id)).all()
        waiting = s.execute(select(Hit.claimed_hand, Hit.locked_level_id,
                                   Hit.locked_amount_cents)
                            .join(GameTable, GameTable.id == Hit.table_id)
                            .where(GameTable.group_id == group_id,
                                   Hit.status == "pending")).all()
        paytable = desk.paytables.get(group.paytable_id)
        name = group.name
    by_name = {lname: lid for lid, lname, _ in rows}
    hits: dict[int, int] = {}
    locked: dict[int, int] = {}
    for hand, locked_level, locked_cents in waiting:
        if locked_level is not None:  # Jackpot Lock: fixed at HIT JACKPOT
            hits[locked_level] = hits.get(locked_level, 0) + 1
            locked[locked_level] = locked.get(locked_level, 0) + int(locked_cents or 0)
            continue
        pay = paytable.pay_for(hand) if paytable is not None else None
        if pay is None or pay.source != "meter" or pay.level not in by_name:
            continue  # a fixed pay from the tray (or a hand this paytable does not pay)
        lid = by_name[pay.level]
        hits[lid] = hits.get(lid, 0) + 1
    levels = []
    for lid, lname, units in rows:
        state = LOCKED if lid in locked else PENDING if hits.get(lid) else LIVE
        levels.append(LevelSign(lname, units_floor_cents(int(units)), state, hits.get(lid, 0),
                                locked.get(lid, 0)))
    return GroupSign(group_id, name, tuple(levels), now or datetime.now(UTC))


def read_fund(desk: Desk, fund_id: str, now: datetime | None = None) -> FundSign:
    """A Bad Beat Jackpot fund's main and reserve now (every entry of the fund)."""
    with desk.read() as s:
        fund = s.get(BbjFund, fund_id)
        if fund is None:
            known = ", ".join(s.scalars(select(BbjFund.id).order_by(BbjFund.id))) or "none"
            raise SignageError(f"Bad Beat Jackpot fund {fund_id!r} is not in the ledger "
                               f"(funds: {known})")
        main, reserve = s.execute(
            select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0),
                   func.coalesce(func.sum(BbjEntry.reserve_delta_cents), 0))
            .where(BbjEntry.fund_id == fund_id)).one()
        ceased = s.execute(select(BbjCessation.id).where(BbjCessation.fund_id == fund_id)) \
            .first() is not None
        name = fund.name
    return FundSign(fund_id, name, int(main), int(reserve), ceased, now or datetime.now(UTC))


def display_engine(url: str, *, connect_args: dict[str, Any] | None = None) -> Engine:
    """The ledger opened read-only (:func:`core.ledger.db.read_only_engine`) with a display's
    pool.  SQLite: no connection kept between reads, so a file that went away (a failed disk, a
    restore) is noticed at the next read instead of being read on through an open handle, and
    a file put back is read again.  PostgreSQL: a connection that died with the server is
    replaced at the next read (pre-ping); connecting and every statement give up after a few
    seconds instead of holding a display's read."""
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        return read_only_engine(url, connect_args={"timeout": 5, **(connect_args or {})},
                                poolclass=NullPool)
    if backend == "postgresql":
        args = dict(connect_args or {})
        args.setdefault("connect_timeout", CONNECT_TIMEOUT_S)
        args["options"] = (f"{args.get('options', '')} "
                           f"-cstatement_timeout={STATEMENT_TIMEOUT_MS}").strip()
        return read_only_engine(url, connect_args=args, pool_pre_ping=True, pool_size=1,
                                max_overflow=1)
    return read_only_engine(url, connect_args=connect_args)  # names the unsupported database


def reason_of(exc: BaseException) -> str:
    """One line for a person: the database's own words, without a traceback."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    first = text.splitlines()[0] if text else exc.__class__.__name__
    return first[:200]


class SignPoller:
    """One read per :meth:`poll`; remembers since when the ledger has not answered."""

    def __init__(self, read: Callable[[], Sign],
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._read = read
        self._clock = clock
        self.down_since: datetime | None = None

    def poll(self) -> Sign | Unreachable:
        try:
            sign = self._read()
        except Exception as exc:  # noqa: BLE001 - whatever failed, the sign is not live
            if self.down_since is None:
                self.down_since = self._clock()
                log.warning("signage: the ledger does not answer: %s", reason_of(exc))
            return Unreachable(self.down_since, reason_of(exc))
        if self.down_since is not None:
            log.info("signage: the ledger answers again")
        self.down_since = None
        return sign
