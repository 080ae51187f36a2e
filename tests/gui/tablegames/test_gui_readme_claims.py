"""Issue 26 point 8: what the README tells a new user about the screen is what the screen does.
"select the hit in the queue (its row turns blue ...)": a selected hit's row, as drawn, is blue
(the theme's highlight), and the README says blue, not red (red is a flagged hit's words)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtGui import QColor

from gui.tablegames.hit_queue import HitQueue
from gui.tablegames.model import HitView

README = Path(__file__).resolve().parents[3] / "README.md"


def test_a_selected_hit_is_blue_on_screen_and_in_the_readme(qtbot) -> None:  # type: ignore[no-untyped-def]
    queue = HitQueue()
    qtbot.addWidget(queue)
    queue.resize(900, 200)
    now = datetime.now(UTC)
    queue.show_hits([HitView(7, "H7", "PG-1", 3, 12, "STRAIGHT_FLUSH", 100, (), now),
                     HitView(8, "H8", "PG-2", 1, 4, "FOUR_OF_A_KIND", 100, (), now)], now)
    queue.show()
    queue.setFocus()
    queue.selectRow(1)
    qtbot.waitUntil(queue.isVisible, timeout=5000)
    image = queue.viewport().grab().toImage()
    y = queue.rowViewportPosition(1) + queue.rowHeight(1) // 2
    colours = Counter(image.pixelColor(x, y).name() for x in range(image.width()))
    drawn = QColor(colours.most_common(1)[0][0])
    assert drawn.blue() > drawn.red() + 60 and drawn.blue() > drawn.green(), drawn.name()
    text = " ".join(README.read_text().split())
    assert "select the hit in the queue (its row turns blue;" in text
    assert "(it turns red)" not in text
