"""Card picker: the 53-card deck as buttons, seven slots, and a typing field.

Click a card to put it in the next empty slot, click a slot to take it back; or type the
cards ("As Kd Qh Jc Ts 9h Jk") and press Enter.  A card already in the hand is disabled in the
deck, so a duplicate can not be picked; a typed duplicate or unknown card is refused with a
message naming it.

The slots may be cut into captioned groups (:meth:`CardPicker.set_groups`, e.g. the board and
the hole cards of each seat that showed, on the Poker room tab): the count becomes the groups'
total, a prompt above the slots names the group (and its card) the next card goes to, and the
groups may wrap onto several rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.kernel.cards import JOKER, RANK_CHARS, RANKS, SUITS, Card, CardError, parse_cards
from core.tablegames.rules.fortune import HAND_NAMES

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


@dataclass(frozen=True)
class SlotGroup:
    """Captioned slots of a picker: ``caption`` ("Board", "Seat 4") and ``count`` slots."""

    caption: str
    count: int


def card_html(card: Card) -> str:
    color = "#c58cff" if card.is_joker else SUIT_COLOR[card.suit]
    return f'<span style="color:{color}">{card_text(card)}</span>'


class CardPicker(QWidget):
    cardsChanged = Signal(list)  # noqa: N815 (Qt naming)

    def __init__(self, count: int = 7, parent: QWidget | None = None, *, joker: bool = True,
                 slot_size: tuple[int, int] = (78, 64), slot_font_pt: int = 20) -> None:
        """``joker``: offer the joker in the deck; ``slot_size`` (width, height) and
        ``slot_font_pt``: the slots' size and their cards' font."""
        super().__init__(parent)
        self._count = count
        self._cards: list[Card | None] = [None] * count
        self._groups: tuple[SlotGroup, ...] = ()
        self._slot_size = slot_size
        self._slot_font_pt = slot_font_pt
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)

        self._prompt: QLabel | None = None  # made (above the slots) once they are grouped
        self._slot_buttons: list[QPushButton] = []
        self._slot_rows = QVBoxLayout()
        self._slot_rows.setSpacing(4)
        outer.addLayout(self._slot_rows)
        self._build_slots(None)

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
                b.setAutoDefault(False)
                b.clicked.connect(lambda _=False, c=card: self.add_card(c))
                grid.addWidget(b, row, col)
                self._deck_buttons[card] = b
        jb = QPushButton("JOKER")
        jb.setStyleSheet("QPushButton { color: #c58cff; padding: 2px; font-weight: bold; } "
                         + USED_CARD_STYLE)
        jb.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        jb.setAutoDefault(False)
        jb.clicked.connect(lambda: self.add_card(JOKER))
        grid.addWidget(jb, 0, 13, 4, 1)
        jb.setMinimumHeight(34 * 4)
        self._deck_buttons[JOKER] = jb
        if not joker:  # e.g. hold'em: no joker in the deck
            jb.hide()
        outer.addLayout(grid)

        typing = QHBoxLayout()
        typing.addWidget(QLabel("Type cards:"))
        self.entry = QLineEdit()
        self.entry.setObjectName("cardEntry")
        self.entry.setPlaceholderText("e.g. As Ks Qs Js Ts 9h Jk  (Enter)")
        self.entry.returnPressed.connect(self._typed)
        typing.addWidget(self.entry, 1)
        clear = QPushButton("Clear")
        clear.setAutoDefault(False)
        clear.clicked.connect(self.clear)
        typing.addWidget(clear)
        outer.addLayout(typing)
        self.error = QLabel("")
        self.error.setObjectName("alert")
        self.error.setWordWrap(True)
        outer.addWidget(self.error)
        self._refresh()

    def _slot_button(self, i: int) -> QPushButton:
        b = QPushButton("·")
        b.setObjectName(f"slot{i}")
        b.setMinimumSize(*self._slot_size)
        b.setToolTip("Click to take this card back")
        # Never the dialog's default button nor in the focus chain: Enter in the card field
        # (or Space with nothing focused) must not take a card back.
        b.setAutoDefault(False)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.clicked.connect(lambda _=False, i=i: self._clear_slot(i))
        self._slot_buttons.append(b)
        return b

    @property
    def prompt(self) -> QLabel:
        """The line above the slots naming where the next card goes (grouped slots only)."""
        if self._prompt is None:
            self._prompt = QLabel("")
            self._prompt.setObjectName("cardPrompt")
            self._prompt.setWordWrap(True)
            self._prompt.setStyleSheet("color: #4ea8f2; font-weight: bold;")
            lay = self.layout()
            assert isinstance(lay, QVBoxLayout)
            lay.insertWidget(0, self._prompt)
        return self._prompt

    @staticmethod
    def _clear_layout(lay: QLayout) -> None:
        while (item := lay.takeAt(0)) is not None:
            w, sub = item.widget(), item.layout()
            if w is not None:
                w.hide()
                w.deleteLater()
            elif sub is not None:
                CardPicker._clear_layout(sub)

    def _build_slots(self, slots_per_row: int | None) -> None:
        """(Re)build the slot buttons: one row of ``count`` slots, or the captioned groups in
        rows of at most ``slots_per_row`` slots (a group is never cut)."""
        self._clear_layout(self._slot_rows)
        self._slot_buttons = []
        rows = self._slot_rows
        if not self._groups:
            row = QHBoxLayout()
            for i in range(self._count):
                row.addWidget(self._slot_button(i))
            rows.addLayout(row)
            return
        row = QHBoxLayout()
        row.setSpacing(14)
        used = 0
        for g in self._groups:
            if used and slots_per_row is not None and used + g.count > slots_per_row:
                row.addStretch(1)
                rows.addLayout(row)
                row = QHBoxLayout()
                row.setSpacing(14)
                used = 0
            box = QVBoxLayout()
            box.setSpacing(2)
            cap = QLabel(g.caption)
            cap.setObjectName("muted")
            box.addWidget(cap)
            cells = QHBoxLayout()
            cells.setSpacing(4)
            for _ in range(g.count):
                b = self._slot_button(len(self._slot_buttons))
                b.setToolTip(f"{g.caption}: click to take this card back")
                cells.addWidget(b)
            box.addLayout(cells)
            row.addLayout(box)
            used += g.count
        row.addStretch(1)
        rows.addLayout(row)

    def set_groups(self, groups: Sequence[SlotGroup], *,
                   slots_per_row: int | None = None) -> None:
        """Cut the slots into captioned groups (the count becomes their total).  The cards of
        a group whose caption is kept stay in it; the others are dropped."""
        if not groups or any(g.count < 1 for g in groups):
            raise ValueError("card slots: every group needs at least one slot")
        if len({g.caption for g in groups}) != len(groups):
            raise ValueError("card slots: two groups have the same caption")
        kept = dict(self.groups())
        self._groups = tuple(groups)
        self._count = sum(g.count for g in groups)
        self._cards = []
        for g in self._groups:
            mine = kept.get(g.caption, [])
            self._cards.extend((mine + [None] * g.count)[: g.count])
        self._build_slots(slots_per_row)
        self.error.setText("")
        self._refresh()

    def groups(self) -> list[tuple[str, list[Card | None]]]:
        """Each group's caption and its slots in order (None: empty); [] without groups."""
        out: list[tuple[str, list[Card | None]]] = []
        i = 0
        for g in self._groups:
            out.append((g.caption, self._cards[i:i + g.count]))
            i += g.count
        return out

    def count(self) -> int:
        return self._count

    def slots(self) -> list[Card | None]:
        """Every slot in order (None: empty)."""
        return list(self._cards)

    def prompt_text(self) -> str:
        """What the prompt says: the group and card the next card goes to, or that every
        slot is filled."""
        try:
            nxt = self._cards.index(None)
        except ValueError:
            names = ", ".join(g.caption for g in self._groups)
            return f"All {self._count} cards picked ({names})."
        start = 0
        for g in self._groups:
            if nxt < start + g.count:
                return f"Next: {g.caption}, card {nxt - start + 1} of {g.count}"
            start += g.count
        return f"Next: card {nxt + 1} of {self._count}"

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
        pt = self._slot_font_pt
        for i, c in enumerate(self._cards):
            b = self._slot_buttons[i]
            if c is None:
                b.setText("·")
                b.setStyleSheet(f"font-size: {pt}pt; color: #5b6570; padding: 8px 2px;")
            else:
                color = "#c58cff" if c.is_joker else SUIT_COLOR[c.suit]
                b.setText(card_text(c))
                b.setStyleSheet(f"font-size: {pt}pt; font-weight: bold; color: {color}; "
                                "padding: 8px 2px;")
        if self._groups:
            self.prompt.setText(self.prompt_text())
        for card, b in self._deck_buttons.items():
            b.setEnabled(card not in self._cards)
        self.cardsChanged.emit(self.cards())
