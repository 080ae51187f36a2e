"""The meter tile's trend plot (gui/tablegames/meter_tile.py MeterTile): its time axis reads in the
casino's local time, whatever the computer's own time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from gui.tablegames.meter_tile import MeterTile
from gui.tablegames.model import LevelView


def value_at(curve, x: float) -> float:  # type: ignore[no-untyped-def]
    """The height of the drawn line at ``x`` (its path, as painted)."""
    path = curve.curve.getPath() if hasattr(curve, "curve") else curve.getPath()
    points = [(path.elementAt(i).x, path.elementAt(i).y) for i in range(path.elementCount())]
    return [y for px, y in points if px <= x][-1]


def test_the_trend_time_axis_shows_casino_local_time(qtbot) -> None:  # type: ignore[no-untyped-def]
    # three hours ago on the hour (the trend is drawn to now: the axis zooms to hours)
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    at = start.timestamp()
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
    for tile, zone in ((manila, "Asia/Manila"), (vegas, "America/Los_Angeles")):
        local = [(start + timedelta(hours=h)).astimezone(ZoneInfo(zone)) for h in (0, 1)]
        assert tile.time_axis.tickStrings([at, at + 3600], 1, 3600) == \
            [f"{t:%H:%M}" for t in local]


def test_the_trend_is_a_step_line_to_now_with_markers_at_pays_and_adjustments(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A $25k pay is a drop at its moment, not a slope from the point before; the line goes on
    to now; a pay (red) and an adjustment (blue) are marked where the line drops or rises; the
    money axis reads as money."""
    import time

    from gui.common.axes import MoneyAxis

    now = time.time()
    tile = MeterTile(("WA01", "MAIN"), tz=ZoneInfo("Asia/Manila"))
    qtbot.addWidget(tile)
    tile.resize(420, 240)
    tile.show()
    xs = [now - 3600, now - 1800, now - 1790, now - 600]
    ys = [30_000.0, 30_400.0, 5_400.0, 5_500.0]  # a $25,000 pay at now - 1790
    tile.show_history(xs, ys, [now - 1790], [30_400.0], [now - 600], [5_400.0])
    qtbot.waitUntil(lambda: tile.plot is not None and tile.plot.isVisible())
    tile.redraw()
    assert tile.curve.opts["stepMode"] == "right"
    assert value_at(tile.curve, now - 1791) == 30_400.0  # before the pay: the meter it paid
    assert value_at(tile.curve, now - 1790) == 5_400.0  # the drop at the pay's moment
    assert value_at(tile.curve, now - 3000) == 30_000.0  # not yet the 30,400 of now - 1800
    x, y = tile.curve.getData()
    assert list(y[:4]) == ys and y[-1] == ys[-1] and x[-1] >= now  # held to now
    hx, hy = tile.hits.getData()
    assert list(hx) == [now - 1790] and list(hy) == [30_400.0]  # the top of the drop
    ax, ay = tile.adjustments.getData()
    assert list(ax) == [now - 600] and list(ay) == [5_400.0]
    axis = tile.plot.getAxis("left")
    assert isinstance(axis, MoneyAxis)
    assert axis.tickStrings([10_000.0, 20_000.0], 1, 10_000) == ["$10,000.00", "$20,000.00"]
    assert axis.tickStrings([10_000.2, 10_000.4], 1, 0.2) == ["$10,000.20", "$10,000.40"]
    import os
    from pathlib import Path

    shots = os.environ.get("PODIUM_SCREENSHOT_DIR")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        tile.show_level(LevelView("WA01", "WA01 Link", "MAIN", 550_000, 12, 500_000))
        tile.plot.grab()
        qtbot.wait(200)
        tile.grab().save(str(Path(shots) / "meter-step-chart.png"))
