"""``podium audit verify [--db URL] [--json]``: re-read the whole ledger, re-check its hash
chain, its meters, its pays and its slips (core/ledger/audit.py), and print the chain head.

Exit status: 0 the ledger is as Podium wrote it; 1 a break was found (the first is named);
2 the ledger could not be read (bad URL, unreachable, not a Podium ledger of revision 0014+).
The ledger is only read: never migrated, never locked for writing.
"""

from __future__ import annotations

import argparse
import json

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from core.cli.dispatch import UsageError
from core.ledger.audit import parse_head, verify
from core.ledger.audit_report import Report
from core.ledger.db import default_url, make_engine, sqlite_file


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    sub = parser.add_subparsers(dest="audit_command", required=True,
                                parser_class=type(parser), metavar="COMMAND")
    p = sub.add_parser("verify", help="re-check the whole ledger; exit 1 on any break",
                       description="re-check the hash chain, the meters, the pays and the "
                                   "slips of the whole ledger; exit 1 naming the first break")
    p.add_argument("--db", default=None,
                   help="ledger URL (default: the console's SQLite ledger in the user data "
                        "folder); e.g. postgresql+psycopg://auditor@host/podium")
    p.add_argument("--head", action="append", default=[], metavar="ROW:HASH",
                   help="a chain head kept outside the casino (printed on a win page or daily "
                        "report as 'ledger chain row N, hash H'); repeatable")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _head(text_: str) -> tuple[int, str]:
    try:
        return parse_head(text_)
    except ValueError:
        raise UsageError(f"--head {text_!r}: expected ROW:HASH, e.g. 1234:<64 hex digits>") \
            from None


def run(args: argparse.Namespace) -> int:
    args._command = f"audit {args.audit_command}"
    heads = [_head(h) for h in args.head]
    url = args.db or default_url(create=False)
    try:
        _require_file(url)
        engine = make_engine(url)
    except ArgumentError:
        raise UsageError("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                         "postgresql+psycopg://user@host/podium)") from None
    try:
        _require_chain(engine)
        report = verify(engine, heads)
    except SQLAlchemyError as exc:
        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        raise UsageError(f"ledger {engine.url.render_as_string(hide_password=True)}: can not "
                         f"be read: {first}") from None
    finally:
        engine.dispose()
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        _print(report)
    return 0 if report.ok else 1


def _require_file(url: str) -> None:
    """A verify never creates a ledger: a SQLite file that is not there (a typo in --db) is
    refused by name before SQLite would make an empty one."""
    if make_url(url).get_backend_name() != "sqlite":
        return
    path = sqlite_file(url)
    if path is None:
        raise UsageError("--db: an in-memory SQLite database has no ledger to verify")
    try:
        found = path.is_file()
    except (OSError, ValueError):  # a name too long for the system, a NUL in it
        found = False
    if not found:
        raise UsageError(f"no ledger at {path}: check --db (a verify never creates one)")


def _require_chain(engine: Engine) -> None:
    names = set(inspect(engine).get_table_names())
    if "ledger_chain" not in names:
        revision = "none"
        if "alembic_version" in names:
            with engine.connect() as conn:
                revision = str(conn.execute(text("SELECT version_num FROM alembic_version"))
                               .scalar())
        raise UsageError(f"this ledger has no hash chain (revision {revision}; the chain "
                         "starts at revision 0014): start the console on it once to upgrade")


def _print(report: Report) -> None:
    rows = sum(report.tables.values())
    print(f"chain head: row {report.head_n:,} hash {report.head_hash}")
    print(f"{report.rows:,} chain rows; {rows:,} ledger rows in {len(report.tables)} tables")
    first = report.first()
    if first is None:
        print("ledger verified: chain, rows, meters, pays and slips are as Podium wrote them")
        return
    print(f"LEDGER BROKEN: {len(report.breaks)} break(s); the first:")
    print(f"  {first.line()}")
    others = [b for b in report.breaks if b is not first]
    for b in others[:50]:
        print(f"  {b.line()}")
    if len(others) > 50:
        print(f"  ... and {len(others) - 50} more (--json lists them all)")
