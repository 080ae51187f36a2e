"""Exact gaming-machine return from reel strips (core/machines/rules/slot_return.py): how long the
full cycle takes, against what evaluating every combination one by one would take.

For each shipped game (5 reels of 64 stops: 64^5 = 1,073,741,824 combinations per cycle; a
game with a consolation has a second cycle for the free games) and for a variant of each
with retrigger = true and a consolation (so every part is computed: line sums, scatter
convolution, the no-win count, the retrigger equation):

* the wall time of ``game_return`` (median and range over ``--runs``), in this process;
* combinations per second = the combinations covered (base cycle + free cycle when it is
  computed) / time;
* the evaluator's own rate (``core.machines.rules.slots.evaluate`` on ``--sample`` random
  screens) and what brute force over one cycle would therefore take.

    .venv/bin/python benchmarks/slot_return.py [--runs 5] [--sample 20000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.machines.rules.slot_games import Game, find_game  # noqa: E402
from core.machines.rules.slot_return import game_return  # noqa: E402
from core.machines.rules.slots import Spin, evaluate  # noqa: E402


def timed(game: Game, runs: int) -> tuple[list[float], int, str]:
    times: list[float] = []
    covered, total = 0, ""
    for _ in range(runs):
        t0 = time.perf_counter()
        r = game_return(game)
        _ = r.total_return
        times.append(time.perf_counter() - t0)
        covered = r.base.combinations + (
            r.free.combinations if r.free is not None and r.free is not r.base else 0)
        exact = r.total_return
        total = (f"{float(exact) * 100:.4f}% (exact {exact.numerator}/"
                 f"{exact.denominator})")
    return times, covered, total


def evaluator_rate(game: Game, sample: int) -> float:
    assert game.strips is not None
    rng = random.Random(1)
    screens = []
    for _ in range(sample):
        stops = [rng.randrange(len(s)) for s in game.strips]
        screens.append(tuple(tuple(game.strips[r][(stops[r] + row) % len(game.strips[r])]
                                   for r in range(game.reels)) for row in range(game.rows)))
    t0 = time.perf_counter()
    for screen in screens:
        evaluate(game, Spin(screen, free_game=True))
    return sample / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sample", type=int, default=20000)
    args = ap.parse_args()
    for name in ("jade-harbour", "four-winds"):
        game = find_game(name)
        fg = game.free_games
        assert fg is not None and game.strips is not None
        variants = [(name, game)]
        hard = replace(game, free_games=replace(fg, retrigger=True, retrigger_prize=0,
                                                consolation=max(fg.consolation, 1)))
        variants.append((f"{name} + retrigger + consolation", hard))
        for label, g in variants:
            times, covered, total = timed(g, args.runs)
            med = statistics.median(times)
            print(f"{label}: {' x '.join(str(len(s)) for s in game.strips)} stops, "
                  f"{covered:,} combinations covered")
            print(f"  game_return: {med:.3f} s median ({min(times):.3f}-{max(times):.3f}, "
                  f"{args.runs} runs) = {covered / med:,.0f} combinations/s")
            print(f"  return: {total}")
        rate = evaluator_rate(game, args.sample)
        cycle = 1
        for s in game.strips:
            cycle *= len(s)
        print(f"  evaluator one by one: {rate:,.0f} screens/s -> one cycle by brute force "
              f"~{cycle / rate / 3600:,.1f} h")


if __name__ == "__main__":
    main()
