"""``podium rules slot GAME.toml --screen "ROW / ROW / ROW" ...`` and ``podium rules slot GAME.toml
--batch`` (CLI.md, RULES.md 7).

GAME is a game file (SLOTS.md) or the name of a game shipped in ``resources/games``
(``jade-harbour``, ``four-winds``).  The rules are :mod:`core.machines.rules.slots`; this module
reads the options and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from core.cli.options import whole_number
from core.machines.rules import slot_return
from core.machines.rules.slot_games import Game, find_game
from core.machines.rules.slot_return import CycleCounts, GameReturn, game_return
from core.machines.rules.slots import (
    Outcome,
    SpinError,
    Win,
    evaluate,
    outcome_json,
    spin_from_text,
)


def _subs_text(w: Win) -> str:
    if not w.substitutes:
        return "-"
    return " ".join(f"{n}x{s}" for s, n in w.substituted_by.items())


def outcome_text(game: Game, screen: tuple[tuple[str, ...], ...], out: Outcome) -> str:
    width = max(len(s) for s in game.symbols)
    lines = [f"{game.name} ({game.source})", ""]
    lines += ["  " + " ".join(f"{c:<{width}}" for c in row) for row in screen]
    lines.append("")
    lines.append(f"{'free game' if out.free_game else 'base game'}: {out.lines} line(s) x "
                 f"{out.bet_per_line} credit(s) = total bet {out.total_bet}")
    rows = [("line", "symbol", "count", "substitutes", "pays", "x", "prize")]
    for w in (*out.line_wins, *out.scatter_wins):
        rows.append((str(w.line) if w.line is not None else "scatter", w.symbol, str(w.count),
                     _subs_text(w), str(w.pays), str(w.multiplier), str(w.prize)))
    if len(rows) > 1:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            lines.append("  " + "  ".join(
                f"{c:>{widths[i]}}" if i in (2, 4, 5, 6) else f"{c:<{widths[i]}}"
                for i, c in enumerate(r)).rstrip())
    else:
        lines.append("  no line or scatter win")
    for p in out.not_paid_again:
        lines.append(f"  line {p.line}: {p.count} {p.symbol} stood on the held reels; "
                     "not paid again")
    if out.free_games_awarded:
        lines.append(f"free games awarded: {out.free_games_awarded}")
    if out.retrigger_prize:
        lines.append(f"retrigger prize: {out.retrigger_prize}")
    if out.consolation:
        lines.append(f"consolation: {out.consolation}")
    lines.append(f"total: {out.total} credit(s)")
    return "\n".join(lines)


MAX_BET_PER_LINE = 1_000_000  # credits
MAX_LINES = 10_000
DEFAULT_MAX_STEPS = slot_return.DEFAULT_MAX_STEPS


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("game", metavar="GAME.toml",
                        help="a game file (SLOTS.md) or the name of a shipped game "
                             "(resources/games: jade-harbour, four-winds)")
    parser.add_argument("--screen", metavar='"ROW / ROW / ROW"',
                        help="the symbols shown, row by row from the top, rows separated by / "
                             "(required unless --return)")
    parser.add_argument("--return", dest="game_return", action="store_true",
                        help="instead of a screen: the exact return of the game from its reel "
                             "strips ([reels]), base game plus free games")
    parser.add_argument("--free-game", action="store_true",
                        help="the screen is a free game (free-game multiplier, consolation)")
    parser.add_argument("--held", metavar="REELS",
                        help="held reels, e.g. 0,1,2 (0 = leftmost)")
    parser.add_argument("--initial", action="append", default=[], metavar="LINE:SYMBOL:COUNT",
                        help="a winning pattern that stood on the held reels when the free "
                             "spins began (repeat for each)")
    parser.add_argument("--bet-per-line", type=whole_number(1, MAX_BET_PER_LINE), default=1,
                        metavar="N", help="credits bet on each line (default 1)")
    parser.add_argument("--lines", type=whole_number(1, MAX_LINES), default=None, metavar="N",
                        help="lines played: lines 1 to N (default every line)")
    parser.add_argument("--max-steps", type=whole_number(1, 10**12),
                        default=DEFAULT_MAX_STEPS, metavar="N",
                        help="--return refuses a game whose computation would take more than "
                             f"N steps (default {DEFAULT_MAX_STEPS:,}: about 40 s and at most "
                             "about 1 GB; a step is about 1 us and at most 25 bytes; "
                             "docs/slots.md)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--batch", action="store_true",
                        help='JSON lines on stdin, {"screen": "R X R / ...", "free_game": false, '
                             '"held": "0,1", "initial": [...], "bet_per_line": 1, "lines": N} '
                             "(only screen required; the options above give the others' "
                             "defaults); one JSON line out per line, as --json prints it "
                             "(CLI.md, Batch mode)")


def decimal_text(value: Fraction, places: int) -> str:
    """``value`` rounded half-even to ``places`` decimals (display only)."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def percent(value: Fraction, places: int = 4) -> str:
    """``value`` as a percentage rounded half-even to ``places`` decimals (display only)."""
    return decimal_text(value * 100, places)


def _counts_json(c: CycleCounts) -> dict[str, int]:
    return {"combinations": c.combinations, "line_prizes": c.line_prizes,
            "scatter_prizes": c.scatter_prizes, "triggers": c.triggers, "no_win": c.no_win}


def return_json(r: GameReturn) -> dict[str, Any]:
    def frac(f: Fraction) -> str:
        return f"{f.numerator}/{f.denominator}"
    return {
        "game": r.game, "lines": r.lines, "combinations": r.combinations,
        "base_return": frac(r.base_return), "trigger_probability": frac(r.trigger_probability),
        "free_games": r.games, "free_game_value": frac(r.free_game_value),
        "free_return": frac(r.free_return), "total_return": frac(r.total_return),
        "total_return_percent": percent(r.total_return),
        "base": _counts_json(r.base), "free": None if r.free is None else _counts_json(r.free),
    }


def return_text(game: Game, r: GameReturn) -> str:
    out = [f"{game.name} ({game.source})",
           f"full cycle: {r.combinations:,} stop combinations, {r.lines} line(s) played",
           f"base game return:  {percent(r.base_return)}%"]
    if r.free is not None:
        out += [f"free-game trigger: 1 in {decimal_text(1 / r.trigger_probability, 2)} base games"
                if r.trigger_probability else "free-game trigger: never",
                f"one free game:     {percent(r.free_game_value)}% of the total bet",
                f"free games return: {percent(r.free_return)}%"]
    out.append(f"total return:      {percent(r.total_return)}% (exact: "
               f"{r.total_return.numerator}/{r.total_return.denominator})")
    return "\n".join(out)


def _run_return(args: argparse.Namespace, game: Game) -> int:
    for option, given in (("--screen", args.screen is not None), ("--free-game", args.free_game),
                          ("--held", args.held is not None), ("--initial", bool(args.initial))):
        if given:
            raise SpinError(f"{option}: not with --return (the return covers every screen)")
    r = game_return(game, args.lines, max_steps=args.max_steps)
    print(json.dumps(return_json(r)) if args.json else return_text(game, r))
    sys.stdout.flush()
    return 0


BATCH_KEYS = ("free_game", "held", "initial", "bet_per_line", "lines")  # besides "screen"


class BatchSlot:
    """One ``--batch`` line -> the line ``--json`` prints for that screen: the line's keys are
    the options of one call (``bet_per_line`` is ``--bet-per-line`` ...), refused in the same
    words; a key the line leaves out takes the option given with ``--batch``, or its default."""

    def __init__(self, game: Game, args: argparse.Namespace) -> None:
        self.game = game
        self.defaults: dict[str, Any] = {"free_game": args.free_game, "held": args.held,
                                         "initial": list(args.initial),
                                         "bet_per_line": args.bet_per_line, "lines": args.lines}

    def decide(self, text: str) -> str:
        from core.cli.batch import parse_line
        from core.kernel.jsondoc import check_keys, json_object

        doc = json_object(parse_line(text), "batch line", SpinError)
        check_keys(doc, "batch line", ("screen",), BATCH_KEYS, SpinError)
        screen = doc["screen"]
        if not isinstance(screen, str):
            raise SpinError(f"screen: must be a string like \"R X R / ...\", not "
                            f"{_json_type(screen)}")
        o = self.defaults | {k: doc[k] for k in BATCH_KEYS if k in doc}
        if not isinstance(o["free_game"], bool):
            raise SpinError(f"free_game: must be true or false, not {_json_type(o['free_game'])}")
        spin = spin_from_text(self.game, screen, free_game=o["free_game"],
                              bet_per_line=_count(o["bet_per_line"], "bet_per_line",
                                                  "--bet-per-line", MAX_BET_PER_LINE),
                              lines=None if o["lines"] is None else _count(
                                  o["lines"], "lines", "--lines", MAX_LINES),
                              held=_held(o["held"]), initial=_initial(o["initial"]))
        return json.dumps(outcome_json(evaluate(self.game, spin)))


def _json_type(value: object) -> str:
    from core.kernel.jsondoc import json_type

    return json_type(value)


def _count(value: object, key: str, option: str, high: int) -> int:
    """A whole JSON number checked as ``option`` checks its text, in argparse's words."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpinError(f"{key}: must be a whole number, not {_json_type(value)}")
    try:
        return whole_number(1, high)(str(value))
    except argparse.ArgumentTypeError as exc:
        raise SpinError(f"argument {option}: {exc}") from None


def _held(value: object) -> str | None:
    """``"0,2"`` as ``--held`` takes it, or ``[0, 2]``; null: no reel held."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                       for v in value):
        return ",".join(map(str, value))
    raise SpinError(f"held: must be reels like \"0,1,2\" or [0, 1, 2], not {_json_type(value)}")


def _initial(value: object) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise SpinError("initial: must be an array of patterns like \"1:A:3\" (LINE:SYMBOL:COUNT), "
                    f"not {_json_type(value)}")


def run(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    if args.batch:
        for option, given in (("--screen", args.screen is not None),
                              ("--return", args.game_return)):
            if given:
                raise SpinError(f"{option}: not with --batch (the screens come on stdin, one "
                                "JSON line each)")
        from core.cli.batch import run_batch

        return run_batch(str(args._command), BatchSlot(game, args).decide)
    if args.game_return:
        return _run_return(args, game)
    if args.screen is None:
        raise SpinError("--screen: required (the symbols shown), or --return")
    spin = spin_from_text(game, args.screen, free_game=args.free_game,
                          bet_per_line=args.bet_per_line, lines=args.lines, held=args.held,
                          initial=args.initial)
    out = evaluate(game, spin)
    if args.json:
        print(json.dumps(outcome_json(out)))
    else:
        print(outcome_text(game, spin.screen, out))
    sys.stdout.flush()
    return 0


__all__ = ["BatchSlot", "SpinError", "add_arguments", "outcome_json", "outcome_text", "percent",
           "return_json", "return_text", "run"]
