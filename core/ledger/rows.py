"""Many rows into one table in ONE statement, on either database (the ledger writer's inserts).

On PostgreSQL a batch of rows goes as one ``INSERT ... SELECT FROM unnest(<one array per
column>)``: one statement with one parameter per column, whatever the number of rows, so the
server parses it once (its text never changes), its statement triggers (the chain's journal,
core/ledger/integrity.py) fire once, and the driver does not rebuild a statement of thousands of
placeholders per batch.  On SQLite (in-process, no round trips) it is the driver's
``executemany``, or SQLAlchemy's multi-row ``INSERT ... RETURNING``.

``upsert_rows`` adds ``ON CONFLICT (key) DO UPDATE SET col = table.col + excluded.col``: the
kept totals folded in once per batch (core/tablegames/meters/balances.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import JSON, Connection, String, Table, text
from sqlalchemy.types import TypeDecorator


def insert_rows(conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]],
                returning: Sequence[str] = ()) -> list[Any]:
    """Insert ``rows`` (every row with the same columns) into ``table``; with ``returning``,
    those columns of the inserted rows (in the rows' order on SQLite; map them back by a key
    on PostgreSQL, whose order is the insertion's)."""
    if not rows:
        return []
    columns = tuple(col.name for col in table.columns if col.name in rows[0])
    if conn.dialect.name != "postgresql":
        return _sqlite_insert(conn, table, columns, rows, tuple(returning))
    stmt = _pg_statement(table, columns, tuple(returning), None, ())
    result = conn.execute(stmt, _arrays(conn, table, columns, rows))
    return list(result) if returning else []


def upsert_rows(conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]],
                key: Sequence[str], add: Sequence[str]) -> None:
    """Insert ``rows``; a row whose ``key`` is there already adds its ``add`` columns to it.
    The rows' keys must differ from each other."""
    if not rows:
        return
    columns = tuple(col.name for col in table.columns if col.name in rows[0])
    if conn.dialect.name != "postgresql":
        sql = (f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES "
               f"({', '.join('?' for _ in columns)})" + _conflict(table, tuple(key), tuple(add)))
        conn.exec_driver_sql(sql, _tuples(conn, table, columns, rows))
        return
    stmt = _pg_statement(table, columns, (), tuple(key), tuple(add))
    conn.execute(stmt, _arrays(conn, table, columns, rows))


def _conflict(table: Table, key: tuple[str, ...], add: tuple[str, ...]) -> str:
    sets = ", ".join(f"{c} = {table.name}.{c} + excluded.{c}" for c in add)
    return f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sets}"


def _sqlite_insert(conn: Connection, table: Table, columns: tuple[str, ...],
                   rows: Sequence[Mapping[str, Any]], returning: tuple[str, ...]
                   ) -> list[Any]:
    """SQLite: the driver's ``executemany`` with the values as SQLAlchemy would bind them.
    With ``returning``, the rows get their ids here (the next after the largest: the writer
    holds SQLite's write lock from its BEGIN, and the tables' ids are plain rowids)."""
    values = _tuples(conn, table, columns, rows)
    if returning:
        first = int(conn.exec_driver_sql(f"SELECT coalesce(max(id), 0) FROM {table.name}")
                    .scalar() or 0) + 1
        columns = ("id", *columns)
        values = [(first + i, *v) for i, v in enumerate(values)]
    sql = (f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES "
           f"({', '.join('?' for _ in columns)})")
    conn.exec_driver_sql(sql, values)
    if not returning:
        return []
    return [tuple(v[0] if c == "id" else r[c] for c in returning)
            for v, r in zip(values, rows, strict=True)]


def _tuples(conn: Connection, table: Table, columns: tuple[str, ...],
            rows: Sequence[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    """The rows as the driver takes them: each value through its column type's bind
    processing (a value seen before in the column, such as the batch's one time, once)."""
    procs: list[Any] = []
    for c in columns:
        type_ = table.c[c].type
        if _is_json(type_):
            procs.append(_json)
        else:
            proc = type_.dialect_impl(conn.dialect).bind_processor(conn.dialect)
            procs.append(_memo(proc) if proc is not None else None)
    out = []
    for r in rows:
        out.append(tuple(v if p is None or v is None else p(v)
                         for p, v in zip(procs, (r[c] for c in columns), strict=True)))
    return out


def _json(value: Any) -> str:
    return json.dumps(value)


def _memo(proc: Any) -> Any:
    seen: dict[Any, Any] = {}

    def run(value: Any) -> Any:
        try:
            return seen[value]
        except KeyError:
            got = seen[value] = proc(value)
            return got
        except TypeError:  # not hashable
            return proc(value)

    return run


@lru_cache(maxsize=256)
def _pg_statement(table: Table, columns: tuple[str, ...], returning: tuple[str, ...],
                  key: tuple[str, ...] | None, add: tuple[str, ...]) -> Any:
    from sqlalchemy.dialects import postgresql

    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    arrays, picks = [], []
    for i, c in enumerate(columns):
        col = table.c[c]
        if _is_json(col.type):
            arrays.append(f"CAST(:a{i} AS text[])")
            picks.append(f"CAST(u.c{i} AS {col.type.compile(dialect=dialect)})")
        elif isinstance(col.type, String):
            # text, not VARCHAR(n): an explicit cast would cut a long value silently; the
            # INSERT's own (assignment) cast refuses it, as a plain INSERT does
            arrays.append(f"CAST(:a{i} AS text[])")
            picks.append(f"u.c{i}")
        else:
            arrays.append(f"CAST(:a{i} AS {col.type.compile(dialect=dialect)}[])")
            picks.append(f"u.c{i}")
    names = ", ".join(f"c{i}" for i in range(len(columns)))
    sql = (f"INSERT INTO {table.name} ({', '.join(columns)}) SELECT {', '.join(picks)} "
           f"FROM unnest({', '.join(arrays)}) AS u({names})")
    if key is not None:
        sql += _conflict(table, key, add)
    if returning:
        sql += f" RETURNING {', '.join(returning)}"
    return text(sql)


def _is_json(type_: Any) -> bool:
    if isinstance(type_, TypeDecorator):
        type_ = type_.impl
    return isinstance(type_, JSON)


def _arrays(conn: Connection, table: Table, columns: tuple[str, ...],
            rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One parameter per column: the column's values as a PostgreSQL array literal (text the
    server casts to the column's array type; far cheaper for the driver than a list)."""
    out: dict[str, Any] = {}
    dialect = conn.dialect
    for i, c in enumerate(columns):
        type_ = table.c[c].type
        values = [r[c] for r in rows]
        if _is_json(type_):
            values = [None if v is None else json.dumps(v) for v in values]
        elif isinstance(type_, TypeDecorator):
            values = [type_.process_bind_param(v, dialect) for v in values]
        out[f"a{i}"] = _literal(values)
    return out


def _literal(values: list[Any]) -> Any:
    """``values`` as an array literal (``{1,NULL,"text \\"quoted\\""}``), or the list itself
    for a type the literal does not carry (bytes)."""
    parts = []
    for v in values:
        if v is None:
            parts.append("NULL")
        elif type(v) is int:
            parts.append(str(v))
        elif type(v) is bool:
            parts.append("t" if v else "f")
        elif isinstance(v, str):
            parts.append('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"')
        elif isinstance(v, datetime):
            if v.tzinfo is None:
                raise ValueError("ledger time: a naive datetime (times must be UTC-aware)")
            parts.append('"' + v.isoformat() + '"')
        else:
            return values
    return "{" + ",".join(parts) + "}"
