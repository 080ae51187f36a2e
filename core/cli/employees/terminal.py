"""The operator's terminal: the card is never typed on the command line (it would land in the
shell history): a swipe is ONE line of track data read from stdin as a keyboard-wedge reader
types it, without echo when stdin is a terminal and plainly from a pipe (scripted enrollment);
so is a PIN.  Track data, card numbers and PINs are never printed, logged or put in a message.
What the command says is one line through the sanitizer; the card gate's log lines stay off
the terminal."""

from __future__ import annotations

import getpass
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from core.cli.employees.records import EmployeeError
from core.kernel.text import printable
from core.people.auth import PIN_DIGITS, AuthError, Credential


def read_swipe(prompt: str, stdin: TextIO | None = None) -> str:
    """One line of track data from stdin: without echo on a terminal, plain from a pipe.

    AuthError (bad_read) when nothing arrives (end of input)."""
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        raise AuthError("card read: no input to read the swipe from", "bad_read")
    try:
        if stream.isatty():
            line = getpass.getpass(prompt, stream=sys.stderr)
        else:
            line = stream.readline()
            if not line:
                raise AuthError("card read: nothing was read (end of input); "
                                "swipe the card again", "bad_read")
    except EOFError:
        raise AuthError("card read: nothing was read (end of input); swipe the card again",
                        "bad_read") from None
    return line


def read_pin(prompt: str, stdin: TextIO | None = None) -> str:
    """One PIN: without echo on a terminal, one line from a pipe (never echoed or logged)."""
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        raise EmployeeError("PIN: no input to read it from")
    if stream.isatty():
        return getpass.getpass(prompt, stream=sys.stderr).strip()
    line = stream.readline()
    if not line:
        raise EmployeeError("PIN: nothing was read (end of input)")
    return line.strip()


def read_approval() -> Credential:
    """The approving executive's swipe and PIN, after the subject's swipe (stdin: one line
    each, no echo on a terminal)."""
    swipe = read_swipe("Executive: swipe your card to approve: ")
    pin = read_pin("Executive PIN: ")
    if not PIN_DIGITS.fullmatch(pin):
        raise AuthError("executive's PIN: a PIN is 4 to 12 digits; nothing was changed",
                        "bad_read")
    return Credential(swipe, pin)


def say(text: str) -> None:
    """One line for the operator's terminal: names as stored, never a terminal command."""
    print(printable(text))


@contextmanager
def quiet_logs() -> Iterator[None]:
    """The command's refusals are its one line on stderr: the card gate's log lines (a card
    locked after its fifth refusal) stay out of the terminal when no logging is configured
    (Python's last-resort handler would print them as a second line)."""
    logger = logging.getLogger("podium")
    quiet = logging.NullHandler()
    logger.addHandler(quiet)
    try:
        yield
    finally:
        logger.removeHandler(quiet)
