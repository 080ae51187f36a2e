"""The floor configuration: the casino, its printer, and its groups of linked tables.

A declared, typed schema (frozen dataclasses) read from TOML.  Every key is listed here with
its type and default; an unknown key is refused (a typo must not silently fall back to a
default).  ``load_floor`` checks everything that needs nothing but the file; ``validate``
checks the groups against the paytables (their levels) and returns warnings.

Example (``resources/floors/demo.toml`` is the full one)::

    [casino]
    name = "Podium Demo Casino"
    timezone = "Asia/Manila"
    currency_symbol = "$"

    [authorization]                   # docs/operator.md "People controls"
    executive_threshold = "5000.00"   # a pay at or above this needs an Executive card
    # card_key = "card.key"           # default: $PODIUM_CARD_KEY, else the configuration folder
    # pin = "executive"               # or "every_swipe", "none"
    # lockout_failures = 5            # refused swipes of one card within lockout_minutes
    # lockout_minutes = 10            # lock it until an executive lifts it
    # separate_verifier_at = "10000.00"            # verifier and authorizer: two people
    # adjustment_second_executive_at = "10000.00"  # the second card must be an executive

    [surveillance]                    # docs/operator.md "Surveillance": when a hit is flagged
    # near_threshold_margin = "0.05"  # a pay this share or less below executive_threshold
    # same_person_from = "0.00"       # one person verified and authorized a pay of this or more
    # adjustment_window_minutes = 60  # a manual adjustment of the hit's level this near it
    # hit_rate_tail = "0.001"         # a table's hits of a hand this improbable (binomial tail)
    # hit_rate_days = 30              # ... counted over the days up to the hit
    # print_delay_seconds = 120       # the first confirmed print this long after the pay
    # refused_frames_minutes = 5      # refused frames of the table this near the round

    [printer]
    kind = "file"                     # or "network" with host, port, timeout, status_timeout,
                                      # send_timeout, confirm_timeout (seconds)
    directory = ""                    # "" = the user data folder

    [[groups]]
    id = "WA01"
    name = "WA01 Link"
    paytable = "FPGPP-WA01"
    decks = 1
    lock_at_hit = false
    pay_order = "right_first"         # or "left_first"
    all_pays_from_meter = false
    [groups.levels.MAIN]
    seed = "10000.00"
    contribution_rate = "0.20"
    reserve_rate = "0.02"
    allow_zero_seed = false

    [controller_link]                 # docs/protocol.md, "Transport security"
    transport = "tls"                 # the default; "plain-lab-only" for a lab without certs
    ca = "pki/ca.pem"                 # the casino CA (paths relative to this file's folder)
    cert = "pki/consoles/console.pem" # this console's certificate (OU console, clientAuth)
    key = "pki/consoles/console.key"  # its private key (mode 0600)
    # crl = "pki/crl.pem"             # optional: revoked controller certificates

    [[tables]]
    id = "PG-1"
    name = "Pai Gow 1"
    group = "WA01"
    host = "127.0.0.1"
    port = 17301
    seats = 6
    decks = 1
    # paytable = "FPGPP-WA01"         # optional; must equal the group's
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import tomllib
import unicodedata
import zoneinfo
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

from core.controllers.protocol import MAX_AMOUNT_CENTS, MAX_ID_CHARS
from core.money import cents_to_units, json_cents, parse_cents, parse_rate
from core.pokerroom.calendar_settings import END_OF_NEXT_MONTH, CalendarSettings
from core.pokerroom.fund import FundSettings
from core.rules.bbj import TIE_POLICIES, BbjSettings, Split
from core.rules.paytables import Paytable, link_problem
from core.tablegames.meters import PAY_ORDERS, LevelSettings, PayOrder
from core.text import printable

ALL_PAYS_MIN_CONTRIBUTION = Decimal("0.70")
MAX_SEATS = 10
MAX_DECKS = 8
# A floor file is a few kilobytes (the demo's six tables: 6 kB); a larger one is a mistake, and
# it is refused before it is parsed.
MAX_FLOOR_CHARS = 1_000_000
# Table, group and level ids travel in the protocol's frames (HELLO.table, JACKPOT_STATE.group and
# .level: printable, no spaces, at most MAX_ID_CHARS) and a table id is its controller's
# certificate CN (core.controllers.certs: at most 64 characters) and file name.
MAX_ID = MAX_ID_CHARS
MAX_HOST = 253  # a DNS name
MAX_HOLIDAYS = 1_000
MAX_DENOMINATION = 1_000_000  # pesos: a chip

T = TypeVar("T")


class FloorConfigError(ValueError):
    """A floor configuration the system refuses; the message names file, key and problem
    (on one line: what the file says is shown without its control characters)."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


# --- the schema -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Casino:
    name: str
    timezone: str  # an IANA zone, e.g. "Asia/Manila"; slips and screens show local time
    currency_symbol: str = "$"
    operator: str = ""  # the licensee named on the regulator's forms ("" = the casino's name)
    # days that are not business days besides Saturdays and Sundays (RULES.md 6 deadlines)
    public_holidays: tuple[date, ...] = ()
    # a hit waiting this long turns red in the queue and sounds once (internal controls)
    hit_alert_minutes: int = 5
    # the gaming day begins at this local time (accounting: a day's reconciliation runs from
    # it to the next day's); shifts are (name, local start) in order through the gaming day
    gaming_day_starts: time = time(6, 0)
    shifts: tuple[tuple[str, time], ...] = (("Day", time(6, 0)), ("Swing", time(14, 0)),
                                            ("Grave", time(22, 0)))

    @property
    def operator_name(self) -> str:
        return self.operator or self.name


PIN_POLICIES = ("executive", "every_swipe", "none")


@dataclass(frozen=True)
class Authorization:
    """Who may authorize what (docs/operator.md "People controls").  Every default is the safe
    one; a floor file may change each."""

    executive_threshold_cents: int  # a pay at or above it needs an Executive card
    # the card key file (core/cardkey.py); "" = $PODIUM_CARD_KEY, else the configuration folder
    card_key: str = ""
    # a PIN after the swipe: "executive" (for executive authority), "every_swipe", or "none"
    pin: str = "executive"
    # a card is locked after this many refused swipes within lockout_minutes (until an
    # executive lifts it)
    lockout_failures: int = 5
    lockout_minutes: int = 10
    # a pay at or above this is verified by one person and authorized by another
    separate_verifier_cents: int = 1_000_000
    # an adjustment of this size or more (either way) needs a second executive, not a supervisor
    adjustment_second_executive_cents: int = 1_000_000

    def pin_needed(self, needed: str | None) -> bool:
        """Whether a swipe exercising ``needed`` authority must be followed by the PIN."""
        if self.pin == "every_swipe":
            return True
        return self.pin == "executive" and needed == "executive"


@dataclass(frozen=True)
class SurveillanceConfig:
    """When surveillance's hit timeline flags a hit (``[surveillance]``, docs/operator.md
    "Surveillance"; core/surveillance/flags.py).  Every key optional; the defaults are here."""

    # a pay in [threshold x (1 - margin), threshold) is "just below the executive threshold"
    near_threshold_margin: Decimal = Decimal("0.05")
    # a pay of at least this, verified and authorized by one person, is flagged (0: every one)
    same_person_from_cents: int = 0
    # a manual adjustment of the hit's level within this many minutes either side of the hit
    adjustment_window_minutes: int = 60
    # a table's hits of the hit's hand whose binomial upper tail is below this are flagged
    hit_rate_tail: Decimal = Decimal("0.001")
    # ... counted over the wagers and hits of the table in this many days up to the hit
    hit_rate_days: int = 30
    # the first confirmed print of the slip later than this after the pay (or none by then)
    print_delay_seconds: int = 120
    # frames of the table refused within this many minutes of the hit's round are shown
    refused_frames_minutes: int = 5


@dataclass(frozen=True)
class NetworkPrinterConfig:
    """An ESC/POS printer on raw TCP; every timeout in seconds (printing/printers.py)."""

    host: str
    port: int = 9100
    timeout: float = 5.0  # connecting
    kind: Literal["network"] = "network"
    status_timeout: float = 2.0  # each real-time status answer (DLE EOT)
    send_timeout: float = 10.0  # the whole slip taken by the printer
    confirm_timeout: float = 20.0  # the slip printed and cut (GS r answered)


@dataclass(frozen=True)
class FilePrinterConfig:
    directory: str = ""  # "" = the user data folder
    kind: Literal["file"] = "file"


PrinterConfig = NetworkPrinterConfig | FilePrinterConfig


LINK_TRANSPORTS = ("tls", "plain-lab-only")
_LINK_FILES = {"ca": "the casino CA's certificate", "cert": "this console's certificate",
               "key": "this console's private key"}


@dataclass(frozen=True)
class ControllerLinkConfig:
    """``[controller_link]``: how the console reaches the table controllers (docs/protocol.md,
    "Transport security").  TLS, the default, with the casino CA (``ca``), this console's
    certificate and key, and optionally a revocation list (``crl``); plain TCP only where the
    file says ``transport = "plain-lab-only"``.  Paths are as written, relative ones read from
    the floor file's folder.  A file without the section loads (the ledger tools need no
    certificate), but the console refuses to start its links without ``ca``, ``cert`` and
    ``key`` (``core.controllers.tls.link_tls``)."""

    transport: Literal["tls", "plain-lab-only"] = "tls"
    ca: str = ""
    cert: str = ""
    key: str = ""
    crl: str = ""


@dataclass(frozen=True)
class LevelConfig:
    name: str
    seed_cents: int
    contribution_rate: Decimal
    reserve_rate: Decimal
    allow_zero_seed: bool = False
    # the paytable's pre-configured rate and seed when its file does not state them (RULES.md
    # 4; the floor is refused when neither says)
    preconfigured_contribution_rate: Decimal | None = None
    preconfigured_seed_cents: int | None = None

    def settings(self) -> LevelSettings:
        """The meter arithmetic's view of this level."""
        return LevelSettings(cents_to_units(self.seed_cents), self.contribution_rate,
                             self.reserve_rate)


@dataclass(frozen=True)
class GroupConfig:
    id: str
    name: str
    paytable: str
    levels: tuple[LevelConfig, ...]
    decks: int = 1
    lock_at_hit: bool = False
    pay_order: PayOrder = "right_first"
    all_pays_from_meter: bool = False
    # the hands paid at once without a floor supervisor's verification (fixed pays only);
    # None: the paytable's (only its lowest fixed pay, the full house, by default)
    auto_pay_hands: tuple[str, ...] | None = None
    pit: str = ""  # the pit its tables stand in (a table may say otherwise); "" none named

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


@dataclass(frozen=True)
class TableConfig:
    id: str
    name: str
    group: str
    host: str
    port: int
    seats: int = 6
    decks: int = 1
    paytable: str | None = None  # None: the group's
    pit: str = ""  # the pit it stands in (its own ``pit``, else its group's); "" none named


@dataclass(frozen=True)
class PokerRoomConfig:
    """The Bad Beat Jackpot rules RULES.md section 6 leaves to the operator (``[poker_room]``;
    every key optional, with the RULES.md defaults): ``rules`` for deciding a claim and its
    shares, ``fund`` for the jackpot rake, its caps and the daily distribution, ``calendar``
    for the room's regulatory deadlines (core/pokerroom/calendar.py)."""

    rules: BbjSettings = field(default_factory=BbjSettings)
    fund: FundSettings = field(default_factory=FundSettings)
    # the regulator's forms (docs/forms.md): where the poker room is; "" prints a blank
    room_location: str = ""
    calendar: CalendarSettings = field(default_factory=CalendarSettings)


@dataclass(frozen=True)
class FloorConfig:
    casino: Casino
    authorization: Authorization
    printer: PrinterConfig
    groups: tuple[GroupConfig, ...]
    tables: tuple[TableConfig, ...]
    source: str = "<floor>"  # the file it came from, for messages
    poker_room: PokerRoomConfig = field(default_factory=PokerRoomConfig)
    sha256: str = ""  # of the file's text (parameter changes name it)
    controller_link: ControllerLinkConfig = field(default_factory=ControllerLinkConfig)
    surveillance: SurveillanceConfig = field(default_factory=SurveillanceConfig)

    def group(self, group_id: str) -> GroupConfig:
        for g in self.groups:
            if g.id == group_id:
                return g
        raise KeyError(f"no group {group_id!r}")

    def table(self, table_id: str) -> TableConfig:
        for t in self.tables:
            if t.id == table_id:
                return t
        raise KeyError(f"no table {table_id!r}")

    def tables_in(self, group_id: str) -> tuple[TableConfig, ...]:
        return tuple(t for t in self.tables if t.group == group_id)

    @property
    def pits(self) -> tuple[str, ...]:
        """The pits the floor file names (``pit`` of a group or a table), in file order."""
        return tuple(dict.fromkeys(t.pit for t in self.tables if t.pit))

    def tables_of_pit(self, pit: str) -> tuple[TableConfig, ...]:
        """A pit's tables; KeyError naming the pits there are when the floor has no such pit."""
        found = tuple(t for t in self.tables if t.pit == pit)
        if not found:
            named = ", ".join(self.pits) or "none: give groups or tables a pit = \"...\""
            raise KeyError(f"no pit {pit!r} on this floor (pits: {named})")
        return found

    def group_of(self, table_id: str) -> GroupConfig:
        return self.group(self.table(table_id).group)


# --- reading one TOML table with its declared keys --------------------------------------------

_MISSING: Any = object()


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
                raise self.error(key, f"{_shown(value)} is far too large") from None
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


def _cents(value: Any, what: str) -> int:
    """Money: the strict parser, and at most the protocol's largest amount (a meter in exact
    units stays inside a 64-bit ledger column)."""
    cents = parse_cents(value, what)
    if cents > MAX_AMOUNT_CENTS:
        raise ValueError(f"{what}: {_shown(value)} is more than the largest amount "
                         f"{json_cents(MAX_AMOUNT_CENTS)}")
    return cents


def _shown(value: object, limit: int = 40) -> str:
    """A value from the file as a message shows it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def ident_problem(value: str, *, certificate: bool = False) -> str:
    """What keeps ``value`` from being a table id (``certificate``), group id or level name
    ("" when nothing): 1 to MAX_ID printable characters without spaces, what the protocol's
    frames carry; a table id is also its certificate's CN and file name (no '/', '\\',
    leading '.')."""
    if not value.strip():
        return "must not be empty"
    if len(value) > MAX_ID:
        return f"{_shown(value)} is longer than {MAX_ID} characters"
    if not value.isprintable() or any(ch.isspace() for ch in value):
        return (f"{_shown(value)} is not an identifier (printable characters, no spaces or "
                "control characters)")
    if certificate and (value.startswith(".") or "/" in value or "\\" in value):
        return (f"{_shown(value)} can not name a certificate file (no '/', '\\', or leading "
                "'.')")
    return ""


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
        return f"{_shown(host)} is longer than {MAX_HOST} characters"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        if ip.is_unspecified or ip.is_multicast:
            return f"{host} is not the address of one machine"
        return ""
    if host.startswith("[") and host.endswith("]"):
        return f"{_shown(host)}: write an IPv6 address without brackets"
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if not all(_LABEL.fullmatch(label) for label in labels):
        return (f"{_shown(host)} is not an IP address or a host name (letters, digits and '-' "
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


def _rate(value: Any, what: str) -> Decimal:
    return parse_rate(value, what)


# --- parsing ----------------------------------------------------------------------------------

def _casino(sec: _Section) -> Casino:
    name = sec.text("name")
    tz = sec.text("timezone")
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise sec.error("timezone", f"{_shown(tz)} is not a known time zone (e.g. 'Asia/Manila')") \
            from None
    symbol = sec.text("currency_symbol", "$", empty_ok=True)
    operator = sec.text("operator", "", empty_ok=True)
    holidays = sec.convert("public_holidays", _holidays, [])
    alert = sec.integer("hit_alert_minutes", 1, 240, 5)
    day_starts = sec.convert("gaming_day_starts", _clock_time, time(6, 0))
    shifts = sec.convert("shifts", _shifts, None)
    if shifts is None:
        shifts = (("Day", day_starts), ("Swing", _plus_hours(day_starts, 8)),
                  ("Grave", _plus_hours(day_starts, 16)))
    elif shifts[0][1] != day_starts:
        raise sec.error("shifts", f"the first shift starts at {shifts[0][1]:%H:%M}, but the "
                        f"gaming day at {day_starts:%H:%M}; the first shift begins the day")
    for key, what, t in [("gaming_day_starts", "the gaming day", day_starts)] + [
            ("shifts", f"shift {n}", t) for n, t in shifts]:
        off = _off_the_utc_hour(tz, t)
        if off:
            raise sec.error(key, f"{what} starts at {t:%H:%M}, which in {tz} is {off}; the "
                            "ledger keeps its totals by whole hours of UTC, so a gaming day "
                            "and its shifts start on a whole hour of UTC (e.g. "
                            f"{_plus_minutes(t, -int(off.split()[0]))})")
    sec.done()
    return Casino(name, tz, symbol, operator, holidays, alert, day_starts, shifts)


def _off_the_utc_hour(tz: str, t: time) -> str:
    """"" when local ``t`` is a whole hour of UTC on every day of the year in ``tz``, else
    "N minutes past a whole hour of UTC"."""
    zone = zoneinfo.ZoneInfo(tz)
    year = datetime.now().year
    for month in range(1, 13):
        for day in (1, 15):
            local = datetime(year, month, day, t.hour, t.minute, tzinfo=zone)
            minutes = int(local.utcoffset().total_seconds() // 60)  # type: ignore[union-attr]
            past = (t.hour * 60 + t.minute - minutes) % 60
            if past:
                return f"{past} minutes past a whole hour of UTC"
    return ""


def _plus_minutes(t: time, minutes: int) -> str:
    total = (t.hour * 60 + t.minute + minutes) % 1440
    return f"{total // 60:02d}:{total % 60:02d}"


def _plus_hours(t: time, hours: int) -> time:
    return time((t.hour + hours) % 24, t.minute)


def _clock_time(value: Any, what: str) -> time:
    """A local clock time "HH:MM" (a TOML time is taken as it is, to the minute)."""
    if isinstance(value, time):
        if value.second or value.microsecond:
            raise ValueError(f"{what}: {value} must be a whole minute, HH:MM")
        return value.replace(tzinfo=None)
    if isinstance(value, str):
        text_ = value.strip()
        try:
            hh, mm = text_.split(":")
            if len(hh) != 2 or len(mm) != 2 or not (hh + mm).isdigit():
                raise ValueError
            return time(int(hh), int(mm))
        except ValueError:
            pass
    raise ValueError(f"{what}: {_shown(value)} is not a clock time HH:MM such as \"06:00\"")


def _shifts(value: Any, what: str) -> tuple[tuple[str, time], ...] | None:
    """Shifts in order through the gaming day: [["Day", "06:00"], ["Swing", "14:00"], ...]
    (None: not given)."""
    if value is None:
        return None
    if not isinstance(value, list) or not 1 <= len(value) <= 6:
        raise ValueError(f"{what}: must be a list of 1 to 6 [name, \"HH:MM\"] pairs, e.g. "
                         "[[\"Day\", \"06:00\"], [\"Swing\", \"14:00\"]]")
    out: list[tuple[str, time]] = []
    for i, item in enumerate(value, 1):
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str) \
                or not 1 <= len(item[0].strip()) <= 32 or not item[0].strip().isprintable():
            raise ValueError(f"{what}: shift {i} must be [name, \"HH:MM\"] with a name of 1 "
                             "to 32 printable characters")
        name = item[0].strip()
        if any(n.casefold() == name.casefold() for n, _ in out):
            raise ValueError(f"{what}: shift {name!r} is listed twice")
        out.append((name, _clock_time(item[1], f"{what}: shift {name}")))
    starts = [t for _, t in out]
    first = starts[0]
    offsets = [((t.hour * 60 + t.minute) - (first.hour * 60 + first.minute)) % 1440
               for t in starts]
    if offsets != sorted(offsets) or len(set(offsets)) != len(offsets):
        raise ValueError(f"{what}: shifts must start in order through the day, each at its "
                         "own time")
    return tuple(out)


def _holidays(value: Any, what: str) -> tuple[date, ...]:
    """A list of ISO dates ("2026-12-25"), each once; a TOML date is taken as it is."""
    if not isinstance(value, list):
        raise ValueError(f"{what}: must be a list of dates such as \"2026-12-25\"")
    if len(value) > MAX_HOLIDAYS:
        raise ValueError(f"{what}: {len(value)} dates; at most {MAX_HOLIDAYS}")
    out: list[date] = []
    for item in value:
        if isinstance(item, date) and not isinstance(item, datetime):
            day = item
        elif isinstance(item, str):
            try:
                day = date.fromisoformat(item.strip())
            except ValueError:
                raise ValueError(f"{what}: {_shown(item)} is not a date YYYY-MM-DD") from None
        else:
            raise ValueError(f"{what}: {_shown(item)} is not a date YYYY-MM-DD")
        if day in out:
            raise ValueError(f"{what}: {day} is listed twice")
        out.append(day)
    return tuple(sorted(out))


def _poker_room(sec: _Section) -> PokerRoomConfig:
    split_sec = sec.sub("split", {})
    default_split = Split()
    split = {name: split_sec.convert(name, _rate, str(getattr(default_split, name)))
             for name in ("winning", "losing", "table")}
    split_sec.done()
    rules_default, fund_default = BbjSettings(), FundSettings()
    min_players = sec.integer("min_players", 2, MAX_SEATS, rules_default.min_players)
    min_pot = sec.integer("min_pot_big_blinds", 0, 1000, rules_default.min_pot_big_blinds)
    threshold = sec.convert("tax_threshold", _cents,
                            json_cents(rules_default.tax_threshold_cents))
    resident = sec.convert("resident_tax_rate", _rate, str(rules_default.resident_tax_rate))
    nranetb = sec.convert("nranetb_tax_rate", _rate, str(rules_default.nranetb_tax_rate))
    rake_rate = sec.convert("jackpot_rake_rate", _rate, str(fund_default.rake_rate))
    room_max = sec.convert("room_max_jackpot_rake", _cents,
                           json_cents(fund_default.room_max_rake_cents))
    caps = []
    for cap_sec in sec.array("caps_by_big_blind"):
        caps.append((cap_sec.convert("big_blind", _cents), cap_sec.convert("cap", _cents)))
        cap_sec.done()
    admin = sec.convert("admin_fee_rate", _rate, str(fund_default.admin_fee_rate))
    main = sec.convert("main_rate", _rate, str(fund_default.main_rate))
    denoms = sec.convert("denominations", _denominations, list(fund_default.denominations))
    # RULES.md 6.6: two hands of equal value for a place: split the place's share, or refuse
    tie = sec.choice("tie", TIE_POLICIES, rules_default.tie)
    # the regulator's forms: the poker room's location ("" = a blank filled in by hand)
    room_location = " ".join(sec.text("room_location", "", empty_ok=True).split())
    if len(room_location) > 200:
        raise sec.error("room_location", f"{len(room_location)} characters: at most 200")
    # the room's regulatory deadlines (core/pokerroom/calendar.py, docs/bbj.md "Room deadlines")
    bir_day = sec.integer("bir_remittance_day", 1, 28, CalendarSettings().bir_remittance_day)
    bank_days = sec.convert("bank_statement_days", _bank_statement_days, END_OF_NEXT_MONTH)
    sec.done()
    try:
        rules = BbjSettings(split=Split(**split), min_players=min_players,
                            min_pot_big_blinds=min_pot, tax_threshold_cents=threshold,
                            resident_tax_rate=resident, nranetb_tax_rate=nranetb, tie=tie)
        fund = FundSettings(rake_rate=rake_rate, room_max_rake_cents=room_max,
                            caps_by_big_blind=tuple(caps), admin_fee_rate=admin, main_rate=main,
                            denominations=denoms)
    except ValueError as exc:
        raise sec.error("", str(exc)) from None
    return PokerRoomConfig(rules, fund, room_location=room_location,
                           calendar=CalendarSettings(bir_day, bank_days))


def _bank_statement_days(value: Any, what: str) -> int | None:
    """Days after the quarter's end (1 to 366), or "end_of_next_month" (None)."""
    if value == END_OF_NEXT_MONTH:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 366:
        raise ValueError(f"{what}: {_shown(value)} must be a number of days after the "
                         f"quarter's end (1 to 366) or \"{END_OF_NEXT_MONTH}\"")
    return value


def _denominations(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or len(value) > 20 or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_DENOMINATION
            for v in value):
        raise ValueError(f"{what}: must be a list of at most 20 chip values in whole pesos "
                         f"(1 to {MAX_DENOMINATION:,}), e.g. [500, 100, 50, 25, 10]")
    return tuple(value)


def _authorization(sec: _Section, base: Path | None) -> Authorization:
    threshold = sec.convert("executive_threshold", _cents)
    if threshold <= 0:
        raise sec.error("executive_threshold", "must be more than 0.00")
    card_key = sec.text("card_key", "", empty_ok=True).strip()
    pin = sec.choice("pin", PIN_POLICIES, "executive")
    failures = sec.integer("lockout_failures", 1, 1000, 5)
    minutes = sec.integer("lockout_minutes", 1, 7 * 24 * 60, 10)
    separate = sec.convert("separate_verifier_at", _cents, "10000.00")
    adjust_exec = sec.convert("adjustment_second_executive_at", _cents, "10000.00")
    for key, value in (("separate_verifier_at", separate),
                       ("adjustment_second_executive_at", adjust_exec)):
        if value <= 0:
            raise sec.error(key, "must be more than 0.00")
    sec.done()
    if card_key:
        card_key = _path(sec, "card_key", base)
    return Authorization(threshold, card_key, pin, failures, minutes, separate, adjust_exec)


def _surveillance(sec: _Section) -> SurveillanceConfig:
    d = SurveillanceConfig()
    margin = sec.convert("near_threshold_margin", _rate, str(d.near_threshold_margin))
    if not 0 < margin < 1:
        raise sec.error("near_threshold_margin", f"{margin} must be more than 0 and less than 1 "
                        "(a share of the executive threshold, e.g. \"0.05\")")
    same = sec.convert("same_person_from", _cents, json_cents(d.same_person_from_cents))
    window = sec.integer("adjustment_window_minutes", 1, 7 * 24 * 60, d.adjustment_window_minutes)
    tail = sec.convert("hit_rate_tail", _rate, str(d.hit_rate_tail))
    if not 0 < tail < 1:
        raise sec.error("hit_rate_tail", f"{tail} must be more than 0 and less than 1 (a "
                        "probability, e.g. \"0.001\")")
    days = sec.integer("hit_rate_days", 1, 366, d.hit_rate_days)
    delay = sec.integer("print_delay_seconds", 1, 24 * 3600, d.print_delay_seconds)
    refused = sec.integer("refused_frames_minutes", 0, 24 * 60, d.refused_frames_minutes)
    sec.done()
    return SurveillanceConfig(margin, same, window, tail, days, delay, refused)


def _printer(sec: _Section) -> PrinterConfig:
    kind = sec.choice("kind", ("file", "network"), "file")
    printer: PrinterConfig
    if kind == "network":
        def seconds(key: str, default: float) -> float:
            value = sec.typed(key, float, default)
            if not 0 < value <= 600:
                raise sec.error(key, f"{value} must be more than 0 and at most 600 seconds")
            return value

        printer = NetworkPrinterConfig(
            _host(sec, "host"), sec.integer("port", 1, 65535, 9100), seconds("timeout", 5.0),
            status_timeout=seconds("status_timeout", 2.0),
            send_timeout=seconds("send_timeout", 10.0),
            confirm_timeout=seconds("confirm_timeout", 20.0))
    else:
        printer = FilePrinterConfig(sec.text("directory", "", empty_ok=True))
    sec.done()
    return printer


def _controller_link(sec: _Section, base: Path | None) -> ControllerLinkConfig:
    transport = sec.choice("transport", LINK_TRANSPORTS, "tls")
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
    paths = {key: _path(sec, key, base) for key in _LINK_FILES}
    crl = _path(sec, "crl", base) if "crl" in sec.data else ""
    sec.done()
    return ControllerLinkConfig("tls", paths["ca"], paths["cert"], paths["key"], crl)


def _path(sec: _Section, key: str, base: Path | None) -> str:
    value = sec.text(key)
    try:
        p = Path(value.strip()).expanduser()
    except RuntimeError:  # "~nobody/ca.pem": no such user's home folder
        raise sec.error(key, f"{_shown(value)}: no such home folder") from None
    return str(p if p.is_absolute() or base is None else base / p)


def _ident(sec: _Section, key: str, *, certificate: bool = False) -> str:
    value = sec.typed(key, str)
    problem = ident_problem(value, certificate=certificate)
    if problem:
        raise sec.error(key, problem)
    return value


def _host(sec: _Section, key: str) -> str:
    value = sec.typed(key, str)
    problem = host_problem(value)
    if problem:
        raise sec.error(key, problem)
    return value


def _level(sec: _Section, name: str) -> LevelConfig:
    seed = sec.convert("seed", _cents)
    contribution = sec.convert("contribution_rate", _rate)
    reserve = sec.convert("reserve_rate", _rate)
    allow_zero = sec.typed("allow_zero_seed", bool, False)
    pre_rate = (sec.convert("preconfigured_rate", _rate)
                if "preconfigured_rate" in sec.data else None)
    pre_seed = (sec.convert("preconfigured_seed", _cents)
                if "preconfigured_seed" in sec.data else None)
    sec.done()
    if seed == 0 and not allow_zero:
        raise sec.error("seed", "0.00 is refused; a zero seed needs allow_zero_seed = true")
    if contribution + reserve > 1:
        raise sec.error("contribution_rate", f"{contribution} + reserve_rate {reserve} is more "
                                             "than the whole wager")
    return LevelConfig(name, seed, contribution, reserve, allow_zero, pre_rate, pre_seed)


CONTRIBUTION_OVERRIDE_GONE = (
    "is no longer read: a contribution rate above the pre-configured rate (RULES.md 4) needs an "
    "executive's recorded approval in the ledger, given with their card and PIN: podium "
    "employees approve-contribution --group GROUP --level LEVEL --rate RATE --reason WHY "
    "(docs/operator.md); then remove this line")


def _group(sec: _Section) -> GroupConfig:
    gid = _ident(sec, "id")
    name = sec.text("name", gid)
    paytable = sec.text("paytable")
    decks = sec.integer("decks", 1, MAX_DECKS, 1)
    lock = sec.typed("lock_at_hit", bool, False)
    order = sec.choice("pay_order", PAY_ORDERS, "right_first")
    all_pays = sec.typed("all_pays_from_meter", bool, False)
    if sec.text("contribution_override", "", empty_ok=True).strip():
        raise sec.error("contribution_override", CONTRIBUTION_OVERRIDE_GONE)
    auto: tuple[str, ...] | None = None
    pit = sec.text("pit", "", empty_ok=True).strip()
    if "auto_pay_hands" in sec.data:
        raw = sec.typed("auto_pay_hands", list)
        if not all(isinstance(h, str) and h.strip() for h in raw):
            raise sec.error("auto_pay_hands", f"{raw!r} must be a list of hand ids, e.g. "
                                              "[\"FULL_HOUSE\"]")
        auto = tuple(h.strip() for h in raw)
    lv_sec = sec.sub("levels")
    seen: dict[str, str] = {}
    for lv_name in lv_sec.data:
        problem = ident_problem(lv_name)
        if problem:
            raise lv_sec.error(_shown(lv_name), f"level name {problem}")
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
    pay_order: PayOrder = "left_first" if order == "left_first" else "right_first"
    return GroupConfig(gid, name, paytable, levels, decks, lock, pay_order, all_pays, auto,
                       pit)


def _table(sec: _Section) -> TableConfig:
    tid = _ident(sec, "id", certificate=True)
    table = TableConfig(
        id=tid,
        name=sec.text("name", tid),
        group=sec.text("group"),
        host=_host(sec, "host"),
        port=sec.integer("port", 1, 65535),
        seats=sec.integer("seats", 1, MAX_SEATS, 6),
        decks=sec.integer("decks", 1, MAX_DECKS, 1),
        paytable=sec.text("paytable") if "paytable" in sec.data else None,
        pit=sec.text("pit", "", empty_ok=True).strip(),
    )
    sec.done()
    return table


def _check_links(source: str, groups: tuple[GroupConfig, ...],
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
            raise fail(f"tables[{i}].group: table {t.id}: no group {_shown(t.group)} "
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


def parse_floor(data: Mapping[str, object], source: str = "<floor>",
                base: Path | None = None) -> FloorConfig:
    """Build and check a floor from parsed TOML (no I/O); relative paths are read from
    ``base`` (the floor file's folder)."""
    top = _Section(source, "", dict(data))
    casino = _casino(top.sub("casino"))
    authorization = _authorization(top.sub("authorization"), base)
    printer = _printer(top.sub("printer", {}))
    groups = tuple(_group(s) for s in top.array("groups"))
    tables = tuple(_table(s) for s in top.array("tables"))
    group_pits = {g.id: g.pit for g in groups}
    tables = tuple(t if t.pit else replace(t, pit=group_pits.get(t.group, ""))
                   for t in tables)
    poker_room = _poker_room(top.sub("poker_room", {}))
    link = (_controller_link(top.sub("controller_link"), base) if "controller_link" in top.data
            else ControllerLinkConfig())
    surveillance = _surveillance(top.sub("surveillance", {}))
    top.done()
    _check_links(source, groups, tables)
    return FloorConfig(casino, authorization, printer, groups, tables, source, poker_room,
                       controller_link=link, surveillance=surveillance)


def loads_floor(text: str, source: str = "<floor>", base: Path | None = None) -> FloorConfig:
    if len(text) > MAX_FLOOR_CHARS:
        raise FloorConfigError(f"{source}: {len(text):,} characters; a floor file has at most "
                               f"{MAX_FLOOR_CHARS:,}")
    try:
        data = tomllib.loads(text)
        config = parse_floor(data, source, base)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    except tomllib.TOMLDecodeError as exc:
        raise FloorConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise FloorConfigError(f"{source}: not a floor file: arrays or tables nested too "
                               "deeply") from None
    except UnicodeEncodeError as exc:  # a lone surrogate in a str given by a caller
        raise FloorConfigError(f"{source}: not valid text at character {exc.start}") from None
    return replace(config, sha256=digest)


def load_floor(path: str | Path) -> FloorConfig:
    p = Path(path)
    try:
        with p.open(encoding="utf-8") as f:  # never more than the largest floor file (+1)
            text = f.read(MAX_FLOOR_CHARS + 1)
    except FileNotFoundError:
        raise FloorConfigError(f"{p}: no such floor configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FloorConfigError(f"{p}: can not be read: {exc}") from None
    if len(text) > MAX_FLOOR_CHARS:
        raise FloorConfigError(f"{p}: larger than a floor file can be (at most "
                               f"{MAX_FLOOR_CHARS:,} characters)")
    return loads_floor(text, str(p), p.parent)


def demo_certs_dir() -> Path:
    """Where the demo keeps the test CA and certificates it makes on first start."""
    import platformdirs

    return Path(platformdirs.user_data_dir("podium")) / "demo-certs"


def load_demo_floor(certs: Path | None = None) -> FloorConfig:
    """The embedded demo floor (``resources/floors/demo.toml``); its certificate paths are read
    from ``certs`` (default :func:`demo_certs_dir`; ``core.demo.ensure_demo_certs`` makes
    them)."""
    ref = resources.files("resources.floors").joinpath("demo.toml")
    return loads_floor(ref.read_text(encoding="utf-8"), "resources/floors/demo.toml",
                       certs or demo_certs_dir())


# --- checks against the paytables -------------------------------------------------------------

def _check_table_paytables(config: FloorConfig, g: GroupConfig, pt: Paytable,
                           paytables: Mapping[str, Paytable]) -> None:
    """Tables linked to one meter play the group's paytable, one of its equivalents (Face Up),
    or a paytable declared equivalent for linking (``links_with``, checked by
    ``core.rules.paytables.link_problem``); anything else is refused, naming both tables."""
    members = config.tables_in(g.id)
    for t in members:
        name = t.paytable or g.paytable
        tp = paytables.get(name)
        if tp is None:
            raise FloorConfigError(f"{config.source}: table {t.id}: paytable {name!r} is not "
                                   "installed")
        problem = link_problem(pt, tp)
        if problem is None:
            continue
        other = next((m for m in members if (m.paytable or g.paytable) == g.paytable
                      and m.id != t.id), None)
        who = (f"tables {other.id} ({g.paytable}) and {t.id} ({name})" if other is not None
               else f"table {t.id} ({name}) and the group's paytable {g.paytable}")
        raise FloorConfigError(f"{config.source}: group {g.id}: {who} have different "
                               f"paytables ({problem}); only tables with the same paytable, "
                               "or paytables declared equivalent for linking, can be linked "
                               "to one meter")


def _preconfigured(where: str, pt: Paytable, lv: LevelConfig) -> tuple[Decimal, int]:
    """A level's pre-configured contribution rate and seed (RULES.md 4): the paytable's where
    its file states them, else the floor file's; refused when neither states one, or when the
    floor file contradicts the paytable."""
    pairs = (("contribution rate", "preconfigured_rate",
              pt.preconfigured_contribution_rate, lv.preconfigured_contribution_rate),
             ("seed", "preconfigured_seed", pt.preconfigured_seed(lv.name),
              lv.preconfigured_seed_cents))
    out: list[Any] = []
    for what, key, from_pt, from_floor in pairs:
        if from_pt is not None and from_floor is not None and from_pt != from_floor:
            def shown(v: Decimal | int, seed: bool = what == "seed") -> str:
                return json_cents(int(v)) if seed else str(v)

            raise FloorConfigError(
                f"{where}: level {lv.name}: {key} {shown(from_floor)} contradicts {pt.id}'s "
                f"pre-configured {what} {shown(from_pt)}; leave it out of the floor file")
        value = from_pt if from_pt is not None else from_floor
        if value is None:
            raise FloorConfigError(
                f"{where}: level {lv.name}: no pre-configured {what}: {pt.id} does not state "
                f"one, so the floor file must ({key} under [groups.levels.{lv.name}]); the "
                "floor does not start without it (RULES.md 4)")
        out.append(value)
    return out[0], out[1]


@dataclass(frozen=True)
class AboveCeiling:
    """A level's contribution rate above its paytable's pre-configured rate (RULES.md 4): it
    lowers the house advantage, so it needs an executive's recorded approval."""

    source: str
    group: str
    level: str
    rate: Decimal
    paytable: str
    ceiling: Decimal

    @property
    def rate_ppm(self) -> int:
        return int(self.rate * 1_000_000)

    def text(self) -> str:
        return (f"{self.source}: group {self.group}: level {self.level}: contribution rate "
                f"{self.rate} is above {self.paytable}'s preconfigured {self.ceiling} (it "
                "lowers the house advantage)")

    def command(self) -> str:
        return (f"podium employees approve-contribution --group {self.group} --level "
                f"{self.level} --rate {self.rate} --reason WHY")


def _above_ceiling(config: FloorConfig, g: GroupConfig, pt: Paytable,
                   preconfigured: Mapping[str, tuple[Decimal, int]]) -> list[AboveCeiling]:
    if g.all_pays_from_meter:
        return []
    return [AboveCeiling(config.source, g.id, lv.name, lv.contribution_rate, pt.id,
                         preconfigured[lv.name][0])
            for lv in g.levels if lv.contribution_rate > preconfigured[lv.name][0]]


def rates_above_ceiling(config: FloorConfig,
                        paytables: Mapping[str, Paytable]) -> list[AboveCeiling]:
    """Every level whose contribution rate is above its pre-configured rate (on a floor that
    :func:`validate` accepted)."""
    out: list[AboveCeiling] = []
    for g in config.groups:
        pt = paytables[g.paytable]
        where = f"{config.source}: group {g.id}"
        preconfigured = {lv.name: _preconfigured(where, pt, lv) for lv in g.levels}
        out += _above_ceiling(config, g, pt, preconfigured)
    return out


def validate(config: FloorConfig, paytables: Mapping[str, Paytable]) -> list[str]:
    """Check every group against its paytable; refuse what is wrong, return warnings.

    Refused (FloorConfigError): an unknown or non-progressive paytable; a group whose levels are
    not exactly the paytable's.  Warned: a contribution rate above the paytable's preconfigured
    rate (percentage-pays-only groups: the floor starts with it only while the ledger holds an
    executive's approval of exactly that rate, :func:`rates_above_ceiling`,
    core/tablegames/setup.py); a contribution rate below 70% on an "all pays from meter" group;
    a zero seed (allowed by override); a seed below the largest fixed award; a group with no
    tables.
    """
    src = config.source
    warnings: list[str] = []
    for g in config.groups:
        where = f"{src}: group {g.id}"
        pt = paytables.get(g.paytable)
        if pt is None:
            raise FloorConfigError(f"{where}: paytable {g.paytable!r} is not installed "
                                   f"(known: {', '.join(sorted(paytables)) or 'none'})")
        if pt.kind != "progressive":
            raise FloorConfigError(f"{where}: paytable {g.paytable} is a {pt.kind} paytable, "
                                   "not a progressive one")
        if set(g.level_names) != set(pt.levels):
            missing = [lv for lv in pt.levels if lv not in g.level_names]
            extra = [lv for lv in g.level_names if lv not in pt.levels]
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            if extra:
                parts.append("not in the paytable: " + ", ".join(extra))
            raise FloorConfigError(f"{where}: levels must be exactly {g.paytable}'s "
                                   f"({', '.join(pt.levels)}); {'; '.join(parts)}")
        if not config.tables_in(g.id):
            warnings.append(f"{where}: no table is linked to this group")
        _check_table_paytables(config, g, pt, paytables)
        total = sum((lv.contribution_rate for lv in g.levels), Decimal(0))
        if g.all_pays_from_meter and total < ALL_PAYS_MIN_CONTRIBUTION:
            warnings.append(f"{where}: contribution rate {total} is below "
                            f"{ALL_PAYS_MIN_CONTRIBUTION} with all pays from the meter; the "
                            "meter risks running dry")
        preconfigured = {lv.name: _preconfigured(where, pt, lv) for lv in g.levels}
        warnings += [f"{above.text()}; the floor starts only with an executive's recorded "
                     f"approval of it ({above.command()})"
                     for above in _above_ceiling(config, g, pt, preconfigured)]
        for hand in g.auto_pay_hands or ():
            pay = next((p for p in pt.pays if p.hand == hand), None)
            if pay is None or pay.source != "tray":
                raise FloorConfigError(
                    f"{where}: auto_pay_hands: {hand} is not a fixed pay of {pt.id} (fixed "
                    f"pays: {', '.join(p.hand for p in pt.pays if p.source == 'tray')}); a "
                    "meter pay always waits for a floor supervisor")
        _check_auto_pays(config, g, pt, where)
        largest = _largest_fixed_cents(pt)
        for lv in g.levels:
            pre_seed = preconfigured[lv.name][1]
            if lv.seed_cents != pre_seed:
                warnings.append(f"{where}: level {lv.name}: seed {json_cents(lv.seed_cents)} is "
                                f"not the pre-configured {json_cents(pre_seed)}")
            if lv.seed_cents == 0:
                warnings.append(f"{where}: level {lv.name}: seed 0.00 (allowed by "
                                "allow_zero_seed); a zero seed is not recommended")
            elif lv.seed_cents < largest:
                warnings.append(f"{where}: level {lv.name}: seed {json_cents(lv.seed_cents)} is "
                                f"below the largest fixed award {json_cents(largest)}")
    return warnings


def _check_auto_pays(config: FloorConfig, g: GroupConfig, pt: Paytable, where: str) -> None:
    """Refuse an automatic pay at or above the executive threshold: a pay there needs an
    executive's card whatever the paytable says, and a pay at HIT JACKPOT asks for no card.
    The hands listed in ``auto_pay_hands``, or the paytable's own (no secondary verification)
    when the group lists none."""
    threshold = config.authorization.executive_threshold_cents
    wager = pt.wager_cents or 0
    for pay in pt.pays:
        if pay.source != "tray" or not g.auto_paid(pay):
            continue
        amount = pt.fixed_cents(pay, wager)
        if amount < threshold:
            continue
        listed = ("auto_pay_hands lists" if g.auto_pay_hands is not None else
                  "auto_pay_hands (the paytable's default) holds")
        raise FloorConfigError(
            f"{where}: {listed} {pay.hand}, a fixed pay of {json_cents(amount)} on {pt.id}, at "
            f"or above the executive threshold {json_cents(threshold)}: a pay there needs an "
            f"executive's card, so it can not be paid automatically (leave {pay.hand} out of "
            "auto_pay_hands)")


def _largest_fixed_cents(pt: Paytable) -> int:
    wager = pt.wager_cents or 0
    amounts = [pt.fixed_cents(p, wager) for p in pt.pays if p.source == "tray"]
    return max(amounts, default=0)
