"""A ledger with a known gaming day, built through the real floor (controller events, a pay by
card): for the accountant's and surveillance's plots and their screenshots.

The test floor of tests/core/tablegames/test_floor.py (Asia/Manila, gaming day from 06:00 local =
22:00 UTC the day before; LINK: MAIN seed 10,000.00, contribution 20%, reserve 2% of a $1 wager).
Gaming day 2025-06-01 runs from 2025-05-31 22:00 UTC to 2025-06-01 22:00 UTC:

| UTC              | what                                         | MAIN after (cents) |
|------------------|----------------------------------------------|--------------------|
| 05-31 20:30      | floor started: seed                          | 1,000,000          |
| 05-31 20:40      | T1 round 1, 2 wagers (before the day)        | 1,000,040          |
| 05-31 22:10      | T1 round 2, 3 wagers                         | 1,000,100          |
| 05-31 23:05      | T2 round 1, 1 wager; HIT SF7_NATURAL seat 1  | 1,000,120          |
| 05-31 23:20      | the hit paid 10,001.20; reseed 10,000 + 0.12 | 1,000,012          |
| 06-01 01:30      | T1 round 3, 4 wagers                         | 1,000,092          |
| 06-01 21:50      | T1 round 4, 1 wager                          | 1,000,112          |
| 06-01 22:10      | T1 round 5, 2 wagers (after the day)         | 1,000,152          |
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from core.controllers.events import GameStarted, HitClaimed
from core.floorconfig import loads_floor
from core.people import cardkey
from core.people.auth import add_employee
from core.tablegames.floor import Floor
from printing.escpos.slip import PAPER
from tests.core.tablegames.test_floor import (
    EXE,
    FLOOR_TOML,
    HANDS,
    PAYTABLES,
    SUP,
    Table,
    hit_ids,
    swipe,
)


class SetClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def set(self, at: datetime) -> None:
        self.now = at

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def at(day: int, hh: int, mm: int) -> datetime:
    return datetime(2025, 5 if day == 31 else 6, day, hh, mm, tzinfo=UTC)


def build_day(engine: Engine) -> Floor:
    clock = SetClock(at(31, 20, 30))
    floor = Floor(engine, loads_floor(FLOOR_TOML.format(rate="0.20"), "test.toml"), PAYTABLES,
                  clock=clock, paper=PAPER)
    floor.start()
    for t in ("T1", "T2", "L1", "L2"):
        floor.set_link(t, True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "S1", "Sue Visor", "supervisor", SUP)
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
    t1, t2 = Table(floor, "T1"), Table(floor, "T2")
    clock.set(at(31, 20, 40))
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    clock.set(at(31, 22, 10))
    t1.send(GameStarted(2, {1: 100, 2: 100, 3: 100}))
    clock.set(at(31, 23, 5))
    t2.send(GameStarted(1, {1: 100}))
    t2.send(HitClaimed(1, 1, "SF7_NATURAL"))
    clock.set(at(31, 23, 20))
    floor.pay(hit_ids(engine)[0], HANDS["SF7_NATURAL"].split(), swipe(EXE))
    clock.set(at(1, 1, 30))
    t1.send(GameStarted(3, {1: 100, 2: 100, 3: 100, 4: 100}))
    clock.set(at(1, 21, 50))
    t1.send(GameStarted(4, {1: 100}))
    clock.set(at(1, 22, 10))
    t1.send(GameStarted(5, {1: 100, 2: 100}))
    return floor


def build_busy_day(engine: Engine, seed: int = 7) -> tuple[Any, date]:
    """The demo floor's ML2 link (MEGA, MAJOR, MINOR) through gaming day 2025-06-01: a round
    every 6 minutes at each of its three tables with 1 to 6 wagers, two MINOR pays and a MAJOR
    pay (for screenshots)."""
    import random
    from dataclasses import replace

    from core.floorconfig import load_demo_floor

    rng = random.Random(seed)
    test_rules = loads_floor(FLOOR_TOML.format(rate="0.20"), "test.toml").authorization
    config = replace(load_demo_floor(), authorization=test_rules)  # one swipe, no PIN
    clock = SetClock(at(31, 21, 0))
    floor = Floor(engine, config, PAYTABLES, clock=clock, paper=PAPER)
    floor.start()
    tables = [t.id for t in config.tables if t.group == "ML2"]
    for t in tables:
        floor.set_link(t, True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
    senders = {t: Table(floor, t) for t in tables}
    hits = {(31, 23, 42): ("PG-4", "ROYAL_FLUSH", "As Ks Qs Js Ts 4d 7c"),
            (1, 4, 8): ("PG-5", "FIVE_ACES", "As Ad Ac Ah Jk 2c 3h"),
            (1, 15, 34): ("PG-6", "ROYAL_FLUSH", "Ah Kh Qh Jh Th 4d 7c")}
    t = at(31, 22, 0)
    rounds = dict.fromkeys(tables, 0)
    while t < at(1, 22, 0):
        for i, table in enumerate(tables):
            clock.set(t + timedelta(minutes=2 * i))
            rounds[table] += 1
            seats = sorted(rng.sample(range(1, 7), rng.randint(1, 6)))
            key = (clock.now.day, clock.now.hour, clock.now.minute)
            hit = hits.get(key)
            if hit is not None and hit[0] == table:
                seats = sorted({*seats, 3})
            senders[table].send(GameStarted(rounds[table], dict.fromkeys(seats, 100)))
            if hit is not None and hit[0] == table:
                senders[table].send(HitClaimed(rounds[table], 3, hit[1]))
                clock.set(clock.now + timedelta(minutes=1))
                floor.pay(hit_ids(engine)[-1], hit[2].split(), swipe(EXE))
        t += timedelta(minutes=6)
    return config, date(2025, 6, 1)
