"""``podium forms daily|award|quarterly|cessation|implementation|forfeiture ... --pdf OUT.pdf |
--png OUT.png``: the regulator's poker-room forms filled from the ledger
(printing/pages/ledger_forms/), for accountants'
scripts (docs/forms.md "From the ledger")::

    podium forms daily --fund bbj --date 2026-11-30 [--offsite] --pdf tgd-1623.pdf
    podium forms award --case 3 --pdf tgd-1500.pdf
    podium forms quarterly --year 2026 --quarter 4 [--offsite] --pdf tgd-108.pdf
    podium forms cessation --fund bbj [--to bbj2 --effective 2027-01-15] --png tgd-1540.png
    podium forms implementation --fund bbj --effective 2026-12-14 \
        [--filed '2026-12-01 14:30'] --pdf tgd-1581.pdf
    podium forms forfeiture --fund bbj --pdf forfeiture.pdf

``--db`` is the ledger (default: :func:`core.ledger.db.floor_url`: the demo's with the demo
floor); it is only read: never created nor migrated (a ledger at another schema revision is
refused: open it once with the console).  ``--floor`` is the floor file giving the casino's
name, the operator, the time zone, the public holidays and the ``[poker_room]`` rules and
location (default: the embedded demo floor).  On success the
written path is printed; a refusal is one line ``podium forms: <message>`` on stderr and exit
status 2.

core/cli/dispatch.py dispatches here (``add_arguments(parser, name)`` / ``run(args)``);
:func:`main` runs the command on its own (tests, ``python -m printing.pages.forms_command``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from sqlalchemy.exc import SQLAlchemyError

from core.cli.ledger_open import open_for_reading, read_problem, short
from core.kernel.money import MoneyError, parse_count

if TYPE_CHECKING:  # the ledger and Qt are imported only when a form is written
    from printing.pages.ledger_forms import FormRequest

NAME_MAX = 255  # bytes of one file or folder name (Linux, macOS, Windows)
PATH_MAX = 4096


class FormError(ValueError):
    """Bad command-line input or an unreadable ledger (the forms' own refusals are
    :class:`printing.pages.forms.FormError`); the message names the option and the problem."""


KINDS: dict[str, str] = {
    "daily": "TGD-1623 (onsite) / TGD-1494 (offsite) daily report of a fund's gaming day",
    "award": "TGD-1500 awarding request of an approved Bad Beat Jackpot case",
    "quarterly": "TGD-108 quarterly tax compliance report",
    "cessation": "TGD-1540 transfer / cessation of a fund (part 1 of a planned transfer with "
                 "--to and --effective)",
    "implementation": "TGD-1581 Bad Beat Jackpot implementation request and approval (Annex A) "
                      "of a fund for an effective date",
    "forfeiture": "report of a fund forfeited in favour of PAGCOR on the closure of the poker "
                  "room",
}


def _day(value: str, what: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise FormError(f"{what}: {value!r} is not a date YYYY-MM-DD") from None


def _moment(value: str, what: str) -> datetime:
    """``YYYY-MM-DD HH:MM``, naive: the casino's local time (its zone is the floor file's,
    given once the floor is read)."""
    try:
        at = datetime.strptime(" ".join(value.split()), "%Y-%m-%d %H:%M")
    except ValueError:
        raise FormError(f"{what}: {value!r} is not a date and time 'YYYY-MM-DD HH:MM' (the "
                        "casino's local time)") from None
    return at


MAX_CASE = 2**63 - 1  # a ledger row id (a 64-bit integer column)


def _whole(value: str, what: str, low: int, high: int) -> int:
    try:
        return parse_count(value, what, low=low, high=high)
    except MoneyError as exc:
        raise FormError(str(exc)) from None


def _output(path: str, what: str) -> Path:
    """Where the form goes, checked before the ledger is opened (a refusal writes nothing)."""
    if not path.strip():
        raise FormError(f"{what}: an empty file name")
    if "\0" in path:
        raise FormError(f"{what}: a file name with a NUL character")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8: Qt would write another name
        raise FormError(f"{what}: the file name is not valid UTF-8 (its bytes do not decode); "
                        "give a name of letters, digits and punctuation") from None
    out = Path(path)
    long = next((part for part in out.parts if len(part.encode("utf-8", "surrogatepass"))
                 > NAME_MAX), None)
    if long is not None:
        raise FormError(f"{what}: the name {long[:40]!r}... is longer than {NAME_MAX} bytes")
    if len(path.encode("utf-8", "surrogatepass")) > PATH_MAX:
        raise FormError(f"{what}: the path is longer than {PATH_MAX} bytes")
    try:
        if out.is_dir():
            raise FormError(f"{what}: {path} is a folder; give a file name")
        if not out.parent.is_dir():
            raise FormError(f"{what}: the folder {out.parent} does not exist")
    except OSError as exc:
        raise FormError(f"{what}: {path}: {exc.strerror or exc}") from None
    return out


def add_arguments(parser: argparse.ArgumentParser, name: str = "forms") -> None:
    """The ``forms`` subcommands (core/cli/dispatch.py calls it with the ``forms`` parser)."""
    sub = parser.add_subparsers(dest="form_kind", required=True, parser_class=type(parser),
                                metavar="KIND")
    for kind, helptext in KINDS.items():
        p = sub.add_parser(kind, help=helptext, description=helptext)
        if kind in ("daily", "cessation", "implementation", "forfeiture"):
            p.add_argument("--fund", required=True, help="the fund's id, e.g. bbj")
        if kind == "daily":
            p.add_argument("--date", required=True, help="the gaming day, YYYY-MM-DD")
            p.add_argument("--offsite", action="store_true",
                           help="TGD-1494 (offsite, no remittance) instead of TGD-1623")
        if kind == "quarterly":
            p.add_argument("--offsite", action="store_true",
                           help="an offsite poker club (the box ticked on TGD-108)")
        if kind == "implementation":
            p.add_argument("--effective", required=True,
                           help="the requested implementation (effective) date, YYYY-MM-DD")
            p.add_argument("--filed", default=None, metavar="'YYYY-MM-DD HH:MM'",
                           help="when the request is submitted (casino time): printed as on "
                                "time or LATE")
        if kind == "award":
            p.add_argument("--case", required=True, help="the case number")
        if kind == "quarterly":
            p.add_argument("--year", required=True, help="e.g. 2026")
            p.add_argument("--quarter", required=True, help="1, 2, 3 or 4")
        if kind == "cessation":
            p.add_argument("--to", default=None,
                           help="a fund still open: the fund it is to be transferred to")
            p.add_argument("--effective", default=None,
                           help="a fund still open: the planned effective date, YYYY-MM-DD")
        out = p.add_mutually_exclusive_group(required=True)
        out.add_argument("--pdf", metavar="OUT.pdf", help="write the form as a PDF")
        out.add_argument("--png", metavar="OUT.png", help="write the form as a PNG image")
        p.add_argument("--page-size", default="A4", choices=("A4", "Letter"),
                       help="paper size (default A4)")
        p.add_argument("--db", default=None,
                       help="ledger URL (default: the SQLite ledger in the user data folder: "
                            "demo.sqlite, the one make run made, with the demo floor; "
                            "ledger.sqlite3 with a floor file); e.g. "
                            "postgresql+psycopg://user@host/podium")
        p.add_argument("--floor", default="demo",
                       help="floor file (TOML) with the casino's name, operator, time zone and "
                            "public holidays; 'demo' (default) for the embedded demo floor")


def _request(args: argparse.Namespace) -> FormRequest:
    from printing.pages.ledger_forms import FormRequest

    kind = str(args.form_kind)
    if kind == "implementation":
        return FormRequest("implementation", fund_id=args.fund,
                           effective_on=_day(args.effective, "--effective"),
                           filed_at=None if args.filed is None
                           else _moment(args.filed, "--filed"))
    if kind == "daily":
        return FormRequest("daily", fund_id=args.fund, business_date=_day(args.date, "--date"),
                           onsite=not args.offsite)
    if kind == "award":
        return FormRequest("award", case_id=_whole(args.case, "--case", 1, MAX_CASE))
    if kind == "quarterly":
        return FormRequest("quarterly", year=_whole(args.year, "--year", 1, 9999),
                           quarter=_whole(args.quarter, "--quarter", 0, 99),
                           onsite=not args.offsite)
    if kind == "forfeiture":
        return FormRequest("forfeiture", fund_id=args.fund)
    if (args.to is None) != (args.effective is None):
        raise FormError("--to and --effective: a planned transfer needs both")
    return FormRequest("cessation", fund_id=args.fund, to_fund_id=args.to,
                       effective_on=None if args.effective is None
                       else _day(args.effective, "--effective"))


def _write(args: argparse.Namespace) -> Path:
    from core import floorconfig
    from core.ledger.db import floor_url
    from printing.pages.ledger_forms import render
    from printing.pages.winpage import render_png, write_pdf

    request = _request(args)
    option, target = ("--pdf", args.pdf) if args.pdf is not None else ("--png", args.png)
    out = _output(str(target), option)
    try:
        config = (floorconfig.load_demo_floor() if args.floor == "demo"
                  else floorconfig.load_floor(args.floor))
    except (OSError, ValueError) as exc:  # a name too long, a NUL: unreadable as a floor
        if isinstance(exc, floorconfig.FloorConfigError):
            raise
        raise FormError(f"--floor: {short(args.floor)}: can not be read "
                        f"({getattr(exc, 'strerror', None) or exc})") from None
    except RecursionError:  # tomllib on arrays nested thousands deep
        raise FormError(f"--floor: {short(args.floor)}: not valid TOML (nested too "
                        "deeply)") from None
    casino = config.casino
    tz = ZoneInfo(casino.timezone)
    if request.filed_at is not None:  # --filed is the casino's local time
        request = replace(request, filed_at=request.filed_at.replace(tzinfo=tz))
    url = args.db or floor_url(str(args.floor), create=False)
    engine = open_for_reading(url)
    try:
        form = render(engine, request, casino=casino.name, operator=casino.operator_name,
                      tz=tz, holidays=casino.public_holidays, poker_room=config.poker_room,
                      money=config.fund_money, day_starts=casino.gaming_day_starts)
    except SQLAlchemyError as exc:
        raise FormError(read_problem(url, exc)) from None
    finally:
        engine.dispose()
    try:
        if option == "--pdf":
            return write_pdf(form.html, out, page_size=args.page_size, title=form.title)
        return render_png(form.html, out, page_size=args.page_size)
    except OSError as exc:
        raise FormError(f"{option}: {out}: can not be written ({exc.strerror or exc})") from None


def run(args: argparse.Namespace) -> int:
    """Write the form; 0 and the path on stdout, or 2 and one line on stderr."""
    args._command = "forms"  # core.cli's error lines: "podium forms: ..."
    try:
        out = _write(args)
    except ValueError as exc:  # FormError, FloorConfigError, WinPageError: each names it
        from core.kernel.text import printable  # what was typed may come back in the message

        print(f"podium forms: {printable(str(exc))}", file=sys.stderr)
        return 2
    print(out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``podium forms ...`` on its own (argv without the leading ``forms``)."""
    from core.cli.dispatch import OneLineParser

    parser = OneLineParser(prog="podium forms", description="the regulator's poker-room forms "
                     "from the ledger, as PDF or PNG")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
