"""The accountant's reports as printed pages: HTML (what ``QTextDocument`` understands) from the
same sheets as the screen and the exports (core/desks/accounting/sheets.py), printed with Qt's print
support (``printing.pages.winpage.print_on``: a PDF, a printer, the print preview)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from core.desks.accounting.cells import cell_text
from core.desks.accounting.sheets import Report, Sheet
from core.desks.desk import Desk
from core.kernel.money import Currency


class ReportPageError(ValueError):
    """A report page that can not be written; the message names the file and the problem."""


def _table(sheet: Sheet, money: Currency) -> str:
    cols = sheet.print_cols if sheet.print_cols is not None else range(len(sheet.header))
    head = "".join(f"<th align='{'right' if i in sheet.money else 'left'}'>"
                   f"{escape(sheet.header[i])}</th>" for i in cols)
    body = []
    for n, row in enumerate(sheet.rows):
        cells = []
        for i in cols:
            c = row[i]
            raw = cell_text(c, i in sheet.money, money)
            indent = len(raw) - len(raw.lstrip(" "))
            text = "&nbsp;" * (2 * indent) + escape(raw.lstrip(" "))
            if n in sheet.strong:
                text = f"<b>{text}</b>"
            align = "right" if i in sheet.money or isinstance(c, int) else "left"
            cells.append(f"<td align='{align}'>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    if not body:
        body.append(f"<tr><td colspan='{len(list(cols))}'><i>none</i></td></tr>")
    return (f"<h3>{escape(sheet.title)}</h3>"
            "<table width='100%' cellspacing='0' cellpadding='2' border='1' "
            "style='border-collapse: collapse; border-color: #888888; font-size: 8pt'>"
            f"<thead><tr style='background-color: #dddddd'>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def report_html(report: Report, desk: Desk) -> str:
    money = desk.config.money  # the floor's currency, the casino's locale
    meta = "".join(f"<tr><td><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>"
                   for k, v in report.meta(desk) if k != "Ledger")
    colour = "#b00000" if report.alarm else "#006000"
    notes = report.notes
    verdict = (f"<p style='color: {colour}; font-size: 12pt'><b>{escape(notes[0])}</b></p>"
               if notes else "")
    rest = "".join(f"<p>{escape(n)}</p>" for n in notes[1:])
    tables = "".join(_table(s, money) for s in report.sheets)
    return (
        "<html><body>"
        f"<h2>{escape(report.name)}</h2>"
        f"<table cellspacing='0' cellpadding='1'>{meta}</table>"
        f"{verdict}{rest}{tables}"
        f"<p style='font-size: 7pt'>{escape(report.chain_head)}<br>"
        "Check this page against the ledger: podium audit verify --head ROW:HASH</p>"
        "</body></html>")


def write_pdf(report: Report, desk: Desk, path: str | Path, *, page_size: str = "A4") -> Path:
    from printing.pages import winpage

    out = Path(path)
    if not out.parent.is_dir():
        raise ReportPageError(f"report file {out}: the folder {out.parent} does not exist")
    try:
        return winpage.write_pdf(report_html(report, desk), out, page_size=page_size,
                                 title=f"Podium: {report.name}")
    except winpage.WinPageError as exc:
        raise ReportPageError(str(exc).replace("win page", "report")) from None


def render_png(report: Report, desk: Desk, path: str | Path, *, dpi: int = 90) -> Path:
    from printing.pages import winpage

    return winpage.render_png(report_html(report, desk), path, dpi=dpi)
