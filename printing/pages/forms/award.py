"""TGD-1500 (Annex D): the request for the award of a Bad Beat Jackpot hit
(:class:`AwardingRequest`, built with :func:`awarding_request` from a bbj ``Decision``, its
``Claim`` and the sharers' names -> :func:`awarding_request_html`): the hand, the jackpot, the
sharers and the table share, the undertakings, and one acknowledgment receipt a sharer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction

from core.pokerroom.rules.bbj import Claim, Decision, Share
from printing.pages.forms.figures import TAXPAYER_NAMES, FormError, check_cents, percent_text, peso
from printing.pages.forms.page import (
    HAND_MARK,
    RULE,
    blank,
    cell_text,
    count_text,
    day_text,
    form_page,
    grid,
    mark_span,
    note_lines,
    pairs,
    section,
    side_by_side,
)

_ROLE_NAMES = {"winning": "Winning hand", "losing": "Losing hand",
               "table": "Table share"}


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
        small_blind_cents=check_cents(small_blind_cents, "small blind"),
        big_blind_cents=claim.big_blind_cents, pot_cents=claim.pot_cents,
        jackpot_rake_cents=check_cents(jackpot_rake_cents, "jackpot rake"),
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
    hit = pairs([
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
    fund = pairs([
        ("Main jackpot at the hit", peso(req.main_cents)),
        ("Reserve at the hit", peso(req.reserve_cents)),
        ("% of the main jackpot hit", percent_text(req.payout_fraction)),
        ("Amount awarded", peso(req.award_cents)),
        ("Centavos no share takes (stay in main)", peso(left)),
        ("Updated main jackpot after the hit", peso(req.main_after_cents)),
        ("Updated reserve after the hit", peso(req.reserve_after_cents)),
    ], strong=("Amount awarded",), label_width=55)
    sharers = grid(
        ("Seat", "Name (as on government ID)", "Share", "Taxpayer", "Gross share",
         "Withholding tax", "Net share"),
        [(str(s.seat), s.name, _role_name(req, s.role),
          TAXPAYER_NAMES.get(s.taxpayer, s.taxpayer), peso(s.gross_cents), peso(s.tax_cents),
          peso(s.net_cents)) for s in req.sharers],
        right=(0, 4, 5, 6), widths=(5, 22, 13, 10, 17, 16, 17),
        total=("", count_text(len(req.sharers), "sharer"), "", "", peso(req.paid_cents),
               peso(req.tax_cents), peso(req.net_cents)))
    table = req.table_sharers
    each = {s.gross_cents for s in table}
    remarks = (f"Seat{'s' if len(req.not_seated) > 1 else ''} "
               f"{', '.join(str(s) for s in req.not_seated)} dealt in but not seated at the "
               "beginning of the hand: no table share (guideline III.I)"
               if req.not_seated else "")
    table_share = pairs([
        ("Gross table share", peso(sum(s.gross_cents for s in table))),
        ("No. of table sharers", str(len(table))),
        ("Table share per player (gross)",
         peso(each.pop()) if len(each) == 1 else ("-" if not each else "see the sharers")),
        ("Remarks", remarks or blank()),
    ], label_width=45)
    body = (_instructions(TGD1500_INSTRUCTIONS)
            + side_by_side(section("The hand") + hit + note_lines(req.notes),
                           section("The jackpot") + fund)
            + section("Sharers") + sharers
            + section("Table share") + table_share
            + section("We confirm and undertake to comply with the following")
            + _numbered(TGD1500_UNDERTAKINGS)
            + section("Acknowledgment receipts") + _receipts(req, local))
    return form_page("Bad Beat Jackpot - request for awarding", "TGD-1500", req.casino,
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
            f'#444444; padding:3px;">{cell_text(text)}</p>')


def _numbered(items: Sequence[str]) -> str:
    return "".join(f'<p style="font-size:7.5pt; margin-top:1px; margin-bottom:1px;">{i}. '
                   f"{cell_text(t)}</p>" for i, t in enumerate(items, 1))


def _receipts(req: AwardingRequest, hit: str) -> str:
    """One receipt line per sharer: the net amount from the award, the day paid from the
    ledger (a blank until paid), the payee's signature and the date received by hand."""
    def paid(seat: int) -> str:
        return day_text(req.paid_on[seat]) if seat in req.paid_on else mark_span("not paid yet")

    rows = "".join(
        f'<tr><td align="right">{s.seat}</td><td>{cell_text(s.name)}</td>'
        f'<td align="right" style="white-space:nowrap;">{cell_text(peso(s.net_cents))}</td>'
        f"<td>{paid(s.seat)}"
        f'</td><td height="26">&nbsp;</td><td>&nbsp;</td></tr>' for s in req.sharers)
    head = "".join(
        f'<th bgcolor="#e6e6e6" align="left" width="{w}%">{cell_text(h)}</th>' for h, w in (
            ("Seat", 5), ("Name (as on government ID)", 22), ("Net share received", 15),
            ("Paid on (ledger)", 18), ("Payee's signature", 24), ("Date received", 16)))
    return ('<p style="margin-top:0px; margin-bottom:3px;">Each sharer acknowledges receipt of '
            f"the net share below (gross share less the withholding tax) of the Bad Beat "
            f"Jackpot hit of {cell_text(hit)} at table {cell_text(req.table)}, by signing "
            "within 24 hours after the payout. Signature and date received: "
            + mark_span(HAND_MARK) + ".</p>"
            f'<table width="100%" border="1" cellspacing="0" cellpadding="2" style="{RULE}">'
            f"<tr>{head}</tr>{rows}</table>"
            f'<p style="margin-top:3px; margin-bottom:0px;">'
            f"{cell_text(TGD1500_RECEIPT_CERTIFICATE)} Total withholding tax amount paid: "
            f"{cell_text(peso(req.tax_cents))}.</p>")
