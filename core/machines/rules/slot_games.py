"""Gaming-machine game files (SLOTS.md): data in ``resources/games/*.toml``, loaded and
checked here; what a screen pays is :mod:`core.machines.rules.slots`.

A game file states what the machine's artwork states: symbols and their kinds, paylines,
line prizes, scatter prizes, substitutes and the free-game feature.  Every problem raises
:class:`GameError` naming the file, the key and the problem, before anything is evaluated.

Decisions the format leaves open (docs/slots.md):

- A substitute substitutes on a line for the symbols of its ``for`` set: a list of normal
  or scatter symbols, or ``"all"`` = every normal and scatter symbol minus ``except``.  It
  never substitutes for itself nor for another substitute.
- ``scatters = true`` makes each such substitute on the screen count with EVERY scatter
  symbol (scatter prizes and the free-game trigger), whatever its ``for`` set says.
- The free-game trigger must be a scatter symbol (it is counted the way scatters are).
- ``retrigger = true`` (a trigger during free games awards ``games`` more) and a
  ``retrigger_prize`` (the prize instead of more games) exclude each other.
- ``[free_games]`` may state (NZ Gazette 1.40.38-39, docs/slots.md): ``consolation_per``
  (``"total_bet"`` or ``"line"``), ``consolation_with_scatters`` (the consolation is paid
  regardless of scattered wins), prizes offered only during free games (``[free_games.pays]``,
  ``[free_games.scatter_pays]``: a symbol and count the base game does not list) and
  ``free_only_already_multiplied`` (the artwork's statement that excludes them from the
  free-game multiplier).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

SymbolKind = Literal["normal", "substitute", "scatter"]
KINDS: tuple[SymbolKind, ...] = ("normal", "substitute", "scatter")
MAX_REELS = 100  # reels (columns) of a game file
MAX_ROWS = 100  # rows shown per reel
MAX_WHOLE = 10**9  # any other whole number of a game file (prizes, games, multipliers)
MAX_FILE_CHARS = 4_000_000  # a game file is a few kilobytes
_BAD_ID_CHARS = set("/:,") | {" ", "\t", "\n", "\r"}


class GameError(ValueError):
    """A malformed game file, or a game that can not be found; names file, key, problem."""


@dataclass(frozen=True)
class Substitute:
    symbol: str
    stands_for: frozenset[str]  # line symbols it substitutes for (resolved "all"/except)
    multiplier: int = 1
    per_substitute: bool = False  # multiplier ** (number of this substitute in the pattern)
    scatters: bool = False  # counts with every scatter symbol, showing or not
    multiply_scatters: bool = False  # its multiplier applies to scatter prizes it took part in
    for_all: bool = False  # the file says for = "all" (with except); else it lists symbols

    def factor(self, n: int) -> int:
        """What ``n`` >= 1 of this substitute in one pattern multiply a prize by."""
        return self.multiplier ** n if self.per_substitute else self.multiplier


@dataclass(frozen=True)
class FreeGames:
    trigger_symbol: str
    trigger_count: int
    games: int
    multiplier: int = 1
    retrigger: bool = False
    retrigger_prize: int = 0  # credits per credit of total bet, before the free-game multiplier
    consolation: int = 0  # credits per credit staked (``consolation_per``), never multiplied
    # NZ Gazette 1.40.38: "X credits multiplied by the total number of credits staked / credits
    # staked per line": "total_bet" or "line"
    consolation_per: Literal["total_bet", "line"] = "total_bet"
    # 1.40.38: "If scattered wins occur and the consolation prize is paid regardless this is
    # appropriately stated": true = the artwork states it (only a line win stops it)
    consolation_with_scatters: bool = False
    # 1.40.39: prizes offered only during free games (line: per credit bet on the line;
    # scatter: per credit of total bet), multiplied like every free-game prize unless the
    # artwork's statement excludes them (``free_only_multiplied`` False: already multiplied)
    pays: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    scatter_pays: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    free_only_multiplied: bool = True


@dataclass(frozen=True)
class Game:
    name: str
    reels: int
    rows: int
    symbols: Mapping[str, SymbolKind]  # in file order
    substitutes: Mapping[str, Substitute]
    paylines: tuple[tuple[int, ...], ...]  # line i+1: the row shown on each reel (0 = top)
    pays: Mapping[str, Mapping[int, int]]  # line prizes: symbol -> count -> credits per credit
    scatter_pays: Mapping[str, Mapping[int, int]]  # symbol -> count -> credits per total credit
    free_games: FreeGames | None = None
    source: str = ""  # the file it came from, for messages
    # [reels] (optional): strips[reel] = the symbols of that reel's strip, stop 0 first; the
    # screen for stops s shows strips[r][(s[r] + row) % len] (core/machines/rules/slot_return.py)
    strips: tuple[tuple[str, ...], ...] | None = None
    free_strips: tuple[tuple[str, ...], ...] | None = None  # free games; None = ``strips``

    def scatter_symbols(self) -> tuple[str, ...]:
        return tuple(s for s, k in self.symbols.items() if k == "scatter")


# ------------------------------------------------------------------------------------------
# Reading

class _Reader:
    """Typed access to one TOML table; every error names the file and the dotted key."""

    def __init__(self, fname: str, where: str, data: Mapping[str, Any]) -> None:
        self.fname, self.where, self.data = fname, where, data

    def key(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def error(self, key: str, problem: str) -> GameError:
        return GameError(f"{self.fname}: {self.key(key)}: {problem}")

    def check_keys(self, allowed: Iterable[str], required: Iterable[str]) -> None:
        allowed = tuple(allowed)
        for k in self.data:
            if k not in allowed:
                raise self.error(k, f"unknown key (allowed: {', '.join(allowed)})")
        for k in required:
            if k not in self.data:
                raise self.error(k, "missing key")

    def table(self, key: str) -> _Reader:
        value = self.data[key]
        if not isinstance(value, dict):
            raise self.error(key, "must be a table")
        return _Reader(self.fname, self.key(key), value)

    def text(self, key: str) -> str:
        value = self.data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"{value!r} must be a non-empty string")
        return value

    def whole(self, key: str, lowest: int, default: int | None = None,
              highest: int | None = None, what: str = "") -> int:
        if key not in self.data and default is not None:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"{value!r} must be a whole number")
        if value < lowest:
            raise self.error(key, f"{value} must be {lowest} or more{what}")
        top = MAX_WHOLE if highest is None else highest
        if value > top:
            shown = f"{value}" if value < 10**40 else "a number that large"
            raise self.error(key, f"{shown} must be at most {top:,}{what}")
        return value

    def flag(self, key: str) -> bool:
        if key not in self.data:
            return False
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.error(key, f"{value!r} must be true or false")
        return value


def _symbol(r: _Reader, key: str, value: object, symbols: Mapping[str, SymbolKind],
            kinds: tuple[SymbolKind, ...] = KINDS) -> str:
    if not isinstance(value, str) or value not in symbols:
        raise r.error(key, f"unknown symbol {value!r} (symbols: {', '.join(symbols)})")
    if symbols[value] not in kinds:
        raise r.error(key, f"{value!r} is a {symbols[value]} symbol; expected "
                           f"{' or '.join(kinds)}")
    return value


def _symbols(r: _Reader) -> dict[str, SymbolKind]:
    t = r.table("symbols")
    if not t.data:
        raise r.error("symbols", "a game needs at least one symbol")
    out: dict[str, SymbolKind] = {}
    for sid, kind in t.data.items():
        if not sid or any(c in _BAD_ID_CHARS for c in sid):
            raise t.error(sid, "a symbol id can not be empty nor contain spaces, '/', ':' or ','")
        if kind not in KINDS:
            raise t.error(sid, f"kind {kind!r} is not one of {', '.join(KINDS)}")
        out[sid] = kind
    return out


def _substitute(r: _Reader, sid: str, symbols: Mapping[str, SymbolKind]) -> Substitute:
    r.check_keys(("for", "except", "multiplier", "per_substitute", "scatters",
                  "multiply_scatters"), ("for",))
    line_symbols = [s for s, k in symbols.items() if k != "substitute"]
    raw_for = r.data["for"]
    if raw_for == "all":
        excluded: set[str] = set()
        if "except" in r.data:
            raw_except = r.data["except"]
            if not isinstance(raw_except, list):
                raise r.error("except", "must be a list of symbol ids")
            for i, s in enumerate(raw_except):
                excluded.add(_symbol(r, f"except[{i}]", s, symbols))
        stands_for = frozenset(s for s in line_symbols if s not in excluded)
    elif isinstance(raw_for, list):
        if "except" in r.data:
            raise r.error("except", 'only a substitute with for = "all" has exceptions')
        chosen: list[str] = []
        for i, s in enumerate(raw_for):
            if s == sid:
                raise r.error(f"for[{i}]", "a substitute never substitutes for itself")
            chosen.append(_symbol(r, f"for[{i}]", s, symbols, ("normal", "scatter")))
        if len(set(chosen)) != len(chosen):
            raise r.error("for", "lists a symbol twice")
        stands_for = frozenset(chosen)
    else:
        raise r.error("for", f'{raw_for!r} must be "all" or a list of symbol ids')
    multiplier = r.whole("multiplier", 1, default=1)
    scatters = r.flag("scatters")
    multiply_scatters = r.flag("multiply_scatters")
    if scatters and not any(k == "scatter" for k in symbols.values()):
        raise r.error("scatters", "the game has no scatter symbol to substitute for")
    if multiply_scatters and not scatters:
        raise r.error("multiply_scatters", "needs scatters = true (the substitute takes part "
                                           "in a scatter count only then)")
    if not stands_for and not scatters:
        raise r.error("for", "the substitute substitutes for no symbol at all")
    return Substitute(sid, stands_for, multiplier, r.flag("per_substitute"), scatters,
                      multiply_scatters, raw_for == "all")


def _prizes(r: _Reader, key: str, highest: int, what: str) -> dict[int, int]:
    t = r.table(key)
    if not t.data:
        raise r.error(key, "lists no prize")
    out: dict[int, int] = {}
    for ckey in t.data:
        try:
            count = int(ckey)
        except ValueError:
            raise t.error(ckey, "a count must be a whole number") from None
        if not 1 <= count <= highest:
            raise t.error(ckey, f"count {count} must be 1 to {highest} ({what})")
        if count in out:
            raise t.error(ckey, f"count {count} is listed twice")
        out[count] = t.whole(ckey, 1, what=" credits (a prize is a positive number)")
    return dict(sorted(out.items()))


def _paylines(r: _Reader, reels: int, rows: int) -> tuple[tuple[int, ...], ...]:
    raw = r.data["paylines"]
    if not isinstance(raw, list) or not raw:
        raise r.error("paylines", "must be a non-empty list of [[paylines]] tables")
    lines: list[tuple[int, ...]] = []
    for i, item in enumerate(raw, start=1):
        where = f"paylines (line {i})"
        if not isinstance(item, dict):
            raise r.error(where, "must be a table with rows = [...]")
        t = _Reader(r.fname, where, item)
        t.check_keys(("rows",), ("rows",))
        value = item["rows"]
        if not isinstance(value, list) or len(value) != reels:
            got = len(value) if isinstance(value, list) else repr(value)
            raise t.error("rows", f"needs one row per reel ({reels} reels), got {got}")
        for j, row in enumerate(value):
            if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row < rows:
                raise t.error("rows", f"reel {j}: row {row!r} is out of range "
                                      f"(0 = top to {rows - 1})")
        line = tuple(value)
        if line in lines:
            raise t.error("rows", f"repeats line {lines.index(line) + 1}")
        lines.append(line)
    return tuple(lines)


def _free_games(r: _Reader, symbols: Mapping[str, SymbolKind], reels: int, rows: int,
                pays: Mapping[str, Mapping[int, int]],
                scatter_pays: Mapping[str, Mapping[int, int]]) -> FreeGames:
    cells = reels * rows
    r.check_keys(("trigger", "games", "multiplier", "retrigger", "retrigger_prize",
                  "consolation", "consolation_per", "consolation_with_scatters", "pays",
                  "scatter_pays", "free_only_already_multiplied"), ("trigger", "games"))
    trig = r.table("trigger")
    trig.check_keys(("symbol", "count"), ("symbol", "count"))
    symbol = _symbol(trig, "symbol", trig.data["symbol"], symbols, ("scatter",))
    count = trig.whole("count", 1, highest=cells, what=" (symbols on the screen)")
    retrigger = r.flag("retrigger")
    retrigger_prize = r.whole("retrigger_prize", 0, default=0)
    if retrigger and retrigger_prize:
        raise r.error("retrigger_prize", "is the prize INSTEAD of a retrigger; a game with "
                                         "retrigger = true can not state one")
    consolation = r.whole("consolation", 0, default=0)
    per = r.data.get("consolation_per", "total_bet")
    if per not in ("total_bet", "line"):
        raise r.error("consolation_per", f'{per!r} must be "total_bet" (credits staked in '
                                         'all) or "line" (credits staked per line)')
    with_scatters = r.flag("consolation_with_scatters")
    for key in ("consolation_per", "consolation_with_scatters"):
        if key in r.data and not consolation:
            raise r.error(key, "states how a consolation is paid, but the game states no "
                               "consolation")
    free_pays = _free_only(r, "pays", symbols, reels, f"the game has {reels} reels", pays)
    free_scatters = _free_only(r, "scatter_pays", symbols, cells,
                               f"the screen shows {cells} symbols", scatter_pays, ("scatter",))
    already = r.flag("free_only_already_multiplied")
    if "free_only_already_multiplied" in r.data and not free_pays and not free_scatters:
        raise r.error("free_only_already_multiplied", "the game lists no prize offered only "
                      "during free games ([free_games.pays] or [free_games.scatter_pays])")
    return FreeGames(symbol, count, r.whole("games", 1), r.whole("multiplier", 1, default=1),
                     retrigger, retrigger_prize, consolation, per, with_scatters, free_pays,
                     free_scatters, not already)


def _free_only(r: _Reader, key: str, symbols: Mapping[str, SymbolKind], highest: int,
               what: str, base: Mapping[str, Mapping[int, int]],
               kinds: tuple[SymbolKind, ...] = KINDS) -> dict[str, dict[int, int]]:
    """Prizes offered only during free games: a symbol and count the base game does not
    list (the same pattern can not pay two prizes)."""
    if key not in r.data:
        return {}
    t = r.table(key)
    out: dict[str, dict[int, int]] = {}
    for sid in t.data:
        _symbol(t, sid, sid, symbols, kinds)
        out[sid] = _prizes(t, sid, highest, what)
        for count in out[sid]:
            if count in base.get(sid, {}):
                raise t.error(sid, f"count {count} is a prize of the base game too; a prize "
                                   "offered only during free games is one the base game "
                                   "does not list")
    return out


def _strips(r: _Reader, key: str, reels: int, rows: int,
            symbols: Mapping[str, SymbolKind]) -> tuple[tuple[str, ...], ...]:
    """One set of reel strips: a list with one strip per reel; a strip is a list of symbol
    ids or one string of ids separated by spaces."""
    raw = r.data[key]
    if not isinstance(raw, list) or len(raw) != reels:
        got = len(raw) if isinstance(raw, list) else repr(raw)
        raise r.error(key, f"needs one strip per reel ({reels} reels), got {got}")
    out: list[tuple[str, ...]] = []
    for i, strip in enumerate(raw):
        where = f"{key}[{i}]"
        items = strip.split() if isinstance(strip, str) else strip
        if not isinstance(items, list):
            raise r.error(where, f"{strip!r} must be a list of symbol ids or a string of ids "
                                 "separated by spaces")
        if len(items) < rows:
            raise r.error(where, f"{len(items)} stop(s); a strip needs at least {rows} "
                                 f"(the rows shown)")
        for j, sym in enumerate(items):
            if not isinstance(sym, str) or sym not in symbols:
                raise r.error(where, f"stop {j}: unknown symbol {sym!r} (symbols: "
                                     f"{', '.join(symbols)})")
        out.append(tuple(items))
    return tuple(out)


def _reels(r: _Reader, reels: int, rows: int, symbols: Mapping[str, SymbolKind],
           has_free: bool) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...] |
                                    None]:
    r.check_keys(("strips", "free_strips"), ("strips",))
    strips = _strips(r, "strips", reels, rows, symbols)
    free = None
    if "free_strips" in r.data:
        if not has_free:
            raise r.error("free_strips", "the game has no [free_games]")
        free = _strips(r, "free_strips", reels, rows, symbols)
    return strips, free


def parse_game(data: Mapping[str, Any], fname: str = "<game>") -> Game:
    """A :class:`Game` from the parsed TOML of one file (``fname`` for messages)."""
    r = _Reader(fname, "", data)
    r.check_keys(("game", "symbols", "substitutes", "paylines", "pays", "scatter_pays",
                  "free_games", "reels"), ("game", "symbols", "paylines"))
    g = r.table("game")
    g.check_keys(("name", "reels", "rows"), ("name", "reels", "rows"))
    name = g.text("name")
    reels = g.whole("reels", 1, highest=MAX_REELS)
    rows = g.whole("rows", 1, highest=MAX_ROWS)
    symbols = _symbols(r)

    subs_table = r.table("substitutes").data if "substitutes" in data else {}
    substitutes: dict[str, Substitute] = {}
    for sid in subs_table:
        if symbols.get(sid) != "substitute":
            what = f"a {symbols[sid]} symbol" if sid in symbols else "an unknown symbol"
            raise r.error(f"substitutes.{sid}", f"{sid!r} is {what}, not a substitute")
        substitutes[sid] = _substitute(r.table("substitutes").table(sid), sid, symbols)
    for sid, kind in symbols.items():
        if kind == "substitute" and sid not in substitutes:
            raise r.error(f"substitutes.{sid}", "missing table (every substitute symbol needs "
                                                "[substitutes.ID] with its for set)")

    paylines = _paylines(r, reels, rows)
    pays: dict[str, dict[int, int]] = {}
    if "pays" in data:
        t = r.table("pays")
        for sid in t.data:
            _symbol(t, sid, sid, symbols)
            pays[sid] = _prizes(t, sid, reels, f"the game has {reels} reels")
    scatter_pays: dict[str, dict[int, int]] = {}
    if "scatter_pays" in data:
        t = r.table("scatter_pays")
        for sid in t.data:
            _symbol(t, sid, sid, symbols, ("scatter",))
            scatter_pays[sid] = _prizes(t, sid, reels * rows,
                                        f"the screen shows {reels * rows} symbols")
    free = _free_games(r.table("free_games"), symbols, reels, rows, pays, scatter_pays) \
        if "free_games" in data else None
    if not pays and not scatter_pays:
        raise r.error("pays", "the game pays nothing (no [pays] and no [scatter_pays])")
    strips, free_strips = _reels(r.table("reels"), reels, rows, symbols, free is not None) \
        if "reels" in data else (None, None)
    return Game(name, reels, rows, symbols, substitutes, paylines, pays, scatter_pays, free,
                fname, strips, free_strips)


# ------------------------------------------------------------------------------------------
# Finding and loading files

def _load(entry: Traversable | Path, fname: str) -> Game:
    try:
        text = entry.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GameError(f"{fname}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GameError(f"{fname}: can not be read ({exc})") from None
    if len(text) > MAX_FILE_CHARS:
        raise GameError(f"{fname}: longer than {MAX_FILE_CHARS:,} characters; not a game file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GameError(f"{fname}: not a valid TOML file ({exc})") from None
    except RecursionError:  # [[[[...]]]] or {a={a=...}} thousands deep
        raise GameError(f"{fname}: not a valid TOML file (arrays or tables nested too "
                        "deeply)") from None
    return parse_game(data, fname)


def load_game_file(path: str | os.PathLike[str]) -> Game:
    """One game file (a casino's own, or a test's)."""
    p = Path(path)
    return _load(p, str(p))


def _shipped() -> dict[str, Traversable]:
    base = resources.files("resources").joinpath("games")
    return {e.name[:-len(".toml")]: e for e in base.iterdir() if e.name.endswith(".toml")}


def shipped_games() -> tuple[str, ...]:
    """Names of the games in ``resources/games`` (file names without ``.toml``)."""
    return tuple(sorted(_shipped()))


def find_game(ref: str) -> Game:
    """``ref`` is a game file's path, or the name of a shipped game (``jade-harbour``,
    also with ``.toml``).  A path that exists wins over a shipped name."""
    p = Path(ref)
    try:
        is_file = p.is_file()
    except (OSError, ValueError):  # a name too long, a NUL: no file of that name
        is_file = False
    if is_file:
        return load_game_file(p)
    shipped = _shipped()
    stem = ref[:-len(".toml")] if ref.endswith(".toml") else ref
    if stem in shipped:
        return _load(shipped[stem], f"games/{stem}.toml")
    shown = ref if len(ref) <= 255 else f"{ref[:60]}... ({len(ref):,} characters)"
    raise GameError(f"{shown}: no such file, and no shipped game of that name (shipped: "
                    f"{', '.join(sorted(shipped)) or 'none'})")
