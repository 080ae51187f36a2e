"""The whole floor file: :class:`FloorConfig` and the functions that read it."""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from core.floorconfig.authorization import (
    Authorization,
    SurveillanceConfig,
    parse_authorization,
    parse_surveillance,
)
from core.floorconfig.casino import Casino, parse_casino
from core.floorconfig.pokerroom import PokerRoomConfig, parse_poker_room
from core.floorconfig.printer import PrinterConfig, parse_printer
from core.floorconfig.schema import FloorConfigError, _Section
from core.floorconfig.tables import (
    ControllerLinkConfig,
    GroupConfig,
    TableConfig,
    check_links,
    parse_controller_link,
    parse_group,
    parse_table,
)
from core.kernel.money import Currency

# A floor file is a few kilobytes (the demo's six tables: 6 kB); a larger one is a mistake, and
# it is refused before it is parsed.
MAX_FLOOR_CHARS = 1_000_000


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

    @property
    def money(self) -> Currency:
        """The table floor's amounts as the casino writes them (``[casino] currency, locale``)."""
        return self.casino.money

    @property
    def fund_money(self) -> Currency:
        """The poker room's funds' amounts (``[poker_room] currency``) as the casino's locale
        writes them (``₱50,000.00``): on the room's screens, its slips and PAGCOR's forms."""
        return Currency(self.poker_room.currency, self.casino.locale)

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


def parse_floor(data: Mapping[str, object], source: str = "<floor>",
                base: Path | None = None) -> FloorConfig:
    """Build and check a floor from parsed TOML (no I/O); relative paths are read from
    ``base`` (the floor file's folder)."""
    top = _Section(source, "", dict(data))
    casino = parse_casino(top.sub("casino"))
    authorization = parse_authorization(top.sub("authorization"), base)
    printer = parse_printer(top.sub("printer", {}))
    groups = tuple(parse_group(s) for s in top.array("groups"))
    tables = tuple(parse_table(s) for s in top.array("tables"))
    group_pits = {g.id: g.pit for g in groups}
    tables = tuple(t if t.pit else replace(t, pit=group_pits.get(t.group, ""))
                   for t in tables)
    poker_room = parse_poker_room(top.sub("poker_room", {}))
    link = (parse_controller_link(top.sub("controller_link"), base) if "controller_link" in top.data
            else ControllerLinkConfig())
    surveillance = parse_surveillance(top.sub("surveillance", {}))
    top.done()
    check_links(source, groups, tables)
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
    from ``certs`` (default :func:`demo_certs_dir`; ``core.app.demo.ensure_demo_certs`` makes
    them)."""
    ref = resources.files("resources.floors").joinpath("demo.toml")
    return loads_floor(ref.read_text(encoding="utf-8"), "resources/floors/demo.toml",
                       certs or demo_certs_dir())


