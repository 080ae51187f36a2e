"""The floor file into the ledger: groups, levels (seeded once), their settings history and the
tables; and the link state of each table (a table starts OFFLINE until its link is up)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select, update

from core.ledger.models import (
    Base,
    GameTable,
    Group,
    Level,
    LevelBalance,
    LevelSetting,
    MeterEntry,
    Setting,
)
from core.money import cents_to_units, json_cents
from core.tablegames import balances, meters
from core.tablegames.unit import FloorContext, LevelRef, Unit
from core.tablegames.views import FloorError

PPM = 1_000_000
SLIP_SEQUENCE_KEY = "slip_sequence"


def levels(u: Unit, group_id: str) -> dict[str, LevelRef]:
    """The group's levels by name (configuration: read once, kept in the unit's cache).  The
    meter itself is read with :func:`core.tablegames.balances.current`, which locks it."""
    found = u.cache.levels.get(group_id)
    if found is None:
        found = {lv.name: LevelRef(lv.id, lv.group_id, lv.name) for lv in u.s.scalars(
            select(Level).where(Level.group_id == group_id).order_by(Level.id))}
        u.cache.levels[group_id] = found
    return found


def settings(u: Unit, level_id: int) -> meters.LevelSettings:
    """The level's seed and rates in force (read once; ``start`` records changes)."""
    found = u.cache.settings.get(level_id)
    if found is None:
        row = u.s.scalars(select(LevelSetting).where(LevelSetting.level_id == level_id)
                          .order_by(LevelSetting.id.desc()).limit(1)).first()
        if row is None:
            raise FloorError(f"level #{level_id}: has no settings; start the floor first")
        found = meters.LevelSettings(row.seed_units, Decimal(row.contribution_rate_ppm) / PPM,
                                     Decimal(row.reserve_rate_ppm) / PPM)
        u.cache.settings[level_id] = found
    return found


def start(ctx: FloorContext, u: Unit) -> list[str]:
    """Sync the floor configuration into the ledger; returns what it did (for the log).

    New levels are seeded (a ``seed`` entry); a changed seed or rate appends a
    ``level_settings`` row (history is never updated).  Every table starts OFFLINE until
    its link reports it online."""
    notes: list[str] = []
    s, now = u.s, u.now
    u.cache.clear()
    if s.get(Setting, SLIP_SEQUENCE_KEY) is None:
        s.add(Setting(key=SLIP_SEQUENCE_KEY, value="slip numbers: max(slips.slip_no)+1"))
    for g in ctx.config.groups:
        row = s.get(Group, g.id)
        if row is None:
            row = Group(id=g.id, created_at=now)
            s.add(row)
            notes.append(f"group {g.id}: created")
        row.name, row.paytable_id = g.name, g.paytable
        row.lock_at_hit, row.payment_order = g.lock_at_hit, g.pay_order
        s.flush()
        have = {lv.name: lv for lv in s.scalars(
            select(Level).where(Level.group_id == g.id).order_by(Level.id).with_for_update())}
        for lc in g.levels:
            lv = have.get(lc.name)
            if lv is None:
                lv = Level(group_id=g.id, name=lc.name, created_at=now)
                s.add(lv)
                s.flush()
            balances.open_balance(s, lv.id, now)
            want = (cents_to_units(lc.seed_cents), int(lc.contribution_rate * PPM),
                    int(lc.reserve_rate * PPM))
            cur = s.scalars(select(LevelSetting).where(LevelSetting.level_id == lv.id)
                            .order_by(LevelSetting.id.desc()).limit(1)).first()
            if cur is None or (cur.seed_units, cur.contribution_rate_ppm,
                               cur.reserve_rate_ppm) != want:
                s.add(LevelSetting(level_id=lv.id, seed_units=want[0],
                                   contribution_rate_ppm=want[1], reserve_rate_ppm=want[2],
                                   effective_at=now))
                notes.append(f"level {g.id}/{lc.name}: settings recorded")
            bal = s.get(LevelBalance, lv.id)
            if bal is not None and not bal.entries:
                balances.add_entries(u, lv, [MeterEntry(
                    kind="seed", meter_delta=want[0], reserve_delta=0,
                    reason="first-time seeding", created_at=now)])
                notes.append(f"level {g.id}/{lc.name}: seeded at {json_cents(lc.seed_cents)}")
            u.levels.add((g.id, lc.name))
    for t in ctx.config.tables:
        trow = s.get(GameTable, t.id)
        if trow is None:
            trow = GameTable(id=t.id, created_at=now)
            s.add(trow)
            notes.append(f"table {t.id}: created")
        trow.name, trow.group_id, trow.seats, trow.online = t.name, t.group, t.seats, False
        u.tables.add(t.id)
    s.flush()
    u.cache.clear()
    return notes


def set_link(u: Unit, table: str, online: bool) -> None:
    """The controller link of ``table`` came up (online) or dropped (OFFLINE)."""
    t = Base.metadata.tables["tables"]
    done = u.s.connection().execute(update(t).where(t.c.id == table).values(online=online))
    if done.rowcount == 0:
        raise FloorError(f"table {table}: not configured on this floor")
    u.tables.add(table)
