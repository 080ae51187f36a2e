"""The ingest path: controller events into the ledger.

An event a table's controller sends reaches the console core (core/app/answers.py, which hands
it to the writer and sends PAY / REJECT back), then ``writer``, the ledger writer thread, which
records a batch's START GAME and END GAME together (``bulk``) and every other event one by one
(``events``):

    core/app/answers.py -> writer -> bulk | events -> the ledger

| module | job |
|---|---|
| ``writer`` | the ledger writer: controller events committed in batches (group commit) |
| ``bulk`` | a batch's START GAME and END GAME in a few statements, decided as ``events`` does |
| ``events`` | one controller event recorded (START GAME, HIT JACKPOT, END, UNDO, MISDEAL) |
| ``replies`` | the PAY / REJECT each controller must hear, read back from the ledger |

A hit recorded here may be locked at once or cancelled (UNDO HIT, a misdeal, a controller boot
that ended): that is the pay workflow's Jackpot Lock (``pay/locks.py``).  The ingest path uses
the pay workflow; the pay workflow never imports the ingest path (pyproject.toml
``[tool.importlinter]``).
"""
