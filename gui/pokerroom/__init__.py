"""The poker room's screen: panels over the poker-room facade (``core.pokerroom.room``);
``screen.py`` composes them."""

from gui.pokerroom.screen import PokerRoomScreen

__all__ = ["PokerRoomScreen"]
