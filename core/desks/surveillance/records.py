"""What surveillance hands out (data first; :mod:`core.desks.surveillance.text` writes their
words): a timeline's row (:class:`Event`), the claim beside the cards (:class:`CardsCheck`), a
hit as the list shows it (:class:`HitLine`), one hit's :class:`Timeline`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.desks.surveillance.flags import Flag
from core.desks.surveillance.text import iso_ms, ms_text
from core.kernel.money import json_cents
from core.people.who import Who


@dataclass(frozen=True)
class Event:
    """One row of a timeline."""

    at: datetime  # in the casino's time zone
    source: str  # controller, refused frame, swipe, decision, award, meter, adjustment, slip,
    # print, void
    what: str
    who: Who | None
    detail: str
    amount_cents: int | None = None
    ref: str = ""  # the ledger row ("controller_events 12", "swipe_log 7", ...)
    flag: str = ""  # the flag code this row is evidence of ("" none)
    order: tuple[int, int] = (0, 0)  # (rank, row id) among rows of the same time

    @property
    def time_text(self) -> str:
        return ms_text(self.at)

    def as_json(self) -> dict[str, Any]:
        return {"at": iso_ms(self.at), "source": self.source, "what": self.what,
                "who": self.who.to_json() if self.who else None, "detail": self.detail,
                "amount": json_cents(self.amount_cents) if self.amount_cents is not None
                else None, "ref": self.ref, "flag": self.flag or None}


@dataclass(frozen=True)
class CardsCheck:
    """The claim beside what the cards make, re-evaluated by the rules core (the paytable's
    best listed pay, else the best Fortune hand)."""

    claimed: str
    table_cards: tuple[str, ...]  # as the table sent them (empty: none)
    table_makes: str | None  # the pay they earn, else their best hand (None: no cards)
    verified_cards: tuple[str, ...]  # as the supervisor verified them (empty: none)
    verified_makes: str | None
    paid_hand: str | None
    note: str = ""  # why a set of cards could not be evaluated
    table_best: str | None = None  # the best Fortune hand of the table's cards
    verified_best: str | None = None

    @property
    def judged(self) -> tuple[str | None, str | None]:
        """(what the cards make, their best hand): the verified cards', else the table's."""
        if self.verified_cards:
            return self.verified_makes, self.verified_best
        return self.table_makes, self.table_best

    @property
    def mismatch(self) -> bool:
        """The floor's rule (core/tablegames/pay/assess.py): a claim is right when it names the
        hand the cards are paid as, or their best hand."""
        made, best = self.judged
        return made is not None and self.claimed not in (made, best)

    @property
    def cards_changed(self) -> bool:
        return bool(self.table_cards and self.verified_cards
                    and sorted(self.table_cards) != sorted(self.verified_cards))

    def as_json(self) -> dict[str, Any]:
        return {"claimed": self.claimed, "table_cards": list(self.table_cards),
                "table_makes": self.table_makes, "verified_cards": list(self.verified_cards),
                "verified_makes": self.verified_makes, "table_best": self.table_best,
                "verified_best": self.verified_best, "paid_hand": self.paid_hand,
                "mismatch": self.mismatch, "cards_changed": self.cards_changed,
                "note": self.note or None}


@dataclass(frozen=True)
class HitLine:
    """A hit as the list of hits to look at shows it."""

    hit_id: int
    at: datetime  # HIT JACKPOT recorded, in the casino's time zone
    table: str
    round_no: int
    seat: int
    status: str
    claimed_hand: str
    hand: str | None  # the hand paid, else what the cards make, else the claim
    amount_cents: int | None
    flags: tuple[Flag, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"hit": self.hit_id, "at": iso_ms(self.at), "table": self.table,
                "round": self.round_no, "seat": self.seat, "status": self.status,
                "claimed_hand": self.claimed_hand, "hand": self.hand,
                "amount": json_cents(self.amount_cents) if self.amount_cents is not None
                else None, "flags": [f.as_json() for f in self.flags]}


@dataclass(frozen=True)
class Timeline:
    line: HitLine
    boot: str
    table_name: str
    wager_cents: int | None
    level: str | None
    source: str | None  # meter | tray (paid)
    slip_nos: tuple[int, ...]
    cards: CardsCheck
    events: tuple[Event, ...]
    timezone: str
    read_at: datetime  # UTC

    @property
    def flags(self) -> tuple[Flag, ...]:
        return self.line.flags

    def as_json(self) -> dict[str, Any]:
        doc = self.line.as_json()
        doc.update({"boot": self.boot, "table_name": self.table_name,
                    "wager": json_cents(self.wager_cents) if self.wager_cents is not None
                    else None, "level": self.level, "source": self.source,
                    "slips": list(self.slip_nos), "timezone": self.timezone,
                    "read_at": self.read_at.isoformat(timespec="milliseconds"),
                    "cards": self.cards.as_json(),
                    "events": [e.as_json() for e in self.events]})
        return doc
