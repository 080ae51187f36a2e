"""``podium employees approve-contribution``: an executive approves a contribution rate above
the paytable's pre-configured one for one level of a group (RULES.md 4: such a rate lowers the
house advantage).  Ledger record: a ``contribution_approvals`` row naming the executive
(core/cli/employees/approval.py); the floor starts with such a rate only while an approval of
exactly that rate exists (core/tablegames/setup.py)."""

from __future__ import annotations

import argparse
from datetime import datetime
from decimal import Decimal, InvalidOperation

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from core.cli.employees.approval import approved, key_or_default, need_approval
from core.cli.employees.ledger import guarded
from core.cli.employees.records import EmployeeError, operator
from core.cli.employees.terminal import read_approval, say
from core.floorconfig import Authorization, ident_problem
from core.kernel.text import printable
from core.ledger.models import ContributionApproval, Employee
from core.people.auth import Credential
from core.people.cardkey import CardKey
from core.people.who import Who


def approve_contribution(engine: Engine, group: str, level: str, rate: str, reason: str,
                         *, approval: Credential | None = None, now: datetime | None = None,
                         key: CardKey | None = None,
                         policy: Authorization | None = None) -> str:
    """Record an executive's approval (swipe and PIN) of contribution rate ``rate`` (a
    fraction of the wager, e.g. ``0.25``) for level ``level`` of group ``group``.  Returns
    what was recorded, in words."""
    group, level = str(group).strip(), str(level).strip()
    for what, value in (("--group", group), ("--level", level)):
        problem = ident_problem(value)
        if problem:
            raise EmployeeError(f"{what}: {problem}")
    ppm = rate_ppm(rate)
    reason = (reason or "").strip()
    if not reason:
        raise EmployeeError("approve-contribution: give a --reason (it is kept in the ledger)")
    words = f"a contribution rate of {rate.strip()} for group {group} level {level}"
    need_approval(approval, f"approving {words}")

    def write(s: Session, exe: Employee, when: datetime) -> str:
        s.add(ContributionApproval(group_id=group, level=level, rate_ppm=ppm,
                                   approved_by=exe.id, reason=reason, operator=operator(),
                                   created_at=when))
        s.flush()
        return f"{words}: approved by {Who.of(exe).by_role()}"

    return approved(engine, approval, key=key_or_default(key, create=False), policy=policy,
                    now=now, action="approve_contribution", words=f"approving {words}",
                    write=write)


def rate_ppm(rate: str) -> int:
    """A rate as the ledger keeps it (parts per million, exact), or EmployeeError."""
    text = str(rate).strip()
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or not 0 < value <= 1 or (value * 1_000_000) % 1:
        raise EmployeeError(f"--rate: {printable(text)[:40]!r} is not a contribution rate "
                            "(a fraction above 0 and at most 1, at most 6 decimals, e.g. 0.25)")
    return int(value * 1_000_000)


# --- at the terminal -------------------------------------------------------------------------

def run_approve_contribution(args: argparse.Namespace, engine: Engine, key: CardKey,
                             policy: Authorization) -> int:
    approval = read_approval()
    say(guarded(args.db, lambda: approve_contribution(
        engine, args.group, args.level, args.rate, args.reason, approval=approval, key=key,
        policy=policy)))
    return 0
