"""What the poker room's regulatory calendar leaves to the operator (``[poker_room]`` in the
floor file): settings only, so the floor file reads them without the calendar's workflows
(``core.pokerroom.calendar``, which records filings with a supervisor's swipe)."""

from __future__ import annotations

from dataclasses import dataclass

END_OF_NEXT_MONTH = "end_of_next_month"


@dataclass(frozen=True)
class CalendarSettings:
    """What the guidelines leave to the operator (``[poker_room]`` in the floor file):
    ``bir_remittance_day`` (1 to 28, default 10) and ``bank_statement_days`` (days after the
    quarter's end, 1 to 366; None, the default: the end of the month after the quarter)."""

    bir_remittance_day: int = 10
    bank_statement_days: int | None = None

    def __post_init__(self) -> None:
        d = self.bir_remittance_day
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 28:
            raise ValueError(f"bir_remittance_day: {d!r} must be a day of the month from 1 to "
                             "28")
        n = self.bank_statement_days
        if n is not None and (isinstance(n, bool) or not isinstance(n, int)
                              or not 1 <= n <= 366):
            raise ValueError(f"bank_statement_days: {n!r} must be a number of days from 1 to "
                             f"366, or \"{END_OF_NEXT_MONTH}\"")
