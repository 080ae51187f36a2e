"""TGD-1540 (Annex F): a progressive jackpot's transfer or cessation
(:class:`TransferCessation` -> :func:`transfer_cessation_html`): part 1, the notice (14
business days before), and part 2, the completion (2 business days after); the funds moved,
the tables linked to the jackpot (:class:`LinkedTable`), the operator's
:func:`affirmations` and the attachments.  Business days are
:func:`core.pokerroom.business_days.add_business_days` (the one business-day count)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from core.pokerroom.business_days import add_business_days
from core.pokerroom.fund import PART1_BUSINESS_DAYS, PART2_BUSINESS_DAYS, PLAYERS_DAYS
from printing.pages.forms.figures import FormError, check_cents, peso
from printing.pages.forms.page import (
    BOX,
    HAND_MARK,
    blank,
    cell_text,
    count_text,
    day_text,
    form_page,
    grid,
    mark_span,
    note_lines,
    pairs,
    section,
    ticks,
)


@dataclass(frozen=True)
class LinkedTable:
    """A poker table linked to the jackpot (its drop box feeds the fund): the ledger's drop
    counts of the fund for that table."""

    table: str
    first_day: date
    last_day: date
    days: int  # gaming days counted
    jackpot_rake_cents: int  # counted in those days


@dataclass(frozen=True)
class TransferCessation:
    """TGD-1540: part 1 (notice, 14 business days before) and part 2 (2 business days after).

    ``mode`` "transfer": increment + reserve move to ``destination``; the seed returns to the
    operator.  ``seed_cents`` is the operator's seed still in the jackpot, the ledger's reading
    of "not reset" (docs/bbj.md "The fund": the seed infusions since the last hit, at most
    main): after a hit (``jackpot_reset``) there is none, and the whole main is increment.
    ``mode`` "cease": the jackpot ceases once hit; the reserve is added to the main amount won
    (part 2: ``hit_on``, ``amount_won_cents``, ``award_reference``).
    ``notice_on`` / ``players_told_on`` None, ``completed_on`` None: printed as blank lines to
    fill in.  Business days skip weekends and ``holidays``.
    """

    casino: str
    operator: str
    jackpot: str
    mode: str  # transfer | cease
    notice_on: date | None
    effective_on: date
    players_told_on: date | None
    seed_cents: int  # the seed outstanding (returned to the operator on a transfer)
    main_cents: int  # the posted jackpot = seed + increment
    reserve_cents: int
    destination: str = ""
    jackpot_reset: bool = False  # a hit since the last seed infusion: no seed outstanding
    completed_on: date | None = None  # part 2; None prints part 2 blank, to fill in
    reason: str = ""
    holidays: tuple[date, ...] = ()  # public holidays: not business days
    hit_on: date | None = None  # mode cease, part 2: the day of the hit
    amount_won_cents: int | None = None  # mode cease, part 2: the amount awarded
    award_reference: str = ""  # mode cease, part 2: the TGD-1500 (case / award)
    room_location: str = ""  # [poker_room] room_location; "" prints a blank to fill in
    linked_tables: tuple[LinkedTable, ...] = ()  # the tables feeding the fund (drop counts)

    def __post_init__(self) -> None:
        if self.mode not in ("transfer", "cease"):
            raise FormError(f"transfer/cessation mode: {self.mode!r} is not transfer or cease")
        for name in ("seed", "main", "reserve"):
            check_cents(getattr(self, f"{name}_cents"), f"{name} amount")
        if self.amount_won_cents is not None:
            check_cents(self.amount_won_cents, "amount won")
        if self.seed_cents > self.main_cents:
            raise FormError(f"seed amount: {peso(self.seed_cents)} is more than the main "
                            f"jackpot {peso(self.main_cents)} (main = seed + increment)")
        if self.jackpot_reset and self.seed_cents:
            raise FormError(f"seed amount: {peso(self.seed_cents)}, but the jackpot was reset "
                            "by a hit since its last seed, so no seed is outstanding "
                            "(docs/bbj.md \"The fund\")")
        if self.mode == "transfer" and not self.destination.strip():
            raise FormError("destination: a transfer needs the progressive it goes to")
        if self.notice_on is not None and self.effective_on < self.notice_on:
            raise FormError(f"effective date: {self.effective_on} is before the notice date "
                            f"{self.notice_on}")

    @property
    def increment_cents(self) -> int:
        return self.main_cents - self.seed_cents

    @property
    def transferred_cents(self) -> int:
        if self.mode != "transfer":
            return 0
        return self.increment_cents + self.reserve_cents

    @property
    def seed_returned_cents(self) -> int:
        return self.seed_cents if self.mode == "transfer" else 0

    @property
    def deadlines(self) -> dict[str, date]:
        return {"notice": add_business_days(self.effective_on, -PART1_BUSINESS_DAYS,
                                            self.holidays),
                "players": self.effective_on - timedelta(days=PLAYERS_DAYS),
                "part2": add_business_days(self.effective_on, PART2_BUSINESS_DAYS,
                                           self.holidays)}

    @property
    def holidays_skipped(self) -> tuple[date, ...]:
        """The holidays on weekdays inside the two business-day periods (notice, part 2)."""
        dl = self.deadlines
        return tuple(sorted(h for h in set(self.holidays) if h.weekday() < 5 and (
            dl["notice"] < h < self.effective_on or self.effective_on < h < dl["part2"])))


def _on_time(done: date, latest: date) -> str:
    return "on time" if done <= latest else "LATE"


def _holiday_note(t: TransferCessation) -> str:
    if not t.holidays:
        return ("Business days are Monday to Friday; no public holidays are configured "
                "(floor file [casino] public_holidays): the preparer must check them.")
    skipped = t.holidays_skipped
    which = (", ".join(day_text(h) for h in skipped) if skipped
             else f"none of the {len(t.holidays)} configured falls in these periods")
    return ("Business days are Monday to Friday except the public holidays of the floor file "
            f"([casino] public_holidays). Holidays skipped here: {which}.")


def transfer_cessation_html(t: TransferCessation) -> str:
    dl = t.deadlines
    blank = "____________________"
    what = (f"Transfer to {t.destination}" if t.mode == "transfer"
            else "Cessation once the jackpot is hit")

    def dated(done: date | None, latest: date) -> str:
        if done is None:
            return f"{blank} (latest {day_text(latest)})"
        return f"{day_text(done)} (latest {day_text(latest)}: {_on_time(done, latest)})"

    part1 = pairs([
        ("Progressive jackpot", t.jackpot),
        ("Action", what),
        ("Reason", t.reason or blank),
        ("Date of this notice", dated(t.notice_on, dl["notice"])),
        ("Effective date", day_text(t.effective_on)),
        ("Players told on", dated(t.players_told_on, dl["players"])),
    ], label_width=35)
    if t.mode == "transfer":
        if t.seed_cents or not t.jackpot_reset:
            seed_label = "Seed outstanding (operator's money since the last hit)"
        else:
            seed_label = "Seed outstanding (none: the jackpot was reset by a hit since the seed)"
        label = f"Amount transferred to {t.destination} (increment + reserve)"
        amounts = [(seed_label, peso(t.seed_cents)),
                   ("Increment (main - seed)", peso(t.increment_cents)),
                   ("Main jackpot (seed + increment)", peso(t.main_cents)),
                   ("Reserve", peso(t.reserve_cents)),
                   ("Seed returned to the operator", peso(t.seed_returned_cents)),
                   (label, peso(t.transferred_cents))]
    else:  # once hit nothing goes back: the seed is part of the main amount won
        label = ("Main amount at the hit (main + reserve)" if t.hit_on
                 else "Main amount won when hit (main + reserve, at today's figures)")
        amounts = [("Main jackpot (seed + increment)", peso(t.main_cents)),
                   ("Reserve (added to the main amount won)", peso(t.reserve_cents)),
                   (label, peso(t.main_cents + t.reserve_cents))]
    if t.mode == "cease" and t.hit_on:
        funds_title = "Funds at the hit"
    elif t.completed_on:
        funds_title = "Funds at the transfer"
    else:
        funds_title = "Funds at the date of this notice"
    done = (f"{day_text(t.completed_on)} ({_on_time(t.completed_on, dl['part2'])})"
            if t.completed_on else blank)
    part2_rows = [("Date completed (latest " + day_text(dl["part2"]) + ")", done)]
    if t.mode == "transfer":
        part2_rows += [
            (f"Amount received by {t.destination}",
             peso(t.transferred_cents) if t.completed_on else blank),
            ("Seed returned to the operator",
             peso(t.seed_returned_cents) if t.completed_on else blank),
            (f"{t.jackpot} after the transfer", peso(0) if t.completed_on else blank)]
    else:
        part2_rows += [
            ("Date of the hit", day_text(t.hit_on) if t.hit_on else blank),
            ("Amount awarded (on main + reserve)",
             peso(t.amount_won_cents) if t.amount_won_cents is not None else blank),
            ("TGD-1500 reference", t.award_reference or blank)]
    body = (section("Part 1 - notice (14 business days before)") + part1
            + section(funds_title) + pairs(amounts, strong=(label,))
            + section("Part 2 - completion (within 2 business days after)")
            + pairs(part2_rows)
            + f'<p style="font-size:7.5pt;">{cell_text(_holiday_note(t))}</p>'
            + section("Linked tables (their jackpot drop boxes feed this jackpot)")
            + _linked_tables(t)
            + section("Affirmations (tick each box that is true)") + _affirmations(t)
            + section("The following are attached to this form (tick each attached)")
            + ticks(TGD1540_ATTACHMENTS)
            + note_lines((TGD1540_SUBMISSION,)))
    return form_page("Progressive jackpot transfer / cessation", "TGD-1540", t.casino, t.operator,
                     f"{t.jackpot} - effective {day_text(t.effective_on)}", body,
                     location=t.room_location)


# TGD-1540 (Annex F) as the form writes them: its attachments and its submission instruction
TGD1540_ATTACHMENTS = ("Updated TGD-1508", "Bank Statement",
                       "Proposed Progressive Jackpot IRG (if applicable)")
TGD1540_SUBMISSION = (
    "The Operator shall submit this form to: poker@pagcor.ph at least seven (7) days prior to "
    "the intended transfer/cessation date. Cut-off for submission of notifications shall be "
    "3:00 PM. (The guideline V.B.i.a asks for part 1 at least fourteen (14) business days "
    "prior: the dates above are the guideline's, the earlier.)")


def _linked_tables(t: TransferCessation) -> str:
    if not t.linked_tables:
        return ('<p style="margin-top:0px;">No drop box of this jackpot is counted in the '
                f"ledger. Tables: {blank(width=40)}</p>")
    ts = sorted(t.linked_tables, key=lambda x: (x.first_day, x.table))
    return grid(
        ("Table", "First gaming day counted", "Last gaming day counted", "Days counted",
         "Jackpot rake counted"),
        [(x.table, day_text(x.first_day), day_text(x.last_day), str(x.days),
          peso(x.jackpot_rake_cents)) for x in ts],
        right=(3, 4), widths=(16, 24, 24, 12, 24),
        total=(count_text(len(ts), "table"), "", "", "",
               peso(sum(x.jackpot_rake_cents for x in ts))))


def affirmations(t: TransferCessation) -> tuple[str, ...]:
    """The statements the operator affirms on TGD-1540 (ticked and signed by hand)."""
    what = "transfer" if t.mode == "transfer" else "cessation"
    out = [f"The players were told of the {what} at least 7 calendar days before the effective "
           "date, by a notice posted in the poker room.",
           "The jackpot drop boxes of the linked tables are counted and posted up to the "
           "effective date, and the amounts above agree with the poker room's records."]
    if t.mode == "transfer":
        out += [f"The increment and the whole reserve go to {t.destination}; only the seed "
                "outstanding returns to the operator.",
                f"No jackpot rake is collected for {t.jackpot} after the effective date, and "
                "its posted jackpot display is taken down on that date."]
    else:
        out += ["The jackpot rake is collected until the jackpot is hit; once hit, the reserve "
                "is added to the main amount won and the jackpot ceases.",
                "No seed money returns to the operator once the jackpot is hit."]
    return tuple(out)


def _affirmations(t: TransferCessation) -> str:
    rows = "".join(f'<tr><td width="4%" valign="top"><span style="font-size:10pt;">{BOX}'
                   f"</span></td><td>{cell_text(a)}</td></tr>" for a in affirmations(t))
    return (f'<table width="100%" cellspacing="0" cellpadding="1">{rows}</table>'
            f'<p style="font-size:7.5pt; margin-top:2px;">The boxes: {mark_span(HAND_MARK)}; '
            "the operator's signers below affirm the ticked statements.</p>")
