"""Every ``podium`` subcommand fuzzed (issue 23, finding 7): a few hundred malformed command
lines per subcommand, in this process with a fixed seed (tests/cli_fuzz.py says how), each
answered (0), refused in one line with nothing written (2), or, where documented, a
difference found (1); never a traceback, never a hang.  ``benchmarks/fuzz_counts.py`` runs
the same over 100,000 inputs and prints the counts per subcommand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import cli_fuzz

PER_COMMAND = 200
LEAVES = sorted(cli_fuzz.leaves())
# Problems a subcommand is known to have, by kind (none left: issue 23's people work made the
# employees command's refusals one line that writes nothing)
KNOWN: dict[str, tuple[str, ...]] = {}


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-commands")


def test_every_subcommand_has_a_base_line(sandbox: Path) -> None:
    table = cli_fuzz.bases("sqlite:///x", "y", "z")
    assert sorted(table) == LEAVES


@pytest.mark.parametrize("leaf", LEAVES)
def test_any_command_line_is_answered_or_refused_in_one_line_writing_nothing(
        leaf: str, sandbox: Path) -> None:
    tallies, bad = cli_fuzz.fuzz(sandbox, PER_COMMAND, only=[leaf])
    assert tallies[leaf].inputs == PER_COMMAND
    known = KNOWN.get(leaf.split(" ")[0], ())
    unknown = [(o, w) for o in bad for w in cli_fuzz.problems(o) if w not in known]
    assert not unknown, "\n".join(
        f"{w}: {o.argv!r}: {(o.traceback or o.err)[-600:]} {o.created[:3]}"
        for o, w in unknown[:5])
    if bad:
        pytest.xfail(f"{len(bad)} known refusal(s) of the employees command: "
                     f"{bad[0].argv!r}: {bad[0].err.strip()[:200]}")


@pytest.mark.parametrize("argv", [
    ["report", "reconcile", "--day", "9999-12-31"],
    ["report", "flags", "--day", "9999-12-31"],
    ["report", "drop", "--start", "0001-01-01 00:00+05:00", "--end", "2026-01-01 00:00"],
    ["report", "hits", "--day", "2026-12-02", "--db", "x"],
    ["report", "drop", "--day", "2026-12-02", "--db", cli_fuzz.UNREACHABLE],
    ["audit", "verify", "--db", "sqlite:///typo.sqlite3"],
    ["certs", "init", "ca", "--tables", "2", "--days", "0"],
    ["certs", "init", "ca", "--tables", "2", "--console", "a", "--console", "a"],
    ["forms", "implementation", "--fund", "bbj", "--effective", "2026-12-14", "--pdf",
     "\udcff\udcfe.pdf"],
    ["report", "drop", "--month", "2026-11", "--format", "pdf", "--out", "\udcffdrop.pdf"],
    ["report", "drop", "--month", "2026-11", "--format", "xlsx", "--out", "/proc/self/mem"],
    ["employees", "list", "--db", "LEDGER?mode=rw"],
    ["report", "hits", "--day", "2026-12-02", "--bogus\x1b[31m\nline"],
])
def test_the_refusals_issue_23_found_are_one_line_and_write_nothing(
        argv: list[str], sandbox: Path) -> None:
    box, ledger, _ = cli_fuzz.prepare(sandbox)
    argv = [a.replace("LEDGER", ledger) for a in argv]
    if "--db" not in argv and argv[0] in ("report", "forms"):
        argv += ["--db", ledger]
    with box.entered():
        keep = box.listing()
        o = cli_fuzz.run_one(" ".join(argv[:2]), argv, box, keep)
        box.reset(keep)
    assert o.code == 2, (o.code, o.err, o.traceback)
    assert cli_fuzz.problems(o) == [], (o.err, o.traceback, o.created)
    assert o.err.isprintable() or o.err[:-1].isprintable()  # no escape, no second line


TOP = sorted({leaf.split(" ")[0] for leaf in LEAVES})


@pytest.mark.parametrize("command", TOP)
def test_a_refusal_in_a_real_process_is_one_sanitized_line(command: str, tmp_path: Path) -> None:
    """As a person runs it: its own process (stderr a pipe, logging and warnings as they are
    set up there), an escape sequence and a line break in an unknown option."""
    import os
    import subprocess
    import sys

    leaf = next(x for x in LEAVES if x.split(" ")[0] == command)
    argv = [*leaf.split(" "), "--\x1b[2Jbogus\nline"]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "core.cli", *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False,
                          errors="backslashreplace")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "\x1b" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="a file that can not be written")
def test_a_form_that_can_not_be_written_is_one_line_in_a_real_process(
        sandbox: Path, tmp_path: Path) -> None:
    """libpng said "Write Error" on the process's own stderr, beside the refusal."""
    import os
    import subprocess
    import sys

    _box, ledger, _ = cli_fuzz.prepare(sandbox)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "core.cli", "forms", "quarterly", "--year",
                           "2026", "--quarter", "4", "--db", ledger, "--png", "/proc/self/mem"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("podium forms: ") and done.stderr.count("\n") == 1, \
        done.stderr
