"""Every ``podium`` subcommand, fuzzed in this process (issue 23, finding 7): the harness of
tests/core/cli/test_fuzz_commands.py and benchmarks/fuzz_counts.py.

The subcommands are read from the parser itself (core/cli/dispatch.py: every leaf such as
``report drop`` or ``certs init``, and the Qt commands' own options), so a new subcommand is
fuzzed, or the test that every leaf has a base line here fails.  An input is a working base
line for the leaf with one mutation drawn from a seeded ``random.Random``: an option given a
malformed value (dates past 9999, numbers of 5,000 digits, escape sequences, bytes that are not
UTF-8, URLs of no database or of one that does not answer, paths of no folder), a token
dropped, inserted or repeated, an unknown option.

Each input runs ``core.cli.dispatch.main`` with stdin empty, in a sandbox: its own working
folder, temporary folder (``tempfile.tempdir``) and user data folder (``XDG_DATA_HOME``, where
the default ledger and card key live).  What is checked (:func:`problems`):

- the exit status is one the command documents (0/2; 1 where a report or a verify finds a
  difference), and a Python exception never leaves ``main`` (a "traceback");
- a refusal (2) is exactly one line on stderr, none of it a traceback or an exception's name;
- a refusal leaves no file or folder in the sandbox ("a write on refusal");
- an input ends within :data:`HANG_SECONDS` (SIGALRM: "a hang").

Commands that would start something long-lived when their input is good (the console, the
demo, the simulator, the demo floor) are fuzzed up to their argument checking: an unknown
option is always appended, so argparse has converted and checked every other argument first.
``serve`` and ``services`` are given a SQLite or unreachable ledger, ``display`` a ledger that
is not there: they check everything and refuse before a service or a window starts.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import os
import random
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HANG_SECONDS = 30.0
LEAKS = re.compile(r"Traceback|\b(?:Recursion|OS|Type|Key|Attribute|Index|Overflow|Memory|"
                   r"ZeroDivision|Unicode\w*|Assertion|Runtime|NotImplemented|Lookup)Error\b|"
                   r"InvalidOperation|decimal\.|File \"|sqlalche\.me|Warning: ")
GUARD = "--fuzz-guard-unknown-option"
# ends: the commands that start a window, a simulator or a floor when their input is good
GUARDED = ("console", "demo", "simulate", "demo-floor")
UNREACHABLE = "postgresql+psycopg://podium@127.0.0.1:1/podium"
# what an employees command reads: a card swiped (track 2), then a PIN typed twice
CARD = "6011000990139424"
STDIN = {"employees": f";{CARD}=2812101?\n4821\n4821\n"}


class Hang(BaseException):
    """An input that ran past HANG_SECONDS (raised by SIGALRM in the main thread)."""


@dataclass
class Outcome:
    leaf: str
    argv: list[str]
    code: int
    err: str
    created: list[str]
    traceback: str = ""
    hang: bool = False


@dataclass
class Tally:
    """Per subcommand: inputs, exit statuses, and the problems found."""

    inputs: int = 0
    codes: dict[int, int] = field(default_factory=dict)
    tracebacks: int = 0
    hangs: int = 0
    writes: int = 0
    other: int = 0  # a refusal of more than one line, an undocumented status
    examples: list[str] = field(default_factory=list)


# --- the subcommands -------------------------------------------------------------------------

def leaves() -> dict[str, argparse.ArgumentParser]:
    """Every leaf subcommand of ``podium`` ("report drop", "certs init", "console" ...) and
    its parser with every option added (the lazy ones imported)."""
    from core.cli.dispatch import OneLineParser, build_parser

    out: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out[prefix.strip()] = parser
            return
        for action in subs:
            pending: dict[str, str] = getattr(action, "pending", {})
            for name, sub in action.choices.items():
                module = pending.pop(name, None)
                if sub.get_default("_passthrough"):  # a Qt command parses its own options
                    own = OneLineParser(prog=f"podium {name}")
                    if name == "display":
                        importlib.import_module("gui.desks.signage")._options(own)
                    else:
                        importlib.import_module("gui.app")._options(own, name == "demo")
                    out[f"{prefix}{name}"] = own
                    continue
                if module is not None:
                    importlib.import_module(module).add_arguments(sub, name)
                walk(sub, f"{prefix}{name} ")

    walk(build_parser(), "")
    return out


def options(parser: argparse.ArgumentParser) -> list[tuple[str, bool]]:
    """(option, takes a value) of a leaf's parser, positionals as ("", True)."""
    found: list[tuple[str, bool]] = []
    for a in parser._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        if not a.option_strings:
            found.append(("", True))
        else:
            found.append((a.option_strings[-1], a.nargs != 0))
    return found


def bases(ledger: str, missing: str, card_key: str) -> dict[str, list[str]]:
    """A working (or, for the guarded and server commands, a checked) line per leaf."""
    db = ["--db", ledger]
    key = ["--card-key", card_key]
    period = ["--day", "2026-12-02"]
    return {
        "rules classify": ["As", "Ks", "Qs", "Js", "Ts", "9s", "Jk", "--json"],
        "rules paytables": ["--json"],
        "rules meter": ["@meter.json", "--json"],
        "rules edge": ["PT1", "--json"],
        "rules meter-risk": ["FPGPP-WA01", "--seed-amount", "10000", "--contribution-rate",
                             "0.2", "--rounds", "200", "--paths", "2", "--max-hits", "2000",
                             "--rng-seed", "1"],
        "rules slot": ["four-winds", "--screen", "R X R N E / G Y X B N / F F E F N"],
        "rules bbj": ["@bbj.json", "--json"],
        "report reconcile": [*period, *db, "--format", "json"],
        "report liability": ["--at", "2026-12-02 06:00", *db],
        "report slips": ["--from", "2026-12-01", "--to", "2026-12-02", *db, "--format", "csv"],
        "report hits": [*period, *db],
        "report drop": ["--month", "2026-11", *db, "--format", "xlsx", "--out", "drop.xlsx"],
        "report timeline": ["--hit", "1", *db],
        "report flags": [*period, *db, "--json"],
        "report deadlines": ["--at", "2026-12-02 06:00", *db, "--json"],
        "simulate": ["--tables", "2", "--seed", "1", "--plain-lab-only"],
        "certs init": ["newcerts", "--tables", "2", "--days", "30"],
        "certs issue": ["certs", "--table", "T9"],
        "certs revoke": ["certs", "certs/tables/T1.pem"],
        "serve": ["--floor", "demo", "--db", f"sqlite:///{missing}", "--pit", "A",
                  "--health", "127.0.0.1:0"],
        "services": ["--floor", "demo", "--db", f"sqlite:///{missing}", "--json"],
        "demo-floor": ["--db", UNREACHABLE, "--speed", "5"],
        "console": ["--floor", "demo", *db, "--pit", "A"],
        "demo": [*db, "--seed", "1"],
        "display": ["--bbj", "bbj", "--db", f"sqlite:///{missing}", "--windowed"],
        "employees add": ["--number", "E1", "--name", "Dana Reyes", "--role", "supervisor",
                          *db, *key],
        "employees list": ["--json", *db],
        "employees deactivate": ["--number", "E1", "--reason", "left", *db, *key],
        "employees reactivate": ["--number", "E1", "--reason", "back", *db, *key],
        "employees check": [*db, *key],
        "employees replace-card": ["--number", "E1", "--reason", "lost", *db, *key],
        "employees set-pin": ["--number", "E1", *db, *key],
        "employees reset-pin": ["--number", "E1", "--reason", "forgot", *db, *key],
        "employees unlock": ["--number", "E1", "--reason", "locked", *db, *key],
        "employees approve-contribution": ["--group", "G1", "--level", "MAIN", "--rate", "0.25",
                                           "--reason", "new game", *db, *key],
        "floor changes": ["--floor", "demo", *db],
        "floor approve": ["--floor", "demo", *db, *key, "--reason", "new paytable"],
        "audit verify": [*db, "--json"],
        "forms daily": ["--fund", "bbj", "--date", "2026-11-30", *db, "--pdf", "daily.pdf"],
        "forms award": ["--case", "1", *db, "--pdf", "award.pdf"],
        "forms quarterly": ["--year", "2026", "--quarter", "4", *db, "--png", "q.png"],
        "forms cessation": ["--fund", "bbj", *db, "--pdf", "c.pdf"],
        "forms implementation": ["--fund", "bbj", "--effective", "2026-12-14", *db, "--pdf",
                                 "i.pdf"],
        "forms forfeiture": ["--fund", "bbj", *db, "--pdf", "f.pdf"],
    }


def documented_codes(leaf: str) -> set[int]:
    """The exit statuses a leaf documents: 0 done, 2 refused; 1 where a report names a
    difference, a verify a break, an employees check a refused card."""
    if leaf.startswith(("report ", "audit ", "employees ")):
        return {0, 1, 2}
    return {0, 2}


# --- the malformed values ----------------------------------------------------------------------

def nasty_values(ledger: str, missing: str) -> list[str]:
    return [
        # numbers
        "", " ", "0", "-1", "-0", "1.5", "1e999999999", "-1e999999999", "NaN", "Infinity",
        "9" * 41, "9" * 5000, "1" + "0" * 15, "2147483648", "0x10", "1,50", "1_000",
        "\uff11\uff12", "\u0661\u0662", "+", ".",
        # dates and times
        "9999-12-31", "0001-01-01", "9999-12", "0000-00-00", "2026-02-30", "2026-13",
        "2026-12-02 25:00", "9999-12-31 23:59", "0001-01-01 00:00+05:00",
        "2026-12-02T06:00:00+14:00", "1900-01-01", "2026-W49",
        # text that reaches a terminal or a file name
        "\x1b[2J\x1b[H", "a\nb", "\x00", "\x07", "\u202e", "x" * 300, "\udcff\udcfe",
        "--", "-", "-h", "--help=1",
        # databases
        "x", "sqlite://", "sqlite:///:memory:", f"sqlite:///{missing}", "sqlite:///typo.sqlite3",
        "sqlite:///no/such/dir/l.sqlite3", "postgresql://u@h:abc/x", UNREACHABLE,
        "mysql://u@127.0.0.1:1/x", "sqlite+pysqlcipher:///x.db", f"{ledger}?mode=rw",
        # paths
        "out.pdf", "no/such/folder/out.pdf", ".", "/", "/proc/self/mem", "\udcffout.pdf",
        "y" * 300 + ".pdf", "demo", "does-not-exist.toml",
    ]


def mutate(rng: random.Random, base: list[str], opts: list[tuple[str, bool]],
           values: list[str]) -> list[str]:
    argv = list(base)
    how = rng.randrange(8)
    value = rng.choice(values)
    if how <= 2 and opts:  # an option (or a positional) given a malformed value
        name, takes = rng.choice(opts)
        if not name:
            spots = [i for i, t in enumerate(argv) if not t.startswith("-")
                     and (i == 0 or not argv[i - 1].startswith("--"))]
            if spots:
                argv[rng.choice(spots)] = value
            else:
                argv.append(value)
        elif name in argv and takes:
            i = argv.index(name)
            if i + 1 < len(argv):
                argv[i + 1] = value
            else:
                argv.append(value)
        elif takes:
            argv += [name, value]
        else:
            argv += [name, value] if rng.random() < 0.3 else [name]
    elif how == 3 and argv:  # a token dropped
        del argv[rng.randrange(len(argv))]
    elif how == 4:  # a token inserted anywhere
        argv.insert(rng.randrange(len(argv) + 1), value)
    elif how == 5 and argv:  # a token repeated
        i = rng.randrange(len(argv))
        argv.insert(i, argv[i])
    elif how == 6:  # an option of the leaf with nothing after it
        if opts:
            argv.append(rng.choice(opts)[0] or value)
    else:  # an unknown option, malformed
        argv += ["--" + value.strip("-")[:40] or "--x"]
    return argv


# --- running one input -------------------------------------------------------------------------

class Sandbox:
    """Private working, temporary and user data folders; :meth:`listing` is what is in them.
    The ledger the commands read and the JSON cases live beside, outside what is watched."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.work = root / "work"
        self.tmp = root / "tmp"
        self.data = root / "data"
        self.fixed = root / "fixed"
        for d in (self.work, self.tmp, self.data, self.fixed):
            d.mkdir(parents=True, exist_ok=True)

    @property
    def watched(self) -> tuple[Path, ...]:
        return (self.work, self.tmp, self.data)

    def listing(self) -> set[str]:
        found: set[str] = set()
        for d in self.watched:
            for dirpath, dirnames, filenames in os.walk(d):
                for n in dirnames + filenames:
                    found.add(os.path.relpath(os.path.join(dirpath, n), self.root))
        return found

    def reset(self, keep: set[str]) -> None:
        """Remove what an accepted input made (keeping ``keep``, the starting contents)."""
        for rel in sorted(self.listing() - keep, key=len, reverse=True):
            p = self.root / rel
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    p.unlink()

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        old_cwd, old_tmp = os.getcwd(), tempfile.tempdir
        old_env = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "TMPDIR", "HOME")}
        os.chdir(self.work)
        tempfile.tempdir = str(self.tmp)
        os.environ["XDG_DATA_HOME"] = str(self.data)
        os.environ["TMPDIR"] = str(self.tmp)
        try:
            yield
        finally:
            os.chdir(old_cwd)
            tempfile.tempdir = old_tmp
            for k, v in old_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def _alarm(_signum: int, _frame: Any) -> None:
    raise Hang


def run_one(leaf: str, argv: list[str], box: Sandbox, keep: set[str],
            hang_seconds: float = HANG_SECONDS) -> Outcome:
    """``podium ARGV`` in this process, in the sandbox, with stdin empty."""
    import logging
    import traceback

    from core.cli.dispatch import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    err = io.StringIO()
    code, tb, hang = 2, "", False
    previous = signal.signal(signal.SIGALRM, _alarm)
    old_stdin, old_hook = sys.stdin, sys.unraisablehook
    sys.unraisablehook = sys.__unraisablehook__  # to stderr, as a person would see it
    sys.stdin = io.StringIO(STDIN.get(leaf.split(" ")[0], ""))
    root = logging.getLogger()
    root_handlers, root_level = list(root.handlers), root.level
    signal.setitimer(signal.ITIMER_REAL, hang_seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse's refusals, a Qt command's own exit
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None
                                                                     else 2)
            gc.collect(1)  # what the command left half-made complains now, on its stderr
    except Hang:
        hang = True
    except BaseException:  # what the property forbids: count it, do not stop the run
        tb = traceback.format_exc()
        code = 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin, sys.unraisablehook = old_stdin, old_hook
        root.handlers[:] = root_handlers  # a command that set up logging (force=True)
        root.setLevel(root_level)
    created = sorted(box.listing() - keep)
    return Outcome(leaf, argv, int(code), err.getvalue(), created, tb, hang)


def problems(o: Outcome) -> list[str]:
    """What is wrong with an outcome, in words (empty: it keeps the property)."""
    found: list[str] = []
    if o.hang:
        return ["hang"]
    if o.traceback:
        return ["traceback"]
    if o.code not in documented_codes(o.leaf):
        found.append(f"exit status {o.code}")
    if LEAKS.search(o.err):
        found.append("traceback")
    if o.code == 2:
        if not (o.err.endswith("\n") and o.err.count("\n") == 1):
            found.append("refusal not one line")
        if o.created:
            found.append("write on refusal")
    return found


# --- a whole run -------------------------------------------------------------------------------

def prepare(root: Path) -> tuple[Sandbox, str, dict[str, list[str]]]:
    """The sandbox, a migrated SQLite ledger to read (outside the watched folders) and the
    base line of every leaf."""
    import json

    from core.ledger.db import make_engine
    from tests.ledgers import migrate

    box = Sandbox(root)
    ledger_path = box.fixed / "ledger.sqlite3"
    if not ledger_path.exists():
        from core.pokerroom import fund

        engine = make_engine(f"sqlite:///{ledger_path}")
        migrate(engine)
        fund.create_fund(engine, "bbj", "Poker room BBJ")
        fund.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed")
        engine.dispose()
    card_key = box.fixed / "card.key"
    if not card_key.exists():
        from core.people import cardkey

        cardkey.load(str(card_key), create=True)
    ledger = f"sqlite:///{ledger_path}"
    from tests.core.cli.test_fuzz_cli import BBJ, METER

    (box.fixed / "meter.json").write_text(json.dumps(METER), encoding="utf-8")
    (box.fixed / "bbj.json").write_text(json.dumps(BBJ), encoding="utf-8")
    missing = str(box.fixed / "missing.sqlite3")
    table = bases(ledger, missing, str(card_key))
    for leaf, argv in table.items():
        table[leaf] = [str(box.fixed / a[1:]) if a.startswith("@") else a for a in argv]
    return box, ledger, table


def certs_for(box: Sandbox) -> None:
    """The CA the base lines of ``certs issue`` and ``certs revoke`` use, in the working
    folder (part of what a refusal is compared with)."""
    from core.controllers import certs

    if not (box.work / "certs" / "ca.pem").exists():
        certs.init(box.work / "certs", ["T1", "T2"], organization="Fuzz casino")


def fuzz(root: Path, per_leaf: int, seed: int = 23, only: list[str] | None = None,
         hang_seconds: float = HANG_SECONDS, progress: Callable[[str, Tally], None] | None = None
         ) -> tuple[dict[str, Tally], list[Outcome]]:
    """``per_leaf`` inputs for every leaf (or those of ``only``): the tallies and the inputs
    that broke the property."""
    box, ledger, table = prepare(root)
    found = leaves()
    missing = sorted(set(found) - set(table))
    if missing:
        raise AssertionError(f"no base line for {', '.join(missing)}: add one to bases()")
    values = nasty_values(ledger, str(box.fixed / "missing.sqlite3"))
    tallies: dict[str, Tally] = {}
    bad: list[Outcome] = []
    with box.entered():
        certs_for(box)
        keep = box.listing()
        for leaf in sorted(found):
            if only and leaf not in only:
                continue
            rng = random.Random(f"{seed}:{leaf}")
            opts = options(found[leaf])
            mine = values
            if leaf == "display":  # the one value that names the readable ledger would open a
                mine = [v for v in values if ledger not in v]  # window (a Qt loop, no alarm)
            base = [*leaf.split(" "), *table[leaf]]
            t = tallies.setdefault(leaf, Tally())
            for i in range(per_leaf):
                words = len(leaf.split(" "))
                argv = base if i == 0 else [*base[:words], *mutate(rng, base[words:], opts,
                                                                    mine)]
                if leaf.split(" ")[0] in GUARDED:
                    argv = [*argv, GUARD]
                o = run_one(leaf, argv, box, keep, hang_seconds)
                box.reset(keep)
                t.inputs += 1
                t.codes[o.code] = t.codes.get(o.code, 0) + 1
                wrong = problems(o)
                t.hangs += "hang" in wrong
                t.tracebacks += "traceback" in wrong
                t.writes += "write on refusal" in wrong
                t.other += any(w not in ("hang", "traceback", "write on refusal")
                               for w in wrong)
                if wrong:
                    bad.append(o)
                    if len(t.examples) < 3:
                        t.examples.append(f"{', '.join(wrong)}: {argv!r}: "
                                          f"{(o.traceback or o.err).strip()[-300:]} "
                                          f"{o.created[:3]}")
            if progress is not None:
                progress(leaf, t)
    return tallies, bad


def table_text(tallies: dict[str, Tally], seconds: float | None = None) -> str:
    lines = [f"{'subcommand':<24} {'inputs':>7} {'exit 0':>7} {'exit 1':>7} {'exit 2':>7} "
             f"{'tracebk':>7} {'hangs':>6} {'writes':>6} {'other':>6}"]
    total = Tally()
    for leaf in sorted(tallies):
        t = tallies[leaf]
        lines.append(f"{leaf:<24} {t.inputs:>7} {t.codes.get(0, 0):>7} {t.codes.get(1, 0):>7} "
                     f"{t.codes.get(2, 0):>7} {t.tracebacks:>7} {t.hangs:>6} {t.writes:>6} "
                     f"{t.other:>6}")
        total.inputs += t.inputs
        for c, n in t.codes.items():
            total.codes[c] = total.codes.get(c, 0) + n
        total.tracebacks += t.tracebacks
        total.hangs += t.hangs
        total.writes += t.writes
        total.other += t.other
    lines.append(f"{'all':<24} {total.inputs:>7} {total.codes.get(0, 0):>7} "
                 f"{total.codes.get(1, 0):>7} {total.codes.get(2, 0):>7} {total.tracebacks:>7} "
                 f"{total.hangs:>6} {total.writes:>6} {total.other:>6}")
    if seconds is not None:
        lines.append(f"{len(tallies)} subcommands in {seconds:,.0f} s")
    return "\n".join(lines)

