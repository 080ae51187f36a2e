"""The accountant's and surveillance's desks on screen (gui/desks/desk_window.py,
gui/desks/desk_start.py, gui/desks/ledger_check.py, ``podium console --role``): a read-only window
with exactly its role's tabs, no controller link, a card at start that picks the desk, a placeholder
for a missing panel, and the surveillance's ledger check.

Screenshots go to $PODIUM_SCREENSHOT_DIR when it is set (desk-accountant.png,
desk-surveillance.png, desk-ledger-check.png)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QWidget
from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from core.desks.desk import Desk, open_ledger
from core.ledger import integrity
from core.ledger.db import make_engine
from core.ledger.models import Employee
from core.ledger.people import record_event
from core.people import cardkey
from core.people.auth import add_employee, pin_hash
from gui import app as gui_app
from gui.common.authorize import SwipePrompt
from gui.common.bridge import default_bridge
from gui.common.swipe import SwipeCatcher
from gui.desks.desk_start import DeskChoice, card_prompt
from gui.desks.desk_window import DESK_TABS, DeskWindow, Placeholder
from gui.desks.ledger_check import LedgerCheckPanel
from tests.conftest import PG_URL
from tests.core.ledger.test_audit import played
from tests.core.tablegames.test_floor import ACC, EXE, SUP, counts, swipe
from tests.gui.swiping import type_pin, type_swipe
from tests.ledgers import migrate

SHOTS = os.environ.get("PODIUM_SCREENSHOT_DIR")
SURV = "5000000000000077"
UNKNOWN = "5000000000000999"


def shot(widget: QWidget, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


def _ledger(engine: Engine) -> Any:
    floor = played(engine)  # contributions, a paid hit with its slip, a rejected hit
    with Session(engine) as s, s.begin():
        add_employee(s, cardkey.load(), "V1", "Sur Veillance", "surveillance", SURV)
    return floor


@pytest.fixture
def ledger(sqlite_engine: Engine) -> tuple[Engine, Any, str]:
    """A SQLite ledger with a floor's work in it, its floor and its URL."""
    floor = _ledger(sqlite_engine)
    return sqlite_engine, floor, sqlite_engine.url.render_as_string(hide_password=False)


@pytest.fixture
def catcher(qapp: Any) -> Iterator[SwipeCatcher]:
    c = SwipeCatcher()
    c.install(qapp)
    yield c
    qapp.removeEventFilter(c)


def _opts(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    gui_app._options(parser, demo=False)
    return parser.parse_args(list(argv))


def _titles(window: DeskWindow) -> list[str]:
    return [window.tabs.tabText(i) for i in range(window.tabs.count())]


def _head(engine: Engine) -> str:
    with engine.connect() as conn:
        return integrity.head_text(*integrity.chain_head(conn))


@pytest.fixture
def no_controller_link(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fails whatever would make a ConsoleCore or open a network socket from Python (a
    controller link, a simulator, a network printer); the list records the attempts."""
    made: list[str] = []

    def refuse(what: str) -> Any:
        def fn(*_a: Any, **_k: Any) -> Any:
            made.append(what)
            raise AssertionError(f"a desk made {what}")
        return fn

    import core.app.console

    monkeypatch.setattr(core.app.console.ConsoleCore, "__init__", refuse("a ConsoleCore"))
    for name in ("connect", "connect_ex", "bind", "listen"):
        monkeypatch.setattr(socket.socket, name, refuse(f"socket.{name}"))
    return made


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql",
                                                            marks=pytest.mark.postgres)])
def test_console_role_accountant_opens_exactly_its_tabs_and_no_controller_link(
        qtbot: Any, request: pytest.FixtureRequest, tmp_path: Path, backend: str,
        catcher: SwipeCatcher) -> None:
    if backend == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
        url = engine.url.render_as_string(hide_password=False)
    else:
        engine = request.getfixturevalue("pg_engine_factory")()
        with engine.connect() as conn:
            schema = conn.execute(text("SELECT current_schema()")).scalar()
        url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    migrate(engine)
    _ledger(engine)
    before = counts(engine)
    made = request.getfixturevalue("no_controller_link")
    threads = {t.name for t in threading.enumerate()}
    opts = _opts("--floor", "demo", "--db", url, "--role", "accountant")
    config, paytables, desk_engine = gui_app.open_desk_ledger(opts.floor, opts.db, demo=False)
    window = gui_app.desk_window(opts.role, config, paytables, desk_engine, catcher)
    qtbot.addWidget(window)
    window.show()
    try:
        assert _titles(window) == [t for t, _ in DESK_TABS["accountant"]] \
            == ["Reconciliation", "Win pages", "Plots"]
        assert window.desk.role == "accountant" and window.desk.employee == ""
        assert window.badge.text() == "READ-ONLY"
        assert window.findChild(QLabel, "deskRole").text() == "ACCOUNTANT'S DESK"
        qtbot.waitUntil(lambda: window.chain_head_text != "")
        assert window.chain_head_text == _head(engine)
        assert window.chain_head_text in window.head_label.text()
        # nothing on the window writes: its one menu reads the head again or quits
        actions = [a.text() for m in window.menuBar().actions() if m.menu() is not None
                   for a in m.menu().actions()]
        assert actions == ["&Read the chain head again", "&Quit"]
        # no table controller, no printer, no simulator, no ledger writer
        assert made == []
        new = {t.name for t in threading.enumerate()} - threads
        assert not [n for n in new if n.startswith(("podium-links", "podium-ledger-writer",
                                                    "podium-printer", "podium-io",
                                                    "podium-simulator"))], new
        with pytest.raises(Exception, match="readonly database|read-only transaction"), \
                window.desk.engine.begin() as conn:
            conn.execute(text("INSERT INTO settings (key, value) VALUES ('desk', 'x')"))
        if backend == "sqlite":
            shot(window, "desk-accountant")
    finally:
        window.close()
        desk_engine.dispose()
    assert counts(engine) == before
    if backend == "postgresql":
        engine.dispose()


def test_podium_console_role_names_a_ledger_it_can_not_open(tmp_path: Path,
                                                            capsys: Any) -> None:
    missing = tmp_path / "none.sqlite3"
    rc = gui_app.run(argparse.Namespace(_command="console", rest=[
        "--floor", "demo", "--db", f"sqlite:///{missing}", "--role", "surveillance"]))
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith(f"podium console: no ledger at {missing}") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not missing.exists()


def _swiping_exec(qtbot: Any, monkeypatch: pytest.MonkeyPatch, cards: list[str],
                  seen: list[str]) -> None:
    """SwipePrompt.exec as a person at the desk: each card swiped in turn at reader speed; a
    refusal's message is kept in ``seen``; the first card accepted ends it."""

    def exec_(self: SwipePrompt) -> int:
        self.show()
        for card in cards:
            before = self.message.text()
            type_swipe(self, swipe(card))
            qtbot.waitUntil(lambda was=before: not self.busy and (
                self.result_value is not None or self.message.text() != was))
            default_bridge().wait_idle()
            if self.result_value is not None:
                return int(QDialog.DialogCode.Accepted)
            assert self.isVisible()  # a refused card: the prompt stays for another
            seen.append(self.message.text())
        self.reject()
        return int(QDialog.DialogCode.Rejected)

    monkeypatch.setattr(SwipePrompt, "exec", exec_)


def test_the_card_swiped_at_start_picks_the_desk_and_an_unknown_card_is_refused(
        qtbot: Any, ledger: tuple[Engine, Any, str], catcher: SwipeCatcher,
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine, floor, url = ledger
    before = counts(engine)
    desk_engine = open_ledger(url)
    try:
        seen: list[str] = []
        _swiping_exec(qtbot, monkeypatch, [UNKNOWN, SURV], seen)
        window = gui_app.desk_window("card", floor.config, {}, desk_engine, catcher)
        qtbot.addWidget(window)
        assert seen == ["card: not enrolled (unknown card)"]
        assert window.desk.role == "surveillance"
        assert window.desk.employee == "Sur Veillance #V1"
        assert window.who_label.text() == "Sur Veillance #V1"
        assert _titles(window) == ["Hits", "Machine checks", "Plots", "Ledger check"]
        window.close()

        seen.clear()
        _swiping_exec(qtbot, monkeypatch, [SUP], seen)  # a supervisor: the accountant's
        window = gui_app.desk_window("card", floor.config, {}, desk_engine, catcher)
        qtbot.addWidget(window)
        assert (window.desk.role, window.desk.employee) == ("accountant", "Sue Visor #S1")
        window.close()

        # an executive chooses
        def choose(self: DeskChoice) -> int:
            names = sorted(b.objectName() for b in self.findChildren(QPushButton)
                           if b.objectName().startswith("desk-"))
            assert names == ["desk-accountant", "desk-surveillance"]
            self.findChild(QPushButton, "desk-surveillance").click()
            return int(self.result())

        monkeypatch.setattr(DeskChoice, "exec", choose)
        _swiping_exec(qtbot, monkeypatch, [EXE], seen)
        window = gui_app.desk_window("card", floor.config, {}, desk_engine, catcher)
        qtbot.addWidget(window)
        assert (window.desk.role, window.desk.employee) == ("surveillance", "Exe Cutive #X1")
        window.close()

        seen.clear()
        _swiping_exec(qtbot, monkeypatch, [UNKNOWN], seen)  # then cancelled: no desk
        assert gui_app.desk_window("card", floor.config, {}, desk_engine, catcher) is None
        assert seen == ["card: not enrolled (unknown card)"]
    finally:
        desk_engine.dispose()
    assert counts(engine) == before  # no swipe-log row: the desk can not write one


def test_the_start_prompt_looks_like_every_swipe_prompt_and_names_the_refusal(
        qtbot: Any, ledger: tuple[Engine, Any, str], catcher: SwipeCatcher) -> None:
    engine, floor, url = ledger
    desk_engine = open_ledger(url)
    try:
        prompt = card_prompt(catcher, desk_engine, floor.config)
        qtbot.addWidget(prompt)
        prompt.show()
        type_swipe(prompt, swipe(ACC))
        qtbot.waitUntil(lambda: prompt.result_value is not None)
        assert prompt.result_value.desks == ("accountant",)  # type: ignore[attr-defined]
        prompt = card_prompt(catcher, desk_engine, floor.config)
        qtbot.addWidget(prompt)
        prompt.show()
        type_swipe(prompt, swipe(UNKNOWN))
        qtbot.waitUntil(lambda: "not enrolled" in prompt.message.text())
        assert prompt.isVisible()
        shot(prompt, "desk-start-refused")
        prompt.reject()
    finally:
        desk_engine.dispose()


def test_a_floor_that_asks_a_pin_at_every_swipe_asks_it_at_the_desk_too(
        qtbot: Any, ledger: tuple[Engine, Any, str], catcher: SwipeCatcher) -> None:
    engine, floor, url = ledger
    with Session(engine) as s, s.begin():
        acc = s.scalar(select(Employee).where(Employee.number == "A1"))
        assert acc is not None
        acc.pin = pin_hash(cardkey.load(), acc.id, "4321")
        record_event(s, acc, "pin_set", operator="test", when=datetime.now(UTC))
    config = dataclasses.replace(floor.config, authorization=dataclasses.replace(
        floor.config.authorization, pin="every_swipe"))
    desk_engine = open_ledger(url)
    try:
        prompt = card_prompt(catcher, desk_engine, config)
        qtbot.addWidget(prompt)
        prompt.show()
        type_swipe(prompt, swipe(ACC))
        qtbot.waitUntil(lambda: prompt.pin_field.isVisible())
        type_pin(prompt, "1111")
        qtbot.waitUntil(lambda: "wrong PIN" in prompt.message.text())
        type_swipe(prompt, swipe(ACC))
        qtbot.waitUntil(lambda: prompt.pin_field.isVisible())
        type_pin(prompt, "4321")
        qtbot.waitUntil(lambda: prompt.result_value is not None)
        assert prompt.result_value.desks == ("accountant",)  # type: ignore[attr-defined]
    finally:
        desk_engine.dispose()


class BrokenPanel(QWidget):
    def __init__(self, desk: Desk) -> None:
        raise RuntimeError("the panel's query is wrong")


@pytest.mark.allow_logged_errors
def test_a_missing_or_broken_panel_shows_a_placeholder_not_a_crash(
        qtbot: Any, ledger: tuple[Engine, Any, str]) -> None:
    engine, floor, url = ledger
    desk = Desk("surveillance", open_ledger(url), floor.config)
    try:
        window = DeskWindow(desk, tabs=[
            ("Gone", "gui.no_such_panel:NoSuchPanel"),
            ("Broken", "tests.gui.desks.test_gui_desk:BrokenPanel"),
            ("No class", "gui.desks.ledger_check:NoSuchPanel"),
            ("Ledger check", "gui.desks.ledger_check:LedgerCheckPanel"),
        ])
        qtbot.addWidget(window)
        window.show()
        tabs = [window.tabs.widget(i) for i in range(window.tabs.count())]
        assert _titles(window) == ["Gone", "Broken", "No class", "Ledger check"]
        assert [type(t).__name__ for t in tabs] == ["Placeholder", "Placeholder",
                                                    "Placeholder", "LedgerCheckPanel"]
        problems = [t.problem for t in tabs[:3] if isinstance(t, Placeholder)]
        assert problems == [
            "The panel's module gui.no_such_panel is not installed in this Podium.",
            "The panel BrokenPanel could not be built: RuntimeError: the panel's query is "
            "wrong",
            "The module gui.desks.ledger_check has no panel NoSuchPanel."]
        default_bridge().wait_idle()
        window.close()
    finally:
        desk.engine.dispose()


def test_the_ledger_check_verifies_on_a_reader_thread_and_shows_the_chain_head(
        qtbot: Any, ledger: tuple[Engine, Any, str]) -> None:
    engine, floor, url = ledger
    desk = Desk("surveillance", open_ledger(url), floor.config, {}, "Sur Veillance #V1")
    before = counts(engine)
    try:
        window = DeskWindow(desk)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.chain_head_text != "")
        shot(window, "desk-surveillance")
        window.tabs.setCurrentIndex(_titles(window).index("Ledger check"))
        panel = window.tabs.currentWidget()
        assert isinstance(panel, LedgerCheckPanel)
        ran_on: list[str] = []
        import gui.desks.ledger_check as lc

        real = lc.verify

        def spy(*a: Any, **k: Any) -> Any:
            ran_on.append(threading.current_thread().name)
            return real(*a, **k)

        lc.verify = spy  # type: ignore[assignment]
        try:
            panel.check_btn.click()
            qtbot.waitUntil(lambda: not panel.running)
        finally:
            lc.verify = real  # type: ignore[assignment]
        assert ran_on and ran_on[0].startswith("podium-gui-read")
        assert panel.verdict.text() == "LEDGER VERIFIED"
        assert panel.head.text() == _head(engine) == window.chain_head_text
        assert panel.report is not None and panel.report.ok
        shot(window, "desk-ledger-check")

        # a head kept on paper that the ledger no longer matches
        n = int(window.chain_head_text.split()[-1].split(":")[0])
        panel.heads.setPlainText(f"{n}:{'0' * 64}")
        panel.check_btn.click()
        qtbot.waitUntil(lambda: not panel.running)
        assert panel.verdict.text().startswith("LEDGER BROKEN")
        assert panel.first.text().startswith(f"chain: kept head {n}") or \
            f"chain row {n}" in panel.first.text(), panel.first.text()
        assert panel.breaks.isVisible() and panel.breaks.item(0).text() == panel.first.text()
        shot(window, "desk-ledger-check-broken")
        panel.heads.setPlainText("not a head")
        panel.check_btn.click()
        assert panel.verdict.text() == "NOT CHECKED"
        assert "expected ROW:HASH" in panel.first.text()
        window.close()
    finally:
        desk.engine.dispose()
    assert counts(engine) == before
