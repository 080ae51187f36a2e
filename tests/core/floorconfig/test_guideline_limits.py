"""Issue 27 point 3: what the PAGCOR Bad Beat Jackpot Guidelines fix can not be configured past
them.  A floor file past a limit is refused at load with one line naming the key, the value and
the guideline's limit; what the guideline leaves to the operator (lower caps, more players, a
larger pot) still loads."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.floorconfig import FloorConfigError, loads_floor
from core.floorconfig.schema import REGISTRY
from core.pokerroom.fund import jackpot_rake_cents
from tests.core.floorconfig.test_floorconfig import BASE


def _room(lines: str) -> str:
    return BASE + "\n[poker_room]\n" + lines + "\n"


def _refusal(lines: str) -> str:
    with pytest.raises(FloorConfigError) as info:
        loads_floor(_room(lines), "floor.toml")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("floor.toml: poker_room.")
    return msg


def test_the_jackpot_rake_is_ten_percent_and_a_different_rate_is_refused() -> None:
    """Guideline II.C: "The jackpot rake from every game shall be ten percent (10%) of each
    eligible poker game pot up to a maximum of ONE HUNDRED PESOS (P100.00) only. However, the
    operator may collect varying lower jackpot rake amounts (based on table blind limits)".
    The rate is fixed; the lower amounts are the caps by blind level."""
    msg = _refusal('jackpot_rake_rate = "0.25"')
    assert "poker_room.jackpot_rake_rate: 0.25" in msg and "0.10" in msg
    assert "ten percent (10%)" in msg
    _refusal('jackpot_rake_rate = "0.05"')  # fixed: not a bound
    assert loads_floor(_room('jackpot_rake_rate = "0.10"')).poker_room.fund.rake_rate == \
        Decimal("0.10")


def test_the_rake_cap_is_at_most_one_hundred_pesos_and_lower_caps_load() -> None:
    """Guideline II.C: "up to a maximum of ONE HUNDRED PESOS (P100.00) only. However, the
    operator may collect varying lower jackpot rake amounts". The issue's floor (a 25% rake
    capped at 500.00) took PHP 500 from a PHP 4,000 pot; the guideline takes 10% of 4,000.00 =
    400.00, capped at 100.00: 100.00."""
    msg = _refusal('room_max_jackpot_rake = "500.00"')
    assert "poker_room.room_max_jackpot_rake: 500.00" in msg and "at most 100.00" in msg
    assert "ONE HUNDRED PESOS (P100.00)" in msg
    lower = loads_floor(_room('room_max_jackpot_rake = "50.00"\ncaps_by_big_blind = '
                              '[ { big_blind = "20.00", cap = "25.00" } ]')).poker_room.fund
    assert (lower.room_max_rake_cents, lower.rake_cap_cents(2_000)) == (5_000, 2_500)
    fund = loads_floor(_room('room_max_jackpot_rake = "100.00"')).poker_room.fund
    assert jackpot_rake_cents(400_000, flop_dealt=True, big_blind_cents=5_000,
                              settings=fund) == 10_000


def test_the_admin_fee_is_thirty_percent() -> None:
    """Guideline II.K: "From the total daily jackpot rake collection: i. Thirty percent (30%)
    shall be retained by the operator as a jackpot administrative fee."""
    msg = _refusal('admin_fee_rate = "0.50"')
    assert "poker_room.admin_fee_rate: 0.50" in msg and "0.30" in msg
    _refusal('admin_fee_rate = "0.25"')  # lower is past it too: the fund's share is fixed


def test_the_fund_splits_seventy_main_thirty_reserve() -> None:
    """Guideline II.K.ii: "Seventy percent (70%) shall go to the progressive bad beat jackpot
    fund broken down as follows: Reserved Jackpot Fund Main Jackpot Fund 30% 70%"."""
    msg = _refusal('main_rate = "0.50"')
    assert "poker_room.main_rate: 0.50" in msg and "0.70" in msg


def test_at_least_five_players_dealt_in() -> None:
    """Guideline III.H: "There must be a minimum of five (5) active participants dealt in at
    the table to qualify for a Bad Beat Jackpot." A room may ask for more."""
    msg = _refusal("min_players = 3")
    assert "poker_room.min_players: 3" in msg and "at least 5" in msg
    assert loads_floor(_room("min_players = 6")).poker_room.rules.min_players == 6


def test_a_pot_of_at_least_twenty_big_blinds() -> None:
    """Guideline III.J: "The pot must be at least twenty (20) times the big blind." A room may
    ask for more."""
    msg = _refusal("min_pot_big_blinds = 5")
    assert "poker_room.min_pot_big_blinds: 5" in msg and "at least 20" in msg
    assert loads_floor(_room("min_pot_big_blinds = 25")).poker_room.rules.min_pot_big_blinds \
        == 25


def test_the_issues_floor_file_is_refused_before_anything_is_read_from_it() -> None:
    """The issue's file (25% rake capped at 500.00, a 50% admin fee, a 50/50 split, 3 players,
    5 big blinds) "loads without a word" on main; it is refused, naming its first key past the
    guideline."""
    msg = _refusal('min_players = 3\nmin_pot_big_blinds = 5\njackpot_rake_rate = "0.25"\n'
                   'room_max_jackpot_rake = "500.00"\nadmin_fee_rate = "0.50"\n'
                   'main_rate = "0.50"')
    assert "poker_room.min_players: 3" in msg


def test_the_reference_shows_each_guideline_limit() -> None:
    """docs/floor-file.md is made from the declarations: each limit is declared once."""
    limits = {s.key: s.limit_words() for s in REGISTRY if s.guideline}
    assert limits == {
        "min_players": "at least 5 (PAGCOR Bad Beat Jackpot Guidelines III.H)",
        "min_pot_big_blinds": "at least 20 (PAGCOR Bad Beat Jackpot Guidelines III.J)",
        "jackpot_rake_rate": "exactly 0.10 (PAGCOR Bad Beat Jackpot Guidelines II.C)",
        "room_max_jackpot_rake": "at most 100.00 (PAGCOR Bad Beat Jackpot Guidelines II.C)",
        "admin_fee_rate": "exactly 0.30 (PAGCOR Bad Beat Jackpot Guidelines II.K.i)",
        "main_rate": "exactly 0.70 (PAGCOR Bad Beat Jackpot Guidelines II.K.ii)",
    }
