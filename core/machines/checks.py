"""The console's machine-win check (docs/slots.md, "Checking a machine win" in docs/operator.md).

A supervisor or surveillance officer enters the screen a gaming machine shows and the amount it
claims; :func:`check` evaluates the screen (``core.machines.rules.slots``) and compares;
:func:`record_check` records the check in the ledger (``machine_checks``) with the card of whoever
checked, in ONE transaction with its swipe-log row.  Any active employee may check, surveillance
included: a check authorizes no pay and moves no money.  A refused card writes only its swipe-log
row.

Amounts are machine credits (ints), as the evaluator gives them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.ledger.models import Employee, MachineCheck
from core.machines.rules.slot_games import Game
from core.machines.rules.slots import Outcome, Spin, evaluate, outcome_json
from core.people.auth import Swipe, gate_for
from core.people.who import Who

log = logging.getLogger("podium.machine_checks")

SWIPE_ACTION = "machine_check"
Verdict = Literal["match", "mismatch"]


class MachineCheckError(ValueError):
    """A machine check that can not be made (e.g. a claimed amount that is not a count of
    credits); the message names the field and the problem."""


@dataclass(frozen=True)
class CheckResult:
    """A screen evaluated against a claim (nothing recorded yet)."""

    outcome: Outcome
    claimed: int
    verdict: Verdict


@dataclass(frozen=True)
class RecordedCheck:
    """A check as recorded: its ledger row id, who checked and when (UTC)."""

    check_id: int
    verdict: Verdict
    claimed: int
    evaluated: int
    by: Who
    checked_at: datetime


def _utcnow() -> datetime:
    return datetime.now(UTC)


def parse_claim(text: str) -> int:
    """The claimed amount as typed: a whole number of credits, 0 or more."""
    t = (text or "").strip().replace(",", "")
    if not t:
        raise MachineCheckError("claimed amount: enter the credits the machine claims")
    if not (t.isascii() and t.isdigit()):
        raise MachineCheckError(f"claimed amount: {text.strip()!r} is not a whole number of "
                                "credits")
    return int(t)


def _check_claim(claimed: int) -> None:
    if isinstance(claimed, bool) or not isinstance(claimed, int) or claimed < 0:
        raise MachineCheckError(f"claimed amount: {claimed!r} must be a whole number of "
                                "credits, 0 or more")


def check(game: Game, spin: Spin, claimed: int) -> CheckResult:
    """Evaluate ``spin`` (SpinError on a bad screen or option) and compare with ``claimed``."""
    _check_claim(claimed)
    out = evaluate(game, spin)
    return CheckResult(out, claimed, "match" if out.total == claimed else "mismatch")


def screen_text(spin: Spin) -> str:
    """The screen as the CLI takes it: rows from the top separated by ``/``."""
    return " / ".join(" ".join(row) for row in spin.screen)


def spin_options(spin: Spin) -> dict[str, Any]:
    return {"free_game": spin.free_game, "bet_per_line": spin.bet_per_line,
            "lines": spin.lines, "held": sorted(spin.held),
            "initial": [{"line": p.line, "symbol": p.symbol, "count": p.count}
                        for p in spin.initial]}


def record_check(engine: Engine, game: Game, spin: Spin, claimed: int, swipe: Swipe, *,
                 clock: Callable[[], datetime] = _utcnow) -> RecordedCheck:
    """Evaluate, then record the check with the card of whoever checked (any active role).

    Bad input (screen, options, claim) raises before anything is written.  A refused card
    (AuthError) is logged in ``swipe_log`` in a transaction of its own and re-raised; it writes
    nothing else."""
    result = check(game, spin, claimed)
    out = result.outcome

    def write(s: Session, emp: Employee, _now: datetime) -> RecordedCheck:
        now = clock().astimezone(UTC)
        row = MachineCheck(game=game.source or game.name, game_name=game.name,
                           screen=screen_text(spin), options=spin_options(spin),
                           claimed_credits=claimed, evaluated_credits=out.total,
                           verdict=result.verdict, wins=outcome_json(out),
                           employee_id=emp.id, created_at=now)
        s.add(row)
        s.flush()
        return RecordedCheck(row.id, result.verdict, claimed, out.total, Who.of(emp), now)

    gate = gate_for(engine)
    recorded = gate.run(swipe, None, SWIPE_ACTION, write)
    log.info("machine check %d recorded: %s, claimed %d, evaluated %d (%s)", recorded.check_id,
             game.name, claimed, out.total, recorded.verdict)
    return recorded


__all__ = ["CheckLine", "CheckResult", "MachineCheckError", "RecordedCheck", "check", "checks_in",
           "parse_claim",
           "record_check", "screen_text", "spin_options"]


@dataclass(frozen=True)
class CheckLine:
    """A recorded check as a desk lists it."""

    check_id: int
    at: datetime  # UTC
    game_name: str
    screen: str
    options: dict[str, Any]
    claimed: int
    evaluated: int
    verdict: str
    by: Who
    wins: dict[str, Any]


def checks_in(desk: Any, start: datetime, end: datetime, *, mismatches_only: bool = False,
              limit: int = 2000) -> list[CheckLine]:
    """The machine checks recorded in ``[start, end)`` (UTC), newest first, at most ``limit``
    (read-only, through a :class:`core.desks.desk.Desk`)."""
    q = (select(MachineCheck, Employee).join(Employee, Employee.id == MachineCheck.employee_id)
         .where(MachineCheck.created_at >= start, MachineCheck.created_at < end)
         .order_by(MachineCheck.id.desc()).limit(limit))
    if mismatches_only:
        q = q.where(MachineCheck.verdict == "mismatch")
    with desk.read() as s:
        rows = s.execute(q).all()
    return [CheckLine(c.id, c.created_at, c.game_name, c.screen, dict(c.options or {}),
                      int(c.claimed_credits), int(c.evaluated_credits), c.verdict,
                      Who.of(e), dict(c.wins or {}))
            for c, e in rows]
