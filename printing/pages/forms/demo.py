"""The forms filled with the example figures of docs/forms.md: :func:`demo_forms` (the
tests, docs/screenshots/tgd-*.png) and :func:`write_demo_forms` (``make screenshots``)."""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from core.pokerroom.fund import FundSettings
from core.pokerroom.rules.bbj import BbjSettings, Claim
from printing.pages.forms.award import awarding_request, awarding_request_html
from printing.pages.forms.cessation import LinkedTable, TransferCessation, transfer_cessation_html
from printing.pages.forms.daily import DailyReport, TableDay, daily_report_html
from printing.pages.forms.implementation import ImplementationRequest, implementation_request_html
from printing.pages.forms.quarterly import (
    JackpotPayment,
    MonthFees,
    QuarterlyTax,
    quarterly_tax_html,
)


def demo_forms() -> dict[str, str]:
    """HTML of every form filled with the example figures of docs/forms.md (file stem -> HTML)."""
    from dataclasses import replace

    from core.kernel.cards import parse_cards
    from core.pokerroom.rules.bbj import ShownHand, decide

    casino, operator = "Podium Demo Casino Manila", "Podium Leisure and Resorts Corp."
    tables = (
        TableDay("PK-01", time(10, 0), time(23, 45), "J. dela Cruz / M. Garcia", "R-0101",
                 "J-0101", 2_845_000, 1_230_000, {500: 10, 100: 60, 50: 24, 25: 4}),
        TableDay("PK-02", time(12, 30), time(22, 15), "A. Bautista", "R-0102", "J-0102",
                 1_917_500, 865_000, {500: 6, 100: 50, 50: 11, 25: 2, 10: 5}),
        TableDay("PK-03", time(18, 0), time(2, 10), "R. Villanueva", "R-0103", "J-0103",
                 3_102_000, 1_455_000, {500: 20, 100: 40, 50: 10, 25: 2}),
    )
    location = "2/F Grand Hall, Podium Demo Casino, Entertainment City, Paranaque"
    daily = DailyReport("TGD-1623", casino, operator, date(2026, 11, 30), tables,
                        previous_main_cents=152_345_600, previous_reserve_cents=65_290_900,
                        seed_cents=0, tournament_fee_cents=1_250_000, room_location=location)
    offsite = DailyReport("TGD-1494", casino, operator, date(2026, 11, 30), tables[:2],
                          previous_main_cents=152_345_600, previous_reserve_cents=65_290_900,
                          seed_cents=5_000_000)
    board = parse_cards(["Ah", "Ad", "Tc", "7s", "7c"], count=None)
    w = parse_cards(["7h", "7d"], count=None)
    lo = parse_cards(["As", "Td"], count=None)
    claim = Claim(big_blind_cents=10_000, pot_cents=412_000, dealt_in=(1, 2, 3, 4, 5, 6, 7, 8),
                  board=board, showdown=(ShownHand(1, (lo[0], lo[1])),
                                         ShownHand(4, (w[0], w[1]))),
                  table_jackpot_rake_cap_cents=10_000, room_max_jackpot_rake_cents=10_000,
                  main_jackpot_cents=153_400_000, reserve_jackpot_cents=65_743_500,
                  taxpayers={6: "nranetb"})
    names = {1: "Maria Santos", 2: "Jose Rizal Reyes", 3: "Ana Lim", 4: "Pedro Aquino",
             5: "Liza Mendoza", 6: "Kenji Watanabe", 7: "Carlo Ramos", 8: "Grace Tan"}
    award = awarding_request(decide(claim), claim, names, casino=casino, operator=operator,
                             table="PK-03", hit_at=datetime(2026, 11, 30, 21, 47),
                             small_blind_cents=5_000, jackpot_rake_cents=10_000)
    award = replace(award, room_location=location,
                    paid_on={1: date(2026, 12, 2), 4: date(2026, 12, 2)})
    quarterly = QuarterlyTax(
        casino, operator, 2026, 4,
        (MonthFees(date(2026, 10, 1), 215_430_000, 27_911_250, 3_750_000),
         MonthFees(date(2026, 11, 1), 198_765_500, 25_470_000, 2_500_000),
         MonthFees(date(2026, 12, 1), 231_002_250, 29_880_750, 5_000_000)),
        tuple(JackpotPayment(date(2026, 12, 2), "BBJ-2026-0007", s.name, s.taxpayer,
                             s.gross_cents, s.tax_cents) for s in award.sharers)
        + (JackpotPayment(date(2026, 10, 14), "BBJ-2026-0006", "Ramon Cruz", "citizen",
                          900_000, 0),), room_location=location)
    transfer = TransferCessation(casino, operator, "Bad Beat Jackpot PK room", "transfer",
                                 date(2026, 11, 2), date(2026, 11, 23), date(2026, 11, 16),
                                 seed_cents=5_000_000, main_cents=153_400_000,
                                 reserve_cents=65_743_500,
                                 destination="Bad Beat Jackpot PK room (new hall)",
                                 completed_on=date(2026, 11, 24),
                                 reason="Poker room moves to the new hall",
                                 linked_tables=tuple(
                                     LinkedTable(t, date(2026, 1, 5), date(2026, 11, 22), days,
                                                 rake)
                                     for t, days, rake in (("PK-01", 312, 281_450_000),
                                                           ("PK-02", 298, 190_215_000),
                                                           ("PK-03", 305, 301_770_500))))
    implement = ImplementationRequest(
        casino, operator, "Bad Beat Jackpot PK room (new hall)", date(2026, 12, 14),
        ZoneInfo("Asia/Manila"), BbjSettings(),
        FundSettings(caps_by_big_blind=((2_000, 2_500), (5_000, 5_000), (10_000, 7_500))),
        seed_cents=5_000_000, main_cents=5_000_000, reserve_cents=0,
        filed_at=datetime(2026, 12, 2, 16, 20, tzinfo=ZoneInfo("Asia/Manila")),
        holidays=(date(2026, 12, 8), date(2026, 12, 25)), room_location=location)
    return {"tgd-1623-daily-onsite": daily_report_html(daily),
            "tgd-1494-daily-offsite": daily_report_html(offsite),
            "tgd-1500-awarding-request": awarding_request_html(award),
            "tgd-108-quarterly-tax": quarterly_tax_html(quarterly),
            "tgd-1540-transfer-cessation": transfer_cessation_html(transfer),
            "tgd-1581-implementation-request": implementation_request_html(implement)}


def write_demo_forms(folder: str, *, pdf: bool = True) -> list[str]:
    """Render :func:`demo_forms` to ``folder`` as PNG and (``pdf``) PDF (``make screenshots``
    writes the PNGs of docs/screenshots/tgd-*.png)."""
    from pathlib import Path

    from printing.pages.winpage import render_png, write_pdf

    out = []
    for stem, html in demo_forms().items():
        base = Path(folder) / stem
        if pdf:
            write_pdf(html, base.with_suffix(".pdf"), title=stem.upper())
        render_png(html, base.with_suffix(".png"))
        out.append(str(base))
    return out
