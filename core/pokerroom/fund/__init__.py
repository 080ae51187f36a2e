"""The poker room's Bad Beat Jackpot FUND in the ledger (RULES.md section 6, "Funding" and
"Payout"; TGD-1540 for cessation).  docs/bbj.md "The fund" explains the choices.  One module per
job, every name of them here (``core.pokerroom.fund.X``):

* ``ledger``: the fund's movements: the fund row, its entries and their sums, seed money.
* ``counts``: the daily count (drop boxes, the jackpot rake) and its posting; tournament fees.
* ``awards``: a hit paid from the fund (the amount for a hit, the award and its shares, a void).
* ``notices``: notices that the fund will cease (TGD-1540 part 1) and their deadlines.
* ``cessation``: the fund ceases (by transfer, or forfeited on the room's closure); its status.

A fund's main and reserve are ALWAYS the sums of its ``bbj_entries`` (centavos); every write is
one transaction holding the fund row.  Nothing is updated in place.
"""

from __future__ import annotations

from core.pokerroom.fund.awards import (
    amount_for_hit,
    amount_for_hit_in,
    hit_funds_read,
    record_award,
    record_award_in,
    void_award_in,
)
from core.pokerroom.fund.cessation import (
    Forfeiture,
    FundStatus,
    cease_by_transfer,
    forfeit_on_closure,
    forfeit_on_closure_in,
    fund_status,
    open_cases_in,
)
from core.pokerroom.fund.counts import (
    DENOMINATIONS,
    Distribution,
    FundSettings,
    Posting,
    distribute,
    jackpot_rake_cents,
    post_day,
    post_day_in,
    posting_settings,
    record_count,
    record_count_in,
    record_tournament_fee_in,
)
from core.pokerroom.fund.ledger import (
    CESSATION_KINDS,
    ENTRY_KINDS,
    BbjFundError,
    Funds,
    create_fund,
    funds,
    open_fund,
    seed,
    seed_infusions,
    seed_outstanding_cents,
)
from core.pokerroom.fund.notices import (
    NOTICE_FOLLOW_UPS,
    NOTICE_KINDS,
    NOTICE_TEXT,
    PART1_BUSINESS_DAYS,
    PART2_BUSINESS_DAYS,
    PLAYERS_DAYS,
    Notice,
    NoticeDeadline,
    active_notice_in,
    give_notice_in,
    notice_at_cessation,
    notice_deadlines,
    notices,
    notices_in,
    players_told_in,
    withdraw_notice_in,
)

__all__ = [
    "active_notice_in", "amount_for_hit", "amount_for_hit_in",
    "BbjFundError", "cease_by_transfer", "CESSATION_KINDS", "create_fund",
    "DENOMINATIONS", "distribute", "Distribution", "ENTRY_KINDS", "forfeit_on_closure",
    "forfeit_on_closure_in", "Forfeiture", "fund_status", "Funds", "funds",
    "FundSettings", "FundStatus", "give_notice_in", "hit_funds_read", "jackpot_rake_cents",
    "Notice", "notice_at_cessation", "notice_deadlines",
    "NOTICE_FOLLOW_UPS", "NOTICE_KINDS", "NOTICE_TEXT", "NoticeDeadline", "notices", "notices_in",
    "open_cases_in", "open_fund", "PART1_BUSINESS_DAYS", "PART2_BUSINESS_DAYS", "PLAYERS_DAYS",
    "players_told_in", "post_day", "post_day_in", "Posting", "posting_settings", "record_award",
    "record_award_in", "record_count", "record_count_in", "record_tournament_fee_in",
    "seed", "seed_infusions", "seed_outstanding_cents",
    "void_award_in", "withdraw_notice_in",
]
