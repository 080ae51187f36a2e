"""Progressive meter risk simulator (core/tablegames/meters/risk/): how long 10 million
rounds take.

Each case is ``paths x rounds`` = 10,000,000 rounds (one wager a round unless said), timed
in this process after a warm-up (imports done, hand counts cached), median of ``--runs``;
and one whole ``podium rules meter-risk`` process.  Goal: 10 M rounds in under 10 s on the
2-core development machine.

    .venv/bin/python benchmarks/meter_risk.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.tablegames.meters.risk.model import level_plans  # noqa: E402
from core.tablegames.meters.risk.simulation import simulate  # noqa: E402
from core.tablegames.rules.enumerate import count_hands  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402

TABLES = load_paytables()
ML2_SEEDS = {"MEGA": 25_000_00, "MAJOR": 2_500_00, "MINOR": 500_00}

# name, table, seeds (cents), contribution rate, all pays from meter, paths, rounds, seats
CASES = [
    ("WA01 all pays from meter (3.1% of wagers move the meter)", "FPGPP-WA01",
     {"MAIN": 10_000_00}, "0.70", True, 1000, 10_000, 1),
    ("  same, 100 paths x 100,000 rounds", "FPGPP-WA01",
     {"MAIN": 10_000_00}, "0.70", True, 100, 100_000, 1),
    ("  same, 10 paths x 1,000,000 rounds", "FPGPP-WA01",
     {"MAIN": 10_000_00}, "0.70", True, 10, 1_000_000, 1),
    ("  same, 1 path x 10,000,000 rounds (worst case: no paths to vectorise)", "FPGPP-WA01",
     {"MAIN": 10_000_00}, "0.70", True, 1, 10_000_000, 1),
    ("WA01 percentage pays only", "FPGPP-WA01",
     {"MAIN": 10_000_00}, "0.20", False, 1000, 10_000, 1),
    ("ML2 three levels, percentage pays", "FPGPP-ML2", ML2_SEEDS, "0.05", False,
     1000, 10_000, 1),
    ("ML2 three levels, all pays from meter", "FPGPP-ML2", ML2_SEEDS, "0.30", True,
     1000, 10_000, 1),
    ("ML2 all pays from meter, 6 seats (60 M wagers)", "FPGPP-ML2", ML2_SEEDS, "0.30", True,
     1000, 10_000, 6),
]


def one(pid: str, seeds: dict[str, int], rate: str, all_pays: bool, paths: int, rounds: int,
        seats: int) -> float:
    table = TABLES[pid]
    counts = count_hands(table.joker)
    plans = level_plans(table, seeds, dict.fromkeys(table.levels, Decimal(rate)),
                        dict.fromkeys(table.levels, Decimal("0.01")))
    t0 = time.perf_counter()
    simulate(table, counts, plans, rounds=rounds, paths=paths, seats=seats,
             all_pays_from_meter=all_pays, rng_seed=1)
    return time.perf_counter() - t0


def command() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "core.cli", "rules", "meter-risk", "FPGPP-WA01",
                    "--seed-amount", "10000", "--contribution-rate", "0.70", "--reserve-rate",
                    "0.01", "--all-pays-from-meter", "--paths", "100", "--rounds", "100000",
                    "--rng-seed", "1", "--json"], capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    runs = ap.parse_args().runs
    one("FPGPP-WA01", {"MAIN": 10_000_00}, "0.70", True, 100, 1000, 1)  # warm-up
    print(f"{'case':<74} {'paths x rounds':>20} {'median s':>9} {'M rounds/s':>11}")
    for name, pid, seeds, rate, all_pays, paths, rounds, seats in CASES:
        times = [one(pid, seeds, rate, all_pays, paths, rounds, seats) for _ in range(runs)]
        med = statistics.median(times)
        print(f"{name:<74} {f'{paths:,} x {rounds:,}':>20} {med:>9.2f} "
              f"{paths * rounds / med / 1e6:>11.1f}")
    times = [command() for _ in range(runs)]
    print(f"{'podium rules meter-risk FPGPP-WA01 ... --paths 100 --rounds 100000 --json':<74} "
          f"{'(whole process)':>20} {statistics.median(times):>9.2f}")


if __name__ == "__main__":
    main()
