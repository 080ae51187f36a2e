"""The Poker room tab's Cessation page (gui/pokerroom/closure.py; docs/operator.md "Poker room"): a
"cease once hit" notice recorded after a confirmation and an executive's swipe shows in the
fund's status, and the next approval then ceases the fund (the box ticked and fixed); the room's
permanent closure forfeits the whole fund to PAGCOR after a confirmation and an executive's
swipe (a supervisor's card is refused), the status says so and the Forms page writes its report.
SQLite (core/pokerroom/ is tested on both databases in tests/core/pokerroom/test_bbj_closure.py).

Screenshots go to /tmp/poker-shots/ (or $PODIUM_SCREENSHOT_DIR: docs/screenshots/bbj-*.png)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from sqlalchemy import select
from sqlalchemy.orm import Session

import core.pokerroom.cases as bc
import core.pokerroom.fund as bf
from core.app.demo import demo_credential
from core.ledger.models import BbjAward, BbjCessation
from printing.pages.closure_form import demo_forfeiture, forfeiture_html
from printing.pages.winpage import render_png
from tests.gui.pokerroom.test_gui_poker_room import (  # noqa: F401 - room_tab is a fixture
    SHOTS,
    SUPERVISOR,
    _count_and_post,
    _enter,
    _local,
    _page,
    _save_pdf,
    bare_amounts,
    room_tab,
    settle,
)

EXECUTIVE = demo_credential("2001")  # Evelyn Cruz, with her PIN


class RoleSwiper:
    """Stands in for ``window.authorize``: an executive's card (with the PIN) where the step
    needs an executive, a supervisor's otherwise (``only_supervisor``: always the supervisor's);
    a refusal is kept, as the swipe prompt shows it."""

    def __init__(self, only_supervisor: bool = False) -> None:
        self.only_supervisor = only_supervisor
        self.prompts: list[tuple[str, str]] = []
        self.refusals: list[str] = []

    def __call__(self, role: str, what: str, kind: str, action: Any) -> bool:
        self.prompts.append((role, what))
        card = EXECUTIVE if role == "executive" and not self.only_supervisor else SUPERVISOR
        try:
            return action(card) is not None
        except ValueError as exc:
            self.refusals.append(str(exc))
            return False


def _shot(window: Any, qtbot: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / name))


def _case_opened(qtbot: Any, window: Any, screen: Any) -> tuple[RoleSwiper, Any, Any]:
    """Yesterday counted and posted (main 50,705.60, reserve 302.40) and case 1 opened on the
    tab for a hit at 20:00 yesterday; the swiper standing in for the prompt, the engine, today."""
    swiper = RoleSwiper()
    window.authorize = swiper
    engine = screen.console.engine
    today = datetime.now(screen.tz).date()
    yesterday = today - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)
    _enter(qtbot, screen)
    screen.claim.hit_time.setDateTime(_local(yesterday, 20))
    qtbot.mouseClick(screen.claim.open_btn, Qt.MouseButton.LeftButton)
    settle()
    return swiper, engine, today


def test_a_cease_once_hit_notice_makes_the_next_approval_cease_the_fund(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:  # noqa: F811 - the fixture imported above
    window, screen = room_tab
    swiper, engine, today = _case_opened(qtbot, window, screen)
    assert "Case #1 opened." in screen.claim.result.text()

    _page(screen, "Cessation")
    screen.closure.notice_kind.setCurrentIndex(screen.closure.notice_kind.findData("cease_once_hit"))
    qtbot.keyClicks(screen.closure.notice_reason, "the room moves to tournaments only")
    asked: list[str] = []
    screen.ask = lambda title, text: asked.append(text) is None and False
    n = len(swiper.prompts)
    qtbot.mouseClick(screen.closure.notice_btn, Qt.MouseButton.LeftButton)
    assert "ceases once it is next hit" in asked[-1] and len(swiper.prompts) == n
    assert screen.closure.closure_msg.text() == "No notice recorded: not confirmed."
    screen.ask = lambda title, text: True
    qtbot.mouseClick(screen.closure.notice_btn, Qt.MouseButton.LeftButton)
    settle()
    assert swiper.prompts[-1][0] == "executive" and not swiper.refusals
    assert screen.closure.closure_msg.text() == "Notice 1 recorded."
    assert screen.fund.ceased_label.text() == f"ceases once hit (notice of {today})"
    assert screen.closure.notice_status.text().startswith(
        f"Holds: notice 1 of {today}: ceases once hit (the room moves to tournaments only)")
    _shot(window, qtbot, "bbj-notice-cease-once-hit.png")

    bc.advance(engine, 1, "verified", SUPERVISOR, deck_sorted=True, cctv_reviewed=True)
    bc.advance(engine, 1, "request_filed", SUPERVISOR)
    _page(screen, "Cases")
    screen.refresh_cases()
    settle()
    screen.cases.case_table.selectRow(0)
    assert screen.cases.next_box.currentData() == "approved"
    # approving without ceasing is impossible: the box is ticked and can not be unticked
    assert screen.cases.cease_box.isChecked() and not screen.cases.cease_box.isEnabled()
    assert f"notice of {today}" in screen.cases.cease_box.text()
    _shot(window, qtbot, "bbj-notice-approval.png")
    asked.clear()
    screen.ask = lambda title, text: asked.append(text) is None
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert f"The notice of {today} says the fund ceases once hit" in asked[0]
    assert screen.cases.case_msg.text() == "Case #1: approved. The fund has ceased (TGD-1540)."
    with Session(engine) as s:
        c = s.execute(select(BbjCessation)).scalar_one()
        award = s.execute(select(BbjAward)).scalar_one()
    # the reserve pooled into main: 50,705.60 + 302.40 = 51,008.00, all won (fraction 1)
    assert (c.kind, award.main_before_cents, award.award_cents, award.ceases_fund) == (
        "after_hit", 5_100_800, 5_100_800, True)
    assert screen.fund.ceased_label.text() == "CEASED (TGD-1540)"


def test_the_room_closes_and_the_fund_is_forfeited_to_pagcor(  # type: ignore[no-untyped-def]
        qtbot, room_tab, tmp_path: Path) -> None:  # noqa: F811 - the fixture imported above
    window, screen = room_tab
    engine = screen.console.engine
    today = datetime.now(screen.tz).date()
    yesterday = today - timedelta(days=1)
    _count_and_post(engine, yesterday, screen.tz)  # main 50,705.60, reserve 302.40
    screen.refresh_funds()
    settle()
    _page(screen, "Cessation")
    qtbot.keyClicks(screen.closure.closure_reason, "poker room closed for good (lease ended)")
    asked: list[str] = []
    screen.ask = lambda title, text: asked.append(text) is None and False
    qtbot.mouseClick(screen.closure.forfeit_btn, Qt.MouseButton.LeftButton)
    assert ("main ₱50,705.60 (with any seed money) and reserve ₱302.40, together ₱51,008.00"
            in asked[0])
    assert bare_amounts(asked[0]) == []  # the confirmation writes the fund's ₱ (issue 26)
    assert screen.closure.closure_msg.text() == "Nothing forfeited: not confirmed."
    screen.closure_scroll.ensureWidgetVisible(screen.closure.closure_msg)
    assert screen.closure_scroll.horizontalScrollBar().maximum() == 0  # fits at 1366 x 768
    _shot(window, qtbot, "bbj-closure-page.png")

    screen.ask = lambda title, text: True
    supervisor_only = RoleSwiper(only_supervisor=True)
    window.authorize = supervisor_only
    qtbot.mouseClick(screen.closure.forfeit_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "needs an executive" in supervisor_only.refusals[0]
    assert bf.funds(engine, "bbj") == bf.Funds(5_070_560, 30_240)

    swiper = RoleSwiper()
    window.authorize = swiper
    qtbot.mouseClick(screen.closure.forfeit_btn, Qt.MouseButton.LeftButton)
    settle()
    assert not swiper.refusals and swiper.prompts[-1][0] == "executive"
    assert screen.closure.closure_msg.text().startswith(
        "Fund Poker room BBJ forfeited to PAGCOR: main ₱50,705.60 (seed ₱50,000.00), reserve "
        "₱302.40, total ₱51,008.00.")
    assert screen.fund.ceased_label.text() == f"FORFEITED TO PAGCOR ON {today}"
    assert (screen.fund.main_label.text(), screen.fund.reserve_label.text()) == ("MAIN ₱0.00",
                                                                                 "RESERVE ₱0.00")
    assert not screen.closure.forfeit_btn.isEnabled() and not screen.closure.notice_btn.isEnabled()
    _shot(window, qtbot, "bbj-closure-forfeited.png")

    forms = screen.forms
    _page(screen, "Forms")
    forms.kind_box.setCurrentIndex(forms.kind_box.findData("forfeiture"))
    pdf = _save_pdf(forms, tmp_path / "forfeiture.pdf")
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF")
    assert forms.msg.text().startswith("Forfeiture on closure - fund bbj: saved to")
    # the report's example page (docs/forms.md)
    render_png(forfeiture_html(demo_forfeiture()), SHOTS / "bbj-closure-report.png")


def test_a_notice_of_the_cases_fund_is_confirmed_even_with_another_fund_shown(  # type: ignore[no-untyped-def]
        qtbot, room_tab) -> None:  # noqa: F811 - the fixture imported above
    """The case table lists every fund's cases: a case of a fund under a cease-once-hit notice,
    approved while another fund is chosen at the top, still asks to confirm the cessation
    (read with the step's card, from the case's own fund) before anyone swipes."""
    window, screen = room_tab
    swiper, engine, today = _case_opened(qtbot, window, screen)
    bc.give_notice(engine, "bbj", EXECUTIVE, "cease_once_hit", notice_on=today,
                   reason="the room moves to tournaments only")
    bc.advance(engine, 1, "verified", SUPERVISOR, deck_sorted=True, cctv_reviewed=True)
    bc.advance(engine, 1, "request_filed", SUPERVISOR)
    bf.create_fund(engine, "hall", "Hall BBJ")
    screen.refresh_funds()
    settle()
    screen.fund.fund_box.setCurrentIndex(screen.fund.fund_box.findData("hall"))
    settle()
    _page(screen, "Cases")
    screen.refresh_cases()
    settle()
    screen.cases.case_table.selectRow(0)
    assert screen.cases.next_box.currentData() == "approved"
    assert not screen.cases.cease_box.isChecked()  # the status shown is the hall's: no notice
    asked: list[str] = []
    screen.ask = lambda title, text: asked.append(text) is None and False
    n = len(swiper.prompts)
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "A notice says the jackpot fund" in asked[-1] and "CEASES it" in asked[-1]
    assert screen.cases.case_msg.text() == "Not approved: the cessation was not confirmed."
    assert len(swiper.prompts) == n  # nobody was asked to swipe
    with Session(engine) as s:
        assert s.execute(select(BbjAward)).first() is None
    screen.ask = lambda title, text: True
    qtbot.mouseClick(screen.cases.step_btn, Qt.MouseButton.LeftButton)
    settle()
    assert "CEASES with this hit" in swiper.prompts[-1][1]
    assert screen.cases.case_msg.text() == "Case #1: approved. The fund has ceased (TGD-1540)."
    with Session(engine) as s:
        assert s.execute(select(BbjCessation.fund_id)).scalar_one() == "bbj"
