"""``podium rules meter SCENARIO.json [--json]`` (CLI.md): replay rounds through the meters.

No database: the scenario gives the paytable, each level's settings and starting values, and
rounds of locked wagers and hits; the output is what every hit pays and what the meters read
after each round.  The arithmetic is ``core.tablegames.meters.arithmetic``; this module only
reads the scenario, orders the hits and prints.

Per round: every locked wager contributes to every level at that level's rates (before any
hit of the round is paid); then the hits are paid in payment order (highest seat first): a
percentage pay from its level's meter (each on what the previous pay left, after the reseed
if that was 100%), a fixed pay from the tray (the meter is not touched).  Meters are shown to
the cent rounded down; the exact fraction is kept between rounds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.kernel.jsondoc import JsonDocError, check_keys, json_object, json_type, load_json_file
from core.kernel.money import (
    cents_to_units,
    format_cents,
    json_cents,
    json_units_floor,
    parse_cents,
    parse_rate,
    units_floor_cents,
)
from core.tablegames.meters.arithmetic import (
    LevelSettings,
    LevelState,
    MeterError,
    apply,
    award,
    contribute,
    payment_order,
)
from core.tablegames.rules.claims import ClaimError, pay_for_claim
from core.tablegames.rules.paytables import Pay, Paytable, load_paytables


class ScenarioError(ValueError):
    """A scenario the command refuses; the message names the round, seat or field."""


# --- the scenario -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Round:
    wagers: dict[int, int]  # seat -> cents
    hits: dict[int, str]  # seat -> hand id
    pays: dict[int, Pay]  # seat -> what the paytable pays for that hand


@dataclass(frozen=True)
class Scenario:
    paytable: Paytable
    settings: dict[str, LevelSettings]  # in the paytable's level order
    start: dict[str, LevelState]
    rounds: tuple[Round, ...]


@dataclass(frozen=True)
class Payout:
    seat: int
    hand: str
    amount_cents: int
    source: str  # "meter" | "tray"
    level: str | None  # the meter paid from; None for the tray


@dataclass(frozen=True)
class RoundResult:
    payouts: tuple[Payout, ...]
    levels: dict[str, LevelState]


LEVEL_KEYS = ("seed", "meter", "reserve", "contribution_rate", "reserve_rate")


def _object(value: object, where: str) -> dict[str, Any]:
    return json_object(value, where, ScenarioError)


def _keys(obj: Mapping[str, Any], where: str, required: tuple[str, ...],
          optional: tuple[str, ...] = ()) -> None:
    check_keys(obj, where, required, optional, ScenarioError)


def _money(value: object, where: str) -> int:
    if isinstance(value, (dict, list)) or value is None:
        raise ScenarioError(f"{where}: must be an amount like \"1250.00\", not {json_type(value)}")
    if isinstance(value, Decimal):  # a JSON number with a point or an exponent: a float
        raise ScenarioError(f"{where}: must be an amount written as a string like "
                            f"\"1250.00\", not the JSON number {value}")
    try:
        return parse_cents(value, where)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None


def _rate(value: object, where: str) -> Decimal:
    if isinstance(value, (dict, list)) or value is None:
        raise ScenarioError(f"{where}: must be a rate like \"0.20\", not {json_type(value)}")
    try:
        return parse_rate(value, where)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None


def _seat(key: str, where: str) -> int:
    text = key.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 3 or int(text) < 1:
        raise ScenarioError(f"{where}: seat {key[:20]!r} is not a seat number (1 to 999)")
    return int(text)


def _seat_map(value: object, where: str, convert: Callable[[object, str], Any]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for key, item in _object(value, where).items():
        seat = _seat(key, where)
        if seat in out:
            raise ScenarioError(f"{where}: seat {seat} is listed twice")
        out[seat] = convert(item, f"{where}, seat {seat}")
    return out


def parse_scenario(data: object, paytables: Mapping[str, Paytable]) -> Scenario:
    """Check a parsed scenario completely (before anything is replayed)."""
    top = _object(data, "scenario")
    _keys(top, "scenario", ("paytable", "levels", "rounds"))
    pt_id = top["paytable"]
    if not isinstance(pt_id, str):
        raise ScenarioError(f"paytable: must be a paytable id string, not {json_type(pt_id)}")
    paytable = paytables.get(pt_id)
    if paytable is None:
        progressive = sorted(k for k, p in paytables.items() if p.kind == "progressive")
        raise ScenarioError(f"paytable: unknown paytable {pt_id!r} (progressive paytables: "
                            f"{', '.join(progressive) or 'none installed'})")
    if paytable.kind != "progressive":
        raise ScenarioError(f"paytable: {pt_id} is a {paytable.kind} paytable; the meter needs "
                            "a progressive one")

    levels = _object(top["levels"], "levels")
    for name in levels:
        if name not in paytable.levels:
            raise ScenarioError(f"levels.{name}: unknown level for {pt_id} (its levels: "
                                f"{', '.join(paytable.levels)})")
    settings: dict[str, LevelSettings] = {}
    start: dict[str, LevelState] = {}
    for name in paytable.levels:
        if name not in levels:
            raise ScenarioError(f"levels: missing level {name!r} ({pt_id} has "
                                f"{', '.join(paytable.levels)})")
        where = f"levels.{name}"
        lv = _object(levels[name], where)
        _keys(lv, where, LEVEL_KEYS)
        try:
            settings[name] = LevelSettings(
                cents_to_units(_money(lv["seed"], f"{where}.seed")),
                _rate(lv["contribution_rate"], f"{where}.contribution_rate"),
                _rate(lv["reserve_rate"], f"{where}.reserve_rate"),
            )
        except MeterError as exc:
            raise ScenarioError(f"{where}: {exc}") from None
        start[name] = LevelState(cents_to_units(_money(lv["meter"], f"{where}.meter")),
                                 cents_to_units(_money(lv["reserve"], f"{where}.reserve")))

    rounds_raw = top["rounds"]
    if not isinstance(rounds_raw, list):
        raise ScenarioError(f"rounds: must be a JSON array, not {json_type(rounds_raw)}")
    rounds: list[Round] = []
    for i, raw in enumerate(rounds_raw, start=1):
        where = f"round {i}"
        r = _object(raw, where)
        _keys(r, where, ("wagers",), ("hits",))
        wagers: dict[int, int] = _seat_map(r["wagers"], f"{where} wagers", _wager)
        hits: dict[int, str] = _seat_map(r.get("hits", {}), f"{where} hits", _hand)
        pays: dict[int, Pay] = {}
        for seat, hand in sorted(hits.items()):
            if seat not in wagers:
                raise ScenarioError(f"round {i}, seat {seat}: hit {hand} on a seat without a "
                                    "progressive wager")
            try:  # a hand not listed pays as the best listed hand it always makes (RULES 3)
                pay = pay_for_claim(paytable, hand)
            except ClaimError as exc:
                raise ScenarioError(f"round {i}, seat {seat}: {exc}") from None
            if pay.source == "meter" and _pay_level(pay, paytable) not in settings:
                raise ScenarioError(f"round {i}, seat {seat}: {hand} pays from level "
                                    f"{pay.level!r}, which {pt_id} does not have")
            pays[seat] = pay
        rounds.append(Round(wagers, hits, pays))
    return Scenario(paytable, settings, start, tuple(rounds))


def _wager(value: object, where: str) -> int:
    cents = _money(value, where)
    if cents <= 0:
        raise ScenarioError(f"{where}: a wager must be more than 0.00 (leave an unlit seat out)")
    return cents


def _hand(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(f"{where}: must be a hand id string like \"SF7_NATURAL\"")
    return value.strip().upper()


def _pay_level(pay: Pay, paytable: Paytable) -> str:
    if pay.level is not None:
        return pay.level
    if len(paytable.levels) == 1:
        return paytable.levels[0]
    return ""


# --- the replay -------------------------------------------------------------------------------

def replay(scenario: Scenario, order: str = "right_first") -> list[RoundResult]:
    states = dict(scenario.start)
    pt = scenario.paytable
    results: list[RoundResult] = []
    for rnd in scenario.rounds:
        # The round's locked wagers contribute before any hit of that round is paid.
        for wager in rnd.wagers.values():
            for name, s in scenario.settings.items():
                states[name] = apply(states[name], contribute(s, wager))
        payouts: list[Payout] = []
        for seat in payment_order(rnd.hits, order):
            hand, pay = rnd.hits[seat], rnd.pays[seat]
            if pay.source == "meter":
                level = _pay_level(pay, pt)
                fraction = pay.fraction if pay.fraction is not None else Decimal(1)
                cents, moves = award(states[level], scenario.settings[level], fraction)
                states[level] = apply(states[level], moves)
                payouts.append(Payout(seat, hand, cents, "meter", level))
            else:
                cents = pt.fixed_cents(pay, rnd.wagers[seat])
                payouts.append(Payout(seat, hand, cents, "tray", None))
        results.append(RoundResult(tuple(payouts), dict(states)))
    return results


# --- output -----------------------------------------------------------------------------------

def results_json(results: list[RoundResult]) -> dict[str, Any]:
    return {"rounds": [
        {"payouts": [{"seat": p.seat, "hand": p.hand, "amount": json_cents(p.amount_cents),
                      "source": p.source, "level": p.level} for p in r.payouts],
         "levels": {name: {"meter": json_units_floor(st.meter_units),
                           "reserve": json_units_floor(st.reserve_units)}
                    for name, st in r.levels.items()}}
        for r in results
    ]}


def results_text(scenario: Scenario, results: list[RoundResult]) -> str:
    lines = [f"Paytable {scenario.paytable.id}"]
    start = "  ".join(f"{n} {format_cents(units_floor_cents(s.meter_units))} "
                      f"(reserve {format_cents(units_floor_cents(s.reserve_units))})"
                      for n, s in scenario.start.items())
    lines.append(f"Start: {start}")
    for i, (rnd, res) in enumerate(zip(scenario.rounds, results, strict=True), start=1):
        seats = ", ".join(str(s) for s in sorted(rnd.wagers))
        lines.append("")
        lines.append(f"Round {i}: wagers on seat(s) {seats or 'none'}")
        if res.payouts:
            lines.append(f"  {'seat':>4}  {'hand':<16} {'amount':>14}  {'source':<6} level")
            for p in res.payouts:
                lines.append(f"  {p.seat:>4}  {p.hand:<16} {format_cents(p.amount_cents):>14}  "
                             f"{p.source:<6} {p.level or '-'}")
        else:
            lines.append("  no hits")
        for name, st in res.levels.items():
            lines.append(f"  {name:<6} meter {format_cents(units_floor_cents(st.meter_units)):>14}"
                         f"   reserve {format_cents(units_floor_cents(st.reserve_units)):>12}")
    return "\n".join(lines)


# --- the command ------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("scenario", metavar="SCENARIO.json",
                        help="paytable, levels and rounds of wagers and hits (CLI.md)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def load_scenario_file(path: str) -> object:
    """The scenario document (a ScenarioError names the file and the problem)."""
    try:
        return load_json_file(path)
    except JsonDocError as exc:
        raise ScenarioError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    data = load_scenario_file(args.scenario)
    scenario = parse_scenario(data, load_paytables())
    results = replay(scenario)
    if args.json:
        print(json.dumps(results_json(results)))
    else:
        print(results_text(scenario, results))
    sys.stdout.flush()
    return 0
