"""``podium serve``: the floor service, and ``podium services``: who serves which table.

``podium serve --floor floor.toml --db postgresql+psycopg://... [--pit A | --tables T1,T2]
[--name pit-a] [--health 127.0.0.1:8765]`` is a headless process that serves the controller
links of a set of tables (a pit, a list, or the whole floor): it ingests their events into the
ledger through the ledger writer, and carries every decided hit's PAY / REJECT to its table,
whichever podium decided it (it hears the consoles' decisions through the ledger's live feed).
It has no window and no printer; the consoles print.

A table is served by one service at a time (core/controllers/ownership.py): a table another
service holds is refused with a message naming that service, and this one stands by for it,
asking every second; a service that dies loses its tables to a standby within seconds.

Made to run for months under systemd (docs/podium-serve.service): logs go to stdout (journald
adds the time; ``--log-format plain`` without a journal adds it here), SIGTERM or SIGINT stop
it cleanly (links closed, every queued event committed, tables released for a standby at
once), ``Type=notify`` is told READY and, with ``WatchdogSec=``, kept alive while the service is
healthy.  ``--health HOST:PORT`` answers ``GET /health`` with a JSON document (200 healthy,
503 not: :class:`HealthServer`, one thread, a request timeout, a bounded number of connections,
only what an unauthenticated caller should know); a line of health goes to the log every
``--health-every`` seconds.

Exit status: 0 stopped cleanly; 2 could not start (the message says why).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

from core.cli.dispatch import UsageError
from core.cli.options import seconds

log = logging.getLogger("podium.serve")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    if name == "services":
        parser.add_argument("--floor", required=True, help="floor configuration file (TOML)")
        parser.add_argument("--db", required=True,
                            help="the shared ledger, postgresql+psycopg://user@host/podium")
        parser.add_argument("--json", action="store_true", help="print one JSON document")
        return
    parser.add_argument("--floor", required=True,
                        help="floor configuration file (TOML); 'demo' for the demo floor")
    parser.add_argument("--db", required=True,
                        help="the shared ledger, postgresql+psycopg://user@host/podium")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--pit", default=None, help="serve the tables of this pit")
    which.add_argument("--tables", default=None, metavar="T1,T2,...",
                       help="serve these tables (default: every table of the floor)")
    parser.add_argument("--name", default=None,
                        help="this service's name to the podiums (default serve@HOST, with "
                             "the pit)")
    parser.add_argument("--health", default=None, metavar="HOST:PORT",
                        help="answer GET /health there (JSON; 200 healthy, 503 not)")
    parser.add_argument("--health-every", type=seconds(1, 86_400, zero=True), default=60.0,
                        metavar="SECONDS",
                        help="a line of health in the log this often (default 60; 0: never)")
    parser.add_argument("--claim-interval", type=seconds(0.05, 3600), default=1.0,
                        metavar="SECONDS",
                        help="how often a table held by another service is asked for again "
                             "(default 1)")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--log-format", choices=("auto", "journal", "plain"), default="auto",
                        help="journal: no time stamp (journald adds it); plain: with one; "
                             "auto: journal when started by systemd")


def _configure_logging(level: str, fmt: str) -> None:
    journal = fmt == "journal" or (fmt == "auto" and bool(os.environ.get("JOURNAL_STREAM")))
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO), stream=sys.stdout,
        format="%(levelname)s %(name)s: %(message)s" if journal
        else "%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)


def _sd_notify(message: str) -> None:
    """Tell systemd (Type=notify) how the service is; nothing without $NOTIFY_SOCKET."""
    where = os.environ.get("NOTIFY_SOCKET")
    if not where:
        return
    if where.startswith("@"):
        where = "\0" + where[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.connect(where)
            s.sendall(message.encode())
    except OSError as exc:
        log.warning("systemd notify: %s", exc)


def healthy(h: dict[str, Any]) -> tuple[bool, str]:
    """Whether the service does its job, and if not, why (in words)."""
    if not h["writer"]["running"]:
        return False, "the ledger writer is not running"
    if h["writer"].get("problem"):  # it can not record, or a job waits past the bound
        return False, str(h["writer"]["problem"])
    if not h["lock_connection"]:
        return False, "no lock connection to the ledger: no table can be served"
    if not h["feed_listening"]:
        return False, "not listening to the ledger's feed: the consoles' decisions wait"
    return True, "ok"


def alive(h: dict[str, Any]) -> bool:
    """Whether systemd's watchdog is fed: the service can still make progress by itself.  A
    stuck ledger writer (a call that does not return) or a stopped one is not; a ledger that
    can not record (a full disk, a database gone) is unhealthy but alive: the writer tries it
    again every second and records when it can, and a restart would help nothing (it could not
    start on that ledger either)."""
    writer = h["writer"]
    return bool(writer["running"]) and not writer.get("stuck")


#: What ``GET /health`` tells a caller, who is not authenticated: whether the service does its
#: job, why not in words, and counts.  Not the host's or service's name, its id, start time
#: or which tables are down (ask podium services, on the ledger, for those).
HEALTH_FIELDS = ("tables_wanted", "tables_served", "tables_online", "feed_listening",
                 "lock_connection")
#: The ledger writer's figures it tells: jobs waiting for their commit, how long the oldest has
#: waited (seconds, null when none waits) and the time of the last commit (UTC).
WRITER_FIELDS = ("running", "batches", "jobs", "largest_batch", "waiting", "oldest_wait_s",
                 "last_commit")
HEALTH_TIMEOUT = 5.0  # seconds a client has to send its request and read the answer
HEALTH_MAX_CLIENTS = 64  # connections open at once; a newer one closes the oldest
HEALTH_MAX_REQUEST = 8192  # bytes of a request's head


def health_document(h: dict[str, Any]) -> tuple[int, bytes]:
    """The status and JSON body ``GET /health`` answers with."""
    ok, why = healthy(h)
    doc: dict[str, Any] = {"healthy": ok, "problem": "" if ok else why}
    doc.update({k: h[k] for k in HEALTH_FIELDS if k in h})
    writer = h.get("writer") or {}
    doc["writer"] = {k: writer[k] for k in WRITER_FIELDS if k in writer}
    return (200 if ok else 503), json.dumps(doc, indent=1).encode()


class HealthServer:
    """``GET /health`` on one thread (an asyncio loop), with bounds: a client has
    :data:`HEALTH_TIMEOUT` seconds to send its request and take the answer, at most
    :data:`HEALTH_MAX_CLIENTS` connections are held (a new one closes the oldest), a request
    head is at most :data:`HEALTH_MAX_REQUEST` bytes, and a client that leaves early is a
    debug line, never a traceback.  (http.server's threading server held a thread per open
    connection, forever: 800 half-open requests held 800 threads.)"""

    def __init__(self, host: str, port: int, console: Any, *, timeout: float = HEALTH_TIMEOUT,
                 max_clients: int = HEALTH_MAX_CLIENTS) -> None:
        import asyncio

        self.console = console
        self.timeout = timeout
        self.max_clients = max_clients
        self._clients: dict[Any, None] = {}  # open connections' writers, oldest first
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(self._quiet)
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._serve, host, port, limit=HEALTH_MAX_REQUEST,
                                     backlog=128))
        except BaseException:
            self._loop.close()
            raise
        self.server_address = self._server.sockets[0].getsockname()
        self._thread = threading.Thread(target=self._loop.run_forever, name="podium-health",
                                        daemon=True)
        self._thread.start()

    @property
    def clients(self) -> int:
        """Connections open now (tests wait on it)."""
        return len(self._clients)

    def _quiet(self, loop: Any, context: dict[str, Any]) -> None:
        log.debug("health: %s", context.get("exception") or context.get("message"))

    async def _serve(self, reader: Any, writer: Any) -> None:
        import asyncio

        self._clients[writer] = None
        while len(self._clients) > self.max_clients:
            oldest = next(iter(self._clients))
            self._clients.pop(oldest, None)
            oldest.transport.abort()
        try:
            async with asyncio.timeout(self.timeout):
                head = await reader.readuntil(b"\r\n\r\n")
                status, body = self._answer(head)
                writer.write(b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\nConnection: close\r\n\r\n"
                             % (status, _REASONS[status], len(body)) + body)
                writer.close()  # after what was written is sent
                await writer.wait_closed()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ConnectionError, OSError) as exc:
            log.debug("health: a client left or took too long: %s", exc.__class__.__name__)
            writer.transport.abort()
        finally:
            self._clients.pop(writer, None)
            if not writer.transport.is_closing():
                writer.transport.abort()

    def _answer(self, head: bytes) -> tuple[int, bytes]:
        parts = head.split(b"\r\n", 1)[0].split(b" ")
        if len(parts) != 3 or parts[0] != b"GET":
            return 405, b'{"error": "GET /health"}'
        if parts[1].split(b"?")[0] not in (b"/health", b"/"):
            return 404, b'{"error": "GET /health"}'
        try:
            return health_document(self.console.health())
        except Exception as exc:  # a figure could not be read this time: say so, one line
            log.warning("health: could not be read: %s", exc.__class__.__name__)
            return 503, b'{"healthy": false, "problem": "health could not be read"}'

    def shutdown(self) -> None:
        """Stop listening, close every connection and the loop's thread."""
        import asyncio

        async def close() -> None:
            self._server.close()
            for w in list(self._clients):
                w.transport.abort()
            self._clients.clear()
            await self._server.wait_closed()

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._loop.close()


_REASONS = {200: b"OK", 404: b"Not Found", 405: b"Method Not Allowed",
            503: b"Service Unavailable"}


def _health_address(address: str) -> tuple[str, int]:
    """``--health HOST:PORT`` checked before anything starts."""
    host, _, port = address.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise UsageError(f"--health {address!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")
    return host.strip("[]"), int(port)


def _health_server(address: str, console: Any, **bounds: Any) -> HealthServer:
    host, port = _health_address(address)
    try:
        return HealthServer(host, port, console, **bounds)
    except OSError as exc:
        raise UsageError(f"--health {address}: can not listen there: {exc.strerror or exc}"
                         ) from None


def _load(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    from core import floorconfig
    from core.ledger.db import make_engine, upgrade
    from core.ledger.outages import problem
    from core.tablegames.rules.paytables import load_paytables

    try:
        config = (floorconfig.load_demo_floor() if args.floor == "demo"
                  else floorconfig.load_floor(args.floor))
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    paytables = load_paytables()
    for warning in floorconfig.validate(config, paytables):  # in the service's log at load
        log.warning("configuration warning: %s", warning)
    try:
        engine = make_engine(args.db)
    except Exception as exc:
        raise UsageError(f"--db: {exc}") from None
    if engine.dialect.name != "postgresql":
        raise UsageError("--db: the floor service shares a floor among podiums on a PostgreSQL "
                         "ledger; on one podium (SQLite) podium console serves its tables "
                         "itself")
    try:
        upgrade(engine)
    except Exception as exc:
        raise UsageError(f"could not open the ledger: {problem(exc)}") from None
    return config, paytables, engine


def _tables(args: argparse.Namespace, config: Any) -> list[str] | None:
    if args.pit is not None:
        try:
            return [t.id for t in config.tables_of_pit(args.pit)]
        except KeyError as exc:
            raise UsageError(f"--pit: {exc.args[0]}") from None
    if args.tables is not None:
        wanted = [t.strip() for t in args.tables.split(",") if t.strip()]
        known = {t.id for t in config.tables}
        unknown = [t for t in wanted if t not in known]
        if unknown or not wanted:
            raise UsageError(f"--tables: {', '.join(unknown) or 'none given'}: not tables of "
                             f"this floor ({', '.join(sorted(known))})")
        return wanted
    return None


def run(args: argparse.Namespace) -> int:
    if args._command == "services":
        return _services(args)
    from core.app.console import ConsoleCore
    from core.controllers.tls import link_tls

    if args.health:
        _health_address(args.health)  # a malformed address is refused before the ledger
    config, paytables, engine = _load(args)
    if args.floor == "demo":
        from core.app.demo import ensure_demo_certs

        ensure_demo_certs(config)
    try:
        link_tls(config)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    tables = _tables(args, config)
    # the process's logging is the service's only once everything given was found good (a
    # refusal is one line on stderr, and a caller's own logging is left alone)
    _configure_logging(args.log_level, args.log_format)
    name = args.name or (f"serve-{args.pit}@{socket.gethostname()}" if args.pit
                         else f"serve@{socket.gethostname()}")
    console = ConsoleCore(engine, config, paytables, paper=args.paper, serve=tables, name=name,
                          kind="serve", claim_interval=args.claim_interval)
    console.add_message_listener(lambda text: None)  # its messages go to the log (runtime)
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("%s: stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server = _health_server(args.health, console) if args.health else None
    try:
        for note in console.start():
            log.info("ledger set-up: %s", note)
    except Exception as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        console.stop()
        raise UsageError(f"could not start: {reason}") from None
    want = len(console.serve)
    log.info("service %s started: %d table(s) to serve (%s), service #%s", name, want,
             f"pit {args.pit}" if args.pit else "the tables given" if args.tables
             else "the whole floor", console.claims.service_id if console.claims else "?")
    print(f"READY {name}", flush=True)
    _sd_notify(f"READY=1\nSTATUS=serving {len(console.served_tables())} of {want} tables")
    watchdog = int(os.environ.get("WATCHDOG_USEC", "0") or 0) / 1e6
    beat = min(watchdog / 2, 5.0) if watchdog > 0 else 5.0
    last_line = time.monotonic()
    while not stop.wait(beat):
        try:
            h = console.health()
        except Exception:  # a figure could not be read this time: the service goes on
            log.exception("health: could not be read")
            continue
        ok, why = healthy(h)
        status = (f"serving {h['tables_served']} of {want} tables, {h['tables_online']} "
                  f"online" + ("" if ok else f"; PROBLEM: {why}"))
        _sd_notify(f"STATUS={status}" + ("\nWATCHDOG=1" if alive(h) and watchdog > 0
                                          else ""))
        if args.health_every and time.monotonic() - last_line >= args.health_every:
            last_line = time.monotonic()
            w = h["writer"]
            (log.info if ok else log.error)(
                "health: %s; ledger writer %d batches, %d jobs, %d waiting%s, last commit %s",
                status, w["batches"], w["jobs"], w.get("waiting", 0),
                f" (the oldest {w['oldest_wait_s']:g} s)" if w.get("oldest_wait_s") else "",
                w.get("last_commit") or "none yet")
    _sd_notify("STOPPING=1")
    console.stop()
    if server is not None:
        server.shutdown()
    log.info("service %s stopped: every table released", name)
    engine.dispose()
    return 0


def _services(args: argparse.Namespace) -> int:
    from core.controllers.services import services, table_services
    from core.tablegames.floor import Floor

    config, paytables, engine = _load(args)
    floor = Floor(engine, config, paytables, paper=args.paper)
    svc = services(floor)
    tables = table_services(floor)
    if args.json:
        print(json.dumps({
            "services": [{"id": s.id, "name": s.name, "host": s.host, "pid": s.pid,
                          "kind": s.kind, "up": s.up, "started_at": s.started_at.isoformat(),
                          "heartbeat_at": s.heartbeat_at.isoformat()} for s in svc],
            "tables": [{"table": t.table, "service": t.service, "up": t.up,
                        "detail": t.detail} for t in tables.values()]}, indent=1))
        return 0
    print("SERVICES")
    for s in svc:
        count = sum(1 for t in tables.values() if t.service == s.name and t.up)
        print(f"  #{s.id:<4} {s.name:<28} {s.kind:<8} {'UP' if s.up else 'DOWN':<5} "
              f"{s.host} pid {s.pid}, {count} table(s), heartbeat "
              f"{s.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC")
    if not svc:
        print("  (none running)")
    print("TABLES")
    for t in tables.values():
        print(f"  {t.table:<10} {'UP' if t.up else 'DOWN':<5} {t.detail}")
    engine.dispose()
    return 0
