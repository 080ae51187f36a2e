"""Win pages for any slip (gui/tablegames/winpage_search.py) and voiding a slip from the
supervisor's console (gui/tablegames/void_slip.py): the search panel shows a known slip and its win
page, saves and prints it; the console's Slips > Win pages… voids the selected slip on an
executive's card (swiped as real key events, then the PIN), after a supervisor's card was refused.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set (docs/screenshots/winpage-search.png,
void-dialog.png and winpage-void.png were made so)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtWidgets import QApplication, QWidget
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.app.console import ConsoleCore
from core.app.demo import demo_credential, demo_pin, enroll_demo_employees, swipe_of
from core.controllers.events import GameEnded, GameStarted, HitClaimed, Origin
from core.desks.accounting.slip_search import WinPages
from core.desks.desk import Desk
from core.floorconfig import loads_floor
from core.kernel.cards import parse_cards
from core.ledger.db import reader
from core.ledger.models import MeterEntry, SwipeLog
from gui.common.authorize import SwipePrompt
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from gui.tablegames.void_slip import VoidDialog
from gui.tablegames.winpage_dialog import winpage_for
from gui.tablegames.winpage_search import WinPageSearch, WinPageSearchDialog
from printing.escpos.slip import PAPER
from printing.pages.winpage import render_png
from tests.gui.swiping import type_pin, type_swipe
from tests.paid_slips import FLOOR, PAYTABLES, make_slips

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")
SF7 = ["Ah", "Kh", "Qh", "Jh", "Th", "9h", "8h"]  # a seven-card straight flush: 100% of the meter
EXECUTIVE, SUPERVISOR = "2001", "1001"


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


@pytest.fixture
def ledger(sqlite_engine: Engine) -> Iterator[tuple[ConsoleCore, list[int]]]:
    """Two auto-paid full houses and a 100% meter pay authorized by the executive (with her
    PIN: this floor asks executives for it); a console on it without links or printer."""
    config = loads_floor(FLOOR.replace('pin = "none"', 'pin = "executive"'), "slips.toml")
    nos = make_slips(sqlite_engine, config, 2)
    enroll_demo_employees(sqlite_engine)
    c = ConsoleCore(sqlite_engine, config, PAYTABLES, paper=PAPER)
    c.start(links=False)
    floor = c.floor
    floor.set_link("PG-1", True)
    for seq, event in enumerate((GameStarted(9, {1: 100, 4: 100}),
                                 HitClaimed(9, 4, "SF7_NATURAL", parse_cards(SF7))), 1):
        floor.handle(Origin("PG-1", "b-meter", seq), event)
    hit = floor.snapshot().pending[0].hit_id
    paid = floor.pay(hit, SF7, demo_credential(EXECUTIVE), verifier=swipe_of(SUPERVISOR))
    floor.handle(Origin("PG-1", "b-meter", 3), GameEnded(9))
    try:
        yield c, [*nos, int(paid.slip_no or 0)]
    finally:
        c.stop()


def test_the_search_panel_shows_a_known_slip_its_win_page_and_saves_and_prints_it(  # type: ignore[no-untyped-def]
        qtbot, ledger, tmp_path: Path) -> None:
    c, nos = ledger
    desk = Desk("accountant", reader(c.engine), c.config, c.paytables)
    panel = WinPageSearch(desk)
    qtbot.addWidget(panel)
    panel.resize(1500, 820)
    panel.show()  # lists the latest slips when first shown
    qtbot.waitUntil(lambda: len(panel.rows) == 3, timeout=5000)
    assert [r.slip_no for r in panel.rows] == sorted(nos, reverse=True)
    assert panel.void_btn is None  # a desk never writes: no void here
    # a known slip by its number: the meter pay, authorized by the executive
    panel.slip_no.setText(str(nos[2]))
    panel.search()
    qtbot.waitUntil(lambda: [r.slip_no for r in panel.rows] == [nos[2]], timeout=5000)
    assert panel.table.item(0, 8).text() == "Evelyn Cruz #2001"
    assert panel.table.item(0, 9).text() == "Dana Reyes #1001"
    assert panel.table.item(0, 1).text() == "paid"
    qtbot.waitUntil(lambda: panel.shown_slip() == nos[2], timeout=5000)
    assert f"win slip No. {nos[2]:06d}" in panel.preview.toPlainText()
    # by employee: the supervisor verified only the meter pay
    panel.slip_no.setText("")
    panel.employee.setText("dana")
    panel.search()
    qtbot.waitUntil(lambda: [r.slip_no for r in panel.rows] == [nos[2]], timeout=5000)
    panel.employee.setText("")
    panel.amount_min.setText("1,000,000.00")  # nothing pays that much
    panel.search()
    qtbot.waitUntil(lambda: panel.count.text() == "No win slip matches.", timeout=5000)
    assert panel.shown_slip() is None and not panel.print_btn.isEnabled()
    panel.amount_min.setText("12.3.4")
    panel.search()
    assert "amount" in panel.message.text()  # said by name; nothing searched
    panel.amount_min.setText("")
    panel.search()
    qtbot.waitUntil(lambda: len(panel.rows) == 3, timeout=5000)
    panel.table.selectRow(2)  # the oldest: slip 1
    qtbot.waitUntil(lambda: panel.shown_slip() == nos[0], timeout=5000)
    panel.ask_pdf_path = lambda name: tmp_path / name
    panel.save_pdf()
    assert panel.last_pdf == tmp_path / f"win-page-{nos[0]:06d}.pdf"
    assert panel.last_pdf.read_bytes().startswith(b"%PDF")
    printed = tmp_path / "printed.pdf"

    def printer() -> QPrinter:
        p = QPrinter(QPrinter.PrinterMode.HighResolution)
        p.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
        p.setOutputFileName(str(printed))
        return p

    panel.ask_printer = printer
    panel.print_page()
    assert printed.read_bytes().startswith(b"%PDF")
    assert "sent to the printer" in panel.message.text()


@pytest.fixture
def console_window(qtbot, qapp, ledger):  # type: ignore[no-untyped-def]
    c, nos = ledger
    catcher = SwipeCatcher()
    catcher.install(qapp)
    window = MainWindow(c, catcher)
    qtbot.addWidget(window)
    window.show()
    yield window, c, nos
    qapp.removeEventFilter(catcher)


def modal(kind: type) -> Callable[[], Any]:
    return lambda: (w if isinstance(w := QApplication.activeModalWidget(), kind) else None)


def test_the_console_voids_a_slip_on_an_executive_card_after_refusing_a_supervisor_s(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window, tmp_path: Path) -> None:
    window, c, nos = console_window
    when = modal_steps.once  # poll from a timer, then a step that fails instead of hanging
    slip = nos[2]  # the meter pay
    seen: dict[str, Any] = {}
    meter_paid = c.floor.meter("LINK", "MAIN")

    def fill(dlg: VoidDialog) -> None:
        dlg.reason.setText("cards switched at the table, seen on CCTV; player gave it back")
        dlg.reason.deselect()
        dlg.returned.setChecked(True)
        dlg.adjustSize()
        seen["void_dialog"] = True
        modal_steps.later(0, lambda: (dlg.reason.deselect(), shot(dlg, "void-dialog"),
                                      dlg.ok_btn.click()))

    window._void_dialog_hook = fill

    def in_search(dlg: WinPageSearchDialog) -> None:
        panel = dlg.panel
        when(lambda: panel.shown_slip() == slip and panel.void_btn.isEnabled(),
             lambda _ok: void_from(panel), "the known slip's win page")

    def void_from(panel: WinPageSearch) -> None:
        assert [r.slip_no for r in panel.rows] == [slip]
        assert panel.rows[0].state == "paid"
        panel.void_btn.click()  # the void dialog (filled by the hook), then the swipe prompt

    def swipe_then_pin(prompt: SwipePrompt, number: str, then: Callable[[], None]) -> None:
        type_swipe(prompt, swipe_of(number))  # the card, at reader speed
        when(lambda: prompt.pin_field.isVisible(),
             lambda _ok: (type_pin(prompt, demo_pin(number)), then()),
             f"the PIN field after {number}'s swipe")

    def supervisor(prompt: SwipePrompt) -> None:
        swipe_then_pin(prompt, SUPERVISOR, lambda: when(
            lambda: "needs an executive" in prompt.message.text() and not prompt.busy,
            lambda _ok: executive(prompt), "the supervisor's card refused"))

    def executive(prompt: SwipePrompt) -> None:
        seen["refused"] = prompt.message.text()
        shot(prompt, "void-swipe-refused")
        swipe_then_pin(prompt, EXECUTIVE, lambda: when(lambda: window.winpages_dialog is not None
             and window.winpages_dialog.panel.rows
             and window.winpages_dialog.panel.rows[0].voided
             and window.winpages_dialog.panel.shown_slip() == slip
             and "VOID" in window.winpages_dialog.panel.preview.toPlainText(),
             lambda _ok: done(window.winpages_dialog), "the slip shown void"))

    def done(dlg: WinPageSearchDialog) -> None:
        seen["preview"] = dlg.panel.preview.toPlainText()
        panel = dlg.panel
        panel.slip_no.setText("")  # every slip: the void among them
        panel.search()
        when(lambda: len(panel.rows) == 3 and panel.shown_slip() == slip,
             lambda _ok: (shot(dlg, "winpage-search"), dlg.accept()),
             "every slip listed")

    when(modal(WinPageSearchDialog), in_search, "the win page search")
    when(modal(SwipePrompt), supervisor, "the executive swipe prompt")
    with modal_steps.running():
        window.open_winpages(slip)
    assert seen.get("void_dialog")
    assert "may not authorize voiding a win slip: it needs an executive" in seen["refused"] \
        or "can not authorize voiding a win slip: it needs an executive" in seen["refused"]
    assert "This win slip is void and not payable" in seen["preview"]
    void = c.floor.slip_void(slip)
    assert void is not None and void.money_returned and void.by.number == EXECUTIVE
    # the ledger: the supervisor's refusal and the executive's acceptance, both logged
    with Session(c.engine) as s:
        rows = list(s.scalars(select(SwipeLog).where(SwipeLog.action == "void")
                              .order_by(SwipeLog.id)))
        assert [(r.outcome, r.role_required) for r in rows] == [
            ("insufficient_authority", "executive"), ("accepted", "executive")]
        assert len(list(s.scalars(select(MeterEntry).where(
            MeterEntry.kind == "reversal", MeterEntry.award_id.is_not(None))))) == 3
    after = c.floor.meter("LINK", "MAIN")
    assert after != meter_paid
    assert window.log_list.count() and f"Win slip {slip:06d} VOID by Evelyn Cruz #2001" in \
        window.log_list.item(0).text()
    # the voided win page, as paper shows it
    html = winpage_for(WinPages(Desk("accountant", reader(c.engine), c.config,
                                     c.paytables)), slip)[1]
    out = render_png(html, Path(SHOTS or tmp_path) / "winpage-void.png")
    assert out.stat().st_size > 0
    # a void slip never goes to the printer again; its preview says VOID
    from printing.escpos.preview import preview_png, recovered_text

    shown = c.slip_bytes(slip)
    text = recovered_text(shown)
    assert "VOID - NOT PAYABLE" in text and "Evelyn Cruz #2001" in text
    assert text.index("VOID - NOT PAYABLE") < text.index(f"WIN SLIP No. {slip:06d}")
    preview_png(shown, Path(SHOTS or tmp_path) / "win-slip-void.png")
    assert slip not in {p.slip_no for p in c.floor.pending_slips()}
    # the Win slips tab says VOID (newest first: the void slip is the top row)
    window.tabs.setCurrentWidget(window.slips_tab)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 3
                    and window.slips.item(0, 5).text() == "VOID", timeout=5000)
    assert window.slips.item(0, 0).text() == str(slip)


def test_the_void_dialog_shows_which_slip_before_the_swipe(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window) -> None:
    """Issue 26: "the void dialog does not show which slip (amount, table, hand, time) before
    the swipe".  Opened on the slip selected in Win slips, and on a number typed: the slip's
    amount, table and seat, round, hand, paid time and hit show before anyone is asked to
    swipe; a number that is no slip is said, and nothing goes on to a swipe."""
    window, c, nos = console_window
    slip = c.floor.win_slip(nos[0])  # an auto-paid full house at Pai Gow 1 seat 3
    paid = slip.local_paid_at.strftime("%d %b %Y %H:%M:%S")
    expected = (f"Slip {nos[0]:06d}: $6.00, Pai Gow 1 (PG-1) seat 3, round {slip.round_no}, "
                f"{slip.hand}, paid {paid}; hit H")
    window.tabs.setCurrentWidget(window.slips_tab)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 3, timeout=5000)
    (row,) = [r for r in range(3) if window.slips.item(r, 0).text() == str(nos[0])]
    window.slips.selectRow(row)
    seen: dict[str, str] = {}

    def selected(dlg: VoidDialog) -> None:
        modal_steps.when(lambda: dlg.summary.text().startswith("Slip "),
                         lambda: (seen.update(selected=dlg.summary.text()), dlg.reject()),
                         what="the selected slip's details")

    window._void_dialog_hook = selected
    with modal_steps.running():
        assert not window.open_void()
    assert seen["selected"].startswith(expected)
    assert seen["selected"] == f"{expected}{slip.hit_ref[1:]}"

    def typed(dlg: VoidDialog) -> None:
        dlg.slip.setText("999")
        dlg.reason.setText("wrong slip")
        dlg.kept.setChecked(True)
        dlg.ok_btn.click()  # not yet shown which slip: no swipe
        seen["early"] = dlg.message.text()
        modal_steps.when(lambda: "no such slip" in dlg.message.text(),
                         lambda: typed_known(dlg), what="the unknown number said")

    def typed_known(dlg: VoidDialog) -> None:
        seen["unknown"] = dlg.message.text()
        dlg.slip.setText(str(nos[0]))
        dlg.slip.editingFinished.emit()
        modal_steps.when(lambda: dlg.summary.text().startswith("Slip "),
                         lambda: (seen.update(typed=dlg.summary.text()), dlg.reject()),
                         what="the typed slip's details")

    window.tabs.setCurrentIndex(0)  # not the Win slips tab: the number is typed
    window._void_dialog_hook = typed
    with modal_steps.running():
        assert not window.open_void()
    assert seen["early"] == "Check which slip this is (shown above) before voiding it."
    assert "slip 999: no such slip" in seen["unknown"]
    assert seen["typed"] == seen["selected"]
    assert c.floor.slip_void(nos[0]) is None
