"""The exact return of a gaming machine from its reel strips (``[reels]`` of a game file).

Every stop combination of the full cycle is equally likely; the screen for stops
``s[0..reels-1]`` shows ``strips[r][(s[r] + row) % len(strips[r])]`` in row ``row`` of reel
``r``.  The return is the expected total prize per credit of total bet (every line played,
1 credit per line; the return does not depend on the bet), base game plus free games, as an
exact :class:`~fractions.Fraction`.  The prizes are those of
:func:`core.machines.rules.slots.evaluate`
(RULES.md section 7); nothing is simulated and no combination is evaluated one by one:

- line prizes depend only on the symbols on each line: per line, per reel, a histogram of the
  symbol on that line's row over the stops; the sum over symbol tuples of the product of
  the histograms times the tuple's line prize (each distinct tuple evaluated once);
- scatter prizes and the trigger depend only on the per-reel counts of scatter symbols and
  of scatter substitutes in the window: per-reel count histograms, convolved;
- the consolation (a free game that wins nothing at all) couples everything: the
  combinations with no win are counted by a dynamic programme over the reels whose state
  is, per line, the runs that can still become a pattern (a line that has already won
  drops the combination; a line that can no longer win becomes "dead") plus the capped
  scatter counts; states are merged after each reel (docs/slots.md has the complexity).

Bounded work and memory: every part first charges what it is about to do to a step budget
(``max_steps``, default :data:`DEFAULT_MAX_STEPS`; ``podium rules slot --return --max-steps``),
and a game that would exceed it is refused with a :class:`ReturnError` before that part runs.
The line sums are known exactly before anything is computed (one step per distinct symbol tuple
and line); the scatter convolution and the no-win programme charge each reel before it is
processed.  One step is about 1 microsecond (0.4 to 2 measured).  Memory: the line sums stream
over the symbol tuples (nothing kept per tuple); the only large structures are the merged
states of the scatter convolution and of the no-win programme, at most one per
:data:`STATE_STEPS` steps charged, 200 to 400 bytes each: at most about 25 bytes per step of
the budget (about 1 GB at the default of 40 million).

Free games: a base-game trigger awards ``games`` free games; one free game's value is its own
full-cycle expectation (the free strips if the file gives them).  With ``retrigger = true``
the value V solves V = E[prizes] + P(trigger) x games x V exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import prod

from core.machines.rules.slot_games import Game, GameError
from core.machines.rules.slots import in_free_games, line_win

Strips = tuple[tuple[str, ...], ...]
Window = tuple[str, ...]  # the symbols a reel shows, top row first


class ReturnError(ValueError):
    """The return can not be computed (no reel strips, retriggers without end, more work than
    allowed); names why."""


DEFAULT_MAX_STEPS = 40_000_000  # about 40 s on one core (1 step ~ 1 us), at most about 1 GB
STATE_STEPS = 10  # steps charged per state the convolution or the no-win programme may keep
EVAL_STEPS = 10  # steps charged per symbol tuple evaluated (about 10 us)


class Steps:
    """The step budget of one return computation (module docstring)."""

    def __init__(self, game: Game, limit: int | None = DEFAULT_MAX_STEPS) -> None:
        self.game, self.limit, self.used = game, limit, 0

    def charge(self, steps: int, what: str) -> None:
        """Count ``steps`` about to be taken by ``what``; refuse before taking them if that
        would pass the limit."""
        self.used += steps
        if self.limit is not None and self.used > self.limit:
            raise ReturnError(
                f"--return: {self.game.source or self.game.name}: the exact return would take "
                f"more than {self.limit:,} steps (at least {self.used:,}, stopped at {what}; "
                f"{self.game.reels} reels of "
                f"{'/'.join(str(len(s)) for s in self.game.strips or ())} stops); "
                "--max-steps N raises the limit (about 1 us and at most 25 bytes of memory a step)")


def line_steps(strips: Strips, lines: int) -> int:
    """The steps of the line sums of one set of strips: per distinct symbol tuple (one symbol
    each reel can show), one evaluation and one product per line played."""
    return prod(len(set(strip)) for strip in strips) * (EVAL_STEPS + lines)


@dataclass(frozen=True)
class CycleCounts:
    """Sums over one full cycle of one set of strips, prizes in credits at 1 credit per line
    and without the free-game multiplier (``combinations`` = product of the strip lengths)."""

    combinations: int
    line_prizes: int  # sum of every played line's prize
    scatter_prizes: int  # sum of the scatter prizes, per credit of total bet
    triggers: int  # combinations that show the free-game trigger
    no_win: int  # combinations that win nothing in a free game (0 when not needed)


@dataclass(frozen=True)
class GameReturn:
    game: str
    lines: int  # lines played = total bet in credits (1 per line)
    base: CycleCounts
    free: CycleCounts | None  # None: the game has no free games
    games: int  # free games a trigger awards
    free_multiplier: int
    retrigger: bool
    retrigger_prize: int
    consolation: int
    consolation_per: str = "total_bet"  # or "line": per credit staked per line (1.40.38)

    @property
    def combinations(self) -> int:
        return self.base.combinations

    @property
    def base_return(self) -> Fraction:
        """Base-game prizes per credit of total bet."""
        b = self.base
        return Fraction(b.line_prizes + b.scatter_prizes * self.lines,
                        b.combinations * self.lines)

    @property
    def trigger_probability(self) -> Fraction:
        return Fraction(self.base.triggers, self.base.combinations)

    @property
    def free_game_value(self) -> Fraction:
        """The expected prize of one free game (retriggered games included) per credit of
        total bet; 0 without free games."""
        f = self.free
        if f is None:
            return Fraction(0)
        n, bet = f.combinations, self.lines
        prizes = Fraction((f.line_prizes + f.scatter_prizes * bet) * self.free_multiplier, n * bet)
        if not self.retrigger:
            prizes += Fraction(f.triggers * self.retrigger_prize * self.free_multiplier, n)
        # per credit of total bet: a consolation per line is 1/lines of one per total bet
        prizes += Fraction(f.no_win * self.consolation,
                           n * (bet if self.consolation_per == "line" else 1))
        if self.retrigger:
            more = Fraction(f.triggers * self.games, n)
            if more >= 1:
                raise ReturnError(f"{self.game}: a free game awards {float(more):.4f} free "
                                  "games on average (retrigger = true): the feature never "
                                  "ends and the return is infinite")
            return prizes / (1 - more)
        return prizes

    @property
    def free_return(self) -> Fraction:
        """Free-game prizes per credit of total bet of a base game."""
        return self.trigger_probability * self.games * self.free_game_value

    @property
    def total_return(self) -> Fraction:
        return self.base_return + self.free_return


# ------------------------------------------------------------------------------------------
# Windows and histograms

def windows(strip: Sequence[str], rows: int) -> Counter[Window]:
    """How many stops of one reel show each window (``rows`` symbols, top first)."""
    n = len(strip)
    return Counter(tuple(strip[(s + row) % n] for row in range(rows)) for s in range(n))


def _line_prizes(game: Game, strips: Strips, lines: int, steps: Steps | None = None) -> int:
    """Sum over the cycle of the line prizes of lines 1..``lines``: every tuple of symbols the
    reels can show is evaluated once, and its prize counted on each line with the number of
    stops that put that tuple on the line.  Streams: memory O(lines x reels x symbols)."""
    if steps is not None:
        steps.charge(line_steps(strips, lines), "the line sums")
    paylines = game.paylines[:lines]
    symbols = [sorted(set(strip)) for strip in strips]
    # per line, per reel: symbol -> stops that show it on that line's row
    hists: list[list[Counter[str]]] = []
    for payline in paylines:
        per_reel = []
        for reel, row in enumerate(payline):
            n = len(strips[reel])
            per_reel.append(Counter(strips[reel][(s + row) % n] for s in range(n)))
        hists.append(per_reel)
    total = 0
    for cells in product(*symbols):
        win = line_win(game, cells)
        if win is None or not win.prize:
            continue
        for per_reel in hists:
            total += win.prize * prod(h[sym] for h, sym in zip(per_reel, cells, strict=True))
    return total


def _scatter_state(game: Game, window: Window) -> tuple[int, ...]:
    """Per scatter symbol then per scatter substitute: how many the window shows."""
    scat = game.scatter_symbols()
    subs = [s for s, sub in game.substitutes.items() if sub.scatters]
    return tuple(window.count(s) for s in (*scat, *subs))


def _scatters(game: Game, strips: Strips, steps: Steps | None = None) -> tuple[int, int]:
    """Sum over the cycle of the scatter prizes (per credit of total bet) and the number of
    combinations showing the trigger."""
    dist: Counter[tuple[int, ...]] = Counter({(0,) * (len(game.scatter_symbols()) + sum(
        1 for sub in game.substitutes.values() if sub.scatters)): 1})
    for strip in strips:
        reel: Counter[tuple[int, ...]] = Counter()
        for w, c in windows(strip, game.rows).items():
            reel[_scatter_state(game, w)] += c
        if steps is not None:
            steps.charge(len(dist) * len(reel) * STATE_STEPS, "the scatter counts")
        nxt: Counter[tuple[int, ...]] = Counter()
        for a, ca in dist.items():
            for b, cb in reel.items():
                nxt[tuple(x + y for x, y in zip(a, b, strict=True))] += ca * cb
        dist = nxt
    scat = game.scatter_symbols()
    subs = [s for s, sub in game.substitutes.items() if sub.scatters]
    fg = game.free_games
    prizes = triggers = 0
    for state, c in dist.items():
        shown = dict(zip(scat, state[:len(scat)], strict=True))
        by = {s: k for s, k in zip(subs, state[len(scat):], strict=True) if k}
        n_subs = sum(by.values())
        for sym, pays in game.scatter_pays.items():
            n = shown[sym] + n_subs
            count = max((k for k in pays if k <= n), default=0)
            if count:
                factor = prod(game.substitutes[s].factor(k) for s, k in by.items()
                              if game.substitutes[s].multiply_scatters)
                prizes += c * pays[count] * factor
        if fg is not None and shown[fg.trigger_symbol] + n_subs >= fg.trigger_count:
            triggers += c
    return prizes, triggers


# ------------------------------------------------------------------------------------------
# Combinations without any win (the consolation)

_LineState = tuple[tuple[str, int], ...]  # open runs: (symbol, first literal position or -1)


class _NoWin:
    """Counts the combinations of a free game that win nothing (module docstring)."""

    def __init__(self, game: Game, lines: int) -> None:
        self.game, self.lines = game, lines
        self.step_cache: dict[tuple[_LineState, str, int], _LineState | None] = {}
        fg = game.free_games
        assert fg is not None
        self.scat = game.scatter_symbols()
        self.sub_scat = [s for s, sub in game.substitutes.items() if sub.scatters]
        # per scatter symbol: the count from which the free game has won something
        limits: dict[str, int] = {s: min(p) for s, p in game.scatter_pays.items()}
        if fg.retrigger or fg.retrigger_prize:
            t = fg.trigger_symbol
            limits[t] = min(limits.get(t, fg.trigger_count), fg.trigger_count)
        if fg.consolation_with_scatters:  # paid regardless of scattered wins: lines only
            limits = {}
        self.limits = tuple(limits.get(s, 0) for s in self.scat)

    def _wins(self, sym: str, run: int, first: int) -> bool:
        """A run of ``run`` cells from the left for ``sym`` (first literal at ``first``)."""
        prizes = self.game.pays[sym]
        count = max((k for k in prizes if k <= run), default=0)
        if not count:
            return False
        return self.game.symbols[sym] == "substitute" or 0 <= first < count

    def step(self, state: _LineState, cell: str, pos: int) -> _LineState | None:
        """The line state after ``cell`` at reel ``pos``; None = the line has won."""
        key = (state, cell, pos)
        if key in self.step_cache:
            return self.step_cache[key]
        game, subs = self.game, self.game.substitutes
        out: list[tuple[str, int]] = []
        result: _LineState | None = None
        for sym, first in state:
            if game.symbols[sym] == "substitute":
                goes_on = cell == sym
            else:
                goes_on = cell == sym or (cell in subs and sym in subs[cell].stands_for)
            if not goes_on:
                if self._wins(sym, pos, first):
                    break
                continue
            if first < 0 and cell == sym:
                first = pos
            if self._wins(sym, pos + 1, first):
                break  # the run can only grow: the line has won whatever follows
            if pos + 1 < game.reels:
                out.append((sym, first))
        else:
            result = tuple(out)
        self.step_cache[key] = result
        return result

    def count(self, strips: Strips, steps: Steps | None = None) -> int:
        game = self.game
        start: _LineState = tuple((s, -1) for s in game.pays)
        scat0 = (0,) * len(self.scat)
        live = [i for i, lim in enumerate(self.limits) if lim]
        states: dict[tuple[tuple[_LineState, ...], tuple[int, ...]], int] = {
            ((start,) * self.lines, scat0): 1}
        paylines = game.paylines[:self.lines]
        for reel, strip in enumerate(strips):
            reel_windows = []
            for w, c in windows(strip, game.rows).items():
                cells = tuple(w[line[reel]] for line in paylines)
                n_sub = sum(w.count(s) for s in self.sub_scat)
                add = tuple(w.count(s) + n_sub if i in live else 0
                            for i, s in enumerate(self.scat))
                reel_windows.append((cells, add, c))
            if steps is not None:
                steps.charge(len(states) * len(reel_windows) * (STATE_STEPS + self.lines),
                             f"reel {reel + 1} of the free games without a win")
            nxt: dict[tuple[tuple[_LineState, ...], tuple[int, ...]], int] = {}
            for (line_states, scat), n in states.items():
                for cells, add, c in reel_windows:
                    new_scat = tuple(a + b for a, b in zip(scat, add, strict=True))
                    if any(lim and v >= lim for v, lim in zip(new_scat, self.limits,
                                                              strict=True)):
                        continue
                    new_lines = []
                    for st, cell in zip(line_states, cells, strict=True):
                        ns = self.step(st, cell, reel) if st else st
                        if ns is None:
                            break
                        new_lines.append(ns)
                    else:
                        key = (tuple(new_lines), new_scat)
                        nxt[key] = nxt.get(key, 0) + n * c
            states = nxt
        return sum(states.values())


# ------------------------------------------------------------------------------------------

def cycle_counts(game: Game, strips: Strips, *, free_game: bool, lines: int | None = None,
                 steps: Steps | None = None) -> CycleCounts:
    """The full-cycle sums of one set of strips (base or free game), within ``steps`` if
    given (module docstring)."""
    played = len(game.paylines) if lines is None else lines
    line_total = _line_prizes(game, strips, played, steps)
    scatter_total, triggers = _scatters(game, strips, steps)
    fg = game.free_games
    no_win = 0
    if free_game and fg is not None and fg.consolation:
        no_win = _NoWin(game, played).count(strips, steps)
    return CycleCounts(prod(len(s) for s in strips), line_total, scatter_total, triggers,
                       no_win)


def game_return(game: Game, lines: int | None = None, *,
                max_steps: int | None = DEFAULT_MAX_STEPS) -> GameReturn:
    """The exact return of ``game`` from its ``[reels]`` strips (module docstring); refused
    (:class:`ReturnError`) before the work when it would take more than ``max_steps`` steps
    (None: no limit)."""
    if game.strips is None:
        raise ReturnError(f"{game.source or game.name}: reels: the game file gives no reel "
                          "strips ([reels] strips = [...]); the return needs them")
    played = len(game.paylines) if lines is None else lines
    if not 1 <= played <= len(game.paylines):
        raise ReturnError(f"--lines: {played} must be 1 to {len(game.paylines)} "
                          f"({game.name} has {len(game.paylines)} lines)")
    fg = game.free_games
    if fg is not None and not fg.free_only_multiplied:
        raise ReturnError(f"{game.source or game.name}: free_games.free_only_already_"
                          "multiplied: the return of prizes offered only during free games "
                          "and not multiplied there is not computed (they would need sums "
                          "of their own)")
    free_strips = game.free_strips or game.strips
    free_game = in_free_games(game)  # the prizes offered only during free games with them
    separate_free = fg is not None and (free_strips != game.strips or bool(fg.consolation)
                                        or free_game is not game)
    # What is known before anything is computed: the line sums of each cycle.
    Steps(game, max_steps).charge(
        line_steps(game.strips, played)
        + (line_steps(free_strips, played) if separate_free else 0), "the line sums")
    steps = Steps(game, max_steps)
    base = cycle_counts(game, game.strips, free_game=False, lines=played, steps=steps)
    if fg is None:
        return GameReturn(game.name, played, base, None, 0, 1, False, 0, 0)
    if not separate_free:
        free = base
    else:
        free = cycle_counts(free_game, free_strips, free_game=True, lines=played,
                            steps=steps)
    return GameReturn(game.name, played, base, free, fg.games, fg.multiplier, fg.retrigger,
                      fg.retrigger_prize, fg.consolation, fg.consolation_per)


__all__ = ["CycleCounts", "GameError", "GameReturn", "ReturnError", "cycle_counts",
           "game_return", "windows"]
