"""``podium simulate``: simulated Nexus Command table controllers on this machine
(docs/protocol.md, "The simulator"; the tables: :mod:`core.controllers.sim_floor`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets

from core.controllers.frames import DEFAULT_HEARTBEAT_MS, DEFAULT_RETRANSMIT_MS
from core.controllers.sim_floor import DEFAULT_PAYTABLE, DEFAULT_PORT, build_simulator
from core.controllers.sim_game import SimulatorError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.description = (
        "Run simulated Nexus Command table controllers speaking the Podium protocol "
        "(docs/protocol.md). Table i listens on PORT+i-1 with id Ti. Hands are real random "
        "deals from a shuffled 53-card deck, except rounds stacked by --jackpot-rate.")
    parser.add_argument("--tables", type=int, default=4, help="number of tables (default 4)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port of table T1; Ti listens on PORT+i-1 (default {DEFAULT_PORT})")
    parser.add_argument("--host", default=None,
                        help="address to listen on (default 127.0.0.1, or each table's host "
                             "with --floor)")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (default: a fresh one, printed at start)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="pace: 1 = about one round a minute like a real table, 30 = thirty "
                             "times faster (default 1)")
    parser.add_argument("--paytable", default=DEFAULT_PAYTABLE,
                        help=f"progressive paytable of every table (default {DEFAULT_PAYTABLE})")
    parser.add_argument("--floor", default=None, metavar="FILE|demo",
                        help="take table ids, hosts, ports, seats, decks and paytables from a "
                             "floor configuration file (or the embedded demo floor)")
    parser.add_argument("--seats", type=int, default=6, help="seats per table (default 6)")
    parser.add_argument("--mistake-rate", type=float, default=0.02,
                        help="per round, chance of a dealer mistake (wrong hand button or a HIT "
                             "on a seat without a wager); a misdeal at half that (default 0.02)")
    parser.add_argument("--jackpot-rate", type=float, default=0.0,
                        help="DEMO ONLY: chance that a round deals a STACKED qualifying hand to "
                             "one wagered seat so that a demo shows jackpots; such rounds are "
                             "NOT a random deal (default 0)")
    parser.add_argument("--heartbeat", type=float, default=DEFAULT_HEARTBEAT_MS / 1000,
                        help="seconds between heartbeats (default 5)")
    parser.add_argument("--certs", default=None, metavar="DIR",
                        help="serve TLS with the certificates of DIR (made by podium certs init: "
                             "ca.pem, tables/<id>.pem and .key); with --floor the default is the "
                             "folder of the floor file's controller_link.ca (--floor demo: the "
                             "demo's own, made on first use)")
    parser.add_argument("--plain-lab-only", action="store_true",
                        help="serve plain TCP without certificates (a lab only: anyone on the "
                             "network could pose as the console); with --floor, only a floor "
                             "file that says transport = \"plain-lab-only\" serves plain")
    parser.add_argument("--retransmit", type=float, default=DEFAULT_RETRANSMIT_MS / 1000,
                        help="seconds after which an event not yet acknowledged is sent again "
                             "on the live connection (default 2)")


def run(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        raise SimulatorError(f"--speed: {args.speed} must be greater than 0")
    if args.heartbeat <= 0:
        raise SimulatorError(f"--heartbeat: {args.heartbeat} must be greater than 0")
    if args.retransmit <= 0:
        raise SimulatorError(f"--retransmit: {args.retransmit} must be greater than 0")
    floor = None
    if args.floor is not None:
        from core import floorconfig
        floor = (floorconfig.load_demo_floor() if args.floor == "demo"
                 else floorconfig.load_floor(args.floor))
        if args.floor == "demo" and args.certs is None and not args.plain_lab_only:
            from core.app.demo import ensure_demo_certs

            ensure_demo_certs(floor)
    seed = args.seed if args.seed is not None else secrets.randbelow(10**9)
    sim = build_simulator(tables=args.tables, port=args.port, host=args.host or "127.0.0.1",
                          paytable=args.paytable, floor=floor, seed=seed, speed=args.speed,
                          mistake_rate=args.mistake_rate, jackpot_rate=args.jackpot_rate,
                          seats=args.seats, heartbeat=args.heartbeat, bind_host=args.host,
                          certs=args.certs, plain_lab_only=args.plain_lab_only,
                          retransmit=args.retransmit)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    print(f"podium simulate: seed {seed}, speed {args.speed:g}"
          + (f", jackpot rate {args.jackpot_rate:g} (stacked demo rounds, not random deals)"
             if args.jackpot_rate else ""), flush=True)
    for t in sim.tables.values():
        print(f"  {t.table_id}: {t.host}:{t.port} {'TLS' if t.tls else 'PLAIN (lab only)'} "
              f"paytable {t.paytable_id} seats {t.seats} boot {t.boot}", flush=True)
    try:
        asyncio.run(sim.serve_forever())
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        raise SimulatorError(f"can not listen: {exc}") from None
    return 0

