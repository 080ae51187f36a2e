"""A win slip's record: everything the paper says about a paid hit, checked when it is made.

The floor builds a :class:`WinSlip` from the ledger (``core.tablegames.slips``); ``printing``
turns it into ESC/POS bytes or a win page through the paper port (``core.tablegames.paper``).
A record that could not be printed is refused here, with the field and the problem named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.kernel.cards import CardError, parse_card
from core.kernel.money import DOLLARS, Currency
from core.people.who import Who


class SlipError(ValueError):
    """A win slip that can not be printed; the message names the field and the problem."""


@dataclass(frozen=True)
class VoidMark:
    """A voided slip's void as paper shows it: when (UTC), by whom, why, and whether the paid
    money came back."""

    at: datetime
    by: Who
    reason: str
    money_returned: bool

    def money_text(self) -> str:
        return ("the paid money came back; the award's meter movements were reversed"
                if self.money_returned else "the paid money did not come back")


@dataclass(frozen=True)
class WinSlip:
    """Everything the win slip shows; built by the floor from the ledger record of a paid hit."""

    casino: str
    slip_no: int
    hit_ref: str
    table: str
    seat: int
    round_no: int
    paytable: str
    hand: str
    hand_id: str
    cards: tuple[str, ...]
    amount_cents: int
    source: Literal["meter", "tray"]
    level: str | None
    meter_before_cents: int | None
    meter_after_cents: int | None
    authorized_by: Who  # the employee who signs for the pay (from the card swipe)
    verified_by: Who | None
    paid_at: datetime
    timezone: str
    reprint: bool = False
    currency: Currency = DOLLARS  # the floor's currency and the casino's locale
    notes: tuple[str, ...] = field(default=())
    void: VoidMark | None = None  # set on a voided slip read back from the ledger

    def __post_init__(self) -> None:
        # Accept lists from callers (cards=[...]) but keep the record immutable.
        object.__setattr__(self, "cards", tuple(self.cards))
        object.__setattr__(self, "notes", tuple(self.notes))
        _validate(self)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def local_paid_at(self) -> datetime:
        return self.paid_at.astimezone(self.zone)

    def money(self, cents: int) -> str:
        """An amount as the casino writes it (``$12,345.67``; paper: ``printing``'s
        ``paper_money`` where the printer lacks the sign)."""
        return self.currency.text(cents)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _validate(s: WinSlip) -> None:
    def need_text(name: str, value: object) -> None:
        if not isinstance(value, str) or not value.strip():
            raise SlipError(f"win slip {name}: must be a non-empty text, got {value!r}")

    for name in ("casino", "hit_ref", "table", "paytable", "hand", "hand_id", "timezone"):
        need_text(name, getattr(s, name))
    for name in ("slip_no", "seat", "round_no"):
        v = getattr(s, name)
        if not _is_int(v) or v < (1 if name != "round_no" else 0):
            raise SlipError(f"win slip {name}: must be a positive whole number, got {v!r}")
    # 0.00 only for a meter share that rounds down to nothing (RULES.md 3-4), said in a note
    if not _is_int(s.amount_cents) or s.amount_cents < 0 or \
            (s.amount_cents == 0 and (s.source != "meter" or not s.notes)):
        raise SlipError(f"win slip amount_cents: must be a positive number of cents (0 only "
                        f"for a meter share, with a note), got {s.amount_cents!r}")
    for i, c in enumerate(s.cards):
        if not isinstance(c, str):
            raise SlipError(f"win slip cards[{i}]: {c!r} is not a card")
        try:
            parse_card(c)
        except CardError as e:
            raise SlipError(f"win slip cards[{i}]: {e}") from None
    if s.source not in ("meter", "tray"):
        raise SlipError(f"win slip source: must be 'meter' or 'tray', got {s.source!r}")
    if s.source == "meter":
        if not s.level:
            raise SlipError("win slip level: a meter pay must name its level (e.g. 'MAIN')")
        for name in ("meter_before_cents", "meter_after_cents"):
            v = getattr(s, name)
            if not _is_int(v) or v < 0:
                raise SlipError(f"win slip {name}: a meter pay needs the meter in cents "
                                f"(0 or more), got {v!r}")
    else:
        for name in ("meter_before_cents", "meter_after_cents"):
            if getattr(s, name) is not None:
                raise SlipError(f"win slip {name}: must be empty for a tray pay")
    for name in ("authorized_by", "verified_by"):
        v = getattr(s, name)
        if v is None and name == "verified_by":
            continue
        if not isinstance(v, Who):
            raise SlipError(f"win slip {name}: must be a Who(number, name, role)")
        for part in ("number", "name", "role"):
            need_text(f"{name}.{part}", getattr(v, part))
    if not isinstance(s.paid_at, datetime) or s.paid_at.utcoffset() is None:
        raise SlipError(f"win slip paid_at: must be a timezone-aware time (UTC), "
                        f"got {s.paid_at!r}")
    try:
        ZoneInfo(s.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise SlipError(f"win slip timezone: unknown time zone {s.timezone!r} "
                        f"(use an IANA name such as 'America/Los_Angeles')") from None
    if s.void is not None:
        if not isinstance(s.void, VoidMark) or not isinstance(s.void.at, datetime) or \
                s.void.at.utcoffset() is None:
            raise SlipError("win slip void: must be a VoidMark with a timezone-aware time")
        if not isinstance(s.void.by, Who):
            raise SlipError("win slip void.by: must be a Who(number, name, role)")
        need_text("void.by.name", s.void.by.name)
        need_text("void.reason", s.void.reason)
