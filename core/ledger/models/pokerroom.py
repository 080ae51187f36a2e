"""The poker room in the ledger: a Bad Beat Jackpot fund (its drop counts, daily postings,
entries, awards and shares, cessations and their notices), the tracked cases of a claim and
their share slips, the deadlines' filings, and the tournament fees the house kept."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.ledger.models.base import Base, UTCDateTime


class BbjFund(Base):
    """A poker room's Bad Beat Jackpot fund (core/pokerroom/fund/, docs/bbj.md "The fund").
    Holds no amount: its main and reserve are the sums of its bbj_entries."""

    __tablename__ = "bbj_funds"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjDropCount(Base):
    """Append-only: one jackpot drop box counted (business date, poker table, box number, when
    the table opened and closed, dealer, chip pieces per denomination in pesos as JSON
    ``{"500": 3, ...}``, the total in centavos).  Posted by the fund's posting for its date."""

    __tablename__ = "bbj_drop_counts"
    __table_args__ = (UniqueConstraint("fund_id", "business_date", "table_name", "drop_box",
                                       name="uq_bbj_drop_counts_box"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    business_date: Mapped[date] = mapped_column(Date)
    table_name: Mapped[str] = mapped_column(String(64))
    drop_box: Mapped[str] = mapped_column(String(32))
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    dealer: Mapped[str] = mapped_column(String(200))
    pieces: Mapped[dict[str, Any]] = mapped_column(JSON)
    total_cents: Mapped[int] = mapped_column(BigInteger)
    # the same table's house rake drop box, counted with it (TGD-1494/1623 "rake")
    rake_box: Mapped[str] = mapped_column(String(32), server_default="")
    rake_cents: Mapped[int] = mapped_column(BigInteger, server_default="0")
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class PokerTournamentFee(Base):
    """Append-only: the entry fees the house kept from one poker tournament on a gaming day
    (TGD-1623 C "tournament fee", TGD-108); a correction is a further row (negative fee) with
    its reason."""

    __tablename__ = "poker_tournament_fees"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    business_date: Mapped[date] = mapped_column(Date, index=True)
    tournament: Mapped[str] = mapped_column(String(200))
    fee_cents: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjPosting(Base):
    """Append-only: the updated jackpot posted after a day's count (one per fund and date): the
    previous main/reserve, the day's collection, the admin fee, the shares to main and reserve,
    the updated main/reserve, and from when the day's collection counts for a hit
    (``effective_at``: the earliest opening of the day's tables)."""

    __tablename__ = "bbj_postings"
    __table_args__ = (UniqueConstraint("fund_id", "business_date",
                                       name="uq_bbj_postings_day"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    business_date: Mapped[date] = mapped_column(Date)
    previous_main_cents: Mapped[int] = mapped_column(BigInteger)
    previous_reserve_cents: Mapped[int] = mapped_column(BigInteger)
    collection_cents: Mapped[int] = mapped_column(BigInteger)
    admin_fee_cents: Mapped[int] = mapped_column(BigInteger)
    to_main_cents: Mapped[int] = mapped_column(BigInteger)
    to_reserve_cents: Mapped[int] = mapped_column(BigInteger)
    main_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_cents: Mapped[int] = mapped_column(BigInteger)
    effective_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_closed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # the rates it was posted at ([poker_room]; decimal text); NULL before revision 0008: the
    # RULES.md defaults 0.30 / 0.70
    admin_fee_rate: Mapped[str | None] = mapped_column(String(16))
    main_rate: Mapped[str | None] = mapped_column(String(16))
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjAward(Base):
    """Append-only: a Bad Beat Jackpot hit paid from a fund (the TGD-1500 figures): when it hit,
    the table, main/reserve the decision was made on, the payout fraction (exact numerator /
    denominator), the award, what was paid, the reserve moved up, main/reserve after."""

    __tablename__ = "bbj_awards"
    __table_args__ = (UniqueConstraint("case_id", name="uq_bbj_awards_case"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    # the tracked case this award was approved in (core/pokerroom/cases/); None: recorded
    # directly
    case_id: Mapped[int | None] = mapped_column(
        ForeignKey("bbj_cases.id", name="fk_bbj_awards_case"))
    hit_at: Mapped[datetime] = mapped_column(UTCDateTime)
    table_name: Mapped[str] = mapped_column(String(64))
    main_before_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_before_cents: Mapped[int] = mapped_column(BigInteger)
    fraction_num: Mapped[int] = mapped_column(BigInteger)
    fraction_den: Mapped[int] = mapped_column(BigInteger)
    award_cents: Mapped[int] = mapped_column(BigInteger)
    paid_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_moved_cents: Mapped[int] = mapped_column(BigInteger)
    main_after_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_after_cents: Mapped[int] = mapped_column(BigInteger)
    ceases_fund: Mapped[bool] = mapped_column(Boolean)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjAwardShare(Base):
    """Append-only: one sharer of an award: seat, role (winning, losing, table), taxpayer class,
    gross share, withholding tax (net = gross - tax)."""

    __tablename__ = "bbj_award_shares"
    __table_args__ = (UniqueConstraint("award_id", "seat", name="uq_bbj_award_shares_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    award_id: Mapped[int] = mapped_column(ForeignKey("bbj_awards.id"))
    seat: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    taxpayer: Mapped[str] = mapped_column(String(16))
    gross_cents: Mapped[int] = mapped_column(BigInteger)
    tax_cents: Mapped[int] = mapped_column(BigInteger)


class BbjCessation(Base):
    """Append-only: a fund ceased (TGD-1540), once: ``transfer`` (increment + reserve to another
    fund, the seed back to the operator if the jackpot was not reset), ``after_hit``, or
    ``forfeiture`` (the poker room closed for good: main and reserve forfeited in favour of
    PAGCOR; ``increment_cents`` + ``seed_forfeited_cents`` = the main forfeited, ``closed_on``
    the closure date; both NULL for the other kinds)."""

    __tablename__ = "bbj_cessations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # transfer | after_hit | forfeiture
    to_fund_id: Mapped[str | None] = mapped_column(ForeignKey("bbj_funds.id"))
    award_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_awards.id"))
    seed_returned_cents: Mapped[int] = mapped_column(BigInteger)
    increment_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_cents: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    seed_forfeited_cents: Mapped[int | None] = mapped_column(BigInteger)  # forfeiture only
    closed_on: Mapped[date | None] = mapped_column(Date)  # forfeiture: the closure date


class BbjCessationNotice(Base):
    """Append-only: a notice that a fund will cease (TGD-1540 part 1: ``cease_once_hit``,
    ``transfer``, ``closure``), and the rows that follow a notice without changing it
    (``players_told``: the day the players were told; ``withdrawn``), which name it in
    ``refers_to_id`` (core/pokerroom/fund/notices.py)."""

    __tablename__ = "bbj_cessation_notices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    refers_to_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_cessation_notices.id"))
    notice_on: Mapped[date | None] = mapped_column(Date)  # part 1 filed (a notice row)
    effective_on: Mapped[date | None] = mapped_column(Date)  # planned, if any
    players_told_on: Mapped[date | None] = mapped_column(Date)
    to_fund_id: Mapped[str | None] = mapped_column(ForeignKey("bbj_funds.id"))  # transfer
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjEntry(Base):
    """Append-only: one movement of a fund's main and/or reserve, in centavos.  ``kind``: seed,
    collection, award, reserve_move, cessation_merge, seed_return, transfer_out, transfer_in,
    award_void, forfeiture.
    ``effective_at``: from when it counts for a hit (core.pokerroom.fund.amount_for_hit)."""

    __tablename__ = "bbj_entries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    main_delta_cents: Mapped[int] = mapped_column(BigInteger)
    reserve_delta_cents: Mapped[int] = mapped_column(BigInteger)
    posting_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_postings.id"))
    award_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_awards.id"))
    cessation_id: Mapped[int | None] = mapped_column(ForeignKey("bbj_cessations.id"))
    reason: Mapped[str] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(200))
    effective_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjCase(Base):
    """Append-only: a Bad Beat Jackpot claim opened as a tracked case (core/pokerroom/cases/): the
    fund, the table, when the hand was hit, the claim as entered (JSON: blinds, pot, seats dealt
    in, board, showdown hole cards, names, ID checked per seat, taxpayer classes, voids, the
    jackpot rake caps, main/reserve for the hit) and the decision made on it (JSON, the CLI.md
    ``decision_json``).  Its state is its latest ``bbj_case_events`` row."""

    __tablename__ = "bbj_cases"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    fund_id: Mapped[str] = mapped_column(ForeignKey("bbj_funds.id"), index=True)
    table_name: Mapped[str] = mapped_column(String(64))
    hit_at: Mapped[datetime] = mapped_column(UTCDateTime)
    claim: Mapped[dict[str, Any]] = mapped_column(JSON)
    decision: Mapped[dict[str, Any]] = mapped_column(JSON)
    qualifies: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjCaseEvent(Base):
    """Append-only: one state a case entered (claimed, verified, request_filed,
    attachments_filed, approved, share_paid, acknowledged, voided), who decided (the swiped
    employee) and when; ``seat`` for a share paid; ``detail`` the reason of a void or a note."""

    __tablename__ = "bbj_case_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("bbj_cases.id"), index=True)
    state: Mapped[str] = mapped_column(String(24))
    seat: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjSlipPrint(Base):
    """Append-only: one attempt to print a Bad Beat Jackpot share slip
    (printing/escpos/bbj_slip.py): the case and seat, whether it was a reprint, the printer, and
    whether it printed (with the printer's problem when it did not)."""

    __tablename__ = "bbj_slip_prints"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("bbj_cases.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    reprint: Mapped[bool] = mapped_column(Boolean)
    printer: Mapped[str] = mapped_column(String(200))
    ok: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BbjFiling(Base):
    """Append-only: one filing of a poker-room deadline the guidelines name
    (core/pokerroom/filings.py): ``kind`` (bir_remittance, tgd108, tgd1540_part1,
    tgd1540_part2, players_notice, bank_statement), the fund (None: casino-wide), the period
    (first and last casino-local date), when it was due and filed, the reference (the BIR
    confirmation, PAGCOR's receiving number), a detail, whether it was late, the filing it
    corrects (None: a first filing), who recorded it (a supervisor's swipe) and when."""

    __tablename__ = "bbj_filings"
    __table_args__ = (Index("ix_bbj_filings_kind_period", "kind", "period_start"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    fund_id: Mapped[str | None] = mapped_column(ForeignKey("bbj_funds.id"))
    period_start: Mapped[date] = mapped_column(Date)
    period_end: Mapped[date] = mapped_column(Date)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    filed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    reference: Mapped[str] = mapped_column(String(200))
    detail: Mapped[str] = mapped_column(Text)
    late: Mapped[bool] = mapped_column(Boolean)
    corrects_id: Mapped[int | None] = mapped_column(
        ForeignKey("bbj_filings.id", name="fk_bbj_filings_corrects"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
