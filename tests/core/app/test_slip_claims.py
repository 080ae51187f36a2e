"""Issue 26 point 6: on a floor of several podiums the paid win slips that never printed are
offered, counted and printed only at the podium whose pit they belong to, and a slip neither
had printed is never printed by two podiums: its first print is claimed in the ledger (under
the slip's writers' lock) before a byte goes out.  "Print all N now" ends with one line that
says what was really done.  Two console cores on one ledger (SQLite and PostgreSQL), file
printers in folders of their own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from core.app.console import ConsoleCore
from core.controllers.events import GameEnded, GameStarted, HitClaimed, Origin
from core.floorconfig import FloorConfig, loads_floor
from core.ledger.models import Slip, SlipPrintAttempt
from core.tablegames.floor import Floor
from printing.escpos.printers import FilePrinter
from printing.escpos.slip import PAPER
from tests.floors import floor_toml, table
from tests.harness import wait_for
from tests.paid_slips import FULL_HOUSE, PAYTABLES

FLOOR = floor_toml("Two Pits", tables=[table("PG-1", 17301, pit="A"),
                                       table("PG-2", 17302, pit="B")])


def _slips(engine: Engine, config: FloorConfig, at: list[str]) -> list[int]:
    """One auto-paid full house at each table of ``at``, in order: their slip numbers."""
    floor = Floor(engine, config, PAYTABLES, paper=PAPER)
    floor.start()
    for t in set(at):
        floor.set_link(t, True)
    seq: dict[str, int] = {}
    for round_no, t in enumerate(at, 1):
        for event in (GameStarted(round_no, {3: 100}),
                      HitClaimed(round_no, 3, "FULL_HOUSE", FULL_HOUSE), GameEnded(round_no)):
            seq[t] = seq.get(t, 0) + 1
            floor.handle(Origin(t, "b1", seq[t]), event)
    return [p.slip_no for p in floor.pending_slips()]


class Podiums:
    def __init__(self, engine: Engine, tmp: Path) -> None:
        self.engine, self.tmp = engine, tmp
        self.config = loads_floor(FLOOR, "pits.toml")
        self.consoles: list[ConsoleCore] = []

    def podium(self, pit: str | None, printer: Any = None) -> tuple[ConsoleCore, list[str]]:
        tables = None if pit is None else [t.id for t in self.config.tables_of_pit(pit)]
        c = ConsoleCore(self.engine, self.config, PAYTABLES,
                        printer=printer or FilePrinter(self.tmp / f"slips-{pit}"),
                        print_tables=tables, name=f"podium-{pit}", paper=PAPER)
        said: list[str] = []
        c.add_message_listener(said.append)
        c.start(links=False)
        self.consoles.append(c)
        return c, said


@pytest.fixture
def podiums(engine: Engine, tmp_path: Path) -> Iterator[Podiums]:
    p = Podiums(engine, tmp_path)
    try:
        yield p
    finally:
        for c in p.consoles:
            c.stop()


def _attempts(engine: Engine) -> list[tuple[int, str, str]]:
    with engine.connect() as c:
        return [(no, printer, state) for no, printer, state in c.execute(
            select(Slip.slip_no, SlipPrintAttempt.printer, SlipPrintAttempt.state)
            .join(Slip, Slip.id == SlipPrintAttempt.slip_id).order_by(SlipPrintAttempt.id))]


def test_never_printed_slips_are_offered_only_at_their_pits_podium(podiums: Podiums) -> None:
    nos = _slips(podiums.engine, podiums.config, ["PG-1", "PG-2", "PG-1"])
    a, said_a = podiums.podium("A")
    b, said_b = podiums.podium("B")
    alone, _ = podiums.podium(None)  # a podium of no pit (one podium alone): every table's
    assert [s.slip_no for s in a.unprinted_slips()] == [nos[0], nos[2]]
    assert [s.slip_no for s in b.unprinted_slips()] == [nos[1]]
    assert [s.slip_no for s in alone.unprinted_slips()] == nos
    assert "2 win slip(s) from before were never printed" in said_a
    assert "1 win slip(s) from before were never printed" in said_b
    # "Print all queued slips" at pit B prints pit B's slip, not pit A's
    assert b.print_queued() == 1
    wait_for(lambda: any(m.startswith("Win slips never printed:") for m in said_b),
             what="pit B's summary")
    assert [(no, st) for no, _p, st in _attempts(podiums.engine)] == [
        (nos[1], "started"), (nos[1], "printed")]
    assert sorted(p.name for p in (podiums.tmp / "slips-B").iterdir()) == [
        f"slip-{nos[1]}.bin"]
    assert not (podiums.tmp / "slips-A").exists()


class RacingPrinter(FilePrinter):
    """A file printer that lets ``first(slip_no)`` happen between the podium reading the
    slip's print state and claiming its print (another podium printing it at that moment)."""

    def __init__(self, directory: Path, first: Callable[[int], None]) -> None:
        super().__init__(directory)
        self.first = first

    def send(self, data: bytes, name: int | str | None = None, *,
             before_send: Callable[[], None] | None = None) -> Path:
        assert isinstance(name, int)
        self.first(name)
        return super().send(data, name, before_send=before_send)


def test_two_podiums_never_both_print_a_never_printed_slip(podiums: Podiums) -> None:
    nos = _slips(podiums.engine, podiums.config, ["PG-1", "PG-1", "PG-1"])
    a, said_a = podiums.podium(None)
    a_printer = str(a.printer)

    def a_prints_it_first(slip_no: int) -> None:
        if slip_no != nos[2]:  # a prints the first two meanwhile; the third is b's
            a.print_slip(slip_no)
            wait_for(lambda: a.floor.print_state(slip_no).printed, what="a's print")

    b, said_b = podiums.podium(
        None, RacingPrinter(podiums.tmp / "slips-b", a_prints_it_first))
    b_printer = str(b.printer)
    # both podiums offered the same three slips; b's supervisor presses "Print all 3 now"
    assert [s.slip_no for s in b.unprinted_slips()] == nos
    b.print_slips(nos)
    summary = wait_for(lambda: [m for m in said_b if m.startswith("Win slips never printed:")],
                       what="b's summary")
    assert summary == [
        f"Win slips never printed: 1 of 3 printed here on {b_printer} ({nos[2]:06d}); 2 not "
        f"printed again here, printed or being printed at another podium (win slip {nos[0]}: "
        f"printed already on {a_printer}; win slip {nos[1]}: printed already on {a_printer})"]
    # each slip printed once, by one podium; b wrote nothing for the two a printed
    assert _attempts(podiums.engine) == [
        (nos[0], a_printer, "started"), (nos[0], a_printer, "printed"),
        (nos[1], a_printer, "started"), (nos[1], a_printer, "printed"),
        (nos[2], b_printer, "started"), (nos[2], b_printer, "printed")]
    assert sorted(p.name for p in (podiums.tmp / "slips-b").iterdir()) == [f"slip-{nos[2]}.bin"]
    # a's supervisor presses "Print all 3 now" too, later: nothing is printed twice
    a.print_slips(nos)
    summary_a = wait_for(lambda: [m for m in said_a
                                  if m.startswith("Win slips never printed:")], what="a's")
    assert summary_a[0].startswith("Win slips never printed: 0 of 3 printed here; 3 not "
                                   "printed again here")
    assert len(_attempts(podiums.engine)) == 6
