"""The regulator's forms filled from the ledger (printing/pages/ledger_forms/, docs/forms.md "From
the ledger"): every figure is checked against a hand computation of the ledger built here through
core/pokerroom/fund/ and core/pokerroom/cases/, and every refusal.  SQLite and PostgreSQL.

The ledger (casino time zone Asia/Manila, UTC+8):

* fund ``bbj`` "Poker room BBJ": opening seed 50,000.00 on 28 Nov 2026;
* Monday 30 Nov 2026, two tables (PK-01 10:00-23:45, PK-03 18:00-02:10):
  jackpot rake 12,300.00 + 14,550.00 = 26,850.00 -> admin fee 8,055.00, to the fund
  18,795.00 -> main 13,156.50, reserve 5,638.50; house rake 28,450.00 + 31,020.00 = 59,470.00;
  seed 10,000.00 at 12:00 (before the posting); tournament fees 12,500.00 - 2,500.00 (a
  correction) = 10,000.00; posted on 1 Dec 06:00: previous 60,000.00 / 0.00 (the seeds),
  updated 73,156.50 / 5,638.50;
* Tuesday 1 Dec: PK-01 10:00-22:00, jackpot rake 1,440.00 -> admin 432.00, main 705.60, reserve
  302.40; house rake 5,000.00; tournament fee 3,000.00; posted 2 Dec 06:00: 73,862.10 / 5,940.90;
* case 1: a bad beat at PK-01 at 14:00 on 1 Dec (big blind 20.00, pot 600.00, cap 100.00 = room
  maximum), opened before the day's posting (on 73,156.50 / 5,638.50), approved after it: the
  award is on 73,862.10 / 5,940.90 (see test_awarding_request...); shares paid on 3 Dec,
  seat 6 at 07:00 on 1 Jan 2027 (still 31 Dec in UTC).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

import core.pokerroom.fund as bf
from core.app.demo import demo_credential, enroll_demo_employees, swipe_of
from core.floorconfig import PokerRoomConfig
from core.kernel.cards import Card, parse_cards
from core.ledger.audit import verify
from core.ledger.models import BbjPosting
from core.pokerroom import cases as bc
from core.pokerroom.fund import FundSettings
from core.pokerroom.rules.bbj import BbjSettings, ShownHand, Split
from printing.pages import ledger_forms as lf
from printing.pages.forms import (
    HAND_MARK,
    FormError,
    LinkedTable,
    awarding_request_html,
    daily_report_html,
    implementation_request_html,
    peso,
    quarterly_tax_html,
    transfer_cessation_html,
)

MANILA = ZoneInfo("Asia/Manila")
SUP = swipe_of("1001")
CASINO, OPERATOR = "Podium Test Casino", "Podium Test Gaming Corp."
DAY1, DAY2 = date(2026, 11, 30), date(2026, 12, 1)
HIT = datetime(2026, 12, 1, 14, 0, tzinfo=MANILA)
HOLIDAYS = (date(2026, 12, 8), date(2026, 12, 24), date(2026, 12, 25), date(2026, 12, 30),
            date(2026, 12, 31), date(2027, 1, 1), date(2027, 1, 9))  # 9 Jan 2027: a Saturday


def local(y: int, mo: int, d: int, h: int, mi: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=MANILA)


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " "))


def cards(t: str) -> tuple[Card, ...]:
    return parse_cards(t.split(), count=None)


def claim_entry(table: str = "PK-01", *, big_blind: int = 2_000, pot: int = 60_000,
                cap: int = 10_000, names: dict[int, str] | None = None) -> bc.ClaimEntry:
    """Aces full of Tens (seat 1, losing) beaten by four sevens (seat 4, winning), 6 seats."""
    a, b = cards("As Td"), cards("7h 7d")
    return bc.ClaimEntry(
        table=table, big_blind_cents=big_blind, pot_cents=pot, dealt_in=(1, 2, 3, 4, 5, 6),
        board=cards("Ah Ad Tc 7s 7c"),
        showdown=(ShownHand(1, (a[0], a[1])), ShownHand(4, (b[0], b[1]))),
        table_jackpot_rake_cap_cents=cap, room_max_jackpot_rake_cents=10_000,
        names=names if names is not None else {
            1: "Maria Santos", 2: "Kenji Watanabe", 3: "Ana Lim", 4: "Pedro Aquino",
            5: "Liza Mendoza", 6: "Carlo Ramos"},
        id_checked=frozenset(range(1, 7)), taxpayers={2: "nranetb"})


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def set(self, at: datetime) -> Clock:
        self.at = at
        return self


def count_day1(engine: Engine, fund: str = "bbj") -> None:
    bf.record_count(engine, fund, business_date=DAY1, table="PK-01", drop_box="J-0101",
                    opened_at=local(2026, 11, 30, 10), closed_at=local(2026, 11, 30, 23, 45),
                    dealer="J. dela Cruz / M. Garcia", pieces={500: 10, 100: 60, 50: 24, 25: 4},
                    by="cage", rake_box="R-0101", rake_cents=2_845_000,
                    at=local(2026, 12, 1, 3))
    bf.record_count(engine, fund, business_date=DAY1, table="PK-03", drop_box="J-0103",
                    opened_at=local(2026, 11, 30, 18), closed_at=local(2026, 12, 1, 2, 10),
                    dealer="R. Villanueva", pieces={500: 20, 100: 40, 50: 10, 25: 2},
                    by="cage", rake_box="R-0103", rake_cents=3_102_000,
                    at=local(2026, 12, 1, 3))


def count_day2(engine: Engine, fund: str = "bbj", table: str = "PK-01",
               day: date = DAY2) -> None:
    """One table 10:00-22:00: 2 x 500 + 3 x 100 + 50 + 2 x 25 + 4 x 10 = 1,440.00."""
    bf.record_count(engine, fund, business_date=day, table=table, drop_box="J-0201",
                    opened_at=datetime.combine(day, datetime.min.time(), MANILA)
                    + timedelta(hours=10),
                    closed_at=datetime.combine(day, datetime.min.time(), MANILA)
                    + timedelta(hours=22),
                    dealer="A. Bautista", pieces={500: 2, 100: 3, 50: 1, 25: 2, 10: 4},
                    by="cage", rake_box="R-0201", rake_cents=500_000,
                    at=datetime.combine(day, datetime.min.time(), MANILA) + timedelta(hours=23))


def fee(engine: Engine, day: date, cents: int, reason: str = "") -> None:
    with Session(engine) as s, s.begin():
        bf.record_tournament_fee_in(s, business_date=day, tournament="Sunday Deepstack",
                                    fee_cents=cents, by="cage", reason=reason,
                                    now=local(day.year, day.month, day.day, 23))


@pytest.fixture
def days(engine: Engine) -> Engine:
    """The fund and both days counted and posted (no case)."""
    return fill_days(engine)


def fill_days(engine: Engine) -> Engine:
    """The ``days`` ledger on ``engine`` (also tests/ledger_form_shots.py's)."""
    # a floor whose executive threshold is above these awards: supervisors take every step
    # (the authority by size is tested in tests/core/pokerroom/test_bbj_cases.py)
    from core.floorconfig import Authorization
    from core.people import cardkey
    from core.people.auth import Gate, register_gate

    register_gate(Gate(engine, cardkey.load(), Authorization(100_000_000,
                                                             separate_verifier_cents=100_000_000)))
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=local(2026, 11, 28, 9))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed",
            at=local(2026, 11, 28, 9))
    count_day1(engine)
    bf.seed(engine, "bbj", 1_000_000, by="operator", reason="top-up",
            at=local(2026, 11, 30, 12))
    fee(engine, DAY1, 1_250_000)
    fee(engine, DAY1, -250_000, reason="prize pool overstated")
    fee(engine, DAY2, 300_000)
    bf.post_day(engine, "bbj", DAY1, by="cage", at=local(2026, 12, 1, 6))
    count_day2(engine)
    return engine


@pytest.fixture
def ledger(days: Engine) -> Engine:
    """Plus case 1, opened before day 2's posting, approved after it, every share paid."""
    engine = days
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(engine, "bbj", claim_entry(), HIT, SUP, clock=clock)
    assert cid == 1
    bf.post_day(engine, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    bc.advance(engine, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
               clock=clock.set(local(2026, 12, 1, 16)))
    bc.advance(engine, cid, "request_filed", SUP, clock=clock.set(local(2026, 12, 1, 18)))
    bc.advance(engine, cid, "approved", SUP, clock=clock.set(local(2026, 12, 2, 10)))
    for i, seat in enumerate((4, 1, 2, 3, 5)):
        bc.advance(engine, cid, "share_paid", SUP, seat=seat,
                   clock=clock.set(local(2026, 12, 3, 11, i)))
    bc.advance(engine, cid, "share_paid", SUP, seat=6, clock=clock.set(local(2027, 1, 1, 7)))
    return engine


KW = {"casino": CASINO, "operator": OPERATOR, "tz": MANILA}


# --- TGD-1623 / TGD-1494 -------------------------------------------------------------------


def test_daily_report_tables_chips_and_rake_come_from_the_days_counts(days: Engine) -> None:
    r = lf.daily_report(days, "bbj", DAY1, onsite=True, **KW)
    assert r.form == "TGD-1623" and r.gaming_day == DAY1 and r.casino == CASINO
    t1, t3 = r.tables
    assert (t1.table, t1.opened.isoformat(), t1.closed.isoformat(), t1.dealer, t1.rake_box,
            t1.jackpot_box, t1.rake_cents, t1.jackpot_rake_cents) == (
        "PK-01", "10:00:00", "23:45:00", "J. dela Cruz / M. Garcia", "R-0101", "J-0101",
        2_845_000, 1_230_000)
    assert dict(t1.chips) == {500: 10, 100: 60, 50: 24, 25: 4}
    # PK-03 closes at 02:10 local on 1 Dec: still the gaming day it opened on
    assert (t3.table, t3.opened.isoformat(), t3.closed.isoformat()) == ("PK-03", "18:00:00",
                                                                        "02:10:00")
    assert "02:10 (+1 day)" in text(daily_report_html(r))
    assert dict(t3.chips) == {500: 20, 100: 40, 50: 10, 25: 2}
    assert (r.rake_cents, r.jackpot_rake_cents) == (5_947_000, 2_685_000)


def test_daily_report_prints_the_chain_head_an_auditor_can_check(days: Engine) -> None:
    page = text(daily_report_html(lf.daily_report(days, "bbj", DAY1, onsite=True, **KW)))
    found = re.search(r"Ledger chain head (\d+):([0-9a-f]{64})", page)
    assert found is not None
    kept = (int(found[1]), found[2])
    assert kept[0] > 0 and verify(days, [kept]).ok
    assert not verify(days, [(kept[0], "0" * 64)]).ok


def test_daily_report_distribution_and_updated_amounts_are_the_postings(days: Engine) -> None:
    r = lf.daily_report(days, "bbj", DAY1, onsite=True, **KW)
    f = r.fund
    assert (f.collection, f.admin_fee, f.to_fund, f.to_main, f.to_reserve) == (
        2_685_000, 805_500, 1_879_500, 1_315_650, 563_850)
    # the posting's previous main 60,000.00 holds the day's seed: shown on its own line
    assert (r.previous_main_cents, r.seed_cents, r.previous_reserve_cents) == (
        5_000_000, 1_000_000, 0)
    with Session(days) as s:
        p = s.query(BbjPosting).filter_by(fund_id="bbj", business_date=DAY1).one()
        assert (p.previous_main_cents, p.main_cents, p.reserve_cents) == (
            6_000_000, 7_315_650, 563_850)
        assert (r.updated_main_cents, r.updated_reserve_cents) == (p.main_cents,
                                                                   p.reserve_cents)
        assert (f.admin_fee, f.to_main, f.to_reserve) == (
            p.admin_fee_cents, p.to_main_cents, p.to_reserve_cents)
    page = text(daily_report_html(r))
    for cents in (5_000_000, 1_000_000, 1_315_650, 563_850, 7_315_650, 805_500):
        assert peso(cents) in page
    assert "Poker room BBJ (bbj)" in page and "Gaming day 30 November 2026" in page


def test_daily_report_onsite_remittance_on_the_ledgers_figures(days: Engine) -> None:
    # A 59,470.00; B 8,055.00 (the posting's admin fee); C 12,500.00 - 2,500.00 = 10,000.00
    # D 77,525.00; E 5% = 3,876.25; F = 73,648.75; 25% of F = 18,412.1875 -> 18,412.19;
    # 25% of E = 969.0625 -> 969.06; total 19,381.25
    r = lf.daily_report(days, "bbj", DAY1, onsite=True, **KW)
    assert r.tournament_fee_cents == 1_000_000
    rem = r.remittance
    assert rem is not None
    assert (rem.a_cash_game_rake, rem.b_jackpot_admin_fee, rem.c_tournament_fee) == (
        5_947_000, 805_500, 1_000_000)
    assert (rem.d_gross, rem.e_franchise_tax, rem.f_net) == (7_752_500, 387_625, 7_364_875)
    assert (rem.pagcor_of_f, rem.pagcor_of_e, rem.total) == (1_841_219, 96_906, 1_938_125)
    assert peso(1_938_125) in text(daily_report_html(r))


def test_daily_report_offsite_is_tgd_1494_without_tournament_fees(days: Engine) -> None:
    r = lf.daily_report(days, "bbj", DAY1, onsite=False, **KW)
    assert r.form == "TGD-1494" and r.tournament_fee_cents == 0 and r.remittance is None
    assert (r.updated_main_cents, r.updated_reserve_cents) == (7_315_650, 563_850)


def test_daily_report_of_day_two_carries_the_previous_posting(ledger: Engine) -> None:
    r = lf.daily_report(ledger, "bbj", DAY2, onsite=True, **KW)
    assert (r.previous_main_cents, r.previous_reserve_cents, r.seed_cents) == (
        7_315_650, 563_850, 0)
    assert (r.fund.admin_fee, r.fund.to_main, r.fund.to_reserve) == (43_200, 70_560, 30_240)
    assert (r.updated_main_cents, r.updated_reserve_cents) == (7_386_210, 594_090)
    assert r.tournament_fee_cents == 300_000 and r.rake_cents == 500_000


def test_a_seed_recorded_after_the_days_posting_is_noted_not_added(days: Engine) -> None:
    # Day 2 posted at 21:00 on the day itself; a seed at 23:00 the same day is not in it.
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 1, 21))
    bf.seed(days, "bbj", 200_000, by="operator", reason="late top-up",
            at=local(2026, 12, 1, 23))
    r = lf.daily_report(days, "bbj", DAY2, onsite=False, **KW)
    assert r.seed_cents == 0
    assert (r.updated_main_cents, r.updated_reserve_cents) == (7_386_210, 594_090)
    (note,) = r.notes
    assert peso(200_000) in note and "23:00" in note and "next posting" in note
    assert "late top-up" not in note and peso(200_000) in text(daily_report_html(r))


def test_daily_report_refusals(days: Engine) -> None:
    with pytest.raises(FormError, match=r"^2026-12-01: fund 'bbj' has no posting for the day; "
                                        "count and post it first$"):
        lf.daily_report(days, "bbj", DAY2, onsite=True, **KW)  # counted, not posted
    with pytest.raises(FormError, match="2026-12-02: fund 'bbj' has no posting"):
        lf.daily_report(days, "bbj", date(2026, 12, 2), onsite=True, **KW)
    with pytest.raises(FormError, match="fund 'nope' does not exist"):
        lf.daily_report(days, "nope", DAY1, onsite=True, **KW)


def test_a_day_posted_at_other_rates_is_printed_at_the_rates_it_was_posted_at(
        days: Engine) -> None:
    # [poker_room] admin_fee_rate 0.25 when the day was posted: 1,440.00 -> fee 360.00,
    # fund 1,080.00: main 756.00, reserve 324.00 (the posting keeps the rates it used)
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6),
                settings=bf.FundSettings(admin_fee_rate=Decimal("0.25")))
    report = lf.daily_report(days, "bbj", DAY2, onsite=True, **KW)
    f = report.fund
    assert (f.admin_fee, f.to_main, f.to_reserve) == (36_000, 75_600, 32_400)
    assert report.remittance is not None and report.remittance.b_jackpot_admin_fee == 36_000
    page = text(daily_report_html(report))
    assert "administrative fee (25%)" in page and "To the jackpot fund (75%)" in page
    with Session(days) as s:
        posting = s.execute(select(BbjPosting).where(BbjPosting.business_date == DAY2)) \
            .scalar_one()
    assert (posting.admin_fee_rate, posting.main_rate) == ("0.25", "0.70")


# --- TGD-1500 ------------------------------------------------------------------------------


def test_awarding_request_money_comes_from_the_funds_award_not_the_opening(
        ledger: Engine) -> None:
    # Opened on main 73,156.50 / reserve 5,638.50 (day 2 not posted); approved on
    # 73,862.10 / 5,940.90.  Cap = room maximum: 100% of main = 73,862.10:
    # winning (seat 4) 20% 14,772.42, tax 20% = 2,954.484 -> 2,954.48;
    # losing (seat 1) 40% 29,544.84, tax 5,908.968 -> 5,908.97;
    # table 29,544.84 / 4 = 7,386.21 each (seats 2, 3, 5, 6): at or below 10,000.00 no tax,
    # except seat 2 NRANETB 25% = 1,846.5525 -> 1,846.55.  Paid 73,862.10, nothing left;
    # the reserve moves up: main after 5,940.90, reserve after 0.00.
    case = bc.get_case(ledger, 1)
    assert case.claim["main_jackpot"] == "73156.50"  # what the opening decision saw
    req = lf.awarding_request(ledger, 1, **KW)
    assert (req.main_cents, req.reserve_cents, req.award_cents) == (7_386_210, 594_090,
                                                                    7_386_210)
    assert req.payout_fraction == 1
    assert [(s.seat, s.role, s.name, s.gross_cents, s.tax_cents) for s in req.sharers] == [
        (4, "winning", "Pedro Aquino", 1_477_242, 295_448),
        (1, "losing", "Maria Santos", 2_954_484, 590_897),
        (2, "table", "Kenji Watanabe", 738_621, 184_655),
        (3, "table", "Ana Lim", 738_621, 0),
        (5, "table", "Liza Mendoza", 738_621, 0),
        (6, "table", "Carlo Ramos", 738_621, 0)]
    assert req.paid_cents == 7_386_210
    assert (req.main_after_cents, req.reserve_after_cents) == (594_090, 0)
    # the hand: big blind 20.00 (small blind half of it), pot 600.00 -> jackpot rake 10% = 60.00
    assert (req.small_blind_cents, req.big_blind_cents, req.pot_cents,
            req.jackpot_rake_cents) == (1_000, 2_000, 60_000, 6_000)
    assert req.hit_at == HIT and req.hit_at.utcoffset() == timedelta(hours=8)
    assert (req.table, req.board) == ("PK-01", ("Ah", "Ad", "Tc", "7s", "7c"))
    assert (req.winning_seat, req.winning_hole, req.winning_hand) == (4, ("7h", "7d"),
                                                                      "FOUR_OF_A_KIND")
    assert (req.losing_seat, req.losing_hole, req.losing_hand) == (1, ("As", "Td"),
                                                                   "FULL_HOUSE")
    assert req.reference == "case 1 / award 1"
    page = text(awarding_request_html(req))
    assert "01 December 2026 14:00 (UTC+08:00)" in page and "case 1 / award 1" in page
    assert "ceases" not in page
    assert peso(7_386_210) in page and peso(7_315_650) not in page
    assert "half the big blind" in page


def test_awarding_request_jackpot_rake_is_capped_at_the_claims_table_cap(engine: Engine) -> None:
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbj", "BBJ", at=local(2026, 11, 28, 9))
    count_day2(engine)
    bf.post_day(engine, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    clock = Clock(local(2026, 12, 2, 9))
    cid = bc.open_case(engine, "bbj", claim_entry(big_blind=10_000, pot=250_000, cap=5_000),
                       HIT, SUP, clock=clock)
    for state in ("verified", "request_filed", "approved"):
        bc.advance(engine, cid, state, SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    req = lf.awarding_request(engine, cid, **KW)
    # 10% of 2,500.00 = 250.00, capped at the table's 50.00; the table wins 50% of main 705.60
    assert (req.jackpot_rake_cents, req.small_blind_cents) == (5_000, 5_000)
    assert (req.payout_fraction, req.award_cents) == (0.5, 35_280)


def test_awarding_request_takes_the_small_blind_entered_with_the_claim(days: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(days, "bbj", replace(claim_entry(), small_blind_cents=1_500), HIT, SUP,
                       clock=clock)
    assert bc.get_case(days, cid).claim["small_blind"] == "15.00"
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    req = lf.awarding_request(days, cid, **KW)
    assert (req.small_blind_cents, req.big_blind_cents) == (1_500, 2_000)
    assert not any("half the big blind" in n for n in req.notes)
    with pytest.raises(bc.BbjCaseError, match="small blind 25.00: must be more than 0.00 and "
                                              "at most the big blind"):
        replace(claim_entry(), small_blind_cents=2_500)


def test_a_seat_not_seated_at_the_start_gets_no_table_share_and_is_in_the_remarks(
        days: Engine) -> None:
    """The guideline III.I: "A player must be dealt in and seated at the beginning of the hand
    to qualify to the table share"; TGD-1500: "No. of Table Sharers", "Remarks"."""
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(days, "bbj", replace(claim_entry(), not_seated=(6,)), HIT, SUP,
                       clock=clock)
    assert bc.get_case(days, cid).claim["not_seated"] == [6]
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    for state in ("verified", "request_filed"):
        bc.advance(days, cid, state, SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    before = lf.awarding_request(days, cid, **KW)
    bc.advance(days, cid, "approved", SUP, clock=clock)
    after = lf.awarding_request(days, cid, **KW)
    for req in (before, after):
        # seats 2, 3, 5 share the table part (seat 6 does not): 3 table sharers, equal shares
        assert [s.seat for s in req.table_sharers] == [2, 3, 5]
        assert len({s.gross_cents for s in req.table_sharers}) == 1
        assert req.not_seated == (6,)
        page = text(awarding_request_html(req))
        assert "No. of table sharers 3" in page
        assert ("Seat 6 dealt in but not seated at the beginning of the hand: no table share"
                in page)


def test_awarding_request_refusals(days: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    with pytest.raises(FormError, match="case 9: no such case"):
        lf.awarding_request(days, 9, **KW)
    cid = bc.open_case(days, "bbj", claim_entry(), HIT, SUP, clock=clock)
    with pytest.raises(FormError, match=f"case {cid}: the hit's day is not counted and posted "
                                        "yet"):
        lf.awarding_request(days, cid, **KW)
    bc.void(days, cid, "fouled deck found at the sort", SUP, clock=clock)
    with pytest.raises(FormError, match=f"case {cid} is voided \\(fouled deck found at the "
                                        "sort\\)"):
        lf.awarding_request(days, cid, **KW)


def test_awarding_request_filed_before_approval_has_the_figures_the_approval_writes(
        days: Engine) -> None:
    """TGD-1500 is due within 24 hours of the hit, before the approval: made from the claim
    decided on the fund as posted for the hit, it states exactly the award the approval then
    writes in the fund."""
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(days, "bbj", claim_entry(), HIT, SUP, clock=clock)
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    for state in ("verified", "request_filed"):
        bc.advance(days, cid, state, SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    before = lf.awarding_request(days, cid, **KW)
    assert before.reference == f"case {cid} (before approval)"
    assert any("Prepared before approval" in n for n in before.notes)
    bc.advance(days, cid, "approved", SUP, clock=clock)
    after = lf.awarding_request(days, cid, **KW)
    assert after.reference == f"case {cid} / award 1"
    figures = ("main_cents", "reserve_cents", "payout_fraction", "award_cents", "sharers",
               "main_after_cents", "reserve_after_cents", "jackpot_rake_cents", "hit_at")
    assert [getattr(before, f) for f in figures] == [getattr(after, f) for f in figures]
    assert before.award_cents > 0 and len(before.sharers) == 6


def test_awarding_request_refuses_a_sharer_without_a_name(days: Engine) -> None:
    clock = Clock(HIT + timedelta(minutes=10))
    names = {1: "Maria Santos", 2: "Kenji Watanabe", 3: "Ana Lim", 4: "Pedro Aquino",
             6: "Carlo Ramos"}
    cid = bc.open_case(days, "bbj", claim_entry(names=names), HIT, SUP, clock=clock)
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    for state in ("verified", "request_filed", "approved"):
        bc.advance(days, cid, state, SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    with pytest.raises(FormError, match=f"case {cid}: seat 5 shares the jackpot and has no name"):
        lf.awarding_request(days, cid, **KW)


# --- TGD-108 -------------------------------------------------------------------------------


def test_quarterly_tax_months_and_payments(ledger: Engine) -> None:
    q = lf.quarterly_tax(ledger, 2026, 4, **KW)
    assert [(m.month, m.rake_cents, m.jackpot_admin_fee_cents, m.tournament_fee_cents)
            for m in q.months] == [
        (date(2026, 10, 1), 0, 0, 0),
        (date(2026, 11, 1), 5_947_000, 805_500, 1_000_000),
        (date(2026, 12, 1), 500_000, 43_200, 300_000)]
    # taxable Nov 77,525.00 -> 5% 3,876.25; Dec 8,432.00 -> 421.60
    assert [m.franchise_tax_cents for m in q.months] == [0, 387_625, 42_160]
    # seat 6 was paid at 07:00 on 1 Jan 2027 in Manila (23:00 UTC on 31 Dec): Q1 2027
    assert [(p.paid_on, p.reference, p.payee, p.taxpayer, p.gross_cents, p.tax_cents)
            for p in q.payments] == [
        (date(2026, 12, 3), "case 1 / award 1 seat 4", "Pedro Aquino", "citizen",
         1_477_242, 295_448),
        (date(2026, 12, 3), "case 1 / award 1 seat 1", "Maria Santos", "citizen",
         2_954_484, 590_897),
        (date(2026, 12, 3), "case 1 / award 1 seat 2", "Kenji Watanabe", "nranetb",
         738_621, 184_655),
        (date(2026, 12, 3), "case 1 / award 1 seat 3", "Ana Lim", "citizen", 738_621, 0),
        (date(2026, 12, 3), "case 1 / award 1 seat 5", "Liza Mendoza", "citizen", 738_621, 0)]
    page = text(quarterly_tax_html(q))
    assert peso(387_625 + 42_160) in page
    assert peso(1_477_242 + 2_954_484 + 3 * 738_621) in page  # Q4 winnings
    q1 = lf.quarterly_tax(ledger, 2027, 1, **KW)
    assert [(p.paid_on, p.payee, p.gross_cents) for p in q1.payments] == [
        (date(2027, 1, 1), "Carlo Ramos", 738_621)]
    assert all(m.taxable_cents == 0 for m in q1.months)


def test_quarterly_tax_refusals(days: Engine) -> None:
    with pytest.raises(FormError, match="Q5 2026: the quarter must be 1, 2, 3 or 4"):
        lf.quarterly_tax(days, 2026, 5, **KW)
    # day 2 (1 Dec) is counted and not posted: its admin fee is not known
    with pytest.raises(FormError, match="Q4 2026: fund 'bbj' has 2026-12-01 counted but not "
                                        "posted"):
        lf.quarterly_tax(days, 2026, 4, **KW)
    assert lf.quarterly_tax(days, 2026, 3, **KW).payments == ()


# --- TGD-1540 ------------------------------------------------------------------------------


def test_cessation_by_transfer_prints_what_the_ledger_moved(ledger: Engine) -> None:
    # After the hit main is 5,940.90, reserve 0 (the seeds were spent by the hit); 10 Dec: a new
    # seed of 20,000.00; 14 Dec counted and posted (main +705.60, reserve +302.40); 15 Dec the
    # transfer: seed 20,000.00 back to the operator, increment 6,646.50 + reserve 302.40 =
    # 6,948.90 to bbj2.
    bf.create_fund(ledger, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    bf.seed(ledger, "bbj", 2_000_000, by="operator", reason="reseed", at=local(2026, 12, 10, 9))
    count_day2(ledger, day=date(2026, 12, 14))
    bf.post_day(ledger, "bbj", date(2026, 12, 14), by="cage", at=local(2026, 12, 15, 6))
    bf.cease_by_transfer(ledger, "bbj", "bbj2", by="cage", reason="Poker room moves",
                         at=local(2026, 12, 15, 10))
    t = lf.transfer_cessation(ledger, "bbj", holidays=HOLIDAYS, **KW)
    assert (t.mode, t.destination, t.reason) == ("transfer", "New hall BBJ (bbj2)",
                                                 "Poker room moves")
    assert (t.seed_cents, t.increment_cents, t.main_cents, t.reserve_cents) == (
        2_000_000, 664_650, 2_664_650, 30_240)
    assert (t.seed_returned_cents, t.transferred_cents, t.jackpot_reset) == (
        2_000_000, 694_890, False)
    assert t.effective_on == t.completed_on == date(2026, 12, 15)
    assert t.notice_on is None and t.players_told_on is None  # not in the ledger: blank
    assert bf.funds(ledger, "bbj2") == bf.Funds(664_650, 30_240)
    page = text(transfer_cessation_html(t))
    assert peso(694_890) in page and peso(2_000_000) in page and "New hall BBJ" in page
    # 14 business days before Tue 15 Dec, skipping Tue 8 Dec: Tue 24 Nov (Wed 25 without it)
    assert t.deadlines["notice"] == date(2026, 11, 24)
    assert "Holidays skipped here: 08 December 2026." in page


def test_cessation_by_transfer_after_a_hit_with_no_seed_since_is_a_reset(ledger: Engine) -> None:
    bf.create_fund(ledger, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    bf.cease_by_transfer(ledger, "bbj", "bbj2", by="cage", reason="closing",
                         at=local(2026, 12, 4, 10))
    t = lf.transfer_cessation(ledger, "bbj", **KW)
    assert (t.seed_cents, t.jackpot_reset, t.transferred_cents) == (0, True, 594_090)
    page = text(transfer_cessation_html(t))
    assert "reset by a hit" in page and "no public holidays are configured" in page


def test_cessation_once_hit_prints_the_hit_and_the_award(engine: Engine) -> None:
    # Fund bbjc: seed 10,000.00; 1 Dec posted (main +705.60, reserve +302.40); a hit at a
    # table capped at 50.00 of 100.00 approved with cease: decided on main + reserve =
    # 11,008.00 (reserve 0), 50% -> awarded 5,504.00.
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbjc", "Old room BBJ", at=local(2026, 11, 28, 9))
    bf.seed(engine, "bbjc", 1_000_000, by="operator", reason="seed", at=local(2026, 11, 28, 9))
    count_day2(engine, fund="bbjc", table="PK-05")
    bf.post_day(engine, "bbjc", DAY2, by="cage", at=local(2026, 12, 2, 6))
    clock = Clock(local(2026, 12, 2, 9))
    cid = bc.open_case(engine, "bbjc", claim_entry("PK-05", big_blind=10_000, pot=250_000,
                                                   cap=5_000), HIT, SUP, clock=clock)
    bc.advance(engine, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    bc.advance(engine, cid, "request_filed", SUP, clock=clock)
    # 5,504.00 is at or above the default executive threshold 5,000.00: an executive with PIN
    bc.advance(engine, cid, "approved", demo_credential("2001"), cease=True,
               clock=clock.set(local(2026, 12, 4, 9)))
    t = lf.transfer_cessation(engine, "bbjc", holidays=HOLIDAYS, **KW)
    assert (t.mode, t.main_cents, t.reserve_cents, t.seed_cents) == ("cease", 1_070_560,
                                                                     30_240, 0)
    assert (t.hit_on, t.amount_won_cents, t.award_reference) == (DAY2, 550_400,
                                                                "case 1 / award 1")
    # part 2 within 2 business days of the hit (Tue 1 Dec -> Thu 3 Dec): approved Fri 4 Dec
    assert (t.effective_on, t.completed_on, t.deadlines["part2"]) == (
        DAY2, date(2026, 12, 4), date(2026, 12, 3))
    page = text(transfer_cessation_html(t))
    assert peso(1_100_800) in page and peso(550_400) in page and "LATE" in page
    req = lf.awarding_request(engine, cid, **KW)
    assert (req.main_cents, req.reserve_cents, req.award_cents) == (1_100_800, 0, 550_400)
    assert f"its reserve ({peso(30_240)}) was added to the main jackpot" in req.notes[-1]


def test_part_one_of_a_planned_transfer_skips_the_holidays(ledger: Engine) -> None:
    # The fund now: main 5,940.90, reserve 0, no seed outstanding (spent by the hit); then a
    # seed of 1,000.00: seed 1,000.00, increment 5,940.90.
    bf.create_fund(ledger, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    bf.seed(ledger, "bbj", 100_000, by="operator", reason="reseed", at=local(2026, 12, 5, 9))
    t = lf.transfer_cessation(ledger, "bbj", to_fund_id="bbj2", effective_on=date(2027, 1, 4),
                              today=date(2026, 12, 7), holidays=HOLIDAYS, **KW)
    assert (t.notice_on, t.effective_on, t.completed_on) == (date(2026, 12, 7),
                                                             date(2027, 1, 4), None)
    assert (t.seed_cents, t.increment_cents, t.reserve_cents, t.transferred_cents) == (
        100_000, 594_090, 0, 594_090)
    # 14 business days back from Mon 4 Jan 2027 skipping 1 Jan, 31, 30, 25, 24 and 8 Dec:
    # Mon 7 Dec (without the holidays: Tue 15 Dec); part 2 by Wed 6 Jan
    assert t.deadlines == {"notice": date(2026, 12, 7), "players": date(2026, 12, 28),
                           "part2": date(2027, 1, 6)}
    page = text(transfer_cessation_html(t))
    assert ("Holidays skipped here: 08 December 2026, 24 December 2026, 25 December 2026, "
            "30 December 2026, 31 December 2026, 01 January 2027.") in page
    assert "on time" in page and "LATE" not in page
    late = lf.transfer_cessation(ledger, "bbj", to_fund_id="bbj2",
                                 effective_on=date(2027, 1, 4), today=date(2026, 12, 8), **KW)
    assert late.deadlines["notice"] == date(2026, 12, 15)  # no holidays given
    assert "on time" in text(transfer_cessation_html(late))


def test_transfer_cessation_refusals(ledger: Engine) -> None:
    bf.create_fund(ledger, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    with pytest.raises(FormError, match="fund 'bbj' has not ceased: part 1.*the fund it goes to"):
        lf.transfer_cessation(ledger, "bbj", effective_on=date(2027, 1, 4), **KW)
    with pytest.raises(FormError, match="fund 'bbj' has not ceased: .*effective date"):
        lf.transfer_cessation(ledger, "bbj", to_fund_id="bbj2", **KW)
    with pytest.raises(FormError, match="transferred to itself"):
        lf.transfer_cessation(ledger, "bbj", to_fund_id="bbj", effective_on=date(2027, 1, 4),
                              **KW)
    with pytest.raises(FormError, match="fund 'nope' does not exist"):
        lf.transfer_cessation(ledger, "bbj", to_fund_id="nope", effective_on=date(2027, 1, 4),
                              **KW)
    with pytest.raises(FormError, match="effective date: 2026-12-01 is before the notice date "
                                        "2026-12-07"):
        lf.transfer_cessation(ledger, "bbj", to_fund_id="bbj2", effective_on=date(2026, 12, 1),
                              today=date(2026, 12, 7), **KW)
    bf.create_fund(ledger, "bbj3", "Third BBJ", at=local(2026, 12, 1, 9))
    bf.cease_by_transfer(ledger, "bbj2", "bbj3", by="cage", reason="test",
                         at=local(2026, 12, 4, 10))
    with pytest.raises(FormError, match="fund 'bbj2' has ceased: it can not take a transfer"):
        lf.transfer_cessation(ledger, "bbj", to_fund_id="bbj2", effective_on=date(2027, 1, 4),
                              **KW)
    with pytest.raises(FormError, match="fund 'bbj2' ceased on 2026-12-04 \\(transfer\\)"):
        lf.transfer_cessation(ledger, "bbj2", to_fund_id="bbj", effective_on=date(2027, 1, 4),
                              **KW)


# --- render ----------------------------------------------------------------------------------


def test_render_names_the_form_and_a_safe_file_stem(ledger: Engine) -> None:
    daily = lf.render(ledger, lf.FormRequest("daily", fund_id="bbj", business_date=DAY1), **KW)
    assert (daily.title, daily.filename) == ("TGD-1623 daily report 2026-11-30 - fund bbj",
                                             "TGD-1623_bbj_2026-11-30")
    assert "TGD-1623" in daily.html
    off = lf.render(ledger, lf.FormRequest("daily", fund_id="bbj", business_date=DAY1,
                                           onsite=False), **KW)
    assert off.filename == "TGD-1494_bbj_2026-11-30" and "TOTAL REMITTANCE" not in off.html
    award = lf.render(ledger, lf.FormRequest("award", case_id=1), **KW)
    assert award.filename == "TGD-1500_case-1" and "Pedro Aquino" in award.html
    q = lf.render(ledger, lf.FormRequest("quarterly", year=2026, quarter=4), **KW)
    assert q.filename == "TGD-108_2026-Q4" and "TGD-108" in q.html
    bf.create_fund(ledger, "bbj2", "New hall", at=local(2026, 12, 1, 9))
    c = lf.render(ledger, lf.FormRequest("cessation", fund_id="bbj", to_fund_id="bbj2",
                                         effective_on=date(2027, 6, 7)), **KW,
                  holidays=HOLIDAYS)
    assert c.filename == "TGD-1540_bbj_part1" and "TGD-1540" in c.html
    assert lf.safe_stem("TGD-1623_Poker room/1_2026") == "TGD-1623_Poker-room-1_2026"


@pytest.mark.parametrize(("request_", "message"), [
    (lf.FormRequest("weekly"), "form kind 'weekly' is not one of daily, award, quarterly, "
                               "cessation, implementation, forfeiture$"),
    (lf.FormRequest("implementation", effective_on=DAY2),
     "implementation form: fund_id is missing"),
    (lf.FormRequest("implementation", fund_id="bbj"),
     "implementation form: effective_on is missing"),
    (lf.FormRequest("daily", business_date=DAY1), "daily form: fund_id is missing"),
    (lf.FormRequest("daily", fund_id="bbj"), "daily form: business_date is missing"),
    (lf.FormRequest("award"), "award form: case_id is missing"),
    (lf.FormRequest("quarterly", year=2026), "quarterly form: quarter is missing"),
    (lf.FormRequest("quarterly", quarter=4), "quarterly form: year is missing"),
    (lf.FormRequest("cessation"), "cessation form: fund_id is missing"),
    (lf.FormRequest("daily", fund_id="bbj", business_date=datetime(2026, 11, 30, tzinfo=UTC)),
     "daily form: business_date .* is not a date"),
])
def test_render_refuses_a_request_without_its_fields(days: Engine, request_: lf.FormRequest,
                                                     message: str) -> None:
    with pytest.raises(FormError, match=message):
        lf.render(days, request_, **KW)


def test_awarding_request_of_a_tie_prints_every_tied_seat_and_every_sharer_with_its_role(
        days: Engine) -> None:
    # seats 1 (As Td) and 2 (Ac Th) tie for the bad beat (AAATT each); [poker_room] tie = split
    tie = replace(claim_entry(), showdown=(
        ShownHand(1, (cards("As Td")[0], cards("As Td")[1])),
        ShownHand(2, (cards("Ac Th")[0], cards("Ac Th")[1])),
        ShownHand(4, (cards("7h 7d")[0], cards("7h 7d")[1]))))
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(days, "bbj", tie, HIT, SUP, clock=clock)
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    for state in ("verified", "request_filed"):
        bc.advance(days, cid, state, SUP, deck_sorted=True, cctv_reviewed=True, clock=clock)
    before = lf.awarding_request(days, cid, **KW)  # filed before approval: decided again
    with pytest.raises(FormError, match="seats 1 and 2 tie for the losing hand"):
        lf.awarding_request(days, cid, **KW, rules=BbjSettings(tie="refuse"))
    bc.advance(days, cid, "approved", SUP, clock=clock)
    req = lf.awarding_request(days, cid, **KW)
    for r in (before, req):
        assert [(s.seat, s.role) for s in r.sharers] == [
            (4, "winning"), (1, "losing"), (2, "losing"), (3, "table"), (5, "table"),
            (6, "table")]
        assert r.hands("losing") == ((1, ("As", "Td"), "FULL_HOUSE"),
                                     (2, ("Ac", "Th"), "FULL_HOUSE"))
        assert r.hands("winning") == ((4, ("7h", "7d"), "FOUR_OF_A_KIND"),)
        # the losing 40% (rounded down) shared equally, each rounded down
        each = r.award_cents * 2 // 5 // 2
        assert [s.gross_cents for s in r.sharers if s.role == "losing"] == [each, each]
    assert [(s.seat, s.gross_cents, s.tax_cents) for s in req.sharers] == [
        (s.seat, s.gross_cents, s.tax_cents) for s in before.sharers]
    page = text(awarding_request_html(req))
    assert "Losing hand (tie, shared): seat 1" in page and "Ac Th (full house)" in page
    assert "Losing hand (tie, shared): seat 2" in page
    assert page.count("Losing hand (tie)") == 2 and page.count("Winning hand") == 2
    for s in req.sharers:
        assert s.name in page and peso(s.gross_cents) in page
# --- TGD-1581 and the sections the floor file and the ledger fill -----------------------

ROOM = PokerRoomConfig(
    rules=BbjSettings(split=Split(Decimal("0.25"), Decimal("0.35"), Decimal("0.40")),
                      min_players=6, min_pot_big_blinds=25),
    fund=FundSettings(room_max_rake_cents=8_000, caps_by_big_blind=((2_000, 4_000),),
                      denominations=(500, 100, 50, 25, 10)),
    room_location="2/F Grand Hall")


def test_implementation_request_is_the_floor_files_rules_and_the_ledgers_fund(
        days: Engine) -> None:
    # fund bbj: seeds 50,000.00 + 10,000.00; 30 Nov posted (73,156.50 / 5,638.50), 1 Dec
    # counted only.  Effective Monday 11 Jan 2027, back 8 business days: Fri 8 (1), Thu 7,
    # Wed 6, Tue 5, Mon 4 (5), [Fri 1 Jan, Thu 31, Wed 30 Dec holidays] Tue 29 (6), Mon 28 (7),
    # [Fri 25, Thu 24 holidays] Wed 23 Dec (8) -> Wednesday 23 Dec 2026 15:00.  Filed at 15:30
    # that day: received the next business day, Monday 28 Dec (24, 25 holidays, a weekend).
    eff = date(2027, 1, 11)
    r = lf.implementation_request(days, "bbj", eff, **KW, holidays=HOLIDAYS, poker_room=ROOM,
                                  filed_at=local(2026, 12, 23, 15, 30))
    assert (r.jackpot, r.effective_on, r.rules, r.fund, r.room_location) == (
        "Poker room BBJ (bbj)", eff, ROOM.rules, ROOM.fund, "2/F Grand Hall")
    assert (r.seed_cents, r.main_cents, r.reserve_cents, r.postings, r.first_posted) == (
        6_000_000, 7_315_650, 563_850, 1, DAY1)
    assert r.latest_filing == local(2026, 12, 23, 15)
    assert (r.received_on, r.timely) == (date(2026, 12, 28), False)
    page = text(implementation_request_html(r))
    for shown in ("LATE", "Players dealt in (at least) 6", "25 x the big blind",
                  "Winning hand 25%", "₱80.00", "₱20.00 ₱40.00 50.00%",
                  peso(6_000_000), peso(7_315_650), peso(563_850), "1 (first 30 November 2026)",
                  "2/F Grand Hall", "holidays skipped: 24 December 2026, 25 December 2026, "
                  "30 December 2026, 31 December 2026, 01 January 2027"):
        assert shown in page, shown
    # RULES.md's defaults without a floor's [poker_room]; no filing time: blanks to fill in
    plain = lf.implementation_request(days, "bbj", eff, **KW)
    assert (plain.rules, plain.fund, plain.filed_at) == (BbjSettings(), FundSettings(), None)


def test_implementation_request_refusals(ledger: Engine) -> None:
    with pytest.raises(FormError, match="fund 'nope' does not exist"):
        lf.implementation_request(ledger, "nope", date(2027, 1, 15), **KW)
    with pytest.raises(FormError, match="effective date 2027-01-15: a request filed 2027-01-15 "
                                        "09:00 is received on 2027-01-15, not before"):
        lf.implementation_request(ledger, "bbj", date(2027, 1, 15), **KW,
                                  filed_at=local(2027, 1, 15, 9))
    with pytest.raises(FormError, match="filing time 2027-01-05 09:00: give its time zone"):
        lf.implementation_request(ledger, "bbj", date(2027, 1, 15), **KW,
                                  filed_at=datetime(2027, 1, 5, 9))
    bf.create_fund(ledger, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    bf.cease_by_transfer(ledger, "bbj", "bbj2", by="cage", reason="moves",
                         at=local(2026, 12, 15, 10))
    with pytest.raises(FormError, match="fund 'bbj' ceased on 2026-12-15 .transfer.: there is "
                                        "nothing to implement"):
        lf.implementation_request(ledger, "bbj", date(2027, 1, 15), **KW)


def test_linked_tables_are_the_funds_drop_counts(days: Engine) -> None:
    # PK-01 counted 30 Nov (12,300.00) and 1 Dec (1,440.00); PK-03 30 Nov (14,550.00)
    assert lf.linked_tables(days, "bbj") == (
        LinkedTable("PK-01", DAY1, DAY2, 2, 1_374_000),
        LinkedTable("PK-03", DAY1, DAY1, 1, 1_455_000))
    bf.create_fund(days, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    assert lf.linked_tables(days, "bbj2") == ()
    c = lf.render(days, lf.FormRequest("cessation", fund_id="bbj", to_fund_id="bbj2",
                                       effective_on=date(2027, 6, 7)), **KW)
    assert "PK-03 30 November 2026 30 November 2026 1 " + peso(1_455_000) in text(c.html)


def test_acknowledgment_receipts_carry_the_day_each_share_was_paid(ledger: Engine) -> None:
    req = lf.awarding_request(ledger, 1, **KW)
    assert dict(req.paid_on) == {4: date(2026, 12, 3), 1: date(2026, 12, 3),
                                 2: date(2026, 12, 3), 3: date(2026, 12, 3),
                                 5: date(2026, 12, 3), 6: date(2027, 1, 1)}


def test_render_prints_the_floor_files_location_on_every_form(ledger: Engine) -> None:
    bf.create_fund(ledger, "bbj2", "New hall", at=local(2026, 12, 1, 9))
    requests = (lf.FormRequest("daily", fund_id="bbj", business_date=DAY1),
                lf.FormRequest("award", case_id=1),
                lf.FormRequest("quarterly", year=2026, quarter=4, onsite=False),
                lf.FormRequest("cessation", fund_id="bbj", to_fund_id="bbj2",
                               effective_on=date(2027, 6, 7)),
                lf.FormRequest("implementation", fund_id="bbj2", effective_on=date(2027, 6, 7),
                               filed_at=local(2027, 5, 3, 10)))
    for request in requests:
        form = lf.render(ledger, request, **KW, poker_room=ROOM)
        assert "Poker room location: 2/F Grand Hall" in text(form.html), request.kind
        bare = lf.render(ledger, request, **KW)
        assert f"({HAND_MARK})" in text(bare.html), request.kind
    q = lf.render(ledger, requests[2], **KW)
    assert q.title == "TGD-108 quarterly tax Q4 2026 (offsite)"
    assert "II. For offsite poker room operator" in text(q.html)
    assert "Less: 25% of FT" not in text(q.html)  # only the onsite section has it
    impl = lf.render(ledger, requests[4], **KW, poker_room=ROOM)
    assert (impl.title, impl.filename) == ("TGD-1581 implementation request 2027-06-07 - fund "
                                           "bbj2", "TGD-1581_bbj2_2027-06-07")
    assert "on time" in text(impl.html) and "Winning hand 25%" in text(impl.html)


def test_awarding_request_before_approval_takes_the_hits_gaming_day(days: Engine) -> None:
    """Issue 26: the request asks, as the approval does, that the hit's gaming day be posted
    (RULES.md 6: "if the jackpot is hit before that day's amount is posted, the prize is the
    updated amount (the day's collections included)").  A hit at 07:00 Manila on 1 December
    (gaming day 1 December, days beginning at 06:00), before the counted table's 10:00
    opening: with the casino's gaming day the posted day counts; without it (the counts'
    hours alone) it is refused."""
    from datetime import time

    hit = local(2026, 12, 1, 7)
    clock = Clock(hit + timedelta(minutes=10))
    cid = bc.open_case(days, "bbj", claim_entry(), hit, SUP, clock=clock)
    bf.post_day(days, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    with pytest.raises(FormError, match="the hit's day is not counted and posted yet"):
        lf.awarding_request(days, cid, **KW)
    req = lf.awarding_request(days, cid, day_starts=time(6), **KW)
    # the same claim at 14:00 (inside the counts' hours) is paid on the same fund: day 2's
    # collections included both times
    covered = bc.open_case(days, "bbj", claim_entry(), HIT, SUP, clock=clock.set(HIT))
    same = lf.awarding_request(days, covered, **KW)
    assert req.award_cents == same.award_cents > 0
