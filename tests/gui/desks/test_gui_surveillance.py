"""Surveillance's panel (gui/desks/surveillance.py) on a ledger of known rounds (the ledger of
tests/core/desks/surveillance/test_surveillance.py, built through the real floor API): the flagged
hits of a gaming day, a known hit's timeline rows, its cards beside the claim and its flags,
offscreen.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set (docs/screenshots/
surveillance-timeline.png and surveillance-flagged.png were made so)."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from sqlalchemy import Engine

from gui.desks.surveillance import FLAGGED_ROW, SurveillancePanel
from printing.escpos.slip import PAPER
from tests.core.desks.surveillance.test_surveillance import NOW, build

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


def test_the_panel_lists_the_flagged_hits_and_shows_a_known_hits_timeline(  # type: ignore[no-untyped-def]
        qtbot: Any, sqlite_engine: Engine) -> None:
    led = build(sqlite_engine)
    panel = SurveillancePanel(led.desk, now=lambda: NOW)
    qtbot.addWidget(panel)
    panel.resize(1500, 940)
    panel.show()
    panel.set_days(date(2026, 12, 2), date(2026, 12, 2))
    panel.flagged.setChecked(True)
    qtbot.mouseClick(panel.search_btn, Qt.MouseButton.LeftButton)
    flagged = sorted(led.hits[k] for k in ("corrected", "near", "auto", "rejected", "second4k"))
    qtbot.waitUntil(lambda: panel.hit_ids() == flagged, timeout=10000)
    assert panel.message.text() == "Gaming day 2026-12-02: 5 hit(s), 5 flagged"
    row = panel.hit_ids().index(led.hits["near"])
    assert panel.hits.item(row, 0).text() == "2026-12-02 11:00:00.274 +08:00"
    assert panel.hits.item(row, 6).text() == "4,900.10"
    assert "NEAR_THRESHOLD" in panel.hits.item(row, 7).text()
    assert "below the executive threshold" in panel.hits.item(row, 7).toolTip()

    # the known hit: a claim of five aces on four of a kind, corrected and paid by one person
    panel.hits.selectRow(panel.hit_ids().index(led.hits["corrected"]))
    qtbot.waitUntil(lambda: panel.current is not None
                    and panel.current.line.hit_id == led.hits["corrected"], timeout=10000)
    rows = panel.event_rows()
    assert rows[0][:3] == ("2026-12-02 09:00:00.137 +08:00", "controller", "START GAME round 1")
    assert rows[1][:3] == ("2026-12-02 09:00:00.274 +08:00", "controller",
                           "HIT JACKPOT round 1 seat 3")
    refused = next(r for r in rows if r[2] == "swipe REFUSED: pay")
    assert refused[3] == "Acc Ountant #A1 (accountant)" and "needs supervisor" in refused[4]
    assert ("print", "slip 000001 printed (confirmed)  [REPRINTED]") in [r[1:3] for r in rows]
    assert rows[-1][1:4] == ("void", "slip 000001 VOIDED  [VOIDED]",
                             "Exe Cutive #X1 (executive)")
    assert [r[1] for r in rows].count("refused frame") == 1
    # rows that are evidence of a flag are highlighted
    marked = [r for r in range(panel.events.rowCount())
              if panel.events.item(r, 0).background().color() == FLAGGED_ROW]
    assert {rows[r][2].split("  [")[1].rstrip("]") for r in marked} == {
        "CLAIM_MISMATCH", "SAME_PERSON", "REPRINTED", "VOIDED"}
    assert "Hit H1 · table T1 round 1 seat 3 · paid; 75.00 from the tray" in panel.title.text()
    cards = panel.cards.text()
    assert "Five aces" in cards and "Four of a kind" in cards and "A♠" in cards
    flags = panel.flags.text()
    for code in ("CLAIM_MISMATCH", "SAME_PERSON", "REPRINTED", "VOIDED"):
        assert code in flags
    assert "HIT_RATE" not in flags
    shot(panel, "surveillance-timeline")

    # the filter narrows the list it read; Enter on a number opens that hit
    qtbot.keyClicks(panel.filter, "hit_rate")
    assert [ln.hit_id for ln in panel.visible_lines()] == [led.hits["near"], led.hits["second4k"]]
    assert panel.hits.rowCount() == 2
    panel.filter.clear()
    assert panel.hits.rowCount() == 5
    panel.hits.selectRow(panel.hit_ids().index(led.hits["near"]))
    qtbot.waitUntil(lambda: panel.current is not None
                    and panel.current.line.hit_id == led.hits["near"], timeout=10000)
    assert "NEAR_THRESHOLD" in panel.flags.text()
    shot(panel, "surveillance-flagged")
    qtbot.keyClicks(panel.filter, f"#{led.hits['second4k']}")
    assert panel.hit_ids() == [led.hits["second4k"]]
    qtbot.keyClick(panel.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.current is not None
                    and panel.current.line.hit_id == led.hits["second4k"], timeout=10000)
    assert "HIT_RATE" in panel.flags.text() and "SAME_PERSON" not in panel.flags.text()
    panel.filter.clear()
    qtbot.keyClicks(panel.filter, str(led.hits["pending"]))  # not in the flagged list
    qtbot.keyClick(panel.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.current is not None
                    and panel.current.line.hit_id == led.hits["pending"], timeout=10000)
    assert panel.flags.text().endswith("No flag.</span>")
    assert [r[2] for r in panel.event_rows()] == ["START GAME round 4",
                                                  "HIT JACKPOT round 4 seat 6"]


def test_an_unknown_hit_number_says_so(qtbot: Any, sqlite_engine: Engine) -> None:  # type: ignore[no-untyped-def]
    led = build(sqlite_engine)
    panel = SurveillancePanel(led.desk, now=lambda: NOW)
    qtbot.addWidget(panel)
    panel.open_hit(4242)
    qtbot.waitUntil(lambda: "4242" in panel.title.text()
                    and "reading" not in panel.title.text(), timeout=10000)
    assert panel.title.text() == "hit H4242: no such hit in this ledger"
    assert panel.events.rowCount() == 0


def test_a_hit_is_written_as_the_win_slip_writes_it(  # type: ignore[no-untyped-def]
        qtbot: Any, sqlite_engine: Engine) -> None:
    """Issue 26: '"H50" on screen and "#50" on paper'.  One way everywhere: the win slip's
    "Hit ref H1" is what the hit queue, surveillance's list and title and the reports show,
    and what the filter takes (H1; #1 and 1 still work)."""
    from core.kernel.text import hit_ref
    from core.tablegames.floor import Floor

    led = build(sqlite_engine)
    panel = SurveillancePanel(led.desk, now=lambda: NOW)
    qtbot.addWidget(panel)
    panel.show()
    panel.set_days(date(2026, 12, 2), date(2026, 12, 2))
    qtbot.mouseClick(panel.search_btn, Qt.MouseButton.LeftButton)
    hit = led.hits["corrected"]
    qtbot.waitUntil(lambda: hit in panel.hit_ids(), timeout=10000)
    row = panel.hit_ids().index(hit)
    assert panel.hits.item(row, 1).text() == f"H{hit}" == hit_ref(hit)
    qtbot.keyClicks(panel.filter, f"H{hit}")
    assert panel.hit_ids() == [hit]
    qtbot.keyClick(panel.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.current is not None and panel.current.line.hit_id == hit,
                    timeout=10000)
    assert panel.title.text().startswith(f"Hit H{hit} · table T1")
    # the paper: the win slip of that hit says the same
    floor = Floor(sqlite_engine, led.desk.config, led.desk.paytables, paper=PAPER)
    slips = [s for s in floor.slip_lines() if s.hit_id == hit]
    assert slips and floor.win_slip(slips[0].slip_no).hit_ref == f"H{hit}"
