"""The table progressives' accounting (core/desks/accounting/) on a ledger of known rounds
(tests/accounting_ledger.py), on SQLite and PostgreSQL.

Every expected figure is worked out here by hand from the ledger's story (Decimal, RULES.md 4),
not by Podium's own arithmetic."""

from __future__ import annotations

from datetime import date, time
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from core.desks.accounting import liability, periods, reconcile, register
from core.desks.accounting.periods import PeriodError
from core.desks.accounting.reading import check_whole_hours
from core.desks.accounting.reconciliation import Flow
from core.desks.desk import Desk
from core.floorconfig import FloorConfigError, loads_floor
from printing.escpos.slip import PAPER
from tests import accounting_ledger as L

CENT = Decimal("0.01")
UNITS_PER_DOLLAR = 100_000_000


def units(amount: str | Decimal) -> int:
    value = Decimal(amount) * UNITS_PER_DOLLAR
    assert value == value.to_integral_value()
    return int(value)


@pytest.fixture
def desk(engine: Engine) -> Desk:
    L.build(engine)
    return Desk("accountant", engine, L.config(), L.PAYTABLES)


def day(desk: Desk) -> periods.Period:
    return periods.gaming_day(desk.config.casino, date(2025, 6, 2))


# --- the figures worked out by hand -----------------------------------------------------------
SEED = Decimal("10000.00")
RATE, RESERVE = Decimal("0.20"), Decimal("0.02")
WAGER = Decimal("1.00")
C, R = WAGER * RATE, WAGER * RESERVE  # 0.20 and 0.02 a wager
RF_SHARE = L.PAYTABLES["FPGPP-WA01"].pay_for("RF_ROYAL_MATCH").fraction
# LINK/MAIN: 2 wagers before the day; 3 + 1 + 1 before the RF pay at 01:20
LINK_OPEN = SEED + 2 * C
RF_METER = LINK_OPEN + 5 * C
RF_AWARD = (RF_METER * RF_SHARE).quantize(CENT, rounding=ROUND_FLOOR)
# then 2 wagers misdealt (in and back out), 1 wager, +1.50 adjustment
LINK_CLOSE = RF_METER - RF_AWARD + 2 * C - 2 * C + C + Decimal("1.50")
LINK_RESERVE_CLOSE = 2 * R + 8 * R - 2 * R
# LOCK/MAIN: 1 wager, then SF7 (100%) locks the whole meter (to the cent) and reseeds with the
# reserve; then 1 wager
LOCK_AWARD = (SEED + C).quantize(CENT, rounding=ROUND_FLOOR)
LOCK_CLOSE = SEED + C - LOCK_AWARD + SEED + R + C
LOCK_RESERVE_CLOSE = R - R + R


def test_the_gaming_day_reconciles_to_the_cent(desk: Desk) -> None:
    rec = reconcile.reconcile(desk, day(desk))
    assert rec.adds_up, rec.problems
    assert "Reconciled" in rec.verdict
    link, lock = rec.levels
    assert (link.group_id, link.level, lock.group_id, lock.level) == ("LINK", "MAIN", "LOCK",
                                                                      "MAIN")
    # LINK/MAIN
    assert (link.opening_meter, link.opening_reserve) == (units(LINK_OPEN), units(2 * R))
    assert link.lines["contribution"] == Flow(8, units(8 * C), 0)
    assert link.lines["reserve_contribution"] == Flow(8, 0, units(8 * R))
    assert link.lines["award"] == Flow(1, -units(RF_AWARD), 0)
    assert link.paid_from_meter == Flow(1, -units(RF_AWARD), 0)
    assert link.held_at_hit == Flow()
    assert link.lines["adjustment"] == Flow(1, units("1.50"), 0)
    assert link.lines["reversal"] == Flow(4, -units(2 * C), -units(2 * R))
    assert link.reversal_parts["contributions"] == link.lines["reversal"]
    assert link.reversal_parts["holds"] == Flow()
    assert link.lines["reseed"] == link.lines["seed"] == Flow()
    assert (link.closing_meter, link.closing_reserve) == (units(LINK_CLOSE),
                                                          units(LINK_RESERVE_CLOSE))
    assert (link.kept_meter, link.kept_reserve) == (link.closing_meter, link.closing_reserve)
    assert [(a.hand, a.source, a.count, a.cents) for a in link.awards] == [
        ("RF_ROYAL_MATCH", "meter", 1, int(RF_AWARD * 100))]
    # LOCK/MAIN: the hold at hit, the reseed and the reserve moved, paid later the same day
    assert (lock.opening_meter, lock.opening_reserve) == (units(SEED), 0)
    assert lock.lines["award"] == Flow(1, -units(LOCK_AWARD), 0)
    assert lock.paid_from_meter == Flow(1, -units(LOCK_AWARD), 0)  # paid by 06:10
    assert lock.held_at_hit == Flow()
    assert lock.lines["reseed"] == Flow(1, units(SEED), 0)
    assert lock.lines["reserve_move"] == Flow(1, units(R), -units(R))
    assert (lock.closing_meter, lock.closing_reserve) == (units(LOCK_CLOSE),
                                                          units(LOCK_RESERVE_CLOSE))
    assert [(a.hand, a.count, a.cents) for a in lock.awards] == [
        ("SF7_NATURAL", 1, int(LOCK_AWARD * 100))]
    # the tables' side
    g_link, g_lock = rec.groups
    assert (g_link.rounds, g_link.wagers, g_link.wager_cents, g_link.returned_wagers,
            g_link.returned_cents) == (5, 8, 800, 2, 200)
    assert g_link.contribution_units == g_link.level_contribution_units == units(8 * (C + R))
    assert g_link.reversal_units == g_link.level_reversal_units == -units(2 * (C + R))
    assert (g_lock.rounds, g_lock.wagers, g_lock.contribution_units) == (2, 2, units(2 * (C + R)))


def test_a_shift_cuts_the_day_where_the_floor_file_says(desk: Desk) -> None:
    casino = desk.config.casino
    assert casino.gaming_day_starts == time(6, 0)
    first = periods.shift(casino, date(2025, 6, 2), "day")  # 06:00-14:00 Manila
    assert (first.start, first.end) == (L.at(1, 22), L.at(2, 6))
    rec = reconcile.reconcile(desk, first)
    assert rec.adds_up, rec.problems
    lock = rec.levels[1]
    # the hold is in this shift, its pay (06:10 UTC) in the next: held, not yet paid
    assert lock.held_at_hit == Flow(1, -units(LOCK_AWARD), 0)
    assert lock.awards == ()
    swing = reconcile.reconcile(desk, periods.shift(casino, date(2025, 6, 2), "Swing"))
    assert swing.adds_up, swing.problems
    lock2 = swing.levels[1]
    assert lock2.lines["award"] == Flow()
    assert [(a.hand, a.cents) for a in lock2.awards] == [("SF7_NATURAL", int(LOCK_AWARD * 100))]
    assert (lock2.opening_meter, lock2.closing_meter) == (units(LOCK_CLOSE), units(LOCK_CLOSE))
    # shifts and days chain: a shift's closing is the next one's opening
    assert rec.levels[0].closing_meter == swing.levels[0].opening_meter


def test_the_day_after_opens_where_this_one_closed(desk: Desk) -> None:
    nxt = reconcile.reconcile(desk, periods.gaming_day(desk.config.casino, date(2025, 6, 3)))
    assert nxt.adds_up, nxt.problems
    link = nxt.levels[0]
    assert link.opening_meter == units(LINK_CLOSE)
    assert link.lines["contribution"] == Flow(1, units(C), 0)
    assert link.closing_meter == units(LINK_CLOSE + C)


def test_a_difference_is_named_to_the_unit(desk: Desk, engine: Engine) -> None:
    with engine.begin() as conn:  # a derived row changed behind Podium's back
        conn.execute(text("UPDATE level_hour_totals SET meter_units = meter_units + 1 "
                          "WHERE kind = 'adjustment'"))
    rec = reconcile.reconcile(desk, day(desk))
    assert not rec.adds_up
    assert "DOES NOT RECONCILE" in rec.verdict
    (problem,) = [p for p in rec.problems if "kept balance" in p]
    assert problem.startswith("level LINK/MAIN: closing by the movements")
    assert "difference meter $0.00000001, reserve $0.00" in problem


def test_an_award_paid_hours_after_its_hold_is_backed_by_the_hold(desk: Desk) -> None:
    p = periods.Period(L.at(2, 6), L.at(2, 7), "06:00-07:00 UTC")
    rec = reconcile.reconcile(desk, p)
    assert rec.adds_up, rec.problems
    assert [(a.hand, a.cents) for a in rec.levels[1].awards] == [
        ("SF7_NATURAL", int(LOCK_AWARD * 100))]
    assert rec.levels[1].lines["award"] == Flow()


def test_the_liability_at_a_moment_counts_what_is_held_for_a_pending_pay(desk: Desk) -> None:
    held = liability.liability(desk, L.at(2, 6))  # the SF7 hit locked, not yet paid
    link, lock = held.levels
    assert (link.meter_units, link.reserve_units, link.held_units) == (
        units(LINK_CLOSE), units(LINK_RESERVE_CLOSE), 0)
    assert (lock.meter_units, lock.reserve_units, lock.held_units) == (
        units(LOCK_CLOSE), units(LOCK_RESERVE_CLOSE), units(LOCK_AWARD))
    assert held.total_units == units(LINK_CLOSE + LINK_RESERVE_CLOSE + LOCK_CLOSE
                                     + LOCK_RESERVE_CLOSE + LOCK_AWARD)
    paid = liability.liability(desk, L.at(2, 7))
    assert paid.levels[1].held_units == 0
    now = liability.liability(desk)
    assert now.levels[0].meter_units == units(LINK_CLOSE + C)  # round 5 of the next day


def test_the_slip_register_lists_every_slip_in_order(desk: Desk) -> None:
    reg = register.slip_register(desk, day(desk))
    assert [(x.slip_no, x.table, x.seat, x.hand, x.source, x.cents) for x in reg.lines] == [
        (1, "T1", 1, "RF_ROYAL_MATCH", "meter", int(RF_AWARD * 100)),
        (2, "T1", 4, "FULL_HOUSE", "tray", 600),
        (3, "L1", 1, "SF7_NATURAL", "meter", int(LOCK_AWARD * 100)),
    ]
    assert reg.lines[0].authorized_by == "Exe Cutive #X1"
    assert reg.lines[1].authorized_by == ""  # auto-paid: nobody swiped
    assert [x.state for x in reg.lines] == ["paid, not printed"] * 3
    assert reg.gaps == () and reg.previous_slip is None
    assert reg.paid_cents == int((RF_AWARD + LOCK_AWARD) * 100) + 600
    local = desk.local(reg.lines[0].at)
    assert (local.hour, local.minute, local.utcoffset().total_seconds()) == (9, 20, 8 * 3600)


def test_a_missing_slip_number_is_named(desk: Desk, engine: Engine) -> None:
    swing = periods.shift(desk.config.casino, date(2025, 6, 2), "Swing")
    reg = register.slip_register(desk, swing)
    assert [x.slip_no for x in reg.lines] == [3] and reg.previous_slip == 2 and reg.gaps == ()
    # slips are append-only: only someone who takes the database's guard off can lose one
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.execute(text("DROP TRIGGER podium_slips_no_delete"))
        else:
            conn.execute(text("ALTER TABLE slips DISABLE TRIGGER USER"))
        conn.execute(text("DELETE FROM slips WHERE slip_no = 2"))
    reg = register.slip_register(desk, day(desk))
    assert [x.slip_no for x in reg.lines] == [1, 3]
    assert reg.gaps == ("slip 2 missing before slip 3",)


def test_hits_by_level_keeps_the_last_25(desk: Desk) -> None:
    rep = register.hits_by_level(desk, day(desk))
    assert [(lv.group_id, lv.level, lv.hits, lv.cents) for lv in rep.levels] == [
        ("LINK", "MAIN", 1, int(RF_AWARD * 100)),
        ("LINK", "TRAY", 1, 600),
        ("LOCK", "MAIN", 1, int(LOCK_AWARD * 100)),
    ]
    assert [(h.table, h.seat, h.hand, h.slip_no) for h in rep.levels[0].last] == [
        ("T1", 1, "RF_ROYAL_MATCH", 1)]
    before = register.hits_by_level(desk, periods.Period(L.at(1, 22), L.at(2, 1),
                                                         "before the pays"))
    assert all(lv.last == () for lv in before.levels if lv.level != "TRAY")


def test_drop_against_contributions_per_table(desk: Desk) -> None:
    rep = register.drop_by_table(desk, day(desk))
    by = {t.table: t for t in rep.tables}
    assert (by["T1"].rounds, by["T1"].wagers, by["T1"].drop_cents,
            by["T1"].net_contribution_units) == (3, 5, 500, units(5 * (C + R)))
    t2 = by["T2"]
    assert (t2.rounds, t2.wagers, t2.wager_cents, t2.returned_wagers, t2.returned_cents,
            t2.drop_cents) == (2, 3, 300, 2, 200, 100)
    assert (t2.contribution_units, t2.reversal_units) == (units(3 * (C + R)),
                                                          -units(2 * (C + R)))
    assert t2.rate == t2.configured_rate == RATE + RESERVE
    assert (by["L1"].wagers, by["L2"].wagers) == (1, 1)


def test_the_upgrade_backfills_the_table_totals_as_ingest_keeps_them(desk: Desk,
                                                                      engine: Engine) -> None:
    import importlib

    mig = importlib.import_module("core.ledger.migrations.versions.0016_accounting")
    cols = ("table_id", "hour", "rounds", "wagers", "wager_cents", "returned_wagers",
            "returned_cents", "contribution_units", "reversal_units")
    order = " ORDER BY table_id, hour"
    with engine.begin() as conn:
        kept = [tuple(r) for r in conn.execute(text(
            f"SELECT {', '.join(cols)} FROM table_hour_totals{order}"))]
        conn.execute(text("DELETE FROM table_hour_totals"))
        mig._backfill(conn, engine.dialect.name)
        made = [tuple(r) for r in conn.execute(text(
            f"SELECT {', '.join(cols)} FROM table_hour_totals{order}"))]
    assert len(kept) == 9  # T1: 5 hours, T2: 2, L1, L2
    assert made == kept


def test_periods_must_fall_on_whole_utc_hours() -> None:
    kolkata = L.FLOOR.replace("Asia/Manila", "Asia/Kolkata")  # UTC+5:30
    with pytest.raises(FloorConfigError, match="gaming_day_starts: the gaming day starts at "
                       "06:00, which in Asia/Kolkata is 30 minutes past a whole hour of UTC"):
        loads_floor(kolkata, "k.toml")
    ok = loads_floor(kolkata.replace('currency_symbol = "$"', 'currency_symbol = "$"\n'
                                     'gaming_day_starts = "05:30"'), "k.toml")
    d = periods.gaming_day(ok.casino, date(2025, 6, 2))
    check_whole_hours(d)
    assert [s for s, _ in ok.casino.shifts] == ["Day", "Swing", "Grave"]
    with pytest.raises(PeriodError, match="whole hours of UTC"):
        check_whole_hours(periods.Period(L.at(2, 1, 30), L.at(2, 3), "x"))


def test_gaming_days_across_a_daylight_saving_change() -> None:
    ny = loads_floor(L.FLOOR.replace("Asia/Manila", "America/New_York"), "ny.toml").casino
    # clocks go forward at 02:00 on 9 March: inside the gaming day that began at 06:00 on the 8th
    spring = periods.gaming_day(ny, date(2025, 3, 8))
    assert (spring.end - spring.start).total_seconds() == 23 * 3600
    fall = periods.gaming_day(ny, date(2025, 11, 1))
    assert (fall.end - fall.start).total_seconds() == 25 * 3600
    month = periods.month(ny, 2025, 11)
    assert month.start == periods.gaming_day(ny, date(2025, 11, 1)).start
    assert month.end == periods.gaming_day(ny, date(2025, 12, 1)).start
    assert periods.gaming_day_of(ny, month.start) == date(2025, 11, 1)


@pytest.mark.parametrize(("words", "message"), [
    ({"day": "2025-13-01"}, "not a date"),
    ({"month_text": "2025-13"}, "not 1 to 12"),
    ({"day": "2025-06-02", "month_text": "2025-06"}, "exactly one"),
    ({"shift_name": "Swing", "days": ("2025-06-01", "2025-06-02")}, "needs the gaming day"),
    ({"day": "2025-06-02", "shift_name": "Night"}, "not one of Day, Swing, Grave"),
    ({"days": ("2025-06-02", "2025-06-01")}, "is before"),
    ({"start": "2025-06-02 06:00"}, "a start needs an end"),
])
def test_bad_period_words_are_named(words: dict[str, object], message: str) -> None:
    with pytest.raises(PeriodError, match=message):
        periods.parse_period(L.config().casino, **words)  # type: ignore[arg-type]


# --- exports and the command line ---------------------------------------------------------------

def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from core.cli.dispatch import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def ledger_files(tmp_path: Path) -> tuple[str, str]:
    """The known ledger in a SQLite file, and its floor file (what `podium report` reads)."""
    from core.ledger.db import make_engine
    from tests.ledgers import migrate

    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    eng = make_engine(url)
    migrate(eng)
    L.build(eng)
    eng.dispose()
    floor = tmp_path / "floor.toml"
    floor.write_text(L.FLOOR)
    return url, str(floor)


def test_the_xlsx_reads_back_every_figure(ledger_files: tuple[str, str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import openpyxl

    url, floor = ledger_files
    out = tmp_path / "rec.xlsx"
    code, _, err = _cli(["report", "reconcile", "--db", url, "--floor", floor, "--day",
                         "2025-06-02", "--format", "xlsx", "--out", str(out)], capsys)
    assert code == 0, err
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Reconciliation", "Awards by hand", "Wagers and contributions"]
    rows = [tuple(c.value for c in r) for r in wb["Reconciliation"].iter_rows()]
    head = rows.index(("Level", "Line", "Entries", "Meter", "Reserve"))
    body = {(r[0], r[1]): r[2:] for r in rows[head + 1:]}

    def money(v: object) -> Decimal:
        return Decimal(str(v)).quantize(Decimal("0.00000001"))

    def same(got: object, want: Decimal) -> bool:
        return money(got) == want.quantize(Decimal("0.00000001"))

    assert same(body[("LINK/MAIN", "Opening")][1], LINK_OPEN)
    assert same(body[("LINK/MAIN", "Closing")][1], LINK_CLOSE)
    assert same(body[("LINK/MAIN", "Closing")][2], LINK_RESERVE_CLOSE)
    assert body[("LINK/MAIN", "Contributions")][0] == 8
    assert same(body[("LINK/MAIN", "Awards and holds at hit")][1], -RF_AWARD)
    assert same(body[("LOCK/MAIN", "Closing")][1], LOCK_CLOSE)
    assert any("Reconciled" in str(r[0]) for r in rows[:head])
    awards = [tuple(c.value for c in r) for r in wb["Awards by hand"].iter_rows()]
    i = awards.index(("Level", "Hand", "Paid from", "Awards", "Amount"))
    assert [(a[0], a[1], a[3], money(a[4])) for a in awards[i + 1:]] == [
        ("LINK/MAIN", "RF_ROYAL_MATCH", 1, money(RF_AWARD)),
        ("LOCK/MAIN", "SF7_NATURAL", 1, money(LOCK_AWARD))]


def test_the_csv_parses_with_the_csv_module(ledger_files: tuple[str, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import csv
    import io

    url, floor = ledger_files
    code, out, err = _cli(["report", "slips", "--db", url, "--floor", floor, "--day",
                           "2025-06-02", "--format", "csv"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["Slip"], r["Table"], r["Hand"], Decimal(r["Amount"])) for r in rows] == [
        ("1", "T1", "RF_ROYAL_MATCH", RF_AWARD), ("2", "T1", "FULL_HOUSE", Decimal("6.00")),
        ("3", "L1", "SF7_NATURAL", LOCK_AWARD)]
    assert rows[0]["Time"] == "2025-06-02 09:20:00"  # Manila time
    code, out, err = _cli(["report", "drop", "--db", url, "--floor", floor, "--day",
                           "2025-06-02", "--format", "csv"], capsys)
    by = {r["Table"]: r for r in csv.DictReader(io.StringIO(out))}
    assert (by["T2"]["Wagered"], by["T2"]["Returned"], by["T2"]["Drop"]) == ("3.00", "2.00",
                                                                          "1.00")
    assert Decimal(by["T2"]["Net contributions"]) == C + R


def test_json_and_text_and_pdf(ledger_files: tuple[str, str], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    import json

    url, floor = ledger_files
    code, out, _ = _cli(["report", "reconcile", "--db", url, "--floor", floor, "--day",
                         "2025-06-02", "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["reconciled"] is True
    closing = doc["levels"][0]["closing"]
    assert (Decimal(closing["meter"]), Decimal(closing["reserve"])) == (LINK_CLOSE,
                                                                        LINK_RESERVE_CLOSE)
    assert closing["meter"] == f"{LINK_CLOSE.quantize(CENT)}"  # money as text, to the cent
    code, out, _ = _cli(["report", "liability", "--db", url, "--floor", floor, "--at",
                         "2025-06-02 14:00"], capsys)
    assert code == 0
    total = LINK_CLOSE + LINK_RESERVE_CLOSE + LOCK_CLOSE + LOCK_RESERVE_CLOSE + LOCK_AWARD
    assert f"${total.quantize(CENT):,}" in out.splitlines()[-1]
    pdf = tmp_path / "hits.pdf"
    code, _, err = _cli(["report", "hits", "--db", url, "--floor", floor, "--day",
                         "2025-06-02", "--format", "pdf", "--out", str(pdf)], capsys)
    assert code == 0, err
    assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(("extra", "message"), [
    (["--format", "xlsx"], "--format xlsx needs --out FILE"),
    (["--start", "2025-06-02 06:30", "--end", "2025-06-02 08:00"], "whole hours of UTC"),
    (["--from", "2025-06-01"], "--from and --to go together"),
    (["--format", "csv", "--sheet", "7"], "this report has sheets 1 to 3"),
    (["--out", "/no/such/folder/x.csv"], "does not exist"),
])
def test_bad_report_requests_are_named(ledger_files: tuple[str, str], extra: list[str],
                                       message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    url, floor = ledger_files
    words = ["report", "reconcile", "--db", url, "--floor", floor]
    if not any(e in ("--start", "--from") for e in extra):
        words += ["--day", "2025-06-02"]
    code, out, err = _cli(words + extra, capsys)
    assert code == 2 and message in err and "Traceback" not in err
    assert out == ""


def test_a_missing_ledger_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(["report", "reconcile", "--db", f"sqlite:///{tmp_path / 'none.db'}",
                         "--day", "2025-06-02"], capsys)
    assert code == 2 and "no ledger at" in err and "none.db" in err


def test_audit_verify_checks_the_table_totals(desk: Desk, engine: Engine) -> None:
    from core.ledger.audit import verify

    assert verify(engine).ok
    with engine.begin() as conn:  # a derived row changed behind Podium's back
        conn.execute(text("UPDATE table_hour_totals SET wager_cents = wager_cents + 100 "
                          "WHERE table_id = 'T2'"))
    report = verify(engine)
    assert not report.ok
    # T2's two hours (23:00, 02:00 UTC) each 1.00 more than its 3 wagers of 1.00
    assert [b.message for b in report.breaks if b.check == "meters"] == [
        "table T2: kept hourly totals say 500 cents wagered, its rounds and entries 300"]


def test_a_table_moved_to_another_link_counts_with_the_link_it_played_for(desk: Desk,
                                                                       engine: Engine) -> None:
    """T2 moves from LINK to LOCK at a floor start after the day: the day still reconciles
    (T2's rounds of that day fed LINK), and a round T2 opened before the move can still be
    misdealt after it (its contributions go back to LINK's level)."""
    from core.controllers.events import GameStarted, Misdealt, Origin
    from core.floorconfig import loads_floor
    from core.tablegames.floor import Floor
    from tests.approvals import approve_floor

    clock = L.SetClock(L.at(3, 1))
    before_move = Floor(engine, L.config(), L.PAYTABLES, clock=clock, paper=PAPER)
    before_move.set_link("T2", True)
    before_move.handle(Origin("T2", "boot2", 1), GameStarted(9, {1: 100}))
    moved = loads_floor(L.FLOOR.replace('id = "T2"\ngroup = "LINK"', 'id = "T2"\ngroup = "LOCK"'),
                        "moved.toml")
    clock.now = L.at(3, 2)
    floor = Floor(engine, moved, L.PAYTABLES, clock=clock, paper=PAPER)
    approve_floor(engine, moved)  # the table feeds another meter: an executive approves it
    floor.start()
    floor.set_link("T2", True)
    clock.now = L.at(3, 3)
    floor.handle(Origin("T2", "boot2", 2), Misdealt(9))
    rec = reconcile.reconcile(desk, day(desk))
    assert rec.adds_up, rec.problems
    assert rec.groups[0].group_id == "LINK" and rec.groups[0].wagers == 8
    nxt = reconcile.reconcile(desk, periods.gaming_day(desk.config.casino, date(2025, 6, 3)))
    assert nxt.adds_up, nxt.problems
    link = nxt.levels[0]
    assert link.reversal_parts["contributions"] == Flow(2, -units(C), -units(R))
    # the round was T2's in LINK, the misdeal T2's in LOCK: said, not a difference
    assert len(nxt.notes) == 2 and all("T2 moved between links" in n for n in nxt.notes)


def test_a_rejected_full_lock_gives_back_its_reseed_and_reserve_move_as_holds(
        desk: Desk, engine: Engine) -> None:
    from core.controllers.events import GameStarted, HitClaimed, Origin
    from core.tablegames.floor import Floor

    clock = L.SetClock(L.at(3, 1))
    floor = Floor(engine, L.config(), L.PAYTABLES, clock=clock, paper=PAPER)
    floor.set_link("L1", True)
    floor.handle(Origin("L1", "boot2", 1), GameStarted(2, {1: 100}))
    floor.handle(Origin("L1", "boot2", 2), HitClaimed(2, 1, "SF7_NATURAL"))
    clock.now = L.at(3, 2)
    with engine.connect() as conn:
        hit = int(conn.exec_driver_sql("SELECT max(id) FROM hits").scalar_one())
    floor.reject(hit, "surveillance: cards switched", L.swipe(L.EXE))
    rec = reconcile.reconcile(desk, periods.gaming_day(desk.config.casino, date(2025, 6, 3)))
    assert rec.adds_up, rec.problems
    lock = rec.levels[1]
    assert lock.reversal_parts["other"] == Flow()
    assert lock.reversal_parts["holds"].entries == 3  # the award, the reseed, the reserve move
    assert lock.held_at_hit.entries == 1  # the hold was written this day, never paid
    assert lock.closing_meter == units(LOCK_CLOSE + C)  # all given back but the new wager
    assert lock.closing_reserve == units(LOCK_RESERVE_CLOSE + R)


def test_the_liability_on_a_leap_day(desk: Desk) -> None:
    from datetime import UTC, datetime

    li = liability.liability(desk, datetime(2028, 2, 29, 10, tzinfo=UTC))
    assert li.levels[0].meter_units == units(LINK_CLOSE + C)


def test_a_figure_a_spreadsheet_number_can_not_hold_is_written_as_its_digits() -> None:
    from core.desks.accounting.sheets import _xlsx_value

    assert _xlsx_value(Decimal("5000.70")) == 5000.7
    assert _xlsx_value(Decimal("12345678.12345678")) == "12345678.12345678"
    assert _xlsx_value(Decimal("0.00000001")) == 1e-08
