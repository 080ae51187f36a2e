"""The poker room: Bad Beat Jackpot funds (``fund``) and claims tracked as cases (``cases``);
the rules themselves are in ``core.pokerroom.rules.bbj``."""
