"""Gaming-machine game files shipped with Podium (SLOTS.md; ``podium rules slot NAME``)."""
