"""What the machine-win check screen marks and says, apart from its widgets: the cells and
paylines a win lights on the grid, with their colours, a win's credits explained in words, and
the floor's clock a check is stamped with.  Every rule is in ``core.machines.rules.slots``; this
only describes what the evaluator returned."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from math import prod
from typing import Any, cast

from core.machines.rules.slot_games import Game
from core.machines.rules.slots import Outcome, Screen, Win
from gui.common import theme

SUBSTITUTE_COLOUR = "#b37feb"  # violet: a substitute standing in for the pattern's symbol
SCATTER_COLOUR = theme.INFO  # blue: a scatter counted anywhere on the screen
PATTERN_COLOUR = theme.OK  # green: a symbol of the paying pattern
# one colour per win, for its payline on the grid and its chip in the table
WIN_COLOURS = ("#f2c14e", "#ff7a45", "#36cfc9", "#f759ab", "#bae637", "#9254de", "#ffc069")


@dataclass
class Marks:
    """What the grid highlights: cells of paying patterns, substitutes, scatters, and the
    paylines (cells in reel order) with their colours and labels."""

    pattern: set[tuple[int, int]] = field(default_factory=set)
    substitute: set[tuple[int, int]] = field(default_factory=set)
    scatter: set[tuple[int, int]] = field(default_factory=set)
    lines: list[tuple[list[tuple[int, int]], int, str, str]] = field(default_factory=list)
    # (cells of the whole line, how many of them pay, colour, label)


def win_marks(game: Game, screen: Screen, wins: Sequence[tuple[Win, str]]) -> Marks:
    """Highlights for ``wins`` (each with its colour) on ``screen``."""
    m = Marks()
    for w, colour in wins:
        if w.line is not None:
            cells = [(row, reel) for reel, row in enumerate(game.paylines[w.line - 1])]
            for r, c in cells[:w.count]:
                (m.pattern if screen[r][c] == w.symbol else m.substitute).add((r, c))
            m.lines.append((cells, w.count, colour, f"L{w.line}"))
        else:
            for r, row in enumerate(screen):
                for c, sym in enumerate(row):
                    if sym == w.symbol:
                        m.scatter.add((r, c))
                    elif sym in w.substituted_by:
                        m.substitute.add((r, c))
    return m


def explain(game: Game, out: Outcome, w: Win) -> str:
    """The reason for a win's credits in words, e.g. ``3 G on line 1 (G Y X): Y x3, X x2 = x6;
    15 x 6 x 1 credit bet on the line = 90``."""
    factors = []
    for s, n in w.substituted_by.items():
        sub = game.substitutes[s]
        once = " once per pattern" if n > 1 and not sub.per_substitute else ""
        factors.append(f"{f'{n} ' if n > 1 else ''}{s} x{sub.factor(n)}{once}")
    subs = ", ".join(factors)
    if len(factors) > 1:
        subs += f" = x{prod(game.substitutes[s].factor(n) for s, n in w.substituted_by.items())}"
    free = (f", free game x{game.free_games.multiplier}"
            if out.free_game and game.free_games is not None and game.free_games.multiplier > 1
            else "")
    if w.line is not None:
        kind = "own pattern, never multiplied" if game.symbols[w.symbol] == "substitute" else ""
        parts = [p for p in (kind, ("substitutes: " + subs) if subs else "", free.lstrip(", "))
                 if p]
        why = f" ({'; '.join(parts)})" if parts else ""
        return (f"{w.count} {w.symbol} from the left on line {w.line}{why}: {w.pays} x "
                f"{w.multiplier} x {out.bet_per_line} credit(s) on the line = {w.prize}")
    counted = f"{w.count - w.substitutes} {w.symbol}" + (
        f" + {w.substitutes} substitute(s) ("
        + ", ".join(f"{n} {s}" for s, n in w.substituted_by.items()) + ")"
        if w.substitutes else "")
    return (f"scatter: {counted} anywhere on the screen{free}: {w.pays} x {w.multiplier} x "
            f"total bet {out.total_bet} = {w.prize}")


def floor_clock(console: Any) -> Callable[[], datetime]:
    """The clock of the console's floor (``FloorContext.clock``: a test's or a demo's own
    time), so a check is stamped as everything else on the floor; the wall clock (UTC) for
    a console without a floor."""
    floor = getattr(console, "floor", None)
    clock = getattr(getattr(floor, "ctx", None), "clock", None)
    if clock is None:
        return lambda: datetime.now(UTC)
    return cast(Callable[[], datetime], clock)
