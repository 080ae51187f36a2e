"""Free-game statements of the NZ Gazette (issue 27 point 10), source 002, 1.40.38-39:

    "Non winning combinations occurring during free games pay X credits multiplied by the total
    number of credits staked / credits staked per line:
    1.40.38 If any win occurs in the free game, including scatters, then extra X credits
    (consolation prize), multiplied by the appropriate credits staked, are not paid. If scattered
    wins occur and the consolation prize is paid regardless this is appropriately stated."

    "1.40.39 Any win that occurs during the free games is at double* the scheduled prize. If some
    prizes are offered only during free games then such prizes are also multiplied by two when
    occurring. If prizes that are offered only during free games are already doubled then a
    statement excludes them from the above game instruction."

The game file states them in ``[free_games]``: ``consolation_per = "line"`` (the per-line
variant; "total_bet" as before), ``consolation_with_scatters = true`` (paid regardless),
``[free_games.pays]`` / ``[free_games.scatter_pays]`` (prizes offered only during free games)
and ``free_only_already_multiplied = true`` (the exclusion statement).  Every expected prize is
worked out by hand from the test game's artwork in tests/core/machines/rules/test_slots.py
(3 lines; free games x3; consolation 1; S pays 2 per credit of total bet for 3).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from core.machines.rules.slot_games import GameError, find_game
from core.machines.rules.slot_return import game_return
from tests.core.machines.rules.test_slot_return import expected_from_brute, small_strips
from tests.core.machines.rules.test_slots import game, spin

NOTHING = "K Q A Q K"  # the middle row: no pattern, no scatter, no substitute
ONE_S = "K S A Q K"


def test_consolation_per_line_is_x_credits_times_the_credits_staked_per_line() -> None:
    """3 lines at 2 credits a line: per total bet 1 x 6 = 6 credits; per line 1 x 2 = 2."""
    assert spin(game(), NOTHING, free_game=True, bet_per_line=2).consolation == 6
    per_line = game(free_games={"consolation_per": "line"})
    out = spin(per_line, NOTHING, free_game=True, bet_per_line=2)
    assert (out.consolation, out.total) == (2, 2)
    assert spin(per_line, NOTHING, bet_per_line=2).consolation == 0  # a base game: none


def test_a_scatter_win_stops_the_consolation_unless_it_is_paid_regardless() -> None:
    """Three S on the screen (one per row) pay 2 x 3 (total bet) x 3 (free games) = 18.
    Without the statement no consolation (a scattered win); with it 1 x 3 credits more."""
    screen = dict(top="K S A Q K", bottom="Q A K S Q")
    out = spin(game(), ONE_S, free_game=True, **screen)
    assert (out.scatter_wins[0].prize, out.consolation) == (18, 0)
    regardless = game(free_games={"consolation_with_scatters": True})
    out = spin(regardless, ONE_S, free_game=True, **screen)
    assert (out.scatter_wins[0].prize, out.consolation, out.total) == (18, 3, 21)
    # a line win still stops it: 3 A on line 1 pay 10 x 3 = 30, no consolation
    out = spin(regardless, "A A A Q K", free_game=True)
    assert (out.line_wins[0].prize, out.consolation) == (30, 0)


def test_a_prize_offered_only_in_free_games_is_multiplied_unless_the_artwork_excludes_it(
        ) -> None:
    """K pays 5 for 3 in every game; the artwork adds "2 K" = 4 credits only in free games.
    In a free game 2 K on line 1 pay 4 x 3 = 12; with the exclusion statement (already
    multiplied) 4 x 1 = 4; in a base game nothing."""
    extra = {"pays": {"K": {"2": 4}}}
    two_k = "K K A Q A"
    assert spin(game(free_games=extra), two_k).line_wins == ()
    out = spin(game(free_games=extra), two_k, free_game=True)
    assert [(w.symbol, w.count, w.multiplier, w.prize) for w in out.line_wins] == [
        ("K", 2, 3, 12)]
    excluded = game(free_games={**extra, "free_only_already_multiplied": True})
    out = spin(excluded, two_k, free_game=True)
    assert [(w.symbol, w.count, w.multiplier, w.prize) for w in out.line_wins] == [
        ("K", 2, 1, 4)]
    # the scheduled prizes are still multiplied: 3 K pay 5 x 3 = 15
    out = spin(excluded, "K K K Q A", free_game=True)
    assert [(w.count, w.prize) for w in out.line_wins] == [(3, 15)]


def test_a_scatter_prize_offered_only_in_free_games() -> None:
    """Two S are no prize in the base game; the artwork adds 2 S = 1 per credit of total bet
    in free games: 1 x 3 x 3 = 9, or 1 x 3 = 3 with the exclusion statement."""
    extra = {"scatter_pays": {"S": {"2": 1}}}
    screen = dict(top="K S A Q K")
    assert spin(game(free_games=extra), ONE_S, **screen).scatter_wins == ()
    out = spin(game(free_games=extra), ONE_S, free_game=True, **screen)
    assert [(w.count, w.prize) for w in out.scatter_wins] == [(2, 9)]
    out = spin(game(free_games={**extra, "free_only_already_multiplied": True}), ONE_S,
               free_game=True, **screen)
    assert [(w.count, w.prize) for w in out.scatter_wins] == [(2, 3)]


@pytest.mark.parametrize(("changes", "problem"), [
    ({"consolation_per": "spin"}, 'must be "total_bet"'),
    ({"consolation": 0, "consolation_with_scatters": True}, "states no consolation"),
    ({"pays": {"K": {"3": 9}}}, "count 3 is a prize of the base game too"),
    ({"free_only_already_multiplied": True}, "lists no prize offered only during free"),
])
def test_the_statements_are_checked(changes: dict[str, object], problem: str) -> None:
    with pytest.raises(GameError, match=problem):
        game(free_games=changes)


@pytest.mark.parametrize("fields", [
    {"consolation_per": "line"},
    {"consolation_with_scatters": True},
    {"pays": {"D": {2: 20}, "K": {2: 1}}, "scatter_pays": {"S": {2: 1}}},
])
def test_the_return_counts_the_statements_as_the_evaluator_pays_them(
        fields: dict[str, object]) -> None:
    """The exact return against brute force over every stop combination (jade-harbour's
    artwork with each statement added, 5-stop strips)."""
    g = find_game("jade-harbour")
    assert g.free_games is not None
    g = replace(g, free_games=replace(g.free_games, **fields))  # type: ignore[arg-type]
    strips = small_strips(g, 5, 3)
    g = replace(g, strips=strips, free_strips=None)
    got = game_return(g).total_return
    assert got == expected_from_brute(g, strips, strips)
    assert got != Fraction(0)
