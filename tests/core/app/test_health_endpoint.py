"""``podium serve --health HOST:PORT`` with bounds (issue 23, finding 8): a client that sends
half a request and waits holds no thread and is closed after the request timeout, a proper
``GET /health`` is answered during such a flood, a client that leaves is no traceback in the
log, and the JSON tells an unauthenticated caller only whether the service is healthy, why not,
and counts."""

from __future__ import annotations

import json
import logging
import selectors
import socket
import threading
import time
import urllib.request

import pytest

from core.cli.serve_command import _health_server

FLOOD = 800


class Core:
    """What ConsoleCore.health() returns, with what a caller must not be told."""

    def health(self) -> dict[str, object]:
        return {"service": "serve-A@cage-host-7", "kind": "serve", "service_id": 12,
                "started_at": "2026-12-05T08:00:00+00:00", "tables_wanted": 3,
                "tables_served": 3, "tables_online": 2, "offline": ["PG-3"],
                "feed_listening": True, "lock_connection": True,
                "writer": {"running": True, "batches": 3, "jobs": 9, "largest_batch": 4,
                           "waiting": 2, "oldest_wait_s": 0.1,
                           "last_commit": "2026-12-05T08:00:01+00:00", "problem": ""}}


def closed_by_server(socks: list[socket.socket], within: float) -> bool:
    """Whether the server closed every socket of ``socks`` (each reads end of file) before
    ``within`` seconds passed: waits on exactly that, with a selector."""
    deadline = time.monotonic() + within
    left = set(socks)
    with selectors.DefaultSelector() as sel:
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
        while left and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                try:
                    data = s.recv(4096)
                except ConnectionResetError:
                    data = b""
                if not data:
                    sel.unregister(s)
                    left.discard(s)
    return not left


def test_half_open_requests_hold_no_thread_and_are_closed_after_the_timeout(
        caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    before = threading.active_count()
    server = _health_server("127.0.0.1:0", Core(), timeout=1.0)
    port = server.server_address[1]
    socks: list[socket.socket] = []
    try:
        for _ in range(FLOOD):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # never the blank line
            socks.append(s)
        # the endpoint's one thread, whatever the number of connections
        assert threading.active_count() <= before + 1
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
            assert r.status == 200 and json.loads(r.read())["healthy"] is True
        assert threading.active_count() <= before + 1
        assert closed_by_server(socks, within=30)  # the timeout is 1 s
        assert server.clients == 0
    finally:
        for s in socks:
            s.close()
        server.shutdown()
    assert threading.active_count() <= before
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert "Traceback" not in capfd.readouterr().err


def test_a_client_that_leaves_is_no_traceback(caplog: pytest.LogCaptureFixture,
                                              capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    server = _health_server("127.0.0.1:0", Core(), timeout=1.0)
    port = server.server_address[1]
    try:
        for _ in range(50):  # ask and leave before the answer is read: reset on close
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.sendall(b"GET /health HTTP/1.1\r\n\r\n")
            s.close()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
            assert r.status == 200
    finally:
        server.shutdown()
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "Traceback" not in capfd.readouterr().err  # (http.server printed them there)


def test_the_health_document_names_no_host_service_nor_table() -> None:
    server = _health_server("127.0.0.1:0", Core())
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/health"
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.loads(r.read())
    finally:
        server.shutdown()
    assert body == {"healthy": True, "problem": "", "tables_wanted": 3, "tables_served": 3,
                    "tables_online": 2, "feed_listening": True, "lock_connection": True,
                    "writer": {"running": True, "batches": 3, "jobs": 9, "largest_batch": 4,
                               "waiting": 2, "oldest_wait_s": 0.1,
                               "last_commit": "2026-12-05T08:00:01+00:00"}}
    assert "cage-host" not in json.dumps(body) and "PG-3" not in json.dumps(body)


@pytest.mark.parametrize(("option", "value"), [
    ("--health", "8765"), ("--health", "127.0.0.1:"), ("--health", "127.0.0.1:99999"),
    ("--health", "h:1a"), ("--health", "127.0.0.1:\u0661\u0662"),
    ("--claim-interval", "nan"), ("--claim-interval", "0"), ("--claim-interval", "-1"),
    ("--health-every", "inf"), ("--health-every", "1e400"),
])
def test_a_malformed_serve_option_is_refused_before_the_ledger(
        option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from core.cli.dispatch import main

    # an unreachable ledger: the option is named first, nothing is opened
    try:
        code = main(["serve", "--floor", "demo", "--db",
                     "postgresql+psycopg://u@127.0.0.1:1/x", option, value])
    except SystemExit as exc:  # argparse's refusal
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith((f"podium serve: {option}", f"podium serve: argument {option}"))


def test_a_writer_that_does_not_commit_is_unhealthy_in_words() -> None:
    """/health and the health line follow ``healthy``: a writer that can not record, or whose
    oldest job waits past the bound, is a problem even with every table served and online
    (issue 24, item 3).  The watchdog (``alive``) stops only for the stuck writer: a full disk
    is unhealthy, but a restart would not help it."""
    from core.cli.serve_command import alive, health_document, healthy

    h = Core().health()
    stuck = ("the ledger writer is stuck: a job has waited 31 s for its commit (12 waiting); "
             "the last commit was at 08:00:01 UTC")
    h["writer"] = {"running": True, "batches": 3, "jobs": 9, "largest_batch": 4, "waiting": 12,
                   "oldest_wait_s": 31.0, "last_commit": "2026-12-05T08:00:01+00:00",
                   "problem": stuck, "stuck": True}
    assert healthy(h) == (False, stuck) and not alive(h)
    status, body = health_document(h)
    doc = json.loads(body)
    assert status == 503 and doc["problem"] == stuck
    assert doc["writer"]["oldest_wait_s"] == 31.0 and "problem" not in doc["writer"]
    full = "the ledger has recorded nothing for 40 s: the ledger's disk is full: 0 bytes free"
    h["writer"].update(problem=full, stuck=False)
    assert healthy(h) == (False, full) and alive(h)
    h["writer"]["running"] = False
    assert not alive(h)
