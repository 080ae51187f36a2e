"""The ledger tables (SQLAlchemy 2 declarative), one module per domain; importing this package
puts every table in ``Base.metadata``, and every name is imported from here.  The migrations
(0001 initial, 0002 refused_events, 0003 employee_events, 0004 machine_checks, 0005 the bbj_*
tables, 0006 bbj_cases and bbj_case_events, ..., 0013 rounds.boot) create exactly these; a test
compares Alembic autogenerate against this package's metadata.

Append-only tables (never UPDATEd or DELETEd by Podium): level_settings, meter_entries,
controller_events, refused_events, hit_decisions, awards, swipe_log, slips, slip_print_attempts,
employee_events, machine_checks, bbj_drop_counts, bbj_postings, bbj_entries, bbj_awards,
bbj_award_shares, bbj_cessations, bbj_cases, bbj_case_events.
A meter's value is the SUM of its meter_entries; ``level_balances`` keeps that sum (updated in the
same transaction as every entry, revision 0010) so a read costs the same at any ledger age, and the
invariant check compares the two.

Money: ``*_cents`` columns are cents; ``*_delta`` / ``*_units`` columns are exact units
(1/1,000,000 cent, core.kernel.money).  Rates are stored as integer millionths (``*_ppm``) so they
stay exact on every database.  Times are UTC.

The modules: base.py (``Base``, the UTC time column, the string "enum" values), floor.py (groups,
levels, tables, controller events, rounds, wagers, meter entries and their kept totals), hits.py
(hits, decisions, awards, slips, machine checks), people.py (employees, their events, the swipe
log, card locks), pokerroom.py (the Bad Beat Jackpot funds and cases, filings, tournament fees),
ledger.py (settings, parameter changes and approvals, floor services and table owners, the hash
chain, its journal, the writers' locks).
"""

from core.ledger.models.base import (
    DECISIONS,
    ENTRY_KINDS,
    ROLES,
    SWIPE_OUTCOMES,
    Base,
    UTCDateTime,
)
from core.ledger.models.floor import (
    ControllerEvent,
    GameTable,
    Group,
    Level,
    LevelBalance,
    LevelHourTotal,
    LevelSetting,
    MeterEntry,
    RefusedEvent,
    Round,
    TableHourTotal,
    Wager,
)
from core.ledger.models.hits import (
    Award,
    Hit,
    HitDecision,
    MachineCheck,
    Slip,
    SlipPrintAttempt,
    SlipVoid,
)
from core.ledger.models.ledger import (
    ContributionApproval,
    FloorApproval,
    FloorService,
    LedgerChain,
    LedgerJournal,
    LedgerJournalIncident,
    LedgerLock,
    OwnershipEvent,
    ParameterChange,
    Setting,
    TableOwner,
)
from core.ledger.models.people import (
    CardLock,
    Employee,
    EmployeeEvent,
    SwipeLog,
)
from core.ledger.models.pokerroom import (
    BbjAward,
    BbjAwardShare,
    BbjCase,
    BbjCaseEvent,
    BbjCessation,
    BbjCessationNotice,
    BbjDropCount,
    BbjEntry,
    BbjFiling,
    BbjFund,
    BbjPosting,
    BbjSlipPrint,
    PokerTournamentFee,
)

__all__ = [
    "Award",
    "Base",
    "BbjAward",
    "BbjAwardShare",
    "BbjCase",
    "BbjCaseEvent",
    "BbjCessation",
    "BbjCessationNotice",
    "BbjDropCount",
    "BbjEntry",
    "BbjFiling",
    "BbjFund",
    "BbjPosting",
    "BbjSlipPrint",
    "CardLock",
    "ContributionApproval",
    "ControllerEvent",
    "DECISIONS",
    "ENTRY_KINDS",
    "Employee",
    "EmployeeEvent",
    "FloorApproval",
    "FloorService",
    "GameTable",
    "Group",
    "Hit",
    "HitDecision",
    "LedgerChain",
    "LedgerJournal",
    "LedgerJournalIncident",
    "LedgerLock",
    "Level",
    "LevelBalance",
    "LevelHourTotal",
    "LevelSetting",
    "MachineCheck",
    "MeterEntry",
    "OwnershipEvent",
    "ParameterChange",
    "PokerTournamentFee",
    "ROLES",
    "RefusedEvent",
    "Round",
    "SWIPE_OUTCOMES",
    "Setting",
    "Slip",
    "SlipPrintAttempt",
    "SlipVoid",
    "SwipeLog",
    "TableHourTotal",
    "TableOwner",
    "UTCDateTime",
    "Wager",
]
