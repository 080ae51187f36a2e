"""A unit of work opened, and the change it made described and announced.

Above the modules it calls: the kept balances folded in (``balances.flush``), the new state of
what the unit touched read (``queries.touched_views``) and, on PostgreSQL, the change told to the
other podiums on the ledger's feed (``feed.publish``).  Every write workflow opens its
transaction here: ``with changes.unit(ctx, "pay") as u: ...``; the ledger writer describes its
batches with :func:`change_of` and announces them itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from core.tablegames import feed
from core.tablegames.meters import balances
from core.tablegames.queries import touched_views
from core.tablegames.unit import FloorContext, Unit
from core.tablegames.views import FloorChange


@contextlib.contextmanager
def unit(ctx: FloorContext, action: str) -> Iterator[Unit]:
    """A write transaction; its change is announced after the commit (not on rollback)."""
    with ctx.session() as s, s.begin():
        u = Unit(s, ctx.now())
        yield u
        change = change_of(ctx, u, action)
    if change.touched:
        ctx.announce(change)


def change_of(ctx: FloorContext, u: Unit, action: str) -> FloorChange:
    """The change ``u`` made, with the new state of what it touched (read inside the
    transaction, before the commit)."""
    balances.flush(u)
    tables, levels, pending, closed = touched_views(ctx, u)
    change = FloorChange(action, frozenset(u.tables), frozenset(u.levels),
                         frozenset(u.hits), tuple(u.outcomes), tuple(u.slips), 0, tables,
                         levels, pending, closed, u.events, u.now, tuple(u.prints))
    if ctx.pg and change.touched:
        # the other processes on this ledger hear it when (and only if) it commits
        feed.publish(u.s, ctx, change)
    return change
