"""The paper port: what core needs from ``printing``, as protocols core owns.

Core never imports ``printing`` (an import-linter contract, docs/architecture.md).  It says
here what it needs from paper, and the app wiring (``gui/app.py``, the ``podium`` commands
that build a floor) passes printing's implementation in:

- :class:`SlipPaper`: a win slip's bytes (rendered inside the pay's transaction, so the ledger
  keeps exactly what the paper receives), a stored slip marked as a copy (reprint, duplicate)
  or as void;
- :class:`Printer`: where bytes go; a failure is a :class:`PrinterError` (printing's printers
  raise this very class).

Every :class:`~core.tablegames.floor.Floor` is given its paper (``paper=``, printing's
``printing.escpos.slip.PAPER`` in the wiring and the tests); there is no process-wide paper.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from core.tablegames.slip_record import VoidMark, WinSlip

BeforeSend = Callable[[], None]


class PrinterError(ValueError):
    """The slip could not be printed (or its print was not confirmed); the message says which
    printer and why.  ``reason`` is a code for the ledger (``cover_open``, ``not_confirmed``,
    ...: docs/ledger.md), ``sent`` how many of the job's ``total`` bytes were written to the
    printer before it failed (0: nothing can be on paper)."""

    def __init__(self, message: str, *, reason: str = "printer_error", sent: int = 0,
                 total: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.sent = sent
        self.total = total


class Printer(Protocol):
    """Where slip bytes go (``str(printer)`` names it in messages and the ledger)."""

    def send(self, data: bytes, name: int | str | None = None, *,
             before_send: BeforeSend | None = None) -> Path | None:
        """Deliver ``data``; ``before_send()`` is called once, right before the first byte goes
        out (if it raises, nothing is sent).  A file printer returns the file written.  Every
        failure is a :class:`PrinterError`."""
        ...


class SlipPaper(Protocol):
    """A win slip as printer bytes (pure: the same record or bytes give the same bytes)."""

    def render_slip(self, slip: WinSlip) -> bytes:
        """The bytes of ``slip`` as the printer receives them (kept in the ledger)."""
        ...

    def mark_copy(self, data: bytes, marking: str) -> bytes:
        """A stored slip's bytes as the next print sends them: as they are for ``""``, after
        the REPRINT banner for ``"reprint"``, after the DUPLICATE banner for ``"duplicate"``."""
        ...

    def mark_void(self, data: bytes, mark: VoidMark, timezone: str) -> bytes:
        """A voided slip's stored bytes as they are shown: after the VOID banner (times in the
        casino's ``timezone``)."""
        ...

