"""One form request to its HTML: :class:`FormRequest` (which form, and the fields that kind
needs) -> :func:`render` -> :class:`RenderedForm` (title, a safe file stem, the HTML), its
amounts written in the floor's currency."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from sqlalchemy import Engine

from core.floorconfig import PokerRoomConfig
from core.kernel.money import Currency
from core.pokerroom.fund import FundSettings
from core.pokerroom.rules.bbj import BbjSettings
from printing.pages.forms import (
    FormError,
    awarding_request_html,
    daily_report_html,
    implementation_request_html,
    quarterly_tax_html,
    transfer_cessation_html,
    written_in,
)
from printing.pages.ledger_forms.award import awarding_request
from printing.pages.ledger_forms.cessation import linked_tables, transfer_cessation
from printing.pages.ledger_forms.daily import daily_report
from printing.pages.ledger_forms.implementation import implementation_request
from printing.pages.ledger_forms.quarterly import quarterly_tax

FORM_KINDS: tuple[str, ...] = ("daily", "award", "quarterly", "cessation", "implementation",
                              "forfeiture")


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
