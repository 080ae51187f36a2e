"""The card key: the secret that turns a card number into the value the ledger keeps.

A card is identified by ``HMAC-SHA256(card key, card number)`` (:meth:`CardKey.card_mac`): one
indexed lookup, the same work for every card, and a copy of the ledger alone reveals no card,
because the key is not in the ledger.  PINs are hashed with the key too (``core.people.auth``).

The key is 32 random bytes, kept in a file (hex, one line) that only its owner may read:

- where: the floor file's ``[authorization] card_key`` (relative to the floor file's folder),
  else the environment variable ``PODIUM_CARD_KEY``, else ``card.key`` in the user
  configuration folder (``platformdirs.user_config_dir("podium")``);
- made at first use with mode 0600 (written beside its place, synced, then linked in: two
  podiums starting at once can not make two keys in one place, nor read a half-written one); a
  key file that others may read or write is refused, like an ssh private key;
- every podium and service of one floor uses the SAME key file (copy it, as the TLS keys are
  copied: docs/operator.md "Card key").  The ledger records the key's fingerprint
  (:meth:`CardKey.key_id`, not the key) so a podium with another key is told so instead of
  refusing every card as unknown.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

ENV = "PODIUM_CARD_KEY"
KEY_BYTES = 32


class CardKeyError(ValueError):
    """The card key can not be read, made or trusted; the message names the file."""


@dataclass(frozen=True)
class CardKey:
    """A loaded card key (its bytes never appear in a repr or a message)."""

    secret: bytes = field(repr=False)
    path: Path | None = None

    def card_mac(self, card_number: str) -> bytes:
        """The 32-byte value the ledger keeps for a card number."""
        return hmac.new(self.secret, b"card:" + card_number.encode("ascii"),
                        hashlib.sha256).digest()

    def pin_input(self, employee_id: int, pin: str) -> bytes:
        """The keyed form of a PIN (what the slow hash is computed over)."""
        return hmac.new(self.secret, f"pin:{employee_id}:{pin}".encode("ascii"),
                        hashlib.sha256).digest()

    def key_id(self) -> str:
        """A public fingerprint of the key (16 hex digits): which key, not the key."""
        return hmac.new(self.secret, b"podium card key id", hashlib.sha256).hexdigest()[:16]

    def where(self) -> str:
        return str(self.path) if self.path is not None else "(in memory)"


def default_path(configured: str | Path | None = None) -> Path:
    """The key file in force: ``configured`` (the floor file's), else ``$PODIUM_CARD_KEY``, else
    ``card.key`` in the user configuration folder."""
    if configured:
        return Path(configured)
    env = os.environ.get(ENV, "").strip()
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("podium")) / "card.key"


def load(path: str | Path | None = None, *, create: bool = True) -> CardKey:
    """The card key in ``path`` (default :func:`default_path`), made there first if it does not
    exist and ``create``.  CardKeyError names the file and what is wrong."""
    p = default_path(path)
    if create and not p.exists():
        _make(p)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise CardKeyError(f"card key {p}: no such file (copy the floor's card key here, or "
                           "let the console make one on a new floor)") from None
    except OSError as exc:
        raise CardKeyError(f"card key {p}: can not be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise CardKeyError(f"card key {p}: not a regular file")
    if os.name == "posix" and st.st_mode & 0o077:
        raise CardKeyError(f"card key {p}: others may read or change it (mode "
                           f"{stat.S_IMODE(st.st_mode):04o}); make it 0600 "
                           f"(chmod 600 {p})")
    try:
        text = p.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CardKeyError(f"card key {p}: can not be read: {exc}") from None
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        raise CardKeyError(f"card key {p}: not a card key (expected {KEY_BYTES * 2} hex "
                           "digits on one line)") from None
    if len(secret) != KEY_BYTES:
        raise CardKeyError(f"card key {p}: not a card key (expected {KEY_BYTES * 2} hex "
                           f"digits, found {len(text)})")
    return CardKey(secret, p)


def _make(p: Path) -> None:
    """Write a new key beside ``p`` (mode 0600, synced), then link it into place: a podium
    starting at the same moment sees no key or a whole one, never a half-written file; if it
    made one first, that one stays."""
    try:
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise CardKeyError(f"card key {p}: can not be made: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(KEY_BYTES) + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, p)
        except FileExistsError:
            pass  # another process made it a moment ago: use theirs
        except OSError as exc:
            raise CardKeyError(f"card key {p}: can not be made: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def ephemeral() -> CardKey:
    """A random key kept in memory only (tests, benchmarks)."""
    return CardKey(secrets.token_bytes(KEY_BYTES), None)
