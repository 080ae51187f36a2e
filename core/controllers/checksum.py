"""A frame's checksum (docs/protocol.md, "Frames"): every frame ends in
``,"sum":"<16 hex digits>"}``, the first 64 bits of the SHA-256 of the frame's bytes without
that member.  :func:`seal` adds it (a sender written by hand uses it too), :func:`unseal` checks
it and takes it off before anything of the frame is read: a damaged frame is refused whole,
whatever it seems to say.
"""

from __future__ import annotations

import hashlib
import re

from core.controllers.frames import ProtocolError

# The checksum member that ends every frame: ,"sum":"<16 lowercase hex digits>"}
CHECKSUM_FIELD = "sum"
CHECKSUM_DIGITS = 16  # the first 64 bits of the SHA-256
_SUM_HEAD = b',"' + CHECKSUM_FIELD.encode() + b'":"'
_SUM_TAIL_LEN = len(_SUM_HEAD) + CHECKSUM_DIGITS + 2  # + '"}'
_HEX = frozenset(b"0123456789abcdef")
_PEEK_TYPE = re.compile(rb'"type"\s*:\s*"([A-Z_]{1,20})"')
_PEEK_SEQ = re.compile(rb'"seq"\s*:\s*(\d{1,20})')


def frame_checksum(body: bytes) -> str:
    """The checksum of a frame's bytes without its checksum member: the first 64 bits of their
    SHA-256, as 16 lowercase hex digits."""
    return hashlib.sha256(body).hexdigest()[:CHECKSUM_DIGITS]


def seal(body: bytes) -> bytes:
    """``body`` (one JSON object, its last byte the closing brace, newline optional) with its
    checksum member added last and the newline: the frame as it goes on the wire."""
    body = body.rstrip(b"\r\n")
    if not body.endswith(b"}") or len(body) < 3:
        raise ValueError("seal: not a JSON object with members")
    return (body[:-1] + _SUM_HEAD + frame_checksum(body).encode("ascii") + b'"}\n')


def unseal(raw: bytes) -> bytes:
    """The frame's bytes without the checksum member, or ProtocolError if it is missing or
    does not match (the frame was damaged: nothing of it can be trusted)."""
    tail = raw[-_SUM_TAIL_LEN:]
    digits = tail[len(_SUM_HEAD):-2]
    if (len(raw) <= _SUM_TAIL_LEN or not tail.startswith(_SUM_HEAD) or not tail.endswith(b'"}')
            or not set(digits) <= _HEX):
        raise ProtocolError(f"frame without its checksum ({_peek(raw)}; a frame ends with "
                            f',"{CHECKSUM_FIELD}":"<{CHECKSUM_DIGITS} hex digits>"}})')
    body = raw[:-_SUM_TAIL_LEN] + b"}"
    if frame_checksum(body) != digits.decode("ascii"):
        raise ProtocolError(f"checksum mismatch: the frame was damaged on the way ({_peek(raw)})")
    return body


def _peek(raw: bytes) -> str:
    """What a damaged frame seems to be, for the message only (never trusted)."""
    kind = _PEEK_TYPE.search(raw)
    seq = _PEEK_SEQ.search(raw)
    what = kind.group(1).decode("ascii") if kind else "frame of unknown type"
    if seq:
        what += f" seq {seq.group(1).decode('ascii')} as read"
    return f"{what}, {len(raw)} bytes"

