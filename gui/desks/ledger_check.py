"""The surveillance desk's "Ledger check" tab: ``podium audit verify`` on screen.

It runs the same checks (core/ledger/audit.py ``verify``: guards, journal, chain, every row
against its hash, meters, pays, slips, and the chain heads kept on paper) on a reader thread of
the bridge, through the desk's read-only engine, and shows the verdict, the chain head and every
break.  It reads only; a live floor goes on."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.desks.desk import Desk
from core.ledger.audit import parse_head, verify
from core.ledger.audit_report import Report
from core.ledger.integrity import head_text
from gui.common import theme
from gui.common.bridge import default_bridge

log = logging.getLogger("podium.gui.ledger_check")

MAX_BREAKS_SHOWN = 500


class LedgerCheckPanel(QWidget):
    """Re-check the whole ledger on demand (a background read) and show what it found."""

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.report: Report | None = None
        self.running = False
        lay = QVBoxLayout(self)

        intro = QLabel("Re-reads the whole ledger as podium audit verify does: the database's "
                       "guards, the hash chain, every row against its hash, the meters against "
                       "their entries, each pay paid once, the slips. Read-only: the floor "
                       "goes on.")
        intro.setObjectName("muted")
        intro.setWordWrap(True)
        lay.addWidget(intro)

        heads_box = QGroupBox("Chain heads kept on paper (optional; one ROW:HASH a line, as a "
                              "win page or daily report prints it)")
        hl = QVBoxLayout(heads_box)
        self.heads = QPlainTextEdit()
        self.heads.setObjectName("heads")
        self.heads.setPlaceholderText("e.g. 18244:4be1…c09e")
        self.heads.setFixedHeight(80)
        hl.addWidget(self.heads)
        lay.addWidget(heads_box)

        row = QHBoxLayout()
        self.check_btn = QPushButton("Check the ledger now")
        self.check_btn.setObjectName("primary")
        self.check_btn.clicked.connect(self.run_check)
        row.addWidget(self.check_btn)
        self.when = QLabel("Press to re-check the whole ledger now.")
        self.when.setObjectName("muted")
        row.addWidget(self.when, 1)
        lay.addLayout(row)

        res = QGroupBox("Result")
        grid = QGridLayout(res)
        self.verdict = QLabel("NOT CHECKED YET")
        self.verdict.setObjectName("verdict")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict.setMinimumHeight(64)
        self.verdict.setStyleSheet(f"font-size: 24pt; font-weight: bold; color: {theme.MUTED};")
        grid.addWidget(self.verdict, 0, 0, 1, 2)
        grid.addWidget(QLabel("Head (as printed)"), 1, 0)
        self.head = QLabel("—")
        self.head.setObjectName("checkedHead")
        self.head.setWordWrap(True)
        self.head.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.head.setStyleSheet("font-family: monospace;")
        grid.addWidget(self.head, 1, 1)
        grid.addWidget(QLabel("Read"), 2, 0)
        self.counts = QLabel("—")
        self.counts.setWordWrap(True)
        grid.addWidget(self.counts, 2, 1)
        grid.addWidget(QLabel("First break"), 3, 0)
        self.first = QLabel("—")
        self.first.setObjectName("firstBreak")
        self.first.setWordWrap(True)
        self.first.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        grid.addWidget(self.first, 3, 1)
        grid.setColumnStretch(1, 1)
        lay.addWidget(res)

        self.breaks_title = QLabel("Every break (the first in the ledger's history at the top):")
        self.breaks_title.setObjectName("muted")
        lay.addWidget(self.breaks_title)
        self.breaks = QListWidget()
        self.breaks.setObjectName("breaks")
        lay.addWidget(self.breaks, 1)
        self.filler = QWidget()  # takes the room while there is no break to list
        lay.addWidget(self.filler, 1)
        self._show_breaks(False)

    def _show_breaks(self, shown: bool) -> None:
        self.breaks_title.setVisible(shown)
        self.breaks.setVisible(shown)
        self.filler.setVisible(not shown)

    # -- running --------------------------------------------------------------------------
    def run_check(self) -> None:
        if self.running:
            return
        try:
            heads = [parse_head(line) for line in self.heads.toPlainText().splitlines()
                     if line.strip()]
        except ValueError as exc:
            self._show_problem(str(exc))
            return
        self.running = True
        self.check_btn.setEnabled(False)
        self.verdict.setText("Checking… (re-reading the whole ledger)")
        self.verdict.setStyleSheet(f"font-size: 24pt; font-weight: bold; color: {theme.MUTED};")
        engine = self.desk.engine
        default_bridge().query(lambda: verify(engine, heads), self._done, self._failed)

    def _done(self, report: Report) -> None:
        self.running = False
        self.check_btn.setEnabled(True)
        self.report = report
        at = datetime.now(UTC).astimezone(self.desk.tz)
        self.when.setText(f"Checked at {at:%Y-%m-%d %H:%M:%S} (casino time)")
        self.head.setText(head_text(report.head_n, bytes.fromhex(report.head_hash)))
        rows = sum(report.tables.values())
        self.counts.setText(f"{report.rows:,} chain rows; {rows:,} ledger rows in "
                            f"{len(report.tables)} tables")
        self.breaks.clear()
        first = report.first()
        self._show_breaks(first is not None)
        if first is None:
            self.verdict.setText("LEDGER VERIFIED")
            self.verdict.setStyleSheet(f"font-size: 24pt; font-weight: bold; color: {theme.OK};")
            self.first.setText("none: chain, rows, meters, pays and slips are as Podium wrote "
                               "them")
            return
        self.verdict.setText(f"LEDGER BROKEN: {len(report.breaks):,} break(s)")
        self.verdict.setStyleSheet(f"font-size: 24pt; font-weight: bold; color: {theme.ALERT};")
        self.first.setText(first.line())
        ordered = sorted(report.breaks, key=lambda b: (b is not first,))
        for b in ordered[:MAX_BREAKS_SHOWN]:
            self.breaks.addItem(b.line())
        if len(report.breaks) > MAX_BREAKS_SHOWN:
            self.breaks.addItem(f"… and {len(report.breaks) - MAX_BREAKS_SHOWN:,} more "
                                "(podium audit verify --json lists them all)")

    def _failed(self, exc: BaseException) -> None:
        self.running = False
        self.check_btn.setEnabled(True)
        reason = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        log.warning("ledger check could not read the ledger: %s", reason)
        self._show_problem(f"The ledger could not be read: {reason}")

    def _show_problem(self, text: str) -> None:
        self._show_breaks(False)
        self.verdict.setText("NOT CHECKED")
        self.verdict.setStyleSheet(f"font-size: 24pt; font-weight: bold; color: {theme.WARN};")
        self.first.setText(text)
