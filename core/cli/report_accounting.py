"""``podium report reconcile | liability | slips | hits | drop``: the accountant's reports
from the ledger (read-only), as text, JSON, CSV, XLSX or a PDF page.

    podium report reconcile --day 2026-12-02 [--shift Swing] [--format xlsx --out rec.xlsx]
    podium report reconcile --month 2026-11 --format pdf --out nov.pdf
    podium report liability [--at "2026-12-02 06:00"]
    podium report slips --from 2026-12-01 --to 2026-12-07 --format csv
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.cli.dispatch import UsageError
from core.kernel.text import printable

# printing.pages.accounting_page.write_pdf: the report as a PDF page at the path
WritePdf = Callable[[Any, Any, Path], object]

REPORTS = ("reconcile", "liability", "slips", "hits", "drop")
FORMATS = ("text", "json", "csv", "xlsx", "pdf")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--db", default=None,
                        help="ledger URL (default: the SQLite ledger in the user data folder: "
                             "demo.sqlite, the one make run / podium demo made, with the demo "
                             "floor; ledger.sqlite3 with a floor file)")
    parser.add_argument("--floor", default="demo",
                        help="floor configuration file (its casino time zone, gaming day and "
                             "shifts); 'demo' (default) for the embedded demo floor")
    if name == "liability":
        parser.add_argument("--at", default=None, metavar="'YYYY-MM-DD HH:MM'",
                            help="a local time on a whole hour of UTC (default: now)")
    else:
        parser.add_argument("--day", default=None, metavar="YYYY-MM-DD", help="a gaming day")
        parser.add_argument("--shift", default=None,
                            help="a shift of that gaming day (the floor file's shifts)")
        parser.add_argument("--from", dest="first", default=None, metavar="YYYY-MM-DD",
                            help="the first gaming day of a range (with --to)")
        parser.add_argument("--to", dest="last", default=None, metavar="YYYY-MM-DD",
                            help="the last gaming day of a range (with --from)")
        parser.add_argument("--month", default=None, metavar="YYYY-MM",
                            help="the gaming days of a calendar month")
        parser.add_argument("--start", default=None, metavar="'YYYY-MM-DD HH:MM'",
                            help="a local start time (with --end; whole hours of UTC)")
        parser.add_argument("--end", default=None, metavar="'YYYY-MM-DD HH:MM'",
                            help="a local end time (with --start)")
    parser.add_argument("--format", default="text", choices=FORMATS,
                        help="text (default), json, csv, xlsx (every sheet) or pdf (the "
                             "printed page)")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="write to FILE (needed for xlsx and pdf; text, json and csv go "
                             "to standard output without it)")
    parser.add_argument("--sheet", type=int, default=1,
                        help="for csv: which sheet of the report (1 = the first, default)")


def _desk(args: argparse.Namespace) -> Any:
    from core import floorconfig
    from core.desks.desk import open_desk
    from core.ledger.db import floor_url
    from core.tablegames.rules.paytables import load_paytables

    config = (floorconfig.load_demo_floor() if args.floor == "demo"
              else floorconfig.load_floor(args.floor))
    return open_desk("accountant", config, args.db or floor_url(args.floor, create=False),
                     load_paytables())


def _period(args: argparse.Namespace, casino: Any) -> Any:
    from core.desks.accounting.periods import parse_period

    if (args.first is None) != (args.last is None):
        raise UsageError("--from and --to go together")
    return parse_period(casino, day=args.day,
                        days=(args.first, args.last) if args.first else None,
                        month_text=args.month, shift_name=args.shift, start=args.start,
                        end=args.end)


def build(name: str, desk: Any, args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The report (sheets) and its JSON."""
    from core.desks.accounting import liability, periods, reconcile, register, sheets

    if name == "liability":
        at = None
        if args.at:
            p = periods.parse_period(desk.config.casino, start=args.at, end="2999-01-01 00:00")
            at = p.start
        li = liability.liability(desk, at)
        return sheets.liability_report(desk, li), li.to_json()
    period = _period(args, desk.config.casino)
    if name == "reconcile":
        rec = reconcile.reconcile(desk, period)
        return sheets.reconciliation_report(desk, rec), rec.to_json()
    if name == "slips":
        reg = register.slip_register(desk, period)
        return sheets.register_report(desk, reg), register.register_json(reg, desk)
    if name == "hits":
        hits = register.hits_by_level(desk, period)
        return sheets.hits_report(desk, hits), register.hits_json(hits, desk)
    drop = register.drop_by_table(desk, period)
    return sheets.drop_report(desk, drop), register.drop_json(drop)


def text_report(report: Any, desk: Any) -> str:
    from core.desks.accounting.cells import cell_text

    out = [report.name]
    out += [f"{k}: {v}" for k, v in report.meta(desk)]
    out += ["", *report.notes]
    money = desk.config.money  # the floor's currency, the casino's locale
    for sheet in report.sheets:
        rows = [list(sheet.header)] + [[cell_text(c, i in sheet.money, money)
                                        for i, c in enumerate(r)] for r in sheet.rows]
        widths = [max(len(r[i]) for r in rows) for i in range(len(sheet.header))]
        out += ["", sheet.title]
        for n, r in enumerate(rows):
            cells = [c.rjust(w) if (i in sheet.money or (n and isinstance(
                sheet.rows[n - 1][i], int))) else c.ljust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))]
            out.append("  ".join(cells).rstrip())
        if not sheet.rows:
            out.append("(none)")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    name = args.report_command
    if args.format in ("xlsx", "pdf") and not args.out:
        raise UsageError(f"--format {args.format} needs --out FILE")
    if args.out:
        try:
            args.out.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8: the PDF writer (Qt) would
            raise UsageError("--out: the file name is not valid UTF-8 (its bytes do not "
                             "decode); give a name of letters, digits and punctuation") from None
        parent = Path(args.out).expanduser().parent
        if not parent.is_dir():
            raise UsageError(f"--out {args.out}: the folder {parent} does not exist")
    desk = _desk(args)
    try:
        report, doc = build(name, desk, args)
        if args.format == "json":
            text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        elif args.format == "text":
            text = text_report(report, desk)
        elif args.format == "csv":
            from core.desks.accounting.sheets import csv_text

            if not 1 <= args.sheet <= len(report.sheets):
                raise UsageError(f"--sheet {args.sheet}: this report has sheets 1 to "
                                 f"{len(report.sheets)} "
                                 f"({', '.join(s.title for s in report.sheets)})")
            text = csv_text(report.sheets[args.sheet - 1])
        elif args.format == "xlsx":
            from core.desks.accounting.sheets import write_xlsx

            write_xlsx(report, desk, Path(args.out).expanduser())
            print(f"wrote {printable(args.out)}", file=sys.stderr)
            return _status(report)
        else:
            # a PDF page is printing's (Qt); the dispatcher, the command's app wiring, gives
            # its writer (core/cli/dispatch.py: wire)
            write_pdf: WritePdf = args.write_pdf
            write_pdf(report, desk, Path(args.out).expanduser())
            print(f"wrote {printable(args.out)}", file=sys.stderr)
            return _status(report)
        if args.out:
            Path(args.out).expanduser().write_text(text, encoding="utf-8", newline="")
            print(f"wrote {printable(args.out)}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return _status(report)
    finally:
        desk.engine.dispose()


def _status(report: Any) -> int:
    """0: the report is whole; 1: it names a difference (does not reconcile, a slip gap)."""
    return 1 if report.alarm else 0

