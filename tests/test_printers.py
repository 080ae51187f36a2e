"""Printers: slip bytes reach a network printer exactly, or a file; failures are readable."""

from __future__ import annotations

import os
import socket
import struct
import threading
from pathlib import Path

import pytest

from printing.printers import (
    FilePrinter,
    NetworkPrinter,
    PrinterError,
    PrinterStatus,
    printer_from_config,
)
from printing.slip import demo_slip, render_slip
from tests.fake_printer import (
    STATUS_COVER_OPEN,
    STATUS_PAPER_OUT,
    FakePrinter,
    closed_port,
)


def test_network_printer_delivers_exactly_the_slip_bytes() -> None:
    data = render_slip(demo_slip())
    with FakePrinter() as fp:
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(data)
        assert fp.wait_for_job(timeout=10) == data
        assert fp.connections == 1


def test_network_printer_delivers_a_large_job_and_one_job_per_send() -> None:
    big = os.urandom(2_000_000).replace(b"\x10", b"\x11")  # no status queries inside
    small = render_slip(demo_slip(reprint=True))
    with FakePrinter() as fp:
        printer = NetworkPrinter("127.0.0.1", fp.port, timeout=5)
        printer.send(big)
        assert fp.wait_for_job(timeout=20, index=0) == big
        printer.send(small)
        assert fp.wait_for_job(timeout=10, index=1) == small
        assert fp.received == big + small


def test_printer_that_is_off_raises_a_readable_printer_error() -> None:
    port = closed_port()
    with pytest.raises(PrinterError) as e:
        NetworkPrinter("127.0.0.1", port, timeout=5).send(b"\x1b@hello\n")
    msg = str(e.value)
    assert msg.startswith(f"Printer 127.0.0.1:{port} does not answer (connection refused)")
    assert "Traceback" not in msg
    assert isinstance(e.value, ValueError)


def test_unknown_printer_host_names_the_host() -> None:
    with pytest.raises(PrinterError, match="no-such-printer.invalid"):
        NetworkPrinter("no-such-printer.invalid", 9100, timeout=2).send(b"x")


def test_printer_that_stops_taking_data_fails_within_the_timeout() -> None:
    """Paper out / cover open: the printer's TCP stack accepts the connection but nobody
    reads; once the buffers are full the send times out with a readable message."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)  # never accepted, never read
        port = server.getsockname()[1]
        with pytest.raises(PrinterError) as e:
            NetworkPrinter("127.0.0.1", port, timeout=0.5).send(b"\x00" * 64_000_000)
    msg = str(e.value)
    assert msg.startswith(f"Printer 127.0.0.1:{port} stopped taking data after ")
    assert "of 64000000 bytes (timed out)" in msg


def test_printer_that_drops_the_connection_mid_job_is_a_printer_error() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]

        def drop() -> None:
            conn, _ = server.accept()
            conn.recv(4096)  # the job has started: the printer took some bytes ...
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()  # ... then drops the connection (RST)

        t = threading.Thread(target=drop)
        t.start()
        with pytest.raises(PrinterError) as e:
            NetworkPrinter("127.0.0.1", port, timeout=5).send(b"\x00" * 64_000_000)
        t.join()
    assert f"Printer 127.0.0.1:{port} lost the connection after" in str(e.value)


@pytest.mark.parametrize("bad", [
    {"host": ""}, {"host": "p", "port": 0}, {"host": "p", "port": 70000},
    {"host": "p", "port": "9100"}, {"host": "p", "timeout": 0},
])
def test_bad_printer_settings_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(PrinterError):
        NetworkPrinter(**bad)  # type: ignore[arg-type]


def test_empty_data_is_refused_before_connecting() -> None:
    with pytest.raises(PrinterError, match="nothing to print"):
        NetworkPrinter("127.0.0.1", closed_port()).send(b"")


# ---- real-time status (DLE EOT) ------------------------------------------------------


def test_status_of_a_ready_printer_is_ok() -> None:
    with FakePrinter() as fp:
        st = NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()
    assert st.ok and st.online and st.problems() == []


def test_status_reports_cover_open_and_paper_out() -> None:
    with FakePrinter(status=STATUS_COVER_OPEN) as fp:
        st = NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()
    assert not st.ok and not st.online and "cover open" in st.problems()
    with FakePrinter(status=STATUS_PAPER_OUT) as fp:
        st = NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()
    assert not st.ok and "out of paper" in st.problems()


def test_status_bits_follow_the_epson_real_time_status() -> None:
    # DLE EOT 1 bit 3 = offline; DLE EOT 2 bit 2 = cover open, bit 5 = paper end;
    # DLE EOT 4 bits 2-3 = paper near end.
    near_end = PrinterStatus.from_bytes(0x12, 0x12, 0x1E)
    assert near_end.ok and near_end.paper_near_end and "paper nearly out" in near_end.problems()
    offline = PrinterStatus.from_bytes(0x1A, 0x12, 0x12)
    assert not offline.ok and offline.problems() == ["offline"]


def test_status_from_a_device_that_does_not_answer_status_is_a_printer_error() -> None:
    with FakePrinter(answer_status=False) as fp, pytest.raises(PrinterError,
                                                               match="does not report"):
        NetworkPrinter("127.0.0.1", fp.port, timeout=0.5).status()


def test_status_from_a_non_escpos_device_is_a_printer_error() -> None:
    with FakePrinter(status={1: 0xFF, 2: 0xFF, 4: 0xFF}) as fp, pytest.raises(
            PrinterError, match="should not"):
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()


def test_a_printer_out_of_paper_or_with_its_cover_open_is_sent_nothing() -> None:
    data = render_slip(demo_slip())
    for status, problem in ((STATUS_PAPER_OUT, "out of paper"), (STATUS_COVER_OPEN,
                                                                   "cover open")):
        with FakePrinter(status=status) as fp:
            with pytest.raises(PrinterError, match=f"{problem}.*nothing was printed"):
                NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(data)
            fp.wait_for_job(timeout=5)
            assert fp.jobs == [b""] and fp.status_queries == 3


def test_a_ready_printer_is_asked_its_status_then_sent_the_job_on_one_connection() -> None:
    data = render_slip(demo_slip())
    with FakePrinter() as fp:
        printer = NetworkPrinter("127.0.0.1", fp.port, timeout=5)
        printer.send(data)
        assert fp.wait_for_job(timeout=10) == data
        assert (fp.connections, fp.status_queries, printer.answers_status) == (1, 3, True)


def test_a_device_that_does_not_answer_status_still_prints_and_is_not_asked_again() -> None:
    data = render_slip(demo_slip())
    with FakePrinter(answer_status=False) as fp:
        printer = NetworkPrinter("127.0.0.1", fp.port, timeout=5)
        printer.send(data)
        assert fp.wait_for_job(timeout=10, index=0) == data
        assert printer.answers_status is False
        printer.send(data)
        assert fp.wait_for_job(timeout=10, index=1) == data
        assert fp.status_queries == 1  # only the first DLE EOT 1, never answered


def test_fake_printer_answers_a_status_query_split_across_packets() -> None:
    with FakePrinter() as fp, socket.create_connection(fp.address, timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"\x10")
        fp.wait_for_bytes(1)
        s.sendall(b"\x04\x01")
        assert s.recv(1) == b"\x12"


# ---- file printer --------------------------------------------------------------------


def test_file_printer_writes_slip_n_bin_with_the_exact_bytes(tmp_path: Path) -> None:
    data = render_slip(demo_slip())
    path = FilePrinter(tmp_path / "slips").send(data, 42)
    assert path == tmp_path / "slips" / "slip-42.bin"
    assert path.read_bytes() == data


def test_file_printer_never_overwrites_an_earlier_slip(tmp_path: Path) -> None:
    fp = FilePrinter(tmp_path)
    first = fp.send(b"original", 7)
    second = fp.send(b"reprint", 7)
    assert first.read_bytes() == b"original"
    assert second.name == "slip-7-2.bin" and second.read_bytes() == b"reprint"


def test_file_printer_numbers_unnamed_slips(tmp_path: Path) -> None:
    fp = FilePrinter(tmp_path)
    assert fp.send(b"a").name == "slip-1.bin"
    fp.send(b"b", 10)
    assert fp.send(b"c").name == "slip-11.bin"


@pytest.mark.parametrize("name", ["../escape", "a/b", "", -1, True])
def test_file_printer_refuses_unsafe_names(tmp_path: Path, name: object) -> None:
    with pytest.raises(PrinterError, match="file name"):
        FilePrinter(tmp_path).send(b"x", name)  # type: ignore[arg-type]


def test_file_printer_unwritable_folder_is_a_printer_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(PrinterError) as e:
        FilePrinter(blocker).send(b"data", 1)
    assert str(e.value).startswith(f"Printer folder {blocker} can not be written")


# ---- configuration -------------------------------------------------------------------


def test_printer_from_config(tmp_path: Path) -> None:
    net = printer_from_config("network", host="192.168.1.50", port=9100)
    assert isinstance(net, NetworkPrinter) and str(net) == "192.168.1.50:9100"
    f = printer_from_config("FILE", directory=tmp_path)
    assert isinstance(f, FilePrinter) and f.directory == tmp_path
    assert printer_from_config("none") is None
    with pytest.raises(PrinterError, match="kind"):
        printer_from_config("usb")
    with pytest.raises(PrinterError, match="host"):
        printer_from_config("network")
    with pytest.raises(PrinterError, match="directory"):
        printer_from_config("file")
