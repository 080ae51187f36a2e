"""What the floor screen shows: the floor's state kept from the core's announcements, and its
rows turned into widget views (read-only; no rule lives here)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.money import UNITS_PER_MAJOR, format_cents
from core.rules.cards import Card, parse_card
from gui.widgets import HitView, LevelView, TableView

TREND_WINDOW = timedelta(hours=8)  # a shift
TREND_POINTS = 3000  # at most this many of the latest meter changes per trend


@dataclass(frozen=True)
class SlipView:
    slip_no: int
    hit_ref: str
    where: str
    amount: str
    paid_at: str
    printed: str
    printed_ok: bool
    state: str = ""  # printed | printing | unknown | failed | queued
    detail: str = ""  # what the print state means (a tooltip)


def local_now(console: Any) -> datetime:
    return datetime.now(ZoneInfo(console.config.casino.timezone))


def _local(console: Any, at: datetime) -> str:
    return at.astimezone(ZoneInfo(console.config.casino.timezone)).strftime("%d %b %H:%M:%S")


@dataclass
class Dirty:
    """What a change or a snapshot made stale on screen."""

    tables: set[str]
    levels: set[tuple[str, str]]
    hits: bool
    everything: bool = False


class FloorState:
    """The console's picture of the floor, kept from the core's announcements (no database).

    Loaded once from a snapshot (read off the GUI thread), then each :class:`FloorChange`
    brings the new state of what it touched.  A level's view carries the id of its latest entry,
    so an older view never replaces a newer one; a hit once closed never comes back to the
    queue.  Changes that arrive while the snapshot is loading are applied after it."""

    CLOSED_MEMORY = 20_000

    def __init__(self) -> None:
        self.loaded = False
        self.tables: dict[str, Any] = {}
        self.levels: dict[tuple[str, str], Any] = {}
        self.pending: dict[int, Any] = {}
        self._closed: dict[int, None] = {}
        self._early: list[Any] = []

    def load(self, snap: Any) -> Dirty:
        self.tables = {t.id: t for t in snap.tables}
        levels = {(lv.group, lv.level): lv for lv in snap.levels}
        for key, lv in self.levels.items():  # a newer view already shown stays
            if key in levels and lv.version > levels[key].version:
                levels[key] = lv
        self.levels = levels
        self.pending = {h.hit_id: h for h in snap.pending if h.hit_id not in self._closed}
        self.loaded = True
        early, self._early = self._early, []
        for change in early:
            self.apply(change)
        return Dirty(set(self.tables), set(self.levels), True, everything=True)

    def apply(self, change: Any) -> Dirty:
        if not self.loaded:
            self._early.append(change)
            return Dirty(set(), set(), False)
        dirty = Dirty(set(), set(), False)
        for t in change.table_views:
            self.tables[t.id] = t
            dirty.tables.add(t.id)
        for lv in change.level_views:
            key = (lv.group, lv.level)
            cur = self.levels.get(key)
            if cur is None or lv.version >= cur.version:
                self.levels[key] = lv
                dirty.levels.add(key)
        for hit_id in change.closed:
            self._closed[hit_id] = None
            if self.pending.pop(hit_id, None) is not None:
                dirty.hits = True
        while len(self._closed) > self.CLOSED_MEMORY:
            self._closed.pop(next(iter(self._closed)))
        for h in change.pending:
            if h.hit_id not in self._closed:
                self.pending[h.hit_id] = h
                dirty.hits = True
        return dirty


def _group(console: Any, group_id: str) -> Any:
    try:
        return console.config.group(group_id)
    except KeyError:  # in the ledger, no longer in the floor file
        return None


def table_view(console: Any, t: Any, links: dict[str, tuple[bool, str]]) -> TableView:
    """``links``: ``console.link_status()``: this console's own link decides ONLINE (at once;
    the ledger's flag follows a moment later) and says why an OFFLINE link is down."""
    g = _group(console, t.group)
    online, why = links.get(t.id, (t.online, ""))
    detail = "" if online else why
    return TableView(t.id, t.name, g.name if g is not None else t.group, t.paytable, online,
                     t.round_no, t.round_state or "idle", t.pending_hits, detail,
                     t.wager_seats)


def level_view(console: Any, lv: Any) -> LevelView:
    g = _group(console, lv.group)
    seed = g.level(lv.level).seed_cents if g is not None else 0
    return LevelView(lv.group, g.name if g is not None else lv.group, lv.level,
                     lv.meter_cents, lv.reserve_units // 1_000_000, seed,
                     lv.frozen_cents, lv.frozen_hits)


def hit_view(console: Any, h: Any) -> HitView:
    try:
        name = console.config.table(h.table).name
    except KeyError:
        name = h.table
    return HitView(h.hit_id, f"H{h.hit_id}", name, h.seat, h.round_no, h.claimed_hand,
                   h.wager_cents, tuple(h.flags), h.created_at)


def slip_views(console: Any, records: list[Any]) -> list[SlipView]:
    symbol = console.config.casino.currency_symbol
    return [SlipView(s.slip_no, s.hit_ref, s.where, format_cents(s.amount_cents, symbol),
                     _local(console, s.paid_at), s.printed, s.printed_ok, s.state, s.detail)
            for s in records]


def hit(state: FloorState, console: Any, hit_id: int) -> tuple[HitView | None, list[Card]]:
    """A waiting hit as the queue shows it, and the table's cards (from the state)."""
    h = state.pending.get(hit_id)
    if h is None:
        return None, []
    return hit_view(console, h), [parse_card(c) for c in h.cards]


def history(console: Any, group: str, level: str) -> tuple[list[float], list[float],
                                                           list[float], list[float],
                                                           list[float], list[float]]:
    """Plot coordinates of a meter's trend, its pays and its manual adjustments (x: epoch
    seconds, y: major units; a marker sits at the meter value just before the change, where
    the step line drops or rises).  Floats are for drawing only; every amount shown as text
    comes from exact cents."""
    since = datetime.now(UTC) - TREND_WINDOW
    points = console.floor.meter_history(group, level, since=since, limit=TREND_POINTS)
    # One point per transaction (its entries share a time): a 100% award and its reseed show
    # as one step from the amount paid to the new meter, not as a dip to zero.
    xs: list[float] = []
    ys: list[float] = []
    for at, units in points:
        x = at.timestamp()
        if xs and xs[-1] == x:
            ys[-1] = units / UNITS_PER_MAJOR
        else:
            xs.append(x)
            ys.append(units / UNITS_PER_MAJOR)
    def before(t: float) -> float:
        """The meter value just before ``t`` (where the step starts)."""
        i = bisect.bisect_left(xs, t)
        return ys[i - 1] if i > 0 else (ys[0] if ys else 0.0)

    hx = [m.at.timestamp() for m in console.floor.hit_markers(group, level, since=since)]
    ax = [at.timestamp() for at, _d in console.floor.adjustment_markers(group, level,
                                                                        since=since)]
    return xs, ys, hx, [before(t) for t in hx], ax, [before(t) for t in ax]
