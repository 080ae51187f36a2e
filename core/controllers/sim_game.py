"""A simulated table's game (RULES.md section 5), without its network side: the players'
progressive wagers on random seats (lit sensors only), START GAME, seven real random cards per
seat from a shuffled 53-card deck, HIT JACKPOT for every wagered seat whose cards the paytable
pays, the console's PAY or REJECT of each hit, END GAME; sometimes a dealer mistake, an UNDO or
a MISDEAL.  Deterministic from its seed.

:class:`TableGame` is what the dealer does and what the table knows of its rounds;
:class:`core.controllers.simulator.SimulatedTable` gives it a controller's network side (each
event it makes numbered, sent and held until acknowledged).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from core.controllers.events import (
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Undone,
)
from core.controllers.frames import Command, EventFrame, HitRejected, PayConfirmed, hit_ref
from core.kernel.cards import JOKER, SUITS, Card, CardError, full_deck, parse_cards

log = logging.getLogger("podium.simulator")

CARDS_PER_HAND = 7
BET_PROBABILITY = 0.5  # chance that a player places the progressive wager in a round


class SimulatorError(ValueError):
    """Bad simulator settings; the message names the option and the problem."""


class PayLike(Protocol):
    @property
    def hand(self) -> str: ...


class PaytableLike(Protocol):
    """What the simulator needs of ``core.tablegames.rules.paytables.Paytable``."""

    @property
    def id(self) -> str: ...
    @property
    def wager_cents(self) -> int | None: ...
    @property
    def pays(self) -> Sequence[Any]: ...
    def paying(self, cards: Sequence[Card]) -> Any: ...


@dataclass
class OpenHit:
    ref: str
    round_no: int
    seat: int
    hand: str


# --------------------------------------------------------------------------- dealing

def _rank_run(start: int, length: int) -> list[int]:
    """Ranks start..start+length-1 where 1 means the Ace played low."""
    return [14 if r == 1 else r for r in range(start, start + length)]


def stacked_cards(hand: str, rng: random.Random) -> list[Card]:
    """Up to 7 cards that make ``hand`` (the rest of the 7 is filled at random by the
    caller).  For the ``--jackpot-rate`` demo rounds only: this is NOT a random deal."""
    s, t = rng.sample(SUITS, 2)
    if hand == "SF7_NATURAL":
        return [Card(r, s) for r in _rank_run(rng.randint(1, 8), 7)]
    if hand == "RF_ROYAL_MATCH":
        return [Card(r, s) for r in (14, 13, 12, 11, 10)] + [Card(13, t), Card(12, t)]
    if hand == "SF7_JOKER":
        run = _rank_run(rng.randint(1, 8), 7)
        del run[rng.randrange(7)]
        return [Card(r, s) for r in run] + [JOKER]
    if hand == "FIVE_ACES":
        return [Card(14, x) for x in SUITS] + [JOKER]
    if hand == "ROYAL_FLUSH":
        return [Card(r, s) for r in (14, 13, 12, 11, 10)]
    if hand == "STRAIGHT_FLUSH":
        return [Card(r, s) for r in _rank_run(rng.randint(1, 8), 5)]
    if hand == "FOUR_OF_A_KIND":
        rank = rng.randint(2, 14)
        return [Card(rank, x) for x in SUITS]
    if hand == "FULL_HOUSE":
        r1, r2 = rng.sample(range(2, 15), 2)
        return ([Card(r1, x) for x in rng.sample(SUITS, 3)]
                + [Card(r2, x) for x in rng.sample(SUITS, 2)])
    if hand == "FLUSH":
        return [Card(r, s) for r in rng.sample(range(2, 15), 5)]
    if hand == "THREE_OF_A_KIND":
        rank = rng.randint(2, 14)
        return [Card(rank, x) for x in rng.sample(SUITS, 3)]
    if hand == "STRAIGHT":
        return [Card(r, rng.choice(SUITS)) for r in _rank_run(rng.randint(1, 10), 5)]
    if hand == "THREE_PAIR":
        return [Card(r, x) for r in rng.sample(range(2, 15), 3) for x in rng.sample(SUITS, 2)]
    raise SimulatorError(f"hand {hand!r}: the simulator can not stack it")


def describe(event: ControllerEvent) -> str:
    """One readable line for a log."""
    if isinstance(event, GameStarted):
        seats = ", ".join(f"{s}" for s in sorted(event.wagers)) or "none"
        return f"START GAME round {event.round_no}, wagers on seats {seats}"
    if isinstance(event, HitClaimed):
        return (f"HIT JACKPOT round {event.round_no} seat {event.seat} {event.hand} "
                f"[{' '.join(str(c) for c in event.cards)}]")
    if isinstance(event, GameEnded):
        return f"END GAME round {event.round_no}"
    if isinstance(event, Undone):
        seat = f" seat {event.seat}" if event.seat is not None else ""
        return f"UNDO {event.what} round {event.round_no}{seat}"
    return f"MISDEAL round {event.round_no}"


class TableGame:
    """The game at one simulated table: its rounds, the dealer's buttons and the console's
    decisions applied.  :meth:`_emit` (the network side's) numbers and sends each event."""

    def __init__(self, table_id: str, paytable: PaytableLike, *, seats: int = 6,
                 seed: int | str | None = 0, mistake_rate: float = 0.02,
                 jackpot_rate: float = 0.0, bet_probability: float = BET_PROBABILITY) -> None:
        if not table_id:
            raise SimulatorError("table id: must not be empty")
        if paytable.wager_cents is None:
            raise SimulatorError(f"table {table_id}: paytable {paytable.id} is not a progressive "
                                 "paytable (it has no progressive wager)")
        if not 1 <= seats <= 10:
            raise SimulatorError(f"table {table_id}: seats {seats} must be 1..10 (cards are "
                                 "dealt to seats 1-7)")
        for name, rate in (("mistake rate", mistake_rate), ("jackpot rate", jackpot_rate),
                           ("bet probability", bet_probability)):
            if not 0 <= rate <= 1:
                raise SimulatorError(f"table {table_id}: {name} {rate} must be between 0 and 1")
        self.table_id = table_id
        self.paytable = paytable
        self.seats = seats
        self.mistake_rate = mistake_rate
        self.jackpot_rate = jackpot_rate
        self.bet_probability = bet_probability
        if seed is None:  # a fresh game each run
            seed = secrets.randbelow(2**63)
        self.seed = seed
        self.rng = random.Random(f"{seed}/{table_id}")
        self.round_no = 0
        self.phase = "idle"  # idle -> started -> waiting -> idle
        self.wagers: dict[int, int] = {}
        self.hands: dict[int, tuple[Card, ...]] = {}
        self.open_hits: dict[str, OpenHit] = {}
        self.decisions: dict[str, str] = {}  # hit_ref -> "paid" | "rejected"
        self.stacked_rounds: list[int] = []  # rounds dealt with --jackpot-rate (not random)
        self._forced: dict[int, tuple[Card, ...]] = {}
        self._forced_wagers: set[int] | None = None

    def _emit(self, event: ControllerEvent) -> EventFrame:
        """The event as the controller sends it (numbered, held until acknowledged)."""
        raise NotImplementedError

    def _on_resolved(self) -> None:
        """A hit was paid or rejected (the network side's pacing waits for it)."""

    def _new_game(self) -> None:
        """The controller restarted: rounds numbered from 1 again, the game idle and its open
        hits forgotten."""
        self.round_no = 0
        self.phase = "idle"
        self.open_hits = {}
        self.wagers = {}
        self.hands = {}

    # ------------------------------------------------------------ the dealer's buttons

    def force_hand(self, seat: int, cards: Iterable[Card | str], *, wager: bool = True) -> None:
        """Deal ``cards`` (7) to ``seat`` in the next round, with a progressive wager on it
        unless ``wager`` is False."""
        if not 1 <= seat <= self.seats:
            raise SimulatorError(f"table {self.table_id}: seat {seat} does not exist")
        hand = parse_cards([str(c) for c in cards], count=CARDS_PER_HAND)
        taken = {c for s, h in self._forced.items() if s != seat for c in h}
        if taken & set(hand):
            raise CardError(f"table {self.table_id}: seat {seat}: a card is already forced "
                            "to another seat")
        self._forced[seat] = hand
        if self._forced_wagers is None:
            self._forced_wagers = set()
        if wager:
            self._forced_wagers.add(seat)

    def press_hit_jackpot(self, seat: int, hand: str) -> EventFrame:
        """The dealer selects ``seat`` and the ``hand`` button and presses HIT JACKPOT, right or
        wrong (after START GAME; the table then waits for the console's PAY or REJECT)."""
        if self.phase not in ("started", "waiting"):
            raise SimulatorError(f"table {self.table_id}: HIT JACKPOT needs a started game")
        if seat not in self.hands:
            raise SimulatorError(f"table {self.table_id}: seat {seat} was not dealt")
        frame = self._hit(seat, hand)
        self.phase = "waiting"
        return frame

    def press_misdeal(self) -> EventFrame:
        """The dealer presses MISDEAL after START GAME: the round is killed, the wagers go back
        to the players, its hits are void."""
        if self.phase not in ("started", "waiting"):
            raise SimulatorError(f"table {self.table_id}: MISDEAL needs a started game")
        for ref in [r for r, h in self.open_hits.items() if h.round_no == self.round_no]:
            del self.open_hits[ref]
        self.phase = "idle"
        return self._emit(Misdealt(self.round_no))

    def force_wagers(self, seats: Iterable[int]) -> None:
        """The seats whose sensors are lit in the next round (instead of random ones)."""
        self._forced_wagers = set(seats)

    # ------------------------------------------------------------ the game

    def step(self) -> list[EventFrame]:
        """One controller action (deterministic from the seed); the events it produced.
        Returns ``[]`` while the table waits for the console's PAY/REJECT."""
        if self.phase == "idle":
            return self._start_game()
        if self.phase == "started":
            return self._deal_and_hit()
        if self.open_hits:
            return []
        self.phase = "idle"
        return [self._emit(GameEnded(self.round_no))]

    def play_round(self) -> list[EventFrame]:
        """Steps until the round ended or the table waits for the console."""
        out = self.step()
        while self.phase != "idle" and not (self.phase == "waiting" and self.open_hits):
            out += self.step()
        return out

    def _start_game(self) -> list[EventFrame]:
        self.round_no += 1
        wager = self.paytable.wager_cents or 0
        dealt = range(1, min(self.seats, 53 // CARDS_PER_HAND) + 1)
        if self._forced_wagers is not None:
            lit = sorted(s for s in self._forced_wagers if s in dealt)
        else:
            lit = [s for s in dealt if self.rng.random() < self.bet_probability]
        self._forced_wagers = None
        self.wagers = {s: wager for s in lit}
        self._deal(list(dealt))
        self.phase = "started"
        return [self._emit(GameStarted(self.round_no, dict(self.wagers)))]

    def _deal(self, seats: list[int]) -> None:
        deck = full_deck()
        self.rng.shuffle(deck)
        hands: dict[int, list[Card]] = {s: list(h) for s, h in self._forced.items() if s in seats}
        self._forced = {}
        if (not hands and self.wagers and self.jackpot_rate
                and self.rng.random() < self.jackpot_rate):
            seat = self.rng.choice(sorted(self.wagers))
            hand = self.rng.choice([p.hand for p in self.paytable.pays])
            hands[seat] = stacked_cards(hand, self.rng)
            self.stacked_rounds.append(self.round_no)
            log.info("table %s round %d: seat %d dealt a STACKED %s (jackpot-rate demo, not a "
                     "random deal)", self.table_id, self.round_no, seat, hand)
        used = {c for h in hands.values() for c in h}
        rest = [c for c in deck if c not in used]
        for s in seats:
            h = hands.setdefault(s, [])
            while len(h) < CARDS_PER_HAND:
                h.append(rest.pop())
        self.hands = {s: tuple(h) for s, h in hands.items()}

    def _deal_and_hit(self) -> list[EventFrame]:
        r = self.rng.random()
        if r < self.mistake_rate / 2:
            self.phase = "idle"
            return [self._emit(Misdealt(self.round_no))]
        if r < self.mistake_rate * 3 / 4:
            self.phase = "idle"
            return [self._emit(Undone(self.round_no, "START_GAME"))]
        out: list[EventFrame] = []
        claims: list[tuple[int, str]] = []
        for seat in sorted(self.wagers):
            pay = self.paytable.paying(self.hands[seat])
            if pay is not None:
                claims.append((seat, pay.hand))
        mistake = self.rng.random() < self.mistake_rate
        wrong: tuple[int, str] | None = None
        if mistake:
            wrong = self._mistaken_claim(claims)
            if wrong is not None and wrong[0] in dict(claims):
                claims = [c for c in claims if c[0] != wrong[0]]
        for seat, hand in claims:
            out.append(self._hit(seat, hand))
        if wrong is not None:
            out.append(self._hit(*wrong))
            if self.rng.random() < 0.5:  # the dealer notices and presses UNDO
                ref = hit_ref(out[-1].origin)
                del self.open_hits[ref]
                out.append(self._emit(Undone(self.round_no, "HIT", wrong[0])))
        self.phase = "waiting"
        return out

    def _mistaken_claim(self, claims: list[tuple[int, str]]) -> tuple[int, str] | None:
        """A wrong hand button on a real hit, or a HIT on a seat without a wager."""
        hands = [p.hand for p in self.paytable.pays]
        empty = [s for s in self.hands if s not in self.wagers]
        if claims and (not empty or self.rng.random() < 0.5):
            seat, right = self.rng.choice(claims)
            others = [h for h in hands if h != right]
            return (seat, self.rng.choice(others)) if others else None
        if empty:
            return self.rng.choice(sorted(empty)), self.rng.choice(hands)
        if self.wagers:  # every seat wagered, nobody hit: a button for a hand not made
            return self.rng.choice(sorted(self.wagers)), self.rng.choice(hands)
        return None

    def _hit(self, seat: int, hand: str) -> EventFrame:
        frame = self._emit(HitClaimed(self.round_no, seat, hand, self.hands[seat]))
        ref = hit_ref(frame.origin)
        self.open_hits[ref] = OpenHit(ref, self.round_no, seat, hand)
        return frame

    def resolve(self, command: Command) -> tuple[str, str]:
        """Apply a console PAY/REJECT: ``("ok", "")`` or ``("refused", reason)``."""
        decision = "paid" if isinstance(command, PayConfirmed) else "rejected"
        ref = command.hit_ref
        if not ref and isinstance(command, HitRejected):
            for h in self.open_hits.values():
                if h.round_no == command.round_no and h.seat == command.seat:
                    ref = h.ref
                    break
        if ref in self.decisions:
            if self.decisions[ref] == decision:
                return "ok", ""
            return "refused", f"hit {ref} was already {self.decisions[ref]}"
        hit = self.open_hits.get(ref)
        if hit is None:
            what = ref or f"in round {command.round_no} at seat {command.seat}"
            return "refused", f"no open hit {what}"
        if (hit.round_no, hit.seat) != (command.round_no, command.seat):
            return "refused", (f"hit {ref} is round {hit.round_no} seat {hit.seat}, not round "
                               f"{command.round_no} seat {command.seat}")
        del self.open_hits[ref]
        self.decisions[ref] = decision
        log.info("table %s: hit %s %s", self.table_id, ref, decision)
        self._on_resolved()
        return "ok", ""
