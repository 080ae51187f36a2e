"""``podium rules paytables`` (CLI.md); ``podium rules classify`` is
``core.cli.classify_command``.

``core.cli`` calls :func:`add_arguments` with the subcommand name while building the
parser and :func:`run` with the parsed arguments; bad input raises a ``ValueError``
subclass (``CardError``, ``PaytableError``, ...) that ``core.cli.dispatch`` turns into one line
on stderr and exit status 2.  (Not ``core.cli.UsageError``: under ``python -m core.cli``
that module is ``__main__`` and a second copy's class would not be caught.)
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from typing import Any

from core.kernel.money import json_cents
from core.tablegames.rules.paytables import Pay, Paytable, distinct_paytables, load_paytables


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    if name != "paytables":
        raise ValueError(f"core.cli.rules_commands: no subcommand {name!r}")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    command = str(getattr(args, "_command", ""))
    if command.endswith("paytables"):
        return _paytables(args)
    raise ValueError(f"command: unknown rules command {command!r}")


# ------------------------------------------------------------------------------------------
# paytables

def _decimal_text(value: Decimal) -> str:
    """At least two decimals, exact: ``"1.00"``, ``"0.125"``, ``"100.00"``."""
    two = value.quantize(Decimal("0.01"))
    return str(two) if two == value else format(value.normalize(), "f")


def pay_json(pay: Pay) -> dict[str, Any]:
    out: dict[str, Any] = {"hand": pay.hand}
    if pay.odds is not None:
        out["odds"] = pay.odds
    if pay.fraction is not None:
        out["level"] = pay.level
        out["fraction"] = _decimal_text(pay.fraction)
        out["percent"] = _decimal_text(pay.fraction * 100)
    if pay.amount_cents is not None:
        out["amount"] = json_cents(pay.amount_cents)
    if pay.for_one is not None:
        out["for_one"] = pay.for_one
    return out


def paytable_json(table: Paytable) -> dict[str, Any]:
    pays = []
    for pay in table.pays:
        item = pay_json(pay)
        if table.kind == "progressive":
            item["source"] = pay.source
            item["secondary_verification"] = pay.secondary_verification
            item["authorization"] = pay.authorization
        pays.append(item)
    envy = {p.hand: json_cents(p.envy_cents) for p in table.pays if p.envy_cents is not None}
    return {
        "id": table.id,
        "kind": table.kind,
        "joker": table.joker,
        "wager": None if table.wager_cents is None else json_cents(table.wager_cents),
        "name": table.name,
        "levels": list(table.levels),
        "pays": pays,
        "three_pair": table.three_pair,
        "envy": envy if table.kind == "bonus" else None,
        "aliases": list(table.equivalents),
    }


def _pay_text(table: Paytable, pay: Pay) -> str:
    if pay.odds is not None:
        return f"{pay.odds} to 1"
    if pay.fraction is not None:
        return f"{_decimal_text(pay.fraction * 100).rstrip('0').rstrip('.')}% of {pay.level}"
    if pay.amount_cents is not None:
        return f"{json_cents(pay.amount_cents)}"
    if table.wager_cents is not None:
        return f"{pay.for_one} for 1 ({json_cents(table.fixed_cents(pay))})"
    return f"{pay.for_one} for 1"


def _paytables(args: argparse.Namespace) -> int:
    tables = distinct_paytables(load_paytables())
    if args.json:
        _print_json([paytable_json(t) for t in tables])
        return 0
    for n, t in enumerate(tables):
        if n:
            print()
        head = [t.id, t.kind, f"joker {t.joker}"]
        if t.kind == "bonus":
            head.append(f"three pair {t.three_pair}")
        else:
            assert t.wager_cents is not None
            head += [f"wager {json_cents(t.wager_cents)}", f"levels {' '.join(t.levels)}"]
        if t.equivalents:
            head.append(f"also {' '.join(t.equivalents)}")
        print("  ".join(head))
        print(f"  {t.name}")
        if t.kind == "bonus":
            print(f"  {'hand':<16} {'pays':<14} envy per $5")
            for p in t.pays:
                envy = json_cents(p.envy_cents) if p.envy_cents is not None else ""
                print(f"  {p.hand:<16} {_pay_text(t, p):<14} {envy}".rstrip())
        else:
            print(f"  {'hand':<16} {'pays':<20} {'from':<5} {'verify':<7} swipe")
            for p in t.pays:
                verify = "yes" if p.secondary_verification else "no"
                print(f"  {p.hand:<16} {_pay_text(t, p):<20} {p.source:<5} {verify:<7} "
                      f"{p.authorization}")
    return 0


def _print_json(doc: Any) -> None:
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")
