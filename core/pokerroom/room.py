"""The poker room as a console screen sees it: one facade over the Bad Beat Jackpot's funds,
cases, counts, cessation and the room's regulatory deadlines (``fund``, ``cases``,
``calendar``).

:class:`PokerRoom` holds the ledger and the floor file (read anew at each call: the casino's
public holidays and the room's deadline rules as they are now) and offers every read and every
command the "Poker room" tab needs, typed, without Qt: reads return views (dataclasses),
commands take the swipe (``core.people.auth.Swipe``) and check the card in their own transaction.
The screen (``gui/pokerroom/``) calls the reads on a worker thread (the bridge) and the
commands from the swipe prompt's action; it never touches the ledger itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.money import Currency
from core.ledger.models import BbjCessation, BbjFund
from core.people.auth import Swipe
from core.pokerroom import calendar as cal
from core.pokerroom import cases as bc
from core.pokerroom import deadlines as dl
from core.pokerroom import filings
from core.pokerroom import fund as bf
from core.pokerroom.calendar_settings import CalendarSettings
from core.pokerroom.rules.bbj import BbjSettings, Decision

if TYPE_CHECKING:
    from core.floorconfig import FloorConfig


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class RoomFund:
    """A Bad Beat Jackpot fund as the room lists it: its id, name and whether it has ceased.
    The one record of a fund in the list: the facade reads it, the tab shows it as it is."""

    fund_id: str
    name: str
    ceased: bool

    @property
    def label(self) -> str:
        """The fund as a list shows it: ``Hall BBJ (ceased)``."""
        return f"{self.name} (ceased)" if self.ceased else self.name


class PokerRoom:
    """The reads and commands of the poker room on one ledger (module docstring)."""

    def __init__(self, engine: Engine, config: Callable[[], FloorConfig]) -> None:
        self.engine = engine
        self._config = config  # the floor file as it is now (the console's, maybe reloaded)

    @property
    def tz(self) -> ZoneInfo:
        """The casino's time zone."""
        return ZoneInfo(self._config().casino.timezone)

    @property
    def holidays(self) -> tuple[date, ...]:
        """The floor file's public holidays (not business days, RULES.md 6 deadlines)."""
        return tuple(self._config().casino.public_holidays)

    def gaming_day_of(self, at: datetime) -> date:
        """The casino's gaming day of ``at`` (``[casino] timezone`` and ``gaming_day_starts``):
        the day a count is recorded and posted for, and the day of a hit."""
        casino = self._config().casino
        return cal.gaming_day_of(at, ZoneInfo(casino.timezone), casino.gaming_day_starts)

    @property
    def money(self) -> Currency:
        """The funds' currency (``[poker_room] currency`` in the casino's locale): how the
        amounts the room's words carry are written."""
        return self._config().fund_money

    @property
    def calendar(self) -> CalendarSettings:
        """The floor file's [poker_room] deadline rules."""
        return self._config().poker_room.calendar

    # -- reads ------------------------------------------------------------------------------

    def funds(self) -> list[RoomFund]:
        """Every fund, in id order, each with whether it has ceased."""
        with Session(self.engine) as s:
            rows = s.execute(select(BbjFund).order_by(BbjFund.id)).scalars().all()
            ceased = set(s.execute(select(BbjCessation.fund_id)).scalars().all())
            return [RoomFund(f.id, f.name, f.id in ceased) for f in rows]

    def fund_status(self, fund_id: str) -> bf.FundStatus:
        """The fund's main and reserve, how it ceased, or the notice that holds."""
        return bf.fund_status(self.engine, fund_id)

    def decide(self, fund_id: str, entry: bc.ClaimEntry, hit_at: datetime,
               rules: BbjSettings | None = None) -> Decision:
        """The claim decided on the fund as it stood for the hit (nothing written)."""
        return bc.decide_entry(self.engine, fund_id, entry, hit_at, rules,
                               self.gaming_day_of)[1]

    def cases(self) -> list[bc.CaseView]:
        """Every case of every fund."""
        return bc.list_cases(self.engine)

    def slip_prints(self, case_id: int) -> list[bc.SlipPrint]:
        """Every share slip print attempt of the case, oldest first."""
        return bc.slip_prints(self.engine, case_id)

    def step_authority(self, case_id: int, state: str, *, rules: BbjSettings | None = None,
                       seat: int | None = None, cease: bool = False) -> bc.StepAuthority:
        """The card the case's step to ``state`` needs now (read only)."""
        return bc.step_authority(self.engine, case_id, state, seat=seat, settings=rules,
                                 cease=cease, day_of=self.gaming_day_of, money=self.money)

    def room_deadlines(self, now: datetime) -> list[dl.RoomDeadline]:
        """The room's regulatory deadlines at ``now``, each with its filings."""
        return dl.room_deadlines(self.engine, now, self.tz, self.holidays, self.calendar)

    # -- commands (each checks the swipe in its own transaction) ---------------------------

    def open_case(self, fund_id: str, entry: bc.ClaimEntry, hit_at: datetime, swipe: Swipe,
                  *, rules: BbjSettings | None = None) -> int:
        """Decide the claim and open its case; the case id."""
        return bc.open_case(self.engine, fund_id, entry, hit_at, swipe,  # type: ignore[arg-type]
                            settings=rules, day_of=self.gaming_day_of)

    def advance(self, case_id: int, state: str, swipe: Swipe, *,
                rules: BbjSettings | None = None, clock: Callable[[], datetime] = _utcnow,
                seat: int | None = None, detail: str = "", deck_sorted: bool = False,
                cctv_reviewed: bool = False, cease: bool = False) -> bc.CaseView:
        """Move the case on to ``state`` (or void it); the case as it is then."""
        return bc.advance(self.engine, case_id, state, swipe, seat=seat, detail=detail,
                          deck_sorted=deck_sorted, cctv_reviewed=cctv_reviewed,
                          settings=rules, cease=cease, clock=clock,
                          day_of=self.gaming_day_of, money=self.money)

    def record_slip_print(self, case_id: int, seat: int, *, reprint: bool, printer: str,
                          ok: bool, error: str = "") -> None:
        """Keep one attempt to print a share slip (called on the printer thread)."""
        bc.record_slip_print(self.engine, case_id, seat, reprint=reprint, printer=printer,
                             ok=ok, error=error)

    def record_count(self, fund_id: str, swipe: Swipe, *, business_date: date, table: str,
                     drop_box: str, opened_at: datetime, closed_at: datetime, dealer: str,
                     pieces: Mapping[int, int], rake_box: str = "", rake_cents: int = 0,
                     settings: bf.FundSettings | None = None) -> int:
        """One table's drop boxes for the business day; the count's id."""
        return bc.record_count(self.engine, fund_id, swipe,  # type: ignore[arg-type]
                               business_date=business_date, table=table, drop_box=drop_box,
                               opened_at=opened_at, closed_at=closed_at, dealer=dealer,
                               pieces=pieces, rake_box=rake_box, rake_cents=rake_cents,
                               settings=settings)

    def post_day(self, fund_id: str, business_date: date, swipe: Swipe, *,
                 settings: bf.FundSettings | None = None) -> bf.Posting:
        """Post the day's counts to the fund; the posting with its distribution."""
        return bc.post_day(self.engine, fund_id, business_date, swipe,  # type: ignore[arg-type]
                           settings=settings)

    def record_tournament_fee(self, swipe: Swipe, *, business_date: date, tournament: str,
                              fee_cents: int, reason: str = "") -> int:
        """A tournament's fees for the day (negative: a correction with its reason)."""
        return bc.record_tournament_fee(self.engine, swipe,  # type: ignore[arg-type]
                                        business_date=business_date, tournament=tournament,
                                        fee_cents=fee_cents, reason=reason)

    def give_notice(self, fund_id: str, swipe: Swipe, kind: str, *, notice_on: date,
                    reason: str, effective_on: date | None = None,
                    to_fund_id: str | None = None) -> int:
        """A notice that the fund will cease (TGD-1540 part 1); its id."""
        return bc.give_notice(self.engine, fund_id, swipe, kind,  # type: ignore[arg-type]
                              notice_on=notice_on, effective_on=effective_on,
                              to_fund_id=to_fund_id, reason=reason)

    def record_players_told(self, fund_id: str, notice_id: int, swipe: Swipe, *,
                            told_on: date) -> int:
        """The day the players were told of the notice."""
        return bc.record_players_told(self.engine, fund_id, notice_id,
                                      swipe, told_on=told_on)  # type: ignore[arg-type]

    def withdraw_notice(self, fund_id: str, notice_id: int, swipe: Swipe, *,
                        reason: str) -> int:
        """Withdraw the notice (kept in the ledger with its withdrawal)."""
        return bc.withdraw_notice(self.engine, fund_id, notice_id,
                                  swipe, reason=reason)  # type: ignore[arg-type]

    def forfeit_on_closure(self, fund_id: str, swipe: Swipe, *, closed_on: date,
                           reason: str) -> bf.Forfeiture:
        """The room closed for good: the whole fund forfeited in favour of PAGCOR."""
        return bc.forfeit_on_closure(self.engine, fund_id, swipe,  # type: ignore[arg-type]
                                     closed_on=closed_on, reason=reason)

    def record_filing(self, swipe: Swipe, *, kind: str, period_start: date,
                      fund_id: str | None, filed_at: datetime, reference: str, detail: str,
                      corrects: int | None, clock: Callable[[], datetime] = _utcnow
                      ) -> dl.Filing:
        """A deadline's filing (a second one of the period only as a correction)."""
        return filings.record_filing(self.engine, swipe,  # type: ignore[arg-type]
                                 kind=kind, period_start=period_start, fund_id=fund_id,
                                 filed_at=filed_at, reference=reference, detail=detail,
                                 corrects=corrects, tz=self.tz, holidays=self.holidays,
                                 settings=self.calendar, clock=clock)
