"""The floor against its paytables: :func:`validate` refuses what is wrong and returns warnings;
:func:`rates_above_ceiling` lists the contribution rates that need an executive's approval."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.floorconfig.floor import FloorConfig
from core.floorconfig.schema import FloorConfigError
from core.floorconfig.tables import GroupConfig, LevelConfig
from core.kernel.money import json_cents
from core.tablegames.rules.paytables import Paytable, link_problem

ALL_PAYS_MIN_CONTRIBUTION = Decimal("0.70")
#: The WSGC rules (source 000, "Reserve contribution"): "We recommend contributing a small
#: portion of each progressive wager to the reserve."  They give no figure; Podium reads "small"
#: as at most a tenth of each wager and warns above it, and at 0 (no reserve at all).
RESERVE_SMALL_MAX = Decimal("0.10")
RESERVE_WORDS = ('the WSGC rules recommend "contributing a small portion of each progressive '
                 'wager to the reserve"')
#: No public source states a shipped Fortune Pai Gow paytable's pre-configured contribution
#: rate or seed: the WSGC rules name them ("the pre-configured meter contribution rate", "the
#: pre-configured seed amount in the system") without giving them (resources/paytables/*.toml).
NO_PUBLIC_PRECONFIGURED = ("no public source states it: the WSGC rules name the "
                           "\"pre-configured\" rate and seed without giving them")


def _check_table_paytables(config: FloorConfig, g: GroupConfig, pt: Paytable,
                           paytables: Mapping[str, Paytable]) -> None:
    """Tables linked to one meter play the group's paytable, one of its equivalents (Face Up),
    or a paytable declared equivalent for linking (``links_with``, checked by
    ``core.tablegames.rules.paytables.link_problem``); anything else is refused, naming both
    tables."""
    members = config.tables_in(g.id)
    for t in members:
        name = t.paytable or g.paytable
        tp = paytables.get(name)
        if tp is None:
            raise FloorConfigError(f"{config.source}: table {t.id}: paytable {name!r} is not "
                                   "installed")
        problem = link_problem(pt, tp)
        if problem is None:
            continue
        other = next((m for m in members if (m.paytable or g.paytable) == g.paytable
                      and m.id != t.id), None)
        who = (f"tables {other.id} ({g.paytable}) and {t.id} ({name})" if other is not None
               else f"table {t.id} ({name}) and the group's paytable {g.paytable}")
        raise FloorConfigError(f"{config.source}: group {g.id}: {who} have different "
                               f"paytables ({problem}); only tables with the same paytable, "
                               "or paytables declared equivalent for linking, can be linked "
                               "to one meter")


def _preconfigured(where: str, pt: Paytable, lv: LevelConfig) -> tuple[Decimal, int]:
    """A level's pre-configured contribution rate and seed (RULES.md 4): the paytable's where
    its file states them, else the floor file's; refused when neither states one, or when the
    floor file contradicts the paytable."""
    pairs = (("contribution rate", "preconfigured_rate",
              pt.preconfigured_contribution_rate, lv.preconfigured_contribution_rate),
             ("seed", "preconfigured_seed", pt.preconfigured_seed(lv.name),
              lv.preconfigured_seed_cents))
    out: list[Any] = []
    for what, key, from_pt, from_floor in pairs:
        if from_pt is not None and from_floor is not None and from_pt != from_floor:
            def shown(v: Decimal | int, seed: bool = what == "seed") -> str:
                return json_cents(int(v)) if seed else str(v)

            raise FloorConfigError(
                f"{where}: level {lv.name}: {key} {shown(from_floor)} contradicts {pt.id}'s "
                f"pre-configured {what} {shown(from_pt)}; leave it out of the floor file")
        value = from_pt if from_pt is not None else from_floor
        if value is None:
            raise FloorConfigError(
                f"{where}: level {lv.name}: no pre-configured {what}: {pt.id} does not state "
                f"one ({NO_PUBLIC_PRECONFIGURED}), so the floor file must, from the "
                f"manufacturer's paytable sheet ({key} under [groups.levels.{lv.name}]); the "
                "floor does not start without it (RULES.md 4)")
        out.append(value)
    return out[0], out[1]


@dataclass(frozen=True)
class AboveCeiling:
    """A level's contribution rate above its paytable's pre-configured rate (RULES.md 4): it
    lowers the house advantage, so it needs an executive's recorded approval."""

    source: str
    group: str
    level: str
    rate: Decimal
    paytable: str
    ceiling: Decimal

    @property
    def rate_ppm(self) -> int:
        return int(self.rate * 1_000_000)

    def text(self) -> str:
        return (f"{self.source}: group {self.group}: level {self.level}: contribution rate "
                f"{self.rate} is above {self.paytable}'s preconfigured {self.ceiling} (it "
                "lowers the house advantage)")

    def command(self) -> str:
        return (f"podium employees approve-contribution --group {self.group} --level "
                f"{self.level} --rate {self.rate} --reason WHY")


def _above_ceiling(config: FloorConfig, g: GroupConfig, pt: Paytable,
                   preconfigured: Mapping[str, tuple[Decimal, int]]) -> list[AboveCeiling]:
    if g.all_pays_from_meter:
        return []
    return [AboveCeiling(config.source, g.id, lv.name, lv.contribution_rate, pt.id,
                         preconfigured[lv.name][0])
            for lv in g.levels if lv.contribution_rate > preconfigured[lv.name][0]]


def rates_above_ceiling(config: FloorConfig,
                        paytables: Mapping[str, Paytable]) -> list[AboveCeiling]:
    """Every level whose contribution rate is above its pre-configured rate (on a floor that
    :func:`validate` accepted)."""
    out: list[AboveCeiling] = []
    for g in config.groups:
        pt = paytables[g.paytable]
        where = f"{config.source}: group {g.id}"
        preconfigured = {lv.name: _preconfigured(where, pt, lv) for lv in g.levels}
        out += _above_ceiling(config, g, pt, preconfigured)
    return out


def validate(config: FloorConfig, paytables: Mapping[str, Paytable]) -> list[str]:
    """Check every group against its paytable; refuse what is wrong, return warnings.

    Refused (FloorConfigError): an unknown or non-progressive paytable; a group whose levels are
    not exactly the paytable's.  Warned: a contribution rate above the paytable's preconfigured
    rate (percentage-pays-only groups: the floor starts with it only while the ledger holds an
    executive's approval of exactly that rate, :func:`rates_above_ceiling`,
    core/tablegames/setup.py); a contribution rate below 70% on an "all pays from meter" group;
    a zero seed (allowed by override); a seed below the largest fixed award; a group with no
    tables; a reserve rate of 0 or above :data:`RESERVE_SMALL_MAX` (source 000 recommends "a
    small portion").
    """
    src = config.source
    warnings: list[str] = []
    for g in config.groups:
        where = f"{src}: group {g.id}"
        pt = paytables.get(g.paytable)
        if pt is None:
            raise FloorConfigError(f"{where}: paytable {g.paytable!r} is not installed "
                                   f"(known: {', '.join(sorted(paytables)) or 'none'})")
        if pt.kind != "progressive":
            raise FloorConfigError(f"{where}: paytable {g.paytable} is a {pt.kind} paytable, "
                                   "not a progressive one")
        if set(g.level_names) != set(pt.levels):
            missing = [lv for lv in pt.levels if lv not in g.level_names]
            extra = [lv for lv in g.level_names if lv not in pt.levels]
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            if extra:
                parts.append("not in the paytable: " + ", ".join(extra))
            raise FloorConfigError(f"{where}: levels must be exactly {g.paytable}'s "
                                   f"({', '.join(pt.levels)}); {'; '.join(parts)}")
        if not config.tables_in(g.id):
            warnings.append(f"{where}: no table is linked to this group")
        _check_table_paytables(config, g, pt, paytables)
        total = sum((lv.contribution_rate for lv in g.levels), Decimal(0))
        if g.all_pays_from_meter and total < ALL_PAYS_MIN_CONTRIBUTION:
            warnings.append(f"{where}: contribution rate {total} is below "
                            f"{ALL_PAYS_MIN_CONTRIBUTION} with all pays from the meter; the "
                            "meter risks running dry")
        preconfigured = {lv.name: _preconfigured(where, pt, lv) for lv in g.levels}
        warnings += [f"{above.text()}; the floor starts only with an executive's recorded "
                     f"approval of it ({above.command()})"
                     for above in _above_ceiling(config, g, pt, preconfigured)]
        for hand in g.auto_pay_hands or ():
            pay = next((p for p in pt.pays if p.hand == hand), None)
            if pay is None or pay.source != "tray":
                raise FloorConfigError(
                    f"{where}: auto_pay_hands: {hand} is not a fixed pay of {pt.id} (fixed "
                    f"pays: {', '.join(p.hand for p in pt.pays if p.source == 'tray')}); a "
                    "meter pay always waits for a floor supervisor")
        _check_auto_pays(config, g, pt, where)
        largest = _largest_fixed_cents(pt)
        for lv in g.levels:
            warnings += _reserve_warnings(where, lv)
            pre_seed = preconfigured[lv.name][1]
            if lv.seed_cents != pre_seed:
                warnings.append(f"{where}: level {lv.name}: seed {json_cents(lv.seed_cents)} is "
                                f"not the pre-configured {json_cents(pre_seed)}")
            if lv.seed_cents == 0:
                warnings.append(f"{where}: level {lv.name}: seed 0.00 (allowed by "
                                "allow_zero_seed); a zero seed is not recommended")
            elif lv.seed_cents < largest:
                warnings.append(f"{where}: level {lv.name}: seed {json_cents(lv.seed_cents)} is "
                                f"below the largest fixed award {json_cents(largest)}")
    return warnings


def _reserve_warnings(where: str, lv: LevelConfig) -> list[str]:
    """A reserve rate of 0, or above :data:`RESERVE_SMALL_MAX` (source 000's recommendation)."""
    if lv.reserve_rate == 0:
        return [f"{where}: level {lv.name}: reserve rate 0: no reserve, so after a 100% award "
                f"the meter restarts at the bare seed; {RESERVE_WORDS}"]
    if lv.reserve_rate > RESERVE_SMALL_MAX:
        return [f"{where}: level {lv.name}: reserve rate {lv.reserve_rate} is more than "
                f"{RESERVE_SMALL_MAX} of each wager, not a small portion; {RESERVE_WORDS} "
                "(the meter players see grows by the contribution rate alone)"]
    return []


def _check_auto_pays(config: FloorConfig, g: GroupConfig, pt: Paytable, where: str) -> None:
    """Refuse an automatic pay at or above the executive threshold: a pay there needs an
    executive's card whatever the paytable says, and a pay at HIT JACKPOT asks for no card.
    The hands listed in ``auto_pay_hands``, or the paytable's own (no secondary verification)
    when the group lists none."""
    threshold = config.authorization.executive_threshold_cents
    wager = pt.wager_cents or 0
    for pay in pt.pays:
        if pay.source != "tray" or not g.auto_paid(pay):
            continue
        amount = pt.fixed_cents(pay, wager)
        if amount < threshold:
            continue
        listed = ("auto_pay_hands lists" if g.auto_pay_hands is not None else
                  "auto_pay_hands (the paytable's default) holds")
        raise FloorConfigError(
            f"{where}: {listed} {pay.hand}, a fixed pay of {json_cents(amount)} on {pt.id}, at "
            f"or above the executive threshold {json_cents(threshold)}: a pay there needs an "
            f"executive's card, so it can not be paid automatically (leave {pay.hand} out of "
            "auto_pay_hands)")


def _largest_fixed_cents(pt: Paytable) -> int:
    wager = pt.wager_cents or 0
    amounts = [pt.fixed_cents(p, wager) for p in pt.pays if p.source == "tray"]
    return max(amounts, default=0)
