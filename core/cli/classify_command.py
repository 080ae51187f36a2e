"""``podium rules classify [--joker semi|wild] CARD x7 [--json]`` and ``podium rules classify
--batch`` (CLI.md): the best Fortune hand of seven cards.

It imports only the cards and the classifier (``core.tablegames.rules.fortune``): a call starts in
a few tens of milliseconds, and ``--batch`` decides tens of thousands of hands a second.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

from core.kernel.cards import Card, CardError, format_cards, full_deck, parse_cards
from core.tablegames.rules.fortune import (
    HAND_IDS,
    HAND_NAMES,
    JOKER_MODES,
    classify,
    classify_parsed,
    hands_made,
)


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("cards", nargs="*", metavar="CARD",
                        help="seven cards: As Td 9c ... and Jk for the joker (none with --batch)")
    parser.add_argument("--joker", choices=JOKER_MODES, default="semi",
                        help="joker mode (default: semi; with --batch, for the lines that "
                             "name none)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--batch", action="store_true",
                        help='JSON lines on stdin, {"cards": [...], "joker": "wild"} ("joker" '
                             "optional); one JSON line out per line, as --json prints it "
                             "(CLI.md, Batch mode)")


def run(args: argparse.Namespace) -> int:
    if args.batch:
        if args.cards:
            raise CardError("cards: not with --batch (the hands come on stdin, one JSON line "
                            "each)")
        from core.cli.batch import run_batch

        return run_batch(str(args._command), BatchClassifier(args.joker).decide)
    cards = parse_cards(args.cards, count=7)
    hand = classify(cards, args.joker)
    shown = format_cards(cards)
    if args.json:
        json.dump({"hand": hand, "cards": shown}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    others = sorted(hands_made(cards, args.joker) - {hand}, key=HAND_IDS.index)
    print(f"cards  {' '.join(shown)}")
    print(f"joker  {args.joker}")
    print(f"hand   {hand}  ({HAND_NAMES[hand]})")
    if others:
        print(f"also   {', '.join(others)}")
    return 0


class BatchClassifier:
    """One batch line's text -> the line ``--json`` would print for it (compact: one line).

    Every line is read as a case file is (``core.cli.batch.parse_line``) and its cards as
    ``parse_cards`` reads them, so a refusal is word for word the one a single call gives.  The
    hot path remembers each card text it has parsed (a batch repeats the same 53 cards), then
    classifies the already-checked cards (``fortune.classify_parsed``) and writes the line
    itself: the JSON ``json.dumps`` would write, as hand ids and card names need no escaping.
    """

    KNOWN_MAX = 10_000  # card texts remembered ("As", "as", "A♠", " As" ...)

    def __init__(self, joker: str) -> None:
        from core.cli.batch import parse_line

        self.joker = joker
        self.parse_line = parse_line
        self.known: dict[str, Card] = {}
        self.names: dict[Card, str] = {c: str(c) for c in full_deck()}

    def decide(self, text: str) -> str:
        doc = self.parse_line(text)
        if not (isinstance(doc, dict) and "cards" in doc and (
                len(doc) == 1 or (len(doc) == 2 and "joker" in doc))):
            doc = self._document(doc)
        joker = doc.get("joker", self.joker)
        if joker not in JOKER_MODES:
            self._refuse_joker(joker)
        texts = doc["cards"]
        if type(texts) is not list:
            self._parse(texts)  # refuses it
        try:
            cards = [self.known[t] for t in texts]  # KeyError: a new text or not a string
        except (KeyError, TypeError):
            cards = self._parse(texts)
        else:
            if len(cards) != 7 or len(set(cards)) != 7:
                cards = self._parse(texts)  # refuses: a duplicate or a wrong count
        hand = classify_parsed(cards, joker == "wild")
        shown = '", "'.join(map(self.names.__getitem__, cards))
        return f'{{"hand": "{hand}", "cards": ["{shown}"]}}'

    def _parse(self, texts: object) -> list[Card]:
        """The cards of ``texts`` exactly as ``parse_cards`` reads them, or its refusal (a
        JSON value that is not a string is refused where ``parse_cards`` would meet it)."""
        from core.kernel.jsondoc import json_array
        from core.kernel.jsondoc import shown as json_text

        items = json_array(texts, "cards", CardError)
        for i, t in enumerate(items):
            if not isinstance(t, str):
                parse_cards(items[:i], count=None)  # a card before it may be refused first
                raise CardError(f"cards: {json_text(t)} is not a card string "
                                "like \"As\"")
        cards = list(parse_cards(items, count=7))
        if len(self.known) < self.KNOWN_MAX:
            self.known.update(zip(items, cards, strict=True))
        return cards

    @staticmethod
    def _document(doc: object) -> dict[str, Any]:
        """``doc`` when it is an object with ``cards`` and at most ``joker`` besides, else the
        refusal naming what is wrong."""
        from core.kernel.jsondoc import check_keys, json_object

        obj = json_object(doc, "batch line", CardError)
        check_keys(obj, "batch line", ("cards",), ("joker",), CardError)
        return obj

    @staticmethod
    def _refuse_joker(joker: object) -> NoReturn:
        from core.kernel.jsondoc import json_type

        if not isinstance(joker, str):
            raise CardError(f"joker: must be \"semi\" or \"wild\", not {json_type(joker)}")
        # argparse's refusal of ``--joker`` with this value, word for word
        raise CardError(f"argument --joker: invalid choice: {joker!r} (choose from "
                        f"{', '.join(map(repr, JOKER_MODES))})")


__all__ = ["BatchClassifier", "add_arguments", "run"]
