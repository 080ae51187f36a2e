"""The regulator's poker-room forms (RULES.md section 6 "Deadlines and reports") as pages.

Each form is a frozen input dataclass and a pure function that builds HTML for Qt's
``QTextDocument``; :func:`printing.pages.winpage.write_pdf` and
:func:`printing.pages.winpage.render_png` print that HTML to PDF / PNG (Qt is imported only there).
One module a form family:

* :mod:`.daily`: TGD-1494 (offsite) / TGD-1623 (onsite): :class:`DailyReport` ->
  :func:`daily_report_html` (TGD-1623 adds the remittance, :func:`remittance`, and PAGCOR
  Treasury's receipt);
* :mod:`.award`: TGD-1500: :class:`AwardingRequest` (build it with :func:`awarding_request`
  from a bbj ``Decision``, its ``Claim`` and the sharers' names) -> :func:`awarding_request_html`;
* :mod:`.quarterly`: TGD-108: :class:`QuarterlyTax` (:class:`MonthFees`,
  :class:`JackpotPayment`) -> :func:`quarterly_tax_html`;
* :mod:`.cessation`: TGD-1540: :class:`TransferCessation` -> :func:`transfer_cessation_html`
  (parts 1 and 2);
* :mod:`.implementation`: TGD-1581 (Annex A): :class:`ImplementationRequest` ->
  :func:`implementation_request_html` (the filing deadline: :mod:`core.pokerroom.implementation`);

and what they share: :mod:`.figures` (:class:`FormError`, the rates, rounding and the amounts'
writing) and :mod:`.page` (the page's frame, grids, signatures, blanks); :mod:`.demo` fills
every form with the example figures of docs/forms.md.  This package re-exports the public
names, so ``from printing.pages.forms import ...`` is all a caller needs.

Every form also has the poker room's location, PAGCOR's TGD reference number box, the
operator's certification with PAGCOR's attestation and a "For PAGCOR use" action section; a
field the ledger can not fill is a ruled :func:`blank` marked "(to be filled by hand: not in
the ledger)" or "(PAGCOR use)".

Money is ``int`` centavos, written by the poker room's funds' currency in the casino's locale
(``core.kernel.money.Currency``, the floor file's ``[poker_room] currency`` and ``[casino]
locale``: ``₱1,234.56``, as the room's screens write it); :func:`written_in` sets it for the
forms built inside it (the default: pesos as ``en_US`` writes them).  The jackpot rake's split
(the 30% admin fee, which is also TGD-1623's B, and the fund's 70% main / 30% reserve) is the
ledger's own :func:`core.pokerroom.fund.distribute` (rounded DOWN, the rest to the reserve), so
a form never shows other figures than the fund's posting.  The other percentages (franchise
tax, PAGCOR's share, TGD-108) are exact integer arithmetic rounded HALF UP to the centavo
(:func:`percent_of`).  An amount that is the rest of another (the reserve, F = D - E) is a
subtraction, so the parts always add up to the whole.  printing/pages/ledger_forms/ fills these
dataclasses from the ledger.  docs/forms.md lists every ambiguous point of the guidelines and
the decision.
"""

from __future__ import annotations

from core.pokerroom.business_days import add_business_days
from printing.pages.forms.award import (
    TGD1500_INSTRUCTIONS,
    TGD1500_RECEIPT_CERTIFICATE,
    TGD1500_UNDERTAKINGS,
    AwardingRequest,
    Sharer,
    awarding_request,
    awarding_request_html,
)
from printing.pages.forms.cessation import (
    TGD1540_ATTACHMENTS,
    TGD1540_SUBMISSION,
    LinkedTable,
    TransferCessation,
    affirmations,
    transfer_cessation_html,
)
from printing.pages.forms.daily import (
    DENOMINATIONS,
    DailyReport,
    FundSplit,
    Remittance,
    TableDay,
    daily_report_html,
    fund_split,
    remittance,
)
from printing.pages.forms.demo import demo_forms, write_demo_forms
from printing.pages.forms.figures import (
    FRANCHISE_TAX_PERCENT,
    PAGCOR_PERCENT,
    FormError,
    percent_of,
    peso,
    rate_text,
    written_in,
)
from printing.pages.forms.implementation import (
    HAND_REQUIREMENTS,
    TGD1581_DOCUMENTS,
    TGD1581_UNDERTAKING,
    ImplementationRequest,
    implementation_request_html,
)
from printing.pages.forms.page import BOX, CHECKED, HAND_MARK, PAGCOR_MARK, Html, blank
from printing.pages.forms.quarterly import (
    JackpotPayment,
    MonthFees,
    QuarterlyTax,
    quarterly_tax_html,
)

__all__ = [
    "BOX", "CHECKED", "DENOMINATIONS", "FRANCHISE_TAX_PERCENT", "HAND_MARK", "HAND_REQUIREMENTS",
    "PAGCOR_MARK", "PAGCOR_PERCENT", "TGD1500_INSTRUCTIONS", "TGD1500_RECEIPT_CERTIFICATE",
    "TGD1500_UNDERTAKINGS", "TGD1540_ATTACHMENTS", "TGD1540_SUBMISSION", "TGD1581_DOCUMENTS",
    "TGD1581_UNDERTAKING", "AwardingRequest", "DailyReport", "FormError", "FundSplit", "Html",
    "ImplementationRequest", "JackpotPayment", "LinkedTable", "MonthFees", "QuarterlyTax",
    "Remittance", "Sharer", "TableDay", "TransferCessation", "add_business_days",
    "affirmations", "awarding_request", "awarding_request_html", "blank", "daily_report_html",
    "demo_forms", "fund_split", "implementation_request_html", "percent_of", "peso",
    "quarterly_tax_html", "rate_text", "remittance", "transfer_cessation_html",
    "write_demo_forms", "written_in",
]
