"""The ingest path: controller events into the ledger.

An event a table's controller sends reaches the console core (core/app/answers.py, which hands
it to the writer and sends PAY / REJECT back), then ``writer``, the ledger writer thread, which
commits the events waiting in one transaction (``batch``): a batch's START GAME and END GAME
together (``bulk``) and every other event one by one (``events``), a refused one's row in its
place (``refusals``):

    core/app/answers.py -> writer -> batch -> bulk | events (| refusals) -> the ledger

| module | job |
|---|---|
| ``writer`` | the ledger writer's thread: controller events committed in batches (group commit) |
| ``batch`` | a batch's one transaction: the fence, link states, every job in its savepoint |
| ``bulk`` | a batch's START GAME and END GAME in a few statements, decided as ``events`` does |
| ``events`` | one controller event recorded (START GAME, HIT JACKPOT, END, UNDO, MISDEAL) |
| ``refusals`` | an event screened before it is recorded; a refused event's row |
| ``replies`` | the PAY / REJECT each controller must hear, read back from the ledger |

A hit recorded here may be locked at once or cancelled (UNDO HIT, a misdeal, a controller boot
that ended): that is the pay workflow's Jackpot Lock (``pay/locks.py``).  The ingest path uses
the pay workflow; the pay workflow never imports the ingest path (pyproject.toml
``[tool.importlinter]``).
"""
