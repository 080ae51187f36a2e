"""The suite's own per-test timeout (tests/conftest.py): a test that hangs FAILS, naming itself,
instead of holding the run; the next test runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HANGS = '''
import threading

import pytest


@pytest.mark.timeout(1)
def test_that_hangs() -> None:
    threading.Event().wait()  # no timeout: on purpose


def test_after_it() -> None:
    assert True
'''


def test_a_hanging_test_fails_with_its_name_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "test_hangs.py").write_text(HANGS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-q", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path / "test_hangs.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "test_that_hangs still running after 1 s" in out, out
