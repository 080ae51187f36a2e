"""docs/screenshots/tgd-*-ledger.png: every form filled from a ledger built the way
tests/printing/pages/test_ledger_forms.py's ``ledger`` fixture builds it (a SQLite file in the
temporary folder), on the demo floor with a room location.  ``make screenshots`` runs
``python -m tests.ledger_form_shots docs/screenshots``."""

from __future__ import annotations

import sys
import tempfile
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import core.pokerroom.fund as bf
from core import floorconfig
from core.ledger.db import make_engine, upgrade
from core.pokerroom import cases as bc
from printing.pages import ledger_forms as lf
from printing.pages.winpage import render_png
from tests.printing.pages.test_ledger_forms import (
    DAY1,
    DAY2,
    HIT,
    SUP,
    Clock,
    claim_entry,
    fill_days,
    local,
)


def main(folder: str) -> list[Path]:
    db = Path(tempfile.gettempdir()) / "podium-form-shots.sqlite3"
    db.unlink(missing_ok=True)
    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine)
    fill_days(engine)  # the ledger of tests/printing/pages/test_ledger_forms.py's ``days``
    clock = Clock(HIT + timedelta(minutes=10))
    cid = bc.open_case(engine, "bbj", claim_entry(), HIT, SUP, clock=clock)
    bf.post_day(engine, "bbj", DAY2, by="cage", at=local(2026, 12, 2, 6))
    bc.advance(engine, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
               clock=clock.set(local(2026, 12, 1, 16)))
    bc.advance(engine, cid, "request_filed", SUP, clock=clock.set(local(2026, 12, 1, 18)))
    bc.advance(engine, cid, "approved", SUP, clock=clock.set(local(2026, 12, 2, 10)))
    for i, seat in enumerate((4, 1, 2, 3, 5)):  # seat 6 not paid yet
        bc.advance(engine, cid, "share_paid", SUP, seat=seat,
                   clock=clock.set(local(2026, 12, 3, 11, i)))
    bf.create_fund(engine, "bbj2", "New hall BBJ", at=local(2026, 12, 1, 9))
    config = floorconfig.load_demo_floor()
    room = replace(config.poker_room, room_location="Ground floor, Podium Demo Casino, Manila")
    casino = config.casino
    requests = {
        "tgd-1623-daily-onsite-ledger": lf.FormRequest("daily", fund_id="bbj",
                                                       business_date=DAY1),
        "tgd-1494-daily-offsite-ledger": lf.FormRequest("daily", fund_id="bbj",
                                                        business_date=DAY2, onsite=False),
        "tgd-1500-awarding-request-ledger": lf.FormRequest("award", case_id=cid),
        "tgd-108-quarterly-tax-ledger": lf.FormRequest("quarterly", year=2026, quarter=4,
                                                       onsite=False),
        "tgd-1540-transfer-cessation-ledger": lf.FormRequest(
            "cessation", fund_id="bbj", to_fund_id="bbj2", effective_on=date(2027, 1, 15)),
        "tgd-1581-implementation-request-ledger": lf.FormRequest(
            "implementation", fund_id="bbj2", effective_on=date(2027, 1, 11),
            filed_at=local(2026, 12, 23, 14, 45)),
    }
    out = []
    try:
        for stem, request in requests.items():
            form = lf.render(engine, request, casino=casino.name,
                             operator=casino.operator_name, tz=ZoneInfo(casino.timezone),
                             holidays=casino.public_holidays, poker_room=room)
            out.append(render_png(form.html, Path(folder) / f"{stem}.png"))
    finally:
        engine.dispose()
        db.unlink(missing_ok=True)
    return out


if __name__ == "__main__":
    for path in main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"):
        print(path)
