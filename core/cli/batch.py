"""Batch mode of the rules commands (CLI.md "Batch mode"): JSON lines in on stdin, one JSON line
out on stdout per input line, in order.

A command gives :func:`run_batch` a function from one line's text to the JSON document it prints
(one line, no newline).  A line it refuses (a ``ValueError`` naming the field and the problem)
becomes ``{"line": N, "error": "podium <command>: <message>"}``, the very line one call of the
command prints on stderr, and the batch goes on; the exit status is 2 when any line was refused,
else 0.  Input is read in chunks of whatever has arrived and the answers to a chunk are written
and flushed before the next read, so a script may also feed lines one at a time and read each
answer (a coprocess), while a file of 100,000 lines costs few writes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO, TextIO

from core.kernel.jsondoc import MAX_BYTES, parse_json_text
from core.kernel.text import printable

CHUNK = 1 << 16  # bytes read at a time (at most: read1 returns what has arrived)


def parse_line(text: str) -> object:
    """One input line as a JSON document, read as a case file is (``core.kernel.jsondoc``: numbers
    as int or Decimal, no key twice, bounded depth and numbers)."""
    return parse_json_text(text)


def error_line(command: str, number: int, message: str) -> str:
    return json.dumps({"line": number, "error": f"podium {command}: {printable(message)}"})


def _answer(command: str, number: int, raw: bytes,
            decide: Callable[[str], str]) -> tuple[str, bool]:
    """(the output line, whether it was decided)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return error_line(command, number, f"not UTF-8 text ({exc.reason} at byte "
                                            f"{exc.start})"), False
    try:
        return decide(text), True
    except ValueError as exc:  # CardError, SpinError, BbjError, JsonDocError ... name the field
        return error_line(command, number, str(exc)), False
    except RecursionError:
        return error_line(command, number, "the input is nested too deeply"), False


def _lines(stream: BinaryIO) -> Iterator[list[bytes | None]]:
    """Yield lists of complete lines (bytes, without the newline) as they arrive; a line longer
    than :data:`core.kernel.jsondoc.MAX_BYTES` comes as ``None`` (its bytes are not kept)."""
    read = getattr(stream, "read1", stream.read)
    tail = b""
    oversized = False
    while True:
        chunk = read(CHUNK)
        if not chunk:
            break
        parts = (tail + chunk).split(b"\n")
        tail = parts.pop()
        out: list[bytes | None] = []
        if oversized and parts:  # the rest of the oversized line ends in this chunk
            parts.pop(0)
            out.append(None)
            oversized = False
        out += parts
        if len(tail) > MAX_BYTES:
            oversized, tail = True, b""
        if out:
            yield out
    if oversized:
        yield [None]
    elif tail:
        yield [tail]


def run_batch(command: str, decide: Callable[[str], str], stdin: TextIO | None = None,
              stdout: TextIO | None = None) -> int:
    """Answer every line of ``stdin``; 0 when every line was decided, 2 when any was refused."""
    src = sys.stdin if stdin is None else stdin
    dst = sys.stdout if stdout is None else stdout
    raw: BinaryIO | None = getattr(src, "buffer", None)
    if raw is None:  # a text stream with no bytes under it (a test's StringIO)
        import io

        raw = io.BytesIO(src.read().encode("utf-8", "surrogateescape"))
    number = 0
    refused = False
    too_long = f"longer than {MAX_BYTES // (1024 * 1024)} MB; not one case"
    for lines in _lines(raw):
        out = []
        for line in lines:
            number += 1
            if line is None:
                out.append(error_line(command, number, too_long))
                refused = True
                continue
            text, decided = _answer(command, number, line, decide)
            refused = refused or not decided
            out.append(text)
        dst.write("\n".join(out) + "\n")
        dst.flush()
    return 2 if refused else 0
