"""A Bad Beat Jackpot claim as the floor enters it (:class:`ClaimEntry`: table, blinds, pot,
seats dealt in, board, showdown hole cards, names, ID checked per seat, taxpayer classes), stored
with its case and read back (:func:`entry_from_json`), and decided
(:func:`decide_entry`: ``core.pokerroom.rules.bbj.decide`` on the fund's
``core.pokerroom.fund.amount_for_hit`` for the hit time); every rule's result in words
(:func:`rule_results`, :func:`reasons_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Engine

from core.kernel.cards import Card, format_cards, parse_cards
from core.kernel.money import format_cents, json_cents, parse_cents
from core.pokerroom.fund import amount_for_hit
from core.pokerroom.rules.bbj import BbjSettings, Claim, Decision, ShownHand, decide

#: The casino's gaming day of a moment (``core.pokerroom.room.PokerRoom.gaming_day_of``).
DayOf = Callable[[datetime], date]
REASON_TEXT: dict[str, str] = {
    "NOT_ENOUGH_PLAYERS": "fewer than 5 players dealt in",
    "POT_TOO_SMALL": "the pot is under 20 big blinds",
    "NO_SHOWDOWN": "fewer than two hands went to showdown",
    "WINNING_HAND_TOO_LOW": "the winning hand is below four of a kind",
    "LOSING_HAND_TOO_LOW": "the losing hand is below Aces full of Tens",
    "WINNING_HOLE_CARDS_DO_NOT_PLAY": "both winning hole cards do not play",
    "LOSING_HOLE_CARDS_DO_NOT_PLAY": "both losing hole cards do not play",
    "NO_ACE_IN_HOLE": "Aces full without an Ace in the hole",
    "VOIDED": "a void was observed (discussion, one player to a hand, deck, cards, "
              "unverifiable)",
}


class BbjCaseError(ValueError):
    """A case step refused; the message names the case and the problem."""


def gaming_day(day_of: DayOf | None, at: datetime) -> date | None:
    """The gaming day of ``at`` (None: not known, the counts' hours decide)."""
    return day_of(at) if day_of is not None else None


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ClaimEntry:
    """A claim as the floor enters it (money in centavos; seats 1 or more)."""

    table: str
    big_blind_cents: int
    pot_cents: int
    dealt_in: tuple[int, ...]
    board: tuple[Card, ...]
    showdown: tuple[ShownHand, ...]
    table_jackpot_rake_cap_cents: int
    room_max_jackpot_rake_cents: int
    names: Mapping[int, str] = field(default_factory=dict)
    id_checked: frozenset[int] = frozenset()
    taxpayers: Mapping[int, str] = field(default_factory=dict)
    voids: tuple[str, ...] = ()
    small_blind_cents: int | None = None  # for TGD-1500; None: not recorded
    not_seated: tuple[int, ...] = ()  # dealt in, not seated at the start: no table share

    def __post_init__(self) -> None:
        if not isinstance(self.table, str) or not self.table.strip():
            raise BbjCaseError("table: must not be empty")
        sb = self.small_blind_cents
        if sb is not None and (isinstance(sb, bool) or not isinstance(sb, int) or sb <= 0
                               or sb > self.big_blind_cents):
            shown = format_cents(sb) if isinstance(sb, int) else repr(sb)
            raise BbjCaseError(f"small blind {shown}: must be more than 0.00 and at most the "
                               "big blind")
        for seat in (*self.names, *self.id_checked):
            if seat not in self.dealt_in:
                raise BbjCaseError(f"seat {seat}: a name or ID check for a seat not dealt in")

    def claim(self, main_cents: int, reserve_cents: int) -> Claim:
        """The claim for ``core.pokerroom.rules.bbj.decide`` (BbjError on bad cards or amounts)."""
        return Claim(big_blind_cents=self.big_blind_cents, pot_cents=self.pot_cents,
                     dealt_in=self.dealt_in, board=self.board, showdown=self.showdown,
                     table_jackpot_rake_cap_cents=self.table_jackpot_rake_cap_cents,
                     room_max_jackpot_rake_cents=self.room_max_jackpot_rake_cents,
                     main_jackpot_cents=main_cents, reserve_jackpot_cents=reserve_cents,
                     taxpayers=dict(self.taxpayers), voids=self.voids,
                     not_seated=self.not_seated)

    def to_json(self, main_cents: int, reserve_cents: int) -> dict[str, Any]:
        """The claim as stored with the case (the CLI.md case-file keys, plus table, names and
        id_checked)."""
        return {
            "table": self.table.strip(), "big_blind": json_cents(self.big_blind_cents),
            "pot": json_cents(self.pot_cents), "dealt_in": list(self.dealt_in),
            "board": format_cards(self.board),
            "showdown": [{"seat": h.seat, "hole": format_cards(h.hole)} for h in self.showdown],
            "names": {str(k): v for k, v in sorted(self.names.items())},
            "id_checked": sorted(self.id_checked),
            "taxpayers": {str(k): v for k, v in sorted(self.taxpayers.items())},
            "voids": list(self.voids),
            "table_jackpot_rake_cap": json_cents(self.table_jackpot_rake_cap_cents),
            "room_max_jackpot_rake": json_cents(self.room_max_jackpot_rake_cents),
            "main_jackpot": json_cents(main_cents), "reserve_jackpot": json_cents(reserve_cents),
            **({"small_blind": json_cents(self.small_blind_cents)}
               if self.small_blind_cents is not None else {}),
            **({"not_seated": sorted(self.not_seated)} if self.not_seated else {}),
        }


def entry_from_json(data: Mapping[str, Any]) -> ClaimEntry:
    """A stored claim back as a :class:`ClaimEntry` (for display)."""
    return ClaimEntry(
        table=data["table"], big_blind_cents=parse_cents(data["big_blind"]),
        pot_cents=parse_cents(data["pot"]), dealt_in=tuple(data["dealt_in"]),
        board=parse_cards(data["board"], None),
        showdown=tuple(ShownHand(h["seat"], tuple(parse_cards(h["hole"], 2)))  # type: ignore[arg-type]
                       for h in data["showdown"]),
        table_jackpot_rake_cap_cents=parse_cents(data["table_jackpot_rake_cap"]),
        room_max_jackpot_rake_cents=parse_cents(data["room_max_jackpot_rake"]),
        names={int(k): v for k, v in data["names"].items()},
        id_checked=frozenset(data["id_checked"]),
        taxpayers={int(k): v for k, v in data["taxpayers"].items()},
        voids=tuple(data["voids"]),
        small_blind_cents=parse_cents(data["small_blind"]) if "small_blind" in data else None,
        not_seated=tuple(data.get("not_seated", ())))


def decide_entry(engine: Engine, fund_id: str, entry: ClaimEntry, hit_at: datetime,
                 settings: BbjSettings | None = None,
                 day_of: DayOf | None = None) -> tuple[Claim, Decision]:
    """Decide the claim on the fund as it stood for the hit (BbjError, BbjFundError);
    ``day_of``: the casino's gaming day of a moment (the hit's day's posted collections
    count)."""
    f = amount_for_hit(engine, fund_id, hit_at, day=gaming_day(day_of, hit_at))
    claim = entry.claim(f.main_cents, f.reserve_cents)
    return claim, decide(claim, settings)


RULE_PASSED_TEXT: dict[str, str] = {
    "NOT_ENOUGH_PLAYERS": "at least 5 players dealt in",
    "POT_TOO_SMALL": "the pot is at least 20 big blinds",
    "NO_SHOWDOWN": "two hands went to showdown",
    "WINNING_HAND_TOO_LOW": "the winning hand is four of a kind or better",
    "LOSING_HAND_TOO_LOW": "the losing hand is Aces full of Tens or better",
    "WINNING_HOLE_CARDS_DO_NOT_PLAY": "both winning hole cards play",
    "LOSING_HOLE_CARDS_DO_NOT_PLAY": "both losing hole cards play",
    "NO_ACE_IN_HOLE": "an Ace in the hole where Aces full needs one",
    "VOIDED": "no void observed",
}


def rule_results(decision: Decision) -> list[tuple[str, bool, str]]:
    """Every qualification rule of RULES.md 6 in CLI.md order: (code, passed, words)."""
    return [(code, code not in decision.reasons,
             REASON_TEXT[code] if code in decision.reasons else RULE_PASSED_TEXT[code])
            for code in RULE_PASSED_TEXT]


def reasons_text(decision: Decision) -> list[str]:
    """Every failed rule in words (``CODE: words``); empty when the claim qualifies."""
    return [f"{r}: {REASON_TEXT.get(r, r)}" for r in decision.reasons]
