"""Win slips searched for their win pages (core/desks/accounting/slip_search.py) on SQLite and
PostgreSQL: each criterion returns exactly the slips it should, pages follow each other, and no
search reads a slip's stored bytes."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, event

from core.controllers.events import GameEnded, GameStarted, HitClaimed
from core.desks.accounting.slip_search import (
    MAX_LIMIT,
    SearchError,
    SlipSearch,
    WinPages,
    date_range,
    search_slips,
)
from core.desks.desk import Desk
from core.ledger.db import reader
from core.tablegames.floor import Floor
from tests.core.tablegames.test_floor import (
    EXE,
    EXE2,
    HANDS,
    PAYTABLES,
    SUP,
    Table,
    hit_ids,
    staffed_floor,
    swipe,
)

MANILA = ZoneInfo("Asia/Manila")  # the test floor's zone; gaming days start at 06:00


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A local time in December 2026 (Manila) as UTC."""
    return datetime(2026, 12, day, hour, minute, tzinfo=MANILA).astimezone(UTC)


def paid(floor: Floor, engine: Engine, when: datetime, table: str, seat: int, hand: str,
         card: str | None, verifier: str | None = None) -> int:
    """A hit of ``hand`` at ``table`` paid at ``when`` (on ``card``, or auto-paid): its slip."""
    floor.ctx.clock.now = when  # type: ignore[attr-defined]  # the test floor's Clock
    t = Table(floor, table, boot=f"b-{table}-{when:%d%H%M}")
    t.send(GameStarted(1, {seat: 100}))
    t.send(HitClaimed(1, seat, hand))
    if card is not None:
        floor.pay(max(hit_ids(engine)), HANDS[hand].split(), swipe(card),
                  verifier=None if verifier is None else swipe(verifier))
    t.send(GameEnded(1))
    return max(ln.slip_no for ln in floor.slip_lines(limit=1))


@pytest.fixture
def ledger(engine: Engine) -> tuple[Floor, dict[str, int], Desk]:
    """Four slips over two gaming days, two tables, four people:

    A  T1  Dec 1 10:00  royal match, authorized X1 (Exe Cutive), verified S1 (Sue Visor)
    B  T2  Dec 1 23:30  four of a kind, authorized S1
    C  T1  Dec 2 03:00  full house, auto-paid (gaming day Dec 1, calendar date Dec 2)
    D  T2  Dec 2 12:00  seven-card straight flush, authorized X2 (Ex Two)
    """
    floor = staffed_floor(engine)
    slips = {
        "A": paid(floor, engine, at(1, 10), "T1", 2, "RF_ROYAL_MATCH", EXE, verifier=SUP),
        "B": paid(floor, engine, at(1, 23, 30), "T2", 4, "FOUR_OF_A_KIND", SUP),
        "C": paid(floor, engine, at(2, 3), "T1", 5, "FULL_HOUSE", None),
        "D": paid(floor, engine, at(2, 12), "T2", 1, "SF7_NATURAL", EXE2),
    }
    desk = Desk("accountant", reader(engine), floor.config, PAYTABLES)
    return floor, slips, desk


def found(desk: Desk, **criteria: Any) -> list[int]:
    return [r.slip_no for r in search_slips(desk, SlipSearch(**criteria)).rows]


def names(slips: dict[str, int], *keys: str) -> list[int]:
    """Slip numbers newest first, as a search lists them."""
    return sorted((slips[k] for k in keys), reverse=True)


def test_no_criteria_lists_every_slip_newest_first(ledger: Any) -> None:
    _floor, slips, desk = ledger
    assert found(desk) == names(slips, "A", "B", "C", "D")


def test_by_gaming_day_and_by_local_calendar_date(ledger: Any) -> None:
    floor, slips, desk = ledger
    casino = floor.config.casino
    day1 = date_range(casino, date(2026, 12, 1), date(2026, 12, 1))
    assert found(desk, start=day1.start, end=day1.end) == names(slips, "A", "B", "C")
    cal1 = date_range(casino, date(2026, 12, 1), date(2026, 12, 1), gaming=False)
    assert found(desk, start=cal1.start, end=cal1.end) == names(slips, "A", "B")
    cal2 = date_range(casino, date(2026, 12, 2), date(2026, 12, 2), gaming=False)
    assert found(desk, start=cal2.start, end=cal2.end) == names(slips, "C", "D")
    both = date_range(casino, date(2026, 12, 1), date(2026, 12, 2))
    assert found(desk, start=both.start, end=both.end) == names(slips, "A", "B", "C", "D")
    none = date_range(casino, date(2026, 12, 3), date(2026, 12, 3))
    assert found(desk, start=none.start, end=none.end) == []


def test_by_table(ledger: Any) -> None:
    _floor, slips, desk = ledger
    assert found(desk, table="T2") == names(slips, "B", "D")
    assert found(desk, table="T1") == names(slips, "A", "C")
    assert found(desk, table="NOPE") == []


def test_by_amount_exact_and_by_range(ledger: Any) -> None:
    _floor, slips, desk = ledger
    rows = {r.slip_no: r for r in search_slips(desk, SlipSearch()).rows}
    amounts = {k: rows[n].amount_cents for k, n in slips.items()}
    assert len(set(amounts.values())) == 4  # every slip pays its own amount
    for key, cents in amounts.items():
        assert found(desk, amount_min_cents=cents, amount_max_cents=cents) == [slips[key]]
    low, high = sorted(amounts.values())[1:3]
    between = [k for k, c in amounts.items() if low <= c <= high]
    assert found(desk, amount_min_cents=low, amount_max_cents=high) == names(slips, *between)
    assert found(desk, amount_min_cents=high) == names(
        slips, *[k for k, c in amounts.items() if c >= high])
    assert found(desk, amount_max_cents=low) == names(
        slips, *[k for k, c in amounts.items() if c <= low])


def test_by_employee_number_or_name_who_authorized_or_verified(ledger: Any) -> None:
    _floor, slips, desk = ledger
    assert found(desk, employee="X2") == names(slips, "D")
    assert found(desk, employee="X1") == names(slips, "A")
    # Sue Visor verified A and authorized B; a part of the name, any case
    assert found(desk, employee="sue vis") == names(slips, "A", "B")
    assert found(desk, employee="S1") == names(slips, "A", "B")
    assert found(desk, employee="1") == []  # a number is matched whole; no name has a 1
    assert found(desk, employee="%") == []  # no wildcard from the search field


def test_by_slip_number_and_every_criterion_together(ledger: Any) -> None:
    floor, slips, desk = ledger
    assert found(desk, slip_no=slips["C"]) == [slips["C"]]
    assert found(desk, slip_no=999) == []
    day1 = date_range(floor.config.casino, date(2026, 12, 1), date(2026, 12, 1))
    assert found(desk, start=day1.start, end=day1.end, table="T2", employee="sue") == \
        [slips["B"]]


def test_a_row_says_what_the_list_shows_and_a_void_shows(ledger: Any) -> None:
    floor, slips, desk = ledger
    (a,) = search_slips(desk, SlipSearch(slip_no=slips["A"])).rows
    assert (a.table_id, a.seat, a.hand, a.level, a.state) == ("T1", 2, "RF_ROYAL_MATCH",
                                                              "MAIN", "paid")
    assert a.local.startswith("2026-12-01 10:00:")  # the test clock ticks a second a call
    assert (a.authorized_by, a.verified_by) == ("Exe Cutive #X1", "Sue Visor #S1")
    (c,) = search_slips(desk, SlipSearch(slip_no=slips["C"])).rows
    assert c.level is None and c.authorized_by.startswith("Auto-paid")
    floor.void_slip(slips["B"], "wrong seat paid", True, swipe(EXE))
    (b,) = search_slips(desk, SlipSearch(slip_no=slips["B"])).rows
    assert (b.voided, b.money_returned, b.state) == (True, True, "void (money back)")
    page = WinPages(desk)
    assert page.win_slip(slips["B"]).void is not None
    assert page.win_slip(slips["A"]).void is None
    assert page.hit_record(page.search(SlipSearch(slip_no=slips["A"])).rows[0].hit_id)
    assert page.chain_head_text()


def test_pages_follow_each_other_below_the_last_slip_shown(ledger: Any) -> None:
    _floor, slips, desk = ledger
    first = search_slips(desk, SlipSearch(limit=3))
    assert [r.slip_no for r in first.rows] == names(slips, "B", "C", "D")
    assert first.more and first.next_before == slips["B"]
    second = search_slips(desk, SlipSearch(limit=3, before_slip_no=first.next_before))
    assert [r.slip_no for r in second.rows] == [slips["A"]]
    assert not second.more and second.next_before is None


def test_a_search_never_reads_a_slip_s_stored_bytes(ledger: Any, engine: Engine) -> None:
    _floor, slips, desk = ledger
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    eng = desk.engine
    event.listen(eng, "before_cursor_execute", seen)
    try:
        found(desk, employee="sue", table="T2")
        found(desk)
    finally:
        event.remove(eng, "before_cursor_execute", seen)
    assert statements and not [s for s in statements if "escpos" in s]


@pytest.mark.parametrize(("criteria", "words"), [
    ({"limit": 0}, "limit"), ({"limit": MAX_LIMIT + 1}, "limit"),
    ({"amount_min_cents": 500, "amount_max_cents": 100}, "maximum is below the minimum"),
    ({"amount_min_cents": -1}, "amount min"),
    ({"start": datetime(2026, 12, 1)}, "timezone-aware"),
    ({"start": at(2, 0), "end": at(1, 0)}, "not after its start"),
])
def test_a_search_that_makes_no_sense_is_refused_by_name(ledger: Any, criteria: Any,
                                                         words: str) -> None:
    _floor, _slips, desk = ledger
    with pytest.raises(SearchError, match=words):
        search_slips(desk, SlipSearch(**criteria))
