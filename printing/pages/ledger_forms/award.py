"""TGD-1500 of a case from the ledger: every money figure from the fund's award row and its
share rows (``bbj_awards.case_id``); before approval, the stored claim decided on the fund as
posted for the hit."""

from __future__ import annotations

from dataclasses import replace
from datetime import time
from fractions import Fraction
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import BbjAward, BbjAwardShare, BbjCase, BbjCaseEvent
from core.pokerroom.calendar import gaming_day_of
from core.pokerroom.cases import ClaimEntry, entry_from_json
from core.pokerroom.fund import FundSettings, hit_funds_read, jackpot_rake_cents
from core.pokerroom.rules.bbj import BbjSettings, decide
from core.pokerroom.rules.holdem import evaluate
from printing.pages import forms
from printing.pages.forms import AwardingRequest, FormError, Sharer, peso
from printing.pages.ledger_forms.reading import case_reference, cessation_row, local_time, reading

SMALL_BLIND_NOTE = ("small blind: not recorded with the claim; half the big blind (rounded "
                    "down) is printed")


def awarding_request(engine: Engine, case_id: int, *, casino: str, operator: str,
                     tz: ZoneInfo, rules: BbjSettings | None = None,
                     day_starts: time | None = None) -> AwardingRequest:
    """TGD-1500 of an approved case: the hand from the stored claim, every money figure from
    the fund's award (``bbj_awards.case_id``) and its share rows (a tie: every tied seat of a
    place with its hand); the hit time in ``tz``.  Before approval the claim is decided on
    ``rules`` (the floor's ``[poker_room]``, as the case was opened and will be approved), and
    the hit's gaming day (``day_starts``: ``[casino] gaming_day_starts``) must be posted, as the
    approval asks."""
    with reading(engine) as s:
        case = s.get(BbjCase, case_id)
        if case is None:
            raise FormError(f"case {case_id}: no such case")
        void = s.execute(select(BbjCaseEvent.detail).where(
            BbjCaseEvent.case_id == case_id, BbjCaseEvent.state == "voided")).first()
        if void is not None:
            raise FormError(f"case {case_id} is voided ({void.detail}): there is no award to "
                            "request")
        award = s.execute(select(BbjAward).where(BbjAward.case_id == case_id)) \
            .scalar_one_or_none()
        if award is None:
            return _request_before_approval(s, case, casino=casino, operator=operator, tz=tz,
                                            rules=rules, day_starts=day_starts)
        shares = list(s.execute(select(BbjAwardShare).where(
            BbjAwardShare.award_id == award.id).order_by(BbjAwardShare.id)).scalars())
        entry = entry_from_json(case.claim)
        holes = {h.seat: h.hole for h in entry.showdown}
        sharers = []
        for sh in shares:
            name = entry.names.get(sh.seat, "").strip()
            if not name:
                raise FormError(f"case {case_id}: seat {sh.seat} shares the jackpot and has no "
                                "name in the claim (the name on the player's government ID)")
            sharers.append(Sharer(seat=sh.seat, role=sh.role, taxpayer=sh.taxpayer,
                                  gross_cents=sh.gross_cents, tax_cents=sh.tax_cents,
                                  name=name))
        if sum(sh.gross_cents for sh in shares) != award.paid_cents:
            raise FormError(f"case {case_id}: award {award.id}'s shares do not add up to its "
                            f"paid amount {peso(award.paid_cents)}")
        seats = {role: [sh.seat for sh in shares if sh.role == role]
                 for role in ("winning", "losing")}
        if not all(seats.values()) or not set(seats["winning"] + seats["losing"]) <= set(holes):
            raise FormError(f"case {case_id}: award {award.id} has no winning and losing "
                            "share from the claim's showdown")

        def hand(seat: int) -> tuple[tuple[str, str], str]:
            a, b = holes[seat]
            return (str(a), str(b)), evaluate([*entry.board, a, b]).category

        places = {role: tuple((seat, *hand(seat)) for seat in seats[role])
                  for role in ("winning", "losing")}
        (_w, w_hole, w_hand), (_l, l_hole, l_hand) = places["winning"][0], places["losing"][0]
        ceased: tuple[str, ...] = ()
        if award.ceases_fund:
            c = cessation_row(s, award.fund_id)
            merged = peso(c.reserve_cents) if c is not None else "the reserve"
            ceased = (f"the fund ceases with this hit (TGD-1540): its reserve ({merged}) was "
                      "added to the main jackpot",)
        bb = entry.big_blind_cents
        rake = _hand_rake(case_id, entry)
        paid_on = {int(ev.seat): local_time(ev.created_at, tz).date() for ev in s.execute(
            select(BbjCaseEvent).where(BbjCaseEvent.case_id == case_id,
                                       BbjCaseEvent.state == "share_paid")).scalars()
            if ev.seat is not None}
        return AwardingRequest(
            casino=casino, operator=operator, hit_at=local_time(award.hit_at, tz),
            table=award.table_name, small_blind_cents=_small_blind(entry), big_blind_cents=bb,
            pot_cents=entry.pot_cents, jackpot_rake_cents=rake,
            main_cents=award.main_before_cents, reserve_cents=award.reserve_before_cents,
            payout_fraction=Fraction(award.fraction_num, award.fraction_den),
            award_cents=award.award_cents, board=tuple(str(c) for c in entry.board),
            winning_seat=seats["winning"][0], winning_hole=w_hole, winning_hand=w_hand,
            losing_seat=seats["losing"][0], losing_hole=l_hole, losing_hand=l_hand,
            winning_hands=places["winning"] if len(seats["winning"]) > 1 else (),
            losing_hands=places["losing"] if len(seats["losing"]) > 1 else (),
            sharers=tuple(sharers), main_after_cents=award.main_after_cents,
            reserve_after_cents=award.reserve_after_cents,
            reference=case_reference(case_id, award.id), notes=(*_blind_note(entry), *ceased),
            paid_on=paid_on, not_seated=entry.not_seated)


def _small_blind(entry: ClaimEntry) -> int:
    """The small blind entered with the claim; half the big blind (rounded down) for a claim
    entered without it (then the form says so: :func:`_blind_note`)."""
    if entry.small_blind_cents is not None:
        return entry.small_blind_cents
    return entry.big_blind_cents // 2


def _blind_note(entry: ClaimEntry) -> tuple[str, ...]:
    return () if entry.small_blind_cents is not None else (SMALL_BLIND_NOTE,)


def _hand_rake(case_id: int, entry: ClaimEntry) -> int:
    """The hand's jackpot rake: 10% of the pot at the claim's table cap for its blind level,
    under the room's maximum (a bad beat is decided on a full board: the flop was dealt)."""
    bb = entry.big_blind_cents
    try:
        caps = FundSettings(room_max_rake_cents=entry.room_max_jackpot_rake_cents,
                            caps_by_big_blind=((bb, entry.table_jackpot_rake_cap_cents),))
        return jackpot_rake_cents(entry.pot_cents, flop_dealt=True, big_blind_cents=bb,
                                  settings=caps)
    except ValueError as exc:
        raise FormError(f"case {case_id}: the claim's jackpot rake caps: {exc}") from None


def _request_before_approval(s: Session, case: BbjCase, *, casino: str, operator: str,
                             tz: ZoneInfo, rules: BbjSettings | None,
                             day_starts: time | None = None) -> AwardingRequest:
    """TGD-1500 filed before the approval (it is due within 24 hours of the hit; the award is
    written in the fund only at approval): the stored claim decided on the fund as it stands
    for the hit, exactly as the approval will decide it, so the hit's day must be posted (the
    prize includes the day's collections, RULES.md 6)."""
    if not case.qualifies:
        raise FormError(f"case {case.id} does not qualify: there is no award to request")
    day = gaming_day_of(case.hit_at, tz, day_starts) if day_starts is not None else None
    main_reserve, posted = hit_funds_read(s, case.fund_id, case.hit_at, day)
    if not posted:
        raise FormError(f"case {case.id}: the hit's day is not counted and posted yet; the "
                        "request states the prize with the day's collections (RULES.md 6): "
                        "count and post the day first")
    entry = entry_from_json(case.claim)
    claim = entry.claim(main_reserve.main_cents, main_reserve.reserve_cents)
    try:
        decision = decide(claim, rules)
    except ValueError as exc:  # e.g. a tie under the refuse policy
        raise FormError(f"case {case.id}: {exc}") from None
    stored = [int(sh["seat"]) for sh in case.decision.get("shares", [])]
    if not decision.qualifies or [sh.seat for sh in decision.shares] != stored:
        raise FormError(f"case {case.id}: the claim decided again does not pay the same seats "
                        "as when the case was opened")
    req = forms.awarding_request(decision, claim, entry.names, casino=casino, operator=operator,
                           table=case.table_name, hit_at=local_time(case.hit_at, tz),
                           small_blind_cents=_small_blind(entry),
                           jackpot_rake_cents=_hand_rake(case.id, entry))
    return replace(req, reference=f"case {case.id} (before approval)", notes=(
        *_blind_note(entry),
        "Prepared before approval on the fund as posted for the hit; the award is written in "
        "the fund when the request is approved, with these figures."))
