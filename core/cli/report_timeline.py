"""``podium report timeline --hit N`` and ``podium report flags --day YYYY-MM-DD``:
surveillance's view of a hit and the hits to look at (core/desks/surveillance/, docs/operator.md
"Surveillance")::

    podium report timeline --hit 1234 [--db URL] [--floor FILE] [--json]
    podium report flags --day 2026-12-02 [--shift Swing] [--table PG-1] [--all] [--json]
    podium report flags --from 2026-12-01 --to 2026-12-07 ...   (or --month 2026-11, or
        --start "2026-12-02 06:00" --end "2026-12-02 18:00", local times)

``--db`` is the ledger (default: :func:`core.ledger.db.floor_url`: the demo's with the demo
floor); it is only read, never created nor migrated. ``--floor`` is the floor file (default:
the embedded demo floor): the casino's time zone, the paytables of the tables, the executive
threshold and the ``[surveillance]`` settings. Text for people (times to the millisecond in the
casino's time zone), or with ``--json`` one document: money as decimal strings ("1234.56"),
times ISO-8601 with their offset. A refusal (an unknown hit, a bad date, a ledger that can not
be read) is one line on stderr and exit status 2."""

from __future__ import annotations

import argparse
import json

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from core.cli.dispatch import UsageError
from core.cli.options import whole_number
from core.desks.desk import Desk
from core.desks.surveillance.hits import STATUSES, hits_to_look_at
from core.desks.surveillance.records import HitLine, Timeline
from core.desks.surveillance.text import ms_text
from core.desks.surveillance.timeline import timeline
from core.kernel.money import format_cents
from core.kernel.text import hit_ref

MAX_HIT = 2**63 - 1


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    if name == "timeline":
        parser.add_argument("--hit", required=True, type=whole_number(1, MAX_HIT),
                            help="the hit's number (as the console and the win slip show it)")
    else:
        parser.add_argument("--day", default=None, help="a gaming day, YYYY-MM-DD")
        parser.add_argument("--shift", default=None, help="one shift of --day (its name in "
                            "the floor file, e.g. Swing)")
        parser.add_argument("--from", dest="first", default=None,
                            help="first gaming day, YYYY-MM-DD (with --to)")
        parser.add_argument("--to", dest="last", default=None, help="last gaming day")
        parser.add_argument("--month", default=None, help="the gaming days of a month, YYYY-MM")
        parser.add_argument("--start", default=None,
                            help="from a local time, \"YYYY-MM-DD HH:MM\" (with --end)")
        parser.add_argument("--end", default=None, help="to a local time (not included)")
        parser.add_argument("--table", default=None, help="only this table's hits")
        parser.add_argument("--status", default=None, choices=STATUSES,
                            help="only hits in this state")
        parser.add_argument("--all", action="store_true",
                            help="every hit of the period, flagged or not")
    parser.add_argument("--db", default=None,
                        help="ledger URL (default: the SQLite ledger in the user data folder: "
                             "demo.sqlite, the one make run made, with the demo floor; "
                             "ledger.sqlite3 with a floor file); e.g. "
                             "postgresql+psycopg://user@host/podium")
    parser.add_argument("--floor", default="demo",
                        help="floor file (TOML): time zone, paytables, thresholds and "
                             "[surveillance] settings; 'demo' (default) for the embedded demo")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def open_desk(url: str | None, floor: str) -> Desk:
    """A surveillance desk on the ledger at ``url`` (``core.desks.desk.open_desk``: read-only,
    never created nor migrated, at this Podium's revision) with the floor file ``floor``
    ('demo' for the embedded one)."""
    from core.desks import desk as desks
    from core.floorconfig import load_demo_floor, load_floor
    from core.ledger.db import floor_url
    from core.tablegames.rules.paytables import load_paytables

    config = load_demo_floor() if floor == "demo" else load_floor(floor)
    url = url or floor_url(floor, create=False)
    try:
        make_url(url)
    except ArgumentError:
        raise UsageError("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                         "postgresql+psycopg://user@host/podium)") from None
    try:
        return desks.open_desk("surveillance", config, url, dict(load_paytables()))
    except SQLAlchemyError as exc:
        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        where = make_url(url).render_as_string(hide_password=True)
        raise UsageError(f"ledger {where}: can not be read: "
                         f"{first}") from None
    except ImportError as exc:
        raise UsageError(f"--db: no driver: {exc}") from None


def _ledger_problem(desk: Desk, exc: SQLAlchemyError) -> UsageError:
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return UsageError(f"ledger {desk.engine.url.render_as_string(hide_password=True)}: can "
                      f"not be read: {first}")


def run(args: argparse.Namespace) -> int:
    desk = open_desk(args.db, args.floor)
    try:
        if args._command.endswith("timeline"):
            tl = timeline(desk, args.hit)
            if args.json:
                print(json.dumps(tl.as_json(), indent=2))
            else:
                print_timeline(tl)
            return 0
        from core.desks.accounting.periods import parse_period

        days = None
        if args.first is not None or args.last is not None:
            if args.first is None or args.last is None:
                raise UsageError("--from and --to: a range of gaming days needs both")
            days = (args.first, args.last)
        period = parse_period(desk.config.casino, day=args.day, days=days,
                              month_text=args.month, shift_name=args.shift, start=args.start,
                              end=args.end)
        lines = hits_to_look_at(desk, period, table=args.table, status=args.status,
                                flagged_only=not args.all)
        if args.json:
            print(json.dumps({"period": {"label": period.label,
                                         "start": period.start.isoformat(),
                                         "end": period.end.isoformat()},
                              "flagged_only": not args.all,
                              "hits": [ln.as_json() for ln in lines]}, indent=2))
        else:
            print_lines(period.label, lines, flagged_only=not args.all)
        return 0
    except SQLAlchemyError as exc:
        raise _ledger_problem(desk, exc) from None
    finally:
        desk.engine.dispose()


# --- text ---------------------------------------------------------------------------------------

def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return out


def _amount(cents: int | None) -> str:
    return format_cents(cents) if cents is not None else "-"


def print_timeline(tl: Timeline) -> None:
    from core.kernel.text import printable

    ln = tl.line
    print(f"Hit {hit_ref(ln.hit_id)}: table {ln.table} ({tl.table_name}) round {ln.round_no} seat "
          f"{ln.seat}, boot {tl.boot}; {ln.status.replace('_', '-')}; claimed "
          f"{ln.claimed_hand}; paid {_amount(ln.amount_cents)}"
          + (f" from the {tl.source}" + (f" {tl.level}" if tl.level else "")
             if tl.source else ""))
    print(f"times in {tl.timezone}; read {ms_text(tl.read_at.astimezone(ln.at.tzinfo))}")
    c = tl.cards
    print()
    print("Cards")
    print(f"  claimed:  {c.claimed}")
    print(f"  table:    {' '.join(c.table_cards) or '(none sent)'}"
          + (f"  -> {c.table_makes}" if c.table_makes else ""))
    if c.verified_cards:
        print(f"  verified: {' '.join(c.verified_cards)}  -> {c.verified_makes}")
    if c.paid_hand:
        print(f"  paid as:  {c.paid_hand}")
    if c.note:
        print(f"  note: {printable(c.note)}")
    print()
    print(f"Flags ({len(tl.flags)})")
    for f in tl.flags:
        print(f"  {f.code}: {printable(f.sentence)}")
    if not tl.flags:
        print("  none")
    print()
    rows: list[tuple[str, ...]] = [
        (e.time_text, e.source, e.what + (f" [{e.flag}]" if e.flag else ""),
         e.who.label() if e.who else "-", printable(e.detail)) for e in tl.events]
    for line in _table(rows, ("time", "source", "what", "who", "detail")):
        print(line)


def print_lines(label: str, lines: list[HitLine], *, flagged_only: bool) -> None:
    print(f"{label}: {len(lines)} hit(s){' flagged' if flagged_only else ''}")
    rows: list[tuple[str, ...]] = []
    for ln in lines:
        rows.append((ms_text(ln.at), hit_ref(ln.hit_id), ln.table, str(ln.seat),
                     ln.status.replace("_", "-"), ln.hand or "-", _amount(ln.amount_cents),
                     ", ".join(str(f.code) for f in ln.flags) or "-"))
    if rows:
        for line in _table(rows, ("time", "hit", "table", "seat", "status", "hand", "amount",
                                  "flags")):
            print(line)
