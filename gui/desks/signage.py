"""``podium display``: a full-screen room display of live jackpot amounts, read from the ledger.

``podium display --group WA01`` shows every level of a progressive group (its name and its
live meter in very large digits, in the floor's currency as the casino's locale writes it)
with PENDING when a hit waits on a level and JACKPOT LOCKED when lock at hit has fixed an
amount for one;
``podium display --bbj FUND`` shows a poker room's Bad Beat Jackpot.  The amounts are read
from the ledger every second (core/desks/signage.py, through a read-only
:class:`~core.desks.desk.Desk`), so nobody types a posted amount by hand.

The display never writes: it opens the ledger read-only (core.desks.signage.display_engine).  When
the ledger does not answer (a read fails, or none has answered for :data:`STALE_S` seconds) the
amounts are taken off the screen and it says "LEDGER UNREACHABLE since HH:MM"; a stale amount
never looks live.  Reads run off the GUI thread (gui/common/bridge.py), one at a time; the window
keeps only the latest answer, so it can run for months.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import QWidget

from core.desks.signage import LOCKED, PENDING, FundSign, GroupSign, SignPoller, Unreachable
from core.kernel.money import Currency
from gui.common import theme

log = logging.getLogger("podium.gui.signage")

POLL_MS = 1000
STALE_S = 5.0  # no answer for this long: the amounts come off the screen
BLACK = "#000000"
DIM = "#59626d"


@dataclass(frozen=True)
class Row:
    label: str  # "MAIN", "MEGA", "BAD BEAT JACKPOT"
    amount: str  # "$25,000.40"; "— — —" while the ledger does not answer
    banner: str = ""  # "PENDING", "JACKPOT LOCKED ...", "CEASED"
    banner_kind: str = ""  # pending | locked | alert


@dataclass(frozen=True)
class Board:
    """Exactly what the display shows (painted by :class:`SignageWindow`)."""

    title: str
    rows: tuple[Row, ...]
    status: str
    live: bool  # False: no amount on screen is live
    detail: str = ""  # why the ledger does not answer (smaller, under the status)


HIDDEN = "— — —"


def board_of(result: GroupSign | FundSign | Unreachable, *, money: Currency, tz: ZoneInfo,
             title: str, labels: tuple[str, ...]) -> Board:
    """The board for a read (or a failure): ``title`` and ``labels`` are the names shown while
    the ledger does not answer (names only: never an amount from an earlier read)."""
    if isinstance(result, Unreachable):
        since = result.since.astimezone(tz)
        rows = tuple(Row(label, HIDDEN) for label in labels) or (Row("", HIDDEN),)
        return Board(title, rows, f"LEDGER UNREACHABLE since {since:%H:%M} · amounts hidden "
                     "until it answers", live=False, detail=result.reason)
    at = result.read_at.astimezone(tz)
    status = f"live from the ledger · {at:%H:%M:%S}"
    if isinstance(result, FundSign):
        banner, kind = ("CEASED", "alert") if result.ceased else ("", "")
        return Board(result.name, (Row("BAD BEAT JACKPOT", money.text(result.main_cents),
                                       banner, kind),),
                     status, live=True)
    level_rows: list[Row] = []
    for lv in result.levels:
        if lv.state == LOCKED:
            plural = "S" if lv.hits != 1 else ""
            row = Row(lv.level, money.text(lv.meter_cents),
                      f"JACKPOT LOCKED · {money.text(lv.locked_cents)} WON · "
                      f"{lv.hits} HIT{plural} BEING VERIFIED", "locked")
        elif lv.state == PENDING:
            row = Row(lv.level, money.text(lv.meter_cents), "PENDING · HIT BEING "
                      "VERIFIED", "pending")
        else:
            row = Row(lv.level, money.text(lv.meter_cents))
        level_rows.append(row)
    return Board(result.name, tuple(level_rows), status, live=True)


def fit_font(base: QFont, text: str, width: int, height: int) -> QFont:
    """``base`` at the largest pixel size at which ``text`` fits in ``width`` x ``height``."""
    font = QFont(base)
    ref = 100
    font.setPixelSize(ref)
    metrics = QFontMetrics(font)
    advance = max(1, metrics.horizontalAdvance(text))
    size = min(int(ref * width / advance), int(height * 0.92))
    font.setPixelSize(max(8, size))
    return font


class SignageWindow(QWidget):
    """The display: paints :attr:`board`; reads the ledger every second off the GUI thread."""

    def __init__(self, poller: SignPoller, *, money: Currency, tz: ZoneInfo, title: str,
                 poll_ms: int = POLL_MS, stale_s: float = STALE_S,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Podium display: {title}")
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._poller = poller
        self._money = money
        self._tz = tz
        self._title = title
        self._labels: tuple[str, ...] = ()
        self.stale_s = stale_s
        self._last_answer = time.monotonic()  # monotonic time of the last live read
        self._last_read_at: datetime | None = None  # its ledger-read time (UTC)
        self.answers = 0  # reads answered (tests, screenshots)
        self.board = Board(title, (Row("", HIDDEN),), "reading the ledger ...", live=False)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.tick)
        self._timer.start(poll_ms)
        QShortcut(QKeySequence("Ctrl+Q"), self).activated.connect(self.close)
        QTimer.singleShot(0, self.tick)

    # -- reading ---------------------------------------------------------------------------------
    def tick(self) -> None:
        from gui.common.bridge import default_bridge

        self.check_stale(time.monotonic())
        default_bridge().query(self._poller.poll, self._answered, self._failed, key="signage")

    def check_stale(self, now: float) -> None:
        """No read has answered for :attr:`stale_s` seconds (a read hangs on a dead network):
        the amounts come off the screen."""
        if self.board.live and now - self._last_answer > self.stale_s:
            since = self._last_read_at or datetime.now(UTC)
            self._show(Unreachable(since, f"no answer for {int(now - self._last_answer)} s"))

    def _answered(self, result: GroupSign | FundSign | Unreachable) -> None:
        self.answers += 1
        if not isinstance(result, Unreachable):
            self._last_answer = time.monotonic()
            self._last_read_at = result.read_at
            self._title = result.name
            self._labels = (("BAD BEAT JACKPOT",) if isinstance(result, FundSign)
                            else tuple(lv.level for lv in result.levels))
        self._show(result)

    def _failed(self, exc: BaseException) -> None:  # the poller catches; this is a last guard
        log.warning("signage: the read failed: %s", exc)
        self._show(Unreachable(self._last_read_at or datetime.now(UTC), str(exc)[:200]))

    def _show(self, result: GroupSign | FundSign | Unreachable) -> None:
        board = board_of(result, money=self._money, tz=self._tz, title=self._title,
                         labels=self._labels)
        if board != self.board:
            self.board = board
            self.update()

    # -- painting --------------------------------------------------------------------------------
    def paintEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        b = self.board
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        w, h = self.width(), self.height()
        p.fillRect(0, 0, w, h, QColor(BLACK))
        margin = max(8, w // 40)
        inner = w - 2 * margin
        base = QFont(self.font())
        base.setBold(True)
        head_h = int(h * 0.11)
        foot_h = int(h * (0.13 if not b.live else 0.06))
        top = int(h * 0.02)
        p.setPen(QColor(theme.TEXT))
        p.setFont(fit_font(base, b.title, inner, head_h))
        p.drawText(QRect(margin, top, inner, head_h), Qt.AlignmentFlag.AlignCenter, b.title)
        body_top = top + head_h
        body_h = h - body_top - foot_h - top
        row_h = body_h // max(1, len(b.rows))
        has_banner = any(r.banner for r in b.rows)
        # every amount in one size, fitted to the longest with its digits as 8s (the widest),
        # so the digits do not change size as a meter grows or from one level to the next
        widest = max((r.amount for r in b.rows), key=len)
        sample = "".join("8" if c.isdigit() else c for c in widest) if b.live else "$8,888.88"
        amount_h_all = row_h - int(row_h * 0.22) - (int(row_h * 0.16) if has_banner else 0)
        # a little short of the full width: some currency glyphs overhang their advance
        amount_font = fit_font(base, sample, int(inner * 0.94), amount_h_all)
        for i, row in enumerate(b.rows):
            y = body_top + i * row_h
            label_h = int(row_h * 0.22)
            banner_h = int(row_h * 0.16) if has_banner else 0
            amount_h = row_h - label_h - banner_h
            if row.label:
                p.setPen(QColor(theme.MUTED))
                p.setFont(fit_font(base, row.label, inner, min(label_h, int(head_h * 0.8))))
                p.drawText(QRect(margin, y, inner, label_h), Qt.AlignmentFlag.AlignCenter,
                           row.label)
            p.setPen(QColor(theme.ACCENT if b.live else DIM))
            p.setFont(amount_font)
            p.drawText(QRect(margin, y + label_h, inner, amount_h), Qt.AlignmentFlag.AlignCenter,
                       row.amount)
            if row.banner:
                color = theme.WARN if row.banner_kind == "pending" else theme.ALERT
                rect = QRect(margin, y + label_h + amount_h, inner, banner_h)
                p.fillRect(rect.adjusted(0, 2, 0, -2), QColor(color))
                p.setPen(QColor(BLACK))
                p.setFont(fit_font(base, f"  {row.banner}  ", inner, banner_h - 4))
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, row.banner)
        rect = QRect(margin, h - foot_h - top, inner, foot_h)
        if b.live:
            p.setPen(QColor(DIM))
            p.setFont(fit_font(self.font(), b.status, inner, int(foot_h * 0.6)))
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, b.status)
        else:
            p.fillRect(QRect(0, h - foot_h - top, w, foot_h + top), QColor(theme.ALERT))
            p.setPen(QColor("#ffffff"))
            upper = QRect(margin, rect.top(), inner, int(foot_h * 0.62))
            p.setFont(fit_font(base, b.status, inner, int(upper.height() * 0.85)))
            p.drawText(upper, Qt.AlignmentFlag.AlignCenter, b.status)
            if b.detail:
                lower = QRect(margin, upper.bottom(), inner, foot_h - upper.height())
                p.setFont(fit_font(self.font(), b.detail, inner, int(lower.height() * 0.7)))
                p.drawText(lower, Qt.AlignmentFlag.AlignCenter, b.detail)
        p.end()


# -- podium display -----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:  # for completeness
    _options(parser)


def _options(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--group", help="the progressive group whose levels to show (e.g. WA01)")
    what.add_argument("--bbj", metavar="FUND", help="the poker room's Bad Beat Jackpot fund")
    p.add_argument("--floor", default="demo",
                   help="floor configuration file (TOML) for the currency, locale and time zone; "
                        "'demo' (the default) for the embedded demo floor")
    p.add_argument("--db", default=None,
                   help="ledger URL, opened read-only (default: the demo's ledger with the demo "
                        "floor, else the SQLite ledger in the user data folder); e.g. "
                        "postgresql+psycopg://reader@host/podium")
    p.add_argument("--windowed", action="store_true", help="a window, not full screen (tests)")
    p.add_argument("--screenshots", default=None, metavar="DIR",
                   help="save a screenshot into DIR once the amounts are read, and quit")
    p.add_argument("--log-level", default="INFO")


def open_sign(floor: str, db: str | None, group: str | None, bbj: str | None
              ) -> tuple[Any, Callable[[], GroupSign | FundSign], str]:
    """The read-only desk, the read a display makes every second, and its title.  The ledger is
    checked as a desk's is (core.desks.desk.open_ledger: the file exists, the reader role, the
    revision); one that does not answer yet is not an error here: the display opens and says
    so."""
    import platformdirs
    from sqlalchemy.exc import SQLAlchemyError

    from core import floorconfig
    from core.desks.desk import Desk, LedgerUnreachable, open_ledger
    from core.desks.signage import display_engine, read_fund, read_group
    from core.ledger.db import default_url
    from core.tablegames.rules.paytables import load_paytables

    config = floorconfig.load_demo_floor() if floor == "demo" else floorconfig.load_floor(floor)
    if db is None:
        data = Path(platformdirs.user_data_dir("podium"))
        db = f"sqlite:///{data / 'demo.sqlite'}" if floor == "demo" else default_url(create=False)
    try:
        open_ledger(db).dispose()
    except (SQLAlchemyError, LedgerUnreachable) as exc:
        log.warning("signage: the ledger does not answer yet: %s", exc)
    desk = Desk("surveillance", display_engine(db), config, dict(load_paytables()))
    if group is not None:
        return desk, lambda: read_group(desk, group), group
    assert bbj is not None
    return desk, lambda: read_fund(desk, bbj), bbj


def run(args: argparse.Namespace) -> int:
    from core.cli.dispatch import OneLineParser

    parser = OneLineParser(prog=f"podium {args._command}")
    _options(parser)
    opts = parser.parse_args(args.rest)
    from gui.app import _qt_messages, configure_logging

    configure_logging(opts.log_level)
    from sqlalchemy.exc import SQLAlchemyError

    from core.kernel.text import printable

    try:
        desk, read, title = open_sign(opts.floor, opts.db, opts.group, opts.bbj)
    except (ValueError, OSError) as exc:
        print(f"podium {args._command}: {printable(str(exc))}", file=sys.stderr)
        return 2
    try:
        read()  # an unknown group or fund is named before any window opens
    except ValueError as exc:
        print(f"podium {args._command}: {printable(str(exc))}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, OSError) as exc:  # not yet reachable: the display starts and says so
        log.warning("signage: the ledger does not answer yet: %s", exc)
    poller = SignPoller(read)
    first = poller.poll()

    from PySide6.QtWidgets import QApplication

    _qt_messages()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Podium display")
    theme.apply(app)  # type: ignore[arg-type]
    from gui.common import collector

    collector.install(app, freeze=True)
    # a group's meters in the floor's currency, a fund in the poker room's (the casino's locale)
    money = desk.config.fund_money if opts.bbj else desk.config.money
    window = SignageWindow(poller, money=money, tz=desk.tz, title=title)
    window._answered(first)
    if opts.windowed or opts.screenshots:
        window.resize(1280, 720)
        window.show()
    else:
        window.setCursor(Qt.CursorShape.BlankCursor)
        window.showFullScreen()
    if opts.screenshots:
        out = Path(opts.screenshots)
        out.mkdir(parents=True, exist_ok=True)
        name = "signage-group.png" if opts.group else "signage-bbj.png"

        def shoot() -> None:
            window.grab().save(str(out / name))
            app.quit()

        QTimer.singleShot(2500, shoot)
    rc = app.exec()
    desk.engine.dispose()
    return int(rc)
