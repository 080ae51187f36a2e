"""The accountant's and surveillance's console: ``podium console --role accountant|surveillance|
card`` (docs/operator.md "Desks").

A read-only window over a :class:`core.desks.desk.Desk`: it connects to no table controller, prints
nothing to a slip printer and can change nothing (the ledger refuses it as well: the desk's
engine can not write).  The header names the casino, the desk, who opened it and the ledger's
chain head (the line the desk's printed pages cite; read again every minute, off the GUI
thread); the tabs are those :data:`DESK_TABS` lists for the desk's role.

Each tab is ``(title, "module:Class")``, built as ``Class(desk)``.  A tab whose module is not
installed, or whose class fails to build, shows a placeholder naming the problem: the rest of
the desk works on.
"""

from __future__ import annotations

import importlib
import logging
from datetime import UTC, datetime

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.desks.desk import DESK_NAMES, Desk, chain_head_text
from gui.common import theme, window_geometry
from gui.common.bridge import default_bridge

log = logging.getLogger("podium.gui.desk")

#: The tabs of each desk, in order: (title, "module:Class"); each class is built as Class(desk).
DESK_TABS: dict[str, list[tuple[str, str]]] = {
    "accountant": [
        ("Reconciliation", "gui.desks.accounting_panel:ReconciliationPanel"),
        ("Win pages", "gui.tablegames.winpage_search:WinPageSearch"),
        ("Plots", "gui.desks.desk_plots:DeskPlots"),
    ],
    "surveillance": [
        ("Hits", "gui.desks.surveillance:SurveillancePanel"),
        ("Machine checks", "gui.machines.machine_check_list:MachineCheckList"),
        ("Plots", "gui.desks.desk_plots:DeskPlots"),
        ("Ledger check", "gui.desks.ledger_check:LedgerCheckPanel"),
    ],
}

HEAD_REFRESH_MS = 60_000  # the chain head read again (a live floor goes on writing)


class Placeholder(QWidget):
    """What a tab shows when its panel is not there: the problem, in words."""

    def __init__(self, title: str, problem: str) -> None:
        super().__init__()
        self.setObjectName("placeholder")
        self.problem = problem
        lay = QVBoxLayout(self)
        lay.addStretch(1)
        head = QLabel(f"{title}: not available on this desk")
        head.setObjectName("title")
        head.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(head)
        text = QLabel(problem)
        text.setObjectName("muted")
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(text)
        lay.addStretch(2)


def build_tab(desk: Desk, title: str, spec: str) -> QWidget:
    """The panel ``spec`` ("module:Class") built for ``desk``, or a :class:`Placeholder` that
    names why it could not be (never an exception)."""
    module_name, _, class_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name == exc.name
                                   or module_name.startswith(exc.name + ".")):
            log.warning("desk tab %s: module %s is not installed", title, module_name)
            return Placeholder(title, f"The panel's module {module_name} is not installed in "
                                      "this Podium.")
        log.error("desk tab %s: module %s needs %s, which is not installed", title,
                  module_name, exc.name)
        return Placeholder(title, f"The panel's module {module_name} needs {exc.name}, which is "
                                  "not installed.")
    except Exception as exc:  # a broken module must not take the desk down
        log.error("desk tab %s: module %s failed to load", title, module_name, exc_info=exc)
        return Placeholder(title, f"The panel's module {module_name} failed to load: "
                                  f"{exc.__class__.__name__}: {_first_line(exc)}")
    cls = getattr(module, class_name, None) if class_name else None
    if cls is None:
        log.error("desk tab %s: %s has no %s", title, module_name, class_name or "class named")
        return Placeholder(title, f"The module {module_name} has no panel "
                                  f"{class_name or '(no class named in ' + spec + ')'}.")
    try:
        widget = cls(desk)
    except Exception as exc:
        log.error("desk tab %s: %s could not be built", title, spec, exc_info=exc)
        return Placeholder(title, f"The panel {class_name} could not be built: "
                                  f"{exc.__class__.__name__}: {_first_line(exc)}")
    if not isinstance(widget, QWidget):
        log.error("desk tab %s: %s is not a widget", title, spec)
        return Placeholder(title, f"{spec} is not a panel (not a widget).")
    return widget


def _first_line(exc: BaseException) -> str:
    return (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]


class DeskWindow(QMainWindow):
    """The desk's main window (read-only)."""

    def __init__(self, desk: Desk, tabs: list[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.desk = desk
        self.chain_head_text = ""  # "Ledger chain head N:HASH" once read
        self._closed = False
        desk_name = DESK_NAMES.get(desk.role, f"{desk.role} desk")
        self.setWindowTitle(f"Podium — {desk.config.casino.name} — {desk_name} (read-only)")

        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.addLayout(self._header(desk_name))
        self.head_label = QLabel("Ledger chain head: reading…")
        self.head_label.setObjectName("chainHead")
        self.head_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.head_label.setStyleSheet(f"color: {theme.MUTED}; font-family: monospace; "
                                      "font-size: 11pt;")
        outer.addWidget(self.head_label)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("deskTabs")
        for title, spec in (DESK_TABS.get(desk.role, []) if tabs is None else tabs):
            self.tabs.addTab(build_tab(desk, title, spec), title)
        outer.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        # no fixed size: the geometry last used on this screen, else the screen's area
        window_geometry.restore(self, self.screen(), prefix="desk")
        self.statusBar().showMessage(
            "Read-only: this desk is connected to no table controller and can change nothing "
            "in the ledger")

        menu = self.menuBar().addMenu("&Desk")
        refresh = QAction("&Read the chain head again", self)
        refresh.setShortcut(QKeySequence("F5"))
        refresh.triggered.connect(self.refresh_head)
        menu.addAction(refresh)
        quit_ = QAction("&Quit", self)
        quit_.setShortcut(QKeySequence("Ctrl+Q"))
        quit_.triggered.connect(self.close)
        menu.addAction(quit_)

        self._head_timer = QTimer(self)
        self._head_timer.timeout.connect(self.refresh_head)
        self._head_timer.start(HEAD_REFRESH_MS)
        self.refresh_head()

    def _header(self, desk_name: str) -> QHBoxLayout:
        bar = QHBoxLayout()
        title = QLabel(self.desk.config.casino.name)
        title.setObjectName("title")
        bar.addWidget(title)
        bar.addSpacing(24)
        self.role_label = QLabel(desk_name.upper())
        self.role_label.setObjectName("deskRole")
        self.role_label.setStyleSheet(f"font-size: 16pt; font-weight: bold; color: {theme.INFO};")
        bar.addWidget(self.role_label)
        bar.addSpacing(24)
        self.who_label = QLabel(self.desk.employee or "no card swiped")
        self.who_label.setObjectName("deskWho" if self.desk.employee else "muted")
        self.who_label.setStyleSheet("font-size: 14pt;")
        bar.addWidget(self.who_label)
        bar.addStretch(1)
        self.badge = QLabel("READ-ONLY")
        self.badge.setObjectName("readOnlyBadge")
        self.badge.setToolTip("The ledger is opened read-only: the database refuses any change "
                              "from this console")
        self.badge.setStyleSheet(f"color: {theme.WARN}; border: 2px solid {theme.WARN}; "
                                 "border-radius: 6px; padding: 4px 12px; font-size: 14pt; "
                                 "font-weight: bold;")
        bar.addWidget(self.badge)
        return bar

    def refresh_head(self) -> None:
        """Read the chain head off the GUI thread; the header shows it when it arrives."""
        if self._closed:
            return
        desk = self.desk
        default_bridge().query(lambda: chain_head_text(desk), self._head_read,
                               self._head_failed, key=f"desk-head-{id(self)}")

    def _head_read(self, head: str) -> None:
        if self._closed:
            return
        self.chain_head_text = head
        at = datetime.now(UTC).astimezone(self.desk.tz).strftime("%H:%M:%S")
        self.head_label.setText(f"{head}   (read at {at} casino time)")
        self.head_label.setStyleSheet(f"color: {theme.MUTED}; font-family: monospace; "
                                      "font-size: 11pt;")

    def _head_failed(self, exc: BaseException) -> None:
        if self._closed:
            return
        log.warning("chain head not read: %s", _first_line(exc))
        self.head_label.setText(f"Ledger chain head: the ledger could not be read "
                                f"({_first_line(exc)}); trying again in a minute")
        self.head_label.setStyleSheet(f"color: {theme.ALERT}; font-weight: bold;")

    def closeEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self._closed = True
        self._head_timer.stop()
        if self.isVisible():
            window_geometry.save(self, self.screen(), prefix="desk")
        super().closeEvent(event)  # type: ignore[arg-type]
