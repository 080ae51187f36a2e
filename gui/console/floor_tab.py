"""The Floor tab: which pit is shown and who serves the floor, the tables, the hit queue."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gui.common import theme
from gui.tablegames import model
from gui.tablegames.hit_queue import HitQueue
from gui.tablegames.table_grid import TableGrid


class FloorTab(QWidget):
    """The pit selector and the floor services over the tables' grid, and the hit queue below
    it (a splitter between them: the queue keeps room for several hits on a short screen)."""

    def __init__(self, console: Any, pit: str | None, shared: bool, *,
                 on_pit: Callable[[int], None], on_show_all: Callable[[], None],
                 on_verify: Callable[[], None], on_open_hit: Callable[[int], None]) -> None:
        super().__init__()
        self.console = console
        fl = QVBoxLayout(self)
        fl.addLayout(self._pit_bar(pit, shared, on_pit))
        self.grid = TableGrid()
        if shared:
            self.grid.show_services()
        queue_box = QWidget()
        ql = QVBoxLayout(queue_box)
        ql.setContentsMargins(0, 0, 0, 0)
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
        self.other_hits.clicked.connect(on_show_all)
        self.other_hits.setVisible(False)
        qhead.addWidget(self.other_hits)
        qhead.addStretch(1)
        self.verify_btn = QPushButton("Verify selected hit (Enter)")
        self.verify_btn.setObjectName("primary")
        self.verify_btn.clicked.connect(on_verify)
        qhead.addWidget(self.verify_btn)
        ql.addLayout(qhead)
        self.queue = HitQueue()
        self.queue.money = console.config.money  # [casino] currency, locale
        self.queue.openHit.connect(on_open_hit)
        # a short screen: the queue shows a few hits at least (header + 4 rows), its table
        # scrolls for more
        self.queue.setMinimumHeight(self.queue.horizontalHeader().sizeHint().height()
                                    + 4 * self.queue.verticalHeader().defaultSectionSize() + 4)
        ql.addWidget(self.queue, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.grid)
        self.split.addWidget(queue_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        fl.addWidget(self.split, 1)
        self.grid.show_pit(self.shown_pit)
        if self.shown_pit:
            self.queue_title.setText(f"HIT QUEUE · {model.pit_label(self.shown_pit)}")

    def _pit_bar(self, pit: str | None, shared: bool,
                 on_pit: Callable[[int], None]) -> QHBoxLayout:
        """Above the grid: which pit the floor shows, and who serves the floor."""
        bar = QHBoxLayout()
        pits = tuple(self.console.config.pits)
        self.pit_box = QComboBox()
        self.pit_box.setObjectName("pitSelector")
        for p in pits:
            label = model.pit_label(p)
            if p == pit:
                label += " (this podium)"
            self.pit_box.addItem(label, p)
        self.pit_box.addItem("All pits", None)
        self.pit_box.setToolTip("The pit whose tables and hits the floor shows")
        self.pit_box.setCurrentIndex(pits.index(pit) if pit in pits else len(pits))
        self.pit_box.currentIndexChanged.connect(on_pit)
        shows = QLabel("Showing")
        shows.setObjectName("muted")
        bar.addWidget(shows)
        bar.addWidget(self.pit_box)
        shows.setVisible(bool(pits))
        self.pit_box.setVisible(bool(pits))  # a floor file with no pits: nothing to choose
        bar.addSpacing(24)
        self.services_label = QLabel("Floor services: reading…")
        self.services_label.setTextFormat(Qt.TextFormat.RichText)
        self.services_label.setWordWrap(True)  # many services: more lines, never a wider window
        self.services_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                          QSizePolicy.Policy.Preferred)
        self.services_label.setVisible(shared)  # one podium: this console serves all
        bar.addWidget(self.services_label, 1)
        return bar

    @property
    def shown_pit(self) -> str | None:
        """The pit the floor shows now (None: every pit)."""
        pit = self.pit_box.currentData()
        return str(pit) if pit is not None else None

    def show_services(self, found: model.FloorServices) -> None:
        """Who serves the floor, one coloured part a service."""
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

    def services_failed(self, why: str) -> None:
        self.services_label.setText(f'<span style="color:{theme.ALERT}">Floor services: '
                                    f'could not be read ({html.escape(why)})</span>')
