"""One floor, many podiums, as the console shows it (issue 14): each tile says which floor
service serves its table and says NO SERVICE when that service is down (whatever the ledger's
``online`` flag says); the "Floor services" line; the podium's pit (title, grid, hit queue) and
the pit selector; a reconnected live feed reads the floor again.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set (docs/screenshots/ for the docs)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from sqlalchemy import Engine

from core.app.console import ConsoleCore
from core.controllers.ownership import TableClaims
from core.tablegames.floor import Floor
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from gui.tablegames.model import TableView, tile_text
from printing.escpos.slip import PAPER
from tests.core.app.test_floor_service import _same_ledger
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness, wait_for
from tests.ledgers import migrate

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]
SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


def tooltip(window: MainWindow, table: str) -> str:
    model = window.grid.model_
    row = next(r for r in range(model.rowCount()) if model.view_at(r).id == table)
    return str(model.data(model.index(row), Qt.ItemDataRole.ToolTipRole))


@pytest.fixture
def catcher(qapp) -> Iterator[SwipeCatcher]:  # type: ignore[no-untyped-def]
    c = SwipeCatcher()
    c.install(qapp)
    yield c
    qapp.removeEventFilter(c)


# -- the tile's words (no database) ----------------------------------------------------------

def test_no_service_overrides_the_ledgers_online_flag_on_the_tile() -> None:
    base = TableView("PG-4", "Pai Gow 4", "ML2 Link", "FPGPP-ML2", True, 7, "locked", 0,
                     wager_seats=(1, 3), pit="B")
    assert tile_text(base).link == "● ONLINE" and tile_text(base).service == ""  # SQLite
    dead = replace(base, service="pit-b", service_up=False,
                   service_detail="NO SERVICE: pit-b (host1, pid 42) not answering")
    t = tile_text(dead)
    assert (t.link, t.link_alert, t.border_alert) == ("● NO SERVICE", True, True)
    assert t.service == "pit-b is down" and t.service_alert
    assert t.round == "Progressive LOCKED" and t.bets == ""  # nobody records its bets now
    never = replace(base, service="", service_up=False,
                    service_detail="NO SERVICE: no floor service has served this table yet")
    assert tile_text(never).service == "no floor service serves it"
    up = replace(base, service="pit-b", service_up=True,
                 service_detail="served by pit-b (host1, pid 42) since 10:00:00 UTC")
    assert tile_text(up).link == "● ONLINE" and tile_text(up).service == "served by pit-b"
    assert tile_text(up).bets == "Bets: seat 1 3"


# -- one podium (SQLite): pits, the hit queue, the resync ------------------------------------

@pytest.fixture
def pit_a_window(qtbot, catcher, sqlite_engine):  # type: ignore[no-untyped-def]
    """A podium at pit A on the demo floor's PG-1 (pit A) and PG-4 (pit B)."""
    with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port) as floor:
        floor.console.pit = "A"
        window = MainWindow(floor.console, catcher)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.grid.model_.rowCount() == 2, timeout=5000)
        yield window, floor
        window.close()


def test_the_podiums_pit_is_in_the_title_and_the_selector_filters_the_grid(
        qtbot, pit_a_window):  # type: ignore[no-untyped-def]
    window, _floor = pit_a_window
    assert window.windowTitle().endswith("— Pit A")
    box = window.pit_box
    assert [box.itemText(i) for i in range(box.count())] == [
        "Pit A (this podium)", "Pit B", "All pits"]
    assert window.shown_pit == "A" and window.grid.shown() == ["PG-1"]
    assert window.queue_title.text() == "HIT QUEUE · Pit A"

    # the meters beside the floor: the pit's links only (WA01 is pit A's, ML2 pit B's)
    qtbot.waitUntil(lambda: len(window._meter_tiles) == 4)

    def meters() -> list[str]:
        return sorted(f"{g}/{lv}" for (g, lv), t in window._meter_tiles.items()
                      if not t.isHidden())

    assert meters() == ["WA01/MAIN"]
    box.setCurrentIndex(box.findText("Pit B"))
    assert window.grid.shown() == ["PG-4"]
    assert meters() == ["ML2/MAJOR", "ML2/MEGA", "ML2/MINOR"]
    box.setCurrentIndex(box.findText("All pits"))
    assert window.grid.shown() == ["PG-1", "PG-4"]
    assert window.queue_title.text() == "HIT QUEUE"
    assert len(meters()) == 4


def test_a_hit_of_another_pit_is_counted_not_hidden(qtbot, pit_a_window):  # type: ignore[no-untyped-def]
    window, floor = pit_a_window
    floor.deal_hit("PG-4", seat=2, cards=ROYAL_SF7, wagers=[2])  # pit B
    qtbot.waitUntil(lambda: window.other_hits.isVisible(), timeout=5000)
    assert window.queue.rowCount() == 0  # pit A's queue
    assert window.other_hits.text() == "▲ 1 hit in other pits: show all pits"
    assert "No hits waiting in Pit A" in window.pending_label.text()
    assert "1 in other pits" in window.pending_label.text()
    qtbot.wait(100)  # (the header laid out for the new text before the picture)
    shot(window, "console-pit-other-hit")

    window.open_selected_hit()  # Enter on an empty queue says where the hit is
    assert window.statusBar().currentMessage() == (
        "No hit waiting in Pit A (1 in other pits: Showing > All pits)")

    window.other_hits.click()  # shows every pit, the hit with them
    assert window.shown_pit is None
    assert window.queue.rowCount() == 1 and window.queue.item(0, 1).text() == "Pai Gow 4"
    assert not window.other_hits.isVisible()
    assert "1 HIT WAITING" in window.pending_label.text()

    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[3])  # pit A
    window.show_pit("A")
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1
                    and window.queue.item(0, 1).text() == "Pai Gow 1", timeout=5000)
    assert "1 HIT WAITING in Pit A" in window.pending_label.text()
    assert window.other_hits.text() == "▲ 1 hit in other pits: show all pits"


def test_one_podium_serves_every_table_and_its_tiles_say_nothing_of_services(
        qtbot, pit_a_window):  # type: ignore[no-untyped-def]
    window, _floor = pit_a_window
    qtbot.waitUntil(lambda: window.grid.tile("PG-1").link == "● ONLINE", timeout=5000)
    tile = window.grid.tile("PG-1")
    assert tile.service == "" and tile.tooltip_detail == ""
    assert not window.services_label.isVisible()
    assert not window._services_timer.isActive()  # no service reads on SQLite
    assert "served" not in tooltip(window, "PG-1")


def test_a_reconnected_feed_reads_the_floor_again_on_the_gui_thread(
        qtbot, pit_a_window):  # type: ignore[no-untyped-def]
    window, floor = pit_a_window
    threads: list[threading.Thread] = []
    real = window.reload

    def reload() -> None:
        threads.append(threading.current_thread())
        real()

    window.reload = reload  # type: ignore[method-assign]
    # the core calls its resync listeners on the feed's thread
    feed = threading.Thread(target=floor.console._resync, name="podium-feed-test")
    feed.start()
    feed.join(5)
    qtbot.waitUntil(lambda: bool(threads), timeout=5000)
    assert threads == [threading.main_thread()]
    assert "read again" in window.log_list.item(0).text()


# -- a shared ledger (PostgreSQL): a floor service and a client console ---------------------

@pytest.fixture
def pg(pg_engine_factory: object) -> Iterator[Engine]:
    eng: Engine = pg_engine_factory()  # type: ignore[operator]
    migrate(eng)
    yield eng


@pytest.fixture
def client_window(qtbot, catcher, pg):  # type: ignore[no-untyped-def]
    """``pit-a`` (a floor service) serves PG-1; ``pit-b`` held PG-4 and was killed (its lock
    connection gone, the ledger still says PG-4 is ONLINE); a client console at pit A."""
    with FakePrinter() as printer:
        h = FloorHarness(pg, printer.port, tables=("PG-1", "PG-4"))
        h.console.kind, h.console.name = "serve", "pit-a"
        h.console.serve = frozenset({"PG-1"})
        dead_engine = _same_ledger(pg)
        client_engine = _same_ledger(pg)
        client = None
        try:
            dead = Floor(dead_engine, h.config, h.paytables, paper=PAPER)
            dead.start(())
            claims_b = TableClaims(dead, "pit-b", "serve")
            claims_b.open()
            assert claims_b.claim(["PG-4"])[0] == ["PG-4"]
            dead.set_link("PG-4", True)  # its link was up when it died
            claims_b._conn.close()  # killed: PostgreSQL frees its lock, nobody is told
            h.console.start()
            wait_for(lambda: h.console.served_tables() == {"PG-1"}
                     and next(t for t in h.console.floor.snapshot().tables
                              if t.id == "PG-1").online, what="pit-a serving PG-1")
            client = ConsoleCore(client_engine, h.config, h.paytables, serve=(),
                                 name="podium-a", kind="console", paper=PAPER)
            client.pit = "A"
            client.start()
            window = MainWindow(client, catcher)
            qtbot.addWidget(window)
            window.show()
            qtbot.waitUntil(lambda: window.grid.model_.rowCount() == 2, timeout=8000)
            yield window, h, dead
            window.close()
        finally:
            if client is not None:
                client.stop()
            h.stop()
            dead_engine.dispose()
            client_engine.dispose()


@pytest.mark.postgres
def test_a_table_whose_service_is_down_says_no_service_and_names_it(
        qtbot, client_window):  # type: ignore[no-untyped-def]
    window, _h, _dead = client_window
    qtbot.waitUntil(lambda: window.grid.tile("PG-4").link == "● NO SERVICE", timeout=8000)
    down = window.grid.tile("PG-4")
    assert down.link_alert and down.border_alert
    assert down.service == "pit-b is down"
    assert down.round == "Progressive LOCKED"
    tip = tooltip(window, "PG-4")
    assert "NO SERVICE: pit-b (" in tip and "not answering" in tip
    assert "ONLINE" not in tip

    up = window.grid.tile("PG-1")
    assert up.link == "● ONLINE" and up.service == "served by pit-a"
    assert "served by pit-a (" in tooltip(window, "PG-1")

    text = window.services_label.text()
    assert "● pit-a</b> up</span> · 1 table" in text
    assert "● pit-b</b> DOWN</span> · 1 table" in text
    assert "1/2 tables online · 1 with NO SERVICE" in window.links.text()
    window.show_pit(None)
    window.resize(1600, 980)
    qtbot.wait(1500)  # the meters' trends read and drawn
    shot(window, "console-no-service")


@pytest.mark.postgres
def test_an_ownership_change_reads_the_services_again_at_once(
        qtbot, client_window, pg):  # type: ignore[no-untyped-def]
    window, h, _dead = client_window
    qtbot.waitUntil(lambda: "pit-b</b> DOWN" in window.services_label.text(), timeout=8000)
    window._services_timer.stop()  # only the change can tell the window now
    standby_engine = _same_ledger(pg)
    try:
        standby = Floor(standby_engine, h.config, h.paytables, paper=PAPER)
        claims = TableClaims(standby, "standby-b", "serve")
        claims.open()
        assert claims.claim(["PG-4"])[0] == ["PG-4"]  # an "ownership" change, heard live
        qtbot.waitUntil(lambda: "standby-b</b> up</span> · 1 table"
                        in window.services_label.text(), timeout=8000)
        assert "pit-b" not in window.services_label.text()  # its tables are taken over
        # the standby set PG-4 OFFLINE until its link is up: no longer NO SERVICE
        qtbot.waitUntil(lambda: window.grid.tile("PG-4").link == "● OFFLINE", timeout=5000)
        assert window.grid.tile("PG-4").service == "served by standby-b"
        claims.close()
    finally:
        standby_engine.dispose()


@pytest.mark.postgres
def test_a_killed_service_is_seen_within_seconds_without_any_notice(
        qtbot, client_window, pg):  # type: ignore[no-untyped-def]
    window, h, _dead = client_window
    qtbot.waitUntil(lambda: window.grid.tile("PG-1").service == "served by pit-a",
                    timeout=8000)
    # pit-a's process hangs: its claim rounds (and heartbeats) stop, and its lock connection
    # dies; nothing is written, nothing is announced
    keeper = h.console._claims
    long_waits: list[float] = []
    wake_wait = keeper._wake.wait

    def waits(timeout: float | None = None) -> bool:  # what the claim worker waits for
        if timeout is not None and timeout >= 3600.0:
            long_waits.append(timeout)
        return wake_wait(timeout)

    keeper._wake.wait = waits
    h.console.claim_interval = 3600.0
    qtbot.waitUntil(lambda: bool(long_waits), timeout=10000)  # its worker is in the long wait
    h.console.claims._conn.close()
    qtbot.waitUntil(lambda: window.grid.tile("PG-1").link == "● NO SERVICE", timeout=8000)
    assert "pit-a</b> DOWN</span> · 1 table" in window.services_label.text()
    assert "NONE UP" in window.services_label.text()


@pytest.mark.postgres
def test_the_client_console_at_pit_a(qtbot, client_window):  # type: ignore[no-untyped-def]
    window, _h, _dead = client_window
    qtbot.waitUntil(lambda: window.grid.tile("PG-1").service == "served by pit-a",
                    timeout=8000)
    assert window.windowTitle().endswith("— Pit A")
    assert window.grid.shown() == ["PG-1"]
    assert "Floor: 1/2 tables online · 1 with NO SERVICE" in window.links.text()
    window.resize(1600, 980)
    qtbot.wait(1500)  # the meters' trends read and drawn
    shot(window, "console-pit-client")
