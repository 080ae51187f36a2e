"""The meter risk simulator, a Monte Carlo of the progressive meters (docs/edge.md, "Meter
risk"; ``podium rules meter-risk``, the paytable screen's Meter risk box).  No I/O, no Qt.

| module | job |
|---|---|
| ``model`` | a level's plan, the pays that move a meter, what a run gives (``MeterRisk``) |
| ``simulation`` | the run, every path's meters in exact int64 units (``simulate``, ``replay``) |
| ``samples`` | the samples' sum, mean, percentiles and histogram, exact |
| ``plot`` | what a GUI plots of a run (``plot_data``) |

In layers (pyproject.toml ``[tool.importlinter]``): ``plot`` and ``simulation`` over
``samples`` over ``model``.  The package is the simulator's face for a caller that loads it
by name (the paytable screen, which shows a placeholder when it is missing): the names below.
"""

from core.tablegames.meters.risk.model import (
    LevelPlan,
    LevelRisk,
    MeterRisk,
    MeterRiskError,
    PayEvent,
    level_plans,
    pay_events,
)
from core.tablegames.meters.risk.plot import LevelPlot, plot_data
from core.tablegames.meters.risk.simulation import replay, simulate

__all__ = [
    "LevelPlan", "LevelPlot", "LevelRisk", "MeterRisk", "MeterRiskError", "PayEvent",
    "level_plans", "pay_events", "plot_data", "replay", "simulate",
]
