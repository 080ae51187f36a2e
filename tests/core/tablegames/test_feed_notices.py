"""Floor notifications are hints (issue 23, finding 4): any login may ``pg_notify`` on the
ledger's channel, so every payload is parsed strictly and bounded, carries a MAC under the
floor's card key, and a bad one costs one log line per minute, never a resync."""

from __future__ import annotations

import json
import logging
import time

import pytest
from sqlalchemy import Engine, create_engine, text

from core.floorconfig import load_demo_floor
from core.ledger import guards
from core.ledger.db import make_engine
from core.tablegames.feed import DropLog, FeedListener, Notice, feed_key, sign
from core.tablegames.floor import Floor
from core.tablegames.rules.paytables import load_paytables
from core.tablegames.views import FloorChange
from printing.escpos.slip import PAPER
from tests.conftest import PG_URL
from tests.harness import wait_for
from tests.ledgers import migrate

pytestmark = pytest.mark.postgres


def _genuine(at: str = "2026-12-05T10:00:00+00:00", **over: object) -> dict[str, object]:
    body: dict[str, object] = {"o": "pit-z:1:abc", "a": "event", "t": ["T01"],
                               "l": [["WA01", "MAIN"]], "h": [7], "x": [], "s": [], "p": [],
                               "e": 1, "at": at, "w": time.time()}
    body.update(over)
    return body


def _forged() -> list[str]:
    """One payload of every kind a login of the ledger could send that is not the floor's."""
    ok = _genuine()
    bad: list[dict[str, object]] = [
        _genuine(at="not-a-date"), _genuine(at="2026-12-05T10:00:00"),  # no UTC offset
        _genuine(h=[2**31]), _genuine(h=[-1]), _genuine(h=[True]), _genuine(h=["7"]),
        _genuine(h=[1.5]), _genuine(e=10**30), _genuine(t=["T" * 65]), _genuine(t=[""]),
        _genuine(t=["T\x1b[2J"]), _genuine(t="T01"), _genuine(l=[["WA01"]]),
        _genuine(x=[[1, "T01", 1, 1, "stolen", 100]]), _genuine(x=[[1, "T01", 1, 1, "paid"]]),
        _genuine(x=[[1, "T01", 1, 1, "paid", 2**63]]), _genuine(w="now"), _genuine(o="o" * 201),
        _genuine(z=1), {k: v for k, v in ok.items() if k != "h"},
    ]
    return (["not json", "[]", "null", '{"o": "x"}', "{" * 5000, "x" * 7990]
            + [json.dumps(b) for b in bad])


def _floor(engine: Engine) -> Floor:
    return Floor(engine, load_demo_floor(), load_paytables(), paper=PAPER)


def test_forged_and_malformed_notices_cost_one_log_line_and_no_resync(
        pg_engine_factory: object, caplog: pytest.LogCaptureFixture) -> None:
    eng: Engine = pg_engine_factory()  # type: ignore[operator]
    migrate(eng)
    a = _floor(eng)
    a.start(())
    with eng.connect() as conn:
        schema = conn.execute(text("SELECT current_schema()")).scalar()
    other = make_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"})
    reader = create_engine(PG_URL, connect_args={
        "options": f"-csearch_path={schema} -crole={guards.READER_ROLE} "
                   "-cdefault_transaction_read_only=on"})
    resyncs: list[int] = []
    seen: list[FloorChange] = []
    try:
        b = _floor(other)

        def hear(change: FloorChange) -> None:
            seen.append(change)

        b.add_listener(hear)
        listener = FeedListener(b.ctx, on_resync=lambda: resyncs.append(1))
        listener.start()
        assert listener.connected.is_set()
        channel = f"podium:{schema}"
        key = feed_key(b.ctx.gate.key)
        genuine = json.dumps(_genuine(), separators=(",", ":"))
        forged = _forged() + [
            genuine,  # well formed, but no MAC: not the floor's
            sign(genuine, b"\0" * 32),  # a MAC under another key
            sign(json.dumps(_genuine(w=time.time() - 3600), separators=(",", ":")), key),  # old
        ]
        caplog.set_level(logging.WARNING, logger="podium.feed")
        with reader.connect() as conn:  # the reader's login, READ ONLY: it may notify
            for payload in forged:
                conn.execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": payload})
            conn.commit()
        replayed = sign(json.dumps(_genuine(o="pit-r:1:abc"), separators=(",", ":")), key)
        with reader.connect() as conn:  # a signed notice heard once, then replayed
            for _ in range(2):
                conn.execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": replayed})
                conn.commit()
        # a genuine change after them all: once it is heard, every forged one was read
        table = a.config.tables[0].id
        a.set_link(table, True)
        wait_for(lambda: any(c.origin == a.ctx.origin for c in seen),
                 what="the genuine change heard")
        heard = [c for c in seen if c.origin == a.ctx.origin]
        assert heard and heard[0].tables == {table}
        assert [c.origin for c in seen if c.origin != a.ctx.origin] == ["pit-r:1:abc"]
        listener.stop()
    finally:
        other.dispose()
        reader.dispose()
    assert resyncs == []
    assert listener.drops.dropped == len(forged) + 1  # and the replay
    lines = [r for r in caplog.records if r.name == "podium.feed"]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert lines[0].exc_info is None and "\n" not in lines[0].getMessage()


def test_dropped_notices_are_counted_in_one_line_per_window(
        caplog: pytest.LogCaptureFixture) -> None:
    now = [100.0]
    drops = DropLog(window_s=60, clock=lambda: now[0])
    caplog.set_level(logging.WARNING, logger="podium.feed")
    for _ in range(500):
        drops.drop("floor notification not understood: 'at' is not a time")
    now[0] += 61
    drops.drop("floor notification not understood: not JSON")
    msgs = [r.getMessage() for r in caplog.records if r.name == "podium.feed"]
    assert len(msgs) == 2
    assert "'at' is not a time" in msgs[0]
    assert "not JSON" in msgs[1] and "499 more dropped" in msgs[1]


def test_a_notice_survives_its_own_round_trip_and_nothing_else() -> None:
    key = b"k" * 32
    body = json.dumps(_genuine(), separators=(",", ":"))
    notice = Notice.decode(sign(body, key), key)
    assert notice.hits == [7] and notice.tag
    with pytest.raises(ValueError, match="MAC"):
        Notice.decode(sign(body, key).replace('"h":[7]', '"h":[8]'), key)
    with pytest.raises(ValueError, match="no MAC"):
        Notice.decode(body, key)
