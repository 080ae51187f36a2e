"""A table's claim in the database: the lock connection and the table's row of ``ledger_locks``
(``table:<id>``, revisions 0023 and 0025), the statements that claim, renew, fence and release
it.  :class:`core.controllers.ownership.TableClaims` holds a process's claims through them; the
rules they keep (one service per table, leases, the fencing token) are in that module's
docstring.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from core.ledger import locks
from core.ledger.db import own_connection

LOCK_PREFIX = "table:"  # a table's row of ledger_locks: "table:T01"


def connect(engine: Engine, application_name: str, lease_s: float) -> tuple[Any, int | None]:
    """A lock connection: the engine's own (never back in the pool: after a failover, not a
    dead one of it), set up for claims; and its backend pid."""
    conn = own_connection(engine)
    with conn.cursor() as cur:
        # a vanished machine's session (and its locks) ends in about 11 s
        cur.execute("SET tcp_keepalives_idle = 5")
        cur.execute("SET tcp_keepalives_interval = 2")
        cur.execute("SET tcp_keepalives_count = 3")
        # a claim left open by a paused process ends after the lease
        cur.execute("SELECT set_config('idle_in_transaction_session_timeout', "
                    "%s, false)", (f"{int(lease_s * 1000)}ms",))
        cur.execute("SELECT set_config('application_name', %s, false)",
                    (application_name[:63],))
        # a claim waits for another claim's rows at most this long
        cur.execute("SELECT set_config('lock_timeout', %s, false)",
                    (f"{int(locks.lock_timeout_s() * 1000)}ms",))
        cur.execute("SELECT pg_backend_pid()")
        row = cur.fetchone()
    return conn, (int(row[0]) if row else None)


class Busy(RuntimeError):
    """Another writer's transaction held a table's lock row past the lock timeout."""


# a table's lock row, as a claim sees it: "free" (nobody holds it, or this lock connection
# does), "lapsed" (its lease ended), "gone" (the session that claimed it is gone from
# pg_stat_activity: the same backend pid, login and application), or NULL (held); and the
# seconds left of its lease (the grace of a take-over never outlasts it)
FREE_SQL = """SELECT substr(k.name, 7), CASE
WHEN k.holder_pid IS NULL OR k.holder_pid = pg_backend_pid() THEN 'free'
WHEN k.lease_until < clock_timestamp() THEN 'lapsed'
WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = k.holder_pid
                 AND a.datname = current_database() AND a.usename = k.holder_login
                 AND a.application_name IS NOT DISTINCT FROM k.holder_app) THEN 'gone' END,
coalesce(extract(epoch FROM k.lease_until - clock_timestamp()), 1e9)
FROM ledger_locks k WHERE k.name = ANY(%s) ORDER BY k.name"""
# a claim: the next epoch, and a lease from now
HOLD_SQL = """UPDATE ledger_locks SET holder_pid = pg_backend_pid(), holder_login = session_user,
holder_app = left(current_setting('application_name'), 64), holder_service = %s,
holder_since = now(), epoch = epoch + 1,
lease_until = clock_timestamp() + make_interval(secs => %s)
WHERE name = ANY(%s) RETURNING substr(name, 7), epoch"""
RELEASE_SQL = """UPDATE ledger_locks k SET holder_pid = NULL, holder_login = NULL,
holder_app = NULL, holder_service = NULL, holder_since = NULL, lease_until = NULL
FROM unnest(%s::text[], %s::bigint[]) AS m(name, epoch)
WHERE k.name = m.name AND k.epoch = m.epoch AND k.holder_pid = pg_backend_pid()"""
# the heartbeat: the service's row, and the lease of every table it holds at its epoch (a row
# that names another claim now is not renewed: the table is given up)
RENEW_SQL = """WITH beat AS (UPDATE floor_services SET heartbeat_at = %s WHERE id = %s)
UPDATE ledger_locks k SET lease_until = clock_timestamp() + make_interval(secs => %s)
FROM unnest(%s::text[], %s::bigint[]) AS m(name, epoch)
WHERE k.name = m.name AND k.epoch = m.epoch AND k.holder_pid = pg_backend_pid()
RETURNING substr(k.name, 7)"""
# the fence (SQLAlchemy parameters): the tables this service holds at its epochs with a lease
# still running, their rows locked FOR KEY SHARE; a transaction that locked one is ended by the
# server if it is left idle longer than the lease (SET LOCAL, evaluated before a row is locked)
FENCE_SQL = """SELECT substr(k.name, 7) FROM ledger_locks k
JOIN unnest(CAST(:names AS text[]), CAST(:epochs AS bigint[])) AS m(name, epoch)
ON k.name = m.name
WHERE k.holder_service = :me AND k.epoch = m.epoch AND k.lease_until > clock_timestamp()
AND (SELECT set_config('idle_in_transaction_session_timeout', :idle, true)) IS NOT NULL
FOR KEY SHARE OF k"""


def take(conn: Any, tables: list[str], service_id: int | None,
          lease: float) -> tuple[dict[str, tuple[int, float]], set[str]]:
    """Claim ``tables`` on the lock connection ``conn``: in one short transaction, each
    table's row of ``ledger_locks`` (made on first use) locked ``FOR UPDATE``, and the free
    ones named as this connection's at their next epoch with a lease of ``lease`` seconds.  A
    claim is a row a reader can neither lock nor write (revision 0023; until 0022 an advisory
    lock any login could hold).  It lives as long as the lock connection's session and its
    lease (renewed by :meth:`TableClaims.beat`): when either ends, its rows are free for the
    next claim.  A row another transaction holds locked now (a writer's fence, another
    claim) is skipped and asked for again the next round.  Table taken -> (its epoch, the
    grace before it may be linked: what was left of the lease of a holder whose session is
    gone, 0 otherwise), and the tables skipped (locked by another transaction now).  Busy
    names the session whose transaction held a row past the lock
    timeout (the lock connection stays)."""
    names = [LOCK_PREFIX + t for t in tables]
    try:
        with conn.transaction(), conn.cursor() as cur:
            # first without a lock: a standby asking every second for tables served elsewhere
            # locks (and writes) nothing
            cur.execute(FREE_SQL, (names,))
            seen = {str(t): how for t, how, _left in cur.fetchall()}
            missing = [LOCK_PREFIX + t for t in tables if t not in seen]
            if missing:  # a table never claimed: its row, made once
                cur.execute("INSERT INTO ledger_locks (name) SELECT unnest(%s::text[]) "
                            "ON CONFLICT DO NOTHING", (missing,))
            ask = [LOCK_PREFIX + t for t in tables if seen.get(t, "free") is not None]
            if not ask:
                return {}, set()
            # then, locked, asked again: two services claiming at once take turns
            cur.execute(FREE_SQL + " FOR UPDATE OF k SKIP LOCKED", (ask,))
            rows = cur.fetchall()
            busy = {n[len(LOCK_PREFIX):] for n in ask} - {str(t) for t, _how, _left in rows}
            free = {str(t): (0.0 if how != "gone" else max(0.0, float(left)))
                    for t, how, left in rows if how is not None}
            if not free:
                return {}, busy
            cur.execute(HOLD_SQL, (service_id, lease, [LOCK_PREFIX + t for t in sorted(free)]))
            return {str(t): (int(epoch), free[str(t)]) for t, epoch in cur.fetchall()}, busy
    except Exception as exc:
        if getattr(exc, "sqlstate", None) != "55P03":  # lock_not_available
            raise
        with conn.cursor() as cur:
            cur.execute(locks.HOLDER_SQL, (names,))
            row = cur.fetchone()
        raise Busy(f"the ledger's table locks were not free within "
                    f"{locks.lock_timeout_s():g} s ({locks.ENV}); "
                    f"{locks.describe(row)}") from None

