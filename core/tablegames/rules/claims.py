"""What a claimed hand pays when only its hand id is known (a dealer's hand button, a scenario
of `podium rules meter`), not the seven cards.

RULES.md section 3: a hand a paytable does not list pays as the best listed hand the same seven
cards also make.  Without the cards that is certain only when EVERY seven-card hand whose best
hand is the claimed one pays the same listed hand (a royal flush with a royal match on
FPGPP-ML2 always pays the MINOR); when it depends on the cards (a 7-card straight flush on
FPGPP-WA07 pays as a royal flush from 8 to Ace, else as a straight flush) the claim can not be
priced and the cards are needed.  The answer comes from the exact count of every hand
(core/tablegames/rules/enumerate.py): which sets of hands occur with that best hand.
"""

from __future__ import annotations

from functools import cache

from core.tablegames.rules.fortune import HAND_IDS, HAND_NAMES
from core.tablegames.rules.paytables import Pay, Paytable


class ClaimError(ValueError):
    """A claimed hand that pays nothing, or whose pay depends on the cards."""


@cache
def _possible_sets(joker: str, hand: str) -> tuple[frozenset[str], ...]:
    """Every set of hand ids that seven cards with best hand ``hand`` make (exactly counted).
    Only a hand the paytable does not list needs it: numpy (the count) is imported here."""
    from core.tablegames.rules.enumerate import count_hands

    out = []
    for made, n in count_hands(joker).made_sets().items():
        if n and made and min(made, key=HAND_IDS.index) == hand:
            out.append(made)
    return tuple(out)


def possible_pays(table: Paytable, hand: str) -> tuple[Pay, ...]:
    """Every pay a claim of best hand ``hand`` could be, whatever the cards (empty: it pays
    nothing, or ``hand`` is not a hand id)."""
    listed = table.pay_for(hand)
    if listed is not None:
        return (listed,)
    if hand not in HAND_IDS:
        return ()
    found: dict[str, Pay] = {}
    for made in _possible_sets(table.joker, hand):
        pay = next((p for p in table.pays if p.hand in made), None)  # pays are best first
        if pay is not None:
            found[pay.hand] = pay
    return tuple(found.values())


def pay_for_claim(table: Paytable, hand: str) -> Pay:
    """The pay of a claimed best hand ``hand`` on ``table`` (listed, or certain without cards).

    ClaimError names the hand and, when the pay depends on the cards, the possible pays."""
    listed = table.pay_for(hand)
    if listed is not None:
        return listed
    if hand not in HAND_IDS:
        raise ClaimError(f"hand {hand!r} is not a hand id")
    possible: dict[str, Pay | None] = {}
    for made in _possible_sets(table.joker, hand):
        pay = next((p for p in table.pays if p.hand in made), None)  # pays are best first
        possible[pay.hand if pay is not None else "nothing"] = pay
    pays = {k: v for k, v in possible.items() if v is not None}
    name = HAND_NAMES.get(hand, hand)
    if not pays:
        raise ClaimError(f"hand {hand!r} ({name}) is not paid by {table.id}")
    if len(possible) > 1:
        options = " or ".join(sorted(possible, key=lambda h: HAND_IDS.index(h)
                                     if h in HAND_IDS else len(HAND_IDS)))
        raise ClaimError(f"hand {hand!r} ({name}) is not listed by {table.id}: it pays as "
                         f"{options} depending on the cards; give the cards")
    return next(iter(pays.values()))
