"""The paytable screen: exact house edges as `podium rules edge` gives them, the live return of
a progressive group following its meter, the RULES.md 4 warnings, and a slow count that runs
off the GUI thread with a busy indicator.

Screenshots go to /tmp/podium-shots/ (or $PODIUM_SCREENSHOT_DIR)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget
from sqlalchemy import Engine

from core.floorconfig import FloorConfig, load_demo_floor
from core.kernel.money import cents_to_units
from core.ledger.db import make_engine
from core.tablegames.rules.edge import bonus_edge, percent_text, progressive_edge
from core.tablegames.rules.enumerate import HandCounts, count_hands
from core.tablegames.rules.paytables import load_paytables
from gui.tablegames.paytable_screen import PaytableScreen
from tests.fake_printer import FakePrinter
from tests.harness import FloorHarness, wait_for
from tests.ledgers import migrate

SHOTS = Path(os.environ.get("PODIUM_SCREENSHOT_DIR") or "/tmp/podium-shots")
PAYTABLES = load_paytables()


def shot(widget: QWidget, name: str) -> None:
    QApplication.processEvents()  # let pending layout requests settle before the grab
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


# ------------------------------------------------------------------------------------------
# A light stand-in console: paytables, config, floor (snapshot + listeners)


@dataclass
class _Level:
    group: str
    level: str
    meter_units: int
    reserve_units: int = 0


@dataclass
class _Snapshot:
    levels: tuple[_Level, ...]


@dataclass
class _Change:
    action: str = "contribution"
    levels: frozenset[tuple[str, str]] = frozenset()


@dataclass
class StubFloor:
    meters: dict[tuple[str, str], int]  # (group, level) -> cents
    listeners: list[Callable[[Any], None]] = field(default_factory=list)

    def add_listener(self, fn: Callable[[Any], None]) -> Callable[[], None]:
        self.listeners.append(fn)
        return lambda: self.listeners.remove(fn)

    def snapshot(self) -> _Snapshot:
        return _Snapshot(tuple(_Level(g, lv, cents_to_units(c))
                               for (g, lv), c in self.meters.items()))

    def set_meter(self, group: str, level: str, cents: int) -> None:
        """As the floor does: change, then notify listeners (from another thread)."""
        self.meters[(group, level)] = cents
        change = _Change(levels=frozenset({(group, level)}))
        t = threading.Thread(target=lambda: [fn(change) for fn in self.listeners])
        t.start()
        t.join(30)
        assert not t.is_alive(), "the listeners did not return within 30 s"


@dataclass
class StubConsole:
    config: FloorConfig
    floor: StubFloor
    paytables: dict[str, Any] = field(default_factory=lambda: PAYTABLES)


def stub_console(config: FloorConfig | None = None) -> StubConsole:
    config = config or load_demo_floor()
    meters = {(g.id, lv.name): lv.seed_cents for g in config.groups for lv in g.levels}
    return StubConsole(config, StubFloor(meters))


@pytest.fixture
def screen_of(qtbot):  # type: ignore[no-untyped-def]
    def make(console: Any, **kw: Any) -> PaytableScreen:
        screen = PaytableScreen(console, **kw)
        qtbot.addWidget(screen)
        screen.resize(1000, 1000)  # about the tab's width in the main window
        screen.show()
        return screen
    return make


def _wait_rendered(qtbot, screen: PaytableScreen) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: screen.fig_edge.value.text() not in ("…", "—"), timeout=15000)


# ------------------------------------------------------------------------------------------
# Bonus tables: the exact house edge


@pytest.mark.parametrize("table_id", ["PT1", "PT3"])
def test_house_edge_shown_is_the_exact_edge_of_the_edge_command(qtbot, screen_of, table_id):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console())
    screen.select(table_id)
    _wait_rendered(qtbot, screen)
    exact = bonus_edge(PAYTABLES[table_id], count_hands("semi"))
    assert screen.fig_edge.value.text() == percent_text(exact.house_edge)
    assert screen.fig_return.value.text() == percent_text(exact.ret)
    assert screen.fig_third.value.text() == percent_text(exact.house_edge_with_envy)
    # every hand id with its exact count; the last row totals C(53,7) and the return
    best = exact.best
    counted = {screen.hands.cell(r, 0): screen.hands.cell(r, 2)
               for r in range(screen.hands.rowCount() - 1)}
    assert counted["Royal flush"] == f"{best['ROYAL_FLUSH']:,}"
    assert counted["Five aces"] == f"{best['FIVE_ACES']:,}"
    total_row = screen.hands.rowCount() - 1
    assert screen.hands.cell(total_row, 2) == "154,143,080"
    assert screen.hands.cell(total_row, 5) == percent_text(exact.ret)
    # envy for 0..5 other players, each the command's exact figure
    assert screen.envy.rowCount() == 6
    for others in range(6):
        e = bonus_edge(PAYTABLES[table_id], count_hands("semi"), others=others)
        assert screen.envy.cell(others, 2) == percent_text(e.house_edge_with_envy)
    assert screen.envy.cell(0, 2) == percent_text(exact.house_edge)  # no one to envy
    shot(screen, f"paytable-{table_id}")


def test_arrow_keys_move_through_the_paytables(qtbot, screen_of):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console())
    _wait_rendered(qtbot, screen)
    assert screen.list.hasFocus() or screen.list.currentRow() == 0
    first = screen.current
    qtbot.keyClick(screen.list, Qt.Key.Key_Down)
    assert screen.current is not None and screen.current is not first
    assert screen.title.text().startswith(screen.current.id)
    qtbot.keyClick(screen.list, Qt.Key.Key_Up)
    assert screen.current is first


def test_every_installed_paytable_is_listed_once(qtbot, screen_of):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console())
    listed = [screen.list.item(r).text().split("\n")[0] for r in range(screen.list.count())]
    assert sorted(listed) == sorted({t.id for t in PAYTABLES.values()})
    assert "PT1" in listed and "FPGPP-ML2" in listed and "FUPGPP-01" not in listed


# ------------------------------------------------------------------------------------------
# Progressive tables: the live return at the meter


def test_progressive_return_follows_the_live_meter(qtbot, screen_of):  # type: ignore[no-untyped-def]
    console = stub_console()
    screen = screen_of(console)
    screen.select("FPGPP-WA01")
    qtbot.waitUntil(lambda: "WA01" in screen.live_panels, timeout=15000)
    panel = screen.live_panels["WA01"]
    table, counts = PAYTABLES["FPGPP-WA01"], count_hands("semi")

    def expected(cents: int) -> str:
        return percent_text(progressive_edge(table, counts, meters=[{"MAIN": cents}])
                            .points[0].ret)

    assert panel.meters.value.text() == console.config.money.text(1_000_000)
    assert panel.ret.value.text() == expected(1_000_000)
    console.floor.set_meter("WA01", "MAIN", 5_432_100)
    qtbot.waitUntil(lambda: panel.ret.value.text() == expected(5_432_100), timeout=5000)
    assert panel.ret.value.text() != expected(1_000_000)
    assert panel.meters.value.text() == "$54,321.00"
    e = progressive_edge(table, counts, meters=[{"MAIN": 5_432_100}])
    assert panel.edge.value.text() == percent_text(e.points[0].house_edge)
    shot(screen, "paytable-FPGPP-WA01-live")


def test_multi_level_group_shows_every_meter_and_the_exact_return(qtbot, screen_of):  # type: ignore[no-untyped-def]
    console = stub_console()
    screen = screen_of(console)
    screen.select("FPGPP-ML2")
    qtbot.waitUntil(lambda: "ML2" in screen.live_panels, timeout=15000)
    panel = screen.live_panels["ML2"]
    meters = {"MEGA": 2_500_000, "MAJOR": 250_000, "MINOR": 50_000}
    e = progressive_edge(PAYTABLES["FPGPP-ML2"], count_hands("semi"), meters=[meters])
    assert panel.ret.value.text() == percent_text(e.points[0].ret)
    assert "MEGA $25,000.00" in panel.meters.value.text()
    assert screen.fig_third.isHidden()  # no single break-even meter: a plane, not a point
    shot(screen, "paytable-FPGPP-ML2-live")


def test_progressive_return_changes_when_a_real_round_moves_the_meter(qtbot, screen_of, tmp_path):  # type: ignore[no-untyped-def]
    engine: Engine = make_engine(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    migrate(engine)
    try:
        with FakePrinter() as printer, FloorHarness(engine, printer.port, tables=("PG-1",)) as h:
            screen = screen_of(h.console)
            screen.select("FPGPP-WA01")
            qtbot.waitUntil(lambda: "WA01" in screen.live_panels, timeout=15000)
            panel = screen.live_panels["WA01"]
            qtbot.waitUntil(lambda: panel.ret.value.text() not in ("—", ""), timeout=5000)
            before = panel.ret.value.text()
            sim = h.sims["PG-1"]
            h.on_sim(sim.force_wagers, [1, 2, 3, 4, 5, 6])
            h.on_sim(sim.step)  # START GAME: six wagers contribute to the meter

            def grown() -> Any:
                lv = next(lv for lv in h.console.floor.snapshot().levels if lv.group == "WA01")
                return lv if lv.meter_cents > 1_000_000 else None

            meter = wait_for(grown, what="the round's contributions")
            e = progressive_edge(PAYTABLES["FPGPP-WA01"], count_hands("semi"),
                                 meters=[{"MAIN": meter.meter_cents}])
            qtbot.waitUntil(lambda: panel.ret.value.text() == percent_text(e.points[0].ret),
                            timeout=10000)
            assert panel.ret.value.text() != before
            assert panel.meters.value.text() == h.console.config.money.text(meter.meter_cents)
            screen.close()
    finally:
        engine.dispose()


# ------------------------------------------------------------------------------------------
# Warnings (RULES.md 4)


def _risky_floor() -> FloorConfig:
    base = load_demo_floor()
    wa01 = base.group("WA01")
    main = replace(wa01.levels[0], seed_cents=0, allow_zero_seed=True,
                   contribution_rate=Decimal("0.10"))
    risky = replace(wa01, all_pays_from_meter=True, levels=(main,))
    return replace(base, groups=tuple(risky if g.id == "WA01" else g for g in base.groups))


def test_zero_seed_and_low_contribution_with_all_pays_from_meter_are_warned(qtbot, screen_of):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console(_risky_floor()))
    screen.select("FPGPP-WA01")
    qtbot.waitUntil(lambda: "WA01" in screen.live_panels, timeout=15000)
    panel = screen.live_panels["WA01"]
    lines = panel.warning_lines()
    assert any("seed 0.00" in w and "zero seed" in w for w in lines), lines
    assert any("contribution rate 0.10 is below 0.70" in w for w in lines), lines
    assert not panel.warnings.isHidden()
    assert panel.note.isHidden()  # every pay from the meter: no contribution ceiling applies
    shot(screen, "paytable-warnings")


def test_seed_below_the_largest_fixed_award_is_warned(qtbot, screen_of):  # type: ignore[no-untyped-def]
    base = load_demo_floor()
    ml2 = base.group("ML2")
    low = tuple(replace(lv, seed_cents=100) if lv.name == "MINOR" else lv for lv in ml2.levels)
    config = replace(base, groups=tuple(replace(ml2, levels=low) if g.id == "ML2" else g
                                        for g in base.groups))
    screen = screen_of(stub_console(config))
    screen.select("FPGPP-ML2")
    qtbot.waitUntil(lambda: "ML2" in screen.live_panels, timeout=15000)
    lines = screen.live_panels["ML2"].warning_lines()
    assert any("level MINOR: seed 1.00 is below the largest fixed award" in w for w in lines)


def test_demo_floor_groups_show_no_warning(qtbot, screen_of):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console())
    screen.select("FPGPP-WA01")
    qtbot.waitUntil(lambda: "WA01" in screen.live_panels, timeout=15000)
    panel = screen.live_panels["WA01"]
    assert panel.warning_lines() == []
    assert panel.warnings.isHidden()
    assert not panel.note.isHidden()  # says the preconfigured-rate check can not be made


# ------------------------------------------------------------------------------------------
# Slow counting: off the GUI thread, with a busy indicator


class SlowCount:
    """A counting function that blocks until released (a cold cache on a slow machine)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.calls: list[str] = []

    def __call__(self, joker: str) -> HandCounts:
        self.calls.append(joker)
        self.started.set()
        self.release.wait(30)
        return count_hands(joker)


@pytest.fixture
def slow_count() -> Iterator[SlowCount]:
    slow = SlowCount()
    yield slow
    slow.release.set()  # never leave a worker blocked


def test_slow_count_shows_busy_indicator_and_ui_stays_responsive(qtbot, screen_of, slow_count):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console(), count=slow_count)
    assert slow_count.started.wait(10)
    assert screen.fig_edge.value.text() == "…"
    qtbot.waitUntil(screen.is_busy, timeout=10000)  # shown once the count is still running
    assert screen.busy.isVisible() and "semi" in screen.busy_label.text()
    shot(screen, "paytable-counting")

    # the GUI thread is free: timers fire and the keyboard moves through the list
    ticks: list[int] = []
    timer = QTimer(screen)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=5000)
    timer.stop()
    row = screen.list.currentRow()
    qtbot.keyClick(screen.list, Qt.Key.Key_Down)
    assert screen.list.currentRow() == row + 1
    assert screen.title.text().startswith(screen.tables[row + 1].id)
    assert slow_count.calls == ["semi"]  # the same mode is not counted twice
    assert screen.is_busy()

    slow_count.release.set()
    qtbot.waitUntil(lambda: not screen.is_busy(), timeout=15000)
    _wait_rendered(qtbot, screen)
    exact = bonus_edge(screen.tables[row + 1], count_hands("semi"))
    assert screen.fig_edge.value.text() == percent_text(exact.house_edge)


def test_counts_already_known_show_no_busy_indicator(qtbot, screen_of):  # type: ignore[no-untyped-def]
    screen = screen_of(stub_console())
    _wait_rendered(qtbot, screen)
    assert not screen.is_busy()
    screen.select("PT3")  # same joker mode: answered from memory, at once
    assert not screen.is_busy()
    assert screen.fig_edge.value.text() == percent_text(
        bonus_edge(PAYTABLES["PT3"], count_hands("semi")).house_edge)


@pytest.mark.allow_logged_errors
def test_a_failed_count_is_shown_not_raised(qtbot, screen_of):  # type: ignore[no-untyped-def]
    def broken(joker: str) -> HandCounts:
        raise OSError("disk on fire")

    screen = screen_of(stub_console(), count=broken)
    qtbot.waitUntil(lambda: screen.error.isVisible(), timeout=10000)
    assert "disk on fire" in screen.error.text()
    assert not screen.is_busy()


# ------------------------------------------------------------------------------------------
# Meter risk: the simulation on a worker thread, plotted


def test_meter_risk_plots_the_meter_and_the_chance_of_running_dry(qtbot, screen_of, monkeypatch):  # type: ignore[no-untyped-def]
    meter_risk = pytest.importorskip("core.tablegames.meters.risk")
    from gui.tablegames import meter_risk_panel

    monkeypatch.setattr(meter_risk_panel, "RISK_ROUNDS", 3_000)
    monkeypatch.setattr(meter_risk_panel, "RISK_PATHS", 20)
    console = stub_console(_risky_floor())
    screen = screen_of(console)
    screen.select("FPGPP-WA01")
    qtbot.waitUntil(lambda: "WA01" in screen.live_panels, timeout=15000)
    panel = screen.risk_panel
    assert panel is not None and panel.run_btn.isEnabled()
    qtbot.mouseClick(panel.run_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.figures.text() != "", timeout=60000)
    assert panel.run_btn.isEnabled() and panel.busy.isHidden()
    # the same run, straight from core: the panel shows its exact figures
    group = console.config.group("WA01")
    table = PAYTABLES["FPGPP-WA01"]
    plans = meter_risk.level_plans(table, {"MAIN": 0}, {"MAIN": Decimal("0.10")},
                                   {"MAIN": group.levels[0].reserve_rate},
                                   starts_cents={"MAIN": 0})
    sim = meter_risk.simulate(table, count_hands("semi"), plans, rounds=3_000, paths=20,
                              all_pays_from_meter=True, rng_seed=meter_risk_panel.RISK_SEED)
    main = sim.level("MAIN")
    assert main.dry_paths > 0  # a zero seed at 10% with every pay from the meter runs dry
    assert f"({main.dry_paths:,} of 20)" in panel.dry.text()
    assert f"mean ${meter_risk.plot_data(sim)['MAIN'].labels['mean']}" in panel.figures.text()
    xs, ys = panel.curves["MAIN"].getData()
    assert xs is not None and len(xs) > 1
    shot(screen.risk_panel, "paytable-meter-risk")


# ------------------------------------------------------------------------------------------
# One way to the screen: the bridge


class _ThreadNotingFloor(StubFloor):
    def __init__(self, meters: dict[tuple[str, str], int]) -> None:
        super().__init__(meters)
        self.read_on: list[str] = []

    def snapshot(self) -> _Snapshot:
        self.read_on.append(threading.current_thread().name)
        return super().snapshot()


def test_the_meters_are_read_off_the_gui_thread(qtbot, screen_of):  # type: ignore[no-untyped-def]
    console = stub_console()
    floor = _ThreadNotingFloor(console.floor.meters)
    console.floor = floor
    screen = screen_of(console)
    screen.select("FPGPP-WA01")
    qtbot.waitUntil(lambda: "WA01" in screen.live_panels, timeout=15000)
    floor.set_meter("WA01", "MAIN", 5_432_100)
    qtbot.waitUntil(lambda: screen.live_panels["WA01"].meters.value.text() == "$54,321.00",
                    timeout=5000)
    assert floor.read_on
    assert threading.main_thread().name not in floor.read_on


def test_the_floor_listener_goes_with_the_screen(qtbot):  # type: ignore[no-untyped-def]
    import shiboken6

    console = stub_console()
    screen = PaytableScreen(console)
    assert len(console.floor.listeners) == 1
    shiboken6.delete(screen)
    assert console.floor.listeners == []
    console.floor.set_meter("WA01", "MAIN", 5_432_100)  # announced to nobody: nothing fails
    qtbot.wait(50)
