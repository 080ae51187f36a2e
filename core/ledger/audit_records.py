"""``podium audit verify``'s checks of the records against each other (core/ledger/audit.py,
checks 6, 7, 9 and 10): every paid hit has one award and a pay decision, slip numbers run
without a gap and each slip prints its award, a void's reversal entries exactly negate its
award's movements, and every employee row is what its latest event recorded."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select

from core.kernel.money import format_cents
from core.ledger.audit_report import Break, Report, position
from core.ledger.models import Award, Hit, HitDecision, MeterEntry, Slip, SlipVoid
from core.ledger.people import mismatches

PAID = ("paid", "auto_paid")
def check_pays(conn: Connection, report: Report) -> None:
    awards = func.count(Award.id)
    q = (select(Hit.id, Hit.status, awards).outerjoin(Award, Award.hit_id == Hit.id)
         .group_by(Hit.id, Hit.status).order_by(Hit.id))
    for hit_id, status, n_awards in conn.execute(q):
        if status in PAID and n_awards != 1:
            report.breaks.append(Break("pays", f"hit #{hit_id} is {status} with {n_awards} "
                                               "awards", position(conn, report, "hits", hit_id)))
        elif status not in PAID and n_awards:
            report.breaks.append(Break("pays", f"hit #{hit_id} is {status} but has an award",
                                       position(conn, report, "hits", hit_id)))
    decided = select(HitDecision.hit_id).where(HitDecision.decision.in_(PAID))
    for hit_id in conn.execute(select(Hit.id).where(Hit.status.in_(PAID),
                                                    Hit.id.not_in(decided))).scalars():
        report.breaks.append(Break("pays", f"hit #{hit_id} is paid without a pay decision",
                                   position(conn, report, "hits", hit_id)))


def check_slips(conn: Connection, report: Report) -> None:
    expected = 1
    q = (select(Slip.id, Slip.slip_no, Slip.hit_id, Slip.escpos, Award.hit_id,
                Award.amount_cents)
         .outerjoin(Award, Award.id == Slip.award_id).order_by(Slip.slip_no))
    for slip_id, slip_no, hit_id, escpos, award_hit, amount in \
            conn.execution_options(yield_per=500).execute(q):
        def broken(message: str, slip_id: int = slip_id) -> None:  # looked up only if broken
            report.breaks.append(Break("slips", message, position(conn, report, "slips", slip_id)))

        if slip_no != expected:
            broken(f"slip {slip_no} follows slip {expected - 1}: numbers are not continuous")
        expected = slip_no + 1
        if award_hit != hit_id:
            broken(f"slip {slip_no}: its award is not its hit's")
            continue
        printed = format_cents(int(amount)).encode("ascii")
        if not isinstance(escpos, bytes | memoryview):
            broken(f"slip {slip_no}: its stored print is not printer bytes")
        elif printed not in bytes(escpos):
            broken(f"slip {slip_no}: the printed slip does not show its award's amount "
                   f"{printed.decode()}")


def check_voids(conn: Connection, report: Report) -> None:
    """Check 9: what each void gave back to the meters is exactly what its award took."""
    voids = {int(award_id): (int(void_id), int(slip_no), int(hit_id), bool(returned))
             for void_id, slip_no, hit_id, award_id, returned in conn.execute(
                 select(SlipVoid.id, Slip.slip_no, Slip.hit_id, Slip.award_id,
                        SlipVoid.money_returned)
                 .join(Slip, Slip.id == SlipVoid.slip_id).order_by(SlipVoid.id))}
    # every reversal that names an award is a void's (a lock given back names only its hit)
    reversals: dict[int, list[Any]] = {}
    for row in conn.execute(select(MeterEntry.id, MeterEntry.award_id, MeterEntry.level_id,
                                   MeterEntry.meter_delta, MeterEntry.reserve_delta,
                                   MeterEntry.reverses_id)
                            .where(MeterEntry.kind == "reversal",
                                   MeterEntry.award_id.is_not(None))
                            .order_by(MeterEntry.id)):
        reversals.setdefault(int(row.award_id), []).append(row)
    for award_id in sorted(set(reversals) - set(voids)):
        first = reversals[award_id][0]
        report.breaks.append(Break("voids", f"meter entry {first.id} reverses award "
                                            f"#{award_id}, which no void gave back",
                                   position(conn, report, "meter_entries", first.id)))
    for award_id, (void_id, slip_no, hit_id, returned) in voids.items():
        got = reversals.get(award_id, [])

        def broken(message: str, void_id: int = void_id) -> None:
            report.breaks.append(Break("voids", message,
                                       position(conn, report, "slip_voids", void_id)))

        if not returned:
            if got:
                broken(f"win slip {slip_no}: voided without the money back, yet {len(got)} "
                       "reversal entries give its award back")
            continue
        lock_returns = select(MeterEntry.reverses_id).where(
            MeterEntry.hit_id == hit_id, MeterEntry.kind == "reversal",
            MeterEntry.reverses_id.is_not(None), MeterEntry.award_id.is_(None))
        moved = {int(r.id): r for r in conn.execute(
            select(MeterEntry.id, MeterEntry.level_id, MeterEntry.meter_delta,
                   MeterEntry.reserve_delta)
            .where((MeterEntry.hit_id == hit_id) | (MeterEntry.award_id == award_id),
                   MeterEntry.kind != "reversal", MeterEntry.id.not_in(lock_returns)))
            if r.meter_delta or r.reserve_delta}
        seen: set[int] = set()
        for r in got:
            target = moved.get(int(r.reverses_id)) if r.reverses_id is not None else None
            if target is None:
                broken(f"win slip {slip_no}: reversal entry {r.id} does not reverse one of its "
                       "award's movements")
            elif int(r.reverses_id) in seen:
                broken(f"win slip {slip_no}: movement {r.reverses_id} of its award is reversed "
                       "twice")
            elif (r.level_id, r.meter_delta, r.reserve_delta) != \
                    (target.level_id, -target.meter_delta, -target.reserve_delta):
                broken(f"win slip {slip_no}: reversal entry {r.id} does not negate movement "
                       f"{target.id} exactly")
            if r.reverses_id is not None:
                seen.add(int(r.reverses_id))
        for missing in sorted(set(moved) - seen):
            broken(f"win slip {slip_no}: movement {missing} of its award was not given back by "
                   "its void")


def check_people(conn: Connection, report: Report) -> None:
    """Check 10: each employee row against the digest of its latest event."""
    for m in mismatches(conn):
        if m.event_id is None:
            what = "no employee event vouches for its card, PIN and active flag"
        else:
            what = (f"its card, PIN or active flag is not what its latest event (#{m.event_id}) "
                    "recorded: changed outside Podium")
        report.breaks.append(Break("people", f"employee {m.number} ({m.name}): {what}",
                                   None if m.event_id is None else
                                   position(conn, report, "employee_events", m.event_id)))
