"""``podium audit verify``: re-read the whole ledger and say whether it is what Podium wrote.

Checks, each naming the row it finds broken (docs/ledger.md "Tamper evidence"):

1. **guards**: the database's triggers that refuse UPDATE / DELETE are all in place;
2. **journal**: no row waits unsealed (one left was inserted outside Podium);
3. **chain**: chain rows 1..n without a gap, each linking to the one before, each hash right;
4. **rows**: every row of every chained table has its chain row, with the same content hash;
   every chain row still has its row;
5. **meters**: every level's kept balance and hourly totals equal the sums of its entries;
   and (**hours**) every hourly total, per level, hour and kind and per table and hour, is
   recomputed from the entries and rounds it sums, hour by hour;
6. **pays**: every paid hit has exactly one award and a pay decision, every award a paid hit;
7. **slips**: slip numbers 1..n without a gap, each slip's award is its hit's, and the slip's
   stored bytes print its award's amount;
8. **incidents** (revision 0023): journal rows the seal set aside (they named no row Podium
   wrote), and the journal's own guard triggers;
9. **voids**: a void with the money returned has reversal entries that exactly negate its
   award's meter movements (each movement reversed once, on its level, by the negated
   amounts); a void without it, and an award not void, has none;
10. **people**: every employee's card, PIN and active flag (state columns, changed in place) are
   what its latest ``employee_events`` row says they became (its ``state_digest``,
   core/ledger/people.py): a card swapped or a PIN cleared outside Podium is a break naming the
   employee;
11. **states**: every state row's whole content (its state columns included) is what the
   ledger last chained for it (revision 0024: at its insert and after every UPDATE);
12. **settings**: ``settings.card_key_id`` is the card key the records last name;
13. **integrity** (SQLite): ``PRAGMA quick_check`` finds the file sound.

The first break is the one with the lowest chain position (a row's place in the ledger's
history); checks 1, 2, 5, 12 and 13 have no position and come first.

Here: the run (:func:`verify`) and checks 1 to 5, 8, 12 and 13; the records' checks (6, 7, 9,
10) are core/ledger/audit_records.py, the state rows' (11) core/ledger/audit_states.py, the
report and its breaks core/ledger/audit_report.py.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

from sqlalchemy import Connection, Engine, Table, cast, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import BigInteger

from core.ledger import chain, guards, integrity
from core.ledger.audit_records import check_pays, check_people, check_slips, check_voids
from core.ledger.audit_report import Batches, Break, Report, next_row
from core.ledger.audit_states import check_states
from core.ledger.balance_checks import check_balances, check_hours, check_table_totals
from core.ledger.db import reader
from core.ledger.models import Base
from core.people.auth import CARD_KEY_ID, recorded_card_key


def parse_head(text_: str) -> tuple[int, str]:
    """A chain head as a win page or daily report prints it, ``ROW:HASH`` (a leading "Ledger
    chain head" is allowed), as (row, hash); ValueError naming the form otherwise."""
    body = text_.strip()
    if body.lower().startswith("ledger chain head"):
        body = body[len("ledger chain head"):].strip()
    row, sep, digest = body.partition(":")
    digest = digest.strip().lower()
    if not sep or not row.strip().replace(",", "").isdigit() or len(digest) != 64 or \
            any(c not in "0123456789abcdef" for c in digest):
        raise ValueError(f"chain head {text_.strip()[:100]!r}: expected ROW:HASH, e.g. "
                         "1234:<64 hex digits>")
    return int(row.replace(",", "")), digest


def verify(engine: Engine, heads: Sequence[tuple[int, str]] = ()) -> Report:
    """Every check above, on one consistent snapshot of the ledger where the database gives one
    (PostgreSQL: REPEATABLE READ; SQLite: one read transaction).

    ``heads``: chain heads kept outside the casino (from win pages and daily reports), as
    (row, hash).  A ledger rewritten by someone who also recomputed the chain after the edit
    passes every check of the ledger alone; it fails here, at the first kept head after the
    edit."""
    report = Report()
    kept = dict(heads)
    # SQLite: the reader engine (a WAL snapshot, never the write lock: a live podium goes on)
    eng = engine.execution_options(isolation_level="REPEATABLE READ") \
        if engine.dialect.name == "postgresql" else reader(engine)
    with eng.connect() as conn:
        _quick_check(conn, report)
        _guards(conn, report)
        _journal(conn, report)
        journal_incidents(conn, report)
        batches = report.batches = _chain(conn, report, kept)
        for name in chain.CHAINED:
            _rows(conn, Base.metadata.tables[name], report, batches)
        check_states(conn, report, batches)
        check_pays(conn, report)
        check_slips(conn, report)
        check_voids(conn, report)
        check_people(conn, report)
        _card_key(conn, report)
        conn.rollback()
    report.breaks.extend(Break("meters", p) for p in check_balances(reader(engine)))
    report.breaks.extend(Break("meters", p) for p in check_table_totals(reader(engine)))
    report.breaks.extend(Break("hours", p) for p in check_hours(reader(engine)))
    return report


# ------------------------------------------------------------------------------ the checks

def _guards(conn: Connection, report: Report) -> None:
    report.breaks.extend(Break("guards", p) for p in guard_problems(conn))


def guard_problems(conn: Connection) -> list[str]:
    """The database's guard triggers that are missing (or, on PostgreSQL, disabled).  Cheap:
    the console checks them at every start (a ledger without chain yet has nothing to miss)."""
    guarded = chain.APPEND_ONLY + tuple(chain.STATE) + chain.PROTECTED_EXTRA
    out: list[str] = []
    if conn.dialect.name == "postgresql":
        if not conn.execute(text("SELECT to_regclass('ledger_chain') IS NOT NULL")).scalar():
            return out
        pairs = {(str(t), str(n)) for t, n in conn.execute(text(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal "
            "AND t.tgenabled <> 'D'"))}
        states = _states_installed(conn)
        for table in guarded:
            update = "podium_guard_state" if table in chain.STATE else "podium_append_only"
            wanted = [update, "podium_no_truncate"]
            if table not in chain.PROTECTED_EXTRA:
                wanted.append("podium_journal")
            if states and table in chain.STATE:
                wanted.append(guards.STATE_JOURNAL_PG)
            out += [f"trigger {name} on {table} is missing or disabled" for name in wanted
                    if (table, name) not in pairs]
        return out
    found = {str(n) for n in conn.execute(text(
        "SELECT name FROM sqlite_master WHERE type IN ('trigger', 'table')")).scalars()}
    if "ledger_chain" not in found:
        return out
    states = _states_installed(conn)
    for table in guarded:
        wanted = ["no_update", "no_delete"]
        if table not in chain.PROTECTED_EXTRA:
            wanted.append("journal")
        if states and table in chain.STATE:
            wanted.append("journal_state")
        out += [f"trigger podium_{table}_{what} on {table} is missing" for what in wanted
                if f"podium_{table}_{what}" not in found]
    return out


def _journal(conn: Connection, report: Report) -> None:
    for tbl, key in conn.execute(text("SELECT tbl, row_key FROM ledger_journal ORDER BY id")):
        rows = "rows" if ".." in str(key) else "row"
        tbl, done = str(tbl), "inserted"
        if tbl.endswith(chain.STATE_MARK):
            tbl, done = tbl[:-len(chain.STATE_MARK)], "changed"
        report.breaks.append(Break("journal", f"{tbl} {rows} {key} was {done} but never "
                                              "sealed into the chain (written outside Podium)"))


INCIDENTS_NAMED = 20  # incidents named one by one; the rest are counted


def journal_incidents(conn: Connection, report: Report) -> None:
    """Journal rows the seal set aside (revision 0023, ``ledger_journal_incidents``): rows
    inserted into ``ledger_journal`` that name no row Podium wrote (a table that is not
    chained, a key that is no row).  They stopped nothing (issue 23), but only someone writing
    outside Podium makes one: each is a break.  Also the journal's own guard (PostgreSQL: only
    a journal trigger of this transaction may note a row; SQLite: ``podium_journal()``)."""
    pg = conn.dialect.name == "postgresql"
    if not conn.execute(text("SELECT to_regclass('ledger_journal_incidents') IS NOT NULL" if pg
                             else "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                             "AND name = 'ledger_journal_incidents'")).scalar():
        return
    wanted = ({("ledger_journal", "podium_journal_guard"),
               ("ledger_journal_incidents", "podium_append_only"),
               ("ledger_journal_incidents", "podium_no_truncate")} if pg else
              {("ledger_journal", "podium_ledger_journal_guard"),
               ("ledger_journal_incidents", "podium_ledger_journal_incidents_no_update"),
               ("ledger_journal_incidents", "podium_ledger_journal_incidents_no_delete")})
    found = {(str(t), str(n)) for t, n in conn.execute(text(
        "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal "
        "AND t.tgenabled <> 'D'" if pg else
        "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'"))}
    report.breaks.extend(Break("incidents", f"trigger {n} on {t} is missing or disabled")
                         for t, n in sorted(wanted - found))
    total = int(conn.execute(text("SELECT count(*) FROM ledger_journal_incidents")).scalar()
                or 0)
    for id_, tbl, key, why, at in conn.execute(text(
            "SELECT id, tbl, row_key, reason, noted_at FROM ledger_journal_incidents "
            f"ORDER BY id LIMIT {INCIDENTS_NAMED}")):
        report.breaks.append(Break("incidents", f"journal incident #{id_}: a journal row "
                                   f"naming {str(tbl)[:64]!r} {str(key)[:64]!r} ({why}) was set "
                                   f"aside at {str(at)[:19]} UTC (written outside Podium)"))
    if total > INCIDENTS_NAMED:
        report.breaks.append(Break("incidents", f"and {total - INCIDENTS_NAMED} more journal "
                                   "incident(s)"))


def _chain(conn: Connection, report: Report, kept: Mapping[int, str]) -> Batches:
    expected_n, prev = 1, chain.GENESIS
    batches = Batches(state=Batches())
    batch = chain.BATCH
    extra = ("members, hashes" if _has_batches(conn) else "NULL, NULL") + \
        (", states, state_hashes" if _states_installed(conn) else ", NULL, NULL")
    rows = conn.execution_options(yield_per=5000).execute(text(
        f"SELECT n, tbl, row_key, row_hash, prev_hash, hash, {extra} FROM ledger_chain "
        "ORDER BY n"))
    for n, tbl, key, content, prev_hash, link, members, hashes, states, state_hashes in rows:
        n, content, prev_hash, link = int(n), bytes(content), bytes(prev_hash), bytes(link)
        where = f"batch link {n}" if tbl == batch else f"{tbl} row {key}"
        if n != expected_n:
            report.breaks.append(Break("chain", f"chain row {expected_n} is missing (the next "
                                                f"is {n})", expected_n))
        if prev_hash != prev:
            report.breaks.append(Break("chain", f"{where}: its chain row does not link "
                                                "to the one before it", n))
        if chain.link_hash(n, tbl, key, content, prev_hash) != link:
            report.breaks.append(Break("chain", f"{where}: its chain row's hash is "
                                                "wrong (the chain row was edited)", n))
        if tbl == batch:
            st = None if states is None else str(states)
            st_hashes = None if state_hashes is None else bytes(state_hashes)
            if members is None or hashes is None or chain.batch_hash(
                    str(members), bytes(hashes), st, st_hashes) != content:
                report.breaks.append(Break("chain", f"{where}: its members or their hashes "
                                                    "were edited", n))
                batches.broken = n
            else:
                batches.add(report, n, str(members), bytes(hashes))
                report.covered += len(bytes(hashes)) // 32
                if st is not None and st_hashes is not None:
                    assert batches.state is not None
                    batches.state.add(report, n, st, st_hashes)
        else:
            report.covered += 1
        if n in kept and kept[n] != link.hex():
            report.breaks.append(Break("chain", f"chain row {n} is not the head kept outside "
                                                f"the ledger ({kept[n][:16]}...): the ledger was "
                                                "rewritten at or before it", n))
        prev, expected_n = link, n + 1
        report.rows += 1
        report.head_n, report.head_hash = n, link.hex()
    for n in sorted(k for k in kept if k > report.head_n):
        report.breaks.append(Break("chain", f"chain row {n}, kept outside the ledger, is gone "
                                            f"(the chain ends at row {report.head_n})", n))
    return batches


def _has_batches(conn: Connection) -> bool:
    return bool(integrity._batch_installed(conn))


def _states_installed(conn: Connection) -> bool:
    return bool(integrity._states_installed(conn))


def _rows(conn: Connection, table: Table, report: Report, batches: Batches) -> None:
    """Merge the table's rows (by id) with its chain rows (by key: its own chain rows of
    revisions 0014 to 0020, and the batch links' members), both streamed."""
    name = table.name
    numeric = table.c.id.type.python_type is int
    cols = chain.chained_columns(table)
    data = conn.execution_options(yield_per=5000).execute(
        select(*(table.c[c] for c in cols)).order_by(table.c.id)).mappings()
    chain_q = (select(text("n"), text("row_key"), text("row_hash"))
               .select_from(text("ledger_chain")).where(text("tbl = :tbl")))
    order = cast(text("row_key"), BigInteger) if numeric else text("row_key")
    chained = conn.execution_options(yield_per=5000).execute(
        chain_q.order_by(order), {"tbl": name})
    if not numeric:  # a few rows (groups, tables): keys compared as text, in memory
        by_key = {str(k): (int(n), bytes(h)) for n, k, h in chained}
        by_key.update(batches.keys.get(name, {}))
        count = 0
        for row in data:
            count += 1
            key = str(row["id"])
            _compare(report, name, key, chain.row_hash(name, key, dict(row)),
                     by_key.pop(key, None))
        for key, (n, _h) in sorted(by_key.items(), key=lambda kv: kv[1][0]):
            _deleted(report, name, key, n)
        report.tables[name] = count
        return
    count = 0
    own = ((int(n), str(k), bytes(h)) for n, k, h in chained)
    chain_iter = heapq.merge(own, batches.numbered(name), key=lambda e: int(e[1]))
    pending = next_row(chain_iter)
    for row in data:
        count += 1
        key_int = int(row["id"])
        while pending is not None and int(pending[1]) < key_int:
            _deleted(report, name, pending[1], int(pending[0]))
            pending = next_row(chain_iter)
        entry = None
        if pending is not None and int(pending[1]) == key_int:
            entry = (int(pending[0]), bytes(pending[2]))
            pending = next_row(chain_iter)
        key = str(key_int)
        _compare(report, name, key, chain.row_hash(name, key, dict(row)), entry)
    while pending is not None:
        _deleted(report, name, pending[1], int(pending[0]))
        pending = next_row(chain_iter)
    report.tables[name] = count


def _deleted(report: Report, table: str, key: object, n: int) -> None:
    report.breaks.append(Break("rows", f"{table} row {key} was deleted (chained at row {n})", n))


def _compare(report: Report, table: str, key: str, actual: bytes,
             entry: tuple[int, bytes] | None) -> None:
    if entry is None:
        report.breaks.append(Break("rows", f"{table} row {key} is not in the chain (inserted "
                                           "outside Podium)"))
    elif entry[1] != actual:
        report.breaks.append(Break("rows", f"{table} row {key} was changed after it was "
                                           "written (its content no longer matches its hash)",
                                   entry[0]))


def _card_key(conn: Connection, report: Report) -> None:
    """Check 12: ``settings.card_key_id`` is the fingerprint the records last name (a key id
    changed in place would refuse every swipe as the wrong key)."""
    if not _states_installed(conn):
        return
    setting = conn.execute(text("SELECT value FROM settings WHERE key = :k"),
                           {"k": CARD_KEY_ID}).scalar()
    recorded = recorded_card_key(conn)
    if setting == recorded:
        return
    if recorded is None:
        said = "no record names a card key"
    else:
        said = f"the ledger last recorded {recorded}"
    now = "is missing" if setting is None else f"is {setting}"
    why = "" if setting is None else ": every swipe is refused as the wrong key"
    report.breaks.append(Break("settings", f"settings.{CARD_KEY_ID} {now}, {said} (changed "
                                           f"outside Podium{why})"))


def _quick_check(conn: Connection, report: Report) -> None:
    """Check 13 (SQLite): the file's own structure (``PRAGMA quick_check``: pages, b-trees,
    NOT NULL and CHECK constraints)."""
    if conn.dialect.name != "sqlite":
        return
    try:
        found = [str(r) for r in conn.exec_driver_sql("PRAGMA quick_check").scalars()]
    except DBAPIError as exc:
        report.breaks.append(Break("integrity", f"SQLite quick_check could not read the file: "
                                                f"{str(exc.orig).splitlines()[0][:200]}"))
        return
    if found != ["ok"]:
        report.breaks.extend(Break("integrity", f"SQLite quick_check: {line[:200]}")
                             for line in found[:10])
