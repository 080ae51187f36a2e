"""The machine's screen as a grid the user fills in and the check marks: rows x reels of symbol
cells, entered by mouse or keyboard, with the paying cells, substitutes, scatters and paylines
drawn over them (check_marks.py says which)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from core.machines.rules.slot_games import Game
from core.machines.rules.slots import Screen
from gui.common import theme
from gui.machines.check_marks import PATTERN_COLOUR, SCATTER_COLOUR, SUBSTITUTE_COLOUR, Marks

CELL = 78  # px, one symbol on the grid
GAP = 8


class ScreenGrid(QWidget):
    """The machine's screen, rows x reels.  Mouse: a click sets the cursor and cycles the cell
    to the next symbol (right click: the previous one).  Keys: arrows move, a symbol's id sets
    the cell and moves right, Space cycles, Enter asks to evaluate."""

    changed = Signal()
    evaluateRequested = Signal()
    problem = Signal(str)  # a key that is no symbol of the game

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setObjectName("screenGrid")
        self.game: Game | None = None
        self.cells: list[list[str]] = []
        self.cell: tuple[int, int] = (0, 0)  # the cursor's cell (row, reel)
        self.marks = Marks()

    # -- data -----------------------------------------------------------------------------
    def set_game(self, game: Game) -> None:
        self.game = game
        first = next(iter(game.symbols))
        self.cells = [[first] * game.reels for _ in range(game.rows)]
        self.cell = (0, 0)
        self.marks = Marks()
        self.updateGeometry()
        self.update()

    def set_screen(self, screen: Screen) -> None:
        self.cells = [list(row) for row in screen]
        self.update()

    def symbols(self) -> Screen:
        """The screen as entered (rows of symbol ids)."""
        return tuple(tuple(row) for row in self.cells)

    def set_marks(self, marks: Marks) -> None:
        self.marks = marks
        self.update()

    def set_cell(self, row: int, reel: int, symbol: str) -> None:
        if self.cells[row][reel] != symbol:
            self.cells[row][reel] = symbol
            self.update()
            self.changed.emit()

    def _cycle(self, step: int) -> None:
        assert self.game is not None
        syms = list(self.game.symbols)
        r, c = self.cell
        i = syms.index(self.cells[r][c]) if self.cells[r][c] in syms else -1
        self.set_cell(r, c, syms[(i + step) % len(syms)])

    # -- geometry -------------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        reels = self.game.reels if self.game else 5
        rows = self.game.rows if self.game else 3
        return QSize(reels * (CELL + GAP) + GAP, rows * (CELL + GAP) + GAP)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self.sizeHint()

    def cell_rect(self, row: int, reel: int) -> QRectF:
        return QRectF(GAP + reel * (CELL + GAP), GAP + row * (CELL + GAP), CELL, CELL)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        for r in range(len(self.cells)):
            for c in range(len(self.cells[r])):
                if self.cell_rect(r, c).contains(QPointF(x, y)):
                    return r, c
        return None

    # -- input ----------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        hit = self.cell_at(event.position().x(), event.position().y())
        if hit is None or self.game is None:
            return
        self.setFocus()
        self.cell = hit
        self._cycle(-1 if event.button() == Qt.MouseButton.RightButton else 1)
        self.update()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt API)
        if self.game is None:
            return
        r, c = self.cell
        key = event.key()
        moves = {Qt.Key.Key_Left: (0, -1), Qt.Key.Key_Right: (0, 1),
                 Qt.Key.Key_Up: (-1, 0), Qt.Key.Key_Down: (1, 0)}
        if key in moves:
            dr, dc = moves[Qt.Key(key)]
            self.cell = ((r + dr) % self.game.rows, (c + dc) % self.game.reels)
            self.update()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.evaluateRequested.emit()
            return
        if key == Qt.Key.Key_Space:
            self._cycle(1)
            return
        text = event.text().strip()
        if not text or not text.isprintable():
            super().keyPressEvent(event)
            return
        sym = self._symbol_for(text)
        if sym is None:
            self.problem.emit(f"screen: {text!r} is not a symbol of {self.game.name} "
                              f"(symbols: {', '.join(self.game.symbols)})")
            return
        self.set_cell(r, c, sym)
        # the next cell: right along the row, then the next row (typing a screen row by row)
        nxt = r * self.game.reels + c + 1
        if nxt < self.game.rows * self.game.reels:
            self.cell = divmod(nxt, self.game.reels)
        self.update()

    def _symbol_for(self, text: str) -> str | None:
        assert self.game is not None
        if text in self.game.symbols:
            return text
        same = [s for s in self.game.symbols if s.lower() == text.lower()]
        if len(same) == 1:
            return same[0]
        starting = [s for s in self.game.symbols if s.lower().startswith(text.lower())]
        return starting[0] if len(starting) == 1 else None

    # -- painting -------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        if self.game is None:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = QFont(self.font())
        font.setPointSize(26)
        font.setBold(True)
        p.setFont(font)
        kinds = self.game.symbols
        for r, row in enumerate(self.cells):
            for c, sym in enumerate(row):
                rect = self.cell_rect(r, c)
                fill, border, width = QColor(theme.PANEL_2), QColor("#3a424d"), 1.5
                if (r, c) in self.marks.substitute:
                    fill, border, width = QColor("#3b2a55"), QColor(SUBSTITUTE_COLOUR), 4.0
                elif (r, c) in self.marks.scatter:
                    fill, border, width = QColor("#173a5c"), QColor(SCATTER_COLOUR), 4.0
                elif (r, c) in self.marks.pattern:
                    fill, border, width = QColor("#174a34"), QColor(PATTERN_COLOUR), 4.0
                p.setPen(QPen(border, width))
                p.setBrush(fill)
                p.drawRoundedRect(rect.adjusted(2, 2, -2, -2), 8, 8)
                colour = theme.TEXT if width > 2 else {
                    "substitute": SUBSTITUTE_COLOUR, "scatter": SCATTER_COLOUR}.get(
                    kinds.get(sym, "normal"), theme.TEXT)
                p.setPen(QColor(colour))
                p.drawText(rect.adjusted(0, 0, 0, -14), Qt.AlignmentFlag.AlignCenter, sym)
        small = QFont(self.font())
        small.setPointSize(10)
        small.setBold(True)
        p.setFont(small)
        for n, (cells, count, colour, label) in enumerate(self.marks.lines):
            offset = CELL // 2 - 12 - (n % 3) * 7  # low in the cell, clear of the symbol;
            # lines over the same cells stay apart
            pts = [self.cell_rect(r, c).center() + QPointF(0, offset) for r, c in cells]
            pen = QPen(QColor(colour), 2.0, Qt.PenStyle.DashLine)
            p.setPen(pen)
            for a, b in zip(pts[count - 1:], pts[count:], strict=False):
                p.drawLine(a, b)  # the rest of the line: not part of the pattern
            pen = QPen(QColor(colour), 5.0)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            p.setPen(pen)
            for a, b in zip(pts[:count - 1], pts[1:count], strict=False):
                p.drawLine(a, b)
            for pt in pts[:count]:
                p.setBrush(QColor(colour))
                p.drawEllipse(pt, 5, 5)
            r0, c0 = cells[0]
            tag = self.cell_rect(r0, c0)
            p.setPen(QColor(colour))
            p.drawText(QRectF(tag.left() + 6, tag.top() + 4 + (n % 3) * 14, 40, 16),
                       Qt.AlignmentFlag.AlignLeft, label)
        if self.hasFocus():
            r, c = self.cell
            p.setPen(QPen(QColor(theme.TEXT), 2.0, Qt.PenStyle.DotLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(self.cell_rect(r, c).adjusted(-3, -3, 3, 3))
        p.end()
