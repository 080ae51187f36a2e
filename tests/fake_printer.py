"""A fake ESC/POS network printer for tests: a loopback TCP server that keeps every byte.

    with FakePrinter() as fp:
        NetworkPrinter("127.0.0.1", fp.port).send(data)
        assert fp.wait_for_job(timeout=5) == data

Each connection is one job (``jobs``, in the order they ended); ``received`` is every
byte of every connection.  Real-time status queries (``DLE EOT n``) are answered with
the configured status bytes (Epson: 0x12 = everything fine), like a real printer does,
also in the middle of a job.  ``closed_port()`` gives a port nobody listens on (a
printer that is switched off).
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

_STATUS_QUERY = re.compile(rb"\x10\x04[\x01-\x04]")
STATUS_OK = {1: 0x12, 2: 0x12, 4: 0x12}
STATUS_COVER_OPEN = {1: 0x1A, 2: 0x16, 4: 0x12}  # offline, cover open
STATUS_PAPER_OUT = {1: 0x1A, 2: 0x32, 4: 0x7E}  # offline, paper end (sensors 5/6 + near end)


class FakePrinter:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 status: dict[int, int] | None = None, answer_status: bool = True) -> None:
        self.host = host
        self._want_port = port
        self.status = dict(STATUS_OK if status is None else status)
        self.answer_status = answer_status
        self._cond = threading.Condition()
        self._received = bytearray()
        self._jobs: list[bytes] = []
        self._connections = 0
        self._status_queries = 0
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
        """DLE EOT queries answered (they are not part of any job)."""
        with self._cond:
            return self._status_queries

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
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _serve(self, conn: socket.socket) -> None:
        job = bytearray()
        tail = b""
        conn.settimeout(0.2)
        try:
            while not self._stopping.is_set():
                try:
                    chunk = conn.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                # a real-time status query (DLE EOT n) is answered, never printed
                data = _STATUS_QUERY.sub(b"", chunk)
                job += data
                with self._cond:
                    self._received += data
                    self._status_queries += len(_STATUS_QUERY.findall(chunk))
                    self._cond.notify_all()
                if self.answer_status:
                    window = tail + chunk
                    start = 0
                    while (k := window.find(b"\x10\x04", start)) >= 0 and k + 2 < len(window):
                        n = window[k + 2]
                        if n in self.status:
                            try:
                                conn.sendall(bytes([self.status[n]]))
                            except OSError:
                                break
                        start = k + 3
                    tail = window[-2:] if window.endswith((b"\x10", b"\x10\x04")) else b""
        finally:
            conn.close()
            with self._cond:
                self._jobs.append(bytes(job))
                self._cond.notify_all()


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
