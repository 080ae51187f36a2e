"""The pay workflow: a hit verified, then paid or rejected; Jackpot Locks; voids; adjustments.

A pending hit (recorded by the ingest path) goes through, on the supervisor's screen
(gui/tablegames/verify.py), with the win slip on paper (printing/escpos/slip.py):

    assess -> freeze -> decide

| module | job |
|---|---|
| ``assess`` | what a hit's cards make and pay now, and every problem (reads only) |
| ``freeze`` | Jackpot Lock at verification: a meter pay's amount fixed while it is verified |
| ``decide`` | pay and reject, with the swipe's authority: the award, its entries, the slip |
| ``locks`` | Jackpot Lock: a pending hit's amount fixed, given back, fixed again in pay order |
| | (at the hit and at verification); a pending hit rejected or cancelled (``cancel_hit``) |
| ``voids`` | a win slip voided (and, with the money back, the award reversed) |
| ``adjust`` | manual meter adjustments by two people |

In layers (pyproject.toml ``[tool.importlinter]``): ``decide``, ``freeze``, ``voids`` and
``adjust`` over ``assess`` over ``locks``.  Nothing here imports the ingest path.
"""
