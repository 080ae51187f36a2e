"""A hit's timeline for surveillance, and the hits to look at (issue 13; docs/operator.md
"Surveillance").

:func:`timeline` reads, in ONE read-only snapshot of a :class:`~core.desks.desk.Desk`, everything
the ledger holds around one hit and lays it out in time order, each row to the millisecond in the
casino's time zone:

- the controller frames of the hit's round at its table (START GAME, every HIT JACKPOT, UNDO,
  MISDEAL, END GAME of that round under that controller boot) and the frames of that table
  the console refused within ``[surveillance] refused_frames_minutes`` of the round;
- every decision on the hit, every swipe made for it (who: employee number, name and role;
  accepted or refused, and why), the award (who authorized, who verified), the meter entries
  of the hit, the manual adjustments of its level near it, its slip(s), every print attempt
  and a void;
- the cards re-evaluated by the rules core beside the claim (:class:`CardsCheck`), and its
  flags (:mod:`core.desks.surveillance.flags`).

Rows written in one transaction share one time; they are shown in the order that transaction
wrote them (a swipe, then the decisions it made, the award, its meter entries, the pay, the
slip).

:func:`hits_to_look_at` lists the hits of a period with their flags, for the list view and
``podium report flags``; it reads every hit's rows in a few statements, not per hit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import cache
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from core.desks.accounting.periods import Period
from core.desks.desk import Desk
from core.desks.surveillance.flags import (
    Adjustment,
    Evidence,
    Flag,
    HitRate,
    flags_of,
    hand_text,
)
from core.floorconfig import SurveillanceConfig
from core.kernel.cards import Card, CardError, format_cards, parse_card
from core.kernel.money import format_cents, json_cents
from core.kernel.text import hit_ref
from core.ledger.models import (
    Award,
    ControllerEvent,
    Employee,
    GameTable,
    Hit,
    HitDecision,
    Level,
    LevelHourTotal,
    MeterEntry,
    RefusedEvent,
    Round,
    Slip,
    SlipPrintAttempt,
    SlipVoid,
    SwipeLog,
    TableHourTotal,
    Wager,
)
from core.people.who import Who
from core.tablegames.rules import fortune
from core.tablegames.rules.claims import ClaimError, pay_for_claim
from core.tablegames.rules.enumerate import HandCounts, count_hands
from core.tablegames.views import FloorError

UNITS_PER_CENT = 1_000_000
COUNTED = ("pending", "paid", "auto_paid")  # hits counted for a table's hit rate
_CHUNK = 500  # ids per IN (...) list

# the dealer's words for a controller frame's type
FRAME_WORDS = {"GameStarted": "START GAME", "HitClaimed": "HIT JACKPOT", "GameEnded": "END GAME",
               "Misdealt": "MISDEAL", "Undone": "UNDO", "SequenceGap": "GONE (sequence gap)"}
_FINAL = ("paid", "auto_paid")

# ranks of rows of one transaction (same time): the order it wrote them
_RANK = {"controller": 0, "refused frame": 0, "swipe": 1, "decision": 2, "award": 3, "meter": 4,
         "adjustment": 4, "pay": 5, "slip": 6, "print": 7, "void": 8}


class UnknownHit(FloorError):
    """No such hit in the ledger."""


@dataclass(frozen=True)
class Event:
    """One row of a timeline."""

    at: datetime  # in the casino's time zone
    source: str  # controller, refused frame, swipe, decision, award, meter, adjustment, slip,
    # print, void
    what: str
    who: Who | None
    detail: str
    amount_cents: int | None = None
    ref: str = ""  # the ledger row ("controller_events 12", "swipe_log 7", ...)
    flag: str = ""  # the flag code this row is evidence of ("" none)
    order: tuple[int, int] = (0, 0)  # (rank, row id) among rows of the same time

    @property
    def time_text(self) -> str:
        return ms_text(self.at)

    def as_json(self) -> dict[str, Any]:
        return {"at": iso_ms(self.at), "source": self.source, "what": self.what,
                "who": self.who.to_json() if self.who else None, "detail": self.detail,
                "amount": json_cents(self.amount_cents) if self.amount_cents is not None
                else None, "ref": self.ref, "flag": self.flag or None}


@dataclass(frozen=True)
class CardsCheck:
    """The claim beside what the cards make, re-evaluated by the rules core (the paytable's
    best listed pay, else the best Fortune hand)."""

    claimed: str
    table_cards: tuple[str, ...]  # as the table sent them (empty: none)
    table_makes: str | None  # the pay they earn, else their best hand (None: no cards)
    verified_cards: tuple[str, ...]  # as the supervisor verified them (empty: none)
    verified_makes: str | None
    paid_hand: str | None
    note: str = ""  # why a set of cards could not be evaluated
    table_best: str | None = None  # the best Fortune hand of the table's cards
    verified_best: str | None = None

    @property
    def judged(self) -> tuple[str | None, str | None]:
        """(what the cards make, their best hand): the verified cards', else the table's."""
        if self.verified_cards:
            return self.verified_makes, self.verified_best
        return self.table_makes, self.table_best

    @property
    def mismatch(self) -> bool:
        """The floor's rule (core/tablegames/pay/assess.py): a claim is right when it names the
        hand the cards are paid as, or their best hand."""
        made, best = self.judged
        return made is not None and self.claimed not in (made, best)

    @property
    def cards_changed(self) -> bool:
        return bool(self.table_cards and self.verified_cards
                    and sorted(self.table_cards) != sorted(self.verified_cards))

    def as_json(self) -> dict[str, Any]:
        return {"claimed": self.claimed, "table_cards": list(self.table_cards),
                "table_makes": self.table_makes, "verified_cards": list(self.verified_cards),
                "verified_makes": self.verified_makes, "table_best": self.table_best,
                "verified_best": self.verified_best, "paid_hand": self.paid_hand,
                "mismatch": self.mismatch, "cards_changed": self.cards_changed,
                "note": self.note or None}


@dataclass(frozen=True)
class HitLine:
    """A hit as the list of hits to look at shows it."""

    hit_id: int
    at: datetime  # HIT JACKPOT recorded, in the casino's time zone
    table: str
    round_no: int
    seat: int
    status: str
    claimed_hand: str
    hand: str | None  # the hand paid, else what the cards make, else the claim
    amount_cents: int | None
    flags: tuple[Flag, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"hit": self.hit_id, "at": iso_ms(self.at), "table": self.table,
                "round": self.round_no, "seat": self.seat, "status": self.status,
                "claimed_hand": self.claimed_hand, "hand": self.hand,
                "amount": json_cents(self.amount_cents) if self.amount_cents is not None
                else None, "flags": [f.as_json() for f in self.flags]}


@dataclass(frozen=True)
class Timeline:
    line: HitLine
    boot: str
    table_name: str
    wager_cents: int | None
    level: str | None
    source: str | None  # meter | tray (paid)
    slip_nos: tuple[int, ...]
    cards: CardsCheck
    events: tuple[Event, ...]
    timezone: str
    read_at: datetime  # UTC

    @property
    def flags(self) -> tuple[Flag, ...]:
        return self.line.flags

    def as_json(self) -> dict[str, Any]:
        doc = self.line.as_json()
        doc.update({"boot": self.boot, "table_name": self.table_name,
                    "wager": json_cents(self.wager_cents) if self.wager_cents is not None
                    else None, "level": self.level, "source": self.source,
                    "slips": list(self.slip_nos), "timezone": self.timezone,
                    "read_at": self.read_at.isoformat(timespec="milliseconds"),
                    "cards": self.cards.as_json(),
                    "events": [e.as_json() for e in self.events]})
        return doc


def ms_text(at: datetime) -> str:
    """``2026-12-02 14:03:05.123 +08:00``: a local time to the millisecond with its offset."""
    off = at.strftime("%z")
    return f"{at:%Y-%m-%d %H:%M:%S}.{at.microsecond // 1000:03d} {off[:3]}:{off[3:]}"


def iso_ms(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds")


def units_shown(units: int) -> str:
    """Exact units for people: ``-1,234.56``, or the exact decimal with its fraction of a
    cent."""
    if units % UNITS_PER_CENT == 0:
        return format_cents(units // UNITS_PER_CENT)
    return units_text(units)


def units_text(units: int) -> str:
    """Exact units (1/1,000,000 cent) as a decimal amount: ``-1234.56``, or with the fraction
    of a cent when there is one (``0.00123456``)."""
    if units % UNITS_PER_CENT == 0:
        return json_cents(units // UNITS_PER_CENT)
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), 100 * UNITS_PER_CENT)
    return f"{sign}{whole}.{frac:08d}".rstrip("0")


# --- reading --------------------------------------------------------------------------------

def _chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    for i in range(0, len(ids), _CHUNK):
        yield list(ids[i:i + _CHUNK])


def _rows(s: Session, make: Any, ids: Iterable[int]) -> list[Any]:
    """``make(chunk)`` -> a select, run for every chunk of ``ids``."""
    out: list[Any] = []
    for chunk in _chunks(sorted(set(ids))):
        q: Select[Any] = make(chunk)
        out += list(s.scalars(q))
    return out


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


def _parse(text: str) -> tuple[tuple[Card, ...], str]:
    try:
        cards = tuple(parse_card(t) for t in text.split())
    except CardError as exc:
        return (), str(exc)
    if len(cards) != 7:
        return (), f"{len(cards)} cards, not 7"
    return cards, ""


def _makes(pt: Any, cards: tuple[Card, ...]) -> tuple[str | None, str | None]:
    """(the pay the cards earn, else their best hand; their best hand)."""
    if not cards or pt is None:
        return None, None
    pay = pt.paying(cards)
    best = fortune.classify(cards, pt.joker)
    return (str(pay.hand) if pay is not None else best), best


class _Ledger:
    """Everything the flags of ``hits`` need, read in a few statements of one snapshot."""

    def __init__(self, desk: Desk, s: Session, hits: Sequence[Hit], now: datetime) -> None:
        self.desk, self.s, self.now = desk, s, now
        self.settings: SurveillanceConfig = desk.config.surveillance
        self.hits = list(hits)
        ids = [h.id for h in hits]
        self.awards = {a.hit_id: a for a in _rows(
            s, lambda c: select(Award).where(Award.hit_id.in_(c)), ids)}
        self.decisions: dict[int, list[HitDecision]] = defaultdict(list)
        for d in _rows(s, lambda c: select(HitDecision).where(HitDecision.hit_id.in_(c))
                       .order_by(HitDecision.id), ids):
            self.decisions[d.hit_id].append(d)
        self.swipes: dict[int, list[SwipeLog]] = defaultdict(list)
        for w in _rows(s, lambda c: select(SwipeLog).where(SwipeLog.hit_id.in_(c))
                       .order_by(SwipeLog.id), ids):
            if w.hit_id is not None:
                self.swipes[w.hit_id].append(w)
        self.slips: dict[int, list[Slip]] = defaultdict(list)
        for sl in _rows(s, lambda c: select(Slip).where(Slip.hit_id.in_(c))
                        .order_by(Slip.slip_no), ids):
            self.slips[sl.hit_id].append(sl)
        slip_ids = [sl.id for v in self.slips.values() for sl in v]
        self.prints: dict[int, list[SlipPrintAttempt]] = defaultdict(list)
        for p in _rows(s, lambda c: select(SlipPrintAttempt).where(
                SlipPrintAttempt.slip_id.in_(c)).order_by(SlipPrintAttempt.id), slip_ids):
            self.prints[p.slip_id].append(p)
        self.voids: dict[int, list[SlipVoid]] = defaultdict(list)
        for v in _rows(s, lambda c: select(SlipVoid).where(SlipVoid.slip_id.in_(c))
                       .order_by(SlipVoid.id), slip_ids):
            self.voids[v.slip_id].append(v)
        self.entries: dict[int, list[MeterEntry]] = defaultdict(list)
        for m in _rows(s, lambda c: select(MeterEntry).where(MeterEntry.hit_id.in_(c))
                       .order_by(MeterEntry.id), ids):
            if m.hit_id is not None:
                self.entries[m.hit_id].append(m)
        self.levels = {lv.id: lv for lv in s.scalars(select(Level))}
        self.level_ids = {(lv.group_id, lv.name): lv.id for lv in self.levels.values()}
        self.groups = {t.id: t.group_id for t in s.scalars(select(GameTable))}
        self.adjustments = self._load_adjustments()
        people = {d.employee_id for v in self.decisions.values() for d in v}
        people |= {w.employee_id for v in self.swipes.values() for w in v}
        people |= {x for a in self.awards.values() for x in (a.authorized_by, a.verified_by)}
        people |= {v.employee_id for vs in self.voids.values() for v in vs}
        people |= {x for m in self.adjustments for x in (m.employee_id, m.second_employee_id)}
        people |= {m.employee_id for v in self.entries.values() for m in v}
        self.people = {e.id: Who.of(e) for e in _rows(
            s, lambda c: select(Employee).where(Employee.id.in_(c)),
            [i for i in people if i is not None])}
        self._load_rates()

    def _load_adjustments(self) -> list[MeterEntry]:
        """The manual adjustments within the window of any hit: the hours that hold one are
        found in ``level_hour_totals`` (adjustments are rare), and only those hours' entries
        are read (the level-and-time index), never the contributions around them."""
        if not self.hits:
            return []
        w = timedelta(minutes=self.settings.adjustment_window_minutes)
        lo = min(h.created_at for h in self.hits) - w
        hi = max(h.created_at for h in self.hits) + w
        hours = list(self.s.execute(
            select(LevelHourTotal.level_id, LevelHourTotal.hour).where(
                LevelHourTotal.kind == "adjustment",
                LevelHourTotal.hour >= lo.replace(minute=0, second=0, microsecond=0),
                LevelHourTotal.hour <= hi).order_by(LevelHourTotal.hour)))
        found: dict[int, MeterEntry] = {}
        for level_id, hour in hours:
            for m in self.s.scalars(select(MeterEntry).where(
                    MeterEntry.level_id == level_id, MeterEntry.created_at >= hour,
                    MeterEntry.created_at < hour + timedelta(hours=1),
                    MeterEntry.kind == "adjustment")):
                if lo <= m.created_at <= hi:
                    found[m.id] = m
        return [found[k] for k in sorted(found)]

    # -- a table's paytable -----------------------------------------------------------------
    def paytable(self, table_id: str) -> Any:
        try:
            t = self.desk.config.table(table_id)
            g = self.desk.config.group(t.group)
        except KeyError:
            return None
        return self.desk.paytables.get(t.paytable or g.paytable)

    def who(self, employee_id: int | None) -> Who | None:
        return self.people.get(employee_id) if employee_id is not None else None

    # -- hit rates --------------------------------------------------------------------------
    def _window(self, at: datetime) -> tuple[datetime, datetime]:
        """The whole UTC hours of ``hit_rate_days`` days up to and with the hit's hour."""
        until = at.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + \
            timedelta(hours=1)
        return until - timedelta(days=self.settings.hit_rate_days), until

    def _load_rates(self) -> None:
        self._rates: dict[tuple[str, str, datetime], HitRate] = {}
        self.hours: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
        self.rate_hits: dict[tuple[str, str], list[datetime]] = defaultdict(list)
        if not self.hits:
            return
        tables = sorted({h.table_id for h in self.hits})
        lo = min(self._window(h.created_at)[0] for h in self.hits)
        hi = max(self._window(h.created_at)[1] for h in self.hits)
        for row in self.s.execute(select(TableHourTotal.table_id, TableHourTotal.hour,
                                         TableHourTotal.wagers, TableHourTotal.returned_wagers)
                                  .where(TableHourTotal.table_id.in_(tables),
                                         TableHourTotal.hour >= lo, TableHourTotal.hour < hi)
                                  .order_by(TableHourTotal.hour)):
            self.hours[row.table_id].append((row.hour, int(row.wagers - row.returned_wagers)))
        q = (select(Hit.table_id, Hit.created_at, Hit.claimed_hand, Award.hand)
             .outerjoin(Award, Award.hit_id == Hit.id)
             .where(Hit.table_id.in_(tables), Hit.created_at >= lo, Hit.created_at < hi,
                    Hit.status.in_(COUNTED)))
        for hit_row in self.s.execute(q):
            self.rate_hits[(hit_row.table_id, hit_row.hand or hit_row.claimed_hand)].append(
                hit_row.created_at)

    def rate(self, hit: Hit, hand: str) -> HitRate | None:
        try:
            decks = self.desk.config.table(hit.table_id).decks
        except KeyError:
            return None
        pt = self.paytable(hit.table_id)
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

    # -- one hit ----------------------------------------------------------------------------
    def level_of(self, hit: Hit, award: Award | None) -> tuple[str | None, int | None]:
        """The level the hit pays (or would pay) from: (name, level id)."""
        if award is not None and award.level_id is not None:
            lv = self.levels.get(award.level_id)
            return (lv.name if lv else None), award.level_id
        if hit.locked_level_id is not None:
            lv = self.levels.get(hit.locked_level_id)
            return (lv.name if lv else None), hit.locked_level_id
        pt = self.paytable(hit.table_id)
        group = self.groups.get(hit.table_id)
        if pt is None or group is None or award is not None:
            return None, None
        try:
            pay = pay_for_claim(pt, hit.claimed_hand)
        except ClaimError:
            return None, None
        name = pay.level or pt.levels[0] if pay.source == "meter" else None
        if name is None:
            try:
                if self.desk.config.group(group).all_pays_from_meter:
                    name = pt.levels[0]
            except KeyError:
                return None, None
        if name is None:
            return None, None
        return name, self.level_ids.get((group, name))

    def cards(self, hit: Hit, award: Award | None) -> CardsCheck:
        pt = self.paytable(hit.table_id)
        notes: list[str] = []
        table_cards, problem = _parse(hit.cards) if hit.cards else ((), "")
        if problem:
            notes.append(f"the table's cards can not be evaluated: {problem}")
        verified, problem = _parse(hit.verified_cards) if hit.verified_cards else ((), "")
        if problem:
            notes.append(f"the verified cards can not be evaluated: {problem}")
        if pt is None:
            notes.append(f"table {hit.table_id} is not on this floor file: its cards are not "
                         "evaluated")
        table_makes, table_best = _makes(pt, table_cards)
        verified_makes, verified_best = _makes(pt, verified)
        return CardsCheck(hit.claimed_hand, tuple(format_cards(table_cards)), table_makes,
                          tuple(format_cards(verified)), verified_makes,
                          award.hand if award else None, "; ".join(notes), table_best,
                          verified_best)

    def line(self, hit: Hit) -> tuple[HitLine, CardsCheck, str | None]:
        award = self.awards.get(hit.id)
        check = self.cards(hit, award)
        made, _ = check.judged
        hand = award.hand if award is not None else (made or hit.claimed_hand)
        level, level_id = self.level_of(hit, award)
        slips = self.slips.get(hit.id, [])
        first_print: datetime | None = None
        confirmed = 0
        voids: list[tuple[int, datetime, Who | None, str, bool]] = []
        for sl in slips:
            for p in self.prints.get(sl.id, []):
                if (p.state or ("printed" if p.ok else "failed")) == "printed":
                    confirmed += 1
                    if first_print is None or p.created_at < first_print:
                        first_print = p.created_at
            voids += [(sl.slip_no, v.created_at, self.who(v.employee_id), v.reason,
                       v.money_returned) for v in self.voids.get(sl.id, [])]
        window = timedelta(minutes=self.settings.adjustment_window_minutes)
        adjustments = tuple(
            Adjustment(m.created_at, level or "", m.meter_delta, self.who(m.employee_id),
                       self.who(m.second_employee_id), m.reason)
            for m in self.adjustments
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
            authorized_by=self.who(award.authorized_by) if award else None,
            verified_by=self.who(award.verified_by) if award else None,
            threshold_cents=self.desk.config.authorization.executive_threshold_cents,
            level=level, adjustments=adjustments,
            rate=self.rate(hit, rate_hand) if hit.status in COUNTED else None,
            slip_nos=tuple(sl.slip_no for sl in slips), first_print_at=first_print,
            confirmed_prints=confirmed, voids=tuple(voids), now=self.now)
        flags = flags_of(e, self.settings)
        return (HitLine(hit.id, self.desk.local(hit.created_at), hit.table_id, hit.round_no,
                        hit.seat, hit.status, hit.claimed_hand, hand,
                        award.amount_cents if award else None, flags), check, level)


def _now(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None:
        raise ValueError("surveillance: 'now' must be timezone-aware")
    return now.astimezone(UTC)


# --- the list of hits -----------------------------------------------------------------------

STATUSES = ("pending", "paid", "auto_paid", "rejected", "cancelled")


def hits_to_look_at(desk: Desk, period: Period, *, table: str | None = None,
                    status: str | None = None, flagged_only: bool = False,
                    now: datetime | None = None, limit: int = 10_000) -> list[HitLine]:
    """The hits recorded in ``period`` (oldest first), optionally of one table or status, with
    their flags; ``flagged_only``: only those with a flag.  More than ``limit`` hits is
    refused (FloorError: narrow the period or choose a table)."""
    at = _now(now)
    if status is not None and status not in STATUSES:
        raise FloorError(f"status: {status!r} is not one of {', '.join(STATUSES)}")
    with desk.read() as s:
        q = select(Hit).where(Hit.created_at >= period.start, Hit.created_at < period.end)
        if table:
            q = q.where(Hit.table_id == table)
        if status:
            q = q.where(Hit.status == status)
        hits = list(s.scalars(q.order_by(Hit.created_at, Hit.id).limit(limit + 1)))
        if len(hits) > limit:
            raise FloorError(f"{period.label}: more than {limit:,} hits; choose fewer days, a "
                             "shift or a table")
        ledger = _Ledger(desk, s, hits, at)
        lines = [ledger.line(h)[0] for h in hits]
    return [ln for ln in lines if ln.flags or not flagged_only]


# --- one hit's timeline ---------------------------------------------------------------------

def timeline(desk: Desk, hit_id: int, *, now: datetime | None = None) -> Timeline:
    """Everything the ledger holds around hit ``hit_id``, in time order (module docstring).
    :class:`UnknownHit` when there is no such hit."""
    at = _now(now)
    with desk.read() as s:
        hit = s.get(Hit, hit_id)
        if hit is None:
            raise UnknownHit(f"hit {hit_ref(hit_id)}: no such hit in this ledger")
        ledger = _Ledger(desk, s, [hit], at)
        line, check, level = ledger.line(hit)
        award = ledger.awards.get(hit.id)
        events = _events(desk, s, ledger, hit, award, line)
        hit_event = s.get(ControllerEvent, hit.event_id)
        t = s.get(GameTable, hit.table_id)
        wager = s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
        return Timeline(line=line, boot=hit_event.boot if hit_event else "",
                        table_name=t.name if t else hit.table_id,
                        wager_cents=wager.amount_cents if wager else None,
                        level=level, source=award.source if award else None,
                        slip_nos=tuple(sl.slip_no for sl in ledger.slips.get(hit.id, [])),
                        cards=check, events=events, timezone=desk.config.casino.timezone,
                        read_at=at)


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


def _events(desk: Desk, s: Session, ledger: _Ledger, hit: Hit, award: Award | None,
            line: HitLine) -> tuple[Event, ...]:
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


def flag_codes(flags: Sequence[Flag]) -> str:
    return ", ".join(str(f.code) for f in flags)


__all__ = ["CardsCheck", "Event", "HitLine", "STATUSES", "Timeline", "UnknownHit",
           "hits_to_look_at", "iso_ms", "ms_text", "timeline", "units_text"]
