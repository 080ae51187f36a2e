"""The regulator's poker-room forms (RULES.md section 6 "Deadlines and reports") as pages.

Each form is a frozen input dataclass and a pure function that builds HTML for Qt's
``QTextDocument``; :func:`printing.pages.winpage.write_pdf` and
:func:`printing.pages.winpage.render_png` print that HTML to PDF / PNG (Qt is imported only there).

* TGD-1494 (offsite) / TGD-1623 (onsite): :class:`DailyReport` -> :func:`daily_report_html`
  (TGD-1623 adds the remittance, :func:`remittance`);
* TGD-1500: :class:`AwardingRequest` (build it with :func:`awarding_request` from a bbj
  ``Decision``, its ``Claim`` and the sharers' names) -> :func:`awarding_request_html`;
* TGD-108: :class:`QuarterlyTax` -> :func:`quarterly_tax_html`;
* TGD-1540: :class:`TransferCessation` -> :func:`transfer_cessation_html` (parts 1 and 2);
* TGD-1581 (Annex A): :class:`ImplementationRequest` -> :func:`implementation_request_html`
  (the filing deadline: :mod:`core.pokerroom.implementation`).

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
subtraction, so the parts always add up to the whole.  printing/pages/ledger_forms.py fills these
dataclasses from the ledger.  docs/forms.md lists every ambiguous point of the guidelines and
the decision.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from fractions import Fraction
from html import escape
from zoneinfo import ZoneInfo

from core.kernel.money import PESOS, Currency, format_cents
from core.pokerroom import implementation
from core.pokerroom.business_days import add_business_days
from core.pokerroom.fund import (
    PART1_BUSINESS_DAYS,
    PART2_BUSINESS_DAYS,
    PLAYERS_DAYS,
    FundSettings,
    distribute,
)
from core.pokerroom.rules.bbj import BbjSettings, Claim, Decision, Share

_FUND = FundSettings()  # the rates every form prints (RULES.md 6 "Funding")
DENOMINATIONS: tuple[int, ...] = _FUND.denominations  # pesos: the chips of a jackpot drop box
FRANCHISE_TAX_PERCENT = 5
PAGCOR_PERCENT = 25
_RULE = "border-color:#444444; border-style:solid; border-collapse:collapse;"
_ROLE_NAMES = {"winning": "Winning hand", "losing": "Losing hand",
               "table": "Table share"}
_TAXPAYER_NAMES = {"citizen": "Citizen", "nraetb": "NRAETB", "nranetb": "NRANETB"}
# The marks of a field the form can not fill (docs/forms.md "Blanks"): printed small after a
# ruled blank, so a reader sees at once who fills it in.
HAND_MARK = "to be filled by hand: not in the ledger"
PAGCOR_MARK = "PAGCOR use"
BOX = "\u2610"  # a check box to tick by hand
CHECKED = "\u2612"  # a box the form ticks
# PAGCOR's 25% (PAGCOR_PERCENT): TGD-1623's "PAGCOR Share (25% of Item F)" and "25% of Franchise
# Tax (25% of item E)", and TGD-108's onsite "Less: 25% of FT remitted to PAGCOR" (of E, the
# franchise tax). The guideline's own text names no other rate (docs/forms.md point 18).


class FormError(ValueError):
    """A form can not be produced from its input (the message names the field and problem)."""


# --------------------------------------------------------------------------------------
# Arithmetic


def rate_text(rate: Decimal) -> str:
    """A rate as a percentage for a label: 0.30 -> "30%", 0.325 -> "32.5%"."""
    pct = (rate * 100).normalize()
    return f"{pct:f}%"


def percent_of(cents: int, percent: int | Fraction) -> int:
    """``cents x percent / 100`` rounded half up to the centavo (cents >= 0)."""
    if cents < 0:
        raise FormError(f"percent_of: {format_cents(cents)} is negative")
    share = Fraction(cents) * Fraction(percent) / 100
    return int(share + Fraction(1, 2)) if share.denominator != 1 else int(share)


_MONEY: ContextVar[Currency] = ContextVar("form_money", default=PESOS)


@contextmanager
def written_in(money: Currency) -> Iterator[Currency]:
    """Forms built inside write their amounts in ``money`` (the funds' currency as the casino's
    locale writes it, ``FloorConfig.fund_money``): the same writing as the room's screens."""
    token = _MONEY.set(money)
    try:
        yield money
    finally:
        _MONEY.reset(token)


def peso(cents: int) -> str:
    """An amount as the forms write it (:func:`written_in`): ``₱1,234.56``."""
    return _MONEY.get().text(cents)


def _check_cents(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormError(f"{what}: {value!r} must be an amount in centavos")
    if value < 0:
        raise FormError(f"{what}: {format_cents(value)} is negative")
    return value


@dataclass(frozen=True)
class Remittance:
    """TGD-1623's remittance: A..F, PAGCOR's 25% of F and of E, the total."""

    a_cash_game_rake: int
    b_jackpot_admin_fee: int
    c_tournament_fee: int
    d_gross: int
    e_franchise_tax: int
    f_net: int
    pagcor_of_f: int
    pagcor_of_e: int

    @property
    def total(self) -> int:
        return self.pagcor_of_f + self.pagcor_of_e


def remittance(rake_cents: int, jackpot_rake_cents: int, tournament_fee_cents: int,
               settings: FundSettings = _FUND) -> Remittance:
    """A cash game rake; B = jackpot rake x 30% = the fund's admin fee (the ledger's
    :func:`core.pokerroom.fund.distribute`, rounded down); C tournament fee; D = A + B + C;
    E = 5% of D; F = D - E; PAGCOR share = 25% of F + 25% of E (each rounded half up)."""
    a = _check_cents(rake_cents, "cash game rake")
    b = fund_split(_check_cents(jackpot_rake_cents, "jackpot rake"), settings).admin_fee
    c = _check_cents(tournament_fee_cents, "tournament fee")
    d = a + b + c
    e = percent_of(d, FRANCHISE_TAX_PERCENT)
    f = d - e
    return Remittance(a, b, c, d, e, f, percent_of(f, PAGCOR_PERCENT),
                      percent_of(e, PAGCOR_PERCENT))


@dataclass(frozen=True)
class FundSplit:
    """The day's jackpot rake shared out: admin fee 30%, fund 70% (main 70% / reserve 30%)."""

    collection: int
    admin_fee: int
    to_fund: int
    to_main: int
    to_reserve: int


def fund_split(jackpot_rake_cents: int, settings: FundSettings = _FUND) -> FundSplit:
    """The ledger's split of a day's jackpot rake (:func:`core.pokerroom.fund.distribute` at the
    ``settings`` rates, the floor file's ``[poker_room]``; RULES.md's by default: admin fee and
    main rounded DOWN, the reserve takes the rest)."""
    d = distribute(_check_cents(jackpot_rake_cents, "jackpot rake"), settings)
    return FundSplit(d.collection_cents, d.admin_fee_cents,
                     d.collection_cents - d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents)


# --------------------------------------------------------------------------------------
# HTML pieces


def _page(title: str, form_no: str, casino: str, operator: str, period: str, body: str,
          *, signers: Sequence[str] = ("Prepared by", "Checked by", "Approved by"),
          location: str = "", annex: str = "PAGCOR annex form", after_signatures: str = "",
          certify: str = ("We certify that the figures above are true and correct and agree "
                          "with the count and the records of the poker room.")) -> str:
    """The form's frame: casino, operator and the poker room's location (a blank to fill in
    when the floor file has no ``[poker_room] room_location``), the form number and PAGCOR's
    TGD reference number box (PAGCOR use), the title and period, ``body``, the certification
    with the operator's signers and PAGCOR's attestation, and the "For PAGCOR use" action
    section (docs/forms.md "On every form"); ``after_signatures`` (TGD-1623's Treasury receipt,
    which the form prints after its signatures) goes between them, kept on one page with
    them."""
    where = escape(location) if location.strip() else blank(width=28)
    head = (
        f'<table width="100%" cellspacing="0" cellpadding="0"><tr>'
        f'<td width="64%" valign="top"><span style="font-size:15pt; font-weight:bold;">'
        f"{escape(casino)}</span><br>Operator: {escape(operator)}"
        f"<br>Poker room location: {where}</td>"
        f'<td width="36%" align="right" valign="top"><span style="font-size:14pt; '
        f'font-weight:bold;">{escape(form_no)}</span><br><span style="font-size:7pt;">'
        f"{escape(annex)}</span>"
        f'<table cellspacing="0" cellpadding="3" border="1" align="right" '
        f'style="{_RULE} margin-top:3px;"><tr><td>TGD reference no.: {blank(PAGCOR_MARK, 12)}'
        f"</td></tr></table></td></tr></table>"
        f'<p align="center" style="font-size:13pt; font-weight:bold; margin-top:8px; '
        f'margin-bottom:0px;">{escape(title)}</p>'
        f'<p align="center" style="margin-top:2px; margin-bottom:6px;">{escape(period)}</p>'
    )
    return (
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
        f"<title>{escape(form_no)} {escape(title)}</title></head>"
        '<body style="font-family:\'DejaVu Sans\', Arial, sans-serif; font-size:8pt;">'
        f"{head}{body}{_signatures(signers, certify)}{after_signatures}{_pagcor_action()}"
        f'<p style="font-size:7pt; color:#555555;">{escape(form_no)} - {escape(casino)} - '
        f"{escape(period)} - produced by Podium</p></body></html>"
    )


def _signature_cell(role: str, width: int, mark: str = "") -> str:
    return (f'<td width="{width}%" valign="top" style="padding-right:10px;">'
            f"<b>{escape(role)}:</b>{(' ' + _mark(mark)) if mark else ''}<br><br>"
            "__________________________<br>"
            '<span style="font-size:7pt;">Signature over printed name</span><br>'
            "Position: _________________<br>"
            "Date: _____________________</td>")


def _signatures(signers: Sequence[str], certify: str) -> str:
    """The operator's signers, then PAGCOR's representative attesting (PAGCOR use)."""
    width = 100 // (len(signers) + 1)
    cells = "".join(_signature_cell(role, width) for role in signers)
    cells += _signature_cell("Attested by PAGCOR", width, PAGCOR_MARK)
    return ('<h3 style="margin-top:14px; margin-bottom:4px;"><a name="podium-keep-together">'
            "</a>Certification and attestation</h3>"
            f'<p style="margin-top:0px;">{escape(certify)}</p>'
            f'<table width="100%" cellspacing="0" cellpadding="2"><tr>{cells}</tr></table>')


def _pagcor_action() -> str:
    """PAGCOR's own section: when and by whom received, the action taken (approved /
    disapproved, ticked by hand), remarks and signature: all blank, PAGCOR use."""
    box = f'<span style="font-size:10pt;">{BOX}</span>'
    rows = (
        ("Date and time received", blank(PAGCOR_MARK), "Received by", blank(PAGCOR_MARK)),
        ("Action taken", Html(f"{box} Approved &nbsp;&nbsp; {box} Disapproved "
                              + _mark(PAGCOR_MARK)),
         "Remarks", blank(PAGCOR_MARK)),
        ("Acted on by (signature over printed name)", blank(PAGCOR_MARK),
         "Position / date", blank(PAGCOR_MARK)),
    )
    body = "".join(
        f'<tr><td width="20%">{_text(a)}</td><td width="30%">{_text(b)}</td>'
        f'<td width="16%">{_text(c)}</td><td width="34%">{_text(d)}</td></tr>'
        for a, b, c, d in rows)
    return ('<h3 style="margin-top:12px; margin-bottom:4px;">For PAGCOR use only: action '
            "taken</h3>"
            f'<table width="100%" border="1" cellspacing="0" cellpadding="3" style="{_RULE}">'
            f"{body}</table>")


class Html(str):
    """Cell content that is HTML already (a blank with its mark, check boxes): not escaped."""


def _text(text: str) -> str:
    """Escaped cell text; an amount never breaks between its currency and its figures."""
    if isinstance(text, Html):
        return str(text)
    code = _MONEY.get().code
    return escape(text).replace(f"{code} ", f"{code}&nbsp;")


def _mark(mark: str) -> str:
    return f'<span style="font-size:6.5pt; color:#555555;">({escape(mark)})</span>'


def blank(mark: str = HAND_MARK, width: int = 22) -> Html:
    """A ruled blank to fill in, with its small mark: "(to be filled by hand: not in the
    ledger)" or "(PAGCOR use)"."""
    return Html("_" * width + " " + _mark(mark))


def _filled_or_blank(value: str, mark: str = HAND_MARK) -> str:
    return value if value.strip() else blank(mark)


def _section(name: str) -> str:
    return f'<h3 style="margin-top:10px; margin-bottom:3px;">{escape(name)}</h3>'


def _grid(headers: Sequence[str], rows: Sequence[Sequence[str]], *,
          right: Sequence[int] = (), total: Sequence[str] | None = None,
          widths: Sequence[int] | None = None) -> str:
    """A ruled table: ``right`` are the indexes of the money / number columns."""
    def cell(i: int, text: str, tag: str = "td", bold: bool = False) -> str:
        align = ((' align="right" style="white-space:nowrap;"' if tag == "td"
                  else ' align="right"') if i in right else ' align="left"')
        width = f' width="{widths[i]}%"' if widths and tag == "th" else ""
        shade = ' bgcolor="#e6e6e6"' if tag == "th" or bold else ""
        value = f"<b>{_text(text)}</b>" if bold else _text(text)
        return f"<{tag}{align}{width}{shade}>{value}</{tag}>"

    out = [f'<table width="100%" border="1" cellspacing="0" cellpadding="2" style="{_RULE}">',
           "<tr>" + "".join(cell(i, h, "th") for i, h in enumerate(headers)) + "</tr>"]
    out += ["<tr>" + "".join(cell(i, t) for i, t in enumerate(r)) + "</tr>" for r in rows]
    if total is not None:
        out.append("<tr>" + "".join(cell(i, t, bold=True) for i, t in enumerate(total))
                   + "</tr>")
    out.append("</table>")
    return "".join(out)


def _pairs(rows: Sequence[tuple[str, str]], *, strong: Sequence[str] = (),
           label_width: int = 62) -> str:
    """A ruled two-column table of label: value (values right-aligned)."""
    body = "".join(
        f'<tr><td width="{label_width}%">'
        + (f"<b>{_text(k)}</b>" if k in strong else _text(k)) + '</td><td align="right">'
        + (f"<b>{_text(v)}</b>" if k in strong else _text(v)) + "</td></tr>"
        for k, v in rows)
    return (f'<table width="100%" border="1" cellspacing="0" cellpadding="2" style="{_RULE}">'
            f"{body}</table>")


def _side_by_side(left: str, right: str) -> str:
    return ('<table width="100%" cellspacing="0" cellpadding="0"><tr>'
            f'<td width="50%" valign="top" style="padding-right:6px;">{left}</td>'
            f'<td width="50%" valign="top" style="padding-left:6px;">{right}</td></tr></table>')


def _notes(notes: Sequence[str]) -> str:
    return "".join(f'<p style="font-size:7.5pt; margin-top:3px; margin-bottom:0px;">'
                   f"Note: {_text(n)}</p>" for n in notes)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def _hm(t: time) -> str:
    return t.strftime("%H:%M")


def _day(d: date) -> str:
    return d.strftime("%d %B %Y")


# --------------------------------------------------------------------------------------
# TGD-1494 / TGD-1623 daily report


@dataclass(frozen=True)
class TableDay:
    """One table's day: times, dealer(s), drop boxes, rake, jackpot rake and its chips."""

    table: str
    opened: time
    closed: time
    dealer: str
    rake_box: str
    jackpot_box: str
    rake_cents: int
    jackpot_rake_cents: int
    chips: Mapping[int, int]  # jackpot drop box: denomination in pesos -> number of chips
    denominations: tuple[int, ...] = DENOMINATIONS  # the room's chips ([poker_room])

    def __post_init__(self) -> None:
        where = f"table {self.table}"
        _check_cents(self.rake_cents, f"{where}: rake")
        _check_cents(self.jackpot_rake_cents, f"{where}: jackpot rake")
        counted = 0
        for denom, count in self.chips.items():
            if denom not in self.denominations:
                raise FormError(f"{where}: chip denomination {denom!r} is not one of "
                                f"{', '.join(str(d) for d in self.denominations)}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise FormError(f"{where}: {denom}-peso chips: {count!r} is not a count")
            counted += denom * count * 100
        if counted != self.jackpot_rake_cents:
            raise FormError(f"{where}: the jackpot drop box chips add up to {peso(counted)}, "
                            f"not the jackpot rake {peso(self.jackpot_rake_cents)}")


@dataclass(frozen=True)
class DailyReport:
    """TGD-1494 (offsite) or TGD-1623 (onsite, with the remittance) for one gaming day."""

    form: str  # "TGD-1494" | "TGD-1623"
    casino: str
    operator: str
    gaming_day: date
    tables: tuple[TableDay, ...]
    previous_main_cents: int
    previous_reserve_cents: int
    seed_cents: int = 0  # operator seed money added today (to the main jackpot)
    tournament_fee_cents: int = 0  # TGD-1623 only (C)
    notes: tuple[str, ...] = ()  # printed under the fund distribution
    jackpot: str = ""  # the fund's name (a room with several funds files one report each)
    settings: FundSettings = _FUND  # the distribution rates and chips ([poker_room])
    chain: str = ""  # the ledger's chain head when the report was made (integrity.head_text)
    room_location: str = ""  # [poker_room] room_location; "" prints a blank to fill in

    def __post_init__(self) -> None:
        if self.form not in ("TGD-1494", "TGD-1623"):
            raise FormError(f"daily report form: {self.form!r} is not TGD-1494 or TGD-1623")
        if not self.tables:
            raise FormError("daily report tables: no table was open")
        for name in ("previous_main", "previous_reserve", "seed", "tournament_fee"):
            _check_cents(getattr(self, f"{name}_cents"), name.replace("_", " "))
        if self.form == "TGD-1494" and self.tournament_fee_cents:
            raise FormError("tournament fee: only the onsite report TGD-1623 has a remittance")

    @property
    def rake_cents(self) -> int:
        return sum(t.rake_cents for t in self.tables)

    @property
    def jackpot_rake_cents(self) -> int:
        return sum(t.jackpot_rake_cents for t in self.tables)

    @property
    def fund(self) -> FundSplit:
        return fund_split(self.jackpot_rake_cents, self.settings)

    @property
    def updated_main_cents(self) -> int:
        return self.previous_main_cents + self.seed_cents + self.fund.to_main

    @property
    def updated_reserve_cents(self) -> int:
        return self.previous_reserve_cents + self.fund.to_reserve

    @property
    def remittance(self) -> Remittance | None:
        if self.form != "TGD-1623":
            return None
        return remittance(self.rake_cents, self.jackpot_rake_cents, self.tournament_fee_cents,
                          self.settings)


def daily_report_html(report: DailyReport) -> str:
    onsite = report.form == "TGD-1623"
    st = report.settings
    denoms = st.denominations
    fee_pct, fund_pct = rate_text(st.admin_fee_rate), rate_text(1 - st.admin_fee_rate)
    main_pct, reserve_pct = rate_text(st.main_rate), rate_text(1 - st.main_rate)
    title = ("Poker daily active table, rake and jackpot rake collection report ("
             + ("onsite" if onsite else "offsite") + ")")
    tables = _grid(
        ("Table", "Opened", "Closed", "Dealer", "Rake box", "Jackpot box", "Rake",
         "Jackpot rake"),
        [(t.table, _hm(t.opened), _hm(t.closed) + (" (+1 day)" if t.closed < t.opened else ""),
          t.dealer, t.rake_box, t.jackpot_box,
          peso(t.rake_cents), peso(t.jackpot_rake_cents)) for t in report.tables],
        right=(6, 7), widths=(9, 9, 8, 20, 10, 10, 17, 17),
        total=("Total", "", "", _count(len(report.tables), "table"), "", "",
               peso(report.rake_cents), peso(report.jackpot_rake_cents)))
    chips = _grid(
        ("Table", *(f"PHP {d} x" for d in denoms), "Jackpot rake"),
        [(t.table, *(str(t.chips.get(d, 0)) for d in denoms), peso(t.jackpot_rake_cents))
         for t in report.tables],
        right=tuple(range(1, len(denoms) + 2)),
        total=("Total", *(str(sum(t.chips.get(d, 0) for t in report.tables))
                          for d in denoms), peso(report.jackpot_rake_cents)))
    # The cash game's (house rake) drop box is counted as a total only: its chips per
    # denomination are not in the ledger (bbj_drop_counts.rake_cents), so they print blank.
    cash = _grid(
        ("Table", "Rake box", *(f"PHP {d} x" for d in denoms), "Rake (counted)"),
        [(t.table, t.rake_box, *(Html("&nbsp;") for _ in denoms), peso(t.rake_cents))
         for t in report.tables],
        right=tuple(range(2, len(denoms) + 3)),
        total=("Total", "", *(Html("&nbsp;") for _ in denoms), peso(report.rake_cents)))
    cash_note = ('<p style="font-size:7.5pt; margin-top:2px; margin-bottom:0px;">Number of '
                 "chips per denomination: " + _mark(HAND_MARK) + " (the ledger keeps the house "
                 "rake box's counted total; the jackpot drop box's chips are above).</p>")
    f = report.fund
    fund = _grid(
        ("", f"Main jackpot ({main_pct})", f"Reserve ({reserve_pct})", "Total"),
        [("Previous amount", peso(report.previous_main_cents),
          peso(report.previous_reserve_cents),
          peso(report.previous_main_cents + report.previous_reserve_cents)),
         ("Seed money added by the operator", peso(report.seed_cents), peso(0),
          peso(report.seed_cents)),
         (f"Day's collection to the fund ({fund_pct} of the jackpot rake)", peso(f.to_main),
          peso(f.to_reserve), peso(f.to_fund))],
        right=(1, 2, 3), widths=(40, 20, 20, 20),
        total=("Updated amount (to be posted)", peso(report.updated_main_cents),
               peso(report.updated_reserve_cents),
               peso(report.updated_main_cents + report.updated_reserve_cents)))
    collection = _pairs([
        ("Day's jackpot rake collection (all tables)", peso(f.collection)),
        (f"Operator's administrative fee ({fee_pct})", peso(f.admin_fee)),
        (f"To the jackpot fund ({fund_pct})", peso(f.to_fund)),
    ], strong=(f"To the jackpot fund ({fund_pct})",))
    body = (_section("Active tables, rake and jackpot rake") + tables
            + _section("Jackpot drop box count by denomination (number of chips)") + chips
            + _section("Cash game (house rake) drop box chip count by denomination") + cash
            + cash_note
            + _section("Jackpot fund distribution") + collection + "<br>" + fund
            + _notes(report.notes))
    if report.chain:
        body += f'<p style="font-size:7pt; font-family:monospace;">{_text(report.chain)}</p>'
    r = report.remittance
    receipt = ""
    if r is not None:
        body += _section("Remittance computation") + _pairs([
            ("A. Cash game rake", peso(r.a_cash_game_rake)),
            (f"B. Jackpot administrative fee (jackpot rake {peso(f.collection)} x "
             f"{fee_pct})", peso(r.b_jackpot_admin_fee)),
            ("C. Tournament fee", peso(r.c_tournament_fee)),
            ("D. Total (A + B + C)", peso(r.d_gross)),
            (f"E. Franchise tax ({FRANCHISE_TAX_PERCENT}% of D)", peso(r.e_franchise_tax)),
            ("F. Net of franchise tax (D - E)", peso(r.f_net)),
            (f"1. PAGCOR share ({PAGCOR_PERCENT}% of item F)", peso(r.pagcor_of_f)),
            (f"2. {PAGCOR_PERCENT}% of franchise tax ({PAGCOR_PERCENT}% of item E)",
             peso(r.pagcor_of_e)),
            ("TOTAL REMITTANCE DUE TO PAGCOR (1 + 2)", peso(r.total)),
        ], strong=("D. Total (A + B + C)", "TOTAL REMITTANCE DUE TO PAGCOR (1 + 2)"))
        receipt = _section("Acknowledgement receipt (PAGCOR Treasury)") + _treasury_receipt(
            report, r)
    period = f"Gaming day {_day(report.gaming_day)}"
    return _page(title, report.form, report.casino, report.operator,
                 f"{period} - {report.jackpot}" if report.jackpot else period, body,
                 location=report.room_location, after_signatures=receipt)


def _treasury_receipt(report: DailyReport, r: Remittance) -> str:
    """TGD-1623 page 2's ACKNOWLEDGEMENT RECEIPT: "trading date: ... This acknowledges receipt
    of the cash amount of P ... representing Poker Operator's remittance for ...", Received By
    (Treasury Division Representative), Conforme (Operator's Representative).  The trading date
    and the amount are the report's; the signatures are by hand (the receipt is PAGCOR's)."""
    return (
        f'<p style="margin-top:0px; margin-bottom:3px;">Trading date: {_day(report.gaming_day)}'
        ". This acknowledges receipt of the cash amount of "
        f"{_text(peso(r.total))} representing Poker Operator's remittance for "
        f"{_day(report.gaming_day)}.</p>"
        '<table width="100%" cellspacing="0" cellpadding="2"><tr>'
        + _signature_cell("Received by (Treasury Division Representative)", 50, PAGCOR_MARK)
        + _signature_cell("Conforme (Operator's Representative)", 50)
        + "</tr></table>")


# --------------------------------------------------------------------------------------
# TGD-1500 awarding request


@dataclass(frozen=True)
class Sharer(Share):
    """A share of the decision (core.pokerroom.rules.bbj.Share) with the sharer's name as on the
    ID."""

    name: str


@dataclass(frozen=True)
class AwardingRequest:
    """TGD-1500: everything the request for the award of a Bad Beat Jackpot hit states."""

    casino: str
    operator: str
    hit_at: datetime
    table: str
    small_blind_cents: int
    big_blind_cents: int
    pot_cents: int
    jackpot_rake_cents: int  # taken from this hand's pot
    main_cents: int  # before the hit
    reserve_cents: int
    payout_fraction: Fraction  # of the main jackpot
    award_cents: int
    board: tuple[str, ...]
    winning_seat: int
    winning_hole: tuple[str, str]
    winning_hand: str
    losing_seat: int
    losing_hole: tuple[str, str]
    losing_hand: str
    sharers: tuple[Sharer, ...]
    main_after_cents: int
    reserve_after_cents: int
    reference: str = ""  # e.g. "case 3 / award 1" (the ledger's case and award)
    notes: tuple[str, ...] = ()  # printed under the hand
    # every seat of the winning / losing place, (seat, hole, hand), when a tie split it (RULES.md
    # 6.6, [poker_room] tie = "split"); empty: the one seat above
    winning_hands: tuple[tuple[int, tuple[str, str], str], ...] = ()
    losing_hands: tuple[tuple[int, tuple[str, str], str], ...] = ()

    def hands(self, role: str) -> tuple[tuple[int, tuple[str, str], str], ...]:
        """Every seat of the ``winning`` or ``losing`` place with its hole cards and hand."""
        if role == "winning":
            return self.winning_hands or ((self.winning_seat, self.winning_hole,
                                           self.winning_hand),)
        return self.losing_hands or ((self.losing_seat, self.losing_hole, self.losing_hand),)
    room_location: str = ""  # [poker_room] room_location; "" prints a blank to fill in
    # seat -> the day its share was paid (the case's share_paid rows); a seat not paid yet
    # prints a blank on its acknowledgment receipt
    paid_on: Mapping[int, date] = field(default_factory=dict)
    # seats dealt in but not seated at the beginning of the hand (no table share, III.I):
    # printed in the table share's Remarks
    not_seated: tuple[int, ...] = ()

    @property
    def table_sharers(self) -> tuple[Sharer, ...]:
        return tuple(s for s in self.sharers if s.role == "table")

    @property
    def paid_cents(self) -> int:
        return sum(s.gross_cents for s in self.sharers)

    @property
    def tax_cents(self) -> int:
        return sum(s.tax_cents for s in self.sharers)

    @property
    def net_cents(self) -> int:
        return self.paid_cents - self.tax_cents


def awarding_request(decision: Decision, claim: Claim, names: Mapping[int, str], *,
                     casino: str, operator: str, table: str, hit_at: datetime,
                     small_blind_cents: int, jackpot_rake_cents: int) -> AwardingRequest:
    """The TGD-1500 of a qualifying ``decision`` on ``claim``; ``names``: seat -> the name on
    the player's government ID (every sharer needs one, RULES.md 6 point 10)."""
    if not decision.qualifies:
        raise FormError("awarding request: the claim does not qualify ("
                        + ", ".join(decision.reasons) + "); there is nothing to award")
    assert decision.winning_seat is not None and decision.losing_seat is not None
    assert decision.winning_hand is not None and decision.losing_hand is not None
    holes = {h.seat: h.hole for h in claim.showdown}
    won = decision.winning_seats or (decision.winning_seat,)
    lost = decision.losing_seats or (decision.losing_seat,)
    if not set(won) | set(lost) <= set(holes):
        raise FormError("awarding request: the decision's seats are not in the claim's showdown")
    if decision.paid_cents > decision.award_cents:
        raise FormError("awarding request: the shares add up to more than the award")
    sharers = []
    for share in decision.shares:
        name = names.get(share.seat, "").strip()
        if not name:
            raise FormError(f"awarding request names: seat {share.seat} shares the jackpot "
                            "and has no name (from the player's government ID)")
        sharers.append(Sharer(seat=share.seat, role=share.role, taxpayer=share.taxpayer,
                              gross_cents=share.gross_cents, tax_cents=share.tax_cents,
                              name=name))

    def hole(seat: int) -> tuple[str, str]:
        a, b = holes[seat]
        return str(a), str(b)

    return AwardingRequest(
        casino=casino, operator=operator, hit_at=hit_at, table=table,
        small_blind_cents=_check_cents(small_blind_cents, "small blind"),
        big_blind_cents=claim.big_blind_cents, pot_cents=claim.pot_cents,
        jackpot_rake_cents=_check_cents(jackpot_rake_cents, "jackpot rake"),
        main_cents=claim.main_jackpot_cents, reserve_cents=claim.reserve_jackpot_cents,
        payout_fraction=decision.payout_fraction, award_cents=decision.award_cents,
        board=tuple(str(c) for c in claim.board),
        winning_seat=decision.winning_seat, winning_hole=hole(decision.winning_seat),
        winning_hand=decision.winning_hand.category,
        losing_seat=decision.losing_seat, losing_hole=hole(decision.losing_seat),
        losing_hand=decision.losing_hand.category,
        sharers=tuple(sharers), main_after_cents=decision.main_after_cents,
        reserve_after_cents=decision.reserve_after_cents,
        winning_hands=tuple((s, hole(s), decision.winning_hand.category) for s in won)
        if len(won) > 1 else (),
        losing_hands=tuple((s, hole(s), decision.losing_hand.category) for s in lost)
        if len(lost) > 1 else (), not_seated=tuple(sorted(claim.not_seated)))


def _percent_text(fraction: Fraction) -> str:
    hundredths = fraction * 10_000  # percent with two decimals, rounded half up
    n = int(hundredths + Fraction(1, 2))
    return f"{n // 100}.{n % 100:02d}%"


def _hand_name(category: str) -> str:
    return category.replace("_", " ").lower()


def _place_rows(req: AwardingRequest) -> list[tuple[str, str]]:
    """One line per seat of the winning and the losing place (a tie: every tied seat)."""
    rows = []
    for role, label in (("winning", "Winning hand"), ("losing", "Losing hand")):
        hands = req.hands(role)
        tie = " (tie, shared)" if len(hands) > 1 else ""
        rows += [(f"{label}{tie}: seat {seat}", f"{' '.join(hole)} ({_hand_name(hand)})")
                 for seat, hole, hand in hands]
    return rows


def _role_name(req: AwardingRequest, role: str) -> str:
    name = _ROLE_NAMES.get(role, role)
    if role in ("winning", "losing") and len(req.hands(role)) > 1:
        return f"{name} (tie)"
    return name


def awarding_request_html(req: AwardingRequest) -> str:
    local = req.hit_at.strftime("%d %B %Y %H:%M")
    offset = req.hit_at.strftime("%z")  # "+0800": a zone abbreviation such as PST is ambiguous
    if offset:
        local += f" (UTC{offset[:3]}:{offset[3:5]})"
    hit = _pairs([
        *([("Reference", req.reference)] if req.reference else []),
        ("Date and time of the hit", local),
        ("Table", req.table),
        ("Blinds", f"{peso(req.small_blind_cents)} / {peso(req.big_blind_cents)}"),
        ("Pot (house and jackpot rake included)", peso(req.pot_cents)),
        ("Jackpot rake taken from the pot", peso(req.jackpot_rake_cents)),
        ("Board", " ".join(req.board)),
        *_place_rows(req),
    ], label_width=45)
    left = req.award_cents - req.paid_cents
    fund = _pairs([
        ("Main jackpot at the hit", peso(req.main_cents)),
        ("Reserve at the hit", peso(req.reserve_cents)),
        ("% of the main jackpot hit", _percent_text(req.payout_fraction)),
        ("Amount awarded", peso(req.award_cents)),
        ("Centavos no share takes (stay in main)", peso(left)),
        ("Updated main jackpot after the hit", peso(req.main_after_cents)),
        ("Updated reserve after the hit", peso(req.reserve_after_cents)),
    ], strong=("Amount awarded",), label_width=55)
    sharers = _grid(
        ("Seat", "Name (as on government ID)", "Share", "Taxpayer", "Gross share",
         "Withholding tax", "Net share"),
        [(str(s.seat), s.name, _role_name(req, s.role),
          _TAXPAYER_NAMES.get(s.taxpayer, s.taxpayer), peso(s.gross_cents), peso(s.tax_cents),
          peso(s.net_cents)) for s in req.sharers],
        right=(0, 4, 5, 6), widths=(5, 22, 13, 10, 17, 16, 17),
        total=("", _count(len(req.sharers), "sharer"), "", "", peso(req.paid_cents),
               peso(req.tax_cents), peso(req.net_cents)))
    table = req.table_sharers
    each = {s.gross_cents for s in table}
    remarks = (f"Seat{'s' if len(req.not_seated) > 1 else ''} "
               f"{', '.join(str(s) for s in req.not_seated)} dealt in but not seated at the "
               "beginning of the hand: no table share (guideline III.I)"
               if req.not_seated else "")
    table_share = _pairs([
        ("Gross table share", peso(sum(s.gross_cents for s in table))),
        ("No. of table sharers", str(len(table))),
        ("Table share per player (gross)",
         peso(each.pop()) if len(each) == 1 else ("-" if not each else "see the sharers")),
        ("Remarks", remarks or blank()),
    ], label_width=45)
    body = (_instructions(TGD1500_INSTRUCTIONS)
            + _side_by_side(_section("The hand") + hit + _notes(req.notes),
                            _section("The jackpot") + fund)
            + _section("Sharers") + sharers
            + _section("Table share") + table_share
            + _section("We confirm and undertake to comply with the following")
            + _numbered(TGD1500_UNDERTAKINGS)
            + _section("Acknowledgment receipts") + _receipts(req, local))
    return _page("Bad Beat Jackpot - request for awarding", "TGD-1500", req.casino,
                 req.operator, f"Hit of {local} - {req.table}", body,
                 location=req.room_location)


# TGD-1500 (Annex D) page 1's instructions and page 2's undertakings, as the form writes them
TGD1500_INSTRUCTIONS = (
    "Whenever a progressive jackpot is hit, use this form, within twenty-four (24) hours, to "
    "request approval from the Table Games Department (TGD) for the release of Jackpot(s) to "
    "the qualified winning player(s). Only requests with correct and complete information will "
    "be processed. Failure to provide complete documents and information could result in the "
    "non-processing of this request. Cut-off for submission of requests shall be 3:00 P.M. "
    "PLEASE ALLOW TWO (2) WORKING DAYS FROM THE SUBMISSION OF COMPLETE INFORMATION AND "
    "ATTACHMENTS TO PROCESS YOUR REQUEST.")
TGD1500_UNDERTAKINGS = (
    "Jackpot payout shall be made within forty-eight (48) hours from the time the jackpot "
    "request was approved.",
    "A twenty percent (20%) withholding tax shall be deducted from individual shares exceeding "
    "ten thousand pesos (P10,000). A twenty-five percent (25%) withholding tax shall be "
    "deducted from individual shares of Non-Resident Alien Not Engaged in Trade and Business "
    "(NRANETB) regardless of the amount.",
    "The winning of Bad Beat Jackpot may be voided due to discussion of hands during play by "
    "players or a violation of the \"one player to a hand rule\".",
    "Security disclaimers such as a fouled deck, switched cards, unverifiable hand, etc. will "
    "disqualify the hand for a Jackpot.",
    "Immediate sorting of the deck used shall be effected.",
    "CCTV coverage shall be reviewed by the Operator prior to paying out of Jackpot shares.",
    "This also certifies that the CCTV coverage with the following details is submitted: At "
    "least five (5) deals before the hit until card sorting: Stub Count; Blinds of the table; "
    "Amount of pot; Amount of jackpot rake.",
    "This also certifies that the following are attached: Photocopy of valid IDs of the "
    "players; Bank certificate/ statement showing the current/updated amount of jackpot fund.",
    "After granting of the award, the Operator shall submit to TGD the Acknowledgement Receipt "
    "on page 3 duly signed by the players as proof that Jackpot(s) has/have been given together "
    "with the BIR Form for the withholding tax as soon as available.",
)
TGD1500_RECEIPT_CERTIFICATE = (
    "This is to certify that the winners have received the individual net table shares and "
    "have been deducted the applicable withholding tax reflected in the attached BIR Form 2553.")


def _instructions(text: str) -> str:
    return (f'<p style="font-size:7.5pt; margin-top:0px; margin-bottom:4px; border:1px solid '
            f'#444444; padding:3px;">{_text(text)}</p>')


def _numbered(items: Sequence[str]) -> str:
    return "".join(f'<p style="font-size:7.5pt; margin-top:1px; margin-bottom:1px;">{i}. '
                   f"{_text(t)}</p>" for i, t in enumerate(items, 1))


def _receipts(req: AwardingRequest, hit: str) -> str:
    """One receipt line per sharer: the net amount from the award, the day paid from the
    ledger (a blank until paid), the payee's signature and the date received by hand."""
    rows = "".join(
        f'<tr><td align="right">{s.seat}</td><td>{_text(s.name)}</td>'
        f'<td align="right" style="white-space:nowrap;">{_text(peso(s.net_cents))}</td>'
        f"<td>{_day(req.paid_on[s.seat]) if s.seat in req.paid_on else _mark('not paid yet')}"
        f'</td><td height="26">&nbsp;</td><td>&nbsp;</td></tr>' for s in req.sharers)
    head = "".join(f'<th bgcolor="#e6e6e6" align="left" width="{w}%">{_text(h)}</th>' for h, w in (
        ("Seat", 5), ("Name (as on government ID)", 22), ("Net share received", 15),
        ("Paid on (ledger)", 18), ("Payee's signature", 24), ("Date received", 16)))
    return ('<p style="margin-top:0px; margin-bottom:3px;">Each sharer acknowledges receipt of '
            f"the net share below (gross share less the withholding tax) of the Bad Beat "
            f"Jackpot hit of {_text(hit)} at table {_text(req.table)}, by signing within 24 "
            "hours after the payout. Signature and date received: " + _mark(HAND_MARK)
            + ".</p>"
            f'<table width="100%" border="1" cellspacing="0" cellpadding="2" style="{_RULE}">'
            f"<tr>{head}</tr>{rows}</table>"
            f'<p style="margin-top:3px; margin-bottom:0px;">'
            f"{_text(TGD1500_RECEIPT_CERTIFICATE)} Total withholding tax amount paid: "
            f"{_text(peso(req.tax_cents))}.</p>")


# --------------------------------------------------------------------------------------
# TGD-108 quarterly tax compliance


@dataclass(frozen=True)
class MonthFees:
    month: date  # any day of the month
    rake_cents: int
    jackpot_admin_fee_cents: int
    tournament_fee_cents: int

    def __post_init__(self) -> None:
        for name in ("rake", "jackpot_admin_fee", "tournament_fee"):
            _check_cents(getattr(self, f"{name}_cents"),
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
        if self.taxpayer not in _TAXPAYER_NAMES:
            raise FormError(f"jackpot payment {self.reference}: taxpayer class "
                            f"{self.taxpayer!r} is unknown")
        _check_cents(self.gross_cents, f"jackpot payment {self.reference}: gross")
        _check_cents(self.tax_cents, f"jackpot payment {self.reference}: tax")
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
    head = _pairs([
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
    fees = _grid(
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
    tax = _grid(
        headers, [(f"{m.month:%B %Y}", *(peso(c) for c in r))
                  for m, r in zip(q.months, rows, strict=True)],
        right=tuple(range(1, n)), widths=(16, *([84 // (n - 1)] * (n - 1))),
        total=(f"Q{q.quarter} total", *(peso(sum(col)) for col in zip(*rows, strict=True))))
    paid_2553 = _grid(
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
    withheld = _grid(
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
    bir = _grid(("Final income tax paid", "Tax withheld in the period", "Date paid",
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
    summary = _grid(
        ("Month", "Taxpayer class", "Shares", "Jackpot winnings", "Final tax withheld"),
        summary_rows, right=(2, 3, 4), widths=(15, 41, 8, 18, 18),
        total=(f"Q{q.quarter} total", "", str(len(q.payments)),
               peso(sum(p.gross_cents for p in q.payments)),
               peso(sum(p.tax_cents for p in q.payments))))
    detail = _grid(
        ("Paid on", "Reference", "Payee", "Taxpayer", "Gross", "Tax withheld", "Net"),
        [(f"{p.paid_on:%d %b %Y}", p.reference, p.payee, _TAXPAYER_NAMES[p.taxpayer],
          peso(p.gross_cents), peso(p.tax_cents), peso(p.gross_cents - p.tax_cents))
         for p in sorted(q.payments, key=lambda p: (p.paid_on, p.reference))],
        right=(4, 5, 6)) if q.payments else "<p>No jackpot was paid in the quarter.</p>"
    note = _notes((
        f"FT is {FRANCHISE_TAX_PERCENT}% of each month's taxable amount, half up; "
        + (f"the {pct}% of FT remitted to PAGCOR (TGD-1623's \"25% of item E\") is taken of "
           "each month's FT, half up, and the franchise tax payment is FT less it."
           if q.onsite else "the offsite section has no PAGCOR line: the franchise tax "
           "payment is the whole FT."),
        "Date paid and the payment details of BIR Forms 2553, 0619-F and 1601-FQ: "
        f"({HAND_MARK}); attach the forms with their payment details / validation."))
    body = (_section("Section A: general information") + head
            + _section("Section B: franchise tax payment and final income tax withheld")
            + _section(part) + fees + "<br>" + tax + "<br>" + paid_2553
            + _section("IV. For poker club operator / proponent with tax withheld") + withheld
            + "<br>" + bir + note
            + _section("Jackpot winnings by taxpayer class") + summary
            + _section("Jackpot shares paid") + detail)
    first = date(q.year, 3 * q.quarter - 2, 1)
    return _page("Gaming site tax compliance report", "TGD-108", q.casino, q.operator,
                 f"Q{q.quarter} {q.year} ({first:%B} to {q.months[-1].month:%B %Y})", body,
                 location=q.room_location)


# --------------------------------------------------------------------------------------
# TGD-1540 transfer / cessation


# add_business_days: core.pokerroom.business_days (imported above; the one business-day count)


@dataclass(frozen=True)
class LinkedTable:
    """A poker table linked to the jackpot (its drop box feeds the fund): the ledger's drop
    counts of the fund for that table."""

    table: str
    first_day: date
    last_day: date
    days: int  # gaming days counted
    jackpot_rake_cents: int  # counted in those days


@dataclass(frozen=True)
class TransferCessation:
    """TGD-1540: part 1 (notice, 14 business days before) and part 2 (2 business days after).

    ``mode`` "transfer": increment + reserve move to ``destination``; the seed returns to the
    operator.  ``seed_cents`` is the operator's seed still in the jackpot, the ledger's reading
    of "not reset" (docs/bbj.md "The fund": the seed infusions since the last hit, at most
    main): after a hit (``jackpot_reset``) there is none, and the whole main is increment.
    ``mode`` "cease": the jackpot ceases once hit; the reserve is added to the main amount won
    (part 2: ``hit_on``, ``amount_won_cents``, ``award_reference``).
    ``notice_on`` / ``players_told_on`` None, ``completed_on`` None: printed as blank lines to
    fill in.  Business days skip weekends and ``holidays``.
    """

    casino: str
    operator: str
    jackpot: str
    mode: str  # transfer | cease
    notice_on: date | None
    effective_on: date
    players_told_on: date | None
    seed_cents: int  # the seed outstanding (returned to the operator on a transfer)
    main_cents: int  # the posted jackpot = seed + increment
    reserve_cents: int
    destination: str = ""
    jackpot_reset: bool = False  # a hit since the last seed infusion: no seed outstanding
    completed_on: date | None = None  # part 2; None prints part 2 blank, to fill in
    reason: str = ""
    holidays: tuple[date, ...] = ()  # public holidays: not business days
    hit_on: date | None = None  # mode cease, part 2: the day of the hit
    amount_won_cents: int | None = None  # mode cease, part 2: the amount awarded
    award_reference: str = ""  # mode cease, part 2: the TGD-1500 (case / award)
    room_location: str = ""  # [poker_room] room_location; "" prints a blank to fill in
    linked_tables: tuple[LinkedTable, ...] = ()  # the tables feeding the fund (drop counts)

    def __post_init__(self) -> None:
        if self.mode not in ("transfer", "cease"):
            raise FormError(f"transfer/cessation mode: {self.mode!r} is not transfer or cease")
        for name in ("seed", "main", "reserve"):
            _check_cents(getattr(self, f"{name}_cents"), f"{name} amount")
        if self.amount_won_cents is not None:
            _check_cents(self.amount_won_cents, "amount won")
        if self.seed_cents > self.main_cents:
            raise FormError(f"seed amount: {peso(self.seed_cents)} is more than the main "
                            f"jackpot {peso(self.main_cents)} (main = seed + increment)")
        if self.jackpot_reset and self.seed_cents:
            raise FormError(f"seed amount: {peso(self.seed_cents)}, but the jackpot was reset "
                            "by a hit since its last seed, so no seed is outstanding "
                            "(docs/bbj.md \"The fund\")")
        if self.mode == "transfer" and not self.destination.strip():
            raise FormError("destination: a transfer needs the progressive it goes to")
        if self.notice_on is not None and self.effective_on < self.notice_on:
            raise FormError(f"effective date: {self.effective_on} is before the notice date "
                            f"{self.notice_on}")

    @property
    def increment_cents(self) -> int:
        return self.main_cents - self.seed_cents

    @property
    def transferred_cents(self) -> int:
        if self.mode != "transfer":
            return 0
        return self.increment_cents + self.reserve_cents

    @property
    def seed_returned_cents(self) -> int:
        return self.seed_cents if self.mode == "transfer" else 0

    @property
    def deadlines(self) -> dict[str, date]:
        return {"notice": add_business_days(self.effective_on, -PART1_BUSINESS_DAYS,
                                            self.holidays),
                "players": self.effective_on - timedelta(days=PLAYERS_DAYS),
                "part2": add_business_days(self.effective_on, PART2_BUSINESS_DAYS,
                                           self.holidays)}

    @property
    def holidays_skipped(self) -> tuple[date, ...]:
        """The holidays on weekdays inside the two business-day periods (notice, part 2)."""
        dl = self.deadlines
        return tuple(sorted(h for h in set(self.holidays) if h.weekday() < 5 and (
            dl["notice"] < h < self.effective_on or self.effective_on < h < dl["part2"])))


def _on_time(done: date, latest: date) -> str:
    return "on time" if done <= latest else "LATE"


def _holiday_note(t: TransferCessation) -> str:
    if not t.holidays:
        return ("Business days are Monday to Friday; no public holidays are configured "
                "(floor file [casino] public_holidays): the preparer must check them.")
    skipped = t.holidays_skipped
    which = (", ".join(_day(h) for h in skipped) if skipped
             else f"none of the {len(t.holidays)} configured falls in these periods")
    return ("Business days are Monday to Friday except the public holidays of the floor file "
            f"([casino] public_holidays). Holidays skipped here: {which}.")


def transfer_cessation_html(t: TransferCessation) -> str:
    dl = t.deadlines
    blank = "____________________"
    what = (f"Transfer to {t.destination}" if t.mode == "transfer"
            else "Cessation once the jackpot is hit")

    def dated(done: date | None, latest: date) -> str:
        if done is None:
            return f"{blank} (latest {_day(latest)})"
        return f"{_day(done)} (latest {_day(latest)}: {_on_time(done, latest)})"

    part1 = _pairs([
        ("Progressive jackpot", t.jackpot),
        ("Action", what),
        ("Reason", t.reason or blank),
        ("Date of this notice", dated(t.notice_on, dl["notice"])),
        ("Effective date", _day(t.effective_on)),
        ("Players told on", dated(t.players_told_on, dl["players"])),
    ], label_width=35)
    if t.mode == "transfer":
        if t.seed_cents or not t.jackpot_reset:
            seed_label = "Seed outstanding (operator's money since the last hit)"
        else:
            seed_label = "Seed outstanding (none: the jackpot was reset by a hit since the seed)"
        label = f"Amount transferred to {t.destination} (increment + reserve)"
        amounts = [(seed_label, peso(t.seed_cents)),
                   ("Increment (main - seed)", peso(t.increment_cents)),
                   ("Main jackpot (seed + increment)", peso(t.main_cents)),
                   ("Reserve", peso(t.reserve_cents)),
                   ("Seed returned to the operator", peso(t.seed_returned_cents)),
                   (label, peso(t.transferred_cents))]
    else:  # once hit nothing goes back: the seed is part of the main amount won
        label = ("Main amount at the hit (main + reserve)" if t.hit_on
                 else "Main amount won when hit (main + reserve, at today's figures)")
        amounts = [("Main jackpot (seed + increment)", peso(t.main_cents)),
                   ("Reserve (added to the main amount won)", peso(t.reserve_cents)),
                   (label, peso(t.main_cents + t.reserve_cents))]
    if t.mode == "cease" and t.hit_on:
        funds_title = "Funds at the hit"
    elif t.completed_on:
        funds_title = "Funds at the transfer"
    else:
        funds_title = "Funds at the date of this notice"
    done = (f"{_day(t.completed_on)} ({_on_time(t.completed_on, dl['part2'])})"
            if t.completed_on else blank)
    part2_rows = [("Date completed (latest " + _day(dl["part2"]) + ")", done)]
    if t.mode == "transfer":
        part2_rows += [
            (f"Amount received by {t.destination}",
             peso(t.transferred_cents) if t.completed_on else blank),
            ("Seed returned to the operator",
             peso(t.seed_returned_cents) if t.completed_on else blank),
            (f"{t.jackpot} after the transfer", peso(0) if t.completed_on else blank)]
    else:
        part2_rows += [
            ("Date of the hit", _day(t.hit_on) if t.hit_on else blank),
            ("Amount awarded (on main + reserve)",
             peso(t.amount_won_cents) if t.amount_won_cents is not None else blank),
            ("TGD-1500 reference", t.award_reference or blank)]
    body = (_section("Part 1 - notice (14 business days before)") + part1
            + _section(funds_title) + _pairs(amounts, strong=(label,))
            + _section("Part 2 - completion (within 2 business days after)")
            + _pairs(part2_rows)
            + f'<p style="font-size:7.5pt;">{_text(_holiday_note(t))}</p>'
            + _section("Linked tables (their jackpot drop boxes feed this jackpot)")
            + _linked_tables(t)
            + _section("Affirmations (tick each box that is true)") + _affirmations(t)
            + _section("The following are attached to this form (tick each attached)")
            + _ticks(TGD1540_ATTACHMENTS)
            + _notes((TGD1540_SUBMISSION,)))
    return _page("Progressive jackpot transfer / cessation", "TGD-1540", t.casino, t.operator,
                 f"{t.jackpot} - effective {_day(t.effective_on)}", body,
                 location=t.room_location)


# TGD-1540 (Annex F) as the form writes them: its attachments and its submission instruction
TGD1540_ATTACHMENTS = ("Updated TGD-1508", "Bank Statement",
                       "Proposed Progressive Jackpot IRG (if applicable)")
TGD1540_SUBMISSION = (
    "The Operator shall submit this form to: poker@pagcor.ph at least seven (7) days prior to "
    "the intended transfer/cessation date. Cut-off for submission of notifications shall be "
    "3:00 PM. (The guideline V.B.i.a asks for part 1 at least fourteen (14) business days "
    "prior: the dates above are the guideline's, the earlier.)")


def _ticks(items: Sequence[str]) -> str:
    """Check boxes to tick by hand, one a line."""
    rows = "".join(f'<tr><td width="4%" valign="top"><span style="font-size:10pt;">{BOX}'
                   f"</span></td><td>{_text(a)}</td></tr>" for a in items)
    return (f'<table width="100%" cellspacing="0" cellpadding="1">{rows}</table>'
            f'<p style="font-size:7.5pt; margin-top:2px;">The boxes: {_mark(HAND_MARK)}.</p>')


def _linked_tables(t: TransferCessation) -> str:
    if not t.linked_tables:
        return ('<p style="margin-top:0px;">No drop box of this jackpot is counted in the '
                f"ledger. Tables: {blank(width=40)}</p>")
    ts = sorted(t.linked_tables, key=lambda x: (x.first_day, x.table))
    return _grid(
        ("Table", "First gaming day counted", "Last gaming day counted", "Days counted",
         "Jackpot rake counted"),
        [(x.table, _day(x.first_day), _day(x.last_day), str(x.days),
          peso(x.jackpot_rake_cents)) for x in ts],
        right=(3, 4), widths=(16, 24, 24, 12, 24),
        total=(_count(len(ts), "table"), "", "", "",
               peso(sum(x.jackpot_rake_cents for x in ts))))


def affirmations(t: TransferCessation) -> tuple[str, ...]:
    """The statements the operator affirms on TGD-1540 (ticked and signed by hand)."""
    what = "transfer" if t.mode == "transfer" else "cessation"
    out = [f"The players were told of the {what} at least 7 calendar days before the effective "
           "date, by a notice posted in the poker room.",
           "The jackpot drop boxes of the linked tables are counted and posted up to the "
           "effective date, and the amounts above agree with the poker room's records."]
    if t.mode == "transfer":
        out += [f"The increment and the whole reserve go to {t.destination}; only the seed "
                "outstanding returns to the operator.",
                f"No jackpot rake is collected for {t.jackpot} after the effective date, and "
                "its posted jackpot display is taken down on that date."]
    else:
        out += ["The jackpot rake is collected until the jackpot is hit; once hit, the reserve "
                "is added to the main amount won and the jackpot ceases.",
                "No seed money returns to the operator once the jackpot is hit."]
    return tuple(out)


def _affirmations(t: TransferCessation) -> str:
    rows = "".join(f'<tr><td width="4%" valign="top"><span style="font-size:10pt;">{BOX}'
                   f"</span></td><td>{_text(a)}</td></tr>" for a in affirmations(t))
    return (f'<table width="100%" cellspacing="0" cellpadding="1">{rows}</table>'
            f'<p style="font-size:7.5pt; margin-top:2px;">The boxes: {_mark(HAND_MARK)}; '
            "the operator's signers below affirm the ticked statements.</p>")


# --------------------------------------------------------------------------------------
# TGD-1581 implementation request and approval (Annex A)

# The qualifying hand and its conditions (RULES.md 6 "Qualification",
# core.pokerroom.rules.bbj.decide):
# the rules of the game, not the operator's to set, printed as the request states them.
HAND_REQUIREMENTS: tuple[str, ...] = (
    "Texas Hold'em only.",
    "Losing hand Aces full of Tens or better (AAATT, AAAJJ, AAAQQ, AAAKK, four of a kind, "
    "straight flush, royal flush), beaten by four of a kind or better.",
    "The two highest hands at showdown, each the player's best five cards.",
    "Both hole cards of each player play; a kicker must beat the board; Aces full needs an "
    "Ace in the hole.",
    "Void for: hands discussed, one player to a hand violated, fouled deck, switched cards, "
    "unverifiable hand; deck sorted and CCTV reviewed before award.",
    "Every player shows a valid government ID to be paid.",
)


# TGD-1581 (Annex A) section C's "OTHER DOCUMENTS FOR SUBMISSION" and undertaking, as the form
# writes them
TGD1581_DOCUMENTS = (
    "A. Implementing Rules and Guidelines for the Poker progressive wagering and progressive "
    "jackpot containing at a minimum the following: 1. Jackpot rake rules; 2. Jackpot "
    "mechanics; 3. Jackpot payouts; 4. Standards for Poker progressive jackpots; and 5. Other "
    "concerns that need to be included. (Note: The requirements above applies to progressive "
    "wagering and jackpot other than Bad Beat Jackpot)",
    "B. Bank Certificate of the account for the exclusive use of progressive jackpot funds",
    "C. Letter of Authorization for PAGCOR to audit Bad Beat Jackpot bank account",
)
TGD1581_UNDERTAKING = (
    "We confirm and undertake to implement Poker progressive wagering and progressive jackpot "
    "in accordance with Poker progressive jackpot guidelines as prescribed in the Gaming Site "
    "Regulatory Manual (Poker Games).")


@dataclass(frozen=True)
class ImplementationRequest:
    """TGD-1581: the request for PAGCOR's approval to implement a Bad Beat Jackpot, with the
    room's rules (``rules``, ``fund``: the floor file's ``[poker_room]``), the fund from the
    ledger, and the requested implementation (effective) date.  The filing deadline is
    :mod:`core.pokerroom.implementation`'s (8 business days before, 15:00 cut-off) in ``tz``
    with ``holidays``; ``filed_at`` (aware) prints whether the request is timely or LATE, and a
    filing received on or after the effective date is refused."""

    casino: str
    operator: str
    jackpot: str  # the fund's name and id
    effective_on: date
    tz: ZoneInfo
    rules: BbjSettings
    fund: FundSettings
    seed_cents: int  # seed money infused so far (the ledger's seed entries)
    main_cents: int  # the fund now (0 / 0 before anything is recorded)
    reserve_cents: int
    postings: int = 0  # days posted so far: 0 = not running yet
    first_posted: date | None = None
    filed_at: datetime | None = None
    holidays: tuple[date, ...] = ()
    room_location: str = ""  # [poker_room] room_location; "" prints a blank to fill in

    def __post_init__(self) -> None:
        for name in ("seed", "main", "reserve"):
            _check_cents(getattr(self, f"{name}_cents"), f"{name} amount")
        if self.filed_at is not None:
            try:
                got = self.received_on
            except implementation.ImplementationError as exc:
                raise FormError(str(exc)) from None
            assert got is not None
            if got >= self.effective_on:
                raise FormError(
                    f"effective date {self.effective_on}: a request filed "
                    f"{self.filed_at.astimezone(self.tz):%Y-%m-%d %H:%M} is received on "
                    f"{got}, not before the implementation date (it must be filed at least "
                    f"{implementation.FILING_BUSINESS_DAYS} business days before)")

    @property
    def latest_filing(self) -> datetime:
        return implementation.latest_filing(self.effective_on, self.tz, self.holidays)

    @property
    def received_on(self) -> date | None:
        if self.filed_at is None:
            return None
        return implementation.received_on(self.filed_at, self.tz, self.holidays)

    @property
    def timely(self) -> bool | None:
        got = self.received_on
        return None if got is None else got <= self.latest_filing.date()

    @property
    def holidays_skipped(self) -> tuple[date, ...]:
        """The weekday holidays between the latest filing day and the effective date."""
        last = self.latest_filing.date()
        return tuple(sorted(h for h in set(self.holidays)
                            if h.weekday() < 5 and last < h < self.effective_on))


def _when(at: datetime) -> str:
    offset = at.strftime("%z")
    return f"{at:%A %d %B %Y %H:%M}" + (f" (UTC{offset[:3]}:{offset[3:5]})" if offset else "")


def implementation_request_html(r: ImplementationRequest) -> str:
    latest = r.latest_filing
    n = implementation.FILING_BUSINESS_DAYS
    cut = implementation.CUT_OFF.strftime("%H:%M")
    if r.filed_at is None:
        filed: list[tuple[str, str]] = [
            ("Date and time submitted", blank()),
            ("Received on (business day)", blank())]
    else:
        got = r.received_on
        assert got is not None
        verdict = ("on time" if r.timely else
                   f"LATE: received after the latest filing day {_day(latest.date())}")
        filed = [("Date and time submitted", _when(r.filed_at.astimezone(r.tz))),
                 ("Received on (business day)", f"{_day(got)} ({verdict})")]
    if r.holidays:
        skipped = r.holidays_skipped
        hol = ("holidays skipped: " + ", ".join(_day(h) for h in skipped) if skipped
               else f"none of the {len(r.holidays)} configured public holidays falls in "
                    "the period")
    else:
        hol = ("no public holidays are configured (floor file [casino] public_holidays): the "
               "preparer must check them")
    request = _pairs([
        ("Progressive jackpot", r.jackpot),
        ("Requested implementation (effective) date", _day(r.effective_on)),
        (f"Latest filing ({n} business days before, {cut} cut-off)", _when(latest)),
        *filed,
    ], strong=(f"Latest filing ({n} business days before, {cut} cut-off)",), label_width=45)
    deadline_note = _notes((
        f"The request is filed at least {n} business days before the implementation date; a "
        f"request submitted after {cut} counts as received on the next business day. Business "
        f"days are Monday to Friday except public holidays; {hol}.",))
    rs, st = r.rules, r.fund
    qualification = _pairs([
        ("Players dealt in (at least)", str(rs.min_players)),
        ("Pot, house and jackpot rake included (at least)",
         f"{rs.min_pot_big_blinds} x the big blind"),
    ], label_width=62)
    hands = "".join(f"<li>{_text(h)}</li>" for h in HAND_REQUIREMENTS)
    split = _pairs([
        ("Winning hand", rate_text(rs.split.winning)),
        ("Losing (bad beat) hand", rate_text(rs.split.losing)),
        ("Table share (the other players dealt in, equally)", rate_text(rs.split.table)),
        ("A table at a lower jackpot rake cap wins", "cap / room maximum of the main jackpot"),
        ("Two hands of equal value for a place (a tie)",
         "the place's share divided equally, each rounded down" if rs.tie == "split"
         else "refused: the room manager decides"),
        ("Withholding tax: citizens, residents and NRAETB",
         f"{rate_text(rs.resident_tax_rate)} of the whole share above "
         f"{peso(rs.tax_threshold_cents)}"),
        ("Withholding tax: NRANETB", f"{rate_text(rs.nranetb_tax_rate)} of any share"),
    ], label_width=55)
    caps = _grid(("Big blind", "Cap per hand", "Share of main won"),
                 [(peso(bb), peso(cap), _percent_text(Fraction(cap, st.room_max_rake_cents)))
                  for bb, cap in sorted(st.caps_by_big_blind)],
                 right=(0, 1, 2), widths=(30, 35, 35)) if st.caps_by_big_blind else (
        '<p style="margin-top:2px;">No lower caps by blind level: every table collects up to '
        "the room maximum.</p>")
    rake = _pairs([
        ("Jackpot rake (of each eligible pot; no flop, no drop; once per hand)",
         rate_text(st.rake_rate)),
        ("Room maximum jackpot rake per hand", peso(st.room_max_rake_cents)),
        ("Operator's administrative fee (of the daily jackpot rake)",
         rate_text(st.admin_fee_rate)),
        ("To the jackpot fund", rate_text(1 - st.admin_fee_rate)),
        ("Main jackpot (of the fund's share)", rate_text(st.main_rate)),
        ("Reserve jackpot (of the fund's share)", rate_text(1 - st.main_rate)),
        ("Jackpot drop box chips (pesos)", ", ".join(str(d) for d in st.denominations)),
    ], label_width=62)
    running = r.postings > 0
    fund = _pairs([
        ("Seed money infused by the operator so far", peso(r.seed_cents)),
        ("Days posted so far", f"{r.postings} (first {_day(r.first_posted)})"
         if running and r.first_posted else "none: not running yet"),
        ("Main jackpot now", peso(r.main_cents) if running else
         f"{peso(r.main_cents)} (the seed; no collection yet)"),
        ("Reserve jackpot now", peso(r.reserve_cents)),
    ], label_width=55)
    body = (_section("The request") + request + deadline_note
            + _side_by_side(_section("Qualifying hand") + qualification
                            + f'<ul style="margin-top:3px; margin-left:12px;">{hands}</ul>',
                            _section("Payout split and withholding tax") + split)
            + _side_by_side(_section("Jackpot rake and fund") + rake,
                            _section("The fund (from the ledger)") + fund
                            + _section("Jackpot rake caps by blind level") + caps)
            + _section("Other documents for submission (tick each attached)")
            + _ticks(TGD1581_DOCUMENTS)
            + f'<p style="margin-top:4px;">{_text(TGD1581_UNDERTAKING)}</p>'
            + _notes((f"Cut-off for submission of requests/notifications shall be {cut}.",)))
    return _page("Bad Beat Jackpot - implementation request and approval", "TGD-1581",
                 r.casino, r.operator,
                 f"{r.jackpot} - implementation on {_day(r.effective_on)}", body,
                 location=r.room_location, annex="PAGCOR annex form - Annex A",
                 certify="We request approval to implement the Bad Beat Jackpot above under "
                         "these rules, and certify that the information given is true and "
                         "correct.")


# --------------------------------------------------------------------------------------
# Examples (docs/screenshots/tgd-*.png, the tests)


def demo_forms() -> dict[str, str]:
    """HTML of every form filled with the example figures of docs/forms.md (file stem -> HTML)."""
    from dataclasses import replace

    from core.kernel.cards import parse_cards
    from core.pokerroom.rules.bbj import ShownHand, decide

    casino, operator = "Podium Demo Casino Manila", "Podium Leisure and Resorts Corp."
    tables = (
        TableDay("PK-01", time(10, 0), time(23, 45), "J. dela Cruz / M. Garcia", "R-0101",
                 "J-0101", 2_845_000, 1_230_000, {500: 10, 100: 60, 50: 24, 25: 4}),
        TableDay("PK-02", time(12, 30), time(22, 15), "A. Bautista", "R-0102", "J-0102",
                 1_917_500, 865_000, {500: 6, 100: 50, 50: 11, 25: 2, 10: 5}),
        TableDay("PK-03", time(18, 0), time(2, 10), "R. Villanueva", "R-0103", "J-0103",
                 3_102_000, 1_455_000, {500: 20, 100: 40, 50: 10, 25: 2}),
    )
    location = "2/F Grand Hall, Podium Demo Casino, Entertainment City, Paranaque"
    daily = DailyReport("TGD-1623", casino, operator, date(2026, 11, 30), tables,
                        previous_main_cents=152_345_600, previous_reserve_cents=65_290_900,
                        seed_cents=0, tournament_fee_cents=1_250_000, room_location=location)
    offsite = DailyReport("TGD-1494", casino, operator, date(2026, 11, 30), tables[:2],
                          previous_main_cents=152_345_600, previous_reserve_cents=65_290_900,
                          seed_cents=5_000_000)
    board = parse_cards(["Ah", "Ad", "Tc", "7s", "7c"], count=None)
    w = parse_cards(["7h", "7d"], count=None)
    lo = parse_cards(["As", "Td"], count=None)
    claim = Claim(big_blind_cents=10_000, pot_cents=412_000, dealt_in=(1, 2, 3, 4, 5, 6, 7, 8),
                  board=board, showdown=(ShownHand(1, (lo[0], lo[1])),
                                         ShownHand(4, (w[0], w[1]))),
                  table_jackpot_rake_cap_cents=10_000, room_max_jackpot_rake_cents=10_000,
                  main_jackpot_cents=153_400_000, reserve_jackpot_cents=65_743_500,
                  taxpayers={6: "nranetb"})
    names = {1: "Maria Santos", 2: "Jose Rizal Reyes", 3: "Ana Lim", 4: "Pedro Aquino",
             5: "Liza Mendoza", 6: "Kenji Watanabe", 7: "Carlo Ramos", 8: "Grace Tan"}
    award = awarding_request(decide(claim), claim, names, casino=casino, operator=operator,
                             table="PK-03", hit_at=datetime(2026, 11, 30, 21, 47),
                             small_blind_cents=5_000, jackpot_rake_cents=10_000)
    award = replace(award, room_location=location,
                    paid_on={1: date(2026, 12, 2), 4: date(2026, 12, 2)})
    quarterly = QuarterlyTax(
        casino, operator, 2026, 4,
        (MonthFees(date(2026, 10, 1), 215_430_000, 27_911_250, 3_750_000),
         MonthFees(date(2026, 11, 1), 198_765_500, 25_470_000, 2_500_000),
         MonthFees(date(2026, 12, 1), 231_002_250, 29_880_750, 5_000_000)),
        tuple(JackpotPayment(date(2026, 12, 2), "BBJ-2026-0007", s.name, s.taxpayer,
                             s.gross_cents, s.tax_cents) for s in award.sharers)
        + (JackpotPayment(date(2026, 10, 14), "BBJ-2026-0006", "Ramon Cruz", "citizen",
                          900_000, 0),), room_location=location)
    transfer = TransferCessation(casino, operator, "Bad Beat Jackpot PK room", "transfer",
                                 date(2026, 11, 2), date(2026, 11, 23), date(2026, 11, 16),
                                 seed_cents=5_000_000, main_cents=153_400_000,
                                 reserve_cents=65_743_500,
                                 destination="Bad Beat Jackpot PK room (new hall)",
                                 completed_on=date(2026, 11, 24),
                                 reason="Poker room moves to the new hall",
                                 linked_tables=tuple(
                                     LinkedTable(t, date(2026, 1, 5), date(2026, 11, 22), days,
                                                 rake)
                                     for t, days, rake in (("PK-01", 312, 281_450_000),
                                                           ("PK-02", 298, 190_215_000),
                                                           ("PK-03", 305, 301_770_500))))
    implement = ImplementationRequest(
        casino, operator, "Bad Beat Jackpot PK room (new hall)", date(2026, 12, 14),
        ZoneInfo("Asia/Manila"), BbjSettings(),
        FundSettings(caps_by_big_blind=((2_000, 2_500), (5_000, 5_000), (10_000, 7_500))),
        seed_cents=5_000_000, main_cents=5_000_000, reserve_cents=0,
        filed_at=datetime(2026, 12, 2, 16, 20, tzinfo=ZoneInfo("Asia/Manila")),
        holidays=(date(2026, 12, 8), date(2026, 12, 25)), room_location=location)
    return {"tgd-1623-daily-onsite": daily_report_html(daily),
            "tgd-1494-daily-offsite": daily_report_html(offsite),
            "tgd-1500-awarding-request": awarding_request_html(award),
            "tgd-108-quarterly-tax": quarterly_tax_html(quarterly),
            "tgd-1540-transfer-cessation": transfer_cessation_html(transfer),
            "tgd-1581-implementation-request": implementation_request_html(implement)}


def write_demo_forms(folder: str, *, pdf: bool = True) -> list[str]:
    """Render :func:`demo_forms` to ``folder`` as PNG and (``pdf``) PDF (``make screenshots``
    writes the PNGs of docs/screenshots/tgd-*.png)."""
    from pathlib import Path

    from printing.pages.winpage import render_png, write_pdf

    out = []
    for stem, html in demo_forms().items():
        base = Path(folder) / stem
        if pdf:
            write_pdf(html, base.with_suffix(".pdf"), title=stem.upper())
        render_png(html, base.with_suffix(".png"))
        out.append(str(base))
    return out
