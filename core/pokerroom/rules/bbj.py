"""The poker room's Bad Beat Jackpot (PAGCOR), RULES.md section 6: qualification and payout.

:func:`decide` takes one :class:`Claim` (the hand as the floor saw it and the jackpot funds)
and returns a :class:`Decision`: whether the claim qualifies, EVERY rule it fails (the reason
codes of CLI.md, in :data:`REASONS` order), the winning and losing hands, and when it qualifies
the award, every share with its withholding tax, and the funds after the hit.  Pure: no
database, no I/O.  Everything RULES.md leaves to the operator is in :class:`BbjSettings` with
the RULES.md default.

Money is ``int`` centavos (core/kernel/money.py "cents"); the payout fraction is an exact
:class:`~fractions.Fraction` (table jackpot rake cap / room maximum).

Qualification (RULES.md 6, "Qualification"):

* the two highest hands at showdown are considered: the highest is the WINNING hand, the
  second the LOSING (bad beat) hand; fewer than two hands shown is ``NO_SHOWDOWN``;
* the winning hand is four of a kind or better (``WINNING_HAND_TOO_LOW``); the losing hand is
  Aces full of Tens or better (``LOSING_HAND_TOO_LOW``);
* both hole cards of each of the two players play (``WINNING_/LOSING_HOLE_CARDS_DO_NOT_PLAY``):
  a hole card plays when the best of all seven cards is strictly better than the best of the
  other six (core.pokerroom.rules.holdem.hole_cards_play); the kicker rule falls out of that;
* Aces full (of Tens or better) needs an Ace in the hole (``NO_ACE_IN_HOLE``);
* at least ``min_players`` dealt in (``NOT_ENOUGH_PLAYERS``); the pot at least
  ``min_pot_big_blinds`` big blinds (``POT_TOO_SMALL``); no void observed (``VOIDED``).

Ties (RULES.md 6 point 6: room policy, :attr:`BbjSettings.tie`): the seats whose hands
have the highest value are the WINNING place, the seats with the next value below it the
LOSING place.  A tied seat whose own hand fails the per-hand rules (both hole cards play, an Ace
in the hole) is not part of its place: it is an "other player dealt in" and takes the table
share; when no tied seat passes them, the place fails with the lowest tied seat's reasons.
``split`` (default): the place's share (award x its part, rounded down) is divided equally
among its seats, each rounded down, the centavos left stay in main.  ``refuse``: a claim that
would qualify with a tie (two or more hands of the place's value) is a :class:`BbjError`
naming the tied seats and the place (the room manager decides).  A tie for the winning place
can never qualify (two players can not both hold the same four of a kind or straight flush
with both hole cards playing), but it is handled the same way.  The Decision's
``winning_seat``/``losing_seat`` are the lowest seat of each place; ``winning_seats`` /
``losing_seats`` every seat of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from core.kernel.cards import Card
from core.kernel.money import json_cents, tax_cents
from core.pokerroom.rules.holdem import (
    ACES_FULL_OF_TENS_VALUE,
    LOWEST_FOUR_OF_A_KIND_VALUE,
    HoldemError,
    HoldemHand,
    check_cards,
    evaluate,
    hole_cards_play,
    is_aces_full,
)

REASONS: tuple[str, ...] = (
    "NOT_ENOUGH_PLAYERS", "POT_TOO_SMALL", "NO_SHOWDOWN", "WINNING_HAND_TOO_LOW",
    "LOSING_HAND_TOO_LOW", "WINNING_HOLE_CARDS_DO_NOT_PLAY", "LOSING_HOLE_CARDS_DO_NOT_PLAY",
    "NO_ACE_IN_HOLE", "VOIDED",
)
TAXPAYER_CLASSES: tuple[str, ...] = ("citizen", "nraetb", "nranetb")
VOID_REASONS: tuple[str, ...] = (
    "hand_discussed", "one_player_to_a_hand", "fouled_deck", "switched_cards",
    "unverifiable_hand",
)
ROLES: tuple[str, ...] = ("winning", "losing", "table")
TIE_POLICIES: tuple[str, ...] = ("split", "refuse")  # RULES.md 6 point 6, [poker_room] tie
ACE = 14


class BbjError(ValueError):
    """A claim the rules can not decide as given; the message names the field and the problem."""


def _fraction_text(value: Decimal) -> str:
    return format(value.normalize(), "f")


@dataclass(frozen=True)
class Split:
    """Shares of the award (RULES.md 6 "Payout", the TGD-1500 form): they add up to 1."""

    winning: Decimal = Decimal("0.20")
    losing: Decimal = Decimal("0.40")
    table: Decimal = Decimal("0.40")

    def __post_init__(self) -> None:
        for name in ROLES:
            rate: Decimal = getattr(self, name)
            if not isinstance(rate, Decimal) or not 0 <= rate <= 1:
                raise BbjError(f"split.{name}: {rate!r} must be a fraction between 0 and 1")
        total = self.winning + self.losing + self.table
        if total != 1:
            raise BbjError(f"split: winning + losing + table must add up to 1, not "
                           f"{_fraction_text(total)}")


@dataclass(frozen=True)
class BbjSettings:
    """What RULES.md section 6 leaves to the operator, with the RULES.md defaults."""

    split: Split = field(default_factory=Split)
    min_players: int = 5  # dealt in
    min_pot_big_blinds: int = 20  # the pot (house and jackpot rake included) >= this x big blind
    tax_threshold_cents: int = 1_000_000  # 10,000.00: citizens and NRAETB pay tax ABOVE it
    resident_tax_rate: Decimal = Decimal("0.20")  # citizen, nraetb: of the WHOLE share
    nranetb_tax_rate: Decimal = Decimal("0.25")  # regardless of amount
    tie: str = "split"  # two hands of equal value for a place: split | refuse

    def __post_init__(self) -> None:
        if self.tie not in TIE_POLICIES:
            raise BbjError(f"tie: {self.tie!r} is not a tie policy (use "
                           f"{' or '.join(TIE_POLICIES)})")
        if self.min_players < 2:
            raise BbjError(f"min_players: {self.min_players} is fewer than the two hands "
                           "a bad beat needs")
        if self.min_pot_big_blinds < 0 or self.tax_threshold_cents < 0:
            raise BbjError("min_pot_big_blinds and tax_threshold_cents can not be negative")
        for name in ("resident_tax_rate", "nranetb_tax_rate"):
            rate: Decimal = getattr(self, name)
            if not 0 <= rate <= 1:
                raise BbjError(f"{name}: {rate} must be between 0 and 1")

    def tax_rate(self, taxpayer: str, gross_cents: int) -> Decimal:
        if taxpayer == "nranetb":
            return self.nranetb_tax_rate
        if taxpayer in ("citizen", "nraetb"):
            return self.resident_tax_rate if gross_cents > self.tax_threshold_cents \
                else Decimal(0)
        raise BbjError(f"taxpayer class {taxpayer!r} is unknown (use "
                       f"{', '.join(TAXPAYER_CLASSES)})")


@dataclass(frozen=True)
class ShownHand:
    """A hand shown down: the seat and its two hole cards."""

    seat: int
    hole: tuple[Card, Card]


@dataclass(frozen=True)
class Claim:
    """One Bad Beat Jackpot claim, checked when built (field names as in CLI.md)."""

    big_blind_cents: int
    pot_cents: int
    dealt_in: tuple[int, ...]
    board: tuple[Card, ...]
    showdown: tuple[ShownHand, ...]
    table_jackpot_rake_cap_cents: int
    room_max_jackpot_rake_cents: int
    main_jackpot_cents: int
    reserve_jackpot_cents: int
    taxpayers: Mapping[int, str] = field(default_factory=dict)  # unlisted seats: citizen
    voids: tuple[str, ...] = ()
    # seats dealt in but NOT seated at the beginning of the hand: no table share (the guideline
    # III.I: "A player must be dealt in and seated at the beginning of the hand to qualify to
    # the table share")
    not_seated: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        self._check_money()
        seats: set[int] = set()
        for seat in self.dealt_in:
            _check_seat(seat, "dealt_in")
            if seat in seats:
                raise BbjError(f"dealt_in: seat {seat} is listed twice")
            seats.add(seat)
        try:
            check_cards(self.board, minimum=5, maximum=5, what="board")
        except HoldemError as exc:
            raise BbjError(str(exc)) from None
        where_card: dict[Card, str] = {c: "on the board" for c in self.board}
        shown: set[int] = set()
        for hand in self.showdown:
            _check_seat(hand.seat, "showdown")
            where = f"showdown seat {hand.seat} hole"
            if hand.seat in shown:
                raise BbjError(f"showdown: seat {hand.seat} is shown twice")
            if hand.seat not in seats:
                raise BbjError(f"showdown: seat {hand.seat} was not dealt in (dealt_in: "
                               f"{', '.join(str(s) for s in self.dealt_in) or 'none'})")
            shown.add(hand.seat)
            try:
                check_cards(hand.hole, minimum=2, maximum=2, what=where)
            except HoldemError as exc:
                raise BbjError(str(exc)) from None
            for c in hand.hole:
                if c in where_card:
                    raise BbjError(f"{where}: card {c} is also {where_card[c]}")
                where_card[c] = f"in seat {hand.seat}'s hole cards"
        for seat, taxpayer in self.taxpayers.items():
            _check_seat(seat, "taxpayers")
            if seat not in seats:
                raise BbjError(f"taxpayers: seat {seat} was not dealt in")
            if taxpayer not in TAXPAYER_CLASSES:
                raise BbjError(f"taxpayers: seat {seat}: unknown taxpayer class {taxpayer!r} "
                               f"(use {', '.join(TAXPAYER_CLASSES)})")
        for seat in self.not_seated:
            _check_seat(seat, "not_seated")
            if seat not in seats:
                raise BbjError(f"not_seated: seat {seat} was not dealt in")
            if seat in shown:
                raise BbjError(f"not_seated: seat {seat} is shown down; a hand in the "
                               "showdown was seated")
        if len(set(self.not_seated)) != len(self.not_seated):
            raise BbjError("not_seated: a seat is listed twice")
        for void in self.voids:
            if void not in VOID_REASONS:
                raise BbjError(f"voids: unknown void reason {void!r} (use "
                               f"{', '.join(VOID_REASONS)})")

    def _check_money(self) -> None:
        for name in ("big_blind", "pot", "table_jackpot_rake_cap", "room_max_jackpot_rake",
                     "main_jackpot", "reserve_jackpot"):
            cents = getattr(self, f"{name}_cents")
            if isinstance(cents, bool) or not isinstance(cents, int):
                raise BbjError(f"{name}: {cents!r} must be an amount in centavos")
            if cents < 0:
                raise BbjError(f"{name}: {json_cents(cents)} is negative")
        for name in ("big_blind", "room_max_jackpot_rake", "table_jackpot_rake_cap"):
            if getattr(self, f"{name}_cents") == 0:
                raise BbjError(f"{name}: must be more than 0.00")
        if self.table_jackpot_rake_cap_cents > self.room_max_jackpot_rake_cents:
            raise BbjError(f"table_jackpot_rake_cap: "
                           f"{json_cents(self.table_jackpot_rake_cap_cents)} is above the "
                           f"room maximum {json_cents(self.room_max_jackpot_rake_cents)}")

    def taxpayer(self, seat: int) -> str:
        return self.taxpayers.get(seat, "citizen")

    @property
    def payout_fraction(self) -> Fraction:
        """The table's share of the main jackpot: its jackpot rake cap / the room maximum."""
        return Fraction(self.table_jackpot_rake_cap_cents, self.room_max_jackpot_rake_cents)


def _check_seat(seat: object, where: str) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 1:
        raise BbjError(f"{where}: seat {seat!r} is not a seat number (1 or more)")


@dataclass(frozen=True)
class Share:
    seat: int
    role: str  # winning | losing | table
    taxpayer: str
    gross_cents: int
    tax_cents: int

    @property
    def net_cents(self) -> int:
        return self.gross_cents - self.tax_cents


@dataclass(frozen=True)
class Decision:
    qualifies: bool
    reasons: tuple[str, ...]  # every failed rule, in REASONS order; empty when it qualifies
    winning_seat: int | None
    winning_hand: HoldemHand | None
    losing_seat: int | None
    losing_hand: HoldemHand | None
    payout_fraction: Fraction  # 0 when it does not qualify
    award_cents: int  # main x fraction, rounded down; 0 when it does not qualify
    shares: tuple[Share, ...]  # winning, losing, then the table share in seat order
    main_after_cents: int
    reserve_after_cents: int
    # every seat of the winning / losing place (more than one: a tie split); the lowest is
    # winning_seat / losing_seat.  A tied seat that fails its own hand's rules is not in it.
    winning_seats: tuple[int, ...] = ()
    losing_seats: tuple[int, ...] = ()
    # every seat whose hand has the place's value (the tie as shown down, failing seats too)
    winning_tie: tuple[int, ...] = ()
    losing_tie: tuple[int, ...] = ()

    @property
    def paid_cents(self) -> int:
        return sum(s.gross_cents for s in self.shares)

    @property
    def left_in_main_cents(self) -> int:
        """The centavos of the award that no share took (they stay in the main jackpot)."""
        return self.award_cents - self.paid_cents


def _ranked(claim: Claim) -> list[tuple[int, HoldemHand, tuple[Card, Card]]]:
    hands = [(h.seat, evaluate([*claim.board, *h.hole]), h.hole) for h in claim.showdown]
    hands.sort(key=lambda t: (-t[1].value, t[0]))
    return hands


def _hand_reasons(role: str, hand: HoldemHand, board: Sequence[Card],
                  hole: tuple[Card, Card]) -> set[str]:
    reasons: set[str] = set()
    minimum = LOWEST_FOUR_OF_A_KIND_VALUE if role == "WINNING" else ACES_FULL_OF_TENS_VALUE
    if hand.value < minimum:
        reasons.add(f"{role}_HAND_TOO_LOW")
    if not all(hole_cards_play(board, hole)):
        reasons.add(f"{role}_HOLE_CARDS_DO_NOT_PLAY")
    if is_aces_full(hand) and hand.value >= ACES_FULL_OF_TENS_VALUE \
            and not any(c.rank == ACE for c in hole):
        reasons.add("NO_ACE_IN_HOLE")
    return reasons


Ranked = tuple[int, HoldemHand, tuple[Card, Card]]


@dataclass(frozen=True)
class _Place:
    """The winning or the losing place at showdown: the hands of one value."""

    tied: tuple[int, ...]  # every seat with the place's value, in seat order
    seats: tuple[int, ...]  # those whose hand passes its own rules (else every tied seat)
    hand: HoldemHand
    reasons: frozenset[str]  # empty when a seat passes; else the lowest tied seat's


def _place(role: str, group: Sequence[Ranked], board: Sequence[Card]) -> _Place:
    per_seat = [(seat, _hand_reasons(role, hand, board, hole)) for seat, hand, hole in group]
    tied = tuple(seat for seat, _ in per_seat)
    passing = tuple(seat for seat, r in per_seat if not r)
    if passing:
        return _Place(tied, passing, group[0][1], frozenset())
    return _Place(tied, tied, group[0][1], frozenset(per_seat[0][1]))


def _seats_text(seats: Sequence[int]) -> str:
    names = [str(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def decide(claim: Claim, settings: BbjSettings | None = None) -> Decision:
    """Decide a claim under every rule of RULES.md section 6 and compute the payout.  With
    the ``refuse`` tie policy a claim that would qualify with a tie raises :class:`BbjError`."""
    s = settings if settings is not None else BbjSettings()
    reasons: set[str] = set()
    if len(claim.dealt_in) < s.min_players:
        reasons.add("NOT_ENOUGH_PLAYERS")
    if claim.pot_cents < s.min_pot_big_blinds * claim.big_blind_cents:
        reasons.add("POT_TOO_SMALL")
    if claim.voids:
        reasons.add("VOIDED")

    ranked = _ranked(claim)
    winning = lost = None
    if ranked:
        top = ranked[0][1].value
        winning = _place("WINNING", [t for t in ranked if t[1].value == top], claim.board)
        below = [t for t in ranked if t[1].value < top]
        if below:
            second = below[0][1].value
            lost = _place("LOSING", [t for t in below if t[1].value == second], claim.board)
    if len(ranked) < 2:
        reasons.add("NO_SHOWDOWN")
    for place in (winning, lost):
        if place is not None:
            reasons |= place.reasons
    if lost is None and not reasons:  # every hand shown ties for the pot: no bad beat (a
        reasons.add("NO_SHOWDOWN")    # tied winning place never passes its rules anyway)

    ordered = tuple(r for r in REASONS if r in reasons)
    seats = {
        "winning_seats": winning.seats if winning else (),
        "losing_seats": lost.seats if lost else (),
        "winning_tie": winning.tied if winning else (),
        "losing_tie": lost.tied if lost else (),
    }
    win_seat = winning.seats[0] if winning else None
    win_hand = winning.hand if winning else None
    lose_seat = lost.seats[0] if lost else None
    lose_hand = lost.hand if lost else None
    if ordered or winning is None or lost is None:
        return Decision(False, ordered, win_seat, win_hand, lose_seat, lose_hand, Fraction(0),
                        0, (), claim.main_jackpot_cents, claim.reserve_jackpot_cents, **seats)
    if s.tie == "refuse":
        for name, place in (("winning", winning), ("losing", lost)):
            if len(place.tied) > 1:
                raise BbjError(f"showdown: seats {_seats_text(place.tied)} tie for the {name} "
                               f"hand ({place.hand.category}); the room's tie policy is "
                               "refuse: the room manager decides ([poker_room] tie)")

    fraction = claim.payout_fraction
    award = claim.main_jackpot_cents * fraction.numerator // fraction.denominator
    shares = _shares(claim, s, award, winning.seats, lost.seats)
    paid = sum(x.gross_cents for x in shares)
    moved = claim.reserve_jackpot_cents * fraction.numerator // fraction.denominator
    return Decision(True, (), win_seat, win_hand, lose_seat, lose_hand, fraction, award, shares,
                    claim.main_jackpot_cents - paid + moved,
                    claim.reserve_jackpot_cents - moved, **seats)


def _floor_share(award_cents: int, rate: Decimal, people: int = 1) -> int:
    num, den = rate.as_integer_ratio()
    return award_cents * num // (den * people)


def _shares(claim: Claim, s: BbjSettings, award: int, winning_seats: tuple[int, ...],
            losing_seats: tuple[int, ...]) -> tuple[Share, ...]:
    """Each place's share (award x its part, rounded down) divided equally among its seats,
    each rounded down; the table part among every other seat dealt in AND seated at the
    beginning of the hand (not in ``claim.not_seated``), each rounded down."""
    placed = set(winning_seats) | set(losing_seats) | set(claim.not_seated)
    others = sorted(seat for seat in claim.dealt_in if seat not in placed)
    gross: list[tuple[int, str, int]] = []
    for role, seats, rate in (("winning", winning_seats, s.split.winning),
                              ("losing", losing_seats, s.split.losing)):
        each = _floor_share(award, rate) // len(seats)
        gross += [(seat, role, each) for seat in sorted(seats)]
    if others:
        each = _floor_share(award, s.split.table, len(others))
        gross += [(seat, "table", each) for seat in others]
    out: list[Share] = []
    for seat, role, cents in gross:
        taxpayer = claim.taxpayer(seat)
        out.append(Share(seat, role, taxpayer, cents,
                         tax_cents(cents, s.tax_rate(taxpayer, cents))))
    return tuple(out)


# --- the decision as JSON: `podium rules bbj --json` (CLI.md) and a case's record ---------

FRACTION_DECIMALS = 6


def fraction_text(value: Fraction) -> str:
    """``"1.00"``, ``"0.25"``, ``"0.3333"``: exact when it has at most six decimals (at least
    two shown), otherwise rounded half up to six."""
    scale = 10**FRACTION_DECIMALS
    scaled = (value.numerator * scale * 2 + value.denominator) // (2 * value.denominator)
    whole, frac = divmod(scaled, scale)
    digits = f"{frac:0{FRACTION_DECIMALS}d}".rstrip("0").ljust(2, "0")
    return f"{whole}.{digits}"


def decision_json(d: Decision) -> dict[str, Any]:
    """CLI.md's output, key for key.  A tie adds no key: ``winning_seat`` / ``losing_seat`` are
    the lowest seat of each place, and the shares name every seat of it by its role."""
    return {
        "qualifies": d.qualifies,
        "reasons": list(d.reasons),
        "winning_seat": d.winning_seat,
        "winning_hand": d.winning_hand.category if d.winning_hand else None,
        "losing_seat": d.losing_seat,
        "losing_hand": d.losing_hand.category if d.losing_hand else None,
        "payout_fraction": fraction_text(d.payout_fraction),
        "award": json_cents(d.award_cents),
        "shares": [{"seat": s.seat, "role": s.role, "gross": json_cents(s.gross_cents),
                    "tax": json_cents(s.tax_cents), "net": json_cents(s.net_cents)}
                   for s in d.shares],
        "main_after": json_cents(d.main_after_cents),
        "reserve_after": json_cents(d.reserve_after_cents),
    }
