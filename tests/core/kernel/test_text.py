"""Text that reaches paper or a terminal is clean (core/kernel/text.py): a name or a reason is
stored as typed, but a control character in it never reaches the printer or the terminal as a
command."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.kernel.text import printable
from core.ledger.models import Employee
from core.people.who import Who
from printing.escpos.slip import demo_slip, render_slip
from tests.core.cli.test_employees_command import SWIPE_A, db, enroll, run_cli  # noqa: F401 (db: fixture)

ESC, GS = "\x1b", "\x1d"
DRAWER = ESC + "p\x00\x19\xfa"  # ESC p: open the cash drawer
CUT = GS + "V\x00"  # GS V: cut the paper
CLEAR = ESC + "[2J" + ESC + "[H"  # a terminal's clear screen


@pytest.mark.parametrize(("raw", "shown"), [
    ("Ana Reyes", "Ana Reyes"),
    ("José Núñez 王小明", "José Núñez 王小明"),
    ("Eve" + DRAWER, "Eve?p??\u00fa"),
    ("line one\r\nline two\tend", "line one  line two end"),
    ("abc\u202edcba", "abc?dcba"),  # a right-to-left override (Cf) would reverse the text
    ("no\u00a0break", "no\u00a0break"),  # a no-break space is a space, kept
    ("soft\u00adhyphen", "soft\u00adhyphen"),  # a soft hyphen is a character of the code page
])
def test_printable_replaces_every_control_and_keeps_every_letter(raw: str, shown: str) -> None:
    assert printable(raw) == shown
    assert all(c.isprintable() or c in " \u00a0\u00ad" for c in printable(raw))


def test_a_name_with_printer_commands_prints_as_text_not_as_commands() -> None:
    clean = demo_slip()
    evil = dataclasses.replace(
        clean, authorized_by=Who("10482" + DRAWER, "Eve" + DRAWER + CUT, "Supervisor"),
        notes=("reason" + CUT + DRAWER,))
    data = render_slip(evil)
    assert b"\x1bp" not in data  # the drawer never opens
    cuts = render_slip(dataclasses.replace(clean, notes=("reason",))).count(b"\x1dV")
    assert data.count(b"\x1dV") == cuts  # only the slip's own cut
    assert b"Eve?p??" in data


def test_employees_list_never_sends_a_terminal_escape(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str,  # noqa: F811
        engine: Engine) -> None:
    rc, _out, _err = enroll(monkeypatch, capsys, db, "1234", "Mallory" + CLEAR, "supervisor",
                            SWIPE_A)
    assert rc == 0
    with Session(engine) as s:  # stored as typed
        assert s.scalar(select(Employee.name).where(Employee.number == "1234")) == \
            "Mallory" + CLEAR
    rc, out, err = run_cli(monkeypatch, capsys, ["employees", "list", "--db", db])
    assert rc == 0 and "Mallory?[2J?[H" in out
    assert ESC not in out + err
