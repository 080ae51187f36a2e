"""A console process for the print crash test (tests/core/app/test_crash.py): the console core on a
floor file and a ledger, no controller links, a network printer on 127.0.0.1; it prints every queued
win slip, then waits until it is killed.

    python -m tests.crash_print_console FLOOR_FILE LEDGER_URL SCHEMA PRINTER_PORT
"""

from __future__ import annotations

import sys
import time

from core import floorconfig
from core.app.console import ConsoleCore
from core.ledger.db import make_engine, upgrade
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.printers import NetworkPrinter
from printing.escpos.slip import PAPER


def main() -> None:
    floor_file, url, schema, port = sys.argv[1:5]
    kwargs = {"connect_args": {"options": f"-csearch_path={schema}"}} if schema != "-" else {}
    engine = make_engine(url, **kwargs)
    upgrade(engine)
    printer = NetworkPrinter("127.0.0.1", int(port), timeout=5, confirm_timeout=600)
    console = ConsoleCore(engine, floorconfig.load_floor(floor_file), load_paytables(),
                          printer=printer, paper=PAPER)
    console.start(links=False)
    print("CONSOLE UP", flush=True)
    console.print_queued()
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
