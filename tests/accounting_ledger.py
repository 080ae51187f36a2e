"""A ledger of known rounds for the accounting tests, played through the real floor
(``Floor.handle`` / ``pay`` / ``adjust``) with a clock the test sets, in Asia/Manila (UTC+8;
the gaming day starts 06:00 local = 22:00 UTC the day before).

Gaming day 2025-06-02 runs 2025-06-01 22:00 UTC to 2025-06-02 22:00 UTC.

    2025-06-01 20:00  floor start: LINK/MAIN and LOCK/MAIN seeded 10,000.00
               21:00  T1 round 1: 2 wagers of 1.00                     (before the day)
               23:30  T1 round 2: 3 wagers; T2 round 1: 1 wager
    2025-06-02 01:15  T1 round 3: 1 wager, HIT seat 1 RF_ROYAL_MATCH
               01:20  paid by X1 (executive), slip 1
               02:00  T2 round 2: 2 wagers, MISDEAL
               03:00  T1 round 4: 1 wager, FULL_HOUSE seat 4 auto-paid 6.00 from the tray,
                      slip 2
               04:00  adjustment LINK/MAIN +1.50 (X1 and S1)
               05:00  L1 round 1: 1 wager, HIT seat 1 SF7_NATURAL, locked at hit (100%)
               05:30  L2 round 1: 1 wager
               06:10  the locked hit paid by X1, slip 3
               23:00  T1 round 5: 1 wager                              (after the day)

Every wager is 1.00; both levels take 0.20 of it to the meter and 0.02 to the reserve.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from core.controllers.events import GameEnded, GameStarted, HitClaimed, Misdealt, Origin
from core.floorconfig import FloorConfig, loads_floor
from core.kernel.cards import parse_cards
from core.people import cardkey
from core.people.auth import add_employee
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.floors import Group, Level, floor_toml, table

_MAIN = {"MAIN": Level(preconfigured_seed="10000", preconfigured_rate="0.200")}
FLOOR = floor_toml("Ledger Casino", currency_symbol="$",
                   groups=[Group("LINK", levels=_MAIN), Group("LOCK", levels=_MAIN,
                                                              lock_at_hit=True)],
                   tables=[table("T1", 17301), table("T2", 17302),
                           table("L1", 17303, "LOCK"), table("L2", 17304, "LOCK")])

SUP, EXE = "5000000000000001", "5000000000000002"
PAYTABLES = load_paytables()
RF = "As Ks Qs Js Ts Kd Qd"
SF7 = "Ah Kh Qh Jh Th 9h 8h"
FULL_HOUSE = parse_cards(["Ks", "Kd", "Kc", "4s", "4d", "2c", "9h"])


def swipe(card: str) -> str:
    return f"%B{card}^TEST/CARD^2912101?;{card}=2912101?"


class SetClock:
    def __init__(self, at: datetime) -> None:
        self.now = at

    def __call__(self) -> datetime:
        return self.now


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2025, 6, day, hour, minute, tzinfo=UTC)


def config() -> FloorConfig:
    return loads_floor(FLOOR, "ledger.toml")


def build(engine: Engine) -> Floor:
    """The ledger of the module docstring; returns its floor (links up)."""
    clock = SetClock(at(1, 20))
    floor = Floor(engine, config(), PAYTABLES, clock=clock, paper=PAPER)
    floor.start()
    for t in ("T1", "T2", "L1", "L2"):
        floor.set_link(t, True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "S1", "Sue Visor", "supervisor", SUP)
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
    seq: dict[str, int] = {}

    def send(table: str, event: object) -> None:
        seq[table] = seq.get(table, 0) + 1
        floor.handle(Origin(table, "boot1", seq[table]), event)

    def hit_id() -> int:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT max(id) FROM hits").scalar_one())

    clock.now = at(1, 21)
    send("T1", GameStarted(1, {1: 100, 2: 100}))
    send("T1", GameEnded(1))
    clock.now = at(1, 23, 30)
    send("T1", GameStarted(2, {1: 100, 2: 100, 3: 100}))
    send("T1", GameEnded(2))
    send("T2", GameStarted(1, {1: 100}))
    send("T2", GameEnded(1))
    clock.now = at(2, 1, 15)
    send("T1", GameStarted(3, {1: 100}))
    send("T1", HitClaimed(3, 1, "RF_ROYAL_MATCH"))
    send("T1", GameEnded(3))
    clock.now = at(2, 1, 20)
    floor.pay(hit_id(), RF.split(), swipe(EXE))
    clock.now = at(2, 2)
    send("T2", GameStarted(2, {1: 100, 2: 100}))
    send("T2", Misdealt(2))
    clock.now = at(2, 3)
    send("T1", GameStarted(4, {4: 100}))
    send("T1", HitClaimed(4, 4, "FULL_HOUSE", FULL_HOUSE))
    send("T1", GameEnded(4))
    clock.now = at(2, 4)
    floor.adjust("LINK", "MAIN", 150, "drop count correction", swipe(EXE), swipe(SUP))
    clock.now = at(2, 5)
    send("L1", GameStarted(1, {1: 100}))
    send("L1", HitClaimed(1, 1, "SF7_NATURAL"))
    send("L1", GameEnded(1))
    clock.now = at(2, 5, 30)
    send("L2", GameStarted(1, {2: 100}))
    send("L2", GameEnded(1))
    clock.now = at(2, 6, 10)
    floor.pay(hit_id(), SF7.split(), swipe(EXE))
    clock.now = at(2, 23)
    send("T1", GameStarted(5, {1: 100}))
    send("T1", GameEnded(5))
    return floor
