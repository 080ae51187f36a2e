"""TGD-1581 (Annex A): the request for PAGCOR's approval to implement a Bad Beat Jackpot
(:class:`ImplementationRequest` -> :func:`implementation_request_html`): the qualifying hand,
the payout split and withholding tax, the jackpot rake and fund (the floor file's
``[poker_room]``), the fund from the ledger, and the filing deadline of
:mod:`core.pokerroom.implementation` (timely or LATE)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from fractions import Fraction
from zoneinfo import ZoneInfo

from core.pokerroom import implementation
from core.pokerroom.fund import FundSettings
from core.pokerroom.rules.bbj import BbjSettings
from printing.pages.forms.figures import FormError, check_cents, percent_text, peso, rate_text
from printing.pages.forms.page import (
    blank,
    cell_text,
    day_text,
    form_page,
    grid,
    note_lines,
    pairs,
    section,
    side_by_side,
    ticks,
)

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
            check_cents(getattr(self, f"{name}_cents"), f"{name} amount")
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
                   f"LATE: received after the latest filing day {day_text(latest.date())}")
        filed = [("Date and time submitted", _when(r.filed_at.astimezone(r.tz))),
                 ("Received on (business day)", f"{day_text(got)} ({verdict})")]
    if r.holidays:
        skipped = r.holidays_skipped
        hol = ("holidays skipped: " + ", ".join(day_text(h) for h in skipped) if skipped
               else f"none of the {len(r.holidays)} configured public holidays falls in "
                    "the period")
    else:
        hol = ("no public holidays are configured (floor file [casino] public_holidays): the "
               "preparer must check them")
    request = pairs([
        ("Progressive jackpot", r.jackpot),
        ("Requested implementation (effective) date", day_text(r.effective_on)),
        (f"Latest filing ({n} business days before, {cut} cut-off)", _when(latest)),
        *filed,
    ], strong=(f"Latest filing ({n} business days before, {cut} cut-off)",), label_width=45)
    deadline_note = note_lines((
        f"The request is filed at least {n} business days before the implementation date; a "
        f"request submitted after {cut} counts as received on the next business day. Business "
        f"days are Monday to Friday except public holidays; {hol}.",))
    rs, st = r.rules, r.fund
    qualification = pairs([
        ("Players dealt in (at least)", str(rs.min_players)),
        ("Pot, house and jackpot rake included (at least)",
         f"{rs.min_pot_big_blinds} x the big blind"),
    ], label_width=62)
    hands = "".join(f"<li>{cell_text(h)}</li>" for h in HAND_REQUIREMENTS)
    split = pairs([
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
    caps = grid(("Big blind", "Cap per hand", "Share of main won"),
                [(peso(bb), peso(cap), percent_text(Fraction(cap, st.room_max_rake_cents)))
                 for bb, cap in sorted(st.caps_by_big_blind)],
                right=(0, 1, 2), widths=(30, 35, 35)) if st.caps_by_big_blind else (
        '<p style="margin-top:2px;">No lower caps by blind level: every table collects up to '
        "the room maximum.</p>")
    rake = pairs([
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
    fund = pairs([
        ("Seed money infused by the operator so far", peso(r.seed_cents)),
        ("Days posted so far", f"{r.postings} (first {day_text(r.first_posted)})"
         if running and r.first_posted else "none: not running yet"),
        ("Main jackpot now", peso(r.main_cents) if running else
         f"{peso(r.main_cents)} (the seed; no collection yet)"),
        ("Reserve jackpot now", peso(r.reserve_cents)),
    ], label_width=55)
    body = (section("The request") + request + deadline_note
            + side_by_side(section("Qualifying hand") + qualification
                           + f'<ul style="margin-top:3px; margin-left:12px;">{hands}</ul>',
                           section("Payout split and withholding tax") + split)
            + side_by_side(section("Jackpot rake and fund") + rake,
                           section("The fund (from the ledger)") + fund
                           + section("Jackpot rake caps by blind level") + caps)
            + section("Other documents for submission (tick each attached)")
            + ticks(TGD1581_DOCUMENTS)
            + f'<p style="margin-top:4px;">{cell_text(TGD1581_UNDERTAKING)}</p>'
            + note_lines((f"Cut-off for submission of requests/notifications shall be {cut}.",)))
    return form_page("Bad Beat Jackpot - implementation request and approval", "TGD-1581",
                     r.casino, r.operator,
                     f"{r.jackpot} - implementation on {day_text(r.effective_on)}", body,
                     location=r.room_location, annex="PAGCOR annex form - Annex A",
                     certify="We request approval to implement the Bad Beat Jackpot above under "
                             "these rules, and certify that the information given is true and "
                             "correct.")
