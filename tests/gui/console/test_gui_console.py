"""The console as a supervisor uses it: a hit arrives from a simulated controller over TCP,
shows in the queue, is verified in the dialog, a supervisor's card confirms the verification, a
too-low card is refused, an Executive card swipe (real key events, typed at reader speed) and
PIN pay it, the meter reseeds and the slip prints.

Screenshots of each screen go to $PODIUM_SCREENSHOT_DIR when it is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget

from core.app.demo import demo_credential, swipe_of
from gui.common.authorize import SwipePrompt
from gui.common.swipe import SwipeCatcher
from gui.main_window import MainWindow
from gui.tablegames.verify import VerifyDialog
from tests.fake_printer import FakePrinter
from tests.gui.swiping import type_pin, type_swipe
from tests.harness import FloorHarness, wait_for

ROYAL_SF7 = ["8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]
SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


@pytest.fixture
def console_window(qtbot, qapp, sqlite_engine):  # type: ignore[no-untyped-def]
    catcher = SwipeCatcher()
    catcher.install(qapp)
    with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port) as floor:
        window = MainWindow(floor.console, catcher)
        qtbot.addWidget(window)
        window.show()
        yield window, floor, printer
        window.close()
    qapp.removeEventFilter(catcher)


def _type_swipe(qtbot, widget: QWidget, swipe: str) -> None:  # type: ignore[no-untyped-def]
    type_swipe(widget, swipe)  # at reader speed, by the events' own clock


def test_supervisor_verifies_and_pays_a_jackpot_with_a_swipe(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window):
    window, floor, printer = console_window
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    assert "1 HIT WAITING" in window.pending_label.text()
    assert window.queue.item(0, 4).text() == "7-card straight flush, natural"
    shot(window, "main-window-hit-waiting")

    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, VerifyDialog)
        # PAY waits for the amount's freeze (Jackpot Lock at verification) and its evaluation
        qtbot.waitUntil(lambda: dlg.freeze_state is not None and dlg.pay_btn.isEnabled(),
                        timeout=10000)
        seen["amount"] = dlg.amount.text()
        seen["evaluated"] = dlg.evaluated.text()
        seen["pay_enabled"] = dlg.pay_btn.isEnabled()
        shot(dlg, "verify-dialog")
        modal_steps.on_dialog(SwipePrompt, in_verifier)
        dlg.pay_btn.click()  # opens the swipe prompt (modal)

    def in_verifier() -> None:
        # $10,000.60: two people, the verifier's card first (a supervisor may verify)
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        seen["verifier_text"] = " ".join(w.text() for w in prompt.findChildren(QLabel))
        shot(prompt, "swipe-prompt-verifier")
        seen["verifier_prompt"] = prompt
        # polled, never waited for here: this runs inside the verifier prompt's event loop,
        # which returns (and lets the next prompt open) only once this returns
        modal_steps.when(authorizer_prompt, in_prompt, timeout=15,
                         what="the authorizer's prompt")
        _type_swipe(qtbot, prompt, swipe_of("1001"))

    def authorizer_prompt() -> bool:
        w = QApplication.activeModalWidget()
        return isinstance(w, SwipePrompt) and w is not seen["verifier_prompt"]

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        seen["authorizer_text"] = " ".join(w.text() for w in prompt.findChildren(QLabel))
        shot(prompt, "swipe-prompt")
        _type_swipe(qtbot, prompt, swipe_of("1002"))  # a Supervisor: not enough for 100%
        qtbot.waitUntil(lambda: prompt.pin_field.isVisible(), timeout=10000)
        shot(prompt, "swipe-prompt-pin")
        type_pin(prompt, "1002")
        qtbot.waitUntil(lambda: "executive" in prompt.message.text().lower(), timeout=10000)
        seen["refusal"] = prompt.message.text()
        shot(prompt, "swipe-prompt-refused")
        _type_swipe(qtbot, prompt, swipe_of("2001"))  # the Executive
        qtbot.waitUntil(lambda: prompt.pin_field.isVisible(), timeout=10000)
        type_pin(prompt, "2001")

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.open_selected_hit()  # blocks until the dialog closes

    assert seen["amount"] == "$10,000.60"
    assert "7-card straight flush, natural" in str(seen["evaluated"]).lower()
    assert seen["pay_enabled"] is True
    assert "executive" in str(seen["refusal"]).lower()
    assert "6011" not in str(seen["refusal"])  # never echo card data
    assert "VERIFIER" in str(seen["verifier_text"])
    assert "AUTHORIZER" in str(seen["authorizer_text"]) and "PIN" in str(seen["authorizer_text"])
    snap = floor.console.floor.snapshot()
    assert snap.pending == ()
    main = {(lv.group, lv.level): lv for lv in snap.levels}[("WA01", "MAIN")]
    assert main.meter_cents == 1_000_006  # reseeded at seed + reserve
    printer.wait_for_bytes(200, timeout=10)
    qtbot.waitUntil(lambda: window.queue.rowCount() == 0, timeout=10000)
    window.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: window.slips.rowCount() == 1 and
                    window.slips.item(0, 5).text().startswith("yes"), timeout=5000)
    shot(window, "main-window-slips")


def test_claim_that_differs_from_the_cards_blocks_paying_until_corrected(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window):
    window, floor, _printer = console_window
    sim = floor.sims["PG-1"]
    cards = ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]  # a straight flush, $100 from the tray
    floor.on_sim(sim.force_wagers, [2])
    floor.on_sim(sim.force_hand, 2, cards)
    floor.on_sim(sim.step)  # START GAME
    # the dealer presses the ROYAL FLUSH button by mistake
    floor.on_sim(sim.press_hit_jackpot, 2, "ROYAL_FLUSH")
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    assert "cards make straight flush" in window.queue.item(0, 7).text()

    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, VerifyDialog)
        # the answer shown is the one asked after the freeze (an earlier one keeps PAY off
        # whatever the correction: on a loaded machine it may come first)
        qtbot.waitUntil(lambda: dlg.freeze_state is not None and not dlg.evaluating
                        and dlg._verification is not None and dlg._after_freeze,
                        timeout=10000)
        seen["blocked"] = not dlg.pay_btn.isEnabled()
        seen["problems"] = dlg.problems.text()
        seen["amount"] = dlg.amount.text()
        shot(dlg, "verify-dialog-mismatch")
        dlg.correct.setChecked(True)
        seen["enabled_after_correction"] = dlg.pay_btn.isEnabled()
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        dlg.pay_btn.click()

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        _type_swipe(qtbot, prompt, swipe_of("1002"))  # a Supervisor is enough for $100

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.open_selected_hit()
    assert seen["blocked"] is True
    assert "claimed royal flush, cards make straight flush" in str(seen["problems"])
    assert seen["amount"] == "$100.00"
    assert seen["enabled_after_correction"] is True
    assert floor.pending() == []


def test_stray_swipe_is_ignored_and_never_typed_into_a_field(qtbot, console_window):  # type: ignore[no-untyped-def]
    window, _floor, _printer = console_window
    # the links' start-up messages go to the status bar too: let them be shown first
    qtbot.waitUntil(lambda: window.bridge.busy == 0, timeout=5000)
    qtbot.wait(150)
    _type_swipe(qtbot, window.queue, swipe_of("1001"))
    qtbot.waitUntil(lambda: "ignored" in window.statusBar().currentMessage(), timeout=10000)


def test_offline_table_shows_offline_and_locked(qtbot, console_window):  # type: ignore[no-untyped-def]
    window, floor, _printer = console_window
    floor.sim_thread.stop()  # the controllers go away
    qtbot.waitUntil(lambda: "OFFLINE" in window.grid.tile("PG-1").link, timeout=10000)
    assert "LOCKED" in window.grid.tile("PG-1").round
    wait_for(lambda: not floor.console.floor.snapshot().tables[0].online)
    shot(window, "main-window-offline")


def test_keyboard_only_pay_enter_opens_ctrl_enter_pays_swipe_authorizes(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window):
    window, floor, printer = console_window
    cards = ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]  # straight flush, $100, supervisor
    floor.deal_hit("PG-1", seat=4, cards=cards, wagers=[4])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    steps: list[str] = []

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, VerifyDialog)
        steps.append("dialog")
        qtbot.waitUntil(lambda: dlg.pay_btn.isEnabled(), timeout=10000)  # frozen, evaluated
        # a shortcut fires only in the active window: wait until the dialog is it (the
        # window manager may take a moment on a busy machine; without this the test can hang)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dlg)
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        qtbot.keyClick(dlg, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        steps.append("prompt")
        _type_swipe(qtbot, prompt, swipe_of("1002"))

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.queue.setFocus()
        qtbot.keyClick(window.queue, Qt.Key.Key_Return)  # opens the selected hit (modal)
    assert steps == ["dialog", "prompt"]
    assert floor.pending() == []
    printer.wait_for_bytes(200, timeout=10)


def test_demo_swipe_field_pays_from_a_pasted_swipe_and_exists_only_in_the_demo(
        qtbot, modal_steps, console_window):  # type: ignore[no-untyped-def]
    window, floor, _printer = console_window
    cards = ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]
    floor.deal_hit("PG-1", seat=4, cards=cards, wagers=[4])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, VerifyDialog)
        qtbot.waitUntil(lambda: dlg.pay_btn.isEnabled(), timeout=10000)  # frozen, evaluated
        modal_steps.on_dialog(SwipePrompt, in_prompt)
        dlg.pay_btn.click()

    def in_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SwipePrompt)
        field = prompt.demo_field
        seen["masked"] = field.echoMode() == field.EchoMode.Password
        field.setText(swipe_of("1002"))  # a paste: no key events for the reader capture
        qtbot.keyClick(field, Qt.Key.Key_Return)

    SwipePrompt.demo_entry = True
    try:
        with modal_steps.running():
            modal_steps.on_dialog(VerifyDialog, in_dialog)
            window.open_selected_hit()
    finally:
        SwipePrompt.demo_entry = False
    assert seen["masked"] is True
    assert floor.pending() == []
    prompt = SwipePrompt(window.catcher, "supervisor", "x", lambda raw: None, window)
    assert prompt.findChild(QLineEdit, "demoSwipe") is None  # not on a real floor
    prompt.deleteLater()


def test_a_locked_hit_shows_its_meter_pending_beside_the_live_amount(qtbot, qapp,  # type: ignore[no-untyped-def]
                                                                     sqlite_engine) -> None:
    """Jackpot Lock on the console: while a lock-at-hit hit waits, the group's meter tile says
    PENDING with the frozen amount beside the live meter (which the linked tables keep
    growing); the pay clears it.  The simulator's view of the other linked table is rendered
    beside it for docs/screenshots."""
    catcher = SwipeCatcher()
    catcher.install(qapp)
    try:
        with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port,
                                                    tables=("PG-1", "PG-2"),
                                                    lock_at_hit=True) as floor:
            window = MainWindow(floor.console, catcher)
            qtbot.addWidget(window)
            window.setWindowState(Qt.WindowState.WindowNoState)  # it opens maximized
            window.resize(1366, 768)
            window.show()
            floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
            qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
            pg2 = floor.sims["PG-2"]
            floor.on_sim(pg2.force_wagers, [2, 4])
            floor.on_sim(pg2.step)  # the linked table keeps playing
            tile = window._meter_tiles[("WA01", "MAIN")]
            qtbot.waitUntil(lambda: tile.pending.isVisible(), timeout=5000)
            assert tile.pending.text().startswith("PENDING $10,000.60")
            qtbot.waitUntil(lambda: tile.amount.text() == "$10,000.46", timeout=5000)
            wait_for(lambda: "PENDING" in pg2.jackpot_line("MAIN"), what="PG-2 told")
            shot(window, "jackpot-lock-pending-console")
            if SHOTS:
                from PySide6.QtGui import QFont

                view = QLabel("\n".join([
                    f"podium simulate  ·  table PG-2 (linked to WA01, {pg2.paytable.id})",
                    f"round {pg2.round_no}: {pg2.phase}, wagers on seats "
                    f"{', '.join(str(s) for s in sorted(pg2.wagers))}",
                    pg2.jackpot_line("MAIN")]))
                view.setFont(QFont("monospace", 11))
                view.setStyleSheet("background: #101418; color: #e0e0e0; padding: 12px;")
                metrics = view.fontMetrics()
                view.resize(max(metrics.horizontalAdvance(line) for line in
                                view.text().splitlines()) + 120,
                            metrics.lineSpacing() * 3 + 40)
                shot(view, "jackpot-lock-pending-simulator")
                view.deleteLater()
            hit = floor.pending()[0]
            floor.console.floor.pay(hit.hit_id, ROYAL_SF7, demo_credential("2001"),
                                    verifier=swipe_of("1001"))
            qtbot.waitUntil(lambda: not tile.pending.isVisible(), timeout=5000)
            window.close()
    finally:
        qapp.removeEventFilter(catcher)


@pytest.mark.parametrize("speed", ["human", "reader"])
def test_seven_typed_cards_and_enter_fill_every_slot_and_space_takes_none_back(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window, speed: str) -> None:
    """docs/operator.md: type the seven cards and press Enter.  Enter only applies the cards (it
    used to click the first card slot too, taking that card back); Space with no field focused
    takes nothing back either."""
    window, floor, _printer = console_window
    cards = ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]  # straight flush
    floor.deal_hit("PG-1", seat=4, cards=cards, wagers=[4])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        try:
            assert isinstance(dlg, VerifyDialog)
            dlg.picker.clear()
            dlg.picker.entry.setFocus()
            if speed == "human":
                qtbot.keyClicks(dlg.picker.entry, " ".join(cards), delay=20)
                qtbot.keyClick(dlg.picker.entry, Qt.Key.Key_Return)
            else:
                type_swipe(dlg.picker.entry, " ".join(cards))  # 4 ms a key, then Enter
            qtbot.waitUntil(lambda: dlg.picker.is_complete(), timeout=10000)
            seen["after_enter"] = [str(c) for c in dlg.picker.cards()]
            qtbot.waitUntil(lambda: dlg.pay_btn.isEnabled(), timeout=10000)
            dlg.setFocus()
            qtbot.keyClick(dlg, Qt.Key.Key_Space)
            seen["after_space"] = len(dlg.picker.cards())
            seen["pay_enabled"] = dlg.pay_btn.isEnabled()
        finally:
            if dlg is not None:
                dlg.reject()

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.open_selected_hit()
    assert seen["after_enter"] == ["5h", "6h", "7h", "8h", "9h", "Kc", "2d"]
    assert seen["after_space"] == 7 and seen["pay_enabled"] is True


def test_the_queue_waiting_time_ticks_and_an_aged_hit_turns_red_and_sounds_once(  # type: ignore[no-untyped-def]
        qtbot, console_window, monkeypatch) -> None:
    from datetime import UTC, datetime, timedelta

    window, floor, _printer = console_window
    beeps: list[int] = []
    monkeypatch.setattr(QApplication, "beep", staticmethod(lambda: beeps.append(1)))
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[3])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    wait = window.queue.item(0, window.queue.WAIT_COLUMN)
    first = wait.text()
    qtbot.waitUntil(lambda: window.queue.item(0, window.queue.WAIT_COLUMN).text() != first,
                    timeout=10000)  # it moves on with no change of the queue
    # five minutes later (the demo floor's hit_alert_minutes): red, a sound, a line in Activity
    later = datetime.now(UTC) + timedelta(minutes=5, seconds=2)
    assert window.queue.tick(later, 300) == [window.queue.hit_ids()[0]]
    assert window.queue.tick(later + timedelta(seconds=1), 300) == []  # sounds once
    item = window.queue.item(0, window.queue.WAIT_COLUMN)
    assert item.text().startswith("⚠ 5:0") and item.background().color().name() == "#ff4d4f"
    window.queue.clearSelection()
    shot(window, "queue-aged-hit")
    assert beeps == []
    # the console's own tick, for a hit that has waited six minutes: one sound, one line
    hid = window.queue.hit_ids()[0]
    window.queue._alerted.clear()
    window.queue._since[hid] = datetime.now(UTC) - timedelta(minutes=6)
    window._tick_waits()
    window._tick_waits()
    assert beeps == [1]
    assert f"H{hid} waiting 5 min or more" in window.log_list.item(0).text()


def test_the_reject_dialog_offers_the_common_reasons_and_keeps_the_flags_in_sight(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window) -> None:
    from gui.tablegames.verify import COMMON_REASONS, RejectDialog

    window, floor, _printer = console_window
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    seen: dict[str, object] = {}

    def answer(dlg: RejectDialog) -> bool:
        seen["reasons"] = [dlg.reasons.item(i).text() for i in range(dlg.reasons.count())]
        seen["preselected"] = dlg.reason()  # a hit with no flag: nothing picked for you
        dlg.reasons.clearSelection()
        dlg.reasons.setCurrentRow(-1)
        dlg._confirm()  # no reason: stays open, says so
        seen["empty"] = (dlg.result(), dlg.message.text())
        dlg.reasons.setCurrentRow(COMMON_REASONS.index("No wager on the seat"))
        qtbot.keyClicks(dlg.details, "sensor 3 dark; dealer pressed 3 instead of 5")
        shot(dlg, "reject-dialog")
        qtbot.keyClick(dlg.details, Qt.Key.Key_Return)  # typed fast, ';' and all, then Enter
        return dlg.result() == dlg.DialogCode.Accepted

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, VerifyDialog)
        dlg.ask_reason = answer
        qtbot.waitUntil(lambda: dlg.freeze_state is not None and dlg.pay_btn.isEnabled(),
                        timeout=10000)  # the amount frozen and evaluated: its reject role
        # a 7-card straight flush: rejecting it needs the executive that paying it would
        dlg.authorize = lambda role, what, kind, action: (
            seen.setdefault("what", what), seen.setdefault("role", role),
            action(demo_credential("2001")))[2] is None
        dlg._reject()

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.open_selected_hit()
    assert seen["reasons"] == list(COMMON_REASONS)
    assert seen["preselected"] == ""
    assert seen["empty"] == (0, "A rejection needs a reason: pick one or type it.")
    reason = "No wager on the seat: sensor 3 dark; dealer pressed 3 instead of 5"
    assert seen["what"] == f"Reject hit H1: {reason}"
    assert seen["role"] == "executive"
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from core.ledger.models import HitDecision

    with Session(floor.engine) as s:
        assert s.scalars(select(HitDecision.reason).where(
            HitDecision.decision == "rejected")).one() == reason


def test_a_flag_picks_the_likely_reason(qtbot) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from core.tablegames.flags import FlagCode, HitFlag
    from gui.tablegames.model import HitView
    from gui.tablegames.verify import RejectDialog

    for flag, likely in ((HitFlag(FlagCode.NO_WAGER, seat=3), "No wager on the seat"),
                         (HitFlag(FlagCode.CLAIM_MISMATCH, claimed="FLUSH", made="STRAIGHT"),
                          "Wrong hand button"),
                         (HitFlag(FlagCode.NOT_A_HAND, hand="FLUSHX"), "Wrong hand button"),
                         (HitFlag(FlagCode.ROUND_VOID, round=4, state="misdealt"), "Misdeal"),
                         (HitFlag(FlagCode.ROUND_VOID, round=4, state="undone"), "Misdeal"),
                         (HitFlag(FlagCode.ROUND_ENDED, round=4), ""), (None, "")):
        flags = (flag,) if flag is not None else ()
        dlg = RejectDialog(HitView(1, "H1", "Pai Gow 1", 3, 4, "FLUSH", None,
                                   tuple(f.words() for f in flags), datetime.now(UTC),
                                   codes=tuple(f.code for f in flags)))
        qtbot.addWidget(dlg)
        assert dlg.reason() == likely


def test_the_likely_reason_is_picked_from_codes_not_from_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from core.tablegames.flags import FlagCode
    from gui.tablegames.model import HitView
    from gui.tablegames.verify import RejectDialog

    # a NOTE whose words happen to say "no wager" picks nothing; the code alone decides
    dlg = RejectDialog(HitView(1, "H1", "Pai Gow 1", 3, 4, "FLUSH", None,
                               ("the dealer said no wager",), datetime.now(UTC),
                               codes=(FlagCode.NOTE,)))
    qtbot.addWidget(dlg)
    assert dlg.reason() == ""
    dlg = RejectDialog(HitView(1, "H1", "Pai Gow 1", 3, 4, "FLUSH", None, ("(any words)",),
                               datetime.now(UTC), codes=(FlagCode.NO_WAGER,)))
    qtbot.addWidget(dlg)
    assert dlg.reason() == "No wager on the seat"


def test_messages_come_through_the_bridge_and_the_listeners_go_when_the_window_closes(  # type: ignore[no-untyped-def]
        qtbot, console_window) -> None:
    import threading

    window, floor, _printer = console_window
    bridge = window.bridge
    listening = bridge.listening
    said = threading.Thread(target=floor.console._listeners.say,
                            args=("Printer: out of paper (test)",))
    said.start()
    said.join(10)
    qtbot.waitUntil(lambda: "out of paper (test)" in window.statusBar().currentMessage(),
                    timeout=5000)
    assert "out of paper (test)" in window.log_list.item(0).text()
    window.close()
    assert bridge.listening == listening - 5  # changes, messages, writer, links, resync
    floor.console._listeners.say("Printer: ready (test)")  # heard by nobody: nothing fails
    qtbot.wait(50)
    assert "ready (test)" not in window.log_list.item(0).text()


def test_tabs_change_from_the_keyboard_and_quitting_with_hits_waiting_asks_first(  # type: ignore[no-untyped-def]
        qtbot, console_window) -> None:
    from PySide6.QtGui import QCloseEvent

    window, floor, _printer = console_window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10000)
    tabs = window.tabs
    tabs.setCurrentIndex(0)
    qtbot.keyClick(window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert tabs.currentIndex() == 1
    qtbot.keyClick(window, Qt.Key.Key_PageDown, Qt.KeyboardModifier.ControlModifier)
    assert tabs.currentIndex() == 2
    qtbot.keyClick(window, Qt.Key.Key_PageUp, Qt.KeyboardModifier.ControlModifier)
    assert tabs.currentIndex() == 1
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.AltModifier)
    assert tabs.currentIndex() == 3
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert tabs.currentIndex() == 0

    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[3])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    asked: list[int] = []
    window.confirm_quit = lambda n: asked.append(n) is not None  # "Stay"
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert asked == [1] and window.isVisible()  # Ctrl+Q asked; Stay keeps it open
    alt_f4 = QCloseEvent()
    alt_f4.setAccepted(True)
    QApplication.sendEvent(window, alt_f4)  # from code: a test's own close does not ask
    assert asked == [1]


def test_the_verify_dialog_keeps_its_layout_still_whatever_the_result_says(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window) -> None:
    """The deck must not move under the pointer: the dialog's height and the deck's place stay
    the same for a paying hand, a mismatch with problems, and a hand that pays nothing."""
    from core.kernel.cards import parse_card

    window, floor, _printer = console_window
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[3])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    seen: list[tuple[int, int]] = []

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        try:
            assert isinstance(dlg, VerifyDialog)
            deck = dlg.picker.entry
            for cards in (ROYAL_SF7, ["Kc", "Kd", "Kh", "2s", "2d", "7c", "9h"],
                          ["2c", "5d", "9h", "Jc", "Ks", "3d", "7s"]):
                dlg.picker.set_cards([parse_card(c) for c in cards])
                qtbot.waitUntil(lambda: not dlg.evaluating, timeout=10000)
                qtbot.wait(50)
                seen.append((dlg.height(), deck.mapTo(dlg, deck.rect().topLeft()).y()))
        finally:
            if dlg is not None:
                dlg.reject()

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.open_selected_hit()
    assert len(seen) == 3 and len(set(seen)) == 1, seen


def test_a_tile_shows_the_seats_with_a_locked_progressive_wager(qtbot, console_window) -> None:  # type: ignore[no-untyped-def]
    """What a "no wager on seat N" flag is checked against, at a glance."""
    window, floor, _printer = console_window
    sim = floor.sims["PG-1"]
    floor.on_sim(sim.force_wagers, [1, 3, 5])
    floor.on_sim(sim.step)  # START GAME: seats 1, 3 and 5 lit
    qtbot.waitUntil(lambda: window.grid.tile("PG-1").bets == "Bets: seat 1 3 5", timeout=5000)
    assert window.grid.tile("PG-1").round == "Round 1 · locked"
    shot(window.grid, "tile-seat-bets")
    floor.on_sim(sim.step)  # the deal (nothing pays)
    floor.on_sim(sim.step)  # END GAME: no round locked, no bets shown
    qtbot.waitUntil(lambda: window.grid.tile("PG-1").bets == "", timeout=5000)


def test_activity_is_read_back_from_the_ledger_after_a_restart_and_can_be_filtered(  # type: ignore[no-untyped-def]
        qtbot, qapp, console_window) -> None:
    window, floor, _printer = console_window
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[3])
    hit = wait_for(lambda: floor.pending(), what="the hit")[0]
    floor.console.floor.reject(hit.hit_id, "no wager on seat 3; dealer pressed the wrong seat",
                               demo_credential("2001"))  # an executive-level hit
    # a new console window on the same ledger (a restart of the console)
    again = MainWindow(floor.console, window.catcher)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: any(
        "rejected by Evelyn Cruz #2001" in again.log_list.item(i).text()
        for i in range(again.log_list.count())), timeout=5000)
    texts = [again.log_list.item(i).text() for i in range(again.log_list.count())]
    line = next(t for t in texts if "rejected by Evelyn Cruz #2001" in t)
    assert (f"Hit H{hit.hit_id} (PG-1 seat 3, round 1) rejected by Evelyn Cruz #2001 "
            "(executive)") in line
    assert line.endswith("no wager on seat 3; dealer pressed the wrong seat")
    again.activity_filter.setText("rejected PG-1")
    shown = [again.log_list.item(i).text() for i in range(again.log_list.count())
             if not again.log_list.item(i).isHidden()]
    assert shown and all("rejected" in t.lower() and "pg-1" in t.lower() for t in shown)
    again.close()


def _decisions(engine, hit_id: int) -> list[str]:  # type: ignore[no-untyped-def]
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from core.ledger.models import HitDecision

    with Session(engine) as s:
        return list(s.scalars(select(HitDecision.decision).where(HitDecision.hit_id == hit_id)
                              .order_by(HitDecision.id)))


def test_opening_a_hit_freezes_its_amount_and_closing_it_undecided_gives_it_back(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, console_window) -> None:
    """Jackpot Lock at verification: the dialog's opening fixes the amount (PENDING on the
    group's meter tile, a ``frozen`` record); Close without a pay or a rejection gives it back
    (an ``unfrozen`` record, the meter whole again)."""
    window, floor, _printer = console_window
    floor.deal_hit("PG-1", seat=3, cards=ROYAL_SF7, wagers=[1, 3, 5])
    qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
    hit_id = floor.pending()[0].hit_id
    before = floor.console.floor.meter("WA01", "MAIN").meter_units
    tile = window._meter_tiles[("WA01", "MAIN")]
    seen: dict[str, object] = {}

    def in_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        try:
            assert isinstance(dlg, VerifyDialog)
            qtbot.waitUntil(lambda: dlg.freeze_state == "frozen" and dlg.pay_btn.isEnabled(),
                            timeout=10000)
            seen["amount"] = dlg.amount.text()
            seen["detail"] = dlg.detail.text()
            seen["decisions"] = _decisions(floor.engine, hit_id)
            qtbot.waitUntil(lambda: tile.pending.isVisible(), timeout=5000)
            seen["pending"] = tile.pending.text()
            shot(dlg, "verify-dialog-frozen")
        finally:
            if dlg is not None:
                dlg.reject()  # Close: no decision

    with modal_steps.running():
        modal_steps.on_dialog(VerifyDialog, in_dialog)
        window.open_selected_hit()
    assert seen["amount"] == "$10,000.60"
    assert "FROZEN" in str(seen["detail"])
    assert seen["decisions"] == ["frozen"]
    assert str(seen["pending"]).startswith("PENDING $10,000.60")
    qtbot.waitUntil(lambda: _decisions(floor.engine, hit_id) == ["frozen", "unfrozen"],
                    timeout=10000)
    assert floor.console.floor.meter("WA01", "MAIN").meter_units == before
    qtbot.waitUntil(lambda: not tile.pending.isVisible(), timeout=5000)
    assert [h.hit_id for h in floor.pending()] == [hit_id]  # still waiting


def test_a_pay_goes_through_on_the_first_swipe_while_a_linked_table_plays_during_the_pin(  # type: ignore[no-untyped-def]
        qtbot, modal_steps, qapp, sqlite_engine) -> None:
    """The demo's 42 s pay: PG-2 (linked) deals a round between the swipe and the PIN; the
    pay goes through on that one swipe, at the amount shown."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from core.ledger.models import Award, SwipeLog

    catcher = SwipeCatcher()
    catcher.install(qapp)
    rf = ["As", "Ks", "Qs", "Js", "Ts", "Kd", "Qd"]  # a royal match: 50% of the meter
    try:
        with FakePrinter() as printer, FloorHarness(sqlite_engine, printer.port,
                                                    tables=("PG-1", "PG-2")) as floor:
            window = MainWindow(floor.console, catcher)
            qtbot.addWidget(window)
            window.show()
            floor.deal_hit("PG-1", seat=3, cards=rf, wagers=[3])
            qtbot.waitUntil(lambda: window.queue.rowCount() == 1, timeout=5000)
            pg2 = floor.sims["PG-2"]
            seen: dict[str, object] = {}

            def in_dialog() -> None:
                dlg = QApplication.activeModalWidget()
                assert isinstance(dlg, VerifyDialog)
                seen["dialog"] = dlg
                qtbot.waitUntil(lambda: dlg.freeze_state == "frozen"
                                and dlg.pay_btn.isEnabled(), timeout=10000)
                seen["amount"] = dlg.amount.text()
                modal_steps.on_dialog(SwipePrompt, in_prompt)
                dlg.pay_btn.click()

            def in_prompt() -> None:
                prompt = QApplication.activeModalWidget()
                assert isinstance(prompt, SwipePrompt)
                _type_swipe(qtbot, prompt, swipe_of("2001"))  # the Executive
                qtbot.waitUntil(lambda: prompt.pin_field.isVisible(), timeout=10000)
                meter = floor.console.floor.meter("WA01", "MAIN").meter_units
                floor.on_sim(pg2.force_wagers, [1, 2, 4])
                floor.on_sim(pg2.step)  # START GAME at the linked table, during the PIN
                qtbot.waitUntil(lambda: floor.console.floor.meter(
                    "WA01", "MAIN").meter_units > meter, timeout=10000)
                type_pin(prompt, "2001")
                qtbot.waitUntil(lambda: not prompt.isVisible() or "#ff4d4f" in
                                prompt.message.styleSheet(), timeout=10000)
                if prompt.isVisible():  # refused: say why, close everything (no hang)
                    seen["refused"] = prompt.message.text()
                    prompt.reject()
                    modal_steps.later(0, seen["dialog"].reject)  # type: ignore[attr-defined]

            with modal_steps.running():
                modal_steps.on_dialog(VerifyDialog, in_dialog)
                window.open_selected_hit()
            assert "refused" not in seen, seen.get("refused")
            assert floor.pending() == []
            with Session(floor.engine) as s:
                award = s.scalars(select(Award)).one()
                refused = list(s.scalars(select(SwipeLog).where(SwipeLog.outcome == "refused")))
            assert f"${award.amount_cents / 100:,.2f}" == seen["amount"]
            assert refused == []
            window.close()
    finally:
        qapp.removeEventFilter(catcher)


@pytest.mark.allow_logged_errors  # the writer's one ERROR line is the point
def test_the_console_says_once_when_the_ledger_stops_recording_and_when_it_records_again(  # type: ignore[no-untyped-def]
        qtbot, console_window):
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from core.ledger.outages import LedgerUnavailable

    window, floor, _printer = console_window
    writer = floor.console.floor.writer
    writer.probe_s = 0.0  # the next batch is tried at once

    def full(_unit: object) -> None:
        raise OperationalError("COMMIT", {}, sqlite3.OperationalError("database or disk is full"))

    for _ in range(3):  # three batches fail: said once
        with pytest.raises(LedgerUnavailable):
            writer.submit(full).result(10)
    qtbot.waitUntil(lambda: "The ledger stopped recording" in window.statusBar().currentMessage(),
                    timeout=10000)
    writer.submit(lambda _unit: None).result(10)
    qtbot.waitUntil(lambda: "The ledger records again" in window.statusBar().currentMessage(),
                    timeout=10000)
    texts = [window.log_list.item(i).text() for i in range(window.log_list.count())]
    stopped = [t for t in texts if "The ledger stopped recording: the ledger's file can not be "
               "written (database or disk is full); " in t]
    assert len(stopped) == 1 and " bytes free on " in stopped[0]
    assert len([t for t in texts if "The ledger records again" in t]) == 1
