"""Guard against a broken Qt binding.

PySide6-Essentials 6.12.0 releases a reference to ``None`` on every call of a method that
returns nothing (``setChecked``, ``show``, ``setText`` ...).  On Python 3.11, where ``None`` is
not immortal, a console that runs for hours then crashes ("none_dealloc").  pyproject.toml
excludes that release; this test fails if such a binding is installed again."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QCheckBox, QLabel


def test_void_qt_calls_keep_the_reference_count_of_none(qtbot):  # type: ignore[no-untyped-def]
    box = QCheckBox()
    label = QLabel()
    qtbot.addWidget(box)
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for i in range(2000):
        box.setChecked(i % 2 == 0)
        label.setText(str(i))
    assert sys.getrefcount(None) - before > -100
