"""A console process for the crash tests (tests/core/app/test_crash.py): the console core on a floor
file and a ledger, its links to the controllers, the ledger writer, a printer to a folder, and
a supervisor that pays (Executive card) or rejects every pending hit.  It runs until killed.

    python -m tests.crash_console FLOOR_FILE LEDGER_URL [SCHEMA] SLIP_DIR
"""

from __future__ import annotations

import sys
import time

from sqlalchemy.exc import SQLAlchemyError

from core import floorconfig
from core.app.console import ConsoleCore
from core.app.demo import enroll_demo_employees, swipe_of
from core.ledger.db import make_engine, upgrade
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.printers import printer_from_config
from printing.escpos.slip import PAPER


def main() -> None:
    floor_file, url, schema, slips = sys.argv[1:5]
    kwargs = {"connect_args": {"options": f"-csearch_path={schema}"}} if schema != "-" else {}
    engine = make_engine(url, **kwargs)
    upgrade(engine)
    enroll_demo_employees(engine)
    config = floorconfig.load_floor(floor_file)
    console = ConsoleCore(engine, config, load_paytables(),
                          printer=printer_from_config("file", directory=slips),
                          link_options={"heartbeat": 0.5, "reconnect_delay": 0.05,
                                        "max_reconnect_delay": 0.2}, paper=PAPER)
    console.start()
    print("CONSOLE UP", flush=True)
    executive = swipe_of("2001")
    floor = console.floor
    while True:
        time.sleep(0.05)
        for h in floor.snapshot().pending:
            try:
                if h.blocking or len(h.cards) != 7:
                    floor.reject(h.hit_id, "crash test: flagged", executive)
                    continue
                v = floor.evaluate(h.hit_id, list(h.cards))
                if v.pay_hand is None or not v.payable:
                    if not any("first" in p for p in v.problems):
                        floor.reject(h.hit_id, "crash test: pays nothing", executive)
                    continue
                floor.pay(h.hit_id, list(h.cards), executive, correct_claim=v.mismatch,
                          expected_cents=v.amount_cents)
            except ValueError:
                continue  # decided meanwhile, or the amount moved: seen again next time
            except SQLAlchemyError as exc:  # the ledger said no this time: as a supervisor
                print(f"decision failed, tried again: {exc}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
