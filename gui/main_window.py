"""The podium's main window: floor, meters, hit queue, slips, and the swipe-driven pay flow."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.kernel.money import UNITS_PER_MAJOR
from gui.common import window_geometry as geometry
from gui.common.bridge import default_bridge
from gui.common.swipe import SwipeCatcher
from gui.console.activity import ActivityTab
from gui.console.floor_tab import FloorTab
from gui.console.header import Header
from gui.console.pits import PitsAndServices
from gui.console.slips_tab import SlipsTab
from gui.tablegames import model
from gui.tablegames.meter_tile import MeterTile

log = logging.getLogger("podium.gui")

REFRESH_MS = 100  # repaint at most ~10 times a second, however fast the meters move
HISTORY_S = 0.5  # meter trends
URGENT_MS = 20  # a hit arriving or decided is shown at once (hits are rare; meters are not)
RESYNC_MS = 60_000  # the whole floor read again (off the GUI thread) as a check
SERVICES_MS = 2_000  # who serves which table, read again (a killed service tells nobody)
METERS_MIN_WIDTH = 340  # the meters beside the floor: a tile's figures and its trend
METERS_SHARE = 0.3  # of the window's width, unless the splitter's handle was dragged


def scrolled_tab(page: QWidget) -> QScrollArea:
    """A tab page taller than a short screen allows, in a scroll area that scrolls it up and
    down (never sideways: the page takes the tab's width)."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(page)
    return area


class MainWindow(PitsAndServices):

    def __init__(self, console: Any, catcher: SwipeCatcher) -> None:
        super().__init__()
        self.console = console
        self.catcher = catcher
        # the pit this podium stands at: the title says it, the floor shows its tables first
        self.pit: str | None = getattr(console, "pit", None) or None
        title = f"Podium — {console.config.casino.name}"
        if self.pit:
            title += f" — {model.pit_label(self.pit)}"
        self.setWindowTitle(title)
        # a shared (PostgreSQL) ledger: floor services serve the tables' links, and the
        # console shows who serves each; one podium (SQLite) serves every table itself
        self.shared = bool(console.floor.ctx.pg)
        self._services: dict[str, Any] = {}  # table -> TableService (a shared ledger)
        self._services_error = ""
        self._prompt_open = False
        self._closed = False
        self._history_stale = True
        self._last_history = 0.0
        self._last_refresh = 0.0

        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(10, 8, 10, 8)
        self.header = Header(console.config.casino.name
                             + (f" · {model.pit_label(self.pit)}" if self.pit else ""))
        self.links = self.header.links
        self.pending_label = self.header.pending_label
        self.clock = self.header.clock
        outer.addWidget(self.header)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        self.split = split
        left = QTabWidget()
        left.setObjectName("leftTabs")
        left.setUsesScrollButtons(True)
        self.tabs = left
        floor = FloorTab(console, self.pit, self.shared, on_pit=self._pit_chosen,
                         on_show_all=lambda: self.show_pit(None),
                         on_verify=self.open_selected_hit, on_open_hit=self.open_hit)
        self.floor_tab = floor
        self.pit_box, self.services_label = floor.pit_box, floor.services_label
        self.grid, self.queue, self.queue_title = floor.grid, floor.queue, floor.queue_title
        self.other_hits, self.verify_btn = floor.other_hits, floor.verify_btn
        left.addTab(floor, "Floor")
        self.slips_tab = SlipsTab(
            on_print=self._print_selected, on_preview=self._preview_selected,
            on_find=lambda: self.open_winpages(self._selected_slip()),
            on_retry=lambda: self.bridge.query(
                self.console.print_queued, lambda _n: None,
                lambda exc: self._log(f"The queued slips could not be read: {exc}"), owner=self))
        self.slips, self.slips_note = self.slips_tab.slips, self.slips_tab.slips_note
        self.print_btn, self.preview_btn = self.slips_tab.print_btn, self.slips_tab.preview_btn
        self.find_btn, self.retry_btn = self.slips_tab.find_btn, self.slips_tab.retry_btn
        left.addTab(self.slips_tab, "Win slips")
        self.activity = ActivityTab()
        self.activity_filter, self.log_list = self.activity.activity_filter, self.activity.log_list
        left.addTab(self.activity, "Activity")
        from gui.tablegames.paytable_screen import PaytableScreen

        self.paytables = PaytableScreen(console)
        left.addTab(self.paytables, "Paytables")
        from gui.machines.machine_check import MachineCheckScreen

        left.addTab(scrolled_tab(MachineCheckScreen(console, self)), "Machine check")
        from gui.pokerroom import PokerRoomScreen

        left.addTab(scrolled_tab(PokerRoomScreen(console, self)), "Poker room")
        split.addWidget(left)

        meters = QScrollArea()
        meters.setWidgetResizable(True)
        meters.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        mw = QWidget()
        self._meter_layout = QVBoxLayout(mw)
        self._meter_layout.setSpacing(8)
        self._meter_tiles: dict[tuple[str, str], MeterTile] = {}
        self._meter_layout.addStretch(1)
        meters.setWidget(mw)
        meters.setMinimumWidth(METERS_MIN_WIDTH)
        split.addWidget(meters)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        # the meters take a share of the width (METERS_SHARE) until someone drags the handle
        self._meters_dragged = False
        split.splitterMoved.connect(lambda *_: setattr(self, "_meters_dragged", True))
        outer.addWidget(split, 1)
        # The table-game meters stand beside the floor, slips and activity; the wide working
        # screens (paytables, machine check, poker room) get the whole width.
        self.meters_panel = meters
        wide = {self.paytables, left.widget(left.count() - 2), left.widget(left.count() - 1)}
        left.currentChanged.connect(
            lambda i: meters.setVisible(left.widget(i) not in wide))
        left.currentChanged.connect(lambda _i: self._load_slips_if_shown())
        self.setCentralWidget(central)
        self.statusBar().showMessage("Ready")
        self._menus_and_keys()
        # how closing with hits waiting is confirmed (a test replaces it: no modal box)
        self.confirm_quit = self._confirm_quit
        self.catcher.swiped.connect(self._stray_swipe)
        # Everything the floor screen shows comes from the core's announcements (FloorState);
        # the ledger is read off the GUI thread (the bridge) once at start, for the slips and
        # trends, and every RESYNC_MS as a check.
        self.bridge = default_bridge()
        self.state = model.FloorState()
        self._dirty_tables: set[str] = set()
        self._dirty_levels: set[tuple[str, str]] = set()
        self._dirty_hits = False
        self._slips_stale = True
        self._trends_stale: set[tuple[str, str]] = set()
        # Every listener goes through the bridge (its handler runs on the GUI thread) and is
        # removed when the window closes (or, failing that, is destroyed).
        listen = self.bridge.listen

        def on_resync(fn: Callable[[None], None]) -> Callable[[], None]:
            remove: Callable[[], None] = console.add_resync_listener(lambda: fn(None))
            return remove

        self._removers = [
            listen(console.add_listener, self._on_change, owner=self),
            # plain-language messages (links, refusals, printer): Activity and the status bar
            listen(console.add_message_listener, self._log, owner=self),
            # the ledger stops recording (a full disk, a database gone or silent) and records
            # again: one line each, in Activity and the status bar
            listen(console.floor.writer.add_state_listener, self._log, owner=self),
            # a tile follows this console's own link at once (the ledger's flag is written by
            # the writer a moment later, and on a shared ledger by every podium)
            listen(console.add_status_listener, self._dirty_tables.add, owner=self),
            # the live feed lost and back: changes may have been missed, read everything
            # again (the core calls on its feed thread; the bridge brings it to this one)
            listen(on_resync, lambda _none: self._on_resync(), owner=self),
        ]

        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self._timer.start(REFRESH_MS)
        self._wait_timer = QTimer(self)
        self._wait_timer.timeout.connect(self._tick_waits)
        self._wait_timer.start(1000)
        self._resync = QTimer(self)
        self._resync.timeout.connect(self.reload)
        self._resync.start(RESYNC_MS)
        self._services_timer = QTimer(self)
        self._services_timer.timeout.connect(self.read_services)
        if self.shared:
            self._services_timer.start(SERVICES_MS)
        self._clock_timer = QTimer(self)
        self._clock_timer.timeout.connect(self._update_clock)
        self._clock_timer.start(1000)
        self._update_clock()
        self.reload()
        self.bridge.query(self.console.floor.activity, self._show_ledger_activity,
                          lambda exc: log.warning("could not read the activity back: %s", exc))
        # the paid slips from before that never printed are offered once, at start
        self.unprinted_dialog = None
        if getattr(console, "printer", None) is not None:
            self.bridge.query(console.unprinted_slips, self._offer_unprinted,
                              lambda exc: self._log(f"The slips never printed could not be "
                                                    f"read: {exc}"))
        self.queue.setFocus()  # arrows pick a hit, Enter opens it
        # no fixed size: the geometry last used on this screen, else the screen's whole
        # available area (gui/console/geometry.py)
        geometry.restore(self, self.screen())

    def resizeEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        super().resizeEvent(event)
        if not self._meters_dragged:
            width = self.split.width()
            meters = max(METERS_MIN_WIDTH, int(width * METERS_SHARE))
            self.split.setSizes([width - meters, meters])
            self._meters_dragged = False  # (setSizes is not a drag)

    def closeEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        # the window manager's close (Alt+F4, the title bar's X) asks too; closing from code
        # (Quit after asking, the application shutting down, a test) does not ask again
        waiting = len(self.state.pending)
        if (event.spontaneous() and waiting and not getattr(self, "_quit_confirmed", False)
                and not self.confirm_quit(waiting)):
            event.ignore()
            return
        self._closed = True
        if self.isVisible():
            geometry.save(self, self.screen())
        for remove in self._removers:
            remove()
        self._removers = []
        self._timer.stop()
        self._resync.stop()
        self._services_timer.stop()
        super().closeEvent(event)

    # -- refresh ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the whole floor again (off the GUI thread) and repaint from it."""
        self.bridge.query(self.console.floor.snapshot, self._on_snapshot, self._read_failed,
                          key="snapshot")
        self._slips_stale = True
        self.read_services()

    def _on_resync(self) -> None:
        """The live feed was lost and is back (on the GUI thread)."""
        self._log("The live feed from the ledger was interrupted: the floor is read again")
        self.reload()

    def refresh(self) -> None:
        """Repaint what is stale now, and read the floor again (tests and tools)."""
        self._paint()
        self.reload()

    def _read_failed(self, exc: BaseException) -> None:
        # the ledger may be briefly unreachable (PostgreSQL restart)
        log.warning("could not read the floor: %s", exc)
        self.statusBar().showMessage(f"Could not read the ledger: {exc}")

    def _on_snapshot(self, snap: Any) -> None:
        self._mark(self.state.load(snap))
        self._paint()

    def _mark(self, dirty: model.Dirty) -> None:
        self._dirty_tables |= dirty.tables
        self._dirty_levels |= dirty.levels
        self._dirty_hits = self._dirty_hits or dirty.hits

    def _on_change(self, change: Any) -> None:
        """A committed change (on the GUI thread, from the bridge): fold it into the state."""
        dirty = self.state.apply(change)
        self._mark(dirty)
        if change.action == "ownership":  # a service took, gave up or was refused a table
            self.read_services()
        if change.slips or change.prints:  # a new slip, or a print attempt of one
            self._slips_stale = True
        if change.at is not None:
            x = change.at.timestamp()
            for lv in change.level_views:
                tile = self._meter_tiles.get((lv.group, lv.level))
                if tile is not None:
                    tile.add_point(x, lv.meter_units / UNITS_PER_MAJOR,
                                   window_s=model.TREND_WINDOW.total_seconds(),
                                   max_points=model.TREND_POINTS)
                    self._history_stale = True
        if change.action == "adjust" or any(o.outcome in ("paid", "auto_paid")
                                            for o in change.outcomes):
            # pay and adjustment markers: read again for the trends that are drawn
            self._trends_stale |= {key for key in change.levels
                                   if key in self._meter_tiles
                                   and self._meter_tiles[key].plot is not None}
        cancelled = [o.hit_id for o in change.outcomes if o.outcome == "cancelled"]
        if cancelled:  # a MISDEAL, an UNDO, a restarted controller: each its Activity line
            self.bridge.query(lambda: self.console.floor.decision_lines(cancelled),
                              self._log_records,
                              lambda exc: self._log(f"{', '.join(f'H{h}' for h in cancelled)} "
                                                    f"cancelled (the reason could not be read: "
                                                    f"{exc})"))
        urgent = dirty.hits or any(
            not t.online for t in change.table_views)
        if urgent and time.monotonic() - self._last_refresh >= URGENT_MS / 1000:
            self._paint()

    def _tick_waits(self) -> None:
        """Every second: the queue's Waiting times move on; a hit waiting past the floor
        file's ``hit_alert_minutes`` turns red and sounds once (the system bell)."""
        late = self.queue.tick(datetime.now(UTC),
                               self.console.config.casino.hit_alert_minutes * 60)
        if late:
            QApplication.beep()
            refs = ", ".join(f"H{h}" for h in late)
            self._log(f"{refs} waiting {self.console.config.casino.hit_alert_minutes} min or "
                      "more: call a supervisor")

    def _tick(self) -> None:
        if self._dirty_tables or self._dirty_levels or self._dirty_hits:
            self._paint()
        self._load_slips_if_shown()
        self._update_history()

    def _load_slips_if_shown(self) -> None:
        """The Win slips tab reads the ledger only while it is shown (and at once when it is
        chosen)."""
        if self._slips_stale and self.tabs.currentWidget() is self.slips_tab:
            self._slips_stale = False
            self.bridge.query(self.console.recent_slips, self._on_slips, self._read_failed,
                              key="slips")

    def _paint(self) -> None:
        self._last_refresh = time.monotonic()
        state = self.state
        if not state.loaded:
            return
        links = self.console.link_status() if self._dirty_tables else {}
        if self._dirty_tables:
            ids = [tid for tid in state.tables if tid in self._dirty_tables]
            self._dirty_tables.clear()
            services = self._services
            self.grid.show_tables([model.table_view(self.console, state.tables[i], links,
                                                    services.get(i))
                                   for i in ids if i in state.tables])
            no_service = {t for t, ts in services.items() if not ts.up}
            online = sum(1 for t in state.tables.values()
                         if links.get(t.id, (t.online, ""))[0] and t.id not in no_service)
            total = len(state.tables)
            color = "#3ecf8e" if online == total else "#ff4d4f"
            text = f"● {online}/{total} tables online"
            if self.shown_pit:  # the count is the floor's, not the pit's shown
                text = f"● Floor: {online}/{total} tables online"
            down = len(no_service & set(state.tables))
            if down:
                text += f" · {down} with NO SERVICE"
            self.links.setText(f'<span style="color:{color}">{text}</span>')
        if self._dirty_hits:
            self._dirty_hits = False
            pit = self.shown_pit
            waiting = [h for _, h in sorted(state.pending.items())]
            hits = [model.hit_view(self.console, h) for h in waiting
                    if pit is None or model.table_pit(self.console, h.table) == pit]
            self.queue.show_hits(hits, datetime.now(UTC))
            n, others = len(hits), len(waiting) - len(hits)
            where = f" in {model.pit_label(pit)}" if pit else ""
            text = (f'<span style="color:#ff4d4f">▲ {n} HIT{"S" if n != 1 else ""} WAITING'
                    f'{where}</span>' if n else
                    f'<span style="color:#3ecf8e">No hits waiting{where}</span>')
            if others:
                text += f' <span style="color:#ff4d4f">· ▲ {others} in other pits</span>'
            self.pending_label.setText(text)
            self.other_hits.setText(f"▲ {others} hit{'s' if others != 1 else ''} in other "
                                    "pits: show all pits")
            self.other_hits.setVisible(bool(others))
            self.verify_btn.setEnabled(bool(n))
        if self._dirty_levels:
            # in the floor's order (group, then level as configured), not alphabetical
            keys = [key for key in state.levels if key in self._dirty_levels]
            self._dirty_levels = set()
            for key in keys:
                lv = state.levels.get(key)
                if lv is None:
                    continue
                tile = self._meter_tiles.get(key)
                if tile is None:
                    casino = self.console.config.casino
                    tile = MeterTile(key, tz=ZoneInfo(casino.timezone), money=casino.money)
                    self._meter_tiles[key] = tile
                    self._meter_layout.insertWidget(self._meter_layout.count() - 1, tile)
                    tile.plotMade.connect(self._trends_stale.add)
                    tile.setVisible(self._meter_shown(key))
                tile.show_level(model.level_view(self.console, lv))

    def _on_slips(self, records: list[Any]) -> None:
        self.slips_tab.show_slips(model.slip_views(self.console, records))

    def _show_ledger_activity(self, records: list[Any]) -> None:
        self.activity.show_ledger(records, ZoneInfo(self.console.config.casino.timezone))

    def _update_history(self) -> None:
        """Trends: new points are drawn at most twice a second; a level's whole window is
        read again (off the GUI thread) at start and after a pay (its hit markers)."""
        for key in sorted(self._trends_stale):
            if key not in self._meter_tiles:
                continue
            self._trends_stale.discard(key)

            def show(result: model.History, key: tuple[str, str] = key) -> None:
                tile = self._meter_tiles.get(key)
                if tile is not None and not self._closed:  # (a late answer: the window and
                    tile.show_history(*result)            # its tiles may be gone)

            def read(key: tuple[str, str] = key) -> model.History:
                return model.history(self.console, *key)

            self.bridge.query(read, show, self._read_failed, key=f"history:{key[0]}/{key[1]}",
                              owner=self)
        if not self._history_stale or time.monotonic() - self._last_history < HISTORY_S:
            return
        self._history_stale = False
        self._last_history = time.monotonic()
        for tile in self._meter_tiles.values():
            tile.redraw()

    def _update_clock(self) -> None:
        self.clock.setText(model.local_now(self.console).strftime("%a %d %b  %H:%M:%S"))

    def _log_records(self, records: list[Any]) -> None:
        for r in records:
            self._log(r.text)

    def _log(self, text: str) -> None:
        self.activity.add(model.local_now(self.console).strftime("%d %b %H:%M:%S"), text)
        self.statusBar().showMessage(text, 8000)

    def _selected_slip(self) -> int | None:
        return self.slips_tab.selected_slip()
