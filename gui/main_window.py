"""The podium's main window: floor, meters, hit queue, slips, and the swipe-driven pay flow."""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.kernel.money import UNITS_PER_MAJOR
from gui.common import theme
from gui.common.authorize import SwipePrompt
from gui.common.bridge import default_bridge
from gui.common.swipe import SwipeCatcher
from gui.people.card_locks import lift_lock
from gui.tablegames import model
from gui.tablegames.adjust import AdjustDialog, AdjustSwipePrompt
from gui.tablegames.unprinted_slips import UnprintedSlipsDialog, fill_slip_row
from gui.tablegames.verify import VerifyDialog
from gui.tablegames.widgets import HitQueue, MeterTile, TableGrid

log = logging.getLogger("podium.gui")

REFRESH_MS = 100  # repaint at most ~10 times a second, however fast the meters move
HISTORY_S = 0.5  # meter trends
URGENT_MS = 20  # a hit arriving or decided is shown at once (hits are rare; meters are not)
RESYNC_MS = 60_000  # the whole floor read again (off the GUI thread) as a check
SERVICES_MS = 2_000  # who serves which table, read again (a killed service tells nobody)


class MainWindow(QMainWindow):

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
        self.resize(1600, 980)
        self._prompt_open = False
        self._closed = False
        self._history_stale = True
        self._last_history = 0.0
        self._last_refresh = 0.0

        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.addLayout(self._header())

        split = QSplitter(Qt.Orientation.Horizontal)
        left = QTabWidget()
        left.setObjectName("leftTabs")
        self.tabs = left
        floor = QWidget()
        fl = QVBoxLayout(floor)
        fl.addLayout(self._pit_bar())
        self.grid = TableGrid()
        if self.shared:
            self.grid.show_services()
        fl.addWidget(self.grid, 3)
        qhead = QHBoxLayout()
        self.queue_title = QLabel("HIT QUEUE")
        self.queue_title.setObjectName("muted")
        qhead.addWidget(self.queue_title)
        qhead.addSpacing(16)
        # hits of the pits not shown are counted here, never hidden silently
        self.other_hits = QPushButton("")
        self.other_hits.setFlat(True)
        self.other_hits.setStyleSheet(f"color: {theme.ALERT}; font-weight: bold;")
        self.other_hits.setToolTip("Hits waiting at tables of other pits: click to show "
                                   "every pit")
        self.other_hits.clicked.connect(lambda: self.show_pit(None))
        self.other_hits.setVisible(False)
        qhead.addWidget(self.other_hits)
        qhead.addStretch(1)
        self.verify_btn = QPushButton("Verify selected hit (Enter)")
        self.verify_btn.setObjectName("primary")
        self.verify_btn.clicked.connect(self.open_selected_hit)
        qhead.addWidget(self.verify_btn)
        fl.addLayout(qhead)
        self.queue = HitQueue()
        self.queue.openHit.connect(self.open_hit)
        fl.addWidget(self.queue, 2)
        self.grid.show_pit(self.shown_pit)
        if self.shown_pit:
            self.queue_title.setText(f"HIT QUEUE · {model.pit_label(self.shown_pit)}")
        left.addTab(floor, "Floor")
        self.slips_tab = self._slips_tab()
        left.addTab(self.slips_tab, "Win slips")
        left.addTab(self._activity_tab(), "Activity")
        from gui.tablegames.paytable_screen import PaytableScreen

        self.paytables = PaytableScreen(console)
        left.addTab(self.paytables, "Paytables")
        from gui.machines.machine_check import MachineCheckScreen

        left.addTab(MachineCheckScreen(console, self), "Machine check")
        from gui.pokerroom import PokerRoomScreen

        left.addTab(PokerRoomScreen(console, self), "Poker room")
        split.addWidget(left)

        meters = QScrollArea()
        meters.setWidgetResizable(True)
        mw = QWidget()
        self._meter_layout = QVBoxLayout(mw)
        self._meter_layout.setSpacing(8)
        self._meter_tiles: dict[tuple[str, str], MeterTile] = {}
        self._meter_layout.addStretch(1)
        meters.setWidget(mw)
        meters.setMinimumWidth(480)
        split.addWidget(meters)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
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
        meters_menu = self.menuBar().addMenu("&Meters")
        self.adjust_action = QAction("&Adjust meter…", self)
        self.adjust_action.setShortcut(QKeySequence("Ctrl+J"))
        self.adjust_action.triggered.connect(self.open_adjust)
        meters_menu.addAction(self.adjust_action)
        slips_menu = self.menuBar().addMenu("&Slips")
        self.winpages_action = QAction("&Win pages… (search any slip)", self)
        self.winpages_action.setShortcut(QKeySequence("Ctrl+F"))
        self.winpages_action.triggered.connect(lambda: self.open_winpages())
        slips_menu.addAction(self.winpages_action)
        self.void_action = QAction("&Void slip…", self)
        self.void_action.triggered.connect(lambda: self.open_void())
        slips_menu.addAction(self.void_action)
        self.winpages_dialog: Any = None
        people_menu = self.menuBar().addMenu("&People")
        self.unlock_action = QAction("&Lift a card lock…", self)
        self.unlock_action.triggered.connect(self.open_unlock)
        people_menu.addAction(self.unlock_action)

        QShortcut(QKeySequence(Qt.Key.Key_F2), self).activated.connect(self.open_selected_hit)
        # the usual keys: next / previous tab, Alt+1.. a tab, Ctrl+Q quits (asking first when
        # hits are waiting)
        for keys, step in (("Ctrl+Tab", 1), ("Ctrl+PgDown", 1), ("Ctrl+Shift+Tab", -1),
                           ("Ctrl+PgUp", -1)):
            QShortcut(QKeySequence(keys), self).activated.connect(
                lambda step=step: self.step_tab(step))
        for i in range(min(9, self.tabs.count())):
            QShortcut(QKeySequence(f"Alt+{i + 1}"), self).activated.connect(
                lambda i=i: self.tabs.setCurrentIndex(i))
        file_menu = self.menuBar().addMenu("&File")
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.triggered.connect(self.request_quit)
        file_menu.addAction(self.quit_action)
        self.menuBar().insertMenu(meters_menu.menuAction(), file_menu)
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
        self.unprinted_dialog: UnprintedSlipsDialog | None = None
        if getattr(console, "printer", None) is not None:
            self.bridge.query(console.unprinted_slips, self._offer_unprinted,
                              lambda exc: self._log(f"The slips never printed could not be "
                                                    f"read: {exc}"))
        self.queue.setFocus()  # arrows pick a hit, Enter opens it

    def step_tab(self, step: int) -> None:
        """The next (1) or previous (-1) tab, round the end."""
        n = self.tabs.count()
        if n:
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % n)

    def _confirm_quit(self, waiting: int) -> bool:
        box = QMessageBox(QMessageBox.Icon.Warning, "Quit Podium?",
                          f"{waiting} hit{'s are' if waiting != 1 else ' is'} waiting for a "
                          "supervisor. Quit anyway? The tables keep their hits; they wait for "
                          "the next console.", parent=self)
        quit_btn = box.addButton("Quit", QMessageBox.ButtonRole.DestructiveRole)
        stay = box.addButton("Stay", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(stay)
        box.exec()
        chosen = box.clickedButton() is quit_btn
        box.deleteLater()
        return chosen

    def request_quit(self) -> bool:
        """File > Quit (Ctrl+Q): asks first when hits are waiting; True if it closed."""
        waiting = len(self.state.pending)
        if waiting and not self.confirm_quit(waiting):
            return False
        self._quit_confirmed = True
        return bool(self.close())

    def closeEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        # the window manager's close (Alt+F4, the title bar's X) asks too; closing from code
        # (Quit after asking, the application shutting down, a test) does not ask again
        waiting = len(self.state.pending)
        if (event.spontaneous() and waiting and not getattr(self, "_quit_confirmed", False)
                and not self.confirm_quit(waiting)):
            event.ignore()
            return
        self._closed = True
        for remove in self._removers:
            remove()
        self._removers = []
        self._timer.stop()
        self._resync.stop()
        self._services_timer.stop()
        super().closeEvent(event)

    # -- layout pieces ----------------------------------------------------------------------
    def _header(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        title = QLabel(self.console.config.casino.name
                       + (f" · {model.pit_label(self.pit)}" if self.pit else ""))
        title.setObjectName("title")
        bar.addWidget(title)
        bar.addSpacing(30)
        self.links = QLabel("")
        self.links.setStyleSheet("font-size: 14pt;")
        bar.addWidget(self.links)
        bar.addStretch(1)
        self.pending_label = QLabel("")
        self.pending_label.setStyleSheet("font-size: 18pt; font-weight: bold;")
        bar.addWidget(self.pending_label)
        bar.addSpacing(30)
        self.clock = QLabel("")
        self.clock.setStyleSheet("font-size: 18pt; font-weight: bold;")
        bar.addWidget(self.clock)
        return bar

    def _pit_bar(self) -> QHBoxLayout:
        """Above the grid: which pit the floor shows, and who serves the floor."""
        bar = QHBoxLayout()
        pits = tuple(self.console.config.pits)
        self.pit_box = QComboBox()
        self.pit_box.setObjectName("pitSelector")
        for pit in pits:
            label = model.pit_label(pit)
            if pit == self.pit:
                label += " (this podium)"
            self.pit_box.addItem(label, pit)
        self.pit_box.addItem("All pits", None)
        self.pit_box.setToolTip("The pit whose tables and hits the floor shows")
        self.pit_box.setCurrentIndex(pits.index(self.pit) if self.pit in pits else len(pits))
        self.pit_box.currentIndexChanged.connect(self._pit_chosen)
        shows = QLabel("Showing")
        shows.setObjectName("muted")
        bar.addWidget(shows)
        bar.addWidget(self.pit_box)
        shows.setVisible(bool(pits))
        self.pit_box.setVisible(bool(pits))  # a floor file with no pits: nothing to choose
        bar.addSpacing(24)
        self.services_label = QLabel("Floor services: reading…")
        self.services_label.setTextFormat(Qt.TextFormat.RichText)
        self.services_label.setVisible(self.shared)  # one podium: this console serves all
        bar.addWidget(self.services_label)
        bar.addStretch(1)
        return bar

    def _slips_tab(self) -> QWidget:
        w = QWidget()
        lay = QVBoxLayout(w)
        self.slips = QTableWidget(0, 6)
        self.slips.setHorizontalHeaderLabels(("Slip", "Hit", "Table / seat", "Amount", "Paid at",
                                              "Printed"))
        self.slips.verticalHeader().setVisible(False)
        self.slips.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.slips.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.slips.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(90)
        header.setStretchLastSection(True)  # the print state says the most
        self.slips_note = QLabel("")
        self.slips_note.setWordWrap(True)
        self.slips_note.setStyleSheet("color: #ffa940; font-weight: bold;")
        self.slips_note.setVisible(False)
        lay.addWidget(self.slips_note)
        lay.addWidget(self.slips, 1)
        row = QHBoxLayout()
        self.print_btn = QPushButton("Print selected slip again")
        self.print_btn.clicked.connect(self._print_selected)
        row.addWidget(self.print_btn)
        self.preview_btn = QPushButton("Preview selected slip")
        self.preview_btn.clicked.connect(self._preview_selected)
        row.addWidget(self.preview_btn)
        self.find_btn = QPushButton("Win pages…")
        self.find_btn.setToolTip("Search any win slip (by date, table, amount, employee, "
                                 "number) for its win page; void a slip there")
        self.find_btn.clicked.connect(lambda: self.open_winpages(self._selected_slip()))
        row.addWidget(self.find_btn)
        self.retry_btn = QPushButton("Print all queued slips")
        self.retry_btn.clicked.connect(lambda: self.bridge.query(
            self.console.print_queued, lambda _n: None,
            lambda exc: self._log(f"The queued slips could not be read: {exc}")))
        row.addWidget(self.retry_btn)
        row.addStretch(1)
        lay.addLayout(row)
        return w

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

    # -- pits and floor services --------------------------------------------------------------
    @property
    def shown_pit(self) -> str | None:
        """The pit the floor shows now (None: every pit)."""
        pit = self.pit_box.currentData()
        return str(pit) if pit is not None else None

    def show_pit(self, pit: str | None) -> None:
        """Show ``pit``'s tables and hits (None: all pits), as the selector does."""
        self.pit_box.setCurrentIndex(self.pit_box.findData(pit))

    def _meter_shown(self, key: tuple[str, str]) -> bool:
        """A level's meter shows when its group has a table in the pit shown (all pits: every
        meter)."""
        pit = self.shown_pit
        if pit is None:
            return True
        return any(t.pit == pit for t in self.console.config.tables_in(key[0]))

    def _pit_chosen(self, _index: int) -> None:
        pit = self.shown_pit
        self.grid.show_pit(pit)
        for key, tile in self._meter_tiles.items():
            tile.setVisible(self._meter_shown(key))
        self.queue_title.setText(f"HIT QUEUE · {model.pit_label(pit)}" if pit else "HIT QUEUE")
        self._dirty_hits = True
        self._dirty_tables |= set(self.state.tables)  # (the header's count says "Floor:")
        self._paint()

    def read_services(self) -> None:
        """Who serves which table, read off the GUI thread (a shared ledger only)."""
        if self.shared and not self._closed:
            self.bridge.query(lambda: model.floor_services(self.console), self._on_services,
                              self._services_failed, key="services")

    def _on_services(self, found: model.FloorServices) -> None:
        self._services_error = ""
        changed = {t for t in set(found.tables) | set(self._services)
                   if found.tables.get(t) != self._services.get(t)}
        self._services = dict(found.tables)
        self._dirty_tables |= changed & set(self.state.tables)
        parts = []
        for line in found.services:
            color = theme.OK if line.up else theme.ALERT
            what = ("standing by" if line.up and not line.tables else
                    f"{line.tables} table{'s' if line.tables != 1 else ''}")
            parts.append(f'<span style="color:{color}"><b>● {html.escape(line.name)}</b> '
                         f'{"up" if line.up else "DOWN"}</span> · {what}')
        if found.unserved:
            n = found.unserved
            parts.append(f'<span style="color:{theme.ALERT}"><b>{n} table'
                         f'{"s" if n != 1 else ""} never served</b></span>')
        if not any(line.up for line in found.services):
            parts.insert(0, f'<span style="color:{theme.ALERT}"><b>NONE UP</b></span>')
        self.services_label.setText("Floor services: " + " &nbsp; ".join(parts))
        self.services_label.setToolTip("\n".join(
            f"{label}: {'up' if line.up else 'DOWN'}" for line in found.services
            for label in line.labels) or "No floor service is running")
        if changed:
            self._paint()

    def _services_failed(self, exc: BaseException) -> None:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if why != self._services_error:  # said once, not every 2 s
            self._services_error = why
            log.warning("could not read the floor services: %s", why)
        self.services_label.setText(f'<span style="color:{theme.ALERT}">Floor services: '
                                    f'could not be read ({html.escape(why)})</span>')

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
                    tile = MeterTile(key, tz=ZoneInfo(casino.timezone),
                                     symbol=casino.currency_symbol)
                    self._meter_tiles[key] = tile
                    self._meter_layout.insertWidget(self._meter_layout.count() - 1, tile)
                    tile.plotMade.connect(self._trends_stale.add)
                    tile.setVisible(self._meter_shown(key))
                tile.show_level(model.level_view(self.console, lv))

    def _on_slips(self, records: list[Any]) -> None:
        self._show_slips(model.slip_views(self.console, records))

    def _update_history(self) -> None:
        """Trends: new points are drawn at most twice a second; a level's whole window is
        read again (off the GUI thread) at start and after a pay (its hit markers)."""
        for key in sorted(self._trends_stale):
            if key not in self._meter_tiles:
                continue
            self._trends_stale.discard(key)

            def show(result: model.History, key: tuple[str, str] = key) -> None:
                tile = self._meter_tiles.get(key)
                if tile is not None:
                    tile.show_history(*result)

            def read(key: tuple[str, str] = key) -> model.History:
                return model.history(self.console, *key)

            self.bridge.query(read, show, self._read_failed, key=f"history:{key[0]}/{key[1]}")
        if not self._history_stale or time.monotonic() - self._last_history < HISTORY_S:
            return
        self._history_stale = False
        self._last_history = time.monotonic()
        for tile in self._meter_tiles.values():
            tile.redraw()

    def _show_slips(self, slips: list[model.SlipView]) -> None:
        self.slips.setRowCount(len(slips))
        self._slip_nos = [s.slip_no for s in slips]
        for r, s in enumerate(slips):
            fill_slip_row(self.slips, r, s, s.printed)
        unknown = sum(1 for s in slips if s.state == "unknown")
        self.slips_note.setText(
            f"⚠ {unknown} slip{'s' if unknown != 1 else ''} with print state UNKNOWN: a print "
            "started and its outcome was never recorded; the next print is marked DUPLICATE - "
            "PRINT STATE UNKNOWN" if unknown else "")
        self.slips_note.setVisible(bool(unknown))

    def _activity_tab(self) -> QWidget:
        """Activity: this session's messages on top, and below them what the ledger holds
        (decisions with who, adjustments, refused cards, prints, parameter changes), read back
        at start so a restart does not empty it; a filter narrows both."""
        w = QWidget()
        lay = QVBoxLayout(w)
        row = QHBoxLayout()
        row.addWidget(QLabel("Filter:"))
        self.activity_filter = QLineEdit()
        self.activity_filter.setPlaceholderText("words to look for: a table, a hit (H12), a "
                                                "name, paid, rejected, adjusted, refused…")
        self.activity_filter.setClearButtonEnabled(True)
        self.activity_filter.textChanged.connect(self._filter_activity)
        row.addWidget(self.activity_filter, 1)
        lay.addLayout(row)
        self.log_list = QListWidget()
        lay.addWidget(self.log_list, 1)
        return w

    def _filter_activity(self, *_: Any) -> None:
        words = self.activity_filter.text().lower().split()
        for i in range(self.log_list.count()):
            item = self.log_list.item(i)
            text = item.text().lower()
            item.setHidden(bool(words) and not all(word in text for word in words))

    def _show_ledger_activity(self, records: list[Any]) -> None:
        tz = ZoneInfo(self.console.config.casino.timezone)
        for r in records:  # newest first, below this session's own lines
            self.log_list.addItem(f"{r.at.astimezone(tz):%d %b %H:%M:%S}  {r.text}")
        self._filter_activity()

    def _update_clock(self) -> None:
        self.clock.setText(model.local_now(self.console).strftime("%a %d %b  %H:%M:%S"))

    def _log_records(self, records: list[Any]) -> None:
        for r in records:
            self._log(r.text)

    def _log(self, text: str) -> None:
        stamp = model.local_now(self.console).strftime("%d %b %H:%M:%S")
        self.log_list.insertItem(0, f"{stamp}  {text}")
        words = self.activity_filter.text().lower().split()
        if words and not all(word in text.lower() for word in words):
            self.log_list.item(0).setHidden(True)
        self.statusBar().showMessage(text, 8000)

    # -- actions ----------------------------------------------------------------------------
    def open_selected_hit(self) -> None:
        ids = self.queue.hit_ids()
        row = self.queue.currentRow()
        if not ids:
            others = len(self.state.pending)
            self.statusBar().showMessage(
                f"No hit waiting in {model.pit_label(self.shown_pit)} ({others} in other pits: "
                "Showing > All pits)" if others and self.shown_pit else "No hit waiting")
            return
        self.open_hit(ids[row] if 0 <= row < len(ids) else ids[0])

    def open_hit(self, hit_id: int) -> None:
        hit, cards = model.hit(self.state, self.console, hit_id)
        if hit is None:
            self.statusBar().showMessage("That hit is no longer waiting (already decided)")
            return
        table_id = self.state.pending[hit_id].table  # (the view shows the table's name)
        dlg = VerifyDialog(hit, cards, self.console.floor, self.authorize, self,
                           where=str(getattr(self.console, "name", "") or ""))
        self._verify_dialog: VerifyDialog | None = dlg
        dlg.exec()
        self._verify_dialog = None
        dlg.deleteLater()  # a child of this window: it would live as long as the window
        if dlg.outcome:
            what = "pay" if dlg.outcome == "paid" else "rejection"
            self._log(f"Hit {hit.ref} {dlg.outcome}"
                      f"{self.unserved_note(table_id, what, shown=hit.table)}")

    def unserved_note(self, table: str, what: str = "pay", shown: str = "") -> str:
        """What a decision (``what``: pay, rejection) on table id ``table``'s hit waits for
        when nothing carries it to the table now ("" when the table is linked): NO SERVICE
        (no floor service serves it) or an OFFLINE link; ``shown``: the table as named on
        screen (default its id)."""
        service = self._services.get(table)
        if service is not None and not service.up:
            state = "has NO SERVICE"
        else:
            known = self.state.tables.get(table)
            online = self.console.link_status().get(
                table, (known.online if known is not None else True, ""))[0]
            if online:
                return ""
            state = "is OFFLINE"
        return (f". Table {shown or table} {state}: the {what} is recorded and will be sent "
                "to the table when it is back")

    def pin_needed(self, role: str | None) -> bool:
        """Whether the floor asks for the PIN after a swipe of ``role`` authority."""
        policy = getattr(self.console.config, "authorization", None)
        return bool(policy is not None and policy.pin_needed(role))

    def authorize(self, role: str, what: str, kind: str, action: Any) -> bool:
        # the PIN follows the authority exercised ("employee": any active card); the locked
        # card swiped to lift its lock is only named, never authorizes
        needed = role if role in ("supervisor", "executive") else None
        prompt = SwipePrompt(self.catcher, role, what, action, self,
                             pin=kind != "locked_card" and self.pin_needed(needed))
        self._prompt_open = True
        self._swipe_prompt: SwipePrompt | None = prompt
        try:
            ok = prompt.exec() == SwipePrompt.DialogCode.Accepted
        finally:
            self._prompt_open = False
            self._swipe_prompt = None
            prompt.deleteLater()
        if ok and kind == "pay":
            self._after_pay(prompt.result_value)
        return ok

    def swipe_prompt(self, heading: str, what: str, action: Any, role: str = "executive") -> bool:
        """A swipe prompt with its own heading (the two cards of a meter adjustment); the PIN
        is asked when the floor asks it of ``role``."""
        prompt = AdjustSwipePrompt(self.catcher, heading, what, action, self,
                                   pin=self.pin_needed(role))
        self._prompt_open = True
        self._swipe_prompt = prompt
        try:
            return bool(prompt.exec() == SwipePrompt.DialogCode.Accepted)
        finally:
            self._prompt_open = False
            self._swipe_prompt = None
            prompt.deleteLater()

    def open_unlock(self) -> None:
        """People > Lift a card lock…: an executive lets a locked card swipe again."""
        done = lift_lock(self, self.console.floor)
        if done:
            self._log(done)

    def winpage_desk(self) -> Any:
        """The console's read-only desk on its own ledger (the win page search reads it)."""
        from core.desks.desk import Desk
        from core.ledger.db import reader

        c = self.console
        return Desk("supervisor", reader(c.engine), c.config, c.paytables)

    def open_winpages(self, slip_no: int | None = None) -> None:
        """Slips > Win pages… (Ctrl+F): search any win slip for its win page (print, PDF) and
        void one; opened on ``slip_no`` when given (the slip selected in Win slips)."""
        from gui.tablegames.winpage_search import WinPageSearchDialog

        dlg = WinPageSearchDialog(self.winpage_desk(), self, on_void=self._void_row)
        self.winpages_dialog = dlg
        if slip_no is not None:  # the panel searches when it is first shown
            dlg.panel.slip_no.setText(str(slip_no))
        try:
            dlg.exec()
        finally:
            self.winpages_dialog = None
            dlg.deleteLater()

    def _void_row(self, row: Any) -> None:
        from core.kernel.money import format_cents

        money = format_cents(row.amount_cents, self.console.config.casino.currency_symbol)
        summary = (f"Slip {row.slip_no:06d}: {money}, {row.table_id} seat {row.seat}, "
                   f"{row.hand.replace('_', ' ')}, paid {row.local}; authorized by "
                   f"{row.authorized_by}")
        if self.open_void(row.slip_no, summary) and self.winpages_dialog is not None:
            self.winpages_dialog.panel.refresh()

    def open_void(self, slip_no: int | None = None, summary: str = "") -> bool:
        """Slips > Void slip…: an executive voids a win slip (the slip selected in Win slips,
        or the number typed); True when it was voided."""
        from gui.tablegames.void_slip import void_slip

        if slip_no is None and self.tabs.currentWidget() is self.slips_tab:
            slip_no = self._selected_slip()
        done = void_slip(self, self.console.floor, slip_no=slip_no, summary=summary,
                         dialog=self._void_dialog_hook)
        if done:
            self._log(done)
            self._slips_stale = True
        return bool(done)

    # a test's or screenshot's look at the void dialog before it is shown
    _void_dialog_hook: Any = None

    def open_adjust(self) -> None:
        """Meters > Adjust meter… (Ctrl+J): a manual adjustment by two people."""
        dlg = AdjustDialog(self.console.floor, self.console.config, self.swipe_prompt, self)
        self._adjust_dialog: AdjustDialog | None = dlg
        dlg.exec()
        self._adjust_dialog = None
        dlg.deleteLater()
        if dlg.outcome:
            self._log(dlg.outcome)

    def _after_pay(self, paid: Any) -> None:
        slip_no = getattr(paid, "slip_no", None)
        if slip_no is not None:  # the console core prints every new slip by itself
            self._log(f"Paid; win slip {slip_no} sent to the printer")

    def _stray_swipe(self, _raw: str) -> None:
        if not self._prompt_open:
            self.statusBar().showMessage("Card swipe ignored: nothing is waiting for authorization")

    def _offer_unprinted(self, records: list[Any]) -> None:
        """At start: "N paid win slips were never printed: print them now?" (window-modal,
        not blocking the event loop); printing them queues them for the printer thread."""
        if not records or self._closed:
            return
        dlg = UnprintedSlipsDialog(model.slip_views(self.console, records), self)
        self.unprinted_dialog = dlg

        def done(result: int) -> None:
            nos = dlg.slip_nos()
            if result == UnprintedSlipsDialog.DialogCode.Accepted:
                self.console.print_slips(nos)  # a line says what was done, once it is
                self._log(f"Printing the {len(nos)} win slip(s) never printed, one after the "
                          "other…")
            else:
                self._log(f"{len(nos)} win slip(s) never printed left for later: Win slips > "
                          "Print all queued slips")
            self._slips_stale = True
            dlg.deleteLater()
            self.unprinted_dialog = None

        dlg.finished.connect(done)
        dlg.open()

    def _selected_slip(self) -> int | None:
        r = self.slips.currentRow()
        nos = getattr(self, "_slip_nos", [])
        return nos[r] if 0 <= r < len(nos) else None

    def _print_selected(self) -> None:
        n = self._selected_slip()
        if n is not None:
            self.console.print_slip(n, reprint=True)

    def _preview_selected(self) -> None:
        n = self._selected_slip()
        if n is None:
            return
        from gui.tablegames.slip_preview import SlipPreview

        def show(data: bytes) -> None:
            dlg = SlipPreview(data, f"Win slip {n}", self)
            dlg.exec()
            dlg.deleteLater()

        self.bridge.query(lambda: self.console.slip_bytes(n), show,
                          lambda exc: self._log(f"Win slip {n} can not be shown: {exc}"))

