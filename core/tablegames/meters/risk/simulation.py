"""Meter risk, the simulation: a Monte Carlo of the meters over many rounds (docs/edge.md,
"Meter risk"), on the model of :mod:`core.tablegames.meters.risk.model`.  No I/O, no Qt;
``core/cli/meter_risk_command.py`` is the command line.

Vectorised.  Paths are independent; all paths advance in lockstep, one event per step.
Only the wagers that touch a meter are events (meter pays; fixed pays too when every pay
comes from the meter), drawn as geometric gaps, so a step covers many rounds: between two
events a meter only grows linearly.  Rounds are processed in blocks (bounded memory).
Money is exact int64 units throughout; probabilities are floats, used only to DRAW the
events (a Monte Carlo of risk; every exact figure comes from the counts).

Measured per level: the distribution of the meter at the end of the rounds (every round,
or every ``sample_every``-th round when paths x rounds is large), its mean, percentiles and
histogram; the lowest and highest the meter ever stood; hits; running dry per round, per
path over the horizon, and the shortfall.  What a GUI plots of it:
:func:`core.tablegames.meters.risk.plot.plot_data`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from core.kernel.money import cents_to_units
from core.tablegames.meters.risk.model import (
    I64,
    MAX_BINS,
    MAX_SEATS,
    ON_DRY,
    UPC,
    LevelPlan,
    LevelRisk,
    MeterRisk,
    MeterRiskError,
    PayEvent,
    PayRisk,
    SamplePath,
    pay_events,
)
from core.tablegames.meters.risk.samples import exact_sum, histogram, mean_cents, percentile
from core.tablegames.rules.edge import progressive_edge
from core.tablegames.rules.paytables import Paytable

if TYPE_CHECKING:
    from core.tablegames.rules.enumerate import HandCounts

PERCENTILES: tuple[int, ...] = (1, 5, 25, 50, 75, 95, 99)
SAMPLE_BUDGET = 1_000_000  # round-end samples per level kept for the distribution
BLOCK_EVENTS = 262_144  # paths x event slots per block: bounds memory
SAMPLE_PATHS = 5  # paths whose whole trajectory is kept for a plot
MAX_VERTICES = 200_000  # per sample path and level; the plot stops there
LIMIT_UNITS = 2**62  # a meter must stay below this for int64 arithmetic


class _Engine:
    """Meters of every path in int64 exact units; one :meth:`step` per event slot."""

    def __init__(self, plans: Sequence[LevelPlan], events: Sequence[PayEvent],
                 level_names: Sequence[str], *, paths: int, seats: int, rounds: int,
                 on_dry: str, sample_rounds: I64, sample_paths: int) -> None:
        nlev = len(plans)
        self.P, self.L, self.seats, self.rounds = paths, nlev, seats, rounds
        self.plans = plans
        self.ncat = len(events)
        self.reseed_dry = on_dry == "reseed"
        self.seed = np.array([p.settings.seed_units for p in plans], dtype=np.int64)
        # per-category tables; index ncat is "no event" (padding): it changes nothing
        lvl = [level_names.index(e.level) for e in events] + [0]
        num, den_u, amount, fixed, full, pct = [], [], [], [], [], []
        for e in events:
            if e.fraction is not None:
                n, d = e.fraction.as_integer_ratio()
                num.append(n)
                den_u.append(d * UPC)
                amount.append(0)
                fixed.append(False)
                full.append(e.fraction == 1)
                pct.append(True)
            else:
                num.append(0)
                den_u.append(1)
                amount.append(int(e.amount_cents or 0))
                fixed.append(True)
                full.append(False)
                pct.append(False)
        num.append(0)
        den_u.append(1)
        amount.append(0)
        fixed.append(False)
        full.append(False)
        pct.append(False)
        self.lvl = np.array(lvl, dtype=np.intp)
        self.num = np.array(num, dtype=np.int64)
        self.den_u = np.array(den_u, dtype=np.int64)
        self.amount = np.array(amount, dtype=np.int64)
        self.fixed = np.array(fixed, dtype=bool)
        self.full = np.array(full, dtype=bool)
        self.pct = np.array(pct, dtype=bool)
        self.ar = np.arange(paths)
        # state
        start = np.array([p.start_units for p in plans], dtype=np.int64)
        self.M: I64 = np.repeat(start[:, None], paths, axis=1)
        self.R: I64 = np.zeros((nlev, paths), dtype=np.int64)
        self.since: I64 = np.zeros((nlev, paths), dtype=np.int64)
        self.high: I64 = self.M.copy()
        self.low: I64 = self.M.copy()
        self.last: I64 = np.zeros(paths, dtype=np.int64)  # rounds contributed so far
        self.dry_last: I64 = np.zeros(paths, dtype=np.int64)
        self.first_dry: I64 = np.zeros(paths, dtype=np.int64)
        self.dry_rounds: I64 = np.zeros(paths, dtype=np.int64)
        # totals (Python ints: exact, no overflow)
        self.hits = [0] * self.ncat
        self.paid = [0] * self.ncat
        self.max_paid = [0] * self.ncat
        self.dry = [0] * self.ncat
        self.short = [0] * self.ncat
        self.max_short = 0
        self.rise = [0] * nlev
        self.sample_rounds = sample_rounds
        self.samples: list[list[I64]] = [[] for _ in range(nlev)]
        self.kept = min(sample_paths, paths)
        self.vx: list[list[list[I64]]] = [[[] for _ in range(nlev)] for _ in range(self.kept)]
        self.vy: list[list[list[I64]]] = [[[] for _ in range(nlev)] for _ in range(self.kept)]
        self.vn = [[1] * nlev for _ in range(self.kept)]
        for p in range(self.kept):
            for lv in range(nlev):
                self.vx[p][lv].append(np.zeros(1, dtype=np.int64))
                self.vy[p][lv].append(start[lv:lv + 1].copy())
        self.complete = [[True] * nlev for _ in range(self.kept)]

    def set_rates(self, contrib_units: Sequence[int], reserve_units: Sequence[int]) -> None:
        """Units every ROUND adds to each level's meter and reserve (seats x wager x rate)."""
        self.sc = np.array(contrib_units, dtype=np.int64)
        self.sr = np.array(reserve_units, dtype=np.int64)

    def block(self, first: int, last: int, ev_round: I64, cat: npt.NDArray[np.intp],
              n: npt.NDArray[np.intp]) -> None:
        """Rounds ``first..last`` (1-based, inclusive); per path ``n`` events, each its
        round (non-decreasing, within the block) and category, in pay order."""
        P, L, E = self.P, self.L, ev_round.shape[1]
        valid = np.arange(E)[None, :] < n[:, None]
        # step-major copies (each step reads and writes contiguous rows); a padding slot
        # has round 0 (max(0, last) = last: no contribution) and the "no event" category
        steps_round = np.ascontiguousarray(np.where(valid, ev_round, 0).T)
        cats = np.where(valid, cat, self.ncat)
        steps_cat = np.ascontiguousarray(cats.T)
        m_start, last_start = self.M.copy(), self.last.copy()
        rec = np.empty((E, L, P), dtype=np.int64)  # every meter after the step's pay
        pre = np.empty((E, L, P), dtype=np.int64)  # after the round's contributions
        paid = np.empty((E, P), dtype=np.int64)
        short = np.empty((E, P), dtype=np.int64)
        rise = np.empty((E, P), dtype=np.int64)
        M, Res, since, ar = self.M, self.R, self.since, self.ar
        sc, sr, upc = self.sc[:, None], self.sr[:, None], np.int64(UPC)
        for j in range(E):
            r = np.maximum(steps_round[j], self.last)
            d = r - self.last
            self.last = r
            M += sc * d
            Res += sr * d
            since += sc * d
            pre[j] = M
            c = steps_cat[j]
            lv = self.lvl[c]
            m = M[lv, ar]
            num, du = self.num[c], self.den_u[c]
            q1, r1 = np.divmod(m, du)
            pct_paid = q1 * num + (r1 * num) // du  # = m x fraction // UPC without overflow
            amt = self.amount[c]
            fixed_paid = np.minimum(amt, m // upc)
            pay = np.where(self.fixed[c], fixed_paid, pct_paid)
            sh = amt - fixed_paid
            dry = sh > 0
            m2 = m - pay * upc
            res = Res[lv, ar]
            reseed = self.full[c]
            if self.reseed_dry:
                reseed = reseed | dry
            M[lv, ar] = np.where(reseed, m2 + self.seed[lv] + res, m2)
            Res[lv, ar] = np.where(reseed, 0, res)
            hit = self.pct[c]
            s_l = since[lv, ar]
            rise[j] = np.where(hit, s_l, 0)
            since[lv, ar] = np.where(hit, 0, s_l)
            paid[j] = pay
            short[j] = sh
            rec[j] = M
            if dry.any():
                new = dry & (r != self.dry_last)
                self.dry_rounds += new
                self.dry_last = np.where(dry, r, self.dry_last)
                self.first_dry = np.where(dry & (self.first_dry == 0), r, self.first_dry)
        if E:
            np.maximum(self.high, pre.max(axis=0), out=self.high)
            np.minimum(self.low, rec.min(axis=0), out=self.low)
        self._totals(steps_cat, paid, short, rise)
        rec_pe = rec.transpose(1, 2, 0)  # level, path, step
        self._sample(first, last, valid, ev_round, rec_pe, m_start, last_start)
        self._vertices(cats, ev_round, pre.transpose(1, 2, 0), rec_pe, n)

    def _totals(self, cats: npt.NDArray[np.intp], paid: I64, short: I64, rise: I64) -> None:
        for k in range(self.ncat):
            sel = cats == k
            count = int(sel.sum())
            if not count:
                continue
            self.hits[k] += count
            pk = np.where(sel, paid, 0)
            self.paid[k] += exact_sum(pk)
            self.max_paid[k] = max(self.max_paid[k], int(pk.max()))
            sk = np.where(sel, short, 0)
            self.dry[k] += int((sk > 0).sum())
            self.short[k] += exact_sum(sk)
            self.max_short = max(self.max_short, int(sk.max()))
            if self.pct[k]:
                self.rise[int(self.lvl[k])] += exact_sum(np.where(sel, rise, 0))

    def _sample(self, first: int, last: int, valid: npt.NDArray[np.bool_], ev_round: I64,
                rec: I64, m_start: I64, last_start: I64) -> None:
        s = self.sample_rounds[(self.sample_rounds >= first) & (self.sample_rounds <= last)]
        if not s.size:
            return
        P, E = self.P, ev_round.shape[1]
        span = np.int64(self.rounds + 2)
        off = np.arange(P, dtype=np.int64) * span
        keys = (off[:, None] + np.where(valid, ev_round, last + 1)).ravel()
        query = off[:, None] + s[None, :]
        idx = np.searchsorted(keys, query.ravel(), side="right").reshape(P, s.size)
        idx = idx - 1 - (np.arange(P, dtype=np.int64) * E)[:, None]
        has = idx >= 0
        safe = np.maximum(idx, 0)
        at = np.where(has, np.take_along_axis(ev_round, safe, axis=1) if E else 0,
                      last_start[:, None])
        for lv in range(self.L):
            base = (np.where(has, np.take_along_axis(rec[lv], safe, axis=1), m_start[lv][:, None])
                    if E else m_start[lv][:, None])
            units = base + (s[None, :] - at) * self.sc[lv]
            self.samples[lv].append((units // UPC).ravel())

    def _vertices(self, cats: npt.NDArray[np.intp], ev_round: I64, pre: I64, rec: I64,
                  n: npt.NDArray[np.intp]) -> None:
        for p in range(self.kept):
            k = int(n[p])
            if not k:
                continue
            lv_of = self.lvl[cats[p, :k]]
            for lv in range(self.L):
                if not self.complete[p][lv]:
                    continue
                sel = lv_of == lv
                cnt = int(sel.sum())
                if not cnt:
                    continue
                if self.vn[p][lv] + 2 * cnt > MAX_VERTICES:
                    self.complete[p][lv] = False
                    continue
                x = np.repeat(ev_round[p, :k][sel], 2)
                y = np.empty(2 * cnt, dtype=np.int64)
                y[0::2] = pre[lv, p, :k][sel]
                y[1::2] = rec[lv, p, :k][sel]
                self.vx[p][lv].append(x)
                self.vy[p][lv].append(y)
                self.vn[p][lv] += 2 * cnt

    def finish(self) -> tuple[I64, I64]:
        """Bring every meter to the end of the last round; (meters, reserves)."""
        d = self.rounds - self.last
        self.M += self.sc[:, None] * d
        self.R += self.sr[:, None] * d
        self.since += self.sc[:, None] * d
        self.last = self.last + d
        np.maximum(self.high, self.M, out=self.high)
        for p in range(self.kept):
            for lv in range(self.L):
                if self.complete[p][lv]:
                    self.vx[p][lv].append(np.array([self.rounds], dtype=np.int64))
                    self.vy[p][lv].append(self.M[lv, p:p + 1].copy())
        return self.M, self.R


# ------------------------------------------------------------------------------------------
# Running it


def _check(table: Paytable, plans: Sequence[LevelPlan], rounds: int, paths: int, seats: int,
           on_dry: str, bins: int) -> None:
    if table.kind != "progressive" or table.wager_cents is None:
        raise MeterRiskError(f"paytable: {table.id} is a {table.kind} paytable (no meter)")
    if [p.name for p in plans] != list(table.levels):
        raise MeterRiskError(f"levels: {table.id} has levels {', '.join(table.levels)}")
    for what, value, hi in (("--rounds", rounds, None), ("--paths", paths, None),
                            ("--seats", seats, MAX_SEATS), ("--bins", bins, MAX_BINS)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise MeterRiskError(f"{what}: {value!r} must be a whole number of 1 or more")
        if hi is not None and value > hi:
            raise MeterRiskError(f"{what}: {value} is more than {hi}")
    if on_dry not in ON_DRY:
        raise MeterRiskError(f"--on-dry: {on_dry!r} is not one of {', '.join(ON_DRY)}")
    wager_units = cents_to_units(table.wager_cents)
    for p in plans:
        if p.start_units < 0:
            raise MeterRiskError(f"--start-meter {p.name}: a meter is never below zero")
        per_round = seats * wager_units * (p.settings.contribution_rate
                                           + p.settings.reserve_rate)
        bound = p.start_units + p.settings.seed_units + rounds * per_round
        if bound >= LIMIT_UNITS:
            raise MeterRiskError(f"--rounds: {rounds:,} rounds could take level {p.name} past "
                                 "what the simulator holds exactly; use fewer rounds")


def _per_round_units(table: Paytable, plans: Sequence[LevelPlan],
                     seats: int) -> tuple[list[int], list[int]]:
    assert table.wager_cents is not None
    units = cents_to_units(table.wager_cents) * seats
    contrib: list[int] = []
    reserve: list[int] = []
    for p in plans:
        for rate, out in ((p.settings.contribution_rate, contrib),
                          (p.settings.reserve_rate, reserve)):
            num, den = rate.as_integer_ratio()
            q, rest = divmod(units * num, den)
            assert not rest  # rates have at most 6 decimals, units are whole cents x 10^6
            out.append(q)
    return contrib, reserve


def _sample_grid(rounds: int, paths: int) -> tuple[int, I64]:
    every = max(1, -(-rounds * paths // SAMPLE_BUDGET))
    every = min(every, rounds)
    return every, np.arange(every, rounds + 1, every, dtype=np.int64)


def simulate(table: Paytable, counts: HandCounts, plans: Sequence[LevelPlan], *,
             rounds: int, paths: int, seats: int = 1, all_pays_from_meter: bool = False,
             on_dry: str = "stay", rng_seed: int = 0, bins: int = 50,
             sample_paths: int = SAMPLE_PATHS) -> MeterRisk:
    """Simulate ``paths`` independent meters over ``rounds`` rounds of ``seats`` wagers
    (module docstring).  The same arguments and ``rng_seed`` give the same result."""
    _check(table, plans, rounds, paths, seats, on_dry, bins)
    events = pay_events(table, counts, all_pays_from_meter)
    engine, every = _engine(table, plans, events, rounds, paths, seats, on_dry, sample_paths)
    rng = np.random.default_rng(rng_seed)
    hands = np.array([e.hands for e in events], dtype=np.float64)  # drawing only
    q = float(hands.sum()) / counts.total
    cum = np.cumsum(hands) / hands.sum() if hands.size else hands
    per_round = seats * q
    block_rounds = max(1, int(BLOCK_EVENTS / max(paths * per_round, 1e-300)))
    first = 1
    while first <= rounds:
        last = min(rounds, first + block_rounds - 1)
        ev_round, cat, n = _draw(rng, paths, (last - first + 1) * seats, q, cum, seats, first)
        engine.block(first, last, ev_round, cat, n)
        first = last + 1
    return _result(table, engine, plans, counts, events, rounds=rounds, paths=paths,
                   seats=seats, all_pays_from_meter=all_pays_from_meter, on_dry=on_dry,
                   rng_seed=rng_seed, every=every, bins=bins)


def _draw(rng: np.random.Generator, paths: int, wagers: int, q: float,
          cum: npt.NDArray[np.float64], seats: int, first: int
          ) -> tuple[I64, npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Events of one block: per path the wagers (1..wagers) that touch a meter, as
    geometric gaps (memoryless: a gap cut at the block's end restarts in the next), their
    rounds and categories."""
    if q <= 0:
        empty = np.zeros((paths, 0), dtype=np.int64)
        return empty, empty.astype(np.intp), np.zeros(paths, dtype=np.intp)
    mean = wagers * q
    width = max(1, min(wagers, int(mean + 6 * math.sqrt(mean) + 8)))
    pos = np.cumsum(rng.geometric(q, size=(paths, width)), axis=1, dtype=np.int64)
    while True:
        short = pos[:, -1] <= wagers
        if not short.any():
            break
        more = np.cumsum(rng.geometric(q, size=(paths, width)), axis=1, dtype=np.int64)
        pos = np.hstack([pos, pos[:, -1:] + more])
    n = (pos <= wagers).sum(axis=1).astype(np.intp)
    e = int(n.max()) if n.size else 0
    pos = pos[:, :e]
    cat = np.searchsorted(cum, rng.random((paths, e)), side="right").astype(np.intp)
    np.minimum(cat, cum.size - 1, out=cat)
    # wager k of a round (0-based) is seat (seats - k): increasing wager = pay order
    ev_round = (pos - 1) // seats + first
    return ev_round.astype(np.int64), cat, n


def _engine(table: Paytable, plans: Sequence[LevelPlan], events: Sequence[PayEvent],
            rounds: int, paths: int, seats: int, on_dry: str,
            sample_paths: int) -> tuple[_Engine, int]:
    every, grid = _sample_grid(rounds, paths)
    engine = _Engine(plans, events, table.levels, paths=paths, seats=seats, rounds=rounds,
                     on_dry=on_dry, sample_rounds=grid, sample_paths=sample_paths)
    engine.set_rates(*_per_round_units(table, plans, seats))
    return engine, every


def replay(table: Paytable, counts: HandCounts, plans: Sequence[LevelPlan],
           paths_events: Sequence[Sequence[tuple[int, int, str]]], *, rounds: int,
           seats: int = 1, all_pays_from_meter: bool = False, on_dry: str = "stay",
           bins: int = 50) -> MeterRisk:
    """The engine on hand-made events instead of random ones: per path a list of
    ``(round, seat, hand)``; a round's pays are paid highest seat first."""
    paths = len(paths_events)
    _check(table, plans, rounds, paths, seats, on_dry, bins)
    events = pay_events(table, counts, all_pays_from_meter)
    index = {e.hand: k for k, e in enumerate(events)}
    engine, every = _engine(table, plans, events, rounds, paths, seats, on_dry, paths)
    width = max((len(evs) for evs in paths_events), default=0)
    ev_round = np.zeros((paths, width), dtype=np.int64)
    cat = np.zeros((paths, width), dtype=np.intp)
    n = np.zeros(paths, dtype=np.intp)
    for p, evs in enumerate(paths_events):
        seen: set[tuple[int, int]] = set()
        for rnd, seat, hand in evs:
            if not 1 <= rnd <= rounds or not 1 <= seat <= seats:
                raise MeterRiskError(f"path {p} event {(rnd, seat, hand)}: round 1..{rounds}, "
                                     f"seat 1..{seats}")
            if hand not in index:
                raise MeterRiskError(f"path {p} event {(rnd, seat, hand)}: {hand} does not "
                                     "pay from a meter here")
            if (rnd, seat) in seen:
                raise MeterRiskError(f"path {p}: seat {seat} has two pays in round {rnd}")
            seen.add((rnd, seat))
        ordered = sorted(evs, key=lambda ev: (ev[0], -ev[1]))
        n[p] = len(ordered)
        for j, (rnd, _seat, hand) in enumerate(ordered):
            ev_round[p, j], cat[p, j] = rnd, index[hand]
    engine.block(1, rounds, ev_round, cat, n)
    return _result(table, engine, plans, counts, events, rounds=rounds, paths=paths,
                   seats=seats, all_pays_from_meter=all_pays_from_meter, on_dry=on_dry,
                   rng_seed=None, every=every, bins=bins)


def _result(table: Paytable, engine: _Engine, plans: Sequence[LevelPlan], counts: HandCounts,
            events: Sequence[PayEvent], *, rounds: int, paths: int, seats: int,
            all_pays_from_meter: bool, on_dry: str, rng_seed: int | None, every: int,
            bins: int) -> MeterRisk:
    meters, reserves = engine.finish()
    edge = progressive_edge(table, counts,
                            contribution_rates={p.name: p.settings.contribution_rate
                                                for p in plans},
                            reserve_rates={p.name: p.settings.reserve_rate for p in plans})
    growth = {g.level: g for g in edge.growth}
    pays = tuple(PayRisk(e, engine.hits[k], engine.paid[k], engine.max_paid[k],
                         engine.dry[k], engine.short[k]) for k, e in enumerate(events))
    dry_paths = int((engine.first_dry > 0).sum())
    first_dry = engine.first_dry[engine.first_dry > 0]
    levels = []
    for i, plan in enumerate(plans):
        samples = (np.sort(np.concatenate(engine.samples[i])) if engine.samples[i]
                   else np.zeros(0, dtype=np.int64))
        mine = [pr for pr in pays if pr.event.level == plan.name]
        dry_here = i == 0  # only the first level pays fixed amounts
        edges, hist = histogram(samples, bins)
        levels.append(LevelRisk(
            plan=plan, growth=growth[plan.name], samples_cents=samples,
            mean_cents=mean_cents(samples),
            min_units=int(engine.low[i].min()), max_units=int(engine.high[i].max()),
            percentiles_cents={q: percentile(samples, q) for q in PERCENTILES},
            hist_edges_cents=edges, hist_counts=hist,
            hits=sum(pr.hits for pr in mine if pr.event.source == "meter"),
            contributed_units=int(engine.sc[i]) * rounds * paths,
            rise_units=engine.rise[i],
            dry_events=sum(pr.dry for pr in mine),
            dry_rounds=int(engine.dry_rounds.sum()) if dry_here else 0,
            dry_paths=dry_paths if dry_here else 0,
            shortfall_cents=sum(pr.shortfall_cents for pr in mine),
            max_shortfall_cents=engine.max_short if dry_here else 0,
            first_dry_round_median=(int(statistics.median_low(first_dry.tolist()))
                                    if dry_here and first_dry.size else None),
            final_meter_units=meters[i].copy(), final_reserve_units=reserves[i].copy(),
            sample_paths=tuple(SamplePath(np.concatenate(engine.vx[p][i]),
                                          np.concatenate(engine.vy[p][i]),
                                          engine.complete[p][i]) for p in range(engine.kept)),
        ))
    return MeterRisk(table=table, rounds=rounds, paths=paths, seats=seats,
                     all_pays_from_meter=all_pays_from_meter, on_dry=on_dry, rng_seed=rng_seed,
                     sample_every=every, levels=tuple(levels), pays=pays)
