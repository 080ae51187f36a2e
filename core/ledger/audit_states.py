"""``podium audit verify``'s check 11 (core/ledger/audit.py, revision 0024): every state row's
whole content is what the ledger last chained for it, and when it is not, what changed, in
words (a state column's recorded value is found back when it can be)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Table, select

from core.ledger import chain, integrity
from core.ledger.audit_report import Batches, Break, Report, next_row
from core.ledger.models import Base

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


def check_states(conn: Connection, report: Report, batches: Batches) -> None:
    """Check 11: every state row's whole content against the newest full-content hash the chain
    holds for it (its insert, or its latest UPDATE through Podium)."""
    if batches.state is None or not integrity._states_installed(conn):
        return
    for name in chain.STATE:
        _state_rows(conn, Base.metadata.tables[name], report, batches.state, batches.broken)


def _state_rows(conn: Connection, table: Table, report: Report, chained: Batches,
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
        pending = next_row(latest)
        for mapping in data:
            k = int(mapping["id"])
            while pending is not None and int(pending[1]) < k:  # deleted: check 4 says so
                pending = next_row(latest)
            entry = None
            if pending is not None and int(pending[1]) == k:
                entry = (int(pending[0]), bytes(pending[2]))
                pending = next_row(latest)
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
