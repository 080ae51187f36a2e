"""Manual meter adjustment from the console (RULES.md 4: every change of a meter is a ledger
entry recording who, why and the second person; RULES.md 5: after the swipe a pay is backed
out only by a manual adjustment).  Cards are swiped as real key events at reader speed.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.app.demo import swipe_of
from core.kernel.money import UNITS_PER_CENT
from core.ledger.models import Employee, MeterEntry, SwipeLog
from gui.tablegames.adjust import FIRST_CARD, SECOND_CARD, AdjustDialog, AdjustSwipePrompt
from tests.gui.swiping import type_pin, type_swipe
from tests.harness import FloorHarness

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")
EXECUTIVE, SUPERVISOR, SURVEILLANCE = "2001", "1001", "3001"


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


def _type_swipe(qtbot, widget: QWidget, swipe: str) -> None:  # type: ignore[no-untyped-def]
    type_swipe(widget, swipe)  # at reader speed, by the events' own clock


def asking(heading: str) -> Callable[[], bool]:
    """Whether the swipe prompt asking for ``heading`` is the active dialog (polled by
    ``modal_steps.when``: the card before it is checked off the GUI thread)."""
    def ready() -> bool:
        w = QApplication.activeModalWidget()
        return isinstance(w, AdjustSwipePrompt) and \
            w.findChild(type(w.message), "title").text() in (heading, f"{heading} + PIN")
    return ready


def _adjustments(engine: Engine) -> list[MeterEntry]:
    with Session(engine) as s:
        return list(s.scalars(select(MeterEntry).where(MeterEntry.kind == "adjustment")))


def _employee_id(engine: Engine, number: str) -> int:
    with Session(engine) as s:
        found = s.scalar(select(Employee.id).where(Employee.number == number))
    assert found is not None
    return found


def _meter_units(floor: FloorHarness, group: str, level: str) -> int:
    return floor.console.floor.meter(group, level).meter_units


def test_adjustment_needs_an_executive_then_another_person_and_records_who_and_why(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window) -> None:
    window, floor = console_window
    engine = floor.engine
    before = _meter_units(floor, "WA01", "MAIN")
    seen: dict[str, object] = {}

    def unchanged() -> bool:
        return not _adjustments(engine) and _meter_units(floor, "WA01", "MAIN") == before

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, AdjustDialog)
        dlg.select("WA01", "MAIN")
        qtbot.waitUntil(dlg.meter_shown, timeout=10000)  # read off the GUI thread
        seen["current"] = dlg.current.text()
        qtbot.keyClicks(dlg.amount, "-250.00")
        seen["enabled_without_reason"] = dlg.confirm_btn.isEnabled()
        seen["problem_without_reason"] = dlg.problem.text()
        qtbot.keyClicks(dlg.reason, "backs out win slip 7 paid on a misread hand")
        seen["after"] = dlg.after.text()
        seen["change"] = dlg.change.text()
        seen["enabled"] = dlg.confirm_btn.isEnabled()
        shot(dlg, "adjust-dialog")
        modal_steps.when(asking(FIRST_CARD), first_card, what=FIRST_CARD)
        qtbot.keyClick(dlg, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    def first_card() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, AdjustSwipePrompt)
        seen["first_heading"] = prompt.findChild(type(prompt.message), "title").text()
        shot(prompt, "adjust-swipe-executive")
        seen["first_asks_pin"] = "PIN" in " ".join(w.text() for w in prompt.findChildren(QLabel))
        _type_swipe(qtbot, prompt, swipe_of(SUPERVISOR))  # not an executive: refused here
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)  # the executive's PIN next
        type_pin(prompt, SUPERVISOR)
        qtbot.waitUntil(lambda: "executive" in prompt.message.text().lower(), timeout=10000)
        seen["first_refusal"] = prompt.message.text()
        seen["unchanged_after_first_refusal"] = unchanged()
        _type_swipe(qtbot, prompt, swipe_of(EXECUTIVE))
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        modal_steps.when(asking(SECOND_CARD), second_card, what=SECOND_CARD)
        type_pin(prompt, EXECUTIVE)  # the demo PIN is the employee number

    def second_card() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, AdjustSwipePrompt)
        seen["second_heading"] = prompt.findChild(type(prompt.message), "title").text()
        _type_swipe(qtbot, prompt, swipe_of(EXECUTIVE))  # the same person again
        qtbot.waitUntil(lambda: "another person" in prompt.message.text(), timeout=10000)
        seen["same_person"] = prompt.message.text()
        seen["unchanged_after_same_person"] = unchanged()
        _type_swipe(qtbot, prompt, swipe_of(SURVEILLANCE))  # may not authorize
        qtbot.waitUntil(lambda: "may not authorize" in prompt.message.text(), timeout=10000)
        seen["surveillance"] = prompt.message.text()
        seen["unchanged_after_surveillance"] = unchanged()
        shot(prompt, "adjust-swipe-second-refused")
        _type_swipe(qtbot, prompt, swipe_of(SUPERVISOR))  # a supervisor, another person

    with modal_steps.running():
        modal_steps.on_dialog(AdjustDialog, in_dialog)
        qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)  # Ctrl+J

    assert seen["current"] == "$10,000.00"
    assert seen["enabled_without_reason"] is False
    assert "reason" in str(seen["problem_without_reason"])
    assert seen["after"] == "$9,750.00"
    assert "-$250.00" in str(seen["change"])
    assert seen["enabled"] is True
    assert seen["first_heading"] == f"{FIRST_CARD} + PIN"  # the demo floor asks executives
    assert seen["first_asks_pin"] is True
    assert seen["second_heading"] == SECOND_CARD
    assert "needs an executive" in str(seen["first_refusal"])
    assert "another person" in str(seen["same_person"])
    assert "may not authorize" in str(seen["surveillance"])
    for key in ("first_refusal", "same_person", "surveillance"):
        assert "6011" not in str(seen[key])  # never echo card data
    assert seen["unchanged_after_first_refusal"] is True
    assert seen["unchanged_after_same_person"] is True
    assert seen["unchanged_after_surveillance"] is True

    [entry] = _adjustments(engine)
    assert entry.meter_delta == -25_000 * UNITS_PER_CENT
    assert entry.reserve_delta == 0
    assert entry.employee_id == _employee_id(engine, EXECUTIVE)
    assert entry.second_employee_id == _employee_id(engine, SUPERVISOR)
    assert entry.reason == "backs out win slip 7 paid on a misread hand"
    assert _meter_units(floor, "WA01", "MAIN") == before - 25_000 * UNITS_PER_CENT
    top = window.log_list.item(0).text()
    assert "WA01 Link MAIN adjusted by -$250.00" in top and "$9,750.00" in top

    with Session(engine) as s:
        swipes = [(w.outcome, w.employee_id, w.role_required)
                  for w in s.scalars(select(SwipeLog).where(SwipeLog.action == "adjust")
                                     .order_by(SwipeLog.id))]
    sup, exe, sur = (_employee_id(engine, n) for n in (SUPERVISOR, EXECUTIVE, SURVEILLANCE))
    # the refused first card is evidence; the probe of the executive's card writes nothing
    assert swipes[0] == ("insufficient_authority", sup, "executive")
    assert ("insufficient_authority", sur, "supervisor") in swipes
    assert swipes[-2:] == [("accepted", exe, "executive"), ("accepted", sup, "supervisor")]


def test_adjustment_amount_must_be_a_signed_amount_in_cents_and_keep_the_meter_at_zero_or_more(  # type: ignore[no-untyped-def]
        qtbot, console_window) -> None:
    window, floor = console_window
    dlg = AdjustDialog(floor.console.floor, floor.console.config, window.swipe_prompt, window)
    qtbot.addWidget(dlg)
    dlg.select("ML2", "MINOR")
    qtbot.waitUntil(dlg.meter_shown, timeout=10000)
    dlg.reason.setText("meter test")
    cases = {
        "12.345": "more than two decimals",
        "ten dollars": "is not a number",
        "0": "must not be zero",
        "-999999999": "would make it negative",
    }
    for text, message in cases.items():
        dlg.amount.setText(text)
        assert message in dlg.problem.text(), text
        assert "adjustment" in dlg.problem.text()
        assert not dlg.confirm_btn.isEnabled(), text
        assert dlg.after.text() == "—"
    dlg.amount.setText("+$1,000")
    assert dlg.confirm_btn.isEnabled()
    assert dlg.problem.text() == ""
    assert dlg.after.text().replace(",", "").startswith("$")
    dlg.reject()
    assert not _adjustments(floor.engine)


def test_cancelled_second_swipe_records_nothing(qtbot, modal_steps, console_window) -> None:  # type: ignore[no-untyped-def]
    window, floor = console_window
    before = _meter_units(floor, "ML2", "MAJOR")
    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, AdjustDialog)
        dlg.select("ML2", "MAJOR")
        qtbot.waitUntil(dlg.meter_shown, timeout=10000)
        dlg.amount.setText("500")
        dlg.reason.setText("seed top-up")
        modal_steps.when(asking(FIRST_CARD), first_card, what=FIRST_CARD)
        dlg.confirm_btn.click()
        seen["problem"] = dlg.problem.text()  # back in the dialog after the cancel
        dlg.reject()

    def first_card() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, AdjustSwipePrompt)
        _type_swipe(qtbot, prompt, swipe_of(EXECUTIVE))
        qtbot.waitUntil(prompt.pin_field.isVisible, timeout=10000)
        modal_steps.when(asking(SECOND_CARD), second_card, what=SECOND_CARD)
        type_pin(prompt, EXECUTIVE)

    def second_card() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, AdjustSwipePrompt)
        qtbot.keyClick(prompt, Qt.Key.Key_Escape)

    with modal_steps.running():
        modal_steps.on_dialog(AdjustDialog, in_dialog)
        window.adjust_action.trigger()
    assert "Nothing was recorded" in str(seen["problem"])
    assert not _adjustments(floor.engine)
    assert _meter_units(floor, "ML2", "MAJOR") == before
