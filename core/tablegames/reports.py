"""Read-only views of the floor over time: none takes the write lock (``FloorContext.read``),
and none sums a meter's history (balances and hourly totals are kept beside the entries).

- :func:`meter_history`, :func:`hit_markers`, :func:`adjustment_markers`: a level's trend and
  its pays and adjustments (windowed);
- :func:`activity`, :func:`decision_lines`: the console's Activity, read back from the ledger;
- :func:`recent_hits`: the latest hits paid from a level (NY 5320.8 style "last 25");
- :func:`meter_report`: a level's movements over a period (a day, a shift);
- :func:`hit_record`: everything the ledger holds about one hit.

The floor as it is now (snapshot, a unit's change) is ``core.tablegames.queries``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.kernel.cards import CardError, format_cards
from core.kernel.money import UNITS_PER_CENT, format_cents
from core.ledger.models import (
    Award,
    Employee,
    GameTable,
    Hit,
    HitDecision,
    Level,
    LevelBalance,
    LevelHourTotal,
    MeterEntry,
    Slip,
    SwipeLog,
    Wager,
)
from core.ledger.models import ControllerEvent as EventRow
from core.people.who import Who
from core.tablegames import flags
from core.tablegames.queries import level_id
from core.tablegames.rules import fortune
from core.tablegames.slips import cards_of
from core.tablegames.unit import FloorContext
from core.tablegames.views import (
    DecisionRecord,
    FloorError,
    HitMarker,
    HitRecord,
)


def _window(what: str, since: datetime | None, limit: int | None) -> None:
    if since is not None and since.tzinfo is None:
        raise FloorError(f"{what}: 'since' must be a UTC-aware time, not a naive one")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise FloorError(f"{what}: limit {limit!r} must be a whole number of at least 1")


def meter_history(ctx: FloorContext, group: str, level: str, since: datetime | None = None,
                  limit: int | None = None) -> list[tuple[datetime, int]]:
    """The meter after each entry, oldest first: (time, exact units).

    ``since``: only entries made at or after that time; ``limit``: only the most recent
    ``limit`` of them.  Each value is still the true meter after that entry: counted back
    from the kept balance (the balance minus every later entry of the window)."""
    _window(f"meter history of {group}/{level}", since, limit)
    with ctx.read() as s:
        lid = level_id(s, group, level)
        bal = s.get(LevelBalance, lid)
        q = (select(MeterEntry.id, MeterEntry.created_at, MeterEntry.meter_delta)
             .where(MeterEntry.level_id == lid).order_by(MeterEntry.id.desc()))
        if since is not None:
            q = q.where(MeterEntry.created_at >= since)
        if limit is not None:
            q = q.limit(limit)
        rows = s.execute(q).all()
        last = int(bal.last_entry_id or 0) if bal is not None else 0
        total = int(bal.meter_units) if bal is not None else 0
        if rows and last > rows[0][0]:
            # entries after the window (none when the window is the newest): take them back
            total -= int(s.scalar(select(func.coalesce(func.sum(MeterEntry.meter_delta), 0))
                                  .where(MeterEntry.level_id == lid,
                                         MeterEntry.id > rows[0][0])) or 0)
    out: list[tuple[datetime, int]] = []
    for _id, at, delta in rows:
        out.append((at, total))
        total -= int(delta)
    out.reverse()
    return out


def hit_markers(ctx: FloorContext, group: str, level: str, since: datetime | None = None,
                limit: int | None = None) -> list[HitMarker]:
    """Meter pays of a level (for markers on the meter history), oldest first."""
    _window(f"hit markers of {group}/{level}", since, limit)
    with ctx.read() as s:
        lid = level_id(s, group, level)
        q = (select(Award, Hit).join(Hit, Award.hit_id == Hit.id)
             .where(Award.level_id == lid))
        if since is not None:
            q = q.where(Award.created_at >= since)
        rows = s.execute(q.order_by(Award.id.desc()).limit(limit)).all()
        return [HitMarker(a.created_at, h.id, h.table_id, h.seat, a.hand, a.amount_cents)
                for a, h in reversed(rows)]


def adjustment_markers(ctx: FloorContext, group: str, level: str,
                       since: datetime | None = None) -> list[tuple[datetime, int]]:
    """Manual adjustments of a level (time, meter change in exact units), oldest first: the
    trend marks each one where it happened."""
    with ctx.read() as s:
        lid = level_id(s, group, level)
        q = select(MeterEntry.created_at, MeterEntry.meter_delta).where(
            MeterEntry.level_id == lid, MeterEntry.kind == "adjustment")
        if since is not None:
            q = q.where(MeterEntry.created_at >= since)
        return [(at, int(d)) for at, d in s.execute(q.order_by(MeterEntry.id))]


# how a decision reads in Activity, where its name alone would not say it
_DECISION_WORDS = {"boot_ended": "closed (its controller restarted)"}


def _who(e: Employee | None, nobody: str = "the floor") -> str:
    """Who did it, in an Activity line (``nobody``: a decision with no employee)."""
    return Who.of(e).label() if e is not None else nobody


def _decision_text(d: HitDecision, h: Hit, e: Employee | None) -> str:
    """A hit decision as one Activity line: the hit, what was decided, by whom, why."""
    what = _DECISION_WORDS.get(d.decision, d.decision.replace("_", " "))
    by = _who(e, "the system" if d.decision == "boot_ended" else "the floor")
    return (f"Hit H{h.id} ({h.table_id} seat {h.seat}, round {h.round_no}) {what} by {by}: "
            f"{d.reason}")


def decision_lines(ctx: FloorContext, hit_ids: list[int]) -> list[ActivityRecord]:
    """The latest decision of each of ``hit_ids`` as its Activity line, in ``hit_ids``'
    order (a hit with no decision: none): the line a podium shows when it hears that a hit
    was cancelled or closed elsewhere (a MISDEAL, an UNDO, a restarted controller)."""
    if not hit_ids:
        return []
    with ctx.read() as s:
        latest = (select(func.max(HitDecision.id)).where(HitDecision.hit_id.in_(hit_ids))
                  .group_by(HitDecision.hit_id))
        rows = s.execute(select(HitDecision, Hit, Employee)
                         .join(Hit, Hit.id == HitDecision.hit_id)
                         .outerjoin(Employee, Employee.id == HitDecision.employee_id)
                         .where(HitDecision.id.in_(latest))).all()
    by_hit = {h.id: ActivityRecord(d.created_at, "decision", _decision_text(d, h, e))
              for d, h, e in rows}
    return [by_hit[h] for h in hit_ids if h in by_hit]


@dataclass(frozen=True)
class ActivityRecord:
    """One line of the console's Activity, read back from the ledger."""

    at: datetime
    kind: str  # decision | adjustment | swipe | print | void | parameter
    text: str


def activity(ctx: FloorContext, limit: int = 300) -> list[ActivityRecord]:
    """What happened on the floor, newest first, from the ledger (so Activity is not empty
    after a restart): hit decisions with who, manual adjustments with both people, refused
    card swipes, slip print attempts, voided slips and parameter changes; ``limit`` of each
    kind."""
    from sqlalchemy.orm import aliased

    from core.ledger.models import ParameterChange, SlipPrintAttempt, SlipVoid, SwipeLog

    out: list[ActivityRecord] = []
    second = aliased(Employee)
    with ctx.read() as s:
        for d, h, e in s.execute(
                select(HitDecision, Hit, Employee).join(Hit, Hit.id == HitDecision.hit_id)
                .outerjoin(Employee, Employee.id == HitDecision.employee_id)
                .order_by(HitDecision.id.desc()).limit(limit)):
            out.append(ActivityRecord(d.created_at, "decision", _decision_text(d, h, e)))
        for m, lv, e1, e2 in s.execute(
                select(MeterEntry, Level, Employee, second)
                .join(Level, Level.id == MeterEntry.level_id)
                .outerjoin(Employee, Employee.id == MeterEntry.employee_id)
                .outerjoin(second, second.id == MeterEntry.second_employee_id)
                .where(MeterEntry.kind == "adjustment")
                .order_by(MeterEntry.id.desc()).limit(limit)):
            cents = int(m.meter_delta) // UNITS_PER_CENT
            out.append(ActivityRecord(
                m.created_at, "adjustment",
                f"Meter {lv.group_id} {lv.name} adjusted by {'+' if cents >= 0 else '-'}"
                f"{format_cents(abs(cents))} by {_who(e1)} and {_who(e2)}: {m.reason}"))
        for sw, e in s.execute(
                select(SwipeLog, Employee).outerjoin(Employee, Employee.id == SwipeLog.employee_id)
                .where(SwipeLog.outcome != "accepted")
                .order_by(SwipeLog.id.desc()).limit(limit)):
            on = f" on hit H{sw.hit_id}" if sw.hit_id else ""
            out.append(ActivityRecord(
                sw.created_at, "swipe",
                f"Card refused ({sw.outcome.replace('_', ' ')}) for {sw.action}{on}"
                + (f": {_who(e)}" if e is not None else "")))
        for a, slip in s.execute(
                select(SlipPrintAttempt, Slip).join(Slip, Slip.id == SlipPrintAttempt.slip_id)
                .order_by(SlipPrintAttempt.id.desc()).limit(limit)):
            state = a.state or ("printed" if a.ok else "failed")  # before 0012: one row
            marked = {"reprint": " marked REPRINT",
                      "duplicate": " marked DUPLICATE - PRINT STATE UNKNOWN"}.get(a.marking or "",
                                                                                  "")
            out.append(ActivityRecord(
                a.created_at, "print",
                f"Win slip {slip.slip_no} " + (
                    f"print started on {a.printer}{marked}" if state == "started"
                    else f"printed on {a.printer}" if state == "printed"
                    else f"NOT printed on {a.printer}: {a.error}")))
        for v, slip_no, e in s.execute(
                select(SlipVoid, Slip.slip_no, Employee).join(Slip, Slip.id == SlipVoid.slip_id)
                .outerjoin(Employee, Employee.id == SlipVoid.employee_id)
                .order_by(SlipVoid.id.desc()).limit(limit)):
            out.append(ActivityRecord(
                v.created_at, "void",
                f"Win slip {slip_no} VOID by {_who(e)} ("
                f"{'money returned to the meter' if v.money_returned else 'money not returned'}"
                f"): {v.reason}"))
        for pc in s.scalars(select(ParameterChange).where(ParameterChange.old_value != "")
                            .order_by(ParameterChange.id.desc()).limit(limit)):
            out.append(ActivityRecord(
                pc.at, "parameter",
                f"Parameter change: {pc.scope} {pc.subject} {pc.name} {pc.old_value} -> "
                f"{pc.new_value or '(removed)'}, {pc.effective}"))
    out.sort(key=lambda r: r.at, reverse=True)
    return out


def recent_hits(ctx: FloorContext, group: str, level: str, limit: int = 25) -> list[HitMarker]:
    """The latest ``limit`` hits paid from a level, newest first."""
    return list(reversed(hit_markers(ctx, group, level, limit=limit)))


@dataclass(frozen=True)
class MeterReport:
    """A level's movements over [start, end): per entry kind, how many and the meter and
    reserve sums (exact units); opening and closing balances; whether it adds up."""

    group: str
    level: str
    start: datetime
    end: datetime
    opening_meter_units: int
    opening_reserve_units: int
    by_kind: dict[str, tuple[int, int, int]]  # kind -> (entries, meter units, reserve units)
    closing_meter_units: int
    closing_reserve_units: int

    @property
    def adds_up(self) -> bool:
        m = self.opening_meter_units + sum(v[1] for v in self.by_kind.values())
        r = self.opening_reserve_units + sum(v[2] for v in self.by_kind.values())
        return (m, r) == (self.closing_meter_units, self.closing_reserve_units)


def _sum_entries(s: Session, lid: int, start: datetime, end: datetime,
                 into: dict[str, list[int]]) -> None:
    if start >= end:
        return
    for kind, n, m, r in s.execute(
            select(MeterEntry.kind, func.count(), func.coalesce(func.sum(MeterEntry.meter_delta),
                                                                0),
                   func.coalesce(func.sum(MeterEntry.reserve_delta), 0))
            .where(MeterEntry.level_id == lid, MeterEntry.created_at >= start,
                   MeterEntry.created_at < end).group_by(MeterEntry.kind)):
        acc = into.setdefault(kind, [0, 0, 0])
        acc[0] += int(n)
        acc[1] += int(m)
        acc[2] += int(r)


def _ceil_hour(t: datetime) -> datetime:
    from datetime import timedelta

    floor = t.replace(minute=0, second=0, microsecond=0)
    return floor if floor == t else floor + timedelta(hours=1)


def meter_report(ctx: FloorContext, group: str, level: str, start: datetime,
                 end: datetime) -> MeterReport:
    """A level's movements over [start, end) (UTC-aware): whole hours from the kept hourly
    totals, the partial hours at either edge from the entries."""
    if start.tzinfo is None or end.tzinfo is None or end <= start:
        raise FloorError(f"meter report of {group}/{level}: give UTC-aware start < end")
    with ctx.read() as s:
        lid = level_id(s, group, level)
        first_hour = _ceil_hour(start)
        last_hour = end.replace(minute=0, second=0, microsecond=0)

        def totals(lo: datetime, hi: datetime | None) -> dict[str, list[int]]:
            out: dict[str, list[int]] = {}
            q = (select(LevelHourTotal.kind, func.sum(LevelHourTotal.entries),
                        func.sum(LevelHourTotal.meter_units),
                        func.sum(LevelHourTotal.reserve_units))
                 .where(LevelHourTotal.level_id == lid, LevelHourTotal.hour >= lo)
                 .group_by(LevelHourTotal.kind))
            if hi is not None:
                q = q.where(LevelHourTotal.hour < hi)
            for kind, n, m, r in s.execute(q):
                out[kind] = [int(n), int(m), int(r)]
            return out

        by_kind: dict[str, list[int]] = {}
        if first_hour < last_hour:
            by_kind = totals(first_hour, last_hour)
            _sum_entries(s, lid, start, first_hour, by_kind)
            _sum_entries(s, lid, last_hour, end, by_kind)
        else:
            _sum_entries(s, lid, start, end, by_kind)
        # opening: the kept balance less every movement from start until now, read in the
        # same snapshot (a recent day's report reads a few hours of totals, whatever the
        # ledger's age)
        bal = s.get(LevelBalance, lid)
        since = totals(first_hour, None)
        _sum_entries(s, lid, start, first_hour, since)
        om = (int(bal.meter_units) if bal is not None else 0) - sum(v[1] for v in since.values())
        orr = (int(bal.reserve_units) if bal is not None else 0) - sum(v[2]
                                                                        for v in since.values())
    cm = om + sum(v[1] for v in by_kind.values())
    cr = orr + sum(v[2] for v in by_kind.values())
    return MeterReport(group, level, start, end, om, orr,
                       {k: (v[0], v[1], v[2]) for k, v in sorted(by_kind.items())}, cm, cr)


def hit_record(ctx: FloorContext, hit_id: int) -> HitRecord:
    """A hit's claim, cards, evaluation, award, decisions and swipes (who, when, why)."""
    with ctx.read() as s:
        hit = s.get(Hit, hit_id)
        if hit is None:
            raise FloorError(f"hit #{hit_id}: no such hit")
        award = s.scalars(select(Award).where(Award.hit_id == hit.id)).first()
        ev = s.get(EventRow, hit.event_id)
        wager = s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
        verified = cards_of(hit.verified_cards)
        paid_on = verified or cards_of(hit.cards)
        evaluated: str | None = None
        t = s.get(GameTable, hit.table_id)
        if paid_on and t is not None:
            try:
                evaluated = fortune.classify(paid_on, ctx.paytable(t.group_id).joker)
            except (CardError, FloorError):
                evaluated = None
        ids = {d.employee_id for d in s.scalars(
            select(HitDecision).where(HitDecision.hit_id == hit.id))}
        ids |= {w.employee_id for w in s.scalars(select(SwipeLog).where(
            SwipeLog.hit_id == hit.id))}
        people = {e.id: e for e in s.scalars(select(Employee).where(
            Employee.id.in_([i for i in ids if i is not None])))}

        def row(at: datetime, what: str, employee_id: int | None, why: str) -> DecisionRecord:
            e = people.get(employee_id) if employee_id is not None else None
            if e is None:
                return DecisionRecord(at, what, None, why)
            return DecisionRecord(at, what, Who.of(e), why)

        trail = [(d.created_at, 0, d.id, row(d.created_at, d.decision, d.employee_id, d.reason))
                 for d in s.scalars(select(HitDecision).where(HitDecision.hit_id == hit.id))]
        trail += [(w.created_at, 1, w.id,
                   row(w.created_at, f"swipe {w.outcome.replace('_', ' ')}", w.employee_id,
                       f"{w.action}, needs {w.role_required or 'any role'}"))
                  for w in s.scalars(select(SwipeLog).where(SwipeLog.hit_id == hit.id))]
        # a swipe comes before the decisions it made (same transaction, same time)
        trail.sort(key=lambda r: (r[0], -r[1], r[2]))
        slip_nos = tuple(s.scalars(select(Slip.slip_no).where(Slip.hit_id == hit.id)
                                   .order_by(Slip.slip_no)))
        return HitRecord(
            hit.id, hit.table_id, hit.seat, hit.round_no, hit.status, hit.claimed_hand,
            tuple(format_cards(cards_of(hit.cards))), tuple(format_cards(verified)),
            evaluated, award.hand if award else None,
            award.amount_cents if award else None, wager.amount_cents if wager else None,
            flags.shown(flags.loads(hit.flag_codes), hit.flags),
            f"{ev.boot}:{ev.seq}" if ev else "",
            hit.created_at,
            tuple(r[3] for r in trail), slip_nos)
