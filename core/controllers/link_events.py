"""The events one table sends, on the console's side (docs/protocol.md, "Sequence",
"Delivery guarantees"): checked against the table, taken in sequence per (table, boot), passed
to the floor (``on_event``: the ledger writer records them) and acknowledged only after that.

Only the next expected seq is passed on; a later one makes the link ask the controller to send
again from the expected one (RESEND), an earlier one is answered with the ACK it had (refused
stays refused, for the same reason; after a console restart the ledger answers).  An event
refused here (malformed but identifiable, a seat the table lacks, another table's id) goes to
the floor as a :class:`~core.controllers.events.Refused` so that it is recorded before the
``ACK refused``; a GONE (events the controller no longer holds) as a
:class:`~core.controllers.events.SequenceGap`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

from core.controllers.events import (
    Delivery,
    GameStarted,
    HitClaimed,
    Origin,
    OutOfOrder,
    Refused,
    SequenceGap,
    Undone,
)
from core.controllers.frames import (
    Ack,
    ErrorFrame,
    EventFrame,
    Frame,
    Gone,
    Hello,
    ProtocolError,
    Resend,
)
from core.controllers.link_ends import SessionEnd
from core.controllers.screening import refusal_text
from core.ledger.outages import LedgerUnavailable

log = logging.getLogger("podium.link")

# the floor's side: records or refuses an event (raises ValueError to refuse, OutOfOrder for an
# event beyond the next expected); returns False for a replay, or an awaitable of the result
OnEvent = Callable[[Origin, Delivery], object]


class AckedSeqs:
    """Sequence numbers already acknowledged for one boot: a low-water mark (every seq
    up to it) plus the ones above it, so memory stays small on a long run."""

    def __init__(self) -> None:
        self.low = 0
        self.above: set[int] = set()

    def __contains__(self, seq: int) -> bool:
        return seq <= self.low or seq in self.above

    def add(self, seq: int) -> None:
        if seq in self:
            return
        self.above.add(seq)
        while self.low + 1 in self.above:
            self.low += 1
            self.above.remove(self.low)


class _BootSeq:
    """The link's memory of one controller boot's event sequence (this console run).  The
    ledger is the authority; this spares it the events already answered."""

    def __init__(self) -> None:
        self.expected: int | None = None  # the next seq the floor takes (None: ask the floor)
        self.decided = AckedSeqs()  # answered ACK ok or refused in this run
        self.refused: dict[int, str] = {}  # seq -> the reason it was refused with
        self.poison: set[int] = set()  # out-of-bounds seqs refused (answered ERROR)
        self.asked: tuple[int, float] | None = None  # the last RESEND: (seq, loop time)




class Deliveries:
    """The events of one table's controller, on the link: what this console run answered of
    each boot.  ``send`` puts a frame on the link's connection; ``seats`` is the floor's
    (None: the HELLO's); ``retransmit`` (seconds) spaces the RESENDs."""

    def __init__(self, table_id: str, on_event: OnEvent, send: Callable[[Frame], Awaitable[None]],
                 *, seats: int | None, retransmit: float) -> None:
        self.table_id = table_id
        self.on_event = on_event
        self.seats = seats
        self.retransmit = retransmit
        self._send = send
        self._seqs: dict[str, _BootSeq] = {}

    def acknowledged(self, boot: str, seq: int) -> bool:
        """Whether this link has acknowledged event ``(boot, seq)`` (this console run)."""
        return boot in self._seqs and seq in self._seqs[boot].decided

    def _content_problem(self, frame: EventFrame, hello: Hello) -> str:
        """A well-formed event that can never be right for this table (refused for good)."""
        ev = frame.event
        seats: list[int] = []
        if isinstance(ev, GameStarted):
            seats = list(ev.wagers)
        elif isinstance(ev, HitClaimed) or (isinstance(ev, Undone) and ev.seat is not None):
            seats = [ev.seat] if ev.seat is not None else []
        limit = self.seats if self.seats is not None else hello.seats
        bad = [s for s in seats if s > limit]
        if bad:
            return f"seat {bad[0]} does not exist at table {self.table_id} ({limit} seats)"
        return ""

    async def event(self, frame: EventFrame, hello: Hello) -> None:
        """An EVENT frame: checked against this table, then in sequence to the floor."""
        o = frame.origin
        # An earlier boot is fine: a controller that kept its outbox over a restart resends
        # those events under their original (boot, seq).
        if o.table != self.table_id:
            # this controller's sequence: refused (and kept) under this connection's table
            msg = (f"EVENT seq {o.seq}: from table {o.table!r}, this connection is table "
                   f"{self.table_id!r}")
            await self._deliver(Origin(self.table_id, o.boot, o.seq, o.controller_time),
                                Refused(msg, frame.event))
            return
        problem = self._content_problem(frame, hello)
        await self._deliver(o, Refused(problem, frame.event) if problem else frame.event)

    async def malformed(self, exc: ProtocolError) -> None:
        """An EVENT whose checksum held and whose identity is readable but whose content is
        not: refused by that identity and kept, so that it can not jam the table."""
        m = exc.event
        assert m is not None
        log.warning("table %s: malformed event %s:%s refused: %s", self.table_id, m.boot,
                    m.seq, exc)
        refusal = Refused(f"malformed event: {exc}", None, m.kind, m.fields)
        time = m.fields.get("time")
        ctime = time if isinstance(time, str) and len(time) <= 40 and time.isprintable() else ""
        if m.seq_in_bounds:
            await self._deliver(Origin(self.table_id, m.boot, m.seq, ctime), refusal)
            return
        # its seq can not be acknowledged (an ACK carries a seq within bounds): kept once per
        # boot under seq 0 and answered ERROR; the events after it go on
        st = self._seqs.setdefault(m.boot, _BootSeq())
        if m.seq not in st.poison:
            try:
                result = self.on_event(Origin(self.table_id, m.boot, 0, ctime), refusal)
                if inspect.isawaitable(result):
                    await result
            except ValueError:
                pass  # refused, as it must be: kept in refused_events
            except Exception as err:
                log.exception("table %s: malformed event %s could not be recorded",
                              self.table_id, m.boot)
                raise SessionEnd(f"a malformed event could not be recorded "
                                 f"({type(err).__name__}); reconnecting") from err
            st.poison.add(m.seq)
        await self._send(ErrorFrame("BAD_FRAME", refusal_text(f"{exc} (refused and kept)"),
                                    None))

    async def _deliver(self, origin: Origin, item: Delivery) -> None:
        """In sequence: pass the event on (the floor records or refuses it) and ACK the
        outcome; a seq beyond the next expected asks for a RESEND; one already answered in this
        run gets the same answer again."""
        st = self._seqs.setdefault(origin.boot, _BootSeq())
        seq = origin.seq
        if st.expected is not None:
            if seq > st.expected:
                await self._ask_resend(origin.boot, st)
                return
            if seq < st.expected and seq in st.decided:  # its ACK was lost: the same answer
                before = st.refused.get(seq)
                # DEBUG: a slow ledger makes every table resend, and a floor service logs for
                # months (journald): one line per repeat would flood it
                log.debug("table %s: event %s:%d answered already (%s), acknowledged again",
                         self.table_id, origin.boot, seq, "ok" if before is None else "refused")
                await self._send(Ack(origin.boot, seq, "ok" if before is None else "refused",
                                     before or ""))
                return
        # the next expected, or one the ledger must answer (below it, or a boot this run has
        # not seen yet)
        replay = False
        reason: str | None = None
        try:
            result = self.on_event(origin, item)
            if inspect.isawaitable(result):
                # the ledger writer commits it with others (group commit); this link
                # waits for its own event only, every other table reads on
                result = await result
        except OutOfOrder as exc:
            st.expected = exc.expected
            await self._ask_resend(origin.boot, st)
            return
        except ValueError as exc:
            # what the floor kept (refused_events.reason) and the controller hears: one clear
            # line, printable and bounded, whatever text the refusal quoted
            reason = refusal_text(str(exc) or type(exc).__name__)
        except LedgerUnavailable:
            # the ledger can not record now (a full disk, a database gone): the writer says so
            # once; the event stays unacknowledged in the controller, which sends it again
            # (retransmit) on this connection, and is recorded once the ledger can again
            return
        except Exception as exc:
            log.exception("table %s: event %s:%d could not be recorded", self.table_id,
                          origin.boot, seq)
            raise SessionEnd(f"event {seq} could not be recorded ({type(exc).__name__}); "
                             "reconnecting so the controller resends it") from exc
        else:
            replay = result is False
            if isinstance(item, Refused) and not replay:
                # recorded as refused (False: it had been accepted)
                reason = refusal_text(item.reason)
        st.decided.add(seq)
        if st.expected is not None:
            st.expected = max(st.expected, seq + 1)
        elif reason is None and not replay:
            # a new event taken: it was the ledger's next (a replay, or a refusal that may be
            # one, says nothing of where the boot's sequence stands)
            st.expected = seq + 1
        if reason is not None:
            st.refused[seq] = reason
            log.warning("table %s: event %s:%d refused: %s", self.table_id, origin.boot, seq,
                        reason)
            await self._send(Ack(origin.boot, seq, "refused", reason))
        else:
            if replay:
                log.debug("table %s: event %s:%d already recorded, acknowledged again",
                         self.table_id, origin.boot, seq)
            await self._send(Ack(origin.boot, seq, "ok"))

    async def _ask_resend(self, boot: str, st: _BootSeq) -> None:
        """RESEND from the expected seq, once per retransmit interval (the events behind a gap
        all ask for the same thing)."""
        assert st.expected is not None
        now = asyncio.get_running_loop().time()
        if st.asked is not None and st.asked[0] == st.expected and \
                now - st.asked[1] < self.retransmit:
            return
        st.asked = (st.expected, now)
        log.info("table %s: boot %s: seq %d expected next, asking the controller to send again "
                 "from there", self.table_id, boot, st.expected)
        await self._send(Resend(boot, st.expected))

    async def gone(self, gone: Gone) -> None:
        """The controller no longer holds events seq..next-1 (acknowledged before, not in this
        ledger): the floor records the gap and the sequence goes on after it."""
        st = self._seqs.get(gone.boot)
        if st is None or st.expected != gone.seq:
            log.info("table %s: GONE %s %d..%d does not answer a RESEND of this link; ignored",
                     self.table_id, gone.boot, gone.seq, gone.next_seq - 1)
            return
        origin = Origin(self.table_id, gone.boot, gone.next_seq - 1)
        try:
            result = self.on_event(origin, SequenceGap(gone.seq, gone.next_seq - 1))
            if inspect.isawaitable(result):
                await result
        except OutOfOrder as exc:
            st.expected, st.asked = exc.expected, None
            await self._ask_resend(gone.boot, st)
            return
        except ValueError as exc:
            log.error("table %s: the gap %s %d..%d could not be recorded: %s", self.table_id,
                      gone.boot, gone.seq, gone.next_seq - 1, exc)
            return
        except Exception as exc:
            log.exception("table %s: the gap %s %d..%d could not be recorded", self.table_id,
                          gone.boot, gone.seq, gone.next_seq - 1)
            raise SessionEnd(f"a sequence gap could not be recorded ({type(exc).__name__}); "
                             "reconnecting") from exc
        st.expected, st.asked = gone.next_seq, None
        log.warning("table %s: events %d..%d of boot %s were acknowledged before and are not "
                    "in this ledger; recorded as a gap", self.table_id, gone.seq,
                    gone.next_seq - 1, gone.boot)

