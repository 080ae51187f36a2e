"""The regulator's forms (printing/pages/forms/; RULES.md section 6 "Deadlines and reports").

The remittance figures are worked out by hand in the comments; the forms are checked for
their form number, their totals and (rendered with Qt) a real PDF.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, time
from decimal import Decimal
from html import unescape
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.kernel.cards import parse_cards
from core.pokerroom import implementation as impl
from core.pokerroom.fund import FundSettings, distribute
from core.pokerroom.rules.bbj import BbjSettings, Claim, ShownHand, Split, decide
from printing.pages.forms import (
    BOX,
    HAND_MARK,
    PAGCOR_MARK,
    DailyReport,
    FormError,
    ImplementationRequest,
    JackpotPayment,
    LinkedTable,
    MonthFees,
    QuarterlyTax,
    TableDay,
    TransferCessation,
    add_business_days,
    affirmations,
    awarding_request,
    awarding_request_html,
    daily_report_html,
    demo_forms,
    fund_split,
    implementation_request_html,
    percent_of,
    peso,
    quarterly_tax_html,
    remittance,
    transfer_cessation_html,
)
from printing.pages.winpage import write_pdf


def text(html: str) -> str:
    """The visible text of a form (tags dropped, no-break spaces as spaces)."""
    return re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " ")


def table(name: str = "PK-01", rake: int = 2_845_000, chips: dict[int, int] | None = None,
          jackpot_rake: int = 1_230_000) -> TableDay:
    return TableDay(name, time(10), time(23, 45), "J. dela Cruz", "R-1", "J-1", rake,
                    jackpot_rake, chips if chips is not None else
                    {500: 10, 100: 60, 50: 24, 25: 4})


# --- TGD-1623 remittance -----------------------------------------------------------------


def test_remittance_tgd_1623_on_hand_computed_figures() -> None:
    # A 78,645.00; jackpot rake 35,500.00 -> B = 30% = 10,650.00; C 12,500.00
    # D = 101,795.00; E = 5% = 5,089.75; F = 96,705.25
    # 25% of F = 24,176.3125 -> 24,176.31; 25% of E = 1,272.4375 -> 1,272.44; total 25,448.75
    r = remittance(7_864_500, 3_550_000, 1_250_000)
    assert (r.a_cash_game_rake, r.b_jackpot_admin_fee, r.c_tournament_fee) == (
        7_864_500, 1_065_000, 1_250_000)
    assert r.d_gross == 10_179_500
    assert r.e_franchise_tax == 508_975
    assert r.f_net == 9_670_525
    assert (r.pagcor_of_f, r.pagcor_of_e) == (2_417_631, 127_244)
    assert r.total == 2_544_875


def test_remittance_b_is_the_ledgers_admin_fee_the_rest_rounds_half_up() -> None:
    # A 1.02, jackpot rake 0.05 -> B = 0.015 rounded DOWN (the fund's admin fee) = 0.01;
    # D = 1.03; E = 0.0515 -> 0.05; F = 0.98; 25% of F = 0.245 -> 0.25 (half up);
    # 25% of E = 0.0125 -> 0.01; total 0.26
    r = remittance(102, 5, 0)
    assert r.b_jackpot_admin_fee == distribute(5).admin_fee_cents == 1
    assert (r.d_gross, r.e_franchise_tax, r.f_net) == (103, 5, 98)
    assert (r.pagcor_of_f, r.pagcor_of_e, r.total) == (25, 1, 26)


def test_fund_split_admin_fee_30_then_main_70_reserve_30_adds_up() -> None:
    # 35,500.00: admin 10,650.00, fund 24,850.00 -> main 17,395.00, reserve 7,455.00
    f = fund_split(3_550_000)
    assert (f.admin_fee, f.to_fund, f.to_main, f.to_reserve) == (
        1_065_000, 2_485_000, 1_739_500, 745_500)
    odd = fund_split(1)  # 0.01: admin 0.00 (0.003), fund 0.01 -> main 0.00 (0.007), reserve 0.01
    assert (odd.admin_fee, odd.to_main, odd.to_reserve) == (0, 0, 1)


@pytest.mark.parametrize("cents", [1, 2, 5, 7, 15, 333, 1_001, 12_345, 999_999, 3_550_000])
def test_fund_split_is_the_ledgers_distribution_rounded_down(cents: int) -> None:
    # One rule for the forms and the fund's posting (core.pokerroom.fund.distribute).  With chips of
    # 10 pesos or more the default rates are exact; on odd centavos half up would differ:
    # 0.05 -> fee 0.015 (half up 0.02, down 0.01), fund 0.04 -> main 0.028 (0.03 / 0.02).
    f, d = fund_split(cents), distribute(cents)
    assert (f.collection, f.admin_fee, f.to_main, f.to_reserve) == (
        d.collection_cents, d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents)
    assert f.admin_fee + f.to_main + f.to_reserve == cents
    assert f.to_fund == f.to_main + f.to_reserve
    if cents == 5:
        assert (f.admin_fee, f.to_main, f.to_reserve) == (1, 2, 2)
        assert percent_of(5, 30) == 2  # what half up gave before


def test_daily_report_updated_amounts_use_the_ledgers_split() -> None:
    # 10 pesos of jackpot rake x 7 tables = 70.00: fee 21.00, main 34.30, reserve 14.70
    tables = tuple(table(f"PK-{i}", 0, {10: 1}, 1_000) for i in range(7))
    report = DailyReport("TGD-1494", "C", "O", date(2026, 11, 30), tables,
                         previous_main_cents=1, previous_reserve_cents=2)
    d = distribute(7_000)
    assert (d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents) == (2_100, 3_430, 1_470)
    assert (report.updated_main_cents, report.updated_reserve_cents) == (3_431, 1_472)


def test_daily_report_tgd_1623_shows_form_number_totals_and_remittance() -> None:
    report = DailyReport("TGD-1623", "Casino", "Operator", date(2026, 11, 30),
                         (table(), table("PK-02", 1_000_000, {100: 5}, 50_000)),
                         previous_main_cents=100_000_000, previous_reserve_cents=40_000_000,
                         seed_cents=500_000, tournament_fee_cents=200_000)
    # jackpot rake 12,800.00: admin 3,840.00, fund 8,960.00 -> main 6,272.00, reserve 2,688.00
    assert report.updated_main_cents == 100_000_000 + 500_000 + 627_200
    assert report.updated_reserve_cents == 40_000_000 + 268_800
    page = text(daily_report_html(report))
    assert "TGD-1623" in page
    for amount in (3_845_000, 1_280_000, report.updated_main_cents,
                   report.updated_reserve_cents):
        assert peso(amount) in page
    r = report.remittance
    assert r is not None and peso(r.total) in page and "TOTAL REMITTANCE" in page
    for role in ("Prepared by", "Checked by", "Approved by"):
        assert role in page


def test_daily_report_tgd_1494_offsite_has_no_remittance() -> None:
    report = DailyReport("TGD-1494", "Casino", "Operator", date(2026, 11, 30), (table(),),
                         previous_main_cents=0, previous_reserve_cents=0)
    page = text(daily_report_html(report))
    assert "TGD-1494" in page and "REMITTANCE" not in page
    assert report.remittance is None


def test_jackpot_drop_box_chips_must_add_up_to_the_jackpot_rake() -> None:
    with pytest.raises(FormError, match="PK-01.*₱12,250.00.*₱12,300.00"):
        table(chips={500: 10, 100: 60, 50: 24, 25: 2})
    with pytest.raises(FormError, match="denomination 20"):
        table(chips={20: 1})


# --- TGD-1500 awarding request -----------------------------------------------------------


def claim() -> Claim:
    board = parse_cards(["Ah", "Ad", "Tc", "7s", "7c"], count=None)
    w = parse_cards(["7h", "7d"], count=None)
    lo = parse_cards(["As", "Td"], count=None)
    return Claim(big_blind_cents=10_000, pot_cents=412_000, dealt_in=(1, 2, 3, 4, 5, 6, 7, 8),
                 board=board, showdown=(ShownHand(1, (lo[0], lo[1])), ShownHand(4, (w[0], w[1]))),
                 table_jackpot_rake_cap_cents=5_000, room_max_jackpot_rake_cents=10_000,
                 main_jackpot_cents=100_000_000, reserve_jackpot_cents=40_000_001,
                 taxpayers={6: "nranetb"})


NAMES = {s: f"Player {s}" for s in range(1, 9)}


def test_awarding_request_tgd_1500_lists_every_sharer_and_the_figures_add_up() -> None:
    c = claim()
    req = awarding_request(decide(c), c, NAMES, casino="Casino", operator="Op", table="PK-03",
                           hit_at=datetime(2026, 11, 30, 21, 47), small_blind_cents=5_000,
                           jackpot_rake_cents=5_000)
    # 50% of 1,000,000.00 = 500,000.00: winning 100,000.00, losing 200,000.00,
    # table 200,000.00 / 6 = 33,333.33 each (0.02 left in main)
    assert [s.seat for s in req.sharers] == [4, 1, 2, 3, 5, 6, 7, 8]
    assert req.award_cents == 50_000_000
    assert req.sharers[0].gross_cents == 10_000_000 and req.sharers[0].tax_cents == 2_000_000
    assert req.sharers[2].gross_cents == 3_333_333
    assert [s.tax_cents for s in req.sharers if s.seat == 6] == [833_333]  # NRANETB 25%
    for s in req.sharers:
        assert s.gross_cents - s.tax_cents == s.net_cents
    assert req.paid_cents == 49_999_998
    assert req.main_after_cents + req.reserve_after_cents + req.paid_cents == 140_000_001
    page = text(awarding_request_html(req))
    assert "TGD-1500" in page and "50.00%" in page
    for s in req.sharers:
        assert f"Player {s.seat}" in page
        for amount in (s.gross_cents, s.tax_cents, s.net_cents):
            assert peso(amount) in page
    for total in (req.paid_cents, req.tax_cents, req.net_cents, req.main_after_cents,
                  req.reserve_after_cents):
        assert peso(total) in page
    assert "Ah Ad Tc 7s 7c" in page and "7h 7d" in page and "As Td" in page


def test_awarding_request_needs_a_name_for_every_sharer() -> None:
    c = claim()
    names = {k: v for k, v in NAMES.items() if k != 5}
    with pytest.raises(FormError, match="seat 5"):
        awarding_request(decide(c), c, names, casino="C", operator="O", table="T",
                         hit_at=datetime(2026, 1, 1), small_blind_cents=0, jackpot_rake_cents=0)


def test_awarding_request_refuses_a_claim_that_does_not_qualify() -> None:
    c = claim()
    small = Claim(**{**c.__dict__, "pot_cents": 100})
    with pytest.raises(FormError, match="POT_TOO_SMALL"):
        awarding_request(decide(small), small, NAMES, casino="C", operator="O", table="T",
                         hit_at=datetime(2026, 1, 1), small_blind_cents=0, jackpot_rake_cents=0)


# --- TGD-108 quarterly tax ---------------------------------------------------------------


def test_quarterly_tax_tgd_108_monthly_franchise_tax_and_withholding_totals() -> None:
    q = QuarterlyTax("Casino", "Op", 2026, 4, (
        MonthFees(date(2026, 10, 1), 100_000_00, 3_000_00, 1_000_00),  # taxable 104,000.00
        MonthFees(date(2026, 11, 1), 10_001, 0, 0),  # 100.01 -> 5.0005 -> 5.00
        MonthFees(date(2026, 12, 1), 10_010, 0, 0)), (  # 100.10 -> 5.005 -> 5.01
        JackpotPayment(date(2026, 10, 3), "H1", "A", "citizen", 2_000_000, 400_000),
        JackpotPayment(date(2026, 12, 3), "H2", "B", "nranetb", 100_000, 25_000)))
    assert [m.franchise_tax_cents for m in q.months] == [520_000, 500, 501]
    page = text(quarterly_tax_html(q))
    assert "TGD-108" in page
    assert peso(10_400_000 + 10_001 + 10_010) in page  # taxable total
    assert peso(520_000 + 500 + 501) in page  # franchise tax total
    assert peso(2_100_000) in page and peso(425_000) in page  # winnings, tax withheld


def test_quarterly_tax_needs_the_three_months_of_its_quarter() -> None:
    with pytest.raises(FormError, match="Q1 2026"):
        QuarterlyTax("C", "O", 2026, 1, (MonthFees(date(2026, 2, 1), 0, 0, 0),))


# --- TGD-1540 transfer / cessation -------------------------------------------------------


def test_transfer_tgd_1540_moves_increment_and_reserve_and_returns_the_seed() -> None:
    t = TransferCessation("C", "O", "BBJ", "transfer", date(2026, 11, 2), date(2026, 11, 23),
                          date(2026, 11, 16), seed_cents=5_000_000, main_cents=15_000_000,
                          reserve_cents=3_000_000, destination="BBJ 2")
    assert (t.increment_cents, t.transferred_cents, t.seed_returned_cents) == (
        10_000_000, 13_000_000, 5_000_000)
    # 14 business days before Monday 23 Nov 2026 is Tuesday 3 Nov; 2 after is Wednesday 25 Nov
    assert t.deadlines == {"notice": date(2026, 11, 3), "players": date(2026, 11, 16),
                           "part2": date(2026, 11, 25)}
    page = text(transfer_cessation_html(t))
    assert "TGD-1540" in page and "Part 1" in page and "Part 2" in page
    assert peso(13_000_000) in page and "LATE" not in page
    assert "no public holidays are configured" in page


def test_transfer_after_a_reset_has_no_seed_outstanding_and_moves_the_whole_main() -> None:
    # The ledger's reading (docs/bbj.md "The fund"): the seed is the infusions since the last
    # hit; after a hit with no seed since, nothing returns and main + reserve move.
    t = TransferCessation("C", "O", "BBJ", "transfer", date(2026, 11, 2), date(2026, 11, 23),
                          None, seed_cents=0, main_cents=15_000_000, reserve_cents=3_000_000,
                          destination="BBJ 2", jackpot_reset=True)
    assert (t.seed_returned_cents, t.transferred_cents) == (0, 18_000_000)
    page = text(transfer_cessation_html(t))
    assert "reset by a hit" in page and "____" in page  # players told: blank, to fill in
    with pytest.raises(FormError, match="seed amount: ₱50,000.00, but the jackpot was reset"):
        TransferCessation("C", "O", "BBJ", "transfer", date(2026, 11, 2), date(2026, 11, 23),
                          None, seed_cents=5_000_000, main_cents=15_000_000,
                          reserve_cents=0, destination="BBJ 2", jackpot_reset=True)


def test_transfer_deadlines_skip_the_holidays_and_the_form_names_them() -> None:
    # Effective Wed 30 Dec 2026 with 24, 25 Dec (Thu, Fri), 31 Dec, 1 Jan and Sun 27 Dec as
    # holidays: notice 14 business days back = Tue 8 Dec (Thu 10 Dec without the holidays);
    # part 2: Mon 4, Tue 5 Jan (Thu 1 Jan without them); Sunday 27 Dec is not "skipped".
    hol = (date(2026, 12, 24), date(2026, 12, 25), date(2026, 12, 27), date(2026, 12, 31),
           date(2027, 1, 1))
    t = TransferCessation("C", "O", "BBJ", "transfer", date(2026, 12, 1), date(2026, 12, 30),
                          date(2026, 12, 20), seed_cents=0, main_cents=100, reserve_cents=0,
                          destination="BBJ 2", holidays=hol)
    assert t.deadlines == {"notice": date(2026, 12, 8), "players": date(2026, 12, 23),
                           "part2": date(2027, 1, 5)}
    assert t.holidays_skipped == (date(2026, 12, 24), date(2026, 12, 25), date(2026, 12, 31),
                                  date(2027, 1, 1))
    page = text(transfer_cessation_html(t))
    assert ("Holidays skipped here: 24 December 2026, 25 December 2026, 31 December 2026, "
            "01 January 2027.") in page
    plain = TransferCessation(**{**t.__dict__, "holidays": ()})
    assert plain.deadlines["notice"] == date(2026, 12, 10)
    assert plain.deadlines["part2"] == date(2027, 1, 1)
    far = TransferCessation(**{**t.__dict__, "holidays": (date(2026, 6, 12),)})
    assert "none of the 1 configured falls in these periods" in text(
        transfer_cessation_html(far))


def test_cessation_after_hit_adds_the_reserve_to_the_main_amount_won() -> None:
    t = TransferCessation("C", "O", "BBJ", "cease", date(2026, 11, 2), date(2026, 11, 23),
                          date(2026, 11, 20), seed_cents=5_000_000, main_cents=15_000_000,
                          reserve_cents=3_000_000)
    page = text(transfer_cessation_html(t))
    assert peso(18_000_000) in page and "LATE" in page  # players told 3 days ahead, not 7
    assert t.transferred_cents == 0


def test_business_days_skip_weekends_and_holidays() -> None:
    assert add_business_days(date(2026, 11, 27), 1) == date(2026, 11, 30)  # Fri -> Mon
    assert add_business_days(date(2026, 11, 30), -1) == date(2026, 11, 27)
    hol = (date(2026, 11, 30),)  # Monday a holiday: Fri -> Tue, and back Tue -> Fri
    assert add_business_days(date(2026, 11, 27), 1, hol) == date(2026, 12, 1)
    assert add_business_days(date(2026, 12, 1), -1, hol) == date(2026, 11, 27)


# --- PDF ---------------------------------------------------------------------------------


def test_every_form_prints_to_a_pdf(tmp_path: Path) -> None:
    for stem, html in demo_forms().items():
        assert stem.split("-")[1] in html  # the form number
        out = write_pdf(html, tmp_path / f"{stem}.pdf")
        assert out.read_bytes().startswith(b"%PDF")


def test_the_daily_report_prints_the_floor_files_rates_and_chips() -> None:
    """[poker_room] admin_fee_rate 0.25, main_rate 0.60 and a 1,000-peso chip: the form splits
    and labels with them (the ledger's distribute at those rates)."""
    from decimal import Decimal

    from core.pokerroom.fund import FundSettings
    from printing.pages.forms import rate_text

    st = FundSettings(admin_fee_rate=Decimal("0.25"), main_rate=Decimal("0.60"),
                      denominations=(1000, 500, 100))
    table = TableDay("PK-01", time(10), time(22), "D", "R-1", "J-1", 100_000, 160_000,
                     {1000: 1, 500: 1, 100: 1}, denominations=st.denominations)
    report = DailyReport("TGD-1623", "C", "O", date(2026, 11, 30), (table,), 0, 0,
                         settings=st)
    # 1,600.00: fee 25% 400.00, fund 1,200.00: main 60% 720.00, reserve 480.00
    f = report.fund
    assert (f.admin_fee, f.to_fund, f.to_main, f.to_reserve) == (40_000, 120_000, 72_000, 48_000)
    assert report.remittance is not None and report.remittance.b_jackpot_admin_fee == 40_000
    page = text(daily_report_html(report))
    for label in ("administrative fee (25%)", "To the jackpot fund (75%)", "Main jackpot (60%)",
                  "Reserve (40%)", "PHP 1000 x", "x 25%"):
        assert label in page, label
    assert (rate_text(Decimal("0.30")), rate_text(Decimal("0.325"))) == ("30%", "32.5%")
    with pytest.raises(FormError, match="chip denomination 25 is not one of 1000, 500, 100"):
        TableDay("PK-01", time(10), time(22), "D", "R-1", "J-1", 0, 2_500, {25: 1},
                 denominations=st.denominations)


# --- TGD-1581: the filing deadline (8 business days before, 3:00 PM cut-off) -------------

MANILA = ZoneInfo("Asia/Manila")


def flat(html: str) -> str:
    """The visible text with every run of white space as one space."""
    return re.sub(r"\s+", " ", unescape(text(html))).strip()


def manila(y: int, mo: int, d: int, h: int, mi: int = 0, sec: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, sec, tzinfo=MANILA)


def test_latest_filing_is_15_00_eight_business_days_before_the_effective_date() -> None:
    # Effective Monday 14 Dec 2026; back 8 business days: Fri 11, Thu 10, Wed 9, Tue 8, Mon 7,
    # Fri 4, Thu 3, Wed 2 -> Wednesday 2 Dec 2026 at 15:00 Manila time.
    assert impl.latest_filing(date(2026, 12, 14), MANILA) == manila(2026, 12, 2, 15)
    # Tuesday 8 Dec a public holiday: one more day back, Tuesday 1 Dec
    assert impl.latest_filing(date(2026, 12, 14), MANILA, (date(2026, 12, 8),)) == \
        manila(2026, 12, 1, 15)
    # a holiday on a Saturday changes nothing; an effective Saturday counts from Friday back
    assert impl.latest_filing(date(2026, 12, 14), MANILA, (date(2026, 12, 5),)) == \
        manila(2026, 12, 2, 15)
    assert impl.latest_filing(date(2026, 12, 12), MANILA) == manila(2026, 12, 2, 15)


def test_a_submission_after_3_pm_or_on_a_day_off_is_received_the_next_business_day() -> None:
    wed = date(2026, 12, 2)
    assert impl.received_on(manila(2026, 12, 2, 15, 0, 0), MANILA) == wed  # at 3:00 PM: that day
    assert impl.received_on(manila(2026, 12, 2, 15, 0, 1), MANILA) == date(2026, 12, 3)
    assert impl.received_on(manila(2026, 12, 2, 15, 1), MANILA) == date(2026, 12, 3)
    # Friday 4 Dec 16:00 -> Monday 7 Dec; Saturday and Sunday -> Monday
    assert impl.received_on(manila(2026, 12, 4, 16), MANILA) == date(2026, 12, 7)
    assert impl.received_on(manila(2026, 12, 5, 10), MANILA) == date(2026, 12, 7)
    assert impl.received_on(manila(2026, 12, 6, 9), MANILA) == date(2026, 12, 7)
    # Friday 16:00 before a holiday Monday -> Tuesday; a holiday morning -> the next day
    assert impl.received_on(manila(2026, 12, 4, 16), MANILA, (date(2026, 12, 7),)) == \
        date(2026, 12, 8)
    assert impl.received_on(manila(2026, 12, 8, 9), MANILA, (date(2026, 12, 8),)) == \
        date(2026, 12, 9)
    # the clock is the casino's: 07:30 UTC is 15:30 in Manila, after the cut-off
    assert impl.received_on(datetime(2026, 12, 2, 7, 30, tzinfo=UTC), MANILA) == \
        date(2026, 12, 3)
    with pytest.raises(impl.ImplementationError, match="give its time zone"):
        impl.received_on(datetime(2026, 12, 2, 9), MANILA)


def test_is_timely_up_to_the_latest_filing_moment() -> None:
    eff = date(2026, 12, 14)
    assert impl.is_timely(manila(2026, 12, 2, 15), eff, MANILA)
    assert not impl.is_timely(manila(2026, 12, 2, 15, 1), eff, MANILA)  # received Thu 3 Dec
    assert impl.is_timely(manila(2026, 12, 1, 16), eff, MANILA)  # received Wed 2 Dec
    assert impl.is_timely(manila(2026, 11, 28, 11), eff, MANILA)  # a Saturday: Mon 30 Nov
    assert not impl.is_timely(manila(2026, 12, 1, 16), eff, MANILA, (date(2026, 12, 8),))


def implementation_form(**kw: object) -> ImplementationRequest:
    rules = BbjSettings(split=Split(Decimal("0.25"), Decimal("0.35"), Decimal("0.40")),
                        min_players=6, min_pot_big_blinds=25, tax_threshold_cents=2_000_000,
                        resident_tax_rate=Decimal("0.20"), nranetb_tax_rate=Decimal("0.25"))
    fund = FundSettings(rake_rate=Decimal("0.10"), room_max_rake_cents=8_000,
                        caps_by_big_blind=((2_000, 2_000), (5_000, 6_000)),
                        admin_fee_rate=Decimal("0.30"), main_rate=Decimal("0.70"),
                        denominations=(500, 100, 20))
    args: dict[str, object] = dict(
        casino="C", operator="O", jackpot="Poker room BBJ (bbj)", effective_on=date(2026, 12, 14),
        tz=MANILA, rules=rules, fund=fund, seed_cents=5_000_000, main_cents=5_000_000,
        reserve_cents=0)
    args.update(kw)
    return ImplementationRequest(**args)  # type: ignore[arg-type]


def test_tgd_1581_prints_the_rooms_rules_and_the_latest_filing() -> None:
    r = implementation_form(holidays=(date(2026, 12, 8),), room_location="2/F Grand Hall")
    page = flat(implementation_request_html(r))
    for shown in ("TGD-1581", "Annex A", "Poker room BBJ (bbj)", "14 December 2026",
                  "Tuesday 01 December 2026 15:00 (UTC+08:00)", "08 December 2026",
                  "Players dealt in (at least) 6", "25 x the big blind",
                  "Winning hand 25%", "Losing (bad beat) hand 35%", "equally) 40%",
                  "20% of the whole share above ₱20,000.00", "25% of any share",
                  "once per hand) 10%", "per hand ₱80.00", "daily jackpot rake) 30%",
                  "To the jackpot fund 70%", "fund's share) 70%", "fund's share) 30%",
                  "500, 100, 20", "₱20.00 ₱20.00 25.00%", "₱50.00 ₱60.00 75.00%",
                  "so far ₱50,000.00", "none: not running yet", "2/F Grand Hall",
                  "Aces full of Tens"):
        assert shown in page, shown
    # no filing time: the submission and its receipt are blanks to fill in by hand
    # (and the other documents' boxes, ticked by hand)
    assert page.count(f"({HAND_MARK})") == 3 and r.timely is None


def test_tgd_1581_says_on_time_or_late_and_refuses_a_filing_after_the_effective_date() -> None:
    on_time = implementation_form(filed_at=manila(2026, 12, 2, 15))
    assert on_time.timely is True and on_time.received_on == date(2026, 12, 2)
    assert "02 December 2026 (on time)" in flat(implementation_request_html(on_time))
    late = implementation_form(filed_at=manila(2026, 12, 4, 16))  # received Mon 7 Dec
    assert late.timely is False
    assert ("07 December 2026 (LATE: received after the latest filing day 02 December 2026)"
            in flat(implementation_request_html(late)))
    with pytest.raises(FormError, match="effective date 2026-12-14: a request filed 2026-12-11 "
                                        "16:00 is received on 2026-12-14, not before"):
        implementation_form(filed_at=manila(2026, 12, 11, 16))  # Friday after 3 PM -> Monday
    with pytest.raises(FormError, match="give its time zone"):
        implementation_form(filed_at=datetime(2026, 12, 1, 9))
    running = implementation_form(postings=12, first_posted=date(2026, 11, 20),
                                  main_cents=7_000_000, reserve_cents=600_000)
    page = flat(implementation_request_html(running))
    assert "12 (first 20 November 2026)" in page and peso(600_000) in page


# --- every form: location, TGD reference, attestation, PAGCOR action -------------------


def test_every_form_has_the_pagcor_sections_and_the_room_location_or_a_blank() -> None:
    forms = demo_forms()
    assert set(forms) == {"tgd-1623-daily-onsite", "tgd-1494-daily-offsite",
                          "tgd-1500-awarding-request", "tgd-108-quarterly-tax",
                          "tgd-1540-transfer-cessation", "tgd-1581-implementation-request"}
    for stem, html in forms.items():
        page = flat(html)
        for part in ("TGD reference no.:", "Certification and attestation",
                     "Attested by PAGCOR:", "For PAGCOR use only: action taken",
                     f"{BOX} Approved", f"{BOX} Disapproved", "Remarks",
                     "Date and time received", "Poker room location:"):
            assert part in page, (stem, part)
        assert page.count(f"({PAGCOR_MARK})") >= 8, stem  # reference, attestation, action
        assert 'name="podium-keep-together"' in html  # kept on one page when printed
    # the demo's TGD-1540 has no location: a blank marked for the hand
    assert f"Poker room location: {'_' * 28} ({HAND_MARK})" in flat(
        forms["tgd-1540-transfer-cessation"])
    assert "Poker room location: 2/F Grand Hall" in flat(forms["tgd-1623-daily-onsite"])


def test_daily_report_cash_game_chip_counts_are_a_blank_the_rake_is_the_count() -> None:
    report = DailyReport("TGD-1494", "C", "O", date(2026, 11, 30),
                         (table("PK-01"), table("PK-02", rake=1_000_000)), 0, 0)
    page = flat(daily_report_html(report))
    cash = page[page.index("Cash game (house rake) drop box chip count"):
                page.index("Jackpot fund distribution")]
    assert "R-1" in cash and peso(2_845_000) in cash and peso(3_845_000) in cash
    assert f"Number of chips per denomination: ({HAND_MARK})" in cash
    # the jackpot drop box's chips are the ledger's: printed
    assert "Jackpot drop box count by denomination" in page


def test_awarding_request_has_a_receipt_per_sharer_with_the_net_and_the_day_paid() -> None:
    html = demo_forms()["tgd-1500-awarding-request"]
    page = flat(html)
    receipts = page[page.index("Acknowledgment receipts"):page.index("Certification")]
    # demo: seats 1 and 4 paid on 2 Dec; the others not yet
    assert receipts.count("02 December 2026") == 2
    assert receipts.count("(not paid yet)") == 6
    for name, net in (("Pedro Aquino", 24_544_000), ("Maria Santos", 49_088_000),
                      ("Kenji Watanabe", 7_669_999)):
        assert f"{name} {peso(net)}" in receipts
    assert f"Signature and date received: ({HAND_MARK})" in receipts


def test_quarterly_tax_less_25_percent_is_of_the_franchise_tax_onsite_only() -> None:
    """Annex E (TGD-108), section III "FOR ONSITE POKER ROOM OPERATOR": "TAXABLE AMOUNT
    (A+B+C)", "5% FRANCHISE TAX DUE (FT)", "Less: 25% of FT remitted to PAGCOR", "FRANCHISE
    TAX PAYMENT (Attached BIR Form 2553 with payment details/validation)"; section II (offsite)
    has no "Less" line.  The 25% is of FT (item E), not of the net F (issue 27 point 1)."""
    # D = 100,000.00 + 10,000.01 = 110,000.01; FT = 5% = 5,500.0005 -> 5,500.00;
    # less 25% of FT = 1,375.00; onsite payment 5,500.00 - 1,375.00 = 4,125.00.
    # (25% of F = 25% of 104,500.01 = 26,125.00 would be the wrong base.)
    # February (the October figures): D = 2,470,912.50 -> FT = 123,545.625 ->
    # 123,545.63 (half up); 25% of FT = 30,886.4075 -> 30,886.41; payment 92,659.22.
    months = (MonthFees(date(2026, 1, 1), 10_000_000, 1_000_001, 0),
              MonthFees(date(2026, 2, 1), 247_091_250, 0, 0), MonthFees(date(2026, 3, 1), 0,
                                                                        0, 0))
    jan, feb = months[0], months[1]
    assert (jan.taxable_cents, jan.franchise_tax_cents, jan.pagcor_share_cents) == (
        11_000_001, 550_000, 137_500)
    assert (feb.franchise_tax_cents, feb.pagcor_share_cents) == (12_354_563, 3_088_641)
    assert (jan.franchise_tax_payment_cents(True), feb.franchise_tax_payment_cents(True)) == (
        412_500, 9_265_922)
    assert jan.franchise_tax_payment_cents(False) == 550_000
    onsite = flat(quarterly_tax_html(QuarterlyTax("C", "O", 2026, 1, months, onsite=True)))
    assert f"\u2612 Onsite {BOX} Offsite" in onsite
    assert "III. For onsite poker room operator" in onsite
    assert "Less: 25% of FT remitted to PAGCOR" in onsite
    assert (f"January 2026 {peso(11_000_001)} {peso(550_000)} {peso(137_500)} "
            f"{peso(412_500)}") in onsite
    assert (f"February 2026 {peso(247_091_250)} {peso(12_354_563)} {peso(3_088_641)} "
            f"{peso(9_265_922)}") in onsite
    assert (f"Q1 total {peso(258_091_251)} {peso(12_904_563)} {peso(3_226_141)} "
            f"{peso(9_678_422)}") in onsite
    offsite = flat(quarterly_tax_html(QuarterlyTax("C", "O", 2026, 1, months, onsite=False)))
    assert f"{BOX} Onsite \u2612 Offsite" in offsite
    assert "II. For offsite poker room operator" in offsite and "Less:" not in offsite
    assert f"January 2026 {peso(11_000_001)} {peso(550_000)} {peso(550_000)}" in offsite


def test_quarterly_tax_has_the_forms_bir_payment_fields_and_quarter_boxes() -> None:
    """Annex E: "FRANCHISE TAX PAID (Attached BIR Form 2553 with payment details/validation)",
    "TOTAL QUARTERLY FINAL WITHHOLDING TAX", "FINAL INCOME TAX PAID (Attached BIR forms
    0619F,BIR form 1601FQ with payment details/validation)", "Quarter: First Second Third
    Fourth", "Product Type ... POKERROOM", "Reference No."."""
    months = (MonthFees(date(2026, 10, 1), 0, 0, 0), MonthFees(date(2026, 11, 1), 0, 0, 0),
              MonthFees(date(2026, 12, 1), 0, 0, 0))
    # a citizen's share of 20,196.00 paid 20 November: 20% = 4,039.20 withheld
    pay = JackpotPayment(date(2026, 11, 20), "case 1 / award 1 seat 1", "Ana Lim", "citizen",
                         2_019_600, 403_920)
    page = flat(quarterly_tax_html(QuarterlyTax("C", "O", 2026, 4, months, (pay,))))
    assert f"Quarter {BOX} First {BOX} Second {BOX} Third \u2612 Fourth" in page
    assert "\u2612 Poker room" in page and f"Reference no. {'_' * 22} ({PAGCOR_MARK})" in page
    assert "BIR Form 2553 payment details / validation" in page
    assert f"November 2026 {peso(2_019_600)} {peso(403_920)}" in page
    assert f"Total quarterly final withholding tax {peso(2_019_600)} {peso(403_920)}" in page
    assert f"BIR Form 0619-F (October 2026) {peso(0)}" in page
    assert f"BIR Form 0619-F (November 2026) {peso(403_920)}" in page
    assert f"BIR Form 1601-FQ (Q4 2026; December remitted with it) {peso(403_920)}" in page


def test_transfer_cessation_has_the_linked_tables_and_the_affirmations() -> None:
    t = TransferCessation("C", "O", "BBJ", "transfer", None, date(2026, 12, 14), None,
                          seed_cents=0, main_cents=1_000_000, reserve_cents=200_000,
                          destination="BBJ 2",
                          linked_tables=(LinkedTable("PK-02", date(2026, 11, 2),
                                                     date(2026, 12, 1), 20, 500_000),
                                         LinkedTable("PK-01", date(2026, 11, 1),
                                                     date(2026, 12, 1), 25, 700_000)))
    page = flat(transfer_cessation_html(t))
    linked = page[page.index("Linked tables"):page.index("Affirmations")]
    assert ("PK-01 01 November 2026 01 December 2026 25 " + peso(700_000)) in linked
    assert "2 tables" in linked and peso(1_200_000) in linked
    statements = affirmations(t)
    assert len(statements) == 4 and "go to BBJ 2" in statements[2]
    for s in statements:
        assert f"{BOX} {s}" in page
    none = flat(transfer_cessation_html(TransferCessation(**{**t.__dict__,
                                                             "linked_tables": ()})))
    assert "No drop box of this jackpot is counted in the ledger. Tables: " in none
    cease = TransferCessation("C", "O", "BBJ", "cease", None, date(2026, 12, 14), None,
                              seed_cents=0, main_cents=1_000_000, reserve_cents=200_000)
    assert "the reserve is added to the main amount won" in affirmations(cease)[2]


def test_the_implementation_request_prints_the_rooms_tie_policy() -> None:
    """RULES.md 6.6: the tie policy is the room's ([poker_room] tie), so the request for
    approval says which one the room will apply."""
    split = flat(implementation_request_html(implementation_form()))
    refuse = flat(implementation_request_html(implementation_form(
        rules=BbjSettings(tie="refuse"))))
    assert "the place's share divided equally, each rounded down" in split
    assert "refused: the room manager decides" not in split
    assert "refused: the room manager decides" in refuse


# --- the forms whole (issue 27 point 9): each field as the annex form writes it --------------


def test_awarding_request_has_the_table_sharers_remarks_undertakings_and_cut_off() -> None:
    """Annex D (TGD-1500) page 1: "TABLE SHARE (40%) ... No. of Table Sharers: ... Table Share
    Per Player: ... Remarks:"; "Cut-off for submission of requests shall be 3:00 P.M."; page
    2: "We confirm and undertake to comply with the following: 1. Jackpot payout shall be made
    within forty-eight (48) hours from the time the jackpot request was approved." ... "9.
    After granting of the award, the Operator shall submit to TGD the Acknowledgement Receipt
    on page 3 ..."; page 3: "... reflected in the attached BIR Form 2553."  The guideline
    III.I: "A player must be dealt in and seated at the beginning of the hand to qualify to
    the table share."."""
    board = parse_cards(["Ah", "Ad", "Tc", "7s", "7c"], count=None)
    w, lo = parse_cards(["7h", "7d"], count=None), parse_cards(["As", "Td"], count=None)
    # main 100,000.00 at 100%: table share 40% = 40,000.00; seats 2, 3, 5, 6, 7 dealt in
    # besides the two hands, seat 7 not seated at the start: 4 table sharers, 10,000.00 each
    # (not above 10,000.00: no tax)
    claim = Claim(big_blind_cents=10_000, pot_cents=412_000, dealt_in=(1, 2, 3, 4, 5, 6, 7),
                  board=board, showdown=(ShownHand(1, (lo[0], lo[1])),
                                         ShownHand(4, (w[0], w[1]))),
                  table_jackpot_rake_cap_cents=10_000, room_max_jackpot_rake_cents=10_000,
                  main_jackpot_cents=10_000_000, reserve_jackpot_cents=0, not_seated=(7,))
    names = {s: f"Player {s}" for s in range(1, 8)}
    req = awarding_request(decide(claim), claim, names, casino="C", operator="O", table="PK-1",
                           hit_at=datetime(2026, 11, 30, 21, 47), small_blind_cents=5_000,
                           jackpot_rake_cents=10_000)
    page = flat(awarding_request_html(req))
    share = page[page.index("Table share Gross table share"):page.index("We confirm")]
    assert (f"Gross table share {peso(4_000_000)} No. of table sharers 4 Table share per "
            f"player (gross) {peso(1_000_000)}") in share
    assert ("Remarks Seat 7 dealt in but not seated at the beginning of the hand: no table "
            "share (guideline III.I)") in share
    assert "Player 7" not in page
    assert "Cut-off for submission of requests shall be 3:00 P.M." in page
    assert ("1. Jackpot payout shall be made within forty-eight (48) hours from the time the "
            "jackpot request was approved.") in page
    for n, words in ((5, "Immediate sorting of the deck used shall be effected."),
                     (6, "CCTV coverage shall be reviewed by the Operator prior to paying out"),
                     (7, "At least five (5) deals before the hit until card sorting: Stub Count"),
                     (8, "Photocopy of valid IDs of the players; Bank certificate/ statement"),
                     (9, "Acknowledgement Receipt on page 3 duly signed by the players")):
        assert f"{n}. " in page and words in page
    assert ("have been deducted the applicable withholding tax reflected in the attached BIR "
            "Form 2553.") in page
    # nobody left out: the remarks are a blank to fill in
    everyone = replace(req, not_seated=())
    assert f"Remarks {'_' * 22} ({HAND_MARK})" in flat(awarding_request_html(everyone))


def test_transfer_cessation_lists_the_forms_attachments_and_its_cut_off() -> None:
    """Annex F (TGD-1540): "The following are attached to this form: Updated TGD-1508 [sic]
    Bank Statement Proposed Progressive Jackpot IRG (if applicable)"; "Cut-off for
    submission of notifications shall be 3:00 PM"."""
    page = flat(demo_forms()["tgd-1540-transfer-cessation"])
    attached = page[page.index("The following are attached"):page.index("Certification")]
    for item in ("Updated TGD-1508", "Bank Statement",
                 "Proposed Progressive Jackpot IRG (if applicable)"):
        assert f"{BOX} {item}" in attached
    assert "Cut-off for submission of notifications shall be 3:00 PM" in attached


def test_implementation_request_has_the_other_documents_and_the_undertaking() -> None:
    """Annex A (TGD-1581): "OTHER DOCUMENTS FOR SUBMISSION A. Implementing Rules and Guidelines
    ... B. Bank Certificate of the account for the exclusive use of progressive jackpot funds
    C. Letter of Authorization for PAGCOR to audit Bad Beat Jackpot bank account"; "We confirm
    and undertake to implement Poker progressive wagering and progressive jackpot in accordance
    with Poker progressive jackpot guidelines as prescribed in the Gaming Site Regulatory
    Manual (Poker Games)."; "Cut-off for submission of requests/notifications shall be 3:00
    PM"."""
    page = flat(implementation_request_html(implementation_form()))
    docs = page[page.index("Other documents for submission"):page.index("Certification")]
    assert f"{BOX} A. Implementing Rules and Guidelines for the Poker progressive" in docs
    assert ("B. Bank Certificate of the account for the exclusive use of progressive jackpot "
            "funds") in docs
    assert "C. Letter of Authorization for PAGCOR to audit Bad Beat Jackpot bank account" in docs
    assert ("We confirm and undertake to implement Poker progressive wagering and progressive "
            "jackpot in accordance with Poker progressive jackpot guidelines as prescribed in "
            "the Gaming Site Regulatory Manual (Poker Games).") in docs
    assert "Cut-off for submission of requests/notifications shall be 15:00" in docs


def test_onsite_daily_report_has_both_pagcor_lines_and_the_treasury_receipt() -> None:
    """Annex C (TGD-1623): "1. PAGCOR Share (25% of Item F)", "2. 25% of Franchise Tax (25% of
    item E)", "TOTAL REMITTANCE DUE TO PAGCOR (1 + 2)"; page 2: "ACKNOWLEDGEMENT RECEIPT
    trading date: This acknowledges receipt of the cash amount of P representing Poker
    Operator's remittance for ... Received By ... Treasury Division Representative ...
    Conforme ... Operator's Representative"."""
    # docs/forms.md's worked example: F 96,705.25 x 25% = 24,176.31; E 5,089.75 x 25% =
    # 1,272.44; total 25,448.75
    page = flat(demo_forms()["tgd-1623-daily-onsite"])
    assert f"1. PAGCOR share (25% of item F) {peso(2_417_631)}" in page
    assert f"2. 25% of franchise tax (25% of item E) {peso(127_244)}" in page
    assert f"TOTAL REMITTANCE DUE TO PAGCOR (1 + 2) {peso(2_544_875)}" in page
    # after the operator's signatures, as the form prints it
    assert page.index("Certification") < page.index("Acknowledgement receipt (PAGCOR")
    receipt = page[page.index("Acknowledgement receipt (PAGCOR Treasury)"):
                   page.index("For PAGCOR use only")]
    assert (f"Trading date: 30 November 2026. This acknowledges receipt of the cash amount of "
            f"{peso(2_544_875)} representing Poker Operator's remittance for 30 November "
            "2026.") in receipt
    assert "Received by (Treasury Division Representative): (PAGCOR use)" in receipt
    assert "Conforme (Operator's Representative):" in receipt
    offsite = flat(demo_forms()["tgd-1494-daily-offsite"])
    assert "Acknowledgement receipt" not in offsite  # TGD-1494 has no remittance
