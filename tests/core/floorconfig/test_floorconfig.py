"""The floor configuration (core/floorconfig/): schema, refusals, warnings, the demo floor."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from core.floorconfig import (
    ControllerLinkConfig,
    FilePrinterConfig,
    FloorConfigError,
    NetworkPrinterConfig,
    load_demo_floor,
    load_floor,
    loads_floor,
    validate,
)
from core.kernel.money import cents_to_units
from core.tablegames.meters.arithmetic import LevelSettings
from core.tablegames.rules.paytables import load_paytables

BASE = """
[casino]
name = "Test Casino"
timezone = "Asia/Manila"

[authorization]
executive_threshold = "5000.00"

[printer]
kind = "network"
host = "10.0.0.9"
port = 9100
timeout = 3

[[groups]]
id = "G1"
name = "Link One"
paytable = "FPGPP-WA01"
decks = 1
all_pays_from_meter = false
[groups.levels.MAIN]
seed = "10000.00"
preconfigured_seed = "10000"
contribution_rate = "0.20"
preconfigured_rate = "0.200"
reserve_rate = "0.02"

[[tables]]
id = "T1"
group = "G1"
host = "127.0.0.1"
port = 17301

[[tables]]
id = "T2"
group = "G1"
host = "127.0.0.1"
port = 17302
"""


def table(tid: str, port: int, extra: str = "", group: str = "G1", host: str = "127.0.0.1") -> str:
    return (f'\n[[tables]]\nid = "{tid}"\ngroup = "{group}"\nhost = "{host}"\nport = {port}\n'
            + extra)


def refused(text: str, *fragments: str) -> str:
    """Refused when read, or when checked against the installed paytables."""
    with pytest.raises(FloorConfigError) as info:
        validate(loads_floor(text, "floor.toml"), PAYTABLES)
    msg = str(info.value)
    assert msg.startswith("floor.toml: ")
    for f in fragments:
        assert f in msg, msg
    return msg


PAYTABLES = load_paytables()


# --- the schema ---------------------------------------------------------------------------------

def test_an_old_floor_files_currency_symbol_gets_one_clear_line() -> None:
    """``currency_symbol`` is no longer read (currency and locale write every amount): a file
    that still says the currency's own sign loads; any other sign is refused on one line
    naming the key and what to write instead."""
    old = BASE.replace('timezone = "Asia/Manila"\n',
                       'timezone = "Asia/Manila"\ncurrency_symbol = "$"\n')
    assert loads_floor(old, "floor.toml").casino.money.text(123_456) == "$1,234.56"
    with pytest.raises(FloorConfigError) as info:
        loads_floor(old.replace('currency_symbol = "$"', 'currency_symbol = "₱"'), "floor.toml")
    msg = str(info.value)
    assert msg.startswith("floor.toml: casino.currency_symbol: '₱' is no longer read"), msg
    assert "set currency (an ISO 4217 code" in msg and "remove this line" in msg, msg
    assert "\n" not in msg


def test_a_valid_floor_loads_with_its_defaults() -> None:
    cfg = loads_floor(BASE, "floor.toml")
    assert cfg.casino.money.text(1_234_567) == "$12,345.67"  # USD, en_US by default
    assert cfg.authorization.executive_threshold_cents == 500_000
    assert cfg.printer == NetworkPrinterConfig("10.0.0.9", 9100, 3.0)
    assert isinstance(cfg.printer, NetworkPrinterConfig)
    assert (cfg.printer.status_timeout, cfg.printer.send_timeout,
            cfg.printer.confirm_timeout) == (2.0, 10.0, 20.0)
    timed = loads_floor(BASE.replace("timeout = 3", "timeout = 3\nstatus_timeout = 1.5\n"
                                     "send_timeout = 30\nconfirm_timeout = 45"), "floor.toml")
    assert timed.printer == NetworkPrinterConfig("10.0.0.9", 9100, 3.0, status_timeout=1.5,
                                                 send_timeout=30.0, confirm_timeout=45.0)
    g = cfg.group("G1")
    assert (g.lock_at_hit, g.pay_order, g.decks) == (False, "right_first", 1)
    assert g.level("MAIN").settings() == LevelSettings(cents_to_units(1_000_000),
                                                       Decimal("0.20"), Decimal("0.02"))
    t = cfg.table("T1")
    assert (t.name, t.seats, t.decks, t.paytable) == ("T1", 6, 1, None)
    assert [x.id for x in cfg.tables_in("G1")] == ["T1", "T2"]
    assert validate(cfg, PAYTABLES) == []


def test_file_printer_and_left_first_order_and_lock_at_hit() -> None:
    text = BASE.replace('kind = "network"\nhost = "10.0.0.9"\nport = 9100\ntimeout = 3',
                        'kind = "file"\ndirectory = "/var/slips"')
    text = text.replace("decks = 1\n", 'decks = 1\npay_order = "left_first"\nlock_at_hit = true\n')
    cfg = loads_floor(text)
    assert cfg.printer == FilePrinterConfig("/var/slips")
    assert cfg.group("G1").pay_order == "left_first"
    assert cfg.group("G1").lock_at_hit is True


def test_load_floor_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "casino.toml"
    p.write_text(BASE.replace('timezone = "Asia/Manila"', 'timezone = "Mars/Olympus"'))
    with pytest.raises(FloorConfigError, match=r"casino\.toml: casino\.timezone: 'Mars/Olympus'"):
        load_floor(p)
    with pytest.raises(FloorConfigError, match="no such"):
        load_floor(tmp_path / "missing.toml")
    p.write_text("[casino\nname=")
    with pytest.raises(FloorConfigError, match="casino.toml: not valid TOML"):
        load_floor(p)


# --- refusals -----------------------------------------------------------------------------------

def test_linking_tables_with_different_paytables_is_refused_naming_both() -> None:
    refused(BASE + table("T3", 17303, 'paytable = "FPGPP-WA02"\n'),
            "T1", "T3", "different paytables")


def test_linking_tables_with_different_deck_counts_is_refused_naming_both() -> None:
    refused(BASE + table("T3", 17303, "decks = 2\n"), "T1", "T3", "deck")


def test_table_paytable_must_equal_the_groups() -> None:
    text = BASE.replace('port = 17301\n', 'port = 17301\npaytable = "FPGPP-WA02"\n')
    text = text.replace('port = 17302\n', 'port = 17302\npaytable = "FPGPP-WA02"\n')
    refused(text, "group G1", "T1", "FPGPP-WA02", "FPGPP-WA01")
    # The same paytable spelt out is fine.
    ok = BASE.replace('port = 17301\n', 'port = 17301\npaytable = "FPGPP-WA01"\n')
    assert loads_floor(ok).table("T1").paytable == "FPGPP-WA01"


def test_duplicate_table_ids_and_ports_are_refused() -> None:
    refused(BASE + table("T1", 17309), "tables[2].id", "'T1'", "twice")
    refused(BASE + table("T3", 17302), "tables[2].port", "T2", "T3", "17302")
    # Two controllers on different hosts may listen on the same port.
    assert len(loads_floor(BASE + table("T3", 17302, host="10.0.0.3")).tables) == 3


def test_duplicate_group_ids_and_unknown_group_are_refused() -> None:
    group = '\n[[groups]]\nid = "G1"\npaytable = "FPGPP-WA01"\n[groups.levels.MAIN]\n' \
            'seed = "1.00"\ncontribution_rate = "0.1"\nreserve_rate = "0"\n'
    refused(BASE + group, "groups[1].id", "twice")
    refused(BASE + table("T3", 17303, group="G9"), "tables[2].group", "'G9'")


def test_seed_zero_is_refused_unless_allow_zero_seed() -> None:
    refused(BASE.replace('seed = "10000.00"', 'seed = "0.00"'),
            "groups[0].levels.MAIN.seed", "allow_zero_seed")
    cfg = loads_floor(BASE.replace('seed = "10000.00"', 'seed = "0"\nallow_zero_seed = true'))
    assert cfg.group("G1").level("MAIN").seed_cents == 0
    warnings = validate(cfg, PAYTABLES)
    assert any("seed 0.00" in w and "MAIN" in w for w in warnings)


@pytest.mark.parametrize(
    ("old", "new", "fragments"),
    [
        ('contribution_rate = "0.20"', "contribution_rate = 0.2", ("contribution_rate", "float")),
        ('contribution_rate = "0.20"', 'contribution_rate = "0.1234567"',
         ("contribution_rate", "decimals")),
        ('contribution_rate = "0.20"', 'contribution_rate = "1.2"', ("contribution_rate",)),
        ('contribution_rate = "0.20"', 'contribution_rate = "0.99"', ("more than the whole",)),
        ('seed = "10000.00"', 'seed = "100.001"', ("seed", "two decimals")),
        ('seed = "10000.00"', 'seed = "-5.00"', ("seed", "negative")),
        ('executive_threshold = "5000.00"', 'executive_threshold = "0"',
         ("authorization.executive_threshold",)),
        ('name = "Test Casino"\n', "", ("casino.name", "missing")),
        ("port = 17301", "port = 70000", ("tables[0].port", "65535")),
        ("port = 17301", 'port = "17301"', ("tables[0].port", "whole number")),
        ('port = 17301', "port = 17301\nseats = 0", ("tables[0].seats",)),
        ("decks = 1", "decks = 1\nlock_at_hit = 1", ("groups[0].lock_at_hit", "true or false")),
        ("decks = 1", 'decks = 1\npay_order = "clockwise"', ("groups[0].pay_order", "clockwise")),
        ("decks = 1", "decks = 1\nlevel = 3", ("groups[0].level", "unknown key")),
        ('kind = "network"', 'kind = "usb"', ("printer.kind", "usb")),
        ("timeout = 3", "timeout = 0", ("printer.timeout",)),
        ("timeout = 3", "timeout = 3\nconfirm_timeout = 601", ("printer.confirm_timeout", "600")),
        ("timeout = 3", 'timeout = 3\nsend_timeout = "10"', ("printer.send_timeout",)),
        ("timeout = 3", "timeout = 3\nstatus_timeout = -1", ("printer.status_timeout",)),
        ('host = "10.0.0.9"\n', "", ("printer.host", "missing")),
        ('timezone = "Asia/Manila"', 'timezone = "../etc/passwd"', ("casino.timezone",)),
        ('timezone = "Asia/Manila"', 'timezone = "Asia/Manila"\npublic_holidays = "2026-12-25"',
         ("casino.public_holidays", "list of dates")),
        ('timezone = "Asia/Manila"', 'timezone = "Asia/Manila"\npublic_holidays = ["25/12/2026"]',
         ("casino.public_holidays", "'25/12/2026' is not a date YYYY-MM-DD")),
        ('timezone = "Asia/Manila"',
         'timezone = "Asia/Manila"\npublic_holidays = ["2026-12-25", 2026-12-25]',
         ("casino.public_holidays", "2026-12-25 is listed twice")),
        ('timezone = "Asia/Manila"', 'timezone = "Asia/Manila"\noperator = 7',
         ("casino.operator",)),
    ],
)
def test_malformed_keys_are_refused_with_key_and_problem(
    old: str, new: str, fragments: tuple[str, ...]
) -> None:
    assert old in BASE
    refused(BASE.replace(old, new, 1), *fragments)


def test_a_group_needs_levels_and_their_rates_fit_in_one_wager() -> None:
    no_levels = BASE.replace('[groups.levels.MAIN]\nseed = "10000.00"\npreconfigured_seed = '
                             '"10000"\ncontribution_rate = "0.20"\npreconfigured_rate = "0.200"'
                             '\nreserve_rate = "0.02"\n', "[groups.levels]\n")
    assert no_levels != BASE
    refused(no_levels, "groups[0].levels", "at least one level")
    three = BASE.replace("[groups.levels.MAIN]", "[groups.levels.A]") + "".join(
        f'\n[groups.levels.{n}]\nseed = "1.00"\ncontribution_rate = "0.4"\nreserve_rate = "0"\n'
        for n in ("B", "C"))
    # TOML keeps groups.levels.B/C under the last [[groups]]; 0.22 + 0.4 + 0.4 > 1.
    refused(three, "groups[0].levels", "1.02")


# --- validation against the paytables -----------------------------------------------------------

def test_group_levels_must_be_exactly_the_paytables() -> None:
    ml2 = BASE.replace('paytable = "FPGPP-WA01"', 'paytable = "FPGPP-ML2"')
    with pytest.raises(FloorConfigError, match="group G1.*MEGA.*MAJOR.*MINOR.*not in the paytable: "
                                               "MAIN"):
        validate(loads_floor(ml2, "floor.toml"), PAYTABLES)


def test_unknown_or_bonus_paytable_is_refused() -> None:
    with pytest.raises(FloorConfigError, match="'FPGPP-XX' is not installed"):
        validate(loads_floor(BASE.replace("FPGPP-WA01", "FPGPP-XX")), PAYTABLES)
    with pytest.raises(FloorConfigError, match="PT1 is a bonus paytable"):
        validate(loads_floor(BASE.replace("FPGPP-WA01", "PT1")), PAYTABLES)


def test_all_pays_from_meter_below_70_percent_warns() -> None:
    text = BASE.replace("all_pays_from_meter = false", "all_pays_from_meter = true")
    warnings = validate(loads_floor(text), PAYTABLES)
    assert len(warnings) == 1 and "0.20" in warnings[0] and "0.70" in warnings[0]
    at_70 = text.replace('contribution_rate = "0.20"', 'contribution_rate = "0.70"')
    assert validate(loads_floor(at_70), PAYTABLES) == []
    # Without all pays from meter a low rate is normal.
    assert validate(loads_floor(BASE), PAYTABLES) == []


def test_seed_below_largest_fixed_award_warns() -> None:
    text = BASE.replace('seed = "10000.00"', 'seed = "2000.00"').replace(
        'preconfigured_seed = "10000"', 'preconfigured_seed = "2000.00"')
    warnings = validate(loads_floor(text), PAYTABLES)
    assert len(warnings) == 1 and "2500.00" in warnings[0]


def test_group_without_tables_warns() -> None:
    lonely = BASE + ('\n[[groups]]\nid = "G2"\npaytable = "FPGPP-WA01"\n[groups.levels.MAIN]\n'
                     'seed = "10000.00"\ncontribution_rate = "0.2"\nreserve_rate = "0"\n'
                     'preconfigured_rate = "0.2"\npreconfigured_seed = "10000.00"\n')
    # The [[groups]] after the tables is still a group (TOML arrays of tables may interleave).
    warnings = validate(loads_floor(lonely), PAYTABLES)
    assert any("G2" in w and "no table" in w for w in warnings)


# --- the demo floor -----------------------------------------------------------------------------

def test_an_automatic_pay_at_or_above_the_executive_threshold_is_refused() -> None:
    """Issue 23, finding 9: a pay at HIT JACKPOT asks for no card, and a pay at or above the
    executive threshold needs an executive's, whatever the paytable says."""
    wa02 = BASE.replace('paytable = "FPGPP-WA01"', 'paytable = "FPGPP-WA02"\n'
                        'auto_pay_hands = ["FULL_HOUSE", "FIVE_ACES"]')
    refused(wa02, "group G1: auto_pay_hands lists FIVE_ACES, a fixed pay of 12500.00 on "
                  "FPGPP-WA02, at or above the executive threshold 5000.00",
            "leave FIVE_ACES out of auto_pay_hands")
    at = wa02.replace('executive_threshold = "5000.00"', 'executive_threshold = "12500.00"')
    refused(at, "FIVE_ACES, a fixed pay of 12500.00", "threshold 12500.00")  # at: refused
    below = wa02.replace('executive_threshold = "5000.00"', 'executive_threshold = "12500.01"')
    validate(loads_floor(below, "floor.toml"), PAYTABLES)  # below it: allowed
    # the paytable's own automatic pay (the full house, 6.00) under a threshold of 5.00
    low = BASE.replace('executive_threshold = "5000.00"', 'executive_threshold = "5.00"')
    refused(low, "auto_pay_hands (the paytable's default) holds FULL_HOUSE")
    validate(loads_floor(low.replace('paytable = "FPGPP-WA01"', 'paytable = "FPGPP-WA01"\n'
                                     "auto_pay_hands = []"), "floor.toml"), PAYTABLES)


def test_demo_floor_loads() -> None:
    cfg = load_demo_floor()
    assert cfg.casino.name == "Podium Demo Casino"
    assert cfg.authorization.executive_threshold_cents == 500_000
    assert cfg.printer == FilePrinterConfig("")
    assert [(t.id, t.host, t.port) for t in cfg.tables] == [
        (f"PG-{i}", "127.0.0.1", 17300 + i) for i in range(1, 7)]
    wa01 = cfg.group_of("PG-1")
    assert wa01.name == "WA01 Link" and wa01.paytable == "FPGPP-WA01"
    assert [t.id for t in cfg.tables_in(wa01.id)] == ["PG-1", "PG-2", "PG-3"]
    main = wa01.level("MAIN")
    assert (main.seed_cents, main.contribution_rate, main.reserve_rate) == (
        1_000_000, Decimal("0.20"), Decimal("0.02"))
    ml2 = cfg.group_of("PG-4")
    assert ml2.name == "ML2 Link" and ml2.paytable == "FPGPP-ML2"
    assert [t.id for t in cfg.tables_in(ml2.id)] == ["PG-4", "PG-5", "PG-6"]
    assert {lv.name: lv.seed_cents for lv in ml2.levels} == {
        "MEGA": 2_500_000, "MAJOR": 250_000, "MINOR": 50_000}
    total = sum((lv.contribution_rate + lv.reserve_rate for lv in ml2.levels), Decimal(0))
    assert total <= Decimal("0.25")


def test_demo_floor_validates_against_the_installed_paytables() -> None:
    assert validate(load_demo_floor(), PAYTABLES) == []


# --- contribution above the paytable's preconfigured rate (RULES.md section 4) ---------------

def _with_ceiling(paytables: dict, pid: str, rate: str) -> dict:  # type: ignore[type-arg]
    from dataclasses import replace as _replace
    from decimal import Decimal as _D

    out = dict(paytables)
    out[pid] = _replace(paytables[pid], preconfigured_contribution_rate=_D(rate))
    return out


def _demo_ceiling(rate: str | None, **group: object) -> Any:
    """The demo floor with WA01's MAIN level pre-configured at ``rate`` in the floor file (None:
    left out, for a paytable that states it)."""
    from dataclasses import replace as _replace
    from decimal import Decimal

    floor = load_demo_floor()
    groups = tuple(
        _replace(g, **group, levels=tuple(_replace(
            lv, preconfigured_contribution_rate=None if rate is None else Decimal(rate))
            for lv in g.levels)) if g.id == "WA01" else g
        for g in floor.groups)
    return _replace(floor, groups=groups)


def test_contribution_above_the_preconfigured_rate_is_warned_and_needs_an_approval() -> None:
    """The floor file alone can not approve it: validate warns; the floor's start refuses it
    without an executive's recorded approval (tests/test_people_approvals.py)."""
    # stated by the floor file (no shipped paytable states it) ...
    warnings = validate(_demo_ceiling("0.15"), PAYTABLES)
    assert any("group WA01: level MAIN: contribution rate 0.20 is above FPGPP-WA01's "
               "preconfigured 0.15" in w and "approve-contribution --group WA01 --level MAIN "
               "--rate 0.20" in w for w in warnings)
    # ... or by the paytable file
    warnings = validate(_demo_ceiling(None), _with_ceiling(load_paytables(), "FPGPP-WA01",
                                                           "0.15"))
    assert any("0.20 is above FPGPP-WA01's preconfigured 0.15" in w for w in warnings)


def test_the_old_contribution_override_flag_is_refused_naming_the_command() -> None:
    refused(BASE.replace('all_pays_from_meter = false\n',
                         'all_pays_from_meter = false\ncontribution_override = "2001"\n', 1),
            "contribution_override: is no longer read",
            "podium employees approve-contribution --group GROUP --level LEVEL --rate RATE")


def test_contribution_at_or_below_the_preconfigured_rate_is_fine() -> None:
    assert validate(load_demo_floor(), PAYTABLES) == []
    assert validate(_demo_ceiling(None), _with_ceiling(load_paytables(), "FPGPP-WA01",
                                                       "0.20")) == []


def test_without_a_preconfigured_rate_or_seed_the_floor_does_not_start() -> None:
    with pytest.raises(FloorConfigError, match=r"group WA01: level MAIN: no pre-configured "
                                               r"contribution rate: FPGPP-WA01 does not state "
                                               r"one \(no public source states it.*\), so the "
                                               r"floor file must.*\(preconfigured_rate"):
        validate(_demo_ceiling(None), PAYTABLES)
    no_seed = BASE.replace('preconfigured_seed = "10000"\n', "")
    refused(no_seed, "level MAIN: no pre-configured seed", "preconfigured_seed")
    # the floor file may not contradict a paytable that states it
    with pytest.raises(FloorConfigError, match="contradicts FPGPP-WA01's pre-configured"):
        validate(_demo_ceiling("0.25"), _with_ceiling(load_paytables(), "FPGPP-WA01", "0.20"))


def test_a_seed_other_than_the_preconfigured_one_is_warned() -> None:
    text = BASE.replace('preconfigured_seed = "10000"', 'preconfigured_seed = "12000.00"')
    warnings = validate(loads_floor(text), PAYTABLES)
    assert warnings == ["<floor>: group G1: level MAIN: seed 10000.00 is not the pre-configured "
                        "12000.00"]


def test_preconfigured_rate_in_a_paytable_file_is_parsed_and_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from decimal import Decimal

    from core.tablegames.rules.paytables import PaytableError, load_paytable_file

    src = Path(__file__).resolve().parents[3] / "resources" / "paytables" / "FPGPP-WA01.toml"
    text = src.read_text()
    good = tmp_path / "good.toml"
    good.write_text('preconfigured_contribution_rate = "0.20"\n' + text)
    assert load_paytable_file(good).preconfigured_contribution_rate == Decimal("0.20")
    bad = tmp_path / "bad.toml"
    bad.write_text('preconfigured_contribution_rate = "1.5"\n' + text)
    with pytest.raises(PaytableError, match="preconfigured_contribution_rate"):
        load_paytable_file(bad)


def test_public_holidays_and_the_operator_named_on_the_forms() -> None:
    plain = loads_floor(BASE)
    assert plain.casino.public_holidays == () and plain.casino.operator_name == "Test Casino"
    cfg = loads_floor(BASE.replace(
        'timezone = "Asia/Manila"',
        'timezone = "Asia/Manila"\noperator = "Test Gaming Corp."\n'
        'public_holidays = ["2026-12-30", 2026-12-25]', 1))
    assert cfg.casino.operator_name == "Test Gaming Corp."
    assert cfg.casino.public_holidays == (date(2026, 12, 25), date(2026, 12, 30))
    assert date(2026, 12, 25) in load_demo_floor().casino.public_holidays


def test_the_poker_room_rules_come_from_the_floor_file_with_rules_md_defaults() -> None:
    from core.pokerroom.fund import FundSettings
    from core.pokerroom.rules.bbj import BbjSettings, Split

    assert loads_floor(BASE).poker_room.rules == BbjSettings()
    assert loads_floor(BASE).poker_room.fund == FundSettings()
    cfg = loads_floor(BASE + '''
[poker_room]
split = { winning = "0.30", losing = "0.30", table = "0.40" }
min_players = 6
min_pot_big_blinds = 25
tax_threshold = "20000.00"
room_max_jackpot_rake = "100.00"
caps_by_big_blind = [ { big_blind = "20.00", cap = "50.00" },
                      { big_blind = "50.00", cap = "75.00" } ]
admin_fee_rate = "0.30"
denominations = [1000, 500, 100, 50, 25, 10]
tie = "refuse"
''')
    rules, fund = cfg.poker_room.rules, cfg.poker_room.fund
    assert (rules.tie, loads_floor(BASE).poker_room.rules.tie) == ("refuse", "split")
    assert rules.split == Split(Decimal("0.30"), Decimal("0.30"), Decimal("0.40"))
    assert (rules.min_players, rules.min_pot_big_blinds, rules.tax_threshold_cents) == (
        6, 25, 2_000_000)
    assert rules.nranetb_tax_rate == Decimal("0.25")  # not given: RULES.md default
    assert fund.caps_by_big_blind == ((2_000, 5_000), (5_000, 7_500))
    assert (fund.rake_cap_cents(2_000), fund.rake_cap_cents(10_000)) == (5_000, 10_000)
    assert (fund.admin_fee_rate, fund.main_rate) == (Decimal("0.30"), Decimal("0.70"))
    assert fund.denominations == (1000, 500, 100, 50, 25, 10)


def test_the_poker_rooms_location_for_the_forms_is_optional_text() -> None:
    assert loads_floor(BASE).poker_room.room_location == ""  # the forms print a blank
    cfg = loads_floor(BASE + '\n[poker_room]\nroom_location = "  2/F Grand Hall,   Manila "\n')
    assert cfg.poker_room.room_location == "2/F Grand Hall, Manila"
    assert load_demo_floor().poker_room.room_location == ""


@pytest.mark.parametrize(("section", "fragments"), [
    ('split = { winning = "0.30", losing = "0.40", table = "0.40" }',
     ("poker_room", "must add up to 1")),
    ('caps_by_big_blind = [ { big_blind = "20.00", cap = "150.00" } ]',
     ("poker_room", "at most the room maximum")),
    ("min_players = 1", ("poker_room.min_players",)),
    ('admin_fee_rate = 0.3', ("poker_room.admin_fee_rate", "TOML float")),
    ("denominations = [500, 0]", ("poker_room.denominations", "whole pesos")),
    ('splits = { winning = "0.20" }', ("poker_room.splits", "unknown key")),
    ('tie = "toss"', ("poker_room.tie", "'toss' must be one of split, refuse")),
    ("tie = 1", ("poker_room.tie",)),
    ("room_location = 12", ("poker_room.room_location",)),
    (f'room_location = "{"x" * 201}"', ("poker_room.room_location", "at most 200")),
])
def test_a_malformed_poker_room_section_is_refused_by_key(
        section: str, fragments: tuple[str, ...]) -> None:
    refused(BASE + "\n[poker_room]\n" + section + "\n", *fragments)


def test_the_room_deadline_keys_come_from_the_poker_room_section() -> None:
    """The bank statement's due day is configuration, by default the guideline's (General
    Guidelines B: "January to March -- for submission on 2nd Monday of April, and so on")."""
    from core.pokerroom.calendar_settings import CalendarSettings, QuarterDue

    second_monday = QuarterDue("weekday", nth=2, weekday=0, month=1)
    assert loads_floor(BASE).poker_room.calendar == CalendarSettings(10, second_monday)
    assert load_demo_floor().poker_room.calendar == CalendarSettings(10, second_monday)
    cfg = loads_floor(BASE + "\n[poker_room]\nbir_remittance_day = 15\n"
                             'bank_statement_due = "1st friday of month 2"\n')
    assert cfg.poker_room.calendar == CalendarSettings(15, QuarterDue("weekday", nth=1,
                                                                      weekday=4, month=2))
    # the older key still reads: N days, or the end of the next month
    cfg = loads_floor(BASE + "\n[poker_room]\nbank_statement_days = 30\n")
    assert cfg.poker_room.calendar.bank_statement_due == QuarterDue("days", days=30)
    cfg = loads_floor(BASE + '\n[poker_room]\nbank_statement_days = "end_of_next_month"\n')
    assert cfg.poker_room.calendar.bank_statement_due == QuarterDue("month_end", month=1)
    refused(BASE + "\n[poker_room]\nbir_remittance_day = 31\n",
            "poker_room.bir_remittance_day")
    refused(BASE + '\n[poker_room]\nbank_statement_days = "quarterly"\n',
            "poker_room.bank_statement_days", "end_of_next_month")
    refused(BASE + "\n[poker_room]\nbank_statement_days = 0\n",
            "poker_room.bank_statement_days", "1 to 366")
    refused(BASE + '\n[poker_room]\nbank_statement_due = "5th Monday of month 1"\n',
            "poker_room.bank_statement_due", "2nd Monday of month 1")
    refused(BASE + '\n[poker_room]\nbank_statement_due = "30 days"\nbank_statement_days = 30\n',
            "poker_room.bank_statement_days", "not both")


# --- linked equivalents (RULES.md 3; the seed's linked paytables) -----------------------------

LINKED = """
[casino]
name = "Test Casino"
timezone = "Asia/Manila"
[authorization]
executive_threshold = "5000.00"
[[groups]]
id = "{gid}"
paytable = "{group_pt}"
{levels}
"""


def _linked(group_pt: str, *table_pts: str) -> str:
    pt = PAYTABLES[group_pt]
    levels = "".join(f'[groups.levels.{lv}]\nseed = "10000.00"\ncontribution_rate = "0.05"\n'
                     f'reserve_rate = "0.01"\npreconfigured_rate = "0.05"\n'
                     f'preconfigured_seed = "10000.00"\n' for lv in pt.levels)
    text = LINKED.format(gid="L", group_pt=group_pt, levels=levels)
    for i, tpt in enumerate(table_pts):
        text += table(f"T{i + 1}", 17301 + i, f'paytable = "{tpt}"\n', group="L")
    return text


@pytest.mark.parametrize("pts", [
    ("FPGPP-WA03", "FPGPP-WA03", "FPGPP-WA04", "FUPGPP-01", "FUPGPP-03"),
    ("FPGPP-WA07", "FPGPP-WA07", "FUPGPP-07"),
    ("FPGPP-ML2", "FPGPP-ML2", "FUPGPP-ML02"),
])
def test_the_seeds_linked_fortune_and_face_up_paytables_share_one_meter(
        pts: tuple[str, ...]) -> None:
    config = loads_floor(_linked(*pts), "floor.toml")
    validate(config, PAYTABLES)
    assert [t.paytable for t in config.tables] == list(pts[1:])


@pytest.mark.parametrize(("pts", "why"), [
    (("FPGPP-WA01", "FPGPP-WA01", "FPGPP-WA02"), "not declared equivalent for linking"),
    (("FPGPP-WA07", "FPGPP-WA07", "FPGPP-WA08"), "not declared equivalent for linking"),
    (("FPGPP-WA03", "FPGPP-WA03", "FPGPP-WA07"), "not declared equivalent for linking"),
])
def test_other_paytables_stay_refused_on_one_meter(pts: tuple[str, ...], why: str) -> None:
    refused(_linked(*pts), "group L", "T1", "T2", "different paytables", why)


def test_a_declared_link_that_is_not_equivalent_is_refused_with_the_hand() -> None:
    from dataclasses import replace as dc_replace

    from core.tablegames.rules.paytables import link_problem

    wa03, wa04 = PAYTABLES["FPGPP-WA03"], PAYTABLES["FPGPP-WA04"]
    assert link_problem(wa03, wa04) is None
    cheap = dc_replace(wa04, pays=tuple(
        dc_replace(p, amount_cents=p.amount_cents - 100) if p.hand == "FULL_HOUSE" else p
        for p in wa04.pays))
    problem = link_problem(wa03, cheap)
    assert problem is not None and problem.startswith("FULL_HOUSE: FPGPP-WA03 pays 4.00 on 1.00")


# --- the controller link ([controller_link], docs/protocol.md "Transport security") -------------

LINK = '\n[controller_link]\nca = "pki/ca.pem"\ncert = "pki/console.pem"\nkey = "pki/console.key"\n'


def test_the_controller_link_is_tls_with_paths_read_from_the_floor_files_folder(
        tmp_path: Path) -> None:
    p = tmp_path / "floor.toml"
    p.write_text(BASE + LINK.replace('"pki/ca.pem"', '"/etc/podium/ca.pem"'))
    link = load_floor(p).controller_link
    assert (link.transport, link.ca, link.cert, link.key, link.crl) == (
        "tls", "/etc/podium/ca.pem", str(tmp_path / "pki/console.pem"),
        str(tmp_path / "pki/console.key"), "")
    # a file without the section loads (ledger tools need no certificate), as TLS with no files
    assert loads_floor(BASE).controller_link == ControllerLinkConfig()
    plain = loads_floor(BASE + '\n[controller_link]\ntransport = "plain-lab-only"\n')
    assert plain.controller_link == ControllerLinkConfig("plain-lab-only")


@pytest.mark.parametrize(("section", "fragments"), [
    (LINK.replace('key = "pki/console.key"\n', ""),
     ("controller_link.key: missing", 'transport "tls" needs')),
    ('\n[controller_link]\ntransport = "tls"\n', ("controller_link.ca: missing",)),
    (LINK.replace("[controller_link]\n", '[controller_link]\ntransport = "ssl"\n'),
     ("controller_link.transport", "'ssl' must be one of tls, plain-lab-only")),
    ('\n[controller_link]\ntransport = "plain-lab-only"\nca = "pki/ca.pem"\n',
     ("controller_link.ca: set, but", 'transport = "plain-lab-only"')),
    (LINK + 'certfile = "x.pem"\n', ("controller_link.certfile", "unknown key")),
    (LINK.replace('ca = "pki/ca.pem"', "ca = 7"), ("controller_link.ca", "must be a string")),
    (LINK.replace('ca = "pki/ca.pem"', 'ca = " "'), ("controller_link.ca", "must not be empty")),
])
def test_a_malformed_controller_link_is_refused_by_key(section: str,
                                                        fragments: tuple[str, ...]) -> None:
    refused(BASE + section, *fragments)


def test_the_console_refuses_certificate_files_naming_the_key_and_the_file(
        tmp_path: Path) -> None:
    from core.controllers.tls import TlsError, link_tls
    from tests.pki import pki

    def check(**files: str) -> str:
        link = replace(pki().link_config(), **files)
        with pytest.raises(TlsError) as info:
            link_tls(replace(loads_floor(BASE, "floor.toml"), controller_link=link))
        return str(info.value)

    gone = str(tmp_path / "gone.pem")
    assert check(cert=gone) == f"floor.toml: controller_link.cert: {gone}: no such file"
    table = pki().table("T1")
    assert "floor.toml: controller_link.cert: " in check(cert=table.cert, key=table.key)
    assert "not a console's certificate (CN 'T1', OU table-controller" in check(
        cert=table.cert, key=table.key)
    msg = check(key=table.key)
    assert msg.startswith(f"floor.toml: controller_link.key: {table.key}: not the private key "
                          f"of floor.toml: controller_link.cert")
    foreign = pki("foreign").console()
    assert "not issued by the CA of floor.toml: controller_link.ca" in check(
        cert=foreign.cert, key=foreign.key)
    text = tmp_path / "text.pem"
    text.write_text("hello\n")
    assert check(ca=str(text)).endswith("not a PEM certificate file (-----BEGIN CERTIFICATE-----)")
    assert "not a CA certificate" in check(ca=table.cert)
    assert check(crl=str(text)).startswith(f"floor.toml: controller_link.crl: {text}: not a PEM")
    # without the section, the console does not start its links
    with pytest.raises(TlsError, match=r"floor.toml: \[controller_link\]: missing"):
        link_tls(loads_floor(BASE, "floor.toml"))
    assert link_tls(loads_floor(BASE + '\n[controller_link]\ntransport = "plain-lab-only"\n',
                                "floor.toml")) is None


def test_the_demo_floor_reads_its_certificates_from_the_demo_folder(tmp_path: Path) -> None:
    link = load_demo_floor(tmp_path).controller_link
    assert (link.transport, link.ca, link.cert, link.key) == (
        "tls", str(tmp_path / "ca.pem"), str(tmp_path / "consoles/console.pem"),
        str(tmp_path / "consoles/console.key"))


# --- ids, hosts and numbers that can never work (issue 12) --------------------------------------

def _with_id(old: str, new: str) -> str:
    """BASE with one id (a TOML basic string: escapes allowed) replaced."""
    assert old in BASE
    return BASE.replace(old, new, 1)


@pytest.mark.parametrize(("tid", "fragment"), [
    ("T\\n1", "not an identifier"), ("T\\t1", "not an identifier"),
    ("T\\u00001", "not an identifier"), ("T\\u200b1", "not an identifier"),
    ("T\\u001b[2J", "not an identifier"), ("Table 1", "not an identifier"),
    ("T" * 1000, "longer than 64 characters"), ("T" * 65, "longer than 64 characters"),
    ("", "must not be empty"), ("   ", "must not be empty"),
    ("PG/1", "certificate file"), (".PG1", "certificate file"), ("PG\\\\1", "certificate file"),
])
def test_a_table_id_that_can_never_come_online_is_refused(tid: str, fragment: str) -> None:
    msg = refused(_with_id('id = "T1"', f'id = "{tid}"'), "tables[0].id", fragment)
    assert "\n" not in msg and len(msg) < 200  # one line, the id cut short


def test_the_floor_takes_exactly_the_table_ids_the_protocol_and_a_certificate_carry() -> None:
    from core.controllers import certs
    from core.controllers.frames import MAX_ID_CHARS, Hello
    from core.controllers.protocol import decode_frame, encode_frame
    from core.floorconfig import MAX_ID

    assert MAX_ID == MAX_ID_CHARS == certs.MAX_CN
    for tid in ("T" * 64, "PG-1", "Mesa-ñ", "BJ_7.east", "表-1"):
        cfg = loads_floor(_with_id('id = "T1"', f'id = "{tid}"'))
        assert cfg.tables[0].id == tid
        certs.check_name(tid)  # a certificate can be made for it
        hello = Hello(tid, "b1", "FPGPP-WA01", 1, 6)
        assert decode_frame(encode_frame(hello)) == hello


@pytest.mark.parametrize(("old", "new", "fragments"), [
    ('id = "G1"', 'id = "G\\n1"', ("groups[0].id", "not an identifier")),
    ('id = "G1"', f'id = "{"G" * 1000}"', ("groups[0].id", "longer than 64")),
    ('id = "G1"', 'id = " "', ("groups[0].id", "must not be empty")),
    ("[groups.levels.MAIN]", '[groups.levels."MA\\tIN"]', ("groups[0].levels", "level name")),
    ("[groups.levels.MAIN]", f'[groups.levels.{"M" * 65}]', ("groups[0].levels", "longer than")),
    ("[groups.levels.MAIN]", '[groups.levels."MAIN MEGA"]', ("groups[0].levels", "level name")),
])
def test_a_group_id_or_level_name_the_protocol_can_not_carry_is_refused(
        old: str, new: str, fragments: tuple[str, ...]) -> None:
    text = BASE.replace(old, new, 1)
    if old.startswith("id"):
        text = text.replace('group = "G1"', new.replace("id = ", "group = "))
    refused(text, *fragments)


@pytest.mark.parametrize(("first", "second"), [
    ("127.0.0.1", "localhost"), ("localhost", "LOCALHOST."), ("127.0.0.1", "::1"),
    ("127.0.0.1", "127.0.0.2"), ("127.0.0.1", "::ffff:127.0.0.1"), ("::1", "0:0:0:0:0:0:0:1"),
    ("10.0.0.3", "::ffff:10.0.0.3"), ("pg1.casino.local", "PG1.Casino.Local."),
    ("table1.localhost", "127.0.0.1"),
])
def test_two_tables_on_one_port_of_one_machine_written_differently_are_refused(
        first: str, second: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def no_resolver(*args: object, **kw: object) -> None:
        raise AssertionError("the floor file is read without asking a resolver")

    monkeypatch.setattr(socket, "getaddrinfo", no_resolver)
    text = BASE.replace('host = "127.0.0.1"\nport = 17301', f'host = "{first}"\nport = 17301')
    text = text.replace('host = "127.0.0.1"\nport = 17302', f'host = "{second}"\nport = 17301')
    refused(text, "tables[1].port", "tables T1 and T2", "17301")


def test_tables_on_different_machines_or_ports_may_share_a_port_or_a_machine() -> None:
    for first, second in (("10.0.0.3", "10.0.0.4"), ("pg1.casino.local", "pg2.casino.local"),
                          ("fe80::1", "fe80::2"), ("localhost", "10.0.0.4")):
        text = BASE.replace('host = "127.0.0.1"\nport = 17301', f'host = "{first}"\nport = 1')
        text = text.replace('host = "127.0.0.1"\nport = 17302', f'host = "{second}"\nport = 1')
        assert [t.host for t in loads_floor(text).tables] == [first, second]


@pytest.mark.parametrize(("host", "fragment"), [
    ("a b", "not an IP address or a host name"), ("pg1\\n", "not an IP address"),
    ("0.0.0.0", "not the address of one machine"), ("::", "not the address of one machine"),
    ("[::1]", "without brackets"), ("x" * 300, "longer than 253"), ("-pg1", "not an IP"),
    ("pg1..casino", "not an IP"), ("mesa-ñ.casino", "ASCII"), ("", "must not be empty"),
])
def test_a_host_a_controller_can_not_be_reached_at_is_refused(host: str, fragment: str) -> None:
    refused(BASE.replace('host = "127.0.0.1"', f'host = "{host}"', 1), "tables[0].host",
            fragment)
    refused(BASE.replace('host = "10.0.0.9"', f'host = "{host}"', 1), "printer.host", fragment)


@pytest.mark.parametrize(("old", "new", "fragments"), [
    ('id = "T2"', 'id = "t1"', ("tables[1].id", "'T1' and 't1' differ only in case")),
    ('id = "T2"', 'id = "Ｔ1"', ("tables[1].id", "differ only in case")),  # a full-width T
])
def test_table_ids_differing_only_in_case_are_one_table(old: str, new: str,
                                                        fragments: tuple[str, ...]) -> None:
    refused(BASE.replace(old, new, 1), *fragments)


def test_group_ids_and_level_names_differing_only_in_case_are_refused() -> None:
    group = '\n[[groups]]\nid = "g1"\npaytable = "FPGPP-WA01"\n[groups.levels.MAIN]\n' \
            'seed = "1.00"\ncontribution_rate = "0.1"\nreserve_rate = "0"\n'
    refused(BASE + group, "groups[1].id", "'G1' and 'g1' differ only in case")
    level = ('\n[groups.levels.main]\nseed = "1.00"\ncontribution_rate = "0.01"\n'
             'reserve_rate = "0"\n')
    text = BASE.replace('reserve_rate = "0.02"\n', 'reserve_rate = "0.02"\n' + level, 1)
    refused(text, "groups[0].levels.main", "differ only in case")


@pytest.mark.parametrize(("old", "new", "fragments"), [
    ('executive_threshold = "5000.00"', 'executive_threshold = "1e30"',
     ("authorization.executive_threshold", "'1e30' is not a number")),
    ('executive_threshold = "5000.00"', "executive_threshold = 1e30",
     ("authorization.executive_threshold", "TOML float")),
    ('executive_threshold = "5000.00"', 'executive_threshold = "10000000000.01"',
     ("authorization.executive_threshold", "more than the largest amount 10000000000.00")),
    ('seed = "10000.00"', 'seed = "999999999999999.99"',
     ("groups[0].levels.MAIN.seed", "largest amount")),
    ('seed = "10000.00"', 'seed = "1_000.00"', ("groups[0].levels.MAIN.seed", "not a number")),
    ('seed = "10000.00"', 'seed = "١٠٠"', ("groups[0].levels.MAIN.seed", "not a number")),
    ('contribution_rate = "0.20"', 'contribution_rate = "2e-1"',
     ("groups[0].levels.MAIN.contribution_rate", "not a number")),
    ("timeout = 3", "timeout = 1" + "0" * 400, ("printer.timeout", "far too large")),
    ("timeout = 3", "timeout = inf", ("printer.timeout", "at most 600")),
    ("timeout = 3", "timeout = nan", ("printer.timeout", "at most 600")),
    ("port = 17301", "port = 0", ("tables[0].port", "between 1 and 65535")),
    ("port = 9100", "port = 65536", ("printer.port", "between 1 and 65535")),
    ("port = 17301", "port = 17301\nseats = 11", ("tables[0].seats", "between 1 and 10")),
    ("port = 17301", "port = 17301\ndecks = " + "9" * 30, ("tables[0].decks", "between 1 and 8")),
    ('timezone = "Asia/Manila"', 'timezone = "Asia/Manila"\nhit_alert_minutes = 100000',
     ("casino.hit_alert_minutes",)),
])
def test_every_number_of_the_floor_file_is_strict_and_bounded(
        old: str, new: str, fragments: tuple[str, ...]) -> None:
    assert old in BASE
    refused(BASE.replace(old, new, 1), *fragments)


def test_poker_room_lists_are_bounded() -> None:
    refused(BASE + "\n[poker_room]\ndenominations = [" + "9" * 100 + "]\n",
            "poker_room.denominations", "1 to 1,000,000")
    dates = ", ".join(f'"{2026 + i // 365}-01-01"' for i in range(1001))
    refused(BASE.replace('timezone = "Asia/Manila"',
                         f'timezone = "Asia/Manila"\npublic_holidays = [{dates}]'),
            "casino.public_holidays", "at most 1000")


def test_a_huge_or_absurdly_nested_floor_file_is_refused_in_one_line(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text(BASE + "#" + "x" * 2_000_000 + "\n")
    with pytest.raises(FloorConfigError, match=r"big\.toml: larger than a floor file can be"):
        load_floor(big)
    with pytest.raises(FloorConfigError, match="at most 1,000,000"):
        loads_floor(big.read_text(), "big.toml")
    for deep in ("x = " + "[" * 5000 + "]" * 5000, "x = " + "{a = " * 5000 + "}" * 5000):
        msg = refused(BASE + deep + "\n")
        assert "nested too deeply" in msg or "not valid TOML" in msg
        assert "\n" not in msg


def test_a_home_folder_that_does_not_exist_is_refused_by_key() -> None:
    refused(BASE + LINK.replace('"pki/ca.pem"', '"~nosuchuser0/ca.pem"'),
            "controller_link.ca", "no such home folder")
