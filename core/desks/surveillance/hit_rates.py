"""A table's hits of one hand against its exact expected rate (the flag HIT_RATE): the wagered
hands of the table's hours (``table_hour_totals``) and its counted hits over the last
``[surveillance] hit_rate_days`` days, beside the exact chance of the hand (one 53-card deck,
every 7-card hand counted by :mod:`core.tablegames.rules.enumerate`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import cache
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.desks.desk import Desk
from core.desks.surveillance.flags import HitRate
from core.ledger.models import Award, Hit, TableHourTotal
from core.tablegames.rules.enumerate import HandCounts, count_hands

COUNTED = ("pending", "paid", "auto_paid")  # hits counted for a table's hit rate


@cache
def _counts(joker: str) -> HandCounts:
    return count_hands(joker)


def _probability(pt: Any, hand: str) -> Fraction | None:
    """The exact chance that one wagered hand is paid as ``hand`` (one 53-card deck)."""
    return _listed_probability(str(pt.joker), tuple(p.hand for p in pt.pays), hand)


@cache
def _listed_probability(joker: str, listed: tuple[str, ...], hand: str) -> Fraction | None:
    if hand not in listed:
        return None
    counts = _counts(joker)
    n = counts.best_listed(listed).get(hand, 0)
    return Fraction(n, counts.total)


class HitRates:
    """The hands dealt and the hits counted around ``hits``, read in two statements of the
    snapshot ``s``; :meth:`rate` of one hit from them."""

    def __init__(self, desk: Desk, s: Session, hits: Sequence[Hit]) -> None:
        self.desk = desk
        self.days = desk.config.surveillance.hit_rate_days
        self._rates: dict[tuple[str, str, datetime], HitRate] = {}
        self.hours: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
        self.rate_hits: dict[tuple[str, str], list[datetime]] = defaultdict(list)
        if not hits:
            return
        tables = sorted({h.table_id for h in hits})
        lo = min(self._window(h.created_at)[0] for h in hits)
        hi = max(self._window(h.created_at)[1] for h in hits)
        for row in s.execute(select(TableHourTotal.table_id, TableHourTotal.hour,
                                    TableHourTotal.wagers, TableHourTotal.returned_wagers)
                             .where(TableHourTotal.table_id.in_(tables),
                                    TableHourTotal.hour >= lo, TableHourTotal.hour < hi)
                             .order_by(TableHourTotal.hour)):
            self.hours[row.table_id].append((row.hour, int(row.wagers - row.returned_wagers)))
        q = (select(Hit.table_id, Hit.created_at, Hit.claimed_hand, Award.hand)
             .outerjoin(Award, Award.hit_id == Hit.id)
             .where(Hit.table_id.in_(tables), Hit.created_at >= lo, Hit.created_at < hi,
                    Hit.status.in_(COUNTED)))
        for hit_row in s.execute(q):
            self.rate_hits[(hit_row.table_id, hit_row.hand or hit_row.claimed_hand)].append(
                hit_row.created_at)

    def _window(self, at: datetime) -> tuple[datetime, datetime]:
        """The whole UTC hours of ``hit_rate_days`` days up to and with the hit's hour."""
        until = at.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + \
            timedelta(hours=1)
        return until - timedelta(days=self.days), until

    def rate(self, hit: Hit, hand: str, pt: Any) -> HitRate | None:
        """The table's hits of ``hand`` against its exact rate under ``pt`` (the table's
        paytable; None: not on this floor file, no rate)."""
        try:
            decks = self.desk.config.table(hit.table_id).decks
        except KeyError:
            return None
        if pt is None or decks != 1:  # the exact counts are of one 53-card deck
            return None
        p = _probability(pt, hand)
        if p is None:
            return None
        since, until = self._window(hit.created_at)
        key = (hit.table_id, hand, since)
        found = self._rates.get(key)
        if found is None:  # the hits of one table, hand and hour share it
            dealt = sum(n for at, n in self.hours.get(hit.table_id, ()) if since <= at < until)
            seen = sum(1 for at in self.rate_hits.get((hit.table_id, hand), ())
                       if since <= at < until)
            found = self._rates[key] = HitRate(hit.table_id, hand, dealt, seen, p, since, until)
        return found
