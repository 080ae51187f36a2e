"""A hit's flags (:mod:`core.desks.surveillance.flags`) from its rows: the evidence the ledger
holds about it, as the flags need it, and the hit as the list of hits shows it."""

from __future__ import annotations

from datetime import datetime, timedelta

from core.desks.surveillance.cards_check import cards_check
from core.desks.surveillance.flags import Adjustment, Evidence, flags_of
from core.desks.surveillance.hit_rates import COUNTED
from core.desks.surveillance.hit_rows import HitRows
from core.desks.surveillance.records import CardsCheck, HitLine
from core.ledger.models import Hit
from core.people.who import Who


def hit_line(rows: HitRows, hit: Hit) -> tuple[HitLine, CardsCheck, str | None]:
    """``hit`` as the list shows it with its flags, its cards beside its claim, and the name
    of the level it pays (or would pay) from."""
    award = rows.awards.get(hit.id)
    check = cards_check(rows.paytable(hit.table_id), hit, award)
    made, _ = check.judged
    hand = award.hand if award is not None else (made or hit.claimed_hand)
    level, level_id = rows.level_of(hit, award)
    slips = rows.slips.get(hit.id, [])
    first_print: datetime | None = None
    confirmed = 0
    voids: list[tuple[int, datetime, Who | None, str, bool]] = []
    for sl in slips:
        for p in rows.prints.get(sl.id, []):
            if (p.state or ("printed" if p.ok else "failed")) == "printed":
                confirmed += 1
                if first_print is None or p.created_at < first_print:
                    first_print = p.created_at
        voids += [(sl.slip_no, v.created_at, rows.who(v.employee_id), v.reason,
                   v.money_returned) for v in rows.voids.get(sl.id, [])]
    window = timedelta(minutes=rows.settings.adjustment_window_minutes)
    adjustments = tuple(
        Adjustment(m.created_at, level or "", m.meter_delta, rows.who(m.employee_id),
                   rows.who(m.second_employee_id), m.reason)
        for m in rows.adjustments
        if level_id is not None and m.level_id == level_id
        and abs(m.created_at - hit.created_at) <= window)
    rate_hand = award.hand if award is not None else hit.claimed_hand
    e = Evidence(
        hit_id=hit.id, table=hit.table_id, status=hit.status,
        claimed_hand=hit.claimed_hand, at=hit.created_at,
        claim_makes=made if check.mismatch else None,
        claim_cards=" ".join(check.verified_cards or check.table_cards),
        table_cards=" ".join(check.table_cards),
        verified_cards=" ".join(check.verified_cards),
        amount_cents=award.amount_cents if award else None,
        paid_at=award.created_at if award else None,
        authorized_by=rows.who(award.authorized_by) if award else None,
        verified_by=rows.who(award.verified_by) if award else None,
        threshold_cents=rows.desk.config.authorization.executive_threshold_cents,
        level=level, adjustments=adjustments,
        rate=rows.rate(hit, rate_hand) if hit.status in COUNTED else None,
        slip_nos=tuple(sl.slip_no for sl in slips), first_print_at=first_print,
        confirmed_prints=confirmed, voids=tuple(voids), now=rows.now)
    flags = flags_of(e, rows.settings)
    return (HitLine(hit.id, rows.desk.local(hit.created_at), hit.table_id, hit.round_no,
                    hit.seat, hit.status, hit.claimed_hand, hand,
                    award.amount_cents if award else None, flags), check, level)
