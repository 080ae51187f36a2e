"""``podium rules edge PAYTABLE`` (CLI.md): a paytable's exact return and house edge.

The hand counts are exact (:func:`core.rules.enumerate.count_hands`, every one of the
C(53,7) hands); everything here is exact rational arithmetic (``fractions.Fraction``)
turned into decimal strings only for printing.  The meaning of every figure, the envy
interpretation and the meter arithmetic are in ``docs/edge.md``.

Bonus table ("to 1", RULES.md 2), per unit wagered, by the best hand (``classify``):
a listed hand returns odds + 1, three pair returns 1 when it pushes, anything else 0.
``house_edge = 1 - return``.  Envy: each of the N other players' hands is a uniformly
random 7 of the same 53 cards, so (linearity of expectation) the envy expected per hand
is N x sum P(hand) x envy(hand); ``house_edge_with_envy`` subtracts it per unit of the
Fortune wager the envy amounts are quoted for ($5 by default).

Progressive table ("for 1", RULES.md 3), per unit wagered, by the best LISTED hand
(``Paytable.paying``): a fixed pay returns its amount / wager; a meter pay returns its
share of the meter, rounded down to the cent as it is paid.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from core.money import json_cents, parse_cents, parse_rate
from core.rules.fortune import HAND_IDS, NOTHING
from core.rules.paytables import ENVY_WAGER_CENTS, Paytable, load_paytables

if TYPE_CHECKING:
    from core.rules.enumerate import HandCounts

MAX_METER_POINTS = 100  # --meter values in one run
MAX_OTHERS = 5  # the most other players a pai gow table seats (RULES.md 2)
ENVY_SCALES = ("fixed", "proportional")
NO_PAY = "NONE"  # pay_counts key of the hands a progressive table does not pay
SIGNIFICANT = 12  # digits of every fraction printed


class EdgeError(ValueError):
    """Bad input to ``podium rules edge``; the message names the option and the problem."""


# ------------------------------------------------------------------------------------------
# Bonus tables


@dataclass(frozen=True)
class BonusEdge:
    table: Paytable
    counts: HandCounts
    best: dict[str, int]  # best hand id -> hands
    ret: Fraction  # returned per unit wagered, no envy
    envy_per_other: Fraction  # expected envy won per other player, per unit of the wager
    others: int
    wager_cents: int
    envy_scale: str

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.ret

    @property
    def return_with_envy(self) -> Fraction:
        return self.ret + self.others * self.envy_per_other

    @property
    def house_edge_with_envy(self) -> Fraction:
        return 1 - self.return_with_envy


def bonus_edge(table: Paytable, counts: HandCounts, *, others: int = MAX_OTHERS,
               wager_cents: int = ENVY_WAGER_CENTS, envy_scale: str = "fixed") -> BonusEdge:
    """Return and house edge of a bonus table, without and with envy (docs/edge.md)."""
    if table.kind != "bonus":
        raise EdgeError(f"paytable: {table.id} is a {table.kind} paytable, not a bonus one")
    _check_others(others)
    if envy_scale not in ENVY_SCALES:
        raise EdgeError(f"--envy-scale: {envy_scale!r} is not one of {', '.join(ENVY_SCALES)}")
    if wager_cents <= 0:
        raise EdgeError(f"--wager: {json_cents(wager_cents)} must be above 0")
    if envy_scale == "fixed" and wager_cents < ENVY_WAGER_CENTS:
        raise EdgeError(f"--wager: {json_cents(wager_cents)} is below the "
                        f"{json_cents(ENVY_WAGER_CENTS)} Fortune wager that qualifies for envy")
    best = counts.best()
    total = counts.total
    returned = 0  # in "hands x units": sum of count x (odds + 1)
    for pay in table.pays:
        returned += best[pay.hand] * ((pay.odds or 0) + 1)
    if table.three_pair == "push":
        returned += best["THREE_PAIR"]
    envy_cents = sum(best[p.hand] * (p.envy_cents or 0) for p in table.pays)
    # envy amounts are per $5 wager: fixed for any qualifying wager, or scaled with it
    scale = Fraction(1) if envy_scale == "fixed" else Fraction(wager_cents, ENVY_WAGER_CENTS)
    envy_per_other = Fraction(envy_cents, total) * scale / wager_cents
    return BonusEdge(table=table, counts=counts, best=best, ret=Fraction(returned, total),
                     envy_per_other=envy_per_other, others=others, wager_cents=wager_cents,
                     envy_scale=envy_scale)


def _check_others(others: int) -> None:
    if not 0 <= others <= MAX_OTHERS:
        raise EdgeError(f"--others: {others} must be 0 to {MAX_OTHERS} (other players at "
                        "the table)")


# ------------------------------------------------------------------------------------------
# Progressive tables


@dataclass(frozen=True)
class MeterPoint:
    meters_cents: dict[str, int]  # level -> meter value
    ret: Fraction

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.ret


@dataclass(frozen=True)
class LevelGrowth:
    level: str
    contribution_rate: Decimal
    reserve_rate: Decimal
    hit_probability: Fraction  # a wager wins a pay from this level
    wager_cents: int

    @property
    def growth_per_wager(self) -> Decimal:
        """Dollars every wager adds to the meter (exact)."""
        return self.contribution_rate * self.wager_cents / 100

    @property
    def reserve_per_wager(self) -> Decimal:
        return self.reserve_rate * self.wager_cents / 100

    @property
    def wagers_per_hit(self) -> Fraction:
        return 1 / self.hit_probability

    @property
    def rise_per_hit(self) -> Fraction:
        """Expected dollars the meter climbs from one hit of this level to the next."""
        return Fraction(self.growth_per_wager) * self.wagers_per_hit


@dataclass(frozen=True)
class ProgressiveEdge:
    table: Paytable
    counts: HandCounts
    best: dict[str, int]
    pay_counts: dict[str | None, int]  # best listed hand -> hands (None: no pay)
    return_fixed: Fraction  # fixed pays, per unit wagered
    per_meter: dict[str, Fraction]  # level -> return per dollar of meter (unrounded)
    points: tuple[MeterPoint, ...]
    break_even_cents: int | None  # single-level tables: smallest meter returning >= 100%
    growth: tuple[LevelGrowth, ...]
    others: int


def progressive_edge(table: Paytable, counts: HandCounts, *,
                     meters: Sequence[Mapping[str, int]] = (),
                     contribution_rates: Mapping[str, Decimal] | None = None,
                     reserve_rates: Mapping[str, Decimal] | None = None,
                     others: int = MAX_OTHERS) -> ProgressiveEdge:
    """Return of a progressive table at meter values (cents per level) and the rest of
    docs/edge.md.  ``meters``: one mapping level -> cents per point asked for."""
    if table.kind != "progressive" or table.wager_cents is None:
        raise EdgeError(f"paytable: {table.id} is a {table.kind} paytable, not a progressive one")
    _check_others(others)
    wager = table.wager_cents
    total = counts.total
    pay_counts = counts.best_listed(p.hand for p in table.pays)
    fixed = 0  # hands x cents
    per_meter: dict[str, Fraction] = dict.fromkeys(table.levels, Fraction(0))
    for pay in table.pays:
        n = pay_counts[pay.hand]
        if pay.fraction is None:
            fixed += n * table.fixed_cents(pay)
        else:
            assert pay.level is not None
            per_meter[pay.level] += Fraction(n, total) * Fraction(pay.fraction) * 100 / wager
    return_fixed = Fraction(fixed, total * wager)

    def return_at(values: Mapping[str, int]) -> Fraction:
        paid = fixed
        for pay in table.pays:
            if pay.fraction is not None:
                assert pay.level is not None
                num, den = pay.fraction.as_integer_ratio()
                paid += pay_counts[pay.hand] * (values[pay.level] * num // den)  # rounded down
        return Fraction(paid, total * wager)

    for point in meters:
        if set(point) != set(table.levels):
            raise EdgeError(f"--meter: {table.id} needs a value for each level "
                            f"({', '.join(table.levels)})")
    points = tuple(MeterPoint(dict(p), return_at(p)) for p in meters)

    break_even: int | None = None
    if len(table.levels) == 1:
        (level,) = table.levels
        if return_fixed >= 1:
            break_even = 0
        else:
            # continuous solution, then up cent by cent past the rounding of each pay
            slope = per_meter[level] / 100  # per cent of meter
            cents = max(0, _ceil((1 - return_fixed) / slope))
            while return_at({level: cents}) < 1:
                cents += 1
            break_even = cents

    growth: list[LevelGrowth] = []
    if contribution_rates is not None or reserve_rates is not None:
        for level in table.levels:
            hits = sum(pay_counts[p.hand] for p in table.pays if p.level == level)
            growth.append(LevelGrowth(
                level=level,
                contribution_rate=(contribution_rates or {}).get(level, Decimal(0)),
                reserve_rate=(reserve_rates or {}).get(level, Decimal(0)),
                hit_probability=Fraction(hits, total), wager_cents=wager))
    return ProgressiveEdge(table=table, counts=counts, best=counts.best(),
                           pay_counts=pay_counts, return_fixed=return_fixed,
                           per_meter=per_meter, points=points, break_even_cents=break_even,
                           growth=tuple(growth), others=others)


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


# ------------------------------------------------------------------------------------------
# Text


def fraction_text(value: Fraction, digits: int = SIGNIFICANT) -> str:
    """A decimal string with ``digits`` significant digits, never in exponent form."""
    if value == 0:
        return "0"
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_HALF_EVEN
        d = Decimal(value.numerator) / Decimal(value.denominator)
    return format(d, "f")


def percent_text(value: Fraction) -> str:
    return f"{fraction_text(value * 100, 8)}%"


def money_text(value: Fraction | Decimal) -> str:
    """Dollars to the cent (an expected amount: to the nearest cent)."""
    cents = Fraction(value) * 100 + Fraction(1, 2)  # to the nearest cent, half up
    return json_cents(cents.numerator // cents.denominator)


def decimal_text(value: Decimal) -> str:
    """An exact decimal with at least two decimals (``"0.20"``, ``"0.155"``)."""
    two = value.quantize(Decimal("0.01"))
    return str(two) if two == value else format(value.normalize(), "f")


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
    from core.rules.enumerate import count_hands  # numpy: only when a count is asked for

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
    _check_others(others)
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
