"""``podium console`` and ``podium demo``: start the supervisor console, or with ``--role`` a
read-only desk (the accountant's or surveillance's: gui/desks/desk_window.py)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from core.kernel.text import printable

log = logging.getLogger("podium.gui.app")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:  # for completeness
    _options(parser, demo=name == "demo")


def _options(p: argparse.ArgumentParser, demo: bool) -> None:
    p.add_argument("--floor", default="demo" if demo else None, required=not demo,
                   help="floor configuration file (TOML); 'demo' for the embedded demo floor")
    p.add_argument("--db", default=None,
                   help="ledger URL (default: SQLite in the user data folder: demo.sqlite, "
                        "the ledger make run / podium demo made, with --floor demo; "
                        "ledger.sqlite3 with a floor file); e.g. "
                        "postgresql+psycopg://user@host/podium")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help="this podium's own folder, instead of the user data folder: the "
                        "demo's SQLite ledger, the file printer's slips (DIR/slips) and the "
                        "window's settings (DIR/settings); podium demo-floor gives each of "
                        "its podiums one")
    if demo:
        p.add_argument("--speed", type=float, default=25.0,
                       help="simulated table pace (1 = a round a minute; default 25)")
        p.add_argument("--jackpot-rate", type=float, default=0.01,
                       help="chance a simulated round deals a stacked qualifying hand "
                            "(default 0.01)")
        p.add_argument("--mistake-rate", type=float, default=0.03,
                       help="chance a simulated dealer makes a mistake (default 0.03)")
        p.add_argument("--seed", type=int, default=None, help="simulator random seed")
        p.add_argument("--no-simulator", action="store_true",
                       help="do not start the simulated controllers "
                            "(run them with podium simulate)")
    p.add_argument("--pit", default=None,
                   help="the pit this podium stands at (a pit = \"...\" of the floor file): its "
                        "tables are shown first, its auto-paid slips print here; the others "
                        "can still be looked at")
    p.add_argument("--serve", action="store_true",
                   help="on a PostgreSQL ledger, also serve the controller links of this "
                        "podium's tables (its --pit, else every table) inside the console, "
                        "as podium serve does; without it a console on PostgreSQL is a client "
                        "of the floor services (SQLite: the console always serves its tables)")
    p.add_argument("--name", default=None,
                   help="this podium's name to the other podiums (default console@HOST)")
    p.add_argument("--role", choices=("accountant", "surveillance", "card"), default=None,
                   help="open a READ-ONLY desk instead of the supervisor console: the "
                        "accountant's, surveillance's, or 'card': the desk of the card swiped "
                        "at start (no table controller, no printer, no change to the ledger)")
    p.add_argument("--screenshots", default=None, metavar="DIR",
                   help="save screenshots of the main window after a few seconds into DIR and quit")
    p.add_argument("--log-level", default="INFO")
    p.add_argument("--report-ready", action="store_true",
                   help="print READY when the window shows the floor and ONLINE when every "
                        "table is online, then quit (benchmarks/startup.py)")


def configure_logging(level: str) -> None:
    # Before importing escpos: importing it calls logging.basicConfig() (LIBRARY-NOTES.md).
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("escpos").setLevel(logging.WARNING)
    import platformdirs

    os.environ.setdefault("ESCPOS_CAPABILITIES_PICKLE_DIR",
                          platformdirs.user_cache_dir("podium"))


def _qt_messages() -> None:
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    qtlog = logging.getLogger("podium.qt")
    levels = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
              QtMsgType.QtFatalMsg: logging.CRITICAL}

    def handler(mode: Any, _context: Any, message: str) -> None:
        qtlog.log(levels.get(mode, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)


def _qt_application(demo: bool) -> tuple[Any, Any]:
    """The Qt application, themed, with the card-swipe catcher installed (the console's and the
    desk's alike); in the demo the swipe prompt offers typed entry."""
    from PySide6.QtWidgets import QApplication

    from gui.common import theme
    from gui.common.authorize import SwipePrompt
    from gui.common.swipe import SwipeCatcher

    _qt_messages()
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        from gui.common import screen_scale

        screen_scale.apply_once(app)  # a 4K screen at 96 dpi: scaled (starts again, once)
    app.setApplicationName("Podium")
    theme.apply(app)  # type: ignore[arg-type]
    catcher = SwipeCatcher()
    catcher.install(app)  # type: ignore[arg-type]
    if demo:
        SwipePrompt.demo_entry = True
    return app, catcher


def data_folder(data_dir: str | None) -> Path:
    """The folder of a podium's own files (``--data-dir``; default the user data folder)."""
    import platformdirs

    return Path(data_dir) if data_dir else Path(platformdirs.user_data_dir("podium"))


def _sqlite_default(floor: str, demo: bool, data_dir: str | None) -> str | None:
    """The SQLite ledger when no ``--db`` is given, if it is not :func:`default_url`'s: the
    demo floor keeps its own (``demo.sqlite``: the one ``make run`` made, whether opened by
    ``podium demo`` or ``podium console --floor demo``), and ``--data-dir`` keeps the ledger
    in that folder."""
    from core.ledger.db import DEMO_LEDGER

    name = DEMO_LEDGER if demo or floor == "demo" else "ledger.sqlite3"
    if data_dir or name == DEMO_LEDGER:
        return f"sqlite:///{data_folder(data_dir) / name}"
    return None


def keep_settings_in(data_dir: str | None) -> None:
    """With ``--data-dir``: the window's settings (QSettings) are kept in DIR/settings, not in
    the user's configuration folder shared with every other podium of this account."""
    if not data_dir:
        return
    from PySide6.QtCore import QSettings

    folder = str(data_folder(data_dir) / "settings")
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, folder)


def build_console(floor: str, db: str | None, *, demo: bool, pit: str | None = None,
                  serve: bool = False, name: str | None = None,
                  data_dir: str | None = None) -> tuple[Any, list[str]]:
    """Load and check the configuration, open the ledger, make the ConsoleCore (not started).

    SQLite (one podium): the console serves every table's link itself.  PostgreSQL (a floor
    shared by podiums): the console is a client of the floor services (``podium serve``) and
    links no controller, unless ``serve`` (then it serves its pit's tables, or all)."""
    from core import floorconfig
    from core.app.console import ConsoleCore
    from core.ledger.db import default_url, make_engine, upgrade
    from core.tablegames.rules.paytables import load_paytables
    from printing.escpos.printers import printer_from_config
    from printing.escpos.slip import PAPER

    config = floorconfig.load_demo_floor() if floor == "demo" else floorconfig.load_floor(floor)
    paytables = load_paytables()
    warnings = floorconfig.validate(config, paytables)
    if floor == "demo":
        from core.app.demo import ensure_demo_certs

        ensure_demo_certs(config)  # the demo's test CA, made on first start
    from core.controllers.tls import link_tls

    link_tls(config)  # a missing or wrong certificate is named now, before any window
    folder = data_folder(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    if db is None:  # the demo floor's own ledger, the one make run made
        db = _sqlite_default(floor, demo, data_dir) or default_url()
    engine = make_engine(db)
    upgrade(engine)
    pc = config.printer
    if pc.kind == "file":
        directory = pc.directory or str(folder / "slips")
        printer = printer_from_config("file", directory=directory)
    else:
        printer = printer_from_config("network", host=pc.host, port=pc.port, timeout=pc.timeout,
                                      status_timeout=pc.status_timeout,
                                      send_timeout=pc.send_timeout,
                                      confirm_timeout=pc.confirm_timeout)
    if demo:
        from core.app.demo import enroll_demo_employees, open_demo_bbj_fund

        enroll_demo_employees(engine)
        open_demo_bbj_fund(engine)
    pit_tables = None
    if pit is not None:
        try:
            pit_tables = [t.id for t in config.tables_of_pit(pit)]
        except KeyError as exc:
            raise ValueError(f"--pit: {exc.args[0]}") from None
    shared = engine.dialect.name == "postgresql"
    if not shared:
        tables = None  # one podium: every table
    elif serve:
        tables = pit_tables  # its pit's (None: every table)
    else:
        tables = []  # a client of the floor services
    # the app wiring: win slips as ESC/POS bytes (core never imports printing)
    console = ConsoleCore(engine, config, paytables, paper=PAPER, printer=printer,
                          serve=tables, name=name, kind="console",
                          print_tables=pit_tables if pit_tables is not None else (
                              [t.id for t in config.tables] if not shared else ()))
    console.pit = pit
    return console, warnings


def approve_floor_change(catcher: Any, pending: Any, record: Any) -> bool:
    """The console starts on a floor file that changes what decides pays or contributions
    (docs/operator.md "Approving a floor change"): the changes are shown and an executive
    swipes and types the PIN; each swipe is handed to ``record`` (a refusal is shown in red and
    the prompt waits for another swipe).  True once recorded; False when cancelled (the console
    does not start)."""
    from PySide6.QtWidgets import QDialog

    from gui.common.authorize import SwipePrompt

    shown = [c.text() for c in pending.changes]
    more = len(shown) - 8
    what = (f"The floor file {pending.source} changes what decides pays or contributions "
            f"({len(shown)} change(s)); the console starts on them only once an executive "
            "approves: " + "; ".join(shown[:8]) + (f"; and {more} more" if more > 0 else ""))
    prompt = SwipePrompt(catcher, "executive", what, record, None, pin=True)
    prompt.setWindowTitle("Approve a floor change")
    return bool(prompt.exec() == QDialog.DialogCode.Accepted)


def open_desk_ledger(floor: str, db: str | None, *, demo: bool,
                     data_dir: str | None = None) -> tuple[Any, dict[str, Any], Any]:
    """For a desk: the floor configuration, the paytables and the ledger opened read-only
    (core.desks.desk.open_ledger: never migrated; no certificate, card key or printer needed)."""
    from core import floorconfig
    from core.desks.desk import open_ledger
    from core.ledger.db import default_url
    from core.tablegames.rules.paytables import load_paytables

    config = floorconfig.load_demo_floor() if floor == "demo" else floorconfig.load_floor(floor)
    paytables = load_paytables()
    for w in floorconfig.validate(config, paytables):
        log.warning("configuration warning: %s", w)
    if db is None:  # the demo floor's own ledger, the one make run made
        db = _sqlite_default(floor, demo, data_dir) or default_url(create=False)
    return config, paytables, open_ledger(db)


def desk_window(role: str, config: Any, paytables: dict[str, Any], engine: Any,
                catcher: Any) -> Any:
    """The desk's window for ``role`` ("accountant", "surveillance", or "card": the start
    prompt asks for a card and its role picks the desk); None if the start was cancelled."""
    from core.desks.desk import Desk
    from gui.desks.desk_window import DeskWindow

    employee = ""
    if role == "card":
        from PySide6.QtWidgets import QDialog

        from gui.desks.desk_start import card_prompt, choose_desk

        prompt = card_prompt(catcher, engine, config)
        if prompt.exec() != QDialog.DialogCode.Accepted:
            return None
        who = prompt.result_value
        chosen = choose_desk(who)  # type: ignore[arg-type]
        if chosen is None:
            return None
        role, employee = chosen, who.label  # type: ignore[attr-defined]
    return DeskWindow(Desk(role, engine, config, paytables, employee))


def _run_desk(command: str, opts: argparse.Namespace, demo: bool) -> int:
    """``podium console --role ...``: a read-only desk; no ConsoleCore, no controller link, no
    printer, no simulator."""
    try:
        config, paytables, engine = open_desk_ledger(opts.floor, opts.db, demo=demo,
                                                     data_dir=opts.data_dir)
    except (ValueError, OSError) as exc:  # DeskError, FloorConfigError ... name the problem
        print(f"podium {command}: {printable(str(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:  # e.g. the ledger database does not answer
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        print(f"podium {command}: could not open the ledger: {printable(reason)}",
              file=sys.stderr)
        return 2
    from PySide6.QtCore import QTimer

    from gui.common import collector

    keep_settings_in(opts.data_dir)
    app, catcher = _qt_application(demo)
    collector.install(app, freeze=True)
    window = desk_window(opts.role, config, paytables, engine, catcher)
    if window is None:
        print(f"podium {command}: no desk opened (the start was cancelled)", file=sys.stderr)
        engine.dispose()
        return 1
    window.show()
    if opts.screenshots:
        out = Path(opts.screenshots)
        out.mkdir(parents=True, exist_ok=True)

        def shoot() -> None:
            from gui.common.bridge import default_bridge

            default_bridge().wait_idle(3000)
            window.grab().save(str(out / f"desk-{window.desk.role}.png"))
            for i in range(window.tabs.count()):
                window.tabs.setCurrentIndex(i)
                default_bridge().wait_idle(3000)
                app.processEvents()
                name = window.tabs.tabText(i).lower().replace(" ", "-")
                window.grab().save(str(out / f"desk-{window.desk.role}-{name}.png"))
            app.quit()

        QTimer.singleShot(3000, shoot)
    try:
        rc = app.exec()
    finally:
        window.close()
        window.deleteLater()
        app.processEvents()
        engine.dispose()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


def _report_ready(app: Any, window: Any, console: Any) -> None:
    """For benchmarks/startup.py: READY once the first frame with the floor is painted,
    ONLINE once every configured table's link is up; then quit."""
    from PySide6.QtCore import QTimer

    from gui.common.bridge import default_bridge

    def ready() -> None:
        window.refresh()
        window.repaint()
        print("READY", flush=True)
        poll = QTimer(window)
        bridge = default_bridge()
        floor = console.floor

        def online(tables_online: bool) -> None:
            if tables_online and poll.isActive():
                print("ONLINE", flush=True)
                poll.stop()
                app.quit()

        def check() -> None:  # the ledger is read off the GUI thread (one read at a time)
            bridge.query(lambda: all(t.online for t in floor.snapshot().tables), online,
                         key="startup-online", owner=poll)

        poll.timeout.connect(check)
        poll.start(5)

    QTimer.singleShot(0, ready)


def run(args: argparse.Namespace) -> int:
    demo = args._command == "demo"
    from core.cli.dispatch import OneLineParser

    parser = OneLineParser(prog=f"podium {args._command}")
    _options(parser, demo)
    opts = parser.parse_args(args.rest)
    configure_logging(opts.log_level)
    if opts.role is not None:
        return _run_desk(args._command, opts, demo)
    try:
        console, warnings = build_console(opts.floor, opts.db, demo=demo, pit=opts.pit,
                                          serve=opts.serve, name=opts.name,
                                          data_dir=opts.data_dir)
    except (ValueError, OSError) as exc:
        print(f"podium {args._command}: {printable(str(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:  # e.g. the ledger database does not answer
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        print(f"podium {args._command}: could not open the ledger: {printable(reason)}",
              file=sys.stderr)
        return 2

    sim = None
    if demo and not opts.no_simulator:
        from core.app.demo import SimulatorThread
        from core.controllers.sim_floor import build_simulator

        try:
            sim = SimulatorThread(build_simulator(floor=console.config, seed=opts.seed,
                                                  speed=opts.speed,
                                                  jackpot_rate=opts.jackpot_rate,
                                                  mistake_rate=opts.mistake_rate,
                                                  paytables=console.paytables))
        except ValueError as exc:  # e.g. a table's certificate in demo-certs/ spoilt
            print(f"podium demo: the simulated tables: {printable(str(exc))}", file=sys.stderr)
            return 2
        try:
            sim.start()
        except OSError as exc:
            print(f"podium demo: the simulated tables could not listen: {printable(str(exc))}",
                  file=sys.stderr)
            return 2

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QTabWidget

    from gui.main_window import MainWindow

    keep_settings_in(opts.data_dir)
    app, catcher = _qt_application(demo)
    try:
        console.start(approve=lambda pending, record: approve_floor_change(
            catcher, pending, record))
    except ValueError as exc:  # a floor change nobody approved: one line, nothing started
        console.stop()
        if sim is not None:
            sim.stop()
        print(f"podium {args._command}: {printable(str(exc))}", file=sys.stderr)
        return 2
    from gui.common import collector

    collector.install(app, freeze=True)  # garbage collected on the GUI thread only
    window = MainWindow(console, catcher)
    for w in warnings:
        window._log(f"Configuration warning: {w}")
    window.show()
    if opts.report_ready:
        _report_ready(app, window, console)
    if opts.screenshots:
        out = Path(opts.screenshots)
        out.mkdir(parents=True, exist_ok=True)

        def shoot() -> None:
            window.refresh()
            window.grab().save(str(out / "main-window.png"))
            tabs = window.findChild(QTabWidget)
            for i in range(tabs.count() if tabs is not None else 0):
                assert tabs is not None
                tabs.setCurrentIndex(i)
                from gui.common.bridge import default_bridge

                default_bridge().wait_idle(3000)  # what the tab reads off the GUI thread
                app.processEvents()
                name = tabs.tabText(i).lower().replace(" ", "-").replace("&", "")
                window.grab().save(str(out / f"tab-{name}.png"))
            app.quit()

        QTimer.singleShot(8000, shoot)
    try:
        rc = app.exec()
    finally:
        console.stop()
        if sim is not None:
            sim.stop()
        window.close()
        window.deleteLater()
        app.processEvents()
    # Everything is committed and every thread joined.  Leave without interpreter
    # finalization, where PySide6 and pyqtgraph objects torn down in arbitrary order can
    # crash (seen: "bool_dealloc" during garbage collection at exit).
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
