"""The accounting win page of a win slip, as the win page search (gui/tablegames/winpage_search.py)
shows, prints and saves it.

The page is ``printing.pages.winpage.winpage_html`` of the slip record rebuilt from the ledger
(``Floor.win_slip``) plus the hit's verification details (``Floor.hit_record``): the claim,
the cards, what they evaluate to, and every decision and swipe with who and when."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core.tablegames.slip_record import WinSlip
from core.tablegames.views import HitRecord
from gui.common.cards import hand_label, with_hand_names
from printing.escpos.slip import cards_text
from printing.pages.winpage import winpage_html, write_pdf

PAGE_SIZE = "A4"


def default_folder() -> Path:
    """``<user data folder>/winpages`` (the folder the ledger and demo data live in)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("podium")) / "winpages"


def _local(at: datetime, zone: ZoneInfo, day: str = "") -> str:
    """Local time; the date only when it is not ``day`` (the date the slip was paid)."""
    local = at.astimezone(zone)
    date = f"{local:%Y-%m-%d}"
    text = f"{local:%H:%M:%S} {local.tzname() or ''}".rstrip()
    return text if date == day else f"{date} {text}"


def _cards(cards: tuple[str, ...]) -> str:
    return cards_text(cards, symbols=True) if cards else "(none recorded)"


def winpage_extra(record: HitRecord, slip: WinSlip) -> dict[str, str]:
    """The verification details of the win page (label -> text, in page order): the claim
    and what the cards make, the cards, the HIT JACKPOT event, then every decision and card
    swipe of the hit, oldest first, with who and when."""
    zone = ZoneInfo(slip.timezone)
    day = f"{slip.local_paid_at:%Y-%m-%d}"
    evaluated = hand_label(record.evaluated_hand) if record.evaluated_hand else "(no cards)"
    paid = hand_label(record.paid_hand) if record.paid_hand else "(not paid)"
    out: dict[str, str] = {
        "Claimed / cards make / paid as":
            f"{hand_label(record.claimed_hand)} / {evaluated} / {paid}",
    }
    if record.verified_cards and record.verified_cards != record.table_cards:
        out["Cards sent by the table"] = _cards(record.table_cards)
        out["Cards verified by supervisor"] = _cards(record.verified_cards)
    else:
        source = ("the table's, confirmed by the supervisor" if record.verified_cards
                  else "sent by the table")
        out["Cards"] = f"{_cards(record.table_cards)}  ({source})"
    wager = (slip.money(record.wager_cents) if record.wager_cents is not None
             else "no wager recorded")
    out["HIT JACKPOT"] = (f"{_local(record.claimed_at, zone, day)}, controller event "
                          f"{record.controller_ref}, wager {wager}")
    if record.flags:
        out["Flags raised at the hit"] = with_hand_names("; ".join(record.flags))
    for i, d in enumerate(record.decisions, 1):
        reason = f" · {with_hand_names(d.reason)}" if d.reason else ""
        out[f"{i}. {d.what.replace('_', ' ')}"] = f"{_local(d.at, zone, day)} · {d.who}{reason}"
    if len(record.slip_nos) > 1:
        out["Win slips of this hit"] = ", ".join(f"{n:06d}" for n in record.slip_nos)
    return out


def winpage_for(floor: Any, slip_no: int) -> tuple[WinSlip, str]:
    """The slip record and the win page HTML of slip ``slip_no`` (from the ledger)."""
    slip = floor.win_slip(slip_no)
    hit_id = int(slip.hit_ref.removeprefix("H"))  # the floor's hit reference: "H<hit id>"
    return slip, winpage_html(slip, winpage_extra(floor.hit_record(hit_id), slip),
                              chain=floor.chain_head_text())


def save_winpage_pdf(floor: Any, slip_no: int, folder: Path | None = None) -> Path:
    """Write ``win-page-<slip>.pdf`` into ``folder`` (default: the user data folder's
    ``winpages``), creating the folder; returns the file's path."""
    return write_winpage_pdf(slip_no, *winpage_for(floor, slip_no), folder)


def write_winpage_pdf(slip_no: int, slip: WinSlip, html: str, folder: Path | None = None) -> Path:
    """Write a win page already read (``winpage_for``) as ``win-page-<slip>.pdf``."""
    folder = folder if folder is not None else default_folder()
    folder.mkdir(parents=True, exist_ok=True)
    return write_pdf(html, folder / f"win-page-{slip_no:06d}.pdf", page_size=PAGE_SIZE,
                     title=f"Win page {slip_no:06d} {slip.hit_ref}")


def print_html(html: str, printer: Any) -> None:
    """Lay ``html`` out on ``printer``'s page (15 mm margins) and print it; what the print
    preview's paintRequested calls."""
    from printing.pages.winpage import print_on

    print_on(html, printer)


def preview_dialog(html: str, *, doc_name: str, title: str, parent: Any = None) -> Any:
    """Qt's print preview of ``html`` on A4 (not shown); printing from it goes through the
    platform's print dialog.  The dialog holds its QPrinter: it keeps only a C++ pointer to it,
    and a printer Python had deleted crashed the console when the dialog was shown."""
    from PySide6.QtGui import QPageSize
    from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog

    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setDocName(doc_name)
    printer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    dlg = QPrintPreviewDialog(printer, parent)
    dlg.printer_ref = printer  # type: ignore[attr-defined]
    dlg.setWindowTitle(title)
    dlg.paintRequested.connect(lambda p: print_html(html, p))
    return dlg
