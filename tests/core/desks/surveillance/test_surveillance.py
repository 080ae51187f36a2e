"""Surveillance's hit timeline and flags (core/desks/surveillance/), and ``podium report
timeline`` / ``podium report flags``, on SQLite and PostgreSQL.

A ledger of known rounds is made through the real floor API (``Floor.handle`` with controller
events, ``Floor.pay`` / ``reject`` / ``adjust`` with swipes, print records), on a clock the
test sets to the millisecond; the casino is in Asia/Manila (UTC+8), so every time shown must
carry +08:00.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.controllers.events import GameEnded, GameStarted, HitClaimed, Misdealt, Origin
from core.desks.accounting.periods import gaming_day
from core.desks.desk import Desk, open_desk
from core.desks.surveillance import flags as sflags
from core.desks.surveillance.flags import Code, upper_tail
from core.desks.surveillance.hits import hits_to_look_at
from core.desks.surveillance.text import ms_text
from core.desks.surveillance.timeline import UnknownHit, timeline
from core.floorconfig import loads_floor
from core.kernel.cards import parse_cards
from core.ledger.models import Employee, Slip, SlipVoid
from core.people import cardkey
from core.people.auth import AuthError, add_employee
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from core.tablegames.views import FloorError
from printing.escpos.slip import PAPER
from tests.floors import Group, Level, floor_toml, table

PAYTABLES = load_paytables()

FLOOR = floor_toml("Surveillance Test Casino",
                   groups=[Group(levels={"MAIN": Level(preconfigured_seed="10000",
                                                       preconfigured_rate="0.200")})],
                   tables=[table("T1", 17301), table("T2", 17302)])

SUP, EXE, EXE2, ACC = ("5000000000000001", "5000000000000002", "5000000000000003",
                       "5000000000000004")
HANDS = {
    "SF7_NATURAL": "Ah Kh Qh Jh Th 9h 8h",
    "RF_ROYAL_MATCH": "As Ks Qs Js Ts Kd Qd",
    "FOUR_OF_A_KIND": "As Ad Ac Ah 2c 3h 5d",
    "FOUR_KINGS": "Ks Kd Kc Kh 2c 3h 5d",
    "FULL_HOUSE": "Ks Kd Kc 4s 4d 2c 9h",
}
T0 = datetime(2026, 12, 2, 1, 0, 0, tzinfo=UTC)  # 09:00 in Manila, gaming day 2026-12-02


def swipe(card: str) -> str:
    return f"%B{card}^TEST/CARD^2912101?;{card}=2912101?"


def cards(hand: str) -> tuple[Any, ...]:
    return parse_cards(HANDS[hand].split())


class Clock:
    """Ledger time: each call moves on 137 ms; the test jumps it with :meth:`at`."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=137)
        return self.now

    def at(self, when: datetime) -> None:
        self.now = when


class Table:
    def __init__(self, floor: Floor, table: str, boot: str = "b1") -> None:
        self.floor, self.table, self.boot, self.seq = floor, table, boot, 0

    def send(self, event: Any) -> bool:
        self.seq += 1
        return self.floor.handle(Origin(self.table, self.boot, self.seq,
                                        "2026-12-02T01:00:00Z"), event)


@dataclass
class Ledger:
    engine: Engine
    floor: Floor
    desk: Desk
    clock: Clock
    hits: dict[str, int]


def _hit_ids(engine: Engine) -> list[int]:
    with engine.connect() as c:
        return [r[0] for r in c.exec_driver_sql("SELECT id FROM hits ORDER BY id")]


def _slip_of(engine: Engine, hit_id: int) -> Slip:
    with Session(engine) as s:
        slip = s.query(Slip).filter(Slip.hit_id == hit_id).one()
        s.expunge(slip)
        return slip


def build(engine: Engine, extra: str = "") -> Ledger:
    """The known rounds:

    - ``corrected`` T1 round 1, 09:00: seat 3 claims five aces, the cards make four of a kind;
      an accountant's card is refused, the supervisor corrects the claim and pays 75.00 alone;
      the slip prints 5 s later and again an hour later; an END GAME sent twice (the second
      refused); later an executive voids the slip.
    - ``near`` T1 round 2, 11:00: 20 min before, two executives take the meter down to
      9,800.00; seat 1's royal match pays 50% = 4,900.xx (within 5% below 5,000.00), paid by
      the supervisor alone; the slip prints 10 min later.
    - ``auto`` T2 round 1, 11:30: a full house with the table's cards, auto-paid; never printed.
    - ``rejected`` T2 round 2: a natural 7-card straight flush claimed on a seat with no wager,
      rejected by the supervisor.
    - ``cancelled`` T2 round 3: a four of a kind claimed, then MISDEAL.
    - ``second4k`` T1 round 3, 12:00: a second four of a kind at T1 in 5 wagered hands (paid by
      the executive X1 with X2 verifying: two people).
    - ``pending`` T1 round 4: a straight-flush claim waiting.
    """
    clock = Clock()
    config = loads_floor(FLOOR + extra, "surveillance-test.toml")
    floor = Floor(engine, config, PAYTABLES, clock=clock, paper=PAPER)
    floor.start()
    for t in ("T1", "T2"):
        floor.set_link(t, True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "S1", "Sue Visor", "supervisor", SUP)
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
        add_employee(s, cardkey.load(), "X2", "Ex Two", "executive", EXE2)
        add_employee(s, cardkey.load(), "A1", "Acc Ountant", "accountant", ACC)
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    hits: dict[str, int] = {}

    clock.at(T0)
    t1.send(GameStarted(1, {2: 100, 3: 100}))
    t1.send(HitClaimed(1, 3, "FIVE_ACES", cards("FOUR_OF_A_KIND")))
    hits["corrected"] = _hit_ids(engine)[-1]
    with pytest.raises(AuthError):
        floor.pay(hits["corrected"], HANDS["FOUR_OF_A_KIND"].split(), swipe(ACC),
                  correct_claim=True)
    floor.pay(hits["corrected"], HANDS["FOUR_OF_A_KIND"].split(), swipe(SUP),
              correct_claim=True)
    paid_at = clock.now
    slip = _slip_of(engine, hits["corrected"]).slip_no
    clock.at(paid_at + timedelta(seconds=5))
    started = floor.record_print_started(slip, "10.0.0.50:9100", "", 900)
    floor.record_print_outcome(started, True)
    t1.send(GameEnded(1))
    with pytest.raises(FloorError, match="already ended"):
        t1.send(GameEnded(1))
    clock.at(paid_at + timedelta(hours=1))
    started = floor.record_print_started(slip, "10.0.0.50:9100", "reprint", 950)
    floor.record_print_outcome(started, True)

    clock.at(T0 + timedelta(hours=1, minutes=40))
    floor.adjust("LINK", "MAIN", -(floor.meter("LINK", "MAIN").meter_units // 1_000_000
                                   - 980_000), "meter test", swipe(EXE), swipe(EXE2))
    clock.at(T0 + timedelta(hours=2))
    t1.send(GameStarted(2, {1: 100}))
    t1.send(HitClaimed(2, 1, "RF_ROYAL_MATCH", cards("RF_ROYAL_MATCH")))
    hits["near"] = _hit_ids(engine)[-1]
    floor.pay(hits["near"], HANDS["RF_ROYAL_MATCH"].split(), swipe(SUP))
    slip = _slip_of(engine, hits["near"]).slip_no
    clock.at(clock.now + timedelta(minutes=10))
    floor.record_print(slip, "10.0.0.50:9100", True)
    t1.send(GameEnded(2))

    clock.at(T0 + timedelta(hours=2, minutes=30))
    t2.send(GameStarted(1, {4: 100}))
    t2.send(HitClaimed(1, 4, "FULL_HOUSE", cards("FULL_HOUSE")))
    hits["auto"] = _hit_ids(engine)[-1]
    t2.send(GameEnded(1))
    t2.send(GameStarted(2, {1: 100}))
    t2.send(HitClaimed(2, 5, "SF7_NATURAL"))
    hits["rejected"] = _hit_ids(engine)[-1]
    floor.reject(hits["rejected"], "no wager on the seat", swipe(SUP))
    t2.send(GameEnded(2))
    t2.send(GameStarted(3, {2: 100}))
    t2.send(HitClaimed(3, 2, "FOUR_OF_A_KIND"))
    hits["cancelled"] = _hit_ids(engine)[-1]
    t2.send(Misdealt(3))

    clock.at(T0 + timedelta(hours=3))
    t1.send(GameStarted(3, {4: 100, 5: 100}))
    t1.send(HitClaimed(3, 4, "FOUR_OF_A_KIND", cards("FOUR_KINGS")))
    hits["second4k"] = _hit_ids(engine)[-1]
    floor.pay(hits["second4k"], HANDS["FOUR_KINGS"].split(), swipe(EXE), verifier=swipe(EXE2))
    t1.send(GameEnded(3))
    t1.send(GameStarted(4, {6: 100}))
    t1.send(HitClaimed(4, 6, "STRAIGHT_FLUSH"))
    hits["pending"] = _hit_ids(engine)[-1]

    # an executive voids the first slip (no floor step writes a void yet: the row as the
    # void workflow will)
    clock.at(T0 + timedelta(hours=4))
    slip_row = _slip_of(engine, hits["corrected"])
    with Session(engine) as s, s.begin():
        x1 = s.scalar(select(Employee.id).where(Employee.number == "X1"))
        s.add(SlipVoid(slip_id=slip_row.id, employee_id=x1, reason="printed on the wrong "
                       "table's slip", money_returned=False, created_at=clock()))
    desk = open_desk("surveillance", config, _url(engine), PAYTABLES, "Vic Watcher #V1")
    return Ledger(engine, floor, desk, clock, hits)


@pytest.fixture
def ledger(engine: Engine) -> Ledger:
    return build(engine)


NOW = T0 + timedelta(hours=5)


def codes(flags: Any) -> set[str]:
    return {str(f.code) for f in flags}


# --- the pure parts ---------------------------------------------------------------------------

def _exact_tail(k: int, n: int, p: Fraction) -> Fraction:
    return 1 - sum((Fraction(comb(n, i)) * p**i * (1 - p) ** (n - i) for i in range(k)),
                   Fraction(0))


@pytest.mark.parametrize("k, n, p", [
    (1, 5, Fraction(307_472, 154_143_080)), (2, 5, Fraction(307_472, 154_143_080)),
    (3, 40, Fraction(1, 50)), (0, 10, Fraction(1, 3)), (4, 10, Fraction(1, 3)),
    (2, 10, Fraction(1, 3)), (10, 10, Fraction(1, 3)), (11, 10, Fraction(1, 3)),
    (5, 300, Fraction(72, 154_143_080)), (40, 1000, Fraction(1, 50)),
])
def test_binomial_upper_tail_matches_the_exact_sum(k: int, n: int, p: Fraction) -> None:
    exact = float(_exact_tail(k, n, p)) if k <= n else 0.0
    got = upper_tail(k, n, p)
    assert got == pytest.approx(exact, rel=1e-9, abs=1e-300)


def test_binomial_upper_tail_of_a_big_table_is_a_small_probability() -> None:
    # 130,000 hands, a natural 7-card straight flush (32 in C(53,7)): one hit is ordinary,
    # three are not
    p = Fraction(32, 154_143_080)
    assert upper_tail(1, 130_000, p) == pytest.approx(1 - (1 - float(p)) ** 130_000, rel=1e-9)
    assert upper_tail(3, 130_000, p) < 1e-5


# --- the timeline -----------------------------------------------------------------------------

def test_a_corrected_paid_hit_timeline_in_order_to_the_millisecond(ledger: Ledger) -> None:
    tl = timeline(ledger.desk, ledger.hits["corrected"], now=NOW)
    rows = [(e.source, e.what) for e in tl.events]
    assert rows == [
        ("controller", "START GAME round 1"),
        ("controller", "HIT JACKPOT round 1 seat 3"),
        ("decision", "mismatch flagged"),
        ("swipe", "swipe REFUSED: pay"),
        ("swipe", "swipe accepted: pay"),
        ("decision", "claim corrected"),
        ("decision", "verified"),
        ("award", "award 75.00"),
        ("decision", "paid"),
        ("slip", "slip 000001 made"),
        ("print", "print of slip 000001 started"),
        ("print", "slip 000001 printed (confirmed)"),
        ("controller", "END GAME round 1"),
        ("refused frame", "refused: END GAME round 1"),
        ("print", "print of slip 000001 started"),
        ("print", "slip 000001 printed (confirmed)"),
        ("void", "slip 000001 VOIDED"),
    ]
    times = [e.at for e in tl.events]
    assert times == sorted(times)
    # the casino's time zone, to the millisecond
    first = tl.events[0]
    assert first.at.utcoffset() == timedelta(hours=8)
    assert first.time_text == "2026-12-02 09:00:00.137 +08:00"
    assert ms_text(tl.events[1].at) == "2026-12-02 09:00:00.274 +08:00"
    assert tl.events[2].who is None and tl.events[2].flag == "CLAIM_MISMATCH"
    refused = tl.events[3]
    assert refused.who is not None and refused.who.number == "A1"
    assert refused.who.role == "accountant" and "supervisor" in refused.detail
    accepted = tl.events[4]
    assert (accepted.who.number, accepted.who.name, accepted.who.role) == (  # type: ignore[union-attr]
        "S1", "Sue Visor", "supervisor")
    assert "already ended" in tl.events[13].detail
    assert "REPRINT" in tl.events[14].detail
    void = tl.events[-1]
    assert void.who.number == "X1" and "wrong table" in void.detail  # type: ignore[union-attr]
    # the cards beside the claim
    assert tl.cards.claimed == "FIVE_ACES"
    assert tl.cards.table_makes == "FOUR_OF_A_KIND" and tl.cards.verified_makes == "FOUR_OF_A_KIND"
    assert tl.cards.paid_hand == "FOUR_OF_A_KIND" and tl.cards.mismatch
    assert not tl.cards.cards_changed
    assert (tl.line.status, tl.line.amount_cents, tl.slip_nos) == ("paid", 7500, (1,))
    # flags: raised, with the facts in their sentence
    assert codes(tl.flags) == {"CLAIM_MISMATCH", "SAME_PERSON", "REPRINTED", "VOIDED"}
    by = {f.code: f for f in tl.flags}
    assert "claimed five aces" in by[Code.CLAIM_MISMATCH].sentence
    assert "make four of a kind" in by[Code.CLAIM_MISMATCH].sentence
    assert "Sue Visor #S1 (supervisor)" in by[Code.SAME_PERSON].sentence
    assert "printed 2 times" in by[Code.REPRINTED].sentence
    assert "Exe Cutive #X1" in by[Code.VOIDED].sentence
    # the rows that are evidence of a flag say which
    assert {e.flag for e in tl.events} >= {"CLAIM_MISMATCH", "REPRINTED", "VOIDED"}


def test_near_threshold_adjustment_same_person_late_print_and_rate(ledger: Ledger) -> None:
    tl = timeline(ledger.desk, ledger.hits["near"], now=NOW)
    assert 490_000 <= (tl.line.amount_cents or 0) < 500_000
    assert codes(tl.flags) == {"NEAR_THRESHOLD", "ADJUSTMENT_NEAR", "SAME_PERSON",
                               "PRINT_DELAY", "HIT_RATE"}
    by = {f.code: f for f in tl.flags}
    assert "below the executive threshold of 5,000.00" in by[Code.NEAR_THRESHOLD].sentence
    assert by[Code.NEAR_THRESHOLD].facts["threshold"] == "5000.00"
    adj = by[Code.ADJUSTMENT_NEAR].sentence
    assert "20 min before the hit" in adj and "Exe Cutive #X1" in adj and "Ex Two #X2" in adj
    assert "10.0 min after the pay" in by[Code.PRINT_DELAY].sentence
    rate = by[Code.HIT_RATE]
    assert rate.facts["hits"] == 1 and rate.facts["hands"] == 3  # T1: 2 + 1 wagered hands
    assert Fraction(rate.facts["probability"]) == Fraction(72, 154_143_080)
    assert float(rate.facts["tail"]) == pytest.approx(
        float(_exact_tail(1, 3, Fraction(72, 154_143_080))), rel=1e-8)
    assert [e.source for e in tl.events if e.source == "adjustment"] == ["adjustment"]
    award = next(e for e in tl.events if e.source == "award")
    assert award.flag in ("NEAR_THRESHOLD", "SAME_PERSON")
    meter = [e for e in tl.events if e.source == "meter"]
    assert meter and all("LINK/MAIN" in e.detail for e in meter)


def test_flags_not_raised_when_the_facts_are_not_there(ledger: Ledger) -> None:
    auto = timeline(ledger.desk, ledger.hits["auto"], now=NOW)
    # auto-paid: nobody verified or authorized, 6.00 is far from the threshold, a full house
    # in 4 wagered hands is ordinary (p ~ 0.027); but its slip never printed
    assert codes(auto.flags) == {"PRINT_DELAY"}
    assert "no confirmed print" in auto.flags[0].sentence
    assert [e.what for e in auto.events if e.source == "decision"] == ["auto paid"]
    # not late yet: read a minute after the pay
    early = timeline(ledger.desk, ledger.hits["auto"],
                     now=T0 + timedelta(hours=2, minutes=31))
    assert early.flags == ()
    # two people: X1 authorized, X2 verified -> no SAME_PERSON; the second four of a kind at
    # T1 in 6 wagered hands (the whole hours up to the end of the hit's hour: round 4's wager
    # too) IS improbable (HIT_RATE), the first was not
    second = timeline(ledger.desk, ledger.hits["second4k"], now=NOW)
    assert "SAME_PERSON" not in codes(second.flags)
    assert "HIT_RATE" in codes(second.flags)
    rate = next(f for f in second.flags if f.code is Code.HIT_RATE)
    assert (rate.facts["hits"], rate.facts["hands"]) == (2, 6)
    assert "2 hit(s) of four of a kind in 6 wagered hands" in rate.sentence
    first = timeline(ledger.desk, ledger.hits["corrected"], now=NOW)
    assert "HIT_RATE" not in codes(first.flags)
    assert "PRINT_DELAY" not in codes(first.flags)  # printed 5 s after the pay
    assert "NEAR_THRESHOLD" not in codes(first.flags)  # 75.00
    assert "ADJUSTMENT_NEAR" not in codes(first.flags)  # a tray pay: no level; and 1 h 40 before


def test_a_rejected_a_cancelled_and_a_pending_hit(ledger: Ledger) -> None:
    rej = timeline(ledger.desk, ledger.hits["rejected"], now=NOW)
    # the claim was for the meter (a natural 7-card straight flush): the adjustment of MAIN
    # 50 min before it is within the hour's window
    assert rej.line.status == "rejected" and codes(rej.flags) == {"ADJUSTMENT_NEAR"}
    assert [(e.source, e.what) for e in rej.events][1:] == [
        ("controller", "START GAME round 2"), ("controller", "HIT JACKPOT round 2 seat 5"),
        ("swipe", "swipe accepted: reject"), ("decision", "rejected"),
        ("controller", "END GAME round 2")]
    adjustment = rej.events[0]
    assert adjustment.source == "adjustment" and adjustment.what.startswith("manual adjustment -")
    assert adjustment.who.number == "X1" and "Ex Two #X2" in adjustment.detail  # type: ignore[union-attr]
    assert rej.events[2].detail.startswith("claims 7-card straight flush, natural")
    assert "no cards sent" in rej.events[2].detail
    can = timeline(ledger.desk, ledger.hits["cancelled"], now=NOW)
    assert can.line.status == "cancelled"
    assert [(e.source, e.what) for e in can.events] == [
        ("controller", "START GAME round 3"), ("controller", "HIT JACKPOT round 3 seat 2"),
        ("controller", "MISDEAL round 3"), ("decision", "cancelled")]
    pend = timeline(ledger.desk, ledger.hits["pending"], now=NOW)
    assert pend.line.status == "pending"
    assert [e.what for e in pend.events] == ["START GAME round 4", "HIT JACKPOT round 4 seat 6"]
    assert pend.cards.table_cards == () and not pend.cards.mismatch


def test_an_unknown_hit_is_refused_by_name(ledger: Ledger) -> None:
    with pytest.raises(UnknownHit, match="hit H9999: no such hit"):
        timeline(ledger.desk, 9999)


def test_hits_to_look_at_in_a_gaming_day(ledger: Ledger) -> None:
    day = gaming_day(ledger.desk.config.casino, datetime(2026, 12, 2).date())
    lines = hits_to_look_at(ledger.desk, day, now=NOW)
    assert [ln.hit_id for ln in lines] == sorted(ledger.hits.values())
    flagged = hits_to_look_at(ledger.desk, day, flagged_only=True, now=NOW)
    ids = {ln.hit_id for ln in flagged}
    assert ids == {ledger.hits[k] for k in ("corrected", "near", "auto", "rejected",
                                             "second4k")}
    t2 = hits_to_look_at(ledger.desk, day, table="T2", now=NOW)
    assert {ln.table for ln in t2} == {"T2"} and len(t2) == 3
    rejected = hits_to_look_at(ledger.desk, day, status="rejected", now=NOW)
    assert [ln.hit_id for ln in rejected] == [ledger.hits["rejected"]]
    # the list's flags are the timeline's
    near = next(ln for ln in lines if ln.hit_id == ledger.hits["near"])
    assert codes(near.flags) == codes(timeline(ledger.desk, ledger.hits["near"], now=NOW).flags)
    # the day before holds none
    before = gaming_day(ledger.desk.config.casino, datetime(2026, 12, 1).date())
    assert hits_to_look_at(ledger.desk, before, now=NOW) == []


def test_settings_move_the_flags(engine: Engine) -> None:
    led = build(engine, """
[surveillance]
near_threshold_margin = "0.01"
same_person_from = "100.00"
adjustment_window_minutes = 10
hit_rate_tail = "0.000001"
print_delay_seconds = 900
""")
    near = timeline(led.desk, led.hits["near"], now=NOW)
    # 4,900.xx is 2% below: outside a 1% margin; the adjustment was 20 min before (window 10);
    # printed after 10 min (< 15); a royal match in 3 hands: tail 1.4e-6 > 1e-6; but the pay
    # is above 100.00 by one person
    assert codes(near.flags) == {"SAME_PERSON"}
    first = timeline(led.desk, led.hits["corrected"], now=NOW)
    assert "SAME_PERSON" not in codes(first.flags)  # 75.00 < 100.00


# --- the command line ---------------------------------------------------------------------------

def _url(engine: Engine) -> str:
    """The ledger's URL as a person would give it; on PostgreSQL with the test's schema."""
    url = engine.url.render_as_string(hide_password=False)
    if engine.dialect.name == "postgresql":
        with engine.connect() as c:
            schema = c.exec_driver_sql("SHOW search_path").scalar()
        url += f"?options=-csearch_path%3D{schema}"
    return url


def _floor_file(tmp_path: Path) -> str:
    p = tmp_path / "floor.toml"
    p.write_text(FLOOR, encoding="utf-8")
    return str(p)


def test_report_timeline_json_and_text(ledger: Ledger, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli.dispatch import main

    floor = _floor_file(tmp_path)
    hit = ledger.hits["near"]
    assert main(["report", "timeline", "--hit", str(hit), "--db", _url(ledger.engine),
                 "--floor", floor, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["hit"] == hit and doc["status"] == "paid"
    assert doc["amount"] == f"{doc['amount']}" and doc["amount"].count(".") == 1
    assert len(doc["amount"].split(".")[1]) == 2
    assert doc["timezone"] == "Asia/Manila"
    first = doc["events"][0]
    assert first["at"].endswith("+08:00") and len(first["at"].split(".")[1]) == 9  # .mmm+08:00
    assert datetime.fromisoformat(first["at"]).utcoffset() == timedelta(hours=8)
    assert {f["code"] for f in doc["flags"]} == {"NEAR_THRESHOLD", "ADJUSTMENT_NEAR",
                                                 "SAME_PERSON", "PRINT_DELAY", "HIT_RATE"}
    award = next(e for e in doc["events"] if e["source"] == "award")
    assert award["amount"] == doc["amount"]
    assert award["who"] == {"number": "S1", "name": "Sue Visor", "role": "supervisor"}

    assert main(["report", "timeline", "--hit", str(hit), "--db", _url(ledger.engine),
                 "--floor", floor]) == 0
    text = capsys.readouterr().out
    assert f"Hit H{hit}" in text and "NEAR_THRESHOLD" in text
    assert "+08:00" in text and "Sue Visor #S1 (supervisor)" in text


def test_report_timeline_unknown_hit_and_bad_input(ledger: Ledger, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli.dispatch import main

    floor = _floor_file(tmp_path)
    assert main(["report", "timeline", "--hit", "9999", "--db", _url(ledger.engine),
                 "--floor", floor]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "podium report timeline: hit H9999: no such hit in this ledger"
    with pytest.raises(SystemExit) as exit_:
        main(["report", "timeline", "--hit", "x", "--db", _url(ledger.engine),
              "--floor", floor])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == ("podium report timeline: argument --hit: 'x' is "
                                               "not a whole number")
    if ledger.engine.dialect.name == "postgresql":
        return
    missing = tmp_path / "none.sqlite3"
    assert main(["report", "timeline", "--hit", "1", "--db", f"sqlite:///{missing}",
                 "--floor", floor]) == 2
    assert f"no ledger at {missing}" in capsys.readouterr().err
    assert not missing.exists()
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    assert main(["report", "timeline", "--hit", "1", "--db", f"sqlite:///{empty}",
                 "--floor", floor]) == 2
    assert "is not a Podium ledger (it has no schema revision)" in capsys.readouterr().err
    import sqlite3

    with sqlite3.connect(empty) as c:  # not migrated: no table was made
        assert c.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)


def test_report_flags_lists_the_flagged_hits_of_a_day(ledger: Ledger, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli.dispatch import main

    floor = _floor_file(tmp_path)
    assert main(["report", "flags", "--day", "2026-12-02", "--db", _url(ledger.engine),
                 "--floor", floor, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["period"]["label"] == "Gaming day 2026-12-02"
    got = {h["hit"] for h in doc["hits"]}
    assert got == {ledger.hits[k] for k in ("corrected", "near", "auto", "rejected",
                                             "second4k")}
    assert all(h["flags"] for h in doc["hits"])
    assert main(["report", "flags", "--from", "2026-12-01", "--to", "2026-12-02", "--all",
                 "--db", _url(ledger.engine), "--floor", floor]) == 0
    text = capsys.readouterr().out
    assert text.count("\n") >= len(ledger.hits) and "CLAIM_MISMATCH" in text
    assert main(["report", "flags", "--start", "2026-12-02 10:00", "--end", "2026-12-02 12:00",
                 "--db", _url(ledger.engine), "--floor", floor, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [h["hit"] for h in doc["hits"]] == [ledger.hits[k] for k in ("near", "auto",
                                                                        "rejected")]
    assert main(["report", "flags", "--day", "2026-13-02", "--db", _url(ledger.engine),
                 "--floor", floor]) == 2
    assert "not a date" in capsys.readouterr().err


def test_flags_sentences_are_made_from_codes_only() -> None:
    # every code has a title; the order lists every code once
    assert set(sflags.ORDER) == set(Code) and len(sflags.ORDER) == len(Code)
    assert set(sflags.TITLES) == set(Code)


@pytest.mark.parametrize("line, problem", [
    ('near_threshold_margin = "0"', "must be more than 0 and less than 1"),
    ('near_threshold_margin = 0.05', "is a TOML float"),
    ('hit_rate_tail = "1"', "must be more than 0 and less than 1"),
    ("hit_rate_days = 0", "must be between 1 and 366"),
    ('same_person_from = "-1.00"', "same_person_from"),
    ("print_delay = 5", "unknown key (a typo?)"),
])
def test_the_surveillance_settings_are_checked(line: str, problem: str) -> None:
    from core.floorconfig import FloorConfigError

    with pytest.raises(FloorConfigError, match="surveillance") as err:
        loads_floor(FLOOR + f"[surveillance]\n{line}\n", "f.toml")
    assert problem in str(err.value)


def test_the_surveillance_defaults() -> None:
    s = loads_floor(FLOOR, "f.toml").surveillance
    assert (s.near_threshold_margin, s.same_person_from_cents, s.adjustment_window_minutes,
            s.hit_rate_tail, s.hit_rate_days, s.print_delay_seconds,
            s.refused_frames_minutes) == (Decimal("0.05"), 0, 60, Decimal("0.001"), 30, 120, 5)


def test_cards_verified_other_than_the_tables_are_flagged(ledger: Ledger) -> None:
    # T2 after a controller restart (boot b2): four aces sent by the table, four kings entered
    # by the supervisor: both four of a kind, the claim is right, the cards are not the same
    ledger.clock.at(T0 + timedelta(hours=4, minutes=30))
    t2 = Table(ledger.floor, "T2", boot="b2")
    t2.send(GameStarted(1, {3: 100}))
    t2.send(HitClaimed(1, 3, "FOUR_OF_A_KIND", cards("FOUR_OF_A_KIND")))
    hit = _hit_ids(ledger.engine)[-1]
    ledger.floor.pay(hit, HANDS["FOUR_KINGS"].split(), swipe(EXE), verifier=swipe(SUP))
    tl = timeline(ledger.desk, hit, now=NOW + timedelta(hours=1))
    assert not tl.cards.mismatch and tl.cards.cards_changed
    assert codes(tl.flags) == {"CARDS_CHANGED", "PRINT_DELAY"}
    changed = next(f for f in tl.flags if f.code is Code.CARDS_CHANGED)
    assert changed.sentence == ("the table sent As Ad Ac Ah 2c 3h 5d; the supervisor verified "
                                "Ks Kd Kc Kh 2c 3h 5d")
    assert tl.boot == "b2" and tl.events[0].what == "START GAME round 1"
    assert "b2" in tl.events[0].detail


def test_a_claim_naming_the_best_hand_is_no_mismatch() -> None:
    from core.desks.surveillance.records import CardsCheck

    # the floor's rule: the claim is right when it names the pay OR the best hand
    right = CardsCheck("FIVE_ACES", ("As",), "FOUR_OF_A_KIND", (), None, None,
                       table_best="FIVE_ACES")
    wrong = CardsCheck("ROYAL_FLUSH", ("As",), "FOUR_OF_A_KIND", (), None, None,
                       table_best="FIVE_ACES")
    assert not right.mismatch and wrong.mismatch
    assert not CardsCheck("FIVE_ACES", (), None, (), None, None).mismatch  # no cards


def test_too_many_hits_for_one_list_is_refused(ledger: Ledger) -> None:
    day = gaming_day(ledger.desk.config.casino, datetime(2026, 12, 2).date())
    with pytest.raises(FloorError, match="more than 3 hits; choose fewer days"):
        hits_to_look_at(ledger.desk, day, limit=3, now=NOW)
    assert len(hits_to_look_at(ledger.desk, day, limit=7, now=NOW)) == 7


def test_an_undone_hit_and_a_hit_on_a_round_never_started(ledger: Ledger) -> None:
    from core.controllers.events import Undone

    ledger.clock.at(T0 + timedelta(hours=4, minutes=45))
    t1 = Table(ledger.floor, "T1", boot="b3")
    t1.send(GameStarted(1, {2: 100}))
    t1.send(HitClaimed(1, 2, "ROYAL_FLUSH"))
    undone = _hit_ids(ledger.engine)[-1]
    t1.send(Undone(1, "HIT", seat=2))
    t1.send(HitClaimed(9, 1, "FULL_HOUSE"))  # round 9 was never started under boot b3
    orphan = _hit_ids(ledger.engine)[-1]
    ledger.floor.reject(orphan, "no such round", swipe(SUP))
    tl = timeline(ledger.desk, undone, now=NOW)
    assert tl.line.status == "cancelled"  # the decision says why: undone
    assert [(e.source, e.what) for e in tl.events] == [
        ("controller", "START GAME round 1"), ("controller", "HIT JACKPOT round 1 seat 2"),
        ("controller", "UNDO HIT round 1 seat 2"), ("decision", "undone")]
    tl = timeline(ledger.desk, orphan, now=NOW)
    assert tl.line.status == "rejected"
    assert [(e.source, e.what) for e in tl.events] == [
        ("controller", "HIT JACKPOT round 9 seat 1"), ("swipe", "swipe accepted: reject"),
        ("decision", "rejected")]
