"""How fast the `podium` command line starts, and how many hands a second its batch mode decides.

Each start is a fresh process running this checkout's code the way the installed `podium` entry
point does (``from core.cli import main``; pyproject's ``core.cli:main``), from the repository
folder, so the worktree is imported rather than whatever the venv has installed.

    .venv/bin/python benchmarks/cli_start.py [--runs 10] [--hands 100000]

Prints the median (min-max) wall time of `podium rules classify ... --json` and `podium --help`,
then `podium rules classify --batch` over HANDS random 7-card hands from a seeded RNG
(53-card deck, half of the lines in wild joker mode), end to end: process start, reading,
deciding and writing every line.  No thresholds: the figures are for reading.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRY = "import sys; from core.cli import main; sys.exit(main())"  # the console script's body
CLASSIFY = ["rules", "classify", "As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh", "--json"]
RANKS = "23456789TJQKA"
SUITS = "cdhs"


def podium(argv: list[str], stdin: bytes | None = None) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", ENTRY, *argv], input=stdin,
                          capture_output=True, cwd=ROOT, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 2):
        raise SystemExit(f"podium {' '.join(argv)}: exit {proc.returncode}\n"
                         f"{proc.stderr.decode(errors='replace')}")
    return elapsed, proc.stdout


def start_times(argv: list[str], runs: int) -> list[float]:
    podium(argv)  # compile the .pyc files once; every timed run is a fresh process
    return [podium(argv)[0] for _ in range(runs)]


def hands(n: int, seed: int = 22) -> bytes:
    rng = random.Random(seed)
    deck = [r + s for r in RANKS for s in SUITS] + ["Jk"]
    lines = []
    for i in range(n):
        doc: dict[str, object] = {"cards": rng.sample(deck, 7)}
        if i % 2:
            doc["joker"] = "wild"
        lines.append(json.dumps(doc))
    return ("\n".join(lines) + "\n").encode()


def ms(values: list[float]) -> str:
    return (f"{statistics.median(values) * 1000:.0f} ms "
            f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--hands", type=int, default=100_000)
    args = ap.parse_args()
    bare = [_time_bare() for _ in range(args.runs)]  # python itself, for scale
    print(f"{args.runs} fresh processes each, median (min-max):")
    print(f"  python -c pass                    {ms(bare)}")
    print(f"  podium rules classify ... --json  {ms(start_times(CLASSIFY, args.runs))}")
    print(f"  podium --help                     {ms(start_times(['--help'], args.runs))}")
    data = hands(args.hands)
    elapsed, out = podium(["rules", "classify", "--batch"], stdin=data)
    decided = out.count(b"\n")
    if decided != args.hands:
        print(f"  podium rules classify --batch: {decided} lines out for {args.hands} in "
              "(no batch mode?)")
        return
    print(f"  podium rules classify --batch     {args.hands:,} hands in {elapsed:.2f} s: "
          f"{args.hands / elapsed:,.0f} hands/s (process start included)")


def _time_bare() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=ROOT)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
