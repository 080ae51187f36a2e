"""Several simulated tables on one asyncio loop (:class:`Simulator`), and the simulator of
``podium simulate`` built from its options or a floor file (:func:`build_simulator`): each table
with its paytable, its port and its TLS certificate (docs/protocol.md, "The simulator").
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from core.controllers import tls as link_tls
from core.controllers.frames import DEFAULT_HEARTBEAT_MS, DEFAULT_RETRANSMIT_MS
from core.controllers.sim_game import SimulatorError
from core.controllers.simulator import SimulatedTable

DEFAULT_PAYTABLE = "FPGPP-WA01"
DEFAULT_PORT = 7700


class Simulator:
    """Several simulated tables on one asyncio loop."""

    def __init__(self, tables: Iterable[SimulatedTable]) -> None:
        self.tables = {t.table_id: t for t in tables}

    def __getitem__(self, table_id: str) -> SimulatedTable:
        return self.tables[table_id]

    async def start(self) -> None:
        for t in self.tables.values():
            await t.start()

    async def stop(self) -> None:
        for t in self.tables.values():
            await t.stop()

    async def serve_forever(self) -> None:
        await self.start()
        try:
            await asyncio.Event().wait()
        finally:
            await self.stop()


def _paytables() -> dict[str, Any]:
    from core.tablegames.rules.paytables import load_paytables
    return dict(load_paytables())


def _paytable(paytables: dict[str, Any], pid: str, what: str) -> Any:
    if pid not in paytables:
        raise SimulatorError(f"{what}: unknown paytable {pid!r} "
                             f"(known: {', '.join(sorted(paytables))})")
    return paytables[pid]


def _certs_folder(floor: Any, certs: str | Path | None, plain_lab_only: bool) -> Path | None:
    """The folder the tables' certificates come from, or None for plain TCP (lab only, and only
    when told): a floor file's ``[controller_link]`` decides for its tables, and its tables'
    certificates are by default beside its ``ca`` (the layout of ``podium certs init``)."""
    if floor is None:
        if certs is not None and plain_lab_only:
            raise SimulatorError("--plain-lab-only: not with --certs (TLS)")
        if certs is None and not plain_lab_only:
            raise SimulatorError("--certs: the simulated controllers serve TLS: give --certs DIR "
                                 "(podium certs init DIR --tables N makes one) or, in a lab "
                                 "only, --plain-lab-only")
        return Path(certs) if certs is not None else None
    link = floor.controller_link
    if link.transport == link_tls.PLAIN_LAB_ONLY:
        if certs is not None:
            raise SimulatorError(f'--certs: {floor.source} says transport = "plain-lab-only": '
                                 "its console does not speak TLS")
        return None
    if plain_lab_only:
        raise SimulatorError(f"--plain-lab-only: {floor.source} sets the controller link to TLS: "
                             "its console refuses plain TCP")
    if certs is None and not link.ca:
        raise SimulatorError(f"--certs: give the folder of the tables' certificates (podium certs "
                             f"init DIR --floor FILE makes one); {floor.source} has no "
                             "[controller_link] to find them by")
    return Path(certs) if certs is not None else Path(link.ca).parent


def _table_tls(folder: Path | None, table_id: str) -> ssl.SSLContext | None:
    if folder is None:
        return None
    from core.controllers.certs import table_files

    return link_tls.controller_context(table_files(folder, table_id))


def build_simulator(*, tables: int = 1, port: int = DEFAULT_PORT, host: str = "127.0.0.1",
                    paytable: str = DEFAULT_PAYTABLE, floor: Any = None, seed: int | None = 0,
                    speed: float = 1.0, mistake_rate: float = 0.02, jackpot_rate: float = 0.0,
                    seats: int = 6, heartbeat: float = DEFAULT_HEARTBEAT_MS / 1000,
                    paytables: dict[str, Any] | None = None,
                    bind_host: str | None = None, certs: str | Path | None = None,
                    plain_lab_only: bool = False,
                    retransmit: float = DEFAULT_RETRANSMIT_MS / 1000) -> Simulator:
    """The simulator of ``podium simulate``: ``tables`` tables T1..TN on ports
    ``port``..``port+N-1``, or the tables of a floor configuration (``floor``).  Over TLS
    with the certificates of the folder ``certs`` (``podium certs``; by default, for a floor,
    the folder of its ``ca``); plain TCP only with ``plain_lab_only`` or a floor that says
    so."""
    pts = paytables if paytables is not None else _paytables()
    common: dict[str, Any] = {"seed": seed, "speed": speed, "mistake_rate": mistake_rate,
                              "jackpot_rate": jackpot_rate, "heartbeat": heartbeat,
                              "retransmit": retransmit}
    sims = []
    if floor is not None:
        folder = _certs_folder(floor, certs, plain_lab_only)
        for t in floor.tables:
            pid = t.paytable or floor.group(t.group).paytable
            sims.append(SimulatedTable(t.id, _paytable(pts, pid, f"table {t.id}"),
                                       tls=_table_tls(folder, t.id), port=t.port,
                                       host=bind_host or t.host, seats=t.seats, decks=t.decks,
                                       paytable_id=pid, **common))
    else:
        if not 1 <= tables <= 100:
            raise SimulatorError(f"--tables: {tables} must be 1..100")
        if port < 0 or port + tables - 1 > 65535:
            raise SimulatorError(f"--port: {port}..{port + tables - 1} are not all TCP ports")
        pt = _paytable(pts, paytable, "--paytable")
        folder = _certs_folder(None, certs, plain_lab_only)
        for i in range(1, tables + 1):
            sims.append(SimulatedTable(f"T{i}", pt, tls=_table_tls(folder, f"T{i}"),
                                       port=port + i - 1, host=bind_host or host,
                                       seats=seats, paytable_id=paytable, **common))
    return Simulator(sims)

