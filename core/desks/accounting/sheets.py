"""Every accounting report as sheets (a title, the lines above the table, a header and rows),
the one shape its screen, its printed page, its CSV and its XLSX are made from, so the four
always show the same figures.

Money cells are Decimals of the major unit, exact (a meter's fraction of a cent included);
counts are ints; everything else is text.  :func:`write_csv` writes one sheet with the csv
module; :func:`write_xlsx` writes every sheet with openpyxl, a money figure as a number when a
spreadsheet number holds it exactly and as its exact digits in text when it does not (a
number keeps about 15 significant digits)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from core.desks.accounting.liability import Liability
from core.desks.accounting.periods import Period
from core.desks.accounting.reconciliation import KINDS, REVERSAL_PARTS, Reconciliation
from core.desks.accounting.register import DropReport, HitsByLevel, SlipRegister
from core.desks.desk import Desk
from core.kernel.money import UNITS_PER_CENT, decimal_text, units_decimal

Cell = str | int | Decimal | None


def cents(value: int) -> Decimal:
    return units_decimal(value * UNITS_PER_CENT)


def units(value: int) -> Decimal:
    return units_decimal(value)


@dataclass(frozen=True)
class Sheet:
    title: str  # at most 31 characters (an XLSX sheet name)
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    money: frozenset[int] = frozenset()  # columns that hold money
    strong: frozenset[int] = frozenset()  # rows to print in bold (totals, closing)
    print_cols: tuple[int, ...] | None = None  # the columns a printed page shows (None: all)


@dataclass(frozen=True)
class Report:
    """A whole report: what it is, its period, the lines above the tables, its sheets."""

    name: str  # "Progressive reconciliation"
    casino: str
    period: Period | None
    made_at: datetime
    chain_head: str
    notes: tuple[str, ...]  # the verdict, problems, "all amounts in $"
    sheets: tuple[Sheet, ...]
    alarm: bool = False  # the verdict is bad news (does not reconcile, gaps)
    by: str = ""  # who made it
    extra: dict[str, str] = field(default_factory=dict)

    def meta(self, desk: Desk) -> list[tuple[str, str]]:
        out = [("Casino", self.casino)]
        if self.period is not None:
            a, b = desk.local(self.period.start), desk.local(self.period.end)
            out.append(("Period", f"{self.period.label}: {a:%Y-%m-%d %H:%M} to "
                                  f"{b:%Y-%m-%d %H:%M} {desk.config.casino.timezone}"))
        out.append(("Made", f"{desk.local(self.made_at):%Y-%m-%d %H:%M:%S} "
                            f"{desk.config.casino.timezone}" + (f" by {self.by}" if self.by
                                                                  else "")))
        out += list(self.extra.items())
        out.append(("Ledger", self.chain_head))
        return out


# --- reports into sheets ------------------------------------------------------------------------

def reconciliation_report(desk: Desk, rec: Reconciliation) -> Report:
    lines: list[tuple[Cell, ...]] = []
    strong: set[int] = set()
    for lv in rec.levels:
        name = f"{lv.group_id}/{lv.level}"
        strong.add(len(lines))
        lines.append((name, "Opening", None, units(lv.opening_meter), units(lv.opening_reserve)))
        labels = dict(KINDS)
        for kind, _ in KINDS:
            f = lv.lines[kind]
            lines.append((name, labels[kind], f.entries, units(f.meter_units),
                          units(f.reserve_units)))
            if kind == "award":
                for what, g in (("  of which paid by the period's end", lv.paid_from_meter),
                                ("  of which held at hit, not paid by the period's end",
                                 lv.held_at_hit)):
                    lines.append((name, what, g.entries, units(g.meter_units),
                                  units(g.reserve_units)))
            if kind == "reversal":
                for part, words in REVERSAL_PARTS:
                    g = lv.reversal_parts[part]
                    if g.entries:
                        lines.append((name, f"  {words}", g.entries, units(g.meter_units),
                                      units(g.reserve_units)))
        strong.add(len(lines))
        lines.append((name, "Closing", None, units(lv.closing_meter), units(lv.closing_reserve)))
        lines.append((name, "Kept balance less what came after", None, units(lv.kept_meter),
                      units(lv.kept_reserve)))
    awards = tuple((f"{lv.group_id}/{lv.level}", a.hand, a.source, a.count, cents(a.cents))
                   for lv in rec.levels for a in lv.awards)
    groups = tuple((g.group_id, g.rounds, g.wagers, cents(g.wager_cents), g.returned_wagers,
                    cents(g.returned_cents), units(g.contribution_units),
                    units(g.level_contribution_units), units(g.reversal_units),
                    units(g.level_reversal_units)) for g in rec.groups)
    notes = [rec.verdict, *rec.problems, *rec.notes]
    return Report(
        "Progressive reconciliation", desk.config.casino.name, rec.period, rec.made_at,
        rec.chain_head, tuple(notes), (
            Sheet("Reconciliation", ("Level", "Line", "Entries", "Meter", "Reserve"),
                  tuple(lines), frozenset({3, 4}), frozenset(strong)),
            Sheet("Awards by hand", ("Level", "Hand", "Paid from", "Awards", "Amount"), awards,
                  frozenset({4})),
            Sheet("Wagers and contributions", (
                "Group", "Rounds", "Wagers locked", "Wagered", "Wagers returned", "Returned",
                "Put in by the tables", "Received by the levels", "Taken back at the tables",
                "Given back by the levels"), groups, frozenset({3, 5, 6, 7, 8, 9})),
        ), alarm=not rec.adds_up, by=desk.employee)


def liability_report(desk: Desk, li: Liability) -> Report:
    rows = [(f"{lv.group_id}/{lv.level}", units(lv.meter_units), units(lv.reserve_units),
             units(lv.held_units), units(lv.total_units)) for lv in li.levels]
    rows.append(("Total", units(sum(lv.meter_units for lv in li.levels)),
                 units(sum(lv.reserve_units for lv in li.levels)),
                 units(sum(lv.held_units for lv in li.levels)), units(li.total_units)))
    at = desk.local(li.at)
    return Report(
        "Progressive liability", desk.config.casino.name, None, datetime_now(), li.chain_head,
        (f"What the casino owes on its progressives at {at:%Y-%m-%d %H:%M} "
         f"{desk.config.casino.timezone}: every meter, every reserve, and every amount held at "
         "hit for a pay not yet made.",),
        (Sheet("Liability", ("Level", "Meter", "Reserve", "Held at hit", "Total"),
               tuple(rows), frozenset({1, 2, 3, 4}), frozenset({len(rows) - 1})),),
        by=desk.employee, extra={"At": f"{at:%Y-%m-%d %H:%M} {desk.config.casino.timezone}"})


def register_report(desk: Desk, reg: SlipRegister) -> Report:
    rows = tuple((
        x.slip_no, f"{desk.local(x.at):%Y-%m-%d %H:%M:%S}", x.table, x.seat, x.round_no, x.hand,
        x.level or "tray", cents(x.cents), x.state, x.authorized_by, x.verified_by, x.printed,
        x.reprints, x.failed,
        f"{desk.local(x.void_at):%Y-%m-%d %H:%M:%S}" if x.void_at else "", x.void_by,
        x.void_reason) for x in reg.lines)
    first = reg.lines[0].slip_no if reg.lines else None
    last = reg.lines[-1].slip_no if reg.lines else None
    notes = [f"{len(reg.lines)} slip(s)" + (f", {first} to {last}" if first else "")
             + f"; paid {desk.config.money.text(reg.paid_cents)}, void "
             f"{desk.config.money.text(reg.void_cents)}.",
             *(f"GAP: {g}" for g in reg.gaps)]
    if reg.previous_slip is not None:
        notes.append(f"The last slip before the period is {reg.previous_slip}.")
    return Report(
        "Slip register", desk.config.casino.name, reg.period, datetime_now(), reg.chain_head,
        tuple(notes), (Sheet("Slip register", (
            "Slip", "Time", "Table", "Seat", "Round", "Hand", "Level", "Amount", "State",
            "Authorized by", "Verified by", "Prints", "Reprints", "Failed prints", "Void at",
            "Void by", "Void reason"), rows, frozenset({7}),
            print_cols=(0, 1, 2, 3, 5, 6, 7, 8, 9, 10)),),
        alarm=bool(reg.gaps), by=desk.employee)


def hits_report(desk: Desk, rep: HitsByLevel) -> Report:
    summary = tuple((f"{lv.group_id}/{lv.level}", lv.hits, cents(lv.cents)) for lv in rep.levels)
    last = tuple((f"{lv.group_id}/{lv.level}", i + 1, f"{desk.local(h.at):%Y-%m-%d %H:%M:%S}",
                  h.table, h.seat, h.hand, cents(h.cents), h.slip_no, h.authorized_by,
                  "VOID" if h.void else "") for lv in rep.levels for i, h in enumerate(lv.last))
    return Report(
        "Jackpot hits by level", desk.config.casino.name, rep.period, datetime_now(),
        rep.chain_head, ("Hits paid in the period per level, and each level's last 25 hits up "
                         "to the period's end, newest first.",),
        (Sheet("Hits by level", ("Level", "Hits", "Amount"), summary, frozenset({2})),
         Sheet("Last 25 hits", ("Level", "#", "Time", "Table", "Seat", "Hand", "Amount",
                                "Slip", "Authorized by", "Void"), last, frozenset({6}),
               print_cols=(0, 1, 2, 3, 4, 5, 6, 7, 9))),
        by=desk.employee)


def drop_report(desk: Desk, rep: DropReport) -> Report:
    rows = tuple((t.table, t.group_id, t.rounds, t.wagers, cents(t.wager_cents),
                  t.returned_wagers, cents(t.returned_cents), cents(t.drop_cents),
                  units(t.contribution_units), units(t.reversal_units),
                  units(t.net_contribution_units),
                  "" if t.rate is None else f"{t.rate * 100:.4f}%",
                  f"{t.configured_rate * 100:.4f}%") for t in rep.tables)
    odd = [t.table for t in rep.tables if t.rate is not None and t.rate != t.configured_rate]
    notes = ["Progressive wagers (drop) at each table against what they put into the meters "
             "and reserves."]
    if odd:
        notes.append("Tables whose contributions are not the configured rate of their drop "
                     f"(a rate changed in the period, or a difference to look at): "
                     f"{', '.join(odd)}.")
    return Report(
        "Drop and contributions by table", desk.config.casino.name, rep.period, datetime_now(),
        rep.chain_head, tuple(notes), (Sheet("Drop by table", (
            "Table", "Group", "Rounds", "Wagers", "Wagered", "Returned wagers", "Returned",
            "Drop", "Contributions", "Taken back", "Net contributions", "Rate",
            "Configured rate"), rows, frozenset({4, 6, 7, 8, 9, 10}),
            print_cols=(0, 1, 2, 3, 4, 6, 7, 10, 11, 12)),),
        by=desk.employee)


def datetime_now() -> datetime:
    from datetime import UTC

    return datetime.now(UTC)


# --- writers --------------------------------------------------------------------------------------

def _plain(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return decimal_text(value)
    return str(value)


def csv_text(sheet: Sheet) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(sheet.header)
    for row in sheet.rows:
        w.writerow([_plain(c) for c in row])
    return buf.getvalue()


def write_csv(report: Report, path: str | Path, sheet: int = 0) -> Path:
    out = Path(path)
    out.write_text(csv_text(report.sheets[sheet]), encoding="utf-8", newline="")
    return out


def _xlsx_value(value: Cell) -> Any:
    """A money Decimal as a number when a spreadsheet number holds it exactly, else its digits
    in text (never a rounded figure)."""
    if isinstance(value, Decimal):
        as_float = float(value)
        exact = Decimal(repr(as_float)) == value and len(value.as_tuple().digits) <= 15
        return as_float if exact else decimal_text(value)
    return value


def write_xlsx(report: Report, desk: Desk, path: str | Path) -> Path:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    bold = Font(bold=True)
    fmt = "#,##0.00######"
    first = True
    for sheet in report.sheets:
        ws = wb.active if first else wb.create_sheet()
        first = False
        ws.title = sheet.title[:31]
        ws.append([report.name])
        ws["A1"].font = Font(bold=True, size=14)
        for k, v in report.meta(desk):
            ws.append([k, v])
        for note in report.notes:
            ws.append([note])
            if report.alarm:
                ws.cell(ws.max_row, 1).font = Font(bold=True, color="B00000")
        ws.append([])
        top = ws.max_row + 1
        ws.append(list(sheet.header))
        for c in range(1, len(sheet.header) + 1):
            cell = ws.cell(top, c)
            cell.font = bold
            cell.fill = PatternFill("solid", fgColor="DDDDDD")
            cell.alignment = Alignment(wrap_text=True, vertical="top")
        for i, row in enumerate(sheet.rows):
            ws.append([_xlsx_value(c) for c in row])
            r = ws.max_row
            for col in sheet.money:
                ws.cell(r, col + 1).number_format = fmt
                ws.cell(r, col + 1).alignment = Alignment(horizontal="right")
            if i in sheet.strong:
                for c in range(1, len(row) + 1):
                    ws.cell(r, c).font = bold
        ws.freeze_panes = ws.cell(top + 1, 1)
        for c, name in enumerate(sheet.header, 1):
            width = max([len(name)] + [len(_plain(r[c - 1])) for r in sheet.rows[:500]])
            ws.column_dimensions[get_column_letter(c)].width = min(60, max(8, width + 2))
    out = Path(path)
    buffer = io.BytesIO()  # whole before the file is touched: a file that can not be written
    wb.save(buffer)  # is one OSError, not a half-closed zip complaining when collected
    out.write_bytes(buffer.getvalue())
    return out


def header_row(sheet: Sheet, workbook_rows: Sequence[Sequence[Any]]) -> int:
    """The index of ``sheet``'s header in rows read back from its XLSX sheet."""
    for i, row in enumerate(workbook_rows):
        if tuple(row[:len(sheet.header)]) == sheet.header:
            return i
    raise ValueError(f"sheet {sheet.title}: header not found")
