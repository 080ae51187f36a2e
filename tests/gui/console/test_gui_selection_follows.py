"""Issue 26 point 1: a selection follows its record, not its row.  On the Win slips tab (newest
first) a slip arriving while one is selected moves every row down; the slip the supervisor
picked must stay the selected one, and Preview and "Print selected slip again" act on it.
A real console on a SQLite ledger, a fake ESC/POS printer on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import Engine

from core.app.console import ConsoleCore
from core.tablegames.floor import Floor
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from printing.escpos.printers import NetworkPrinter
from printing.escpos.slip import PAPER
from tests.fake_printer import FakePrinter
from tests.paid_slips import PAYTABLES, console, make_slips, slip_floor


@pytest.fixture
def slips_console(qapp, sqlite_engine: Engine) -> Iterator[tuple[Engine, list[int],  # type: ignore[no-untyped-def]
                                                                   ConsoleCore, SwipeCatcher]]:
    """Three slips paid and printed before the start (nothing is offered at start)."""
    config = slip_floor()
    nos = make_slips(sqlite_engine, config, 3)
    before = Floor(sqlite_engine, config, PAYTABLES, paper=PAPER)
    for no in nos:
        before.record_print(no, "10.0.0.50:9100", True)
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as fp:
        c = console(sqlite_engine, config, NetworkPrinter("127.0.0.1", fp.port, timeout=5))
        try:
            yield sqlite_engine, nos, c, catcher
        finally:
            c.stop()
    qapp.removeEventFilter(catcher)


def _rows(window: MainWindow) -> list[int]:
    return [int(window.slips.item(r, 0).text()) for r in range(window.slips.rowCount())]


def test_the_selected_slip_stays_selected_when_a_new_slip_arrives(  # type: ignore[no-untyped-def]
        qtbot, slips_console, monkeypatch) -> None:
    engine, nos, c, catcher = slips_console
    window = MainWindow(c, catcher)
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentWidget(window.slips_tab)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 3, timeout=5000)
    assert _rows(window) == sorted(nos, reverse=True)
    picked = nos[0]  # the oldest: the bottom row
    row = _rows(window).index(picked)
    qtbot.mouseClick(window.slips.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.slips.visualRect(window.slips.model().index(row, 0)).center())
    assert window._selected_slip() == picked

    (new,) = make_slips(engine, c.config, 1, boot="b2")  # a slip paid now: the top row
    window.reload()
    qtbot.waitUntil(lambda: window.slips.rowCount() == 4, timeout=5000)
    assert _rows(window)[0] == new
    selected = [i.row() for i in window.slips.selectionModel().selectedRows()]
    assert selected == [_rows(window).index(picked)]  # the same slip, one row lower
    assert _rows(window).index(picked) != row

    # Preview and "Print selected slip again" act on the slip picked
    previews: list[str] = []

    class Preview:
        def __init__(self, _data: bytes, title: str, _parent: Any) -> None:
            previews.append(title)

        def exec(self) -> int:
            return 0

        def deleteLater(self) -> None:  # noqa: N802
            pass

    monkeypatch.setattr("gui.tablegames.slip_preview.SlipPreview", Preview)
    qtbot.mouseClick(window.preview_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(previews), timeout=5000)
    assert previews == [f"Win slip {picked}"]
    printed: list[tuple[int, bool]] = []
    monkeypatch.setattr(c, "print_slip", lambda n, reprint=False: printed.append((n, reprint)))
    qtbot.mouseClick(window.print_btn, Qt.MouseButton.LeftButton)
    assert printed == [(picked, True)]


def test_a_slip_gone_from_the_list_leaves_nothing_selected(  # type: ignore[no-untyped-def]
        qtbot, slips_console, monkeypatch) -> None:
    """The record picked is gone (the list shows other slips): nothing is selected, so a
    reprint prints nothing rather than the slip that moved into its row."""
    _engine, nos, c, catcher = slips_console
    window = MainWindow(c, catcher)
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentWidget(window.slips_tab)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 3, timeout=5000)
    window.slips.selectRow(0)
    assert window._selected_slip() == max(nos)
    views = window.slips  # the list read again without the top slip
    from gui.tablegames import model

    records = [r for r in c.recent_slips() if r.slip_no != max(nos)]
    window.slips_tab.show_slips(model.slip_views(c, records))
    assert views.rowCount() == 2
    assert window._selected_slip() is None
    printed: list[int] = []
    monkeypatch.setattr(c, "print_slip", lambda n, reprint=False: printed.append(n))
    qtbot.mouseClick(window.print_btn, Qt.MouseButton.LeftButton)
    assert printed == []


def test_surveillance_keeps_the_hit_picked_through_the_filter(  # type: ignore[no-untyped-def]
        qtbot, sqlite_engine: Engine) -> None:
    """Surveillance's list of hits, narrowed by the filter and widened again: the hit picked
    stays selected wherever its row moves (never the hit that moved into its row)."""
    from datetime import date

    from gui.desks.surveillance import SurveillancePanel
    from tests.core.desks.surveillance.test_surveillance import NOW, build

    led = build(sqlite_engine)
    panel = SurveillancePanel(led.desk, now=lambda: NOW)
    qtbot.addWidget(panel)
    panel.show()
    panel.set_days(date(2026, 12, 2), date(2026, 12, 2))
    panel.flagged.setChecked(True)
    qtbot.mouseClick(panel.search_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(panel.hit_ids()) == 5, timeout=10000)
    picked = led.hits["second4k"]

    def selected() -> list[int]:
        return [panel.hit_ids()[i.row()] for i in panel.hits.selectionModel().selectedRows()]

    panel.hits.selectRow(panel.hit_ids().index(picked))
    before = panel.hit_ids().index(picked)
    qtbot.keyClicks(panel.filter, "hit_rate")
    assert panel.hit_ids() == [led.hits["near"], picked]
    assert panel.hit_ids().index(picked) != before  # its row moved
    assert selected() == [picked]
    panel.filter.clear()
    assert selected() == [picked]
    qtbot.keyClicks(panel.filter, "near_threshold")  # the hit picked is filtered out
    assert picked not in panel.hit_ids() and selected() == []


def test_the_hit_queue_keeps_the_hit_picked_and_never_its_neighbour(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The hit queue refilled: the hit picked stays selected wherever it moves; when it is
    gone (paid, rejected) the first hit of the queue is selected, never the hit that moved
    into its row (Enter would open a hit nobody picked)."""
    from datetime import UTC, datetime

    from gui.tablegames.hit_queue import HitQueue
    from gui.tablegames.model import HitView

    def hit(n: int) -> HitView:
        return HitView(n, f"H{n}", "Pai Gow 1", 3, n, "FULL_HOUSE", 100, (), None)

    now = datetime.now(UTC)
    queue = HitQueue()
    qtbot.addWidget(queue)
    queue.show()
    queue.show_hits([hit(1), hit(2), hit(3)], now)
    queue.selectRow(1)  # H2

    def selected() -> list[int]:
        return [queue.hit_ids()[i.row()] for i in queue.selectionModel().selectedRows()]

    assert selected() == [2]
    queue.show_hits([hit(1), hit(2), hit(3), hit(4)], now)
    assert selected() == [2]
    queue.show_hits([hit(2), hit(3), hit(4)], now)  # H1 paid: H2 moves up a row
    assert selected() == [2]
    queue.show_hits([hit(3), hit(4)], now)  # H2 paid: H3 moved into its row... and row 0
    assert selected() == [3] and queue.currentRow() == 0
    queue.selectRow(1)  # H4
    queue.show_hits([hit(3), hit(5)], now)  # H4 gone: not H5, which took its row
    assert selected() == [3]
