"""``[[groups]]``, ``[groups.levels.NAME]`` and ``[[tables]]``: the tables on the floor and the
groups of tables linked to one meter; ``[controller_link]``: how the console reaches them."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from core.controllers.frames import MAX_ID_CHARS
from core.floorconfig.schema import (
    FloorConfigError,
    Setting,
    _Section,
    declare,
    read_path,
    section,
    setting,
    settings_of,
    shown,
    the,
)
from core.kernel.money import cents_to_units
from core.tablegames.meters.arithmetic import PAY_ORDERS, LevelSettings, PayOrder

MAX_SEATS = 10
MAX_DECKS = 8
# Table, group and level ids travel in the protocol's frames (HELLO.table, JACKPOT_STATE.group and
# .level: printable, no spaces, at most MAX_ID_CHARS) and a table id is its controller's
# certificate CN (core.controllers.certs: at most 64 characters) and file name.
MAX_ID = MAX_ID_CHARS
MAX_HOST = 253  # a DNS name


# --- ids and hosts ----------------------------------------------------------------------------

def ident_problem(value: str, *, certificate: bool = False) -> str:
    """What keeps ``value`` from being a table id (``certificate``), group id or level name
    ("" when nothing): 1 to MAX_ID printable characters without spaces, what the protocol's
    frames carry; a table id is also its certificate's CN and file name (no '/', '\\',
    leading '.')."""
    if not value.strip():
        return "must not be empty"
    if len(value) > MAX_ID:
        return f"{shown(value)} is longer than {MAX_ID} characters"
    if not value.isprintable() or any(ch.isspace() for ch in value):
        return (f"{shown(value)} is not an identifier (printable characters, no spaces or "
                "control characters)")
    if certificate and (value.startswith(".") or "/" in value or "\\" in value):
        return (f"{shown(value)} can not name a certificate file (no '/', '\\', or leading "
                "'.')")
    return ""


def _table_id_problem(value: str) -> str:
    return ident_problem(value, certificate=True)


def same_id(value: str) -> str:
    """Ids that a person (and a certificate CN) takes for the same: case and Unicode forms
    folded (PG-1 = pg-1)."""
    return unicodedata.normalize("NFKC", value).casefold()


_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?", re.ASCII)


def host_problem(host: str) -> str:
    """What keeps ``host`` from being an address a controller or printer is reached at ("" when
    nothing): an IP address, or a DNS name in ASCII."""
    if not host:
        return "must not be empty"
    if len(host) > MAX_HOST:
        return f"{shown(host)} is longer than {MAX_HOST} characters"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        if ip.is_unspecified or ip.is_multicast:
            return f"{host} is not the address of one machine"
        return ""
    if host.startswith("[") and host.endswith("]"):
        return f"{shown(host)}: write an IPv6 address without brackets"
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if not all(_LABEL.fullmatch(label) for label in labels):
        return (f"{shown(host)} is not an IP address or a host name (letters, digits and '-' "
                "in ASCII, labels separated by '.')")
    return ""


def machine(host: str) -> str:
    """One name per machine for the duplicate check, without asking a resolver: ``localhost``
    and every loopback address are this machine; an IP address in its canonical form (an IPv4
    address mapped into IPv6 as the IPv4 one); other names compared case-insensitively."""
    name = host.strip().rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return "localhost"
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return name
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return "localhost" if ip.is_loopback else str(ip)


# --- the schema -------------------------------------------------------------------------------

LINK_TRANSPORTS = ("tls", "plain-lab-only")
_LINK_FILES = {"ca": "the casino CA's certificate", "cert": "this console's certificate",
               "key": "this console's private key"}
_WITH_TLS = 'required with "tls"'


@section("controller_link")
class ControllerLinkConfig:
    """``[controller_link]``: how the console reaches the table controllers (docs/protocol.md,
    "Transport security").  TLS, the default, with the casino CA (``ca``), this console's
    certificate and key, and optionally a revocation list (``crl``); plain TCP only where the
    file says ``transport = "plain-lab-only"``.  Paths are as written, relative ones read from
    the floor file's folder.  A file without the section loads (the ledger tools need no
    certificate), but the console refuses to start its links without ``ca``, ``cert`` and
    ``key`` (``core.controllers.tls.link_tls``)."""

    transport: Literal["tls", "plain-lab-only"] = setting(
        kind="choice",
        doc="mutual TLS, or plain TCP for a lab without certificates",
        default="tls", choices=LINK_TRANSPORTS)
    ca: str = setting(
        kind="path",
        doc="the casino CA's certificate (PEM)",
        default="", shown_default=_WITH_TLS)
    cert: str = setting(
        kind="path",
        doc="this console's certificate (OU console, clientAuth)",
        default="", shown_default=_WITH_TLS)
    key: str = setting(
        kind="path",
        doc="its private key (mode 0600)",
        default="", shown_default=_WITH_TLS)
    crl: str = setting(
        kind="path",
        doc="revoked controller certificates (PEM), optional",
        default="", shown_default="none")


@section("groups.levels.NAME")
class LevelConfig:
    name: str
    seed_cents: int = setting(
        kind="money",
        doc="the meter's seed (reset value after a hit)",
        key="seed")
    contribution_rate: Decimal = setting(
        kind="rate",
        doc="the share of each wager added to the meter")
    reserve_rate: Decimal = setting(
        kind="rate",
        doc="the share of each wager added to the reserve")
    allow_zero_seed: bool = setting(
        kind="bool",
        doc="a seed of 0.00 is refused unless true",
        default=False)
    # the paytable's pre-configured rate and seed when its file does not state them (RULES.md
    # 4; the floor is refused when neither says)
    preconfigured_contribution_rate: Decimal | None = setting(
        kind="rate",
        doc=("the pre-configured contribution rate, when the paytable does not state it (RULES.md "
             "4)"),
        default=None, key="preconfigured_rate", optional=True)
    preconfigured_seed_cents: int | None = setting(
        kind="money",
        doc="the pre-configured seed, when the paytable does not state it (RULES.md 4)",
        default=None, key="preconfigured_seed", optional=True)

    def settings(self) -> LevelSettings:
        """The meter arithmetic's view of this level."""
        return LevelSettings(cents_to_units(self.seed_cents), self.contribution_rate,
                             self.reserve_rate)


_NAMED_BY_ID = "the id"


def _hands_problem(raw: list[Any]) -> str:
    if all(isinstance(h, str) and h.strip() for h in raw):
        return ""
    return f"{raw!r} must be a list of hand ids, e.g. [\"FULL_HOUSE\"]"


@section("groups")
class GroupConfig:
    id: str = setting(
        kind="string",
        doc="the group's id (the protocol's JACKPOT_STATE.group)",
        check=ident_problem,
        rule=f"1 to {MAX_ID} printable characters, no spaces")
    name: str = setting(
        kind="text",
        doc="shown on screens and slips",
        shown_default=_NAMED_BY_ID)
    paytable: str = setting(
        kind="text",
        doc="the paytable its tables play (an installed progressive one)")
    levels: tuple[LevelConfig, ...] = setting(
        kind="table",
        doc="its meters: [groups.levels.NAME], exactly the paytable's levels")
    decks: int = setting(
        kind="integer",
        doc="decks its tables deal from (every table the same)",
        default=1, lo=1, hi=MAX_DECKS)
    lock_at_hit: bool = setting(
        kind="bool",
        doc="Jackpot Lock at the hit",
        default=False)
    pay_order: PayOrder = setting(
        kind="choice",
        doc="which of two hits in one round is paid first",
        default="right_first", choices=PAY_ORDERS)
    all_pays_from_meter: bool = setting(
        kind="bool",
        doc="fixed pays too come from the meter",
        default=False)
    # the hands paid at once without a floor supervisor's verification (fixed pays only);
    # None: the paytable's (only its lowest fixed pay, the full house, by default)
    auto_pay_hands: tuple[str, ...] | None = setting(
        kind="list",
        doc=("the fixed-pay hands paid at once without a floor supervisor's verification, e.g. "
             "[\"FULL_HOUSE\"]"),
        default=None, optional=True, check=_hands_problem, form="list of hand ids",
        shown_default="the paytable's (no secondary verification)")
    pit: str = setting(
        kind="text",
        doc="the pit its tables stand in (a table may say otherwise); \"\": none named",
        default="", empty_ok=True, strip=True)

    def auto_paid(self, pay: Any) -> bool:
        """Whether a claimed pay is paid at HIT JACKPOT, with no secondary verification."""
        if pay.source != "tray":
            return False
        if self.auto_pay_hands is not None:
            return bool(pay.hand in self.auto_pay_hands)
        return not pay.secondary_verification

    def level(self, name: str) -> LevelConfig:
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise KeyError(f"group {self.id}: no level {name!r}")

    @property
    def level_names(self) -> tuple[str, ...]:
        return tuple(lv.name for lv in self.levels)


CONTRIBUTION_OVERRIDE_GONE = (
    "is no longer read: a contribution rate above the pre-configured rate (RULES.md 4) needs an "
    "executive's recorded approval in the ledger, given with their card and PIN: podium "
    "employees approve-contribution --group GROUP --level LEVEL --rate RATE --reason WHY "
    "(docs/operator.md); then remove this line")

_OVERRIDE = declare("groups", Setting(
    "text", "no longer read: refused unless empty (an executive's approval recorded in the "
    "ledger replaces it)", "", key="contribution_override", empty_ok=True,
    shown_default="obsolete"))["contribution_override"]


@section("tables")
class TableConfig:
    id: str = setting(
        kind="string",
        doc="the table's id: its controller's HELLO.table and certificate CN",
        check=_table_id_problem,
        rule=f"1 to {MAX_ID} printable characters, no spaces, '/', '\\' or leading '.'")
    name: str = setting(
        kind="text",
        doc="shown on screens and slips",
        shown_default=_NAMED_BY_ID)
    group: str = setting(
        kind="text",
        doc="the id of the group it is linked into")
    host: str = setting(
        kind="string",
        doc="its controller's IP address or DNS name",
        check=host_problem, rule="an IP address or a DNS name")
    port: int = setting(
        kind="integer",
        doc="its controller's TCP port (one per machine)",
        lo=1, hi=65535)
    seats: int = setting(
        kind="integer",
        doc="player seats",
        default=6, lo=1, hi=MAX_SEATS)
    decks: int = setting(
        kind="integer",
        doc="decks it deals from (its group's)",
        default=1, lo=1, hi=MAX_DECKS)
    paytable: str | None = setting(
        kind="text",
        doc=("its paytable: the group's, one of its equivalents, or one declared equivalent for "
             "linking"),
        default=None, optional=True, shown_default="the group's")
    pit: str = setting(
        kind="text",
        doc="the pit it stands in (\"\": its group's)",
        default="", empty_ok=True, strip=True)


# --- parsing ----------------------------------------------------------------------------------

def parse_controller_link(sec: _Section, base: Path | None) -> ControllerLinkConfig:
    transport = sec.read(the(ControllerLinkConfig, "transport"))
    keys = (*_LINK_FILES, "crl")
    if transport == "plain-lab-only":
        for key in keys:
            if key in sec.data:
                raise sec.error(key, 'set, but transport = "plain-lab-only" uses no certificate '
                                     '(anyone on the network can pose as a table); remove it, '
                                     'or set transport = "tls"')
        sec.done()
        return ControllerLinkConfig("plain-lab-only")
    for key, what in _LINK_FILES.items():
        if key not in sec.data:
            raise sec.error(key, f'missing: transport "tls" needs {what} (a PEM file; '
                                 "podium certs init makes a test set)")
    paths = {key: read_path(sec, the(ControllerLinkConfig, key), base) for key in keys
             if key in sec.data}
    sec.done()
    return ControllerLinkConfig("tls", paths["ca"], paths["cert"], paths["key"],
                                paths.get("crl", ""))


def _level(sec: _Section, name: str) -> LevelConfig:
    got = sec.read_all(LevelConfig)
    sec.done()
    level = LevelConfig(name, **got)
    if level.seed_cents == 0 and not level.allow_zero_seed:
        raise sec.error("seed", "0.00 is refused; a zero seed needs allow_zero_seed = true")
    contribution, reserve = level.contribution_rate, level.reserve_rate
    if contribution + reserve > 1:
        raise sec.error("contribution_rate", f"{contribution} + reserve_rate {reserve} is more "
                                             "than the whole wager")
    return level


def _auto_pay_hands(sec: _Section) -> tuple[str, ...] | None:
    raw: list[str] | None = sec.read(the(GroupConfig, "auto_pay_hands"))
    return None if raw is None else tuple(h.strip() for h in raw)


def parse_group(sec: _Section) -> GroupConfig:
    def read(attr: str) -> Any:
        return sec.read(the(GroupConfig, attr))

    gid = read("id")
    name = sec.read(the(GroupConfig, "name"), gid)  # named by its id unless the file says
    paytable, decks, lock, order, all_pays = (
        read("paytable"), read("decks"), read("lock_at_hit"), read("pay_order"),
        read("all_pays_from_meter"))
    if sec.read(_OVERRIDE).strip():
        raise sec.error(_OVERRIDE.key, CONTRIBUTION_OVERRIDE_GONE)
    pit = read("pit")
    auto = _auto_pay_hands(sec)
    lv_sec = sec.sub(the(GroupConfig, "levels").key)
    seen: dict[str, str] = {}
    for lv_name in lv_sec.data:
        problem = ident_problem(lv_name)
        if problem:
            raise lv_sec.error(shown(lv_name), f"level name {problem}")
        if same_id(lv_name) in seen:
            raise lv_sec.error(lv_name, f"level {lv_name} and level {seen[same_id(lv_name)]} "
                                        "differ only in case; a level has one name")
        seen[same_id(lv_name)] = lv_name
    levels = tuple(_level(lv_sec.sub(lv_name), lv_name) for lv_name in list(lv_sec.data))
    lv_sec.done()
    sec.done()
    if not levels:
        raise sec.error("levels", "a group needs at least one level (e.g. [groups.levels.MAIN])")
    total = sum((lv.contribution_rate + lv.reserve_rate for lv in levels), Decimal(0))
    if total > 1:
        raise sec.error("levels", f"the rates of all levels add up to {total}, more than the "
                                  "whole wager")
    return GroupConfig(gid, name, paytable, levels, decks, lock, order, all_pays, auto, pit)


def parse_table(sec: _Section) -> TableConfig:
    decl = settings_of(TableConfig)
    tid = sec.read(decl["id"])
    got = {attr: sec.read(s, tid) if attr == "name" else sec.read(s)  # named by its id
           for attr, s in decl.items() if attr != "id"}
    sec.done()
    return TableConfig(id=tid, **got)


def check_links(source: str, groups: tuple[GroupConfig, ...],
                tables: tuple[TableConfig, ...]) -> None:
    """Unique ids (case folded: PG-1 is pg-1) and ports (one machine however it is written:
    localhost is 127.0.0.1); tables linked into one group share paytable and deck count."""
    def fail(problem: str) -> FloorConfigError:
        return FloorConfigError(f"{source}: {problem}")

    def twice(what: str, i: int, new: str, old: str) -> FloorConfigError:
        if new == old:
            return fail(f"{what}s[{i}].id: {what} id {new!r} is used twice")
        return fail(f"{what}s[{i}].id: {what} ids {old!r} and {new!r} differ only in case; "
                    f"to a person and to a certificate they are one {what}")

    seen_groups: dict[str, str] = {}
    for i, g in enumerate(groups):
        if same_id(g.id) in seen_groups:
            raise twice("group", i, g.id, seen_groups[same_id(g.id)])
        seen_groups[same_id(g.id)] = g.id
    group_ids = set(seen_groups.values())
    seen_tables: dict[str, str] = {}
    endpoints: dict[tuple[str, int], TableConfig] = {}
    for i, t in enumerate(tables):
        if same_id(t.id) in seen_tables:
            raise twice("table", i, t.id, seen_tables[same_id(t.id)])
        seen_tables[same_id(t.id)] = t.id
        endpoint = (machine(t.host), t.port)
        if endpoint in endpoints:
            other = endpoints[endpoint]
            where = (f"{t.host}:{t.port}" if other.host == t.host else
                     f"port {t.port} of one machine ({other.host} and {t.host})")
            raise fail(f"tables[{i}].port: tables {other.id} and {t.id} both use {where}")
        endpoints[endpoint] = t
        if t.group not in group_ids:
            raise fail(f"tables[{i}].group: table {t.id}: no group {shown(t.group)} "
                       f"(groups: {', '.join(sorted(group_ids)) or 'none'})")
    for g in groups:
        members = [t for t in tables if t.group == g.id]
        if not members:
            continue
        first = members[0]
        for t in members[1:]:  # the paytables are compared by validate (it has them)
            if t.decks != first.decks:
                raise fail(f"group {g.id}: tables {first.id} ({first.decks} deck(s)) and {t.id} "
                           f"({t.decks} deck(s)) use different deck counts; only tables with the "
                           "same number of decks can be linked to one meter")
        if first.decks != g.decks:
            raise fail(f"group {g.id}: table {first.id} uses {first.decks} deck(s) but the group "
                       f"is set to {g.decks}")
