"""``[authorization]``: who may authorize what (docs/operator.md "People controls"), and
``[surveillance]``: when surveillance's hit timeline flags a hit."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from core.floorconfig.schema import _Section, resolve_path, section, setting, the

PIN_POLICIES = ("executive", "every_swipe", "none")


@section("authorization")
class Authorization:
    """Who may authorize what (docs/operator.md "People controls").  Every default is the safe
    one; a floor file may change each."""

    executive_threshold_cents: int = setting(
        kind="money",
        doc="a pay at or above it needs an Executive card whatever the paytable says",
        key="executive_threshold", positive=True)
    card_key: str = setting(
        kind="path",
        doc=("the card key file (core/people/cardkey.py); \"\": $PODIUM_CARD_KEY, else the "
             "configuration folder"),
        default="", empty_ok=True, strip=True)
    pin: str = setting(
        kind="choice",
        doc="a PIN after the swipe: for executive authority, after every swipe, or never",
        default="executive", choices=PIN_POLICIES)
    lockout_failures: int = setting(
        kind="integer",
        doc=("a card is locked after this many refused swipes within lockout_minutes (until an "
             "executive lifts it)"),
        default=5, lo=1, hi=1000, unit="swipes")
    lockout_minutes: int = setting(
        kind="integer",
        doc="the window of lockout_failures",
        default=10, lo=1, hi=7 * 24 * 60, unit="minutes")
    separate_verifier_cents: int = setting(
        kind="money",
        doc="a pay at or above this is verified by one person and authorized by another",
        default=1_000_000, key="separate_verifier_at", positive=True)
    adjustment_second_executive_cents: int = setting(
        kind="money",
        doc=("an adjustment of this size or more (either way) needs a second executive, not a "
             "supervisor"),
        default=1_000_000, key="adjustment_second_executive_at", positive=True)

    def pin_needed(self, needed: str | None) -> bool:
        """Whether a swipe exercising ``needed`` authority must be followed by the PIN."""
        if self.pin == "every_swipe":
            return True
        return self.pin == "executive" and needed == "executive"


def parse_authorization(sec: _Section, base: Path | None) -> Authorization:
    got = sec.read_all(Authorization)
    sec.done()
    if got["card_key"]:
        got["card_key"] = resolve_path(sec, the(Authorization, "card_key").key,
                                       got["card_key"], base)
    return Authorization(**got)


@section("surveillance")
class SurveillanceConfig:
    """When surveillance's hit timeline flags a hit (``[surveillance]``, docs/operator.md
    "Surveillance"; core/desks/surveillance/flags.py).  Every key optional; the defaults are
    here."""

    near_threshold_margin: Decimal = setting(
        kind="rate",
        doc=("a pay in [threshold x (1 - margin), threshold) is \"just below the executive "
             "threshold\""),
        default=Decimal("0.05"), share="a share of the executive threshold, e.g. " "\"0.05\"")
    same_person_from_cents: int = setting(
        kind="money",
        doc=("a pay of at least this, verified and authorized by one person, is flagged (0.00: "
             "every one)"),
        default=0, key="same_person_from")
    adjustment_window_minutes: int = setting(
        kind="integer",
        doc=("a manual adjustment of the hit's level within this many minutes either side of the "
             "hit"),
        default=60, lo=1, hi=7 * 24 * 60, unit="minutes")
    hit_rate_tail: Decimal = setting(
        kind="rate",
        doc="a table's hits of the hit's hand whose binomial upper tail is below this are flagged",
        default=Decimal("0.001"), share="a probability, e.g. \"0.001\"")
    hit_rate_days: int = setting(
        kind="integer",
        doc="... counted over the wagers and hits of the table in this many days up to the hit",
        default=30, lo=1, hi=366, unit="days")
    print_delay_seconds: int = setting(
        kind="integer",
        doc=("the first confirmed print of the slip later than this after the pay (or none by "
             "then)"),
        default=120, lo=1, hi=24 * 3600, unit="seconds")
    refused_frames_minutes: int = setting(
        kind="integer",
        doc="frames of the table refused within this many minutes of the hit's round are shown",
        default=5, lo=0, hi=24 * 60, unit="minutes")


def parse_surveillance(sec: _Section) -> SurveillanceConfig:
    got = sec.read_all(SurveillanceConfig)
    sec.done()
    return SurveillanceConfig(**got)
