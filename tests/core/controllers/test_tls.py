"""Mutual TLS on the controller link (core/controllers/tls.py; docs/protocol.md, "Transport
security"), over real loopback sockets: the console links only to a controller with its table's
certificate from the casino CA, and a controller takes commands only from a console's
certificate from that CA.  Plain TCP only where both ends are told it is a lab."""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sqlalchemy import func, select

from core.app.console import ConsoleCore
from core.app.demo import SimulatorThread, ensure_demo_certs
from core.controllers import certs, tls
from core.controllers.frames import CommandFrame, PayConfirmed, Welcome, hit_ref
from core.controllers.link import ControllerLink
from core.controllers.link_ends import REFUSAL_REPEATS
from core.controllers.protocol import encode_frame
from core.controllers.sim_floor import Simulator, build_simulator
from core.controllers.simulator import SimulatedTable
from core.floorconfig import load_demo_floor
from core.ledger.db import make_engine
from core.ledger.models import ControllerEvent as EventRow
from core.tablegames.rules.paytables import load_paytables
from printing.escpos.slip import PAPER
from tests.core.controllers.test_link import (
    Floor,
    arun,
    make_link,
    make_table,
    play,
    running,
    until,
)
from tests.harness import wait_for
from tests.ledgers import migrate
from tests.pki import pki

ROYAL = ["Ts", "Js", "Qs", "Ks", "As", "2c", "3d"]


def no_usage_certificate(tmp_path: Path, name: str, *, ou: str, cn: str) -> tls.TlsFiles:
    """A certificate from the casino CA without any extended key usage, which OpenSSL's purpose
    check lets through for either end (``podium certs`` never makes one; a casino's PKI
    might)."""
    ca = certs.Authority.load(pki().folder)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou),
                                        x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
               .issuer_name(ca.cert.subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=9)))
    cert = builder.sign(ca.key, hashes.SHA256())
    pem, key_file = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_file.chmod(0o600)
    return tls.TlsFiles(str(pki().folder / certs.CA_CERT), str(pem), str(key_file))


def raw_server_context(files: tls.TlsFiles) -> ssl.SSLContext:
    """A controller's context WITHOUT Podium's checks of its own certificate (a forger's)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(files.cert, files.key)
    ctx.load_verify_locations(files.ca)
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


# ------------------------------------------------------------------ the console's side


def record_delays(link: ControllerLink) -> list[float]:
    """The delays the link's backoff chooses, recorded; the sleeps themselves kept short."""
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)
        await asyncio.sleep(0.01)

    link._sleep = sleep  # type: ignore[method-assign]
    return delays


class Saboteur:
    """A loopback TCP proxy to a controller that damages one chunk it reads from ``side``
    ("console" or "controller"), once: one byte (in its middle) flipped, or the chunk dropped.
    Which chunk: number ``chunk`` of the first connection (from the console 0 is the ClientHello,
    1 its certificate and Finished; from the controller 0 is the ServerHello and what follows
    it), or, after :meth:`arm`, the next one.  Everything else passes unchanged."""

    def __init__(self, target_port: int, side: str, damage: str, chunk: int | None = 0) -> None:
        self.target_port = target_port
        self.side, self.damage, self.chunk = side, damage, chunk
        self.port = 0
        self.armed = False
        self.damaged = False
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for w in self._writers:
            w.transport.abort()
        await self._server.wait_closed()

    def arm(self) -> None:
        self.armed = True

    async def _client(self, c_reader: asyncio.StreamReader,
                      c_writer: asyncio.StreamWriter) -> None:
        first = not self._writers
        u_reader, u_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers += [c_writer, u_writer]
        await asyncio.gather(self._pipe(c_reader, u_writer, self.side == "console", first),
                             self._pipe(u_reader, c_writer, self.side == "controller", first))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    from_side: bool, first: bool) -> None:
        n = 0
        try:
            while data := await reader.read(65_536):
                if from_side and not self.damaged and (self.armed or first and n == self.chunk):
                    self.damaged = True
                    if self.damage == "drop":
                        data = b""
                    else:
                        middle = len(data) // 2
                        data = data[:middle] + bytes([data[middle] ^ 0x20]) + data[middle + 1:]
                n += 1
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.transport.abort()


def test_a_controller_with_its_tables_certificate_links_over_tls_and_events_flow() -> None:
    async def main() -> None:
        table = make_table("T1")  # T1's certificate from the casino CA
        await table.start()
        play(table, 3)
        floor = Floor()
        link = make_link(table, floor)
        task = await running(link)
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "every event recorded and acknowledged")
        assert link._writer is not None
        version = link._writer.get_extra_info("ssl_object").version()
        await link.close()
        await task
        await table.stop()
        assert version in ("TLSv1.2", "TLSv1.3")
        assert [k[2] for k in floor.calls] == [f.origin.seq for f in table.history]
        assert floor.statuses[0][:2] == ("T1", True)

    arun(main)


# after: how many connections in a row end so before the link counts the controller refused.
# What the handshake shows (a failed verification, an alert, no TLS) one damaged byte can show
# too, so it must repeat; what is checked after a completed handshake can not be damage.
@pytest.mark.parametrize(("server", "named", "after"), [
    ("plain TCP", "does not answer in TLS", REFUSAL_REPEATS),
    ("another CA", "not issued by the casino CA of this console", REFUSAL_REPEATS),
    ("another table", "presents the certificate of table 'T2'; the floor configures table "
                      "'T1' there", 1),
    ("a console's certificate", "not a table controller's certificate (its extended key usage "
                                "lacks serverAuth)", REFUSAL_REPEATS),
    ("no extended key usage", "presents a certificate that is not a table controller's", 1),
    # the other way round: the controller is right, this console's certificate is not from its CA
    ("refusing this console", "closed the connection before its HELLO: it does not accept this "
                              "console's certificate", REFUSAL_REPEATS),
])
def test_a_controller_without_its_tables_certificate_is_refused_and_nothing_is_recorded(
        server: str, named: str, after: int, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    contexts: dict[str, Any] = {
        "plain TCP": lambda: None,
        "another CA": lambda: pki("foreign").table_context("T1"),
        "another table": lambda: pki().table_context("T2"),
        "a console's certificate": lambda: raw_server_context(pki().console()),
        "no extended key usage": lambda: raw_server_context(no_usage_certificate(
            tmp_path, "T1", ou=tls.CONSOLE_OU, cn="T1")),
        "refusing this console": lambda: pki().table_context("T1"),
    }

    def console_context() -> ssl.SSLContext:
        if server != "refusing this console":
            return pki().console_context()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # trusts the casino CA, but its own
        ctx.check_hostname = False                       # certificate is from another one
        ctx.load_verify_locations(pki().console().ca)
        foreign = pki("foreign").console()
        ctx.load_cert_chain(foreign.cert, foreign.key)
        return ctx

    async def main() -> None:
        table = make_table("T1", tls=contexts[server]())
        await table.start()
        play(table, 2)
        pending = dict(table.outbox)
        floor = Floor()
        link = make_link(table, floor, tls=console_context(), max_reconnect_delay=30)
        delays = record_delays(link)
        task = await running(link)
        await until(lambda: len(delays) >= after + 2, "the link retried")
        await link.close()
        await task
        await table.stop()
        assert floor.calls == [] and table.outbox == pending  # nothing recorded or acknowledged
        assert not any(online for _, online, _ in floor.statuses)
        details = [d for _, _, d in floor.statuses if d != "closed"]
        # a connection fault until it repeats, then the refusal, like a refused HELLO
        assert len(details) == (1 if after == 1 else 2), details
        assert not details[0].startswith("TLS refused: ") or after == 1
        assert details[-1].startswith("TLS refused: ") and named in details[-1]
        # the first delay until it counts as refused (the controller answered: it is up, no
        # doubling), then the longest delay
        assert delays[:after - 1] == [0.01, 0.01][:after - 1]
        assert set(delays[after - 1:]) == {30}

    caplog.set_level("INFO")
    arun(main)
    logged = [r.getMessage() for r in caplog.records
              if r.name == "podium.link" and r.levelname == "ERROR"]
    assert len(logged) == 1 and named in logged[0]  # said once, not at every retry


# the first status after the damage names its cause (never an empty reason, never a refusal)
@pytest.mark.parametrize(("side", "damage", "chunk", "cause"), [
    ("controller", "flip", 0, "TLS handshake failed: decryption failed or bad record mac (data "
                              "damaged on the way)"),
    ("console", "flip", 0, "TLS handshake failed: decryption failed or bad record mac (data "
                           "damaged on the way)"),
    # the console's certificate and Finished damaged: the controller drops the connection (TLS
    # 1.3: after the console's side of the handshake, as when it refuses the certificate)
    ("console", "flip", 1, "the controller closed the connection before its HELLO"),
    ("controller", "drop", 0, "timed out after 0.5 s (connecting or in the TLS handshake)"),
    ("console", "drop", 0, "timed out after 0.5 s (connecting or in the TLS handshake)"),
])
def test_a_damaged_or_lost_first_handshake_flight_is_a_connection_fault_retried_at_once(
        side: str, damage: str, chunk: int, cause: str,
        caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        table = make_table("T1")
        await table.start()
        play(table, 2)
        proxy = Saboteur(table.port, side, damage, chunk)
        await proxy.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", proxy.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(), heartbeat=0.2, paytable="FPGPP-WA01",
                              decks=1, reconnect_delay=0.01, max_reconnect_delay=30,
                              connect_timeout=0.5)
        delays = record_delays(link)
        task = await running(link)
        await until(lambda: not table.outbox and len(floor.recorded) == len(table.history),
                    "every event recorded and acknowledged")
        await link.close()
        await task
        await proxy.stop()
        await table.stop()
        assert proxy.damaged
        assert floor.statuses[0] == ("T1", False, f"can not connect to 127.0.0.1:{proxy.port}: "
                                                  f"{cause}")
        assert floor.statuses[1][:2] == ("T1", True)  # back at the next try
        assert delays == [0.01]  # the ordinary backoff, not the 30 s of a refusal

    caplog.set_level("INFO")
    arun(main)
    assert not [r for r in caplog.records if r.name == "podium.link" and r.levelname == "ERROR"]




def test_a_record_damaged_on_a_live_link_is_a_connection_fault_named_in_words() -> None:
    async def main() -> None:
        table = make_table("T1")
        await table.start()
        proxy = Saboteur(table.port, "controller", "flip", chunk=None)
        await proxy.start()
        floor = Floor()
        link = ControllerLink("T1", "127.0.0.1", proxy.port, floor.on_event, floor.on_status,
                              tls=pki().console_context(), heartbeat=0.2, paytable="FPGPP-WA01",
                              decks=1, reconnect_delay=0.01, max_reconnect_delay=30)
        delays = record_delays(link)
        task = await running(link)
        await until(lambda: link.online, "the link up")
        proxy.arm()  # the controller's next heartbeat, one byte flipped
        await until(lambda: len(floor.statuses) >= 3 and floor.statuses[-1][1], "back up")
        await link.close()
        await task
        await proxy.stop()
        await table.stop()
        assert [online for _, online, _ in floor.statuses[:3]] == [True, False, True]
        assert floor.statuses[1][2] == ("connection lost: TLS: decryption failed or bad record "
                                        "mac (data damaged on the way)")
        assert delays == [0.01]

    arun(main)


def test_a_console_set_up_for_tls_never_records_from_a_plain_controller(tmp_path: Path) -> None:
    paytables = load_paytables()
    base = load_demo_floor()
    t = base.table("PG-1")
    sim = SimulatedTable("PG-1", paytables["FPGPP-WA01"], tls=None, port=0, speed=0,
                         heartbeat=0.5)
    thread = SimulatorThread(Simulator([sim]))
    thread.start()
    thread.call(sim.play_round)
    config = replace(base, tables=(replace(t, port=sim.port),), groups=(base.group(t.group),),
                     controller_link=pki().link_config())
    engine = make_engine(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    migrate(engine)
    console = ConsoleCore(engine, config, paytables,
                          link_options={"heartbeat": 0.5, "reconnect_delay": 0.05,
                                        "max_reconnect_delay": 0.2}, paper=PAPER)
    try:
        console.start()
        wait_for(lambda: "does not answer in TLS" in console.link_status()["PG-1"][1],
                 what="the plain controller refused")
        assert sim.connections >= 1  # it was reached, and not believed
    finally:
        console.stop()
        thread.stop()
    with engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(EventRow)) == 0
    assert sim.outbox and not sim.ack_results
    engine.dispose()


def test_a_floor_without_certificates_does_not_start_its_links(tmp_path: Path) -> None:
    paytables = load_paytables()
    config = replace(load_demo_floor(tmp_path / "none"))  # the demo's paths, no files there
    engine = make_engine(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    migrate(engine)
    console = ConsoleCore(engine, config, paytables, paper=PAPER)
    with pytest.raises(tls.TlsError, match=r"controller_link\.ca: .*ca\.pem: no such file"):
        console.start()
    assert console.link_loop.thread is None  # refused before anything started
    engine.dispose()


def test_plain_tcp_links_only_where_both_ends_are_told_it_is_a_lab() -> None:
    async def main() -> None:
        table = make_table("T1", tls=None)
        await table.start()
        play(table, 2)
        floor = Floor()
        link = make_link(table, floor, tls=None)
        task = await running(link)
        await until(lambda: not table.outbox, "every event acknowledged")
        plain = link._writer is not None and link._writer.get_extra_info("ssl_object") is None
        await link.close()
        await task
        await table.stop()
        assert plain and len(floor.recorded) == len(table.history)

    arun(main)


# ------------------------------------------------------------------ the controller's side


@pytest.mark.parametrize(("client", "accepted"), [
    ("the console's certificate", True),  # the control: the same script does reach the table
    ("plain TCP", False),
    ("no certificate", False),
    ("another CA", False),
    ("a controller's certificate", False),
    ("no extended key usage", False),
])
def test_a_forged_console_is_refused_by_the_controller_and_no_command_reaches_it(
        client: str, accepted: bool, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    def context() -> ssl.SSLContext | None:
        if client == "plain TCP":
            return None
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # a forger does not care who answers
        files = {"the console's certificate": lambda: pki().console(),
                 "no certificate": lambda: None,
                 "another CA": lambda: pki("foreign").console(),
                 "a controller's certificate": lambda: pki().table("T2"),
                 "no extended key usage": lambda: no_usage_certificate(
                     tmp_path, "forger", ou=tls.CONTROLLER_OU, cn="T2"),
                 }[client]()
        if files is not None:
            ctx.load_cert_chain(files.cert, files.key)
        return ctx

    async def main() -> None:
        table = make_table("T1", seed=3, bet_probability=0.0)
        table.force_hand(2, ROYAL)
        await table.start()
        frames = table.play_round()
        ref = hit_ref(frames[1].origin)
        assert ref in table.open_hits
        received = b""
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", table.port,
                                                           ssl=context())
            writer.write(encode_frame(Welcome("forger", 200))
                         + encode_frame(CommandFrame("forger", 1, PayConfirmed(1, 2, ref, 1))))
            while not accepted or ref not in table.decisions:
                data = await asyncio.wait_for(reader.read(65536), 30)
                if not data:
                    break
                received += data
            writer.transport.abort()
        except (ssl.SSLError, ConnectionError):
            pass  # refused during the handshake (TLS 1.2) or at the first read (TLS 1.3)
        await table.stop()
        if accepted:
            assert b'"HELLO"' in received and table.decisions == {ref: "paid"}
            assert table.connections == 1
        else:
            assert b'"HELLO"' not in received  # not even told which table it reached
            assert table.decisions == {} and ref in table.open_hits
            assert table.connections == 0  # nor did it push a real console off

    caplog.set_level("INFO")
    arun(main)
    if client == "no extended key usage":  # past OpenSSL, refused by Podium's own check
        assert any("refused: not a console's certificate" in r.getMessage()
                   for r in caplog.records if r.name == "podium.simulator")


# ------------------------------------------------------------------ the demo


def test_the_demo_makes_its_test_certificates_once_and_runs_over_tls(tmp_path: Path) -> None:
    floor = load_demo_floor(tmp_path / "demo-certs")
    folder = ensure_demo_certs(floor)
    assert folder == tmp_path / "demo-certs"
    keys = sorted(folder.rglob("*.key"))
    assert len(keys) == 2 + len(floor.tables)  # the CA, the console, one per table
    assert {k.stat().st_mode & 0o777 for k in keys} == {0o600}
    ca = (folder / "ca.pem").read_bytes()
    assert ensure_demo_certs(floor) == folder and (folder / "ca.pem").read_bytes() == ca
    sim = build_simulator(floor=floor, paytables=load_paytables())
    assert all(t.tls is not None for t in sim.tables.values())
    assert isinstance(tls.link_tls(floor), ssl.SSLContext)

    async def main() -> None:  # PG-1 of the demo, on a free port, with the demo's certificates
        table = SimulatedTable("PG-1", load_paytables()["FPGPP-WA01"], speed=0, heartbeat=0.2,
                               tls=tls.controller_context(certs.table_files(folder, "PG-1")))
        await table.start()
        play(table, 1)
        rec = Floor()
        link = make_link(table, rec, table_id="PG-1", tls=tls.link_tls(floor))
        task = await running(link)
        await until(lambda: not table.outbox, "the demo's table acknowledged")
        await link.close()
        await task
        await table.stop()
        assert len(rec.recorded) == len(table.history)

    arun(main)
