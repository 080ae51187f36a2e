"""The rows of one hit's timeline in time order, each with its words (:class:`Event`): the
controller frames of its round and the table's refused frames near it (read here), the swipes,
decisions, award, meter entries, adjustments near it, slips, prints and a void (from its
:class:`~core.desks.surveillance.hit_rows.HitRows`).

Rows written in one transaction share one time; they are shown in the order that transaction
wrote them (a swipe, then the decisions it made, the award, its meter entries, the pay, the
slip)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.desks.desk import Desk
from core.desks.surveillance.flags import hand_text
from core.desks.surveillance.hit_rows import HitRows
from core.desks.surveillance.records import Event, HitLine
from core.desks.surveillance.text import units_shown
from core.kernel.money import format_cents
from core.ledger.models import Award, ControllerEvent, Hit, RefusedEvent, Round
from core.people.who import Who

# the dealer's words for a controller frame's type
FRAME_WORDS = {"GameStarted": "START GAME", "HitClaimed": "HIT JACKPOT", "GameEnded": "END GAME",
               "Misdealt": "MISDEAL", "Undone": "UNDO", "SequenceGap": "GONE (sequence gap)"}
_FINAL = ("paid", "auto_paid")

# ranks of rows of one transaction (same time): the order it wrote them
_RANK = {"controller": 0, "refused frame": 0, "swipe": 1, "decision": 2, "award": 3, "meter": 4,
         "adjustment": 4, "pay": 5, "slip": 6, "print": 7, "void": 8}


def _round_frames(s: Session, hit: Hit) -> list[ControllerEvent]:
    """The frames of the hit's round under its boot, and the hit's own frame."""
    own = s.get(ControllerEvent, hit.event_id)
    frames = {own.id: own} if own is not None else {}
    rnd = s.get(Round, hit.round_id) if hit.round_id is not None else None
    if rnd is not None:
        start = s.get(ControllerEvent, rnd.event_id)
        if start is not None:
            nxt = s.scalar(select(func.min(ControllerEvent.seq)).where(
                ControllerEvent.table_id == start.table_id, ControllerEvent.boot == start.boot,
                ControllerEvent.type == "GameStarted", ControllerEvent.seq > start.seq))
            q = select(ControllerEvent).where(
                ControllerEvent.table_id == start.table_id, ControllerEvent.boot == start.boot,
                ControllerEvent.seq >= start.seq)
            if nxt is not None:
                q = q.where(ControllerEvent.seq < nxt)
            for ev in s.scalars(q.order_by(ControllerEvent.seq).limit(1000)):
                if ev.id == start.id or (ev.payload or {}).get("round_no") == rnd.round_no:
                    frames[ev.id] = ev
    return sorted(frames.values(), key=lambda e: e.id)


def _frame_text(type_: str, p: dict[str, Any]) -> tuple[str, str]:
    word = FRAME_WORDS.get(type_, type_)
    rnd = p.get("round_no")
    if type_ == "Undone":
        word = f"UNDO {str(p.get('what', '')).replace('_', ' ')}".strip()
    what = f"{word} round {rnd}" if rnd is not None else word
    detail = ""
    if type_ == "GameStarted":
        wagers = p.get("wagers") or {}
        if isinstance(wagers, dict) and wagers:
            detail = "wagers " + ", ".join(
                f"seat {k}: {format_cents(v) if isinstance(v, int) else v}"
                for k, v in sorted(wagers.items(), key=lambda kv: str(kv[0]).zfill(3)))
        else:
            detail = "no wagers"
    elif type_ == "HitClaimed":
        what += f" seat {p.get('seat')}"
        cards = p.get("cards") or []
        detail = f"claims {hand_text(str(p.get('hand', '')))} ({p.get('hand', '')})"
        detail += f"; cards {' '.join(str(c) for c in cards)}" if cards else "; no cards sent"
    elif type_ == "Undone" and p.get("seat") is not None:
        what += f" seat {p.get('seat')}"
    elif type_ == "SequenceGap":
        detail = f"events {p.get('first')}..{p.get('last')} declared gone"
    return what, detail


def events(desk: Desk, s: Session, ledger: HitRows, hit: Hit, award: Award | None,
           line: HitLine) -> tuple[Event, ...]:
    """The rows of ``hit``'s timeline, in time order (rows of one transaction in the
    order it wrote them), each with its words and the flag it is evidence of."""
    rows: list[tuple[datetime, Event]] = []
    codes = {f.code for f in line.flags}

    def add(utc: datetime, source: str, what: str, who: Who | None, detail: str, *,
            rank: str | None = None, row: int = 0, amount: int | None = None, ref: str = "",
            flag: str = "") -> None:
        ev = Event(desk.local(utc), source, what, who, detail, amount, ref, flag,
                   (_RANK[rank or source], row))
        rows.append((utc, ev))

    # controller frames of the round
    frames = _round_frames(s, hit)
    for ev in frames:
        what, detail = _frame_text(ev.type, ev.payload or {})
        extra = f"boot {ev.boot} seq {ev.seq}"
        if ev.controller_time:
            extra += f", controller time {ev.controller_time}"
        add(ev.received_at, "controller", what, None,
            f"{detail}; {extra}" if detail else extra, row=ev.id,
            ref=f"controller_events {ev.id}")
    # frames of the table refused near the round
    times = [ev.received_at for ev in frames] or [hit.created_at]
    near = timedelta(minutes=ledger.settings.refused_frames_minutes)
    for rf in s.scalars(select(RefusedEvent).where(
            RefusedEvent.table_id == hit.table_id,
            RefusedEvent.received_at >= min(times) - near,
            RefusedEvent.received_at <= max(times) + near).order_by(RefusedEvent.id).limit(200)):
        what, _ = _frame_text(rf.type, rf.payload if isinstance(rf.payload, dict) else {})
        add(rf.received_at, "refused frame", f"refused: {what}", None,
            f"{rf.reason}; boot {rf.boot} seq {rf.seq}", row=rf.id,
            ref=f"refused_events {rf.id}")
    # swipes
    for w in ledger.swipes.get(hit.id, []):
        who = ledger.who(w.employee_id)
        needs = f"needs {w.role_required}" if w.role_required else "any role"
        if w.outcome == "accepted":
            what, detail = f"swipe accepted: {w.action}", needs
        else:
            what = f"swipe REFUSED: {w.action}"
            detail = f"{w.outcome.replace('_', ' ')}; {needs}"
            if w.reason:
                detail += f"; {w.reason}"
            if who is None and w.card_mac:
                detail += f"; card {bytes(w.card_mac).hex()[:8]} (not enrolled)"
        add(w.created_at, "swipe", what, who, detail, row=w.id, ref=f"swipe_log {w.id}",
            flag="SAME_PERSON" if "SAME_PERSON" in codes and w.outcome == "accepted" else "")
    # decisions
    for d in ledger.decisions.get(hit.id, []):
        flag = ""
        if d.decision in ("claim_corrected", "mismatch_flagged") and "CLAIM_MISMATCH" in codes:
            flag = "CLAIM_MISMATCH"
        add(d.created_at, "decision", d.decision.replace("_", " "), ledger.who(d.employee_id),
            d.reason, rank="pay" if d.decision in _FINAL else "decision", row=d.id,
            ref=f"hit_decisions {d.id}", flag=flag)
    # the award
    if award is not None:
        by, ver = ledger.who(award.authorized_by), ledger.who(award.verified_by)
        detail = f"{hand_text(award.hand)} from the {award.source}"
        if award.meter_before_cents is not None and award.meter_after_cents is not None:
            detail += (f"; meter {format_cents(award.meter_before_cents)} -> "
                       f"{format_cents(award.meter_after_cents)}")
        detail += f"; verified by {ver.label() if ver else 'nobody (no person)'}"
        flag = next((c for c in ("NEAR_THRESHOLD", "SAME_PERSON") if c in codes), "")
        add(award.created_at, "award", f"award {format_cents(award.amount_cents)}", by, detail,
            row=award.id, amount=award.amount_cents, ref=f"awards {award.id}", flag=flag)
    # meter entries of the hit
    for m in ledger.entries.get(hit.id, []):
        lv = ledger.levels.get(m.level_id)
        detail = f"{lv.group_id}/{lv.name}: " if lv else ""
        detail += f"meter {units_shown(m.meter_delta)}"
        if m.reserve_delta:
            detail += f", reserve {units_shown(m.reserve_delta)}"
        if m.reason:
            detail += f"; {m.reason}"
        add(m.created_at, "meter", m.kind.replace("_", " "), ledger.who(m.employee_id), detail,
            row=m.id, ref=f"meter_entries {m.id}")
    # adjustments of the hit's level near it
    level, level_id = ledger.level_of(hit, award)
    window = timedelta(minutes=ledger.settings.adjustment_window_minutes)
    for m in ledger.adjustments:
        if level_id is None or m.level_id != level_id or \
                abs(m.created_at - hit.created_at) > window:
            continue
        second = ledger.who(m.second_employee_id)
        add(m.created_at, "adjustment", f"manual adjustment {units_shown(m.meter_delta)}",
            ledger.who(m.employee_id),
            f"{level}: {m.reason}; second person {second.label() if second else 'none'}",
            row=m.id, ref=f"meter_entries {m.id}", flag="ADJUSTMENT_NEAR")
    # slips, prints, voids
    for sl in ledger.slips.get(hit.id, []):
        add(sl.created_at, "slip", f"slip {sl.slip_no:06d} made", None,
            f"{len(sl.escpos):,} bytes of ESC/POS", row=sl.id, ref=f"slips {sl.id}")
        printed = 0
        for p in ledger.prints.get(sl.id, []):
            state = p.state or ("printed" if p.ok else "failed")
            flag = ""
            if state == "printed":
                printed += 1
                if printed > 1 and "REPRINTED" in codes:
                    flag = "REPRINTED"
                elif printed == 1 and "PRINT_DELAY" in codes:
                    flag = "PRINT_DELAY"
            if state == "started":
                detail = f"on {p.printer}"
                if p.marking:
                    detail += f", marked {p.marking.upper()}"
                if p.job_bytes:
                    detail += f", {p.job_bytes:,} bytes"
                what = f"print of slip {sl.slip_no:06d} started"
            elif state == "printed":
                what = f"slip {sl.slip_no:06d} printed (confirmed)"
                detail = f"on {p.printer}"
            else:
                what = f"print of slip {sl.slip_no:06d} FAILED"
                detail = f"on {p.printer}: {p.reason or 'failed'}"
                if p.error:
                    detail += f"; {p.error}"
                if p.sent_bytes:
                    detail += f"; {p.sent_bytes:,} bytes sent"
            add(p.created_at, "print", what, None, detail, row=p.id,
                ref=f"slip_print_attempts {p.id}", flag=flag)
        for v in ledger.voids.get(sl.id, []):
            add(v.created_at, "void", f"slip {sl.slip_no:06d} VOIDED", ledger.who(v.employee_id),
                f"{v.reason}; money {'returned' if v.money_returned else 'not returned'}",
                row=v.id, ref=f"slip_voids {v.id}", flag="VOIDED")
    rows.sort(key=lambda r: (r[0], r[1].order))
    return tuple(ev for _, ev in rows)
