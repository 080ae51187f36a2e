"""Issue 27 point 8: the source's recommendations produce warnings, and the shipped paytables say
where the pre-configured rates and seeds come from.

Source 000 (WSGC Fortune Pai Gow Poker progressive rules), "Reserve contribution": "We recommend
contributing a small portion of each progressive wager to the reserve. This amount will be added
on to any configured seed amount after a 100% award is given"."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from core.floorconfig import FloorConfigError, loads_floor, validate
from core.tablegames.rules.paytables import load_paytables
from tests.core.cli.test_employees_command import db_url, run_cli
from tests.core.floorconfig.test_floorconfig import BASE

PAYTABLES = load_paytables()
RESOURCES = Path(__file__).resolve().parents[3] / "resources" / "paytables"


def _reserve(rate: str) -> str:
    assert 'reserve_rate = "0.02"' in BASE
    return BASE.replace('reserve_rate = "0.02"', f'reserve_rate = "{rate}"')


def test_no_reserve_warns_with_the_sources_words() -> None:
    """A reserve rate of 0: nothing is added to the seed after a 100% award."""
    (warning,) = validate(loads_floor(_reserve("0"), "floor.toml"), PAYTABLES)
    assert warning.startswith("floor.toml: group G1: level MAIN: reserve rate 0")
    assert '"contributing a small portion of each progressive wager to the reserve"' in warning


def test_a_reserve_of_sixty_percent_is_not_a_small_portion() -> None:
    """0.60 of each wager to the reserve is more than the meter players see (0.20)."""
    (warning,) = validate(loads_floor(_reserve("0.60"), "floor.toml"), PAYTABLES)
    assert "level MAIN: reserve rate 0.60 is more than 0.10 of each wager" in warning
    assert "small portion" in warning
    assert validate(loads_floor(_reserve("0.10"), "floor.toml"), PAYTABLES) == []
    assert validate(loads_floor(_reserve("0.02"), "floor.toml"), PAYTABLES) == []


def test_each_shipped_progressive_paytable_says_no_public_source_gives_its_preconfigured_values(
) -> None:
    """Source 000: "we recommend only reducing the pre-configured meter contribution rate" and
    "We recommend using the pre-configured seed amount in the system. This amount is specific
    to the pay table selected for use": it names them and gives no figure, so no shipped
    paytable states them, and each file says so."""
    progressive = {pt.id for pt in PAYTABLES.values() if pt.kind == "progressive"}
    assert "FPGPP-WA01" in progressive and "FPGPP-ML2" in progressive
    for pid in progressive:
        pt = PAYTABLES[pid]
        assert pt.preconfigured_contribution_rate is None
        assert all(pt.preconfigured_seed(level) is None for level in pt.levels)
    files = sorted(RESOURCES.glob("FPGPP-*.toml"))
    assert len(files) == 7
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert "no public" in text and "source gives them" in text, f.name
        assert '"the pre-configured seed amount in the system"' in text, f.name


def test_a_floor_without_the_preconfigured_values_is_told_why_the_paytable_has_none() -> None:
    text = BASE.replace('preconfigured_seed = "10000"\n', "")
    with pytest.raises(FloorConfigError) as refused:
        validate(loads_floor(text, "floor.toml"), PAYTABLES)
    assert "no public source states it" in str(refused.value)
    assert "preconfigured_seed under [groups.levels.MAIN]" in str(refused.value)


def test_the_warnings_are_shown_before_an_approval(
        engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`podium floor changes` (and `approve`, before it asks for the card) prints them."""
    path = tmp_path / "floor.toml"
    path.write_text(_reserve("0.60"), encoding="utf-8")
    rc, out, err = run_cli(monkeypatch, capsys, ["floor", "changes", "--floor", str(path),
                                                 "--db", db_url(engine)])
    assert rc == 0, err
    assert "warning: " in out and "reserve rate 0.60 is more than 0.10" in out
