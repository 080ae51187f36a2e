"""Table games on the floor: Fortune Pai Gow progressives linked across tables.

One workflow per module, over one unit of work (``unit``):

| module | job |
|---|---|
| ``floor`` | :class:`Floor`, the facade the console, the tests and the CLI call |
| ``unit`` | one transaction: accumulates what changed; ``FloorContext`` |
| ``changes`` | a unit opened; its change read, put on the feed, announced after commit |
| ``feed`` | the change told to the other podiums on the ledger (PostgreSQL) |
| ``setup`` | the floor file into the ledger (groups, levels, seeds, tables); link state |
| ``ingest`` | one controller event recorded (START GAME, HIT JACKPOT, END, UNDO, MISDEAL) |
| ``writer`` | the ledger writer: controller events committed in batches (group commit) |
| ``assess`` | what a hit's cards make and pay now, and every problem (reads only) |
| ``decide`` | pay and reject, with the swipe's authority |
| ``adjust`` | manual meter adjustments by two people |
| ``locks`` | Jackpot Lock: an amount fixed for a pending hit, given back, fixed again |
| ``slips`` | slip numbers, the win slip record and bytes, a slip's void, print attempts |
| ``slip_record`` | ``WinSlip``, ``VoidMark``: what a win slip says |
| ``paper`` | the paper port: what the floor needs from ``printing`` (``SlipPaper``, ``Printer``) |
| ``replies`` | the PAY / REJECT each controller must hear |
| ``queries`` | read-only views: snapshot, meter history, hit record, reports |
| ``balances`` | meter entries with their kept balance and hourly totals |
| ``flags`` | hit flags as codes, and their words |
| ``views`` | the read-only records handed out |

The modules are in layers (pyproject.toml ``[tool.importlinter]``, docs/architecture.md
"Layers"): each imports only from those below it.
"""
