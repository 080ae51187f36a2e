"""Gaming-machine win rules (RULES.md section 7, SLOTS.md): game files and the evaluator.

Every expected prize is worked out by hand from the test game's "artwork" below, in the
test itself, not copied from the program.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.machines.rules.slot_games import (
    GameError,
    find_game,
    load_game_file,
    parse_game,
    shipped_games,
)
from core.machines.rules.slots import (
    Outcome,
    Pattern,
    Spin,
    SpinError,
    evaluate,
    parse_screen,
    spin_from_text,
)

# The artwork of the test game.  Line 1 is the middle row, line 2 the top, line 3 the bottom.
ARTWORK: dict[str, Any] = {
    "game": {"name": "Test Reels", "reels": 5, "rows": 3},
    "symbols": {"A": "normal", "K": "normal", "Q": "normal", "W": "substitute",
                "V": "substitute", "S": "scatter"},
    "substitutes": {
        # W: for all symbols except Q; x2 once per pattern; also for the scatter.
        "W": {"for": "all", "except": ["Q"], "multiplier": 2, "scatters": True,
              "multiply_scatters": True},
        # V: for A only; x3 for EVERY V in the pattern.
        "V": {"for": ["A"], "multiplier": 3, "per_substitute": True},
    },
    "paylines": [{"rows": [1, 1, 1, 1, 1]}, {"rows": [0, 0, 0, 0, 0]},
                 {"rows": [2, 2, 2, 2, 2]}],
    "pays": {
        "A": {"3": 10, "4": 40, "5": 200},
        "K": {"3": 5, "4": 20, "5": 100},
        "Q": {"3": 4, "4": 16, "5": 64},
        "W": {"3": 50, "4": 250, "5": 2000},
        "V": {"3": 30, "4": 120, "5": 600},
    },
    "scatter_pays": {"S": {"3": 2, "4": 10, "5": 50}},
    "free_games": {"trigger": {"symbol": "S", "count": 3}, "games": 10, "multiplier": 3,
                   "retrigger_prize": 0, "consolation": 1},
}
TOP = "K Q A Q K"  # no pattern, no scatter, no substitute
BOTTOM = "Q A K A Q"  # no pattern, no scatter, no substitute
LINES = 3


def game(**changes: Any) -> Any:
    """The test game with ``section={key: value}`` changes (value None removes the key)."""
    data = copy.deepcopy(ARTWORK)
    for section, values in changes.items():
        if values is None:
            del data[section]
            continue
        if isinstance(values, list):
            data[section] = values
            continue
        target = data[section]
        for key, value in values.items():
            if value is None:
                target.pop(key, None)
            else:
                target[key] = value
    return parse_game(data, "test.toml")


def spin(g: Any, middle: str, top: str = TOP, bottom: str = BOTTOM, **kw: Any) -> Outcome:
    return evaluate(g, Spin(parse_screen(g, f"{top} / {middle} / {bottom}"), **kw))


def only_line(out: Outcome) -> tuple[str, int, int, int, int]:
    (w,) = out.line_wins
    return (w.symbol, w.count, w.substitutes, w.multiplier, w.prize)


# --- line wins ------------------------------------------------------------------------------

def test_line_pattern_is_the_run_from_the_left_reel() -> None:
    out = spin(game(), "A A A K Q")
    assert only_line(out) == ("A", 3, 0, 1, 10)  # 3 A pays 10
    assert spin(game(), "K A A A Q").line_wins == ()  # not from the left reel: nothing


def test_longer_run_pays_its_own_prize_not_the_shorter_one() -> None:
    assert only_line(spin(game(), "K K K K Q")) == ("K", 4, 0, 1, 20)  # 4 K pays 20


def test_substitute_for_listed_symbols_substitutes_for_them() -> None:
    # V is "for A": A V A -> 3 A with one V, x3.
    assert only_line(spin(game(), "A V A K Q")) == ("A", 3, 1, 3, 10 * 3)


def test_substitute_for_listed_symbols_does_not_substitute_for_others() -> None:
    # V is not for K: K V K is no pattern of K.
    assert spin(game(), "K V K Q Q").line_wins == ()


def test_substitute_for_all_except_substitutes_for_every_other_symbol() -> None:
    assert only_line(spin(game(), "K W K Q A")) == ("K", 3, 1, 2, 5 * 2)


def test_substitute_for_all_except_does_not_substitute_for_the_exceptions() -> None:
    assert spin(game(), "Q W Q A K").line_wins == ()  # W is "for all except Q"


def test_substitute_never_substitutes_for_itself_and_its_own_pattern_is_not_multiplied() -> None:
    # W W W: W's own pattern, 50, not x2.
    assert only_line(spin(game(), "W W W Q A")) == ("W", 3, 0, 1, 50)


def test_pattern_made_only_of_substitutes_is_not_a_pattern_of_another_symbol() -> None:
    # W W W then Q (W is not for Q): only W's own 3 pay; no "3 A with 3 W".
    assert only_line(spin(game(), "W W W Q K")) == ("W", 3, 0, 1, 50)


def test_substitutes_in_front_complete_a_longer_pattern_of_the_symbol() -> None:
    # W W W A: 4 A with 3 W (x2 once) = 80 beats W's own 3 = 50.
    assert only_line(spin(game(), "W W W A Q")) == ("A", 4, 3, 2, 40 * 2)


def test_only_the_highest_prize_on_a_line_is_paid() -> None:
    # W W W W K: W's own 4 = 250; 5 K with 4 W = 100 x 2 = 200.  250 is paid, only it.
    assert only_line(spin(game(), "W W W W K")) == ("W", 4, 0, 1, 250)
    # W W W K K: W's own 3 = 50; 5 K with 3 W = 100 x 2 = 200.  200 is paid.
    assert only_line(spin(game(), "W W W K K")) == ("K", 5, 3, 2, 200)


def test_multiplier_applies_once_without_per_substitute() -> None:
    # two W in 4 K: 20 x 2 (not x4)
    assert only_line(spin(game(), "K W W K Q")) == ("K", 4, 2, 2, 20 * 2)


def test_multiplier_applies_per_substitute_with_per_substitute() -> None:
    # two V in 4 A: 40 x 3 x 3
    assert only_line(spin(game(), "A V V A Q")) == ("A", 4, 2, 9, 40 * 3 * 3)


def test_multiplier_does_not_apply_without_a_substitute() -> None:
    assert only_line(spin(game(), "A A A A K")) == ("A", 4, 0, 1, 40)


def test_two_different_substitutes_in_one_pattern_multiply_their_factors() -> None:
    # A W V A A: 5 A; W contributes x2, V x3 -> x6.
    out = spin(game(), "A W V A A")
    assert only_line(out) == ("A", 5, 2, 6, 200 * 2 * 3)
    assert dict(out.line_wins[0].substituted_by) == {"W": 1, "V": 1}


def test_each_substitute_applies_its_own_set() -> None:
    # K W V: W is for K but V is not -> only 2 K, which pays nothing.
    assert spin(game(), "K W V K K").line_wins == ()


def test_line_prizes_are_per_credit_bet_on_the_line() -> None:
    out = spin(game(), "A A A K Q", bet_per_line=5)
    assert only_line(out)[-1] == 10 * 5
    assert out.total_bet == 5 * LINES


def test_only_played_lines_pay() -> None:
    g = game()
    top_win = "A A A Q K"  # a pattern on line 2 (the top row)
    assert [w.line for w in spin(g, "K Q K Q K", top=top_win).line_wins] == [2]
    out = spin(g, "K Q K Q K", top=top_win, lines=1)
    assert out.line_wins == ()
    assert out.total_bet == 1


def test_run_longer_than_any_listed_count_pays_the_largest_listed_below_it() -> None:
    g = game(pays={"A": {"3": 10, "4": 40}})  # no prize listed for 5 A
    assert only_line(spin(g, "A A A A A")) == ("A", 4, 0, 1, 40)


# --- scatter wins ---------------------------------------------------------------------------

def test_scatter_counts_anywhere_on_the_screen_per_credit_of_total_bet() -> None:
    out = spin(game(), "K Q S Q K", top="S Q A Q K", bottom="Q A K A S", bet_per_line=2)
    (w,) = out.scatter_wins
    assert (w.symbol, w.count, w.substitutes, w.multiplier) == ("S", 3, 0, 1)
    assert w.prize == 2 * (2 * LINES)  # 3 S pays 2 per credit of total bet (6)
    assert out.total == w.prize


def test_substitute_for_scatters_counts_with_them_even_when_none_is_showing() -> None:
    # three W, no S: W counts with S -> 3 S, x2 because multiply_scatters
    out = spin(game(), "Q W Q A K", top="W Q A Q K", bottom="Q A K A W")
    (w,) = out.scatter_wins
    assert (w.symbol, w.count, w.substitutes, w.multiplier, w.prize) == \
        ("S", 3, 3, 2, 2 * 2 * LINES)


def test_substitute_without_scatters_does_not_count_with_scatters() -> None:
    g = game(substitutes={"W": {"for": "all", "except": ["Q"], "multiplier": 2}})
    out = spin(g, "Q W Q A K", top="W Q A Q K", bottom="Q A S A W")  # one S, three W
    assert out.scatter_wins == ()


def test_substitute_counts_once_on_a_line_and_once_for_the_scatter() -> None:
    # middle K W K: 3 K with W (5 x 2); W + two S = 3 S (2 x 2 per credit of total bet 3)
    out = spin(game(), "K W K Q A", top="S Q A Q K", bottom="Q A K A S")
    assert only_line(out) == ("K", 3, 1, 2, 10)
    assert [(w.count, w.prize) for w in out.scatter_wins] == [(3, 2 * 2 * LINES)]


def test_scatter_prize_multiplied_only_when_a_substitute_took_part() -> None:
    out = spin(game(), "S Q S Q K", bottom="Q A K A S")  # three S, no W
    assert [(w.multiplier, w.prize) for w in out.scatter_wins] == [(1, 2 * LINES)]


def test_scatter_prize_not_multiplied_without_multiply_scatters() -> None:
    g = game(substitutes={"W": {"for": "all", "except": ["Q"], "multiplier": 2,
                                "scatters": True}})
    out = spin(g, "S Q W Q K", bottom="Q A K A S")  # two S + one W = 3
    assert [(w.count, w.substitutes, w.multiplier, w.prize) for w in out.scatter_wins] == \
        [(3, 1, 1, 2 * LINES)]


# --- free games -----------------------------------------------------------------------------

def test_free_games_are_awarded_by_a_trigger_in_a_base_game() -> None:
    out = spin(game(), "S Q S Q K", bottom="Q A K A S")
    assert out.free_games_awarded == 10


def test_free_games_trigger_counts_a_scatter_substitute() -> None:
    assert spin(game(), "S Q W Q K", bottom="Q A K A S").free_games_awarded == 10  # 2 S + W
    assert spin(game(), "S Q K Q K", bottom="Q A K A S").free_games_awarded == 0  # 2 S


def test_every_prize_in_a_free_game_is_multiplied_by_the_free_game_multiplier() -> None:
    out = spin(game(), "K W K Q A", free_game=True)
    assert only_line(out) == ("K", 3, 1, 2 * 3, 5 * 2 * 3)
    out = spin(game(), "W W W Q A", free_game=True)  # W's own: not x2, but x3 in free games
    assert only_line(out) == ("W", 3, 0, 3, 50 * 3)


def test_base_game_prizes_are_not_multiplied_by_the_free_game_multiplier() -> None:
    assert only_line(spin(game(), "K K K Q A")) == ("K", 3, 0, 1, 5)


def test_free_games_can_not_be_retriggered_during_free_games() -> None:
    out = spin(game(), "S Q S Q K", bottom="Q A K A S", free_game=True)
    assert out.free_games_awarded == 0
    assert out.retrigger_prize == 0
    assert [w.prize for w in out.scatter_wins] == [2 * LINES * 3]  # the scatter, x3


def test_retrigger_prize_is_paid_instead_and_multiplied_like_every_free_game_prize() -> None:
    g = game(free_games={"retrigger_prize": 4})
    out = spin(g, "S Q S Q K", bottom="Q A K A S", free_game=True)
    assert out.free_games_awarded == 0
    assert out.retrigger_prize == 4 * LINES * 3
    assert out.total == 2 * LINES * 3 + 4 * LINES * 3
    # in a base game the trigger awards the games, not the retrigger prize
    base = spin(g, "S Q S Q K", bottom="Q A K A S")
    assert (base.free_games_awarded, base.retrigger_prize) == (10, 0)


def test_retrigger_true_awards_free_games_during_free_games() -> None:
    g = game(free_games={"retrigger": True})
    assert spin(g, "S Q S Q K", bottom="Q A K A S", free_game=True).free_games_awarded == 10


def test_consolation_is_paid_for_a_free_game_with_no_win_and_not_multiplied() -> None:
    out = spin(game(), "K Q K Q K", free_game=True, bet_per_line=2)
    assert out.consolation == 1 * (2 * LINES)  # 1 credit per credit of total bet, not x3
    assert out.total == out.consolation


def test_consolation_is_not_paid_when_anything_is_won() -> None:
    assert spin(game(), "A A A Q K", free_game=True).consolation == 0  # a line win
    scatter_only = spin(game(), "S Q S Q K", bottom="Q A K A S", free_game=True)
    assert scatter_only.scatter_wins and scatter_only.consolation == 0  # scatters included


def test_consolation_is_not_paid_in_a_base_game() -> None:
    assert spin(game(), "K Q K Q K").consolation == 0


def test_free_game_refused_for_a_game_without_free_games() -> None:
    with pytest.raises(SpinError, match="--free-game"):
        spin(game(free_games=None), "K Q K Q K", free_game=True)


# --- held reels -----------------------------------------------------------------------------

def test_held_reels_pattern_identical_to_the_initial_one_is_not_paid_again() -> None:
    out = spin(game(), "A A A Q K", free_game=True, held=frozenset({0, 1, 2}),
               initial=(Pattern(1, "A", 3),))
    assert out.line_wins == ()
    assert out.not_paid_again == (Pattern(1, "A", 3),)
    # nothing was paid, so the free game's consolation is
    assert out.consolation == 1 * LINES


def test_held_reels_improved_pattern_is_paid_in_full() -> None:
    out = spin(game(), "A A A W K", free_game=True, held=frozenset({0, 1, 2}),
               initial=(Pattern(1, "A", 3),))
    assert only_line(out) == ("A", 4, 1, 2 * 3, 40 * 2 * 3)  # 4 A with W, in a free game
    assert out.not_paid_again == ()


def test_held_reels_do_not_stop_other_lines_paying() -> None:
    out = spin(game(), "A A A Q K", top="K K K Q A", held=frozenset({0, 1, 2}),
               initial=(Pattern(1, "A", 3),))
    assert [(w.line, w.symbol, w.prize) for w in out.line_wins] == [(2, "K", 5)]


def test_initial_pattern_must_stand_on_the_held_reels() -> None:
    g = game()
    with pytest.raises(SpinError, match="not all held"):
        spin(g, "A A A Q K", held=frozenset({0, 1}), initial=(Pattern(1, "A", 3),))
    with pytest.raises(SpinError, match="not a pattern of 3 K"):
        spin(g, "A A A Q K", held=frozenset({0, 1, 2}), initial=(Pattern(1, "K", 3),))
    with pytest.raises(SpinError, match="needs --held"):
        spin_from_text(g, f"{TOP} / A A A Q K / {BOTTOM}", initial=["1:A:3"])
    with pytest.raises(SpinError, match="LINE:SYMBOL:COUNT"):
        spin_from_text(g, f"{TOP} / A A A Q K / {BOTTOM}", held="0,1,2", initial=["1:A"])
    with pytest.raises(SpinError, match="reel 7 does not exist"):
        spin(g, "A A A Q K", held=frozenset({7}))


# --- the screen and the bet -----------------------------------------------------------------

@pytest.mark.parametrize(("text", "problem"), [
    ("A A A Q K / K Q A Q K", "2 row"),
    ("A A A Q / K Q A Q K / Q A K A Q", "row 1 has 4"),
    ("A A A Q Z / K Q A Q K / Q A K A Q", "unknown symbol 'Z'"),
])
def test_bad_screen_is_refused_naming_the_problem(text: str, problem: str) -> None:
    with pytest.raises(SpinError, match=problem) as exc:
        parse_screen(game(), text)
    assert str(exc.value).startswith("--screen")


def test_lines_played_must_exist() -> None:
    with pytest.raises(SpinError, match="--lines"):
        spin(game(), "A A A Q K", lines=4)


# --- game files -----------------------------------------------------------------------------

@pytest.mark.parametrize(("changes", "key", "problem"), [
    ({"pays": {"Z": {"3": 5}}}, "pays.Z", "unknown symbol 'Z'"),
    ({"pays": {"A": {"3": -5}}}, "pays.A.3", "1 or more"),
    ({"pays": {"A": {"6": 5}}}, "pays.A.6", "1 to 5"),
    ({"pays": {"A": {"three": 5}}}, "pays.A.three", "whole number"),
    ({"paylines": [{"rows": [1, 1, 1, 1]}]}, "paylines (line 1).rows", "one row per reel"),
    ({"paylines": [{"rows": [1, 1, 3, 1, 1]}]}, "paylines (line 1).rows", "out of range"),
    ({"paylines": [{"rows": [1, 1, 1, 1, 1]}, {"rows": [1, 1, 1, 1, 1]}]},
     "paylines (line 2).rows", "repeats line 1"),
    ({"symbols": {"A": "wild"}}, "symbols.A", "kind 'wild'"),
    ({"substitutes": {"W": None}}, "substitutes.W", "missing table"),
    ({"substitutes": {"V": {"for": ["A", "Z"]}}}, "substitutes.V.for[1]", "unknown symbol 'Z'"),
    ({"substitutes": {"V": {"for": ["V"]}}}, "substitutes.V.for[0]", "itself"),
    ({"substitutes": {"V": {"for": ["A"], "multiplier": 0}}}, "substitutes.V.multiplier",
     "1 or more"),
    ({"substitutes": {"V": {"for": ["A"], "except": ["K"]}}}, "substitutes.V.except",
     'for = "all"'),
    ({"substitutes": {"W": {"for": "all", "except": ["Z"]}}}, "substitutes.W.except[0]",
     "unknown symbol"),
    ({"substitutes": {"V": {"for": ["A"], "multiply_scatters": True}}},
     "substitutes.V.multiply_scatters", "scatters = true"),
    ({"scatter_pays": {"A": {"3": 2}}}, "scatter_pays.A", "normal symbol"),
    ({"free_games": {"trigger": {"symbol": "Z", "count": 3}}}, "free_games.trigger.symbol",
     "unknown symbol 'Z'"),
    ({"free_games": {"trigger": {"symbol": "A", "count": 3}}}, "free_games.trigger.symbol",
     "scatter"),
    ({"free_games": {"multiplier": 0}}, "free_games.multiplier", "1 or more"),
    ({"free_games": {"consolation": -1}}, "free_games.consolation", "0 or more"),
    ({"free_games": {"retrigger": True, "retrigger_prize": 3}}, "free_games.retrigger_prize",
     "INSTEAD"),
    ({"game": {"reels": 0}}, "game.reels", "1 or more"),
    ({"game": {"colour": "red"}}, "game.colour", "unknown key"),
])
def test_malformed_game_file_names_file_key_and_problem(changes: dict[str, Any], key: str,
                                                        problem: str) -> None:
    with pytest.raises(GameError) as exc:
        game(**changes)
    message = str(exc.value)
    assert message.startswith(f"test.toml: {key}: "), message
    assert problem in message, message


def test_substitute_table_for_a_symbol_that_is_not_a_substitute_is_refused() -> None:
    data = copy.deepcopy(ARTWORK)
    data["substitutes"]["A"] = {"for": ["K"]}
    with pytest.raises(GameError, match="substitutes.A: 'A' is a normal symbol"):
        parse_game(data, "test.toml")


def test_game_file_that_is_not_toml_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("[game\nname = 1\n")
    with pytest.raises(GameError, match="broken.toml: not a valid TOML file"):
        load_game_file(bad)


def test_unknown_game_name_lists_the_shipped_games() -> None:
    with pytest.raises(GameError, match="jade-harbour"):
        find_game("no-such-game")


# --- the shipped games ----------------------------------------------------------------------

def test_shipped_games_load_and_between_them_use_every_rule() -> None:
    games = [find_game(n) for n in shipped_games()]
    assert len(games) >= 2
    subs = [s for g in games for s in g.substitutes.values()]
    assert any(s.for_all and s.stands_for for s in subs)  # "for all symbols except ..."
    assert any(not s.for_all for s in subs)  # "for A, B, C"
    assert any(s.per_substitute and s.multiplier > 1 for s in subs)
    assert any(not s.per_substitute and s.multiplier > 1 for s in subs)
    assert any(s.scatters and s.multiply_scatters for s in subs)
    assert any(len(g.substitutes) >= 2 for g in games)
    fgs = [g.free_games for g in games if g.free_games is not None]
    assert any(f.multiplier > 1 for f in fgs)
    assert any(f.consolation > 0 for f in fgs)
    assert any(f.retrigger_prize > 0 for f in fgs)


def test_jade_harbour_substitute_counts_with_coins_when_none_is_showing() -> None:
    g = find_game("jade-harbour")
    # three W, no coin, no line pattern: W counts with S -> 3 S = 2 per credit of total bet
    # (9 lines), x2 because W multiplies scatters; and the trigger: 10 free games.
    out = evaluate(g, spin_from_text(g, "W K Q A J / K J A Q W / Q A K J W"))
    assert out.line_wins == ()
    assert [(w.count, w.prize) for w in out.scatter_wins] == [(3, 2 * 9 * 2)]
    assert out.free_games_awarded == 10


def test_jade_harbour_own_pattern_of_the_substitute_is_not_doubled() -> None:
    g = find_game("jade-harbour")
    out = evaluate(g, spin_from_text(g, "W W W Q J / K D D A Q / Q J A K D"))
    top = [w for w in out.line_wins if w.line == 2]
    assert [(w.symbol, w.count, w.multiplier, w.prize) for w in top] == [("W", 3, 1, 100)]


def test_jade_harbour_free_game_that_wins_nothing_pays_the_consolation() -> None:
    g = find_game("jade-harbour")
    out = evaluate(g, spin_from_text(g, "D K Q A J / K J A Q D / Q A K J D", free_game=True))
    assert (out.line_wins, out.scatter_wins) == ((), ())
    assert out.consolation == 2 * 9  # 2 per credit of the total bet of 9 lines, not x3
    assert out.total == 18


def test_four_winds_listed_substitute_doubles_per_copy_and_wilds_multiply() -> None:
    g = find_game("four-winds")
    # line 1 (middle): R X X R N -> 4 R with two X: 80 x 2 x 2
    # line 2 (top):    G Y X E N -> 3 G with Y (x3) and X (x2): 15 x 6
    out = evaluate(g, spin_from_text(g, "G Y X E N / R X X R N / E N E B E"))
    assert [(w.line, w.symbol, w.count, w.prize) for w in out.line_wins] == \
        [(1, "R", 4, 80 * 4), (2, "G", 3, 15 * 6)]


# --- properties -----------------------------------------------------------------------------

PLAIN = ("A", "K", "Q")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PLAIN), min_size=5, max_size=5), min_size=3,
                max_size=3))
def test_screen_without_substitutes_or_scatters_pays_a_plain_left_to_right_count(
        rows: list[list[str]]) -> None:
    g = game()
    out = evaluate(g, Spin(tuple(tuple(r) for r in rows)))
    expected = []
    for line, row in enumerate((1, 0, 2), start=1):  # line 1 middle, 2 top, 3 bottom
        cells = rows[row]
        n = 1
        while n < 5 and cells[n] == cells[0]:
            n += 1
        prizes = {int(c): p for c, p in ARTWORK["pays"][cells[0]].items()}
        if n >= 3:
            expected.append((line, cells[0], n, prizes[n]))
    assert [(w.line, w.symbol, w.count, w.prize) for w in out.line_wins] == expected
    assert out.scatter_wins == ()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(("A", "K", "Q", "W", "V", "S")), min_size=15, max_size=15),
       st.randoms(use_true_random=False))
def test_moving_symbols_around_never_changes_scatter_wins_or_the_trigger(
        cells: list[str], rnd: Any) -> None:
    g = game()

    def outcome(flat: list[str]) -> Outcome:
        return evaluate(g, Spin(tuple(tuple(flat[r * 5:(r + 1) * 5]) for r in range(3))))

    shuffled = list(cells)
    rnd.shuffle(shuffled)
    a, b = outcome(cells), outcome(shuffled)
    assert a.scatter_wins == b.scatter_wins
    assert a.free_games_awarded == b.free_games_awarded


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(("A", "K", "Q", "W", "V", "S")), min_size=5, max_size=5),
       st.integers(min_value=1, max_value=5))
def test_a_line_win_pays_the_artwork_prize_times_multiplier_times_line_bet(
        middle: list[str], bet: int) -> None:
    g = game()
    out = spin(g, " ".join(middle), bet_per_line=bet)
    for w in out.line_wins:
        assert w.pays == int(ARTWORK["pays"][w.symbol][str(w.count)])
        assert w.prize == w.pays * w.multiplier * bet
        assert w.multiplier >= 1
