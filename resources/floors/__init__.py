"""Floor configurations shipped with Podium (``demo.toml``: the embedded demo floor)."""
