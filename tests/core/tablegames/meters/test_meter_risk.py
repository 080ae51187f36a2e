"""The progressive meter risk simulator (core/tablegames/meters/risk/, docs/edge.md "Meter
risk") and ``podium rules meter-risk``.  Statistical checks use a fixed RNG seed (they can not
flake) AND a 6-sigma bound against the exact probabilities of ``progressive_edge`` (they would
hold for almost every seed)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import core.cli.dispatch as cli_main
from core.cli import main
from core.kernel.money import cents_to_units
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters.risk.model import UPC, LevelPlan, MeterRisk, level_plans, pay_events
from core.tablegames.meters.risk.plot import plot_data
from core.tablegames.meters.risk.simulation import replay, simulate
from core.tablegames.rules.edge import progressive_edge
from core.tablegames.rules.enumerate import count_hands
from core.tablegames.rules.paytables import Paytable, load_paytables, parse_paytable

TABLES = load_paytables()
WA01 = TABLES["FPGPP-WA01"]
ML2 = TABLES["FPGPP-ML2"]


@pytest.fixture(autouse=True)
def only_this_command(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                      ) -> None:
    monkeypatch.setattr(cli_main, "COMMANDS_RULES", {k: v for k, v in
                                                     cli_main.COMMANDS_RULES.items()
                                                     if k == "meter-risk"})
    monkeypatch.setattr(cli_main, "COMMANDS_TOP", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


def counts(table: Paytable) -> Any:
    return count_hands(table.joker)


def plans(table: Paytable, seed: str | dict[str, str], contribution: str = "0.20",
          reserve: str = "0.02", start: dict[str, str] | None = None) -> tuple[LevelPlan, ...]:
    seeds = seed if isinstance(seed, dict) else dict.fromkeys(table.levels, seed)
    return level_plans(
        table, {lv: int(Decimal(v) * 100) for lv, v in seeds.items()},
        dict.fromkeys(table.levels, Decimal(contribution)),
        dict.fromkeys(table.levels, Decimal(reserve)),
        {lv: int(Decimal(v) * 100) for lv, v in start.items()} if start else None)


def within_6_sigma(hits: int, p: Fraction, n: int) -> bool:
    mean = float(p * n)
    sigma = math.sqrt(mean * (1 - float(p)))
    return abs(hits - mean) <= 6 * sigma


# ------------------------------------------------------------------------------------------
# Repeatability


def test_same_rng_seed_repeats_exactly() -> None:
    from core.cli.meter_risk_command import risk_json
    kw: dict[str, Any] = {"rounds": 3000, "paths": 40, "seats": 3, "all_pays_from_meter": True}
    a = simulate(WA01, counts(WA01), plans(WA01, "500.00"), rng_seed=11, **kw)
    b = simulate(WA01, counts(WA01), plans(WA01, "500.00"), rng_seed=11, **kw)
    c = simulate(WA01, counts(WA01), plans(WA01, "500.00"), rng_seed=12, **kw)
    assert risk_json(a) == risk_json(b)
    assert np.array_equal(a.levels[0].samples_cents, b.levels[0].samples_cents)
    assert np.array_equal(a.levels[0].final_meter_units, b.levels[0].final_meter_units)
    assert risk_json(a) != risk_json(c)


def test_cli_same_rng_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rules", "meter-risk", "FPGPP-ML2", "--seed-amount", "MEGA=25000,MAJOR=2500,MINOR=500",
            "--contribution-rate", "MEGA=0.10,MAJOR=0.05,MINOR=0.05", "--reserve-rate", "0.01",
            "--rounds", "2000", "--paths", "20", "--seats", "6", "--rng-seed", "5", "--json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first


# ------------------------------------------------------------------------------------------
# Against the exact probabilities (6 sigma)


def test_hit_frequency_of_every_level_matches_exact_probability() -> None:
    risk = simulate(ML2, counts(ML2), plans(ML2, {"MEGA": "25000", "MAJOR": "2500",
                                                  "MINOR": "500"}),
                    rounds=20_000, paths=200, seats=6, rng_seed=1)
    edge = progressive_edge(ML2, counts(ML2))
    total = counts(ML2).total
    for lv in risk.levels:
        hands = sum(edge.pay_counts[p.hand] for p in ML2.pays if p.level == lv.name)
        assert lv.growth.hit_probability == Fraction(hands, total)
        assert within_6_sigma(lv.hits, lv.growth.hit_probability, risk.wagers), lv.name
    assert risk.level("MINOR").hits > 1000  # enough hits for the bound to mean something


def test_hit_frequency_of_every_pay_from_the_meter_matches_exact_probability() -> None:
    risk = simulate(WA01, counts(WA01), plans(WA01, "100000.00", "0.80"), rounds=10_000,
                    paths=100, all_pays_from_meter=True, rng_seed=2)
    for p in risk.pays:
        assert within_6_sigma(p.hits, p.event.probability, risk.wagers), p.event.hand
    fixed = {p.event.hand for p in risk.pays if p.event.source == "fixed"}
    assert fixed == {"FIVE_ACES", "ROYAL_FLUSH", "STRAIGHT_FLUSH", "FOUR_OF_A_KIND",
                     "FULL_HOUSE"}


def frequent_table() -> Paytable:
    """A made-up progressive: a full house or better pays 100% of the meter (~3% of hands),
    so a test sees thousands of hits."""
    return parse_paytable({
        "id": "TEST-FH", "kind": "progressive", "name": "test", "joker": "semi",
        "wager": "1.00", "levels": ["MAIN"],
        "pays": [{"hand": "FULL_HOUSE", "level": "MAIN", "fraction": "1.00",
                  "authorization": "supervisor", "secondary_verification": False}]})


def test_mean_growth_per_round_matches_edge_rise_per_hit() -> None:
    table = frequent_table()
    c = counts(table)
    risk = simulate(table, c, plans(table, "10.00", "0.15", "0.01"), rounds=50_000, paths=20,
                    rng_seed=3)
    lv = risk.levels[0]
    expected = progressive_edge(table, c, contribution_rates={"MAIN": Decimal("0.15")}
                                ).growth[0]
    assert lv.growth.rise_per_hit == expected.rise_per_hit
    p = float(expected.hit_probability)
    # the meter's rise from one hit to the next (measured in the meter arithmetic):
    # growth_per_wager x a geometric gap; its sd is sqrt(1-p)/p wagers
    observed = Fraction(lv.rise_units, lv.hits * UPC * 100)
    growth = float(expected.growth_per_wager)
    sigma = growth * math.sqrt(1 - p) / p / math.sqrt(lv.hits)
    # gaps cut by the horizon are not seen: bias about rise/hits-per-path (here ~0.1 sigma)
    bias = float(expected.rise_per_hit) * risk.paths / lv.hits
    assert abs(float(observed) - float(expected.rise_per_hit)) <= 6 * sigma + 2 * bias
    assert lv.hits > 20_000


def test_between_pays_the_meter_grows_exactly_growth_per_wager_per_round() -> None:
    risk = simulate(ML2, counts(ML2), plans(ML2, {"MEGA": "25000", "MAJOR": "2500",
                                                  "MINOR": "500"}, "0.07", "0.01"),
                    rounds=5000, paths=5, seats=4, rng_seed=4)
    for lv in risk.levels:
        per_round = cents_to_units(100) * 4 * Decimal("0.07")
        assert lv.growth.growth_per_wager * 4 * UPC * 100 == per_round
        for path in lv.sample_paths:
            x, y = path.rounds.tolist(), path.units.tolist()
            # vertex 0: start; then (before pay, after pay) per hit; last: the end
            rising = [(0, 1)] + [(i, i + 1) for i in range(2, len(x) - 1, 2)]
            for a, b in rising:
                assert y[b] - y[a] == (x[b] - x[a]) * per_round
        assert lv.contributed_units == int(per_round) * risk.rounds * risk.paths


# ------------------------------------------------------------------------------------------
# Running dry


def test_zero_contribution_with_all_pays_from_meter_runs_dry() -> None:
    risk = simulate(WA01, counts(WA01), plans(WA01, "100.00", "0", "0"), rounds=20_000,
                    paths=50, all_pays_from_meter=True, rng_seed=5)
    lv = risk.levels[0]
    assert lv.dry_paths == risk.paths  # every path
    assert lv.dry_events > 0 and lv.dry_rounds > 0 and lv.shortfall_cents > 0
    assert lv.min_units < UPC  # the meter went down to its last fraction of a cent
    assert lv.first_dry_round_median is not None
    assert sum(p.shortfall_cents for p in risk.pays) == lv.shortfall_cents
    # nothing is created: what was paid from the meter is at most the seeds
    paid = sum(p.paid_cents for p in risk.pays)
    assert paid <= 100_00 * risk.paths  # no contribution, no reseed (on_dry "stay")


def test_without_all_pays_from_meter_nothing_runs_dry() -> None:
    risk = simulate(WA01, counts(WA01), plans(WA01, "0.00", "0", "0"), rounds=20_000,
                    paths=10, rng_seed=5)
    assert risk.levels[0].dry_events == 0
    assert {p.event.source for p in risk.pays} == {"meter"}


def test_high_seed_never_runs_dry_over_a_short_horizon() -> None:
    # 1,000 rounds x 6 seats can pay at most 6,000 x 2,500.00 in fixed pays
    risk = simulate(WA01, counts(WA01), plans(WA01, "16000000.00", "0", "0"), rounds=1000,
                    paths=100, seats=6, all_pays_from_meter=True, rng_seed=6)
    lv = risk.levels[0]
    assert (lv.dry_events, lv.dry_rounds, lv.dry_paths, lv.shortfall_cents) == (0, 0, 0, 0)
    assert all(p.dry == 0 for p in risk.pays)


# ------------------------------------------------------------------------------------------
# The arithmetic of hand-made paths against core/tablegames/meters/arithmetic.py


def reference(table: Paytable, plan_list: tuple[LevelPlan, ...],
              events: list[tuple[int, int, str]], rounds: int, seats: int, all_pays: bool,
              on_dry: str) -> dict[str, Any]:
    """Round by round with core.tablegames.meters.arithmetic: every wager contributes, then the
    hits in payment order; returns meters, reserves, pays and each pay's (round, before, after)."""
    settings = {p.name: p.settings for p in plan_list}
    state = {p.name: meters.LevelState(p.start_units, 0) for p in plan_list}
    paid: dict[str, int] = {}
    short: dict[str, int] = {}
    vertices: dict[str, list[tuple[int, int, int]]] = {p.name: [] for p in plan_list}
    ends: dict[str, list[int]] = {p.name: [] for p in plan_list}  # meter at each round end
    assert table.wager_cents is not None
    for rnd in range(1, rounds + 1):
        for lv in state:
            for _ in range(seats):
                state[lv] = meters.apply(state[lv], meters.contribute(settings[lv],
                                                                      table.wager_cents))
        hits = {seat: hand for r, seat, hand in events if r == rnd}
        for seat in meters.payment_order(hits):
            pay = table.pay_for(hits[seat])
            assert pay is not None
            if pay.fraction is not None:
                assert pay.level is not None
                lv = pay.level
                before = state[lv]
                amount, moves = meters.award(before, settings[lv], pay.fraction)
            else:
                assert all_pays
                lv = table.levels[0]
                before = state[lv]
                amount, moves = meters.award_fixed(before, table.fixed_cents(pay))
                missing = table.fixed_cents(pay) - amount
                short[pay.hand] = short.get(pay.hand, 0) + missing
                if missing and on_dry == "reseed":
                    moves += [meters.Movement("reseed", settings[lv].seed_units, 0),
                              meters.Movement("reserve_move", before.reserve_units,
                                              -before.reserve_units)]
            state[lv] = meters.apply(before, moves)
            paid[pay.hand] = paid.get(pay.hand, 0) + amount
            vertices[lv].append((rnd, before.meter_units, state[lv].meter_units))
        for lv in state:
            ends[lv].append(state[lv].meter_units // UPC)
    return {"state": state, "paid": paid, "short": short, "vertices": vertices, "ends": ends}


def check_against_reference(risk: MeterRisk, table: Paytable, plan_list: tuple[LevelPlan, ...],
                            paths_events: list[list[tuple[int, int, str]]], rounds: int,
                            seats: int, all_pays: bool, on_dry: str) -> None:
    for p, events in enumerate(paths_events):
        ref = reference(table, plan_list, events, rounds, seats, all_pays, on_dry)
        for i, lv in enumerate(risk.levels):
            assert int(lv.final_meter_units[p]) == ref["state"][lv.name].meter_units
            assert int(lv.final_reserve_units[p]) == ref["state"][lv.name].reserve_units
            path = lv.sample_paths[p]
            x, y = path.rounds.tolist(), path.units.tolist()
            assert (x[0], y[0]) == (0, plan_list[i].start_units)
            assert (x[-1], y[-1]) == (rounds, ref["state"][lv.name].meter_units)
            got = [(x[k], y[k], y[k + 1]) for k in range(1, len(x) - 1, 2)]
            assert got == ref["vertices"][lv.name]
    totals = [reference(table, plan_list, ev, rounds, seats, all_pays, on_dry)
              for ev in paths_events]
    for lv in risk.levels:  # the distribution: every round end of every path
        assert risk.sample_every == 1
        assert lv.samples_cents.tolist() == sorted(c for t in totals for c in t["ends"][lv.name])
    for pr in risk.pays:
        assert pr.paid_cents == sum(t["paid"].get(pr.event.hand, 0) for t in totals)
        assert pr.shortfall_cents == sum(t["short"].get(pr.event.hand, 0) for t in totals)


@pytest.mark.parametrize("on_dry", ["stay", "reseed"])
def test_hand_made_path_agrees_with_core_meters(on_dry: str) -> None:
    plan_list = plans(WA01, "300.00", "0.155", "0.013", start={"MAIN": "1234.56"})
    paths_events = [
        [(2, 3, "FULL_HOUSE"), (2, 1, "RF_ROYAL_MATCH"),  # one round: seat 3 first
         (5, 2, "SF7_JOKER"), (5, 3, "SF7_NATURAL"),  # 100% then 25% of the reseeded meter
         (7, 1, "FIVE_ACES"),  # 2,500.00 > the meter: dry
         (9, 2, "FOUR_OF_A_KIND"), (9, 1, "FULL_HOUSE"),
         (40, 3, "SF7_NATURAL"), (41, 1, "FIVE_ACES")],
        [],  # a path without a pay: only contributions
        [(1, 1, "STRAIGHT_FLUSH"), (60, 2, "RF_ROYAL_MATCH")],
    ]
    risk = replay(WA01, counts(WA01), plan_list, paths_events, rounds=60, seats=3,
                  all_pays_from_meter=True, on_dry=on_dry)
    check_against_reference(risk, WA01, plan_list, paths_events, 60, 3, True, on_dry)
    lv = risk.levels[0]
    assert lv.dry_events >= 1 and lv.dry_paths >= 1
    assert lv.hits == 5  # percentage pays only


def test_hand_made_ml2_path_agrees_with_core_meters_on_every_level() -> None:
    plan_list = plans(ML2, {"MEGA": "25000", "MAJOR": "2500", "MINOR": "500"}, "0.033333",
                      "0.000007")
    paths_events = [[(3, 6, "ROYAL_FLUSH"), (3, 2, "ROYAL_FLUSH"), (10, 1, "FIVE_ACES"),
                      (11, 4, "SF7_JOKER"), (11, 5, "FULL_HOUSE"), (12, 1, "STRAIGHT_FLUSH")],
                     [(1, 1, "SF7_NATURAL")]]
    for all_pays in (False, True):
        events = [[e for e in p if all_pays or e[2] not in ("FULL_HOUSE", "STRAIGHT_FLUSH")]
                  for p in paths_events]
        risk = replay(ML2, counts(ML2), plan_list, events, rounds=15, seats=6,
                      all_pays_from_meter=all_pays)
        check_against_reference(risk, ML2, plan_list, events, 15, 6, all_pays, "stay")


def test_drawn_events_fall_in_their_round_in_pay_order() -> None:
    """Wager k of a block is in round first + (k-1) // seats; each wager at most one event."""
    from core.tablegames.meters.risk.simulation import _draw
    rng = np.random.default_rng(0)
    ev_round, cat, n = _draw(rng, 2, 12, 1.0, np.array([0.5, 1.0]), 3, 5)
    assert n.tolist() == [12, 12]
    assert ev_round.tolist() == [[5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8]] * 2
    assert set(cat.ravel().tolist()) == {0, 1}
    risk = simulate(WA01, counts(WA01), plans(WA01, "100.00", "0", "0"), rounds=7, paths=3,
                    seats=5, all_pays_from_meter=True, rng_seed=1)
    for path in risk.levels[0].sample_paths:
        assert path.rounds.max() == 7 and path.rounds.min() == 0


def test_distribution_samples_follow_the_path_across_blocks(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Small blocks (many of them): the sampled round ends are the path's own values."""
    import core.tablegames.meters.risk.simulation as mr
    monkeypatch.setattr(mr, "BLOCK_EVENTS", 7)
    monkeypatch.setattr(mr, "SAMPLE_BUDGET", 1000)
    risk = simulate(WA01, counts(WA01), plans(WA01, "50.00", "0.30", "0.01"), rounds=3000,
                    paths=1, seats=2, all_pays_from_meter=True, rng_seed=10)
    lv = risk.levels[0]
    assert risk.sample_every == 3 and lv.samples_cents.size == 1000
    path = lv.sample_paths[0]
    assert path.complete
    x, y = path.rounds.tolist(), path.units.tolist()
    per_round = (y[1] - y[0]) // x[1] if x[1] else 0
    ends = []
    k = 0
    for s in range(3, 3001, 3):
        while k + 1 < len(x) and x[k + 1] <= s:
            k += 1
        ends.append((y[k] + (s - x[k]) * per_round) // UPC)
    assert lv.samples_cents.tolist() == sorted(ends)
    assert lv.max_units == max(y) and lv.min_units == min(y)


def test_fixed_pays_come_from_the_first_level_as_on_the_floor() -> None:
    events = pay_events(ML2, counts(ML2), all_pays_from_meter=True)
    assert {e.level for e in events if e.source == "fixed"} == {"MEGA"}
    assert [e.hand for e in pay_events(ML2, counts(ML2))] == [
        "SF7_NATURAL", "SF7_JOKER", "FIVE_ACES", "ROYAL_FLUSH"]


# ------------------------------------------------------------------------------------------
# Distribution and plot data


def test_distribution_figures_are_consistent() -> None:
    risk = simulate(ML2, counts(ML2), plans(ML2, {"MEGA": "25000", "MAJOR": "2500",
                                                  "MINOR": "500"}),
                    rounds=4000, paths=30, seats=6, rng_seed=8, bins=40)
    for lv in risk.levels:
        s = lv.samples_cents
        assert s.size == risk.rounds * risk.paths  # small run: every round end
        assert int(lv.hist_counts.sum()) == s.size
        assert len(lv.hist_edges_cents) == len(lv.hist_counts) + 1 <= 42
        assert lv.hist_edges_cents[0] <= s[0] and s[-1] < lv.hist_edges_cents[-1]
        ps = list(lv.percentiles_cents.values())
        assert ps == sorted(ps)
        assert lv.min_units // UPC <= s[0] <= ps[0] and ps[-1] <= s[-1] <= lv.max_units // UPC
        assert s[0] <= lv.mean_cents <= s[-1]
        assert lv.mean_cents == math.floor(Fraction(int(s.sum()), s.size) + Fraction(1, 2))
        assert lv.min_units >= lv.plan.settings.seed_units  # 100% pays reseed: never below


def test_plot_data_for_the_gui() -> None:
    risk = simulate(ML2, counts(ML2), plans(ML2, {"MEGA": "25000", "MAJOR": "2500",
                                                  "MINOR": "500"}),
                    rounds=3000, paths=12, seats=6, rng_seed=9)
    data = plot_data(risk)
    assert list(data) == ["MEGA", "MAJOR", "MINOR"]
    minor = data["MINOR"]
    assert len(minor.bin_edges) == len(minor.bin_counts) + 1
    assert len(minor.paths) == 5
    x, y = minor.paths[0]
    assert x[0] == 0 and x[-1] == 3000 and len(x) == len(y)
    assert y[0] == 500.0
    assert minor.labels["seed"] == "500.00"
    assert minor.labels["p50"] == f"{risk.level('MINOR').percentiles_cents[50] / 100:.2f}"


def test_core_meter_risk_imports_no_qt() -> None:
    code = ("import sys, core.tablegames.meters.risk, core.cli.meter_risk_command; "
            "sys.exit(any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# ------------------------------------------------------------------------------------------
# The command


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["rules", "meter-risk", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "FPGPP-WA01", "--seed-amount", "1,000", "--contribution-rate",
                         "0.2", "--rounds", "5000", "--paths", "10", "--all-pays-from-meter",
                         "--rng-seed", "1", "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["paytable"] == "FPGPP-WA01" and doc["wagers"] == 50_000
    assert doc["all_pays_from_meter"] is True and doc["fixed_pays_level"] == "MAIN"
    main_ = doc["levels"]["MAIN"]
    assert main_["seed"] == "1000.00" and main_["start"] == "1000.00"
    assert main_["reserve_rate"] == "0.00" and main_["growth_per_round"] == "0.20"
    assert set(main_["meter"]["percentiles"]) == {"1", "5", "25", "50", "75", "95", "99"}
    money = [main_["meter"]["mean"], main_["meter"]["max"], main_["dry"]["shortfall"],
             *main_["meter"]["histogram"]["edges"], *(p["paid"] for p in doc["pays"])]
    assert all(isinstance(m, str) and m.split(".")[1].isdigit() and len(m.split(".")[1]) == 2
               for m in money)
    assert main_["dry"]["events"] > 0  # 20% cannot feed 48% of fixed pays


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "FUPGPP-ML02", "--seed-amount", "25000,2500,500",
                         "--contribution-rate", "0.05", "--rounds", "1000", "--paths", "5",
                         "--rng-seed", "1")
    assert (code, err) == (0, "")
    assert out.startswith("FPGPP-ML2 meter risk: 5 paths x 1,000 rounds x 1 seat")
    for level in ("MEGA", "MAJOR", "MINOR"):
        assert f"\n{level}  seed" in out


@pytest.mark.parametrize(("argv", "needle"), [
    (["NOPE", "--seed-amount", "1", "--contribution-rate", "0.1"], "paytable"),
    (["PT1", "--seed-amount", "1", "--contribution-rate", "0.1"], "bonus"),
    (["FPGPP-WA01", "--seed-amount", "x", "--contribution-rate", "0.1"], "--seed-amount"),
    (["FPGPP-WA01", "--seed-amount", "-5", "--contribution-rate", "0.1"], "--seed-amount"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "1.5"], "--contribution-rate"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "0.9",
      "--reserve-rate", "0.2"], "more than the whole wager"),
    (["FPGPP-ML2", "--seed-amount", "MEGA=1,MAJOR=2", "--contribution-rate", "0.1"], "MINOR"),
    (["FPGPP-ML2", "--seed-amount", "1,2,3", "--contribution-rate", "0.4"], "levels together"),
    (["FPGPP-ML2", "--seed-amount", "1,2,3", "--contribution-rate", "BOGUS=0.1"], "BOGUS"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "0.1", "--rounds", "0"],
     "--rounds"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "0.1", "--paths", "ten"],
     "--paths"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "0.1", "--seats", "1001"],
     "--seats"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "0.1", "--rng-seed", "-1"],
     "--rng-seed"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "0.1", "--on-dry", "x"],
     "--on-dry"),
    (["FPGPP-WA01", "--seed-amount", "1"], "--contribution-rate"),
    (["FPGPP-WA01", "--seed-amount", "1", "--contribution-rate", "1",
      "--rounds", "100000000000000"], "--rounds"),
])
def test_cli_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                             argv: list[str], needle: str) -> None:
    try:
        code = main(["rules", "meter-risk", *argv])
    except SystemExit as exc:  # argparse: a missing option, a bad choice
        code = int(str(exc.code))
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert "Traceback" not in err
