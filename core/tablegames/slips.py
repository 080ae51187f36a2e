"""Win slips: the next slip number, the slip's record (one builder for the paper printed at pay
time and for :func:`win_slip` later), its ESC/POS bytes kept in the ledger, print attempts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.kernel.cards import Card, format_cards, parse_card
from core.kernel.money import Currency
from core.kernel.text import hit_ref
from core.ledger.db import lock_record
from core.ledger.models import (
    Award,
    Employee,
    GameTable,
    Group,
    Hit,
    Level,
    Setting,
    Slip,
    SlipPrintAttempt,
    SlipVoid,
)
from core.people.who import NOBODY, Who
from core.tablegames.rules import fortune
from core.tablegames.setup import SLIP_SEQUENCE_KEY
from core.tablegames.slip_record import VoidMark, WinSlip
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import (
    PRINT_MARKINGS,
    FloorError,
    PendingSlip,
    SlipLine,
    SlipPrintState,
    SlipVoidView,
)

ZERO_SHARE_NOTE = ("The meter's share rounds down to nothing: 0.00 paid; the fraction of a "
                   "cent stays in the meter (RULES.md 3-4).")


def table_label(name: str, table_id: str) -> str:
    """"Pai Gow 1 (PG-1)" on slips: the name people use and the id the ledger uses."""
    return f"{name} ({table_id})" if name and name != table_id else table_id


def hand_name(hand_id: str) -> str:
    """The hand as people read it on a slip: "Royal flush plus royal match"."""
    name = fortune.HAND_NAMES.get(hand_id, hand_id.replace("_", " ").lower())
    return name[:1].upper() + name[1:]


def card_text(cards: Sequence[Card]) -> str:
    return " ".join(format_cards(cards))


def cards_of(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split()) if text else ()


def shown_cards(hit: Hit) -> tuple[Card, ...]:
    """The cards a pay was made on: those the supervisor verified, else the table's."""
    return cards_of(hit.verified_cards or hit.cards)


def lock_sequence(ctx: FloorContext, u: Unit) -> None:
    """Lock the slip sequence (PostgreSQL; SQLite has one writer) for the rest of ``u``'s
    transaction.  A transaction that may make a slip takes this lock BEFORE any meter balance
    or hit row, so a pay and the ledger writer never wait for each other in a circle."""
    root = u.root
    if ctx.pg and not root.slips_locked:
        u.s.scalars(select(Setting).where(Setting.key == SLIP_SEQUENCE_KEY)
                    .with_for_update()).first()
        root.slips_locked = True


def make_slip(ctx: FloorContext, u: Unit, hit: Hit, award: Award) -> int:
    s = u.s
    lock_sequence(ctx, u)
    slip_no = int(s.scalar(select(func.coalesce(func.max(Slip.slip_no), 0))) or 0) + 1
    data = bytes(ctx.paper.render_slip(slip_record(ctx, s, slip_no, hit, award, u.now)))
    s.add(Slip(slip_no=slip_no, hit_id=hit.id, award_id=award.id, escpos=data,
               created_at=u.now))
    s.flush()
    u.slips.append(slip_no)
    return slip_no


def slip_record(ctx: FloorContext, s: Session, slip_no: int, hit: Hit, award: Award,
                paid_at: datetime) -> WinSlip:
    """The win slip of a paid hit, from its ledger rows only (the award, its level, the
    employees on it, the verified cards or else the table's)."""
    def signer(employee_id: int | None) -> Who | None:
        emp = s.get(Employee, employee_id) if employee_id is not None else None
        return Who.of(emp) if emp is not None else None

    authorized = signer(award.authorized_by)
    level = None
    if award.source == "meter" and award.level_id is not None:
        lv = s.get(Level, award.level_id)
        level = lv.name if lv is not None else None
    table = s.get(GameTable, hit.table_id)
    group = s.get(Group, table.group_id) if table is not None else None
    casino = ctx.config.casino
    paytable = _paytable_of(ctx, hit.table_id, group.paytable_id if group else "")
    return WinSlip(
        casino=casino.name, slip_no=slip_no, hit_ref=hit_ref(hit.id),
        table=table_label(table.name if table is not None else "", hit.table_id),
        seat=hit.seat, round_no=hit.round_no,
        paytable=paytable,
        hand=hand_name(award.hand), hand_id=award.hand,
        cards=tuple(format_cards(shown_cards(hit))),
        amount_cents=award.amount_cents,
        source="meter" if award.source == "meter" else "tray",
        level=level, meter_before_cents=award.meter_before_cents if level else None,
        meter_after_cents=award.meter_after_cents if level else None,
        authorized_by=authorized or NOBODY,
        verified_by=signer(award.verified_by),
        paid_at=paid_at, timezone=casino.timezone, currency=casino.money,
        notes=((ZERO_SHARE_NOTE,) if award.amount_cents == 0 else ())
        + _fixed_from_meter(ctx, paytable, award, level, casino.money),
    )


def _fixed_from_meter(ctx: FloorContext, paytable: str, award: Award, level: str | None,
                      money: Currency) -> tuple[str, ...]:
    """The note of a fixed award paid from the meter (a link configured "all pays from
    meter"): the slip says it is a fixed award, not a share of the meter, and what the tray
    paid when the meter held less."""
    if award.source != "meter" or level is None or award.meter_before_cents is None \
            or award.meter_after_cents is None:
        return ()
    pt = ctx.paytables.get(paytable)  # the table's (a desk's context reads slips too)
    pay = pt.pay_for(award.hand) if pt is not None else None
    if pay is None or pay.source == "meter":
        return ()
    taken = int(award.meter_before_cents) - int(award.meter_after_cents)
    amount = int(award.amount_cents)
    if taken >= amount:
        return (f"Fixed award paid from the {level} meter (the link pays all pays from the "
                "meter).",)
    return (f"Fixed award: {money.text(taken)} from the {level} meter and "
            f"{money.text(amount - taken)} from the table tray (the meter held "
            "less).",)


def _paytable_of(ctx: FloorContext, table_id: str, group_paytable: str) -> str:
    """The paytable the table plays (a linked equivalent may differ from its group's)."""
    try:
        return ctx.config.table(table_id).paytable or group_paytable
    except KeyError:  # a table no longer on the floor file: its group's
        return group_paytable


def win_slip(ctx: FloorContext, slip_no: int) -> WinSlip:
    with ctx.read() as s:
        # the slip's record, not its stored bytes (a win page never needs them)
        slip = s.execute(select(Slip.slip_no, Slip.hit_id, Slip.award_id, Slip.created_at)
                         .where(Slip.slip_no == slip_no)).first()
        if slip is None:
            raise FloorError(f"slip {slip_no}: no such slip")
        hit = s.get(Hit, slip.hit_id)
        award = s.get(Award, slip.award_id)
        if hit is None or award is None:
            raise FloorError(f"slip {slip_no}: its hit or award is missing from the ledger")
        record = slip_record(ctx, s, slip.slip_no, hit, award, slip.created_at)
        void = slip_void(s, slip.slip_no)
        if void is None:
            return record
        return replace(record, void=VoidMark(void.at, void.by, void.reason,
                                             void.money_returned))


def void_view(s: Session, slip_no: int, row: SlipVoid) -> SlipVoidView:
    emp = s.get(Employee, row.employee_id)
    by = Who.of(emp) if emp else Who("?", "(unknown employee)", "")
    return SlipVoidView(slip_no, row.created_at, by, row.reason, bool(row.money_returned))


def slip_void(s: Session, slip_no: int) -> SlipVoidView | None:
    """The void of slip ``slip_no`` (None: not void), in the session ``s``."""
    row = s.scalars(select(SlipVoid).join(Slip, Slip.id == SlipVoid.slip_id)
                    .where(Slip.slip_no == slip_no)).first()
    return None if row is None else void_view(s, slip_no, row)


def slip_bytes(ctx: FloorContext, slip_no: int) -> bytes:
    with ctx.read() as s:
        data = s.scalar(select(Slip.escpos).where(Slip.slip_no == slip_no))
    if data is None:
        raise FloorError(f"slip {slip_no}: no such slip")
    return bytes(data)


def fold_print_attempts(slip_no: int, rows: Sequence[SlipPrintAttempt]) -> SlipPrintState:
    """A slip's print state from its attempts (in the order they were written)."""
    closed = {r.started_id for r in rows if r.started_id is not None}
    printed = failed = 0
    open_since: datetime | None = None
    open_printer = error = reason = printed_on = ""
    maybe = False
    for r in rows:
        state = r.state or ("printed" if r.ok else "failed")  # a row from before 0012
        if state == "printed":
            printed += 1
            printed_on = r.printer
        elif state == "started":
            if r.id not in closed:
                open_since, open_printer, maybe = r.created_at, r.printer, True
        else:
            failed += 1
            error, reason = r.error, r.reason or ""
            # before 0012 nobody recorded whether bytes went out: assume they may have
            if r.sent_bytes is None or r.sent_bytes > 0:
                maybe = True
    return SlipPrintState(slip_no, printed, failed, open_since, open_printer, maybe, error,
                          reason, max((int(r.id) for r in rows), default=0), printed_on)


def print_states(s: Session, slips: Sequence[Slip]) -> dict[int, SlipPrintState]:
    """slip id -> its print state, for ``slips`` (one read of their attempts)."""
    ids = [slip.id for slip in slips]
    rows: dict[int, list[SlipPrintAttempt]] = {i: [] for i in ids}
    for chunk in range(0, len(ids), 500):
        for r in s.scalars(select(SlipPrintAttempt)
                           .where(SlipPrintAttempt.slip_id.in_(ids[chunk:chunk + 500]))
                           .order_by(SlipPrintAttempt.id)):
            rows[r.slip_id].append(r)
    return {slip.id: fold_print_attempts(slip.slip_no, rows[slip.id]) for slip in slips}


def print_state(ctx: FloorContext, slip_no: int) -> SlipPrintState:
    with ctx.read() as s:
        slip = s.scalars(select(Slip).where(Slip.slip_no == slip_no)).first()
        if slip is None:
            raise FloorError(f"slip {slip_no}: no such slip")
        return print_states(s, [slip])[slip.id]


def pending_slips(ctx: FloorContext) -> list[PendingSlip]:
    """Slips not yet printed successfully (no print the printer confirmed), oldest first."""
    with ctx.read() as s:
        ok_ids = select(SlipPrintAttempt.slip_id).where(SlipPrintAttempt.ok.is_(True))
        void_ids = select(SlipVoid.slip_id)  # a void slip is never printed again
        slips = list(s.scalars(select(Slip).where(Slip.id.not_in(ok_ids),
                                                  Slip.id.not_in(void_ids))
                               .order_by(Slip.slip_no)))
        states = print_states(s, slips)
        return [PendingSlip(slip.slip_no, slip.hit_id, bytes(slip.escpos), slip.created_at,
                            states[slip.id].failed, states[slip.id].state) for slip in slips]


def slip_lines(ctx: FloorContext, *, limit: int | None = None, unprinted: bool = False,
               before: datetime | None = None) -> list[SlipLine]:
    """Win slips with their print state: the latest ``limit`` (newest first), or with
    ``unprinted`` every slip no print of which the printer confirmed (oldest first), made
    before ``before`` if given."""
    q = (select(Slip, Hit.table_id, Hit.seat, Award.amount_cents, SlipVoid.id)
         .join(Hit, Hit.id == Slip.hit_id).join(Award, Award.id == Slip.award_id)
         .outerjoin(SlipVoid, SlipVoid.slip_id == Slip.id))
    if unprinted:
        ok_ids = select(SlipPrintAttempt.slip_id).where(SlipPrintAttempt.ok.is_(True))
        q = q.where(Slip.id.not_in(ok_ids), Slip.id.not_in(select(SlipVoid.slip_id))
                    ).order_by(Slip.slip_no)
    else:
        q = q.order_by(Slip.slip_no.desc())
    if before is not None:
        q = q.where(Slip.created_at < before)
    if limit is not None:
        q = q.limit(limit)
    with ctx.read() as s:
        rows: list[tuple[Slip, str, int, int, int | None]] = [
            (r[0], r[1], r[2], r[3], r[4]) for r in s.execute(q)]
        states = print_states(s, [slip for slip, *_ in rows])
        return [SlipLine(slip.slip_no, slip.hit_id, table, seat, amount, slip.created_at,
                         states[slip.id], void_id is not None)
                for slip, table, seat, amount, void_id in rows]


def _slip_id(u: Unit, slip_no: int) -> int:
    slip_id = u.s.scalar(select(Slip.id).where(Slip.slip_no == slip_no))
    if slip_id is None:
        raise FloorError(f"slip {slip_no}: no such slip")
    return int(slip_id)


def record_print(u: Unit, slip_no: int, printer: str, ok: bool, error: str = "", *,
                 reason: str = "") -> None:
    """A print attempt in one row: refused before any byte went out (``ok`` False), or a
    print with no start recorded (``ok`` True)."""
    u.s.add(SlipPrintAttempt(slip_id=_slip_id(u, slip_no), printer=printer, ok=ok,
                             error="" if ok else (error or "failed"), created_at=u.now,
                             state="printed" if ok else "failed",
                             reason=None if ok else (reason or "printer_error"),
                             sent_bytes=None if ok else 0))
    u.prints.append(slip_no)


class SlipTaken(FloorError):
    """A print claim refused: since the podium read the slip's print state, another print of it
    was started or done (at another podium).  ``state``: the slip's print state now."""

    def __init__(self, message: str, state: SlipPrintState) -> None:
        super().__init__(message)
        self.state = state


def record_print_started(u: Unit, slip_no: int, printer: str, marking: str,
                         job_bytes: int, expect: int | None = None) -> int:
    """The ``started`` row of a print, committed before the first byte goes out; its id.

    With ``expect`` (the id of the slip's latest print attempt when the podium read its
    state, 0 for none) the row is also the podium's claim of the print: under the slip's
    writers' lock (``lock_record``; SQLite: the write transaction) the slip's attempts are
    read again, and if any was added since (another podium printed it, or is printing it
    now) :class:`SlipTaken` is raised and nothing is written: two podiums never both print a
    slip neither had printed."""
    if marking not in PRINT_MARKINGS:
        raise FloorError(f"slip {slip_no}: print marking {marking!r} is not one of "
                         f"{', '.join(repr(m) for m in PRINT_MARKINGS)}")
    slip_id = _slip_id(u, slip_no)
    if expect is not None:
        lock_record(u.s, "slips", slip_id)
        rows = list(u.s.scalars(select(SlipPrintAttempt).where(
            SlipPrintAttempt.slip_id == slip_id).order_by(SlipPrintAttempt.id)))
        now = fold_print_attempts(slip_no, rows)
        if now.last_attempt != expect:
            if now.printed:
                what = f"printed already on {now.printed_on}"
            elif now.open_since is not None:
                what = f"being printed on {now.open_printer} now"
            else:
                what = f"tried meanwhile on {rows[-1].printer} ({now.last_error})"
            raise SlipTaken(f"win slip {slip_no}: {what}", now)
    row = SlipPrintAttempt(slip_id=slip_id, printer=printer, ok=False, error="",
                           created_at=u.now, state="started", marking=marking,
                           job_bytes=job_bytes)
    u.s.add(row)
    u.s.flush()
    u.prints.append(slip_no)
    return int(row.id)


def record_print_outcome(u: Unit, started_id: int, ok: bool, *, reason: str = "",
                         error: str = "", sent_bytes: int = 0) -> None:
    """The outcome of the print ``started_id`` started: printed (confirmed) or failed, appended
    (the started row is never changed; a second outcome is refused)."""
    start = u.s.get(SlipPrintAttempt, started_id)
    if start is None or start.state != "started":
        raise FloorError(f"print attempt {started_id}: no such print was started")
    if u.s.scalar(select(SlipPrintAttempt.id).where(SlipPrintAttempt.started_id == started_id)):
        raise FloorError(f"print attempt {started_id}: its outcome is recorded already")
    slip_no = int(u.s.scalar(select(Slip.slip_no).where(Slip.id == start.slip_id)) or 0)
    u.s.add(SlipPrintAttempt(slip_id=start.slip_id, printer=start.printer, ok=ok,
                             error="" if ok else (error or "failed"), created_at=u.now,
                             state="printed" if ok else "failed", started_id=started_id,
                             reason=None if ok else (reason or "printer_error"),
                             sent_bytes=start.job_bytes if ok else sent_bytes))
    u.prints.append(slip_no)
