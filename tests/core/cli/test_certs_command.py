"""``podium certs init|issue|revoke`` (core/cli/certs_command.py): a usable CA and certificates,
private keys 0600, nothing overwritten unless asked; and ``podium simulate`` serves them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.oid import NameOID

from core import cli
from core.controllers import certs, tls
from core.controllers.sim_floor import build_simulator
from core.controllers.simulator import SimulatedTable
from core.tablegames.rules.paytables import load_paytables
from tests.core.controllers.test_link import Floor, arun, make_link, play, running, until


def _subject(path: Path) -> tuple[str, str, str]:
    cert = x509.load_pem_x509_certificate(path.read_bytes())

    def one(oid: x509.ObjectIdentifier) -> str:
        return str(cert.subject.get_attributes_for_oid(oid)[0].value)

    return (one(NameOID.ORGANIZATION_NAME), one(NameOID.ORGANIZATIONAL_UNIT_NAME),
            one(NameOID.COMMON_NAME))


def _link_to(folder: Path, table_id: str, crl: str = "") -> tuple[int, list[str]]:
    """Serve ``table_id`` with the folder's certificates (as podium simulate --certs does), link
    to it with the folder's console certificate; (events recorded, status details)."""
    if table_id == "T1":  # as podium simulate --tables 1 --certs FOLDER
        table = build_simulator(tables=1, port=0, certs=folder, paytables=load_paytables(),
                                speed=0, heartbeat=0.2)["T1"]
    else:
        table = SimulatedTable(table_id, load_paytables()["FPGPP-WA01"], speed=0, heartbeat=0.2,
                               tls=tls.controller_context(certs.table_files(folder, table_id)))
    recorded: list[int] = []

    async def main() -> None:
        await table.start()
        play(table, 1)
        floor = Floor()
        console = certs.console_files(folder)
        link = make_link(table, floor, tls=tls.console_context(
            tls.TlsFiles(console.ca, console.cert, console.key, crl)))
        task = await running(link)
        await until(lambda: not table.outbox or any("refused" in d for _, _, d in floor.statuses),
                    "linked or refused")
        await link.close()
        await task
        await table.stop()
        recorded.append(len(floor.recorded))
        details.extend(d for _, _, d in floor.statuses)

    details: list[str] = []
    arun(main)
    return recorded[0], details


def test_init_makes_a_usable_ca_console_and_table_certificates_with_private_keys_0600(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "pki"
    assert cli.main(["certs", "init", str(folder), "--tables", "2",
                     "--organization", "Casino X"]) == 0
    out = capsys.readouterr().out
    assert "[controller_link]" in out and f'ca = "{folder / "ca.pem"}"' in out
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert files == {"ca.pem", "ca.key", "consoles/console.pem", "consoles/console.key",
                     "tables/T1.pem", "tables/T1.key", "tables/T2.pem", "tables/T2.key"}
    for key in folder.rglob("*.key"):
        assert key.stat().st_mode & 0o777 == 0o600, key
    assert _subject(folder / "tables/T2.pem") == ("Casino X", tls.CONTROLLER_OU, "T2")
    assert _subject(folder / "consoles/console.pem") == ("Casino X", tls.CONSOLE_OU, "console")
    recorded, details = _link_to(folder, "T1")
    assert recorded > 0 and details[0].startswith("Nexus Command boot")


def test_init_takes_the_tables_of_a_floor_file(tmp_path: Path) -> None:
    assert cli.main(["certs", "init", str(tmp_path), "--floor", "demo"]) == 0
    assert sorted(p.name for p in (tmp_path / "tables").glob("*.pem")) == [
        f"PG-{i}.pem" for i in range(1, 7)]
    assert _subject(tmp_path / "tables/PG-4.pem")[0] == "Podium Demo Casino"


def test_a_ca_is_never_overwritten_and_a_certificate_only_renewed_when_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["certs", "init", str(tmp_path), "--tables", "1"]) == 0
    ca = (tmp_path / "ca.pem").read_bytes()
    capsys.readouterr()
    assert cli.main(["certs", "init", str(tmp_path), "--tables", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("podium certs init: ") and "holds a CA already" in err
    assert "\n" not in err and (tmp_path / "ca.pem").read_bytes() == ca
    assert cli.main(["certs", "issue", str(tmp_path), "--table", "T7",
                     "--console", "podium-2"]) == 0
    assert _subject(tmp_path / "tables/T7.pem")[2] == "T7"
    assert _subject(tmp_path / "consoles/podium-2.pem")[1] == tls.CONSOLE_OU
    old = (tmp_path / "tables/T7.pem").read_bytes()
    capsys.readouterr()
    assert cli.main(["certs", "issue", str(tmp_path), "--table", "T7"]) == 2
    assert "T7.pem: exists" in capsys.readouterr().err
    assert (tmp_path / "tables/T7.pem").read_bytes() == old
    assert cli.main(["certs", "issue", str(tmp_path), "--table", "T7", "--replace"]) == 0
    assert (tmp_path / "tables/T7.pem").read_bytes() != old
    assert (tmp_path / "tables/T7.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "ca.pem").read_bytes() == ca  # renewed from the same CA
    recorded, _ = _link_to(tmp_path, "T7")
    assert recorded > 0


@pytest.mark.parametrize(("argv", "named"), [
    (["init", "{d}", "--tables", "0"], "--tables: 0 must be 1..1000"),
    (["init", "{d}", "--floor", "/nonexistent/floor.toml"], "floor.toml"),
    (["init", "{d}", "--tables", "1", "--console", "../x"], "can not be a file name"),
    (["init", "{d}", "--tables", "1", "--days", "0"], "--days: 0 must be at least 1"),
    (["issue", "{d}", "--table", "T9"], "ca.pem: no such file"),
    (["issue", "{d}"], "name at least one --table ID or --console NAME"),
    (["revoke", "{d}", "{d}/x.pem"], "ca.pem: no such file"),
])
def test_bad_input_is_one_line_naming_it_and_status_2(
        argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["certs", *[a.format(d=tmp_path) for a in argv]]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and named in err and "Traceback" not in err


def test_a_revoked_controller_certificate_is_refused_by_a_console_with_the_crl(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["certs", "init", str(tmp_path), "--tables", "2"]) == 0
    assert cli.main(["certs", "revoke", str(tmp_path), str(tmp_path / "tables/T1.pem")]) == 0
    crl = str(tmp_path / "crl.pem")
    recorded, details = _link_to(tmp_path, "T1", crl)
    assert recorded == 0 and "revoked" in details[0]
    recorded, _ = _link_to(tmp_path, "T2", crl)  # the others still link
    assert recorded > 0


def test_simulate_serves_tls_or_plain_only_when_told(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--tables", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--certs" in err and "--plain-lab-only" in err and "\n" not in err
    assert cli.main(["simulate", "--tables", "2", "--certs", "/nonexistent"]) == 2
    assert "--certs: /nonexistent/ca.pem: no such file" in capsys.readouterr().err
    assert cli.main(["simulate", "--tables", "1", "--certs", "/x", "--plain-lab-only"]) == 2
    assert "not with --certs" in capsys.readouterr().err
