"""The ledger: every money movement and every decision, append-only (docs/ledger.md)."""

from core.ledger.db import default_url, make_engine, upgrade

__all__ = ["default_url", "make_engine", "upgrade"]
