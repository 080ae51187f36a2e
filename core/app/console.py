"""The console core: the floor, one controller link per configured table, and the slip printer,
wired together and running without any GUI.

``ConsoleCore`` owns one background thread running an asyncio loop for the controller links
(``links.LinkLoop``), the floor's ledger writer thread (controller events committed in batches,
``core.tablegames.ingest.writer``) and a small pool for the reads the links need (the
decisions to send again).  It builds its parts, one per job, and hands each its collaborators:

- ``claims.ClaimKeeper``: on a shared ledger, the tables this process holds and links;
- ``answers.Answers``: controller events to the writer, and PAY or REJECT back to the table's
  controller when the floor decides a hit (paid, auto-paid, rejected), sent again from the
  ledger whenever a table's link comes up, so a console restart or a decision taken while the
  link was down loses nothing;
- ``jackpot_lock.JackpotLock``: the Jackpot Lock state every linked table of a group is told;
- ``print_spool.PrintSpool``: win slips printed on a printer thread; a slip that could not print
  stays queued in the ledger and can be printed later;
- ``listeners.Listeners``: messages, link states and "read again" for the screens.

The Qt console, the ``podium`` commands, the tests and the benchmarks all drive this same object.
"""

from __future__ import annotations

import logging
import ssl
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from core.app.answers import Answers
from core.app.claims import ClaimKeeper, Service
from core.app.jackpot_lock import JackpotLock
from core.app.links import LinkLoop
from core.app.listeners import Listeners
from core.app.print_spool import PrintSpool, SlipRecord
from core.controllers.frames import JackpotState
from core.controllers.ownership import TableClaims
from core.controllers.services import TableService, service_name, table_services
from core.controllers.tls import link_tls
from core.floorconfig import FloorConfig, FloorConfigError
from core.people.auth import Credential
from core.tablegames import floor_approval
from core.tablegames.feed import FeedListener
from core.tablegames.floor import Floor
from core.tablegames.floor_approval import Approver
from core.tablegames.paper import Printer, SlipPaper
from core.tablegames.views import FloorChange

log = logging.getLogger("podium.runtime")

SWITCH_INTERVAL_S = 0.0005


class ConsoleCore:
    def __init__(self, engine: Engine, config: FloorConfig, paytables: dict[str, Any], *,
                 paper: SlipPaper | None = None,
                 printer: Printer | None = None, link_options: dict[str, Any] | None = None,
                 floor: Floor | None = None, serve: Iterable[str] | None = None,
                 name: str | None = None, kind: str = "console",
                 print_tables: Iterable[str] | None = None,
                 claim_interval: float = 1.0) -> None:
        """``serve``: the tables whose controller links this process serves (None: every
        table of the floor; ``()``: none, a console that is a client of the floor services).
        On PostgreSQL a table is served only while this process holds its claim
        (core/controllers/ownership.py: a second process asking is refused and stands by);
        on SQLite (one podium) every table in ``serve`` is linked at once.  ``name`` names
        the service in the ledger and to the other podiums; ``kind`` is "console" or
        "serve".  ``print_tables``: the tables whose slips made by another process (a
        service's auto-pay) this console prints (None: none; its own pays always print).
        ``paper``: how the floor it builds renders win slips (the app wiring's,
        ``printing.escpos.slip.PAPER``); given a ``floor``, the console uses that floor's."""
        self.engine = engine
        self.config = config
        self.paytables = paytables
        if floor is None:
            if paper is None:
                raise TypeError("ConsoleCore: give the slip paper (paper=) or a floor (floor=)")
            floor = Floor(engine, config, paytables, paper=paper)
        self.floor = floor
        configured = [t.id for t in config.tables]
        unknown = sorted(set(serve or ()) - set(configured))
        if unknown:
            raise ValueError(f"tables to serve: {', '.join(unknown)} not on this floor")
        self.service = Service(service_name(name, kind), kind,
                               frozenset(configured if serve is None else serve),
                               claim_interval)
        self.pit: str | None = None  # the pit this podium stands at (the console shows it)
        self.started_at: datetime | None = None  # when start() began (the ledger's clock)
        self.feed: FeedListener | None = None
        self._link_tls: ssl.SSLContext | None = None
        self._stopped = False
        # reads for the links (decisions to send again), off the link loop and the writer
        self._io = ThreadPoolExecutor(2, thread_name_prefix="podium-io")
        self._listeners = Listeners()
        self.link_loop = LinkLoop(config, link_options or {})
        self._claims = ClaimKeeper(self.floor, config, self.service, self.link_loop,
                                   self._listeners)
        self._jackpot = JackpotLock(self.floor, config, self.link_loop, self._listeners)
        self._answers = Answers(self.floor, self.link_loop, self._claims, self._jackpot,
                                self._listeners, self._io)
        self._spool = PrintSpool(self.floor, config, printer, self._listeners, print_tables)
        self.floor.add_listener(self._on_change)

    # -- who this process is (set before start; claim_interval is read every round) ----------
    @property
    def name(self) -> str:
        return self.service.name

    @name.setter
    def name(self, value: str) -> None:
        self.service.name = value

    @property
    def kind(self) -> str:
        return self.service.kind

    @kind.setter
    def kind(self, value: str) -> None:
        self.service.kind = value

    @property
    def serve(self) -> frozenset[str]:
        return self.service.serve

    @serve.setter
    def serve(self, value: frozenset[str]) -> None:
        self.service.serve = value

    @property
    def claim_interval(self) -> float:
        return self.service.claim_interval

    @claim_interval.setter
    def claim_interval(self, value: float) -> None:
        self.service.claim_interval = value

    @property
    def claims(self) -> TableClaims | None:
        """This process's table claims (PostgreSQL, once started with links)."""
        return self._claims.claims

    @property
    def printer(self) -> Printer | None:
        return self._spool.printer

    @property
    def print_tables(self) -> frozenset[str]:
        return self._spool.print_tables

    # -- lifecycle --------------------------------------------------------------------------
    def start(self, *, links: bool = True, approve: Approver | None = None) -> list[str]:
        """Sync the configuration into the ledger, then start the links and the printer
        thread.  Returns configuration warnings (also sent to the message listeners).  A
        ``[controller_link]`` whose certificates are missing or wrong is refused first
        (``tls.TlsError``, naming the key and the file), before anything starts.

        A floor file that changes what decides pays or contributions starts only once an
        executive approved the changes (core/tablegames/floor_approval.py): ``approve`` shows
        them and hands the executive's swipe and PIN to the recorder it is given (an approval
        at this console, ``floor_approval.Approver``); without it, or when nobody approved, the
        start is refused (FloorConfigError naming the changes and ``podium floor approve``)."""
        self.started_at = self.floor.ctx.now()
        pg = self.floor.ctx.pg
        serving = links and bool(self.serve)
        if serving:
            self._link_tls = link_tls(self.config)
        if approve is not None and (not pg or self.serve):  # this process records the file
            self._approve_changes(approve)
        # one podium (SQLite) resets its tables OFFLINE; on a shared ledger each table's
        # service does it when it takes the table
        warnings = (self.floor.start(None if not pg else ()) if not pg or self.serve
                    else self.floor.join())
        if pg:  # what the other processes on this ledger change, live (no polling)
            self.feed = FeedListener(self.floor.ctx, on_resync=self._resync)
            self.feed.start()
            if not self.feed.connected.is_set():
                warnings.append(f"live feed: not listening yet ({self.feed.last_error}); "
                                "the screens follow the other podiums once it is")
        self._jackpot.load(self.floor.snapshot().levels)  # told each controller after WELCOME
        # The ledger writer, the links and the GUI share one interpreter lock; every database
        # call gives it up and must win it back.  At the default 5 ms switch interval a busy
        # GUI or link thread can hold the writer up 5 ms per statement; 0.5 ms keeps the
        # writer's turn short (docs/architecture.md, "Threads").
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.floor.writer.start()
        for note in warnings:
            self._listeners.say(f"Ledger set-up: {note}")
        self._spool.start()
        if serving:
            if self._link_tls is None:
                self._listeners.say("Controller link: PLAIN TCP (the floor file says "
                                    "plain-lab-only): anyone on the network can pose as a "
                                    "table. Lab use only.")
                log.warning("controller link is plain TCP (plain-lab-only)")
            self.link_loop.start(self._answers.on_event, self._answers.on_status,
                                 tables=frozenset() if pg else self.serve, tls=self._link_tls,
                                 watch=self._claims.watch_leases if pg else None)
            if pg:  # a table is linked only while this process holds its claim
                self._claims.start()
        self._spool.tell_pending()
        return warnings

    def _approve_changes(self, approve: Approver) -> None:
        """Ask for an executive's approval of the file's unapproved deciding changes, and
        record it (the start that follows checks it again, in its own transaction)."""
        pending = floor_approval.unapproved(self.engine, self.config)
        if pending is None:
            return
        def record(credential: Credential) -> str:
            note = floor_approval.approve(self.engine, self.floor.ctx.gate.key, self.config,
                                          credential, via="console", expected=pending,
                                          clock=self.floor.ctx.now)
            log.info("floor change: %s", note)
            return note

        if not approve(pending, record):
            raise FloorConfigError(floor_approval.refusal(pending))

    def stop(self) -> None:
        """Close the links and the printer thread (a second call does nothing).  A decision
        taken after this reaches its controller from the ledger when a console starts again."""
        if self._stopped:
            return
        self._stopped = True
        self.link_loop.stopped = True
        self._claims.stop_worker()
        self.link_loop.close(self._claims.wake_watch)
        self.floor.writer.stop()
        self._claims.close()  # after the last event is committed: a standby goes on
        if self.feed is not None:
            self.feed.stop()
        self._io.shutdown(wait=True, cancel_futures=True)
        self._spool.stop()

    def _on_change(self, change: FloorChange) -> None:
        self._jackpot.on_change(change)
        self._answers.on_change(change)
        self._spool.on_change(change)

    def _resync(self) -> None:
        """The live feed was lost and is back: decisions taken meanwhile are sent again, and
        the screens read everything again."""
        if self.link_loop.links is not None:
            self._answers.resend_all()
            self._answers.submit_io(self._jackpot.reread)
        self._listeners.resync()

    # -- what is served ---------------------------------------------------------------------
    def table_services(self) -> dict[str, TableService]:
        """Per table: which process serves its controller link and whether it is up (a read;
        PostgreSQL.  One podium on SQLite serves every table itself: this console)."""
        if not self.floor.ctx.pg:
            up = self.link_loop.links is not None
            return {t.id: TableService(t.id, self.name, up, self.started_at,
                                       f"served by this console ({self.name})" if up else
                                       "NO SERVICE: this console links no controller")
                    for t in self.config.tables}
        return table_services(self.floor)

    def served_tables(self) -> frozenset[str]:
        """The tables whose controller links this process runs now."""
        return self.link_loop.served()

    def link_status(self) -> dict[str, tuple[bool, str]]:
        """Per table: (online, what the link last said), e.g. why a controller was refused."""
        return self.link_loop.status()

    def jackpot_states(self) -> dict[tuple[str, str], JackpotState]:
        """What the console tells the controllers of each level (tests, the status bar)."""
        return self._jackpot.states()

    def health(self) -> dict[str, Any]:
        """What ``podium serve`` reports on its health endpoint and in its log."""
        status = self.link_loop.status()
        claims = self.claims
        return {
            "service": self.name, "kind": self.kind,
            "service_id": claims.service_id if claims is not None else None,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "tables_wanted": len(self.serve),
            "tables_served": len(status),
            "tables_online": sum(1 for up, _d in status.values() if up),
            "offline": sorted(t for t, (up, _d) in status.items() if not up),
            "feed_listening": bool(self.feed and self.feed.connected.is_set()),
            # jobs waiting, the oldest's wait, the last commit, and why the ledger does not
            # record (core/tablegames/ingest/writer.py)
            "writer": self.floor.writer.health(),
            "lock_connection": bool(claims is not None and claims.connected),
        }

    # -- listeners --------------------------------------------------------------------------
    def add_listener(self, fn: Callable[[FloorChange], None]) -> Callable[[], None]:
        """``fn(change)`` after every commit; returns a function that removes it."""
        return self.floor.add_listener(fn)

    def add_status_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(table)`` whenever a table's link goes up or down (on the link thread): the
        screen follows this console's own link at once.  Returns its remover."""
        return self._listeners.add_status_listener(fn)

    def add_message_listener(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """``fn(text)``: plain-language messages for the supervisor (links, refusals, printer).
        Returns a function that removes the listener."""
        return self._listeners.add_message_listener(fn)

    def add_resync_listener(self, fn: Callable[[], None]) -> Callable[[], None]:
        """``fn()`` when changes may have been missed (the live feed reconnected): read the
        whole floor again.  Returns its remover."""
        return self._listeners.add_resync_listener(fn)

    # -- printing (the print spool) -----------------------------------------------------------
    def slip_bytes(self, slip_no: int) -> bytes:
        """The slip as it is shown (the preview): its stored bytes, after the VOID banner when
        it was voided."""
        return self._spool.slip_bytes(slip_no)

    def recent_slips(self, limit: int = 200) -> list[SlipRecord]:
        """The latest win slips with their print state (newest first)."""
        return self._spool.recent_slips(limit)

    def unprinted_slips(self) -> list[SlipRecord]:
        """The win slips made before this console started that no printer confirmed printing
        (never tried, failed, or print state unknown), oldest first: offered at start."""
        return self._spool.unprinted_slips(self.started_at)

    def print_slip(self, slip_no: int, reprint: bool = False) -> None:
        """Queue a slip for the printer thread (never blocks the caller); see
        ``PrintSpool.print_slip``."""
        self._spool.print_slip(slip_no, reprint)

    def print_slips(self, slip_nos: list[int]) -> None:
        """Queue slips that are not printed yet (the start-up offer)."""
        self._spool.print_slips(slip_nos)

    def print_bytes(self, data: bytes, name: str, what: str,
                    on_result: Callable[[bool, str, str], None] | None = None) -> None:
        """Queue other ready paper (a Bad Beat Jackpot share slip) for the printer thread;
        see ``PrintSpool.print_bytes``."""
        self._spool.print_bytes(data, name, what, on_result)

    def print_queued(self) -> int:
        """Queue every slip still waiting to print; how many."""
        return self._spool.print_queued()
