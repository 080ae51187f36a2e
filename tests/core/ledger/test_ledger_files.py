"""The SQLite ledger's files are the owner's alone (issue 23, finding 10): created 0600
whatever the umask, its -wal and -shm files too, in a data folder only the owner lists; a
file that exists keeps the mode a casino gave it; a read-only command creates nothing."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from core.ledger.db import default_url, make_engine, sqlite_file, upgrade


@pytest.fixture(params=[0o022, 0o002, 0o000])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_ledger_and_its_wal_and_shm_files_are_0600(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "ledger.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    try:
        upgrade(engine)
        with engine.begin() as conn:  # a connection open in WAL mode: -wal and -shm exist
            conn.execute(text("CREATE TABLE probe (x INTEGER)"))
            conn.execute(text("INSERT INTO probe VALUES (1)"))
            files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
            assert all(f.exists() for f in files)
            assert {f.name: oct(mode(f)) for f in files} == {f.name: "0o600" for f in files}
    finally:
        engine.dispose()
    assert mode(path) == 0o600


def test_the_default_ledger_is_in_a_folder_only_its_owner_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = default_url()
    path = sqlite_file(url)
    assert path is not None and path.parent.is_dir()
    assert mode(path.parent) == 0o700
    engine = make_engine(url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    assert mode(path) == 0o600


def test_an_existing_ledger_keeps_the_mode_it_was_given(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    path.touch()
    path.chmod(0o640)  # a casino's documented group (docs/operator.md "File permissions")
    engine = make_engine(f"sqlite:///{path}")
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    assert mode(path) == 0o640


def test_a_read_only_command_creates_no_data_folder(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = sqlite_file(default_url(create=False))
    assert path is not None and not path.parent.exists()
    from core.cli.dispatch import main

    for argv in (["audit", "verify"], ["report", "hits", "--day", "2026-12-02"],
                 ["report", "deadlines"]):
        assert main(argv) == 2
    assert not (tmp_path / "data").exists()


def test_an_engine_that_never_connects_leaves_no_file(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'typo.sqlite3'}")
    engine.dispose()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/self/fd")
def test_disposing_a_ledger_engine_closes_its_readers_files(tmp_path: Path) -> None:
    from core.ledger.db import reader

    def open_files() -> int:
        return len(list(Path("/proc/self/fd").iterdir()))

    engine = make_engine(f"sqlite:///{tmp_path / 'warm.sqlite3'}")  # imports, caches
    upgrade(engine)
    engine.dispose()
    before = open_files()
    for i in range(5):
        engine = make_engine(f"sqlite:///{tmp_path / f'ledger{i}.sqlite3'}")
        upgrade(engine)
        with reader(engine).connect() as conn:  # the file, its -wal and -shm: open
            conn.execute(text("SELECT 1"))
        engine.dispose()
    assert open_files() == before
