"""A list's selection follows its record, not its row: a table refilled (a new slip on top, a
hit paid, a case moved on) keeps the record the user picked selected wherever it now stands,
and selects nothing when that record is gone (never the record that moved into its row)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from PySide6.QtWidgets import QTableWidget


def selected_key(table: QTableWidget, keys: Sequence[Hashable]) -> Hashable | None:
    """The record of the selected row (None: no row selected)."""
    model = table.selectionModel()
    rows = model.selectedRows() if model is not None else []
    if not rows:
        return None
    r = rows[0].row()
    return keys[r] if 0 <= r < len(keys) else None


def reselect(table: QTableWidget, keys: Sequence[Hashable], key: Hashable | None) -> None:
    """Select the row of record ``key`` in ``table`` whose rows are now ``keys``; nothing
    selected when it is not among them."""
    if key is not None and key in keys:
        r = list(keys).index(key)
        column = max(table.currentColumn(), 0)
        table.setCurrentCell(r, column)
        table.selectRow(r)
        return
    table.clearSelection()
    table.setCurrentCell(-1, -1)
