"""The pieces every form's page is made of, as HTML for Qt's ``QTextDocument``: the page's
frame (:func:`form_page`: casino, operator, the poker room's location, the form number and
PAGCOR's TGD reference number box, the certification with the signatures and PAGCOR's
attestation, the "For PAGCOR use" action section), sections, ruled grids and label / value
pairs, notes, check boxes, and the ruled :func:`blank` of a field the ledger can not fill, with
its mark: "(to be filled by hand: not in the ledger)" or "(PAGCOR use)"."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from html import escape

from printing.pages.forms.figures import form_money

RULE = "border-color:#444444; border-style:solid; border-collapse:collapse;"
# The marks of a field the form can not fill (docs/forms.md "Blanks"): printed small after a
# ruled blank, so a reader sees at once who fills it in.
HAND_MARK = "to be filled by hand: not in the ledger"
PAGCOR_MARK = "PAGCOR use"
BOX = "\u2610"  # a check box to tick by hand
CHECKED = "\u2612"  # a box the form ticks


def form_page(title: str, form_no: str, casino: str, operator: str, period: str, body: str,
              *, signers: Sequence[str] = ("Prepared by", "Checked by", "Approved by"),
              location: str = "", annex: str = "PAGCOR annex form",
              after_signatures: str = "",
              certify: str = ("We certify that the figures above are true and correct and "
                              "agree with the count and the records of the poker room.")) -> str:
    """The form's frame: casino, operator and the poker room's location (a blank to fill in
    when the floor file has no ``[poker_room] room_location``), the form number and PAGCOR's
    TGD reference number box (PAGCOR use), the title and period, ``body``, the certification
    with the operator's signers and PAGCOR's attestation, and the "For PAGCOR use" action
    section (docs/forms.md "On every form"); ``after_signatures`` (TGD-1623's Treasury receipt,
    which the form prints after its signatures) goes between them, kept on one page with
    them."""
    where = escape(location) if location.strip() else blank(width=28)
    head = (
        f'<table width="100%" cellspacing="0" cellpadding="0"><tr>'
        f'<td width="64%" valign="top"><span style="font-size:15pt; font-weight:bold;">'
        f"{escape(casino)}</span><br>Operator: {escape(operator)}"
        f"<br>Poker room location: {where}</td>"
        f'<td width="36%" align="right" valign="top"><span style="font-size:14pt; '
        f'font-weight:bold;">{escape(form_no)}</span><br><span style="font-size:7pt;">'
        f"{escape(annex)}</span>"
        f'<table cellspacing="0" cellpadding="3" border="1" align="right" '
        f'style="{RULE} margin-top:3px;"><tr><td>TGD reference no.: {blank(PAGCOR_MARK, 12)}'
        f"</td></tr></table></td></tr></table>"
        f'<p align="center" style="font-size:13pt; font-weight:bold; margin-top:8px; '
        f'margin-bottom:0px;">{escape(title)}</p>'
        f'<p align="center" style="margin-top:2px; margin-bottom:6px;">{escape(period)}</p>'
)
    return (
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
        f"<title>{escape(form_no)} {escape(title)}</title></head>"
        '<body style="font-family:\'DejaVu Sans\', Arial, sans-serif; font-size:8pt;">'
        f"{head}{body}{_signatures(signers, certify)}{after_signatures}{_pagcor_action()}"
        f'<p style="font-size:7pt; color:#555555;">{escape(form_no)} - {escape(casino)} - '
        f"{escape(period)} - produced by Podium</p></body></html>"
)


def signature_cell(role: str, width: int, mark: str = "") -> str:
    """A signature block: the role (with its mark), the line to sign over, position, date."""
    return (f'<td width="{width}%" valign="top" style="padding-right:10px;">'
            f"<b>{escape(role)}:</b>{(' ' + mark_span(mark)) if mark else ''}<br><br>"
            "__________________________<br>"
            '<span style="font-size:7pt;">Signature over printed name</span><br>'
            "Position: _________________<br>"
            "Date: _____________________</td>")


def _signatures(signers: Sequence[str], certify: str) -> str:
    """The operator's signers, then PAGCOR's representative attesting (PAGCOR use)."""
    width = 100 // (len(signers) + 1)
    cells = "".join(signature_cell(role, width) for role in signers)
    cells += signature_cell("Attested by PAGCOR", width, PAGCOR_MARK)
    return ('<h3 style="margin-top:14px; margin-bottom:4px;"><a name="podium-keep-together">'
            "</a>Certification and attestation</h3>"
            f'<p style="margin-top:0px;">{escape(certify)}</p>'
            f'<table width="100%" cellspacing="0" cellpadding="2"><tr>{cells}</tr></table>')


def _pagcor_action() -> str:
    """PAGCOR's own section: when and by whom received, the action taken (approved /
    disapproved, ticked by hand), remarks and signature: all blank, PAGCOR use."""
    box = f'<span style="font-size:10pt;">{BOX}</span>'
    rows = (
        ("Date and time received", blank(PAGCOR_MARK), "Received by", blank(PAGCOR_MARK)),
        ("Action taken", Html(f"{box} Approved &nbsp;&nbsp; {box} Disapproved "
                              + mark_span(PAGCOR_MARK)),
         "Remarks", blank(PAGCOR_MARK)),
        ("Acted on by (signature over printed name)", blank(PAGCOR_MARK),
         "Position / date", blank(PAGCOR_MARK)),
)
    body = "".join(
        f'<tr><td width="20%">{cell_text(a)}</td><td width="30%">{cell_text(b)}</td>'
        f'<td width="16%">{cell_text(c)}</td><td width="34%">{cell_text(d)}</td></tr>'
        for a, b, c, d in rows)
    return ('<h3 style="margin-top:12px; margin-bottom:4px;">For PAGCOR use only: action '
            "taken</h3>"
            f'<table width="100%" border="1" cellspacing="0" cellpadding="3" style="{RULE}">'
            f"{body}</table>")


class Html(str):
    """Cell content that is HTML already (a blank with its mark, check boxes): not escaped."""


def cell_text(text: str) -> str:
    """Escaped cell text; an amount never breaks between its currency and its figures."""
    if isinstance(text, Html):
        return str(text)
    code = form_money().code
    return escape(text).replace(f"{code} ", f"{code}&nbsp;")


def mark_span(mark: str) -> str:
    """The small "(mark)" printed after a blank or a heading: who fills it in."""
    return f'<span style="font-size:6.5pt; color:#555555;">({escape(mark)})</span>'


def blank(mark: str = HAND_MARK, width: int = 22) -> Html:
    """A ruled blank to fill in, with its small mark: "(to be filled by hand: not in the
    ledger)" or "(PAGCOR use)"."""
    return Html("_" * width + " " + mark_span(mark))



def section(name: str) -> str:
    """A section's heading."""
    return f'<h3 style="margin-top:10px; margin-bottom:3px;">{escape(name)}</h3>'


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]], *,
         right: Sequence[int] = (), total: Sequence[str] | None = None,
         widths: Sequence[int] | None = None) -> str:
    """A ruled table: ``right`` are the indexes of the money / number columns."""
    def cell(i: int, text: str, tag: str = "td", bold: bool = False) -> str:
        align = ((' align="right" style="white-space:nowrap;"' if tag == "td"
                  else ' align="right"') if i in right else ' align="left"')
        width = f' width="{widths[i]}%"' if widths and tag == "th" else ""
        shade = ' bgcolor="#e6e6e6"' if tag == "th" or bold else ""
        value = f"<b>{cell_text(text)}</b>" if bold else cell_text(text)
        return f"<{tag}{align}{width}{shade}>{value}</{tag}>"

    out = [f'<table width="100%" border="1" cellspacing="0" cellpadding="2" style="{RULE}">',
           "<tr>" + "".join(cell(i, h, "th") for i, h in enumerate(headers)) + "</tr>"]
    out += ["<tr>" + "".join(cell(i, t) for i, t in enumerate(r)) + "</tr>" for r in rows]
    if total is not None:
        out.append("<tr>" + "".join(cell(i, t, bold=True) for i, t in enumerate(total))
                   + "</tr>")
    out.append("</table>")
    return "".join(out)


def pairs(rows: Sequence[tuple[str, str]], *, strong: Sequence[str] = (),
          label_width: int = 62) -> str:
    """A ruled two-column table of label: value (values right-aligned)."""
    body = "".join(
        f'<tr><td width="{label_width}%">'
        + (f"<b>{cell_text(k)}</b>" if k in strong else cell_text(k)) + '</td><td align="right">'
        + (f"<b>{cell_text(v)}</b>" if k in strong else cell_text(v)) + "</td></tr>"
        for k, v in rows)
    return (f'<table width="100%" border="1" cellspacing="0" cellpadding="2" style="{RULE}">'
            f"{body}</table>")


def side_by_side(left: str, right: str) -> str:
    """Two blocks in two columns of equal width."""
    return ('<table width="100%" cellspacing="0" cellpadding="0"><tr>'
            f'<td width="50%" valign="top" style="padding-right:6px;">{left}</td>'
            f'<td width="50%" valign="top" style="padding-left:6px;">{right}</td></tr></table>')


def note_lines(notes: Sequence[str]) -> str:
    """One small "Note: ..." paragraph a note."""
    return "".join(f'<p style="font-size:7.5pt; margin-top:3px; margin-bottom:0px;">'
                   f"Note: {cell_text(n)}</p>" for n in notes)


def count_text(n: int, thing: str) -> str:
    """"1 table", "3 tables"."""
    return f"{n} {thing}" + ("" if n == 1 else "s")


def day_text(d: date) -> str:
    """A date as the forms write it: "30 November 2026"."""
    return d.strftime("%d %B %Y")


def ticks(items: Sequence[str]) -> str:
    """Check boxes to tick by hand, one a line."""
    rows = "".join(f'<tr><td width="4%" valign="top"><span style="font-size:10pt;">{BOX}'
                   f"</span></td><td>{cell_text(a)}</td></tr>" for a in items)
    return (f'<table width="100%" cellspacing="0" cellpadding="1">{rows}</table>'
            f'<p style="font-size:7.5pt; margin-top:2px;">The boxes: {mark_span(HAND_MARK)}.</p>')
