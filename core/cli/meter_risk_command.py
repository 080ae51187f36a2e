"""``podium rules meter-risk PAYTABLE``: simulate a progressive's meters over many rounds
(``core.tablegames.meters.risk``; docs/edge.md, "Meter risk").

Level values use the syntax of ``podium rules edge``: one amount for a single-level
table, ``MEGA=25000,MAJOR=2500,MINOR=500`` (or ``25000,2500,500`` in the table's level
order) for several; a rate is one for every level or per level (a level left out: 0).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from fractions import Fraction
from typing import Any

from core.cli.edge_command import parse_meter, parse_rates
from core.kernel.money import MoneyError, json_cents, json_units_floor, parse_count
from core.tablegames.meters.risk.model import (
    MAX_BINS,
    MAX_SEATS,
    ON_DRY,
    UPC,
    LevelRisk,
    MeterRisk,
    MeterRiskError,
    level_plans,
    pay_events,
)
from core.tablegames.meters.risk.samples import histogram
from core.tablegames.meters.risk.simulation import simulate
from core.tablegames.rules.edge import decimal_text, fraction_text, money_text
from core.tablegames.rules.paytables import load_paytables

DEFAULT_ROUNDS = 100_000
DEFAULT_PATHS = 100
DEFAULT_BINS = 50
MAX_ROUNDS = 10**12  # rounds per path
MAX_PATHS = 1_000_000  # the simulator keeps a few numbers per path: ~100 MB at this bound
MAX_RNG_SEED = 2**64 - 1
DEFAULT_MAX_HITS = 100_000_000  # pays simulated (each one is work): about 75 s on one core


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("paytable", metavar="PAYTABLE",
                        help="a progressive paytable id, e.g. FPGPP-WA01, FPGPP-ML2")
    parser.add_argument("--seed-amount", required=True, metavar="AMOUNT",
                        help="each level's seed (the meter restarts at seed + reserve): "
                             "10000, or MEGA=25000,MAJOR=2500,MINOR=500")
    parser.add_argument("--contribution-rate", required=True, metavar="RATE",
                        help="share of every wager to the meter: 0.20, or per level "
                             "MEGA=0.10,MAJOR=0.05,MINOR=0.05 (a level left out: 0)")
    parser.add_argument("--reserve-rate", default="0", metavar="RATE",
                        help="share of every wager to the reserve, like --contribution-rate "
                             "(default 0)")
    parser.add_argument("--start-meter", metavar="AMOUNT",
                        help="the meters at the start, like --seed-amount (default: the seeds)")
    parser.add_argument("--rounds", default=str(DEFAULT_ROUNDS), metavar="N",
                        help=f"rounds per path, the horizon (default {DEFAULT_ROUNDS:,}, at "
                             f"most {MAX_ROUNDS:,})")
    parser.add_argument("--paths", default=str(DEFAULT_PATHS), metavar="P",
                        help=f"independent paths (default {DEFAULT_PATHS}, at most "
                             f"{MAX_PATHS:,})")
    parser.add_argument("--seats", default="1", metavar="N",
                        help=f"progressive wagers per round (default 1, at most {MAX_SEATS})")
    parser.add_argument("--max-hits", default=str(DEFAULT_MAX_HITS), metavar="N",
                        help="refuse when paths x rounds x seats x the chance of a pay expects "
                             f"more pays than this (default {DEFAULT_MAX_HITS:,}, about a "
                             "minute and a half; the work grows with the pays simulated)")
    parser.add_argument("--all-pays-from-meter", action="store_true",
                        help="fixed pays are also taken from the (first) meter; a pay larger "
                             "than the meter runs it dry")
    parser.add_argument("--on-dry", default="stay", choices=ON_DRY,
                        help="after running dry the meter keeps its fraction of a cent and "
                             "refills (stay, what the console does) or restarts at seed + "
                             "reserve (reseed)")
    parser.add_argument("--rng-seed", metavar="S",
                        help="random seed: the same seed and options give the same result "
                             "(default: a fresh one, printed)")
    parser.add_argument("--bins", default=str(DEFAULT_BINS), metavar="N",
                        help=f"histogram bins (default {DEFAULT_BINS}, at most {MAX_BINS})")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def _whole(text: object, opt: str, *, low: int = 1, high: int) -> int:
    """A count option: digits, optionally grouped (``100,000``), between ``low`` and
    ``high``."""
    try:
        return parse_count(str(text), opt, low=low, high=high)
    except MoneyError as exc:
        raise MeterRiskError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    tables = load_paytables()
    pid = str(args.paytable)
    table = tables.get(pid)
    if table is None:
        known = sorted({t.id for t in tables.values() if t.kind == "progressive"})
        raise MeterRiskError(f"paytable: unknown paytable {pid!r} (progressive: "
                             f"{', '.join(known)})")
    if table.kind != "progressive":
        raise MeterRiskError(f"paytable: {table.id} is a bonus paytable (no meter)")
    seeds = parse_meter(args.seed_amount, table.levels, "--seed-amount")
    contrib = parse_rates(args.contribution_rate, table.levels, "--contribution-rate")
    reserve = parse_rates(args.reserve_rate, table.levels, "--reserve-rate")
    starts = (parse_meter(args.start_meter, table.levels, "--start-meter")
              if args.start_meter is not None else None)
    rounds = _whole(args.rounds, "--rounds", high=MAX_ROUNDS)
    paths = _whole(args.paths, "--paths", high=MAX_PATHS)
    seats = _whole(args.seats, "--seats", high=MAX_SEATS)
    bins = _whole(args.bins, "--bins", high=MAX_BINS)
    max_hits = _whole(args.max_hits, "--max-hits", high=10**15)
    rng_seed = (_whole(args.rng_seed, "--rng-seed", low=0, high=MAX_RNG_SEED)
                if args.rng_seed is not None else secrets.randbits(48))
    plans = level_plans(table, seeds, contrib, reserve, starts)
    from core.tablegames.rules.enumerate import count_hands  # numpy: only when asked for

    counts = count_hands(table.joker)
    events = pay_events(table, counts, args.all_pays_from_meter)
    expected = Fraction(rounds * paths * seats * sum(e.hands for e in events), counts.total)
    if expected > max_hits:
        raise MeterRiskError(f"--rounds x --paths x --seats: {paths:,} paths x {rounds:,} "
                             f"rounds x {seats} seat(s) expect about {round(expected):,} pays "
                             f"to simulate, more than --max-hits {max_hits:,}; ask for fewer "
                             "rounds or paths, or raise --max-hits")
    risk = simulate(table, counts, plans, rounds=rounds, paths=paths,
                    seats=seats, all_pays_from_meter=args.all_pays_from_meter,
                    on_dry=args.on_dry, rng_seed=rng_seed, bins=bins)
    if args.json:
        json.dump(risk_json(risk), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print(risk)
    return 0


# ------------------------------------------------------------------------------------------
# Output


def _units(units: int) -> str:
    return json_units_floor(units)


def _per_round_dollars(lv: LevelRisk, seats: int) -> str:
    return decimal_text(lv.growth.growth_per_wager * seats)


def _level_json(risk: MeterRisk, lv: LevelRisk) -> dict[str, Any]:
    s = lv.plan.settings
    g = lv.growth
    expected_hits = g.hit_probability * risk.wagers
    rounds_played = risk.rounds * risk.paths
    observed = lv.observed_rise_per_hit
    return {
        "seed": _units(s.seed_units),
        "start": _units(lv.plan.start_units),
        "contribution_rate": decimal_text(s.contribution_rate),
        "reserve_rate": decimal_text(s.reserve_rate),
        "growth_per_round": _per_round_dollars(lv, risk.seats),
        "meter": {
            "samples": int(lv.samples_cents.size),
            "mean": json_cents(lv.mean_cents),
            "min": _units(lv.min_units),
            "max": _units(lv.max_units),
            "percentiles": {str(q): json_cents(c) for q, c in lv.percentiles_cents.items()},
            "histogram": {"edges": [json_cents(int(e)) for e in lv.hist_edges_cents],
                          "counts": [int(c) for c in lv.hist_counts]},
        },
        "final_meter_mean": money_text(Fraction(_sum(lv.final_meter_units),
                                                risk.paths * UPC * 100)),
        "final_reserve_mean": money_text(Fraction(_sum(lv.final_reserve_units),
                                                  risk.paths * UPC * 100)),
        "hits": lv.hits,
        "hit_probability": fraction_text(g.hit_probability),
        "expected_hits": fraction_text(expected_hits),
        "contributed": _units(lv.contributed_units),
        "rise_per_hit": money_text(g.rise_per_hit),
        "observed_rise_per_hit": money_text(observed) if observed is not None else None,
        "dry": {
            "events": lv.dry_events,
            "rounds": lv.dry_rounds,
            "per_round": fraction_text(Fraction(lv.dry_rounds, rounds_played)),
            "paths": lv.dry_paths,
            "per_path": fraction_text(Fraction(lv.dry_paths, risk.paths)),
            "shortfall": json_cents(lv.shortfall_cents),
            "mean_shortfall": (money_text(Fraction(lv.shortfall_cents, 100 * lv.dry_events))
                               if lv.dry_events else None),
            "max_shortfall": json_cents(lv.max_shortfall_cents),
            "first_dry_round_median": lv.first_dry_round_median,
        },
    }


def _sum(values: Any) -> int:
    return sum(int(v) for v in values)


def risk_json(risk: MeterRisk) -> dict[str, Any]:
    t = risk.table
    assert t.wager_cents is not None
    return {
        "paytable": t.id,
        "joker": t.joker,
        "wager": json_cents(t.wager_cents),
        "rounds": risk.rounds,
        "paths": risk.paths,
        "seats": risk.seats,
        "wagers": risk.wagers,
        "all_pays_from_meter": risk.all_pays_from_meter,
        "fixed_pays_level": t.levels[0] if risk.all_pays_from_meter else None,
        "on_dry": risk.on_dry,
        "rng_seed": risk.rng_seed,
        "sample_every": risk.sample_every,
        "levels": {lv.name: _level_json(risk, lv) for lv in risk.levels},
        "pays": [{
            "hand": p.event.hand,
            "level": p.event.level,
            "source": p.event.source,
            "probability": fraction_text(p.event.probability),
            "expected_hits": fraction_text(p.event.probability * risk.wagers),
            "hits": p.hits,
            "paid": json_cents(p.paid_cents),
            "mean_paid": money_text(Fraction(p.paid_cents, 100 * p.hits)) if p.hits else None,
            "max_paid": json_cents(p.max_paid_cents),
            "dry": p.dry,
            "shortfall": json_cents(p.shortfall_cents),
        } for p in risk.pays],
    }


def _print(risk: MeterRisk) -> None:
    t = risk.table
    seats = f"{risk.seats} seat{'s' if risk.seats != 1 else ''}"
    print(f"{t.id} meter risk: {risk.paths:,} paths x {risk.rounds:,} rounds x {seats} = "
          f"{risk.wagers:,} wagers (rng seed {risk.rng_seed})")
    if risk.all_pays_from_meter:
        after = ("keeps its fraction of a cent and refills" if risk.on_dry == "stay"
                 else "restarts at seed + reserve")
        print(f"every pay from the meter: fixed pays from {t.levels[0]}; a pay larger than the "
              f"meter runs it dry (the rest from the tray), the meter {after}")
    else:
        print("percentage pays from the meters, fixed pays from the tray")
    every = (f"every {risk.sample_every:,} rounds" if risk.sample_every > 1 else "every round")
    for lv in risk.levels:
        s = lv.plan.settings
        print(f"\n{lv.name}  seed {_units(s.seed_units)}  start {_units(lv.plan.start_units)}  "
              f"contribution {decimal_text(s.contribution_rate)}  reserve "
              f"{decimal_text(s.reserve_rate)}  (+{_per_round_dollars(lv, risk.seats)} a round)")
        print(f"  meter at round ends ({every}, {lv.samples_cents.size:,} samples): mean "
              f"{json_cents(lv.mean_cents)}; it stood between {_units(lv.min_units)} and "
              f"{_units(lv.max_units)}")
        print("  percentiles   " + "  ".join(f"{q}%: {json_cents(c)}"
                                             for q, c in lv.percentiles_cents.items()))
        edges, counts = histogram(lv.samples_cents, 10)
        top = int(counts.max()) if counts.size else 0
        for i, n in enumerate(counts):
            bar = "#" * (round(40 * int(n) / top) if top else 0)
            print(f"  {json_cents(int(edges[i])):>14} - {json_cents(int(edges[i + 1]) - 1):<14} "
                  f"{int(n):>10,} {bar}")
        g = lv.growth
        observed = lv.observed_rise_per_hit
        expected = fraction_text(g.hit_probability * risk.wagers, 6)
        print(f"  hits          {lv.hits:,} (expected {expected}: 1 in "
              f"{fraction_text(g.wagers_per_hit, 8)} wagers); rise per hit "
              f"{money_text(g.rise_per_hit)} expected, "
              f"{money_text(observed) if observed is not None else '-'} seen")
        if risk.all_pays_from_meter and lv is risk.levels[0]:
            played = risk.rounds * risk.paths
            print(f"  ran dry       {lv.dry_events:,} times in {lv.dry_rounds:,} rounds "
                  f"({fraction_text(Fraction(lv.dry_rounds, played), 6)} per round); "
                  f"{lv.dry_paths:,} of {risk.paths:,} paths "
                  f"({fraction_text(Fraction(100 * lv.dry_paths, risk.paths), 6)}%)")
            if lv.dry_events:
                print(f"  shortfall     {json_cents(lv.shortfall_cents)} in all, "
                      f"{money_text(Fraction(lv.shortfall_cents, 100 * lv.dry_events))} mean, "
                      f"{json_cents(lv.max_shortfall_cents)} at most; median first dry round "
                      f"{lv.first_dry_round_median:,}")
    print(f"\n  {'pay':<16} {'level':<6} {'source':<6} {'hits':>10} {'expected':>14} "
          f"{'paid':>16} {'largest':>12} {'dry':>8} {'shortfall':>14}")
    for p in risk.pays:
        print(f"  {p.event.hand:<16} {p.event.level:<6} {p.event.source:<6} {p.hits:>10,} "
              f"{fraction_text(p.event.probability * risk.wagers, 6):>14} "
              f"{json_cents(p.paid_cents):>16} {json_cents(p.max_paid_cents):>12} "
              f"{p.dry:>8,} {json_cents(p.shortfall_cents):>14}")
