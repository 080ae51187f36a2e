"""The ledger's tamper evidence: what may change, and the hash chain over every row.  This
module seals: it writes the chain; what is chained and how a row is hashed is
core/ledger/chain.py, the triggers' and grants' SQL core/ledger/guards.py, the verification
core/ledger/audit.py.

Three kinds of tables (docs/ledger.md "Tamper evidence"):

- **Append-only** (:data:`chain.APPEND_ONLY`): the records an auditor reads (meter entries, awards,
  decisions, slips, swipes, controller events ...).  The database itself refuses UPDATE and
  DELETE on them (triggers on SQLite and PostgreSQL; on PostgreSQL also TRUNCATE, and the
  application's role ``podium_writer`` holds no such privilege).
- **State** (:data:`chain.STATE`): rows with a few columns that follow a workflow in place (a hit's
  status, a round's state, an employee's card).  DELETE is refused, and an UPDATE that touches
  any other column is refused; the history of the state columns is in the append-only tables
  (decisions, controller events, employee events, parameter changes).
- **Derived** (everything else: kept balances, hourly totals, settings, the journal): free, and
  re-checked against the records they derive from by ``podium audit verify``.

A state row's **whole content** (every column, the state ones included) is chained too, when it
is inserted and after every UPDATE (revision 0024): an AFTER UPDATE trigger journals the row as
``table~`` and the seal puts its full-content hash (:func:`chain.state_hash`) in the batch link's
``states`` / ``state_hashes``, so ``podium audit verify`` checks each state row's current
content against the latest state the ledger recorded (a round moved back from ended to locked,
a hit's verified cards rewritten).  On SQLite that trigger calls ``podium_journal()`` as the
insert journal does: the bare ``sqlite3`` tool can no longer UPDATE a state table.

Every row of an append-only or state table is **chained** when its transaction commits: its
content (every column of an append-only row; the columns that never change of a state row) is
hashed (:func:`chain.row_hash`), and a ``ledger_chain`` row carries that hash, the previous
chain row's hash and its own (:func:`chain.link_hash`).  The chain is one line through the
whole ledger in commit order, so the newest hash (the *chain head*, printed on every win page
and daily report) vouches for every row before it: a copy of it kept outside the casino proves
the past.

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

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, event, select, text

from core.ledger import locks
from core.ledger.chain import (
    BATCH,
    CHAINED,
    GENESIS,
    STATE,
    STATE_MARK,
    Members,
    batch_hash,
    chained_columns,
    decode_members,
    encode_members,
    full_columns,
    link_hash,
    row_hash,
    state_hash,
)

log = logging.getLogger("podium.ledger")

CHAIN_LOCK_KEY = 7_411_820_461  # the seal's advisory key up to revision 0022 (migrations only)
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
    from datetime import UTC

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


def journal_keys(key: str) -> list[str]:
    """The keys one journal row notes: one, or a run ``first..last`` of integer keys."""
    first, sep, last = key.partition("..")
    if sep and first.isdigit() and last.isdigit():
        return [str(k) for k in range(int(first), int(last) + 1)]
    return [key]
