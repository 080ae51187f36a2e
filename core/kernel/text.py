"""One sanitizer for text that leaves Podium for paper or a terminal.

Names, reasons and notes are stored as they were given (the ledger keeps what was typed); they
are *shown* through :func:`printable`.  A control character reaching a receipt printer is a
command (ESC p opens the cash drawer, GS V cuts the paper), and one reaching a terminal is an
escape sequence (colours, a cleared screen, a rewritten line).  Every Unicode control, format,
surrogate, private-use and unassigned character (category C*) becomes ``?``, except the soft
hyphen; a line break or a tab becomes a space, so one field stays one line.
"""

from __future__ import annotations

import unicodedata

_SPACES = frozenset("\t\n\r\v\f\x85\u2028\u2029")
_KEPT = frozenset("\u00ad")  # a soft hyphen (format, Cf) is a character of every code page
REPLACEMENT = "?"


def printable(text: str) -> str:
    """``text`` with nothing a printer or a terminal would take as a command."""
    if text.isprintable():  # the usual case: nothing to do
        return text
    out = []
    for ch in text:
        if ch in _SPACES:
            out.append(" ")
        elif ch == " " or ch in _KEPT or ch.isprintable() or \
                not unicodedata.category(ch).startswith("C"):
            out.append(ch)  # isprintable() is False for the other spaces (Z*): keep them
        else:
            out.append(REPLACEMENT)
    return "".join(out)


def hit_ref(hit_id: int) -> str:
    """A hit as people read and write it, the same on every screen and paper: ``H50`` (the
    win slip's "Hit ref"; the hit queue, surveillance, the reports)."""
    return f"H{hit_id}"


def hit_number(text: str) -> int | None:
    """The hit a person typed: ``H50``, ``h50``, ``#50`` or ``50`` (None: not a hit number)."""
    t = text.strip().replace(",", "")
    if t[:1] in ("H", "h", "#"):
        t = t[1:]
    return int(t) if t.isdigit() and 0 < int(t) < 2**63 else None
