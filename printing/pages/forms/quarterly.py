"""TGD-108 (Annex E): the gaming site tax compliance report of a quarter
(:class:`QuarterlyTax` -> :func:`quarterly_tax_html`): each month's fees (:class:`MonthFees`:
rake, jackpot admin fee, tournament fee), the 5% franchise tax and, onsite, the 25% of it
remitted to PAGCOR (TGD-1623's "25% of item E"); the jackpot shares paid in the quarter
(:class:`JackpotPayment`) and the final tax withheld from them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from html import escape

from printing.pages.forms.figures import (
    FRANCHISE_TAX_PERCENT,
    PAGCOR_PERCENT,
    TAXPAYER_NAMES,
    FormError,
    check_cents,
    percent_of,
    peso,
)
from printing.pages.forms.page import (
    BOX,
    CHECKED,
    HAND_MARK,
    PAGCOR_MARK,
    Html,
    blank,
    form_page,
    grid,
    note_lines,
    pairs,
    section,
)


@dataclass(frozen=True)
class MonthFees:
    month: date  # any day of the month
    rake_cents: int
    jackpot_admin_fee_cents: int
    tournament_fee_cents: int

    def __post_init__(self) -> None:
        for name in ("rake", "jackpot_admin_fee", "tournament_fee"):
            check_cents(getattr(self, f"{name}_cents"),
                        f"{self.month:%B %Y} {name.replace('_', ' ')}")

    @property
    def taxable_cents(self) -> int:
        return self.rake_cents + self.jackpot_admin_fee_cents + self.tournament_fee_cents

    @property
    def franchise_tax_cents(self) -> int:
        return percent_of(self.taxable_cents, FRANCHISE_TAX_PERCENT)

    @property
    def pagcor_share_cents(self) -> int:
        """TGD-108's "Less: 25% of FT remitted to PAGCOR" (the onsite section): 25% of the
        franchise tax FT (item E of TGD-1623's "25% of Franchise Tax (25% of item E)"), half
        up; not of the net F = D - E (docs/forms.md point 18)."""
        return percent_of(self.franchise_tax_cents, PAGCOR_PERCENT)

    def franchise_tax_payment_cents(self, onsite: bool) -> int:
        """TGD-108's "FRANCHISE TAX PAYMENT (Attached BIR Form 2553 ...)": onsite the franchise
        tax less the 25% of it remitted to PAGCOR, offsite the whole franchise tax (the offsite
        section has no "Less" line)."""
        return self.franchise_tax_cents - (self.pagcor_share_cents if onsite else 0)


@dataclass(frozen=True)
class JackpotPayment:
    """One jackpot share paid in the quarter and the final tax withheld from it."""

    paid_on: date
    reference: str  # the TGD-1500 / hit reference
    payee: str
    taxpayer: str  # citizen | nraetb | nranetb
    gross_cents: int
    tax_cents: int

    def __post_init__(self) -> None:
        if self.taxpayer not in TAXPAYER_NAMES:
            raise FormError(f"jackpot payment {self.reference}: taxpayer class "
                            f"{self.taxpayer!r} is unknown")
        check_cents(self.gross_cents, f"jackpot payment {self.reference}: gross")
        check_cents(self.tax_cents, f"jackpot payment {self.reference}: tax")
        if self.tax_cents > self.gross_cents:
            raise FormError(f"jackpot payment {self.reference}: tax is more than the gross")


@dataclass(frozen=True)
class QuarterlyTax:
    casino: str
    operator: str
    year: int
    quarter: int  # 1..4
    months: tuple[MonthFees, ...]
    payments: tuple[JackpotPayment, ...] = ()
    onsite: bool = True  # the poker club, ticked on the form: onsite or offsite
    room_location: str = ""  # [poker_room] room_location; "" prints a blank to fill in

    def __post_init__(self) -> None:
        if self.quarter not in (1, 2, 3, 4):
            raise FormError(f"quarter: {self.quarter!r} is not 1 to 4")
        expected = [(self.year, 3 * (self.quarter - 1) + k) for k in (1, 2, 3)]
        got = [(m.month.year, m.month.month) for m in self.months]
        if got != expected:
            raise FormError(f"months: Q{self.quarter} {self.year} needs its three months in "
                            "order, one row each")
        for p in self.payments:
            if (p.paid_on.year, p.paid_on.month) not in expected:
                raise FormError(f"jackpot payment {p.reference}: paid on {p.paid_on} is "
                                f"outside Q{self.quarter} {self.year}")


_QUARTERS = ("First", "Second", "Third", "Fourth")


def _boxes(options: Sequence[tuple[str, bool]]) -> Html:
    """Check boxes, the true ones ticked: "[x] Onsite  [ ] Offsite"."""
    return Html(" &nbsp;&nbsp; ".join(
        f'<span style="font-size:10pt;">{CHECKED if on else BOX}</span> {escape(label)}'
        for label, on in options))


def quarterly_tax_html(q: QuarterlyTax) -> str:
    """TGD-108 (Annex E) as the form lays it out: section A (the site, product type poker room,
    year, quarter, reference no.), section B part II (offsite) or III (onsite) with the monthly
    A, B, C, taxable amount, 5% franchise tax due (FT), onsite "Less: 25% of FT remitted to
    PAGCOR", the franchise tax payment and its BIR Form 2553 details; part IV the jackpot
    winnings and final tax withheld with the BIR Form 0619-F / 1601-FQ payment details
    (docs/forms.md "TGD-108")."""
    pct = PAGCOR_PERCENT
    head = pairs([
        ("Product type", _boxes((("Poker room", True), ("Remote gaming", False),
                                 ("Revenue sharing", False), ("Junket", False),
                                 ("Others", False)))),
        ("For the year", str(q.year)),
        ("Quarter", _boxes([(name, i + 1 == q.quarter) for i, name in enumerate(_QUARTERS)])),
        ("Reference no.", blank(PAGCOR_MARK)),
        ("Poker club", _boxes((("Onsite", q.onsite), ("Offsite", not q.onsite)))),
    ], label_width=25)
    part = ("III. For onsite poker room operator" if q.onsite
            else "II. For offsite poker room operator")
    b_label = ("Jackpot rake administration fee (B)" if q.onsite
               else "Share on jackpot rake administration fee (B)")
    c_label = "Tournament entry fee (C)" if q.onsite else "Share on tournament entry fee (C)"
    fees = grid(
        ("Month", "Total rake (A)", b_label, c_label, "Taxable amount (A+B+C)"),
        [(f"{m.month:%B %Y}", peso(m.rake_cents), peso(m.jackpot_admin_fee_cents),
          peso(m.tournament_fee_cents), peso(m.taxable_cents)) for m in q.months],
        right=(1, 2, 3, 4), widths=(16, 21, 21, 21, 21),
        total=("Total quarterly taxable amount", *(peso(sum(getattr(m, k) for m in q.months))
                                                   for k in ("rake_cents",
                                                             "jackpot_admin_fee_cents",
                                                             "tournament_fee_cents",
                                                             "taxable_cents"))))
    headers = ["Month", "Taxable amount", f"{FRANCHISE_TAX_PERCENT}% franchise tax due (FT)"]
    if q.onsite:
        headers.append(f"Less: {pct}% of FT remitted to PAGCOR")
    headers.append("Franchise tax payment (BIR Form 2553)")
    rows = []
    for m in q.months:
        row = [m.taxable_cents, m.franchise_tax_cents]
        if q.onsite:
            row.append(m.pagcor_share_cents)
        row.append(m.franchise_tax_payment_cents(q.onsite))
        rows.append(row)
    n = len(headers)
    tax = grid(
        headers, [(f"{m.month:%B %Y}", *(peso(c) for c in r))
                  for m, r in zip(q.months, rows, strict=True)],
        right=tuple(range(1, n)), widths=(16, *([84 // (n - 1)] * (n - 1))),
        total=(f"Q{q.quarter} total", *(peso(sum(col)) for col in zip(*rows, strict=True))))
    paid_2553 = grid(
        ("Month", "Franchise tax payment", "Date paid", "BIR Form 2553 payment details / "
         "validation"),
        [(f"{m.month:%B %Y}", peso(r[-1]), blank(width=12), blank(width=18))
         for m, r in zip(q.months, rows, strict=True)],
        right=(1,), widths=(15, 20, 25, 40))
    # IV: the jackpot winnings and the final tax withheld, per month and per taxpayer class
    def in_month(p: JackpotPayment, m: MonthFees) -> bool:
        return (p.paid_on.year, p.paid_on.month) == (m.month.year, m.month.month)

    month_rows = [(f"{m.month:%B %Y}",
                   peso(sum(p.gross_cents for p in q.payments if in_month(p, m))),
                   peso(sum(p.tax_cents for p in q.payments if in_month(p, m))))
                  for m in q.months]
    withheld = grid(
        ("Month", "Jackpot amount / winnings", "20% or 25% final withholding tax"),
        month_rows, right=(1, 2), widths=(30, 35, 35),
        total=("Total quarterly final withholding tax",
               peso(sum(p.gross_cents for p in q.payments)),
               peso(sum(p.tax_cents for p in q.payments))))
    tax_of = [sum(p.tax_cents for p in q.payments if in_month(p, m)) for m in q.months]
    bir_rows = [(f"BIR Form 0619-F ({m.month:%B %Y})", peso(t), blank(width=12),
                 blank(width=18)) for m, t in zip(q.months[:2], tax_of[:2], strict=True)]
    bir_rows.append((f"BIR Form 1601-FQ (Q{q.quarter} {q.year}; {q.months[2].month:%B} "
                     "remitted with it)", peso(sum(tax_of)), blank(width=12), blank(width=18)))
    bir = grid(("Final income tax paid", "Tax withheld in the period", "Date paid",
                "Payment details / validation"), bir_rows, right=(1,),
                widths=(40, 20, 15, 25))
    classes = (("Citizen / resident, NRAETB (20% above PHP 10,000.00)", ("citizen", "nraetb")),
               ("NRANETB (25%)", ("nranetb",)))
    summary_rows = []
    for m in q.months:
        for label, kinds in classes:
            ps = [p for p in q.payments if in_month(p, m) and p.taxpayer in kinds]
            summary_rows.append((f"{m.month:%B %Y}", label, str(len(ps)),
                                 peso(sum(p.gross_cents for p in ps)),
                                 peso(sum(p.tax_cents for p in ps))))
    summary = grid(
        ("Month", "Taxpayer class", "Shares", "Jackpot winnings", "Final tax withheld"),
        summary_rows, right=(2, 3, 4), widths=(15, 41, 8, 18, 18),
        total=(f"Q{q.quarter} total", "", str(len(q.payments)),
               peso(sum(p.gross_cents for p in q.payments)),
               peso(sum(p.tax_cents for p in q.payments))))
    detail = grid(
        ("Paid on", "Reference", "Payee", "Taxpayer", "Gross", "Tax withheld", "Net"),
        [(f"{p.paid_on:%d %b %Y}", p.reference, p.payee, TAXPAYER_NAMES[p.taxpayer],
          peso(p.gross_cents), peso(p.tax_cents), peso(p.gross_cents - p.tax_cents))
         for p in sorted(q.payments, key=lambda p: (p.paid_on, p.reference))],
        right=(4, 5, 6)) if q.payments else "<p>No jackpot was paid in the quarter.</p>"
    note = note_lines((
        f"FT is {FRANCHISE_TAX_PERCENT}% of each month's taxable amount, half up; "
        + (f"the {pct}% of FT remitted to PAGCOR (TGD-1623's \"25% of item E\") is taken of "
           "each month's FT, half up, and the franchise tax payment is FT less it."
           if q.onsite else "the offsite section has no PAGCOR line: the franchise tax "
           "payment is the whole FT."),
        "Date paid and the payment details of BIR Forms 2553, 0619-F and 1601-FQ: "
        f"({HAND_MARK}); attach the forms with their payment details / validation."))
    body = (section("Section A: general information") + head
            + section("Section B: franchise tax payment and final income tax withheld")
            + section(part) + fees + "<br>" + tax + "<br>" + paid_2553
            + section("IV. For poker club operator / proponent with tax withheld") + withheld
            + "<br>" + bir + note
            + section("Jackpot winnings by taxpayer class") + summary
            + section("Jackpot shares paid") + detail)
    first = date(q.year, 3 * q.quarter - 2, 1)
    return form_page("Gaming site tax compliance report", "TGD-108", q.casino, q.operator,
                     f"Q{q.quarter} {q.year} ({first:%B} to {q.months[-1].month:%B %Y})", body,
                     location=q.room_location)
