"""The window's geometry, remembered per screen.

A podium's monitor may be 1366x768 one week and 1920x1080 the next, and a console may be moved
between screens: the geometry is saved under the screen's name and size (QSettings), restored
when the same screen comes back, and when nothing was saved for it, or what was saved does not
fit its available area, the window fills the screen's available area (maximized)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtWidgets import QWidget

ORGANIZATION = "Podium"
APPLICATION = "console"


class ScreenLike(Protocol):
    def name(self) -> str: ...
    def size(self) -> object: ...
    def availableGeometry(self) -> QRect: ...  # noqa: N802  (Qt's name)


def settings() -> QSettings:
    """Where the console keeps its window geometry (an INI file in the user's config folder)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION,
                     APPLICATION)


def screen_key(screen: ScreenLike, prefix: str = "window") -> str:
    """The settings key of ``screen``: its name and size (a screen that changes resolution is
    another screen to the window)."""
    size = screen.size()
    w, h = size.width(), size.height()  # type: ignore[attr-defined]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in screen.name()) or "screen"
    return f"{prefix}/{name}-{w}x{h}/geometry"


def save(window: QWidget, screen: ScreenLike, store: QSettings | None = None,
         prefix: str = "window") -> None:
    """Remember ``window``'s geometry for ``screen`` (its normal geometry and whether it is
    maximized)."""
    store = store if store is not None else settings()
    key = screen_key(screen, prefix)
    maximized = window.isMaximized()
    rect = window.normalGeometry() if maximized else window.geometry()
    store.setValue(key, f"{rect.x()},{rect.y()},{rect.width()},{rect.height()}")
    store.setValue(key.replace("/geometry", "/maximized"), "1" if maximized else "0")
    store.sync()


def saved_rect(screen: ScreenLike, store: QSettings | None = None,
               prefix: str = "window") -> tuple[QRect, bool] | None:
    """What was saved for ``screen``: (the normal geometry, maximized), or None."""
    store = store if store is not None else settings()
    key = screen_key(screen, prefix)
    text = str(store.value(key) or "")
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        return None
    maximized = str(store.value(key.replace("/geometry", "/maximized")) or "0") == "1"
    return QRect(x, y, w, h), maximized


def restore(window: QWidget, screen: ScreenLike, store: QSettings | None = None,
            prefix: str = "window") -> bool:
    """Give ``window`` the geometry saved for ``screen`` when there is one and it fits the
    screen's available area (True); otherwise the window fills that area, maximized (False).

    (The geometry is kept as a rectangle, not QWidget.saveGeometry's bytes: restoreGeometry
    moves a geometry to fit the screen the window is on at the time, and here the window itself
    decides what fits the screen the geometry was saved for.)"""
    area = screen.availableGeometry()
    found = saved_rect(screen, store, prefix)
    if found is not None:
        rect, maximized = found
        if (area.contains(rect) and rect.width() >= window.minimumSizeHint().width()
                and rect.height() >= window.minimumSizeHint().height()):
            window.setGeometry(rect)
            if maximized:
                window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
            return True
    window.setGeometry(area)
    window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    return False
