"""The accountant's reports on screen (gui/desks/accounting_panel.py) over the ledger of known
rounds (tests/accounting_ledger.py), through a read-only desk: the figures shown to the cent, the
exports read back, the printed page written, a bad period named.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set (report-*.png)."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDate
from PySide6.QtWidgets import QTableWidget, QWidget
from sqlalchemy import Engine

from core.desks.desk import Desk, open_desk
from gui.common.bridge import default_bridge
from gui.desks.accounting_panel import ReconciliationPanel
from tests import accounting_ledger as L

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


@pytest.fixture
def desk(sqlite_engine: Engine) -> Desk:
    L.build(sqlite_engine)
    url = sqlite_engine.url.render_as_string(hide_password=False)
    return open_desk("accountant", L.config(), url, L.PAYTABLES, "Acc Ountant #A1")


def _show(qtbot: Any, panel: ReconciliationPanel, report: str, **choice: Any) -> None:
    panel.which.setCurrentIndex(panel.which.findData(report))
    if "kind" in choice:
        panel.kind.setCurrentIndex(panel.kind.findData(choice["kind"]))
    if "day" in choice:
        panel.day.setDate(QDate(*choice["day"]))
    if "shift" in choice:
        panel.shift.setCurrentIndex(panel.shift.findData(choice["shift"]))
    before = panel.report
    panel.run_btn.click()
    qtbot.waitUntil(lambda: panel.report is not before and not panel.running, timeout=10000)
    assert default_bridge().wait_idle()


def _cells(table: QTableWidget) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def test_the_reconciliation_on_screen_and_out(qtbot: Any, desk: Desk, tmp_path: Path) -> None:
    import openpyxl

    panel = ReconciliationPanel(desk)
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    _show(qtbot, panel, "reconcile", kind="day", day=(2025, 6, 2))
    assert panel.verdict.text().startswith("Reconciled")
    assert panel.verdict.objectName() == "ok"
    rows = _cells(panel.tabs.widget(0))
    closing = next(r for r in rows if r[:2] == ["LINK/MAIN", "Closing"])
    assert closing[3:] == ["$5,002.40", "$0.16"]
    paid = next(r for r in rows if r[0] == "LOCK/MAIN" and "paid by the period" in r[1])
    assert paid[2:4] == ["1", "-$10,000.20"]  # held at hit at 05:00, paid at 06:10
    assert "Acc Ountant #A1" in panel.meta.text() and "Ledger chain head" in panel.meta.text()
    shot(panel, "report-reconciliation")
    xlsx = panel.save("xlsx", tmp_path / "rec.xlsx")
    assert xlsx is not None
    wb = openpyxl.load_workbook(xlsx)
    got = [tuple(c.value for c in r) for r in wb["Reconciliation"].iter_rows()]
    assert ("LINK/MAIN", "Closing", None, 5002.4, 0.16) in got
    pdf = panel.save("pdf", tmp_path / "rec.pdf")
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF")
    panel.tabs.setCurrentIndex(1)
    csv_path = panel.save("csv", tmp_path / "awards.csv")
    assert csv_path is not None
    with csv_path.open(newline="") as f:
        awards = list(csv.DictReader(f))
    assert [(a["Hand"], a["Amount"]) for a in awards] == [("RF_ROYAL_MATCH", "5000.70"),
                                                          ("SF7_NATURAL", "10000.20")]


def test_each_report_shows(qtbot: Any, desk: Desk) -> None:
    panel = ReconciliationPanel(desk)
    qtbot.addWidget(panel)
    panel.resize(1400, 800)
    _show(qtbot, panel, "slips", kind="day", day=(2025, 6, 2))
    assert [r[0] for r in _cells(panel.tabs.widget(0))] == ["1", "2", "3"]
    shot(panel, "report-slip-register")
    _show(qtbot, panel, "hits", kind="shift", day=(2025, 6, 2), shift="Swing")
    summary = _cells(panel.tabs.widget(0))
    assert ["LOCK/MAIN", "1", "$10,000.20"] in summary
    shot(panel, "report-hits-by-level")
    _show(qtbot, panel, "drop", kind="day", day=(2025, 6, 2))
    t2 = next(r for r in _cells(panel.tabs.widget(0)) if r[0] == "T2")
    assert t2[7] == "$1.00" and t2[10] == "$0.22"
    shot(panel, "report-drop")
    panel.which.setCurrentIndex(panel.which.findData("liability"))
    panel.now_box.setCurrentIndex(panel.now_box.findData("at"))
    from PySide6.QtCore import QDateTime, QTime

    panel.at.setDateTime(QDateTime(QDate(2025, 6, 2), QTime(14, 0)))
    _show(qtbot, panel, "liability")
    total = _cells(panel.tabs.widget(0))[-1]
    assert total == ["Total", "$15,002.62", "$0.18", "$10,000.20", "$25,003.00"]
    shot(panel, "report-liability")


def test_a_shift_is_reported_and_a_month_too(qtbot: Any, desk: Desk) -> None:
    panel = ReconciliationPanel(desk)
    qtbot.addWidget(panel)
    _show(qtbot, panel, "reconcile", kind="month", day=(2025, 6, 1))
    assert panel.verdict.text().startswith("Reconciled")
    assert "Month 2025-06" in panel.meta.text()
