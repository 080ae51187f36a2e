"""``podium floor changes|approve``: an executive approves a floor change before a service starts.

A change of a floor parameter that decides a pay or a contribution (docs/operator.md
"Approving a floor change"; the list is ``core.tablegames.floor_approval.DECIDES``) takes
effect only once an executive approved it.  ``changes`` shows what the file changes against the
ledger (and the file's warnings); ``approve`` shows the same, then reads the executive's swipe
and PIN (stdin: one line each, no echo on a terminal) and records the approval
(``floor_approvals``: who, when, the old and new values, the file's SHA-256).  A card that is
not an active executive's, a wrong PIN, a file with nothing to approve or one the floor would
refuse: one line on stderr, exit 2, nothing recorded but the refused swipe.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

SUBCOMMANDS: dict[str, str] = {
    "changes": "what a floor file changes, against the ledger, of what decides pays and "
               "contributions (and whether it is approved)",
    "approve": "an executive approves those changes with their card and PIN, before the "
               "floor starts on them",
}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    sub = parser.add_subparsers(dest="floor_command", required=True,
                                parser_class=type(parser), metavar="COMMAND")
    for cmd, helptext in SUBCOMMANDS.items():
        p = sub.add_parser(cmd, help=helptext, description=helptext)
        p.add_argument("--floor", required=True, metavar="FILE",
                       help="the floor file the service or console will start with (\"demo\": "
                            "the embedded demo floor)")
        p.add_argument("--db", default=None,
                       help="ledger URL (default: the console's SQLite ledger in the user data "
                            "folder); e.g. postgresql+psycopg://user@host/podium")
        if cmd == "approve":
            p.add_argument("--reason", default="",
                           help="why (kept in the ledger), e.g. \"new paytable from the "
                                "1st\"")
            p.add_argument("--card-key", default=None, metavar="FILE",
                           help="the card key file (default: the floor file's, else "
                                "$PODIUM_CARD_KEY, else card.key in the configuration folder)")


def _say(text: str) -> None:
    from core.kernel.text import printable

    print(printable(text))


def run(args: argparse.Namespace) -> int:
    from core import floorconfig
    from core.cli.employees.ledger import ledger
    from core.cli.employees.terminal import quiet_logs
    from core.tablegames import floor_approval
    from core.tablegames.rules.paytables import load_paytables

    command = str(args.floor_command)
    args._command = f"floor {command}"
    config = (floorconfig.load_demo_floor() if args.floor == "demo"  # FloorConfigError:
              else floorconfig.load_floor(args.floor))             # one line
    paytables = load_paytables()
    warnings = floorconfig.validate(config, paytables)
    with quiet_logs(), ledger(args.db) as engine:
        pending = floor_approval.pending_for(engine, config)
        for w in warnings:
            _say(f"warning: {w}")
        if not pending.changes:
            _say(f"{config.source}: no change of what decides pays or contributions (sha256 "
                 f"{config.sha256[:12]}); nothing to approve")
            return 0
        _say(f"{config.source} (sha256 {config.sha256[:12]}): {len(pending.changes)} change(s) "
             "of what decides pays or contributions:")
        for change in pending.changes:
            _say(f"  {change.text()}")
        if command == "changes":
            return 0
        key = _card_key(args, config)
        credential = _read_credential()
        _say(floor_approval.approve(engine, key, config, credential, via="command",
                                    reason=args.reason, expected=pending))
    return 0


def _card_key(args: argparse.Namespace, config: Any) -> Any:
    from core.people import cardkey

    path = args.card_key or config.authorization.card_key or None
    try:
        return cardkey.load(path, create=False)
    except cardkey.CardKeyError as exc:
        raise ValueError(str(exc)) from None


def _read_credential() -> Any:
    from core.cli.employees.terminal import read_pin, read_swipe
    from core.people.auth import PIN_DIGITS, AuthError, Credential

    if sys.stdin is not None and sys.stdin.isatty():
        _say("Executive: swipe your card to approve these changes (and type your PIN)")
    swipe = read_swipe("Executive: swipe your card to approve: ")
    pin = read_pin("Executive PIN: ")
    if not PIN_DIGITS.fullmatch(pin):
        raise AuthError("executive's PIN: a PIN is 4 to 12 digits; nothing was approved",
                        "bad_read")
    return Credential(swipe, pin)
