"""What the ledger's hash chain vouches for, and how (docs/ledger.md "Tamper evidence"): the
three kinds of tables (:data:`APPEND_ONLY` records, :data:`STATE` rows with the columns that may
change in place, everything else derived), the columns a row is chained by, a row's content hash
(:func:`row_hash`, :func:`state_hash`), a chain row's hash (:func:`link_hash`), and a batch
link's members and hash (revision 0021, :func:`encode_members`, :func:`batch_hash`).

Pure: no database here.  The seal that writes the chain is core/ledger/integrity.py, the
database's guards that refuse a change are core/ledger/guards.py, and ``podium audit verify``
(core/ledger/audit.py) recomputes these hashes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Table

GENESIS = bytes(32)
APPEND_ONLY: tuple[str, ...] = (
    "levels", "level_settings", "parameter_changes", "employee_events", "controller_events",
    "refused_events", "hit_decisions", "awards", "meter_entries", "swipe_log", "slips",
    "slip_print_attempts", "machine_checks", "bbj_funds", "bbj_drop_counts",
    "poker_tournament_fees", "bbj_postings", "bbj_awards", "bbj_award_shares", "bbj_cessations",
    "bbj_entries", "bbj_cases", "bbj_case_events", "bbj_slip_prints", "card_locks",
    "slip_voids", "ownership_events", "bbj_filings",
    "bbj_cessation_notices", "contribution_approvals", "floor_approvals",
)
"""Tables whose rows never change once written."""

STATE: dict[str, frozenset[str]] = {
    "groups": frozenset({"name", "paytable_id", "lock_at_hit", "payment_order"}),
    "tables": frozenset({"name", "group_id", "seats", "online"}),
    "employees": frozenset({"active", "card_salt", "card_hash", "card_iterations", "card_mac",
                            "pin"}),
    "rounds": frozenset({"state"}),
    "wagers": frozenset({"status"}),
    "hits": frozenset({"status", "verified_cards", "locked_level_id", "locked_amount_cents",
                       "locked_meter_before_cents", "locked_meter_after_cents"}),
}
"""Tables whose rows follow a workflow in place: the columns that may change."""

CHAINED: tuple[str, ...] = APPEND_ONLY + tuple(STATE)
PROTECTED_EXTRA = ("ledger_chain",)  # append-only but not chained into itself


def chained_columns(table: Table) -> list[str]:
    """The columns of ``table`` that the chain vouches for (sorted by name)."""
    mutable = STATE.get(table.name, frozenset())
    return sorted(c.name for c in table.columns if c.name not in mutable)


STATE_MARK = "~"
"""``ledger_journal.tbl`` of a state row that was UPDATEd (``rounds~``): its whole content is
chained again at the seal (revision 0024)."""


def full_columns(table: Table) -> list[str]:
    """Every column of ``table`` (sorted by name): what a state row's full-content hash
    covers."""
    return sorted(c.name for c in table.columns)


def state_hash(table: str, key: str, values: Mapping[str, Any]) -> bytes:
    """A state row's full-content hash: :func:`row_hash` of every column, under the name
    ``table~`` (never equal to the hash of its unchanging columns)."""
    return row_hash(table + STATE_MARK, key, values)


_SIMPLE = (int, str, bool, float)


def _plain(value: Any) -> Any:
    """A value as canonical JSON data (the same on SQLite and PostgreSQL)."""
    if type(value) in _SIMPLE:
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def row_hash(table: str, key: str, values: Mapping[str, Any]) -> bytes:
    """SHA-256 (hex) of one row's chained content: its table, key and columns by name.  A NULL
    column is left out, so a nullable column added to a table later leaves the hashes of the
    rows written before it unchanged."""
    simple = _SIMPLE
    body = _encode([table, key, {k: v if type(v) in simple else _plain(v)
                                 for k, v in values.items() if v is not None}])
    return hashlib.sha256(body.encode("utf-8")).digest()


_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def link_hash(n: int, table: str, key: str, content: bytes, prev: bytes) -> bytes:
    """SHA-256 (hex) of chain row ``n``: its position, the row it vouches for, that row's
    content hash and the previous chain row's hash (SHA-256 over ``"n|table|key|"`` and the two
    32-byte hashes)."""
    return hashlib.sha256(f"{n}|{table}|{key}|".encode() + content + prev).digest()


# ------------------------------------------------------------------ batch links (rev. 0021)

BATCH = "*"
"""``ledger_chain.tbl`` of a batch link: one chain row for every row a transaction inserted."""
_BATCH_PREFIX = b"podium-batch|"

Members = list[tuple[str, list[int] | list[str]]]
"""A batch's rows: (table, keys) in chain order; integer keys ascending."""


def encode_members(members: Members) -> str:
    """``members`` as stored in ``ledger_chain.members``: compact JSON, integer keys as
    ``[first, last]`` ranges (``[["wagers",[[101,600],[602,602]]],["tables",["T01"]]]``)."""
    out: list[Any] = []
    for tbl, keys in members:
        if keys and isinstance(keys[0], int):
            ranges: list[list[int]] = []
            for k in keys:
                assert isinstance(k, int)
                if ranges and k == ranges[-1][1] + 1:
                    ranges[-1][1] = k
                else:
                    ranges.append([k, k])
            out.append([tbl, ranges])
        else:
            out.append([tbl, [str(k) for k in keys]])
    return json.dumps(out, separators=(",", ":"), ensure_ascii=True)


def decode_members(text_: str) -> Members:
    """:func:`encode_members` back (ValueError for anything else)."""
    data = json.loads(text_)
    if not isinstance(data, list):
        raise ValueError("batch members: not a list")
    out: Members = []
    for item in data:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], list)):
            raise ValueError("batch members: an entry is not [table, keys]")
        tbl, keys = item
        if keys and isinstance(keys[0], list):
            ints: list[int] = []
            for r in keys:
                if not (isinstance(r, list) and len(r) == 2 and all(type(x) is int for x in r)
                        and r[0] <= r[1]):
                    raise ValueError(f"batch members: {tbl}: a range is not [first, last]")
                ints.extend(range(r[0], r[1] + 1))
            out.append((tbl, ints))
        else:
            if not all(isinstance(k, str) for k in keys):
                raise ValueError(f"batch members: {tbl}: a key is not text")
            out.append((tbl, list(keys)))
    return out


def batch_hash(members: str, hashes: bytes, states: str | None = None,
               state_hashes: bytes | None = None) -> bytes:
    """A batch link's ``row_hash``: SHA-256 over ``podium-batch|``, the members as stored and
    the members' content hashes (32 bytes each, in the members' order).  A link that also
    chains state rows' full content (revision 0024) hashes ``podium-batch-state|``, the
    lengths of the four parts, then the four parts (members, hashes, states, state hashes)."""
    if states is None and state_hashes is None:
        return hashlib.sha256(_BATCH_PREFIX + members.encode("ascii") + hashes).digest()
    m, st, sh = members.encode("ascii"), (states or "").encode("ascii"), state_hashes or b""
    head = f"{len(m)}|{len(hashes)}|{len(st)}|{len(sh)}|".encode("ascii")
    return hashlib.sha256(_STATE_PREFIX + head + m + hashes + st + sh).digest()


_STATE_PREFIX = b"podium-batch-state|"
