"""A hit's timeline for surveillance (issue 13; docs/operator.md
"Surveillance").

:func:`timeline` reads, in ONE read-only snapshot of a :class:`~core.desks.desk.Desk`, everything
the ledger holds around one hit and lays it out in time order, each row to the millisecond in the
casino's time zone:

- the controller frames of the hit's round at its table (START GAME, every HIT JACKPOT, UNDO,
  MISDEAL, END GAME of that round under that controller boot) and the frames of that table
  the console refused within ``[surveillance] refused_frames_minutes`` of the round;
- every decision on the hit, every swipe made for it (who: employee number, name and role;
  accepted or refused, and why), the award (who authorized, who verified), the meter entries
  of the hit, the manual adjustments of its level near it, its slip(s), every print attempt
  and a void;
- the cards re-evaluated by the rules core beside the claim
  (:mod:`core.desks.surveillance.cards_check`), and its flags
  (:mod:`core.desks.surveillance.flags`, from its rows: :mod:`.hit_rows`, :mod:`.hit_flags`).

The rows and their words: :mod:`core.desks.surveillance.events`; what is handed out:
:mod:`core.desks.surveillance.records`.  The hits of a period with their flags (the list view,
``podium report flags``): :mod:`core.desks.surveillance.hits`.
"""

from __future__ import annotations

from datetime import datetime

from core.desks.desk import Desk
from core.desks.surveillance.events import events as timeline_events
from core.desks.surveillance.hit_flags import hit_line
from core.desks.surveillance.hit_rows import HitRows, read_at
from core.desks.surveillance.records import Timeline
from core.kernel.text import hit_ref
from core.ledger.models import ControllerEvent, GameTable, Hit, Wager
from core.tablegames.views import FloorError


class UnknownHit(FloorError):
    """No such hit in the ledger."""


def timeline(desk: Desk, hit_id: int, *, now: datetime | None = None) -> Timeline:
    """Everything the ledger holds around hit ``hit_id``, in time order (module docstring).
    :class:`UnknownHit` when there is no such hit."""
    at = read_at(now)
    with desk.read() as s:
        hit = s.get(Hit, hit_id)
        if hit is None:
            raise UnknownHit(f"hit {hit_ref(hit_id)}: no such hit in this ledger")
        rows = HitRows(desk, s, [hit], at)
        line, check, level = hit_line(rows, hit)
        award = rows.awards.get(hit.id)
        events = timeline_events(desk, s, rows, hit, award, line)
        hit_event = s.get(ControllerEvent, hit.event_id)
        t = s.get(GameTable, hit.table_id)
        wager = s.get(Wager, hit.wager_id) if hit.wager_id is not None else None
        return Timeline(line=line, boot=hit_event.boot if hit_event else "",
                        table_name=t.name if t else hit.table_id,
                        wager_cents=wager.amount_cents if wager else None,
                        level=level, source=award.source if award else None,
                        slip_nos=tuple(sl.slip_no for sl in rows.slips.get(hit.id, [])),
                        cards=check, events=events, timezone=desk.config.casino.timezone,
                        read_at=at)
