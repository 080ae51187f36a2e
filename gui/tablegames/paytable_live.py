"""The paytable screen's live panel of one progressive group of the floor: its meters, the
return and house edge at them, its settings, and the warnings RULES.md section 4 asks for (the
floor configuration's own, ``core.floorconfig.validate``).  The screen reads the meters off the
GUI thread and hands them to :meth:`LivePanel.show_meters`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QVBoxLayout, QWidget

from core.floorconfig import FloorConfigError, GroupConfig, validate
from core.kernel.money import Currency
from core.tablegames.rules.edge import percent_text, progressive_edge
from core.tablegames.rules.enumerate import HandCounts
from core.tablegames.rules.paytables import Paytable
from gui.common import theme
from gui.tablegames.paytable_figures import Figure, label
from gui.tablegames.paytable_text import LiveMeters, group_settings, rate_text

PRECONFIGURED_NOTE = ("Contribution ceiling (RULES.md 4): this paytable file states no "
                      "preconfigured contribution rate (preconfigured_contribution_rate), so a "
                      "higher rate can not be checked; the configured rate is shown as it is.")


def group_warnings(config: Any, paytables: Any, group: GroupConfig) -> list[str]:
    """RULES.md 4 warnings of one group: those the floor configuration gives
    (``core.floorconfig.validate``), for this group alone."""
    try:
        found = validate(replace(config, groups=(group,)), paytables)
    except FloorConfigError as exc:  # the console would not have started; show it
        return [str(exc)]
    prefix = f"{config.source}: group {group.id}: "
    return [w[len(prefix):] if w.startswith(prefix) else w for w in found]


class LivePanel(QGroupBox):
    """A progressive group of the floor: its meters, the return at them, its settings and the
    warnings RULES.md section 4 asks for."""

    def __init__(self, group: GroupConfig, parent: QWidget | None = None) -> None:
        super().__init__(f"LIVE  ·  {group.name} ({group.id})", parent)
        self.group = group
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.meters = Figure("Meter", theme.ACCENT)
        self.ret = Figure("Return at the meter")
        self.edge = Figure("House edge at the meter")
        for f in (self.meters, self.ret, self.edge):
            row.addWidget(f)
        lay.addLayout(row)
        self.settings = label("", wrap=True)
        self.settings.setStyleSheet("font-size: 13pt;")
        lay.addWidget(self.settings)
        self.warnings = label("", "warn", wrap=True)
        self.warnings.setStyleSheet(f"color: {theme.WARN}; font-size: 14pt; font-weight: bold;")
        lay.addWidget(self.warnings)
        self.note = label(PRECONFIGURED_NOTE, "muted", wrap=True)
        lay.addWidget(self.note)

    def warning_lines(self) -> list[str]:
        text = self.warnings.text()
        return [line[2:] for line in text.splitlines() if line.startswith("▲ ")]

    def show_meters(self, table: Paytable, counts: HandCounts, live: LiveMeters,
                    money: Currency, warnings: list[str]) -> None:
        """The group's figures at the meters ``live`` (as last read), on ``table``."""
        g = self.group
        got = live.get(g.id, {})
        meters = {name: got.get(name, 0) for name in g.level_names}
        e = progressive_edge(
            table, counts, meters=[meters],
            contribution_rates={lv.name: lv.contribution_rate for lv in g.levels},
            reserve_rates={lv.name: lv.reserve_rate for lv in g.levels})
        point = e.points[0]
        if len(meters) == 1:
            self.meters.set(money.text(next(iter(meters.values()))), f"Meter {g.level_names[0]}")
        else:
            self.meters.set("\n".join(f"{lv} {money.text(c)}" for lv, c in meters.items()),
                            "Meters")
        self.ret.set(percent_text(point.ret))
        self.edge.set(percent_text(point.house_edge))
        self.settings.setText(group_settings(g, e.growth, money))
        self.warnings.setText("\n".join(f"▲ {w}" for w in warnings))
        self.warnings.setVisible(bool(warnings))
        ceiling = table.preconfigured_contribution_rate
        if ceiling is None:
            self.note.setText(PRECONFIGURED_NOTE)
        else:
            self.note.setText(f"Contribution ceiling (RULES.md 4): {table.id} is "
                              f"preconfigured at {rate_text(ceiling)}; a higher rate needs an "
                              "executive's recorded approval (podium employees "
                              "approve-contribution).")
        self.note.setVisible(not g.all_pays_from_meter)
