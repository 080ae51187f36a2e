"""Win slips found for their win pages: by date (gaming days or local calendar dates), table,
amount (exact, or a minimum and/or maximum), employee (number, or part of a name: who
authorized or who verified the pay) and slip number, newest first, a page at a time.

Reads only, through a :class:`core.desks.desk.Desk` (the accountant's, surveillance's or the
supervisor's console).  A search reads the slips' records and never their stored ESC/POS bytes;
a date range is found through ``ix_slips_created_at`` (revision 0017), a page is at most
:data:`MAX_LIMIT` rows and the next page starts below the last slip number shown (keyset
paging: the same cost on page 300 as on page 1).

:class:`WinPages` gives a desk what the win page is made from (``Floor.win_slip``,
``Floor.hit_record`` and the chain head) without a floor: the same builders, on the desk's
read-only snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from core.desks.accounting.periods import Period, PeriodError, _local, gaming_days
from core.desks.desk import Desk
from core.floorconfig import Casino
from core.ledger import integrity
from core.ledger.models import (
    Award,
    Employee,
    GameTable,
    Hit,
    Level,
    Slip,
    SlipPrintAttempt,
    SlipVoid,
)
from core.tablegames import reports, slips
from core.tablegames.slip_record import WinSlip
from core.tablegames.views import FloorError, HitRecord

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_EMPLOYEE_TEXT = 100
AUTO_PAID = "Auto-paid"  # who authorized a tray pay that needed no one (the list's words)


class SearchError(ValueError):
    """A search that can not be run; the message names the field and the problem."""


@dataclass(frozen=True)
class SlipSearch:
    """What to look for; every criterion given must hold (None: any)."""

    start: datetime | None = None  # UTC, inclusive (paid at or after)
    end: datetime | None = None  # UTC, exclusive
    table: str | None = None  # table id
    amount_min_cents: int | None = None
    amount_max_cents: int | None = None
    employee: str | None = None  # employee number (exact) or part of a name (any case)
    slip_no: int | None = None
    limit: int = DEFAULT_LIMIT
    before_slip_no: int | None = None  # the next page: slips numbered below this one


@dataclass(frozen=True)
class SlipRow:
    """One win slip found: what the list shows (no slip bytes)."""

    slip_no: int
    hit_id: int
    paid_at: datetime  # UTC
    local: str  # "2026-12-02 21:14:03" in the casino's time zone
    table_id: str
    table_name: str
    seat: int
    round_no: int
    hand: str
    level: str | None  # the meter level it was paid from; None: the table tray
    amount_cents: int
    authorized_by: str  # "Exe Cutive #X1", or AUTO_PAID
    verified_by: str  # "" when no one verified it separately
    voided: bool
    money_returned: bool | None  # the void's; None when not void
    prints: int  # confirmed prints

    @property
    def state(self) -> str:
        """"void", "paid" or "paid, reprinted 2x": what the list's State column says."""
        if self.voided:
            return "void (money back)" if self.money_returned else "void"
        return f"paid, reprinted {self.prints - 1}x" if self.prints > 1 else "paid"

    @property
    def reprints(self) -> int:
        return max(0, self.prints - 1)


@dataclass(frozen=True)
class SlipPage:
    rows: tuple[SlipRow, ...]
    more: bool  # more slips match, numbered below the last row's

    @property
    def next_before(self) -> int | None:
        return self.rows[-1].slip_no if self.more and self.rows else None


def date_range(casino: Casino, first: date, last: date, *, gaming: bool = True) -> Period:
    """Gaming days ``first`` to ``last`` (from ``[casino] gaming_day_starts``), or with
    ``gaming`` False the local calendar dates (midnight to midnight in the casino's zone)."""
    if gaming:
        return gaming_days(casino, first, last)
    if last < first:
        raise PeriodError(f"period: {last} is before {first}")
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(casino.timezone)
    label = (f"{first.isoformat()}" if first == last
             else f"{first.isoformat()} to {last.isoformat()}")
    return Period(_local(first, time(0, 0), tz),
                  _local(last + timedelta(days=1), time(0, 0), tz), f"Dates {label} (local)")


def _check(q: SlipSearch) -> None:
    for name in ("start", "end"):
        v = getattr(q, name)
        if v is not None and (not isinstance(v, datetime) or v.tzinfo is None):
            raise SearchError(f"search {name}: must be a timezone-aware time")
    if q.start is not None and q.end is not None and q.end <= q.start:
        raise SearchError("search: the end of the period is not after its start")
    for name in ("amount_min_cents", "amount_max_cents", "slip_no", "before_slip_no"):
        v = getattr(q, name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise SearchError(f"search {name.replace('_', ' ')}: {v!r} is not a whole number "
                              "0 or more")
    if q.amount_min_cents is not None and q.amount_max_cents is not None and \
            q.amount_max_cents < q.amount_min_cents:
        raise SearchError("search amount: the maximum is below the minimum")
    if isinstance(q.limit, bool) or not isinstance(q.limit, int) or \
            not 1 <= q.limit <= MAX_LIMIT:
        raise SearchError(f"search limit: {q.limit!r} is not 1 to {MAX_LIMIT}")
    if q.employee is not None and len(q.employee.strip()) > MAX_EMPLOYEE_TEXT:
        raise SearchError(f"search employee: at most {MAX_EMPLOYEE_TEXT} characters")


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_slips(desk: Desk, q: SlipSearch) -> SlipPage:
    """The win slips matching ``q``, newest first, at most ``q.limit`` of them."""
    _check(q)
    with desk.read() as s:
        return _search(s, desk, q)


def _search(s: Session, desk: Desk, q: SlipSearch) -> SlipPage:
    auth = aliased(Employee)
    verif = aliased(Employee)
    stmt = (select(Slip.slip_no, Slip.hit_id, Slip.created_at, Slip.id, Hit.table_id,
                   GameTable.name, Hit.seat, Hit.round_no, Award.hand, Level.name,
                   Award.amount_cents, auth.number, auth.name, verif.number, verif.name,
                   SlipVoid.id, SlipVoid.money_returned)
            .join(Hit, Hit.id == Slip.hit_id)
            .join(Award, Award.id == Slip.award_id)
            .outerjoin(GameTable, GameTable.id == Hit.table_id)
            .outerjoin(Level, Level.id == Award.level_id)
            .outerjoin(auth, auth.id == Award.authorized_by)
            .outerjoin(verif, verif.id == Award.verified_by)
            .outerjoin(SlipVoid, SlipVoid.slip_id == Slip.id))
    if q.start is not None:
        stmt = stmt.where(Slip.created_at >= q.start)
    if q.end is not None:
        stmt = stmt.where(Slip.created_at < q.end)
    if q.table:
        stmt = stmt.where(Hit.table_id == q.table.strip())
    if q.amount_min_cents is not None:
        stmt = stmt.where(Award.amount_cents >= q.amount_min_cents)
    if q.amount_max_cents is not None:
        stmt = stmt.where(Award.amount_cents <= q.amount_max_cents)
    if q.slip_no is not None:
        stmt = stmt.where(Slip.slip_no == q.slip_no)
    if q.before_slip_no is not None:
        stmt = stmt.where(Slip.slip_no < q.before_slip_no)
    who = (q.employee or "").strip()
    if who:
        pattern = f"%{_escape_like(who.casefold())}%"
        people = select(Employee.id).where(or_(
            Employee.number == who, func.lower(Employee.name).like(pattern, escape="\\")))
        stmt = stmt.where(or_(Award.authorized_by.in_(people), Award.verified_by.in_(people)))
    rows = s.execute(stmt.order_by(Slip.slip_no.desc()).limit(q.limit + 1)).all()
    more = len(rows) > q.limit
    rows = rows[:q.limit]
    prints: dict[int, int] = {}
    ids = [int(r[3]) for r in rows]
    if ids:
        prints = {int(k): int(n) for k, n in s.execute(
            select(SlipPrintAttempt.slip_id, func.count())
            .where(SlipPrintAttempt.slip_id.in_(ids), SlipPrintAttempt.ok.is_(True))
            .group_by(SlipPrintAttempt.slip_id))}
    out: list[SlipRow] = []
    for (slip_no, hit_id, at, slip_id, table_id, table_name, seat, round_no, hand, level,
         amount, a_no, a_name, v_no, v_name, void_id, returned) in rows:
        authorized = f"{a_name} #{a_no}" if a_no is not None else AUTO_PAID
        verified = f"{v_name} #{v_no}" if v_no is not None and v_no != a_no else ""
        out.append(SlipRow(
            int(slip_no), int(hit_id), at, f"{desk.local(at):%Y-%m-%d %H:%M:%S}", table_id,
            table_name or table_id, int(seat), int(round_no), hand, level, int(amount),
            authorized, verified, void_id is not None,
            None if void_id is None else bool(returned), prints.get(int(slip_id), 0)))
    return SlipPage(tuple(out), more)


class WinPages:
    """A desk's source of win pages: the slip's record (with its void), the hit's record and
    the chain head, read like ``Floor.win_slip`` / ``Floor.hit_record`` read them, on the
    desk's read-only snapshot."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.config = desk.config
        self.paytables = desk.paytables

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self.desk.read() as s:
            yield s

    def paytable(self, group_id: str) -> Any:
        """The group's paytable (what ``hit_record`` classifies the cards with)."""
        try:
            return self.paytables[self.config.group(group_id).paytable]
        except KeyError:
            raise FloorError(f"group {group_id}: its paytable is not installed here") from None

    def search(self, q: SlipSearch) -> SlipPage:
        return search_slips(self.desk, q)

    def win_slip(self, slip_no: int) -> WinSlip:
        return slips.win_slip(self, slip_no)  # type: ignore[arg-type]

    def hit_record(self, hit_id: int) -> HitRecord:
        return reports.hit_record(self, hit_id)  # type: ignore[arg-type]

    def chain_head_text(self) -> str:
        with self.desk.read() as s:
            return integrity.head_text(*integrity.chain_head(s.connection()))
