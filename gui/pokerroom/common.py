"""What the poker room's panels share: the room's context (the facade, the settings, the
clock, the chosen fund), and small helpers for words and fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, TypeVar, cast
from zoneinfo import ZoneInfo

from PySide6.QtCore import QDate, QDateTime, QTime, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QDateEdit, QDateTimeEdit, QLabel, QScrollArea, QWidget

from core.kernel.money import PESOS, Currency, parse_cents
from core.pokerroom import fund as bf
from core.pokerroom.room import PokerRoom, RoomFund
from core.pokerroom.rules.bbj import BbjSettings, Decision
from gui.common import theme

NO_FUND = "No Bad Beat Jackpot fund: create one first (docs/bbj.md)."
T = TypeVar("T")


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RoomContext:
    """The screen's shared state, one object every panel holds: the facade, the window (its
    swipe prompt), the floor file's settings (a test replaces ``rules`` or ``fund_settings``),
    the clock of the steps taken here and the confirmation before an irreversible step (a
    test replaces both), and the chosen fund as last read (the fund header keeps it)."""

    room: PokerRoom
    window: Any  # authorize(role, what, kind, action) and pin_needed(role)
    tz: ZoneInfo
    rules: BbjSettings
    fund_settings: bf.FundSettings
    ask: Callable[[str, str], bool]
    now: Callable[[], datetime] = utcnow
    money: Currency = PESOS  # the funds' (FloorConfig.fund_money)
    funds: list[RoomFund] = field(default_factory=list)
    fund: str | None = None  # the chosen fund's id
    status: bf.FundStatus | None = None  # the chosen fund as last read

    @property
    def holidays(self) -> tuple[date, ...]:
        """The floor file's public holidays (not business days, RULES.md 6 deadlines)."""
        return self.room.holidays

    def swiped(self, role: str, what: str, action: str, write: Callable[[Any], T]) -> T | None:
        """Ask for a card of ``role`` (the window's swipe prompt, saying ``what``; ``action``
        names the step for the prompt) and ``write(swipe)`` with it: what the write returned
        once a card is accepted, or None when the prompt was closed without one (a refused
        card or write shows its reason in the prompt, which waits for another card)."""
        done: list[T] = []

        def do(swipe: Any) -> T:
            result = write(swipe)
            done.append(result)
            return result

        return done[0] if self.window.authorize(role, what, action, do) and done else None

    def fund_name(self, fund_id: str) -> str:
        return next((f.name for f in self.funds if f.fund_id == fund_id), fund_id)

    def ceased_refusal(self, what: str) -> str:
        """The message for a step on the chosen fund once it has ceased ("" while open)."""
        info = next((f for f in self.funds if f.fund_id == self.fund), None)
        if info is None or not info.ceased:
            return ""
        return f"Fund {info.name} has ceased (TGD-1540): {what}."

    def once_hit_notice(self, fund_id: str | None = None) -> bf.Notice | None:
        """The cease-once-hit notice that holds on the chosen fund (or ``fund_id``), if any."""
        st = self.status
        if st is None or st.notice is None or st.notice.kind != "cease_once_hit" or (
                fund_id is not None and fund_id != self.fund):
            return None
        return st.notice

    def status_text(self, st: bf.FundStatus) -> tuple[str, str]:
        """The fund's status in words and its colour: how it ceased, or the notice that
        holds ("" while neither)."""
        if st.ceased_kind == "forfeiture" and st.ceased_at is not None:
            on = st.ceased_at.astimezone(self.tz).date()
            return f"FORFEITED TO PAGCOR ON {on}", theme.ALERT
        if st.ceased_kind is not None:
            return "CEASED (TGD-1540)", theme.ALERT
        n = st.notice
        if n is None:
            return "", theme.ALERT
        if n.kind == "cease_once_hit":
            return f"ceases once hit (notice of {n.notice_on})", theme.WARN
        if n.kind == "transfer":
            to = self.fund_name(n.to_fund_id or "")
            return (f"transfer to {to} on {n.effective_on} (notice of {n.notice_on})",
                    theme.WARN)
        when = f" on {n.effective_on}" if n.effective_on else ""
        return f"room closes{when} (notice of {n.notice_on})", theme.WARN

    def local(self, edit: QDateTimeEdit) -> datetime:
        """A casino-local date-time field as UTC (a :class:`NowField` nobody set: now)."""
        if isinstance(edit, NowField):
            edit.catch_up()
        local = cast(datetime, edit.dateTime().toPython())
        return local.replace(tzinfo=self.tz).astimezone(UTC)

    def local_now(self) -> datetime:
        """Now (``now``, the room's clock) in casino local time, naive, to the minute (a
        field's first value)."""
        return self.now().astimezone(self.tz).replace(tzinfo=None, second=0, microsecond=0)

    def gaming_day(self) -> date:
        """The casino's gaming day now (``[casino] gaming_day_starts`` local time begins it)."""
        return self.room.gaming_day_of(self.now())


class NowField(QDateTimeEdit):
    """A casino-local date-time field (to the minute) that shows the present time until a
    person sets it: a claim's "Hit at" or a count's "Closed" never defaults to when the console
    started (issue 26).  It catches up when shown, every FOLLOW_MS while nobody edits it, and
    when it is read (:meth:`RoomContext.local`); :meth:`to_now` makes it follow again (a new
    claim)."""

    FOLLOW_MS = 15_000

    def __init__(self, now: Callable[[], datetime]) -> None:
        super().__init__(qdatetime(now()))
        self._now = now
        self.follows = True
        self._setting = False
        self.setDisplayFormat("yyyy-MM-dd HH:mm")  # casino local time
        self.dateTimeChanged.connect(self._changed)
        self._timer = QTimer(self)
        self._timer.timeout.connect(lambda: None if self.hasFocus() else self.catch_up())
        self._timer.start(self.FOLLOW_MS)

    def _changed(self, _value: QDateTime) -> None:
        if not self._setting:  # a person (or a script) set it: it stays as set
            self.follows = False

    def catch_up(self) -> None:
        """Show now, unless a person set the field."""
        if not self.follows:
            return
        self._setting = True
        try:
            self.setDateTime(qdatetime(self._now()))
        finally:
            self._setting = False

    def to_now(self) -> None:
        """Follow the present time again."""
        self.follows = True
        self.catch_up()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.catch_up()
        super().showEvent(event)


def show(label: QLabel, text: str, ok: bool) -> None:
    """A step's outcome under it: green when done, red when refused."""
    label.setText(text)
    label.setStyleSheet(f"color: {theme.OK if ok else theme.ALERT};")


def seats_text(seats: tuple[int, ...]) -> str:
    """``seat 4``, ``seats 1 and 2``, ``seats 1, 2 and 3``."""
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def tie_lines(d: Decision) -> list[str]:
    """The tie of a place in words (RULES.md 6.6, [poker_room] tie = split)."""
    out = []
    for place, seats, tie in (("winning", d.winning_seats, d.winning_tie),
                              ("losing", d.losing_seats, d.losing_tie)):
        if len(tie) < 2:
            continue
        line = f"TIE for the {place} hand: {seats_text(tie)}."
        if len(seats) > 1:
            line += (f" The {place} share is split equally ({seats_text(seats)}), each "
                     "rounded down.")
        out_of = [s for s in tie if s not in seats]
        if out_of:
            line += (f" {seats_text(tuple(out_of)).capitalize()}: its own hand fails the "
                     "rules, so it takes a table share.")
        out.append(line)
    return out


def shares_text(decision: dict[str, Any], money: Currency) -> str:
    """A case's shares as decided (CLI.md JSON), a tied place named: empty when none."""
    shares = decision.get("shares", [])
    if not shares:
        return ""
    ties = []
    for place in ("winning", "losing"):
        seats = tuple(int(s["seat"]) for s in shares if s["role"] == place)
        if len(seats) > 1:
            ties.append(f"tie for the {place} hand, split: {seats_text(seats)}")
    each = "; ".join(f"seat {s['seat']} {s['role']} {money.text(parse_cents(s['gross']))}"
                     for s in shares)
    return "\nShares: " + each + "".join(f" ({t})" for t in ties)


def qdatetime(local: datetime) -> QDateTime:
    """A naive casino-local time for a date-time field (to the minute)."""
    return QDateTime(QDate(local.year, local.month, local.day), QTime(local.hour, local.minute))


def day_edit(day: date) -> QDateEdit:
    """A date field with its calendar pop-up."""
    edit = QDateEdit(QDate(day.year, day.month, day.day))
    edit.setDisplayFormat("yyyy-MM-dd")
    edit.setCalendarPopup(True)
    return edit


def day_of(edit: QDateEdit) -> date:
    return cast(date, edit.date().toPython())


def scrolled(w: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(w)
    return area
