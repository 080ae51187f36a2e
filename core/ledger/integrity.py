"""The ledger's tamper evidence: what may change, and the hash chain over every row.

Three kinds of tables (docs/ledger.md "Tamper evidence"):

- **Append-only** (:data:`APPEND_ONLY`): the records an auditor reads (meter entries, awards,
  decisions, slips, swipes, controller events ...).  The database itself refuses UPDATE and
  DELETE on them (triggers on SQLite and PostgreSQL; on PostgreSQL also TRUNCATE, and the
  application's role ``podium_writer`` holds no such privilege).
- **State** (:data:`STATE`): rows with a few columns that follow a workflow in place (a hit's
  status, a round's state, an employee's card).  DELETE is refused, and an UPDATE that touches
  any other column is refused; the history of the state columns is in the append-only tables
  (decisions, controller events, employee events, parameter changes).
- **Derived** (everything else: kept balances, hourly totals, settings, the journal): free, and
  re-checked against the records they derive from by ``podium audit verify``.

A state row's **whole content** (every column, the state ones included) is chained too, when it
is inserted and after every UPDATE (revision 0024): an AFTER UPDATE trigger journals the row as
``table~`` and the seal puts its full-content hash (:func:`state_hash`) in the batch link's
``states`` / ``state_hashes``, so ``podium audit verify`` checks each state row's current
content against the latest state the ledger recorded (a round moved back from ended to locked,
a hit's verified cards rewritten).  On SQLite that trigger calls ``podium_journal()`` as the
insert journal does: the bare ``sqlite3`` tool can no longer UPDATE a state table.

Every row of an append-only or state table is **chained** when its transaction commits: its
content (every column of an append-only row; the columns that never change of a state row) is
hashed (:func:`row_hash`), and a ``ledger_chain`` row carries that hash, the previous chain row's
hash and its own (:func:`link_hash`).  The chain is one line through the whole ledger in commit
order, so the newest hash (the *chain head*, printed on every win page and daily report) vouches
for every row before it: a copy of it kept outside the casino proves the past.

How rows reach the chain: an AFTER INSERT trigger on every chained table notes the row in
``ledger_journal`` (PostgreSQL: with the inserting transaction's id).  Just before a transaction
commits (the engine's ``commit`` event, :func:`install`), :func:`seal` reads the journal rows of
this transaction, reads those rows back, appends their chain rows and empties the journal, in
the same transaction: a row is never committed without its chain row.  On PostgreSQL the
writers' lock ``chain`` (a row of ``ledger_locks`` only ``podium_writer`` can lock, revision 0023,
core/ledger/locks.py) held from the seal to the commit keeps the chain one line when several
podiums commit at once.  A journal row the seal can not account for is set aside as an incident
(:func:`set_aside`), never a failure.  On SQLite (one writer at a time) the journal trigger
calls ``podium_journal()``, a function only Podium's own connections have: a row inserted with
the bare ``sqlite3`` tool is refused.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, event, select, text

from core.ledger import locks

log = logging.getLogger("podium.ledger")

GENESIS = bytes(32)
CHAIN_LOCK_KEY = 7_411_820_461  # the seal's advisory key up to revision 0022 (migrations only)
WRITER_ROLE = "podium_writer"
READER_ROLE = "podium_reader"  # accountants' and surveillance's consoles: SELECT only

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


def _tables() -> dict[str, Table]:
    from core.ledger.models import Base

    return {name: Base.metadata.tables[name] for name in CHAINED}


def _key_value(table: Table, key: str) -> Any:
    return int(key) if table.c.id.type.python_type is int else key


def read_rows(conn: Connection, table: Table, keys: Sequence[str],
              cols: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The chained columns (or ``cols``) of the rows ``keys`` of ``table``, by key."""
    cols = chained_columns(table) if cols is None else list(cols)
    out: dict[str, dict[str, Any]] = {}
    q = select(*(table.c[c] for c in cols)).where(table.c.id.in_(bindparam("ids",
                                                                            expanding=True)))
    for start in range(0, len(keys), 500):
        ids = [_key_value(table, k) for k in keys[start:start + 500]]
        for row in conn.execute(q, {"ids": ids}).mappings():
            out[str(row["id"])] = dict(row)
    return out


def chain_head(conn: Connection) -> tuple[int, bytes]:
    """The newest chain row's number and hash (``(0, GENESIS)`` for an empty chain)."""
    row = conn.execute(text("SELECT n, hash FROM ledger_chain ORDER BY n DESC LIMIT 1")).first()
    return (0, GENESIS) if row is None else (int(row[0]), bytes(row[1]))


def covered(conn: Connection) -> int:
    """How many ledger rows the chain vouches for (a row of its own each before revision 0021,
    then every member of every batch link)."""
    has_batches = _batch_installed(conn)
    q = ("SELECT coalesce(sum(CASE WHEN hashes IS NULL THEN 1 ELSE length(hashes) / 32 END), 0) "
         "FROM ledger_chain" if has_batches else "SELECT count(*) FROM ledger_chain")
    return int(conn.execute(text(q)).scalar() or 0)


def chained_since(conn: Connection, n: int) -> list[tuple[str, str]]:
    """The rows (table, key) the chain vouches for after chain row ``n``, in chain order."""
    cols = "tbl, row_key, members" if _batch_installed(conn) else "tbl, row_key, NULL"
    out: list[tuple[str, str]] = []
    for tbl, key, members in conn.execute(text(
            f"SELECT {cols} FROM ledger_chain WHERE n > :n ORDER BY n"), {"n": n}):
        if tbl == BATCH and members is not None:
            out += [(t, str(k)) for t, keys in decode_members(str(members)) for k in keys]
        else:
            out.append((str(tbl), str(key)))
    return out


def head_text(n: int, digest: bytes) -> str:
    """The chain head as printed on win pages and daily reports: ``ROW:HASH`` is what
    ``podium audit verify --head ROW:HASH`` takes back."""
    return f"Ledger chain head {n}:{digest.hex()}"


def append(conn: Connection, items: Iterable[tuple[str, str]]) -> int:
    """Chain the rows ``items`` (table, key), in that order, after the current head, one chain
    row each (the form of revisions 0014 to 0020; the migration that made the chain still uses
    it).  Returns how many chain rows were written."""
    tables = _tables()
    items = list(items)
    if not items:
        return 0
    by_table: dict[str, list[str]] = {}
    for tbl, key in items:
        by_table.setdefault(tbl, []).append(key)
    content = {tbl: read_rows(conn, tables[tbl], keys) for tbl, keys in by_table.items()}
    n, prev = chain_head(conn)
    rows = []
    for tbl, key in items:
        values = content[tbl].get(key)
        if values is None:
            raise RuntimeError(f"ledger chain: row {tbl} {key} vanished before it was sealed")
        h = row_hash(tbl, key, values)
        n += 1
        link = link_hash(n, tbl, key, h, prev)
        rows.append({"n": n, "tbl": tbl, "row_key": key, "row_hash": h, "prev_hash": prev,
                     "hash": link})
        prev = link
    conn.execute(text("INSERT INTO ledger_chain (n, tbl, row_key, row_hash, prev_hash, hash) "
                      "VALUES (:n, :tbl, :row_key, :row_hash, :prev_hash, :hash)"), rows)
    return len(rows)


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


def _read_keys(conn: Connection, table: Table, keys: Sequence[Any],
               cols: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The chained columns (or ``cols``) of ``table``'s rows ``keys``: a range scan for a run
    of integer keys (a batch's rows are mostly one run per table), an IN list otherwise."""
    cols = chained_columns(table) if cols is None else list(cols)
    if not keys or not isinstance(keys[0], int) or keys[-1] - keys[0] + 1 != len(keys):
        return read_rows(conn, table, [str(k) for k in keys], cols)
    q = select(*(table.c[c] for c in cols)).where(table.c.id.between(keys[0], keys[-1]))
    at = cols.index("id")
    return {str(row[at]): dict(zip(cols, row, strict=True))
            for row in conn.execute(q).all()}


def append_batch(conn: Connection, items: Iterable[tuple[str, str]],
                 aside: list[tuple[str, str, str]] | None = None,
                 states: Iterable[tuple[str, str]] = ()) -> int:
    """Chain the rows ``items`` (table, key), and the full content of the state rows
    ``states`` (table, key), with ONE chain row after the current head (a batch link).
    Returns how many rows ``items`` covers.  A row that does not exist is put in ``aside``
    (table, key, why) when a list is given (the seal: a journal row nobody can account for),
    else refused."""
    tables = _tables()
    full: dict[str, dict[str, dict[str, Any]]] = {}  # state rows read whole, by table and key

    def read_full(tbl: str, table: Table, keys: Sequence[Any]) -> dict[str, dict[str, Any]]:
        have = full.setdefault(tbl, {})
        missing = [k for k in keys if str(k) not in have]
        if missing:
            have.update(_read_keys(conn, table, missing, full_columns(table)))
        return have

    def read(tbl: str, table: Table, keys: Sequence[Any]) -> Mapping[str, Mapping[str, Any]]:
        if tbl not in STATE:
            return _read_keys(conn, table, keys)
        # a state row inserted: read whole once, for both its hashes
        fixed = chained_columns(table)
        return {k: {c: row[c] for c in fixed}
                for k, row in read_full(tbl, table, keys).items()}

    members, parts, count = _hashed(tables, items, read, row_hash, aside=aside)
    state_members, state_parts, _n = _hashed(tables, states, read_full, state_hash,
                                             only=STATE, aside=aside)
    if not members and not state_members:
        return 0
    text_ = encode_members(members)
    hashes = b"".join(parts)
    st_text: str | None = None
    st_hashes: bytes | None = None
    if state_members:
        st_text, st_hashes = encode_members(state_members), b"".join(state_parts)
    digest = batch_hash(text_, hashes, st_text, st_hashes)
    n, prev = chain_head(conn)
    n += 1
    row = {"n": n, "tbl": BATCH, "row_key": str(n), "row_hash": digest, "prev_hash": prev,
           "hash": link_hash(n, BATCH, str(n), digest, prev), "members": text_,
           "hashes": hashes}
    if st_text is None:
        conn.execute(text("INSERT INTO ledger_chain (n, tbl, row_key, row_hash, prev_hash, "
                          "hash, members, hashes) VALUES (:n, :tbl, :row_key, :row_hash, "
                          ":prev_hash, :hash, :members, :hashes)"), row)
    else:
        conn.execute(text("INSERT INTO ledger_chain (n, tbl, row_key, row_hash, prev_hash, "
                          "hash, members, hashes, states, state_hashes) VALUES (:n, :tbl, "
                          ":row_key, :row_hash, :prev_hash, :hash, :members, :hashes, "
                          ":states, :state_hashes)"),
                     {**row, "states": st_text, "state_hashes": st_hashes})
    return count


def _hashed(tables: Mapping[str, Table], items: Iterable[tuple[str, str]], read: Any,
            hasher: Any, only: Mapping[str, Any] | None = None,
            aside: list[tuple[str, str, str]] | None = None
            ) -> tuple[Members, list[bytes], int]:
    """The members (table, sorted keys) of ``items``, their content hashes (``hasher`` over
    what ``read`` reads back, one scan per table) and how many rows they are.  A row that is
    not there goes to ``aside`` when a list is given, else it is refused."""
    grouped: dict[str, list[str]] = {}
    for tbl, key in items:
        if tbl not in tables or (only is not None and tbl not in only):
            raise RuntimeError(f"ledger chain: {tbl!r} is not a chained table")
        grouped.setdefault(tbl, []).append(key)
    members: Members = []
    parts: list[bytes] = []
    count = 0
    for tbl, raw in grouped.items():
        table = tables[tbl]
        keys: list[Any] = sorted({_key_value(table, k) for k in raw})
        content = read(tbl, table, keys)
        found: list[Any] = []
        for k in keys:
            key = str(k)
            values = content.get(key)
            if values is None:
                if aside is None:
                    raise RuntimeError(f"ledger chain: row {tbl} {key} vanished before it was "
                                       "sealed")
                aside.append((tbl, key, "no such row"))
                continue
            parts.append(hasher(tbl, key, values))
            found.append(k)
        if found:
            members.append((tbl, found))
            count += len(found)
    return members, parts, count


MAX_RUN = 1_000_000
"""The most keys one journal row may note (one INSERT statement's run); a longer run is not
Podium's and is set aside unread."""


def accountable(noted: Iterable[Sequence[Any]], *, runs: bool = True
                ) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """Journal rows (id, tbl, row_key) as the (table, key) rows they note, and those nobody can
    account for (table, key, why): a table that is not chained, a key that is not one of its
    keys, a run longer than :data:`MAX_RUN` (any run without ``runs``: SQLite's row triggers
    note one key a row).  Only Podium's triggers write the journal, but a
    login with a writer's rights (or a raw SQLite connection) can insert there too: its rows
    must never stop the floor's seal (issue 23)."""
    tables = _tables()
    items: list[tuple[str, str]] = []
    aside: list[tuple[str, str, str]] = []
    for row in noted:
        tbl, key = str(row[1])[:64], str(row[2])[:200]
        name = tbl.removesuffix(STATE_MARK)  # ``rounds~``: a state row updated (rev. 0024)
        table = tables.get(name)
        if table is None or (name != tbl and name not in STATE):
            aside.append((tbl, key, "not a chained table"))
            continue
        if table.c.id.type.python_type is not int:
            items.append((tbl, key))  # a text key, whole (a missing row is set aside later)
            continue
        first, sep, last = key.partition("..")
        if sep:
            if not (runs and _plain_int(first) and _plain_int(last)
                    and 0 <= int(last) - int(first) < MAX_RUN):
                aside.append((tbl, key, "not a run of this table's keys"))
                continue
            items += [(tbl, str(k)) for k in range(int(first), int(last) + 1)]
        elif not _plain_int(key):
            aside.append((tbl, key, "not a key of this table"))
        else:
            items.append((tbl, key))
    return items, aside


def _plain_int(value: str) -> bool:
    """An integer key as a trigger writes it (digits, at most 19: a 64-bit id)."""
    return value.isascii() and value.isdigit() and len(value) <= 19


def set_aside(conn: Connection, aside: Sequence[tuple[str, str, str]]) -> None:
    """Keep journal rows the seal could not account for in ``ledger_journal_incidents``
    (revision 0023) instead of failing the transaction: ``podium audit verify`` reports them
    (``core.ledger.audit.journal_incidents``)."""
    from datetime import UTC, datetime

    from sqlalchemy import insert

    from core.ledger.models import LedgerJournalIncident

    pg = conn.dialect.name == "postgresql"
    tx = conn.execute(text("SELECT txid_current()")).scalar() if pg else None
    now = datetime.now(UTC)
    conn.execute(insert(LedgerJournalIncident),
                 [{"tbl": t, "row_key": k, "reason": w, "tx": tx, "noted_at": now}
                  for t, k, w in aside])
    log.warning("ledger chain: %d journal row(s) nobody can account for set aside (first: %s "
                "%s, %s); podium audit verify reports them", len(aside), aside[0][0][:64],
                aside[0][1][:64], aside[0][2])


def seal(conn: Connection) -> int:
    """Chain the rows this transaction inserted (from the journal) with one batch link and
    empty its journal.  Returns how many rows were chained.  A journal row that names no row
    Podium could have inserted is set aside as an incident (revision 0023), never a failure."""
    pg = conn.dialect.name == "postgresql"
    where = " WHERE tx = txid_current()" if pg else ""
    # taken and emptied in one statement (the transaction's own rows: nobody else sees them)
    noted = sorted(conn.execute(text(f"DELETE FROM ledger_journal{where} "
                                     "RETURNING id, tbl, row_key")).all())
    if not noted:
        return 0
    if not _incidents_installed(conn):  # a ledger being migrated through 0014 to 0022
        if pg:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": CHAIN_LOCK_KEY})
        items = [(str(r[1]), k) for r in noted for k in journal_keys(str(r[2]))]
        return append_batch(conn, items) if _batch_installed(conn) else append(conn, items)
    if pg:
        locks.take(conn, locks.CHAIN)  # a row lock only a writer can take (revision 0023)
    items, aside = accountable(noted, runs=pg)
    items, states = split_states(items)
    if not _states_installed(conn):
        states = []
    count = append_batch(conn, items, aside, states)
    if aside:
        set_aside(conn, aside)
    return count


def split_states(noted: Iterable[tuple[str, str]]
                 ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Rows (table, key) noted by the journal as the rows to chain and the state rows whose
    full content to chain: a state row inserted is both; a state row updated (``rounds~``,
    revision 0024) the second only."""
    items: list[tuple[str, str]] = []
    states: list[tuple[str, str]] = []
    for tbl, key in noted:
        if tbl.endswith(STATE_MARK):
            states.append((tbl[:-len(STATE_MARK)], key))
            continue
        items.append((tbl, key))
        if tbl in STATE:
            states.append((tbl, key))
    return items, states


_DIRTY = "podium_chain_dirty"


def install(engine: Engine) -> None:
    """Seal every transaction of ``engine`` that inserted chained rows, just before it commits
    (called by ``core.ledger.db.make_engine`` for every ledger engine)."""
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _journal_function(dbapi_connection: Any, record: Any) -> None:
            record.info[_DIRTY] = False

            def noted() -> int:
                record.info[_DIRTY] = True
                return 1

            dbapi_connection.create_function("podium_journal", 0, noted)
    else:
        @event.listens_for(engine, "before_cursor_execute")
        def _note_insert(conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
            # an INSERT journals new rows; an UPDATE of a state row journals it (rev. 0024)
            verb = statement[:6].upper()
            if verb == "INSERT" or (verb == "UPDATE" and _updated(statement) in STATE):
                conn.info[_DIRTY] = True

    @event.listens_for(engine, "commit")
    def _seal(conn: Connection) -> None:
        if conn.info.get(_DIRTY):
            if _chain_installed(conn):
                seal(conn)
            conn.info[_DIRTY] = False

    @event.listens_for(engine, "rollback")
    def _clear(conn: Connection) -> None:
        # a connection that died with its server (a failover) has no info to clear: its
        # successor starts with none; touching it would raise PendingRollbackError over the
        # disconnect, and the connection would never go back to the pool
        if not conn.invalidated:
            conn.info[_DIRTY] = False


def _batch_installed(conn: Connection) -> bool:
    """Whether ``ledger_chain`` has revision 0021's batch columns (a ledger being migrated
    through 0014 to 0020 seals row by row, as those revisions did)."""
    return _chain_column(conn, "members")


def _chain_column(conn: Connection, column: str) -> bool:
    """Whether ``ledger_chain`` has ``column`` (remembered on the connection once found: a
    column, once there, stays)."""
    flag = f"podium_chain_has_{column}"
    if conn.info.get(flag):
        return True
    pg = conn.dialect.name == "postgresql"
    found = conn.execute(text(
        "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = 'ledger_chain' AND column_name = :c" if pg else
        "SELECT count(*) FROM pragma_table_info('ledger_chain') WHERE name = :c"),
        {"c": column}).scalar()
    if found:
        conn.info[flag] = True
    return bool(found)


def _incidents_installed(conn: Connection) -> bool:
    """Whether this ledger has revision 0023 (writers' lock rows, journal incidents)."""
    if conn.info.get("podium_incidents_installed"):
        return True
    pg = conn.dialect.name == "postgresql"
    found = conn.execute(text("SELECT to_regclass('ledger_journal_incidents') IS NOT NULL"
                              if pg else "SELECT count(*) FROM sqlite_master WHERE type = "
                              "'table' AND name = 'ledger_journal_incidents'")).scalar()
    if found:
        conn.info["podium_incidents_installed"] = True
    return bool(found)


def _updated(statement: str) -> str:
    """The table an ``UPDATE`` statement names."""
    words = statement[6:].split(None, 1)
    return words[0].strip('"') if words else ""


def _states_installed(conn: Connection) -> bool:
    """Whether ``ledger_chain`` has revision 0024's ``states`` column (a ledger being migrated
    through 0021 to 0023 chains no state content)."""
    return _chain_column(conn, "states")


def _chain_installed(conn: Connection) -> bool:
    """Whether this ledger has the chain (a ledger being migrated from before revision 0014, or
    held at an older revision, has no journal to seal)."""
    if conn.info.get("podium_chain_installed"):
        return True
    pg = conn.dialect.name == "postgresql"
    found = conn.execute(text("SELECT to_regclass('ledger_journal') IS NOT NULL" if pg else
                              "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                              "AND name = 'ledger_journal'")).scalar()
    if found:
        conn.info["podium_chain_installed"] = True
    return bool(found)


# ---------------------------------------------------------------- the database's own guards

_PG_FUNCTIONS = (
    """CREATE OR REPLACE FUNCTION podium_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger table % is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'P0001';
END $$""",
    """CREATE OR REPLACE FUNCTION podium_guard_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger table %: DELETE refused', TG_TABLE_NAME USING ERRCODE = 'P0001';
  END IF;
  IF (to_jsonb(NEW) - TG_ARGV) IS DISTINCT FROM (to_jsonb(OLD) - TG_ARGV) THEN
    RAISE EXCEPTION 'ledger table %: only % may change in place', TG_TABLE_NAME,
      array_to_string(TG_ARGV, ', ') USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$""",
    """CREATE OR REPLACE FUNCTION podium_journal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx) VALUES (TG_TABLE_NAME, NEW.id::text,
                                                        txid_current());
  RETURN NULL;
END $$""",
    # revision 0021: one journal statement per INSERT statement (a transition table), not a
    # trigger call per row
    """CREATE OR REPLACE FUNCTION podium_journal_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME, r.id::text, txid_current() FROM podium_new r;
  RETURN NULL;
END $$""",
    # ... and for a table with integer keys, one journal row per run of keys ("101..600")
    """CREATE OR REPLACE FUNCTION podium_journal_runs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME, CASE WHEN min(id) = max(id) THEN min(id)::text
                               ELSE min(id)::text || '..' || max(id)::text END, txid_current()
    FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM podium_new) r
    GROUP BY run;
  RETURN NULL;
END $$""",
)


def pg_journal_trigger(table: str) -> str:
    """The journal trigger of a chained table on PostgreSQL: one statement per INSERT
    statement notes every row it inserted, a table with integer keys as runs of keys
    (``101..600``: one journal row for a whole batch's rows), others key by key (revision
    0021; before, a trigger call and a journal row per row)."""
    from core.ledger.models import Base

    numeric = Base.metadata.tables[table].c.id.type.python_type is int
    function = "podium_journal_runs" if numeric else "podium_journal_rows"
    return (f"CREATE TRIGGER podium_journal AFTER INSERT ON {table} REFERENCING NEW TABLE AS "
            f"podium_new FOR EACH STATEMENT EXECUTE PROCEDURE {function}()")


_PG_STATE_FUNCTIONS = (
    # revision 0024: a state row UPDATEd is journaled as "table~", runs of integer keys as above
    """CREATE OR REPLACE FUNCTION podium_journal_state_rows() RETURNS trigger LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME || '~', r.id::text, txid_current() FROM podium_new r;
  RETURN NULL;
END $$""",
    """CREATE OR REPLACE FUNCTION podium_journal_state_runs() RETURNS trigger LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO ledger_journal (tbl, row_key, tx)
    SELECT TG_TABLE_NAME || '~', CASE WHEN min(id) = max(id) THEN min(id)::text
                               ELSE min(id)::text || '..' || max(id)::text END, txid_current()
    FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM podium_new) r
    GROUP BY run;
  RETURN NULL;
END $$""",
)


def pg_state_functions_ddl() -> tuple[str, ...]:
    return _PG_STATE_FUNCTIONS


STATE_JOURNAL_PG = "podium_journal_state"


def state_journal_trigger(dialect: str, table: str) -> str:
    """The trigger that journals every UPDATE of a state table (revision 0024), so the seal
    chains the row's new content: on PostgreSQL one statement per UPDATE statement (a
    transition table), on SQLite a row trigger through ``podium_journal()`` (the bare
    ``sqlite3`` tool has no such function: its UPDATE is refused)."""
    from core.ledger.models import Base

    if dialect == "postgresql":
        numeric = Base.metadata.tables[table].c.id.type.python_type is int
        function = "podium_journal_state_runs" if numeric else "podium_journal_state_rows"
        return (f"CREATE TRIGGER {STATE_JOURNAL_PG} AFTER UPDATE ON {table} REFERENCING NEW "
                f"TABLE AS podium_new FOR EACH STATEMENT EXECUTE PROCEDURE {function}()")
    return (f"CREATE TRIGGER podium_{table}_journal_state AFTER UPDATE ON {table} BEGIN "
            f"INSERT INTO ledger_journal (tbl, row_key) SELECT '{table}{STATE_MARK}', "
            "CAST(NEW.id AS TEXT) WHERE podium_journal() = 1; END")


def journal_keys(key: str) -> list[str]:
    """The keys one journal row notes: one, or a run ``first..last`` of integer keys."""
    first, sep, last = key.partition("..")
    if sep and first.isdigit() and last.isdigit():
        return [str(k) for k in range(int(first), int(last) + 1)]
    return [key]


def _quote_list(names: Iterable[str]) -> str:
    return ", ".join(f"'{n}'" for n in sorted(names))


def protect_ddl(dialect: str, table: str, columns: Sequence[str],
                mutable: Iterable[str] | None, *, chained: bool = True,
                state_journal: bool = False) -> list[str]:
    """The statements that guard ``table``: no UPDATE / DELETE (``mutable`` None), or no DELETE
    and UPDATE of ``mutable`` columns only; and, if ``chained``, the journal trigger (and, if
    ``state_journal``, the UPDATE journal of a state table: a migration from revision 0024 on
    that re-guards a state table passes it).  ``columns``: the table's columns (SQLite's
    guard names the ones that must not change)."""
    out: list[str] = []
    if state_journal and mutable is not None:
        out.append(state_journal_trigger(dialect, table))
    if dialect == "postgresql":
        if mutable is None:
            out.append(f"CREATE TRIGGER podium_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE PROCEDURE podium_refuse()")
        else:
            out.append(f"CREATE TRIGGER podium_guard_state BEFORE UPDATE OR DELETE ON {table} "
                       f"FOR EACH ROW EXECUTE PROCEDURE podium_guard_state("
                       f"{_quote_list(mutable)})")
        out.append(f"CREATE TRIGGER podium_no_truncate BEFORE TRUNCATE ON {table} "
                   "FOR EACH STATEMENT EXECUTE PROCEDURE podium_refuse()")
        if chained:
            out.append(pg_journal_trigger(table))
        return out
    if mutable is None:
        out.append(f"CREATE TRIGGER podium_{table}_no_update BEFORE UPDATE ON {table} BEGIN "
                   f"SELECT RAISE(ABORT, 'ledger table {table} is append-only: UPDATE "
                   "refused'); END")
    else:
        fixed = [c for c in columns if c not in set(mutable)]
        changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in fixed)
        allowed = ", ".join(sorted(mutable))
        out.append(f"CREATE TRIGGER podium_{table}_no_update BEFORE UPDATE ON {table} "
                   f"WHEN {changed} BEGIN SELECT RAISE(ABORT, 'ledger table {table}: only "
                   f"{allowed} may change in place'); END")
    out.append(f"CREATE TRIGGER podium_{table}_no_delete BEFORE DELETE ON {table} BEGIN "
               f"SELECT RAISE(ABORT, 'ledger table {table}: DELETE refused'); END")
    if chained:
        out.append(f"CREATE TRIGGER podium_{table}_journal AFTER INSERT ON {table} BEGIN "
                   f"INSERT INTO ledger_journal (tbl, row_key) SELECT '{table}', "
                   "CAST(NEW.id AS TEXT) WHERE podium_journal() = 1; END")
    return out


def unprotect_ddl(dialect: str, table: str) -> list[str]:
    if dialect == "postgresql":
        return [f"DROP TRIGGER IF EXISTS {name} ON {table}" for name in (
            "podium_append_only", "podium_guard_state", "podium_no_truncate", "podium_journal",
            STATE_JOURNAL_PG)]
    return [f"DROP TRIGGER IF EXISTS podium_{table}_{what}"
            for what in ("no_update", "no_delete", "journal", "journal_state")]


def pg_functions_ddl() -> tuple[str, ...]:
    return _PG_FUNCTIONS


def pg_grants_ddl(append_only: Iterable[str], state: Mapping[str, Iterable[str]],
                  derived: Iterable[str]) -> list[str]:
    """The application's role: it may read everything, insert records, change state columns
    and derived tables; it holds no UPDATE / DELETE / TRUNCATE on a record."""
    role = WRITER_ROLE
    out = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN "
        f"CREATE ROLE {role} NOLOGIN; END IF; END $$",
        f"DO $$ BEGIN EXECUTE format('GRANT USAGE ON SCHEMA %I TO {role}', current_schema()); "
        "END $$",
        f"DO $$ BEGIN EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO "
        f"{role}', current_schema()); END $$",
    ]
    for t in append_only:
        out.append(f"REVOKE ALL ON {t} FROM {role}")
        out.append(f"GRANT SELECT, INSERT ON {t} TO {role}")
    for t, cols in state.items():
        out.append(f"REVOKE ALL ON {t} FROM {role}")
        out.append(f"GRANT SELECT, INSERT ON {t} TO {role}")
        out.append(f"GRANT UPDATE ({', '.join(sorted(cols))}) ON {t} TO {role}")
    for t in derived:
        out.append(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {t} TO {role}")
    out.append(f"GRANT SELECT ON alembic_version TO {role}")  # the console checks the revision
    return out
