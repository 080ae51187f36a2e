"""The ESC/POS interpreter: the bytes a printer receives back into what the paper says.

It reads the ESC/POS subset Podium's slips use (and a little more): text in the selected code
page, bold, underline, reverse, double width/height (``ESC !`` and ``GS !``), alignment, line
spacing, feeds, native QR codes (``GS ( k``), 1-D barcodes, raster images (``GS v 0``) and the
cut.  :func:`interpret` returns the recovered :class:`Receipt` (text lines, codes, anything it
did not understand); :func:`recovered_text` its text lines.  :mod:`printing.escpos.preview`
draws a :class:`Receipt` as an image.

Because the receipt is recovered from the very bytes the printer receives, tests can check
what the paper would show.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from printing.escpos.slip import DEFAULT_PROFILE, escpos_dummy

DEFAULT_PRINTABLE_DOTS = 512  # TM-T88V: 72 mm at 180 dpi
DEFAULT_LINE_SPACING = 30  # 1/6 inch at 180 dpi
FONTS = {0: (12, 24), 1: (9, 17)}  # font A, font B: cell width, height in dots

ESC, GS, DLE, FS = 0x1B, 0x1D, 0x10, 0x1C
# ESC commands we understand or safely skip: letter -> number of parameter bytes
_ESC_ARGS = {"@": 0, "2": 0, "t": 1, "!": 1, "E": 1, "-": 1, "a": 1, "M": 1, "d": 1, "J": 1,
             "3": 1, "G": 1, "{": 1, "V": 1, "r": 1, " ": 1, "R": 1, "c": 2, "p": 3, "=": 1,
             "U": 1, "A": 1, "+": 1, "e": 1, "$": 2, "\\": 2}
_GS_ONE_ARG = {"B", "h", "w", "H", "f", "a", "!", "r", "I"}


class PreviewError(ValueError):
    """The bytes can not be previewed (the message names the offset and the problem)."""


@dataclass
class Style:
    bold: bool = False
    underline: int = 0
    invert: bool = False
    width: int = 1
    height: int = 1
    font: int = 0

    def copy(self) -> Style:
        return Style(self.bold, self.underline, self.invert, self.width, self.height, self.font)


@dataclass
class Run:
    text: str
    style: Style

    @property
    def cell(self) -> tuple[int, int]:
        w, h = FONTS.get(self.style.font, FONTS[0])
        return w * self.style.width, h * self.style.height


@dataclass
class TextLine:
    runs: list[Run]
    align: int  # 0 left, 1 center, 2 right
    spacing: int

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)

    @property
    def width(self) -> int:
        return sum(r.cell[0] * len(r.text) for r in self.runs)

    @property
    def height(self) -> int:
        return max((r.cell[1] for r in self.runs if r.text), default=FONTS[0][1])


@dataclass
class Code:
    kind: str  # "qr" or "barcode"
    data: bytes
    align: int
    module: int = 3
    ec: int = 0  # QR error correction 0..3 (L M Q H)
    height: int = 162  # barcode height in dots

    @property
    def text(self) -> str:
        return self.data.decode("latin-1")


@dataclass
class Raster:
    image: Image.Image
    align: int


@dataclass
class Feed:
    dots: int


@dataclass
class Cut:
    partial: bool


Item = TextLine | Code | Raster | Feed | Cut


@dataclass
class Receipt:
    """What the interpreter recovered from the bytes, in paper order."""

    items: list[Item] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # commands it skipped, with offsets
    queries: list[bytes] = field(default_factory=list)  # real-time status requests seen
    printable_dots: int = DEFAULT_PRINTABLE_DOTS

    @property
    def lines(self) -> list[str]:
        return [i.text for i in self.items if isinstance(i, TextLine)]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def codes(self) -> list[Code]:
        return [i for i in self.items if isinstance(i, Code)]

    @property
    def cut(self) -> bool:
        return any(isinstance(i, Cut) for i in self.items)

    def styled_runs(self) -> list[Run]:
        return [r for i in self.items if isinstance(i, TextLine) for r in i.runs]


# --------------------------------------------------------------------------------------
# code pages


@functools.lru_cache(maxsize=8)
def _codepage_numbers(profile: str) -> dict[int, str]:
    p = escpos_dummy(profile)
    return {int(num): name for name, num in p.profile.get_code_pages().items()}


@functools.lru_cache(maxsize=64)
def _decoder(name: str) -> Callable[[int], str]:
    from escpos.codepages import CodePages

    try:
        enc: dict[str, Any] = CodePages.get_encoding(name)
    except Exception:
        enc = {}
    if "python_encode" in enc:
        codec = str(enc["python_encode"])

        def dec(b: int) -> str:
            try:
                return bytes([b]).decode(codec)
            except (UnicodeDecodeError, LookupError):
                return "?"
        return dec
    if "data" in enc:
        table = list("".join(enc["data"]))

        def dec_table(b: int) -> str:
            return chr(b) if b < 128 else table[b - 128]
        return dec_table
    return lambda b: chr(b) if b < 128 else "?"


# --------------------------------------------------------------------------------------
# the interpreter


def interpret(data: bytes, *, profile: str = DEFAULT_PROFILE,
              printable_dots: int | None = None) -> Receipt:
    """Decode ESC/POS ``data`` into a :class:`Receipt` (text lines, codes, feeds, cut)."""
    if not isinstance(data, bytes | bytearray):
        raise PreviewError(f"slip data: expected bytes, got {type(data).__name__}")
    pages = _codepage_numbers(profile)
    if printable_dots is None:
        p = escpos_dummy(profile)
        media = p.profile.profile_data.get("media") or {}
        printable_dots = int((media.get("width") or {}).get("pixels") or DEFAULT_PRINTABLE_DOTS)
    rec = Receipt(printable_dots=printable_dots)

    style = Style()
    align = 0
    spacing = DEFAULT_LINE_SPACING
    codepage = pages.get(0, "CP437")
    runs: list[Run] = []
    line_width = 0
    qr_module, qr_ec, qr_data = 3, 0, b""
    barcode_height = 162
    n = len(data)
    i = 0

    def need(count: int, what: str) -> bytes:
        if i + count > n:
            raise PreviewError(f"byte {i}: {what} is cut short ({n - i} of {count} bytes)")
        return bytes(data[i:i + count])

    def flush(force: bool = True) -> None:
        nonlocal runs, line_width
        if runs or force:
            rec.items.append(TextLine(runs, align, spacing))
        runs = []
        line_width = 0

    def put_char(ch: str) -> None:
        nonlocal line_width
        cw = FONTS.get(style.font, FONTS[0])[0] * style.width
        if line_width + cw > printable_dots:
            flush()
        if runs and runs[-1].style == style:
            runs[-1].text += ch
        else:
            runs.append(Run(ch, style.copy()))
        line_width += cw

    while i < n:
        b = data[i]
        if b == 0x0A:
            flush()
            i += 1
        elif b == 0x0D or b == 0x00:
            i += 1
        elif b == 0x09:
            for _ in range(8 - (len("".join(r.text for r in runs)) % 8)):
                put_char(" ")
            i += 1
        elif b == ESC:
            cmd = chr(need(2, "ESC command")[1])
            if cmd not in _ESC_ARGS:
                rec.unknown.append(f"byte {i}: ESC {cmd!r}")
                i += 1
                continue
            args = need(2 + _ESC_ARGS[cmd], f"ESC {cmd}")[2:]
            i += 2 + len(args)
            a = args[0] if args else 0
            if cmd == "@":
                style, align, spacing = Style(), 0, DEFAULT_LINE_SPACING
                codepage = pages.get(0, "CP437")
            elif cmd == "t":
                codepage = pages.get(a, "Unknown")
            elif cmd == "!":
                style.font = a & 1
                style.bold = bool(a & 0x08)
                style.height = 2 if a & 0x10 else 1
                style.width = 2 if a & 0x20 else 1
                style.underline = 1 if a & 0x80 else 0
            elif cmd in ("E", "G"):
                style.bold = bool(a & 1)
            elif cmd == "-":
                style.underline = a % 48 if a >= 48 else a
            elif cmd == "a":
                align = a % 48 if a >= 48 else a
            elif cmd == "M":
                style.font = 1 if a in (1, 49) else 0
            elif cmd == "2":
                spacing = DEFAULT_LINE_SPACING
            elif cmd == "3":
                spacing = a
            elif cmd == "d":
                if runs:
                    flush()
                rec.items.append(Feed(a * spacing))
            elif cmd == "J":
                if runs:
                    flush(force=False)
                rec.items.append(Feed(a))
        elif b == GS:
            cmd = chr(need(2, "GS command")[1])
            if cmd in _GS_ONE_ARG:
                a = need(3, f"GS {cmd}")[2]
                i += 3
                if cmd == "!":
                    style.width = (a >> 4) + 1
                    style.height = (a & 0x0F) + 1
                elif cmd == "B":
                    style.invert = bool(a & 1)
                elif cmd == "h":
                    barcode_height = a
            elif cmd == "V":
                m = need(3, "GS V")[2]
                i += 3
                if m in (65, 66):
                    need(1, "GS V feed")
                    i += 1
                if runs:
                    flush()
                rec.items.append(Cut(partial=m in (1, 49, 66)))
            elif cmd in ("L", "W", "P", "\\"):
                need(4, f"GS {cmd}")
                i += 4
            elif cmd == "(":
                head = need(5, "GS ( command")
                fn_kind, length = chr(head[2]), head[3] | (head[4] << 8)
                body = need(5 + length, f"GS ( {fn_kind}")[5:]
                i += 5 + length
                if fn_kind == "k" and len(body) >= 2 and body[0] == 49:
                    fn = body[1]
                    if fn == 67 and len(body) >= 3:
                        qr_module = body[2]
                    elif fn == 69 and len(body) >= 3:
                        qr_ec = body[2] - 48
                    elif fn == 80:
                        qr_data = bytes(body[3:])
                    elif fn == 81:
                        if runs:
                            flush()
                        rec.items.append(Code("qr", qr_data, align, module=qr_module, ec=qr_ec))
                elif not (fn_kind == "k" and body[:1] == b"1"):
                    rec.unknown.append(f"byte {i - 5 - length}: GS ( {fn_kind}")
            elif cmd == "v":
                head = need(8, "GS v 0 raster image")
                mode, xb, yd = head[3], head[4] | (head[5] << 8), head[6] | (head[7] << 8)
                raw = need(8 + xb * yd, "GS v 0 raster image")[8:]
                i += 8 + xb * yd
                img = Image.frombytes("1", (xb * 8, yd), raw, "raw", "1;I")
                if mode & 1:
                    img = img.resize((img.width * 2, img.height))
                if mode & 2:
                    img = img.resize((img.width, img.height * 2))
                if runs:
                    flush()
                rec.items.append(Raster(img, align))
            elif cmd == "k":
                m = need(3, "GS k")[2]
                if m <= 6:
                    end = data.find(b"\x00", i + 3)
                    if end < 0:
                        raise PreviewError(f"byte {i}: GS k barcode data has no end (NUL)")
                    payload, i = bytes(data[i + 3:end]), end + 1
                else:
                    ln = need(4, "GS k")[3]
                    payload = need(4 + ln, "GS k barcode")[4:]
                    i += 4 + ln
                if runs:
                    flush()
                rec.items.append(Code("barcode", payload, align, height=barcode_height))
            else:
                rec.unknown.append(f"byte {i}: GS {cmd!r}")
                i += 1
        elif b == DLE:
            head = need(2, "DLE command")
            if head[1] == 0x04:
                rec.queries.append(need(3, "DLE EOT")[:3])
                i += 3
            elif head[1] == 0x14:
                i += min(5, n - i)
            else:
                rec.unknown.append(f"byte {i}: DLE {head[1]:#04x}")
                i += 1
        elif b == FS:
            cmd = chr(need(2, "FS command")[1])
            if cmd in (".", "&"):
                i += 2
            elif cmd == "p":
                i += 4
            else:
                rec.unknown.append(f"byte {i}: FS {cmd!r}")
                i += 1
        elif b < 0x20:
            rec.unknown.append(f"byte {i}: control {b:#04x}")
            i += 1
        else:
            put_char(_decoder(codepage)(b))
            i += 1
    if runs:
        flush()
    return rec


def recovered_text(data: bytes, *, profile: str = DEFAULT_PROFILE) -> str:
    """The text lines the paper would show (without styling), one per line."""
    return interpret(data, profile=profile).text
