"""Printers: slip bytes reach a network printer exactly, or a file; failures are readable."""

from __future__ import annotations

import errno
import io
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from printing.escpos import printers
from printing.escpos.printers import (
    FilePrinter,
    NetworkPrinter,
    PrinterError,
    PrinterStatus,
    printer_from_config,
)
from printing.escpos.slip import demo_slip, render_slip
from tests.fake_printer import (
    PAPER_END,
    STATUS_COVER_OPEN,
    STATUS_CUTTER_ERROR,
    STATUS_PAPER_NEAR_END,
    STATUS_PAPER_OUT,
    STATUS_UNRECOVERABLE,
    FakePrinter,
    closed_port,
)
from tests.harness import wait_for


def test_network_printer_delivers_exactly_the_slip_bytes() -> None:
    data = render_slip(demo_slip())
    with FakePrinter() as fp:
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(data)
        assert fp.wait_for_job(timeout=10) == data
        assert fp.connections == 1


def test_network_printer_delivers_a_large_job_and_one_job_per_send() -> None:
    # no status queries inside (DLE EOT, GS r): the fake would take them out of the job
    big = os.urandom(2_000_000).replace(b"\x10", b"\x11").replace(b"\x1d", b"\x1e")
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
    assert (e.value.reason, e.value.sent) == ("refused", 0)


def test_unknown_printer_host_names_the_host() -> None:
    with pytest.raises(PrinterError, match="no-such-printer.invalid") as e:
        NetworkPrinter("no-such-printer.invalid", 9100, timeout=2).send(b"x")
    assert e.value.reason == "unknown_host"


def test_a_printer_that_accepts_the_connection_and_never_reads_gets_nothing() -> None:
    """Seen on the floor: such a printer had two slips recorded as printed with 0 bytes
    received.  It does not answer its status: the job is refused before any byte goes out."""
    data = render_slip(demo_slip())
    sent: list[str] = []
    with FakePrinter(read=False) as fp:
        printer = NetworkPrinter("127.0.0.1", fp.port, timeout=5, status_timeout=0.3)
        for _ in range(2):
            with pytest.raises(PrinterError) as e:
                printer.send(data, before_send=lambda: sent.append("started"))
            assert (e.value.reason, e.value.sent, e.value.total) == ("no_status", 0, len(data))
            assert "did not report its status within 0.3 s; nothing was sent" in str(e.value)
        assert fp.received == b"" and sent == []


def test_printer_that_stops_taking_data_fails_within_the_send_timeout() -> None:
    """A printer that answers its status, then stops reading (paper jam with a full buffer):
    the network buffers fill, the send does not complete within send_timeout."""
    big = b"\x00" * 64_000_000
    with FakePrinter(stop_reading_after=1) as fp:
        port = fp.port
        with pytest.raises(PrinterError) as e:
            NetworkPrinter("127.0.0.1", port, timeout=5, send_timeout=0.5).send(big)
    msg = str(e.value)
    assert msg.startswith(f"Printer 127.0.0.1:{port} stopped taking data after ")
    assert "of 64,000,000 bytes (not read within 0.5 s)" in msg
    assert e.value.reason == "not_reading" and 0 < e.value.sent < len(big)


@pytest.mark.parametrize("size", [1_057, 64_000_000])
def test_printer_that_resets_mid_job_is_a_failed_print(size: int) -> None:
    """The printer takes 400 bytes, then resets the connection: however much the network had
    taken by then, the job is not confirmed and fails."""
    data = (render_slip(demo_slip()) * 100)[:size]
    with FakePrinter(reset_after=400) as fp:
        port = fp.port
        with pytest.raises(PrinterError) as e:
            NetworkPrinter("127.0.0.1", port, timeout=5, confirm_timeout=5).send(data)
        assert fp.wait_for_job(timeout=10) == data[:400]
    assert e.value.reason == "connection_lost" and e.value.sent > 0
    assert f"Printer 127.0.0.1:{port} lost the connection" in str(e.value)


@pytest.mark.parametrize("bad", [
    {"host": ""}, {"host": "p", "port": 0}, {"host": "p", "port": 70000},
    {"host": "p", "port": "9100"}, {"host": "p", "timeout": 0},
    {"host": "p", "status_timeout": 0}, {"host": "p", "send_timeout": -1},
    {"host": "p", "confirm_timeout": True},
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
    assert st.ok and st.online and st.problems() == [] and st.raw == b"\x12\x12\x12\x12"


def test_status_reports_cover_open_and_paper_out() -> None:
    with FakePrinter(status=STATUS_COVER_OPEN) as fp:
        st = NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()
    assert not st.ok and not st.online and "cover open" in st.problems()
    with FakePrinter(status=STATUS_PAPER_OUT) as fp:
        st = NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()
    assert not st.ok and "out of paper" in st.problems()


def test_status_bits_follow_the_epson_real_time_status() -> None:
    # DLE EOT 1 bit 3 = offline; DLE EOT 2 bit 2 = cover open, bit 5 = paper end, bit 6 =
    # error; DLE EOT 3 bit 2 = mechanical, bit 3 = autocutter, bit 5 = unrecoverable, bit 6 =
    # auto-recoverable error; DLE EOT 4 bits 2-3 = paper near end, bits 5-6 = paper end.
    def codes(*answers: int) -> list[str]:
        return [code for code, _words in PrinterStatus.from_bytes(*answers).faults()]

    assert codes(0x12, 0x12, 0x12, 0x12) == []
    assert codes(0x12, 0x12, 0x12, 0x1E) == ["paper_near_end"]  # a fault for a jackpot slip
    assert codes(0x12, 0x12, 0x12, 0x72) == ["paper_out"]
    assert codes(0x1A, 0x12, 0x12, 0x12) == ["offline"]
    assert codes(0x1A, 0x16, 0x12, 0x12) == ["cover_open"]
    assert codes(0x1A, 0x52, 0x1A, 0x12) == ["cutter_error"]
    assert codes(0x1A, 0x52, 0x16, 0x12) == ["mechanical_error"]
    assert codes(0x1A, 0x52, 0x32, 0x12) == ["unrecoverable_error"]
    assert codes(0x1A, 0x52, 0x52, 0x12) == ["recoverable_error"]
    assert codes(0x1A, 0x52, 0x12, 0x12) == ["printer_error"]
    st = PrinterStatus.from_bytes(0x1A, 0x36, 0x12, 0x7E)
    assert st.problems() == ["cover open", "out of paper"]


def test_status_from_a_device_that_does_not_answer_status_is_a_printer_error() -> None:
    with FakePrinter(answer_status=False) as fp, pytest.raises(PrinterError,
                                                               match="does not report"):
        NetworkPrinter("127.0.0.1", fp.port, timeout=5, status_timeout=0.3).status()


def test_status_from_a_non_escpos_device_is_a_printer_error() -> None:
    with FakePrinter(status={1: 0xFF, 2: 0xFF, 3: 0xFF, 4: 0xFF}) as fp, pytest.raises(
            PrinterError, match="should not") as e:
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).status()
    assert e.value.reason == "bad_status"


@pytest.mark.parametrize(("status", "reason", "words"), [
    (STATUS_PAPER_OUT, "paper_out", "out of paper"),
    (STATUS_PAPER_NEAR_END, "paper_near_end", "paper nearly out"),
    (STATUS_COVER_OPEN, "cover_open", "cover open"),
    (STATUS_CUTTER_ERROR, "cutter_error", "cutter error"),
    (STATUS_UNRECOVERABLE, "unrecoverable_error", "unrecoverable error"),
    ({1: 0x1A, 2: 0x12, 3: 0x12, 4: 0x12}, "offline", "offline"),
])
def test_a_printer_that_is_not_ready_is_sent_nothing(status: dict[int, int], reason: str,
                                                     words: str) -> None:
    data = render_slip(demo_slip())
    started: list[int] = []
    with FakePrinter(status=status) as fp:
        with pytest.raises(PrinterError, match=f"{words}.*nothing was sent") as e:
            NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(
                data, before_send=lambda: started.append(1))
        fp.wait_for_job(timeout=5)
        assert fp.jobs == [b""] and fp.status_queries == 4 and fp.confirm_queries == 0
    assert (e.value.reason, e.value.sent) == (reason, 0) and started == []


def test_a_ready_printer_is_asked_its_status_sent_the_job_and_confirms_it() -> None:
    """One connection: DLE EOT 1-4, the job, GS r 1 (answered once the job is printed), DLE
    EOT 1-4 again; before_send() runs once, after the first status and before the job."""
    data = render_slip(demo_slip())
    with FakePrinter() as fp:
        seen: list[tuple[int, int]] = []
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(
            data, before_send=lambda: seen.append((fp.status_queries, len(fp.received))))
        assert fp.wait_for_job(timeout=10) == data
        assert (fp.connections, fp.status_queries, fp.confirm_queries) == (1, 8, 1)
        assert seen == [(4, 0)]


@pytest.mark.parametrize(("after", "reason", "words"), [
    (STATUS_COVER_OPEN, "cover_open", "cover open"),
    (STATUS_CUTTER_ERROR, "cutter_error", "cutter error"),
    (STATUS_UNRECOVERABLE, "unrecoverable_error", "unrecoverable error"),
    (STATUS_PAPER_OUT, "paper_out", "out of paper"),
    (STATUS_PAPER_NEAR_END, "paper_near_end", "paper nearly out"),
    ({1: 0x1A, 2: 0x12, 3: 0x12, 4: 0x12}, "offline", "offline"),
])
def test_a_fault_while_printing_fails_the_print_with_its_reason(
        after: dict[int, int], reason: str, words: str) -> None:
    """Ready before the job, not after it: the job went out, so the slip may be (partly)
    on paper; the print is failed, with the printer's reason."""
    data = render_slip(demo_slip())
    with FakePrinter(status_after=after) as fp:
        with pytest.raises(PrinterError) as e:
            NetworkPrinter("127.0.0.1", fp.port, timeout=5, confirm_timeout=0.5).send(data)
        assert fp.wait_for_job(timeout=10) == data
    assert (e.value.reason, e.value.sent, e.value.total) == (reason, len(data), len(data))
    assert words in str(e.value) and "partly printed" in str(e.value)


def test_a_printer_that_never_confirms_the_job_is_a_failed_print() -> None:
    data = render_slip(demo_slip())
    with FakePrinter(confirm=False) as fp:
        with pytest.raises(PrinterError) as e:
            NetworkPrinter("127.0.0.1", fp.port, timeout=5, confirm_timeout=0.3).send(data)
        assert fp.wait_for_job(timeout=10) == data
    assert (e.value.reason, e.value.sent) == ("not_confirmed", len(data))
    assert "did not confirm printing it within 0.3 s" in str(e.value)


def test_paper_end_in_the_confirmation_fails_the_print() -> None:
    with FakePrinter(paper_sensor=PAPER_END) as fp, pytest.raises(PrinterError) as e:
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(render_slip(demo_slip()))
    assert e.value.reason == "paper_out" and e.value.sent > 0


def test_a_status_stall_fails_that_job_only_and_the_next_job_is_checked() -> None:
    """Seen on the floor: one stall turned status checks off for the rest of the process."""
    data = render_slip(demo_slip())
    with FakePrinter(stall_status=1) as fp:
        printer = NetworkPrinter("127.0.0.1", fp.port, timeout=5, status_timeout=0.3)
        with pytest.raises(PrinterError) as e:
            printer.send(data)
        assert (e.value.reason, e.value.sent) == ("no_status", 0)
        assert fp.wait_for_job(timeout=5, index=0) == b""
        before = fp.status_queries
        printer.send(data)  # asked again, answered, printed and confirmed
        assert fp.wait_for_job(timeout=10, index=1) == data
        assert fp.status_queries - before == 8 and fp.confirm_queries == 1


def test_a_job_that_holds_a_status_query_is_still_confirmed_by_gs_r() -> None:
    """A DLE EOT inside the job (it can occur in image data) is answered at once by the
    printer; that stray answer is not taken for the confirmation."""
    data = b"\x1b@before\n\x10\x04\x01after\n"
    with FakePrinter() as fp:
        NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(data)
        assert fp.wait_for_job(timeout=10) == b"\x1b@before\nafter\n"
        assert fp.status_queries == 9 and fp.confirm_queries == 1


def test_when_before_send_fails_nothing_is_sent() -> None:
    def refuse() -> None:
        raise RuntimeError("the ledger is not reachable")

    with FakePrinter() as fp:
        with pytest.raises(RuntimeError, match="ledger"):
            NetworkPrinter("127.0.0.1", fp.port, timeout=5).send(b"\x1b@x\n",
                                                                  before_send=refuse)
        assert fp.wait_for_job(timeout=5) == b"" and fp.status_queries == 4


def test_fake_printer_answers_a_status_query_split_across_packets() -> None:
    with FakePrinter() as fp, socket.create_connection(fp.address, timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"\x10")
        wait_for(lambda: fp.connections == 1, what="the connection")
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


def full_disk_open(free: int) -> Callable[..., io.RawIOBase | io.BufferedWriter]:
    """``open`` for ``printing.escpos.printers`` on a disk with ``free`` bytes left, as the kernel
    fills one (tmpfs, ext4): a write takes the part that fits and returns its length, the next
    write fails with ENOSPC.  Buffered (the default) or not, as the caller asks."""
    left = [free]

    class FullDiskFile(io.FileIO):
        def write(self, data: Any) -> int:
            view = memoryview(data)
            n = min(len(view), left[0])
            if n == 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            left[0] -= n
            return super().write(view[:n])

    def fake_open(path: Path, mode: str, buffering: int = -1) -> io.RawIOBase | io.BufferedWriter:
        raw = FullDiskFile(path, mode.replace("b", ""))
        return raw if buffering == 0 else io.BufferedWriter(raw)

    return fake_open


def test_file_printer_on_a_full_disk_reports_the_bytes_the_file_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = bytes(range(256)) * 35 + bytes(40)  # 9,000 bytes
    printer = FilePrinter(tmp_path)
    monkeypatch.setattr(printers, "open", full_disk_open(4096), raising=False)
    with pytest.raises(PrinterError) as e:
        printer.send(data, 7)
    assert (e.value.sent, e.value.total, e.value.reason) == (4096, 9000, "file_error")
    assert (tmp_path / "slip-7.bin").read_bytes() == data[:4096]  # what is "on paper"
    assert str(e.value) == (f"Printer folder {tmp_path}: slip-7.bin holds 4,096 of the slip's "
                            "9,000 bytes (no space left on device); print the slip again")


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
    assert (net.timeout, net.status_timeout, net.send_timeout, net.confirm_timeout) == (
        5.0, 2.0, 10.0, 20.0)
    net = printer_from_config("network", host="p", timeout=3, status_timeout=1,
                              send_timeout=4, confirm_timeout=30)
    assert isinstance(net, NetworkPrinter)
    assert (net.timeout, net.status_timeout, net.send_timeout, net.confirm_timeout) == (
        3.0, 1.0, 4.0, 30.0)
    f = printer_from_config("FILE", directory=tmp_path)
    assert isinstance(f, FilePrinter) and f.directory == tmp_path
    assert printer_from_config("none") is None
    with pytest.raises(PrinterError, match="kind"):
        printer_from_config("usb")
    with pytest.raises(PrinterError, match="host"):
        printer_from_config("network")
    with pytest.raises(PrinterError, match="directory"):
        printer_from_config("file")
