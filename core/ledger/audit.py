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
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, Table, cast, func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import BigInteger

from core.kernel.money import format_cents
from core.ledger import chain, guards, integrity
from core.ledger.balance_checks import check_balances, check_hours, check_table_totals
from core.ledger.db import reader
from core.ledger.models import Award, Base, Hit, HitDecision, MeterEntry, Slip, SlipVoid
from core.ledger.people import mismatches
from core.people.auth import CARD_KEY_ID, recorded_card_key

PAID = ("paid", "auto_paid")
ROW_CHECKS = ("rows", "journal", "pays", "slips", "voids", "states")


@dataclass(frozen=True)
class Break:
    """One thing wrong: which check, where (table and key, or chain position) and what."""

    check: str
    message: str
    position: int | None = None  # chain position n, when the break has one

    def line(self) -> str:
        where = f" (chain row {self.position})" if self.position is not None else ""
        return f"{self.check}: {self.message}{where}"


@dataclass
class Report:
    breaks: list[Break] = field(default_factory=list)
    rows: int = 0  # chain rows read
    covered: int = 0  # ledger rows they vouch for (a batch link covers its transaction's rows)
    head_n: int = 0
    head_hash: str = chain.GENESIS.hex()
    tables: dict[str, int] = field(default_factory=dict)  # rows per chained table
    batches: Any = field(default=None, repr=False)  # the batch links read (_Batches)

    @property
    def ok(self) -> bool:
        return not self.breaks

    def first(self) -> Break | None:
        """The first broken row in the ledger's history (the lowest chain position); then a
        row that is not in the chain at all; then the first other break (a guard, a meter)."""
        if not self.breaks:
            return None

        def rank(b: Break) -> tuple[int, int]:
            if b.position is not None:
                return (0, b.position)
            return (1 if b.check in ROW_CHECKS else 2, 0)  # a row outside the chain, then the rest

        return min(self.breaks, key=rank)

    def as_json(self) -> dict[str, Any]:
        first = self.first()
        return {"ok": self.ok, "chain_rows": self.rows, "rows_covered": self.covered,
                "head": {"n": self.head_n, "hash": self.head_hash},
                "tables": dict(sorted(self.tables.items())),
                "first_break": None if first is None else first.line(),
                "breaks": [b.line() for b in self.breaks]}


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
        _states(conn, report, batches)
        _pays(conn, report)
        _slips(conn, report)
        _voids(conn, report)
        _people(conn, report)
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


@dataclass
class _Batches:
    """What the batch links (revision 0021) say each row's content hash is: per table, runs of
    integer keys ``(first, last, n, hashes, offset)`` (the hash of key k is the 32 bytes at
    ``offset + 32 * (k - first)`` of ``hashes``), and text keys one by one."""

    runs: dict[str, list[tuple[int, int, int, bytes, int]]] = field(default_factory=dict)
    keys: dict[str, dict[str, tuple[int, bytes]]] = field(default_factory=dict)
    state: _Batches | None = None  # the state rows chained whole (revision 0024)
    broken: int = 0  # the newest batch link whose members or hashes were edited

    def add(self, report: Report, n: int, members: str, hashes: bytes) -> None:
        try:
            decoded = chain.decode_members(members)
        except ValueError as exc:
            report.breaks.append(Break("chain", f"batch link {n}: its members can not be read "
                                                f"({exc})", n))
            return
        total = sum(len(keys) for _tbl, keys in decoded)
        if len(hashes) != 32 * total:
            report.breaks.append(Break("chain", f"batch link {n}: it names {total} rows but "
                                                f"holds {len(hashes) // 32} hashes", n))
            return
        offset = 0
        for tbl, keys in decoded:
            if keys and isinstance(keys[0], int):
                ints = [int(k) for k in keys]
                first = prev = ints[0]
                start = offset
                for k in ints[1:]:
                    if k == prev + 1:
                        prev = k
                        continue
                    self.runs.setdefault(tbl, []).append((first, prev, n, hashes, start))
                    start += 32 * (prev - first + 1)
                    first = prev = k
                self.runs.setdefault(tbl, []).append((first, prev, n, hashes, start))
                offset = start + 32 * (prev - first + 1)
            else:
                by_key = self.keys.setdefault(tbl, {})
                for key in keys:
                    by_key[str(key)] = (n, hashes[offset:offset + 32])
                    offset += 32

    def numbered(self, table: str) -> Iterator[tuple[int, str, bytes]]:
        """(n, key, hash) of every integer key the batches name for ``table``, by key."""
        runs = sorted(self.runs.get(table, ()))

        def expand(run: tuple[int, int, int, bytes, int]) -> Iterator[tuple[int, str, bytes]]:
            first, last, n, hashes, offset = run
            for i, k in enumerate(range(first, last + 1)):
                at = offset + 32 * i
                yield (n, str(k), hashes[at:at + 32])

        return heapq.merge(*(expand(r) for r in runs), key=lambda e: int(e[1]))

    def latest(self, table: str) -> Iterator[tuple[int, str, bytes]]:
        """(n, key, hash) of every integer key the batches name for ``table``, by key, only
        the newest link's when several name one key (a state row chained after each UPDATE)."""
        runs = sorted(self.runs.get(table, ()))

        def expand(run: tuple[int, int, int, bytes, int]) -> Iterator[tuple[int, int, bytes]]:
            first, last, n, hashes, offset = run
            for i, k in enumerate(range(first, last + 1)):
                at = offset + 32 * i
                yield (k, n, hashes[at:at + 32])

        held: tuple[int, int, bytes] | None = None
        for entry in heapq.merge(*(expand(r) for r in runs)):
            if held is not None and held[0] != entry[0]:
                yield (held[1], str(held[0]), held[2])
            held = entry
        if held is not None:
            yield (held[1], str(held[0]), held[2])


def _chain(conn: Connection, report: Report, kept: Mapping[int, str]) -> _Batches:
    expected_n, prev = 1, chain.GENESIS
    batches = _Batches(state=_Batches())
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


def _rows(conn: Connection, table: Table, report: Report, batches: _Batches) -> None:
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
    pending = _next(chain_iter)
    for row in data:
        count += 1
        key_int = int(row["id"])
        while pending is not None and int(pending[1]) < key_int:
            _deleted(report, name, pending[1], int(pending[0]))
            pending = _next(chain_iter)
        entry = None
        if pending is not None and int(pending[1]) == key_int:
            entry = (int(pending[0]), bytes(pending[2]))
            pending = _next(chain_iter)
        key = str(key_int)
        _compare(report, name, key, chain.row_hash(name, key, dict(row)), entry)
    while pending is not None:
        _deleted(report, name, pending[1], int(pending[0]))
        pending = _next(chain_iter)
    report.tables[name] = count


def _deleted(report: Report, table: str, key: object, n: int) -> None:
    report.breaks.append(Break("rows", f"{table} row {key} was deleted (chained at row {n})", n))


def _next(it: Iterator[Any]) -> Any:
    return next(it, None)


def _compare(report: Report, table: str, key: str, actual: bytes,
             entry: tuple[int, bytes] | None) -> None:
    if entry is None:
        report.breaks.append(Break("rows", f"{table} row {key} is not in the chain (inserted "
                                           "outside Podium)"))
    elif entry[1] != actual:
        report.breaks.append(Break("rows", f"{table} row {key} was changed after it was "
                                           "written (its content no longer matches its hash)",
                                   entry[0]))


def _position(conn: Connection, report: Report, table: str, key: object) -> int | None:
    n = conn.execute(text("SELECT n FROM ledger_chain WHERE tbl = :t AND row_key = :k"),
                     {"t": table, "k": str(key)}).scalar()
    if n is not None:
        return int(n)
    batches = report.batches
    if batches is None:
        return None
    found = batches.keys.get(table, {}).get(str(key))
    if found is not None:
        return int(found[0])
    if isinstance(key, int) or str(key).isdigit():
        k = int(str(key))
        for first, last, at, _h, _o in batches.runs.get(table, ()):
            if first <= k <= last:
                return int(at)
    return None


def _pays(conn: Connection, report: Report) -> None:
    awards = func.count(Award.id)
    q = (select(Hit.id, Hit.status, awards).outerjoin(Award, Award.hit_id == Hit.id)
         .group_by(Hit.id, Hit.status).order_by(Hit.id))
    for hit_id, status, n_awards in conn.execute(q):
        if status in PAID and n_awards != 1:
            report.breaks.append(Break("pays", f"hit #{hit_id} is {status} with {n_awards} "
                                               "awards", _position(conn, report, "hits", hit_id)))
        elif status not in PAID and n_awards:
            report.breaks.append(Break("pays", f"hit #{hit_id} is {status} but has an award",
                                       _position(conn, report, "hits", hit_id)))
    decided = select(HitDecision.hit_id).where(HitDecision.decision.in_(PAID))
    for hit_id in conn.execute(select(Hit.id).where(Hit.status.in_(PAID),
                                                    Hit.id.not_in(decided))).scalars():
        report.breaks.append(Break("pays", f"hit #{hit_id} is paid without a pay decision",
                                   _position(conn, report, "hits", hit_id)))


def _slips(conn: Connection, report: Report) -> None:
    expected = 1
    q = (select(Slip.id, Slip.slip_no, Slip.hit_id, Slip.escpos, Award.hit_id,
                Award.amount_cents)
         .outerjoin(Award, Award.id == Slip.award_id).order_by(Slip.slip_no))
    for slip_id, slip_no, hit_id, escpos, award_hit, amount in \
            conn.execution_options(yield_per=500).execute(q):
        def broken(message: str, slip_id: int = slip_id) -> None:  # looked up only if broken
            report.breaks.append(Break("slips", message, _position(conn, report, "slips", slip_id)))

        if slip_no != expected:
            broken(f"slip {slip_no} follows slip {expected - 1}: numbers are not continuous")
        expected = slip_no + 1
        if award_hit != hit_id:
            broken(f"slip {slip_no}: its award is not its hit's")
            continue
        printed = format_cents(int(amount)).encode("ascii")
        if not isinstance(escpos, bytes | memoryview):
            broken(f"slip {slip_no}: its stored print is not printer bytes")
        elif printed not in bytes(escpos):
            broken(f"slip {slip_no}: the printed slip does not show its award's amount "
                   f"{printed.decode()}")


def _voids(conn: Connection, report: Report) -> None:
    """Check 9: what each void gave back to the meters is exactly what its award took."""
    voids = {int(award_id): (int(void_id), int(slip_no), int(hit_id), bool(returned))
             for void_id, slip_no, hit_id, award_id, returned in conn.execute(
                 select(SlipVoid.id, Slip.slip_no, Slip.hit_id, Slip.award_id,
                        SlipVoid.money_returned)
                 .join(Slip, Slip.id == SlipVoid.slip_id).order_by(SlipVoid.id))}
    # every reversal that names an award is a void's (a lock given back names only its hit)
    reversals: dict[int, list[Any]] = {}
    for row in conn.execute(select(MeterEntry.id, MeterEntry.award_id, MeterEntry.level_id,
                                   MeterEntry.meter_delta, MeterEntry.reserve_delta,
                                   MeterEntry.reverses_id)
                            .where(MeterEntry.kind == "reversal",
                                   MeterEntry.award_id.is_not(None))
                            .order_by(MeterEntry.id)):
        reversals.setdefault(int(row.award_id), []).append(row)
    for award_id in sorted(set(reversals) - set(voids)):
        first = reversals[award_id][0]
        report.breaks.append(Break("voids", f"meter entry {first.id} reverses award "
                                            f"#{award_id}, which no void gave back",
                                   _position(conn, report, "meter_entries", first.id)))
    for award_id, (void_id, slip_no, hit_id, returned) in voids.items():
        got = reversals.get(award_id, [])

        def broken(message: str, void_id: int = void_id) -> None:
            report.breaks.append(Break("voids", message,
                                       _position(conn, report, "slip_voids", void_id)))

        if not returned:
            if got:
                broken(f"win slip {slip_no}: voided without the money back, yet {len(got)} "
                       "reversal entries give its award back")
            continue
        lock_returns = select(MeterEntry.reverses_id).where(
            MeterEntry.hit_id == hit_id, MeterEntry.kind == "reversal",
            MeterEntry.reverses_id.is_not(None), MeterEntry.award_id.is_(None))
        moved = {int(r.id): r for r in conn.execute(
            select(MeterEntry.id, MeterEntry.level_id, MeterEntry.meter_delta,
                   MeterEntry.reserve_delta)
            .where((MeterEntry.hit_id == hit_id) | (MeterEntry.award_id == award_id),
                   MeterEntry.kind != "reversal", MeterEntry.id.not_in(lock_returns)))
            if r.meter_delta or r.reserve_delta}
        seen: set[int] = set()
        for r in got:
            target = moved.get(int(r.reverses_id)) if r.reverses_id is not None else None
            if target is None:
                broken(f"win slip {slip_no}: reversal entry {r.id} does not reverse one of its "
                       "award's movements")
            elif int(r.reverses_id) in seen:
                broken(f"win slip {slip_no}: movement {r.reverses_id} of its award is reversed "
                       "twice")
            elif (r.level_id, r.meter_delta, r.reserve_delta) != \
                    (target.level_id, -target.meter_delta, -target.reserve_delta):
                broken(f"win slip {slip_no}: reversal entry {r.id} does not negate movement "
                       f"{target.id} exactly")
            if r.reverses_id is not None:
                seen.add(int(r.reverses_id))
        for missing in sorted(set(moved) - seen):
            broken(f"win slip {slip_no}: movement {missing} of its award was not given back by "
                   "its void")


def _people(conn: Connection, report: Report) -> None:
    """Check 10: each employee row against the digest of its latest event."""
    for m in mismatches(conn):
        if m.event_id is None:
            what = "no employee event vouches for its card, PIN and active flag"
        else:
            what = (f"its card, PIN or active flag is not what its latest event (#{m.event_id}) "
                    "recorded: changed outside Podium")
        report.breaks.append(Break("people", f"employee {m.number} ({m.name}): {what}",
                                   None if m.event_id is None else
                                   _position(conn, report, "employee_events", m.event_id)))


# ------------------------------------------------------- state, settings, file (rev. 0024)

_GUESSED = 32  # a state column with at most this many values is guessed back (see _recorded)
_NAMED = 50  # state breaks explained in full; beyond, counted
_SECRET = frozenset({"card_mac", "pin", "card_hash", "card_salt", "card_iterations"})
_KNOWN: dict[tuple[str, str], tuple[Any, ...]] = {  # the values a state column takes
    ("rounds", "state"): ("locked", "ended", "misdealt", "undone"),
    ("wagers", "status"): ("locked", "refused", "returned"),
    ("hits", "status"): ("pending", "paid", "auto_paid", "rejected", "cancelled"),
    ("tables", "online"): (True, False),
    ("groups", "lock_at_hit"): (True, False),
    ("employees", "active"): (True, False),
}


def _states(conn: Connection, report: Report, batches: _Batches) -> None:
    """Check 11: every state row's whole content against the newest full-content hash the chain
    holds for it (its insert, or its latest UPDATE through Podium)."""
    if batches.state is None or not _states_installed(conn):
        return
    for name in chain.STATE:
        _state_rows(conn, Base.metadata.tables[name], report, batches.state, batches.broken)


def _state_rows(conn: Connection, table: Table, report: Report, chained: _Batches,
                broken: int) -> None:
    """A row whose newest chained state is older than a link that can not be read may have
    changed in that link: the chain's break says so, not this check."""
    name = table.name
    cols = chain.full_columns(table)
    data = conn.execution_options(yield_per=5000).execute(
        select(*(table.c[c] for c in cols)).order_by(table.c.id)).mappings()
    wrong: list[tuple[dict[str, Any], tuple[int, bytes] | None]] = []

    def check(row: dict[str, Any], entry: tuple[int, bytes] | None) -> None:
        changed = entry is None or chain.state_hash(name, str(row["id"]), row) != entry[1]
        if changed and (not broken or (entry is not None and entry[0] > broken)):
            wrong.append((row, entry))

    if table.c.id.type.python_type is not int:
        by_key = chained.keys.get(name, {})
        for mapping in data:
            check(dict(mapping), by_key.get(str(mapping["id"])))
    else:
        latest = chained.latest(name)
        pending = _next(latest)
        for mapping in data:
            k = int(mapping["id"])
            while pending is not None and int(pending[1]) < k:  # deleted: check 4 says so
                pending = _next(latest)
            entry = None
            if pending is not None and int(pending[1]) == k:
                entry = (int(pending[0]), bytes(pending[2]))
                pending = _next(latest)
            check(dict(mapping), entry)
    guesses: dict[str, list[Any] | None] = {}
    for row, entry in wrong[:_NAMED]:
        what = _state_subject(name, row)
        if entry is None:
            report.breaks.append(Break("states", f"{what}: its state was never chained "
                                                 "(written outside Podium)"))
            continue
        report.breaks.append(Break("states", f"{what}: "
                                   f"{_state_change(conn, table, row, entry[1], guesses)}",
                                   entry[0]))
    if len(wrong) > _NAMED:
        report.breaks.append(Break("states", f"{name}: {len(wrong) - _NAMED} more rows whose "
                                             "state is not what the ledger last recorded"))


def _state_subject(table: str, row: Mapping[str, Any]) -> str:
    """A state row as the floor names it."""
    if table == "rounds":
        return f"round {row['id']} of table {row['table_id']} (round no {row['round_no']})"
    if table == "wagers":
        return f"wager {row['id']} (round {row['round_id']}, seat {row['seat']})"
    if table == "hits":
        return f"hit #{row['id']} of table {row['table_id']}"
    if table == "employees":
        return f"employee {row['number']} ({row['role']})"
    return f"{'table' if table == 'tables' else 'group'} {row['id']}"


def _state_change(conn: Connection, table: Table, row: dict[str, Any], recorded: bytes,
                  guesses: dict[str, list[Any] | None]) -> str:
    """What changed, in words: a state column whose recorded value is found back (the row's
    hash with one column set to each value that column holds elsewhere) is named with both
    values; otherwise the state columns are named (a secret column never with its value)."""
    name = table.name
    mutable = sorted(chain.STATE[name])
    for col in mutable:
        for value in _candidates(conn, table, col, row, guesses):
            if value == row[col]:
                continue
            if chain.state_hash(name, str(row["id"]), {**row, col: value}) == recorded:
                if col in _SECRET:
                    return (f"{col} was changed outside Podium (the ledger last recorded "
                            "another value)")
                return f"{col} is {_shown(row[col])}, the ledger last recorded {_shown(value)}"
    now = ", ".join(f"{c} {_shown(row[c])}" for c in mutable
                    if c not in _SECRET and row[c] is not None)
    return (f"its state ({', '.join(mutable)}) is not what the ledger last recorded: changed "
            f"outside Podium{f' (now {now})' if now else ''}")


def _candidates(conn: Connection, table: Table, col: str, row: Mapping[str, Any],
                guesses: dict[str, list[Any] | None]) -> list[Any]:
    """The values ``col`` may have held: the ones it takes, the few it holds in the table
    (none if many), the empty ones, and for verified cards the cards claimed."""
    if col not in guesses:
        found = list(conn.execute(select(table.c[col]).distinct().limit(_GUESSED + 1))
                     .scalars())
        guesses[col] = found if len(found) <= _GUESSED else None
    out = list(_KNOWN.get((table.name, col), ())) + list(guesses[col] or [])
    out += [None, ""] if table.c[col].type.python_type is str else [None]
    if col == "verified_cards":
        out.append(row.get("cards"))
    return out


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    return repr(value) if isinstance(value, str) and (not value or " " in value) else \
        str(value)


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
