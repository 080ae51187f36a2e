"""One floor builder for the tests: the floor file (docs/floor.md) a test needs, written from a
few words instead of TOML copied into each test file.

    floor_toml("Crash Casino", tables=[table("T1", port=p1)], link=pki().link_config())

gives the casino, the one-swipe authorization of the ledger tests (no PIN, no separate verifier,
no second executive for an adjustment: the people controls are tested in
tests/core/people/test_people.py), a LINK group on FPGPP-WA01 with a $10,000 MAIN meter at 20%
(reserve 2%), and the tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NO_LIMIT = "1000000000.00"  # an amount no test reaches: that control stays off


@dataclass(frozen=True)
class Level:
    seed: str = "10000.00"
    contribution_rate: str = "0.20"
    reserve_rate: str = "0.02"
    preconfigured_seed: str = "10000.00"
    preconfigured_rate: str = "0.20"


@dataclass(frozen=True)
class Group:
    id: str = "LINK"
    paytable: str = "FPGPP-WA01"
    levels: Mapping[str, Level] = field(default_factory=lambda: {"MAIN": Level()})
    lock_at_hit: bool = False
    all_pays_from_meter: bool = False


@dataclass(frozen=True)
class Table:
    id: str
    port: int
    group: str = "LINK"
    host: str = "127.0.0.1"
    name: str | None = None
    pit: str | None = None
    paytable: str | None = None


def table(id: str, port: int, group: str = "LINK", **more: Any) -> Table:  # noqa: A002
    return Table(id, port, group, **more)


def _q(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def floor_toml(name: str = "Test Casino", *, tables: Iterable[Table] = (),
               groups: Iterable[Group] = (Group(),), timezone: str = "Asia/Manila",
               currency_symbol: str | None = None, currency: str | None = None,
               locale: str | None = None, executive_threshold: str = "5000.00",
               pin: str | None = "none", separate_verifier_at: str | None = NO_LIMIT,
               adjustment_second_executive_at: str | None = NO_LIMIT,
               link: Any = None, extra: str = "") -> str:
    """The floor file's text.  ``link``: None (the defaults), ``"plain-lab-only"`` (a test
    that speaks the frames itself), or a ``ControllerLinkConfig`` (its CA, cert and key files).
    ``extra``: more TOML, appended as it is."""
    out = ["[casino]", f"name = {_q(name)}", f"timezone = {_q(timezone)}"]
    if currency_symbol is not None:
        out.append(f"currency_symbol = {_q(currency_symbol)}")
    if currency is not None:
        out.append(f"currency = {_q(currency)}")
    if locale is not None:
        out.append(f"locale = {_q(locale)}")
    out += ["[authorization]", f"executive_threshold = {_q(executive_threshold)}"]
    if pin is not None:
        out.append(f"pin = {_q(pin)}")
    if separate_verifier_at is not None:
        out.append(f"separate_verifier_at = {_q(separate_verifier_at)}")
    if adjustment_second_executive_at is not None:
        out.append(f"adjustment_second_executive_at = {_q(adjustment_second_executive_at)}")
    if link == "plain-lab-only":
        out += ["[controller_link]", 'transport = "plain-lab-only"']
    elif link is not None:
        out += ["[controller_link]", f"ca = {_q(str(link.ca))}", f"cert = {_q(str(link.cert))}",
                f"key = {_q(str(link.key))}"]
    for g in groups:
        out += ["[[groups]]", f"id = {_q(g.id)}", f"paytable = {_q(g.paytable)}"]
        if g.lock_at_hit:
            out.append("lock_at_hit = true")
        if g.all_pays_from_meter:
            out.append("all_pays_from_meter = true")
        for level, lv in g.levels.items():
            out += [f"[groups.levels.{level}]", f"seed = {_q(lv.seed)}",
                    f"preconfigured_seed = {_q(lv.preconfigured_seed)}",
                    f"contribution_rate = {_q(lv.contribution_rate)}",
                    f"preconfigured_rate = {_q(lv.preconfigured_rate)}",
                    f"reserve_rate = {_q(lv.reserve_rate)}"]
    for t in tables:
        out += ["[[tables]]", f"id = {_q(t.id)}"]
        if t.name is not None:
            out.append(f"name = {_q(t.name)}")
        out.append(f"group = {_q(t.group)}")
        if t.pit is not None:
            out.append(f"pit = {_q(t.pit)}")
        out += [f"host = {_q(t.host)}", f"port = {t.port}"]
        if t.paytable is not None:
            out.append(f"paytable = {_q(t.paytable)}")
    return "\n".join(out) + "\n" + extra
