"""The floor file's declared settings (core/floorconfig/schema.py): each setting declared once,
the parser reading nothing undeclared, the declared defaults the ones that hold, and
docs/floor-file.md made from the declarations."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import core.floorconfig
from core.floorconfig import FloorConfig, load_demo_floor, loads_floor
from core.floorconfig.reference import SECTIONS, page_with_reference, reference
from core.floorconfig.schema import _SETTING, REGISTRY, REQUIRED, Setting, _Section, toml_text

ROOT = Path(__file__).resolve().parents[3]

MINIMAL = """
[casino]
name = "C"
timezone = "Asia/Manila"

[authorization]
executive_threshold = "5000.00"

[controller_link]
ca = "ca.pem"
cert = "console.pem"
key = "console.key"

[[groups]]
id = "G1"
paytable = "FPGPP-WA01"
[groups.levels.MAIN]
seed = "10000.00"
contribution_rate = "0.20"
reserve_rate = "0.02"

[[tables]]
id = "T1"
group = "G1"
host = "127.0.0.1"
port = 17301
"""


def _declared_classes() -> Iterator[type]:
    for name in core.floorconfig.__all__:
        obj = getattr(core.floorconfig, name)
        if isinstance(obj, type) and dataclasses.is_dataclass(obj):
            yield obj


def test_each_setting_is_declared_once() -> None:
    seen: dict[tuple[str, str], Setting] = {}
    for s in REGISTRY:
        assert (s.section, s.key) not in seen, f"[{s.section}] {s.key} is declared twice"
        assert s.section in SECTIONS, f"[{s.section}] is not in the reference's sections"
        assert s.doc.strip() and "\n" not in s.doc, f"[{s.section}] {s.key}: a one-line doc"
        seen[(s.section, s.key)] = s
    assert len(seen) == len(REGISTRY) > 80


def test_a_field_declared_as_a_setting_takes_its_default_from_the_declaration() -> None:
    """The dataclass default IS the declared default (no second copy to drift)."""
    checked = 0
    for cls in _declared_classes():
        for f in dataclasses.fields(cls):
            decl = f.metadata.get(_SETTING)
            if decl is None:
                continue
            checked += 1
            if decl.default is REQUIRED:
                assert f.default is dataclasses.MISSING, f"{cls.__name__}.{f.name}"
            else:
                assert f.default == decl.default, f"{cls.__name__}.{f.name}"
    assert checked > 50


def _section_of(path: str) -> str:
    """``groups[0].levels.MAIN`` -> ``groups.levels.NAME``: the section a reader's path is."""
    path = re.sub(r"\[\d+\]", "", path)
    return re.sub(r"^groups\.levels\..*$", "groups.levels.NAME", path)


def _keys_read(monkeypatch: pytest.MonkeyPatch, text: str) -> set[tuple[str, str]]:
    read: set[tuple[str, str]] = set()
    get = _Section._get

    def recording(self: _Section, key: str, default: object) -> object:
        read.add((self.path, key))
        return get(self, key, default)

    monkeypatch.setattr(_Section, "_get", recording)
    loads_floor(text)
    monkeypatch.undo()
    return read


def _every_key_floor() -> str:
    """MINIMAL with every optional key written as its documented default."""
    return MINIMAL.replace('[casino]\n', '[casino]\n' + _defaults("casino")) \
        .replace('[authorization]\n', '[authorization]\n' + _defaults("authorization")) \
        .replace('[[groups]]\n', '[[groups]]\n' + _defaults("groups")) \
        .replace('[groups.levels.MAIN]\n', '[groups.levels.MAIN]\n'
                 + _defaults("groups.levels.NAME")) \
        .replace('[[tables]]\n', '[[tables]]\n' + _defaults("tables")) \
        + "\n[surveillance]\n" + _defaults("surveillance") \
        + "\n[printer]\n" + _defaults("printer") + _defaults('printer (kind = "file")') \
        + "\n[poker_room]\n" + _defaults("poker_room") \
        + "\n[poker_room.split]\n" + _defaults("poker_room.split")


def _defaults(section: str) -> str:
    """``key = default`` for each setting of ``section`` whose default is TOML."""
    lines = []
    for s in REGISTRY:
        if s.section == section and s.default_in_toml():  # not "required", "the id", ...
            lines.append(f"{s.key} = {s.file_default()}\n")
    return "".join(lines)


def test_the_documented_defaults_are_the_defaults() -> None:
    """A file writing every optional key as the reference shows its default is the file that
    leaves them out (the poker room's defaults live in its rules' own settings)."""
    every = _every_key_floor()
    assert every.count("\n") > MINIMAL.count("\n") + 50
    assert _same(loads_floor(every), loads_floor(MINIMAL))


def test_the_network_printer_defaults_are_the_defaults() -> None:
    given = MINIMAL + '\n[printer]\nkind = "network"\nhost = "10.0.0.9"\n'
    every = given + _defaults('printer (kind = "network")')
    assert loads_floor(every).printer == loads_floor(given).printer


def _same(a: FloorConfig, b: FloorConfig) -> bool:
    return dataclasses.replace(a, sha256="") == dataclasses.replace(b, sha256="")


def test_every_key_the_parser_reads_is_declared(monkeypatch: pytest.MonkeyPatch) -> None:
    declared = {(s.section, s.key) for s in REGISTRY}
    demo = (ROOT / "resources" / "floors" / "demo.toml").read_text(encoding="utf-8")
    network = MINIMAL + '\n[printer]\nkind = "network"\nhost = "10.0.0.9"\n'
    read: set[tuple[str, str]] = set()
    for text in (_every_key_floor(), demo, network):
        read |= _keys_read(monkeypatch, text)
    undeclared = []
    for path, key in read:
        if path == "" or path.endswith("levels"):  # the sections; the level names
            continue
        section = _section_of(path)
        if section == "printer" and (section, key) not in declared:
            section = ('printer (kind = "network")' if any(
                s.key == key for s in REGISTRY if s.section.endswith('"network")'))
                else 'printer (kind = "file")')
        if (section, key) not in declared:
            undeclared.append(f"[{section}] {key}")
    assert not undeclared
    assert len(read) > 80


def test_the_floor_file_reference_is_what_the_declarations_make() -> None:
    """docs/floor-file.md lists every key with its default; remake it with
    ``python -m core.floorconfig.reference --write docs/floor-file.md``."""
    page = (ROOT / "docs" / "floor-file.md").read_text(encoding="utf-8")
    assert page == page_with_reference(page)
    for s in REGISTRY:
        assert f"| `{s.key}` |" in page
    assert reference().count("\n| `") == len(REGISTRY)


def test_a_default_named_in_the_prose_docs_is_the_declared_one() -> None:
    """README and docs/ say "`key` (default X" in prose here and there; X is the default the
    code holds (keys declared in one section only)."""
    keys = Counter(s.key for s in REGISTRY)
    declared = {s.key: s for s in REGISTRY if keys[s.key] == 1 and s.default_in_toml()}
    said = re.compile(r"`(\w+)` \(default `?([^:;),`]+)")

    def plain(value: str) -> str:
        return value.strip().strip('"').replace(",", "")

    checked = 0
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for key, value in said.findall(page.read_text(encoding="utf-8")):
            if key in declared:
                checked += 1
                assert plain(value) == plain(declared[key].file_default()), (page.name, key)
    assert checked >= 3


@pytest.mark.parametrize(("kind", "value", "text"), [
    ("money", 1_000_000, '"10000.00"'), ("rate", Decimal("0.05"), '"0.05"'),
    ("bool", False, "false"), ("integer", 5, "5"), ("seconds", 2.0, "2.0"),
    ("value", (500, 100), "[500, 100]"),
])
def test_a_default_is_shown_as_the_file_writes_it(kind: str, value: Any, text: str) -> None:
    assert toml_text(kind, value) == text


def test_every_kind_has_words_in_the_reference() -> None:
    from typing import get_args

    from core.floorconfig.reference import _KIND_WORDS
    from core.floorconfig.schema import Kind

    assert set(_KIND_WORDS) == set(get_args(Kind))


def test_the_package_example_is_a_floor_file() -> None:
    doc = core.floorconfig.__doc__ or ""
    example = "\n".join(line[4:] for line in doc.split("::", 1)[1].splitlines())
    assert loads_floor(example).table("PG-1").group == "WA01"


def test_the_demo_floor_still_loads() -> None:
    assert load_demo_floor().authorization.separate_verifier_cents == 1_000_000


def test_no_floorconfig_module_is_over_500_lines() -> None:
    for module in (ROOT / "core" / "floorconfig").glob("*.py"):
        lines = module.read_text(encoding="utf-8").count("\n")
        assert lines <= 500, f"{module.name}: {lines} lines"
