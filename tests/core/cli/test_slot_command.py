"""`podium rules slot GAME --screen ...` (CLI.md; RULES.md section 7; SLOTS.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.machines.rules.slot_games import find_game

# Four Winds (resources/games/four-winds.toml), 5 lines, middle row = line 1, top = line 2.
# X is for R, G, B, x2 per X; Y is for all but F, x3; F is the scatter; free games x2,
# retrigger prize 5 per credit of total bet.
FOUR_WINDS_SCREEN = "R X R N E / G Y X B N / F F E F N"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(["rules", "slot", *args])
    except SystemExit as exc:  # argparse refusing an option: exit 2 as well
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code, out, err = run(capsys, *args, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def refusal(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args, "--json")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_json_lists_every_win_with_line_symbol_count_substitutes_multiplier_prize(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "four-winds", "--screen", FOUR_WINDS_SCREEN)
    # line 1 (middle) G Y X B N: 3 G with Y (x3) and X (x2): 15 x 6
    # line 2 (top)    R X R N E: 3 R with one X: 20 x 2
    assert doc["line_wins"] == [
        {"line": 1, "symbol": "G", "count": 3, "substitutes": 2,
         "substituted_by": {"Y": 1, "X": 1}, "pays": 15, "multiplier": 6, "prize": 90},
        {"line": 2, "symbol": "R", "count": 3, "substitutes": 1,
         "substituted_by": {"X": 1}, "pays": 20, "multiplier": 2, "prize": 40},
    ]
    # three flowers: 3 per credit of the total bet of 5 lines, never multiplied
    assert doc["scatter_wins"] == [
        {"line": None, "symbol": "F", "count": 3, "substitutes": 0, "substituted_by": {},
         "pays": 3, "multiplier": 1, "prize": 15}]
    assert doc["free_games_awarded"] == 8
    assert (doc["consolation"], doc["retrigger_prize"]) == (0, 0)
    assert doc["total_bet"] == 5
    assert doc["total"] == 90 + 40 + 15


def test_free_game_with_held_reels_and_a_retrigger_prize(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "four-winds", "--screen", FOUR_WINDS_SCREEN, "--free-game",
                   "--held", "0,1,2", "--initial", "1:G:3", "--bet-per-line", "2")
    # line 1's 3 G stood on the held reels: not paid again.  Line 2: 20 x 2 (X) x 2 (free)
    # x 2 credits.  Flowers: 3 x 2 (free) x 10 (total bet).  Retrigger: 5 x 2 x 10.
    assert [(w["line"], w["prize"]) for w in doc["line_wins"]] == [(2, 20 * 2 * 2 * 2)]
    assert doc["not_paid_again"] == [{"line": 1, "symbol": "G", "count": 3}]
    assert [w["prize"] for w in doc["scatter_wins"]] == [3 * 2 * 10]
    assert (doc["free_games_awarded"], doc["retrigger_prize"]) == (0, 5 * 2 * 10)
    assert doc["total"] == 160 + 60 + 100


def test_lines_option_plays_the_first_lines_only(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "four-winds", "--screen", FOUR_WINDS_SCREEN, "--lines", "1")
    assert [w["line"] for w in doc["line_wins"]] == [1]
    assert doc["total_bet"] == 1
    assert doc["scatter_wins"][0]["prize"] == 3 * 1


def test_game_file_path_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = find_game("jade-harbour")
    path = tmp_path / "my-game.toml"
    path.write_text((Path(__file__).parents[3] / "resources" / "games" / "jade-harbour.toml")
                    .read_text())
    doc = run_json(capsys, str(path), "--screen", "A A A K Q / K Q J Q K / Q J K J Q")
    assert doc["game"] == src.name
    assert [(w["line"], w["symbol"], w["prize"]) for w in doc["line_wins"]] == [(2, "A", 10)]


def test_readable_table_without_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "four-winds", "--screen", FOUR_WINDS_SCREEN)
    assert (code, err) == (0, "")
    assert "total: 145 credit(s)" in out
    assert "free games awarded: 8" in out


@pytest.mark.parametrize(("args", "problem"), [
    (("no-such-game", "--screen", "A"), "no such file, and no shipped game"),
    (("four-winds", "--screen", "R X R N E / G Y X B N"), "--screen: 2 row(s)"),
    (("four-winds", "--screen", "R X R N Z / G Y X B N / F F E F N"), "unknown symbol 'Z'"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--lines", "9"), "--lines: 9"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--lines", "0"), "--lines"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--bet-per-line", "x"), "--bet-per-line"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--initial", "1:G:3"), "needs --held"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--held", "0,1", "--initial", "1:G:3"),
     "not all held"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--held", "0,1,2", "--initial", "1:N:3"),
     "not a pattern of 3 N"),
    (("four-winds", "--screen", FOUR_WINDS_SCREEN, "--held", "a"), "--held"),
    (("four-winds", "--screen"), "--screen"),
])
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                         args: tuple[str, ...], problem: str) -> None:
    assert problem in refusal(capsys, *args)


def test_malformed_game_file_exits_2_naming_file_and_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[game]\nname = "Bad"\nreels = 3\nrows = 1\n[symbols]\nA = "normal"\n'
                    '[[paylines]]\nrows = [0, 0, 0]\n[pays]\nB = { 3 = 5 }\n')
    line = refusal(capsys, str(path), "--screen", "A A A")
    assert f"{path}: pays.B: unknown symbol 'B'" in line
