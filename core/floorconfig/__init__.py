"""The floor configuration: the casino, its printer, and its groups of linked tables.

A declared, typed schema (frozen dataclasses) read from TOML.  Every key is declared once,
with its type, bounds, default, unit and doc (``schema.setting``; docs/floor-file.md is made
from the declarations by ``python -m core.floorconfig.reference``); an unknown key is refused
(a typo must not silently fall back to a default).  ``load_floor`` checks everything that
needs nothing but the file; ``validate`` checks the groups against the paytables (their
levels) and returns warnings.

One module per part of the file: ``casino`` (``[casino]``), ``authorization``
(``[authorization]``, ``[surveillance]``), ``printer`` (``[printer]``), ``tables``
(``[[groups]]``, ``[[tables]]``, ``[controller_link]``), ``pokerroom`` (``[poker_room]``),
``floor`` (the whole file), ``checks`` (against the paytables); ``schema`` holds the
declarations and the reader.

A small floor (``resources/floors/demo.toml`` is the full one; every other key, with its
default, is in docs/floor-file.md, so no default is written here a second time)::

    [casino]
    name = "Podium Demo Casino"
    timezone = "Asia/Manila"

    [authorization]                   # docs/operator.md "People controls"
    executive_threshold = "5000.00"   # a pay at or above this needs an Executive card

    [printer]
    kind = "file"                     # or "network" with host, port and timeouts

    [controller_link]                 # docs/protocol.md, "Transport security"
    ca = "pki/ca.pem"                 # the casino CA (paths relative to this file's folder)
    cert = "pki/consoles/console.pem" # this console's certificate (OU console, clientAuth)
    key = "pki/consoles/console.key"  # its private key (mode 0600)

    [[groups]]
    id = "WA01"
    paytable = "FPGPP-WA01"
    [groups.levels.MAIN]
    seed = "10000.00"
    contribution_rate = "0.20"
    reserve_rate = "0.02"

    [[tables]]
    id = "PG-1"
    group = "WA01"
    host = "127.0.0.1"
    port = 17301
"""

from core.floorconfig.authorization import PIN_POLICIES, Authorization, SurveillanceConfig
from core.floorconfig.casino import MAX_HOLIDAYS, Casino
from core.floorconfig.checks import (
    ALL_PAYS_MIN_CONTRIBUTION,
    AboveCeiling,
    rates_above_ceiling,
    validate,
)
from core.floorconfig.floor import (
    MAX_FLOOR_CHARS,
    FloorConfig,
    demo_certs_dir,
    load_demo_floor,
    load_floor,
    loads_floor,
    parse_floor,
)
from core.floorconfig.pokerroom import MAX_DENOMINATION, PokerRoomConfig
from core.floorconfig.printer import FilePrinterConfig, NetworkPrinterConfig, PrinterConfig
from core.floorconfig.schema import REGISTRY, FloorConfigError, Setting
from core.floorconfig.tables import (
    CONTRIBUTION_OVERRIDE_GONE,
    LINK_TRANSPORTS,
    MAX_DECKS,
    MAX_HOST,
    MAX_ID,
    MAX_SEATS,
    ControllerLinkConfig,
    GroupConfig,
    LevelConfig,
    TableConfig,
    host_problem,
    ident_problem,
    machine,
    same_id,
)

__all__ = [
    "ALL_PAYS_MIN_CONTRIBUTION", "CONTRIBUTION_OVERRIDE_GONE", "LINK_TRANSPORTS", "MAX_DECKS",
    "MAX_DENOMINATION", "MAX_FLOOR_CHARS", "MAX_HOLIDAYS", "MAX_HOST", "MAX_ID", "MAX_SEATS",
    "PIN_POLICIES", "REGISTRY", "AboveCeiling", "Authorization", "Casino", "ControllerLinkConfig",
    "FilePrinterConfig", "FloorConfig", "FloorConfigError", "GroupConfig", "LevelConfig",
    "NetworkPrinterConfig", "PokerRoomConfig", "PrinterConfig", "Setting", "SurveillanceConfig",
    "TableConfig", "demo_certs_dir", "host_problem", "ident_problem", "load_demo_floor",
    "load_floor", "loads_floor", "machine", "parse_floor", "rates_above_ceiling", "same_id",
    "validate",
]
