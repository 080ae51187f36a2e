"""The "Poker room" tab (docs/operator.md "Poker room"; rules docs/bbj.md, RULES.md section 6):
panels over the poker-room facade (``core.pokerroom.room.PokerRoom``).

- :class:`~gui.pokerroom.fund.FundHeader`: the chosen fund's main and reserve in large figures
  (refreshed at most every FUND_REFRESH_MS; a ceased fund says so, a notice that holds too);
- :class:`~gui.pokerroom.claim.ClaimPanel`: claim entry and its decision, "Open case";
- beside it the pages: :class:`~gui.pokerroom.cases.CasesPanel` (the cases and their steps,
  share slips), :class:`~gui.pokerroom.counts.CountPanel` (the daily count, tournament fees),
  :class:`~gui.pokerroom.closure.ClosurePanel` (cessation: notices, the forfeiture on closure),
  the regulator's forms (gui/pokerroom/forms_panel.py) and
  :class:`~gui.pokerroom.deadlines.DeadlinesPanel` (the room's deadlines and their filings).

Every panel holds the one :class:`~gui.pokerroom.common.RoomContext` (the facade, the settings,
the clock, the chosen fund as last read); the screen composes them and wires what one panel's
step changes to the panels that show it (Qt signals).  Reads run on a worker thread through
the bridge (gui/common/bridge.py); a step's write runs in the swipe prompt's action (on the bridge's
ops thread, gui/common/authorize.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox, QSplitter, QTabWidget, QVBoxLayout, QWidget

from core.pokerroom import fund as bf
from core.pokerroom.room import PokerRoom
from core.pokerroom.rules.bbj import BbjSettings
from gui.pokerroom.cases import CasesPanel
from gui.pokerroom.claim import ClaimPanel
from gui.pokerroom.closure import ClosurePanel
from gui.pokerroom.common import RoomContext, scrolled
from gui.pokerroom.counts import CountPanel
from gui.pokerroom.deadlines import DeadlinesPanel
from gui.pokerroom.forms_panel import FormsPanel
from gui.pokerroom.fund import FundHeader

FUND_REFRESH_MS = 5000


class PokerRoomScreen(QWidget):
    def __init__(self, console: Any, window: Any) -> None:
        super().__init__()
        self.console = console
        config = console.config
        self.tz = ZoneInfo(config.casino.timezone)
        room = PokerRoom(console.engine, lambda: console.config)  # (maybe reloaded)
        # the floor file's [poker_room]; the confirmation before an irreversible step (a test
        # replaces it: no modal dialog)
        self.ctx = RoomContext(room, window, self.tz, config.poker_room.rules,
                               config.poker_room.fund, self._ask, money=config.fund_money)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.fund = FundHeader(self.ctx)
        outer.addWidget(self.fund)

        split = QSplitter()
        self.claim = ClaimPanel(self.ctx)
        self.claim_scroll = scrolled(self.claim)
        self.claim.scroll_area = self.claim_scroll
        split.addWidget(self.claim_scroll)
        self.pages = QTabWidget()
        self.pages.setObjectName("pokerPages")
        self.cases = CasesPanel(self.ctx, console)
        self.pages.addTab(self.cases, "Cases")
        self.counts = CountPanel(self.ctx)
        self.pages.addTab(scrolled(self.counts), "Daily count")
        self.closure = ClosurePanel(self.ctx)
        self.closure_scroll = scrolled(self.closure)
        self.pages.addTab(self.closure_scroll, "Cessation")
        self.forms = FormsPanel(console, self.tz)
        self.pages.addTab(scrolled(self.forms), "Forms")
        self.deadlines = DeadlinesPanel(self.ctx)
        self.pages.addTab(self.deadlines, "Deadlines")
        self.pages.currentChanged.connect(self._page_changed)
        split.addWidget(self.pages)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([720, 600])  # the picker needs ~660 px; the pages take the rest
        outer.addWidget(split, 1)

        # what one panel's step changes, the others show
        self.fund.fund_changed.connect(
            lambda: self.forms.set_funds(self.ctx.funds, self.ctx.fund))
        self.fund.status_changed.connect(self.cases.cease_follows_notice)
        self.fund.status_changed.connect(self.closure.show_status)
        self.claim.case_opened.connect(self.refresh_cases)
        self.cases.case_chosen.connect(self.forms.set_cases)
        self.cases.fund_moved.connect(self.load_funds)
        self.cases.tax_withheld.connect(self.refresh_deadlines)
        self.counts.posted.connect(self.refresh_funds)
        self.closure.notice_changed.connect(self.refresh_funds)
        self.closure.forfeited.connect(self.load_funds)
        self.deadlines.late_counted.connect(self._show_late)

        # Another podium's postings and awards move the fund: read it again now and then, off
        # the GUI thread (the bridge); this tab's own steps read it at once.
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._poll_fund)
        self._timer.start(FUND_REFRESH_MS)
        self.load_funds()
        self.refresh_cases()
        self.refresh_deadlines()

    # what the panels share (a test replaces the settings, the clock or the confirmation)
    @property
    def rules(self) -> BbjSettings:
        return self.ctx.rules

    @rules.setter
    def rules(self, rules: BbjSettings) -> None:
        self.ctx.rules = rules

    @property
    def fund_settings(self) -> bf.FundSettings:
        return self.ctx.fund_settings

    @fund_settings.setter
    def fund_settings(self, settings: bf.FundSettings) -> None:
        self.ctx.fund_settings = settings

    @property
    def now(self) -> Callable[[], datetime]:
        """The clock of the deadlines and of the steps taken here."""
        return self.ctx.now

    @now.setter
    def now(self, clock: Callable[[], datetime]) -> None:
        self.ctx.now = clock

    @property
    def ask(self) -> Callable[[str, str], bool]:
        """The confirmation before an irreversible step."""
        return self.ctx.ask

    @ask.setter
    def ask(self, ask: Callable[[str, str], bool]) -> None:
        self.ctx.ask = ask

    def _ask(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(
            self, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    # the reads, each off the GUI thread
    def load_funds(self) -> None:
        """(Re-)read the funds and which have ceased; the chosen fund stays chosen."""
        self.fund.load_funds()

    def refresh_funds(self) -> None:
        """Read the chosen fund's amounts and status again."""
        self.fund.refresh()

    def refresh_cases(self) -> None:
        self.cases.refresh()

    def refresh_deadlines(self) -> None:
        self.deadlines.refresh()

    def _deadlines_page(self) -> int:
        return next(i for i in range(self.pages.count())
                    if self.pages.tabText(i).startswith("Deadlines"))

    def _show_late(self, late: int) -> None:
        self.pages.setTabText(self._deadlines_page(),
                              f"Deadlines ({late} LATE)" if late else "Deadlines")

    def _page_changed(self, index: int) -> None:
        if self.pages.tabText(index).startswith("Deadlines"):
            self.refresh_deadlines()

    def _poll_fund(self) -> None:
        if self.isVisible():
            self.refresh_funds()
            if self.pages.tabText(self.pages.currentIndex()).startswith("Deadlines"):
                self.refresh_deadlines()  # days pass; another podium records a filing
