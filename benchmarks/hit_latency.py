"""Time from a controller's HIT message to the hit showing in the console's queue.

A simulated controller (its own thread and asyncio loop, real loopback TCP) sends HIT JACKPOT
for a straight flush (a pay that needs a supervisor).  The clock starts just before the HIT
frame is written to the socket and stops when the hit queue widget has been given a row with
that hit (the console's own 10 Hz repaint throttle included).  Each hit is then rejected by a
supervisor swipe so the table can play the next round.  The ledger is SQLite (WAL,
synchronous=FULL) in a temporary folder, or PostgreSQL with --db.

    .venv/bin/python benchmarks/hit_latency.py [--hits 40] [--db URL]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication  # noqa: E402

from core.app.demo import swipe_of  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from gui.common import theme  # noqa: E402
from gui.common.swipe import SwipeCatcher  # noqa: E402
from gui.main_window import MainWindow  # noqa: E402
from tests.fake_printer import FakePrinter  # noqa: E402
from tests.harness import FloorHarness  # noqa: E402

CARDS = ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hits", type=int, default=40)
    ap.add_argument("--db", default=None)
    args = ap.parse_args()
    app = QApplication([])
    theme.apply(app)
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
        upgrade(engine)
        catcher = SwipeCatcher()
        catcher.install(app)
        with FakePrinter() as printer, FloorHarness(engine, printer.port, tables=("PG-1",)) as fl:
            window = MainWindow(fl.console, catcher)
            window.show()
            shown: dict[int, float] = {}
            original = window.queue.show_hits

            def spy(hits, now):  # type: ignore[no-untyped-def]
                original(hits, now)
                t = time.perf_counter()
                for h in hits:
                    shown.setdefault(h.id, t)

            window.queue.show_hits = spy  # type: ignore[method-assign]
            sim = fl.sims["PG-1"]
            latencies: list[float] = []
            for _ in range(args.hits):
                fl.on_sim(sim.force_wagers, [3])
                fl.on_sim(sim.force_hand, 3, CARDS)
                fl.on_sim(sim.step)  # START GAME
                sent: list[float] = []

                def hit(sent: list[float] = sent) -> None:
                    sent.append(time.perf_counter())
                    sim.press_hit_jackpot(3, "STRAIGHT_FLUSH")

                before = set(shown)
                fl.on_sim(hit)
                deadline = time.perf_counter() + 10
                while time.perf_counter() < deadline and not (set(shown) - before):
                    app.processEvents()
                    time.sleep(0.0005)
                new = set(shown) - before
                if not new:
                    raise SystemExit("a hit did not show within 10 s")
                hit_id = new.pop()
                latencies.append(shown[hit_id] - sent[0])
                fl.console.floor.reject(hit_id, "benchmark", swipe_of("1001"))
                fl.on_sim(sim.step)  # wait for the REJECT, END GAME
                deadline = time.perf_counter() + 10
                while sim.phase != "idle" and time.perf_counter() < deadline:
                    app.processEvents()
                    fl.on_sim(sim.step)
                    time.sleep(0.002)
            window.close()
        ms = sorted(x * 1000 for x in latencies)
        p95 = ms[max(0, int(len(ms) * 0.95) - 1)]
        print(f"HIT message -> hit in the queue ({engine.dialect.name}, {len(ms)} hits): "
              f"median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, "
              f"min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms")
        engine.dispose()


if __name__ == "__main__":
    main()
