"""The PIN's slow hash at its production cost.

The suite hashes PINs at a low scrypt cost (tests/conftest.py,
``_pins_hashed_cheaply_in_this_process``); this test puts the production cost back, checks what a
ledger keeps, and that a PIN is checked at the cost its hash records, whatever the cost is now."""

from __future__ import annotations

import pytest

from core.people import auth, cardkey
from tests.conftest import TEST_SCRYPT_N


def test_a_pin_is_hashed_at_the_production_cost_and_checked_at_the_cost_it_records(
        production_pin_cost: int, monkeypatch: pytest.MonkeyPatch) -> None:
    key = cardkey.load()
    assert production_pin_cost == 2**14  # about 16 MB and tens of ms a hash
    stored = auth.pin_hash(key, 7, "4826")
    kind, n, r, p, salt, digest = stored.split("$")
    assert (kind, n, r, p) == ("scrypt", "16384", "8", "1")
    assert len(bytes.fromhex(salt)) == 16 and len(bytes.fromhex(digest)) == 32
    assert "4826" not in stored
    assert auth.pin_matches(key, 7, "4826", stored)
    assert not auth.pin_matches(key, 7, "4827", stored)
    assert not auth.pin_matches(key, 8, "4826", stored)  # the PIN is keyed to its employee

    monkeypatch.setattr(auth, "SCRYPT_N", TEST_SCRYPT_N)
    low = auth.pin_hash(key, 7, "4826")
    assert low.split("$")[1] == str(TEST_SCRYPT_N)
    assert auth.pin_matches(key, 7, "4826", stored)  # checked at 2**14, as its hash says
    monkeypatch.setattr(auth, "SCRYPT_N", production_pin_cost)
    assert auth.pin_matches(key, 7, "4826", low)  # checked at 2**4, as its hash says
    assert not auth.pin_matches(key, 7, "0000", low)
