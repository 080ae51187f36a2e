"""A month's reconciliation on a ledger of 10 million rounds (issue 13).

    .venv/bin/python benchmarks/month_reconciliation.py [--keep ledger10m.sqlite3]
        [--rounds 10000000] [--tables 500] [--days 35] [--month 2026-11] [--repeat 3]
        [--db postgresql+psycopg://... --schema NAME]

The ledger is built by ``benchmarks/ledger_size.py`` (every round as ingest records it:
controller events, rounds, wagers, contributions to every level, hits with their awards and
meter entries, the kept balances and the hourly totals of levels and tables), by default 10 M
rounds on 500 tables over the 35 days before the build, so the calendar month before it lies
inside (about 8.6 M of the rounds).  ``--keep`` / ``--schema`` reuse a ledger already built.

Measured, each cold once and then ``--repeat`` times (median and worst), through a read-only
desk (``core.desks.desk.open_desk``) as ``podium report`` does it:
  the reconciliation of every level for the month (``core.desks.accounting.reconcile``), drop
  against contributions per table, hits by level with the last 25, the slip register, the liability
  now and at the month's end, and the month's reconciliation written as XLSX and as a PDF
  page; then the plans of the statements (--explain).
Nothing is asserted; the figures go in the closing note.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_sim  # noqa: E402
import ledger_size  # noqa: E402

from core.desks.accounting import liability, periods, reconcile, register, sheets  # noqa: E402
from core.desks.accounting.reading import utc  # noqa: E402
from core.desks.desk import open_desk  # noqa: E402
from core.floorconfig import load_floor  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402

T = TypeVar("T")


def measure(name: str, fn: Callable[[], T], repeat: int) -> T:
    t0 = time.perf_counter()
    value = fn()
    cold = time.perf_counter() - t0
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    print(f"  {name:<44} cold {cold * 1000:9.1f} ms   warm median "
          f"{statistics.median(times) * 1000:9.1f} ms   worst {max(times) * 1000:9.1f} ms",
          flush=True)
    return value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--keep", default=None, help="SQLite ledger file (built if missing)")
    ap.add_argument("--db", default=None, help="PostgreSQL URL (with --schema)")
    ap.add_argument("--schema", default=None)
    ap.add_argument("--rounds", type=int, default=10_000_000)
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--days", type=float, default=35.0)
    ap.add_argument("--month", default=None, help="YYYY-MM (default: the last whole month)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    build = ["--rounds", str(args.rounds), "--tables", str(args.tables), "--days",
             str(args.days), "--build-only"]
    if args.keep:
        build += ["--keep", args.keep]
    if args.db:
        build += ["--db", args.db] + (["--schema", args.schema] if args.schema else [])
    if not args.keep and not args.schema:
        ap.error("--keep FILE (SQLite) or --db URL --schema NAME: the ledger to build or reuse")
    print("the ledger (benchmarks/ledger_size.py " + " ".join(build) + "):", flush=True)
    t0 = time.perf_counter()
    code = ledger_size.main(build)
    if code:
        return code
    print(f"  ready in {time.perf_counter() - t0:.1f} s\n")
    with tempfile.TemporaryDirectory(prefix="month-") as tmp_name:
        tmp = Path(tmp_name)
        floor_file = tmp / "floor.toml"
        floor_sim.write_floor(floor_file, args.tables, 20000, certs=None)
        config = load_floor(floor_file)
        url = f"sqlite:///{Path(args.keep).resolve()}" if args.keep else args.db
        connect: dict[str, Any] | None = None
        if args.schema:  # the ledger_size schema, as the desk's search path
            connect = {"options": f"-csearch_path={args.schema}"}
        desk = open_desk("accountant", config, url, load_paytables(), connect_args=connect)
        casino = config.casino
        if args.month:
            y, m = (int(x) for x in args.month.split("-"))
        else:
            with desk.read() as s:
                from sqlalchemy import text

                last = s.execute(text("SELECT max(started_at) FROM rounds")).scalar()
            end = utc(last)
            local = end.astimezone(desk.tz)
            y, m = (local.year, local.month - 1) if local.month > 1 else (local.year - 1, 12)
        month = periods.month(casino, y, m)
        with desk.read() as s:
            from sqlalchemy import text

            n = s.execute(text("SELECT count(*) FROM rounds WHERE started_at >= :a AND "
                               "started_at < :b").bindparams(
                a=month.start.replace(tzinfo=None) if desk.engine.dialect.name == "sqlite"
                else month.start,
                b=month.end.replace(tzinfo=None) if desk.engine.dialect.name == "sqlite"
                else month.end)).scalar()
            total = s.execute(text("SELECT count(*) FROM rounds")).scalar()
        print(f"{month.label}: {month.start:%Y-%m-%d %H:%M} .. {month.end:%Y-%m-%d %H:%M} UTC; "
              f"{n:,} of the ledger's {total:,} rounds\n")
        r = args.repeat
        rec = measure("reconciliation of every level (month)",
                      lambda: reconcile.reconcile(desk, month), r)
        print(f"    {len(rec.levels)} levels; {rec.verdict[:100]}")
        for p in rec.problems[:5]:
            print(f"    PROBLEM {p}")
        drop = measure("drop against contributions per table", lambda: register.drop_by_table(
            desk, month), r)
        print(f"    {len(drop.tables)} tables, {sum(t.rounds for t in drop.tables):,} rounds")
        hits = measure("hits by level, the last 25 each", lambda: register.hits_by_level(
            desk, month), r)
        print(f"    {len(hits.levels)} levels/tray rows, "
              f"{sum(lv.hits for lv in hits.levels):,} hits paid")
        reg = measure("slip register", lambda: register.slip_register(desk, month), r)
        print(f"    {len(reg.lines):,} slips (the built ledger writes no slips)")
        measure("liability now (kept balances)", lambda: liability.liability(desk), r)
        measure("liability at the month's end", lambda: liability.liability(desk, month.end), r)
        report = sheets.reconciliation_report(desk, rec)
        measure("the month's reconciliation as XLSX", lambda: sheets.write_xlsx(
            report, desk, tmp / "rec.xlsx"), r)
        from printing.pages.accounting_page import write_pdf

        measure("the month's reconciliation as a PDF page", lambda: write_pdf(
            report, desk, tmp / "rec.pdf"), r)
        whole = measure("all of it: reconcile + drop + hits + slips + liability",
                        lambda: (reconcile.reconcile(desk, month),
                                 register.drop_by_table(desk, month),
                                 register.hits_by_level(desk, month),
                                 register.slip_register(desk, month),
                                 liability.liability(desk, month.end)), r)
        del whole
        desk.engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
