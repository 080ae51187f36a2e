"""One shape for "who" (core/people/who.py): how a person prints on slips, pages and screens,
and how the ledger's columns and JSON documents carry them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from core.people.who import NOBODY, Who


def test_a_person_prints_one_way_name_number_role() -> None:
    who = Who("1001", "Dana Reyes", "supervisor")
    assert who.label() == "Dana Reyes #1001 (supervisor)"
    assert who.short() == "Dana Reyes #1001"


def test_an_approval_names_the_approver_by_role_then_number_and_name() -> None:
    """The sentences that record an approval (a contribution rate, a floor change) were
    written "approved by executive X1 (Exe Cutive)" and are read in those words: they take them
    from Who, not from an f-string of their own."""
    exe = Who("X1", "Exe Cutive", "executive")
    assert exe.by_role() == "executive X1 (Exe Cutive)"


def test_the_poker_rooms_recorded_by_column_keeps_number_then_name() -> None:
    """The poker room's ``recorded_by`` rows were written "<number> <name>"; new rows must
    read the same so a fund's history reads one way."""
    assert Who("2001", "Evelyn Cruz", "executive").recorded() == "2001 Evelyn Cruz"


def test_of_reads_an_employee_row() -> None:
    row = SimpleNamespace(id=7, number="3001", name="Sam Lee", role="surveillance",
                          card_mac=b"x")
    assert Who.of(row) == Who("3001", "Sam Lee", "surveillance")


def test_json_round_trip_and_refusals() -> None:
    who = Who("1002", "Marco Santos", "supervisor")
    assert who.to_json() == {"number": "1002", "name": "Marco Santos", "role": "supervisor"}
    assert Who.from_json(who.to_json()) == who
    with pytest.raises(ValueError, match=r"^who\.role: must be non-empty text$"):
        Who.from_json({"number": "1", "name": "A"})
    with pytest.raises(ValueError, match=r"^who: must be an object"):
        Who.from_json(["1", "A", "supervisor"])


def test_a_pay_nobody_authorized_is_signed_auto_paid() -> None:
    assert NOBODY.label() == "Auto-paid (no secondary verification) #AUTO (system)"


def test_every_record_that_names_a_person_carries_a_who() -> None:
    """One shape for "who" (issue 25): no record keeps its own number/name/role fields or a
    ready-made string for the person who acted."""
    import dataclasses
    import typing

    from core.desks.desk import DeskPass
    from core.machines.checks import CheckLine, RecordedCheck
    from core.pokerroom.cases import Event, StepAuthority
    from core.pokerroom.deadlines import Filing
    from core.tablegames.slip_record import VoidMark, WinSlip
    from core.tablegames.views import DecisionRecord, SlipVoidView

    people = {WinSlip: ("authorized_by", "verified_by"), VoidMark: ("by",),
              SlipVoidView: ("by",), DecisionRecord: ("by",), RecordedCheck: ("by",),
              CheckLine: ("by",), Event: ("by",), Filing: ("by",), DeskPass: ("who",),
              StepAuthority: ("verified_by",)}
    for record, names in people.items():
        hints = typing.get_type_hints(record)
        for name in names:
            assert hints[name] in (Who, Who | None), f"{record.__name__}.{name}"
        own = {f.name for f in dataclasses.fields(record)} & {
            "employee_no", "employee_number", "employee_name", "employee_role", "employee"}
        assert not own, f"{record.__name__} keeps {own}"
