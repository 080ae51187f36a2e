"""``podium employees``: enroll the people who swipe, and every change of their cards and PINs.

This module is the command: its parser (every subcommand's options) and which step each
subcommand runs.  The steps and the ledger operations behind them are in core/cli/employees/,
one module per family of subcommands (enrollment: add, list, check; cards: deactivate,
reactivate, replace-card, unlock; pins: set-pin, reset-pin; contribution:
approve-contribution), with what they share (an executive's approval, the terminal, the
ledger).

The card is never typed on the command line (it would land in the shell history): a swipe is
read from stdin, without echo when stdin is a terminal and plainly from a pipe (scripted
enrollment).  **An executive approves** every enrollment, card replacement, PIN reset,
deactivation and reactivation, and a contribution rate above the pre-configured one: their
swipe and PIN, read after the subject's swipe, checked by the card gate; the first executive of
a ledger without an active one is enrolled with ``add --bootstrap``.

--db defaults to the ledger the console uses (:func:`core.ledger.db.default_url`); the schema is
brought up to date first, as the console does.  Bad input raises a ``ValueError`` subclass
(:class:`EmployeeError`, :class:`core.people.auth.AuthError`) that ``core.cli.dispatch`` turns into
one line on stderr and exit status 2; so does a ledger that cannot be opened (its URL shown
without the password).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from core.cli.employees import cards, contribution, enrollment, pins
from core.cli.employees.ledger import guarded, ledger
from core.cli.employees.records import EmployeeError
from core.cli.employees.terminal import quiet_logs
from core.floorconfig import Authorization, FloorConfigError, load_floor
from core.ledger.models import ROLES, Setting
from core.people import cardkey
from core.people.auth import CARD_KEY_ID, default_policy
from core.people.cardkey import CardKey, CardKeyError

SUBCOMMANDS: dict[str, str] = {
    "add": "enroll an employee and the card they swipe (read from stdin, never echoed)",
    "list": "list the enrolled employees (never card data)",
    "deactivate": "stop an employee's card from authorizing anything",
    "reactivate": "let a deactivated employee's card authorize again",
    "check": "swipe a card: who it is and what they may authorize (logged as a check)",
    "replace-card": "give an employee a new card (a lost or broken one): the old card stops "
                    "authorizing at once",
    "set-pin": "set an employee's PIN (swipe their card, then type the new PIN twice)",
    "reset-pin": "clear a forgotten PIN (the employee then sets a new one with set-pin)",
    "unlock": "lift the lock of a card locked after too many refused swipes (an executive's "
              "card and PIN)",
    "approve-contribution": "an executive approves a contribution rate above the paytable's "
                            "pre-configured rate for one level of a group (RULES.md 4)",
}

Step = Callable[[argparse.Namespace, Engine, CardKey, Authorization], int]

#: The step each subcommand runs on an open ledger with its card key (``add`` and ``list``:
#: :func:`run`, which opens the ledger and the key their own way).
STEPS: dict[str, Step] = {
    "deactivate": cards.run_active,
    "reactivate": cards.run_active,
    "check": enrollment.run_check,
    "replace-card": cards.run_replace_card,
    "set-pin": pins.run_set_pin,
    "reset-pin": pins.run_reset_pin,
    "unlock": cards.run_unlock,
    "approve-contribution": contribution.run_approve_contribution,
}


class _RefuseStray(argparse.Action):
    """Words after the command that it does not take are refused WITHOUT repeating them
    (argparse's "unrecognized arguments" line would: ``employees check 6011...`` would print
    the card number)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values:
            parser.error(f"{len(values)} unexpected argument(s), not shown (one could be a "
                         "card number): a card is swiped when asked (or piped to stdin), never "
                         "typed on the command line")


class _RefuseCardNumber(argparse.Action):
    """``--card-number`` is refused with a reason, and without echoing the number (argparse's
    own "unrecognized arguments" line would repeat it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error("--card-number is not offered: a card number typed on a command line lands "
                     "in the shell history; swipe the card when asked (or pipe the track data "
                     "to stdin)")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    sub = parser.add_subparsers(dest="employees_command", required=True,
                                parser_class=type(parser), metavar="COMMAND")
    for cmd, helptext in SUBCOMMANDS.items():
        p = sub.add_parser(cmd, help=helptext, description=helptext)
        if cmd in ("add", "deactivate", "reactivate", "replace-card", "set-pin", "reset-pin"):
            p.add_argument("--number", required=True, help="employee number")
        if cmd in ("deactivate", "reactivate", "replace-card", "reset-pin", "unlock",
                   "approve-contribution"):
            p.add_argument("--reason", required=True,
                           help='why (kept in the ledger), e.g. "left the company"')
        if cmd == "approve-contribution":
            p.add_argument("--group", required=True, help="the group's id in the floor file")
            p.add_argument("--level", required=True, help="the level's name, e.g. MAIN")
            p.add_argument("--rate", required=True,
                           help="the contribution rate approved, as in the floor file, e.g. "
                                "0.25")
        if cmd == "unlock":
            which = p.add_mutually_exclusive_group(required=True)
            which.add_argument("--number", help="the employee whose card is locked")
            which.add_argument("--card", action="store_true",
                               help="swipe the locked card itself (e.g. an unknown card)")
        if cmd == "add":
            p.add_argument("--name", required=True, help='full name, e.g. "Dana Reyes"')
            p.add_argument("--role", required=True, choices=ROLES,
                           help="supervisor or executive (may authorize pays); surveillance or "
                                "accountant (may not)")
            p.add_argument("--same-name-ok", action="store_true",
                           help="enroll although an active employee of the same name and role "
                                "exists (another person of the same name)")
            p.add_argument("--bootstrap", action="store_true",
                           help="enroll the FIRST executive of a ledger that has no active "
                                "executive, without an executive's approval (recorded as the "
                                "bootstrap); every other enrollment needs an executive's card "
                                "and PIN")
        if cmd in ("add", "check", "replace-card"):
            p.add_argument("--card-number", nargs="?", action=_RefuseCardNumber,
                           help=argparse.SUPPRESS)
        if cmd == "list":
            p.add_argument("--json", action="store_true", help="print one JSON document")
        p.add_argument("stray", nargs="*", action=_RefuseStray, help=argparse.SUPPRESS)
        p.add_argument("--db", default=None,
                       help="ledger URL (default: the console's SQLite ledger in the user data "
                            "folder); e.g. postgresql+psycopg://user@host/podium")
        if cmd != "list":
            p.add_argument("--floor", default=None, metavar="FILE",
                           help="the floor file whose [authorization] settings (card key, PIN, "
                                "lockout) apply (default: the safe defaults)")
            p.add_argument("--card-key", default=None, metavar="FILE",
                           help="the card key file (default: the floor file's, else "
                                "$PODIUM_CARD_KEY, else card.key in the configuration folder)")


def _policy(args: argparse.Namespace) -> Authorization:
    """The [authorization] settings for this command (a floor file's problem is one line)."""
    floor = getattr(args, "floor", None)
    if not floor:
        return default_policy()
    try:
        return load_floor(floor).authorization
    except FloorConfigError as exc:
        raise EmployeeError(str(exc)) from None


def _card_key(args: argparse.Namespace, policy: Authorization, engine: Engine) -> CardKey:
    """The card key for this command.  It is made (at its default place or ``--card-key``)
    only by the enrollment on a ledger that has no key yet: a command refused for a wrong or
    mistyped key file leaves no file behind."""
    path = getattr(args, "card_key", None) or policy.card_key or None
    create = False
    if args.employees_command == "add":
        with Session(engine) as s:
            create = guarded(args.db, lambda: s.get(Setting, CARD_KEY_ID)) is None
    try:
        return cardkey.load(path, create=create)
    except CardKeyError as exc:
        raise EmployeeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    command = str(args.employees_command)
    args._command = f"employees {command}"  # error lines say "podium employees add: ..."
    if command == "list":
        with ledger(args.db) as engine:
            return enrollment.run_list(args, engine)
    policy = _policy(args)
    first = enrollment.first_enrollment(args) if command == "add" else None
    with quiet_logs(), ledger(args.db, create=command == "add") as engine:
        if command == "add":
            return enrollment.run_add(args, engine, lambda: _card_key(args, policy, engine),
                                      policy, first)
        key = _card_key(args, policy, engine)
        step = STEPS.get(command)
        if step is not None:
            return step(args, engine, key, policy)
    raise EmployeeError(f"employees: unknown command {command!r}")
