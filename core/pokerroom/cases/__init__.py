"""Bad Beat Jackpot claims as tracked CASES (RULES.md section 6, "Deadlines and reports"; the
console's Poker room tab, docs/operator.md "Poker room"; docs/bbj.md "Cases").  One module per
job, every name of them here (``core.pokerroom.cases.X``):

* ``claim``: a claim as the floor enters it, stored with its case, decided on the fund.
* ``view``: a case as it is read: its states and events, open or closed, its deadlines.
* ``authority``: whose card a step needs (a large award or share: an executive's; another
  person than the verifier), and the one way a write is done with a card.
* ``steps``: a case opened, moved on, voided; its approval writes the fund's award and its
  shares in the same transaction.
* ``fund_steps``: the fund's writes made with a card (counts, posting, fees, notices,
  forfeiture).
* ``slip_prints``: every attempt to print a share slip.
"""

from __future__ import annotations

from core.pokerroom.cases.authority import (
    EXECUTIVE,
    ROLE,
    SWIPE_ACTION,
    StepAuthority,
    step_authority,
)
from core.pokerroom.cases.claim import (
    REASON_TEXT,
    RULE_PASSED_TEXT,
    BbjCaseError,
    ClaimEntry,
    DayOf,
    decide_entry,
    entry_from_json,
    reasons_text,
    rule_results,
)
from core.pokerroom.cases.fund_steps import (
    CLOSURE_ACTION,
    COUNT_ACTION,
    forfeit_on_closure,
    give_notice,
    post_day,
    record_count,
    record_players_told,
    record_tournament_fee,
    withdraw_notice,
)
from core.pokerroom.cases.slip_prints import SlipPrint, record_slip_print, slip_prints
from core.pokerroom.cases.steps import advance, open_case, void
from core.pokerroom.cases.view import (
    ATTACHMENT_STATES,
    ATTACHMENTS_DAYS,
    CHAIN,
    STATE_TEXT,
    STATES,
    CaseView,
    Deadline,
    Event,
    add_business_days,
    deadlines,
    get_case,
    late_days,
    late_text,
    list_cases,
    next_deadline,
    overdue,
)

__all__ = [
    "add_business_days", "advance", "ATTACHMENT_STATES", "ATTACHMENTS_DAYS", "BbjCaseError",
    "CaseView", "CHAIN", "ClaimEntry", "CLOSURE_ACTION", "COUNT_ACTION", "DayOf", "Deadline",
    "deadlines", "decide_entry", "entry_from_json", "Event", "EXECUTIVE", "forfeit_on_closure",
    "get_case", "give_notice", "late_days", "late_text", "list_cases", "next_deadline",
    "open_case", "overdue", "post_day", "REASON_TEXT", "reasons_text", "record_count",
    "record_players_told", "record_slip_print", "record_tournament_fee", "ROLE",
    "RULE_PASSED_TEXT", "rule_results", "slip_prints", "SlipPrint", "STATE_TEXT", "STATES",
    "step_authority", "StepAuthority", "SWIPE_ACTION", "void", "withdraw_notice",
]
