"""Batch mode of `podium rules classify|bbj|slot` (CLI.md "Batch mode"), and a command line that
imports only what the command uses (core/cli/dispatch.py).

The batch property, checked for sets of good and bad inputs: each output line is what one call of
the command prints for that input line (its ``--json`` document, or its one-line refusal as
``{"line": N, "error": ...}``), and the exit status is 2 when any line was refused, else 0.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import selectors
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main
from core.cli.dispatch import COMMANDS_REPORT, COMMANDS_RULES, COMMANDS_TOP
from tests.core.cli.test_bbj_command import CLI_EXAMPLE, qualifying_example

ROOT = Path(__file__).resolve().parents[3]
# Four Winds, as in tests/core/cli/test_slot_command.py
SCREEN = "R X R N E / G Y X B N / F F E F N"


def one_call(argv: Sequence[str]) -> tuple[int, str, str]:
    """``podium ARGV`` in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's refusals
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def batch(argv: Sequence[str], data: bytes | str,
          monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str], str]:
    """``podium ARGV`` with ``data`` on stdin: (status, stdout lines, stderr)."""
    raw = data.encode() if isinstance(data, str) else data
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    code, out, err = one_call(argv)
    assert out == "" or out.endswith("\n")
    return code, out.splitlines(), err


def check_equal_to_one_call(answer: str, number: int, argv: Sequence[str], *,
                            same_bytes: bool = True) -> bool:
    """The batch's answer to line ``number`` against ``podium ARGV`` run alone; True when the
    line was decided."""
    code, out, err = one_call(argv)
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        assert out == ""
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert json.loads(answer) == {"line": number, "error": err.rstrip("\n")}
        return False
    assert err == ""
    assert json.loads(answer) == json.loads(out)
    if same_bytes:
        assert answer + "\n" == out
    else:  # classify --json is indented; the batch line is the same document on one line
        assert answer == json.dumps(json.loads(out))
    return True


# --- classify -------------------------------------------------------------------------------

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["Jk"]
ODD_TEXTS = ["10c", "10h", "as", "KD", "A♠", "T♥", "joker", "JK", " Qs", "Xx", "1s", "A", "",
             "Ahh", "Jk ", "\u00a0As"]


def classify_lines(n: int, seed: int) -> list[dict[str, Any]]:
    """Seven cards mostly, from the deck and odd spellings; duplicates, wrong counts, joker
    modes good and bad now and then."""
    rng = random.Random(seed)
    docs: list[dict[str, Any]] = []
    for i in range(n):
        count = rng.choice([7] * 12 + [0, 1, 6, 8])
        cards = rng.sample(DECK, min(count, 53))
        if rng.random() < 0.2 and cards:
            cards[rng.randrange(len(cards))] = rng.choice(ODD_TEXTS)
        if rng.random() < 0.05 and len(cards) > 1:
            cards[0] = cards[1]  # a duplicate
        doc: dict[str, Any] = {"cards": cards}
        mode = rng.choice([None, None, "semi", "wild", "wild", "Wild", "x"])
        if mode is not None:
            doc["joker"] = mode
        if i % 5 == 0:
            doc = {"joker": doc.get("joker", "semi"), "cards": cards}  # keys in either order
        docs.append(doc)
    return docs


def classify_argv(doc: dict[str, Any], default: str = "semi") -> list[str]:
    return ["rules", "classify", "--json", "--joker", doc.get("joker", default), "--",
            *doc["cards"]]


@pytest.mark.parametrize("default", ["semi", "wild"])
def test_classify_batch_line_by_line_equals_one_call_per_line(
        monkeypatch: pytest.MonkeyPatch, default: str) -> None:
    docs = classify_lines(400, seed=22 if default == "semi" else 23)
    data = "".join(json.dumps(d, ensure_ascii=bool(i % 2)) + "\n" for i, d in enumerate(docs))
    code, out, err = batch(["rules", "classify", "--batch", "--joker", default], data,
                           monkeypatch)
    assert err == ""
    assert len(out) == len(docs)
    decided = [check_equal_to_one_call(answer, n, classify_argv(doc, default), same_bytes=False)
               for n, (answer, doc) in enumerate(zip(out, docs, strict=True), start=1)]
    assert 0 < sum(decided) < len(docs)  # both kinds of line were tried
    assert code == 2


def test_classify_batch_all_decided_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    data = ('{"cards": ["Jk", "Ac", "Ad", "Ah", "As", "10c", "3d"]}\n'
            '{"cards": ["Jk", "Kc", "Kd", "2h", "5s", "8c", "9d"], "joker": "wild"}\n'
            '{"cards": ["Jk", "Kc", "Kd", "2h", "5s", "8c", "9d"]}')  # no newline at the end
    code, out, err = batch(["rules", "classify", "--batch"], data, monkeypatch)
    assert (code, err) == (0, "")
    assert out == [
        '{"hand": "FIVE_ACES", "cards": ["Jk", "Ac", "Ad", "Ah", "As", "Tc", "3d"]}',
        '{"hand": "THREE_OF_A_KIND", "cards": ["Jk", "Kc", "Kd", "2h", "5s", "8c", "9d"]}',
        '{"hand": "NOTHING", "cards": ["Jk", "Kc", "Kd", "2h", "5s", "8c", "9d"]}',
    ]


def test_classify_batch_refuses_a_line_naming_it_and_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    good = '{"cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"]}'
    lines = [good, "", "not json", "[1]", '{"cards": ["As"]}', '{"hands": []}',
             '{"cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"], "x": 1}',
             '{"cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", 5]}', '{"cards": "As Ks"}',
             '{"cards": {"As": 1}}', '{"cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"], '
             '"joker": true}', '{"cards": [], "cards": []}', "[" * 100 + "]" * 100, good]
    code, out, err = batch(["rules", "classify", "--batch"], "\n".join(lines) + "\n",
                           monkeypatch)
    assert (code, err) == (2, "")
    assert len(out) == len(lines)
    docs = [json.loads(line) for line in out]
    assert docs[0] == docs[-1] == {"hand": "RF_ROYAL_MATCH",
                                   "cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"]}
    errors = {d["line"]: d["error"] for d in docs[1:-1]}
    assert sorted(errors) == list(range(2, len(lines)))
    assert all(e.startswith("podium rules classify: ") and "\n" not in e
               for e in errors.values())
    assert "not valid JSON" in errors[2] and "not valid JSON" in errors[3]
    assert errors[4].endswith("batch line: must be a JSON object, not an array")
    assert errors[5].endswith("cards: expected 7 cards, got 1")
    assert errors[6].endswith("batch line: missing key 'cards'")
    assert errors[7].endswith("batch line: unknown key 'x' (expected cards, joker)")
    assert errors[8].endswith('cards: 5 is not a card string like "As"')
    assert errors[9].endswith("cards: must be a JSON array, not a string")
    assert errors[10].endswith("cards: must be a JSON array, not an object")
    assert errors[11].endswith('joker: must be "semi" or "wild", not a boolean')
    assert errors[12].endswith("key 'cards' appears twice in one object")
    assert "nested too deeply" in errors[13]


def test_classify_batch_reads_bytes_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    good = b'{"cards": ["A\xe2\x99\xa0", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"]}'
    data = good + b"\r\n" + b'{"cards": ["\xff"]}\n' + b"\xef\xbb\xbf" + good + b"\n" + good
    code, out, err = batch(["rules", "classify", "--batch"], data, monkeypatch)
    assert (code, err) == (2, "")
    assert len(out) == 4
    assert json.loads(out[0])["cards"][0] == "As"
    assert json.loads(out[1]) == {"line": 2, "error": "podium rules classify: not UTF-8 text "
                                  "(invalid start byte at byte 12)"}
    assert "BOM" in json.loads(out[2])["error"]
    assert out[3] == out[0]


def test_classify_batch_with_cards_on_the_command_line_is_refused_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = batch(["rules", "classify", "--batch", "As"], '{"cards": []}\n',
                           monkeypatch)
    assert (code, out) == (2, [])
    assert err == ("podium rules classify: cards: not with --batch (the hands come on stdin, "
                   "one JSON line each)\n")
    code, out, err = batch(["rules", "classify", "--batch", "--joker", "x"], "", monkeypatch)
    assert (code, out) == (2, [])
    assert err.startswith("podium rules classify: argument --joker: invalid choice: 'x'")


def test_classify_batch_of_nothing_is_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert batch(["rules", "classify", "--batch"], b"", monkeypatch) == (0, [], "")


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(max_size=80), min_size=1, max_size=6))
def test_classify_batch_never_a_traceback_one_line_out_per_line_in(lines: list[str]) -> None:
    text = "\n".join(line.replace("\n", " ").replace("\r", " ") for line in lines) + "\n"
    src = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stdin", src)
        code, out, err = one_call(["rules", "classify", "--batch"])
    assert code in (0, 2) and err == ""
    answers = out.splitlines()
    # str.splitlines would also break at \x1c, \u2028 ...: the input has exactly len(lines)
    assert len(answers) == len(lines)
    for n, answer in enumerate(answers, start=1):
        doc = json.loads(answer)
        assert "hand" in doc or (doc["line"] == n and "Traceback" not in doc["error"])


# --- bbj ------------------------------------------------------------------------------------

def bbj_cases() -> list[dict[str, Any]]:
    base = qualifying_example()
    cases = [base, CLI_EXAMPLE]
    for change in ({"board": ["Ah", "Ad", "Tc", "7s", "Xx"]}, {"board": ["Ah", "Ah", "Tc", "7s",
                                                                           "7c"]},
                   {"pot": "25.00"}, {"pot": "-1"}, {"dealt_in": [1, 2]}, {"tie": "refuse"},
                   {"voids": ["hand_discussed"]}, {"taxpayers": {"1": "nraetb", "4": "alien"}},
                   {"split": {"winning": "0.5", "losing": "0.5", "table": "0.5"}},
                   {"showdown": [{"seat": 1, "hole": ["As"]}]}, {"main_jackpot": 5},
                   {"extra": 1}):
        case = {**base, **change}
        cases.append(case)
    missing = dict(base)
    del missing["pot"]
    cases.append(missing)
    return cases


def test_bbj_batch_line_by_line_equals_one_call_per_case_file(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cases = bbj_cases()
    texts = [json.dumps(c) for c in cases] + ['{"pot": 1.5}', "[]"]
    code, out, err = batch(["rules", "bbj", "--batch"], "\n".join(texts) + "\n", monkeypatch)
    assert err == "" and len(out) == len(texts)
    decided = []
    for n, (answer, text) in enumerate(zip(out, texts, strict=True), start=1):
        path = tmp_path / f"case-{n}.json"
        path.write_text(text)
        decided.append(check_equal_to_one_call(answer, n, ["rules", "bbj", str(path), "--json"]))
    assert decided[:2] == [True, True] and not all(decided)
    assert code == 2


def test_bbj_batch_all_decided_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.dumps(qualifying_example()) + "\n" + json.dumps(CLI_EXAMPLE) + "\n"
    code, out, err = batch(["rules", "bbj", "--batch"], data, monkeypatch)
    assert (code, err) == (0, "")
    assert [json.loads(o)["qualifies"] for o in out] == [True, False]


def test_bbj_batch_and_a_case_file_together_or_neither_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = batch(["rules", "bbj", "case.json", "--batch"], "", monkeypatch)
    assert (code, out) == (2, [])
    assert err.startswith("podium rules bbj: CASE.json: not with --batch")
    code, out, err = batch(["rules", "bbj", "--json"], "", monkeypatch)
    assert (code, out) == (2, [])
    assert err == "podium rules bbj: the following arguments are required: CASE.json\n"


# --- slot -----------------------------------------------------------------------------------

SLOT_LINES: list[dict[str, Any]] = [
    {"screen": SCREEN},
    {"screen": SCREEN, "bet_per_line": 3, "lines": 2, "free_game": True},
    {"screen": SCREEN, "free_game": False, "lines": None},
    {"screen": SCREEN, "held": "0,1,2", "initial": ["1:G:3"]},
    {"screen": SCREEN, "held": "0,1,2", "initial": ["1:G:3", "2:R:3"], "free_game": True},
    {"screen": "N N N N N / N N N N N / N N N N N"},
    {"screen": SCREEN, "bet_per_line": 0},
    {"screen": SCREEN, "bet_per_line": 1_000_001},
    {"screen": SCREEN, "lines": 6},
    {"screen": SCREEN, "held": "9"},
    {"screen": SCREEN, "initial": ["1:G:3"]},
    {"screen": SCREEN, "initial": ["1:Q:3"], "held": "0"},
    {"screen": SCREEN, "held": "0,1", "initial": ["1:G:3"]},
    {"screen": "R X R"},
    {"screen": "R X Q N E / G Y X B N / F F E F N"},
    {"screen": ""},
]


def slot_argv(doc: dict[str, Any], default_bet: int = 1) -> list[str]:
    argv = ["rules", "slot", "four-winds", "--screen", doc["screen"], "--json",
            "--bet-per-line", str(doc.get("bet_per_line", default_bet))]
    if doc.get("free_game"):
        argv.append("--free-game")
    if doc.get("held") is not None:
        argv += ["--held", doc["held"]]
    for pattern in doc.get("initial", []):
        argv += ["--initial", pattern]
    if doc.get("lines") is not None:
        argv += ["--lines", str(doc["lines"])]
    return argv


@pytest.mark.parametrize("default_bet", [1, 2])
def test_slot_batch_line_by_line_equals_one_call_per_line(
        monkeypatch: pytest.MonkeyPatch, default_bet: int) -> None:
    data = "".join(json.dumps(d) + "\n" for d in SLOT_LINES)
    code, out, err = batch(["rules", "slot", "four-winds", "--batch", "--bet-per-line",
                            str(default_bet)], data, monkeypatch)
    assert err == "" and len(out) == len(SLOT_LINES)
    decided = [check_equal_to_one_call(answer, n, slot_argv(doc, default_bet))
               for n, (answer, doc) in enumerate(zip(out, SLOT_LINES, strict=True), start=1)]
    assert decided[:6] == [True] * 6 and not any(decided[6:])
    assert code == 2


def test_slot_batch_refuses_wrong_json_types_naming_the_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [{"screen": 5}, {"screen": SCREEN, "free_game": "yes"},
             {"screen": SCREEN, "bet_per_line": "2"}, {"screen": SCREEN, "lines": 2.5},
             {"screen": SCREEN, "held": [0, True]}, {"screen": SCREEN, "initial": "1:G:3"},
             {"screen": SCREEN, "spin": 1}, {"free_game": True}]
    data = "".join(json.dumps(d) + "\n" for d in lines)
    code, out, err = batch(["rules", "slot", "four-winds", "--batch"], data, monkeypatch)
    assert (code, err) == (2, "")
    errors = [json.loads(o)["error"].removeprefix("podium rules slot: ") for o in out]
    assert [e.split(":")[0] for e in errors] == [
        "screen", "free_game", "bet_per_line", "lines", "held", "initial", "batch line",
        "batch line"]


def test_slot_batch_held_as_a_list_is_the_held_option(monkeypatch: pytest.MonkeyPatch) -> None:
    as_text = {"screen": SCREEN, "held": "0,1,2", "initial": ["1:G:3"]}
    as_list = {"screen": SCREEN, "held": [0, 1, 2], "initial": ["1:G:3"]}
    data = json.dumps(as_text) + "\n" + json.dumps(as_list) + "\n"
    code, out, err = batch(["rules", "slot", "four-winds", "--batch"], data, monkeypatch)
    assert (code, err) == (0, "")
    assert out[0] == out[1]


@pytest.mark.parametrize("argv", [
    ["rules", "slot", "no-such-game", "--batch"],
    ["rules", "slot", "four-winds", "--batch", "--screen", SCREEN],
    ["rules", "slot", "four-winds", "--batch", "--return"],
    ["rules", "slot", "four-winds", "--batch", "--lines", "0"],
])
def test_slot_batch_bad_game_or_option_is_refused_before_reading(
        monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    code, out, err = batch(argv, json.dumps({"screen": SCREEN}) + "\n", monkeypatch)
    assert (code, out) == (2, [])
    assert len(err.splitlines()) == 1 and err.startswith("podium rules slot: ")
    assert sys.stdin.read() != ""  # nothing was read


# --- a process: answers as they are asked, and the imports of a start -----------------------

def test_batch_answers_each_line_before_the_next_arrives() -> None:
    """A script may keep `podium rules classify --batch` open and ask one hand at a time."""
    proc = subprocess.Popen([sys.executable, "-m", "core.cli", "rules", "classify", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    # a selector, not select.select: the whole suite runs with more than 1,024 files open
    waiting = selectors.DefaultSelector()
    waiting.register(proc.stdout, selectors.EVENT_READ)
    try:
        for cards in (["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"], ["2c", "2d", "2h"]):
            proc.stdin.write(json.dumps({"cards": cards}).encode() + b"\n")
            proc.stdin.flush()
            assert waiting.select(60), "no answer within 60 s"
            answer = json.loads(proc.stdout.readline())
            assert ("hand" in answer) == (len(cards) == 7)
        proc.stdin.close()
        assert proc.wait(60) == 2
    finally:
        waiting.close()
        proc.kill()
        proc.wait(30)


HEAVY = ("sqlalchemy", "alembic", "PySide6", "numpy", "eval7", "core.ledger", "core.desks.desk",
         "core.people.auth", "core.floorconfig", "gui", "printing")
PROBE = """
import atexit, sys
def heavy():
    found = sorted({m for m in sys.modules for h in HEAVY if m == h or m.startswith(h + ".")})
    sys.stderr.write("HEAVY " + " ".join(found) + "\\n")
atexit.register(heavy)
from core.cli import main
sys.exit(main(ARGV))
"""


def imported_heavy(argv: list[str], stdin: str = "", heavy: Sequence[str] = HEAVY) -> list[str]:
    code = PROBE.replace("HEAVY", repr(tuple(heavy)), 1).replace("ARGV", repr(argv))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120, check=False)
    assert proc.returncode in (0, 2), proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("HEAVY"), proc.stderr
    return last.split()[1:]


@pytest.mark.parametrize("argv", [
    ["rules", "classify", "As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh", "--json"],
    ["rules", "classify", "As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"],
    ["rules", "classify", "As", "Ks"],
    ["rules", "classify", "--batch"],
    ["rules", "paytables", "--json"],
    ["rules", "slot", "four-winds", "--screen", SCREEN, "--json"],
    ["--help"],
    ["rules", "--help"],
    ["report", "--help"],
    ["rules", "classify", "--help"],
])
def test_rules_commands_and_help_import_no_ledger_qt_or_numpy(argv: list[str]) -> None:
    stdin = '{"cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"]}\n'
    assert imported_heavy(argv, stdin) == []


def test_bbj_imports_eval7_but_no_ledger_or_qt() -> None:
    argv = ["rules", "bbj", "--batch"]
    line = json.dumps(qualifying_example()) + "\n"
    assert imported_heavy(argv, line, heavy=[h for h in HEAVY if h != "eval7"]) == []
    assert "eval7" in imported_heavy(argv, line, heavy=("eval7",))


def test_building_the_parser_imports_no_command_module() -> None:
    modules = sorted({m for table in (COMMANDS_RULES, COMMANDS_REPORT, COMMANDS_TOP)
                      for m, _ in table.values()})
    code = ("import sys; from core.cli.dispatch import build_parser; build_parser(); "
            f"print([m for m in {modules!r} if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=True)
    assert proc.stdout.strip() == "[]"


def test_every_command_still_shows_its_help() -> None:
    code, out, _ = one_call(["--help"])
    assert code == 0
    for name in (*COMMANDS_TOP, "rules", "report"):
        assert name in out
    for group, table in (("rules", COMMANDS_RULES), ("report", COMMANDS_REPORT)):
        code, out, _ = one_call([group, "--help"])
        assert code == 0 and all(name in out for name in table)
    for argv in (["rules", name, "--help"] for name in COMMANDS_RULES):
        code, out, _ = one_call(argv)
        assert code == 0 and out.startswith(f"usage: podium rules {argv[1]}")
    code, out, _ = one_call(["rules", "classify", "--help"])
    assert all(option in out for option in ("CARD", "--joker", "--json", "--batch"))


def test_meter_with_listed_hands_imports_no_numpy(tmp_path: Path) -> None:
    """`podium rules meter` needs the exact count (numpy) only for a hand its paytable does not
    list (core/tablegames/rules/claims.py)."""
    scenario = {"paytable": "FPGPP-WA01",
                "levels": {"MAIN": {"seed": "10000.00", "meter": "12345.67", "reserve": "250.00",
                                    "contribution_rate": "0.20", "reserve_rate": "0.02"}},
                "rounds": [{"wagers": {"1": "1.00", "2": "1.00", "6": "1.00"},
                            "hits": {"2": "SF7_NATURAL", "6": "RF_ROYAL_MATCH"}}]}
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    assert imported_heavy(["rules", "meter", str(path), "--json"]) == []
