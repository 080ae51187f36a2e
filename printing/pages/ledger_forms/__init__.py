"""The regulator's poker-room forms filled from the ledger (docs/forms.md "From the ledger").

Each function reads the ledger (read only: one ``Session``; on PostgreSQL a READ ONLY,
REPEATABLE READ transaction, so every figure of a form comes from one snapshot:
:mod:`.reading`) and returns the :mod:`printing.pages.forms` dataclass; :func:`render`
(:mod:`.render`) gives the HTML of one :class:`FormRequest`.  One module a form family:

* :func:`daily_report` (:mod:`.daily`): TGD-1623 (onsite, with the remittance) / TGD-1494
  (offsite) of one fund's gaming day, from its drop-box counts and its POSTING (previous,
  distribution and updated amounts exactly as posted);
* :func:`awarding_request` (:mod:`.award`): TGD-1500 of an approved case, every money figure
  from the fund's award row and its share rows (``bbj_awards.case_id``);
* :func:`quarterly_tax` (:mod:`.quarterly`): TGD-108, the month's rake, admin fees and
  tournament fees of every fund and every jackpot share paid in the quarter;
* :func:`transfer_cessation` (:mod:`.cessation`): TGD-1540 of a ceased fund (parts 1 and 2
  from its ``bbj_cessations`` row, part 1's dates from the notice that held), or part 1 of a
  planned transfer (or cessation once hit) of a fund still open; its linked tables
  (:func:`linked_tables`) from the fund's drop counts;
* :func:`implementation_request` (:mod:`.implementation`): TGD-1581 (Annex A), the floor
  file's ``[poker_room]`` rules and the fund as the ledger has it, for a requested
  implementation date;
* ``forfeiture``: the report of a fund forfeited to PAGCOR on closure
  (:func:`printing.pages.closure_form.forfeiture_report`).

A form that can not be produced is a :class:`printing.pages.forms.FormError` whose message tells the
accountant what to do ("2026-11-30: fund 'bbj' has no posting for the day; count and post it
first").  Nothing here writes to the ledger.  This package re-exports the public names, so
``from printing.pages.ledger_forms import ...`` is all a caller needs.
"""

from __future__ import annotations

from printing.pages.forms import FormError
from printing.pages.ledger_forms.award import SMALL_BLIND_NOTE, awarding_request
from printing.pages.ledger_forms.cessation import linked_tables, transfer_cessation
from printing.pages.ledger_forms.daily import daily_report
from printing.pages.ledger_forms.implementation import implementation_request
from printing.pages.ledger_forms.quarterly import quarterly_tax
from printing.pages.ledger_forms.render import (
    FORM_KINDS,
    FormRequest,
    RenderedForm,
    render,
    safe_stem,
)

__all__ = ["FORM_KINDS", "SMALL_BLIND_NOTE", "FormError", "FormRequest", "RenderedForm",
           "awarding_request", "daily_report", "implementation_request", "linked_tables",
           "quarterly_tax", "render", "safe_stem", "transfer_cessation"]
