"""Property tests of the floor file (issue 12): mutations of the demo floor (values of the wrong
type, random ids, hosts and numbers as strings, deleted and duplicated keys and tables, damaged
TOML) are accepted or refused with one line naming the file; never another exception.  Through
``podium certs init DIR --floor FILE`` a refused file is exit status 2 and one stderr line.

``COUNTS`` tallies the outcomes (``benchmarks/fuzz_wire_counts.py`` prints them).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import tempfile
import tomllib
from collections import Counter
from datetime import date, datetime, time
from importlib import resources
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli.dispatch import main as podium
from core.controllers import certs
from core.controllers.frames import Hello
from core.controllers.protocol import decode_frame, encode_frame
from core.floorconfig import (
    FloorConfigError,
    load_floor,
    loads_floor,
    machine,
    parse_floor,
    same_id,
    validate,
)
from core.tablegames.rules.paytables import load_paytables

COUNTS: Counter[str] = Counter()
PAYTABLES = load_paytables()
DEMO_TEXT = resources.files("resources.floors").joinpath("demo.toml").read_text("utf-8")
DEMO: dict[str, Any] = tomllib.loads(DEMO_TEXT)
SOURCE = "fuzz.toml"


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(DEMO)
KEYS = sorted({p[-1] for p in PATHS if isinstance(p[-1], str)})

# --- values -----------------------------------------------------------------------------------

numbers_as_text = st.one_of(
    st.from_regex(r"[+-]?[0-9]{0,25}(\.[0-9]{0,8})?([eE][+-]?[0-9]{1,4})?", fullmatch=True),
    st.from_regex(r"[0-9,._ ]{0,20}", fullmatch=True),
    st.sampled_from(["1e30", "1E+999999999", "NaN", "inf", "-0", "0x10", "١٠٠", "5000.001",
                     "999999999999999.99", "10000000000.01", "0.0000001", "1,00", " 7 "]),
    st.decimals(allow_nan=True).map(str),
)
ids = st.one_of(
    st.text(max_size=80),
    st.text(alphabet=st.characters(codec="ascii"), max_size=70),
    st.sampled_from(["PG-1", "pg-1", "PG-1\n", " PG-1", "G" * 64, "G" * 65, "T" * 1000, "",
                     "\t", "PG/1", ".pg", "ＰＧ-1", "WA01", "wa01", "MAIN", "main"]),
)
hosts = st.one_of(
    st.sampled_from(["127.0.0.1", "localhost", "LOCALHOST.", "::1", "127.0.0.2", "0.0.0.0",
                     "::ffff:127.0.0.1", "[::1]", "10.0.0.5", "pg1.casino.local", "a b",
                     "x" * 300, "mesa-ñ.casino", "-pg", "fe80::1%eth0", "999.1.1.1"]),
    st.text(max_size=40),
    st.from_regex(r"[a-zA-Z0-9.:\-\[\]%]{0,30}", fullmatch=True),
)
scalars = st.one_of(
    st.booleans(), st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-(10**400), max_value=10**400), st.floats(), st.text(max_size=30),
    numbers_as_text, ids, hosts, st.dates(), st.datetimes(), st.times(),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=8)


# --- mutations of the demo floor as data --------------------------------------------------------

def _parent(data: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    node = data
    for key in path[:-1]:
        node = node[key]
    return node, path[-1]


@st.composite
def mutated_floors(draw: st.DrawFn) -> dict[str, Any]:
    data = copy.deepcopy(DEMO)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        try:
            parent, key = _parent(data, path)
            parent[key]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced it
        how = draw(st.sampled_from(["value", "value", "id", "host", "number", "delete",
                                    "duplicate", "unknown", "swap"]))
        if how == "value":
            parent[key] = draw(values)
        elif how == "id":
            parent[key] = draw(ids)
        elif how == "host":
            parent[key] = draw(hosts)
        elif how == "number":
            parent[key] = draw(numbers_as_text)
        elif how == "delete":
            del parent[key]
        elif how == "duplicate":
            if isinstance(parent, list):
                parent.append(copy.deepcopy(parent[key]))
            elif isinstance(parent, dict):
                parent[draw(st.sampled_from(KEYS))] = copy.deepcopy(parent[key])
        elif how == "unknown" and isinstance(parent, dict):
            parent[draw(st.text(max_size=12))] = draw(values)
        elif how == "swap" and isinstance(parent, list) and len(parent) > 1:
            parent.reverse()
    # the tables' own fields are what issue 12 is about: one more change there, often
    tables = data.get("tables")
    if isinstance(tables, list) and tables and draw(st.booleans()):
        t = draw(st.sampled_from(tables))
        if isinstance(t, dict):
            t[draw(st.sampled_from(["id", "host", "port", "seats", "decks", "group"]))] = \
                draw(st.one_of(ids, hosts, st.integers(-5, 70_000), values))
    return data


# --- TOML text of the data (tomllib reads; nothing here writes TOML) ---------------------------

def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else str(v)
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == float("inf") else
                                     "-inf" if v == float("-inf") else repr(v))
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, (date, time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)} = {_toml_value(x)}"
                               for k, x in v.items()) + "}"
    return json.dumps(str(v))


def to_toml(data: dict[str, Any]) -> str:
    """Every top-level key as an inline value (valid TOML for what tomllib produced; the fuzzed
    strings may still make it invalid, which the floor must refuse as such)."""
    return "".join(f"{json.dumps(k, ensure_ascii=False)} = {_toml_value(v)}\n"
                   for k, v in data.items())


@st.composite
def damaged_texts(draw: st.DrawFn) -> str:
    text = DEMO_TEXT
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 200)))
        how = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        if how == "delete":
            text = text[:i] + text[j:]
        elif how == "insert":
            text = text[:i] + draw(st.text(max_size=40)) + text[i:]
        elif how == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + draw(st.sampled_from(["[", "]", "\"", "=", "\n", "[[tables]]\n",
                                                    "{", "'''", "\\u0000", "1e30"])) + text[j:]
    return text


# --- the property -------------------------------------------------------------------------------

def _check_accepted(cfg: Any) -> None:
    """What an accepted floor promises: every table can come online and is one table."""
    seen: set[str] = set()
    endpoints: set[tuple[str, int]] = set()
    for t in cfg.tables:
        certs.check_name(t.id)
        hello = Hello(t.id, "b1", "FPGPP-WA01", 1, 6)
        assert decode_frame(encode_frame(hello)) == hello
        assert same_id(t.id) not in seen
        seen.add(same_id(t.id))
        assert (machine(t.host), t.port) not in endpoints
        endpoints.add((machine(t.host), t.port))
        assert 1 <= t.port <= 65535 and 1 <= t.seats <= 10


def outcome(load: Any, target: str) -> str:
    """``load()`` either returns a floor that validates (or is refused by validate) or raises
    FloorConfigError with one line naming the file; anything else fails the test."""
    try:
        cfg = load()
        validate(cfg, PAYTABLES)
    except FloorConfigError as exc:
        msg = str(exc)
        assert msg.startswith(SOURCE) or msg.startswith("/"), msg
        assert "\n" not in msg and "\r" not in msg, msg
        COUNTS[f"{target}: refused"] += 1
        return "refused"
    _check_accepted(cfg)
    COUNTS[f"{target}: accepted"] += 1
    return "accepted"


@settings(max_examples=400, deadline=None)
@given(mutated_floors())
def test_a_mutated_floor_is_accepted_or_refused_by_name(data: dict[str, Any]) -> None:
    outcome(lambda: parse_floor(data, SOURCE), "floor data (parse_floor)")


@settings(max_examples=200, deadline=None)
@given(mutated_floors())
def test_a_mutated_floor_file_is_accepted_or_refused_by_name(data: dict[str, Any]) -> None:
    outcome(lambda: loads_floor(to_toml(data), SOURCE), "floor text (loads_floor)")


@settings(max_examples=300, deadline=None)
@given(st.one_of(damaged_texts(), st.text(max_size=300)))
def test_a_damaged_or_random_toml_text_is_accepted_or_refused_by_name(text: str) -> None:
    outcome(lambda: loads_floor(text, SOURCE), "damaged/random TOML (loads_floor)")


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(mutated_floors().map(to_toml), damaged_texts(),
                 st.sampled_from(["x = " + "[" * 3000 + "]" * 3000,
                                  "#" + "x" * 1_000_001, "\ufeff[casino]\n"])))
def test_podium_certs_init_with_a_fuzzed_floor_file_exits_0_or_2_with_one_line(
        text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        floor = Path(tmp) / "floor.toml"
        floor.write_text(text, encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = podium(["certs", "init", str(Path(tmp) / "pki"), "--floor", str(floor)])
        lines = err.getvalue().splitlines()
        COUNTS[f"podium certs init --floor: exit {code}"] += 1
        if code == 0:
            assert lines == []
            load_floor(floor)  # what the command took, the floor takes
        else:
            assert code == 2 and len(lines) == 1, (code, lines)
            assert lines[0].startswith("podium certs init: ")
