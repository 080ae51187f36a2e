"""Preview: the ESC/POS interpreter recovers what the paper shows (printing/escpos/interpreter.py)
and the preview draws it (printing/escpos/preview.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from printing.escpos.interpreter import Cut, PreviewError, TextLine, interpret, recovered_text
from printing.escpos.preview import PAPER_DOTS, preview_png, render
from printing.escpos.slip import demo_slip, render_slip


def test_preview_recovers_the_slip_text() -> None:
    rec = interpret(render_slip(demo_slip()))
    assert rec.unknown == []  # every command the slip sends is understood
    assert "$6,173.13" in rec.lines
    assert "WIN SLIP No. 000042" in rec.lines
    assert "EMERALD QUEEN CASINO" in rec.lines
    assert "Hit ref      H-000042" in rec.lines
    assert any(line.startswith("Cards") and "As Ks Qs Js Jk Kh Qh" in line for line in rec.lines)
    assert [c.text for c in rec.codes] == ["H-000042"] and rec.codes[0].kind == "qr"
    assert rec.cut and isinstance(rec.items[-1], Cut)


def test_amount_is_prominent_bold_and_enlarged() -> None:
    rec = interpret(render_slip(demo_slip()))
    amount = [r for r in rec.styled_runs() if r.text == "$6,173.13"]
    assert amount, "the amount is printed as one run"
    assert amount[0].style.bold and amount[0].style.width >= 2 and amount[0].style.height >= 2
    body = [r for r in rec.styled_runs() if r.text.startswith("Table")]
    assert body[0].style.width == 1 and not body[0].style.bold


def test_nothing_runs_past_the_printable_width() -> None:
    long_name = dataclasses.replace(demo_slip(), casino="Grand Pai Gow Palace Casino and Resort "
                                    "of the Pacific Northwest", table="High limit salon table 12")
    rec = interpret(render_slip(long_name))
    for item in rec.items:
        if isinstance(item, TextLine):
            assert item.width <= rec.printable_dots, item
    text = rec.text.replace("\n", " ")
    assert "NORTHWEST" in text and "High limit salon table 12" in text


def test_reprint_banner_is_reverse_printed() -> None:
    rec = interpret(render_slip(demo_slip(reprint=True)))
    banner = [r for r in rec.styled_runs() if "REPRINT" in r.text]
    assert banner and all(r.style.invert for r in banner)


# ---- the interpreter against the ESC/POS command definitions --------------------------


def test_interpreter_reads_modes_alignment_code_page_and_cut() -> None:
    data = (b"\x1b@"
            b"\x1ba\x01\x1b!\x38BIG\n"  # centered, ESC ! bold + double height + double width
            b"\x1b!\x00\x1ba\x02\x1dB\x01INV\n"  # right aligned, reverse
            b"\x1dB\x00\x1ba\x00\x1d!\x22X3\n"  # GS ! 3x3
            b"\x1d!\x00\x1bt\x13\xd5 5\n"  # code page 19 = CP858: 0xD5 is the euro sign
            b"\x1bd\x03\x1dVB\x10")  # feed 3 lines; GS V 66 n: feed and partial cut
    rec = interpret(data)
    big, inv, x3, euro = [i for i in rec.items if isinstance(i, TextLine)]
    assert big.text == "BIG" and big.align == 1
    assert big.runs[0].style.bold and (big.runs[0].style.width, big.runs[0].style.height) == (2, 2)
    assert inv.align == 2 and inv.runs[0].style.invert
    assert (x3.runs[0].style.width, x3.runs[0].style.height) == (3, 3)
    assert euro.text == "\u20ac 5"
    assert rec.items[-1] == Cut(partial=True)
    assert rec.unknown == []


def test_interpreter_wraps_text_wider_than_the_paper() -> None:
    rec = interpret(b"\x1b@" + b"A" * 50 + b"\n", printable_dots=504)
    assert rec.lines == ["A" * 42, "A" * 8]


def test_interpreter_reports_unknown_commands_instead_of_guessing() -> None:
    rec = interpret(b"\x1b@\x1b\x7fhello\n")
    assert rec.unknown and "ESC" in rec.unknown[0]


def test_truncated_command_names_the_byte_offset() -> None:
    with pytest.raises(PreviewError, match="byte 3"):
        interpret(b"ab\n\x1d(k\x10\x00")


def test_non_bytes_are_refused() -> None:
    with pytest.raises(PreviewError, match="bytes"):
        interpret("text")  # type: ignore[arg-type]


# ---- images --------------------------------------------------------------------------


def test_preview_image_is_an_80mm_receipt(tmp_path: Path) -> None:
    data = render_slip(demo_slip())
    img = render(data)
    assert img.width == PAPER_DOTS
    assert img.height > 1000  # a full slip, not a stub
    path = preview_png(data, tmp_path / "slip.png")
    with Image.open(path) as png:
        assert png.format == "PNG" and png.size == img.size
    assert render(data, scale=2).width == 2 * PAPER_DOTS


def test_preview_draws_dark_ink_where_the_qr_code_is() -> None:
    img = render(render_slip(demo_slip())).convert("L")
    dark = sum(img.histogram()[:100])
    # A QR code of modules 6 dots wide is at least 21 x 21 modules, about half dark.
    assert dark > (21 * 6) ** 2 // 3


def test_preview_png_unwritable_path_is_a_preview_error(tmp_path: Path) -> None:
    with pytest.raises(PreviewError, match="can not be written"):
        preview_png(render_slip(demo_slip()), tmp_path / "missing" / "slip.png")


# ---- property: whatever the names and amounts, the paper shows them ------------------

_latin = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=255,
                                        blacklist_categories=("Cc", "Zs")),
                 min_size=1, max_size=30).filter(lambda s: s.strip() == s and s)


@settings(max_examples=40, deadline=None)
@given(casino=_latin, table=_latin, cents=st.integers(min_value=1, max_value=10**11))
def test_paper_shows_names_and_amount_for_any_slip(casino: str, table: str, cents: int) -> None:
    slip = dataclasses.replace(demo_slip(), casino=casino, table=table, amount_cents=cents)
    text = recovered_text(render_slip(slip))
    flat = text.replace("\n", "")
    dollars, c = divmod(cents, 100)
    assert f"${dollars:,}.{c:02d}" in text.splitlines()
    assert casino.replace(" ", "") in flat.replace(" ", "")  # the footer line
    assert table.replace(" ", "") in flat.replace(" ", "")
