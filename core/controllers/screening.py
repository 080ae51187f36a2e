"""What of a controller's event the ledger can keep (docs/protocol.md, "Malformed frames").

Text a ledger can not store as it is (a lone surrogate, a NUL) is named (:func:`unstorable`) or
escaped (:func:`storable`, :func:`storable_json`); a refusal's reason is made one bounded line
(:func:`refusal_text`); an event made in code (a script, a test), which never went through the
decoder, is screened as the decoder screens the wire (:func:`event_problem`,
:func:`event_bounds_problem`): the ledger writer asks this of every event before it joins a batch.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

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
    BOUNDS,
    MAX_HAND_CHARS,
    MAX_ID_CHARS,
    MAX_REASON_CHARS,
    MAX_TIME_CHARS,
)
from core.kernel.cards import Card
from core.kernel.text import printable


def unstorable(text: str) -> str:
    """Why ``text`` can not be stored as it is ("" when it can): a ledger keeps text as UTF-8, and
    a lone surrogate (``"\\ud800"`` in JSON) has no UTF-8 form; PostgreSQL's text refuses NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"contains a lone surrogate (U+{ord(text[exc.start]):04X} at character "
                f"{exc.start + 1}): not text a ledger can store")
    if "\x00" in text:
        return f"contains a NUL character (at character {text.index(chr(0)) + 1})"
    return ""


def storable(text: str) -> str:
    """``text`` as a ledger can store it: a lone surrogate as the text ``\\ud800``, a NUL as
    ``\\u0000`` (what the JSON said), everything else as it is."""
    if not unstorable(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\u0000")


def refusal_text(reason: str) -> str:
    """A refusal's reason as it is kept (``refused_events.reason``) and sent (``ACK refused``):
    storable, printable on one line (:func:`core.kernel.text.printable`), at most
    :data:`MAX_REASON_CHARS` characters.  The same text again gives the same text."""
    text = printable(storable(reason))
    if len(text) > MAX_REASON_CHARS:
        text = text[:MAX_REASON_CHARS - 3] + "..."
    return text



def storable_json(v: Any) -> Any:
    """A decoded JSON value as every ledger's JSON column stores it: integers beyond 2**53 and
    numbers beyond a float (1e400: ``inf``) as strings, text through :func:`storable` (a NUL
    character as the text ``\\u0000``, a lone surrogate as ``\\ud800``)."""
    if isinstance(v, dict):
        return {storable_json(str(k)): storable_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [storable_json(x) for x in v]
    if type(v) is int and not -(2**53) < v < 2**53:
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, str):
        return storable(v)
    return v


def event_bounds_problem(event: ControllerEvent) -> str:
    """What in an event is outside the protocol's bounds ("" when nothing): the floor checks
    events that did not come through :func:`decode_frame` (a script, a test) the same way."""
    def out(what: str, v: int, bound: str) -> str:
        lo, hi = BOUNDS[bound]
        return "" if lo <= v <= hi else f"{what} {v} is out of range ({lo}..{hi})"

    problems = [out("round", event.round_no, "round")]
    if isinstance(event, GameStarted):
        problems += [out("wager seat", seat, "seat") for seat in event.wagers]
        problems += [out(f"seat {seat} wager", cents, "wager")
                     for seat, cents in event.wagers.items()]
    elif isinstance(event, (HitClaimed, Undone)) and event.seat is not None:
        problems.append(out("seat", event.seat, "seat"))
    return next((p for p in problems if p), "")


def event_problem(origin: Origin, event: ControllerEvent) -> str:
    """What in an event (with its origin) the ledger could not keep as it is ("" when nothing):
    a member of the wrong type, a number beyond its bound, text too long for its column, or text
    no ledger stores (a lone surrogate, a NUL, a control character).  The decoder refuses all of
    these on the wire; the ledger writer asks this of every event before it joins a batch, so
    that one an in-process caller made (a script, a test) is refused alone, by name."""
    def text(what: str, v: Any, limit: int, *, empty: bool = False) -> str:
        if not isinstance(v, str):
            return f"{what}: expected text, got {type(v).__name__}"
        if not v and not empty:
            return f"{what}: must not be empty"
        if len(v) > limit:
            return f"{what}: longer than {limit} characters"
        problem = unstorable(v)
        if problem:
            return f"{what}: {problem}"
        if any(unicodedata.category(ch) == "Cc" for ch in v):  # as the decoder
            return f"{what}: contains control characters"
        return ""

    def integer(what: str, v: Any) -> str:
        return "" if type(v) is int else f"{what}: expected an integer, got {type(v).__name__}"

    problems = [text("table", origin.table, MAX_ID_CHARS), text("boot", origin.boot, MAX_ID_CHARS),
                integer("seq", origin.seq),
                text("time", origin.controller_time, MAX_TIME_CHARS, empty=True)]
    if not isinstance(event, (GameStarted, HitClaimed, GameEnded, Undone, Misdealt)):
        problems.append(f"not a controller event ({type(event).__name__})")
        return next(p for p in problems if p)
    where = type(event).__name__
    problems.append(integer(f"{where}.round_no", event.round_no))
    if isinstance(event, GameStarted):
        if not isinstance(event.wagers, dict):
            problems.append(f"{where}.wagers: expected seat -> cents, got "
                            f"{type(event.wagers).__name__}")
        else:
            problems += [integer(f"{where}.wagers seat", seat) for seat in event.wagers]
            problems += [integer(f"{where}.wagers[{seat!r}]", cents)
                         for seat, cents in event.wagers.items()]
    elif isinstance(event, HitClaimed):
        problems += [integer(f"{where}.seat", event.seat),
                     text(f"{where}.hand", event.hand, MAX_HAND_CHARS)]
        if not isinstance(event.cards, tuple) or not all(isinstance(c, Card)
                                                         for c in event.cards):
            problems.append(f"{where}.cards: expected cards")
    elif isinstance(event, Undone):
        problems.append(text(f"{where}.what", event.what, MAX_ID_CHARS))
        if event.seat is not None:
            problems.append(integer(f"{where}.seat", event.seat))
    problem = next((p for p in problems if p), "")
    if problem:
        return problem
    bounds = event_bounds_problem(event)
    return f"{where}: {bounds}" if bounds else ""
