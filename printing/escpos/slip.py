"""The win slip: a finished, paid hit as ESC/POS bytes for an 80 mm receipt printer.

``render_slip`` is a pure function: the same :class:`WinSlip` always gives the same
bytes, so the ledger can keep them for reprint and audit, and the on-screen preview
(``printing.escpos.preview``) is drawn from exactly what the paper receives.

python-escpos is imported lazily through :func:`escpos_dummy`, which first makes sure
its import does not configure the application's logging (escpos 3.1 calls
``logging.basicConfig()`` at import) and does not create a temporary folder per
process (``ESCPOS_CAPABILITIES_PICKLE_DIR``).
"""

from __future__ import annotations

import functools
import logging
import os
import textwrap
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.kernel.cards import format_cards, parse_card
from core.kernel.money import Currency
from core.kernel.text import printable
from core.people.who import Who
from core.tablegames.slip_record import SlipError, VoidMark, WinSlip

DEFAULT_PROFILE = "TM-T88V"
QR_MODULE_DOTS = 6
_SUIT_SYMBOL = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
LABEL_WIDTH = 13


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --------------------------------------------------------------------------------------
# escpos import (logging guard, capabilities cache)


def _import_escpos() -> Any:
    if not os.environ.get("ESCPOS_CAPABILITIES_PICKLE_DIR"):
        try:
            import platformdirs

            cache = os.path.join(platformdirs.user_cache_dir("podium", appauthor=False), "escpos")
            os.makedirs(cache, exist_ok=True)
            os.environ["ESCPOS_CAPABILITIES_PICKLE_DIR"] = cache
        except OSError:  # pragma: no cover - unwritable home: escpos falls back to a temp dir
            pass
    root = logging.getLogger()
    guard: logging.Handler | None = None
    if not root.handlers:
        # escpos calls logging.basicConfig() at import; with a handler present that is a
        # no-op, and removing ours afterwards leaves the application's logging untouched.
        guard = logging.NullHandler()
        root.addHandler(guard)
    try:
        import escpos.printer
    finally:
        if guard is not None:
            root.removeHandler(guard)
    return escpos.printer


def escpos_dummy(profile: str = DEFAULT_PROFILE) -> Any:
    """A python-escpos ``Dummy`` printer for ``profile`` (its ``.output`` holds the bytes)."""
    printer_mod = _import_escpos()
    try:
        return printer_mod.Dummy(profile=profile)
    except Exception as e:  # escpos raises its own error types for an unknown profile
        raise SlipError(f"printer profile {profile!r}: not known to python-escpos ({e})") from None


def profile_columns(printer: Any) -> int:
    fonts = printer.profile.profile_data.get("fonts") or {}
    try:
        return int(fonts["0"]["columns"])
    except (KeyError, TypeError, ValueError):
        return 42


# --------------------------------------------------------------------------------------
# layout helpers


def _suit_symbols_printable(printer: Any) -> bool:
    encoder = printer.magic.encoder
    return any(all(encoder.can_encode(cp, ch) for ch in _SUIT_SYMBOL.values())
               for cp in printer.profile.get_code_pages())


@functools.lru_cache(maxsize=32)
def suit_symbols_for(profile: str) -> bool:
    """Whether a printer of ``profile`` prints the suit symbols (its code pages do not change:
    asked once per profile; python-escpos builds every code page's map to answer)."""
    p, _w = start_receipt(profile, reprint=False)
    return _suit_symbols_printable(p)


@functools.lru_cache(maxsize=32)
def _prints(profile: str, text: str) -> bool:
    """Whether every character of ``text`` is in one of ``profile``'s code pages."""
    p, _w = start_receipt(profile, reprint=False)
    encoder, pages = p.magic.encoder, p.profile.get_code_pages()
    return all(any(encoder.can_encode(cp, ch) for cp in pages) for ch in text)


def paper_money(currency: Currency, profile: str = DEFAULT_PROFILE) -> Currency:
    """``currency`` as a printer of ``profile`` writes it: as the casino's locale writes it
    when the printer has the sign (``$``), else with the ISO code in its place (no ESC/POS code
    page has ``₱``: ``PHP 1,234.56``)."""
    return currency.on_paper(lambda text: _prints(profile, text))


def cards_text(cards: Sequence[str], symbols: bool) -> str:
    """Canonical card text (``As Td Jk``); with ``symbols`` the suit letters become ♠♥♦♣."""
    out = []
    for text in format_cards([parse_card(c) for c in cards]):
        if symbols and text != "Jk":
            text = text[:-1] + _SUIT_SYMBOL[text[-1]]
        out.append(text)
    return " ".join(out)


def _utc_offset(dt: datetime) -> str:
    off = dt.utcoffset() or timedelta(0)
    sign = "-" if off < timedelta(0) else "+"
    minutes = abs(int(off.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def paid_time_text(paid_at: datetime, zone: ZoneInfo) -> tuple[str, str]:
    """(local time in ``zone`` with the zone's abbreviation, the same instant in UTC)."""
    local = paid_at.astimezone(zone)
    utc = paid_at.astimezone(ZoneInfo("UTC"))
    # the abbreviation alone misleads ("PST" is Philippine AND Pacific time): the offset too
    offset = _utc_offset(local)
    name = local.tzname() or ""
    zone_text = (name if name == "UTC" and offset == "UTC+00:00"
                 else f"{name} ({offset})" if name and name != offset else offset)
    return f"{local:%Y-%m-%d %H:%M:%S} {zone_text}", f"{utc:%Y-%m-%d %H:%M:%S} UTC"


def local_time_text(slip: WinSlip) -> tuple[str, str]:
    """(local time with the zone's abbreviation, the same instant in UTC)."""
    return paid_time_text(slip.paid_at, slip.zone)


_ONES = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN",
         "ELEVEN", "TWELVE", "THIRTEEN", "FOURTEEN", "FIFTEEN", "SIXTEEN", "SEVENTEEN",
         "EIGHTEEN", "NINETEEN")
_TENS = ("", "", "TWENTY", "THIRTY", "FORTY", "FIFTY", "SIXTY", "SEVENTY", "EIGHTY", "NINETY")
_SCALES = ((10**12, "TRILLION"), (10**9, "BILLION"), (10**6, "MILLION"), (1000, "THOUSAND"))


def _words_below_1000(n: int) -> str:
    parts = []
    if n >= 100:
        parts.append(f"{_ONES[n // 100]} HUNDRED")
        n %= 100
    if n >= 20:
        parts.append(_TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else ""))
    elif n or not parts:
        parts.append(_ONES[n])
    return " ".join(parts)


def amount_in_words(cents: int) -> str:
    """``123456`` -> ``"ONE THOUSAND TWO HUNDRED THIRTY-FOUR AND 56/100"`` (cheque style)."""
    if not _is_int(cents) or cents < 0:
        raise SlipError(f"amount: {cents!r} must be 0 or more cents")
    whole, frac = divmod(cents, 100)
    parts = []
    for scale, name in _SCALES:
        if whole >= scale:
            parts.append(f"{_words_below_1000(whole // scale)} {name}")
            whole %= scale
    if whole or not parts:
        parts.append(_words_below_1000(whole))
    return f"{' '.join(parts)} AND {frac:02d}/100"


# --------------------------------------------------------------------------------------
# the slip


class _Writer:
    """Line-oriented helper over an escpos printer with a fixed number of columns."""

    def __init__(self, p: Any, columns: int) -> None:
        self.p = p
        self.cols = columns
        self._style: tuple[str, bool, str, bool] | None = None

    def style(self, *, align: str = "left", bold: bool = False, size: str = "normal",
              invert: bool = False) -> None:
        """Send only what changed (set() sends the size first, ESC ! also clears bold)."""
        new = (align, bold, size, invert)
        old = self._style
        self._style = new
        if old == new:
            return
        if old is None or old[2] != size:
            if size == "3x":
                self.p.set(custom_size=True, width=3, height=3)
            else:
                self.p.set(normal_textsize=size == "normal", double_width=size in ("2x", "2w"),
                           double_height=size in ("2x", "2h"))
            # ESC ! clears bold; on the first call nothing is known yet
            old = (old[0], not bold, size, old[3]) if old else ("", not bold, size, not invert)
        if old[1] != bold:
            self.p.set(bold=bold)
        if old[0] != align:
            self.p.set(align=align)
        if old[3] != invert:
            self.p.set(invert=invert)

    def bold(self, on: bool) -> None:
        if self._style is not None:
            self.style(align=self._style[0], bold=on, size=self._style[2], invert=self._style[3])

    def line(self, text: str = "", *, width: int | None = None) -> None:
        text = printable(text)  # a name or reason is never a printer command
        cols = width or self.cols
        if len(text) <= cols:  # as is (keeps the padding of an inverted banner)
            self.p.text(text + "\n")
            return
        chunks = textwrap.wrap(text, cols, break_long_words=True) or [""]
        for chunk in chunks:
            self.p.text(chunk + "\n")

    def rule(self, ch: str = "-") -> None:
        self.style()
        self.p.text(ch * self.cols + "\n")

    def field(self, label: str, value: str, *, bold: bool = False) -> None:
        label, value = printable(label), printable(value)
        self.style(bold=False)
        width = self.cols - LABEL_WIDTH
        chunks = textwrap.wrap(value, width, break_long_words=True) or [""]
        for i, chunk in enumerate(chunks):
            head = (label if i == 0 else "").ljust(LABEL_WIDTH)
            if bold:
                self.p.text(head)
                self.bold(True)
                self.p.text(chunk + "\n")
                self.bold(False)
            else:
                self.p.text(head + chunk + "\n")

    def big(self, text: str, *, align: str = "center", bold: bool = True,
            largest: int = 2) -> None:
        """Text at 2x2 (or 3x3 when ``largest`` is 3 and it fits on one line)."""
        size = "3x" if largest >= 3 and len(text) <= self.cols // 3 else "2x"
        self.style(align=align, bold=bold, size=size)
        self.line(text, width=self.cols // int(size[0]))
        self.style()


def start_receipt(profile: str, *, reprint: bool) -> tuple[Any, _Writer]:
    """A receipt's printer (a python-escpos Dummy) and writer, initialized; a reprint starts
    with its banner.  Every receipt Podium prints begins here and ends in
    :func:`finish_receipt`."""
    p = escpos_dummy(profile)
    w = _Writer(p, profile_columns(p))
    p.hw("INIT")
    p.magic.force_encoding("CP437")  # a known starting code page: ESC t 0
    p.charcode("AUTO")  # then switch only where a character needs it
    p.line_spacing()  # default line spacing
    if reprint:
        w.style(align="center", bold=True, invert=True)
        w.line(" REPRINT - COPY - NOT AN ORIGINAL ")
        w.style()
        p.text("\n")
    return p, w


def finish_receipt(p: Any, w: _Writer, *, reference: str, signers: Sequence[str], footer: str,
                   reprint: bool, acknowledgment: str = "") -> bytes:
    """The end of a receipt: the reference as a QR code and in bold, an optional
    acknowledgment line, signature lines, the footer (and the reprint mark), the cut; the
    bytes."""
    w.style(align="center")
    p.qr(reference, size=QR_MODULE_DOTS, native=True)
    p.text("\n")
    w.style(align="center", bold=True)
    w.line(reference)
    w.style()
    p.text("\n")
    if acknowledgment:
        w.line(acknowledgment)
    for who in signers:
        p.text("\n\n")
        w.field(who, "_" * (w.cols - LABEL_WIDTH))
    p.text("\n")
    w.style(align="center")
    w.line(footer)
    if reprint:
        w.style(align="center", bold=True, invert=True)
        w.line(" REPRINT - COPY ")
        w.style()
    p.cut()
    out: bytes = bytes(p.output)
    return out


def render_slip(slip: WinSlip, *, profile: str = DEFAULT_PROFILE) -> bytes:
    """The ESC/POS bytes of ``slip`` for a printer of ``profile`` (pure: same slip, same bytes)."""
    p, w = start_receipt(profile, reprint=slip.reprint)
    symbols = suit_symbols_for(profile)
    money = paper_money(slip.currency, profile).text
    w.big(slip.casino.upper())
    w.style(align="center", bold=True, size="2h")
    w.line(f"WIN SLIP No. {slip.slip_no:06d}")
    w.style(align="center")
    w.line("Progressive jackpot" if slip.source == "meter" else "Jackpot pay from table tray")
    w.rule("=")

    w.field("Hit ref", slip.hit_ref, bold=True)
    w.field("Table", slip.table)
    w.field("Seat", str(slip.seat))
    w.field("Round", str(slip.round_no))
    w.field("Paytable", slip.paytable)
    w.field("Hand", slip.hand, bold=True)
    w.field("Hand id", slip.hand_id)
    if slip.cards:
        w.field("Cards", cards_text(slip.cards, symbols))
    w.rule()

    w.style(align="center", bold=True)
    w.line("AMOUNT PAID")
    w.big(money(slip.amount_cents), largest=3)
    w.style(align="center")
    w.line(amount_in_words(slip.amount_cents))
    if slip.source == "meter":
        w.line(f"Paid from the {slip.level} progressive meter")
    else:
        w.line("Fixed award, paid from the table tray")
    w.rule()

    if slip.source == "meter":
        assert slip.meter_before_cents is not None and slip.meter_after_cents is not None
        w.field("Meter level", str(slip.level))
        w.field("Meter before", money(slip.meter_before_cents))
        w.field("Meter after", money(slip.meter_after_cents))
        w.rule()

    for label, signer in (("Authorized", slip.authorized_by), ("Verified", slip.verified_by)):
        if signer is not None:
            w.field(label, signer.name)
            w.field("", f"No. {signer.number}, {signer.role}")
    local, utc = local_time_text(slip)
    w.field("Paid at", local)
    w.field("", utc)
    for note in slip.notes:
        w.field("Note", note)
    w.rule()
    return finish_receipt(p, w, reference=slip.hit_ref, signers=("Supervisor", "Cashier", "Player"),
                          footer=f"{slip.casino} - win slip {slip.slip_no:06d}",
                          reprint=slip.reprint)


def demo_slip(*, reprint: bool = False) -> WinSlip:
    """A realistic slip for previews, documentation and tests."""
    from datetime import UTC

    return WinSlip(
        casino="Emerald Queen Casino",
        slip_no=42,
        hit_ref="H-000042",
        table="PG-3 Pai Gow",
        seat=6,
        round_no=1187,
        paytable="FPGPP-WA01",
        hand="Royal Flush + Royal Match",
        hand_id="RF_ROYAL_MATCH",
        cards=("As", "Ks", "Qs", "Js", "Jk", "Kh", "Qh"),
        amount_cents=617313,
        source="meter",
        level="MAIN",
        meter_before_cents=1234627,
        meter_after_cents=617314,
        authorized_by=Who("10482", "Maria Santos", "Supervisor"),
        verified_by=Who("20117", "Dale Brooks", "Floor supervisor"),
        paid_at=datetime(2025, 6, 2, 4, 14, 3, tzinfo=UTC),
        timezone="America/Los_Angeles",
        reprint=reprint,
    )


REPRINT_BANNER = " REPRINT - COPY - NOT AN ORIGINAL "
DUPLICATE_BANNER = " DUPLICATE - PRINT STATE UNKNOWN "
DUPLICATE_NOTE = ("An earlier print of this slip may exist: it was sent to the printer and "
                  "never confirmed. Pay once only.")


def reprint_banner(*, profile: str = DEFAULT_PROFILE) -> bytes:
    """The bytes put in front of a stored slip when it is printed again, so the paper says
    clearly that it is a copy.  The stored original bytes stay unchanged in the ledger."""
    p = escpos_dummy(profile)
    p.set(align="center", bold=True, invert=True, double_height=True)
    p.text(REPRINT_BANNER + "\n")
    p.set(align="left", bold=False, invert=False, double_height=False)
    p.text("\n")
    return bytes(p.output)


def duplicate_banner(*, profile: str = DEFAULT_PROFILE) -> bytes:
    """The bytes put in front of a stored slip whose earlier print was never confirmed (the
    console stopped between sending it and recording the outcome, or the printer failed after
    taking it): an original may exist, so this one says it is a duplicate."""
    p = escpos_dummy(profile)
    w = _Writer(p, profile_columns(p))
    p.set(align="center", bold=True, invert=True, double_height=True)
    p.text(DUPLICATE_BANNER + "\n")
    p.set(align="center", bold=False, invert=False, normal_textsize=True)
    w.line(DUPLICATE_NOTE)
    p.set(align="left")
    p.text("\n")
    return bytes(p.output)


def mark_copy(data: bytes, marking: str, *, profile: str = DEFAULT_PROFILE) -> bytes:
    """A stored slip's bytes as the next print sends them: as they are for an original
    (``""``), after the REPRINT banner (``"reprint"``) or the DUPLICATE banner
    (``"duplicate"``)."""
    if marking == "":
        return data
    if marking == "reprint":
        return reprint_banner(profile=profile) + data
    if marking == "duplicate":
        return duplicate_banner(profile=profile) + data
    raise SlipError(f"print marking: {marking!r} is not '', 'reprint' or 'duplicate'")


VOID_BANNER = " VOID - NOT PAYABLE "


def void_banner(mark: VoidMark, timezone: str, *, profile: str = DEFAULT_PROFILE) -> bytes:
    """The bytes that say a slip is VOID: a large inverted VOID, then when, by whom, why and
    whether the money came back.  Put in front of a voided slip's stored bytes wherever it is
    shown (:func:`mark_void`); a voided slip is never printed on the receipt printer again."""
    p = escpos_dummy(profile)
    w = _Writer(p, profile_columns(p))
    w.style(align="center", bold=True, size="3x", invert=True)
    w.line(" VOID ", width=w.cols // 3)
    w.style(align="center", bold=True, size="2h", invert=True)
    w.line(VOID_BANNER)
    w.style()
    local, utc = paid_time_text(mark.at, ZoneInfo(timezone))
    w.field("Voided", local, bold=True)
    w.field("", utc)
    w.field("Voided by", mark.by.label())
    w.field("Reason", mark.reason)
    w.field("Money", mark.money_text())
    w.rule("=")
    p.text("\n")
    return bytes(p.output)


def mark_void(data: bytes, mark: VoidMark, timezone: str, *,
              profile: str = DEFAULT_PROFILE) -> bytes:
    """A voided slip's stored bytes as they are shown: after the VOID banner (the stored bytes
    stay unchanged in the ledger)."""
    return void_banner(mark, timezone, profile=profile) + data


class EscposPaper:
    """Printing's side of core's paper port (``core.tablegames.paper.SlipPaper``): win slips
    as ESC/POS bytes for printers of ``profile``."""

    def __init__(self, profile: str = DEFAULT_PROFILE) -> None:
        self.profile = profile

    def render_slip(self, slip: WinSlip) -> bytes:
        return render_slip(slip, profile=self.profile)

    def mark_copy(self, data: bytes, marking: str) -> bytes:
        return mark_copy(data, marking, profile=self.profile)

    def mark_void(self, data: bytes, mark: VoidMark, timezone: str) -> bytes:
        return mark_void(data, mark, timezone, profile=self.profile)


PAPER = EscposPaper()
