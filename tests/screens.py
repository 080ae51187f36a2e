"""docs/screenshots/screen-<W>x<H>-<what>.png: every tab of the console, the accountant's and
surveillance's desks and the room display, at 1366x768 and 1920x1080, on a demo floor with hits
waiting and a paid slip.  ``make screenshots`` runs ``python -m tests.screens docs/screenshots``
(offscreen)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = ((1366, 768), (1920, 1080))
TABLES = ("PG-1", "PG-2", "PG-3", "PG-4", "PG-5", "PG-6")
# one qualifying hand a table (every table of the demo floor pays these)
HANDS = {
    "PG-1": (3, ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]),
    "PG-2": (1, ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]),
    "PG-3": (5, ["Ac", "Ad", "Ah", "As", "Kd", "Kc", "2h"]),
    "PG-4": (2, ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]),
    "PG-5": (4, ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]),
    "PG-6": (6, ["Ac", "Ad", "Ah", "As", "Kd", "Kc", "2h"]),
}


def settle(app: Any, until: Callable[[], bool] = lambda: True, timeout: float = 10.0) -> None:
    """Run the event loop until ``until()`` holds (or ``timeout``), then a little more."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not until():
        app.processEvents()
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents()


def small(path: Path) -> None:
    """The PNG in 256 colours (a dark screen of flat panels and text: legible, and a third of
    the bytes)."""
    from PIL import Image

    with Image.open(path) as img:
        quantized = img.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                                dither=Image.Dither.NONE)
    quantized.save(path, optimize=True)


def shoot(app: Any, window: Any, out: Path, name: str, size: tuple[int, int]) -> None:
    from PySide6.QtCore import Qt

    window.setWindowState(Qt.WindowState.WindowNoState)
    window.resize(*size)
    settle(app)
    path = out / f"screen-{size[0]}x{size[1]}-{name}.png"
    window.grab().save(str(path))
    small(path)
    print(f"screen-{size[0]}x{size[1]}-{name}.png")


def main(out: Path) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from core.app.demo import demo_credential, open_demo_bbj_fund
    from core.desks.desk import Desk
    from core.desks.signage import SignPoller, read_group
    from core.ledger.db import reader
    from gui.common import theme
    from gui.common.swipe import SwipeCatcher
    from gui.desks.desk_window import DeskWindow
    from gui.desks.signage import SignageWindow
    from gui.main_window import MainWindow
    from gui.pokerroom import PokerRoomScreen
    from tests.fake_printer import FakePrinter
    from tests.harness import FloorHarness
    from tests.ledgers import sqlite_ledger

    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.apply(app)  # type: ignore[arg-type]
    tmp = Path(tempfile.mkdtemp(prefix="podium-shots-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp))
    engine = sqlite_ledger(tmp / "ledger.sqlite3")
    open_demo_bbj_fund(engine)  # the poker room's Bad Beat fund, as `podium demo` opens it
    catcher = SwipeCatcher()
    catcher.install(app)  # type: ignore[arg-type]
    with FakePrinter() as printer, FloorHarness(engine, printer.port, tables=TABLES) as floor:
        for table, (seat, cards) in HANDS.items():
            floor.deal_hit(table, seat=seat, cards=cards, wagers=[1, 2, 3, 4, 5, 6])
        settle(app, lambda: len(floor.pending()) >= len(HANDS), timeout=20)
        first = min(floor.pending(), key=lambda h: h.hit_id)
        try:  # a paid hit: a slip in Win slips, a line in Activity, a marker on a trend
            floor.console.floor.pay(first.hit_id, HANDS[first.table][1],
                                    demo_credential("2001"), verifier=demo_credential("1001"))
        except Exception as exc:  # noqa: BLE001  (the screens are still worth taking)
            print(f"(no paid slip: {exc})")
        window = MainWindow(floor.console, catcher)
        window.show()
        settle(app, lambda: window.queue.rowCount() >= len(HANDS) - 1, timeout=20)
        names = ["floor", "win-slips", "activity", "paytables", "machine-check", "poker-room"]
        for size in SIZES:
            for i, name in enumerate(names):
                window.tabs.setCurrentIndex(i)
                if name == "win-slips":
                    settle(app, lambda: window.slips.rowCount() > 0, timeout=5)
                shoot(app, window, out, f"console-{name}", size)
                if name == "poker-room":  # the room's own pages, each
                    room = window.findChild(PokerRoomScreen)
                    for p in range(room.pages.count()):
                        room.pages.setCurrentIndex(p)
                        page = room.pages.tabText(p).lower().replace(" ", "-")
                        shoot(app, window, out, f"console-poker-room-{page}", size)
                    room.pages.setCurrentIndex(0)
        window.tabs.setCurrentIndex(0)
        window.close()
        config, paytables = floor.console.config, floor.console.paytables
        for role in ("accountant", "surveillance"):
            desk = DeskWindow(Desk(role, reader(engine), config, paytables))
            desk.show()
            settle(app, timeout=2)
            for size in SIZES:
                for i in range(desk.tabs.count()):
                    desk.tabs.setCurrentIndex(i)
                    tab = desk.tabs.tabText(i).lower().replace(" ", "-").replace("&", "and")
                    shoot(app, desk, out, f"desk-{role}-{tab}", size)
            desk.close()
        group = config.groups[0].id
        display_desk = Desk("surveillance", reader(engine), config, paytables)
        sign = SignageWindow(SignPoller(lambda: read_group(display_desk, group)),
                             money=config.money, tz=display_desk.tz,
                             title=group, poll_ms=200)
        sign.show()
        settle(app, lambda: bool(sign.board.live), timeout=5)
        for size in SIZES:
            shoot(app, sign, out, "room-display", size)
        sign.close()
    app.removeEventFilter(catcher)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
