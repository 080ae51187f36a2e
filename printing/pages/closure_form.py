"""The forfeiture report: a Bad Beat Jackpot fund forfeited in favour of PAGCOR on the permanent
closure of the poker room (docs/forms.md "Forfeiture on closure"; core/pokerroom/fund/
``forfeit_on_closure``).

:class:`ForfeitureReport` is the page's input, :func:`forfeiture_html` the page (the helpers and
style of :mod:`printing.pages.forms`, imported, not copied), :func:`forfeiture_report` fills it from
the ledger (read only, one snapshot): every amount from the fund's ``bbj_cessations`` row of
kind ``forfeiture`` and its ``forfeiture`` entry, the last posting from ``bbj_postings``, the
notice of closure (if one was given) from ``bbj_cessation_notices``.  A fund not forfeited, or a
ledger whose rows disagree, is a :class:`printing.pages.forms.FormError` saying what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.ledger import integrity
from core.ledger.models import BbjCessation, BbjEntry, BbjFund, BbjPosting
from core.pokerroom.fund import notice_at_cessation
from printing.pages.forms.figures import FormError, check_cents, peso
from printing.pages.forms.page import day_text, form_page, note_lines, pairs, section

TITLE = "Jackpot fund forfeited on closure of the poker room"
FORM_NO = "BBJ forfeiture"
SIGNERS = ("Prepared by", "Poker room manager", "Executive (authorized the forfeiture)")


@dataclass(frozen=True)
class LastPosting:
    business_date: date
    collection_cents: int
    main_cents: int  # the updated main after that day
    reserve_cents: int


@dataclass(frozen=True)
class ForfeitureReport:
    """What the page shows.  ``main_cents`` = ``seed_cents`` + the increment; the total
    forfeited (and remitted to PAGCOR) is main + reserve."""

    casino: str
    operator: str
    jackpot: str  # "name (id)"
    closed_on: date
    recorded_at: datetime  # casino-local time of the forfeiture
    recorded_by: str
    reason: str
    main_cents: int
    seed_cents: int
    reserve_cents: int
    last_posting: LastPosting | None
    notice_on: date | None = None  # a notice of closure (TGD-1540 part 1), if one was given
    players_told_on: date | None = None
    reference: str = ""  # e.g. "cessation 4"
    chain: str = ""  # the ledger's chain head when the report was made

    def __post_init__(self) -> None:
        for name in ("main", "seed", "reserve"):
            check_cents(getattr(self, f"{name}_cents"), f"{name} forfeited")
        if self.seed_cents > self.main_cents:
            raise FormError(f"seed forfeited: {peso(self.seed_cents)} is more than the main "
                            f"amount forfeited {peso(self.main_cents)}")

    @property
    def increment_cents(self) -> int:
        return self.main_cents - self.seed_cents

    @property
    def total_cents(self) -> int:
        return self.main_cents + self.reserve_cents


def forfeiture_html(r: ForfeitureReport) -> str:
    blank = "____________________"
    total = "Total forfeited in favour of PAGCOR (main + reserve)"
    fund = pairs([
        ("Progressive jackpot", r.jackpot),
        ("Poker room closed on", day_text(r.closed_on)),
        ("Reason", r.reason),
        ("Forfeiture recorded", f"{r.recorded_at:%d %B %Y %H:%M} by {r.recorded_by}"),
        ("Reference", r.reference or blank),
        ("Notice of closure (TGD-1540 part 1)",
         day_text(r.notice_on) if r.notice_on else "none recorded"),
        ("Players told on", day_text(r.players_told_on) if r.players_told_on else
         ("not recorded" if r.notice_on else "none recorded")),
    ], label_width=40)
    if r.last_posting is not None:
        p = r.last_posting
        last = pairs([
            ("Last gaming day posted", day_text(p.business_date)),
            ("Jackpot rake collected that day", peso(p.collection_cents)),
            ("Main jackpot after it", peso(p.main_cents)),
            ("Reserve after it", peso(p.reserve_cents)),
        ], label_width=62)
    else:
        last = "<p>No gaming day was ever posted on this fund.</p>"
    amounts = pairs([
        ("Seed money in the main jackpot (operator's, since the last hit)", peso(r.seed_cents)),
        ("Increment (main - seed)", peso(r.increment_cents)),
        ("Main jackpot forfeited (seed + increment)", peso(r.main_cents)),
        ("Reserve forfeited", peso(r.reserve_cents)),
        (total, peso(r.total_cents)),
        ("Fund after the forfeiture (main / reserve)", f"{peso(0)} / {peso(0)}"),
    ], strong=(total,))
    remit = pairs([
        ("Amount to remit to PAGCOR", peso(r.total_cents)),
        ("Remitted on", blank),
        ("Official receipt / deposit reference", blank),
        ("Remitted by", blank),
    ], strong=("Amount to remit to PAGCOR",), label_width=45)
    notes = [
        "Every counted gaming day was posted before the forfeiture, and no Bad Beat Jackpot "
        "case of the fund was open (each was paid in full or voided).",
        "The seed is the operator's money put into the main jackpot since its last hit; on "
        "closure it is forfeited with the rest (it is not returned as on a transfer).",
    ]
    if r.chain:
        notes.append(f"Ledger chain head when this report was made: {r.chain}.")
    body = (section("The fund") + fund + section("Last posting") + last
            + section("Amounts forfeited") + amounts
            + section("Remittance to PAGCOR") + remit + note_lines(notes))
    page = form_page(TITLE, FORM_NO, r.casino, r.operator,
                     f"{r.jackpot} - closed {day_text(r.closed_on)}", body, signers=SIGNERS)
    # not one of PAGCOR's annex forms: the page says what it is
    return page.replace("PAGCOR annex form", "report to PAGCOR", 1)


def _reading(engine: Engine) -> Session:
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="REPEATABLE READ",
                                          postgresql_readonly=True)
    return Session(engine)


def forfeiture_report(engine: Engine, fund_id: str, *, casino: str, operator: str,
                      tz: ZoneInfo) -> ForfeitureReport:
    """The report of a forfeited fund, every figure from the ledger (times in ``tz``)."""
    with _reading(engine) as s:
        fund = s.get(BbjFund, fund_id)
        if fund is None:
            raise FormError(f"fund {fund_id!r} does not exist")
        c = s.execute(select(BbjCessation).where(BbjCessation.fund_id == fund_id)) \
            .scalar_one_or_none()
        if c is None:
            raise FormError(f"fund {fund_id!r} is not forfeited: the report is made once the "
                            "poker room has closed and the fund was forfeited (Poker room tab, "
                            "Cessation; an executive's swipe)")
        if c.kind != "forfeiture" or c.closed_on is None:
            raise FormError(f"fund {fund_id!r} ceased by {c.kind.replace('_', ' ')}, not by "
                            "forfeiture on closure: its form is TGD-1540 (podium forms "
                            f"cessation --fund {fund_id})")
        seed = c.seed_forfeited_cents or 0
        main = c.increment_cents + seed
        moved = s.execute(select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0),
                                 func.coalesce(func.sum(BbjEntry.reserve_delta_cents), 0))
                          .where(BbjEntry.cessation_id == c.id,
                                 BbjEntry.kind == "forfeiture")).one()
        if (-int(moved[0]), -int(moved[1])) != (main, c.reserve_cents):
            raise FormError(f"fund {fund_id!r}: the forfeiture entries take "
                            f"{peso(-int(moved[0]))} / {peso(-int(moved[1]))}, not the "
                            f"cessation's {peso(main)} / {peso(c.reserve_cents)}")
        left = s.execute(select(func.coalesce(func.sum(BbjEntry.main_delta_cents), 0),
                                func.coalesce(func.sum(BbjEntry.reserve_delta_cents), 0))
                         .where(BbjEntry.fund_id == fund_id)).one()
        if (int(left[0]), int(left[1])) != (0, 0):
            raise FormError(f"fund {fund_id!r}: forfeited, but its rows add up to main "
                            f"{peso(int(left[0]))}, reserve {peso(int(left[1]))}, not 0.00")
        p = s.execute(select(BbjPosting).where(BbjPosting.fund_id == fund_id)
                      .order_by(BbjPosting.business_date.desc()).limit(1)).scalar_one_or_none()
        last = None if p is None else LastPosting(p.business_date, p.collection_cents,
                                                  p.main_cents, p.reserve_cents)
        notice = notice_at_cessation(s, fund_id, "closure", c.created_at)
        chain = integrity.head_text(*integrity.chain_head(s.connection()))
        return ForfeitureReport(
            casino, operator, f"{fund.name} ({fund.id})", c.closed_on,
            c.created_at.astimezone(tz), c.recorded_by, c.reason, main, seed, c.reserve_cents,
            last, notice.notice_on if notice else None,
            notice.players_told_on if notice else None, f"cessation {c.id}", chain)


def demo_forfeiture() -> ForfeitureReport:
    """The example of docs/forms.md (docs/screenshots/bbj-closure-report.png)."""
    return ForfeitureReport(
        "Podium Demo Casino Manila", "Podium Leisure and Resorts Corp.",
        "Bad Beat Jackpot PK room (bbj)", date(2027, 1, 15),
        datetime(2027, 1, 18, 10, 30), "2001 Evelyn Cruz",
        "Poker room closed for good (lease ended)", 5_070_560, 5_000_000, 30_240,
        LastPosting(date(2027, 1, 15), 144_000, 5_070_560, 30_240),
        notice_on=date(2026, 12, 14), players_told_on=date(2027, 1, 5),
        reference="cessation 1")


__all__ = ["ForfeitureReport", "LastPosting", "demo_forfeiture", "forfeiture_html",
           "forfeiture_report"]
