"""Paid win slips in a ledger, made the quick way: a one-table floor whose full houses are
auto-paid (no supervisor), recorded straight through ``Floor.handle`` (no controller link).

    config = slip_floor()
    make_slips(engine, config, 3)  # slips 1, 2, 3, nothing printed
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from core.app.console import ConsoleCore
from core.controllers.events import GameEnded, GameStarted, HitClaimed, Origin
from core.floorconfig import FloorConfig, loads_floor
from core.kernel.cards import parse_cards
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.floors import floor_toml, table

FLOOR = floor_toml("Slip Casino", tables=[table("PG-1", 17301, name="Pai Gow 1")])
FULL_HOUSE = parse_cards(["Kh", "Kd", "Kc", "4h", "4d", "2c", "9h"])  # $6, auto-paid
PAYTABLES = load_paytables()


def slip_floor() -> FloorConfig:
    return loads_floor(FLOOR, "slips.toml")


def write_floor(path: Path) -> Path:
    path.write_text(FLOOR)
    return path


def make_slips(engine: Engine, config: FloorConfig, n: int, *, boot: str = "b1") -> list[int]:
    """``n`` auto-paid full houses at PG-1 (seat 3), one round each: their slip numbers."""
    floor = Floor(engine, config, PAYTABLES, paper=PAPER)
    floor.start()
    floor.set_link("PG-1", True)
    before = {p.slip_no for p in floor.pending_slips()}
    seq = 0
    start = len(before) + 1
    for round_no in range(start, start + n):
        for event in (GameStarted(round_no, {3: 100}),
                      HitClaimed(round_no, 3, "FULL_HOUSE", FULL_HOUSE), GameEnded(round_no)):
            seq += 1
            floor.handle(Origin("PG-1", f"{boot}-{start}", seq), event)
    floor.set_link("PG-1", False)
    return sorted({p.slip_no for p in floor.pending_slips()} - before)


def console(engine: Engine, config: FloorConfig, printer: object) -> ConsoleCore:
    """A console (no controller links) printing to ``printer``, started."""
    c = ConsoleCore(engine, config, PAYTABLES, printer=printer, paper=PAPER)
    c.start(links=False)
    return c
