"""The console's machine-win check (docs/slots.md; docs/operator.md "Checking a machine win"):
the verdict compares the claim with the evaluator's total; a recorded check says who checked
and when, in the ledger, with the wins; any employee may check (surveillance too: a check pays
nothing); a refused card writes nothing but its swipe-log row.  SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from core.app.demo import enroll_demo_employees, swipe_of
from core.ledger.models import Employee, MachineCheck, SwipeLog
from core.machines.checks import MachineCheckError, check, parse_claim, record_check
from core.machines.rules.slot_games import find_game
from core.machines.rules.slots import SpinError, spin_from_text
from core.people.auth import AuthError

# docs/slots.md: line 1 3 G with Y and X (15 x 6 = 90), line 2 3 R with one X (20 x 2 = 40),
# three flowers 3 x total bet 5 = 15; total 145 credits.
SCREEN = "R X R N E / G Y X B N / F F E F N"
AT = datetime(2026, 12, 2, 21, 30, tzinfo=UTC)
SURVEILLANCE, SUPERVISOR = "3001", "1001"
UNKNOWN_CARD = ";6011000990139999=2812101?"


def _spin(screen: str = SCREEN):  # type: ignore[no-untyped-def]
    game = find_game("four-winds")
    return game, spin_from_text(game, screen)


def _count(engine: Engine, model: type) -> int:
    with Session(engine) as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def test_verdict_is_match_when_the_claim_equals_the_evaluated_total() -> None:
    game, spin = _spin()
    result = check(game, spin, 145)
    assert result.verdict == "match"
    assert result.outcome.total == 145
    assert [(w.line, w.symbol, w.count, w.multiplier, w.prize)
            for w in result.outcome.line_wins] == [(1, "G", 3, 6, 90), (2, "R", 3, 2, 40)]


def test_verdict_is_mismatch_when_the_claim_differs_either_way() -> None:
    game, spin = _spin()
    assert check(game, spin, 150).verdict == "mismatch"
    assert check(game, spin, 90).verdict == "mismatch"
    assert check(game, spin, 0).verdict == "mismatch"


def test_claimed_amount_must_be_whole_credits() -> None:
    assert parse_claim(" 1,450 ") == 1450
    for bad in ("", "12.5", "-3", "ten"):
        with pytest.raises(MachineCheckError, match="claimed amount"):
            parse_claim(bad)
    game, spin = _spin()
    with pytest.raises(MachineCheckError, match="claimed amount"):
        check(game, spin, -1)


def test_recorded_check_says_who_checked_when_and_why(engine: Engine) -> None:
    """Surveillance may check (a check authorizes no pay); the row holds the game, screen,
    options, claim, evaluated total, verdict and the evaluator's wins."""
    enroll_demo_employees(engine)
    game = find_game("four-winds")
    spin = spin_from_text(game, SCREEN, free_game=True, bet_per_line=2, held="0,1,2",
                          initial=["1:G:3"])
    rec = record_check(engine, game, spin, 500, swipe_of(SURVEILLANCE), clock=lambda: AT)
    assert (rec.by.number, rec.by.role) == (SURVEILLANCE, "surveillance")
    assert rec.verdict == "mismatch" and rec.checked_at == AT
    with Session(engine) as s:
        row = s.scalars(select(MachineCheck)).one()
        who = s.get(Employee, row.employee_id)
        swipes = list(s.scalars(select(SwipeLog)))
    assert who is not None and who.number == SURVEILLANCE
    assert row.created_at == AT
    assert (row.game, row.game_name, row.screen) == ("games/four-winds.toml", "Four Winds",
                                                    SCREEN)
    assert row.options == {"free_game": True, "bet_per_line": 2, "lines": None,
                           "held": [0, 1, 2],
                           "initial": [{"line": 1, "symbol": "G", "count": 3}]}
    # free game x2, bet 2 per line (total 10): line 1 not paid again, line 2 20 x 2 x 2 x 2 =
    # 160, flowers 3 x 10 x 2 = 60, retrigger prize 5 x 10 x 2 = 100: 320
    assert (row.claimed_credits, row.evaluated_credits, row.verdict) == (500, 320, "mismatch")
    assert row.wins["total"] == 320
    assert row.wins["not_paid_again"] == [{"line": 1, "symbol": "G", "count": 3}]
    assert [w["prize"] for w in row.wins["line_wins"]] == [160]
    assert [(sw.outcome, sw.employee_id, sw.action, sw.hit_id) for sw in swipes] == [
        ("accepted", row.employee_id, "machine_check", None)]


def test_matching_check_is_recorded_with_the_supervisor(engine: Engine) -> None:
    enroll_demo_employees(engine)
    game, spin = _spin()
    rec = record_check(engine, game, spin, 145, swipe_of(SUPERVISOR), clock=lambda: AT)
    assert (rec.verdict, rec.evaluated, rec.by.name) == ("match", 145, "Dana Reyes")
    with Session(engine) as s:
        row = s.scalars(select(MachineCheck)).one()
    assert (row.verdict, row.claimed_credits, row.evaluated_credits) == ("match", 145, 145)


def test_refused_unknown_card_changes_nothing_but_the_swipe_log(engine: Engine) -> None:
    enroll_demo_employees(engine)
    game, spin = _spin()
    with pytest.raises(AuthError, match="not enrolled"):
        record_check(engine, game, spin, 145, UNKNOWN_CARD, clock=lambda: AT)
    assert _count(engine, MachineCheck) == 0
    with Session(engine) as s:
        swipes = list(s.scalars(select(SwipeLog)))
    assert [(sw.outcome, sw.employee_id, sw.action) for sw in swipes] == [
        ("unknown_card", None, "machine_check")]


def test_bad_screen_or_claim_writes_nothing_not_even_a_swipe(engine: Engine) -> None:
    enroll_demo_employees(engine)
    game = find_game("four-winds")
    with pytest.raises(SpinError, match="unknown symbol 'Z'"):
        spin_from_text(game, "R X R N Z / G Y X B N / F F E F N")
    _game, spin = _spin()
    with pytest.raises(MachineCheckError):
        record_check(engine, game, spin, -5, swipe_of(SUPERVISOR))
    assert _count(engine, MachineCheck) == 0 and _count(engine, SwipeLog) == 0
