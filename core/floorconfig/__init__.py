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
