"""Win slip: ESC/POS bytes of a paid hit (printing/escpos/slip.py) and the accounting win page."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.tablegames.slip_record import SlipError
from printing.escpos.slip import (
    amount_in_words,
    cards_text,
    demo_slip,
    local_time_text,
    render_slip,
)
from printing.pages.winpage import WinPageError, winpage_html

GS_CUT = re.compile(rb"\x1dV[\x00\x01\x30\x31]|\x1dV[\x41\x42].")
QR_STORE = b"\x1d(k"  # GS ( k: 2-D code function (cn 49 = QR)


def qr_payloads(data: bytes) -> list[bytes]:
    """The data of every QR 'store' command (GS ( k pL pH 49 80 48 data) in ``data``."""
    out = []
    for m in re.finditer(rb"\x1d\(k(..)1P0", data, re.S):
        length = m.group(1)[0] | (m.group(1)[1] << 8)
        start = m.end()
        out.append(data[start:start + length - 3])
    return out


def test_win_slip_bytes_show_number_amount_hit_ref_qr_and_cut() -> None:
    slip = demo_slip()
    data = render_slip(slip)
    assert data.startswith(b"\x1b@")  # initialise the printer first
    assert b"000042" in data
    assert b"$6,173.13" in data
    assert b"H-000042" in data
    assert GS_CUT.search(data[-4:]), "the slip must end with a cut"
    assert qr_payloads(data) == [b"H-000042"], "a QR code of the hit ref"
    assert b"\x1d(k\x03\x001Q0" in data  # ... and the QR print command
    assert b"$12,346.27" in data and b"$6,173.14" in data  # meter before / after


def test_same_slip_renders_identical_bytes() -> None:
    a = render_slip(demo_slip())
    b = render_slip(dataclasses.replace(demo_slip()))
    assert a == b


def test_same_slip_renders_identical_bytes_in_another_process() -> None:
    """The ledger keeps the bytes: a reprint in a later process must match them."""
    code = ("import sys; from printing.escpos.slip import demo_slip, render_slip; "
            "sys.stdout.buffer.write(render_slip(demo_slip()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                         timeout=120)
    assert out.stdout == render_slip(demo_slip())


def test_escpos_import_leaves_logging_and_stdout_alone() -> None:
    """escpos 3.1 calls logging.basicConfig() at import; Podium's logging must stay as set."""
    code = ("import logging, sys; from printing.escpos.slip import demo_slip, render_slip; "
            "render_slip(demo_slip()); "
            "print(len(logging.getLogger().handlers))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "0"


def test_different_slips_render_different_bytes() -> None:
    base = render_slip(demo_slip())
    assert render_slip(dataclasses.replace(demo_slip(), amount_cents=617312)) != base
    assert render_slip(dataclasses.replace(demo_slip(), slip_no=43)) != base


def test_reprint_says_reprint_copy() -> None:
    original = render_slip(demo_slip())
    reprint = render_slip(demo_slip(reprint=True))
    assert b"REPRINT" not in original and b"COPY" not in original
    assert reprint.count(b"REPRINT") >= 2  # at the top and at the bottom
    assert b"COPY" in reprint


def test_tray_pay_has_no_meter_lines() -> None:
    slip = dataclasses.replace(demo_slip(), source="tray", level=None, meter_before_cents=None,
                               meter_after_cents=None, amount_cents=10000)
    data = render_slip(slip)
    assert b"Meter before" not in data and b"Meter after" not in data
    assert b"table tray" in data
    assert b"$100.00" in data


def test_paid_at_is_shown_in_local_time_with_utc() -> None:
    # Los Angeles is UTC-7 in June (PDT) and UTC-8 in January (PST).
    summer = dataclasses.replace(demo_slip(), paid_at=datetime(2025, 6, 2, 4, 14, 3, tzinfo=UTC))
    assert local_time_text(summer) == ("2025-06-01 21:14:03 PDT (UTC-07:00)",
                                       "2025-06-02 04:14:03 UTC")
    winter = dataclasses.replace(demo_slip(), paid_at=datetime(2025, 1, 15, 12, 0, 0, tzinfo=UTC))
    assert local_time_text(winter)[0] == "2025-01-15 04:00:00 PST (UTC-08:00)"
    # "PST" is also Philippine Standard Time: the offset beside it says which
    manila = dataclasses.replace(demo_slip(), timezone="Asia/Manila")  # UTC+8, no DST
    assert local_time_text(manila)[0] == "2025-06-02 12:14:03 PST (UTC+08:00)"
    utc = dataclasses.replace(demo_slip(), timezone="UTC")
    assert local_time_text(utc)[0] == "2025-06-02 04:14:03 UTC"
    from printing.escpos.preview import recovered_text

    paper = " ".join(recovered_text(render_slip(summer)).split())  # 42 columns wrap it
    assert "2025-06-01 21:14:03 PDT (UTC-07:00)" in paper


def test_cards_are_letters_when_no_code_page_has_suit_symbols() -> None:
    data = render_slip(demo_slip())
    assert b"As Ks Qs Js Jk Kh Qh" in data
    assert cards_text(["As", "10h", "jk", "2\u2663"], symbols=True) == "A\u2660 T\u2665 Jk 2\u2663"
    assert cards_text(["As", "10h", "jk"], symbols=False) == "As Th Jk"


@pytest.mark.parametrize(("change", "field"), [
    ({"amount_cents": 0}, "amount_cents"),
    ({"amount_cents": 12.5}, "amount_cents"),
    ({"slip_no": 0}, "slip_no"),
    ({"hit_ref": " "}, "hit_ref"),
    ({"cards": ("As", "Xx")}, "cards[1]"),
    ({"paid_at": datetime(2025, 6, 2, 4, 14, 3)}, "paid_at"),
    ({"timezone": "Mars/Olympus"}, "timezone"),
    ({"source": "cash"}, "source"),
    ({"level": None}, "level"),
    ({"meter_after_cents": None}, "meter_after_cents"),
    ({"source": "tray", "level": None}, "meter_before_cents"),
])
def test_bad_slip_is_refused_naming_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(SlipError) as e:
        dataclasses.replace(demo_slip(), **change)  # type: ignore[arg-type]
    assert field in str(e.value)
    assert isinstance(e.value, ValueError)


def test_cards_given_as_a_list_are_kept_immutable() -> None:
    slip = dataclasses.replace(demo_slip(), cards=["As", "Kd"])  # type: ignore[arg-type]
    assert slip.cards == ("As", "Kd")
    hash(slip)


# ---- amount in words: checked against an independent words -> number reader -----------

_UNITS = ("ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN ELEVEN TWELVE THIRTEEN "
          "FOURTEEN FIFTEEN SIXTEEN SEVENTEEN EIGHTEEN NINETEEN")
_DECADES = "TWENTY THIRTY FORTY FIFTY SIXTY SEVENTY EIGHTY NINETY"
_VALUES = {w: i for i, w in enumerate(_UNITS.split(" "))}
_VALUES |= {w: 10 * (i + 2) for i, w in enumerate(_DECADES.split(" "))}
_SCALE = {"THOUSAND": 10**3, "MILLION": 10**6, "BILLION": 10**9, "TRILLION": 10**12}


def _read_words(text: str) -> int:
    words, _, frac = text.rpartition(" AND ")
    cents = int(frac.split("/")[0])
    assert frac.endswith("/100")
    total = group = 0
    for w in words.replace("-", " ").split():
        if w == "HUNDRED":
            group *= 100
        elif w in _SCALE:
            total += group * _SCALE[w]
            group = 0
        else:
            group += _VALUES[w]
    return (total + group) * 100 + cents


def test_amount_in_words_examples() -> None:
    assert amount_in_words(0) == "ZERO AND 00/100"
    assert amount_in_words(100) == "ONE AND 00/100"
    assert amount_in_words(617313) == "SIX THOUSAND ONE HUNDRED SEVENTY-THREE AND 13/100"
    assert amount_in_words(100_000_005) == "ONE MILLION AND 05/100"


@given(st.integers(min_value=0, max_value=10**16))
def test_amount_in_words_reads_back_to_the_amount(cents: int) -> None:
    assert _read_words(amount_in_words(cents)) == cents


# ---- win page (HTML is pure; PDF through Qt) -----------------------------------------


def test_win_page_lists_every_field_and_signature_blocks() -> None:
    slip = demo_slip()
    html = winpage_html(slip, {"Surveillance": "camera <PG-3> reviewed"})
    for needle in ("Emerald Queen Casino", "000042", "H-000042", "PG-3 Pai Gow", "1187",
                   "FPGPP-WA01", "Royal Flush + Royal Match", "RF_ROYAL_MATCH", "$6,173.13",
                   "$12,346.27", "$6,173.14", "Maria Santos", "10482", "Dale Brooks",
                   "2025-06-01 21:14:03 PDT", "2025-06-02 04:14:03 UTC", "America/Los_Angeles",
                   "SIX THOUSAND ONE HUNDRED SEVENTY-THREE AND 13/100"):
        assert needle in html, needle
    for role in ("Supervisor", "Cashier", "Player", "Accounting", "Verifier"):
        assert role in html
    assert "camera &lt;PG-3&gt; reviewed" in html  # escaped, never raw markup
    assert "REPRINT" not in html
    assert "REPRINT" in winpage_html(demo_slip(reprint=True))


def test_win_page_refuses_non_text_details() -> None:
    with pytest.raises(WinPageError, match="extra"):
        winpage_html(demo_slip(), {"Amount": 5})  # type: ignore[dict-item]


@pytest.mark.parametrize("page_size", ["A4", "Letter"])
def test_win_page_pdf_is_one_page(qapp: object, tmp_path: object, page_size: str) -> None:
    from pathlib import Path

    from printing.pages.winpage import write_pdf

    path = write_pdf(winpage_html(demo_slip(), {"Surveillance": "reviewed"}),
                     Path(str(tmp_path)) / "win.pdf", page_size=page_size)
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    assert re.findall(rb"/Count (\d+)", data) == [b"1"]
    box = {"A4": b"595", "Letter": b"612"}[page_size]
    assert re.search(rb"/MediaBox \[0 0 " + box, data)


def test_win_page_unknown_page_size_is_refused(tmp_path: object) -> None:
    from pathlib import Path

    from printing.pages.winpage import write_pdf

    with pytest.raises(WinPageError, match="size"):
        write_pdf("<p>x</p>", Path(str(tmp_path)) / "x.pdf", page_size="A3")


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=99_999_999_99))
def test_any_amount_fits_and_prints(cents: int) -> None:
    slip = dataclasses.replace(demo_slip(), amount_cents=cents)
    data = render_slip(slip)
    dollars, c = divmod(cents, 100)
    assert f"${dollars:,}.{c:02d}".encode() in data


