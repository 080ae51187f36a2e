"""The Bad Beat Jackpot fund in the ledger (core/pokerroom/fund/; RULES.md section 6 "Funding",
"Payout", TGD-1540).  Figures are worked out by hand in the comments; ledger tests run on SQLite
and PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.cards import Card, parse_cards
from core.ledger.models import BbjAward, BbjAwardShare, BbjEntry, BbjPosting
from core.pokerroom import fund as bf
from core.pokerroom.rules.bbj import Claim, Decision, ShownHand, decide

DAY1, DAY2, DAY3 = date(2026, 12, 1), date(2026, 12, 2), date(2026, 12, 3)


def t(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split(), count=None)


def qualifying(funds: bf.Funds, *, cap_cents: int, seats: int) -> Decision:
    """Aces full of Tens (seat 1, losing) beaten by four sevens (seat 4, winning)."""
    a, b = cards("As Td"), cards("7h 7d")
    c = Claim(big_blind_cents=10_000, pot_cents=250_000, dealt_in=tuple(range(1, seats + 1)),
              board=cards("Ah Ad Tc 7s 7c"),
              showdown=(ShownHand(1, (a[0], a[1])), ShownHand(4, (b[0], b[1]))),
              table_jackpot_rake_cap_cents=cap_cents, room_max_jackpot_rake_cents=10_000,
              main_jackpot_cents=funds.main_cents, reserve_jackpot_cents=funds.reserve_cents)
    d = decide(c)
    assert d.qualifies
    return d


def count(engine: Engine, day: date, table: str, pieces: dict[int, int], *,
          fund: str = "bbj", **kw: Any) -> int:
    args: dict[str, Any] = {"business_date": day, "table": table, "drop_box": f"J-{table}",
                            "opened_at": t(day, 10), "closed_at": t(day, 22),
                            "dealer": "D. Cruz", "pieces": pieces, "by": "cage"}
    args.update(kw)
    return bf.record_count(engine, fund, **args)


def assert_fund_is_sum_of_rows(engine: Engine, fund: str) -> None:
    """The fund is the sum of its rows, and every posting's figures add up."""
    with Session(engine) as s:
        rows = list(s.execute(select(BbjEntry).where(BbjEntry.fund_id == fund)).scalars())
        postings = list(s.execute(select(BbjPosting).where(BbjPosting.fund_id == fund))
                        .scalars())
    assert bf.funds(engine, fund) == bf.Funds(sum(r.main_delta_cents for r in rows),
                                              sum(r.reserve_delta_cents for r in rows))
    for p in postings:
        assert p.admin_fee_cents + p.to_main_cents + p.to_reserve_cents == p.collection_cents
        assert p.main_cents == p.previous_main_cents + p.to_main_cents
        assert p.reserve_cents == p.previous_reserve_cents + p.to_reserve_cents


@pytest.fixture
def fund(engine: Engine) -> Engine:
    return funded(engine)


def funded(engine: Engine) -> Engine:
    """Fund ``bbj`` seeded 50,000.00; day 1 counted and posted (2,000.00 of jackpot rake)."""
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=t(DAY1, 0))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed", at=t(DAY1, 1))
    # T1: 2 x 500 + 3 x 100 + 1 x 50 + 2 x 25 + 4 x 10 = 1,440.00; T2: 5 x 100 + 6 x 10 = 560.00
    count(engine, DAY1, "T1", {500: 2, 100: 3, 50: 1, 25: 2, 10: 4})
    count(engine, DAY1, "T2", {100: 5, 10: 6})
    bf.post_day(engine, "bbj", DAY1, by="cage", at=t(DAY2, 6))
    return engine


# --- jackpot rake per hand ------------------------------------------------------------------

def test_jackpot_rake_is_ten_percent_of_the_pot_rounded_down() -> None:
    assert bf.jackpot_rake_cents(50_000, flop_dealt=True, big_blind_cents=2_000) == 5_000
    assert bf.jackpot_rake_cents(12_345, flop_dealt=True, big_blind_cents=2_000) == 1_234


def test_jackpot_rake_is_capped_at_100_pesos_per_hand() -> None:
    assert bf.jackpot_rake_cents(200_000, flop_dealt=True, big_blind_cents=10_000) == 10_000


def test_jackpot_rake_lower_cap_by_blind_level() -> None:
    s = bf.FundSettings(caps_by_big_blind=((2_000, 2_500),))
    assert bf.jackpot_rake_cents(200_000, flop_dealt=True, big_blind_cents=2_000,
                                 settings=s) == 2_500
    assert bf.jackpot_rake_cents(200_000, flop_dealt=True, big_blind_cents=10_000,
                                 settings=s) == 10_000


def test_no_flop_no_drop() -> None:
    assert bf.jackpot_rake_cents(200_000, flop_dealt=False, big_blind_cents=10_000) == 0


def test_a_blind_level_cap_above_the_room_maximum_is_refused() -> None:
    with pytest.raises(bf.BbjFundError, match="room maximum"):
        bf.FundSettings(caps_by_big_blind=((2_000, 20_000),))


# --- daily distribution ---------------------------------------------------------------------

def test_daily_distribution_fee_30_main_70_of_70_reserve_30_of_70(fund: Engine) -> None:
    # 2,000.00: fee 600.00; fund 1,400.00 -> main 980.00, reserve 420.00
    with Session(fund) as s:
        p = s.execute(select(BbjPosting)).scalar_one()
    assert (p.collection_cents, p.admin_fee_cents, p.to_main_cents, p.to_reserve_cents) == \
        (200_000, 60_000, 98_000, 42_000)
    assert (p.previous_main_cents, p.previous_reserve_cents) == (5_000_000, 0)
    assert (p.main_cents, p.reserve_cents) == (5_098_000, 42_000)
    assert bf.funds(fund, "bbj") == bf.Funds(5_098_000, 42_000)
    assert_fund_is_sum_of_rows(fund, "bbj")


def test_a_split_that_does_not_divide_evenly_loses_no_centavo(engine: Engine) -> None:
    # fee rate 0.3333 of 10.00: fee 3.33 (down), fund 6.67 -> main 4.66 (down), reserve 2.01
    s = bf.FundSettings(admin_fee_rate=Decimal("0.3333"))
    bf.create_fund(engine, "bbj", "BBJ")
    count(engine, DAY1, "T1", {10: 1})
    p = bf.post_day(engine, "bbj", DAY1, by="cage", settings=s)
    d = p.distribution
    assert (d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents) == (333, 466, 201)
    assert d.admin_fee_cents + d.to_main_cents + d.to_reserve_cents == 1_000
    assert bf.funds(engine, "bbj") == bf.Funds(466, 201)
    assert_fund_is_sum_of_rows(engine, "bbj")


@given(st.integers(min_value=0, max_value=10**12),
       st.decimals(min_value=0, max_value=1, places=6),
       st.decimals(min_value=0, max_value=1, places=6))
def test_distribution_never_creates_or_loses_a_centavo(collection: int, fee: Decimal,
                                                       main: Decimal) -> None:
    d = bf.distribute(collection, bf.FundSettings(admin_fee_rate=fee, main_rate=main))
    assert d.admin_fee_cents + d.to_main_cents + d.to_reserve_cents == collection
    assert min(d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents) >= 0


def test_seed_infusions_are_recorded_and_reported(fund: Engine) -> None:
    assert bf.seed_infusions(fund, "bbj") == [(t(DAY1, 1), 5_000_000, "operator",
                                               "opening seed")]


def test_a_count_of_an_unknown_denomination_is_refused(engine: Engine) -> None:
    bf.create_fund(engine, "bbj", "BBJ")
    with pytest.raises(bf.BbjFundError, match="20 is not a chip denomination"):
        count(engine, DAY1, "T1", {20: 1})


def test_a_late_count_for_a_posted_day_is_refused(fund: Engine) -> None:
    with pytest.raises(bf.BbjFundError, match="already posted"):
        count(fund, DAY1, "T3", {100: 1})


def test_a_box_counted_twice_is_refused(fund: Engine) -> None:
    count(fund, DAY2, "T1", {100: 1})
    with pytest.raises(bf.BbjFundError, match="already counted"):
        count(fund, DAY2, "T1", {100: 1})


# --- a hit before the day's posting ---------------------------------------------------------

def test_hit_before_the_days_posting_is_paid_on_the_updated_amount(fund: Engine) -> None:
    hit = t(DAY2, 15)
    assert bf.amount_for_hit(fund, "bbj", hit) == bf.Funds(5_098_000, 42_000)
    count(fund, DAY2, "T1", {100: 1})  # 100.00: fee 30.00, main 49.00, reserve 21.00
    d_early = qualifying(bf.amount_for_hit(fund, "bbj", hit), cap_cents=5_000, seats=8)
    with pytest.raises(bf.BbjFundError, match="not posted"):
        bf.record_award(fund, "bbj", d_early, hit_at=hit, table="T1", by="floor")
    bf.post_day(fund, "bbj", DAY2, by="cage", at=t(DAY3, 6))
    # day 3 is posted before the award is recorded: it is not part of the day-2 prize
    count(fund, DAY3, "T1", {500: 1})
    bf.post_day(fund, "bbj", DAY3, by="cage", at=t(DAY3, 23, 30))
    updated = bf.amount_for_hit(fund, "bbj", hit)
    assert updated == bf.Funds(5_102_900, 44_100)
    with pytest.raises(bf.BbjFundError, match="not made on the fund as it stood"):
        bf.record_award(fund, "bbj", d_early, hit_at=hit, table="T1", by="floor")
    bf.record_award(fund, "bbj", qualifying(updated, cap_cents=5_000, seats=8), hit_at=hit,
                    table="T1", by="floor")
    assert_fund_is_sum_of_rows(fund, "bbj")


def test_award_reduces_main_by_the_shares_and_moves_the_reserve_up(fund: Engine) -> None:
    hit = t(DAY2, 15)
    count(fund, DAY2, "T1", {100: 1})
    bf.post_day(fund, "bbj", DAY2, by="cage", at=t(DAY3, 6))
    # main 51,029.00, reserve 441.00; cap 50 of 100 -> 1/2: award 25,514.50;
    # winning 20% 5,102.90, losing 40% 10,205.80, table 40% 10,205.80 / 6 = 1,700.96 each
    # (10,205.76): paid 25,514.46, 0.04 stays; reserve moved 441.00 / 2 = 220.50
    d = qualifying(bf.amount_for_hit(fund, "bbj", hit), cap_cents=5_000, seats=8)
    award_id = bf.record_award(fund, "bbj", d, hit_at=hit, table="T1", by="floor")
    assert bf.funds(fund, "bbj") == bf.Funds(5_102_900 - 2_551_446 + 22_050, 22_050)
    with Session(fund) as s:
        a = s.get(BbjAward, award_id)
        assert a is not None
        assert (a.award_cents, a.paid_cents, a.reserve_moved_cents) == (2_551_450, 2_551_446,
                                                                         22_050)
        assert (a.main_after_cents, a.reserve_after_cents) == (2_573_504, 22_050)
        shares = list(s.execute(select(BbjAwardShare).where(BbjAwardShare.award_id == award_id)
                                .order_by(BbjAwardShare.seat)).scalars())
        entries = list(s.execute(select(BbjEntry.kind, BbjEntry.main_delta_cents,
                                        BbjEntry.reserve_delta_cents)
                                 .where(BbjEntry.award_id == award_id)
                                 .order_by(BbjEntry.id)).all())
    assert [(x.seat, x.role, x.gross_cents) for x in shares] == \
        [(1, "losing", 1_020_580), (2, "table", 170_096), (3, "table", 170_096),
         (4, "winning", 510_290), (5, "table", 170_096), (6, "table", 170_096),
         (7, "table", 170_096), (8, "table", 170_096)]
    assert [tuple(e) for e in entries] == [("award", -2_551_446, 0),
                                           ("reserve_move", 22_050, -22_050)]
    assert_fund_is_sum_of_rows(fund, "bbj")


def test_a_claim_that_does_not_qualify_is_not_paid(fund: Engine) -> None:
    d = qualifying(bf.Funds(5_098_000, 42_000), cap_cents=10_000, seats=7)
    with pytest.raises(bf.BbjFundError, match="does not qualify"):
        bf.record_award(fund, "bbj", replace(d, qualifies=False, reasons=("VOIDED",)),
                        hit_at=t(DAY1, 15), table="T1", by="floor")


# --- cessation (TGD-1540) -------------------------------------------------------------------

def test_cessation_by_transfer_returns_the_seed_and_moves_increment_and_reserve(
        fund: Engine) -> None:
    bf.create_fund(fund, "bbj2", "New progressive")
    bf.cease_by_transfer(fund, "bbj", "bbj2", by="manager", reason="room closing",
                         at=t(DAY2, 8))
    assert bf.funds(fund, "bbj") == bf.Funds(0, 0)
    assert bf.funds(fund, "bbj2") == bf.Funds(98_000, 42_000)  # increment, reserve
    with Session(fund) as s:
        kinds = list(s.execute(select(BbjEntry.fund_id, BbjEntry.kind, BbjEntry.main_delta_cents,
                                      BbjEntry.reserve_delta_cents)
                               .where(BbjEntry.cessation_id.is_not(None))
                               .order_by(BbjEntry.id)).all())
    assert [tuple(k) for k in kinds] == [("bbj", "seed_return", -5_000_000, 0),
                                         ("bbj", "transfer_out", -98_000, -42_000),
                                         ("bbj2", "transfer_in", 98_000, 42_000)]
    with pytest.raises(bf.BbjFundError, match="has ceased"):
        count(fund, DAY2, "T1", {100: 1})
    assert_fund_is_sum_of_rows(fund, "bbj")
    assert_fund_is_sum_of_rows(fund, "bbj2")


def test_transfer_after_a_hit_returns_no_seed(fund: Engine) -> None:
    d = qualifying(bf.amount_for_hit(fund, "bbj", t(DAY1, 15)), cap_cents=10_000, seats=7)
    bf.record_award(fund, "bbj", d, hit_at=t(DAY1, 15), table="T1", by="floor")
    left = bf.funds(fund, "bbj")
    bf.create_fund(fund, "bbj2", "New progressive")
    bf.cease_by_transfer(fund, "bbj", "bbj2", by="manager", reason="room closing")
    assert bf.funds(fund, "bbj2") == left
    assert bf.funds(fund, "bbj") == bf.Funds(0, 0)


def test_cessation_once_hit_adds_the_reserve_to_the_main_amount_won(fund: Engine) -> None:
    hit = t(DAY1, 15)
    base = bf.amount_for_hit(fund, "bbj", hit, ceasing=True)
    assert base == bf.Funds(5_140_000, 0)  # 50,980.00 + 420.00
    d = qualifying(base, cap_cents=10_000, seats=7)
    # 100%: winning 10,280.00, losing 20,560.00, table 20,560.00 / 5 = 4,112.00 each
    assert d.paid_cents == 5_140_000
    bf.record_award(fund, "bbj", d, hit_at=hit, table="T1", by="floor", cease=True)
    assert bf.funds(fund, "bbj") == bf.Funds(0, 0)
    with pytest.raises(bf.BbjFundError, match="has ceased"):
        bf.seed(fund, "bbj", 100, by="operator", reason="x")
    assert_fund_is_sum_of_rows(fund, "bbj")


def test_demo_opens_its_bad_beat_fund_once_with_the_opening_seed(engine: Engine) -> None:
    from core.app.demo import DEMO_BBJ_FUND, open_demo_bbj_fund

    fid, _name, seed_cents = DEMO_BBJ_FUND
    assert open_demo_bbj_fund(engine) is True
    assert open_demo_bbj_fund(engine) is False  # a second start changes nothing
    assert bf.funds(engine, fid).main_cents == seed_cents
    assert len(bf.seed_infusions(engine, fid)) == 1


def test_a_posting_keeps_the_rates_it_was_made_at(engine: Engine) -> None:
    from core.ledger.models import BbjPosting

    # a posting from before ledger revision 0008 has no rates: the RULES.md defaults
    assert bf.posting_settings(BbjPosting(admin_fee_rate=None, main_rate=None)) == \
        bf.FundSettings()
    kept = bf.posting_settings(BbjPosting(admin_fee_rate="0.25", main_rate="0.65"),
                               bf.FundSettings(denominations=(1000, 100)))
    assert (kept.admin_fee_rate, kept.main_rate, kept.denominations) == (
        Decimal("0.25"), Decimal("0.65"), (1000, 100))
