"""Who serves which table, as the screens and ``podium services`` read it (PostgreSQL): the
floor services (``floor_services``: up when their lock connection is a live backend and their
heartbeat recent), each table's service (``table_owners``) and its lease (``ledger_locks``).
Reads only; the claims themselves are :class:`core.controllers.ownership.TableClaims`.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import select, text

from core.controllers.lock_rows import LOCK_PREFIX
from core.ledger.models import FloorService, TableOwner

if TYPE_CHECKING:
    from core.tablegames.floor import Floor

STALE_AFTER = timedelta(seconds=10)  # a heartbeat older than this: the service is not answering


@dataclass(frozen=True)
class ServiceInfo:
    id: int
    name: str
    host: str
    pid: int
    kind: str
    started_at: datetime
    heartbeat_at: datetime
    stopped_at: datetime | None
    up: bool  # its lock connection is alive and its heartbeat is recent

    @property
    def label(self) -> str:
        return f"{self.name} ({self.host}, pid {self.pid})"


@dataclass(frozen=True)
class TableService:
    """A table's service as a console shows it."""

    table: str
    service: str  # the service's name ("" when no service ever served it)
    up: bool
    since: datetime | None
    detail: str  # in words: "served by pit-a (host1, pid 4242) since ..." / "NO SERVICE: ..."


def service_name(name: str | None, kind: str) -> str:
    return name or f"{kind}@{socket.gethostname()}"



def services(floor: Floor, *, include_stopped: bool = False) -> list[ServiceInfo]:
    """The floor services on this ledger: up when its lock connection is alive (PostgreSQL's
    own list of sessions) and its heartbeat recent."""
    ctx = floor.ctx
    now = ctx.now()
    with ctx.read() as s:
        q = select(FloorService).order_by(FloorService.id)
        if not include_stopped:
            q = q.where(FloorService.stopped_at.is_(None))
        rows = list(s.scalars(q))
        pids = [r.db_pid for r in rows if r.db_pid is not None]
        alive: set[int] = set()
        if pids and ctx.pg:
            alive = {int(p) for p in s.execute(
                text("SELECT pid FROM pg_stat_activity WHERE pid = ANY(:p)"),
                {"p": pids}).scalars()}
    return [ServiceInfo(r.id, r.name, r.host, r.pid, r.kind, r.started_at, r.heartbeat_at,
                        r.stopped_at,
                        r.stopped_at is None and r.db_pid in alive
                        and now - r.heartbeat_at < STALE_AFTER)
            for r in rows]


def table_services(floor: Floor) -> dict[str, TableService]:
    """Per table: the service serving it and whether that service is up (for the screens).
    A service's claim on a table lasts until its lease ends
    (:func:`core.controllers.ownership.lease_s` after its last heartbeat): the words say when,
    and that a standby asking then takes the table."""
    svc = {s.id: s for s in services(floor, include_stopped=True)}
    with floor.ctx.read() as s:
        owners = {str(t): (int(sid), since) for t, sid, since in s.execute(
            select(TableOwner.table_id, TableOwner.service_id, TableOwner.since)).all()}
        leases: dict[str, tuple[int | None, datetime | None, datetime]] = {}
        if floor.ctx.pg:
            leases = {str(t)[len(LOCK_PREFIX):]: (sid, until, now) for t, sid, until, now in
                      s.execute(text("SELECT name, holder_service, lease_until, "
                                     "clock_timestamp() FROM ledger_locks "
                                     "WHERE name LIKE 'table:%'"))}
    out: dict[str, TableService] = {}
    for t in floor.config.tables:
        found = owners.get(t.id)
        if found is None:
            out[t.id] = TableService(t.id, "", False, None,
                                     "NO SERVICE: no floor service serves this table now")
            continue
        sid, since = found
        info = svc.get(sid)
        holder, until, now = leases.get(t.id, (sid, None, since))
        lapsed = holder == sid and until is not None and until <= now
        if info is None:
            out[t.id] = TableService(t.id, f"#{sid}", False, since, "NO SERVICE")
        elif info.up and not lapsed:
            out[t.id] = TableService(t.id, info.name, True, since,
                                     f"served by {info.label} since {since:%H:%M:%S} UTC")
        else:
            why = ("stopped" if info.stopped_at is not None else
                   "not answering (last heartbeat "
                   f"{info.heartbeat_at:%H:%M:%S} UTC)")
            if holder != sid or until is None:
                when = "a standby takes the table at its next claim (every second), if one runs"
            elif lapsed:
                when = (f"its lease on the table ended at {until:%H:%M:%S} UTC; a standby "
                        "takes the table at its next claim (every second), if one runs")
            else:
                when = (f"its lease on the table ends at {until:%H:%M:%S} UTC; then a standby "
                        "takes the table at its next claim (every second), if one runs")
            out[t.id] = TableService(t.id, info.name, False, since,
                                     f"NO SERVICE: {info.label} {why}; {when}")
    return out


def holders(floor: Floor, tables: list[str], me: int | None) -> dict[str, str]:
    """Who holds each of ``tables`` (not service ``me``), in words, for a claim refused."""
    with floor.ctx.read() as s:
        rows = s.execute(
            select(TableOwner.table_id, TableOwner.since, FloorService.name,
                   FloorService.host, FloorService.pid, FloorService.id)
            .join(FloorService, FloorService.id == TableOwner.service_id)
            .where(TableOwner.table_id.in_(tables))).all()
    named = {str(t): (since, name, host, pid, sid) for t, since, name, host, pid, sid in rows}
    out: dict[str, str] = {}
    for t in tables:
        found = named.get(t)
        if found is None or found[4] == me:
            out[t] = "held by another service that has not named itself yet"
        else:
            since, name, host, pid, sid = found
            out[t] = (f"served by {name} (service #{sid} on {host}, pid {pid}) since "
                      f"{since:%Y-%m-%d %H:%M:%S} UTC")
    return out
