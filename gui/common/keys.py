"""A dialog's deliberate "do it": Ctrl+Return or Ctrl+Enter (the verify dialog's PAY, the meter
adjustment's confirm).  Enter alone belongs to the fields and to the card reader.

One way for every dialog, :func:`on_ctrl_enter`: the key is bound as a window shortcut, and
also taken when it reaches the dialog as a plain key press, since a shortcut fires only while
its window is the active one and the key can reach a dialog the window system has not
activated yet.  Either way the dialog's action runs once per press."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

CTRL_ENTER = ("Ctrl+Return", "Ctrl+Enter")


def is_ctrl_enter(event: QKeyEvent) -> bool:
    """Ctrl+Return or Ctrl+Enter (the keypad's Enter too)."""
    return (event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier))


class _CtrlEnter(QObject):
    """The key press's half: Ctrl+Enter that reaches the dialog (from the focused field or to
    the dialog itself) runs the action instead of going on."""

    def __init__(self, dialog: QWidget, action: Callable[[], object]) -> None:
        super().__init__(dialog)
        self._action = action

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if (event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and is_ctrl_enter(event)):
            self._action()
            return True
        return False


def on_ctrl_enter(dialog: QWidget, action: Callable[[], object]) -> None:
    """Run ``action`` when Ctrl+Return or Ctrl+Enter is pressed in ``dialog`` (the action
    checks itself whether it may run now, e.g. that its button is enabled)."""
    for keys in CTRL_ENTER:
        QShortcut(QKeySequence(keys), dialog).activated.connect(action)
    dialog.installEventFilter(_CtrlEnter(dialog, action))
