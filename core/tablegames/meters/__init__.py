"""The progressive meters: their arithmetic, their kept balances, their risk.

| module | job |
|---|---|
| ``arithmetic`` | contribute, award, reseed, reverse, pay order (RULES.md 4); pure |
| ``balances`` | meter entries with their kept balance and hourly totals |
| ``risk/`` | the meter risk simulator, a Monte Carlo (``podium rules meter-risk``): its model,
  simulation, samples' statistics and plot data, each a module (its ``__init__`` has the table) |

Callers import the arithmetic as ``meters``.  In layers (pyproject.toml
``[tool.importlinter]``): ``balances`` and ``risk`` over ``arithmetic``, which imports nothing
of the floor.
"""
