"""What the podium's menus, keys and buttons do: open a hit for verification, the swipe
prompts of a pay or an adjustment, the win pages, voids, card locks, the slips never printed, a
slip printed again or previewed, and quitting with hits waiting.

A mixin of MainWindow (gui/main_window.py): it works on the window's state, queue and tabs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QMessageBox, QTabWidget

from gui.common.authorize import SwipePrompt
from gui.common.bridge import Bridge
from gui.common.swipe import SwipeCatcher
from gui.console.slips_tab import SlipsTab
from gui.people.card_locks import lift_lock
from gui.tablegames import model
from gui.tablegames.adjust import AdjustDialog, AdjustSwipePrompt
from gui.tablegames.hit_queue import HitQueue
from gui.tablegames.unprinted_slips import UnprintedSlipsDialog
from gui.tablegames.verify import VerifyDialog


class ConsoleActions(QMainWindow):
    """The console window's actions (MainWindow is one)."""

    console: Any
    catcher: SwipeCatcher
    bridge: Bridge
    state: model.FloorState
    queue: HitQueue
    tabs: QTabWidget
    slips_tab: SlipsTab
    confirm_quit: Callable[[int], bool]
    unprinted_dialog: UnprintedSlipsDialog | None
    winpages_dialog: Any
    _prompt_open: bool
    _closed: bool
    _slips_stale: bool
    _services: dict[str, Any]

    @property
    def shown_pit(self) -> str | None:
        raise NotImplementedError

    def _log(self, text: str) -> None:
        raise NotImplementedError

    def _selected_slip(self) -> int | None:
        raise NotImplementedError

    def _menus_and_keys(self) -> None:
        """The menus (File, Meters, Slips, People) and the keys of the window."""
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
                           where=str(getattr(self.console, "name", "") or ""),
                           money=self.console.config.money,
                           waits=lambda: self.decision_waits(table_id))
        self._verify_dialog: VerifyDialog | None = dlg
        dlg.exec()
        self._verify_dialog = None
        dlg.deleteLater()  # a child of this window: it would live as long as the window
        if dlg.outcome:
            what = "pay" if dlg.outcome == "paid" else "rejection"
            note = model.waiting_note(self.decision_waits(table_id), hit.table, what)
            self._log(f"Hit {hit.ref} {dlg.outcome}{f'. {note}' if note else ''}")

    def decision_waits(self, table: str) -> str:
        """What a decision on table id ``table``'s hit waits for before it reaches the table
        (``model.decision_waits``): "has NO SERVICE" (no floor service serves it), "is
        OFFLINE" (its link is down), "" (linked): this console's links and the floor
        services as last read."""
        links = self.console.link_status()
        service = self._services.get(table)
        known = self.state.tables.get(table)
        if known is None:  # not in the floor's picture: its service and link alone
            return model.waits_for(no_service=service is not None and not service.up,
                                   online=links.get(table, (True, ""))[0])
        return model.decision_waits(model.table_view(self.console, known, links, service))

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
        money = self.console.config.money.text(row.amount_cents)
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
                          lambda exc: self._log(f"Win slip {n} can not be shown: {exc}"),
                          owner=self)

