"""Table games on the floor: Fortune Pai Gow progressives linked across tables.

By folder: the ingest path (``ingest/``), the pay workflow (``pay/``), the meters
(``meters/``), the game's rules (``rules/``); each folder's ``__init__`` has its table.  At the
top, the :class:`Floor` facade and what every workflow shares, over one unit of work
(``unit``):

| module | job |
|---|---|
| ``floor`` | :class:`Floor`, the facade the console, the tests and the CLI call |
| ``ingest/`` | the ingest path, controller events into the ledger: ``writer`` -> ``events`` |
| ``pay/`` | the pay workflow, a hit verified, paid or rejected: ``assess`` -> ``decide`` |
| ``meters/`` | meter arithmetic (pure), kept balances and hourly totals, the risk simulator |
| ``unit`` | one transaction: accumulates what changed; ``FloorContext`` |
| ``changes`` | a unit opened; its change read, put on the feed, announced after commit |
| ``feed`` | the change told to the other podiums on the ledger (PostgreSQL) |
| ``setup`` | the floor file into the ledger (groups, levels, seeds, tables); link state |
| ``floor_approval`` | the floor parameters recorded; a change that decides a pay approved first |
| ``slips`` | slip numbers, the win slip record and bytes, a slip's void, print attempts |
| ``slip_record`` | ``WinSlip``, ``VoidMark``: what a win slip says |
| ``paper`` | the paper port: what the floor needs from ``printing`` (``SlipPaper``, ``Printer``) |
| ``queries`` | read-only views of the floor now: snapshot, a unit's change, a meter |
| ``reports`` | read-only views over time: meter history, Activity, meter report, hit record |
| ``flags`` | hit flags as codes, and their words |
| ``views`` | the read-only records handed out |

The modules and folders are in layers (pyproject.toml ``[tool.importlinter]``,
docs/architecture.md "Layers"): each imports only from those below it; the ingest path uses the
pay workflow, never the other way.
"""
