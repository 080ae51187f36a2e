"""The verify dialog says BEFORE the swipe what the Activity says after a decision on a table
that nothing links now: "Table ... has NO SERVICE (or is OFFLINE): the pay or rejection is
recorded and will be sent to the table when it is back"; nothing on a linked table; and the note
follows the table while the dialog is open.  A stand-in service answers the freeze and the
evaluation (no ledger); the console's own path, on a shared ledger, is
tests/gui/console/test_gui_hit_endings.py."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from core.kernel.cards import parse_cards
from gui.tablegames.model import HitView, TableView, decision_waits, waiting_note
from gui.tablegames.verify import VerifyDialog

CARDS = parse_cards(["Kh", "Kd", "Kc", "4h", "4d", "2c", "9h"])  # a full house
NOTE = ("▲ Table Pai Gow 1 {}: the pay or rejection is recorded and will be sent to the table "
        "when it is back")


class Service:
    def freeze(self, _hit_id: int, _where: str) -> Any:
        return SimpleNamespace(state="none")

    def unfreeze(self, _hit_id: int, _where: str) -> Any:
        return SimpleNamespace(state="none")

    def evaluate(self, _hit_id: int, _cards: Any) -> Any:
        return SimpleNamespace(best_hand="FULL_HOUSE", pay_hand="FULL_HOUSE", amount_cents=600,
                               required_role="supervisor", source="tray", fraction=None,
                               meter_cents=None, frozen=False, problems=[], mismatch=False,
                               payable=True, reject_role="supervisor", verifier_needed=False)


def _dialog(qtbot: Any, state: list[str], swipes: list[str]) -> VerifyDialog:
    hit = HitView(50, "H50", "Pai Gow 1", 3, 7, "FULL_HOUSE", 100, (), datetime.now(UTC))

    def authorize(*_args: Any) -> bool:
        swipes.append("asked")
        return False

    dlg = VerifyDialog(hit, list(CARDS), Service(), authorize, waits=lambda: state[0])
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    qtbot.waitUntil(lambda: dlg.pay_btn.isEnabled(), timeout=5000)
    return dlg


def test_a_table_with_no_service_is_said_before_the_swipe(qtbot) -> None:  # type: ignore[no-untyped-def]
    swipes: list[str] = []
    dlg = _dialog(qtbot, ["has NO SERVICE"], swipes)
    assert dlg.table_note.isVisible()
    assert dlg.table_note.text() == NOTE.format("has NO SERVICE")
    assert swipes == []  # said before any card is asked for
    dlg.reject()


def test_a_linked_table_has_no_note_and_the_note_follows_the_table(qtbot) -> None:  # type: ignore[no-untyped-def]
    state = [""]
    dlg = _dialog(qtbot, state, [])
    assert dlg.table_note.isHidden()
    state[0] = "is OFFLINE"  # its link went down while the dialog is open
    qtbot.waitUntil(lambda: dlg.table_note.isVisible(), timeout=5000)
    assert dlg.table_note.text() == NOTE.format("is OFFLINE")
    state[0] = ""  # back
    qtbot.waitUntil(lambda: dlg.table_note.isHidden(), timeout=5000)
    dlg.reject()


def test_what_a_decision_waits_for_is_read_from_the_table_s_view() -> None:
    base = TableView("PG-4", "Pai Gow 4", "WA01", "FPGPP-WA01", True, 3, "locked", 1)
    assert decision_waits(base) == ""
    assert decision_waits(TableView(**{**base.__dict__, "online": False})) == "is OFFLINE"
    dead = TableView(**{**base.__dict__, "service": "pit-b", "service_up": False,
                        "service_detail": "NO SERVICE: pit-b is down"})
    assert decision_waits(dead) == "has NO SERVICE"  # whatever the ledger's online flag says
    assert waiting_note("", "Pai Gow 4", "pay") == ""
    assert waiting_note("has NO SERVICE", "Pai Gow 4", "pay") == (
        "Table Pai Gow 4 has NO SERVICE: the pay is recorded and will be sent to the table "
        "when it is back")
