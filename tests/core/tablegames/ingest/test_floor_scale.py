"""The floor core built for a whole casino floor (issue 9), on SQLite and PostgreSQL:

- the ledger writer commits controller events in batches (group commit), each still idempotent
  on (table, boot, seq), a refused event refused on its own, and acknowledged (its future done)
  only once its batch committed;
- kept meter balances and hourly totals always equal the entries (the invariant check says so,
  and says when they do not);
- reads never wait for the SQLite write lock;
- a pay carries the amount the supervisor authorized;
- hit flags are codes in the ledger (words only for screens and paper).

Expected amounts are computed here from the wagers and the floor file's rates with Decimal
(RULES.md 4), not with core.tablegames.meters.arithmetic.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from core.controllers.events import (
    GameEnded,
    GameStarted,
    HitClaimed,
    Misdealt,
    Origin,
    SequenceGap,
)
from core.floorconfig import loads_floor
from core.ledger.audit import verify
from core.ledger.balance_checks import check_balances
from core.ledger.db import make_engine, upgrade
from core.ledger.models import (
    ControllerEvent,
    GameTable,
    Hit,
    LevelBalance,
    LevelHourTotal,
    MeterEntry,
    RefusedEvent,
    Round,
)
from core.ledger.outages import LedgerUnavailable
from core.people import cardkey
from core.people.auth import add_employee
from core.tablegames import flags
from core.tablegames.floor import Floor
from core.tablegames.ingest import refusals
from core.tablegames.ingest.writer import UNSTORABLE
from core.tablegames.rules.paytables import load_paytables
from core.tablegames.views import AmountChanged, FloorChange, FloorError
from printing.escpos.slip import PAPER
from tests.floors import Group, Level, floor_toml, table
from tests.harness import held_writer
from tests.ledgers import migrate

UNITS = 1_000_000  # exact units per cent
EXE = "5000000000000002"
FLOOR = floor_toml("Scale Casino",
                   groups=[Group(levels={"MAIN": Level(preconfigured_seed="10000",
                                                       preconfigured_rate="0.200")})],
                   tables=[table(f"T{i}", 18000 + i) for i in range(1, 9)])
RATE, RESERVE = Decimal("0.20"), Decimal("0.02")


def swipe(card: str) -> str:
    return f"%B{card}^TEST/CARD^2912101?;{card}=2912101?"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 3, 1, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=7)  # crosses hours: exercises the hourly totals
        return self.now


@pytest.fixture
def floor(engine: Engine) -> Floor:
    f = Floor(engine, loads_floor(FLOOR, "scale.toml"), dict(load_paytables()), clock=Clock(),
              paper=PAPER)
    f.start()
    for i in range(1, 9):
        f.set_link(f"T{i}", True)
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "X1", "Exe Cutive", "executive", EXE)
    f.writer.start()
    yield f
    f.writer.stop()


def entries_meter(engine: Engine) -> tuple[int, int]:
    with engine.connect() as c:
        m, r = c.execute(select(func.coalesce(func.sum(MeterEntry.meter_delta), 0),
                                func.coalesce(func.sum(MeterEntry.reserve_delta), 0))).one()
    return int(m), int(r)


def test_events_waiting_together_are_committed_in_one_batch_each_once(floor: Floor,
                                                                      engine: Engine) -> None:
    changes: list[FloorChange] = []
    floor.add_listener(changes.append)
    gate, entered = threading.Event(), threading.Event()

    def hold(u: object) -> bool:
        entered.set()
        return gate.wait(5)

    floor.writer.submit(hold)  # hold the writer: the next events queue up
    # wait until the writer is inside it: on a loaded machine the writer could otherwise
    # take the first few events into the held batch (seen: two batches of 5)
    assert entered.wait(5)
    futures = [floor.writer.submit_event(Origin(f"T{i}", "b", 1), GameStarted(1, {1: 100, 2: 100}))
               for i in range(1, 9)]
    replay = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100, 2: 100}))
    assert not any(f.done() for f in futures)  # nothing is acknowledged before its commit
    gate.set()
    assert [f.result(10) for f in futures] == [True] * 8
    assert replay.result(10) is False  # the same (table, boot, seq): recorded once
    assert floor.writer.stats.largest >= 9  # one transaction for all that waited
    batch = [c for c in changes if c.events]
    assert len(batch) == 1 and batch[0].events == 8
    assert {t.id for t in batch[0].table_views} == {f"T{i}" for i in range(1, 9)}
    assert all(t.round_no == 1 and t.round_state == "locked" for t in batch[0].table_views)
    wagered = 16 * 100  # cents
    (level,) = batch[0].level_views
    assert level.meter_units == int((Decimal(1_000_000) + wagered * RATE) * UNITS)
    assert level.reserve_units == int(wagered * RESERVE * UNITS)
    with engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(ControllerEvent)) == 8
        assert c.scalar(select(func.count()).select_from(Round)) == 8
    assert check_balances(engine) == []


def test_a_refused_event_in_a_batch_is_refused_alone_and_kept(floor: Floor,
                                                              engine: Engine) -> None:
    floor.set_link("T3", False)
    gate = held_writer(floor)
    ok = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    offline = floor.writer.submit_event(Origin("T3", "b", 1), GameStarted(1, {1: 100}))
    stranger = floor.writer.submit_event(Origin("T99", "b", 1), GameEnded(1))
    ok2 = floor.writer.submit_event(Origin("T2", "b", 1), GameStarted(1, {4: 100}))
    gate.set()
    assert ok.result(10) is True and ok2.result(10) is True
    with pytest.raises(FloorError, match="T3 is OFFLINE"):
        offline.result(10)
    with pytest.raises(FloorError, match="T99: not configured"):
        stranger.result(10)
    with Session(engine) as s:
        refused = {(r.table_id, r.seq) for r in s.scalars(select(RefusedEvent))}
        recorded = {(e.table_id, e.seq) for e in s.scalars(select(ControllerEvent))}
    assert refused == {("T3", 1), ("T99", 1)}
    assert recorded == {("T1", 1), ("T2", 1)}
    assert entries_meter(engine)[1] == int(200 * RESERVE * UNITS)  # two wagers' reserve only
    # START GAME / END GAME are decided before anything is written: no batch done again
    assert floor.writer.stats.retried == 0
    assert check_balances(engine) == []


def test_a_start_game_sent_before_its_link_went_down_is_recorded_not_refused_as_offline(
        floor: Floor, engine: Engine) -> None:
    """A controller's START GAME read just before its link closed (a service stopping, a link
    given up) joins the same batch as the link's OFFLINE: it came over a live link, so it is
    recorded, and the table is OFFLINE after it.  (The link state was written first in every
    batch: the START GAME was refused as OFFLINE, and, refused once, refused again when the
    controller sent it to the next service: test_fencing's frozen-service test saw it under
    load.)  A link that comes up is still written before the events it carries."""
    floor.set_link("T2", False)
    gate = held_writer(floor)
    started = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    down = floor.writer.submit_link("T1", False)
    up = floor.writer.submit_link("T2", True)
    after_up = floor.writer.submit_event(Origin("T2", "b", 1), GameStarted(1, {1: 100}))
    gate.set()
    assert started.result(10) is True
    assert after_up.result(10) is True
    assert down.result(10) is None and up.result(10) is None
    with Session(engine) as s:
        assert list(s.scalars(select(RefusedEvent))) == []
        recorded = {(e.table_id, e.seq) for e in s.scalars(select(ControllerEvent))}
        online = dict(s.execute(select(GameTable.id, GameTable.online)).all())
    assert recorded == {("T1", 1), ("T2", 1)}
    assert (online["T1"], online["T2"]) == (False, True)


def test_a_batch_that_can_not_commit_fails_every_event_and_records_nothing(
        floor: Floor, engine: Engine) -> None:
    # the writer held inside a job (not merely queued behind one: it could take the first event
    # into the held batch, which commits, before the broken job is queued)
    gate = held_writer(floor)
    first = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))

    def broken(u: object) -> None:
        raise RuntimeError("the disk went away")

    floor.writer.submit(broken)
    gate.set()
    with pytest.raises(RuntimeError, match="disk went away"):
        first.result(10)
    with engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(ControllerEvent)) == 0
    # the controller resends it (its link reconnects): now it is recorded
    again = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    assert again.result(10) is True


def test_events_sent_again_in_a_batch_are_replays_or_refused_again_without_a_second_row(
        floor: Floor, engine: Engine) -> None:
    # a busy floor's controllers resend what was not acknowledged in time: the batch decides
    # each resend as ingest does one by one (a replay, the same refusal, out of order)
    assert floor.writer.submit_event(Origin("T4", "b", 3), SequenceGap(1, 3)).result(10)
    gate = held_writer(floor)
    first = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    again = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    bad = floor.writer.submit_event(Origin("T2", "b", 1), GameEnded(7))
    bad_again = floor.writer.submit_event(Origin("T2", "b", 1), GameEnded(7))
    gap = floor.writer.submit_event(Origin("T4", "b", 2), GameStarted(1, {1: 100}))
    gate.set()
    assert first.result(10) is True and again.result(10) is False
    never = "END GAME round 7: round 7 was never started under controller boot b"
    for fut in (bad, bad_again):
        with pytest.raises(FloorError, match=never):
            fut.result(10)
    with pytest.raises(FloorError, match="event b:2 is out of order: the ledger holds seq 3 "
                                         "of boot b already and not this one"):
        gap.result(10)
    # and in a later batch, from the ledger
    gate = held_writer(floor)
    later = [floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100})),
             floor.writer.submit_event(Origin("T2", "b", 1), GameEnded(7)),
             floor.writer.submit_event(Origin("T4", "b", 2), GameStarted(1, {1: 100})),
             floor.writer.submit_event(Origin("T1", "b", 2), GameEnded(1))]
    gate.set()
    assert later[0].result(10) is False and later[3].result(10) is True
    with pytest.raises(FloorError, match=never):
        later[1].result(10)
    with pytest.raises(FloorError, match="event b:2 is out of order"):
        later[2].result(10)
    with Session(engine) as s:
        refused = sorted((r.table_id, r.seq) for r in s.scalars(select(RefusedEvent)))
        recorded = sorted((e.table_id, e.seq) for e in s.scalars(select(ControllerEvent)))
    assert refused == [("T2", 1), ("T4", 2)]  # one row each, however often sent
    assert recorded == [("T1", 1), ("T1", 2), ("T4", 3)]
    assert floor.writer.stats.retried == 0
    assert check_balances(engine) == []
    assert verify(engine).ok


@pytest.mark.parametrize("poison", ["\ud800", "2026-12-03T01:30:00.000000000000000000000Z"],
                         ids=["lone-surrogate", "too-long-for-its-column"])
def test_a_batch_the_database_refuses_is_split_and_only_the_bad_event_refused(
        floor: Floor, engine: Engine, monkeypatch: pytest.MonkeyPatch, poison: str) -> None:
    # the screen before the batch would refuse it by name: let it through, as an event the
    # screen does not know to be bad, so that the database (or its driver) refuses it
    monkeypatch.setattr(refusals, "screened", lambda origin, event: event)
    if engine.dialect.name == "sqlite" and len(poison) > 40:
        pytest.skip("SQLite does not bound a VARCHAR: nothing refuses it")
    changes: list[FloorChange] = []
    floor.add_listener(changes.append)
    gate = held_writer(floor)
    good1 = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    bad = floor.writer.submit_event(Origin("T2", "b", 1, poison), GameStarted(1, {1: 100}))
    good2 = floor.writer.submit_event(Origin("T4", "b", 1), GameStarted(1, {2: 100}))
    link = floor.writer.submit_link("T5", False)
    good3 = floor.writer.submit_event(Origin("T6", "b", 1), GameStarted(1, {3: 100}))
    gate.set()
    assert [good1.result(10), good2.result(10), good3.result(10)] == [True, True, True]
    assert link.result(10) is None
    with pytest.raises(FloorError) as refused:
        bad.result(10)
    cause = "UnicodeEncodeError" if poison == "\ud800" else "StringDataRightTruncation"
    # a clear line: never the driver's words (they quote the bad text)
    assert str(refused.value) == f"{UNSTORABLE} ({cause})"
    assert floor.writer.stats.split >= 1 and floor.writer.stats.refused_alone == 1
    with Session(engine) as s:
        recorded = sorted((e.table_id, e.seq) for e in s.scalars(select(ControllerEvent)))
        (row,) = s.scalars(select(RefusedEvent)).all()
    assert recorded == [("T1", 1), ("T4", 1), ("T6", 1)]
    assert (row.table_id, row.boot, row.seq, row.type) == ("T2", "b", 1, "GameStarted")
    assert row.reason == f"{UNSTORABLE} ({cause})"
    assert row.payload == {"round_no": 1, "wagers": {"1": 100}}
    # its own text stored: the surrogate as the escape the JSON had, the time cut to its column
    assert row.controller_time == ("\\ud800" if poison == "\ud800" else poison[:40])
    assert not floor.snapshot().tables[4].online  # T5: the link state went in too
    assert {t for c in changes for t in c.tables} >= {"T1", "T4", "T6"}
    # sent again: refused again, for the same reason, and the table's next event is taken
    again = floor.writer.submit_event(Origin("T2", "b", 1, poison), GameStarted(1, {1: 100}))
    with pytest.raises(FloorError, match=cause):
        again.result(10)
    assert floor.writer.submit_event(Origin("T2", "b", 2), GameStarted(1, {1: 100})).result(10)
    assert check_balances(engine) == []
    assert verify(engine).ok  # every row of the split batches chained at its commit


def test_an_event_with_text_no_ledger_stores_is_refused_by_name_before_its_batch(
        floor: Floor, engine: Engine) -> None:
    gate = held_writer(floor)
    good = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    surrogate = floor.writer.submit_event(Origin("T2", "b", 1, "\ud800"), GameEnded(1))
    nul = floor.writer.submit_event(Origin("T4", "b", 1), HitClaimed(1, 1, "FLU\x00SH"))
    wrong_type = floor.writer.submit_event(Origin("T6", "b", 1), GameEnded("1"))  # type: ignore[arg-type]
    gate.set()
    assert good.result(10) is True
    with pytest.raises(FloorError, match=r"malformed event: time: contains a lone surrogate "
                                         r"\(U\+D800"):
        surrogate.result(10)
    with pytest.raises(FloorError, match="malformed event: HitClaimed.hand: contains a NUL"):
        nul.result(10)
    with pytest.raises(FloorError, match="GameEnded.round_no: expected an integer, got str"):
        wrong_type.result(10)
    assert floor.writer.stats.split == 0  # refused before the batch: nothing failed in it
    with Session(engine) as s:
        rows = {r.table_id: r for r in s.scalars(select(RefusedEvent))}
    assert rows["T2"].controller_time == "\\ud800"
    assert rows["T4"].payload["hand"] == "FLU\\u0000SH"
    assert rows["T6"].payload == {"round_no": "1"}
    assert verify(engine).ok


def test_a_batch_that_fails_because_the_database_is_gone_is_not_split(
        floor: Floor, engine: Engine) -> None:
    gate = held_writer(floor)
    first = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    second = floor.writer.submit_event(Origin("T2", "b", 1), GameStarted(1, {1: 100}))

    def gone(u: Any) -> None:
        if engine.dialect.name == "postgresql":  # the server ends this session: a real loss
            u.s.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))
        raise OperationalError("COMMIT", {}, sqlite3.OperationalError("disk I/O error"))

    lost = floor.writer.submit(gone)
    third = floor.writer.submit_event(Origin("T4", "b", 1), GameEnded(1))
    floor.writer.probe_s = 0.0  # the next batch is tried at once, not a second later
    gate.set()
    for fut in (first, second, lost, third):
        # not a refusal (a ValueError): the ledger can not record, the link does not
        # acknowledge.  (On a connection PostgreSQL ended, the rollback's own listener meets
        # the dead connection: PendingRollbackError, caused by the OperationalError.)
        with pytest.raises(LedgerUnavailable, match="can not be") as failed:
            fut.result(10)
        assert not isinstance(failed.value, ValueError)
    assert floor.writer.stats.split == 0 and floor.writer.stats.refused_alone == 0
    with engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(ControllerEvent)) == 0
        assert c.scalar(select(func.count()).select_from(RefusedEvent)) == 0
    # their controllers send them again: recorded then
    assert floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100})).result(10)
    assert floor.writer.submit_event(Origin("T2", "b", 1), GameStarted(1, {1: 100})).result(10)


def test_kept_balances_and_hourly_totals_follow_every_workflow(floor: Floor,
                                                               engine: Engine) -> None:
    floor.writer.stop()
    for i in range(1, 4):
        floor.handle(Origin(f"T{i}", "b", 1), GameStarted(1, {1: 100, 2: 100, 3: 100}))
    floor.handle(Origin("T2", "b", 2), Misdealt(1))  # reversals
    floor.handle(Origin("T1", "b", 2), HitClaimed(1, 2, "STRAIGHT_FLUSH"))
    (hit,) = [h.hit_id for h in floor.snapshot().pending]
    floor.pay(hit, ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"], swipe(EXE))  # from the tray
    assert check_balances(engine) == []
    m, r = entries_meter(engine)
    assert floor.meter("LINK", "MAIN").meter_units == m
    assert floor.meter("LINK", "MAIN").reserve_units == r
    # a meter report over the whole day adds up, whichever hours it starts and ends in
    start = datetime(2026, 12, 3, 1, 45, tzinfo=UTC)
    report = floor.meter_report("LINK", "MAIN", start, floor.ctx.clock.now + timedelta(hours=1))
    assert report.adds_up
    assert report.closing_meter_units == m and report.closing_reserve_units == r
    # 9 wagers of $1 contributed (3 tables), 3 reversed by T2's misdeal
    assert report.by_kind["contribution"] == (9, int(900 * RATE * UNITS), 0)
    assert report.by_kind["reserve_contribution"] == (9, 0, int(900 * RESERVE * UNITS))
    assert report.by_kind["reversal"] == (6, -int(300 * RATE * UNITS),
                                          -int(300 * RESERVE * UNITS))
    assert "seed" not in report.by_kind  # seeded before the report's start
    with Session(engine) as s:
        by_kind = dict(s.execute(select(MeterEntry.kind, func.sum(MeterEntry.meter_delta))
                                 .where(MeterEntry.created_at >= start)
                                 .group_by(MeterEntry.kind)).all())
    assert {k: v[1] for k, v in report.by_kind.items()} == {k: int(v) for k, v in by_kind.items()}
    assert report.opening_meter_units + sum(v[1] for v in report.by_kind.values()) == m


def test_an_event_whose_waiter_gave_up_is_recorded_and_the_writer_goes_on(floor: Floor,
                                                                          engine: Engine) -> None:
    """A link that closes while its event waits for the commit cancels the event's future; the
    writer records the event all the same and keeps serving the others (it once died on it)."""
    gate = threading.Event()
    floor.writer.submit(lambda u: gate.wait(5))
    abandoned = floor.writer.submit_event(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    assert abandoned.cancel()
    gate.set()
    later = floor.writer.submit_event(Origin("T2", "b", 1), GameStarted(1, {2: 100}))
    assert later.result(10) is True
    assert floor.writer.running
    with engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(ControllerEvent)) == 2


def test_the_invariant_check_names_a_balance_edited_behind_the_ledger(floor: Floor,
                                                                      engine: Engine) -> None:
    floor.handle(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    assert check_balances(engine) == []
    with engine.begin() as c:
        c.execute(text("UPDATE level_balances SET meter_units = meter_units + 100000000"))
        c.execute(text("UPDATE level_hour_totals SET entries = entries + 1"))
    problems = check_balances(engine)
    assert any("kept balance" in p and "differs from its entries" in p for p in problems)
    assert any("hourly totals" in p for p in problems)


def test_a_read_does_not_wait_for_the_sqlite_write_lock(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 'l.sqlite3'}")
    migrate(eng)
    f = Floor(eng, loads_floor(FLOOR, "scale.toml"), dict(load_paytables()), paper=PAPER)
    f.start()
    holder = sqlite3.connect(tmp_path / "l.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock (a long transaction)
    try:
        # the lock is held until the finally below: a read that waited for it would end in
        # "database is locked" after the busy timeout, never with a snapshot
        snap = f.snapshot()
        assert len(snap.tables) == 8 and len(snap.levels) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        eng.dispose()


def test_a_pay_refuses_an_amount_other_than_the_one_authorized(floor: Floor,
                                                               engine: Engine) -> None:
    floor.writer.stop()
    floor.handle(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    floor.handle(Origin("T1", "b", 2), HitClaimed(1, 1, "RF_ROYAL_MATCH"))
    (hit,) = [h.hit_id for h in floor.snapshot().pending]
    cards = ["As", "Ks", "Qs", "Js", "Ts", "Kd", "Qd"]
    seen = floor.evaluate(hit, cards).amount_cents
    assert seen is not None
    floor.handle(Origin("T2", "b", 1), GameStarted(1, {1: 100, 2: 100}))  # the link plays on
    with pytest.raises(AmountChanged) as refused:
        floor.pay(hit, cards, swipe(EXE), expected_cents=seen)
    now = floor.evaluate(hit, cards).amount_cents
    assert refused.value.amount_cents == now and now == seen + 20  # half of 2 x $0.20 more
    with Session(engine) as s:
        assert s.get(Hit, hit).status == "pending"  # nothing paid, nothing written
    paid = floor.pay(hit, cards, swipe(EXE), expected_cents=now)
    assert paid.amount_cents == now


def test_hit_flags_are_codes_in_the_ledger_and_words_on_screen(floor: Floor,
                                                               engine: Engine) -> None:
    floor.writer.stop()
    floor.handle(Origin("T1", "b", 1), GameStarted(1, {1: 100}))
    floor.handle(Origin("T1", "b", 2), HitClaimed(1, 4, "FOUR_OF_A_KIND"))  # no wager on 4
    (pending,) = floor.snapshot().pending
    assert pending.flags == ("no wager on seat 4",) and pending.blocking
    assert pending.codes == (flags.FlagCode.NO_WAGER,)  # the screen decides on the code
    with Session(engine) as s:
        row = s.get(Hit, pending.hit_id)
        assert row is not None and row.flags == ""
        assert flags.loads(row.flag_codes) == (flags.HitFlag(flags.FlagCode.NO_WAGER, seat=4),)
    with pytest.raises(FloorError, match="no wager on seat 4; it can only be rejected"):
        floor.pay(pending.hit_id, ["As", "Ad", "Ac", "Ah", "2c", "3h", "5d"], swipe(EXE))


@pytest.mark.parametrize("sentence, code", [
    ("round 7 was never started (no START GAME)", {"code": "ROUND_NOT_STARTED", "round": 7}),
    ("round 7 was misdealt", {"code": "ROUND_VOID", "round": 7, "state": "misdealt"}),
    ("no wager on seat 3", {"code": "NO_WAGER", "seat": 3}),
    ("seat 2 already has a hit in round 9", {"code": "DUPLICATE_HIT", "seat": 2, "round": 9}),
    ("claimed ROYAL_FLUSH, cards make STRAIGHT_FLUSH",
     {"code": "CLAIM_MISMATCH", "claimed": "ROYAL_FLUSH", "made": "STRAIGHT_FLUSH"}),
    ("something else", {"code": "NOTE", "detail": "something else"}),
])
def test_the_0010_migration_reads_the_old_flag_sentences_as_codes(sentence: str,
                                                                  code: dict[str, object]) -> None:
    import importlib.util

    from core.ledger.db import MIGRATIONS

    spec = importlib.util.spec_from_file_location(
        "m0010", MIGRATIONS / "versions" / "0010_floor_scale.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.flag_code(sentence) == code
    flag = flags.loads(flags.dumps([flags.HitFlag(**{**code, "code": flags.FlagCode(
        code["code"])})]))[0]  # type: ignore[arg-type]
    assert flag.words() == sentence


def test_a_0009_ledger_upgrades_with_balances_codes_and_verified_cards(
        bare_engine: Engine) -> None:
    upgrade(bare_engine, "0009")
    t0 = datetime(2026, 12, 1, 10, 15, tzinfo=UTC)
    ts = t0.replace(tzinfo=None) if bare_engine.dialect.name == "sqlite" else t0
    with bare_engine.begin() as c:
        c.execute(text("INSERT INTO groups (id, name, paytable_id, lock_at_hit, payment_order, "
                       "created_at) VALUES ('G', 'G', 'FPGPP-WA01', false, 'right_first', :t)"),
                  {"t": ts})
        c.execute(text("INSERT INTO levels (id, group_id, name, created_at) "
                       "VALUES (1, 'G', 'MAIN', :t)"), {"t": ts})
        c.execute(text("INSERT INTO tables (id, name, group_id, seats, online, created_at) "
                       "VALUES ('T1', 'T1', 'G', 6, false, :t)"), {"t": ts})
        for i, (kind, m, r) in enumerate((("seed", 5 * UNITS, 0), ("contribution", 20, 0),
                                          ("reserve_contribution", 0, 2))):
            c.execute(text("INSERT INTO meter_entries (level_id, kind, meter_delta, "
                           "reserve_delta, reason, created_at) VALUES (1, :k, :m, :r, '', :t)"),
                      {"k": kind, "m": m, "r": r, "t": ts + timedelta(hours=i)})
        c.execute(text("INSERT INTO controller_events (id, table_id, boot, seq, type, payload, "
                       "controller_time, received_at) VALUES (1, 'T1', 'b', 1, 'HitClaimed', "
                       "'{}', '', :t)"), {"t": ts})
        c.execute(text("INSERT INTO hits (id, table_id, round_no, seat, claimed_hand, cards, "
                       "flags, status, event_id, created_at) VALUES (1, 'T1', 1, 3, "
                       "'FULL_HOUSE', '', :f, 'paid', 1, :t)"),
                  {"f": "no wager on seat 3\nround 1 was never started (no START GAME)",
                   "t": ts})
        c.execute(text("INSERT INTO hit_decisions (hit_id, decision, reason, created_at) VALUES "
                       "(1, 'verified', 'cards Ks Kd Kc 4s 4d 2c 9h make FULL_HOUSE', :t)"),
                  {"t": ts})
    upgrade(bare_engine)
    assert check_balances(bare_engine) == []
    with Session(bare_engine) as s:
        bal = s.get(LevelBalance, 1)
        assert bal is not None
        assert (bal.meter_units, bal.reserve_units, bal.entries) == (5 * UNITS + 20, 2, 3)
        assert s.scalar(select(func.count()).select_from(LevelHourTotal)) == 3
        hit = s.get(Hit, 1)
        assert hit is not None and hit.verified_cards == "Ks Kd Kc 4s 4d 2c 9h"
        assert [f.code for f in flags.loads(hit.flag_codes)] == ["NO_WAGER",
                                                                 "ROUND_NOT_STARTED"]
