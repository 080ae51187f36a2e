"""Which pit the floor shows, and who serves the floor (a shared ledger): the pit selector's
choice applied to the tables, meters and queue, and the floor services read every 2 s.

A part of MainWindow (gui/main_window.py), over the Floor tab's widgets (floor_tab.py)."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtWidgets import QComboBox, QLabel

from gui.console.actions import ConsoleActions
from gui.console.floor_tab import FloorTab
from gui.tablegames import model
from gui.tablegames.meter_tile import MeterTile
from gui.tablegames.table_grid import TableGrid

log = logging.getLogger("podium.gui")


class PitsAndServices(ConsoleActions):
    """The pit shown and the floor services (MainWindow is one)."""

    floor_tab: FloorTab
    grid: TableGrid
    pit_box: QComboBox
    queue_title: QLabel
    shared: bool
    _meter_tiles: dict[tuple[str, str], MeterTile]
    _services: dict[str, Any]
    _services_error: str
    _dirty_hits: bool
    _dirty_tables: set[str]

    def _paint(self) -> None:
        raise NotImplementedError

    @property
    def shown_pit(self) -> str | None:
        """The pit the floor shows now (None: every pit)."""
        return self.floor_tab.shown_pit

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
        self.floor_tab.show_services(found)
        if changed:
            self._paint()

    def _services_failed(self, exc: BaseException) -> None:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if why != self._services_error:  # said once, not every 2 s
            self._services_error = why
            log.warning("could not read the floor services: %s", why)
        self.floor_tab.services_failed(why)
