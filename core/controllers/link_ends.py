"""How a controller link's connection ends, and what the link says of it (docs/protocol.md,
"Transport security"): a fault (the network, the controller gone) is retried with the ordinary
backoff; a refusal (a wrong HELLO, a certificate that is not the table's) is shown instead,
retried at the longest delay and logged once, but only once the same refusal ended
:data:`REFUSAL_REPEATS` handshakes in a row when one damaged byte could look like it.
"""

from __future__ import annotations

import logging

from core.controllers import tls as link_tls

log = logging.getLogger("podium.link")

CLOSED_BY_CONTROLLER = "connection closed by the controller"
# How many handshakes in a row must fail alike before a certificate problem seen in the handshake
# is a refusal (core.controllers.tls.HandshakeFault: one damaged byte can look like one).
REFUSAL_REPEATS = 3


class SessionEnd(Exception):
    """Ends one connection; the message is the status detail shown to the supervisor.

    ``refusal`` (a fault when empty: reconnect with the ordinary backoff) is the detail shown
    instead once this connection counts as refused (the longest delay, logged once): when the
    same refusal ended ``after`` connections in a row.  ``answered``: the controller took the
    TCP connection (the handshake failed on the way): it is up, so the next try comes after the
    first delay again, not a doubled one (a damaged path costs a second, not half a minute)."""

    def __init__(self, detail: str, *, refusal: str = "", after: int = 1,
                 answered: bool = False) -> None:
        super().__init__(detail)
        self.refusal = refusal
        self.after = after
        self.answered = answered


def handshake_end(exc: OSError, where: str) -> SessionEnd:
    """How a failed TLS handshake (or the first read after it) with the controller at ``where``
    ends the connection."""
    fault = link_tls.handshake_fault(exc)
    return SessionEnd(f"can not connect to {where}: TLS handshake failed: {fault.words}",
                      refusal=f"TLS refused: controller at {where}: {fault.words}"
                      if fault.certificate else "", after=REFUSAL_REPEATS,
                      answered=True)


class Refusals:
    """One link's refusals: how many connections in a row the same one ended, and the one
    logged last (each is logged once: it comes again at every retry until someone fixes it)."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self._last_logged = ""
        self._in_a_row: tuple[str, int] = ("", 0)  # (refusal, connections it ended)

    def accepted(self) -> None:
        """A HELLO was accepted: a refusal that comes back is logged again."""
        self._last_logged = ""

    def _log_once(self, detail: str) -> None:
        """Log a refusal once (it comes again at every retry until someone fixes it)."""
        if detail != self._last_logged:
            log.error("table %s: %s", self.table_id, detail)
            self._last_logged = detail

    def judge(self, end: SessionEnd) -> tuple[str, bool]:
        """The status detail of a connection's end, and whether it is a refusal (logged once)."""
        if not end.refusal:
            self._in_a_row = ("", 0)
            return str(end), False
        last, count = self._in_a_row
        count = count + 1 if end.refusal == last else 1
        self._in_a_row = (end.refusal, count)
        if count < end.after:
            return str(end), False
        self._log_once(end.refusal)
        return end.refusal, True
