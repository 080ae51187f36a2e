"""The podium's main window: floor, meters, hit queue, slips, and the swipe-driven pay flow."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui import model
from gui.adjust import AdjustDialog, AdjustSwipePrompt
from gui.authorize import SwipePrompt
from gui.swipe import SwipeCatcher
from gui.verify import VerifyDialog
from gui.widgets import HitQueue, MeterTile, TableGrid

log = logging.getLogger("podium.gui")

REFRESH_MS = 100  # repaint at most ~10 times a second, however fast the meters move
HISTORY_S = 0.5  # meter trends
URGENT_MS = 20  # a hit arriving or decided is shown at once (hits are rare; meters are not)


class MainWindow(QMainWindow):
    floorChanged = Signal(bool)  # noqa: N815  from any thread, queued to the GUI thread;
    # True when a hit arrived or was decided: shown at once unless the last repaint was
    # less than URGENT_MS ago (then on the next tick)

    def __init__(self, console: Any, catcher: SwipeCatcher) -> None:
        super().__init__()
        self.console = console
        self.catcher = catcher
        self.setWindowTitle(f"Podium — {console.config.casino.name}")
        self.resize(1600, 980)
        self._dirty = threading.Event()
        self._dirty.set()
        self._prompt_open = False
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
        self.grid = TableGrid()
        fl.addWidget(self.grid)
        qhead = QHBoxLayout()
        qt = QLabel("HIT QUEUE")
        qt.setObjectName("muted")
        qhead.addWidget(qt)
        qhead.addStretch(1)
        self.verify_btn = QPushButton("Verify selected hit (Enter)")
        self.verify_btn.setObjectName("primary")
        self.verify_btn.clicked.connect(self.open_selected_hit)
        qhead.addWidget(self.verify_btn)
        fl.addLayout(qhead)
        self.queue = HitQueue()
        self.queue.openHit.connect(self.open_hit)
        fl.addWidget(self.queue, 1)
        left.addTab(floor, "Floor")
        left.addTab(self._slips_tab(), "Win slips")
        self.log_list = QListWidget()
        left.addTab(self.log_list, "Activity")
        from gui.paytable_screen import PaytableScreen

        self.paytables = PaytableScreen(console)
        left.addTab(self.paytables, "Paytables")
        from gui.machine_check import MachineCheckScreen

        left.addTab(MachineCheckScreen(console, self), "Machine check")
        from gui.poker_room import PokerRoomScreen

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
        self.setCentralWidget(central)
        self.statusBar().showMessage("Ready")
        self.winpage_dir: Path | None = None  # None: <user data folder>/winpages
        meters_menu = self.menuBar().addMenu("&Meters")
        self.adjust_action = QAction("&Adjust meter…", self)
        self.adjust_action.setShortcut(QKeySequence("Ctrl+J"))
        self.adjust_action.triggered.connect(self.open_adjust)
        meters_menu.addAction(self.adjust_action)

        QShortcut(QKeySequence(Qt.Key.Key_F2), self, activated=self.open_selected_hit)
        self.catcher.swiped.connect(self._stray_swipe)
        self.floorChanged.connect(self._on_floor_changed)
        console.add_listener(lambda change: self.floorChanged.emit(bool(change.hits)))
        console.add_message_listener(lambda text: self._messages.append(text))
        self._messages: list[str] = []

        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self._timer.start(REFRESH_MS)
        self._clock_timer = QTimer(self)
        self._clock_timer.timeout.connect(self._update_clock)
        self._clock_timer.start(1000)
        self._update_clock()
        self.refresh()
        self.queue.setFocus()  # arrows pick a hit, Enter opens it

    # -- layout pieces ----------------------------------------------------------------------
    def _header(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        title = QLabel(self.console.config.casino.name)
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

    def _slips_tab(self) -> QWidget:
        w = QWidget()
        lay = QVBoxLayout(w)
        self.slips = QTableWidget(0, 6)
        self.slips.setHorizontalHeaderLabels(("Slip", "Hit", "Table / seat", "Amount", "Paid at",
                                              "Printed"))
        self.slips.verticalHeader().setVisible(False)
        self.slips.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.slips.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.slips.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.slips, 1)
        row = QHBoxLayout()
        self.print_btn = QPushButton("Print selected slip again")
        self.print_btn.clicked.connect(self._print_selected)
        row.addWidget(self.print_btn)
        self.preview_btn = QPushButton("Preview selected slip")
        self.preview_btn.clicked.connect(self._preview_selected)
        row.addWidget(self.preview_btn)
        self.winpage_btn = QPushButton("Win page (PDF)…")
        self.winpage_btn.clicked.connect(self.save_selected_winpage)
        row.addWidget(self.winpage_btn)
        self.print_winpage_btn = QPushButton("Print win page…")
        self.print_winpage_btn.clicked.connect(self._print_selected_winpage)
        row.addWidget(self.print_winpage_btn)
        self.retry_btn = QPushButton("Print all queued slips")
        self.retry_btn.clicked.connect(lambda: self.console.print_queued())
        row.addWidget(self.retry_btn)
        row.addStretch(1)
        lay.addLayout(row)
        return w

    # -- refresh ----------------------------------------------------------------------------
    def _on_floor_changed(self, urgent: bool) -> None:
        self._dirty.set()
        if urgent and time.monotonic() - self._last_refresh >= URGENT_MS / 1000:
            self._tick()

    def _tick(self) -> None:
        while self._messages:
            self._log(self._messages.pop(0))
        if self._dirty.is_set():
            self._dirty.clear()
            self.refresh()
        else:
            self._update_history()

    def refresh(self) -> None:
        self._last_refresh = time.monotonic()
        try:
            snap = model.snapshot(self.console)
        except Exception as exc:  # the ledger may be briefly unreachable (PostgreSQL restart)
            log.warning("could not read the floor: %s", exc)
            self.statusBar().showMessage(f"Could not read the ledger: {exc}")
            return
        self.grid.show_tables(snap.tables)
        online = sum(1 for t in snap.tables if t.online)
        total = len(snap.tables)
        color = "#3ecf8e" if online == total else "#ff4d4f"
        self.links.setText(f'<span style="color:{color}">● {online}/{total} tables online</span>')
        self.queue.show_hits(snap.hits, datetime.now(UTC))
        n = len(snap.hits)
        self.pending_label.setText(
            f'<span style="color:#ff4d4f">▲ {n} HIT{"S" if n != 1 else ""} WAITING</span>' if n
            else '<span style="color:#3ecf8e">No hits waiting</span>')
        self.verify_btn.setEnabled(bool(n))
        for lv in snap.levels:
            key = (lv.group, lv.level)
            tile = self._meter_tiles.get(key)
            if tile is None:
                tile = MeterTile(key, tz=ZoneInfo(self.console.config.casino.timezone))
                self._meter_tiles[key] = tile
                self._meter_layout.insertWidget(self._meter_layout.count() - 1, tile)
            tile.show_level(lv)
        self._history_stale = True
        self._update_history()
        self._show_slips(snap.slips)

    def _update_history(self) -> None:
        """Trends: redrawn at most twice a second, and soon after the last change."""
        if not self._history_stale or time.monotonic() - self._last_history < HISTORY_S:
            return
        self._history_stale = False
        self._last_history = time.monotonic()
        for key, tile in self._meter_tiles.items():
            xs, ys, hx, hy = model.history(self.console, *key)
            tile.show_history(xs, ys, hx, hy)

    def _show_slips(self, slips: list[model.SlipView]) -> None:
        self.slips.setRowCount(len(slips))
        self._slip_nos = [s.slip_no for s in slips]
        for r, s in enumerate(slips):
            vals = (str(s.slip_no), s.hit_ref, s.where, s.amount, s.paid_at, s.printed)
            for c, v in enumerate(vals):
                item = QTableWidgetItem(v)
                if c == 5 and not s.printed_ok:
                    item.setForeground(Qt.GlobalColor.red)
                self.slips.setItem(r, c, item)

    def _update_clock(self) -> None:
        self.clock.setText(model.local_now(self.console).strftime("%a %d %b  %H:%M:%S"))

    def _log(self, text: str) -> None:
        stamp = model.local_now(self.console).strftime("%H:%M:%S")
        self.log_list.insertItem(0, f"{stamp}  {text}")
        self.statusBar().showMessage(text, 8000)

    # -- actions ----------------------------------------------------------------------------
    def open_selected_hit(self) -> None:
        ids = self.queue.hit_ids()
        row = self.queue.currentRow()
        if not ids:
            self.statusBar().showMessage("No hit waiting")
            return
        self.open_hit(ids[row] if 0 <= row < len(ids) else ids[0])

    def open_hit(self, hit_id: int) -> None:
        hit, cards = model.hit(self.console, hit_id)
        if hit is None:
            self.statusBar().showMessage("That hit is no longer waiting (already decided)")
            return
        dlg = VerifyDialog(hit, cards, self.console.floor, self.authorize, self)
        self._verify_dialog = dlg
        dlg.exec()
        self._verify_dialog = None
        if dlg.outcome:
            self._log(f"Hit {hit.ref} {dlg.outcome}")
        self._dirty.set()

    def authorize(self, role: str, what: str, kind: str, action: Any) -> bool:
        prompt = SwipePrompt(self.catcher, role, what, action, self)
        self._prompt_open = True
        self._swipe_prompt = prompt
        try:
            ok = prompt.exec() == SwipePrompt.DialogCode.Accepted
        finally:
            self._prompt_open = False
            self._swipe_prompt = None
        if ok and kind == "pay":
            self._after_pay(prompt.result_value)
        return ok

    def swipe_prompt(self, heading: str, what: str, action: Any) -> bool:
        """A swipe prompt with its own heading (the two cards of a meter adjustment)."""
        prompt = AdjustSwipePrompt(self.catcher, heading, what, action, self)
        self._prompt_open = True
        self._swipe_prompt = prompt
        try:
            return bool(prompt.exec() == SwipePrompt.DialogCode.Accepted)
        finally:
            self._prompt_open = False
            self._swipe_prompt = None

    def open_adjust(self) -> None:
        """Meters > Adjust meter… (Ctrl+J): a manual adjustment by two people."""
        dlg = AdjustDialog(self.console.floor, self.console.config, self.swipe_prompt, self)
        self._adjust_dialog = dlg
        dlg.exec()
        self._adjust_dialog = None
        if dlg.outcome:
            self._log(dlg.outcome)
        self._dirty.set()

    def _after_pay(self, paid: Any) -> None:
        slip_no = getattr(paid, "slip_no", None)
        if slip_no is not None:  # the console core prints every new slip by itself
            self._log(f"Paid; win slip {slip_no} sent to the printer")

    def _stray_swipe(self, _raw: str) -> None:
        if not self._prompt_open:
            self.statusBar().showMessage("Card swipe ignored: nothing is waiting for authorization")

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
        if n is not None:
            from gui.slip_preview import SlipPreview

            SlipPreview(self.console.slip_bytes(n), f"Win slip {n}", self).exec()

    def save_selected_winpage(self) -> Path | None:
        """Win slips > Win page (PDF)…: the selected slip's accounting win page as a PDF in
        the user data folder's ``winpages``; the path goes to the status bar and Activity."""
        from gui.winpage_dialog import save_winpage_pdf

        n = self._selected_slip()
        if n is None:
            self.statusBar().showMessage("Select a win slip first")
            return None
        try:
            path = save_winpage_pdf(self.console.floor, n, self.winpage_dir)
        except Exception as exc:  # a full disk, a folder not writable: say so, keep going
            log.warning("win page of slip %s: %s", n, exc)
            self._log(f"Win page of slip {n} not written: {exc}")
            return None
        self._log(f"Win page of slip {n} written to {path}")
        return path

    def _print_selected_winpage(self) -> None:
        from gui.winpage_dialog import print_winpage

        n = self._selected_slip()
        if n is None:
            self.statusBar().showMessage("Select a win slip first")
            return
        try:
            printed = print_winpage(self.console.floor, n, self)
        except ValueError as exc:
            self._log(f"Win page of slip {n} not printed: {exc}")
            return
        if printed:
            self._log(f"Win page of slip {n} sent to the printer")
