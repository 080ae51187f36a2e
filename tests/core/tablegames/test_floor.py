"""The floor workflows (core/tablegames/, through its Floor facade) on SQLite and PostgreSQL.

Expected amounts are computed independently here with Decimal from RULES.md sections 3-4
(not with core.tablegames.meters.arithmetic), or taken from the worked example of CLI.md
(`podium rules meter`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_FLOOR, Decimal
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.controllers.events import (
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    OutOfOrder,
    Refused,
    SequenceGap,
    Undone,
)
from core.floorconfig import loads_floor
from core.kernel.cards import CardError, parse_cards
from core.ledger import chain, integrity
from core.ledger.models import (
    Award,
    Base,
    HitDecision,
    Level,
    LevelSetting,
    MeterEntry,
    RefusedEvent,
    Round,
    Slip,
    SwipeLog,
    Wager,
)
from core.ledger.models import ControllerEvent as ControllerEventRow
from core.ledger.people import record_event
from core.people import cardkey
from core.people.auth import AuthError, Credential, add_employee, pin_hash
from core.tablegames.floor import Floor
from core.tablegames.ingest.events import AUTO_PAID_REASON
from core.tablegames.rules import fortune
from core.tablegames.views import FloorChange, FloorError
from printing.escpos.slip import PAPER
from tests.floors import Group, floor_toml, table
from tests.floors import Level as MeterLevel

UNITS = 1_000_000  # exact units per cent (core.kernel.money)

# ---------------------------------------------------------------------------------------------
# Paytables: the real ones (H1) when installed; until then a stand-in with the contract of
# docs/architecture.md and the FPGPP-WA01 pays of RULES.md section 3.

@dataclass(frozen=True)
class _Pay:
    hand: str
    level: str | None = None
    fraction: Decimal | None = None
    amount_cents: int | None = None
    secondary_verification: bool = True
    authorization: str = "supervisor"
    odds: int | None = None
    envy_cents: int | None = None
    for_one: int | None = None

    @property
    def source(self) -> str:
        return "meter" if self.fraction is not None else "tray"


@dataclass(frozen=True)
class _Paytable:
    id: str
    pays: tuple[_Pay, ...]
    kind: str = "progressive"
    name: str = "Fortune Pai Gow Progressive"
    joker: str = "semi"
    wager_cents: int | None = 100
    levels: tuple[str, ...] = ("MAIN",)

    def pay_for(self, hand: str) -> _Pay | None:
        return next((p for p in self.pays if p.hand == hand), None)

    def paying(self, cards: Any) -> _Pay | None:
        made = fortune.hands_made(cards, self.joker)
        return next((p for p in self.pays if p.hand in made), None)

    def fixed_cents(self, pay: _Pay, wager_cents: int | None = None) -> int:
        assert pay.amount_cents is not None
        return pay.amount_cents


_M = "MAIN"
_STAND_IN = {"FPGPP-WA01": _Paytable("FPGPP-WA01", (
    _Pay("SF7_NATURAL", _M, Decimal(1)), _Pay("RF_ROYAL_MATCH", _M, Decimal("0.5")),
    _Pay("SF7_JOKER", _M, Decimal("0.25")), _Pay("FIVE_ACES", amount_cents=250_000),
    _Pay("ROYAL_FLUSH", amount_cents=20_000), _Pay("STRAIGHT_FLUSH", amount_cents=10_000),
    _Pay("FOUR_OF_A_KIND", amount_cents=7_500),
    _Pay("FULL_HOUSE", amount_cents=600, secondary_verification=False)))}


def _installed_paytables() -> dict[str, Any]:
    try:
        from core.tablegames.rules.paytables import load_paytables

        tables: dict[str, Any] = dict(load_paytables())
    except (ImportError, ValueError):
        return {}
    return tables if "FPGPP-WA01" in tables else {}


PAYTABLES: dict[str, Any] = _installed_paytables() or _STAND_IN
REAL_PAYTABLES = PAYTABLES is not _STAND_IN

# (``{rate}``: the LINK meter's contribution rate, filled in by str.format)
FLOOR_TOML = floor_toml(
    groups=[Group("LINK", levels={"MAIN": MeterLevel(preconfigured_seed="10000",
                                                contribution_rate="{rate}",
                                                preconfigured_rate="{rate}0")}),
            Group("LOCK", lock_at_hit=True,
                  levels={"MAIN": MeterLevel(preconfigured_seed="10000",
                                             preconfigured_rate="0.200")})],
    tables=[table("T1", 17301), table("T2", 17302), table("L1", 17303, "LOCK"),
            table("L2", 17304, "LOCK")])

HANDS = {
    "SF7_NATURAL": "Ah Kh Qh Jh Th 9h 8h",
    "RF_ROYAL_MATCH": "As Ks Qs Js Ts Kd Qd",
    "FIVE_ACES": "As Ad Ac Ah Jk 2c 3h",
    "FOUR_OF_A_KIND": "As Ad Ac Ah 2c 3h 5d",
    "FULL_HOUSE": "Ks Kd Kc 4s 4d 2c 9h",
    "NOTHING": "2s 5d 9c Jh Kd 3c 7h",
}
SUP, EXE, EXE2, ACC, GONE = ("5000000000000001", "5000000000000002", "5000000000000003",
                             "5000000000000004", "5000000000000005")


def swipe(card: str) -> str:
    return f"%B{card}^TEST/CARD^2912101?;{card}=2912101?"


def cards(hand: str) -> tuple[Any, ...]:
    return parse_cards(HANDS[hand].split())


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


class Table:
    """Sends controller events with increasing sequence numbers."""

    def __init__(self, floor: Floor, table: str, boot: str = "boot1") -> None:
        self.floor, self.table, self.boot, self.seq = floor, table, boot, 0

    def send(self, event: Any) -> bool:
        self.seq += 1
        return self.floor.handle(Origin(self.table, self.boot, self.seq), event)


def make_floor(engine: Engine, rate: str = "0.20") -> Floor:
    config = loads_floor(FLOOR_TOML.format(rate=rate), "test.toml")
    floor = Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER)
    floor.start()
    return floor


@pytest.fixture
def floor(engine: Engine) -> Floor:
    return staffed_floor(engine)


def staffed_floor(engine: Engine) -> Floor:
    """The test floor with its links up and five employees (one of them deactivated)."""
    f = make_floor(engine)
    for t in ("T1", "T2", "L1", "L2"):
        f.set_link(t, True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "S1", "Sue Visor", "supervisor", SUP)
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
        add_employee(s, cardkey.load(), "X2", "Ex Two", "executive", EXE2)
        add_employee(s, cardkey.load(), "A1", "Acc Ountant", "accountant", ACC)
        add_employee(s, cardkey.load(), "G1", "Gone Away", "supervisor", GONE, active=False)
    return f


def counts(engine: Engine) -> dict[str, int]:
    """Rows per table; the hash chain is checked here to vouch for every chained row once (and
    is left out of the counts, which it follows, as are the writers' lock rows)."""
    with engine.connect() as conn:
        out = {name: conn.execute(select(func.count()).select_from(t)).scalar_one()
               for name, t in Base.metadata.tables.items()}
        covered = integrity.covered(conn)
    out.pop("ledger_chain")
    out.pop("ledger_locks")  # a writers' lock's row, made the first time it is taken (0023)
    assert covered == sum(out[name] for name in chain.CHAINED), "a row is not chained"
    assert out["ledger_journal"] == 0, "a committed row was left unsealed"
    return out



def only_refusals_logged(engine: Engine, before: dict[str, int], *reasons: str) -> None:
    """Nothing changed but one swipe-log row per refusal, each ``refused`` with its reason."""
    after = counts(engine)
    assert after.pop("swipe_log") == before.pop("swipe_log") + len(reasons)
    assert after == before
    with Session(engine) as s:
        rows = list(s.scalars(select(SwipeLog).order_by(SwipeLog.id.desc()).limit(len(reasons))))
    for row, reason in zip(reversed(rows), reasons, strict=True):
        assert row.outcome == "refused" and row.employee_id is not None
        assert reason in (row.reason or ""), row.reason

def meter_units(engine: Engine, group: str = "LINK") -> tuple[int, int]:
    """Meter and reserve straight from the entries (the definition of a meter)."""
    with engine.connect() as conn:
        m, r = conn.exec_driver_sql(
            "SELECT COALESCE(SUM(e.meter_delta),0), COALESCE(SUM(e.reserve_delta),0) "
            "FROM meter_entries e JOIN levels l ON l.id = e.level_id "
            f"WHERE l.group_id = '{group}' AND l.name = 'MAIN'").one()
    return int(m), int(r)


def pay_of(hand: str) -> Any:
    return PAYTABLES["FPGPP-WA01"].pay_for(hand)


def floor_cents(units: Decimal) -> int:
    return int((units / UNITS).to_integral_value(rounding=ROUND_FLOOR))


def hit_ids(engine: Engine) -> list[int]:
    with engine.connect() as conn:
        return [r[0] for r in conn.exec_driver_sql("SELECT id FROM hits ORDER BY id")]


# ---------------------------------------------------------------------------------------------


def test_paytable_source_is_reported() -> None:
    # Not a rule: tells the reader whether the real paytables (H1) were used.
    print("real paytables:", REAL_PAYTABLES)


def test_start_seeds_once_and_appends_settings_history(engine: Engine) -> None:
    make_floor(engine)
    assert meter_units(engine) == (1_000_000 * UNITS, 0)
    f2 = make_floor(engine)  # restart, same config: nothing new
    assert meter_units(engine) == (1_000_000 * UNITS, 0)
    from tests.approvals import approve_floor

    # a changed rate decides what tables contribute: an executive approves it first
    approve_floor(engine, loads_floor(FLOOR_TOML.format(rate="0.15"), "test.toml"))
    before = counts(engine)
    f3 = make_floor(engine, rate="0.15")  # changed rate: history grows, meter untouched
    after = counts(engine)
    assert after["level_settings"] == before["level_settings"] + 1
    assert after["meter_entries"] == before["meter_entries"]
    with Session(engine) as s:
        rates = [r.contribution_rate_ppm for r in s.scalars(
            select(LevelSetting).order_by(LevelSetting.id))]
    assert rates[-1] == 150_000 and 200_000 in rates
    del f2, f3


def test_replayed_event_changes_nothing(floor: Floor, engine: Engine) -> None:
    origin = Origin("T1", "boot1", 1)
    assert floor.handle(origin, GameStarted(1, {1: 100, 2: 100})) is True
    before = counts(engine)
    assert floor.handle(origin, GameStarted(1, {1: 100, 2: 100})) is False
    assert floor.handle(origin, GameEnded(1)) is False  # same triple, whatever it says
    assert counts(engine) == before
    # a new boot restarts the sequence (and its round numbers): that is a new event and a new
    # round, not the first boot's round 1
    assert floor.handle(Origin("T1", "boot2", 1), GameStarted(1, {1: 100})) is True
    assert floor.handle(Origin("T1", "boot2", 2), GameEnded(1)) is True
    with Session(engine) as s:
        assert [(r.boot, r.round_no, r.state) for r in s.scalars(
            select(Round).order_by(Round.id))] == [("boot1", 1, "locked"), ("boot2", 1, "ended")]


@pytest.mark.parametrize("rate", ["0.123457", "0.20", "0.000001"])
def test_contributions_sum_exactly_keeping_fractions_of_a_cent(engine: Engine,
                                                                rate: str) -> None:
    floor = make_floor(engine, rate=rate)
    floor.set_link("T1", True)
    floor.set_link("T2", True)
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    wagers = 0
    for n in range(1, 8):
        seats = {s: 100 for s in range(1, (n % 6) + 2)}
        (t1 if n % 2 else t2).send(GameStarted(n, seats))
        wagers += len(seats)
    seed = Decimal(1_000_000) * UNITS
    expected_meter = seed + Decimal(wagers * 100) * Decimal(rate) * UNITS
    expected_reserve = Decimal(wagers * 100) * Decimal("0.02") * UNITS
    assert meter_units(engine) == (int(expected_meter), int(expected_reserve))
    assert expected_meter == int(expected_meter)  # nothing was rounded away
    state = floor.meter("LINK", "MAIN")
    assert (state.meter_units, state.reserve_units) == meter_units(engine)
    snap = {(lv.group, lv.level): lv for lv in floor.snapshot().levels}
    assert snap[("LINK", "MAIN")].meter_units == int(expected_meter)


def test_wager_beyond_the_seats_or_of_the_wrong_amount_is_refused(floor: Floor,
                                                                  engine: Engine) -> None:
    Table(floor, "T1").send(GameStarted(1, {1: 100, 7: 100, 3: 500}))
    with Session(engine) as s:
        ws = {w.seat: w for w in s.scalars(select(Wager))}
    assert ws[1].status == "locked"
    assert ws[7].status == "refused" and "seat 7" in (ws[7].problem or "")
    assert ws[3].status == "refused" and "5.00" in (ws[3].problem or "")
    m, r = meter_units(engine)
    assert m == 1_000_000 * UNITS + 20 * UNITS  # only seat 1 contributed
    assert r == 2 * UNITS


def test_percentage_award_rounds_down_and_leaves_the_rest(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100, 3: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    m0, r0 = meter_units(engine)
    fraction = pay_of("RF_ROYAL_MATCH").fraction
    expected = floor_cents(Decimal(m0) * fraction)
    v = floor.evaluate(hit, HANDS["RF_ROYAL_MATCH"].split())
    assert (v.amount_cents, v.source, v.level, v.mismatch) == (expected, "meter", "MAIN", False)
    paid = floor.pay(hit, HANDS["RF_ROYAL_MATCH"].split(), swipe(EXE))
    assert paid.amount_cents == expected
    assert meter_units(engine) == (m0 - expected * UNITS, r0)  # the rest stays, reserve too
    assert paid.meter_before_cents == m0 // UNITS
    assert paid.meter_after_cents == (m0 - expected * UNITS) // UNITS


def test_full_award_reseeds_at_seed_plus_reserve_plus_fraction(engine: Engine) -> None:
    floor = make_floor(engine, rate="0.123457")
    floor.set_link("T1", True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "X1", "Exe", "executive", EXE)
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100, 3: 100}))
    t1.send(HitClaimed(1, 3, "SF7_NATURAL"))
    m0, r0 = meter_units(engine)
    assert m0 % UNITS != 0  # there is a fraction of a cent
    paid = floor.pay(hit_ids(engine)[0], HANDS["SF7_NATURAL"].split(), swipe(EXE))
    assert paid.amount_cents == m0 // UNITS
    seed = 1_000_000 * UNITS
    assert meter_units(engine) == (seed + r0 + m0 % UNITS, 0)


def test_two_hits_in_one_round_are_paid_highest_seat_first(floor: Floor,
                                                           engine: Engine) -> None:
    """The worked example of CLI.md: meter 12,345.67 + 0.60 -> seat 6 takes 6,173.13 (50%),
    seat 2 the rest 6,173.14, the meter restarts at seed + reserve."""
    floor.adjust("LINK", "MAIN", 234_567, "bring to the CLI example", swipe(EXE), swipe(SUP))
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100, 6: 100}))
    t1.send(HitClaimed(1, 2, "SF7_NATURAL"))
    t1.send(HitClaimed(1, 6, "RF_ROYAL_MATCH"))
    h2, h6 = hit_ids(engine)
    before = counts(engine)
    with pytest.raises(FloorError, match="pay seat 6 first"):
        floor.pay(h2, HANDS["SF7_NATURAL"].split(), swipe(EXE))
    only_refusals_logged(engine, before, "pay seat 6 first")
    v2 = floor.evaluate(h2, HANDS["SF7_NATURAL"].split())
    assert v2.amount_cents == 617_314  # accounts for seat 6 being paid first
    assert any("pay seat 6 first" in p for p in v2.problems)
    assert floor.pay(h6, HANDS["RF_ROYAL_MATCH"].split(), swipe(EXE)).amount_cents == 617_313
    assert floor.pay(h2, HANDS["SF7_NATURAL"].split(), swipe(EXE)).amount_cents == 617_314
    assert meter_units(engine) == (1_000_006 * UNITS, 0)  # seed 10,000.00 + reserve 0.06


def test_lock_at_hit_fixes_the_amount_and_reject_reverses_it(floor: Floor,
                                                             engine: Engine) -> None:
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {1: 100}))
    m0, r0 = meter_units(engine, "LOCK")
    l1.send(HitClaimed(1, 1, "SF7_NATURAL"))
    (hit,) = hit_ids(engine)
    seed = 1_000_000 * UNITS
    # reseeded the moment HIT JACKPOT arrived
    assert meter_units(engine, "LOCK") == (seed + r0 + m0 % UNITS, 0)
    l2.send(GameStarted(7, {2: 100}))  # the link keeps playing
    grown = meter_units(engine, "LOCK")
    assert grown == (seed + r0 + m0 % UNITS + 20 * UNITS, 2 * UNITS)
    v = floor.evaluate(hit, HANDS["SF7_NATURAL"].split())
    assert v.amount_cents == m0 // UNITS  # the locked amount, not today's meter
    # rejecting needs the authority paying would: the locked amount is over the executive
    # threshold
    with pytest.raises(AuthError, match="needs an executive"):
        floor.reject(hit, "surveillance: cards switched", swipe(SUP))
    floor.reject(hit, "surveillance: cards switched", swipe(EXE))
    assert meter_units(engine, "LOCK") == (m0 + 20 * UNITS, r0 + 2 * UNITS)
    with Session(engine) as s:
        decisions = [d.decision for d in s.scalars(select(HitDecision))]
    assert decisions == ["rejected"]


def test_lock_at_hit_pays_the_locked_amount(floor: Floor, engine: Engine) -> None:
    l1, l2 = Table(floor, "L1"), Table(floor, "L2")
    l1.send(GameStarted(1, {1: 100}))
    m0, _ = meter_units(engine, "LOCK")
    l1.send(HitClaimed(1, 1, "SF7_NATURAL"))
    l2.send(GameStarted(2, {1: 100}))
    after_lock = meter_units(engine, "LOCK")
    paid = floor.pay(hit_ids(engine)[0], HANDS["SF7_NATURAL"].split(), swipe(EXE))
    assert paid.amount_cents == m0 // UNITS
    assert meter_units(engine, "LOCK") == after_lock  # no second movement


def test_misdeal_reverses_contributions_and_cancels_pending_hits(floor: Floor,
                                                                 engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    t1.send(GameEnded(1))
    kept = meter_units(engine)
    t1.send(GameStarted(2, {1: 100, 3: 100, 4: 100}))
    t1.send(HitClaimed(2, 3, "SF7_NATURAL"))
    t1.send(Misdealt(2))
    assert meter_units(engine) == kept
    snap = floor.snapshot()
    assert snap.pending == ()
    t1_view = next(t for t in snap.tables if t.id == "T1")
    assert (t1_view.round_no, t1_view.round_state) == (2, "misdealt")
    with Session(engine) as s:
        assert [d.decision for d in s.scalars(select(HitDecision))] == ["cancelled"]
    with pytest.raises(FloorError, match="MISDEAL round 2: round 2 is already misdealt"):
        t1.send(Misdealt(2))  # a second misdeal of the same round: refused, reverses nothing
    assert meter_units(engine) == kept
    assert [(r.seq, r.type) for r in refused_rows(engine)] == [(t1.seq, "Misdealt")]


def test_undo_start_game_and_undo_hit(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    start = meter_units(engine)
    t1.send(GameStarted(1, {1: 100}))
    t1.send(Undone(1, "START_GAME"))
    assert meter_units(engine) == start
    t1.send(GameStarted(2, {5: 100}))
    t1.send(HitClaimed(2, 5, "RF_ROYAL_MATCH"))
    t1.send(Undone(2, "HIT", seat=5))
    assert floor.snapshot().pending == ()
    with Session(engine) as s:
        assert [d.decision for d in s.scalars(select(HitDecision))] == ["undone"]


def test_hit_without_wager_is_flagged_and_can_only_be_rejected(floor: Floor,
                                                               engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 3, "SF7_NATURAL"))
    (hit,) = hit_ids(engine)
    (pending,) = floor.snapshot().pending
    assert "no wager on seat 3" in pending.flags
    v = floor.evaluate(hit, HANDS["SF7_NATURAL"].split())
    assert "no wager on seat 3" in v.problems and not v.payable
    before = counts(engine)
    with pytest.raises(FloorError, match="no wager on seat 3.*only be rejected"):
        floor.pay(hit, HANDS["SF7_NATURAL"].split(), swipe(EXE))
    only_refusals_logged(engine, before, "no wager on seat 3")
    floor.reject(hit, "no wager", swipe(SUP))
    assert floor.snapshot().pending == ()


def test_full_house_without_secondary_verification_is_auto_paid(floor: Floor,
                                                                engine: Engine) -> None:
    fh = pay_of("FULL_HOUSE")
    if fh.secondary_verification:
        pytest.skip("this paytable asks secondary verification for a full house")
    changes: list[FloorChange] = []
    floor.add_listener(changes.append)
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {4: 100}))
    before = meter_units(engine)
    t1.send(HitClaimed(1, 4, "FULL_HOUSE", cards("FULL_HOUSE")))
    with Session(engine) as s:
        (award,) = s.scalars(select(Award))
        (decision,) = s.scalars(select(HitDecision))
        (slip,) = s.scalars(select(Slip))
        assert award.amount_cents == PAYTABLES["FPGPP-WA01"].fixed_cents(fh, 100)
        assert award.source == "tray" and award.authorized_by is None
        assert (decision.decision, decision.reason) == ("auto_paid", AUTO_PAID_REASON)
        assert slip.slip_no == 1 and len(slip.escpos) > 0
    assert meter_units(engine) == before  # a tray pay does not touch the meter
    assert changes[-1].outcomes[0].outcome == "auto_paid"
    assert [p.slip_no for p in floor.pending_slips()] == [1]
    floor.record_print(1, "file", False, "paper out")
    assert floor.pending_slips()[0].failed_attempts == 1
    floor.record_print(1, "file", True)
    assert floor.pending_slips() == []


def test_claimed_hand_mismatch_needs_a_claim_correction(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {2: 100}))
    t1.send(HitClaimed(1, 2, "FIVE_ACES"))
    (hit,) = hit_ids(engine)
    v = floor.evaluate(hit, HANDS["FOUR_OF_A_KIND"].split())
    assert v.mismatch and "claimed FIVE_ACES, cards make FOUR_OF_A_KIND" in v.problems
    before = counts(engine)
    with pytest.raises(FloorError, match="claimed FIVE_ACES, cards make FOUR_OF_A_KIND"):
        floor.pay(hit, HANDS["FOUR_OF_A_KIND"].split(), swipe(SUP))
    only_refusals_logged(engine, before, "claimed FIVE_ACES")
    paid = floor.pay(hit, HANDS["FOUR_OF_A_KIND"].split(), swipe(SUP), correct_claim=True)
    assert paid.claim_corrected and paid.hand == "FOUR_OF_A_KIND"
    assert paid.amount_cents == PAYTABLES["FPGPP-WA01"].fixed_cents(pay_of("FOUR_OF_A_KIND"), 100)
    with Session(engine) as s:
        decisions = [d.decision for d in s.scalars(select(HitDecision).order_by(HitDecision.id))]
    assert decisions == ["claim_corrected", "verified", "paid"]


@pytest.mark.parametrize("bad_cards, error", [
    (["As", "Ad", "Ac", "Ah", "2c", "3h", "Zz"], CardError),  # unknown card
    (["As", "Ad", "Ac", "Ah", "2c", "3h", "3h"], CardError),  # duplicate
    (["As", "Ad", "Ac", "Ah", "2c", "3h"], CardError),  # wrong count
])
def test_bad_cards_change_nothing(floor: Floor, engine: Engine, bad_cards: list[str],
                                  error: type[Exception]) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {2: 100}))
    t1.send(HitClaimed(1, 2, "FIVE_ACES"))
    before = counts(engine)
    with pytest.raises(error):
        floor.pay(hit_ids(engine)[0], bad_cards, swipe(SUP))
    assert counts(engine) == before


@pytest.mark.parametrize("card, outcome", [
    ("4999999999999999", "unknown_card"),
    (SUP, "insufficient_authority"),  # the 50% pay is over the executive threshold
    (ACC, "insufficient_authority"),
    (GONE, "inactive"),
    (None, "bad_read"),
    ("49999999999999\u0669\u0669", "bad_read"),  # Arabic-Indic digits: not a card track
])
def test_refused_swipe_changes_nothing_but_the_swipe_log(floor: Floor, engine: Engine,
                                                         card: str | None,
                                                         outcome: str) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {2: 100}))
    t1.send(HitClaimed(1, 2, "RF_ROYAL_MATCH"))
    (hit,) = hit_ids(engine)
    assert floor.evaluate(hit, HANDS["RF_ROYAL_MATCH"].split()).required_role == "executive"
    before = counts(engine)
    raw = swipe(card) if card else "%E?;E?"
    with pytest.raises(AuthError) as exc:
        floor.pay(hit, HANDS["RF_ROYAL_MATCH"].split(), raw)
    if card:
        assert card not in str(exc.value)
    after = counts(engine)
    assert after.pop("swipe_log") == before.pop("swipe_log") + 1
    assert after == before
    with Session(engine) as s:
        (entry,) = s.scalars(select(SwipeLog))
        assert (entry.outcome, entry.hit_id, entry.role_required) == (outcome, hit, "executive")
        assert (entry.employee_id is None) == (outcome in ("unknown_card", "bad_read"))


def test_event_for_an_unconfigured_table_is_refused(floor: Floor, engine: Engine) -> None:
    before = counts(engine)
    with pytest.raises(FloorError, match="table T9: not configured"):
        floor.handle(Origin("T9", "b", 1), GameStarted(1, {1: 100}))
    assert counts(engine) == {**before, "refused_events": 1}  # only the refusal is kept


def test_offline_table_has_its_progressive_locked(floor: Floor, engine: Engine) -> None:
    floor.set_link("T2", False)
    before = counts(engine)
    with pytest.raises(FloorError, match="table T2 is OFFLINE"):
        floor.handle(Origin("T2", "b", 1), GameStarted(1, {1: 100}))
    assert counts(engine) == {**before, "refused_events": 1}  # only the refusal is kept
    floor.set_link("T2", True)
    assert floor.handle(Origin("T2", "b", 2), GameStarted(1, {1: 100}))


def test_manual_adjustment_needs_an_executive_and_a_second_person(floor: Floor,
                                                                  engine: Engine) -> None:
    before = counts(engine)
    with pytest.raises(AuthError, match="another person") as same:
        floor.adjust("LINK", "MAIN", 100, "fix", swipe(EXE), swipe(EXE))
    assert same.value.outcome == "same_person"
    after = counts(engine)
    # nothing changes but the swipe log: one row, the refusal, with its reason
    assert after["swipe_log"] == before["swipe_log"] + 1
    assert {k: v for k, v in after.items() if k != "swipe_log"} == \
        {k: v for k, v in before.items() if k != "swipe_log"}
    with Session(engine) as s:
        last = s.scalars(select(SwipeLog).order_by(SwipeLog.id.desc())).first()
    assert last is not None and last.outcome == "same_person"
    assert "another person" in (last.reason or "") and last.card_mac is not None
    with pytest.raises(AuthError):
        floor.adjust("LINK", "MAIN", 100, "fix", swipe(SUP), swipe(EXE))
    with pytest.raises(FloorError, match="negative"):
        floor.adjust("LINK", "MAIN", -2_000_000, "too much", swipe(EXE), swipe(EXE2))
    m0, _ = meter_units(engine)
    floor.adjust("LINK", "MAIN", -150, "count correction", swipe(EXE), swipe(SUP))
    assert meter_units(engine)[0] == m0 - 150 * UNITS
    with Session(engine) as s:
        (adj,) = s.scalars(select(MeterEntry).where(MeterEntry.kind == "adjustment"))
        assert adj.employee_id != adj.second_employee_id and adj.reason == "count correction"


def test_meter_history_is_the_running_sum_of_entries(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    t1.send(HitClaimed(1, 2, "SF7_NATURAL"))
    floor.pay(hit_ids(engine)[0], HANDS["SF7_NATURAL"].split(), swipe(EXE))
    history = floor.meter_history("LINK", "MAIN")
    assert history[-1][1] == meter_units(engine)[0]
    assert history[0][1] == 1_000_000 * UNITS
    assert [t for t, _ in history] == sorted(t for t, _ in history)
    (marker,) = floor.hit_markers("LINK", "MAIN")
    assert marker.seat == 2 and marker.hand == "SF7_NATURAL"


def test_paid_hit_can_not_be_paid_or_rejected_again(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "FIVE_ACES"))
    (hit,) = hit_ids(engine)
    floor.pay(hit, HANDS["FIVE_ACES"].split(), swipe(SUP))
    before = counts(engine)
    with pytest.raises(FloorError, match="already paid"):
        floor.pay(hit, HANDS["FIVE_ACES"].split(), swipe(SUP))
    with pytest.raises(FloorError, match="already paid"):
        floor.reject(hit, "oops", swipe(SUP))
    only_refusals_logged(engine, before, "already paid", "already paid")
    before = counts(engine)
    with pytest.raises(FloorError, match="the hit is already paid .only a manual adjustment"):
        t1.send(Undone(1, "HIT", seat=1))  # the controller can not back out a paid hit
    after = counts(engine)
    assert after.pop("refused_events") == before.pop("refused_events") + 1  # kept, refused
    assert after == before


def test_concurrent_pay_of_the_same_hit_pays_once(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    t1.send(HitClaimed(1, 2, "SF7_NATURAL"))
    (hit,) = hit_ids(engine)
    results: list[object] = []
    barrier = threading.Barrier(2, timeout=30)  # a broken barrier fails, never hangs

    def console(card: str) -> None:
        barrier.wait()
        try:
            results.append(floor.pay(hit, HANDS["SF7_NATURAL"].split(), swipe(card)))
        except FloorError as exc:
            results.append(exc)

    threads = [threading.Thread(target=console, args=(c,)) for c in (EXE, EXE2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
        assert not th.is_alive(), "a podium's decision did not return within 60 s"
    errors = [r for r in results if isinstance(r, FloorError)]
    assert len(results) == 2 and len(errors) == 1 and "already paid" in str(errors[0])
    c = counts(engine)
    assert (c["awards"], c["slips"]) == (1, 1)
    seed_plus_reserve = 1_000_000 * UNITS + 4 * UNITS
    assert meter_units(engine)[0] < seed_plus_reserve + UNITS  # reseeded once, not paid twice


def test_listener_is_told_what_changed(floor: Floor, engine: Engine) -> None:
    changes: list[FloorChange] = []
    floor.add_listener(changes.append)
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    assert changes[-1].tables == {"T1"} and ("LINK", "MAIN") in changes[-1].levels
    t1.send(HitClaimed(1, 1, "FIVE_ACES"))
    (hit,) = hit_ids(engine)
    assert changes[-1].hits == {hit}
    floor.pay(hit, HANDS["FIVE_ACES"].split(), swipe(SUP))
    (outcome,) = changes[-1].outcomes
    assert (outcome.table, outcome.seat, outcome.outcome) == ("T1", 1, "paid")
    assert changes[-1].slips == (1,)


def test_multi_level_link_contributes_to_every_level_and_pays_the_named_one(
        engine: Engine) -> None:
    """FPGPP-ML2 on the demo floor: a royal flush with royal match pays the MINOR meter."""
    if not REAL_PAYTABLES:
        pytest.skip("needs the installed FPGPP-ML2 paytable")
    from core.floorconfig import load_demo_floor

    config = load_demo_floor()
    floor = Floor(engine, config, PAYTABLES, clock=Clock(), paper=PAPER)
    floor.start()
    group = config.group_of("PG-4")
    floor.set_link("PG-4", True)
    with Session(engine) as s, s.begin():
        x1 = add_employee(s, cardkey.load(), "X1", "Exe", "executive", EXE)
        x1.pin = pin_hash(cardkey.load(), x1.id, "2468")  # the demo floor asks executives' PINs
        record_event(s, x1, "pin_set", operator="test", when=datetime.now(UTC))
    t = Table(floor, "PG-4")
    t.send(GameStarted(1, {1: 100, 2: 100}))
    levels = {lv.level: lv for lv in floor.snapshot().levels if lv.group == group.id}
    for lc in group.levels:
        exact = (Decimal(lc.seed_cents) + 200 * lc.contribution_rate) * UNITS
        assert levels[lc.name].meter_units == int(exact)
        assert levels[lc.name].reserve_units == int(200 * lc.reserve_rate * UNITS)
    t.send(HitClaimed(1, 2, "ROYAL_FLUSH"))
    (hit,) = hit_ids(engine)
    v = floor.evaluate(hit, HANDS["RF_ROYAL_MATCH"].split())
    assert (v.level, v.source, v.mismatch) == ("MINOR", "meter", False)
    paid = floor.pay(hit, HANDS["RF_ROYAL_MATCH"].split(), Credential(swipe(EXE), "2468"))
    minor = levels["MINOR"]
    assert paid.amount_cents == minor.meter_units // UNITS
    after = {lv.level: lv for lv in floor.snapshot().levels if lv.group == group.id}
    seed_minor = group.level("MINOR").seed_cents * UNITS
    assert after["MINOR"].meter_units == (seed_minor + minor.reserve_units
                                          + minor.meter_units % UNITS)
    for name in ("MEGA", "MAJOR"):
        assert after[name] == levels[name]


# --- refused events are kept (audit) ---------------------------------------------------------


def refused_rows(engine: Engine) -> list[RefusedEvent]:
    with Session(engine) as s:
        return list(s.scalars(select(RefusedEvent).order_by(RefusedEvent.id)))


def test_refused_event_is_kept_once_with_its_reason(floor: Floor, engine: Engine) -> None:
    origin = Origin("T9", "b9", 4, controller_time="2025-06-01T12:00:00Z")
    for _ in range(3):  # the controller sends it again (a lost ACK): refused, kept once
        with pytest.raises(FloorError, match="table T9: not configured"):
            floor.handle(origin, HitClaimed(7, 2, "FULL_HOUSE", cards("FULL_HOUSE")))
    (row,) = refused_rows(engine)
    assert (row.table_id, row.boot, row.seq, row.type) == ("T9", "b9", 4, "HitClaimed")
    assert row.payload == {"round_no": 7, "seat": 2, "hand": "FULL_HOUSE",
                           "cards": HANDS["FULL_HOUSE"].split()}
    assert row.controller_time == "2025-06-01T12:00:00Z"
    assert "table T9: not configured" in row.reason
    assert row.received_at.tzinfo is not None
    assert counts(engine)["controller_events"] == 0  # refused: not an accepted event


def test_refused_start_game_on_an_offline_table_is_kept_and_refused_again_when_resent(
        floor: Floor, engine: Engine) -> None:
    floor.set_link("T2", False)
    with pytest.raises(FloorError, match="OFFLINE"):
        floor.handle(Origin("T2", "b", 1), GameStarted(1, {1: 100, 3: 100}))
    with pytest.raises(FloorError, match="OFFLINE"):
        floor.handle(Origin("T2", "b", 2), GameStarted(2, {2: 100}))
    rows = refused_rows(engine)
    assert [(r.table_id, r.seq, r.type) for r in rows] == [("T2", 1, "GameStarted"),
                                                           ("T2", 2, "GameStarted")]
    assert rows[0].payload == {"round_no": 1, "wagers": {"1": 100, "3": 100}}
    assert all("OFFLINE" in r.reason for r in rows)
    floor.set_link("T2", True)
    # sent again (its ACK was lost): refused again, for the reason it was refused with, even
    # though the table is ONLINE now: a refused event never becomes accepted
    with pytest.raises(FloorError, match="OFFLINE"):
        floor.handle(Origin("T2", "b", 1), GameStarted(1, {1: 100, 3: 100}))
    assert floor.handle(Origin("T2", "b", 3), GameStarted(3, {1: 100, 3: 100})) is True
    assert len(refused_rows(engine)) == 2  # the refusal stays on record, once


def test_refused_event_is_never_updated(floor: Floor, engine: Engine) -> None:
    origin = Origin("T9", "b", 1)
    with pytest.raises(FloorError):
        floor.handle(origin, GameStarted(1, {1: 100}))
    (first,) = refused_rows(engine)
    with pytest.raises(FloorError):  # same origin, other content: the first record stands
        floor.handle(origin, GameEnded(1))
    (again,) = refused_rows(engine)
    assert (again.id, again.type, again.payload, again.received_at) == (
        first.id, first.type, first.payload, first.received_at)


# --- sequence discipline and rounds by boot (issue 11) -----------------------------------------


def test_a_boot_s_events_are_taken_in_sequence_only(floor: Floor, engine: Engine) -> None:
    assert floor.handle(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    before = counts(engine)
    with pytest.raises(OutOfOrder) as info:  # seq 2 lost on the way: 3 is not taken yet
        floor.handle(Origin("T1", "b", 3), GameEnded(1))
    assert info.value.expected == 2
    assert counts(engine) == before  # not recorded, not refused: it comes again in order
    assert floor.handle(Origin("T1", "b", 2), HitClaimed(1, 1, "FULL_HOUSE"))
    assert floor.handle(Origin("T1", "b", 3), GameEnded(1))
    # another boot has its own sequence, from 1
    with pytest.raises(OutOfOrder, match="next expected is seq 1"):
        floor.handle(Origin("T1", "b2", 2), GameStarted(1, {1: 100}))


def test_a_refused_event_sent_again_is_refused_again_also_after_a_console_restart(
        floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    with pytest.raises(FloorError) as first:
        t1.send(GameStarted(1, {2: 100}))  # the round was started already
    again = make_floor(engine)  # a console restart: only the ledger remembers
    for f in (floor, again):
        with pytest.raises(FloorError) as info:
            f.handle(Origin("T1", "boot1", 2), GameStarted(1, {2: 100}))
        assert str(info.value) == str(first.value)  # the same reason, word for word
    assert len(refused_rows(engine)) == 1
    # an accepted event sent again stays accepted
    assert again.handle(Origin("T1", "boot1", 1), GameStarted(1, {1: 100})) is False


def test_an_event_below_the_next_expected_that_the_ledger_never_had_is_refused(
        floor: Floor, engine: Engine) -> None:
    assert floor.handle(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    assert floor.handle(Origin("T1", "b", 2), SequenceGap(2, 5))  # 2..5 acknowledged elsewhere
    with pytest.raises(FloorError, match="out of order"):
        floor.handle(Origin("T1", "b", 4), GameEnded(1))
    assert floor.handle(Origin("T1", "b", 6), GameEnded(1))
    with Session(engine) as s:
        rows = list(s.scalars(select(ControllerEventRow).order_by(ControllerEventRow.id)))
    assert [(r.seq, r.type, r.payload) for r in rows][1] == (5, "SequenceGap",
                                                              {"first": 2, "last": 5})
    with pytest.raises(OutOfOrder):  # a gap must start at the next expected seq
        floor.handle(Origin("T1", "b", 9), SequenceGap(8, 9))


@pytest.mark.parametrize(("events", "refused", "named"), [
    ([], Misdealt(1), "MISDEAL round 1: round 1 was never started under controller "
                                 "boot boot1"),
    ([GameStarted(1, {1: 100}), GameEnded(1)], GameEnded(1),
     "END GAME round 1: round 1 is already ended"),
    ([GameStarted(1, {1: 100}), GameEnded(1)], Misdealt(1),
     "MISDEAL round 1: round 1 is already ended"),
    ([GameStarted(1, {1: 100}), Undone(1, "START_GAME")], GameEnded(1),
     "END GAME round 1: round 1 is already undone"),
    ([GameStarted(1, {1: 100})], GameStarted(1, {1: 100}),
     "START GAME round 1: round 1 was already started under controller boot boot1"),
    ([GameStarted(1, {1: 100})], Undone(1, "HIT", seat=2), "UNDO HIT round 1 seat 2: no hit"),
    ([GameStarted(1, {1: 100}), GameEnded(1)], Undone(1, "START_GAME"),
     "UNDO START GAME round 1: round 1 is already ended"),
])
def test_an_event_on_a_round_in_the_wrong_state_is_refused_by_name_and_kept(
        floor: Floor, engine: Engine, events: list[Any], refused: Any, named: str) -> None:
    t1 = Table(floor, "T1")
    for e in events:
        t1.send(e)
    before = counts(engine)
    kept = meter_units(engine)
    with pytest.raises(FloorError, match=named):
        t1.send(refused)
    after = counts(engine)
    assert after.pop("refused_events") == before.pop("refused_events") + 1
    assert after == before and meter_units(engine) == kept
    (row,) = refused_rows(engine)
    assert (row.seq, row.type) == (t1.seq, type(refused).__name__)
    assert row.reason.startswith(named)


def test_rounds_are_found_by_boot_a_restarted_controller_never_reaches_an_earlier_round(
        floor: Floor, engine: Engine) -> None:
    old, new = Table(floor, "T1", "boot1"), Table(floor, "T1", "boot2")
    old.send(GameStarted(1, {1: 100, 2: 100}))
    old.send(GameEnded(1))
    kept = meter_units(engine)
    # the restarted controller numbers its rounds from 1 again: its MISDEAL of round 1 is
    # not the ended round of the first boot
    with pytest.raises(FloorError, match="never started under controller boot boot2"):
        new.send(Misdealt(1))
    assert meter_units(engine) == kept
    new.send(GameStarted(1, {3: 100}))
    new.send(Misdealt(1))  # voids its own round 1 only
    with Session(engine) as s:
        assert [(r.boot, r.round_no, r.state) for r in s.scalars(
            select(Round).order_by(Round.id))] == [("boot1", 1, "ended"), ("boot2", 1, "misdealt")]
    assert meter_units(engine) == kept


def test_a_hit_on_an_ended_round_is_recorded_flagged_for_a_reject(floor: Floor,
                                                                  engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(GameEnded(1))
    t1.send(HitClaimed(1, 1, "FIVE_ACES", cards("FIVE_ACES")))
    (hit,) = floor.snapshot().pending
    assert "round 1 had already ended (END GAME)" in hit.flags
    with pytest.raises(FloorError):
        floor.pay(hit.hit_id, HANDS["FIVE_ACES"].split(), swipe(EXE))


def test_an_event_beyond_the_bounds_is_refused_and_kept_never_jams(floor: Floor,
                                                                   engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    with pytest.raises(FloorError, match="round 9223372036854775808 is out of range"):
        t1.send(GameEnded(2**63))
    with pytest.raises(FloorError, match="wager 9223372036854775808 is out of range"):
        t1.send(GameStarted(2, {1: 2**63}))
    t1.send(GameEnded(1))  # the events behind them are taken
    assert [r.seq for r in refused_rows(engine)] == [2, 3]
    assert refused_rows(engine)[0].payload == {"round_no": 2**63}


def test_a_refusal_the_link_made_is_kept_with_what_was_sent(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    with pytest.raises(FloorError, match="seat 9 does not exist"):
        t1.send(Refused("seat 9 does not exist at table T1 (6 seats)", HitClaimed(1, 9, "FLUSH")))
    with pytest.raises(FloorError, match="malformed event"):
        t1.send(Refused("malformed event: HIT.round: out of range", None, "HIT",
                        {"round": str(2**63), "seat": 1}))
    with pytest.raises(FloorError, match="malformed event: EVENT.seq"):  # its seq unusable
        floor.handle(Origin("T1", "boot1", 0), Refused("malformed event: EVENT.seq: ...", None,
                                                       "GAME_ENDED", {"seq": str(2**63)}))
    rows = refused_rows(engine)
    assert [(r.seq, r.type) for r in rows] == [(2, "HitClaimed"), (3, "HitClaimed"),
                                               (0, "GameEnded")]
    assert rows[1].payload == {"round": str(2**63), "seat": 1}
    t1.send(GameEnded(1))  # and the sequence goes on


# --- bounded meter history -------------------------------------------------------------------


def _full_history(engine: Engine, group: str = "LINK") -> list[tuple[datetime, int]]:
    """The meter after every entry, recomputed here from every row (the definition)."""
    with Session(engine) as s:
        rows = s.execute(select(MeterEntry.created_at, MeterEntry.meter_delta)
                         .join(Level, Level.id == MeterEntry.level_id)
                         .where(Level.group_id == group, Level.name == "MAIN")
                         .order_by(MeterEntry.id)).all()
    out, total = [], 0
    for at, delta in rows:
        total += int(delta)
        out.append((at, total))
    return out


def _busy_link(floor: Floor, engine: Engine) -> None:
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    for rnd in range(1, 6):
        t1.send(GameStarted(rnd, {1: 100, 2: 100, 5: 100}))
        t2.send(GameStarted(rnd, {3: 100}))
        if rnd == 2:
            t1.send(HitClaimed(rnd, 5, "RF_ROYAL_MATCH"))
            floor.pay(hit_ids(engine)[-1], HANDS["RF_ROYAL_MATCH"].split(), swipe(EXE))
        if rnd == 4:
            t2.send(Misdealt(rnd))  # reversal entries
            t1.send(HitClaimed(rnd, 1, "SF7_NATURAL"))
            floor.pay(hit_ids(engine)[-1], HANDS["SF7_NATURAL"].split(), swipe(EXE))
        t1.send(GameEnded(rnd))
        if rnd != 4:  # a misdealt round is not ended
            t2.send(GameEnded(rnd))


def test_meter_history_window_keeps_true_running_totals(floor: Floor, engine: Engine) -> None:
    _busy_link(floor, engine)
    full = _full_history(engine)
    assert floor.meter_history("LINK", "MAIN") == full
    times = sorted({at for at, _ in full})
    for since in (None, times[0], times[1], times[len(times) // 2], times[-1],
                  times[-1] + timedelta(seconds=1)):
        for limit in (None, 1, 2, 7, len(full), len(full) + 5):
            want = [p for p in full if since is None or p[0] >= since]
            if limit is not None:
                want = want[-limit:]
            got = floor.meter_history("LINK", "MAIN", since=since, limit=limit)
            assert got == want, (since, limit)
    # the first point of a window is the true meter then, not a sum of the window alone
    (last,) = floor.meter_history("LINK", "MAIN", limit=1)
    assert last[1] == meter_units(engine)[0]


def test_hit_markers_window_is_the_tail_of_the_full_list(floor: Floor, engine: Engine) -> None:
    _busy_link(floor, engine)
    full = floor.hit_markers("LINK", "MAIN")
    assert [(m.seat, m.hand) for m in full] == [(5, "RF_ROYAL_MATCH"), (1, "SF7_NATURAL")]
    assert floor.hit_markers("LINK", "MAIN", limit=1) == full[-1:]
    assert floor.hit_markers("LINK", "MAIN", limit=5) == full
    assert floor.hit_markers("LINK", "MAIN", since=full[1].at) == full[1:]
    assert floor.hit_markers("LINK", "MAIN", since=full[0].at, limit=1) == full[1:]
    assert floor.hit_markers("LINK", "MAIN", since=full[1].at + timedelta(seconds=1)) == []


def test_meter_history_window_is_checked(floor: Floor) -> None:
    with pytest.raises(FloorError, match="naive"):
        floor.meter_history("LINK", "MAIN", since=datetime(2025, 6, 1, 12))
    for bad in (0, -3, True):
        with pytest.raises(FloorError, match="limit"):
            floor.meter_history("LINK", "MAIN", limit=bad)
        with pytest.raises(FloorError, match="limit"):
            floor.hit_markers("LINK", "MAIN", limit=bad)


# --- decisions a controller still waits for --------------------------------------------------


def test_decided_hits_are_awaited_until_the_round_ends(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {2: 100, 4: 100}))
    t1.send(HitClaimed(1, 4, "FIVE_ACES"))  # seq 2
    t1.send(HitClaimed(1, 2, "SF7_NATURAL"))  # seq 3
    paid_id, rejected_id = hit_ids(engine)
    assert floor.controller_decision(paid_id) is None  # pending: nothing to tell yet
    assert floor.awaited_decisions("T1") == []
    paid = floor.pay(paid_id, HANDS["FIVE_ACES"].split(), swipe(SUP))
    floor.reject(rejected_id, "dealer pressed the wrong seat", swipe(EXE))  # a 50% claim
    got = floor.awaited_decisions("T1")
    assert [(d.hit_id, d.outcome, d.hit_ref, d.round_no, d.seat, d.amount_cents) for d in got] \
        == [(paid_id, "paid", "boot1:2", 1, 4, paid.amount_cents),
            (rejected_id, "rejected", "boot1:3", 1, 2, 0)]
    assert got[1].reason == "dealer pressed the wrong seat"
    assert floor.controller_decision(paid_id) == got[0]
    assert floor.awaited_decisions("T2") == []
    t1.send(GameEnded(1))
    assert floor.awaited_decisions("T1") == []  # END GAME: the controller had them all
    assert floor.controller_decision(paid_id) == got[0]


def test_misdeal_undo_or_a_later_round_closes_the_wait(floor: Floor, engine: Engine) -> None:
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "FIVE_ACES"))
    floor.pay(hit_ids(engine)[-1], HANDS["FIVE_ACES"].split(), swipe(SUP))
    assert len(floor.awaited_decisions("T1")) == 1
    t1.send(Misdealt(1))  # a paid hit stays paid, but the round is over at the table
    assert floor.awaited_decisions("T1") == []

    t1.send(GameStarted(2, {1: 100}))
    t1.send(HitClaimed(2, 1, "FIVE_ACES"))
    floor.pay(hit_ids(engine)[-1], HANDS["FIVE_ACES"].split(), swipe(SUP))
    assert len(floor.awaited_decisions("T1")) == 1
    t1.send(GameStarted(3, {1: 100}))  # END GAME of round 2 never arrived; round 3 began
    assert floor.awaited_decisions("T1") == []

    t1.send(HitClaimed(9, 1, "FIVE_ACES"))  # a round that never started: can only be rejected
    floor.reject(hit_ids(engine)[-1], "no such round", swipe(SUP))
    (orphan,) = floor.awaited_decisions("T1")
    assert (orphan.round_no, orphan.outcome) == (9, "rejected")
    t1.send(GameEnded(3))
    assert floor.awaited_decisions("T1") == []


def test_auto_paid_hit_is_awaited_like_a_pay(floor: Floor, engine: Engine) -> None:
    if pay_of("FULL_HOUSE").secondary_verification:
        pytest.skip("this paytable asks secondary verification for a full house")
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {4: 100}))
    t1.send(HitClaimed(1, 4, "FULL_HOUSE", cards("FULL_HOUSE")))
    (d,) = floor.awaited_decisions("T1")
    assert (d.outcome, d.amount_cents) == ("auto_paid", PAYTABLES["FPGPP-WA01"].fixed_cents(
        pay_of("FULL_HOUSE"), 100))
