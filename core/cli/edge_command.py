"""``podium rules edge PAYTABLE`` (CLI.md): a paytable's exact return and house edge.

The figures are computed in :mod:`core.tablegames.rules.edge` (its docstring and
``docs/edge.md`` say what each one means); this module reads the options, calls it and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from core.kernel.money import json_cents, parse_cents, parse_rate
from core.tablegames.rules.edge import (
    ENVY_SCALES,
    MAX_METER_POINTS,
    MAX_OTHERS,
    NO_PAY,
    BonusEdge,
    EdgeError,
    ProgressiveEdge,
    bonus_edge,
    check_others,
    decimal_text,
    fraction_text,
    money_text,
    percent_text,
    progressive_edge,
)
from core.tablegames.rules.fortune import HAND_IDS, NOTHING
from core.tablegames.rules.paytables import ENVY_WAGER_CENTS, Paytable, load_paytables

if TYPE_CHECKING:
    from core.tablegames.rules.enumerate import HandCounts


# ------------------------------------------------------------------------------------------
# The command


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("paytable", metavar="PAYTABLE",
                        help="a paytable id (podium rules paytables), e.g. PT1, FPGPP-WA01")
    parser.add_argument("--others", default=str(MAX_OTHERS), metavar="N",
                        help=f"bonus tables: other players at the table for the envy "
                             f"(0-{MAX_OTHERS}, default {MAX_OTHERS})")
    parser.add_argument("--wager", metavar="AMOUNT",
                        help="bonus tables: the Fortune wager the envy figure is for "
                             "(default 5.00, the wager the envy amounts are quoted per)")
    parser.add_argument("--envy-scale", default="fixed", choices=ENVY_SCALES,
                        help="bonus tables: envy amounts are fixed for any wager of $5 or "
                             "more (default), or proportional to the wager")
    parser.add_argument("--meter", action="append", default=[], metavar="AMOUNT",
                        help="progressive tables, repeatable: return at this meter value; "
                             "several levels as MEGA=25000,MAJOR=5000,MINOR=1000 or "
                             "25000,5000,1000 in the table's level order")
    parser.add_argument("--contribution-rate", metavar="RATE",
                        help="progressive tables: meter growth at this contribution rate "
                             "(0.20, or per level MEGA=0.10,MAJOR=0.05,...)")
    parser.add_argument("--reserve-rate", metavar="RATE",
                        help="progressive tables: reserve rate, like --contribution-rate")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    tables = load_paytables()
    pid = str(args.paytable)
    table = tables.get(pid)
    if table is None:
        known = sorted({t.id for t in tables.values()})
        raise EdgeError(f"paytable: unknown paytable {pid!r} (known: {', '.join(known)})")
    others = _parse_others(args.others)
    from core.tablegames.rules.enumerate import count_hands  # numpy: only when a count is asked for

    if table.kind == "bonus":
        for opt, given in (("--meter", args.meter), ("--contribution-rate",
                                                     args.contribution_rate),
                           ("--reserve-rate", args.reserve_rate)):
            if given:
                raise EdgeError(f"{opt}: {table.id} is a bonus paytable (no meter)")
        wager = ENVY_WAGER_CENTS if args.wager is None else parse_cents(args.wager, "--wager")
        bonus = bonus_edge(table, count_hands(table.joker), others=others, wager_cents=wager,
                           envy_scale=args.envy_scale)
        if args.json:
            _print_json(bonus_json(bonus))
        else:
            _print_bonus(bonus)
        return 0
    if args.wager is not None or args.envy_scale != "fixed":
        raise EdgeError(f"--wager/--envy-scale: {table.id} is a progressive paytable "
                        "(its wager is fixed, no envy)")
    if len(args.meter) > MAX_METER_POINTS:
        raise EdgeError(f"--meter: given {len(args.meter):,} times; at most "
                        f"{MAX_METER_POINTS} meter values in one run")
    points = [parse_meter(spec, table.levels, "--meter") for spec in args.meter]
    contrib = (parse_rates(args.contribution_rate, table.levels, "--contribution-rate")
               if args.contribution_rate is not None else None)
    reserve = (parse_rates(args.reserve_rate, table.levels, "--reserve-rate")
               if args.reserve_rate is not None else None)
    prog = progressive_edge(table, count_hands(table.joker), meters=points,
                            contribution_rates=contrib, reserve_rates=reserve, others=others)
    if args.json:
        _print_json(progressive_json(prog))
    else:
        _print_progressive(prog)
    return 0


def _parse_others(text: object) -> int:
    raw = str(text).strip()
    if not (raw.isascii() and raw.isdigit()):
        raise EdgeError(f"--others: {text!r} is not a whole number (0 to {MAX_OTHERS})")
    others = int(raw)
    check_others(others)
    return others


def _level_values(spec: str, levels: Sequence[str], opt: str) -> dict[str, str]:
    """``"A"`` (one level), ``"A,B,C"`` (level order) or ``"MEGA=A,MAJOR=B,..."``."""
    if len(levels) == 1 and "=" not in spec:
        return {levels[0]: spec}  # one amount, thousands separators allowed ("10,000")
    parts = [p.strip() for p in str(spec).split(",")]
    if any(not p for p in parts):
        raise EdgeError(f"{opt}: {spec!r} has an empty value")
    named = [p for p in parts if "=" in p]
    if named and len(named) != len(parts):
        raise EdgeError(f"{opt}: {spec!r} mixes named and unnamed values")
    out: dict[str, str] = {}
    if named:
        for p in parts:
            level, value = (s.strip() for s in p.split("=", 1))
            level = level.upper()
            if level not in levels:
                raise EdgeError(f"{opt}: unknown level {level!r} (levels: {', '.join(levels)})")
            if level in out:
                raise EdgeError(f"{opt}: level {level} is given twice")
            out[level] = value
    else:
        if len(parts) != len(levels):
            raise EdgeError(f"{opt}: {spec!r} gives {len(parts)} value(s); the table has "
                            f"{len(levels)} level(s) ({', '.join(levels)})")
        out = dict(zip(levels, parts, strict=True))
    return out


def parse_meter(spec: str, levels: Sequence[str], opt: str = "--meter") -> dict[str, int]:
    """One meter point: level -> cents.  Every level needs a value."""
    values = _level_values(spec, levels, opt)
    missing = [lv for lv in levels if lv not in values]
    if missing:
        raise EdgeError(f"{opt}: {spec!r} has no value for level {missing[0]} "
                        f"(levels: {', '.join(levels)})")
    return {lv: parse_cents(values[lv], f"{opt} {lv}") for lv in levels}


def parse_rates(spec: str, levels: Sequence[str], opt: str) -> dict[str, Decimal]:
    """A rate for every level: one rate for all, or per level (a level left out: 0)."""
    if "=" not in spec and "," not in spec:
        rate = parse_rate(spec.strip(), opt)
        return dict.fromkeys(levels, rate)
    values = _level_values(spec, levels, opt)
    return {lv: parse_rate(values[lv], f"{opt} {lv}") if lv in values else Decimal(0)
            for lv in levels}


# ------------------------------------------------------------------------------------------
# Output


def _common_json(table: Paytable, counts: HandCounts, best: Mapping[str, int]) -> dict[str, Any]:
    return {"paytable": table.id, "kind": table.kind, "joker": table.joker,
            "total_hands": counts.total, "counts": dict(best)}


def bonus_json(e: BonusEdge) -> dict[str, Any]:
    doc = _common_json(e.table, e.counts, e.best)
    doc.update({
        "three_pair": e.table.three_pair,
        "return": fraction_text(e.ret),
        "house_edge": fraction_text(e.house_edge),
        "others": e.others,
        "wager": json_cents(e.wager_cents),
        "envy_scale": e.envy_scale,
        "envy_return_per_other": fraction_text(e.envy_per_other),
        "return_with_envy": fraction_text(e.return_with_envy),
        "house_edge_with_envy": fraction_text(e.house_edge_with_envy),
    })
    return doc


def progressive_json(e: ProgressiveEdge) -> dict[str, Any]:
    doc = _common_json(e.table, e.counts, e.best)
    assert e.table.wager_cents is not None
    first = e.points[0] if e.points else None
    doc.update({
        "wager": json_cents(e.table.wager_cents),
        "levels": list(e.table.levels),
        "pay_counts": {(h if h is not None else NO_PAY): n for h, n in e.pay_counts.items()},
        "return_fixed": fraction_text(e.return_fixed),
        "return_per_meter": {lv: fraction_text(v) for lv, v in e.per_meter.items()},
        "meters": [{"meter": {lv: json_cents(c) for lv, c in p.meters_cents.items()},
                    "return": fraction_text(p.ret), "house_edge": fraction_text(p.house_edge)}
                   for p in e.points],
        "return": fraction_text(first.ret) if first else None,
        "house_edge": fraction_text(first.house_edge) if first else None,
        "break_even_meter": (json_cents(e.break_even_cents)
                             if e.break_even_cents is not None else None),
        "others": e.others,
        "house_edge_with_envy": None,
    })
    if e.growth:
        doc["growth"] = {g.level: {
            "contribution_rate": decimal_text(g.contribution_rate),
            "reserve_rate": decimal_text(g.reserve_rate),
            "growth_per_wager": decimal_text(g.growth_per_wager),
            "reserve_per_wager": decimal_text(g.reserve_per_wager),
            "hit_probability": fraction_text(g.hit_probability),
            "wagers_per_hit": fraction_text(g.wagers_per_hit),
            "rise_per_hit": money_text(g.rise_per_hit),
        } for g in e.growth}
    return doc


def _print_counts(best: Mapping[str, int], total: int, extra: Mapping[str, str]) -> None:
    print(f"  {'hand':<16} {'hands':>12} {'probability':>16}  pays")
    for hand in (*HAND_IDS, NOTHING):
        n = best[hand]
        print(f"  {hand:<16} {n:>12,} {fraction_text(Fraction(n, total), 6):>16}  "
              f"{extra.get(hand, '')}".rstrip())
    print(f"  {'total':<16} {total:>12,}")


def _print_bonus(e: BonusEdge) -> None:
    t = e.table
    print(f"{t.id}  bonus  joker {t.joker}  three pair {t.three_pair}  ({t.name})")
    pays = {p.hand: f"{p.odds} to 1" + (f", envy {json_cents(p.envy_cents)}"
                                        if p.envy_cents else "") for p in t.pays}
    if t.three_pair == "push":
        pays["THREE_PAIR"] = "push"
    _print_counts(e.best, e.counts.total, pays)
    print(f"return        {percent_text(e.ret)}")
    print(f"house edge    {percent_text(e.house_edge)}")
    print(f"with envy     {percent_text(e.house_edge_with_envy)} house edge "
          f"({e.others} other player{'s' if e.others != 1 else ''}, "
          f"{json_cents(e.wager_cents)} wager, envy {e.envy_scale}; "
          f"envy returns {percent_text(e.envy_per_other)} per other player)")


def _print_progressive(e: ProgressiveEdge) -> None:
    t = e.table
    assert t.wager_cents is not None
    print(f"{t.id}  progressive  joker {t.joker}  wager {json_cents(t.wager_cents)}  "
          f"levels {' '.join(t.levels)}  ({t.name})")
    print(f"  {'paid as':<16} {'hands':>12} {'probability':>16}")
    total = e.counts.total
    for hand, n in e.pay_counts.items():
        name = hand if hand is not None else NO_PAY
        print(f"  {name:<16} {n:>12,} {fraction_text(Fraction(n, total), 6):>16}")
    print(f"  {'total':<16} {total:>12,}   (best hands: podium rules edge --json 'counts')")
    print(f"fixed pays return    {percent_text(e.return_fixed)}")
    for lv, v in e.per_meter.items():
        print(f"{lv} return per $1,000 of meter   {percent_text(v * 1000)}")
    for p in e.points:
        where = ", ".join(f"{lv} {json_cents(c)}" for lv, c in p.meters_cents.items())
        print(f"at {where}: return {percent_text(p.ret)}, house edge {percent_text(p.house_edge)}")
    if e.break_even_cents is not None:
        print(f"break-even meter     {json_cents(e.break_even_cents)}")
    for g in e.growth:
        print(f"{g.level}: +{decimal_text(g.growth_per_wager)} meter and "
              f"+{decimal_text(g.reserve_per_wager)} reserve per wager; hit 1 in "
              f"{fraction_text(g.wagers_per_hit, 8)} wagers; meter rises "
              f"{money_text(g.rise_per_hit)} between hits on average")


def _print_json(doc: Any) -> None:
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")
