"""gui/common/keys.py: a dialog's Ctrl+Enter (the verify dialog's PAY, the meter adjustment's
confirm) runs its action once per press, whether the dialog is the active window (its shortcut)
or not yet (the key press reaching it from the focused field); Enter alone does not."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QVBoxLayout, QWidget

from gui.common.keys import on_ctrl_enter


def _dialog(qtbot: Any) -> tuple[QDialog, QLineEdit, list[str]]:
    ran: list[str] = []
    dlg = QDialog()
    qtbot.addWidget(dlg)
    field = QLineEdit()
    QVBoxLayout(dlg).addWidget(field)
    on_ctrl_enter(dlg, lambda: ran.append("done"))
    dlg.show()
    qtbot.waitExposed(dlg)
    return dlg, field, ran


def test_ctrl_enter_in_the_active_dialog_runs_the_action_once(qtbot) -> None:  # type: ignore[no-untyped-def]
    dlg, field, ran = _dialog(qtbot)
    dlg.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dlg, timeout=5000)
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        qtbot.keyClick(field, key, Qt.KeyboardModifier.ControlModifier)
    assert ran == ["done", "done"]
    qtbot.keyClick(field, Qt.Key.Key_Return)  # Enter alone belongs to the field
    assert ran == ["done", "done"]


def test_ctrl_enter_reaching_a_dialog_not_yet_active_runs_the_action_once(qtbot) -> None:  # type: ignore[no-untyped-def]
    dlg, field, ran = _dialog(qtbot)
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    qtbot.waitExposed(other)
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other, timeout=5000)
    # the shortcut can not fire (its window is not the active one): the key press does
    qtbot.keyClick(field, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert ran == ["done"]
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert ran == ["done"]
    assert QApplication.activeWindow() is other
