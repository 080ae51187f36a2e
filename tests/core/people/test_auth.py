"""Card swipes (ISO 7813 keyboard wedge), keyed card hashes, authority (core/people/auth.py)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from core.floorconfig import Authorization
from core.ledger.models import Employee
from core.people import cardkey
from core.people.auth import (
    AuthError,
    Gate,
    add_employee,
    has_authority,
    parse_swipe,
    required_role,
)

numbers = st.text(alphabet="0123456789", min_size=4, max_size=19)
names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ /", max_size=26)


def track1(number: str, name: str = "DOE/JANE", rest: str = "2912101") -> str:
    return f"%B{number}^{name}^{rest}?"


def track2(number: str, rest: str = "2912101") -> str:
    return f";{number}={rest}?"


@given(numbers, names)
def test_swipe_track1_only_gives_the_card_number(number: str, name: str) -> None:
    assert parse_swipe(track1(number, name)) == number


@given(numbers)
def test_swipe_track2_only_gives_the_card_number(number: str) -> None:
    assert parse_swipe(track2(number) + "\n") == number


@given(numbers, names)
def test_swipe_both_tracks_agreeing_give_the_card_number(number: str, name: str) -> None:
    assert parse_swipe(track1(number, name) + track2(number)) == number


@given(numbers)
def test_swipe_one_failed_track_uses_the_other(number: str) -> None:
    assert parse_swipe("%E?" + track2(number)) == number
    assert parse_swipe(track1(number) + ";E?") == number


@given(numbers, numbers)
def test_swipe_tracks_with_different_numbers_is_refused_without_echo(a: str, b: str) -> None:
    if a == b:
        return
    with pytest.raises(AuthError) as exc:
        parse_swipe(track1(a) + track2(b))
    assert exc.value.outcome == "bad_read"
    assert "different" in str(exc.value)
    assert a not in str(exc.value) and b not in str(exc.value)


@pytest.mark.parametrize("raw", ["%E?", ";E?", "%E?;E?", "", "   ", "hello", "%B1234?",
                                 ";12a4=1?", "1234567890", track2("1234") + "junk"])
def test_swipe_failed_or_garbled_read_is_a_bad_read(raw: str) -> None:
    with pytest.raises(AuthError) as exc:
        parse_swipe(raw)
    assert exc.value.outcome == "bad_read"
    if len(raw.strip()) > 3:
        assert raw.strip() not in str(exc.value)


@given(st.text(max_size=60))
def test_swipe_never_crashes_and_never_echoes_track_data(raw: str) -> None:
    try:
        parse_swipe(raw)
    except AuthError as exc:
        if len(raw.strip()) >= 6:
            assert raw.strip() not in str(exc)


def test_roles_order_supervisor_below_executive_others_cannot_pay() -> None:
    assert has_authority("executive", "supervisor")
    assert has_authority("executive", "executive")
    assert has_authority("supervisor", "supervisor")
    assert not has_authority("supervisor", "executive")
    for role in ("surveillance", "accountant"):
        assert not has_authority(role, "supervisor")


def test_required_role_is_executive_at_the_threshold_or_by_paytable() -> None:
    assert required_role("supervisor", 499_999, 500_000) == "supervisor"
    assert required_role("supervisor", 500_000, 500_000) == "executive"
    assert required_role("executive", 100, 500_000) == "executive"
    with pytest.raises(AuthError):
        required_role("surveillance", 100, 500_000)


KEY = cardkey.ephemeral()
NO_PIN = Authorization(executive_threshold_cents=500_000, pin="none")


def gate(engine: Engine, policy: Authorization = NO_PIN) -> Gate:
    return Gate(engine, KEY, policy)


def test_card_number_is_never_stored_only_its_keyed_hash(engine: Engine) -> None:
    with Session(engine) as s, s.begin():
        add_employee(s, KEY, "E1", "Ann", "supervisor", "6012345678901234")
        add_employee(s, KEY, "E2", "Bob", "supervisor", "6012345678901235")
    with Session(engine) as s:
        macs = []
        for emp in s.scalars(select(Employee)):
            kept = (emp.card_mac or b"") + emp.card_hash + emp.card_salt
            assert b"6012345678901234" not in kept and b"6012345678901235" not in kept
            assert emp.card_hash == b"" and emp.card_salt == b""  # no PBKDF2 hash any more
            macs.append(emp.card_mac)
        assert len(set(macs)) == 2 and all(m is not None and len(m) == 32 for m in macs)
        # without the key the ledger's value is not the card's hash, salted or not
        assert hashlib.sha256(b"6012345678901234").digest() not in macs
    g = gate(engine)
    assert g.check(track2("6012345678901234")).number == "E1"
    assert g.check(track2("6012345678901235")).number == "E2"
    # another key finds nobody
    with pytest.raises(AuthError) as exc:
        Gate(engine, cardkey.ephemeral(), NO_PIN).check(track2("6012345678901234"))
    assert exc.value.outcome == "wrong_key" and "not the key" in str(exc.value)


def test_identify_refuses_unknown_and_inactive_cards(engine: Engine) -> None:
    with Session(engine) as s, s.begin():
        add_employee(s, KEY, "E9", "Old Hand", "executive", "4000000000000009", active=False)
    g = gate(engine)
    with pytest.raises(AuthError) as exc:
        g.identify(track2("4000000000000001"))
    assert exc.value.outcome == "unknown_card"
    assert "4000000000000001" not in str(exc.value)
    with pytest.raises(AuthError) as exc:
        g.identify(track2("4000000000000009"))
    assert exc.value.outcome == "inactive"


def test_add_employee_refuses_bad_role_duplicate_number_and_reused_card(engine: Engine) -> None:
    with Session(engine) as s, s.begin():
        add_employee(s, KEY, "E1", "Ann", "supervisor", "11112222")
    with Session(engine) as s, s.begin():
        with pytest.raises(AuthError, match="role"):
            add_employee(s, KEY, "E2", "Bob", "dealer", "11113333")
        with pytest.raises(AuthError, match="already enrolled"):
            add_employee(s, KEY, "E1", "Bob", "supervisor", "11113333")
        with pytest.raises(AuthError, match="another employee"):
            add_employee(s, KEY, "E3", "Cid", "supervisor", "11112222")
        with pytest.raises(AuthError, match="4 to 19 digits"):
            add_employee(s, KEY, "E4", "Dee", "supervisor", "12ab")


def test_authorize_checks_authority_of_the_swiper(engine: Engine) -> None:
    with Session(engine) as s, s.begin():
        add_employee(s, KEY, "S1", "Sue", "supervisor", "5000000000000001")
        add_employee(s, KEY, "A1", "Acc", "accountant", "5000000000000002")
        add_employee(s, KEY, "X1", "Exe", "executive", "5000000000000003")
    g = gate(engine)
    assert g.check(track2("5000000000000001"), "supervisor", "pay").number == "S1"
    assert g.check(track1("5000000000000003"), "executive", "pay").number == "X1"
    with pytest.raises(AuthError) as exc:
        g.check(track2("5000000000000001"), "executive", "pay")
    assert exc.value.outcome == "insufficient_authority"
    assert "needs an executive" in str(exc.value)
    with pytest.raises(AuthError) as exc:
        g.check(track2("5000000000000002"), "supervisor", "pay")
    assert exc.value.outcome == "insufficient_authority"
    assert "may not authorize this pay: it needs a supervisor" in str(exc.value)
    # the words follow the action the card was swiped for
    with pytest.raises(AuthError, match="may not authorize a rejection: it needs a "
                                        "supervisor"):
        g.check(track2("5000000000000002"), "supervisor", "reject")
    with pytest.raises(AuthError, match="can not authorize a meter adjustment: it needs "
                                        "an executive"):
        g.check(track2("5000000000000001"), "executive", "adjust")
