"""Table games on the floor: Fortune Pai Gow progressives linked across tables.

One workflow per module, over one unit of work (``unit``):

| module | job |
|---|---|
| ``floor`` | :class:`Floor`, the facade the console, the tests and the CLI call |
| ``unit`` | one transaction: accumulates what changed, announces it after commit |
| ``setup`` | the floor file into the ledger (groups, levels, seeds, tables); link state |
| ``ingest`` | one controller event recorded (START GAME, HIT JACKPOT, END, UNDO, MISDEAL) |
| ``writer`` | the ledger writer: controller events committed in batches (group commit) |
| ``assess`` | what a hit's cards make and pay now, and every problem (reads only) |
| ``decide`` | pay and reject, with the swipe's authority |
| ``adjust`` | manual meter adjustments by two people |
| ``slips`` | slip numbers, the win slip record and bytes, print attempts |
| ``replies`` | the PAY / REJECT each controller must hear |
| ``queries`` | read-only views: snapshot, meter history, hit record, reports |
| ``balances`` | meter entries with their kept balance and hourly totals |
| ``flags`` | hit flags as codes, and their words |
| ``views`` | the read-only records handed out |
"""
