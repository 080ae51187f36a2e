"""Card picker: the 53-card deck as buttons, seven slots, and a typing field.

Click a card to put it in the next empty slot, click a slot to take it back; or type the
cards ("As Kd Qh Jc Ts 9h Jk") and press Enter.  A card already in the hand is disabled in the
deck, so a duplicate can not be picked; a typed duplicate or unknown card is refused with a
message naming it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.rules.cards import JOKER, RANK_CHARS, RANKS, SUITS, Card, CardError, parse_cards
from core.rules.fortune import HAND_NAMES

SUIT_SYMBOL = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
SUIT_COLOR = {"c": "#e8ecf1", "s": "#e8ecf1", "d": "#ff6b6b", "h": "#ff6b6b"}
# a card already in the hand: clearly greyed out in the deck
USED_CARD_STYLE = ("QPushButton:disabled { color: #3d444e; background: #15181d; "
                   "border-color: #22272e; }")


def with_hand_names(text: str) -> str:
    """``"claimed ROYAL_FLUSH, cards make STRAIGHT_FLUSH"`` -> hand names a person reads."""
    for hand_id in sorted(HAND_NAMES, key=len, reverse=True):
        text = text.replace(hand_id, HAND_NAMES[hand_id])
    return text


def hand_label(hand_id: str | None) -> str:
    if not hand_id:
        return "—"
    name = HAND_NAMES.get(hand_id, hand_id.replace("_", " ").lower())
    return name[:1].upper() + name[1:]


def card_text(card: Card) -> str:
    if card.is_joker:
        return "JOKER"
    return f"{RANK_CHARS[card.rank]}{SUIT_SYMBOL[card.suit]}"


def card_html(card: Card) -> str:
    color = "#c58cff" if card.is_joker else SUIT_COLOR[card.suit]
    return f'<span style="color:{color}">{card_text(card)}</span>'


class CardPicker(QWidget):
    cardsChanged = Signal(list)  # noqa: N815 (Qt naming)

    def __init__(self, count: int = 7, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._count = count
        self._cards: list[Card | None] = [None] * count
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)

        slots = QHBoxLayout()
        self._slot_buttons: list[QPushButton] = []
        for i in range(count):
            b = QPushButton("·")
            b.setObjectName(f"slot{i}")
            b.setMinimumSize(78, 64)
            b.setToolTip("Click to take this card back")
            b.clicked.connect(lambda _=False, i=i: self._clear_slot(i))
            slots.addWidget(b)
            self._slot_buttons.append(b)
        outer.addLayout(slots)

        grid = QGridLayout()
        grid.setSpacing(3)
        self._deck_buttons: dict[Card, QPushButton] = {}
        for row, suit in enumerate(SUITS):
            for col, rank in enumerate(reversed(RANKS)):
                card = Card(rank, suit)
                b = QPushButton(card_text(card))
                b.setMinimumSize(44, 34)
                b.setStyleSheet(f"QPushButton {{ color: {SUIT_COLOR[suit]}; padding: 2px; "
                                f"font-weight: bold; }} {USED_CARD_STYLE}")
                b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                b.clicked.connect(lambda _=False, c=card: self.add_card(c))
                grid.addWidget(b, row, col)
                self._deck_buttons[card] = b
        jb = QPushButton("JOKER")
        jb.setStyleSheet("QPushButton { color: #c58cff; padding: 2px; font-weight: bold; } "
                         + USED_CARD_STYLE)
        jb.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        jb.clicked.connect(lambda: self.add_card(JOKER))
        grid.addWidget(jb, 0, 13, 4, 1)
        jb.setMinimumHeight(34 * 4)
        self._deck_buttons[JOKER] = jb
        outer.addLayout(grid)

        typing = QHBoxLayout()
        typing.addWidget(QLabel("Type cards:"))
        self.entry = QLineEdit()
        self.entry.setObjectName("cardEntry")
        self.entry.setPlaceholderText("e.g. As Ks Qs Js Ts 9h Jk  (Enter)")
        self.entry.returnPressed.connect(self._typed)
        typing.addWidget(self.entry, 1)
        clear = QPushButton("Clear")
        clear.clicked.connect(self.clear)
        typing.addWidget(clear)
        outer.addLayout(typing)
        self.error = QLabel("")
        self.error.setObjectName("alert")
        self.error.setWordWrap(True)
        outer.addWidget(self.error)
        self._refresh()

    def cards(self) -> list[Card]:
        return [c for c in self._cards if c is not None]

    def is_complete(self) -> bool:
        return all(c is not None for c in self._cards)

    def set_cards(self, cards: Sequence[Card]) -> None:
        self._cards = [None] * self._count
        for i, c in enumerate(cards[: self._count]):
            self._cards[i] = c
        self.error.setText("")
        self._refresh()

    def clear(self) -> None:
        self.set_cards([])

    def add_card(self, card: Card) -> None:
        if card in self._cards:
            self.error.setText(f"{card_text(card)} is already in the hand")
            return
        try:
            i = self._cards.index(None)
        except ValueError:
            self.error.setText(f"The hand already has {self._count} cards; take one back first")
            return
        self._cards[i] = card
        self.error.setText("")
        self._refresh()

    def _clear_slot(self, i: int) -> None:
        self._cards[i] = None
        self._refresh()

    def _typed(self) -> None:
        text = self.entry.text().replace(",", " ")
        try:
            cards = parse_cards(text.split(), count=None)
            if len(cards) > self._count:
                raise CardError(f"cards: expected {self._count} cards, got {len(cards)}")
        except CardError as exc:
            self.error.setText(str(exc))
            return
        self.set_cards(cards)
        self.entry.clear()

    def _refresh(self) -> None:
        for i, c in enumerate(self._cards):
            b = self._slot_buttons[i]
            if c is None:
                b.setText("·")
                b.setStyleSheet("font-size: 20pt; color: #5b6570;")
            else:
                color = "#c58cff" if c.is_joker else SUIT_COLOR[c.suit]
                b.setText(card_text(c))
                b.setStyleSheet(f"font-size: 20pt; font-weight: bold; color: {color};")
        for card, b in self._deck_buttons.items():
            b.setEnabled(card not in self._cards)
        self.cardsChanged.emit(self.cards())
