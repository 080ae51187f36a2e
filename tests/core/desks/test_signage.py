"""Signage from the ledger (core/desks/signage.py) on SQLite and PostgreSQL:
the amount is the ledger's, a waiting hit shows, an unreachable ledger is never shown as live,
and the display's engine can not write."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from core.controllers.events import GameStarted, HitClaimed
from core.desks.signage import (
    LIVE,
    LOCKED,
    PENDING,
    SignageError,
    SignPoller,
    Unreachable,
    read_fund,
    read_group,
)
from core.kernel.money import UNITS_PER_CENT
from core.pokerroom import fund as bbj_fund
from tests.core.tablegames.test_floor import (
    EXE,
    HANDS,
    PAYTABLES,
    SUP,
    Table,
    hit_ids,
    meter_units,
    staffed_floor,
    swipe,
)
from tests.desk_helpers import read_only_desk, read_only_engine


def test_the_sign_shows_the_ledger_meter_and_follows_it(engine: Engine) -> None:
    floor = staffed_floor(engine)
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    before = read_group(desk, "LINK")
    (main,) = before.levels
    assert (main.level, main.meter_cents, main.state) == ("MAIN", 1_000_000, LIVE)
    Table(floor, "T1").send(GameStarted(1, {1: 100, 2: 100}))  # 2 x $1 x 20% = 40 cents
    after = read_group(desk, "LINK")
    assert after.levels[0].meter_cents == meter_units(engine)[0] // UNITS_PER_CENT == 1_000_040
    floor.adjust("LINK", "MAIN", -40, "count correction", swipe(EXE), swipe(SUP))
    assert read_group(desk, "LINK").levels[0].meter_cents == 1_000_000


def test_a_hit_waiting_on_a_level_shows_pending_until_paid(engine: Engine) -> None:
    floor = staffed_floor(engine)
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100, 2: 100}))
    t1.send(HitClaimed(1, 2, "SF7_NATURAL"))
    (main,) = read_group(desk, "LINK").levels
    assert (main.state, main.hits, main.meter_cents) == (PENDING, 1, 1_000_040)
    floor.pay(hit_ids(engine)[0], HANDS["SF7_NATURAL"].split(), swipe(EXE))
    (main,) = read_group(desk, "LINK").levels
    assert (main.state, main.hits) == (LIVE, 0)


def test_a_hit_on_a_fixed_pay_does_not_mark_the_meter(engine: Engine) -> None:
    floor = staffed_floor(engine)
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    t1 = Table(floor, "T1")
    t1.send(GameStarted(1, {1: 100}))
    t1.send(HitClaimed(1, 1, "FOUR_OF_A_KIND"))  # paid from the tray
    assert hit_ids(engine)
    assert read_group(desk, "LINK").levels[0].state == LIVE


def test_jackpot_lock_shows_locked_with_the_fixed_amount(engine: Engine) -> None:
    floor = staffed_floor(engine)
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    l1 = Table(floor, "L1")
    l1.send(GameStarted(1, {1: 100}))
    m0, _ = meter_units(engine, "LOCK")
    l1.send(HitClaimed(1, 1, "SF7_NATURAL"))
    (main,) = read_group(desk, "LOCK").levels
    assert (main.state, main.hits, main.locked_cents) == (LOCKED, 1, m0 // UNITS_PER_CENT)
    assert main.meter_cents == meter_units(engine, "LOCK")[0] // UNITS_PER_CENT  # live, reseeded


def test_the_poker_room_sign_is_the_fund_main_amount(engine: Engine) -> None:
    floor = staffed_floor(engine)
    bbj_fund.create_fund(engine, "BBJ1", "Hold'em BBJ")
    bbj_fund.seed(engine, "BBJ1", 5_000_000, by="test", reason="opening seed")
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    sign = read_fund(desk, "BBJ1")
    assert (sign.name, sign.main_cents, sign.ceased) == ("Hold'em BBJ", 5_000_000, False)
    bbj_fund.seed(engine, "BBJ1", 12_345, by="test", reason="top up")
    assert read_fund(desk, "BBJ1").main_cents == 5_012_345


def test_unknown_group_or_fund_is_named(engine: Engine) -> None:
    floor = staffed_floor(engine)
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    with pytest.raises(SignageError, match=r"group 'NOPE' is not in the ledger \(groups: LINK, "
                                           r"LOCK\)"):
        read_group(desk, "NOPE")
    with pytest.raises(SignageError, match="fund 'NOPE' is not in the ledger"):
        read_fund(desk, "NOPE")


def test_the_display_engine_refuses_to_write(engine: Engine) -> None:
    staffed_floor(engine)
    ro = read_only_engine(engine)
    with ro.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM levels")).scalar_one() == 2
    for sql in ("UPDATE level_balances SET meter_units = 0",
                "INSERT INTO settings (key, value) VALUES ('x', 'y')",
                "DELETE FROM hits"):
        with ro.connect() as conn, pytest.raises(DBAPIError) as err:
            conn.execute(text(sql))
            conn.commit()
        assert any(w in str(err.value).lower() for w in
                   ("readonly", "read-only", "read only", "permission denied")), err.value
    assert meter_units(engine, "LINK")[0] == 1_000_000 * UNITS_PER_CENT  # untouched


def test_postgres_display_reads_as_the_reader_role(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only")
    ro = read_only_engine(engine)
    with ro.connect() as conn:
        assert conn.execute(text("SELECT current_user")).scalar_one() == "podium_reader"
        assert conn.execute(text("SHOW transaction_read_only")).scalar_one() == "on"


def test_an_unreachable_ledger_is_reported_not_shown_as_live(tmp_path: Path) -> None:
    """The ledger file goes away (a failed disk): the poller says since when, with no amount;
    put back, the sign is live again."""
    from core.ledger.db import make_engine, upgrade

    path = tmp_path / "ledger.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    floor = staffed_floor(engine)
    engine.dispose()
    desk = read_only_desk(engine, floor.config, PAYTABLES)
    clock = iter([datetime(2026, 12, 3, 10, 15, tzinfo=UTC), datetime(2026, 12, 3, 10, 16,
                                                                        tzinfo=UTC)])
    poller = SignPoller(lambda: read_group(desk, "LINK"), clock=lambda: next(clock))
    live = poller.poll()
    assert not isinstance(live, Unreachable) and live.levels[0].meter_cents == 1_000_000
    moved = tmp_path / "elsewhere.sqlite3"
    shutil.move(path, moved)
    down = poller.poll()
    assert isinstance(down, Unreachable)
    assert down.since == datetime(2026, 12, 3, 10, 15, tzinfo=UTC)
    assert "unable to open" in down.reason
    assert not hasattr(down, "levels")  # nothing of the last amount travels with it
    again = poller.poll()  # still down: the same "since"
    assert isinstance(again, Unreachable) and again.since == down.since
    shutil.move(moved, path)
    back = poller.poll()
    assert not isinstance(back, Unreachable) and back.levels[0].meter_cents == 1_000_000
    assert poller.down_since is None


@pytest.mark.postgres
def test_an_unreachable_postgres_server_is_reported() -> None:
    from core.desks.desk import Desk
    from core.desks.signage import display_engine
    from core.floorconfig import load_demo_floor

    # nothing listens on port 1: the connection is refused at once
    ro = display_engine("postgresql+psycopg://postgres@127.0.0.1:1/test")
    desk = Desk("surveillance", ro, load_demo_floor(), PAYTABLES)
    poller = SignPoller(lambda: read_group(desk, "WA01"))
    down = poller.poll()
    assert isinstance(down, Unreachable) and down.reason
