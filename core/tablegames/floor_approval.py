"""Who approved a floor change (issue 27 point 7; docs/operator.md "Approving a floor change").

A change of a floor-file parameter that decides a pay or a contribution, or who may authorize
one (:data:`DECIDES`), takes effect only once an executive approved it: a ``floor_approvals``
record naming who (employee number, name and role as they stood), when, how (``podium floor
approve``, or a swipe and PIN at the console that starts with it), the accepted swipe, the old
and new values and the floor file's SHA-256.

What "the last approved parameters" are: the values the ledger last recorded for each parameter
(``parameter_changes``, written at start).  A floor starts on a file whose deciding values
differ from those only while an approval of exactly the file's deciding values
(``values_sha256``), given against exactly the ledger's newest deciding record
(``base_change_id``), exists: an approval is used once (the start that takes it records the
changes, so the base moves on), and an old approval of the same values does not approve them
again later.  Until approved the floor does not start and says why (:func:`gate`); it can not
start "on the last approved parameters", because a floor runs on its file (the paytable, the
pay order, the thresholds are read from it).

The baseline: the values of a scope the ledger has never recorded (the ledger's first start;
the authorization and poker-room parameters on the first start after revision 0026 began
recording them) are recorded without an approval, as the commissioning; every later change
needs one.

Who may approve: an active executive, with the PIN, through the card gate
(``core.people.auth.Gate``: the card's record vouched for by its history, lockout, swipe log).
A supervisor, a surveillance officer or an accountant is refused and nothing is recorded but
the refused swipe.  The start checks the approval once more: its employee is an executive, and
its swipe is an accepted executive swipe of that employee for ``approve_floor``.
"""

from __future__ import annotations

import getpass
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.floorconfig import FloorConfig, FloorConfigError
from core.kernel.money import json_cents
from core.ledger.models import Employee, FloorApproval, ParameterChange, SwipeLog
from core.people.auth import Credential, Gate, default_policy
from core.people.cardkey import CardKey
from core.people.who import Who

ACTION = "approve_floor"  # swipe_log.action of an approving swipe
VIAS = ("command", "console")

#: (scope, name) of every recorded parameter that decides a pay or a contribution, or who may
#: authorize one: a change of one takes effect only with an executive's approval.  The others
#: (a table's name, host, port, seats; a group's name and decks) are recorded, not approved.
DECIDES: frozenset[tuple[str, str]] = frozenset({
    ("group", "paytable"), ("group", "lock_at_hit"), ("group", "pay_order"),
    ("group", "all_pays_from_meter"), ("group", "auto_pay_hands"),
    ("level", "seed"), ("level", "contribution_rate"), ("level", "reserve_rate"),
    ("level", "allow_zero_seed"), ("level", "preconfigured_rate"),
    ("level", "preconfigured_seed"),
    ("table", "group"), ("table", "paytable"),
    ("authorization", "executive_threshold"), ("authorization", "separate_verifier_at"),
    ("authorization", "adjustment_second_executive_at"), ("authorization", "pin"),
    ("authorization", "lockout_failures"), ("authorization", "lockout_minutes"),
    ("poker_room", "split"), ("poker_room", "min_players"),
    ("poker_room", "min_pot_big_blinds"), ("poker_room", "tax_threshold"),
    ("poker_room", "resident_tax_rate"), ("poker_room", "nranetb_tax_rate"),
    ("poker_room", "tie"), ("poker_room", "jackpot_rake_rate"),
    ("poker_room", "room_max_jackpot_rake"), ("poker_room", "caps_by_big_blind"),
    ("poker_room", "admin_fee_rate"), ("poker_room", "main_rate"),
})

Key = tuple[str, str, str]  # scope, subject, name

AT_ONCE = "at once"
AT_RESEED = "at the level's next reseed (after its next 100% award)"


def parameters(config: FloorConfig) -> dict[tuple[str, str, str], tuple[str, str]]:
    """Every parameter of the floor file recorded in the ledger (what a table pays or
    contributes, who may authorize a pay, the poker room's rules and fund), as (scope, subject,
    name) -> (value as text, when a change of it takes effect).  Those that decide a pay or a
    contribution (``floor_approval.DECIDES``) change only with an executive's approval."""
    out: dict[tuple[str, str, str], tuple[str, str]] = {}

    def put(scope: str, subject: str, name: str, value: object, when: str = AT_ONCE) -> None:
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = ""
        elif isinstance(value, tuple):
            text = ", ".join(str(v) for v in value)
        else:
            text = str(value)
        out[(scope, subject, name)] = (text, when)

    for g in config.groups:
        put("group", g.id, "name", g.name)
        put("group", g.id, "paytable", g.paytable)
        put("group", g.id, "decks", g.decks)
        put("group", g.id, "lock_at_hit", g.lock_at_hit)
        put("group", g.id, "pay_order", g.pay_order)
        put("group", g.id, "all_pays_from_meter", g.all_pays_from_meter)
        put("group", g.id, "auto_pay_hands",
            "the paytable's" if g.auto_pay_hands is None else g.auto_pay_hands)
        for lv in g.levels:
            subject = f"{g.id}/{lv.name}"
            put("level", subject, "seed", json_cents(lv.seed_cents), AT_RESEED)
            put("level", subject, "contribution_rate", lv.contribution_rate)
            put("level", subject, "reserve_rate", lv.reserve_rate)
            put("level", subject, "allow_zero_seed", lv.allow_zero_seed)
            put("level", subject, "preconfigured_rate", lv.preconfigured_contribution_rate)
            put("level", subject, "preconfigured_seed",
                None if lv.preconfigured_seed_cents is None
                else json_cents(lv.preconfigured_seed_cents))
    auth = config.authorization  # who may authorize a pay (docs/operator.md "People controls")
    put("authorization", "floor", "executive_threshold",
        json_cents(auth.executive_threshold_cents))
    put("authorization", "floor", "separate_verifier_at", json_cents(auth.separate_verifier_cents))
    put("authorization", "floor", "adjustment_second_executive_at",
        json_cents(auth.adjustment_second_executive_cents))
    put("authorization", "floor", "pin", auth.pin)
    put("authorization", "floor", "lockout_failures", auth.lockout_failures)
    put("authorization", "floor", "lockout_minutes", auth.lockout_minutes)
    rules, fund = config.poker_room.rules, config.poker_room.fund  # RULES.md 6
    put("poker_room", "room", "split", f"winning {rules.split.winning}, losing "
        f"{rules.split.losing}, table {rules.split.table}")
    put("poker_room", "room", "min_players", rules.min_players)
    put("poker_room", "room", "min_pot_big_blinds", rules.min_pot_big_blinds)
    put("poker_room", "room", "tax_threshold", json_cents(rules.tax_threshold_cents))
    put("poker_room", "room", "resident_tax_rate", rules.resident_tax_rate)
    put("poker_room", "room", "nranetb_tax_rate", rules.nranetb_tax_rate)
    put("poker_room", "room", "tie", rules.tie)
    put("poker_room", "room", "jackpot_rake_rate", fund.rake_rate)
    put("poker_room", "room", "room_max_jackpot_rake", json_cents(fund.room_max_rake_cents))
    put("poker_room", "room", "caps_by_big_blind", tuple(
        f"{json_cents(bb)}: {json_cents(cap)}" for bb, cap in fund.caps_by_big_blind))
    put("poker_room", "room", "admin_fee_rate", fund.admin_fee_rate)
    put("poker_room", "room", "main_rate", fund.main_rate)
    for t in config.tables:
        put("table", t.id, "name", t.name)
        put("table", t.id, "group", t.group)
        put("table", t.id, "paytable", t.paytable or "the group's")
        put("table", t.id, "seats", t.seats)
        put("table", t.id, "decks", t.decks)
        put("table", t.id, "host", t.host)
        put("table", t.id, "port", t.port)
    return out



@dataclass(frozen=True)
class Change:
    """One deciding parameter whose file value is not the one the ledger last recorded."""

    scope: str
    subject: str
    name: str
    old: str  # "" : not recorded before (a new group, level or table)
    new: str  # "" : removed from the file

    def text(self) -> str:
        return (f"{self.scope} {self.subject} {self.name}: {self.old or '(none)'} -> "
                f"{self.new or '(removed)'}")

    def to_json(self) -> dict[str, str]:
        return {"scope": self.scope, "subject": self.subject, "name": self.name,
                "old": self.old, "new": self.new}


@dataclass(frozen=True)
class Pending:
    """The deciding changes of a floor file against the ledger, and what an approval of them
    is bound to."""

    changes: tuple[Change, ...]
    values_sha256: str
    base_change_id: int
    source: str
    file_sha256: str

    def summary(self) -> str:
        first = self.changes[0].text() if self.changes else "none"
        return f"{len(self.changes)} change(s) (first: {first})"


def deciding_values(config: FloorConfig) -> dict[Key, str]:
    """The file's value of every deciding parameter."""
    return {key: value for key, (value, _when) in parameters(config).items()
            if (key[0], key[2]) in DECIDES}


def values_digest(values: dict[Key, str]) -> str:
    """SHA-256 of the deciding values, in a fixed order (what an approval approves)."""
    text = json.dumps(sorted([list(k) + [v] for k, v in values.items()]), ensure_ascii=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def pending(s: Session, config: FloorConfig) -> Pending:
    """What in ``config`` that decides a pay or a contribution differs from the values the
    ledger last recorded (the baseline of a scope never recorded is not a change)."""
    latest: dict[Key, tuple[int, str]] = {}
    for row in s.scalars(select(ParameterChange).where(ParameterChange.scope != "ledger")
                         .order_by(ParameterChange.id)):
        latest[(row.scope, row.subject, row.name)] = (row.id, row.new_value)
    recorded_scopes = {key[0] for key in latest}
    wanted = deciding_values(config)
    removed = {key: "" for key, (_id, value) in latest.items()
               if (key[0], key[2]) in DECIDES and key not in wanted and value != ""}
    changes = []
    for key, value in sorted({**wanted, **removed}.items()):
        if key[0] not in recorded_scopes:
            continue  # the baseline: recorded at start without an approval
        old = latest[key][1] if key in latest else ""
        if old != value:
            changes.append(Change(*key, old=old, new=value))
    base = max((row_id for key, (row_id, _v) in latest.items()
                if (key[0], key[2]) in DECIDES), default=0)
    return Pending(tuple(changes), values_digest(wanted), base, config.source, config.sha256)


def _approval(s: Session, p: Pending) -> FloorApproval | None:
    """The newest approval of exactly ``p``'s values from exactly its base, if it holds: its
    employee an executive, its swipe that employee's accepted executive swipe to approve."""
    for row in s.scalars(select(FloorApproval)
                         .where(FloorApproval.values_sha256 == p.values_sha256,
                                FloorApproval.base_change_id == p.base_change_id)
                         .order_by(FloorApproval.id.desc())):
        emp = s.get(Employee, row.approved_by)
        swipe = s.get(SwipeLog, row.swipe_id)
        if (emp is not None and emp.role == "executive" and row.employee_role == "executive"
                and swipe is not None and swipe.outcome == "accepted"
                and swipe.employee_id == emp.id and swipe.action == ACTION
                and swipe.role_required == "executive"):
            return row
    return None


def refusal(p: Pending) -> str:
    return (f"{p.source}: {p.summary()} of what decides a pay or a contribution are not "
            "approved by an executive; the floor does not start on them: an executive "
            f"approves them with their card and PIN (podium floor approve --floor {p.source} "
            "--db LEDGER, or at the console), or the file goes back to the values the ledger "
            "last recorded")


def gate(s: Session, config: FloorConfig) -> list[str]:
    """At start (core/tablegames/setup.py, in the start's transaction): nothing, when no
    deciding parameter changed; a note naming who approved the changes; else FloorConfigError
    (nothing is written)."""
    p = pending(s, config)
    if not p.changes:
        return []
    row = _approval(s, p)
    if row is None:
        raise FloorConfigError(refusal(p))
    by = Who(row.employee_number, row.employee_name, row.employee_role)
    return [f"floor change approved: {p.summary()}, by {by.by_role()} "
            f"on {row.created_at:%Y-%m-%d %H:%M} UTC via {row.via} "
            f"(approval #{row.id}, sha256 {row.file_sha256[:12]})"]


def pending_for(engine: Engine, config: FloorConfig) -> Pending:
    """:func:`pending` in a read of its own (what an approval would approve)."""
    with Session(engine) as s:
        return pending(s, config)


def unapproved(engine: Engine, config: FloorConfig) -> Pending | None:
    """The deciding changes of ``config`` that no approval covers yet (None: none, or every
    one approved): what a console asks an executive to approve before it starts."""
    with Session(engine) as s:
        p = pending(s, config)
        if not p.changes or _approval(s, p) is not None:
            return None
        return p


def _operator() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name available (some containers)
        return "unknown"


def approve(engine: Engine, key: CardKey, config: FloorConfig, credential: Credential, *,
            via: str, reason: str = "", expected: Pending | None = None,
            clock: Callable[[], datetime] | None = None) -> str:
    """An executive (``credential``: swipe and PIN, checked by the card gate) approves the
    floor file's deciding changes: one ``floor_approvals`` row with the accepted swipe, in one
    transaction.  ``expected``: the changes shown to the executive (refused when the ledger
    moved on since).  Returns what was recorded, in words.  AuthError / ValueError for a card
    that is not an active executive's, a wrong PIN, nothing to approve; nothing but the
    refused swipe is written then.

    The card gate applies the safe people controls (``default_policy``: the executive's PIN,
    the lockout), never the file's being approved: a file saying ``pin = "none"`` must not
    approve itself with a swipe alone."""
    if via not in VIAS:
        raise ValueError(f"via: {via!r} is not one of {', '.join(VIAS)}")

    def write(s: Session, exe: Employee, now: datetime) -> str:
        p = pending(s, config)
        if not p.changes:
            raise FloorConfigError(f"{config.source}: nothing to approve: what decides pays "
                                   "and contributions is what the ledger last recorded")
        if expected is not None and (p.values_sha256, p.base_change_id) != (
                expected.values_sha256, expected.base_change_id):
            raise FloorConfigError(f"{config.source}: the ledger's parameters changed while "
                                   "the changes were shown; read them again")
        swipe_id = s.scalar(select(SwipeLog.id).where(
            SwipeLog.employee_id == exe.id, SwipeLog.action == ACTION,
            SwipeLog.outcome == "accepted").order_by(SwipeLog.id.desc()).limit(1))
        assert swipe_id is not None  # the gate logged it in this transaction
        row = FloorApproval(
            created_at=now, approved_by=exe.id, employee_number=exe.number,
            employee_name=exe.name, employee_role=exe.role, via=via, swipe_id=swipe_id,
            source=config.source, file_sha256=config.sha256, values_sha256=p.values_sha256,
            base_change_id=p.base_change_id,
            changes=json.dumps([c.to_json() for c in p.changes], ensure_ascii=False),
            reason=(reason or "").strip(), operator=_operator())
        s.add(row)
        s.flush()
        return (f"{p.summary()} approved by {Who.of(exe).by_role()} "
                f"(approval #{row.id}, {config.source} sha256 {config.sha256[:12]})")

    words = f"approving {len(expected.changes) if expected else 'the'} floor change(s)"
    gate_ = Gate(engine, key, default_policy(), clock)
    return gate_.run(credential, "executive", ACTION, write, words=words)


Record = Callable[[Credential], str]
Approver = Callable[[Pending, Record], bool]
"""At a console that starts on unapproved changes: shows them and asks for an executive's swipe
and PIN, handing each to ``record`` (which records the approval and returns it in words, or
raises AuthError / ValueError naming the refusal: show it, let them swipe again); True once
recorded, False when nobody approved (the console does not start)."""
