"""A 4K screen used well: when the platform reports a very large screen at a device pixel
ratio of 1 (X11 at 96 dpi on a 3840x2160 monitor, say), the console would open as a tiny
window of tiny text.  ``pick_scale`` says by how much to scale everything (Qt's
QT_SCALE_FACTOR: fonts, tiles, spacing alike) so the screen shows what a 1920x1080 one shows,
only sharper; ``apply_once`` sets it and starts the process again (Qt reads it only at start).

Nothing is scaled when the user or the platform already scales (QT_SCALE_FACTOR,
QT_SCREEN_SCALE_FACTORS, a device pixel ratio above 1), nor when PODIUM_SCALE=1; PODIUM_SCALE
gives the factor by hand."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping

REFERENCE = (1920, 1080)  # what the console's layouts are drawn for
SCALE_STEP = 0.25
STARTED_KEY = "PODIUM_SCALED"


def pick_scale(width: int, height: int, device_pixel_ratio: float,
               env: Mapping[str, str]) -> float | None:
    """The scale factor for a screen of ``width`` x ``height`` logical pixels (None: none)."""
    if env.get(STARTED_KEY) or env.get("QT_SCALE_FACTOR") or env.get("QT_SCREEN_SCALE_FACTORS"):
        return None
    by_hand = env.get("PODIUM_SCALE", "").strip()
    if by_hand:
        try:
            factor = float(by_hand)
        except ValueError:
            return None
        return factor if 0.5 <= factor <= 4 and factor != 1 else None
    if device_pixel_ratio > 1:
        return None
    fit = min(width / REFERENCE[0], height / REFERENCE[1])
    factor = math.floor(fit / SCALE_STEP) * SCALE_STEP
    return factor if factor >= 1.5 else None


def apply_once(app: object) -> None:
    """Scale the console for its primary screen: set QT_SCALE_FACTOR and start again (once)."""
    from PySide6.QtGui import QGuiApplication

    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return
    size = screen.size()
    factor = pick_scale(size.width(), size.height(), screen.devicePixelRatio(), os.environ)
    if factor is None:
        return
    os.environ["QT_SCALE_FACTOR"] = f"{factor:g}"
    os.environ[STARTED_KEY] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
