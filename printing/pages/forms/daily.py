"""TGD-1494 (offsite) / TGD-1623 (onsite): the poker room's daily active table, rake and
jackpot rake collection report (:class:`DailyReport` -> :func:`daily_report_html`), one
:class:`TableDay` a table; TGD-1623 adds the remittance (:func:`remittance`) and PAGCOR
Treasury's acknowledgement receipt.  The jackpot rake's split (the 30% admin fee, which is also
TGD-1623's B, and the fund's 70% main / 30% reserve) is the ledger's own
:func:`core.pokerroom.fund.distribute` (:func:`fund_split`: rounded DOWN, the rest to the
reserve), so a form never shows other figures than the fund's posting."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, time

from core.pokerroom.fund import FundSettings, distribute
from printing.pages.forms.figures import (
    FRANCHISE_TAX_PERCENT,
    PAGCOR_PERCENT,
    FormError,
    check_cents,
    percent_of,
    peso,
    rate_text,
)
from printing.pages.forms.page import (
    HAND_MARK,
    PAGCOR_MARK,
    Html,
    cell_text,
    count_text,
    day_text,
    form_page,
    grid,
    mark_span,
    note_lines,
    pairs,
    section,
    signature_cell,
)

_FUND = FundSettings()  # the rates every form prints (RULES.md 6 "Funding")
DENOMINATIONS: tuple[int, ...] = _FUND.denominations  # pesos: the chips of a jackpot drop box


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
    a = check_cents(rake_cents, "cash game rake")
    b = fund_split(check_cents(jackpot_rake_cents, "jackpot rake"), settings).admin_fee
    c = check_cents(tournament_fee_cents, "tournament fee")
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
    d = distribute(check_cents(jackpot_rake_cents, "jackpot rake"), settings)
    return FundSplit(d.collection_cents, d.admin_fee_cents,
                     d.collection_cents - d.admin_fee_cents, d.to_main_cents, d.to_reserve_cents)


def _hm(t: time) -> str:
    return t.strftime("%H:%M")


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
        check_cents(self.rake_cents, f"{where}: rake")
        check_cents(self.jackpot_rake_cents, f"{where}: jackpot rake")
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
            check_cents(getattr(self, f"{name}_cents"), name.replace("_", " "))
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
    tables = grid(
        ("Table", "Opened", "Closed", "Dealer", "Rake box", "Jackpot box", "Rake",
         "Jackpot rake"),
        [(t.table, _hm(t.opened), _hm(t.closed) + (" (+1 day)" if t.closed < t.opened else ""),
          t.dealer, t.rake_box, t.jackpot_box,
          peso(t.rake_cents), peso(t.jackpot_rake_cents)) for t in report.tables],
        right=(6, 7), widths=(9, 9, 8, 20, 10, 10, 17, 17),
        total=("Total", "", "", count_text(len(report.tables), "table"), "", "",
               peso(report.rake_cents), peso(report.jackpot_rake_cents)))
    chips = grid(
        ("Table", *(f"PHP {d} x" for d in denoms), "Jackpot rake"),
        [(t.table, *(str(t.chips.get(d, 0)) for d in denoms), peso(t.jackpot_rake_cents))
         for t in report.tables],
        right=tuple(range(1, len(denoms) + 2)),
        total=("Total", *(str(sum(t.chips.get(d, 0) for t in report.tables))
                          for d in denoms), peso(report.jackpot_rake_cents)))
    # The cash game's (house rake) drop box is counted as a total only: its chips per
    # denomination are not in the ledger (bbj_drop_counts.rake_cents), so they print blank.
    cash = grid(
        ("Table", "Rake box", *(f"PHP {d} x" for d in denoms), "Rake (counted)"),
        [(t.table, t.rake_box, *(Html("&nbsp;") for _ in denoms), peso(t.rake_cents))
         for t in report.tables],
        right=tuple(range(2, len(denoms) + 3)),
        total=("Total", "", *(Html("&nbsp;") for _ in denoms), peso(report.rake_cents)))
    cash_note = ('<p style="font-size:7.5pt; margin-top:2px; margin-bottom:0px;">Number of '
                 "chips per denomination: " + mark_span(HAND_MARK) + " (the ledger keeps the house "
                 "rake box's counted total; the jackpot drop box's chips are above).</p>")
    f = report.fund
    fund = grid(
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
    collection = pairs([
        ("Day's jackpot rake collection (all tables)", peso(f.collection)),
        (f"Operator's administrative fee ({fee_pct})", peso(f.admin_fee)),
        (f"To the jackpot fund ({fund_pct})", peso(f.to_fund)),
    ], strong=(f"To the jackpot fund ({fund_pct})",))
    body = (section("Active tables, rake and jackpot rake") + tables
            + section("Jackpot drop box count by denomination (number of chips)") + chips
            + section("Cash game (house rake) drop box chip count by denomination") + cash
            + cash_note
            + section("Jackpot fund distribution") + collection + "<br>" + fund
            + note_lines(report.notes))
    if report.chain:
        body += f'<p style="font-size:7pt; font-family:monospace;">{cell_text(report.chain)}</p>'
    r = report.remittance
    receipt = ""
    if r is not None:
        body += section("Remittance computation") + pairs([
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
        receipt = section("Acknowledgement receipt (PAGCOR Treasury)") + _treasury_receipt(
            report, r)
    period = f"Gaming day {day_text(report.gaming_day)}"
    return form_page(title, report.form, report.casino, report.operator,
                     f"{period} - {report.jackpot}" if report.jackpot else period, body,
                     location=report.room_location, after_signatures=receipt)


def _treasury_receipt(report: DailyReport, r: Remittance) -> str:
    """TGD-1623 page 2's ACKNOWLEDGEMENT RECEIPT: "trading date: ... This acknowledges receipt
    of the cash amount of P ... representing Poker Operator's remittance for ...", Received By
    (Treasury Division Representative), Conforme (Operator's Representative).  The trading date
    and the amount are the report's; the signatures are by hand (the receipt is PAGCOR's)."""
    return (
        f'<p style="margin-top:0px; margin-bottom:3px;">Trading date: {day_text(report.gaming_day)}'
        ". This acknowledges receipt of the cash amount of "
        f"{cell_text(peso(r.total))} representing Poker Operator's remittance for "
        f"{day_text(report.gaming_day)}.</p>"
        '<table width="100%" cellspacing="0" cellpadding="2"><tr>'
        + signature_cell("Received by (Treasury Division Representative)", 50, PAGCOR_MARK)
        + signature_cell("Conforme (Operator's Representative)", 50)
        + "</tr></table>")
