"""What the poker room's regulatory calendar leaves to the operator (``[poker_room]`` in the
floor file): settings only, so the floor file reads them without the calendar's workflows
(``core.pokerroom.calendar``, which records filings with a supervisor's swipe).

:class:`QuarterDue` is when a quarterly filing falls due, counted from the quarter's end, in
one of three forms (the text the floor file writes)::

    "2nd Monday of month 1"   the Nth (1st to 4th) weekday of the Mth month after the quarter
    "end of month 1"          the last day of the Mth month after the quarter
    "30 days"                 N days (1 to 366) after the quarter's last day

The fund's bank statement defaults to the guideline's "2nd Monday of month 1" (General
Guidelines B, note: "January to March -- for submission on 2nd Monday of April, and so on").
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

END_OF_NEXT_MONTH = "end_of_next_month"  # the older key bank_statement_days' word
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ORDINALS = {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_FORMS = ('"2nd Monday of month 1" (the Nth weekday, 1st to 4th, of the Mth month after '
          'the quarter, 1 to 3), "end of month 1" or "30 days" (1 to 366 after the quarter\'s '
          "end)")


@dataclass(frozen=True)
class QuarterDue:
    """When a quarterly filing is due: ``kind`` ``"weekday"`` (the ``nth`` ``weekday``, 0 =
    Monday, of the ``month``-th month after the quarter), ``"month_end"`` (the last day of that
    month) or ``"days"`` (``days`` after the quarter's last day)."""

    kind: str = "weekday"
    nth: int = 2
    weekday: int = 0
    month: int = 1
    days: int = 0

    def __post_init__(self) -> None:
        ok = {"weekday": 1 <= self.nth <= 4 and 0 <= self.weekday <= 6
              and 1 <= self.month <= 3,
              "month_end": 1 <= self.month <= 3,
              "days": 1 <= self.days <= 366}
        if not ok.get(self.kind, False):
            raise ValueError(f"{self.text!r}: a quarterly due day is {_FORMS}")

    @property
    def text(self) -> str:
        """The form the floor file writes: ``2nd Monday of month 1``."""
        if self.kind == "weekday":
            nth = {v: k for k, v in _ORDINALS.items()}.get(self.nth, str(self.nth))
            day = WEEKDAYS[self.weekday] if 0 <= self.weekday <= 6 else str(self.weekday)
            return f"{nth} {day} of month {self.month}"
        if self.kind == "month_end":
            return f"end of month {self.month}"
        return f"{self.days} days"

    def due(self, quarter_end: date) -> date:
        """The due day for the quarter ending ``quarter_end``."""
        if self.kind == "days":
            return quarter_end + timedelta(days=self.days)
        index = quarter_end.year * 12 + quarter_end.month - 1 + self.month
        year, month = divmod(index, 12)
        month += 1
        if self.kind == "month_end":
            return date(year, month, calendar.monthrange(year, month)[1])
        first = date(year, month, 1)
        return first + timedelta(days=(self.weekday - first.weekday()) % 7
                                 + 7 * (self.nth - 1))

    @classmethod
    def parse(cls, text: str) -> QuarterDue:
        """The floor file's text (module docstring); ValueError naming the forms."""
        words = " ".join(str(text).split())
        m = re.fullmatch(r"(1st|2nd|3rd|4th) (\w+) of month (\d)", words, re.IGNORECASE)
        if m and m.group(2).capitalize() in WEEKDAYS:
            return cls("weekday", nth=_ORDINALS[m.group(1).lower()],
                       weekday=WEEKDAYS.index(m.group(2).capitalize()),
                       month=int(m.group(3)))
        m = re.fullmatch(r"end of month (\d)", words, re.IGNORECASE)
        if m:
            return cls("month_end", month=int(m.group(1)))
        m = re.fullmatch(r"(\d{1,3}) days?", words, re.IGNORECASE)
        if m:
            return cls("days", days=int(m.group(1)))
        raise ValueError(f"{str(text)[:60]!r}: a quarterly due day is {_FORMS}")


BANK_STATEMENT_DUE = QuarterDue()  # "2nd Monday of month 1": the guideline's example


@dataclass(frozen=True)
class CalendarSettings:
    """What the guidelines leave to the operator (``[poker_room]`` in the floor file):
    ``bir_remittance_day`` (1 to 28, default 10: the guideline IV.H "on or before the tenth
    (10th) day of the following month", also BIR Form 0619-F's due day) and
    ``bank_statement_due`` (:class:`QuarterDue`, default the 2nd Monday of the month after the
    quarter)."""

    bir_remittance_day: int = 10
    bank_statement_due: QuarterDue = field(default=BANK_STATEMENT_DUE)

    def __post_init__(self) -> None:
        d = self.bir_remittance_day
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 28:
            raise ValueError(f"bir_remittance_day: {d!r} must be a day of the month from 1 to "
                             "28")
        if not isinstance(self.bank_statement_due, QuarterDue):
            raise ValueError(f"bank_statement_due: {self.bank_statement_due!r} is not a "
                             "QuarterDue")
