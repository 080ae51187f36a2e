"""A floor of hundreds of tables: meter balances kept, hit flags as codes, the verified cards in
their own column, and the indexes the floor's lookups need at millions of rounds.

- ``level_balances``: one row per level holding its meter and reserve (exact units), the number
  of entries folded in and the id of the latest; updated in the same transaction as every
  ``meter_entries`` row, so reading a meter costs the same at 10 million rounds as at ten.  The
  entries stay the truth: the invariant check compares the two.  Filled here from the entries.
- ``level_hour_totals``: per level, hour (UTC) and entry kind, the number of entries and their
  meter and reserve sums, kept in the same transaction as every entry, so a day's meter report
  adds up at most 24 rows per kind (the edges of a period that does not start on the hour are
  summed from the entries).  Filled here from the entries.
- ``hits.flag_codes``: the problems found at claim time as codes (JSON text: a list of objects as
  ``{"code": "NO_WAGER", "seat": 3}``; core/tablegames/flags.py renders them to words).  Filled
  here from the sentences of ``hits.flags``, which new hits leave empty.
- ``hits.verified_cards``: the seven cards a supervisor verified for the pay (""), filled here
  from the reason of the hit's latest ``verified`` decision ("cards <7 cards> make <hand>").

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# The sentences hits.flags held before this revision (core/floor.py up to 0009), as codes.
_SENTENCES: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"round (\d+) was never started \(no START GAME\)$"), "ROUND_NOT_STARTED",
     ("round",)),
    (re.compile(r"round (\d+) was (misdealt|undone)$"), "ROUND_VOID", ("round", "state")),
    (re.compile(r"no wager on seat (\d+)$"), "NO_WAGER", ("seat",)),
    (re.compile(r"seat (\d+) already has a hit in round (\d+)$"), "DUPLICATE_HIT",
     ("seat", "round")),
    (re.compile(r"hand button '(.*)' is not a Fortune hand$"), "NOT_A_HAND", ("hand",)),
    (re.compile(r"cards from the table: (.*)$"), "BAD_TABLE_CARDS", ("detail",)),
    (re.compile(r"claimed (\S+), cards make (\S+)$"), "CLAIM_MISMATCH", ("claimed", "made")),
    (re.compile(r"hand '(\S+)' \((.*)\) is not .*$"), "CLAIM_NOT_PAYABLE", ("hand", "name")),
)
_INTS = {"round", "seat"}


def flag_code(sentence: str) -> dict[str, object]:
    """One pre-0010 flag sentence as a code (an unknown sentence is kept as a NOTE)."""
    for pattern, code, names in _SENTENCES:
        m = pattern.match(sentence)
        if m:
            out: dict[str, object] = {"code": code}
            for name, value in zip(names, m.groups(), strict=True):
                out[name] = int(value) if name in _INTS else value
            if code == "CLAIM_NOT_PAYABLE":
                out["detail"] = sentence
                out.pop("name", None)
            return out
    return {"code": "NOTE", "detail": sentence}


def upgrade() -> None:
    op.create_table(
        "level_balances",
        sa.Column("level_id", sa.Integer(), nullable=False),
        sa.Column("meter_units", sa.BigInteger(), nullable=False),
        sa.Column("reserve_units", sa.BigInteger(), nullable=False),
        sa.Column("entries", sa.BigInteger(), nullable=False),
        sa.Column("last_entry_id", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["level_id"], ["levels.id"]),
        sa.PrimaryKeyConstraint("level_id"),
    )
    conn = op.get_bind()
    now = datetime.now(UTC)
    if conn.dialect.name == "sqlite":
        now = now.replace(tzinfo=None)
    rows = conn.execute(sa.text(
        "SELECT l.id, COALESCE(SUM(e.meter_delta), 0), COALESCE(SUM(e.reserve_delta), 0), "
        "COUNT(e.id), MAX(e.id) FROM levels l LEFT JOIN meter_entries e ON e.level_id = l.id "
        "GROUP BY l.id")).all()
    for level_id, meter, reserve, count, last in rows:
        conn.execute(sa.text(
            "INSERT INTO level_balances (level_id, meter_units, reserve_units, entries, "
            "last_entry_id, updated_at) VALUES (:l, :m, :r, :n, :e, :t)"),
            {"l": level_id, "m": int(meter), "r": int(reserve), "n": int(count), "e": last,
             "t": now})

    op.create_table(
        "level_hour_totals",
        sa.Column("level_id", sa.Integer(), nullable=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("entries", sa.BigInteger(), nullable=False),
        sa.Column("meter_units", sa.BigInteger(), nullable=False),
        sa.Column("reserve_units", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["level_id"], ["levels.id"]),
        sa.PrimaryKeyConstraint("level_id", "hour", "kind"),
    )
    totals: dict[tuple[int, datetime, str], list[int]] = {}
    for level_id, at, kind, meter, reserve in conn.execute(sa.text(
            "SELECT level_id, created_at, kind, meter_delta, reserve_delta FROM meter_entries")):
        if isinstance(at, str):
            at = datetime.fromisoformat(at)
        hour = at.replace(minute=0, second=0, microsecond=0)
        acc = totals.setdefault((level_id, hour, kind), [0, 0, 0])
        acc[0] += 1
        acc[1] += int(meter)
        acc[2] += int(reserve)
    for (level_id, hour, kind), (n, meter, reserve) in totals.items():
        conn.execute(sa.text(
            "INSERT INTO level_hour_totals (level_id, hour, kind, entries, meter_units, "
            "reserve_units) VALUES (:l, :h, :k, :n, :m, :r)"),
            {"l": level_id, "h": hour, "k": kind, "n": n, "m": meter, "r": reserve})

    with op.batch_alter_table("hits") as batch:
        batch.add_column(sa.Column("flag_codes", sa.Text(), nullable=False,
                                   server_default="[]"))
        batch.add_column(sa.Column("verified_cards", sa.String(length=64), nullable=False,
                                   server_default=""))
    for hit_id, flags in conn.execute(sa.text("SELECT id, flags FROM hits")).all():
        codes = [flag_code(f) for f in (flags or "").split("\n") if f]
        conn.execute(sa.text("UPDATE hits SET flag_codes = :c WHERE id = :i"),
                     {"c": json.dumps(codes), "i": hit_id})
    verified = conn.execute(sa.text(
        "SELECT d.hit_id, d.reason FROM hit_decisions d WHERE d.decision = 'verified' "
        "AND d.id = (SELECT MAX(x.id) FROM hit_decisions x WHERE x.hit_id = d.hit_id "
        "AND x.decision = 'verified')")).all()
    for hit_id, reason in verified:
        head, sep, _hand = (reason or "").partition(" make ")
        cards = head.removeprefix("cards ").strip() if sep and head.startswith("cards ") else ""
        if len(cards.split()) == 7:
            conn.execute(sa.text("UPDATE hits SET verified_cards = :c WHERE id = :i"),
                         {"c": cards, "i": hit_id})

    # Lookups that scanned a table's whole history.
    op.create_index("ix_rounds_table_round", "rounds", ["table_id", "round_no"])
    # a table's latest round (PostgreSQL walks it backwards; SQLite's table_id index has rowid)
    op.create_index("ix_rounds_table_latest", "rounds", ["table_id", "id"])
    op.create_index("ix_meter_entries_level_time", "meter_entries", ["level_id", "created_at"])
    op.create_index("ix_meter_entries_round_id", "meter_entries", ["round_id"])
    op.create_index("ix_meter_entries_hit_id", "meter_entries", ["hit_id"])
    op.create_index("ix_hits_round_id", "hits", ["round_id"])
    op.create_index("ix_awards_level_id", "awards", ["level_id", "id"])
    op.create_index("ix_slips_hit_id", "slips", ["hit_id"])
    op.create_index("ix_swipe_log_hit_id", "swipe_log", ["hit_id"])


def downgrade() -> None:
    for name, table in (("ix_swipe_log_hit_id", "swipe_log"), ("ix_slips_hit_id", "slips"),
                        ("ix_awards_level_id", "awards"), ("ix_hits_round_id", "hits"),
                        ("ix_meter_entries_hit_id", "meter_entries"),
                        ("ix_meter_entries_round_id", "meter_entries"),
                        ("ix_meter_entries_level_time", "meter_entries"),
                        ("ix_rounds_table_round", "rounds"),
                        ("ix_rounds_table_latest", "rounds")):
        op.drop_index(name, table_name=table)
    with op.batch_alter_table("hits") as batch:
        batch.drop_column("verified_cards")
        batch.drop_column("flag_codes")
    op.drop_table("level_hour_totals")
    op.drop_table("level_balances")
