"""Surveillance's panel (read-only): the hits of a period with their flags, and for the hit
chosen its timeline, its cards re-evaluated beside the claim and its flags
(core/desks/surveillance/, docs/operator.md "Surveillance").

Everything is read off the GUI thread through the bridge (:func:`gui.common.bridge.default_bridge`)
from a :class:`~core.desks.desk.Desk`; the panel writes nothing.  A newer search or a newer hit
supersedes the one still being read (the bridge's keys): only the latest answer shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime

from PySide6.QtCore import QDate, Qt
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from sqlalchemy.exc import SQLAlchemyError

from core.desks.accounting.periods import gaming_day_of, gaming_days
from core.desks.desk import Desk
from core.desks.surveillance.flags import Flag
from core.desks.surveillance.hits import STATUSES, hits_to_look_at
from core.desks.surveillance.records import HitLine, Timeline
from core.desks.surveillance.text import ms_text
from core.desks.surveillance.timeline import timeline
from core.kernel.cards import Card, parse_card
from core.kernel.money import format_cents
from core.kernel.text import hit_number, hit_ref, printable
from gui.common import theme
from gui.common.bridge import default_bridge
from gui.common.cards import card_html, hand_label
from gui.common.selection import reselect, selected_key

log = logging.getLogger("podium.gui.surveillance")

HIT_COLUMNS = ("Time", "Hit", "Table", "Seat", "Status", "Hand", "Amount", "Flags")
EVENT_COLUMNS = ("Time", "Source", "What", "Who", "Detail")
FLAGGED_ROW = QColor("#3a2a12")  # a timeline row that is evidence of a flag
SOURCE_COLORS = {"refused frame": theme.ALERT, "void": theme.ALERT, "award": theme.ACCENT,
                 "controller": theme.INFO, "adjustment": theme.WARN}


def _item(text: str, *, color: str | None = None, tip: str = "") -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    it.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
    if color:
        it.setForeground(QColor(color))
    if tip:
        it.setToolTip(tip)
    return it


def _cards_html(texts: Sequence[str]) -> str:
    cards: list[Card] = []
    for t in texts:
        try:
            cards.append(parse_card(t))
        except ValueError:
            return printable(" ".join(texts))
    return " ".join(card_html(c) for c in cards)


def _qdate(d: date) -> QDate:
    return QDate(d.year, d.month, d.day)


def _date(q: QDate) -> date:
    return date(q.year(), q.month(), q.day())


class SurveillancePanel(QWidget):
    """The hits to look at and one hit's timeline, for a surveillance desk."""

    def __init__(self, desk: Desk, parent: QWidget | None = None, *,
                 now: Callable[[], datetime] | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        self._now = now or (lambda: datetime.now(UTC))
        self.lines: list[HitLine] = []
        self.current: Timeline | None = None
        self._wanted_hit: int | None = None
        self._searched = False

        lay = QVBoxLayout(self)
        bar = QHBoxLayout()
        today = gaming_day_of(desk.config.casino, self._now())
        bar.addWidget(QLabel("Gaming days"))
        self.first = QDateEdit(_qdate(today))
        self.first.setCalendarPopup(True)
        self.first.setDisplayFormat("yyyy-MM-dd")
        self.last = QDateEdit(_qdate(today))
        self.last.setCalendarPopup(True)
        self.last.setDisplayFormat("yyyy-MM-dd")
        bar.addWidget(self.first)
        bar.addWidget(QLabel("to"))
        bar.addWidget(self.last)
        self.table = QComboBox()
        self.table.addItem("every table", "")
        for t in desk.config.tables:
            self.table.addItem(t.id if t.name == t.id else f"{t.id} {t.name}", t.id)
        bar.addWidget(self.table)
        self.status = QComboBox()
        self.status.addItem("every status", "")
        for s in STATUSES:
            self.status.addItem(s.replace("_", "-"), s)
        bar.addWidget(self.status)
        self.flagged = QCheckBox("Flagged only")
        bar.addWidget(self.flagged)
        self.search_btn = QPushButton("Search")
        self.search_btn.setObjectName("primary")
        self.search_btn.clicked.connect(self.search)
        bar.addWidget(self.search_btn)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("filter: hit no., hand, flag code  (Enter: open a hit no.)")
        self.filter.textChanged.connect(self._show_lines)
        self.filter.returnPressed.connect(self._open_typed)
        bar.addWidget(self.filter, 1)
        lay.addLayout(bar)
        self.message = QLabel("")
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)
        lay.addWidget(self.message)

        split = QSplitter(Qt.Orientation.Vertical)
        self.hits = QTableWidget(0, len(HIT_COLUMNS))
        self.hits.setHorizontalHeaderLabels(HIT_COLUMNS)
        self.hits.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.hits.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.hits.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.hits.verticalHeader().setVisible(False)
        self.hits.setAlternatingRowColors(True)
        self.hits.horizontalHeader().setSectionResizeMode(
            len(HIT_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.hits.itemSelectionChanged.connect(self._selected)
        split.addWidget(self.hits)

        detail = QWidget()
        dl = QVBoxLayout(detail)
        dl.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Choose a hit")
        self.title.setStyleSheet("font-size: 15pt; font-weight: bold;")
        self.title.setWordWrap(True)
        dl.addWidget(self.title)
        row = QHBoxLayout()
        cards_box = QGroupBox("Cards re-evaluated")
        cb = QVBoxLayout(cards_box)
        self.cards = QLabel("")
        self.cards.setTextFormat(Qt.TextFormat.RichText)
        self.cards.setWordWrap(True)
        self.cards.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        cb.addWidget(self.cards)
        row.addWidget(cards_box, 1)
        flags_box = QGroupBox("Flags")
        fb = QVBoxLayout(flags_box)
        self.flags = QLabel("")
        self.flags.setTextFormat(Qt.TextFormat.RichText)
        self.flags.setWordWrap(True)
        self.flags.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        scroll = QScrollArea()  # every flag stays readable, however many
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.flags)
        scroll.setMinimumHeight(190)
        fb.addWidget(scroll)
        row.addWidget(flags_box, 1)
        dl.addLayout(row)
        self.events = QTableWidget(0, len(EVENT_COLUMNS))
        self.events.setHorizontalHeaderLabels(EVENT_COLUMNS)
        self.events.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.events.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.events.verticalHeader().setVisible(False)
        self.events.horizontalHeader().setSectionResizeMode(
            len(EVENT_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.events.setWordWrap(False)
        dl.addWidget(self.events, 1)
        split.addWidget(detail)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 2)
        split.setSizes([300, 640])
        lay.addWidget(split, 1)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt API)
        """The first time the panel is shown, it reads today's gaming day."""
        super().showEvent(event)
        if not self._searched:
            self.search()

    # -- the list -------------------------------------------------------------------------------
    def set_days(self, first: date, last: date) -> None:
        self.first.setDate(_qdate(first))
        self.last.setDate(_qdate(last))

    def search(self) -> None:
        """Read the hits of the chosen gaming days (off the GUI thread)."""
        try:
            period = gaming_days(self.desk.config.casino, _date(self.first.date()),
                                 _date(self.last.date()))
        except ValueError as exc:
            self.message.setText(printable(str(exc)))
            return
        self._searched = True
        table = str(self.table.currentData() or "") or None
        status = str(self.status.currentData() or "") or None
        flagged = self.flagged.isChecked()
        desk, now = self.desk, self._now()
        self.message.setText(f"Reading the hits of {period.label}…")

        def read() -> tuple[str, list[HitLine]]:
            return period.label, hits_to_look_at(desk, period, table=table, status=status,
                                                 flagged_only=flagged, now=now)

        default_bridge().query(read, self._listed, self._failed, key="surveillance-hits")

    def _listed(self, result: tuple[str, list[HitLine]]) -> None:
        label, self.lines = result
        flagged = sum(1 for ln in self.lines if ln.flags)
        self.message.setText(f"{label}: {len(self.lines)} hit(s), {flagged} flagged")
        self._show_lines()

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, ValueError | SQLAlchemyError):
            text = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0:1]
            self.message.setText(printable(f"Can not read: {text[0] if text else exc}"))
        else:
            log.warning("surveillance read failed: %s: %s", type(exc).__name__, exc)
            self.message.setText(f"Can not read the ledger ({type(exc).__name__}); see the log")

    def visible_lines(self) -> list[HitLine]:
        """The hits read, narrowed by the filter: a number is a hit number (``H12`` as
        the queue and the win slip write it, ``#12`` or ``12``); any other word must be in
        the table, status, hand or a flag code."""
        words = self.filter.text().casefold().split()
        if not words:
            return self.lines

        def match(ln: HitLine, word: str) -> bool:
            number = hit_number(word)  # H12 (as the queue and the slip write it), #12, 12
            if number is not None:
                return ln.hit_id == number
            return word in " ".join([ln.table, ln.status, ln.claimed_hand, ln.hand or "",
                                     *(str(f.code) for f in ln.flags)]).casefold()

        return [ln for ln in self.lines if all(match(ln, w) for w in words)]

    def _show_lines(self) -> None:
        lines = self.visible_lines()
        keep = selected_key(self.hits, self.hit_ids())  # the hit picked, wherever it moves
        self.hits.blockSignals(True)
        self.hits.setRowCount(len(lines))
        for r, ln in enumerate(lines):
            codes = ", ".join(str(f.code) for f in ln.flags)
            tip = "\n".join(printable(f.sentence) for f in ln.flags)
            cells = (ms_text(ln.at), hit_ref(ln.hit_id), ln.table, str(ln.seat),
                     ln.status.replace("_", "-"), hand_label(ln.hand),
                     format_cents(ln.amount_cents) if ln.amount_cents is not None else "—",
                     codes or "—")
            for c, text in enumerate(cells):
                color = (theme.WARN if ln.flags else None) if c == 7 else None
                item = _item(text, color=color, tip=tip if c == 7 else "")
                if c == 1:  # the hit's row knows its hit
                    item.setData(Qt.ItemDataRole.UserRole, ln.hit_id)
                self.hits.setItem(r, c, item)
        reselect(self.hits, [ln.hit_id for ln in lines], keep)
        self.hits.blockSignals(False)
        for c in range(len(HIT_COLUMNS) - 1):  # the flags take the rest (full text: tooltip)
            self.hits.resizeColumnToContents(c)

    def hit_ids(self) -> list[int]:
        return [self._hit_at(r) for r in range(self.hits.rowCount())]

    def _hit_at(self, row: int) -> int:
        item = self.hits.item(row, 1)
        return int(item.data(Qt.ItemDataRole.UserRole)) if item is not None else 0

    def _selected(self) -> None:
        rows = self.hits.selectionModel().selectedRows()
        if rows:
            self.open_hit(self._hit_at(rows[0].row()))

    def _open_typed(self) -> None:
        number = hit_number(self.filter.text())
        if number is not None:
            self.open_hit(number)

    # -- one hit --------------------------------------------------------------------------------
    def open_hit(self, hit_id: int) -> None:
        """Read hit ``hit_id``'s timeline (off the GUI thread) and show it."""
        desk, now = self.desk, self._now()
        self._wanted_hit = hit_id
        self.title.setText(f"Hit {hit_ref(hit_id)}: reading…")
        default_bridge().query(lambda: timeline(desk, hit_id, now=now), self._show_timeline,
                               self._timeline_failed, key="surveillance-timeline")

    def _timeline_failed(self, exc: BaseException) -> None:
        self.current = None
        self.events.setRowCount(0)
        self.cards.setText("")
        self.flags.setText("")
        if isinstance(exc, ValueError | SQLAlchemyError):
            self.title.setText(printable(str(exc).splitlines()[0] if str(exc) else "no hit"))
        else:
            log.warning("surveillance timeline failed: %s: %s", type(exc).__name__, exc)
            self.title.setText(f"Can not read the hit ({type(exc).__name__}); see the log")

    def _show_timeline(self, tl: Timeline) -> None:
        if self._wanted_hit is not None and tl.line.hit_id != self._wanted_hit:
            return  # an older answer
        self.current = tl
        ln = tl.line
        paid = (f"; {format_cents(ln.amount_cents)} from the {tl.source}"
                + (f" {tl.level}" if tl.level and tl.source == "meter" else "")
                if ln.amount_cents is not None else "")
        self.title.setText(f"Hit {hit_ref(ln.hit_id)} · table {ln.table} round {ln.round_no} seat "
                           f"{ln.seat} · {ln.status.replace('_', '-')}{paid} · times in "
                           f"{tl.timezone}")
        self.cards.setText(self.cards_html(tl))
        self.flags.setText(self.flags_html(tl.flags))
        self._show_events(tl)

    @staticmethod
    def cards_html(tl: Timeline) -> str:
        c = tl.cards
        bad = f"color:{theme.ALERT}; font-weight:bold"
        rows = [f"<tr><td>Claimed&nbsp;</td><td><b>{hand_label(c.claimed)}</b></td></tr>"]

        def made(hand: str | None) -> str:
            if hand is None:
                return ""
            style = bad if hand != c.claimed else f"color:{theme.OK}"
            return f' &rarr; <span style="{style}">{hand_label(hand)}</span>'

        table = _cards_html(c.table_cards) if c.table_cards else "<i>none sent</i>"
        rows.append(f"<tr><td>Table sent&nbsp;</td><td style='font-size:15pt'>{table}"
                    f"{made(c.table_makes)}</td></tr>")
        if c.verified_cards:
            style = f" style='{bad}'" if c.cards_changed else ""
            rows.append(f"<tr><td{style}>Verified&nbsp;</td><td style='font-size:15pt'>"
                        f"{_cards_html(c.verified_cards)}{made(c.verified_makes)}</td></tr>")
        if c.paid_hand:
            rows.append(f"<tr><td>Paid as&nbsp;</td><td>{hand_label(c.paid_hand)}</td></tr>")
        html = "<table cellspacing='4'>" + "".join(rows) + "</table>"
        if c.note:
            html += f"<p style='color:{theme.MUTED}'>{_escape(printable(c.note))}</p>"
        return html

    @staticmethod
    def flags_html(flags: Sequence[Flag]) -> str:
        if not flags:
            return f"<span style='color:{theme.OK}'>No flag.</span>"
        items = "".join(
            f"<li><b style='color:{theme.WARN}'>{f.code}</b> {f.title}: "
            f"{_escape(printable(f.sentence))}</li>" for f in flags)
        return f"<ul style='margin-left:-20px'>{items}</ul>"

    def _show_events(self, tl: Timeline) -> None:
        self.events.setRowCount(len(tl.events))
        for r, e in enumerate(tl.events):
            who = e.who.label() if e.who else "—"
            what = e.what + (f"  [{e.flag}]" if e.flag else "")
            cells = (e.time_text, e.source, what, who, printable(e.detail))
            for c, text in enumerate(cells):
                color = SOURCE_COLORS.get(e.source) if c == 1 else None
                if c == 2 and ("REFUSED" in e.what or "FAILED" in e.what):
                    color = theme.ALERT
                it = _item(text, color=color, tip=printable(e.detail) if c == 4 else "")
                if e.flag:
                    it.setBackground(FLAGGED_ROW)
                self.events.setItem(r, c, it)
        for c in range(len(EVENT_COLUMNS) - 1):  # the detail takes the rest (full: tooltip)
            self.events.resizeColumnToContents(c)

    def event_rows(self) -> list[tuple[str, ...]]:
        def text(r: int, c: int) -> str:
            item = self.events.item(r, c)
            return item.text() if item is not None else ""

        return [tuple(text(r, c) for c in range(self.events.columnCount()))
                for r in range(self.events.rowCount())]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
