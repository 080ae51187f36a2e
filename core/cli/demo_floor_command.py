"""``podium demo-floor`` (``make demo-floor``): one floor, many podiums, on this machine.

Starts, on the local PostgreSQL (``--db``, default the ``test`` database at 127.0.0.1:5432 in
a schema of its own, ``podium_demo_floor``): the demo floor's simulated table controllers, ONE
floor service (``podium serve``) serving every table, and TWO consoles, the podium of pit A and
the podium of pit B (``podium demo --pit A|B``), each a client of the ledger with no
controller link of its own.  Pay a hit on one podium and watch the other follow it; stop the
service (``kill`` the ``podium serve`` process this prints) and every tile says NO SERVICE
until ``podium serve`` runs again.  Closing both consoles stops the rest.

The demo floor keeps its data apart from ``make run``'s ``podium demo``: its ledger is the
PostgreSQL schema, and each podium has a folder of its own, ``demo-floor/pit-A`` and
``demo-floor/pit-B`` in the user data folder (``podium demo --data-dir``): its file printer's
slips (``slips/``) and its window settings (``settings/``).  ``make run``'s slips stay in the
user data folder's ``slips/``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from typing import Any

from core.cli.dispatch import UsageError

DEFAULT_DB = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SCHEMA = "podium_demo_floor"


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--db", default=DEFAULT_DB,
                        help=f"a PostgreSQL database (default {DEFAULT_DB}); the demo keeps its "
                             f"ledger in the schema {SCHEMA}")
    parser.add_argument("--fresh", action="store_true",
                        help="start from an empty ledger (drops the demo's schema first)")
    parser.add_argument("--speed", type=float, default=25.0,
                        help="simulated table pace (default 25)")
    parser.add_argument("--jackpot-rate", type=float, default=0.02,
                        help="chance a simulated round deals a stacked qualifying hand")
    parser.add_argument("--screenshots", default=None, metavar="DIR",
                        help="each podium saves screenshots into DIR/pit-A, DIR/pit-B after a "
                             "few seconds and quits (then the rest stops)")


def _pg_up() -> None:
    """Start the local PostgreSQL cluster when it is down (as .ci/run does)."""
    if shutil.which("pg_isready") is None:
        return
    if subprocess.run(["pg_isready", "-h", "127.0.0.1", "-p", "5432"],
                      capture_output=True).returncode == 0:
        return
    versions = sorted(os.listdir("/etc/postgresql")) if os.path.isdir("/etc/postgresql") else []
    if versions and shutil.which("pg_ctlcluster"):
        print(f"starting PostgreSQL {versions[-1]} ...", flush=True)
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1], "main",
                        "start"], check=False)
        for _ in range(30):
            if subprocess.run(["pg_isready", "-h", "127.0.0.1", "-p", "5432"],
                              capture_output=True).returncode == 0:
                return
            time.sleep(1)


def _ledger(db: str, fresh: bool) -> str:
    from sqlalchemy import text

    from core.app.demo import enroll_demo_employees, open_demo_bbj_fund
    from core.ledger.db import make_engine, upgrade

    admin = make_engine(db)
    if admin.dialect.name != "postgresql":
        raise UsageError("--db: the floor demo needs PostgreSQL (postgresql+psycopg://...)")
    try:
        with admin.begin() as c:
            if fresh:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{SCHEMA}" CASCADE'))
            c.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{SCHEMA}"'))
    except Exception as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise UsageError(f"PostgreSQL at {db}: {reason} (is it running? make demo-floor starts "
                         "a local cluster when it can)") from None
    admin.dispose()
    url = db + ("&" if "?" in db else "?") + f"options=-csearch_path%3D{SCHEMA}"
    engine = make_engine(url)
    upgrade(engine)
    enroll_demo_employees(engine)
    open_demo_bbj_fund(engine)
    engine.dispose()
    return url


def podium_folder(pit: str) -> str:
    """The folder of the demo floor's podium of ``pit`` (its slips and settings)."""
    import platformdirs

    return os.path.join(platformdirs.user_data_dir("podium"), "demo-floor", f"pit-{pit}")


def podium_argv(url: str, pit: str, screenshots: str | None) -> list[str]:
    """``podium demo`` for the podium of ``pit``: a client of the ledger at ``url`` with no
    simulator of its own, its own folder (slips, settings) apart from ``make run``'s."""
    shots = ["--screenshots", f"{screenshots}/pit-{pit}"] if screenshots else []
    return ["demo", "--db", url, "--pit", pit, "--no-simulator", "--name", f"podium-{pit}",
            "--data-dir", podium_folder(pit), *shots]


def run(args: argparse.Namespace) -> int:
    _pg_up()
    url = _ledger(args.db, args.fresh)
    script = os.path.join(os.path.dirname(sys.executable), "podium")
    podium = [script] if os.path.exists(script) else [
        sys.executable, "-c", "import sys; from core.cli.dispatch import main; "
        "sys.exit(main(sys.argv[1:]))"]
    procs: list[tuple[str, subprocess.Popen[Any]]] = []

    def start(name: str, argv: list[str]) -> subprocess.Popen[Any]:
        p = subprocess.Popen(podium + argv)
        procs.append((name, p))
        print(f"started {name}: pid {p.pid}", flush=True)
        return p

    try:
        tables = start("the simulated tables", ["simulate", "--floor", "demo", "--speed",
                                                str(args.speed), "--jackpot-rate",
                                                str(args.jackpot_rate)])
        time.sleep(1.5)
        if tables.poll() is not None:
            raise UsageError("the simulated tables did not start (their message is above: "
                             "another demo still running on ports 17301-17306?)")
        service = start("the floor service", ["serve", "--floor", "demo", "--db", url,
                                              "--name", "floor-service", "--log-format",
                                              "plain"])
        time.sleep(3.0)
        if service.poll() is not None:
            raise UsageError("the floor service did not start (its message is above)")
        consoles = [start(f"the podium of pit {pit}", podium_argv(url, pit, args.screenshots))
                    for pit in ("A", "B")]
        print("\nEach podium keeps its slips and settings in its own folder: "
              + " and ".join(podium_folder(pit) for pit in ("A", "B")), flush=True)
        print("\nOne floor, two podiums.  Pay a hit on one podium; the other follows it.\n"
              "Stop the floor service (kill <its pid>) and the tables say NO SERVICE; start it\n"
              f"again with: podium serve --floor demo --db '{url}'\n"
              "Close both consoles to stop everything.", flush=True)
        for c in consoles:
            c.wait()
    except KeyboardInterrupt:
        pass
    finally:
        for name, p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
                print(f"stopped {name}", flush=True)
    return 0
