"""``podium report deadlines``: the poker room's regulatory deadlines from the ledger
(core/pokerroom/deadlines.py, docs/bbj.md "Room deadlines"), read-only::

    podium report deadlines [--db URL] [--floor FILE] [--at 'YYYY-MM-DD HH:MM'] [--json]

Each deadline: what, period, fund, due day (casino-local), status (``N days left``, ``due
today``, ``LATE by N days``, ``filed YYYY-MM-DD`` with LATE when it was), the reference and who
recorded the filing; under the list, a deadline two sources date (TGD-108: its form and the
guideline) with both days and why (``dues`` in the JSON).  Exit 0 with the list (an overdue
one does not change it: the list is the report); a refusal (an unreadable ledger or floor
file, a bad ``--at``) is one line on stderr and exit 2.  ``--floor`` gives the time zone, the
public holidays and ``[poker_room]``'s deadline keys (default: the embedded demo floor);
``--at`` a local time to look from (default now).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from core.cli.dispatch import UsageError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--db", default=None,
                        help="ledger URL (default: the SQLite ledger in the user data folder: "
                             "demo.sqlite with the demo floor, ledger.sqlite3 with a floor "
                             "file); only read, never created or migrated")
    parser.add_argument("--floor", default="demo",
                        help="floor configuration file (its time zone, public holidays and "
                             "[poker_room] deadline keys); 'demo' (default) for the embedded "
                             "demo floor")
    parser.add_argument("--at", default=None, metavar="'YYYY-MM-DD HH:MM'",
                        help="the casino-local time to look from (default: now)")
    parser.add_argument("--json", action="store_true", help="JSON instead of text")


def _at(text: str | None, tz: ZoneInfo) -> datetime:
    if text is None:
        return datetime.now(UTC)
    try:
        local = datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        raise UsageError(f"--at: {text!r} is not a local time 'YYYY-MM-DD HH:MM'") from None
    return local.replace(tzinfo=tz).astimezone(UTC)


def _config(floor: str) -> Any:
    from core import floorconfig

    try:
        return (floorconfig.load_demo_floor() if floor == "demo"
                else floorconfig.load_floor(floor))
    except floorconfig.FloorConfigError:
        raise
    except (OSError, ValueError) as exc:
        raise UsageError(f"--floor: {floor[:200]}: can not be read "
                         f"({getattr(exc, 'strerror', None) or exc})") from None


def text_report(deadlines: list[Any], tz: ZoneInfo, at: datetime) -> str:
    out = [f"Poker room deadlines at {at.astimezone(tz):%Y-%m-%d %H:%M} ({tz.key})"]
    head = ["what", "period", "fund", "due", "status", "reference", "who"]
    rows = [[d.what, d.period, d.fund_id or "-", d.due_on.isoformat(), d.status(tz),
             (d.reference or "-") if d.filing else "", d.who] for d in deadlines]
    if not rows:
        return "\n".join([*out, "(none: nothing to report yet)"]) + "\n"
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    for d in deadlines:  # where two sources give a due day: both, and which one counts
        if len(d.dues) > 1:
            both = " and ".join(f"{day.isoformat()} ({why})" for why, day in d.dues)
            out.append(f"{d.what} {d.period}: due {d.due_on.isoformat()}, the earlier of "
                       f"{both}")
    overdue = sum(1 for d in deadlines if d.overdue)
    if overdue:
        out.append(f"{overdue} overdue")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from core.cli.ledger_open import open_for_reading, read_problem
    from core.ledger.db import floor_url
    from core.pokerroom import deadlines

    config = _config(str(args.floor))
    casino = config.casino
    tz = ZoneInfo(casino.timezone)
    at = _at(args.at, tz)
    url = args.db or floor_url(str(args.floor), create=False)
    engine = open_for_reading(url)
    try:
        found = deadlines.room_deadlines(engine, at, tz, casino.public_holidays,
                                        config.poker_room.calendar)
    except SQLAlchemyError as exc:
        raise UsageError(read_problem(url, exc)) from None
    finally:
        engine.dispose()
    if args.json:
        doc = {"at": at.isoformat(), "timezone": tz.key,
               "deadlines": [d.to_json(tz) for d in found],
               "overdue": sum(1 for d in found if d.overdue)}
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text_report(found, tz, at))
    return 0
