"""A hit's cards re-evaluated by the rules core beside its claim (:class:`CardsCheck`): the cards
the table sent and the cards the supervisor verified, each as the pay they earn under the
table's paytable and as their best Fortune hand."""

from __future__ import annotations

from typing import Any

from core.desks.surveillance.records import CardsCheck
from core.kernel.cards import Card, CardError, format_cards, parse_card
from core.ledger.models import Award, Hit
from core.tablegames.rules import fortune


def _parse(text: str) -> tuple[tuple[Card, ...], str]:
    try:
        cards = tuple(parse_card(t) for t in text.split())
    except CardError as exc:
        return (), str(exc)
    if len(cards) != 7:
        return (), f"{len(cards)} cards, not 7"
    return cards, ""


def _makes(pt: Any, cards: tuple[Card, ...]) -> tuple[str | None, str | None]:
    """(the pay the cards earn, else their best hand; their best hand)."""
    if not cards or pt is None:
        return None, None
    pay = pt.paying(cards)
    best = fortune.classify(cards, pt.joker)
    return (str(pay.hand) if pay is not None else best), best


def cards_check(pt: Any, hit: Hit, award: Award | None) -> CardsCheck:
    """The claim of ``hit`` beside what its cards make under ``pt`` (the table's paytable; None:
    the table is not on this floor file, its cards are not evaluated)."""
    notes: list[str] = []
    table_cards, problem = _parse(hit.cards) if hit.cards else ((), "")
    if problem:
        notes.append(f"the table's cards can not be evaluated: {problem}")
    verified, problem = _parse(hit.verified_cards) if hit.verified_cards else ((), "")
    if problem:
        notes.append(f"the verified cards can not be evaluated: {problem}")
    if pt is None:
        notes.append(f"table {hit.table_id} is not on this floor file: its cards are not "
                     "evaluated")
    table_makes, table_best = _makes(pt, table_cards)
    verified_makes, verified_best = _makes(pt, verified)
    return CardsCheck(hit.claimed_hand, tuple(format_cards(table_cards)), table_makes,
                      tuple(format_cards(verified)), verified_makes,
                      award.hand if award else None, "; ".join(notes), table_best,
                      verified_best)
