"""Win slip print states (core/tablegames/slips.py, core/app/print_spool.py): a slip counts as
printed only when the printer confirmed it; the start of every print is in the ledger before its
first byte goes out and its outcome is appended after, so a print cut short by a crash is "print
state unknown" and its next print is marked DUPLICATE on the paper.  Real sockets to a fake
ESC/POS printer; SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.app.console import ConsoleCore
from core.ledger.models import Slip, SlipPrintAttempt
from core.tablegames.floor import Floor
from core.tablegames.views import FloorError
from printing.escpos import printers
from printing.escpos.preview import recovered_text
from printing.escpos.printers import FilePrinter, NetworkPrinter
from printing.escpos.slip import DUPLICATE_BANNER, PAPER, REPRINT_BANNER
from tests.fake_printer import (
    STATUS_COVER_OPEN,
    STATUS_CUTTER_ERROR,
    STATUS_PAPER_NEAR_END,
    STATUS_PAPER_OUT,
    FakePrinter,
)
from tests.harness import wait_for
from tests.paid_slips import PAYTABLES, console, make_slips, slip_floor
from tests.printing.escpos.test_printers import full_disk_open

DUPLICATE = DUPLICATE_BANNER.strip()
REPRINT = REPRINT_BANNER.strip()


def _printer(fp: FakePrinter, **timeouts: float) -> NetworkPrinter:
    return NetworkPrinter("127.0.0.1", fp.port, timeout=5, **timeouts)


def _attempts(engine: Engine, slip_no: int) -> list[tuple[str | None, bool, str | None,
                                                          str | None, int | None]]:
    """(state, ok, marking, reason, sent_bytes) of a slip's print attempt rows, in order."""
    with Session(engine) as s:
        rows = s.scalars(select(SlipPrintAttempt).join(Slip, Slip.id == SlipPrintAttempt.slip_id)
                         .where(Slip.slip_no == slip_no).order_by(SlipPrintAttempt.id))
        return [(r.state, r.ok, r.marking, r.reason, r.sent_bytes) for r in rows]


def _stored(engine: Engine, slip_no: int) -> bytes:
    with engine.connect() as c:
        return bytes(c.scalar(select(Slip.escpos).where(Slip.slip_no == slip_no)))


def _done(c: ConsoleCore, slip_no: int, attempts: int) -> None:
    """Wait until the slip has ``attempts`` prints with an outcome."""
    def finished() -> bool:
        st = c.floor.print_state(slip_no)
        return st.printed + st.failed >= attempts

    wait_for(finished, what=f"{attempts} finished print(s) of slip {slip_no}")


@pytest.fixture
def slips(engine: Engine) -> Iterator[tuple[Engine, list[int]]]:
    yield engine, make_slips(engine, slip_floor(), 2)


def test_a_slip_counts_as_printed_only_when_the_printer_confirmed_it(
        slips: tuple[Engine, list[int]]) -> None:
    engine, (n, _) = slips
    with FakePrinter() as fp:
        c = console(engine, slip_floor(), _printer(fp))
        try:
            c.print_slip(n)
            _done(c, n, 1)
            assert fp.wait_for_job() == _stored(engine, n)  # an original: no banner
            assert fp.confirm_queries == 1
        finally:
            c.stop()
    data = _stored(engine, n)
    assert _attempts(engine, n) == [("started", False, "", None, None),
                                    ("printed", True, None, None, len(data))]
    rec = c.recent_slips()[-1]
    assert (rec.slip_no, rec.printed, rec.printed_ok, rec.state) == (n, "yes", True, "printed")


def test_a_printer_that_accepts_and_never_reads_prints_nothing_and_the_slip_stays_unprinted(
        slips: tuple[Engine, list[int]]) -> None:
    engine, (n, _) = slips
    with FakePrinter(read=False) as fp:
        c = console(engine, slip_floor(), _printer(fp, status_timeout=0.3))
        try:
            c.print_slip(n)
            c.print_slip(n)
            _done(c, n, 2)
            assert fp.received == b""
        finally:
            c.stop()
    # refused before any byte went out: one failed row each, no start, nothing on paper
    assert _attempts(engine, n) == [("failed", False, None, "no_status", 0)] * 2
    st = c.floor.print_state(n)
    assert (st.state, st.next_marking) == ("failed", "")
    assert [p.slip_no for p in c.floor.pending_slips()][0] == n
    assert c.recent_slips()[-1].printed.startswith("FAILED: Printer 127.0.0.1:")


@pytest.mark.parametrize(("fake", "reason", "words"), [
    ({"status": STATUS_PAPER_OUT}, "paper_out", "out of paper"),
    ({"status": STATUS_PAPER_NEAR_END}, "paper_near_end", "paper nearly out"),
    ({"status": STATUS_COVER_OPEN}, "cover_open", "cover open"),
    ({"status_after": STATUS_COVER_OPEN}, "cover_open", "cover open"),
    ({"status_after": STATUS_CUTTER_ERROR}, "cutter_error", "cutter error"),
    ({"confirm": False}, "not_confirmed", "did not confirm"),
    ({"reset_after": 400}, "connection_lost", "lost the connection"),
    # a slip fits in the network buffers of a printer that stopped reading: not confirmed
    ({"stop_reading_after": 1}, "not_confirmed", "did not confirm"),
])
def test_a_printer_fault_is_a_failed_print_with_its_reason_in_the_ledger(
        slips: tuple[Engine, list[int]], fake: dict[str, object], reason: str,
        words: str) -> None:
    engine, (n, _) = slips
    heard: list[str] = []
    with FakePrinter(**fake) as fp:  # type: ignore[arg-type]
        c = console(engine, slip_floor(), _printer(fp, confirm_timeout=0.5,
                                                   status_timeout=0.5))
        c.add_message_listener(heard.append)
        try:
            c.print_slip(n)
            _done(c, n, 1)
        finally:
            c.stop()
    rows = _attempts(engine, n)
    assert rows[-1][:2] == ("failed", False) and rows[-1][3] == reason
    assert any(f"Win slip {n} did not print" in m and words in m for m in heard)
    st = c.floor.print_state(n)
    assert st.state == "failed" and st.last_reason == reason and words in st.last_error
    went_out = "status" not in fake  # refused before the job, or failed after bytes went out
    assert (st.next_marking == "duplicate") is went_out
    assert (len(rows) == 2) is went_out  # a start, then its outcome
    assert ("DUPLICATE" in c.recent_slips()[-1].detail) is went_out


def test_a_status_stall_fails_one_job_and_the_next_job_is_checked_and_printed(
        slips: tuple[Engine, list[int]]) -> None:
    engine, (n, m) = slips
    with FakePrinter(stall_status=1) as fp:
        c = console(engine, slip_floor(), _printer(fp, status_timeout=0.3))
        try:
            c.print_slip(n)
            _done(c, n, 1)
            asked = fp.status_queries
            c.print_slip(m)
            _done(c, m, 1)
            assert fp.wait_for_job(index=1) == _stored(engine, m)
            assert fp.status_queries - asked == 8 and fp.confirm_queries == 1
        finally:
            c.stop()
    assert _attempts(engine, n) == [("failed", False, None, "no_status", 0)]
    assert [a[0] for a in _attempts(engine, m)] == ["started", "printed"]


def test_a_crash_between_sending_and_recording_leaves_the_print_state_unknown_and_the_next_print_says_duplicate(  # noqa: E501
        slips: tuple[Engine, list[int]]) -> None:
    """The console recorded the start, sent the slip and died before recording the outcome
    (simulated: the start row only).  After a restart the slip is "print state unknown", the
    Win slips list says so, and "print all queued" prints it with DUPLICATE - PRINT STATE
    UNKNOWN on the paper, never as a second unmarked original."""
    engine, (n, m) = slips
    config = slip_floor()
    first = Floor(engine, config, PAYTABLES, paper=PAPER)
    started = first.record_print_started(n, "127.0.0.1:9100", "", len(_stored(engine, n)))
    assert first.print_state(n).state == "unknown"
    with FakePrinter() as fp:
        c = console(engine, config, _printer(fp))
        try:
            rec = {r.slip_no: r for r in c.recent_slips()}
            assert rec[n].state == "unknown" and rec[n].printed.startswith("UNKNOWN")
            assert "DUPLICATE" in rec[n].detail
            assert {r.slip_no: r.state for r in c.unprinted_slips()} == {n: "unknown",
                                                                        m: "queued"}
            assert c.print_queued() == 2
            _done(c, n, 1)
            _done(c, m, 1)
            wait_for(lambda: len(fp.jobs) == 2, what="two jobs")
        finally:
            c.stop()
    by_slip = {f"{no:06d}": j for no in (n, m) for j in fp.jobs
               if f"WIN SLIP No. {no:06d}" in recovered_text(j)}
    assert recovered_text(by_slip[f"{n:06d}"]).lstrip().startswith(DUPLICATE)
    assert by_slip[f"{n:06d}"].endswith(_stored(engine, n))  # the stored original, below
    assert DUPLICATE not in recovered_text(by_slip[f"{m:06d}"])
    assert by_slip[f"{m:06d}"] == _stored(engine, m)
    # the unknown start stays as it was; the new print is a start and a confirmed outcome
    assert _attempts(engine, n) == [("started", False, "", None, None),
                                    ("started", False, "duplicate", None, None),
                                    ("printed", True, None, None, len(by_slip[f"{n:06d}"]))]
    assert c.floor.print_state(n).state == "printed"
    said = {r.text for r in c.floor.activity() if r.kind == "print" and f"slip {n} " in r.text}
    assert said == {f"Win slip {n} print started on 127.0.0.1:9100",
                    f"Win slip {n} print started on {c.printer} marked DUPLICATE - PRINT STATE "
                    "UNKNOWN", f"Win slip {n} printed on {c.printer}"}
    with pytest.raises(FloorError, match="outcome is recorded already"):
        first.record_print_outcome(started + 1, True)
    with pytest.raises(IntegrityError), Session(engine) as s, s.begin():  # one outcome a start
        slip_id = s.scalar(select(Slip.id).where(Slip.slip_no == n))
        s.add(SlipPrintAttempt(slip_id=slip_id, printer="x", ok=True, error="", state="printed",
                               started_id=started + 1, created_at=first.ctx.now()))


def test_a_failed_print_after_bytes_went_out_makes_the_next_print_a_duplicate(
        slips: tuple[Engine, list[int]]) -> None:
    """The printer reset after 400 bytes: part of the slip may be on paper."""
    engine, (n, _) = slips
    with FakePrinter(reset_after=400) as fp:
        port = fp.port
        c = console(engine, slip_floor(), _printer(fp, confirm_timeout=5))
        try:
            c.print_slip(n)
            _done(c, n, 1)
        finally:
            c.stop()
    with FakePrinter(port=port) as fp:
        c = console(engine, slip_floor(), _printer(fp))
        try:
            assert c.print_queued() == 2
            _done(c, n, 2)
            wait_for(lambda: len(fp.jobs) == 2, what="two jobs")
        finally:
            c.stop()
    (text,) = [t for t in map(recovered_text, fp.jobs) if f"WIN SLIP No. {n:06d}" in t]
    assert text.lstrip().startswith(DUPLICATE)
    assert [a[0] for a in _attempts(engine, n)] == ["started", "failed", "started", "printed"]


def test_a_slip_cut_short_by_a_full_disk_is_counted_on_paper_and_printed_again_as_duplicate(
        slips: tuple[Engine, list[int]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file printer whose disk fills up mid-slip: the bytes in the file are the bytes sent."""
    engine, (n, _) = slips
    data = _stored(engine, n)
    free = len(data) // 2
    heard: list[str] = []
    with monkeypatch.context() as full:
        full.setattr(printers, "open", full_disk_open(free), raising=False)
        c = console(engine, slip_floor(), FilePrinter(tmp_path))
        c.add_message_listener(heard.append)
        try:
            c.print_slip(n)
            _done(c, n, 1)
        finally:
            c.stop()
    assert (tmp_path / f"slip-{n}.bin").read_bytes() == data[:free]
    assert _attempts(engine, n) == [("started", False, "", None, None),
                                    ("failed", False, None, "file_error", free)]
    assert any("the next print is marked DUPLICATE" in m for m in heard)
    c = console(engine, slip_floor(), FilePrinter(tmp_path))  # space again
    try:
        assert c.print_queued() == 2
        _done(c, n, 2)
    finally:
        c.stop()
    again = (tmp_path / f"slip-{n}-2.bin").read_bytes()
    assert recovered_text(again).lstrip().startswith(DUPLICATE)
    assert [a[2] for a in _attempts(engine, n) if a[0] == "started"] == ["", "duplicate"]


def test_a_slip_queued_twice_prints_once_and_printing_it_again_says_reprint(
        slips: tuple[Engine, list[int]]) -> None:
    engine, (n, _) = slips
    with FakePrinter() as fp:
        c = console(engine, slip_floor(), _printer(fp))
        try:
            c.print_slip(n)
            c.print_slip(n)  # e.g. "print all queued" pressed twice
            c.print_slip(n, reprint=True)  # "print selected slip again"
            _done(c, n, 2)
            wait_for(lambda: len(fp.jobs) == 2, what="two jobs")
        finally:
            c.stop()
    first, again = fp.jobs
    assert first == _stored(engine, n)
    assert recovered_text(again).lstrip().startswith(REPRINT)
    assert [a[2] for a in _attempts(engine, n) if a[0] == "started"] == ["", "reprint"]
    assert c.floor.print_state(n).printed == 2


def test_the_slips_made_before_start_that_never_printed_are_listed_oldest_first(
        engine: Engine) -> None:
    config = slip_floor()
    nos = make_slips(engine, config, 4)
    floor = Floor(engine, config, PAYTABLES, paper=PAPER)
    floor.record_print(nos[1], "p", True)  # printed (confirmed)
    floor.record_print(nos[2], "p", False, "Printer p: cover open; nothing was sent",
                       reason="cover_open")
    floor.record_print_started(nos[3], "p", "", 100)  # the console died here
    with FakePrinter() as fp:
        c = console(engine, config, _printer(fp))
        try:
            later = make_slips(engine, config, 1, boot="b2")  # paid after this start
            listed = c.unprinted_slips()
        finally:
            c.stop()
    assert [(r.slip_no, r.state) for r in listed] == [(nos[0], "queued"), (nos[2], "failed"),
                                                      (nos[3], "unknown")]
    assert later[0] not in {r.slip_no for r in listed}
    assert listed[0].where == "Pai Gow 1 seat 3" and listed[0].amount_cents == 600


def test_attempts_from_before_revision_0012_still_count(slips: tuple[Engine, list[int]]) -> None:
    """A row with no state is one whole attempt (``ok`` its outcome); whether its failure put
    anything on paper was not recorded, so the next print says DUPLICATE."""
    engine, (n, m) = slips
    with Session(engine) as s, s.begin():
        ids = {no: i for no, i in s.execute(select(Slip.slip_no, Slip.id))}
        now = Floor(engine, slip_floor(), PAYTABLES, paper=PAPER).ctx.now()
        s.add(SlipPrintAttempt(slip_id=ids[n], printer="p", ok=True, error="", created_at=now))
        s.add(SlipPrintAttempt(slip_id=ids[m], printer="p", ok=False, error="timed out",
                               created_at=now))
    floor = Floor(engine, slip_floor(), PAYTABLES, paper=PAPER)
    assert (floor.print_state(n).state, floor.print_state(n).next_marking) == ("printed",
                                                                              "reprint")
    st = floor.print_state(m)
    assert (st.state, st.last_error, st.next_marking) == ("failed", "timed out", "duplicate")


def test_a_print_whose_start_can_not_be_recorded_sends_nothing(
        slips: tuple[Engine, list[int]], monkeypatch: pytest.MonkeyPatch) -> None:
    engine, (n, _) = slips
    heard: list[str] = []
    with FakePrinter() as fp:
        c = console(engine, slip_floor(), _printer(fp))
        c.add_message_listener(heard.append)

        def unreachable(*_a: object) -> int:
            raise OSError("the ledger database does not answer")

        monkeypatch.setattr(c.floor, "record_print_started", unreachable)
        try:
            c.print_slip(n)
            wait_for(lambda: heard, what="the message")
            fp.wait_for_job()
            assert fp.received == b""
        finally:
            c.stop()
    assert "could not record that its print started" in heard[0] and "nothing was sent" in heard[0]
    assert _attempts(engine, n) == []


def test_a_bad_marking_or_an_unknown_start_is_refused(slips: tuple[Engine, list[int]]) -> None:
    engine, (n, _) = slips
    floor = Floor(engine, slip_floor(), PAYTABLES, paper=PAPER)
    with pytest.raises(FloorError, match="marking 'COPY'"):
        floor.record_print_started(n, "p", "COPY", 10)
    with pytest.raises(FloorError, match="print attempt 999: no such print was started"):
        floor.record_print_outcome(999, True)
    with pytest.raises(FloorError, match="slip 999: no such slip"):
        floor.record_print_started(999, "p", "", 10)


def test_a_slip_on_its_way_to_the_printer_reads_printing_not_unknown(
        slips: tuple[Engine, list[int]]) -> None:
    """While the console waits for the printer's confirmation its start has no outcome yet:
    the list says "printing…" (this console is printing it), not UNKNOWN."""
    engine, (n, _) = slips
    fp = FakePrinter(confirm=False).start()
    c = console(engine, slip_floor(), _printer(fp, confirm_timeout=600))
    try:
        c.print_slip(n)
        fp.wait_for_bytes(len(_stored(engine, n)))
        rec = {r.slip_no: r for r in c.recent_slips()}[n]
        assert (rec.printed, rec.state, rec.printed_ok) == ("printing…", "printing", False)
        assert c.floor.print_state(n).state == "unknown"  # what another console would see
        fp.stop()  # the printer goes away before it confirmed
        _done(c, n, 1)
    finally:
        fp.stop()
        c.stop()
    assert c.floor.print_state(n).last_reason == "connection_lost"
    assert {r.slip_no: r for r in c.recent_slips()}[n].state == "failed"
