"""The exact return from reel strips (core/machines/rules/slot_return.py) against brute force over
EVERY stop combination with the real evaluator (core/machines/rules/slots.py), on small strips."""

from __future__ import annotations

import json
import random
import tomllib
from dataclasses import replace
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from core.machines.rules.slot_games import FreeGames, Game, GameError, find_game, parse_game
from core.machines.rules.slot_return import ReturnError, cycle_counts, game_return
from core.machines.rules.slots import Spin, evaluate

ROOT = Path(__file__).resolve().parents[4]


def brute(game: Game, strips: tuple[tuple[str, ...], ...], free_game: bool,
          lines: int | None = None) -> tuple[int, int, int, int, int]:
    """(combinations, sum of totals, combinations awarding free games, triggered-with-a-
    retrigger-prize sum, consolation sum) from evaluate() on every stop combination."""
    n = total = awarded = consolation = 0
    for stops in product(*(range(len(s)) for s in strips)):
        screen = tuple(tuple(strips[r][(stops[r] + row) % len(strips[r])]
                             for r in range(game.reels)) for row in range(game.rows))
        out = evaluate(game, Spin(screen, free_game=free_game, lines=lines))
        n += 1
        total += out.total
        awarded += bool(out.free_games_awarded)
        consolation += out.consolation
    return n, total, awarded, 0, consolation


def small_strips(game: Game, stops: int, seed: int, syms: list[str] | None = None
                 ) -> tuple[tuple[str, ...], ...]:
    """Random short strips rich in substitutes and scatters (many wins of every kind)."""
    rng = random.Random(seed)
    syms = syms or list(game.symbols)
    return tuple(tuple(rng.choice(syms) for _ in range(stops)) for _ in range(game.reels))


def expected_from_brute(game: Game, base: tuple[tuple[str, ...], ...],
                        free: tuple[tuple[str, ...], ...]) -> Fraction:
    fg = game.free_games
    bet = len(game.paylines)
    n, total, awarded, _, _ = brute(game, base, False)
    ret = Fraction(total, n * bet)
    if fg is None:
        return ret
    nf, ftotal, fawarded, _, _ = brute(game, free, True)
    value = Fraction(ftotal, nf * bet)
    if fg.retrigger:
        value /= 1 - Fraction(fawarded * fg.games, nf)
    return ret + Fraction(awarded, n) * fg.games * value


@pytest.mark.parametrize("name", ["jade-harbour", "four-winds"])
@pytest.mark.parametrize("seed", [1, 2])
def test_return_matches_brute_force_over_every_combination(name: str, seed: int) -> None:
    game = find_game(name)
    strips = small_strips(game, 5, seed)
    game = replace(game, strips=strips, free_strips=None)
    got = game_return(game)
    assert got.total_return == expected_from_brute(game, strips, strips)
    n, total, awarded, _, _ = brute(game, strips, False)
    assert got.base_return == Fraction(total, n * len(game.paylines))
    assert got.trigger_probability == Fraction(awarded, n)


@pytest.mark.parametrize("name", ["jade-harbour", "four-winds"])
def test_free_game_expectation_matches_brute_force_with_free_strips(name: str) -> None:
    game = find_game(name)
    base, free = small_strips(game, 4, 7), small_strips(game, 5, 8)
    game = replace(game, strips=base, free_strips=free)
    got = game_return(game)
    assert got.free is not None
    nf, ftotal, _, _, fcons = brute(game, free, True)
    assert got.free_game_value == Fraction(ftotal, nf * len(game.paylines))
    assert got.free.no_win * got.consolation * len(game.paylines) == fcons
    assert got.total_return == expected_from_brute(game, base, free)


@pytest.mark.parametrize("name", ["jade-harbour", "four-winds"])
def test_lines_played_counts_only_those_lines(name: str) -> None:
    game = find_game(name)
    strips = small_strips(game, 5, 5)
    game = replace(game, strips=strips, free_strips=None)
    got = game_return(game, lines=3)
    n, total, _, _, _ = brute(game, strips, False, lines=3)
    assert got.base_return == Fraction(total, n * 3)
    nf, ftotal, _, _, _ = brute(game, strips, True, lines=3)
    assert got.free_game_value == Fraction(ftotal, nf * 3)


def test_consolation_counts_only_free_games_that_win_nothing() -> None:
    # jade-harbour: consolation 2; a trigger during free games wins nothing (no retrigger,
    # no retrigger prize), so such a free game is paid the consolation too
    game = find_game("jade-harbour")
    strips = small_strips(game, 6, 11)
    game = replace(game, strips=strips)
    counts = cycle_counts(game, strips, free_game=True)
    _, _, _, _, cons = brute(game, strips, True)
    assert counts.no_win * 2 * len(game.paylines) == cons
    assert counts.no_win > 0


def test_retrigger_with_consolation_is_solved_exactly() -> None:
    game = find_game("four-winds")
    fg = game.free_games
    assert fg is not None
    game = replace(game, free_games=replace(fg, retrigger=True, retrigger_prize=0,
                                            consolation=3, games=2))
    strips = small_strips(game, 5, 3, list("RGBNEXYFRGBNE"))
    game = replace(game, strips=strips)
    got = game_return(game)
    assert got.free is not None and got.free.no_win > 0 and got.free.triggers > 0
    assert got.total_return == expected_from_brute(game, strips, strips)


def test_retrigger_prize_is_a_win_no_consolation() -> None:
    game = find_game("four-winds")
    fg = game.free_games
    assert fg is not None
    game = replace(game, free_games=FreeGames(fg.trigger_symbol, fg.trigger_count, fg.games,
                                              fg.multiplier, False, 5, consolation=1))
    strips = small_strips(game, 5, 4)
    game = replace(game, strips=strips)
    assert game_return(game).total_return == expected_from_brute(game, strips, strips)


def test_endless_retrigger_is_refused() -> None:
    game = find_game("jade-harbour")
    fg = game.free_games
    assert fg is not None
    strips = (("S", "S", "S"),) * 5
    game = replace(game, strips=strips, free_games=replace(fg, retrigger=True))
    with pytest.raises(ReturnError, match="never ends"):
        _ = game_return(game).total_return


def test_game_without_strips_is_refused() -> None:
    game = replace(find_game("four-winds"), strips=None)
    with pytest.raises(ReturnError, match="reels"):
        game_return(game)


def _game_data(**reels: object) -> dict[str, object]:
    data = tomllib.loads((ROOT / "resources/games/four-winds.toml").read_text())
    data["reels"] = reels
    return data


@pytest.mark.parametrize(("reels", "message"), [
    ({"strips": [["R", "G", "B"]] * 4}, "reels.strips: needs one strip per reel"),
    ({"strips": [["R", "G", "B"]] * 4 + [["R", "Z", "B"]]},
     r"reels.strips\[4\]: stop 1: unknown symbol 'Z'"),
    ({"strips": [["R", "G"]] * 5}, r"reels.strips\[0\]: 2 stop\(s\)"),
    ({"strips": ["R G B"] * 5, "extra": 1}, "reels.extra: unknown key"),
    ({"free_strips": ["R G B"] * 5}, "reels.strips: missing key"),
    ({"strips": ["R G B"] * 5, "free_strips": 3}, "reels.free_strips: needs one strip"),
])
def test_bad_reel_strips_name_file_key_and_problem(reels: dict[str, object],
                                                   message: str) -> None:
    with pytest.raises(GameError, match=f"^x.toml: {message}"):
        parse_game(_game_data(**reels), "x.toml")


def test_strip_may_be_a_string_of_symbols() -> None:
    game = parse_game(_game_data(strips=["R G B X F"] * 5), "x.toml")
    assert game.strips == (("R", "G", "B", "X", "F"),) * 5
    assert game.free_strips is None


@pytest.mark.parametrize("name", ["jade-harbour", "four-winds"])
def test_shipped_games_have_64_stop_strips(name: str) -> None:
    game = find_game(name)
    assert game.strips is not None and all(len(s) == 64 for s in game.strips)


# ------------------------------------------------------------------------------------------
# podium rules slot GAME --return

def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from core.cli import main
    try:
        code = main(["rules", "slot", *args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_return_option_prints_the_exact_return(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    data = _game_data(strips=["R X F", "G Y N", "B E F", "R G B", "N E F"])
    path = tmp_path / "small.toml"
    strips = "\n".join(f'"{s}",' for s in ("R X F", "G Y N", "B E F", "R G B", "N E F"))
    text = (ROOT / "resources/games/four-winds.toml").read_text()
    text = text[:text.index("[reels]")] if "[reels]" in text else text
    path.write_text(text + f"\n[reels]\nstrips = [\n{strips}\n]\n")
    game = parse_game(data, "x.toml")
    expected = game_return(game)
    code, out, err = _cli(capsys, str(path), "--return", "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert Fraction(doc["total_return"]) == expected.total_return
    assert Fraction(doc["total_return"]) == expected_from_brute(game, game.strips or (),
                                                                game.strips or ())
    assert doc["combinations"] == 3 ** 5
    assert doc["base"]["combinations"] == 3 ** 5


def test_return_option_refuses_a_screen_and_a_game_without_strips(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _cli(capsys, "four-winds", "--return", "--screen", "R R R R R")
    assert (code, out) == (2, "") and "--screen: not with --return" in err
    path = tmp_path / "nostrips.toml"
    text = (ROOT / "resources/games/four-winds.toml").read_text()
    path.write_text(text[:text.index("[reels]")])
    code, out, err = _cli(capsys, str(path), "--return")
    assert (code, out) == (2, "") and "reels: the game file gives no reel strips" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = _cli(capsys, "four-winds")
    assert (code, out) == (2, "") and "--screen: required" in err
