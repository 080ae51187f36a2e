"""Fortune paytables (RULES.md sections 2 and 3): data in ``resources/paytables/*.toml``,
their meaning here.

A paytable file holds one table; the layout is documented at the top of
``resources/paytables/PT1.toml`` and in ``docs/paytables.md``.  Every problem in a file
raises :class:`PaytableError` naming the file, the key and the problem.

Bonus tables pay "to 1" (the wager is returned on a win) and carry envy amounts per $5
wager; progressive tables pay "for 1" (the wager is not returned): a share of a meter
level, a fixed amount, or N times the wager.  A hand a table does not list pays as the
best listed hand the same seven cards also make (:meth:`Paytable.paying`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

from core.kernel.cards import Card
from core.kernel.money import (
    MAX_MAGNITUDE,
    MoneyError,
    json_cents,
    parse_cents,
    parse_decimal,
    parse_rate,
)
from core.tablegames.rules.fortune import HAND_IDS, JOKER_MODES, hands_made

Kind = Literal["bonus", "progressive"]
Authorization = Literal["supervisor", "executive"]
ENVY_WAGER_CENTS = 500  # envy amounts are per $5 Fortune wager (RULES.md section 2)
_ENVY_LOWEST = HAND_IDS.index("FOUR_OF_A_KIND")


class PaytableError(ValueError):
    """A malformed or inconsistent paytable; the message names file, key and problem."""


@dataclass(frozen=True)
class Pay:
    """What one hand pays.  Exactly one of ``odds`` (bonus, "N to 1"), ``fraction`` (a
    share of meter ``level``, 1 = 100%), ``amount_cents`` (fixed) or ``for_one`` ("N for
    1") is set."""

    hand: str
    odds: int | None = None
    envy_cents: int | None = None
    level: str | None = None
    fraction: Decimal | None = None
    amount_cents: int | None = None
    for_one: int | None = None
    # None: not stated in the file; the table then decides (only its lowest fixed pay goes
    # without verification, see parse_paytable)
    secondary_verification: bool | None = None
    authorization: Authorization = "supervisor"

    @property
    def source(self) -> Literal["meter", "tray"]:
        """``"meter"`` for a percentage pay, ``"tray"`` for every fixed one."""
        return "meter" if self.fraction is not None else "tray"


@dataclass(frozen=True)
class Paytable:
    id: str
    kind: Kind
    name: str
    joker: str  # "semi" | "wild" (core.tablegames.rules.fortune.JokerMode)
    wager_cents: int | None  # the progressive wager; None for a bonus table
    levels: tuple[str, ...]  # ("MAIN",) or ("MEGA", "MAJOR", "MINOR"); () for a bonus table
    pays: tuple[Pay, ...]  # best hand first
    three_pair: Literal["push", "loses"] | None = None  # bonus tables only
    equivalents: tuple[str, ...] = ()  # other ids that load as this table (Face Up ...)
    # other tables declared equivalent FOR LINKING: one meter for both (checked by
    # link_problem: same hands, levels, meter pays and fixed pays per unit wager)
    links_with: tuple[str, ...] = ()
    # RULES.md 4: for a table whose meter pays only percentages, a group may lower the
    # contribution rate but raising it above this needs an executive override (None: not stated)
    preconfigured_contribution_rate: Decimal | None = None
    # level -> the pre-configured seed (cents), where the source states one
    preconfigured_seed_cents: tuple[tuple[str, int], ...] = ()

    def preconfigured_seed(self, level: str) -> int | None:
        return dict(self.preconfigured_seed_cents).get(level)
    source: str = field(default="", compare=False)  # file it came from, for messages

    def pay_for(self, hand: str) -> Pay | None:
        """The pay listed for exactly ``hand``, if any."""
        for pay in self.pays:
            if pay.hand == hand:
                return pay
        return None

    def paying(self, cards: Iterable[Card]) -> Pay | None:
        """The best LISTED pay among every hand the 7 cards make (RULES.md 3), or None.

        A bonus table's three pair is not a pay: see :attr:`three_pair`.
        """
        made = hands_made(cards, self.joker)
        for pay in self.pays:  # best first
            if pay.hand in made:
                return pay
        return None

    def fixed_cents(self, pay: Pay, wager_cents: int | None = None) -> int:
        """Cents a fixed pay is worth: its amount, ``for_one`` x wager, or for a bonus
        pay ``odds`` x wager (the win; the wager itself is returned besides).  A meter
        pay has no fixed value (ValueError).  ``wager_cents`` defaults to the table's."""
        if pay.amount_cents is not None:
            return pay.amount_cents
        wager = self.wager_cents if wager_cents is None else wager_cents
        if pay.for_one is not None or pay.odds is not None:
            if wager is None or wager < 0:
                raise PaytableError(f"{self.id}: {pay.hand}: a wager is needed to price it")
            return (pay.for_one if pay.for_one is not None else pay.odds or 0) * wager
        raise PaytableError(f"{self.id}: {pay.hand}: pays a share of meter {pay.level}, "
                            "not a fixed amount")


# ------------------------------------------------------------------------------------------
# Loading

_TOP_COMMON = {"id", "kind", "name", "joker", "pays", "equivalents", "source"}
_TOP_KIND = {"bonus": {"three_pair"}, "progressive": {"wager", "levels"}}
_TOP_OPTIONAL = {"bonus": set[str](),
                 "progressive": {"preconfigured_contribution_rate", "preconfigured_seed",
                                 "links_with"}}
_PAY_COMMON = {"hand", "odds", "fraction", "level", "amount", "for_one"}
_PAY_KIND = {"bonus": {"envy"}, "progressive": {"secondary_verification", "authorization"}}
_HOW = ("odds", "fraction", "amount", "for_one")


class _Reader:
    """Typed access to one TOML table with error messages naming file and key."""

    def __init__(self, fname: str, where: str, data: Mapping[str, Any]) -> None:
        self.fname, self.where, self.data = fname, where, data
        self.label = ""  # e.g. " (FULL_HOUSE)" after a pay's key

    def key(self, key: str) -> str:
        return (f"{self.where}.{key}" if self.where else key) + self.label

    def error(self, key: str, problem: str) -> PaytableError:
        return PaytableError(f"{self.fname}: {self.key(key)}: {problem}")

    def check_keys(self, allowed: set[str], required: Iterable[str]) -> None:
        for k in self.data:
            if k not in allowed:
                raise self.error(k, f"unknown key (allowed: {', '.join(sorted(allowed))})")
        for k in required:
            if k not in self.data:
                raise self.error(k, "missing key")

    def text(self, key: str, choices: Iterable[str] | None = None) -> str:
        value = self.data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"{value!r} must be a non-empty string")
        if choices is not None:
            options = tuple(choices)
            if value not in options:
                raise self.error(key, f"{value!r} is not one of {', '.join(options)}")
        return value

    def positive_int(self, key: str) -> int:
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.error(key, f"{value!r} must be a whole number above 0")
        if value >= MAX_MAGNITUDE:
            raise self.error(key, f"must be below {MAX_MAGNITUDE:,}")
        return value

    def money(self, key: str) -> int:
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error(key, f"{value!r} must be a money string such as \"2500.00\"")
        try:
            cents = parse_cents(value, key)
        except MoneyError as exc:
            raise self.error(key, str(exc).split(": ", 1)[-1]) from None
        if cents <= 0:
            raise self.error(key, f"{value!r} must be above 0")
        return cents

    def fraction(self, key: str) -> Decimal:
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error(key, f"{value!r} must be a decimal string such as \"0.50\"")
        try:
            frac = parse_decimal(value, key)
        except MoneyError as exc:
            raise self.error(key, str(exc).split(": ", 1)[-1]) from None
        if not 0 < frac <= 1:
            raise self.error(key, f"{value!r} must be above 0 and at most 1 (1 = 100%)")
        return frac

    def flag(self, key: str) -> bool:
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.error(key, f"{value!r} must be true or false")
        return value

    def names(self, key: str) -> tuple[str, ...]:
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(key, "must be a list of names")
        if len(set(value)) != len(value):
            raise self.error(key, "lists a name twice")
        return tuple(value)


def _parse_pay(fname: str, kind: str, levels: tuple[str, ...], i: int, data: Any) -> Pay:
    if not isinstance(data, dict):
        raise PaytableError(f"{fname}: pays[{i}]: must be a table ([[pays]])")
    r = _Reader(fname, f"pays[{i}]", data)
    r.check_keys(_PAY_COMMON | _PAY_KIND[kind],
                 ["hand", *sorted(_PAY_KIND[kind] - {"envy", "secondary_verification"})])
    hand = r.text("hand")
    if hand not in HAND_IDS:
        raise r.error("hand", f"unknown hand id {hand!r} (see RULES.md section 1)")
    r.label = f" ({hand})"
    how = [k for k in _HOW if k in data]
    if len(how) != 1:
        got = " and ".join(how) if how else "none"
        raise r.error("odds/fraction/amount/for_one",
                      f"a pay needs exactly one of odds, fraction, amount, for_one (got {got})")
    if kind == "bonus" and how[0] != "odds":
        raise r.error(how[0], "a bonus table pays odds (\"N to 1\")")
    if kind == "progressive" and how[0] == "odds":
        raise r.error("odds", "a progressive table pays fraction, amount or for_one")
    if "fraction" in data and "level" not in data:
        raise r.error("level", "missing key (a fraction pay names its meter level)")
    if "level" in data and "fraction" not in data:
        raise r.error("level", "only a fraction pay has a level")
    level = None
    if "level" in data:
        level = r.text("level")
        if level not in levels:
            raise r.error("level", f"{level!r} is not declared in levels ({', '.join(levels)})")
    envy = None
    if "envy" in data:
        envy = r.money("envy")
        if HAND_IDS.index(hand) > _ENVY_LOWEST:
            raise r.error("envy", "envy pays only four of a kind or better")
    if kind == "bonus" and hand == "THREE_PAIR":
        raise r.error("hand", "a bonus table's three pair is the top-level three_pair key")
    auth: Authorization = "supervisor"
    if "authorization" in data:
        auth = "executive" if r.text("authorization", ("supervisor", "executive")) \
            == "executive" else "supervisor"
    return Pay(
        hand=hand,
        odds=r.positive_int("odds") if "odds" in data else None,
        envy_cents=envy,
        level=level,
        fraction=r.fraction("fraction") if "fraction" in data else None,
        amount_cents=r.money("amount") if "amount" in data else None,
        for_one=r.positive_int("for_one") if "for_one" in data else None,
        secondary_verification=r.flag("secondary_verification")
        if "secondary_verification" in data else None,
        authorization=auth,
    )


def parse_paytable(data: Mapping[str, Any], fname: str = "<paytable>") -> Paytable:
    """A :class:`Paytable` from the parsed TOML of one file (``fname`` for messages)."""
    r = _Reader(fname, "", data)
    if "kind" not in data:
        raise r.error("kind", "missing key")
    kind = r.text("kind", ("bonus", "progressive"))
    r.check_keys(_TOP_COMMON | _TOP_KIND[kind] | _TOP_OPTIONAL[kind],
                 ["id", "name", "joker", "pays", *_TOP_KIND[kind]])
    pid = r.text("id")
    name = r.text("name")
    joker = r.text("joker", JOKER_MODES)
    if "source" in data:
        r.text("source")
    equivalents = r.names("equivalents") if "equivalents" in data else ()
    if pid in equivalents:
        raise r.error("equivalents", f"lists the table's own id {pid!r}")
    links_with = r.names("links_with") if "links_with" in data else ()
    if pid in links_with or set(links_with) & set(equivalents):
        raise r.error("links_with", "lists the table itself (its id or an equivalent)")
    wager = r.money("wager") if kind == "progressive" else None
    levels = r.names("levels") if kind == "progressive" else ()
    if kind == "progressive" and not levels:
        raise r.error("levels", "a progressive table needs at least one meter level")
    preconfigured: Decimal | None = None
    if "preconfigured_contribution_rate" in data:
        raw = data["preconfigured_contribution_rate"]
        if not isinstance(raw, str):
            raise r.error("preconfigured_contribution_rate",
                          f"{raw!r} must be a decimal string such as \"0.20\"")
        try:
            preconfigured = parse_rate(raw, "rate")
        except MoneyError as exc:
            raise r.error("preconfigured_contribution_rate", str(exc)) from None
    seeds: dict[str, int] = {}
    if "preconfigured_seed" in data:
        raw_seed = data["preconfigured_seed"]
        per_level = raw_seed if isinstance(raw_seed, dict) else dict.fromkeys(levels, raw_seed)
        for lv, amount in per_level.items():
            if lv not in levels:
                raise r.error("preconfigured_seed", f"{lv!r} is not one of the levels "
                                                    f"({', '.join(levels)})")
            if not isinstance(amount, str):
                raise r.error("preconfigured_seed", f"{amount!r} must be a money string such "
                                                    "as \"10000.00\"")
            try:
                seeds[lv] = parse_cents(amount, "seed")
            except MoneyError as exc:
                raise r.error("preconfigured_seed", str(exc)) from None
    three_pair: Literal["push", "loses"] | None = None
    if kind == "bonus":
        three_pair = "push" if r.text("three_pair", ("push", "loses")) == "push" else "loses"
    raw_pays = data["pays"]
    if not isinstance(raw_pays, list) or not raw_pays:
        raise r.error("pays", "must be a non-empty list of [[pays]] tables")
    pays = [_parse_pay(fname, kind, levels, i, p) for i, p in enumerate(raw_pays)]
    seen: set[str] = set()
    for i, p in enumerate(pays):
        if p.hand in seen:
            raise PaytableError(f"{fname}: pays[{i}].hand: duplicate hand {p.hand}")
        seen.add(p.hand)
    if kind == "bonus" and not any(p.envy_cents for p in pays):
        raise r.error("pays", "a bonus table needs envy amounts (envy = \"...\" per $5 "
                              "wager on four of a kind and better)")
    unused = [lv for lv in levels if not any(p.level == lv for p in pays)]
    if unused:
        raise r.error("levels", f"no pay uses level {unused[0]!r}")
    pays.sort(key=lambda p: HAND_IDS.index(p.hand))
    # Not stated: secondary verification for every pay but the table's lowest fixed one (the
    # full house); the seed: "Full Houses ... do not usually require this".
    fixed = [p for p in pays if p.source == "tray"]
    lowest = fixed[-1].hand if kind == "progressive" and fixed else None
    pays = [p if p.secondary_verification is not None else
            replace(p, secondary_verification=kind == "progressive" and p.hand != lowest)
            for p in pays]
    return Paytable(id=pid, kind="bonus" if kind == "bonus" else "progressive", name=name,
                    joker=joker, wager_cents=wager, levels=levels, pays=tuple(pays),
                    three_pair=three_pair, equivalents=equivalents, links_with=links_with,
                    preconfigured_contribution_rate=preconfigured,
                    preconfigured_seed_cents=tuple(seeds.items()), source=fname)


def link_problem(a: Paytable, b: Paytable) -> str | None:
    """Why tables with paytables ``a`` and ``b`` may NOT share one meter (None: they may).

    The same table (an id and its equivalents) always may.  Two different tables may only when
    either file declares the other in ``links_with`` AND they are equivalent: both progressive,
    the same joker, levels and hands, the same meter pays (level and share), and the same fixed
    pays for each unit wagered (a $5 table paying $375 where the $1 table pays $75)."""
    if a.id == b.id:
        return None
    names = {a.id, *a.equivalents}, {b.id, *b.equivalents}
    if not (set(a.links_with) & names[1] or set(b.links_with) & names[0]):
        return (f"{a.id} and {b.id} are different paytables, not declared equivalent for "
                "linking (links_with)")
    if a.kind != "progressive" or b.kind != "progressive":
        return f"{a.id} and {b.id}: only progressive tables share a meter"
    if a.joker != b.joker:
        return f"{a.id} ({a.joker} joker) and {b.id} ({b.joker} joker) play different jokers"
    if a.levels != b.levels:
        return f"{a.id} and {b.id} have different levels"
    pays_a, pays_b = {p.hand: p for p in a.pays}, {p.hand: p for p in b.pays}
    if set(pays_a) != set(pays_b):
        return f"{a.id} and {b.id} pay different hands"
    wa, wb = a.wager_cents or 0, b.wager_cents or 0
    for hand, pa in pays_a.items():
        pb = pays_b[hand]
        if pa.source != pb.source:
            return f"{hand}: {a.id} pays it from the {pa.source}, {b.id} from the {pb.source}"
        if pa.source == "meter":
            if (pa.level, pa.fraction) != (pb.level, pb.fraction):
                return f"{hand}: {a.id} and {b.id} pay different shares of the meter"
        elif a.fixed_cents(pa) * wb != b.fixed_cents(pb) * wa:
            return (f"{hand}: {a.id} pays {json_cents(a.fixed_cents(pa))} on "
                    f"{json_cents(wa)}, {b.id} {json_cents(b.fixed_cents(pb))} on "
                    f"{json_cents(wb)}: not the same pay for each unit wagered")
    return None


def _load(entry: Traversable | Path, fname: str) -> Paytable:
    try:
        text = entry.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PaytableError(f"{fname}: can not be read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PaytableError(f"{fname}: not a valid TOML file ({exc})") from None
    except RecursionError:  # [[[[...]]]] or {a={a=...}} thousands deep
        raise PaytableError(f"{fname}: not a valid TOML file (arrays or tables nested too "
                            "deeply)") from None
    return parse_paytable(data, fname)


def load_paytable_file(path: str | os.PathLike[str]) -> Paytable:
    """One paytable file (a casino's own, or a test's)."""
    p = Path(path)
    return _load(p, str(p))


def load_paytables(folder: str | os.PathLike[str] | None = None) -> dict[str, Paytable]:
    """Every paytable in ``resources/paytables`` (or ``folder``), keyed by id AND by each
    of its equivalents (``"FUPGPP-01"`` gives the FPGPP-WA03 table).  For a list without
    the alias keys use :func:`distinct_paytables`."""
    base: Traversable | Path
    base = Path(folder) if folder is not None else \
        resources.files("resources").joinpath("paytables")
    entries = sorted((e for e in base.iterdir() if e.name.endswith(".toml")),
                     key=lambda e: e.name)
    tables: dict[str, Paytable] = {}
    for entry in entries:
        fname = f"paytables/{entry.name}" if folder is None else str(Path(folder) / entry.name)
        table = _load(entry, fname)
        for key in (table.id, *table.equivalents):
            if key in tables:
                raise PaytableError(f"{fname}: id: {key!r} is already defined by "
                                    f"{tables[key].source}")
            tables[key] = table
    return tables


def distinct_paytables(tables: Mapping[str, Paytable]) -> list[Paytable]:
    """Each table once (aliases dropped): bonus tables first, then progressive, by id."""
    unique = {t.id: t for t in tables.values()}
    return sorted(unique.values(), key=lambda t: (t.kind != "bonus", t.id))
