"""``[printer]``: where win slips go, an ESC/POS printer on the network or files."""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from core.floorconfig.schema import Setting, _Section, declare, section, setting
from core.floorconfig.tables import host_problem

KIND = declare("printer", Setting(
    "choice", "\"network\": an ESC/POS printer on raw TCP; \"file\": slips written to files",
    "file", key="kind", choices=("file", "network")))["kind"]


@section("printer (kind = \"network\")")
class NetworkPrinterConfig:
    """An ESC/POS printer on raw TCP; every timeout in seconds (printing/escpos/printers.py)."""

    host: str = setting(
        kind="string",
        doc="the printer's IP address or DNS name",
        check=host_problem, rule="an IP address or a DNS name")
    port: int = setting(
        kind="integer",
        doc="its raw TCP port",
        default=9100, lo=1, hi=65535)
    timeout: float = setting(
        kind="seconds",
        doc="connecting",
        default=5.0, hi=600, unit="seconds")
    kind: Literal["network"] = field(default="network")
    status_timeout: float = setting(
        kind="seconds",
        doc="each real-time status answer (DLE EOT)",
        default=2.0, hi=600, unit="seconds")
    send_timeout: float = setting(
        kind="seconds",
        doc="the whole slip taken by the printer",
        default=10.0, hi=600, unit="seconds")
    confirm_timeout: float = setting(
        kind="seconds",
        doc="the slip printed and cut (GS r answered)",
        default=20.0, hi=600, unit="seconds")


@section("printer (kind = \"file\")")
class FilePrinterConfig:
    directory: str = setting(
        kind="text",
        doc="the folder slips are written to (\"\": the user data folder)",
        default="", empty_ok=True)
    kind: Literal["file"] = field(default="file")


PrinterConfig = NetworkPrinterConfig | FilePrinterConfig


def parse_printer(sec: _Section) -> PrinterConfig:
    printer: PrinterConfig
    if sec.read(KIND) == "network":
        printer = NetworkPrinterConfig(**sec.read_all(NetworkPrinterConfig))
    else:
        printer = FilePrinterConfig(**sec.read_all(FilePrinterConfig))
    sec.done()
    return printer
