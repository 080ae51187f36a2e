"""The accounting win page: a full A4/Letter page for a paid hit, as HTML -> PDF.

:func:`winpage_html` is a pure function (slip + verification details -> HTML that Qt's
``QTextDocument`` understands); :func:`write_pdf` prints that HTML to a PDF with
``QPdfWriter``; :func:`render_png` draws it into an image (for a preview, or to look at
a page where no PDF viewer is at hand).  Qt is imported only by those two.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from core.tablegames.slip_record import WinSlip
from printing.escpos.slip import (
    amount_in_words,
    cards_text,
    local_time_text,
    paid_time_text,
)

PAGE_SIZES = ("A4", "Letter")
_TABLE_STYLE = "border-color:#888888; border-style:solid; border-collapse:collapse;"
MARGIN_MM = 15.0


class WinPageError(ValueError):
    """The win page can not be produced (the message names the file or setting)."""


def _row(label: str, value: str, *, strong: bool = False) -> str:
    v = f"<b>{escape(value)}</b>" if strong else escape(value)
    return (f'<tr><td width="38%" style="color:#444444;">{escape(label)}</td>'
            f"<td>{v}</td></tr>")


SIGNERS = (
    ("Supervisor (authorized the pay)", "Employee no."),
    ("Verifier / second supervisor", "Employee no."),
    ("Cashier (paid the player)", "Employee no."),
    ("Player (received the amount)", "ID type and no."),
    ("Accounting (reviewed)", "Employee no."),
)


def _signatures() -> str:
    head = "".join(f'<th align="left" style="background-color:#eeeeee;">{h}</th>'
                   for h in ("Role", "Name", "No. / ID", "Signature", "Date and time"))
    rows = "".join(
        f'<tr><td width="24%">{escape(role)}<br><span style="font-size:7pt; color:#666666;">'
        f'{escape(idlabel)}</span></td><td width="22%">&nbsp;</td><td width="14%">&nbsp;</td>'
        f'<td width="24%">&nbsp;</td><td width="16%">&nbsp;</td></tr>' for role, idlabel in SIGNERS)
    return (f'<table width="100%" border="1" cellspacing="0" cellpadding="7" '
            f'style="{_TABLE_STYLE}"><tr>{head}</tr>{rows}</table>')


def winpage_html(slip: WinSlip, extra: Mapping[str, str] | None = None,
                 chain: str = "") -> str:
    """HTML of the win page: every field of ``slip``, ``extra`` verification details
    (label -> text, in the given order), signature blocks and ``chain``, the ledger's chain
    head when the page was made (``core.ledger.integrity.head_text``)."""
    if extra is not None and not all(isinstance(k, str) and isinstance(v, str)
                                     for k, v in extra.items()):
        raise WinPageError("win page extra: every verification detail must be text: text")
    local, utc = local_time_text(slip)
    money = slip.money
    title = "REPRINT / COPY - " if slip.reprint else ""
    banner = ('<p align="center" style="background-color:#000000; color:#ffffff; '
              'font-size:14pt; font-weight:bold;">&nbsp;REPRINT - COPY - NOT AN ORIGINAL&nbsp;</p>'
              if slip.reprint else "")

    void = slip.void
    void_box = ""
    if void is not None:
        v_local, v_utc = paid_time_text(void.at, slip.zone)
        title = "VOID - " + title
        void_box = (
            '<table width="100%" border="3" cellspacing="0" cellpadding="6" '
            'style="border-color:#c00000; border-style:solid; border-collapse:collapse;">'
            '<tr><td align="center">'
            '<p align="center" style="font-size:44pt; font-weight:bold; color:#c00000; '
            'margin:0px;">VOID</p>'
            '<p align="center" style="font-size:11pt; font-weight:bold; color:#c00000; '
            'margin:0px;">This win slip is void and not payable</p>'
            f'<p align="center" style="font-size:9pt; margin:2px;">Voided {escape(v_local)} '
            f"({escape(v_utc)}) by <b>{escape(void.by.label())}</b><br>"
            f"Reason: <b>{escape(void.reason)}</b><br>"
            f"Money: {escape(void.money_text())}</p>"
            "</td></tr></table>")

    hit_rows = [
        _row("Hit reference", slip.hit_ref, strong=True),
        _row("Win slip number", f"{slip.slip_no:06d}"),
        _row("Table", slip.table),
        _row("Seat", str(slip.seat)),
        _row("Round", str(slip.round_no)),
        _row("Paytable", slip.paytable),
        _row("Hand", slip.hand, strong=True),
        _row("Hand id", slip.hand_id),
        _row("Cards", cards_text(slip.cards, symbols=True) if slip.cards else "(not recorded)"),
    ]
    pay_rows = [
        _row("Amount paid", money(slip.amount_cents), strong=True),
        _row("Paid from", f"{slip.level} progressive meter" if slip.source == "meter"
             else "table tray (fixed award)"),
    ]
    if slip.source == "meter":
        assert slip.meter_before_cents is not None and slip.meter_after_cents is not None
        pay_rows += [
            _row("Meter before", money(slip.meter_before_cents)),
            _row("Meter after", money(slip.meter_after_cents)),
            _row("Meter change", money(slip.meter_after_cents - slip.meter_before_cents)),
        ]
    pay_rows += [_row("Paid at (local)", local), _row("Time zone", slip.timezone),
                 _row("Paid at (UTC)", utc)]

    people = [_row("Authorized by", slip.authorized_by.label())]
    people.append(_row("Verified by", slip.verified_by.label() if slip.verified_by
                       else "(no secondary verification recorded)"))
    details = [_row(k, v) for k, v in (extra or {}).items()]
    notes = [_row("Note", n) for n in slip.notes]

    def section(name: str, rows: list[str]) -> str:
        if not rows:
            return ""
        return (f'<h3 style="margin-top:10px; margin-bottom:3px;">{escape(name)}</h3>'
                f'<table width="100%" border="1" cellspacing="0" cellpadding="3" '
                f'style="{_TABLE_STYLE}">{"".join(rows)}</table>')

    signatures = _signatures()

    return (
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)}Win page {slip.slip_no:06d} {escape(slip.hit_ref)}</title></head>"
        '<body style="font-family:\'DejaVu Sans\', Arial, sans-serif; font-size:9pt;">'
        f"{banner}{void_box}"
        f'<p align="center" style="font-size:16pt; font-weight:bold; margin-bottom:0px;">'
        f"{escape(slip.casino)}</p>"
        f'<p align="center" style="font-size:13pt; margin-top:2px;">Progressive jackpot win page'
        f" - accounting copy - win slip No. {slip.slip_no:06d}</p>"
        f'<p align="center" style="font-size:22pt; font-weight:bold; margin-top:4px; '
        f'margin-bottom:0px;">{escape(money(slip.amount_cents))}</p>'
        f'<p align="center" style="margin-top:0px;">{escape(amount_in_words(slip.amount_cents))}'
        "</p>"
        + '<table width="100%" cellspacing="0" cellpadding="0"><tr>'
        + '<td width="50%" valign="top" style="padding-right:6px;">'
        + f'{section("The hit", hit_rows)}</td>'
        + '<td width="50%" valign="top" style="padding-left:6px;">'
        + f'{section("The pay", pay_rows)}</td>'
        + "</tr></table>"
        + section("Authorization and verification", people + details + notes)
        + '<h3 style="margin-top:10px; margin-bottom:3px;">Signatures</h3>'
        + signatures
        + f'<p style="font-size:8pt; color:#555555;">{escape(slip.casino)} - {escape(slip.hit_ref)}'
        f" - win slip {slip.slip_no:06d} - {escape(utc)}"
        + (" - REPRINT / COPY" if slip.reprint else "")
        + (" - VOID" if void is not None else "")
        + "</p>"
        + (f'<p style="font-size:7pt; font-family:monospace;">{escape(chain)}</p>' if chain
           else "")
        + "</body></html>"
    )


# --------------------------------------------------------------------------------------
# Qt: PDF and image


def _qt_app() -> Any:
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # a QApplication (not only a QGuiApplication): a console, a desk or a test that opens
    # windows later in the same process needs the widgets' application, and Qt allows one
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(["podium"])
    return app


def document(html: str) -> Any:
    """The ``QTextDocument`` of a printed page.  Text without a colour of its own is BLACK: a
    document takes its default text colour from the application's palette, and the console's
    dark theme would otherwise print it in light grey on white paper."""
    from PySide6.QtGui import QFont, QTextDocument

    doc = QTextDocument()
    font = QFont("DejaVu Sans")
    font.setPointSizeF(9)
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet("html, body { color: #000000; }")
    doc.setHtml(html)
    return doc


KEEP_TOGETHER = "podium-keep-together"  # <a name=...>: the page's tail is kept on one page


def keep_tail_together(doc: Any) -> None:
    """A paginated ``doc`` whose HTML marks a block with ``<a name="podium-keep-together">``
    (a form's certification, signatures and PAGCOR section) starts that block on a new page
    when it would otherwise be split across two pages and fits on one (Qt's rich text has no
    ``page-break-inside: avoid``)."""
    from PySide6.QtGui import QTextBlockFormat, QTextCursor

    height = doc.pageSize().height()
    if height <= 0:
        return
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if KEEP_TOGETHER in it.fragment().charFormat().anchorNames():
                top = doc.documentLayout().blockBoundingRect(block).top()
                first, last = int(top // height), doc.pageCount() - 1
                if first < last and doc.documentLayout().documentSize().height() - top \
                        <= height * (last - first):
                    fmt = QTextBlockFormat()
                    fmt.setPageBreakPolicy(QTextBlockFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                    QTextCursor(block).mergeBlockFormat(fmt)
                return
            it += 1
        block = block.next()


def print_on(html: str, device: Any) -> None:
    """Print ``html`` on a paged device (a ``QPdfWriter`` or a ``QPrinter``) with 15 mm margins,
    laid out on its printable area: a paginated document prints as laid out (an unpaginated one
    would get Qt's own 2 cm margins and page numbers).  The one way Podium prints a page."""
    from PySide6.QtCore import QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout

    device.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
                          QPageLayout.Unit.Millimeter)
    doc = document(html)
    doc.documentLayout().setPaintDevice(device)
    rect = device.pageLayout().paintRectPixels(device.resolution())
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
    doc.setDocumentMargin(0)
    keep_tail_together(doc)
    doc.print_(device)


def _page_size(page_size: str) -> Any:
    from PySide6.QtGui import QPageSize

    sizes = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}
    key = page_size.strip().lower() if isinstance(page_size, str) else ""
    if key not in sizes:
        raise WinPageError(f"win page size: {page_size!r} is not one of A4, Letter")
    return QPageSize(sizes[key])


def write_pdf(html: str, path: str | Path, *, page_size: str = "A4",
              title: str = "Podium win page") -> Path:
    """Print ``html`` to a PDF file at ``path`` (A4 or Letter, 15 mm margins)."""
    from PySide6.QtGui import QPdfWriter

    out = Path(path)
    size = _page_size(page_size)
    if not out.parent.is_dir():
        raise WinPageError(f"win page file {out}: the folder {out.parent} does not exist")
    app = _qt_app()  # noqa: F841 - fonts and layout need a QGuiApplication
    writer = QPdfWriter(str(out))
    writer.setTitle(title)
    writer.setCreator("Podium")
    writer.setResolution(300)
    writer.setPageSize(size)
    print_on(html, writer)
    del writer  # flushes and closes the file
    if not out.is_file() or out.stat().st_size == 0:
        raise WinPageError(f"win page file {out}: could not be written")
    return out


def render_png(html: str, path: str | Path, *, page_size: str = "A4", dpi: int = 110) -> Path:
    """Draw ``html`` as page-wide image(s) at ``dpi`` (no PDF viewer needed) and save a PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSizeF, Qt
    from PySide6.QtGui import QImage, QPainter

    out = Path(path)
    size = _page_size(page_size)
    app = _qt_app()  # noqa: F841
    page_mm = size.size(size.Unit.Millimeter)
    px = dpi / 25.4
    width, height = int(page_mm.width() * px), int(page_mm.height() * px)
    margin = int(MARGIN_MM * px)
    dpm = int(dpi / 0.0254)
    probe = QImage(1, 1, QImage.Format.Format_RGB32)
    probe.setDotsPerMeterX(dpm)
    probe.setDotsPerMeterY(dpm)
    doc = document(html)
    doc.documentLayout().setPaintDevice(probe)
    doc.setPageSize(QSizeF(width - 2 * margin, height - 2 * margin))
    doc.setDocumentMargin(0)
    keep_tail_together(doc)
    pages = max(1, doc.pageCount())
    image = QImage(width, height * pages, QImage.Format.Format_RGB32)
    image.setDotsPerMeterX(dpm)
    image.setDotsPerMeterY(dpm)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    try:
        for page in range(pages):
            painter.save()
            inner = height - 2 * margin
            painter.translate(QPointF(margin, page * height + margin - page * inner))
            clip = QRectF(0, page * inner, width - 2 * margin, inner)
            doc.drawContents(painter, clip)
            painter.restore()
            if page:
                painter.setPen(Qt.GlobalColor.gray)
                painter.drawLine(0, page * height, width, page * height)
    finally:
        painter.end()
    # encoded in memory, then written: a file that can not be written is one OSError, not
    # libpng's own line on the process's stderr as well
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6's stub says the format is bytes, but PySide6 6.x accepts only str here
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise WinPageError(f"win page image {out}: could not be made")
    buffer.close()
    try:
        out.write_bytes(data.data())
    except OSError as exc:
        raise WinPageError(f"win page image {out}: could not be written "
                           f"({exc.strerror or exc})") from None
    return out
