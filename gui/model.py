"""Turn the floor's snapshots into what the widgets show (read-only; no rule lives here)."""

from __future__ import annotations

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


@dataclass(frozen=True)
class Snapshot:
    tables: list[TableView]
    levels: list[LevelView]
    hits: list[HitView]
    slips: list[SlipView]


def local_now(console: Any) -> datetime:
    return datetime.now(ZoneInfo(console.config.casino.timezone))


def _local(console: Any, at: datetime) -> str:
    return at.astimezone(ZoneInfo(console.config.casino.timezone)).strftime("%d %b %H:%M:%S")


def snapshot(console: Any) -> Snapshot:
    config = console.config
    snap = console.floor.snapshot()
    names = {t.id: t.name for t in config.tables}
    groups = {g.id: g for g in config.groups}
    links = console.link_status()
    tables = [
        TableView(t.id, t.name, groups[t.group].name if t.group in groups else t.group,
                  t.paytable, t.online, t.round_no, t.round_state or "idle", t.pending_hits,
                  "" if t.online else links.get(t.id, (False, ""))[1])
        for t in snap.tables
    ]
    levels = []
    for lv in snap.levels:
        g = groups.get(lv.group)
        seed = g.level(lv.level).seed_cents if g is not None else 0
        levels.append(LevelView(lv.group, g.name if g else lv.group, lv.level, lv.meter_cents,
                                lv.reserve_units // 1_000_000, seed))
    hits = [
        HitView(h.hit_id, f"H{h.hit_id}", names.get(h.table, h.table), h.seat, h.round_no,
                h.claimed_hand, h.wager_cents, tuple(h.flags), h.created_at)
        for h in snap.pending
    ]
    slips = [
        SlipView(s.slip_no, s.hit_ref, s.where,
                 format_cents(s.amount_cents, config.casino.currency_symbol),
                 _local(console, s.paid_at), s.printed, s.printed_ok)
        for s in console.recent_slips()
    ]
    return Snapshot(tables, levels, hits, slips)


def hit(console: Any, hit_id: int) -> tuple[HitView | None, list[Card]]:
    snap = console.floor.snapshot()
    names = {t.id: t.name for t in console.config.tables}
    for h in snap.pending:
        if h.hit_id == hit_id:
            view = HitView(h.hit_id, f"H{h.hit_id}", names.get(h.table, h.table), h.seat,
                           h.round_no, h.claimed_hand, h.wager_cents, tuple(h.flags), h.created_at)
            return view, [parse_card(c) for c in h.cards]
    return None, []


def history(console: Any, group: str, level: str) -> tuple[list[float], list[float], list[float],
                                                           list[float]]:
    """Plot coordinates of a meter's trend and its hits (x: epoch seconds, y: major units).
    Floats are for drawing only; every amount shown as text comes from exact cents."""
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
    hx: list[float] = []
    hy: list[float] = []
    for m in console.floor.hit_markers(group, level, since=since):
        t = m.at.timestamp()
        # mark the hit at the meter value it was paid from (the last point before it)
        before = [y for x, y in zip(xs, ys, strict=True) if x < t]
        hx.append(t)
        hy.append(before[-1] if before else (ys[0] if ys else 0.0))
    return xs, ys, hx, hy
