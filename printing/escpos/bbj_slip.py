"""The Bad Beat Jackpot share slip: one sharer's pay (RULES.md 6 "Payout"), printed when the
share is paid, as ESC/POS bytes for the same 80 mm receipt printer as the win slips.

A case pays its shares seat by seat (core/pokerroom/cases/ ``share_paid``, each after a
supervisor's swipe); each share gets its own slip.  :func:`share_slip` builds the slip from
the ledger alone (the case's claim for the name, the fund's award share for the figures, the
``share_paid`` row for who paid and when), so a reprint is always the same paper with a
"REPRINT" banner.  :func:`render_share_slip` is pure: the same slip, the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.money import PESOS, Currency
from core.ledger.models import BbjAward, BbjAwardShare, BbjFund
from core.people.who import Who
from core.pokerroom import cases as bc
from core.tablegames.slip_record import SlipError
from printing.escpos.slip import (
    DEFAULT_PROFILE,
    _suit_symbols_printable,
    amount_in_words,
    cards_text,
    finish_receipt,
    paid_time_text,
    paper_money,
    start_receipt,
)

ROLE_TEXT = {"winning": "Winning hand", "losing": "Losing hand (bad beat)",
             "table": "Table share"}
TAXPAYER_TEXT = {"citizen": "Citizen / resident", "nraetb": "NRAETB", "nranetb": "NRANETB"}


@dataclass(frozen=True)
class ShareSlip:
    """Everything a share slip shows."""

    casino: str
    fund: str
    case_id: int
    award_id: int
    table: str
    hit_at: datetime
    seat: int
    name: str
    role: str  # winning | losing | table
    taxpayer: str  # citizen | nraetb | nranetb
    hole: tuple[str, ...]  # the seat's hole cards if it showed, else ()
    gross_cents: int
    tax_cents: int
    paid_by: Who
    paid_at: datetime
    timezone: str
    reprint: bool = False
    currency: Currency = PESOS  # FloorConfig.fund_money: the funds' currency, the casino's locale

    @property
    def net_cents(self) -> int:
        return self.gross_cents - self.tax_cents

    @property
    def reference(self) -> str:
        return f"BBJ-C{self.case_id}-A{self.award_id}-S{self.seat}"


def share_slip(engine: Engine, case_id: int, seat: int, *, casino: str, timezone: str,
               reprint: bool = False, currency: Currency = PESOS) -> ShareSlip:
    """The slip of ``seat``'s paid share in case ``case_id``, from the ledger; a
    :class:`SlipError` when that share is not paid (yet)."""
    try:
        case = bc.get_case(engine, case_id)
    except bc.BbjCaseError as exc:
        raise SlipError(str(exc)) from None
    paid = next((e for e in case.events if e.state == "share_paid" and e.seat == seat), None)
    if paid is None or case.award_id is None:
        raise SlipError(f"case {case_id}: seat {seat} has no paid share; a share slip is "
                        "printed once the share is paid")
    with Session(engine) as s:
        share = s.execute(select(BbjAwardShare).where(BbjAwardShare.award_id == case.award_id,
                                                      BbjAwardShare.seat == seat)).scalar_one()
        award = s.get(BbjAward, case.award_id)
        fund = s.get(BbjFund, case.fund_id)
        assert award is not None and fund is not None
    hole: tuple[str, ...] = ()
    for shown in case.claim.get("showdown", []):
        if int(shown["seat"]) == seat:
            hole = tuple(shown["hole"])
    return ShareSlip(
        casino=casino, fund=fund.name, case_id=case_id, award_id=award.id,
        table=case.table, hit_at=case.hit_at, seat=seat,
        name=str(case.claim.get("names", {}).get(str(seat), "")).strip(),
        role=share.role, taxpayer=share.taxpayer, hole=hole, gross_cents=share.gross_cents,
        tax_cents=share.tax_cents, paid_by=Who(paid.by.number, paid.by.name, "Supervisor"),
        paid_at=paid.at, timezone=timezone, reprint=reprint, currency=currency)


def render_share_slip(slip: ShareSlip, *, profile: str = DEFAULT_PROFILE) -> bytes:
    """The ESC/POS bytes of ``slip`` (pure)."""
    if not slip.name:
        raise SlipError(f"share slip seat {slip.seat}: no name (the name on the player's "
                        "government ID, RULES.md 6 point 10)")
    zone = ZoneInfo(slip.timezone)
    money = paper_money(slip.currency, profile)  # "PHP 1,234.56": no code page has the sign
    _money = money.text
    p, w = start_receipt(profile, reprint=slip.reprint)
    w.big(slip.casino.upper())
    w.style(align="center", bold=True, size="2h")
    w.line("BAD BEAT JACKPOT SHARE")
    w.style(align="center")
    w.line(slip.fund)
    w.rule("=")

    w.field("Reference", slip.reference, bold=True)
    w.field("Table", slip.table)
    w.field("Hit at", f"{slip.hit_at.astimezone(zone):%Y-%m-%d %H:%M} "
                      f"{slip.hit_at.astimezone(zone).tzname() or ''}".strip())
    w.field("Seat", str(slip.seat))
    w.field("Player", slip.name, bold=True)
    w.field("Share", ROLE_TEXT.get(slip.role, slip.role))
    if slip.hole:
        w.field("Hole cards", cards_text(slip.hole, _suit_symbols_printable(p)))
    w.field("Taxpayer", TAXPAYER_TEXT.get(slip.taxpayer, slip.taxpayer))
    w.rule()
    w.field("Gross share", _money(slip.gross_cents))
    w.field("Tax withheld", _money(slip.tax_cents))
    w.rule()
    w.style(align="center", bold=True)
    w.line("NET AMOUNT PAID")
    w.big(_money(slip.net_cents), largest=3)
    w.style(align="center")
    w.line(f"{amount_in_words(slip.net_cents)} {money.name_in_words()}")
    w.rule()

    local, utc = paid_time_text(slip.paid_at, zone)
    w.field("Paid by", slip.paid_by.name)
    w.field("", f"No. {slip.paid_by.number}, {slip.paid_by.role}")
    w.field("Paid at", local)
    w.field("", utc)
    w.field("Award", f"No. {slip.award_id} (TGD-1500, case {slip.case_id})")
    w.rule()
    return finish_receipt(p, w, reference=slip.reference,
                          signers=("Player", "Supervisor", "Cashier"),
                          footer=f"{slip.casino} - {slip.reference}", reprint=slip.reprint,
                          acknowledgment="Received the net amount above; government ID shown.")


def demo_share_slip(*, reprint: bool = False) -> ShareSlip:
    """A realistic share slip for previews and documentation."""
    from datetime import UTC

    return ShareSlip(
        casino="Podium Demo Casino", fund="Poker room Bad Beat Jackpot", case_id=3, award_id=2,
        table="P1", hit_at=datetime(2026, 12, 1, 14, 0, tzinfo=UTC), seat=1,
        name="Juan Dela Cruz", role="losing", taxpayer="citizen", hole=("As", "Td"),
        gross_cents=1_014_112, tax_cents=202_822,
        paid_by=Who("1001", "Maria Santos", "Supervisor"),
        paid_at=datetime(2026, 12, 2, 14, 15, tzinfo=UTC), timezone="Asia/Manila",
        reprint=reprint)


__all__ = ["ShareSlip", "demo_share_slip", "render_share_slip", "share_slip"]
