"""What surveillance should look at on a hit, as codes with the facts that raised them
(docs/operator.md "Surveillance").  Pure: :mod:`core.desks.surveillance.hit_rows` reads the ledger,
:mod:`core.desks.surveillance.hit_flags` makes its :class:`Evidence` and asks :func:`flags_of`;
nothing here touches a database.

Each flag is data first (a code and its facts, money as cents, times as UTC datetimes);
its sentence is made from them for screens and paper, never parsed back.  The settings are
the floor file's ``[surveillance]`` section (:class:`core.floorconfig.SurveillanceConfig`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from functools import cached_property
from typing import Any

from core.floorconfig import SurveillanceConfig
from core.kernel.money import format_cents, json_cents
from core.people.who import Who
from core.tablegames.rules.fortune import HAND_NAMES


class Code(StrEnum):
    CLAIM_MISMATCH = "CLAIM_MISMATCH"  # the claimed hand is not what the cards make
    CARDS_CHANGED = "CARDS_CHANGED"  # the cards verified differ from the cards the table sent
    SAME_PERSON = "SAME_PERSON"  # one person verified the cards and authorized the pay
    NEAR_THRESHOLD = "NEAR_THRESHOLD"  # a pay just below the executive threshold
    ADJUSTMENT_NEAR = "ADJUSTMENT_NEAR"  # a manual adjustment of the hit's level near the hit
    HIT_RATE = "HIT_RATE"  # the table's hits of this hand far above its exact expected rate
    PRINT_DELAY = "PRINT_DELAY"  # the slip's first confirmed print came late (or not yet)
    REPRINTED = "REPRINTED"  # the slip was printed (confirmed) more than once
    VOIDED = "VOIDED"  # the slip was voided


# The order flags are listed in (the most serious first).
ORDER: tuple[Code, ...] = (Code.CLAIM_MISMATCH, Code.CARDS_CHANGED, Code.VOIDED, Code.HIT_RATE,
                           Code.SAME_PERSON, Code.NEAR_THRESHOLD, Code.ADJUSTMENT_NEAR,
                           Code.REPRINTED, Code.PRINT_DELAY)

TITLES: dict[Code, str] = {
    Code.CLAIM_MISMATCH: "claim differs from the cards",
    Code.CARDS_CHANGED: "cards verified differ from the table's",
    Code.SAME_PERSON: "verified and authorized by one person",
    Code.NEAR_THRESHOLD: "just below the executive threshold",
    Code.ADJUSTMENT_NEAR: "meter adjusted near the hit",
    Code.HIT_RATE: "table's hit rate far above expected",
    Code.PRINT_DELAY: "slip printed late",
    Code.REPRINTED: "slip printed more than once",
    Code.VOIDED: "slip voided",
}


@dataclass(frozen=True)
class Flag:
    """One reason to look at a hit: its code, the sentence naming the facts, and the facts
    (JSON-ready: money as decimal strings, times as UTC ISO text)."""

    code: Code
    sentence: str
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return TITLES[self.code]

    def as_json(self) -> dict[str, Any]:
        return {"code": str(self.code), "title": self.title, "sentence": self.sentence,
                "facts": dict(self.facts)}


@dataclass(frozen=True)
class Adjustment:
    at: datetime  # UTC
    level: str
    meter_units: int
    by: Who | None
    second: Who | None
    reason: str


@dataclass(frozen=True)
class HitRate:
    """A table's hits of one hand against its exact expected rate."""

    table: str
    hand: str
    hands_dealt: int  # wagered hands in the window (trials)
    hits: int  # hits of the hand in the window (this one included)
    probability: Fraction  # of the hand per wagered hand (exact enumeration)
    since: datetime  # UTC, the window [since, until)
    until: datetime

    @property
    def expected(self) -> Fraction:
        return self.probability * self.hands_dealt

    @cached_property
    def tail(self) -> float:
        """P(this many hits or more) if the table deals fair hands."""
        return upper_tail(self.hits, self.hands_dealt, self.probability)


@dataclass(frozen=True)
class Evidence:
    """What the ledger holds about one hit, as far as the flags need it."""

    hit_id: int
    table: str
    status: str
    claimed_hand: str
    at: datetime  # UTC: HIT JACKPOT recorded
    claim_makes: str | None = None  # what the cards make when the claim is not it (the
    # floor's rule: neither the pay they earn nor their best hand)
    claim_cards: str = ""  # those cards, as text ("As Ad ...")
    table_cards: str = ""  # the cards the table sent ("" none)
    verified_cards: str = ""  # the cards the supervisor verified ("" none)
    amount_cents: int | None = None  # the award
    paid_at: datetime | None = None  # UTC
    authorized_by: Who | None = None
    verified_by: Who | None = None
    threshold_cents: int | None = None  # the executive threshold
    level: str | None = None  # the level the hit pays (or would pay) from
    adjustments: Sequence[Adjustment] = ()  # of that level, within the window
    rate: HitRate | None = None
    slip_nos: Sequence[int] = ()
    first_print_at: datetime | None = None  # UTC, the first confirmed print of its slip
    confirmed_prints: int = 0
    voids: Sequence[tuple[int, datetime, Who | None, str, bool]] = ()  # slip no, at, by, why,
    # money returned
    now: datetime | None = None  # UTC: when the evidence was read


def hand_text(hand: str | None) -> str:
    if not hand:
        return "nothing"
    return HAND_NAMES.get(hand, hand.replace("_", " ").lower())


def upper_tail(k: int, n: int, p: Fraction | float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed term by term in log space (each term from
    ``lgamma``), from ``k`` upward when ``k`` is above the mean (the terms fall at once),
    else as 1 - P(X < k) summed downward from ``k - 1``."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    pf = float(p)
    lp, lq = math.log(pf), math.log1p(-pf)
    top = math.lgamma(n + 1)

    def logpmf(i: int) -> float:
        return top - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq

    def run(start: int, step: int, stop: int) -> tuple[float, float]:
        base = logpmf(start)
        total, i = 0.0, start
        while i != stop:
            term = math.exp(logpmf(i) - base)
            total += term
            if term < 1e-18 * total:
                break
            i += step
        return base, total

    if k > n * pf:
        base, total = run(k, 1, n + 1)
        return min(1.0, math.exp(base) * total)
    base, total = run(k - 1, -1, -1)
    return max(0.0, 1.0 - math.exp(base) * total)


def tail_text(p: float) -> str:
    if p == 0:
        return "below 1e-300"
    return f"{p:.2g}" if p >= 0.01 else f"{p:.1e}"


def _money(cents: int) -> str:
    return format_cents(cents)


def _rate_sentence(r: HitRate, limit: Decimal) -> str:
    one_in = (Fraction(1) / r.probability) if r.probability else Fraction(0)
    days = (r.until - r.since).days
    return (f"table {r.table}: {r.hits} hit(s) of {hand_text(r.hand)} in {r.hands_dealt:,} "
            f"wagered hands over the {days} days to the end of the hit's hour; expected "
            f"{float(r.expected):.3g} (1 in {round(one_in):,} hands); the chance of "
            f"{r.hits} or more is {tail_text(r.tail)}, below {limit}")


def flags_of(e: Evidence, settings: SurveillanceConfig) -> tuple[Flag, ...]:
    """Every flag ``e`` raises under ``settings``, most serious first."""
    out: list[Flag] = []
    cards = e.verified_cards or e.table_cards
    if cards and e.claim_makes is not None:
        out.append(Flag(Code.CLAIM_MISMATCH,
                        f"the dealer claimed {hand_text(e.claimed_hand)}; the cards "
                        f"{e.claim_cards} make {hand_text(e.claim_makes)}",
                        {"claimed": e.claimed_hand, "cards": e.claim_cards,
                         "made": e.claim_makes}))
    if e.table_cards and e.verified_cards and \
            sorted(e.table_cards.split()) != sorted(e.verified_cards.split()):
        out.append(Flag(Code.CARDS_CHANGED,
                        f"the table sent {e.table_cards}; the supervisor verified "
                        f"{e.verified_cards}",
                        {"table_cards": e.table_cards, "verified_cards": e.verified_cards}))
    paid = e.amount_cents is not None and e.authorized_by is not None
    if paid and e.verified_by is not None and e.authorized_by is not None and \
            e.verified_by.number == e.authorized_by.number and \
            (e.amount_cents or 0) >= settings.same_person_from_cents:
        out.append(Flag(Code.SAME_PERSON,
                        f"{e.authorized_by.label()} verified the cards and authorized the pay "
                        f"of {_money(e.amount_cents or 0)} alone",
                        {"employee": e.authorized_by.number,
                         "amount": json_cents(e.amount_cents or 0),
                         "from": json_cents(settings.same_person_from_cents)}))
    if e.amount_cents is not None and e.threshold_cents:
        low = Decimal(e.threshold_cents) * (1 - settings.near_threshold_margin)
        if low <= e.amount_cents < e.threshold_cents:
            below = e.threshold_cents - e.amount_cents
            out.append(Flag(Code.NEAR_THRESHOLD,
                            f"paid {_money(e.amount_cents)}, {_money(below)} below the "
                            f"executive threshold of {_money(e.threshold_cents)} (within "
                            f"{(settings.near_threshold_margin * 100).normalize():f}%): one "
                            "supervisor's "
                            "card was enough",
                            {"amount": json_cents(e.amount_cents),
                             "threshold": json_cents(e.threshold_cents),
                             "margin": str(settings.near_threshold_margin)}))
    if e.adjustments:
        parts = []
        for a in e.adjustments:
            sign = "+" if a.meter_units >= 0 else "-"
            mins = (a.at - e.at).total_seconds() / 60
            when = (f"{abs(mins):.0f} min {'after' if mins >= 0 else 'before'} the hit")
            people = " and ".join(w.label() for w in (a.by, a.second) if w is not None)
            parts.append(f"{sign}{_money(abs(a.meter_units) // 1_000_000)} on {a.level} "
                         f"{when} by {people or 'nobody recorded'} ({a.reason})")
        out.append(Flag(Code.ADJUSTMENT_NEAR,
                        f"{len(e.adjustments)} manual adjustment(s) of {e.level} within "
                        f"{settings.adjustment_window_minutes} min of the hit: "
                        + "; ".join(parts),
                        {"level": e.level, "count": len(e.adjustments),
                         "window_minutes": settings.adjustment_window_minutes}))
    if e.rate is not None and e.rate.hands_dealt > 0:
        tail = e.rate.tail
        if tail < float(settings.hit_rate_tail):
            r = e.rate
            out.append(Flag(Code.HIT_RATE, _rate_sentence(r, settings.hit_rate_tail),
                            {"table": r.table, "hand": r.hand, "hits": r.hits,
                             "hands": r.hands_dealt,
                             "expected": f"{float(r.expected):.6g}",
                             "probability": f"{r.probability.numerator}/"
                                            f"{r.probability.denominator}",
                             "tail": f"{tail:.10g}", "limit": str(settings.hit_rate_tail),
                             "since": r.since.isoformat(), "until": r.until.isoformat()}))
    if e.paid_at is not None and e.slip_nos:
        limit = timedelta(seconds=settings.print_delay_seconds)
        if e.first_print_at is not None:
            late = e.first_print_at - e.paid_at
            if late > limit:
                out.append(Flag(Code.PRINT_DELAY,
                                f"slip {_slips(e.slip_nos)} first printed "
                                f"{_duration(late)} after the pay (more than "
                                f"{settings.print_delay_seconds} s)",
                                {"seconds": f"{late.total_seconds():.3f}",
                                 "limit_seconds": settings.print_delay_seconds}))
        elif e.now is not None and e.now - e.paid_at > limit:
            out.append(Flag(Code.PRINT_DELAY,
                            f"slip {_slips(e.slip_nos)} has no confirmed print "
                            f"{_duration(e.now - e.paid_at)} after the pay",
                            {"seconds": None, "limit_seconds": settings.print_delay_seconds}))
    if e.confirmed_prints > 1:
        out.append(Flag(Code.REPRINTED,
                        f"slip {_slips(e.slip_nos)} was printed {e.confirmed_prints} times "
                        "(confirmed by the printer)", {"prints": e.confirmed_prints}))
    for slip_no, at, by, why, returned in e.voids:
        voider = by.label() if by else "nobody recorded"
        out.append(Flag(Code.VOIDED,
                        f"slip {slip_no:06d} was voided by {voider}"
                        f": {why}; money {'returned' if returned else 'not returned'}",
                        {"slip": slip_no, "by": by.number if by else None, "reason": why,
                         "money_returned": returned, "at": at.isoformat()}))
    out.sort(key=lambda f: ORDER.index(f.code))
    return tuple(out)


def _slips(nos: Sequence[int]) -> str:
    return ", ".join(f"{n:06d}" for n in nos)


def _duration(d: timedelta) -> str:
    s = d.total_seconds()
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"
