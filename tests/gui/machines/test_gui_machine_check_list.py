"""The surveillance desk's Machine checks tab (gui/machines/machine_check_list.py): the checks
recorded in the chosen gaming days, newest first, mismatches only on request, read through a
desk."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate
from sqlalchemy import Engine

from core.app.demo import enroll_demo_employees, swipe_of
from core.desks.desk import open_desk
from core.floorconfig import load_demo_floor
from core.machines.checks import record_check
from core.machines.rules.slot_games import find_game
from core.machines.rules.slots import spin_from_text
from gui.common.bridge import default_bridge
from gui.machines.machine_check_list import MachineCheckList

SCREEN = "R X R N E / G Y X B N / F F E F N"  # 145 credits (docs/slots.md)


def test_the_checks_of_a_gaming_day(qtbot: Any, sqlite_engine: Engine) -> None:
    enroll_demo_employees(sqlite_engine)
    game = find_game("four-winds")
    spin = spin_from_text(game, SCREEN)
    first = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)  # 09:00 Manila, gaming day 2026-12-02
    later = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)
    record_check(sqlite_engine, game, spin, 145, swipe_of("1001"), clock=lambda: first)
    record_check(sqlite_engine, game, spin, 500, swipe_of("3001"), clock=lambda: later)
    outside = datetime(2026, 12, 3, 23, 0, tzinfo=UTC)  # the next gaming day
    record_check(sqlite_engine, game, spin, 145, swipe_of("1001"), clock=lambda: outside)
    url = sqlite_engine.url.render_as_string(hide_password=False)
    desk = open_desk("surveillance", load_demo_floor(), url)
    panel = MachineCheckList(desk)
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    qtbot.waitUntil(lambda: not panel.loading)
    for w in (panel.first, panel.last):
        w.setDate(QDate(2026, 12, 2))
    panel.show_btn.click()
    qtbot.waitUntil(lambda: not panel.loading and len(panel.lines) == 2)
    t = panel.table
    rows = [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]
    assert [r[0] for r in rows] == ["2026-12-02 11:00:00", "2026-12-02 09:00:00"]
    assert [(r[3], r[4], r[5]) for r in rows] == [("500", "145", "MISMATCH"),
                                                  ("145", "145", "MATCH")]
    assert "claimed 500 credits, evaluated 145: MISMATCH" in panel.detail.toPlainText()
    assert panel.status.text() == "2 check(s), 1 mismatch(es)"
    if os.environ.get("PODIUM_SCREENSHOT_DIR"):
        Path(os.environ["PODIUM_SCREENSHOT_DIR"]).mkdir(parents=True, exist_ok=True)
        panel.grab().save(str(Path(os.environ["PODIUM_SCREENSHOT_DIR"]) / "machine-checks.png"))
    panel.mismatches.setChecked(True)
    panel.show_btn.click()
    qtbot.waitUntil(lambda: not panel.loading and len(panel.lines) == 1)
    assert panel.lines[0].verdict == "mismatch"
    assert default_bridge().wait_idle()
