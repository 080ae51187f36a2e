"""The console on a podium's monitor (issue 26, point 2): no fixed window size; at 1366x768 and
1280x1024 every tab keeps the clock, the hits waiting, the progressive meters and the hit queue
(several hits) in view with no horizontal scroll bar; the window never widens itself when the
header's text grows; its geometry is remembered per screen (name and size), and a saved one
that does not fit the screen gives way to the screen's whole available area.

The sizes are the window's client area when maximized on such a monitor: the screen less a
desktop panel (about 32 px) and the title bar (about 36 px)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea, QWidget

from gui.common import window_geometry
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]
FIVE_ACES = ["Ac", "Ad", "Ah", "As", "Kd", "Kc", "2h"]
CHROME = 68  # a desktop panel and a title bar
MONITORS = [(1366, 768), (1280, 1024)]


@pytest.fixture
def window(qtbot: Any, qapp: Any, sqlite_engine: Any) -> Iterator[tuple[MainWindow, Any]]:
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port,
                                                tables=("PG-1", "PG-2", "PG-4")) as floor:
        floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
        floor.deal_hit("PG-2", seat=1, cards=FIVE_ACES, wagers=[1, 2])
        floor.deal_hit("PG-4", seat=2, cards=FIVE_ACES, wagers=[2])
        w = MainWindow(floor.console, catcher)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitUntil(lambda: w.queue.rowCount() == 3, timeout=10000)
        qtbot.waitUntil(lambda: len(w._meter_tiles) >= 2, timeout=10000)
        yield w, floor
        w.close()
    qapp.removeEventFilter(catcher)


def _fit(qtbot: Any, w: MainWindow, size: tuple[int, int]) -> None:
    w.setWindowState(Qt.WindowState.WindowNoState)
    w.resize(*size)
    qtbot.waitUntil(lambda: w.size() == QSize(*size) or w.size().width() > size[0]
                    or w.size().height() > size[1], timeout=5000)
    QApplication.processEvents()


def _in_view(w: MainWindow, widget: QWidget, what: str) -> QRect:
    """``widget`` is shown, not empty, and lies wholly inside the window."""
    assert widget.isVisible(), f"{what} is hidden"
    rect = QRect(widget.mapTo(w, QPoint(0, 0)), widget.size())
    assert not rect.isEmpty(), f"{what} has no size"
    assert w.rect().contains(rect), f"{what} at {rect} is outside the window {w.rect()}"
    return rect


@pytest.mark.parametrize("monitor", MONITORS, ids=lambda m: f"{m[0]}x{m[1]}")
def test_every_tab_keeps_the_clock_meters_and_queue_in_view(
        qtbot: Any, window: tuple[MainWindow, Any], monitor: tuple[int, int]) -> None:
    w, _floor = window
    size = (monitor[0], monitor[1] - CHROME)
    hint = w.minimumSizeHint()
    assert hint.width() <= size[0] and hint.height() <= size[1], \
        f"the window needs at least {hint.width()}x{hint.height()}: more than {size}"
    for i in range(w.tabs.count()):
        w.tabs.setCurrentIndex(i)
        _fit(qtbot, w, size)
        name = w.tabs.tabText(i)
        assert w.size() == QSize(*size), f"{name}: the window is {w.size()}, not {size}"
        _in_view(w, w.clock, f"{name}: the clock")
        assert w.clock.text(), f"{name}: the clock shows nothing"
        _in_view(w, w.pending_label, f"{name}: the hits waiting")
        page = w.tabs.widget(i)
        _in_view(w, page, f"{name}: the page")
        if isinstance(page, QScrollArea):  # a tall page scrolls up and down, never sideways
            assert not page.horizontalScrollBar().isVisible(), f"{name}: a horizontal bar"
        if name in ("Floor", "Win slips", "Activity"):
            _in_view(w, w.meters_panel, f"{name}: the meters")
            assert not w.meters_panel.horizontalScrollBar().isVisible()
            tile = next(iter(w._meter_tiles.values()))
            rect = _in_view(w, tile.amount, f"{name}: the first meter's amount")
            assert rect.width() >= tile.amount.sizeHint().width(), f"{name}: the amount is cut"
    w.tabs.setCurrentIndex(0)
    QApplication.processEvents()
    queue = _in_view(w, w.queue, "the hit queue")
    rows = w.queue.verticalHeader().defaultSectionSize()
    header = w.queue.horizontalHeader().height()
    assert queue.height() >= header + 3 * rows, "the queue shows fewer than 3 hits"
    for r in range(3):  # the three hits waiting are all in view
        assert w.queue.visualRect(w.queue.model().index(r, 0)).bottom() < \
            w.queue.viewport().height(), f"hit row {r} is out of view"


@pytest.mark.parametrize("monitor", MONITORS, ids=lambda m: f"{m[0]}x{m[1]}")
def test_a_meter_tile_shows_its_whole_reserve(
        qtbot: Any, window: tuple[MainWindow, Any], monitor: tuple[int, int]) -> None:
    """A review found the reserve cut to "reserve $…" at 1366x768: on these monitors the reserve
    figure is shown whole, a large one too, never cut with "…"; at 1366x768 the seed beside it
    too (a narrower panel may cut the seed, never the reserve before it)."""
    from gui.tablegames.model import LevelView

    w, _floor = window
    _fit(qtbot, w, (monitor[0], monitor[1] - CHROME))
    for tile in w._meter_tiles.values():
        lv = LevelView(tile.key[0], "Fortune Pai Gow Link", tile.key[1], 12_345_678_90,
                       9_876_543_21, 1_000_000_00)
        tile.show_level(lv)
        QApplication.processEvents()
        assert tile.isVisible()
        whole = "reserve $9,876,543.21 · seed $1,000,000.00"
        assert tile.sub.full_text() == whole
        shown = QLabel.text(tile.sub)  # what the label paints
        assert shown.startswith("reserve $9,876,543.21"), f"the reserve is cut: {shown!r}"
        if monitor == (1366, 768):  # the seed too, on the review's monitor
            assert shown == whole and not tile.sub.toolTip(), f"the line is cut: {shown!r}"


def test_the_window_never_widens_itself_when_the_header_grows(
        qtbot: Any, window: tuple[MainWindow, Any]) -> None:
    w, _floor = window
    _fit(qtbot, w, (1280, 700))
    before = w.minimumSizeHint().width()
    long = "● 5/6 tables online · " + "PG-9 with NO SERVICE · " * 20
    w.links.setText(f'<span style="color:#ff4d4f">{long}</span>')
    w.pending_label.setText('<span style="color:#ff4d4f">▲ 3 HITS WAITING in Pit A</span>'
                            + ' <span style="color:#ff4d4f">· ▲ 42 in other pits</span>' * 5)
    QApplication.processEvents()
    assert w.minimumSizeHint().width() == before
    assert w.width() == 1280
    _in_view(w, w.clock, "the clock")
    # what does not fit is cut with "…", and the whole text is the tooltip
    assert w.links.toolTip().startswith("● 5/6 tables online")
    assert "NO SERVICE" in w.links.text()  # the text itself is kept whole


class Screen:
    """A screen as the geometry memory sees it: a name, a size, an available area."""

    def __init__(self, name: str, width: int, height: int, panel: int = 32) -> None:
        self._name, self._size = name, QSize(width, height)
        self._area = QRect(0, 0, width, height - panel)

    def name(self) -> str:
        return self._name

    def size(self) -> QSize:
        return self._size

    def availableGeometry(self) -> QRect:  # noqa: N802
        return self._area


def test_the_window_opens_on_the_whole_screen_not_a_fixed_size(
        window: tuple[MainWindow, Any]) -> None:
    w, _floor = window
    area = w.screen().availableGeometry()
    assert w.isMaximized()
    assert w.size() != QSize(1600, 980)
    assert area.contains(w.geometry())  # the whole available area (less a frame)


def test_the_geometry_is_remembered_per_screen(window: tuple[MainWindow, Any]) -> None:
    w, _floor = window
    store = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Podium", "test")
    big, small = Screen("HDMI-1", 2560, 1440), Screen("eDP-1", 1366, 768)
    w.setWindowState(Qt.WindowState.WindowNoState)
    w.setGeometry(QRect(100, 80, 1800, 1100))
    window_geometry.save(w, big, store)
    w.setGeometry(QRect(0, 0, 1300, 700))
    window_geometry.save(w, small, store)

    assert window_geometry.restore(w, big, store)
    assert w.geometry() == QRect(100, 80, 1800, 1100) and not w.isMaximized()
    assert window_geometry.restore(w, small, store)
    assert w.geometry() == QRect(0, 0, 1300, 700)
    # the same screen at another resolution is another screen: nothing saved, the whole area
    w.setWindowState(Qt.WindowState.WindowNoState)
    assert not window_geometry.restore(w, Screen("HDMI-1", 1920, 1080), store)
    assert w.isMaximized() and w.geometry() == QRect(0, 0, 1920, 1048)
    # what was saved does not fit the screen's area now (a taller panel): the whole area
    w.setWindowState(Qt.WindowState.WindowNoState)
    assert not window_geometry.restore(w, Screen("HDMI-1", 2560, 1440, panel=400), store)
    assert w.isMaximized() and w.geometry() == QRect(0, 0, 2560, 1040)


def test_closing_saves_the_geometry_for_its_screen(qtbot: Any,
                                                   window: tuple[MainWindow, Any]) -> None:
    w, _floor = window
    w.setWindowState(Qt.WindowState.WindowNoState)
    w.setGeometry(QRect(10, 20, 1280, 700))
    qtbot.waitUntil(lambda: w.geometry() == QRect(10, 20, 1280, 700), timeout=5000)
    w.close()
    found = window_geometry.saved_rect(w.screen())
    assert found == (QRect(10, 20, 1280, 700), False)


def test_a_4k_screen_at_96_dpi_is_scaled_to_show_what_1920x1080_shows() -> None:
    """3840x2160 at a device pixel ratio of 1 (X11 at 96 dpi): everything twice as large,
    as on a 1920x1080 screen; a screen the platform or the user already scales, and the
    ordinary monitors, are left alone."""
    from gui.common.screen_scale import pick_scale

    assert pick_scale(3840, 2160, 1.0, {}) == 2.0  # 3840/1920 = 2160/1080 = 2
    assert pick_scale(5120, 2880, 1.0, {}) == 2.5  # 5120/1920 = 2.67: in steps of 0.25
    assert pick_scale(3840, 2160, 2.0, {}) is None  # the platform scales already
    assert pick_scale(3840, 2160, 1.0, {"QT_SCALE_FACTOR": "1"}) is None
    assert pick_scale(3840, 2160, 1.0, {"PODIUM_SCALE": "1"}) is None
    assert pick_scale(3840, 2160, 1.0, {"PODIUM_SCALED": "1"}) is None  # started again
    assert pick_scale(1920, 1080, 1.0, {"PODIUM_SCALE": "1.5"}) == 1.5
    for w, h in ((1366, 768), (1280, 1024), (1920, 1080), (2560, 1440)):
        assert pick_scale(w, h, 1.0, {}) is None


def test_a_short_money_axis_labels_ticks_that_do_not_overlap(qapp: Any) -> None:
    """A meter tile's trend on a 1366x768 screen is about 90 px high: its money labels are a
    line and a half apart at least, so no two overlap ("$2,500.80" over "$2,500.60")."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from gui.common.axes import MoneyAxis

    axis = MoneyAxis("left")
    line = QFontMetricsF(QFont()).height()
    for low, high, px in ((2500.0, 2501.0, 90), (25_000.0, 25_001.5, 90), (0.0, 10_000.0, 120),
                          (500.0, 502.0, 60)):
        levels = axis.tickValues(low, high, px)
        shown = sorted(v for _spacing, values in levels for v in values if low <= v <= high)
        assert shown, f"no label at all on {low}..{high}"
        gaps = [(b - a) * px / (high - low) for a, b in zip(shown, shown[1:], strict=False)]
        assert all(g >= line for g in gaps), f"{low}..{high} in {px} px: labels {gaps} px apart"
