"""The floor file into the ledger: groups, levels (seeded once), their settings history and the
tables; and the link state of each table (a table starts OFFLINE until its link is up)."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from sqlalchemy import func, select, update

from core.floorconfig import FloorConfig, FloorConfigError, rates_above_ceiling, validate
from core.kernel.money import cents_to_units, json_cents
from core.ledger import audit
from core.ledger.db import lock_record
from core.ledger.models import (
    Base,
    ContributionApproval,
    Employee,
    GameTable,
    Group,
    Level,
    LevelBalance,
    LevelSetting,
    MeterEntry,
    ParameterChange,
    Setting,
)
from core.ledger.rows import insert_rows
from core.people.auth import CARD_KEY_ID, key_mismatch
from core.people.who import Who
from core.tablegames import floor_approval
from core.tablegames.floor_approval import AT_ONCE, parameters
from core.tablegames.meters import arithmetic as meters
from core.tablegames.meters import balances
from core.tablegames.unit import FloorContext, LevelRef, Unit
from core.tablegames.views import FloorError

PPM = 1_000_000
SLIP_SEQUENCE_KEY = "slip_sequence"


def levels(u: Unit, group_id: str) -> dict[str, LevelRef]:
    """The group's levels by name (configuration: read once, kept in the unit's cache).  The
    meter itself is read with :func:`core.tablegames.meters.balances.current`, which locks it."""
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


def check(ctx: FloorContext, u: Unit) -> list[str] | None:
    """A console that is a client of the floor services does not write the floor file into
    the ledger (the services' file does): what in its file differs from the ledger, in words;
    None when the ledger was never set up (then the console sets it up)."""
    if u.s.scalar(select(func.count()).select_from(Group)) == 0:
        return None
    validate(ctx.config, ctx.paytables)
    latest: dict[tuple[str, str, str], str] = {}
    for row in u.s.scalars(select(ParameterChange).where(ParameterChange.scope != "ledger")
                           .order_by(ParameterChange.id)):
        latest[(row.scope, row.subject, row.name)] = row.new_value
    differ = [f"{key[0]} {key[1]} {key[2]}: the ledger has {latest.get(key) or '(none)'}, "
              f"this file {value or '(none)'}"
              for key, (value, _when) in sorted(parameters(ctx.config).items())
              if latest.get(key, "") != value]
    missing = [t.id for t in ctx.config.tables if u.s.get(GameTable, t.id) is None]
    notes = []
    if differ:
        notes.append(f"FLOOR FILE DIFFERS from the ledger's in {len(differ)} parameter(s) (first: "
                     f"{differ[0]}); the floor services' file decides what tables pay: this "
                     "console shows the ledger and writes no configuration")
    if missing:
        notes.append(f"tables {', '.join(missing)} are not in the ledger yet (no floor service "
                     "has started with them): they stay empty until one does")
    return notes


def check_approvals(u: Unit, ctx: FloorContext) -> list[str]:
    """RULES.md 4: a level's contribution rate above the pre-configured one starts only with an
    executive's recorded approval of exactly that rate (``contribution_approvals``, written by
    ``podium employees approve-contribution``).  FloorConfigError naming the group, level, rate
    and the command otherwise; the notes naming who approved each."""
    notes: list[str] = []
    for above in rates_above_ceiling(ctx.config, ctx.paytables):
        row = u.s.execute(
            select(ContributionApproval, Employee)
            .join(Employee, Employee.id == ContributionApproval.approved_by)
            .where(ContributionApproval.group_id == above.group,
                   ContributionApproval.level == above.level,
                   ContributionApproval.rate_ppm == above.rate_ppm)
            .order_by(ContributionApproval.id.desc()).limit(1)).first()
        if row is None:
            raise FloorConfigError(f"{above.text()}: refused without an executive's recorded "
                                   f"approval of this rate; an executive runs: "
                                   f"{above.command()}")
        approval, exe = row
        notes.append(f"{above.text()}: approved by {Who.of(exe).by_role()} on "
                     f"{approval.created_at:%Y-%m-%d %H:%M} UTC")
    return notes


def start(ctx: FloorContext, u: Unit, offline: Iterable[str] | None = None) -> list[str]:
    """Sync the floor configuration into the ledger; returns what it did (for the log).

    New levels are seeded (a ``seed`` entry); a changed seed or rate appends a
    ``level_settings`` row (history is never updated).  The tables this process will serve
    (``offline``; None: every table, one podium serving the whole floor) start OFFLINE until
    their links report them online; the others' link state is their service's (a new table
    starts OFFLINE in any case)."""
    validate(ctx.config, ctx.paytables)  # refused (FloorConfigError): nothing is written
    approved = check_approvals(u, ctx)  # refused likewise
    approved += floor_approval.gate(u.s, ctx.config)  # a floor change: refused unless approved
    notes: list[str] = approved + [f"LEDGER GUARD MISSING: {p}; records may have been edited: run "
                        "podium audit verify" for p in audit.guard_problems(u.s.connection())]
    s, now = u.s, u.now
    key_row = s.get(Setting, CARD_KEY_ID)
    if key_row is not None and key_row.value != ctx.gate.key.key_id():
        notes.append(f"CARD KEY MISMATCH: {key_mismatch(ctx.gate.key, key_row.value)}; every "
                     "card will be refused until the floor's key is installed")
    legacy = s.scalar(select(func.count()).select_from(Employee)
                      .where(Employee.card_mac.is_(None))) or 0
    if legacy:
        notes.append(f"{legacy} employee card(s) from before the card key: each is re-kept "
                     "under the key when next swiped (podium employees list shows which)")
    u.cache.clear()
    reset = None if offline is None else set(offline)
    notes += record_parameters(u, ctx.config)
    if s.get(Setting, SLIP_SEQUENCE_KEY) is None:
        s.add(Setting(key=SLIP_SEQUENCE_KEY, value="slip numbers: max(slips.slip_no)+1"))
    # the floor's rows read at once (a floor of hundreds of tables: a few reads, not one per
    # table or level)
    have_groups = {r.id: r for r in s.scalars(select(Group))}
    have_tables = {r.id: r for r in s.scalars(select(GameTable))}
    have_balances = {r.level_id: r for r in s.scalars(select(LevelBalance))}
    for g in ctx.config.groups:
        row = have_groups.get(g.id)
        if row is None:
            row = Group(id=g.id, created_at=now)
            s.add(row)
            notes.append(f"group {g.id}: created")
        row.name, row.paytable_id = g.name, g.paytable
        row.lock_at_hit, row.payment_order = g.lock_at_hit, g.pay_order
        s.flush()
        lock_record(s, "levels", g.id)
        have = {lv.name: lv for lv in s.scalars(
            select(Level).where(Level.group_id == g.id).order_by(Level.id))}
        for lc in g.levels:
            lv = have.get(lc.name)
            if lv is None:
                lv = Level(group_id=g.id, name=lc.name, created_at=now)
                s.add(lv)
                s.flush()
            if lv.id not in have_balances:
                balances.open_balance(s, lv.id, now)
                opened = s.get(LevelBalance, lv.id)
                if opened is not None:
                    have_balances[lv.id] = opened
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
            bal = have_balances.get(lv.id)
            if bal is not None and not bal.entries:
                balances.add_entries(u, lv, [MeterEntry(
                    kind="seed", meter_delta=want[0], reserve_delta=0,
                    reason="first-time seeding", created_at=now)])
                notes.append(f"level {g.id}/{lc.name}: seeded at {json_cents(lc.seed_cents)}")
            u.levels.add((g.id, lc.name))
    for t in ctx.config.tables:
        trow = have_tables.get(t.id)
        if trow is None:
            trow = GameTable(id=t.id, created_at=now)
            s.add(trow)
            notes.append(f"table {t.id}: created")
        trow.name, trow.group_id, trow.seats = t.name, t.group, t.seats
        if trow.online is None or reset is None or t.id in reset:
            trow.online = False
        u.tables.add(t.id)
    s.flush()
    u.cache.clear()
    return notes


def record_parameters(u: Unit, config: FloorConfig) -> list[str]:
    """Parameter changes are records: every parameter whose value differs from the one the
    ledger last recorded is written to ``parameter_changes`` (old value, new value, when, the
    floor file and its SHA-256, when it takes effect).  The first start records every value
    (old value ""); a parameter no longer in the file is recorded as removed (new value "").
    Returns the notes for Activity: one per change, one line for a first start."""
    s, now = u.s, u.now
    latest: dict[tuple[str, str, str], str] = {}
    # the floor file's parameters (the ledger's own, scope "ledger", are not the file's)
    for row in s.scalars(select(ParameterChange).where(ParameterChange.scope != "ledger")
                         .order_by(ParameterChange.id)):
        latest[(row.scope, row.subject, row.name)] = row.new_value
    first = not latest
    wanted = parameters(config)
    notes: list[str] = []
    changes = 0
    removed = {key: ("", AT_ONCE) for key, value in latest.items()
               if key not in wanted and value != ""}
    rows: list[dict[str, object]] = []
    for key, (value, when) in {**wanted, **removed}.items():
        old = latest.get(key)
        if old == value or (old is None and value == ""):
            continue
        scope, subject, name = key
        rows.append({"at": now, "scope": scope, "subject": subject, "name": name,
                     "old_value": old or "", "new_value": value, "effective": when,
                     "source": config.source, "file_sha256": config.sha256})
        changes += 1
        if not first:
            notes.append(f"parameter change: {scope} {subject} {name} "
                         f"{old or '(none)'} -> {value or '(removed)'}, {when} "
                         f"({config.source}, sha256 {config.sha256[:12]})")
    if first and changes:
        notes.append(f"parameters recorded: {changes} from {config.source} "
                     f"(sha256 {config.sha256[:12]}; the ledger's first start)")
    # one INSERT for all of them (a first start of a 500-table floor records ~3,600)
    insert_rows(s.connection(), Base.metadata.tables["parameter_changes"], rows)
    return notes


def set_link(u: Unit, table: str, online: bool) -> None:
    """The controller link of ``table`` came up (online) or dropped (OFFLINE)."""
    t = Base.metadata.tables["tables"]
    done = u.s.connection().execute(update(t).where(t.c.id == table).values(online=online))
    if done.rowcount == 0:
        raise FloorError(f"table {table}: not configured on this floor")
    u.tables.add(table)
