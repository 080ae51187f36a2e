"""``podium rules bbj CASE.json [--json]`` and ``podium rules bbj --batch`` (CLI.md): decide a Bad
Beat Jackpot claim.

This module only reads the case file into a :class:`core.pokerroom.rules.bbj.Claim` (naming the
field of anything it refuses), calls :func:`core.pokerroom.rules.bbj.decide` and prints.  The
rules are in ``core.pokerroom.rules.bbj``; the hand values in ``core.pokerroom.rules.holdem``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from core.kernel.cards import Card, CardError, parse_card
from core.kernel.jsondoc import (
    check_keys,
    json_array,
    json_object,
    json_type,
    load_json_file,
    shown,
)
from core.kernel.money import format_cents, parse_cents, parse_rate
from core.pokerroom.rules.bbj import (
    TIE_POLICIES,
    BbjError,
    BbjSettings,
    Claim,
    Decision,
    ShownHand,
    Split,
    decide,
    decision_json,
    fraction_text,
)

REQUIRED_KEYS: tuple[str, ...] = (
    "big_blind", "pot", "dealt_in", "board", "showdown", "table_jackpot_rake_cap",
    "room_max_jackpot_rake", "main_jackpot", "reserve_jackpot",
)
OPTIONAL_KEYS: tuple[str, ...] = ("taxpayers", "voids", "split", "tie", "not_seated")


# --- reading the case -------------------------------------------------------------------------

def _object(value: object, where: str) -> dict[str, Any]:
    return json_object(value, where, BbjError)


def _array(value: object, where: str) -> list[Any]:
    return json_array(value, where, BbjError)


def _keys(obj: Mapping[str, Any], where: str, required: tuple[str, ...],
          optional: tuple[str, ...] = ()) -> None:
    check_keys(obj, where, required, optional, BbjError)


def _money(value: object, where: str) -> int:
    if not isinstance(value, (str, int, Decimal)) or isinstance(value, bool):
        raise BbjError(f"{where}: must be an amount like \"1250.00\", not {json_type(value)}")
    if isinstance(value, Decimal):  # a JSON number with a point or an exponent: a float
        raise BbjError(f"{where}: must be an amount written as a string like \"1250.00\", "
                       f"not the JSON number {value}")
    try:
        return parse_cents(value, where)
    except ValueError as exc:
        raise BbjError(str(exc)) from None


def _rate(value: object, where: str) -> Decimal:
    if not isinstance(value, (str, int, Decimal)) or isinstance(value, bool):
        raise BbjError(f"{where}: must be a fraction like \"0.20\", not {json_type(value)}")
    try:
        return parse_rate(value, where)
    except ValueError as exc:
        raise BbjError(str(exc)) from None


def _seat(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 999:
        raise BbjError(f"{where}: {shown(value)} is not a seat number (a whole number, 1 to 999)")
    return value


def _seat_key(key: str, where: str) -> int:
    text = key.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 3 or int(text) < 1:
        raise BbjError(f"{where}: {key[:20]!r} is not a seat number (1 to 999)")
    return int(text)


def _cards(value: object, where: str) -> tuple[Card, ...]:
    cards: list[Card] = []
    for item in _array(value, where):
        if not isinstance(item, str):
            raise BbjError(f"{where}: {shown(item)} is not a card string "
                           "like \"As\"")
        try:
            cards.append(parse_card(item))
        except CardError as exc:
            raise BbjError(f"{where}: {exc}") from None
    return tuple(cards)


def _showdown(value: object) -> tuple[ShownHand, ...]:
    hands: list[ShownHand] = []
    for i, raw in enumerate(_array(value, "showdown"), start=1):
        where = f"showdown[{i}]"
        entry = _object(raw, where)
        _keys(entry, where, ("seat", "hole"))
        seat = _seat(entry["seat"], f"{where}.seat")
        hole = _cards(entry["hole"], f"showdown seat {seat} hole")
        if len(hole) != 2:
            raise BbjError(f"showdown seat {seat} hole: expected 2 cards, got {len(hole)}")
        hands.append(ShownHand(seat, (hole[0], hole[1])))
    return tuple(hands)


def _taxpayers(value: object) -> dict[int, str]:
    out: dict[int, str] = {}
    for key, cls in _object(value, "taxpayers").items():
        seat = _seat_key(key, "taxpayers")
        if seat in out:
            raise BbjError(f"taxpayers: seat {seat} is listed twice")
        if not isinstance(cls, str):
            raise BbjError(f"taxpayers: seat {seat}: must be a taxpayer class string, not "
                           f"{json_type(cls)}")
        out[seat] = cls.strip().lower()
    return out


def _voids(value: object) -> tuple[str, ...]:
    out: list[str] = []
    for item in _array(value, "voids"):
        if not isinstance(item, str):
            raise BbjError(f"voids: {shown(item)} is not a void reason string")
        out.append(item.strip().lower())
    return tuple(out)


def _split(value: object) -> Split:
    obj = _object(value, "split")
    _keys(obj, "split", ("winning", "losing", "table"))
    return Split(_rate(obj["winning"], "split.winning"), _rate(obj["losing"], "split.losing"),
                 _rate(obj["table"], "split.table"))


def _tie(value: object) -> str:
    if value not in TIE_POLICIES:  # exactly as written: "Split" or " split" is a typo too
        raise BbjError(f"tie: {shown(value)} is not a tie policy (use \"split\" or \"refuse\")")
    return str(value)


def parse_case(data: object) -> tuple[Claim, BbjSettings]:
    """Check a parsed case file completely; the settings carry its ``split`` and ``tie``."""
    top = _object(data, "case")
    _keys(top, "case", REQUIRED_KEYS, OPTIONAL_KEYS)
    dealt_in = tuple(_seat(s, "dealt_in") for s in _array(top["dealt_in"], "dealt_in"))
    settings = BbjSettings(split=_split(top["split"]) if "split" in top else Split(),
                           tie=_tie(top["tie"]) if "tie" in top else "split")
    claim = Claim(
        big_blind_cents=_money(top["big_blind"], "big_blind"),
        pot_cents=_money(top["pot"], "pot"),
        dealt_in=dealt_in,
        board=_cards(top["board"], "board"),
        showdown=_showdown(top["showdown"]),
        table_jackpot_rake_cap_cents=_money(top["table_jackpot_rake_cap"],
                                            "table_jackpot_rake_cap"),
        room_max_jackpot_rake_cents=_money(top["room_max_jackpot_rake"], "room_max_jackpot_rake"),
        main_jackpot_cents=_money(top["main_jackpot"], "main_jackpot"),
        reserve_jackpot_cents=_money(top["reserve_jackpot"], "reserve_jackpot"),
        taxpayers=_taxpayers(top.get("taxpayers", {})),
        voids=_voids(top.get("voids", [])),
        not_seated=tuple(_seat(s, "not_seated")
                         for s in _array(top.get("not_seated", []), "not_seated")),
    )
    return claim, settings


# --- output -----------------------------------------------------------------------------------

def decision_text(claim: Claim, d: Decision) -> str:
    lines = ["Bad Beat Jackpot: " + ("QUALIFIES" if d.qualifies else "does not qualify")]
    if d.reasons:
        lines.append("reasons  " + ", ".join(d.reasons))
    for role, seats, tie, hand in (("winning", d.winning_seats, d.winning_tie, d.winning_hand),
                                   ("losing", d.losing_seats, d.losing_tie, d.losing_hand)):
        text = (f"{_seats_words(seats)}  {hand.category}{_tie_words(seats, tie)}"
                if seats and hand is not None else "-")
        lines.append(f"{role:<8} {text}")
    lines.append(f"main     {format_cents(claim.main_jackpot_cents):>16}   reserve "
                 f"{format_cents(claim.reserve_jackpot_cents)}")
    if d.qualifies:
        share = fraction_text(d.payout_fraction)
        lines.append(f"award    {format_cents(d.award_cents):>16}   ({share} of the main jackpot)")
        lines.append("")
        lines.append(f"{'seat':>4}  {'role':<8} {'taxpayer':<8} {'gross':>14} {'tax':>12} "
                     f"{'net':>14}")
        for s in d.shares:
            lines.append(f"{s.seat:>4}  {s.role:<8} {s.taxpayer:<8} "
                         f"{format_cents(s.gross_cents):>14} {format_cents(s.tax_cents):>12} "
                         f"{format_cents(s.net_cents):>14}")
        lines.append("")
        lines.append(f"left in main (rounding) {format_cents(d.left_in_main_cents)}")
    lines.append(f"after    main {format_cents(d.main_after_cents)}   reserve "
                 f"{format_cents(d.reserve_after_cents)}")
    return "\n".join(lines)


def _seats_words(seats: tuple[int, ...]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]} (tie, split)"


def _tie_words(seats: tuple[int, ...], tie: tuple[int, ...]) -> str:
    """The tied seats left out of the place (their own hand fails its rules: table share)."""
    out = [s for s in tie if s not in seats]
    if not out:
        return ""
    return ("; also tied: seat" + ("s " if len(out) > 1 else " ") + ", ".join(map(str, out))
            + ", whose own hand fails its rules (a table share)")


# --- the command ------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("case", metavar="CASE.json", nargs="?",
                        help="the hand, the showdown and the jackpot funds (CLI.md); none "
                             "with --batch")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--batch", action="store_true",
                        help="JSON lines on stdin, one case document each; one JSON line out "
                             "per line, as --json prints it (CLI.md, Batch mode)")


def decide_line(text: str) -> str:
    """One ``--batch`` line (a case document) -> the line ``--json`` prints for it."""
    from core.cli.batch import parse_line

    claim, settings = parse_case(parse_line(text))
    return json.dumps(decision_json(decide(claim, settings)))


def run(args: argparse.Namespace) -> int:
    if args.batch:
        if args.case is not None:
            raise BbjError("CASE.json: not with --batch (the cases come on stdin, one JSON "
                           "line each)")
        from core.cli.batch import run_batch

        return run_batch(str(args._command), decide_line)
    if args.case is None:  # argparse's words when CASE.json was required
        raise BbjError("the following arguments are required: CASE.json")
    claim, settings = parse_case(load_json_file(args.case))
    decision = decide(claim, settings)
    if args.json:
        print(json.dumps(decision_json(decision)))
    else:
        print(decision_text(claim, decision))
    sys.stdout.flush()
    return 0
