"""The machine-win check screen (docs/operator.md, "Checking a machine win"; rules: docs/slots.md).

The user picks a shipped game, enters the screen the machine shows (typed row by row, or cell by
cell on the grid: click, arrows and symbol keys), the options and the amount the machine claims;
the screen explains every win (its payline drawn on the grid, the paying cells, substitutes and
scatters in their own colours, the multiplier and the arithmetic in words) and gives a MATCH or
MISMATCH verdict.  "Record check" asks for a card (any employee: surveillance included, a check
pays nothing) and ``core.machines.checks.record_check`` records it in the ledger.

Every rule is in ``core.machines.rules.slots``; this screen only shows what the evaluator returns.
Its parts: screen_grid.py (the grid), check_marks.py (what a win marks and says).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.machines.checks import RecordedCheck, check, parse_claim, record_check, screen_text
from core.machines.rules.slot_games import Game, GameError, find_game, shipped_games
from core.machines.rules.slots import Outcome, Spin, Win, parse_pattern, parse_screen
from gui.common import theme
from gui.machines.check_marks import (
    PATTERN_COLOUR,
    SCATTER_COLOUR,
    SUBSTITUTE_COLOUR,
    WIN_COLOURS,
    Marks,
    explain,
    floor_clock,
    win_marks,
)
from gui.machines.screen_grid import CELL, GAP, ScreenGrid

log = logging.getLogger("podium.gui.machine_check")

ROLE_ANY = "employee"  # the swipe prompt reads "ANY EMPLOYEE card": any active role


WIN_COLUMNS = ("", "Win", "Symbol", "Count", "Substitutes", "Pays", "x", "Credits", "Why")


class MachineCheckScreen(QWidget):
    """The "Machine check" tab.  ``window.authorize(role, what, kind, action)`` shows the swipe
    prompt (gui/main_window.py)."""

    recorded = Signal(object)  # RecordedCheck

    def __init__(self, console: Any, window: Any, games: Sequence[str] | None = None) -> None:
        super().__init__()
        self.console = console
        self.window_ = window
        self.game: Game | None = None
        self.outcome: Outcome | None = None
        self.spin: Spin | None = None
        self.last: RecordedCheck | None = None
        self._wins: list[tuple[Win, str]] = []
        lay = QVBoxLayout(self)

        # game and options
        opts = QHBoxLayout()
        opts.addWidget(QLabel("Game"))
        self.game_box = QComboBox()
        self.game_box.setObjectName("game")
        self.game_box.addItems(list(games) if games is not None else list(shipped_games()))
        opts.addWidget(self.game_box)
        self.free_game = QCheckBox("Free game")
        opts.addWidget(self.free_game)
        opts.addWidget(QLabel("Bet per line"))
        self.bet = QSpinBox()
        self.bet.setRange(1, 100000)
        self.bet.setSuffix(" cr")
        opts.addWidget(self.bet)
        opts.addWidget(QLabel("Lines"))
        self.lines = QSpinBox()
        opts.addWidget(self.lines)
        opts.addWidget(QLabel("Initial patterns"))
        self.initial = QLineEdit()
        self.initial.setPlaceholderText("held reels: LINE:SYMBOL:COUNT, e.g. 1:G:3")
        opts.addWidget(self.initial, 1)
        lay.addLayout(opts)

        # the screen as text
        row = QHBoxLayout()
        row.addWidget(QLabel("Screen"))
        self.screen_edit = QLineEdit()
        self.screen_edit.setObjectName("screenText")
        self.screen_edit.setPlaceholderText("rows from the top, e.g. A K Q W S / K K A A Q / "
                                            "Q S K W A, then Enter")
        f = QFont(self.screen_edit.font())
        f.setFamily("monospace")
        f.setPointSize(14)
        self.screen_edit.setFont(f)
        row.addWidget(self.screen_edit, 1)
        self.eval_btn = QPushButton("Evaluate (Enter)")
        row.addWidget(self.eval_btn)
        lay.addLayout(row)
        self.error = QLabel("")
        self.error.setObjectName("alert")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {theme.ALERT}; font-weight: bold; font-size: 13pt;")
        lay.addWidget(self.error)

        # grid (left) and verdict (right)
        mid = QHBoxLayout()
        gbox = QGroupBox("Screen (click a cell or type; arrows move)")
        gl = QVBoxLayout(gbox)
        self.grid = ScreenGrid()
        gl.addWidget(self.grid, 0, Qt.AlignmentFlag.AlignLeft)
        self.held_row = QHBoxLayout()
        self.held_row.setSpacing(0)
        gl.addLayout(self.held_row)
        self.held: list[QCheckBox] = []
        legend = QLabel(
            f"<span style='color:{PATTERN_COLOUR}'>■ paying symbol</span> &nbsp; "
            f"<span style='color:{SUBSTITUTE_COLOUR}'>■ substitute</span> &nbsp; "
            f"<span style='color:{SCATTER_COLOUR}'>■ scatter</span> &nbsp; "
            "— payline, drawn solid over the pattern that pays")
        legend.setObjectName("muted")
        legend.setWordWrap(True)
        gl.addWidget(legend)
        mid.addWidget(gbox)

        vbox = QGroupBox("Verdict")
        vl = QGridLayout(vbox)
        vl.addWidget(QLabel("Claimed by the machine (credits)"), 0, 0)
        self.claim = QLineEdit()
        self.claim.setObjectName("claim")
        self.claim.setPlaceholderText("credits")
        cf = QFont(self.claim.font())
        cf.setPointSize(18)
        self.claim.setFont(cf)
        vl.addWidget(self.claim, 0, 1)
        self.claim_error = QLabel("")
        self.claim_error.setWordWrap(True)
        self.claim_error.setStyleSheet(f"color: {theme.ALERT}; font-weight: bold;")
        vl.addWidget(self.claim_error, 1, 0, 1, 2)
        self.verdict = QLabel("—")
        self.verdict.setObjectName("verdict")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict.setMinimumHeight(90)
        vl.addWidget(self.verdict, 2, 0, 1, 2)
        self.verdict_detail = QLabel("")
        self.verdict_detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict_detail.setWordWrap(True)
        self.verdict_detail.setStyleSheet("font-size: 14pt;")
        vl.addWidget(self.verdict_detail, 3, 0, 1, 2)
        self.record_btn = QPushButton("Record check (swipe a card)")
        self.record_btn.setObjectName("primary")
        self.record_btn.setEnabled(False)
        vl.addWidget(self.record_btn, 4, 0, 1, 2)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setObjectName("muted")
        vl.addWidget(self.status, 5, 0, 1, 2)
        vl.setRowStretch(6, 1)
        vbox.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        mid.addWidget(vbox, 1)
        lay.addLayout(mid)

        # every win explained
        self.table = QTableWidget(0, len(WIN_COLUMNS))
        self.table.setObjectName("wins")
        self.table.setHorizontalHeaderLabels(list(WIN_COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        hh = self.table.horizontalHeader()
        for i in range(len(WIN_COLUMNS) - 1):
            hh.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(len(WIN_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.table, 1)
        self.summary = QLabel("")
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("font-size: 13pt;")
        lay.addWidget(self.summary)

        # wiring
        self.game_box.currentTextChanged.connect(self.select_game)
        self.screen_edit.returnPressed.connect(self.enter_screen)
        self.eval_btn.clicked.connect(self.enter_screen)
        self.grid.changed.connect(self._grid_changed)
        self.grid.evaluateRequested.connect(self.evaluate)
        self.grid.problem.connect(self.error.setText)  # the grid and its verdict stand
        for w in (self.free_game,):
            w.toggled.connect(lambda _=False: self.evaluate())
        self.bet.valueChanged.connect(lambda _=0: self.evaluate())
        self.lines.valueChanged.connect(lambda _=0: self.evaluate())
        self.initial.returnPressed.connect(self.evaluate)
        self.initial.editingFinished.connect(self.evaluate)
        self.claim.textChanged.connect(self._claim_changed)
        self.claim.returnPressed.connect(self.evaluate)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.record_btn.clicked.connect(self.record)
        if self.game_box.count():
            self.select_game(self.game_box.currentText())

    # -- game -----------------------------------------------------------------------------
    def select_game(self, name: str) -> None:
        try:
            game = find_game(name)
        except GameError as exc:
            self._show_error(str(exc))
            return
        self.game = game
        self.grid.set_game(game)
        for cb in self.held:
            self.held_row.removeWidget(cb)
            cb.deleteLater()
        self.held = []
        self.held_row.addSpacing(GAP)
        for reel in range(game.reels):
            cb = QCheckBox("held")
            cb.setToolTip(f"reel {reel + 1} held for the free spins (--held {reel})")
            cb.setFixedWidth(CELL + GAP)
            cb.toggled.connect(lambda _=False: self.evaluate())
            self.held_row.addWidget(cb)
            self.held.append(cb)
        self.held_row.addStretch(1)
        self.free_game.setEnabled(game.free_games is not None)
        if game.free_games is None:
            self.free_game.setChecked(False)
        self.lines.blockSignals(True)
        self.lines.setRange(1, len(game.paylines))
        self.lines.setValue(len(game.paylines))
        self.lines.blockSignals(False)
        self.screen_edit.setText(screen_text(Spin(self.grid.symbols())))
        self.evaluate()

    # -- input ----------------------------------------------------------------------------
    def enter_screen(self) -> None:
        """The typed screen to the grid, then evaluate; a bad screen changes nothing."""
        if self.game is None:
            return
        try:
            screen = parse_screen(self.game, self.screen_edit.text(), option="screen")
        except ValueError as exc:
            self._show_error(str(exc))
            return
        self.grid.set_screen(screen)
        self.evaluate()

    def _grid_changed(self) -> None:
        self.screen_edit.setText(screen_text(Spin(self.grid.symbols())))
        self.evaluate()

    def _spin(self) -> Spin:
        held = frozenset(i for i, cb in enumerate(self.held) if cb.isChecked())
        texts = [t.strip() for t in self.initial.text().replace(";", ",").split(",")]
        initial = tuple(parse_pattern(t, "initial pattern") for t in texts if t)
        return Spin(self.grid.symbols(), self.free_game.isChecked(), self.bet.value(),
                    self.lines.value(), held, initial)

    def evaluate(self) -> None:
        if self.game is None:
            return
        try:
            spin = self._spin()
            result = check(self.game, spin, 0)
        except ValueError as exc:
            self._show_error(str(exc))
            return
        self.error.setText("")
        self._clear_recorded()
        self.spin, self.outcome = spin, result.outcome
        self._show_outcome()
        self._show_verdict()

    def _claim_changed(self, _text: str = "") -> None:
        self._clear_recorded()
        self._show_verdict()

    def _clear_recorded(self) -> None:
        """A recorded check's line stands only for the screen and claim it recorded."""
        self.status.setText("")

    def _show_error(self, text: str) -> None:
        """A problem where the user is looking; the last good evaluation is withdrawn (the
        verdict must not stand for a screen that is not the one entered)."""
        log.info("machine check: %s", text)
        self.error.setText(text)
        self._clear_recorded()
        self.outcome = None
        self.spin = None
        self._show_verdict()

    # -- output ---------------------------------------------------------------------------
    def _show_outcome(self) -> None:
        assert self.game is not None and self.outcome is not None
        out = self.outcome
        wins = [*out.line_wins, *out.scatter_wins]
        self._wins = [(w, WIN_COLOURS[i % len(WIN_COLOURS)]) for i, w in enumerate(wins)]
        self.table.blockSignals(True)
        self.table.clearSelection()
        self.table.setRowCount(0)
        for w, colour in self._wins:
            subs = ", ".join(f"{n} {s}" for s, n in w.substituted_by.items()) or "—"
            cells = ["■", f"line {w.line}" if w.line is not None else "scatter", w.symbol,
                     str(w.count), subs, str(w.pays), f"x{w.multiplier}", str(w.prize),
                     explain(self.game, out, w)]
            self._add_row(cells, colour)
        for p in out.not_paid_again:
            self._add_row(["", f"line {p.line}", p.symbol, str(p.count), "", "", "", "0",
                           f"{p.count} {p.symbol} stood on the held reels when the free spins "
                           "began: not paid again"], theme.MUTED)
        for label, amount, why in (
                ("retrigger", out.retrigger_prize,
                 "free games triggered during free games: the retrigger prize instead"),
                ("consolation", out.consolation,
                 "a free game that won nothing: the consolation prize (never multiplied)")):
            if amount:
                self._add_row(["", label, "", "", "", "", "", str(amount), why], theme.MUTED)
        self.table.resizeRowsToContents()
        self.table.blockSignals(False)
        extra = []
        if out.free_games_awarded:
            extra.append(f"free games awarded: {out.free_games_awarded}")
        if not wins and not out.retrigger_prize and not out.consolation:
            extra.append("no line or scatter win")
        self.summary.setText(
            f"{'Free game' if out.free_game else 'Base game'}: {out.lines} line(s) x "
            f"{out.bet_per_line} credit(s) = total bet {out.total_bet}"
            + "".join(f";  {e}" for e in extra)
            + f".   <b>Evaluated total: {out.total} credit(s)</b>")
        self._mark(self._wins)

    def _add_row(self, cells: list[str], colour: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        for i, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if i == 0:
                item.setForeground(QColor(colour))
            if i == len(cells) - 2:
                item.setForeground(QColor(theme.ACCENT))
            if i in (3, 5, 6, 7):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(r, i, item)

    def _mark(self, wins: Sequence[tuple[Win, str]]) -> None:
        assert self.game is not None
        self.grid.set_marks(win_marks(self.game, self.grid.symbols(), wins))

    def _selection_changed(self) -> None:
        rows = {i.row() for i in self.table.selectedIndexes()}
        chosen = [self._wins[r] for r in sorted(rows) if r < len(self._wins)]
        self._mark(chosen or self._wins)  # nothing selected: every win

    def _claim(self) -> int | None:
        if not self.claim.text().strip():
            self.claim_error.setText("")
            return None
        try:
            value = parse_claim(self.claim.text())
        except ValueError as exc:
            self.claim_error.setText(str(exc))
            return None
        self.claim_error.setText("")
        return value

    def _show_verdict(self) -> None:
        claimed = self._claim()
        out = self.outcome
        if out is None:
            self._set_verdict("—", theme.MUTED, "no evaluation: correct the screen or options")
            self.grid.set_marks(Marks())
            self.table.setRowCount(0)
            self.summary.setText("")
        elif claimed is None:
            self._set_verdict("—", theme.MUTED,
                              f"evaluated {out.total} credit(s); enter the claimed amount")
        elif claimed == out.total:
            self._set_verdict("MATCH", theme.OK,
                              f"claimed {claimed} = evaluated {out.total} credit(s)")
        else:
            diff = claimed - out.total
            self._set_verdict("MISMATCH", theme.ALERT,
                              f"claimed {claimed}, evaluated {out.total} credit(s): the claim "
                              f"is {abs(diff)} {'over' if diff > 0 else 'under'}")
        self.record_btn.setEnabled(out is not None and claimed is not None)

    def _set_verdict(self, word: str, colour: str, detail: str) -> None:
        self.verdict.setText(word)
        self.verdict.setStyleSheet(
            f"font-size: 40pt; font-weight: bold; color: {colour};"
            + (f" border: 3px solid {colour}; border-radius: 10px;" if word != "—" else ""))
        self.verdict_detail.setText(detail)

    # -- recording ------------------------------------------------------------------------
    def record(self) -> None:
        claimed = self._claim()
        if self.game is None or self.spin is None or self.outcome is None or claimed is None:
            return
        game, spin = self.game, self.spin
        verdict = "MATCH" if claimed == self.outcome.total else "MISMATCH"
        what = (f"Record the check of {game.name}: claimed {claimed}, evaluated "
                f"{self.outcome.total} credit(s), {verdict}.  Any employee card (a check pays "
                "nothing).")
        clock = floor_clock(self.console)
        engine = self.console.engine
        done: list[RecordedCheck] = []

        def do(swipe: str) -> RecordedCheck:
            rec = record_check(engine, game, spin, claimed, swipe, clock=clock)
            done.append(rec)
            return rec

        self.last = None
        if not self.window_.authorize(ROLE_ANY, what, "machine_check", do) or not done:
            return
        rec = done[-1]
        self.last = rec
        when = rec.checked_at.astimezone(ZoneInfo(self.console.config.casino.timezone))
        self.status.setText(
            f"Recorded check #{rec.check_id}: {rec.verdict.upper()}, checked by "
            f"{rec.by.label()} at "
            f"{when:%d %b %H:%M:%S}")
        self.status.setStyleSheet(f"color: {theme.OK}; font-weight: bold;")
        self.recorded.emit(rec)
