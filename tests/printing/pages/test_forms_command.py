"""``podium forms ...`` (printing/pages/forms_command.py), run in-process on a SQLite ledger file:
the written PDF / PNG and its path on stdout, and every refusal as one line and exit status 2."""

from __future__ import annotations

from datetime import date, datetime
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

import core.pokerroom.fund as bf
from core.ledger.db import make_engine, upgrade
from printing.pages import forms_command, ledger_forms
from tests.ledgers import migrate
from tests.printing.pages.test_ledger_forms import DAY1, count_day1, count_day2, local


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A ledger file with fund bbj, 30 Nov counted and posted, 1 Dec counted only."""
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    engine: Engine = make_engine(url)
    migrate(engine)
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=local(2026, 11, 28, 9))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed",
            at=local(2026, 11, 28, 9))
    count_day1(engine)
    bf.post_day(engine, "bbj", DAY1, by="cage", at=local(2026, 12, 1, 6))
    count_day2(engine)
    bf.create_fund(engine, "bbj2", "New hall BBJ", at=local(2026, 11, 28, 9))
    engine.dispose()
    return url


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = forms_command.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_daily_report_to_pdf_prints_the_written_path(db: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pdf = tmp_path / "tgd-1623.pdf"
    code, out, err = run(capsys, "daily", "--fund", "bbj", "--date", "2026-11-30", "--db", db,
                         "--pdf", str(pdf))
    assert (code, out, err) == (0, f"{pdf}\n", "")
    assert pdf.read_bytes().startswith(b"%PDF")


def test_forms_to_png(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (("daily", "--fund", "bbj", "--date", "2026-11-30", "--offsite"),
                 ("quarterly", "--year", "2026", "--quarter", "3"),  # nothing in Q3
                 ("cessation", "--fund", "bbj", "--to", "bbj2", "--effective", "2027-06-07")):
        png = tmp_path / f"{argv[0]}.png"
        code, out, err = run(capsys, *argv, "--db", db, "--png", str(png), "--page-size",
                             "Letter")
        assert (code, out, err) == (0, f"{png}\n", "")
        assert png.read_bytes().startswith(b"\x89PNG")


def test_the_floor_file_names_the_casino_operator_time_zone_and_holidays(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    demo = resources.files("resources.floors").joinpath("demo.toml").read_text("utf-8")
    floor = tmp_path / "floor.toml"
    floor.write_text(demo.replace('name = "Podium Demo Casino"', 'name = "Casino Filipino"')
                     .replace('timezone = "Asia/Manila"', 'timezone = "Asia/Tokyo"'),
                     encoding="utf-8")
    seen: dict[str, Any] = {}
    real = ledger_forms.render

    def spy(engine: Engine, request: ledger_forms.FormRequest,
            **kw: Any) -> ledger_forms.RenderedForm:
        seen.update(kw, request=request)
        return real(engine, request, **kw)

    monkeypatch.setattr(ledger_forms, "render", spy)
    code, _, err = run(capsys, "cessation", "--fund", "bbj", "--to", "bbj2", "--effective",
                       "2027-01-15", "--db", db, "--floor", str(floor), "--png",
                       str(tmp_path / "c.png"))
    assert (code, err) == (0, "")
    assert seen["casino"] == "Casino Filipino" and str(seen["tz"]) == "Asia/Tokyo"
    assert seen["operator"] == "Podium Demo Gaming Corporation"
    assert date(2026, 12, 25) in seen["holidays"]
    assert seen["request"] == ledger_forms.FormRequest(
        "cessation", fund_id="bbj", to_fund_id="bbj2", effective_on=date(2027, 1, 15))


@pytest.mark.parametrize(("argv", "message"), [
    (("daily", "--fund", "bbj", "--date", "2026-12-01"),
     "2026-12-01: fund 'bbj' has no posting for the day; count and post it first"),
    (("daily", "--fund", "bbj", "--date", "2026-13-01"),
     "--date: '2026-13-01' is not a date YYYY-MM-DD"),
    (("award", "--case", "3"), "case 3: no such case"),
    (("award", "--case", "three"), "--case: 'three' is not a whole number"),
    (("quarterly", "--year", "2026", "--quarter", "5"),
     "Q5 2026: the quarter must be 1, 2, 3 or 4"),
    (("quarterly", "--year", "2026", "--quarter", "4"),
     "Q4 2026: fund 'bbj' has 2026-12-01 counted but not posted (its jackpot admin fee is not "
     "known yet); post it first"),
    (("cessation", "--fund", "bbj", "--to", "bbj2"),
     "--to and --effective: a planned transfer needs both"),
    (("cessation", "--fund", "bbj"),
     "fund 'bbj' has not ceased: part 1 (the notice) of a planned transfer needs the fund it "
     "goes to (to fund)"),
    (("implementation", "--fund", "nope", "--effective", "2027-01-15"),
     "fund 'nope' does not exist"),
    (("implementation", "--fund", "bbj", "--effective", "2027-01-15", "--filed",
      "2027-01-18 09:00"),
     "effective date 2027-01-15: a request filed 2027-01-18 09:00 is received on 2027-01-18, "
     "not before the implementation date (it must be filed at least 8 business days before)"),
    (("implementation", "--fund", "bbj", "--effective", "2027-01-15", "--filed",
      "2027-01-14 16:00"),  # Thursday after 3 PM: received Friday 15 Jan, the day itself
     "effective date 2027-01-15: a request filed 2027-01-14 16:00 is received on 2027-01-15, "
     "not before the implementation date (it must be filed at least 8 business days before)"),
    (("implementation", "--fund", "bbj", "--effective", "2027-01-15", "--filed", "tomorrow"),
     "--filed: 'tomorrow' is not a date and time 'YYYY-MM-DD HH:MM' (the casino's local "
     "time)"),
    (("implementation", "--fund", "bbj", "--effective", "15/01/2027"),
     "--effective: '15/01/2027' is not a date YYYY-MM-DD"),
])
def test_a_refusal_is_one_line_and_exit_2(db: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          argv: tuple[str, ...], message: str) -> None:
    out_file = tmp_path / "out.pdf"
    code, out, err = run(capsys, *argv, "--db", db, "--pdf", str(out_file))
    assert (code, out, err) == (2, "", f"podium forms: {message}\n")
    assert not out_file.exists()


def test_a_missing_or_old_ledger_is_refused_and_not_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.sqlite3"
    code, out, err = run(capsys, "award", "--case", "1", "--db", f"sqlite:///{missing}",
                         "--pdf", str(tmp_path / "a.pdf"))
    assert (code, err) == (2, f"podium forms: ledger sqlite:///{missing}: no such ledger file\n")
    assert not missing.exists()
    old = tmp_path / "old.sqlite3"
    engine = make_engine(f"sqlite:///{old}")
    upgrade(engine, "0006")
    engine.dispose()
    code, out, err = run(capsys, "award", "--case", "1", "--db", f"sqlite:///{old}",
                         "--pdf", str(tmp_path / "a.pdf"))
    from alembic.script import ScriptDirectory

    from core.ledger.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert code == 2 and err.startswith(f"podium forms: ledger sqlite:///{old}: schema "
                                        f"revision 0006, this Podium reads {head}")


def test_a_bad_floor_file_or_output_folder_is_refused(db: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "daily", "--fund", "bbj", "--date", "2026-11-30", "--db", db,
                       "--floor", str(tmp_path / "nofloor.toml"), "--pdf",
                       str(tmp_path / "a.pdf"))
    assert (code, err) == (2, f"podium forms: {tmp_path / 'nofloor.toml'}: no such floor "
                              "configuration file\n")
    code, _, err = run(capsys, "daily", "--fund", "bbj", "--date", "2026-11-30", "--db", db,
                       "--pdf", str(tmp_path / "no" / "a.pdf"))
    assert code == 2 and err.startswith("podium forms: ") and "does not exist" in err


def test_options_are_checked_by_the_parser(db: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "daily", "--fund", "bbj", "--date", "2026-11-30", "--db", db)
    assert code == 2 and "one of the arguments --pdf --png is required" in err
    code, _, err = run(capsys, "weekly", "--pdf", "x.pdf")
    assert code == 2 and "invalid choice: 'weekly'" in err


def rendered(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Let ``ledger_forms.render`` run and keep what the command gave it (the request, the
    keywords) and what it made (``form``)."""
    seen: dict[str, Any] = {}
    real = ledger_forms.render

    def spy(engine: Engine, request: ledger_forms.FormRequest,
            **kw: Any) -> ledger_forms.RenderedForm:
        form = real(engine, request, **kw)
        seen.update(kw, request=request, form=form)
        return form

    monkeypatch.setattr(ledger_forms, "render", spy)
    return seen


def test_implementation_request_to_pdf_with_the_filing_time_in_casino_time(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen = rendered(monkeypatch)
    pdf = tmp_path / "tgd-1581.pdf"
    code, out, err = run(capsys, "implementation", "--fund", "bbj", "--effective", "2027-01-15",
                         "--filed", "2026-12-28  14:30", "--db", db, "--pdf", str(pdf))
    assert (code, out, err) == (0, f"{pdf}\n", "")
    assert pdf.read_bytes().startswith(b"%PDF")
    manila = ZoneInfo("Asia/Manila")  # the demo floor's time zone
    assert seen["request"] == ledger_forms.FormRequest(
        "implementation", fund_id="bbj", effective_on=date(2027, 1, 15),
        filed_at=datetime(2026, 12, 28, 14, 30, tzinfo=manila))
    assert seen["poker_room"].rules.min_players == 5  # the demo floor's [poker_room]
    assert seen["form"].title == "TGD-1581 implementation request 2027-01-15 - fund bbj"
    assert "on time" in seen["form"].html
    png = tmp_path / "tgd-1581.png"
    code, out, _ = run(capsys, "implementation", "--fund", "bbj", "--effective", "2027-01-15",
                       "--db", db, "--png", str(png))
    assert (code, out) == (0, f"{png}\n") and png.read_bytes().startswith(b"\x89PNG")


def test_quarterly_offsite_prints_the_offsite_section_without_the_25_percent(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen = rendered(monkeypatch)
    code, _, err = run(capsys, "quarterly", "--year", "2026", "--quarter", "3", "--offsite",
                       "--db", db, "--png", str(tmp_path / "q.png"))
    assert (code, err) == (0, "")
    assert "II. For offsite poker room operator" in seen["form"].html
    assert "Less: 25% of FT" not in seen["form"].html
