"""What one displayed screen of a gaming machine pays (RULES.md section 7, SLOTS.md).

:func:`evaluate` takes a :class:`~core.machines.rules.slot_games.Game` and a :class:`Spin` (the
screen, free game or not, the bet, held reels) and returns every prize, each with what a
person needs to check it against the artwork: line, symbol, count, substitutes, the
multiplier applied and the prize in credits (ints, never float).

Decisions the rule book leaves open, documented in docs/slots.md:

- A line pattern of X is the longest run from the left of X and of substitutes whose
  ``for`` set holds X; it pays the prize listed for the largest count not above the run's
  length, and the pattern paid is that many symbols from the left (``count``).  If those
  are only substitutes, it is no pattern of X: they pay as the substitute's own pattern
  (literal copies of that one substitute), never multiplied.
- Several different substitutes in one pattern: each applies its own factor and the
  factors multiply (W x2 and V x3 in one pattern: x6; with ``per_substitute`` each factor
  is its multiplier to the power of that substitute's copies in the pattern).
- Highest prize per line; on a tie the longer pattern, then fewer substitutes, then the
  symbol listed first in ``[pays]``.
- A scatter win's ``count`` is everything counted on the screen (scatter symbols plus
  every substitute with ``scatters = true``); the prize is the one listed for the largest
  count not above it.
- During a free game a trigger awards more games only with ``retrigger = true``; else
  the ``retrigger_prize`` if stated.  Free games awarded count as a win (no consolation).
- Free games (NZ Gazette 1.40.38-39): the consolation is per credit of total bet or, with
  ``consolation_per = "line"``, per credit staked per line; with
  ``consolation_with_scatters`` only a line win stops it (scatter prizes, a retrigger prize
  or free games awarded do not).  Prizes offered only during free games are paid in free
  games only, multiplied like every free-game prize unless ``free_only_already_multiplied``.
- Held reels: a line pattern identical (line, symbol, count) to an ``--initial`` one is
  not paid again and is listed in ``not_paid_again``; scatter wins are always paid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import prod
from typing import Any

from core.machines.rules.slot_games import FreeGames, Game, GameError

Screen = tuple[tuple[str, ...], ...]  # screen[row][reel], row 0 = top


class SpinError(ValueError):
    """A screen or spin option the evaluator refuses; the message names the option."""


@dataclass(frozen=True)
class Pattern:
    """A winning pattern on a line that stood on the held reels when free spins began."""

    line: int
    symbol: str
    count: int


@dataclass(frozen=True)
class Spin:
    screen: Screen
    free_game: bool = False
    bet_per_line: int = 1  # credits
    lines: int | None = None  # lines played (1..N); None = every line
    held: frozenset[int] = frozenset()  # reel indexes, 0 = leftmost
    initial: tuple[Pattern, ...] = ()


@dataclass(frozen=True)
class Win:
    """One prize.  ``line`` is None for a scatter win.  ``pays`` is the artwork's prize per
    credit (per credit of the line bet for a line win, of the total bet for a scatter);
    ``prize`` = ``pays`` x ``multiplier`` x that bet."""

    line: int | None
    symbol: str
    count: int
    substitutes: int
    substituted_by: Mapping[str, int]
    pays: int
    multiplier: int
    prize: int


@dataclass(frozen=True)
class Outcome:
    game: str
    free_game: bool
    bet_per_line: int
    lines: int
    total_bet: int
    line_wins: tuple[Win, ...]
    scatter_wins: tuple[Win, ...]
    free_games_awarded: int
    retrigger_prize: int
    consolation: int
    not_paid_again: tuple[Pattern, ...] = field(default=())

    @property
    def total(self) -> int:
        return (sum(w.prize for w in self.line_wins) + sum(w.prize for w in self.scatter_wins)
                + self.retrigger_prize + self.consolation)


# ------------------------------------------------------------------------------------------
# Input

def parse_screen(game: Game, text: str, option: str = "--screen") -> Screen:
    """``"A K Q W S / K K A A Q / Q S K W A"``: rows top first, separated by ``/``."""
    rows = [r.split() for r in text.split("/")]
    if len(rows) != game.rows:
        raise SpinError(f"{option}: {len(rows)} row(s) given; {game.name} shows {game.rows} "
                        "rows (separate rows with '/')")
    for i, row in enumerate(rows, start=1):
        if len(row) != game.reels:
            raise SpinError(f"{option}: row {i} has {len(row)} symbol(s); {game.name} has "
                            f"{game.reels} reels")
        for sym in row:
            if sym not in game.symbols:
                raise SpinError(f"{option}: row {i}: unknown symbol {sym!r} (symbols of "
                                f"{game.name}: {', '.join(game.symbols)})")
    return tuple(tuple(r) for r in rows)


def parse_pattern(text: str, option: str = "--initial") -> Pattern:
    """``LINE:SYMBOL:COUNT`` (``1:A:3``)."""
    parts = text.split(":")
    if len(parts) != 3:
        raise SpinError(f"{option} {text!r}: must be LINE:SYMBOL:COUNT, e.g. 1:A:3")
    line, symbol, count = (p.strip() for p in parts)
    if not (line.isascii() and line.isdigit() and count.isascii() and count.isdigit()):
        raise SpinError(f"{option} {text!r}: LINE and COUNT must be whole numbers")
    return Pattern(int(line), symbol, int(count))


def parse_reels(text: str, option: str = "--held") -> frozenset[int]:
    """``"0,1,2"``: reel indexes, 0 = leftmost."""
    reels: list[int] = []
    for part in text.split(","):
        p = part.strip()
        if not (p.isascii() and p.isdigit()):
            raise SpinError(f"{option} {text!r}: {part!r} is not a reel number (0 = leftmost)")
        if int(p) in reels:
            raise SpinError(f"{option} {text!r}: reel {p} is listed twice")
        reels.append(int(p))
    return frozenset(reels)


def _check_spin(game: Game, spin: Spin) -> int:
    """Check the spin against the game; the number of lines played."""
    if len(spin.screen) != game.rows or any(len(r) != game.reels for r in spin.screen):
        raise SpinError(f"screen: must be {game.rows} rows of {game.reels} symbols")
    for row in spin.screen:
        for sym in row:
            if sym not in game.symbols:
                raise SpinError(f"screen: unknown symbol {sym!r}")
    if spin.free_game and game.free_games is None:
        raise SpinError(f"--free-game: {game.name} has no free games")
    lines = len(game.paylines) if spin.lines is None else spin.lines
    if not 1 <= lines <= len(game.paylines):
        raise SpinError(f"--lines: {lines} must be 1 to {len(game.paylines)} "
                        f"({game.name} has {len(game.paylines)} lines)")
    if spin.bet_per_line < 1:
        raise SpinError(f"--bet-per-line: {spin.bet_per_line} must be 1 credit or more")
    for reel in sorted(spin.held):
        if not 0 <= reel < game.reels:
            raise SpinError(f"--held: reel {reel} does not exist (0 to {game.reels - 1})")
    if spin.initial and not spin.held:
        raise SpinError("--initial: needs --held (the reels the initial patterns stood on)")
    seen: set[int] = set()
    for p in spin.initial:
        where = f"--initial {p.line}:{p.symbol}:{p.count}"
        if not 1 <= p.line <= lines:
            raise SpinError(f"{where}: line {p.line} is not played (lines 1 to {lines})")
        if p.line in seen:
            raise SpinError(f"{where}: line {p.line} is given twice (one pattern per line)")
        seen.add(p.line)
        if p.symbol not in game.pays:
            raise SpinError(f"{where}: symbol {p.symbol!r} has no line prize "
                            f"(line prizes: {', '.join(game.pays) or 'none'})")
        if p.count not in game.pays[p.symbol]:
            raise SpinError(f"{where}: {game.name} lists no prize for {p.count} {p.symbol} "
                            f"(counts: {', '.join(map(str, game.pays[p.symbol]))})")
        if not set(range(p.count)) <= spin.held:
            raise SpinError(f"{where}: the pattern covers reels 0 to {p.count - 1}, which "
                            "are not all held")
        cells = _line_symbols(game, spin.screen, p.line)[:p.count]
        if not _shows(game, cells, p.symbol):
            raise SpinError(f"{where}: line {p.line} shows {' '.join(cells)} on those reels, "
                            f"not a pattern of {p.count} {p.symbol}")
    return lines


def _shows(game: Game, cells: Sequence[str], symbol: str) -> bool:
    if game.symbols[symbol] == "substitute":
        return all(c == symbol for c in cells)
    return symbol in cells and all(
        c == symbol or (c in game.substitutes and symbol in game.substitutes[c].stands_for)
        for c in cells)


# ------------------------------------------------------------------------------------------
# Evaluation

def _line_symbols(game: Game, screen: Screen, line: int) -> tuple[str, ...]:
    return tuple(screen[row][reel] for reel, row in enumerate(game.paylines[line - 1]))


def _listed(prizes: Mapping[int, int], n: int) -> int:
    """The largest count listed that is not above ``n`` (0 if none)."""
    return max((c for c in prizes if c <= n), default=0)


def _factor(game: Game, by: Mapping[str, int]) -> int:
    return prod(game.substitutes[s].factor(n) for s, n in by.items())


def line_win(game: Game, cells: Sequence[str], line: int = 0) -> Win | None:
    """The highest-paying pattern on one line's symbols (bet 1, no free-game multiplier),
    or None.  ``line`` is only copied into the result."""
    best: tuple[tuple[int, int, int, int], Win] | None = None
    for order, (sym, prizes) in enumerate(game.pays.items()):
        if game.symbols[sym] == "substitute":
            n = next((i for i, c in enumerate(cells) if c != sym), len(cells))
            count = _listed(prizes, n)
            by: dict[str, int] = {}
        else:
            sub = game.substitutes
            n = next((i for i, c in enumerate(cells)
                      if not (c == sym or (c in sub and sym in sub[c].stands_for))), len(cells))
            count = _listed(prizes, n)
            if sym not in cells[:count]:
                continue  # only substitutes: that is the substitute's own pattern
            by = dict(Counter(c for c in cells[:count] if c != sym))
        if not count:
            continue
        multiplier = _factor(game, by)
        win = Win(line, sym, count, sum(by.values()), by, prizes[count], multiplier,
                  prizes[count] * multiplier)
        key = (win.prize, count, -win.substitutes, -order)
        if best is None or key > best[0]:
            best = (key, win)
    return None if best is None else best[1]


def scatter_win(game: Game, screen: Screen, symbol: str) -> Win | None:
    """The scatter prize of ``symbol`` (per credit of total bet, no free-game multiplier)."""
    flat = [c for row in screen for c in row]
    shown = flat.count(symbol)
    by = {s: flat.count(s) for s, sub in game.substitutes.items() if sub.scatters}
    by = {s: n for s, n in by.items() if n}
    n = shown + sum(by.values())
    prizes = game.scatter_pays[symbol]
    count = _listed(prizes, n)
    if not count:
        return None
    multiplier = _factor(game, {s: k for s, k in by.items()
                                if game.substitutes[s].multiply_scatters})
    return Win(None, symbol, n, sum(by.values()), by, prizes[count], multiplier,
               prizes[count] * multiplier)


def trigger_count(game: Game, screen: Screen, fg: FreeGames) -> int:
    """The trigger symbol counted the way scatters are (with every scatter substitute)."""
    flat = [c for row in screen for c in row]
    return flat.count(fg.trigger_symbol) + sum(
        flat.count(s) for s, sub in game.substitutes.items() if sub.scatters)


def _scaled(win: Win, bet: int, multiplier: int) -> Win:
    m = win.multiplier * multiplier
    return Win(win.line, win.symbol, win.count, win.substitutes, win.substituted_by, win.pays,
               m, win.pays * m * bet)


def in_free_games(game: Game) -> Game:
    """The game as a free game pays: its prizes and the prizes offered only during free
    games (NZ Gazette 1.40.39; the same game when it lists none)."""
    fg = game.free_games
    if fg is None or not (fg.pays or fg.scatter_pays):
        return game

    def merged(base: Mapping[str, Mapping[int, int]],
               extra: Mapping[str, Mapping[int, int]]) -> dict[str, dict[int, int]]:
        out = {s: dict(p) for s, p in base.items()}
        for s, p in extra.items():
            out[s] = dict(sorted({**out.get(s, {}), **p}.items()))
        return out

    return replace(game, pays=merged(game.pays, fg.pays),
                   scatter_pays=merged(game.scatter_pays, fg.scatter_pays))


def _free_factor(game: Game, paying: Game, win: Win, free_mult: int, scatter: bool) -> int:
    """The free-game multiplier of ``win``: 1 for a prize offered only during free games
    when the artwork states those are already multiplied (1.40.39)."""
    fg = game.free_games
    if fg is None or fg.free_only_multiplied or free_mult == 1:
        return free_mult
    only = (fg.scatter_pays if scatter else fg.pays).get(win.symbol, {})
    # the count whose prize was paid: a line win's pattern; a scatter win's largest listed
    listed = _listed(paying.scatter_pays[win.symbol], win.count) if scatter else win.count
    return 1 if listed in only else free_mult


def evaluate(game: Game, spin: Spin) -> Outcome:
    """Every prize the screen pays under RULES.md section 7 (module docstring)."""
    lines = _check_spin(game, spin)
    total_bet = spin.bet_per_line * lines
    fg = game.free_games
    free_mult = fg.multiplier if spin.free_game and fg is not None else 1
    initial = set(spin.initial)
    paying = in_free_games(game) if spin.free_game else game

    line_wins: list[Win] = []
    held_back: list[Pattern] = []
    for line in range(1, lines + 1):
        win = line_win(paying, _line_symbols(game, spin.screen, line), line)
        if win is None:
            continue
        if Pattern(line, win.symbol, win.count) in initial:
            held_back.append(Pattern(line, win.symbol, win.count))
            continue
        line_wins.append(_scaled(win, spin.bet_per_line,
                                 _free_factor(game, paying, win, free_mult, scatter=False)))

    scatter_wins: list[Win] = []
    for sym in paying.scatter_pays:
        sw = scatter_win(paying, spin.screen, sym)
        if sw is not None:
            scatter_wins.append(_scaled(sw, total_bet,
                                        _free_factor(game, paying, sw, free_mult, scatter=True)))

    awarded = retrigger = consolation = 0
    if fg is not None:
        triggered = trigger_count(game, spin.screen, fg) >= fg.trigger_count
        if triggered and (not spin.free_game or fg.retrigger):
            awarded = fg.games
        elif triggered:
            retrigger = fg.retrigger_prize * total_bet * free_mult
        if fg.consolation_with_scatters:  # "paid regardless" of scattered wins (1.40.38)
            won, awarded_won = sum(w.prize for w in line_wins), 0
        else:
            won, awarded_won = (sum(w.prize for w in (*line_wins, *scatter_wins)) + retrigger,
                                awarded)
        if spin.free_game and not won and not awarded_won:
            staked = spin.bet_per_line if fg.consolation_per == "line" else total_bet
            consolation = fg.consolation * staked
    return Outcome(game.name, spin.free_game, spin.bet_per_line, lines, total_bet,
                   tuple(line_wins), tuple(scatter_wins), awarded, retrigger, consolation,
                   tuple(held_back))


def spin_from_text(game: Game, screen: str, *, free_game: bool = False, bet_per_line: int = 1,
                   lines: int | None = None, held: str | None = None,
                   initial: Iterable[str] = ()) -> Spin:
    """A :class:`Spin` from the command line's strings (CLI.md ``podium rules slot``)."""
    patterns = tuple(parse_pattern(t) for t in initial)
    if held is None and patterns:
        raise SpinError("--initial: needs --held (the reels the initial patterns stood on)")
    return Spin(parse_screen(game, screen), free_game, bet_per_line, lines,
                parse_reels(held) if held is not None else frozenset(), patterns)


# --- the outcome as JSON: `podium rules slot --json` (CLI.md) and a machine check's record ---

def _win_json(w: Win) -> dict[str, Any]:
    return {"line": w.line, "symbol": w.symbol, "count": w.count, "substitutes": w.substitutes,
            "substituted_by": dict(w.substituted_by), "pays": w.pays,
            "multiplier": w.multiplier, "prize": w.prize}


def _pattern_json(p: Pattern) -> dict[str, Any]:
    return {"line": p.line, "symbol": p.symbol, "count": p.count}


def outcome_json(out: Outcome) -> dict[str, Any]:
    return {
        "game": out.game,
        "free_game": out.free_game,
        "bet_per_line": out.bet_per_line,
        "lines": out.lines,
        "total_bet": out.total_bet,
        "line_wins": [_win_json(w) for w in out.line_wins],
        "scatter_wins": [_win_json(w) for w in out.scatter_wins],
        "free_games_awarded": out.free_games_awarded,
        "retrigger_prize": out.retrigger_prize,
        "consolation": out.consolation,
        "not_paid_again": [_pattern_json(p) for p in out.not_paid_again],
        "total": out.total,
    }


__all__ = ["GameError", "Outcome", "Pattern", "Spin", "SpinError", "Win", "evaluate",
           "in_free_games", "line_win", "outcome_json", "parse_pattern", "parse_reels",
           "parse_screen", "scatter_win", "spin_from_text", "trigger_count"]
