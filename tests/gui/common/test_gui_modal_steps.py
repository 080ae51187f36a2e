"""tests/gui/modal.py: a step that fails inside a modal dialog's event loop closes the dialog
and fails the test, instead of hanging it (a CI run once hung with the verify dialog open)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QDialog

from tests.gui.modal import ModalSteps


def test_a_failing_step_closes_every_dialog_and_is_raised_when_exec_returns(qtbot) -> None:  # type: ignore[no-untyped-def]
    outer, inner = QDialog(), QDialog()
    qtbot.addWidget(outer)
    qtbot.addWidget(inner)
    steps = ModalSteps()
    ran: list[str] = []

    def in_outer() -> None:
        ran.append("outer")
        steps.later(10, in_inner)
        inner.exec()  # a second modal loop inside the first

    def in_inner() -> None:
        ran.append("inner")
        assert QApplication.activeModalWidget() is None, "fails on purpose"

    with pytest.raises(AssertionError, match="fails on purpose"), steps.running(timeout=60):
        steps.later(10, in_outer)
        outer.exec()
    assert ran == ["outer", "inner"]
    assert QApplication.activeModalWidget() is None
    assert not outer.isVisible() and not inner.isVisible()


def test_a_wait_that_times_out_in_a_step_fails_the_test(qtbot) -> None:  # type: ignore[no-untyped-def]
    dlg = QDialog()
    qtbot.addWidget(dlg)
    steps = ModalSteps()
    steps.when(lambda: False, dlg.accept, timeout=0.2, what="a condition that never holds")
    with pytest.raises(AssertionError, match="a condition that never holds"), steps.running():
        dlg.exec()
    assert not dlg.isVisible()


def test_a_dialog_nobody_closes_is_closed_by_the_watchdog(qtbot) -> None:  # type: ignore[no-untyped-def]
    dlg = QDialog()
    qtbot.addWidget(dlg)
    steps = ModalSteps()
    with pytest.raises(TimeoutError, match="still open"), steps.running(timeout=0.2):
        dlg.exec()  # no step closes it
    assert not dlg.isVisible()


def test_steps_that_pass_leave_nothing_to_raise(qtbot) -> None:  # type: ignore[no-untyped-def]
    dlg = QDialog()
    qtbot.addWidget(dlg)
    steps = ModalSteps()
    with steps.running():
        steps.later(10, dlg.accept)
        assert dlg.exec() == QDialog.DialogCode.Accepted
    assert steps.failures == []
