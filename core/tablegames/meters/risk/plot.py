"""Meter risk, the plot data: what a GUI plots of a run (:class:`MeterRisk`), floats for
plot coordinates only; every label comes from the exact text.  No Qt."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.kernel.money import json_cents
from core.tablegames.meters.risk.model import I64, UPC, MeterRisk


@dataclass(frozen=True)
class LevelPlot:
    level: str
    bin_edges: npt.NDArray[np.float64]  # dollars
    bin_counts: I64
    percentiles: dict[int, float]  # dollars, for marker lines
    labels: dict[str, str]  # "mean", "p5", "p50", "p95", "min", "max", "seed": "12345.67"
    paths: tuple[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], ...]  # rounds, $


def plot_data(risk: MeterRisk) -> dict[str, LevelPlot]:
    """Per level (table order): the histogram, percentile markers and a few sample paths."""
    out: dict[str, LevelPlot] = {}
    for lv in risk.levels:
        labels = {"mean": json_cents(lv.mean_cents),
                  "min": json_cents(lv.min_units // UPC),
                  "max": json_cents(lv.max_units // UPC),
                  "seed": json_cents(lv.plan.settings.seed_units // UPC)}
        labels.update({f"p{q}": json_cents(c) for q, c in lv.percentiles_cents.items()})
        out[lv.name] = LevelPlot(
            level=lv.name,
            bin_edges=lv.hist_edges_cents.astype(np.float64) / 100,
            bin_counts=lv.hist_counts.copy(),
            percentiles={q: c / 100 for q, c in lv.percentiles_cents.items()},
            labels=labels,
            paths=tuple((sp.rounds.astype(np.float64), sp.units.astype(np.float64) / (UPC * 100))
                        for sp in lv.sample_paths))
    return out
