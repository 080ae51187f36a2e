"""The hit verification dialog by keyboard (issue 26): Reject has a shortcut (Ctrl+R), and
Reject is the same number of Tab presses away from where the dialog starts on a flagged hit
(the claim differs from the cards: "Correct the claim" is offered) and on a hit without a
flag.  A stand-in service answers the freeze and the evaluation (no ledger)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.kernel.cards import parse_cards
from core.tablegames.flags import FlagCode
from gui.tablegames.model import HitView
from gui.tablegames.verify import RejectDialog, VerifyDialog

CARDS = parse_cards(["Kh", "Kd", "Kc", "4h", "4d", "2c", "9h"])  # a full house


class Service:
    """Freeze and evaluation as the floor answers them; ``mismatch``: the dealer claimed
    another hand than the cards make (the flagged hit)."""

    def __init__(self, mismatch: bool) -> None:
        self.mismatch = mismatch
        self.rejected: list[str] = []

    def freeze(self, _hit_id: int, _where: str) -> Any:
        return SimpleNamespace(state="none")

    def unfreeze(self, _hit_id: int, _where: str) -> Any:
        return SimpleNamespace(state="none")

    def evaluate(self, _hit_id: int, _cards: Any) -> Any:
        problems = ["claimed FOUR_OF_A_KIND, cards make FULL_HOUSE"] if self.mismatch else []
        return SimpleNamespace(best_hand="FULL_HOUSE", pay_hand="FULL_HOUSE", amount_cents=600,
                               required_role="supervisor", source="tray", fraction=None,
                               meter_cents=None, frozen=False, problems=problems,
                               mismatch=self.mismatch, payable=True, reject_role="supervisor",
                               verifier_needed=False)

    def reject(self, _hit_id: int, reason: str, _swipe: Any) -> object:
        self.rejected.append(reason)
        return object()


def _dialog(qtbot: Any, flagged: bool) -> VerifyDialog:
    hit = HitView(50, "H50", "Pai Gow 1", 3, 7, "FOUR_OF_A_KIND" if flagged else "FULL_HOUSE",
                  100, ("claimed FOUR_OF_A_KIND, cards make FULL_HOUSE",) if flagged else (),
                  datetime.now(UTC), codes=(FlagCode.CLAIM_MISMATCH,) if flagged else ())
    dlg = VerifyDialog(hit, list(CARDS), Service(flagged),
                       lambda _role, _what, _kind, do: do("a swipe") is not None)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.activateWindow()
    qtbot.waitUntil(lambda: dlg.freeze_state is not None and not dlg.evaluating
                    and dlg.correct.isVisible() == flagged, timeout=5000)
    return dlg


def _tabs_to_reject(qtbot: Any, dlg: VerifyDialog) -> int:
    start = QApplication.focusWidget()
    assert start is not None
    for n in range(1, 40):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        if QApplication.focusWidget() is dlg.reject_btn:
            return n
    raise AssertionError("Tab never reached Reject")


def test_reject_is_as_many_tabs_away_on_a_flagged_hit_as_on_an_unflagged_one(qtbot) -> None:  # type: ignore[no-untyped-def]
    plain = _dialog(qtbot, flagged=False)
    plain_tabs = _tabs_to_reject(qtbot, plain)
    plain.reject()
    flagged = _dialog(qtbot, flagged=True)
    assert flagged.correct.isVisible()  # the flagged hit offers "Correct the claim"
    assert _tabs_to_reject(qtbot, flagged) == plain_tabs
    flagged.reject()


def test_ctrl_r_opens_the_reject_dialog(qtbot) -> None:  # type: ignore[no-untyped-def]
    dlg = _dialog(qtbot, flagged=True)
    asked: list[str] = []

    def ask(reject: RejectDialog) -> bool:
        asked.append(reject.windowTitle())
        reject.details.setText("dealer pressed the wrong button")
        return True

    dlg.ask_reason = ask
    assert "Ctrl+R" in dlg.reject_btn.text()
    qtbot.keyClick(dlg, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert asked == ["Reject hit H50"]
    assert dlg.outcome == "rejected"
    assert dlg.service.rejected == ["Wrong hand button: dealer pressed the wrong button"]
