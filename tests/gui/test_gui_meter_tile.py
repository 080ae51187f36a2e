"""The meter tile's trend plot (gui/widgets.py MeterTile): its time axis reads in the casino's
local time, whatever the computer's own time zone."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from gui.widgets import MeterTile


def test_the_trend_time_axis_shows_casino_local_time(qtbot) -> None:  # type: ignore[no-untyped-def]
    at = datetime(2026, 12, 2, 4, 0, tzinfo=UTC).timestamp()
    manila = MeterTile(("WA01", "MAIN"), tz=ZoneInfo("Asia/Manila"))  # UTC+8, no DST
    vegas = MeterTile(("WA01", "MAIN"), tz=ZoneInfo("America/Los_Angeles"))  # UTC-8 in December
    for tile in (manila, vegas):
        qtbot.addWidget(tile)
        tile.resize(400, 220)
        tile.show()
        tile.show_history([at, at + 3600, at + 7200], [1000.0, 1500.0, 2000.0], [at + 3600],
                          [1500.0])
        qtbot.waitExposed(tile)
        # the plot is made once the tile has been painted and is in sight (a meter never
        # seen has none)
        qtbot.waitUntil(lambda tile=tile: tile.plot is not None and tile.plot.isVisible())
        tile.plot.grab()  # paints the axis, which picks its zoom level
    assert manila.time_axis.tickStrings([at, at + 3600], 1, 3600) == ["12:00", "13:00"]
    assert vegas.time_axis.tickStrings([at, at + 3600], 1, 3600) == ["20:00", "21:00"]
