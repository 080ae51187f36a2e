"""A table's tile asked for before the console's first picture of the floor arrives (it comes
from a worker, after the window shows) says nothing yet, rather than failing: a test's wait for
"OFFLINE" or "NO SERVICE" keeps waiting (test_gui_console's offline test failed on a KeyError
when its console was quicker than the picture)."""

from __future__ import annotations

from gui.tablegames.table_grid import TableGrid


def test_a_tile_not_shown_yet_is_its_name_alone(qtbot) -> None:  # type: ignore[no-untyped-def]
    grid = TableGrid()
    qtbot.addWidget(grid)
    tile = grid.tile("PG-1")
    assert tile.name == "PG-1"
    assert (tile.link, tile.round, tile.bets, tile.service) == ("", "", "", "")
    assert "OFFLINE" not in tile.link
