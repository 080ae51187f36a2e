"""Where slip bytes go: a network receipt printer (raw TCP, port 9100) or a folder.

Both take the finished ESC/POS bytes (``printing.escpos.slip.render_slip``) unchanged, so the
ledger's copy, the preview and the paper are the same bytes.  Every failure is a
:class:`PrinterError` whose message a supervisor understands and whose ``reason`` is a code
for the ledger, raised quickly: a printer that is switched off must not freeze the pay
workflow.

A network printer's job counts as printed only when the printer confirmed it (docs/ledger.md
"Print attempts").  On one connection, for every job:

1. ``DLE EOT 1``, ``2``, ``3``, ``4`` (real-time status: printer, offline cause, error cause,
   roll paper sensor; an Epson TM-T88 answers each with one byte at once, also when it is
   offline).  A printer that is not ready (cover open, paper out or nearly out, an error,
   offline) or does not answer within ``status_timeout`` is sent nothing.
2. ``before_send()`` (the caller records that the print started), then the job, which the
   printer must take whole within ``send_timeout`` (a printer that stopped reading fills the
   network buffers and the send stalls).
3. ``GS r 1`` (transmit paper sensor status).  Unlike ``DLE EOT`` it is not a real-time
   command: the printer answers it only once it has processed every byte before it, i.e.
   printed the slip and cut it.  Its answer (bit 4 always 0) must come within
   ``confirm_timeout``; real-time answers (bit 4 always 1) to a ``DLE EOT`` that happens to be
   inside the job are told apart and skipped.  No answer: ``DLE EOT`` says why if it can.
4. ``DLE EOT 1``-``4`` again: the printer must still be ready (no cover open, cutter error,
   paper end ... after the job).

Automatic Status Back (``GS a``) must be off (the TM-T88's default): its unasked four-byte
reports are not expected on the connection.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from core.tablegames.paper import BeforeSend, PrinterError

log = logging.getLogger("podium.printers")

DEFAULT_PORT = 9100
DEFAULT_TIMEOUT = 5.0  # connecting
DEFAULT_STATUS_TIMEOUT = 2.0  # a real-time status answer (DLE EOT) comes at once
DEFAULT_SEND_TIMEOUT = 10.0  # the whole job taken by the printer
DEFAULT_CONFIRM_TIMEOUT = 20.0  # the job printed and cut (GS r answered)
DLE_EOT = b"\x10\x04"
GS_R_PAPER = b"\x1dr\x01"  # GS r 1: transmit paper sensor status, after the data before it
STATUS_QUERIES = (1, 2, 3, 4)


def _reason(e: OSError) -> str:
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, TimeoutError):
        return "timed out"
    if isinstance(e, ConnectionResetError):
        return "connection reset by the printer"
    known = {errno.EHOSTUNREACH: "no route to host", errno.ENETUNREACH: "network unreachable",
             errno.EPIPE: "connection closed by the printer"}
    if e.errno in known:
        return known[e.errno]
    return (e.strerror or str(e) or type(e).__name__).lower()


def _check_data(data: object) -> bytes:
    if not isinstance(data, bytes | bytearray):
        raise PrinterError(f"slip data: expected bytes, got {type(data).__name__}",
                           reason="bad_data")
    if not data:
        raise PrinterError("slip data: nothing to print (0 bytes)", reason="bad_data")
    return bytes(data)


def _seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise PrinterError(f"printer {name}: must be more than 0 seconds, got {value!r}",
                           reason="settings")
    return float(value)


# (code, words) of each problem a status can report, most telling first
_FAULT_WORDS = {
    "cover_open": "cover open",
    "paper_out": "out of paper",
    "paper_near_end": "paper nearly out (change the roll)",
    "cutter_error": "cutter error (paper jammed at the cutter)",
    "mechanical_error": "mechanical error",
    "unrecoverable_error": "unrecoverable error (switch it off and on; call service if it stays)",
    "recoverable_error": "print head too hot (it goes on by itself when cool)",
    "printer_error": "printer error",
    "offline": "offline",
}


@dataclass(frozen=True)
class PrinterStatus:
    """The answers to ``DLE EOT 1, 2, 3, 4`` (printer, offline cause, error cause, roll paper
    sensor), Epson's real-time status bits.  ``ok``: ready to print a jackpot slip."""

    online: bool
    cover_open: bool
    paper_end: bool
    paper_near_end: bool
    error: bool
    raw: bytes
    cutter_error: bool = False
    mechanical_error: bool = False
    unrecoverable_error: bool = False
    recoverable_error: bool = False

    @property
    def ok(self) -> bool:
        return not self.faults()

    def faults(self) -> list[tuple[str, str]]:
        """(reason code, words) of every problem, the most telling first; [] when ready."""
        codes = []
        if self.cover_open:
            codes.append("cover_open")
        if self.paper_end:
            codes.append("paper_out")
        elif self.paper_near_end:
            codes.append("paper_near_end")
        for flag, code in ((self.cutter_error, "cutter_error"),
                           (self.mechanical_error, "mechanical_error"),
                           (self.unrecoverable_error, "unrecoverable_error"),
                           (self.recoverable_error, "recoverable_error")):
            if flag:
                codes.append(code)
        if self.error and not codes:
            codes.append("printer_error")
        if not self.online and not codes:
            codes.append("offline")
        return [(c, _FAULT_WORDS[c]) for c in codes]

    def problems(self) -> list[str]:
        return [words for _code, words in self.faults()]

    @classmethod
    def from_bytes(cls, printer: int, offline: int, error: int, paper: int) -> PrinterStatus:
        """From the answers to DLE EOT 1 (bit 3 offline), 2 (bit 2 cover open, bit 5 stopped
        at paper end, bit 6 error), 3 (bit 2 mechanical, bit 3 autocutter, bit 5
        unrecoverable, bit 6 auto-recoverable error) and 4 (bits 2-3 paper near end, bits
        5-6 paper end)."""
        return cls(online=not printer & 0x08, cover_open=bool(offline & 0x04),
                   paper_end=bool(offline & 0x20) or bool(paper & 0x60),
                   paper_near_end=bool(paper & 0x0C), error=bool(offline & 0x40),
                   raw=bytes([printer, offline, error, paper]),
                   cutter_error=bool(error & 0x08), mechanical_error=bool(error & 0x04),
                   unrecoverable_error=bool(error & 0x20),
                   recoverable_error=bool(error & 0x40))


def _is_realtime_answer(b: int) -> bool:
    # Epson real-time status (DLE EOT): bits 1 and 4 are always 1, bits 0 and 7 always 0.
    return b & 0x93 == 0x12


def _is_paper_answer(b: int) -> bool:
    # GS r 1: bits 0-1 paper near end, bits 2-3 paper end, bits 4-7 always 0.
    return b & 0xF0 == 0


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def left(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left


class NetworkPrinter:
    """An ESC/POS printer on raw TCP (``host:9100``) that confirms every job (the module's
    docstring); connecting fails within ``timeout`` seconds, a status answer within
    ``status_timeout``, the job's bytes within ``send_timeout``, the confirmation within
    ``confirm_timeout``."""

    def __init__(self, host: str, port: int = DEFAULT_PORT,
                 timeout: float = DEFAULT_TIMEOUT, *,
                 status_timeout: float = DEFAULT_STATUS_TIMEOUT,
                 send_timeout: float = DEFAULT_SEND_TIMEOUT,
                 confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT) -> None:
        if not isinstance(host, str) or not host.strip():
            raise PrinterError("printer host: must be a host name or IP address, got nothing",
                               reason="settings")
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise PrinterError(f"printer port: must be 1 to 65535, got {port!r}",
                               reason="settings")
        self.host = host.strip()
        self.port = port
        self.timeout = _seconds("timeout", timeout)
        self.status_timeout = _seconds("status_timeout", status_timeout)
        self.send_timeout = _seconds("send_timeout", send_timeout)
        self.confirm_timeout = _seconds("confirm_timeout", confirm_timeout)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def __repr__(self) -> str:
        return (f"NetworkPrinter({self.host!r}, port={self.port}, timeout={self.timeout}, "
                f"status_timeout={self.status_timeout}, send_timeout={self.send_timeout}, "
                f"confirm_timeout={self.confirm_timeout})")

    def _connect(self) -> socket.socket:
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except socket.gaierror:
            raise PrinterError(f"Printer {self}: host {self.host!r} is unknown "
                               f"(name lookup failed); check the printer address",
                               reason="unknown_host") from None
        except TimeoutError:
            raise PrinterError(f"Printer {self} does not answer within {self.timeout:g} s "
                               f"(timed out); is it switched on and on the network?",
                               reason="connect_timeout") from None
        except OSError as e:
            raise PrinterError(f"Printer {self} does not answer ({_reason(e)}); "
                               f"is it switched on and on the network?",
                               reason="refused" if isinstance(e, ConnectionRefusedError)
                               else "unreachable") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def send(self, data: bytes, name: int | str | None = None, *,
             before_send: BeforeSend | None = None) -> None:
        """Print ``data`` exactly as given and return only once the printer confirmed it
        (``name`` is ignored: it names files).  Raises :class:`PrinterError` otherwise; its
        ``sent`` says whether any byte of the job went out."""
        payload = _check_data(data)
        total = len(payload)
        sock = self._connect()
        try:
            before = self._status_on(sock, total=total, sent=0)
            if before.faults():
                code = before.faults()[0][0]
                raise PrinterError(f"Printer {self}: {', '.join(before.problems())}; nothing "
                                   f"was sent. Fix the printer, then print again",
                                   reason=code, total=total)
            if before_send is not None:
                before_send()  # raises: nothing is sent
            self._write(sock, payload)
            self._confirm(sock, total)
            after = self._status_on(sock, total=total, sent=total, after=True)
            if after.faults():
                code = after.faults()[0][0]
                raise PrinterError(f"Printer {self} took the slip ({total:,} bytes) but then "
                                   f"reported: {', '.join(after.problems())}. The slip may be "
                                   f"partly printed or not cut: check the printer, then print "
                                   f"again", reason=code, sent=total, total=total)
        finally:
            sock.close()

    def _write(self, sock: socket.socket, payload: bytes) -> int:
        total = len(payload)
        sent = 0
        deadline = _Deadline(self.send_timeout)
        view = memoryview(payload)
        try:
            while sent < total:
                sock.settimeout(deadline.left())
                sent += sock.send(view[sent:sent + 65536])
        except TimeoutError:
            raise PrinterError(f"Printer {self} stopped taking data after {sent:,} of "
                               f"{total:,} bytes (not read within {self.send_timeout:g} s); "
                               f"check paper and cover, then print again",
                               reason="not_reading", sent=sent, total=total) from None
        except OSError as e:
            raise PrinterError(f"Printer {self} lost the connection after {sent:,} of "
                               f"{total:,} bytes ({_reason(e)}); print the slip again",
                               reason="connection_lost", sent=sent, total=total) from None
        return sent

    def _recv_answer(self, sock: socket.socket, deadline: _Deadline, *, realtime: bool,
                     total: int, sent: int) -> int:
        """The next answer byte of the wanted kind (real-time DLE EOT, or GS r 1); answers of
        the other kind are skipped (a DLE EOT inside the job, a late GS r answer)."""
        while True:
            sock.settimeout(deadline.left())
            b = sock.recv(1)
            if not b:
                raise PrinterError(f"Printer {self} closed the connection before it "
                                   f"confirmed the slip" if sent else
                                   f"Printer {self} closed the connection when asked for its "
                                   f"status; nothing was sent", reason="connection_lost",
                                   sent=sent, total=total)
            if _is_realtime_answer(b[0]):
                if realtime:
                    return b[0]
                continue
            if _is_paper_answer(b[0]):
                if not realtime:
                    return b[0]
                continue
            raise PrinterError(f"Printer {self} gave a status answer it should not "
                               f"({b[0]:#04x}); is it an ESC/POS printer with Automatic Status "
                               f"Back off?", reason="bad_status", sent=sent, total=total)

    def _ask_status(self, sock: socket.socket, deadline: _Deadline, *, total: int = 0,
                    sent: int = 0) -> PrinterStatus:
        answers = []
        for n in STATUS_QUERIES:
            sock.sendall(DLE_EOT + bytes([n]))
            answers.append(self._recv_answer(sock, deadline, realtime=True, total=total,
                                             sent=sent))
        return PrinterStatus.from_bytes(*answers)

    def _status_on(self, sock: socket.socket, *, total: int, sent: int,
                   after: bool = False) -> PrinterStatus:
        """The real-time status on the job's connection, asked for every job (a printer that
        stalled once is asked again next time)."""
        try:
            return self._ask_status(sock, _Deadline(self.status_timeout), total=total,
                                    sent=sent)
        except TimeoutError:
            if after:
                raise PrinterError(f"Printer {self} took the slip ({total:,} bytes) but did not "
                                   f"report its status within {self.status_timeout:g} s; the "
                                   f"slip may be printed: check the printer, then print again",
                                   reason="no_status", sent=sent, total=total) from None
            raise PrinterError(f"Printer {self} did not report its status within "
                               f"{self.status_timeout:g} s; nothing was sent. Is it an ESC/POS "
                               f"printer, switched on and ready?", reason="no_status",
                               total=total) from None
        except OSError as e:
            raise PrinterError(f"Printer {self} lost the connection while asked for its status "
                               f"({_reason(e)})" + ("; the slip may be printed: check the "
                                                    "printer, then print again" if sent
                                                    else "; nothing was sent"),
                               reason="connection_lost", sent=sent, total=total) from None

    def _confirm(self, sock: socket.socket, total: int) -> None:
        """GS r 1 after the job: answered once the printer has processed (printed and cut)
        every byte before it."""
        deadline = _Deadline(self.confirm_timeout)
        try:
            sock.settimeout(deadline.left())
            sock.sendall(GS_R_PAPER)
            paper = self._recv_answer(sock, deadline, realtime=False, total=total, sent=total)
        except TimeoutError:
            why = self._why_not_confirmed(sock, total)
            raise PrinterError(f"Printer {self} took the slip ({total:,} bytes) but did not "
                               f"confirm printing it within {self.confirm_timeout:g} s"
                               + (f" ({', '.join(w for _c, w in why)})" if why else "")
                               + ". The slip may be partly printed: check the printer, then "
                               "print again", reason=why[0][0] if why else "not_confirmed",
                               sent=total, total=total) from None
        except OSError as e:
            raise PrinterError(f"Printer {self} lost the connection after the slip was sent, "
                               f"before it confirmed printing it ({_reason(e)}). The slip may "
                               f"be partly printed: check the printer, then print again",
                               reason="connection_lost", sent=total, total=total) from None
        if paper & 0x0C:
            raise PrinterError(f"Printer {self} ran out of paper with the slip; it may be "
                               f"partly printed: load paper, then print again",
                               reason="paper_out", sent=total, total=total)

    def _why_not_confirmed(self, sock: socket.socket, total: int) -> list[tuple[str, str]]:
        """What the real-time status says when the job was not confirmed (nothing when it
        does not answer either)."""
        try:
            return self._ask_status(sock, _Deadline(self.status_timeout), total=total,
                                    sent=total).faults()
        except (OSError, PrinterError):
            return []

    def status(self) -> PrinterStatus:
        """Ask the printer for its real-time status (``DLE EOT 1`` to ``4``)."""
        sock = self._connect()
        try:
            return self._ask_status(sock, _Deadline(self.status_timeout))
        except TimeoutError:
            raise PrinterError(f"Printer {self} takes data but does not report its status "
                               f"within {self.status_timeout:g} s", reason="no_status") from None
        except OSError as e:
            raise PrinterError(f"Printer {self} status query failed ({_reason(e)})",
                               reason="connection_lost") from None
        finally:
            sock.close()


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class FilePrinter:
    """Writes each slip to ``<directory>/slip-<n>.bin`` (demo, tests, printers on a share)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        if not str(directory).strip():
            raise PrinterError("printer directory: must be a folder path, got nothing",
                               reason="settings")
        self.directory = Path(directory)

    def __str__(self) -> str:
        return str(self.directory)

    def __repr__(self) -> str:
        return f"FilePrinter({str(self.directory)!r})"

    def _next_number(self) -> int:
        numbers = [int(m.group(1)) for p in self.directory.glob("slip-*.bin")
                   if (m := re.fullmatch(r"slip-(\d+)\.bin", p.name))]
        return max(numbers, default=0) + 1

    def send(self, data: bytes, name: int | str | None = None, *,
             before_send: BeforeSend | None = None) -> Path:
        """Write ``data`` to ``slip-<name>.bin`` (the slip number; next free number when
        None).  An existing file is never overwritten: a reprint becomes ``slip-<n>-2.bin``.
        The file written and flushed to the disk is the confirmation."""
        payload = _check_data(data)
        if name is None:
            stem = None
        elif isinstance(name, int) and not isinstance(name, bool) and name >= 0:
            stem = str(name)
        elif isinstance(name, str) and _SAFE_NAME.fullmatch(name):
            stem = name
        else:
            raise PrinterError(f"slip file name: {name!r} must be a slip number or letters, "
                               f"digits, '-', '_' and '.'", reason="bad_data")
        if before_send is not None:
            before_send()  # raises: nothing is written
        total = len(payload)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if stem is None:
                stem = str(self._next_number())
            for copy in range(1, 1000):
                path = self.directory / (f"slip-{stem}.bin" if copy == 1
                                         else f"slip-{stem}-{copy}.bin")
                try:
                    with open(path, "xb", buffering=0) as f:
                        self._write(f, path, payload)
                except FileExistsError:
                    continue
                return path
        except OSError as e:
            raise PrinterError(f"Printer folder {self.directory} can not be written "
                               f"({_reason(e)})", reason="file_error", total=total) from None
        raise PrinterError(f"Printer folder {self.directory}: too many copies of slip {stem}",
                           reason="file_error", total=total)

    def _write(self, f: io.FileIO, path: Path, payload: bytes) -> None:
        """The whole slip into the new file ``f`` (unbuffered), flushed to the disk and closed.
        A failure says how many bytes the file holds: a full disk takes the part of a write that
        fits, and only the next write fails."""
        total = len(payload)
        written = 0
        view = memoryview(payload)
        try:
            while written < total:
                written += f.write(view[written:])
            os.fsync(f.fileno())
            f.close()  # here: a failure to close is a failure to write
        except OSError as e:
            raise PrinterError(f"Printer folder {self.directory}: {path.name} holds {written:,} "
                               f"of the slip's {total:,} bytes ({_reason(e)}); print the slip "
                               f"again", reason="file_error", sent=written,
                               total=total) from None


def printer_from_config(kind: str, host: str | None = None, port: int | None = DEFAULT_PORT,
                        directory: str | os.PathLike[str] | None = None,
                        timeout: float = DEFAULT_TIMEOUT, *,
                        status_timeout: float = DEFAULT_STATUS_TIMEOUT,
                        send_timeout: float = DEFAULT_SEND_TIMEOUT,
                        confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT,
                        ) -> NetworkPrinter | FilePrinter | None:
    """The printer the settings describe: ``kind`` is ``network``, ``file`` or ``none``."""
    k = (kind or "").strip().lower()
    if k == "network":
        if not host:
            raise PrinterError("printer host: a network printer needs a host name or IP address",
                               reason="settings")
        return NetworkPrinter(host, DEFAULT_PORT if port is None else port, timeout,
                              status_timeout=status_timeout, send_timeout=send_timeout,
                              confirm_timeout=confirm_timeout)
    if k == "file":
        if directory is None or not str(directory).strip():
            raise PrinterError("printer directory: a file printer needs a folder",
                               reason="settings")
        return FilePrinter(directory)
    if k in ("none", "off", ""):
        return None
    raise PrinterError(f"printer kind: {kind!r} is not one of network, file, none",
                       reason="settings")
