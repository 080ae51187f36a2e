"""``[poker_room]``: the Bad Beat Jackpot rules RULES.md section 6 leaves to the operator.

The values live in the rules' and the fund's own settings (``core.pokerroom.rules.bbj.BbjSettings``
and ``Split``, ``core.pokerroom.fund.FundSettings``,
``core.pokerroom.calendar_settings.CalendarSettings``),
whose defaults are the RULES.md ones; each key is declared here once, its default taken from
there."""

from __future__ import annotations

from dataclasses import field
from decimal import Decimal
from typing import Any

from core.floorconfig.schema import Setting, _Section, declare, section, setting, shown, the
from core.floorconfig.tables import MAX_SEATS
from core.kernel.money import PESOS_CODE, currency_problem
from core.pokerroom.calendar_settings import END_OF_NEXT_MONTH, CalendarSettings, QuarterDue
from core.pokerroom.fund import FundSettings
from core.pokerroom.rules.bbj import TIE_POLICIES, BbjSettings, Split

MAX_DENOMINATION = 1_000_000  # pesos: a chip

# what the PAGCOR guideline fixes (RULES.md 6 "Funding"): a floor file past it is refused at load
RAKE_RATE = Decimal("0.10")  # II.C: exactly; lower amounts by blind level are caps
ROOM_MAX_RAKE_CENTS = 10_000  # II.C: at most 100.00 a hand
ADMIN_FEE_RATE = Decimal("0.30")  # II.K.i: exactly
MAIN_RATE = Decimal("0.70")  # II.K.ii: exactly (the reserve 30%)
_G = "PAGCOR Bad Beat Jackpot Guidelines "


def _bank_statement_days(value: Any, what: str) -> QuarterDue:
    """The older key: days after the quarter's end (1 to 366), or "end_of_next_month"."""
    if value == END_OF_NEXT_MONTH:
        return QuarterDue("month_end", month=1)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 366:
        raise ValueError(f"{what}: {shown(value)} must be a number of days after the "
                         f"quarter's end (1 to 366) or \"{END_OF_NEXT_MONTH}\"")
    return QuarterDue("days", days=value)


def _quarter_due(value: Any, what: str) -> QuarterDue:
    """``"2nd Monday of month 1"``, ``"end of month 1"`` or ``"30 days"``."""
    if not isinstance(value, str):
        raise ValueError(f"{what}: {shown(value)} must be text, e.g. \"2nd Monday of month 1\"")
    try:
        return QuarterDue.parse(value)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _denominations(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or len(value) > 20 or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_DENOMINATION
            for v in value):
        raise ValueError(f"{what}: must be a list of at most 20 chip values in whole pesos "
                         f"(1 to {MAX_DENOMINATION:,}), e.g. [500, 100, 50, 25, 10]")
    return tuple(value)


_RULES, _FUND, _SPLIT, _CALENDAR = BbjSettings(), FundSettings(), Split(), CalendarSettings()

SPLIT = declare("poker_room.split", *(
    Setting("rate", f"the {role} share of an award (the three add up to 1)",
            default=getattr(_SPLIT, role), key=role)
    for role in ("winning", "losing", "table")))

CAP = declare(
    "poker_room.caps_by_big_blind",
    Setting("money", "a blind level (its big blind)", key="big_blind"),
    Setting("money", "the jackpot rake cap per hand at that level (at most "
            "room_max_jackpot_rake)", key="cap"))

POKER_ROOM = declare(
    "poker_room",
    Setting("table", "the award's shares: [poker_room.split]", default=_SPLIT, key="split",
            shown_default="the table below"),
    Setting("integer", "players dealt in for a bad beat to count", default=_RULES.min_players,
            key="min_players", lo=2, hi=MAX_SEATS, unit="players", least=5,
            guideline=_G + 'III.H: "a minimum of five (5) active participants dealt in"'),
    Setting("integer", "the pot (house and jackpot rake included) at least this many big "
            "blinds", default=_RULES.min_pot_big_blinds, key="min_pot_big_blinds", lo=0,
            hi=1000, unit="big blinds", least=20,
            guideline=_G + 'III.J: "The pot must be at least twenty (20) times the big blind"'),
    Setting("money", "citizens and NRAETB pay tax on a share above this",
            default=_RULES.tax_threshold_cents, key="tax_threshold"),
    Setting("rate", "citizens' and NRAETB's tax, of the whole share",
            default=_RULES.resident_tax_rate, key="resident_tax_rate"),
    Setting("rate", "NRANETB's tax, whatever the amount", default=_RULES.nranetb_tax_rate,
            key="nranetb_tax_rate"),
    Setting("rate", "the jackpot rake, of each eligible pot (lower amounts by blind level: "
            "caps_by_big_blind)", default=_FUND.rake_rate, key="jackpot_rake_rate",
            least=RAKE_RATE, most=RAKE_RATE,
            guideline=_G + 'II.C: "ten percent (10%) of each eligible poker game pot"; the '
                      '"lower jackpot rake amounts (based on table blind limits)" it allows are '
                      'caps_by_big_blind'),
    Setting("money", "the jackpot rake's cap per hand", default=_FUND.room_max_rake_cents,
            key="room_max_jackpot_rake", most=ROOM_MAX_RAKE_CENTS,
            guideline=_G + 'II.C: "up to a maximum of ONE HUNDRED PESOS (P100.00) only"'),
    Setting("table", "lower caps by blind level: [{ big_blind = \"20.00\", cap = \"50.00\" }]",
            default=(), key="caps_by_big_blind"),
    Setting("rate", "of the day's jackpot rake, to the operator",
            default=_FUND.admin_fee_rate, key="admin_fee_rate", least=ADMIN_FEE_RATE,
            most=ADMIN_FEE_RATE,
            guideline=_G + 'II.K.i: "Thirty percent (30%) shall be retained by the operator as '
                      'a jackpot administrative fee"'),
    Setting("rate", "of what goes to the fund, to main (the reserve gets the rest)",
            default=_FUND.main_rate, key="main_rate", least=MAIN_RATE, most=MAIN_RATE,
            guideline=_G + 'II.K.ii: "Reserved Jackpot Fund Main Jackpot Fund 30% 70%"'),
    Setting("value", "chip values in whole pesos, largest first",
            default=_FUND.denominations, key="denominations", parse=_denominations,
            form="list of whole numbers",
            rule=f"1 to 20 values, 1 to {MAX_DENOMINATION:,}",
            unit="pesos"),
    Setting("choice", "two hands of equal value for a place: split its share, or refuse the "
            "claim", default=_RULES.tie, key="tie", choices=TIE_POLICIES),
    Setting("integer", "the tax withheld in a month is remitted to the BIR by this day of the "
            "next month", default=_CALENDAR.bir_remittance_day, key="bir_remittance_day",
            lo=1, hi=28, unit="day of the month"),
    Setting("value", "the fund's quarterly bank statement is due on this day after the "
            "quarter (the guideline: \"January to March -- for submission on 2nd Monday of "
            "April, and so on\")", default=_CALENDAR.bank_statement_due,
            key="bank_statement_due", parse=_quarter_due, form="text",
            rule='"Nth Weekday of month M" (1st to 4th, M 1 to 3), "end of month M" or '
                 '"N days" (1 to 366)',
            shown_default=f'"{_CALENDAR.bank_statement_due.text}"'),
    Setting("value", "the older form of bank_statement_due: days after the quarter's end, or "
            f"\"{END_OF_NEXT_MONTH}\" (not both keys)", default=None,
            key="bank_statement_days", parse=_bank_statement_days, form="whole number or text",
            rule=f'1 to 366, or "{END_OF_NEXT_MONTH}"', optional=True, unit="days"),
)


@section("poker_room")
class PokerRoomConfig:
    """The Bad Beat Jackpot rules RULES.md section 6 leaves to the operator (``[poker_room]``;
    every key optional, with the RULES.md defaults): ``rules`` for deciding a claim and its
    shares, ``fund`` for the jackpot rake, its caps and the daily distribution, ``calendar``
    for the room's regulatory deadlines (core/pokerroom/calendar.py)."""

    rules: BbjSettings = field(default_factory=BbjSettings)
    fund: FundSettings = field(default_factory=FundSettings)
    room_location: str = setting(
        kind="line",
        doc=("the poker room's location on the regulator's forms (docs/forms.md; \"\": a blank "
             "filled in by hand)"),
        default="", hi=200)
    currency: str = setting(
        kind="text",
        doc=("the currency of the poker room's Bad Beat Jackpot funds, an ISO 4217 code: their "
             "screens, slips and forms write every amount in it, the way [casino] locale "
             "writes it"),
        default=PESOS_CODE, check=currency_problem, rule="an ISO 4217 code with two decimals")
    calendar: CalendarSettings = field(default_factory=CalendarSettings)


def parse_poker_room(sec: _Section) -> PokerRoomConfig:
    split_sec = sec.sub(POKER_ROOM["split"].key, {})
    split = {name: split_sec.read(decl) for name, decl in SPLIT.items()}
    split_sec.done()

    def read(key: str) -> Any:
        return sec.read(POKER_ROOM[key])

    min_players, min_pot, threshold, resident, nranetb, rake_rate, room_max = (
        read("min_players"), read("min_pot_big_blinds"), read("tax_threshold"),
        read("resident_tax_rate"), read("nranetb_tax_rate"), read("jackpot_rake_rate"),
        read("room_max_jackpot_rake"))
    caps = []
    for cap_sec in sec.array(POKER_ROOM["caps_by_big_blind"].key):
        caps.append((cap_sec.read(CAP["big_blind"]), cap_sec.read(CAP["cap"])))
        cap_sec.done()
    admin, main, denoms = read("admin_fee_rate"), read("main_rate"), read("denominations")
    tie = read("tie")  # RULES.md 6.6
    room_location = sec.read(the(PokerRoomConfig, "room_location"))  # the regulator's forms
    currency = sec.read(the(PokerRoomConfig, "currency"))  # every fund's (the forms' too)
    # the room's regulatory deadlines (core/pokerroom/calendar.py, docs/bbj.md "Room deadlines")
    bir_day, bank_days = read("bir_remittance_day"), read("bank_statement_days")
    if bank_days is not None and POKER_ROOM["bank_statement_due"].key in sec.data:
        raise sec.error("bank_statement_days", "give bank_statement_due or the older "
                        "bank_statement_days, not both")
    bank_due = bank_days if bank_days is not None else read("bank_statement_due")
    sec.done()
    try:
        rules = BbjSettings(split=Split(**split), min_players=min_players,
                            min_pot_big_blinds=min_pot, tax_threshold_cents=threshold,
                            resident_tax_rate=resident, nranetb_tax_rate=nranetb, tie=tie)
        fund = FundSettings(rake_rate=rake_rate, room_max_rake_cents=room_max,
                            caps_by_big_blind=tuple(caps), admin_fee_rate=admin, main_rate=main,
                            denominations=denoms)
    except ValueError as exc:
        raise sec.error("", str(exc)) from None
    return PokerRoomConfig(rules, fund, room_location=room_location, currency=currency,
                           calendar=CalendarSettings(bir_day, bank_due))
