"""The poker room's regulatory deadlines (core/pokerroom/calendar.py, deadlines.py, RULES.md 6
"Deadlines and reports", docs/bbj.md "Room deadlines") and their filings (``bbj_filings``,
core/pokerroom/filings.py), from the
guideline's words: the final tax withheld in a month is remitted to the BIR by the 10th of the
next month (the floor's ``bir_remittance_day``); TGD-108 by the earlier of 7 days after that
and the end of the month after the quarter; TGD-1540 part 2 within 2 business days after a
cessation; players told 7 days ahead; the fund's quarterly bank statement on the 2nd Monday
after the quarter.  A filing needs a supervisor's swipe; a refusal writes only
the swipe-log row; a second filing of the same period is refused naming the first.  SQLite and
PostgreSQL; ``podium report deadlines`` on a SQLite ledger file."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

import core.pokerroom.fund as bf
from core.app.demo import enroll_demo_employees, swipe_of
from core.cli.dispatch import main as podium
from core.ledger.db import make_engine
from core.ledger.models import BbjFiling, SwipeLog
from core.people.auth import AuthError
from core.pokerroom import cases as bc
from core.pokerroom import deadlines as dl
from core.pokerroom import filings
from core.pokerroom.calendar import BbjFilingError
from core.pokerroom.calendar_settings import CalendarSettings, QuarterDue
from tests.core.pokerroom.test_bbj_cases import entry, floor_policy
from tests.ledgers import migrate

MANILA = ZoneInfo("Asia/Manila")
SUP, SURVEILLANCE = swipe_of("1001"), swipe_of("3001")
HIT = datetime(2026, 11, 20, 3, 0, tzinfo=UTC)  # Friday 20 November, 11:00 in Manila
PAID = datetime(2026, 11, 20, 6, 0, tzinfo=UTC)  # 14:00 in Manila: the tax is withheld


def local(y: int, m: int, d: int, hh: int = 0, mm: int = 0) -> datetime:
    return datetime(y, m, d, hh, mm, tzinfo=MANILA)


def clock(at: datetime):  # type: ignore[no-untyped-def]
    return lambda: at


def paid_share(engine: Engine) -> None:
    """Fund bbj (opened 18 November, seed 50,000.00); 20 November counted (2 x 500 = 1,000.00:
    admin fee 300.00, main 490.00, reserve 210.00) and posted; a hit at table P1 approved on
    main 50,490.00 at 100%: seat 1 (losing, citizen) 40% = 20,196.00, above 10,000.00, so 20%
    of it, 4,039.20, is withheld when the share is paid on 20 November."""
    # a floor whose executive threshold is above this award: one supervisor takes each step
    # (authority by size is tests/core/pokerroom/test_bbj_cases.py's)
    floor_policy(engine, executive_threshold_cents=100_000_000,
                 separate_verifier_cents=100_000_000)
    enroll_demo_employees(engine)
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=datetime(2026, 11, 18, tzinfo=UTC))
    bf.seed(engine, "bbj", 5_000_000, by="operator", reason="opening seed",
            at=datetime(2026, 11, 18, tzinfo=UTC))
    bf.record_count(engine, "bbj", business_date=date(2026, 11, 20), table="P1",
                    drop_box="J-1", opened_at=datetime(2026, 11, 20, 1, tzinfo=UTC),
                    closed_at=datetime(2026, 11, 20, 4, tzinfo=UTC), dealer="D. Cruz",
                    pieces={500: 2}, by="cage")
    bf.post_day(engine, "bbj", date(2026, 11, 20), by="cage",
                at=datetime(2026, 11, 20, 4, 30, tzinfo=UTC))
    at = HIT + timedelta(minutes=10)
    cid = bc.open_case(engine, "bbj", entry(), HIT, SUP, clock=clock(at))
    bc.advance(engine, cid, "verified", SUP, deck_sorted=True, cctv_reviewed=True,
               clock=clock(at))
    bc.advance(engine, cid, "request_filed", SUP, clock=clock(at))
    bc.advance(engine, cid, "approved", SUP, clock=clock(PAID - timedelta(hours=1)))
    bc.advance(engine, cid, "share_paid", SUP, seat=1, clock=clock(PAID))


@pytest.fixture
def room(engine: Engine) -> Engine:
    paid_share(engine)
    return engine


def _by_kind(found: list[dl.RoomDeadline]) -> dict[tuple[str, str], dl.RoomDeadline]:
    return {(d.kind, d.period): d for d in found}


def _filings(engine: Engine) -> int:
    with Session(engine) as s:
        return s.execute(select(func.count()).select_from(BbjFiling)).scalar_one()


def test_tax_withheld_in_november_is_remitted_to_the_bir_by_the_10th_of_december(
        room: Engine) -> None:
    now = local(2026, 12, 5, 10)
    found = _by_kind(dl.room_deadlines(room, now, MANILA))
    bir = found[("bir_remittance", "2026-11")]
    assert bir.due_on == date(2026, 12, 10)
    assert bir.due == local(2026, 12, 11) == datetime(2026, 12, 10, 16, 0, tzinfo=UTC)
    assert bir.basis == "final tax withheld 4,039.20 on 1 share paid"
    assert (bir.fund_id, bir.period_start, bir.period_end) == (None, date(2026, 11, 1),
                                                               date(2026, 11, 30))
    assert not bir.overdue and bir.status(MANILA) == "5 days left"
    # filed on 11 December: LATE by 1 day
    filing = filings.record_filing(room, SUP, kind="bir_remittance", period_start=date(2026, 11, 1),
                               filed_at=local(2026, 12, 11, 9), reference="BIR-2026-11-001",
                               tz=MANILA, clock=clock(local(2026, 12, 11, 10)))
    assert filing.late and filing.who.startswith("1001 ")
    bir = _by_kind(dl.room_deadlines(room, local(2026, 12, 12), MANILA))[
        ("bir_remittance", "2026-11")]
    assert (bir.met_at, bir.late, bir.reference) == (local(2026, 12, 11, 9), True,
                                                     "BIR-2026-11-001")
    assert bir.status(MANILA) == "filed 2026-12-11 (LATE by 1 day)"
    assert bir.who == filing.who and not bir.overdue


def test_the_bir_day_is_the_floors_and_a_filing_on_the_due_day_is_on_time(room: Engine) -> None:
    settings = CalendarSettings(bir_remittance_day=15)
    bir = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA, (), settings))[
        ("bir_remittance", "2026-11")]
    assert bir.due_on == date(2026, 12, 15)
    filing = filings.record_filing(room, SUP, kind="bir_remittance", period_start=date(2026, 11, 1),
                               filed_at=local(2026, 12, 10, 23, 59), reference="BIR-1",
                               tz=MANILA, clock=clock(local(2026, 12, 11, 9)))
    assert not filing.late
    with pytest.raises(ValueError, match="bir_remittance_day: 29 must be a day"):
        CalendarSettings(bir_remittance_day=29)


def test_the_q4_tgd108_is_due_7_days_after_the_bir_remittance_of_novembers_tax(
        room: Engine) -> None:
    """The guideline IV.K.ii: "TGD-108 Gaming Site Quarterly Tax Compliance Report Form - within
    seven (7) days after BiR's prescribed filing/ remittance schedule of final income taxes
    withheld with attached BIR Form 0619-f"; IV.H: the tax is "remitted to the BIR on or before
    the tenth (10th) day of the following month in which the withholding was made".  The form
    itself (Annex E): "This form shall be submitted not later than the end of month following
    the close of the quarter reported".  The earlier counts (issue 27 point 4)."""
    # tax withheld 20 November 2026: BIR due 10 December; + 7 days = 17 December 2026;
    # the form's own: the end of January 2027.  The earlier: 17 December.
    found = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA))
    q4 = found[("tgd108", "Q4 2026")]
    assert (q4.period_start, q4.period_end, q4.due_on) == (
        date(2026, 10, 1), date(2026, 12, 31), date(2026, 12, 17))
    assert q4.due == datetime(2026, 12, 17, 16, 0, tzinfo=UTC)  # midnight in Manila
    assert [day for _why, day in q4.dues] == [date(2027, 1, 31), date(2026, 12, 17)]
    assert q4.dues[1][0].startswith("guideline IV.K.ii") and q4.dues[0][0].startswith("TGD-108")
    assert q4.basis == "1 day counted, 1 jackpot hit, 1 share paid"
    assert q4.status(MANILA) == "12 days left"
    # the BIR day is the floor's: the 15th moves the guideline's date to 22 December
    later_bir = CalendarSettings(bir_remittance_day=15)
    q4 = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA, (), later_bir))[
        ("tgd108", "Q4 2026")]
    assert q4.due_on == date(2026, 12, 22)
    # filed 18 December: late against the guideline's date, though the form's is January
    f = filings.record_filing(room, SUP, kind="tgd108", period_start=date(2026, 10, 1),
                          filed_at=local(2026, 12, 18, 9), reference="PAGCOR-RCV-1", tz=MANILA,
                          clock=clock(local(2026, 12, 18, 10)))
    assert f.late and f.due_at == datetime(2026, 12, 17, 16, 0, tzinfo=UTC)
    # nothing else: no quarter without anything to report, no period not begun yet
    assert sorted(found) == [("bank_statement", "Q4 2026"), ("bir_remittance", "2026-11"),
                             ("tgd108", "Q4 2026")]


def test_a_quarter_without_tax_withheld_has_only_the_forms_tgd108_date(engine: Engine) -> None:
    """Annex E: "not later than the end of month following the close of the quarter
    reported"; with no final tax withheld there is no BIR remittance to count from."""
    bf.create_fund(engine, "bbj", "Poker room BBJ", at=datetime(2026, 11, 18, tzinfo=UTC))
    bf.record_count(engine, "bbj", business_date=date(2026, 11, 20), table="P1",
                    drop_box="J-1", opened_at=datetime(2026, 11, 20, 1, tzinfo=UTC),
                    closed_at=datetime(2026, 11, 20, 4, tzinfo=UTC), dealer="D. Cruz",
                    pieces={500: 2}, by="cage")
    q4 = _by_kind(dl.room_deadlines(engine, local(2026, 12, 5), MANILA))[
        ("tgd108", "Q4 2026")]
    assert q4.due_on == date(2027, 1, 31) and len(q4.dues) == 1


def test_the_bank_statement_is_due_the_2nd_monday_after_the_quarter(room: Engine) -> None:
    """The guideline, General Guidelines B (note): "The poker operator shall submit a copy of
    the updated bank statement or bank book to TGD every calendar quarter (e.g., January to
    March -- for submission on 2nd Monday of April, and so on)"; read as the 2nd Monday of the
    month after each quarter (issue 27 point 2)."""
    # Q4 2026: January 2027 begins on a Friday: Mondays 4 and 11 -> 11 January 2027
    found = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA))
    assert found[("bank_statement", "Q4 2026")].due_on == date(2027, 1, 11)
    # Q1 2027: April 2027 begins on a Thursday: Mondays 5 and 12 -> 12 April 2027
    later = _by_kind(dl.room_deadlines(room, local(2027, 1, 2), MANILA))
    assert later[("bank_statement", "Q1 2027")].due_on == date(2027, 4, 12)
    # Q1 2026 of a fund opened in February 2026: April 2026 begins on a Wednesday: Mondays
    # 6 and 13 -> 13 April 2026; on 14 April it is late (the example)
    bf.create_fund(room, "old", "Old room", at=datetime(2026, 2, 1, tzinfo=UTC))
    q1 = _by_kind(dl.room_deadlines(room, local(2026, 4, 14, 9), MANILA))[
        ("bank_statement", "Q1 2026")]
    assert q1.due_on == date(2026, 4, 13) and q1.overdue
    assert q1.status(MANILA) == "LATE by 1 day"
    # the rule is configuration: 30 days after the quarter, or the end of the next month
    for text, due in (("30 days", date(2027, 1, 30)), ("end of month 1", date(2027, 1, 31)),
                      ("1st Friday of month 1", date(2027, 1, 1))):
        settings = CalendarSettings(bank_statement_due=QuarterDue.parse(text))
        bank = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA, (), settings))[
            ("bank_statement", "Q4 2026")]
        assert bank.due_on == due, text
    for bad in ("5th Monday of month 1", "2nd Monday of month 4", "0 days", "quarterly"):
        with pytest.raises(ValueError, match="a quarterly due day is"):
            QuarterDue.parse(bad)


def test_overdue_lists_what_is_past_due_and_not_filed(room: Engine) -> None:
    assert dl.overdue(room, local(2026, 12, 10, 23, 59), MANILA) == []
    late = dl.overdue(room, local(2026, 12, 11), MANILA)
    assert [(d.kind, d.period) for d in late] == [("bir_remittance", "2026-11")]
    assert late[0].status(MANILA) == "LATE by 1 day" and late[0].late
    filings.record_filing(room, SUP, kind="bir_remittance", period_start=date(2026, 11, 1),
                      filed_at=local(2026, 12, 11, 9), reference="BIR-1", tz=MANILA,
                      clock=clock(local(2026, 12, 11, 10)))
    assert dl.overdue(room, local(2026, 12, 11, 10), MANILA) == []


def test_a_filing_without_a_supervisors_swipe_writes_only_the_swipe_log_row(
        room: Engine) -> None:
    with Session(room) as s:
        swipes = s.execute(select(func.count()).select_from(SwipeLog)).scalar_one()
    with pytest.raises(AuthError):
        filings.record_filing(room, SURVEILLANCE, kind="bir_remittance",
                          period_start=date(2026, 11, 1), filed_at=local(2026, 12, 9, 9),
                          reference="BIR-1", tz=MANILA, clock=clock(local(2026, 12, 9, 10)))
    assert _filings(room) == 0
    with Session(room) as s:
        rows = s.execute(select(SwipeLog).where(SwipeLog.id > swipes)).scalars().all()
    assert [(r.action, r.outcome) for r in rows] == [("bbj_filing", "insufficient_authority")]


def test_a_second_filing_of_the_period_is_refused_naming_the_first_and_a_correction_is_kept(
        room: Engine) -> None:
    kw = {"kind": "bir_remittance", "period_start": date(2026, 11, 1), "tz": MANILA,
          "clock": clock(local(2026, 12, 12, 10))}
    first = filings.record_filing(room, SUP, filed_at=local(2026, 12, 9, 9), reference="BIR-77",
                              **kw)  # type: ignore[arg-type]
    with pytest.raises(BbjFilingError, match=(
            r"^BIR remittance 2026-11-01: already filed \(filing 1, filed 2026-12-09 09:00, "
            r"reference BIR-77, by 1001 .*\); a correction names the filing it corrects")):
        filings.record_filing(room, SUP, filed_at=local(2026, 12, 10, 9), reference="BIR-78",
                          **kw)  # type: ignore[arg-type]
    with pytest.raises(BbjFilingError, match="a correction needs its reason"):
        filings.record_filing(room, SUP, filed_at=local(2026, 12, 9, 9), reference="BIR-77A",
                          corrects=first.filing_id, **kw)  # type: ignore[arg-type]
    assert _filings(room) == 1
    fixed = filings.record_filing(room, SUP, filed_at=local(2026, 12, 9, 9), reference="BIR-77A",
                              corrects=first.filing_id, detail="confirmation number mistyped",
                              **kw)  # type: ignore[arg-type]
    assert fixed.corrects_id == first.filing_id and not fixed.late
    with pytest.raises(BbjFilingError, match=r"corrects the latest filing of the period "
                       r"\(filing 2\), not filing 1"):
        filings.record_filing(room, SUP, filed_at=local(2026, 12, 9, 9), reference="BIR-77B",
                          corrects=first.filing_id, detail="again", **kw)  # type: ignore[arg-type]
    with pytest.raises(BbjFilingError, match="its latest correction is filing 2"):
        filings.record_filing(room, SUP, filed_at=local(2026, 12, 9, 9), reference="BIR-79",
                          **kw)  # type: ignore[arg-type]
    bir = _by_kind(dl.room_deadlines(room, local(2026, 12, 12), MANILA))[
        ("bir_remittance", "2026-11")]
    assert [f.reference for f in bir.filings] == ["BIR-77", "BIR-77A"]
    assert bir.reference == "BIR-77A" and _filings(room) == 2


def test_a_filing_is_refused_by_name_when_its_input_is_wrong(room: Engine) -> None:
    at = clock(local(2026, 12, 12, 10))
    cases = [
        ({"kind": "bir_remittance", "period_start": date(2026, 11, 2)}, "first day of a month"),
        ({"kind": "tgd108", "period_start": date(2026, 11, 1)}, "first day of a quarter"),
        ({"kind": "bank_statement", "period_start": date(2026, 10, 1)}, "name the fund"),
        ({"kind": "tgd108", "period_start": date(2026, 10, 1), "fund_id": "bbj"},
         "is the casino's, not a fund's"),
        ({"kind": "bir_remittance", "period_start": date(2026, 11, 1), "reference": " "},
         "the reference: must not be empty"),
        ({"kind": "bir_remittance", "period_start": date(2026, 11, 1),
          "filed_at": local(2026, 12, 13)}, "is in the future"),
        ({"kind": "bir_remittance", "period_start": date(2026, 11, 1),
          "filed_at": local(2025, 12, 9)}, "before its period begins"),
        ({"kind": "bank_statement", "period_start": date(2026, 10, 1), "fund_id": "nope"},
         "fund 'nope' does not exist"),
        ({"kind": "tgd1540_part2", "period_start": date(2026, 12, 3), "fund_id": "bbj"},
         "fund 'bbj' has not ceased"),
        ({"kind": "remittance", "period_start": date(2026, 11, 1)}, "not a filing"),
    ]
    for extra, words in cases:
        kw = {"filed_at": local(2026, 12, 9, 9), "reference": "R-1", "tz": MANILA,
              "clock": at, **extra}
        with pytest.raises(BbjFilingError, match=words):
            filings.record_filing(room, SUP, **kw)  # type: ignore[arg-type]
    assert _filings(room) == 0


THURSDAY = local(2026, 12, 3, 10)  # the fund ceases by transfer on Thursday 3 December


@pytest.fixture
def ceased(room: Engine) -> Engine:
    bf.create_fund(room, "hall", "New hall BBJ", at=datetime(2026, 11, 18, tzinfo=UTC))
    bf.cease_by_transfer(room, "bbj", "hall", by="1001 Dana Reyes", reason="room moves",
                         at=THURSDAY.astimezone(UTC))
    return room


def test_tgd1540_part_2_is_due_2_business_days_after_a_cessation_skipping_a_holiday(
        ceased: Engine) -> None:
    now = local(2026, 12, 4, 9)
    plain = _by_kind(dl.room_deadlines(ceased, now, MANILA))
    part2 = plain[("tgd1540_part2", "ceased 2026-12-03")]
    assert (part2.fund_id, part2.due_on) == ("bbj", date(2026, 12, 7))  # Fri, Mon
    friday_off = _by_kind(dl.room_deadlines(ceased, now, MANILA, [date(2026, 12, 4)]))
    part2 = friday_off[("tgd1540_part2", "ceased 2026-12-03")]
    assert part2.due_on == date(2026, 12, 8)  # Mon, Tue
    assert part2.basis == "fund Poker room BBJ ceased by transfer to fund hall"
    # players are told 7 calendar days before the transfer's effective date (the day recorded)
    notice = plain[("players_notice", "ceases 2026-12-03")]
    assert notice.due_on == date(2026, 11, 26) and notice.overdue
    # the ceased fund's bank statement is still due for the quarter it ceased in
    assert plain[("bank_statement", "Q4 2026")].fund_id in ("bbj", "hall")
    with pytest.raises(BbjFilingError, match="fund 'bbj' ceased on 2026-12-03"):
        filings.record_filing(ceased, SUP, kind="tgd1540_part2", period_start=date(2026, 12, 4),
                          fund_id="bbj", filed_at=local(2026, 12, 7, 9), reference="P-1",
                          tz=MANILA, clock=clock(local(2026, 12, 7, 10)))
    f = filings.record_filing(ceased, SUP, kind="tgd1540_part2", period_start=date(2026, 12, 3),
                          fund_id="bbj", filed_at=local(2026, 12, 8, 9),
                          reference="PAGCOR-RCV-4411", tz=MANILA, holidays=[date(2026, 12, 4)],
                          clock=clock(local(2026, 12, 8, 10)))
    assert not f.late and f.due_at == local(2026, 12, 9)


def test_the_notice_hook_gives_the_players_notice_and_part_1_of_a_planned_cessation(
        room: Engine) -> None:
    notices = [dl.CessationNotice("bbj", date(2027, 1, 15), to_fund_id="hall")]  # a Friday
    found = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA, notices=notices))
    players = found[("players_notice", "ceases 2027-01-15")]
    assert players.due_on == date(2027, 1, 8)  # 7 calendar days before
    part1 = found[("tgd1540_part1", "ceases 2027-01-15")]
    assert part1.due_on == date(2026, 12, 28)  # 14 business days before (Mon 28 December)
    holiday = _by_kind(dl.room_deadlines(room, local(2026, 12, 5), MANILA, [date(2027, 1, 1)],
                                          notices=notices))
    assert holiday[("tgd1540_part1", "ceases 2027-01-15")].due_on == date(2026, 12, 25)
    with pytest.raises(BbjFilingError, match="fund 'gone' does not exist"):
        dl.room_deadlines(room, local(2026, 12, 5), MANILA,
                           notices=[dl.CessationNotice("gone", date(2027, 1, 15))])
    # a filing answers a cessation the ledger plans (a notice recorded on the Cessation page)
    with pytest.raises(BbjFilingError, match=r"fund 'bbj' has no planned cessation on "
                                                 r"2027-01-15 \(planned: none\)"):
        filings.record_filing(room, SUP, kind="players_notice", period_start=date(2027, 1, 15),
                          fund_id="bbj", filed_at=local(2026, 12, 5, 9), reference="",
                          tz=MANILA, clock=clock(local(2026, 12, 5, 10)))
    from core.app.demo import demo_credential

    bc.give_notice(room, "bbj", demo_credential("2001"), "closure", notice_on=date(2026, 12, 4),
                   effective_on=date(2027, 1, 15), reason="the poker room closes",
                   clock=clock(local(2026, 12, 4, 16)))
    # the notice to players is filed before the cessation; no reference needed
    f = filings.record_filing(room, SUP, kind="players_notice", period_start=date(2027, 1, 15),
                          fund_id="bbj", filed_at=local(2026, 12, 5, 9), reference="",
                          detail="posted at the poker room entrance", tz=MANILA,
                          clock=clock(local(2026, 12, 5, 10)))
    assert not f.late
    found = _by_kind(dl.room_deadlines(room, local(2026, 12, 5, 11), MANILA, notices=notices))
    assert found[("players_notice", "ceases 2027-01-15")].status(MANILA) == "filed 2026-12-05"


# --- podium report deadlines ---------------------------------------------------------------


@pytest.fixture
def ledger_file(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    engine = make_engine(url)
    migrate(engine)
    paid_share(engine)
    filings.record_filing(engine, SUP, kind="bir_remittance", period_start=date(2026, 11, 1),
                      filed_at=local(2026, 12, 11, 9), reference="BIR-2026-11-001", tz=MANILA,
                      clock=clock(local(2026, 12, 11, 10)))
    engine.dispose()
    return url


def test_the_report_command_lists_the_deadlines(ledger_file: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = podium(["report", "deadlines", "--db", ledger_file, "--at", "2027-02-02 09:00"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Poker room deadlines at 2027-02-02 09:00 (Asia/Manila)"
    assert lines[1].split() == ["what", "period", "fund", "due", "status", "reference", "who"]
    body = [" ".join(line.split()) for line in lines[2:]]
    assert body == [
        "BIR remittance 2026-11 - 2026-12-10 filed 2026-12-11 (LATE by 1 day) BIR-2026-11-001 "
        "1001 Dana Reyes",
        "TGD-108 quarterly tax Q4 2026 - 2026-12-17 LATE by 47 days",
        "Bank statement Q4 2026 bbj 2027-01-11 LATE by 22 days",
        "Bank statement Q1 2027 bbj 2027-04-12 69 days left",
        "TGD-108 quarterly tax Q4 2026: due 2026-12-17, the earlier of 2027-01-31 (TGD-108: "
        "the end of the month after the quarter) and 2026-12-17 (guideline IV.K.ii: 7 days "
        "after the BIR remittance)",
        "2 overdue"]
    code = podium(["report", "deadlines", "--db", ledger_file, "--at", "2027-02-02 09:00",
                   "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert (code, doc["overdue"]) == (0, 2)
    bir = doc["deadlines"][0]
    assert (bir["kind"], bir["due_on"], bir["late"], bir["reference"], bir["late_days"]) == (
        "bir_remittance", "2026-12-10", True, "BIR-2026-11-001", 1)
    assert bir["filings"][0]["who"] == "1001 Dana Reyes"


def test_the_report_command_refuses_in_one_line(ledger_file: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in (
            (["--db", ledger_file, "--at", "tomorrow"], "--at: 'tomorrow' is not a local time"),
            (["--db", f"sqlite:///{tmp_path / 'none.sqlite3'}"], "no such ledger file"),
            (["--db", ledger_file, "--floor", str(tmp_path / "no.toml")], "no.toml")):
        code = podium(["report", "deadlines", *argv])
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        assert err.startswith("podium report deadlines: ") and words in err
        assert err.count("\n") == 1


def test_a_recorded_notice_of_a_planned_cessation_is_on_the_deadline_list(room: Engine) -> None:
    """The notice recorded on the Cessation page (``bbj_cessation_notices``) gives its TGD-1540
    part 1 (14 business days before) and notice to players (7 days before) without the
    caller passing it; a withdrawn notice gives nothing."""
    from core.app.demo import demo_credential

    engine = room
    executive = demo_credential("2001")
    now = local(2026, 12, 2, 10)
    nid = bc.give_notice(engine, "bbj", executive, "closure", notice_on=date(2026, 12, 1),
                         effective_on=date(2027, 2, 1), reason="the poker room closes",
                         clock=clock(now))
    found = _by_kind(dl.room_deadlines(engine, now, MANILA))
    # Monday 1 February 2027: 14 business days back (no holidays given) is Tuesday 12
    # January (Jan 29, 28, 27, 26, 25, 22, 21, 20, 19, 18, 15, 14, 13, 12); the players
    # 7 calendar days before, 25 January.
    part1 = [d for (k, _p), d in found.items() if k == "tgd1540_part1"]
    players = [d for (k, _p), d in found.items() if k == "players_notice"]
    assert [(d.fund_id, d.due_on) for d in part1] == [("bbj", date(2027, 1, 12))]
    assert [(d.fund_id, d.due_on) for d in players] == [("bbj", date(2027, 1, 25))]
    assert part1[0].met_at is None  # met by the filing with PAGCOR, not by the notice row
    bc.withdraw_notice(engine, "bbj", nid, executive, reason="the room stays open",
                       clock=clock(now))
    kinds = {d.kind for d in dl.room_deadlines(engine, now, MANILA)}
    assert not kinds & {"tgd1540_part1", "players_notice"}


def test_a_notice_filing_answers_its_own_notice_and_outlives_the_cessation(room: Engine) -> None:
    """A withdrawn notice's filing does not answer the next notice (each planned date is its
    own period); once the fund is forfeited, the notice that held keeps its part 1 and notice
    to players on the list."""
    from core.app.demo import demo_credential

    executive = demo_credential("2001")
    at = local(2026, 12, 2, 10)
    bf.create_fund(room, "hall", "Hall BBJ", at=local(2026, 11, 30, 9))  # nothing counted
    first = bc.give_notice(room, "hall", executive, "closure", notice_on=date(2026, 12, 1),
                           effective_on=date(2027, 1, 29), reason="r", clock=clock(at))
    filings.record_filing(room, SUP, kind="tgd1540_part1", period_start=date(2027, 1, 29),
                      fund_id="hall", filed_at=at, reference="PAGCOR-RCV-1", tz=MANILA,
                      clock=clock(at))
    bc.withdraw_notice(room, "hall", first, executive, reason="postponed", clock=clock(at))
    bc.give_notice(room, "hall", executive, "closure", notice_on=date(2026, 12, 2),
                   effective_on=date(2027, 6, 30), reason="r", clock=clock(at))
    found = _by_kind(dl.room_deadlines(room, at, MANILA))
    part1 = [d for (k, _p), d in found.items() if k == "tgd1540_part1"]
    # the withdrawn notice's filing stays listed (filed), the new notice's part 1 is not met
    assert sorted((d.period_start, d.met_at is not None) for d in part1) == [
        (date(2027, 1, 29), True), (date(2027, 6, 30), False)]
    # the withdrawn notice's date takes no filing any more; the new one takes its own
    with pytest.raises(BbjFilingError, match="no planned cessation on 2027-01-29 "
                                                 r"\(planned: 2027-06-30\)"):
        filings.record_filing(room, SUP, kind="players_notice", period_start=date(2027, 1, 29),
                          fund_id="hall", filed_at=at, reference="", tz=MANILA, clock=clock(at))
    filings.record_filing(room, SUP, kind="tgd1540_part1", period_start=date(2027, 6, 30),
                      fund_id="hall", filed_at=at, reference="PAGCOR-RCV-2", tz=MANILA,
                      clock=clock(at))
    # forfeited on closure: the players were never told; that deadline stays on the list
    closed = local(2027, 7, 1, 9)
    bc.forfeit_on_closure(room, "hall", executive, closed_on=date(2027, 6, 30),
                          reason="the poker room closed", clock=clock(closed))
    after = _by_kind(dl.room_deadlines(room, closed, MANILA))
    kinds = {(k, d.period_start): d for (k, _p), d in after.items()}
    assert kinds[("players_notice", date(2027, 6, 30))].met_at is None
    assert kinds[("players_notice", date(2027, 6, 30))].overdue
    assert kinds[("tgd1540_part1", date(2027, 6, 30))].met_at is not None
    assert "forfeited to PAGCOR on closure" in kinds[("tgd1540_part2", date(2027, 7, 1))].basis
