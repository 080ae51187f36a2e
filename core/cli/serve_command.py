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
503 not); a line of health goes to the log every ``--health-every`` seconds.

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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from core.cli.dispatch import UsageError

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
    parser.add_argument("--health-every", type=float, default=60.0, metavar="SECONDS",
                        help="a line of health in the log this often (default 60; 0: never)")
    parser.add_argument("--claim-interval", type=float, default=1.0, metavar="SECONDS",
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
    if not h["lock_connection"]:
        return False, "no lock connection to the ledger: no table can be served"
    if not h["feed_listening"]:
        return False, "not listening to the ledger's feed: the consoles' decisions wait"
    return True, "ok"


def _health_server(address: str, console: Any) -> ThreadingHTTPServer:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--health {address!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.split("?")[0] not in ("/health", "/"):
                self.send_error(404, "GET /health")
                return
            h = console.health()
            ok, why = healthy(h)
            body = json.dumps({**h, "healthy": ok, "problem": "" if ok else why},
                              indent=1).encode()
            self.send_response(200 if ok else 503)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            log.debug("health: " + format, *args)

    try:
        server = ThreadingHTTPServer((host, int(port)), Handler)
    except OSError as exc:
        raise UsageError(f"--health {address}: can not listen there: {exc.strerror or exc}"
                         ) from None
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="podium-health", daemon=True).start()
    return server


def _load(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    from core import floorconfig
    from core.ledger.db import make_engine, upgrade
    from core.rules.paytables import load_paytables

    try:
        config = (floorconfig.load_demo_floor() if args.floor == "demo"
                  else floorconfig.load_floor(args.floor))
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    paytables = load_paytables()
    floorconfig.validate(config, paytables)
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
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise UsageError(f"could not open the ledger: {reason}") from None
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
    from core.controllers.tls import link_tls
    from core.runtime import ConsoleCore

    config, paytables, engine = _load(args)
    if args.floor == "demo":
        from core.demo import ensure_demo_certs

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
    console = ConsoleCore(engine, config, paytables, serve=tables, name=name, kind="serve",
                          claim_interval=args.claim_interval)
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
        _sd_notify(f"STATUS={status}" + ("\nWATCHDOG=1" if ok and watchdog > 0 else ""))
        if args.health_every and time.monotonic() - last_line >= args.health_every:
            last_line = time.monotonic()
            (log.info if ok else log.error)("health: %s; ledger writer %d batches, %d jobs",
                                            status, h["writer"]["batches"],
                                            h["writer"]["jobs"])
    _sd_notify("STOPPING=1")
    console.stop()
    if server is not None:
        server.shutdown()
    log.info("service %s stopped: every table released", name)
    engine.dispose()
    return 0


def _services(args: argparse.Namespace) -> int:
    from core.controllers.ownership import services, table_services
    from core.tablegames.floor import Floor

    config, paytables, engine = _load(args)
    floor = Floor(engine, config, paytables)
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
