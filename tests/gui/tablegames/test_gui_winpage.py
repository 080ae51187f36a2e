"""The accounting win page of a win slip (RULES.md 5: "a win page may be printed for
accounting"): built from the ledger, saved as PDF from the win page search opened on the slip
selected in the Win slips tab, printed through Qt's print dialog (the function it calls is
tested; the dialog is not opened).

With $PODIUM_SCREENSHOT_DIR set, the rendered win page is saved there as a PNG."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtWidgets import QApplication

from core.app.demo import demo_credential, swipe_of
from core.people.auth import AuthError
from gui.tablegames.winpage_dialog import print_html, save_winpage_pdf, winpage_for
from gui.tablegames.winpage_search import WinPageSearchDialog
from printing.escpos.slip import render_slip
from printing.pages.winpage import render_png
from tests.harness import FloorHarness, wait_for

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")
ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]  # 100% of the WA01 meter
FULL_HOUSE = ["Kc", "Kd", "Kh", "2s", "2d", "7c", "9h"]  # ML2: 4 for 1, no verification


def _pay_royal(floor: FloorHarness) -> int:
    """A 7-card straight flush at PG-1 seat 3: a supervisor's card is refused, then an
    executive (with her PIN) pays it, the supervisor being the verifier.  Returns the slip
    number."""
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
    [hit] = wait_for(floor.pending, what="the hit")
    with pytest.raises(AuthError):
        floor.console.floor.pay(hit.hit_id, ROYAL_SF7, swipe_of("1001"))
    return floor.console.floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                                   verifier=swipe_of("1001")).slip_no


def test_win_pages_open_on_the_slip_selected_in_win_slips_and_save_its_pdf(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window, tmp_path: Path) -> None:
    window, floor = console_window
    slip_no = _pay_royal(floor)
    window.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 1
                    and window.slips.item(0, 5).text() == "yes", timeout=10000)
    window.slips.selectRow(0)
    saved: list[Path] = []

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, WinPageSearchDialog)
        panel = dlg.panel
        panel.ask_pdf_path = lambda name: tmp_path / name  # not the real user data folder
        panel.save_pdf()
        if panel.last_pdf is not None:
            saved.append(panel.last_pdf)
        dlg.accept()

    def on_the_slip() -> bool:
        dlg = QApplication.activeModalWidget()
        return (isinstance(dlg, WinPageSearchDialog) and dlg.isVisible()
                and dlg.panel.shown_slip() == slip_no)

    with modal_steps.running():
        modal_steps.when(on_the_slip, in_dialog, what="the win pages on the selected slip")
        window.find_btn.click()  # Win pages…, opened on the selected slip (modal)
    assert saved == [tmp_path / f"win-page-{slip_no:06d}.pdf"]
    assert saved[0].read_bytes().startswith(b"%PDF")


def test_win_page_shows_slip_amount_authorizer_and_every_decision_with_who(  # type: ignore[no-untyped-def]
        console_window, tmp_path: Path) -> None:
    _window, floor = console_window
    slip_no = _pay_royal(floor)
    slip, html = winpage_for(floor.console.floor, slip_no)
    assert f"{slip_no:06d}" in html
    assert "$10,000.60" in html
    assert "Evelyn Cruz #2001 (executive)" in html  # authorized by
    assert "7-card straight flush, natural" in html  # claimed and evaluated, by name
    assert "8♠ 9♠ T♠ J♠ Q♠ K♠ A♠" in html
    for what in ("1. swipe insufficient authority", "swipe accepted", "verified", "paid"):
        assert what in html, what
    assert "Dana Reyes #1001 (supervisor)" in html  # the refused swipe is on the record
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (Path(SHOTS) / "win-page.html").write_text(html, encoding="utf-8")
        render_png(html, Path(SHOTS) / "win-page.png")
    pdf = save_winpage_pdf(floor.console.floor, slip_no, tmp_path)
    assert pdf.read_bytes().startswith(b"%PDF")
    assert slip.amount_cents == 1_000_060


def test_win_slip_rebuilt_from_the_ledger_is_the_slip_that_was_printed(  # type: ignore[no-untyped-def]
        console_window) -> None:
    _window, floor = console_window
    paid = _pay_royal(floor)
    floor.deal_hit("PG-4", seat=2, cards=FULL_HOUSE, wagers=[2])  # auto-paid, no swipe
    auto = wait_for(lambda: [s.slip_no for s in floor.console.recent_slips()
                             if s.slip_no != paid], what="the auto-paid slip")[0]
    core = floor.console.floor
    for slip_no in (paid, auto):
        assert render_slip(core.win_slip(slip_no)) == core.slip_bytes(slip_no)
    assert core.win_slip(auto).authorized_by.number == "AUTO"
    assert core.win_slip(paid).verified_by is not None


def test_print_win_page_lays_the_page_out_on_the_printer(console_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _window, floor = console_window
    slip_no = _pay_royal(floor)
    _slip, html = winpage_for(floor.console.floor, slip_no)
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(tmp_path / "printed.pdf"))
    print_html(html, printer)  # what the print preview's paintRequested calls
    data = (tmp_path / "printed.pdf").read_bytes()
    assert data.startswith(b"%PDF")
    assert b"/Type /Page" in data


def test_printed_text_is_black_under_the_consoles_dark_theme(qapp, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The console's dark theme gives the application a light text colour; a printed page
    (PDF, PNG, print preview) must not take it: text without a colour of its own is black."""
    from PySide6.QtGui import QImage

    from printing.pages.winpage import render_png

    assert qapp.palette().text().color().lightness() > 150  # the theme is on
    out = render_png('<html><body><p style="font-size:20pt"><b>BLACK</b></p></body></html>',
                     tmp_path / "t.png")
    img = QImage(str(out))
    darkest = min(img.pixelColor(x, y).lightness()
                  for y in range(0, img.height() // 4) for x in range(0, img.width() // 2, 2))
    assert darkest < 40
