"""core/app/listeners.py: who the console core tells what (no ledger, no links)."""

from __future__ import annotations

import logging

import pytest

from core.app.listeners import Listeners


def test_a_removed_listener_is_told_nothing_more() -> None:
    told = Listeners()
    heard: list[str] = []
    remove = told.add_message_listener(heard.append)
    told.say("one")
    remove()
    remove()  # a second call does nothing
    told.say("two")
    assert heard == ["one"]


def test_a_failing_listener_does_not_keep_the_others_from_hearing(
        caplog: pytest.LogCaptureFixture) -> None:
    told = Listeners()
    heard: list[str] = []

    def broken(_table: str) -> None:
        raise RuntimeError("boom")

    told.add_status_listener(broken)
    told.add_status_listener(heard.append)
    with caplog.at_level(logging.ERROR, logger="podium.runtime"):
        told.status_changed("T1")
    assert heard == ["T1"]
    assert any(r.getMessage() == "status listener failed" for r in caplog.records)


def test_every_resync_listener_is_called_and_each_is_removable() -> None:
    told = Listeners()
    calls: list[str] = []
    told.add_resync_listener(lambda: calls.append("a"))
    remove_b = told.add_resync_listener(lambda: calls.append("b"))
    told.resync()
    remove_b()
    told.resync()
    assert calls == ["a", "b", "a"]


def test_a_message_is_logged_even_with_no_listener(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="podium.runtime"):
        Listeners().say("Table T1 ONLINE")
    assert [r.getMessage() for r in caplog.records] == ["Table T1 ONLINE"]
