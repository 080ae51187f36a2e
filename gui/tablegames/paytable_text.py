"""What the paytable screen writes, apart from the widgets that show it: a paytable's hands as
rows of text (pays, exact counts, probability, 1 in, return), its envy rows, a progressive
group's settings in words, and the floor's meters as the screen reads them.

Every figure comes from ``core.tablegames.rules.edge`` (exact ``Fraction`` arithmetic over the
exact counts of ``core.tablegames.rules.enumerate.count_hands``) and is written with its
formatting (``percent_text``, ``fraction_text``): nothing here decides a pay."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from core.floorconfig import GroupConfig
from core.kernel.money import Currency, units_floor_cents
from core.tablegames.rules.edge import MAX_OTHERS, bonus_edge, fraction_text, percent_text
from core.tablegames.rules.enumerate import HandCounts
from core.tablegames.rules.fortune import HAND_IDS, NOTHING
from core.tablegames.rules.paytables import Pay, Paytable
from gui.common.cards import hand_label

HAND_COLUMNS = ("Hand", "Pays", "Hands", "Probability", "1 in", "Return")
ENVY_COLUMNS = ("Other players", "Return with envy", "House edge with envy")

LiveMeters = dict[str, dict[str, int]]  # group -> level -> meter cents (rounded down, as shown)
Rows = list[list[str]]


def meters_of(floor: Any) -> LiveMeters:
    """On a worker thread: every level's meter, group -> level -> cents (rounded down)."""
    out: LiveMeters = {}
    for lv in floor.snapshot().levels:
        out.setdefault(lv.group, {})[lv.level] = units_floor_cents(lv.meter_units)
    return out


def one_in(n: int, total: int) -> str:
    if n == 0:
        return "never"
    return f"{Fraction(total, n).__round__():,}"


def probability(n: int, total: int) -> str:
    return fraction_text(Fraction(n, total), 6)


def pay_text(table: Paytable, pay: Pay, money: Currency) -> str:
    if pay.odds is not None:
        envy = f" · envy {money.text(pay.envy_cents)}" if pay.envy_cents else ""
        return f"{pay.odds} to 1{envy}"
    if pay.fraction is not None:
        return f"{fraction_text(Fraction(pay.fraction) * 100, 8)}% of {pay.level}"
    return money.text(table.fixed_cents(pay))


def rate_text(rate: Any) -> str:
    return f"{fraction_text(Fraction(rate) * 100, 8)}%"


def money_text(value: Fraction) -> str:
    """An exact amount of money to the cent, rounded half up, without its sign."""
    cents = value * 100 + Fraction(1, 2)
    whole, frac = divmod(cents.numerator // cents.denominator, 100)
    return f"{whole:,}.{frac:02d}"


def bonus_rows(table: Paytable, counts: HandCounts, money: Currency) -> Rows:
    """A bonus paytable's hands by best hand, and the total."""
    e = bonus_edge(table, counts, others=MAX_OTHERS)
    total = counts.total
    rows: Rows = []
    for hand in (*HAND_IDS, NOTHING):
        n = e.best[hand]
        pay = table.pay_for(hand)
        if pay is not None:
            pays = pay_text(table, pay, money)
            returned = Fraction(n * ((pay.odds or 0) + 1), total)
        elif hand == "THREE_PAIR" and table.three_pair == "push":
            pays, returned = "push", Fraction(n, total)
        else:
            pays, returned = "loses", Fraction(0)
        rows.append([hand_label(hand), pays, f"{n:,}", probability(n, total),
                     one_in(n, total), percent_text(returned) if returned else "—"])
    rows.append(["Total", "", f"{total:,}", "1", "", percent_text(e.ret)])
    return rows


def envy_rows(table: Paytable, counts: HandCounts) -> Rows:
    """Return and house edge with envy, for 0 to MAX_OTHERS other players."""
    rows: Rows = []
    for others in range(MAX_OTHERS + 1):
        w = bonus_edge(table, counts, others=others)
        rows.append([str(others), percent_text(w.return_with_envy),
                     percent_text(w.house_edge_with_envy)])
    return rows


def progressive_rows(table: Paytable, counts: HandCounts, pay_counts: Any,
                     meters: dict[str, int] | None, money: Currency) -> Rows:
    """A progressive paytable's pays, "No pay" and the total.  A percentage pay's return is
    at ``meters`` (level -> cents, rounded down to the cent as it is paid), or per $1,000 of
    meter without them."""
    assert table.wager_cents is not None
    wager, total = table.wager_cents, counts.total
    rows: Rows = []
    for pay in table.pays:
        n = pay_counts[pay.hand]
        if pay.fraction is None:
            returned = percent_text(Fraction(n * table.fixed_cents(pay), total * wager))
        elif meters is not None:
            assert pay.level is not None
            num, den = pay.fraction.as_integer_ratio()
            paid = meters[pay.level] * num // den  # rounded down, as it is paid
            returned = percent_text(Fraction(n * paid, total * wager))
        else:
            per_k = Fraction(n, total) * Fraction(pay.fraction) * 100 / wager * 1000
            returned = f"{percent_text(per_k)} per $1,000"
        rows.append([hand_label(pay.hand), pay_text(table, pay, money), f"{n:,}",
                     probability(n, total), one_in(n, total), returned])
    none = pay_counts[None]
    rows.append(["No pay", "loses the wager", f"{none:,}", probability(none, total),
                 one_in(none, total), "—"])
    rows.append(["Total", "", f"{total:,}", "1", "", ""])
    return rows


def group_settings(group: GroupConfig, growth: Sequence[Any], money: Currency) -> str:
    """A progressive group's levels (seed, rates, how often it hits and how much it rises
    between hits), whether every pay comes from the meter, and when a pay is fixed."""
    lines = []
    for lv, g in zip(group.levels, growth, strict=True):
        lines.append(
            f"{lv.name}: seed {money.text(lv.seed_cents)} · "
            f"contribution {rate_text(lv.contribution_rate)} · reserve "
            f"{rate_text(lv.reserve_rate)} · hit 1 in "
            f"{round(g.wagers_per_hit):,} wagers · rises about "
            f"{money.symbol}{money_text(g.rise_per_hit)} between hits")
    pays = "every pay from the meter" if group.all_pays_from_meter else \
        "only percentage pays from the meter"
    lines.append(f"{pays}; {'lock at hit' if group.lock_at_hit else 'fixed at pay'}")
    return "\n".join(lines)
