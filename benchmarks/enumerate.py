"""Exact Fortune hand counts (core/tablegames/rules/enumerate.py): how long a full count takes.

* cold: a fresh Python process imports the enumerator (numpy included) and counts all
  C(53,7) hands of one joker mode, no result cache; timed from inside the process (import
  + count) and from outside (the whole process, interpreter start included);
* warm: in this process, code imported and lookup tables built, no result cache;
* cached: the answer read back from the on-disk cache, in this process and as a whole
  ``podium rules edge PT1 --json`` process (against a cold command with an empty cache).

    .venv/bin/python benchmarks/enumerate.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.tablegames.rules.enumerate import count_hands  # noqa: E402

COLD = """
import sys, time
t0 = time.perf_counter()
from core.tablegames.rules.enumerate import count_hands
counts = count_hands(sys.argv[1], use_cache=False)
assert counts.total == 154_143_080
print(time.perf_counter() - t0)
"""


def cold(mode: str) -> tuple[float, float]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", COLD, mode], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return float(out), time.perf_counter() - t0


def command(cache_home: str) -> float:
    env = dict(os.environ, XDG_CACHE_HOME=cache_home)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "core.cli", "rules", "edge", "PT1", "--json"],
                   capture_output=True, check=True, cwd=ROOT, env=env)
    return time.perf_counter() - t0


def summary(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"exact count of all 154,143,080 hands, {args.runs} runs each, "
          "median (min-max), milliseconds:")
    for mode in ("semi", "wild"):
        inside, whole = zip(*(cold(mode) for _ in range(args.runs)), strict=True)
        print(f"  {mode}: cold, fresh process: import + count {summary(list(inside))}; "
              f"whole process {summary(list(whole))}")
        count_hands(mode, use_cache=False)
        warm = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            count_hands(mode, use_cache=False)
            warm.append(time.perf_counter() - t0)
        print(f"  {mode}: warm, no result cache: {summary(warm)}")
        with tempfile.TemporaryDirectory() as tmp:
            count_hands(mode, cache_dir=Path(tmp))
            cached = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                count_hands(mode, cache_dir=Path(tmp))
                cached.append(time.perf_counter() - t0)
        print(f"  {mode}: cached answer (read from disk): {summary(cached)}")
    empty, full = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            empty.append(command(tmp))
            full.append(command(tmp))
    print(f"  podium rules edge PT1 --json, whole process: empty cache {summary(empty)}; "
          f"cached {summary(full)}")


if __name__ == "__main__":
    main()
