"""TGD-1581 (Annex A) from the ledger: the floor file's ``[poker_room]`` rules and the fund as
the ledger has it, for a requested implementation date."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func, select

from core.floorconfig import PokerRoomConfig
from core.ledger.models import BbjEntry, BbjPosting
from printing.pages.forms import FormError, ImplementationRequest
from printing.pages.ledger_forms.reading import cessation_row, fund_row, local_time, reading


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
    with reading(engine) as s:
        fund = fund_row(s, fund_id)
        c = cessation_row(s, fund_id)
        if c is not None:
            raise FormError(f"fund {fund_id!r} ceased on {local_time(c.created_at, tz).date()} "
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
