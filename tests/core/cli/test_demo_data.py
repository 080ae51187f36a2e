"""Issue 26 points 6 and 8: the demo floor's data where a new user finds it.  ``make run``
(``podium demo``) keeps its ledger in ``demo.sqlite`` in the user data folder, and the
commands that read the demo floor's ledger (``podium report``, ``podium forms``, ``podium
console --floor demo --role accountant``) find that ledger without a ``--db``; ``podium
demo-floor`` gives each of its podiums a folder of its own (``--data-dir``: slips, settings),
so its slips never land in ``make run``'s slip folder under reprint names."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest
from sqlalchemy.engine import make_url

from core.cli.demo_floor_command import podium_argv
from core.cli.dispatch import main
from tests.ledgers import sqlite_ledger


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user data folder, with the ledger ``make run`` made (and no ledger.sqlite3)."""
    folder = tmp_path / "data"
    (folder / "demo-floor" / "pit-A").mkdir(parents=True)
    sqlite_ledger(folder / "demo.sqlite").dispose()
    sqlite_ledger(folder / "demo-floor" / "pit-A" / "demo.sqlite").dispose()
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(folder))
    return folder


def test_reports_on_the_demo_floor_read_the_ledger_make_run_made(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "slips", "--month", "2026-11"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out
    assert main(["report", "deadlines", "--json"]) == 0
    assert capsys.readouterr().err == ""
    assert not (data / "ledger.sqlite3").exists()  # nothing made where nothing was
    # a floor file of its own: the console's ledger, which this machine does not have
    floor = data.parent / "floor.toml"
    from tests.paid_slips import write_floor

    write_floor(floor)
    assert main(["report", "slips", "--month", "2026-11", "--floor", str(floor)]) == 2
    assert f"no ledger at {data / 'ledger.sqlite3'}" in capsys.readouterr().err


def test_the_accountants_desk_on_the_demo_floor_opens_the_demo_ledger(data: Path) -> None:
    from gui import app as gui_app

    _config, _paytables, engine = gui_app.open_desk_ledger("demo", None, demo=False)
    try:
        assert str(make_url(str(engine.url)).database).endswith(f"{data / 'demo.sqlite'}")
    finally:
        engine.dispose()


def test_each_demo_floor_podium_keeps_its_slips_apart_from_make_runs(data: Path) -> None:
    from gui import app as gui_app

    folders = {}
    for pit in ("A", "B"):
        argv = podium_argv("postgresql+psycopg://x@h/test", pit, None)
        folders[pit] = Path(argv[argv.index("--data-dir") + 1])
    assert folders == {"A": data / "demo-floor" / "pit-A", "B": data / "demo-floor" / "pit-B"}
    # the podium of pit A: its demo ledger and its file printer's slips in its own folder
    console, _warnings = gui_app.build_console("demo", None, demo=True,
                                               data_dir=str(folders["A"]))
    try:
        assert make_url(str(console.engine.url)).database == str(folders["A"] / "demo.sqlite")
        assert Path(console.printer.directory) == folders["A"] / "slips"
    finally:
        console.engine.dispose()
    # make run's own: the user data folder's
    console, _warnings = gui_app.build_console("demo", None, demo=True)
    try:
        assert make_url(str(console.engine.url)).database == str(data / "demo.sqlite")
        assert Path(console.printer.directory) == data / "slips"
    finally:
        console.engine.dispose()
