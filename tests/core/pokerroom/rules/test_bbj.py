"""Bad Beat Jackpot qualification and payout (core/pokerroom/rules/bbj.py; RULES.md section 6).

Every qualification rule is checked both ways (a claim that just qualifies, one that just
fails); the payout figures are worked out by hand in the tests from the rules.
"""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.kernel.cards import RANKS, SUITS, Card, parse_cards
from core.pokerroom.rules.bbj import (
    REASONS,
    VOID_REASONS,
    BbjError,
    BbjSettings,
    Claim,
    Decision,
    ShownHand,
    Split,
    decide,
)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split(), count=None)


def hole(text: str) -> tuple[Card, Card]:
    a, b = cards(text)
    return a, b


# Aces full of Tens (seat 1, an Ace in the hole) beaten by four sevens (seat 4):
# a claim that qualifies on every point, 7 players dealt in, pot 25 big blinds.
BOARD = "Ah Ad Tc 7s 7c"
SHOWDOWN = {1: "As Td", 4: "7h 7d"}


def claim(board: str = BOARD, showdown: dict[int, str] | None = None, **kw: Any) -> Claim:
    shown = SHOWDOWN if showdown is None else showdown
    args: dict[str, Any] = {
        "big_blind_cents": 10_000, "pot_cents": 250_000, "dealt_in": (1, 2, 3, 4, 5, 6, 7),
        "board": cards(board),
        "showdown": tuple(ShownHand(seat, hole(h)) for seat, h in shown.items()),
        "table_jackpot_rake_cap_cents": 10_000, "room_max_jackpot_rake_cents": 10_000,
        "main_jackpot_cents": 100_000_000, "reserve_jackpot_cents": 30_000_000,
    }
    args.update(kw)
    return Claim(**args)


def reasons(c: Claim, s: BbjSettings | None = None) -> list[str]:
    return list(decide(c, s).reasons)


def gross(d: Decision) -> list[tuple[int, str, int]]:
    return [(s.seat, s.role, s.gross_cents) for s in d.shares]


# --- the two hands ----------------------------------------------------------------------------

def test_two_highest_hands_winning_is_highest_losing_is_second() -> None:
    # seat 6 shows a third, lower hand (two pair): it is not the bad beat hand
    d = decide(claim(showdown={6: "Kc Qd", 1: "As Td", 4: "7h 7d"}))
    assert d.qualifies and d.reasons == ()
    assert (d.winning_seat, d.winning_hand and d.winning_hand.category) == (4, "FOUR_OF_A_KIND")
    assert (d.losing_seat, d.losing_hand and d.losing_hand.category) == (1, "FULL_HOUSE")


def test_no_showdown_when_fewer_than_two_hands_are_shown() -> None:
    one = decide(claim(showdown={4: "7h 7d"}))
    assert not one.qualifies and one.reasons == ("NO_SHOWDOWN",)
    assert (one.winning_seat, one.losing_seat) == (4, None)
    none = decide(claim(showdown={}))
    assert none.reasons == ("NO_SHOWDOWN",)
    assert (none.winning_seat, none.winning_hand, none.losing_seat) == (None, None, None)


# --- rule 1: losing hand Aces full of Tens or better, beaten by four of a kind or better ------

def test_losing_hand_aces_full_of_tens_qualifies() -> None:
    # AAATT (Ac Td + As Ad Tc) beaten by 5555A
    assert reasons(claim("As Ad Tc 5s 5h", {1: "Ac Td", 4: "5c 5d"})) == []


def test_losing_hand_aces_full_of_nines_is_too_low() -> None:
    # AAA99 (Ac 9d + As Ad 9c): both hole cards play, an Ace in the hole; only the hand fails
    assert reasons(claim("As Ad 9c 5s 5h", {1: "Ac 9d", 4: "5c 5d"})) == ["LOSING_HAND_TOO_LOW"]


def test_losing_hand_kings_full_of_aces_is_too_low() -> None:
    # KKKAA < AAA22: a full house of Kings never qualifies whatever its pair
    assert reasons(claim("Ks Kd Ac 5s 5h", {1: "Kc Ad", 4: "5c 5d"})) == ["LOSING_HAND_TOO_LOW"]


def test_losing_hand_four_of_a_kind_beaten_by_a_straight_flush_qualifies() -> None:
    d = decide(claim("9h Th Jh 9s 2c", {1: "9c 9d", 4: "Qh 8h"}))
    assert d.qualifies
    assert d.winning_hand is not None and d.winning_hand.category == "STRAIGHT_FLUSH"
    assert d.losing_hand is not None and d.losing_hand.category == "FOUR_OF_A_KIND"


def test_winning_hand_below_four_of_a_kind_is_too_low() -> None:
    # the CLI.md example's cards: seat 1's AAATT wins against seat 4's 777AA
    d = decide(claim("Ah Ad Tc 7s 2h", {1: "As Td", 4: "7h 7d"}))
    assert (d.winning_seat, d.losing_seat) == (1, 4)
    assert d.reasons == ("WINNING_HAND_TOO_LOW", "LOSING_HAND_TOO_LOW")


# --- rules 3 and 4: both hole cards of both players play; the kicker ----------------------------

def test_losing_hole_card_that_does_not_play_fails() -> None:
    # AAATT from As + the board's Ad Ah Tc Ts: the 2c adds nothing
    assert reasons(claim("Ah Ad Tc Ts 7s", {1: "As 2c", 4: "Th Td"})) == [
        "LOSING_HOLE_CARDS_DO_NOT_PLAY"]


def test_losing_kicker_that_only_ties_the_board_does_not_play() -> None:
    # TTTT with the 9c kicker: the board's 9h is the same kicker, so the 9c does not play
    assert reasons(claim("Ts Td Th 9h 8h", {1: "Tc 9c", 4: "Jh Qh"})) == [
        "LOSING_HOLE_CARDS_DO_NOT_PLAY"]


def test_losing_kicker_that_beats_the_board_plays() -> None:
    assert reasons(claim("Ts Td Th 9h 8h", {1: "Tc Ac", 4: "Jh Qh"})) == []


def test_winning_kicker_that_beats_the_board_plays() -> None:
    # QQQQ with an Ace kicker (the board's 5 would be the kicker without it) against 5555
    assert reasons(claim("Qs Qh Qd 5c 5d", {1: "5s 5h", 4: "Qc Ah"})) == []


def test_winning_kicker_below_the_board_does_not_play() -> None:
    # QQQQ: the 2h loses to the board's 5 as kicker
    assert reasons(claim("Qs Qh Qd 5c 5d", {1: "5s 5h", 4: "Qc 2h"})) == [
        "WINNING_HOLE_CARDS_DO_NOT_PLAY"]


def test_both_hole_cards_play_with_two_of_the_four_in_the_hole() -> None:
    assert reasons(claim()) == []


def test_straight_flush_hole_card_that_extends_nothing_does_not_play() -> None:
    # 9h makes the 9-high straight flush; the 4h would only make the same hand
    assert reasons(claim("5h 6h 7h 8h 8d", {1: "8c 8s", 4: "9h 4h"})) == [
        "WINNING_HOLE_CARDS_DO_NOT_PLAY"]
    assert reasons(claim("5h 6h 7h 8h 8d", {1: "8c 8s", 4: "9h Th"})) == []


# --- rule 5: an Ace in the hole for Aces full --------------------------------------------------

def test_three_aces_on_the_board_with_a_pocket_pair_has_no_ace_in_hole() -> None:
    # AAATT with Tc Td in the hole: both play, but no Ace in the hole
    assert reasons(claim("Ah Ad Ac 7s 7h", {1: "Tc Td", 4: "7c 7d"})) == ["NO_ACE_IN_HOLE"]


def test_aces_full_with_an_ace_in_the_hole_qualifies() -> None:
    assert reasons(claim("Ah Ad Tc 7s 7c", {1: "As Td", 4: "7h 7d"})) == []


# --- rules 7 and 8: players dealt in, the pot --------------------------------------------------

def test_four_players_dealt_in_are_not_enough() -> None:
    assert reasons(claim(dealt_in=(1, 2, 4, 5))) == ["NOT_ENOUGH_PLAYERS"]


def test_five_players_dealt_in_are_enough() -> None:
    assert reasons(claim(dealt_in=(1, 2, 4, 5, 6))) == []


def test_pot_of_20_big_blinds_is_enough() -> None:
    assert reasons(claim(big_blind_cents=10_000, pot_cents=200_000)) == []


def test_pot_just_below_20_big_blinds_is_too_small() -> None:
    assert reasons(claim(big_blind_cents=10_000, pot_cents=199_999)) == ["POT_TOO_SMALL"]


def test_players_and_pot_minimums_are_settings() -> None:
    s = BbjSettings(min_players=4, min_pot_big_blinds=10)
    assert reasons(claim(dealt_in=(1, 2, 4, 5), pot_cents=100_000), s) == []


# --- rule 9: voids -----------------------------------------------------------------------------

@pytest.mark.parametrize("void", VOID_REASONS)
def test_every_void_reason_voids_the_claim(void: str) -> None:
    d = decide(claim(voids=(void,)))
    assert d.reasons == ("VOIDED",)
    assert (d.award_cents, d.shares) == (0, ())


# --- every failed rule is named ----------------------------------------------------------------

def test_every_failed_rule_is_listed_in_cli_md_order() -> None:
    c = claim("Ah Ad Ac 7s 7h", {1: "Ts 2c", 4: "7c 7d"}, dealt_in=(1, 2, 3, 4),
              pot_cents=199_999, voids=("fouled_deck",))
    # seat 1: AAA77 + Ts 2c -> AAA77 (the board plays): too low, hole cards do not play;
    # seat 4: 7777A, both sevens play.
    assert reasons(c) == ["NOT_ENOUGH_PLAYERS", "POT_TOO_SMALL", "LOSING_HAND_TOO_LOW",
                          "LOSING_HOLE_CARDS_DO_NOT_PLAY", "VOIDED"]


def test_reasons_use_only_the_codes_of_cli_md() -> None:
    assert REASONS == (
        "NOT_ENOUGH_PLAYERS", "POT_TOO_SMALL", "NO_SHOWDOWN", "WINNING_HAND_TOO_LOW",
        "LOSING_HAND_TOO_LOW", "WINNING_HOLE_CARDS_DO_NOT_PLAY", "LOSING_HOLE_CARDS_DO_NOT_PLAY",
        "NO_ACE_IN_HOLE", "VOIDED")


def test_not_qualifying_pays_nothing_and_leaves_the_funds() -> None:
    d = decide(claim(dealt_in=(1, 2, 4, 5)))
    assert (d.qualifies, d.award_cents, d.shares, d.payout_fraction) == (False, 0, (), 0)
    assert (d.main_after_cents, d.reserve_after_cents) == (100_000_000, 30_000_000)


# --- ties ----------------------------------------------------------------------------------------

# Seats 1 and 2 both hold an Ace and a Ten: AAATT each, both hole cards playing, an Ace in the
# hole; seat 4's 7h 7d make 7777A and win the pot.  Seven players dealt in, pot 25 big blinds.
TIE = {1: "As Td", 2: "Ac Th", 4: "7h 7d"}


def test_a_tie_for_the_bad_beat_hand_splits_the_losing_share_by_default() -> None:
    # RULES.md 6.6, tie = split: the losing place's share (award x 0.40, rounded down) is divided
    # equally between seats 1 and 2, each rounded down; the table share goes to every other
    # seat dealt in (3, 5, 6, 7); the centavos left stay in main.  An odd main to see it:
    # main 123,456.79 at a full-cap table -> award 123,456.79
    #   winning 20%: 24,691.358 -> 24,691.35 to seat 4
    #   losing 40%: 49,382.716 -> 49,382.71, / 2 = 24,691.355 -> 24,691.35 each to seats 1, 2
    #   table 40%: 49,382.716 / 4 = 12,345.679 -> 12,345.67 each to seats 3, 5, 6, 7
    #   paid 24,691.35 + 2 x 24,691.35 + 4 x 12,345.67 = 123,456.73; 0.06 left in main
    # every share is above 10,000.00: citizens pay 20% (24,691.35 -> 4,938.27; 12,345.67 ->
    # 2,469.13, half up).  Reserve 300.01 moves up whole (fraction 1).
    c = claim(showdown=TIE, main_jackpot_cents=12_345_679, reserve_jackpot_cents=30_001)
    d = decide(c)
    assert d.qualifies and d.reasons == ()
    assert (d.winning_seat, d.winning_seats, d.losing_seat, d.losing_seats) == (4, (4,), 1, (1, 2))
    assert d.losing_tie == (1, 2) and d.losing_hand is not None
    assert d.losing_hand.category == "FULL_HOUSE"
    assert gross(d) == [(4, "winning", 2_469_135), (1, "losing", 2_469_135),
                        (2, "losing", 2_469_135), (3, "table", 1_234_567),
                        (5, "table", 1_234_567), (6, "table", 1_234_567),
                        (7, "table", 1_234_567)]
    assert [s.tax_cents for s in d.shares] == [493_827] * 3 + [246_913] * 4
    assert (d.award_cents, d.paid_cents, d.left_in_main_cents) == (12_345_679, 12_345_673, 6)
    assert (d.main_after_cents, d.reserve_after_cents) == (6 + 30_001, 0)
    assert d.main_after_cents + d.reserve_after_cents + d.paid_cents == 12_345_679 + 30_001


def test_a_tie_split_at_a_lower_cap_rounds_the_place_share_then_each_seat() -> None:
    # cap 75 of 100 -> award = 1,000,000.00 x 3/4 = 750,000.00; split 0.25/0.35/0.40:
    # losing 262,500.00 / 2 = 131,250.00 each; winning 187,500.00; table 300,000.00 / 4 =
    # 75,000.00 each.
    s = BbjSettings(split=Split(Decimal("0.25"), Decimal("0.35"), Decimal("0.40")))
    d = decide(claim(showdown=TIE, table_jackpot_rake_cap_cents=7_500), s)
    assert gross(d) == [(4, "winning", 18_750_000), (1, "losing", 13_125_000),
                        (2, "losing", 13_125_000), (3, "table", 7_500_000),
                        (5, "table", 7_500_000), (6, "table", 7_500_000),
                        (7, "table", 7_500_000)]
    assert d.left_in_main_cents == 0


def test_a_tie_under_the_refuse_policy_names_both_seats_and_the_place() -> None:
    with pytest.raises(BbjError, match=r"seats 1 and 2 tie for the losing hand \(FULL_HOUSE\);"
                                       r" the room's tie policy is refuse"):
        decide(claim(showdown=TIE), BbjSettings(tie="refuse"))


def test_a_tie_policy_that_is_not_split_or_refuse_is_refused_by_name() -> None:
    with pytest.raises(BbjError, match="tie: 'toss' is not a tie policy"):
        BbjSettings(tie="toss")


def test_a_tie_for_the_second_hand_that_fails_anyway_is_decided_under_either_policy() -> None:
    c = claim(showdown=TIE, dealt_in=(1, 2, 3, 4))
    for policy in ("split", "refuse"):
        d = decide(c, BbjSettings(tie=policy))
        assert (d.losing_seat, d.losing_seats, d.reasons) == (1, (1, 2), ("NOT_ENOUGH_PLAYERS",))


def test_a_tie_where_no_tied_seat_passes_fails_with_the_lowest_seats_reasons() -> None:
    # board Ah Ad Tc Ts 2c: seats 1 (As 3d) and 2 (Ac 4h) both make AAATT, and in both the low
    # card does not play: no tied seat can be the bad beat.  Seat 6's Th Td make TTTTA and win.
    c = claim("Ah Ad Tc Ts 2c", {1: "As 3d", 2: "Ac 4h", 6: "Th Td"})
    for policy in ("split", "refuse"):
        d = decide(c, BbjSettings(tie=policy))
        assert not d.qualifies
        assert (d.winning_seats, d.losing_seat, d.losing_tie) == ((6,), 1, (1, 2))
        assert d.reasons == ("LOSING_HOLE_CARDS_DO_NOT_PLAY",)


def test_a_tied_seat_that_fails_its_own_hand_rules_takes_the_table_share(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # With real cards a tie for a place is all-pass (each holds an Ace and a Ten) or all-fail
    # (docs/bbj.md "Ties"); the reading for a mixed tie is checked with seat 2's hand rules
    # made to fail: seat 2 is then an "other player dealt in" (RULES.md 6.6), so seat 1 alone
    # takes the losing 40% and seat 2 a table share: 1,000,000.00 -> 200,000.00 to seat 4,
    # 400,000.00 to seat 1, 400,000.00 / 5 = 80,000.00 to each of seats 2, 3, 5, 6, 7.
    import core.pokerroom.rules.bbj as bbj

    real = bbj._hand_reasons

    def failing_for_seat_2(role: str, hand: Any, board: Any, hole: Any) -> set[str]:
        out = real(role, hand, board, hole)
        if hole == tuple(cards("Ac Th")):
            out.add(f"{role}_HOLE_CARDS_DO_NOT_PLAY")
        return out

    monkeypatch.setattr(bbj, "_hand_reasons", failing_for_seat_2)
    d = decide(claim(showdown=TIE))
    assert (d.losing_seats, d.losing_tie) == ((1,), (1, 2))
    assert gross(d) == [(4, "winning", 20_000_000), (1, "losing", 40_000_000),
                        (2, "table", 8_000_000), (3, "table", 8_000_000),
                        (5, "table", 8_000_000), (6, "table", 8_000_000),
                        (7, "table", 8_000_000)]
    # two hands of equal value are still a tie for the refuse policy: the manager decides
    with pytest.raises(BbjError, match="seats 1 and 2 tie for the losing hand"):
        decide(claim(showdown=TIE), BbjSettings(tie="refuse"))


def test_a_tie_for_the_pot_is_the_winning_place_and_the_next_hand_the_losing_one() -> None:
    # board 7h 7d 7c 7s 2c: seats 1 (Ks 3d) and 2 (Kc 4h) both make 7777K and split the pot;
    # seat 3 (Qs Qd) makes 7777Q, the losing place.  A tied winning place never passes its
    # rules (here the low cards do not play), so the claim fails, reported on seat 1.
    c = claim("7h 7d 7c 7s 2c", {1: "Ks 3d", 2: "Kc 4h", 3: "Qs Qd"})
    d = decide(c)
    assert (d.winning_seat, d.winning_tie, d.losing_seats) == (1, (1, 2), (3,))
    assert "WINNING_HOLE_CARDS_DO_NOT_PLAY" in d.reasons


# --- payout: the split and the table share ----------------------------------------------------

# award 1,000,000.00: winning 20% 200,000.00, losing 40% 400,000.00, and 400,000.00 shared by
# the players dealt in other than the two hands, each rounded down to the centavo.
TABLE_SHARES = {  # players dealt in -> (each table share, centavos left in main)
    5: (13_333_333, 1),  # 40,000,000 / 3 = 13,333,333.33
    6: (10_000_000, 0),
    7: (8_000_000, 0),
    8: (6_666_666, 4),  # 40,000,000 / 6 = 6,666,666.67; 6 x 6,666,666 = 39,999,996
    9: (5_714_285, 5),  # 40,000,000 / 7 = 5,714,285.71; 7 x 5,714,285 = 39,999,995
    10: (5_000_000, 0),
}


@pytest.mark.parametrize("players", sorted(TABLE_SHARES))
def test_table_share_is_divided_equally_among_the_other_players(players: int) -> None:
    each, left = TABLE_SHARES[players]
    d = decide(claim(dealt_in=tuple(range(1, players + 1))))
    others = [s for s in range(1, players + 1) if s not in (1, 4)]
    assert gross(d) == [(4, "winning", 20_000_000), (1, "losing", 40_000_000)] + [
        (s, "table", each) for s in others]
    assert d.left_in_main_cents == left
    # no reserve moves into main at 100% beyond the whole reserve; the leftover stays in main
    assert d.main_after_cents == left + 30_000_000
    assert d.reserve_after_cents == 0


def test_shares_list_winning_losing_then_table_seats_in_seat_order() -> None:
    d = decide(claim(showdown={6: "As Td", 2: "7h 7d"}, dealt_in=(9, 2, 6, 1, 5)))
    assert [(s.seat, s.role) for s in d.shares] == [
        (2, "winning"), (6, "losing"), (1, "table"), (5, "table"), (9, "table")]


def test_split_is_configurable() -> None:
    s = BbjSettings(split=Split(Decimal("0.40"), Decimal("0.20"), Decimal("0.40")))
    d = decide(claim(), s)
    assert gross(d)[:2] == [(4, "winning", 40_000_000), (1, "losing", 20_000_000)]


def test_split_must_add_up_to_one() -> None:
    with pytest.raises(BbjError, match="add up to 1"):
        Split(Decimal("0.20"), Decimal("0.40"), Decimal("0.30"))


# --- payout: the table's cap, the reserve ---------------------------------------------------

@pytest.mark.parametrize(("cap", "award", "moved"), [
    (2_500, 25_000_000, 7_500_000),  # 25 of 100 pesos: 25% of 1,000,000.00 and of 300,000.00
    (5_000, 50_000_000, 15_000_000),
    (7_500, 75_000_000, 22_500_000),
    (10_000, 100_000_000, 30_000_000),
])
def test_payout_is_proportional_to_the_tables_jackpot_rake_cap(cap: int, award: int,
                                                                  moved: int) -> None:
    d = decide(claim(table_jackpot_rake_cap_cents=cap))
    assert d.payout_fraction == Fraction(cap, 10_000)
    assert d.award_cents == award
    # 7 players: 20% + 40% + 5 x 8% of the award, all whole centavos here
    assert gross(d)[0][2] == award // 5 and gross(d)[1][2] == award * 2 // 5
    assert d.paid_cents == award
    assert d.reserve_after_cents == 30_000_000 - moved
    assert d.main_after_cents == 100_000_000 - award + moved


def test_reserve_moves_to_main_in_the_proportion_of_the_payout() -> None:
    # 50% payout: half the reserve (123.45 of 246.91 rounds down to 123.45) moves up
    d = decide(claim(table_jackpot_rake_cap_cents=5_000, reserve_jackpot_cents=24_691))
    assert d.reserve_after_cents == 24_691 - 12_345
    assert d.main_after_cents == 100_000_000 - 50_000_000 + 12_345


def test_award_rounds_down_to_the_centavo() -> None:
    # 33.33 of 100.00: 1,000,000.01 x 0.3333 = 333,300.003333 -> 333,300.00
    d = decide(claim(table_jackpot_rake_cap_cents=3_333, main_jackpot_cents=100_000_001))
    assert d.award_cents == 33_330_000


def test_remainder_of_an_award_that_does_not_divide_stays_in_main() -> None:
    # award 1,000,000.01 (100,000,001 centavos), 8 players: winning 20,000,000.2 -> 20,000,000;
    # losing 40,000,000.4 -> 40,000,000; table 40,000,000.4 / 6 = 6,666,666.73 -> 6,666,666 x 6
    d = decide(claim(main_jackpot_cents=100_000_001, dealt_in=tuple(range(1, 9))))
    assert d.award_cents == 100_000_001
    assert [g for _, _, g in gross(d)] == [20_000_000, 40_000_000] + [6_666_666] * 6
    assert d.left_in_main_cents == 100_000_001 - 20_000_000 - 40_000_000 - 6 * 6_666_666 == 5
    assert d.main_after_cents == 5 + 30_000_000


def test_bad_claims_are_refused_with_the_field_named() -> None:
    with pytest.raises(BbjError, match="table_jackpot_rake_cap: 100.01 is above"):
        claim(table_jackpot_rake_cap_cents=10_001)
    with pytest.raises(BbjError, match="big_blind: must be more than 0.00"):
        claim(big_blind_cents=0)
    with pytest.raises(BbjError, match="showdown: seat 8 was not dealt in"):
        claim(showdown={8: "As Td", 4: "7h 7d"})
    with pytest.raises(BbjError, match="showdown seat 4 hole: card As is also in seat 1"):
        claim(showdown={1: "As Td", 4: "As 7d"})
    with pytest.raises(BbjError, match="showdown seat 1 hole: card Ah is also on the board"):
        claim(showdown={1: "Ah Td", 4: "7h 7d"})
    with pytest.raises(BbjError, match="taxpayers: seat 1: unknown taxpayer class"):
        claim(taxpayers={1: "martian"})
    with pytest.raises(BbjError, match="voids: unknown void reason"):
        claim(voids=("bad_luck",))


# --- withholding tax ------------------------------------------------------------------------

@pytest.mark.parametrize(("taxpayer", "gross_cents", "tax"), [
    ("citizen", 1_000_000, 0),  # 10,000.00 exactly: not above
    ("citizen", 1_000_001, 200_000),  # 10,000.01: 20% of the whole share = 2,000.002 -> 2,000.00
    ("nraetb", 1_000_000, 0),
    ("nraetb", 1_000_001, 200_000),
    ("nranetb", 1_000_000, 250_000),  # 25% regardless
    ("nranetb", 1_000_001, 250_000),  # 2,500.0025 -> 2,500.00
    ("nranetb", 1_000_002, 250_001),  # 2,500.005 -> 2,500.01 (half up)
    ("nranetb", 100, 25),
    ("citizen", 100, 0),
])
def test_withholding_tax_by_taxpayer_class(taxpayer: str, gross_cents: int, tax: int) -> None:
    # the winning share is 20% of the award: an award of 5 x gross pays exactly that share
    d = decide(claim(main_jackpot_cents=5 * gross_cents, taxpayers={4: taxpayer}))
    win = d.shares[0]
    assert (win.seat, win.role, win.gross_cents) == (4, "winning", gross_cents)
    assert (win.tax_cents, win.net_cents) == (tax, gross_cents - tax)


def test_tax_threshold_and_rates_are_settings() -> None:
    s = BbjSettings(tax_threshold_cents=500_000, resident_tax_rate=Decimal("0.10"))
    d = decide(claim(main_jackpot_cents=5 * 600_000), s)
    assert d.shares[0].tax_cents == 60_000


def test_unlisted_seats_are_citizens() -> None:
    d = decide(claim(taxpayers={2: "nranetb"}))
    assert [(s.seat, s.taxpayer) for s in d.shares] == [
        (4, "citizen"), (1, "citizen"), (2, "nranetb"), (3, "citizen"), (5, "citizen"),
        (6, "citizen"), (7, "citizen")]


# --- whatever the deal: money is conserved --------------------------------------------------

FULL_DECK = [Card(r, s) for s in SUITS for r in RANKS]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 10), shown=st.integers(0, 10),
       cap=st.integers(1, 10_000), main=st.integers(0, 10**10), reserve=st.integers(0, 10**9))
def test_funds_are_conserved_and_shares_round_down(seed: int, players: int, shown: int,
                                                   cap: int, main: int, reserve: int) -> None:
    rng = random.Random(seed)
    deck = rng.sample(FULL_DECK, 5 + 2 * players)
    seats = tuple(rng.sample(range(1, 11), players))
    showdown = tuple(ShownHand(seat, (deck[5 + 2 * i], deck[6 + 2 * i]))
                     for i, seat in enumerate(seats[:shown]))
    c = Claim(100, 2_000, seats, tuple(deck[:5]), showdown, cap, 10_000, main, reserve)
    d = decide(c)  # a tie is split by default: never refused
    assert d.main_after_cents + d.reserve_after_cents + d.paid_cents == main + reserve
    assert 0 <= d.left_in_main_cents < max(1, len(d.shares))
    if d.qualifies:
        assert d.winning_hand is not None and d.losing_hand is not None
        assert d.winning_hand.value > d.losing_hand.value
        assert d.award_cents == main * cap // 10_000
    else:
        assert d.reasons and (d.main_after_cents, d.reserve_after_cents) == (main, reserve)


def test_qualifying_deals_found_by_stacking_conserve_money() -> None:
    # the qualifying claim with odd amounts: nothing is created or lost
    c = replace(claim(), main_jackpot_cents=123_456_789, reserve_jackpot_cents=98_765,
                table_jackpot_rake_cap_cents=7_777)
    d = decide(c)
    assert d.qualifies
    assert d.main_after_cents + d.reserve_after_cents + d.paid_cents == 123_456_789 + 98_765


def test_the_table_share_is_only_for_players_dealt_in_and_seated_at_the_start() -> None:
    """The guideline III.I: "A player must be dealt in and seated at the beginning of the hand
    to qualify to the table share." (issue 27 point 9)."""
    # main 1,000,000.00 at 100%: the table's 40% (TGD-1500: "TABLE SHARE (40%)") =
    # 400,000.00.  Seats 2, 3, 5, 6, 7 are the others dealt in: 80,000.00 each.  Seat 7 dealt
    # in but not seated at the start: the 40% among seats 2, 3, 5, 6: 100,000.00 each, tax
    # 20% = 20,000.00 each (above 10,000.00).
    everyone = decide(claim())
    assert [(s, c) for s, role, c in gross(everyone) if role == "table"] == [
        (2, 8_000_000), (3, 8_000_000), (5, 8_000_000), (6, 8_000_000), (7, 8_000_000)]
    d = decide(claim(not_seated=(7,)))
    assert d.qualifies
    table = [s for s in d.shares if s.role == "table"]
    assert [(s.seat, s.gross_cents, s.tax_cents) for s in table] == [
        (2, 10_000_000, 2_000_000), (3, 10_000_000, 2_000_000), (5, 10_000_000, 2_000_000),
        (6, 10_000_000, 2_000_000)]
    assert [(s, role) for s, role, _ in gross(d) if role != "table"] == [(4, "winning"),
                                                                        (1, "losing")]
    with pytest.raises(BbjError, match="not_seated: seat 9 was not dealt in"):
        claim(not_seated=(9,))
    with pytest.raises(BbjError, match="not_seated: seat 4 is shown down"):
        claim(not_seated=(4,))
