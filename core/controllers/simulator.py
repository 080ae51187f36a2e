"""Simulated Nexus Command table controllers speaking the Podium protocol.

``podium simulate`` runs one TCP server per table (docs/protocol.md, "The simulator").
The same classes are importable: a test or the demo builds a :class:`SimulatedTable`
(or a :class:`Simulator` of several), starts it on its asyncio loop and, with
``speed=0``, advances it one controller action at a time with :meth:`SimulatedTable.step`,
deterministically from its seed.  :meth:`SimulatedTable.force_hand` stacks a given hand
on a given seat for the next round.

Each round follows RULES.md section 5: progressive wagers on random seats (lit sensors
only), START GAME, seven real random cards per seat from a shuffled 53-card deck, HIT
JACKPOT for every wagered seat whose cards the paytable pays, wait for the console's PAY
or REJECT of each hit, END GAME; sometimes a dealer mistake, an UNDO or a MISDEAL.

Each table serves TLS with its own certificate from the casino CA (a folder made by ``podium
certs``, ``--certs``) and talks only to a console presenting a console's certificate from that
CA (:mod:`core.controllers.tls`); plain TCP only when told (``--plain-lab-only``, or a floor
file whose ``[controller_link]`` says so).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import secrets
import ssl
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from core.controllers import tls as link_tls
from core.controllers.events import (
    ControllerEvent,
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    Undone,
)
from core.controllers.frames import (
    DEFAULT_HEARTBEAT_MS,
    DEFAULT_RETRANSMIT_MS,
    TIMEOUT_HEARTBEATS,
    Ack,
    Command,
    CommandAck,
    CommandFrame,
    ErrorFrame,
    EventFrame,
    Frame,
    Gone,
    Heartbeat,
    Hello,
    HitRejected,
    JackpotState,
    PayConfirmed,
    ProtocolError,
    Resend,
    Welcome,
    hit_ref,
    utc_now_iso,
)
from core.controllers.protocol import FrameBuffer, encode_frame
from core.kernel.cards import JOKER, SUITS, Card, CardError, full_deck, parse_cards

log = logging.getLogger("podium.simulator")

SOFTWARE = "podium-sim 0.1"
DEFAULT_PAYTABLE = "FPGPP-WA01"
DEFAULT_PORT = 7700
CARDS_PER_HAND = 7
BET_PROBABILITY = 0.5  # chance that a player places the progressive wager in a round
# Seconds each phase takes at speed 1 (about one round a minute, like a real table).
PHASE_SECONDS = {"idle": 15.0, "started": 35.0, "waiting": 10.0}
# The timer sends again at most this many of a boot's oldest unacknowledged events at a time: a
# large backlog is not sent whole every interval while the console works through it (a RESEND
# brings everything from the seq the console expects).
RETRANSMIT_WINDOW = 64


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


# --------------------------------------------------------------------------- one table

class SimulatedTable:
    """One simulated Nexus Command controller (a TCP server once :meth:`start`-ed).

    ``tls`` is its server context (``tls.controller_context``: the table's certificate, a
    console's required); ``None`` (it must be said) serves plain TCP, for a lab only."""

    def __init__(self, table_id: str, paytable: PaytableLike, *, tls: ssl.SSLContext | None,
                 port: int = 0,
                 host: str = "127.0.0.1", seats: int = 6, decks: int = 1,
                 seed: int | str | None = 0, speed: float = 1.0, mistake_rate: float = 0.02,
                 jackpot_rate: float = 0.0, boot: str | None = None,
                 heartbeat: float = DEFAULT_HEARTBEAT_MS / 1000,
                 bet_probability: float = BET_PROBABILITY,
                 paytable_id: str | None = None,
                 retransmit: float = DEFAULT_RETRANSMIT_MS / 1000) -> None:
        if not table_id:
            raise SimulatorError("table id: must not be empty")
        if paytable.wager_cents is None:
            raise SimulatorError(f"table {table_id}: paytable {paytable.id} is not a progressive "
                                 "paytable (it has no progressive wager)")
        if not 1 <= seats <= 10:
            raise SimulatorError(f"table {table_id}: seats {seats} must be 1..10 (cards are "
                                 "dealt to seats 1-7)")
        if not 0 <= port < 65536:
            raise SimulatorError(f"table {table_id}: port {port} is not a TCP port")
        for name, rate in (("mistake rate", mistake_rate), ("jackpot rate", jackpot_rate),
                           ("bet probability", bet_probability)):
            if not 0 <= rate <= 1:
                raise SimulatorError(f"table {table_id}: {name} {rate} must be between 0 and 1")
        if speed < 0:
            raise SimulatorError(f"table {table_id}: speed {speed} must not be negative")
        if retransmit <= 0:
            raise SimulatorError(f"table {table_id}: retransmit interval {retransmit} must be "
                                 "positive")
        self.table_id = table_id
        self.paytable = paytable
        self.paytable_id = paytable_id or paytable.id  # as configured (may be an equivalent)
        self.host = host
        self.port = port
        self.tls = tls
        self.seats = seats
        self.decks = decks
        self.speed = speed
        self.mistake_rate = mistake_rate
        self.jackpot_rate = jackpot_rate
        self.bet_probability = bet_probability
        self.heartbeat = heartbeat
        self.retransmit = retransmit
        self.boot = boot or secrets.token_hex(6)
        if seed is None:  # a fresh game each run
            seed = secrets.randbelow(2**63)
        self.seed = seed
        self.rng = random.Random(f"{seed}/{table_id}")
        # game state
        self.round_no = 0
        self.phase = "idle"  # idle -> started -> waiting -> idle
        self.wagers: dict[int, int] = {}
        self.hands: dict[int, tuple[Card, ...]] = {}
        self.open_hits: dict[str, OpenHit] = {}
        self.decisions: dict[str, str] = {}  # hit_ref -> "paid" | "rejected"
        self.stacked_rounds: list[int] = []  # rounds dealt with --jackpot-rate (not random)
        # level -> the console's last JACKPOT_STATE for this table's link (what the table's
        # display shows: PENDING with the frozen amount while a linked hit waits)
        self.jackpot: dict[str, JackpotState] = {}
        self._forced: dict[int, tuple[Card, ...]] = {}
        self._forced_wagers: set[int] | None = None
        # protocol state
        self.history: list[EventFrame] = []  # every event of every boot, in order
        self.outbox: dict[int, EventFrame] = {}  # seq -> event of this boot not yet acknowledged
        # earlier boots' events not yet acknowledged (kept over restart(keep_outbox=True)); they
        # go out before this boot's, each boot in seq order
        self.kept: dict[str, dict[int, EventFrame]] = {}
        self.ack_results: dict[int, tuple[str, str]] = {}  # this boot's seq -> (result, reason)
        self.transmissions: Counter[int] = Counter()  # seq -> times put on the wire
        # (boot, seq) -> time.monotonic() when emitted / when its first ACK arrived (figures)
        self.emitted_at: dict[tuple[str, int], float] = {}
        self.acked_at: dict[tuple[str, int], float] = {}
        self.retransmissions = 0  # events sent again on the timer or for a RESEND
        self.gone_sent = 0
        self.connections = 0  # console connections accepted so far
        self._next_seq = 1
        self._sent_at: dict[tuple[str, int], float] = {}  # monotonic time it last went out
        self._hello: Hello | None = None  # the HELLO of the current connection (sent again
        self._hello_at = 0.0  # every retransmit interval until the WELCOME arrives)
        self._commands: dict[tuple[str, int], CommandAck] = {}
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._ready = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pacer: asyncio.Task[None] | None = None
        self._resolved: asyncio.Event | None = None  # created on the loop in start()

    # ------------------------------------------------------------ test helpers

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

    def jackpot_line(self, level: str) -> str:
        """What the table's display says of a linked level (the simulator's log and status)."""
        st = self.jackpot.get(level)
        if st is None or st.state == "CLEAR":
            return f"{level}: live"
        return (f"{level}: JACKPOT PENDING {st.amount_cents // 100:,}.{st.amount_cents % 100:02d}"
                f" frozen for {st.hits} hit(s) on the link; this table keeps playing")

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

    @property
    def connected(self) -> bool:
        return self._writer is not None and self._ready

    @property
    def unacknowledged(self) -> int:
        """Events of every boot still waiting for their ACK."""
        return len(self.outbox) + sum(len(box) for box in self.kept.values())

    def restart(self, *, keep_outbox: bool = True) -> None:
        """The controller restarts: a new boot, sequence numbers from 1 again, rounds numbered
        from 1 again, the game idle and its open hits forgotten.  With ``keep_outbox`` the
        unacknowledged events of the old boot stay and are still sent, under their own (boot,
        seq), before the new boot's."""
        self.drop_connection()
        if keep_outbox and self.outbox:
            self.kept[self.boot] = self.outbox
        self.outbox = {}
        self.ack_results = {}
        self.transmissions = Counter()
        self.boot = secrets.token_hex(6)
        self._next_seq = 1
        self.round_no = 0
        self.phase = "idle"
        self.open_hits = {}
        self.wagers = {}
        self.hands = {}
        log.info("table %s: restarted as boot %s (%d event(s) of earlier boots kept)",
                 self.table_id, self.boot, sum(len(b) for b in self.kept.values()))

    def _boxes(self) -> list[tuple[str, dict[int, EventFrame]]]:
        """Every boot's unacknowledged events, earlier boots first."""
        return [*self.kept.items(), (self.boot, self.outbox)]

    def drop_connection(self) -> None:
        """Cut the console's connection at once (as a pulled cable would)."""
        w, self._writer, self._ready = self._writer, None, False
        if w is not None:
            w.transport.abort()

    # ------------------------------------------------------------ the game

    def _emit(self, event: ControllerEvent) -> EventFrame:
        frame = EventFrame(Origin(self.table_id, self.boot, self._next_seq, utc_now_iso()), event)
        self._next_seq += 1
        self.history.append(frame)
        self.outbox[frame.origin.seq] = frame
        self.emitted_at[(self.boot, frame.origin.seq)] = time.monotonic()
        log.info("table %s #%d: %s", self.table_id, frame.origin.seq, describe(event))
        if self.connected:
            self._write(frame)
        return frame

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
        if self._resolved is not None:
            self._resolved.set()
        return "ok", ""

    # ------------------------------------------------------------ network

    async def start(self) -> None:
        """Listen on host:port (port 0: any free port, then ``self.port``) and, when
        ``speed > 0``, start playing rounds."""
        self._resolved = asyncio.Event()
        self._server = await asyncio.start_server(self._on_client, self.host, self.port,
                                                  ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("table %s: Nexus Command simulator on %s:%d, %s (paytable %s, boot %s)",
                 self.table_id, self.host, self.port,
                 "TLS" if self.tls else "PLAIN TCP (lab only)", self.paytable_id, self.boot)
        if self.speed > 0:
            self._pacer = asyncio.create_task(self._pace(), name=f"sim-{self.table_id}")

    async def stop(self) -> None:
        if self._pacer is not None:
            self._pacer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pacer
            self._pacer = None
        self.drop_connection()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _pace(self) -> None:
        while True:
            phase = self.phase
            await asyncio.sleep(PHASE_SECONDS[phase] / self.speed)
            if self.phase == "waiting" and self.open_hits and self._resolved is not None:
                self._resolved.clear()
                await self._resolved.wait()
                continue
            try:
                self.step()
            except Exception:  # a simulator bug must not silently stop the table
                log.exception("table %s: simulator step failed", self.table_id)
                raise

    def _write(self, frame: Frame) -> None:
        w = self._writer
        if w is not None and not w.is_closing():
            w.write(encode_frame(frame))
            now = time.monotonic()
            if isinstance(frame, EventFrame):
                o = frame.origin
                if o.boot == self.boot:
                    self.transmissions[o.seq] += 1
                self._sent_at[(o.boot, o.seq)] = now
            elif isinstance(frame, Hello):
                self._hello, self._hello_at = frame, now

    async def _retransmits(self, writer: asyncio.StreamWriter) -> None:
        """Every event not acknowledged ``retransmit`` seconds after it last went out is sent
        again on the live connection (oldest first, at most :data:`RETRANSMIT_WINDOW` of each
        boot at a time); before the WELCOME, the HELLO is."""
        while self._writer is writer:
            await asyncio.sleep(self.retransmit / 4)
            if self._writer is not writer:
                return
            now = time.monotonic()
            if not self._ready:
                if self._hello is not None and now - self._hello_at >= self.retransmit:
                    self._write(self._hello)
                continue
            for boot, box in self._boxes():
                for seq in sorted(box)[:RETRANSMIT_WINDOW]:
                    if now - self._sent_at.get((boot, seq), float("-inf")) >= self.retransmit:
                        self.retransmissions += 1
                        self._write(box[seq])

    def _resend_from(self, item: Resend) -> None:
        """The console takes ``item.seq`` of ``item.boot`` next: everything held of that boot
        from there, again; a GONE first if the seqs before the first held one were
        acknowledged already (to a console whose ledger does not have them)."""
        box = self.outbox if item.boot == self.boot else self.kept.get(item.boot, {})
        held = sorted(s for s in box if s >= item.seq)
        first = held[0] if held else (self._next_seq if item.boot == self.boot else None)
        if first is None:
            log.warning("table %s: RESEND of boot %s, which this controller holds nothing of",
                        self.table_id, item.boot)
            return
        if first > item.seq:
            log.warning("table %s: the console asks for %s from seq %d; %d..%d were "
                        "acknowledged before: GONE", self.table_id, item.boot, item.seq,
                        item.seq, first - 1)
            self.gone_sent += 1
            self._write(Gone(item.boot, item.seq, first))
        for seq in held:
            self.retransmissions += 1
            self._write(box[seq])

    def _console_refused(self, writer: asyncio.StreamWriter) -> bool:
        """Over TLS, a client that is not a console (a controller's certificate, say) is refused
        before anything: it does not replace the console's connection, it sees no HELLO.  (A
        client without a certificate from the CA never gets here: the handshake fails.)"""
        if self.tls is None:
            return False
        problem = link_tls.console_problem(writer.get_extra_info("ssl_object"))
        if problem:
            log.error("table %s: connection from %s refused: %s", self.table_id,
                      writer.get_extra_info("peername"), problem)
            writer.transport.abort()
        return bool(problem)

    async def _on_client(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> None:
        if self._console_refused(writer):
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self.connections += 1
        if self._writer is not None:
            log.info("table %s: a new console connection replaces the old one", self.table_id)
            self.drop_connection()
        self._writer, self._ready = writer, False
        peer_timeout = TIMEOUT_HEARTBEATS * self.heartbeat
        beat = asyncio.create_task(self._heartbeats(writer))
        try:
            self._write(Hello(self.table_id, self.boot, self.paytable_id, self.decks, self.seats,
                              heartbeat_ms=round(self.heartbeat * 1000), software=SOFTWARE))
            buf = FrameBuffer()
            while self._writer is writer:
                try:
                    data = await asyncio.wait_for(reader.read(65_536), peer_timeout)
                except TimeoutError:
                    log.warning("table %s: console silent for %g s, link down", self.table_id,
                                peer_timeout)
                    break
                if not data:
                    break
                for item in buf.feed(data):
                    if self._writer is not writer:
                        break
                    if isinstance(item, Welcome):
                        peer_timeout = TIMEOUT_HEARTBEATS * item.heartbeat_ms / 1000
                    self._handle(item)
        except (OSError, asyncio.IncompleteReadError) as exc:
            log.info("table %s: connection lost: %s", self.table_id, exc)
        finally:
            beat.cancel()
            if self._writer is writer:
                self._writer, self._ready = None, False
            writer.transport.abort()
            if task is not None:
                self._tasks.discard(task)

    async def _heartbeats(self, writer: asyncio.StreamWriter) -> None:
        """The connection's timers: a heartbeat every ``heartbeat`` seconds, retransmission
        every ``retransmit``."""
        resend = asyncio.create_task(self._retransmits(writer))
        try:
            while self._writer is writer:
                await asyncio.sleep(self.heartbeat)
                if self._writer is writer:
                    self._write(Heartbeat(utc_now_iso()))
        finally:
            resend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await resend

    def _handle(self, item: Frame | ProtocolError) -> None:
        if isinstance(item, ProtocolError):
            log.warning("table %s: malformed frame from the console: %s", self.table_id, item)
            self._write(ErrorFrame("BAD_FRAME", str(item)))
        elif isinstance(item, Welcome):
            self._ready = True
            log.info("table %s: console %s connected; resending %d unacknowledged event(s)",
                     self.table_id, item.console, self.unacknowledged)
            for _boot, box in self._boxes():
                for seq in sorted(box):
                    self._write(box[seq])
        elif isinstance(item, Heartbeat):
            pass
        elif isinstance(item, ErrorFrame):
            level = logging.ERROR if item.code == "HELLO_REFUSED" else logging.WARNING
            log.log(level, "table %s: console reports %s: %s", self.table_id, item.code,
                    item.message)
        elif not self._ready:
            self._write(ErrorFrame("UNEXPECTED", f"{type(item).__name__} before WELCOME"))
        elif isinstance(item, Ack):
            box = self.outbox if item.boot == self.boot else self.kept.get(item.boot, {})
            if box.pop(item.seq, None) is not None:
                self.acked_at[(item.boot, item.seq)] = time.monotonic()
                self._sent_at.pop((item.boot, item.seq), None)
                if item.boot == self.boot:
                    self.ack_results[item.seq] = (item.result, item.reason)
                elif not box:
                    del self.kept[item.boot]
                if item.result == "refused":
                    log.warning("table %s: console refused event %s:%d: %s", self.table_id,
                                item.boot, item.seq, item.reason)
        elif isinstance(item, Resend):
            self._resend_from(item)
        elif isinstance(item, JackpotState):
            was = self.jackpot.get(item.level)
            self.jackpot[item.level] = item
            if was is None or (was.state, was.amount_cents, was.hits) != \
                    (item.state, item.amount_cents, item.hits):
                log.info("table %s: %s", self.table_id, self.jackpot_line(item.level))
        elif isinstance(item, CommandFrame):
            key = (item.console, item.cseq)
            ack = self._commands.get(key)
            if ack is None:
                result, reason = self.resolve(item.command)
                ack = CommandAck(item.console, item.cseq, "ok" if result == "ok" else "refused",
                                 reason)
                self._commands[key] = ack
            self._write(ack)
        else:
            self._write(ErrorFrame("UNEXPECTED",
                                   f"a console does not send {type(item).__name__} frames"))


# --------------------------------------------------------------------------- several tables

class Simulator:
    """Several simulated tables on one asyncio loop."""

    def __init__(self, tables: Iterable[SimulatedTable]) -> None:
        self.tables = {t.table_id: t for t in tables}

    def __getitem__(self, table_id: str) -> SimulatedTable:
        return self.tables[table_id]

    async def start(self) -> None:
        for t in self.tables.values():
            await t.start()

    async def stop(self) -> None:
        for t in self.tables.values():
            await t.stop()

    async def serve_forever(self) -> None:
        await self.start()
        try:
            await asyncio.Event().wait()
        finally:
            await self.stop()


def _paytables() -> dict[str, Any]:
    from core.tablegames.rules.paytables import load_paytables
    return dict(load_paytables())


def _paytable(paytables: dict[str, Any], pid: str, what: str) -> Any:
    if pid not in paytables:
        raise SimulatorError(f"{what}: unknown paytable {pid!r} "
                             f"(known: {', '.join(sorted(paytables))})")
    return paytables[pid]


def _certs_folder(floor: Any, certs: str | Path | None, plain_lab_only: bool) -> Path | None:
    """The folder the tables' certificates come from, or None for plain TCP (lab only, and only
    when told): a floor file's ``[controller_link]`` decides for its tables, and its tables'
    certificates are by default beside its ``ca`` (the layout of ``podium certs init``)."""
    if floor is None:
        if certs is not None and plain_lab_only:
            raise SimulatorError("--plain-lab-only: not with --certs (TLS)")
        if certs is None and not plain_lab_only:
            raise SimulatorError("--certs: the simulated controllers serve TLS: give --certs DIR "
                                 "(podium certs init DIR --tables N makes one) or, in a lab "
                                 "only, --plain-lab-only")
        return Path(certs) if certs is not None else None
    link = floor.controller_link
    if link.transport == link_tls.PLAIN_LAB_ONLY:
        if certs is not None:
            raise SimulatorError(f'--certs: {floor.source} says transport = "plain-lab-only": '
                                 "its console does not speak TLS")
        return None
    if plain_lab_only:
        raise SimulatorError(f"--plain-lab-only: {floor.source} sets the controller link to TLS: "
                             "its console refuses plain TCP")
    if certs is None and not link.ca:
        raise SimulatorError(f"--certs: give the folder of the tables' certificates (podium certs "
                             f"init DIR --floor FILE makes one); {floor.source} has no "
                             "[controller_link] to find them by")
    return Path(certs) if certs is not None else Path(link.ca).parent


def _table_tls(folder: Path | None, table_id: str) -> ssl.SSLContext | None:
    if folder is None:
        return None
    from core.controllers.certs import table_files

    return link_tls.controller_context(table_files(folder, table_id))


def build_simulator(*, tables: int = 1, port: int = DEFAULT_PORT, host: str = "127.0.0.1",
                    paytable: str = DEFAULT_PAYTABLE, floor: Any = None, seed: int | None = 0,
                    speed: float = 1.0, mistake_rate: float = 0.02, jackpot_rate: float = 0.0,
                    seats: int = 6, heartbeat: float = DEFAULT_HEARTBEAT_MS / 1000,
                    paytables: dict[str, Any] | None = None,
                    bind_host: str | None = None, certs: str | Path | None = None,
                    plain_lab_only: bool = False,
                    retransmit: float = DEFAULT_RETRANSMIT_MS / 1000) -> Simulator:
    """The simulator of ``podium simulate``: ``tables`` tables T1..TN on ports
    ``port``..``port+N-1``, or the tables of a floor configuration (``floor``).  Over TLS
    with the certificates of the folder ``certs`` (``podium certs``; by default, for a floor,
    the folder of its ``ca``); plain TCP only with ``plain_lab_only`` or a floor that says
    so."""
    pts = paytables if paytables is not None else _paytables()
    common: dict[str, Any] = {"seed": seed, "speed": speed, "mistake_rate": mistake_rate,
                              "jackpot_rate": jackpot_rate, "heartbeat": heartbeat,
                              "retransmit": retransmit}
    sims = []
    if floor is not None:
        folder = _certs_folder(floor, certs, plain_lab_only)
        for t in floor.tables:
            pid = t.paytable or floor.group(t.group).paytable
            sims.append(SimulatedTable(t.id, _paytable(pts, pid, f"table {t.id}"),
                                       tls=_table_tls(folder, t.id), port=t.port,
                                       host=bind_host or t.host, seats=t.seats, decks=t.decks,
                                       paytable_id=pid, **common))
    else:
        if not 1 <= tables <= 100:
            raise SimulatorError(f"--tables: {tables} must be 1..100")
        if port < 0 or port + tables - 1 > 65535:
            raise SimulatorError(f"--port: {port}..{port + tables - 1} are not all TCP ports")
        pt = _paytable(pts, paytable, "--paytable")
        folder = _certs_folder(None, certs, plain_lab_only)
        for i in range(1, tables + 1):
            sims.append(SimulatedTable(f"T{i}", pt, tls=_table_tls(folder, f"T{i}"),
                                       port=port + i - 1, host=bind_host or host,
                                       seats=seats, paytable_id=paytable, **common))
    return Simulator(sims)


# --------------------------------------------------------------------------- command line

def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.description = (
        "Run simulated Nexus Command table controllers speaking the Podium protocol "
        "(docs/protocol.md). Table i listens on PORT+i-1 with id Ti. Hands are real random "
        "deals from a shuffled 53-card deck, except rounds stacked by --jackpot-rate.")
    parser.add_argument("--tables", type=int, default=4, help="number of tables (default 4)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port of table T1; Ti listens on PORT+i-1 (default {DEFAULT_PORT})")
    parser.add_argument("--host", default=None,
                        help="address to listen on (default 127.0.0.1, or each table's host "
                             "with --floor)")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (default: a fresh one, printed at start)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="pace: 1 = about one round a minute like a real table, 30 = thirty "
                             "times faster (default 1)")
    parser.add_argument("--paytable", default=DEFAULT_PAYTABLE,
                        help=f"progressive paytable of every table (default {DEFAULT_PAYTABLE})")
    parser.add_argument("--floor", default=None, metavar="FILE|demo",
                        help="take table ids, hosts, ports, seats, decks and paytables from a "
                             "floor configuration file (or the embedded demo floor)")
    parser.add_argument("--seats", type=int, default=6, help="seats per table (default 6)")
    parser.add_argument("--mistake-rate", type=float, default=0.02,
                        help="per round, chance of a dealer mistake (wrong hand button or a HIT "
                             "on a seat without a wager); a misdeal at half that (default 0.02)")
    parser.add_argument("--jackpot-rate", type=float, default=0.0,
                        help="DEMO ONLY: chance that a round deals a STACKED qualifying hand to "
                             "one wagered seat so that a demo shows jackpots; such rounds are "
                             "NOT a random deal (default 0)")
    parser.add_argument("--heartbeat", type=float, default=DEFAULT_HEARTBEAT_MS / 1000,
                        help="seconds between heartbeats (default 5)")
    parser.add_argument("--certs", default=None, metavar="DIR",
                        help="serve TLS with the certificates of DIR (made by podium certs init: "
                             "ca.pem, tables/<id>.pem and .key); with --floor the default is the "
                             "folder of the floor file's controller_link.ca (--floor demo: the "
                             "demo's own, made on first use)")
    parser.add_argument("--plain-lab-only", action="store_true",
                        help="serve plain TCP without certificates (a lab only: anyone on the "
                             "network could pose as the console); with --floor, only a floor "
                             "file that says transport = \"plain-lab-only\" serves plain")
    parser.add_argument("--retransmit", type=float, default=DEFAULT_RETRANSMIT_MS / 1000,
                        help="seconds after which an event not yet acknowledged is sent again "
                             "on the live connection (default 2)")


def run(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        raise SimulatorError(f"--speed: {args.speed} must be greater than 0")
    if args.heartbeat <= 0:
        raise SimulatorError(f"--heartbeat: {args.heartbeat} must be greater than 0")
    if args.retransmit <= 0:
        raise SimulatorError(f"--retransmit: {args.retransmit} must be greater than 0")
    floor = None
    if args.floor is not None:
        from core import floorconfig
        floor = (floorconfig.load_demo_floor() if args.floor == "demo"
                 else floorconfig.load_floor(args.floor))
        if args.floor == "demo" and args.certs is None and not args.plain_lab_only:
            from core.app.demo import ensure_demo_certs

            ensure_demo_certs(floor)
    seed = args.seed if args.seed is not None else secrets.randbelow(10**9)
    sim = build_simulator(tables=args.tables, port=args.port, host=args.host or "127.0.0.1",
                          paytable=args.paytable, floor=floor, seed=seed, speed=args.speed,
                          mistake_rate=args.mistake_rate, jackpot_rate=args.jackpot_rate,
                          seats=args.seats, heartbeat=args.heartbeat, bind_host=args.host,
                          certs=args.certs, plain_lab_only=args.plain_lab_only,
                          retransmit=args.retransmit)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    print(f"podium simulate: seed {seed}, speed {args.speed:g}"
          + (f", jackpot rate {args.jackpot_rate:g} (stacked demo rounds, not random deals)"
             if args.jackpot_rate else ""), flush=True)
    for t in sim.tables.values():
        print(f"  {t.table_id}: {t.host}:{t.port} {'TLS' if t.tls else 'PLAIN (lab only)'} "
              f"paytable {t.paytable_id} seats {t.seats} boot {t.boot}", flush=True)
    try:
        asyncio.run(sim.serve_forever())
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        raise SimulatorError(f"can not listen: {exc}") from None
    return 0
