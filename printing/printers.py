"""Where slip bytes go: a network receipt printer (raw TCP, port 9100) or a folder.

Both take the finished ESC/POS bytes (``printing.slip.render_slip``) unchanged, so the
ledger's copy, the preview and the paper are the same bytes.  Every failure is a
:class:`PrinterError` whose message a supervisor understands, raised quickly: a printer
that is switched off must not freeze the pay workflow.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger("podium.printers")

DEFAULT_PORT = 9100
DEFAULT_TIMEOUT = 5.0
STATUS_TIMEOUT = 1.0  # a printer that has not answered DLE EOT by then does not answer it
DLE_EOT = b"\x10\x04"


class PrinterError(ValueError):
    """The slip could not be printed; the message says which printer and why."""


class Printer(Protocol):
    def send(self, data: bytes, name: int | str | None = None) -> Path | None:
        """Deliver ``data``; a file printer returns the file written."""
        ...


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
        raise PrinterError(f"slip data: expected bytes, got {type(data).__name__}")
    if not data:
        raise PrinterError("slip data: nothing to print (0 bytes)")
    return bytes(data)


@dataclass(frozen=True)
class PrinterStatus:
    """The answer to ``DLE EOT 1, 2, 4`` (printer, offline cause, roll paper sensor)."""

    online: bool
    cover_open: bool
    paper_end: bool
    paper_near_end: bool
    error: bool
    raw: bytes

    @property
    def ok(self) -> bool:
        return self.online and not (self.cover_open or self.paper_end or self.error)

    def problems(self) -> list[str]:
        out = []
        if self.cover_open:
            out.append("cover open")
        if self.paper_end:
            out.append("out of paper")
        elif self.paper_near_end:
            out.append("paper nearly out")
        if self.error:
            out.append("printer error (cutter jam or overheating)")
        if not self.online and not out:
            out.append("offline")
        return out

    @classmethod
    def from_bytes(cls, printer: int, offline: int, paper: int) -> PrinterStatus:
        return cls(online=not printer & 0x08, cover_open=bool(offline & 0x04),
                   paper_end=bool(offline & 0x20) or bool(paper & 0x60),
                   paper_near_end=bool(paper & 0x0C), error=bool(offline & 0x40),
                   raw=bytes([printer, offline, paper]))


def _valid_status_byte(b: int) -> bool:
    # Epson real-time status: bits 1 and 4 are always 1, bits 0 and 7 always 0.
    return b & 0x93 == 0x12


class NetworkPrinter:
    """An ESC/POS printer on raw TCP (``host:9100``); fails within ``timeout`` seconds."""

    def __init__(self, host: str, port: int = DEFAULT_PORT,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        if not isinstance(host, str) or not host.strip():
            raise PrinterError("printer host: must be a host name or IP address, got nothing")
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise PrinterError(f"printer port: must be 1 to 65535, got {port!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise PrinterError(f"printer timeout: must be more than 0 seconds, got {timeout!r}")
        self.host = host.strip()
        self.port = port
        self.timeout = float(timeout)
        # None: not asked yet; False: the device does not answer DLE EOT (then it is not asked
        # again: each send would wait STATUS_TIMEOUT for nothing)
        self.answers_status: bool | None = None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def __repr__(self) -> str:
        return f"NetworkPrinter({self.host!r}, port={self.port}, timeout={self.timeout})"

    def _connect(self) -> socket.socket:
        try:
            return socket.create_connection((self.host, self.port), timeout=self.timeout)
        except socket.gaierror:
            raise PrinterError(f"Printer {self}: host {self.host!r} is unknown "
                               f"(name lookup failed); check the printer address") from None
        except TimeoutError:
            raise PrinterError(f"Printer {self} does not answer within {self.timeout:g} s "
                               f"(timed out); is it switched on and on the network?") from None
        except OSError as e:
            raise PrinterError(f"Printer {self} does not answer ({_reason(e)}); "
                               f"is it switched on and on the network?") from None

    def send(self, data: bytes, name: int | str | None = None) -> None:
        """Send ``data`` exactly as given.  ``name`` is ignored (it names files).

        On the same connection, first ask the printer's real-time status: a printer that
        reports its cover open, no paper or an error gets nothing (the slip stays to be
        printed) instead of swallowing the job.  A device that does not answer status within
        STATUS_TIMEOUT is sent the data anyway and not asked again."""
        payload = _check_data(data)
        sock = self._connect()
        sent = 0
        try:
            before = self._status_on(sock) if self.answers_status is not False else None
            if before is not None and not before.ok:
                raise PrinterError(f"Printer {self}: {', '.join(before.problems())}; nothing "
                                   f"was printed. Fix the printer, then print again")
            view = memoryview(payload)
            while sent < len(payload):
                sent += sock.send(view[sent:])
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
        except TimeoutError:
            raise PrinterError(f"Printer {self} stopped taking data after {sent} of "
                               f"{len(payload)} bytes (timed out); check paper and cover, "
                               f"then reprint") from None
        except OSError as e:
            raise PrinterError(f"Printer {self} lost the connection after {sent} of "
                               f"{len(payload)} bytes ({_reason(e)}); reprint the slip") from None
        finally:
            sock.close()

    def _ask_status(self, sock: socket.socket) -> PrinterStatus:
        answers = []
        for n in (1, 2, 4):
            sock.sendall(DLE_EOT + bytes([n]))
            b = sock.recv(1)
            if not b:
                raise PrinterError(f"Printer {self} closed the connection when asked "
                                   f"for its status")
            if not _valid_status_byte(b[0]):
                raise PrinterError(f"Printer {self} gave a status answer it should not "
                                   f"({b[0]:#04x}); is it an ESC/POS printer?")
            answers.append(b[0])
        return PrinterStatus.from_bytes(*answers)

    def _status_on(self, sock: socket.socket) -> PrinterStatus | None:
        """The status asked on an open connection before a job; None when the device does
        not answer DLE EOT (remembered) or answers something else."""
        sock.settimeout(min(STATUS_TIMEOUT, self.timeout))
        try:
            st = self._ask_status(sock)
        except TimeoutError:
            self.answers_status = False
            return None
        except PrinterError as exc:  # an answer that is not Epson's: print without status
            self.answers_status = False
            log.warning("%s; printing without status checks", exc)
            return None
        finally:
            sock.settimeout(self.timeout)
        self.answers_status = True
        return st

    def status(self) -> PrinterStatus:
        """Ask the printer for its real-time status (``DLE EOT 1``, ``2`` and ``4``)."""
        sock = self._connect()
        try:
            return self._ask_status(sock)
        except TimeoutError:
            raise PrinterError(f"Printer {self} takes data but does not report its status "
                               f"within {self.timeout:g} s") from None
        except OSError as e:
            raise PrinterError(f"Printer {self} status query failed ({_reason(e)})") from None
        finally:
            sock.close()


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class FilePrinter:
    """Writes each slip to ``<directory>/slip-<n>.bin`` (demo, tests, printers on a share)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        if not str(directory).strip():
            raise PrinterError("printer directory: must be a folder path, got nothing")
        self.directory = Path(directory)

    def __str__(self) -> str:
        return str(self.directory)

    def __repr__(self) -> str:
        return f"FilePrinter({str(self.directory)!r})"

    def _next_number(self) -> int:
        numbers = [int(m.group(1)) for p in self.directory.glob("slip-*.bin")
                   if (m := re.fullmatch(r"slip-(\d+)\.bin", p.name))]
        return max(numbers, default=0) + 1

    def send(self, data: bytes, name: int | str | None = None) -> Path:
        """Write ``data`` to ``slip-<name>.bin`` (the slip number; next free number when
        None).  An existing file is never overwritten: a reprint becomes ``slip-<n>-2.bin``."""
        payload = _check_data(data)
        if name is None:
            stem = None
        elif isinstance(name, int) and not isinstance(name, bool) and name >= 0:
            stem = str(name)
        elif isinstance(name, str) and _SAFE_NAME.fullmatch(name):
            stem = name
        else:
            raise PrinterError(f"slip file name: {name!r} must be a slip number or letters, "
                               f"digits, '-', '_' and '.'")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if stem is None:
                stem = str(self._next_number())
            for copy in range(1, 1000):
                path = self.directory / (f"slip-{stem}.bin" if copy == 1
                                         else f"slip-{stem}-{copy}.bin")
                try:
                    with open(path, "xb") as f:
                        f.write(payload)
                        f.flush()
                        os.fsync(f.fileno())
                    return path
                except FileExistsError:
                    continue
        except OSError as e:
            raise PrinterError(f"Printer folder {self.directory} can not be written "
                               f"({_reason(e)})") from None
        raise PrinterError(f"Printer folder {self.directory}: too many copies of slip {stem}")


def printer_from_config(kind: str, host: str | None = None, port: int | None = DEFAULT_PORT,
                        directory: str | os.PathLike[str] | None = None,
                        timeout: float = DEFAULT_TIMEOUT) -> NetworkPrinter | FilePrinter | None:
    """The printer the settings describe: ``kind`` is ``network``, ``file`` or ``none``."""
    k = (kind or "").strip().lower()
    if k == "network":
        if not host:
            raise PrinterError("printer host: a network printer needs a host name or IP address")
        return NetworkPrinter(host, DEFAULT_PORT if port is None else port, timeout)
    if k == "file":
        if directory is None or not str(directory).strip():
            raise PrinterError("printer directory: a file printer needs a folder")
        return FilePrinter(directory)
    if k in ("none", "off", ""):
        return None
    raise PrinterError(f"printer kind: {kind!r} is not one of network, file, none")
