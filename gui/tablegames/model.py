"""What the floor screen shows: the floor's state kept from the core's announcements, its rows
turned into the views the widgets are given (TableView, LevelView, HitView), and what a table's
tile says in words (read-only, no Qt; no rule lives here).  The widgets that show them:
table_grid.py, meter_tile.py, hit_queue.py."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.kernel.cards import Card, parse_card
from core.kernel.money import UNITS_PER_MAJOR
from core.kernel.text import hit_ref
from core.tablegames.flags import FlagCode

TREND_WINDOW = timedelta(hours=8)  # a shift
TREND_POINTS = 3000  # at most this many of the latest meter changes per trend


@dataclass(frozen=True)
class TableView:
    id: str
    name: str
    group: str
    paytable: str
    online: bool
    round_no: int | None
    round_state: str
    pending_hits: int
    detail: str = ""
    wager_seats: tuple[int, ...] = ()  # locked progressive wagers of the current round
    pit: str = ""  # the pit it stands in ("" none named)
    # who serves its controller link (a shared PostgreSQL ledger; "" on one podium, SQLite,
    # where this console serves every table and the tile says nothing of it)
    service: str = ""
    service_up: bool = True
    service_detail: str = ""  # in words (the tooltip): "served by ... since" / "NO SERVICE: ..."


@dataclass(frozen=True)
class LevelView:
    group: str
    group_name: str
    level: str
    meter_cents: int
    reserve_cents: int
    seed_cents: int
    frozen_cents: int = 0  # Jackpot Lock: the amounts fixed for hits still waiting
    frozen_hits: int = 0


@dataclass(frozen=True)
class HitView:
    id: int
    ref: str
    table: str
    seat: int
    round_no: int
    hand: str
    wager_cents: int | None
    flags: tuple[str, ...]  # their words, as shown
    received_at: datetime | None
    state: str = "pending"
    codes: tuple[FlagCode, ...] = ()  # the flags as codes: what the screen decides on


@dataclass(frozen=True)
class TileText:
    """What a table's tile says, line by line (painted by :class:`TileDelegate`)."""

    name: str
    link: str
    link_alert: bool
    game: str
    round: str
    bets: str
    note: str
    note_alert: bool
    border_alert: bool
    service: str = ""  # who serves the table ("" on one podium: nothing to say)
    service_alert: bool = False
    tooltip_detail: str = ""  # the service in words, for the tooltip


def tile_text(t: TableView) -> TileText:
    """A table's tile in words.  A table whose floor service is down (or that none serves)
    says NO SERVICE whatever the ledger's ``online`` flag says: a killed service never wrote
    its tables OFFLINE, and nobody answers their controllers."""
    rnd = f"Round {t.round_no}" if t.round_no else "No round yet"
    state = t.round_state.replace("_", " ").lower()
    no_service = has_no_service(t)
    online = t.online and not no_service
    if t.pending_hits:
        plural = "S" if t.pending_hits > 1 else ""
        note, note_alert = f"▲ {t.pending_hits} HIT{plural} WAITING", True
    elif no_service:
        note, note_alert = "", True
    else:
        note, note_alert = t.detail, not online
    if no_service:  # nobody records the round's bets now
        bets = ""
    elif t.wager_seats:
        bets = "Bets: seat " + " ".join(str(seat) for seat in t.wager_seats)
    else:
        bets = "No progressive bets" if t.round_state == "locked" else ""
    if no_service:
        link = "● NO SERVICE"
        service = (f"{t.service} is down" if t.service and not t.service.startswith("#")
                   else "no floor service serves it")
        round_ = "Progressive LOCKED"  # nobody links its controller
    else:
        link = "● ONLINE" if online else "● OFFLINE"
        service = f"served by {t.service}" if t.service else ""
        round_ = f"{rnd} · {state}" if online else "Progressive LOCKED (link down)"
    return TileText(
        name=t.name, link=link, link_alert=not online,
        game=f"{t.paytable} · {t.group}",
        round=round_,
        bets=bets,
        note=note, note_alert=note_alert,
        border_alert=bool(t.pending_hits) or not online,
        service=service, service_alert=no_service, tooltip_detail=t.service_detail)


def has_no_service(t: TableView) -> bool:
    """The table's floor service is down, or none serves it (a shared ledger): nobody links
    its controller now, whatever the ledger's ``online`` flag says."""
    return bool(t.service_detail) and not t.service_up


def decision_waits(t: TableView) -> str:
    """What a pay or a rejection of the table's hit waits for before it reaches the table:
    "has NO SERVICE", "is OFFLINE" (its link is down), or "" (its link carries it now)."""
    return waits_for(no_service=has_no_service(t), online=t.online)


def waits_for(*, no_service: bool, online: bool) -> str:
    """:func:`decision_waits` from the two facts it reads (also for a table not in the floor's
    picture yet: its service and this console's link alone)."""
    if no_service:
        return "has NO SERVICE"
    return "" if online else "is OFFLINE"


def waiting_note(waits: str, table: str, what: str) -> str:
    """The note of a decision (``what``: "pay", "rejection") on a table that ``waits``
    (:func:`decision_waits`): "Table PG 4 has NO SERVICE: the pay is recorded and will be
    sent to the table when it is back" ("" when nothing waits)."""
    if not waits:
        return ""
    return (f"Table {table} {waits}: the {what} is recorded and will be sent to the table "
            "when it is back")


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


def table_pit(console: Any, table_id: str) -> str:
    """The pit a table stands in ("" none named, or no longer in the floor file)."""
    try:
        return str(console.config.table(table_id).pit)
    except KeyError:
        return ""


def pit_label(pit: str) -> str:
    """"Pit A" for the floor file's ``pit = "A"`` (a pit already called "Pit 3" stays so)."""
    return pit if pit.lower().startswith("pit") else f"Pit {pit}"


def table_view(console: Any, t: Any, links: dict[str, tuple[bool, str]],
               service: Any = None) -> TableView:
    """``links``: ``console.link_status()``: this console's own link decides ONLINE (at once;
    the ledger's flag follows a moment later) and says why an OFFLINE link is down.
    ``service``: the table's :class:`~core.controllers.services.TableService` on a shared
    ledger (None on one podium: the console serves every table and the tile says nothing)."""
    g = _group(console, t.group)
    online, why = links.get(t.id, (t.online, ""))
    detail = "" if online else why
    view = TableView(t.id, t.name, g.name if g is not None else t.group, t.paytable, online,
                     t.round_no, t.round_state or "idle", t.pending_hits, detail,
                     t.wager_seats, table_pit(console, t.id))
    if service is None:
        return view
    return replace(view, service=service.service, service_up=service.up,
                   service_detail=service.detail)


@dataclass(frozen=True)
class ServiceLine:
    """One floor service as the header's "Floor services" line shows it."""

    name: str
    up: bool
    tables: int  # the tables it serves (up) or still holds while down
    labels: tuple[str, ...]  # "name (host, pid n)" of each process of that name


@dataclass(frozen=True)
class FloorServices:
    """Who serves the floor (read off the GUI thread by :func:`floor_services`)."""

    tables: dict[str, Any]  # table id -> TableService
    services: tuple[ServiceLine, ...]
    unserved: int  # tables no service has ever served


def floor_services(console: Any) -> FloorServices:
    """A read (a reader thread, never the GUI thread): every table's service and every
    floor service that is up, or is down and still named as some table's service (a killed
    process stays in the ledger; once its tables are taken over it is not shown again)."""
    from core.controllers.services import services

    tables = console.table_services()
    infos = services(console.floor, include_stopped=True)
    counts: dict[tuple[str, bool], int] = {}
    for ts in tables.values():
        if ts.service and not ts.service.startswith("#"):
            counts[(ts.service, ts.up)] = counts.get((ts.service, ts.up), 0) + 1
    lines: dict[tuple[str, bool], list[str]] = {}
    for info in infos:
        key = (info.name, info.up)
        if info.up or counts.get(key):
            lines.setdefault(key, []).append(info.label)
    unserved = sum(1 for ts in tables.values()
                   if not ts.service or ts.service.startswith("#"))
    return FloorServices(tables, tuple(ServiceLine(name, up, counts.get((name, up), 0),
                                                   tuple(labels))
                                       for (name, up), labels in sorted(lines.items())),
                         unserved)


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
    return HitView(h.hit_id, hit_ref(h.hit_id), name, h.seat, h.round_no, h.claimed_hand,
                   h.wager_cents, tuple(h.flags), h.created_at, codes=tuple(h.codes))


def slip_views(console: Any, records: list[Any]) -> list[SlipView]:
    money = console.config.casino.money  # the floor's currency, the casino's locale
    return [SlipView(s.slip_no, s.hit_ref, s.where, money.text(s.amount_cents),
                     _local(console, s.paid_at), s.printed, s.printed_ok, s.state, s.detail)
            for s in records]


def hit(state: FloorState, console: Any, hit_id: int) -> tuple[HitView | None, list[Card]]:
    """A waiting hit as the queue shows it, and the table's cards (from the state)."""
    h = state.pending.get(hit_id)
    if h is None:
        return None, []
    return hit_view(console, h), [parse_card(c) for c in h.cards]


# a meter's trend: (xs, ys) of the meter, of its pays and of its adjustments
History = tuple[list[float], list[float], list[float], list[float], list[float], list[float]]


def history(console: Any, group: str, level: str) -> History:
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
