"""The room display (gui/desks/signage.py, ``podium display``): it shows the ledger's amounts and
follows them, PENDING when a hit waits, takes the amounts off the screen when the ledger does not
answer, and names an unknown group or fund in one line (exit 2)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine

from core.controllers.events import GameStarted, HitClaimed
from core.desks.signage import SignPoller, read_fund, read_group
from core.kernel.money import Currency
from core.ledger.db import make_engine
from core.pokerroom import fund as bbj_fund
from gui.desks.signage import HIDDEN, STALE_S, SignageWindow
from printing.escpos.slip import PAPER
from tests.core.tablegames.test_floor import (
    EXE,
    HANDS,
    PAYTABLES,
    SUP,
    Table,
    hit_ids,
    staffed_floor,
    swipe,
)
from tests.desk_helpers import read_only_desk
from tests.ledgers import migrate

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")


def _window(qtbot, desk, group: str = "LINK") -> SignageWindow:  # type: ignore[no-untyped-def]
    poller = SignPoller(lambda: read_group(desk, group))
    w = SignageWindow(poller, money=desk.config.money, tz=desk.tz,
                      title=group, poll_ms=100)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    return w


def _amounts(w: SignageWindow) -> list[str]:
    return [r.amount for r in w.board.rows]


def _shot(w: SignageWindow, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        w.grab().save(str(Path(SHOTS) / name))


def test_the_display_shows_the_ledger_amount_and_follows_it(qtbot, sqlite_engine: Engine) -> None:  # type: ignore[no-untyped-def]
    floor = staffed_floor(sqlite_engine)
    w = _window(qtbot, read_only_desk(sqlite_engine, floor.config, PAYTABLES))
    qtbot.waitUntil(lambda: w.board.live and _amounts(w) == ["$10,000.00"])
    assert w.board.title == "LINK" and w.board.rows[0].label == "MAIN"
    Table(floor, "T1").send(GameStarted(1, {1: 100, 2: 100}))
    qtbot.waitUntil(lambda: _amounts(w) == ["$10,000.40"])
    floor.adjust("LINK", "MAIN", 100_000, "count correction", swipe(EXE), swipe(SUP))
    qtbot.waitUntil(lambda: _amounts(w) == ["$11,000.40"])
    w.grab()  # paints without a warning


def test_the_display_shows_pending_while_a_hit_waits(qtbot, sqlite_engine: Engine) -> None:  # type: ignore[no-untyped-def]
    floor = staffed_floor(sqlite_engine)
    w = _window(qtbot, read_only_desk(sqlite_engine, floor.config, PAYTABLES))
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    t1.send(HitClaimed(1, 2, "SF7_NATURAL"))
    qtbot.waitUntil(lambda: w.board.rows[0].banner.startswith("PENDING"))
    assert w.board.live and _amounts(w) == ["$10,000.40"]
    floor.pay(hit_ids(sqlite_engine)[0], HANDS["SF7_NATURAL"].split(), swipe(EXE))
    qtbot.waitUntil(lambda: w.board.rows[0].banner == "")
    assert _amounts(w) == ["$10,000.04"]  # reseeded: seed + the reserve of 2 wagers


def test_an_unreachable_ledger_takes_the_amounts_off_the_screen(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "ledger.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    floor = staffed_floor(engine)
    w = _window(qtbot, read_only_desk(engine, floor.config, PAYTABLES))
    qtbot.waitUntil(lambda: w.board.live and _amounts(w) == ["$10,000.00"])
    away = tmp_path / "away.sqlite3"
    shutil.move(path, away)  # the disk under the ledger is gone
    qtbot.waitUntil(lambda: not w.board.live)
    assert _amounts(w) == [HIDDEN] and w.board.rows[0].label == "MAIN"
    assert w.board.status.startswith("LEDGER UNREACHABLE since ")
    assert not any("$" in r.amount for r in w.board.rows)
    _shot(w, "signage-unreachable.png")
    shutil.move(away, path)
    qtbot.waitUntil(lambda: w.board.live and _amounts(w) == ["$10,000.00"])
    engine.dispose()


def test_a_read_that_hangs_does_not_leave_a_stale_amount_live(qtbot, sqlite_engine: Engine) -> None:  # type: ignore[no-untyped-def]
    floor = staffed_floor(sqlite_engine)
    w = _window(qtbot, read_only_desk(sqlite_engine, floor.config, PAYTABLES))
    qtbot.waitUntil(lambda: w.board.live)
    w._timer.stop()  # no read answers any more (as when the network drops packets)
    w.check_stale(time.monotonic() + STALE_S + 1)
    assert not w.board.live and _amounts(w) == [HIDDEN]
    assert w.board.status.startswith("LEDGER UNREACHABLE since ")


def test_the_display_never_wrote(qtbot, sqlite_engine: Engine) -> None:  # type: ignore[no-untyped-def]
    from tests.core.tablegames.test_floor import counts

    floor = staffed_floor(sqlite_engine)
    before = counts(sqlite_engine)
    w = _window(qtbot, read_only_desk(sqlite_engine, floor.config, PAYTABLES))
    qtbot.waitUntil(lambda: w.answers >= 3)
    assert counts(sqlite_engine) == before


def test_the_poker_room_display_shows_the_bad_beat_jackpot(qtbot, sqlite_engine: Engine) -> None:  # type: ignore[no-untyped-def]
    floor = staffed_floor(sqlite_engine)
    bbj_fund.create_fund(sqlite_engine, "bbj", "Poker room BBJ")
    bbj_fund.seed(sqlite_engine, "bbj", 5_000_000, by="test", reason="opening seed")
    desk = read_only_desk(sqlite_engine, floor.config, PAYTABLES)
    w = SignageWindow(SignPoller(lambda: read_fund(desk, "bbj")), money=desk.config.fund_money,
                      tz=desk.tz, title="bbj", poll_ms=100)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: w.board.live and _amounts(w) == ["₱50,000.00"])
    assert w.board.title == "Poker room BBJ" and w.board.rows[0].label == "BAD BEAT JACKPOT"
    bbj_fund.seed(sqlite_engine, "bbj", 123_456, by="test", reason="top up")
    qtbot.waitUntil(lambda: _amounts(w) == ["₱51,234.56"])
    qtbot.wait(50)
    _shot(w, "signage-bbj.png")


@pytest.mark.parametrize("what", [["--group", "NOPE"], ["--bbj", "NOPE"]])
def test_an_unknown_group_or_fund_is_one_line_and_exit_2(capsys, sqlite_engine: Engine,
                                                         what: list[str]) -> None:
    from core.cli.dispatch import main

    staffed_floor(sqlite_engine)
    url = sqlite_engine.url.render_as_string(hide_password=False)
    assert main(["display", *what, "--db", url, "--windowed"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("podium display: ") and "NOPE" in err[0]
    assert "is not in the ledger" in err[0] and "Traceback" not in err[0]


def test_a_missing_ledger_file_is_one_line_and_exit_2(capsys, tmp_path: Path) -> None:
    from core.cli.dispatch import main

    assert main(["display", "--group", "WA01", "--db",
                 f"sqlite:///{tmp_path / 'none.sqlite3'}"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("podium display: no ledger at ") and "check --db" in line


def test_screenshot_of_a_group_with_a_hit_waiting(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    if not SHOTS:
        return
    from core.floorconfig import load_demo_floor
    from core.tablegames.floor import Floor

    engine = make_engine(f"sqlite:///{tmp_path / 'demo.sqlite3'}")
    migrate(engine)
    floor = Floor(engine, load_demo_floor(), PAYTABLES, paper=PAPER)
    floor.start()
    for t in ("PG-4", "PG-5"):
        floor.set_link(t, True)
    pg4, pg5 = Table(floor, "PG-4"), Table(floor, "PG-5")
    for r in range(1, 40):
        pg4.send(GameStarted(r, {1: 100, 2: 100, 4: 100, 6: 100}))
    pg5.send(GameStarted(1, {3: 100}))
    pg5.send(HitClaimed(1, 3, "ROYAL_FLUSH"))  # MINOR: waiting for the supervisor
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    w = _window(qtbot, desk, "ML2")
    qtbot.waitUntil(lambda: w.board.live and len(w.board.rows) == 3)
    assert [r.banner_kind for r in w.board.rows] == ["", "", "pending"]
    qtbot.wait(50)
    _shot(w, "signage-group.png")
    engine.dispose()


def test_the_board_says_jackpot_locked_with_the_fixed_amount_and_the_live_meter() -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from core.desks.signage import LOCKED, GroupSign, LevelSign
    from gui.desks.signage import board_of

    sign = GroupSign("LOCK", "Lock Link", (LevelSign("MAIN", 1_000_020, LOCKED, 1, 1_250_000),),
                     datetime(2026, 12, 3, 9, 30, 5, tzinfo=UTC))
    board = board_of(sign, money=Currency("PHP", "en_PH"), tz=ZoneInfo("Asia/Manila"),
                     title="LOCK", labels=())
    (row,) = board.rows
    assert row.amount == "₱10,000.20"  # the live meter
    assert row.banner == "JACKPOT LOCKED · ₱12,500.00 WON · 1 HIT BEING VERIFIED"
    assert row.banner_kind == "locked" and board.live
    assert board.status == "live from the ledger · 17:30:05"
