"""Malformed input never ends in a traceback (issue 12): every ``podium rules ...`` command,
``podium forms`` and ``podium certs`` driven in-process through ``core.cli.dispatch.main`` with
generated JSON cases, game files, paytables and option values.

The property, for every input: the exit status is 0 or 2; a refusal (2) is exactly one line on
stderr with no Python traceback or exception class name in it; and a refusal writes nothing.
The regression examples are the inputs that once ended in a traceback with status 1.

``COUNTS`` keeps (command, exit status) -> inputs.  Every subcommand, with a sandbox that
sees writes: tests/core/cli/test_fuzz_commands.py and ``benchmarks/fuzz_counts.py``.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli.dispatch import main
from core.tablegames.rules.paytables import PaytableError, load_paytable_file

COUNTS: Counter[tuple[str, int]] = Counter()
LEAKS = re.compile(r"Traceback|\b(?:Recursion|OS|Type|Key|Attribute|Index|Overflow|Memory|"
                   r"ZeroDivision|Unicode\w*|Assertion|Runtime|NotImplemented)Error\b|"
                   r"InvalidOperation|decimal\.|File \"")
FAST = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

ROOT = Path(__file__).resolve().parents[3]
TMP = Path(tempfile.mkdtemp(prefix="podium-fuzz-"))  # named in parametrize ids: made at import
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
DEEP = 100_000


def run(argv: Sequence[str], command: str | None = None) -> tuple[int, str, str]:
    """``podium ARGV`` in this process: (status, stdout, stderr), the property checked."""
    out, err = io.StringIO(), io.StringIO()
    before = sorted(os.listdir(TMP))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's refusals
            code = exc.code if isinstance(exc.code, int) else 2
    name = command or (argv[0] if argv[0] in ("forms", "certs") else " ".join(argv[:2]))
    COUNTS[(name, code)] += 1
    text = err.getvalue()
    assert code in (0, 2), (argv, code, text)
    assert not LEAKS.search(text), text
    if code == 2:
        assert text.endswith("\n") and text.count("\n") == 1, text
        assert sorted(os.listdir(TMP)) == before  # a refusal writes nothing
    return code, out.getvalue(), text


def write(name: str, text: str) -> str:
    path = TMP / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- the cases of CLI.md, to mutate ----------------------------------------------------------

METER = {"paytable": "FPGPP-WA01",
         "levels": {"MAIN": {"seed": "10000.00", "meter": "12345.67", "reserve": "250.00",
                             "contribution_rate": "0.20", "reserve_rate": "0.02"}},
         "rounds": [{"wagers": {"1": "1.00", "2": "1.00", "6": "1.00"},
                     "hits": {"2": "SF7_NATURAL", "6": "RF_ROYAL_MATCH"}}]}
BBJ = {"big_blind": "100.00", "pot": "2500.00", "dealt_in": [1, 2, 3, 4, 5, 6, 7],
       "board": ["Ah", "Ad", "Tc", "7s", "7c"],
       "showdown": [{"seat": 1, "hole": ["As", "Td"]}, {"seat": 4, "hole": ["7h", "7d"]}],
       "taxpayers": {"4": "nranetb"}, "voids": [], "table_jackpot_rake_cap": "100.00",
       "room_max_jackpot_rake": "100.00", "main_jackpot": "1000000.00",
       "reserve_jackpot": "300000.00",
       "split": {"winning": "0.20", "losing": "0.40", "table": "0.40"}}
JSON_CASES = {"meter": METER, "bbj": BBJ}

NASTY = ["1e999999999", "-1e999999999", "1E+999999999", "1,50", "1_000", "１２", "-0", "NaN",
         "Infinity", "", " ", "9" * 41, "1" + "0" * 15, "0x10", "1.005", "-1", "0",
         "\x00", "\x1b[2J", "x" * 300, "9" * 5000, "1" * 20, "2147483648", "+", ".", "1e4"]
nasty_text = st.one_of(st.sampled_from(NASTY), st.text(max_size=30),
                       st.integers(-10**40, 10**40).map(str),
                       st.decimals(allow_nan=True, allow_infinity=True).map(str))

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**50, 10**50),
                         st.text(max_size=20), st.sampled_from(NASTY))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
NUMBER_TEXT = ["1e999999999", "-1e999999999", "1.0e-999999999", "1" + "0" * 5000, "1.5",
               "NaN", "-Infinity", "0", "-0", "12345678901234567890"]


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (keys and indexes from the top)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def replaced(doc: Any, where: tuple[Any, ...], value: Any) -> Any:
    if not where:
        return value
    copy = json.loads(json.dumps(doc))
    node = copy
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return copy


def raw_number_at(doc: Any, where: tuple[Any, ...], number: str) -> str:
    """The document's text with a bare JSON number (as written) at ``where``."""
    marker = "\u2603MARK\u2603"
    return json.dumps(replaced(doc, where, marker)).replace(json.dumps(marker), number)


# --- regressions: each of these once ended in a traceback and status 1 ------------------------

DEEP_JSON = "[" * DEEP + "]" * DEEP
DEEP_OBJECT = '{"a": ' * DEEP + "1" + "}" * DEEP
DEEP_TOML = "x = " + "[" * DEEP + "]" * DEEP + "\n"


@pytest.mark.parametrize("command", ["meter", "bbj"])
@pytest.mark.parametrize("text", [
    DEEP_JSON, DEEP_OBJECT, '{"rounds": ' + "[" * 5000 + "]" * 5000 + "}",
    raw_number_at(METER, ("levels", "MAIN", "seed"), "1e999999999"),
    raw_number_at(METER, ("levels", "MAIN", "contribution_rate"), "1e999999999"),
    raw_number_at(METER, ("rounds", 0, "wagers", "1"), "1" + "0" * 5000),
    raw_number_at(BBJ, ("pot",), "1e999999999"), raw_number_at(BBJ, ("pot",), "NaN"),
    raw_number_at(BBJ, ("split", "winning"), "1e999999999"),
    raw_number_at(BBJ, ("showdown", 0, "seat"), "1" + "0" * 5000),
    json.dumps({**BBJ, "taxpayers": {"9" * 5000: "citizen"}}),
    # issue 23: a seat or a tie policy written as a decimal number ("Decimal is not JSON
    # serializable" while naming it)
    raw_number_at(BBJ, ("showdown", 0, "seat"), "[0.5]"),
    raw_number_at(BBJ, ("showdown", 1, "seat"), '{"seat": 0.5}'),
    raw_number_at(BBJ, ("tie",), "[1.5, 2]"),
])
def test_known_json_tracebacks_are_one_line_refusals(command: str, text: str) -> None:
    code, _, err = run(["rules", command, write("case.json", text)])
    assert code == 2 and err.startswith(f"podium rules {command}: ")


@pytest.mark.parametrize("argv", [
    ["rules", "meter-risk", "FPGPP-WA01", "--seed-amount", "1e999999999",
     "--contribution-rate", "0.2"],
    ["rules", "meter-risk", "FPGPP-WA01", "--seed-amount", "10000", "--contribution-rate",
     "1e999999999"],
    ["rules", "meter-risk", "FPGPP-WA01", "--seed-amount", "10000", "--contribution-rate",
     "0.2", "--paths", "99999999999999"],
    ["rules", "meter-risk", "FPGPP-WA01", "--seed-amount", "10000", "--contribution-rate",
     "0.2", "--rounds", "100000000", "--paths", "1000", "--all-pays-from-meter"],
    ["rules", "edge", "PT1", "--wager", "1e999999999"],
    ["rules", "edge", "FPGPP-WA01", "--meter", "1e999999999"],
    ["rules", "edge", "FPGPP-ML2", "--meter", "MEGA=1e999999999,MAJOR=1,MINOR=1"],
    ["rules", "slot", "x" * 300, "--screen", "A"],
    ["rules", "slot", "\x00", "--screen", "A"],
    ["rules", "slot", "jade-harbour", "--return", "--lines", "9" * 5000],
    ["rules", "slot", "jade-harbour", "--screen", "D A K Q J / D A K Q J / D A K Q J",
     "--bet-per-line", "10" + "0" * 40],
    ["rules", "meter", "x" * 300], ["rules", "bbj", str(TMP)], ["rules", "meter", ""],
    ["forms", "award", "--case", "1", "--pdf", ""],
    ["forms", "award", "--case", str(10**30), "--pdf", str(TMP / "out.pdf")],
    ["forms", "award", "--case", "1", "--pdf", str(TMP / ("x" * 300))],
    ["forms", "award", "--case", "1", "--png", str(TMP)],
    ["forms", "award", "--case", "1", "--pdf", str(TMP / "no" / "such" / "out.pdf")],
    ["forms", "quarterly", "--year", "2026", "--quarter", "1" * 5000, "--png",
     str(TMP / "q.png")],
    ["forms", "award", "--case", "1", "--floor", "y" * 300, "--pdf", str(TMP / "out.pdf")],
    ["certs", "init", str(TMP / "certs"), "--tables", "1", "--days", str(10**30)],
    ["certs", "init", str(TMP / "certs"), "--tables", "10" * 30],
])
def test_known_option_tracebacks_are_one_line_refusals(argv: list[str]) -> None:
    code, _, err = run(argv)
    assert code == 2 and err.startswith("podium ")


def game_text(**changes: str) -> str:
    text = (ROOT / "resources" / "games" / "jade-harbour.toml").read_text(encoding="utf-8")
    for old, new in changes.items():
        text = re.sub(old, new, text, count=1, flags=re.M)
    return text


def strips(reels: int, stops: int, symbols: Sequence[str]) -> str:
    rows = [" ".join(symbols[(r * 7 + s) % len(symbols)] for s in range(stops))
            for r in range(reels)]
    return "strips = [\n" + ",\n".join(f'    "{row}"' for row in rows) + "\n]\n"


def test_slot_return_is_refused_before_the_work_when_it_would_not_end() -> None:
    # 8 reels of 30 stops, 30 symbols: this ran for over 10 minutes and grew past 2.6 GB
    symbols = [f"S{i}" for i in range(30)]
    lines = "\n".join(f"[[paylines]]\nrows = [{', '.join(str((i >> r) & 1) for r in range(8))}]"
                      for i in range(9))
    text = ("[game]\nname = \"Wide\"\nreels = 8\nrows = 2\n[symbols]\n"
            + "".join(f'{s} = "normal"\n' for s in symbols) + lines + "\n[pays]\n"
            + "".join(f"{s} = {{ 3 = 5, 8 = 500 }}\n" for s in symbols)
            + "[reels]\n" + strips(8, 30, symbols))
    assert len(text) < 8000
    code, _, err = run(["rules", "slot", write("wide.toml", text), "--return"])
    assert code == 2
    assert "--max-steps" in err and "8 reels of 30/30/30/30/30/30/30/30 stops" in err


@pytest.mark.parametrize("text", [
    DEEP_TOML, game_text(**{r"^name = .*$": "name = " + "[" * DEEP + "]" * DEEP}),
    game_text(**{r"^reels = 5$": "reels = 1000000000000"}),
    game_text(**{r"^games = 10$": "games = 1e999999999"}),
    game_text(**{r"^multiplier = 3 ": "multiplier = 99999999999999999999999999 "}),
])
def test_known_game_file_tracebacks_are_one_line_refusals(text: str) -> None:
    code, _, err = run(["rules", "slot", write("game.toml", text), "--screen", "A"])
    assert code == 2 and err.startswith("podium rules slot: ")


@pytest.mark.parametrize("text", [DEEP_TOML, 'id = "X"\n' + DEEP_TOML,
                                  'wager = 1e999999999\n', 'wager = "1e999999999"\n'])
def test_known_paytable_tracebacks_are_paytable_errors(text: str) -> None:
    with pytest.raises(PaytableError):
        load_paytable_file(write("table.toml", text))


# --- properties --------------------------------------------------------------------------------

@settings(FAST, max_examples=400)
@given(command=st.sampled_from(sorted(JSON_CASES)), data=st.data())
def test_any_json_case_is_answered_or_refused_in_one_line(command: str, data: Any) -> None:
    base = JSON_CASES[command]
    how = data.draw(st.sampled_from(["replace", "number", "whole", "deep"]))
    where = data.draw(st.sampled_from(paths(base)))
    if how == "replace":
        text = json.dumps(replaced(base, where, data.draw(json_values)))
    elif how == "number":
        text = raw_number_at(base, where, data.draw(st.sampled_from(NUMBER_TEXT)))
    elif how == "whole":
        text = json.dumps(data.draw(json_values))
    else:
        depth = data.draw(st.integers(1, 3000))
        text = raw_number_at(base, where, "[" * depth + "]" * depth)
    run(["rules", command, write("case.json", text)], f"rules {command}")


GAME_KEYS = [r"^reels = 5$", r"^rows = 3$", r"^D = \"normal\"", r"^multiplier = 2 ",
             r"^rows = \[1, 1, 1, 1, 1\]", r"^D = \{ 3 = 50", r"^S = \{ 3 = 2",
             r"^games = 10", r"^consolation = 2", r"^strips = \["]


@FAST
@given(key=st.sampled_from(GAME_KEYS), value=st.one_of(
    st.sampled_from(["1e999999999", "99999999999999999999999999", "-1", "0", "[[[[]]]]",
                     "nan", "inf", '"x"', "{}", "true", "1.5"]), st.text(max_size=12)),
    screen=st.sampled_from(["D A K Q J / D A K Q J / D A K Q J", "--return"]))
def test_any_game_file_is_answered_or_refused_in_one_line(key: str, value: str,
                                                            screen: str) -> None:
    name = key.split(" ")[0].strip("^\\")
    text = game_text(**{key: f"{name} = {value}".replace("\\", "\\\\")})
    argv = ["rules", "slot", write("game.toml", text)]
    argv += ["--return", "--max-steps", "3000000"] if screen == "--return" else ["--screen",
                                                                                  screen]
    run(argv, "rules slot")


@FAST
@given(text=st.one_of(st.text(max_size=200), st.sampled_from([
    DEEP_TOML, "id = 'X'\nkind = 'bonus'\n", "[[pays]]\n" * 3, "wager = 1e999999999"])))
def test_any_paytable_file_loads_or_is_a_paytable_error(text: str) -> None:
    try:
        load_paytable_file(write("table.toml", text))
    except PaytableError as exc:
        assert "\n" not in str(exc) or str(exc).count("\n") < 3
        COUNTS[("paytable file", 2)] += 1
    else:
        COUNTS[("paytable file", 0)] += 1


OPTIONS: dict[str, tuple[list[str], list[str]]] = {
    # command: (argv that works, options to give a malformed value)
    "rules meter-risk": (["rules", "meter-risk", "FPGPP-WA01", "--seed-amount", "10000",
                          "--contribution-rate", "0.2", "--rounds", "200", "--paths", "2",
                          "--max-hits", "2000", "--rng-seed", "1"],
                         ["--seed-amount", "--contribution-rate", "--reserve-rate",
                          "--start-meter", "--rounds", "--paths", "--seats", "--bins",
                          "--rng-seed", "--max-hits"]),
    "rules edge": (["rules", "edge", "FPGPP-ML2"],
                   ["--meter", "--contribution-rate", "--reserve-rate", "--others"]),
    "rules edge PT1": (["rules", "edge", "PT1"], ["--wager", "--others"]),
    "rules slot": (["rules", "slot", "four-winds", "--screen",
                    "R X R N E / G Y X B N / F F E F N"],
                   ["--bet-per-line", "--lines", "--held", "--initial", "--screen"]),
    "rules classify": (["rules", "classify", "As", "Ks", "Qs", "Js", "Ts", "9s"], ["CARD"]),
    "forms": (["forms", "award", "--case", "1"], ["--case", "--pdf", "--png"]),
    "certs": (["certs", "init", str(TMP / "certs-fuzz"), "--tables", "1"],
              ["--days", "--ca-days", "--tables"]),
}


@settings(FAST, max_examples=400)
@given(command=st.sampled_from(sorted(OPTIONS)), data=st.data(), value=nasty_text)
def test_any_option_value_is_answered_or_refused_in_one_line(command: str, data: Any,
                                                             value: str) -> None:
    base, options = OPTIONS[command]
    option = data.draw(st.sampled_from(options))
    argv = list(base)
    if option == "CARD":
        argv.append(value)
    elif option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    if command == "forms" and option not in ("--pdf", "--png"):
        argv += ["--pdf", ""]  # refused before the ledger: this checks the option first
    if command == "forms" and option in ("--pdf", "--png"):
        argv += ["--db", f"sqlite:///{TMP / 'no-ledger.sqlite3'}"]
    try:
        run(argv, command.split(" PT1")[0])
    finally:  # the folder an accepted `certs init` made
        shutil.rmtree(TMP / "certs-fuzz", ignore_errors=True)
