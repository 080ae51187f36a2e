"""Issue 26 point 5, as the podium shows it: a hit cancelled at the table (MISDEAL) gets its
Activity line; a hit of a controller boot that is gone is closed at the console's start and
shown as closed by the system, not kept in the queue; a pay to a table with NO SERVICE says
it is recorded and will be sent when the table is back (the verify dialog says so before
the swipe)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication
from sqlalchemy import Engine

from core.app.console import ConsoleCore
from core.controllers.events import GameStarted, HitClaimed, Origin
from core.controllers.ownership import TableClaims
from core.kernel.cards import parse_cards
from core.tablegames.floor import Floor
from gui.common.authorize import SwipePrompt
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from gui.tablegames.verify import VerifyDialog
from printing.escpos.slip import PAPER
from tests.core.app.test_floor_service import _same_ledger
from tests.fake_printer import FakePrinter
from tests.gui.swiping import type_swipe
from tests.harness import FloorHarness, wait_for
from tests.ledgers import migrate

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]
STRAIGHT_FLUSH = ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]  # $100 from the tray (FPGPP-ML2)
SUPERVISOR = ";6011000990131111=2812101?"  # 1002 Marco Santos (the README's demo swipe)


def lines(window: MainWindow) -> list[str]:
    return [window.log_list.item(i).text() for i in range(window.log_list.count())]


@pytest.fixture
def catcher(qapp) -> Iterator[SwipeCatcher]:  # type: ignore[no-untyped-def]
    c = SwipeCatcher()
    c.install(qapp)
    yield c
    qapp.removeEventFilter(c)


def test_a_hit_cancelled_by_a_misdeal_gets_its_activity_line(  # type: ignore[no-untyped-def]
        qtbot, catcher, sqlite_engine):
    with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port,
                                                tables=("PG-1",)) as floor:
        window = MainWindow(floor.console, catcher)
        qtbot.addWidget(window)
        window.show()
        floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3])
        qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=8000)
        (hit,) = floor.pending()
        sim = floor.sims["PG-1"]
        floor.on_sim(sim.press_misdeal)
        qtbot.waitUntil(lambda: window.queue.rowCount() == 0, timeout=8000)
        want = (f"Hit H{hit.hit_id} (PG-1 seat 3, round 1) cancelled by the floor: "
                "misdeal round 1")
        qtbot.waitUntil(lambda: any(line.endswith(want) for line in lines(window)),
                        timeout=8000)
        window.close()


def test_a_hit_of_a_gone_controller_boot_is_closed_at_start_and_shown(  # type: ignore[no-untyped-def]
        qtbot, catcher, sqlite_engine):
    with FakePrinter() as printer:
        floor = FloorHarness(sqlite_engine, printer.port, tables=("PG-1",)).start()
        console = None
        try:
            floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3])
            (hit,) = wait_for(floor.pending, what="the hit in the queue")
            floor.console.stop()  # the podium goes down; the table's controller restarts
            sim = floor.sims["PG-1"]
            old = sim.boot
            floor.on_sim(lambda: sim.restart(keep_outbox=False))
            console = ConsoleCore(sqlite_engine, floor.config, floor.paytables,
                                  link_options={"heartbeat": 0.5, "reconnect_delay": 0.1,
                                                "max_reconnect_delay": 0.5}, paper=PAPER)
            console.start()
            window = MainWindow(console, catcher)
            qtbot.addWidget(window)
            window.show()
            want = (f"Hit H{hit.hit_id} (PG-1 seat 3, round 1) closed (its controller "
                    "restarted) by the system: closed by the system when the table's "
                    f"controller started again (boot {old}, now {sim.boot})")
            qtbot.waitUntil(lambda: any(want in line for line in lines(window)), timeout=10000)
            qtbot.waitUntil(lambda: window.state.loaded and window.queue.rowCount() == 0
                            and not window.state.pending, timeout=8000)
            assert "No hits waiting" in window.pending_label.text()
            window.close()
        finally:
            if console is not None:
                console.stop()
            floor.stop()


# -- a shared ledger: a pay to a table whose service is down ----------------------------------

@pytest.fixture
def pg(pg_engine_factory: object) -> Iterator[Engine]:
    eng: Engine = pg_engine_factory()  # type: ignore[operator]
    migrate(eng)
    yield eng


@pytest.mark.postgres
def test_a_pay_to_a_table_with_no_service_says_it_waits_for_the_table(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, catcher, pg):
    """``pit-b`` served PG-4, recorded a hit there and was killed; a podium pays the hit."""
    with FakePrinter() as printer:
        h = FloorHarness(pg, printer.port, tables=("PG-1", "PG-4"))
        dead_engine, client_engine = _same_ledger(pg), _same_ledger(pg)
        client = None
        try:
            dead = Floor(dead_engine, h.config, h.paytables, paper=PAPER)
            dead.start(())
            claims_b = TableClaims(dead, "pit-b", "serve")
            claims_b.open()
            assert claims_b.claim(["PG-4"])[0] == ["PG-4"]
            dead.set_link("PG-4", True)
            dead.handle(Origin("PG-4", "b00t", 1), GameStarted(1, {2: 100}))
            dead.handle(Origin("PG-4", "b00t", 2), HitClaimed(
                1, 2, "STRAIGHT_FLUSH", tuple(parse_cards(STRAIGHT_FLUSH))))
            claims_b._conn.close()  # killed: PostgreSQL frees its lock, nobody is told
            client = ConsoleCore(client_engine, h.config, h.paytables, serve=(),
                                 name="podium-b", kind="console", paper=PAPER)
            client.start()
            window = MainWindow(client, catcher)
            qtbot.addWidget(window)
            window.show()
            qtbot.waitUntil(lambda: window.grid.model_.rowCount() == 2, timeout=8000)
            qtbot.waitUntil(lambda: window.grid.tile("PG-4").link == "● NO SERVICE",
                            timeout=8000)
            qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=8000)
            (hit_id,) = window.queue.hit_ids()

            def in_dialog() -> None:
                dlg = QApplication.activeModalWidget()
                assert isinstance(dlg, VerifyDialog)
                qtbot.waitUntil(lambda: dlg.pay_btn.isEnabled(), timeout=10000)
                # said before the swipe, as the Activity says it after
                assert dlg.table_note.isVisible() and dlg.table_note.text() == (
                    f"▲ Table {h.config.table('PG-4').name} has NO SERVICE: the pay or "
                    "rejection is recorded and will be sent to the table when it is back")
                modal_steps.on_dialog(SwipePrompt, in_prompt)
                dlg.pay_btn.click()

            def in_prompt() -> None:
                prompt = QApplication.activeModalWidget()
                assert isinstance(prompt, SwipePrompt)
                type_swipe(prompt, SUPERVISOR)

            window.queue.setFocus()
            with modal_steps.running():
                modal_steps.on_dialog(VerifyDialog, in_dialog)
                window.open_selected_hit()
            assert client.floor.snapshot().pending == ()
            want = (f"paid. Table {h.config.table('PG-4').name} has NO SERVICE: the pay is "
                    "recorded and will be sent to the table when it is back")
            assert [line.split("  ", 1)[1] for line in lines(window) if line.endswith(want)] \
                == [f"Hit H{hit_id} {want}"]
            qtbot.waitUntil(lambda: window.bridge.busy == 0, timeout=8000)
            window.close()
        finally:
            if client is not None:
                client.stop()
            h.stop()
            dead_engine.dispose()
            client_engine.dispose()
