"""A fake ESC/POS network printer for tests: a loopback TCP server that keeps every byte.

    with FakePrinter() as fp:
        NetworkPrinter("127.0.0.1", fp.port).send(data)
        assert fp.wait_for_job(timeout=5) == data

Each connection is one job (``jobs``, in the order they ended); ``received`` is every
byte of every connection.  Like an Epson TM-T88 it answers the real-time status queries
(``DLE EOT n``, n = 1..4: the configured status bytes, 0x12 = everything fine) at once, also in
the middle of a job, and ``GS r 1`` (paper sensor) once it has "printed" what came before it,
i.e. only while it is online; neither query is part of a job.  Faults to play:

- ``status``: the real-time answers before any job byte arrived on a connection, and
  ``status_after`` those once job bytes arrived (the cover opened or the cutter jammed while
  printing; a printer that is offline then never answers ``GS r``);
- ``paper_sensor``: the ``GS r 1`` answer (0x00 paper present, 0x03 near end, 0x0F end);
- ``answer_status=False``: answers nothing; ``stall_status=n``: the first ``n`` connections
  get no answer at all, the later ones do; ``confirm=False``: never answers ``GS r`` (a job
  that never finishes printing);
- ``read=False``: accepts connections and never reads a byte;
  ``stop_reading_after=n``: stops reading once ``n`` job bytes arrived (holds the connection);
- ``reset_after=n``: resets the connection (RST) once ``n`` job bytes arrived (keeps ``n``).

``closed_port()`` gives a port nobody listens on (a printer that is switched off).
"""

from __future__ import annotations

import re
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import TracebackType

# DLE EOT n (real-time status) and GS r n (transmit status, processed in order)
_QUERY = re.compile(rb"\x10\x04[\x01-\x04]|\x1dr[\x01\x02\x31\x32]")
_PREFIXES = (b"\x10", b"\x10\x04", b"\x1d", b"\x1dr")
STATUS_OK = {1: 0x12, 2: 0x12, 3: 0x12, 4: 0x12}
STATUS_COVER_OPEN = {1: 0x1A, 2: 0x16, 3: 0x12, 4: 0x12}  # offline, cover open
# offline, paper end (sensors 5/6 and near end)
STATUS_PAPER_OUT = {1: 0x1A, 2: 0x32, 3: 0x12, 4: 0x7E}
STATUS_PAPER_NEAR_END = {1: 0x12, 2: 0x12, 3: 0x12, 4: 0x1E}  # online, near-end sensor
STATUS_CUTTER_ERROR = {1: 0x1A, 2: 0x52, 3: 0x1A, 4: 0x12}  # offline, error: autocutter
STATUS_UNRECOVERABLE = {1: 0x1A, 2: 0x52, 3: 0x32, 4: 0x12}  # offline, error: unrecoverable
PAPER_PRESENT, PAPER_NEAR_END, PAPER_END = 0x00, 0x03, 0x0F


class FakePrinter:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 status: dict[int, int] | None = None,
                 status_after: dict[int, int] | None = None,
                 paper_sensor: int = PAPER_PRESENT, answer_status: bool = True,
                 confirm: bool = True,
                 stall_status: int = 0, read: bool = True,
                 stop_reading_after: int | None = None,
                 reset_after: int | None = None) -> None:
        self.host = host
        self._want_port = port
        self.status = dict(STATUS_OK if status is None else status)
        self.status_after = dict(status_after) if status_after is not None else None
        self.paper_sensor = paper_sensor
        self.answer_status = answer_status
        self.confirm = confirm
        self.stall_status = stall_status
        self.read = read
        self.stop_reading_after = stop_reading_after
        self.reset_after = reset_after
        self._cond = threading.Condition()
        self._received = bytearray()
        self._jobs: list[bytes] = []
        self._connections = 0
        self._status_queries = 0
        self._confirm_queries = 0
        self._sock: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> FakePrinter:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._want_port))
        sock.listen(8)
        sock.settimeout(0.2)
        self._sock = sock
        t = threading.Thread(target=self._accept_loop, name="fake-printer", daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._sock is not None:
            self._sock.close()
        for t in list(self._threads):
            t.join(timeout=5)

    def __enter__(self) -> FakePrinter:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._sock is not None, "start the FakePrinter first"
        return int(self._sock.getsockname()[1])

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    # -- what arrived ----------------------------------------------------------------
    @property
    def received(self) -> bytes:
        with self._cond:
            return bytes(self._received)

    @property
    def jobs(self) -> list[bytes]:
        with self._cond:
            return list(self._jobs)

    @property
    def connections(self) -> int:
        with self._cond:
            return self._connections

    @property
    def status_queries(self) -> int:
        """DLE EOT queries received (they are not part of any job)."""
        with self._cond:
            return self._status_queries

    @property
    def confirm_queries(self) -> int:
        """GS r queries received (not part of any job either)."""
        with self._cond:
            return self._confirm_queries

    def clear(self) -> None:
        with self._cond:
            self._received.clear()
            self._jobs.clear()

    def wait_for_bytes(self, count: int = 1, timeout: float = 5.0) -> bytes:
        """Wait until at least ``count`` bytes arrived; returns everything received."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._received) >= count, timeout):
                raise TimeoutError(f"fake printer: {len(self._received)} of {count} bytes "
                                   f"after {timeout} s")
            return bytes(self._received)

    def wait_for_job(self, timeout: float = 5.0, index: int = -1) -> bytes:
        """Wait until a connection has ended; returns its bytes (the last by default)."""
        need = 1 if index < 0 else index + 1
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._jobs) >= need, timeout):
                raise TimeoutError(f"fake printer: no finished job after {timeout} s")
            return self._jobs[index]

    # -- server ----------------------------------------------------------------------
    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._cond:
                self._connections += 1
                number = self._connections
            t = threading.Thread(target=self._serve, args=(conn, number), daemon=True)
            t.start()
            self._threads.append(t)

    def _answer(self, conn: socket.socket, query: bytes, job: bytearray, stalled: bool) -> None:
        if stalled or not self.answer_status:
            return
        now = self.status_after if job and self.status_after is not None else self.status
        if query[0] == 0x10:  # DLE EOT n: at once
            answer = now.get(query[2], 0x12)
        elif query[2] in (1, 0x31):  # GS r 1: only once what came before is printed
            if now.get(1, 0x12) & 0x08 or not self.confirm:  # offline: not processed
                return
            answer = self.paper_sensor
        else:  # GS r 2: drawer kick-out connector
            answer = 0x00
        with suppress(OSError):
            conn.sendall(bytes([answer]))

    def _serve(self, conn: socket.socket, number: int) -> None:
        job = bytearray()
        pending = b""
        stalled = number <= self.stall_status
        reset = False
        conn.settimeout(0.2)
        try:
            while not self._stopping.is_set():
                if not self.read or self._stopped_reading(job):
                    self._stopping.wait(0.05)  # holds the connection, reads nothing
                    continue
                try:
                    chunk = conn.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not chunk:
                    self._take(job, pending)  # a job may end in a byte a query starts with
                    break
                window = pending + chunk
                keep = next((len(p) for p in sorted(_PREFIXES, key=len, reverse=True)
                             if window.endswith(p)), 0)
                work, pending = (window[:-keep], window[-keep:]) if keep else (window, b"")
                pos = 0
                for m in _QUERY.finditer(work):
                    reset = self._take(job, work[pos:m.start()])
                    if reset or self._stopped_reading(job):
                        break  # (what came after in the chunk is as good as never read)
                    with self._cond:
                        if m.group()[0] == 0x10:
                            self._status_queries += 1
                        else:
                            self._confirm_queries += 1
                    self._answer(conn, m.group(), job, stalled)
                    pos = m.end()
                else:
                    reset = self._take(job, work[pos:])
                if reset:
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    break
        finally:
            conn.close()
            with self._cond:
                self._jobs.append(bytes(job))
                self._cond.notify_all()

    def _stopped_reading(self, job: bytearray) -> bool:
        return self.stop_reading_after is not None and len(job) >= max(1,
                                                                        self.stop_reading_after)

    def _take(self, job: bytearray, data: bytes) -> bool:
        """Keep ``data`` as job bytes; True when the connection is to be reset now."""
        limit = self.reset_after
        if limit is not None and len(job) + len(data) >= limit:
            data = data[:max(0, limit - len(job))]
        job += data
        with self._cond:
            self._received += data
            self._cond.notify_all()
        return limit is not None and len(job) >= limit


def closed_port(host: str = "127.0.0.1") -> int:
    """A port on ``host`` that nobody listens on (a printer that is switched off)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((host, 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


@contextmanager
def fake_printer(**kwargs: object) -> Iterator[FakePrinter]:
    """``with fake_printer() as fp:`` (same as ``with FakePrinter() as fp:``)."""
    fp = FakePrinter(**kwargs)  # type: ignore[arg-type]
    with fp:
        yield fp
