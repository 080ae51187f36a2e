"""Floor scale: hundreds of simulated tables at 10x speed against a real console, offscreen.

For each table count (default 50, 100, 200, 500) this

1. writes a floor of that many tables (``floor_sim.write_floor``: links of 10 tables, WA01 and
   ML2 alternating) and starts the simulated controllers in a process of their own
   (``benchmarks/floor_sim.py``: real TCP, every frame recorded with its wall time);
2. runs the console in this process as ``podium console`` does (``ConsoleCore``: one link per
   table, the ledger writer, the printer thread to a folder) with the main window shown offscreen
   (``QT_QPA_PLATFORM=offscreen``), on a fresh SQLite ledger (WAL, ``synchronous=FULL``) or a
   fresh schema of a PostgreSQL database (``--db``);
3. decides every hit as it comes, from a thread of its own standing in for the supervisors at
   the pit's podiums: a flagged hit is rejected; the others' verification is opened
   (``Floor.freeze``, as the console's VerifyDialog does: a meter pay's amount is fixed), a
   payable one is paid with an Executive swipe at the amount shown ``--pin-seconds`` later
   for a meter pay (default 1 s: the linked tables play on meanwhile; a claim corrected when
   the cards say so), and swiped again at the amount a refusal names; a hit that pays nothing
   is rejected.  The summary counts the swipes refused because the amount moved
   (``AmountChanged``) and the pays that needed more than one swipe: both must be 0;
4. after ``--seconds`` of play and ``--drain`` seconds for the last rounds, compares the
   simulator's record with the ledger and prints one block of figures per run:

   - events/s (recorded by the ledger), batches (group commits) and their mean size;
   - p50/p95/p99 of controller event -> ledger (the event's batch committed), -> ACK (the
     controller has its acknowledgement) and -> screen (the console's widgets were given the
     event's effect: a table tile showing the round's new state, a hit row in the queue);
   - console CPU per thread (seconds and % of wall time), the GUI thread's share in particular;
   - reconnects, events lost (never acknowledged), events duplicated (ledger rows for the same
     table, boot and seq: the unique constraint says 0; and events acknowledged ok that the
     ledger does not hold) and meter drift: per level, the ledger's contributions (net of
     reversals) against the simulator's own record of the wagers the console accepted, and the
     PAY amounts the tables applied against the ledger's awards.

Tables start their first round at a random point of one round (``--stagger``, on by default:
real tables do not deal in lockstep); ``--no-stagger`` deals every table at the same instant.
The controller link is mutual TLS as on a casino floor (a test CA and one certificate per table
made for the run, ``podium certs``); ``--link plain-lab-only`` measures plain TCP, for the cost
of TLS.

    .venv/bin/python benchmarks/floor_scale.py [--tables 50 100 200 500] [--seconds 60]
        [--drain 15] [--pin-seconds 1] [--db postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--link tls|plain-lab-only] [--ledger-revision head|0013]
        [--link tls|plain-lab-only]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import floor_sim  # noqa: E402
from sqlalchemy import Engine, create_engine, func, select, text  # noqa: E402
from sqlalchemy.orm import Session, aliased  # noqa: E402

from core import floorconfig  # noqa: E402
from core.app.console import ConsoleCore  # noqa: E402
from core.app.demo import enroll_demo_employees, swipe_of  # noqa: E402
from core.controllers import certs  # noqa: E402
from core.ledger.db import make_engine, upgrade  # noqa: E402
from core.ledger.models import Award, MeterEntry, RefusedEvent  # noqa: E402
from core.ledger.models import ControllerEvent as EventRow  # noqa: E402
from core.tablegames.rules.paytables import load_paytables  # noqa: E402
from core.tablegames.views import AmountChanged  # noqa: E402
from printing.escpos.printers import printer_from_config  # noqa: E402
from printing.escpos.slip import PAPER  # noqa: E402

EXECUTIVE = swipe_of("2001")
WARMUP_S = 10.0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * len(s)) - 1))]


def fmt_ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    ms = [v * 1000 for v in values]
    return (f"p50 {pct(ms, 0.50):.0f} ms, p95 {pct(ms, 0.95):.0f} ms, p99 {pct(ms, 0.99):.0f} "
            f"ms, max {max(ms):.0f} ms ({len(ms)} events)")


# ------------------------------------------------------------------------------ the console side

class Supervisors(threading.Thread):
    """Pays or rejects every pending hit, like the supervisors of the pit (another thread, its
    own reads and writes: the console's GUI thread does none of this)."""

    def __init__(self, console: ConsoleCore, pin_seconds: float = 1.0,
                 freeze: bool = True) -> None:
        super().__init__(name="bench-supervisors", daemon=True)
        self.console = console
        self.stop_flag = threading.Event()
        # a meter pay's verification stays open this long before the swipe (the cards
        # checked, the card swiped, the PIN typed): the linked tables play on meanwhile
        self.pin_seconds = pin_seconds
        self.freeze = freeze  # False: no Jackpot Lock at verification (the old console)
        self.paid = 0
        self.rejected = 0
        self.changed_amounts = 0  # swipes refused with AmountChanged ("amount moved")
        self.multi_swipe = 0  # pays that needed more than one swipe
        self.errors: list[str] = []

    def run(self) -> None:
        floor = self.console.floor
        while not self.stop_flag.wait(0.5):
            try:
                pending = floor.snapshot().pending
            except Exception as exc:  # noqa: BLE001 - keep deciding
                self.errors.append(f"snapshot: {exc}")
                continue
            for h in pending:
                try:
                    self.decide(h)
                except ValueError as exc:
                    if "first" not in str(exc) and "already" not in str(exc):
                        self.errors.append(f"hit {h.hit_id}: {exc}")

    def decide(self, h: Any) -> None:
        """As a supervisor at the console: open the hit's verification (which freezes a meter
        pay's amount, as the VerifyDialog does), check the cards, swipe at the amount shown
        (after ``pin_seconds`` for a meter pay), swipe again at the amount a refusal names;
        a verification left without a decision is closed (its freeze given back)."""
        floor = self.console.floor
        if h.blocking or len(h.cards) != 7:
            floor.reject(h.hit_id, "benchmark: flagged or no cards", EXECUTIVE)
            self.rejected += 1
            return
        if self.freeze:
            floor.freeze(h.hit_id, "benchmark supervisors")
        decided = False
        try:
            v = floor.evaluate(h.hit_id, list(h.cards))
            if v.pay_hand is None or not v.payable:
                if any("first" in p for p in v.problems):
                    return  # another seat of the round is paid first
                floor.reject(h.hit_id, "benchmark: pays nothing", EXECUTIVE)
                decided = True
                self.rejected += 1
                return
            if v.source == "meter" and self.stop_flag.wait(self.pin_seconds):
                return
            expected, swipes = v.amount_cents, 0
            while not decided and swipes < 3:
                swipes += 1
                try:
                    floor.pay(h.hit_id, list(h.cards), EXECUTIVE, correct_claim=v.mismatch,
                              expected_cents=expected)
                    decided = True
                except AmountChanged as exc:
                    self.changed_amounts += 1
                    expected = exc.amount_cents  # the next swipe confirms the new amount
            if decided:
                self.paid += 1
                self.multi_swipe += swipes > 1
        finally:
            if not decided and self.freeze:
                floor.unfreeze(h.hit_id, "benchmark supervisors")


class ThreadCpu:
    """CPU seconds per thread of this process from /proc (Linux)."""

    def __init__(self) -> None:
        self.tick = os.sysconf("SC_CLK_TCK")
        self.start = self.read()

    def read(self) -> dict[int, float]:
        out: dict[int, float] = {}
        for tid in os.listdir("/proc/self/task"):
            try:
                fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(tid)] = (int(fields[11]) + int(fields[12])) / self.tick
        return out

    def since_start(self) -> dict[int, float]:
        now = self.read()
        return {tid: now[tid] - self.start.get(tid, 0.0) for tid in now}


def thread_names() -> dict[int, str]:
    names = {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
    names[threading.main_thread().native_id or 0] = "GUI (Qt main)"
    return names


# ------------------------------------------------------------------------------ one run

def fresh_engine(db: str | None, tmp: Path) -> tuple[Engine, str | None]:
    if db is None:
        return make_engine(f"sqlite:///{tmp / 'ledger.sqlite3'}"), None
    schema = f"bench_{secrets.token_hex(4)}"
    admin = create_engine(db)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    return make_engine(db, connect_args={"options": f"-csearch_path={schema}"},
                       pool_size=10), schema


def drop_schema(db: str, schema: str) -> None:
    admin = create_engine(db)
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()


def ledger_contributions(engine: Engine) -> dict[tuple[str, str], tuple[int, int]]:
    """Per level: contributions net of their reversals (exact units)."""
    from core.ledger.models import Level

    rev = aliased(MeterEntry)
    out: dict[tuple[str, str], tuple[int, int]] = {}
    with Session(engine) as s:
        levels = {lv.id: (lv.group_id, lv.name) for lv in s.scalars(select(Level))}
        kinds = ("contribution", "reserve_contribution")
        for lid, m, r in s.execute(select(MeterEntry.level_id, func.sum(MeterEntry.meter_delta),
                                          func.sum(MeterEntry.reserve_delta))
                                   .where(MeterEntry.kind.in_(kinds))
                                   .group_by(MeterEntry.level_id)):
            out[levels[lid]] = (int(m), int(r))
        for lid, m, r in s.execute(select(MeterEntry.level_id, func.sum(MeterEntry.meter_delta),
                                          func.sum(MeterEntry.reserve_delta))
                                   .join(rev, rev.id == MeterEntry.reverses_id)
                                   .where(MeterEntry.kind == "reversal", rev.kind.in_(kinds))
                                   .group_by(MeterEntry.level_id)):
            m0, r0 = out.get(levels[lid], (0, 0))
            out[levels[lid]] = (m0 + int(m), r0 + int(r))
    return out


def run_once(tables: int, args: argparse.Namespace, app: Any) -> dict[str, Any]:
    from gui.common.swipe import SwipeCatcher
    from gui.main_window import MainWindow

    tmp = Path(tempfile.mkdtemp(prefix=f"floor{tables}-"))
    floor_file = tmp / "floor.toml"
    pki = None
    if args.link == "tls":
        pki = tmp / "pki"
        certs.init(pki, floor_sim.table_ids(tables), organization="Podium Floor Benchmark")
    floor_sim.write_floor(floor_file, tables, args.base_port, certs=pki)
    config = floorconfig.load_floor(floor_file)
    paytables = load_paytables()
    record_file = tmp / "record.json"
    sim_cmd = [sys.executable, str(ROOT / "benchmarks" / "floor_sim.py"), "--floor",
               str(floor_file), "--speed", str(args.speed), "--seconds", str(args.seconds),
               "--drain", str(args.drain), "--seed", str(args.seed),
               "--jackpot-rate", str(args.jackpot_rate), "--record",
               str(record_file)] + (["--stagger"] if args.stagger else [])
    sim_log = open(tmp / "sim.log", "w")  # noqa: SIM115 - closed below
    sim = subprocess.Popen(sim_cmd, stdout=subprocess.PIPE, stderr=sim_log, text=True)
    assert sim.stdout is not None
    line = sim.stdout.readline()
    if not line.startswith("SIM READY"):
        raise SystemExit(f"the simulator did not start: {line!r} (see {tmp / 'sim.log'})")

    engine, schema = fresh_engine(args.db, tmp)
    upgrade(engine, args.ledger_revision)
    enroll_demo_employees(engine)
    printer = printer_from_config("file", directory=str(tmp / "slips"))
    console = ConsoleCore(engine, config, paytables, printer=printer, paper=PAPER)

    resolved: dict[tuple[str, str, int], float] = {}
    submit = console.floor.writer.submit_event

    def timed_submit(origin: Any, event: Any) -> Any:
        fut = submit(origin, event)
        key = (origin.table, origin.boot, origin.seq)
        fut.add_done_callback(lambda _f: resolved.setdefault(key, time.time()))
        return fut

    console.floor.writer.submit_event = timed_submit  # type: ignore[method-assign]
    profile = None
    if args.profile_writer:
        import cProfile

        profile = cProfile.Profile()
        commit = console.floor.writer._commit

        def profiled(batch: Any) -> None:
            profile.enable()
            try:
                commit(batch)
            finally:
                profile.disable()

        console.floor.writer._commit = profiled  # type: ignore[method-assign]

    catcher = SwipeCatcher()
    catcher.install(app)
    cpu = ThreadCpu()
    wall0 = time.time()
    console.start()
    from gui.common import collector

    collector.install(app, freeze=True)  # as the console does (gui/app.py)
    window = MainWindow(console, catcher)
    window.resize(1600, 980)
    window.show()

    names = {t.name: t.id for t in config.tables}
    shown_tables: dict[tuple[str, int | None, str], float] = {}
    shown_hits: dict[tuple[str, int, int], float] = {}
    grid_show, queue_show = window.grid.show_tables, window.queue.show_hits

    def spy_tables(views: list[Any]) -> None:
        grid_show(views)
        now = time.time()
        for t in views:
            shown_tables.setdefault((t.id, t.round_no, t.round_state), now)

    def spy_hits(hits: list[Any], at: Any) -> None:
        queue_show(hits, at)
        now = time.time()
        for h in hits:
            shown_hits.setdefault((names.get(h.table, h.table), h.round_no, h.seat), now)

    window.grid.show_tables = spy_tables  # type: ignore[method-assign]
    window.queue.show_hits = spy_hits  # type: ignore[method-assign]
    gui_time: dict[str, list[float]] = defaultdict(list)

    def timed(name: str, fn: Any) -> Any:
        def run(*a: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a)
            finally:
                gui_time[name].append(time.perf_counter() - t0)
        return run

    for name in ("_paint", "_on_change", "_on_snapshot", "_on_slips", "_tick"):
        setattr(window, name, timed(name, getattr(window, name)))

    supervisors = Supervisors(console, args.pin_seconds, args.freeze)
    supervisors.start()
    from PySide6.QtCore import QTimer

    deadline = args.seconds + args.drain + 2
    if args.screenshot:
        def shoot() -> None:
            window.grab().save(str(Path(args.screenshot).with_suffix(f".{tables}.png")))

        QTimer.singleShot(int(args.seconds * 1000), shoot)
    QTimer.singleShot(int(deadline * 1000), app.quit)
    app.exec()
    wall = time.time() - wall0
    per_thread = cpu.since_start()
    tnames = thread_names()
    supervisors.stop_flag.set()
    supervisors.join(5)
    writer_stats = console.floor.writer.stats
    window.close()
    console.stop()
    app.removeEventFilter(catcher)
    try:
        sim.wait(30)
    except subprocess.TimeoutExpired:
        sim.send_signal(signal.SIGTERM)
        sim.wait(10)
    sim_log.close()
    record = json.loads(record_file.read_text())
    if profile is not None:
        import pstats

        pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(40)

    # -- figures --------------------------------------------------------------------------------
    to_ledger: list[float] = []
    to_ack = floor_sim.ack_latencies(record)
    to_screen: list[float] = []
    # the same after the first WARMUP_S seconds of play (the console's start: every link
    # connecting, the first read of the floor and of every trend)
    warm_from = record["ready_at"] + WARMUP_S
    steady: dict[str, list[float]] = {"ledger": [], "ack": [], "screen": []}
    by_window: dict[int, list[float]] = defaultdict(list)
    screened = screenable = 0
    acked_ok: set[tuple[str, str, int]] = set()
    for tid, tab in record["tables"].items():
        boot = tab["boot"]
        for e in tab["events"]:
            key = (tid, boot, e["seq"])
            if e["ack_result"] == "ok":
                acked_ok.add(key)
            warm = e["sent_at"] >= warm_from
            if key in resolved:
                to_ledger.append(resolved[key] - e["sent_at"])
                if warm:
                    steady["ledger"].append(resolved[key] - e["sent_at"])
            if warm and e["acked_at"] is not None:
                steady["ack"].append(e["acked_at"] - e["sent_at"])
            p = e["payload"]
            target: float | None = None
            if e["ack_result"] != "ok":
                continue
            if e["type"] == "GameStarted":
                screenable += 1
                target = shown_tables.get((tid, p["round_no"], "locked"))
            elif e["type"] == "GameEnded":
                screenable += 1
                target = shown_tables.get((tid, p["round_no"], "ended"))
            elif e["type"] == "Misdealt":
                screenable += 1
                target = shown_tables.get((tid, p["round_no"], "misdealt"))
            elif e["type"] == "HitClaimed":
                target = shown_hits.get((tid, p["round_no"], p["seat"]))
                if target is not None:
                    screenable += 1
            if target is not None:
                screened += 1
                to_screen.append(max(0.0, target - e["sent_at"]))
                window_no = int((e["sent_at"] - record["ready_at"]) // 5)
                by_window[window_no].append(max(0.0, target - e["sent_at"]))
                if warm:
                    steady["screen"].append(max(0.0, target - e["sent_at"]))
    with Session(engine) as s:
        recorded = s.scalar(select(func.count()).select_from(EventRow)) or 0
        refused = s.scalar(select(func.count()).select_from(RefusedEvent)) or 0
        dup = s.execute(select(EventRow.table_id, EventRow.boot, EventRow.seq)
                        .group_by(EventRow.table_id, EventRow.boot, EventRow.seq)
                        .having(func.count() > 1)).all()
        in_ledger = {(t, b, q) for t, b, q in s.execute(
            select(EventRow.table_id, EventRow.boot, EventRow.seq))}
        awards = int(s.scalar(select(func.coalesce(func.sum(Award.amount_cents), 0))) or 0)
        first = s.scalar(select(func.min(EventRow.received_at)))
        last = s.scalar(select(func.max(EventRow.received_at)))
    missing = len(acked_ok - in_ledger)
    expected = floor_sim.expected_contributions(record, config, paytables)
    got = ledger_contributions(engine)
    drift = {k: (got.get(k, (0, 0))[0] - v[0], got.get(k, (0, 0))[1] - v[1])
             for k, v in expected.items() if got.get(k, (0, 0)) != v}
    applied = floor_sim.paid_cents(record)
    from core.ledger.balance_checks import check_balances

    invariant = check_balances(engine)
    span = (last - first).total_seconds() if first and last and last > first else wall
    threads: dict[str, float] = defaultdict(float)
    for tid, secs in per_thread.items():
        name = tnames.get(tid, "other (Qt/pool)")
        for prefix in ("podium-gui-read", "podium-io", "podium-gui-op", "bench-"):
            if name.startswith(prefix):
                name = prefix.rstrip("-_") + "*"
        threads[name] += secs
    engine.dispose()
    if schema is not None and args.db:
        drop_schema(args.db, schema)
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)  # the ledger, the record, the slips
    return {
        "tables": tables, "db": engine.dialect.name, "link": args.link,
        "ledger_revision": args.ledger_revision, "wall": wall,
        "events": recorded, "refused": refused, "events_per_s": recorded / span,
        "batches": writer_stats.batches, "jobs": writer_stats.jobs,
        "largest_batch": writer_stats.largest, "writer_busy_s": writer_stats.busy_s,
        "to_ledger": to_ledger, "to_ack": to_ack, "to_screen": to_screen, "steady": steady,
        "screen_by_5s": {k * 5: pct(v, 0.99) for k, v in sorted(by_window.items())},
        "screened": screened, "screenable": screenable,
        "threads": dict(threads), "reconnects": floor_sim.reconnects(record),
        "lost": floor_sim.lost(record), "retransmitted": floor_sim.retransmitted(record),
        "duplicated": len(dup), "acked_not_in_ledger": missing, "drift": drift,
        "levels": len(expected), "paid_applied_cents": applied, "awards_cents": awards,
        "paid": supervisors.paid, "rejected": supervisors.rejected,
        "amount_changed": supervisors.changed_amounts,
        "multi_swipe": supervisors.multi_swipe, "errors": supervisors.errors[:5],
        "invariant": invariant, "sim_cpu": record["process"],
        "gui": {k: (len(v), sum(v), max(v)) for k, v in gui_time.items()},
    }


def report(r: dict[str, Any]) -> None:
    wall = r["wall"]
    print(f"\n== {r['tables']} tables, {r['db']}, link {r['link']}, ledger revision "
          f"{r['ledger_revision']}, {wall:.0f} s ==")
    print(f"events recorded {r['events']} ({r['events_per_s']:.1f}/s), refused {r['refused']};"
          f" {r['batches']} group commits, mean {r['jobs'] / max(1, r['batches']):.1f} jobs, "
          f"largest {r['largest_batch']}, writer busy {r['writer_busy_s']:.1f} s")
    print(f"event -> ledger: {fmt_ms(r['to_ledger'])}")
    print(f"event -> ACK:    {fmt_ms(r['to_ack'])}")
    print(f"event -> screen: {fmt_ms(r['to_screen'])} "
          f"[{r['screened']} of {r['screenable']} shown]")
    st = r["steady"]
    print(f"after the first {WARMUP_S:.0f} s: ledger {fmt_ms(st['ledger'])}")
    print(f"{'':>20}ACK {fmt_ms(st['ack'])}")
    print(f"{'':>17}screen {fmt_ms(st['screen'])}")
    print("event -> screen p99 by 5 s of play: " + ", ".join(
        f"{t}s {v * 1000:.0f}" for t, v in r["screen_by_5s"].items()))
    busy = ", ".join(f"{name} {secs:.1f} s ({100 * secs / wall:.0f}%)"
                     for name, secs in sorted(r["threads"].items(), key=lambda kv: -kv[1])
                     if secs >= 0.05)
    print(f"console CPU by thread: {busy}")
    print(f"reconnects {r['reconnects']}, events lost {r['lost']}, retransmitted "
          f"{r['retransmitted']}, duplicated {r['duplicated']}, acked ok but not in the "
          f"ledger {r['acked_not_in_ledger']}")
    drift = ("0 on every level" if not r["drift"] else
             "; ".join(f"{g}/{lv}: meter {m:+d} reserve {rr:+d} units"
                       for (g, lv), (m, rr) in r["drift"].items()))
    print(f"meter drift ({r['levels']} levels): {drift}")
    print(f"hits paid {r['paid']}, rejected {r['rejected']}; amount moved "
          f"{r['amount_changed']} (must be 0), pays that needed more than one swipe "
          f"{r['multi_swipe']} (must be 0); PAY applied by tables "
          f"{r['paid_applied_cents'] / 100:,.2f} vs ledger awards "
          f"{r['awards_cents'] / 100:,.2f}")
    print(f"invariant: {'ok' if not r['invariant'] else r['invariant']}; simulator CPU "
          f"{r['sim_cpu']['cpu_user_s'] + r['sim_cpu']['cpu_system_s']:.1f} s")
    print("GUI handlers: " + ", ".join(f"{k} {n}x {tot:.2f} s (max {mx * 1000:.0f} ms)"
                                       for k, (n, tot, mx) in sorted(r["gui"].items())))
    if r["errors"]:
        print(f"supervisor errors (first {len(r['errors'])}): {r['errors']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[50, 100, 200, 500])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--drain", type=float, default=15.0)
    ap.add_argument("--speed", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jackpot-rate", type=float, default=0.0,
                    help="share of rounds dealt a stacked paying hand (floor_sim): more pays")
    ap.add_argument("--pin-seconds", type=float, default=1.0,
                    help="a meter pay's verification is open this long before the swipe")
    ap.add_argument("--no-freeze", dest="freeze", action="store_false",
                    help="for comparison: the supervisors do not freeze the amount when they "
                         "open a verification (the console before Jackpot Lock at verification)")
    ap.add_argument("--base-port", type=int, default=21000)
    ap.add_argument("--db", default=None, help="PostgreSQL URL (default: SQLite in a temp dir)")
    ap.add_argument("--no-stagger", dest="stagger", action="store_false")
    ap.add_argument("--link", choices=("tls", "plain-lab-only"), default="tls",
                    help="the controller link: mutual TLS (default) or plain TCP")
    ap.add_argument("--ledger-revision", default="head",
                    help="migrate the fresh ledger to this revision only (0013: without the "
                         "hash chain and guards, for the cost of the chain)")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument("--screenshot", default=None, metavar="PATH",
                    help="save the console window at the end of play (PATH.<tables>.png)")
    ap.add_argument("--profile-writer", action="store_true",
                    help="profile the ledger writer thread (cProfile, to stderr)")
    args = ap.parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    from PySide6.QtWidgets import QApplication

    from gui.common import theme

    app = QApplication.instance() or QApplication([])
    theme.apply(app)
    results = []
    for n in args.tables:
        r = run_once(n, args, app)
        report(r)
        results.append(r)
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{k: (v if not isinstance(v, list) or k == "errors" else
                  {"p50": pct(v, .5), "p95": pct(v, .95), "p99": pct(v, .99), "n": len(v)})
              for k, v in r.items() if k != "drift"} for r in results], indent=1, default=str))


if __name__ == "__main__":
    main()
