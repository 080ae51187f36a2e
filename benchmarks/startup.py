"""Console start time: from launching `podium demo` to the main window showing the floor
(READY), and to every table's controller link being up (ONLINE).

Each run is a fresh process (python start, imports, ledger migration check, config, Qt, window),
offscreen.  Cold = a new, empty SQLite ledger; warm = the same ledger again.

    .venv/bin/python benchmarks/startup.py [--runs 5]
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


def one_run(db: Path) -> tuple[float, float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    cmd = [sys.executable, "-m", "core.cli", "demo", "--db", f"sqlite:///{db}", "--report-ready",
           "--log-level", "WARNING", "--speed", "1"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env, cwd=Path(__file__).resolve().parent.parent)
    ready = online = float("nan")
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("READY"):
            ready = time.perf_counter() - t0
        elif line.startswith("ONLINE"):
            online = time.perf_counter() - t0
            break
    proc.wait(30)
    return ready, online


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
        for i in range(args.runs):
            db = Path(tmp) / f"cold-{i}.sqlite"
            results["cold"].append(one_run(db))
        warm_db = Path(tmp) / "warm.sqlite"
        one_run(warm_db)
        for _ in range(args.runs):
            results["warm"].append(one_run(warm_db))
    print(f"console start, {args.runs} runs each, median (min-max), seconds:")
    for kind, rows in results.items():
        ready = [r for r, _ in rows]
        online = [o for _, o in rows]
        print(f"  {kind}: window showing the floor {statistics.median(ready):.2f} "
              f"({min(ready):.2f}-{max(ready):.2f}); all 6 tables online "
              f"{statistics.median(online):.2f} ({min(online):.2f}-{max(online):.2f})")


if __name__ == "__main__":
    main()
