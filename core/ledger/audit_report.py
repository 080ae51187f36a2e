"""What ``podium audit verify`` (core/ledger/audit.py) finds and where: a :class:`Break` (which
check, what, and the chain position of the row it names), the :class:`Report` of a run, and
the :class:`Batches` index of what the batch links (revision 0021) say each row's content hash
is, by which a break finds its row's place in the ledger's history (:func:`position`)."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text

from core.ledger import chain

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
    batches: Any = field(default=None, repr=False)  # the batch links read (Batches)

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


@dataclass
class Batches:
    """What the batch links (revision 0021) say each row's content hash is: per table, runs of
    integer keys ``(first, last, n, hashes, offset)`` (the hash of key k is the 32 bytes at
    ``offset + 32 * (k - first)`` of ``hashes``), and text keys one by one."""

    runs: dict[str, list[tuple[int, int, int, bytes, int]]] = field(default_factory=dict)
    keys: dict[str, dict[str, tuple[int, bytes]]] = field(default_factory=dict)
    state: Batches | None = None  # the state rows chained whole (revision 0024)
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


def position(conn: Connection, report: Report, table: str, key: object) -> int | None:
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


def next_row(it: Iterator[Any]) -> Any:
    return next(it, None)
