"""The ``podium`` command line.

``podium rules ...`` is the rules contract of CLI.md (JSON in and out);
``podium simulate`` runs simulated table controllers; ``podium console`` and
``podium demo`` start the Qt console (imported only then: core never needs Qt).

The parser is built from the tables of names and one-line helps below; a command's module is
imported only when that command runs (or shows its ``--help``), so a command pays only for what it
uses: ``podium rules classify`` starts without the ledger, SQLAlchemy, numpy or Qt.

Every command reports bad input as one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast


class UsageError(Exception):
    """Bad input from the command line; the message names the field and the problem."""


# Each subcommand lives in the module that owns its rules; this module only dispatches.
# name -> (module, help); the module provides add_arguments(parser, name) and run(args) -> int,
# and is imported only when its subcommand runs (or shows its --help).
COMMANDS_RULES: dict[str, tuple[str, str]] = {
    "classify": ("core.cli.classify_command", "best Fortune hand of 7 cards"),
    "paytables": ("core.cli.rules_commands", "list every paytable the installation knows"),
    "meter": ("core.cli.meter_command", "replay rounds through the progressive meter arithmetic"),
    "edge": ("core.cli.edge_command", "exact return and house edge of a paytable"),
    "meter-risk": ("core.cli.meter_risk_command", "simulate a progressive's meters over many "
                   "rounds: distribution, hits, running dry"),
    "slot": ("core.cli.slot_command", "what one gaming-machine screen pays (line, "
             "scatter, free games, held reels)"),
    "bbj": ("core.cli.bbj_command", "decide a poker Bad Beat Jackpot claim and its shares"),
}
# ``podium report <name>``: the accountant's and surveillance's reports (read-only).
COMMANDS_REPORT: dict[str, tuple[str, str]] = {
    "reconcile": ("core.cli.report_accounting", "the table progressives' reconciliation of a "
                  "gaming day, shift, month or range: every level, adding up or naming the "
                  "difference"),
    "liability": ("core.cli.report_accounting", "every meter, reserve and amount held at hit, "
                  "at a moment"),
    "slips": ("core.cli.report_accounting", "the slip register: every slip number in order, "
              "paid, void or reprinted, with who"),
    "hits": ("core.cli.report_accounting", "jackpot hits by level, with the last 25 of each"),
    "drop": ("core.cli.report_accounting", "progressive drop against contributions, per table"),
    "timeline": ("core.cli.report_timeline", "surveillance: one hit's timeline and flags"),
    "flags": ("core.cli.report_timeline", "surveillance: the flagged hits of a period"),
    "deadlines": ("core.cli.report_deadlines", "the poker room's regulatory deadlines (BIR "
                  "remittance, TGD-108, TGD-1540, notice to players, bank statement) and "
                  "their filings"),
}
COMMANDS_TOP: dict[str, tuple[str, str]] = {
    "simulate": ("core.cli.simulate_command", "run simulated table controllers"),
    "certs": ("core.cli.certs_command", "a test CA and the controller link's TLS certificates "
              "(one per table, one per console)"),
    "serve": ("core.cli.serve_command", "the floor service: serve the controller links of "
              "a pit or the whole floor on a shared PostgreSQL ledger, headless"),
    "services": ("core.cli.serve_command", "the floor services on a shared ledger and the "
                 "tables each serves"),
    "demo-floor": ("core.cli.demo_floor_command", "one floor, two podiums on the local "
                   "PostgreSQL: simulated tables, a floor service and the consoles of pits A "
                   "and B"),
    "console": ("gui.app", "start the supervisor console"),
    "demo": ("gui.app", "start the console on the embedded demo floor"),
    "display": ("gui.desks.signage", "full-screen room display of a group's live meters or a Bad "
                "Beat Jackpot, read from the ledger (read-only)"),
    "employees": ("core.cli.employees_command", "enroll employees and their cards, list, "
                  "deactivate, check or replace a card"),
    "floor": ("core.cli.floor_command", "a floor file's changes of what decides pays and "
              "contributions; an executive approves them (card and PIN) before they take effect"),
    "audit": ("core.cli.audit_command", "re-check the ledger's hash chain, meters, pays and "
              "slips (audit verify)"),
    "forms": ("printing.pages.forms_command", "the regulator's poker-room forms (TGD-1494/1623, "
              "1500, 108, 1540) from the ledger as PDF or PNG"),
}


# The commands that build a floor in this process (its pays make win slips).
FLOOR_COMMANDS = frozenset({"core.cli.serve_command"})


def wire(args: argparse.Namespace) -> None:
    """The app wiring of the ``podium`` command: what a core command needs from ``printing``
    given to it, imported only for the commands that need it.  The one place core imports
    printing, allowed by name in the import-linter contract (pyproject.toml;
    docs/architecture.md "Layers"):

    - a command that builds a floor: win slips as ESC/POS bytes (``args.paper``, the floor's
      ``paper=``);
    - ``podium report ... --format pdf``: the report's page writer (``args.write_pdf``).

    A command that is printing's own (``podium forms``) is registered by module name in the
    tables above and imports what it needs itself."""
    if args._module in FLOOR_COMMANDS:
        from printing.escpos.slip import PAPER

        args.paper = PAPER
    if args._module == "core.cli.report_accounting" and getattr(args, "format", "") == "pdf":
        from printing.pages.accounting_page import write_pdf

        args.write_pdf = write_pdf


def refuse(command: str, message: str) -> int:
    """Print a refusal the way every command does: one line on stderr, through the sanitizer
    (what was typed may come back in ``message``: an escape sequence or a line break in an
    argument must not reach the terminal), and return exit status 2."""
    from core.kernel.text import printable

    print(f"{printable(command)}: {printable(message)}", file=sys.stderr)
    return 2


class OneLineParser(argparse.ArgumentParser):
    """argparse whose refusals are one sanitized line and exit status 2 (not its usage and
    the argument echoed raw): every parser of the ``podium`` command, the Qt commands' and
    ``podium forms`` alone included."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise SystemExit(refuse(self.prog, message))


_Parser = OneLineParser


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[_Parser]
else:
    _SubParsers = argparse._SubParsersAction


class _LazySubcommands(_SubParsers):
    """Subcommands whose options are added only when one is chosen.

    Building the parser imports no command module: each subcommand starts with its name, help
    and defaults from the tables above, and the chosen one's module is imported (to add its
    options) just before argparse parses the rest of the line with it.  So ``podium rules
    classify`` never imports the ledger, SQLAlchemy or Qt, and ``podium --help`` lists every
    command from the tables alone.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, str] = {}  # subcommand name -> its module, not yet imported

    def add_command(self, name: str, module: str, helptext: str, prefix: str) -> None:
        p = self.add_parser(name, help=helptext, description=helptext)
        p.set_defaults(_module=module, _command=f"{prefix}{name}")
        self.pending[name] = module

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        name = values[0] if values else None
        module = self.pending.pop(name, None) if isinstance(name, str) else None
        if isinstance(name, str) and module is not None:
            adder: Callable[[argparse.ArgumentParser, str], None] = \
                importlib.import_module(module).add_arguments
            adder(self._name_parser_map[name], name)
        super().__call__(parser, namespace, values, option_string)


def _subcommands(parser: argparse.ArgumentParser, dest: str) -> _LazySubcommands:
    return cast(_LazySubcommands, parser.add_subparsers(
        dest=dest, required=True, parser_class=_Parser, action=_LazySubcommands))


def build_parser() -> _Parser:
    """The whole ``podium`` parser, importing no command module (see
    :class:`_LazySubcommands`)."""
    parser = _Parser(prog="podium", description="Podium: casino pit podium console")
    sub = _subcommands(parser, "command")
    rules = sub.add_parser("rules", help="the rules core, JSON in and out (CLI.md)")
    rsub = _subcommands(rules, "rules_command")
    for name, (module, helptext) in COMMANDS_RULES.items():
        rsub.add_command(name, module, helptext, "rules ")
    if COMMANDS_REPORT:
        report = sub.add_parser("report", help="the accountant's and surveillance's reports "
                                "from the ledger (read-only)")
        repsub = _subcommands(report, "report_command")
        for name, (module, helptext) in COMMANDS_REPORT.items():
            repsub.add_command(name, module, helptext, "report ")
    for name, (module, helptext) in COMMANDS_TOP.items():
        if module.startswith("gui."):
            # Do not import Qt to build the parser: the console parses its own options.
            p = sub.add_parser(name, help=helptext, description=helptext, add_help=False)
            p.set_defaults(_module=module, _command=name, _passthrough=True)
        else:
            sub.add_command(name, module, helptext, "")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "_passthrough", False):
        args.rest = extra  # the console parses its own options (and --help)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    wire(args)
    mod = importlib.import_module(args._module)
    runner: Callable[[argparse.Namespace], int] = mod.run
    try:
        return runner(args)
    except (UsageError, ValueError) as exc:  # CardError, MoneyError ... all name the problem
        return refuse(f"podium {args._command}", str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `podium ... | head`: the reader left; not an error of ours
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # a path the command was given: too long, a folder, no permission
        name = exc.filename if isinstance(exc.filename, str) else ""
        if len(name) > 255:
            name = f"{name[:60]}... ({len(name):,} characters)"
        what = f"{name}: " if name else ""
        return refuse(f"podium {args._command}", f"{what}{exc.strerror or exc.__class__.__name__}")
    except RecursionError:  # an input nested thousands deep that no reader caught first
        return refuse(f"podium {args._command}", "the input is nested too deeply")
    except MemoryError:
        return refuse(f"podium {args._command}", "the input needs more memory than there is; "
                      "ask for less")
    except OverflowError:  # a date or number past what Python holds that no reader caught
        return refuse(f"podium {args._command}", "a date or number given is out of range")
    except Exception as exc:
        problem = _database_problem(exc)
        if problem is None:
            raise
        return refuse(f"podium {args._command}", problem)


def _database_problem(exc: Exception) -> str | None:
    """The one line for a database error no command caught first (a malformed --db URL, a
    server that does not answer), or None when ``exc`` is not one.  SQLAlchemy is imported
    only if a command already did."""
    sa = sys.modules.get("sqlalchemy.exc")
    if sa is None or not isinstance(exc, sa.SQLAlchemyError):
        return None
    if isinstance(exc, sa.ArgumentError):
        return ("--db: not a database URL (e.g. sqlite:///ledger.sqlite3 or "
                "postgresql+psycopg://user@host/podium)")
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"the ledger can not be read: {first}"


if __name__ == "__main__":
    sys.exit(main())
