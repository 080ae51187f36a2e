"""What a table or machine win leaves in the ledger: a hit claimed and every decision on it,
the award paid, the win slip (its voids and print attempts), and a machine win checked."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.ledger.models.base import Base, UTCDateTime


class Hit(Base):
    """A HIT JACKPOT claim.  ``status`` (pending, paid, auto_paid, rejected, cancelled) mirrors the
    latest hit_decision; the decisions are the audit record.  ``flags``: problems found at claim
    time as codes (``flag_codes``, JSON text, core/tablegames/flags.py); ``flags`` holds the
    sentences of hits recorded before revision 0010 (new hits leave it empty).
    ``verified_cards``: the seven cards the supervisor verified for the pay.  ``locked_*``:
    lock-at-hit amount."""

    __tablename__ = "hits"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), index=True)
    round_no: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(Integer)
    wager_id: Mapped[int | None] = mapped_column(ForeignKey("wagers.id"))
    claimed_hand: Mapped[str] = mapped_column(String(32))
    cards: Mapped[str] = mapped_column(String(64))
    flags: Mapped[str] = mapped_column(Text)
    flag_codes: Mapped[str] = mapped_column(Text, server_default="[]")
    verified_cards: Mapped[str] = mapped_column(String(64), server_default="")
    status: Mapped[str] = mapped_column(String(16), index=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("controller_events.id"))
    locked_level_id: Mapped[int | None] = mapped_column(ForeignKey("levels.id"))
    locked_amount_cents: Mapped[int | None] = mapped_column(BigInteger)
    locked_meter_before_cents: Mapped[int | None] = mapped_column(BigInteger)
    locked_meter_after_cents: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class HitDecision(Base):
    """Append-only: every decision on a hit, by whom (if a person), when and why."""

    __tablename__ = "hit_decisions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hits.id"), index=True)
    decision: Mapped[str] = mapped_column(String(24))
    employee_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Award(Base):
    """Append-only: what was paid for a hit (one award per hit)."""

    __tablename__ = "awards"
    __table_args__ = (Index("ix_awards_level_id", "level_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hits.id"), unique=True)
    hand: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(8))  # meter | tray
    level_id: Mapped[int | None] = mapped_column(ForeignKey("levels.id"))
    amount_cents: Mapped[int] = mapped_column(BigInteger)
    meter_before_cents: Mapped[int | None] = mapped_column(BigInteger)
    meter_after_cents: Mapped[int | None] = mapped_column(BigInteger)
    authorized_by: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    verified_by: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Slip(Base):
    """Append-only: a win slip with its sequential number and the exact ESC/POS bytes."""

    __tablename__ = "slips"
    __table_args__ = (Index("ix_slips_created_at", "created_at"),)  # 0017: search by date
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slip_no: Mapped[int] = mapped_column(Integer, unique=True)
    hit_id: Mapped[int] = mapped_column(ForeignKey("hits.id"), index=True)
    award_id: Mapped[int] = mapped_column(ForeignKey("awards.id"))
    escpos: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SlipVoid(Base):
    """Append-only (revision 0016): a slip voided by an executive, with the reason.  The award
    stays; ``money_returned`` says the paid money came back, and then the award's movements
    are reversed by ``reversal`` meter entries written in the same transaction."""

    __tablename__ = "slip_voids"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slip_id: Mapped[int] = mapped_column(ForeignKey("slips.id"), unique=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    reason: Mapped[str] = mapped_column(Text)
    money_returned: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SlipPrintAttempt(Base):
    """Append-only: every attempt to print a slip, as events (revision 0012, docs/ledger.md
    "Print attempts"): a ``started`` row committed before the first byte goes to the printer
    (``marking``: what the paper says, ``job_bytes``), then an outcome row, ``printed`` (the
    printer confirmed it) or ``failed`` (``reason`` code, ``error`` words, ``sent_bytes``),
    pointing at it (``started_id``, one outcome per start).  A print refused before any byte
    went out is a single ``failed`` row.  ``ok`` is true on a confirmed print only.  Rows from
    before 0012 have no ``state``: one row per attempt, ``ok`` its outcome."""

    __tablename__ = "slip_print_attempts"
    __table_args__ = (Index("ix_slip_print_attempts_started_id", "started_id", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slip_id: Mapped[int] = mapped_column(ForeignKey("slips.id"), index=True)
    printer: Mapped[str] = mapped_column(String(200))
    ok: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    state: Mapped[str | None] = mapped_column(String(16))  # started | printed | failed
    started_id: Mapped[int | None] = mapped_column(ForeignKey("slip_print_attempts.id"))
    marking: Mapped[str | None] = mapped_column(String(16))  # "" | reprint | duplicate
    reason: Mapped[str | None] = mapped_column(String(32))
    job_bytes: Mapped[int | None] = mapped_column(Integer)
    sent_bytes: Mapped[int | None] = mapped_column(Integer)


class MachineCheck(Base):
    """Append-only: a gaming-machine win checked at the console (docs/slots.md): who checked,
    when, the game, the screen as entered, the options, the amount claimed, the total the
    evaluator gives, the verdict and the evaluator's wins (``core.cli.slot_command``
    ``outcome_json``).  Amounts are machine credits (ints); a check authorizes no pay."""

    __tablename__ = "machine_checks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(500))  # the game file (games/x.toml or a path)
    game_name: Mapped[str] = mapped_column(String(200))
    screen: Mapped[str] = mapped_column(Text)  # rows from the top, "A K Q / K K A / ..."
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    claimed_credits: Mapped[int] = mapped_column(BigInteger)
    evaluated_credits: Mapped[int] = mapped_column(BigInteger)
    verdict: Mapped[str] = mapped_column(String(16))  # match | mismatch
    wins: Mapped[dict[str, Any]] = mapped_column(JSON)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
