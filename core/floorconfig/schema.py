"""The floor file's declared settings and the reader that applies them.

Each setting is declared ONCE (qutebrowser's ``configdata``): its section, key, type, bounds,
default, unit and a one-line doc.  A setting of a floor dataclass is declared by its field::

    hit_alert_minutes: int = setting(kind="integer", lo=1, hi=240, default=5, unit="minutes",
                                     doc="a hit waiting this long turns red and sounds once")

``setting`` returns a dataclass field whose default is the declared one and whose metadata holds
the :class:`Setting`; :func:`section` names the class's ``[section]`` and registers its settings;
``_Section.read`` reads one setting from the file with the declared key, bounds and default.
Settings whose value lives in another module's dataclass (the poker room's rules, fund and
calendar) are declared with :func:`declare`, their defaults taken from that dataclass.
Every declaration is in :data:`REGISTRY` (``core/floorconfig/reference.py`` writes the floor-file
reference in docs/floor-file.md from it).

Money is written as text in the file ("10000.00") and held in integer cents; rates as text
("0.05") and held as ``Decimal``.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, time
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, TypeVar, dataclass_transform

from core.controllers.frames import MAX_AMOUNT_CENTS
from core.kernel.money import json_cents, parse_cents, parse_rate
from core.kernel.text import printable

T = TypeVar("T")
C = TypeVar("C")


class FloorConfigError(ValueError):
    """A floor configuration the system refuses; the message names file, key and problem
    (on one line: what the file says is shown without its control characters)."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


# --- declarations -----------------------------------------------------------------------------

class _Required:
    """The default of a setting the file must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

Kind = Literal[
    "text",     # a string; not empty unless empty_ok; stripped when strip
    "line",     # a string with its runs of white space made one space, at most hi characters
    "string",   # a string as it is (check names what is wrong with it)
    "integer",  # a whole number from lo to hi
    "seconds",  # a number more than 0 and at most hi (an int is taken as a float)
    "money",    # text such as "10000.00", held in cents; at most the protocol's largest amount
    "rate",     # text such as "0.05", held as a Decimal
    "choice",   # one of choices
    "bool",     # true or false
    "list",     # a TOML array (check names what is wrong with its items)
    "value",    # anything parse accepts (lists, dates, clock times)
    "path",     # a file path, relative ones read from the floor file's folder
    "table",    # a sub-table or array of tables (documented, read by its own parser)
]

_SETTING = "podium.setting"


@dataclass(frozen=True)
class Setting:
    """One key of the floor file, declared once."""

    kind: Kind
    doc: str  # one line: what it does
    default: Any = REQUIRED  # the value held (cents for money); REQUIRED: the file must say
    key: str = ""  # the key in the file ("": the field's name)
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    unit: str = ""
    positive: bool = False  # money: more than 0.00
    share: str = ""  # rate: more than 0 and less than 1; the hint after the refusal
    empty_ok: bool = False  # text: "" accepted
    strip: bool = False  # text: surrounding white space dropped
    optional: bool = False  # absent: None (and not among the "known keys" of a refusal)
    check: Callable[[Any], str] | None = None  # "" or what is wrong with the value read
    parse: Callable[[Any, str], Any] | None = None  # kind "value": the value's parser
    shown_default: str = ""  # the default as the reference shows it ("": from default)
    form: str = ""  # the value's form as the reference shows it ("": from kind)
    rule: str = ""  # the bounds in words where check holds them ("": from lo, hi, ...)
    section: str = ""  # "casino", "groups", "groups.levels.NAME", ... (set by section/declare)
    # a limit a regulator's guideline fixes (held form: cents, Decimal, int; None: none), and
    # where it says so in its own words: a value past it is refused naming the limit
    least: Any = None
    most: Any = None
    guideline: str = ""

    def __post_init__(self) -> None:
        """A declaration the reader can not apply is a programming error, found at import."""
        where = f"setting {self.key or repr(self.doc)}"
        needs = {"integer": self.lo is not None and self.hi is not None,
                 "seconds": self.hi is not None, "line": self.hi is not None,
                 "choice": bool(self.choices), "value": self.parse is not None}
        if not needs.get(self.kind, True):
            raise TypeError(f"{where}: a {self.kind} needs its bounds, choices or parser")
        if (self.least is not None or self.most is not None) != bool(self.guideline):
            raise TypeError(f"{where}: a guideline's limit names its guideline, and only it")
        if self.default is REQUIRED or self.default is None:
            return
        if self.guideline_problem(self.default):
            raise TypeError(f"{where}: default {self.default!r} is past its guideline's limit")
        if self.kind == "choice" and self.default not in self.choices:
            raise TypeError(f"{where}: default {self.default!r} is not one of its choices")
        if self.kind == "integer" and not (self.lo or 0) <= self.default <= (self.hi or 0):
            raise TypeError(f"{where}: default {self.default!r} is out of its bounds")
        if self.kind == "money" and (isinstance(self.default, bool)
                                     or not isinstance(self.default, int)):
            raise TypeError(f"{where}: money is held in integer cents, not {self.default!r}")

    def file_default(self) -> str:
        """The default as the floor file would write it (what the reference shows)."""
        if self.shown_default:
            return self.shown_default
        if self.default is REQUIRED:
            return "required"
        if self.optional and self.default is None:
            return "none"
        return toml_text(self.kind, self.default)

    def default_in_toml(self) -> bool:
        """Whether :meth:`file_default` is a TOML value (not words: "required", "the id")."""
        if self.default is REQUIRED or (self.optional and self.default is None):
            return False
        try:
            tomllib.loads(f"x = {self.file_default()}")
        except tomllib.TOMLDecodeError:
            return False
        return True

    def guideline_problem(self, value: Any) -> str:
        """What is wrong with ``value`` against the guideline's limit ("" when within it): the
        value, the limit and the guideline's words."""
        if not self.guideline:
            return ""
        if self.least is not None and self.least == self.most:
            if value == self.least:
                return ""
            return (f"{self._shown(value)} is not the guideline's {self._shown(self.least)}, "
                    f"which it fixes ({self.guideline})")
        if self.most is not None and value > self.most:
            return (f"{self._shown(value)} is above the guideline's limit of at most "
                    f"{self._shown(self.most)} ({self.guideline})")
        if self.least is not None and value < self.least:
            return (f"{self._shown(value)} is below the guideline's limit of at least "
                    f"{self._shown(self.least)} ({self.guideline})")
        return ""

    def _shown(self, value: Any) -> str:
        return json_cents(value) if self.kind == "money" else str(value)

    def limit_words(self) -> str:
        """The guideline's limit in words ("" when none), for the reference."""
        if not self.guideline:
            return ""
        if self.least is not None and self.least == self.most:
            limit = f"exactly {self._shown(self.least)}"
        elif self.most is not None:
            limit = f"at most {self._shown(self.most)}"
        else:
            limit = f"at least {self._shown(self.least)}"
        return f"{limit} ({self.guideline.split(':', 1)[0]})"

    def bounds(self) -> str:
        """The bounds in words ("" when none); a guideline's limit after them."""
        limit = self.limit_words()
        if limit and self.least == self.most:
            return limit
        plain = self._plain_bounds()
        return f"{plain}; {limit}" if plain and limit else plain or limit

    def _plain_bounds(self) -> str:
        if self.rule:
            return self.rule
        if self.kind == "integer":
            return f"{self.lo} to {self.hi}"
        if self.kind == "seconds":
            return f"more than 0, at most {self.hi}"
        if self.kind == "money":
            return "more than 0.00" if self.positive else "0.00 or more"
        if self.kind == "rate":
            return "more than 0, less than 1" if self.share else "0 to 1"
        if self.kind == "choice":
            return " | ".join(f'"{c}"' for c in self.choices)
        if self.kind == "line":
            return f"at most {self.hi} characters"
        if self.kind == "text" and not self.empty_ok:
            return "not empty"
        return ""


def toml_text(kind: str, value: object) -> str:
    """A held value as the floor file writes it."""
    if kind == "money" and isinstance(value, int):
        return f'"{json_cents(value)}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, Decimal, date)):
        return f'"{value}"'
    if isinstance(value, time):
        return f'"{value:%H:%M}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_text(kind, v) for v in value) + "]"
    return str(value)


def setting(*, kind: Kind, doc: str, default: Any = REQUIRED, **declared: Any) -> Any:
    """A field of a :func:`section` class declaring a floor-file setting: its default is the
    declared one (none: the file must give it)."""
    decl = Setting(kind, doc, default, **declared)
    metadata = {_SETTING: decl}
    if default is REQUIRED:
        return field(metadata=metadata)
    return field(default=default, metadata=metadata)


REGISTRY: list[Setting] = []
_BY_CLASS: dict[type, dict[str, Setting]] = {}


@dataclass_transform(frozen_default=True, field_specifiers=(field, setting))
def section(name: str) -> Callable[[type[C]], type[C]]:
    """Class decorator: a frozen dataclass whose settings belong to ``[name]``; registers each."""
    def register(cls: type[C]) -> type[C]:
        cls = dataclass(frozen=True)(cls)
        found: dict[str, Setting] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            decl = f.metadata.get(_SETTING)
            if decl is None:
                continue
            decl = dataclasses.replace(decl, key=decl.key or f.name, section=name)
            found[f.name] = decl
            REGISTRY.append(decl)
        _BY_CLASS[cls] = found
        return cls
    return register


def declare(name: str, *settings: Setting) -> dict[str, Setting]:
    """Settings of ``[name]`` that fill no floor dataclass field (their value lives in another
    module's settings), by key."""
    out: dict[str, Setting] = {}
    for decl in settings:
        decl = dataclasses.replace(decl, section=name)
        out[decl.key] = decl
        REGISTRY.append(decl)
    return out


def settings_of(cls: type) -> dict[str, Setting]:
    """A declared class's settings by field name, in field order."""
    return _BY_CLASS[cls]


def the(cls: type, attr: str) -> Setting:
    """The declaration of ``cls``'s field ``attr``."""
    return _BY_CLASS[cls][attr]


# --- reading one TOML table with its declared keys --------------------------------------------

_MISSING: Any = object()
_NO_OVERRIDE: Any = object()


class _Section:
    """One TOML table: typed getters that name ``file: key`` in every error; ``done``
    refuses the keys nobody asked for."""

    def __init__(self, source: str, path: str, data: object) -> None:
        self.source = source
        self.path = path
        if not isinstance(data, dict):
            raise self.error("", f"must be a table, not {type(data).__name__}")
        self.data: dict[str, object] = data
        self.used: set[str] = set()

    def key(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path and key else (self.path or key)

    def error(self, key: str, problem: str) -> FloorConfigError:
        return FloorConfigError(f"{self.source}: {self.key(key) or '(top level)'}: {problem}")

    def _get(self, key: str, default: object) -> object:
        self.used.add(key)
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise self.error(key, "missing")
        return default

    def typed(self, key: str, kind: type[T], default: object = _MISSING) -> T:
        value = self._get(key, default)
        if kind is int and isinstance(value, bool):
            raise self.error(key, f"{value!r} must be a whole number")
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            try:
                value = float(value)
            except OverflowError:
                raise self.error(key, f"{shown(value)} is far too large") from None
        if not isinstance(value, kind):
            raise self.error(key, f"{value!r} must be {_KIND_NAMES.get(kind, kind.__name__)}")
        return value

    def text(self, key: str, default: object = _MISSING, *, empty_ok: bool = False) -> str:
        value = self.typed(key, str, default)
        if not empty_ok and not value.strip():
            raise self.error(key, "must not be empty")
        return value

    def integer(self, key: str, lo: int, hi: int, default: object = _MISSING) -> int:
        value = self.typed(key, int, default)
        if not lo <= value <= hi:
            raise self.error(key, f"{value} must be between {lo} and {hi}")
        return value

    def choice(self, key: str, choices: Iterable[str], default: object = _MISSING) -> str:
        value = self.typed(key, str, default)
        allowed = tuple(choices)
        if value not in allowed:
            raise self.error(key, f"{value!r} must be one of {', '.join(allowed)}")
        return value

    def convert(self, key: str, parse: Callable[[Any, str], T], default: object = _MISSING) -> T:
        value = self._get(key, default)
        if isinstance(value, float):
            raise self.error(key, f"{value!r} is a TOML float; write it as a string, "
                                  f"e.g. \"{value}\" (money and rates are exact)")
        try:
            return parse(value, self.key(key))
        except ValueError as exc:
            raise FloorConfigError(f"{self.source}: {exc}") from None

    def read(self, s: Setting, default: Any = _NO_OVERRIDE) -> Any:
        """The value of setting ``s`` (its declared default when the file leaves it out, or
        ``default`` where the default depends on another key, e.g. a name on its id)."""
        key = s.key
        if s.optional and key not in self.data:
            return None
        held = s.default if default is _NO_OVERRIDE else default
        given = _MISSING if held is REQUIRED else held
        value: Any
        if key not in self.data and given is not _MISSING and s.kind in ("money", "rate",
                                                                          "value"):
            self.used.add(key)  # the declared default is held already parsed
            return given
        if s.kind in ("text", "path"):
            value = self.text(key, given, empty_ok=s.empty_ok)
            value = value.strip() if s.strip else value
        elif s.kind == "line":
            value = " ".join(self.text(key, given, empty_ok=True).split())
            if s.hi is not None and len(value) > s.hi:
                raise self.error(key, f"{len(value)} characters: at most {s.hi}")
        elif s.kind == "string":
            value = self.typed(key, str, given)
        elif s.kind == "integer":
            assert s.lo is not None and s.hi is not None
            value = self.integer(key, s.lo, s.hi, given)
        elif s.kind == "seconds":
            value = self.typed(key, float, given)
            if not 0 < value <= (s.hi or 0):
                raise self.error(key, f"{value} must be more than 0 and at most {s.hi} seconds")
        elif s.kind == "money":
            value = self.convert(key, cents, given)
            if s.positive and value <= 0:
                raise self.error(key, "must be more than 0.00")
        elif s.kind == "rate":
            value = self.convert(key, parse_rate, given)
            if s.share and not 0 < value < 1:
                raise self.error(key, f"{value} must be more than 0 and less than 1 ({s.share})")
        elif s.kind == "choice":
            value = self.choice(key, s.choices, given)
        elif s.kind == "bool":
            value = self.typed(key, bool, given)
        elif s.kind == "list":
            value = self.typed(key, list, given)
        elif s.kind == "value":
            assert s.parse is not None
            value = self.convert(key, s.parse, given)
        else:
            raise TypeError(f"{s.section}.{key}: a {s.kind} is read by its own parser")
        if s.check is not None:
            problem = s.check(value)
            if problem:
                raise self.error(key, problem)
        problem = s.guideline_problem(value)
        if problem:
            raise self.error(key, problem)
        return value

    def read_all(self, cls: type, *, skip: Iterable[str] = ()) -> dict[str, Any]:
        """Every declared setting of ``cls`` (but ``skip``), in field order, by field name."""
        skipped = set(skip)
        return {attr: self.read(s) for attr, s in settings_of(cls).items() if attr not in skipped}

    def sub(self, key: str, default: object = _MISSING) -> _Section:
        return _Section(self.source, self.key(key), self._get(key, default))

    def array(self, key: str) -> list[_Section]:
        value = self._get(key, [])
        if not isinstance(value, list):
            raise self.error(key, "must be an array of tables ([[" + key + "]])")
        return [_Section(self.source, f"{self.key(key)}[{i}]", v) for i, v in enumerate(value)]

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self.error(unknown[0], "unknown key (a typo?); known keys: "
                                         + ", ".join(sorted(self.used)))


_KIND_NAMES: dict[type, str] = {str: "a string", int: "a whole number", bool: "true or false",
                                float: "a number"}


def cents(value: Any, what: str) -> int:
    """Money: the strict parser, and at most the protocol's largest amount (a meter in exact
    units stays inside a 64-bit ledger column)."""
    amount = parse_cents(value, what)
    if amount > MAX_AMOUNT_CENTS:
        raise ValueError(f"{what}: {shown(value)} is more than the largest amount "
                         f"{json_cents(MAX_AMOUNT_CENTS)}")
    return amount



def shown(value: object, limit: int = 40) -> str:
    """A value from the file as a message shows it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def resolve_path(sec: _Section, key: str, value: str, base: Path | None) -> str:
    """A path from the file, relative ones read from ``base`` (the floor file's folder)."""
    try:
        p = Path(value.strip()).expanduser()
    except RuntimeError:  # "~nobody/ca.pem": no such user's home folder
        raise sec.error(key, f"{shown(value)}: no such home folder") from None
    return str(p if p.is_absolute() or base is None else base / p)


def read_path(sec: _Section, s: Setting, base: Path | None) -> str:
    """A path setting read and resolved."""
    return resolve_path(sec, s.key, sec.read(s), base)
